//! Lines drawn over the page: a pen stroke or a frame that runs through an MRZ joins the
//! glyphs it touches into one blob too large to be a glyph, and the localiser then sees no
//! rows. Such lines are found among the blobs too large to be glyphs (a Hough transform over
//! their pixels, refined by a fit to the ink), and painted over with the paper beside them,
//! so that the photo can be looked at again. What the line crossed is then read from the
//! rest of each glyph, and the verdicts say so.

use std::f32::consts::PI;

use crate::cells::{self, CellGeometry};
use crate::components::{Darkness, binarise, regions_where};
use crate::geometry::distance_to_segment;
use crate::gray::Gray;
use crate::locate::{ink, ink_radius, major_extent, max_glyph_extent};

/// At most this many lines are erased from one photo.
const MAX_STROKES: usize = 12;
/// The Hough transform's angles: every degree over half a turn.
const ANGLE_STEPS: usize = 180;
/// At most this many pixels vote, spread evenly over the large blobs.
const MAX_VOTERS: usize = 12_000;
/// Over the whole photo, a line crosses at least this much other ink (glyphs' strokes) to
/// matter; near a zone found, any line does (a frame drawn along its edges).
const MIN_CROSSINGS: usize = 3;
/// How many of the strongest Hough peaks (a few degrees and pixels apart) are traced in a
/// round.
const PEAKS_TRIED: usize = 24;
/// How many of the transform's strongest bins are sorted to pick the peaks from.
const MAX_PEAKS_SORTED: usize = 4096;
/// The longest gap (working pixels) in a line's ink that still leaves one line.
const MAX_GAP: usize = 3;
/// A line is at least this many times the largest glyph long...
const MIN_LENGTH_IN_GLYPHS: f32 = 1.5;
/// ... and its own ink ([`own_width`]), across it, at most this share of the largest glyph
/// thick.
const MAX_THICKNESS_IN_GLYPHS: f32 = 0.125;

/// The share of a cell's box that a glyph's body fills: along the line (an OCR-B glyph is
/// about seven tenths of the pitch wide) and across it.
const GLYPH_BODY: (f32, f32) = (0.7, 0.8);

/// The share of a cell's box that is sampled to read it, margins above and below the glyph
/// included.
const CELL_WINDOW: (f32, f32) = (2.0 * cells::HALF_WIDTH, 2.0 * cells::HALF_HEIGHT);

/// A straight line of ink drawn over the page, as a segment and the half width of its ink.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Stroke {
    pub(crate) from: (f32, f32),
    pub(crate) to: (f32, f32),
    pub(crate) half_width: f32,
}

impl Stroke {
    /// The same stroke in an image `factor` times as large.
    pub(crate) fn scaled(&self, factor: f32) -> Stroke {
        Stroke {
            from: (self.from.0 * factor, self.from.1 * factor),
            to: (self.to.0 * factor, self.to.1 * factor),
            half_width: self.half_width * factor,
        }
    }

    /// The distance from `point` to the stroke's middle line.
    fn distance(&self, point: (f32, f32)) -> f32 {
        distance_to_segment(point, self.from, self.to)
    }

    /// Whether `other` runs along this stroke: its middle lies within both strokes' ink.
    pub(crate) fn same_line(&self, other: &Stroke) -> bool {
        let middle = ((other.from.0 + other.to.0) / 2.0, (other.from.1 + other.to.1) / 2.0);
        self.distance(middle) <= self.half_width + other.half_width
    }

    /// The unit normal of the stroke.
    fn normal(&self) -> (f32, f32) {
        let (dx, dy) = (self.to.0 - self.from.0, self.to.1 - self.from.1);
        let length = dx.hypot(dy).max(f32::EPSILON);
        (-dy / length, dx / length)
    }

    /// Integer pixel bounds `(x0, y0, x1, y1)` (exclusive ends) of the stroke's ink within a
    /// `width` by `height` image.
    fn bounds(&self, width: usize, height: usize, margin: f32) -> (usize, usize, usize, usize) {
        let reach = self.half_width + margin;
        let low = |a: f32, b: f32| (a.min(b) - reach).floor().max(0.0) as usize;
        let high =
            |a: f32, b: f32, limit: usize| ((a.max(b) + reach).ceil().max(0.0) as usize).min(limit);
        (
            low(self.from.0, self.to.0),
            low(self.from.1, self.to.1),
            high(self.from.0, self.to.0, width),
            high(self.from.1, self.to.1, height),
        )
    }

