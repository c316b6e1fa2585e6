//! Localisation: finding rows of equally sized, equally spaced glyphs at any
//! angle, and the pairs or triples of such rows that look like an MRZ.

use crate::components::{Component, Darkness, binarise, components};
use crate::gray::Gray;

mod runs;

/// A straight row of glyph blobs found at some angle, in working-image pixels.
#[derive(Clone, Debug)]
pub(crate) struct TextRow {
    /// Unit vector along the row (reading direction if upright).
    pub(crate) dir: (f32, f32),
    /// Centres of the member blobs, ordered along `dir`, with their lengths along `dir`.
    pub(crate) members: Vec<((f32, f32), f32)>,
    /// Typical glyph height across the row.
    pub(crate) height: f32,
    /// Start and end of the row along `dir` (outer edges of the end blobs).
    pub(crate) start: f32,
    pub(crate) end: f32,
    /// Offset across the row at `s = 0` and its slope, from a fit of the centres.
    pub(crate) offset: f32,
    pub(crate) slope: f32,
    /// How far the row bends away from a straight line: the centre line lies
    /// `bend * (s - bend_at)^2` further across (a page that does not lie flat,
    /// a wide lens); 0 for a straight row.
    pub(crate) bend: f32,
    /// Where along the row the bend is measured from (the middle of its blobs).
    pub(crate) bend_at: f32,
}

impl TextRow {
    /// A straight row along the x axis of glyphs 12 px high, for tests.
    #[cfg(test)]
    pub(crate) fn straight(
        members: Vec<((f32, f32), f32)>,
        (start, end): (f32, f32),
        offset: f32,
        slope: f32,
    ) -> TextRow {
        TextRow {
            dir: (1.0, 0.0),
            members,
            height: 12.0,
            start,
            end,
            offset,
            slope,
            bend: 0.0,
            bend_at: 0.0,
        }
    }

    pub(crate) fn normal(&self) -> (f32, f32) {
        (-self.dir.1, self.dir.0)
    }

    /// Across-row offset at position `s` along the row.
    pub(crate) fn across_at(&self, s: f32) -> f32 {
        let from = s - self.bend_at;
        self.offset + self.slope * s + self.bend * from * from
    }

    /// The slope of the centre line against the search direction at `s`.
    pub(crate) fn slope_at(&self, s: f32) -> f32 {
        self.slope + 2.0 * self.bend * (s - self.bend_at)
    }

    /// Image point at position `s` along the row, on the fitted centre line.
    pub(crate) fn point_at(&self, s: f32) -> (f32, f32) {
        let n = self.normal();
        let t = self.across_at(s);
        (self.dir.0 * s + n.0 * t, self.dir.1 * s + n.1 * t)
    }

    pub(crate) fn length(&self) -> f32 {
        self.end - self.start
    }
}

/// A candidate MRZ: two or three parallel rows, top to bottom when upright.
#[derive(Clone, Debug)]
pub(crate) struct MrzCandidate {
    pub(crate) rows: Vec<TextRow>,
}

/// What the localiser saw, for diagnostics when nothing is read.
#[derive(Clone, Debug, Default)]
pub(crate) struct LocateReport {
    /// Number of long glyph rows found anywhere.
    pub(crate) n_long_rows: usize,
    /// The longest row seen, in working pixels, with its glyph height.
    pub(crate) longest_row: Option<TextRow>,
    /// Number of groups of rows that could be an MRZ.
    pub(crate) n_candidates: usize,
    /// A second zone, away from the one read, that read with confidence too: two documents
    /// (or pages) in one photo.
    pub(crate) another_zone: Option<Box<crate::attempt::Attempt>>,
}

/// Working-image setup: how much the original was scaled.
pub(crate) struct WorkImage {
    pub(crate) image: Gray,
    /// Working pixels per original pixel.
    pub(crate) scale: f32,
}

/// Scales the photo to a size where MRZ glyphs are a handful of pixels to a few
/// dozen: large photos are shrunk for speed, thumbnails enlarged so that
/// touching glyphs separate.
pub(crate) fn work_image(original: &Gray) -> WorkImage {
    let longest = original.width.max(original.height);
    let factor = shrink_factor(longest);
    if factor > 1 {
        WorkImage { image: original.shrink(factor), scale: 1.0 / factor as f32 }
    } else if longest < 700 {
        let enlarge = if longest < 400 { 3 } else { 2 };
        WorkImage { image: original.enlarge(enlarge), scale: enlarge as f32 }
    } else {
        WorkImage { image: original.clone(), scale: 1.0 }
    }
}

