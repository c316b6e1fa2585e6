//! Passive and Active Authentication of an eMRTD chip (ICAO 9303 parts 10 and 11).
//!
//! Given EF.SOD and the data groups an NFC reader read from a passport or identity card chip,
//! [`verify`] checks that every data group's hash is the one EF.SOD signs, that EF.SOD's
//! signature verifies with the document signer certificate, and that this certificate chains
//! to a CSCA in the operator's [`TrustStore`]. [`verify_with_aa`] also checks the chip's
//! answer to a reader's challenge with DG15's key (Active Authentication: the chip is the
//! issued one, not a copy). DG1's MRZ is read with `mrtd-mrz`, and [`compare_mrz`] sets it
//! against the printed zone of a scan.
//!
//! No IO besides loading trust files, nothing kept, nothing logged: data groups (DG2 is the
//! holder's face) are hashed and dropped. ASN.1 decoding is `der`, `cms` and `x509-cert` (BER
//! through `src/ber.rs`); digests and signatures are RustCrypto's, and for the curves no crate
//! offers, `src/weierstrass.rs`'s.

mod access;
mod active;
mod ber;
mod cert;
mod chain;
mod crypto;
mod error;
mod lds;
mod raw;
mod report;
mod signed;
mod trust;
mod weierstrass;

use std::time::SystemTime;

use mrtd_mrz::{Date, ParseOptions, Sex};

pub use access::{ChipAccess, chip_access};
pub use active::{AaChallenge, MAX_CHALLENGE as MAX_AA_CHALLENGE, MAX_RESPONSE as MAX_AA_RESPONSE};
pub use error::{ChipError, TrustError};
pub use lds::{MAX_DATA_GROUPS, data_group_number};
pub use report::{
    ActiveAuthentication, ActiveAuthenticationStatus, CertificateSummary, ChainStatus, ChipMrz,
    ChipReport, DataGroupResult, DataGroupStatus, Diagnostic, FieldMatch, FieldMatchStatus,
    MrzFields, MrzMatch, SignatureStatus, SignerMatch,
};
pub use trust::{MAX_TRUST_FILE, TrustCounts, TrustProblem, TrustStore};

use crate::cert::Cert;
use crate::crypto::SignatureCheck;
use crate::lds::{ID_LDS_SECURITY_OBJECT, Sod};

/// The largest EF.SOD accepted (real ones are a few kilobytes; with a certificate chain, tens).
pub const MAX_SOD_BYTES: usize = 256 * 1024;

/// Verifies EF.SOD and the data groups given against it (none: EF.SOD alone, its signature
/// and chain), at `now` (used when EF.SOD carries no signing time), with `today` as the MRZ
/// reference date.
pub fn verify(
    sod: &[u8],
    data_groups: &[&[u8]],
    trust: &TrustStore,
    now: SystemTime,
    today: Date,
) -> Result<ChipReport, ChipError> {
    verify_with_aa(sod, data_groups, None, trust, now, today)
}

/// [`verify`], and Active Authentication when `aa` gives the challenge a reader sent the chip
/// and its answer (checked with DG15's key, which must be among `data_groups`).
pub fn verify_with_aa(
    sod: &[u8],
    data_groups: &[&[u8]],
    aa: Option<AaChallenge<'_>>,
    trust: &TrustStore,
    now: SystemTime,
    today: Date,
) -> Result<ChipReport, ChipError> {
    check_aa_sizes(aa.as_ref())?;
    let now = der::DateTime::from_system_time(now).unwrap_or(der::DateTime::INFINITY);
    check_sod_size(sod)?;
    let groups = lds::identify(data_groups)?;
    let sod = Sod::parse(sod)?;
    let mut diagnostics = trust_diagnostics(trust);
    let hashes = check_hashes(&groups, &sod, &mut diagnostics);
    let signature = check_signature(&sod, trust, &mut diagnostics);

    // The chain.
    let signing_time = sod.signed.signing_time();
    let at = signing_time.unwrap_or(now);
    let (chain, anchor) = match &signature.signer {
        None => (ChainStatus::NotChecked, None),
        Some(cert) => chain::check(
            cert,
            &chain::When { at, signed_at: signing_time.is_some(), now },
            trust,
            &sod.signed.certificates,
            &mut diagnostics,
        ),
    };

    let mrz = groups
        .iter()
        .find(|g| g.number == 1)
        .map(|dg1| chip_mrz(dg1.bytes, today, &mut diagnostics));

    let active_authentication = check_active_authentication(aa, &groups, &hashes.results);
    if let Some(reason) = &active_authentication.reason {
        diagnostics.push(diag("active_authentication", reason.clone()));
    }

    let DataGroupHashes { results, not_supplied } = hashes;
    let SignatureOutcome { signer, signer_found_by, status: signature } = signature;
    let authentic = signature == SignatureStatus::Verified
        && chain == ChainStatus::Trusted
        && results.iter().all(|r| r.status == DataGroupStatus::Verified);
    Ok(ChipReport {
        authentic,
        signature,
        chain,
        data_groups: results,
        not_supplied,
        hash_algorithm: match sod.hash {
            Ok(hash) => hash.name().to_string(),
            Err(oid) => oid.to_string(),
        },
        lds_version: sod.lds_version,
        unicode_version: sod.unicode_version,
        signing_time: signing_time.map(|t| t.to_string()),
        signer: signer.as_ref().map(Cert::summary),
        signer_found_by,
        trust_anchor: anchor.map(|a| a.summary()),
        mrz,
        mrz_match: None,
        authentic_chip: authentic
            && active_authentication.status == ActiveAuthenticationStatus::Verified,
        active_authentication,
        diagnostics,
    })
}

