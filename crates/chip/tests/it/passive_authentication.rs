//! Passive Authentication against a test PKI made here: genuine documents verify with their
//! CSCA, and every tampering, wrong anchor, expiry and revocation is refuted.

use crate::pki;

use mrtd_chip::{
    ChainStatus, ChipError, ChipReport, DataGroupStatus, FieldMatchStatus, SignatureStatus,
    SignerMatch, TrustStore,
};
use std::time::SystemTime;

use mrtd_mrz::Date;
use pki::{CSCA_NAME, DS_NAME, MRZ, OTHER_CSCA_NAME, SignOptions, SodKey, now, years};

fn today() -> Date {
    Date::new(2026, 12, 1).expect("date")
}

struct Document {
    csca: Vec<u8>,
    ds: Vec<u8>,
    groups: Vec<Vec<u8>>,
    sod: Vec<u8>,
}

impl Document {
    fn groups(&self) -> Vec<&[u8]> {
        self.groups.iter().map(Vec::as_slice).collect()
    }

    fn verify(&self, trust: &TrustStore) -> ChipReport {
        mrtd_chip::verify(&self.sod, &self.groups(), trust, now(), today()).expect("readable")
    }

    fn trust(&self) -> TrustStore {
        let mut trust = TrustStore::new();
        trust.add_bytes(&self.csca).expect("CSCA");
        trust
    }
}

fn groups() -> Vec<Vec<u8>> {
    vec![
        pki::dg1(&MRZ),
        pki::data_group(2, b"\x7F\x61\x03\x02\x01\x01 a face image would be here"),
        pki::data_group(14, b"\x31\x03\x02\x01\x01 security infos"),
    ]
}

/// How a test document's document signer and EF.SOD are made; the CSCA is always
/// `pki::ec_key(1)`'s.
struct Spec<'a> {
    key: SodKey<'a>,
    serial: u32,
    valid: (SystemTime, SystemTime),
    include_certificate: bool,
    signing_time: Option<SystemTime>,
}

impl Spec<'_> {
    fn spki(&self) -> spki::SubjectPublicKeyInfoOwned {
        match self.key {
            SodKey::Ecdsa(key) => pki::ec_spki(key),
            SodKey::RsaPss(key) => pki::rsa_spki(key),
        }
    }
}

fn document(spec: Spec<'_>) -> Document {
    let csca_key = pki::ec_key(1);
    let csca = pki::csca(&csca_key, CSCA_NAME);
    let ds = pki::issue(&csca_key, CSCA_NAME, DS_NAME, spec.spki(), false, spec.serial, spec.valid);
    let groups = groups();
    let refs: Vec<&[u8]> = groups.iter().map(Vec::as_slice).collect();
    let options = SignOptions {
        key: spec.key,
        certificate: &ds,
        include_certificate: spec.include_certificate,
        signing_time: spec.signing_time,
    };
    let sod = pki::sod(&refs, &options);
    Document { csca, ds, groups, sod }
}

/// Valid from a year ago for ten years.
fn current() -> (SystemTime, SystemTime) {
    (now() - years(1), now() + years(10))
}

/// An ECDSA P-256 document signer (serial 7) under an ECDSA CSCA.
fn ecdsa_document() -> Document {
    document(Spec {
        key: SodKey::Ecdsa(&pki::ec_key(2)),
        serial: 7,
        valid: current(),
        include_certificate: true,
        signing_time: Some(now() - years(1) / 2),
    })
}

#[test]
fn a_genuine_document_is_authentic_with_its_csca() {
    let doc = ecdsa_document();
    let report = doc.verify(&doc.trust());
    assert!(report.authentic, "{report:#?}");
    assert_eq!(report.signature, SignatureStatus::Verified);
    assert_eq!(report.chain, ChainStatus::Trusted);
    let statuses: Vec<(u8, DataGroupStatus)> =
        report.data_groups.iter().map(|g| (g.number, g.status)).collect();
    assert_eq!(
        statuses,
        [
            (1, DataGroupStatus::Verified),
            (2, DataGroupStatus::Verified),
            (14, DataGroupStatus::Verified)
        ]
    );
    assert!(report.not_supplied.is_empty());
    assert_eq!(report.hash_algorithm, "sha256");
    let mrz = report.mrz.as_ref().expect("DG1");
    assert_eq!(mrz.lines, MRZ);
    assert!(mrz.valid);
    assert_eq!(mrz.fields.as_ref().expect("fields").document_number, "L898902C3");
    let signer = report.signer.as_ref().expect("signer");
    assert!(signer.subject.contains("Test Document Signer"), "{}", signer.subject);
    assert_eq!(signer.public_key, "ECDSA P-256");
    assert_eq!(signer.signature_algorithm, "ecdsa-with-SHA256");
    assert!(report.trust_anchor.as_ref().expect("anchor").subject.contains("Test CSCA"));
    assert!(report.signing_time.is_some());
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
}

