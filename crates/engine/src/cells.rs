//! Cutting one MRZ character cell out of an image into the classifier's input.
//!
//! Training and reading both go through [`sample_cell`], so the classifier sees
//! at run time the kind of input it was trained on; reading alone repaints a
//! margin that something other than paper covers ([`Margins`]).

use crate::gray::Gray;

/// Width of a sampled cell in classifier inputs.
pub const CELL_W: usize = 16;
/// Height of a sampled cell in classifier inputs.
pub const CELL_H: usize = 24;
/// Number of classifier inputs per cell.
pub const CELL_LEN: usize = CELL_W * CELL_H;

/// Half the width of the sampled window, in character pitches.
pub(crate) const HALF_WIDTH: f32 = 0.6;
/// Half the height of the sampled window, in character heights.
pub(crate) const HALF_HEIGHT: f32 = 0.8;

/// Rows at the top and at the bottom of a sampled cell, well outside the glyph
/// (which fills the middle `1 / (2 * HALF_HEIGHT)` of the height), that tell
/// whether something other than paper covers that side.
const OUTER_ROWS: usize = 2;

/// Rows at the top and at the bottom of a sampled cell that lie outside the
/// glyph, repainted as paper where that side is covered.
const MARGIN_ROWS: usize = 4;

/// A sample this far (in standard deviations) to the dark side of the cell's
/// mean is dark.
const DARK: f32 = 0.3;

/// Columns of an outer band that must be dark for the band to count as covered:
/// nearly all, since a glyph of a line printed close by darkens only its strokes.
const COVERED_COLUMNS: usize = 14;

/// Most sub-samples per sample along each axis.
const MAX_SUB: usize = 4;

/// Where one character cell lies in an image.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CellGeometry {
    /// Centre of the character, in pixels.
    pub centre: (f32, f32),
    /// One character pitch along the line, in reading direction.
    pub along: (f32, f32),
    /// One character height across the line, pointing from top to bottom of the glyph.
    pub across: (f32, f32),
}

/// What [`sample_cell`] does with a covered margin (see [`Sampled::covered`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Margins {
    /// Repaints it as paper: reading.
    Repaint,
    /// Leaves it as it is: training. Its scenes let the portrait reach into the MRZ
    /// (`SceneOptions::clear_zone`), and the committed weights were trained on those
    /// cells as they are; the same command with the margins repainted trains a model
    /// that reads one `read` name wrongly on the handheld-faults set.
    Keep,
}

/// What sampling a cell found besides its samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sampled {
    /// The raw standard deviation of the pixels.
    pub contrast: f32,
    /// Whether something other than paper covered the margin above or below the
    /// glyph: the photo's background where a page edge cuts the line, a finger,
    /// a holder's edge. Reading repaints that margin as paper, since a classifier that
    /// never saw a covered margin reads such a cell confidently and wrongly; the
    /// glyph itself may still be cut short.
    pub covered: bool,
}

/// Samples a cell into `out`, normalised so that ink is positive and the
/// contrast is unit variance.
///
/// Large cells are supersampled so that thin strokes average into gray rather
/// than vanishing between samples. A glyph stands in the middle of the window and
/// the next line is further off than the window reaches, so the window's top and
/// bottom margins are paper unless something covers them (see [`Sampled::covered`]).
pub fn sample_cell(
    image: &Gray,
    cell: &CellGeometry,
    margins: Margins,
    out: &mut [f32; CELL_LEN],
) -> Sampled {
    let sum = sample_gray(image, cell, out);
    normalise(out, sum, margins)
}

/// Where the samples of a window around a cell lie: sample `(col, row)`, sub-sample
/// `(sx, sy)` is at `origin + step_x * fx + step_y * fy` with `fx = col + (sx + 0.5) / n_sub`
/// and `fy` alike.
struct Grid {
    step_x: (f32, f32),
    step_y: (f32, f32),
    /// Sub-samples per sample along each axis: enough that thin strokes average into gray.
    n_sub: usize,
    inv_sub: f32,
    origin: (f32, f32),
}

