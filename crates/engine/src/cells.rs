//! Cutting one MRZ character cell out of an image into the classifier's input.
//!
//! Training and reading both go through [`sample_cell`], so the classifier sees
//! at run time exactly the kind of input it was trained on.

use crate::gray::Gray;

/// Width of a sampled cell in classifier inputs.
pub const CELL_W: usize = 16;
/// Height of a sampled cell in classifier inputs.
pub const CELL_H: usize = 24;
/// Number of classifier inputs per cell.
pub const CELL_LEN: usize = CELL_W * CELL_H;

/// Half the width of the sampled window, in character pitches.
const HALF_WIDTH: f32 = 0.6;
/// Half the height of the sampled window, in character heights.
const HALF_HEIGHT: f32 = 0.8;

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

/// Samples a cell into `out`, normalised so that ink is positive and the
/// contrast is unit variance; returns the raw standard deviation of the pixels.
///
/// Large cells are supersampled so that thin strokes average into gray rather
/// than vanishing between samples.
pub fn sample_cell(image: &Gray, cell: &CellGeometry, out: &mut [f32; CELL_LEN]) -> f32 {
    let step_x = (
        cell.along.0 * 2.0 * HALF_WIDTH / CELL_W as f32,
        cell.along.1 * 2.0 * HALF_WIDTH / CELL_W as f32,
    );
    let step_y = (
        cell.across.0 * 2.0 * HALF_HEIGHT / CELL_H as f32,
        cell.across.1 * 2.0 * HALF_HEIGHT / CELL_H as f32,
    );
    let span = (step_x.0.hypot(step_x.1)).max(step_y.0.hypot(step_y.1));
    let n_sub = span.ceil().clamp(1.0, MAX_SUB as f32) as usize;
    let inv_sub = 1.0 / n_sub as f32;
    let origin = (
        cell.centre.0 - cell.along.0 * HALF_WIDTH - cell.across.0 * HALF_HEIGHT,
        cell.centre.1 - cell.along.1 * HALF_WIDTH - cell.across.1 * HALF_HEIGHT,
    );
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
    let mean = sum / CELL_LEN as f32;
    let variance = out.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / CELL_LEN as f32;
    let std = variance.sqrt();
    // The floor keeps an almost empty cell from amplifying paper noise into
    // something that looks like a glyph.
    let scale = 1.0 / std.max(12.0);
    for value in out.iter_mut() {
        *value = (mean - *value) * scale;
    }
    std
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sampler as first written: every point from the full expression.
    fn plain_samples(image: &Gray, cell: &CellGeometry) -> Vec<f32> {
        let step_x = (
            cell.along.0 * 2.0 * HALF_WIDTH / CELL_W as f32,
            cell.along.1 * 2.0 * HALF_WIDTH / CELL_W as f32,
        );
        let step_y = (
            cell.across.0 * 2.0 * HALF_HEIGHT / CELL_H as f32,
            cell.across.1 * 2.0 * HALF_HEIGHT / CELL_H as f32,
        );
        let span = (step_x.0.hypot(step_x.1)).max(step_y.0.hypot(step_y.1));
        let n_sub = span.ceil().clamp(1.0, 4.0) as usize;
        let inv_sub = 1.0 / n_sub as f32;
        let origin = (
            cell.centre.0 - cell.along.0 * HALF_WIDTH - cell.across.0 * HALF_HEIGHT,
            cell.centre.1 - cell.along.1 * HALF_WIDTH - cell.across.1 * HALF_HEIGHT,
        );
        let mut values = Vec::new();
        for row in 0..CELL_H {
            for col in 0..CELL_W {
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
        let mean = values.iter().sum::<f32>() / CELL_LEN as f32;
        let variance =
            values.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / CELL_LEN as f32;
        let scale = 1.0 / variance.sqrt().max(12.0);
        values.iter().map(|v| (mean - v) * scale).collect()
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
                sample_cell(&image, &cell, &mut out);
                let plain = plain_samples(&image, &cell);
                for (a, b) in out.iter().zip(&plain) {
                    assert_eq!(a.to_bits(), b.to_bits(), "size {size} at {centre:?}");
                }
            }
        }
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
        let std = sample_cell(&image, &cell, &mut out);
        assert!(std > 30.0);
        let centre = out[(CELL_H / 2) * CELL_W + CELL_W / 2];
        let corner = out[0];
        assert!(centre > 1.0 && corner < 0.0, "centre {centre} corner {corner}");
    }
}
