//! What the check digits prove, cell by cell.

use super::*;
use crate::{Date, parse_text};

/// How likely an alternative must be to count on glyphs about 20 px high, and on glyphs too
/// small for the classifier's confidence to mean much (the engine's calibration).
const LARGE: f32 = 0.05;
const SMALL: f32 = 0.002;

const LINES: [&str; 2] = [
    "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
    "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
];

/// The ICAO passport specimen, as typed.
fn specimen() -> Reading {
    let options = ParseOptions::new(Date::new(2010, 1, 1).unwrap());
    parse_text(&LINES, &options).unwrap()
}

fn at(reading: &Reading, line: usize, pos: usize) -> char {
    reading.lines[line].chars().nth(pos).unwrap()
}

/// The cancelling cells found, as (check, cells).
fn cancelling(
    reading: &Reading,
    plausible: f32,
    options: impl Fn(usize, usize) -> Vec<(char, f32)>,
) -> Option<(&'static str, Vec<(usize, usize)>)> {
    cancelling_misreads(reading, |_, _| plausible, options).map(|found| (found.check, found.cells))
}

/// Every cell read as in `reading`, with every other symbol as an alternative at `p`.
fn all_alternatives(reading: &Reading, p: f32) -> impl Fn(usize, usize) -> Vec<(char, f32)> + '_ {
    move |line, pos| {
        let read = at(reading, line, pos);
        let mut options = vec![(read, 1.0 - 36.0 * p)];
        options.extend(SYMBOLS.chars().filter(|&symbol| symbol != read).map(|symbol| (symbol, p)));
        options
    }
}

#[test]
fn one_cell_whose_other_reading_has_the_same_value_is_not_proved() {
    let reading = specimen();
    // The optional data's first filler (line 2, column 38) read `<` at 0.9 and `K` at 0.1:
    // both are worth 0 mod 10, so every check digit fits either.
    let filler_or_k = |line: usize, pos: usize| match (line, pos) {
        (1, 37) => vec![('<', 0.9), ('K', 0.1)],
        _ => vec![(at(&reading, line, pos), 1.0)],
    };
    assert_eq!(cancelling(&reading, LARGE, filler_or_k), Some(("optional data", vec![(2, 38)])));
    // A `0` in the birth date read with a `U` at 0.1: a date holds no letter, so the check
    // digit settles the cell.
    let zero_or_u = |line: usize, pos: usize| match (line, pos) {
        (1, 14) => vec![('0', 0.9), ('U', 0.1)],
        _ => vec![(at(&reading, line, pos), 1.0)],
    };
    assert_eq!(cancelling(&reading, LARGE, zero_or_u), None);
}

#[test]
fn a_corrected_cell_is_judged_against_the_symbol_the_correction_chose() {
    let reading = specimen();
    // The document number's `9` (line 2, column 3) seen as `Y` at 0.95, the `9` offered at
    // 0.04 and a `J` (worth 9 as well) at 0.002: the check digits corrected it to the `9`,
    // and prove its value, not which of the two it is.
    let corrected = |line: usize, pos: usize| match (line, pos) {
        (1, 2) => vec![('Y', 0.95), ('9', 0.04), ('J', 0.002)],
        _ => vec![(at(&reading, line, pos), 1.0)],
    };
    assert_eq!(cancelling(&reading, SMALL, corrected), Some(("document number", vec![(2, 3)])));
    // The same odds on a cell read as the classifier saw it leave the `J` implausible.
    let as_seen = |line: usize, pos: usize| match (line, pos) {
        (1, 2) => vec![('9', 0.95), ('Y', 0.04), ('J', 0.001)],
        _ => vec![(at(&reading, line, pos), 1.0)],
    };
    assert_eq!(cancelling(&reading, SMALL, as_seen), None);
}

#[test]
fn small_glyphs_count_alternatives_a_large_one_would_ignore() {
    let reading = specimen();
    // At 1 % each, the alternatives do not make a cell doubtful on large glyphs...
    assert_eq!(cancelling(&reading, LARGE, all_alternatives(&reading, 0.01)), None);
    // ...but on glyphs too small for the classifier's confidence to mean much they do, and
    // some cell's, alone or with others, satisfies every check digit as well as the reading.
    assert!(cancelling(&reading, SMALL, all_alternatives(&reading, 0.01)).is_some());
    // Below even the small-glyph threshold nothing counts.
    assert_eq!(cancelling(&reading, SMALL, all_alternatives(&reading, 0.001)), None);
}