#[test]
fn without_a_trust_store_the_signature_verifies_but_nothing_is_authentic() {
    let doc = ecdsa_document();
    let report = doc.verify(&TrustStore::new());
    assert!(!report.authentic);
    assert_eq!(report.signature, SignatureStatus::Verified);
    assert_eq!(report.chain, ChainStatus::NoTrustAnchor);
    assert!(report.data_groups.iter().all(|g| g.status == DataGroupStatus::Verified));
    assert!(report.diagnostics.iter().any(|d| d.code == "no_trust_anchor"));
}

#[test]
fn another_states_csca_does_not_anchor_the_chain() {
    let doc = ecdsa_document();
    let mut trust = TrustStore::new();
    trust.add_bytes(&pki::csca(&pki::ec_key(9), OTHER_CSCA_NAME)).expect("CSCA");
    let report = doc.verify(&trust);
    assert!(!report.authentic);
    assert_eq!(report.chain, ChainStatus::Untrusted);
    // Same name, other key: still refuted by the signature on the certificate.
    let mut impostor = TrustStore::new();
    impostor.add_bytes(&pki::csca(&pki::ec_key(9), CSCA_NAME)).expect("CSCA");
    assert_eq!(doc.verify(&impostor).chain, ChainStatus::Untrusted);
}

#[test]
fn a_changed_byte_in_a_data_group_is_a_mismatch() {
    let mut doc = ecdsa_document();
    let last = doc.groups[1].len() - 1;
    doc.groups[1][last] ^= 0x01;
    let report = doc.verify(&doc.trust());
    assert!(!report.authentic);
    assert_eq!(report.signature, SignatureStatus::Verified);
    assert_eq!(report.data_groups[1].status, DataGroupStatus::Mismatch);
    assert_eq!(report.data_groups[0].status, DataGroupStatus::Verified);
    assert!(report.diagnostics.iter().any(|d| d.code == "data_group_mismatch"));
}

#[test]
fn a_changed_byte_in_the_signature_is_refuted() {
    let mut doc = ecdsa_document();
    // The signature is the last element of EF.SOD.
    let last = doc.sod.len() - 1;
    doc.sod[last] ^= 0x01;
    let report = doc.verify(&doc.trust());
    assert!(!report.authentic);
    assert_eq!(report.signature, SignatureStatus::Invalid);
}

#[test]
fn a_changed_hash_inside_the_signed_content_is_refuted() {
    let doc = ecdsa_document();
    // Change one byte of DG1's hash as EF.SOD stores it: the signature over the signed
    // attributes still verifies, but they no longer vouch for the content.
    let dg1_hash = sha2_256(&doc.groups[0]);
    let at = find(&doc.sod, &dg1_hash).expect("DG1 hash inside EF.SOD");
    let mut sod = doc.sod.clone();
    sod[at] ^= 0x01;
    let report =
        mrtd_chip::verify(&sod, &doc.groups(), &doc.trust(), now(), today()).expect("readable");
    assert!(!report.authentic);
    assert_eq!(report.signature, SignatureStatus::Invalid);
    assert!(
        report.diagnostics.iter().any(|d| d.code == "signed_attributes"),
        "{:?}",
        report.diagnostics
    );
}

#[test]
fn an_rsa_pss_document_signer_verifies() {
    let rsa = pki::rsa_key();
    let doc = document(Spec {
        key: SodKey::RsaPss(&rsa),
        serial: 8,
        valid: current(),
        include_certificate: true,
        signing_time: None,
    });
    let report = doc.verify(&doc.trust());
    assert!(report.authentic, "{report:#?}");
    assert_eq!(report.signer.as_ref().expect("signer").public_key, "RSA 2048");
    assert!(report.signing_time.is_none());
    let mut tampered = doc;
    let last = tampered.sod.len() - 1;
    tampered.sod[last] ^= 0x80;
    assert_eq!(tampered.verify(&tampered.trust()).signature, SignatureStatus::Invalid);
}

