//! Per-caller limits and decoding work through the real binary: callers without credentials
//! are rate-limited per client address (a key as one caller from any address), large photos
//! over the decoded-pixel budget are refused with advice to retry while a small one is still
//! read, and a PDF that names one image many times decodes it once
//! (`mrtd_decoded_pixels_total`).

use crate::support;

use std::{
    net::SocketAddr,
    sync::{Arc, Barrier},
};

use base64::Engine as _;
use serde_json::{Value, json};
use support::{
    PASSPORT, PASSPORT_NUMBER, ServerProcess,
    client::{Client, MODERN, Revision},
    transport,
};

/// A `tools/list` from the client a proxy on loopback reports as `client`: its status.
fn list_from(addr: SocketAddr, client: &str) -> u16 {
    list_with(addr, client, None)
}

/// A `tools/list` from `client` (as a proxy on loopback reports it) with `key`, if any.
fn list_with(addr: SocketAddr, client: &str, key: Option<&str>) -> u16 {
    let list = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {
        "_meta": { "io.modelcontextprotocol/protocolVersion": MODERN,
                   "io.modelcontextprotocol/clientCapabilities": {} } } });
    let mut headers = vec![
        ("Mcp-Protocol-Version", MODERN.to_owned()),
        ("Mcp-Method", "tools/list".to_owned()),
        ("X-Forwarded-For", client.to_owned()),
    ];
    if let Some(key) = key {
        headers.push(("Authorization", format!("Bearer {key}")));
    }
    transport::post(addr, &headers, &list).status
}

#[test]
fn callers_without_credentials_are_rate_limited_per_client_address() {
    // No authentication: every caller is the same principal, and the limit is per address
    // (an IPv6 address's /64), here the one the trusted proxy (the test, on loopback)
    // reports.
    let server = ServerProcess::http(&[
        "--trusted-proxy",
        "127.0.0.0/8",
        // One request every 20 s beyond the burst: no token comes back while the test runs.
        "--rate-limit",
        "0.05",
        "--rate-burst",
        "5",
    ]);
    let addr = server.addr.unwrap();
    for (busy, same_prefix, other) in [
        ("203.0.113.7", "203.0.113.7", "203.0.113.8"),
        ("2001:db8:1:2::7", "2001:db8:1:2::8", "2001:db8:1:3::7"),
    ] {
        let statuses: Vec<u16> = (0..8).map(|_| list_from(addr, busy)).collect();
        assert_eq!(statuses[..5], [200; 5], "the burst is served: {statuses:?}");
        assert_eq!(statuses[5..], [429; 3], "then the client is limited: {statuses:?}");
        // Another client is not refused for the first one's burst; an address in the
        // same /64 is the same client.
        assert_eq!(list_from(addr, other), 200, "{other} beside {busy}");
        assert_eq!(list_from(addr, same_prefix), 429, "{same_prefix} beside {busy}");
    }
}