/// The factor a photo this long on its longest side is shrunk by for the
/// working image (1 for photos that are not shrunk).
pub(crate) fn shrink_factor(longest: usize) -> usize {
    if longest > 1400 { longest.div_ceil(1200) } else { 1 }
}

/// The ink of the working image: pixels darker than their neighbourhood.
pub(crate) fn ink(work: &Gray, darkness: Darkness) -> Vec<bool> {
    binarise(work, ink_radius(work), darkness)
}

/// The radius of the neighbourhood a pixel of the working image is compared with.
pub(crate) fn ink_radius(work: &Gray) -> usize {
    let longest = work.width.max(work.height) as f32;
    ((longest / 50.0) as usize).max(8)
}

/// The largest extent (working-image pixels) a blob may have and still be a glyph.
pub(crate) fn max_glyph_extent(work: &Gray) -> f32 {
    work.width.max(work.height) as f32 / 12.0
}

/// A blob's extent along the image's axes, the larger of the two.
pub(crate) fn major_extent(blob: &Component) -> f32 {
    blob.extent(1.0, 0.0).max(blob.extent(0.0, 1.0))
}

/// Glyph-like blobs of the working image, and the runs among the rest: blobs too long to
/// be one glyph and no higher than one, glyphs run together by blur along their line.
pub(crate) fn glyph_blobs(work: &Gray, darkness: Darkness) -> (Vec<Component>, Vec<Component>) {
    let max_size = max_glyph_extent(work);
    let (mut glyphs, mut runs) = (Vec::new(), Vec::new());
    for blob in components(&ink(work, darkness), work.width, work.height) {
        let major = major_extent(&blob);
        if blob.area < 6 || major < 3.0 {
            continue;
        }
        if major <= max_size {
            glyphs.push(blob);
        } else if runs::is_run(&blob, max_size) {
            runs.push(blob);
        }
    }
    (glyphs, runs)
}

struct Projected {
    s: f32,
    t: f32,
    len: f32,
    height: f32,
    idx: usize,
}

/// Finds rows of blobs running along direction `angle` (radians, modulo pi).
fn rows_at_angle(blobs: &[Component], angle: f32) -> Vec<TextRow> {
    let dir = (angle.cos(), angle.sin());
    let normal = (-dir.1, dir.0);
    let mut projected: Vec<Projected> = blobs
        .iter()
        .enumerate()
        .map(|(idx, c)| Projected {
            s: c.cx * dir.0 + c.cy * dir.1,
            t: c.cx * normal.0 + c.cy * normal.1,
            len: c.extent(dir.0, dir.1),
            height: c.extent(normal.0, normal.1),
            idx,
        })
        // A glyph, or a few touching glyphs, is not much taller than it is long
        // in a row; very tall blobs are frames, photos and lines.
        .filter(|p| p.len <= p.height * 7.0 && p.height <= p.len * 4.0 + 4.0)
        .collect();
    projected.sort_by(|a, b| a.s.total_cmp(&b.s));
    let n = projected.len();
    // For each blob, the best next blob along the row.
    let mut next: Vec<Option<(usize, f32)>> = vec![None; n];
    for i in 0..n {
        let pi = &projected[i];
        let reach = pi.len / 2.0 + pi.height * 2.0 + pi.height * 4.0;
        let mut best: Option<(usize, f32)> = None;
        for (j, pj) in projected.iter().enumerate().skip(i + 1) {
            if pj.s - pi.s > reach {
                break;
            }
            let ratio = pj.height / pi.height;
            if !(0.45..=2.2).contains(&ratio) {
                continue;
            }
            let h = pi.height.max(pj.height);
            let dt = (pj.t - pi.t).abs();
            if dt > 0.4 * h {
                continue;
            }
            let gap = (pj.s - pj.len / 2.0) - (pi.s + pi.len / 2.0);
            if gap < -0.4 * h || gap > 1.5 * h {
                continue;
            }
            let cost = gap.max(0.0) + 2.0 * dt;
            if best.is_none_or(|(_, c)| cost < c) {
                best = Some((j, cost));
            }
        }
        next[i] = best;
    }
    // Each blob keeps at most one predecessor: the cheapest link wins.
    let mut prev: Vec<Option<(usize, f32)>> = vec![None; n];
    for (i, link) in next.iter().enumerate() {
        if let Some((j, cost)) = *link
            && prev[j].is_none_or(|(_, c)| cost < c)
        {
            prev[j] = Some((i, cost));
        }
    }
    for (i, link) in next.iter_mut().enumerate() {
        if let Some((j, _)) = *link
            && prev[j].map(|(p, _)| p) != Some(i)
        {
            *link = None;
        }
    }
    let mut pieces: Vec<(Vec<usize>, TextRow)> = Vec::new();
    for (head, head_prev) in prev.iter().enumerate() {
        if head_prev.is_some_and(|(p, _)| next[p].is_some()) {
            continue;
        }
        let mut chain = vec![head];
        let mut cursor = head;
        while let Some((j, _)) = next[cursor] {
            chain.push(j);
            cursor = j;
        }
        trim_stray_ends(&projected, &mut chain);
        if chain.len() < MIN_PIECE {
            continue;
        }
        let row = fit_row(&projected, &chain, blobs, dir);
        pieces.push((chain, row));
    }
    join_continuations(&projected, blobs, dir, &mut pieces);
    pieces
        .into_iter()
        .map(|(_, row)| row)
        .filter(|row| row.members.len() >= 8 && row.length() >= row.height * 12.0)
        .collect()
}

