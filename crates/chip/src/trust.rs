//! The operator's trust store: CSCA certificates (PEM or DER), ICAO or national CSCA master
//! lists (whose own signature is checked before their certificates are trusted), and CRLs.

use std::path::{Path, PathBuf};

use const_oid::ObjectIdentifier as Oid;
use der::Decode;
use x509_cert::crl::CertificateList;

use crate::ber;
use crate::cert::Cert;
use crate::crypto::SignatureCheck;
use crate::error::TrustError;
use crate::signed::Signed;

/// `id-icao-cscaMasterList` (ICAO 9303-12).
pub const ID_CSCA_MASTER_LIST: Oid = Oid::new_unwrap("2.23.136.1.1.2");

/// The biggest trust file read (a full ICAO master list is a few megabytes).
pub const MAX_TRUST_FILE: u64 = 64 * 1024 * 1024;

/// Certificates a chain may end at, and revocation lists.
#[derive(Clone, Default)]
pub struct TrustStore {
    anchors: Vec<Cert>,
    signers: Vec<Cert>,
    crls: Vec<Crl>,
    master_lists: usize,
    problems: Vec<TrustProblem>,
}

/// A file of a trust folder that could not be used, and why; the rest of the folder loads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustProblem {
    /// The file's name (not its path: reports show it to callers).
    pub file: String,
    pub reason: String,
}

impl std::fmt::Display for TrustProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.file, self.reason)
    }
}

/// A CRL whose signature has not yet been checked (that needs its issuer, a CSCA).
#[derive(Clone)]
pub struct Crl {
    pub parsed: CertificateList,
    pub der: Vec<u8>,
}

/// What loading added, for the operator's log line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TrustCounts {
    pub csca_certificates: usize,
    pub document_signer_certificates: usize,
    pub master_lists: usize,
    pub crls: usize,
}

impl TrustStore {
    /// An empty store: chains end at `no_trust_anchor`.
    pub fn new() -> TrustStore {
        TrustStore::default()
    }

    /// Whether anything can anchor a chain.
    pub fn is_empty(&self) -> bool {
        self.anchors.is_empty()
    }

    /// Whether anything was loaded: a certificate, a master list or a CRL.
    pub fn loaded_anything(&self) -> bool {
        !self.anchors.is_empty() || !self.signers.is_empty() || !self.crls.is_empty()
    }

    /// The files of the folders added that could not be used.
    pub fn problems(&self) -> &[TrustProblem] {
        &self.problems
    }

    pub fn counts(&self) -> TrustCounts {
        TrustCounts {
            csca_certificates: self.anchors.len(),
            document_signer_certificates: self.signers.len(),
            master_lists: self.master_lists,
            crls: self.crls.len(),
        }
    }

    pub(crate) fn anchors(&self) -> &[Cert] {
        &self.anchors
    }

    /// Document signer certificates supplied beside the CSCAs, for SODs that do not carry
    /// theirs.
    pub(crate) fn signers(&self) -> &[Cert] {
        &self.signers
    }

    pub(crate) fn crls(&self) -> &[Crl] {
        &self.crls
    }

    /// Adds every trust file of a folder (not its subfolders), in name order. A file that
    /// cannot be used (not a certificate, master list or CRL, a list whose signature does not
    /// verify or uses an algorithm this build cannot check) is left out and recorded in
    /// [`TrustStore::problems`], and the rest load; only a folder that cannot be read is an
    /// error.
    pub fn add_dir(&mut self, dir: &Path) -> Result<(), TrustError> {
        let read_dir =
            |e: std::io::Error| TrustError::Io { path: dir.to_path_buf(), reason: e.to_string() };
        let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(read_dir)?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|path| path.is_file())
            .filter(|path| !path.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')))
            .collect();
        paths.sort();
        for path in paths {
            if let Err(error) = self.add_file(&path) {
                let reason = match error {
                    TrustError::Io { reason, .. } | TrustError::Unusable { reason, .. } => reason,
                    TrustError::TooLarge { limit, .. } => format!("larger than {limit} bytes"),
                };
                let file = path.file_name().map_or_else(
                    || path.display().to_string(),
                    |name| name.to_string_lossy().into_owned(),
                );
                self.problems.push(TrustProblem { file, reason });
            }
        }
        Ok(())
    }

    /// Adds one trust file.
    pub fn add_file(&mut self, path: &Path) -> Result<(), TrustError> {
        let io =
            |e: std::io::Error| TrustError::Io { path: path.to_path_buf(), reason: e.to_string() };
        let size = std::fs::metadata(path).map_err(io)?.len();
        if size > MAX_TRUST_FILE {
            return Err(TrustError::TooLarge { path: path.to_path_buf(), limit: MAX_TRUST_FILE });
        }
        let bytes = std::fs::read(path).map_err(io)?;
        self.add_bytes(&bytes)
            .map_err(|reason| TrustError::Unusable { path: path.to_path_buf(), reason })
    }

