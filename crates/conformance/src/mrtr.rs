//! Multi round-trip requests (2026-07-28): tools and a prompt that return
//! `input_required` and complete once the client retries with `inputResponses`.
//!
//! Every round is derived from the retry itself (`inputResponses` and `requestState`);
//! nothing is remembered between requests. Where the state decides what happens next it
//! is sealed with an HMAC under a per-process random key, bound to the tool name and
//! given a short lifetime, and a state that fails verification is a JSON-RPC error.

use std::time::Duration;

use rmcp::{
    ErrorData, RoleServer,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ContentBlock,
        CreateMessageRequest, CreateMessageRequestParams, ElicitRequest, ElicitRequestParams,
        GetPromptRequestParams, GetPromptResponse, GetPromptResult, InputRequest, InputRequests,
        InputRequiredResult, InputResponses, ListRootsRequest, LoggingLevel,
        LoggingMessageNotificationParam, PromptMessage, Role, SamplingMessage, SealOptions,
    },
    service::RequestContext,
};
use serde_json::{Value, json};

use crate::{fixture::Fixture, legacy::severity};

pub const ELICITATION: &str = "test_input_required_result_elicitation";
pub const SAMPLING: &str = "test_input_required_result_sampling";
pub const LIST_ROOTS: &str = "test_input_required_result_list_roots";
pub const REQUEST_STATE: &str = "test_input_required_result_request_state";
pub const MULTIPLE_INPUTS: &str = "test_input_required_result_multiple_inputs";
pub const MULTI_ROUND: &str = "test_input_required_result_multi_round";
pub const TAMPERED_STATE: &str = "test_input_required_result_tampered_state";
pub const CAPABILITIES: &str = "test_input_required_result_capabilities";
pub const PROMPT: &str = "test_input_required_result_prompt";

/// How long a sealed `requestState` stays valid.
const STATE_TTL: Duration = Duration::from_secs(600);

fn elicitation(message: &str, property: &str, schema: Value) -> Result<InputRequest, ErrorData> {
    let requested_schema = serde_json::from_value(json!({
        "type": "object",
        "properties": {property: schema},
        "required": [property],
    }))
    .map_err(|e| ErrorData::internal_error(format!("invalid elicitation schema: {e}"), None))?;
    Ok(InputRequest::Elicitation(ElicitRequest::new(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: message.into(),
        requested_schema,
    })))
}

fn ask_name() -> Result<InputRequest, ErrorData> {
    elicitation("What is your name?", "name", json!({"type": "string", "description": "Your name"}))
}

fn sampling(question: &str) -> InputRequest {
    InputRequest::CreateMessage(CreateMessageRequest::new(CreateMessageRequestParams::new(
        vec![SamplingMessage::user_text(question)],
        100,
    )))
}

fn roots() -> InputRequest {
    InputRequest::ListRoots(ListRootsRequest::default())
}

fn requests(entries: Vec<(&str, InputRequest)>) -> InputRequests {
    entries.into_iter().map(|(key, request)| (key.to_owned(), request)).collect()
}

fn text(text: impl Into<String>) -> CallToolResponse {
    CallToolResult::success(vec![ContentBlock::text(text)]).into()
}

/// The answer under `key`: `Ok(None)` when absent, an error when it is not a result object.
fn answer<'a>(
    responses: Option<&'a InputResponses>,
    key: &str,
) -> Result<Option<&'a Value>, ErrorData> {
    match responses.and_then(|responses| responses.get(key)) {
        None => Ok(None),
        Some(value) if value.is_object() => Ok(Some(value)),
        Some(_) => Err(ErrorData::invalid_params(
            format!("inputResponses.{key} must be a result object"),
            Some(json!({"key": key})),
        )),
    }
}

fn elicited_string(response: &Value, property: &str) -> Option<String> {
    if response.get("action").and_then(Value::as_str) != Some("accept") {
        return None;
    }
    response.pointer(&format!("/content/{property}")).map(|value| match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    })
}

fn capabilities(context: &RequestContext<RoleServer>) -> ClientCapabilities {
    context.client_capabilities().unwrap_or_default()
}

fn require(declared: bool, capability: &str) -> Result<(), ErrorData> {
    if declared {
        return Ok(());
    }
    let required: ClientCapabilities =
        serde_json::from_value(json!({capability: {}})).unwrap_or_default();
    Err(ErrorData::missing_required_client_capability(required))
}

