//! The visual zone read from real specimens: the fields a person reads on the page, and their
//! agreement with the MRZ.

use mrtd_engine::{EngineBuilder, ParseOptions, Status, VisualFieldName as F, VisualZone};

use crate::support::data_dir;

fn visual_zone(file: &str) -> VisualZone {
    let bytes = std::fs::read(data_dir().join(file)).expect("a specimen image");
    let engine = EngineBuilder::new().build();
    let reading = engine.read(&bytes, &ParseOptions::default()).expect("a decodable image");
    assert_eq!(reading.status, Status::Read, "{file}");
    engine.visual_zone(&bytes, &reading).expect("the text reader runs").expect("a page")
}

fn value(zone: &VisualZone, name: F) -> Option<&str> {
    zone.field(name).map(|field| field.value.as_str())
}

#[test]
fn the_german_specimen_passport_prints_what_its_mrz_says_and_more() {
    let zone = visual_zone("100_pass-bdr.jpg");
    let fields: Vec<(&str, Option<&str>)> = zone
        .fields
        .iter()
        .map(|(name, field)| (name.as_str(), Some(field.value.as_str())))
        .collect();
    for (name, want) in [
        (F::Surname, "MUSTERMANN"),
        (F::GivenNames, "ERIKA"),
        (F::DateOfBirth, "12.08.1964"),
        (F::PlaceOfBirth, "BERLIN"),
        (F::DateOfIssue, "22.02.2008"),
        (F::DateOfExpiry, "21.02.2018"),
        (F::IssuingAuthority, "BUNDESDRUCKEREI"),
        (F::DocumentNumber, "CA000000"),
        (F::Sex, "F"),
    ] {
        assert_eq!(value(&zone, name), Some(want), "{} in {fields:?}", name.as_str());
    }
    let agreement = zone.agreement.clone().expect("fields the MRZ holds too");
    assert_eq!(agreement.matches(), Some(true), "{agreement:?}");
    // Each value's place is in the photo (1874 x 1326), on the page's right of the portrait.
    let surname = zone.field(F::Surname).expect("a surname");
    assert!(surname.bbox[0] > 550.0 && surname.bbox[2] < 1100.0, "{:?}", surname.bbox);
    assert!(
        surname.confidence > 0.5
            && surname.label.as_deref().is_some_and(|label| label.contains("Surname")),
        "{surname:?}"
    );
}

/// The specimen with its page edited as a forger would: `edit` changes the decoded photo,
/// given the first reading's visual zone to find the fields by.
fn edited(file: &str, edit: impl Fn(&mut image::RgbImage, &VisualZone)) -> VisualZone {
    let bytes = std::fs::read(data_dir().join(file)).expect("a specimen image");
    let genuine = visual_zone(file);
    let mut photo = image::load_from_memory(&bytes).expect("a decodable image").to_rgb8();
    edit(&mut photo, &genuine);
    let mut png = Vec::new();
    photo.write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png).expect("encodes");
    let engine = EngineBuilder::new().build();
    let reading = engine.read(&png, &ParseOptions::default()).expect("a decodable image");
    // The MRZ is untouched: it still reads, and only the page says otherwise.
    assert_eq!(reading.status, Status::Read);
    engine.visual_zone(&png, &reading).expect("the text reader runs").expect("a page")
}

fn pixels(bbox: [f32; 4]) -> [u32; 4] {
    bbox.map(|v| v.round().max(0.0) as u32)
}

#[test]
fn a_surname_cut_short_on_the_page_is_caught_against_the_mrz() {
    // The surname's last letters painted over in the paper's colour beside them.
    let zone = edited("100_pass-bdr.jpg", |photo, genuine| {
        let [x0, y0, x1, y1] = pixels(genuine.field(F::Surname).expect("a surname").bbox);
        let paper = *photo.get_pixel(x1 + 4, y0.saturating_sub(2));
        let cut = x0 + (x1 - x0) * 7 / 10;
        for y in y0..y1 {
            for x in cut..x1 + 2 {
                photo.put_pixel(x, y, paper);
            }
        }
    });
    let surname = value(&zone, F::Surname).expect("the surname still read");
    assert!(surname.starts_with("MUSTER") && surname.len() < 10, "{surname}");
    let agreement = zone.agreement.expect("fields to compare");
    assert_eq!(agreement.surname, Some(mrtd_mrz::Agreement::Differs));
    assert_eq!(agreement.matches(), Some(false));
    assert_eq!(agreement.birth_date, Some(mrtd_mrz::Agreement::Agrees));
}

#[test]
fn a_birth_date_pasted_from_another_field_is_caught_against_the_mrz() {
    // The date of expiry's print copied over the date of birth's (a copy-move forgery).
    let zone = edited("100_pass-bdr.jpg", |photo, genuine| {
        let [bx0, by0, _, _] = pixels(genuine.field(F::DateOfBirth).expect("a birth date").bbox);
        let [ex0, ey0, ex1, ey1] =
            pixels(genuine.field(F::DateOfExpiry).expect("an expiry date").bbox);
        let source = image::imageops::crop_imm(photo, ex0, ey0, ex1 - ex0, ey1 - ey0).to_image();
        image::imageops::replace(photo, &source, i64::from(bx0), i64::from(by0));
    });
    assert_eq!(value(&zone, F::DateOfBirth), Some("21.02.2018"));
    let agreement = zone.agreement.expect("fields to compare");
    assert_eq!(agreement.birth_date, Some(mrtd_mrz::Agreement::Differs));
    assert_eq!(agreement.surname, Some(mrtd_mrz::Agreement::Agrees));
    assert_eq!(agreement.matches(), Some(false));
}

