//! `scan_document`: an image in, the document result out; optionally kept for later.
//!
//! When the image cannot be read and the caller speaks 2026-07-28 with the elicitation
//! capability, the call answers `input_required`, asking the user to type the MRZ
//! lines; the retry carries an HMAC-sealed `requestState` bound to the caller, so any
//! replica can resume it and nobody else can.

use std::time::{Duration, SystemTime};

use rmcp::{
    ErrorData, RoleServer,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ElicitRequest,
        ElicitRequestParams, InputRequest, InputRequests, InputRequiredResult, ProtocolVersion,
        Resource, SealOptions,
    },
    service::RequestContext,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{failure, service_failure};
use crate::{
    Shared,
    input::{Arguments, arguments_digest},
};
use mrtd_service::{
    AppState, ImageFileError, Principal, ServiceError,
    ops::{self as service, MAX_RETAIN_HOURS},
    result::{self, DocumentResult},
};

/// Key of the one input request this tool makes.
const MRZ_TEXT: &str = "mrz_text";
/// How long a user has to answer before the request state expires.
const STATE_TTL: Duration = Duration::from_secs(15 * 60);

/// The arguments the tool takes: its input schema's properties.
pub(super) const ARGUMENTS: &[&str] = &[
    "image_base64",
    "image_url",
    "image_path",
    "other_side_base64",
    "other_side_url",
    "other_side_path",
    "include_images",
    "retain_hours",
    "reference_date",
];

pub(super) fn input_schema() -> Value {
    mrtd_service::schema::input::<mrtd_service::arguments::ScanArguments>()
}

/// Where the image comes from.
enum Image<'a> {
    Encoded(&'a str),
    File(&'a str),
    Url(&'a str),
}

/// The `image_url` the HTTP front fetched before this call took its recognition slot.
fn fetched(context: &RequestContext<RoleServer>) -> Option<&mrtd_service::FetchedImage> {
    context
        .extensions
        .get::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<mrtd_service::FetchedImage>())
}

/// What the sealed `requestState` remembers between rounds.
#[derive(Serialize, Deserialize)]
struct PendingScan {
    retain_hours: i64,
    reference_date: Option<String>,
    /// Redeemed in the store when the state is used: a state answers one retry only.
    nonce: String,
    /// The digest of the arguments of the call that issued the state; the retry must
    /// carry the same arguments.
    arguments: String,
}

pub(super) async fn call(
    shared: &Shared,
    principal: &Principal,
    arguments: &Arguments<'_>,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    if let Some(sealed) = request.request_state.as_deref() {
        return resume(shared, principal, sealed, request).await;
    }
    let state = &shared.state;
    let parsed = arguments.only(ARGUMENTS).and_then(|()| {
        let retain_hours = arguments.integer("retain_hours", 0, MAX_RETAIN_HOURS)?.unwrap_or(0);
        let reference_date = arguments.string("reference_date")?;
        let image = source(arguments, "the image", ["image_base64", "image_url", "image_path"])?
            .ok_or("give the image as exactly one of image_base64, image_url or image_path")?;
        let names = ["other_side_base64", "other_side_url", "other_side_path"];
        let other_side = source(arguments, "the other side", names)?;
        let extras =
            service::Extras { images: arguments.boolean("include_images")?.unwrap_or(false) };
        Ok((image, other_side, retain_hours, reference_date, extras))
    });
    let (image, other_side, retain_hours, reference_date, extras) = match parsed {
        Ok(parsed) => parsed,
        Err(message) => return Ok(failure(message).into()),
    };
    let image = match bytes_of(state, image, fetched(context)).await {
        Ok(bytes) => bytes,
        Err(failed) => return Ok(failed.into()),
    };
    let other_side = match other_side {
        // The other side's URL is fetched here, before its read.
        Some(other) => match bytes_of(state, other, None).await {
            Ok(bytes) => Some(bytes),
            Err(failed) => return Ok(failed.into()),
        },
        None => None,
    };
    let turn = crate::principal::turn_of(context);
    let reference_date = reference_date.map(str::to_owned);
    let request = service::ScanRequest {
        image,
        other_side,
        retain_hours,
        reference_date: reference_date.clone(),
        extras,
    };
    // Read, and kept when it is `read` and retain_hours asks for it.
    let result = match service::scan(state, principal, &turn, request).await {
        Ok(result) => result,
        Err(error) => return Ok(service_failure(&error).into()),
    };
    if !result.is_read() {
        let structured = result.to_value();
        let advice = result::summary(&structured);
        if can_ask_user(context) {
            let nonce: [u8; 16] = rand::random();
            let pending = PendingScan {
                retain_hours,
                reference_date,
                nonce: hex::encode(nonce),
                arguments: arguments.digest(),
            };
            return Ok(ask_for_text(shared, principal, &pending, &advice).into());
        }
        // The tool did its work: a photo read in part, or without an MRZ, is a result with
        // advice, not a failed call (`isError` is for calls that could not be carried out).
        let advice = format!(
            "{advice} Ask for a sharper photo of the whole document, flat, without glare, with \
             the MRZ lines at the bottom fully in frame; or read the lines yourself and call \
             parse_mrz."
        );
        return Ok(super::success(advice, structured).into());
    }
    Ok(carried_out(&result).into())
}

