//! Recognition: laying fixed-pitch cells over located rows, classifying them
//! and choosing the reading direction and line length the check digits prefer.

use mrtd_mrz::{CellCandidates, ParseOptions};

use crate::attempt::{Attempt, rank};
use crate::attempt::{decode, mean_log_confidence};
use crate::cells::{CELL_LEN, CellGeometry, Margins, sample_cell};
use crate::gray::Gray;
use crate::locate::{MrzCandidate, TextRow};
use crate::model::{ALPHABET, Classifier, N_CLASSES};

/// How many alternatives per cell are passed to the decoder.
const TOP_K: usize = 4;

/// Turns a row around, so that it reads in the opposite direction.
fn reversed(row: &TextRow) -> TextRow {
    TextRow {
        dir: (-row.dir.0, -row.dir.1),
        members: row.members.iter().rev().copied().collect(),
        height: row.height,
        start: -row.end,
        end: -row.start,
        offset: -row.offset,
        slope: row.slope,
        bend: -row.bend,
        bend_at: -row.bend_at,
    }
}

/// The cells a row's blobs occupy: every MRZ cell holds a glyph, so walking
/// from blob to blob in steps of the typical spacing numbers the cells.
struct RowIndex {
    /// Number of cells from the first blob to the last.
    span: usize,
    /// Single-glyph blobs as (cell index, position along the row), the pieces
    /// of a broken glyph as one at their mean position.
    pairs: Vec<(f32, f32)>,
}

/// How much of the running pitch estimate each glyph-to-glyph step keeps.
const LOCAL_PITCH_KEEP: f32 = 0.7;

fn index_row(row: &TextRow) -> Option<RowIndex> {
    let members: Vec<(f32, f32)> =
        row.members.iter().map(|((x, y), len)| (x * row.dir.0 + y * row.dir.1, *len)).collect();
    let single = |len: f32| len < row.height * 1.3;
    // Steps between neighbouring single glyphs, in order along the row.
    let steps: Vec<f32> = members
        .windows(2)
        .filter(|w| single(w[0].1) && single(w[1].1))
        .map(|w| w[1].0 - w[0].0)
        .collect();
    let mut gaps: Vec<f32> =
        steps.iter().copied().filter(|&d| d > row.height * 0.6 && d < row.height * 1.8).collect();
    if gaps.len() < 6 {
        return None;
    }
    gaps.sort_by(f32::total_cmp);
    let pitch = gaps[gaps.len() / 2];
    // Cells covered by a blob of length `len` (touching fillers merge into one)
    // where the pitch is `local`.
    let covered = |len: f32, local: f32| {
        if single(len) { 1.0 } else { (((len - 0.6 * local) / local).round() + 1.0).max(1.0) }
    };
    // The pitch where each member lies: under a steep view a line's pitch can
    // double along it, so steps are counted in the pitch of the glyphs just
    // passed, starting from the median of the first few steps, rather than in
    // the median of all (a step of 1.5 median pitches at the near end is one cell).
    let mut first_gaps: Vec<f32> =
        steps.into_iter().filter(|&d| d > 0.5 * pitch && d < 2.0 * pitch).take(5).collect();
    first_gaps.sort_by(f32::total_cmp);
    let start_pitch = first_gaps.get(first_gaps.len() / 2).copied().unwrap_or(pitch);
    let mut local = start_pitch;
    let mut index = vec![0.0f32; members.len()];
    let first = index[0] - (covered(members[0].1, local) - 1.0) / 2.0;
    for i in 1..members.len() {
        let gap = members[i].0 - members[i - 1].0;
        let step = gap / local;
        // Half of each blob's cells beyond its middle one lie between the two
        // centres; the whole cells between the blobs are counted. A step under
        // half a pitch between single glyphs stays in the cell: pieces of one
        // glyph that the binarisation broke apart (a thin stroke lost at low light).
        let halves = (covered(members[i - 1].1, local) - 1.0) / 2.0
            + (covered(members[i].1, local) - 1.0) / 2.0;
        let cells = (step - halves).round().max(0.0);
        if single(members[i].1) && single(members[i - 1].1) && cells >= 1.0 {
            let seen = (gap / cells).clamp(0.5 * pitch, 2.0 * pitch);
            local = LOCAL_PITCH_KEEP * local + (1.0 - LOCAL_PITCH_KEEP) * seen;
        }
        index[i] = index[i - 1] + halves + cells;
    }
    let last_idx = members.len() - 1;
    let last = index[last_idx] + (covered(members[last_idx].1, local) - 1.0) / 2.0;
    let span = (last - first).round() as usize + 1;
    // Pieces of one broken glyph share its cell, which lies between them.
    let mut pairs: Vec<(f32, f32)> = Vec::new();
    let mut pieces = 0.0f32;
    for (member, &k) in members.iter().zip(&index).filter(|(m, _)| single(m.1)) {
        let cell = (k - first).round();
        match pairs.last_mut() {
            Some(last) if last.0 == cell => {
                pieces += 1.0;
                last.1 += (member.0 - last.1) / pieces;
            }
            _ => {
                pieces = 1.0;
                pairs.push((cell, member.0));
            }
        }
    }
    Some(RowIndex { span, pairs })
}

