//! The document operations without a transport: what the MCP tools and the REST API
//! both do, returning typed answers ([`DocumentResult`], [`KeptScan`], [`ScanList`],
//! [`Deleted`], [`crate::check::CheckAnswers`]) or a typed [`ServiceError`].
//!
//! Every operation takes the caller's [`Principal`]; kept scans belong to it, and an
//! unknown, expired, deleted or foreign scan is the same [`ServiceError::NotFound`].

use std::time::{Duration, SystemTime};

use base64::Engine as _;
use serde_json::Value;

use crate::{
    AppState, Principal, Turn, dates,
    kept::{Deleted, KeptError, KeptScan, ScanList, ScanSummary},
    result::DocumentResult,
};

pub use crate::check::check;

/// Longest retention a caller may ask for: one year, in hours.
pub const MAX_RETAIN_HOURS: i64 = 8760;
/// Most scans one page of [`list`] holds.
pub const MAX_PAGE_SIZE: u32 = 100;
/// Scans one page of [`list`] holds when the caller does not say.
pub const DEFAULT_PAGE_SIZE: u32 = 20;

/// Why an operation failed. The `Display` text is safe to show to a caller.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServiceError {
    /// The request itself is wrong (a bad date, bad base64, an out-of-range number).
    #[error("{0}")]
    InvalidInput(String),
    /// The text given to parse is not an MRZ.
    #[error("This is not an MRZ: {0}.")]
    NotMrz(String),
    /// The bytes are not an image the engine can use; the message says why.
    #[error("{0}")]
    UnusableImage(String),
    /// The image at `image_url` was not fetched; the message says why.
    #[error("image_url was not read: {0}.")]
    ImageUrl(String),
    /// The chip data (EF.SOD or a data group) cannot be read; the message says why.
    #[error("The chip data cannot be used: {0}.")]
    ChipData(String),
    /// No scan the caller may see has this id.
    #[error(
        "No scan with this scan_id: it never existed, expired, was deleted, or belongs to another caller."
    )]
    NotFound,
    /// The list cursor was not issued by this server.
    #[error("The cursor is not valid; start again without one.")]
    InvalidCursor,
    /// Every recognition slot stayed taken, or the decoded-pixel budget full, for as long as
    /// a read may wait; retry after the given seconds.
    #[error("The server is busy reading other photos right now; retry in {0} seconds.")]
    Busy(u64),
    /// The store cannot be reached; nothing was changed.
    #[error("The scan store is unavailable right now; nothing was changed. Try again shortly.")]
    Unavailable,
}

impl From<crate::ImageFileError> for ServiceError {
    /// An `image_path` that cannot be read is the caller's to mend; the text is safe to show.
    fn from(error: crate::ImageFileError) -> Self {
        ServiceError::InvalidInput(error.to_string())
    }
}

impl ServiceError {
    /// Maps a store failure, logging the backend detail and keeping it from the caller.
    pub fn from_store(error: mrtd_store::StoreError) -> Self {
        match error {
            mrtd_store::StoreError::NotFound => ServiceError::NotFound,
            mrtd_store::StoreError::InvalidCursor => ServiceError::InvalidCursor,
            other => {
                tracing::error!(error = %other, source = ?std::error::Error::source(&other), "scan store failed");
                ServiceError::Unavailable
            }
        }
    }
}

/// Parses an optional `YYYY-MM-DD` reference date; today (UTC) when absent.
pub fn reference_date(text: Option<&str>) -> Result<mrtd_mrz::Date, ServiceError> {
    dates::reference_date(text).map_err(ServiceError::InvalidInput)
}

/// Checks a retention in hours: 0 (keep nothing) to [`MAX_RETAIN_HOURS`].
pub fn retain_hours(hours: i64) -> Result<i64, ServiceError> {
    if (0..=MAX_RETAIN_HOURS).contains(&hours) {
        Ok(hours)
    } else {
        Err(ServiceError::InvalidInput(format!(
            "'retain_hours' must be a whole number from 0 to {MAX_RETAIN_HOURS}"
        )))
    }
}

