//! Which addresses a fetch may connect to.

use std::net::IpAddr;

use ipnet::IpNet;

/// Whether an address may be reached without explicit permission: not private, loopback,
/// link-local (cloud metadata at 169.254.169.254), unique-local, multicast, unspecified,
/// documentation, carrier-grade NAT, benchmarking or reserved.
pub fn is_public_address(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
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
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public_address(IpAddr::V4(v4));
            }
            let s = v6.segments();
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                // fc00::/7 unique local, fe80::/10 link-local, 2001:db8::/32 documentation.
                || (s[0] & 0xfe00) == 0xfc00
                || (s[0] & 0xffc0) == 0xfe80
                || (s[0] == 0x2001 && s[1] == 0x0db8)
                // 64:ff9b::/96 and 64:ff9b:1::/48 translate to IPv4, private ones included.
                || (s[0] == 0x64 && s[1] == 0xff9b)
                // 2002::/16, 6to4, embeds an IPv4 address.
                || s[0] == 0x2002)
        }
    }
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
    fn private_and_special_addresses_are_not_public() {
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
            "::1",
            "::",
            "fe80::1",
            "fd00::1",
            "ff02::1",
            "::ffff:169.254.169.254",
            "::ffff:127.0.0.1",
            "64:ff9b::a00:1",
            "2002:a00:1::1",
        ] {
            assert!(!is_public_address(text.parse().unwrap()), "{text}");
        }
        for text in ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"] {
            assert!(is_public_address(text.parse().unwrap()), "{text}");
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
