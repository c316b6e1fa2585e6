//! Turning the best attempt (or its absence) into a status and diagnostics
//! that say what went wrong in words a person can act on.

use mrtd_mrz::ParseOptions;

use crate::cells::CellGeometry;
use crate::decode::unchecked_cells_certain;
use crate::gray::Gray;
use crate::locate::LocateReport;
use crate::recognise::Attempt;
use crate::types::{Diagnostic, DiagnosticCode, ImageReading, Status};

/// Glyphs below this height (original pixels) are too small to read reliably.
const SMALL_GLYPH_PX: f32 = 7.0;

/// The most a cell covered above or below its glyph is trusted, whatever the classifier says.
const COVERED_TRUST: f32 = 0.5;

fn diagnostic(code: DiagnosticCode, message: String) -> Diagnostic {
    Diagnostic { code, message }
}

fn length(v: (f32, f32)) -> f32 {
    v.0.hypot(v.1)
}

/// The MRZ quadrilateral from the outer cells, upright order.
fn region(cells: &[Vec<CellGeometry>]) -> [(f32, f32); 4] {
    let corner = |cell: &CellGeometry, side: f32, vertical: f32| {
        (
            cell.centre.0 + side * 0.5 * cell.along.0 + vertical * 0.75 * cell.across.0,
            cell.centre.1 + side * 0.5 * cell.along.1 + vertical * 0.75 * cell.across.1,
        )
    };
    let first = &cells[0];
    let last = &cells[cells.len() - 1];
    [
        corner(&first[0], -1.0, -1.0),
        corner(&first[first.len() - 1], 1.0, -1.0),
        corner(&last[last.len() - 1], 1.0, 1.0),
        corner(&last[0], -1.0, 1.0),
    ]
}

/// The edges of the photo (`left`, `top`, `right`, `bottom`) that the zone runs off.
fn cut_edges(quad: &[(f32, f32); 4], gray: &Gray, pitch: f32) -> Vec<&'static str> {
    let margin = pitch * 0.2;
    let (width, height) = (gray.width as f32, gray.height as f32);
    let mut edges = Vec::new();
    if quad.iter().any(|&(x, _)| x < -margin) {
        edges.push("left");
    }
    if quad.iter().any(|&(_, y)| y < -margin) {
        edges.push("top");
    }
    if quad.iter().any(|&(x, _)| x > width + margin) {
        edges.push("right");
    }
    if quad.iter().any(|&(_, y)| y > height + margin) {
        edges.push("bottom");
    }
    edges
}

/// How likely another reading of a cell must be for the cell to count as doubtful when
/// looking for misreads that cancel under a check digit.
const PLAUSIBLE_ALTERNATIVE: f32 = 0.05;

/// Two or three doubtful cells (1-based line and column) whose plausible other readings
/// would satisfy every check digit as well as the published reading does, with the label
/// of a check digit covering them; `None` when the check digits prove every such cell.
/// `options(line, pos)` gives the classifier's candidates of a cell (0-based).
fn cancelling_misreads(
    reading: &mrtd_mrz::Reading,
    options: impl Fn(usize, usize) -> Vec<(char, f32)>,
) -> Option<(&'static str, Vec<(usize, usize)>)> {
    const WEIGHTS: [u32; 3] = [7, 3, 1];
    let verified: Vec<&mrtd_mrz::Check> =
        reading.checks.iter().filter(|c| c.status == mrtd_mrz::CheckStatus::Verified).collect();
    // The weight of a cell under each verified check digit (0 where it does not count);
    // the digit itself counts with weight -1, that is 9 mod 10.
    let weight = |place: (usize, usize), check: &mrtd_mrz::Check| -> u32 {
        if check.line.zip(check.column) == Some(place) {
            return 9;
        }
        check
            .covers
            .iter()
            .flat_map(|range| (range.from..=range.to).map(move |column| (range.line, column)))
            .position(|covered| covered == place)
            .map_or(0, |i| WEIGHTS[i % 3])
    };
    // Each doubtful covered cell with the value changes its plausible other readings make.
    let mut doubtful: Vec<((usize, usize), Vec<u32>)> = Vec::new();
    for (line, text) in reading.lines.iter().enumerate() {
        for (pos, read) in text.chars().enumerate() {
            let place = (line + 1, pos + 1);
            if !verified.iter().any(|check| weight(place, check) != 0) {
                continue;
            }
            let Some(read_value) = mrtd_mrz::char_value(read) else { continue };
            let mut changes: Vec<u32> = options(line, pos)
                .iter()
                .filter(|(symbol, p)| *symbol != read && *p >= PLAUSIBLE_ALTERNATIVE)
                .filter_map(|(symbol, _)| mrtd_mrz::char_value(*symbol))
                .map(|value| (value + 40 - read_value % 10) % 10)
                .filter(|change| *change != 0)
                .collect();
            changes.sort_unstable();
            changes.dedup();
            if !changes.is_empty() {
                doubtful.push((place, changes));
            }
        }
    }
    // Two or three cells at once: misreads of `0` as `O` cancel in pairs under weights 7
    // and 3, and in threes under 3, 1 and 1.
    let fits = |cells: &[((usize, usize), u32)]| {
        verified.iter().all(|check| {
            cells.iter().map(|(place, change)| weight(*place, check) * change).sum::<u32>() % 10
                == 0
        })
    };
    let label = |cells: &[((usize, usize), u32)]| {
        verified
            .iter()
            .find(|check| cells.iter().filter(|(place, _)| weight(*place, check) != 0).count() > 1)
            .map(|check| check.name.label())
    };
    let n = doubtful.len();
    for i in 0..n {
        for j in i + 1..n {
            for a in &doubtful[i].1 {
                for b in &doubtful[j].1 {
                    let pair = [(doubtful[i].0, *a), (doubtful[j].0, *b)];
                    if fits(&pair) {
                        return label(&pair).map(|name| (name, vec![pair[0].0, pair[1].0]));
                    }
                    for (third, changes) in &doubtful[j + 1..] {
                        for c in changes {
                            let triple = [pair[0], pair[1], (*third, *c)];
                            if fits(&triple) {
                                let places = triple.iter().map(|(place, _)| *place).collect();
                                return label(&triple).map(|name| (name, places));
                            }
                        }
                    }
                }
            }
        }
    }
    None
}

