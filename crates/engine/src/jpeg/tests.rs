use jpeg_encoder::{ColorType, Encoder, SamplingFactor};

use super::*;
use crate::gray::Gray;

/// A photo-like colour image: smooth shading, thin dark strokes, and (when
/// `seed` is not 0) grain, so that blocks carry every kind of coefficient.
fn scene(width: usize, height: usize, seed: u32) -> Vec<u8> {
    let mut state = seed.max(1);
    let mut rgb = Vec::with_capacity(width * height * 3);
    for y in 0..height {
        for x in 0..width {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let grain = if seed == 0 { 0 } else { (state >> 27) as i32 - 16 };
            let shade = 90 + (x * 100 / width) as i32 + ((y as f32 / 23.0).sin() * 25.0) as i32;
            let stroke = (x / 3 + y / 7) % 11 == 0 && (y / 16) % 3 == 1;
            let value = if stroke { 30 + grain } else { shade + grain };
            rgb.extend([value + 20, value, value - 15].map(|v| v.clamp(0, 255) as u8));
        }
    }
    rgb
}

fn encode(
    rgb: &[u8],
    width: usize,
    height: usize,
    gray: bool,
    sampling: SamplingFactor,
    restart: u16,
) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut encoder = Encoder::new(&mut bytes, 88);
    encoder.set_sampling_factor(sampling);
    if restart > 0 {
        encoder.set_restart_interval(restart);
    }
    if gray {
        let luma: Vec<u8> = rgb.chunks_exact(3).map(|p| p[1]).collect();
        encoder.encode(&luma, width as u16, height as u16, ColorType::Luma).expect("encodes");
    } else {
        encoder.encode(rgb, width as u16, height as u16, ColorType::Rgb).expect("encodes");
    }
    bytes
}

fn any_size(_: u32, _: u32) -> bool {
    true
}

/// The reference: the full-size luma from zune-jpeg, averaged over 2x2 blocks.
fn reference(bytes: &[u8]) -> Gray {
    let options = zune_core::options::DecoderOptions::default()
        .jpeg_set_out_colorspace(zune_core::colorspace::ColorSpace::Luma);
    let mut decoder = zune_jpeg::JpegDecoder::new_with_options(
        zune_core::bytestream::ZCursor::new(bytes),
        options,
    );
    let data = decoder.decode().expect("decodes");
    let info = decoder.info().expect("headers");
    Gray { width: usize::from(info.width), height: usize::from(info.height), data }.shrink(2)
}

/// Mean and largest absolute difference over the pixels both images have.
fn difference(half: &Gray, reference: &Gray) -> (f64, u8) {
    let (mut sum, mut max, mut n) = (0u64, 0u8, 0u64);
    for y in 0..reference.height {
        for x in 0..reference.width {
            let a = half.data[y * half.width + x];
            let b = reference.data[y * reference.width + x];
            let d = a.abs_diff(b);
            sum += u64::from(d);
            max = max.max(d);
            n += 1;
        }
    }
    (sum as f64 / n as f64, max)
}

