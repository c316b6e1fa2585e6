//! Misreads that cancel under check digits: a check digit weighs each symbol by 7, 3 or 1,
//! so doubtful cells whose other plausible readings change its sum by amounts adding up to a
//! multiple of 10 satisfy it as well as the reading does, and it proves neither. One cell
//! does so alone when a plausible other reading has the same value modulo 10 (`U` and `0`,
//! `K` and `<`, `L` and `1`). A cell the classifier is lost on (its likeliest symbol under
//! even odds) may hold anything it may hold: alone, any symbol of its value modulo 10; with
//! another doubtful cell under the same check digit, whatever makes up for that one.

/// How likely another reading of a cell must be for the cell to count as doubtful when
/// looking for misreads that cancel under a check digit.
const PLAUSIBLE_ALTERNATIVE: f32 = 0.05;

/// The same for glyphs below [`OVERCONFIDENT_BELOW_PX`] high: there the classifier is often sure
/// and wrong (a visa's three `0` read `O` at 10 px per line, each at 0.99), so an
/// alternative it gives even this much counts.
const PLAUSIBLE_ALTERNATIVE_SMALL: f32 = 0.002;

/// Below this probability for its likeliest symbol, the classifier is lost on a cell: any
/// symbol the cell may hold is a plausible other reading of it, offered or not.
const LOST: f32 = 0.5;

/// Glyph height (original pixels) below which [`PLAUSIBLE_ALTERNATIVE_SMALL`] applies.
pub(crate) const OVERCONFIDENT_BELOW_PX: f32 = 12.0;

/// How likely another reading of a cell seen at `glyph_px` must be to count as plausible.
/// `marked` says the reading bears the mark cancelling misreads leave, a filler inside the
/// document number (`L<X8902C3` for `L898902C3`, two cells at 0.99 each, every check digit
/// passing), or that a line drawn over the page crossed the cell's glyph: there an
/// alternative counts as it does on small glyphs.
pub(crate) fn plausible_alternative(glyph_px: f32, marked: bool) -> f32 {
    if marked || glyph_px < OVERCONFIDENT_BELOW_PX {
        PLAUSIBLE_ALTERNATIVE_SMALL
    } else {
        PLAUSIBLE_ALTERNATIVE
    }
}

