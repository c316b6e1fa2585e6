//! Shared pieces of the MCP end-to-end tests: the `mrtd serve` process, an in-process
//! server that can tell callers apart, test images and a handle on the scan store.

#![allow(dead_code)]

pub mod client;
pub mod in_process;
pub mod transport;

use std::{
    io::{BufRead, BufReader},
    net::SocketAddr,
    path::{Path, PathBuf},
    process::{Child, ChildStderr, Command, Stdio},
    sync::{Arc, mpsc},
    time::{Duration, SystemTime},
};

use base64::Engine as _;
use serde_json::Value;

use self::{
    client::{Client, Revision},
    transport::StdioPipe,
};

/// The specimen passport that reads exactly (ICAO 9303 example data).
pub const PASSPORT: &str = "100_pass-uto.jpg";
pub const PASSPORT_NUMBER: &str = "L898902C3";
pub const MRZ_LINE1: &str = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<";
pub const MRZ_LINE2: &str = "L898902C36UTO7408122F1204159ZE184226B<<<<<10";
/// The text every tool gives for a scan the caller cannot see.
pub const NOT_FOUND: &str = "No scan with this scan_id";

/// The repository's specimen images.
pub fn image_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/images").join(name)
}

pub fn image_base64(name: &str) -> String {
    let bytes = std::fs::read(image_path(name)).expect("the specimen image exists");
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A small grey PNG with nothing on it: no MRZ to find.
pub fn blank_png_base64() -> String {
    let picture = image::RgbImage::from_pixel(320, 200, image::Rgb([200, 200, 200]));
    let mut bytes = std::io::Cursor::new(Vec::new());
    picture.write_to(&mut bytes, image::ImageFormat::Png).expect("encode a PNG");
    base64::engine::general_purpose::STANDARD.encode(bytes.into_inner())
}

/// A running `mrtd serve`, killed when dropped, with its own data directory.
pub struct ServerProcess {
    child: Child,
    pub data_dir: tempfile::TempDir,
    /// The HTTP address, when serving HTTP.
    pub addr: Option<SocketAddr>,
    stdio: Option<StdioPipe>,
}

/// `mrtd serve --data-dir DATA_DIR`, insulated from the caller's `MRTD_*` variables and
/// configuration file (and logging only warnings); callers add their own flags.
pub fn serve_command(data_dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mrtd"));
    command
        .arg("serve")
        .arg("--data-dir")
        .arg(data_dir)
        .env("RUST_LOG", "warn")
        .env_remove("MRTD_DATABASE_URL")
        .env_remove("MRTD_IMAGE_DIR")
        .env_remove("MRTD_CONFIG")
        // A configuration file in the user's home must not change the server under test.
        .env("XDG_CONFIG_HOME", data_dir);
    command
}

/// The address `mrtd serve` announces on its stderr (human or JSON logs). A thread keeps
/// draining stderr, so the server never blocks on a full pipe, and hands every line to
/// `on_line`.
pub fn announced_address(
    stderr: ChildStderr,
    on_line: impl FnMut(String) + Send + 'static,
) -> SocketAddr {
    read_stderr(stderr, on_line).0
}

/// [`announced_address`], and the thread reading stderr, which ends when the server has
/// exited and every line it wrote was handed on.
fn read_stderr(
    stderr: ChildStderr,
    mut on_line: impl FnMut(String) + Send + 'static,
) -> (SocketAddr, std::thread::JoinHandle<()>) {
    let (sender, receiver) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut sender = Some(sender);
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if let Some(rest) = line.split("serving MCP at http://").nth(1)
                && let Some(tx) = sender.take()
            {
                let _ = tx.send(rest.split(['/', '"', ' ']).next().unwrap_or("").to_owned());
            }
            on_line(line);
        }
    });
    let addr = receiver
        .recv_timeout(Duration::from_secs(30))
        .expect("mrtd serve reports its address")
        .parse()
        .expect("a socket address");
    (addr, reader)
}

