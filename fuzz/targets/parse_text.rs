//! Fuzzes the MRZ text reader: any UTF-8 text, split into lines, must read or be refused
//! without panicking, and a reading must serialise.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mrtd_mrz::{Date, ParseOptions, parse_text};

fuzz_target!(|data: &[u8]| {
    let Some((&day_offset, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    // The first byte moves the reference date, which drives the century rules.
    let reference = Date::from_days_since_epoch(i64::from(day_offset) * 200);
    let lines: Vec<&str> = text.lines().collect();
    if let Ok(reading) = parse_text(&lines, &ParseOptions::new(reference)) {
        assert_eq!(reading.lines.len(), reading.format.shape().0);
    }
});
