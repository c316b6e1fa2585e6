//! Turning the best attempt (or its absence) into a status and diagnostics
//! that say what went wrong in words a person can act on.

use mrtd_mrz::ParseOptions;

use crate::attempt::Attempt;
use crate::cells::CellGeometry;
use crate::gray::Gray;
use crate::locate::LocateReport;
use crate::plausible::plausible_alternative;
use crate::types::{Diagnostic, DiagnosticCode, ImageReading, Status};

use advice::{Findings, check_digit_advice, confidence_advice, photo_advice};

/// Glyphs below this height (original pixels) are too small to read reliably.
const TOO_SMALL_PX: f32 = 7.0;

/// The most a cell covered above or below its glyph is trusted, whatever the classifier says.
const COVERED_TRUST: f32 = 0.5;
/// The most any cell of a zone the photo cuts off counts for in a field's confidence: which
/// cell is which is itself in doubt there. Over the robustness variants of the repository's
/// photos (`mrtd eval --robustness`), the expected calibration error is 0.061 without it,
/// 0.048 at 0.9 or 0.8, and 0.116 at `COVERED_TRUST`, when the many right fields of a cut
/// zone lose nearly all their confidence.
const CUT_TRUST: f32 = 0.9;
/// A field's confidence multiplies its cells' probabilities raised to this power. The
/// classifier is underconfident on cells it reads right, more so on poor photos: over 300
/// synthetic photos with every fault (`mrtd-synth --more-faults`, 6-16 px characters) the
/// expected calibration error of field confidence is 0.033 with the probabilities as they
/// are and 0.021 with their square roots, which keep every order between cells and readings.
const CELL_CONFIDENCE_EXPONENT: f32 = 0.5;

/// The advice for a photo without an MRZ that shows a face: most likely the side of a
/// document with the portrait, whose zone is on its other side.
pub(crate) fn turn_over() -> Diagnostic {
    diagnostic(
        DiagnosticCode::TurnOver,
        "This side shows a face but no machine readable zone: it looks like the front of an \
         ID card or residence permit, whose zone (two or three lines with < signs) is on the \
         back. Turn the card over and photograph that side, or send both sides together; for \
         a passport, photograph the page with the portrait and the lines at its foot."
            .to_owned(),
    )
}

/// The note for a photo with a second zone that reads with confidence: two documents (or
/// two pages) in one photo, of which one was read.
pub(crate) fn another_mrz() -> Diagnostic {
    diagnostic(
        DiagnosticCode::AnotherMrz,
        "The photo shows a second machine readable zone, of another document or page: it was \
         read too, and is given whole beside this one. To read one document alone, photograph \
         it on its own."
            .to_owned(),
    )
}

fn diagnostic(code: DiagnosticCode, message: String) -> Diagnostic {
    Diagnostic { code, message }
}

fn length(v: (f32, f32)) -> f32 {
    v.0.hypot(v.1)
}

/// The MRZ quadrilateral from the outer cells, upright order.
fn region(cells: &[Vec<CellGeometry>]) -> [(f32, f32); 4] {
    let corner = |cell: &CellGeometry, side: f32, vertical: f32| {
        (
            cell.centre.0 + side * 0.5 * cell.along.0 + vertical * 0.75 * cell.across.0,
            cell.centre.1 + side * 0.5 * cell.along.1 + vertical * 0.75 * cell.across.1,
        )
    };
    let first = &cells[0];
    let last = &cells[cells.len() - 1];
    [
        corner(&first[0], -1.0, -1.0),
        corner(&first[first.len() - 1], 1.0, -1.0),
        corner(&last[last.len() - 1], 1.0, 1.0),
        corner(&last[0], -1.0, 1.0),
    ]
}

/// The edges of the photo (`left`, `top`, `right`, `bottom`) that the zone runs off.
fn cut_edges(quad: &[(f32, f32); 4], gray: &Gray, pitch: f32) -> Vec<&'static str> {
    let margin = pitch * 0.2;
    let (width, height) = (gray.width as f32, gray.height as f32);
    let mut edges = Vec::new();
    if quad.iter().any(|&(x, _)| x < -margin) {
        edges.push("left");
    }
    if quad.iter().any(|&(_, y)| y < -margin) {
        edges.push("top");
    }
    if quad.iter().any(|&(x, _)| x > width + margin) {
        edges.push("right");
    }
    if quad.iter().any(|&(_, y)| y > height + margin) {
        edges.push("bottom");
    }
    edges
}

