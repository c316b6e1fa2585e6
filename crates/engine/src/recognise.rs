//! Recognition: laying fixed-pitch cells over located rows, classifying them
//! and choosing the reading direction and line length the check digits prefer.

use crate::cells::{CELL_LEN, CellGeometry, sample_cell};
use crate::decode::{CellCandidates, Reading, decode_cells};
use crate::gray::Gray;
use crate::locate::{MrzCandidate, TextRow};
use crate::model::{ALPHABET, Mlp, N_CLASSES};

/// How many alternatives per cell are passed to the decoder.
const TOP_K: usize = 4;

/// One way of reading a candidate: direction and characters per line.
#[derive(Clone, Debug)]
pub(crate) struct Attempt {
    pub(crate) reading: Reading,
    /// The classifier's top candidates per cell, line by line.
    pub(crate) candidates: Vec<Vec<CellCandidates>>,
    /// Cell geometry in original image pixels, line by line.
    pub(crate) cells: Vec<Vec<CellGeometry>>,
    /// Raw contrast (standard deviation of gray levels) per cell.
    pub(crate) contrast: Vec<Vec<f32>>,
    /// Mean log probability of the kept symbols.
    pub(crate) score: f32,
    /// Rotation of the document relative to upright, degrees clockwise in [0, 360).
    pub(crate) rotation_degrees: f32,
}

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
    }
}

/// The cells a row's blobs occupy: every MRZ cell holds a glyph, so walking
/// from blob to blob in steps of the typical spacing numbers the cells.
struct RowIndex {
    /// Number of cells from the first blob to the last.
    span: usize,
    /// Single-glyph blobs as (cell index, position along the row).
    pairs: Vec<(f32, f32)>,
    pitch: f32,
}

fn index_row(row: &TextRow) -> Option<RowIndex> {
    let members: Vec<(f32, f32)> =
        row.members.iter().map(|((x, y), len)| (x * row.dir.0 + y * row.dir.1, *len)).collect();
    let single = |len: f32| len < row.height * 1.3;
    let mut gaps: Vec<f32> = members
        .windows(2)
        .filter(|w| single(w[0].1) && single(w[1].1))
        .map(|w| w[1].0 - w[0].0)
        .filter(|&d| d > row.height * 0.6 && d < row.height * 1.8)
        .collect();
    if gaps.len() < 6 {
        return None;
    }
    gaps.sort_by(f32::total_cmp);
    let pitch = gaps[gaps.len() / 2];
    // Cells covered by a blob of length `len` (touching fillers merge into one).
    let covered = |len: f32| {
        if single(len) { 1.0 } else { (((len - 0.6 * pitch) / pitch).round() + 1.0).max(1.0) }
    };
    let mut index = vec![0.0f32; members.len()];
    for i in 1..members.len() {
        let step = (members[i].0 - members[i - 1].0) / pitch;
        let k = index[i - 1] + step;
        index[i] = if single(members[i].1) && single(members[i - 1].1) {
            index[i - 1] + step.round().max(1.0)
        } else {
            k
        };
    }
    let first = index[0] - (covered(members[0].1) - 1.0) / 2.0;
    let last_idx = members.len() - 1;
    let last = index[last_idx] + (covered(members[last_idx].1) - 1.0) / 2.0;
    let span = (last - first).round() as usize + 1;
    let pairs = members
        .iter()
        .zip(&index)
        .filter(|(m, _)| single(m.1))
        .map(|(m, &k)| ((k - first).round(), m.0))
        .collect();
    Some(RowIndex { span, pairs, pitch })
}