    /// Whether the stroke's ink reaches into the body of `cell`'s glyph: the middle
    /// [`GLYPH_BODY`] of its box (a pitch wide and a glyph high), where a line along the
    /// zone's edge (a frame) does not reach.
    pub(crate) fn crosses(&self, cell: &CellGeometry) -> bool {
        self.reaches(cell, GLYPH_BODY)
    }

    /// Whether the stroke's ink reaches into what is sampled of `cell` ([`CELL_WINDOW`]):
    /// elsewhere it changes nothing the cell is read from.
    pub(crate) fn touches(&self, cell: &CellGeometry) -> bool {
        self.reaches(cell, CELL_WINDOW)
    }

    /// Whether the stroke's ink reaches into the middle `share` of `cell`'s box, along and
    /// across the line.
    fn reaches(&self, cell: &CellGeometry, share: (f32, f32)) -> bool {
        let frame = |v: (f32, f32)| v.0.hypot(v.1).max(f32::EPSILON);
        let (pitch, glyph) = (frame(cell.along), frame(cell.across));
        let local = |p: (f32, f32)| {
            let (x, y) = (p.0 - cell.centre.0, p.1 - cell.centre.1);
            (
                (x * cell.along.0 + y * cell.along.1) / pitch,
                (x * cell.across.0 + y * cell.across.1) / glyph,
            )
        };
        let (a, b) = (local(self.from), local(self.to));
        // The stroke's own ink reaches `half_width` less the pixel left for its soft edge.
        let ink = (self.half_width - 1.0).max(0.0);
        let (reach_u, reach_v) = (pitch * share.0 / 2.0 + ink, glyph * share.1 / 2.0 + ink);
        let steps = ((b.0 - a.0).hypot(b.1 - a.1) / (pitch.min(glyph) / 4.0)).ceil().max(1.0);
        (0..=steps as usize).any(|k| {
            let t = k as f32 / steps;
            let (u, v) = (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t);
            u.abs() <= reach_u && v.abs() <= reach_v
        })
    }
}

/// Finds the long, thin, straight lines of ink in the working image that join glyphs into
/// blobs too large to be glyphs; none in most photos.
pub(crate) fn find_strokes(work: &Gray, darkness: Darkness) -> Vec<Stroke> {
    let max_glyph = max_glyph_extent(work);
    let mask = ink(work, darkness);
    let large =
        regions_where(&mask, work.width, work.height, |blob| major_extent(blob) > max_glyph);
    lines_of(&large, work.width, work.height, max_glyph, MIN_CROSSINGS)
}

/// The lines drawn over the page across the zone whose cells (original pixels) are `cells`,
/// in the working image (`scale` times the original): there a blob larger than two glyphs
/// is no glyph, so a shorter line than [`find_strokes`] looks for counts, one that joins a
/// few glyphs of a zone the localiser found all the same.
pub(crate) fn strokes_over(
    work: &Gray,
    darkness: Darkness,
    cells: &[Vec<CellGeometry>],
    scale: f32,
) -> Vec<Stroke> {
    let corners = cells.iter().flatten().flat_map(|cell| {
        [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)].map(|(a, b)| {
            (
                (cell.centre.0 + a * cell.along.0 + b * cell.across.0) * scale,
                (cell.centre.1 + a * cell.along.1 + b * cell.across.1) * scale,
            )
        })
    });
    let glyph = cells
        .first()
        .and_then(|line| line.first())
        .map_or(0.0, |cell| cell.across.0.hypot(cell.across.1) * scale);
    let (mut x0, mut y0, mut x1, mut y1) = (f32::MAX, f32::MAX, f32::MIN, f32::MIN);
    for (x, y) in corners {
        (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
    }
    if glyph < 1.0 || x0 > x1 {
        return Vec::new();
    }
    // The zone and a glyph's height around it.
    let clamp = |v: f32, limit: usize| (v.max(0.0) as usize).min(limit);
    let (left, top) = (clamp(x0 - glyph, work.width), clamp(y0 - glyph, work.height));
    let (right, bottom) =
        (clamp(x1 + glyph + 1.0, work.width), clamp(y1 + glyph + 1.0, work.height));
    if right <= left || bottom <= top {
        return Vec::new();
    }
    let (width, height) = (right - left, bottom - top);
    let mut crop = Gray::filled(width, height, 0);
    for (row, y) in crop.data.chunks_exact_mut(width).zip(top..bottom) {
        row.copy_from_slice(&work.data[y * work.width + left..y * work.width + right]);
    }
    let max_glyph = 2.0 * glyph;
    let mask = binarise(&crop, ink_radius(work), darkness);
    let large = regions_where(&mask, width, height, |blob| major_extent(blob) > max_glyph);
    let shift = |p: (f32, f32)| (p.0 + left as f32, p.1 + top as f32);
    lines_of(&large, width, height, max_glyph, 0)
        .into_iter()
        .map(|stroke| Stroke { from: shift(stroke.from), to: shift(stroke.to), ..stroke })
        .collect()
}