/// The share of a glyph's pitch and height, about its centre, that must lie inside the
/// photo for the glyph to count as seen: the middle half of it each way. A glyph the edge
/// cuts nearer its side than that is read from most of its strokes.
const SEEN_SHARE: f32 = 0.5;

/// Whether the middle of the cell's glyph (`SEEN_SHARE` of it each way) lies inside the photo.
fn glyph_inside(cell: &CellGeometry, gray: &Gray) -> bool {
    let half = SEEN_SHARE / 2.0;
    [(-half, -half), (-half, half), (half, -half), (half, half)].iter().all(|&(a, b)| {
        let x = cell.centre.0 + a * cell.along.0 + b * cell.across.0;
        let y = cell.centre.1 + a * cell.along.1 + b * cell.across.1;
        (0.0..=gray.width as f32).contains(&x) && (0.0..=gray.height as f32).contains(&y)
    })
}

/// The runs of `true` cells of a line in words (`character 3, characters 7 to 9`); `None`
/// when there are none.
fn spans(cells: &[bool]) -> Option<String> {
    let runs = runs_of(cells);
    let spans: Vec<String> = runs
        .iter()
        .map(|&(first, last)| match first == last {
            true => format!("character {}", first + 1),
            false => format!("characters {} to {}", first + 1, last + 1),
        })
        .collect();
    (!spans.is_empty()).then(|| spans.join(", "))
}

/// Finds runs of washed-out cells (low contrast and bright) inside a line.
fn glare_runs(attempt: &Attempt) -> Vec<(usize, usize, usize)> {
    let mut all: Vec<f32> = attempt.contrast.iter().flatten().copied().collect();
    all.sort_by(f32::total_cmp);
    let median = all[all.len() / 2];
    let mut runs = Vec::new();
    for (line, contrasts) in attempt.contrast.iter().enumerate() {
        let weak: Vec<bool> = contrasts.iter().map(|&c| c < median * 0.4).collect();
        runs.extend(
            runs_of(&weak)
                .into_iter()
                .filter(|(first, last)| last - first >= 2)
                .map(|(first, last)| (line, first, last)),
        );
    }
    runs
}

