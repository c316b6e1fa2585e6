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
    let found = fields(&lines);
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
    let found = fields(&lines);
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
        label: "label".to_owned(),
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