#[test]
fn an_sod_alone_is_checked_for_its_signature_and_chain() {
    let doc = ecdsa_document();
    let report = mrtd_chip::verify(&doc.sod, &[], &doc.trust(), now(), today()).expect("readable");
    assert!(report.authentic, "{report:#?}");
    assert_eq!((report.signature, report.chain), (SignatureStatus::Verified, ChainStatus::Trusted));
    assert!(report.data_groups.is_empty());
    assert_eq!(report.not_supplied, [1, 2, 14]);
    assert!(report.mrz.is_none());
    assert!(report.diagnostics.iter().any(|d| d.code == "no_data_groups"));
    let mut changed = doc.sod.clone();
    let last = changed.len() - 1;
    changed[last] ^= 0x01;
    let report = mrtd_chip::verify(&changed, &[], &doc.trust(), now(), today()).expect("readable");
    assert!(!report.authentic);
}

#[test]
fn an_sod_without_a_signing_time_is_judged_today_and_says_so() {
    let doc = document(Spec {
        key: SodKey::Ecdsa(&pki::ec_key(5)),
        serial: 9,
        valid: (now() - years(5), now() - years(3)),
        include_certificate: true,
        signing_time: None,
    });
    let report = doc.verify(&doc.trust());
    assert_eq!(report.chain, ChainStatus::Expired);
    let expired = report.diagnostics.iter().find(|d| d.code == "expired").expect("a diagnostic");
    assert!(expired.message.contains("today"), "{}", expired.message);
    assert!(!expired.message.contains("when EF.SOD was signed"), "{}", expired.message);
}

#[test]
fn a_signer_expired_when_it_signed_is_expired() {
    let doc = document(Spec {
        key: SodKey::Ecdsa(&pki::ec_key(5)),
        serial: 9,
        valid: (now() - years(5), now() - years(3)),
        include_certificate: true,
        signing_time: Some(now() - years(1)),
    });
    let report = doc.verify(&doc.trust());
    assert!(!report.authentic);
    assert_eq!(report.signature, SignatureStatus::Verified);
    assert_eq!(report.chain, ChainStatus::Expired);
    let expired = report.diagnostics.iter().find(|d| d.code == "expired").expect("a diagnostic");
    assert!(expired.message.contains("when EF.SOD was signed"), "{}", expired.message);
}

#[test]
fn a_document_signer_from_the_trust_store_serves_an_sod_without_one() {
    let doc = document(Spec {
        key: SodKey::Ecdsa(&pki::ec_key(2)),
        serial: 7,
        valid: current(),
        include_certificate: false,
        signing_time: None,
    });
    let mut trust = doc.trust();
    let report = doc.verify(&trust);
    assert_eq!(report.signature, SignatureStatus::NoSignerCertificate);
    assert!(!report.authentic);
    trust.add_bytes(&doc.ds).expect("document signer");
    let report = doc.verify(&trust);
    assert!(report.authentic, "{report:#?}");
}

