//! Tools of the 2025-era wire: logging after `logging/setLevel`, and tools that send
//! requests to the client (sampling, elicitation), which need a session.

use std::time::Duration;

use rmcp::{
    ErrorData, RoleServer,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
        CreateMessageRequestParams, ElicitRequestParams, ElicitationSchema, LoggingLevel,
        LoggingMessageNotificationParam, SamplingMessage,
    },
    service::RequestContext,
};
use serde_json::{Value, json};

use crate::fixture::Fixture;

/// The explanation a sessionless server gives for tools that need server requests.
pub const NEEDS_SESSIONS: &str = "This tool sends a request to the client, which needs a session: \
     this server runs without sessions; start with --legacy-sessions";

/// Position of `level` in the RFC 5424 order MCP uses, least severe first.
pub fn severity(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// Sends three `info` messages about 50 ms apart, if the session's level lets them through.
///
/// Without a session there is no remembered level, so the default (`info`) applies.
pub async fn logging_tool(
    fixture: &Fixture,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    let threshold =
        fixture.log_level.lock().ok().and_then(|level| *level).unwrap_or(LoggingLevel::Info);
    let messages = ["Tool execution started", "Tool processing data", "Tool execution completed"];
    let mut sent = 0;
    if severity(LoggingLevel::Info) >= severity(threshold) {
        for (index, message) in messages.iter().enumerate() {
            if index > 0 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            let mut params =
                LoggingMessageNotificationParam::new(LoggingLevel::Info, json!(message));
            params.logger = Some("mrtd-conformance".into());
            context.peer.notify_logging_message(params).await.map_err(|e| {
                ErrorData::internal_error(format!("could not send a log message: {e}"), None)
            })?;
            sent += 1;
        }
    }
    Ok(CallToolResult::success(vec![ContentBlock::text(format!(
        "Logging test completed ({sent} messages sent)"
    ))])
    .into())
}

fn tool_error(message: impl Into<String>) -> CallToolResponse {
    CallToolResult::error(vec![ContentBlock::text(message)]).into()
}

fn string_argument(request: &CallToolRequestParams, name: &str) -> Option<String> {
    request.arguments.as_ref()?.get(name)?.as_str().map(str::to_owned)
}

/// Runs one of the tools that send `sampling/createMessage` or `elicitation/create`.
pub async fn server_request_tool(
    fixture: &Fixture,
    name: &str,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    if !fixture.shared.legacy_sessions {
        return Ok(tool_error(NEEDS_SESSIONS));
    }
    let capabilities = context.peer.peer_info().map(|info| info.capabilities.clone());
    if name == "test_sampling" {
        if capabilities.as_ref().and_then(|c| c.sampling.as_ref()).is_none() {
            return Ok(tool_error("The client did not declare the sampling capability"));
        }
        let Some(prompt) = string_argument(request, "prompt") else {
            return Ok(tool_error("Missing required argument 'prompt'"));
        };
        return sample(&prompt, context).await;
    }
    if capabilities.as_ref().and_then(|c| c.elicitation.as_ref()).is_none() {
        return Ok(tool_error("The client did not declare the elicitation capability"));
    }
    let (message, schema) = match name {
        "test_elicitation" => {
            let Some(message) = string_argument(request, "message") else {
                return Ok(tool_error("Missing required argument 'message'"));
            };
            (message, user_schema())
        }
        "test_elicitation_sep1034_defaults" => {
            ("Please review and update the form fields with defaults".to_owned(), defaults_schema())
        }
        _ => ("Please select options from the enum fields".to_owned(), enums_schema()),
    };
    elicit(message, schema, context).await
}

async fn sample(
    prompt: &str,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    let params = CreateMessageRequestParams::new(vec![SamplingMessage::user_text(prompt)], 100);
    match context.peer.create_message(params).await {
        Ok(result) => {
            let reply = serde_json::to_value(&result).unwrap_or(Value::Null);
            let answer =
                reply.pointer("/content/text").and_then(Value::as_str).unwrap_or("(no text)");
            Ok(CallToolResult::success(vec![ContentBlock::text(format!("LLM response: {answer}"))])
                .into())
        }
        Err(error) => Ok(tool_error(format!("Sampling failed: {error}"))),
    }
}

async fn elicit(
    message: String,
    schema: Value,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    let requested_schema: ElicitationSchema = serde_json::from_value(schema)
        .map_err(|e| ErrorData::internal_error(format!("invalid elicitation schema: {e}"), None))?;
    let params =
        ElicitRequestParams::FormElicitationParams { meta: None, message, requested_schema };
    match context.peer.create_elicitation(params).await {
        Ok(result) => {
            let reply = serde_json::to_value(&result).unwrap_or(Value::Null);
            let action = reply.get("action").cloned().unwrap_or(Value::Null);
            let content = reply.get("content").cloned().unwrap_or(Value::Null);
            Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                "User response: action={action}, content={content}"
            ))])
            .into())
        }
        Err(error) => Ok(tool_error(format!("Elicitation failed: {error}"))),
    }
}

fn user_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"},
        },
        "required": ["username", "email"],
    })
}

/// Every primitive type with a default value (SEP-1034).
fn defaults_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {
                "type": "string",
                "description": "User status",
                "enum": ["active", "inactive", "pending"],
                "default": "active",
            },
            "verified": {"type": "boolean", "description": "Verification status", "default": true},
        },
    })
}

/// Single and multi-select enums, titled and untitled, plus the legacy form (SEP-1330).
fn enums_schema() -> Value {
    let titled = |prefix: &str, title: &str| {
        (1..=3)
            .map(|n| json!({"const": format!("{prefix}{n}"), "title": format!("{title} {n}")}))
            .collect::<Vec<_>>()
    };
    json!({
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string",
                "description": "Pick one option",
                "enum": ["option1", "option2", "option3"],
            },
            "titledSingle": {
                "type": "string",
                "description": "Pick one titled option",
                "oneOf": titled("value", "Value"),
            },
            "legacyEnum": {
                "type": "string",
                "description": "Pick one option (legacy titles)",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"],
            },
            "untitledMulti": {
                "type": "array",
                "description": "Pick any options",
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
            },
            "titledMulti": {
                "type": "array",
                "description": "Pick any titled options",
                "items": {"anyOf": titled("value", "Value")},
            },
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixture_schemas_are_valid_elicitation_schemas() {
        for schema in [user_schema(), defaults_schema(), enums_schema()] {
            let parsed: ElicitationSchema = serde_json::from_value(schema.clone()).unwrap();
            let round_trip = serde_json::to_value(parsed).unwrap();
            assert_eq!(round_trip["properties"], schema["properties"], "schema changed in transit");
        }
    }

    #[test]
    fn severity_follows_rfc_5424() {
        assert!(severity(LoggingLevel::Debug) < severity(LoggingLevel::Info));
        assert!(severity(LoggingLevel::Alert) < severity(LoggingLevel::Emergency));
    }
}