/// Finds runs of washed-out cells (low contrast and bright) inside a line.
fn glare_runs(attempt: &Attempt) -> Vec<(usize, usize, usize)> {
    let mut all: Vec<f32> = attempt.contrast.iter().flatten().copied().collect();
    all.sort_by(f32::total_cmp);
    let median = all[all.len() / 2];
    let mut runs = Vec::new();
    for (line, contrasts) in attempt.contrast.iter().enumerate() {
        let weak: Vec<bool> = contrasts.iter().map(|&c| c < median * 0.4).collect();
        runs.extend(
            runs_of(&weak)
                .into_iter()
                .filter(|(first, last)| last - first >= 2)
                .map(|(first, last)| (line, first, last)),
        );
    }
    runs
}

/// Decides the status and writes the diagnostics.
pub(crate) fn conclude(
    best: Option<Attempt>,
    report: &LocateReport,
    gray: &Gray,
    scale: f32,
    options: &ParseOptions,
) -> ImageReading {
    let mut diagnostics = Vec::new();
    let empty = |status, diagnostics| ImageReading {
        status,
        reading: None,
        diagnostics,
        rotation_degrees: 0.0,
        region: None,
        image_width: gray.width,
        image_height: gray.height,
        image_format: "raw",
        timing_ms: 0.0,
    };
    let Some(attempt) = best else {
        let message = match &report.longest_row {
            Some(row) => {
                let height_px = row.height / scale;
                if height_px < SMALL_GLYPH_PX {
                    diagnostics.push(diagnostic(
                        DiagnosticCode::TooSmall,
                        format!("Text rows were found but their characters are only {height_px:.0} px high; take the photo closer or at a higher resolution (characters need about 10 px)."),
                    ));
                }
                format!(
                    "No MRZ found: {} long row(s) of text were seen but no two or three parallel rows of equal length at MRZ spacing. Make sure the whole MRZ (the two or three lines of text with <<< at the bottom of the page) is in the photo.",
                    report.n_long_rows
                )
            }
            None => "No MRZ found: no rows of evenly spaced characters were seen. Photograph the page so that the two or three lines with <<< at the bottom are in view, sharp and not washed out by light.".to_owned(),
        };
        diagnostics.insert(0, diagnostic(DiagnosticCode::NoMrzFound, message));
        return empty(Status::NoMrz, diagnostics);
    };

    let reading = attempt.reading.clone();
    // The published reading comes from the text engine's decoder, which knows
    // every layout rule; the engine's own decoder only ranked the hypotheses.
    // Both must agree, character for character, before the read is called certain.
    let mut cells: Vec<Vec<mrtd_mrz::CellCandidates>> = attempt
        .candidates
        .iter()
        .map(|line| {
            line.iter().map(|c| mrtd_mrz::CellCandidates { options: c.options.clone() }).collect()
        })
        .collect();
    // Country codes chosen from the known list are passed on as settled.
    for correction in reading.corrections.iter().filter(|c| c.reason == "country_code") {
        cells[correction.line][correction.position] =
            mrtd_mrz::CellCandidates::certain(correction.to);
    }
    crate::decode::weigh_look_alikes(&mut cells);
    // Name letters are chosen with the name model (letter triples usual in names) and
    // judged by the lower of the classifier's probability and the weighed one: the model
    // may change a letter and may doubt one, never vouch for one.
    let classified = cells.clone();
    crate::decode::weigh_names(reading.format, &mut cells);
    let probability = |line: usize, pos: usize, symbol: char| {
        let of = |cell: &mrtd_mrz::CellCandidates| {
            cell.options.iter().find(|o| o.0 == symbol).map_or(0.0, |o| o.1)
        };
        of(&classified[line][pos]).min(of(&cells[line][pos]))
    };
    let mut published = mrtd_mrz::decode_cells(&cells, options).ok();
    let unproven =
        published.as_ref().map_or_else(Vec::new, |p| unproven_corrections(p, probability));
    let mut unproven_note = None;
    if !unproven.is_empty() {
        // Decoding again without the check-digit search keeps the reading as the classifier
        // saw it, with the check digits that fail it, instead of a chance agreement.
        let uncorrected = ParseOptions { correct: false, ..options.clone() };
        published = mrtd_mrz::decode_cells(&cells, &uncorrected).ok();
        let places: Vec<String> = unproven
            .iter()
            .map(|(line, column)| format!("line {line} character {column}"))
            .collect();
        unproven_note = Some(diagnostic(
            DiagnosticCode::LowConfidence,
            format!(
                "The check digits would agree only after changing {}, but the characters they cover were read too uncertainly for the check digits to prove that, so they were left as read; verify them.",
                places.join(", ")
            ),
        ));
    }
    if let Some(published) = published.as_mut() {
        note_name_letters(reading.format, &classified, published);
    }
    // Check digits cannot see misreads that cancel: where two doubtful cells under one
    // check digit have plausible other readings that change its sum by amounts adding up
    // to a multiple of 10 (a `0` read `O` at weight 7 and another at weight 3), the check
    // digit fits the other reading as well as this one, and proves neither.
    let cancelling = published
        .as_ref()
        .and_then(|p| cancelling_misreads(p, |line, pos| classified[line][pos].options.clone()));
    if cancelling.is_some()
        && let Some(published) = published.as_mut()
    {
        published.valid = false;
    }
    let published_valid = published.as_ref().is_some_and(|p| p.valid);
    let glare = glare_runs(&attempt);
    // Check digits weigh symbols 7, 3, 1 and cannot see misreads that cancel: a
    // number `ZS0000177` read `Z<OOO0177` passes them all. A filler inside a
    // number, which no issuer prints, is such a reading's mark.
    let warned = |code: mrtd_mrz::WarningCode| {
        published.as_ref().is_some_and(|p| p.warnings.iter().any(|w| w.code == code))
    };
    let filler_inside_number = warned(mrtd_mrz::WarningCode::FillerInsideNumber);
    // Nor can they see a name letter; one after the fillers that end the names (a filler
    // at the page's edge read as H) is a misread, however sure the classifier.
    let unusual_name = warned(mrtd_mrz::WarningCode::UnusualName);
    // A cell whose window something other than paper covers (a page edge cutting the
    // line, a finger) was read from part of its glyph, however sure the classifier is.
    let trusted = |line: usize, pos: usize, symbol: char| {
        let p = probability(line, pos, symbol);
        if attempt.covered[line][pos] { p.min(COVERED_TRUST) } else { p }
    };
    let certain = published.as_ref().is_some_and(|p| {
        p.valid
            && p.ambiguities.is_empty()
            && !filler_inside_number
            && !unusual_name
            && unchecked_cells_certain(reading.format, &p.lines, trusted, &glare)
    });
    let quad = region(&attempt.cells);
    let pitch = length(attempt.cells[0][0].along);
    let glyph_px = length(attempt.cells[0][0].across);
    let mean_confidence = attempt.score.exp();
    // `read` promises that a pipeline may use the reading without a person looking: never
    // for characters too small to tell apart reliably, nor for a zone the photo cuts off,
    // whatever the classifier and the check digits say.
    let too_small = glyph_px < SMALL_GLYPH_PX;
    let cut_off = cut_edges(&quad, gray, pitch);
    let cut = !cut_off.is_empty();
    let confident = certain && !too_small && !cut;
    // Without passing check digits or a confident classifier this is not
    // evidence of an MRZ: an ordinary text block can look like two rows. The
    // check digits counted are those of the published reading, since the
    // ranking decoder's corrections can make garbage agree with them.
    let (n_checks, n_checks_valid) = match &published {
        Some(p) => {
            let printed = p.checks.iter().filter(|c| c.status != mrtd_mrz::CheckStatus::Absent);
            let verified = |c: &&mrtd_mrz::Check| c.status == mrtd_mrz::CheckStatus::Verified;
            (printed.clone().count(), printed.filter(verified).count())
        }
        None => (reading.checks.len(), reading.checks.iter().filter(|c| c.valid).count()),
    };
    if !reads_as_an_mrz(n_checks, n_checks_valid, certain, mean_confidence) {
        diagnostics.push(diagnostic(
            DiagnosticCode::NoMrzFound,
            "No MRZ found: rows of text were found but they do not read as an MRZ (too few check digits match). Make sure the whole MRZ is in the photo, sharp and evenly lit.".to_owned(),
        ));
        return empty(Status::NoMrz, diagnostics);
    }

    diagnostics.extend(unproven_note);
    if cut {
        // Characters beyond the edge were not seen: whatever the check digits say of the
        // cells read there, the reading is not valid.
        if let Some(published) = published.as_mut() {
            published.valid = false;
        }
        diagnostics.push(diagnostic(
            DiagnosticCode::MrzCutAtEdge,
            format!(
                "The MRZ runs off the {} edge of the photo, so some of its characters were not seen; take the photo again with the whole zone in the frame.",
                cut_off.join(" and ")
            ),
        ));
    }
    if too_small {
        diagnostics.push(diagnostic(
            DiagnosticCode::TooSmall,
            format!("The MRZ characters are only {glyph_px:.0} px high; take the photo closer or at a higher resolution (about 10 px per character or more)."),
        ));
    }
    for (line, covered) in attempt.covered.iter().enumerate() {
        let runs = runs_of(covered);
        if runs.is_empty() {
            continue;
        }
        let spans: Vec<String> = runs
            .iter()
            .map(|&(first, last)| match first == last {
                true => format!("character {}", first + 1),
                false => format!("characters {} to {}", first + 1, last + 1),
            })
            .collect();
        diagnostics.push(diagnostic(
            DiagnosticCode::PartlyCovered,
            format!(
                "Something other than the page covers line {} of the MRZ next to {} (the page's edge, a fold, a finger or a holder), so those characters were read from part of their glyphs; lay the page flat and uncovered.",
                line + 1,
                spans.join(", ")
            ),
        ));
    }
    for &(line, start, end) in &glare {
        diagnostics.push(diagnostic(
            DiagnosticCode::Glare,
            format!(
                "Glare or a reflection washes out line {} (characters {} to {}); tilt the document or move away from the light.",
                line + 1,
                start + 1,
                end + 1
            ),
        ));
    }
    if let Some((check, places)) = &cancelling {
        let places: Vec<String> =
            places.iter().map(|(line, column)| format!("line {line} character {column}")).collect();
        diagnostics.push(diagnostic(
            DiagnosticCode::LowConfidence,
            format!(
                "The {check} check digit agrees, but {} were read uncertainly and another reading of them would agree as well, so the check digits prove neither; verify them.",
                places.join(" and ")
            ),
        ));
    } else if !published_valid {
        // The published reading's verdicts when there is one; the ranking decoder's otherwise.
        let mut failed: Vec<&str> = match &published {
            Some(p) => p
                .checks
                .iter()
                .filter(|c| c.status == mrtd_mrz::CheckStatus::Refuted)
                .map(|c| c.name.label())
                .collect(),
            None => reading.checks.iter().filter(|c| !c.valid).map(|c| c.field).collect(),
        };
        if failed.is_empty() {
            failed.push("the document");
        }
        diagnostics.push(diagnostic(
            DiagnosticCode::CheckDigitFailed,
            format!("Check digits do not match for: {}. Some characters were misread; a sharper, evenly lit photo usually fixes this.", failed.join(", ")),
        ));
        if mean_confidence < 0.7 && glyph_px >= SMALL_GLYPH_PX {
            diagnostics.push(diagnostic(
                DiagnosticCode::TooBlurred,
                "The MRZ characters are hard to tell apart (blurred or out of focus); hold the camera still and let it focus.".to_owned(),
            ));
        }
    }
    for (line_idx, contrasts) in attempt.contrast.iter().enumerate() {
        let weak = contrasts.iter().filter(|&&c| c < 8.0).count();
        if weak * 2 > contrasts.len() {
            diagnostics.push(diagnostic(
                DiagnosticCode::LineUnreadable,
                format!(
                    "Line {} of the MRZ could not be read: it has almost no contrast.",
                    line_idx + 1
                ),
            ));
        }
    }
    if published.as_ref().is_some_and(|p| !p.ambiguities.is_empty()) {
        diagnostics.push(diagnostic(
            DiagnosticCode::LowConfidence,
            "More than one reading of the MRZ fits the check digits; the characters should be verified.".to_owned(),
        ));
    }
    if unusual_name {
        diagnostics.push(diagnostic(
            DiagnosticCode::LowConfidence,
            "The name field holds a character that names do not have there (after the fillers that end the names, or not a letter); it was probably misread, so verify the names.".to_owned(),
        ));
    }
    if filler_inside_number {
        diagnostics.push(diagnostic(
            DiagnosticCode::LowConfidence,
            "The document number has a filler (<) inside it, which documents do not print there; it was probably misread, so verify it.".to_owned(),
        ));
    } else if published_valid && !certain {
        diagnostics.push(diagnostic(
            DiagnosticCode::LowConfidence,
            "The check digits match, but characters no check digit covers (names, issuing state) were read with low confidence; verify them.".to_owned(),
        ));
    }
    let n_corrected = published.as_ref().map_or(reading.corrections.len(), |p| p.corrections.len());
    if n_corrected > 0 {
        let by_names = published
            .as_ref()
            .is_some_and(|p| p.corrections.iter().any(|c| c.why == mrtd_mrz::Why::NameLetters));
        let using = if by_names {
            "the MRZ layout, check digits and the letters usual in names"
        } else {
            "the MRZ layout and check digits"
        };
        diagnostics.push(diagnostic(
            DiagnosticCode::Corrected,
            format!("{n_corrected} character(s) were corrected using {using}."),
        ));
    }
    let rotation = (attempt.rotation_degrees * 10.0).round() / 10.0;
    let off_upright = rotation.min(360.0 - rotation);
    if off_upright > 5.0 {
        diagnostics.push(diagnostic(
            DiagnosticCode::Rotated,
            format!(
                "The document is turned {rotation:.0} degrees from upright; it was read anyway."
            ),
        ));
    }
    ImageReading {
        status: if confident { Status::Read } else { Status::Partial },
        reading: published,
        diagnostics,
        rotation_degrees: rotation,
        region: Some(quad),
        image_width: gray.width,
        image_height: gray.height,
        image_format: "raw",
        timing_ms: 0.0,
    }
}

