//! mrtd's MCP layer: one rmcp [`ServerHandler`](rmcp::ServerHandler) that serves the
//! document tools, the scan resources, the docs and a prompt over any transport.
//!
//! The same [`MrtdServer`] value serves stdio and Streamable HTTP; the transport only
//! decides who the caller is (a [`Principal`] put into the HTTP request's extensions by
//! the authentication layer, or the local user over stdio).
//!
//! Tools, in the order `tools/list` always returns them:
//! `scan_document`, `get_scan`, `list_scans`, `delete_scan`, `parse_mrz`, `check_document`.
//! Every tool has a title, a description written for a model (`docs/tools/*.md`), an
//! `inputSchema`, an `outputSchema`, and returns `structuredContent` plus a short summary.

mod dates;
mod image_file;
mod input;
mod principal;
mod prompts;
mod resources;
mod result;
mod server;
pub mod service;
mod state;
mod tools;

pub use image_file::ImageFileError;
pub use principal::Principal;
pub use server::MrtdServer;
pub use service::ServiceError;
pub use state::{AppState, McpConfig, StateError};
pub use tools::tool_catalog;
