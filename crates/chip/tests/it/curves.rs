//! Every curve ICAO 9303 allows (NIST P-192 to P-521, brainpoolP160r1 to P512r1), with keys,
//! certificates and EF.SODs OpenSSL made (`tests/data/make-curve-fixtures.sh`): each CSCA
//! gives its curve by explicit domain parameters, each document signer by name.

use std::path::Path;
use std::time::SystemTime;

use mrtd_chip::{ChainStatus, ChipReport, SignatureStatus, TrustStore};
use mrtd_mrz::Date;

const CURVES: [&str; 12] = [
    "P-192",
    "P-224",
    "P-256",
    "P-384",
    "P-521",
    "brainpoolP160r1",
    "brainpoolP192r1",
    "brainpoolP224r1",
    "brainpoolP256r1",
    "brainpoolP320r1",
    "brainpoolP384r1",
    "brainpoolP512r1",
];

fn data(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn verify(sod: &[u8], trust: &TrustStore) -> ChipReport {
    let groups = [data("EF.DG1"), data("EF.DG14")];
    let refs: Vec<&[u8]> = groups.iter().map(Vec::as_slice).collect();
    mrtd_chip::verify(sod, &refs, trust, SystemTime::now(), Date::today_utc()).expect("readable")
}

fn trust(file: &str) -> TrustStore {
    let mut trust = TrustStore::new();
    trust.add_bytes(&data(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    trust
}

#[test]
fn an_sod_on_every_icao_curve_is_authentic_with_its_csca() {
    for curve in CURVES {
        let report = verify(
            &data(&format!("curves/{curve}.SOD")),
            &trust(&format!("curves/{curve}-csca.pem")),
        );
        assert!(report.authentic, "{curve}: {report:#?}");
        let expected = format!("ECDSA {curve}");
        assert_eq!(report.signer.as_ref().expect("signer").public_key, expected);
        assert_eq!(
            report.trust_anchor.as_ref().expect("anchor").public_key,
            expected,
            "{curve}: the CSCA's explicit parameters are recognised"
        );
    }
}

#[test]
fn a_csca_key_in_compressed_form_verifies_on_p224_and_brainpool_p512() {
    for curve in ["P-224", "brainpoolP512r1"] {
        let report = verify(
            &data(&format!("curves/{curve}-compressed.SOD")),
            &trust(&format!("curves/{curve}-compressed-csca.pem")),
        );
        assert!(report.authentic, "{curve}: {report:#?}");
        assert_eq!(
            report.trust_anchor.as_ref().expect("anchor").public_key,
            format!("ECDSA {curve}")
        );
    }
}

#[test]
fn on_every_curve_a_changed_signature_and_another_curves_csca_are_refuted() {
    for (i, curve) in CURVES.iter().enumerate() {
        let sod = data(&format!("curves/{curve}.SOD"));
        let other = CURVES[(i + 1) % CURVES.len()];
        let report = verify(&sod, &trust(&format!("curves/{other}-csca.pem")));
        assert_eq!(report.chain, ChainStatus::Untrusted, "{curve} under {other}'s CSCA");
        // The last bytes of EF.SOD are the signature's s.
        let mut changed = sod.clone();
        let last = changed.len() - 2;
        changed[last] ^= 0x01;
        let report = verify(&changed, &trust(&format!("curves/{curve}-csca.pem")));
        assert_eq!(report.signature, SignatureStatus::Invalid, "{curve}: {report:#?}");
        assert!(!report.authentic);
    }
}

#[test]
fn a_csca_on_a_curve_icao_does_not_name_is_unsupported_not_untrusted() {
    // brainpoolP256r1's explicit parameters with the coefficient b changed: no curve this
    // build knows, so the chain cannot be checked, and says so.
    let pem = String::from_utf8(data("curves/brainpoolP256r1-csca.pem")).expect("text");
    let der = pem_to_der(&pem);
    let b = hex("26DC5C6CE94A4B44F330B5D9BBD77CBF958416295CF7E1CE6BCCDC18FF8C07B6");
    let at = der.windows(b.len()).position(|w| w == b).expect("b in the parameters");
    let mut changed = der.clone();
    changed[at + 31] ^= 0x01;
    let mut store = TrustStore::new();
    store.add_bytes(&changed).expect("still a certificate");
    let report = verify(&data("curves/brainpoolP256r1.SOD"), &store);
    assert_eq!(report.chain, ChainStatus::UnsupportedAlgorithm, "{report:#?}");
    assert!(!report.authentic);
    let unsupported = report
        .diagnostics
        .iter()
        .find(|d| d.code == "unsupported_algorithm")
        .expect("a diagnostic");
    assert!(unsupported.message.contains("explicit parameters"), "{}", unsupported.message);
    assert!(!report.diagnostics.iter().any(|d| d.code == "untrusted"), "{report:#?}");
}

#[test]
fn a_master_list_signed_under_a_brainpool_p512_csca_loads_and_its_sod_is_authentic() {
    let mut store = TrustStore::new();
    store.add_bytes(&data("utopia.ml")).expect("the Utopian list");
    store.add_bytes(&data("de/de.ml")).expect("the German-style list");
    assert_eq!(store.counts().master_lists, 2);
    let report = verify(&data("de/EF.SOD"), &store);
    assert!(report.authentic, "{report:#?}");
    assert_eq!(report.trust_anchor.as_ref().expect("anchor").public_key, "ECDSA brainpoolP512r1");
    assert!(verify(&data("EF.SOD"), &store).authentic, "the other list's documents still verify");
}

fn pem_to_der(pem: &str) -> Vec<u8> {
    let body: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
    base64_decode(&body)
}

fn base64_decode(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let (mut buffer, mut bits) = (0u32, 0);
    for c in text.bytes().filter(|c| *c != b'=') {
        let value = ALPHABET.iter().position(|&a| a == c).expect("base64") as u32;
        buffer = (buffer << 6) | value;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
        }
    }
    out
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
        .collect()
}
