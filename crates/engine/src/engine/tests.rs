use std::io::Cursor;

use image::{Rgb, RgbImage, imageops};

use super::*;

const UTO: &str = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<|\
                   L898902C36UTO7408122F1204159ZE184226B<<<<<10";

/// A 12 MP phone-like photo: a specimen `document_width` pixels wide on a
/// textured background, as a colour JPEG.
fn phone_photo(document_width: u32) -> Vec<u8> {
    jpeg(&phone_scene(document_width))
}

fn jpeg(image: &RgbImage) -> Vec<u8> {
    let mut jpeg = Vec::new();
    let encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(Cursor::new(&mut jpeg), 88);
    image.write_with_encoder(encoder).expect("encodes");
    jpeg
}

fn phone_scene(document_width: u32) -> RgbImage {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/images/100_pass-uto.jpg");
    let specimen = image::open(path).expect("a specimen").into_rgb8();
    let mut canvas = RgbImage::from_fn(4000, 3000, |x, y| {
        let stripe = ((x as f32 / 37.0 + (y as f32 / 91.0).sin() * 3.0).sin() * 30.0) as i32;
        let value = (110 + stripe + ((x * 7 + y * 13) % 17) as i32).clamp(0, 255) as u8;
        Rgb([value.saturating_add(30), value, value.saturating_sub(25)])
    });
    let scale = document_width as f32 / specimen.width() as f32;
    let height = (specimen.height() as f32 * scale) as u32;
    let document =
        imageops::resize(&specimen, document_width, height, imageops::FilterType::Triangle);
    imageops::overlay(&mut canvas, &document, 700, i64::from((3000 - height) / 2));
    canvas
}

fn limits() -> DecodeLimits {
    let config = EngineConfig::default();
    DecodeLimits { max_pixels: config.max_pixels, max_bytes: config.max_bytes }
}

#[test]
fn a_phone_photo_reads_at_half_size_as_at_full_size() {
    let engine = EngineBuilder::new().build();
    let options = ParseOptions::default();
    let jpeg = phone_photo(2600);
    let half = engine.read_half_size(&jpeg, limits(), &options).expect("read at half size");
    let full_gray = decode(&jpeg, limits()).expect("decodes").gray;
    let full = engine.read_gray(&full_gray, &options);
    assert_eq!(half.status, Status::Read);
    let lines = |r: &ImageReading| r.reading.as_ref().map(|r| r.lines.join("|"));
    assert_eq!(lines(&half).as_deref(), Some(UTO));
    assert_eq!(lines(&half), lines(&full));
    assert_eq!((half.image_width, half.image_height), (4000, 3000));
    assert_eq!(half.image_format, "jpeg");
    // The outline is given in full-size pixels, where the full-size read puts it.
    let (a, b) = (half.region.expect("a region"), full.region.expect("a region"));
    for (p, q) in a.iter().zip(&b) {
        assert!((p.0 - q.0).abs() < 12.0 && (p.1 - q.1).abs() < 12.0, "{a:?} against {b:?}");
    }
    // And the public entry point takes this path.
    let read = engine.read(&jpeg, &options).expect("decodes");
    assert_eq!((lines(&read), read.region), (lines(&half), half.region));
}

/// A progressive JPEG (as photo editors and web exports write) over the pixel limit is
/// read at half size, as a baseline one is; it was refused before.
#[test]
fn a_progressive_photo_over_the_pixel_limit_is_read_at_half_size() {
    let mut progressive = Vec::new();
    let mut encoder = jpeg_encoder::Encoder::new(&mut progressive, 88);
    encoder.set_progressive(true);
    let scene = phone_scene(2600);
    let size = (scene.width() as u16, scene.height() as u16);
    encoder.encode(scene.as_raw(), size.0, size.1, jpeg_encoder::ColorType::Rgb).expect("encodes");
    // 12 MP against a 5 MP limit: over it, within four times it.
    let engine = EngineBuilder::new().max_pixels(5_000_000).build();
    let read = engine.read(&progressive, &ParseOptions::default()).expect("read, not refused");
    assert_eq!(read.status, Status::Read, "{:?}", read.diagnostics);
    let lines = read.reading.as_ref().map(|r| r.lines.join("|"));
    assert_eq!(lines.as_deref(), Some(UTO));
    assert_eq!((read.image_width, read.image_height, read.image_format), (4000, 3000, "jpeg"));
}