#[test]
fn a_cell_the_classifier_is_lost_on_may_hold_anything_it_may_hold() {
    let reading = specimen();
    // The birth date's first digit (line 2, column 14) offered as 7, Z, 1 and T at 0.3 or
    // less each, the true `7` among them and the rest sure: in a date only the 7 fits the
    // check digit, which settles the cell.
    let lost_in_date = |line: usize, pos: usize| match (line, pos) {
        (1, 13) => vec![('7', 0.3), ('Z', 0.28), ('1', 0.22), ('T', 0.2)],
        _ => vec![(at(&reading, line, pos), 1.0)],
    };
    assert_eq!(cancelling(&reading, LARGE, lost_in_date), None);
    // The document number's `9` (column 3) offered as O, D, V and R, never as 9: a number
    // may hold J or T there as well, each worth 9 mod 10, so the check digits cannot tell
    // them apart and prove nothing.
    let lost_in_number = |line: usize, pos: usize| match (line, pos) {
        (1, 2) => vec![('O', 0.31), ('D', 0.26), ('V', 0.24), ('R', 0.08)],
        _ => vec![(at(&reading, line, pos), 1.0)],
    };
    assert_eq!(
        cancelling(&reading, LARGE, lost_in_number),
        Some(("document number", vec![(2, 3)]))
    );
    // The date's lost digit beside its next one, read `4` with a `9` at 0.1: a `2` in the
    // lost cell would make up for the 9 under the birth date's check digit and the composite
    // alike.
    let lost_beside_doubtful = |line: usize, pos: usize| match (line, pos) {
        (1, 13) => vec![('7', 0.3), ('Z', 0.28), ('1', 0.22), ('T', 0.2)],
        (1, 14) => vec![('4', 0.9), ('9', 0.1)],
        _ => vec![(at(&reading, line, pos), 1.0)],
    };
    assert_eq!(
        cancelling(&reading, LARGE, lost_beside_doubtful),
        Some(("birth date", vec![(2, 14), (2, 15)]))
    );
}

/// Candidates for the specimen ([`crate::test_support::candidates`]).
fn candidates(
    p: impl Fn(usize, usize) -> f32,
    misread: &[(usize, usize)],
) -> Vec<Vec<CellCandidates>> {
    crate::test_support::candidates(&LINES, p, misread)
}

/// The corrections left unproven when alternatives count from `plausible`.
fn unproven_at(cells: &[Vec<CellCandidates>], plausible: f32) -> Vec<(usize, usize)> {
    let options = ParseOptions::default();
    let corrected = decode_cells(cells, &options).expect("a TD3");
    assert!(
        corrected.corrections.iter().any(|c| c.why == Why::CheckDigit),
        "the check digits correct the misread cell: {:?}",
        corrected.corrections
    );
    let decoded = decode_proven(cells, cells, plausible, &options).expect("a TD3");
    // An unproven correction is not applied: the reading keeps the cells as seen.
    assert_eq!(decoded.unproven.is_empty(), decoded.reading == corrected);
    decoded.unproven
}

fn unproven(cells: &[Vec<CellCandidates>]) -> Vec<(usize, usize)> {
    unproven_at(cells, LARGE)
}

#[test]
fn a_correction_among_well_read_cells_is_proven() {
    // One misread digit of the document number; everything else read at 0.99.
    let cells = candidates(|_, _| 0.99, &[(1, 3)]);
    assert_eq!(unproven(&cells), Vec::<(usize, usize)>::new());
}

#[test]
fn a_correction_among_doubtful_cells_is_not_proven() {
    // The same misread digit, but the document number's other cells read at 0.7: the
    // agreement the search finds is worth less than the doubt it has to overcome.
    let cells =
        candidates(|line, column| if line == 1 && column < 10 { 0.7 } else { 0.99 }, &[(1, 3)]);
    assert_eq!(unproven(&cells), vec![(2, 4)]);
    let decoded = decode_proven(&cells, &cells, LARGE, &ParseOptions::default()).unwrap();
    assert!(!decoded.reading.valid, "the check digit fails on the cells as seen");
    assert!(decoded.reading.corrections.iter().all(|c| c.why != Why::CheckDigit));
}

#[test]
fn a_correction_beside_another_doubtful_cell_under_its_check_digits_is_not_proven() {
    // The document number's 8th cell misread; its 2nd read 0.9 against 0.08 for another
    // symbol: the check digit that corrects the one cannot also vouch for the other.
    let mut cells = candidates(|_, _| 0.99, &[(1, 7)]);
    cells[1][1] = CellCandidates::new(vec![('8', 0.9), ('B', 0.08)]);
    assert_eq!(unproven(&cells), vec![(2, 8)]);
    // The same doubt in the expiry date, which its own check digit vouches for, is no rival.
    let mut cells = candidates(|_, _| 0.99, &[(1, 7)]);
    cells[1][22] = CellCandidates::new(vec![('4', 0.9), ('9', 0.08)]);
    assert_eq!(unproven(&cells), Vec::<(usize, usize)>::new());
}

