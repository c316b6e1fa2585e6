//! End-to-end tests of the document tools, scan handles and the scan store through real MCP
//! requests: `mrtd serve` over Streamable HTTP (2026-07-28 and 2025-11-25) and over stdio,
//! and the same server built in-process where a test must speak as several callers.
//!
//! Every `structuredContent` a test receives is validated against the `outputSchema` that
//! `tools/list` publishes for the tool (see `support::client`).

use crate::support;

use std::time::{Duration, SystemTime};

use serde_json::{Value, json};
use support::{
    MRZ_LINE1, MRZ_LINE2, NOT_FOUND, PASSPORT, PASSPORT_NUMBER, ServerProcess,
    client::{Client, Revision},
    count_and_remove_all_rows, image_base64,
    in_process::InProcessServer,
    scan_id,
};

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime for store access")
        .block_on(future)
}

/// The principal every caller is when the server runs without authentication.
const LOCAL: &str = "local";

/// Scan with `retain_hours` 1, then get, read as a resource, list, check, delete, and see
/// that every handle on the deleted scan is gone; scans with `retain_hours` 0 or none keep
/// nothing. Returns the number of rows the store holds at the end (0 expected).
fn scan_get_list_delete(client: &mut Client, server: &ServerProcess) {
    let passport = image_base64(PASSPORT);

    let kept = client.call("scan_document", json!({ "image_base64": passport, "retain_hours": 1 }));
    let structured = kept.ok().clone();
    assert_eq!(structured["status"], "read", "{structured}");
    assert_eq!(structured["fields"]["document_number"], PASSPORT_NUMBER);
    let id = scan_id(&structured);
    let expires_at = structured["expires_at"].as_str().expect("an expiry").to_owned();
    let uri = format!("mrtd://scans/{id}");
    assert!(
        kept.content().iter().any(|block| block["type"] == "resource_link" && block["uri"] == uri),
        "the result links the kept scan's resource: {:?}",
        kept.content()
    );

    let fetched = client.call("get_scan", json!({ "scan_id": id }));
    let fetched = fetched.ok();
    assert_eq!(fetched["scan_id"], id.as_str());
    assert_eq!(fetched["expires_at"], expires_at.as_str());
    assert_eq!(fetched["fields"], structured["fields"], "get_scan returns the scan's result");
    assert_eq!(fetched["lines"], json!([MRZ_LINE1, MRZ_LINE2]));

    let resource = client.result("resources/read", json!({ "uri": uri }));
    let text = resource["contents"][0]["text"].as_str().expect("the resource is text");
    let from_resource: Value = serde_json::from_str(text).expect("the resource is JSON");
    assert_eq!(from_resource["scan_id"], id.as_str());
    assert_eq!(from_resource["fields"]["document_number"], PASSPORT_NUMBER);

    let listed = client.call("list_scans", json!({}));
    let scans = listed.ok()["scans"].as_array().expect("a list").clone();
    assert_eq!(scans.len(), 1, "exactly the kept scan is listed: {scans:?}");
    assert_eq!(scans[0]["scan_id"], id.as_str());
    assert_eq!(scans[0]["status"], "read");
    assert_eq!(scans[0]["format"], "TD3");
    assert!(scans[0].get("fields").is_none(), "list_scans leaves out document fields");

    let checked = client.call("check_document", json!({ "scan_id": id, "min_age": 18 }));
    assert_eq!(checked.ok()["min_age"], true);
    assert_eq!(checked.ok()["check_digits_valid"], true);

    let rows = block_on(async {
        let store = server.store().await;
        store.list(LOCAL, SystemTime::now(), None, 100).await.expect("list the store").items
    });
    assert_eq!(rows.len(), 1, "the kept scan is one row of the store");
    assert_eq!(rows[0].id.as_str(), id);

    let deleted = client.call("delete_scan", json!({ "scan_id": id }));
    assert_eq!(deleted.ok(), &json!({ "scan_id": id, "deleted": true }));

    for (tool, arguments) in [
        ("get_scan", json!({ "scan_id": id })),
        ("delete_scan", json!({ "scan_id": id })),
        ("check_document", json!({ "scan_id": id, "min_age": 18 })),
    ] {
        let gone = client.call(tool, arguments);
        assert!(gone.error_text().starts_with(NOT_FOUND), "{tool} after delete: {:?}", gone.0);
    }
    assert_eq!(client.call("list_scans", json!({})).ok()["scans"], json!([]));
    client.assert_no_resource(&uri);

    for arguments in [
        json!({ "image_base64": passport, "retain_hours": 0 }),
        json!({ "image_base64": passport }),
    ] {
        let read = client.call("scan_document", arguments);
        let structured = read.ok();
        assert_eq!(structured["status"], "read");
        assert!(structured.get("scan_id").is_none(), "nothing kept: {structured}");
        assert!(structured.get("expires_at").is_none());
        assert!(read.content().iter().all(|block| block["type"] != "resource_link"));
    }
    assert_eq!(client.call("list_scans", json!({})).ok()["scans"], json!([]));
    let rows = block_on(async { count_and_remove_all_rows(&*server.store().await).await });
    assert_eq!(rows, 0, "retain_hours 0 and a deleted scan leave no row in the store");
}

