//! The catalogue: each malformed or hostile request, and what it must get.

use super::*;

pub(crate) fn nested(depth: usize, open: &str, close: &str, inner: &str) -> String {
    format!("{}{inner}{}", open.repeat(depth), close.repeat(depth))
}

// A table of cases, one entry after another: long by nature, and read as a table.
#[allow(clippy::too_many_lines)]
pub(crate) fn catalogue(expired: &str, foreign: &str) -> Vec<Case> {
    use Expect::{Fine, Http, Rpc, Tool};
    let passport = std::fs::read(image_path(PASSPORT)).unwrap();
    let big = BODY_LIMIT_MIB * 1024 * 1024;
    let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#;
    vec![
        // Framing and JSON syntax.
        case("empty body", body(""), 400, Rpc(-32700)),
        case("whitespace only", body("  \n\t "), 400, Rpc(-32700)),
        case(
            "truncated object",
            body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/li"#),
            400,
            Rpc(-32700),
        ),
        case(
            "truncated inside arguments",
            body(
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"parse_mrz","arguments":{"lines":["P<UTO"#,
            ),
            400,
            Rpc(-32700),
        ),
        case("trailing garbage", body(format!("{list}xyz")), 400, Rpc(-32700)),
        case("two messages in one body", body(format!("{list}{list}")), 400, Rpc(-32700)),
        case(
            "invalid UTF-8",
            body(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\xfe\"}".to_vec()),
            400,
            Rpc(-32700),
        ),
        case(
            "invalid UTF-8 in a member nothing reads",
            body(
                b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{},\"x\":\"\xff\"}"
                    .to_vec(),
            ),
            400,
            Rpc(-32700),
        ),
        case(
            "invalid UTF-8 in params metadata",
            body(
                b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"x\":\"\xc3\x28\"}}}"
                    .to_vec(),
            ),
            400,
            Rpc(-32700),
        ),
        case(
            "byte order mark",
            body([b"\xef\xbb\xbf".as_slice(), list.as_bytes()].concat()),
            400,
            Rpc(-32700),
        ),
        case(
            "single quotes",
            body("{'jsonrpc':'2.0','id':1,'method':'tools/list'}"),
            400,
            Rpc(-32700),
        ),
        case(
            "NaN literal",
            body(r#"{"jsonrpc":"2.0","id":NaN,"method":"tools/list"}"#),
            400,
            Rpc(-32700),
        ),
        case("100000 nested arrays", body(nested(100_000, "[", "]", "")), 400, Rpc(-32700)),
        // Deeper than the protocol layer's recursion limit: an invalid request.
        case(
            "100000 nested objects in params",
            body(format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}}"#,
                nested(100_000, r#"{"a":"#, "}", "1")
            )),
            400,
            Rpc(-32600),
        ),
        // JSON that is not a JSON-RPC message.
        case("a bare string", body(r#""tools/list""#), 400, Rpc(-32600)),
        case("null", body("null"), 400, Rpc(-32600)),
        case("a number", body("42"), 400, Rpc(-32600)),
        case("empty batch", body("[]"), 400, Rpc(-32600)),
        case("batch under 2026-07-28", body(format!("[{list}]")), 400, Rpc(-32600)),
        // A JSON-RPC message the protocol layer cannot read is an invalid request.
        case(
            "jsonrpc 1.0",
            body(r#"{"jsonrpc":"1.0","id":1,"method":"tools/list","params":{}}"#),
            400,
            Rpc(-32600),
        ),
        case(
            "no jsonrpc member",
            body(r#"{"id":1,"method":"tools/list","params":{}}"#),
            400,
            Rpc(-32600),
        ),
        case(
            "id is an object",
            body(r#"{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list","params":{}}"#),
            400,
            Rpc(-32600),
        ),
        case(
            "method is a number",
            body(r#"{"jsonrpc":"2.0","id":1,"method":7}"#),
            400,
            Rpc(-32600),
        ),
        case("unknown method", rpc("documents/steal", json!({})), 404, Rpc(-32601)),
        case(
            "params is an array",
            body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":["scan_document"]}"#),
            400,
            Rpc(-32600),
        ),
        // tools/call params the protocol layer cannot read are invalid params, like an
        // unknown tool (the protocol layer alone calls them an unknown method).
        case(
            "tools/call without a name",
            rpc("tools/call", json!({ "arguments": {} })),
            200,
            Rpc(-32602),
        ),
        case("tool name is a number", rpc("tools/call", json!({ "name": 5 })), 200, Rpc(-32602)),
        case(
            "arguments is a string",
            rpc("tools/call", json!({ "name": "parse_mrz", "arguments": "lines" })),
            200,
            Rpc(-32602),
        ),
        case("prompts/get without a name", rpc("prompts/get", json!({})), 200, Rpc(-32602)),
        case("resources/read without a uri", rpc("resources/read", json!({})), 200, Rpc(-32602)),
        case("unknown tool", tool("format_disk", json!({})), 200, Rpc(-32602)),
        case("10 KB tool name", tool(&"x".repeat(10_000), json!({})), 200, Rpc(-32602)),
        case(
            "forged requestState",
            rpc(
                "tools/call",
                json!({ "name": "scan_document", "arguments": {}, "requestState": "eyJmb3JnZWQiOnRydWV9" }),
            ),
            200,
            Rpc(-32602),
        ),
        case(
            "prompt that does not exist",
            rpc("prompts/get", json!({ "name": "exfiltrate" })),
            200,
            Rpc(-32602),
        ),
        case(
            "resource outside mrtd://",
            rpc("resources/read", json!({ "uri": "file:///etc/passwd" })),
            200,
            Rpc(-32602),
        ),
        // Wrong argument types and values.
        case(
            "image_base64 is a number",
            tool("scan_document", json!({ "image_base64": 12 })),
            200,
            Tool("'image_base64' must be a string, not 12"),
        ),
        case(
            "retain_hours is text",
            tool("scan_document", json!({ "image_base64": "AA==", "retain_hours": "five" })),
            200,
            Tool("'retain_hours' must be a whole number, not a string"),
        ),
        case(
            "retain_hours negative",
            tool("scan_document", json!({ "image_base64": "AA==", "retain_hours": -1 })),
            200,
            Tool("whole number from 0 to 8760"),
        ),
        case(
            "retain_hours 1e300",
            tool("scan_document", json!({ "image_base64": "AA==", "retain_hours": 1e300 })),
            200,
            Tool("'retain_hours' must be a whole number, not 1e+300"),
        ),
        case(
            "reference_date nonsense",
            tool("parse_mrz", json!({ "lines": ["x"], "reference_date": "2024-13-45" })),
            200,
            Tool("'2024-13-45' is not a date"),
        ),
        case(
            "unknown argument",
            tool("scan_document", json!({ "image_uri": "https://example.com/a.jpg" })),
            200,
            Tool("unknown argument 'image_uri'; the known ones are image_base64, image_url"),
        ),
        case(
            "image_url to the cloud metadata address",
            tool("scan_document", json!({ "image_url": "https://169.254.169.254/latest/" })),
            200,
            Tool("private, loopback, link-local or reserved"),
        ),
        case(
            "image_url over plain http",
            tool("scan_document", json!({ "image_url": "http://example.com/a.jpg" })),
            200,
            Tool("only https"),
        ),
        case(
            "both image sources",
            tool("scan_document", json!({ "image_base64": "AA==", "image_path": "passport.jpg" })),
            200,
            Tool("exactly one of"),
        ),
        case("no image at all", tool("scan_document", json!({})), 200, Tool("give the image")),
        case(
            "lines is a string",
            tool("parse_mrz", json!({ "lines": "P<UTO" })),
            200,
            Tool("'lines' must be a list, not a string"),
        ),
        case(
            "lines holds numbers",
            tool("parse_mrz", json!({ "lines": [1, 2] })),
            200,
            Tool("'lines[0]' must be a string, not 1"),
        ),
        case(
            "huge MRZ line",
            tool("parse_mrz", json!({ "lines": ["<".repeat(1_000_000)] })),
            200,
            Tool("far longer than any MRZ"),
        ),
        case(
            "list limit out of range",
            tool("list_scans", json!({ "limit": 1_000_000 })),
            200,
            Tool("'limit' must be a whole number from 1 to 100"),
        ),
        case(
            "forged list cursor",
            tool("list_scans", json!({ "cursor": "../../etc/passwd" })),
            200,
            Tool("cursor is not valid"),
        ),
        // Image payloads.
        case(
            "invalid base64",
            tool("scan_document", json!({ "image_base64": "!!!not base64!!!" })),
            200,
            Tool("not valid base64"),
        ),
        case(
            "empty image",
            tool("scan_document", json!({ "image_base64": "" })),
            200,
            Tool("could not be used"),
        ),
        case(
            "text, not an image",
            scan_bytes(b"Dear Sir, please find my passport attached."),
            200,
            Tool("unsupported or unrecognised image format"),
        ),
        case(
            "ELF executable",
            scan_bytes(b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0"),
            200,
            Tool("unsupported or unrecognised image format"),
        ),
        // The JPEG decoder keeps what it could read; the top of a photo holds no MRZ: a
        // result that says so, not a failed call.
        case("truncated JPEG", scan_bytes(&passport[..passport.len() / 3]), 200, Fine),
        case(
            "1.5 MiB of base64 zeros",
            tool("scan_document", json!({ "image_base64": "A".repeat(1_500_000) })),
            200,
            Tool("unsupported or unrecognised image format"),
        ),
        case(
            "PNG header of 100000 x 100000",
            scan_bytes(&png_header_only(100_000, 100_000, 8, 0)),
            200,
            Tool("pixels"),
        ),
        case(
            "PNG header of 6000 x 6000 RGBA16, no data",
            scan_bytes(&png_header_only(6_000, 6_000, 16, 6)),
            200,
            Tool("could not be decoded"),
        ),
        case(
            "PNG header of 0 x 0",
            scan_bytes(&png_header_only(0, 0, 8, 0)),
            200,
            Tool("could not be used"),
        ),
        case(
            "compressed PNG bomb of 7000 x 7000",
            scan_bytes(&png_bomb(7_000, 7_000)),
            200,
            Tool("pixels"),
        ),
        // Paths out of the image directory.
        case(
            "parent directory",
            tool("scan_document", json!({ "image_path": "../secret.txt" })),
            200,
            Tool(PATH_REFUSED),
        ),
        case(
            "absolute path",
            tool("scan_document", json!({ "image_path": "/etc/passwd" })),
            200,
            Tool(PATH_REFUSED),
        ),
        case(
            "traversal through a subdirectory",
            tool("scan_document", json!({ "image_path": "sub/../../secret.txt" })),
            200,
            Tool(PATH_REFUSED),
        ),
        case(
            "symlink to a file outside",
            tool("scan_document", json!({ "image_path": "link.jpg" })),
            200,
            Tool(PATH_REFUSED),
        ),
        case(
            "symlinked directory outside",
            tool("scan_document", json!({ "image_path": "up/secret.txt" })),
            200,
            Tool(PATH_REFUSED),
        ),
        case(
            "a directory",
            tool("scan_document", json!({ "image_path": "sub" })),
            200,
            Tool(PATH_REFUSED),
        ),
        case(
            "encoded traversal",
            tool("scan_document", json!({ "image_path": "..%2Fsecret.txt" })),
            200,
            Tool(PATH_REFUSED),
        ),
        case(
            "NUL in the path",
            tool("scan_document", json!({ "image_path": "passport.jpg\u{0}.png" })),
            200,
            Tool(PATH_REFUSED),
        ),
        // Scan ids.
        case(
            "unknown scan id",
            tool("get_scan", json!({ "scan_id": "scn_00000000000000000000000000" })),
            200,
            Tool(NOT_FOUND),
        ),
        case(
            "SQL in a scan id",
            tool("get_scan", json!({ "scan_id": "x' OR '1'='1" })),
            200,
            Tool(NOT_FOUND),
        ),
        case(
            "10 KB scan id",
            tool("delete_scan", json!({ "scan_id": "9".repeat(10_000) })),
            200,
            Tool(NOT_FOUND),
        ),
        case(
            "scan id is a number",
            tool("get_scan", json!({ "scan_id": 42 })),
            200,
            Tool("'scan_id' must be a string, not 42"),
        ),
        case(
            "expired scan id",
            tool("get_scan", json!({ "scan_id": expired })),
            200,
            Tool(NOT_FOUND),
        ),
        case(
            "another caller's scan",
            tool("get_scan", json!({ "scan_id": foreign })),
            200,
            Tool(NOT_FOUND),
        ),
        case(
            "deleting another caller's scan",
            tool("delete_scan", json!({ "scan_id": foreign })),
            200,
            Tool(NOT_FOUND),
        ),
        case(
            "another caller's scan as a resource",
            rpc("resources/read", json!({ "uri": format!("mrtd://scans/{foreign}") })),
            200,
            Rpc(-32602),
        ),
        // Header values.
        case(
            "Content-Type text/plain",
            rpc("tools/list", json!({})).with("Content-Type", "text/plain"),
            415,
            Rpc(-32600),
        ),
        case(
            "no Content-Type",
            rpc("tools/list", json!({})).without("Content-Type"),
            415,
            Rpc(-32600),
        ),
        case(
            "Accept text/html",
            rpc("tools/list", json!({})).with("Accept", "text/html"),
            406,
            Rpc(-32600),
        ),
        case(
            "unknown MCP-Protocol-Version",
            rpc("tools/list", json!({})).with("MCP-Protocol-Version", "1999-01-01"),
            400,
            Rpc(-32020),
        ),
        case(
            "MCP-Protocol-Version against _meta",
            rpc("tools/list", json!({})).with("MCP-Protocol-Version", "2025-06-18"),
            400,
            Rpc(-32020),
        ),
        case(
            "Mcp-Method against the body",
            rpc("tools/list", json!({})).with("Mcp-Method", "tools/call"),
            400,
            Rpc(-32020),
        ),
        case(
            "Mcp-Name against the body",
            tool("parse_mrz", json!({ "lines": ["x"] })).with("Mcp-Name", "delete_scan"),
            400,
            Rpc(-32020),
        ),
        case(
            "foreign Origin",
            rpc("tools/list", json!({})).with("Origin", "https://evil.example"),
            403,
            Rpc(-32600),
        ),
        case("Origin null", rpc("tools/list", json!({})).with("Origin", "null"), 403, Rpc(-32600)),
        case(
            "foreign Host (DNS rebinding)",
            rpc("tools/list", json!({})).with("Host", "evil.example"),
            403,
            Rpc(-32600),
        ),
        case("GET on the endpoint", rpc("tools/list", json!({})).method("GET"), 405, Rpc(-32600)),
        case("PUT on the endpoint", rpc("tools/list", json!({})).method("PUT"), 405, Rpc(-32600)),
        case(
            "a session id nobody issued",
            rpc("tools/list", json!({})).with("Mcp-Session-Id", "../../admin"),
            200,
            Fine,
        ),
        // Sizes and lengths.
        case(
            "declared length over the limit",
            Raw {
                content_length: Some((big * 4).to_string()),
                send_only: Some(0),
                ..rpc("tools/list", json!({}))
            },
            413,
            Rpc(-32600),
        ),
        case(
            "body over the limit",
            tool("parse_mrz", json!({ "lines": ["A".repeat(big + 1024)] })),
            413,
            Rpc(-32600),
        ),
        case(
            "body shorter than declared",
            Raw {
                content_length: Some("500".into()),
                send_only: Some(20),
                ..rpc("tools/list", json!({}))
            },
            400,
            Rpc(-32600),
        ),
        case(
            "512 KiB header",
            rpc("tools/list", json!({})).with("X-Filler", &"f".repeat(512 * 1024)),
            431,
            Http,
        ),
        case(
            "malformed Content-Length",
            Raw { content_length: Some("12abc".into()), ..rpc("tools/list", json!({})) },
            400,
            Http,
        ),
    ]
}