/// Where cell `k` of a row lies along it: `(a + b k) / (1 + d k)`, the image of
/// evenly spaced points under a perspective view of the line (`d = 0` is a flat,
/// frontal view). A quadratic cannot follow the pitch of a strongly foreshortened
/// line, which can grow by half from one end to the other.
#[derive(Clone, Copy, Debug)]
struct Spacing {
    a: f32,
    b: f32,
    d: f32,
}

impl Spacing {
    fn linear(first: f32, pitch: f32) -> Spacing {
        Spacing { a: first, b: pitch, d: 0.0 }
    }

    fn at(&self, k: f32) -> f32 {
        (self.a + self.b * k) / (1.0 + self.d * k)
    }

    /// The (fractional) cell index at position `s`.
    fn index_of(&self, s: f32) -> f32 {
        (s - self.a) / (self.b - self.d * s)
    }

    fn pitch_at(&self, k: f32) -> f32 {
        (self.b - self.a * self.d) / (1.0 + self.d * k).powi(2)
    }

    /// Whether the model is a plausible row of `n` cells near the expected pitch:
    /// positive pitch everywhere, ends within a factor 2.5 of each other (a page
    /// seen so steeply that its far side is 60 % of its near side's height).
    fn plausible(&self, n: usize, pitch: f32) -> bool {
        let last = (n - 1) as f32;
        if 1.0 + self.d * last <= 0.2 {
            return false;
        }
        let (p0, p1) = (self.pitch_at(0.0), self.pitch_at(last));
        let mean = (self.at(last) - self.at(0.0)) / last;
        p0 > 0.0 && p1 > 0.0 && p0.max(p1) < 2.5 * p0.min(p1) && (mean - pitch).abs() < 0.25 * pitch
    }
}

/// Where along a row its blobs of one glyph lie (not touching fillers merged into one).
fn single_glyphs(row: &TextRow) -> Vec<f32> {
    row.members
        .iter()
        .filter(|(_, len)| *len < row.height * 1.3)
        .map(|((x, y), _)| x * row.dir.0 + y * row.dir.1)
        .collect()
}

