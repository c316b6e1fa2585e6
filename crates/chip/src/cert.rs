//! X.509 certificates as this crate uses them: parsed by `x509-cert`, with the bytes they came
//! as (their signature covers those, see [`crate::raw`]).

use der::{Decode, Encode};
use x509_cert::Certificate;
use x509_cert::ext::pkix::{
    AuthorityKeyIdentifier, BasicConstraints, KeyUsage, KeyUsages, SubjectKeyIdentifier,
};
use x509_cert::name::Name;

use crate::crypto::{self, SignatureCheck};
use crate::raw;
use crate::report::CertificateSummary;

/// A certificate and its encoding.
#[derive(Clone)]
pub struct Cert {
    pub parsed: Certificate,
    pub der: Vec<u8>,
}

impl Cert {
    /// Parses one certificate, DER or BER (kept as encoded: its signature covers those
    /// bytes); the error says why not.
    pub fn from_der(der: &[u8]) -> Result<Cert, String> {
        let parsed = match Certificate::from_der(der) {
            Ok(parsed) => parsed,
            Err(error) => crate::ber::to_der(der)
                .ok()
                .and_then(|normal| Certificate::from_der(&normal).ok())
                .ok_or_else(|| format!("certificate: {error}"))?,
        };
        Ok(Cert { parsed, der: der.to_vec() })
    }

    pub fn subject(&self) -> &Name {
        self.parsed.tbs_certificate().subject()
    }

    pub fn issuer(&self) -> &Name {
        self.parsed.tbs_certificate().issuer()
    }

    pub fn subject_key_id(&self) -> Option<SubjectKeyIdentifier> {
        self.parsed
            .tbs_certificate()
            .get_extension::<SubjectKeyIdentifier>()
            .ok()
            .flatten()
            .map(|(_, e)| e)
    }

    fn authority_key_id(&self) -> Option<Vec<u8>> {
        let (_, aki) = self
            .parsed
            .tbs_certificate()
            .get_extension::<AuthorityKeyIdentifier>()
            .ok()
            .flatten()?;
        aki.key_identifier.map(|id| id.as_bytes().to_vec())
    }

    /// Whether `issuer` may have issued this certificate by name and key identifier (the
    /// signature is checked separately).
    pub fn names_issuer(&self, issuer: &Cert) -> bool {
        if !same_name(self.issuer(), issuer.subject()) {
            return false;
        }
        match (self.authority_key_id(), issuer.subject_key_id()) {
            (Some(aki), Some(ski)) => aki == ski.0.as_bytes(),
            _ => true,
        }
    }

    /// Checks this certificate's signature with `issuer`'s key.
    pub fn signed_by(&self, issuer: &Cert) -> SignatureCheck {
        issuer.check_signed(&self.der, self.parsed.signature_algorithm(), self.parsed.signature())
    }

    /// Checks the signature of an X.509 object this certificate's key signed (a certificate
    /// or a CRL): `der` as encoded, whose first element is what the signature covers.
    pub fn check_signed(
        &self,
        der: &[u8],
        algorithm: &spki::AlgorithmIdentifierOwned,
        signature: &der::asn1::BitString,
    ) -> SignatureCheck {
        let Ok(tbs) = raw::to_be_signed(der) else { return SignatureCheck::Invalid };
        let Some(signature) = signature.as_bytes() else { return SignatureCheck::Invalid };
        crypto::verify(
            self.parsed.tbs_certificate().subject_public_key_info(),
            algorithm,
            None,
            &tbs,
            signature,
        )
    }

    /// Whether the certificate was valid at `time`.
    pub fn valid_at(&self, time: der::DateTime) -> bool {
        let validity = self.parsed.tbs_certificate().validity();
        validity.not_before.to_date_time() <= time && time <= validity.not_after.to_date_time()
    }

    fn key_usage(&self) -> Option<KeyUsage> {
        self.parsed.tbs_certificate().get_extension::<KeyUsage>().ok().flatten().map(|(_, ku)| ku)
    }

    /// A document signer's key usage allows signing (or the certificate does not restrict it).
    pub fn may_sign_documents(&self) -> bool {
        self.key_usage().is_none_or(|ku| ku.0.contains(KeyUsages::DigitalSignature))
    }

    /// A CSCA may sign certificates: key usage (when present) includes keyCertSign and basic
    /// constraints (when present) make it a CA.
    pub fn may_sign_certificates(&self) -> bool {
        let usage = self.key_usage().is_none_or(|ku| ku.0.contains(KeyUsages::KeyCertSign));
        let ca = self
            .parsed
            .tbs_certificate()
            .get_extension::<BasicConstraints>()
            .ok()
            .flatten()
            .is_none_or(|(_, bc)| bc.ca);
        usage && ca
    }

