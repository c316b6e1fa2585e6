//! BER, as far as CMS lets a signer use it: indefinite lengths on constructed values,
//! lengths in more bytes than needed, and OCTET STRINGs in pieces (RFC 5652 lets SignedData
//! be BER; real EF.SODs and master lists use indefinite lengths inside `[APPLICATION 23]`).
//!
//! Two uses: walking an encoding to take the signed parts exactly as they were encoded
//! ([`parse`], [`children`]), and [`to_der`], which re-encodes an element in DER so that the
//! typed decoders (`der`, `cms`, `x509-cert`), which take DER only, can give its meaning. A
//! signature is never checked over re-encoded bytes.

/// Why bytes are not BER.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BerError(pub &'static str);

impl std::fmt::Display for BerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

/// How deep constructed values may nest (real structures stay under twenty).
const MAX_DEPTH: usize = 64;

/// One element, borrowed from its encoding.
#[derive(Debug, Clone, Copy)]
pub struct Element<'a> {
    /// The identifier octets.
    pub tag: &'a [u8],
    /// The element as encoded: identifier, length, contents and, for an indefinite length,
    /// the end-of-contents octets.
    pub whole: &'a [u8],
    /// The contents octets (without end-of-contents).
    pub content: &'a [u8],
}

impl Element<'_> {
    pub fn constructed(&self) -> bool {
        self.tag[0] & 0x20 != 0
    }

    /// Whether the identifier is the one-byte `tag`.
    pub fn is(&self, tag: u8) -> bool {
        self.tag == [tag]
    }
}

/// The first element of `bytes`, and what follows it.
pub fn parse(bytes: &[u8]) -> Result<(Element<'_>, &[u8]), BerError> {
    parse_at(bytes, 0)
}

fn parse_at(bytes: &[u8], depth: usize) -> Result<(Element<'_>, &[u8]), BerError> {
    if depth > MAX_DEPTH {
        return Err(BerError("nested too deeply"));
    }
    let first = *bytes.first().ok_or(BerError("truncated"))?;
    let mut at = 1;
    if first & 0x1F == 0x1F {
        // High tag number: base-128 octets, the last without its top bit.
        loop {
            let byte = *bytes.get(at).ok_or(BerError("truncated tag"))?;
            at += 1;
            if byte & 0x80 == 0 {
                break;
            }
            if at > 6 {
                return Err(BerError("tag number too large"));
            }
        }
    }
    let tag = &bytes[..at];
    let length = *bytes.get(at).ok_or(BerError("truncated length"))?;
    at += 1;
    let constructed = first & 0x20 != 0;
    if length == 0x80 {
        if !constructed {
            return Err(BerError("indefinite length on a primitive value"));
        }
        let start = at;
        loop {
            let rest = &bytes[at..];
            if rest.starts_with(&[0, 0]) {
                let element = Element { tag, whole: &bytes[..at + 2], content: &bytes[start..at] };
                return Ok((element, &bytes[at + 2..]));
            }
            let (child, _) = parse_at(rest, depth + 1)?;
            at += child.whole.len();
        }
    }
    let len = if length < 0x80 {
        usize::from(length)
    } else {
        let count = usize::from(length & 0x7F);
        if count > 4 {
            return Err(BerError("length too large"));
        }
        let octets = bytes.get(at..at + count).ok_or(BerError("truncated length"))?;
        at += count;
        octets.iter().fold(0usize, |n, &b| (n << 8) | usize::from(b))
    };
    let end = at.checked_add(len).filter(|&end| end <= bytes.len()).ok_or(BerError("truncated"))?;
    Ok((Element { tag, whole: &bytes[..end], content: &bytes[at..end] }, &bytes[end..]))
}

/// The elements inside a constructed value's contents, in order.
pub fn children(content: &[u8]) -> Result<Vec<Element<'_>>, BerError> {
    let mut out = Vec::new();
    let mut rest = content;
    while !rest.is_empty() {
        let (element, after) = parse(rest)?;
        out.push(element);
        rest = after;
    }
    Ok(out)
}

