//! Check-digit-guided correction: audit trail, ambiguity, field classes, recogniser candidates.

use crate::common;

use common::{Doc, emit, specimen};
use mrtd_mrz::{
    CellCandidates, CheckName, CheckStatus, Date, Format, ParseOptions, Reading, Why, decode_cells,
    parse_text,
};

fn options() -> ParseOptions {
    ParseOptions::new(Date::parse_iso("2026-11-29").unwrap())
}

fn read(lines: &[String]) -> Reading {
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    parse_text(&lines, &options()).unwrap()
}

fn replace(lines: &[String], line: usize, column: usize, c: char) -> Vec<String> {
    let mut lines = lines.to_vec();
    let mut chars: Vec<char> = lines[line - 1].chars().collect();
    chars[column - 1] = c;
    lines[line - 1] = chars.into_iter().collect();
    lines
}

#[test]
fn a_confusion_in_the_document_number_is_corrected_with_proof() {
    let truth = emit(Format::Td3, &specimen());
    // `L898902C3`: the `0` at column 6 read as `O`; no other single confusion fits.
    let reading = read(&replace(&truth, 2, 6, 'O'));
    assert_eq!(reading.lines, truth);
    assert!(reading.valid);
    assert_eq!(reading.corrections.len(), 1);
    let correction = &reading.corrections[0];
    assert_eq!(
        (correction.line, correction.column, correction.from, correction.to),
        (2, 6, 'O', '0')
    );
    assert_eq!(correction.why, Why::CheckDigit);
    assert_eq!(correction.proof, vec![CheckName::DocumentNumber, CheckName::Composite]);
}

#[test]
fn a_confusion_that_several_changes_explain_is_ambiguous() {
    let truth = emit(Format::Td3, &specimen());
    // `LB98902C3`: `B`→`8` at column 2, `8`→`B` at column 4 and `2`→`Z` at column 7 all fit,
    // and the composite cannot tell them apart (it weights the number exactly as its own digit).
    let damaged = replace(&truth, 2, 2, 'B');
    let reading = read(&damaged);
    assert_eq!(reading.lines, damaged);
    assert!(reading.corrections.is_empty());
    let columns: Vec<usize> =
        reading.ambiguities[0].alternatives.iter().map(|a| a.changes[0].column).collect();
    assert_eq!(columns, vec![2, 4, 7]);
    assert_eq!(reading.ambiguities[0].alternatives[0].text, "L898902C36");
}

#[test]
fn a_real_letter_o_is_never_turned_into_a_digit_without_proof() {
    let doc = Doc { number: "A08O26475".into(), ..specimen() };
    let truth = emit(Format::Td3, &doc);
    let reading = read(&truth);
    assert!(reading.valid);
    assert_eq!(reading.fields.document_number, "A08O26475");
    assert!(reading.corrections.is_empty());
    // Read with a zero instead, either zero could be the letter: reported, not guessed.
    let reading = read(&replace(&truth, 2, 4, '0'));
    assert_eq!(reading.fields.document_number, "A08026475");
    assert!(reading.corrections.is_empty());
    assert!(reading.ambiguities[0].alternatives.iter().any(|a| a.text == "A08O264752"));
    // With a single zero, the check digits bring the letter back.
    let doc = Doc { number: "X7O4732H9".into(), ..specimen() };
    let truth = emit(Format::Td3, &doc);
    let reading = read(&replace(&truth, 2, 3, '0'));
    assert_eq!(reading.fields.document_number, "X7O4732H9");
    assert_eq!(reading.corrections[0].why, Why::CheckDigit);
}

#[test]
fn a_document_that_is_inconsistent_as_printed_is_not_fixed() {
    // The composite verifies as read, so the failing number digit is the document's own fault.
    let truth = emit(Format::Td3, &specimen());
    let mut broken = truth.clone();
    broken[1].replace_range(9..10, "7");
    let reading = read(&broken);
    assert!(!reading.valid);
    assert!(reading.corrections.is_empty());
    assert_eq!(reading.check(CheckName::DocumentNumber), Some(CheckStatus::Refuted));
    assert_eq!(reading.check(CheckName::Composite), Some(CheckStatus::Refuted));
}

