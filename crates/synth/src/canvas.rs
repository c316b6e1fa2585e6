//! A floating-point gray canvas, the OCR-B text renderer and photo degradations.

use ab_glyph::{Font, FontVec, PxScale, ScaleFont, point};

use crate::rng::Rng;
use mrtd_engine::geometry::distance_to_segment;
use mrtd_engine::gray::Gray;

/// A gray canvas with values from 0 (black) to 255 (white).
#[derive(Clone, Debug)]
pub struct Canvas {
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// Pixel values, row-major.
    pub data: Vec<f32>,
}

impl Canvas {
    /// Makes a canvas filled with one value.
    pub fn new(width: usize, height: usize, value: f32) -> Canvas {
        Canvas { width, height, data: vec![value; width * height] }
    }

    /// Blends `value` into the pixel at `(x, y)` with opacity `alpha`, ignoring points outside.
    #[inline]
    pub fn blend(&mut self, x: i64, y: i64, value: f32, alpha: f32) {
        if x >= 0 && y >= 0 && (x as usize) < self.width && (y as usize) < self.height {
            let pixel = &mut self.data[y as usize * self.width + x as usize];
            *pixel += (value - *pixel) * alpha;
        }
    }

    /// Fills an axis-aligned rectangle.
    pub fn fill_rect(&mut self, x0: f32, y0: f32, x1: f32, y1: f32, value: f32, alpha: f32) {
        for y in y0.max(0.0) as i64..y1.min(self.height as f32) as i64 {
            for x in x0.max(0.0) as i64..x1.min(self.width as f32) as i64 {
                self.blend(x, y, value, alpha);
            }
        }
    }

    /// Converts to an 8-bit image, rounding and clamping.
    pub fn to_gray(&self) -> Gray {
        Gray {
            width: self.width,
            height: self.height,
            data: self.data.iter().map(|v| v.round().clamp(0.0, 255.0) as u8).collect(),
        }
    }

    /// Makes a canvas from an 8-bit image.
    pub fn from_gray(gray: &Gray) -> Canvas {
        Canvas {
            width: gray.width,
            height: gray.height,
            data: gray.data.iter().map(|&v| f32::from(v)).collect(),
        }
    }

    /// Blurs with a Gaussian of the given standard deviation (separable).
    pub fn blur(&mut self, sigma: f32) {
        if sigma < 0.2 {
            return;
        }
        let radius = (sigma * 2.5).ceil() as i64;
        let kernel: Vec<f32> =
            (-radius..=radius).map(|i| (-(i * i) as f32 / (2.0 * sigma * sigma)).exp()).collect();
        let total: f32 = kernel.iter().sum();
        let kernel: Vec<f32> = kernel.iter().map(|k| k / total).collect();
        let (w, h) = (self.width as i64, self.height as i64);
        let mut tmp = vec![0.0; self.data.len()];
        for y in 0..h {
            for x in 0..w {
                let mut acc = 0.0;
                for (k, weight) in kernel.iter().enumerate() {
                    let sx = (x + k as i64 - radius).clamp(0, w - 1);
                    acc += weight * self.data[(y * w + sx) as usize];
                }
                tmp[(y * w + x) as usize] = acc;
            }
        }
        for y in 0..h {
            for x in 0..w {
                let mut acc = 0.0;
                for (k, weight) in kernel.iter().enumerate() {
                    let sy = (y + k as i64 - radius).clamp(0, h - 1);
                    acc += weight * tmp[(sy * w + x) as usize];
                }
                self.data[(y * w + x) as usize] = acc;
            }
        }
    }

    /// Adds Gaussian pixel noise.
    pub fn noise(&mut self, rng: &mut Rng, sigma: f32) {
        for value in &mut self.data {
            *value += rng.normal() * sigma;
        }
    }

    /// Adds a bright elliptical highlight, as a lamp reflected on a laminate.
    pub fn glare(&mut self, centre: (f32, f32), radius: (f32, f32), strength: f32) {
        for y in 0..self.height {
            let dy = (y as f32 - centre.1) / radius.1;
            for x in 0..self.width {
                let dx = (x as f32 - centre.0) / radius.0;
                let weight = strength * (-(dx * dx + dy * dy)).exp();
                if weight > 0.01 {
                    let pixel = &mut self.data[y * self.width + x];
                    *pixel += (255.0 - *pixel) * weight;
                }
            }
        }
    }

