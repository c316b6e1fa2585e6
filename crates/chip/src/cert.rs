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

/// Distinguished names compare by encoding, and failing that by their text, case-insensitively:
/// states re-encode a CSCA's name in another string type (PrintableString, UTF8String) in the
/// certificates it issues.
pub fn same_name(a: &Name, b: &Name) -> bool {
    if let (Ok(x), Ok(y)) = (a.to_der(), b.to_der())
        && x == y
    {
        return true;
    }
    a.to_string().eq_ignore_ascii_case(&b.to_string())
}
