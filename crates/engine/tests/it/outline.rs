//! The document's outline and portrait on real specimens, against corners and portrait boxes
//! measured by hand on the photos.

use std::io::Cursor;
use std::path::PathBuf;

use mrtd_engine::{EngineBuilder, ImageReading, ParseOptions, Status};

/// `tests/data/images` at the workspace root.
fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/images")
}

fn read(bytes: &[u8]) -> ImageReading {
    let engine = EngineBuilder::new().build();
    engine.read(bytes, &ParseOptions::default()).expect("a decodable image")
}

/// Intersection over union of two `[x0, y0, x1, y1]` boxes.
fn iou(a: [f32; 4], b: [f32; 4]) -> f32 {
    let width = (a[2].min(b[2]) - a[0].max(b[0])).max(0.0);
    let height = (a[3].min(b[3]) - a[1].max(b[1])).max(0.0);
    let area = |r: [f32; 4]| (r[2] - r[0]) * (r[3] - r[1]);
    let inter = width * height;
    inter / (area(a) + area(b) - inter)
}

#[test]
fn the_german_specimen_passport_page_and_portrait_are_where_the_photo_shows_them() {
    let bytes = std::fs::read(data_dir().join("100_pass-bdr.jpg")).expect("a specimen image");
    let reading = read(&bytes);
    assert_eq!(reading.status, Status::Read);
    let document = reading.document.expect("an outline");
    // Measured by hand on the photo (1874 x 1326): the page fills it but for a few pixels.
    let measured = [(8.0, 12.0), (1862.0, 14.0), (1866.0, 1312.0), (10.0, 1316.0)];
    // 3 % of the page's size (1852 x 1300 px).
    let (tolerance_x, tolerance_y) = (0.03 * 1852.0, 0.03 * 1300.0);
    for (got, want) in document.corners.iter().zip(measured) {
        assert!(
            (got.0 - want.0).abs() <= tolerance_x && (got.1 - want.1).abs() <= tolerance_y,
            "{:?} against {measured:?}",
            document.corners
        );
    }
    assert!(document.complete);
    let portrait = reading.portrait.expect("a passport page shows its portrait");
    // The printed portrait, measured by hand.
    let printed = [77.0, 255.0, 600.0, 934.0];
    assert!(iou(portrait.bbox, printed) >= 0.5, "{:?} against {printed:?}", portrait.bbox);
    assert!(portrait.face_found);
}

#[test]
fn an_id_card_back_has_an_outline_but_no_portrait() {
    let bytes = std::fs::read(data_dir().join("100_id-si.jpg")).expect("a specimen image");
    let reading = read(&bytes);
    let document = reading.document.expect("an outline");
    // The card (563 x 367 photo) runs into the photo's left edge.
    assert!(document.corners[0].0 < 10.0 && document.corners[1].0 > 530.0, "{document:?}");
    assert!(reading.portrait.is_none(), "the MRZ is on the back, the portrait on the front");
}

#[test]
fn a_portrait_zone_painted_over_holds_no_face() {
    let picture = image::open(data_dir().join("62_pass-pol.png")).expect("a specimen").to_rgb8();
    let encode = |picture: &image::RgbImage| {
        let mut png = Cursor::new(Vec::new());
        picture.write_to(&mut png, image::ImageFormat::Png).expect("encodes");
        png.into_inner()
    };
    let as_printed = read(&encode(&picture));
    assert!(as_printed.portrait.expect("a portrait zone").face_found);
    // Paper where the portrait was (measured by hand: x 25 to 160, y 105 to 295).
    let mut blank = picture.clone();
    for y in 60..310 {
        for x in 5..205 {
            blank.put_pixel(x, y, image::Rgb([236, 230, 225]));
        }
    }
    let painted = read(&encode(&blank));
    assert_eq!(painted.status, Status::Read, "the zone is untouched");
    let zone = painted.portrait.expect("the layout still places the portrait");
    assert!(!zone.face_found);
}