#[test]
fn the_signer_is_found_as_the_standards_find_it_and_the_report_says_how() {
    let csca_key = pki::ec_key(1);
    let ds_key = pki::ec_key(2);
    let csca = pki::csca(&csca_key, CSCA_NAME);
    let ds = pki::issue(&csca_key, CSCA_NAME, DS_NAME, pki::ec_spki(&ds_key), false, 7, current());
    let mut trust = TrustStore::new();
    trust.add_bytes(&csca).expect("CSCA");
    let groups = groups();
    let refs: Vec<&[u8]> = groups.iter().map(Vec::as_slice).collect();
    let options = SignOptions {
        key: SodKey::Ecdsa(&ds_key),
        certificate: &ds,
        include_certificate: true,
        signing_time: Some(now()),
    };
    let named = |sid: Option<pki::Sid<'_>>| {
        let sod = pki::sod_naming(&refs, &options, sid);
        mrtd_chip::verify(&sod, &refs, &trust, now(), today()).expect("readable")
    };
    let signer_notes = |report: &ChipReport| {
        report.diagnostics.iter().filter(|d| d.code == "signer_identified").count()
    };

    let exact = named(None);
    assert!(exact.authentic);
    assert_eq!(exact.signer_found_by, Some(SignerMatch::IssuerAndSerialNumber));
    assert_eq!(signer_notes(&exact), 0);

    // RFC 5280 §7.1: case and insignificant spaces do not make another name.
    let spaced = named(Some(pki::Sid::Name("CN=test   csca,O=TEST State ,C=ut", 7)));
    assert!(spaced.authentic, "{spaced:#?}");
    assert_eq!(spaced.signer_found_by, Some(SignerMatch::IssuerAndSerialNumber));
    assert_eq!(signer_notes(&spaced), 0);

    // The issuer's attributes in another order (as a Malaysian EF.SOD names its signer).
    let reordered = named(Some(pki::Sid::Name("C=UT,O=Test State,CN=Test CSCA", 7)));
    assert!(reordered.authentic, "{reordered:#?}");
    assert_eq!(reordered.signer_found_by, Some(SignerMatch::IssuerNameReordered));
    assert_eq!(signer_notes(&reordered), 1);

    // By subject key identifier, and by one that names no certificate.
    let key_id = <x509_cert::Certificate as der::Decode>::from_der(&ds)
        .expect("certificate")
        .tbs_certificate()
        .get_extension::<x509_cert::ext::pkix::SubjectKeyIdentifier>()
        .expect("extensions")
        .expect("a key identifier")
        .1;
    let by_key_id = named(Some(pki::Sid::KeyId(key_id.0.as_bytes())));
    assert!(by_key_id.authentic, "{by_key_id:#?}");
    assert_eq!(by_key_id.signer_found_by, Some(SignerMatch::SubjectKeyIdentifier));
    let unknown_id = named(Some(pki::Sid::KeyId(&[1, 2, 3])));
    assert_eq!(unknown_id.signer_found_by, Some(SignerMatch::SignatureKey));

    // An identifier that names no certificate: the one whose key verifies is taken.
    let stranger = named(Some(pki::Sid::Name("CN=Nobody,C=XX", 99)));
    assert!(stranger.authentic, "{stranger:#?}");
    assert_eq!(stranger.signer_found_by, Some(SignerMatch::SignatureKey));
    assert_eq!(signer_notes(&stranger), 1);

    // ... but not a certificate whose key does not verify it.
    let other_key = pki::ec_key(3);
    let other_ds =
        pki::issue(&csca_key, CSCA_NAME, DS_NAME, pki::ec_spki(&other_key), false, 8, current());
    let wrong = SignOptions { certificate: &other_ds, ..options };
    let sod = pki::sod_naming(
        &refs,
        &SignOptions { key: SodKey::Ecdsa(&ds_key), ..wrong },
        Some(pki::Sid::Name("CN=Nobody,C=XX", 99)),
    );
    let report = mrtd_chip::verify(&sod, &refs, &trust, now(), today()).expect("readable");
    assert_eq!(report.signature, SignatureStatus::NoSignerCertificate);
    assert!(!report.authentic);
}

#[test]
fn a_master_list_is_trusted_only_when_its_signature_holds() {
    let doc = ecdsa_document();
    let csca_key = pki::ec_key(1);
    let mls_key = pki::ec_key(6);
    let mls = pki::issue(
        &csca_key,
        CSCA_NAME,
        "CN=Master List Signer,O=Test State,C=UT",
        pki::ec_spki(&mls_key),
        false,
        11,
        (now() - years(1), now() + years(1)),
    );
    let other = pki::csca(&pki::ec_key(9), OTHER_CSCA_NAME);
    let list = pki::master_list(
        &[&doc.csca, &other],
        &SignOptions {
            key: SodKey::Ecdsa(&mls_key),
            certificate: &mls,
            include_certificate: true,
            signing_time: None,
        },
    );
    let mut trust = TrustStore::new();
    trust.add_bytes(&list).expect("master list");
    assert_eq!(trust.counts().master_lists, 1);
    assert_eq!(trust.counts().csca_certificates, 2);
    assert!(doc.verify(&trust).authentic);

    // A byte changed in the list (here in a certificate it carries) breaks its signature.
    let mut tampered = list.clone();
    let at = find(
        &tampered,
        OTHER_CSCA_NAME.split(',').next().expect("cn").trim_start_matches("CN=").as_bytes(),
    )
    .expect("name in list");
    tampered[at] ^= 0x20;
    let error = TrustStore::new().add_bytes(&tampered).expect_err("tampered list");
    assert!(error.contains("signature"), "{error}");

    // A list signed by a signer no listed CSCA issued is refused.
    let stranger = pki::issue(
        &pki::ec_key(12),
        "CN=Stranger,C=UT",
        "CN=Master List Signer,C=UT",
        pki::ec_spki(&mls_key),
        false,
        12,
        (now() - years(1), now() + years(1)),
    );
    let list = pki::master_list(
        &[&other],
        &SignOptions {
            key: SodKey::Ecdsa(&mls_key),
            certificate: &stranger,
            include_certificate: true,
            signing_time: None,
        },
    );
    let error = TrustStore::new().add_bytes(&list).expect_err("unanchored list");
    assert!(error.contains("not issued"), "{error}");
}