#[test]
fn half_size_luma_matches_the_full_decode_averaged() {
    let cases = [
        (640, 480, false, SamplingFactor::R_4_2_0, 0),
        (333, 251, false, SamplingFactor::R_4_2_0, 0),
        (401, 203, false, SamplingFactor::R_4_4_4, 0),
        (385, 290, false, SamplingFactor::R_4_2_2, 7),
        (250, 300, false, SamplingFactor::R_4_4_0, 0),
        (321, 177, true, SamplingFactor::R_4_4_4, 0),
        (299, 301, true, SamplingFactor::R_4_4_4, 5),
        (512, 384, false, SamplingFactor::R_4_2_0, 1),
    ];
    for (idx, &(width, height, gray, sampling, restart)) in cases.iter().enumerate() {
        // Grain puts much of its energy in the upper half of each block's
        // spectrum, which is left out; 1-pixel strokes lose their sharpest edges.
        for (seed, mean_bound) in [(0, 1.0), (idx as u32 + 1, 3.0)] {
            let rgb = scene(width, height, seed);
            let label = format!("{width}x{height} gray {gray} restart {restart} seed {seed}");
            let bytes = encode(&rgb, width, height, gray, sampling, restart);
            let half =
                decode_half_luma(&bytes, any_size).unwrap_or_else(|| panic!("decodes {label}"));
            assert_eq!((half.width, half.height), (width as u32, height as u32), "{label}");
            assert_eq!(
                (half.gray.width, half.gray.height),
                (width.div_ceil(2), height.div_ceil(2)),
                "{label}"
            );
            let (mean, max) = difference(&half.gray, &reference(&bytes));
            assert!(mean < mean_bound && max < 48, "{label}: mean {mean:.2}, max {max}");
        }
    }
}

#[test]
fn the_size_is_asked_about_before_decoding() {
    let rgb = scene(64, 48, 1);
    let bytes = encode(&rgb, 64, 48, false, SamplingFactor::R_4_2_0, 0);
    let mut asked = None;
    let refused = decode_half_luma(&bytes, |w, h| {
        asked = Some((w, h));
        false
    });
    assert!(refused.is_none());
    assert_eq!(asked, Some((64, 48)));
}

#[test]
fn a_flat_image_decodes_to_its_value_exactly() {
    let (width, height) = (100, 60);
    let rgb: Vec<u8> = std::iter::repeat_n([140u8, 140, 140], width * height).flatten().collect();
    let bytes = encode(&rgb, width, height, false, SamplingFactor::R_4_2_0, 0);
    let half = decode_half_luma(&bytes, any_size).expect("decodes");
    assert!(half.gray.data.iter().all(|&v| v.abs_diff(140) <= 1), "{:?}", &half.gray.data[..8]);
}

#[test]
fn files_it_does_not_handle_are_left_to_the_general_decoder() {
    let (width, height) = (120, 90);
    let rgb = scene(width, height, 3);
    let mut cmyk = Vec::new();
    let encoder = Encoder::new(&mut cmyk, 85);
    let pixels: Vec<u8> = rgb.chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 0]).collect();
    encoder.encode(&pixels, width as u16, height as u16, ColorType::Cmyk).expect("encodes");
    assert!(decode_half_luma(&cmyk, any_size).is_none(), "four components");

    assert!(decode_half_luma(b"\x89PNG\r\n\x1a\n", any_size).is_none());
    assert!(decode_half_luma(&[0xFF, 0xD8, 0xFF], any_size).is_none());
}

/// Decodes `times` copies of `bytes` with four bytes each overwritten at random: whatever
/// the answer, no panic.
fn decode_damaged(bytes: &[u8], times: usize, seed: u32) {
    let mut state = seed;
    for _ in 0..times {
        let mut damaged = bytes.to_vec();
        for _ in 0..4 {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let at = state as usize % damaged.len();
            damaged[at] = (state >> 8) as u8;
        }
        std::hint::black_box(decode_half_luma(&damaged, any_size));
    }
}

#[test]
fn truncated_or_damaged_data_never_passes_for_a_picture_or_panics() {
    let (width, height) = (200, 150);
    let rgb = scene(width, height, 9);
    let bytes = encode(&rgb, width, height, false, SamplingFactor::R_4_2_0, 0);
    // Cut inside the entropy-coded data: the scan runs out.
    let truncated = &bytes[..bytes.len() * 2 / 3];
    assert!(decode_half_luma(truncated, any_size).is_none(), "truncated");
    let restarted = encode(&rgb, width, height, false, SamplingFactor::R_4_2_0, 4);
    assert!(
        decode_half_luma(&restarted[..restarted.len() / 2], any_size).is_none(),
        "truncated, restarts"
    );
    // Every cut and many corruptions: no panic, whatever the answer.
    for cut in (0..bytes.len()).step_by(37) {
        std::hint::black_box(decode_half_luma(&bytes[..cut], any_size));
    }
    decode_damaged(&restarted, 300, 0x2545_f491);
}