#[test]
fn ambiguity_is_reported_and_nothing_is_guessed() {
    // On a visa (no composite) find confusions that two different single changes would fix.
    let doc = Doc { code: "V".into(), number: "D2OB0S6Z1".into(), ..specimen() };
    let truth = emit(Format::MrvA, &doc);
    let confusions = [('O', '0'), ('0', 'O'), ('B', '8'), ('S', '5'), ('Z', '2'), ('1', 'I')];
    let mut n_ambiguous = 0;
    for column in 1..=9 {
        let true_char = truth[1].chars().nth(column - 1).unwrap();
        for (from, to) in confusions.iter().filter(|(from, _)| *from == true_char) {
            let reading = read(&replace(&truth, 2, column, *to));
            if reading.ambiguities.is_empty() {
                assert_eq!(reading.lines, truth, "{from} read as {to} at {column}");
                continue;
            }
            n_ambiguous += 1;
            // Left as read, flagged, and the truth is among the alternatives.
            assert_eq!(reading.lines, replace(&truth, 2, column, *to));
            assert!(!reading.valid);
            let ambiguity = &reading.ambiguities[0];
            assert!(ambiguity.alternatives.len() >= 2);
            assert!(ambiguity.alternatives.iter().any(|alternative| {
                alternative.changes.len() == 1
                    && alternative.changes[0].column == column
                    && alternative.changes[0].to == *from
            }));
            let total: f64 = ambiguity.alternatives.iter().map(|a| a.likelihood).sum();
            assert!((total - 1.0).abs() < 1e-9);
            assert!(reading.warnings.iter().any(|w| w.code == mrtd_mrz::WarningCode::Ambiguous));
        }
    }
    assert!(n_ambiguous > 0, "the chosen number yields at least one ambiguous confusion");
}

#[test]
fn letters_in_digit_fields_and_digits_in_letter_fields_follow_the_class() {
    let truth = emit(Format::Td3, &specimen());
    let damaged = replace(&replace(&truth, 2, 16, 'O'), 1, 4, '7');
    let reading = read(&replace(&damaged, 1, 5, '0'));
    assert_eq!(reading.fields.birth_date, Date::new(1974, 8, 12));
    assert!(reading.corrections.iter().any(|c| c.column == 16 && c.why == Why::DigitOnlyField));
    // `7` is no usual misread of a letter, and `U7O` would be no known code either: the
    // issuer stays as typed, flagged as unknown.
    assert_eq!(reading.fields.issuer, "U70");
    assert!(!reading.corrections.iter().any(|c| c.line == 1 && c.why == Why::LetterOnlyField));
    assert!(reading.warnings.iter().any(|w| w.code == mrtd_mrz::WarningCode::UnknownCode));
    // Where the mapping makes a known code, it is applied.
    let reading = read(&replace(&truth, 1, 5, '0'));
    assert_eq!(reading.fields.issuer, "UTO");
    assert!(reading.corrections.iter().any(|c| c.column == 5 && c.why == Why::LetterOnlyField));
}

#[test]
fn fillers_read_as_letters_after_the_given_names_are_restored() {
    let truth = emit(Format::Td3, &specimen());
    let reading = read(&replace(&replace(&truth, 1, 28, 'K'), 1, 33, 'S'));
    assert_eq!(reading.lines, truth);
    assert_eq!(reading.fields.given_names, "ANNA MARIA");
    assert!(reading.corrections.iter().all(|c| c.why == Why::FillerRun));
    assert_eq!(reading.corrections.len(), 2);
}

#[test]
fn correction_can_be_switched_off() {
    let truth = emit(Format::Td3, &specimen());
    let options = ParseOptions { correct: false, ..options() };
    let damaged = replace(&truth, 2, 2, 'B');
    let lines: Vec<&str> = damaged.iter().map(String::as_str).collect();
    let reading = parse_text(&lines, &options).unwrap();
    assert_eq!(reading.lines, damaged);
    assert!(!reading.valid);
}

fn cells(lines: &[String]) -> Vec<Vec<CellCandidates>> {
    lines.iter().map(|line| line.chars().map(CellCandidates::certain).collect()).collect()
}

