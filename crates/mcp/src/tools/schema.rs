//! JSON Schemas shared by several tools, generated from the service's types.

use serde_json::Value;

/// Input of the tools that take one scan id.
pub(super) fn scan_id_input() -> Value {
    mrtd_service::schema::input::<mrtd_service::kept::ScanIdRequest>()
}