/// Runs of set flags, as (first, last) indexes.
fn runs_of(flags: &[bool]) -> Vec<(usize, usize)> {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for (idx, _) in flags.iter().enumerate().filter(|(_, set)| **set) {
        match runs.last_mut() {
            Some(run) if run.1 + 1 == idx => run.1 = idx,
            _ => runs.push((idx, idx)),
        }
    }
    runs
}

/// Adds to the audit trail the name letters that stand where the classifier ranked another
/// letter first: chosen by the name model (see `decode::weigh_names`).
fn note_name_letters(
    format: crate::decode::MrzFormat,
    classified: &[Vec<mrtd_mrz::CellCandidates>],
    published: &mut mrtd_mrz::Reading,
) {
    for (line, (text, cells)) in published.lines.iter().zip(classified).enumerate() {
        for (pos, (symbol, cell)) in text.chars().zip(cells).enumerate() {
            let first = cell.options.iter().max_by(|a, b| a.1.total_cmp(&b.1)).map(|o| o.0);
            let Some(first) = first.filter(|f| f.is_ascii_uppercase() && *f != symbol) else {
                continue;
            };
            let noted =
                published.corrections.iter().any(|c| (c.line, c.column) == (line + 1, pos + 1));
            if symbol.is_ascii_uppercase()
                && !noted
                && crate::decode::is_name_cell(format, line, pos)
            {
                published.corrections.push(mrtd_mrz::Correction {
                    line: line + 1,
                    column: pos + 1,
                    from: first,
                    to: symbol,
                    why: mrtd_mrz::Why::NameLetters,
                    proof: Vec::new(),
                });
            }
        }
    }
    published.corrections.sort_by_key(|c| (c.line, c.column));
}

