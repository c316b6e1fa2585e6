//! What the check digits prove of cells a recogniser saw.
//!
//! A recogniser hands the MRZ core its candidates for each cell and what the photo showed
//! (how sure its alternatives must be to count, whether the zone is cut, whether glare hides
//! where a line ends); the core alone says whether a reading is valid, which check-digit
//! corrections stand and what the audit trail holds:
//! - [`decode_proven`] keeps a check-digit correction only where the cells' own odds carry it;
//! - [`Reading::prove`] finds misreads that cancel under the check digits and withdraws
//!   `valid` for them and for what the photo did not show;
//! - [`Reading::note_choices`] records the symbols the recogniser chose over its classifier's
//!   first guess.
//!
//! Check digits weigh symbols 7, 3, 1, so doubtful cells whose other plausible readings change
//! a check digit's sum by amounts adding up to a multiple of 10 satisfy it as well as the
//! reading does, and it proves neither. One cell does so alone when a plausible other reading
//! has the same value modulo 10 (`U` and `0`, `K` and `<`, `L` and `1`). A cell the
//! classifier is lost on (its likeliest symbol under even odds) may hold anything it may hold.

use crate::check_digit::{char_value, weight as check_digit_weight};
use crate::{
    CellCandidates, Check, CheckName, CheckStatus, Correction, NotMrz, ParseOptions, Reading, Why,
    decode_cells,
};

/// Below this probability for its likeliest symbol, the classifier is lost on a cell: any
/// symbol the cell may hold is a plausible other reading of it, offered or not.
const LOST: f32 = 0.5;

/// Every symbol a cell may hold.
const SYMBOLS: &str = "<0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/// What a recogniser saw of a zone, besides the symbols it read.
#[derive(Debug, Clone, Copy)]
pub struct Seen<'a> {
    /// The candidates offered for each cell (lines and cells from 0): the classifier's, with
    /// the look-alikes nothing seen rules out.
    pub offered: &'a [Vec<CellCandidates>],
    /// For each cell, from what probability another candidate is a plausible reading of it.
    pub plausible: &'a [Vec<f32>],
    /// The photo's edge cuts the zone: the characters beyond it were not seen.
    pub cut: bool,
    /// Glare hides where a line ends: it may go on under the glare.
    pub end_hidden: bool,
}

/// Doubtful cells whose plausible other readings satisfy the check digits as well as the
/// reading does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cancelling {
    /// The label of a check digit over them ("document number").
    pub check: &'static str,
    /// The cells, as (line, column) from 1.
    pub cells: Vec<(usize, usize)>,
}

/// What the check digits prove of a reading seen in a photo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proof {
    /// Misreads the check digits cannot see, when there are some.
    pub cancelling: Option<Cancelling>,
    /// Whether the check digits prove the cells that were read, cut and glare aside: every
    /// one holds and no misread cancels under them.
    pub cells_proven: bool,
}

impl Reading {
    /// Weighs the check digits against what was `seen` and sets `valid` to what they prove:
    /// not valid where misreads cancel under them, where the zone is cut (the characters
    /// beyond the edge were not seen, whatever the check digits say of the cells read) or
    /// where glare hides a line's end (two lines of 36 may be the first 36 of a visa's 44,
    /// every check digit holding on the cells seen).
    pub fn prove(&mut self, seen: &Seen<'_>) -> Proof {
        let plausible = |line: usize, pos: usize| {
            seen.plausible.get(line).and_then(|row| row.get(pos)).copied().unwrap_or(0.0)
        };
        let offered = |line: usize, pos: usize| {
            seen.offered
                .get(line)
                .and_then(|row| row.get(pos))
                .map_or_else(Vec::new, |cell| cell.options.clone())
        };
        let cancelling = cancelling_misreads(self, plausible, offered);
        let cells_proven = self.valid && cancelling.is_none();
        self.valid = cells_proven && !seen.cut && !seen.end_hidden;
        Proof { cancelling, cells_proven }
    }

    /// Records in the audit trail each `choice` the reading holds: a cell read as the
    /// recogniser chose where its classifier ranked another symbol first. A cell that already
    /// has a correction keeps that one.
    pub fn note_choices(&mut self, choices: impl IntoIterator<Item = Choice>) {
        for choice in choices {
            let held = self.lines.get(choice.line).and_then(|text| text.chars().nth(choice.column));
            let place = (choice.line + 1, choice.column + 1);
            let noted = self.corrections.iter().any(|c| (c.line, c.column) == place);
            if held == Some(choice.to) && !noted {
                self.corrections.push(Correction {
                    line: place.0,
                    column: place.1,
                    from: choice.from,
                    to: choice.to,
                    why: choice.why,
                    proof: Vec::new(),
                });
            }
        }
        self.corrections.sort_by_key(|c| (c.line, c.column));
    }
}

