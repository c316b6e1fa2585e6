//! Which addresses a fetch may connect to.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::IpNet;

/// Whether an address may be reached without explicit permission.
///
/// IPv4: not private, loopback, link-local (cloud metadata at 169.254.169.254), multicast,
/// unspecified, broadcast, documentation, carrier-grade NAT, protocol assignments,
/// benchmarking or reserved.
///
/// IPv6: only global unicast (`2000::/3`) outside the blocks of the IANA IPv6
/// Special-Purpose Address Registry that are not globally reachable; everything outside
/// `2000::/3` is loopback, unspecified, discard, unique-local, link-local, site-local,
/// multicast, segment routing or not yet allocated. A form that carries an IPv4 address
/// (IPv4-compatible, IPv4-mapped, IPv4-translated, 6to4, NAT64) leads to that address, so
/// it is judged by the IPv4 rules; Teredo (`2001::/32`) is refused, because its client
/// address is obfuscated and its relay reaches whatever the packet names.
pub fn is_public_address(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(v4: Ipv4Addr) -> bool {
    let o = v4.octets();
    !(v4.is_private()
        || v4.is_loopback()
        || v4.is_link_local()
        || v4.is_unspecified()
        || v4.is_broadcast()
        || v4.is_multicast()
        || v4.is_documentation()
        || o[0] == 0
        // 100.64.0.0/10, carrier-grade NAT.
        || (o[0] == 100 && (o[1] & 0xc0) == 64)
        // 192.0.0.0/24, protocol assignments.
        || (o[0] == 192 && o[1] == 0 && o[2] == 0)
        // 198.18.0.0/15, benchmarking; 240.0.0.0/4, reserved.
        || (o[0] == 198 && (o[1] & 0xfe) == 18)
        || o[0] >= 240)
}

fn is_public_v6(v6: Ipv6Addr) -> bool {
    let bits = u128::from(v6);
    if v6.is_loopback() || v6.is_unspecified() {
        return false;
    }
    if let Some(embedded) = embedded_ipv4(bits) {
        return embedded.into_iter().all(is_public_v4);
    }
    // Everything outside 2000::/3, global unicast, is not reachable on the internet.
    if !in_block(bits, 0x2000 << 112, 3) {
        return false;
    }
    // 2001::/23, IETF protocol assignments, except the sub-blocks the registry lists as
    // globally reachable; Teredo (2001::/32), benchmarking (2001:2::/48) and the deprecated
    // ORCHID (2001:10::/28) are not among them.
    if in_block(bits, 0x2001_0000 << 96, 23) {
        return GLOBAL_IN_IETF_ASSIGNMENTS
            .iter()
            .any(|&(prefix, length)| in_block(bits, prefix, length));
    }
    // Documentation: 2001:db8::/32 and 3fff::/20.
    !(in_block(bits, 0x2001_0db8 << 96, 32) || in_block(bits, 0x3fff << 112, 20))
}

/// The globally reachable blocks inside 2001::/23: PCP, TURN and DNS-SD SRP anycast
/// (2001:1::1, ::2, ::3), AMT (2001:3::/32), AS112-v6 (2001:4:112::/48), ORCHIDv2
/// (2001:20::/28) and drone remote ID tags (2001:30::/28).
const GLOBAL_IN_IETF_ASSIGNMENTS: [(u128, u32); 7] = [
    ((0x2001_0001 << 96) | 1, 128),
    ((0x2001_0001 << 96) | 2, 128),
    ((0x2001_0001 << 96) | 3, 128),
    (0x2001_0003 << 96, 32),
    ((0x2001_0004 << 96) | (0x0112 << 80), 48),
    (0x2001_0020 << 96, 28),
    (0x2001_0030 << 96, 28),
];

/// Whether `bits` lies in `prefix/length`.
fn in_block(bits: u128, prefix: u128, length: u32) -> bool {
    let mask = u128::MAX.checked_shl(128 - length).unwrap_or(0);
    bits & mask == prefix & mask
}

/// The IPv4 addresses a form that embeds one may lead to, or `None` for other addresses.
fn embedded_ipv4(bits: u128) -> Option<Vec<Ipv4Addr>> {
    let at = |shift: u32| Ipv4Addr::from((bits >> shift) as u32);
    // ::a.b.c.d IPv4-compatible (deprecated), ::ffff:a.b.c.d mapped, ::ffff:0:a.b.c.d
    // translated, 64:ff9b::a.b.c.d the well-known NAT64 prefix: the last 32 bits.
    if in_block(bits, 0, 96)
        || in_block(bits, 0xffff << 32, 96)
        || in_block(bits, 0xffff << 48, 96)
        || in_block(bits, 0x0064_ff9b << 96, 96)
    {
        return Some(vec![at(0)]);
    }
    // 2002:AABB:CCDD::/48, 6to4: bits 16 to 47.
    if in_block(bits, 0x2002 << 112, 16) {
        return Some(vec![at(80)]);
    }
    // 64:ff9b:1::/48, local-use NAT64: the operator's translator may use any prefix inside
    // it that RFC 6052 allows (/48, /56, /64, /96), which puts the IPv4 address at different
    // bits (skipping bits 64 to 71), so every place must hold a public address.
    if in_block(bits, 0x0064_ff9b_0001 << 80, 48) {
        // The IPv4 address's first `high` bits end at bit 63, the rest begin at bit 72.
        let split = |high: u32| {
            let low = 32 - high;
            let first = (bits >> 64) as u32 & ((1 << high) - 1);
            let rest = (bits >> (56 - low)) as u32 & ((1 << low) - 1);
            Ipv4Addr::from((first << low) | rest)
        };
        return Some(vec![split(16), split(8), at(24), at(0)]);
    }
    None
}

/// Public addresses, and the non-public ones inside networks the operator allowed.
#[derive(Debug, Clone, Default)]
pub(crate) struct AddressRule {
    pub(crate) allowed_networks: Vec<IpNet>,
}

impl AddressRule {
    pub(crate) fn permits(&self, ip: IpAddr) -> bool {
        // An IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        is_public_address(ip) || self.allowed_networks.iter().any(|net| net.contains(&ip))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_and_special_ipv4_addresses_are_not_public() {
        for text in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "192.0.0.170",
            "198.18.0.1",
            "224.0.0.1",
            "255.255.255.255",
        ] {
            assert!(!is_public_address(text.parse().unwrap()), "{text}");
        }
        for text in ["8.8.8.8", "1.1.1.1"] {
            assert!(is_public_address(text.parse().unwrap()), "{text}");
        }
    }

    /// Each block of the IANA IPv6 Special-Purpose Address Registry (and the rest of the
    /// space outside global unicast): an address inside it, and for the forms that carry an
    /// IPv4 address one with a public and one with a private IPv4 address.
    #[test]
    fn ipv6_special_purpose_blocks_are_not_public() {
        let cases: &[(&str, &str, bool)] = &[
            ("::1/128 loopback", "::1", false),
            ("::/128 unspecified", "::", false),
            ("::/96 IPv4-compatible, loopback", "::7f00:1", false),
            ("::/96 IPv4-compatible, metadata", "::169.254.169.254", false),
            ("::/96 IPv4-compatible, public", "::8.8.8.8", true),
            ("::ffff:0:0/96 IPv4-mapped, loopback", "::ffff:127.0.0.1", false),
            ("::ffff:0:0/96 IPv4-mapped, metadata", "::ffff:169.254.169.254", false),
            ("::ffff:0:0/96 IPv4-mapped, public", "::ffff:8.8.8.8", true),
            ("::ffff:0:0:0/96 IPv4-translated, loopback", "::ffff:0:7f00:1", false),
            ("::ffff:0:0:0/96 IPv4-translated, private", "::ffff:0:10.1.2.3", false),
            ("::ffff:0:0:0/96 IPv4-translated, public", "::ffff:0:8.8.8.8", true),
            ("other ::/8", "::1:0:0:0:1", false),
            ("64:ff9b::/96 NAT64, private", "64:ff9b::10.0.0.1", false),
            ("64:ff9b::/96 NAT64, metadata", "64:ff9b::a9fe:a9fe", false),
            ("64:ff9b::/96 NAT64, public", "64:ff9b::8.8.8.8", true),
            ("64:ff9b:1::/48 local NAT64, private at /96", "64:ff9b:1::10.0.0.1", false),
            ("64:ff9b:1::/48 local NAT64, private at /48", "64:ff9b:1:a00:1::", false),
            ("64:ff9b:1::/48 local NAT64, public everywhere", "64:ff9b:1:808:8:808:808:808", true),
            ("64:ff9b::/32 outside both NAT64 blocks", "64:ff9b:2::808:808", false),
            ("100::/64 discard", "100::1", false),
            ("100:0:0:1::/64 dummy", "100:0:0:1::1", false),
            ("2001::/32 Teredo", "2001:0:4136:e378:8000:63bf:3fff:fdd2", false),
            ("2001::/32 Teredo", "2001::1", false),
            ("2001:1::1/128 PCP anycast", "2001:1::1", true),
            ("2001:1::2/128 TURN anycast", "2001:1::2", true),
            ("2001:1::3/128 DNS-SD SRP anycast", "2001:1::3", true),
            ("2001::/23 beside the anycast addresses", "2001:1::4", false),
            ("2001:2::/48 benchmarking", "2001:2::1", false),
            ("2001:3::/32 AMT", "2001:3::1", true),
            ("2001:4:112::/48 AS112-v6", "2001:4:112::1", true),
            ("2001:10::/28 deprecated ORCHID", "2001:10::1", false),
            ("2001:20::/28 ORCHIDv2", "2001:20::1", true),
            ("2001:30::/28 drone remote ID", "2001:30::1", true),
            ("2001::/23 unassigned", "2001:100::1", false),
            ("2001:db8::/32 documentation", "2001:db8::1", false),
            ("3fff::/20 documentation", "3fff:fff::1", false),
            ("2002::/16 6to4, private", "2002:a00:1::1", false),
            ("2002::/16 6to4, loopback", "2002:7f00:1::1", false),
            ("2002::/16 6to4, public", "2002:808:808::1", true),
            ("2620:4f:8000::/48 AS112 direct delegation", "2620:4f:8000::1", true),
            ("5f00::/16 segment routing", "5f00::1", false),
            ("fc00::/7 unique-local", "fc00::1", false),
            ("fc00::/7 unique-local", "fd12:3456::1", false),
            ("fe80::/10 link-local", "fe80::1", false),
            ("fe80::/10 link-local", "febf::1", false),
            ("fec0::/10 site-local", "fec0::1", false),
            ("fec0::/10 site-local", "feff::1", false),
            ("ff00::/8 multicast", "ff02::1", false),
            ("ff00::/8 multicast", "ff0e::1", false),
            ("outside 2000::/3", "4000::1", false),
            ("global unicast", "2606:4700:4700::1111", true),
            ("global unicast", "2001:4860:4860::8888", true),
        ];
        for (block, text, public) in cases {
            let ip: IpAddr = text.parse().unwrap();
            assert_eq!(is_public_address(ip), *public, "{block}: {text}");
        }
    }

    #[test]
    fn an_allowed_network_admits_only_its_own_addresses() {
        let rule = AddressRule { allowed_networks: vec!["127.0.0.1/32".parse().unwrap()] };
        assert!(rule.permits("127.0.0.1".parse().unwrap()));
        assert!(rule.permits("::ffff:127.0.0.1".parse().unwrap()));
        assert!(rule.permits("8.8.8.8".parse().unwrap()));
        assert!(!rule.permits("127.0.0.2".parse().unwrap()));
        assert!(!rule.permits("::1".parse().unwrap()));
        assert!(!rule.permits("10.0.0.1".parse().unwrap()));
    }
}
