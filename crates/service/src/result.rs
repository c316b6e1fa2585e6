//! The document result: what `scan_document`, `get_scan` and `parse_mrz` put in
//! `structuredContent`, what `POST /v1/scans` and `POST /v1/parse` answer and what
//! `mrtd scan --json` prints, one type serialised once at each edge.
//!
//! The reading's own fields (`format`, `lines`, `valid`, `fields`, `dates`, `codes`,
//! `checks`, `evidence`, `residual_risk`, `corrections`, `ambiguities`, `warnings`,
//! `derived`) are `mrtd_mrz::Reading`'s, flattened into the envelope; without a reading
//! they are `null` or empty.

use mrtd_engine::{Diagnostic, DiagnosticCode, ImageReading, Status};
use mrtd_mrz::Reading;

mod verdict;
mod visual;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
pub use verdict::{CheckDigits, Expiry, Headline, Verdict};
pub use visual::{VisualFieldPart, VisualZonePart};

/// One document result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DocumentResult {
    /// `read`, `partial` or `no_mrz`.
    pub status: Status,
    /// The verdict in one vocabulary, which every front end renders: whether the result may
    /// be used without a person looking, what the check digits say, whether the document is
    /// in date.
    pub verdict: Verdict,
    /// The reading, or its empty shape.
    #[serde(flatten)]
    pub reading: ReadingPart,
    /// Findings a person can act on, most important first (none for typed text).
    pub diagnostics: Vec<Diagnostic>,
    /// Where and how the photo was read; absent for typed text.
    #[serde(flatten)]
    pub photo: Option<Photo>,
    /// `typed` when the lines were typed by the user in answer to a request for them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<&'static str>,
    /// The id of the kept scan, when it was kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scan_id: Option<String>,
    /// When the kept scan expires (UTC, RFC 3339), when it was kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    /// Why the result was not kept although `retain_hours` asked for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_kept: Option<String>,
    /// What an NFC reader app needs to open the document's chip (BAC/PACE): present only
    /// when the reading is `read` and every check digit holds, and not for visas.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chip_access: Option<mrtd_chip::ChipAccess>,
    /// When two photos of one document's sides were read together (a card's front and
    /// back, in either order): the one this result is not of, the side without the MRZ.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_side: Option<OtherSide>,
    /// The other documents' zones a photo shows that read with confidence too (with the
    /// diagnostic `another_mrz`): each one's status, verdict, reading, advice and place.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub other_documents: Vec<OtherDocument>,
    /// The page and the portrait as images, when asked for (`include_images`); answered and
    /// never logged. A kept result never holds them: a kept scan keeps the portrait's JPEG
    /// alone, beside the result, linked from the portrait part's `image`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub images: Option<ImagesPart>,
    /// The visual zone, the fields printed for people, when asked for (`visual_zone`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub visual_zone: Option<VisualZonePart>,
}

/// Another document in the same photo, read as the result's own: its status, verdict,
/// reading (format, lines, fields, check digits, corrections, warnings), advice, place,
/// page outline and portrait zone. Its page and portrait are not drawn as images
/// (`include_images`): scan a photo of it alone for those.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct OtherDocument {
    /// `read` or `partial`.
    pub status: Status,
    /// Its verdict, as the result's own.
    pub verdict: Verdict,
    /// Its reading, in the shape of the result's own.
    #[serde(flatten)]
    pub reading: ReadingPart,
    /// Its own findings a person can act on, most important first.
    pub diagnostics: Vec<Diagnostic>,
    /// Its zone's corners in image pixels, to a tenth.
    pub region: Option<[[f64; 2]; 4]>,
    /// Its page in the photo, as the result's own `document`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document: Option<DocumentPart>,
    /// Where its holder's portrait is printed, as the result's own `portrait` (never with
    /// a kept image).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub portrait: Option<PortraitPart>,
    /// What an NFC reader app needs to open its chip, as for the result's own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chip_access: Option<mrtd_chip::ChipAccess>,
}