/// Seals `round` for `tool` so a retry can prove it came from this server.
fn seal(fixture: &Fixture, tool: &str, round: u32) -> Result<String, ErrorData> {
    let options = SealOptions::new().associated_data(tool.as_bytes()).ttl(STATE_TTL);
    fixture
        .shared
        .state_codec
        .seal_json_with(&json!({"tool": tool, "round": round}), &options)
        .map_err(|e| {
            ErrorData::internal_error(format!("could not seal the request state: {e}"), None)
        })
}

/// Opens a state sealed by [`seal`] for `tool`; `Ok(None)` when the client sent none.
fn open(fixture: &Fixture, tool: &str, state: Option<&str>) -> Result<Option<u32>, ErrorData> {
    let Some(state) = state else { return Ok(None) };
    let payload: Value =
        fixture.shared.state_codec.open_json_with(state, tool.as_bytes()).map_err(|e| {
            ErrorData::invalid_params(format!("requestState failed verification: {e}"), None)
        })?;
    let round = payload.get("round").and_then(Value::as_u64).and_then(|r| u32::try_from(r).ok());
    round.map(Some).ok_or_else(|| ErrorData::invalid_params("requestState carries no round", None))
}

fn input_required(entries: Vec<(&str, InputRequest)>, state: Option<String>) -> CallToolResponse {
    InputRequiredResult::new(Some(requests(entries)), state).into()
}

/// Answers the MRTR and stateless-diagnostic tools of the 2026 wire.
pub fn call(
    fixture: &Fixture,
    name: &str,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    let caps = capabilities(context);
    let responses = request.input_responses.as_ref();
    let state = request.request_state.as_deref();
    match name {
        "test_missing_capability" => {
            require(caps.sampling.is_some(), "sampling")?;
            Ok(text("The client declared sampling, so this tool can run."))
        }
        "test_streaming_elicitation" => {
            match (answer(responses, "user_name")?, caps.elicitation.is_some()) {
                (Some(response), _) => {
                    let name =
                        elicited_string(response, "name").unwrap_or_else(|| "anonymous".into());
                    Ok(text(format!("Hello, {name}!")))
                }
                (None, true) => Ok(input_required(vec![("user_name", ask_name()?)], None)),
                (None, false) => Ok(text("No input was needed: the client cannot be asked.")),
            }
        }
        ELICITATION => {
            require(caps.elicitation.is_some(), "elicitation")?;
            match answer(responses, "user_name")? {
                Some(response) => match elicited_string(response, "name") {
                    Some(name) => Ok(text(format!("Hello, {name}!"))),
                    None => Ok(text("The user declined to give a name.")),
                },
                None => Ok(input_required(vec![("user_name", ask_name()?)], None)),
            }
        }
        SAMPLING => {
            require(caps.sampling.is_some(), "sampling")?;
            match answer(responses, "capital_question")? {
                Some(response) => {
                    let reply = response
                        .pointer("/content/text")
                        .and_then(Value::as_str)
                        .unwrap_or("(no text)");
                    Ok(text(format!("The model answered: {reply}")))
                }
                None => Ok(input_required(
                    vec![("capital_question", sampling("What is the capital of France?"))],
                    None,
                )),
            }
        }
        LIST_ROOTS => {
            require(caps.roots.is_some(), "roots")?;
            match answer(responses, "client_roots")? {
                Some(response) => {
                    let count = response.get("roots").and_then(Value::as_array).map_or(0, Vec::len);
                    Ok(text(format!("Found {count} root(s)")))
                }
                None => Ok(input_required(vec![("client_roots", roots())], None)),
            }
        }
        REQUEST_STATE | TAMPERED_STATE => {
            require(caps.elicitation.is_some(), "elicitation")?;
            let round = open(fixture, name, state)?;
            let confirm =
                || elicitation("Please confirm to continue", "ok", json!({"type": "boolean"}));
            match (round, answer(responses, "confirm")?) {
                (Some(1), Some(_)) => Ok(text("Completed with verified request state: state-ok")),
                _ => {
                    Ok(input_required(vec![("confirm", confirm()?)], Some(seal(fixture, name, 1)?)))
                }
            }
        }
        MULTIPLE_INPUTS => {
            require(caps.elicitation.is_some(), "elicitation")?;
            require(caps.sampling.is_some(), "sampling")?;
            require(caps.roots.is_some(), "roots")?;
            let round = open(fixture, name, state)?;
            let name_answer = answer(responses, "user_name")?;
            let greeting = answer(responses, "greeting")?;
            let client_roots = answer(responses, "client_roots")?;
            match (round, name_answer, greeting, client_roots) {
                (Some(1), Some(user), Some(_), Some(found)) => {
                    let user = elicited_string(user, "name").unwrap_or_else(|| "anonymous".into());
                    let count = found.get("roots").and_then(Value::as_array).map_or(0, Vec::len);
                    Ok(text(format!("Hello, {user}! Got a greeting and {count} root(s).")))
                }
                _ => Ok(input_required(
                    vec![
                        ("user_name", ask_name()?),
                        ("greeting", sampling("Write a short greeting.")),
                        ("client_roots", roots()),
                    ],
                    Some(seal(fixture, name, 1)?),
                )),
            }
        }
        MULTI_ROUND => {
            require(caps.elicitation.is_some(), "elicitation")?;
            let ask_colour = || {
                elicitation("What is your favourite colour?", "color", json!({"type": "string"}))
            };
            match open(fixture, name, state)? {
                Some(1) if answer(responses, "step1")?.is_some() => Ok(input_required(
                    vec![("step2", ask_colour()?)],
                    Some(seal(fixture, name, 2)?),
                )),
                Some(2) => match answer(responses, "step2")? {
                    Some(response) => {
                        let colour =
                            elicited_string(response, "color").unwrap_or_else(|| "unknown".into());
                        Ok(text(format!("All rounds complete; favourite colour: {colour}")))
                    }
                    None => Ok(input_required(
                        vec![("step2", ask_colour()?)],
                        Some(seal(fixture, name, 2)?),
                    )),
                },
                _ => {
                    Ok(input_required(vec![("step1", ask_name()?)], Some(seal(fixture, name, 1)?)))
                }
            }
        }
        CAPABILITIES => {
            if responses.is_some_and(|r| !r.is_empty()) {
                return Ok(text("Received the input this client could give."));
            }
            let mut entries = Vec::new();
            if caps.elicitation.is_some() {
                entries.push(("user_name", ask_name()?));
            }
            if caps.sampling.is_some() {
                entries.push(("capital_question", sampling("What is the capital of France?")));
            }
            if caps.roots.is_some() {
                entries.push(("client_roots", roots()));
            }
            if entries.is_empty() {
                Ok(text("The client declared no way to give input, so none was asked for."))
            } else {
                Ok(input_required(entries, None))
            }
        }
        other => Err(ErrorData::invalid_params(format!("unknown tool: {other}"), None)),
    }
}

