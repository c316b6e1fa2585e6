//! Fuzzes the image front end: any bytes must read, or be refused with an `ImageError`,
//! without panicking, and within the engine's limits.
//!
//! The limits are lowered so a run spends its time on decoders and the pipeline rather
//! than on a few legitimately large pictures; a decompression bomb (a small file that
//! declares or inflates to a huge image) must be refused, never decoded. Fewer candidate
//! regions are read than in the product: each runs the same code, and the classifier, a
//! hundred times slower under the fuzzer's comparison tracing, would otherwise spend
//! seconds of every noisy picture reading eight of them.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use mrtd_engine::{Engine, EngineBuilder, EngineConfig, ImageError};
use mrtd_mrz::{Date, ParseOptions};

/// Pixels the fuzzed engine accepts: 2 megapixels.
const MAX_PIXELS: u64 = 2_000_000;
/// Encoded bytes the fuzzed engine accepts.
const MAX_BYTES: usize = 1 << 20;
/// Candidate regions the fuzzed engine reads.
const MAX_CANDIDATES: usize = 2;

fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let config = EngineConfig {
            max_pixels: MAX_PIXELS,
            max_bytes: MAX_BYTES,
            max_candidates: MAX_CANDIDATES,
        };
        EngineBuilder::new().config(config).build()
    })
}

fuzz_target!(|data: &[u8]| {
    let options = ParseOptions::new(Date::from_days_since_epoch(20_000));
    match engine().read(data, &options) {
        Ok(reading) => {
            let pixels = reading.image_width as u64 * reading.image_height as u64;
            assert!(pixels <= MAX_PIXELS, "decoded {pixels} pixels past the limit");
            assert!(reading.image_width > 0 && reading.image_height > 0);
        }
        Err(ImageError::TooLarge { bytes, limit }) => assert!(bytes > limit),
        Err(ImageError::TooManyPixels { pixels, limit, .. }) => assert!(pixels > limit),
        Err(_) => {}
    }
});