/// Refuses an Active Authentication challenge or response that is empty or too long.
fn check_aa_sizes(aa: Option<&AaChallenge<'_>>) -> Result<(), ChipError> {
    if let Some(aa) = aa {
        for (what, bytes, limit) in [
            ("the Active Authentication challenge", aa.challenge, active::MAX_CHALLENGE),
            ("the Active Authentication response", aa.response, active::MAX_RESPONSE),
        ] {
            if bytes.is_empty() || bytes.len() > limit {
                return Err(ChipError::Malformed {
                    what,
                    reason: format!("{} bytes; 1 to {limit}", bytes.len()),
                });
            }
        }
    }
    Ok(())
}

/// Refuses an EF.SOD larger than [`MAX_SOD_BYTES`].
fn check_sod_size(sod: &[u8]) -> Result<(), ChipError> {
    if sod.len() > MAX_SOD_BYTES {
        return Err(ChipError::Malformed {
            what: "EF.SOD",
            reason: format!("{} bytes; at most {MAX_SOD_BYTES}", sod.len()),
        });
    }
    Ok(())
}

/// One diagnostic for each trust file that was not loaded.
fn trust_diagnostics(trust: &TrustStore) -> Vec<Diagnostic> {
    trust
        .problems()
        .iter()
        .map(|problem| {
            diag(
                "trust_file_unusable",
                format!("the trust file {} was not loaded: {}", problem.file, problem.reason),
            )
        })
        .collect()
}

/// Each data group's hash checked against EF.SOD's, and the groups EF.SOD signs that were not
/// given.
struct DataGroupHashes {
    /// One result per data group given, by number.
    results: Vec<DataGroupResult>,
    /// The numbers of the data groups EF.SOD has a hash for and that were not given.
    not_supplied: Vec<u8>,
}

