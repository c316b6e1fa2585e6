//! Active Authentication: a chip's answer to a reader's challenge, checked with DG15's key
//! (RSA with ISO/IEC 9796-2 scheme 1 and each hash a trailer names, ECDSA with the hash DG14
//! names), made here with test keys; refused for a wrong challenge, a wrong key, or a DG15
//! EF.SOD does not vouch for.

use crate::pki;

use der::Encode;
use mrtd_chip::{AaChallenge, ActiveAuthenticationStatus as Aa, ChipError, ChipReport, TrustStore};
use mrtd_mrz::Date;
use num_bigint::BigUint;
use pki::{CSCA_NAME, DS_NAME, MRZ, SignOptions, SodKey, now, years};
use sha2::Digest;

const CHALLENGE: [u8; 8] = [0x4A, 0x1F, 0x07, 0xC2, 0x9E, 0x33, 0x60, 0xB5];

fn today() -> Date {
    Date::new(2026, 12, 1).expect("date")
}

fn dg15(spki: &spki::SubjectPublicKeyInfoOwned) -> Vec<u8> {
    pki::data_group(15, &spki.to_der().expect("spki"))
}

/// DG14 with an ActiveAuthenticationInfo naming `algorithm` (its OID's text).
fn dg14(algorithm: &str) -> Vec<u8> {
    let oid = |text: &str| der::asn1::ObjectIdentifier::new_unwrap(text).to_der().expect("oid");
    let mut info = oid("2.23.136.1.1.5");
    info.extend([0x02, 0x01, 0x01]);
    info.extend(oid(algorithm));
    let sequence =
        der::asn1::AnyRef::new(der::Tag::Sequence, &info).expect("len").to_der().expect("seq");
    let set = der::asn1::AnyRef::new(der::Tag::Set, &sequence).expect("len").to_der().expect("set");
    pki::data_group(14, &set)
}

/// A document whose EF.SOD signs `signed`, a trust store with its CSCA.
fn signed(signed: &[&[u8]]) -> (Vec<u8>, TrustStore) {
    let csca_key = pki::ec_key(1);
    let ds_key = pki::ec_key(2);
    let csca = pki::csca(&csca_key, CSCA_NAME);
    let valid = (now() - years(1), now() + years(5));
    let ds = pki::issue(&csca_key, CSCA_NAME, DS_NAME, pki::ec_spki(&ds_key), false, 7, valid);
    let options = SignOptions {
        key: SodKey::Ecdsa(&ds_key),
        certificate: &ds,
        include_certificate: true,
        signing_time: Some(now()),
    };
    let mut trust = TrustStore::new();
    trust.add_bytes(&csca).expect("CSCA");
    (pki::sod(signed, &options), trust)
}

fn check(sod: &[u8], groups: &[&[u8]], trust: &TrustStore, response: &[u8]) -> ChipReport {
    let aa = AaChallenge { challenge: &CHALLENGE, response };
    mrtd_chip::verify_with_aa(sod, groups, Some(aa), trust, now(), today()).expect("readable")
}

/// The chip's ISO/IEC 9796-2 scheme 1 answer: `6A ‖ M1 ‖ H(M1 ‖ challenge) ‖ trailer`, raised
/// to the private exponent.
fn rsa_answer(key: &rsa::PrivateKey, trailer: &[u8], challenge: &[u8]) -> Vec<u8> {
    use rsa::traits::{PrivateKeyParts, PublicKeyParts};
    let n = BigUint::from_bytes_be(&key.n().as_ref().to_be_bytes());
    let d = BigUint::from_bytes_be(&key.d().to_be_bytes());
    let k = usize::try_from(n.bits().div_ceil(8)).expect("size");
    let hash = |data: &[u8]| -> Vec<u8> {
        match trailer {
            [0xBC] | [0x33, 0xCC] => sha1::Sha1::digest(data).to_vec(),
            [0x38, 0xCC] => sha2::Sha224::digest(data).to_vec(),
            [0x34, 0xCC] => sha2::Sha256::digest(data).to_vec(),
            [0x36, 0xCC] => sha2::Sha384::digest(data).to_vec(),
            [0x35, 0xCC] => sha2::Sha512::digest(data).to_vec(),
            _ => unreachable!("a trailer of the test"),
        }
    };
    let h_len = hash(b"").len();
    let m1: Vec<u8> = (0..k - 1 - h_len - trailer.len()).map(|i| (i * 7 + 3) as u8).collect();
    let mut message = m1.clone();
    message.extend_from_slice(challenge);
    let mut f = vec![0x6A];
    f.extend(&m1);
    f.extend(hash(&message));
    f.extend(trailer);
    let signature = BigUint::from_bytes_be(&f).modpow(&d, &n).to_bytes_be();
    let mut out = vec![0; k - signature.len()];
    out.extend(signature);
    out
}

