//! What a recogniser needs to judge its cells against a reading's layout: where a field lies,
//! which cells a check digit covers, and whether the cells nothing checks were seen clearly
//! enough for the reading to be used without a person looking.

use crate::check_digit::char_value;
use crate::codes::known_as_printed;
use crate::layout::{CellClass, FieldName, Format, Layout};
use crate::reading::{Reading, WarningCode};

/// A cell no check digit covers needs this probability when a reflection washed it out,
/// whatever its class (a document code's D under glare was read as J).
const WASHED_OUT_MIN_P: f32 = 0.98;

/// Each letter of an issuer or nationality code that is no known code needs this probability.
/// Real documents print such codes (`BDR` on old German specimens, `SI` on Slovenian cards),
/// read at 0.999 and more; a `UTO` with its T under a printed background pattern was read
/// `UIO`, the I at 0.955.
const UNKNOWN_CODE_MIN_P: f32 = 0.99;

/// A letter cell no check digit covers (names, codes, the sex) needs this probability: a
/// name letter at 0.8 is one in five another letter, and nothing checks names. Over 3,500
/// synthetic photos with every fault, 3,000 of them with uniformly random names (where the
/// name model cannot help), 0.7 let six wrong readings through as `read` (among them a filler
/// read `K` at 0.83, and an `H` read `N` at 0.94 that the name model weighed down) and 0.9
/// two, neither for a name letter under 0.99; no real photo of the repository's, the shared
/// second set's or their perspective views lost its `read`.
const LETTER_MIN_P: f32 = 0.9;

/// A cell no check digit covers where letters and digits both may stand (optional data) needs
/// this probability.
const ALNUM_MIN_P: f32 = 0.9;

/// Such a cell holding one of a look-alike pair (O/0, I/1, B/8, S/5, Z/2, G/6, Q, D) needs
/// this: nothing else can tell the pair apart.
const LOOK_ALIKE_MIN_P: f32 = 0.98;

/// Each cell of a document number with a filler inside it needs this probability. Misreads
/// that cancel under the number's check digit make such numbers (`ZS0000177` read
/// `Z<OOO0177` on a cut line, every check digit passing), but some issuers print one (German
/// provisional identity cards: `Q<0000000`), so the cells are held to what tells a
/// look-alike pair apart.
const FILLER_INSIDE_NUMBER_MIN_P: f32 = LOOK_ALIKE_MIN_P;

/// The look-alike symbols of [`LOOK_ALIKE_MIN_P`].
const LOOK_ALIKES: &str = "O0QDI1B8S5Z2G6";

/// A cell under a check digit below this probability is doubtful: one doubtful cell is what the
/// digit exists to settle, two or more under one digit can pass it together by coincidence.
const DOUBTFUL_P: f32 = 0.8;

/// The most probability a cell's other symbols of the same value modulo 10 may have for a
/// check digit over the cell to settle it: weighted by 7, 3 or 1 such a symbol changes the sum
/// by a multiple of ten, so the digit cannot tell `<` from K (0 and 20), G from 6 or S from 8.
/// A `<` in optional data read as K passed every check digit.
const BLIND_MAX_P: f32 = 0.05;

/// The MRZ alphabet.
const ALPHABET: &str = "<0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

impl Reading {
    fn layout(&self) -> (Layout, Vec<Vec<char>>) {
        let grid: Vec<Vec<char>> = self.lines.iter().map(|line| line.chars().collect()).collect();
        (Layout::new(self.format, &grid), grid)
    }

    /// The cells of a field in this reading's layout, as (line, column) from 0, in reading
    /// order; empty when the format has no such field. On every format but the old French
    /// identity card the names are one field, which `Surname` gives whole.
    pub fn field_cells(&self, field: FieldName) -> Vec<(usize, usize)> {
        let (layout, _) = self.layout();
        layout.field(field).map_or_else(Vec::new, |spec| spec.cells().collect())
    }