impl OtherDocument {
    fn of(image: &ImageReading) -> Self {
        let reading = image.reading.as_ref();
        OtherDocument {
            status: image.status,
            verdict: Verdict::of(image.status, reading, false),
            reading: ReadingPart::of(image.reading.clone()),
            diagnostics: image.diagnostics.clone(),
            region: image.region.map(|region| region.map(|(x, y)| [tenth(x), tenth(y)])),
            document: image.document.as_ref().map(DocumentPart::of),
            portrait: image.portrait.as_ref().map(PortraitPart::of),
            chip_access: chip_access(image.status, reading),
        }
    }
}

/// What an NFC reader app needs to open the chip of a document read with `status`: only
/// for a `read` reading, and as `mrtd_chip::chip_access` decides (not for a visa).
fn chip_access(status: Status, reading: Option<&Reading>) -> Option<mrtd_chip::ChipAccess> {
    reading.filter(|_| status == Status::Read).and_then(mrtd_chip::chip_access)
}

/// The page and the portrait a photo's reading located, drawn upright from the photo.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ImagesPart {
    /// Pixels per millimetre of the page the images are drawn at.
    pub pixels_per_mm: f64,
    /// The document's page, straightened through the perspective of `document.corners`;
    /// absent without an outline (no zone read) and for a PDF or a photo over the pixel limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<EncodedImage>,
    /// The portrait: the layout's portrait zone of the page, or, on a side without an MRZ,
    /// the face found with the head and shoulders round it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub portrait: Option<EncodedImage>,
    /// The photo itself (for a PDF, the page image read), upright, at most 1,600 pixels on
    /// its longest side: `region`, `document` and `portrait` scaled by `width / image.width`
    /// fall on it. For showing the reading where the file cannot be shown (HEIC, TIFF, PDF).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub photo: Option<EncodedImage>,
}

/// An image, encoded.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EncodedImage {
    /// `image/jpeg`.
    pub mime_type: &'static str,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The encoded bytes, as base64.
    pub data_base64: String,
}

impl ImagesPart {
    /// The images the engine drew at `pixels_per_mm`.
    pub fn new(pixels_per_mm: f32, crops: mrtd_engine::Crops) -> Self {
        use base64::Engine as _;
        let encoded = |crop: mrtd_engine::Crop| EncodedImage {
            mime_type: "image/jpeg",
            width: crop.width,
            height: crop.height,
            data_base64: base64::engine::general_purpose::STANDARD.encode(crop.jpeg),
        };
        ImagesPart {
            pixels_per_mm: f64::from(pixels_per_mm),
            page: crops.page.map(encoded),
            portrait: crops.portrait.map(encoded),
            photo: crops.photo.map(encoded),
        }
    }
}

/// The other side of a document read together with the side the result is of.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct OtherSide {
    /// Which of the two photos it is: 1 (the first given) or 2.
    pub photo: u8,
    /// What was found on it: `no_mrz` for a card's front; `read` or `partial` when it shows
    /// an MRZ too (the result is of the better reading).
    pub status: Status,
    /// Where the holder's portrait is on it, in its own pixels: the face found on a side
    /// without an MRZ, or the layout's portrait zone on a side with one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub portrait: Option<PortraitPart>,
    /// Its image's size and container format.
    pub image: ImageInfo,
    /// Its page and portrait as images, when asked for (`include_images`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub images: Option<ImagesPart>,
}

/// The reading, or what stands for it when no MRZ could be decoded.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum ReadingPart {
    /// The decoded MRZ.
    Reading(Box<Reading>),
    /// No MRZ was decoded.
    None(NoReading),
}

impl ReadingPart {
    /// The part that stands for `reading`, or for its absence.
    fn of(reading: Option<Reading>) -> Self {
        match reading {
            Some(reading) => ReadingPart::Reading(Box::new(reading)),
            None => ReadingPart::None(NoReading::default()),
        }
    }
}

/// The reading's fields when there is no reading: nothing read, nothing valid.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct NoReading {
    /// No format: `null`.
    format: Option<()>,
    /// No lines.
    #[schemars(with = "[String; 0]")]
    lines: [(); 0],
    /// Never valid.
    valid: bool,
    /// No fields: `null`.
    fields: Option<()>,
    /// No check digits.
    #[schemars(with = "[String; 0]")]
    checks: [(); 0],
    /// No corrections.
    #[schemars(with = "[String; 0]")]
    corrections: [(); 0],
    /// No warnings.
    #[schemars(with = "[String; 0]")]
    warnings: [(); 0],
}

