use super::*;
use serde_json::json;

/// A photo's result without an MRZ, with the advice to turn it over when `face` shows.
fn side_without_a_zone(face: bool) -> DocumentResult {
    let mut diagnostics =
        vec![Diagnostic { code: DiagnosticCode::NoMrzFound, message: "No MRZ found.".to_owned() }];
    if face {
        let turn = Diagnostic { code: DiagnosticCode::TurnOver, message: "Turn it.".to_owned() };
        diagnostics.insert(0, turn);
    }
    let photo = Photo {
        rotation_degrees: 0.0,
        region: None,
        document: None,
        portrait: face.then_some(PortraitPart {
            bbox: [1.0, 2.0, 3.0, 4.0],
            face_found: true,
            image: None,
        }),
        image: ImageInfo { width: 10, height: 20, format: "png", page: None },
        timing_ms: 1.0,
    };
    DocumentResult::new(Status::NoMrz, None, diagnostics, Some(photo))
}

#[test]
fn two_sides_without_a_zone_say_so_and_keep_the_face_of_the_other() {
    let merged = DocumentResult::from_sides(side_without_a_zone(false), side_without_a_zone(true));
    assert_eq!(merged.status, Status::NoMrz);
    assert_eq!(merged.diagnostics[0].code, DiagnosticCode::NoMrzFound);
    assert!(merged.diagnostics[0].message.starts_with("Neither photo"));
    assert!(merged.diagnostics.iter().all(|d| d.code != DiagnosticCode::TurnOver));
    let other = merged.other_side.expect("the other side");
    assert_eq!(other.photo, 2, "the first is kept when neither reads better");
    assert!(other.portrait.is_some_and(|portrait| portrait.face_found));
    // The side with the face given first: the advice to turn it over is dropped all the same.
    let merged = DocumentResult::from_sides(side_without_a_zone(true), side_without_a_zone(false));
    assert!(merged.diagnostics.iter().all(|d| d.code != DiagnosticCode::TurnOver));
    assert_eq!(merged.other_side.map(|side| side.photo), Some(2));
}

/// An image as the engine's crops give it, of `bytes`.
fn jpeg(bytes: &[u8]) -> EncodedImage {
    use base64::Engine as _;
    let data_base64 = base64::engine::general_purpose::STANDARD.encode(bytes);
    EncodedImage { mime_type: "image/jpeg", width: 1, height: 1, data_base64 }
}

fn with_portrait_image(mut result: DocumentResult, bytes: &[u8]) -> DocumentResult {
    result.images = Some(ImagesPart {
        pixels_per_mm: 8.0,
        page: None,
        portrait: Some(jpeg(bytes)),
        photo: None,
    });
    result
}

#[test]
fn the_kept_portrait_is_the_results_own_else_the_other_sides_and_is_found_again_when_kept() {
    // The side with the face given second: the result is of the first, the face the other's.
    let merged = DocumentResult::from_sides(
        with_portrait_image(side_without_a_zone(false), b"first"),
        with_portrait_image(side_without_a_zone(true), b"second"),
    );
    assert!(merged.photo.as_ref().unwrap().portrait.is_none());
    assert_eq!(merged.portrait_image().map(|i| i.data_base64.as_str()), Some("c2Vjb25k"));
    // The same part is found in the result's JSON, as kept.
    let mut merged = merged;
    merged.portrait_part_mut().expect("the other side's").image = Some("link".to_owned());
    let Value::Object(mut kept) = merged.to_value() else { unreachable!() };
    assert_eq!(kept["other_side"]["portrait"]["image"], "link");
    kept["other_side"]["portrait"].as_object_mut().unwrap().remove("image");
    let part = crate::kept::portrait_part(&mut kept).expect("found in the JSON");
    assert_eq!(
        Value::Object(part.clone()),
        json!({ "box": [1.0, 2.0, 3.0, 4.0], "face_found": true })
    );

    // A result whose own photo shows a portrait keeps that one.
    let mut own = with_portrait_image(side_without_a_zone(true), b"own");
    assert_eq!(own.portrait_image().map(|i| i.data_base64.as_str()), Some("b3du"));
    own.portrait_part_mut().expect("its own").image = Some("link".to_owned());
    let Value::Object(mut kept) = own.to_value() else { unreachable!() };
    assert_eq!(kept["portrait"]["image"], "link");
    assert!(crate::kept::portrait_part(&mut kept).is_some_and(|part| part.contains_key("image")));
    // Without images asked for, nothing to keep.
    assert!(side_without_a_zone(true).portrait_image().is_none());
    // Typed text has no portrait part.
    let lines = [
        "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
        "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
    ];
    let mut typed = crate::ops::parse(&lines, Some("2010-01-01"), false).unwrap();
    assert!(typed.portrait_image().is_none() && typed.portrait_part_mut().is_none());
}

