//! The web routes behind the authentication guard: what is public, what needs a key, and
//! whose scans a caller may see.

use crate::support;

use base64::Engine as _;
use serde_json::json;
use support::{KEY_ALICE, KEY_BOB, OpenApi, image, request};

const JSON: (&str, &str) = ("Content-Type", "application/json");

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_and_docs_are_public_and_the_api_needs_a_key() {
    let server = support::start_with_keys().await;
    let addr = server.addr;
    let api = OpenApi::fetch(addr).await;
    for path in ["/", "/assets/app.js", "/assets/style.css", "/llms.txt", "/docs/rest.md"] {
        let reply = request(addr, "GET", path, &[("Accept", "text/html")], b"").await;
        assert_eq!(reply.status, 200, "{path} is public");
    }

    let anonymous = request(addr, "GET", "/v1/scans", &[], b"").await;
    api.check("GET", "/v1/scans", &anonymous);
    assert_eq!(anonymous.status, 401);
    assert!(anonymous.header("www-authenticate").is_some_and(|c| c.starts_with("Bearer")));
    // The guard's refusals are problem details in the REST API's shape.
    assert_eq!(anonymous.header("content-type"), Some("application/problem+json"));
    let problem = anonymous.json();
    assert_eq!(
        (&problem["type"], &problem["status"], &problem["code"]),
        (&json!("/docs/rest.md#unauthorized"), &json!(401), &json!("unauthorized")),
        "{problem}"
    );
    assert_eq!(problem["detail"], problem["error"]["message"], "{problem}");
    let wrong = request(addr, "GET", "/v1/scans", &[("X-Api-Key", "mrtd_wrong")], b"").await;
    api.check("GET", "/v1/scans", &wrong);
    assert_eq!(wrong.status, 401);
    let parse = request(addr, "POST", "/v1/parse", &[JSON], br#"{"lines":["a"]}"#).await;
    api.check("POST", "/v1/parse", &parse);
    assert_eq!(parse.status, 401, "parsing needs a key too");
    let scan = request(addr, "POST", "/v1/scans", &[JSON], br#"{"image_base64":"AA=="}"#).await;
    api.check("POST", "/v1/scans", &scan);
    assert_eq!(scan.status, 401);

    let by_header = request(addr, "GET", "/v1/scans", &[("X-Api-Key", KEY_ALICE)], b"").await;
    api.check("GET", "/v1/scans", &by_header);
    assert_eq!(by_header.status, 200);
    let bearer = format!("Bearer {KEY_ALICE}");
    let by_bearer = request(addr, "GET", "/v1/scans", &[("Authorization", &bearer)], b"").await;
    assert_eq!(by_bearer.status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_callers_scan_is_not_found() {
    let server = support::start_with_keys().await;
    let addr = server.addr;
    let api = OpenApi::fetch(addr).await;
    let alice = [("X-Api-Key", KEY_ALICE)];
    let bob = [("X-Api-Key", KEY_BOB)];
    let encoded = base64::engine::general_purpose::STANDARD.encode(image("100_pass-uto.jpg"));
    let body = json!({ "image_base64": encoded, "retain_hours": 1 }).to_string();
    let created = request(addr, "POST", "/v1/scans", &[JSON, alice[0]], body.as_bytes()).await;
    api.check("POST", "/v1/scans", &created);
    assert_eq!(created.status, 201, "{}", created.text());
    let id = created.json()["scan_id"].as_str().unwrap().to_owned();
    let path = format!("/v1/scans/{id}");

    let foreign = request(addr, "GET", &path, &bob, b"").await;
    api.check("GET", "/v1/scans/{id}", &foreign);
    assert_eq!(foreign.status, 404);
    let unknown = request(addr, "GET", "/v1/scans/scn_unknown", &bob, b"").await;
    assert_eq!(foreign.json(), unknown.json(), "foreign and unknown look the same");
    let foreign_delete = request(addr, "DELETE", &path, &bob, b"").await;
    api.check("DELETE", "/v1/scans/{id}", &foreign_delete);
    assert_eq!(foreign_delete.status, 404);
    let bobs_list = request(addr, "GET", "/v1/scans", &bob, b"").await;
    assert_eq!(bobs_list.json()["scans"], json!([]));

    let own = request(addr, "GET", &path, &alice, b"").await;
    assert_eq!(own.status, 200, "the delete by another caller changed nothing");
    assert_eq!(own.json()["fields"]["surname"], "ERIKSSON");
    // The same owner over MCP: the REST scan is Alice's there too, and not Bob's.
    let via_mcp = support::mcp_tool(addr, "get_scan", json!({ "scan_id": id }), &alice).await;
    assert_eq!(via_mcp["result"]["structuredContent"], own.json(), "{via_mcp}");
    let bob_mcp = support::mcp_tool(addr, "get_scan", json!({ "scan_id": id }), &bob).await;
    assert_eq!(bob_mcp["result"]["isError"], true, "{bob_mcp}");
}
