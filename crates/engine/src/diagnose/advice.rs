//! The advice a verdict gives: what the photo did, what the check digits say and which cells
//! the reader doubts, each in words a person can act on.

use super::*;

/// What the verdict found, for the advice.
pub(super) struct Findings<'a> {
    pub(super) attempt: &'a Attempt,
    /// The published reading (none where it is withheld).
    pub(super) published: Option<&'a mrtd_mrz::Reading>,
    pub(super) cells: &'a [Vec<mrtd_mrz::CellCandidates>],
    pub(super) marked: &'a [Vec<bool>],
    pub(super) glare: &'a [(usize, usize, usize)],
    /// The photo's edges the zone runs off.
    pub(super) cut_off: &'a [&'static str],
    /// Whether no reading is given (a cut zone fit to the wrong format).
    pub(super) withheld: bool,
    /// A check digit that misreads cancelling under it leave unproven, and the cells.
    pub(super) cancelling: Option<&'a mrtd_mrz::Cancelling>,
    /// Whether the reading was valid before the photo's cut and glare were weighed.
    pub(super) published_valid: bool,
    pub(super) certain: bool,
    pub(super) unusual_name: bool,
    pub(super) filler_inside_number: bool,
    pub(super) glyph_px: f32,
    pub(super) mean_confidence: f32,
}

impl Findings<'_> {
    /// The published reading's verdicts when there is one; the ranking reading's otherwise.
    fn judged(&self) -> &mrtd_mrz::Reading {
        self.published.unwrap_or(&self.attempt.reading)
    }
}

/// What the photo did to the zone: cut, small, covered, marked, washed out.
pub(super) fn photo_advice(f: &Findings, diagnostics: &mut Vec<Diagnostic>) {
    if !f.cut_off.is_empty() {
        let withheld_note = if f.withheld {
            " The part in the photo does not show how long its lines are, so no reading is given."
        } else {
            ""
        };
        diagnostics.push(diagnostic(
            DiagnosticCode::MrzCutAtEdge,
            format!(
                "The MRZ runs off the {} edge of the photo, so some of its characters were not seen; take the photo again with the whole zone in the frame.{withheld_note}",
                f.cut_off.join(" and ")
            ),
        ));
    }
    if f.glyph_px < TOO_SMALL_PX {
        diagnostics.push(diagnostic(
            DiagnosticCode::TooSmall,
            format!("The MRZ characters are only {:.0} px high; take the photo closer or at a higher resolution (about 10 px per character or more).", f.glyph_px),
        ));
    }
    for (line, covered) in f.attempt.covered.iter().enumerate() {
        let Some(spans) = spans(covered) else { continue };
        diagnostics.push(diagnostic(
            DiagnosticCode::PartlyCovered,
            format!(
                "Something other than the page covers line {} of the MRZ next to {spans} (the page's edge, a fold, a finger or a holder), so those characters were read from part of their glyphs; lay the page flat and uncovered.",
                line + 1,
            ),
        ));
    }
    for (line, marked) in f.marked.iter().enumerate() {
        let Some(spans) = spans(marked) else { continue };
        diagnostics.push(diagnostic(
            DiagnosticCode::MarkedOver,
            format!(
                "A line drawn over the page (a pen stroke or a frame) crosses line {} of the MRZ at {spans}, so those characters were read from what it left of their glyphs. Check them against the document, or photograph a page without marks.",
                line + 1,
            ),
        ));
    }
    for run @ &(line, start, end) in f.glare {
        let hidden_end = if end_in_glare(f.attempt, run) {
            " The line may go on under it, so its length, the document's format and the fields at its end are not proven."
        } else {
            ""
        };
        diagnostics.push(diagnostic(
            DiagnosticCode::Glare,
            format!(
                "Glare or a reflection washes out line {} (characters {} to {}); tilt the document or move away from the light.{hidden_end}",
                line + 1,
                start + 1,
                end + 1
            ),
        ));
    }
}

/// What the check digits say: misreads they cannot see, or the ones that fail.
pub(super) fn check_digit_advice(f: &Findings, diagnostics: &mut Vec<Diagnostic>) {
    if f.withheld {
        // Nothing more to say of characters no reading is given for.
    } else if let Some(mrtd_mrz::Cancelling { check, cells: places }) = f.cancelling {
        let (were, them) = if places.len() == 1 { ("was", "it") } else { ("were", "them") };
        let places: Vec<String> =
            places.iter().map(|(line, column)| format!("line {line} character {column}")).collect();
        diagnostics.push(diagnostic(
            DiagnosticCode::LowConfidence,
            format!(
                "The {check} check digit agrees, but {} {were} read uncertainly and another reading of {them} would agree as well, so the check digits prove neither; verify {them}.",
                places.join(" and ")
            ),
        ));
    } else if !f.published_valid {
        refuted_advice(f, diagnostics);
    }
}

