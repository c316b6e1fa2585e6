//! Glyphs run together: blur along a line runs its glyphs into one blob per word or line,
//! too long for a glyph, and the line's row falls apart. Where a look's rows make no zone,
//! such runs are cut into glyph-wide pieces that stand for the glyphs they hold.

use super::{TextRow, find_rows};
use crate::components::Component;
use std::collections::HashSet;

/// Whether `blob`, longer than a glyph, may be glyphs run together: long and thin, and
/// between a run's lowest height and a glyph's largest extent `max_size` high.
pub(super) fn is_run(blob: &Component, max_size: f32) -> bool {
    long_axis(blob).is_some_and(|(_, high)| (MIN_RUN_HEIGHT..=max_size).contains(&high))
}

/// The lowest a run of glyphs may be (working-image pixels): thinner runs are lines and
/// rules, and glyphs this small are not run together by blur of a line spacing's quarter.
const MIN_RUN_HEIGHT: f32 = 6.0;

/// A blob's long axis (a unit vector) and its extent across that axis.
fn long_axis(blob: &Component) -> Option<((f32, f32), f32)> {
    let angle = 0.5 * (2.0 * blob.vxy).atan2(blob.vxx - blob.vyy);
    let dir = (angle.cos(), angle.sin());
    let across = blob.extent(-dir.1, dir.0);
    (blob.extent(dir.0, dir.1) >= RUN_ASPECT * across).then_some((dir, across))
}

/// How many times longer than high a blob must be to be cut into glyph-wide pieces.
const RUN_ASPECT: f32 = 1.8;

/// A run cut along its long axis into as many pieces as its length holds heights (an MRZ's
/// pitch is about its glyphs' height), each standing for a glyph of the row.
fn pieces(run: &Component) -> Vec<Component> {
    let Some((dir, high)) = long_axis(run) else { return Vec::new() };
    let long = run.extent(dir.0, dir.1);
    let n = (long / high).round().max(1.0);
    let step = long / n;
    // Variances that give a piece `step` long and `high` high through `extent`.
    let (along, across) = ((step - 1.0).powi(2) / 12.0, (high - 1.0).powi(2) / 12.0);
    let normal = (-dir.1, dir.0);
    (0..n as usize)
        .map(|k| {
            let u = -long / 2.0 + (k as f32 + 0.5) * step;
            Component {
                cx: run.cx + u * dir.0,
                cy: run.cy + u * dir.1,
                vxx: along * dir.0 * dir.0 + across * normal.0 * normal.0,
                vyy: along * dir.1 * dir.1 + across * normal.1 * normal.1,
                vxy: along * dir.0 * dir.1 + across * normal.0 * normal.1,
                area: (run.area as f32 / n).round() as u32,
            }
        })
        .collect()
}

/// The rows found among `glyphs` and `runs`' pieces that are rows of glyphs. A row of
/// pieces alone is a bar (a rule, a stroke, a streak of the background), not glyphs: a
/// blurred line keeps some glyphs apart, at least a quarter of its members in the photos
/// probed (the least, 10 of 31).
pub(super) fn rows_with_pieces(mut glyphs: Vec<Component>, runs: &[Component]) -> Vec<TextRow> {
    let cut: Vec<Component> = runs.iter().flat_map(pieces).collect();
    let is_piece: HashSet<(u32, u32)> =
        cut.iter().map(|piece| (piece.cx.to_bits(), piece.cy.to_bits())).collect();
    glyphs.extend(cut);
    find_rows(&glyphs)
        .into_iter()
        .filter(|row| {
            let pieces = row
                .members
                .iter()
                .filter(|((x, y), _)| is_piece.contains(&(x.to_bits(), y.to_bits())))
                .count();
            4 * pieces <= 3 * row.members.len()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::components::Darkness;
    use crate::gray::Gray;
    use crate::locate::{find_rows, glyph_blobs, locate, mrz_candidates};

    /// A white working image 800 by 300 with the given dark boxes (left, top, width, height).
    fn page(boxes: &[(usize, usize, usize, usize)]) -> Gray {
        let (width, height) = (800, 300);
        let mut data = vec![235u8; width * height];
        for &(left, top, w, h) in boxes {
            for y in top..top + h {
                data[y * width + left..y * width + left + w].fill(30);
            }
        }
        Gray { width, height, data }
    }

    #[test]
    fn glyphs_run_together_are_cut_into_pieces_and_bars_are_no_rows() {
        // Two lines of 44 glyphs 8 px wide and 14 high at a 12 px pitch, 24 px apart; in
        // each, glyphs 4 to 17 and 22 to 37 run together as blur along the line runs them.
        let mut boxes = Vec::new();
        for top in [100, 124] {
            boxes.extend((0..44).map(|k| (40 + 12 * k, top, 8, 14)));
            boxes
                .extend([(4, 17), (22, 37)].map(|(a, b)| (40 + 12 * a, top, 12 * (b - a) + 8, 14)));
        }
        let (candidates, _) = locate(&page(&boxes), Darkness::NORMAL);
        let zone = candidates.first().expect("the zone, from its glyphs and the runs' pieces");
        assert_eq!(zone.rows.len(), 2);
        assert!(zone.rows.iter().all(|row| row.length() > 500.0), "{:?}", zone.rows);
        // Without their runs' pieces, the glyphs left apart make no row.
        let (glyphs, runs) = glyph_blobs(&page(&boxes), Darkness::NORMAL);
        assert_eq!(runs.len(), 4);
        assert!(mrz_candidates(&find_rows(&glyphs)).is_empty());
        // Two bars of glyph height, as long as the lines, cut the same way: no zone.
        let bars = [(40, 100, 44 * 12, 14), (40, 124, 44 * 12, 14)];
        assert!(locate(&page(&bars), Darkness::NORMAL).0.is_empty());
    }
}