#[test]
fn pem_trust_files_and_folders_load() {
    let doc = ecdsa_document();
    let dir = tempfile::tempdir().expect("dir");
    let pem =
        der::pem::encode_string("CERTIFICATE", der::pem::LineEnding::LF, &doc.csca).expect("pem");
    std::fs::write(dir.path().join("csca.pem"), format!("Test CSCA\n{pem}")).expect("write");
    let mut trust = TrustStore::new();
    trust.add_dir(dir.path()).expect("folder");
    assert_eq!(trust.counts().csca_certificates, 1);
    assert!(doc.verify(&trust).authentic);

    assert!(trust.problems().is_empty());
}

#[test]
fn a_trust_folder_survives_a_file_it_cannot_use_and_says_why() {
    let doc = ecdsa_document();
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("csca.der"), &doc.csca).expect("write");
    std::fs::write(dir.path().join("notes.txt"), "not a certificate").expect("write");
    let mut trust = TrustStore::new();
    trust.add_dir(dir.path()).expect("the folder loads");
    assert_eq!(trust.counts().csca_certificates, 1);
    assert!(trust.loaded_anything());
    let problems = trust.problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].file, "notes.txt");
    assert!(problems[0].reason.contains("not a certificate"), "{}", problems[0]);

    let report = doc.verify(&trust);
    assert!(report.authentic, "the rest of the folder anchors the chain: {report:#?}");
    let note = report
        .diagnostics
        .iter()
        .find(|d| d.code == "trust_file_unusable")
        .expect("the unusable file is reported");
    assert!(note.message.contains("notes.txt"), "{}", note.message);

    let junk_only = tempfile::tempdir().expect("dir");
    std::fs::write(junk_only.path().join("notes.txt"), "not a certificate").expect("write");
    let mut trust = TrustStore::new();
    trust.add_dir(junk_only.path()).expect("readable");
    assert!(!trust.loaded_anything());
}

#[test]
fn dg1_is_compared_with_the_printed_zone() {
    let doc = ecdsa_document();
    let mut report = doc.verify(&doc.trust());
    let printed: Vec<String> = MRZ.iter().map(|l| l.to_string()).collect();
    assert!(mrtd_chip::compare_mrz(&mut report, &printed, "mrz_lines", today()));
    let matched = report.mrz_match.as_ref().expect("match");
    assert!(matched.matches);
    assert!(matched.fields.iter().all(|f| f.status == FieldMatchStatus::Same));

    let other = [
        MRZ[0].to_string(),
        "L898902C36UTO7408122F1204159ZE184226B<<<<<10".replace("7408122", "7508129"),
    ];
    let mut report = doc.verify(&doc.trust());
    assert!(mrtd_chip::compare_mrz(&mut report, &other, "mrz_lines", today()));
    let matched = report.mrz_match.as_ref().expect("match");
    assert!(!matched.matches);
    let different: Vec<&str> = matched
        .fields
        .iter()
        .filter(|f| f.status == FieldMatchStatus::Different)
        .map(|f| f.field.as_str())
        .collect();
    assert_eq!(different, ["birth_date"]);
    assert!(report.authentic, "the chip itself still verifies");
}

