//! The REST API over a real socket: scans, kept scans, parsing and errors, each response
//! checked against the OpenAPI document the server publishes.

use crate::support;

use base64::Engine as _;
use serde_json::{Value, json};
use support::{OpenApi, Reply, image, manifest_mrz, multipart, request};

const PHOTO: &str = "100_pass-uto.jpg";
const JSON: (&str, &str) = ("Content-Type", "application/json");

/// An RFC 9457 problem with this status and code, whose `type` names the code and whose
/// message leaks nothing internal.
fn assert_error(reply: &Reply, status: u16, code: &str) {
    assert_eq!(reply.status, status, "{}", reply.text());
    assert_eq!(reply.header("content-type"), Some("application/problem+json"), "{}", reply.text());
    let body = reply.json();
    assert_eq!(body["error"]["code"], code, "{body}");
    assert_eq!(body["code"], code, "{body}");
    assert_eq!(body["status"], status, "{body}");
    assert_eq!(body["type"], format!("/docs/rest.md#{code}"), "{body}");
    assert!(body["title"].as_str().is_some_and(|t| !t.is_empty()), "{body}");
    assert_eq!(body["detail"], body["error"]["message"], "{body}");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(!message.is_empty(), "{body}");
    for internal in ["sqlite", "sqlx", "panicked", "src/", "Error {"] {
        assert!(!message.contains(internal), "the message leaks internals: {message}");
    }
}

