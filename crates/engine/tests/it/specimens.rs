//! Reads the twelve real specimen photos in `tests/data/images` and compares
//! with their verified ground truth.

use crate::support;

use mrtd_engine::{DiagnosticCode, EngineBuilder, ParseOptions, Status};
use support::{data_dir, manifest};

#[test]
fn every_specimen_is_read_exactly() {
    let engine = EngineBuilder::new().build();
    let cases = manifest();
    assert_eq!(cases.len(), 12);
    let mut failures = Vec::new();
    let mut n_read = 0;
    for (file, truth) in &cases {
        let bytes = std::fs::read(data_dir().join(file)).expect("a specimen image");
        let reading = engine.read(&bytes, &ParseOptions::default()).expect("a decodable image");
        let lines = reading.reading.as_ref().map(|r| r.lines.join("|")).unwrap_or_default();
        if &lines != truth {
            // A wrong reading must never be reported as read.
            assert_ne!(reading.status, Status::Read, "{file}: read {lines}, truth {truth}");
            failures.push(format!("{file}: {:?} {lines}", reading.status));
        }
        n_read += usize::from(reading.status == Status::Read);
    }
    assert!(failures.is_empty(), "not read exactly:\n{}", failures.join("\n"));
    // Every specimen but the thumbnail and the sideways booklet is read with full confidence.
    assert!(n_read >= 10, "only {n_read} of 12 specimens have status read");
}

#[test]
fn the_rotated_booklet_reports_its_rotation_and_region() {
    let engine = EngineBuilder::new().build();
    let bytes = std::fs::read(data_dir().join("0_pass-lva.jpg")).expect("a specimen image");
    let reading = engine.read(&bytes, &ParseOptions::default()).expect("a decodable image");
    assert!((reading.rotation_degrees - 90.0).abs() < 5.0, "rotation {}", reading.rotation_degrees);
    let region = reading.region.expect("a region");
    // The MRZ of this booklet runs down the left part of the photo.
    assert!(region.iter().all(|&(x, _)| x < 400.0), "{region:?}");
    let height = (region[1].1 - region[0].1).abs();
    assert!(height > 900.0, "{region:?}");
}

/// Two specimens side by side on one light canvas, as one PNG: two documents in one photo.
fn side_by_side(left: &str, right: &str) -> Vec<u8> {
    let open = |name: &str| image::open(data_dir().join(name)).expect("a specimen").to_rgb8();
    let (left, right) = (open(left), open(right));
    let (width, height) =
        (left.width() + right.width() + 60, left.height().max(right.height()) + 40);
    let mut canvas = image::RgbImage::from_pixel(width, height, image::Rgb([225, 225, 220]));
    image::imageops::replace(&mut canvas, &left, 20, 20);
    image::imageops::replace(&mut canvas, &right, i64::from(left.width()) + 40, 20);
    let mut png = std::io::Cursor::new(Vec::new());
    canvas.write_to(&mut png, image::ImageFormat::Png).expect("encodes");
    png.into_inner()
}

#[test]
fn a_second_document_in_the_photo_is_named_and_one_alone_is_not() {
    let engine = EngineBuilder::new().build();
    let options = ParseOptions::default();
    let two = engine.read(&side_by_side("100_pass-uto.jpg", "100_id-si.jpg"), &options).unwrap();
    assert_eq!(two.status, Status::Read, "{:?}", two.diagnostics);
    let codes: Vec<DiagnosticCode> = two.diagnostics.iter().map(|d| d.code).collect();
    assert!(codes.contains(&DiagnosticCode::AnotherMrz), "{:?}", two.diagnostics);
    // Both documents are given, each read exactly, the second with its own status and place.
    let truth: std::collections::HashMap<String, String> = manifest().into_iter().collect();
    let lines = |reading: &mrtd_engine::ImageReading| {
        reading.reading.as_ref().map(|r| r.lines.join("|")).unwrap_or_default()
    };
    assert_eq!(two.others.len(), 1);
    let other = &two.others[0];
    let mut read = [lines(&two), lines(other)];
    read.sort();
    let mut expected = [truth["100_pass-uto.jpg"].clone(), truth["100_id-si.jpg"].clone()];
    expected.sort();
    assert_eq!(read, expected);
    assert_eq!(other.status, Status::Read);
    let (x_main, x_other) = (two.region.unwrap()[0].0, other.region.unwrap()[0].0);
    assert!((x_main - x_other).abs() > 300.0, "two places: {x_main} and {x_other}");
    for name in ["100_pass-uto.jpg", "100_id-si.jpg", "100_pass-bdr.jpg"] {
        let bytes = std::fs::read(data_dir().join(name)).expect("a specimen image");
        let one = engine.read(&bytes, &options).unwrap();
        assert!(one.diagnostics.iter().all(|d| d.code != DiagnosticCode::AnotherMrz), "{name}");
        assert!(one.others.is_empty(), "{name}");
    }
}
