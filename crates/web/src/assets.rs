//! The page's static files, embedded in the binary and served with validators: the script,
//! the style sheet, the icon and the specimen photo behind the page's "Try a sample" button.

use std::sync::OnceLock;

use axum::{
    extract::Path,
    response::{IntoResponse, Response},
};
use http::{HeaderMap, HeaderValue, StatusCode, header};

/// One embedded file.
struct Asset {
    name: &'static str,
    content_type: &'static str,
    body: &'static [u8],
}

const ASSETS: [Asset; 4] = [
    Asset {
        name: "app.js",
        content_type: "text/javascript; charset=utf-8",
        body: include_bytes!("../assets/app.js"),
    },
    Asset {
        name: "style.css",
        content_type: "text/css; charset=utf-8",
        body: include_bytes!("../assets/style.css"),
    },
    Asset {
        name: "icon.svg",
        content_type: "image/svg+xml",
        body: include_bytes!("../assets/icon.svg"),
    },
    // A copy of the Utopia specimen of tests/data/images (100_pass-uto.jpg): a crate embeds
    // only its own files.
    Asset {
        name: "specimen-uto.jpg",
        content_type: "image/jpeg",
        body: include_bytes!("../assets/specimen-uto.jpg"),
    },
];

/// FNV-1a, enough to tell one build's files from another's.
fn fingerprint(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A short tag for all assets together; the page links `?v=` it, so a new build's page
/// never runs an old script from a cache.
pub(crate) fn version() -> String {
    static VERSION: OnceLock<String> = OnceLock::new();
    VERSION
        .get_or_init(|| {
            let all: Vec<u8> = ASSETS.iter().flat_map(|a| a.body.iter().copied()).collect();
            format!("{:012x}", fingerprint(&all) >> 16)
        })
        .clone()
}

/// `GET /assets/{name}`.
pub(crate) async fn serve(Path(name): Path<String>, headers: HeaderMap) -> Response {
    let Some(asset) = ASSETS.iter().find(|a| a.name == name) else {
        return (StatusCode::NOT_FOUND, "no such asset\n").into_response();
    };
    let etag = format!("\"{:016x}\"", fingerprint(asset.body));
    let matches = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|tags| tags.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
    let mut response = if matches {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        ([(header::CONTENT_TYPE, asset.content_type)], asset.body).into_response()
    };
    let out = response.headers_mut();
    if let Ok(etag) = HeaderValue::from_str(&etag) {
        out.insert(header::ETAG, etag);
    }
    // A day, then revalidate: the page asks for versioned URLs, so a stale copy is never
    // used by a newer page.
    out.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=86400"));
    out.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    response
}