    /// How many rules of the layout the reading breaks that documents keep: a document code
    /// the format does not use, an unknown issuer or nationality code, a sex other than `M`,
    /// `F` or `<`, a date out of the calendar, a name with a character names do not have, a
    /// filler inside the document number, a character outside the alphabet. A recogniser that
    /// read one zone in several ways (line lengths, directions, thresholds) prefers the
    /// reading that breaks fewer: garbage that a check digit fits by chance breaks several.
    pub fn rule_breaks(&self) -> usize {
        use crate::reading::WarningCode as W;
        self.warnings
            .iter()
            .filter(|warning| {
                matches!(
                    warning.code,
                    W::NonconformantDocumentCode
                        | W::UnknownCode
                        | W::NonconformantSex
                        | W::UnusualDate
                        | W::UnusualName
                        | W::FillerInsideNumber
                        | W::InvalidCharacter
                )
            })
            .count()
    }

    /// Per line and column, whether a check digit covers the cell (the digits themselves
    /// included).
    pub fn covered_cells(&self) -> Vec<Vec<bool>> {
        let (layout, grid) = self.layout();
        covered(&layout, &grid)
    }

    /// Whether a cell (line and column from 0) of this reading's layout may hold a symbol: its
    /// class's symbols (digits or the filler where only digits stand, letters or the filler
    /// where only letters do), the sex `M`, `F`, `X` or `<`, and a document code whose first
    /// letter the format is issued with. A recogniser asks it of the other readings it
    /// weighs: one a cell may not hold is no reading of that cell.
    pub fn symbol_allowed(&self) -> impl Fn(usize, usize, char) -> bool + use<> {
        let (layout, _) = self.layout();
        let classes = layout.cell_classes();
        let format = self.format;
        move |line, column, symbol| {
            classes
                .get(line)
                .and_then(|row| row.get(column))
                .is_some_and(|&class| may_hold(format, class, (line, column), symbol))
        }
    }

    /// `probability(line, column, symbol)` (from 0) with each name cell's conditioned on what
    /// a name may hold: a symbol's probability among the letters and the filler, the share of
    /// symbols the recogniser did not offer counted as letters. No document prints a digit in
    /// a name, so a round glyph the classifier takes for `0` (some fonts print `O` and `0`
    /// alike) is an `O` as surely as the classifier prefers the O to every other letter.
    /// Codes keep their probabilities: national variants print digits where letters belong
    /// (a numeric nationality), and reading those as letters would be inventing them.
    pub fn names_as_letters<F>(&self, probability: F) -> impl Fn(usize, usize, char) -> f32 + use<F>
    where
        F: Fn(usize, usize, char) -> f32,
    {
        let mut names = self.field_cells(FieldName::Surname);
        if self.format == Format::FraId {
            names.extend(self.field_cells(FieldName::GivenNames));
        }
        let in_a_name = |symbol: char| symbol.is_ascii_uppercase() || symbol == '<';
        move |line, column, symbol| {
            let p = probability(line, column, symbol);
            if !names.contains(&(line, column)) || !in_a_name(symbol) {
                return p;
            }
            let (mut letters, mut all) = (0.0f32, 0.0f32);
            for other in ALPHABET.chars() {
                let q = probability(line, column, other);
                if q.is_finite() && q > 0.0 {
                    all += q;
                    letters += if in_a_name(other) { q } else { 0.0 };
                }
            }
            // What the recogniser did not offer may all have been letters.
            let total = letters + (1.0 - all).max(0.0);
            if total > 0.0 { (p / total).clamp(0.0, 1.0) } else { p }
        }
    }