/// Where and how a photo was read.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Photo {
    /// How far the document was turned from upright, in degrees clockwise, to a tenth.
    pub rotation_degrees: f64,
    /// The MRZ's corners in image pixels to a tenth (top-left, top-right, bottom-right,
    /// bottom-left of the upright zone), when it was found.
    pub region: Option<[[f64; 2]; 4]>,
    /// The document's page in the photo, when a zone was decoded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document: Option<DocumentPart>,
    /// Where the holder's portrait is printed, when the zone's side of the document shows
    /// one (a TD1 card's back does not) and the page reaches into the photo there; on a
    /// photo without an MRZ, the face found in it (a card's front: see `turn_over`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub portrait: Option<PortraitPart>,
    /// The image's size and container format.
    pub image: ImageInfo,
    /// Time the engine took, in milliseconds, to a tenth.
    pub timing_ms: f64,
}

/// The document's page in the photo: where the format's nominal page lies, given where its
/// MRZ was found (ICAO 9303 fixes the zone's place on the page).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DocumentPart {
    /// The page's corners in image pixels, to a tenth (top-left, top-right, bottom-right,
    /// bottom-left of the upright page); a corner outside the photo has coordinates below
    /// zero or past its size.
    pub corners: [[f64; 2]; 4],
    /// Whether all four corners lie inside the photo.
    pub complete: bool,
    /// How many of the page's sides (0 to 4) were moved onto an edge the photo shows; the
    /// others are where the format's layout puts them.
    pub edges_found: usize,
}

impl DocumentPart {
    fn of(document: &mrtd_engine::DocumentOutline) -> Self {
        DocumentPart {
            corners: document.corners.map(|(x, y)| [tenth(x), tenth(y)]),
            complete: document.complete,
            edges_found: document.edges_found,
        }
    }
}

/// Where the holder's portrait is printed in the photo.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PortraitPart {
    /// The portrait zone of the format's layout, `[x0, y0, x1, y1]` in image pixels to a
    /// tenth, clipped to the photo; on a side without an MRZ, the box of the face found.
    #[serde(rename = "box")]
    pub bbox: [f64; 4],
    /// Whether a face detector found a face in the zone; `false` when it holds none (a
    /// placeholder, covered, cut off by the photo's edge) or the face is too small or blurred
    /// to detect.
    pub face_found: bool,
    /// The portrait kept with the scan, as a JPEG: the resource `mrtd://scans/{scan_id}/portrait`
    /// (over REST, `GET /v1/scans/{scan_id}/portrait`), for the scan's owner only and until it
    /// expires. Only in a kept result whose scan was kept with `include_images` and a portrait
    /// image, and only in the portrait part the image is of.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
}

impl PortraitPart {
    fn of(portrait: &mrtd_engine::PortraitZone) -> Self {
        PortraitPart {
            bbox: portrait.bbox.map(tenth),
            face_found: portrait.face_found,
            image: None,
        }
    }
}

/// An image's size after EXIF orientation, and its container format.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ImageInfo {
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// `jpeg`, `png`, `webp`, `tiff`, `bmp`, `heic` or `pdf`.
    pub format: &'static str,
    /// For a PDF, the page (from 1) the reading comes from; width and height are that
    /// page image's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
}

impl DocumentResult {
    /// A result that is not (yet) kept.
    fn new(
        status: Status,
        reading: Option<Reading>,
        diagnostics: Vec<Diagnostic>,
        photo: Option<Photo>,
    ) -> Self {
        let chip_access = chip_access(status, reading.as_ref());
        let verdict = Verdict::of(status, reading.as_ref(), photo.is_none());
        DocumentResult {
            status,
            verdict,
            reading: ReadingPart::of(reading),
            diagnostics,
            photo,
            source: None,
            scan_id: None,
            expires_at: None,
            not_kept: None,
            chip_access,
            other_side: None,
            other_documents: Vec::new(),
            images: None,
            visual_zone: None,
        }
    }

