//! CMS SignedData as ICAO uses it (EF.SOD, CSCA master lists): one signer, signed attributes
//! holding the content type and the digest of the encapsulated content.

use cms::content_info::ContentInfo;
use cms::signed_data::{SignedData, SignerIdentifier, SignerInfo};
use const_oid::ObjectIdentifier as Oid;
use const_oid::db::rfc5911;
use der::Decode;
use der::asn1::OctetString;
use x509_cert::ext::pkix::SubjectKeyIdentifier;

use crate::cert::{Cert, NameMatch, compare_names};
use crate::crypto::{self, Hash, SignatureCheck};
use crate::error::ChipError;
use crate::raw;
use crate::report::SignerMatch;

/// The most certificates of a SignedData that are read.
const MAX_CERTIFICATES: usize = 16;

/// A parsed SignedData, with what its signature covers.
pub struct Signed {
    /// `eContentType`.
    pub content_type: Oid,
    /// The encapsulated content's octets.
    pub content: Vec<u8>,
    /// The certificates it carries.
    pub certificates: Vec<Cert>,
    /// Its (first) signer.
    pub signer: SignerInfo,
    /// Signed attributes, encoded as signed.
    signed_attrs: Option<Vec<u8>>,
    /// The signer's digest algorithm, when known.
    pub digest: Option<Hash>,
}

/// How the signer's signature came out, and why.
pub struct SignerCheck {
    pub signature: SignatureCheck,
    /// Set when the signed attributes do not vouch for the content (its digest or type).
    pub attributes_problem: Option<String>,
}

impl Signed {
    /// Parses a ContentInfo holding SignedData, in BER (DER included).
    pub fn parse(what: &'static str, content_info: &[u8]) -> Result<Signed, ChipError> {
        let bad = |reason: String| ChipError::Malformed { what, reason };
        // The typed decoders take DER; the signed parts come from the input as encoded.
        let der = crate::ber::to_der(content_info).map_err(|e| bad(e.to_string()))?;
        let info = ContentInfo::from_der(&der).map_err(|e| bad(e.to_string()))?;
        if info.content_type != rfc5911::ID_SIGNED_DATA {
            return Err(bad(format!("content type {} is not signed data", info.content_type)));
        }
        let data = info.content.decode_as::<SignedData>().map_err(|e| bad(e.to_string()))?;
        let parts = raw::signed_parts(content_info).map_err(|e| bad(e.to_string()))?;
        let content = match &data.encap_content_info.econtent {
            Some(any) => any
                .decode_as::<OctetString>()
                .map_err(|e| bad(format!("encapsulated content: {e}")))?
                .into_bytes()
                .into_vec(),
            None => return Err(bad("no encapsulated content".into())),
        };
        // The certificates as encoded (their signatures cover those bytes); an entry that is
        // not an X.509 certificate (another CertificateChoices) is not a signer candidate.
        // At most MAX_CERTIFICATES: real EF.SODs carry one or two, and each is a candidate
        // whose signature may be checked.
        let certificates: Vec<Cert> = parts
            .certificates
            .iter()
            .take(MAX_CERTIFICATES)
            .filter_map(|der| Cert::from_der(der).ok())
            .collect();
        let signer = data
            .signer_infos
            .0
            .as_slice()
            .first()
            .cloned()
            .ok_or_else(|| bad("no signer".into()))?;
        let digest = Hash::from_oid(&signer.digest_alg.oid);
        Ok(Signed {
            content_type: data.encap_content_info.econtent_type,
            content,
            certificates,
            signer,
            signed_attrs: parts.signed_attrs,
            digest,
        })
    }

    /// `signingTime`, when the signer put one in.
    pub fn signing_time(&self) -> Option<der::DateTime> {
        let attrs = self.signer.signed_attrs.as_ref()?;
        let attr = attrs.iter().find(|a| a.oid == rfc5911::ID_SIGNING_TIME)?;
        let value = attr.values.iter().next()?;
        value.decode_as::<x509_cert::time::Time>().ok().map(|time| time.to_date_time())
    }

