//! Unusable input is refused with a clear error; usable input without an MRZ is not an error.

use std::io::Cursor;

use mrtd_engine::{EngineBuilder, ImageError, ParseOptions, Status};

fn png(width: u32, height: u32, value: u8) -> Vec<u8> {
    let image = image::GrayImage::from_pixel(width, height, image::Luma([value]));
    let mut bytes = Vec::new();
    image.write_to(&mut Cursor::new(&mut bytes), image::ImageFormat::Png).expect("encode");
    bytes
}

#[test]
fn garbage_is_an_unsupported_format() {
    let engine = EngineBuilder::new().build();
    let error = engine.read(b"this is not an image", &ParseOptions::default()).unwrap_err();
    assert!(matches!(error, ImageError::UnsupportedFormat), "{error}");
}

#[test]
fn a_truncated_image_is_a_decode_error() {
    let engine = EngineBuilder::new().build();
    let bytes = png(64, 64, 200);
    let error = engine.read(&bytes[..bytes.len() / 2], &ParseOptions::default()).unwrap_err();
    assert!(matches!(error, ImageError::Decode(_)), "{error}");
}

#[test]
fn too_many_pixels_are_refused_before_decoding() {
    let engine = EngineBuilder::new().max_pixels(10_000).build();
    let error = engine.read(&png(200, 100, 255), &ParseOptions::default()).unwrap_err();
    match error {
        ImageError::TooManyPixels { width, height, pixels, limit } => {
            assert_eq!((width, height, pixels, limit), (200, 100, 20_000, 10_000));
        }
        other => panic!("unexpected {other}"),
    }
}

#[test]
fn a_header_claiming_a_huge_raster_is_refused() {
    // A valid PNG signature and IHDR chunk declaring 100000 x 100000 pixels, with no data:
    // a decompression bomb must be refused from the header alone.
    let mut bytes = png(1, 1, 0);
    bytes[16..20].copy_from_slice(&100_000u32.to_be_bytes());
    bytes[20..24].copy_from_slice(&100_000u32.to_be_bytes());
    // The chunk's checksum covers its type and data (bytes 12..29): mend it, so that the
    // decoder reads the header and the pixel limit, not a damaged chunk, refuses the file.
    let crc = crc32fast::hash(&bytes[12..29]);
    bytes[29..33].copy_from_slice(&crc.to_be_bytes());
    let engine = EngineBuilder::new().build();
    let error = engine.read(&bytes, &ParseOptions::default()).unwrap_err();
    assert!(matches!(error, ImageError::TooManyPixels { .. }), "{error}");
}

#[test]
fn too_many_bytes_are_refused() {
    let engine = EngineBuilder::new().max_bytes(100).build();
    let error = engine.read(&png(64, 64, 128), &ParseOptions::default()).unwrap_err();
    assert!(matches!(error, ImageError::TooLarge { limit: 100, .. }), "{error}");
}

#[test]
fn a_blank_page_has_no_mrz_and_says_so() {
    let engine = EngineBuilder::new().build();
    let reading =
        engine.read(&png(800, 600, 230), &ParseOptions::default()).expect("a usable image");
    assert_eq!(reading.status, Status::NoMrz);
    assert!(reading.reading.is_none());
    let first = reading.diagnostics.first().expect("a diagnostic");
    assert!(first.message.starts_with("No MRZ found"), "{}", first.message);
}

fn colour_jpeg(width: u32, height: u32) -> Vec<u8> {
    let image = image::RgbImage::from_fn(width, height, |x, y| {
        image::Rgb([(x % 256) as u8, (y % 256) as u8, 128])
    });
    let mut bytes = Vec::new();
    image.write_to(&mut Cursor::new(&mut bytes), image::ImageFormat::Jpeg).expect("encode");
    bytes
}

#[test]
fn jpeg_limits_and_damage_are_refused_like_other_formats() {
    let engine = EngineBuilder::new().max_pixels(10_000).build();
    // Up to four times the limit, a JPEG is read at half size (a quarter of the pixels) and
    // up to six times at quarter size rather than refused; beyond that it is refused from
    // its header.
    let oversized = engine.read(&colour_jpeg(200, 100), &ParseOptions::default()).expect("read");
    assert_eq!((oversized.image_width, oversized.image_height), (200, 100));
    let far_over = engine.read(&colour_jpeg(300, 200), &ParseOptions::default()).expect("read");
    assert_eq!((far_over.image_width, far_over.image_height), (300, 200));
    match engine.read(&colour_jpeg(300, 300), &ParseOptions::default()).unwrap_err() {
        ImageError::TooManyPixels { width, height, pixels, limit } => {
            assert_eq!((width, height, pixels, limit), (300, 300, 90_000, 10_000));
        }
        other => panic!("unexpected {other}"),
    }
    let engine = EngineBuilder::new().build();
    let bytes = colour_jpeg(64, 64);
    let error = engine.read(&bytes[..40], &ParseOptions::default()).unwrap_err();
    assert!(matches!(error, ImageError::Decode(_)), "{error}");
    // A frame header claiming 65535 x 65535 pixels is refused before any pixel is decoded.
    let mut huge = bytes.clone();
    let sof = huge.windows(2).position(|w| w == [0xFF, 0xC0]).expect("a baseline frame header");
    huge[sof + 5..sof + 9].copy_from_slice(&[0xFF, 0xFF, 0xFF, 0xFF]);
    let error = engine.read(&huge, &ParseOptions::default()).unwrap_err();
    assert!(matches!(error, ImageError::TooManyPixels { .. }), "{error}");
}

#[test]
fn a_colour_jpeg_is_read_as_gray_with_its_size() {
    let engine = EngineBuilder::new().build();
    let reading = engine.read(&colour_jpeg(320, 200), &ParseOptions::default()).unwrap();
    assert_eq!(reading.image_format, "jpeg");
    assert_eq!((reading.image_width, reading.image_height), (320, 200));
    assert_eq!(reading.status, Status::NoMrz);
}
