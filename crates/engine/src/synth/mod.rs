//! Synthetic MRZ photos with exact labels, for training the classifier and for
//! scoring the whole reader on documents nobody has to photograph.

pub mod canvas;
pub mod document;
pub mod export;
pub mod rng;
pub mod text;

pub use canvas::{Canvas, FontError, OcrFont};
pub use document::{SceneOptions, SynthDocument, generate};
pub use rng::Rng;
pub use text::{SynthFormat, random_line, random_mrz};

/// Where Debian's `fonts-ocr-b` package installs the OCR-B face.
pub const DEBIAN_OCRB_PATH: &str = "/usr/share/fonts/opentype/ocr-b/OCRB.otf";
