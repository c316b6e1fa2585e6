//! The exact bytes a signature covers.
//!
//! A signature is over the bytes the signer encoded, and decoding into typed structures is not
//! always reversible: a SET OF is sorted on decoding, and an RFC 5280 profile rewrites a
//! GeneralizedTime before 2050 as UTCTime on encoding, both of which real CSCA and document
//! signer certificates contain. So the signed parts are taken from the input as it came, by
//! walking its elements with `der`'s generic `AnyRef`, while the typed decoding (`cms`,
//! `x509-cert`) gives their meaning.

use der::{AnyRef, Decode, Encode, Reader, SliceReader, Tag, TagNumber, Tagged};

/// The elements inside a constructed value, in order.
pub fn children(value: &[u8]) -> der::Result<Vec<AnyRef<'_>>> {
    let mut reader = SliceReader::new(value)?;
    let mut out = Vec::new();
    while !reader.is_finished() {
        out.push(AnyRef::decode(&mut reader)?);
    }
    Ok(out)
}

/// One whole element (header and value) as encoded.
pub fn encoded(element: &AnyRef<'_>) -> der::Result<Vec<u8>> {
    element.to_der()
}

/// Whether an element is `[n]` in the context-specific class, constructed.
pub fn is_context(element: &AnyRef<'_>, number: u32) -> bool {
    element.tag() == Tag::ContextSpecific { constructed: true, number: TagNumber(number) }
}

/// The raw parts of a CMS SignedData that a verifier hashes or verifies.
pub struct SignedParts {
    /// Each certificate of `certificates [0]`, as encoded.
    pub certificates: Vec<Vec<u8>>,
    /// The first signer's `signedAttrs`, re-tagged as the SET OF they are signed as.
    pub signed_attrs: Option<Vec<u8>>,
}

/// Finds the signed parts in a ContentInfo holding SignedData.
pub fn signed_parts(content_info: &[u8]) -> der::Result<SignedParts> {
    let top = AnyRef::from_der(content_info)?;
    let info = children(top.value())?;
    let explicit = info.get(1).ok_or_else(missing)?;
    let signed_data = children(explicit.value())?;
    let signed_data = signed_data.first().ok_or_else(missing)?;
    let fields = children(signed_data.value())?;
    let mut certificates = Vec::new();
    if let Some(set) = fields.iter().find(|field| is_context(field, 0)) {
        for certificate in children(set.value())? {
            certificates.push(encoded(&certificate)?);
        }
    }
    let signer_infos = fields.last().ok_or_else(missing)?;
    let signers = children(signer_infos.value())?;
    let signer = signers.first().ok_or_else(missing)?;
    let signed_attrs = children(signer.value())?
        .into_iter()
        .find(|field| is_context(field, 0))
        .map(|attrs| AnyRef::new(Tag::Set, attrs.value()).and_then(|set| set.to_der()))
        .transpose()?;
    Ok(SignedParts { certificates, signed_attrs })
}

/// The `tbsCertificate` (or `tbsCertList`) of a signed X.509 object, as encoded.
pub fn to_be_signed(signed: &[u8]) -> der::Result<Vec<u8>> {
    let top = AnyRef::from_der(signed)?;
    let parts = children(top.value())?;
    encoded(parts.first().ok_or_else(missing)?)
}

fn missing() -> der::Error {
    der::ErrorKind::Failed.into()
}
