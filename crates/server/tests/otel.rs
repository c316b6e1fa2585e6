//! OpenTelemetry export (feature `otel`): a tool call's span reaches a real OTLP/HTTP
//! endpoint as a child of the caller's `traceparent`.
#![cfg(feature = "otel")]

use std::{sync::mpsc, time::Duration};

use axum::{Router, body::Bytes, routing::post};
use mrtd_server::observe::{otel::OtelExport, tool_call_span};
use tracing_subscriber::layer::SubscriberExt as _;

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID: &str = "00f067aa0ba902b7";

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap()).collect()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|window| window == needle)
}

#[test]
fn a_tool_call_span_is_exported_as_a_child_of_the_callers_trace() {
    // A collector: it keeps the bodies POSTed to /v1/traces.
    let runtime = tokio::runtime::Runtime::new().unwrap();
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

    let export = OtelExport::new(&format!("http://{address}/v1/traces"), "mrtd-otel-test").unwrap();
    let subscriber = tracing_subscriber::registry().with(export.layer());
    tracing::subscriber::with_default(subscriber, || {
        let traceparent = format!("00-{TRACE_ID}-{PARENT_ID}-01");
        let span = tool_call_span("parse_mrz", Some(&traceparent), Some("vendor=abc"), None);
        let _entered = span.enter();
        tracing::info!("inside the tool call");
    });
    export.flush().unwrap();

    let body = bodies.recv_timeout(Duration::from_secs(20)).expect("the collector got spans");
    // The protobuf carries ids as raw bytes: the span's trace id is the caller's, and its
    // parent span id is the caller's span.
    assert!(contains(&body, &unhex(TRACE_ID)), "the caller's trace id is exported");
    assert!(contains(&body, &unhex(PARENT_ID)), "the caller's span is the parent");
    assert!(contains(&body, b"tool_call"), "the span is named tool_call");
    assert!(contains(&body, b"mrtd-otel-test"), "the service name is set");
}
