//! The reading layer: `/llms.txt` and the docs as Markdown under `/docs/`.

use axum::{
    extract::Path,
    response::{IntoResponse, Response},
};
use http::{HeaderMap, HeaderValue, StatusCode, header};

use crate::negotiate;

/// One document: its name in `/docs/{name}.md`, a title and the Markdown.
pub(crate) struct Doc {
    pub(crate) name: &'static str,
    pub(crate) title: &'static str,
    pub(crate) summary: &'static str,
    pub(crate) body: &'static str,
}

/// Every document served, in the order `/llms.txt` lists them.
pub(crate) const DOCS: [Doc; 12] = [
    Doc {
        name: "rest",
        title: "REST API",
        summary: "scan a photo, parse MRZ text, check a document, keep, list and delete scans over plain HTTP",
        body: include_str!("../docs/rest.md"),
    },
    Doc {
        name: "scan_document",
        title: "scan_document tool",
        summary: "read a photo of a passport, ID card or visa",
        body: mrtd_service::docs::tools::SCAN_DOCUMENT,
    },
    Doc {
        name: "parse_mrz",
        title: "parse_mrz tool",
        summary: "parse typed or pasted MRZ lines",
        body: mrtd_service::docs::tools::PARSE_MRZ,
    },
    Doc {
        name: "get_scan",
        title: "get_scan tool",
        summary: "fetch a kept scan by id",
        body: mrtd_service::docs::tools::GET_SCAN,
    },
    Doc {
        name: "list_scans",
        title: "list_scans tool",
        summary: "the caller's kept scans, newest first",
        body: mrtd_service::docs::tools::LIST_SCANS,
    },
    Doc {
        name: "delete_scan",
        title: "delete_scan tool",
        summary: "forget a kept scan now",
        body: mrtd_service::docs::tools::DELETE_SCAN,
    },
    Doc {
        name: "check_document",
        title: "check_document tool",
        summary: "yes/no answers (age, validity, nationality) without revealing the document",
        body: mrtd_service::docs::tools::CHECK_DOCUMENT,
    },
    Doc {
        name: "verify_chip",
        title: "verify_chip tool",
        summary: "verify a passport's chip data (Passive Authentication) and match it to the printed MRZ",
        body: mrtd_service::docs::tools::VERIFY_CHIP,
    },
    Doc {
        name: "photo-guide",
        title: "Photo guide",
        summary: "how to photograph a document so the MRZ reads",
        body: mrtd_service::docs::guides::PHOTO_GUIDE,
    },
    Doc {
        name: "supported-documents",
        title: "Supported documents",
        summary: "the ICAO 9303 layouts read and what is checked",
        body: mrtd_service::docs::guides::SUPPORTED_DOCUMENTS,
    },
    Doc {
        name: "chip-verification",
        title: "Verifying a document's chip",
        summary: "where chip data comes from, what is checked, and what authentic does not prove",
        body: mrtd_service::docs::guides::CHIP_VERIFICATION,
    },
    Doc {
        name: "verify-traveller",
        title: "verify-traveller prompt",
        summary: "the MCP prompt that walks through checking a traveller's document",
        body: mrtd_service::docs::VERIFY_TRAVELLER_PROMPT,
    },
];

