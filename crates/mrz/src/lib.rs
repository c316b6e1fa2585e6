//! Reading and validating ICAO 9303 machine readable zones (MRZ).
//!
//! The crate parses TD1, TD2, TD3, MRV-A, MRV-B and the pre-2021 French identity card, reports
//! per-field evidence from the check digits, corrects misreads only where check digits prove the
//! correction (with an audit trail), returns ambiguity instead of guessing, and answers questions
//! such as "expired?" or "age?" against a caller-supplied reference date. It is pure and
//! synchronous: no IO, no clock except [`Date::today_utc`], and no panics on any input.
//!
//! Two entry points share one pipeline:
//! - [`parse_text`] takes text lines (as typed, or from a text OCR engine) and treats the usual
//!   OCR confusions of each field class as correction candidates;
//! - [`decode_cells`] takes a recogniser's top-k candidates per cell and ranks readings by their
//!   probabilities, leaving the check digits to decide.
//!
//! ```
//! use mrtd_mrz::{Date, ParseOptions, parse_text};
//!
//! let options = ParseOptions::new(Date::parse_iso("2026-11-29").unwrap());
//! let reading = parse_text(
//!     &[
//!         "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
//!         "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
//!     ],
//!     &options,
//! )
//! .unwrap();
//! assert!(reading.valid);
//! assert_eq!(reading.fields.surname, "ERIKSSON");
//! assert_eq!(reading.fields.birth_date, Date::new(1974, 8, 12));
//! assert_eq!(reading.derived.expired, Some(true));
//! assert_eq!(reading.is_at_least(18, options.reference_date), Some(true));
//! ```

#![warn(missing_docs, unreachable_pub)]
// Silent numeric truncation is where check digit arithmetic would go quietly wrong.
#![deny(clippy::cast_possible_truncation, clippy::cast_possible_wrap, clippy::cast_sign_loss)]

mod candidates;
mod check_digit;
mod codes;
mod date;
mod interpret;
mod layout;
mod mrz_date;
mod names;
mod national;
mod printed;
mod proof;
mod reading;
mod recognised;
mod shape;
mod solve;
#[cfg(any(test, feature = "test-support"))]
pub mod test_support;

pub use candidates::CellCandidates;
pub use check_digit::{
    char_value, compute as compute_check_digit, is_blind_pair, weight as check_digit_weight,
};
pub use codes::{
    CodeInfo, CodeKind, canonical as canonical_code, classify as classify_code, codes_equivalent,
};
pub use date::{Date, DateParseError, days_in_month, is_leap_year};
pub use layout::{CheckName, FieldName, Format};
pub use mrz_date::{DateKind, MrzDate};
pub use national::{National, NationalVariant};
pub use printed::{Agreement, Comparison, Printed, PrintedDate, PrintedYear, printed_sex};
pub use proof::{Cancelling, Choice, Decoded, Proof, Seen, decode_proven};
pub use reading::{
    Alternative, Ambiguity, CellRange, Change, Check, CheckStatus, Codes, Correction, Dates,
    Derived, EvidenceStatus, FieldEvidence, Fields, Reading, ResidualRisk, Sex, Warning,
    WarningCode, Why,
};
pub use shape::{NotMrz, ZONE_SHAPES, line_widths};

use candidates::{Cell, decoded_cell, text_cell};
use layout::{FieldName as F, Layout};

/// How to read.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseOptions {
    /// The date "today" is for century rules, expiry and age.
    pub reference_date: Date,
    /// Readings whose likelihoods are within this ratio of the best count as equally good, so a
    /// correction is applied only when it is at least this much more likely than any other
    /// reading that satisfies the check digits. Default 2.
    pub ambiguity_ratio: f64,
    /// Apply check-digit-guided corrections (class rules such as `O` → `0` in a date still
    /// apply). Default true, as recognisers need. Text a person typed is better read with it
    /// off: a failing check digit then stays failing, and the changes that would satisfy it
    /// come back as [`Reading::suggestions`].
    pub correct: bool,
}

impl ParseOptions {
    /// Options with this reference date and default settings.
    pub fn new(reference_date: Date) -> ParseOptions {
        ParseOptions { reference_date, ambiguity_ratio: 2.0, correct: true }
    }
}

impl Default for ParseOptions {
    /// Today (UTC) as the reference date.
    fn default() -> ParseOptions {
        ParseOptions::new(Date::today_utc())
    }
}

