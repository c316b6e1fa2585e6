//! A plain 8-bit grayscale raster with the sampling helpers the pipeline shares.

/// An 8-bit grayscale image stored row by row.
#[derive(Clone, Debug)]
pub struct Gray {
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// Pixels, `width * height` values, row-major, 0 black and 255 white.
    pub data: Vec<u8>,
}

impl Gray {
    /// Makes an image filled with one value.
    pub fn filled(width: usize, height: usize, value: u8) -> Gray {
        Gray { width, height, data: vec![value; width * height] }
    }

    /// Returns the pixel at integer coordinates, clamped to the border.
    #[inline]
    pub fn at_clamped(&self, x: isize, y: isize) -> u8 {
        let xc = x.clamp(0, self.width as isize - 1) as usize;
        let yc = y.clamp(0, self.height as isize - 1) as usize;
        self.data[yc * self.width + xc]
    }

    /// Samples the image at real coordinates with bilinear interpolation.
    ///
    /// Pixel centres sit at integer coordinates plus one half, so that
    /// `(0.5, 0.5)` is exactly the first pixel; outside points repeat the border.
    #[inline]
    pub fn bilinear(&self, x: f32, y: f32) -> f32 {
        let xf = x - 0.5;
        let yf = y - 0.5;
        if self.contains_window(xf, yf) {
            return self.interpolate_inside(xf, yf);
        }
        let x0 = xf.floor();
        let y0 = yf.floor();
        let ax = xf - x0;
        let ay = yf - y0;
        let xi = x0 as isize;
        let yi = y0 as isize;
        let p00 = f32::from(self.at_clamped(xi, yi));
        let p10 = f32::from(self.at_clamped(xi + 1, yi));
        let p01 = f32::from(self.at_clamped(xi, yi + 1));
        let p11 = f32::from(self.at_clamped(xi + 1, yi + 1));
        mix([p00, p10, p01, p11], ax, ay)
    }

    /// Whether bilinear interpolation at `(xf, yf)`, in coordinates where pixel
    /// centres are the integers, reads only pixels of the image.
    #[inline(always)]
    pub(crate) fn contains_window(&self, xf: f32, yf: f32) -> bool {
        xf >= 0.0 && yf >= 0.0 && xf + 1.0 < self.width as f32 && yf + 1.0 < self.height as f32
    }

    /// Bilinear interpolation at a point where [`Gray::contains_window`] holds:
    /// truncation is the floor there and no clamping is needed, so this is the
    /// cheap path, with the same values as the general one.
    #[inline(always)]
    pub(crate) fn interpolate_inside(&self, xf: f32, yf: f32) -> f32 {
        // Through `i32`, whose saturating conversion takes fewer instructions
        // than `usize`'s; the point is inside a plane far narrower than 2^31.
        let (xi, yi) = (xf as i32 as usize, yf as i32 as usize);
        let (ax, ay) = (xf - xi as f32, yf - yi as f32);
        let top_row = &self.data[yi * self.width + xi..][..2];
        let bottom_row = &self.data[(yi + 1) * self.width + xi..][..2];
        let corners = [top_row[0], top_row[1], bottom_row[0], bottom_row[1]].map(f32::from);
        mix(corners, ax, ay)
    }

    /// ITU-R BT.601 luma of an RGB pixel, as the image crate computes it, in integers.
    pub(crate) fn luma(r: u8, g: u8, b: u8) -> u8 {
        let [r, g, b] = [r, g, b].map(u32::from);
        ((r * 299 + g * 587 + b * 114 + 500) / 1000) as u8
    }

    /// Shrinks the image by an integer factor, averaging each block of pixels.
    ///
    /// Box averaging keeps thin strokes visible as gray instead of dropping them,
    /// which is what the localiser needs on large phone photos.
    pub fn shrink(&self, factor: usize) -> Gray {
        if factor <= 1 {
            return self.clone();
        }
        let width = (self.width / factor).max(1);
        let height = (self.height / factor).max(1);
        // Rows are summed column by column first (a plain loop the compiler
        // vectorises), then each block of `factor` columns.
        let mut column_sums = vec![0u32; width * factor];
        let mut data = vec![0u8; width * height];
        // A block is cut short only when the image is thinner than the factor.
        let block_columns = factor.min(self.width);
        for (y, out) in data.chunks_exact_mut(width).enumerate() {
            column_sums.fill(0);
            let rows = y * factor..(y * factor + factor).min(self.height);
            let block_rows = rows.len();
            for row in rows {
                let line = &self.data[row * self.width..][..(width * factor).min(self.width)];
                for (sum, &pixel) in column_sums.iter_mut().zip(line) {
                    *sum += u32::from(pixel);
                }
            }
            let full = block_rows == factor && block_columns == factor;
            match factor {
                2 if full => block_averages::<2>(&column_sums, out),
                3 if full => block_averages::<3>(&column_sums, out),
                4 if full => block_averages::<4>(&column_sums, out),
                5 if full => block_averages::<5>(&column_sums, out),
                _ => {
                    // In 64 bits: a very long, thin image can have a factor
                    // whose block sums overflow 32.
                    let area = (block_rows * block_columns) as u64;
                    for (value, block) in out.iter_mut().zip(column_sums.chunks_exact(factor)) {
                        let sum = block.iter().map(|&v| u64::from(v)).sum::<u64>();
                        *value = ((sum + area / 2) / area).min(255) as u8;
                    }
                }
            }
        }
        Gray { width, height, data }
    }

