//! The portrait kept with a scan, through the real transports (MCP over HTTP and REST, behind
//! the API-key guard, with two callers): kept only with `include_images`, linked from the
//! kept result, served to its owner only, and gone with the scan.

use crate::support;

use base64::Engine as _;
use serde_json::{Value, json};
use support::{KEY_ALICE, KEY_BOB, OpenApi, Reply, request};

const JSON: (&str, &str) = ("Content-Type", "application/json");
const ALICE: (&str, &str) = ("X-Api-Key", KEY_ALICE);
const BOB: (&str, &str) = ("X-Api-Key", KEY_BOB);

/// A photo of one of the two sides in `tests/data/sides`, as base64.
fn side(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/sides");
    let bytes = std::fs::read(path.join(name)).expect("the side's photo exists");
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A card's back (the MRZ) with its front (the face), read together: the result is of the
/// back, and the portrait is the other side's.
fn card(include_images: bool) -> Value {
    json!({
        "image_base64": side("mrz-side.jpg"),
        "other_side_base64": side("portrait-side.jpg"),
        "include_images": include_images,
        "retain_hours": 1,
        "reference_date": "2026-01-01",
    })
}

/// The bytes of a reply that must be a JPEG, checked by decoding it.
fn assert_jpeg(reply: &Reply) -> Vec<u8> {
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.header("content-type"), Some("image/jpeg"));
    assert_eq!(reply.header("cache-control"), Some("no-store"));
    let decoded = image::load_from_memory_with_format(&reply.bytes, image::ImageFormat::Jpeg)
        .expect("the portrait decodes as a JPEG");
    assert!(decoded.width() > 50 && decoded.height() > 50, "{decoded:?}");
    reply.bytes.clone()
}