#[test]
fn a_key_is_rate_limited_as_one_caller_from_any_address() {
    let data_dir = tempfile::tempdir().unwrap();
    let created = std::process::Command::new(env!("CARGO_BIN_EXE_mrtd"))
        .args(["keys", "create", "ci", "--data-dir"])
        .arg(data_dir.path())
        .env_remove("MRTD_DATABASE_URL")
        .output()
        .unwrap();
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    let key = String::from_utf8_lossy(&created.stdout)
        .split_whitespace()
        .find(|word| word.starts_with("mrtd_"))
        .expect("the key is printed")
        .to_owned();
    let mut child = support::serve_command(data_dir.path())
        .args(["--listen", "127.0.0.1:0", "--auth", "api-key", "--trusted-proxy", "127.0.0.0/8"])
        .args(["--rate-limit", "0.05", "--rate-burst", "5"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("mrtd serve starts");
    let addr = support::announced_address(child.stderr.take().unwrap(), |_| {});
    let _server = ServerProcess::adopt(child, data_dir, addr);
    // An authenticated caller's bucket is its key's, whichever address it calls from.
    let statuses: Vec<u16> =
        (0..5).map(|n| list_with(addr, &format!("203.0.113.{n}"), Some(&key))).collect();
    assert_eq!(statuses, [200; 5]);
    assert_eq!(list_with(addr, "198.51.100.1", Some(&key)), 429);
}

/// A gray PNG of `width` × `height` with nothing on it: large when decoded, a few kilobytes
/// as a file.
pub(crate) fn blank_png(width: u32, height: u32) -> Vec<u8> {
    let picture = image::GrayImage::from_pixel(width, height, image::Luma([200]));
    let mut bytes = std::io::Cursor::new(Vec::new());
    picture.write_to(&mut bytes, image::ImageFormat::Png).expect("encode a PNG");
    bytes.into_inner()
}

/// What a `POST /v1/scans` of `image_base64` answered: status, `Retry-After`, body.
fn rest_scan(addr: SocketAddr, image_base64: &str) -> (u16, Option<String>, Value) {
    let body = json!({ "image_base64": image_base64 }).to_string();
    let reply = transport::request(
        addr,
        "POST",
        "/v1/scans",
        &[("Content-Type", "application/json")],
        &body,
    );
    (reply.status, reply.header("retry-after").map(str::to_owned), reply.json())
}

/// Sends four large blank photos (36 MP decoded) over REST and four over MCP at once, runs
/// `meanwhile` while they are read, and returns how many of each were refused as busy
/// (over REST `503` with `Retry-After` and the code `busy`; over MCP a JSON-RPC error with
/// `retryAfter` when no slot came, a tool error advising a retry when the pixels found no
/// room). The others are read: no MRZ.
fn large_photos_at_once(addr: SocketAddr, meanwhile: impl FnOnce()) -> (usize, usize) {
    let large = base64::engine::general_purpose::STANDARD.encode(blank_png(6000, 6000));
    let large = Arc::new(large);
    const EACH: usize = 4;
    let start = Arc::new(Barrier::new(2 * EACH + 1));
    let rest: Vec<_> = (0..EACH)
        .map(|_| {
            let (large, start) = (large.clone(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                rest_scan(addr, &large)
            })
        })
        .collect();
    let mcp: Vec<_> = (0..EACH)
        .map(|_| {
            let (large, start) = (large.clone(), start.clone());
            let mut client = Client::http(addr, Revision::Modern, json!({}), Vec::new());
            std::thread::spawn(move || {
                start.wait();
                let params =
                    json!({ "name": "scan_document", "arguments": { "image_base64": *large } });
                client.call_with(params)
            })
        })
        .collect();
    start.wait();
    meanwhile();

    let mut rest_refused = 0;
    for answer in rest {
        let (status, retry_after, body) = answer.join().unwrap();
        match status {
            200 => assert_eq!(body["status"], "no_mrz", "{body}"),
            503 => {
                rest_refused += 1;
                assert!(retry_after.is_some_and(|s| s.parse::<u64>().is_ok()), "{body}");
                assert_eq!(body["code"], "busy", "{body}");
            }
            other => panic!("HTTP {other}: {body}"),
        }
    }
    let mut mcp_refused = 0;
    for answer in mcp {
        let reply = answer.join().unwrap();
        // No recognition slot in time: refused at the HTTP front, before the handler.
        if let Some(error) = reply.get("error") {
            assert_eq!(error["code"], -32000, "{reply}");
            assert!(error["data"]["retryAfter"].is_u64(), "{reply}");
            assert!(error["message"].as_str().is_some_and(|m| m.contains("busy")), "{reply}");
            mcp_refused += 1;
            continue;
        }
        // No room in the pixel budget: a tool error advising a retry.
        let text = reply["result"]["content"][0]["text"].as_str().unwrap_or_default();
        if text.contains("busy reading other photos") {
            assert_eq!(reply["result"]["isError"], true, "{reply}");
            assert!(text.contains("retry in"), "{reply}");
            mcp_refused += 1;
        } else {
            assert!(text.contains("No MRZ found"), "{reply}");
        }
    }
    eprintln!(
        "{EACH} large photos over REST and {EACH} over MCP at once: {rest_refused} and \
         {mcp_refused} refused"
    );
    (rest_refused, mcp_refused)
}

/// A small photo of the specimen passport, read exactly over REST and over MCP.
fn small_photo_is_read(addr: SocketAddr) {
    let (status, _, small) = rest_scan(addr, &support::image_base64(PASSPORT));
    assert_eq!(status, 200, "{small}");
    assert_eq!(small["fields"]["document_number"], PASSPORT_NUMBER, "{small}");
    let mut mcp_client = Client::http(addr, Revision::Modern, json!({}), Vec::new());
    let small = mcp_client
        .call("scan_document", json!({ "image_base64": support::image_base64(PASSPORT) }));
    assert_eq!(small.ok()["fields"]["document_number"], PASSPORT_NUMBER);
}

#[test]
fn large_photos_over_the_decoded_pixel_budget_are_refused_while_a_small_one_is_read() {
    // A budget of 40 MP holds one 36 MP photo at a time; a photo that finds no room is
    // refused at once, without queueing (--scan-wait-secs 0). Recognition slots are plenty.
    let server = ServerProcess::http(&[
        "--max-decoded-megapixels",
        "40",
        "--scan-wait-secs",
        "0",
        "--max-concurrent-scans",
        "16",
        "--rate-limit",
        "0",
    ]);
    let addr = server.addr.unwrap();
    // Meanwhile a small photo (under half a megapixel) finds room beside one large one.
    let (rest_refused, mcp_refused) = large_photos_at_once(addr, || small_photo_is_read(addr));
    // All eight at once need 288 MP: at least one of each kind found no room.
    assert!(rest_refused >= 1, "no REST photo was refused");
    assert!(mcp_refused >= 1, "no MCP photo was refused");
}

#[test]
fn recognitions_beyond_the_slots_are_refused_over_rest_and_mcp_alike() {
    // One recognition slot for REST and MCP together, no wait for it; the pixel budget
    // holds all eight photos, so only the slot can refuse one.
    let server = ServerProcess::http(&[
        "--max-concurrent-scans",
        "1",
        "--scan-wait-secs",
        "0",
        "--max-decoded-megapixels",
        "400",
        "--rate-limit",
        "0",
    ]);
    let addr = server.addr.unwrap();
    let (rest_refused, mcp_refused) = large_photos_at_once(addr, || {});
    assert!(rest_refused >= 1, "no REST photo was refused");
    assert!(mcp_refused >= 1, "no MCP photo was refused");
    assert!(rest_refused + mcp_refused < 8, "every photo was refused: the slot was never free");
    // The slot is given back: a photo sent alone is read, through either door.
    small_photo_is_read(addr);
}

/// A one-page PDF whose page names one gray `width` × `height` image (uncompressed samples)
/// `names` times, as `/Im0` ... in its resources.
fn pdf_naming_one_image(width: usize, height: usize, names: usize) -> Vec<u8> {
    let xobjects: String = (0..names).map(|n| format!("/Im{n} 4 0 R ")).collect();
    let objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {width} {height}] \
             /Resources << /XObject << {xobjects}>> >> >>"
        )
        .into_bytes(),
        {
            let mut image = format!(
                "<< /Type /XObject /Subtype /Image /Width {width} /Height {height} \
                 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length {} >>\nstream\n",
                width * height
            )
            .into_bytes();
            image.extend(std::iter::repeat_n(200u8, width * height));
            image.extend_from_slice(b"\nendstream");
            image
        },
    ];
    let mut pdf = b"%PDF-1.5\n".to_vec();
    let mut offsets = Vec::new();
    for (n, object) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.extend(format!("{} 0 obj\n", n + 1).into_bytes());
        pdf.extend_from_slice(object);
        pdf.extend_from_slice(b"\nendobj\n");
    }
    let xref = pdf.len();
    pdf.extend(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).into_bytes());
    for offset in offsets {
        pdf.extend(format!("{offset:010} 00000 n \n").into_bytes());
    }
    pdf.extend(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .into_bytes(),
    );
    pdf
}