/// The fewest blobs in a piece of row worth joining to another.
const MIN_PIECE: usize = 6;

/// Joins pieces of one row that the chaining broke apart (a speck in the
/// paper grain taking a glyph's link, fillers shorter than letters): a piece
/// that starts where another ends, on the same line, continues it.
fn join_continuations(
    projected: &[Projected],
    blobs: &[Component],
    dir: (f32, f32),
    pieces: &mut Vec<(Vec<usize>, TextRow)>,
) {
    loop {
        let pair = (0..pieces.len()).find_map(|a| {
            (0..pieces.len())
                .find(|&b| b != a && continues(&pieces[a].1, &pieces[b].1))
                .map(|b| (a, b))
        });
        let Some((a, b)) = pair else { return };
        let mut chain = pieces[a].0.clone();
        chain.extend_from_slice(&pieces[b].0);
        chain.sort_by(|&i, &j| projected[i].s.total_cmp(&projected[j].s));
        let row = fit_row(projected, &chain, blobs, dir);
        pieces[a] = (chain, row);
        pieces.swap_remove(b);
    }
}

/// True when `next` carries on the line of `row` past its end: it starts
/// within a word space of that end (a few glyphs when both are long), glyphs
/// of similar height, and each piece's centre lies on the other's line.
fn continues(row: &TextRow, next: &TextRow) -> bool {
    let h = row.height.max(next.height);
    let ratio = row.height / next.height;
    let gap = next.start - row.end;
    // Two long pieces may be a few glyphs apart, where glare washed them out;
    // two longer ones at one glyph spacing, up to eight glyphs apart.
    let long = row.members.len() >= 8 && next.members.len() >= 8;
    let longer = row.members.len() >= 12 && next.members.len() >= 12 && {
        let (a, b) = (median_spacing(row), median_spacing(next));
        a.min(b) > 0.8 * a.max(b)
    };
    let max_gap = if longer {
        9.0 * h
    } else if long {
        3.5 * h
    } else {
        1.5 * h
    };
    if !(0.5..=2.0).contains(&ratio) || !(-0.5 * h..=max_gap).contains(&gap) {
        return false;
    }
    let on_line = |a: &TextRow, b: &TextRow| {
        let mid = (b.start + b.end) / 2.0;
        (a.across_at(mid) - b.across_at(mid)).abs() < 0.4 * h
    };
    on_line(row, next) && on_line(next, row)
}

/// The usual distance between neighbouring glyphs of a row.
fn median_spacing(row: &TextRow) -> f32 {
    let along = |m: &((f32, f32), f32)| m.0.0 * row.dir.0 + m.0.1 * row.dir.1;
    let mut spacings: Vec<f32> =
        row.members.windows(2).map(|pair| (along(&pair[1]) - along(&pair[0])).abs()).collect();
    spacings.sort_by(f32::total_cmp);
    spacings.get(spacings.len() / 2).copied().unwrap_or(0.0)
}