/// Reads MRZ text lines.
///
/// Lines are trimmed, uppercased and stripped of spaces; a single line holding a whole zone is
/// split; a line up to two cells short or long at a trailing filler run is fitted; other lines
/// around an exactly shaped zone (a header, a caption) are ignored with a warning. Letters in
/// digit-only cells and digits in letter-only cells are mapped by the usual confusions; other
/// confusions become candidates that only a check digit can confirm.
pub fn parse_text(lines: &[&str], options: &ParseOptions) -> Result<Reading, NotMrz> {
    let (grid, warnings) = shape::select_zone(shape::text_lines(lines))?;
    shape::plausibility(&grid)?;
    let format = shape::detect_format(&grid)?;
    let layout = Layout::new(format, &grid);
    let classes = layout.cell_classes();
    let mut cells: Vec<Vec<Cell>> = grid
        .iter()
        .zip(&classes)
        .map(|(row, row_classes)| {
            row.iter().zip(row_classes).map(|(c, class)| text_cell(*c, *class)).collect()
        })
        .collect();
    keep_typed_codes(&layout, &mut cells, |_, _| true);
    keep_typed_names(&layout, &mut cells, |_, _| true);
    let mut reading = read(layout, cells, warnings, TEXT_MAX_CHANGES, options);
    // Typed text is what was typed: each cell certain.
    reading.weigh_confidence(|_, _, _| 1.0);
    Ok(reading)
}

/// Codes are taken as printed: a digit in an issuer or nationality code (typed, or seen
/// surely by the recogniser, as `seen_as_digit` says) becomes the letter it is usually
/// mistaken for only when that makes a known code. A code no state uses stays as printed
/// (some national documents print a numeric nationality), with the interpretation's
/// `unknown_code` warning, rather than become a code nobody issues.
fn keep_typed_codes(
    layout: &Layout,
    cells: &mut [Vec<Cell>],
    seen_as_digit: impl Fn(usize, usize) -> bool,
) {
    for name in [F::Issuer, F::Nationality] {
        let Some(spec) = layout.field(name) else { continue };
        let positions: Vec<(usize, usize)> = spec.cells().collect();
        let forced = |&(line, column): &(usize, usize)| cells[line][column].forced.is_some();
        if !positions.iter().any(forced) {
            continue;
        }
        // A recognised code keeps its letters where the recogniser offered them too (the old
        // German `BDR`, no code of the list, seen at 10 px per line with its B a likelier 8).
        if !positions
            .iter()
            .filter(|p| forced(p))
            .all(|&(line, column)| seen_as_digit(line, column))
        {
            continue;
        }
        let mapped: String =
            positions.iter().map(|&(line, column)| cells[line][column].base()).collect();
        if codes::known_as_printed(&mapped) {
            continue;
        }
        for &(line, column) in &positions {
            let cell = &mut cells[line][column];
            if cell.forced.is_some() {
                *cell = candidates::as_typed(cell.read);
            }
        }
    }
}

/// A digit in a name stays as seen where the cell's class would make it the letter it is
/// usually mistaken for (no check digit covers a name, so nothing could prove the change):
/// some national codings print digits there (the Russian internal passport's `8` for `Я`),
/// and a coding this crate does not know must not be rewritten into other names. The
/// interpretation warns (`unusual_name`). `seen_as_digit(line, column)` says whether the
/// recogniser saw the digit surely enough; typed text always is.
fn keep_typed_names(
    layout: &Layout,
    cells: &mut [Vec<Cell>],
    seen_as_digit: impl Fn(usize, usize) -> bool,
) {
    for name in [F::Surname, F::GivenNames] {
        let Some(spec) = layout.field(name) else { continue };
        for (line, column) in spec.cells() {
            let cell = &mut cells[line][column];
            if cell.forced.is_some() && cell.read.is_ascii_digit() && seen_as_digit(line, column) {
                *cell = candidates::as_typed(cell.read);
            }
        }
    }
}

/// The most probability the recogniser may give any letter in a code or name cell whose
/// likeliest symbol is a digit for the digit to stand as seen: where it offers the letter
/// the digit is usually mistaken for, the layout reads the letter. A `0` in a name is always
/// read `O`: fonts print the two alike (the ICAO specimen's thumbnail, 7 px per line, gave
/// `ERIKSS0N` with the O under 2 %), and no national coding prints a zero there.
const DIGIT_SEEN_MAX_LETTER_P: f32 = 0.02;