#[test]
fn without_a_reading_the_fields_are_null_and_empty() {
    let result = DocumentResult::new(Status::NoMrz, None, Vec::new(), None);
    assert_eq!(
        result.to_value(),
        json!({
            "status": "no_mrz", "format": null, "lines": [], "valid": false,
            "fields": null, "checks": [], "corrections": [], "warnings": [],
            "diagnostics": [],
            "verdict": {
                "headline": "no_mrz", "safe_to_use": false, "check_digits": "none",
                "refuted": [], "expiry": "unknown",
                "summary": "No machine readable zone was found."
            }
        })
    );
}

#[test]
fn typed_text_with_a_wrong_check_digit_names_it_and_where_to_look() {
    let lines = [
        "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
        "L898902C37UTO7408122F1204159ZE184226B<<<<<10",
    ];
    let result = crate::ops::parse(&lines, Some("2010-01-01"), false).unwrap();
    assert_eq!(result.status, Status::Partial);
    let messages: Vec<&str> = result
        .diagnostics
        .iter()
        .filter(|d| d.code == DiagnosticCode::CheckDigitFailed)
        .map(|d| d.message.as_str())
        .collect();
    // The document number's and the composite's (which covers that digit) fail.
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert_eq!(
        messages[0],
        "Check digit of the document number (line 2, column 10): typed 7, the characters \
         it covers give 6. Check your typing of that digit and of line 2, columns 1-9."
    );
    assert!(messages[1].starts_with("Check digit of the composite"), "{}", messages[1]);
    // Typed right, nothing to say.
    let right = [
        "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
        "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
    ];
    let result = crate::ops::parse(&right, Some("2010-01-01"), false).unwrap();
    assert!(result.diagnostics.is_empty(), "{:?}", result.diagnostics);
}

/// The result's schema is checked in (`schema/document-result.schema.json`), so that a
/// change to what clients get is seen in review; `MRTD_UPDATE_SCHEMA=1` rewrites it.
#[test]
fn the_checked_in_schema_is_the_one_published() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/schema/document-result.schema.json");
    let published = serde_json::to_string_pretty(&schema()).unwrap() + "\n";
    if std::env::var_os("MRTD_UPDATE_SCHEMA").is_some() {
        std::fs::write(path, &published).unwrap();
    }
    let checked_in = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        checked_in == published,
        "the document result's schema differs from {path}: review the change, then run \
         MRTD_UPDATE_SCHEMA=1 cargo test -p mrtd-service --lib checked_in_schema"
    );
}

#[test]
fn the_verdict_says_each_thing_in_its_own_words_and_the_summary_is_its_sentence() {
    let lines = [
        "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
        "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
    ];
    let parsed = |lines: &[&str], on: &str| {
        let result = crate::ops::parse(lines, Some(on), false).unwrap();
        (result.verdict.clone(), summary(&result.to_value()))
    };
    let (verdict, text) = parsed(&lines, "2010-01-01");
    assert_eq!(verdict.headline, Headline::Read);
    assert!(verdict.safe_to_use);
    assert_eq!((verdict.check_digits, verdict.expiry), (CheckDigits::AllHold, Expiry::InDate));
    assert_eq!(text, "Parsed an MRZ (TD3): every check digit holds.");
    let (verdict, text) = parsed(&lines, "2012-01-01");
    assert_eq!((verdict.headline, verdict.expiry), (Headline::Read, Expiry::ExpiresSoon));
    assert_eq!(
        text,
        "Parsed an MRZ (TD3): every check digit holds; the document expires in 105 days."
    );
    let (verdict, text) = parsed(&lines, "2012-04-16");
    assert_eq!((verdict.headline, verdict.expiry), (Headline::Expired, Expiry::Expired));
    assert!(text.ends_with("; the document expired 1 day ago."), "{text}");
    let broken = [lines[0], "L898902C37UTO7408122F1204159ZE184226B<<<<<10"];
    let (verdict, text) = parsed(&broken, "2010-01-01");
    assert_eq!(verdict.headline, Headline::Partial);
    assert!(!verdict.safe_to_use);
    assert_eq!(verdict.check_digits, CheckDigits::Refuted);
    assert_eq!(
        verdict.refuted,
        [mrtd_mrz::CheckName::DocumentNumber, mrtd_mrz::CheckName::Composite]
    );
    assert!(
        text.starts_with("Parsed an MRZ (TD3): the check digit of the document number and of the"),
        "{text}"
    );
    let nothing = DocumentResult::new(Status::NoMrz, None, Vec::new(), None);
    assert_eq!(nothing.verdict.summary, "No machine readable zone was found.");
}

