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
    let n_sub = span.ceil().clamp(1.0, 4.0) as usize;
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
    let mut sum = 0.0f32;
    for row in 0..CELL_H {
        for col in 0..CELL_W {
            let mut acc = 0.0;
            for sy in 0..n_sub {
                let fy = row as f32 + (sy as f32 + 0.5) * inv_sub;
                for sx in 0..n_sub {
                    let fx = col as f32 + (sx as f32 + 0.5) * inv_sub;
                    let x = origin.0 + step_x.0 * fx + step_y.0 * fy;
                    let y = origin.1 + step_x.1 * fx + step_y.1 * fy;
                    acc += if inside {
                        image.interpolate_inside(x - 0.5, y - 0.5)
                    } else {
                        image.bilinear(x, y)
                    };
                }
            }
            let value = acc * inv_sub * inv_sub;
            out[row * CELL_W + col] = value;
            sum += value;
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