/// The value of the series `name` (no labels) in Prometheus text, 0 when absent.
fn counter(metrics: &str, name: &str) -> f64 {
    metrics
        .lines()
        .find(|line| line.starts_with(name) && line[name.len()..].starts_with(' '))
        .and_then(|line| line.rsplit(' ').next())
        .and_then(|value| value.parse().ok())
        .unwrap_or(0.0)
}

#[test]
fn a_pdf_naming_one_image_sixty_times_costs_one_decode() {
    let server = ServerProcess::http(&["--rate-limit", "0"]);
    let addr = server.addr.unwrap();
    let decoded = || {
        let reply = transport::request(addr, "GET", "/metrics", &[], "");
        assert_eq!(reply.status, 200);
        counter(&reply.body, "mrtd_decoded_pixels_total")
    };
    // A photo first: the counter counts what it decodes.
    let before = decoded();
    let (status, _, body) = rest_scan(addr, &support::image_base64(PASSPORT));
    assert_eq!(status, 200, "{body}");
    let photo = decoded() - before;
    assert!(photo >= 793.0 * 536.0, "the photo decoded {photo} pixels");

    let (width, height) = (3000, 2000);
    let pdf = pdf_naming_one_image(width, height, 60);
    let before = decoded();
    let (status, _, body) =
        rest_scan(addr, &base64::engine::general_purpose::STANDARD.encode(&pdf));
    assert!(status == 200 || status == 422, "HTTP {status}: {body}");
    let pdf_pixels = decoded() - before;
    eprintln!(
        "a PDF naming one {width} × {height} image 60 times decoded {pdf_pixels} pixels \
         (the image has {})",
        width * height
    );
    assert_eq!(pdf_pixels, (width * height) as f64, "one decode of the image");
}
