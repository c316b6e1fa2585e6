//! The full HTTP composition on a real listener, a small HTTP/1.1 client, and a checker
//! that validates every REST response against the OpenAPI document.
//!
//! Included by each test file with `mod support;`; on its own it holds no tests.
#![allow(dead_code)]

use std::{net::SocketAddr, path::PathBuf, sync::Arc};

use mrtd_mcp::{McpConfig, MrtdServer};
use mrtd_server::{
    HttpConfig, McpEndpoint,
    auth::{AuthGuard, AuthMode, AuthSettings, api_key::StaticApiKeys},
};
use mrtd_service::{AppState, ServiceConfig};
use serde_json::{Value, json};
use tokio::net::TcpListener;

/// A sample photo from `tests/data/images`.
pub fn image(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/images").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// The first MRZ line of a photo in `tests/data/images/MANIFEST.tsv`.
pub fn manifest_mrz(name: &str) -> Vec<String> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/images/MANIFEST.tsv");
    let text = std::fs::read_to_string(path).expect("MANIFEST.tsv");
    let row = text
        .lines()
        .map(|line| line.split('\t').collect::<Vec<_>>())
        .find(|columns| columns.first() == Some(&name))
        .expect("the photo is in the manifest");
    row[7].split('|').map(str::to_owned).collect()
}

