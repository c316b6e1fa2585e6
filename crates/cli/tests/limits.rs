//! Per-caller limits through the real binary: callers without credentials are rate-limited
//! per client address.

mod support;

use std::net::SocketAddr;

use serde_json::json;
use support::{ServerProcess, client::MODERN, transport};

/// A `tools/list` from the client a proxy on loopback reports as `client`: its status.
fn list_from(addr: SocketAddr, client: &str) -> u16 {
    let list = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {
        "_meta": { "io.modelcontextprotocol/protocolVersion": MODERN,
                   "io.modelcontextprotocol/clientCapabilities": {} } } });
    let headers = [
        ("Mcp-Protocol-Version", MODERN.to_owned()),
        ("Mcp-Method", "tools/list".to_owned()),
        ("X-Forwarded-For", client.to_owned()),
    ];
    transport::post(addr, &headers, &list).status
}

#[test]
fn callers_without_credentials_are_rate_limited_per_client_address() {
    // No authentication: every caller is the same principal, and the limit is per address
    // (an IPv6 address's /64), here the one the trusted proxy (the test, on loopback)
    // reports.
    let server = ServerProcess::http(&[
        "--trusted-proxy",
        "127.0.0.0/8",
        "--rate-limit",
        "0.2",
        "--rate-burst",
        "5",
    ]);
    let addr = server.addr.unwrap();
    for (busy, same_prefix, other) in [
        ("203.0.113.7", "203.0.113.7", "203.0.113.8"),
        ("2001:db8:1:2::7", "2001:db8:1:2::8", "2001:db8:1:3::7"),
    ] {
        let statuses: Vec<u16> = (0..8).map(|_| list_from(addr, busy)).collect();
        assert_eq!(statuses[..5], [200; 5], "the burst is served: {statuses:?}");
        assert_eq!(statuses[5..], [429; 3], "then the client is limited: {statuses:?}");
        // Another client is not refused for the first one's burst; an address in the
        // same /64 is the same client.
        assert_eq!(list_from(addr, other), 200, "{other} beside {busy}");
        assert_eq!(list_from(addr, same_prefix), 429, "{same_prefix} beside {busy}");
    }
}
