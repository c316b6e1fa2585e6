//! Fuzzes the BER that EF.SOD and master lists may use (indefinite and long lengths, content in
//! pieces): any bytes given as EF.SOD alone, and as a trust file, are verified, refuted or
//! refused, never a panic, and nothing is authentic without a trust anchor.

#![no_main]

use std::time::{Duration, UNIX_EPOCH};

use libfuzzer_sys::fuzz_target;
use mrtd_chip::TrustStore;
use mrtd_mrz::Date;

fuzz_target!(|data: &[u8]| {
    let now = UNIX_EPOCH + Duration::from_secs(1_780_000_000);
    let today = Date::new(2026, 6, 1).expect("date");
    if let Ok(report) = mrtd_chip::verify(data, &[], &TrustStore::new(), now, today) {
        assert!(!report.authentic, "nothing is authentic without a trust anchor");
    }
    let mut trust = TrustStore::new();
    if trust.add_bytes(data).is_err() {
        assert!(trust.is_empty(), "a refused file adds nothing");
    }
});
