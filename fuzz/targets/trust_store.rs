//! Fuzzes the trust store's readers: any bytes given as a trust file (a certificate in PEM or
//! DER, a CSCA master list, a CRL) are taken or refused with a reason, never a panic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mrtd_chip::TrustStore;

fuzz_target!(|data: &[u8]| {
    let mut trust = TrustStore::new();
    if trust.add_bytes(data).is_err() {
        assert!(trust.is_empty(), "a refused file adds nothing");
    }
});