/// `prompts/get` of the MRTR prompt: asks for context, then builds the prompt with it.
pub fn prompt(
    fixture: &Fixture,
    request: &GetPromptRequestParams,
) -> Result<GetPromptResponse, ErrorData> {
    let _ = fixture;
    match answer(request.input_responses.as_ref(), "user_context")? {
        Some(response) => {
            let context = elicited_string(response, "context").unwrap_or_else(|| "none".into());
            let mut result = GetPromptResult::new(vec![PromptMessage::new_text(
                Role::User,
                format!("Prompt with context: {context}"),
            )]);
            result.description = Some("A prompt built from context the client supplied".into());
            Ok(result.into())
        }
        None => {
            let ask = elicitation(
                "What context should the prompt use?",
                "context",
                json!({"type": "string", "description": "Context for the prompt"}),
            )?;
            Ok(InputRequiredResult::new(Some(requests(vec![("user_context", ask)])), None).into())
        }
    }
}

/// Logs only when the request carries `_meta` `logLevel`, and then at or above it.
pub async fn logging_tool(
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    let mut sent = 0;
    if let Some(threshold) = context.meta.log_level() {
        let messages = [
            (LoggingLevel::Debug, "Debug detail from the logging tool"),
            (LoggingLevel::Info, "The logging tool is running"),
            (LoggingLevel::Warning, "A warning from the logging tool"),
        ];
        for (level, message) in messages {
            if severity(level) < severity(threshold) {
                continue;
            }
            let params = LoggingMessageNotificationParam::new(level, json!(message));
            context.peer.notify_logging_message(params).await.map_err(|e| {
                ErrorData::internal_error(format!("could not send a log message: {e}"), None)
            })?;
            sent += 1;
        }
    }
    Ok(text(format!("Logging tool finished ({sent} log messages sent)")))
}