#[test]
fn an_rsa_chip_answer_verifies_with_each_hash_its_trailer_names() {
    let key = pki::rsa_key();
    let dg1 = pki::dg1(&MRZ);
    let dg15 = dg15(&pki::rsa_spki(&key));
    let groups: [&[u8]; 2] = [&dg1, &dg15];
    let (sod, trust) = signed(&groups);
    for (trailer, hash) in [
        (&[0xBC][..], "sha1"),
        (&[0x33, 0xCC], "sha1"),
        (&[0x38, 0xCC], "sha224"),
        (&[0x34, 0xCC], "sha256"),
        (&[0x36, 0xCC], "sha384"),
        (&[0x35, 0xCC], "sha512"),
    ] {
        let report = check(&sod, &groups, &trust, &rsa_answer(&key, trailer, &CHALLENGE));
        assert_eq!(report.active_authentication.status, Aa::Verified, "{hash}: {report:#?}");
        let algorithm = report.active_authentication.algorithm.as_deref().unwrap_or_default();
        assert!(algorithm.contains("9796-2") && algorithm.ends_with(hash), "{algorithm}");
        assert!(report.authentic && report.authentic_chip);
    }

    // ISO/IEC 9796-2 lets the chip send n minus its signature, when that is smaller.
    let answer = rsa_answer(&key, &[0x34, 0xCC], &CHALLENGE);
    let n = {
        use rsa::traits::PublicKeyParts;
        BigUint::from_bytes_be(&key.n().as_ref().to_be_bytes())
    };
    let complement = (&n - BigUint::from_bytes_be(&answer)).to_bytes_be();
    let report = check(&sod, &groups, &trust, &complement);
    assert_eq!(report.active_authentication.status, Aa::Verified, "{report:#?}");

    // Another challenge's answer (a replayed one) fails.
    let replayed = rsa_answer(&key, &[0x34, 0xCC], b"another!");
    let report = check(&sod, &groups, &trust, &replayed);
    assert_eq!(report.active_authentication.status, Aa::Failed);
    assert!(report.authentic && !report.authentic_chip);
    assert!(report.diagnostics.iter().any(|d| d.code == "active_authentication"));
    // So does a changed answer.
    let mut changed = rsa_answer(&key, &[0x34, 0xCC], &CHALLENGE);
    changed[40] ^= 0x01;
    assert_eq!(check(&sod, &groups, &trust, &changed).active_authentication.status, Aa::Failed);
}