/// The check-digit corrections the check digits cannot prove, as (line, column) from 1.
///
/// A check digit agrees with a random reading one time in ten, and the decoder searched many
/// readings for one that agrees, so k agreeing check digits are worth a likelihood ratio of
/// at most 10^k. A correction is proven only when the classifier's own probability of the
/// corrected cells (every cell the proving checks cover, digits included) is above 10^-k;
/// below that, an agreement found by search is more likely chance than the document.
fn unproven_corrections(
    reading: &mrtd_mrz::Reading,
    probability: impl Fn(usize, usize, char) -> f32,
) -> Vec<(usize, usize)> {
    let mut unproven = Vec::new();
    for correction in reading.corrections.iter().filter(|c| c.why == mrtd_mrz::Why::CheckDigit) {
        let mut covered: Vec<(usize, usize)> = Vec::new();
        for check in reading.checks.iter().filter(|c| correction.proof.contains(&c.name)) {
            for range in &check.covers {
                covered.extend((range.from..=range.to).map(|column| (range.line - 1, column - 1)));
            }
            if let (Some(line), Some(column)) = (check.line, check.column) {
                covered.push((line - 1, column - 1));
            }
        }
        covered.sort_unstable();
        covered.dedup();
        // A cell the layout settled (a letter where only digits may stand) is not in doubt.
        covered.retain(|&(line, column)| {
            !reading.corrections.iter().any(|c| {
                c.why != mrtd_mrz::Why::CheckDigit && (c.line, c.column) == (line + 1, column + 1)
            })
        });
        let surprisal: f64 = covered
            .iter()
            .filter_map(|&(line, column)| {
                let symbol = reading.lines.get(line)?.chars().nth(column)?;
                Some(-f64::from(probability(line, column, symbol).max(1e-9)).ln())
            })
            .sum();
        let evidence = correction.proof.len() as f64 * 10f64.ln();
        if surprisal > evidence {
            unproven.push((correction.line, correction.column));
        }
    }
    unproven
}