async fn post_json(addr: std::net::SocketAddr, path: &str, body: &Value) -> Reply {
    request(addr, "POST", path, &[JSON], body.to_string().as_bytes()).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_photo_uploaded_as_a_form_reads_as_in_the_manifest() {
    let server = support::start().await;
    let api = OpenApi::fetch(server.addr).await;
    let photo = image(PHOTO);
    let (content_type, body) = multipart(&[("image", Some(PHOTO), &photo)]);
    let reply =
        request(server.addr, "POST", "/v1/scans", &[("Content-Type", &content_type)], &body).await;
    api.check("POST", "/v1/scans", &reply);
    assert_eq!(reply.status, 200, "not kept, so 200: {}", reply.text());
    assert_eq!(reply.header("cache-control"), Some("no-store"));
    let result = reply.json();
    assert_eq!(result["status"], "read", "{result}");
    assert_eq!(result["format"], "TD3");
    let expected = manifest_mrz(PHOTO);
    assert_eq!(result["lines"], json!(expected));
    assert_eq!(result["fields"]["surname"], "ERIKSSON");
    assert_eq!(result["fields"]["document_number"], "L898902C3");
    let region = result["region"].as_array().expect("the MRZ region");
    assert_eq!(region.len(), 4);
    let width = result["image"]["width"].as_f64().unwrap();
    for corner in region {
        let x = corner[0].as_f64().unwrap();
        assert!((-1.0..=width + 1.0).contains(&x), "{corner} lies on the image");
    }
    assert!(result.get("scan_id").is_none(), "retain_hours 0 keeps nothing");
    let listed = request(server.addr, "GET", "/v1/scans", &[], b"").await;
    api.check("GET", "/v1/scans", &listed);
    assert_eq!(listed.json()["scans"], json!([]), "nothing was kept");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_photo_sent_as_the_body_itself_reads_and_can_be_kept() {
    let server = support::start().await;
    let api = OpenApi::fetch(server.addr).await;
    let photo = image(PHOTO);
    for content_type in ["image/jpeg", "application/octet-stream"] {
        let reply =
            request(server.addr, "POST", "/v1/scans", &[("Content-Type", content_type)], &photo)
                .await;
        api.check("POST", "/v1/scans", &reply);
        assert_eq!(reply.status, 200, "{content_type}: {}", reply.text());
        let result = reply.json();
        assert_eq!(result["status"], "read", "{result}");
        assert_eq!(result["fields"]["document_number"], "L898902C3");
    }
    // A scanned PDF as the body: the MRZ is on its second page.
    let pdf = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/data/pdf/blank-then-100_pass-uto.pdf"),
    )
    .expect("the PDF fixture");
    let reply =
        request(server.addr, "POST", "/v1/scans", &[("Content-Type", "application/pdf")], &pdf)
            .await;
    api.check("POST", "/v1/scans", &reply);
    assert_eq!(reply.status, 200, "{}", reply.text());
    let result = reply.json();
    assert_eq!(result["fields"]["document_number"], "L898902C3", "{result}");
    assert_eq!(
        (result["image"]["format"].as_str(), result["image"]["page"].as_u64()),
        (Some("pdf"), Some(2))
    );

    let kept = request(
        server.addr,
        "POST",
        "/v1/scans?retain_hours=2&reference_date=2010-01-01",
        &[("Content-Type", "image/jpeg")],
        &photo,
    )
    .await;
    api.check("POST", "/v1/scans", &kept);
    assert_eq!(kept.status, 201, "{}", kept.text());
    let result = kept.json();
    assert!(result["scan_id"].is_string(), "{result}");
    assert_eq!(result["derived"]["reference_date"], "2010-01-01");
    assert_eq!(result["derived"]["expired"], false, "the passport expires in 2012");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kept_scan_can_be_fetched_listed_and_deleted() {
    let server = support::start().await;
    let api = OpenApi::fetch(server.addr).await;
    let encoded = base64::engine::general_purpose::STANDARD.encode(image(PHOTO));
    let body =
        json!({ "image_base64": encoded, "retain_hours": 2, "reference_date": "2010-06-01" });
    let created = post_json(server.addr, "/v1/scans", &body).await;
    api.check("POST", "/v1/scans", &created);
    assert_eq!(created.status, 201, "{}", created.text());
    let result = created.json();
    let id = result["scan_id"].as_str().expect("a scan id").to_owned();
    assert_eq!(created.header("location"), Some(format!("/v1/scans/{id}").as_str()));
    assert_eq!(result["derived"]["reference_date"], "2010-06-01");
    assert_eq!(result["derived"]["expired"], false);

    let fetched = request(server.addr, "GET", &format!("/v1/scans/{id}"), &[], b"").await;
    api.check("GET", "/v1/scans/{id}", &fetched);
    assert_eq!(fetched.status, 200);
    assert_eq!(fetched.json(), result, "the kept result is the one returned");

    let listed = request(server.addr, "GET", "/v1/scans?limit=5", &[], b"").await;
    api.check("GET", "/v1/scans", &listed);
    let page = listed.json();
    assert_eq!(page["scans"].as_array().map(Vec::len), Some(1), "{page}");
    assert_eq!(page["scans"][0]["scan_id"], id.as_str());
    assert_eq!(page["scans"][0]["status"], "read");
    assert!(page["scans"][0].get("fields").is_none(), "a list never shows document fields");

    let deleted = request(server.addr, "DELETE", &format!("/v1/scans/{id}"), &[], b"").await;
    api.check("DELETE", "/v1/scans/{id}", &deleted);
    assert_eq!(deleted.status, 204);
    let gone = request(server.addr, "GET", &format!("/v1/scans/{id}"), &[], b"").await;
    api.check("GET", "/v1/scans/{id}", &gone);
    assert_error(&gone, 404, "not_found");
    let again = request(server.addr, "DELETE", &format!("/v1/scans/{id}"), &[], b"").await;
    api.check("DELETE", "/v1/scans/{id}", &again);
    assert_error(&again, 404, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_list_pages_with_a_cursor() {
    let server = support::start().await;
    let api = OpenApi::fetch(server.addr).await;
    let encoded = base64::engine::general_purpose::STANDARD.encode(image(PHOTO));
    let mut ids = Vec::new();
    for _ in 0..3 {
        let body = json!({ "image_base64": encoded, "retain_hours": 1 });
        let created = post_json(server.addr, "/v1/scans", &body).await;
        assert_eq!(created.status, 201, "{}", created.text());
        ids.push(created.json()["scan_id"].as_str().unwrap().to_owned());
    }
    let mut seen = Vec::new();
    let mut path = "/v1/scans?limit=2".to_owned();
    loop {
        let reply = request(server.addr, "GET", &path, &[], b"").await;
        api.check("GET", "/v1/scans", &reply);
        let page = reply.json();
        for scan in page["scans"].as_array().unwrap() {
            seen.push(scan["scan_id"].as_str().unwrap().to_owned());
        }
        match page["next_cursor"].as_str() {
            Some(cursor) => path = format!("/v1/scans?limit=2&cursor={cursor}"),
            None => break,
        }
    }
    ids.reverse();
    assert_eq!(seen, ids, "newest first, each once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rest_and_mcp_give_the_same_results() {
    let server = support::start().await;
    let lines = manifest_mrz(PHOTO);
    let rest = post_json(
        server.addr,
        "/v1/parse",
        &json!({ "lines": lines, "reference_date": "2010-01-01" }),
    )
    .await;
    assert_eq!(rest.status, 200, "{}", rest.text());
    let mcp = support::mcp_tool(
        server.addr,
        "parse_mrz",
        json!({ "lines": lines, "reference_date": "2010-01-01" }),
        &[],
    )
    .await;
    assert_eq!(mcp["result"]["structuredContent"], rest.json(), "{mcp}");

    // A scan kept through MCP is the caller's scan on the REST API too.
    let encoded = base64::engine::general_purpose::STANDARD.encode(image(PHOTO));
    let kept = support::mcp_tool(
        server.addr,
        "scan_document",
        json!({ "image_base64": encoded, "retain_hours": 1 }),
        &[],
    )
    .await;
    let structured = &kept["result"]["structuredContent"];
    let id = structured["scan_id"].as_str().expect("kept through MCP");
    let fetched = request(server.addr, "GET", &format!("/v1/scans/{id}"), &[], b"").await;
    assert_eq!(fetched.status, 200);
    assert_eq!(&fetched.json(), structured);

    // The text form splits into lines.
    let text = post_json(server.addr, "/v1/parse", &json!({ "text": lines.join("\n") })).await;
    assert_eq!(text.status, 200);
    assert_eq!(text.json()["fields"]["surname"], "ERIKSSON");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_json_errors_with_the_right_status() {
    let server = support::start().await;
    let api = OpenApi::fetch(server.addr).await;
    let addr = server.addr;

    let not_mrz = post_json(addr, "/v1/parse", &json!({ "lines": ["hello", "world"] })).await;
    api.check("POST", "/v1/parse", &not_mrz);
    assert_error(&not_mrz, 422, "not_mrz");
    let both = post_json(addr, "/v1/parse", &json!({ "lines": ["a"], "text": "b" })).await;
    api.check("POST", "/v1/parse", &both);
    assert_error(&both, 400, "invalid_request");
    let unknown = post_json(addr, "/v1/parse", &json!({ "line": ["a"] })).await;
    api.check("POST", "/v1/parse", &unknown);
    assert_error(&unknown, 400, "invalid_request");
    let not_json = request(addr, "POST", "/v1/parse", &[JSON], b"{not json").await;
    api.check("POST", "/v1/parse", &not_json);
    assert_error(&not_json, 400, "invalid_request");
    let plain = request(addr, "POST", "/v1/parse", &[("Content-Type", "text/plain")], b"P<").await;
    api.check("POST", "/v1/parse", &plain);
    assert_error(&plain, 415, "unsupported_media_type");
    let bad_date = post_json(
        addr,
        "/v1/parse",
        &json!({ "lines": manifest_mrz(PHOTO), "reference_date": "2010-13-01" }),
    )
    .await;
    api.check("POST", "/v1/parse", &bad_date);
    assert_error(&bad_date, 400, "invalid_request");

    let text_body =
        request(addr, "POST", "/v1/scans", &[("Content-Type", "text/plain")], b"a photo").await;
    api.check("POST", "/v1/scans", &text_body);
    assert_error(&text_body, 415, "unsupported_media_type");
    let raw_bad_query = request(
        addr,
        "POST",
        "/v1/scans?retain_hours=soon",
        &[("Content-Type", "image/jpeg")],
        &image(PHOTO),
    )
    .await;
    api.check("POST", "/v1/scans", &raw_bad_query);
    assert_error(&raw_bad_query, 400, "invalid_request");
    let raw_empty = request(addr, "POST", "/v1/scans", &[("Content-Type", "image/png")], b"").await;
    api.check("POST", "/v1/scans", &raw_empty);
    assert_error(&raw_empty, 400, "invalid_request");
    let bad_base64 = post_json(addr, "/v1/scans", &json!({ "image_base64": "***" })).await;
    api.check("POST", "/v1/scans", &bad_base64);
    assert_error(&bad_base64, 400, "invalid_request");
    let not_an_image =
        post_json(addr, "/v1/scans", &json!({ "image_base64": "aGVsbG8gd29ybGQ=" })).await;
    api.check("POST", "/v1/scans", &not_an_image);
    assert_error(&not_an_image, 422, "unreadable_image");
    let encoded = base64::engine::general_purpose::STANDARD.encode(image(PHOTO));
    let negative =
        post_json(addr, "/v1/scans", &json!({ "image_base64": encoded, "retain_hours": -1 })).await;
    api.check("POST", "/v1/scans", &negative);
    assert_error(&negative, 400, "invalid_request");
    let too_long =
        post_json(addr, "/v1/scans", &json!({ "image_base64": encoded, "retain_hours": 9000 }))
            .await;
    assert_error(&too_long, 400, "invalid_request");
    let (content_type, body) = multipart(&[("retain_hours", None, b"1")]);
    let no_image =
        request(addr, "POST", "/v1/scans", &[("Content-Type", &content_type)], &body).await;
    api.check("POST", "/v1/scans", &no_image);
    assert_error(&no_image, 400, "invalid_request");
    let (content_type, body) = multipart(&[("picture", Some("a.jpg"), b"x")]);
    let wrong_field =
        request(addr, "POST", "/v1/scans", &[("Content-Type", &content_type)], &body).await;
    assert_error(&wrong_field, 400, "invalid_request");

    let unknown_id = request(addr, "GET", "/v1/scans/scn_does_not_exist", &[], b"").await;
    api.check("GET", "/v1/scans/{id}", &unknown_id);
    assert_error(&unknown_id, 404, "not_found");
    let bad_cursor = request(addr, "GET", "/v1/scans?cursor=forged", &[], b"").await;
    api.check("GET", "/v1/scans", &bad_cursor);
    assert_error(&bad_cursor, 400, "invalid_cursor");
    let zero = request(addr, "GET", "/v1/scans?limit=0", &[], b"").await;
    api.check("GET", "/v1/scans", &zero);
    assert_error(&zero, 400, "invalid_request");
    let extra = request(addr, "GET", "/v1/scans?owner=bob", &[], b"").await;
    api.check("GET", "/v1/scans", &extra);
    assert_error(&extra, 400, "invalid_request");

    let nowhere = request(addr, "GET", "/v1/nothing", &[], b"").await;
    assert_error(&nowhere, 404, "not_found");
    // A path that exists, with a method it does not take: a problem naming what it takes.
    let put = request(addr, "PUT", "/v1/parse", &[], b"").await;
    assert_error(&put, 405, "method_not_allowed");
    assert_eq!(put.header("allow"), Some("POST"), "{}", put.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_the_limit_is_413() {
    let server = support::start_with(mrtd_server::auth::AuthMode::None, 64 * 1024).await;
    let api = OpenApi::fetch(server.addr).await;
    let big = vec![b'A'; 200 * 1024];
    let body = format!("{{\"image_base64\": \"{}\"}}", String::from_utf8(big.clone()).unwrap());
    let json_reply = request(server.addr, "POST", "/v1/scans", &[JSON], body.as_bytes()).await;
    api.check("POST", "/v1/scans", &json_reply);
    assert_error(&json_reply, 413, "payload_too_large");
    let (content_type, form) = multipart(&[("image", Some("big.jpg"), &big)]);
    let form_reply =
        request(server.addr, "POST", "/v1/scans", &[("Content-Type", &content_type)], &form).await;
    api.check("POST", "/v1/scans", &form_reply);
    assert_error(&form_reply, 413, "payload_too_large");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_json_scan_takes_scan_documents_arguments() {
    let server = support::start().await;
    let api = OpenApi::fetch(server.addr).await;
    let addr = server.addr;
    // A photo in the server's image directory, by its path or its resource URI, as the
    // MCP tool takes it.
    for path in [PHOTO.to_owned(), format!("mrtd://images/{PHOTO}")] {
        let read = post_json(addr, "/v1/scans", &json!({ "image_path": path })).await;
        api.check("POST", "/v1/scans", &read);
        assert_eq!(read.status, 200, "{}", read.text());
        assert_eq!(read.json()["lines"], json!(manifest_mrz(PHOTO)), "{path}");
    }
    // Arguments that do not fit are named in plain words.
    let message = |reply: &Reply| reply.json()["error"]["message"].as_str().unwrap().to_owned();
    let cases = [
        (json!({ "image": "x" }), "unknown argument 'image'; the known ones are image_base64"),
        (json!({ "image_path": 7 }), "'image_path' must be a string, not 7"),
        (json!({ "image_path": PHOTO, "image_base64": "AA==" }), "exactly one of image_base64"),
        (json!({ "image_path": "../Cargo.toml" }), "inside the server's image directory"),
    ];
    for (body, expected) in cases {
        let refused = post_json(addr, "/v1/scans", &body).await;
        api.check("POST", "/v1/scans", &refused);
        assert_error(&refused, 400, "invalid_request");
        assert!(message(&refused).contains(expected), "{body}: {}", message(&refused));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_photo_without_an_mrz_is_a_result_and_is_not_kept() {
    let server = support::start().await;
    let api = OpenApi::fetch(server.addr).await;
    // A plain grey PNG: decodable, but there is nothing to read.
    let png = image_png(64, 48);
    let encoded = base64::engine::general_purpose::STANDARD.encode(&png);
    let reply =
        post_json(server.addr, "/v1/scans", &json!({ "image_base64": encoded, "retain_hours": 5 }))
            .await;
    api.check("POST", "/v1/scans", &reply);
    assert_eq!(reply.status, 200, "{}", reply.text());
    let result = reply.json();
    assert_eq!(result["status"], "no_mrz", "{result}");
    assert!(result.get("scan_id").is_none(), "only a read result is kept");
    let why = result["not_kept"].as_str().expect("the result says it was not kept");
    assert!(why.contains("no_mrz"), "{why}");
    assert!(!result["diagnostics"].as_array().unwrap().is_empty(), "advice for the person");
    // Without retain_hours nothing was asked for, so nothing is said.
    let plain = post_json(server.addr, "/v1/scans", &json!({ "image_base64": encoded })).await;
    assert!(plain.json().get("not_kept").is_none(), "{}", plain.text());
}

/// A uniform grey PNG: decodable, with nothing on it.
fn image_png(width: u32, height: u32) -> Vec<u8> {
    let grey = image::GrayImage::from_pixel(width, height, image::Luma([128]));
    let mut bytes = std::io::Cursor::new(Vec::new());
    grey.write_to(&mut bytes, image::ImageFormat::Png).expect("encoding a PNG");
    bytes.into_inner()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_document_is_checked_without_its_fields() {
    let server = support::start().await;
    let api = OpenApi::fetch(server.addr).await;
    let addr = server.addr;
    // ERIKSSON: born 1974-08-12, UTO, the passport expires on 2012-04-15.
    let lines = manifest_mrz(PHOTO);
    let questions = json!({ "min_age": 18, "valid_on": "2012-04-15", "nationality_in": ["UTO"] });
    let mut by_lines = questions.clone();
    by_lines["lines"] = json!(lines);
    let answered = post_json(addr, "/v1/check", &by_lines).await;
    api.check("POST", "/v1/check", &answered);
    assert_eq!(answered.status, 200, "{}", answered.text());
    assert_eq!(answered.header("cache-control"), Some("no-store"));
    let expected = json!({ "check_digits_valid": true, "min_age": true, "valid_on": true, "nationality_in": true });
    assert_eq!(answered.json(), expected, "one answer per question, no document field");

    let later = json!({ "lines": lines, "valid_on": "2012-04-16", "nationality_in": ["D"] });
    let no = post_json(addr, "/v1/check", &later).await;
    api.check("POST", "/v1/check", &no);
    assert_eq!(
        no.json(),
        json!({ "check_digits_valid": true, "valid_on": false, "nationality_in": false })
    );

    // A kept scan answers the same, and REST answers what the MCP tool does.
    let encoded = base64::engine::general_purpose::STANDARD.encode(image(PHOTO));
    let created =
        post_json(addr, "/v1/scans", &json!({ "image_base64": encoded, "retain_hours": 1 })).await;
    let id = created.json()["scan_id"].as_str().expect("kept").to_owned();
    let mut by_id = questions.clone();
    by_id["scan_id"] = json!(id);
    let kept = post_json(addr, "/v1/check", &by_id).await;
    api.check("POST", "/v1/check", &kept);
    assert_eq!(kept.json(), expected, "{}", kept.text());
    let mcp = support::mcp_tool(addr, "check_document", by_id.clone(), &[]).await;
    assert_eq!(mcp["result"]["structuredContent"], expected, "{mcp}");

    // A failing check digit is an answer, not an error.
    let mut altered = lines.clone();
    altered[1] = altered[1].replacen("L898902C3", "L898902C4", 1);
    let refuted = post_json(addr, "/v1/check", &json!({ "lines": altered, "min_age": 18 })).await;
    api.check("POST", "/v1/check", &refuted);
    assert_eq!(refuted.json()["check_digits_valid"], false, "{}", refuted.text());

    for (body, status, code) in [
        (json!({ "lines": lines }), 400, "invalid_request"),
        (json!({ "lines": lines, "scan_id": id, "min_age": 18 }), 400, "invalid_request"),
        (json!({ "lines": lines, "min_age": 151 }), 400, "invalid_request"),
        (json!({ "lines": lines, "valid_on": "2012-13-01" }), 400, "invalid_request"),
        (json!({ "lines": lines, "min_age": 18, "fields": true }), 400, "invalid_request"),
        (json!({ "lines": ["hello", "world"], "min_age": 18 }), 422, "not_mrz"),
        (json!({ "scan_id": "scn_does_not_exist", "min_age": 18 }), 404, "not_found"),
    ] {
        let reply = post_json(addr, "/v1/check", &body).await;
        api.check("POST", "/v1/check", &reply);
        assert_error(&reply, status, code);
    }
    let deleted = request(addr, "DELETE", &format!("/v1/scans/{id}"), &[], b"").await;
    assert_eq!(deleted.status, 204);
    let gone = post_json(addr, "/v1/check", &by_id).await;
    assert_error(&gone, 404, "not_found");
    let plain = request(addr, "POST", "/v1/check", &[("Content-Type", "text/plain")], b"{}").await;
    api.check("POST", "/v1/check", &plain);
    assert_error(&plain, 415, "unsupported_media_type");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_printed_page_is_checked_against_the_mrz() {
    let server = support::start().await;
    let api = OpenApi::fetch(server.addr).await;
    let addr = server.addr;
    // The specimen's page prints ERIKSSON, ANNA MARIA, born 12 AUG 74, F, L898902C3.
    let lines = manifest_mrz(PHOTO);
    let genuine = json!({
        "lines": lines,
        "printed": {
            "surname": "Eriksson", "given_names": "Anna Maria", "birth_date": "12 AUG/AOÛT 74",
            "expiry_date": "15.04.2012", "document_number": "L898902C3", "sex": "F/F",
        },
    });
    let agreed = post_json(addr, "/v1/check", &genuine).await;
    api.check("POST", "/v1/check", &agreed);
    assert_eq!(agreed.status, 200, "{}", agreed.text());
    let answers = agreed.json();
    assert_eq!(answers["viz_matches_mrz"], true, "{answers}");
    for field in ["surname", "given_names", "birth_date", "expiry_date", "document_number", "sex"] {
        assert_eq!(answers["printed_agreement"][field], "agrees", "{field}: {answers}");
    }

    // An edited name and birth year are caught, field by field, on both doors.
    let edited = json!({
        "lines": lines,
        "printed": { "surname": "Eriksen", "given_names": "Anna Maria", "birth_date": "12.08.1975" },
    });
    let caught = post_json(addr, "/v1/check", &edited).await;
    api.check("POST", "/v1/check", &caught);
    let expected = json!({
        "check_digits_valid": true,
        "viz_matches_mrz": false,
        "printed_agreement": { "surname": "differs", "given_names": "agrees", "birth_date": "differs" },
    });
    assert_eq!(caught.json(), expected);
    let mcp = support::mcp_tool(addr, "check_document", edited, &[]).await;
    assert_eq!(mcp["result"]["structuredContent"], expected, "{mcp}");

    // A printed value in no known form is refused, naming the field.
    for (printed, named) in [
        (json!({ "birth_date": "the twelfth of August" }), "printed.birth_date"),
        (json!({ "sex": "Q" }), "printed.sex"),
        (json!({}), "printed"),
        (json!({ "surname": "x".repeat(201) }), "printed.surname"),
        (json!({ "nickname": "Anna" }), "nickname"),
    ] {
        let reply =
            post_json(addr, "/v1/check", &json!({ "lines": lines, "printed": printed })).await;
        api.check("POST", "/v1/check", &reply);
        assert_error(&reply, 400, "invalid_request");
        assert!(reply.text().contains(named), "{named}: {}", reply.text());
    }
}

/// A photo of one of the two sides in `tests/data/sides`.
fn side(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/sides");
    std::fs::read(path.join(name)).expect("the side's photo exists")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_sides_of_a_document_are_read_in_one_request_as_a_form_or_as_json() {
    let server = support::start().await;
    let api = OpenApi::fetch(server.addr).await;
    let (portrait_side, mrz_side) = (side("portrait-side.jpg"), side("mrz-side.jpg"));
    let (content_type, body) = multipart(&[
        ("image", Some("portrait-side.jpg"), &portrait_side),
        ("other_side", Some("mrz-side.jpg"), &mrz_side),
    ]);
    let form =
        request(server.addr, "POST", "/v1/scans", &[("Content-Type", &content_type)], &body).await;
    api.check("POST", "/v1/scans", &form);
    let result = form.json();
    assert_eq!(result["status"], "read", "{result}");
    assert_eq!(result["fields"]["surname"], "MUSTERMANN");
    assert_eq!(result["other_side"]["photo"], 1, "the first photo is the other side");
    assert_eq!(result["other_side"]["status"], "no_mrz");
    assert_eq!(result["other_side"]["portrait"]["face_found"], true);

    let encode = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    assert!(result.get("images").is_none(), "images only when asked for");
    let body = json!({
        "image_base64": encode(&mrz_side),
        "other_side_base64": encode(&portrait_side),
        "include_images": true,
    });
    let reply = post_json(server.addr, "/v1/scans", &body).await;
    api.check("POST", "/v1/scans", &reply);
    let json_result = reply.json();
    assert_eq!(json_result["status"], "read");
    assert_eq!(json_result["other_side"]["photo"], 2);
    assert_eq!(json_result["images"]["page"]["height"], 704, "125 x 88 mm at 8 px/mm");
    assert!(json_result["other_side"]["images"]["portrait"]["data_base64"].is_string());
    assert_eq!(json_result["lines"], result["lines"]);

    let both = json!({
        "image_base64": encode(&mrz_side),
        "other_side_base64": encode(&portrait_side),
        "other_side_url": "https://example.com/side.jpg",
    });
    let refused = post_json(server.addr, "/v1/scans", &both).await;
    assert_error(&refused, 400, "invalid_request");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_documents_in_one_photo_are_both_given() {
    let server = support::start().await;
    let api = OpenApi::fetch(server.addr).await;
    let open = |name: &str| image::load_from_memory(&support::image(name)).unwrap().to_rgb8();
    let (left, right) = (open(PHOTO), open("100_id-si.jpg"));
    let (width, height) =
        (left.width() + right.width() + 60, left.height().max(right.height()) + 40);
    let mut canvas = image::RgbImage::from_pixel(width, height, image::Rgb([225, 225, 220]));
    image::imageops::replace(&mut canvas, &left, 20, 20);
    image::imageops::replace(&mut canvas, &right, i64::from(left.width()) + 40, 20);
    let mut png = std::io::Cursor::new(Vec::new());
    canvas.write_to(&mut png, image::ImageFormat::Png).unwrap();
    let reply = request(
        server.addr,
        "POST",
        "/v1/scans",
        &[("Content-Type", "image/png")],
        &png.into_inner(),
    )
    .await;
    api.check("POST", "/v1/scans", &reply);
    let result = reply.json();
    assert_eq!(result["status"], "read", "{result}");
    let codes: Vec<&str> = result["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert!(codes.contains(&"another_mrz"), "{codes:?}");
    let others = result["other_documents"].as_array().expect("the other document");
    assert_eq!(others.len(), 1);
    let mut formats = [result["format"].as_str().unwrap(), others[0]["format"].as_str().unwrap()];
    formats.sort_unstable();
    assert_eq!(formats, ["TD1", "TD3"]);
    assert_eq!(others[0]["verdict"]["safe_to_use"], true);
    assert_eq!(others[0]["region"].as_array().map(Vec::len), Some(4));
    // Each document's page is placed over its own photo in the canvas, and the passport's
    // portrait zone holds its face, whichever of the two is the result's own.
    let split = f64::from(left.width()) + 30.0;
    for document in [&result, &others[0]] {
        let corners = document["document"]["corners"].as_array().expect("a page outline");
        let middle = corners.iter().map(|c| c[0].as_f64().unwrap()).sum::<f64>() / 4.0;
        assert_eq!(middle < split, document["format"] == "TD3", "{}", document["document"]);
        if document["format"] == "TD3" {
            assert_eq!(document["portrait"]["face_found"], true, "{}", document["portrait"]);
        }
    }
    // The other document is read whole, as the result's own: fields, check digits, advice.
    let numbers = [&result["fields"]["document_number"], &others[0]["fields"]["document_number"]];
    assert!(numbers.iter().all(|n| n.as_str().is_some_and(|n| !n.is_empty())), "{numbers:?}");
    assert_ne!(numbers[0], numbers[1]);
    let checks = others[0]["checks"].as_array().expect("its check digits");
    assert!(!checks.is_empty() && checks.iter().all(|c| c["status"] == "verified"), "{checks:?}");
    assert!(others[0]["diagnostics"].is_array());
}
