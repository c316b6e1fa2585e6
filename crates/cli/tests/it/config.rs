//! `mrtd serve` configuration through the real binary: a TOML file under `MRTD_*`
//! variables under flags, and `--log-format`.
//!
//! The listen address tells the sources apart: every loopback address in 127.0.0.0/8 can be
//! bound, so the file, the variable and the flag each name a different one (with port 0)
//! and the address the server announces says which one won.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// `mrtd serve` with a clean environment: no `MRTD_*` variable, the configuration home in a
/// temporary folder.
fn serve(config_home: &Path, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mrtd"));
    command.arg("serve").arg("--data-dir").arg(config_home.join("data")).args(args);
    for (name, _) in std::env::vars() {
        if name.starts_with("MRTD_") {
            command.env_remove(name);
        }
    }
    command.env("XDG_CONFIG_HOME", config_home).env("RUST_LOG", "warn");
    for (name, value) in env {
        command.env(name, value);
    }
    command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
    command
}

/// A started server: the stderr lines up to and including the one that names the MCP URL.
struct Started {
    child: Child,
    lines: Vec<String>,
}

impl Drop for Started {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Started {
    fn start(mut command: Command) -> Started {
        let mut child = command.spawn().expect("mrtd serve starts");
        let stderr = child.stderr.take().expect("stderr is piped");
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = Vec::new();
            let mut sender = Some(sender);
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let announced = line.contains("serving MCP at http://");
                lines.push(line);
                if announced && let Some(tx) = sender.take() {
                    let _ = tx.send(lines.clone());
                }
            }
            if let Some(tx) = sender.take() {
                let _ = tx.send(lines);
            }
        });
        let lines = receiver.recv_timeout(Duration::from_secs(30)).expect("mrtd serve reports");
        Started { child, lines }
    }

    /// The announced address.
    fn address(&self) -> SocketAddr {
        let line = self.lines.iter().find(|l| l.contains("serving MCP at http://"));
        let line = line.unwrap_or_else(|| panic!("no address announced: {:?}", self.lines));
        let rest = line.split("serving MCP at http://").nth(1).expect("a URL");
        let authority = rest.split("/mcp").next().expect("an authority");
        authority.parse().expect("a socket address")
    }
}

fn write_config(home: &Path, relative: &str, text: &str) -> std::path::PathBuf {
    let path = home.join(relative);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("create the folder");
    std::fs::write(&path, text).expect("write the configuration file");
    path
}

#[test]
fn the_default_file_applies_when_nothing_else_says() {
    let home = tempfile::tempdir().unwrap();
    write_config(home.path(), "mrtd/config.toml", "listen = \"127.0.0.2:0\"\n");
    let started = Started::start(serve(home.path(), &[], &[]));
    assert_eq!(started.address().ip().to_string(), "127.0.0.2");
}

#[test]
fn the_environment_wins_over_the_file() {
    let home = tempfile::tempdir().unwrap();
    write_config(home.path(), "mrtd/config.toml", "listen = \"127.0.0.2:0\"\n");
    let started = Started::start(serve(home.path(), &[], &[("MRTD_LISTEN", "127.0.0.3:0")]));
    assert_eq!(started.address().ip().to_string(), "127.0.0.3");
}

#[test]
fn a_flag_wins_over_the_environment_and_the_file() {
    let home = tempfile::tempdir().unwrap();
    write_config(home.path(), "mrtd/config.toml", "listen = \"127.0.0.2:0\"\n");
    let started = Started::start(serve(
        home.path(),
        &["--listen", "127.0.0.4:0"],
        &[("MRTD_LISTEN", "127.0.0.3:0")],
    ));
    assert_eq!(started.address().ip().to_string(), "127.0.0.4");
}

