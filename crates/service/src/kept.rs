//! What the operations on kept scans take and answer: `get_scan`, `list_scans` and
//! `delete_scan` (and `GET /v1/scans`, `GET`/`DELETE /v1/scans/{id}`).

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::result::DocumentResult;

/// The argument of the operations on one kept scan.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScanIdRequest {
    /// The scan_id returned by scan_document with retain_hours above 0.
    pub scan_id: String,
}

/// The arguments of `list_scans`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListRequest {
    /// next_cursor from the previous page.
    pub cursor: Option<String>,
    /// Scans on one page.
    #[schemars(range(min = 1, max = 100), extend("default" = 20))]
    pub limit: Option<u32>,
}

/// A kept scan: the document result as it was kept, with its id and expiry. Its schema is
/// the document result's, whose `scan_id` and `expires_at` a kept scan always has.
#[derive(Debug, Clone, Serialize)]
pub struct KeptScan {
    /// The result's JSON as kept, without `scan_id` and `expires_at`.
    #[serde(flatten)]
    result: Map<String, Value>,
    /// The scan's id.
    pub scan_id: String,
    /// When it expires (UTC, RFC 3339).
    pub expires_at: String,
}

/// The URI of the portrait kept with scan `scan_id` (`resources/read` over MCP; REST serves it
/// at `/v1/scans/{scan_id}/portrait`).
pub fn portrait_uri(scan_id: &str) -> String {
    format!("mrtd://scans/{scan_id}/portrait")
}

/// In a result's JSON, the portrait part a kept portrait belongs to: the result's own
/// `portrait`, else the other side's; the part [`DocumentResult::portrait_part_mut`] finds
/// in the typed result.
pub(crate) fn portrait_part(result: &mut Map<String, Value>) -> Option<&mut Map<String, Value>> {
    if result.get("portrait").is_some_and(Value::is_object) {
        return result.get_mut("portrait").and_then(Value::as_object_mut);
    }
    result.get_mut("other_side")?.get_mut("portrait")?.as_object_mut()
}

/// The version of the document result's JSON as kept, stored with it under
/// [`KEPT_VERSION_KEY`]. Fields are only ever added to the result, which needs no new
/// version; renaming or removing one, or changing what one means, raises it, with the step
/// that brings an older kept result up to it in [`KeptScan::from_kept`]. Results kept before
/// versions were stored (version 0) have today's shape.
pub const KEPT_VERSION: u64 = 3;

/// The key of [`KEPT_VERSION`] in the stored JSON (never shown to callers).
pub(crate) const KEPT_VERSION_KEY: &str = "kept_version";

/// Why a kept result cannot be served by this build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeptError {
    /// The stored value is not a JSON object.
    NotAnObject,
    /// A newer build kept it, under a version this one does not know (during a rolling
    /// upgrade, a replica of that build serves it).
    Newer(u64),
}