/// The check digits that fail, apart where the photo's edge cut what they cover.
fn refuted_advice(f: &Findings, diagnostics: &mut Vec<Diagnostic>) {
    // A check digit over a glyph the photo's edge cuts fails for want of the glyph, not
    // for a misread a sharper photo would fix.
    let unseen = |line: usize, column: usize| {
        line.checked_sub(1)
            .zip(column.checked_sub(1))
            .and_then(|(line, column)| f.cells.get(line).and_then(|row| row.get(column)))
            .is_some_and(|cell| cell.unseen)
    };
    let at_edge = |check: &mrtd_mrz::Check| {
        check.line.zip(check.column).is_some_and(|(line, column)| unseen(line, column))
            || check.covers.iter().any(|r| (r.from..=r.to).any(|column| unseen(r.line, column)))
    };
    let refuted = f.judged().checks.iter().filter(|c| c.status == mrtd_mrz::CheckStatus::Refuted);
    let (cut_short, failed): (Vec<&mrtd_mrz::Check>, Vec<&mrtd_mrz::Check>) =
        refuted.partition(|check| at_edge(check));
    let labels = |checks: &[&mrtd_mrz::Check]| {
        checks.iter().map(|c| c.name.label()).collect::<Vec<_>>().join(", ")
    };
    if !cut_short.is_empty() {
        diagnostics.push(diagnostic(
            DiagnosticCode::CheckDigitFailed,
            format!("Check digits over characters the photo's edge cuts do not match ({}): those characters were not seen whole.", labels(&cut_short)),
        ));
    }
    // Not valid for the cut alone: the cut diagnostic says so.
    if !f.cut_off.is_empty() && failed.is_empty() {
        return;
    }
    let failed = if failed.is_empty() { "the document".to_owned() } else { labels(&failed) };
    diagnostics.push(diagnostic(
        DiagnosticCode::CheckDigitFailed,
        format!("Check digits do not match for: {failed}. Some characters were misread; a sharper, evenly lit photo usually fixes this."),
    ));
    if f.mean_confidence < 0.7 && f.glyph_px >= TOO_SMALL_PX {
        diagnostics.push(diagnostic(
            DiagnosticCode::TooBlurred,
            "The MRZ characters are hard to tell apart (blurred or out of focus); hold the camera still and let it focus.".to_owned(),
        ));
    }
}

/// What the reader doubts or changed: faint lines, several readings, names, corrections.
pub(super) fn confidence_advice(f: &Findings, diagnostics: &mut Vec<Diagnostic>) {
    for (line_idx, contrasts) in f.attempt.contrast.iter().enumerate() {
        let weak = contrasts.iter().filter(|&&c| c < 8.0).count();
        if weak * 2 > contrasts.len() {
            diagnostics.push(diagnostic(
                DiagnosticCode::LineUnreadable,
                format!(
                    "Line {} of the MRZ could not be read: it has almost no contrast.",
                    line_idx + 1
                ),
            ));
        }
    }
    if f.published.is_some_and(|p| !p.ambiguities.is_empty()) {
        diagnostics.push(diagnostic(
            DiagnosticCode::LowConfidence,
            "More than one reading of the MRZ fits the check digits; the characters should be verified.".to_owned(),
        ));
    }
    if f.withheld {
        // Nothing to say of characters no reading is given for.
        return;
    }
    if f.unusual_name {
        diagnostics.push(diagnostic(
            DiagnosticCode::LowConfidence,
            "The name field holds a character that names do not have there (after the fillers that end the names, or not a letter); it was probably misread, so verify the names.".to_owned(),
        ));
    }
    if f.filler_inside_number && !f.certain {
        diagnostics.push(diagnostic(
            DiagnosticCode::LowConfidence,
            "The document number has a filler (<) inside it, which few documents print there and misreads that cancel under its check digit often make; verify it.".to_owned(),
        ));
    } else if f.published_valid && !f.certain {
        diagnostics.push(diagnostic(
            DiagnosticCode::LowConfidence,
            "The check digits match, but characters no check digit covers (names, issuing state) were read with low confidence; verify them.".to_owned(),
        ));
    }
    let n_corrected = f.judged().corrections.len();
    if n_corrected > 0 {
        let by = |why: mrtd_mrz::Why| {
            f.published.is_some_and(|p| p.corrections.iter().any(|c| c.why == why))
        };
        let mut using = vec!["the MRZ layout", "check digits"];
        if by(mrtd_mrz::Why::NameLetters) {
            using.push("the letters usual in names");
        }
        if by(mrtd_mrz::Why::DocumentGlyphs) {
            using.push("how the document prints its digits and letters");
        }
        let last = using.pop().unwrap_or_default();
        let using = format!("{} and {last}", using.join(", "));
        diagnostics.push(diagnostic(
            DiagnosticCode::Corrected,
            format!("{n_corrected} character(s) were corrected using {using}."),
        ));
    }
}
