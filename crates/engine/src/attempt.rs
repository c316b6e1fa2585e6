//! One way of reading a candidate, and how the ways are ranked: every attempt is decoded by
//! the MRZ core (`mrtd-mrz`), and ranked by its check digits, the layout rules it breaks and
//! the classifier's confidence.

use mrtd_mrz::{CellCandidates, CheckStatus, ParseOptions, Reading};

use crate::cells::CellGeometry;

/// One way of reading a candidate: direction and characters per line.
#[derive(Clone, Debug)]
pub(crate) struct Attempt {
    /// The MRZ core's reading of the candidates.
    pub(crate) reading: Reading,
    /// The least probability the classifier gave a symbol of the reading: of those no
    /// check digit covers, and of all.
    pub(crate) least_unchecked: f32,
    pub(crate) least: f32,
    /// The classifier's top candidates per cell, line by line.
    pub(crate) candidates: Vec<Vec<CellCandidates>>,
    /// Cell geometry in original image pixels, line by line.
    pub(crate) cells: Vec<Vec<CellGeometry>>,
    /// Raw contrast (standard deviation of gray levels) per cell.
    pub(crate) contrast: Vec<Vec<f32>>,
    /// Per cell, whether something other than paper covers the band above or
    /// below its glyph (`cells::Sampled::covered`).
    pub(crate) covered: Vec<Vec<bool>>,
    /// Lines drawn over the page that were painted out before this reading (original
    /// pixels, [`crate::strokes`]); the cells they cross were read from the rest of their
    /// glyphs.
    pub(crate) strokes: Vec<crate::strokes::Stroke>,
    /// Mean log probability of the kept symbols.
    pub(crate) score: f32,
    /// Rotation of the document relative to upright, degrees clockwise in [0, 360).
    pub(crate) rotation_degrees: f32,
}

/// The MRZ core's reading of the cells, with the least probability the classifier gave a
/// symbol of it: of those no check digit covers, and of all.
pub(crate) fn decode(
    lines: &[Vec<CellCandidates>],
    options: &ParseOptions,
) -> Option<(Reading, f32, f32)> {
    let reading = mrtd_mrz::decode_cells(lines, options).ok()?;
    let covered = reading.covered_cells();
    let (mut least_unchecked, mut least) = (1.0f32, 1.0f32);
    for (line, text) in reading.lines.iter().enumerate() {
        for (column, symbol) in text.chars().enumerate() {
            let p = lines[line][column].probability(symbol);
            least = least.min(p);
            if !covered[line][column] {
                least_unchecked = least_unchecked.min(p);
            }
        }
    }
    Some((reading, least_unchecked, least))
}

/// What each rule of the layout a reading breaks costs it in [`rank`]: a fifth of a zone's
/// check digits when it has five; more than the classifier's confidence usually separates
/// two readings of one zone. A TD1 card turned and blurred read as `SD<Q<…` (no document code,
/// no issuer) ranked above its true reading when nothing but check digits and confidence
/// counted: both readings fitted their check digits.
const RULE_BREAK_COST: f32 = 0.5;

/// Orders attempts: the share of printed check digits that hold, less what the rules of the
/// layout the reading breaks cost, then classifier confidence.
pub(crate) fn rank(attempt: &Attempt) -> f32 {
    let printed = attempt.reading.checks.iter().filter(|c| c.status != CheckStatus::Absent);
    let n_checks = printed.clone().count().max(1) as f32;
    let n_valid = printed.filter(|c| c.status == CheckStatus::Verified).count() as f32;
    let breaks = attempt.reading.rule_breaks() as f32;
    n_valid / n_checks * 4.0 - breaks * RULE_BREAK_COST + attempt.score
}

/// Mean log probability of the classifier's top symbol over every cell.
pub(crate) fn mean_log_confidence(lines: &[Vec<CellCandidates>]) -> f32 {
    let n_cells = lines.iter().map(Vec::len).sum::<usize>() as f32;
    lines.iter().flatten().map(|c| c.options[0].1.max(1e-6).ln()).sum::<f32>() / n_cells
}