    /// Is a CA certificate by its own extensions (used to tell CSCAs from document signers in
    /// a trust folder).
    pub fn is_ca(&self) -> bool {
        self.parsed
            .tbs_certificate()
            .get_extension::<BasicConstraints>()
            .ok()
            .flatten()
            .is_some_and(|(_, bc)| bc.ca)
            || self.key_usage().is_some_and(|ku| ku.0.contains(KeyUsages::KeyCertSign))
    }

    /// What the report says about the certificate.
    pub fn summary(&self) -> CertificateSummary {
        let tbs = self.parsed.tbs_certificate();
        CertificateSummary {
            subject: tbs.subject().to_string(),
            issuer: tbs.issuer().to_string(),
            serial_number: hex::encode_upper(tbs.serial_number().as_bytes()),
            not_before: tbs.validity().not_before.to_date_time().to_string(),
            not_after: tbs.validity().not_after.to_date_time().to_string(),
            signature_algorithm: crypto::describe_signature_algorithm(
                self.parsed.signature_algorithm(),
            ),
            public_key: crypto::describe_key(tbs.subject_public_key_info()),
        }
    }
}

/// How two distinguished names compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameMatch {
    /// The same name by RFC 5280 §7.1: the same RDNs in the same order, each the same set of
    /// attributes, string values compared case-insensitively with insignificant spaces
    /// ignored, whatever their string type (states re-encode a CSCA's name as UTF8String or
    /// PrintableString in the certificates it issues).
    Same,
    /// The same attributes with the same values, in another order (some states name a signer
    /// this way in EF.SOD; RFC 5280 would call them different names).
    Reordered,
    Different,
}

/// Compares two names (see [`NameMatch`]).
pub fn compare_names(a: &Name, b: &Name) -> NameMatch {
    let (Ok(x), Ok(y)) = (a.to_der(), b.to_der()) else { return NameMatch::Different };
    if x == y {
        return NameMatch::Same;
    }
    let (Some(x), Some(y)) = (rdns(&x), rdns(&y)) else { return NameMatch::Different };
    let same_set = |p: &Vec<Attribute>, q: &Vec<Attribute>| {
        let (mut p, mut q) = (p.clone(), q.clone());
        p.sort();
        q.sort();
        p == q
    };
    if x.len() == y.len() && x.iter().zip(&y).all(|(p, q)| same_set(p, q)) {
        return NameMatch::Same;
    }
    let flat = |rdns: Vec<Vec<Attribute>>| rdns.into_iter().flatten().collect::<Vec<_>>();
    if same_set(&flat(x), &flat(y)) { NameMatch::Reordered } else { NameMatch::Different }
}

/// Whether two names are the same by RFC 5280 (see [`NameMatch::Same`]).
pub fn same_name(a: &Name, b: &Name) -> bool {
    compare_names(a, b) == NameMatch::Same
}

/// An attribute type (its OID's encoding) and its value: a string, normalised, or the
/// encoding of any other value.
type Attribute = (Vec<u8>, Result<String, Vec<u8>>);

/// A Name's RDNs, each the list of its attributes.
fn rdns(der: &[u8]) -> Option<Vec<Vec<Attribute>>> {
    let (sequence, _) = crate::ber::parse(der).ok()?;
    let mut out = Vec::new();
    for rdn in crate::ber::children(sequence.content).ok()? {
        let mut attributes = Vec::new();
        for pair in crate::ber::children(rdn.content).ok()? {
            let parts = crate::ber::children(pair.content).ok()?;
            let [kind, value] = parts.as_slice() else { return None };
            let text = directory_string(value).ok_or_else(|| value.whole.to_vec());
            attributes.push((kind.whole.to_vec(), text));
        }
        out.push(attributes);
    }
    Some(out)
}

/// A string value, case-folded with leading, trailing and repeated spaces dropped (RFC 5280
/// §7.1, RFC 4518's insignificant space handling), or `None` for a value that is no string.
fn directory_string(value: &crate::ber::Element<'_>) -> Option<String> {
    let bytes = value.content;
    let text: String = match value.tag {
        // UTF8String, PrintableString, IA5String, VisibleString
        [0x0C] | [0x13] | [0x16] | [0x1A] => std::str::from_utf8(bytes).ok()?.to_owned(),
        // TeletexString, read as Latin-1 as most implementations do
        [0x14] => bytes.iter().map(|&b| char::from(b)).collect(),
        // BMPString
        [0x1E] => char::decode_utf16(
            bytes.chunks_exact(2).map(|pair| u16::from_be_bytes([pair[0], pair[1]])),
        )
        .collect::<Result<String, _>>()
        .ok()?,
        // UniversalString
        [0x1C] => bytes
            .chunks_exact(4)
            .map(|c| char::from_u32(u32::from_be_bytes([c[0], c[1], c[2], c[3]])))
            .collect::<Option<String>>()?,
        _ => return None,
    };
    Some(text.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase())
}
