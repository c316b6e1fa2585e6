//! Whether the layout's portrait zone holds a face: SeetaFace's frontal face detector
//! (`rustface`, BSD-2-Clause, model by the VIPL group of the Chinese Academy of Sciences,
//! BSD-2-Clause), run only over the zone, straightened to the upright page.
//!
//! The model file is the one `rustface` 0.1.7 ships, copied into `model/` and embedded; its
//! SHA-256 is checked when the engine is built, so a changed or truncated file fails loudly
//! instead of finding no faces.

use std::fmt;
use std::sync::Arc;

use sha2::{Digest, Sha256};

use crate::gray::Gray;
use crate::outline::PageToPhoto;

/// The SeetaFace frontal face detection model, as `rustface` ships it.
static FACE_MODEL_BYTES: &[u8] = include_bytes!("../model/seeta_fd_frontal_v1.0.bin");

/// The SHA-256 of [`FACE_MODEL_BYTES`].
const FACE_MODEL_SHA256: &str = "c4619d066ed35e84d9a8e842860b0dff567aba0cbb139881075538761db3ff5d";

/// Samples per page millimetre in the straightened zone: a printed portrait's face
/// (20 to 30 mm high) is then 60 to 90 samples high, above the detector's window (40) and
/// small enough to be cheap.
const SAMPLES_PER_MM: f32 = 3.0;

/// The smallest face looked for, in samples: a face under 12 mm high is no portrait.
const MIN_FACE_SAMPLES: u32 = 36;

/// The detector's score from which a window is a face: SeetaFace's own example's.
const FACE_SCORE: f64 = 2.0;

/// The longest side, in samples, a whole photo is looked at for a face at: a card's front
/// a third of a phone photo wide then shows its portrait's face about 40 samples high.
const PHOTO_SAMPLES: usize = 480;

/// The smallest face looked for in a whole photo, in samples.
const MIN_PHOTO_FACE_SAMPLES: u32 = 20;

/// The face detection model, shared between the engine's clones.
#[derive(Clone)]
pub(crate) struct FaceModel(Arc<rustface::Model>);

impl fmt::Debug for FaceModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FaceModel(SeetaFace frontal v1.0)")
    }
}

impl FaceModel {
    /// Loads the embedded model after checking its SHA-256.
    pub(crate) fn embedded() -> Result<FaceModel, String> {
        let digest = Sha256::digest(FACE_MODEL_BYTES);
        let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
        if hex != FACE_MODEL_SHA256 {
            return Err(format!("the face model's SHA-256 is {hex}, not {FACE_MODEL_SHA256}"));
        }
        let model = rustface::read_model(FACE_MODEL_BYTES).map_err(|error| error.to_string())?;
        Ok(FaceModel(Arc::new(model)))
    }

    /// Whether the page zone `zone` (millimetres: left, top, right, bottom), which
    /// `transform` maps into `gray`, holds a face the right way up on the page.
    pub(crate) fn face_in_zone(
        &self,
        gray: &Gray,
        transform: &PageToPhoto,
        zone: [f32; 4],
    ) -> bool {
        let upright = straighten(gray, transform, zone);
        !self.faces(&upright, MIN_FACE_SAMPLES).is_empty()
    }

    /// The surest upright face in the whole of `gray`, `[x0, y0, x1, y1]` in its pixels:
    /// what a photo without an MRZ shows when it is a document's side with the portrait
    /// (a card's front), or a face that is no document at all.
    pub(crate) fn face_in_photo(&self, gray: &Gray) -> Option<[f32; 4]> {
        let factor = gray.width.max(gray.height).div_ceil(PHOTO_SAMPLES).max(1);
        let small = gray.shrink(factor);
        let faces = self.faces(&small, MIN_PHOTO_FACE_SAMPLES);
        let face = faces.iter().max_by(|a, b| a.score().total_cmp(&b.score()))?;
        let rectangle = face.bbox();
        let scale = factor as f32;
        let (x0, y0) = (rectangle.x() as f32 * scale, rectangle.y() as f32 * scale);
        let (x1, y1) =
            (x0 + rectangle.width() as f32 * scale, y0 + rectangle.height() as f32 * scale);
        let (width, height) = (gray.width as f32, gray.height as f32);
        Some([
            x0.clamp(0.0, width),
            y0.clamp(0.0, height),
            x1.clamp(0.0, width),
            y1.clamp(0.0, height),
        ])
    }

    /// The faces in `image` at least `min_face` samples high.
    fn faces(&self, image: &Gray, min_face: u32) -> Vec<rustface::FaceInfo> {
        let (Ok(width), Ok(height)) = (u32::try_from(image.width), u32::try_from(image.height))
        else {
            return Vec::new();
        };
        if width < min_face || height < min_face {
            return Vec::new();
        }
        let mut detector = rustface::create_detector_with_model((*self.0).clone());
        detector.set_min_face_size(min_face);
        detector.set_score_thresh(FACE_SCORE);
        detector.set_pyramid_scale_factor(0.8);
        detector.set_slide_window_step(4, 4);
        detector.detect(&rustface::ImageData::new(&image.data, width, height))
    }
}

/// The zone resampled upright at [`SAMPLES_PER_MM`] (bilinear; outside the photo is mid
/// gray, which holds no face).
fn straighten(gray: &Gray, transform: &PageToPhoto, zone: [f32; 4]) -> Gray {
    let [left, top, right, bottom] = zone;
    let width = ((right - left) * SAMPLES_PER_MM).round().max(0.0) as usize;
    let height = ((bottom - top) * SAMPLES_PER_MM).round().max(0.0) as usize;
    let mut pixels = Vec::with_capacity(width * height);
    for row in 0..height {
        for column in 0..width {
            let page = (
                left + (column as f32 + 0.5) / SAMPLES_PER_MM,
                top + (row as f32 + 0.5) / SAMPLES_PER_MM,
            );
            let (x, y) = transform.apply(page);
            let inside =
                (0.0..gray.width as f32).contains(&x) && (0.0..gray.height as f32).contains(&y);
            pixels.push(if inside {
                gray.bilinear(x, y).round().clamp(0.0, 255.0) as u8
            } else {
                128
            });
        }
    }
    Gray { width, height, data: pixels }
}
