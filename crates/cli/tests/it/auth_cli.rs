//! `mrtd keys` and `mrtd serve --auth` through the real binary.

use std::{
    io::{BufRead, BufReader},
    path::Path,
    process::{Child, Command, Output, Stdio},
    sync::mpsc,
    time::Duration,
};

fn mrtd(args: &[&str], data_dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mrtd"))
        .args(args)
        .arg("--data-dir")
        .arg(data_dir)
        .env_remove("MRTD_DATABASE_URL")
        .env_remove("MRTD_AUTH")
        .output()
        .expect("mrtd runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A running `mrtd serve`, stopped when dropped.
struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start(args: &[&str], data_dir: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mrtd"))
            .arg("serve")
            .args(args)
            .arg("--data-dir")
            .arg(data_dir)
            .env_remove("MRTD_DATABASE_URL")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mrtd serve starts");
        let stderr = child.stderr.take().expect("stderr is piped");
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(rest) = line.split("serving MCP at http://127.0.0.1:").nth(1) {
                    let port = rest.trim_end_matches("/mcp").parse::<u16>().ok();
                    let _ = sender.send(port);
                }
            }
        });
        let port = receiver
            .recv_timeout(Duration::from_secs(60))
            .ok()
            .flatten()
            .expect("mrtd serve reports its address");
        Server { child, port }
    }

    /// POSTs `tools/list` (2026-07-28) with the given extra header and returns the status.
    fn tools_list(&self, header: Option<String>) -> u16 {
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        let mut headers = vec![
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("Mcp-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/list"),
        ];
        let extra = header.as_deref().and_then(|h| h.split_once(':'));
        if let Some((name, value)) = extra {
            headers.push((name.trim(), value.trim()));
        }
        let addr = std::net::SocketAddr::from(([127, 0, 0, 1], self.port));
        mrtd_testkit::http::request(addr, "POST", "/mcp", &headers, body.as_bytes()).status
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(unix)]
#[test]
fn keys_create_makes_a_data_directory_only_its_user_may_open() {
    use std::os::unix::fs::PermissionsExt;
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("data");
    let created = mrtd(&["keys", "create", "ci"], &dir);
    assert!(created.status.success(), "{}", text(&created.stderr));
    let mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700, "{mode:o}");
}

#[test]
fn keys_are_created_listed_used_and_revoked() {
    let dir = tempfile::tempdir().unwrap();
    let created = mrtd(&["keys", "create", "ci"], dir.path());
    assert!(created.status.success(), "{}", text(&created.stderr));
    let key = text(&created.stdout).trim().to_owned();
    assert!(key.starts_with("mrtd_") && key.len() == 48, "{key}");

    let again = mrtd(&["keys", "create", "ci"], dir.path());
    assert!(!again.status.success());
    assert!(text(&again.stderr).contains("already exists"), "{}", text(&again.stderr));

    let listed = mrtd(&["keys", "list"], dir.path());
    let listing = text(&listed.stdout);
    assert!(listing.contains("\tci\t") && listing.contains("active"), "{listing}");
    assert!(!listing.contains(&key), "the secret is never shown again");
    // Only the hash is stored: the secret is not in the database file.
    let database = std::fs::read(dir.path().join("mrtd.db")).unwrap();
    assert!(!database.windows(key.len()).any(|w| w == key.as_bytes()));

    let server = Server::start(&["--auth", "api-key", "--listen", "127.0.0.1:0"], dir.path());
    assert_eq!(server.tools_list(None), 401);
    assert_eq!(server.tools_list(Some(format!("Authorization: Bearer {key}"))), 200);
    assert_eq!(server.tools_list(Some(format!("X-Api-Key: {key}"))), 200);

    let revoked = mrtd(&["keys", "revoke", "ci"], dir.path());
    assert!(revoked.status.success(), "{}", text(&revoked.stderr));
    assert_eq!(server.tools_list(Some(format!("Authorization: Bearer {key}"))), 401);
    drop(server);

    let listing = text(&mrtd(&["keys", "list"], dir.path()).stdout);
    assert!(listing.contains("revoked"), "{listing}");
    let unknown = mrtd(&["keys", "revoke", "nope"], dir.path());
    assert!(!unknown.status.success());
}

#[test]
fn serving_on_all_interfaces_without_auth_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let output = mrtd(&["serve", "--listen", "0.0.0.0:0"], dir.path());
    assert!(!output.status.success());
    let message = text(&output.stderr);
    assert!(
        message.contains("refusing to listen on 0.0.0.0:0 without authentication"),
        "{message}"
    );
    assert!(message.contains("--auth api-key"), "{message}");
}

#[test]
fn oauth_mode_needs_its_settings() {
    let dir = tempfile::tempdir().unwrap();
    let output = mrtd(&["serve", "--auth", "oauth", "--listen", "127.0.0.1:0"], dir.path());
    assert!(!output.status.success());
    assert!(text(&output.stderr).contains("--public-url"), "{}", text(&output.stderr));
}