    /// Enlarges the image by an integer factor with bilinear interpolation.
    pub fn enlarge(&self, factor: usize) -> Gray {
        let width = self.width * factor;
        let height = self.height * factor;
        let mut data = vec![0u8; width * height];
        let inv = 1.0 / factor as f32;
        for y in 0..height {
            let sy = (y as f32 + 0.5) * inv;
            for x in 0..width {
                let sx = (x as f32 + 0.5) * inv;
                data[y * width + x] = self.bilinear(sx, sy).round().clamp(0.0, 255.0) as u8;
            }
        }
        Gray { width, height, data }
    }
}

/// Bilinear mix of the four pixels around a point (top left, top right,
/// bottom left, bottom right) at fractions `ax` across and `ay` down.
#[inline(always)]
fn mix([p00, p10, p01, p11]: [f32; 4], ax: f32, ay: f32) -> f32 {
    let top = p00 + (p10 - p00) * ax;
    let bottom = p01 + (p11 - p01) * ax;
    top + (bottom - top) * ay
}

/// Rounded averages of blocks of `F` column sums of `F` pixels each (the
/// constant lets the compiler divide by multiplying).
#[inline]
fn block_averages<const F: usize>(column_sums: &[u32], out: &mut [u8]) {
    let area = (F * F) as u32;
    for (value, block) in out.iter_mut().zip(column_sums.chunks_exact(F)) {
        let sum = block.iter().sum::<u32>();
        *value = ((sum + area / 2) / area).min(255) as u8;
    }
}

/// An image of pseudo-random gray levels (xorshift), for tests that compare
/// fast paths with plain definitions.
#[cfg(test)]
pub(crate) fn noise(width: usize, height: usize, seed: u32) -> Gray {
    let mut state = seed.max(1);
    let data = (0..width * height)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            (state >> 24) as u8
        })
        .collect();
    Gray { width, height, data }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shrinking_averages_each_block_rounded() {
        let image = noise(53, 38, 0x9e37_79b9);
        for factor in 2..=7 {
            let small = image.shrink(factor);
            assert_eq!((small.width, small.height), (53 / factor, 38 / factor));
            for y in 0..small.height {
                for x in 0..small.width {
                    let mut sum = 0u32;
                    for yy in y * factor..(y + 1) * factor {
                        for xx in x * factor..(x + 1) * factor {
                            sum += u32::from(image.data[yy * image.width + xx]);
                        }
                    }
                    let area = (factor * factor) as u32;
                    let expected = ((sum + area / 2) / area) as u8;
                    assert_eq!(small.data[y * small.width + x], expected, "factor {factor}");
                }
            }
        }
    }

    #[test]
    fn a_long_thin_image_shrinks_by_a_large_factor() {
        let image = Gray::filled(20_000, 3, 200);
        let small = image.shrink(5_000);
        assert_eq!((small.width, small.height), (4, 1));
        assert!(small.data.iter().all(|&v| v == 200));
        // Thinner than the factor both ways: one block of what there is.
        let speck = Gray::filled(3, 1, 90).shrink(4);
        assert_eq!((speck.width, speck.height, speck.data[0]), (1, 1, 90));
    }

    #[test]
    fn the_inside_path_of_interpolation_matches_the_clamped_one() {
        let image = noise(19, 13, 0x9e37_79b9);
        let clamped = |x: f32, y: f32| {
            let (xf, yf) = (x - 0.5, y - 0.5);
            let (x0, y0) = (xf.floor(), yf.floor());
            let (xi, yi) = (x0 as isize, y0 as isize);
            let p = |dx: isize, dy: isize| f32::from(image.at_clamped(xi + dx, yi + dy));
            let top = p(0, 0) + (p(1, 0) - p(0, 0)) * (xf - x0);
            let bottom = p(0, 1) + (p(1, 1) - p(0, 1)) * (xf - x0);
            top + (bottom - top) * (yf - y0)
        };
        for step_y in 0..=70 {
            for step_x in 0..=100 {
                let (x, y) = (step_x as f32 * 0.2 - 0.7, step_y as f32 * 0.2 - 0.6);
                assert_eq!(image.bilinear(x, y), clamped(x, y), "at ({x}, {y})");
            }
        }
    }
}