/// Between four and six times over the pixel limit (a 200 MP frame against the default
/// 40 MP), a JPEG is read from its quarter-size decode, in full-size geometry; beyond that
/// it is refused from its header.
#[test]
fn a_photo_far_over_the_pixel_limit_is_read_at_quarter_size() {
    let jpeg = phone_photo(2600);
    // 12 MP against a 2 MP limit: six times over it.
    let engine = EngineBuilder::new().max_pixels(2_000_000).build();
    let read = engine.read(&jpeg, &ParseOptions::default()).expect("read, not refused");
    assert_eq!(read.status, Status::Read, "{:?}", read.diagnostics);
    let lines = read.reading.as_ref().map(|r| r.lines.join("|"));
    assert_eq!(lines.as_deref(), Some(UTO));
    assert_eq!((read.image_width, read.image_height), (4000, 3000));
    let at_half = EngineBuilder::new().build().read(&jpeg, &ParseOptions::default());
    let (a, b) = (read.region.expect("a region"), at_half.expect("read").region.expect("a region"));
    for (p, q) in a.iter().zip(&b) {
        assert!((p.0 - q.0).abs() < 24.0 && (p.1 - q.1).abs() < 24.0, "{a:?} against {b:?}");
    }
    let strict = EngineBuilder::new().max_pixels(1_000_000).build();
    match strict.read(&jpeg, &ParseOptions::default()) {
        Err(ImageError::TooManyPixels { width: 4000, height: 3000, .. }) => {}
        other => panic!("{:?}", other.map(|r| r.status)),
    }
}

#[test]
fn a_sideways_phone_photo_is_turned_upright_at_half_size() {
    let engine = EngineBuilder::new().build();
    // Stored a quarter turn anticlockwise, tagged "rotate 90 clockwise to display".
    let stored = jpeg(&imageops::rotate270(&phone_scene(2600)));
    let tiff: Vec<u8> = [&b"II*\0"[..], &8u32.to_le_bytes(), &1u16.to_le_bytes()]
        .into_iter()
        .chain([&0x0112u16.to_le_bytes()[..], &3u16.to_le_bytes(), &1u32.to_le_bytes()])
        .chain([&6u32.to_le_bytes()[..], &0u32.to_le_bytes()])
        .flatten()
        .copied()
        .collect();
    let mut tagged = stored[..2].to_vec();
    tagged.extend([0xFF, 0xE1]);
    tagged.extend(((2 + 6 + tiff.len()) as u16).to_be_bytes());
    tagged.extend(b"Exif\0\0");
    tagged.extend(&tiff);
    tagged.extend(&stored[2..]);
    let read = engine
        .read_half_size(&tagged, limits(), &ParseOptions::default())
        .expect("read at half size");
    assert_eq!((read.image_width, read.image_height), (4000, 3000));
    assert_eq!(read.reading.map(|r| r.lines.join("|")).as_deref(), Some(UTO));
    let region = read.region.expect("a region");
    assert!(region.iter().all(|&(x, y)| (650.0..3350.0).contains(&x) && y < 3000.0), "{region:?}");
}

#[test]
fn a_phone_photo_without_an_mrz_is_settled_at_half_size() {
    let engine = EngineBuilder::new().build();
    let options = ParseOptions::default();
    let background = phone_scene(2600);
    let empty = jpeg(&RgbImage::from_fn(4000, 3000, |x, y| *background.get_pixel(x, y / 8)));
    let half = engine.read_half_size(&empty, limits(), &options).expect("settled at half size");
    assert_eq!(half.status, Status::NoMrz);
    assert_eq!((half.image_width, half.image_height), (4000, 3000));
    assert_eq!(half.diagnostics[0].code, DiagnosticCode::NoMrzFound);
    let full = engine.read_gray(&decode(&empty, limits()).expect("decodes").gray, &options);
    assert_eq!(full.status, Status::NoMrz);
}

#[test]
fn small_characters_in_a_large_photo_are_read_at_full_size() {
    let engine = EngineBuilder::new().build();
    let options = ParseOptions::default();
    // Characters about 16 pixels high at full size, 8 at half.
    let jpeg = phone_photo(900);
    assert!(engine.read_half_size(&jpeg, limits(), &options).is_none());
    let read = engine.read(&jpeg, &options).expect("decodes");
    assert_eq!(read.status, Status::Read);
    assert_eq!(read.reading.map(|r| r.lines.join("|")).as_deref(), Some(UTO));
    assert_eq!((read.image_width, read.image_height), (4000, 3000));
}

#[test]
fn small_photos_and_other_formats_are_not_read_at_half_size() {
    let engine = EngineBuilder::new().build();
    let options = ParseOptions::default();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/images/100_pass-uto.jpg");
    let small = std::fs::read(path).expect("a specimen");
    assert!(engine.read_half_size(&small, limits(), &options).is_none());
    let png = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/images/62_pass-pol.png");
    let png = std::fs::read(png).expect("a specimen");
    assert!(engine.read_half_size(&png, limits(), &options).is_none());
    // Over the pixel limit: left to the full decoder, which refuses it.
    let tight = DecodeLimits { max_pixels: 4_000_000, ..limits() };
    assert!(engine.read_half_size(&phone_photo(2600), tight, &options).is_none());
}