/// Changed cells per check digit group when reading text. Every usual confusion weighs the
/// same there, so two changes under one mod-10 digit fit by coincidence too often to prove
/// anything.
const TEXT_MAX_CHANGES: usize = 1;

/// Changed cells per check digit group when reading recogniser candidates, whose probabilities
/// make a second change a ranked hypothesis rather than a coincidence.
const CELLS_MAX_CHANGES: usize = 2;

/// Reads a recogniser's per-cell candidates: 2 or 3 lines of 30, 36 or 44 cells.
///
/// Where the top candidates already satisfy every check digit they are kept. Otherwise the most
/// likely reading that satisfies them is chosen, and reported as ambiguous (and not applied)
/// when another reading is within [`ParseOptions::ambiguity_ratio`] of it. A cell with a single
/// candidate is treated like plain text.
pub fn decode_cells(
    lines: &[Vec<CellCandidates>],
    options: &ParseOptions,
) -> Result<Reading, NotMrz> {
    let lengths: Vec<usize> = lines.iter().map(Vec::len).collect();
    shape::check_cells_shape(&lengths)?;
    let top = |candidates: &CellCandidates| -> char {
        candidates
            .options
            .iter()
            .filter(|(_, p)| p.is_finite())
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map_or('\u{fffd}', |(c, _)| c.to_ascii_uppercase())
    };
    let mut grid: Vec<Vec<char>> =
        lines.iter().map(|line| line.iter().map(top).collect()).collect();
    // The document code starts with a letter: a filler or digit ranked above one is a misread.
    let first_letter = lines.first().and_then(|line| line.first()).and_then(|candidates| {
        let mut letters: Vec<(char, f32)> = candidates
            .options
            .iter()
            .map(|(c, p)| (c.to_ascii_uppercase(), *p))
            .filter(|(c, p)| c.is_ascii_uppercase() && p.is_finite())
            .collect();
        letters.sort_by(|a, b| b.1.total_cmp(&a.1));
        letters.first().map(|(c, _)| *c)
    });
    if let (Some(letter), Some(cell)) =
        (first_letter, grid.get_mut(0).and_then(|line| line.get_mut(0)))
        && !cell.is_ascii_uppercase()
    {
        *cell = letter;
    }
    shape::plausibility(&grid)?;
    let format = shape::detect_format(&grid)?;
    let layout = Layout::new(format, &grid);
    let classes = layout.cell_classes();
    let mut cells: Vec<Vec<Cell>> = lines
        .iter()
        .zip(&classes)
        .map(|(row, row_classes)| {
            row.iter().zip(row_classes).map(|(c, class)| decoded_cell(c, *class)).collect()
        })
        .collect();
    if let Some(cell) = cells.get_mut(0).and_then(|row| row.get_mut(0)) {
        candidates::require_letter(cell);
    }
    // A digit stands as seen only where the recogniser offered no letter beside it.
    let sure_digit = |line: usize, column: usize| {
        lines[line][column]
            .options
            .iter()
            .filter(|(c, p)| c.is_ascii_alphabetic() && p.is_finite())
            .all(|(_, p)| *p <= DIGIT_SEEN_MAX_LETTER_P)
    };
    keep_typed_codes(&layout, &mut cells, sure_digit);
    keep_typed_names(&layout, &mut cells, |line, column| {
        let cell = &lines[line][column];
        let zero =
            cell.options.iter().max_by(|a, b| a.1.total_cmp(&b.1)).is_some_and(|o| o.0 == '0');
        !zero && sure_digit(line, column)
    });
    let mut reading = read(layout, cells, Vec::new(), CELLS_MAX_CHANGES, options);
    reading.weigh_confidence(|line, column, symbol| {
        lines.get(line).and_then(|row| row.get(column)).map_or(0.0, |cell| {
            cell.options
                .iter()
                .filter(|(c, p)| c.to_ascii_uppercase() == symbol && p.is_finite())
                .map(|(_, p)| *p)
                .fold(0.0, f32::max)
        })
    });
    Ok(reading)
}

/// How often a misread cell still satisfies a mod-10 check digit: one time in ten.
const UNDETECTED_MISREAD: f32 = 0.1;