#[test]
fn a_card_photographed_on_both_sides_gives_the_fields_of_the_side_without_the_mrz() {
    // The German specimen's page cut in two: its printed fields on one photo (half size),
    // its MRZ on the other, as a card's front and back.
    let side = |file: &str| std::fs::read(data_dir().join("../sides").join(file)).expect("a side");
    let (front, back) = (side("portrait-side.jpg"), side("mrz-side.jpg"));
    let engine = EngineBuilder::new().build();
    let options = ParseOptions::default();
    let front_reading = engine.read(&front, &options).expect("a decodable image");
    let back_reading = engine.read(&back, &options).expect("a decodable image");
    assert_eq!((front_reading.status, back_reading.status), (Status::NoMrz, Status::Read));
    let zone = engine
        .visual_zone_of_sides((&back, &back_reading), (&front, &front_reading))
        .expect("the text reader runs")
        .expect("the sides are read");
    for (name, want) in [
        (F::Surname, "MUSTERMANN"),
        (F::GivenNames, "ERIKA"),
        (F::DateOfBirth, "12.08.1964"),
        (F::PlaceOfBirth, "BERLIN"),
        (F::DateOfExpiry, "21.02.2018"),
    ] {
        assert_eq!(value(&zone, name), Some(want), "{} in {:?}", name.as_str(), zone.fields);
    }
    let surname = zone.field(F::Surname).expect("a surname");
    assert!(surname.other_side, "read on the front: {surname:?}");
    // In the front photo's pixels (937 x 500), where the page's 1874-wide photo put it halved.
    assert!(surname.bbox[0] > 275.0 && surname.bbox[2] < 550.0, "{:?}", surname.bbox);
    let agreement = zone.agreement.clone().expect("fields the MRZ holds too");
    assert_eq!(agreement.matches(), Some(true), "{agreement:?}");
    // The side with the MRZ read alone has no such fields: they come from the front.
    let alone = engine.visual_zone(&back, &back_reading).expect("runs");
    assert!(alone.as_ref().is_none_or(|zone| zone.field(F::Surname).is_none()), "{alone:?}");
    // Given the wrong way round (the front as the MRZ's side), nothing is read.
    let none = engine.visual_zone_of_sides((&front, &front_reading), (&back, &back_reading));
    assert_eq!(none.expect("runs"), None);
    // The front alone gives its fields, compared with nothing.
    let alone = engine.visual_zone(&front, &front_reading).expect("runs").expect("a front");
    assert_eq!(value(&alone, F::Surname), Some("MUSTERMANN"), "{:?}", alone.fields);
    assert_eq!(alone.agreement, None);
}

#[test]
fn a_photo_without_an_mrz_or_a_face_has_no_visual_zone() {
    // The specimen's MRZ side alone, its zone painted over: no MRZ, no face, no front.
    let bytes = std::fs::read(data_dir().join("../sides/mrz-side.jpg")).expect("a side");
    let mut photo = image::load_from_memory(&bytes).expect("decodable").to_rgb8();
    let height = photo.height();
    for y in height / 3..height {
        for x in 0..photo.width() {
            photo.put_pixel(x, y, image::Rgb([235, 230, 220]));
        }
    }
    let mut png = Vec::new();
    photo.write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png).expect("encodes");
    let engine = EngineBuilder::new().build();
    let reading = engine.read(&png, &ParseOptions::default()).expect("a decodable image");
    assert_eq!(reading.status, Status::NoMrz);
    assert_eq!(engine.visual_zone(&png, &reading).expect("runs"), None);
}

#[test]
fn a_sheet_with_a_cards_back_and_a_front_beside_it_reads_the_front_too() {
    // A scanned sheet: the Slovenian card's back (TD1) above a front that is not its own
    // (the German specimen's printed fields): the front's fields are read, and they differ.
    let back = image::open(data_dir().join("100_id-si.jpg")).expect("a specimen").to_rgb8();
    let front =
        image::open(data_dir().join("../sides/portrait-side.jpg")).expect("a side").to_rgb8();
    let mut sheet = image::RgbImage::from_pixel(1000, 950, image::Rgb([250, 250, 250]));
    image::imageops::overlay(&mut sheet, &back, 40, 20);
    image::imageops::overlay(&mut sheet, &front, 30, 430);
    let mut png = Vec::new();
    sheet.write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png).expect("encodes");
    let engine = EngineBuilder::new().build();
    let reading = engine.read(&png, &ParseOptions::default()).expect("a decodable image");
    assert_eq!(reading.status, Status::Read);
    let zone = engine.visual_zone(&png, &reading).expect("runs").expect("a page");
    let surname = zone.field(F::Surname).expect("the front's surname");
    assert_eq!(surname.value, "MUSTERMANN");
    assert!(!surname.other_side, "on the sheet itself: {surname:?}");
    assert!(surname.bbox[1] > 430.0, "below the card's back: {:?}", surname.bbox);
    let agreement = zone.agreement.clone().expect("compared");
    assert_eq!(agreement.surname, Some(mrtd_mrz::Agreement::Differs), "{agreement:?}");
    assert_eq!(agreement.matches(), Some(false));
}
