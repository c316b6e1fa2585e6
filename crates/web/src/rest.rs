//! The REST API under `/v1`: the same operations and results as the MCP tools, through
//! [`mrtd_service::ops`], for the caller the authentication layer identified.

use axum::{
    Json,
    body::{Body, Bytes},
    extract::{FromRequest, FromRequestParts, Multipart, Path, Query, State},
    response::{IntoResponse, Response},
};
use http::{HeaderValue, Request, StatusCode, header, request::Parts};
use mrtd_service::{
    AppState, Principal, ServiceError, Turn,
    arguments::{self, ScanArguments},
    check::CheckRequest,
    chip, ops as service,
};
use serde::{Deserialize, Serialize, de::DeserializeOwned};

use crate::error::ApiError;

/// The state of the REST handlers.
#[derive(Clone)]
pub(crate) struct Shared {
    state: AppState,
}

impl Shared {
    pub(crate) fn new(state: AppState) -> Self {
        Shared { state }
    }
}

/// The caller: the principal the authentication layer put into the request's
/// extensions, or the local user when the server runs without authentication.
pub(crate) struct Caller(Principal);

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(Caller(parts.extensions.get::<Principal>().cloned().unwrap_or_else(Principal::local)))
    }
}

/// The turn the caller's recognitions wait in: the one the composition named (the HTTP
/// front's caller), else the principal's.
pub(crate) struct InTurn(Turn);

impl<S: Send + Sync> FromRequestParts<S> for InTurn {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let turn = parts.extensions.get::<Turn>().cloned().unwrap_or_else(|| {
            Turn::of(parts.extensions.get::<Principal>().unwrap_or(&Principal::local()))
        });
        Ok(InTurn(turn))
    }
}

/// A JSON result that no cache may keep: results hold personal data.
fn private_json(status: StatusCode, body: impl Serialize) -> Response {
    let mut response = (status, Json(body)).into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// What `POST /v1/scans` was asked to do, whatever the body's media type.
type ScanInput = service::ScanRequest;

/// `POST /v1/scans`: read a photo; `201` with `Location` when kept, `200` otherwise.
pub(crate) async fn create_scan(
    State(shared): State<Shared>,
    Caller(principal): Caller,
    InTurn(turn): InTurn,
    request: Request<Body>,
) -> Result<Response, ApiError> {
    let input = match media_type(request.headers()).as_deref() {
        Some("multipart/form-data") => from_multipart(request).await?,
        Some(json) if is_json(json) => from_json(&shared.state, request).await?,
        Some(raw)
            if raw.starts_with("image/")
                || raw == "application/pdf"
                || raw == "application/octet-stream" =>
        {
            from_raw(request).await?
        }
        _ => {
            return Err(ApiError::unsupported_media_type(
                "Send the photo as the body itself (image/jpeg, image/png, ..., \
                 application/pdf or application/octet-stream), as multipart/form-data (an 'image' file part) or \
                 as JSON ({\"image_base64\": ...}).",
            ));
        }
    };
    let result = service::scan(&shared.state, &principal, &turn, input).await?;
    let Some(id) = result.scan_id.as_deref() else {
        return Ok(private_json(StatusCode::OK, result.to_value()));
    };
    let location = HeaderValue::from_str(&format!("/v1/scans/{id}")).ok();
    let mut response = private_json(StatusCode::CREATED, result.to_value());
    if let Some(location) = location {
        response.headers_mut().insert(header::LOCATION, location);
    }
    Ok(response)
}

/// The media type of the body, lower case, without parameters.
fn media_type(headers: &http::HeaderMap) -> Option<String> {
    let value = headers.get(header::CONTENT_TYPE)?.to_str().ok()?;
    Some(value.split(';').next()?.trim().to_ascii_lowercase())
}

fn is_json(media_type: &str) -> bool {
    media_type == "application/json" || media_type.ends_with("+json")
}

/// A JSON body: the arguments `scan_document` takes ([`ScanArguments`]), the photo's
/// source decoded, fetched or read from the image directory.
async fn from_json(state: &AppState, request: Request<Body>) -> Result<ScanInput, ApiError> {
    // An image_url the composition fetched before the request took a recognition slot.
    let fetched = request.extensions().get::<mrtd_service::FetchedImage>().cloned();
    let bytes = Bytes::from_request(request, &()).await?;
    // A photo's JSON runs to megabytes: it is parsed off the async workers.
    let sources = tokio::task::spawn_blocking(move || {
        arguments::from_slice::<ScanArguments>(&bytes).and_then(ScanArguments::into_sources)
    })
    .await
    .unwrap_or_else(|_| {
        Err(ServiceError::InvalidInput("The JSON body could not be read.".to_owned()))
    })?;
    let image = sources.image.bytes(state, fetched.as_ref()).await?;
    // The other side's URL is fetched here, inside the recognition slot.
    let other_side = match sources.other_side {
        Some(other) => Some(other.bytes(state, None).await?),
        None => None,
    };
    Ok(ScanInput {
        image,
        other_side,
        extras: sources.extras,
        retain_hours: sources.retain_hours,
        reference_date: sources.reference_date,
    })
}

async fn from_multipart(request: Request<Body>) -> Result<ScanInput, ApiError> {
    let mut multipart = Multipart::from_request(request, &()).await?;
    let mut input = ScanInput {
        image: Vec::new(),
        other_side: None,
        extras: service::Extras::default(),
        retain_hours: 0,
        reference_date: None,
    };
    let mut has_image = false;
    while let Some(field) = multipart.next_field().await? {
        let name = field.name().unwrap_or_default().to_owned();
        match name.as_str() {
            "image" => {
                input.image = field.bytes().await?.to_vec();
                has_image = true;
            }
            "other_side" => {
                input.other_side = Some(field.bytes().await?.to_vec()).filter(|b| !b.is_empty());
            }
            "include_images" => {
                input.extras.images = yes(&field.text().await?, "include_images")?;
            }
            "visual_zone" => {
                input.extras.visual_zone = yes(&field.text().await?, "visual_zone")?;
            }
            "retain_hours" => {
                let text = field.text().await?;
                input.retain_hours = text.trim().parse().map_err(|_| {
                    ApiError::bad_request("'retain_hours' must be a whole number of hours")
                })?;
            }
            "reference_date" => {
                let text = field.text().await?;
                input.reference_date = Some(text.trim().to_owned()).filter(|t| !t.is_empty());
            }
            other => {
                return Err(ApiError::bad_request(format!(
                    "unknown form field '{other}'; this endpoint takes: image, other_side, \
                     include_images, visual_zone, retain_hours, reference_date"
                )));
            }
        }
    }
    if !has_image || input.image.is_empty() {
        return Err(ApiError::bad_request("Add the photo as a file part named 'image'."));
    }
    Ok(input)
}

/// The query of `POST /v1/scans` with the photo as the body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawQuery {
    #[serde(default)]
    retain_hours: Option<String>,
    reference_date: Option<String>,
    include_images: Option<String>,
    visual_zone: Option<String>,
}

