//! JSON Schemas shared by several tools.

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

/// The document result of `scan_document`, `get_scan` and `parse_mrz`.
pub(super) fn document_result() -> Value {
    json!({
        "type": "object",
        "properties": {
            "status": {
                "type": "string",
                "enum": ["read", "partial", "no_mrz"],
                "description": "read: every check digit verified; partial: an MRZ was found but not read with confidence; no_mrz: none found."
            },
            "format": {
                "type": ["string", "null"],
                "enum": ["TD1", "TD2", "TD3", "MRVA", "MRVB", "FRA_ID", null]
            },
            "valid": { "type": "boolean", "description": "Every check digit the format prints is verified." },
            "lines": { "type": "array", "items": { "type": "string" } },
            "fields": {
                "type": ["object", "null"],
                "properties": {
                    "document_code": { "type": "string" },
                    "issuer": { "type": "string" },
                    "document_number": { "type": "string" },
                    "nationality": { "type": ["string", "null"] },
                    "birth_date": { "type": ["string", "null"] },
                    "expiry_date": { "type": ["string", "null"] },
                    "sex": { "type": ["string", "null"] },
                    "surname": { "type": "string" },
                    "given_names": { "type": "string" },
                    "optional_data": { "type": ["string", "null"] }
                }
            },
            "checks": { "type": "array", "items": { "type": "object" } },
            "corrections": { "type": "array", "items": { "type": "object" } },
            "suggestions": {
                "type": "array", "items": { "type": "object" },
                "description": "Only when parse_mrz was called without correct: the changes the check digits would support, shaped like corrections, not applied."
            },
            "warnings": { "type": "array", "items": { "type": "object" } },
            "diagnostics": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "code": { "type": "string" },
                        "message": { "type": "string" }
                    },
                    "required": ["code", "message"]
                }
            },
            "scan_id": { "type": "string" },
            "expires_at": { "type": "string", "description": "When a kept scan expires (UTC, RFC 3339)." }
        },
        "required": ["status", "format", "valid", "lines", "fields", "checks", "corrections", "diagnostics"]
    })
}
