//! mrtd's MCP layer: one rmcp [`ServerHandler`](rmcp::ServerHandler) that serves the
//! document tools, the scan resources, the docs and a prompt over any transport.
//!
//! The same [`MrtdServer`] value serves stdio and Streamable HTTP. The operations are
//! `mrtd-service`'s; this crate turns tool calls into them and their results into tool
//! results. It knows no transport: the caller is the [`mrtd_service::Principal`] found in
//! the HTTP request's extensions (put there by the composition once authenticated) or the
//! local user, and the span of a tool call is made by a [`ToolSpans`] the composition may
//! supply.
//!
//! Tools, in the order `tools/list` always returns them:
//! `scan_document`, `get_scan`, `list_scans`, `delete_scan`, `parse_mrz`, `check_document`,
//! `verify_chip`.
//! Every tool has a title, a description written for a model
//! ([`mrtd_service::docs::tools`]), an `inputSchema` and an `outputSchema` generated from
//! the service's types, the scope it needs and whether it runs a recognition
//! ([`tool_access`]), and returns `structuredContent` plus a short summary.

pub mod metrics;
mod principal;
mod prompts;
mod resources;
mod server;
mod tools;

pub use mrtd_service::Access;
pub use resources::resource_access;
pub use server::{McpConfig, McpError, MrtdServer, ToolCall, ToolSpans};
pub use tools::{ToolAccess, tool_access, tool_catalog};

/// What the tools share: the document operations and the `requestState` sealer.
pub(crate) struct Shared {
    pub(crate) state: mrtd_service::AppState,
    pub(crate) codec: rmcp::model::RequestStateCodec,
}