/// The photo as the body itself; `retain_hours` and `reference_date` in the query.
async fn from_raw(request: Request<Body>) -> Result<ScanInput, ApiError> {
    let query = axum::extract::Query::<RawQuery>::try_from_uri(request.uri()).map_err(|_| {
        ApiError::bad_request(
            "The query is not valid; this endpoint takes retain_hours, reference_date, \
             include_images and visual_zone.",
        )
    })?;
    let retain_hours = match query.retain_hours.as_deref().map(str::trim) {
        None | Some("") => 0,
        Some(text) => text.parse().map_err(|_| {
            ApiError::bad_request("'retain_hours' must be a whole number from 0 to 8760")
        })?,
    };
    let reference_date = query.0.reference_date.filter(|t| !t.trim().is_empty());
    let flag = |value: Option<&str>, name| value.map_or(Ok(false), |text| yes(text, name));
    let images = flag(query.0.include_images.as_deref(), "include_images")?;
    let visual_zone = flag(query.0.visual_zone.as_deref(), "visual_zone")?;
    let image = Bytes::from_request(request, &()).await?.to_vec();
    if image.is_empty() {
        return Err(ApiError::bad_request("The body is empty: send the photo as the body."));
    }
    Ok(ScanInput {
        image,
        other_side: None,
        extras: service::Extras { images, visual_zone },
        retain_hours,
        reference_date,
    })
}

/// A yes-or-no form field or query parameter: `true`/`1` or `false`/`0` (empty is no).
fn yes(text: &str, name: &str) -> Result<bool, ApiError> {
    match text.trim() {
        "true" | "1" => Ok(true),
        "false" | "0" | "" => Ok(false),
        _ => Err(ApiError::bad_request(format!("'{name}' must be true or false"))),
    }
}

/// The query of `GET /v1/scans`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListQuery {
    cursor: Option<String>,
    limit: Option<String>,
}

/// `GET /v1/scans`: the caller's kept scans, newest first, a page at a time.
pub(crate) async fn list_scans(
    State(shared): State<Shared>,
    Caller(principal): Caller,
    query: Result<Query<ListQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(query) = query.map_err(|_| {
        ApiError::bad_request("This endpoint takes the query parameters cursor and limit only.")
    })?;
    let limit =
        match query.limit.as_deref() {
            None => None,
            Some(text) => Some(text.trim().parse::<u32>().map_err(|_| {
                ApiError::bad_request("'limit' must be a whole number from 1 to 100")
            })?),
        };
    let cursor = query.cursor.as_deref().filter(|c| !c.is_empty());
    let page = service::list(&shared.state, &principal, cursor, limit).await?;
    Ok(private_json(StatusCode::OK, page))
}

