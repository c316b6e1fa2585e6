//! The page, its assets, content negotiation on `/`, `/llms.txt` and the Markdown docs.

use crate::support;

use serde_json::Value;
use support::request;

const BROWSER: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

fn content_type(reply: &support::Reply) -> &str {
    reply.header("content-type").unwrap_or("").split(';').next().unwrap_or("")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_root_answers_each_reader_in_its_language() {
    let server = support::start().await;
    let addr = server.addr;

    let page = request(addr, "GET", "/", &[("Accept", BROWSER)], b"").await;
    assert_eq!(page.status, 200);
    assert_eq!(content_type(&page), "text/html");
    assert_eq!(page.header("vary"), Some("Accept, Accept-Language"));
    assert_eq!(page.header("content-language"), Some("en"));
    let policy = page.header("content-security-policy").expect("a content security policy");
    assert!(policy.contains("script-src 'self'") && policy.contains("connect-src 'self'"));
    let html = page.text();
    for needle in ["<label for=\"image\"", "type=\"file\"", "aria-live=\"polite\"", "lang=\"en\""] {
        assert!(html.contains(needle), "the page lacks {needle}");
    }
    assert!(!html.contains("{{"), "every placeholder is filled");
    assert!(!html.contains("https://cdn") && !html.contains("src=\"http"), "nothing external");

    let ld = json_ld(&html);
    let types: Vec<&str> =
        ld["@graph"].as_array().unwrap().iter().filter_map(|n| n["@type"].as_str()).collect();
    assert_eq!(types, ["WebAPI", "SoftwareApplication"]);
    assert_eq!(ld["@context"], "https://schema.org");
    assert_eq!(ld["@graph"][0]["documentation"], "/openapi.json");

    let json = request(addr, "GET", "/", &[("Accept", "application/json")], b"").await;
    assert_eq!(content_type(&json), "application/json");
    let discovery = json.json();
    assert_eq!(discovery["name"], "mrtd");
    assert_eq!(discovery["endpoint"], "/mcp");
    assert_eq!(discovery["stateless"], true);
    assert_eq!(discovery["protocolVersions"][0], "2026-07-28");
    assert_eq!(discovery["rest"]["openapi"], "/openapi.json");

    let markdown = request(addr, "GET", "/", &[("Accept", "text/markdown")], b"").await;
    assert_eq!(content_type(&markdown), "text/markdown");
    assert!(markdown.text().starts_with("# mrtd "), "{}", markdown.text());
    assert!(markdown.text().contains("POST /v1/scans"));

    for accept in [None, Some("*/*"), Some("image/png")] {
        let headers: Vec<(&str, &str)> = accept.iter().map(|a| ("Accept", *a)).collect();
        let plain = request(addr, "GET", "/", &headers, b"").await;
        assert_eq!(plain.status, 200);
        assert_eq!(content_type(&plain), "text/plain", "Accept {accept:?}");
        assert!(plain.text().contains("/mcp") && plain.text().len() < 400);
    }
}

/// The page speaks Brazilian Portuguese to browsers that prefer it, English otherwise, and
/// `?lang=` (its language switch) wins over the header.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_speaks_the_language_the_browser_prefers() {
    let server = support::start().await;
    let page = |path: &'static str, language: &'static str| {
        let addr = server.addr;
        async move {
            request(addr, "GET", path, &[("Accept", BROWSER), ("Accept-Language", language)], b"")
                .await
        }
    };
    let pt = page("/", "pt-BR,pt;q=0.9,en;q=0.8").await;
    assert_eq!(pt.header("content-language"), Some("pt-BR"));
    let html = pt.text();
    assert!(html.contains("<html lang=\"pt-BR\">"), "{}", &html[..200]);
    for words in [
        "Escolha uma foto do documento",
        "Tire uma foto com a câmera",
        "Ler o documento",
        "\"f_surname\":\"Sobrenome\"",
    ] {
        assert!(html.contains(words), "the Portuguese page lacks {words}");
    }
    assert!(!html.contains("{{"), "every placeholder is filled");
    // The messages for the script are JSON inside a script element: no `<` may end it early.
    let marker = "id=\"messages\">";
    let start = html.find(marker).expect("the messages") + marker.len();
    let end = start + html[start..].find("</script>").expect("the end of the messages");
    let messages: Value = serde_json::from_str(&html[start..end]).expect("the messages are JSON");
    assert_eq!(messages["d_glare"].as_str().map(|t| t.contains("reflexo")), Some(true));

    let en = page("/", "de-DE,en;q=0.7").await;
    assert_eq!(en.header("content-language"), Some("en"));
    assert!(en.text().contains("Choose a photo of the document"));
    let switched = page("/?lang=en", "pt-BR").await;
    assert_eq!(switched.header("content-language"), Some("en"));
    let switched = page("/?lang=pt-BR", "en").await;
    assert_eq!(switched.header("content-language"), Some("pt-BR"));
}

