//! Fuzzes the half-size JPEG decoder on its own: any bytes must decode or be left to
//! the general decoder (`None`) without panicking, and a picture it returns must have
//! the size the headers declared, halved.

#![no_main]

use libfuzzer_sys::fuzz_target;

/// Pixels the fuzzed decoder accepts at full size: 2 megapixels.
const MAX_PIXELS: u64 = 2_000_000;

fuzz_target!(|data: &[u8]| {
    let mut declared = None;
    let half = mrtd_engine::jpeg::decode_half_luma(data, |width, height| {
        declared = Some((width, height));
        u64::from(width) * u64::from(height) <= MAX_PIXELS
    });
    if let Some(half) = half {
        let (width, height) = declared.expect("the size is asked before decoding");
        assert_eq!((half.width, half.height), (width, height));
        assert_eq!(half.gray.width, width.div_ceil(2) as usize);
        assert_eq!(half.gray.height, height.div_ceil(2) as usize);
        assert_eq!(half.gray.data.len(), half.gray.width * half.gray.height);
    }
});
