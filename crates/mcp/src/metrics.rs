//! The tool-call counter, recorded through the [`metrics`] facade (a no-op until the
//! binary installs a recorder).
//!
//! | name | kind | labels |
//! |---|---|---|
//! | `mrtd_tool_calls_total` | counter | `tool` (a published name or `unknown`), `outcome` (`ok`, `tool_error`, `input_required`, `protocol_error`) |

/// Counter of tool calls by tool and outcome.
pub const TOOL_CALLS: &str = "mrtd_tool_calls_total";

/// Describes the counter to the installed recorder (call once it is installed).
pub fn describe() {
    metrics::describe_counter!(TOOL_CALLS, "MCP tool calls by tool and outcome");
}

/// Counts a tool call. `tool` comes from the published list (others as `unknown`).
pub(crate) fn record_tool_call(tool: &'static str, outcome: &'static str) {
    metrics::counter!(TOOL_CALLS, "tool" => tool, "outcome" => outcome).increment(1);
}