fn markdown(body: String) -> Response {
    let mut response =
        ([(header::CONTENT_TYPE, "text/markdown; charset=utf-8")], body).into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// `GET /llms.txt` (llmstxt.org): a title, a summary and the links worth reading.
pub(crate) async fn llms_txt() -> Response {
    let mut text = String::from(
        "# mrtd\n\n\
         > mrtd reads the machine readable zone (ICAO 9303) of passports, ID cards and visas \
         from photos, verifies every check digit, corrects what the check digits prove, and \
         serves the result over MCP (Streamable HTTP at /mcp, or stdio), a REST API under /v1 \
         and a web page at /.\n\n\
         Results are JSON with `status` (read, partial, no_mrz), `format`, `fields`, `checks`, \
         `corrections` and `diagnostics`. Scans are kept only when asked (`retain_hours`), \
         only for their owner.\n\n## Docs\n\n",
    );
    for doc in DOCS.iter().filter(|d| d.name != "verify-traveller") {
        text.push_str(&format!("- [{}](/docs/{}.md): {}\n", doc.title, doc.name, doc.summary));
    }
    text.push_str(
        "\n## API\n\n\
         - [OpenAPI 3.1 document](/openapi.json): the REST API, every request and response\n\
         - [Discovery document](/): `GET /` with `Accept: application/json`\n\
         - [Service overview](/): `GET /` with `Accept: text/markdown`\n\n## Optional\n\n",
    );
    for doc in DOCS.iter().filter(|d| d.name == "verify-traveller") {
        text.push_str(&format!("- [{}](/docs/{}.md): {}\n", doc.title, doc.name, doc.summary));
    }
    let mut response =
        ([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// `GET /docs`: the list of documents, as a page for browsers and Markdown otherwise.
pub(crate) async fn index(headers: HeaderMap) -> Response {
    let mut markdown_text = String::from("# mrtd documentation\n\n");
    for doc in DOCS {
        markdown_text
            .push_str(&format!("- [{}](/docs/{}): {}\n", doc.title, doc.name, doc.summary));
    }
    markdown_text.push_str("\nThe REST API's OpenAPI document is at /openapi.json; /llms.txt lists the same for agents.\n");
    let mut response = match negotiate::preferred(
        &headers,
        &["text/markdown", "text/html", "text/plain"],
    ) {
        Some("text/html") => {
            let items: String = DOCS
                .iter()
                .map(|doc| {
                    format!(
                        "<li><a href=\"/docs/{}\">{}</a>: {}</li>",
                        doc.name,
                        escape(doc.title),
                        escape(doc.summary)
                    )
                })
                .collect();
            let html = format!(
                "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
                 <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
                 <title>Documentation - mrtd</title><link rel=\"stylesheet\" href=\"/assets/style.css\">\
                 </head><body><main class=\"doc\"><p><a href=\"/\">mrtd</a></p>\
                 <h1>Documentation</h1><ul>{items}</ul><p>The REST API: \
                 <a href=\"/openapi.json\">OpenAPI document</a>.</p></main></body></html>\n"
            );
            ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response()
        }
        _ => markdown(markdown_text),
    };
    response.headers_mut().insert(header::VARY, HeaderValue::from_static("Accept"));
    response
}

/// A page or document path called with a method other than `GET`: say so in words.
pub(crate) async fn method_not_allowed() -> Response {
    let mut response =
        (StatusCode::METHOD_NOT_ALLOWED, "This address is only read, with GET.\n").into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    response
}

/// `text` with the characters HTML gives a meaning escaped.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// `GET /docs/{name}.md` always gives Markdown; `GET /docs/{name}` gives Markdown to
/// callers that accept it and a minimal page to browsers.
pub(crate) async fn serve(Path(name): Path<String>, headers: HeaderMap) -> Response {
    let (stem, explicit) = match name.strip_suffix(".md") {
        Some(stem) => (stem, true),
        None => (name.as_str(), false),
    };
    let Some(doc) = DOCS.iter().find(|d| d.name == stem) else {
        let mut response =
            (StatusCode::NOT_FOUND, "No such document; /llms.txt lists them.\n").into_response();
        response
            .headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
        return response;
    };
    let body = format!("{}\n", doc.body.trim_end());
    if explicit {
        return markdown(body);
    }
    let mut response =
        match negotiate::preferred(&headers, &["text/markdown", "text/html", "text/plain"]) {
            Some("text/html") => {
                // The docs are the product's own text, so their Markdown (and the anchors it
                // writes in HTML) is rendered as it is.
                let parser =
                    pulldown_cmark::Parser::new_ext(&body, pulldown_cmark::Options::ENABLE_TABLES);
                let mut rendered = String::new();
                pulldown_cmark::html::push_html(&mut rendered, parser);
                let html = format!(
                    "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
                     <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
                     <title>{} - mrtd</title><link rel=\"stylesheet\" href=\"/assets/style.css\">\
                     </head><body><main class=\"doc\"><p><a href=\"/\">mrtd</a> · \
                     <a href=\"/docs/{}.md\">Markdown</a></p>{rendered}</main></body></html>\n",
                    doc.title, doc.name
                );
                ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response()
            }
            _ => markdown(body),
        };
    response.headers_mut().insert(header::VARY, HeaderValue::from_static("Accept"));
    response
}
