//! What a verification says: the JSON every interface returns.

use schemars::JsonSchema;
use serde::Serialize;

/// The outcome of Passive Authentication.
#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq)]
pub struct ChipReport {
    /// True only when every supplied data group's hash matches EF.SOD, EF.SOD's signature
    /// verifies with the document signer's key, and that certificate chains to a trusted CSCA
    /// (with no data group supplied: EF.SOD itself is genuine, and `not_supplied` lists all).
    /// It does not prove that the chip is not a clone (`authentic_chip` does, with Active
    /// Authentication), nor that the holder is the person in the photo.
    pub authentic: bool,
    /// EF.SOD's signature.
    pub signature: SignatureStatus,
    /// The document signer certificate's chain to a CSCA.
    pub chain: ChainStatus,
    /// Each supplied data group, in number order.
    pub data_groups: Vec<DataGroupResult>,
    /// Data groups EF.SOD lists that were not supplied (not checked; not needed for
    /// `authentic`).
    pub not_supplied: Vec<u8>,
    /// The digest algorithm of the data group hashes, e.g. `sha256`.
    pub hash_algorithm: String,
    /// LDS and Unicode versions (LDS 1.8 and later).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lds_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unicode_version: Option<String>,
    /// When the document signer says it signed (RFC 3339), if it says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signing_time: Option<String>,
    /// The document signer certificate, when found.
    pub signer: Option<CertificateSummary>,
    /// How it was found, when found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signer_found_by: Option<SignerMatch>,
    /// The CSCA the chain ends at, when trusted.
    pub trust_anchor: Option<CertificateSummary>,
    /// DG1's MRZ, when DG1 was supplied.
    pub mrz: Option<ChipMrz>,
    /// DG1 compared with the printed MRZ, when a scan or MRZ lines were given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mrz_match: Option<MrzMatch>,
    /// Active Authentication: whether the chip answered a challenge with DG15's private key.
    pub active_authentication: ActiveAuthentication,
    /// True only when `authentic` and Active Authentication is `verified` (with DG15 among
    /// the data groups EF.SOD vouches for): the data is the issuer's, and the chip that
    /// answered holds the key the issuer put in it, so it is not a copy of the data on
    /// another chip. It still does not prove the holder is the person presenting it.
    pub authentic_chip: bool,
    /// Why anything above is not the best answer, in words.
    pub diagnostics: Vec<Diagnostic>,
}

/// Active Authentication (ICAO 9303-11 §6.1).
#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq, Eq)]
pub struct ActiveAuthentication {
    pub status: ActiveAuthenticationStatus,
    /// How the chip signed, e.g. `RSA ISO/IEC 9796-2 scheme 1 with sha256`, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<String>,
    /// Why not `verified` (given in `diagnostics`).
    #[serde(skip)]
    #[schemars(skip)]
    pub reason: Option<String>,
}

/// Whether the chip proved it holds DG15's private key.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ActiveAuthenticationStatus {
    /// The answer is DG15's key's signature of the challenge, and EF.SOD vouches for DG15.
    Verified,
    /// It is not, or DG15 is missing or not the one EF.SOD signs (see diagnostics).
    Failed,
    /// No challenge and answer were given.
    NotSupplied,
    /// DG15's key or the signature algorithm is one this build does not check.
    Unsupported,
}

impl ActiveAuthenticationStatus {
    /// The name the JSON uses.
    pub fn as_str(self) -> &'static str {
        match self {
            ActiveAuthenticationStatus::Verified => "verified",
            ActiveAuthenticationStatus::Failed => "failed",
            ActiveAuthenticationStatus::NotSupplied => "not_supplied",
            ActiveAuthenticationStatus::Unsupported => "unsupported",
        }
    }
}

/// EF.SOD's signature.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SignatureStatus {
    /// Verified with the document signer's key, over signed attributes that vouch for the
    /// LDS security object.
    Verified,
    /// Does not verify, or the signed attributes do not vouch for the content.
    Invalid,
    /// Made with an algorithm or curve this build does not check (see diagnostics).
    UnsupportedAlgorithm,
    /// Neither EF.SOD nor the trust store holds the document signer's certificate.
    NoSignerCertificate,
}

/// How the document signer certificate was found.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SignerMatch {
    /// By the issuer name (compared per RFC 5280) and serial number EF.SOD gives.
    IssuerAndSerialNumber,
    /// By the subject key identifier EF.SOD gives.
    SubjectKeyIdentifier,
    /// By the serial number and an issuer name with the same attributes in another order.
    IssuerNameReordered,
    /// EF.SOD's identifier names no certificate; this one's key verifies the signature.
    SignatureKey,
}

impl SignerMatch {
    /// The name the JSON uses.
    pub fn as_str(self) -> &'static str {
        match self {
            SignerMatch::IssuerAndSerialNumber => "issuer_and_serial_number",
            SignerMatch::SubjectKeyIdentifier => "subject_key_identifier",
            SignerMatch::IssuerNameReordered => "issuer_name_reordered",
            SignerMatch::SignatureKey => "signature_key",
        }
    }
}

