//! Per-cell candidate characters: from a recogniser's top-k, or from the usual OCR confusions of
//! the cell's class when only text is available (Doc 9303 field classes; see `ICAO` §3.9 notes in
//! the crate README).

use crate::check_digit::{char_value, is_blind_pair};
use crate::layout::CellClass;
use crate::reading::Why;

/// A recogniser's top-k for one cell: characters with probabilities, most likely first.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CellCandidates {
    /// `(character, probability)` pairs. Characters outside the MRZ alphabet are ignored
    /// (lowercase letters are uppercased); the order is re-established by probability.
    pub options: Vec<(char, f32)>,
    /// The recogniser did not see the cell's glyph whole (it runs off the image): the top
    /// option is kept as read, no correction changes it, and a reading with such a cell under
    /// a check digit is not `valid`, since nothing seen can prove what the cell holds.
    pub unseen: bool,
}

impl CellCandidates {
    /// A cell seen whole, with these `(character, probability)` options.
    pub fn new(options: Vec<(char, f32)>) -> CellCandidates {
        CellCandidates { options, unseen: false }
    }

    /// A cell known with certainty.
    pub fn certain(c: char) -> CellCandidates {
        CellCandidates::new(vec![(c, 1.0)])
    }

    /// The probability the recogniser gave `symbol` here; 0 when it did not offer it.
    pub fn probability(&self, symbol: char) -> f32 {
        self.options.iter().find(|o| o.0 == symbol).map_or(0.0, |o| o.1)
    }
}

/// The cost of a usual confusion when reading plain text: each such change counts the same, so
/// two readings that need the same number of changes tie and are reported as ambiguous.
pub(crate) const CONFUSION_COST: f64 = 3.0;

/// The cost of replacing a character that is outside the alphabet (or the class) entirely.
pub(crate) const UNKNOWN_COST: f64 = 3.0;

/// The largest cost a recogniser's probability can translate to.
const MAX_COST: f64 = 20.0;

/// One cell as the solver sees it: `options[0]` is the base reading with cost 0.
#[derive(Debug, Clone)]
pub(crate) struct Cell {
    /// What the input showed (the recogniser's top choice).
    pub(crate) read: char,
    /// The base reading first, then alternatives with their extra cost.
    pub(crate) options: Vec<(char, f64)>,
    /// Why the base differs from `read`, when it does.
    pub(crate) forced: Option<Why>,
    /// The base is allowed in this cell's class; when not, no check digit may count it as
    /// agreeing (a `K` in a date has the value of `0` but is no digit).
    pub(crate) valid_base: bool,
    /// The recogniser did not see the glyph whole ([`CellCandidates::unseen`]).
    pub(crate) unseen: bool,
}

impl Cell {
    pub(crate) fn base(&self) -> char {
        self.options.first().map_or(self.read, |option| option.0)
    }
}

/// The digit a letter is usually misread for, in digit-only cells.
pub(crate) fn digit_for(c: char) -> Option<char> {
    Some(match c {
        'O' | 'Q' | 'D' => '0',
        'I' | 'L' => '1',
        'Z' => '2',
        'S' => '5',
        'G' => '6',
        'B' => '8',
        _ => return None,
    })
}

/// The letter a digit is usually misread for, in letter-only cells.
pub(crate) fn letter_for(c: char) -> Option<char> {
    Some(match c {
        '0' => 'O',
        '1' => 'I',
        '2' => 'Z',
        '5' => 'S',
        '6' => 'G',
        '8' => 'B',
        _ => return None,
    })
}

/// Usual confusions of a character in an alphanumeric cell (both directions of each pair, and
/// the letters a filler is misread as).
fn alnum_confusions(c: char) -> &'static [char] {
    match c {
        '0' => &['O', 'Q', 'D'],
        'O' => &['0', 'Q', 'D'],
        'Q' => &['0', 'O'],
        'D' => &['0', 'O'],
        '1' => &['I', 'L'],
        'I' => &['1'],
        'L' => &['1'],
        '2' => &['Z'],
        'Z' => &['2'],
        '5' => &['S'],
        'S' => &['5', '<'],
        '6' => &['G'],
        'G' => &['6'],
        '8' => &['B'],
        'B' => &['8'],
        'K' | 'C' | 'E' | 'X' => &['<'],
        'H' => &['M'],
        'M' => &['H'],
        _ => &[],
    }
}

