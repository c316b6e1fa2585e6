//! The parsers hold on damaged input, as the fuzz targets check at length: OpenSSL's EF.SODs
//! (DER and BER), master lists and an Active Authentication answer, with bytes changed,
//! inserted and cut by a fixed pseudo-random sequence, are verified, refuted or refused, never
//! a panic, and a changed chip answer never passes.

use std::path::Path;
use std::time::SystemTime;

use mrtd_chip::{AaChallenge, TrustStore};
use mrtd_mrz::Date;

fn data(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// xorshift64: the same sequence on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n.max(1) as u64).unwrap_or(0)
    }
}

/// One damage: a byte changed, a length-like byte (0x80, 0x84, 0xFF) put in, or a cut.
fn damage(rng: &mut Rng, bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let at = rng.below(out.len());
    match rng.below(4) {
        0 => out[at] ^= 1 << rng.below(8),
        1 => out[at] = [0x80, 0x84, 0xFF, 0x00][rng.below(4)],
        2 => out.insert(at, [0x80, 0x00, 0x30, 0x24][rng.below(4)]),
        _ => out.truncate(at),
    }
    out
}

#[test]
fn damaged_sods_and_master_lists_never_panic() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let groups = [data("EF.DG1"), data("EF.DG14")];
    let refs: Vec<&[u8]> = groups.iter().map(Vec::as_slice).collect();
    let mut german = TrustStore::new();
    german.add_bytes(&data("de/csca.pem")).expect("CSCA");
    let today = Date::today_utc();
    for name in ["de/BER.SOD", "de/EF.SOD", "curves/brainpoolP512r1.SOD", "curves/P-224.SOD"] {
        let sod = data(name);
        for _ in 0..150 {
            let damaged = damage(&mut rng, &sod);
            let _ = mrtd_chip::verify(&damaged, &refs, &german, SystemTime::now(), today);
            let _ = mrtd_chip::verify(&damaged, &[], &TrustStore::new(), SystemTime::now(), today);
        }
    }
    for name in ["de/BER.ml", "de/de.ml"] {
        let list = data(name);
        for _ in 0..150 {
            let _ = TrustStore::new().add_bytes(&damage(&mut rng, &list));
        }
    }
}

#[test]
fn damaged_active_authentication_answers_never_pass() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let groups = [data("EF.DG1"), data("EF.DG14"), data("aa/EF.DG15")];
    let refs: Vec<&[u8]> = groups.iter().map(Vec::as_slice).collect();
    let mut trust = TrustStore::new();
    trust.add_bytes(&data("de/csca.pem")).expect("CSCA");
    let sod = data("aa/EF.SOD");
    let response = data("aa/response");
    let challenge = [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77];
    for _ in 0..200 {
        let damaged = damage(&mut rng, &response);
        if damaged.is_empty() {
            continue;
        }
        let aa = AaChallenge { challenge: &challenge, response: &damaged };
        let report = mrtd_chip::verify_with_aa(
            &sod,
            &refs,
            Some(aa),
            &trust,
            SystemTime::now(),
            Date::today_utc(),
        )
        .expect("readable");
        assert_eq!(report.authentic_chip, damaged == response, "{damaged:02X?}");
    }
}
