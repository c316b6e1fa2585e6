//! The document tools: their catalog (in a fixed order) and dispatch.

use std::sync::Arc;

use rmcp::{
    ErrorData, RoleServer,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Tool,
        ToolAnnotations,
    },
    service::RequestContext,
};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::Shared;
use mrtd_service::{Access, AppState, ServiceError};

mod check_document;
mod delete_scan;
mod get_scan;
mod list_scans;
mod parse_mrz;
mod scan_document;
mod schema;
mod verify_chip;

/// One tool's published definition.
struct ToolSpec {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    input_schema: fn() -> Value,
    output_schema: fn() -> Value,
    read_only: bool,
    destructive: bool,
    /// Whether the tool reaches outside the server (`scan_document` fetches `image_url`).
    open_world: bool,
    access: Access,
    /// Whether the tool reads a photo.
    recognition: bool,
}

/// One tool's needs: what it accesses and whether it runs a recognition (and so takes
/// one of the server's recognition slots).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolAccess {
    /// The tool's name.
    pub name: &'static str,
    /// What it accesses.
    pub access: Access,
    /// Whether it reads a photo.
    pub recognition: bool,
}

/// The tools in the order `tools/list` returns them, always.
const TOOLS: [ToolSpec; 7] = [
    ToolSpec {
        name: "scan_document",
        title: "Scan a travel document",
        description: mrtd_service::docs::tools::SCAN_DOCUMENT,
        input_schema: scan_document::input_schema,
        output_schema: mrtd_service::result::schema,
        read_only: false,
        destructive: false,
        open_world: true,
        access: Access::WriteScans,
        recognition: true,
    },
    ToolSpec {
        name: "get_scan",
        title: "Get a kept scan",
        description: mrtd_service::docs::tools::GET_SCAN,
        input_schema: schema::scan_id_input,
        output_schema: mrtd_service::result::schema,
        read_only: true,
        destructive: false,
        open_world: false,
        access: Access::ReadScans,
        recognition: false,
    },
    ToolSpec {
        name: "list_scans",
        title: "List kept scans",
        description: mrtd_service::docs::tools::LIST_SCANS,
        input_schema: list_scans::input_schema,
        output_schema: list_scans::output_schema,
        read_only: true,
        destructive: false,
        open_world: false,
        access: Access::ReadScans,
        recognition: false,
    },
    ToolSpec {
        name: "delete_scan",
        title: "Delete a kept scan",
        description: mrtd_service::docs::tools::DELETE_SCAN,
        input_schema: schema::scan_id_input,
        output_schema: delete_scan::output_schema,
        read_only: false,
        destructive: true,
        open_world: false,
        access: Access::WriteScans,
        recognition: false,
    },
    ToolSpec {
        name: "parse_mrz",
        title: "Parse MRZ text",
        description: mrtd_service::docs::tools::PARSE_MRZ,
        input_schema: parse_mrz::input_schema,
        output_schema: mrtd_service::result::schema,
        read_only: true,
        destructive: false,
        open_world: false,
        access: Access::Open,
        recognition: false,
    },
    ToolSpec {
        name: "check_document",
        title: "Check a document without revealing it",
        description: mrtd_service::docs::tools::CHECK_DOCUMENT,
        input_schema: check_document::input_schema,
        output_schema: check_document::output_schema,
        read_only: true,
        destructive: false,
        open_world: false,
        access: Access::ReadScansById,
        recognition: false,
    },
    ToolSpec {
        name: "verify_chip",
        title: "Verify a document's chip",
        description: mrtd_service::docs::tools::VERIFY_CHIP,
        input_schema: verify_chip::input_schema,
        output_schema: mrtd_service::chip::schema,
        read_only: true,
        destructive: false,
        open_world: false,
        access: Access::ReadScansById,
        recognition: false,
    },
];

fn object(value: Value) -> Arc<Map<String, Value>> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(Map::new()),
    }
}

/// What each tool needs, in the catalog's order.
pub fn tool_access() -> Vec<ToolAccess> {
    TOOLS
        .iter()
        .map(|spec| ToolAccess {
            name: spec.name,
            access: spec.access,
            recognition: spec.recognition,
        })
        .collect()
}

/// The published name equal to `name`, as a `'static` label.
pub(crate) fn published_name(name: &str) -> Option<&'static str> {
    TOOLS.iter().map(|spec| spec.name).find(|known| *known == name)
}

/// The published tool definitions, in their fixed order.
pub fn tool_catalog() -> Vec<Tool> {
    TOOLS
        .iter()
        .map(|spec| {
            let mut tool =
                Tool::new(spec.name, spec.description.trim(), object((spec.input_schema)()));
            tool.title = Some(spec.title.to_owned());
            tool.output_schema = Some(object((spec.output_schema)()));
            let mut annotations = ToolAnnotations::default();
            annotations.title = Some(spec.title.to_owned());
            annotations.read_only_hint = Some(spec.read_only);
            annotations.destructive_hint = Some(spec.destructive);
            annotations.idempotent_hint = Some(spec.read_only || spec.destructive);
            annotations.open_world_hint = Some(spec.open_world);
            tool.annotations = Some(annotations);
            tool
        })
        .collect()
}

