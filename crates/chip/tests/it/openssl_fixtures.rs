//! EF.SOD, a CSCA master list and certificates made by OpenSSL (`tests/data/
//! make-openssl-fixtures.sh`): another implementation's CMS, explicit brainpool parameters and
//! RSASSA-PSS with the largest salt verify, and the wrong anchor or a changed byte does not.

use std::path::Path;
use std::time::SystemTime;

use mrtd_chip::{
    ChainStatus, ChipReport, DataGroupStatus, SignatureStatus, SignerMatch, TrustStore,
};
use mrtd_mrz::Date;

fn data(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn trust(files: &[&str]) -> TrustStore {
    let mut trust = TrustStore::new();
    for file in files {
        trust.add_bytes(&data(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    }
    trust
}

fn verify(sod: &[u8], trust: &TrustStore) -> ChipReport {
    let groups = [data("EF.DG1"), data("EF.DG14")];
    let refs: Vec<&[u8]> = groups.iter().map(Vec::as_slice).collect();
    let today = Date::today_utc();
    mrtd_chip::verify(sod, &refs, trust, SystemTime::now(), today).expect("readable")
}

#[test]
fn an_openssl_signed_sod_is_authentic_with_its_csca_only() {
    let report = verify(&data("EF.SOD"), &trust(&["utopia-csca.pem"]));
    assert!(report.authentic, "{report:#?}");
    assert_eq!(report.signer.as_ref().expect("signer").public_key, "ECDSA brainpoolP256r1");
    assert_eq!(
        report.trust_anchor.as_ref().expect("anchor").public_key,
        "ECDSA brainpoolP256r1",
        "the CSCA's explicit domain parameters are recognised"
    );
    assert_eq!(report.data_groups.iter().map(|g| g.number).collect::<Vec<_>>(), [1, 14]);
    assert_eq!(
        report.mrz.as_ref().expect("DG1").lines[1],
        "L898902C36UTO7408122F1204159ZE184226B<<<<<10"
    );

    let other = verify(&data("EF.SOD"), &trust(&["other-csca.pem"]));
    assert!(!other.authentic);
    assert_eq!(other.chain, ChainStatus::Untrusted);
    let none = verify(&data("EF.SOD"), &TrustStore::new());
    assert_eq!(
        (none.signature, none.chain),
        (SignatureStatus::Verified, ChainStatus::NoTrustAnchor)
    );
}

#[test]
fn an_openssl_master_list_is_a_trust_store() {
    let list = trust(&["utopia.ml"]);
    assert_eq!(list.counts().master_lists, 1);
    assert_eq!(list.counts().csca_certificates, 2);
    assert!(verify(&data("EF.SOD"), &list).authentic);

    let mut tampered = data("utopia.ml");
    let at = tampered.windows(5).position(|w| w == b"Other").expect("a name in the list");
    tampered[at] ^= 0x20;
    let error = TrustStore::new().add_bytes(&tampered).expect_err("a changed list");
    assert!(error.contains("signature"), "{error}");
}

#[test]
fn rsassa_pss_with_the_largest_salt_verifies() {
    let report = verify(&data("RSA-PSS.SOD"), &trust(&["rsa-csca.pem"]));
    assert!(report.authentic, "{report:#?}");
    assert_eq!(report.signer.as_ref().expect("signer").public_key, "RSA 2048");
    assert_eq!(report.signer.as_ref().expect("signer").signature_algorithm, "id-RSASSA-PSS");
}

#[test]
fn a_flipped_byte_anywhere_in_the_signed_parts_is_never_authentic() {
    let sod = data("EF.SOD");
    let trust = trust(&["utopia-csca.pem"]);
    // Every byte from the LDS security object's octets (offset 57 in this file) to the end:
    // content, certificate, signer info, signed attributes, signature. A flip either fails
    // to parse or is refuted. (Before it lie SignedData's version and digest algorithm list,
    // and at 601 the signer info's version: no signature covers them and no verdict rests
    // on them. After it, the signer identifier is not signed either: a changed one names no
    // certificate, and the signer is then found by its key, which the report says.)
    assert_eq!((sod[602], sod[603] < 0x80), (0x30, true), "the signer identifier");
    let identifier = 602..604 + usize::from(sod[603]);
    for at in (57..sod.len()).filter(|&at| at != 601) {
        let mut changed = sod.clone();
        changed[at] ^= 0x01;
        let groups = [data("EF.DG1"), data("EF.DG14")];
        let refs: Vec<&[u8]> = groups.iter().map(Vec::as_slice).collect();
        if let Ok(report) =
            mrtd_chip::verify(&changed, &refs, &trust, SystemTime::now(), Date::today_utc())
        {
            if identifier.contains(&at) && report.authentic {
                assert_eq!(report.signer_found_by, Some(SignerMatch::SignatureKey), "byte {at}");
                continue;
            }
            assert!(!report.authentic, "byte {at} flipped and still authentic");
        }
    }
    let mut dg1 = data("EF.DG1");
    let last = dg1.len() - 1;
    dg1[last] = b'1';
    let groups = [dg1, data("EF.DG14")];
    let refs: Vec<&[u8]> = groups.iter().map(Vec::as_slice).collect();
    let report = mrtd_chip::verify(&sod, &refs, &trust, SystemTime::now(), Date::today_utc())
        .expect("readable");
    assert_eq!(report.data_groups[0].status, DataGroupStatus::Mismatch);
    assert!(!report.authentic);
}

/// `0x77`, then `len` in four length octets (more than DER's fewest), then `content`.
fn wrap_long(content: &[u8]) -> Vec<u8> {
    let mut out = vec![0x77, 0x84];
    out.extend_from_slice(&u32::try_from(content.len()).expect("small").to_be_bytes());
    out.extend_from_slice(content);
    out
}

#[test]
fn ber_sods_and_master_lists_verify_with_the_signed_bytes_as_encoded() {
    // OpenSSL's streamed CMS: indefinite lengths throughout, the content in pieces, inside
    // an EF.SOD wrapper of indefinite length (as New Zealand's are).
    let ber = data("de/BER.SOD");
    assert_eq!(&ber[..4], [0x77, 0x80, 0x30, 0x80], "the fixture is BER");
    let german = trust(&["de/de.ml"]);
    let report = verify(&ber, &german);
    assert!(report.authentic, "{report:#?}");
    assert_eq!(report.data_groups.len(), 2);

    // The same EF.SOD with its wrapper's length in more octets than needed.
    let der = data("de/EF.SOD");
    let inner = &der[if der[1] < 0x80 { 2 } else { 2 + usize::from(der[1] & 0x7F) }..];
    assert!(verify(&wrap_long(inner), &german).authentic);

    // A BER master list loads, and a changed byte in its streamed content is refused.
    let list = data("de/BER.ml");
    let mut store = TrustStore::new();
    store.add_bytes(&list).expect("a BER master list");
    assert_eq!(store.counts().csca_certificates, 1);
    assert!(verify(&ber, &store).authentic);
    let mut tampered = list.clone();
    let at = tampered.windows(7).position(|w| w == b"Germany").expect("a name in the list");
    tampered[at] ^= 0x20;
    assert!(TrustStore::new().add_bytes(&tampered).is_err());

    // A changed byte in the BER SOD's signed content is never authentic.
    let mut changed = ber.clone();
    let hash_at = changed.len() / 4;
    changed[hash_at] ^= 0x01;
    let groups = [data("EF.DG1"), data("EF.DG14")];
    let refs: Vec<&[u8]> = groups.iter().map(Vec::as_slice).collect();
    if let Ok(report) =
        mrtd_chip::verify(&changed, &refs, &german, SystemTime::now(), Date::today_utc())
    {
        assert!(!report.authentic);
    }
}

#[test]
fn an_openssl_made_active_authentication_answer_verifies_and_another_challenge_fails() {
    let groups = [data("EF.DG1"), data("EF.DG14"), data("aa/EF.DG15")];
    let refs: Vec<&[u8]> = groups.iter().map(Vec::as_slice).collect();
    let trust = trust(&["de/csca.pem"]);
    let response = data("aa/response");
    let check = |challenge: &[u8]| {
        let aa = mrtd_chip::AaChallenge { challenge, response: &response };
        mrtd_chip::verify_with_aa(
            &data("aa/EF.SOD"),
            &refs,
            Some(aa),
            &trust,
            SystemTime::now(),
            Date::today_utc(),
        )
        .expect("readable")
    };
    let report = check(&[0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77]);
    assert!(report.authentic_chip, "{report:#?}");
    assert_eq!(report.active_authentication.algorithm.as_deref(), Some("ECDSA P-256 with sha256"));
    let report = check(&[0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x78]);
    assert!(report.authentic && !report.authentic_chip);
}
