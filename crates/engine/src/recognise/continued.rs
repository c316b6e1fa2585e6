//! Lines that go on past 36 cells: a visa's two lines of 44 whose last eight cells the row
//! finder missed.

use super::{Classified, Reader, classify};
use crate::attempt::{Attempt, decode, mean_log_confidence};
use crate::cells::CellGeometry;
use crate::gray::Gray;
use crate::model::Classifier;

/// Where each cell past a line's end is looked for, in shares of a character's height
/// across the line from where the cell before it puts it: straight on, or, since a page
/// that bends or a lens that curves it takes the line off the straight path the cells
/// before fitted, a little to either side.
const STRAIGHT_ON: [f32; 1] = [0.0];
const FOLLOW_ACROSS: [f32; 3] = [0.0, -0.15, 0.15];

/// The `n` cells that continue a line past `last`, each one pitch on from the one before,
/// at whichever of the `offsets` across the line the classifier is surest of a character
/// (the first on a tie), with what it read there; `None` when the line leaves the image.
fn follow_line(
    model: &Classifier,
    image: &Gray,
    last: CellGeometry,
    n: usize,
    offsets: &[f32],
) -> Option<(Vec<CellGeometry>, Classified)> {
    let inside = |c: &CellGeometry| {
        let (x, y) = c.centre;
        x >= 0.0 && y >= 0.0 && x < image.width as f32 && y < image.height as f32
    };
    let mut cells = Vec::with_capacity(n);
    let mut read = Classified { candidates: Vec::new(), contrast: Vec::new(), covered: Vec::new() };
    let mut previous = last;
    for _ in 0..n {
        let placed: Vec<CellGeometry> = offsets
            .iter()
            .map(|&a| {
                let centre = (
                    previous.centre.0 + previous.along.0 + previous.across.0 * a,
                    previous.centre.1 + previous.along.1 + previous.across.1 * a,
                );
                CellGeometry { centre, ..previous }
            })
            .collect();
        if !placed.iter().all(inside) {
            return None;
        }
        let tried = classify(model, image, &placed);
        let top = |k: usize| tried.candidates[k].options.first().map_or(0.0, |o| o.1);
        let surest = (1..placed.len()).fold(0, |best, k| if top(k) > top(best) { k } else { best });
        previous = placed[surest];
        cells.push(previous);
        read.candidates.push(tried.candidates[surest].clone());
        read.contrast.push(tried.contrast[surest]);
        read.covered.push(tried.covered[surest]);
    }
    Some((cells, read))
}

/// A cell past a line's end holds a glyph of the line when its contrast is at least this
/// share of the median of the line's own cells; paper beyond a zone has little.
const INKED_SHARE: f32 = 0.5;

impl Reader<'_> {
    /// A visa's two lines of 44 whose last eight cells went unseen read as a valid
    /// 36-character visa: the same text, the wrong format, and as valid, since a visa has
    /// no composite check digit. When the cells past the end of a 36-character reading hold
    /// characters on both lines (fillers, or glyphs inked like the line's own), the lines
    /// go on, and they are read as 44 cells instead.
    pub(super) fn continued_to_44(&self, attempt: &Attempt) -> Option<Attempt> {
        let (short, long) = match mrtd_mrz::line_widths(2)[..] {
            [short, long] => (short, long),
            _ => return None,
        };
        let extra_cells = long - short;
        if attempt.cells.len() != 2 || attempt.cells.iter().any(|line| line.len() != short) {
            return None;
        }
        // Straight on first; where that does not read as the rest of the lines, the page may
        // bend them off the path the first 36 cells fitted.
        [&STRAIGHT_ON[..], &FOLLOW_ACROSS[..]]
            .into_iter()
            .find_map(|offsets| self.continued_along(attempt, extra_cells, offsets))
    }

    /// [`Reader::continued_to_44`] with the cells past the end followed by [`follow_line`]
    /// at `offsets`.
    fn continued_along(
        &self,
        attempt: &Attempt,
        extra_cells: usize,
        offsets: &[f32],
    ) -> Option<Attempt> {
        let Reader { model, original, options, .. } = *self;
        let mut candidates = attempt.candidates.clone();
        let mut cells = attempt.cells.clone();
        let mut contrast = attempt.contrast.clone();
        let mut covered = attempt.covered.clone();
        for line in 0..2 {
            let last = *attempt.cells[line].last()?;
            let (extra, extra_read) = follow_line(model, original, last, extra_cells, offsets)?;
            let mut own = attempt.contrast[line].clone();
            own.sort_by(f32::total_cmp);
            let inked = own.get(own.len() / 2).map_or(f32::INFINITY, |median| median * INKED_SHARE);
            let characters = extra_read
                .candidates
                .iter()
                .zip(&extra_read.contrast)
                .filter(|&(c, &contrast)| {
                    let (top, p) = c.options[0];
                    p >= 0.5 && (top == '<' || contrast >= inked)
                })
                .count();
            if characters < extra_cells - 1 {
                return None;
            }
            candidates[line].extend(extra_read.candidates);
            cells[line].extend(extra);
            contrast[line].extend(extra_read.contrast);
            covered[line].extend(extra_read.covered);
        }
        let (reading, least_unchecked, least) = decode(&candidates, options)?;
        if !reading.valid {
            return None;
        }
        let score = mean_log_confidence(&candidates);
        Some(Attempt {
            reading,
            least_unchecked,
            least,
            candidates,
            cells,
            contrast,
            covered,
            score,
            ..attempt.clone()
        })
    }
}