/// The one image source among `names` (base64, URL, path) the arguments give for `what`,
/// if any.
fn source<'a>(
    arguments: &Arguments<'a>,
    what: &str,
    names: [&str; 3],
) -> Result<Option<Image<'a>>, String> {
    let [encoded, url, path] = names;
    let given = [
        arguments.string(encoded)?.map(Image::Encoded),
        arguments.string(url)?.map(Image::Url),
        arguments.string(path)?.map(Image::File),
    ];
    let mut given = given.into_iter().flatten();
    let image = given.next();
    if given.next().is_some() {
        return Err(format!("give {what} as exactly one of {encoded}, {url} or {path}"));
    }
    Ok(image)
}

/// The bytes of an image source, or the tool result that says why there are none.
async fn bytes_of(
    state: &AppState,
    image: Image<'_>,
    fetched: Option<&mrtd_service::FetchedImage>,
) -> Result<Vec<u8>, CallToolResult> {
    match image {
        Image::Encoded(encoded) => service::decode_base64_owned(encoded.to_owned())
            .await
            .map_err(|error| service_failure(&error)),
        Image::File(path) => match state.image_dir() {
            // A path, or the `mrtd://images/...` URI resources/list gives for it.
            Some(dir) => dir
                .read(&crate::resources::image_path_of(path).unwrap_or_else(|| path.to_owned()))
                .await
                .map_err(|error| failure(error.to_string())),
            None => Err(failure(ImageFileError::Disabled.to_string())),
        },
        Image::Url(url) => service::image_from_url(state, url, fetched)
            .await
            .map_err(|error| service_failure(&error)),
    }
}

/// Whether this request may be answered with `input_required` elicitation.
fn can_ask_user(context: &RequestContext<RoleServer>) -> bool {
    let modern = context.meta.protocol_version() == Some(ProtocolVersion::V_2026_07_28);
    let elicitation = context
        .client_capabilities()
        .is_some_and(|capabilities| capabilities.elicitation.is_some());
    modern && elicitation
}

fn ask_for_text(
    shared: &Shared,
    principal: &Principal,
    pending: &PendingScan,
    advice: &str,
) -> InputRequiredResult {
    let schema = json!({
        "type": "object",
        "properties": {
            "line1": { "type": "string", "title": "MRZ line 1", "description": "First line of the machine readable zone, with every < sign." },
            "line2": { "type": "string", "title": "MRZ line 2" },
            "line3": { "type": "string", "title": "MRZ line 3 (ID cards only)" }
        },
        "required": ["line1", "line2"]
    });
    let params = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: format!(
            "{advice} Please type the two or three lines printed at the bottom of the document \
             (the ones with < signs), or decline and send a sharper photo."
        ),
        requested_schema: serde_json::from_value(schema)
            .unwrap_or_else(|_| rmcp::model::ElicitationSchema::new(Default::default())),
    };
    let mut requests = InputRequests::new();
    requests.insert(MRZ_TEXT.to_owned(), InputRequest::Elicitation(ElicitRequest::new(params)));
    let options = SealOptions::new().associated_data(principal.0.as_bytes()).ttl(STATE_TTL);
    let sealed = shared.codec.seal_json_with(pending, &options).unwrap_or_default();
    InputRequiredResult::new(Some(requests), Some(sealed))
}