/// Brings the other documents a result kept in brief (before version 3: status, verdict,
/// format, lines, `valid`, region) up to whole ones: the rest of each reading is that of its
/// lines parsed as printed (the photo's corrections were not kept), with no advice.
fn whole_other_documents(result: &mut Map<String, Value>) {
    let Some(Value::Array(others)) = result.get_mut("other_documents") else { return };
    for other in others.iter_mut().filter_map(Value::as_object_mut) {
        let lines: Vec<&str> = other
            .get("lines")
            .and_then(Value::as_array)
            .map(|lines| lines.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Ok(parsed) = crate::ops::parse(&lines, None, false)
            && let Value::Object(parsed) = parsed.to_value()
        {
            for (key, value) in parsed {
                if !matches!(key.as_str(), "status" | "verdict" | "diagnostics" | "chip_access") {
                    other.entry(key).or_insert(value);
                }
            }
        }
        other.entry("diagnostics").or_insert_with(|| Value::Array(Vec::new()));
    }
}

impl KeptScan {
    /// The kept `result` (a JSON object) with its id and expiry.
    pub(crate) fn new(mut result: Map<String, Value>, scan_id: String, expires_at: String) -> Self {
        result.remove("scan_id");
        result.remove("expires_at");
        KeptScan { result, scan_id, expires_at }
    }

    /// A result as the store holds it, brought up to [`KEPT_VERSION`].
    pub(crate) fn from_kept(
        stored: Value,
        scan_id: String,
        expires_at: String,
    ) -> Result<Self, KeptError> {
        let Value::Object(mut result) = stored else {
            return Err(KeptError::NotAnObject);
        };
        let version = match result.remove(KEPT_VERSION_KEY) {
            None => 0,
            Some(version) => version.as_u64().ok_or(KeptError::NotAnObject)?,
        };
        match version {
            // Versions 0 (kept before versions were stored) and 1 lack the verdict, which
            // version 2 carries: it is decided from what they hold, as for a new result.
            0 | 1 => {
                let verdict = crate::result::Verdict::of_kept(&result);
                let verdict = serde_json::to_value(verdict).map_err(|_| KeptError::NotAnObject)?;
                result.insert("verdict".to_owned(), verdict);
                whole_other_documents(&mut result);
            }
            // Version 2 gave the other documents in a photo in brief; version 3 whole.
            2 => whole_other_documents(&mut result),
            KEPT_VERSION => {}
            newer => return Err(KeptError::Newer(newer)),
        }
        Ok(KeptScan::new(result, scan_id, expires_at))
    }

    /// Links the portrait kept with the scan from the portrait part it is of
    /// ([`portrait_uri`] as its `image`).
    pub(crate) fn link_portrait(&mut self) {
        let uri = portrait_uri(&self.scan_id);
        if let Some(part) = portrait_part(&mut self.result) {
            part.insert("image".to_owned(), uri.into());
        }
    }

    /// The MRZ lines as kept (none when the result holds none).
    pub fn lines(&self) -> Vec<String> {
        self.result
            .get("lines")
            .and_then(Value::as_array)
            .map(|items| items.iter().filter_map(|l| l.as_str().map(str::to_owned)).collect())
            .unwrap_or_default()
    }

    /// The JSON every front end returns.
    pub fn to_value(&self) -> Value {
        let mut object = self.result.clone();
        object.insert("scan_id".to_owned(), self.scan_id.clone().into());
        object.insert("expires_at".to_owned(), self.expires_at.clone().into());
        Value::Object(object)
    }
}

impl JsonSchema for KeptScan {
    fn schema_name() -> Cow<'static, str> {
        DocumentResult::schema_name()
    }

    fn schema_id() -> Cow<'static, str> {
        DocumentResult::schema_id()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        DocumentResult::json_schema(generator)
    }
}

/// One page of the caller's kept scans, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ScanList {
    /// The scans on this page: never document fields.
    pub scans: Vec<ScanSummary>,
    /// Give it back as `cursor` for the next page; `null` on the last one.
    pub next_cursor: Option<String>,
}

/// A kept scan in a list: when it was kept and until when, and what was read, without any
/// document field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ScanSummary {
    /// The scan's id.
    pub scan_id: String,
    /// When it was kept (UTC, RFC 3339).
    pub created_at: String,
    /// When it expires (UTC, RFC 3339).
    pub expires_at: String,
    /// The result's `status` (`read`: only read results are kept).
    pub status: Option<String>,
    /// The result's `format`, such as `TD3`.
    pub format: Option<String>,
}

