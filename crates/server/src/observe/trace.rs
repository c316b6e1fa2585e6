//! W3C Trace Context (`traceparent`, `tracestate`), parsed strictly.
//!
//! MCP clients pass the caller's trace in a request's `_meta` under the same names the
//! W3C headers use. A value that does not follow the specification is ignored as a whole:
//! a trace that cannot be joined is better than one joined to garbage.

use std::fmt;

/// A parsed `traceparent`: which trace a request belongs to and which span called it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceParent {
    /// The 16-byte trace id, never all zeros.
    pub trace_id: [u8; 16],
    /// The caller's 8-byte span id, never all zeros.
    pub parent_id: [u8; 8],
    /// The trace flags; bit 0 means the caller sampled the trace.
    pub flags: u8,
}

impl TraceParent {
    /// Parses a `traceparent` value as W3C Trace Context level 1 defines it.
    ///
    /// Version `00` must be exactly `00-<32 hex>-<16 hex>-<2 hex>`; a later version may
    /// append fields after another `-`, which are ignored. Hex digits must be lowercase,
    /// version `ff` and all-zero ids are invalid. Surrounding spaces and tabs are allowed,
    /// as they are in the header.
    pub fn parse(value: &str) -> Option<TraceParent> {
        let value = value.trim_matches([' ', '\t']).as_bytes();
        if value.len() < 55 {
            return None;
        }
        let mut version = [0u8; 1];
        lower_hex(&value[0..2], &mut version)?;
        let version = version[0];
        if version == 0xff || value[2] != b'-' || value[35] != b'-' || value[52] != b'-' {
            return None;
        }
        match (version, value.len()) {
            (0, 55) => {}
            (0, _) => return None,
            (_, 55) => {}
            (_, _) if value[55] == b'-' => {}
            _ => return None,
        }
        let mut trace_id = [0u8; 16];
        lower_hex(&value[3..35], &mut trace_id)?;
        let mut parent_id = [0u8; 8];
        lower_hex(&value[36..52], &mut parent_id)?;
        let mut flags = [0u8; 1];
        lower_hex(&value[53..55], &mut flags)?;
        let flags = flags[0];
        if trace_id == [0; 16] || parent_id == [0; 8] {
            return None;
        }
        Some(TraceParent { trace_id, parent_id, flags })
    }

    /// Whether the caller sampled this trace.
    pub fn sampled(&self) -> bool {
        self.flags & 1 == 1
    }

    /// The trace id as 32 lowercase hex digits.
    pub fn trace_id_hex(&self) -> String {
        hex::encode(self.trace_id)
    }

    /// The parent span id as 16 lowercase hex digits.
    pub fn parent_id_hex(&self) -> String {
        hex::encode(self.parent_id)
    }
}

impl fmt::Display for TraceParent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "00-{}-{}-{:02x}", self.trace_id_hex(), self.parent_id_hex(), self.flags)
    }
}

/// Checks a `tracestate` value: at most 32 comma-separated `key=value` members, keys and
/// values as the specification allows, 512 characters at most. Returns it trimmed when valid.
pub fn valid_tracestate(value: &str) -> Option<&str> {
    let value = value.trim_matches([' ', '\t']);
    if value.is_empty() || value.len() > 512 {
        return None;
    }
    let mut members = 0;
    for member in value.split(',') {
        let member = member.trim_matches([' ', '\t']);
        if member.is_empty() {
            // Empty list members are allowed and do not count.
            continue;
        }
        members += 1;
        let (key, val) = member.split_once('=')?;
        if members > 32 || !valid_key(key) || !valid_value(val) {
            return None;
        }
    }
    (members > 0).then_some(value)
}

fn valid_key(key: &str) -> bool {
    let simple = |part: &str, max: usize| {
        let bytes = part.as_bytes();
        !bytes.is_empty()
            && bytes.len() <= max
            && bytes.iter().all(|b| {
                b.is_ascii_lowercase()
                    || b.is_ascii_digit()
                    || matches!(b, b'_' | b'-' | b'*' | b'/')
            })
    };
    match key.split_once('@') {
        // A multi-tenant key: tenant@system.
        Some((tenant, system)) => {
            simple(tenant, 241)
                && tenant.as_bytes()[0].is_ascii_alphanumeric()
                && simple(system, 14)
                && system.as_bytes()[0].is_ascii_lowercase()
        }
        None => simple(key, 256) && key.as_bytes()[0].is_ascii_lowercase(),
    }
}

fn valid_value(value: &str) -> bool {
    let bytes = value.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 256
        && bytes.iter().all(|&b| (0x20..=0x7e).contains(&b) && b != b',' && b != b'=')
        && bytes[bytes.len() - 1] != b' '
}

/// Decodes `text` into `out`; the W3C format allows lowercase hex digits only.
fn lower_hex(text: &[u8], out: &mut [u8]) -> Option<()> {
    if !text.iter().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b)) {
        return None;
    }
    hex::decode_to_slice(text, out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn parses_the_specification_example() {
        let parent = TraceParent::parse(GOOD).unwrap();
        assert_eq!(parent.trace_id_hex(), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(parent.parent_id_hex(), "00f067aa0ba902b7");
        assert!(parent.sampled());
        assert_eq!(parent.to_string(), GOOD);
        assert_eq!(TraceParent::parse(&format!(" {GOOD}\t")), Some(parent));
    }

    #[test]
    fn refuses_what_the_specification_refuses() {
        let bad = [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
            "0x-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0é",
        ];
        for value in bad {
            assert_eq!(TraceParent::parse(value), None, "{value:?}");
        }
    }

    #[test]
    fn later_versions_may_add_fields() {
        let future = "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-whatever";
        let parent = TraceParent::parse(future).unwrap();
        assert!(!parent.sampled());
    }

    #[test]
    fn tracestate_members_are_checked() {
        assert_eq!(
            valid_tracestate("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"),
            Some("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")
        );
        assert!(valid_tracestate("tenant1@vendor=x, ,b=y").is_some());
        assert!(valid_tracestate("").is_none());
        assert!(valid_tracestate("Upper=x").is_none());
        assert!(valid_tracestate("a=").is_none());
        assert!(valid_tracestate("a=b=c").is_none());
        assert!(valid_tracestate("novalue").is_none());
        let many: Vec<String> = (0..33).map(|i| format!("k{i}=v")).collect();
        assert!(valid_tracestate(&many.join(",")).is_none());
        assert!(valid_tracestate(&format!("a={}", "x".repeat(600))).is_none());
    }
}
