//! What `mrtd serve` prints when it starts: where it listens and how to connect clients.
//!
//! The notice goes to stderr like the logs; stdout stays free for the protocol in stdio
//! mode. With JSON logs it is one `info` log event instead, so a log collector sees only
//! JSON (and a `RUST_LOG` above `info` filters it like any other event).

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
    let desktop = json!({"mcpServers": {"mrtd": {"command": exe, "args": ["serve", "--stdio"]}}});
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

/// Prints the notice: as text, or as one log event when logs are JSON.
pub(crate) fn announce(endpoint: &Endpoint<'_>, json_logs: bool) {
    if json_logs {
        tracing::info!(
            url = %endpoint.mcp_url(),
            web = %endpoint.web_url(),
            "serving MCP at {}",
            endpoint.mcp_url()
        );
    } else {
        eprintln!("{}", notice(endpoint));
    }
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
}
