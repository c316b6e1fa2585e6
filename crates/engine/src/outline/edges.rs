//! Moves each side of the predicted page onto the page's own edge where the photo shows one:
//! a bounded search, around the predicted side, for the straight line across which the
//! gray level steps most strongly and most consistently.
//!
//! A printed page is laid out to a tolerance of a millimetre or two and a card's corners are
//! cut to their own, so the prediction from the zone is close; a strong straight edge near it
//! is the page's. Text inside the page steps both ways along a line, and so scores low.

use crate::gray::Gray;

/// How far each side is searched from where it was predicted, as a share of the page's
/// shorter side (the page's height): the layout's tolerances and the zone's measured pitch
/// put the true edge within a few percent.
const SEARCH_SHARE: f32 = 0.07;

/// How far each side may turn from its prediction, in degrees.
const MAX_TURN_DEGREES: f32 = 2.0;

/// Most offsets tried either side of a predicted side (a large photo is searched in steps
/// of more than a pixel).
const MAX_OFFSETS: usize = 40;

/// Points sampled along a side.
const N_SAMPLES: usize = 48;

/// The least mean step across the side, in gray levels, for an edge to count.
const MIN_STEP: f32 = 12.0;

/// The least share of the samples that must step the same way as the mean.
const MIN_CONSISTENCY: f32 = 0.75;

/// One side as a line: a point on it and its unit direction.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Line {
    point: (f32, f32),
    direction: (f32, f32),
}

impl Line {
    /// Where two lines meet; `None` for parallel ones.
    fn meet(&self, other: &Line) -> Option<(f32, f32)> {
        let (d1, d2) = (self.direction, other.direction);
        let cross = d1.0 * d2.1 - d1.1 * d2.0;
        if cross.abs() < 1e-6 {
            return None;
        }
        let (dx, dy) = (other.point.0 - self.point.0, other.point.1 - self.point.1);
        let t = (dx * d2.1 - dy * d2.0) / cross;
        Some((self.point.0 + t * d1.0, self.point.1 + t * d1.1))
    }
}

/// How strongly and consistently the gray level steps across the segment from `from` to
/// `to` (`normal` pointing out of the page): the mean step if it clears the thresholds, else
/// `None`. Only the middle 80 % of the segment is sampled, away from rounded corners.
fn edge_strength(
    gray: &Gray,
    from: (f32, f32),
    to: (f32, f32),
    normal: (f32, f32),
    reach: f32,
) -> Option<f32> {
    let (width, height) = (gray.width as f32, gray.height as f32);
    let inside = |(x, y): (f32, f32)| x >= 0.0 && y >= 0.0 && x < width && y < height;
    let mut steps = Vec::with_capacity(N_SAMPLES);
    for idx in 0..N_SAMPLES {
        let t = 0.1 + 0.8 * (idx as f32 + 0.5) / N_SAMPLES as f32;
        let at = (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t);
        let outer = (at.0 + normal.0 * reach, at.1 + normal.1 * reach);
        let inner = (at.0 - normal.0 * reach, at.1 - normal.1 * reach);
        if inside(outer) && inside(inner) {
            steps.push(gray.bilinear(inner.0, inner.1) - gray.bilinear(outer.0, outer.1));
        }
    }
    // An edge mostly outside the photo is not judged.
    if steps.len() * 4 < N_SAMPLES * 3 {
        return None;
    }
    let mean = steps.iter().sum::<f32>() / steps.len() as f32;
    let agreeing = steps.iter().filter(|&&step| step * mean > 0.0).count() as f32;
    (mean.abs() >= MIN_STEP && agreeing / steps.len() as f32 >= MIN_CONSISTENCY)
        .then_some(mean.abs())
}