    /// Darkens one side of a line through `point` (the side `angle` points to) by
    /// `factor`, with an edge `softness` pixels wide: a shadow multiplies the light.
    pub fn shadow(&mut self, point: (f32, f32), angle: f32, softness: f32, factor: f32) {
        let (sin, cos) = angle.sin_cos();
        for y in 0..self.height {
            for x in 0..self.width {
                let d = (x as f32 - point.0) * cos + (y as f32 - point.1) * sin;
                let inside = 1.0 / (1.0 + (-d / softness.max(0.5)).exp());
                self.data[y * self.width + x] *= 1.0 - (1.0 - factor) * inside;
            }
        }
    }

    /// Draws a straight stroke from `from` to `to`, `width` pixels wide with soft edges, in
    /// ink of `value`: a pen line drawn over the page.
    pub fn stroke(&mut self, from: (f32, f32), to: (f32, f32), width: f32, value: f32) {
        let reach = width / 2.0 + 1.0;
        let clamp = |v: f32, limit: usize| (v.max(0.0) as usize).min(limit);
        let (x0, x1) = (
            clamp(from.0.min(to.0) - reach, self.width),
            clamp(from.0.max(to.0) + reach + 1.0, self.width),
        );
        let (y0, y1) = (
            clamp(from.1.min(to.1) - reach, self.height),
            clamp(from.1.max(to.1) + reach + 1.0, self.height),
        );
        for y in y0..y1 {
            for x in x0..x1 {
                let distance = distance_to_segment((x as f32, y as f32), from, to);
                let cover = (width / 2.0 + 0.5 - distance).clamp(0.0, 1.0);
                if cover > 0.0 {
                    self.blend(x as i64, y as i64, value, cover);
                }
            }
        }
    }

    /// Averages each pixel along a line `length` pixels long at `angle`, as a camera that
    /// moved while the shutter was open.
    pub fn motion_blur(&mut self, length: f32, angle: f32) {
        let steps = length.round().max(1.0) as i64;
        let (sin, cos) = angle.sin_cos();
        let offsets: Vec<(i64, i64)> = (-steps..=steps)
            .map(|i| {
                let t = i as f32 / 2.0;
                ((t * cos).round() as i64, (t * sin).round() as i64)
            })
            .collect();
        let (w, h) = (self.width as i64, self.height as i64);
        let source = self.data.clone();
        for y in 0..h {
            for x in 0..w {
                let sum: f32 = offsets
                    .iter()
                    .map(|&(dx, dy)| {
                        source[((y + dy).clamp(0, h - 1) * w + (x + dx).clamp(0, w - 1)) as usize]
                    })
                    .sum();
                self.data[(y * w + x) as usize] = sum / offsets.len() as f32;
            }
        }
    }

    /// Scales brightness and contrast, as an underexposed or washed-out photo.
    pub fn exposure(&mut self, gain: f32, offset: f32) {
        for value in &mut self.data {
            *value = *value * gain + offset;
        }
    }

    /// Round-trips the canvas through JPEG at the given quality.
    pub fn jpeg(&mut self, quality: u8) {
        let gray = self.to_gray();
        let mut encoded = Vec::new();
        let encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut encoded, quality);
        let buffer = image::GrayImage::from_raw(gray.width as u32, gray.height as u32, gray.data)
            .expect("buffer size matches dimensions");
        if buffer.write_with_encoder(encoder).is_ok()
            && let Ok(decoded) = image::load_from_memory(&encoded)
        {
            let luma = decoded.into_luma8();
            self.data = luma.as_raw().iter().map(|&v| f32::from(v)).collect();
        }
    }
}

/// The OCR-B font with the metrics needed to lay out fixed-pitch MRZ text.
pub struct OcrFont {
    font: FontVec,
    /// Advance width per pixel of scale.
    advance_ratio: f32,
    /// Cap height per pixel of scale.
    cap_ratio: f32,
}

/// Why the font could not be loaded.
#[derive(Debug, thiserror::Error)]
#[error("not a usable OpenType font")]
pub struct FontError;

impl OcrFont {
    /// Loads a font from OpenType bytes (the OCR-B face of `fonts-ocr-b`).
    pub fn from_bytes(bytes: Vec<u8>) -> Result<OcrFont, FontError> {
        let font = FontVec::try_from_vec(bytes).map_err(|_| FontError)?;
        let scaled = font.as_scaled(PxScale::from(100.0));
        let advance_ratio = scaled.h_advance(font.glyph_id('H')) / 100.0;
        let glyph = font.glyph_id('H').with_scale(100.0);
        let bounds = font.outline_glyph(glyph).ok_or(FontError)?.px_bounds();
        let cap_ratio = bounds.height() / 100.0;
        if advance_ratio <= 0.0 || cap_ratio <= 0.0 {
            return Err(FontError);
        }
        Ok(OcrFont { font, advance_ratio, cap_ratio })
    }