/// Runs one tool call: its arguments taken as the tool's type ([`mrtd_service::arguments`]),
/// whose JSON Schema is the tool's `inputSchema`. Arguments that do not fit it are a tool
/// error naming the argument (MCP asks input errors to be tool errors, which a model can
/// mend), not the protocol error rmcp's `Parameters` would answer.
pub(crate) async fn call(
    shared: &Shared,
    mut request: CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    let principal = crate::principal::of(context);
    let state: &AppState = &shared.state;
    let arguments = request.arguments.take().unwrap_or_default();
    let outcome = match request.name.as_ref() {
        "scan_document" => {
            return match typed(arguments) {
                Ok(arguments) => {
                    scan_document::call(shared, &principal, arguments, &request, context).await
                }
                Err(failed) => Ok(failed.into()),
            };
        }
        "get_scan" => with(arguments, |a| get_scan::call(state, &principal, a)).await,
        "list_scans" => with(arguments, |a| list_scans::call(state, &principal, a)).await,
        "delete_scan" => with(arguments, |a| delete_scan::call(state, &principal, a)).await,
        "parse_mrz" => typed(arguments).map_or_else(|failed| failed, parse_mrz::call),
        "check_document" => with(arguments, |a| check_document::call(state, &principal, a)).await,
        "verify_chip" => with(arguments, |a| verify_chip::call(state, &principal, a)).await,
        other => {
            // Echo at most a short prefix: the name is the caller's, of any length.
            let shown: String = other.chars().take(64).collect();
            return Err(ErrorData::invalid_params(
                format!("unknown tool '{shown}'"),
                Some(json!({ "tool": shown })),
            ));
        }
    };
    Ok(outcome.into())
}

/// The arguments as the tool's type, or the tool error that names what is wrong.
fn typed<T: DeserializeOwned>(arguments: Map<String, Value>) -> Result<T, CallToolResult> {
    mrtd_service::arguments::from_object(arguments).map_err(|error| service_failure(&error))
}

/// Runs `tool` on the arguments as its type.
async fn with<T, F>(arguments: Map<String, Value>, tool: impl FnOnce(T) -> F) -> CallToolResult
where
    T: DeserializeOwned,
    F: Future<Output = CallToolResult>,
{
    match typed(arguments) {
        Ok(arguments) => tool(arguments).await,
        Err(failed) => failed,
    }
}

/// The text content of a result that has `structured` content: the serialised object
/// first (clients that show a model only the text content show it everything, as MCP
/// asks), then a one-line summary for people.
pub(crate) fn structured_text(structured: &Value, summary: String) -> Vec<ContentBlock> {
    vec![ContentBlock::text(structured.to_string()), ContentBlock::text(summary)]
}

/// A successful result: the object for programs, as JSON text too, and a short summary.
pub(crate) fn success(summary: String, structured: Value) -> CallToolResult {
    let mut result = CallToolResult::success(structured_text(&structured, summary));
    result.structured_content = Some(structured);
    result
}

/// A failed call the model can act on.
pub(crate) fn failure(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.into())])
}

/// A failed operation, with the service's message (safe to show, with advice).
pub(crate) fn service_failure(error: &ServiceError) -> CallToolResult {
    failure(error.to_string())
}

/// The JSON of a typed answer, for `structuredContent`.
pub(crate) fn structured(answer: &impl serde::Serialize) -> Value {
    // The service's answers serialise to JSON objects: no map with other keys, and no
    // `Serialize` implementation among them that fails.
    serde_json::to_value(answer).unwrap_or(Value::Null)
}

/// The structured result of a service call as a tool result with its summary.
pub(crate) fn outcome(
    result: Result<Value, ServiceError>,
    summary: impl FnOnce(&Value) -> String,
) -> CallToolResult {
    match result {
        Ok(structured) => success(summary(&structured), structured),
        Err(error) => service_failure(&error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_tool_that_fetches_urls_says_it_reaches_the_open_world() {
        for tool in tool_catalog() {
            let open = tool.annotations.and_then(|a| a.open_world_hint);
            // `scan_document` fetches `image_url` from wherever the caller points it.
            assert_eq!(open, Some(tool.name == "scan_document"), "{}", tool.name);
        }
    }

    #[test]
    fn every_tool_input_schema_is_a_closed_object() {
        // The schemas come from the argument types, which refuse unknown fields.
        for spec in &TOOLS {
            let schema = (spec.input_schema)();
            assert_eq!(schema["type"], "object", "{}", spec.name);
            assert_eq!(schema["additionalProperties"], false, "{}", spec.name);
        }
    }
}