/// The JSON-LD block of the page.
fn json_ld(html: &str) -> Value {
    let start = html.find("<script type=\"application/ld+json\">").expect("a JSON-LD block");
    let rest = &html[start..];
    let open = rest.find('>').unwrap() + 1;
    let close = rest.find("</script>").unwrap();
    serde_json::from_str(&rest[open..close]).expect("the JSON-LD parses")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_assets_the_page_links_are_served_with_validators() {
    let server = support::start().await;
    let addr = server.addr;
    let html = request(addr, "GET", "/", &[("Accept", BROWSER)], b"").await.text();
    let mut linked = Vec::new();
    for marker in ["src=\"/assets/", "href=\"/assets/"] {
        for (at, _) in html.match_indices(marker) {
            let from = at + marker.len() - "/assets/".len();
            let end = html[from..].find('"').unwrap();
            linked.push(html[from..from + end].to_owned());
        }
    }
    linked.sort();
    assert_eq!(linked.len(), 3, "script, style sheet and icon: {linked:?}");
    for path in &linked {
        let reply = request(addr, "GET", path, &[], b"").await;
        assert_eq!(reply.status, 200, "{path}");
        let cache = reply.header("cache-control").unwrap_or("");
        assert!(cache.contains("max-age"), "{path}: {cache}");
        let etag = reply.header("etag").expect("an ETag").to_owned();
        let expected = match path.split('?').next().unwrap().rsplit('.').next() {
            Some("js") => "text/javascript",
            Some("css") => "text/css",
            _ => "image/svg+xml",
        };
        assert_eq!(content_type(&reply), expected, "{path}");
        let again = request(addr, "GET", path, &[("If-None-Match", &etag)], b"").await;
        assert_eq!(again.status, 304, "{path}");
        assert!(again.bytes.is_empty());
    }
    let script = request(addr, "GET", "/assets/app.js", &[], b"").await.text();
    assert!(script.contains("modelContext") && script.contains("registerTool"), "WebMCP");
    assert!(script.contains("X-Api-Key") && script.contains("sessionStorage"));
    let missing = request(addr, "GET", "/assets/nothing.js", &[], b"").await;
    assert_eq!(missing.status, 404);

    // The "Try a sample" button reads the Utopia specimen the server itself serves.
    assert!(html.contains("id=\"sample-button\""), "the page offers a sample");
    assert!(script.contains("\"/assets/specimen-uto.jpg\""), "the script reads the sample");
    let sample = request(addr, "GET", "/assets/specimen-uto.jpg", &[], b"").await;
    assert_eq!(sample.status, 200);
    assert_eq!(content_type(&sample), "image/jpeg");
    assert_eq!(sample.bytes, support::image("100_pass-uto.jpg"), "a copy of the specimen");
}

/// The messages the page gives its script, for a language.
async fn messages(addr: std::net::SocketAddr, lang: &str) -> Value {
    let path = format!("/?lang={lang}");
    let html = request(addr, "GET", &path, &[("Accept", BROWSER)], b"").await.text();
    let marker = "id=\"messages\">";
    let start = html.find(marker).expect("the messages") + marker.len();
    let end = start + html[start..].find("</script>").expect("the end of the messages");
    serde_json::from_str(&html[start..end]).expect("the messages are JSON")
}

/// The script's table from ICAO alpha-3 codes to the alpha-2 ones the browser names:
/// every ISO 3166 code the MRZ parser knows, and nothing else; ICAO 9303's own codes, the
/// specimen and withdrawn codes are named by the page's words in both languages.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_can_name_every_code_the_parser_knows() {
    use mrtd_mrz::{CodeKind, classify_code};

    let script = include_str!("../../assets/app.js");
    let start = script.find("const ALPHA2 = Object.fromEntries([").expect("the table");
    let end = start + script[start..].find("].join(").expect("the end of the table");
    let mut table = std::collections::BTreeMap::new();
    for piece in script[start..end].split('"').skip(1).step_by(2) {
        for pair in piece.split_whitespace() {
            let (alpha3, alpha2) = pair.split_once(':').expect("alpha3:alpha2");
            assert!(alpha2.len() == 2 && alpha2.bytes().all(|b| b.is_ascii_uppercase()), "{pair}");
            assert!(table.insert(alpha3.to_owned(), alpha2.to_owned()).is_none(), "{alpha3} twice");
        }
    }
    let mut alpha2s: Vec<&String> = table.values().collect();
    alpha2s.sort();
    alpha2s.dedup();
    assert_eq!(alpha2s.len(), table.len(), "two codes share an alpha-2 code");

    let server = support::start().await;
    let english = messages(server.addr, "en").await;
    let portuguese = messages(server.addr, "pt-BR").await;
    let letters = b'A'..=b'Z';
    let singles = letters.clone().map(|a| (a as char).to_string());
    let triples = letters.clone().flat_map(|a| {
        let letters = letters.clone();
        letters.clone().flat_map(move |b| letters.clone().map(move |c| [a, b, c]))
    });
    let codes = singles.chain(triples.map(|t| String::from_utf8(t.to_vec()).unwrap()));
    let mut n_iso = 0;
    for code in codes {
        match classify_code(&code).kind {
            CodeKind::Iso3166 => {
                n_iso += 1;
                assert!(table.contains_key(&code), "the page cannot name {code}");
            }
            CodeKind::Unknown => assert!(!table.contains_key(&code), "{code} is no country"),
            _ => {
                let key = format!("cc_{code}");
                assert!(english[&key].is_string(), "no English name for {code}");
                assert!(portuguese[&key].is_string(), "no Portuguese name for {code}");
            }
        }
    }
    assert_eq!(n_iso, table.len());
    assert_eq!(english["cc_UTO"], "Utopia");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn llms_txt_links_every_doc_and_every_link_resolves() {
    let server = support::start().await;
    let addr = server.addr;
    let reply = request(addr, "GET", "/llms.txt", &[], b"").await;
    assert_eq!(reply.status, 200);
    let text = reply.text();
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    assert_eq!(lines.next(), Some("# mrtd"), "an H1 first");
    assert!(lines.next().is_some_and(|l| l.starts_with("> ")), "then a blockquote summary");
    assert!(text.contains("\n## Docs\n") && text.contains("\n## Optional\n"));
    let links: Vec<&str> = text
        .match_indices("](")
        .map(|(at, _)| {
            let rest = &text[at + 2..];
            &rest[..rest.find(')').unwrap()]
        })
        .collect();
    assert!(links.len() >= 10, "{links:?}");
    for link in links {
        let accept = if link == "/" { "text/markdown" } else { "*/*" };
        let target = request(addr, "GET", link, &[("Accept", accept)], b"").await;
        assert_eq!(target.status, 200, "{link}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn docs_are_markdown_the_same_as_the_tools_publish() {
    let server = support::start().await;
    let addr = server.addr;
    let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../service/docs");
    let scan = request(addr, "GET", "/docs/scan_document.md", &[], b"").await;
    assert_eq!(content_type(&scan), "text/markdown");
    let published = std::fs::read_to_string(docs.join("tools/scan_document.md")).unwrap();
    assert_eq!(scan.text().trim_end(), published.trim_end());
    let guide = request(addr, "GET", "/docs/photo-guide.md", &[], b"").await;
    let published = std::fs::read_to_string(docs.join("resources/photo-guide.md")).unwrap();
    assert_eq!(guide.text().trim_end(), published.trim_end());

    let rest = request(addr, "GET", "/docs/rest", &[("Accept", "text/markdown")], b"").await;
    assert_eq!(content_type(&rest), "text/markdown");
    assert!(rest.text().starts_with("# mrtd REST API"));
    let browser = request(addr, "GET", "/docs/rest", &[("Accept", BROWSER)], b"").await;
    assert_eq!(content_type(&browser), "text/html");
    assert!(browser.text().contains("POST /v1/scans"));
    // A browser gets the Markdown rendered: headings and tables, not the source in a <pre>.
    assert!(browser.text().contains("<h1>mrtd REST API"), "{}", browser.text());
    assert!(browser.text().contains("<table>") && !browser.text().contains("<pre># mrtd"));
    // /docs lists every document, as a page or as Markdown.
    let index = request(addr, "GET", "/docs", &[("Accept", BROWSER)], b"").await;
    assert_eq!(index.status, 200);
    assert_eq!(content_type(&index), "text/html");
    assert!(
        index.text().contains("href=\"/docs/rest\"")
            && index.text().contains("href=\"/docs/scan_document\"")
    );
    let index = request(addr, "GET", "/docs/", &[("Accept", "text/markdown")], b"").await;
    assert_eq!(content_type(&index), "text/markdown");
    assert!(index.text().contains("](/docs/verify_chip)"), "{}", index.text());
    // A page read with another method says so in words.
    let posted = request(addr, "POST", "/docs/rest.md", &[], b"").await;
    assert_eq!(posted.status, 405);
    assert!(posted.text().contains("GET"), "{}", posted.text());
    let missing = request(addr, "GET", "/docs/nothing.md", &[], b"").await;
    assert_eq!(missing.status, 404);
    let escape = request(addr, "GET", "/docs/..%2FCargo.toml", &[], b"").await;
    assert_eq!(escape.status, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openapi_document_is_whole() {
    let server = support::start().await;
    let api = support::OpenApi::fetch(server.addr).await;
    let document = api.document();
    let mut operations = Vec::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            if method == "parameters" {
                continue;
            }
            operations.push(operation["operationId"].as_str().unwrap().to_owned());
            for (status, response) in operation["responses"].as_object().unwrap() {
                // Every response schema compiles with its references resolved.
                let pointer = match response["$ref"].as_str() {
                    Some(target) => format!("{target}/content/application~1json/schema"),
                    None => format!(
                        "#/paths/{}/{method}/responses/{status}/content/application~1json/schema",
                        support::pointer_token(path)
                    ),
                };
                let plain = pointer.trim_start_matches('#').replace("%7B", "{").replace("%7D", "}");
                let has_body = document.pointer(&plain).is_some();
                if has_body && !status.starts_with('2') {
                    let example =
                        serde_json::json!({ "error": { "code": "not_found", "message": "m" } });
                    api.validate(&pointer, &example, &format!("{method} {path} {status}"));
                }
            }
        }
    }
    operations.sort();
    assert_eq!(
        operations,
        [
            "check_document",
            "delete_scan",
            "get_scan",
            "get_scan_portrait",
            "list_scans",
            "parse_mrz",
            "scan_document",
            "verify_chip"
        ]
    );
    // The checker is not blind: wrong bodies fail.
    let error = "#/components/schemas/Error";
    assert!(
        !api.errors(error, &serde_json::json!({ "error": { "code": "not_found" } })).is_empty()
    );
    let result = "#/components/schemas/DocumentResult";
    assert!(!api.errors(result, &serde_json::json!({ "status": "read" })).is_empty());
    assert!(!api.errors(result, &serde_json::json!({ "status": "maybe", "format": null, "valid": true, "lines": [], "fields": null, "checks": [], "corrections": [], "diagnostics": [] })).is_empty());
    let list = "#/paths/~1v1~1scans/get/responses/200/content/application~1json/schema";
    assert!(
        !api.errors(list, &serde_json::json!({ "scans": [{}], "next_cursor": null })).is_empty()
    );
    // Each of the three statuses, and only they, on a result without a reading.
    for status in ["read", "partial", "no_mrz"] {
        let verdict = serde_json::json!({ "headline": status, "safe_to_use": false, "check_digits": "none", "refuted": [], "expiry": "unknown", "summary": "" });
        let empty = serde_json::json!({ "status": status, "verdict": verdict, "format": null, "valid": false, "lines": [], "fields": null, "checks": [], "corrections": [], "warnings": [], "diagnostics": [] });
        assert_eq!(api.errors(result, &empty), Vec::<String>::new(), "{status}");
    }
}