/// Places `n` cell centres along a row: from the blob numbering when it
/// finds exactly `n` cells, otherwise by spreading `n` cells between the row
/// ends; either way refined by a least-squares fit of single-glyph blobs to
/// their cells, with perspective when the data supports it.
fn cell_positions(row: &TextRow, n: usize) -> Option<Vec<f32>> {
    let (mut spacing, mut pairs) = match index_row(row) {
        Some(index) if index.span == n => {
            let pairs = index.pairs.clone();
            let (a, b) = fit_linear(&pairs)?;
            (Spacing::linear(a, b), pairs)
        }
        _ => {
            let pitch = row.length() / (n as f32 - 0.3);
            (Spacing::linear(row.start + pitch * 0.35, pitch), Vec::new())
        }
    };
    let pitch = spacing.b;
    let singles = single_glyphs(row);
    let trusted = !pairs.is_empty();
    for round in 0..3 {
        if !trusted {
            pairs.clear();
            for &s in &singles {
                let k = spacing.index_of(s).round();
                if k < 0.0 || k > (n - 1) as f32 {
                    continue;
                }
                if (s - spacing.at(k)).abs() < spacing.pitch_at(k) * 0.4 {
                    pairs.push((k, s));
                }
            }
        } else if round > 0 {
            // Drop blobs that sit far from their cell (a stray mark, a split glyph).
            pairs.retain(|&(k, s)| (s - spacing.at(k)).abs() < spacing.pitch_at(k) * 0.3);
        }
        if pairs.len() < n / 3 {
            break;
        }
        let fit = if pairs.len() > n / 2 {
            fit_projective(&pairs)
        } else {
            fit_linear(&pairs).map(|(a, b)| Spacing::linear(a, b))
        };
        match fit {
            Some(fit) if fit.plausible(n, pitch) => spacing = fit,
            _ => break,
        }
    }
    Some((0..n).map(|k| spacing.at(k as f32)).collect())
}

/// The number of cells the blob numbering finds in each row, when they agree.
fn counted_length(candidate: &MrzCandidate) -> Option<usize> {
    let spans: Vec<usize> = candidate.rows.iter().filter_map(index_row).map(|i| i.span).collect();
    spans.iter().copied().find(|&s| mrtd_mrz::ZONE_SHAPES.iter().any(|shape| shape.1 == s))
}

fn fit_linear(pairs: &[(f32, f32)]) -> Option<(f32, f32)> {
    let m = pairs.len() as f32;
    let (sx, sy) = pairs.iter().fold((0.0, 0.0), |acc, p| (acc.0 + p.0, acc.1 + p.1));
    let (mx, my) = (sx / m, sy / m);
    let sxx: f32 = pairs.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    let sxy: f32 = pairs.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    if sxx < 1e-3 {
        return None;
    }
    let b = sxy / sxx;
    Some((my - b * mx, b))
}

/// Least squares for `s (1 + d k) = a + b k`, the linearised perspective model,
/// solved in f64 by Cramer's rule.
fn fit_projective(pairs: &[(f32, f32)]) -> Option<Spacing> {
    let mut m = [[0f64; 3]; 3];
    let mut t = [0f64; 3];
    for &(k, s) in pairs {
        let (k, s) = (f64::from(k), f64::from(s));
        let x = [1.0, k, -s * k];
        for row in 0..3 {
            for col in 0..3 {
                m[row][col] += x[row] * x[col];
            }
            t[row] += x[row] * s;
        }
    }
    let solution = crate::geometry::solve3(&m, &t)?;
    let [a, b, d] = solution.map(|v| v as f32);
    [a, b, d].iter().all(|v| v.is_finite()).then_some(Spacing { a, b, d })
}

/// Cell geometry for a row, in original image pixels.
fn row_cells(row: &TextRow, positions: &[f32], scale: f32) -> Vec<CellGeometry> {
    let n = positions.len();
    let normal = row.normal();
    let inv = 1.0 / scale;
    let pitches: Vec<f32> = (0..n)
        .map(|k| {
            if k + 1 < n {
                positions[k + 1] - positions[k]
            } else {
                positions[k] - positions[k - 1]
            }
        })
        .collect();
    // The row's height is taken from its taller glyphs, so it belongs with its
    // wider pitches. Under perspective a glyph shrinks across the line as the
    // square root of its shrinking along it (a tilt foreshortens the pitch
    // twice over), so each cell's height follows its own pitch.
    let reference = {
        let mut sorted = pitches.clone();
        sorted.sort_by(f32::total_cmp);
        sorted[(sorted.len() * 3) / 4]
    };
    positions
        .iter()
        .enumerate()
        .map(|(k, &s)| {
            let pitch = pitches[k];
            let (x, y) = row.point_at(s);
            // The fitted row direction here, which may differ from the search
            // angle by a few degrees (and along a bent row, from cell to cell);
            // the cell's vertical is square to it, until `shear_to_columns`
            // leans it along its column.
            let slope = row.slope_at(s);
            let norm = (1.0 + slope * slope).sqrt();
            let unit =
                ((row.dir.0 + normal.0 * slope) / norm, (row.dir.1 + normal.1 * slope) / norm);
            let height = row.height * inv * (pitch / reference).sqrt();
            // Positions are measured along the search direction; the distance
            // along the fitted line is longer by `norm`.
            let step = pitch * norm * inv;
            CellGeometry {
                centre: (x * inv, y * inv),
                along: (unit.0 * step, unit.1 * step),
                across: (-unit.1 * height, unit.0 * height),
            }
        })
        .collect()
}