#[test]
fn http_2026_scan_get_list_delete() {
    let mut server = ServerProcess::http(&[]);
    let mut client = server.client(Revision::Modern, json!({}));
    scan_get_list_delete(&mut client, &server);
}

#[test]
fn http_2025_scan_get_list_delete() {
    let mut server = ServerProcess::http(&[]);
    let mut client = server.client(Revision::Legacy, json!({}));
    scan_get_list_delete(&mut client, &server);
}

#[test]
fn stdio_scan_get_list_delete() {
    let mut server = ServerProcess::stdio();
    let mut client = server.client(Revision::Legacy, json!({}));
    scan_get_list_delete(&mut client, &server);
}

/// A result of the shape the tools keep, made by `parse_mrz` through the server itself.
fn parsed_passport(client: &mut Client) -> Value {
    let parsed = client.call("parse_mrz", json!({ "lines": [MRZ_LINE1, MRZ_LINE2] }));
    let structured = parsed.ok().clone();
    assert_eq!(structured["status"], "read");
    assert_eq!(structured["valid"], true);
    structured
}

#[test]
fn expired_scans_are_not_served() {
    let mut server = ServerProcess::http(&[]);
    let mut client = server.client(Revision::Modern, json!({}));
    let result = parsed_passport(&mut client);
    let now = SystemTime::now();
    let (expired, alive) = block_on(async {
        let store = server.store().await;
        let keep = |retain_until| {
            let scan = mrtd_store::NewScan {
                owner: LOCAL.to_owned(),
                result: result.clone(),
                retain_until,
                portrait: None,
            };
            let store = store.clone();
            async move { store.insert(scan).await.expect("insert a scan").id }
        };
        let expired = keep(now - Duration::from_secs(1)).await;
        let alive = keep(now + Duration::from_secs(3600)).await;
        (expired, alive)
    });

    // The live scan, kept the same way, is served: the server sees the rows written here.
    let served = client.call("get_scan", json!({ "scan_id": alive.as_str() }));
    assert_eq!(served.ok()["fields"]["document_number"], PASSPORT_NUMBER);
    let listed = client.call("list_scans", json!({}));
    let ids: Vec<&str> = listed.ok()["scans"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["scan_id"].as_str())
        .collect();
    assert_eq!(ids, [alive.as_str()], "only the live scan is listed");

    for (tool, arguments) in [
        ("get_scan", json!({ "scan_id": expired.as_str() })),
        ("check_document", json!({ "scan_id": expired.as_str(), "min_age": 18 })),
        ("delete_scan", json!({ "scan_id": expired.as_str() })),
    ] {
        let refused = client.call(tool, arguments);
        assert!(refused.error_text().starts_with(NOT_FOUND), "{tool}: {:?}", refused.0);
    }
    client.assert_no_resource(&format!("mrtd://scans/{expired}"));

    // Unknown and malformed ids get the same answer as the expired one.
    for id in ["scan_00000000000000000000000000", "nonsense", ""] {
        let refused = client.call("get_scan", json!({ "scan_id": id }));
        assert!(refused.error_text().starts_with(NOT_FOUND), "{id:?}: {:?}", refused.0);
    }
}