/// `GET /v1/scans/{id}`: one kept scan of the caller.
pub(crate) async fn get_scan(
    State(shared): State<Shared>,
    Caller(principal): Caller,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let kept = service::get(&shared.state, &principal, &id).await?;
    Ok(private_json(StatusCode::OK, kept))
}

/// `GET /v1/scans/{id}/portrait`: the portrait kept with one of the caller's scans, a JPEG
/// that no cache may keep (it is biometric data); 404 as for the scan, and for a scan kept
/// without one.
pub(crate) async fn get_portrait(
    State(shared): State<Shared>,
    Caller(principal): Caller,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let jpeg = service::portrait(&shared.state, &principal, &id).await?;
    let headers = [
        (header::CONTENT_TYPE, HeaderValue::from_static("image/jpeg")),
        (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        (header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
    ];
    Ok((StatusCode::OK, headers, jpeg).into_response())
}

/// `DELETE /v1/scans/{id}`: forget a kept scan now; `204`.
pub(crate) async fn delete_scan(
    State(shared): State<Shared>,
    Caller(principal): Caller,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    service::delete(&shared.state, &principal, &id).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// The body of `POST /v1/parse`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ParseJson {
    lines: Option<Vec<String>>,
    text: Option<String>,
    reference_date: Option<String>,
    /// Apply check-digit-guided corrections (text from a recogniser); off by default.
    #[serde(default)]
    correct: bool,
}

/// `POST /v1/parse`: typed or pasted MRZ lines in, the document result out.
pub(crate) async fn parse(request: Request<Body>) -> Result<Response, ApiError> {
    let body: ParseJson =
        json_body(request, "Send {\"lines\": [...]} or {\"text\": \"...\"} as application/json.")
            .await?;
    let lines: Vec<String> = match (body.lines, body.text) {
        (Some(lines), None) => lines,
        (None, Some(text)) => {
            text.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_owned).collect()
        }
        _ => return Err(ApiError::bad_request("Give exactly one of 'lines' and 'text'.")),
    };
    if lines.len() > 3 {
        return Err(ApiError::bad_request("An MRZ has 2 or 3 lines; give at most 3."));
    }
    let result = service::parse(&lines, body.reference_date.as_deref(), body.correct)?;
    Ok(private_json(StatusCode::OK, result.to_value()))
}

/// `POST /v1/chip/verify`: EF.SOD and data groups in, the chip report out.
pub(crate) async fn verify_chip(
    State(shared): State<Shared>,
    Caller(principal): Caller,
    request: Request<Body>,
) -> Result<Response, ApiError> {
    let body: chip::ChipArguments = json_body(
        request,
        "Send {\"sod_base64\": \"...\", \"data_groups_base64\": [\"...\"]} as application/json.",
    )
    .await?;
    let request = body.into_request()?;
    let report = chip::verify_chip(&shared.state, &principal, request).await?;
    Ok(private_json(StatusCode::OK, report))
}

/// `POST /v1/check`: yes/no answers about a kept scan or MRZ lines, without the document's
/// fields; the `check_document` tool's arguments and answers.
pub(crate) async fn check(
    State(shared): State<Shared>,
    Caller(principal): Caller,
    request: Request<Body>,
) -> Result<Response, ApiError> {
    let body: CheckRequest = json_body(
        request,
        "Send {\"scan_id\": \"...\", \"min_age\": 18} or {\"lines\": [...], ...} as application/json.",
    )
    .await?;
    let answers = service::check(&shared.state, &principal, body).await?;
    Ok(private_json(StatusCode::OK, answers))
}

/// The JSON body of a request, as `T`; `415` with `hint` for another media type.
async fn json_body<T: DeserializeOwned>(request: Request<Body>, hint: &str) -> Result<T, ApiError> {
    if !media_type(request.headers()).as_deref().is_some_and(is_json) {
        return Err(ApiError::unsupported_media_type(hint));
    }
    let bytes = Bytes::from_request(request, &()).await?;
    Ok(arguments::from_slice(&bytes)?)
}

/// Any other path under `/v1`.
pub(crate) async fn not_found() -> ApiError {
    ApiError::no_route()
}

/// An API path called with a method it does not take: a problem, not axum's empty 405.
pub(crate) async fn method_not_allowed() -> ApiError {
    ApiError::method_not_allowed()
}
