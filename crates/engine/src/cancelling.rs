//! Misreads that cancel under check digits: a check digit weighs each symbol by 7, 3 or 1,
//! so doubtful cells whose other plausible readings change its sum by amounts adding up to a
//! multiple of 10 satisfy it as well as the reading does, and it proves neither.

/// How likely another reading of a cell must be for the cell to count as doubtful when
/// looking for misreads that cancel under a check digit.
const PLAUSIBLE_ALTERNATIVE: f32 = 0.05;

/// The same for glyphs below [`SMALL_GLYPH_PX`] high: there the classifier is often sure
/// and wrong (a visa's three `0` read `O` at 10 px per line, each at 0.99), so an
/// alternative it gives even this much counts.
const PLAUSIBLE_ALTERNATIVE_SMALL: f32 = 0.002;

/// Glyph height (original pixels) below which [`PLAUSIBLE_ALTERNATIVE_SMALL`] applies.
pub(crate) const SMALL_GLYPH_PX: f32 = 12.0;

/// How likely another reading of a cell seen at `glyph_px` must be to count as plausible.
pub(crate) fn plausible_alternative(glyph_px: f32) -> f32 {
    if glyph_px < SMALL_GLYPH_PX { PLAUSIBLE_ALTERNATIVE_SMALL } else { PLAUSIBLE_ALTERNATIVE }
}

/// Two or three doubtful cells (1-based line and column) whose plausible other readings
/// would satisfy every check digit as well as the published reading does, with the label
/// of a check digit covering them; `None` when the check digits prove every such cell.
/// `options(line, pos)` gives the classifier's candidates of a cell (0-based).
pub(crate) fn cancelling_misreads(
    reading: &mrtd_mrz::Reading,
    glyph_px: f32,
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
    let plausible = plausible_alternative(glyph_px);
    // Each doubtful covered cell with the value changes its plausible other readings make.
    let mut doubtful: Vec<((usize, usize), Vec<u32>)> = Vec::new();
    for (line, text) in reading.lines.iter().enumerate() {
        for (pos, read) in text.chars().enumerate() {
            let place = (line + 1, pos + 1);
            if !verified.iter().any(|check| weight(place, check) != 0) {
                continue;
            }
            let Some(read_value) = mrtd_mrz::char_value(read) else { continue };
            let mut changes: Vec<u32> = options(line, pos)
                .iter()
                .filter(|(symbol, p)| *symbol != read && *p >= plausible)
                .filter_map(|(symbol, _)| mrtd_mrz::char_value(*symbol))
                .map(|value| (value + 40 - read_value % 10) % 10)
                .filter(|change| *change != 0)
                .collect();
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

    /// Every covered cell given every other symbol as an alternative at `p`.
    fn all_alternatives(p: f32) -> impl Fn(usize, usize) -> Vec<(char, f32)> {
        move |_, _| crate::model::ALPHABET.iter().map(|&b| (char::from(b), p)).collect()
    }

    #[test]
    fn small_glyphs_count_alternatives_a_large_one_would_ignore() {
        let options = mrtd_mrz::ParseOptions::new(mrtd_mrz::Date::new(2010, 1, 1).unwrap());
        let reading = mrtd_mrz::parse_text(
            &[
                "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
                "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
            ],
            &options,
        )
        .unwrap();
        // At 1 % each, the alternatives do not make a cell doubtful on large glyphs...
        assert_eq!(cancelling_misreads(&reading, 20.0, all_alternatives(0.01)), None);
        // ...but on glyphs too small for the classifier's confidence to mean much they do,
        // and some pair of them satisfies every check digit as well as the reading.
        let found = cancelling_misreads(&reading, 8.0, all_alternatives(0.01));
        assert!(found.is_some_and(|(_, places)| places.len() >= 2));
        // Below even the small-glyph threshold nothing counts.
        assert_eq!(cancelling_misreads(&reading, 8.0, all_alternatives(0.001)), None);
    }
}