/// How far apart (a share of the brighter) the two sides of a stroke may be and still be
/// alike: both paper, or both a glyph's ink.
const ALIKE: f32 = 0.3;

/// `image` with each stroke (in its pixels) painted over with what lies just beyond its
/// ink on either side: paper where the stroke runs over paper or along a glyph's edge, and a
/// glyph's stroke carried on where the line cut through it. Nothing is made darker.
pub(crate) fn erase(image: &Gray, strokes: &[Stroke]) -> Gray {
    let mut out = image.clone();
    for stroke in strokes {
        let (x0, y0, x1, y1) = stroke.bounds(image.width, image.height, 1.0);
        let normal = stroke.normal();
        let beside = stroke.half_width + 1.5;
        for y in y0..y1 {
            for x in x0..x1 {
                let point = (x as f32 + 0.5, y as f32 + 0.5);
                if stroke.distance(point) > stroke.half_width {
                    continue;
                }
                let offset =
                    (point.0 - stroke.from.0) * normal.0 + (point.1 - stroke.from.1) * normal.1;
                let foot = (point.0 - offset * normal.0, point.1 - offset * normal.1);
                let side = |sign: f32| {
                    image.bilinear(
                        foot.0 + sign * normal.0 * beside,
                        foot.1 + sign * normal.1 * beside,
                    )
                };
                let (below, above) = (side(-1.0), side(1.0));
                // Alike on both sides (paper, or a glyph's stroke the line cut through): the
                // blend; ink on one side only: the paper of the other, since carrying the
                // ink on would grow the glyph into where the line ran.
                let blended = if (above - below).abs() <= ALIKE * above.max(below) {
                    below + (above - below) * (offset + beside) / (2.0 * beside)
                } else {
                    above.max(below)
                };
                let pixel = &mut out.data[y * image.width + x];
                *pixel = (*pixel).max(blended.round().clamp(0.0, 255.0) as u8);
            }
        }
    }
    out
}

/// A line in normal form: the points `p` with `p · (cos, sin) = rho`.
#[derive(Clone, Copy, Debug)]
struct Line {
    cos: f32,
    sin: f32,
    rho: f32,
}

impl Line {
    /// The point `t` along the line from its foot (the point nearest the origin), shifted
    /// `offset` along its normal.
    fn at(&self, t: f32, offset: f32) -> (f32, f32) {
        let along = (-self.sin, self.cos);
        ((self.rho + offset) * self.cos + t * along.0, (self.rho + offset) * self.sin + t * along.1)
    }
}

/// What the ink looks like across the line at one step along it: the middle of the run of
/// ink nearest the line (as an offset along the normal) and the run's length.
#[derive(Clone, Copy, Debug)]
struct Across {
    t: f32,
    centre: f32,
    thickness: f32,
}