    /// Whether a recogniser saw every cell well enough for this reading to be reported as
    /// read, `probability(line, column, symbol)` (from 0) giving how likely it saw `symbol`
    /// there, and `washed` the runs of cells glare washed out, as (line, first, last).
    ///
    /// Every symbol must be one its cell may hold (a passport's document code starts with P).
    /// Under each check digit at most one cell may be doubtful, and no cell may have other
    /// symbols the digit cannot tell from it ([`BLIND_MAX_P`]). A cell no check digit covers
    /// needs, in order: [`WASHED_OUT_MIN_P`] under glare, [`UNKNOWN_CODE_MIN_P`] in an issuer or
    /// nationality code that is no known code, [`LETTER_MIN_P`] where only letters stand,
    /// [`LOOK_ALIKE_MIN_P`] for a look-alike where letters and digits both may, and
    /// [`ALNUM_MIN_P`] otherwise.
    pub fn cells_certain(
        &self,
        probability: impl Fn(usize, usize, char) -> f32,
        washed: &[(usize, usize, usize)],
    ) -> bool {
        let (layout, grid) = self.layout();
        let (n_lines, width) = self.format.shape();
        if grid.len() != n_lines || grid.iter().any(|row| row.len() != width) {
            return false;
        }
        let classes = layout.cell_classes();
        let covered = covered(&layout, &grid);
        for check in &layout.checks {
            let n_doubtful = check
                .covered_cells()
                .chain(check.digit)
                .filter(|&(line, column)| {
                    probability(line, column, grid[line][column]) < DOUBTFUL_P
                })
                .count();
            if n_doubtful > 1 {
                return false;
            }
        }
        let filler_inside_number =
            self.warnings.iter().any(|w| w.code == WarningCode::FillerInsideNumber);
        if filler_inside_number
            && layout.field(FieldName::DocumentNumber).is_some_and(|spec| {
                spec.cells().any(|(line, column)| {
                    probability(line, column, grid[line][column]) < FILLER_INSIDE_NUMBER_MIN_P
                })
            })
        {
            return false;
        }
        let unknown_codes: Vec<(usize, usize)> = [FieldName::Issuer, FieldName::Nationality]
            .into_iter()
            .filter_map(|name| layout.field(name))
            .map(|spec| spec.cells().collect::<Vec<_>>())
            .filter(|cells| {
                let code: String = cells.iter().map(|&(line, column)| grid[line][column]).collect();
                !known_as_printed(&code)
            })
            .flatten()
            .collect();
        let within = |line: usize, column: usize| {
            washed.iter().any(|&(l, first, last)| l == line && (first..=last).contains(&column))
        };
        for (line, row) in grid.iter().enumerate() {
            for (column, &symbol) in row.iter().enumerate() {
                let class = classes[line][column];
                if !may_hold(self.format, class, (line, column), symbol) {
                    return false;
                }
                if covered[line][column] {
                    let blind =
                        blind_alternatives(class, symbol, |other| probability(line, column, other));
                    if blind > BLIND_MAX_P {
                        return false;
                    }
                    continue;
                }
                let threshold = if within(line, column) {
                    WASHED_OUT_MIN_P
                } else if unknown_codes.contains(&(line, column)) {
                    UNKNOWN_CODE_MIN_P
                } else {
                    match class {
                        CellClass::Letter | CellClass::Sex => LETTER_MIN_P,
                        _ if LOOK_ALIKES.contains(symbol) => LOOK_ALIKE_MIN_P,
                        _ => ALNUM_MIN_P,
                    }
                };
                if probability(line, column, symbol) < threshold {
                    return false;
                }
            }
        }
        true
    }
}

/// Per cell of `grid`, whether one of `layout`'s check digits covers it (the digits included).
fn covered(layout: &Layout, grid: &[Vec<char>]) -> Vec<Vec<bool>> {
    let mut covered: Vec<Vec<bool>> = grid.iter().map(|row| vec![false; row.len()]).collect();
    for check in &layout.checks {
        for (line, column) in check.covered_cells().chain(check.digit) {
            if let Some(cell) = covered.get_mut(line).and_then(|row| row.get_mut(column)) {
                *cell = true;
            }
        }
    }
    covered
}

/// Whether a recognised cell may hold `symbol`: its class's symbols, the sex `M`, `F`, `X` or
/// `<`, and a document code whose first letter is one the format is issued with.
fn may_hold(format: Format, class: CellClass, place: (usize, usize), symbol: char) -> bool {
    if place == (0, 0) {
        let first_letters = match format {
            Format::Td3 => "P",
            Format::MrvA | Format::MrvB => "V",
            Format::FraId => "I",
            Format::Td1 | Format::Td2 => "IAC",
        };
        return first_letters.contains(symbol);
    }
    match class {
        CellClass::Digit => symbol.is_ascii_digit() || symbol == '<',
        CellClass::Letter => symbol.is_ascii_uppercase() || symbol == '<',
        CellClass::Sex => matches!(symbol, 'M' | 'F' | 'X' | '<'),
        CellClass::Alnum => char_value(symbol).is_some(),
    }
}