#[test]
fn unreadable_input_gets_a_clear_error() {
    let doc = ecdsa_document();
    let groups = doc.groups();
    let check = |sod: &[u8], groups: &[&[u8]]| {
        mrtd_chip::verify(sod, groups, &TrustStore::new(), now(), today())
    };

    let truncated = &doc.sod[..doc.sod.len() / 2];
    assert!(matches!(check(truncated, &groups), Err(ChipError::Malformed { what: "EF.SOD", .. })));
    let huge_length = [0x77, 0x84, 0xFF, 0xFF, 0xFF, 0xF0, 0x30];
    assert!(matches!(check(&huge_length, &groups), Err(ChipError::Malformed { .. })));
    assert!(matches!(check(b"", &groups), Err(ChipError::Malformed { .. })));
    assert!(
        matches!(check(&doc.groups[0], &groups), Err(ChipError::Malformed { .. })),
        "DG1 given as EF.SOD"
    );

    let error = check(&doc.sod, &[b"\x30\x00".as_slice()]).expect_err("not a data group");
    assert!(error.to_string().contains("0x30"), "{error}");
    let error = check(&doc.sod, &[groups[0], groups[0]]).expect_err("twice");
    assert!(error.to_string().contains("twice"), "{error}");
    let error = check(&doc.sod, &[&groups[0][..10]]).expect_err("cut data group");
    assert!(error.to_string().contains("DG1"), "{error}");
    let many: Vec<&[u8]> = std::iter::repeat_n(groups[0], 17).collect();
    assert!(matches!(check(&doc.sod, &many), Err(ChipError::TooManyDataGroups { given: 17, .. })));
}

#[test]
fn the_report_serialises_with_the_documented_names() {
    let doc = ecdsa_document();
    let json = serde_json::to_value(doc.verify(&TrustStore::new())).expect("json");
    assert_eq!(json["signature"], "verified");
    assert_eq!(json["chain"], "no_trust_anchor");
    assert_eq!(json["authentic"], false);
    assert_eq!(json["data_groups"][0], serde_json::json!({"number": 1, "status": "verified"}));
    assert_eq!(json["mrz"]["lines"][1], MRZ[1]);
}

fn sha2_256(bytes: &[u8]) -> Vec<u8> {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).to_vec()
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[test]
fn status_names_are_the_json_names() {
    use mrtd_chip::{ChainStatus as C, DataGroupStatus as D, SignatureStatus as S};
    let json = |value: serde_json::Value| value.as_str().expect("a string").to_owned();
    for s in [S::Verified, S::Invalid, S::UnsupportedAlgorithm, S::NoSignerCertificate] {
        assert_eq!(s.as_str(), json(serde_json::to_value(s).expect("json")));
    }
    for c in [
        C::Trusted,
        C::NoTrustAnchor,
        C::Untrusted,
        C::Expired,
        C::Revoked,
        C::WrongKeyUsage,
        C::UnsupportedAlgorithm,
        C::NotChecked,
    ] {
        assert_eq!(c.as_str(), json(serde_json::to_value(c).expect("json")));
    }
    for d in [D::Verified, D::Mismatch, D::NotInSod, D::NotChecked] {
        assert_eq!(d.as_str(), json(serde_json::to_value(d).expect("json")));
    }
}

#[test]
fn a_crl_from_the_csca_revokes_the_document_signer_and_a_forged_one_does_not() {
    let doc = ecdsa_document();
    let csca_key = pki::ec_key(1);
    let mut trust = doc.trust();
    trust.add_bytes(&pki::crl(&csca_key, &doc.csca, &[3, 4])).expect("a CRL of others");
    assert_eq!(doc.verify(&trust).chain, ChainStatus::Trusted);
    trust.add_bytes(&pki::crl(&csca_key, &doc.csca, &[7])).expect("a CRL revoking serial 7");
    assert_eq!(trust.counts().crls, 2);
    let report = doc.verify(&trust);
    assert_eq!(report.chain, ChainStatus::Revoked);
    assert!(!report.authentic);

    // The same list signed by another key under the CSCA's name revokes nothing.
    let mut forged = doc.trust();
    forged.add_bytes(&pki::crl(&pki::ec_key(9), &doc.csca, &[7])).expect("a forged CRL");
    assert_eq!(doc.verify(&forged).chain, ChainStatus::Trusted);
}