    /// Draws text with a fixed pitch and cap height, its first cell starting at
    /// `left` and its baseline at `baseline`.
    // Every argument is one number of the layout; a struct would only rename them.
    #[allow(clippy::too_many_arguments)]
    pub fn draw(
        &self,
        canvas: &mut Canvas,
        text: &str,
        left: f32,
        baseline: f32,
        pitch: f32,
        cap_height: f32,
        ink: f32,
    ) {
        self.draw_weighted(canvas, text, (left, baseline), (pitch, cap_height), ink, 0.0);
    }

    /// Draws text as [`OcrFont::draw`] does, its first cell starting at `at` (left, baseline)
    /// with `size` (pitch, cap height), in a stroke weight from -1 (thin: each pixel's
    /// coverage raised to the power 3, so that only the strokes' cores stay dark) through 0
    /// (the font's own) to 1 (bold: drawn four times, offset by up to 7 % of the cap height).
    pub fn draw_weighted(
        &self,
        canvas: &mut Canvas,
        text: &str,
        at: (f32, f32),
        size: (f32, f32),
        ink: f32,
        weight: f32,
    ) {
        let ((left, baseline), (pitch, cap_height)) = (at, size);
        let scale = PxScale { x: pitch / self.advance_ratio, y: cap_height / self.cap_ratio };
        let offset = weight.max(0.0) * 0.07 * cap_height;
        let offsets: &[(f32, f32)] = if offset > 0.0 {
            &[(0.0, 0.0), (offset, 0.0), (0.0, offset), (offset, offset)]
        } else {
            &[(0.0, 0.0)]
        };
        let gamma = 1.0 + 2.0 * (-weight).max(0.0);
        for &(dx, dy) in offsets {
            for (idx, symbol) in text.chars().enumerate() {
                let position = point(
                    left + idx as f32 * pitch - offset / 2.0 + dx,
                    baseline - offset / 2.0 + dy,
                );
                let glyph = self.font.glyph_id(symbol).with_scale_and_position(scale, position);
                if let Some(outlined) = self.font.outline_glyph(glyph) {
                    let bounds = outlined.px_bounds();
                    outlined.draw(|x, y, coverage| {
                        canvas.blend(
                            bounds.min.x as i64 + i64::from(x),
                            bounds.min.y as i64 + i64::from(y),
                            ink,
                            coverage.min(1.0).powf(gamma),
                        );
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shadow_darkens_one_side_by_its_factor() {
        let mut canvas = Canvas::new(100, 20, 200.0);
        // The edge runs down the middle; the angle 0 points to the right.
        canvas.shadow((50.0, 10.0), 0.0, 1.0, 0.5);
        let at = |x: usize| canvas.data[10 * 100 + x];
        assert!((at(5) - 200.0).abs() < 0.1, "lit side {}", at(5));
        assert!((at(95) - 100.0).abs() < 0.1, "shadowed side {}", at(95));
        assert!(at(48) > at(52), "a soft edge between");
    }

    #[test]
    fn a_stroke_inks_its_line_and_nothing_beside_it() {
        let mut canvas = Canvas::new(100, 40, 200.0);
        canvas.stroke((10.0, 10.0), (90.0, 30.0), 3.0, 40.0);
        let at = |x: usize, y: usize| canvas.data[y * 100 + x];
        assert!((at(50, 20) - 40.0).abs() < 1.0, "on the line {}", at(50, 20));
        assert_eq!(at(50, 26), 200.0, "beside it");
        assert_eq!(at(5, 10), 200.0, "before its start");
    }

    #[test]
    fn motion_blur_spreads_a_dot_along_its_direction_only() {
        let mut canvas = Canvas::new(41, 41, 0.0);
        canvas.data[20 * 41 + 20] = 100.0;
        canvas.motion_blur(6.0, 0.0);
        let at = |x: usize, y: usize| canvas.data[y * 41 + x];
        assert!(at(18, 20) > 0.0 && at(22, 20) > 0.0, "spread along the row");
        assert_eq!(at(20, 18), 0.0, "nothing across it");
        let total: f32 = canvas.data.iter().sum();
        assert!((total - 100.0).abs() < 1e-3, "light is kept: {total}");

        let mut flat = Canvas::new(30, 30, 120.0);
        flat.motion_blur(5.0, 1.0);
        assert!(flat.data.iter().all(|&v| (v - 120.0).abs() < 1e-3));
    }
}