/// Tilts each cell's vertical along its column, the line through the same
/// cell of every line, where that line turns across the MRZ: under a strong
/// perspective a document's verticals converge, and the glyphs at the ends of
/// the lines lean by as much as 20 degrees against the square the rows give.
/// Only the lean that changes along the lines is followed, fitted as a linear
/// function of the cell index: a constant one cannot be told apart from lines
/// printed a fraction of a pitch out of register.
fn shear_to_columns(cells: &mut [Vec<CellGeometry>]) {
    let n = cells.iter().map(Vec::len).min().unwrap_or(0);
    if cells.len() < 2 || n < 2 {
        return;
    }
    // The lean of each column: along-line over across-line travel from one
    // line's cell to the next line's, as measured in the first line's frame.
    let leans: Vec<(f32, f32)> = (0..n)
        .filter_map(|k| {
            let (mut along, mut across) = (0.0, 0.0);
            for pair in cells.windows(2) {
                let (upper, lower) = (&pair[0][k], &pair[1][k]);
                let d = (lower.centre.0 - upper.centre.0, lower.centre.1 - upper.centre.1);
                let unit = unit(upper.along)?;
                along += d.0 * unit.0 + d.1 * unit.1;
                across += -d.0 * unit.1 + d.1 * unit.0;
            }
            (across > 0.0).then(|| (k as f32, along / across))
        })
        .collect();
    let Some((_, change)) = fit_linear(&leans) else { return };
    let middle = (n - 1) as f32 / 2.0;
    // Below a degree or so at the ends, the square cells stand.
    if (change * middle).abs() < MIN_LEAN {
        return;
    }
    for line in cells.iter_mut() {
        for (k, cell) in line.iter_mut().enumerate() {
            let lean = (change * (k as f32 - middle)).clamp(-MAX_LEAN, MAX_LEAN);
            let Some(unit) = unit(cell.along) else { continue };
            let height = cell.across.0.hypot(cell.across.1);
            // Straight down the cell, plus the lean along the line.
            cell.across = ((-unit.1 + lean * unit.0) * height, (unit.0 + lean * unit.1) * height);
        }
    }

    fn unit(v: (f32, f32)) -> Option<(f32, f32)> {
        let length = v.0.hypot(v.1);
        (length > 0.0).then(|| (v.0 / length, v.1 / length))
    }
}

/// The smallest lean followed at the ends of the lines (tangent of the angle).
const MIN_LEAN: f32 = 0.03;

/// The largest lean followed (tangent of the angle).
const MAX_LEAN: f32 = 0.5;