/// One, two or three doubtful cells (1-based line and column) whose plausible other readings
/// would satisfy every check digit as well as the published reading does, with the label
/// of a check digit covering them; `None` when the check digits prove every such cell.
/// `options(line, pos)` gives the classifier's candidates of a cell (0-based), and another
/// reading counts from probability `plausible(line, pos)` ([`plausible_alternative`]).
pub(crate) fn cancelling_misreads(
    reading: &mrtd_mrz::Reading,
    plausible: impl Fn(usize, usize) -> f32,
    options: impl Fn(usize, usize) -> Vec<(char, f32)>,
) -> Option<(&'static str, Vec<(usize, usize)>)> {
    let verified: Vec<&mrtd_mrz::Check> =
        reading.checks.iter().filter(|c| c.status == mrtd_mrz::CheckStatus::Verified).collect();
    // The weight of a cell under each verified check digit (0 where it does not count);
    // the digit itself counts with weight -1, that is 9 mod 10.
    let weight = |place: (usize, usize), check: &mrtd_mrz::Check| -> u32 {
        if check.line.zip(check.column) == Some(place) {
            return 9;
        }
        check
            .covers
            .iter()
            .flat_map(|range| (range.from..=range.to).map(move |column| (range.line, column)))
            .position(|covered| covered == place)
            .map_or(0, mrtd_mrz::check_digit_weight)
    };
    let allowed = reading.symbol_allowed();
    // Each doubtful covered cell with the value changes its plausible other readings make.
    let mut doubtful: Vec<((usize, usize), Vec<u32>)> = Vec::new();
    for (line, text) in reading.lines.iter().enumerate() {
        for (pos, read) in text.chars().enumerate() {
            let place = (line + 1, pos + 1);
            if !verified.iter().any(|check| weight(place, check) != 0) {
                continue;
            }
            let Some(read_value) = mrtd_mrz::char_value(read) else { continue };
            let offered = options(line, pos);
            // A cell the classifier is lost on may hold any symbol it may hold, offered or
            // not (a `9` blurred past recognition, offered as O, D, V and R).
            let top = offered.iter().map(|(_, p)| *p).fold(0.0, f32::max);
            let lost = top < LOST;
            // A cell a correction changed holds its symbol on the check digits' word, and they
            // prove its value modulo 10 only: among the symbols of that value the classifier's
            // odds alone chose (an `E` under a pen stroke corrected to `F` at 0.05, a `5` at
            // 0.0007 worth the same), so another counts as plausible against the chosen one.
            let read_p = offered.iter().find(|(symbol, _)| *symbol == read).map_or(0.0, |o| o.1);
            let threshold = plausible(line, pos) * if read_p < top { read_p } else { 1.0 };
            let others: Vec<char> = if lost {
                crate::model::ALPHABET.iter().map(|&symbol| char::from(symbol)).collect()
            } else {
                offered.iter().filter(|(_, p)| *p >= threshold).map(|(symbol, _)| *symbol).collect()
            };
            let mut changes: Vec<u32> = others
                .into_iter()
                .filter(|symbol| *symbol != read && allowed(line, pos, *symbol))
                .filter_map(mrtd_mrz::char_value)
                .map(|value| (value + 40 - read_value % 10) % 10)
                .collect();
            // A reading of the same value modulo 10 satisfies every check digit alone.
            if changes.contains(&0) {
                let covering = verified.iter().find(|check| weight(place, check) != 0);
                return covering.map(|check| (check.name.label(), vec![place]));
            }
            changes.sort_unstable();
            changes.dedup();
            if !changes.is_empty() {
                doubtful.push((place, changes));
            }
        }
    }
    // Two or three cells at once: misreads of `0` as `O` cancel in pairs under weights 7
    // and 3, and in threes under 3, 1 and 1.
    let fits = |cells: &[((usize, usize), u32)]| {
        verified.iter().all(|check| {
            cells.iter().map(|(place, change)| weight(*place, check) * change).sum::<u32>() % 10
                == 0
        })
    };
    let label = |cells: &[((usize, usize), u32)]| {
        verified
            .iter()
            .find(|check| cells.iter().filter(|(place, _)| weight(*place, check) != 0).count() > 1)
            .map(|check| check.name.label())
    };
    let n = doubtful.len();
    for i in 0..n {
        for j in i + 1..n {
            for a in &doubtful[i].1 {
                for b in &doubtful[j].1 {
                    let pair = [(doubtful[i].0, *a), (doubtful[j].0, *b)];
                    if fits(&pair) {
                        return label(&pair).map(|name| (name, vec![pair[0].0, pair[1].0]));
                    }
                    for (third, changes) in &doubtful[j + 1..] {
                        for c in changes {
                            let triple = [pair[0], pair[1], (*third, *c)];
                            if fits(&triple) {
                                let places = triple.iter().map(|(place, _)| *place).collect();
                                return label(&triple).map(|name| (name, places));
                            }
                        }
                    }
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What counts as plausible on glyphs 20 px and 8 px high.
    const LARGE: f32 = PLAUSIBLE_ALTERNATIVE;
    const SMALL: f32 = PLAUSIBLE_ALTERNATIVE_SMALL;

    #[test]
    fn a_filler_inside_the_number_counts_alternatives_as_on_small_glyphs() {
        assert_eq!(plausible_alternative(20.0, false), LARGE);
        assert_eq!(plausible_alternative(8.0, false), SMALL);
        assert_eq!(plausible_alternative(20.0, true), SMALL);
    }

    /// The ICAO passport specimen, as typed.
    fn specimen() -> mrtd_mrz::Reading {
        let options = mrtd_mrz::ParseOptions::new(mrtd_mrz::Date::new(2010, 1, 1).unwrap());
        let lines = [
            "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
            "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
        ];
        mrtd_mrz::parse_text(&lines, &options).unwrap()
    }

    /// Every cell read as in `reading`, with every other symbol as an alternative at `p`.
    fn all_alternatives(
        reading: &mrtd_mrz::Reading,
        p: f32,
    ) -> impl Fn(usize, usize) -> Vec<(char, f32)> + '_ {
        move |line, pos| {
            let read = reading.lines[line].chars().nth(pos).unwrap();
            let others = crate::model::ALPHABET.iter().map(|&b| char::from(b));
            let mut options = vec![(read, 1.0 - 36.0 * p)];
            options.extend(others.filter(|&symbol| symbol != read).map(|symbol| (symbol, p)));
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
            _ => vec![(reading.lines[line].chars().nth(pos).unwrap(), 1.0)],
        };
        assert_eq!(
            cancelling_misreads(&reading, |_, _| LARGE, filler_or_k),
            Some(("optional data", vec![(2, 38)]))
        );
        // A `0` in the birth date read with a `U` at 0.1: a date holds no letter, so the check
        // digit settles the cell.
        let zero_or_u = |line: usize, pos: usize| match (line, pos) {
            (1, 14) => vec![('0', 0.9), ('U', 0.1)],
            _ => vec![(reading.lines[line].chars().nth(pos).unwrap(), 1.0)],
        };
        assert_eq!(cancelling_misreads(&reading, |_, _| LARGE, zero_or_u), None);
    }

    #[test]
    fn a_corrected_cell_is_judged_against_the_symbol_the_correction_chose() {
        let reading = specimen();
        let as_read = |line: usize, pos: usize| reading.lines[line].chars().nth(pos).unwrap();
        // The document number's `9` (line 2, column 3) seen as `Y` at 0.95, the `9` offered
        // at 0.04 and a `J` (worth 9 as well) at 0.002: the check digits corrected it to the
        // `9`, and prove its value, not which of the two it is.
        let corrected = |line: usize, pos: usize| match (line, pos) {
            (1, 2) => vec![('Y', 0.95), ('9', 0.04), ('J', 0.002)],
            _ => vec![(as_read(line, pos), 1.0)],
        };
        assert_eq!(
            cancelling_misreads(&reading, |_, _| SMALL, corrected),
            Some(("document number", vec![(2, 3)]))
        );
        // The same odds on a cell read as the classifier saw it leave the `J` implausible.
        let as_seen = |line: usize, pos: usize| match (line, pos) {
            (1, 2) => vec![('9', 0.95), ('Y', 0.04), ('J', 0.001)],
            _ => vec![(as_read(line, pos), 1.0)],
        };
        assert_eq!(cancelling_misreads(&reading, |_, _| SMALL, as_seen), None);
    }

    #[test]
    fn small_glyphs_count_alternatives_a_large_one_would_ignore() {
        let reading = specimen();
        // At 1 % each, the alternatives do not make a cell doubtful on large glyphs...
        assert_eq!(
            cancelling_misreads(&reading, |_, _| LARGE, all_alternatives(&reading, 0.01)),
            None
        );
        // ...but on glyphs too small for the classifier's confidence to mean much they do,
        // and some cell's, alone or with others, satisfies every check digit as well as the
        // reading.
        assert!(
            cancelling_misreads(&reading, |_, _| SMALL, all_alternatives(&reading, 0.01)).is_some()
        );
        // Below even the small-glyph threshold nothing counts.
        assert_eq!(
            cancelling_misreads(&reading, |_, _| SMALL, all_alternatives(&reading, 0.001)),
            None
        );
    }

    #[test]
    fn a_cell_the_classifier_is_lost_on_may_hold_anything_it_may_hold() {
        let reading = specimen();
        let as_read = |line: usize, pos: usize| reading.lines[line].chars().nth(pos).unwrap();
        // The birth date's first digit (line 2, column 14) offered as 7, Z, 1 and T at 0.3 or
        // less each, the true `7` among them and the rest sure: in a date only the 7 fits
        // the check digit, which settles the cell.
        let lost_in_date = |line: usize, pos: usize| match (line, pos) {
            (1, 13) => vec![('7', 0.3), ('Z', 0.28), ('1', 0.22), ('T', 0.2)],
            _ => vec![(as_read(line, pos), 1.0)],
        };
        assert_eq!(cancelling_misreads(&reading, |_, _| LARGE, lost_in_date), None);
        // The document number's `9` (column 3) offered as O, D, V and R, never as 9: a
        // number may hold J or T there as well, each worth 9 mod 10, so the check digits
        // cannot tell them apart and prove nothing.
        let lost_in_number = |line: usize, pos: usize| match (line, pos) {
            (1, 2) => vec![('O', 0.31), ('D', 0.26), ('V', 0.24), ('R', 0.08)],
            _ => vec![(as_read(line, pos), 1.0)],
        };
        assert_eq!(
            cancelling_misreads(&reading, |_, _| LARGE, lost_in_number),
            Some(("document number", vec![(2, 3)]))
        );
        // The date's lost digit beside its next one, read `4` with a `9` at 0.1: a `2` in the
        // lost cell would make up for the 9 under the birth date's check digit and the
        // composite alike.
        let lost_beside_doubtful = |line: usize, pos: usize| match (line, pos) {
            (1, 13) => vec![('7', 0.3), ('Z', 0.28), ('1', 0.22), ('T', 0.2)],
            (1, 14) => vec![('4', 0.9), ('9', 0.1)],
            _ => vec![(as_read(line, pos), 1.0)],
        };
        assert_eq!(
            cancelling_misreads(&reading, |_, _| LARGE, lost_beside_doubtful),
            Some(("birth date", vec![(2, 14), (2, 15)]))
        );
    }
}
