//! `--otlp-endpoint`: a build with the `otel` feature exports tool-call spans, continuing
//! the caller's `traceparent`, to a real OTLP/HTTP endpoint; a build without it refuses the
//! flag with a clear message.

use std::process::{Command, Stdio};

#[cfg(feature = "otel")]
#[path = "../../../server/tests/it/support/otlp.rs"]
mod otlp;

#[cfg(not(feature = "otel"))]
#[test]
fn without_the_feature_the_flag_is_refused_clearly() {
    let output = Command::new(env!("CARGO_BIN_EXE_mrtd"))
        .args(["--otlp-endpoint", "http://127.0.0.1:4318/v1/traces", "serve", "--stdio"])
        .stdin(Stdio::null())
        .output()
        .expect("mrtd runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("built without OpenTelemetry export"), "{stderr}");
    assert!(stderr.contains("--features otel"), "{stderr}");
}

#[cfg(feature = "otel")]
#[test]
fn tool_calls_over_stdio_are_exported_with_the_callers_trace() {
    use std::{io::Write as _, time::Duration};

    use serde_json::json;

    use self::otlp::{contains, unhex};

    const TRACE_ID: &str = "0af7651916cd43dd8448eb211c80319c";
    const PARENT_ID: &str = "b7ad6b7169203331";

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (address, bodies) = otlp::start(&runtime);

    let data_dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_mrtd"))
        .args(["--otlp-endpoint", &format!("http://{address}/v1/traces"), "serve", "--stdio"])
        .arg("--data-dir")
        .arg(data_dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("mrtd starts");
    let call = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {
            "name": "parse_mrz",
            "arguments": { "lines": [
                "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
                "L898902C36UTO7408122F1204159ZE184226B<<<<<10"
            ] },
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "traceparent": format!("00-{TRACE_ID}-{PARENT_ID}-01")
            }
        }
    });
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{call}").unwrap();
    drop(stdin);
    let output = child.wait_with_output().expect("mrtd exits");
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("L898902C3"), "the call was answered: {stdout}");

    // The process flushed its spans before exiting.
    let mut exported = Vec::new();
    while let Ok(body) = bodies.recv_timeout(Duration::from_secs(5)) {
        exported.extend(body);
    }
    assert!(contains(&exported, &unhex(TRACE_ID)), "the caller's trace id is exported");
    assert!(contains(&exported, &unhex(PARENT_ID)), "the caller's span is the parent");
    assert!(contains(&exported, b"tool_call"), "the tool call's span is exported");
}