#[test]
fn recogniser_top_choice_that_satisfies_every_check_is_kept() {
    let truth = emit(Format::Td3, &specimen());
    let mut grid = cells(&truth);
    // A close second choice that would also be a valid letter: the top choice stands.
    grid[1][1] = CellCandidates::new(vec![('8', 0.51), ('B', 0.49)]);
    let reading = decode_cells(&grid, &options()).unwrap();
    assert_eq!(reading.lines, truth);
    assert!(reading.corrections.is_empty());
}

#[test]
fn recogniser_second_choice_is_taken_when_check_digits_require_it() {
    let truth = emit(Format::Td3, &specimen());
    let mut grid = cells(&truth);
    grid[1][1] = CellCandidates::new(vec![('B', 0.7), ('8', 0.25), ('3', 0.05)]);
    grid[1][2] = CellCandidates::new(vec![('9', 0.9), ('8', 0.1)]);
    let reading = decode_cells(&grid, &options()).unwrap();
    assert_eq!(reading.lines, truth);
    assert_eq!(reading.corrections.len(), 1);
    assert_eq!((reading.corrections[0].from, reading.corrections[0].to), ('B', '8'));
}

#[test]
fn recogniser_probabilities_break_ties_that_plain_text_cannot() {
    let truth = emit(Format::Td3, &specimen());
    let mut grid = cells(&truth);
    // A letter in a date cell is replaced by the best digit candidate.
    grid[1][14] = CellCandidates::new(vec![('Z', 0.6), ('4', 0.3), ('2', 0.1)]);
    let reading = decode_cells(&grid, &options()).unwrap();
    assert_eq!(reading.lines, truth);
    assert_eq!(reading.corrections[0].why, Why::DigitOnlyField);
}

#[test]
fn an_unseen_cell_is_neither_corrected_nor_counted() {
    let truth = emit(Format::Td3, &specimen());
    let mut grid = cells(&truth);
    // The B-for-8 misread the check digits correct above, in a glyph the photo's edge cut.
    grid[1][1] = CellCandidates {
        unseen: true,
        ..CellCandidates::new(vec![('B', 0.7), ('8', 0.25), ('3', 0.05)])
    };
    let reading = decode_cells(&grid, &options()).unwrap();
    assert_eq!(&reading.lines[1][..2], "LB", "kept as read");
    assert!(reading.corrections.is_empty(), "{:?}", reading.corrections);
    assert!(!reading.valid);
    // Even read right, an unseen cell proves nothing: its check digits do not hold on it.
    grid[1][1] = CellCandidates { unseen: true, ..CellCandidates::certain('8') };
    let reading = decode_cells(&grid, &options()).unwrap();
    assert_eq!(reading.lines, truth);
    assert!(!reading.valid);
}

#[test]
fn recogniser_shape_errors_are_not_mrz() {
    let truth = emit(Format::Td3, &specimen());
    let mut grid = cells(&truth);
    grid[1].pop();
    let error = decode_cells(&grid, &options()).unwrap_err();
    assert!(error.to_string().starts_with("expected 2 or 3 lines of 30, 36 or 44"));
}

#[test]
fn a_digit_lost_to_a_filler_is_restored_by_its_check_digit() {
    let truth = emit(Format::Td3, &specimen());
    // The expiry check digit `9` read as a filler.
    let reading = read(&replace(&truth, 2, 28, '<'));
    assert_eq!(reading.lines, truth);
    assert_eq!(reading.corrections[0].why, Why::CheckDigit);
    // An unknown birth date printed as fillers verifies as it is and is left alone.
    let unknown = emit(Format::Td3, &Doc { birth: "<<<<<<".into(), ..specimen() });
    let reading = read(&unknown);
    assert!(reading.valid);
    assert!(reading.corrections.is_empty());
}

#[test]
fn a_digit_in_a_typed_name_stays_as_typed() {
    // No check digit covers a name, so nothing could prove `5` to be an `S`: the name is
    // given as typed and flagged.
    let truth = emit(Format::Td3, &specimen());
    let reading = read(&replace(&truth, 1, 10, '5'));
    assert_eq!(reading.fields.surname, "ERIK5SON");
    assert!(reading.corrections.is_empty(), "{:?}", reading.corrections);
    assert!(reading.warnings.iter().any(|w| w.code == mrtd_mrz::WarningCode::UnusualName));
}