/// Places `n` cell centres along a row: from the blob numbering when it
/// finds exactly `n` cells, otherwise by spreading `n` cells between the row
/// ends; either way refined by a least-squares fit of single-glyph blobs to
/// their cells, with a quadratic term for perspective when the data supports it.
fn cell_positions(row: &TextRow, n: usize) -> Option<Vec<f32>> {
    let (mut first, mut pitch, mut pairs) = match index_row(row) {
        Some(index) if index.span == n => {
            let pairs = index.pairs.clone();
            let (a, b) = fit_linear(&pairs)?;
            let _ = index.pitch;
            (a, b, pairs)
        }
        _ => {
            let pitch = row.length() / (n as f32 - 0.3);
            (row.start + pitch * 0.35, pitch, Vec::new())
        }
    };
    let mut curve = 0.0f32;
    let singles: Vec<f32> = row
        .members
        .iter()
        .filter(|(_, len)| *len < row.height * 1.3)
        .map(|((x, y), _)| x * row.dir.0 + y * row.dir.1)
        .collect();
    let trusted = !pairs.is_empty();
    for round in 0..3 {
        if !trusted {
            pairs.clear();
            for &s in &singles {
                // Invert s = first + pitch k + curve k^2 by fixed-point steps.
                let mut k = (s - first) / pitch;
                for _ in 0..3 {
                    k = (s - first - curve * k * k) / pitch;
                }
                let k = k.round();
                if k < 0.0 || k > (n - 1) as f32 {
                    continue;
                }
                let predicted = first + pitch * k + curve * k * k;
                if (s - predicted).abs() < pitch * 0.4 {
                    pairs.push((k, s));
                }
            }
        } else if round > 0 {
            // Drop blobs that sit far from their cell (a stray mark, a split glyph).
            pairs.retain(|&(k, s)| (s - (first + pitch * k + curve * k * k)).abs() < pitch * 0.3);
        }
        if pairs.len() < n / 3 {
            break;
        }
        let quadratic = pairs.len() > n / 2;
        let fit = if quadratic {
            fit_quadratic(&pairs)
        } else {
            fit_linear(&pairs).map(|(a, b)| (a, b, 0.0))
        };
        if let Some((a, b, c)) = fit {
            let end_shift = c * ((n - 1) * (n - 1)) as f32;
            if b <= 0.0
                || (b - pitch).abs() > pitch * 0.25
                || end_shift.abs() > pitch * n as f32 * 0.2
            {
                break;
            }
            first = a;
            pitch = b;
            curve = c;
        }
    }
    let positions: Vec<f32> =
        (0..n).map(|k| first + pitch * k as f32 + curve * (k * k) as f32).collect();
    Some(positions)
}

