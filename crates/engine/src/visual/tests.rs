use super::*;

fn line(text: &str, bbox: [f32; 4]) -> Line {
    Line {
        text: text.to_owned(),
        bbox,
        confidence: 0.99,
        char_confidences: vec![0.99; text.chars().count()],
    }
}

#[test]
fn labels_are_known_in_several_languages_words_joined_or_not() {
    use labels::{Label, label_of};
    for (text, want) in [
        ("Surname/Name/Nom", Label::Field(F::Surname)),
        ("Given name/Vornamen/Prénoms", Label::Field(F::GivenNames)),
        ("Nombres", Label::Field(F::GivenNames)),
        ("8.Dateofexpiry/Gutig bis/Datedexpiration", Label::Field(F::DateOfExpiry)),
        ("7. Date of issue / Date de délivrance", Label::Field(F::DateOfIssue)),
        ("Lieu de naissance", Label::Field(F::PlaceOfBirth)),
        ("9.Authority/Behörde/Autorité", Label::Field(F::IssuingAuthority)),
        ("Passport No./Pass-Nr./", Label::Field(F::DocumentNumber)),
        ("5.Sex/Geschlecht/Sexe", Label::Field(F::Sex)),
        ("Nationality/Staatsangehörigkeit", Label::Other),
        ("Holder's signature", Label::Other),
        // A name at birth (`geb. GABLER` under a German surname) is no field here.
        ("GEB. GABLER", Label::Other),
        // A name in another form than the holder's surname (Latvian cards print the
        // historical form of a name).
        ("The historical form of the person's name", Label::Other),
        // One label for the whole name: neither the surname's nor the given names'.
        ("Nom, prénom", Label::Other),
        ("Nazwisko, imię / Nom, prénom / Surname, name", Label::Other),
        ("Personvārda vēsturiskā forma/", Label::Other),
    ] {
        assert_eq!(label_of(text), Some(want), "{text}");
    }
    // Values are no labels, nor are short words inside longer ones (`nom` in `NOMURA`).
    for value in ["MUSTERMANN", "NOMURA", "BERLIN", "12.08.1964", "F", "BUNDESDRUCKEREI"] {
        assert_eq!(label_of(value), None, "{value}");
    }
}

use labels::VisualFieldName as F;

#[test]
fn a_value_is_the_first_line_under_its_label_past_the_label_in_other_languages() {
    let lines = [
        line("Surname/Name/Nom", [630.0, 341.0, 881.0, 381.0]),
        line("MUSTERMANN", [642.0, 378.0, 943.0, 419.0]),
        line("Given names/Vornamen/Prénoms", [634.0, 420.0, 1006.0, 461.0]),
        line("ERIKA", [641.0, 457.0, 774.0, 500.0]),
        line("Date of birth/Geburtstag/", [622.0, 578.0, 922.0, 618.0]),
        line("Date de naissance", [630.0, 605.0, 851.0, 646.0]),
        line("12.08.1964", [641.0, 640.0, 855.0, 684.0]),
        line("Sex/Sexe", [1187.0, 574.0, 1472.0, 620.0]),
        line("F", [1226.0, 644.0, 1257.0, 678.0]),
    ];
    let found = fields(&lines, None);
    let value =
        |name| found.iter().find(|(field, _)| *field == name).map(|(_, f)| f.value.as_str());
    assert_eq!(value(F::Surname), Some("MUSTERMANN"));
    assert_eq!(value(F::GivenNames), Some("ERIKA"));
    assert_eq!(value(F::DateOfBirth), Some("12.08.1964"));
    assert_eq!(value(F::Sex), Some("F"));
}

#[test]
fn a_value_beside_its_label_is_taken_where_none_is_under_it() {
    let lines = [
        line("Apellidos", [10.0, 10.0, 110.0, 30.0]),
        line("ESPAÑOLA", [130.0, 10.0, 260.0, 30.0]),
        line("Nombre", [10.0, 100.0, 90.0, 120.0]),
        line("CARMEN", [110.0, 100.0, 200.0, 120.0]),
    ];
    let found = fields(&lines, None);
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].1.value, "ESPAÑOLA");
    assert_eq!(found[1].1.value, "CARMEN");
}

#[test]
fn mrz_lines_are_no_fields() {
    assert!(is_mrz("P<BDRMUSTERMANN<<ERIKA<<<<<"));
    assert!(!is_mrz("BERLIN"));
}

/// A field as a side showed it, read at `confidence`.
fn shown(name: F, value: &str, confidence: f32, other_side: bool) -> (F, VisualField) {
    let field = VisualField {
        value: value.to_owned(),
        confidence,
        label: Some("label".to_owned()),
        bbox: [0.0; 4],
        other_side,
    };
    (name, field)
}

