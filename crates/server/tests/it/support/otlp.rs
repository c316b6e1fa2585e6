//! An OTLP/HTTP collector for tests: it keeps the bodies POSTed to `/v1/traces`.
//! Shared by the server's and the binary's OpenTelemetry tests (the binary's test
//! includes this file by path).

use std::{net::SocketAddr, sync::mpsc};

use axum::{Router, body::Bytes, routing::post};

/// Starts the collector on `runtime`; returns its address and the bodies it receives.
pub fn start(runtime: &tokio::runtime::Runtime) -> (SocketAddr, mpsc::Receiver<Vec<u8>>) {
    let (sender, bodies) = mpsc::channel::<Vec<u8>>();
    let address = runtime.block_on(async move {
        let collector = Router::new().route(
            "/v1/traces",
            post(move |body: Bytes| {
                let sender = sender.clone();
                async move {
                    let _ = sender.send(body.to_vec());
                    ""
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, collector).await });
        address
    });
    (address, bodies)
}

/// The bytes of a hex string (trace and span ids travel as raw bytes in protobuf).
pub fn unhex(text: &str) -> Vec<u8> {
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap()).collect()
}

/// Whether `needle` occurs in `haystack`.
pub fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|window| window == needle)
}
