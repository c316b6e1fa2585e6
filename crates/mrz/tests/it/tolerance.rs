//! Real documents deviate from Doc 9303 and OCR text is messy: such input is read with warnings,
//! never refused or silently reinterpreted.

use crate::common;

use common::{Doc, emit, specimen};
use mrtd_mrz::{
    CellCandidates, CheckName, CheckStatus, CodeKind, Date, DateKind, Format, NotMrz, ParseOptions,
    Reading, ResidualRisk, Sex, WarningCode, codes_equivalent, decode_cells, parse_text,
};

fn options() -> ParseOptions {
    ParseOptions::new(Date::parse_iso("2026-11-29").unwrap())
}

fn read(lines: &[String]) -> Reading {
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    parse_text(&lines, &options()).unwrap()
}

fn has_warning(reading: &Reading, code: WarningCode) -> bool {
    reading.warnings.iter().any(|warning| warning.code == code)
}

#[test]
fn estonian_residence_permit_code_is_accepted_with_a_warning() {
    let doc = Doc { code: "RP".into(), issuer: "EST".into(), ..specimen() };
    let reading = read(&emit(Format::Td1, &doc));
    assert!(reading.valid);
    assert_eq!(reading.fields.document_code, "RP");
    assert!(has_warning(&reading, WarningCode::NonconformantDocumentCode));
}

#[test]
fn a_filler_inside_a_document_number_is_read_with_a_warning() {
    // `ZS0000177` read with its S as a filler and three zeros as O: every check digit agrees.
    let doc = Doc { number: "Z<OOO0177".into(), ..specimen() };
    let reading = read(&emit(Format::Td3, &doc));
    assert!(reading.valid);
    assert_eq!(reading.fields.document_number, "Z<OOO0177");
    assert!(has_warning(&reading, WarningCode::FillerInsideNumber));
    // Fillers padding a short number at its end are no such thing.
    let short = Doc { number: "HA672242".into(), ..specimen() };
    let reading = read(&emit(Format::Td3, &short));
    assert_eq!(reading.fields.document_number, "HA672242");
    assert!(!has_warning(&reading, WarningCode::FillerInsideNumber));
}

#[test]
fn a_number_with_a_filler_inside_is_certain_only_when_each_of_its_cells_was_seen_surely() {
    // German provisional identity cards print a filler there: `Q<0000000`.
    let doc = Doc { code: "ID".into(), number: "Q<0000000".into(), ..specimen() };
    let reading = read(&emit(Format::Td2, &doc));
    assert!(reading.valid);
    assert!(has_warning(&reading, WarningCode::FillerInsideNumber));
    // What a recogniser saw: each printed symbol at `p(line, column)`, nothing else.
    fn seen(
        reading: &Reading,
        p: impl Fn(usize, usize) -> f32,
    ) -> impl Fn(usize, usize, char) -> f32 {
        move |line, column, symbol| {
            let printed = reading.lines[line].chars().nth(column) == Some(symbol);
            if printed { p(line, column) } else { 0.0 }
        }
    }
    // Every cell seen at 0.999: certain, filler and all.
    assert!(reading.cells_certain(seen(&reading, |_, _| 0.999), &[]));
    // The Q at 0.95 would do for a number without a filler; here it is a look-alike the
    // check digit may not have told from an O or a 0, and the filler is the mark of that.
    let q = reading.field_cells(mrtd_mrz::FieldName::DocumentNumber)[0];
    let q_doubtful = |line, column| if (line, column) == q { 0.95 } else { 0.999 };
    assert!(!reading.cells_certain(seen(&reading, q_doubtful), &[]));
    let plain = Doc { code: "ID".into(), number: "Q10000000".into(), ..specimen() };
    let plain = read(&emit(Format::Td2, &plain));
    assert!(!has_warning(&plain, WarningCode::FillerInsideNumber));
    assert!(plain.cells_certain(seen(&plain, q_doubtful), &[]));
}

#[test]
fn germany_is_d_and_equivalent_to_deu() {
    let doc = Doc { issuer: "D".into(), nationality: "D".into(), ..specimen() };
    let reading = read(&emit(Format::Td3, &doc));
    assert_eq!(reading.fields.issuer, "D");
    assert_eq!(reading.codes.issuer.kind, CodeKind::IcaoSpecial);
    assert!(codes_equivalent(&reading.fields.issuer, "DEU"));
    assert!(codes_equivalent("RKS", "XKX"));
    assert!(!has_warning(&reading, WarningCode::UnknownCode));
}

