//! EXIF orientation is applied before reading, so a sideways phone photo whose
//! camera recorded the orientation reads as upright.

use std::io::Cursor;
use std::path::PathBuf;

use mrtd_engine::{EngineBuilder, ParseOptions, Status};

/// An APP1 segment holding a minimal EXIF block with one tag: Orientation.
fn exif_orientation_segment(orientation: u16) -> Vec<u8> {
    let mut tiff = Vec::new();
    tiff.extend_from_slice(b"II*\0");
    tiff.extend_from_slice(&8u32.to_le_bytes());
    tiff.extend_from_slice(&1u16.to_le_bytes());
    tiff.extend_from_slice(&0x0112u16.to_le_bytes());
    tiff.extend_from_slice(&3u16.to_le_bytes());
    tiff.extend_from_slice(&1u32.to_le_bytes());
    tiff.extend_from_slice(&u32::from(orientation).to_le_bytes());
    tiff.extend_from_slice(&0u32.to_le_bytes());
    let mut segment = vec![0xFF, 0xE1];
    let length = (2 + 6 + tiff.len()) as u16;
    segment.extend_from_slice(&length.to_be_bytes());
    segment.extend_from_slice(b"Exif\0\0");
    segment.extend_from_slice(&tiff);
    segment
}

#[test]
fn exif_orientation_is_applied() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/images/100_pass-uto.jpg");
    let upright = image::open(path).expect("a specimen image");
    // Store the pixels turned a quarter anticlockwise, and tag them "rotate 90 clockwise to display".
    let stored = upright.rotate270();
    let mut jpeg = Vec::new();
    stored.write_to(&mut Cursor::new(&mut jpeg), image::ImageFormat::Jpeg).expect("encode");
    let mut tagged = jpeg[..2].to_vec();
    tagged.extend(exif_orientation_segment(6));
    tagged.extend_from_slice(&jpeg[2..]);

    let engine = EngineBuilder::new().build();
    let reading = engine.read(&tagged, &ParseOptions::default()).expect("a decodable image");
    assert_eq!(
        (reading.image_width, reading.image_height),
        (upright.width() as usize, upright.height() as usize)
    );
    assert_eq!(reading.status, Status::Read);
    let off_upright = reading.rotation_degrees.min(360.0 - reading.rotation_degrees);
    assert!(off_upright < 5.0, "rotation {}", reading.rotation_degrees);
}