pub(crate) fn in_alphabet(c: char) -> bool {
    char_value(c).is_some()
}

pub(crate) fn class_allows(class: CellClass, c: char) -> bool {
    match class {
        CellClass::Digit => c.is_ascii_digit() || c == '<',
        CellClass::Letter => c.is_ascii_uppercase() || c == '<',
        CellClass::Alnum | CellClass::Sex => in_alphabet(c),
    }
}

/// Every character a cell of `class` may hold, as replacement candidates for an unreadable one.
fn class_alphabet(class: CellClass) -> Vec<char> {
    match class {
        CellClass::Digit => ('0'..='9').collect(),
        CellClass::Letter => ('A'..='Z').chain(['<']).collect(),
        CellClass::Alnum => ('0'..='9').chain('A'..='Z').chain(['<']).collect(),
        CellClass::Sex => vec!['M', 'F', '<'],
    }
}

/// Drops duplicates of earlier options and alternatives that no check digit could tell from the
/// base, since choosing them could never be proven.
fn tidy(mut options: Vec<(char, f64)>, valid_base: bool) -> Vec<(char, f64)> {
    let Some(&(base, _)) = options.first() else {
        return options;
    };
    let mut seen = Vec::new();
    options.retain(|(c, _)| {
        let blind = valid_base && *c != base && is_blind_pair(*c, base);
        let keep = !seen.contains(c) && !blind;
        seen.push(*c);
        keep
    });
    options
}

/// A cell read from plain text.
pub(crate) fn text_cell(read: char, class: CellClass) -> Cell {
    let mut forced = None;
    let mut base = read;
    if !class_allows(class, read) {
        let mapped = match class {
            CellClass::Digit => digit_for(read).map(|c| (c, Why::DigitOnlyField)),
            CellClass::Letter => letter_for(read).map(|c| (c, Why::LetterOnlyField)),
            CellClass::Alnum | CellClass::Sex => None,
        };
        if let Some((c, why)) = mapped {
            base = c;
            forced = Some(why);
        }
    }
    let mut options = vec![(base, 0.0)];
    if class_allows(class, base) {
        if class == CellClass::Alnum {
            options.extend(alnum_confusions(base).iter().map(|c| (*c, CONFUSION_COST)));
        } else if class == CellClass::Digit && base == '<' {
            // A filler is legitimate in an unknown birth date or an empty field's check digit,
            // but recognisers also drop digits into fillers: only a check digit can say which.
            options.extend(('0'..='9').map(|c| (c, UNKNOWN_COST)));
        }
    } else if class != CellClass::Sex {
        options.extend(class_alphabet(class).into_iter().map(|c| (c, UNKNOWN_COST)));
    }
    let valid_base = class_allows(class, base);
    Cell { read, options: tidy(options, valid_base), forced, valid_base, unseen: false }
}

/// A typed character kept as it is, whatever its cell's class allows: no alternative, so
/// no correction can change it, and no check digit counts it as a valid character.
pub(crate) fn as_typed(read: char) -> Cell {
    Cell { read, options: vec![(read, 0.0)], forced: None, valid_base: false, unseen: false }
}

/// A cell the recogniser did not see whole: kept as read, like a typed one.
fn unseen(read: char) -> Cell {
    Cell { unseen: true, ..as_typed(read) }
}

/// A cell from a recogniser's candidates.
pub(crate) fn decoded_cell(candidates: &CellCandidates, class: CellClass) -> Cell {
    let mut options: Vec<(char, f32)> = candidates
        .options
        .iter()
        .map(|(c, p)| (c.to_ascii_uppercase(), if p.is_finite() { *p } else { 0.0 }))
        .filter(|(c, _)| in_alphabet(*c))
        .collect();
    options.sort_by(|a, b| b.1.total_cmp(&a.1));
    let Some(&(top, _)) = options.first() else {
        let read = candidates.options.first().map_or('\u{fffd}', |option| option.0);
        return if candidates.unseen { unseen(read) } else { text_cell(read, class) };
    };
    if candidates.unseen {
        return unseen(top);
    }
    if options.len() == 1 {
        // A single candidate carries no ranking: fall back to the usual confusions.
        return text_cell(top, class);
    }
    let Some(&(base, base_p)) = options.iter().find(|(c, _)| class_allows(class, *c)) else {
        return text_cell(top, class);
    };
    let forced = (base != top).then_some(match class {
        CellClass::Letter => Why::LetterOnlyField,
        _ => Why::DigitOnlyField,
    });
    let cost = |p: f32| -> f64 {
        if p <= 0.0 || base_p <= 0.0 {
            return MAX_COST;
        }
        (f64::from(base_p).ln() - f64::from(p).ln()).clamp(0.0, MAX_COST)
    };
    let mut cell_options = vec![(base, 0.0)];
    cell_options.extend(
        options
            .iter()
            .filter(|(c, _)| *c != base && class_allows(class, *c))
            .map(|(c, p)| (*c, cost(*p))),
    );
    Cell { read: top, options: tidy(cell_options, true), forced, valid_base: true, unseen: false }
}