/// Whether rows read well enough to be reported as an MRZ at all (`partial`
/// rather than `no_mrz`): a confident reading, more than half of the printed
/// check digits passing (half is what two of four random digits manage often
/// enough on a page of ordinary text), or a classifier sure of its glyphs.
fn reads_as_an_mrz(n_checks: usize, n_valid: usize, confident: bool, mean_confidence: f32) -> bool {
    confident || n_valid * 2 > n_checks || mean_confidence > 0.85
}

#[cfg(test)]
mod tests {
    use mrtd_mrz::CellCandidates;

    use super::*;

    const LINES: [&str; 2] = [
        "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
        "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
    ];

    /// Candidates for the specimen: each cell's true character with `p` and an unlikely other
    /// one; `misread` cells put a wrong character on top instead.
    fn candidates(
        p: impl Fn(usize, usize) -> f32,
        misread: &[(usize, usize)],
    ) -> Vec<Vec<CellCandidates>> {
        LINES
            .iter()
            .enumerate()
            .map(|(line, text)| {
                text.chars()
                    .enumerate()
                    .map(|(column, truth)| {
                        let other = if truth == 'X' { 'Y' } else { 'X' };
                        let p = p(line, column);
                        let options = if misread.contains(&(line, column)) {
                            vec![(other, 0.85), (truth, 0.15)]
                        } else {
                            vec![(truth, p), (other, 0.01)]
                        };
                        CellCandidates { options }
                    })
                    .collect()
            })
            .collect()
    }

