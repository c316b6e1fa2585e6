//! Synthetic MRZ photos with exact labels, for training the reader's classifier and for
//! scoring the whole reader on documents nobody has to photograph; and the two
//! development tools built on them, `mrtd-train` (the committed weights) and `mrtd-synth`
//! (labelled test sets).
//!
//! A crate of its own so that the served binary links no font rasteriser: the engine
//! exposes what the generator must share with the reader (`cells`, `geometry`, `gray`,
//! `model`), and nothing here is reachable from `mrtd`.

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

/// A network with small deterministic pseudo-random weights (He initialisation), where
/// training starts.
pub fn initial_weights(n_hidden: usize, seed: u64) -> mrtd_engine::model::Mlp {
    use mrtd_engine::{cells::CELL_LEN, model::N_CLASSES};
    let mut rng = Rng::new(seed);
    let s1 = (2.0 / CELL_LEN as f32).sqrt();
    let s2 = (2.0 / n_hidden as f32).sqrt();
    mrtd_engine::model::Mlp {
        n_hidden,
        w1: (0..n_hidden * CELL_LEN).map(|_| rng.normal() * s1).collect(),
        b1: vec![0.0; n_hidden],
        w2: (0..N_CLASSES * n_hidden).map(|_| rng.normal() * s2).collect(),
        b2: vec![0.0; N_CLASSES],
    }
}