/// Cell positions for every row of a candidate. A row whose blobs number
/// exactly `n` cells is placed on its own; a row that lost glyphs (faint, washed
/// out, merged) follows the columns of the nearest complete row, moved by the
/// median offset of its own glyphs, because the lines of an MRZ share their columns.
fn rows_positions(rows: &[TextRow], n: usize) -> Option<Vec<Vec<f32>>> {
    let own: Vec<Vec<f32>> =
        rows.iter().map(|row| cell_positions(row, n)).collect::<Option<Vec<_>>>()?;
    let complete: Vec<bool> =
        rows.iter().map(|row| index_row(row).is_some_and(|i| i.span == n)).collect();
    // Complete rows are never changed, so an incomplete row reads its neighbour's
    // columns from the same vector it is written into.
    let mut result = own;
    for (idx, row) in rows.iter().enumerate() {
        if complete[idx] {
            continue;
        }
        let Some(neighbour) =
            (0..rows.len()).filter(|&j| complete[j]).min_by_key(|&j| j.abs_diff(idx))
        else {
            continue;
        };
        let columns = &result[neighbour];
        let pitch = (columns[n - 1] - columns[0]) / (n - 1) as f32;
        // Columns run square to the text, which may lie a few degrees off the
        // search direction: going across to this row moves them along it by
        // the slope times the distance between the rows.
        let mid = (columns[0] + columns[n - 1]) / 2.0;
        let across = row.across_at(mid) - rows[neighbour].across_at(mid);
        let expected = -row.slope_at(mid) * across;
        let singles = single_glyphs(row);
        let mut offsets: Vec<f32> = singles
            .iter()
            .filter_map(|&s| {
                let s = s - expected;
                let nearest =
                    columns.iter().map(|c| s - c).min_by(|a, b| a.abs().total_cmp(&b.abs()))?;
                (nearest.abs() < 0.4 * pitch).then_some(nearest)
            })
            .collect();
        if offsets.len() < n / 3 {
            continue;
        }
        offsets.sort_by(f32::total_cmp);
        let shift = expected + offsets[offsets.len() / 2];
        let (a, b) = scaled_columns(columns, &singles, shift);
        result[idx] = columns.iter().map(|c| a + b * c).collect();
    }
    Some(result)
}

/// Maps a neighbour's columns onto a row as `a + b * column`: the shift alone
/// (`b` = 1) unless the row's glyphs say its line is drawn at another scale by
/// more than one per cent. Under a strong perspective the line nearer the
/// camera is the wider, and one shift leaves the far ends of the other off
/// their glyphs by most of a pitch.
fn scaled_columns(columns: &[f32], singles: &[f32], shift: f32) -> (f32, f32) {
    let n = columns.len();
    let pitch = (columns[n - 1] - columns[0]) / (n - 1) as f32;
    let (middle, half) = ((columns[0] + columns[n - 1]) / 2.0, (columns[n - 1] - columns[0]) / 2.0);
    let mut map = (shift, 1.0f32);
    // Glyphs are matched to columns from the middle out, where a wrong scale
    // moves them least, and the map refitted as the window widens.
    for window in [0.35, 0.7, 1.1] {
        let residual = |s: f32, c: f32| s - map.0 - map.1 * c;
        let pairs: Vec<(f32, f32)> = singles
            .iter()
            .filter_map(|&s| {
                let nearest = columns
                    .iter()
                    .min_by(|x, y| residual(s, **x).abs().total_cmp(&residual(s, **y).abs()))?;
                let close = residual(s, *nearest).abs() < 0.4 * pitch * map.1;
                (close && (nearest - middle).abs() <= window * half).then_some((*nearest, s))
            })
            .collect();
        if pairs.len() < n / 6 {
            break;
        }
        match fit_linear(&pairs) {
            Some((a, b)) if (0.85..=1.15).contains(&b) => map = (a, b),
            _ => break,
        }
    }
    if (map.1 - 1.0).abs() < 0.01 { (shift, 1.0) } else { map }
}

/// One line's cells as classified.
struct Classified {
    candidates: Vec<CellCandidates>,
    contrast: Vec<f32>,
    covered: Vec<bool>,
}

/// A cell whose likeliest symbol the classifier gives less than this is looked at again:
/// the perceptron is not shift-invariant, so where it hesitates, where the cell was cut a
/// fraction of a pixel off decides. Its probabilities become the mean over the cell as cut
/// and [`NUDGES`] of it. Sure cells (most of them) cost nothing more.
const LOOK_AGAIN_BELOW: f32 = 0.9;
/// The nudged cuts of a doubtful cell: moved along the line (in pitches) and across it (in
/// glyph heights), less than the localiser's own error (the training jitter is 0.15 and
/// 0.12). Measured on the synthetic and robustness sets in the engine README.
const NUDGES: [(f32, f32); 4] = [(0.08, 0.0), (-0.08, 0.0), (0.0, 0.06), (0.0, -0.06)];

