//! JSON Schemas shared by several tools. The document result's is generated from its type
//! ([`mrtd_service::result::schema`]).

use serde_json::{Value, json};

/// Input of the tools that take one scan id.
pub(super) fn scan_id_input() -> Value {
    json!({
        "type": "object",
        "properties": {
            "scan_id": {
                "type": "string",
                "description": "The scan_id returned by scan_document with retain_hours above 0."
            }
        },
        "required": ["scan_id"],
        "additionalProperties": false
    })
}