/// A 404 problem, as for an unknown scan.
fn assert_not_found(reply: &Reply) {
    assert_eq!(reply.status, 404, "{}", reply.text());
    assert_eq!(reply.header("content-type"), Some("application/problem+json"));
    assert_eq!(reply.json()["code"], "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rest_keeps_the_portrait_asked_for_for_its_owner_until_the_scan_is_deleted() {
    let server = support::start_with_keys().await;
    let addr = server.addr;
    let api = OpenApi::fetch(addr).await;
    let created =
        request(addr, "POST", "/v1/scans", &[JSON, ALICE], card(true).to_string().as_bytes()).await;
    api.check("POST", "/v1/scans", &created);
    assert_eq!(created.status, 201, "{}", created.text());
    let result = created.json();
    let id = result["scan_id"].as_str().expect("kept").to_owned();
    let link = format!("mrtd://scans/{id}/portrait");
    assert!(result.get("portrait").is_none(), "the back shows no portrait: {result}");
    assert_eq!(result["other_side"]["portrait"]["image"], link.as_str(), "{result}");
    let answered = result["other_side"]["images"]["portrait"]["data_base64"].as_str().unwrap();
    let answered = base64::engine::general_purpose::STANDARD.decode(answered).unwrap();

    let kept = request(addr, "GET", &format!("/v1/scans/{id}"), &[ALICE], b"").await;
    api.check("GET", "/v1/scans/{id}", &kept);
    let kept = kept.json();
    assert_eq!(kept["other_side"]["portrait"]["image"], link.as_str(), "{kept}");
    assert!(kept.get("images").is_none() && kept["other_side"].get("images").is_none());

    let path = format!("/v1/scans/{id}/portrait");
    let portrait = request(addr, "GET", &path, &[ALICE], b"").await;
    api.check("GET", "/v1/scans/{id}/portrait", &portrait);
    assert_eq!(assert_jpeg(&portrait), answered, "the portrait kept is the one answered");

    let foreign = request(addr, "GET", &path, &[BOB], b"").await;
    api.check("GET", "/v1/scans/{id}/portrait", &foreign);
    assert_not_found(&foreign);
    let anonymous = request(addr, "GET", &path, &[], b"").await;
    assert_eq!(anonymous.status, 401);
    let unknown = request(addr, "GET", "/v1/scans/scn_nothing/portrait", &[ALICE], b"").await;
    api.check("GET", "/v1/scans/{id}/portrait", &unknown);
    assert_not_found(&unknown);
    assert_eq!(unknown.json()["detail"], foreign.json()["detail"], "the same answer");

    let deleted = request(addr, "DELETE", &format!("/v1/scans/{id}"), &[ALICE], b"").await;
    assert_eq!(deleted.status, 204);
    let gone = request(addr, "GET", &path, &[ALICE], b"").await;
    api.check("GET", "/v1/scans/{id}/portrait", &gone);
    assert_not_found(&gone);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_include_images_no_portrait_is_kept_or_linked() {
    let server = support::start_with_keys().await;
    let addr = server.addr;
    let created =
        request(addr, "POST", "/v1/scans", &[JSON, ALICE], card(false).to_string().as_bytes())
            .await;
    assert_eq!(created.status, 201, "{}", created.text());
    let result = created.json();
    let id = result["scan_id"].as_str().expect("kept").to_owned();
    assert_eq!(result["other_side"]["portrait"]["face_found"], true, "{result}");
    assert!(result["other_side"]["portrait"].get("image").is_none(), "{result}");
    let kept = request(addr, "GET", &format!("/v1/scans/{id}"), &[ALICE], b"").await.json();
    assert!(kept["other_side"]["portrait"].get("image").is_none(), "{kept}");
    let portrait = request(addr, "GET", &format!("/v1/scans/{id}/portrait"), &[ALICE], b"").await;
    assert_not_found(&portrait);

    // Nor with images asked for when nothing is kept: no scan, no link.
    let mut not_kept = card(true);
    not_kept["retain_hours"] = json!(0);
    let answered =
        request(addr, "POST", "/v1/scans", &[JSON, ALICE], not_kept.to_string().as_bytes()).await;
    assert_eq!(answered.status, 200, "{}", answered.text());
    let answered = answered.json();
    assert!(answered["other_side"]["images"]["portrait"].is_object(), "answered");
    assert!(answered["other_side"]["portrait"].get("image").is_none(), "{answered}");

    // A passport page's own portrait zone is kept and linked from the result's `portrait`.
    let passport = base64::engine::general_purpose::STANDARD.encode(support::image(PASSPORT));
    let body = json!({ "image_base64": passport, "include_images": true, "retain_hours": 1 });
    let created =
        request(addr, "POST", "/v1/scans", &[JSON, ALICE], body.to_string().as_bytes()).await;
    assert_eq!(created.status, 201, "{}", created.text());
    let result = created.json();
    let id = result["scan_id"].as_str().expect("kept");
    assert_eq!(result["portrait"]["image"], format!("mrtd://scans/{id}/portrait"), "{result}");
    let portrait = request(addr, "GET", &format!("/v1/scans/{id}/portrait"), &[ALICE], b"").await;
    assert_jpeg(&portrait);
}

const PASSPORT: &str = "100_pass-uto.jpg";

/// A 2026-07-28 JSON-RPC request on the MCP endpoint as `key`'s caller; the reply.
async fn mcp(addr: std::net::SocketAddr, key: &str, method: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let name = params["uri"].as_str().or(params["name"].as_str()).unwrap_or("").to_owned();
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    let headers = [
        JSON,
        ("Accept", "application/json, text/event-stream"),
        ("Mcp-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", method),
        ("Mcp-Name", &name),
        ("X-Api-Key", key),
    ];
    let reply = request(addr, "POST", "/mcp", &headers, body.to_string().as_bytes()).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    reply.rpc()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_links_the_kept_portrait_and_serves_it_to_its_owner_only() {
    let server = support::start_with_keys().await;
    let addr = server.addr;
    let api = OpenApi::fetch(addr).await;
    let call = json!({ "name": "scan_document", "arguments": card(true) });
    let reply = mcp(addr, KEY_ALICE, "tools/call", call).await;
    let structured = &reply["result"]["structuredContent"];
    api.validate("#/components/schemas/DocumentResult", structured, "scan_document");
    let id = structured["scan_id"].as_str().expect("kept").to_owned();
    let uri = format!("mrtd://scans/{id}/portrait");
    assert_eq!(structured["other_side"]["portrait"]["image"], uri.as_str(), "{structured}");
    let content = reply["result"]["content"].as_array().expect("content");
    let link = content
        .iter()
        .find(|block| block["type"] == "resource_link" && block["uri"] == uri.as_str())
        .unwrap_or_else(|| panic!("a link to the portrait: {content:?}"));
    assert_eq!(link["mimeType"], "image/jpeg");

    let templates = mcp(addr, KEY_ALICE, "resources/templates/list", json!({})).await;
    let templates = templates["result"]["resourceTemplates"].as_array().expect("templates");
    assert!(
        templates.iter().any(|t| t["uriTemplate"] == "mrtd://scans/{scan_id}/portrait"
            && t["mimeType"] == "image/jpeg"),
        "{templates:?}"
    );

    let read = mcp(addr, KEY_ALICE, "resources/read", json!({ "uri": uri })).await;
    let contents = &read["result"]["contents"][0];
    assert_eq!(contents["uri"], uri.as_str(), "{read}");
    assert_eq!(contents["mimeType"], "image/jpeg");
    let blob = contents["blob"].as_str().expect("a blob");
    let jpeg = base64::engine::general_purpose::STANDARD.decode(blob).unwrap();
    image::load_from_memory_with_format(&jpeg, image::ImageFormat::Jpeg).expect("a JPEG");

    let got = mcp(
        addr,
        KEY_ALICE,
        "tools/call",
        json!({ "name": "get_scan", "arguments": { "scan_id": id } }),
    )
    .await;
    let kept = &got["result"]["structuredContent"];
    assert_eq!(kept["other_side"]["portrait"]["image"], uri.as_str(), "{got}");

    // Another caller: the same error as a scan that does not exist.
    let foreign = mcp(addr, KEY_BOB, "resources/read", json!({ "uri": uri })).await;
    let unknown_uri = "mrtd://scans/scn_0000000000000000000000000/portrait";
    let unknown = mcp(addr, KEY_BOB, "resources/read", json!({ "uri": unknown_uri })).await;
    assert!(foreign.get("result").is_none(), "{foreign}");
    assert_eq!(foreign["error"]["code"], unknown["error"]["code"], "{foreign} {unknown}");
    assert_eq!(foreign["error"]["message"], unknown["error"]["message"]);

    let delete = json!({ "name": "delete_scan", "arguments": { "scan_id": id } });
    let deleted = mcp(addr, KEY_ALICE, "tools/call", delete).await;
    assert_eq!(deleted["result"]["structuredContent"]["deleted"], true, "{deleted}");
    let gone = mcp(addr, KEY_ALICE, "resources/read", json!({ "uri": uri })).await;
    assert_eq!(gone["error"], foreign["error"], "gone with the scan: {gone}");

    // Without include_images: no link in the result, no link block.
    let call = json!({ "name": "scan_document", "arguments": card(false) });
    let reply = mcp(addr, KEY_ALICE, "tools/call", call).await;
    let structured = &reply["result"]["structuredContent"];
    assert!(structured["scan_id"].is_string(), "{structured}");
    assert!(structured["other_side"]["portrait"].get("image").is_none(), "{structured}");
    let content = reply["result"]["content"].as_array().expect("content");
    let links = content.iter().filter(|block| block["type"] == "resource_link").count();
    assert_eq!(links, 1, "the scan's link alone: {content:?}");
}