    fn unproven(cells: &[Vec<CellCandidates>]) -> Vec<(usize, usize)> {
        let reading = mrtd_mrz::decode_cells(cells, &ParseOptions::default()).expect("a TD3");
        assert!(
            reading.corrections.iter().any(|c| c.why == mrtd_mrz::Why::CheckDigit),
            "the check digits correct the misread cell: {:?}",
            reading.corrections
        );
        let probability = |line: usize, column: usize, symbol: char| {
            cells[line][column].options.iter().find(|o| o.0 == symbol).map_or(0.0, |o| o.1)
        };
        unproven_corrections(&reading, probability)
    }

    #[test]
    fn a_correction_among_well_read_cells_is_proven() {
        // One misread digit of the document number; everything else read at 0.99.
        let cells = candidates(|_, _| 0.99, &[(1, 3)]);
        assert_eq!(unproven(&cells), Vec::<(usize, usize)>::new());
    }

    #[test]
    fn a_correction_among_doubtful_cells_is_not_proven() {
        // The same misread digit, but the document number's other cells read at 0.7: the
        // agreement the search finds is worth less than the doubt it has to overcome.
        let cells =
            candidates(|line, column| if line == 1 && column < 10 { 0.7 } else { 0.99 }, &[(1, 3)]);
        assert_eq!(unproven(&cells), vec![(2, 4)]);
    }

    #[test]
    fn half_the_check_digits_of_a_doubtful_reading_do_not_make_an_mrz() {
        assert!(!reads_as_an_mrz(4, 2, false, 0.6));
        assert!(reads_as_an_mrz(4, 3, false, 0.6));
        assert!(reads_as_an_mrz(4, 2, false, 0.9));
        assert!(reads_as_an_mrz(4, 0, true, 0.6));
        assert!(!reads_as_an_mrz(0, 0, false, 0.6));
    }

    #[test]
    fn a_name_letter_the_name_model_changed_is_in_the_audit_trail() {
        // ERIKSSON with its K read as X at 0.6 and K at 0.35.
        let mut classified = candidates(|_, _| 0.99, &[]);
        classified[0][8] = CellCandidates { options: vec![('X', 0.6), ('K', 0.35), ('<', 0.05)] };
        let mut weighed = classified.clone();
        crate::decode::weigh_names(crate::decode::MrzFormat::Td3, &mut weighed);
        let mut published =
            mrtd_mrz::decode_cells(&weighed, &ParseOptions::default()).expect("a TD3");
        assert_eq!(published.lines[0], LINES[0]);
        assert!(published.corrections.is_empty(), "the decoder saw K on top");
        note_name_letters(crate::decode::MrzFormat::Td3, &classified, &mut published);
        assert_eq!(
            published.corrections,
            [mrtd_mrz::Correction {
                line: 1,
                column: 9,
                from: 'X',
                to: 'K',
                why: mrtd_mrz::Why::NameLetters,
                proof: Vec::new(),
            }]
        );
        // The verdict is the classifier's: K at 0.35 is not a confident letter.
        let probability = |line: usize, column: usize, symbol: char| {
            classified[line][column].options.iter().find(|o| o.0 == symbol).map_or(0.0, |o| o.1)
        };
        assert!(!unchecked_cells_certain(
            crate::decode::MrzFormat::Td3,
            &published.lines,
            probability,
            &[]
        ));
    }