    /// Adds certificates, a master list or a CRL from their PEM or DER encoding.
    pub fn add_bytes(&mut self, bytes: &[u8]) -> Result<(), String> {
        if bytes.starts_with(b"-----BEGIN")
            || std::str::from_utf8(bytes).is_ok_and(|t| t.contains("-----BEGIN"))
        {
            return self.add_pem(bytes);
        }
        if let Ok(cert) = Cert::from_der(bytes) {
            self.add_certificate(cert);
            return Ok(());
        }
        let crl = CertificateList::from_der(bytes).ok().or_else(|| {
            ber::to_der(bytes).ok().and_then(|der| CertificateList::from_der(&der).ok())
        });
        if let Some(crl) = crl {
            self.crls.push(Crl { parsed: crl, der: bytes.to_vec() });
            return Ok(());
        }
        match Signed::parse("master list", bytes) {
            Ok(signed) => self.add_master_list(&signed),
            Err(_) => Err("not a certificate, a CSCA master list or a CRL (PEM or DER)".into()),
        }
    }

    /// Every certificate and CRL block of a PEM file, or none when one is unreadable.
    fn add_pem(&mut self, bytes: &[u8]) -> Result<(), String> {
        let text = std::str::from_utf8(bytes).map_err(|_| "PEM that is not text".to_string())?;
        let mut certificates = Vec::new();
        let mut crls = Vec::new();
        for block in pem_blocks(text) {
            match block.label {
                "CERTIFICATE" => {
                    let der = pem_der(block.text).ok_or("unreadable PEM certificate")?;
                    certificates.push(Cert::from_der(&der)?);
                }
                "X509 CRL" => {
                    let der = pem_der(block.text).ok_or("unreadable PEM CRL")?;
                    let crl = CertificateList::from_der(&der).map_err(|e| format!("CRL: {e}"))?;
                    crls.push(Crl { parsed: crl, der });
                }
                _ => {}
            }
        }
        if certificates.is_empty() && crls.is_empty() {
            return Err("PEM without a CERTIFICATE or X509 CRL block".into());
        }
        for cert in certificates {
            self.add_certificate(cert);
        }
        self.crls.extend(crls);
        Ok(())
    }

    fn add_certificate(&mut self, cert: Cert) {
        if cert.is_ca() { self.anchors.push(cert) } else { self.signers.push(cert) }
    }

    /// A master list's certificates are trusted only when its signature verifies with its
    /// signer's certificate, that certificate is issued by a CSCA in the list (or already
    /// trusted), and the signed attributes vouch for the list.
    fn add_master_list(&mut self, signed: &Signed) -> Result<(), String> {
        if signed.content_type != ID_CSCA_MASTER_LIST {
            return Err(format!(
                "signed data of type {}, not a CSCA master list",
                signed.content_type
            ));
        }
        // CscaMasterList ::= SEQUENCE { version, certList SET OF Certificate }, in BER.
        let (list, _) = ber::parse(&signed.content).map_err(|e| format!("master list: {e}"))?;
        let list = ber::children(list.content).map_err(|e| format!("master list: {e}"))?;
        let set = list.get(1).ok_or("master list without certificates")?;
        let mut listed = Vec::new();
        for element in ber::children(set.content).map_err(|e| format!("master list: {e}"))? {
            // A list carries hundreds of certificates; one this parser refuses is left out
            // rather than make the whole list unusable.
            if let Ok(cert) = Cert::from_der(element.whole) {
                listed.push(cert);
            }
        }
        let own: Vec<&Cert> = signed.certificates.iter().collect();
        let (signer, _) =
            signed.find_signer(&own).ok_or("master list without its signer's certificate")?;
        let check = signed.check_signer(signer, ID_CSCA_MASTER_LIST);
        match check.signature {
            SignatureCheck::Verified => {}
            SignatureCheck::Invalid => {
                return Err("the master list's signature does not verify".into());
            }
            SignatureCheck::Unsupported(what) => {
                return Err(format!(
                    "unsupported algorithm: the master list is signed with {what}"
                ));
            }
        }
        if let Some(problem) = check.attributes_problem {
            return Err(format!(
                "the master list's signature does not cover its content: {problem}"
            ));
        }
        let mut unsupported = None;
        let issued =
            listed.iter().chain(self.anchors.iter()).filter(|csca| signer.names_issuer(csca)).any(
                |csca| match signer.signed_by(csca) {
                    SignatureCheck::Verified => true,
                    SignatureCheck::Invalid => false,
                    SignatureCheck::Unsupported(what) => {
                        unsupported = Some(what);
                        false
                    }
                },
            );
        if let (false, Some(what)) = (issued, unsupported) {
            return Err(format!(
                "unsupported algorithm: the master list's signer certificate is signed with {what}"
            ));
        }
        if !issued {
            return Err(
                "the master list's signer is not issued by a CSCA in it or in the trust store"
                    .into(),
            );
        }
        self.anchors.extend(listed);
        self.master_lists += 1;
        Ok(())
    }
}

struct PemBlock<'a> {
    label: &'a str,
    text: &'a str,
}

/// The PEM blocks of a text (a file may hold several certificates, and text around them).
fn pem_blocks(text: &str) -> Vec<PemBlock<'_>> {
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("-----BEGIN ") {
        let after = &rest[start + 11..];
        let Some(label_end) = after.find("-----") else { break };
        let label = &after[..label_end];
        let end_marker = format!("-----END {label}-----");
        let Some(end) = rest[start..].find(&end_marker) else { break };
        let block_end = start + end + end_marker.len();
        blocks.push(PemBlock { label, text: &rest[start..block_end] });
        rest = &rest[block_end..];
    }
    blocks
}

fn pem_der(block: &str) -> Option<Vec<u8>> {
    der::pem::decode_vec(block.as_bytes()).ok().map(|(_, der)| der)
}