#[test]
fn messy_text_is_normalised() {
    let lines = emit(Format::Td3, &specimen());
    let spaced = format!("  {} ", lines[0].to_lowercase().replace("<<", "< <"));
    let reading = parse_text(&[&spaced, &lines[1]], &options()).unwrap();
    assert_eq!(reading.lines, lines);
    let joined = format!("{}{}", lines[0], lines[1]);
    assert_eq!(parse_text(&[&joined], &options()).unwrap().lines, lines);
    let newline = format!("{}\n{}\n", lines[0], lines[1]);
    assert_eq!(parse_text(&[&newline], &options()).unwrap().lines, lines);
}

#[test]
fn a_line_that_lost_trailing_fillers_is_padded_with_a_warning() {
    let lines = emit(Format::Td3, &specimen());
    let short = lines[0][..42].to_owned();
    let reading = parse_text(&[&short, &lines[1]], &options()).unwrap();
    assert_eq!(reading.lines, lines);
    assert!(has_warning(&reading, WarningCode::LineLengthAdjusted));
}

#[test]
fn unknown_birth_date_parts_are_typed_not_errors() {
    let doc = Doc { birth: "74<<<<".into(), ..specimen() };
    let reading = read(&emit(Format::Td3, &doc));
    assert!(reading.valid);
    assert_eq!(reading.dates.birth.kind, DateKind::Partial);
    assert_eq!(reading.dates.birth.year, Some(1974));
    assert_eq!(reading.fields.birth_date, None);
    assert_eq!(reading.derived.age_years, None);
    assert!(has_warning(&reading, WarningCode::UnusualDate));
    // Born some day in 1974: over 18 now, not yet 52 for sure, and under 18 in 1990.
    let on = Date::new(2026, 11, 29).unwrap();
    assert_eq!(reading.is_at_least(18, on), Some(true));
    assert_eq!(reading.is_at_least(52, on), None);
    assert_eq!(reading.is_at_least(18, Date::new(1990, 1, 1).unwrap()), Some(false));
    assert_eq!(reading.age_on(on), None);
    let doc = Doc { birth: "<<<<<<".into(), ..specimen() };
    let reading = read(&emit(Format::Td3, &doc));
    assert!(reading.valid);
    assert_eq!(reading.dates.birth.kind, DateKind::Unknown);
}

#[test]
fn out_of_calendar_dates_are_typed_and_checked() {
    let doc = Doc { birth: "741332".into(), expiry: "000000".into(), ..specimen() };
    let reading = read(&emit(Format::Td3, &doc));
    assert!(reading.valid);
    assert_eq!(reading.dates.birth.kind, DateKind::OutOfCalendar);
    assert_eq!(reading.dates.expiry.as_ref().unwrap().kind, DateKind::OutOfCalendar);
    assert_eq!(reading.derived.expired, None);
    assert_eq!(reading.is_valid_on(Date::new(2000, 1, 1).unwrap()), None);
}

#[test]
fn nonconformant_sex_is_kept_as_read() {
    let doc = Doc { sex: 'X', ..specimen() };
    let reading = read(&emit(Format::Td3, &doc));
    assert_eq!(reading.fields.sex, Sex::Other('X'));
    assert!(has_warning(&reading, WarningCode::NonconformantSex));
    let doc = Doc { sex: '<', ..specimen() };
    assert_eq!(read(&emit(Format::Td3, &doc)).fields.sex, Sex::Unspecified);
}

#[test]
fn a_full_name_field_is_possibly_truncated() {
    let doc = Doc { name: format!("{}<<{}", "A".repeat(20), "B".repeat(19)), ..specimen() };
    let reading = read(&emit(Format::Td3, &doc));
    assert!(reading.fields.names_possibly_truncated);
    assert!(!read(&emit(Format::Td3, &specimen())).fields.names_possibly_truncated);
}

