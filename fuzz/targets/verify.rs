//! Fuzzes Passive Authentication's parsers: EF.SOD (CMS SignedData, the LDS security object,
//! certificates) and data group files must verify, be refuted or be refused without panicking.
//! Input: two bytes giving the length of the EF.SOD part, then EF.SOD, then one data group.

#![no_main]

use std::time::{Duration, UNIX_EPOCH};

use libfuzzer_sys::fuzz_target;
use mrtd_chip::TrustStore;
use mrtd_mrz::Date;

fuzz_target!(|data: &[u8]| {
    let Some((head, rest)) = data.split_first_chunk::<2>() else { return };
    let at = usize::from(u16::from_be_bytes(*head)).min(rest.len());
    let (sod, group) = rest.split_at(at);
    let now = UNIX_EPOCH + Duration::from_secs(1_780_000_000);
    let today = Date::new(2026, 6, 1).expect("date");
    if let Ok(report) = mrtd_chip::verify(sod, &[group], &TrustStore::new(), now, today) {
        assert!(!report.authentic, "nothing is authentic without a trust anchor");
    }
});