/// A symbol a recogniser chose for a cell over the one its classifier ranked first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    /// The cell's line, from 0.
    pub line: usize,
    /// The cell's column, from 0.
    pub column: usize,
    /// What the classifier ranked first.
    pub from: char,
    /// What the recogniser chose.
    pub to: char,
    /// What chose it: the letters usual in names, or the document's own glyphs.
    pub why: Why,
}

/// A reading of recognised cells whose check-digit corrections the cells' odds carry.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// The reading.
    pub reading: Reading,
    /// The cells (line, column from 1) the check digits would have corrected but whose odds
    /// could not carry the correction: the reading leaves every cell as read instead.
    pub unproven: Vec<(usize, usize)>,
}

/// Reads `weighed` cells as [`decode_cells`] does, keeping its check-digit corrections only
/// where they are proven; otherwise the cells are read as seen, with the check digits that
/// fail them.
///
/// A check digit agrees with a random reading one time in ten, and the decoder searched many
/// readings for one that agrees, so k agreeing check digits are worth a likelihood ratio of at
/// most 10^k. A correction is proven only when the probability of the corrected cells (every
/// cell the proving checks cover, digits included; the lower of the `classified` and the
/// `weighed` odds) is above 10^-k. Nor is it proven when another cell counted under exactly the
/// corrected cell's check digits has another symbol the `classified` candidates offer from
/// probability `plausible`: that cell could be the misread instead.
pub fn decode_proven(
    weighed: &[Vec<CellCandidates>],
    classified: &[Vec<CellCandidates>],
    plausible: f32,
    options: &ParseOptions,
) -> Result<Decoded, NotMrz> {
    let reading = decode_cells(weighed, options)?;
    let probability = |line: usize, column: usize, symbol: char| {
        let odds = |cells: &[Vec<CellCandidates>]| {
            cells.get(line).and_then(|row| row.get(column)).map_or(0.0, |c| c.probability(symbol))
        };
        odds(classified).min(odds(weighed))
    };
    let unproven = unproven_corrections(&reading, probability, classified, plausible);
    if unproven.is_empty() {
        return Ok(Decoded { reading, unproven });
    }
    let uncorrected = ParseOptions { correct: false, ..options.clone() };
    Ok(Decoded { reading: decode_cells(weighed, &uncorrected)?, unproven })
}