async fn resume(
    shared: &Shared,
    principal: &Principal,
    sealed: &str,
    request: &CallToolRequestParams,
) -> Result<CallToolResponse, ErrorData> {
    let pending: PendingScan =
        shared.codec.open_json_with(sealed, principal.0.as_bytes()).map_err(|_| {
            ErrorData::invalid_params(
                "requestState is not valid: it was altered, expired, or issued to another caller",
                None,
            )
        })?;
    if pending.arguments != arguments_digest(request.arguments.as_ref()) {
        return Err(ErrorData::invalid_params(
            "requestState belongs to a scan_document call with other arguments; retry with \
             the arguments of the call that returned it",
            None,
        ));
    }
    let Some(answer) = request.input_responses.as_ref().and_then(|r| r.get(MRZ_TEXT)) else {
        // The answer is missing: ask again with the same state.
        return Ok(
            ask_for_text(shared, principal, &pending, "The MRZ lines are still needed.").into()
        );
    };
    if !answer.is_object() {
        return Err(ErrorData::invalid_params(
            "inputResponses.mrz_text must be an elicitation result object",
            None,
        ));
    }
    match service::redeem(&shared.state, &pending.nonce, SystemTime::now() + STATE_TTL).await {
        Ok(true) => {}
        Ok(false) => {
            return Err(ErrorData::invalid_params(
                "requestState was already used; call scan_document again without it",
                None,
            ));
        }
        Err(error) => return Ok(service_failure(&error).into()),
    }
    if answer["action"] != "accept" {
        return Ok(failure(
            "The user declined to type the MRZ; nothing was read. Ask for a sharper photo instead.",
        )
        .into());
    }
    let lines: Vec<&str> = ["line1", "line2", "line3"]
        .iter()
        .filter_map(|key| answer["content"][*key].as_str())
        .filter(|line| !line.trim().is_empty())
        .collect();
    let typed = service::TypedRetry {
        lines: &lines,
        reference_date: pending.reference_date.as_deref(),
        retain_hours: pending.retain_hours,
    };
    match service::scan_typed(&shared.state, principal, typed).await {
        Ok(result) => Ok(carried_out(&result).into()),
        Err(ServiceError::NotMrz(reason)) => {
            Ok(failure(format!("The typed text is not an MRZ: {reason}.")).into())
        }
        Err(error) => Ok(service_failure(&error).into()),
    }
}

/// The answer of a scan that was carried out: the result, with links to the kept scan and
/// its portrait when it was kept.
fn carried_out(kept: &DocumentResult) -> CallToolResult {
    let structured = kept.to_value();
    let mut content = super::structured_text(&structured, result::summary(&structured));
    if let Some(id) = structured["scan_id"].as_str() {
        let mut resource = Resource::new(format!("mrtd://scans/{id}"), format!("scan {id}"));
        resource.mime_type = Some("application/json".into());
        resource.description = Some("The kept scan result (yours only).".into());
        content.push(ContentBlock::resource_link(resource));
        if let Some(uri) = kept.kept_portrait() {
            let mut resource = Resource::new(uri, format!("portrait of scan {id}"));
            resource.mime_type = Some("image/jpeg".into());
            resource.description = Some(
                "The holder's portrait kept with the scan (yours only, gone with the scan).".into(),
            );
            content.push(ContentBlock::resource_link(resource));
        }
    }
    let mut result = CallToolResult::success(content);
    result.structured_content = Some(structured);
    result
}