/// Makes a letter the base of a cell that must hold one (the first cell of the document code),
/// when the recogniser ranked a filler or digit above it.
pub(crate) fn require_letter(cell: &mut Cell) {
    if cell.base().is_ascii_uppercase() {
        return;
    }
    let Some(&(letter, letter_cost)) = cell.options.iter().find(|(c, _)| c.is_ascii_uppercase())
    else {
        return;
    };
    let mut options = vec![(letter, 0.0)];
    options.extend(
        cell.options
            .iter()
            .filter(|(c, _)| *c != letter)
            .map(|(c, cost)| (*c, (cost - letter_cost).max(0.0))),
    );
    cell.options = options;
    cell.forced = Some(Why::LetterOnlyField);
    cell.valid_base = true;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digit_cells_map_letters() {
        let cell = text_cell('O', CellClass::Digit);
        assert_eq!((cell.base(), cell.forced), ('0', Some(Why::DigitOnlyField)));
        let cell = text_cell('7', CellClass::Digit);
        assert_eq!((cell.base(), cell.forced, cell.options.len()), ('7', None, 1));
        let cell = text_cell('K', CellClass::Digit);
        assert_eq!((cell.base(), cell.options.len()), ('K', 11));
    }

    #[test]
    fn letter_cells_map_digits() {
        let cell = text_cell('0', CellClass::Letter);
        assert_eq!((cell.base(), cell.forced), ('O', Some(Why::LetterOnlyField)));
    }

    #[test]
    fn alnum_cells_keep_the_read_and_offer_confusions() {
        let cell = text_cell('0', CellClass::Alnum);
        assert_eq!(cell.base(), '0');
        assert_eq!(cell.forced, None);
        let alternatives: Vec<char> = cell.options.iter().skip(1).map(|o| o.0).collect();
        assert_eq!(alternatives, vec!['O', 'Q', 'D']);
        // `1` and `L` are indistinguishable to check digits, so `L` is never offered for `1`.
        let cell = text_cell('1', CellClass::Alnum);
        assert_eq!(cell.options.iter().map(|o| o.0).collect::<Vec<_>>(), vec!['1', 'I']);
    }

    #[test]
    fn recogniser_candidates_are_ranked_and_class_filtered() {
        let candidates = CellCandidates::new(vec![('O', 0.6), ('0', 0.3), ('Q', 0.1)]);
        let cell = decoded_cell(&candidates, CellClass::Digit);
        assert_eq!((cell.read, cell.base(), cell.forced), ('O', '0', Some(Why::DigitOnlyField)));
        assert_eq!(cell.options.len(), 1);
        let cell = decoded_cell(&candidates, CellClass::Alnum);
        assert_eq!(cell.base(), 'O');
        assert!((cell.options[1].1 - (0.6f64.ln() - 0.3f64.ln())).abs() < 1e-6);
        let unordered = CellCandidates::new(vec![('a', 0.1), ('B', 0.9)]);
        assert_eq!(decoded_cell(&unordered, CellClass::Alnum).base(), 'B');
        let empty = CellCandidates::default();
        assert_eq!(decoded_cell(&empty, CellClass::Digit).options.len(), 11);
    }

    #[test]
    fn an_unseen_cell_is_kept_as_read() {
        // A glyph cut by the image's edge read `O` in a digit cell: not turned into `0`, no
        // alternative offered, and no check digit may count it.
        let unseen =
            CellCandidates { unseen: true, ..CellCandidates::new(vec![('O', 0.6), ('0', 0.4)]) };
        let cell = decoded_cell(&unseen, CellClass::Digit);
        assert_eq!((cell.read, cell.base(), cell.forced, cell.unseen), ('O', 'O', None, true));
        assert_eq!(cell.options.len(), 1);
    }
}