#[test]
fn config_and_mrtd_config_choose_the_file() {
    let home = tempfile::tempdir().unwrap();
    write_config(home.path(), "mrtd/config.toml", "listen = \"127.0.0.2:0\"\n");
    let chosen = write_config(home.path(), "elsewhere.toml", "listen = \"127.0.0.5:0\"\n");
    let chosen = chosen.to_str().expect("a UTF-8 path");
    let by_flag = Started::start(serve(home.path(), &["--config", chosen], &[]));
    assert_eq!(by_flag.address().ip().to_string(), "127.0.0.5");
    let by_variable = Started::start(serve(home.path(), &[], &[("MRTD_CONFIG", chosen)]));
    assert_eq!(by_variable.address().ip().to_string(), "127.0.0.5");
}

/// The status code of a POST to /mcp carrying `origin`.
fn status_for_origin(address: SocketAddr, origin: &str) -> u16 {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let headers = [
        ("Origin", origin),
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    mrtd_testkit::http::request(address, "POST", "/mcp", &headers, body.as_bytes()).status
}

#[test]
fn lists_and_kebab_case_keys_work_in_the_file() {
    let home = tempfile::tempdir().unwrap();
    write_config(
        home.path(),
        "mrtd/config.toml",
        "listen = \"127.0.0.1:0\"\nallowed-origins = [\"https://one.example\", \"https://two.example\"]\n",
    );
    let started = Started::start(serve(home.path(), &[], &[]));
    let address = started.address();
    assert_ne!(status_for_origin(address, "https://one.example"), 403);
    assert_ne!(status_for_origin(address, "https://two.example"), 403);
    assert_eq!(status_for_origin(address, "https://three.example"), 403);
}

#[test]
fn a_bad_file_is_a_usage_error_that_names_it() {
    let home = tempfile::tempdir().unwrap();
    for (text, expected) in [
        ("listen = \"127.0.0.1:0\"\nlisen = \"x\"\n", "unknown key \"lisen\""),
        ("listen = \"not an address\"\n", "--listen"),
        ("legacy_sessions = \"yes\"\n", "must be true or false"),
        ("listen = [\n", "config.toml"),
    ] {
        write_config(home.path(), "mrtd/config.toml", text);
        let output = serve(home.path(), &[], &[]).output().expect("mrtd runs");
        assert_eq!(output.status.code(), Some(2), "{text}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("config.toml"), "{text}: {stderr}");
        assert!(stderr.contains(expected), "{text}: {stderr}");
    }
    let output = serve(home.path(), &["--config", "/nonexistent/mrtd.toml"], &[]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
}

/// The connection limits added by the hardening, each with its flag, variable and file key.
const CONNECTION_LIMITS: [(&str, &str, &str); 2] = [
    ("--response-timeout-secs", "MRTD_RESPONSE_TIMEOUT_SECS", "response_timeout_secs"),
    (
        "--max-connections-per-address",
        "MRTD_MAX_CONNECTIONS_PER_ADDRESS",
        "max_connections_per_address",
    ),
];

#[test]
fn connection_limits_come_from_the_flag_the_variable_and_the_file() {
    let home = tempfile::tempdir().unwrap();
    for (flag, variable, key) in CONNECTION_LIMITS {
        // A value that is no number is refused by the one parser, naming the flag, from
        // whichever source it came. The address is refused after parsing, so a source
        // that did not reach the flag ends the run too, with another message.
        let refused = ["--listen", "192.0.2.1:0"];
        let file = format!("listen = \"127.0.0.1:0\"\n{key} = \"soon\"\n");
        write_config(home.path(), "mrtd/config.toml", &file);
        let by_file = serve(home.path(), &refused, &[]).output().expect("mrtd runs");
        write_config(home.path(), "mrtd/config.toml", "listen = \"127.0.0.1:0\"\n");
        let by_variable = serve(home.path(), &refused, &[(variable, "soon")]).output().unwrap();
        let by_flag =
            serve(home.path(), &[refused[0], refused[1], flag, "soon"], &[]).output().unwrap();
        for (source, output) in [("file", by_file), ("variable", by_variable), ("flag", by_flag)] {
            assert_eq!(output.status.code(), Some(2), "{key} from the {source}");
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(stderr.contains(flag), "{key} from the {source}: {stderr}");
        }
        // A number is accepted.
        let file = format!("listen = \"127.0.0.1:0\"\n{key} = 5\n");
        write_config(home.path(), "mrtd/config.toml", &file);
        let started = Started::start(serve(home.path(), &[], &[]));
        assert_eq!(started.address().ip().to_string(), "127.0.0.1", "{key}");
    }
}

#[test]
fn json_logs_keep_stderr_json_and_still_announce_the_url() {
    let home = tempfile::tempdir().unwrap();
    let started = Started::start(serve(
        home.path(),
        &["--listen", "127.0.0.1:0"],
        &[("MRTD_LOG_FORMAT", "json"), ("RUST_LOG", "info")],
    ));
    for line in &started.lines {
        let event: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}"));
        assert!(event.get("level").is_some(), "{line}");
    }
    let announcement = started.lines.last().expect("an announcement");
    let event: serde_json::Value = serde_json::from_str(announcement).unwrap();
    let url = event["fields"]["url"].as_str().expect("the URL as a field");
    assert_eq!(url, format!("http://{}/mcp", started.address()));

    // The file can choose the format too, and the flag beats it.
    write_config(home.path(), "mrtd/config.toml", "log_format = \"json\"\n");
    // The announcement is printed whatever RUST_LOG filters (here: warnings only).
    let from_file = Started::start(serve(home.path(), &["--listen", "127.0.0.1:0"], &[]));
    assert!(from_file.lines.iter().all(|l| l.starts_with('{')), "{:?}", from_file.lines);
    let human = Started::start(serve(
        home.path(),
        &["--listen", "127.0.0.1:0", "--log-format", "human"],
        &[],
    ));
    assert!(human.lines.iter().any(|l| l.starts_with("mrtd ")), "{:?}", human.lines);
}

/// A request-state key typed on the command line is readable by every local user, so the
/// server warns at start and says where the key belongs instead, without printing it; from
/// the variable or the file there is nothing to warn about. A server without authentication
/// says so at start.
#[test]
fn start_up_warns_of_a_key_on_the_command_line_and_of_serving_without_authentication() {
    let home = tempfile::tempdir().unwrap();
    let key = "ab".repeat(32);
    let key_warning = "--request-state-key was given on the command line";
    let warned = |started: &Started, text: &str| started.lines.iter().any(|l| l.contains(text));

    let flagged = Started::start(serve(
        home.path(),
        &["--listen", "127.0.0.1:0", "--request-state-key", &key],
        &[],
    ));
    let warning = flagged.lines.iter().find(|l| l.contains(key_warning));
    let warning = warning.unwrap_or_else(|| panic!("no warning: {:?}", flagged.lines));
    assert!(warning.contains("WARN"), "{warning}");
    assert!(warning.contains("MRTD_REQUEST_STATE_KEY"), "{warning}");
    assert!(warning.contains("configuration file"), "{warning}");
    assert!(!warned(&flagged, &key), "the key is never printed: {:?}", flagged.lines);
    assert!(warned(&flagged, "serving without authentication"), "{:?}", flagged.lines);
    assert!(warned(&flagged, "loopback only"), "{:?}", flagged.lines);

    let from_variable = Started::start(serve(
        home.path(),
        &["--listen", "127.0.0.1:0"],
        &[("MRTD_REQUEST_STATE_KEY", &key)],
    ));
    assert!(!warned(&from_variable, key_warning), "{:?}", from_variable.lines);
    write_config(home.path(), "mrtd/config.toml", &format!("request_state_key = \"{key}\"\n"));
    let from_file = Started::start(serve(home.path(), &["--listen", "127.0.0.1:0"], &[]));
    assert!(!warned(&from_file, key_warning), "{:?}", from_file.lines);

    let with_keys =
        Started::start(serve(home.path(), &["--listen", "127.0.0.1:0", "--auth", "api-key"], &[]));
    assert!(!warned(&with_keys, "without authentication"), "{:?}", with_keys.lines);
}
