//! The arguments of reading a photo and parsing text, as the MCP tools and the REST API take
//! them; their JSON Schemas ([`crate::schema::input`]) are what both publish.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::ops::MAX_RETAIN_HOURS;

/// The arguments of `scan_document`: exactly one image source, and what to do with it.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScanArguments {
    /// The image file (JPEG, PNG, WebP, TIFF, BMP, HEIC or a scanned PDF) encoded as base64.
    pub image_base64: Option<String>,
    /// An https URL of the image; the server fetches it (public addresses only, at most 3
    /// redirects, 10 s).
    pub image_url: Option<String>,
    /// A file inside the server's image directory, relative to it, or its mrtd://images/ URI
    /// from resources/list.
    pub image_path: Option<String>,
    /// The document's other side (a card's front or back), as base64, when both sides are
    /// read in one call: the result is of the side with the MRZ, `other_side` names the other
    /// (its portrait, when it shows one).
    pub other_side_base64: Option<String>,
    /// The document's other side as an https URL (fetched as image_url is).
    pub other_side_url: Option<String>,
    /// The document's other side as a file inside the server's image directory, or its
    /// mrtd://images/ URI.
    pub other_side_path: Option<String>,
    /// Also answer the document's page, straightened, and the holder's portrait as JPEG
    /// images (`images` in the result, 8 pixels per page millimetre). With retain_hours above
    /// 0 the portrait (biometric data) is kept with the scan, the page never.
    #[serde(default)]
    #[schemars(extend("default" = false))]
    pub include_images: bool,
    /// Keep the result this many hours for get_scan; 0 keeps nothing.
    #[schemars(range(min = 0, max = MAX_RETAIN_HOURS), extend("default" = 0))]
    pub retain_hours: Option<i64>,
    /// YYYY-MM-DD; decides date centuries, expiry and age. Default: today (UTC).
    pub reference_date: Option<String>,
}

/// The arguments of `parse_mrz`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParseArguments {
    /// The 2 or 3 MRZ lines, top first (one string holding all lines also works).
    #[schemars(length(min = 1, max = 3))]
    pub lines: Vec<String>,
    /// YYYY-MM-DD; decides date centuries, expiry and age. Default: today (UTC).
    pub reference_date: Option<String>,
    /// Apply check-digit-guided corrections, for text that came from another recogniser
    /// (OCR). Off: the lines are taken as printed, a failing check digit stays failing, and
    /// the changes that would satisfy it come back as suggestions.
    #[serde(default)]
    #[schemars(extend("default" = false))]
    pub correct: bool,
}