impl Reading {
    /// Sets every field's `confidence` from `probability(line, column, symbol)`, how likely
    /// the cell (both from 0) holds `symbol` as the recogniser saw it.
    ///
    /// With `q` the probability that every cell of the field is right (their product):
    /// - the field's own check digit refuted: `q / 10`;
    /// - its own check digit (or, without one, the composite) verified: `q / (q + (1 - q) / 10)`,
    ///   since a misread passes a check digit one time in ten;
    /// - only a refuted composite covers it: the chance that it is right given that something
    ///   the composite covers is wrong, `q (1 - Q/q) / (1 - Q)` with `Q` the product over every
    ///   covered cell and the digit; `q / 10` when every cell is certain (typed text);
    /// - no check digit covers it: `q`.
    ///
    /// Rounded to three decimals.
    pub fn weigh_confidence(&mut self, probability: impl Fn(usize, usize, char) -> f32) {
        let grid: Vec<Vec<char>> = self.lines.iter().map(|line| line.chars().collect()).collect();
        let layout = Layout::new(self.format, &grid);
        let p = |(line, column): (usize, usize)| {
            grid.get(line)
                .and_then(|row| row.get(column))
                .map_or(0.0, |&symbol| probability(line, column, symbol).clamp(0.0, 1.0))
        };
        let status =
            |name: CheckName| self.checks.iter().find(|c| c.name == name).map(|c| c.status);
        let composite_all_right: f32 = layout
            .checks
            .iter()
            .filter(|check| check.name == CheckName::Composite)
            .flat_map(|check| check.covered_cells().chain(check.digit))
            .map(p)
            .product();
        for evidence in &mut self.evidence {
            // Both names share the one name field, except on the old French ID.
            let name = match evidence.field {
                F::GivenNames if self.format != Format::FraId => F::Surname,
                other => other,
            };
            let Some(spec) = layout.field(name) else { continue };
            let all_right: f32 = spec.cells().map(p).product();
            let own: Vec<CheckStatus> = evidence
                .checks
                .iter()
                .filter(|check| **check != CheckName::Composite)
                .filter_map(|check| status(*check))
                .collect();
            let composite = evidence
                .checks
                .contains(&CheckName::Composite)
                .then(|| status(CheckName::Composite))
                .flatten();
            let verified = |q: f32| q / (q + (1.0 - q) * UNDETECTED_MISREAD);
            let confidence = if own.contains(&CheckStatus::Refuted) {
                all_right * UNDETECTED_MISREAD
            } else if own.contains(&CheckStatus::Verified) {
                verified(all_right)
            } else {
                match composite {
                    Some(CheckStatus::Verified) => verified(all_right),
                    Some(CheckStatus::Refuted) if composite_all_right < 1.0 - 1e-6 => {
                        let others =
                            if all_right > 0.0 { composite_all_right / all_right } else { 0.0 };
                        all_right * (1.0 - others.min(1.0)) / (1.0 - composite_all_right)
                    }
                    Some(CheckStatus::Refuted) => all_right * UNDETECTED_MISREAD,
                    _ => all_right,
                }
            };
            evidence.confidence = (confidence.clamp(0.0, 1.0) * 1000.0).round() / 1000.0;
        }
    }
}

