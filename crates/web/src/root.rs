//! `GET /`: one address for everyone. Browsers get the page, programs the discovery
//! document, agents Markdown, anything else a line of plain text.

use axum::{
    Json,
    response::{IntoResponse, Response},
};
use http::{HeaderMap, HeaderValue, StatusCode, header};
use serde_json::{Value, json};

use crate::{i18n, negotiate};

/// The page, filled in by [`page`].
const PAGE: &str = include_str!("../assets/index.html");
/// The service described for agents, filled in by [`markdown`].
const SERVICE_MD: &str = include_str!("../docs/service.md");

/// Headers that keep the page from running anything but its own script.
const PAGE_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
    img-src 'self' blob: data:; connect-src 'self'; form-action 'self'; base-uri 'none'; \
    frame-ancestors 'none'";

pub(crate) async fn root(uri: http::Uri, headers: HeaderMap, mcp_path: String) -> Response {
    let offered = ["text/plain", "text/html", "application/json", "text/markdown"];
    let mut response = match negotiate::preferred(&headers, &offered) {
        Some("text/html") => page(&mcp_path, i18n::choose(uri.query(), &headers)),
        Some("application/json") => Json(discovery_document(&mcp_path)).into_response(),
        Some("text/markdown") => markdown(&mcp_path),
        _ => plain(&mcp_path),
    };
    let headers = response.headers_mut();
    headers.insert(header::VARY, HeaderValue::from_static("Accept, Accept-Language"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// The discovery document: what this server is and where its doors are.
pub fn discovery_document(mcp_path: &str) -> Value {
    json!({
        "name": "mrtd",
        "title": "mrtd travel document reader",
        "version": env!("CARGO_PKG_VERSION"),
        "description": "Reads ICAO 9303 machine readable zones of passports, ID cards and visas from photos.",
        "transports": ["streamable-http", "stdio"],
        "endpoint": mcp_path,
        "protocolVersions": ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"],
        "stateless": true,
        "rest": { "base": "/v1", "openapi": "/openapi.json" },
        "docs": { "llms": "/llms.txt", "rest": "/docs/rest.md" },
    })
}

/// The JSON-LD the page embeds: the REST API as a schema.org `WebAPI`, the program as a
/// `SoftwareApplication`.
fn json_ld(mcp_path: &str) -> Value {
    json!({
        "@context": "https://schema.org",
        "@graph": [
            {
                "@type": "WebAPI",
                "name": "mrtd REST API",
                "description": "Reads the machine readable zone (ICAO 9303) of passports, ID cards and visas from a photo, or parses typed MRZ lines, and returns the fields with check-digit verdicts.",
                "documentation": "/openapi.json",
                "url": "/v1",
                "provider": { "@type": "Organization", "name": "mrtd" },
                "potentialAction": [
                    { "@type": "Action", "name": "scan_document", "target": { "@type": "EntryPoint", "urlTemplate": "/v1/scans", "httpMethod": "POST", "contentType": ["multipart/form-data", "application/json"] } },
                    { "@type": "Action", "name": "parse_mrz", "target": { "@type": "EntryPoint", "urlTemplate": "/v1/parse", "httpMethod": "POST", "contentType": "application/json" } }
                ]
            },
            {
                "@type": "SoftwareApplication",
                "name": "mrtd",
                "softwareVersion": env!("CARGO_PKG_VERSION"),
                "applicationCategory": "BusinessApplication",
                "operatingSystem": "Linux, macOS, Windows",
                "description": "A server that reads travel documents from photos and serves the result over MCP (at the path below), a REST API and this page.",
                "featureList": ["ICAO 9303 TD1, TD2, TD3, MRV-A, MRV-B", "check-digit verification and correction", "MCP server", "REST API"],
                "url": mcp_path
            }
        ]
    })
}

fn page(mcp_path: &str, lang: i18n::Lang) -> Response {
    // `</` cannot appear inside the JSON-LD script element; escape it in the JSON text.
    let ld = json_ld(mcp_path).to_string().replace("</", "<\\/");
    let body = i18n::fill(PAGE, lang)
        .replace("{{lang}}", lang.tag())
        .replace("{{messages}}", &i18n::messages_json(lang))
        .replace("{{version}}", env!("CARGO_PKG_VERSION"))
        .replace("{{asset_version}}", &crate::assets::version())
        .replace("{{json_ld}}", &ld)
        .replace("{{mcp_path}}", &i18n::html_escape(mcp_path));
    let mut response = ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(PAGE_POLICY));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    if let Ok(language) = HeaderValue::from_str(lang.tag()) {
        headers.insert(header::CONTENT_LANGUAGE, language);
    }
    response
}

/// The service in Markdown, for agents that ask for it.
pub(crate) fn markdown(mcp_path: &str) -> Response {
    let body = SERVICE_MD
        .replace("{{version}}", env!("CARGO_PKG_VERSION"))
        .replace("{{mcp_path}}", mcp_path);
    ([(header::CONTENT_TYPE, "text/markdown; charset=utf-8")], body).into_response()
}

fn plain(mcp_path: &str) -> Response {
    let body = format!(
        "mrtd {}: reads passports, ID cards and visas.\n\
         MCP endpoint: POST {mcp_path}. REST API: /v1 (see /openapi.json). Docs: /llms.txt.\n\
         Ask with Accept: application/json for the discovery document, text/html for the page.\n",
        env!("CARGO_PKG_VERSION")
    );
    (StatusCode::OK, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], body).into_response()
}
