//! The arguments of reading a photo and parsing text, as the MCP tools and the REST API take
//! them; their JSON Schemas ([`crate::schema::input`]) are what both publish.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize, de::DeserializeOwned};
use serde_json::{Map, Value};

use crate::{
    AppState, FetchedImage, ImageFileError, ServiceError, image_path_of,
    ops::{self, Extras, MAX_RETAIN_HOURS},
};

/// The arguments of `scan_document`: exactly one image source, and what to do with it.
/// (Serialised only to bind an `input_required` retry to the call that asked for it.)
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
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
    /// Also read the document's visual zone, the fields printed for people (date of issue,
    /// place of birth, issuing authority, personal number, names as printed), and compare
    /// those the MRZ holds too with it (`visual_zone` in the result). Costs seconds more a
    /// photo (the text networks read every line of the page).
    #[serde(default)]
    #[schemars(extend("default" = false))]
    pub visual_zone: bool,
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

/// Arguments as their type, from a JSON object: what every door takes, with the error
/// naming the argument that is wrong (`'limit' must be a whole number, 0 or more, not a
/// string`).
/// The strings move out of `arguments`: a photo's base64 is not copied.
pub fn from_object<T: DeserializeOwned>(arguments: Map<String, Value>) -> Result<T, ServiceError> {
    serde_path_to_error::deserialize(Value::Object(arguments)).map_err(argument_error)
}

/// Arguments as their type, from a JSON body, with the error naming the argument.
pub fn from_slice<T: DeserializeOwned>(body: &[u8]) -> Result<T, ServiceError> {
    let mut json = serde_json::Deserializer::from_slice(body);
    let arguments = serde_path_to_error::deserialize(&mut json).map_err(argument_error)?;
    json.end()
        .map_err(|error| ServiceError::InvalidInput(format!("The JSON is not valid: {error}")))?;
    Ok(arguments)
}

fn argument_error(error: serde_path_to_error::Error<serde_json::Error>) -> ServiceError {
    let path = error.path().to_string();
    let inner = error.into_inner();
    let message = inner.to_string();
    // From a body, serde_json adds where in it: the argument's name says more.
    let bare = match message.rsplit_once(" at line ") {
        Some((said, _)) if inner.line() > 0 => said,
        _ => message.as_str(),
    };
    let plain = match plain_object_error(bare) {
        // An unknown or missing argument.
        Some(plain) => plain,
        // No object at all, or JSON that is not valid.
        None if path == "." => format!("The arguments are not valid: {message}"),
        None => match plain_type_error(bare) {
            Some(plain) => format!("'{path}' {plain}"),
            None => format!("'{path}': {message}"),
        },
    };
    ServiceError::InvalidInput(plain)
}

/// serde's words for an unknown or a missing argument, in the words of the tools' docs.
fn plain_object_error(message: &str) -> Option<String> {
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let (name, known) = rest.split_once('`')?;
        // The known names are the quoted ones: "expected `a` or `b`", "expected one of ...".
        let known: Vec<&str> = known.split('`').skip(1).step_by(2).collect();
        return Some(format!("unknown argument '{name}'; the known ones are {}", known.join(", ")));
    }
    let name = message.strip_prefix("missing field `")?.strip_suffix('`')?;
    Some(format!("'{name}' is required"))
}

/// serde's words for a value of the wrong kind (`invalid type: string "x", expected u32`),
/// as `must be a whole number, not a string`.
fn plain_type_error(message: &str) -> Option<String> {
    let rest = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "))?;
    let (found, expected) = rest.rsplit_once(", expected ")?;
    let expected = match expected {
        "i64" | "i32" => "a whole number",
        "u64" | "u32" | "usize" => "a whole number, 0 or more",
        "a sequence" => "a list",
        "a boolean" => "true or false",
        "a string" => "a string",
        _ => return None,
    };
    let found = match found.split_once(' ').map_or(found, |(kind, _)| kind) {
        "string" => "a string".to_owned(),
        "integer" | "floating" => found.rsplit_once(' ')?.1.trim_matches('`').to_owned(),
        "sequence" => "a list".to_owned(),
        "map" => "an object".to_owned(),
        "boolean" => "a boolean".to_owned(),
        "null" => "null".to_owned(),
        _ => return None,
    };
    Some(format!("must be {expected}, not {found}"))
}

/// Where an image comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageSource {
    /// The file itself, base64 (a `data:` URL too).
    Base64(String),
    /// An https URL the server fetches.
    Url(String),
    /// A file in the server's image directory, or its `mrtd://images/` URI.
    Path(String),
}

impl ImageSource {
    /// The one source among the three a caller may give for `what`, if any.
    fn one_of(
        what: &str,
        names: [&str; 3],
        given: [Option<String>; 3],
    ) -> Result<Option<ImageSource>, ServiceError> {
        let [base64, url, path] = given;
        let sources = [base64.map(Self::Base64), url.map(Self::Url), path.map(Self::Path)];
        let mut sources = sources.into_iter().flatten();
        let source = sources.next();
        if sources.next().is_some() {
            let [base64, url, path] = names;
            return Err(ServiceError::InvalidInput(format!(
                "give {what} as exactly one of {base64}, {url} or {path}"
            )));
        }
        Ok(source)
    }

