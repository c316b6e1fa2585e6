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
        let top = p00 + (p10 - p00) * ax;
        let bottom = p01 + (p11 - p01) * ax;
        top + (bottom - top) * ay
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
        let mut sums = vec![0u32; width];
        let mut data = vec![0u8; width * height];
        let area = (factor * factor) as u32;
        for y in 0..height {
            sums.iter_mut().for_each(|s| *s = 0);
            for row in y * factor..(y * factor + factor).min(self.height) {
                let line = &self.data[row * self.width..row * self.width + width * factor];
                for (x, chunk) in line.chunks_exact(factor).enumerate() {
                    sums[x] += chunk.iter().map(|&p| u32::from(p)).sum::<u32>();
                }
            }
            for x in 0..width {
                data[y * width + x] = ((sums[x] + area / 2) / area).min(255) as u8;
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