impl Grid {
    /// The grid of `size.0` samples along the line by `size.1` across it, spanning `half.0`
    /// pitches and `half.1` character heights either side of the cell's centre.
    fn new(cell: &CellGeometry, half: (f32, f32), size: (usize, usize)) -> Grid {
        let ((half_along, half_across), (width, height)) = (half, size);
        let step_x = (
            cell.along.0 * 2.0 * half_along / width as f32,
            cell.along.1 * 2.0 * half_along / width as f32,
        );
        let step_y = (
            cell.across.0 * 2.0 * half_across / height as f32,
            cell.across.1 * 2.0 * half_across / height as f32,
        );
        let span = (step_x.0.hypot(step_x.1)).max(step_y.0.hypot(step_y.1));
        let n_sub = span.ceil().clamp(1.0, MAX_SUB as f32) as usize;
        let origin = (
            cell.centre.0 - cell.along.0 * half_along - cell.across.0 * half_across,
            cell.centre.1 - cell.along.1 * half_along - cell.across.1 * half_across,
        );
        Grid { step_x, step_y, n_sub, inv_sub: 1.0 / n_sub as f32, origin }
    }
}

/// Samples a cell's gray levels into `out`; returns their sum.
fn sample_gray(image: &Gray, cell: &CellGeometry, out: &mut [f32; CELL_LEN]) -> f32 {
    let Grid { step_x, step_y, n_sub, inv_sub, origin } =
        Grid::new(cell, (HALF_WIDTH, HALF_HEIGHT), (CELL_W, CELL_H));
    // Where the whole window lies inside the image (nearly always), every
    // sample takes the interpolation's cheap path.
    let corner = |fx: f32, fy: f32| {
        let x = origin.0 + step_x.0 * fx + step_y.0 * fy - 0.5;
        let y = origin.1 + step_x.1 * fx + step_y.1 * fy - 0.5;
        image.contains_window(x, y)
    };
    let (right, bottom) = (CELL_W as f32, CELL_H as f32);
    let inside =
        corner(0.0, 0.0) && corner(right, 0.0) && corner(0.0, bottom) && corner(right, bottom);
    // Each sample point is `origin + step_x * fx + step_y * fy`, evaluated left
    // to right; the first two terms depend only on the column, so they are
    // computed once per column sub-sample (the same values, bit for bit).
    let mut column_x = [0f32; CELL_W * MAX_SUB];
    let mut column_y = [0f32; CELL_W * MAX_SUB];
    for col in 0..CELL_W {
        for sx in 0..n_sub {
            let fx = col as f32 + (sx as f32 + 0.5) * inv_sub;
            column_x[col * n_sub + sx] = origin.0 + step_x.0 * fx;
            column_y[col * n_sub + sx] = origin.1 + step_x.1 * fx;
        }
    }
    let (column_x, column_y) = (&column_x[..CELL_W * n_sub], &column_y[..CELL_W * n_sub]);
    let mut sum = 0.0f32;
    for (row, out_row) in out.chunks_exact_mut(CELL_W).enumerate() {
        let mut acc = [0f32; CELL_W];
        for sy in 0..n_sub {
            let fy = row as f32 + (sy as f32 + 0.5) * inv_sub;
            let (down_x, down_y) = (step_y.0 * fy, step_y.1 * fy);
            for (col, acc) in acc.iter_mut().enumerate() {
                let xs = &column_x[col * n_sub..][..n_sub];
                let ys = &column_y[col * n_sub..][..n_sub];
                for (&cx, &cy) in xs.iter().zip(ys) {
                    let (x, y) = (cx + down_x, cy + down_y);
                    *acc += if inside {
                        image.interpolate_inside(x - 0.5, y - 0.5)
                    } else {
                        image.bilinear(x, y)
                    };
                }
            }
        }
        for (value, acc) in out_row.iter_mut().zip(acc) {
            *value = acc * inv_sub * inv_sub;
            sum += *value;
        }
    }
    sum
}