/// Decides the status and writes the diagnostics.
pub(crate) fn conclude(
    best: Option<Attempt>,
    report: &LocateReport,
    gray: &Gray,
    scale: f32,
    options: &ParseOptions,
) -> ImageReading {
    let Some(attempt) = best else {
        return no_reading(gray, no_mrz_found(report, scale));
    };
    let Weighed { cells, classified, glyph_verdicts, touched, mut published, unproven_note } =
        weigh(&attempt, gray, options);
    let reading = &attempt.reading;
    let probability = |line: usize, pos: usize, symbol: char| {
        classified[line][pos].probability(symbol).min(cells[line][pos].probability(symbol))
    };
    let marked = stroke_flags(&attempt, |stroke, cell| stroke.crosses(cell));
    let glyph_px = length(attempt.cells[0][0].across);
    // Check digits weigh symbols 7, 3, 1 and cannot see misreads that cancel: a
    // number `ZS0000177` read `Z<OOO0177` passes them all. A filler inside a
    // number, which few issuers print, is such a reading's mark: there an alternative
    // counts as plausible as on small glyphs, and mrtd-mrz holds the number's cells to what
    // tells look-alikes apart before it calls them certain.
    let filler_inside_number = warned(&published, mrtd_mrz::WarningCode::FillerInsideNumber);
    let glare = glare_runs(&attempt);
    let quad = region(&attempt.cells);
    let pitch = length(attempt.cells[0][0].along);
    let cut_off = cut_edges(&quad, gray, pitch);
    let cut = !cut_off.is_empty();
    // Glare over a line's last characters hides where the line ends, as the photo's edge
    // does.
    let ends_in_glare = glare.iter().any(|run| end_in_glare(&attempt, run));
    // The MRZ core says what the check digits prove of the cells seen: not misreads that
    // cancel under them (a `0` read `O` at weight 7 and another at weight 3), where another
    // reading the classifier offers from `plausible`, or a look-alike the document's glyphs
    // do not rule out, satisfies them as well; nor a zone the photo cuts or whose line end
    // glare hides.
    let plausible: Vec<Vec<f32>> = touched
        .iter()
        .map(|line| {
            line.iter()
                .map(|&touched| plausible_alternative(glyph_px, filler_inside_number || touched))
                .collect()
        })
        .collect();
    let offered = crate::glyphs::with_unruled(&classified, &glyph_verdicts);
    let seen =
        mrtd_mrz::Seen { offered: &offered, plausible: &plausible, cut, end_hidden: ends_in_glare };
    let proof = published.as_mut().map(|p| p.prove(&seen));
    let cancelling = proof.as_ref().and_then(|p| p.cancelling.clone());
    let published_valid = proof.as_ref().is_some_and(|p| p.cells_proven);
    // Nor can they see a name letter; one after the fillers that end the names (a filler
    // at the page's edge read as H) is a misread, however sure the classifier.
    let unusual_name = warned(&published, mrtd_mrz::WarningCode::UnusualName);
    // A name holds no digit: its cells are judged among the letters and the filler.
    let as_letters = published.as_ref().map(|p| p.names_as_letters(probability));
    // A cell whose window something other than paper covers (a page edge cutting the
    // line, a finger), or that a line drawn over the page crossed, was read from part of its
    // glyph, however sure the classifier is.
    let trusted = |line: usize, pos: usize, symbol: char| {
        let p = match &as_letters {
            Some(names) => names(line, pos, symbol),
            None => probability(line, pos, symbol),
        };
        if attempt.covered[line][pos] || marked[line][pos] { p.min(COVERED_TRUST) } else { p }
    };
    // Where nothing checks a cell and letters and digits both may stand (a visa's optional
    // data), only the glyph can tell a look-alike pair apart: the neighbours' kind may order
    // the pair there, not vouch for it.
    let unchecked_data = unchecked_data_cells(published.as_ref());
    let judged = |line: usize, pos: usize, symbol: char| {
        let p = trusted(line, pos, symbol);
        if unchecked_data.contains(&(line, pos)) {
            p.min(attempt.candidates[line][pos].probability(symbol))
        } else {
            p
        }
    };
    let certain = published.as_ref().is_some_and(|p| {
        published_valid
            && p.ambiguities.is_empty()
            && !unusual_name
            && p.cells_certain(judged, &glare)
    });
    let mean_confidence = attempt.score.exp();
    // `read` promises that a pipeline may use the reading without a person looking: never
    // for characters too small to tell apart reliably, nor for a zone the photo cuts off,
    // whatever the classifier and the check digits say.
    let too_small = glyph_px < TOO_SMALL_PX;
    let confident = certain && !too_small && !cut && !ends_in_glare;
    // Without passing check digits or a confident classifier this is not
    // evidence of an MRZ: an ordinary text block can look like two rows. The
    // check digits counted are those of the published reading, since the
    // ranking decoder's corrections can make garbage agree with them.
    let (n_checks, n_checks_valid) = check_counts(published.as_ref().unwrap_or(reading));
    if !reads_as_an_mrz(n_checks, n_checks_valid, certain, mean_confidence) {
        let message = "No MRZ found: rows of text were found but they do not read as an MRZ (too few check digits match). Make sure the whole MRZ is in the photo, sharp and evenly lit.";
        return no_reading(gray, vec![diagnostic(DiagnosticCode::NoMrzFound, message.to_owned())]);
    }

    // The part in the photo of a zone it cuts does not show how long the lines are: a
    // passport's lines cut at 80 % fit a visa's or a card's format. A document code that
    // format does not allow (a `P` on 36-character lines) says the format was fit to the cut,
    // so every field would be read from the wrong cells: no reading is given rather than that
    // one, nor advice about its characters.
    let withheld = cut && warned(&published, mrtd_mrz::WarningCode::NonconformantDocumentCode);
    let mut diagnostics = Vec::new();
    if withheld {
        published = None;
    } else {
        diagnostics.extend(unproven_note);
    }
    let findings = Findings {
        attempt: &attempt,
        published: published.as_ref(),
        cells: &cells,
        marked: &marked,
        glare: &glare,
        cut_off: &cut_off,
        withheld,
        cancelling: cancelling.as_ref(),
        published_valid,
        certain,
        unusual_name,
        filler_inside_number,
        glyph_px,
        mean_confidence,
    };
    photo_advice(&findings, &mut diagnostics);
    check_digit_advice(&findings, &mut diagnostics);
    confidence_advice(&findings, &mut diagnostics);
    // Each field's confidence from what the classifier saw (the lower of its probability and
    // the weighed one), a covered or washed-out cell counting at most `COVERED_TRUST`, and
    // every cell of a zone the photo cuts off at most `CUT_TRUST`: where a line runs off the
    // photo, which cell is which is itself in doubt (a passport's lines cut at 80 % were read
    // as a 36-character zone, every field shifted, at confidence 1).
    if let Some(published) = published.as_mut() {
        published.weigh_confidence(|line, pos, symbol| {
            let washed =
                glare.iter().any(|&(l, first, last)| l == line && (first..=last).contains(&pos));
            let p = trusted(line, pos, symbol);
            let p = if washed { p.min(COVERED_TRUST) } else { p };
            let p = if cut { p.min(CUT_TRUST) } else { p };
            p.powf(CELL_CONFIDENCE_EXPONENT)
        });
    }
    // To a tenth of a degree, 359.96 being 0.0, not 360.0.
    let rotation = ((attempt.rotation_degrees * 10.0).round() / 10.0) % 360.0;
    let off_upright = rotation.min(360.0 - rotation);
    if off_upright > 5.0 {
        diagnostics.push(diagnostic(
            DiagnosticCode::Rotated,
            format!(
                "The document is turned {rotation:.0} degrees from upright; it was read anyway."
            ),
        ));
    }
    ImageReading {
        status: if confident { Status::Read } else { Status::Partial },
        reading: published,
        diagnostics,
        rotation_degrees: rotation,
        region: Some(quad),
        ..no_reading(gray, Vec::new())
    }
}

