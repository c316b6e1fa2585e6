//! `image_url` through the real binary: `mrtd serve` fetches a photo from a web server on
//! loopback (allowed explicitly) over MCP and REST, and refuses loopback without the
//! switch, redirects to private addresses, pages that are not images, and the feature
//! turned off; a photo server that stalls holds no recognition slot.

use crate::support;

use std::{
    io::{Read, Write},
    net::{SocketAddr, TcpListener, TcpStream},
    sync::mpsc,
    time::{Duration, Instant},
};

use serde_json::json;
use support::{PASSPORT, PASSPORT_NUMBER, ServerProcess, client::Revision, transport};

/// A photo server on 127.0.0.1: `/passport.jpg` and a few ways to be refused.
fn photo_server() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let addr = listener.local_addr().unwrap();
    let photo = std::fs::read(support::image_path(PASSPORT)).unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let photo = photo.clone();
            std::thread::spawn(move || answer(stream, addr, &photo));
        }
    });
    addr
}

fn answer(mut stream: TcpStream, addr: SocketAddr, photo: &[u8]) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    let head = String::from_utf8_lossy(&head).to_string();
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
    let redirect = |to: &str| {
        format!("HTTP/1.1 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\n\r\n").into_bytes()
    };
    let response = match path.as_str() {
        "/passport.jpg" => {
            let mut r = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Length: {}\r\n\r\n",
                photo.len()
            )
            .into_bytes();
            r.extend_from_slice(photo);
            r
        }
        "/moved" => redirect("/passport.jpg"),
        "/to-private" => redirect("http://10.0.0.1/passport.jpg"),
        "/to-metadata" => redirect("http://169.254.169.254/latest/meta-data/"),
        "/to-other-loopback" => redirect(&format!("http://127.0.0.2:{}/passport.jpg", addr.port())),
        "/page" => b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 6\r\n\r\n<html>"
            .to_vec(),
        _ => b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".to_vec(),
    };
    let _ = stream.write_all(&response);
}

const ALLOW_LOOPBACK: [&str; 3] =
    ["--image-url-allow-http", "--image-url-allow-network", "127.0.0.1/32"];

#[test]
fn a_photo_on_an_allowed_server_reads_over_mcp_and_rest() {
    let photos = photo_server();
    let mut server = ServerProcess::http(&ALLOW_LOOPBACK);
    let mut client = server.client(Revision::Modern, json!({}));
    for path in ["/passport.jpg", "/moved"] {
        let read =
            client.call("scan_document", json!({ "image_url": format!("http://{photos}{path}") }));
        assert_eq!(read.ok()["status"], "read", "{path}");
        assert_eq!(read.ok()["fields"]["document_number"], PASSPORT_NUMBER, "{path}");
    }

    let addr = server.addr.unwrap();
    let body = json!({ "image_url": format!("http://{photos}/passport.jpg") }).to_string();
    let reply = transport::request(
        addr,
        "POST",
        "/v1/scans",
        &[("Content-Type", "application/json")],
        &body,
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.json()["fields"]["document_number"], PASSPORT_NUMBER);
}

#[test]
fn private_addresses_redirects_to_them_and_non_images_are_refused() {
    let photos = photo_server();
    let mut server = ServerProcess::http(&ALLOW_LOOPBACK);
    let mut client = server.client(Revision::Modern, json!({}));
    for path in ["/to-private", "/to-metadata", "/to-other-loopback"] {
        let refused =
            client.call("scan_document", json!({ "image_url": format!("http://{photos}{path}") }));
        let text = refused.error_text();
        assert!(
            text.contains("image_url was not read") && text.contains("private"),
            "{path}: {text}"
        );
    }
    let page =
        client.call("scan_document", json!({ "image_url": format!("http://{photos}/page") }));
    assert!(page.error_text().contains("text/html"), "{}", page.error_text());

    // REST: the same refusal as an RFC 9457 problem.
    let body = json!({ "image_url": format!("http://{photos}/to-private") }).to_string();
    let reply = transport::request(
        server.addr.unwrap(),
        "POST",
        "/v1/scans",
        &[("Content-Type", "application/json")],
        &body,
    );
    assert_eq!(reply.status, 422, "{}", reply.body);
    assert_eq!(reply.header("content-type"), Some("application/problem+json"));
    assert_eq!(reply.json()["code"], "image_url_refused");
    assert_eq!(reply.json()["type"], "/docs/rest.md#image_url_refused");

    // Without the switches: plain http refused, then loopback refused even where http is allowed.
    let mut strict = ServerProcess::http(&[]);
    let mut client = strict.client(Revision::Modern, json!({}));
    let url = format!("http://{photos}/passport.jpg");
    let refused = client.call("scan_document", json!({ "image_url": url }));
    assert!(refused.error_text().contains("only https"), "{}", refused.error_text());
    let refused = client.call("scan_document", json!({ "image_url": "https://127.0.0.1:1/a.jpg" }));
    assert!(refused.error_text().contains("private"), "{}", refused.error_text());
    let mut http_only = ServerProcess::http(&["--image-url-allow-http"]);
    let mut client = http_only.client(Revision::Modern, json!({}));
    let refused = client.call("scan_document", json!({ "image_url": url }));
    assert!(refused.error_text().contains("private"), "{}", refused.error_text());
}

