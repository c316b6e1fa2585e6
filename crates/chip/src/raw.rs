//! The exact bytes a signature covers.
//!
//! A signature is over the bytes the signer encoded, and decoding into typed structures is not
//! always reversible: a SET OF is sorted on decoding, an RFC 5280 profile rewrites a
//! GeneralizedTime before 2050 as UTCTime on encoding, both of which real CSCA and document
//! signer certificates contain, and BER (indefinite or long lengths) becomes DER. So the signed
//! parts are taken from the input as it came, by walking its elements with [`crate::ber`],
//! while the typed decoding (`cms`, `x509-cert`, on a DER copy) gives their meaning.

use der::{AnyRef, Decode, Reader, SliceReader};

use crate::ber::{self, BerError};

/// The elements inside a DER constructed value, in order (for values the typed decoders
/// already hold as DER: key parameters, signature values).
pub fn children(value: &[u8]) -> der::Result<Vec<AnyRef<'_>>> {
    let mut reader = SliceReader::new(value)?;
    let mut out = Vec::new();
    while !reader.is_finished() {
        out.push(AnyRef::decode(&mut reader)?);
    }
    Ok(out)
}

/// The raw parts of a CMS SignedData that a verifier hashes or verifies.
pub struct SignedParts {
    /// Each certificate of `certificates [0]`, as encoded.
    pub certificates: Vec<Vec<u8>>,
    /// The first signer's `signedAttrs`, re-tagged as the SET OF they are signed as, their
    /// contents as encoded.
    pub signed_attrs: Option<Vec<u8>>,
}

/// Finds the signed parts in a (BER) ContentInfo holding SignedData.
pub fn signed_parts(content_info: &[u8]) -> Result<SignedParts, BerError> {
    let (top, _) = ber::parse(content_info)?;
    let info = ber::children(top.content)?;
    let explicit = info.get(1).ok_or(MISSING)?;
    let signed_data = ber::children(explicit.content)?;
    let signed_data = signed_data.first().ok_or(MISSING)?;
    let fields = ber::children(signed_data.content)?;
    let mut certificates = Vec::new();
    if let Some(set) = fields.iter().find(|field| field.is(0xA0)) {
        for certificate in ber::children(set.content)? {
            certificates.push(certificate.whole.to_vec());
        }
    }
    let signer_infos = fields.last().ok_or(MISSING)?;
    let signers = ber::children(signer_infos.content)?;
    let signer = signers.first().ok_or(MISSING)?;
    let signed_attrs =
        ber::children(signer.content)?.into_iter().find(|field| field.is(0xA0)).map(|attrs| {
            let mut set = vec![0x31];
            ber::push_length(&mut set, attrs.content.len());
            set.extend_from_slice(attrs.content);
            set
        });
    Ok(SignedParts { certificates, signed_attrs })
}

/// The `tbsCertificate` (or `tbsCertList`) of a signed X.509 object, as encoded.
pub fn to_be_signed(signed: &[u8]) -> Result<Vec<u8>, BerError> {
    let (top, _) = ber::parse(signed)?;
    let parts = ber::children(top.content)?;
    Ok(parts.first().ok_or(MISSING)?.whole.to_vec())
}

const MISSING: BerError = BerError("a part of the structure is missing");
