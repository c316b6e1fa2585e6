//! Per-field confidence: typed text that holds is certain; from a recogniser's candidates a
//! field's confidence follows its cells' probabilities and its check digits' verdicts.

use mrtd_mrz::{CellCandidates, Date, FieldName, ParseOptions, Reading, decode_cells, parse_text};

const LINE1: &str = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<";
const LINE2: &str = "L898902C36UTO7408122F1204159ZE184226B<<<<<10";

fn options() -> ParseOptions {
    ParseOptions::new(Date::parse_iso("2026-11-29").unwrap())
}

fn confidence(reading: &Reading, field: FieldName) -> f32 {
    reading.evidence.iter().find(|e| e.field == field).map(|e| e.confidence).unwrap()
}

/// Every cell certain except those given as (line, column, probability of the printed one,
/// the other symbol offered).
fn cells(doubts: &[(usize, usize, f32, char)]) -> Vec<Vec<CellCandidates>> {
    [LINE1, LINE2]
        .iter()
        .enumerate()
        .map(|(line, text)| {
            text.chars()
                .enumerate()
                .map(|(column, c)| match doubts.iter().find(|d| d.0 == line && d.1 == column) {
                    Some(&(_, _, p, other)) => {
                        CellCandidates::new(vec![(c, p), (other, 1.0 - p - 0.01)])
                    }
                    None => CellCandidates::certain(c),
                })
                .collect()
        })
        .collect()
}

#[test]
fn typed_text_that_holds_is_certain_and_a_failing_field_is_not() {
    let reading = parse_text(&[LINE1, LINE2], &options()).unwrap();
    assert!(reading.evidence.iter().all(|e| e.confidence == 1.0), "{:?}", reading.evidence);
    // The birth date's own check digit typed wrong: that field is doubtful, the others hold.
    let wrong = LINE2.replace("7408122", "7408123");
    let reading =
        parse_text(&[LINE1, &wrong], &ParseOptions { correct: false, ..options() }).unwrap();
    assert_eq!(confidence(&reading, FieldName::BirthDate), 0.1);
    assert_eq!(confidence(&reading, FieldName::DocumentNumber), 1.0);
    assert_eq!(confidence(&reading, FieldName::Surname), 1.0);
}

#[test]
fn a_doubtful_cell_lowers_its_field_and_a_check_digit_raises_it_back() {
    // A name letter at 0.6: the name (no check digit) is 0.6; the given names share it.
    let reading = decode_cells(&cells(&[(0, 7, 0.6, 'C')]), &options()).unwrap();
    assert!((confidence(&reading, FieldName::Surname) - 0.6).abs() < 0.002);
    assert!((confidence(&reading, FieldName::GivenNames) - 0.6).abs() < 0.002);
    assert_eq!(confidence(&reading, FieldName::DocumentNumber), 1.0);

    // A document number cell at 0.6, its check digit verified: 0.6 / (0.6 + 0.4 / 10).
    let reading = decode_cells(&cells(&[(1, 2, 0.6, 'B')]), &options()).unwrap();
    let expected = 0.6 / (0.6 + 0.04);
    assert!((confidence(&reading, FieldName::DocumentNumber) - expected).abs() < 0.002);
    // Two doubtful cells multiply.
    let reading = decode_cells(&cells(&[(0, 7, 0.6, 'C'), (0, 9, 0.5, 'R')]), &options()).unwrap();
    assert!((confidence(&reading, FieldName::Surname) - 0.3).abs() < 0.002);
}