/// Checks each data group's hash against the one EF.SOD signs, with a diagnostic for each
/// that differs or is missing, for an unknown hash algorithm and when no group was given.
fn check_hashes(
    groups: &[lds::DataGroup<'_>],
    sod: &Sod,
    diagnostics: &mut Vec<Diagnostic>,
) -> DataGroupHashes {
    let mut results: Vec<DataGroupResult> = groups
        .iter()
        .map(|group| {
            let status = match (sod.hashes.get(&group.number), sod.hash) {
                (None, _) => DataGroupStatus::NotInSod,
                (Some(_), Err(_)) => DataGroupStatus::NotChecked,
                (Some(signed), Ok(hash)) if hash.digest(group.bytes) == *signed => {
                    DataGroupStatus::Verified
                }
                (Some(_), Ok(_)) => DataGroupStatus::Mismatch,
            };
            DataGroupResult { number: group.number, status }
        })
        .collect();
    results.sort_by_key(|r| r.number);
    if let Err(oid) = sod.hash {
        diagnostics.push(diag("unknown_hash_algorithm", format!("EF.SOD hashes with {oid}")));
    }
    for result in &results {
        match result.status {
            DataGroupStatus::Mismatch => diagnostics.push(diag(
                "data_group_mismatch",
                format!("DG{}'s hash is not the one EF.SOD signs", result.number),
            )),
            DataGroupStatus::NotInSod => diagnostics.push(diag(
                "data_group_not_in_sod",
                format!("EF.SOD has no hash for DG{}", result.number),
            )),
            _ => {}
        }
    }
    let not_supplied: Vec<u8> =
        sod.hashes.keys().copied().filter(|n| !groups.iter().any(|g| g.number == *n)).collect();
    if groups.is_empty() {
        diagnostics.push(diag(
            "no_data_groups",
            "no data group was given: EF.SOD's signature and chain are checked, and none of the data it signs",
        ));
    }
    DataGroupHashes { results, not_supplied }
}

/// EF.SOD's signer and whether its signature verifies.
struct SignatureOutcome {
    /// The document signer certificate, when EF.SOD carries it or the trust store has it.
    signer: Option<Cert>,
    /// How the signer was identified, when it was.
    signer_found_by: Option<SignerMatch>,
    status: SignatureStatus,
}

/// Finds EF.SOD's signer among the certificates it carries and the trust store's, and checks
/// its signature, with a diagnostic when the signer was found another way than by its
/// identifier, is missing or the signature does not verify.
fn check_signature(
    sod: &Sod,
    trust: &TrustStore,
    diagnostics: &mut Vec<Diagnostic>,
) -> SignatureOutcome {
    let candidates: Vec<&Cert> = sod.signed.certificates.iter().chain(trust.signers()).collect();
    let found = sod.signed.find_signer(&candidates);
    let signer_found_by = found.map(|(_, rule)| rule);
    let signer = found.map(|(cert, _)| cert.clone());
    match signer_found_by {
        Some(SignerMatch::IssuerNameReordered) => diagnostics.push(diag(
            "signer_identified",
            "EF.SOD names its signer's issuer with the attributes in another order than the certificate does; the certificate with that serial number and those attributes was taken",
        )),
        Some(SignerMatch::SignatureKey) => diagnostics.push(diag(
            "signer_identified",
            "EF.SOD's signer identifier names no certificate it carries; the one whose key verifies the signature was taken",
        )),
        _ => {}
    }
    let status = match &signer {
        None => {
            diagnostics.push(diag(
                "no_signer_certificate",
                "EF.SOD does not carry its document signer certificate and the trust store has none that matches",
            ));
            SignatureStatus::NoSignerCertificate
        }
        Some(cert) => {
            let check = sod.signed.check_signer(cert, ID_LDS_SECURITY_OBJECT);
            match (check.signature, check.attributes_problem) {
                (SignatureCheck::Verified, None) => SignatureStatus::Verified,
                (SignatureCheck::Verified, Some(problem)) => {
                    diagnostics.push(diag("signed_attributes", problem));
                    SignatureStatus::Invalid
                }
                (SignatureCheck::Invalid, _) => {
                    diagnostics.push(diag(
                        "signature_invalid",
                        "EF.SOD's signature does not verify with the document signer's key",
                    ));
                    SignatureStatus::Invalid
                }
                (SignatureCheck::Unsupported(what), _) => {
                    diagnostics.push(diag("unsupported_algorithm", format!("cannot check {what}")));
                    SignatureStatus::UnsupportedAlgorithm
                }
            }
        }
    };
    SignatureOutcome { signer, signer_found_by, status }
}

/// Active Authentication: not supplied without `aa`, failed without DG15 or when DG15 is not
/// the one EF.SOD signs (`results`), otherwise the chip's answer checked with DG15's key.
fn check_active_authentication(
    aa: Option<AaChallenge<'_>>,
    groups: &[lds::DataGroup<'_>],
    results: &[DataGroupResult],
) -> ActiveAuthentication {
    match aa {
        None => ActiveAuthentication {
            status: ActiveAuthenticationStatus::NotSupplied,
            algorithm: None,
            reason: None,
        },
        Some(aa) => {
            let group = |n: u8| groups.iter().find(|g| g.number == n).map(|g| g.bytes);
            let status_of = |n: u8| results.iter().find(|r| r.number == n).map(|r| r.status);
            match group(15) {
                None => ActiveAuthentication {
                    status: ActiveAuthenticationStatus::Failed,
                    algorithm: None,
                    reason: Some(
                        "DG15 (the chip's Active Authentication key) was not supplied".into(),
                    ),
                },
                Some(dg15) => {
                    let mut outcome = active::check(dg15, group(14), &aa);
                    if status_of(15) != Some(DataGroupStatus::Verified) {
                        outcome.status = ActiveAuthenticationStatus::Failed;
                        outcome.reason =
                            Some("DG15 is not the one EF.SOD signs: its key proves nothing".into());
                    }
                    outcome
                }
            }
        }
    }
}

fn diag(code: &str, message: impl Into<String>) -> Diagnostic {
    Diagnostic { code: code.to_string(), message: message.into() }
}

fn chip_mrz(dg1: &[u8], today: Date, diagnostics: &mut Vec<Diagnostic>) -> ChipMrz {
    let lines = match lds::dg1_mrz(dg1) {
        Ok(lines) => lines,
        Err(reason) => {
            diagnostics.push(diag("dg1_unreadable", reason));
            return ChipMrz { lines: Vec::new(), valid: false, fields: None };
        }
    };
    match parse_exact(&lines, today) {
        Some(reading) => ChipMrz { valid: reading.valid, fields: Some(fields_of(&reading)), lines },
        None => {
            diagnostics.push(diag("dg1_not_mrz", "DG1's text is not an MRZ the parser reads"));
            ChipMrz { lines, valid: false, fields: None }
        }
    }
}

/// Reads MRZ lines with corrections off: they are taken exactly as given.
fn parse_exact(lines: &[String], today: Date) -> Option<mrtd_mrz::Reading> {
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let options = ParseOptions { correct: false, ..ParseOptions::new(today) };
    mrtd_mrz::parse_text(&refs, &options).ok()
}

fn fields_of(reading: &mrtd_mrz::Reading) -> MrzFields {
    let f = &reading.fields;
    MrzFields {
        document_code: f.document_code.clone(),
        issuer: f.issuer.clone(),
        document_number: f.document_number.clone(),
        nationality: f.nationality.clone(),
        birth_date: f.birth_date.map(|d| d.to_string()),
        expiry_date: f.expiry_date.map(|d| d.to_string()),
        sex: match f.sex {
            Sex::Male => "M".to_string(),
            Sex::Female => "F".to_string(),
            Sex::Unspecified => "<".to_string(),
            Sex::Other(c) => c.to_string(),
        },
        surname: f.surname.clone(),
        given_names: f.given_names.clone(),
        optional_data: f.optional_data.clone(),
    }
}

/// Compares DG1 with a printed MRZ (`source` says where it came from: `scan`, `mrz_lines`)
/// and records the result in the report. Returns `false` (and records nothing) when the
/// report has no readable DG1 or the printed lines are not an MRZ.
pub fn compare_mrz(report: &mut ChipReport, printed: &[String], source: &str, today: Date) -> bool {
    let Some(chip) = report.mrz.as_ref().and_then(|m| m.fields.as_ref()) else { return false };
    let Some(reading) = parse_exact(printed, today) else { return false };
    let seen = fields_of(&reading);
    // An absent optional field and an empty one are the same field.
    fn text(value: &Option<String>) -> &str {
        value.as_deref().unwrap_or_default()
    }
    let same: [(&str, bool); 10] = [
        ("document_code", chip.document_code == seen.document_code),
        ("issuer", chip.issuer == seen.issuer),
        ("document_number", chip.document_number == seen.document_number),
        ("nationality", text(&chip.nationality) == text(&seen.nationality)),
        ("birth_date", text(&chip.birth_date) == text(&seen.birth_date)),
        ("expiry_date", text(&chip.expiry_date) == text(&seen.expiry_date)),
        ("sex", chip.sex == seen.sex),
        ("surname", chip.surname == seen.surname),
        ("given_names", chip.given_names == seen.given_names),
        ("optional_data", text(&chip.optional_data) == text(&seen.optional_data)),
    ];
    let fields: Vec<FieldMatch> = same
        .into_iter()
        .map(|(field, same)| FieldMatch {
            field: field.to_string(),
            status: if same { FieldMatchStatus::Same } else { FieldMatchStatus::Different },
        })
        .collect();
    let matches = fields.iter().all(|f| f.status == FieldMatchStatus::Same);
    if !matches {
        report.diagnostics.push(diag(
            "mrz_mismatch",
            "DG1 on the chip and the printed MRZ differ (see mrz_match)",
        ));
    }
    report.mrz_match = Some(MrzMatch { matches, source: source.to_string(), fields });
    true
}