#[test]
fn list_scans_pages_and_refuses_a_foreign_cursor() {
    let mut server = ServerProcess::http(&[]);
    let mut client = server.client(Revision::Modern, json!({}));
    let result = parsed_passport(&mut client);
    let mut kept = block_on(async {
        let store = server.store().await;
        let mut ids = Vec::new();
        for _ in 0..3 {
            let scan = mrtd_store::NewScan {
                owner: LOCAL.to_owned(),
                result: result.clone(),
                retain_until: SystemTime::now() + Duration::from_secs(3600),
                portrait: None,
            };
            let kept = store.insert(scan).await.expect("insert a scan");
            ids.push(kept.id.as_str().to_owned());
            // Distinct creation times keep the newest-first order unambiguous: the next scan
            // is made once the clock the store stamps with has left this one's millisecond.
            let stamp = mrtd_store::to_unix_millis(kept.created_at);
            while mrtd_store::to_unix_millis(SystemTime::now()) <= stamp {
                tokio::task::yield_now().await;
            }
        }
        ids
    });
    kept.reverse();

    let first = client.call("list_scans", json!({ "limit": 2 }));
    let first = first.ok().clone();
    let cursor = first["next_cursor"].as_str().expect("a second page").to_owned();
    let second = client.call("list_scans", json!({ "limit": 2, "cursor": cursor }));
    let second = second.ok().clone();
    assert_eq!(second["next_cursor"], Value::Null, "the last page has no cursor");
    let ids: Vec<&str> = [&first, &second]
        .iter()
        .flat_map(|page| page["scans"].as_array().unwrap().iter())
        .filter_map(|scan| scan["scan_id"].as_str())
        .collect();
    assert_eq!(ids, kept, "every scan once, newest first");

    for cursor in ["zzz", "not a cursor", ""] {
        let refused = client.call("list_scans", json!({ "cursor": cursor }));
        let text = refused.error_text();
        assert!(text.contains("cursor is not valid"), "cursor {cursor:?}: {text}");
    }
    let refused = client.call("list_scans", json!({ "limit": 0 }));
    assert!(refused.error_text().contains("'limit'"), "{:?}", refused.0);
}

/// The elicitation capability (form mode) a 2026-07-28 client declares per request.
fn can_elicit() -> Value {
    json!({ "elicitation": {} })
}

fn typed_mrz() -> Value {
    json!({ "mrz_text": { "action": "accept", "content": { "line1": MRZ_LINE1, "line2": MRZ_LINE2 } } })
}

/// Scans a blank picture and returns the `input_required` result asking for the MRZ.
fn ask_for_mrz(client: &mut Client, arguments: &Value) -> Value {
    let reply = client.call_with(json!({ "name": "scan_document", "arguments": arguments }));
    let result = reply["result"].clone();
    assert_eq!(result["resultType"], "input_required", "{reply}");
    let request = &result["inputRequests"]["mrz_text"];
    assert_eq!(request["method"], "elicitation/create", "{result}");
    let schema = &request["params"]["requestedSchema"];
    assert_eq!(schema["required"], json!(["line1", "line2"]), "{result}");
    assert!(result["requestState"].as_str().is_some_and(|s| !s.is_empty()), "{result}");
    assert!(result.get("ttlMs").is_none() && result.get("cacheScope").is_none());
    result
}

/// Changes one character in the middle of a sealed state.
fn flip_a_character(state: &str) -> String {
    let mut chars: Vec<char> = state.chars().collect();
    let middle = chars.len() / 2;
    chars[middle] = if chars[middle] == 'A' { 'B' } else { 'A' };
    chars.into_iter().collect()
}

