//! mrtd-engine: finds and reads the machine readable zone (MRZ, ICAO 9303) of
//! passports, ID cards and visas in photos.
//!
//! The pipeline is image → [decode](Engine::read) (EXIF orientation, limits) →
//! locate (rows of evenly spaced glyph blobs at any angle, grouped into two or
//! three parallel lines) → recognise (fixed-pitch cells classified by a small
//! embedded network) → decode (by `mrtd-mrz`: layout, character classes, check digits).
//!
//! ```no_run
//! let engine = mrtd_engine::EngineBuilder::new().build();
//! let bytes = std::fs::read("passport.jpg").unwrap();
//! let reading = engine.read(&bytes, &mrtd_engine::ParseOptions::default()).unwrap();
//! println!("{:?}: {:?}", reading.status, reading.reading.map(|r| r.lines));
//! ```
//!
//! # API
//!
//! Reading: [`EngineBuilder`] → [`Engine::read`] → [`ImageReading`] (with [`Status`] and
//! [`Diagnostic`]s), or [`ImageError`] for bytes that are no usable image.
//! On request, [`Engine::crops`] draws the page and the portrait a reading located
//! ([`Crops`]). [`decoded_pixels_total`] counts the pixels decoded in the process, for a server's metrics.
//!
//! For the synthetic-document generator and trainer (`mrtd-synth`), which must sample and
//! classify cells exactly as the reader does, and for the fuzz targets: [`cells`] (cell
//! geometry and sampling), [`geometry`], [`gray`], [`model`] (the classifier and its
//! weight file) and [`jpeg::decode_half_luma`]. Nothing else is public.

mod attempt;
pub mod cells;
mod components;
mod crops;
mod diagnose;
mod engine;
mod error;
mod face;
pub mod geometry;
mod glyphs;
pub mod gray;
mod image;
pub mod jpeg;
mod locate;
pub mod model;
mod outline;
mod pdf;
mod plausible;
mod recognise;
mod shade;
mod strokes;
mod types;
mod visual;
mod weigh;

pub use crops::{Crop, Crops, MAX_PIXELS_PER_MM};
pub use engine::{Engine, EngineBuilder, EngineConfig};
pub use error::ImageError;
pub use image::decoded_pixels_total;
pub use mrtd_mrz::{ParseOptions, Reading};
pub use mrtd_text::TextError;
pub use outline::{DocumentOutline, PortraitZone};
pub use types::{Diagnostic, DiagnosticCode, ImageReading, Status};
pub use visual::{VisualField, VisualFieldName, VisualZone};