    /// The image's bytes: decoded, fetched (or taken from what the HTTP front fetched
    /// before the read took its slot), or read from the image directory.
    pub async fn bytes(
        self,
        state: &AppState,
        fetched: Option<&FetchedImage>,
    ) -> Result<Vec<u8>, ServiceError> {
        match self {
            Self::Base64(encoded) => ops::decode_base64_owned(encoded).await,
            Self::Url(url) => ops::image_from_url(state, &url, fetched).await,
            Self::Path(path) => {
                let dir = state.image_dir().ok_or(ImageFileError::Disabled)?;
                let relative = image_path_of(&path).unwrap_or(path);
                Ok(dir.read(&relative).await?)
            }
        }
    }
}

/// A scan as its arguments ask for it: the images' sources checked, the rest as given.
#[derive(Debug, Clone)]
pub struct ScanSources {
    /// The photo.
    pub image: ImageSource,
    /// The document's other side, when given.
    pub other_side: Option<ImageSource>,
    /// Hours to keep the result (checked by the scan itself).
    pub retain_hours: i64,
    /// YYYY-MM-DD, or today.
    pub reference_date: Option<String>,
    /// What to answer besides the reading.
    pub extras: Extras,
}

impl ScanArguments {
    /// The scan these arguments ask for: exactly one source for the photo, at most one for
    /// the other side.
    pub fn into_sources(self) -> Result<ScanSources, ServiceError> {
        let image = ImageSource::one_of(
            "the image",
            ["image_base64", "image_url", "image_path"],
            [self.image_base64, self.image_url, self.image_path],
        )?
        .ok_or_else(|| {
            ServiceError::InvalidInput(
                "give the image as exactly one of image_base64, image_url or image_path".to_owned(),
            )
        })?;
        let other_side = ImageSource::one_of(
            "the other side",
            ["other_side_base64", "other_side_url", "other_side_path"],
            [self.other_side_base64, self.other_side_url, self.other_side_path],
        )?;
        Ok(ScanSources {
            image,
            other_side,
            retain_hours: self.retain_hours.unwrap_or(0),
            reference_date: self.reference_date,
            extras: Extras { images: self.include_images, visual_zone: self.visual_zone },
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::kept::{ListRequest, ScanIdRequest};

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!("an object"),
        }
    }

    #[test]
    fn a_wrong_argument_is_named_in_plain_words() {
        let said = |error: ServiceError| error.to_string();
        let list = |value: Value| said(from_object::<ListRequest>(object(value)).unwrap_err());
        assert_eq!(
            list(json!({ "limit": "ten" })),
            "'limit' must be a whole number, 0 or more, not a string"
        );
        assert_eq!(
            list(json!({ "limit": -1 })),
            "'limit' must be a whole number, 0 or more, not -1"
        );
        assert_eq!(list(json!({ "cursor": [] })), "'cursor' must be a string, not a list");
        assert_eq!(
            list(json!({ "limt": 10 })),
            "unknown argument 'limt'; the known ones are cursor, limit"
        );
        let scan = |value: Value| said(from_object::<ScanArguments>(object(value)).unwrap_err());
        assert_eq!(
            scan(json!({ "retain_hours": 1e300 })),
            "'retain_hours' must be a whole number, not 1e+300"
        );
        assert_eq!(
            scan(json!({ "include_images": "yes" })),
            "'include_images' must be true or false, not a string"
        );
        let parse = |value: Value| said(from_object::<ParseArguments>(object(value)).unwrap_err());
        assert_eq!(parse(json!({ "lines": [1] })), "'lines[0]' must be a string, not 1");
        assert_eq!(parse(json!({ "lines": "P<UTO" })), "'lines' must be a list, not a string");
        assert_eq!(
            said(from_object::<ScanIdRequest>(Map::new()).unwrap_err()),
            "'scan_id' is required"
        );
        let error = from_slice::<ParseArguments>(br#"{"lines": ["a"]} x"#).unwrap_err();
        assert!(error.to_string().starts_with("The JSON is not valid"), "{error}");
        let parsed = from_slice::<ParseArguments>(br#"{"lines": ["a", "b"], "correct": true}"#);
        assert_eq!(parsed.unwrap().lines, ["a", "b"]);
    }

    #[test]
    fn a_scan_takes_exactly_one_source_per_side() {
        let sources = |value: Value| {
            from_object::<ScanArguments>(object(value)).and_then(ScanArguments::into_sources)
        };
        let scan = sources(json!({ "image_path": "a.jpg", "other_side_url": "https://x/b.jpg",
                                   "retain_hours": 2, "include_images": true }))
        .unwrap();
        assert_eq!(scan.image, ImageSource::Path("a.jpg".to_owned()));
        assert_eq!(scan.other_side, Some(ImageSource::Url("https://x/b.jpg".to_owned())));
        assert_eq!((scan.retain_hours, scan.extras.images), (2, true));
        let both = sources(json!({ "image_base64": "AA==", "image_url": "https://x/a.jpg" }));
        assert!(both.unwrap_err().to_string().contains("exactly one of image_base64"));
        let none = sources(json!({ "retain_hours": 1 }));
        assert!(none.unwrap_err().to_string().contains("exactly one of image_base64"));
        let sides = sources(json!({ "image_base64": "AA==", "other_side_base64": "AA==",
                                    "other_side_path": "b.jpg" }));
        assert!(sides.unwrap_err().to_string().contains("the other side as exactly one"));
    }
}