fn input_required_round_trip(client: &mut Client) {
    let arguments = json!({ "image_base64": support::blank_png_base64(), "retain_hours": 1 });
    let asked = ask_for_mrz(client, &arguments);
    let state = asked["requestState"].as_str().unwrap().to_owned();

    // The retry carries the typed lines and the state; the kept scan is the typed reading.
    let retry = json!({
        "name": "scan_document",
        "arguments": arguments,
        "inputResponses": typed_mrz(),
        "requestState": state,
    });
    let done = client.call_with(retry.clone());
    let result = &done["result"];
    assert_eq!(result["resultType"], "complete", "{done}");
    assert_ne!(result["isError"], true, "{done}");
    let structured = &result["structuredContent"];
    assert_eq!(structured["status"], "read", "{done}");
    assert_eq!(structured["source"], "typed");
    assert_eq!(structured["fields"]["document_number"], PASSPORT_NUMBER);
    let id = scan_id(structured);
    let kept = client.call("get_scan", json!({ "scan_id": id }));
    assert_eq!(kept.ok()["source"], "typed", "retain_hours survived the round trip");

    // The state answered its retry: it is refused from then on.
    let replayed = client.call_with(retry.clone());
    assert_eq!(replayed["error"]["code"], -32602, "{replayed}");
    assert!(replayed["error"]["message"].as_str().unwrap().contains("already used"), "{replayed}");

    // A state resumes only the call it was issued for: other arguments are refused.
    let fresh = ask_for_mrz(client, &arguments)["requestState"].as_str().unwrap().to_owned();
    let mut retry = retry;
    retry["requestState"] = json!(fresh);
    let mut other = retry.clone();
    other["arguments"]["retain_hours"] = json!(2);
    let refused = client.call_with(other);
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("other arguments"), "{refused}");

    // A retry without the answer asks again; a declined answer ends with advice.
    let mut unanswered = retry.clone();
    unanswered.as_object_mut().unwrap().remove("inputResponses");
    let again = client.call_with(unanswered);
    assert_eq!(again["result"]["resultType"], "input_required", "{again}");
    let mut declined = retry.clone();
    declined["inputResponses"] = json!({ "mrz_text": { "action": "decline" } });
    let declined = client.call_with(declined);
    assert_eq!(declined["result"]["isError"], true, "{declined}");

    // A state that was altered in any way is refused with a JSON-RPC error.
    for tampered in [
        flip_a_character(&state),
        format!("{state}A"),
        state[..state.len() - 1].to_owned(),
        "not-a-state".to_owned(),
    ] {
        let mut forged = retry.clone();
        forged["requestState"] = json!(tampered);
        let refused = client.call_with(forged);
        assert!(refused.get("result").is_none(), "tampered state accepted: {refused}");
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
    }

    // An answer that is not an elicitation result is refused too.
    let mut garbage = retry;
    garbage["inputResponses"] = json!({ "mrz_text": 42 });
    let refused = client.call_with(garbage);
    assert!(refused.get("error").is_some(), "{refused}");
}

/// When the photo cuts the MRZ off or shows it too small, the question put to the user says
/// which edge to retake, or to hold the camera closer.
#[test]
fn the_input_request_says_which_edge_to_retake_or_to_come_closer() {
    use base64::Engine as _;
    let photo = image::open(support::image_path(PASSPORT)).expect("the specimen decodes");
    let cut = photo.crop_imm(0, 0, photo.width() * 65 / 100, photo.height());
    let small = photo.resize(
        photo.width() * 3 / 10,
        photo.height() * 3 / 10,
        image::imageops::FilterType::Triangle,
    );
    let mut server = ServerProcess::http(&[]);
    let mut client = server.client(Revision::Modern, can_elicit());
    for (picture, advice) in [(cut, "right edge"), (small, "closer")] {
        let mut png = std::io::Cursor::new(Vec::new());
        picture.write_to(&mut png, image::ImageFormat::Png).expect("encode a PNG");
        let encoded = base64::engine::general_purpose::STANDARD.encode(png.into_inner());
        let asked = ask_for_mrz(&mut client, &json!({ "image_base64": encoded }));
        let message = asked["inputRequests"]["mrz_text"]["params"]["message"].as_str().unwrap();
        assert!(message.contains(advice), "{advice}: {message}");
    }
}

#[test]
fn http_2026_input_required_round_trip() {
    let mut server = ServerProcess::http(&[]);
    let mut client = server.client(Revision::Modern, can_elicit());
    input_required_round_trip(&mut client);
}

#[test]
fn stdio_2026_input_required_round_trip() {
    let mut server = ServerProcess::stdio();
    let mut client = server.client(Revision::Modern, can_elicit());
    input_required_round_trip(&mut client);
}

/// Without a way to ask the user, an unreadable photo is a result (not a tool error: the
/// tool did its work) with advice and the reading so far.
#[test]
fn unreadable_photo_without_elicitation_gives_advice() {
    let mut server = ServerProcess::http(&[]);
    let blank = json!({ "image_base64": support::blank_png_base64(), "retain_hours": 1 });
    let mut modern = server.client(Revision::Modern, json!({}));
    let mut legacy = server.client(Revision::Legacy, can_elicit());
    for client in [&mut modern, &mut legacy] {
        let result = client.call("scan_document", blank.clone());
        assert_eq!(result.ok()["status"], "no_mrz", "{:?}", result.0);
        assert!(result.text().contains("sharper photo"), "{:?}", result.0);
        assert!(result.0["structuredContent"].get("scan_id").is_none(), "nothing was kept");
    }
    let rows = block_on(async { count_and_remove_all_rows(&*server.store().await).await });
    assert_eq!(rows, 0, "an unread photo is never kept");
}