#[test]
fn a_digit_the_recogniser_is_sure_of_in_a_name_stays_as_seen() {
    let truth = emit(Format::Td3, &specimen());
    let mut grid = cells(&truth);
    // Seen surely as an 8: kept, and the name flagged.
    grid[0][9] = CellCandidates::new(vec![('8', 0.99), ('B', 0.005)]);
    let reading = decode_cells(&grid, &options()).unwrap();
    assert_eq!(reading.fields.surname, "ERIK8SON");
    assert!(reading.warnings.iter().any(|w| w.code == mrtd_mrz::WarningCode::UnusualName));
    // Offered as an S too, as a font that prints them alike makes a recogniser do: the
    // layout reads the letter.
    grid[0][9] = CellCandidates::new(vec![('5', 0.9), ('S', 0.1)]);
    let reading = decode_cells(&grid, &options()).unwrap();
    assert_eq!(reading.lines, truth);
    assert!(reading.corrections.iter().any(|c| c.why == Why::LetterOnlyField));
}

#[test]
fn a_numeric_nationality_the_recogniser_saw_stays_as_seen() {
    // A nationality printed as digits, seen surely, whose look-alike letters make no known
    // code: kept as seen, flagged as unknown, not made into letters nobody prints.
    let truth = emit(Format::Td3, &specimen());
    let seen = |p_letter: f32| {
        let mut grid = cells(&truth);
        for (column, (digit, letter)) in [(10, ('1', 'T')), (11, ('3', 'S')), (12, ('2', 'R'))] {
            grid[1][column] =
                CellCandidates::new(vec![(digit, 1.0 - p_letter), (letter, p_letter)]);
        }
        decode_cells(&grid, &options()).unwrap()
    };
    let reading = seen(0.01);
    assert_eq!(reading.fields.nationality.as_deref(), Some("132"));
    assert!(reading.warnings.iter().any(|w| w.code == mrtd_mrz::WarningCode::UnknownCode));
    // Where the recogniser offered the letters too, the layout reads them (the old German
    // `BDR`, no code of the list, was seen at 10 px per line with its B a likelier 8).
    let reading = seen(0.2);
    assert_eq!(reading.fields.nationality.as_deref(), Some("TSR"));
}

#[test]
fn the_russian_internal_passport_reads_alike_typed_and_recognised() {
    let lines = [
        "PNRUSIM8REK<<EVGENIQ<ALEKSANDROVI3<<<<<<<<<<".to_owned(),
        "1100000000RUS8209120M<<<<<<<4041217292000<46".to_owned(),
    ];
    let typed = read(&lines);
    let mut grid = cells(&lines);
    // The recogniser offers the letters the digits are usually mistaken for.
    grid[0][7] = CellCandidates::new(vec![('8', 0.9), ('B', 0.1)]);
    let recognised = decode_cells(&grid, &options()).unwrap();
    for reading in [&typed, &recognised] {
        assert_eq!(reading.lines, lines);
        assert_eq!(reading.fields.surname, "IM8REK");
        assert!(reading.valid);
        assert!(reading.warnings.iter().any(|w| w.code == mrtd_mrz::WarningCode::NationalCoding));
        assert!(!reading.warnings.iter().any(|w| w.code == mrtd_mrz::WarningCode::UnusualName));
        let national = reading.national.as_ref().expect("the coding is named");
        assert_eq!(national.variant, mrtd_mrz::NationalVariant::RusInternalPassport);
        assert_eq!(national.surname_native.as_deref(), Some("ИМЯРЕК"));
        assert_eq!(national.given_names_native.as_deref(), Some("ЕВГЕНИЙ АЛЕКСАНДРОВИЧ"));
    }
    // An ICAO passport of the same state is no internal passport.
    let icao = ["P<RUSIVANOV<<IVAN<<<<<<<<<<<<<<<<<<<<<<<<<<<".to_owned(), lines[1].clone()];
    assert!(read(&icao).national.is_none());
}