/// Decodes `image_base64`, accepting padding or not, the URL-safe alphabet (`-` and `_`,
/// as JWT libraries and Python's `urlsafe_b64encode` write it), whitespace, and `data:`
/// URLs as browsers produce them.
pub fn decode_base64(encoded: &str) -> Result<Vec<u8>, ServiceError> {
    let compact: String = encoded.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let payload = match compact.split_once(";base64,") {
        Some((prefix, data)) if prefix.starts_with("data:") => data,
        _ => compact.as_str(),
    };
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
    let url_safe = payload.contains(['-', '_']);
    let (padded, bare) =
        if url_safe { (URL_SAFE, URL_SAFE_NO_PAD) } else { (STANDARD, STANDARD_NO_PAD) };
    padded
        .decode(payload)
        .or_else(|_| bare.decode(payload))
        .map_err(|_| ServiceError::InvalidInput("image_base64 is not valid base64".to_owned()))
}

/// [`decode_base64`] for an argument that may be large: on the blocking pool from a
/// megabyte on, so that decoding a photo does not hold back the requests an async worker
/// thread serves meanwhile.
pub async fn decode_base64_owned(encoded: String) -> Result<Vec<u8>, ServiceError> {
    if encoded.len() < 1 << 20 {
        return decode_base64(&encoded);
    }
    tokio::task::spawn_blocking(move || decode_base64(&encoded)).await.unwrap_or_else(|_| {
        Err(ServiceError::InvalidInput("image_base64 could not be decoded".to_owned()))
    })
}

/// Fetches the image an `image_url` names, with the fetcher the server was composed with.
pub async fn fetch_image(state: &AppState, url: &str) -> Result<Vec<u8>, ServiceError> {
    match &state.image_urls {
        Some(fetcher) => fetcher.fetch(url).await.map_err(ServiceError::ImageUrl),
        None => Err(ServiceError::InvalidInput(
            "image_url is disabled on this server; send the image as image_base64".to_owned(),
        )),
    }
}

/// The image an `image_url` names: the one fetched before the request took its recognition
/// slot when there is one for this URL (over HTTP, the composition fetches it first),
/// else fetched now.
pub async fn image_from_url(
    state: &AppState,
    url: &str,
    fetched: Option<&crate::FetchedImage>,
) -> Result<Vec<u8>, ServiceError> {
    match fetched.and_then(|fetched| fetched.take(url)) {
        Some(outcome) => outcome.map_err(ServiceError::ImageUrl),
        None => fetch_image(state, url).await,
    }
}

/// How many pixels per page millimetre the page and portrait images are drawn at: 8, about
/// 200 dpi, a passport page 1,000 pixels wide.
pub const IMAGE_PIXELS_PER_MM: f32 = 8.0;

/// What reading a photo returns besides its MRZ.
#[derive(Debug, Clone, Copy, Default)]
pub struct Extras {
    /// Draw the page and the portrait as images ([`crate::result::ImagesPart`]); a kept
    /// scan keeps the portrait's.
    pub images: bool,
    /// Read the visual zone ([`crate::result::VisualZonePart`]).
    pub visual_zone: bool,
}

/// Reads one image. A photo without a readable MRZ is a result (`status` `partial` or
/// `no_mrz`, with diagnostics), not an error; only bytes that are no usable image fail.
/// The read waits for a slot in `turn` ([`crate::gate`]).
pub(crate) async fn recognise(
    state: &AppState,
    turn: &Turn,
    image: Vec<u8>,
    date: mrtd_mrz::Date,
    extras: Extras,
) -> Result<DocumentResult, ServiceError> {
    state.recognise(turn, image, date, extras).await
}

/// Reads a photo of a document and, when given, one of its other side (a card's front and
/// back, in either order): the result is of the side with the better reading, and names
/// the other ([`DocumentResult::from_sides`]). The photos are read one after the other;
/// asked for, the visual zone is read on both (the fields of a card's front with its back's).
pub(crate) async fn recognise_sides(
    state: &AppState,
    turn: &Turn,
    image: Vec<u8>,
    other_side: Option<Vec<u8>>,
    date: mrtd_mrz::Date,
    extras: Extras,
) -> Result<DocumentResult, ServiceError> {
    let Some(other) = other_side else {
        return recognise(state, turn, image, date, extras).await;
    };
    // The visual zone is read of both sides together, once both are read: a card prints
    // most of its fields on the side without the MRZ, compared with the other's MRZ.
    let alone = Extras { visual_zone: false, ..extras };
    let first = state.recognise_keeping(turn, image, date, alone).await?;
    let second = state.recognise_keeping(turn, other, date, alone).await?;
    state.sides(turn, first, second, extras.visual_zone).await
}