/// The cell moved `along` pitches along the line and `across` glyph heights across it.
fn nudged(cell: &CellGeometry, (along, across): (f32, f32)) -> CellGeometry {
    CellGeometry {
        centre: (
            cell.centre.0 + cell.along.0 * along + cell.across.0 * across,
            cell.centre.1 + cell.along.1 * along + cell.across.1 * across,
        ),
        ..*cell
    }
}

/// A line with more doubtful cells than this share of it is not looked at again. A line of
/// the zone cut a fraction off has a few doubtful cells; the lines with a third to a half of
/// them are the other attempts (a line read backwards, at the wrong length) and print or
/// noise that is no MRZ, where the nudged cuts made a photo without an MRZ cost half as much
/// again. Measured in the engine README: no set read less, and reading got faster.
const MOST_DOUBTFUL: f32 = 0.25;

/// Whether the classifier hesitates over a cell whose probabilities these are.
fn doubtful(probabilities: &[f32; N_CLASSES]) -> bool {
    probabilities.iter().copied().fold(0.0, f32::max) < LOOK_AGAIN_BELOW
}

/// The probabilities of a doubtful cell, `as_cut`, made the mean over it and its nudged cuts.
fn looked_at_again(
    model: &Classifier,
    image: &Gray,
    cell: &CellGeometry,
    as_cut: &mut [f32; N_CLASSES],
    input: &mut [f32; CELL_LEN],
    hidden: &mut [f32],
) {
    let mut again = [0.0f32; N_CLASSES];
    for nudge in NUDGES {
        sample_cell(image, &nudged(cell, nudge), Margins::Repaint, input);
        model.classify(input, hidden, &mut again);
        for (sum, p) in as_cut.iter_mut().zip(&again) {
            *sum += p;
        }
    }
    for sum in as_cut.iter_mut() {
        *sum /= (NUDGES.len() + 1) as f32;
    }
}

/// Classifies cells and keeps the top few symbols of each. The cells are judged as cut,
/// then the doubtful ones again on nudged cuts, unless most of the line is doubtful
/// ([`MOST_DOUBTFUL`]).
fn classify(model: &Classifier, image: &Gray, cells: &[CellGeometry]) -> Classified {
    let mut input = [0.0f32; CELL_LEN];
    let mut hidden = vec![0.0f32; model.hidden_len()];
    let mut contrast = Vec::with_capacity(cells.len());
    let mut covered = Vec::with_capacity(cells.len());
    let mut probabilities: Vec<[f32; N_CLASSES]> = Vec::with_capacity(cells.len());
    for cell in cells {
        // Whether the margin is covered, and the contrast, are the cell's as cut.
        let sampled = sample_cell(image, cell, Margins::Repaint, &mut input);
        contrast.push(sampled.contrast);
        covered.push(sampled.covered);
        let mut as_cut = [0.0f32; N_CLASSES];
        model.classify(&input, &mut hidden, &mut as_cut);
        probabilities.push(as_cut);
    }
    let n_doubtful = probabilities.iter().filter(|p| doubtful(p)).count();
    if n_doubtful as f32 <= MOST_DOUBTFUL * cells.len() as f32 {
        for (cell, p) in cells.iter().zip(probabilities.iter_mut()) {
            if doubtful(p) {
                looked_at_again(model, image, cell, p, &mut input, &mut hidden);
            }
        }
    }
    let candidates = probabilities
        .iter()
        .map(|probabilities| {
            let mut ranked: Vec<(char, f32)> = probabilities
                .iter()
                .enumerate()
                .map(|(idx, &p)| (char::from(ALPHABET[idx]), p))
                .collect();
            ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
            ranked.truncate(TOP_K);
            CellCandidates::new(ranked)
        })
        .collect();
    Classified { candidates, contrast, covered }
}

