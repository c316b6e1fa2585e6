//! Tool definitions and the `tools/call` dispatcher.

use std::{sync::Arc, time::Duration};

use rmcp::{
    ErrorData, RoleServer,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, JsonObject,
        ProgressNotificationParam, ResourceContents, ResourceUpdatedNotificationParam, Tool,
    },
    service::RequestContext,
};
use serde_json::{Value, json};

use crate::{
    fixture::{Fixture, Wire},
    legacy,
    media::{PNG_1X1, WAV_SILENCE},
    mrtr,
    resources::WATCHED,
    subscriptions::Change,
};

/// The request `_meta` key that asks for log messages on the 2026 wire.
const LOG_LEVEL_META: &str = "io.modelcontextprotocol/logLevel";

/// Which wires list a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Listed {
    Both,
    LegacyOnly,
    ModernOnly,
}

impl Listed {
    fn includes(self, wire: Wire) -> bool {
        match self {
            Listed::Both => true,
            Listed::LegacyOnly => wire == Wire::Legacy,
            Listed::ModernOnly => wire == Wire::Modern,
        }
    }
}

fn object(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

fn no_arguments() -> Arc<JsonObject> {
    object(json!({"type": "object", "properties": {}}))
}

fn string_argument(name: &str, description: &str) -> Arc<JsonObject> {
    object(json!({
        "type": "object",
        "properties": {name: {"type": "string", "description": description}},
        "required": [name],
    }))
}

/// A schema using JSON Schema 2020-12 keywords, which must be listed verbatim.
fn schema_2020_12() -> Arc<JsonObject> {
    object(json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"},
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false,
    }))
}

/// A tool whose `message` argument is mirrored into the `Mcp-Param-Message` header.
fn header_schema() -> Arc<JsonObject> {
    object(json!({
        "type": "object",
        "properties": {
            "message": {"type": "string", "description": "Text to echo", "x-mcp-header": "Message"},
        },
        "required": ["message"],
    }))
}

fn catalogue() -> Vec<(Listed, Tool)> {
    use Listed::{Both, LegacyOnly, ModernOnly};
    let plain = |name: &'static str, description: &'static str| {
        Tool::new(name, description, no_arguments())
    };
    vec![
        (Both, plain("test_simple_text", "Returns a simple text response")),
        (Both, plain("test_image_content", "Returns a 1x1 PNG image")),
        (Both, plain("test_audio_content", "Returns a short WAV clip")),
        (Both, plain("test_embedded_resource", "Returns an embedded text resource")),
        (
            Both,
            plain("test_multiple_content_types", "Returns text, an image and an embedded resource"),
        ),
        (
            Both,
            plain(
                "test_trigger_resource_update",
                "Announces a change of test://watched-resource to its subscribers",
            ),
        ),
        (Both, plain("test_tool_with_progress", "Reports progress three times before answering")),
        (Both, plain("test_error_handling", "Always fails with a tool error")),
        (
            Both,
            Tool::new(
                "json_schema_2020_12_tool",
                "Takes arguments described with JSON Schema 2020-12",
                schema_2020_12(),
            ),
        ),
        (
            Both,
            Tool::new(
                "test_header_echo",
                "Echoes a message that is also sent as a header",
                header_schema(),
            ),
        ),
        (LegacyOnly, plain("test_tool_with_logging", "Logs three messages while it runs")),
        (
            LegacyOnly,
            Tool::new(
                "test_sampling",
                "Asks the client's model to answer a prompt",
                string_argument("prompt", "The prompt to send"),
            ),
        ),
        (
            LegacyOnly,
            Tool::new(
                "test_elicitation",
                "Asks the user for a username and an email",
                string_argument("message", "The message to show the user"),
            ),
        ),
        (
            LegacyOnly,
            plain(
                "test_elicitation_sep1034_defaults",
                "Asks the user for values that have defaults",
            ),
        ),
        (
            LegacyOnly,
            plain(
                "test_elicitation_sep1330_enums",
                "Asks the user to pick from single and multi-select enums",
            ),
        ),
        (
            ModernOnly,
            plain(
                "test_missing_capability",
                "Needs the sampling capability and says so when it is missing",
            ),
        ),
        (ModernOnly, plain(mrtr::ELICITATION, "Asks for the user's name before greeting them")),
        (ModernOnly, plain(mrtr::SAMPLING, "Asks the client's model a question before answering")),
        (ModernOnly, plain(mrtr::LIST_ROOTS, "Asks for the client's roots before answering")),
        (
            ModernOnly,
            plain(mrtr::REQUEST_STATE, "Asks for a confirmation and keeps state between rounds"),
        ),
        (
            ModernOnly,
            plain(mrtr::MULTIPLE_INPUTS, "Asks for an elicitation, a sample and the roots at once"),
        ),
        (ModernOnly, plain(mrtr::MULTI_ROUND, "Asks two questions in two rounds")),
        (ModernOnly, plain(mrtr::TAMPERED_STATE, "Keeps integrity-protected state between rounds")),
        (
            ModernOnly,
            plain(mrtr::CAPABILITIES, "Asks only for input the client declared it can give"),
        ),
        (
            ModernOnly,
            plain(
                "test_streaming_elicitation",
                "Needs user input without sending requests on the stream",
            ),
        ),
        (
            ModernOnly,
            plain("test_logging_tool", "Logs messages only when the request asks for a log level"),
        ),
        (
            ModernOnly,
            plain("test_trigger_tool_change", "Announces a tool list change to subscribers"),
        ),
        (
            ModernOnly,
            plain("test_trigger_prompt_change", "Announces a prompt list change to subscribers"),
        ),
        (
            ModernOnly,
            plain(
                "test_trigger_resource_change",
                "Announces a resource list change to subscribers",
            ),
        ),
    ]
}