#[test]
fn the_averaging_basis_is_the_inverse_dct_over_pixel_pairs() {
    use std::f64::consts::PI;
    for (i, row) in scan::BASIS.iter().enumerate() {
        for (u, &value) in row.iter().enumerate() {
            let c = if u == 0 { 0.5f64.sqrt() } else { 1.0 };
            // The mean of the 8-point basis at pixels 2i and 2i + 1.
            let at = |x: f64| c / 2.0 * ((2.0 * x + 1.0) * u as f64 * PI / 16.0).cos();
            let expected = (at(2.0 * i as f64) + at(2.0 * i as f64 + 1.0)) / 2.0;
            assert!((f64::from(value) - expected).abs() < 1e-6, "{i} {u}: {value} {expected}");
        }
    }
}

#[test]
fn the_fast_transform_is_the_basis_applied_both_ways() {
    let mut state = 0x9e37_79b9_u32;
    for _ in 0..200 {
        let mut coefficients = [0f32; 17];
        for value in coefficients.iter_mut().take(16) {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            *value = (state % 400) as f32 - 200.0;
        }
        let pixels = scan::transform(&coefficients, true);
        for (j, line) in pixels.iter().enumerate() {
            for (i, &pixel) in line.iter().enumerate() {
                // Stored by column of frequency: coefficients[u * 4 + v].
                let mut sum = 128.0f64;
                for v in 0..4 {
                    for u in 0..4 {
                        let basis = f64::from(scan::BASIS[j][v]) * f64::from(scan::BASIS[i][u]);
                        sum += basis * f64::from(coefficients[u * 4 + v]);
                    }
                }
                let expected = sum.round().clamp(0.0, 255.0);
                assert!((f64::from(pixel) - expected).abs() <= 1.0, "{pixel} {expected}");
            }
        }
    }
}

#[test]
fn samples_become_pixels_clamped_and_rounded() {
    let cases = [(-7.0, 0), (0.2, 0), (127.4, 127), (127.6, 128), (254.6, 255), (300.0, 255)];
    for (sample, pixel) in cases {
        assert_eq!(scan::to_pixel(sample), pixel, "{sample}");
    }
    assert_eq!(scan::to_pixel(f32::NAN), 0);
}

#[test]
fn huffman_counts_that_overflow_their_code_space_are_refused() {
    let mut counts = [0u8; 16];
    counts[0] = 3; // three codes of one bit
    assert!(scan::Huffman::new(&counts, &[1, 2, 3], false).is_none());
    counts[0] = 2;
    assert!(scan::Huffman::new(&counts, &[1, 2], false).is_some());
}

#[test]
fn a_progressive_file_decodes_to_what_its_sequential_twin_gives() {
    // The same encoder, settings and coefficients, coded in one scan and in spectral bands.
    let cases = [
        (333, 251, false, SamplingFactor::R_4_2_0, 0),
        (401, 203, false, SamplingFactor::R_4_4_4, 3),
        (250, 300, false, SamplingFactor::R_4_2_2, 0),
        (299, 301, true, SamplingFactor::R_4_4_4, 5),
    ];
    for (idx, &(width, height, gray, sampling, restart)) in cases.iter().enumerate() {
        let rgb = scene(width, height, idx as u32 + 1);
        let label = format!("{width}x{height} gray {gray} restart {restart}");
        let sequential = encode(&rgb, width, height, gray, sampling, restart);
        let mut progressive = Vec::new();
        let mut encoder = Encoder::new(&mut progressive, 88);
        encoder.set_sampling_factor(sampling);
        encoder.set_progressive(true);
        if restart > 0 {
            encoder.set_restart_interval(restart);
        }
        let (pixels, color) = if gray {
            (rgb.chunks_exact(3).map(|p| p[1]).collect(), ColorType::Luma)
        } else {
            (rgb.clone(), ColorType::Rgb)
        };
        encoder.encode(&pixels, width as u16, height as u16, color).expect("encodes");
        assert_ne!(progressive, sequential, "{label}");
        let expected = decode_half_luma(&sequential, any_size).expect("sequential decodes");
        let got = decode_half_luma(&progressive, any_size)
            .unwrap_or_else(|| panic!("progressive decodes {label}"));
        assert_eq!((got.width, got.height), (width as u32, height as u32), "{label}");
        assert!(got.gray.data == expected.gray.data, "{label}");
    }
}