    /// The signer's certificate among `candidates`, as RFC 5652 §5.3 finds it: by issuer and
    /// serial number (names compared per RFC 5280), or by subject key identifier; then by the
    /// same serial number and issuer attributes in another order; and when the identifier
    /// names none of them, the candidate whose key verifies the signature. Says which rule
    /// found it.
    pub fn find_signer<'c>(&self, candidates: &[&'c Cert]) -> Option<(&'c Cert, SignerMatch)> {
        let by_name = |wanted: NameMatch| {
            candidates.iter().copied().find(|cert| match &self.signer.sid {
                SignerIdentifier::IssuerAndSerialNumber(id) => {
                    id.serial_number == *cert.parsed.tbs_certificate().serial_number()
                        && compare_names(&id.issuer, cert.issuer()) == wanted
                }
                SignerIdentifier::SubjectKeyIdentifier(_) => false,
            })
        };
        if let Some(cert) = by_name(NameMatch::Same) {
            return Some((cert, SignerMatch::IssuerAndSerialNumber));
        }
        if let SignerIdentifier::SubjectKeyIdentifier(ski) = &self.signer.sid
            && let Some(cert) = candidates.iter().copied().find(|cert| {
                cert.subject_key_id().is_some_and(|own: SubjectKeyIdentifier| own == *ski)
            })
        {
            return Some((cert, SignerMatch::SubjectKeyIdentifier));
        }
        if let Some(cert) = by_name(NameMatch::Reordered) {
            return Some((cert, SignerMatch::IssuerNameReordered));
        }
        candidates
            .iter()
            .copied()
            .find(|cert| self.verifies_with(cert))
            .map(|cert| (cert, SignerMatch::SignatureKey))
    }

    /// Whether the signature verifies with `cert`'s key (over whatever the attributes say).
    fn verifies_with(&self, cert: &Cert) -> bool {
        let message: &[u8] = self.signed_attrs.as_deref().unwrap_or(&self.content);
        crypto::verify(
            cert.parsed.tbs_certificate().subject_public_key_info(),
            &self.signer.signature_algorithm,
            self.digest,
            message,
            self.signer.signature.as_bytes(),
        ) == SignatureCheck::Verified
    }

    /// Checks the signer's signature with `signer_cert`, and that the signed attributes name
    /// `expected_type` and the digest of the content.
    pub fn check_signer(&self, signer_cert: &Cert, expected_type: Oid) -> SignerCheck {
        let mut attributes_problem = None;
        let message: &[u8] = match &self.signed_attrs {
            Some(der) => {
                attributes_problem = self.attributes_problem(expected_type);
                der
            }
            None => &self.content,
        };
        let signature = crypto::verify(
            signer_cert.parsed.tbs_certificate().subject_public_key_info(),
            &self.signer.signature_algorithm,
            self.digest,
            message,
            self.signer.signature.as_bytes(),
        );
        SignerCheck { signature, attributes_problem }
    }

    fn attributes_problem(&self, expected_type: Oid) -> Option<String> {
        let attrs = self.signer.signed_attrs.as_ref()?;
        let single = |oid: Oid| {
            attrs.iter().find(|a| a.oid == oid).and_then(|a| a.values.iter().next().cloned())
        };
        match single(rfc5911::ID_CONTENT_TYPE).and_then(|v| v.decode_as::<Oid>().ok()) {
            Some(oid) if oid == expected_type => {}
            Some(oid) => {
                return Some(format!("the signed content type is {oid}, not {expected_type}"));
            }
            None => return Some("the signed attributes carry no content type".into()),
        }
        let Some(digest) = self.digest else {
            return Some(format!("unknown digest algorithm {}", self.signer.digest_alg.oid));
        };
        match single(rfc5911::ID_MESSAGE_DIGEST).and_then(|v| v.decode_as::<OctetString>().ok()) {
            Some(signed) if signed.as_bytes() == digest.digest(&self.content).as_slice() => None,
            Some(_) => Some("the signed message digest is not the digest of the content".into()),
            None => Some("the signed attributes carry no message digest".into()),
        }
    }
}