/// The document signer certificate's chain.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ChainStatus {
    /// Issued by a CSCA in the trust store, both valid at the time of signing, usages right.
    Trusted,
    /// No trust store is configured: the chain cannot be checked.
    NoTrustAnchor,
    /// No CSCA in the trust store issued the document signer certificate.
    Untrusted,
    /// The document signer or its CSCA was not valid at the time of signing.
    Expired,
    /// A CRL from the CSCA lists the document signer certificate.
    Revoked,
    /// A certificate's key usage or basic constraints do not allow its role.
    WrongKeyUsage,
    /// A CSCA in the trust store names the document signer's issuer, but its signature
    /// algorithm or curve is one this build does not check (see diagnostics).
    UnsupportedAlgorithm,
    /// There is no document signer certificate to chain.
    NotChecked,
}

/// One supplied data group.
#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq, Eq)]
pub struct DataGroupResult {
    /// 1 to 16.
    pub number: u8,
    pub status: DataGroupStatus,
}

/// A data group's hash against EF.SOD.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DataGroupStatus {
    /// Its hash is the one EF.SOD signs.
    Verified,
    /// Its hash differs: the data group is not the one signed.
    Mismatch,
    /// EF.SOD has no hash for it.
    NotInSod,
    /// EF.SOD's hash algorithm is one this build does not know.
    NotChecked,
}

/// A certificate, as the report names it.
#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq, Eq)]
pub struct CertificateSummary {
    pub subject: String,
    pub issuer: String,
    /// Hexadecimal.
    pub serial_number: String,
    /// RFC 3339.
    pub not_before: String,
    pub not_after: String,
    /// The algorithm the certificate is signed with.
    pub signature_algorithm: String,
    /// The certificate's key, e.g. `RSA 2048`, `ECDSA brainpoolP256r1`.
    pub public_key: String,
}

/// DG1's MRZ.
#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq)]
pub struct ChipMrz {
    /// The lines, as stored on the chip.
    pub lines: Vec<String>,
    /// Every check digit holds.
    pub valid: bool,
    /// The fields, read by the same MRZ parser as printed zones (corrections off: the chip
    /// holds exactly what was issued).
    pub fields: Option<MrzFields>,
}

/// The fields DG1 and the printed zone are compared on.
#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq, Eq)]
pub struct MrzFields {
    pub document_code: String,
    pub issuer: String,
    pub document_number: String,
    pub nationality: Option<String>,
    /// `YYYY-MM-DD` when a real date.
    pub birth_date: Option<String>,
    pub expiry_date: Option<String>,
    pub sex: String,
    pub surname: String,
    pub given_names: String,
    pub optional_data: Option<String>,
}

/// DG1 against the printed MRZ.
#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq, Eq)]
pub struct MrzMatch {
    /// Every compared field is the same.
    pub matches: bool,
    /// Where the printed zone came from: `scan` or `mrz_lines`.
    pub source: String,
    pub fields: Vec<FieldMatch>,
}

/// One field of DG1 against the printed zone.
#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq, Eq)]
pub struct FieldMatch {
    pub field: String,
    pub status: FieldMatchStatus,
}

#[derive(Debug, Clone, Copy, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FieldMatchStatus {
    Same,
    Different,
}

/// A reason, in words, with a stable code.
#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq, Eq)]
pub struct Diagnostic {
    pub code: String,
    pub message: String,
}

impl SignatureStatus {
    /// The name the JSON uses.
    pub fn as_str(self) -> &'static str {
        match self {
            SignatureStatus::Verified => "verified",
            SignatureStatus::Invalid => "invalid",
            SignatureStatus::UnsupportedAlgorithm => "unsupported_algorithm",
            SignatureStatus::NoSignerCertificate => "no_signer_certificate",
        }
    }
}

impl ChainStatus {
    /// The name the JSON uses.
    pub fn as_str(self) -> &'static str {
        match self {
            ChainStatus::Trusted => "trusted",
            ChainStatus::NoTrustAnchor => "no_trust_anchor",
            ChainStatus::Untrusted => "untrusted",
            ChainStatus::Expired => "expired",
            ChainStatus::Revoked => "revoked",
            ChainStatus::WrongKeyUsage => "wrong_key_usage",
            ChainStatus::UnsupportedAlgorithm => "unsupported_algorithm",
            ChainStatus::NotChecked => "not_checked",
        }
    }
}

impl DataGroupStatus {
    /// The name the JSON uses.
    pub fn as_str(self) -> &'static str {
        match self {
            DataGroupStatus::Verified => "verified",
            DataGroupStatus::Mismatch => "mismatch",
            DataGroupStatus::NotInSod => "not_in_sod",
            DataGroupStatus::NotChecked => "not_checked",
        }
    }
}