/// The dev specimen recoded by libjpeg's `jpegtran -progressive` (ten scans, the AC in bands
/// first sent in their high bits and then refined bit by bit) with restart markers: the
/// coefficients are the original's, so the half-size luma is too, to the byte.
#[test]
fn successive_approximation_and_restarts_give_the_sequential_file_s_pixels() {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
    let sequential = std::fs::read(data.join("images/100_pass-uto.jpg")).expect("fixture");
    let progressive =
        std::fs::read(data.join("jpeg/100_pass-uto-progressive.jpg")).expect("fixture");
    let expected = decode_half_luma(&sequential, any_size).expect("sequential decodes");
    let got = decode_half_luma(&progressive, any_size).expect("progressive decodes");
    assert_eq!((got.width, got.height), (expected.width, expected.height));
    let differing = got.gray.data.iter().zip(&expected.gray.data).filter(|(a, b)| a != b).count();
    assert_eq!(differing, 0, "of {} pixels", got.gray.data.len());
    assert_eq!(got.exif, expected.exif);
    // And against the general decoder's full-size luma, averaged: close on the whole (the
    // sharp edges of printed text lose most to the dropped upper half of the spectrum).
    let (mean, _) = difference(&got.gray, &reference(&progressive));
    assert!(mean < 3.0, "mean {mean:.2}");
}

#[test]
fn truncated_or_damaged_progressive_data_never_passes_for_a_picture_or_panics() {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
    let bytes = std::fs::read(data.join("jpeg/100_pass-uto-progressive.jpg")).expect("fixture");
    // Cut before the end of the image: some scans never came.
    assert!(decode_half_luma(&bytes[..bytes.len() * 2 / 3], any_size).is_none(), "truncated");
    for cut in (0..bytes.len()).step_by(997) {
        std::hint::black_box(decode_half_luma(&bytes[..cut], any_size));
    }
    decode_damaged(&bytes, 200, 0x1234_5679);
}

#[test]
fn a_quarter_size_decode_is_the_half_size_one_averaged() {
    for (width, height, progressive) in [(333, 251, false), (402, 206, true), (640, 480, true)] {
        let rgb = scene(width, height, 7);
        let mut bytes = Vec::new();
        let mut encoder = Encoder::new(&mut bytes, 88);
        encoder.set_progressive(progressive);
        encoder.encode(&rgb, width as u16, height as u16, ColorType::Rgb).expect("encodes");
        let label = format!("{width}x{height} progressive {progressive}");
        let half = decode_half_luma(&bytes, any_size).expect("half");
        let quarter =
            decode_reduced_luma(&bytes, |_, _| Some(Reduction::Quarter)).expect("quarter");
        assert_eq!(quarter.reduction, Reduction::Quarter);
        assert_eq!(
            (quarter.gray.width, quarter.gray.height),
            (width.div_ceil(4), height.div_ceil(4)),
            "{label}"
        );
        // Rounding differs where the half-size plane is cut at an odd edge.
        let averaged = half.gray.shrink(2);
        let (mean, max) = difference(&quarter.gray, &averaged);
        assert!(mean < 0.6 && max <= 2, "{label}: mean {mean:.2}, max {max}");
    }
}