/// The answer of `delete_scan`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Deleted {
    /// The scan's id.
    pub scan_id: String,
    /// Always `true`: the scan is gone.
    pub deleted: bool,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::schema;

    #[test]
    fn a_kept_scan_is_the_result_with_its_id_and_expiry() {
        let Value::Object(result) =
            json!({ "status": "read", "lines": ["A", "B"], "scan_id": "old" })
        else {
            unreachable!()
        };
        let kept = KeptScan::new(result, "scn_1".to_owned(), "2030-01-01T00:00:00Z".to_owned());
        assert_eq!(kept.lines(), ["A", "B"]);
        let expected = json!({ "status": "read", "lines": ["A", "B"], "scan_id": "scn_1", "expires_at": "2030-01-01T00:00:00Z" });
        assert_eq!(kept.to_value(), expected);
        assert_eq!(serde_json::to_value(&kept).unwrap(), expected, "one scan_id, the record's");
    }

    #[test]
    fn a_kept_result_is_served_at_this_version_without_its_version() {
        let at = |version: Option<Value>| {
            let mut stored = json!({ "status": "read", "lines": ["A", "B"] });
            if let Some(version) = version {
                stored[KEPT_VERSION_KEY] = version;
            }
            KeptScan::from_kept(stored, "scn_1".to_owned(), "2030-01-01T00:00:00Z".to_owned())
        };
        let expected = json!({ "status": "read", "lines": ["A", "B"], "scan_id": "scn_1", "expires_at": "2030-01-01T00:00:00Z" });
        // Kept at this version: served as kept.
        assert_eq!(at(Some(json!(KEPT_VERSION))).unwrap().to_value(), expected);
        // Kept by a newer build: not served under a schema it may not fit.
        assert_eq!(
            at(Some(json!(KEPT_VERSION + 1))).unwrap_err(),
            KeptError::Newer(KEPT_VERSION + 1)
        );
        assert_eq!(at(Some(json!("1"))).unwrap_err(), KeptError::NotAnObject);
        let not_an_object = KeptScan::from_kept(json!([1]), String::new(), String::new());
        assert_eq!(not_an_object.unwrap_err(), KeptError::NotAnObject);
    }

    #[test]
    fn a_result_kept_before_the_verdict_gets_the_one_a_new_result_has() {
        let lines = [
            "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
            "L898902C37UTO7408122F1204159ZE184226B<<<<<10",
        ];
        for on in ["2010-01-01", "2012-03-01", "2020-01-01"] {
            let today = crate::ops::parse(&lines, Some(on), false).unwrap().to_value();
            let mut old = today.clone();
            old.as_object_mut().unwrap().remove("verdict");
            for version in [None, Some(json!(0)), Some(json!(1))] {
                let mut stored = old.clone();
                if let Some(version) = version.clone() {
                    stored[KEPT_VERSION_KEY] = version;
                }
                let kept =
                    KeptScan::from_kept(stored, "scn_1".into(), "2030-01-01T00:00:00Z".into());
                let served = kept.unwrap().to_value();
                assert_eq!(served["verdict"], today["verdict"], "{on} {version:?}");
            }
        }
        let nothing = KeptScan::from_kept(
            json!({ "status": "no_mrz", "format": null }),
            String::new(),
            String::new(),
        );
        assert_eq!(nothing.unwrap().to_value()["verdict"]["headline"], "no_mrz");
    }

    #[test]
    fn other_documents_kept_in_brief_are_served_whole() {
        let lines = [
            "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
            "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
        ];
        let mut stored = crate::ops::parse(&lines, Some("2010-01-01"), false).unwrap().to_value();
        let brief = json!({
            "status": "read",
            "verdict": stored["verdict"].clone(),
            "format": "TD3",
            "lines": lines,
            "valid": true,
            "region": [[1.0, 2.0], [3.0, 2.0], [3.0, 4.0], [1.0, 4.0]],
        });
        stored["other_documents"] = json!([brief]);
        stored[KEPT_VERSION_KEY] = json!(2);
        let kept = KeptScan::from_kept(stored, "scn_1".into(), "2030-01-01T00:00:00Z".into());
        let served = kept.unwrap().to_value();
        let other = &served["other_documents"][0];
        assert_eq!(other["fields"]["document_number"], "L898902C3");
        assert_eq!(other["checks"].as_array().map(Vec::len), Some(5));
        assert_eq!(other["diagnostics"], json!([]));
        assert_eq!(other["region"], brief["region"], "what was kept stays");
        let schema = jsonschema::validator_for(&crate::result::schema()).unwrap();
        let errors: Vec<String> = schema.iter_errors(&served).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{errors:?}");
    }

    #[test]
    fn lists_and_deletions_fit_their_schemas() {
        let list = jsonschema::validator_for(&schema::output::<ScanList>()).unwrap();
        let page = ScanList {
            scans: vec![ScanSummary {
                scan_id: "scn_1".to_owned(),
                created_at: "2030-01-01T00:00:00Z".to_owned(),
                expires_at: "2030-01-01T01:00:00Z".to_owned(),
                status: Some("read".to_owned()),
                format: None,
            }],
            next_cursor: None,
        };
        let value = serde_json::to_value(&page).unwrap();
        assert_eq!(value["scans"][0]["format"], Value::Null, "an unknown format is null");
        assert_eq!(value["next_cursor"], Value::Null, "the last page says so");
        assert!(list.is_valid(&value));
        assert!(!list.is_valid(&json!({ "scans": [{}], "next_cursor": null })));
        assert!(!list.is_valid(&json!({ "scans": [] })), "next_cursor is always there");
        let deleted = jsonschema::validator_for(&schema::output::<Deleted>()).unwrap();
        let value = serde_json::to_value(Deleted { scan_id: "scn_1".to_owned(), deleted: true });
        assert_eq!(value.unwrap(), json!({ "scan_id": "scn_1", "deleted": true }));
        assert!(!deleted.is_valid(&json!({ "deleted": true })));
        let ids = jsonschema::validator_for(&schema::input::<ScanIdRequest>()).unwrap();
        assert!(ids.is_valid(&json!({ "scan_id": "scn_1" })));
        assert!(!ids.is_valid(&json!({})));
        assert!(!ids.is_valid(&json!({ "scan_id": "scn_1", "owner": "bob" })));
    }
}
