//! Fuzzes Active Authentication: any DG15 (an RSA or EC key), challenge and answer are
//! verified or refused without a panic, beside an EF.SOD OpenSSL made that does not sign that
//! DG15, so the chip is never called authentic. Input: one byte giving the challenge's length,
//! two the DG15's, then the challenge, DG15 and the answer.

#![no_main]

use std::time::{Duration, UNIX_EPOCH};

use libfuzzer_sys::fuzz_target;
use mrtd_chip::{AaChallenge, TrustStore};
use mrtd_mrz::Date;

const SOD: &[u8] = include_bytes!("../../crates/chip/tests/data/EF.SOD");

fuzz_target!(|data: &[u8]| {
    let Some((&[challenge_len, a, b], rest)) = data.split_first_chunk::<3>() else { return };
    let challenge_len = usize::from(challenge_len).min(rest.len());
    let (challenge, rest) = rest.split_at(challenge_len);
    let dg15_len = usize::from(u16::from_be_bytes([a, b])).min(rest.len());
    let (dg15, response) = rest.split_at(dg15_len);
    let now = UNIX_EPOCH + Duration::from_secs(1_780_000_000);
    let today = Date::new(2026, 6, 1).expect("date");
    let aa = AaChallenge { challenge, response };
    if let Ok(report) =
        mrtd_chip::verify_with_aa(SOD, &[dg15], Some(aa), &TrustStore::new(), now, today)
    {
        assert!(!report.authentic_chip, "a DG15 EF.SOD does not sign proves nothing");
    }
});