/// Keeps `result` for `retain_hours` hours as the caller's scan, adding `scan_id` and
/// `expires_at` to it; with 0 hours it keeps nothing and returns it unchanged. When the
/// result carries a portrait image (`include_images`), that JPEG is kept with the scan, the
/// one image ever kept, and the portrait part links it (`image`); other images are not kept.
pub(crate) async fn keep(
    state: &AppState,
    principal: &Principal,
    mut result: DocumentResult,
    retain_hours: i64,
) -> Result<DocumentResult, ServiceError> {
    let hours = u64::try_from(self::retain_hours(retain_hours)?).unwrap_or(0);
    if hours == 0 {
        return Ok(result);
    }
    // Of the images (asked for with `include_images`), the portrait alone is kept, beside
    // the result rather than in it; the page and the photo are answered, never kept.
    let portrait = result.portrait_image().and_then(|image| {
        base64::engine::general_purpose::STANDARD.decode(&image.data_base64).ok()
    });
    let mut kept = result.to_value();
    if let Value::Object(object) = &mut kept {
        object.remove("images");
        if let Some(Value::Object(other)) = object.get_mut("other_side") {
            other.remove("images");
        }
    }
    kept[crate::kept::KEPT_VERSION_KEY] = crate::kept::KEPT_VERSION.into();
    let new_scan = mrtd_store::NewScan {
        owner: principal.0.clone(),
        result: kept,
        retain_until: SystemTime::now() + Duration::from_secs(hours * 3600),
        portrait,
    };
    let record = state.store.insert(new_scan).await.map_err(ServiceError::from_store)?;
    if record.has_portrait
        && let Some(part) = result.portrait_part_mut()
    {
        part.image = Some(crate::kept::portrait_uri(record.id.as_str()));
    }
    result.scan_id = Some(record.id.as_str().to_owned());
    result.expires_at = Some(rfc3339(record.expires_at));
    Ok(result)
}

/// A photo to scan, as every door hands it over. Not `Debug`: it holds the photo, which no
/// log may show.
#[derive(Clone, Default)]
pub struct ScanRequest {
    /// The photo's bytes.
    pub image: Vec<u8>,
    /// A photo of the document's other side (a card's front and back), when given.
    pub other_side: Option<Vec<u8>>,
    /// Hours to keep a `read` result for; 0 keeps nothing.
    pub retain_hours: i64,
    /// The date expiry is judged on (`YYYY-MM-DD`), today's when `None`.
    pub reference_date: Option<String>,
    /// What to return besides the MRZ.
    pub extras: Extras,
}

/// Reads an image (and the document's other side, when given), waiting for a slot in
/// `turn`, and, when the reading is `read` and `retain_hours` is above 0, keeps the result
/// as `principal`'s. A result that is not `read` is returned but never kept.
pub async fn scan(
    state: &AppState,
    principal: &Principal,
    turn: &Turn,
    request: ScanRequest,
) -> Result<DocumentResult, ServiceError> {
    let ScanRequest { image, other_side, retain_hours, reference_date, extras } = request;
    let retain_hours = self::retain_hours(retain_hours)?;
    let date = self::reference_date(reference_date.as_deref())?;
    let mut result = recognise_sides(state, turn, image, other_side, date, extras).await?;
    if !result.is_read() {
        result.note_not_kept(retain_hours);
        return Ok(result);
    }
    keep(state, principal, result, retain_hours).await
}

/// The MRZ lines a user typed in answer to a scan that could not read a photo (the retry of
/// an `input_required` answer), with the scan's own settings. Not `Debug`: the lines are
/// document data.
#[derive(Clone, Copy)]
pub struct TypedRetry<'a, S> {
    /// The lines as typed.
    pub lines: &'a [S],
    /// The scan's reference date (`YYYY-MM-DD`), today's when `None`.
    pub reference_date: Option<&'a str>,
    /// The scan's hours to keep a `read` result for.
    pub retain_hours: i64,
}

/// Finishes a scan from the lines the user typed: parsed as a recogniser's text is, with
/// the corrections check digits prove (the user copies what the photo shows), marked
/// `typed`, and kept as [`scan`] keeps a photo's result.
pub async fn scan_typed<S: AsRef<str>>(
    state: &AppState,
    principal: &Principal,
    typed: TypedRetry<'_, S>,
) -> Result<DocumentResult, ServiceError> {
    let retain_hours = self::retain_hours(typed.retain_hours)?;
    let mut result = parse(typed.lines, typed.reference_date, true)?;
    result.source = Some("typed");
    if !result.is_read() {
        result.note_not_kept(retain_hours);
        return Ok(result);
    }
    keep(state, principal, result, retain_hours).await
}