/// What a server wrote to stderr, collected as it runs.
pub struct Log {
    lines: Arc<std::sync::Mutex<Vec<String>>>,
    reader: std::thread::JoinHandle<()>,
}

impl Log {
    /// Reads `stderr` of a starting server: the address it announces, and its log.
    pub fn of(stderr: ChildStderr) -> (SocketAddr, Log) {
        let lines = Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = lines.clone();
        let (addr, reader) = read_stderr(stderr, move |line| sink.lock().unwrap().push(line));
        (addr, Log { lines, reader })
    }

    /// Everything `server` logged: it is stopped, and its stderr read to the end (a barrier,
    /// not a wait of some milliseconds that a slow machine may outlast).
    pub fn after_exit(self, server: ServerProcess) -> String {
        drop(server);
        self.reader.join().expect("the stderr reader ends with the server");
        self.lines.lock().unwrap().join("\n")
    }
}

impl ServerProcess {
    /// `mrtd serve --listen 127.0.0.1:0 --data-dir TMP EXTRA...`.
    pub fn http(extra_args: &[&str]) -> ServerProcess {
        let data_dir = tempfile::tempdir().expect("a temporary data directory");
        let mut child = serve_command(data_dir.path())
            .args(["--listen", "127.0.0.1:0"])
            .args(extra_args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mrtd serve starts");
        let stderr = child.stderr.take().expect("stderr is piped");
        let addr = announced_address(stderr, |_| {});
        ServerProcess { child, data_dir, addr: Some(addr), stdio: None }
    }

    /// `mrtd serve --stdio --data-dir TMP`.
    pub fn stdio() -> ServerProcess {
        let data_dir = tempfile::tempdir().expect("a temporary data directory");
        let mut child = serve_command(data_dir.path())
            .arg("--stdio")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("mrtd serve --stdio starts");
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let pipe = StdioPipe::new(stdin, stdout);
        ServerProcess { child, data_dir, addr: None, stdio: Some(pipe) }
    }

    /// A server process started by the test itself, serving HTTP at `addr`.
    pub fn adopt(child: Child, data_dir: tempfile::TempDir, addr: SocketAddr) -> ServerProcess {
        ServerProcess { child, data_dir, addr: Some(addr), stdio: None }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// A client of this server.
    pub fn client(&mut self, revision: Revision, capabilities: Value) -> Client {
        match (self.addr, self.stdio.take()) {
            (Some(addr), _) => Client::http(addr, revision, capabilities, Vec::new()),
            (None, Some(pipe)) => Client::stdio(pipe, revision, capabilities),
            (None, None) => panic!("the stdio server has one client only"),
        }
    }

    /// The scan store the server uses (its SQLite file), opened beside it.
    pub async fn store(&self) -> Arc<dyn mrtd_store::Store> {
        let url = mrtd_store::default_sqlite_url(self.data_dir.path());
        mrtd_store::open(&url).await.expect("open the server's SQLite store")
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How many scans the store holds in all, alive or expired, whoever owns them.
///
/// Purging everything that expires before the far future removes (and counts) every row,
/// so call it only when the test is done with the store's rows.
pub async fn count_and_remove_all_rows(store: &dyn mrtd_store::Store) -> u64 {
    let far_future = SystemTime::now() + Duration::from_secs(200 * 365 * 24 * 3600);
    store.purge_expired(far_future).await.expect("purge the store")
}

/// The codes of a result's diagnostics, in order.
pub fn diagnostic_codes(result: &Value) -> Vec<&str> {
    let diagnostics = result["diagnostics"].as_array().expect("a result has diagnostics");
    diagnostics.iter().filter_map(|diagnostic| diagnostic["code"].as_str()).collect()
}

/// A scan id from a kept scan's result.
pub fn scan_id(structured: &Value) -> String {
    structured["scan_id"].as_str().expect("a kept scan has a scan_id").to_owned()
}