    /// The result of reading two photos of one document's sides, `first` and `second` in the
    /// order given: of the side with the better reading (the first when they are as good),
    /// the other side's status, portrait and image in [`OtherSide`]. A side that shows a
    /// face and no MRZ is not advised to be turned over, since its other side was read; when
    /// neither shows an MRZ, the result says so.
    pub fn from_sides(first: DocumentResult, second: DocumentResult) -> DocumentResult {
        let rank = |result: &DocumentResult| match result.status {
            Status::Read => 2,
            Status::Partial => 1,
            Status::NoMrz => 0,
        };
        let (mut result, other, photo) =
            if rank(&second) > rank(&first) { (second, first, 1) } else { (first, second, 2) };
        result.diagnostics.retain(|diagnostic| diagnostic.code != DiagnosticCode::TurnOver);
        if result.status == Status::NoMrz {
            result.diagnostics.insert(
                0,
                Diagnostic {
                    code: DiagnosticCode::NoMrzFound,
                    message: "Neither photo shows a machine readable zone: one of the two must be \
                              the side with the two or three lines with < signs (an ID card's \
                              back, a passport's page with the portrait)."
                        .to_owned(),
                },
            );
        }
        result.other_side = other.photo.map(|side| OtherSide {
            photo,
            status: other.status,
            portrait: side.portrait,
            image: side.image,
            images: other.images,
        });
        result
    }

    /// The result of reading a photo.
    pub fn from_image(image: &ImageReading) -> Self {
        let photo = Photo {
            rotation_degrees: tenth(image.rotation_degrees),
            region: image.region.map(|region| region.map(|(x, y)| [tenth(x), tenth(y)])),
            document: image.document.as_ref().map(DocumentPart::of),
            portrait: image.portrait.as_ref().map(PortraitPart::of),
            image: ImageInfo {
                width: image.image_width,
                height: image.image_height,
                format: image.image_format,
                page: image.page,
            },
            timing_ms: (image.timing_ms * 10.0).round() / 10.0,
        };
        let mut result =
            Self::new(image.status, image.reading.clone(), image.diagnostics.clone(), Some(photo));
        result.other_documents = image.others.iter().map(OtherDocument::of).collect();
        result
    }

    /// The result of parsing typed or pasted lines: `read` exactly when every check
    /// digit holds and the names hold only what names hold (a digit in a name of a document
    /// whose national coding is unknown stays as typed, and nothing checks it).
    pub fn from_text(reading: Reading) -> Self {
        let odd_name =
            reading.warnings.iter().any(|w| w.code == mrtd_mrz::WarningCode::UnusualName);
        let status = if reading.valid && !odd_name { Status::Read } else { Status::Partial };
        let diagnostics = typing_advice(&reading);
        Self::new(status, Some(reading), diagnostics, None)
    }

    /// Notes why the result is not kept when `retain_hours` asked for it and the reading is
    /// not `read` (only a result read in full is kept).
    pub fn note_not_kept(&mut self, retain_hours: i64) {
        if retain_hours > 0 && !self.is_read() {
            self.not_kept = Some(format!(
                "Only a result read in full is kept, and this one is {}: retake the photo \
                 (see the diagnostics), or parse the lines the document shows.",
                self.status_label()
            ));
        }
    }

    /// The portrait part a kept portrait belongs to: the result's own when its photo shows
    /// one, else the other side's (a card's front). Only its image is kept with a scan, and
    /// [`crate::kept::portrait_part`] finds the same part in a kept result.
    pub fn portrait_part_mut(&mut self) -> Option<&mut PortraitPart> {
        match self.photo.as_mut().and_then(|photo| photo.portrait.as_mut()) {
            Some(own) => Some(own),
            None => self.other_side.as_mut().and_then(|other| other.portrait.as_mut()),
        }
    }

    /// The link to the portrait kept with this result's scan (its portrait part's `image`),
    /// when one was kept.
    pub fn kept_portrait(&self) -> Option<&str> {
        let own = self.photo.as_ref().and_then(|photo| photo.portrait.as_ref());
        let other = self.other_side.as_ref().and_then(|other| other.portrait.as_ref());
        own.or(other).and_then(|part| part.image.as_deref())
    }