/// Drops a blob at either end of a chain that sits more than twice the row's
/// usual spacing from its neighbour: a speck or a mark beyond the last glyph,
/// which would otherwise stretch the row past where its text ends.
fn trim_stray_ends(projected: &[Projected], chain: &mut Vec<usize>) {
    if chain.len() < 8 {
        return;
    }
    let mut spacings: Vec<f32> =
        chain.windows(2).map(|pair| projected[pair[1]].s - projected[pair[0]].s).collect();
    spacings.sort_by(f32::total_cmp);
    let limit = spacings[spacings.len() / 2] * 2.2;
    let gap = |a: usize, b: usize| projected[b].s - projected[a].s;
    while chain.len() >= 8 && gap(chain[0], chain[1]) > limit {
        chain.remove(0);
    }
    while chain.len() >= 8 && gap(chain[chain.len() - 2], chain[chain.len() - 1]) > limit {
        chain.pop();
    }
}

fn fit_row(
    projected: &[Projected],
    chain: &[usize],
    blobs: &[Component],
    dir: (f32, f32),
) -> TextRow {
    let mut heights: Vec<f32> = chain.iter().map(|&i| projected[i].height).collect();
    heights.sort_by(f32::total_cmp);
    // Letters and digits are full height; fillers are shorter, so take a high percentile.
    // The extent estimate adds a pixel for the sampling of the blob; take it back.
    let height = heights[(heights.len() * 3) / 4] - 1.0;
    let first = &projected[chain[0]];
    let last = &projected[chain[chain.len() - 1]];
    let start = first.s - first.len / 2.0;
    let end = last.s + last.len / 2.0;
    let centres = || {
        chain.iter().map(|&i| {
            let p = &projected[i];
            (p.s, p.t)
        })
    };
    let bent = fit_centre_line(centres());
    let (offset, slope) = fit_straight_line(centres());
    let straight = (offset, slope, 0.0, bent.3);
    // A straight line fits most rows. A bend counts once it moves the ends a
    // fair part of a glyph height off the line, and the glyphs follow it: it
    // halves the scatter of their centres about the line, where a few
    // misplaced centres (glyphs run into an edge) would move it by less.
    let squares = |(offset, slope, bend, bend_at): (f32, f32, f32, f32)| {
        let line =
            TextRow { dir, members: Vec::new(), height, start, end, offset, slope, bend, bend_at };
        centres().map(|(s, t)| (t - line.across_at(s)).powi(2)).sum::<f32>()
    };
    let sagitta = (bent.2 * (end - start).powi(2) / 4.0).abs();
    let (offset, slope, bend, bend_at) = if chain.len() >= MIN_BENT_ROW
        && sagitta >= MIN_BEND * height
        && squares(straight) >= 2.0 * squares(bent)
    {
        bent
    } else {
        straight
    };
    let members = chain
        .iter()
        .map(|&i| {
            let blob = &blobs[projected[i].idx];
            ((blob.cx, blob.cy), projected[i].len)
        })
        .collect();
    TextRow { dir, members, height, start, end, offset, slope, bend, bend_at }
}

/// The fewest blobs a row needs for its bend to be fitted.
const MIN_BENT_ROW: usize = 14;

/// The smallest bend fitted, as the distance in glyph heights between the
/// row's ends and a straight line through them and its middle.
const MIN_BEND: f32 = 0.15;

/// Least squares `t = offset + slope * s` over points `(s, t)`.
fn fit_straight_line(points: impl Iterator<Item = (f32, f32)>) -> (f32, f32) {
    let (mut m, mut ss, mut st, mut sss, mut sst) = (0.0f32, 0.0, 0.0, 0.0, 0.0);
    for (s, t) in points {
        m += 1.0;
        ss += s;
        st += t;
        sss += s * s;
        sst += s * t;
    }
    let denom = m * sss - ss * ss;
    let slope = if denom.abs() > 1e-3 { (m * sst - ss * st) / denom } else { 0.0 };
    ((st - slope * ss) / m, slope)
}

