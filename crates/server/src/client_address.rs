//! The client's address: the peer's, or, when the peer is a proxy the operator trusts, the
//! address that proxy reports in `X-Forwarded-For` or `Forwarded`.
//!
//! Behind a proxy every connection comes from the proxy, so the failed-login throttle, the
//! access log and anything else counted per client would lump all clients together. The
//! proxy says who its client was; a header is believed only from a peer inside a
//! `--trusted-proxy` network, and only as far as the chain of trusted hops reaches: the
//! hops are read from the right (the one the nearest proxy appended) and the first one
//! outside the trusted networks is the client. Whatever a client wrote to the left of that
//! is its own claim and is ignored.

use std::net::IpAddr;

use http::{HeaderMap, HeaderName};
use ipnet::IpNet;

/// The address a request is counted and logged under, in its extensions: the peer's, or
/// the client a trusted proxy reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddress(pub IpAddr);

/// The networks whose peers may report their client's address.
#[derive(Debug, Clone, Default)]
pub struct TrustedProxies(Vec<IpNet>);

const X_FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");
const FORWARDED: HeaderName = HeaderName::from_static("forwarded");

impl TrustedProxies {
    /// Trusts peers inside `networks`; none means every header is ignored.
    pub fn new(networks: Vec<IpNet>) -> Self {
        TrustedProxies(networks)
    }

    /// Whether `address` (an IPv4 address mapped into IPv6 taken as IPv4) is a trusted proxy.
    pub fn contains(&self, address: IpAddr) -> bool {
        let address = address.to_canonical();
        self.0.iter().any(|network| network.contains(&address))
    }

    /// The client of a request from `peer` with `headers`: `peer` itself unless it is
    /// trusted; else the rightmost hop of `X-Forwarded-For` (or, without that header,
    /// `Forwarded`) that is not trusted. A hop that cannot be read stops the walk at the
    /// proxy that reported it; hops all trusted give the leftmost.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let peer = peer.to_canonical();
        if self.0.is_empty() || !self.contains(peer) {
            return peer;
        }
        let hops = forwarded_hops(headers);
        let mut reporter = peer;
        for hop in hops.iter().rev() {
            match hop {
                Some(address) if self.contains(*address) => reporter = *address,
                Some(address) => return *address,
                None => return reporter,
            }
        }
        reporter
    }
}

/// The hops a request passed, leftmost (the original client's claim) first: those of every
/// `X-Forwarded-For` line in order, or else of `Forwarded`'s `for=` parameters; `None` for a
/// hop that is no address (`unknown`, an obfuscated name, garbage).
fn forwarded_hops(headers: &HeaderMap) -> Vec<Option<IpAddr>> {
    let listed: Vec<&str> = headers
        .get_all(X_FORWARDED_FOR)
        .iter()
        .map(|value| value.to_str().unwrap_or("\u{0}"))
        .collect();
    if !listed.is_empty() {
        return listed
            .iter()
            .flat_map(|line| line.split(','))
            .map(|hop| parse_hop(hop.trim()))
            .collect();
    }
    let mut hops = Vec::new();
    for line in headers.get_all(FORWARDED) {
        let Ok(line) = line.to_str() else {
            hops.push(None);
            continue;
        };
        for element in line.split(',') {
            let hop = element.split(';').find_map(|pair| {
                let (name, value) = pair.split_once('=')?;
                name.trim().eq_ignore_ascii_case("for").then(|| value.trim())
            });
            // An element without `for` says nothing of the client: a hop that cannot be read.
            hops.push(hop.and_then(|value| parse_hop(value.trim_matches('"'))));
        }
    }
    hops
}

/// An address as a hop is written: `192.0.2.1`, `192.0.2.1:4711`, `2001:db8::1`,
/// `[2001:db8::1]` or `[2001:db8::1]:4711`.
fn parse_hop(text: &str) -> Option<IpAddr> {
    if let Ok(address) = text.parse::<IpAddr>() {
        return Some(address.to_canonical());
    }
    if let Some(rest) = text.strip_prefix('[') {
        let (inside, after) = rest.split_once(']')?;
        if !(after.is_empty() || after.strip_prefix(':').is_some_and(is_port)) {
            return None;
        }
        return inside.parse::<std::net::Ipv6Addr>().ok().map(|v6| IpAddr::V6(v6).to_canonical());
    }
    let (host, port) = text.rsplit_once(':')?;
    if !is_port(port) {
        return None;
    }
    host.parse::<std::net::Ipv4Addr>().ok().map(IpAddr::V4)
}