/// The shared pipeline: geometry rules, check-digit search, interpretation.
fn read(
    layout: Layout,
    mut cells: Vec<Vec<Cell>>,
    mut warnings: Vec<Warning>,
    max_changes: usize,
    options: &ParseOptions,
) -> Reading {
    // Fillers misread as letters in the name's trailing run.
    if let Some(spec) = layout.field(F::Surname).filter(|_| layout.format != Format::FraId) {
        let positions: Vec<(usize, usize)> = spec.cells().collect();
        let field: Vec<char> =
            positions.iter().map(|(line, column)| cells[*line][*column].base()).collect();
        for idx in names::misread_fillers(&field) {
            let (line, column) = positions[idx];
            let cell = &mut cells[line][column];
            if cell.unseen {
                continue;
            }
            cell.options = vec![('<', 0.0)];
            cell.forced = Some(Why::FillerRun);
        }
    }
    // A long document number's overflow ends at its first filler: a candidate filler inside it
    // would change the layout the check digits were solved for.
    if let Some(spec) = layout.field(F::DocumentNumber) {
        for span in spec.spans.iter().skip(1) {
            for (line, column) in span.cells() {
                cells[line][column].options.retain(|(c, cost)| *cost == 0.0 || *c != '<');
            }
        }
    }
    let ratio = if options.ambiguity_ratio.is_finite() && options.ambiguity_ratio >= 1.0 {
        options.ambiguity_ratio
    } else {
        1.0
    };
    let solved = solve::solve(&cells, &layout.checks, max_changes, ratio.ln());
    // Without corrections the solver's changes are offered as suggestions, not applied.
    let (outcome, suggested) = if options.correct {
        (solved, Vec::new())
    } else {
        let suggested = solved.changes;
        let outcome = solve::Outcome { ambiguities: solved.ambiguities, ..Default::default() };
        (outcome, suggested)
    };
    let suggestions: Vec<Correction> = suggested
        .iter()
        .map(|decided| Correction {
            line: decided.pos.0 + 1,
            column: decided.pos.1 + 1,
            from: cells[decided.pos.0][decided.pos.1].base(),
            to: decided.to,
            why: Why::CheckDigit,
            proof: decided.proof.clone(),
        })
        .collect();

    let mut grid: Vec<Vec<char>> =
        cells.iter().map(|row| row.iter().map(Cell::base).collect()).collect();
    for decided in &outcome.changes {
        grid[decided.pos.0][decided.pos.1] = decided.to;
    }
    let mut corrections = Vec::new();
    for (line, row) in cells.iter().enumerate() {
        for (column, cell) in row.iter().enumerate() {
            let to = grid[line][column];
            if to == cell.read {
                continue;
            }
            let decided = outcome.changes.iter().find(|d| d.pos == (line, column));
            let (why, proof) = match (decided, cell.forced) {
                (Some(decided), _) => (Why::CheckDigit, decided.proof.clone()),
                (None, Some(why)) => (why, Vec::new()),
                (None, None) => continue,
            };
            corrections.push(Correction {
                line: line + 1,
                column: column + 1,
                from: cell.read,
                to,
                why,
                proof,
            });
        }
    }
    for ambiguity in &outcome.ambiguities {
        let labels: Vec<&str> =
            ambiguity.checks.iter().map(|c| interpret::check_label(*c)).collect();
        warnings.push(Warning {
            code: WarningCode::Ambiguous,
            message: format!(
                "{} readings satisfy the {} check digits equally; left as read",
                ambiguity.alternatives.len(),
                labels.join(" and ")
            ),
            line: ambiguity.alternatives.first().and_then(|a| a.changes.first()).map(|c| c.line),
            column: None,
        });
    }

    let interpretation = interpret::interpret_grid(&layout, &grid, options.reference_date);
    warnings.extend(interpretation.warnings);
    // A change the cell's class forced names, as its proof, the check digits over the cell
    // that hold only after it (a `T` read in a birth date, made `1`, and the birth date's
    // digit then verified).
    let classes = layout.cell_classes();
    for correction in corrections.iter_mut().filter(|c| c.why.is_forced()) {
        let place = (correction.line - 1, correction.column - 1);
        let mut before = grid.clone();
        before[place.0][place.1] = correction.from;
        correction.proof = layout
            .checks
            .iter()
            .filter(|spec| spec.digit == Some(place) || spec.covered_cells().any(|c| c == place))
            .filter(|spec| {
                interpret::check_holds(&classes, spec, &grid)
                    && !interpret::check_holds(&classes, spec, &before)
            })
            .map(|spec| spec.name)
            .collect();
    }
    // A check digit that holds over a cell nobody saw whole proves nothing of it.
    let unseen_checked = layout.checks.iter().filter(|spec| spec.digit.is_some()).any(|spec| {
        spec.covered_cells().chain(spec.digit).any(|(line, column)| cells[line][column].unseen)
    });
    Reading {
        format: layout.format,
        lines: grid.iter().map(|row| row.iter().collect()).collect(),
        valid: interpretation.valid && !unseen_checked,
        fields: interpretation.fields,
        dates: interpretation.dates,
        codes: interpretation.codes,
        checks: interpretation.checks,
        evidence: interpretation.evidence,
        residual_risk: interpretation.residual_risk,
        corrections,
        suggestions,
        ambiguities: outcome.ambiguities,
        warnings,
        derived: interpretation.derived,
        national: interpretation.national,
    }
}
