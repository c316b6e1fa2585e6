//! The engine value: configuration, the embedded model, and the read pipeline.

use std::time::Instant;

use crate::cells::CellGeometry;
use crate::components::Darkness;
use crate::decode::Reading;
use crate::error::ImageError;
use crate::image::{DecodeLimits, decode};
use crate::locate::{LocateReport, WorkImage, locate, work_image};
use crate::model::Mlp;
use crate::recognise::{Attempt, rank, read_candidate};
use crate::types::ImageReading;
use mrtd_mrz::ParseOptions;

/// The classifier weights, trained by `mrtd-train` and embedded at build time.
static MODEL_BYTES: &[u8] = include_bytes!("../model/mrz-cells.bin");

/// Limits and thresholds of an [`Engine`].
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// Largest image accepted, in pixels (width times height).
    pub max_pixels: u64,
    /// Largest encoded input accepted, in bytes.
    pub max_bytes: usize,
    /// How many candidate regions to try before giving up.
    pub max_candidates: usize,
}

impl Default for EngineConfig {
    fn default() -> EngineConfig {
        EngineConfig { max_pixels: 40_000_000, max_bytes: 50 * 1024 * 1024, max_candidates: 8 }
    }
}

/// Builds an [`Engine`].
#[derive(Clone, Debug, Default)]
pub struct EngineBuilder {
    config: EngineConfig,
}

impl EngineBuilder {
    /// Starts from the default configuration.
    pub fn new() -> EngineBuilder {
        EngineBuilder::default()
    }

    /// Replaces the whole configuration.
    pub fn config(mut self, config: EngineConfig) -> EngineBuilder {
        self.config = config;
        self
    }

    /// Sets the pixel limit.
    pub fn max_pixels(mut self, max_pixels: u64) -> EngineBuilder {
        self.config.max_pixels = max_pixels;
        self
    }

    /// Sets the byte limit.
    pub fn max_bytes(mut self, max_bytes: usize) -> EngineBuilder {
        self.config.max_bytes = max_bytes;
        self
    }

    /// Makes the engine, loading the embedded classifier.
    pub fn build(self) -> Engine {
        let model =
            Mlp::from_bytes(MODEL_BYTES).expect("the embedded classifier weights are well formed");
        Engine { config: self.config, model }
    }
}

/// Reads MRZs from images. Build once and share: reading takes `&self`.
#[derive(Clone, Debug)]
pub struct Engine {
    config: EngineConfig,
    model: Mlp,
}

impl Engine {
    /// The configuration in use.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// Reads the MRZ of an encoded image.
    ///
    /// Returns an error only when the input is not a usable image; a photo
    /// without a readable MRZ gives `Ok` with status `NoMrz` or `Partial`.
    pub fn read(
        &self,
        image_bytes: &[u8],
        options: &ParseOptions,
    ) -> Result<ImageReading, ImageError> {
        let started = Instant::now();
        let limits =
            DecodeLimits { max_pixels: self.config.max_pixels, max_bytes: self.config.max_bytes };
        let decoded = decode(image_bytes, limits)?;
        let mut reading = self.read_gray(&decoded.gray, options);
        reading.image_format = decoded.format;
        reading.timing_ms = started.elapsed().as_secs_f64() * 1000.0;
        Ok(reading)
    }

    /// Reads the MRZ of an already decoded, upright grayscale image.
    pub fn read_gray(&self, gray: &crate::gray::Gray, options: &ParseOptions) -> ImageReading {
        self.read_gray_with_cells(gray, options).0
    }

    /// Like [`Engine::read_gray`], also returning the cell geometry of the
    /// chosen reading (for drawing and for measuring the localiser).
    pub fn read_gray_with_cells(
        &self,
        gray: &crate::gray::Gray,
        options: &ParseOptions,
    ) -> (ImageReading, Option<Vec<Vec<CellGeometry>>>) {
        let started = Instant::now();
        let work = work_image(gray);
        let (mut best, mut report) = self.best_attempt(gray, &work, Darkness::NORMAL);
        // Faint or thin print breaks apart under the normal threshold; without a
        // confident reading, the photo gets a second look at a fainter one.
        if best.as_ref().is_none_or(|b| !is_confident(&b.reading)) {
            let (faint, faint_report) = self.best_attempt(gray, &work, Darkness::FAINT);
            if faint.as_ref().is_some_and(|f| best.as_ref().is_none_or(|b| rank(f) > rank(b))) {
                (best, report) = (faint, faint_report);
            }
        }
        let cells = best.as_ref().map(|b| b.cells.clone());
        let mut result = crate::diagnose::conclude(best, &report, gray, work.scale, options);
        result.image_width = gray.width;
        result.image_height = gray.height;
        result.timing_ms = started.elapsed().as_secs_f64() * 1000.0;
        (result, cells)
    }

    /// Locates MRZ candidates with one ink threshold and reads them, best first,
    /// stopping at the first confident reading.
    fn best_attempt(
        &self,
        gray: &crate::gray::Gray,
        work: &WorkImage,
        darkness: Darkness,
    ) -> (Option<Attempt>, LocateReport) {
        let (candidates, report) = locate(&work.image, darkness);
        let mut best: Option<Attempt> = None;
        for candidate in candidates.iter().take(self.config.max_candidates) {
            let attempts = read_candidate(&self.model, gray, work.scale, candidate);
            if let Some(attempt) = attempts.into_iter().next() {
                if best.as_ref().is_none_or(|b| rank(&attempt) > rank(b)) {
                    best = Some(attempt);
                }
                if best.as_ref().is_some_and(|b| is_confident(&b.reading)) {
                    break;
                }
            }
        }
        (best, report)
    }
}

/// Whether a reading can be reported as read: every check digit passes and
/// the characters no check digit protects were recognised with confidence.
pub(crate) fn is_confident(reading: &Reading) -> bool {
    reading.valid && reading.min_unchecked_confidence >= 0.5 && reading.min_confidence >= 0.2
}