/// The lines of the large blobs' pixels, strongest first, that are long and thin enough to
/// be strokes drawn over the page and cross other ink at least `min_crossings` times.
fn lines_of(
    large: &[bool],
    width: usize,
    height: usize,
    max_glyph: f32,
    min_crossings: usize,
) -> Vec<Stroke> {
    let min_length = max_glyph * MIN_LENGTH_IN_GLYPHS;
    let pixels: Vec<(f32, f32)> = large
        .iter()
        .enumerate()
        .filter(|(_, ink)| **ink)
        .map(|(idx, _)| ((idx % width) as f32 + 0.5, (idx / width) as f32 + 0.5))
        .collect();
    if (pixels.len() as f32) < min_length {
        return Vec::new();
    }
    let step = pixels.len().div_ceil(MAX_VOTERS);
    let diagonal = (width as f32).hypot(height as f32).ceil() as usize;
    let n_rho = 2 * diagonal + 1;
    let trig: Vec<(f32, f32)> =
        (0..ANGLE_STEPS).map(|k| (k as f32 * PI / ANGLE_STEPS as f32).sin_cos()).collect();
    let mut votes = vec![0u32; ANGLE_STEPS * n_rho];
    for &(x, y) in pixels.iter().step_by(step) {
        for (k, &(sin, cos)) in trig.iter().enumerate() {
            let bin = (x * cos + y * sin).round() as isize + diagonal as isize;
            votes[k * n_rho + bin as usize] += 1;
        }
    }
    // A line as long as a stroke must be, sampled as the voters were.
    let least = (min_length / step as f32) as u32;
    let mut peaks: Vec<(u32, usize)> =
        votes.iter().enumerate().filter(|(_, v)| **v >= least).map(|(bin, v)| (*v, bin)).collect();
    // Only the strongest are ever traced: a few thousand, sorted, leave room for the many
    // bins near each of them.
    if peaks.len() > MAX_PEAKS_SORTED {
        peaks.select_nth_unstable_by(MAX_PEAKS_SORTED, |a, b| b.0.cmp(&a.0));
        peaks.truncate(MAX_PEAKS_SORTED);
    }
    peaks.sort_unstable_by_key(|peak| std::cmp::Reverse(peak.0));
    let mut tried: Vec<(usize, usize)> = Vec::new();
    let mut found: Vec<Stroke> = Vec::new();
    for &(_, bin) in &peaks {
        let (angle, rho_bin) = (bin / n_rho, bin % n_rho);
        let near = |&(a, r): &(usize, usize)| {
            let d_angle = angle.abs_diff(a).min(ANGLE_STEPS - angle.abs_diff(a));
            d_angle <= 3 && rho_bin.abs_diff(r) <= 6
        };
        if tried.iter().any(near) {
            continue;
        }
        if tried.len() == PEAKS_TRIED || found.len() == MAX_STROKES {
            break;
        }
        tried.push((angle, rho_bin));
        let (sin, cos) = trig[angle];
        let line = Line { cos, sin, rho: rho_bin as f32 - diagonal as f32 };
        let Some(stroke) = stroke_along(large, width, height, line, max_glyph, min_crossings)
        else {
            continue;
        };
        // Two peaks of one line refine to the same stroke.
        if !found.iter().any(|other| other.same_line(&stroke)) {
            found.push(stroke);
        }
    }
    found
}

/// The stroke along `line` (a Hough peak, a degree and a pixel coarse), refined by a fit to
/// its ink; `None` unless the ink is long, thin and unbroken enough and crosses other ink
/// `min_crossings` times.
fn stroke_along(
    large: &[bool],
    width: usize,
    height: usize,
    line: Line,
    max_glyph: f32,
    min_crossings: usize,
) -> Option<Stroke> {
    let mut line = line;
    let mut window = 4.0;
    for _ in 0..3 {
        let profile = trace(large, width, height, line, window, max_glyph);
        let run = longest_run(&profile);
        if run.len() < 3 {
            return None;
        }
        // Fit `centre = a + b t` to the steps where the ink is about as thick as the line's
        // own, so that glyphs the line crosses do not pull it.
        let usual = own_width(&run);
        let fitted: Vec<&Across> =
            run.iter().filter(|a| a.thickness <= usual * 1.5 + 1.0).collect();
        let (a, b) = fit(&fitted)?;
        // The refined line runs along `along + b normal` through the point `a` off the
        // old one's foot: its normal turns back by atan(b).
        let (turn_sin, turn_cos) = b.atan().sin_cos();
        let cos = line.cos * turn_cos + line.sin * turn_sin;
        let sin = line.sin * turn_cos - line.cos * turn_sin;
        let foot = line.at(0.0, a);
        line = Line { cos, sin, rho: foot.0 * cos + foot.1 * sin };
        window = 1.5;
    }
    let profile = trace(large, width, height, line, window, max_glyph);
    let run = longest_run(&profile);
    let (first, last) = (run.first()?, run.last()?);
    let usual = own_width(&run);
    let long = last.t - first.t >= max_glyph * MIN_LENGTH_IN_GLYPHS;
    let thin = usual <= max_glyph * MAX_THICKNESS_IN_GLYPHS;
    // Where the line crosses other ink (a glyph's stroke), the ink across it is thicker than
    // its own; a line that joins nothing (a page's edge, a frame clear of the text) keeps no
    // glyph from being seen, and is left alone.
    let beyond_own = |across: &Across| across.thickness > usual * 1.5 + 1.0;
    let crossings =
        run.windows(2).filter(|pair| !beyond_own(&pair[0]) && beyond_own(&pair[1])).count();
    (long && thin && crossings >= min_crossings).then(|| Stroke {
        from: line.at(first.t, 0.0),
        to: line.at(last.t, 0.0),
        half_width: usual / 2.0 + 1.0,
    })
}