#[test]
fn both_sides_give_each_field_as_read_with_more_confidence_compared_together() {
    let lines = [
        "IDD<<T220001293<<<<<<<<<<<<<<<",
        "6408125<2010315D<<<<<<<<<<<<<4",
        "MUSTERMANN<<ERIKA<<<<<<<<<<<<<",
    ];
    let mrz = mrtd_mrz::parse_text(&lines, &mrtd_mrz::ParseOptions::default()).expect("a TD1 zone");
    assert!(mrz.valid, "{:?}", mrz.checks);
    let back = VisualZone {
        fields: vec![
            shown(F::Surname, "HISTORICAL FORM", 0.6, false),
            shown(F::DateOfIssue, "01.11.2010", 0.95, false),
        ],
        agreement: None,
        lines_read: 4,
    };
    let front = VisualZone {
        fields: vec![
            shown(F::Surname, "MUSTERMANN", 0.97, true),
            shown(F::DateOfIssue, "01.11.2011", 0.5, true),
            shown(F::DateOfBirth, "12.08.1964", 0.99, true),
        ],
        agreement: None,
        lines_read: 9,
    };
    let zone = VisualZone::of_sides(Some(back.clone()), Some(front.clone()), &mrz)
        .expect("both sides read");
    let value = |name| zone.field(name).map(|field| (field.value.as_str(), field.other_side));
    assert_eq!(value(F::Surname), Some(("MUSTERMANN", true)));
    assert_eq!(value(F::DateOfIssue), Some(("01.11.2010", false)));
    assert_eq!(value(F::DateOfBirth), Some(("12.08.1964", true)));
    assert_eq!(zone.lines_read, 13);
    let agreement = zone.agreement.clone().expect("compared");
    assert_eq!(agreement.matches(), Some(true), "{agreement:?}");
    // One side alone is that side's zone; neither is none.
    assert_eq!(VisualZone::of_sides(None, Some(front.clone()), &mrz), Some(front));
    assert_eq!(VisualZone::of_sides(None, None, &mrz), None);
}

#[test]
fn a_passports_one_date_neither_of_birth_nor_of_expiry_is_its_date_of_issue() {
    let passport = [
        "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
        "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
    ];
    let mrz = mrtd_mrz::parse_text(&passport, &mrtd_mrz::ParseOptions::default()).expect("TD3");
    // The labels in small print over a guilloche, read as noise.
    let page = |issue: &[&str]| {
        let mut lines = vec![
            line("1.ROUNEM", [300.0, 110.0, 470.0, 130.0]),
            line("ERIKSSON", [320.0, 130.0, 480.0, 160.0]),
            line("12 AUG/AOUT 74", [320.0, 280.0, 570.0, 310.0]),
            line("15 APR/AVR 12", [320.0, 430.0, 540.0, 465.0]),
        ];
        for (row, text) in issue.iter().enumerate() {
            lines.push(line(text, [320.0, 380.0 + 10.0 * row as f32, 540.0, 410.0]));
        }
        lines
    };
    let issue = |lines: &[Line]| {
        fields(lines, Some(&mrz))
            .into_iter()
            .find(|(name, _)| *name == F::DateOfIssue)
            .map(|(_, field)| (field.value, field.label))
    };
    assert_eq!(issue(&page(&["16 APR/AVR 07"])), Some(("16 APR/AVR 07".to_owned(), None)));
    // None left, or two: nothing is inferred.
    assert_eq!(issue(&page(&[])), None);
    assert_eq!(issue(&page(&["16 APR/AVR 07", "01 JAN/JAN 09"])), None);
    // A misread date of birth (its year) is none; nor is a date out of the document's life,
    // nor one read with doubt.
    assert_eq!(issue(&page(&["12 AUG/AOUT 84"])), None);
    assert_eq!(issue(&page(&["16 APR/AVR 13"])), None);
    let mut doubtful = page(&["16 APR/AVR 07"]);
    if let Some(last) = doubtful.last_mut() {
        last.char_confidences[0] = 0.5;
    }
    assert_eq!(issue(&doubtful), None);
    // A date printed twice is one date.
    let twice = page(&["16 APR/AVR 07", "16.04.2007"]);
    assert_eq!(issue(&twice).map(|(value, _)| value), Some("16 APR/AVR 07".to_owned()));
    // Under its label, it is the labelled one.
    let mut labelled = page(&["16 APR/AVR 07"]);
    labelled.push(line("Date of issue", [600.0, 360.0, 760.0, 378.0]));
    labelled.push(line("17 APR/AVR 07", [600.0, 380.0, 760.0, 410.0]));
    let (value, label) = issue(&labelled).expect("labelled");
    assert_eq!((value.as_str(), label.as_deref()), ("17 APR/AVR 07", Some("Date of issue")));
    // Not on a visa, which prints its validity's dates too.
    let visa = [
        "V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
        "L8988901C4XXX4009078F96121096ZE184226B<<<<<<",
    ];
    let visa = mrtd_mrz::parse_text(&visa, &mrtd_mrz::ParseOptions::default()).expect("MRV-A");
    let on_visa = fields(&page(&["16 APR/AVR 07"]), Some(&visa));
    assert!(on_visa.iter().all(|(name, _)| *name != F::DateOfIssue), "{on_visa:?}");
}