/// The one element `bytes` holds (nothing may follow it), re-encoded in DER: definite minimal
/// lengths, and an OCTET STRING in pieces joined. (SET OF order is left as encoded.)
pub fn to_der(bytes: &[u8]) -> Result<Vec<u8>, BerError> {
    let (element, rest) = parse(bytes)?;
    if !rest.is_empty() {
        return Err(BerError("bytes after the end"));
    }
    let mut out = Vec::with_capacity(bytes.len());
    encode(&element, &mut out, 0)?;
    Ok(out)
}

fn encode(element: &Element<'_>, out: &mut Vec<u8>, depth: usize) -> Result<(), BerError> {
    if depth > MAX_DEPTH {
        return Err(BerError("nested too deeply"));
    }
    if !element.constructed() {
        out.extend_from_slice(element.tag);
        push_length(out, element.content.len());
        out.extend_from_slice(element.content);
        return Ok(());
    }
    if element.is(0x24) {
        let mut octets = Vec::new();
        join_octets(element, &mut octets, depth)?;
        out.push(0x04);
        push_length(out, octets.len());
        out.extend_from_slice(&octets);
        return Ok(());
    }
    let mut inner = Vec::with_capacity(element.content.len());
    for child in children(element.content)? {
        encode(&child, &mut inner, depth + 1)?;
    }
    out.extend_from_slice(element.tag);
    push_length(out, inner.len());
    out.extend_from_slice(&inner);
    Ok(())
}

/// The octets of an OCTET STRING given in pieces (each an OCTET STRING, perhaps in pieces).
fn join_octets(element: &Element<'_>, out: &mut Vec<u8>, depth: usize) -> Result<(), BerError> {
    if depth > MAX_DEPTH {
        return Err(BerError("nested too deeply"));
    }
    for piece in children(element.content)? {
        match piece.tag {
            [0x04] => out.extend_from_slice(piece.content),
            [0x24] => join_octets(&piece, out, depth + 1)?,
            _ => return Err(BerError("a piece of an OCTET STRING that is not one")),
        }
    }
    Ok(())
}

/// A definite length in the fewest octets.
pub fn push_length(out: &mut Vec<u8>, len: usize) {
    if len < 0x80 {
        out.push(len as u8);
        return;
    }
    let bytes = len.to_be_bytes();
    let skip = bytes.iter().take_while(|&&b| b == 0).count();
    out.push(0x80 | (bytes.len() - skip) as u8);
    out.extend_from_slice(&bytes[skip..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indefinite_and_long_lengths_and_pieces_become_der() {
        // SEQUENCE (indefinite) { INTEGER 5 with a two-byte length, OCTET STRING in two
        // pieces, [0] (indefinite) { NULL } }
        let ber = [
            0x30, 0x80, 0x02, 0x82, 0x00, 0x01, 0x05, 0x24, 0x80, 0x04, 0x01, 0xAA, 0x04, 0x02,
            0xBB, 0xCC, 0x00, 0x00, 0xA0, 0x80, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00,
        ];
        let der = to_der(&ber).expect("BER");
        assert_eq!(
            der,
            [0x30, 0x0C, 0x02, 0x01, 0x05, 0x04, 0x03, 0xAA, 0xBB, 0xCC, 0xA0, 0x02, 0x05, 0x00]
        );
        let (element, rest) = parse(&ber).expect("BER");
        assert!(rest.is_empty());
        assert_eq!(element.whole.len(), ber.len());
        assert_eq!(children(element.content).expect("children").len(), 3);
        assert_eq!(to_der(&der).expect("DER is BER"), der, "DER is unchanged");
    }

    #[test]
    fn broken_encodings_are_errors_not_panics() {
        for bad in [
            &[][..],
            &[0x30],
            &[0x30, 0x80],
            &[0x30, 0x80, 0x05, 0x00],
            &[0x04, 0x80, 0x00, 0x00],
            &[0x30, 0x85, 1, 0, 0, 0, 0],
            &[0x30, 0x03, 0x05, 0x00],
            &[0x1F, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x01, 0x00],
        ] {
            assert!(to_der(bad).is_err(), "{bad:02X?}");
        }
        let deep: Vec<u8> = std::iter::repeat_n([0x30, 0x80], 200).flatten().collect();
        assert!(to_der(&deep).is_err());
    }
}