/// The caller's kept scan, with its `scan_id` and `expires_at`.
pub async fn get(
    state: &AppState,
    principal: &Principal,
    id: &str,
) -> Result<KeptScan, ServiceError> {
    let record = state
        .store
        .get(&principal.0, id, SystemTime::now())
        .await
        .map_err(ServiceError::from_store)?;
    let id = record.id.as_str().to_owned();
    let kept = KeptScan::from_kept(record.result, id, rfc3339(record.expires_at));
    let mut kept = kept.map_err(|error| {
        match error {
            KeptError::NotAnObject => {
                tracing::error!("a kept scan in the store is not a versioned JSON object");
            }
            KeptError::Newer(version) => tracing::warn!(
                version,
                "a kept scan was kept by a newer version of mrtd; a replica of that version serves it"
            ),
        }
        ServiceError::Unavailable
    })?;
    if record.has_portrait {
        kept.link_portrait();
    }
    Ok(kept)
}

/// The portrait kept with the caller's scan, a JPEG: the same [`ServiceError::NotFound`] as
/// [`get`] gives, and for a scan kept without one (no `include_images`, or no portrait).
pub async fn portrait(
    state: &AppState,
    principal: &Principal,
    id: &str,
) -> Result<Vec<u8>, ServiceError> {
    state
        .store
        .portrait(&principal.0, id, SystemTime::now())
        .await
        .map_err(ServiceError::from_store)
}

/// Redeems a one-time `nonce` (a sealed `requestState`'s), remembering it until `until`:
/// `true` the first time, `false` once it was used, on any replica that shares the store.
pub async fn redeem(
    state: &AppState,
    nonce: &str,
    until: SystemTime,
) -> Result<bool, ServiceError> {
    state.store.redeem(nonce, until).await.map_err(ServiceError::from_store)
}

/// The MRZ lines of the caller's kept scan, as kept (empty when it holds none).
pub(crate) async fn kept_lines(
    state: &AppState,
    principal: &Principal,
    id: &str,
) -> Result<Vec<String>, ServiceError> {
    Ok(get(state, principal, id).await?.lines())
}

/// Forgets the caller's kept scan now, with its portrait.
pub async fn delete(
    state: &AppState,
    principal: &Principal,
    id: &str,
) -> Result<Deleted, ServiceError> {
    state
        .store
        .delete(&principal.0, id, SystemTime::now())
        .await
        .map_err(ServiceError::from_store)?;
    Ok(Deleted { scan_id: id.to_owned(), deleted: true })
}

/// One page of the caller's kept scans, newest first, never with document fields.
pub async fn list(
    state: &AppState,
    principal: &Principal,
    cursor: Option<&str>,
    limit: Option<u32>,
) -> Result<ScanList, ServiceError> {
    let limit = match limit {
        None => DEFAULT_PAGE_SIZE,
        Some(n) if (1..=MAX_PAGE_SIZE).contains(&n) => n,
        Some(_) => {
            return Err(ServiceError::InvalidInput(format!(
                "'limit' must be a whole number from 1 to {MAX_PAGE_SIZE}"
            )));
        }
    };
    let page = match state.store.list(&principal.0, SystemTime::now(), cursor, limit).await {
        Ok(page) => page,
        // A cursor the store did not issue is the caller's mistake, not an outage.
        Err(mrtd_store::StoreError::InvalidCursor | mrtd_store::StoreError::NotFound) => {
            return Err(ServiceError::InvalidCursor);
        }
        Err(error) => return Err(ServiceError::from_store(error)),
    };
    let text = |record: &mrtd_store::ScanRecord, key: &str| {
        record.result.get(key).and_then(Value::as_str).map(str::to_owned)
    };
    let scans = page
        .items
        .iter()
        .map(|record| ScanSummary {
            scan_id: record.id.as_str().to_owned(),
            created_at: rfc3339(record.created_at),
            expires_at: rfc3339(record.expires_at),
            status: text(record, "status"),
            format: text(record, "format"),
        })
        .collect();
    Ok(ScanList { scans, next_cursor: page.next_cursor })
}

/// Longest text [`parse`] accepts, far above any MRZ (3 lines of 44 characters).
pub(crate) const MAX_PARSE_CHARS: usize = 1_000;