/// Errors of `value` under the published schema.
fn schema_errors(value: &Value) -> Vec<String> {
    let validator = jsonschema::validator_for(&schema()).expect("the schema compiles");
    validator
        .iter_errors(value)
        .map(|error| format!("{error} at {}", error.instance_path))
        .collect()
}

#[test]
fn the_schema_is_an_object_schema_that_real_results_satisfy() {
    let published = schema();
    assert_eq!(published["type"], "object", "MCP output schemas are object schemas");
    assert!(published.get("$schema").is_none());
    let engine = mrtd_engine::EngineBuilder::new().build();
    let options = mrtd_mrz::ParseOptions::new(mrtd_mrz::Date::parse_iso("2026-01-01").unwrap());
    let photo = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/images/100_pass-uto.jpg"
    ))
    .unwrap();
    let read = DocumentResult::from_image(&engine.read(&photo, &options).unwrap());
    assert!(read.is_read());
    let mut blank = std::io::Cursor::new(Vec::new());
    image::GrayImage::from_pixel(200, 120, image::Luma([210]))
        .write_to(&mut blank, image::ImageFormat::Png)
        .unwrap();
    let nothing = DocumentResult::from_image(&engine.read(blank.get_ref(), &options).unwrap());
    assert_eq!(nothing.status, Status::NoMrz);
    let lines = [
        "I<UTOD231458907<<<<<<<<<<<<<<<",
        "7408122F1204159UTO<<<<<<<<<<<6",
        "ERIKSSON<<ANNA<MARIA<<<<<<<<<<",
    ];
    let typed = DocumentResult::from_text(mrtd_mrz::parse_text(&lines, &options).unwrap());
    let mut kept = read.clone();
    kept.scan_id = Some("scn_1".into());
    kept.expires_at = Some("2026-01-02T00:00:00Z".into());
    for result in [read, nothing, typed, kept] {
        let value = result.to_value();
        assert_eq!(schema_errors(&value), Vec::<String>::new(), "{value}");
    }
    // The schema is not vacuous: a wrong status or a missing field is refused.
    let mut wrong =
        DocumentResult::from_text(mrtd_mrz::parse_text(&lines, &options).unwrap()).to_value();
    wrong["status"] = json!("maybe");
    assert!(!schema_errors(&wrong).is_empty());
    wrong = json!({ "status": "read", "diagnostics": [] });
    assert!(!schema_errors(&wrong).is_empty());
}

#[test]
fn typed_text_is_read_only_when_valid_and_flattens_the_reading() {
    let lines = [
        "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
        "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
    ];
    let options = mrtd_mrz::ParseOptions::new(mrtd_mrz::Date::parse_iso("2010-01-01").unwrap());
    let reading = mrtd_mrz::parse_text(&lines, &options).unwrap();
    let value = DocumentResult::from_text(reading.clone()).to_value();
    assert_eq!(value["status"], "read");
    assert_eq!(value["fields"]["surname"], "ERIKSSON");
    let mut expected = serde_json::to_value(&reading).unwrap();
    let object = expected.as_object_mut().unwrap();
    object.insert("status".into(), json!("read"));
    object.insert("diagnostics".into(), json!([]));
    object.insert("verdict".into(), value["verdict"].clone());
    object.insert(
        "chip_access".into(),
        json!({
            "document_number": "L898902C3",
            "document_number_check_digit": "6",
            "birth_date": "740812",
            "birth_date_check_digit": "2",
            "expiry_date": "120415",
            "expiry_date_check_digit": "9",
            "mrz_information": "L898902C3674081221204159"
        }),
    );
    assert_eq!(
        value, expected,
        "the reading's JSON, plus status, diagnostics and what opens the chip"
    );
    let mut broken = lines.map(str::to_owned);
    broken[1].replace_range(9..10, "7");
    let broken: Vec<&str> = broken.iter().map(String::as_str).collect();
    let broken = mrtd_mrz::parse_text(&broken, &options).unwrap();
    let partial = DocumentResult::from_text(broken).to_value();
    assert_eq!(partial["status"], "partial");
    assert!(partial.get("chip_access").is_none(), "no chip keys from a failing check digit");
}
