//! Finds and reads lines of printed text in an image: the visual zone of a travel document,
//! what its MRZ does not say (date of issue, place of birth, authority, names as printed).
//!
//! Two published networks do the work, both PaddleOCR's PP-OCRv4 (Apache-2.0), embedded in
//! the binary and checked by SHA-256 when loaded: a DB text detector, whose probability map
//! is cut into boxes here, and a CRNN/SVTR line recogniser, whose per-step probabilities are
//! decoded here by CTC. [`rten`] runs them, on one thread per read. Nothing here knows about
//! documents; it reads any upright text. See `model/README.md` for the networks' provenance.

mod detect;
mod error;
mod recognise;

use std::sync::{Arc, OnceLock};

use image::RgbImage;
use rten::{Model, RunOptions, ThreadPool};
use sha2::{Digest, Sha256};

pub use error::TextError;

static DETECTION: &[u8] = include_bytes!("../model/ppocr-v4-det.onnx");
static RECOGNITION: &[u8] = include_bytes!("../model/ppocr-v4-rec.onnx");
/// The recogniser's symbols, one per line, in the order of its outputs after the blank.
static ALPHABET: &str = include_str!("../model/ppocr-v4-keys.txt");

const DETECTION_SHA256: &str = "d2a7720d45a54257208b1e13e36a8479894cb74155a5efe29462512d42f49da9";
const RECOGNITION_SHA256: &str = "48fc40f24f6d2a207a2b1091d3437eb3cc3eb6b676dc3ef9c37384005483683b";

/// A line (or a run of words on one line) of text found in an image.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// What it says, as read.
    pub text: String,
    /// Where it is, `[x0, y0, x1, y1]` in the image's pixels.
    pub bbox: [f32; 4],
    /// The mean of its characters' probabilities (0 to 1).
    pub confidence: f32,
    /// Each character's probability, in the order of `text`'s characters.
    pub char_confidences: Vec<f32>,
}

/// The two networks, loaded once and shared by clones.
#[derive(Clone)]
pub struct TextReader {
    detection: Arc<Model>,
    recognition: Arc<Model>,
    alphabet: Arc<Vec<char>>,
}

impl std::fmt::Debug for TextReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextReader").finish_non_exhaustive()
    }
}

/// Loads a network from its embedded bytes, once their digest is the recorded one.
fn load(bytes: &'static [u8], sha256: &str, network: &'static str) -> Result<Model, TextError> {
    let digest: String = Sha256::digest(bytes).iter().map(|byte| format!("{byte:02x}")).collect();
    if digest != sha256 {
        return Err(TextError::Load { network });
    }
    Model::load_static_slice(bytes).map_err(|_| TextError::Load { network })
}

/// The pool the networks run on: one thread, so that a server's reads side by side each
/// take one core, as the MRZ reader does.
fn one_thread() -> RunOptions {
    static POOL: OnceLock<Arc<ThreadPool>> = OnceLock::new();
    let pool = POOL.get_or_init(|| Arc::new(ThreadPool::with_num_threads(1)));
    RunOptions::default().with_thread_pool(Some(Arc::clone(pool)))
}

/// The network input of `image`: its blue, green and red planes one after the other (the
/// order the networks were trained on), each pixel mapped by `normalise(channel, value)`.
fn planes(image: &RgbImage, normalise: impl Fn(usize, u8) -> f32) -> rten_tensor::NdTensor<f32, 4> {
    let (w, h) = (image.width() as usize, image.height() as usize);
    let mut data = vec![0.0f32; 3 * w * h];
    for (at, pixel) in image.pixels().enumerate() {
        for (channel, &value) in [pixel[2], pixel[1], pixel[0]].iter().enumerate() {
            data[channel * w * h + at] = normalise(channel, value);
        }
    }
    rten_tensor::NdTensor::from_data([1, 3, h, w], data)
}

impl TextReader {
    /// Loads the embedded networks (tens of milliseconds; keep the reader).
    pub fn new() -> Result<TextReader, TextError> {
        Ok(TextReader {
            detection: Arc::new(load(DETECTION, DETECTION_SHA256, "detection")?),
            recognition: Arc::new(load(RECOGNITION, RECOGNITION_SHA256, "recognition")?),
            alphabet: Arc::new(
                // The symbols, then the space the recogniser's last output stands for.
                ALPHABET
                    .lines()
                    .map(|line| line.chars().next().unwrap_or(' '))
                    .chain([' '])
                    .collect(),
            ),
        })
    }

    /// The boxes of text in `image`, `[x0, y0, x1, y1]` in its pixels, top to bottom.
    pub fn detect(&self, image: &RgbImage) -> Result<Vec<[f32; 4]>, TextError> {
        detect::boxes(&self.detection, image, &one_thread())
    }

    /// Reads the one line of text inside `bbox` of `image`; `None` where nothing is read.
    pub fn recognise(&self, image: &RgbImage, bbox: [f32; 4]) -> Result<Option<Line>, TextError> {
        recognise::line(&self.recognition, &self.alphabet, image, bbox, &one_thread())
    }

    /// Every line of text in `image`: found, then read, top to bottom and left to right.
    pub fn lines(&self, image: &RgbImage) -> Result<Vec<Line>, TextError> {
        let mut lines = Vec::new();
        for bbox in self.detect(image)? {
            if let Some(line) = self.recognise(image, bbox)? {
                lines.push(line);
            }
        }
        Ok(lines)
    }
}