/// Refuses MRZ text of more than [`MAX_PARSE_CHARS`], naming the argument (`lines`,
/// `mrz_lines`).
pub(crate) fn refuse_overlong<S: AsRef<str>>(
    lines: &[S],
    argument: &str,
) -> Result<(), ServiceError> {
    if lines.iter().map(|l| l.as_ref().len()).sum::<usize>() > MAX_PARSE_CHARS {
        return Err(overlong(argument));
    }
    Ok(())
}

/// The refusal of MRZ text far longer than any MRZ.
pub(crate) fn overlong(argument: &str) -> ServiceError {
    ServiceError::InvalidInput(format!(
        "'{argument}' is far longer than any MRZ (at most 3 lines of 44 characters)."
    ))
}

/// Parses typed or pasted MRZ lines (one string holding all lines also works).
///
/// Typed text is taken as printed unless `correct` asks for recognition-style correction
/// (text from another recogniser): a failing check digit stays failing and `valid` false,
/// and the changes that would satisfy it come back as `suggestions`.
pub fn parse<S: AsRef<str>>(
    lines: &[S],
    reference_date: Option<&str>,
    correct: bool,
) -> Result<DocumentResult, ServiceError> {
    let date = self::reference_date(reference_date)?;
    refuse_overlong(lines, "lines")?;
    if lines.is_empty() {
        return Err(ServiceError::InvalidInput("'lines' is required".to_owned()));
    }
    let lines: Vec<&str> = lines.iter().map(AsRef::as_ref).collect();
    let options = mrtd_mrz::ParseOptions { correct, ..mrtd_mrz::ParseOptions::new(date) };
    match mrtd_mrz::parse_text(&lines, &options) {
        Ok(reading) => Ok(DocumentResult::from_text(reading)),
        Err(not_mrz) => Err(ServiceError::NotMrz(not_mrz.to_string())),
    }
}

/// Formats a time as RFC 3339 in UTC, to the second.
pub fn rfc3339(time: SystemTime) -> String {
    humantime::format_rfc3339_seconds(time).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_formats_known_instants() {
        assert_eq!(rfc3339(SystemTime::UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_083_200 + 3_723);
        assert_eq!(rfc3339(t), "2026-12-01T01:02:03Z");
        let leap = SystemTime::UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(rfc3339(leap), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn base64_accepts_data_urls_and_missing_padding() {
        assert_eq!(decode_base64("data:image/png;base64,AAE=").unwrap(), [0, 1]);
        assert_eq!(decode_base64("AAE").unwrap(), [0, 1]);
        assert_eq!(decode_base64(" AA\nE= ").unwrap(), [0, 1]);
        assert!(matches!(decode_base64("***"), Err(ServiceError::InvalidInput(_))));
        // The URL-safe alphabet, padded or not; the two alphabets are not mixed.
        assert_eq!(decode_base64("-_8=").unwrap(), [0xfb, 0xff]);
        assert_eq!(decode_base64("-_8").unwrap(), [0xfb, 0xff]);
        assert_eq!(decode_base64("+/8=").unwrap(), [0xfb, 0xff]);
        assert!(decode_base64("+_8=").is_err());
    }

    #[test]
    fn retention_and_dates_are_checked() {
        assert!(retain_hours(0).is_ok());
        assert!(retain_hours(MAX_RETAIN_HOURS).is_ok());
        assert!(retain_hours(-1).is_err());
        assert!(retain_hours(MAX_RETAIN_HOURS + 1).is_err());
        assert!(reference_date(Some("2024-02-30")).is_err());
        assert!(reference_date(Some("2024-02-29")).is_ok());
    }

    #[test]
    fn parse_reads_lines_and_refuses_other_text() {
        let lines = [
            "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
            "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
        ];
        let read = parse(&lines, Some("2010-01-01"), false).unwrap().to_value();
        assert_eq!(read["status"], "read");
        assert_eq!(read["fields"]["surname"], "ERIKSSON");
        assert!(matches!(parse(&["hello"], None, false), Err(ServiceError::NotMrz(_))));
        assert!(matches!(parse::<&str>(&[], None, false), Err(ServiceError::InvalidInput(_))));
        let long = "A".repeat(MAX_PARSE_CHARS + 1);
        assert!(matches!(parse(&[long], None, false), Err(ServiceError::InvalidInput(_))));
    }
}