/// A result without a reading: `no_mrz` with these diagnostics.
fn no_reading(gray: &Gray, diagnostics: Vec<Diagnostic>) -> ImageReading {
    ImageReading {
        status: Status::NoMrz,
        reading: None,
        diagnostics,
        rotation_degrees: 0.0,
        region: None,
        document: None,
        portrait: None,
        image_width: gray.width,
        image_height: gray.height,
        image_format: "raw",
        page: None,
        timing_ms: 0.0,
        others: Vec::new(),
    }
}

/// Why no attempt read: what the localiser saw, in words a person can act on.
fn no_mrz_found(report: &LocateReport, scale: f32) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    let message = match &report.longest_row {
        Some(row) => {
            let height_px = row.height / scale;
            if height_px < TOO_SMALL_PX {
                diagnostics.push(diagnostic(
                    DiagnosticCode::TooSmall,
                    format!("Text rows were found but their characters are only {height_px:.0} px high; take the photo closer or at a higher resolution (characters need about 10 px)."),
                ));
            }
            format!(
                "No MRZ found: {} long row(s) of text were seen but no two or three parallel rows of equal length at MRZ spacing. Make sure the whole MRZ (the two or three lines of text with <<< at the bottom of the page) is in the photo.",
                report.n_long_rows
            )
        }
        None => "No MRZ found: no rows of evenly spaced characters were seen. Photograph the page so that the two or three lines with <<< at the bottom are in view, sharp and not washed out by light.".to_owned(),
    };
    diagnostics.insert(0, diagnostic(DiagnosticCode::NoMrzFound, message));
    diagnostics
}

/// The best attempt's cells once the look-alikes, the document's own glyphs and the name
/// letters are weighed, and the MRZ core's reading of them.
struct Weighed {
    /// The cells as weighed.
    cells: Vec<Vec<mrtd_mrz::CellCandidates>>,
    /// The cells before the name model: what the classifier and the glyphs said.
    classified: Vec<Vec<mrtd_mrz::CellCandidates>>,
    /// What the document's own glyphs said of each look-alike.
    glyph_verdicts: Vec<((usize, usize), crate::glyphs::Verdict)>,
    /// The cells whose window a line drawn over the page reaches (see [`weigh`]).
    touched: Vec<Vec<bool>>,
    /// The MRZ core's reading of the weighed cells.
    published: Option<mrtd_mrz::Reading>,
    /// Why corrections the check digits asked for were not applied, when they were not.
    unproven_note: Option<Diagnostic>,
}