fn is_port(text: &str) -> bool {
    text.parse::<u16>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    fn proxies(networks: &[&str]) -> TrustedProxies {
        TrustedProxies::new(networks.iter().map(|n| n.parse().unwrap()).collect())
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, value.parse().unwrap());
        }
        map
    }

    #[test]
    fn a_header_from_an_untrusted_peer_is_ignored() {
        let trusted = proxies(&["10.0.0.0/8"]);
        let spoofed = headers(&[("x-forwarded-for", "203.0.113.9")]);
        assert_eq!(trusted.client(ip("198.51.100.1"), &spoofed), ip("198.51.100.1"));
        assert_eq!(TrustedProxies::default().client(ip("10.0.0.1"), &spoofed), ip("10.0.0.1"));
    }

    #[test]
    fn the_rightmost_untrusted_hop_is_the_client() {
        let trusted = proxies(&["10.0.0.0/8", "2001:db8:ffff::/48"]);
        let peer = ip("10.0.0.2");
        // The client claims 192.0.2.1; the proxy appended the address it saw.
        let chain = headers(&[("x-forwarded-for", "192.0.2.1, 203.0.113.7")]);
        assert_eq!(trusted.client(peer, &chain), ip("203.0.113.7"));
        // Two trusted proxies in a row, over two header lines.
        let chain = headers(&[
            ("x-forwarded-for", "192.0.2.1"),
            ("x-forwarded-for", "203.0.113.7, 10.1.1.1"),
        ]);
        assert_eq!(trusted.client(peer, &chain), ip("203.0.113.7"));
        // Everything trusted: the leftmost.
        let chain = headers(&[("x-forwarded-for", "10.9.9.9, 10.1.1.1")]);
        assert_eq!(trusted.client(peer, &chain), ip("10.9.9.9"));
        // No header: the proxy itself.
        assert_eq!(trusted.client(peer, &HeaderMap::new()), peer);
        // A hop that is no address stops the walk at the proxy that reported it.
        let chain = headers(&[("x-forwarded-for", "203.0.113.7, bogus, 10.1.1.1")]);
        assert_eq!(trusted.client(peer, &chain), ip("10.1.1.1"));
        // IPv6 peers and hops, mapped IPv4 taken as IPv4.
        let chain = headers(&[("x-forwarded-for", "2001:db8:1::5")]);
        assert_eq!(trusted.client(ip("2001:db8:ffff::1"), &chain), ip("2001:db8:1::5"));
        let chain = headers(&[("x-forwarded-for", "::ffff:203.0.113.7")]);
        assert_eq!(trusted.client(ip("::ffff:10.0.0.2"), &chain), ip("203.0.113.7"));
    }

    #[test]
    fn forwarded_is_read_when_x_forwarded_for_is_absent() {
        let trusted = proxies(&["10.0.0.0/8"]);
        let peer = ip("10.0.0.2");
        let chain = headers(&[(
            "forwarded",
            "for=192.0.2.60;proto=http;by=203.0.113.43, For=\"[2001:db8:cafe::17]:4711\"",
        )]);
        assert_eq!(trusted.client(peer, &chain), ip("2001:db8:cafe::17"));
        let chain = headers(&[("forwarded", "for=198.51.100.3:8080")]);
        assert_eq!(trusted.client(peer, &chain), ip("198.51.100.3"));
        let chain = headers(&[("forwarded", "for=unknown")]);
        assert_eq!(trusted.client(peer, &chain), peer);
        // X-Forwarded-For wins when both are present.
        let both = headers(&[("forwarded", "for=192.0.2.60"), ("x-forwarded-for", "203.0.113.7")]);
        assert_eq!(trusted.client(peer, &both), ip("203.0.113.7"));
    }
}
