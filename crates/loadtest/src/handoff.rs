//! `mrtd-load handoff`: proves that replicas share state: a scan made through one is read
//! and deleted through the other, and an `input_required` round trip started on one
//! completes on the other.

use std::{path::Path, sync::Arc, time::Duration};

use base64::Engine as _;
use serde_json::{Value, json};

use crate::{
    client::{self, Connection, Endpoint},
    error::LoadError,
    png,
};

/// The ICAO 9303 specimen lines the simulated user types when asked for the MRZ.
const TYPED_LINE1: &str = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<";
const TYPED_LINE2: &str = "L898902C36UTO7408122F1204159ZE184226B<<<<<10";
const TYPED_NUMBER: &str = "L898902C3";

/// Counts the checks of a hand-off run and prints each one.
#[derive(Default)]
pub struct Checks {
    pub passed: usize,
    pub failed: usize,
}

impl Checks {
    fn check(&mut self, ok: bool, what: &str, detail: &str) -> bool {
        if ok {
            self.passed += 1;
            println!("  ok    {what}");
        } else {
            self.failed += 1;
            println!("  FAIL  {what}: {detail}");
        }
        ok
    }
}

/// One side of the hand-off, with the name the report uses for it.
struct Side {
    label: String,
    connection: Connection,
}

impl Side {
    fn new(label: &str, endpoint: &Arc<Endpoint>, timeout: Duration) -> Side {
        let connection = Connection::new(endpoint.clone(), None, timeout);
        Side { label: format!("{label} ({})", endpoint.authority), connection }
    }

    /// Where the last answer came from: the side itself, plus the replica a proxy named.
    fn answered_by(&self) -> String {
        match &self.connection.last_upstream {
            Some(upstream) => format!("{} -> replica {upstream}", self.label),
            None => self.label.clone(),
        }
    }

    async fn tool(&mut self, tool: &str, arguments: Value, capabilities: &Value) -> Value {
        self.tool_with(
            json!({ "_meta": client::meta(capabilities), "name": tool, "arguments": arguments }),
        )
        .await
    }

    /// Sends `tools/call` params as given and returns the result, or an object holding
    /// the failure under `failure` (so that checks can print it).
    async fn tool_with(&mut self, params: Value) -> Value {
        let tool = params["name"].as_str().unwrap_or_default().to_owned();
        match self.connection.request("tools/call", Some(&tool), &params.to_string()).await {
            Ok(result) => result,
            Err(failure) => json!({ "failure": format!("{}: {}", failure.kind, failure.message) }),
        }
    }
}

/// Runs both hand-offs between `first` and `second`: the scan handle and the
/// `input_required` retry. `passport` is a photo the server reads.
pub async fn handoff(
    first: &Arc<Endpoint>,
    second: &Arc<Endpoint>,
    names: (&str, &str),
    passport: &Path,
    timeout: Duration,
) -> Result<Checks, LoadError> {
    let bytes = std::fs::read(passport)
        .map_err(|source| LoadError::Read { path: passport.to_owned(), source })?;
    let engine = base64::engine::general_purpose::STANDARD;
    let photo = engine.encode(bytes);
    let blank = engine.encode(png::blank_png(320, 200, 200));
    let mut a = Side::new(names.0, first, timeout);
    let mut b = Side::new(names.1, second, timeout);
    let mut checks = Checks::default();
    let none = json!({});

    // A scan kept through one side is read and deleted through the other.
    let kept =
        a.tool("scan_document", json!({ "image_base64": photo, "retain_hours": 1 }), &none).await;
    let id = kept["structuredContent"]["scan_id"].as_str().unwrap_or_default().to_owned();
    let number = kept["structuredContent"]["fields"]["document_number"].clone();
    let what = format!("scan_document kept {id} through {}", a.answered_by());
    if !checks.check(!id.is_empty() && kept["isError"] != true, &what, &kept.to_string()) {
        return Ok(checks);
    }
    let read = b.tool("get_scan", json!({ "scan_id": id }), &none).await;
    let same = read["structuredContent"]["scan_id"] == id.as_str()
        && read["structuredContent"]["fields"]["document_number"] == number;
    let what = format!("get_scan {id} through {} (document {number})", b.answered_by());
    checks.check(same, &what, &read.to_string());
    let deleted = b.tool("delete_scan", json!({ "scan_id": id }), &none).await;
    let what = format!("delete_scan {id} through {}", b.answered_by());
    checks.check(deleted["structuredContent"]["deleted"] == true, &what, &deleted.to_string());
    let gone = a.tool("get_scan", json!({ "scan_id": id }), &none).await;
    let not_found = gone["isError"] == true
        && client::tool_text(&gone).starts_with("No scan with this scan_id");
    let what = format!("get_scan {id} through {} is gone after the delete", a.answered_by());
    checks.check(not_found, &what, &gone.to_string());

    // An input_required round trip started on one side completes on the other.
    let can_elicit = json!({ "elicitation": {} });
    let arguments = json!({ "image_base64": blank, "retain_hours": 1 });
    let asked = a.tool("scan_document", arguments.clone(), &can_elicit).await;
    let state = asked["requestState"].as_str().unwrap_or_default().to_owned();
    let what = format!(
        "scan_document of a photo without an MRZ answers input_required through {}",
        a.answered_by()
    );
    let ok = asked["resultType"] == "input_required"
        && asked["inputRequests"]["mrz_text"]["method"] == "elicitation/create"
        && !state.is_empty();
    if !checks.check(ok, &what, &asked.to_string()) {
        return Ok(checks);
    }
    let retry = json!({
        "_meta": client::meta(&can_elicit),
        "name": "scan_document",
        "arguments": arguments,
        "inputResponses": {
            "mrz_text": { "action": "accept", "content": { "line1": TYPED_LINE1, "line2": TYPED_LINE2 } }
        },
        "requestState": state,
    });
    let done = b.tool_with(retry).await;
    let structured = &done["structuredContent"];
    let typed_id = structured["scan_id"].as_str().unwrap_or_default().to_owned();
    let ok = done["resultType"] == "complete"
        && done["isError"] != true
        && structured["source"] == "typed"
        && structured["fields"]["document_number"] == TYPED_NUMBER
        && !typed_id.is_empty();
    let what = format!(
        "the retry with inputResponses and requestState completes through {} (kept {typed_id})",
        b.answered_by()
    );
    checks.check(ok, &what, &done.to_string());
    if !typed_id.is_empty() {
        let read = a.tool("get_scan", json!({ "scan_id": typed_id }), &none).await;
        let what = format!("the typed scan {typed_id} reads back through {}", a.answered_by());
        checks.check(read["structuredContent"]["source"] == "typed", &what, &read.to_string());
        let deleted = a.tool("delete_scan", json!({ "scan_id": typed_id }), &none).await;
        let what = format!("delete_scan {typed_id} through {}", a.answered_by());
        checks.check(deleted["structuredContent"]["deleted"] == true, &what, &deleted.to_string());
    }
    Ok(checks)
}