#[test]
fn a_letter_offered_where_only_digits_stand_is_no_rival() {
    // The birth date's 2nd digit read `3` before `4`; its 4th read `8` with a `B` at 0.08
    // beside it, which a date cannot hold: the date's check digit still proves the
    // correction. A `3` offered as much is a rival.
    let mut cells = candidates(|_, _| 0.99, &[]);
    cells[1][14] = CellCandidates::new(vec![('3', 0.85), ('4', 0.15)]);
    cells[1][16] = CellCandidates::new(vec![('8', 0.9), ('B', 0.08)]);
    assert_eq!(unproven(&cells), Vec::<(usize, usize)>::new());
    cells[1][16] = CellCandidates::new(vec![('8', 0.9), ('3', 0.08)]);
    assert_eq!(unproven(&cells), vec![(2, 15)]);
}

#[test]
fn small_glyphs_make_rivals_of_alternatives_a_large_one_would_ignore() {
    // Every other cell offers a second symbol at 0.01: nothing at 20 px, plausible at 8 px.
    let cells = candidates(|_, _| 0.99, &[(1, 3)]);
    assert_eq!(unproven_at(&cells, LARGE), Vec::<(usize, usize)>::new());
    assert_eq!(unproven_at(&cells, SMALL), vec![(2, 4)]);
}

/// What a recogniser saw of the specimen: every cell as typed, alternatives counting from
/// `LARGE`, `offered` giving a cell's candidates where it differs.
fn seen_specimen(
    offered: impl Fn(usize, usize) -> Option<Vec<(char, f32)>>,
) -> (Vec<Vec<CellCandidates>>, Vec<Vec<f32>>) {
    let cells = LINES
        .iter()
        .enumerate()
        .map(|(line, text)| {
            text.chars()
                .enumerate()
                .map(|(pos, c)| CellCandidates::new(offered(line, pos).unwrap_or(vec![(c, 1.0)])))
                .collect()
        })
        .collect();
    (cells, LINES.iter().map(|text| vec![LARGE; text.len()]).collect())
}

#[test]
fn validity_is_withdrawn_for_cancelling_misreads_a_cut_zone_and_a_hidden_line_end() {
    let (offered, plausible) = seen_specimen(|_, _| None);
    let seen = Seen { offered: &offered, plausible: &plausible, cut: false, end_hidden: false };
    let mut reading = specimen();
    let proof = reading.prove(&seen);
    assert_eq!(proof, Proof { cancelling: None, cells_proven: true });
    assert!(reading.valid);
    // The same cells, the photo cutting the zone or glare hiding a line's end: the check
    // digits prove the cells read, not the reading.
    for (cut, end_hidden) in [(true, false), (false, true)] {
        let mut reading = specimen();
        let proof = reading.prove(&Seen { cut, end_hidden, ..seen });
        assert!(proof.cells_proven && !reading.valid, "cut {cut}, end hidden {end_hidden}");
    }
    // A filler offered as `K` (both worth 0) cancels under the optional data's check digit.
    let (offered, plausible) =
        seen_specimen(|line, pos| ((line, pos) == (1, 37)).then(|| vec![('<', 0.9), ('K', 0.1)]));
    let mut reading = specimen();
    let proof = reading.prove(&Seen { offered: &offered, plausible: &plausible, ..seen });
    let expected = Cancelling { check: "optional data", cells: vec![(2, 38)] };
    assert_eq!(proof, Proof { cancelling: Some(expected), cells_proven: false });
    assert!(!reading.valid);
}

#[test]
fn validity_the_check_digits_refuse_is_not_given_back() {
    let options =
        ParseOptions { correct: false, ..ParseOptions::new(Date::new(2010, 1, 1).unwrap()) };
    let mut reading =
        parse_text(&[LINES[0], "L898902C37UTO7408122F1204159ZE184226B<<<<<10"], &options).unwrap();
    assert!(!reading.valid);
    let (offered, plausible) = seen_specimen(|_, _| None);
    let seen = Seen { offered: &offered, plausible: &plausible, cut: false, end_hidden: false };
    assert!(!reading.prove(&seen).cells_proven);
    assert!(!reading.valid);
}

#[test]
fn a_choice_is_noted_where_the_reading_holds_it_and_no_correction_is() {
    let mut reading = specimen();
    let choice = |line, column, from, to| Choice { line, column, from, to, why: Why::NameLetters };
    reading.note_choices([
        // ERIKSSON's K, which the classifier ranked X.
        choice(0, 8, 'X', 'K'),
        // A choice the reading does not hold (column 10 is an S) is not noted.
        choice(0, 9, 'X', 'K'),
    ]);
    reading.note_choices([Choice { why: Why::DocumentGlyphs, ..choice(0, 8, 'H', 'K') }]);
    assert_eq!(
        reading.corrections,
        [Correction {
            line: 1,
            column: 9,
            from: 'X',
            to: 'K',
            why: Why::NameLetters,
            proof: vec![]
        }]
    );
}
