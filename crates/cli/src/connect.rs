//! What `mrtd serve` prints when it starts: where it listens and how to connect clients.
//!
//! The notice goes to stderr like the logs; stdout stays free for the protocol in stdio
//! mode. With JSON logs it is one JSON line shaped like the log events instead, so a log
//! collector sees only JSON. Like the text, it is printed whatever `RUST_LOG` filters:
//! whoever starts the server needs to know where it is.

use std::net::SocketAddr;

use serde_json::json;

/// How the server is reached.
pub(crate) struct Endpoint<'a> {
    /// The address the listener is bound to.
    pub address: SocketAddr,
    /// `--public-url`, when set: the MCP URL clients use.
    pub public_url: Option<&'a str>,
    /// A host name from `--allowed-host`, used when the address is a wildcard.
    pub allowed_host: Option<&'a str>,
    /// Whether callers need an API key or a token.
    pub needs_credentials: bool,
}

impl Endpoint<'_> {
    /// The MCP endpoint's URL.
    pub(crate) fn mcp_url(&self) -> String {
        if let Some(url) = self.public_url {
            return url.to_owned();
        }
        let host = if self.address.ip().is_unspecified() {
            let name = self.allowed_host.unwrap_or("127.0.0.1");
            format!("{name}:{}", self.address.port())
        } else {
            self.address.to_string()
        };
        format!("http://{host}/mcp")
    }

    /// The web page's URL: the MCP URL without its `/mcp`.
    pub(crate) fn web_url(&self) -> String {
        let url = self.mcp_url();
        let base = url.strip_suffix("/mcp").unwrap_or(&url);
        format!("{base}/")
    }
}

/// The notice printed once the listener is bound.
pub(crate) fn notice(endpoint: &Endpoint<'_>) -> String {
    let url = endpoint.mcp_url();
    let exe = std::env::current_exe()
        .ok()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "mrtd".to_owned());
    let vscode = json!({"servers": {"mrtd": {"type": "http", "url": url}}});
    // Written by hand so that `command` comes before `args`, as people write it.
    let desktop = format!(
        r#"{{"mcpServers":{{"mrtd":{{"command":{},"args":["serve","--stdio"]}}}}}}"#,
        json!(exe)
    );
    let mut text = format!(
        "mrtd {version} serving MCP at {url}\n\
         Web page and REST API: {web}\n\
         Connect a client:\n\
         \x20 VS Code (.vscode/mcp.json):\n\
         \x20   {vscode}\n\
         \x20 Claude Code:\n\
         \x20   claude mcp add --transport http mrtd {url}\n\
         \x20 Claude Desktop (claude_desktop_config.json; it starts mrtd itself over stdio):\n\
         \x20   {desktop}\n\
         \x20 MCP Inspector:\n\
         \x20   npx @modelcontextprotocol/inspector, transport Streamable HTTP, URL {url}\n",
        version = env!("CARGO_PKG_VERSION"),
        web = endpoint.web_url(),
    );
    if endpoint.needs_credentials {
        text.push_str(
            "  Send credentials as `Authorization: Bearer KEY` (VS Code: add \
             \"headers\": {\"Authorization\": \"Bearer ${input:mrtd-key}\"}).\n",
        );
    }
    text.push_str("Stop with Ctrl-C.");
    text
}

/// Prints the notice: as text, or as one JSON log line when logs are JSON.
pub(crate) fn announce(endpoint: &Endpoint<'_>, json_logs: bool) {
    if json_logs {
        eprintln!("{}", json_notice(endpoint, std::time::SystemTime::now()));
    } else {
        eprintln!("{}", notice(endpoint));
    }
}

/// The notice as a line in the layout of the JSON log events (`timestamp`, `level`,
/// `fields`, `target`).
fn json_notice(endpoint: &Endpoint<'_>, now: std::time::SystemTime) -> serde_json::Value {
    let url = endpoint.mcp_url();
    json!({
        "timestamp": rfc3339(now),
        "level": "INFO",
        "fields": {
            "message": format!("serving MCP at {url}"),
            "url": url,
            "web": endpoint.web_url(),
        },
        "target": module_path!(),
    })
}

/// A time as `YYYY-MM-DDTHH:MM:SS.ffffffZ` (UTC), as the log events write it.
fn rfc3339(time: std::time::SystemTime) -> String {
    humantime::format_rfc3339_micros(time).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn endpoint(address: &str) -> Endpoint<'static> {
        Endpoint {
            address: address.parse().unwrap(),
            public_url: None,
            allowed_host: None,
            needs_credentials: false,
        }
    }

    #[test]
    fn a_wildcard_address_is_shown_with_a_name_clients_can_use() {
        let mut wildcard = endpoint("0.0.0.0:9000");
        assert_eq!(wildcard.mcp_url(), "http://127.0.0.1:9000/mcp");
        wildcard.allowed_host = Some("mrtd.internal");
        assert_eq!(wildcard.mcp_url(), "http://mrtd.internal:9000/mcp");
        assert_eq!(wildcard.web_url(), "http://mrtd.internal:9000/");
    }

    #[test]
    fn the_json_notice_is_dated_like_the_log_events() {
        let at = std::time::UNIX_EPOCH + std::time::Duration::from_micros(1_795_974_487_986_716);
        let line = json_notice(&endpoint("127.0.0.1:8080"), at);
        assert_eq!(line["timestamp"], "2026-11-29T17:48:07.986716Z");
        assert_eq!(line["fields"]["url"], "http://127.0.0.1:8080/mcp");
        assert_eq!(line["fields"]["message"], "serving MCP at http://127.0.0.1:8080/mcp");
        let leap = std::time::UNIX_EPOCH + std::time::Duration::from_secs(951_782_400);
        assert_eq!(rfc3339(leap), "2000-02-29T00:00:00.000000Z");
    }

    #[test]
    fn the_public_url_wins() {
        let mut public = endpoint("10.0.0.5:8080");
        public.public_url = Some("https://mrtd.example.com/mcp");
        assert_eq!(public.mcp_url(), "https://mrtd.example.com/mcp");
        assert_eq!(public.web_url(), "https://mrtd.example.com/");
    }

    #[test]
    fn the_notice_has_ready_to_paste_client_configuration() {
        let text = notice(&endpoint("127.0.0.1:8080"));
        assert!(text.starts_with("mrtd "));
        assert!(text.lines().next().unwrap().ends_with("serving MCP at http://127.0.0.1:8080/mcp"));
        let vscode = text.lines().find(|l| l.trim_start().starts_with("{\"servers\"")).unwrap();
        let parsed: serde_json::Value = serde_json::from_str(vscode.trim()).unwrap();
        assert_eq!(parsed["servers"]["mrtd"]["url"], "http://127.0.0.1:8080/mcp");
        let desktop = text.lines().find(|l| l.trim_start().starts_with("{\"mcpServers\"")).unwrap();
        let parsed: serde_json::Value = serde_json::from_str(desktop.trim()).unwrap();
        assert_eq!(parsed["mcpServers"]["mrtd"]["args"], json!(["serve", "--stdio"]));
        assert!(!text.contains("Bearer"));
    }

    #[test]
    fn log_times_are_utc_with_microseconds() {
        let time = std::time::UNIX_EPOCH + std::time::Duration::from_micros(1_796_086_923_000_042);
        assert_eq!(rfc3339(time), "2026-12-01T01:02:03.000042Z");
        assert_eq!(rfc3339(std::time::UNIX_EPOCH), "1970-01-01T00:00:00.000000Z");
    }
}