/// The ink across `line` at every pixel step along it inside the image: the run of ink
/// nearest the line within `window` of it, or `None` where there is none.
fn trace(
    large: &[bool],
    width: usize,
    height: usize,
    line: Line,
    window: f32,
    max_glyph: f32,
) -> Vec<Option<Across>> {
    let reach = (width as f32).hypot(height as f32);
    let inked = |p: (f32, f32)| {
        p.0 >= 0.0
            && p.1 >= 0.0
            && (p.0 as usize) < width
            && (p.1 as usize) < height
            && large[p.1 as usize * width + p.0 as usize]
    };
    let inside =
        |p: (f32, f32)| p.0 >= 0.0 && p.1 >= 0.0 && p.0 < width as f32 && p.1 < height as f32;
    let limit = (max_glyph / 2.0).ceil() as i32;
    let mut profile = Vec::new();
    let mut t = -reach;
    while t <= reach {
        if inside(line.at(t, 0.0)) {
            let window_steps = window.ceil() as i32;
            let nearest =
                (0..=window_steps).flat_map(|d| [d, -d]).find(|&d| inked(line.at(t, d as f32)));
            profile.push(nearest.map(|d| {
                let (mut low, mut high) = (d, d);
                while high - d < limit && inked(line.at(t, (high + 1) as f32)) {
                    high += 1;
                }
                while d - low < limit && inked(line.at(t, (low - 1) as f32)) {
                    low -= 1;
                }
                Across { t, centre: (low + high) as f32 / 2.0, thickness: (high - low + 1) as f32 }
            }));
        }
        t += 1.0;
    }
    profile
}

/// The longest stretch of the profile with ink, across gaps up to [`MAX_GAP`] steps.
fn longest_run(profile: &[Option<Across>]) -> Vec<Across> {
    let mut best: Vec<Across> = Vec::new();
    let mut current: Vec<Across> = Vec::new();
    let mut gap = 0;
    for step in profile {
        match step {
            Some(across) => {
                current.push(*across);
                gap = 0;
            }
            None => {
                gap += 1;
                if gap > MAX_GAP && !current.is_empty() {
                    if current.len() > best.len() {
                        best = std::mem::take(&mut current);
                    }
                    current.clear();
                }
            }
        }
    }
    if current.len() > best.len() { current } else { best }
}

/// The width of a line's own ink: the lower quartile of the ink's thickness across it, since
/// where the line runs through glyphs (half the steps and more along a line of text) their
/// ink adds to its own.
fn own_width(run: &[Across]) -> f32 {
    let mut widths: Vec<f32> = run.iter().map(|a| a.thickness).collect();
    if widths.is_empty() {
        return 0.0;
    }
    let quartile = widths.len() / 4;
    *widths.select_nth_unstable_by(quartile, f32::total_cmp).1
}