/// Weighs the best attempt's cells and has the MRZ core read them.
fn weigh(attempt: &Attempt, gray: &Gray, options: &ParseOptions) -> Weighed {
    // The attempt's reading ranked it among the others; the published reading is the MRZ
    // core's reading of the same cells once look-alikes and name letters are weighed.
    let reading = &attempt.reading;
    let mut cells = attempt.candidates.clone();
    crate::weigh::weigh_look_alikes(&mut cells);
    // A glyph the photo's edge cuts was not seen: the MRZ core keeps it as read, and
    // neither a correction nor a check digit may settle it.
    for (line, geometry) in cells.iter_mut().zip(&attempt.cells) {
        for (cell, at) in line.iter_mut().zip(geometry) {
            cell.unseen = !glyph_inside(at, gray);
        }
    }
    // The cells whose sampled window a line drawn over the page reaches without crossing the
    // glyph's body: erasing a line along a glyph's foot can take the foot with it (a `0`
    // underlined, once erased, reads `U`), so what the classifier offers there counts as
    // it does on small glyphs.
    let touched = stroke_flags(attempt, |stroke, cell| stroke.touches(cell));
    // The document's own glyphs settle look-alikes where both may stand, and say which they
    // cannot rule out (`glyphs`).
    let allowed = reading.symbol_allowed();
    let glyph_verdicts = crate::glyphs::judge(
        gray,
        &attempt.cells,
        &cells,
        |line, pos| reading.lines.get(line)?.chars().nth(pos),
        &allowed,
        |line, pos| !attempt.covered[line][pos] && !touched[line][pos] && !cells[line][pos].unseen,
    );
    crate::glyphs::apply(&mut cells, &glyph_verdicts);
    // Name letters are chosen with the name model (letter triples usual in names) and
    // judged by the lower of the classifier's probability and the weighed one: the model
    // may change a letter and may doubt one, never vouch for one.
    let classified = cells.clone();
    let names = crate::weigh::name_runs(reading);
    crate::weigh::weigh_names(&names, &mut cells);
    // The MRZ core keeps a check-digit correction only where the cells' odds carry it.
    let glyph_px = length(attempt.cells[0][0].across);
    let decoded = mrtd_mrz::decode_proven(
        &cells,
        &classified,
        plausible_alternative(glyph_px, false),
        options,
    )
    .ok();
    let unproven_note = decoded.as_ref().filter(|d| !d.unproven.is_empty()).map(|decoded| {
        let places: Vec<String> = decoded
            .unproven
            .iter()
            .map(|(line, column)| format!("line {line} character {column}"))
            .collect();
        diagnostic(
            DiagnosticCode::LowConfidence,
            format!(
                "The check digits would agree only after changing {}, but the characters they cover were read too uncertainly for the check digits to prove that, so they were left as read; verify them.",
                places.join(", ")
            ),
        )
    });
    let mut published = decoded.map(|decoded| decoded.reading);
    if let Some(published) = published.as_mut() {
        let names = name_letter_choices(&names, &classified, published);
        published.note_choices(names);
        published.note_choices(document_glyph_choices(&glyph_verdicts));
    }
    Weighed { cells, classified, glyph_verdicts, touched, published, unproven_note }
}

/// For each cell of the attempt, whether one of the lines drawn over the page meets it as
/// `meets` says.
fn stroke_flags(
    attempt: &Attempt,
    meets: impl Fn(&crate::strokes::Stroke, &CellGeometry) -> bool,
) -> Vec<Vec<bool>> {
    attempt
        .cells
        .iter()
        .map(|line| {
            line.iter().map(|cell| attempt.strokes.iter().any(|s| meets(s, cell))).collect()
        })
        .collect()
}

/// Whether the reading carries a warning with this code.
fn warned(reading: &Option<mrtd_mrz::Reading>, code: mrtd_mrz::WarningCode) -> bool {
    reading.as_ref().is_some_and(|p| p.warnings.iter().any(|w| w.code == code))
}