/// The tools listed on `wire`, in a fixed order.
pub fn listed(wire: Wire) -> Vec<Tool> {
    catalogue()
        .into_iter()
        .filter(|(listed, _)| listed.includes(wire))
        .map(|(_, tool)| tool)
        .collect()
}

/// Any tool by name, whichever wire lists it.
pub fn find(name: &str) -> Option<Tool> {
    catalogue().into_iter().map(|(_, tool)| tool).find(|tool| tool.name == name)
}

fn text(text: impl Into<String>) -> CallToolResponse {
    CallToolResult::success(vec![ContentBlock::text(text)]).into()
}

/// Answers `tools/call`.
pub async fn call(
    fixture: &Fixture,
    request: CallToolRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    let wire = Wire::of(&context);
    if wire == Wire::Modern
        && context.meta.0.contains_key(LOG_LEVEL_META)
        && context.meta.log_level().is_none()
    {
        return Err(ErrorData::invalid_params(
            "_meta io.modelcontextprotocol/logLevel is not a known log level",
            None,
        ));
    }
    let name = request.name.to_string();
    let known =
        catalogue().into_iter().any(|(listed, tool)| tool.name == name && listed.includes(wire));
    if !known {
        return Err(ErrorData::invalid_params(format!("unknown tool: {name}"), None));
    }
    match name.as_str() {
        "test_simple_text" => Ok(text("This is a simple text response for testing.")),
        "test_image_content" => {
            Ok(CallToolResult::success(vec![ContentBlock::image(PNG_1X1, "image/png")]).into())
        }
        "test_audio_content" => {
            Ok(CallToolResult::success(vec![ContentBlock::audio(WAV_SILENCE, "audio/wav")]).into())
        }
        "test_embedded_resource" => {
            let resource = ResourceContents::text(
                "This is an embedded resource content.",
                "test://embedded-resource",
            )
            .with_mime_type("text/plain");
            Ok(CallToolResult::success(vec![ContentBlock::resource(resource)]).into())
        }
        "test_multiple_content_types" => {
            let resource = ResourceContents::text(
                json!({"test": "data", "value": 123}).to_string(),
                "test://mixed-content-resource",
            )
            .with_mime_type("application/json");
            Ok(CallToolResult::success(vec![
                ContentBlock::text("Multiple content types test:"),
                ContentBlock::image(PNG_1X1, "image/png"),
                ContentBlock::resource(resource),
            ])
            .into())
        }
        "test_tool_with_progress" => progress(&context).await,
        "test_error_handling" => Ok(CallToolResult::error(vec![ContentBlock::text(
            "This tool intentionally returns an error for testing",
        )])
        .into()),
        "json_schema_2020_12_tool" => {
            let arguments = Value::Object(request.arguments.unwrap_or_default());
            Ok(text(format!("Received arguments: {arguments}")))
        }
        "test_header_echo" => {
            let message = request
                .arguments
                .as_ref()
                .and_then(|a| a.get("message"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            Ok(text(format!("Echo: {message}")))
        }
        "test_tool_with_logging" => legacy::logging_tool(fixture, &context).await,
        "test_sampling"
        | "test_elicitation"
        | "test_elicitation_sep1034_defaults"
        | "test_elicitation_sep1330_enums" => {
            legacy::server_request_tool(fixture, &name, &request, &context).await
        }
        "test_logging_tool" => mrtr::logging_tool(&context).await,
        "test_trigger_tool_change" => trigger(fixture, Change::Tools, "tools").await,
        "test_trigger_prompt_change" => trigger(fixture, Change::Prompts, "prompts").await,
        "test_trigger_resource_change" => trigger(fixture, Change::Resources, "resources").await,
        "test_trigger_resource_update" => resource_update(fixture, wire, &context).await,
        _ => mrtr::call(fixture, &name, &request, &context),
    }
}

async fn progress(context: &RequestContext<RoleServer>) -> Result<CallToolResponse, ErrorData> {
    let token = context.meta.get_progress_token();
    let steps = [0.0, 50.0, 100.0];
    if let Some(token) = &token {
        for (index, step) in steps.iter().enumerate() {
            if index > 0 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            let mut params = ProgressNotificationParam::new(token.clone(), *step);
            params.total = Some(100.0);
            params.message = Some(format!("Step {} of {}", index + 1, steps.len()));
            context.peer.notify_progress(params).await.map_err(|e| {
                ErrorData::internal_error(format!("could not report progress: {e}"), None)
            })?;
        }
    }
    let reported = if token.is_some() { steps.len() } else { 0 };
    Ok(text(format!("Progress test completed ({reported} updates sent)")))
}

async fn trigger(
    fixture: &Fixture,
    change: Change,
    what: &str,
) -> Result<CallToolResponse, ErrorData> {
    let delivered = fixture.shared.hub.announce(change).await;
    Ok(text(format!("Announced a {what} list change to {delivered} subscription stream(s)")))
}

/// Announces that the watched resource changed: on the 2026 wire to `subscriptions/listen`
/// streams subscribed to it, on the 2025 wire to this session if it subscribed.
async fn resource_update(
    fixture: &Fixture,
    wire: Wire,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    let delivered = match wire {
        Wire::Modern => fixture.shared.hub.announce_update(WATCHED).await,
        Wire::Legacy => {
            let subscribed = fixture
                .subscribed
                .lock()
                .map(|uris| uris.iter().any(|uri| uri == WATCHED))
                .unwrap_or(false);
            if subscribed {
                let params = ResourceUpdatedNotificationParam::new(WATCHED);
                context.peer.notify_resource_updated(params).await.map_err(|e| {
                    ErrorData::internal_error(format!("could not send the update: {e}"), None)
                })?;
            }
            usize::from(subscribed)
        }
    };
    Ok(text(format!("Announced an update of {WATCHED} to {delivered} subscriber(s)")))
}
