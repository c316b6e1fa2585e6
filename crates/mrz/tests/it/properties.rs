//! Property tests: valid zones of every format round-trip; a single usual confusion in a cell a
//! check digit covers is corrected (with an audit entry) or reported ambiguous, never silently
//! wrong; arbitrary input never panics.

use crate::common;

use common::{Doc, emit};
use mrtd_mrz::{
    CellCandidates, CheckStatus, Date, Format, ParseOptions, Reading, decode_cells, parse_text,
};
use proptest::prelude::*;

const REFERENCE: Date = Date { year: 2026, month: 11, day: 29 };

fn options() -> ParseOptions {
    ParseOptions::new(REFERENCE)
}

fn read(lines: &[String]) -> Reading {
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    parse_text(&lines, &options()).expect("a generated zone is an MRZ")
}

fn yymmdd(date: Date) -> String {
    format!("{:02}{:02}{:02}", date.year.rem_euclid(100), date.month, date.day)
}

/// A date `offset` days from the reference date.
fn shifted(offset: i64) -> Date {
    Date::from_days_since_epoch(REFERENCE.days_since_epoch() + offset)
}

fn word(max: usize) -> impl Strategy<Value = String> {
    proptest::string::string_regex(&format!("[A-Z]{{1,{max}}}")).unwrap()
}

/// Primary and secondary identifiers that fit in `width` cells.
fn name(width: usize) -> impl Strategy<Value = (Vec<String>, Vec<String>)> {
    (prop::collection::vec(word(8), 1..3), prop::collection::vec(word(8), 0..3))
        .prop_filter("fits the name field", move |(surname, given)| {
            surname.join("<").len() + 2 + given.join("<").len() < width
        })
}

fn alnum(len: std::ops::RangeInclusive<usize>) -> impl Strategy<Value = String> {
    proptest::string::string_regex(&format!("[A-Z0-9]{{{},{}}}", len.start(), len.end())).unwrap()
}

const CODES: &[&str] = &["UTO", "DEU", "D", "FRA", "GBR", "XXA", "RKS", "EUE", "CHE", "IND"];

#[derive(Debug, Clone)]
struct Case {
    format: Format,
    doc: Doc,
    surname: String,
    given_names: String,
    birth: Date,
    expiry: Date,
}

fn format_strategy() -> impl Strategy<Value = Format> {
    prop_oneof![
        Just(Format::Td1),
        Just(Format::Td2),
        Just(Format::Td3),
        Just(Format::MrvA),
        Just(Format::MrvB),
    ]
}

fn case_for(format: Format) -> impl Strategy<Value = Case> {
    let name_width = match format {
        Format::Td1 => 30,
        Format::Td2 | Format::MrvB => 31,
        _ => 39,
    };
    let long_numbers = matches!(format, Format::Td1 | Format::Td2);
    let number = if long_numbers { alnum(1..=14).boxed() } else { alnum(1..=9).boxed() };
    let optional_width = match format {
        Format::Td1 => 15,
        Format::Td2 => 7,
        Format::Td3 => 14,
        Format::MrvA => 16,
        _ => 8,
    };
    (
        name(name_width),
        number,
        prop::sample::select(CODES),
        prop::sample::select(CODES),
        -36_000i64..=0,
        -17_000i64..=17_000,
        prop::sample::select(vec!['M', 'F', '<']),
        alnum(0..=optional_width),
        alnum(0..=11),
        prop::sample::select(vec!["P", "PP", "I", "ID", "AC", "V", "VB"]),
    )
        .prop_map(
            move |(
                names,
                number,
                issuer,
                nationality,
                birth,
                expiry,
                sex,
                optional,
                optional2,
                code,
            )| {
                let code = match format {
                    Format::Td3 => code.chars().filter(|c| *c == 'P').collect::<String>(),
                    Format::MrvA | Format::MrvB => code.replace(['P', 'I', 'D', 'A', 'C'], ""),
                    _ => code.replace(['P', 'V', 'B'], ""),
                };
                let code = match (format, code.is_empty()) {
                    (Format::Td3, true) => "P".to_owned(),
                    (Format::MrvA | Format::MrvB, true) => "V".to_owned(),
                    (_, true) => "I".to_owned(),
                    _ => code,
                };
                let birth = shifted(birth);
                let expiry = shifted(expiry);
                let (surname, given) = names;
                let name = if given.is_empty() {
                    surname.join("<")
                } else {
                    format!("{}<<{}", surname.join("<"), given.join("<"))
                };
                Case {
                    format,
                    doc: Doc {
                        code,
                        issuer: issuer.to_owned(),
                        name,
                        number,
                        nationality: nationality.to_owned(),
                        birth: yymmdd(birth),
                        sex,
                        expiry: yymmdd(expiry),
                        optional,
                        optional2: if format == Format::Td1 { optional2 } else { String::new() },
                    },
                    surname: surname.join(" "),
                    given_names: given.join(" "),
                    birth,
                    expiry,
                }
            },
        )
}

fn any_case() -> impl Strategy<Value = Case> {
    format_strategy().prop_flat_map(case_for)
}