#[test]
fn image_path_stays_inside_the_image_directory() {
    // root/images is the image directory; root/outside.jpg is a real image beside it.
    let root = tempfile::tempdir().expect("a temporary directory");
    let images = root.path().join("images");
    std::fs::create_dir(&images).unwrap();
    std::fs::copy(support::image_path(PASSPORT), images.join("passport.jpg")).unwrap();
    std::fs::create_dir(images.join("sub")).unwrap();
    std::fs::copy(support::image_path(PASSPORT), images.join("sub/inner.jpg")).unwrap();
    let outside = root.path().join("outside.jpg");
    std::fs::copy(support::image_path(PASSPORT), &outside).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&outside, images.join("link.jpg")).unwrap();

    let mut server = ServerProcess::http(&["--image-dir", images.to_str().unwrap()]);
    let mut client = server.client(Revision::Modern, json!({}));
    for inside in ["passport.jpg", "./sub/../sub/inner.jpg"] {
        let read = client.call("scan_document", json!({ "image_path": inside }));
        assert_eq!(read.ok()["fields"]["document_number"], PASSPORT_NUMBER, "{inside}");
    }

    let absolute = outside.to_str().unwrap().to_owned();
    let mut escapes = vec![
        "../outside.jpg".to_owned(),
        "sub/../../outside.jpg".to_owned(),
        absolute,
        "missing.jpg".to_owned(),
        "sub".to_owned(),
        String::new(),
    ];
    if cfg!(unix) {
        escapes.push("link.jpg".to_owned());
    }
    let refusals: Vec<String> = escapes
        .iter()
        .map(|path| client.call("scan_document", json!({ "image_path": path })).error_text())
        .collect();
    assert!(refusals[0].contains("image directory"), "{}", refusals[0]);
    for (path, refusal) in escapes.iter().zip(&refusals) {
        assert_eq!(refusal, &refusals[0], "{path:?} is refused like any other path outside");
    }

    let mut plain = ServerProcess::http(&[]);
    let mut client = plain.client(Revision::Modern, json!({}));
    let disabled = client.call("scan_document", json!({ "image_path": "passport.jpg" }));
    assert!(disabled.error_text().contains("image_path is disabled"), "{:?}", disabled.0);
}

/// The image directory's photos are resources: listed (with their size and type, nothing
/// outside the directory, no link), readable as blobs (those listed, nothing else), and
/// `scan_document` takes their URIs.
#[test]
fn the_image_directory_is_listed_as_resources_scan_document_reads() {
    let root = tempfile::tempdir().expect("a temporary directory");
    let images = root.path().join("images");
    std::fs::create_dir_all(images.join("travel docs")).unwrap();
    std::fs::copy(support::image_path(PASSPORT), images.join("travel docs/my passport.jpg"))
        .unwrap();
    std::fs::write(images.join("notes.txt"), "not a photo").unwrap();
    let outside = root.path().join("outside.jpg");
    std::fs::copy(support::image_path(PASSPORT), &outside).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&outside, images.join("link.jpg")).unwrap();

    let mut server = ServerProcess::http(&["--image-dir", images.to_str().unwrap()]);
    let mut client = server.client(Revision::Modern, json!({}));
    let listed = client.result("resources/list", json!({}));
    let photos: Vec<&Value> = listed["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["uri"].as_str().is_some_and(|u| u.starts_with("mrtd://images/")))
        .collect();
    assert_eq!(photos.len(), 1, "only the photo inside, no link, no text file: {listed}");
    let uri = photos[0]["uri"].as_str().unwrap().to_owned();
    assert_eq!(uri, "mrtd://images/travel%20docs/my%20passport.jpg");
    assert_eq!(photos[0]["mimeType"], "image/jpeg");
    let size = std::fs::metadata(support::image_path(PASSPORT)).unwrap().len();
    assert_eq!(photos[0]["size"], size);
    let templates = client.result("resources/templates/list", json!({}));
    assert!(templates.to_string().contains("mrtd://images/{path}"), "{templates}");

    let read = client.result("resources/read", json!({ "uri": uri }));
    let blob = read["contents"][0]["blob"].as_str().expect("a blob");
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD.decode(blob).unwrap();
    assert_eq!(bytes.len() as u64, size);

    // Only what the listing shows is read: a hidden file, a file that is no image, a link
    // and a photo in a hidden folder answer as a file that does not exist.
    std::fs::write(images.join(".htpasswd"), "admin:$apr1$secret").unwrap();
    std::fs::write(images.join(".hidden.jpg"), "hidden").unwrap();
    std::fs::create_dir(images.join(".private")).unwrap();
    std::fs::copy(support::image_path(PASSPORT), images.join(".private/p.jpg")).unwrap();
    let missing = client.request("resources/read", json!({ "uri": "mrtd://images/missing.jpg" }));
    client.assert_no_resource("mrtd://images/missing.jpg");
    for unlisted in [
        "mrtd://images/.htpasswd",
        "mrtd://images/notes.txt",
        "mrtd://images/.hidden.jpg",
        "mrtd://images/.private/p.jpg",
        "mrtd://images/link.jpg",
        "mrtd://images/travel%20docs/../notes.txt",
        "mrtd://images/./travel%20docs/my%20passport.jpg",
    ] {
        client.assert_no_resource(unlisted);
        let reply = client.request("resources/read", json!({ "uri": unlisted }));
        assert_eq!(reply["error"]["message"], missing["error"]["message"], "{unlisted}: {reply}");
    }

    let scanned = client.call("scan_document", json!({ "image_path": uri }));
    assert_eq!(scanned.ok()["fields"]["document_number"], PASSPORT_NUMBER);
    let escape =
        client.call("scan_document", json!({ "image_path": "mrtd://images/..%2Foutside.jpg" }));
    assert!(escape.error_text().contains("image directory"), "{:?}", escape.0);

    // Without an image directory there are no photo resources and no template for them.
    let mut plain = ServerProcess::http(&[]);
    let mut client = plain.client(Revision::Modern, json!({}));
    let listed = client.result("resources/list", json!({}));
    assert!(!listed.to_string().contains("mrtd://images/"), "{listed}");
}