#[test]
fn hosts_can_be_listed_and_the_feature_turned_off() {
    let photos = photo_server();
    let url = format!("http://{photos}/passport.jpg");
    let mut listed = ServerProcess::http(&[
        "--image-url-allow-http",
        "--image-url-allow-network",
        "127.0.0.1/32",
        "--image-url-host",
        "photos.example.com",
    ]);
    let mut client = listed.client(Revision::Modern, json!({}));
    let refused = client.call("scan_document", json!({ "image_url": url }));
    assert!(
        refused.error_text().contains("not one this server fetches from"),
        "{}",
        refused.error_text()
    );

    let mut off = ServerProcess::http(&["--no-image-url"]);
    let mut client = off.client(Revision::Modern, json!({}));
    let refused = client.call("scan_document", json!({ "image_url": url }));
    assert!(refused.error_text().contains("image_url is disabled"), "{}", refused.error_text());
    let both = client.call(
        "scan_document",
        json!({ "image_url": url, "image_base64": support::image_base64(PASSPORT) }),
    );
    assert!(both.error_text().contains("exactly one of"), "{}", both.error_text());
}

/// A photo server on 127.0.0.1 that accepts connections and never answers; each accepted
/// connection is reported on the channel (and kept open).
fn stalling_server() -> (SocketAddr, mpsc::Receiver<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let addr = listener.local_addr().unwrap();
    let (accepted, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
            let _ = accepted.send(());
        }
    });
    (addr, receiver)
}

#[test]
fn a_stalling_photo_server_holds_no_recognition_slot() {
    let (stalling, accepted) = stalling_server();
    // One recognition slot: before the fix, one stalled fetch held it for its 10 s timeout.
    let mut server = ServerProcess::http(&[
        "--image-url-allow-http",
        "--image-url-allow-network",
        "127.0.0.1/32",
        "--max-concurrent-scans",
        "1",
        "--rate-limit",
        "0",
    ]);
    let addr = server.addr.unwrap();
    let mut client = server.client(Revision::Modern, json!({}));
    let photo = json!({ "image_base64": support::image_base64(PASSPORT) });
    let started = Instant::now();
    assert_eq!(client.call("scan_document", photo.clone()).ok()["status"], "read");
    let alone = started.elapsed();

    // Four calls whose photo never arrives, over MCP and REST.
    let url = format!("http://{stalling}/slow.jpg");
    for n in 0..4 {
        let url = url.clone();
        std::thread::spawn(move || {
            if n % 2 == 0 {
                let mut caller =
                    support::client::Client::http(addr, Revision::Modern, json!({}), Vec::new());
                let _ = caller.call("scan_document", json!({ "image_url": url }));
            } else {
                let body = json!({ "image_url": url }).to_string();
                let _ = transport::request(
                    addr,
                    "POST",
                    "/v1/scans",
                    &[("Content-Type", "application/json")],
                    &body,
                );
            }
        });
    }
    for _ in 0..4 {
        accepted.recv_timeout(Duration::from_secs(10)).expect("the fetches reach the server");
    }
    // Another caller's photo is read at once.
    let started = Instant::now();
    let read = client.call("scan_document", photo);
    let waited = started.elapsed();
    assert_eq!(read.ok()["status"], "read");
    assert!(waited < alone + Duration::from_secs(1), "{waited:?} against {alone:?} alone");
}