#[test]
fn a_value_after_a_colon_on_its_labels_line_is_the_fields() {
    // A card whose labels and values the detector reads as one line each.
    let lines = [
        line("Nom:BERTHIER", [254.0, 99.0, 438.0, 131.0]),
        line("Prenom(s:CORINNE", [254.0, 159.0, 466.0, 196.0]),
        line("Nee）le: 06.12.1965", [470.0, 220.0, 706.0, 257.0]),
        line("Sexe:", [259.0, 229.0, 329.0, 253.0]),
        line("F", [340.0, 229.0, 352.0, 253.0]),
    ];
    let found = fields(&lines, None);
    let field = |name| found.iter().find(|(field, _)| *field == name).map(|(_, f)| f);
    let surname = field(F::Surname).expect("a surname");
    assert_eq!((surname.value.as_str(), surname.label.as_deref()), ("BERTHIER", Some("Nom")));
    assert!(surname.bbox[0] > 254.0 + 184.0 * 0.2 && surname.bbox[2] <= 438.0, "{surname:?}");
    assert_eq!(field(F::GivenNames).map(|f| f.value.as_str()), Some("CORINNE"));
    assert_eq!(field(F::DateOfBirth).map(|f| f.value.as_str()), Some("06.12.1965"));
    // A label that ends in a colon has its value beside it.
    assert_eq!(field(F::Sex).map(|f| f.value.as_str()), Some("F"));
    // After the colon, what does not fit the field is no value; nor is a date of fewer than
    // three digits (the next label, misread: `10.Izde`).
    assert!(fields(&[line("Surname: 1234", [0.0, 0.0, 100.0, 20.0])], None).is_empty());
    assert!(fields(&[line("Date of issue: 10.Izde", [0.0, 0.0, 100.0, 20.0])], None).is_empty());
}

#[test]
fn a_name_on_two_lines_is_both_but_not_the_next_fields_value() {
    // A Spanish card's two surnames, one a line, under their label.
    let lines = [
        line("APELLIDOS", [10.0, 10.0, 110.0, 26.0]),
        line("ESPAÑOLA", [12.0, 28.0, 160.0, 58.0]),
        line("ESPAÑOLA", [12.0, 60.0, 160.0, 90.0]),
        line("NOMBRE", [10.0, 100.0, 90.0, 116.0]),
        line("CARMEN", [12.0, 118.0, 130.0, 148.0]),
    ];
    let found = fields(&lines, None);
    let value = |name| {
        found.iter().find(|(field, _)| *field == name).map(|(_, f)| (f.value.as_str(), f.bbox))
    };
    assert_eq!(value(F::Surname), Some(("ESPAÑOLA ESPAÑOLA", [12.0, 28.0, 160.0, 90.0])));
    assert_eq!(value(F::GivenNames).map(|(v, _)| v), Some("CARMEN"));
    let passport = [
        "IDESPBAA000589599999999D<<<<<<",
        "8001014F2501017ESP<<<<<<<<<<<7",
        "ESPANOLA<ESPANOLA<<CARMEN<<<<<",
    ];
    let mrz = mrtd_mrz::parse_text(&passport, &mrtd_mrz::ParseOptions::default()).expect("TD1");
    let mut zone = VisualZone { fields: found.clone(), ..VisualZone::default() };
    zone.compare(&mrz);
    assert_eq!(zone.agreement.and_then(|a| a.matches()), Some(true));

    // The next field's value right under a value, its label missed, is further down than a
    // line's spacing; the next row of a card whose labels stand beside their values is
    // beside a label; a smaller print is another field's.
    for second in [
        [line("ESPAÑOLA", [12.0, 70.0, 160.0, 100.0]), line("x", [0.0, 0.0, 0.0, 0.0])],
        [line("ESPAÑOLA", [12.0, 60.0, 160.0, 90.0]), line("Nombre", [-80.0, 62.0, -10.0, 86.0])],
        [line("ESPAÑOLA", [12.0, 60.0, 160.0, 78.0]), line("x", [0.0, 0.0, 0.0, 0.0])],
        // A label under the value that the recogniser misread is in small letters; a name
        // at birth (German `geb.`) is no surname.
        [line("Natlonality/Nstionalte", [12.0, 60.0, 190.0, 88.0]), line("x", [0.0; 4])],
        [line("GEB. GABLER", [12.0, 60.0, 160.0, 90.0]), line("x", [0.0; 4])],
    ] {
        let mut page = lines[..2].to_vec();
        page.extend(second.iter().cloned());
        let found = fields(&page, None);
        let surname = found.iter().find(|(field, _)| *field == F::Surname).map(|(_, f)| &f.value);
        assert_eq!(surname.map(String::as_str), Some("ESPAÑOLA"), "{second:?}");
    }
}
