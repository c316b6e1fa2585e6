//! Fuzzes the W3C trace context parsers: any text is parsed or refused without panicking,
//! and whatever parses prints back to a value that parses to the same context.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mrtd_server::observe::{TraceParent, valid_tracestate};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Some(parent) = TraceParent::parse(text) {
        let printed = parent.to_string();
        assert_eq!(printed.len(), 55);
        assert_eq!(TraceParent::parse(&printed), Some(parent));
        assert!(parent.trace_id != [0; 16] && parent.parent_id != [0; 8]);
    }
    if let Some(state) = valid_tracestate(text) {
        assert!(state.len() <= 512);
        assert!(text.contains(state));
    }
});