/// The check-digit corrections the check digits cannot prove, as (line, column) from 1 (see
/// [`decode_proven`]).
fn unproven_corrections(
    reading: &Reading,
    probability: impl Fn(usize, usize, char) -> f32,
    classified: &[Vec<CellCandidates>],
    plausible: f32,
) -> Vec<(usize, usize)> {
    let mut unproven = Vec::new();
    // The check digits a cell (from 0) counts under, its own digit cells included.
    let under = |line: usize, column: usize| -> Vec<&Check> {
        let place = (line + 1, column + 1);
        let covers = |range: &crate::CellRange| {
            range.line == place.0 && (range.from..=range.to).contains(&place.1)
        };
        let digit = |check: &Check| check.line.zip(check.column) == Some(place);
        reading
            .checks
            .iter()
            .filter(|check| digit(check) || check.covers.iter().any(covers))
            .collect()
    };
    for correction in reading.corrections.iter().filter(|c| c.why == Why::CheckDigit) {
        let corrected = (correction.line - 1, correction.column - 1);
        // The check digits spent on this correction vouch for nothing else: a cell they alone
        // cover, read with another plausible symbol, could be the misread instead, with this
        // cell read right (a `0` read `O` beside the `0` the correction made an `O`).
        let spent = under(corrected.0, corrected.1);
        let rival = reading.lines.iter().enumerate().any(|(line, text)| {
            text.chars().enumerate().any(|(column, symbol)| {
                let checks = under(line, column);
                let digits_only = checks.iter().any(|check| {
                    check.line.zip(check.column) == Some((line + 1, column + 1))
                        || matches!(check.name, CheckName::BirthDate | CheckName::ExpiryDate)
                });
                let cell = classified.get(line).and_then(|row| row.get(column));
                (line, column) != corrected
                    && checks == spent
                    && cell.is_some_and(|cell| doubtful(cell, symbol, digits_only, plausible))
            })
        });
        if rival {
            unproven.push((correction.line, correction.column));
            continue;
        }
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
            !reading
                .corrections
                .iter()
                .any(|c| c.why != Why::CheckDigit && (c.line, c.column) == (line + 1, column + 1))
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

/// Whether the classifier offered a symbol other than `published` for a cell from
/// probability `plausible`. In a cell only digits may fill (a date, a check digit) only
/// digits count: the layout reads a letter there as its look-alike digit.
fn doubtful(cell: &CellCandidates, published: char, digits_only: bool, plausible: f32) -> bool {
    cell.options.iter().any(|&(symbol, p)| {
        symbol != published && p >= plausible && (!digits_only || symbol.is_ascii_digit())
    })
}

/// One, two or three doubtful cells (1-based line and column) whose plausible other readings
/// would satisfy every check digit as well as the reading does, with the label of a check
/// digit covering them; `None` when the check digits prove every such cell. `options(line,
/// pos)` gives the classifier's candidates of a cell (0-based), and another reading counts
/// from probability `plausible(line, pos)`.
fn cancelling_misreads(
    reading: &Reading,
    plausible: impl Fn(usize, usize) -> f32,
    options: impl Fn(usize, usize) -> Vec<(char, f32)>,
) -> Option<Cancelling> {
    let verified: Vec<&Check> =
        reading.checks.iter().filter(|c| c.status == CheckStatus::Verified).collect();
    // The weight of a cell under each verified check digit (0 where it does not count);
    // the digit itself counts with weight -1, that is 9 mod 10.
    let weight = |place: (usize, usize), check: &Check| -> u32 {
        if check.line.zip(check.column) == Some(place) {
            return 9;
        }
        check
            .covers
            .iter()
            .flat_map(|range| (range.from..=range.to).map(move |column| (range.line, column)))
            .position(|covered| covered == place)
            .map_or(0, check_digit_weight)
    };
    let found =
        |check: &Check, cells: Vec<(usize, usize)>| Cancelling { check: check.name.label(), cells };
    let allowed = reading.symbol_allowed();
    // Each doubtful covered cell with the value changes its plausible other readings make.
    let mut doubtful: Vec<((usize, usize), Vec<u32>)> = Vec::new();
    for (line, text) in reading.lines.iter().enumerate() {
        for (pos, read) in text.chars().enumerate() {
            let place = (line + 1, pos + 1);
            if !verified.iter().any(|check| weight(place, check) != 0) {
                continue;
            }
            let Some(read_value) = char_value(read) else { continue };
            let offered = options(line, pos);
            // A cell the classifier is lost on may hold any symbol it may hold, offered or
            // not (a `9` blurred past recognition, offered as O, D, V and R).
            let top = offered.iter().map(|(_, p)| *p).fold(0.0, f32::max);
            let lost = top < LOST;
            // A cell a correction changed holds its symbol on the check digits' word, and they
            // prove its value modulo 10 only: among the symbols of that value the classifier's
            // odds alone chose (an `E` under a pen stroke corrected to `F` at 0.05, a `5` at
            // 0.0007 worth the same), so another counts as plausible against the chosen one.
            let read_p = offered.iter().find(|(symbol, _)| *symbol == read).map_or(0.0, |o| o.1);
            let threshold = plausible(line, pos) * if read_p < top { read_p } else { 1.0 };
            let others: Vec<char> = if lost {
                SYMBOLS.chars().collect()
            } else {
                offered.iter().filter(|(_, p)| *p >= threshold).map(|(symbol, _)| *symbol).collect()
            };
            let mut changes: Vec<u32> = others
                .into_iter()
                .filter(|symbol| *symbol != read && allowed(line, pos, *symbol))
                .filter_map(char_value)
                .map(|value| (value + 40 - read_value % 10) % 10)
                .collect();
            // A reading of the same value modulo 10 satisfies every check digit alone.
            if changes.contains(&0) {
                let covering = verified.iter().find(|check| weight(place, check) != 0);
                return covering.map(|check| found(check, vec![place]));
            }
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
    let covering = |cells: &[((usize, usize), u32)]| {
        let places = cells.iter().map(|(place, _)| *place).collect();
        verified
            .iter()
            .find(|check| cells.iter().filter(|(place, _)| weight(*place, check) != 0).count() > 1)
            .map(|check| found(check, places))
    };
    let n = doubtful.len();
    for i in 0..n {
        for j in i + 1..n {
            for a in &doubtful[i].1 {
                for b in &doubtful[j].1 {
                    let pair = [(doubtful[i].0, *a), (doubtful[j].0, *b)];
                    if fits(&pair) {
                        return covering(&pair);
                    }
                    for (third, changes) in &doubtful[j + 1..] {
                        for c in changes {
                            let triple = [pair[0], pair[1], (*third, *c)];
                            if fits(&triple) {
                                return covering(&triple);
                            }
                        }
                    }
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests;