/// Repaints a covered margin of sampled gray levels (whose sum is `sum`) as paper if
/// `margins` says so and normalises them so that ink is positive and the contrast is
/// unit variance.
fn normalise(out: &mut [f32; CELL_LEN], sum: f32, margins: Margins) -> Sampled {
    let (mut mean, contrast) = moments(out, sum);
    let dark_below = mean - DARK * scale_for(contrast).recip();
    let margin = MARGIN_ROWS * CELL_W;
    let covered_top = band_covered(&out[..OUTER_ROWS * CELL_W], dark_below);
    let covered_bottom = band_covered(&out[CELL_LEN - OUTER_ROWS * CELL_W..], dark_below);
    let mut std = contrast;
    if margins == Margins::Repaint && (covered_top || covered_bottom) {
        // Paper is most of the glyph's rows: their upper quartile of brightness.
        let mut zone = out[margin..CELL_LEN - margin].to_vec();
        zone.sort_unstable_by(f32::total_cmp);
        let paper = zone[zone.len() * 3 / 4];
        if covered_top {
            out[..margin].fill(paper);
        }
        if covered_bottom {
            out[CELL_LEN - margin..].fill(paper);
        }
        (mean, std) = moments(out, out.iter().sum());
    }
    let scale = scale_for(std);
    for value in out.iter_mut() {
        *value = (mean - *value) * scale;
    }
    Sampled { contrast, covered: covered_top || covered_bottom }
}

/// The mean and standard deviation of raw samples whose sum is `sum`.
fn moments(samples: &[f32; CELL_LEN], sum: f32) -> (f32, f32) {
    let mean = sum / CELL_LEN as f32;
    let variance = samples.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / CELL_LEN as f32;
    (mean, variance.sqrt())
}

/// The factor that takes raw deviations from the mean to normalised samples. The
/// floor keeps an almost empty cell from amplifying paper noise into something
/// that looks like a glyph.
fn scale_for(std: f32) -> f32 {
    1.0 / std.max(12.0)
}

/// Whether nearly every column of a band of raw samples is darker than `dark_below`.
fn band_covered(rows: &[f32], dark_below: f32) -> bool {
    let n_rows = rows.len() / CELL_W;
    let dark_columns = (0..CELL_W)
        .filter(|&col| {
            let sum: f32 = rows.iter().skip(col).step_by(CELL_W).sum();
            sum < dark_below * n_rows as f32
        })
        .count();
    dark_columns >= COVERED_COLUMNS
}