/// A running server: the MCP endpoint and the web routes behind the auth guard, with a
/// SQLite store in a temporary directory and the real engine.
pub struct Server {
    pub addr: SocketAddr,
    _dir: tempfile::TempDir,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// The two API keys of servers started with [`start_with_keys`].
pub const KEY_ALICE: &str = "mrtd_alice_secret_for_tests";
pub const KEY_BOB: &str = "mrtd_bob_secret_for_tests";

/// A server without authentication (every caller is the local user).
pub async fn start() -> Server {
    start_with(AuthMode::None, 36 * 1024 * 1024).await
}

/// A server that needs an API key: [`KEY_ALICE`] or [`KEY_BOB`].
pub async fn start_with_keys() -> Server {
    let keys = StaticApiKeys::from_secrets([("alice", KEY_ALICE), ("bob", KEY_BOB)]);
    start_with(AuthMode::ApiKey(Arc::new(keys)), 36 * 1024 * 1024).await
}

pub async fn start_with(mode: AuthMode, max_body_bytes: usize) -> Server {
    serve(mode, max_body_bytes, None).await
}

/// A server without authentication in front of `store` instead of SQLite.
pub async fn start_with_store(store: Arc<dyn mrtd_store::Store>) -> Server {
    serve(AuthMode::None, 36 * 1024 * 1024, Some(store)).await
}

async fn serve(
    mode: AuthMode,
    max_body_bytes: usize,
    store: Option<Arc<dyn mrtd_store::Store>>,
) -> Server {
    let dir = tempfile::tempdir().expect("temporary directory");
    let store = match store {
        Some(store) => store,
        None => mrtd_store::open(&mrtd_store::default_sqlite_url(dir.path()))
            .await
            .expect("opening the SQLite store"),
    };
    let engine = Arc::new(mrtd_engine::EngineBuilder::new().build());
    // The repository's specimens are the image directory, for `image_path`.
    let images = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/images");
    let config =
        ServiceConfig { max_concurrent_reads: 2, image_dir: Some(images), ..ServiceConfig::new() };
    let state = AppState::new(engine, store, &config).expect("state");
    let http = HttpConfig { max_body_bytes, ..HttpConfig::default() };
    let server =
        MrtdServer::new(state.clone(), &McpConfig { request_state_key: vec![7; 32] }).expect("mcp");
    let endpoint = McpEndpoint::new(move || Ok(server.clone()), &http);
    let web = mrtd_web::routes_with(
        state,
        &mrtd_web::WebConfig { max_body_bytes, ..mrtd_web::WebConfig::default() },
    );
    let guard = AuthGuard::new(AuthSettings::new(mode), &http);
    // As the `mrtd` binary composes it: the caller the guard authenticated becomes the
    // service's principal.
    let app = mrtd_server::http::router(endpoint, &http, web).layer(axum::middleware::map_request(
        |mut request: axum::extract::Request| async move {
            if let Some(principal) = request.extensions().get::<mrtd_server::auth::Principal>() {
                let principal = mrtd_service::Principal(principal.0.clone());
                request.extensions_mut().insert(principal);
            }
            request
        },
    ));
    let app = guard.protect(app);
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("binding a port");
    let addr = listener.local_addr().expect("address");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(mrtd_server::http::serve(listener, app, async move {
        let _ = stopped.await;
    }));
    Server { addr, _dir: dir, stop: Some(stop) }
}

pub use mrtd_testkit::http::Reply;

/// One request through the tests' HTTP client (on the blocking pool, so the server on this
/// runtime keeps running); the connection closes after it.
pub async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Reply {
    let (method, path, body) = (method.to_owned(), path.to_owned(), body.to_vec());
    let headers: Vec<(String, String)> =
        headers.iter().map(|(n, v)| ((*n).to_owned(), (*v).to_owned())).collect();
    tokio::task::spawn_blocking(move || {
        let headers: Vec<(&str, &str)> =
            headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        mrtd_testkit::http::request(addr, &method, &path, &headers, &body)
    })
    .await
    .expect("the request ran")
}

/// A multipart/form-data body: `(name, filename, bytes)` parts. Returns the content type
/// and the body.
pub fn multipart(parts: &[(&str, Option<&str>, &[u8])]) -> (String, Vec<u8>) {
    let boundary = "mrtd-test-boundary-7MA4YWxkTrZu0gW";
    let mut body = Vec::new();
    for (name, filename, bytes) in parts {
        body.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        match filename {
            Some(file) => body.extend_from_slice(
                format!(
                    "Content-Disposition: form-data; name=\"{name}\"; filename=\"{file}\"\r\n\
                     Content-Type: application/octet-stream\r\n\r\n"
                )
                .as_bytes(),
            ),
            None => body.extend_from_slice(
                format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes(),
            ),
        }
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// `path` as one JSON Pointer token inside a URI fragment (`{` and `}` percent-encoded).
pub fn pointer_token(path: &str) -> String {
    path.replace('~', "~0").replace('/', "~1").replace('{', "%7B").replace('}', "%7D")
}

/// Checks REST responses against the schemas the OpenAPI document gives their operation.
pub struct OpenApi {
    document: Value,
}

impl OpenApi {
    /// Fetches `/openapi.json` from the server itself.
    pub async fn fetch(addr: SocketAddr) -> OpenApi {
        let reply = request(addr, "GET", "/openapi.json", &[], b"").await;
        assert_eq!(reply.status, 200, "{}", reply.text());
        let document = reply.json();
        assert_eq!(document["openapi"], "3.1.0");
        OpenApi { document }
    }

    /// Asserts that `reply` is a response the document declares for `method` on the
    /// templated `path`, and that a JSON body matches the declared schema.
    pub fn check(&self, method: &str, path: &str, reply: &Reply) {
        let operation = &self.document["paths"][path][method.to_ascii_lowercase()];
        assert!(operation.is_object(), "no operation {method} {path} in the document");
        let status = reply.status.to_string();
        let mut response = &operation["responses"][&status];
        assert!(
            response.is_object(),
            "{method} {path} answered {status}, which the document does not declare: {}",
            reply.text()
        );
        let reference;
        if let Some(target) = response["$ref"].as_str() {
            reference = self.resolve(target);
            response = &reference;
        }
        let content = &response["content"];
        if !content.is_object() {
            assert!(reply.bytes.is_empty(), "{method} {path} {status} should have no body");
            return;
        }
        let media = reply.header("content-type").unwrap_or("").split(';').next().unwrap_or("");
        assert!(
            content[media].is_object(),
            "{method} {path} {status}: content type {media} is not declared"
        );
        if !media.ends_with("json") {
            // An image: its media type is the declared one, and there is no JSON to check.
            return;
        }
        let pointer = format!(
            "#/paths/{}/{}/responses/{status}",
            pointer_token(path),
            method.to_ascii_lowercase()
        );
        let schema_pointer = match operation["responses"][&status]["$ref"].as_str() {
            Some(target) => format!("{target}/content/{}/schema", media.replace('/', "~1")),
            None => format!("{pointer}/content/{}/schema", media.replace('/', "~1")),
        };
        self.validate(&schema_pointer, &reply.json(), &format!("{method} {path} {status}"));
    }

    /// Validates `instance` against the schema at `pointer` (a `#/...` reference into the
    /// document), with every `$ref` inside it resolved against the document.
    pub fn validate(&self, pointer: &str, instance: &Value, what: &str) {
        let errors = self.errors(pointer, instance);
        assert!(errors.is_empty(), "{what} does not match {pointer}: {errors:?}\n{instance}");
    }

    /// What is wrong with `instance` under the schema at `pointer`; empty when it fits.
    pub fn errors(&self, pointer: &str, instance: &Value) -> Vec<String> {
        let mut root = self.document.clone();
        root["$ref"] = json!(pointer);
        let validator = jsonschema::validator_for(&root)
            .unwrap_or_else(|e| panic!("the schema at {pointer} does not compile: {e}"));
        validator.iter_errors(instance).map(|e| e.to_string()).collect()
    }

    fn resolve(&self, target: &str) -> Value {
        let pointer = target.strip_prefix('#').expect("a local reference");
        self.document.pointer(pointer).cloned().expect("the reference resolves")
    }

    pub fn document(&self) -> &Value {
        &self.document
    }
}

/// A 2026-07-28 `tools/call` on the MCP endpoint; the JSON-RPC reply.
pub async fn mcp_tool(
    addr: SocketAddr,
    name: &str,
    arguments: Value,
    headers: &[(&str, &str)],
) -> Value {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {
            "name": name, "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}
            }
        }
    });
    let mut all: Vec<(&str, &str)> = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("Mcp-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", name),
    ];
    all.extend_from_slice(headers);
    let reply = request(addr, "POST", "/mcp", &all, body.to_string().as_bytes()).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    reply.rpc()
}
