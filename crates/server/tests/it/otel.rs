//! OpenTelemetry export (feature `otel`): a tool call's span reaches a real OTLP/HTTP
//! endpoint as a child of the caller's `traceparent`.
#![cfg(feature = "otel")]

use std::time::Duration;

use mrtd_server::observe::{otel::OtelExport, tool_call_span};
use tracing_subscriber::layer::SubscriberExt as _;

use crate::support;
use support::otlp::{self, contains, unhex};

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID: &str = "00f067aa0ba902b7";

#[test]
fn a_tool_call_span_is_exported_as_a_child_of_the_callers_trace() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (address, bodies) = otlp::start(&runtime);

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