/// Least squares `centre = a + b t` over the steps.
fn fit(steps: &[&Across]) -> Option<(f32, f32)> {
    let n = steps.len() as f32;
    if steps.len() < 2 {
        return None;
    }
    let mean_t = steps.iter().map(|a| a.t).sum::<f32>() / n;
    let mean_c = steps.iter().map(|a| a.centre).sum::<f32>() / n;
    let stt: f32 = steps.iter().map(|a| (a.t - mean_t).powi(2)).sum();
    let stc: f32 = steps.iter().map(|a| (a.t - mean_t) * (a.centre - mean_c)).sum();
    if stt <= f32::EPSILON {
        return None;
    }
    let b = stc / stt;
    Some((mean_c - b * mean_t, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Paper with rows of small dark blocks (glyphs) and, when asked, a thin line drawn
    /// from `(40, 30)` to `(560, 170)` through them.
    fn page(with_line: bool) -> Gray {
        let mut page = Gray::filled(640, 240, 230);
        for row in 0..3 {
            for k in 0..40 {
                let (x0, y0) = (40 + k * 13, 40 + row * 60);
                for y in y0..y0 + 18 {
                    for x in x0..x0 + 8 {
                        if (x - x0) < 2 || (y - y0) < 2 || (y - y0) > 15 {
                            page.data[y * 640 + x] = 30;
                        }
                    }
                }
            }
        }
        if with_line {
            let stroke = Stroke { from: (40.0, 30.0), to: (560.0, 170.0), half_width: 1.2 };
            for y in 0..240 {
                for x in 0..640 {
                    if stroke.distance((x as f32 + 0.5, y as f32 + 0.5)) <= 1.2 {
                        page.data[y * 640 + x] = 40;
                    }
                }
            }
        }
        page
    }

    #[test]
    fn a_line_through_rows_of_glyphs_is_found_and_nothing_on_a_clean_page() {
        assert!(find_strokes(&page(false), Darkness::NORMAL).is_empty());
        let strokes = find_strokes(&page(true), Darkness::NORMAL);
        assert_eq!(strokes.len(), 1, "{strokes:?}");
        let stroke = strokes[0];
        // Its line runs within a pixel of the drawn one, over most of its length.
        let drawn = Stroke { from: (40.0, 30.0), to: (560.0, 170.0), half_width: 1.2 };
        for end in [stroke.from, stroke.to] {
            assert!(drawn.distance(end) < 1.0, "{stroke:?}");
        }
        let length = (stroke.to.0 - stroke.from.0).hypot(stroke.to.1 - stroke.from.1);
        assert!(length > 400.0, "{stroke:?}");
        assert!(stroke.half_width < 4.0, "{stroke:?}");
    }

    #[test]
    fn erasing_paints_the_line_with_paper_and_keeps_the_glyphs() {
        let clean = page(false);
        let strokes = find_strokes(&page(true), Darkness::NORMAL);
        let erased = erase(&page(true), &strokes);
        let differing =
            clean.data.iter().zip(&erased.data).filter(|(a, b)| a.abs_diff(**b) > 60).count();
        // What differs is where the line crossed a glyph's ink: a few pixels per glyph.
        assert!(differing < 400, "{differing} pixels differ");
        // Between two glyphs of the first row, the line (at y 43.2 for x 89) was over paper.
        let between = 43 * 640 + 89;
        assert!(page(true).data[between] < 100);
        assert!(erased.data[between] > 200, "{}", erased.data[between]);
    }

    #[test]
    fn a_short_line_across_a_found_zone_is_found_near_it() {
        // A line over eight glyphs of the first row, drawn on the clean page.
        let mut page = page(false);
        let drawn = Stroke { from: (100.0, 45.0), to: (200.0, 60.0), half_width: 1.2 };
        for y in 0..240 {
            for x in 0..640 {
                if drawn.distance((x as f32 + 0.5, y as f32 + 0.5)) <= 1.2 {
                    page.data[y * 640 + x] = 40;
                }
            }
        }
        // The glyphs' cells, in an original twice the working image's size.
        let cells: Vec<Vec<CellGeometry>> = (0..3)
            .map(|row| {
                (0..40)
                    .map(|k| CellGeometry {
                        centre: (2.0 * (44.0 + 13.0 * k as f32), 2.0 * (49.0 + 60.0 * row as f32)),
                        along: (26.0, 0.0),
                        across: (0.0, 36.0),
                    })
                    .collect()
            })
            .collect();
        let near = strokes_over(&page, Darkness::NORMAL, &cells, 0.5);
        assert_eq!(near.len(), 1, "{near:?}");
        for end in [near[0].from, near[0].to] {
            assert!(drawn.distance(end) < 1.5, "{near:?}");
        }
        assert!(strokes_over(&self::page(false), Darkness::NORMAL, &cells, 0.5).is_empty());
    }

    #[test]
    fn a_stroke_crosses_the_cells_it_runs_through() {
        let stroke = Stroke { from: (0.0, 0.0), to: (100.0, 0.0), half_width: 1.0 };
        let cell = |x: f32, y: f32| CellGeometry {
            centre: (x, y),
            along: (10.0, 0.0),
            across: (0.0, 16.0),
        };
        assert!(stroke.crosses(&cell(50.0, 5.0)));
        assert!(!stroke.crosses(&cell(50.0, 12.0)));
        assert!(!stroke.crosses(&cell(120.0, 0.0)));
    }
}
