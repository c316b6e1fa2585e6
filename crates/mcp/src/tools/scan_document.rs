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
use crate::Shared;
use mrtd_service::{
    Principal, ServiceError,
    arguments::ScanArguments,
    ops as service,
    result::{self, DocumentResult},
};

/// Key of the one input request this tool makes.
const MRZ_TEXT: &str = "mrz_text";
/// How long a user has to answer before the request state expires.
const STATE_TTL: Duration = Duration::from_secs(15 * 60);

pub(super) fn input_schema() -> Value {
    mrtd_service::schema::input::<ScanArguments>()
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
    arguments: ScanArguments,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    if let Some(sealed) = request.request_state.as_deref() {
        return resume(shared, principal, sealed, &digest(&arguments), request).await;
    }
    // What a `requestState` would be bound to, hashed only for a caller who can be asked
    // (the photo's base64 is hashed whole).
    let ask = can_ask_user(context).then(|| digest(&arguments));
    let state = &shared.state;
    let sources = match arguments.into_sources() {
        Ok(sources) => sources,
        Err(error) => return Ok(service_failure(&error).into()),
    };
    let image = match sources.image.bytes(state, fetched(context)).await {
        Ok(bytes) => bytes,
        Err(error) => return Ok(service_failure(&error).into()),
    };
    let other_side = match sources.other_side {
        // The other side's URL is fetched here, before its read.
        Some(other) => match other.bytes(state, None).await {
            Ok(bytes) => Some(bytes),
            Err(error) => return Ok(service_failure(&error).into()),
        },
        None => None,
    };
    let turn = crate::principal::turn_of(context);
    let request = service::ScanRequest {
        image,
        other_side,
        retain_hours: sources.retain_hours,
        reference_date: sources.reference_date.clone(),
        extras: sources.extras,
    };
    // Read, and kept when it is `read` and retain_hours asks for it.
    let result = match service::scan(state, principal, &turn, request).await {
        Ok(result) => result,
        Err(error) => return Ok(service_failure(&error).into()),
    };
    if !result.is_read() {
        let structured = result.to_value();
        let advice = result::summary(&structured);
        if let Some(digest) = ask {
            let nonce: [u8; 16] = rand::random();
            let pending = PendingScan {
                retain_hours: sources.retain_hours,
                reference_date: sources.reference_date,
                nonce: hex::encode(nonce),
                arguments: digest,
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

/// SHA-256 (hex) of the arguments as their type serialises them (fields in a fixed order, an
/// absent argument as `null`): what a `requestState` is bound to, so that it resumes only
/// the call it was issued for, however the retry orders or spaces its arguments.
fn digest(arguments: &ScanArguments) -> String {
    use sha2::{Digest, Sha256};

    /// Hashes what is written to it: the arguments, photo included, are never copied.
    struct Hashing(Sha256);
    impl std::io::Write for Hashing {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.update(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    let mut hashing = Hashing(Sha256::new());
    // Strings, booleans and numbers only: serialising them cannot fail.
    let _ = serde_json::to_writer(&mut hashing, arguments);
    hex::encode(hashing.0.finalize())
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
    digest: &str,
    request: &CallToolRequestParams,
) -> Result<CallToolResponse, ErrorData> {
    let pending: PendingScan =
        shared.codec.open_json_with(sealed, principal.0.as_bytes()).map_err(|_| {
            ErrorData::invalid_params(
                "requestState is not valid: it was altered, expired, or issued to another caller",
                None,
            )
        })?;
    if pending.arguments != digest {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn arguments(json: &str) -> ScanArguments {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn the_digest_ignores_order_and_spacing_but_not_values() {
        let a = arguments(r#"{"image_base64": "AA==", "retain_hours": 2}"#);
        let b = arguments(r#"{ "retain_hours":2,"image_base64":"AA==" }"#);
        let c = arguments(r#"{"image_base64": "AA==", "retain_hours": 3}"#);
        let d = arguments(r#"{"image_base64": "AB==", "retain_hours": 2}"#);
        assert_eq!(digest(&a), digest(&b));
        assert_ne!(digest(&a), digest(&c));
        assert_ne!(digest(&a), digest(&d));
        assert_eq!(digest(&a).len(), 64);
    }
}