#[test]
fn a_crl_past_its_next_update_is_stale_and_a_current_one_is_not() {
    let doc = ecdsa_document();
    let csca_key = pki::ec_key(1);
    let stale_note = |report: &ChipReport| report.diagnostics.iter().any(|d| d.code == "crl_stale");

    let mut fresh = doc.trust();
    fresh
        .add_bytes(&pki::crl_until(&csca_key, &doc.csca, &[99], Some(now() + years(1) / 12)))
        .expect("CRL");
    let report = doc.verify(&fresh);
    assert!(report.authentic, "{report:#?}");
    assert!(!stale_note(&report));

    let mut stale = doc.trust();
    stale
        .add_bytes(&pki::crl_until(&csca_key, &doc.csca, &[99], Some(now() - years(1) / 12)))
        .expect("CRL");
    let report = doc.verify(&stale);
    assert_eq!(report.chain, ChainStatus::Trusted, "a stale CRL is said, not held against it");
    assert!(stale_note(&report), "{report:#?}");

    // A stale CRL still revokes what it lists.
    let mut revoking = doc.trust();
    revoking
        .add_bytes(&pki::crl_until(&csca_key, &doc.csca, &[7], Some(now() - years(1) / 12)))
        .expect("CRL");
    assert_eq!(doc.verify(&revoking).chain, ChainStatus::Revoked);
}

#[test]
fn a_csca_link_certificate_is_followed_to_the_csca_in_the_trust_store() {
    const NEW_CSCA_NAME: &str = "CN=Test CSCA 2,O=Test State,C=UT";
    let old_key = pki::ec_key(1);
    let new_key = pki::ec_key(4);
    let ds_key = pki::ec_key(2);
    let old = pki::csca(&old_key, CSCA_NAME);
    let valid = (now() - years(2), now() + years(10));
    // The new CSCA's key, certified by the old one (the link), and a document signer it issued.
    let link =
        pki::issue(&old_key, CSCA_NAME, NEW_CSCA_NAME, pki::ec_spki(&new_key), true, 2, valid);
    let ds =
        pki::issue(&new_key, NEW_CSCA_NAME, DS_NAME, pki::ec_spki(&ds_key), false, 7, current());
    let groups = groups();
    let refs: Vec<&[u8]> = groups.iter().map(Vec::as_slice).collect();
    let options = SignOptions {
        key: SodKey::Ecdsa(&ds_key),
        certificate: &ds,
        include_certificate: true,
        signing_time: Some(now()),
    };
    let store = |certs: &[&[u8]]| {
        let mut trust = TrustStore::new();
        for cert in certs {
            trust.add_bytes(cert).expect("certificate");
        }
        trust
    };
    let check = |sod: &[u8], trust: &TrustStore| {
        mrtd_chip::verify(sod, &refs, trust, now(), today()).expect("readable")
    };
    let plain = pki::sod(&refs, &options);
    let carrying = pki::sod_carrying(&refs, &options, &[&link]);

    // The old CSCA alone does not anchor a document signer of the new key ...
    assert_eq!(check(&plain, &store(&[&old])).chain, ChainStatus::Untrusted);
    // ... but through the link EF.SOD carries, it does, and the report says so.
    let report = check(&carrying, &store(&[&old]));
    assert!(report.authentic, "{report:#?}");
    assert!(report.trust_anchor.as_ref().expect("anchor").subject.contains("CN=Test CSCA,"));
    assert!(report.diagnostics.iter().any(|d| d.code == "csca_link"), "{report:#?}");
    // The link in the trust folder beside the old CSCA anchors it too.
    assert!(check(&plain, &store(&[&old, &link])).authentic);
    // A link EF.SOD carries is no anchor of its own: with another state's CSCA, untrusted.
    let other = pki::csca(&pki::ec_key(9), OTHER_CSCA_NAME);
    assert_eq!(check(&carrying, &store(&[&other])).chain, ChainStatus::Untrusted);
    // A forged link (the old CSCA's name, another key) is not followed.
    let forged = pki::issue(
        &pki::ec_key(12),
        CSCA_NAME,
        NEW_CSCA_NAME,
        pki::ec_spki(&new_key),
        true,
        3,
        valid,
    );
    let report = check(&pki::sod_carrying(&refs, &options, &[&forged]), &store(&[&old]));
    assert_eq!(report.chain, ChainStatus::Untrusted, "{report:#?}");
}