/// Scans belong to the caller that kept them: another caller can neither see, list, check,
/// read nor delete them, and cannot resume the owner's `input_required` round trip.
#[test]
fn another_caller_cannot_see_or_delete_a_scan() {
    let server = InProcessServer::start();
    let mut alice = server.client(Some("alice"), Revision::Modern, can_elicit());
    let mut bob = server.client(Some("bob"), Revision::Modern, can_elicit());
    let mut anonymous = server.client(None, Revision::Modern, json!({}));

    let kept = alice.call(
        "scan_document",
        json!({ "image_base64": image_base64(PASSPORT), "retain_hours": 1 }),
    );
    let id = scan_id(kept.ok());
    let owners = server.runtime.block_on(async {
        let alice_rows = server.store.list("alice", SystemTime::now(), None, 100).await.unwrap();
        alice_rows.items.iter().map(|record| record.owner.clone()).collect::<Vec<_>>()
    });
    assert_eq!(owners, ["alice"], "the scan is stored as alice's");

    for other in [&mut bob, &mut anonymous] {
        for (tool, arguments) in [
            ("get_scan", json!({ "scan_id": id })),
            ("check_document", json!({ "scan_id": id, "min_age": 18 })),
            ("delete_scan", json!({ "scan_id": id })),
        ] {
            let refused = other.call(tool, arguments);
            assert!(refused.error_text().starts_with(NOT_FOUND), "{tool}: {:?}", refused.0);
        }
        assert_eq!(other.call("list_scans", json!({})).ok()["scans"], json!([]));
        other.assert_no_resource(&format!("mrtd://scans/{id}"));
    }

    // The attempts changed nothing for alice.
    let still = alice.call("get_scan", json!({ "scan_id": id }));
    assert_eq!(still.ok()["fields"]["document_number"], PASSPORT_NUMBER);
    let listed = alice.call("list_scans", json!({}));
    assert_eq!(listed.ok()["scans"][0]["scan_id"], id.as_str());

    // A request state issued to alice is refused to bob, and still works for alice.
    let arguments = json!({ "image_base64": support::blank_png_base64() });
    let asked = ask_for_mrz(&mut alice, &arguments);
    let retry = json!({
        "name": "scan_document",
        "arguments": arguments,
        "inputResponses": typed_mrz(),
        "requestState": asked["requestState"],
    });
    let stolen = bob.call_with(retry.clone());
    assert_eq!(stolen["error"]["code"], -32602, "bob resumed alice's state: {stolen}");
    let resumed = alice.call_with(retry);
    assert_eq!(resumed["result"]["structuredContent"]["status"], "read", "{resumed}");

    // Alice deletes her scan; nobody sees it any more.
    let deleted = alice.call("delete_scan", json!({ "scan_id": id }));
    assert_eq!(deleted.ok()["deleted"], true);
    let gone = alice.call("get_scan", json!({ "scan_id": id }));
    assert!(gone.error_text().starts_with(NOT_FOUND));
}
