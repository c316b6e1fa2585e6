//! The rmcp handler.

use rmcp::{
    ErrorData, RoleServer, ServerHandler,
    model::{
        CacheScope, CallToolRequestParams, CallToolResponse, GetPromptRequestParams,
        GetPromptResponse, Implementation, ListPromptsResult, ListResourceTemplatesResult,
        ListResourcesResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
        ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
    },
    service::RequestContext,
};

use std::sync::Arc;

use mrtd_service::AppState;
use rmcp::model::RequestStateCodec;
use tracing::Instrument;

use crate::{Shared, metrics, principal, prompts, resources, tools};

/// The four revisions this server implements (2024-11-05 is not offered).
const SUPPORTED_VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V_2025_03_26,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2026_07_28,
];

/// How long clients may cache the tool list: it changes only with a release.
const TOOLS_TTL_MS: u64 = 60 * 60 * 1000;

/// Settings of the MCP layer.
#[derive(Debug, Clone)]
pub struct McpConfig {
    /// Key for the integrity tag of `requestState` (at least 32 bytes). Replicas that
    /// serve the same clients must share it.
    pub request_state_key: Vec<u8>,
}

/// Errors found while building the server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// The request-state key is too short.
    #[error("the request-state key must be at least 32 bytes")]
    RequestStateKey,
}

/// What the span of one tool call is made from.
#[derive(Debug, Clone, Copy)]
pub struct ToolCall<'a> {
    /// The tool's name as the client sent it (any text, any length).
    pub tool: &'a str,
    /// The W3C `traceparent` from the request's `_meta`, unchecked.
    pub traceparent: Option<&'a str>,
    /// The W3C `tracestate` from the request's `_meta`, unchecked.
    pub tracestate: Option<&'a str>,
    /// The HTTP request the call came in, when it came over HTTP.
    pub http: Option<&'a http::request::Parts>,
}

/// Makes the span of each tool call; the composition supplies one that joins the HTTP
/// request's span and the caller's trace. Without one, a plain `tool_call` span.
pub type ToolSpans = Arc<dyn Fn(ToolCall<'_>) -> tracing::Span + Send + Sync>;

/// Longest tool name the default span records; names are the client's text.
const SPAN_TOOL_NAME_LIMIT: usize = 64;

/// mrtd's MCP server: stateless, cheap to clone, one value for every transport.
#[derive(Clone)]
pub struct MrtdServer {
    shared: Arc<Shared>,
    spans: Option<ToolSpans>,
}

impl MrtdServer {
    /// A server over the document operations.
    pub fn new(state: AppState, config: &McpConfig) -> Result<Self, McpError> {
        let codec = RequestStateCodec::try_new(config.request_state_key.clone())
            .map_err(|_| McpError::RequestStateKey)?;
        Ok(MrtdServer { shared: Arc::new(Shared { state, codec }), spans: None })
    }

    /// Makes the span of each tool call with `spans`.
    #[must_use]
    pub fn with_tool_spans(mut self, spans: ToolSpans) -> Self {
        self.spans = Some(spans);
        self
    }

    fn span(&self, call: ToolCall<'_>) -> tracing::Span {
        match &self.spans {
            Some(spans) => spans(call),
            None => {
                let tool: String = call.tool.chars().take(SPAN_TOOL_NAME_LIMIT).collect();
                tracing::info_span!("tool_call", tool = tool)
            }
        }
    }
}

impl ServerHandler for MrtdServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_prompts()
            .build();
        let mut info = ServerConfig::new(capabilities);
        let mut implementation = Implementation::new("mrtd", env!("CARGO_PKG_VERSION"));
        implementation.title = Some("mrtd travel document reader".into());
        info.server_info = implementation;
        info.instructions = Some(
            "Reads passports, ID cards and visas (ICAO 9303 MRZ) from photos. Start with \
             scan_document; use check_document for yes/no questions so fields need not be shown."
                .into(),
        );
        info
    }

    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        std::borrow::Cow::Borrowed(SUPPORTED_VERSIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let result = ListToolsResult::with_all_items(tools::tool_catalog());
        Ok(if is_modern(&context) {
            result.with_ttl_ms(TOOLS_TTL_MS).with_cache_scope(CacheScope::Public)
        } else {
            result
        })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // The tool call is a child of the HTTP request's span (when there is one) and
        // carries the caller's W3C trace context from `_meta`, so logs of one call can be
        // joined to the client's trace.
        let span = self.span(ToolCall {
            tool: &request.name,
            traceparent: context.meta.get_traceparent(),
            tracestate: context.meta.get_tracestate(),
            http: context.extensions.get::<http::request::Parts>(),
        });
        let tool = tool_label(&request.name);
        let started = std::time::Instant::now();
        let response = tools::call(&self.shared, request, &context).instrument(span.clone()).await;
        let outcome = match &response {
            Ok(CallToolResponse::Complete(result)) if result.is_error == Some(true) => "tool_error",
            Ok(CallToolResponse::InputRequired(_)) => "input_required",
            Ok(_) => "ok",
            Err(_) => "protocol_error",
        };
        metrics::record_tool_call(tool, outcome);
        // Names and outcomes only: document fields never reach the logs.
        tracing::debug!(
            parent: &span,
            outcome,
            elapsed_ms = started.elapsed().as_secs_f64() * 1000.0,
            "tool call finished"
        );
        response
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(resources::list(&self.shared.state, is_modern(&context)).await)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(resources::templates(&self.shared.state, is_modern(&context)))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let principal = principal::of(&context);
        // An answer built from a file keeps its share of the memory budget until the HTTP
        // response carrying it is written (the composition's hold), else until it is built.
        let hold = context
            .extensions
            .get::<http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<mrtd_service::ResponseHold>());
        resources::read(&self.shared.state, &principal, &request.uri, is_modern(&context), hold)
            .await
            .map(Into::into)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(prompts::list(is_modern(&context)))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        prompts::get(&request.name, request.arguments.as_ref()).map(Into::into)
    }
}

/// Whether the request speaks 2026-07-28, whose results carry caching hints.
/// Legacy results must not: those fields do not exist in the 2025 schemas.
pub(crate) fn is_modern(context: &RequestContext<RoleServer>) -> bool {
    context.protocol_version() == Some(ProtocolVersion::V_2026_07_28)
}

/// A tool name as a metric label: the published name, or `unknown` for anything else, so
/// callers cannot create series at will.
fn tool_label(name: &str) -> &'static str {
    tools::published_name(name).unwrap_or("unknown")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_published_tool_has_its_own_metric_label() {
        for tool in tools::tool_catalog() {
            assert_eq!(tool_label(&tool.name), tool.name.as_ref());
        }
        assert_eq!(tool_label("no_such_tool"), "unknown");
    }
}