/// Line lengths worth trying for a candidate, from its shape.
fn line_lengths(candidate: &MrzCandidate) -> Vec<usize> {
    if candidate.rows.len() == 3 {
        return mrtd_mrz::line_widths(3);
    }
    let widths = mrtd_mrz::line_widths(2);
    if let Some(n) = counted_length(candidate).filter(|n| widths.contains(n)) {
        return vec![n];
    }
    let row = &candidate.rows[0];
    let ratio = row.length() / row.height;
    // Pitch is about 1.0-1.2 glyph heights, so a 44 line is ~44-53 heights long.
    let mut lengths = Vec::new();
    for n in widths {
        let pitch_ratio = ratio / n as f32;
        if (0.8..=1.5).contains(&pitch_ratio) {
            lengths.push(n);
        }
    }
    lengths
}

/// Reads a candidate MRZ in both directions at each plausible line length and
/// returns every attempt that decodes, best first.
/// A row moved across by `shift` (in working pixels), for a line the localiser missed.
fn shifted(row: &TextRow, shift: f32) -> TextRow {
    let normal = row.normal();
    TextRow {
        members: row
            .members
            .iter()
            .map(|&((x, y), len)| ((x + normal.0 * shift, y + normal.1 * shift), len))
            .collect(),
        offset: row.offset + shift,
        ..row.clone()
    }
}

/// What reading a candidate needs: the classifier, the image in its original pixels, the
/// working image's scale, and how to parse.
#[derive(Clone, Copy)]
pub(crate) struct Reader<'a> {
    pub(crate) model: &'a Classifier,
    pub(crate) original: &'a Gray,
    pub(crate) scale: f32,
    pub(crate) options: &'a ParseOptions,
}