#[test]
fn uncovered_fields_and_blind_cells_are_residual_risk() {
    let doc = Doc { number: "K16G<<<<<".into(), ..specimen() };
    let reading = read(&emit(Format::Td3, &doc));
    assert!(reading.valid);
    assert!(
        reading
            .residual_risk
            .contains(&ResidualRisk::UncoveredField { field: mrtd_mrz::FieldName::Surname })
    );
    let blind: Vec<(usize, char, char)> = reading
        .residual_risk
        .iter()
        .filter_map(|risk| match risk {
            ResidualRisk::BlindSubstitution {
                field: mrtd_mrz::FieldName::DocumentNumber,
                column,
                read,
                could_be,
                ..
            } => Some((*column, *read, *could_be)),
            _ => None,
        })
        .collect();
    assert_eq!(blind, vec![(1, 'K', '<'), (2, '1', 'L'), (3, '6', 'G'), (4, 'G', '6')]);
}

#[test]
fn a_letter_in_a_date_is_not_a_digit() {
    // `K` has the value of `0`, so arithmetic alone would accept it in a date.
    let lines = emit(Format::Td3, &Doc { birth: "740802".into(), ..specimen() });
    let mut damaged = lines.clone();
    damaged[1].replace_range(17..18, "K");
    let damaged_refs: Vec<&str> = damaged.iter().map(String::as_str).collect();
    let uncorrected = ParseOptions { correct: false, ..options() };
    let reading = parse_text(&damaged_refs, &uncorrected).unwrap();
    assert_eq!(reading.check(CheckName::BirthDate), Some(CheckStatus::Refuted));
    assert_eq!(reading.dates.birth.kind, DateKind::Malformed);
    assert!(!reading.valid);
    // An unreadable digit is determined by its check digit (weights 7, 3, 1 are prime to 10).
    let reading = read(&damaged);
    assert_eq!(reading.lines, lines);
    assert_eq!(reading.corrections[0].why, mrtd_mrz::Why::CheckDigit);
}

#[test]
fn not_an_mrz() {
    let error = parse_text(&["hello", "world"], &options()).unwrap_err();
    assert!(matches!(error, NotMrz::Shape { .. }));
    let fillers = "<".repeat(44);
    let error = parse_text(&[&fillers, &fillers], &options()).unwrap_err();
    assert!(matches!(error, NotMrz::NoDocumentCode { .. }));
    let junk = "£".repeat(44);
    let error = parse_text(&[&junk, &junk], &options()).unwrap_err();
    assert!(matches!(error, NotMrz::NotMrzText { .. }));
    assert!(parse_text(&[], &options()).is_err());
}

#[test]
fn recogniser_first_cell_falls_back_to_a_letter_candidate() {
    let lines = emit(Format::Td3, &specimen());
    let mut grid: Vec<Vec<CellCandidates>> =
        lines.iter().map(|line| line.chars().map(CellCandidates::certain).collect()).collect();
    grid[0][0] = CellCandidates::new(vec![('<', 0.6), ('P', 0.4)]);
    let reading = decode_cells(&grid, &options()).unwrap();
    assert_eq!(reading.format, Format::Td3);
    assert_eq!(reading.lines, lines);
}

#[test]
fn a_numeric_nationality_is_taken_as_typed_with_a_warning() {
    // Some national identity cards print a numeric nationality; no check digit covers it, and
    // turning `132` into `I3Z` would make a code no state uses.
    for format in [Format::Td1, Format::Td2, Format::Td3] {
        let doc = Doc { nationality: "132".into(), ..specimen() };
        let lines = emit(format, &doc);
        let reading = read(&lines);
        assert_eq!(reading.lines, lines, "{format:?}: the lines come back as typed");
        assert!(reading.valid, "{format:?}");
        assert_eq!(reading.fields.nationality.as_deref(), Some("132"), "{format:?}");
        assert!(reading.corrections.is_empty(), "{format:?}: {:?}", reading.corrections);
        assert!(has_warning(&reading, WarningCode::UnknownCode), "{format:?}");
    }
    // A digit typed for a letter is still mended where that makes a known code.
    let doc = Doc { nationality: "UT0".into(), ..specimen() };
    let reading = read(&emit(Format::Td3, &doc));
    assert_eq!(reading.fields.nationality.as_deref(), Some("UTO"));
}