/// The page's corners moved onto its edges where they show (top-left, top-right,
/// bottom-right, bottom-left), and how many of the four sides were found. `inward_limit`
/// bounds, per side (top, right, bottom, left), how far inside the predicted page a side may
/// be looked for, in pixels: the bottom side must not reach the MRZ's lines.
pub(crate) fn refine(
    gray: &Gray,
    corners: [(f32, f32); 4],
    inward_limit: [f32; 4],
) -> ([(f32, f32); 4], usize) {
    let side_length = |a: (f32, f32), b: (f32, f32)| (b.0 - a.0).hypot(b.1 - a.1);
    let short_side = side_length(corners[1], corners[2]).min(side_length(corners[0], corners[1]));
    let search = SEARCH_SHARE * short_side;
    // The step is measured between points this far either side of the edge.
    let reach = (0.006 * short_side).max(1.5);
    // Sides in order top, right, bottom, left: from corner idx to idx + 1.
    let mut lines = [Line { point: (0.0, 0.0), direction: (1.0, 0.0) }; 4];
    let mut n_found = 0;
    for side in 0..4 {
        let (from, to) = (corners[side], corners[(side + 1) % 4]);
        let length = side_length(from, to).max(1.0);
        let direction = ((to.0 - from.0) / length, (to.1 - from.1) / length);
        // Corners go clockwise on the photo (y down), so the outward normal is the
        // direction turned a quarter counter-clockwise.
        let outward = (direction.1, -direction.0);
        let middle = ((from.0 + to.0) / 2.0, (from.1 + to.1) / 2.0);
        lines[side] = Line { point: middle, direction };
        let n_offsets = (search.ceil() as usize).clamp(1, MAX_OFFSETS);
        let inward = inward_limit[side].clamp(0.0, search);
        let mut best: Option<(f32, Line)> = None;
        for turn_idx in 0..=4 {
            let turn = (turn_idx as f32 / 2.0 - 1.0) * MAX_TURN_DEGREES.to_radians();
            let (sin, cos) = turn.sin_cos();
            let turned =
                (direction.0 * cos - direction.1 * sin, direction.0 * sin + direction.1 * cos);
            let normal = (turned.1, -turned.0);
            let half = length / 2.0;
            for offset_idx in 0..=2 * n_offsets {
                let offset = (offset_idx as f32 - n_offsets as f32) * search / n_offsets as f32;
                if offset < -inward {
                    continue;
                }
                let centre = (middle.0 + outward.0 * offset, middle.1 + outward.1 * offset);
                let a = (centre.0 - turned.0 * half, centre.1 - turned.1 * half);
                let b = (centre.0 + turned.0 * half, centre.1 + turned.1 * half);
                if let Some(strength) = edge_strength(gray, a, b, normal, reach)
                    && best.is_none_or(|(s, _)| strength > s)
                {
                    best = Some((strength, Line { point: centre, direction: turned }));
                }
            }
        }
        if let Some((_, line)) = best {
            lines[side] = line;
            n_found += 1;
        }
    }
    if n_found == 0 {
        return (corners, 0);
    }
    // Corner idx is where the side before it (idx + 3) meets side idx.
    let mut refined = corners;
    for (idx, corner) in refined.iter_mut().enumerate() {
        match lines[(idx + 3) % 4].meet(&lines[idx]) {
            Some(point) => *corner = point,
            None => return (corners, 0),
        }
    }
    // A found edge that bends the page out of shape was something else.
    let sides = |c: &[(f32, f32); 4]| [0, 1, 2, 3].map(|i| side_length(c[i], c[(i + 1) % 4]));
    let (before, after) = (sides(&corners), sides(&refined));
    if before.iter().zip(&after).any(|(b, a)| (a / b - 1.0).abs() > 0.12) {
        return (corners, 0);
    }
    (refined, n_found)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A light page on a dark table, its corners `page`, drawn by inside-test per pixel.
    fn photo_with_page(width: usize, height: usize, page: [(f32, f32); 4]) -> Gray {
        let mut gray = Gray::filled(width, height, 40);
        for y in 0..height {
            for x in 0..width {
                let p = (x as f32 + 0.5, y as f32 + 0.5);
                let inside = (0..4).all(|i| {
                    let (a, b) = (page[i], page[(i + 1) % 4]);
                    (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0) >= 0.0
                });
                if inside {
                    gray.data[y * width + x] = 220;
                }
            }
        }
        gray
    }

    #[test]
    fn sides_move_onto_the_page_edges_near_them() {
        let truth = [(100.0, 80.0), (700.0, 95.0), (690.0, 520.0), (92.0, 505.0)];
        let gray = photo_with_page(800, 600, truth);
        // Predicted 12 px off on every side, a little turned.
        let predicted = [(90.0, 70.0), (712.0, 88.0), (700.0, 530.0), (85.0, 515.0)];
        let (refined, n_found) = refine(&gray, predicted, [50.0; 4]);
        assert_eq!(n_found, 4);
        for (got, want) in refined.iter().zip(truth) {
            assert!((got.0 - want.0).hypot(got.1 - want.1) < 4.0, "{refined:?}");
        }
    }

    #[test]
    fn a_page_without_visible_edges_keeps_its_prediction() {
        let gray = Gray::filled(800, 600, 200);
        let predicted = [(90.0, 70.0), (712.0, 88.0), (700.0, 530.0), (85.0, 515.0)];
        assert_eq!(refine(&gray, predicted, [50.0; 4]), (predicted, 0));
        // A page running off the photo on every side: nothing to judge.
        let big = [(-50.0, -40.0), (900.0, -40.0), (900.0, 700.0), (-50.0, 700.0)];
        assert_eq!(refine(&gray, big, [50.0; 4]).1, 0);
    }
}
