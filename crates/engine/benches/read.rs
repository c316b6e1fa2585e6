//! Reading speed on phone-sized photos, against image decoding alone.
//!
//! Run with `cargo bench -p mrtd-engine --bench read`. The photos are made in
//! memory: each specimen of `tests/data/images` is enlarged onto a 4000x3000
//! (12 MP) textured background and encoded as a colour JPEG, as a phone would. The
//! baselines, measured in the same run so that the ratios hold on any machine,
//! are decoding the same JPEG to gray with the `image` crate (colour decode,
//! then conversion) and decoding its luma channel alone, as the reader does.
//! The visual zone (`Engine::visual_zone`, read only when asked) is timed once per photo
//! in the last round, against the MRZ read of the same photo.

use std::io::Cursor;
use std::path::PathBuf;
use std::time::Instant;

use image::{Rgb, RgbImage, imageops};
use mrtd_engine::{EngineBuilder, ParseOptions};

const ROUNDS: usize = 3;

/// A 12 MP phone photo of a specimen, or of the background alone (`None`).
fn phone_photo(path: Option<&PathBuf>, seed: u32) -> Vec<u8> {
    let mut canvas = RgbImage::from_fn(4000, 3000, |x, y| {
        // A wood-like texture of stripes and noise behind the document.
        let stripe = ((x as f32 / 37.0 + (y as f32 / 91.0).sin() * 3.0).sin() * 30.0) as i32;
        let noise = ((x.wrapping_mul(2_654_435_761).wrapping_add(y.wrapping_mul(40_503)) ^ seed)
            % 23) as i32;
        let value = 110 + stripe + noise;
        let channel = |offset: i32| (value + offset).clamp(0, 255) as u8;
        Rgb([channel(30), channel(5), channel(-25)])
    });
    if let Some(path) = path {
        let specimen = image::open(path).expect("a specimen").into_rgb8();
        let scale = 2600.0 / specimen.width() as f32;
        let height = (specimen.height() as f32 * scale).min(2800.0);
        let enlarged =
            imageops::resize(&specimen, 2600, height as u32, imageops::FilterType::Triangle);
        imageops::overlay(&mut canvas, &enlarged, 700, i64::from(((3000.0 - height) / 2.0) as u32));
    }
    let mut jpeg = Vec::new();
    let encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(Cursor::new(&mut jpeg), 88);
    canvas.write_with_encoder(encoder).expect("encode");
    jpeg
}

fn percentile(values: &mut [f64], fraction: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    values[((values.len() - 1) as f64 * fraction).round() as usize]
}

fn main() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/images");
    let names = [
        "100_pass-uto.jpg",
        "100_pass-bdr.jpg",
        "100_id-si.jpg",
        "100_visa-polx.jpg",
        "62_pass-pol.png",
        "imagejs_id1.jpg",
    ];
    let photos: Vec<Vec<u8>> = names
        .iter()
        .enumerate()
        .map(|(idx, name)| phone_photo(Some(&dir.join(name)), idx as u32))
        .collect();
    let engine = EngineBuilder::new().build();
    let options = ParseOptions::default();
    let mut decode_ms = Vec::new();
    let mut luma_ms = Vec::new();
    let mut half_ms = Vec::new();
    let mut read_ms = Vec::new();
    let mut n_read = 0;
    let mut visual_ms = Vec::new();
    for round in 0..ROUNDS {
        for photo in &photos {
            let started = Instant::now();
            let gray = image::load_from_memory(photo).expect("decodable").into_luma8();
            decode_ms.push(started.elapsed().as_secs_f64() * 1000.0);
            std::hint::black_box(gray);
            let started = Instant::now();
            std::hint::black_box(luma_only(photo));
            luma_ms.push(started.elapsed().as_secs_f64() * 1000.0);
            let started = Instant::now();
            let half = mrtd_engine::jpeg::decode_half_luma(photo, |_, _| true);
            half_ms.push(started.elapsed().as_secs_f64() * 1000.0);
            assert!(std::hint::black_box(half).is_some(), "a baseline JPEG");
            let started = Instant::now();
            let reading = engine.read(photo, &options).expect("decodable");
            read_ms.push(started.elapsed().as_secs_f64() * 1000.0);
            n_read += usize::from(reading.reading.is_some());
            if round == ROUNDS - 1 {
                let started = Instant::now();
                let zone = engine.visual_zone(photo, &reading).expect("the text reader runs");
                visual_ms.push(started.elapsed().as_secs_f64() * 1000.0);
                std::hint::black_box(zone);
            }
        }
    }
    // A photo without an MRZ is read at half size, then in full: the slow case.
    let empty = phone_photo(None, 99);
    let mut empty_ms = Vec::new();
    for _ in 0..ROUNDS * 2 {
        let started = Instant::now();
        let reading = engine.read(&empty, &options).expect("decodable");
        empty_ms.push(started.elapsed().as_secs_f64() * 1000.0);
        assert!(reading.reading.is_none(), "no MRZ in the background alone");
    }
    let empty_median = percentile(&mut empty_ms, 0.5);
    let (decode_median, decode_p95) =
        (percentile(&mut decode_ms, 0.5), percentile(&mut decode_ms, 0.95));
    let (luma_median, luma_p95) = (percentile(&mut luma_ms, 0.5), percentile(&mut luma_ms, 0.95));
    let (half_median, half_p95) = (percentile(&mut half_ms, 0.5), percentile(&mut half_ms, 0.95));
    let (read_median, read_p95) = (percentile(&mut read_ms, 0.5), percentile(&mut read_ms, 0.95));
    println!("12 MP colour JPEG photos: {} reads, {n_read} with an MRZ found", read_ms.len());
    println!(
        "image crate decode to gray (baseline 1): median {decode_median:.1} ms, p95 {decode_p95:.1} ms"
    );
    println!(
        "luma-only JPEG decode (baseline 2):      median {luma_median:.1} ms, p95 {luma_p95:.1} ms"
    );
    println!(
        "half-size luma decode (the reader's):    median {half_median:.1} ms, p95 {half_p95:.1} ms"
    );
    println!(
        "full read:                               median {read_median:.1} ms, p95 {read_p95:.1} ms"
    );
    println!(
        "12 MP photo without an MRZ:              median {empty_median:.1} ms ({:.2} of baseline 2)",
        empty_median / luma_median
    );
    println!(
        "ratio read/baseline 1: median {:.2}, p95 {:.2}",
        read_median / decode_median,
        read_p95 / decode_p95
    );
    println!(
        "ratio read/baseline 2: median {:.2}, p95 {:.2}",
        read_median / luma_median,
        read_p95 / luma_p95
    );
    let (visual_median, visual_p95) =
        (percentile(&mut visual_ms, 0.5), percentile(&mut visual_ms, 0.95));
    println!(
        "visual zone, asked for: median {visual_median:.1} ms, p95 {visual_p95:.1} ms more a \
         photo ({:.2} of the full read's median)",
        visual_median / read_median
    );
    println!(
        "half-size decode/baseline 2: median {:.2}; reading beyond the half-size decode: median {:.1} ms",
        half_median / luma_median,
        read_median - half_median
    );
}

/// Decoding alone, the way the reader decodes a JPEG: the luma channel only.
fn luma_only(jpeg: &[u8]) -> Vec<u8> {
    let options = zune_core::options::DecoderOptions::default()
        .jpeg_set_out_colorspace(zune_core::colorspace::ColorSpace::Luma);
    let cursor = zune_core::bytestream::ZCursor::new(jpeg);
    zune_jpeg::JpegDecoder::new_with_options(cursor, options).decode().expect("decodable")
}