    /// The specimen TD3 as an attempt read at 0.99 everywhere, cells 20 px apart, with
    /// the cells in `washed` bright and without contrast.
    fn attempt_with_glare(washed: &[(usize, usize)], p_washed: f32) -> Attempt {
        let p = |line, pos| if washed.contains(&(line, pos)) { p_washed } else { 0.99 };
        let engine_cells: Vec<Vec<crate::decode::CellCandidates>> = candidates(p, &[])
            .into_iter()
            .map(|line| {
                line.into_iter()
                    .map(|c| crate::decode::CellCandidates { options: c.options })
                    .collect()
            })
            .collect();
        let reading = crate::decode::decode_cells(&engine_cells).expect("a TD3");
        let cells: Vec<Vec<CellGeometry>> = (0..2)
            .map(|line| {
                (0..44)
                    .map(|pos| CellGeometry {
                        centre: (40.0 + 20.0 * pos as f32, 40.0 + 30.0 * line as f32),
                        along: (20.0, 0.0),
                        across: (0.0, 22.0),
                    })
                    .collect()
            })
            .collect();
        let contrast: Vec<Vec<f32>> = (0..2)
            .map(|line| {
                (0..44).map(|pos| if washed.contains(&(line, pos)) { 3.0 } else { 40.0 }).collect()
            })
            .collect();
        Attempt {
            reading,
            candidates: engine_cells,
            cells,
            contrast,
            covered: vec![vec![false; 44]; 2],
            score: 0.99f32.ln(),
            rotation_degrees: 0.0,
        }
    }

    #[test]
    fn glare_over_characters_no_check_digit_covers_needs_near_certainty() {
        let gray = Gray { width: 1000, height: 200, data: vec![200; 1000 * 200] };
        let report = LocateReport::default();
        let read = |washed: &[(usize, usize)], p: f32| {
            let attempt = attempt_with_glare(washed, p);
            conclude(Some(attempt), &report, &gray, 1.0, &ParseOptions::default())
        };
        assert_eq!(read(&[], 0.99).status, Status::Read);
        // A name letter at 0.9 is read, but not under glare.
        let name = [(0, 7), (0, 8), (0, 9)];
        assert_eq!(read(&[(0, 8)], 0.9).status, Status::Read, "no run of washed-out cells");
        let washed = read(&name, 0.9);
        assert_eq!(washed.status, Status::Partial);
        assert!(washed.reading.as_ref().is_some_and(|r| r.valid && r.lines[0] == LINES[0]));
        let codes: Vec<DiagnosticCode> = washed.diagnostics.iter().map(|d| d.code).collect();
        assert!(codes.contains(&DiagnosticCode::Glare), "{codes:?}");
        assert!(codes.contains(&DiagnosticCode::LowConfidence), "{codes:?}");
        // Read clearly in spite of the glare: read, with the glare said.
        let clear = read(&name, 0.99);
        assert_eq!(clear.status, Status::Read);
        assert!(clear.diagnostics.iter().any(|d| d.code == DiagnosticCode::Glare));
        // Over the document number, which its check digit covers: read.
        assert_eq!(read(&[(1, 1), (1, 2), (1, 3)], 0.9).status, Status::Read);
    }

    /// A cell of the specimen, as line and column, and the options it is read with.
    type ReadAs = (usize, usize, Vec<(char, f32)>);

    /// The specimen TD3 read at 0.99 everywhere but at the cells `changed` gives, with the
    /// options it gives, concluded on a plain page.
    fn read_with_cells(changed: &[ReadAs]) -> ImageReading {
        read_with_covered_cells(changed, &[])
    }

    /// The same, with the cells `covered` lists (line, column) covered above or below.
    fn read_with_covered_cells(changed: &[ReadAs], covered: &[(usize, usize)]) -> ImageReading {
        let gray = Gray { width: 1000, height: 200, data: vec![200; 1000 * 200] };
        let mut attempt = attempt_with_glare(&[], 0.99);
        for (line, column, options) in changed {
            attempt.candidates[*line][*column].options = options.clone();
        }
        for &(line, column) in covered {
            attempt.covered[line][column] = true;
        }
        attempt.reading = crate::decode::decode_cells(&attempt.candidates).expect("a TD3");
        conclude(Some(attempt), &LocateReport::default(), &gray, 1.0, &ParseOptions::default())
    }

    /// The same with one cell, `(line, column)`, holding `first` at `p` and `second` at
    /// the rest.
    fn read_with_cell(
        line: usize,
        column: usize,
        first: char,
        second: char,
        p: f32,
    ) -> ImageReading {
        read_with_cells(&[(line, column, vec![(first, p), (second, 1.0 - p)])])
    }

    #[test]
    fn a_number_with_a_filler_inside_is_not_read_however_sure_its_cells() {
        // L898902C3 read L<X8902C3: the 8 (weight 3) as a filler, -24, and the 9 (weight 1)
        // as X, +24. Document number and composite check digits agree, every cell at 0.99.
        let read = read_with_cells(&[
            (1, 1, vec![('<', 0.99), ('8', 0.01)]),
            (1, 2, vec![('X', 0.99), ('9', 0.01)]),
        ]);
        let reading = read.reading.as_ref().expect("a reading");
        assert!(reading.valid);
        assert_eq!(reading.fields.document_number, "L<X8902C3");
        assert_eq!(read.status, Status::Partial);
        assert!(read.diagnostics.iter().any(|d| d.message.contains("filler (<) inside it")));
    }