/// The cells of optional data no check digit covers.
fn unchecked_data_cells(published: Option<&mrtd_mrz::Reading>) -> Vec<(usize, usize)> {
    published.map_or_else(Vec::new, |p| {
        let covered = p.covered_cells();
        [mrtd_mrz::FieldName::OptionalData, mrtd_mrz::FieldName::OptionalData2]
            .into_iter()
            .flat_map(|field| p.field_cells(field))
            .filter(|&(line, column)| !covered[line][column])
            .collect()
    })
}

/// The check digits printed, and how many of them are verified.
fn check_counts(reading: &mrtd_mrz::Reading) -> (usize, usize) {
    let printed = reading.checks.iter().filter(|c| c.status != mrtd_mrz::CheckStatus::Absent);
    let verified = |c: &&mrtd_mrz::Check| c.status == mrtd_mrz::CheckStatus::Verified;
    (printed.clone().count(), printed.filter(verified).count())
}

/// Whether a glare run reaches the last cell of a zone of two lines shorter than the widest
/// format's: the line may go on under the glare.
fn end_in_glare(attempt: &Attempt, &(line, _, end): &(usize, usize, usize)) -> bool {
    let widest = mrtd_mrz::ZONE_SHAPES.iter().map(|&(_, width)| width).max().unwrap_or(0);
    let width = attempt.cells[line].len();
    width < widest && attempt.cells.len() == 2 && end + 1 == width
}

/// Runs of set flags, as (first, last) indexes.
fn runs_of(flags: &[bool]) -> Vec<(usize, usize)> {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for (idx, _) in flags.iter().enumerate().filter(|(_, set)| **set) {
        match runs.last_mut() {
            Some(run) if run.1 + 1 == idx => run.1 = idx,
            _ => runs.push((idx, idx)),
        }
    }
    runs
}

/// The name letters that stand where the classifier ranked another letter first: chosen by
/// the name model (see `weigh::weigh_names`), for the audit trail.
fn name_letter_choices(
    names: &[(usize, usize, usize)],
    classified: &[Vec<mrtd_mrz::CellCandidates>],
    published: &mrtd_mrz::Reading,
) -> Vec<mrtd_mrz::Choice> {
    let mut choices = Vec::new();
    for (line, (text, cells)) in published.lines.iter().zip(classified).enumerate() {
        for (column, (symbol, cell)) in text.chars().zip(cells).enumerate() {
            let first = cell.options.iter().max_by(|a, b| a.1.total_cmp(&b.1)).map(|o| o.0);
            let Some(first) = first.filter(|f| f.is_ascii_uppercase() && *f != symbol) else {
                continue;
            };
            if symbol.is_ascii_uppercase() && crate::weigh::is_name_cell(names, line, column) {
                let why = mrtd_mrz::Why::NameLetters;
                choices.push(mrtd_mrz::Choice { line, column, from: first, to: symbol, why });
            }
        }
    }
    choices
}

/// The look-alikes the document's own glyphs settled against the classifier's first guess
/// (see `glyphs`), for the audit trail.
fn document_glyph_choices(
    verdicts: &[((usize, usize), crate::glyphs::Verdict)],
) -> Vec<mrtd_mrz::Choice> {
    verdicts
        .iter()
        .filter_map(|&((line, column), ref verdict)| match *verdict {
            crate::glyphs::Verdict::Is { read, is } => Some(mrtd_mrz::Choice {
                line,
                column,
                from: read,
                to: is,
                why: mrtd_mrz::Why::DocumentGlyphs,
            }),
            _ => None,
        })
        .collect()
}

/// Whether rows read well enough to be reported as an MRZ at all (`partial`
/// rather than `no_mrz`): a confident reading, more than half of the printed
/// check digits passing (half is what two of four random digits manage often
/// enough on a page of ordinary text), or a classifier sure of its glyphs.
fn reads_as_an_mrz(n_checks: usize, n_valid: usize, confident: bool, mean_confidence: f32) -> bool {
    confident || n_valid * 2 > n_checks || mean_confidence > 0.85
}

mod advice;
#[cfg(test)]
mod glyph_tests;
#[cfg(test)]
mod tests;