    /// The portrait image a kept scan keeps: the one of [`Self::portrait_part_mut`]'s part,
    /// drawn when `include_images` asked for images.
    pub fn portrait_image(&self) -> Option<&EncodedImage> {
        if self.photo.as_ref().is_some_and(|photo| photo.portrait.is_some()) {
            return self.images.as_ref().and_then(|images| images.portrait.as_ref());
        }
        let other = self.other_side.as_ref().filter(|other| other.portrait.is_some())?;
        other.images.as_ref().and_then(|images| images.portrait.as_ref())
    }

    /// Whether this is a reading a pipeline may use without a person looking.
    pub fn is_read(&self) -> bool {
        self.status == Status::Read
    }

    /// The status as a fixed label (for metrics).
    pub fn status_label(&self) -> &'static str {
        match self.status {
            Status::Read => "read",
            Status::Partial => "partial",
            Status::NoMrz => "no_mrz",
        }
    }

    /// The JSON every front end returns.
    pub fn to_value(&self) -> Value {
        // Serialising these types cannot fail: no map has non-string keys, and no
        // `Serialize` implementation below returns an error.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// A pixel coordinate to a tenth.
/// (Held as `f64`: an `f32` tenth is no exact decimal, and would print as one digit too many.)
fn tenth(value: f32) -> f64 {
    (f64::from(value) * 10.0).round() / 10.0
}

/// The JSON Schema of a document result, every subschema inlined (no `$ref`), without
/// `$schema`: what the tools publish as `outputSchema` and the OpenAPI document as
/// `DocumentResult`. Draft 7 keywords only, which every MCP client's validator reads.
pub fn schema() -> Value {
    // The schema of what is serialised (a field left out when empty is not required).
    let generator = schemars::generate::SchemaSettings::draft07().for_serialize().into_generator();
    let mut schema = generator.into_root_schema_for::<DocumentResult>().to_value();
    if let Value::Object(object) = &mut schema {
        object.remove("$schema");
    }
    crate::schema::drop_numeric_formats(&mut schema);
    schema
}

/// What typed text with a failing check digit says: which check digit, what was typed and
/// what the characters it covers give, and where to look. A person typing mistypes one
/// character, the check digit's or one it covers; the `ambiguities` list the single changes
/// that would make it hold.
fn typing_advice(reading: &Reading) -> Vec<Diagnostic> {
    reading
        .checks
        .iter()
        .filter(|check| check.status == mrtd_mrz::CheckStatus::Refuted)
        .map(|check| {
            let at = match (check.line, check.column) {
                (Some(line), Some(column)) => format!(" (line {line}, column {column})"),
                _ => String::new(),
            };
            let printed = check.printed.map_or_else(|| "nothing".to_owned(), String::from);
            let computed = check.computed.map_or_else(
                || "no digit (a character outside the MRZ alphabet)".to_owned(),
                |digit| digit.to_string(),
            );
            let covers: Vec<String> = check
                .covers
                .iter()
                .map(|range| format!("line {}, columns {}-{}", range.line, range.from, range.to))
                .collect();
            Diagnostic {
                code: DiagnosticCode::CheckDigitFailed,
                message: format!(
                    "Check digit of the {}{at}: typed {printed}, the characters it covers give \
                     {computed}. Check your typing of that digit and of {}.",
                    check.name.label(),
                    covers.join("; ")
                ),
            }
        })
        .collect()
}

/// A one-line summary for people (a tool result's text), without any document field: the
/// verdict's sentence, the diagnostics, and where the result is kept.
pub fn summary(result: &Value) -> String {
    let diagnostics: Vec<&str> = result["diagnostics"]
        .as_array()
        .map(|items| items.iter().filter_map(|d| d["message"].as_str()).collect())
        .unwrap_or_default();
    let mut text = result["verdict"]["summary"].as_str().unwrap_or("").to_owned();
    let n_corrections = result["corrections"].as_array().map_or(0, Vec::len);
    if n_corrections > 0 {
        text.push_str(&match n_corrections {
            1 => " 1 character was corrected.".to_owned(),
            n => format!(" {n} characters were corrected."),
        });
    }
    if !diagnostics.is_empty() {
        text.push(' ');
        text.push_str(&diagnostics.join(" "));
    }
    if let Some(id) = result["scan_id"].as_str() {
        text.push_str(&format!(" Kept as scan {id}."));
    }
    text.trim_start().to_owned()
}

#[cfg(test)]
mod tests;