    #[test]
    fn a_covered_cell_is_not_vouched_for_however_sure_the_classifier() {
        // L898902C3 read LA989O2C3 where a page edge cut line 2: the cut 8 an A at 0.76
        // (weight 3: +6), the 0 beside the edge an O at 0.9999 (weight 1: +24), 30 in all,
        // so the document number and composite check digits agree.
        let cut =
            [(1, 1, vec![('A', 0.76), ('8', 0.24)]), (1, 5, vec![('O', 0.9999), ('0', 0.0001)])];
        let uncovered = read_with_cells(&cut);
        let reading = uncovered.reading.as_ref().expect("a reading");
        assert!(reading.valid);
        assert_eq!(reading.fields.document_number, "LA989O2C3");
        // One doubtful cell under the check digits: they vouch for it.
        assert_eq!(uncovered.status, Status::Read);
        // The O's cell covered below: two doubtful cells under the same check digits.
        let covered = read_with_covered_cells(&cut, &[(1, 5)]);
        assert_eq!(covered.status, Status::Partial);
        assert!(covered.diagnostics.iter().any(|d| d.code == DiagnosticCode::LowConfidence));
        let said: Vec<&str> = covered
            .diagnostics
            .iter()
            .filter(|d| d.code == DiagnosticCode::PartlyCovered)
            .map(|d| d.message.as_str())
            .collect();
        assert!(
            matches!(said[..], [m] if m.contains("line 2 of the MRZ next to character 6 ")),
            "{said:?}"
        );
        assert!(!uncovered.diagnostics.iter().any(|d| d.code == DiagnosticCode::PartlyCovered));
    }

    #[test]
    fn runs_of_flags_are_found_with_their_ends() {
        assert_eq!(runs_of(&[false, true, true, false, true]), vec![(1, 2), (4, 4)]);
        assert_eq!(runs_of(&[true]), vec![(0, 0)]);
        assert!(runs_of(&[false, false]).is_empty());
    }

    #[test]
    fn a_letter_after_the_fillers_that_end_the_names_is_not_read_however_sure() {
        // The last filler of line 1, at the page's edge, read H at 0.99.
        let read = read_with_cell(0, 43, 'H', '<', 0.99);
        let reading = read.reading.as_ref().expect("a reading");
        assert!(reading.valid);
        assert!(reading.lines[0].ends_with("<<H"), "{}", reading.lines[0]);
        assert!(reading.warnings.iter().any(|w| w.code == mrtd_mrz::WarningCode::UnusualName));
        assert_eq!(read.status, Status::Partial);
        assert!(read.diagnostics.iter().any(|d| d.message.contains("verify the names")));
    }

    #[test]
    fn a_filler_that_may_be_a_k_is_not_settled_by_its_check_digits() {
        // A filler of the optional data seen as a K: K is 20, `<` is 0, and both check
        // digits over the cell pass either way.
        let read = |p: f32| read_with_cell(1, 38, 'K', '<', p);
        let doubtful = read(0.8);
        let published = doubtful.reading.as_ref().expect("a reading");
        assert_eq!(&published.lines[1][36..40], "B<K<");
        assert!(published.valid);
        assert_eq!(doubtful.status, Status::Partial);
        assert_eq!(
            read(0.99).status,
            Status::Read,
            "no doubt the check digits would have to settle"
        );
    }

    #[test]
    fn a_name_letter_the_name_model_doubts_is_not_certain() {
        // ERIKSSON's I seen as a J, as at the edge of a shadow: RJK is all but unknown
        // in names, RIK common.
        let read = |p: f32| read_with_cell(0, 7, 'J', 'I', p);
        let doubted = read(0.9);
        let published = doubted.reading.as_ref().expect("a reading");
        assert_eq!(
            &published.lines[0][5..13],
            "ERJKSSON",
            "the model changes no letter read at 0.9"
        );
        assert_eq!(
            doubted.status,
            Status::Partial,
            "0.9 by the classifier, under 0.7 once weighed"
        );
        assert_eq!(read(0.995).status, Status::Read);
    }

    #[test]
    fn an_issuer_that_is_no_known_code_needs_its_letters_near_certain() {
        // UTO's T seen as an I or a Z, as under a printed background pattern: no
        // known code is among the candidates.
        let read = |p: f32| read_with_cell(0, 3, 'I', 'Z', p);
        let doubtful = read(0.955);
        let published = doubtful.reading.as_ref().expect("a reading");
        assert_eq!(published.lines[0], LINES[0].replacen("UTO", "UIO", 1));
        assert!(published.valid, "no check digit covers the issuer");
        assert!(published.warnings.iter().any(|w| w.code == mrtd_mrz::WarningCode::UnknownCode));
        assert_eq!(doubtful.status, Status::Partial);
        // Printed so (real documents carry codes the list lacks) and read without doubt.
        assert_eq!(read(0.9995).status, Status::Read);
    }
}