/// Least squares `t = offset + slope * s + bend * (s - bend_at)^2` over points
/// `(s, t)`, with `bend_at` their mean `s`; returns `(offset, slope, bend,
/// bend_at)`, with no bend when the points cannot fix one.
fn fit_centre_line(points: impl Iterator<Item = (f32, f32)> + Clone) -> (f32, f32, f32, f32) {
    let (n, sum_s) =
        points.clone().fold((0.0f64, 0.0f64), |(n, sum), (s, _)| (n + 1.0, sum + f64::from(s)));
    let mean = (sum_s / n.max(1.0)) as f32;
    // Normal equations of t = a + b u + c u^2 with u = s - mean, in f64.
    let mut m = [[0f64; 3]; 3];
    let mut r = [0f64; 3];
    for (s, t) in points {
        let u = f64::from(s - mean);
        let x = [1.0, u, u * u];
        for row in 0..3 {
            for col in 0..3 {
                m[row][col] += x[row] * x[col];
            }
            r[row] += x[row] * f64::from(t);
        }
    }
    match crate::geometry::solve3(&m, &r) {
        Some([a, b, c]) => ((a - b * f64::from(mean)) as f32, b as f32, c as f32, mean),
        None => (0.0, 0.0, 0.0, mean),
    }
}

/// Finds long glyph rows at every orientation.
pub(crate) fn find_rows(blobs: &[Component]) -> Vec<TextRow> {
    let mut rows = Vec::new();
    // Twelve directions 15 degrees apart: each row tolerates about 20 degrees
    // of mismatch, so every tilt is covered at least once.
    for step in 0..12 {
        let angle = (step as f32 * 15.0).to_radians();
        rows.extend(rows_at_angle(blobs, angle));
    }
    rows
}

/// Groups parallel rows of similar length and height, stacked at MRZ line
/// spacing, into candidate MRZs; the best looking come first.
pub(crate) fn mrz_candidates(rows: &[TextRow]) -> Vec<MrzCandidate> {
    let mut scored: Vec<(f32, MrzCandidate)> = Vec::new();
    for (i, a) in rows.iter().enumerate() {
        for (j, b) in rows.iter().enumerate() {
            if i == j || a.dir != b.dir {
                continue;
            }
            if !stacked(a, b) {
                continue;
            }
            // b lies one line below a. Look for a third row below b.
            let third = rows
                .iter()
                .enumerate()
                .find(|&(k, c)| k != i && k != j && c.dir == a.dir && stacked(b, c));
            let mut group = vec![a.clone(), b.clone()];
            if let Some((_, c)) = third {
                group.push(c.clone());
            }
            let n_members: usize = group.iter().map(|r| r.members.len()).sum();
            let score = n_members as f32 + if group.len() == 3 { 10.0 } else { 0.0 };
            scored.push((score, MrzCandidate { rows: group }));
        }
    }
    scored.sort_by(|x, y| y.0.total_cmp(&x.0));
    // Drop candidates whose first row duplicates a better one (same place, other angle).
    let mut kept: Vec<MrzCandidate> = Vec::new();
    for (_, candidate) in scored {
        let centre = row_centre(&candidate.rows[0]);
        let duplicate = kept.iter().any(|k| {
            let other = row_centre(&k.rows[0]);
            let near = (centre.0 - other.0).hypot(centre.1 - other.1) < k.rows[0].height;
            near && k.rows.len() >= candidate.rows.len()
        });
        if !duplicate {
            kept.push(candidate);
        }
    }
    kept
}

fn row_centre(row: &TextRow) -> (f32, f32) {
    row.point_at((row.start + row.end) / 2.0)
}

/// True when `lower` sits one MRZ line below `upper`, parallel and aligned.
fn stacked(upper: &TextRow, lower: &TextRow) -> bool {
    let h = upper.height.max(lower.height);
    let ratio = upper.height / lower.height;
    if !(0.7..=1.45).contains(&ratio) {
        return false;
    }
    let mid = (upper.start + upper.end) / 2.0;
    let dt = lower.across_at(mid) - upper.across_at(mid);
    // Blurred glyphs binarise taller than they are, so the spacing is measured
    // against a generous height.
    if !(0.9 * h..=2.8 * h).contains(&dt) {
        return false;
    }
    // MRZ lines start and end together. One end may lose faint or washed-out
    // glyphs; then the other end must line up closely.
    let (la, lb) = (upper.length(), lower.length());
    let (d_start, d_end) = ((upper.start - lower.start).abs(), (upper.end - lower.end).abs());
    let both_ends = la.min(lb) >= 0.8 * la.max(lb)
        && d_start.min(d_end) < 2.0 * h
        && d_start.max(d_end) < 4.0 * h;
    let one_end = la.min(lb) >= 0.5 * la.max(lb) && d_start.min(d_end) < 1.0 * h;
    both_ends || one_end
}