/// Usual confusions `(true, read)` where the read character's candidates include the truth and
/// the pair is not blind to check digits.
const CONFUSIONS: &[(char, char)] = &[
    ('O', '0'),
    ('Q', '0'),
    ('D', '0'),
    ('0', 'O'),
    ('Q', 'O'),
    ('D', 'O'),
    ('0', 'Q'),
    ('O', 'Q'),
    ('0', 'D'),
    ('O', 'D'),
    ('I', '1'),
    ('1', 'I'),
    ('2', 'Z'),
    ('Z', '2'),
    ('S', '5'),
    ('5', 'S'),
    ('B', '8'),
    ('8', 'B'),
    ('<', 'S'),
    ('<', 'C'),
    ('<', 'E'),
    ('<', 'X'),
    ('M', 'H'),
    ('H', 'M'),
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn valid_zones_round_trip(case in any_case()) {
        let lines = emit(case.format, &case.doc);
        let reading = read(&lines);
        prop_assert_eq!(reading.format, case.format);
        prop_assert!(reading.valid, "{:?}", reading.checks);
        prop_assert_eq!(&reading.lines, &lines);
        prop_assert!(reading.corrections.is_empty(), "{:?}", reading.corrections);
        prop_assert!(reading.ambiguities.is_empty());
        prop_assert_eq!(&reading.fields.document_number, &case.doc.number);
        prop_assert_eq!(&reading.fields.surname, &case.surname);
        prop_assert_eq!(&reading.fields.given_names, &case.given_names);
        prop_assert_eq!(reading.fields.birth_date, Some(case.birth));
        prop_assert_eq!(reading.fields.expiry_date, Some(case.expiry));
        prop_assert_eq!(reading.fields.issuer.as_str(), case.doc.issuer.as_str());
        prop_assert_eq!(reading.is_valid_on(REFERENCE), Some(case.expiry >= REFERENCE));
        if case.doc.number.len() <= 9 {
            prop_assert_eq!(reading.fields.optional_data.as_deref(), Some(case.doc.optional.as_str()));
        }
    }

    #[test]
    fn old_french_ids_round_trip(
        surname in word(12),
        given in word(10),
        admin in alnum(6..=6),
        office in alnum(3..=3),
        sequence in "[0-9]{5}",
        issue in -3_600i64..=0,
        birth in -36_000i64..=0,
        sex in prop::sample::select(vec!['M', 'F']),
    ) {
        let issue = shifted(issue);
        let number = format!("{}{office}{sequence}", &yymmdd(issue)[..4]);
        let birth_date = shifted(birth);
        let doc = Doc {
            code: "ID".into(),
            issuer: "FRA".into(),
            name: surname.clone(),
            number: number.clone(),
            nationality: String::new(),
            birth: yymmdd(birth_date),
            sex,
            expiry: String::new(),
            optional: admin.clone(),
            optional2: given.clone(),
        };
        let lines = emit(Format::FraId, &doc);
        let reading = read(&lines);
        prop_assert_eq!(reading.format, Format::FraId);
        prop_assert!(reading.valid);
        prop_assert_eq!(reading.fields.document_number, number);
        prop_assert_eq!(reading.fields.surname, surname);
        prop_assert_eq!(reading.fields.given_names, given);
        prop_assert_eq!(reading.fields.birth_date, Some(birth_date));
        prop_assert_eq!(reading.fields.administrative_code, Some(admin));
    }

    #[test]
    fn a_single_confusion_is_corrected_or_ambiguous_never_silently_wrong(
        case in any_case(),
        pick in any::<prop::sample::Index>(),
        confusion in any::<prop::sample::Index>(),
    ) {
        let truth = emit(case.format, &case.doc);
        let clean = read(&truth);
        let long_number = case.doc.number.len() > 9;
        // Every cell a printed check digit covers, and the digits themselves.
        let mut cells: Vec<(usize, usize)> = Vec::new();
        for check in clean.checks.iter().filter(|c| c.status != CheckStatus::Absent) {
            for range in &check.covers {
                cells.extend((range.from..=range.to).map(|column| (range.line, column)));
            }
            cells.push((check.line.unwrap(), check.column.unwrap()));
        }
        let char_at = |(line, column): (usize, usize)| truth[line - 1].chars().nth(column - 1).unwrap();
        // A long number's layout is marked by fillers; a filler misread there changes the layout.
        cells.retain(|cell| !(long_number && char_at(*cell) == '<'));
        let choices: Vec<((usize, usize), char)> = cells
            .iter()
            .flat_map(|cell| {
                CONFUSIONS.iter().filter(move |(t, _)| *t == char_at(*cell)).map(move |(_, r)| (*cell, *r))
            })
            .collect();
        prop_assume!(!choices.is_empty());
        let ((line, column), read_as) = *confusion.get(&choices);
        let _ = pick;
        let mut damaged = truth.clone();
        let mut chars: Vec<char> = damaged[line - 1].chars().collect();
        chars[column - 1] = read_as;
        damaged[line - 1] = chars.into_iter().collect();
        let reading = read(&damaged);
        if reading.lines == truth {
            prop_assert!(reading.valid);
            prop_assert!(reading.corrections.iter().any(|c| c.line == line && c.column == column && c.from == read_as));
        } else {
            // Not corrected: left exactly as read, not valid, and the ambiguity offers the truth.
            prop_assert_eq!(&reading.lines, &damaged);
            prop_assert!(!reading.valid);
            let restores = reading.ambiguities.iter().any(|ambiguity| {
                ambiguity.truncated || ambiguity.alternatives.iter().any(|alternative| {
                    alternative.changes.iter().any(|change| change.line == line && change.column == column)
                })
            });
            prop_assert!(restores, "{:?} at {}:{} -> {:?}", read_as, line, column, reading.ambiguities);
        }
    }

    #[test]
    fn a_recogniser_misread_with_the_truth_as_second_choice_is_corrected(
        case in any_case(),
        pick in any::<prop::sample::Index>(),
        wrong in prop::sample::select(('0'..='9').chain('A'..='Z').collect::<Vec<char>>()),
        top in 0.5f32..0.95,
    ) {
        let truth = emit(case.format, &case.doc);
        let clean = read(&truth);
        let mut cells: Vec<(usize, usize)> = Vec::new();
        for check in clean.checks.iter().filter(|c| c.status != CheckStatus::Absent) {
            for range in &check.covers {
                cells.extend((range.from..=range.to).map(|column| (range.line, column)));
            }
            cells.push((check.line.unwrap(), check.column.unwrap()));
        }
        let char_at = |(line, column): (usize, usize)| truth[line - 1].chars().nth(column - 1).unwrap();
        // A filler read as a letter can move the overflow structure; fillers are left out here.
        cells.retain(|cell| char_at(*cell) != '<');
        let (line, column) = *pick.get(&cells);
        let true_char = char_at((line, column));
        // A swap no check digit can see is out of scope.
        prop_assume!(wrong != true_char && !mrtd_mrz::is_blind_pair(wrong, true_char));
        let mut grid: Vec<Vec<CellCandidates>> = truth
            .iter()
            .map(|line| line.chars().map(CellCandidates::certain).collect())
            .collect();
        grid[line - 1][column - 1] =
            CellCandidates::new(vec![(wrong, top), (true_char, 1.0 - top)]);
        let reading = decode_cells(&grid, &options()).unwrap();
        if reading.lines == truth {
            prop_assert!(reading.valid);
        } else {
            prop_assert!(!reading.valid, "{:?}", reading.lines);
            prop_assert!(!reading.ambiguities.is_empty(), "{:?}", reading.lines);
        }
    }

    #[test]
    fn arbitrary_text_never_panics(lines in prop::collection::vec(".{0,50}", 0..5)) {
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        if let Ok(reading) = parse_text(&lines, &options()) {
            prop_assert_eq!(reading.valid, reading.checks.iter().all(|c| c.status != CheckStatus::Refuted));
            let _ = serde_json::to_string(&reading).unwrap();
        }
    }

    #[test]
    fn arbitrary_zone_shaped_text_never_panics(
        shape in prop::sample::select(vec![(3usize, 30usize), (2, 36), (2, 44)]),
        seed in prop::collection::vec("[A-Z0-9<]{44}|[A-Z0-9<KSCEX£a ]{44}", 3),
        today in 0i64..80_000,
    ) {
        let lines: Vec<String> =
            seed.iter().take(shape.0).map(|line| line.chars().take(shape.1).collect()).collect();
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let options = ParseOptions::new(Date::from_days_since_epoch(today - 20_000));
        if let Ok(reading) = parse_text(&lines, &options) {
            prop_assert_eq!(reading.lines.len(), shape.0);
            let _ = serde_json::to_string(&reading).unwrap();
        }
    }

    #[test]
    fn arbitrary_candidates_never_panic(
        shape in prop::sample::select(vec![(3usize, 30usize), (2, 36), (2, 44), (2, 30), (1, 44)]),
        cells in prop::collection::vec(
            prop::collection::vec((any::<char>(), any::<f32>()), 0..4), 132),
        valid in any_case(),
    ) {
        let mut grid: Vec<Vec<CellCandidates>> = Vec::new();
        let mut iter = cells.into_iter();
        for _ in 0..shape.0 {
            grid.push((0..shape.1).map(|_| CellCandidates::new(iter.next().unwrap_or_default())).collect());
        }
        if let Ok(reading) = decode_cells(&grid, &options()) {
            let _ = serde_json::to_string(&reading).unwrap();
        }
        // A valid zone with random extra candidates stays as it is.
        let lines = emit(valid.format, &valid.doc);
        let grid: Vec<Vec<CellCandidates>> = lines
            .iter()
            .map(|line| line.chars().map(|c| CellCandidates::new(vec![(c, 0.9), ('0', 0.05), ('<', 0.05)])).collect())
            .collect();
        let reading = decode_cells(&grid, &options()).unwrap();
        prop_assert!(reading.valid);
        prop_assert_eq!(reading.lines, lines);
    }
}
