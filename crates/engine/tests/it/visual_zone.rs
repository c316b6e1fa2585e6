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
    assert!(surname.confidence > 0.5 && surname.label.contains("Surname"), "{surname:?}");
}