/// The gray levels of a window around a cell, row by row: `size.0` samples along the line by
/// `size.1` across it, spanning `half.0` pitches and `half.1` character heights either side
/// of the centre, each the mean of up to 4 x 4 bilinear sub-samples. The plain form of what
/// [`sample_cell`] computes fast for the classifier's window; the reader's comparison of a
/// document's glyphs with each other (`glyphs`) samples its own window with it.
pub(crate) fn window_samples(
    image: &Gray,
    cell: &CellGeometry,
    half: (f32, f32),
    size: (usize, usize),
) -> Vec<f32> {
    let (width, height) = size;
    let Grid { step_x, step_y, n_sub, inv_sub, origin } = Grid::new(cell, half, size);
    let mut values = Vec::with_capacity(width * height);
    for row in 0..height {
        for col in 0..width {
            let mut acc = 0.0;
            for sy in 0..n_sub {
                let fy = row as f32 + (sy as f32 + 0.5) * inv_sub;
                for sx in 0..n_sub {
                    let fx = col as f32 + (sx as f32 + 0.5) * inv_sub;
                    let x = origin.0 + step_x.0 * fx + step_y.0 * fy;
                    let y = origin.1 + step_x.1 * fx + step_y.1 * fy;
                    acc += image.bilinear(x, y);
                }
            }
            values.push(acc * inv_sub * inv_sub);
        }
    }
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sampler's gray levels as first written: every point from the full expression.
    fn plain_samples(image: &Gray, cell: &CellGeometry) -> Vec<f32> {
        window_samples(image, cell, (HALF_WIDTH, HALF_HEIGHT), (CELL_W, CELL_H))
    }

    #[test]
    fn sampling_matches_the_plain_definition_bit_for_bit() {
        let image = crate::gray::noise(160, 120, 0x2545_f491);
        let mut out = [0.0; CELL_LEN];
        // Sizes from one to four sub-samples, turned, sheared, and over the edge.
        for (idx, size) in [5.0f32, 9.0, 17.0, 26.0, 33.0, 47.0, 70.0].into_iter().enumerate() {
            let turn = idx as f32 * 0.37;
            let (c, s) = (turn.cos(), turn.sin());
            for centre in [(80.0, 60.0), (3.0, 50.0), (150.0, 117.0)] {
                let cell = CellGeometry {
                    centre,
                    along: (size * 0.8 * c, size * 0.8 * s),
                    across: (-size * s + 0.1 * size * c, size * c),
                };
                sample_gray(&image, &cell, &mut out);
                let plain = plain_samples(&image, &cell);
                for (a, b) in out.iter().zip(&plain) {
                    assert_eq!(a.to_bits(), b.to_bits(), "size {size} at {centre:?}");
                }
            }
        }
    }

    /// A page of paper at 230 with a glyph-sized dark block at (20, 20), and a cell over it
    /// 12 px high, with `extra` painted on top.
    fn glyph_on_page(extra: impl Fn(usize, usize) -> Option<u8>) -> Gray {
        let mut image = Gray::filled(40, 40, 230);
        for y in 0..40 {
            for x in 0..40 {
                let glyph = (14..26).contains(&y) && (17..23).contains(&x);
                if let Some(value) = extra(x, y) {
                    image.data[y * 40 + x] = value;
                } else if glyph {
                    image.data[y * 40 + x] = 20;
                }
            }
        }
        image
    }

    const GLYPH_CELL: CellGeometry =
        CellGeometry { centre: (20.0, 20.0), along: (10.0, 0.0), across: (0.0, 12.0) };

    #[test]
    fn a_margin_covered_past_a_page_edge_is_repainted_as_paper() {
        let mut clean = [0.0; CELL_LEN];
        assert!(
            !sample_cell(&glyph_on_page(|_, _| None), &GLYPH_CELL, Margins::Repaint, &mut clean)
                .covered
        );
        // The photo's background from 0.6 glyph heights below the centre down: inside
        // the window's bottom margin, clear of the glyph.
        let edged = glyph_on_page(|_, y| (y >= 28).then_some(110));
        let mut repainted = [0.0; CELL_LEN];
        let sampled = sample_cell(&edged, &GLYPH_CELL, Margins::Repaint, &mut repainted);
        assert!(sampled.covered);
        assert_eq!(repainted, clean, "the glyph on paper, as if the edge were not there");
        let mut kept = [0.0; CELL_LEN];
        assert!(sample_cell(&edged, &GLYPH_CELL, Margins::Keep, &mut kept).covered);
        assert!(kept[CELL_LEN - 1] > 0.3, "kept dark: {}", kept[CELL_LEN - 1]);
    }

    #[test]
    fn glyphs_of_a_line_printed_close_by_do_not_cover_a_margin() {
        // Strokes of the next line's glyphs reach into the bottom margin, paper between them.
        let dense = glyph_on_page(|x, y| (y >= 28 && (x % 5 < 2)).then_some(20));
        let mut out = [0.0; CELL_LEN];
        assert!(!sample_cell(&dense, &GLYPH_CELL, Margins::Repaint, &mut out).covered);
    }

    #[test]
    fn ink_is_positive_and_normalised() {
        let mut image = Gray::filled(40, 40, 230);
        for y in 15..25 {
            for x in 18..22 {
                image.data[y * 40 + x] = 20;
            }
        }
        let cell = CellGeometry { centre: (20.0, 20.0), along: (12.0, 0.0), across: (0.0, 12.0) };
        let mut out = [0.0; CELL_LEN];
        let sampled = sample_cell(&image, &cell, Margins::Keep, &mut out);
        assert!(sampled.contrast > 30.0 && !sampled.covered);
        let centre = out[(CELL_H / 2) * CELL_W + CELL_W / 2];
        let corner = out[0];
        assert!(centre > 1.0 && corner < 0.0, "centre {centre} corner {corner}");
    }
}