/// Runs blob finding and row grouping on a working image.
pub(crate) fn locate(work: &Gray, darkness: Darkness) -> (Vec<MrzCandidate>, LocateReport) {
    let (blobs, runs) = glyph_blobs(work, darkness);
    let mut rows = find_rows(&blobs);
    let mut candidates = mrz_candidates(&rows);
    // Blur along the lines runs their glyphs together into blobs too long to be glyphs, and
    // the rows fall apart. Where no zone was seen, such runs are cut into glyph-wide pieces.
    if candidates.is_empty() && !runs.is_empty() {
        let cut_rows = runs::rows_with_pieces(blobs, &runs);
        candidates = mrz_candidates(&cut_rows);
        if !candidates.is_empty() {
            rows = cut_rows;
        }
    }
    let long_rows: Vec<&TextRow> = rows.iter().filter(|r| r.length() > r.height * 20.0).collect();
    let report = LocateReport {
        n_long_rows: long_rows.len(),
        longest_row: long_rows
            .iter()
            .max_by(|a, b| a.length().total_cmp(&b.length()))
            .map(|r| (*r).clone()),
        n_candidates: candidates.len(),
        another_zone: None,
    };
    (candidates, report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn along(positions: &[f32]) -> Vec<Projected> {
        positions
            .iter()
            .enumerate()
            .map(|(idx, &s)| Projected { s, t: 0.0, len: 8.0, height: 12.0, idx })
            .collect()
    }

    #[test]
    fn a_speck_beyond_the_end_of_a_row_is_dropped() {
        let mut positions = vec![-34.0];
        positions.extend((0..12).map(|k| k as f32 * 12.5));
        positions.push(11.0 * 12.5 + 40.0);
        let projected = along(&positions);
        let mut chain: Vec<usize> = (0..projected.len()).collect();
        trim_stray_ends(&projected, &mut chain);
        assert_eq!(chain, (1..13).collect::<Vec<_>>());
    }

    fn row_of(positions: &[f32], across: f32) -> TextRow {
        let members = positions.iter().map(|&s| ((s, across), 8.0)).collect();
        let ends = (positions[0] - 4.0, positions[positions.len() - 1] + 4.0);
        TextRow::straight(members, ends, across, 0.0)
    }

    #[test]
    fn pieces_of_one_line_continue_each_other_and_the_next_line_does_not() {
        let left: Vec<f32> = (0..12).map(|k| k as f32 * 12.0).collect();
        // Three glyphs washed out between the pieces.
        let right: Vec<f32> = (15..36).map(|k| k as f32 * 12.0).collect();
        assert!(continues(&row_of(&left, 100.0), &row_of(&right, 102.0)));
        assert!(!continues(&row_of(&right, 102.0), &row_of(&left, 100.0)));
        // The line below, and a piece too far along.
        assert!(!continues(&row_of(&left, 100.0), &row_of(&right, 118.0)));
        let far: Vec<f32> = (20..36).map(|k| k as f32 * 12.0).collect();
        assert!(!continues(&row_of(&left[1..], 100.0), &row_of(&far, 100.0)));
        // Two pieces of twelve glyphs or more at one spacing may lie eight glyphs
        // apart, not twelve, and not at different spacings.
        assert!(continues(&row_of(&left, 100.0), &row_of(&far, 100.0)));
        let farther: Vec<f32> = (24..40).map(|k| k as f32 * 12.0).collect();
        assert!(!continues(&row_of(&left, 100.0), &row_of(&farther, 100.0)));
        let wider: Vec<f32> = (12..24).map(|k| k as f32 * 16.0).collect();
        assert!(!continues(&row_of(&left, 100.0), &row_of(&wider, 100.0)));
        // A short piece must start within a word space.
        let short: Vec<f32> = (15..21).map(|k| k as f32 * 12.0).collect();
        assert!(!continues(&row_of(&left, 100.0), &row_of(&short, 100.0)));
    }

    #[test]
    fn mrz_lines_stack_when_both_ends_or_one_end_line_up() {
        let full: Vec<f32> = (0..44).map(|k| k as f32 * 12.0).collect();
        // The other line lost its last six glyphs: one end lines up exactly.
        let shortened: Vec<f32> = (0..38).map(|k| k as f32 * 12.0).collect();
        assert!(stacked(&row_of(&full, 100.0), &row_of(&shortened, 118.0)));
        assert!(stacked(&row_of(&full, 100.0), &row_of(&full, 118.0)));
        // Neither end lines up.
        let shifted: Vec<f32> = (4..40).map(|k| k as f32 * 12.0).collect();
        assert!(!stacked(&row_of(&full, 100.0), &row_of(&shifted, 118.0)));
        // Too far apart to be the next line.
        assert!(!stacked(&row_of(&full, 100.0), &row_of(&full, 150.0)));
    }

    /// A row of 44 glyph blobs 12 px apart whose centres lie `sag` pixels
    /// across from a straight line at the ends, none in the middle.
    fn bent_row(sag: f32) -> TextRow {
        row_through(|k| {
            let u = (k as f32 - 21.5) / 21.5;
            200.0 + 0.1 * k as f32 + sag * u * u
        })
    }

    /// A row of 44 glyph blobs 12 px apart, blob `k` centred `across(k)` across.
    fn row_through(across: impl Fn(usize) -> f32) -> TextRow {
        let centres: Vec<(f32, f32)> =
            (0..44).map(|k| (100.0 + 12.0 * k as f32, across(k))).collect();
        let blobs: Vec<Component> = centres
            .iter()
            .map(|&(cx, cy)| Component { cx, cy, vxx: 8.0, vyy: 12.0, vxy: 0.0, area: 60 })
            .collect();
        let projected: Vec<Projected> = centres
            .iter()
            .enumerate()
            .map(|(idx, &(s, t))| Projected { s, t, len: 8.0, height: 13.0, idx })
            .collect();
        let chain: Vec<usize> = (0..44).collect();
        fit_row(&projected, &chain, &blobs, (1.0, 0.0))
    }

    #[test]
    fn a_bent_row_follows_its_bend_and_a_straight_one_stays_straight() {
        // Ends 8 px (two thirds of a glyph) off the line through the middle.
        let bent = bent_row(8.0);
        for k in [0usize, 10, 21, 33, 43] {
            let u = (k as f32 - 21.5) / 21.5;
            let s = 100.0 + 12.0 * k as f32;
            let want = 200.0 + 0.1 * k as f32 + 8.0 * u * u;
            assert!((bent.across_at(s) - want).abs() < 0.05, "cell {k}: {}", bent.across_at(s));
        }
        // The slope turns along it: down the left half, up the right.
        assert!(bent.slope_at(100.0) < -0.03 && bent.slope_at(616.0) > 0.03);
        // A bend under 0.15 glyph heights is left to the straight line.
        let nearly = bent_row(1.5);
        assert_eq!(nearly.bend, 0.0);
        assert!((nearly.slope - 0.1 / 12.0).abs() < 1e-3, "{}", nearly.slope);
        // A straight row whose first four glyphs ran into the edge of the page,
        // their centres pulled 5 px across, is no bent one: a parabola would
        // move the first cells off their glyphs.
        let pulled = row_through(|k| 200.0 + if k < 4 { 5.0 } else { 0.0 });
        assert_eq!(pulled.bend, 0.0);
        assert!(pulled.across_at(400.0) < 200.8, "{}", pulled.across_at(400.0));
    }

    #[test]
    fn an_evenly_spaced_row_keeps_every_glyph() {
        // Two glyphs merged into one blob make one spacing half as long again.
        let mut positions: Vec<f32> = (0..10).map(|k| k as f32 * 12.0).collect();
        positions.push(9.0 * 12.0 + 18.0);
        let projected = along(&positions);
        let mut chain: Vec<usize> = (0..projected.len()).collect();
        trim_stray_ends(&projected, &mut chain);
        assert_eq!(chain.len(), projected.len());
    }
}