/// The probability `probability` gives the symbols a cell of `class` may hold that a check
/// digit cannot tell from `symbol` (the same value modulo 10).
fn blind_alternatives(class: CellClass, symbol: char, probability: impl Fn(char) -> f32) -> f32 {
    let residue = char_value(symbol).unwrap_or(0) % 10;
    ALPHABET
        .chars()
        .filter(|&other| other != symbol && crate::candidates::class_allows(class, other))
        .filter(|&other| char_value(other).unwrap_or(0) % 10 == residue)
        .map(probability)
        .sum()
}

#[cfg(test)]
mod tests {
    use crate::{CellCandidates, Date, FieldName, ParseOptions, Reading, decode_cells};

    const TD3: [&str; 2] = [
        "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
        "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
    ];

    fn reading(lines: &[&str]) -> Reading {
        let cells: Vec<Vec<CellCandidates>> =
            lines.iter().map(|line| line.chars().map(CellCandidates::certain).collect()).collect();
        let options = ParseOptions::new(Date::new(2010, 1, 1).expect("a date"));
        decode_cells(&cells, &options).expect("an MRZ")
    }

    /// A recogniser that saw the reading's own symbol with `p(line, column)` and nothing else.
    fn saw(read: &Reading, p: impl Fn(usize, usize) -> f32) -> impl Fn(usize, usize, char) -> f32 {
        let grid: Vec<Vec<char>> = read.lines.iter().map(|l| l.chars().collect()).collect();
        move |line, column, symbol| if grid[line][column] == symbol { p(line, column) } else { 0.0 }
    }

    #[test]
    fn fields_and_coverage_follow_the_layout() {
        let read = reading(&TD3);
        assert_eq!(read.field_cells(FieldName::Surname).first(), Some(&(0, 5)));
        assert_eq!(read.field_cells(FieldName::Surname).len(), 39);
        assert_eq!(read.field_cells(FieldName::Nationality), [(1, 10), (1, 11), (1, 12)]);
        assert!(read.field_cells(FieldName::IssuingOffice).is_empty());
        let covered = read.covered_cells();
        // The document number and its digit, not the nationality, not the names.
        assert!(covered[1][0] && covered[1][9] && !covered[1][10] && !covered[0][5]);
        // TD3's composite covers the optional data and its digit, and is itself covered.
        assert!(covered[1][28] && covered[1][42] && covered[1][43]);
    }

    #[test]
    fn certain_cells_make_a_certain_reading_and_doubt_where_nothing_checks_does_not() {
        let read = reading(&TD3);
        assert!(read.cells_certain(saw(&read, |_, _| 1.0), &[]));
        // A name letter at 0.8 (letters need 0.9).
        let name_at_80 = saw(&read, |l, c| if (l, c) == (0, 7) { 0.8 } else { 1.0 });
        assert!(!read.cells_certain(name_at_80, &[]));
        // The same letter at 0.95 is enough, unless glare washed it out (0.98).
        assert!(
            read.cells_certain(saw(&read, |l, c| if (l, c) == (0, 7) { 0.95 } else { 1.0 }), &[])
        );
        let at_95 = saw(&read, |l, c| if (l, c) == (0, 7) { 0.95 } else { 1.0 });
        assert!(!read.cells_certain(at_95, &[(0, 5, 9)]));
        // One doubtful cell under a check digit is settled by it; two are not.
        let one = saw(&read, |l, c| if (l, c) == (1, 2) { 0.5 } else { 1.0 });
        assert!(read.cells_certain(one, &[]));
        let two = saw(&read, |l, c| if l == 1 && (c == 2 || c == 4) { 0.5 } else { 1.0 });
        assert!(!read.cells_certain(two, &[]));
    }