/// The number of cells the blob numbering finds in each row, when they agree.
fn counted_length(candidate: &MrzCandidate) -> Option<usize> {
    let spans: Vec<usize> = candidate.rows.iter().filter_map(index_row).map(|i| i.span).collect();
    spans.iter().copied().find(|s| [30, 36, 44].contains(s))
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

fn fit_quadratic(pairs: &[(f32, f32)]) -> Option<(f32, f32, f32)> {
    // Normal equations for y = a + b k + c k^2, solved in f64 by Cramer's rule.
    let mut s = [0f64; 5];
    let mut t = [0f64; 3];
    for &(k, y) in pairs {
        let (k, y) = (f64::from(k), f64::from(y));
        let mut power = 1.0;
        for item in &mut s {
            *item += power;
            power *= k;
        }
        t[0] += y;
        t[1] += y * k;
        t[2] += y * k * k;
    }
    let m = [[s[0], s[1], s[2]], [s[1], s[2], s[3]], [s[2], s[3], s[4]]];
    let det = |m: &[[f64; 3]; 3]| {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    };
    let d = det(&m);
    if d.abs() < 1e-9 {
        return None;
    }
    let mut solution = [0f64; 3];
    for (col, value) in solution.iter_mut().enumerate() {
        let mut replaced = m;
        for row in 0..3 {
            replaced[row][col] = t[row];
        }
        *value = det(&replaced) / d;
    }
    Some((solution[0] as f32, solution[1] as f32, solution[2] as f32))
}

/// Cell geometry for a row, in original image pixels.
fn row_cells(row: &TextRow, n: usize, scale: f32) -> Option<Vec<CellGeometry>> {
    let positions = cell_positions(row, n)?;
    let normal = row.normal();
    let inv = 1.0 / scale;
    let cells = positions
        .iter()
        .enumerate()
        .map(|(k, &s)| {
            let pitch = if k + 1 < n { positions[k + 1] - s } else { s - positions[k - 1] };
            let (x, y) = row.point_at(s);
            // The fitted row direction, which may differ from the search angle by
            // a few degrees; the cell's vertical is kept perpendicular to it.
            let norm = (1.0 + row.slope * row.slope).sqrt();
            let unit = (
                (row.dir.0 + normal.0 * row.slope) / norm,
                (row.dir.1 + normal.1 * row.slope) / norm,
            );
            let height = row.height * inv;
            CellGeometry {
                centre: (x * inv, y * inv),
                along: (unit.0 * pitch * inv, unit.1 * pitch * inv),
                across: (-unit.1 * height, unit.0 * height),
            }
        })
        .collect();
    Some(cells)
}

/// Classifies cells and keeps the top few symbols of each.
fn classify(model: &Mlp, image: &Gray, cells: &[CellGeometry]) -> (Vec<CellCandidates>, Vec<f32>) {
    let mut input = [0.0f32; CELL_LEN];
    let mut hidden = vec![0.0f32; model.n_hidden];
    let mut logits = [0.0f32; N_CLASSES];
    let mut candidates = Vec::with_capacity(cells.len());
    let mut contrast = Vec::with_capacity(cells.len());
    for cell in cells {
        contrast.push(sample_cell(image, cell, &mut input));
        model.forward(&input, &mut hidden, &mut logits);
        crate::model::softmax(&mut logits);
        let mut ranked: Vec<(char, f32)> =
            logits.iter().enumerate().map(|(idx, &p)| (char::from(ALPHABET[idx]), p)).collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        ranked.truncate(TOP_K);
        candidates.push(CellCandidates { options: ranked });
    }
    (candidates, contrast)
}

/// Line lengths worth trying for a candidate, from its shape.
fn line_lengths(candidate: &MrzCandidate) -> Vec<usize> {
    if candidate.rows.len() == 3 {
        return vec![30];
    }
    if let Some(n @ (36 | 44)) = counted_length(candidate) {
        return vec![n];
    }
    let row = &candidate.rows[0];
    let ratio = row.length() / row.height;
    // Pitch is about 1.0-1.2 glyph heights, so a 44 line is ~44-53 heights long.
    let mut lengths = Vec::new();
    for n in [36usize, 44] {
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

/// Reads a candidate; two rows of 30 cells are an ID card with one row
/// missed (washed out, or its fillers merged), so the third is tried above
/// and below at the same spacing.
pub(crate) fn read_candidate(
    model: &Mlp,
    original: &Gray,
    scale: f32,
    candidate: &MrzCandidate,
) -> Vec<Attempt> {
    let mut attempts = read_rows(model, original, scale, candidate);
    if candidate.rows.len() == 2 && counted_length(candidate) == Some(30) {
        let (a, b) = (&candidate.rows[0], &candidate.rows[1]);
        let mid = (a.start + a.end) / 2.0;
        let spacing = b.across_at(mid) - a.across_at(mid);
        let below = vec![a.clone(), b.clone(), shifted(b, spacing)];
        let above = vec![shifted(a, -spacing), a.clone(), b.clone()];
        for rows in [below, above] {
            attempts.extend(read_rows(model, original, scale, &MrzCandidate { rows }));
        }
        attempts.sort_by(|x, y| rank(y).total_cmp(&rank(x)));
    }
    attempts
}

fn read_rows(model: &Mlp, original: &Gray, scale: f32, candidate: &MrzCandidate) -> Vec<Attempt> {
    let mut attempts = Vec::new();
    for n in line_lengths(candidate) {
        for backwards in [false, true] {
            let rows: Vec<TextRow> = if backwards {
                candidate.rows.iter().rev().map(reversed).collect()
            } else {
                candidate.rows.clone()
            };
            let Some(cells) =
                rows.iter().map(|row| row_cells(row, n, scale)).collect::<Option<Vec<_>>>()
            else {
                continue;
            };
            let mut lines = Vec::new();
            let mut contrast = Vec::new();
            for line_cells in &cells {
                let (candidates, line_contrast) = classify(model, original, line_cells);
                lines.push(candidates);
                contrast.push(line_contrast);
            }
            let mean_log: f32 =
                lines.iter().flatten().map(|c| c.options[0].1.max(1e-6).ln()).sum::<f32>()
                    / (n * lines.len()) as f32;
            let Ok(reading) = decode_cells(&lines) else {
                continue;
            };
            let dir = rows[0].dir;
            let rotation = (dir.1.atan2(dir.0).to_degrees() + 360.0) % 360.0;
            attempts.push(Attempt {
                reading,
                candidates: lines,
                cells,
                contrast,
                score: mean_log,
                rotation_degrees: rotation,
            });
        }
    }
    attempts.sort_by(|a, b| rank(b).total_cmp(&rank(a)));
    attempts
}

/// Orders attempts: passing check digits first, then classifier confidence.
pub(crate) fn rank(attempt: &Attempt) -> f32 {
    let n_valid = attempt.reading.checks.iter().filter(|c| c.valid).count() as f32;
    let n_checks = attempt.reading.checks.len().max(1) as f32;
    n_valid / n_checks * 4.0 + attempt.score
}
