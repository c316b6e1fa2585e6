//! The document's outline and portrait on real specimens, against corners and portrait boxes
//! measured by hand on the photos.

use std::io::Cursor;
use std::path::PathBuf;

use mrtd_engine::{DiagnosticCode, EngineBuilder, ImageReading, ParseOptions, Status};

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

/// The part of a specimen between rows `top` and `bottom`, as a PNG.
fn rows_of(name: &str, top: u32, bottom: u32) -> Vec<u8> {
    let picture = image::open(data_dir().join(name)).expect("a specimen").to_rgb8();
    let band = image::imageops::crop_imm(&picture, 0, top, picture.width(), bottom - top);
    let mut png = Cursor::new(Vec::new());
    band.to_image().write_to(&mut png, image::ImageFormat::Png).expect("encodes");
    png.into_inner()
}

#[test]
fn the_side_with_the_portrait_and_no_zone_is_named_with_the_advice_to_turn_it_over() {
    // The German specimen's page above its MRZ (which starts below row 1050 of 1326): what a
    // card's front shows, a portrait and printed fields.
    let front = read(&rows_of("100_pass-bdr.jpg", 0, 1000));
    assert_eq!(front.status, Status::NoMrz);
    let first = &front.diagnostics[0];
    assert_eq!(first.code, DiagnosticCode::TurnOver, "{:?}", front.diagnostics);
    assert!(first.message.contains("Turn the card over"), "{}", first.message);
    assert!(front.diagnostics.iter().any(|d| d.code == DiagnosticCode::NoMrzFound));
    let portrait = front.portrait.expect("the face found is the portrait");
    assert!(portrait.face_found);
    // The face lies inside the printed portrait (measured by hand: 77, 255 to 600, 934).
    let [x0, y0, x1, y1] = portrait.bbox;
    assert!(x0 >= 60.0 && y0 >= 240.0 && x1 <= 620.0 && y1 <= 950.0, "{:?}", portrait.bbox);
    assert!(
        (x1 - x0) * (y1 - y0) > 0.15 * 523.0 * 679.0,
        "a face, not a speck: {:?}",
        portrait.bbox
    );
}

#[test]
fn a_photo_without_a_zone_or_a_face_gets_no_advice_to_turn_it_over() {
    // The same page's printed fields right of the portrait: text, no face.
    let picture = image::open(data_dir().join("100_pass-bdr.jpg")).expect("a specimen").to_rgb8();
    let fields = image::imageops::crop_imm(&picture, 640, 0, 1234, 1000).to_image();
    let mut png = Cursor::new(Vec::new());
    fields.write_to(&mut png, image::ImageFormat::Png).expect("encodes");
    let reading = read(&png.into_inner());
    assert_eq!(reading.status, Status::NoMrz);
    assert!(
        reading.diagnostics.iter().all(|d| d.code != DiagnosticCode::TurnOver),
        "{:?}",
        reading.diagnostics
    );
    assert!(reading.portrait.is_none());
}

#[test]
fn the_straightened_page_reads_the_same_and_the_portrait_shows_a_face() {
    let engine = EngineBuilder::new().build();
    let options = ParseOptions::default();
    // The Latvian booklet lies turned 90 degrees in its photo.
    for (name, size) in [("0_pass-lva.jpg", (1000, 704)), ("100_pass-bdr.jpg", (1000, 704))] {
        let bytes = std::fs::read(data_dir().join(name)).expect("a specimen image");
        let reading = engine.read(&bytes, &options).expect("a decodable image");
        let crops = engine.crops(&bytes, &reading, 8.0);
        let page = crops.page.expect("a page");
        assert_eq!((page.width, page.height), size, "{name}: 125 x 88 mm at 8 px/mm");
        let again = engine.read(&page.jpeg, &options).expect("a JPEG");
        assert_eq!(again.status, Status::Read, "{name}: {:?}", again.diagnostics);
        assert_eq!(
            again.reading.map(|r| r.lines),
            reading.reading.as_ref().map(|r| r.lines.clone())
        );
        assert!(again.rotation_degrees.abs() < 2.0, "{name}: upright, {}", again.rotation_degrees);
        let portrait = crops.portrait.expect("a portrait");
        assert_eq!((portrait.width, portrait.height), (280, 368), "35 x 46 mm at 8 px/mm");
        let face = engine.read(&portrait.jpeg, &options).expect("a JPEG");
        assert_eq!(
            face.diagnostics[0].code,
            DiagnosticCode::TurnOver,
            "{name}: a face and no zone"
        );
    }
}

#[test]
fn a_card_back_gives_its_page_and_no_portrait_and_a_front_its_face() {
    let engine = EngineBuilder::new().build();
    let options = ParseOptions::default();
    let bytes = std::fs::read(data_dir().join("100_id-si.jpg")).expect("a specimen image");
    let reading = engine.read(&bytes, &options).expect("a decodable image");
    let crops = engine.crops(&bytes, &reading, 8.0);
    assert_eq!(crops.page.map(|page| (page.width, page.height)), Some((685, 432)));
    assert!(crops.portrait.is_none(), "the back of a TD1 card shows no portrait");
    let front = rows_of("100_pass-bdr.jpg", 0, 1000);
    let reading = engine.read(&front, &options).expect("a PNG");
    let crops = engine.crops(&front, &reading, 8.0);
    assert!(crops.page.is_none(), "no zone, no outline");
    let portrait = crops.portrait.expect("the face found, with a margin");
    let face = engine.read(&portrait.jpeg, &options).expect("a JPEG");
    assert_eq!(face.diagnostics[0].code, DiagnosticCode::TurnOver);
    // A scaling asked beyond the most is drawn at the most.
    let bytes = std::fs::read(data_dir().join("100_pass-uto.jpg")).expect("a specimen image");
    let reading = engine.read(&bytes, &options).expect("a decodable image");
    let page = engine.crops(&bytes, &reading, 1000.0).page.expect("a page");
    assert_eq!(page.width, (125.0 * mrtd_engine::MAX_PIXELS_PER_MM) as u32);
}

#[test]
fn a_pdf_page_and_a_heic_give_their_images_and_a_preview_of_the_photo() {
    let engine = EngineBuilder::new().build();
    let options = ParseOptions::default();
    let data = data_dir().join("..");
    for name in ["pdf/blank-then-100_pass-uto.pdf", "heic/100_pass-uto.heic"] {
        let bytes = std::fs::read(data.join(name)).expect("a test file");
        let reading = engine.read(&bytes, &options).expect("a readable file");
        assert_eq!(reading.status, Status::Read, "{name}");
        let crops = engine.crops(&bytes, &reading, 8.0);
        let page = crops.page.expect("the page");
        assert_eq!((page.width, page.height), (1000, 704), "{name}");
        let photo = crops.photo.expect("a preview");
        assert_eq!(
            (photo.width as usize, photo.height as usize),
            (reading.image_width, reading.image_height),
            "{name}: a photo under 1,600 px is previewed at its size"
        );
        let again = engine.read(&photo.jpeg, &options).expect("a JPEG");
        assert_eq!(again.reading.map(|r| r.lines), reading.reading.map(|r| r.lines), "{name}");
    }
    // A large photo is previewed at 1,600 px on its longest side.
    let bytes = std::fs::read(data_dir().join("100_pass-bdr.jpg")).expect("a specimen");
    let reading = engine.read(&bytes, &options).expect("a JPEG");
    let photo = engine.crops(&bytes, &reading, 8.0).photo.expect("a preview");
    assert_eq!((photo.width, photo.height), (1600, 1132));
}
