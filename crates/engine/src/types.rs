//! What a read returns: status, the reading, and diagnostics a person can act on.

use serde::Serialize;

use mrtd_mrz::Reading;

use crate::outline::{DocumentOutline, PortraitZone};

/// The outcome of reading one image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// An MRZ was read and every check digit matches.
    Read,
    /// An MRZ was found but not read with confidence (see the diagnostics).
    Partial,
    /// No MRZ was found.
    NoMrz,
}

/// Machine-readable kinds of diagnostic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum DiagnosticCode {
    /// Nothing that looks like an MRZ was seen.
    NoMrzFound,
    /// No MRZ, but a face: the side of a document with the portrait (a card's front),
    /// whose MRZ is on the other side.
    TurnOver,
    /// The MRZ runs into the edge of the photo.
    MrzCutAtEdge,
    /// The characters are too few pixels high.
    TooSmall,
    /// The characters are too blurred to tell apart.
    TooBlurred,
    /// Part of the MRZ is washed out by a reflection.
    Glare,
    /// Something other than the page (its edge, a fold, a finger, a holder) covers part of the MRZ.
    PartlyCovered,
    /// A line drawn over the page (a pen stroke, a frame) crosses part of the MRZ.
    MarkedOver,
    /// One line could not be read with confidence.
    LineUnreadable,
    /// Some check digits do not match.
    CheckDigitFailed,
    /// Characters no check digit covers were read with low confidence.
    LowConfidence,
    /// The document was not upright in the photo.
    Rotated,
    /// Characters were changed from the first guess to satisfy the layout or a check digit.
    Corrected,
    /// The photo shows a second MRZ that reads with confidence too (two documents or pages):
    /// one was read.
    AnotherMrz,
    /// The page's printed fields (its visual zone, read when asked for) differ from the
    /// MRZ's: a misread or an altered page.
    VisualZoneDiffers,
}

/// A finding about the read, in words a person can act on.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Diagnostic {
    /// What kind of finding this is.
    pub code: DiagnosticCode,
    /// A sentence that says what happened and what to do.
    pub message: String,
}

/// Everything the engine found in one image.
#[derive(Clone, Debug, Serialize)]
pub struct ImageReading {
    /// Read, partial or no MRZ.
    pub status: Status,
    /// The decoded MRZ when one was found (from the text engine's cell decoder).
    pub reading: Option<Reading>,
    /// Findings, most important first.
    pub diagnostics: Vec<Diagnostic>,
    /// How far the document is turned from upright, in degrees clockwise.
    pub rotation_degrees: f32,
    /// The MRZ quadrilateral in original image pixels (after EXIF orientation):
    /// top-left, top-right, bottom-right, bottom-left of the upright MRZ.
    pub region: Option<[(f32, f32); 4]>,
    /// The document's page in the photo, from the zone's geometry and the format's layout
    /// ([`crate::outline`]), when a zone was decoded.
    pub document: Option<DocumentOutline>,
    /// Where the layout puts the holder's portrait, when the zone's side of the document
    /// shows one (not a TD1 card's back) and part of it is in the photo.
    pub portrait: Option<PortraitZone>,
    /// Image width in pixels after EXIF orientation.
    pub image_width: usize,
    /// Image height in pixels after EXIF orientation.
    pub image_height: usize,
    /// The container format: jpeg, png, webp, tiff, bmp, heic or pdf.
    pub image_format: &'static str,
    /// For a PDF, the page (from 1) whose image this reading is of.
    pub page: Option<u32>,
    /// Time spent, in milliseconds.
    pub timing_ms: f64,
    /// The other documents' zones the photo shows that read with confidence too (then the
    /// diagnostic `another_mrz`), each concluded as this one; their own `others` are empty.
    pub others: Vec<ImageReading>,
}