#[test]
fn an_ecdsa_chip_answer_verifies_with_the_hash_dg14_names() {
    use p256::ecdsa::signature::hazmat::PrehashSigner;
    let chip = pki::ec_key(8);
    let dg1 = pki::dg1(&MRZ);
    let dg15 = dg15(&pki::ec_spki(&chip));
    let sha384 = dg14("0.4.0.127.0.7.1.1.4.1.4");
    let answer = |key: &p256::ecdsa::SigningKey, digest: &[u8]| -> Vec<u8> {
        let signature: p256::ecdsa::Signature = key.sign_prehash(digest).expect("sign");
        signature.to_bytes().to_vec()
    };

    // No DG14: SHA-256.
    let groups: [&[u8]; 2] = [&dg1, &dg15];
    let (sod, trust) = signed(&groups);
    let report = check(&sod, &groups, &trust, &answer(&chip, &sha2::Sha256::digest(CHALLENGE)));
    assert_eq!(report.active_authentication.status, Aa::Verified, "{report:#?}");
    assert!(report.authentic_chip);
    assert_eq!(report.active_authentication.algorithm.as_deref(), Some("ECDSA P-256 with sha256"));

    // DG14 names SHA-384: an answer over SHA-384 verifies, one over SHA-256 does not.
    let groups: [&[u8]; 3] = [&dg1, &sha384, &dg15];
    let (sod, trust) = signed(&groups);
    let over_384 = answer(&chip, &sha2::Sha384::digest(CHALLENGE));
    assert_eq!(check(&sod, &groups, &trust, &over_384).active_authentication.status, Aa::Verified);
    let over_256 = answer(&chip, &sha2::Sha256::digest(CHALLENGE));
    assert_eq!(check(&sod, &groups, &trust, &over_256).active_authentication.status, Aa::Failed);

    // Another key's answer (a clone with its own key) fails.
    let clone = answer(&pki::ec_key(9), &sha2::Sha384::digest(CHALLENGE));
    let report = check(&sod, &groups, &trust, &clone);
    assert_eq!(report.active_authentication.status, Aa::Failed);
    assert!(report.authentic && !report.authentic_chip);
}

#[test]
fn dg15_must_be_supplied_and_vouched_for_by_ef_sod() {
    let chip = pki::ec_key(8);
    let dg1 = pki::dg1(&MRZ);
    let dg15 = dg15(&pki::ec_spki(&chip));
    let good = {
        use p256::ecdsa::signature::hazmat::PrehashSigner;
        let signature: p256::ecdsa::Signature =
            chip.sign_prehash(&sha2::Sha256::digest(CHALLENGE)).expect("sign");
        signature.to_bytes().to_vec()
    };

    // EF.SOD signs DG1 only: a DG15 beside it is anyone's key.
    let (sod, trust) = signed(&[&dg1]);
    let report = check(&sod, &[&dg1, &dg15], &trust, &good);
    assert_eq!(report.active_authentication.status, Aa::Failed, "{report:#?}");
    assert!(!report.authentic_chip);
    let note = report.diagnostics.iter().find(|d| d.code == "active_authentication");
    assert!(note.is_some_and(|d| d.message.contains("EF.SOD")), "{report:#?}");

    // DG15 not given at all.
    let (sod, trust) = signed(&[&dg1, &dg15]);
    let report = check(&sod, &[&dg1], &trust, &good);
    assert_eq!(report.active_authentication.status, Aa::Failed);
    // No challenge: not supplied, and the chip is not called authentic.
    let report = mrtd_chip::verify(&sod, &[&dg1, &dg15], &trust, now(), today()).expect("readable");
    assert_eq!(report.active_authentication.status, Aa::NotSupplied);
    assert!(report.authentic && !report.authentic_chip);
    let json = serde_json::to_value(&report).expect("json");
    assert_eq!(json["active_authentication"], serde_json::json!({ "status": "not_supplied" }));
    assert_eq!(json["authentic_chip"], false);

    // An empty challenge or an overlong answer is refused as input.
    let empty = AaChallenge { challenge: &[], response: &good };
    let error = mrtd_chip::verify_with_aa(&sod, &[&dg1], Some(empty), &trust, now(), today());
    assert!(matches!(error, Err(ChipError::Malformed { .. })));
}

#[test]
fn status_names_are_the_json_names() {
    for status in [Aa::Verified, Aa::Failed, Aa::NotSupplied, Aa::Unsupported] {
        assert_eq!(serde_json::to_value(status).expect("json"), status.as_str());
    }
}
