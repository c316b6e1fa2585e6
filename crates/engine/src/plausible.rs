//! How far the classifier's odds are to be believed: from what probability another symbol it
//! offers for a cell is a plausible reading of it. The MRZ core weighs such readings against
//! the check digits (`mrtd_mrz::Seen`, `mrtd_mrz::decode_proven`); how much the classifier's
//! confidence means at a glyph size is the recogniser's to say.

/// How likely another reading of a cell must be for the cell to count as doubtful.
const PLAUSIBLE_ALTERNATIVE: f32 = 0.05;

/// The same for glyphs below [`OVERCONFIDENT_BELOW_PX`] high: there the classifier is often sure
/// and wrong (a visa's three `0` read `O` at 10 px per line, each at 0.99), so an
/// alternative it gives even this much counts.
const PLAUSIBLE_ALTERNATIVE_SMALL: f32 = 0.002;

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
}
