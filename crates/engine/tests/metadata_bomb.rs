//! A small PNG whose compressed colour profile inflates to a quarter of a gigabyte costs
//! the reader no more than a few megabytes. Alone in its test binary, so that the
//! process's peak memory is this test's.

use std::io::Cursor;

use mrtd_engine::{EngineBuilder, ParseOptions, Status};

/// Bits written least significant first, as deflate packs them.
struct Bits {
    bytes: Vec<u8>,
    used: u32,
}

impl Bits {
    /// Appends the `count` low bits of `value`, lowest first.
    fn value(&mut self, value: u32, count: u32) {
        for i in 0..count {
            if self.used.is_multiple_of(8) {
                self.bytes.push(0);
            }
            if value >> i & 1 == 1 {
                *self.bytes.last_mut().unwrap() |= 1 << (self.used % 8);
            }
            self.used += 1;
        }
    }

    /// Appends a Huffman code, its most significant bit first.
    fn code(&mut self, code: u32, count: u32) {
        for i in (0..count).rev() {
            self.value(code >> i & 1, 1);
        }
    }
}

/// A zlib stream of `1 + 258 * runs` zero bytes: one literal, then copies of 258 bytes at
/// distance 1, in one block with the fixed Huffman codes (13 bits a copy).
fn zeros_zlib(runs: usize) -> Vec<u8> {
    let mut bits = Bits { bytes: vec![0x78, 0x01], used: 16 };
    bits.value(1, 1); // last block
    bits.value(1, 2); // fixed Huffman codes
    bits.code(0x30, 8); // literal 0
    for _ in 0..runs {
        bits.code(0xC5, 8); // length 258 (code 285)
        bits.code(0, 5); // distance 1
    }
    bits.code(0, 7); // end of block
    let total = (1 + 258 * runs) as u32;
    let adler = ((total % 65_521) << 16) | 1;
    let mut stream = bits.bytes;
    stream.extend_from_slice(&adler.to_be_bytes());
    stream
}

/// A 64 x 64 PNG with an `iCCP` chunk holding `profile` (already compressed).
fn png_with_compressed_profile(profile: &[u8]) -> Vec<u8> {
    let image = image::GrayImage::from_pixel(64, 64, image::Luma([200]));
    let mut plain = Vec::new();
    image.write_to(&mut Cursor::new(&mut plain), image::ImageFormat::Png).expect("encode");
    // Signature (8 bytes) and IHDR (25 bytes) first, then the profile, then the rest.
    let mut data = b"icc\0\0".to_vec();
    data.extend_from_slice(profile);
    let mut chunk = (data.len() as u32).to_be_bytes().to_vec();
    let mut body = b"iCCP".to_vec();
    body.extend_from_slice(&data);
    chunk.extend_from_slice(&body);
    chunk.extend_from_slice(&crc32fast::hash(&body).to_be_bytes());
    let mut bytes = plain[..33].to_vec();
    bytes.extend_from_slice(&chunk);
    bytes.extend_from_slice(&plain[33..]);
    bytes
}

/// The peak resident memory of this process, in bytes.
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("Linux /proc");
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).expect("VmHWM");
    line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 1024
}

#[test]
fn a_profile_that_inflates_to_256_mib_costs_a_few_megabytes() {
    let engine = EngineBuilder::new().build();
    let bomb = png_with_compressed_profile(&zeros_zlib(1_040_000));
    assert!(bomb.len() < 2 << 20, "{} bytes", bomb.len());
    let before = peak_rss();
    // The profile is of no use to the reader: the image is read as if it had none.
    let reading = engine.read(&bomb, &ParseOptions::default()).expect("the image itself is fine");
    assert_eq!(reading.status, Status::NoMrz);
    let grew = peak_rss().saturating_sub(before);
    assert!(grew < 64 << 20, "reading the file raised peak memory by {grew} bytes");
}