    #[test]
    fn a_name_letter_is_judged_among_letters_and_a_code_is_not() {
        let read = reading(&TD3);
        // The recogniser took the E of the surname (line 1, column 6) for a 3 and the T of
        // the issuer (column 4) for a 7.
        let saw = |line, column, symbol| match ((line, column), symbol) {
            ((0, 5), 'E') | ((0, 3), 'T') => 0.05,
            ((0, 5), '3') => 0.95,
            ((0, 3), '7') => 0.95,
            _ if read.lines[line].chars().nth(column) == Some(symbol) => 1.0,
            _ => 0.0,
        };
        assert!(!read.cells_certain(saw, &[]));
        let names = read.names_as_letters(saw);
        assert!((names(0, 5, 'E') - 1.0).abs() < 1e-6, "no letter but E was offered");
        assert!((names(0, 3, 'T') - 0.05).abs() < 1e-6, "a code is not judged as letters");
        assert_eq!(names(0, 5, '3'), 0.95, "a digit's own probability is kept");
        // The name is certain now; the issuer's T still is not.
        assert!(!read.cells_certain(&names, &[]));
        let issuer_seen = |line, column, symbol| {
            if (line, column) == (0, 3) {
                f32::from(u8::from(symbol == 'T'))
            } else {
                saw(line, column, symbol)
            }
        };
        assert!(read.cells_certain(read.names_as_letters(issuer_seen), &[]));
        // Among letters the classifier's own odds hold: E at 0.05 against F at 0.05 is even.
        let split = |line, column, symbol| match ((line, column), symbol) {
            ((0, 5), 'E' | 'F') => 0.05,
            _ => issuer_seen(line, column, symbol),
        };
        assert!((read.names_as_letters(split)(0, 5, 'E') - 0.5).abs() < 1e-6);
        assert!(!read.cells_certain(read.names_as_letters(split), &[]));
        // What the recogniser left unsaid may have been letters: E at 0.05 and a 3 at 0.5,
        // nothing else offered, leave 0.45 unsaid, and E among letters at 0.05 / 0.5.
        let unsaid = |line, column, symbol| match ((line, column), symbol) {
            ((0, 5), '3') => 0.5,
            _ => saw(line, column, symbol),
        };
        let at_most = read.names_as_letters(unsaid)(0, 5, 'E');
        assert!((at_most - 0.1).abs() < 1e-6, "{at_most}");
    }

    #[test]
    fn a_symbol_the_check_digit_cannot_tell_apart_keeps_a_reading_from_certainty() {
        let read = reading(&TD3);
        // The filler at line 2 column 38 is under the optional data's check digit, which
        // cannot tell it from K (the same value modulo 10).
        let blind = |line, column, symbol| match ((line, column), symbol) {
            ((1, 37), 'K') => 0.2,
            ((1, 37), '<') => 0.8,
            ((1, 37), _) => 0.0,
            _ => 1.0 * f32::from(u8::from(read.lines[line].chars().nth(column) == Some(symbol))),
        };
        assert!(!read.cells_certain(blind, &[]));
        let clear = |line, column, symbol| {
            let p = if (line, column) == (1, 37) { 0.8 } else { 1.0 };
            if read.lines[line].chars().nth(column) == Some(symbol) { p } else { 0.0 }
        };
        assert!(read.cells_certain(clear, &[]));
    }

    #[test]
    fn garbage_a_check_digit_fits_breaks_rules_a_document_keeps() {
        assert_eq!(reading(&TD3).rule_breaks(), 0);
        let card = reading(&[
            "SD<Q<SO00UOHO<3<<<<<<<<<<<<<<<",
            "8102287F1301014CHE<<<<<<<<<<<4",
            "VADIS<<QUO<<<<<<<<<<<<<<<<<<<<",
        ]);
        assert!(card.rule_breaks() >= 2, "{:?}", card.warnings);
    }

    #[test]
    fn unknown_codes_and_wrong_document_codes_need_more() {
        let mut read = reading(&TD3);
        assert!(read.cells_certain(saw(&read, |_, _| 0.985), &[]));
        read.lines[0].replace_range(2..5, "UIO");
        assert!(!read.cells_certain(saw(&read, |_, _| 0.985), &[]));
        assert!(read.cells_certain(saw(&read, |_, _| 0.995), &[]));
        read.lines[0].replace_range(0..1, "X");
        assert!(!read.cells_certain(saw(&read, |_, _| 1.0), &[]));
    }
}