impl Reader<'_> {
    /// Reads a candidate; two rows of 30 cells are an ID card with one row
    /// missed (washed out, or its fillers merged), so the third is tried above
    /// and below at the same spacing.
    pub(crate) fn read_candidate(&self, candidate: &MrzCandidate) -> Vec<Attempt> {
        let mut attempts = self.read_rows(candidate);
        let card_width = mrtd_mrz::line_widths(3);
        if candidate.rows.len() == 2
            && counted_length(candidate).is_some_and(|n| card_width.contains(&n))
        {
            let (a, b) = (&candidate.rows[0], &candidate.rows[1]);
            let mid = (a.start + a.end) / 2.0;
            let spacing = b.across_at(mid) - a.across_at(mid);
            let below = vec![a.clone(), b.clone(), shifted(b, spacing)];
            let above = vec![shifted(a, -spacing), a.clone(), b.clone()];
            for rows in [below, above] {
                attempts.extend(self.read_rows(&MrzCandidate { rows }));
            }
            attempts.sort_by(|x, y| rank(y).total_cmp(&rank(x)));
        }
        // Two rows that do not read as an MRZ may be lines of 36 or 44 with glare
        // or shadow over one end (two rows of 36, the lines of a passport or visa):
        // the rows are lengthened by the missing cells at either end and read again.
        let widths = mrtd_mrz::line_widths(2);
        let span = match counted_length(candidate) {
            Some(n) if widths.contains(&n) => Some(n),
            _ => candidate.rows.iter().filter_map(index_row).map(|i| i.span).max(),
        };
        if candidate.rows.len() == 2
            && let Some(span) = span.filter(|&s| s >= 20)
            && attempts.first().is_none_or(|a| !a.reading.valid)
        {
            let pitch = candidate
                .rows
                .iter()
                .map(|row| row.length() / (span as f32 - 0.3))
                .fold(0.0f32, f32::max);
            for n in widths.into_iter().filter(|&n| n > span && n - span <= 16) {
                let missing = (n - span) as f32 * pitch;
                for at_start in [true, false] {
                    let rows = candidate
                        .rows
                        .iter()
                        .map(|row| {
                            let mut longer = row.clone();
                            if at_start {
                                longer.start -= missing;
                            } else {
                                longer.end += missing;
                            }
                            longer
                        })
                        .collect();
                    let lengthened = MrzCandidate { rows };
                    attempts.extend(self.read_rows_at(&lengthened, &[n]));
                }
            }
            attempts.sort_by(|x, y| rank(y).total_cmp(&rank(x)));
        }
        if let Some(longer) =
            attempts.first().filter(|a| a.reading.valid).and_then(|best| self.continued_to_44(best))
        {
            attempts.insert(0, longer);
        }
        attempts
    }

    fn read_rows(&self, candidate: &MrzCandidate) -> Vec<Attempt> {
        self.read_rows_at(candidate, &line_lengths(candidate))
    }

    fn read_rows_at(&self, candidate: &MrzCandidate, lengths: &[usize]) -> Vec<Attempt> {
        let Reader { model, original, scale, options } = *self;
        let mut attempts = Vec::new();
        for &n in lengths {
            let aligned = aligned_ends(&candidate.rows, n);
            for backwards in [false, true] {
                let rows: Vec<TextRow> = if backwards {
                    aligned.iter().rev().map(reversed).collect()
                } else {
                    aligned.clone()
                };
                let Some(positions) = rows_positions(&rows, n) else {
                    continue;
                };
                let mut cells: Vec<Vec<CellGeometry>> = rows
                    .iter()
                    .zip(&positions)
                    .map(|(row, positions)| row_cells(row, positions, scale))
                    .collect();
                shear_to_columns(&mut cells);
                let mut lines = Vec::new();
                let mut contrast = Vec::new();
                let mut covered = Vec::new();
                for line_cells in &cells {
                    let read = classify(model, original, line_cells);
                    lines.push(read.candidates);
                    contrast.push(read.contrast);
                    covered.push(read.covered);
                }
                let mean_log = mean_log_confidence(&lines);
                let Some((reading, least_unchecked, least)) = decode(&lines, options) else {
                    continue;
                };
                // The turn is measured along the cells of the first line as read, not taken
                // from the localiser's search direction (15 degrees apart): an upright zone
                // found at the 15-degree search was said to be turned 15 degrees.
                let (first, last) = (&cells[0][0], &cells[0][cells[0].len() - 1]);
                let dir = (last.centre.0 - first.centre.0, last.centre.1 - first.centre.1);
                let rotation = (dir.1.atan2(dir.0).to_degrees() + 360.0) % 360.0;
                attempts.push(Attempt {
                    reading,
                    least_unchecked,
                    least,
                    candidates: lines,
                    cells,
                    contrast,
                    covered,
                    score: mean_log,
                    rotation_degrees: rotation,
                    strokes: Vec::new(),
                });
                // A confident reading one way round settles the direction: the
                // other way round reads upside-down glyphs and cannot beat it.
                if attempts.last().is_some_and(crate::engine::is_confident) {
                    break;
                }
            }
        }
        attempts.sort_by(|a, b| rank(b).total_cmp(&rank(a)));
        attempts
    }
}

/// MRZ lines start and end together: a row whose blobs do not number exactly
/// `n` cells (a faint glyph lost at one end) takes its ends from the rows that do,
/// or from the outermost ends of all rows.
fn aligned_ends(rows: &[TextRow], n: usize) -> Vec<TextRow> {
    let complete: Vec<bool> =
        rows.iter().map(|row| index_row(row).is_some_and(|i| i.span == n)).collect();
    let any_complete = complete.contains(&true);
    let source = rows.iter().zip(&complete).filter(|(_, c)| **c || !any_complete);
    let (start, end) = source.fold((f32::INFINITY, f32::NEG_INFINITY), |(start, end), (r, _)| {
        (start.min(r.start), end.max(r.end))
    });
    rows.iter()
        .zip(&complete)
        .map(|(row, &complete)| {
            if complete {
                row.clone()
            } else {
                TextRow { start: start.min(row.start), end: end.max(row.end), ..row.clone() }
            }
        })
        .collect()
}

mod continued;
#[cfg(test)]
mod tests;
