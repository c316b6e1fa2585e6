//! The document's own glyphs as evidence. One printer prints a zone in one font, so the cells
//! that may hold only a digit (dates, check digits) show how this document prints `0`, `1`,
//! `2`, `5`, `6` and `8`, and the cells that may hold only a letter (codes, names) how it
//! prints `O`, `I`, `Z`, `S`, `G` and `B`. A cell where both may stand (a document number,
//! optional data) is compared with those references: where its glyph is the document's own
//! digit and not its letter, it is the digit however sure the generic classifier is of the
//! letter, and the other way round. Where the document shows neither member of a look-alike
//! pair clearly, the glyph is no evidence, and the other member counts as a plausible reading
//! of the cell when looking for misreads that cancel under the check digits (`O` and `0` at
//! weights 7 and 3 change no check digit).

use mrtd_mrz::CellCandidates;

use crate::cells::CellGeometry;
use crate::gray::Gray;

/// Samples across a compared glyph window.
const PATCH_W: usize = 20;
/// Samples down a compared glyph window.
const PATCH_H: usize = 28;
/// Half the compared window along the line, in pitches: the glyph and a little paper.
const HALF_ALONG: f32 = 0.5;
/// Half the compared window across the line, in character heights.
const HALF_ACROSS: f32 = 0.62;

/// Digits and the letters printed like them, most confused first.
const LOOK_ALIKES: [(char, &str); 6] =
    [('0', "ODQ"), ('1', "I"), ('2', "Z"), ('5', "S"), ('6', "G"), ('8', "B")];

/// A cell's classifier probability for its symbol before the cell counts as a reference of
/// how the document prints it.
const REFERENCE_MIN_P: f32 = 0.9;

/// How much less like its rival's prints than like its own symbol's a glyph may be and
/// still leave the two tied (normalised correlation, from -1 to 1): on the repository's
/// photos a zero is 0.003 to 0.05 more like the document's zeros than like its Os.
const TIE: f32 = 0.02;

/// How much closer to a rival's prints than to its own symbol's a glyph must be for the
/// document's glyphs to overrule the classifier: on synthetic photos with every fault, a
/// glyph was 0.1 closer to a one-print template of its look-alike than to its own symbol's.
const DECISIVE_MARGIN: f32 = 0.08;

/// How far below the document's own agreement between two prints of one symbol a glyph may
/// match a reference and still count as a print of it: the lower quartile of that agreement,
/// less this.
const AGREEMENT_SLACK: f32 = 0.06;

/// The probability given to a look-alike the glyphs cannot rule out, for the search for
/// misreads that cancel: above what counts as plausible on any glyph size.
const UNRULED_LOOK_ALIKE: f32 = 0.1;

/// Whether `a` and `b` are a pair whose prints differ by a detail that a worn, blurred or
/// small print loses (the width of a `0`, the serifs of an `I`), so that a glyph with no
/// print of either in the document proves neither. `D`, `Q` and `G` are told from `0` and
/// `6` by strokes the classifier sees.
fn close_pair(a: char, b: char) -> bool {
    const CLOSE: [(char, char); 5] = [('0', 'O'), ('1', 'I'), ('2', 'Z'), ('5', 'S'), ('8', 'B')];
    CLOSE.iter().any(|&(x, y)| (a, b) == (x, y) || (a, b) == (y, x))
}

/// The look-alikes of `symbol` in the other class (a digit's letters, a letter's digit).
fn look_alikes(symbol: char) -> Vec<char> {
    let mut out = Vec::new();
    for (digit, letters) in LOOK_ALIKES {
        if symbol == digit {
            out.extend(letters.chars());
        } else if letters.contains(symbol) {
            out.push(digit);
        }
    }
    out
}

/// A glyph window sampled and normalised: ink positive, mean 0, unit length.
#[derive(Clone)]
struct Patch([f32; PATCH_W * PATCH_H]);

impl Patch {
    fn sample(image: &Gray, cell: &CellGeometry) -> Option<Patch> {
        let window = (HALF_ALONG, HALF_ACROSS);
        let samples = crate::cells::window_samples(image, cell, window, (PATCH_W, PATCH_H));
        Patch::normalised(samples.try_into().ok()?)
    }

    /// Ink positive, mean 0, unit length; `None` for a blank window.
    fn normalised(mut values: [f32; PATCH_W * PATCH_H]) -> Option<Patch> {
        let mean = values.iter().sum::<f32>() / values.len() as f32;
        values.iter_mut().for_each(|v| *v = mean - *v);
        let norm = values.iter().map(|v| v * v).sum::<f32>().sqrt();
        if !norm.is_finite() || norm < 1e-3 {
            return None;
        }
        values.iter_mut().for_each(|v| *v /= norm);
        Some(Patch(values))
    }

    /// The mean of several patches, normalised.
    fn mean<'a>(patches: impl Iterator<Item = &'a Patch>) -> Option<Patch> {
        let mut sum = [0.0f32; PATCH_W * PATCH_H];
        for patch in patches {
            sum.iter_mut().zip(&patch.0).for_each(|(s, v)| *s += v);
        }
        // Already ink positive: only the length is normalised.
        let norm = sum.iter().map(|v| v * v).sum::<f32>().sqrt();
        if !norm.is_finite() || norm < 1e-6 {
            return None;
        }
        sum.iter_mut().for_each(|v| *v /= norm);
        Some(Patch(sum))
    }

    /// The best normalised correlation of two patches shifted by up to one sample each way
    /// (the localiser places cells to within a fraction of a stroke).
    fn similarity(&self, other: &Patch) -> f32 {
        let mut best = f32::MIN;
        for dy in -1isize..=1 {
            for dx in -1isize..=1 {
                let (mut dot, mut na, mut nb) = (0.0f32, 0.0f32, 0.0f32);
                for y in 1..PATCH_H - 1 {
                    let oy = (y as isize + dy) as usize;
                    for x in 1..PATCH_W - 1 {
                        let ox = (x as isize + dx) as usize;
                        let a = self.0[y * PATCH_W + x];
                        let b = other.0[oy * PATCH_W + ox];
                        dot += a * b;
                        na += a * a;
                        nb += b * b;
                    }
                }
                let denominator = (na * nb).sqrt();
                if denominator > 0.0 {
                    best = best.max(dot / denominator);
                }
            }
        }
        best
    }
}

/// What the document's own glyphs say of one cell where look-alikes may both stand.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Verdict {
    /// The glyph is the document's print of `is`, not of `read`, the symbol it was read as.
    Is { read: char, is: char },
    /// The references cannot rule these look-alikes out.
    Unruled(Vec<char>),
}

/// The document's glyphs' verdicts on the cells where a symbol and its look-alike may both
/// stand, as ((line, column) from 0, verdict); cells the references settle as read are left
/// out. `read(line, column)` is the symbol a cell is read as, `allowed` what its layout lets
/// it hold, `trusted(line, column)` whether its glyph was seen whole (not covered, cut or
/// crossed).
pub(crate) fn judge(
    image: &Gray,
    cells: &[Vec<CellGeometry>],
    classified: &[Vec<CellCandidates>],
    read: impl Fn(usize, usize) -> Option<char>,
    allowed: impl Fn(usize, usize, char) -> bool,
    trusted: impl Fn(usize, usize) -> bool,
) -> Vec<((usize, usize), Verdict)> {
    let mut patches: Vec<Vec<Option<Patch>>> = Vec::new();
    for line in cells {
        patches.push(line.iter().map(|cell| Patch::sample(image, cell)).collect());
    }
    let patch = |line: usize, column: usize| patches.get(line)?.get(column)?.as_ref();
    // References: cells whose layout rules out every look-alike of what they hold, read with
    // confidence and seen whole.
    let mut references: Vec<(char, &Patch)> = Vec::new();
    for (line, row) in classified.iter().enumerate() {
        for (column, candidates) in row.iter().enumerate() {
            let Some(symbol) = read(line, column) else { continue };
            let alikes = look_alikes(symbol);
            if alikes.is_empty()
                || alikes.iter().any(|&other| allowed(line, column, other))
                || !allowed(line, column, symbol)
                || candidates.probability(symbol) < REFERENCE_MIN_P
                || !trusted(line, column)
            {
                continue;
            }
            if let Some(p) = patch(line, column) {
                references.push((symbol, p));
            }
        }
    }
    let templates: Vec<(char, Patch)> = {
        let mut symbols: Vec<char> = references.iter().map(|(s, _)| *s).collect();
        symbols.sort_unstable();
        symbols.dedup();
        symbols
            .into_iter()
            .filter_map(|s| {
                Patch::mean(references.iter().filter(|(r, _)| *r == s).map(|(_, p)| *p))
                    .map(|t| (s, t))
            })
            .collect()
    };
    let template = |symbol: char| templates.iter().find(|(s, _)| *s == symbol).map(|(_, t)| t);
    // How well two prints of one symbol agree in this photo: each reference against the mean
    // of the others of its symbol; per symbol, the worst such agreement.
    let mut agreement: Vec<f32> = Vec::new();
    let mut own_level: Vec<(char, f32)> = Vec::new();
    for (i, (symbol, own)) in references.iter().enumerate() {
        let others = references
            .iter()
            .enumerate()
            .filter(|(j, (s, _))| *j != i && s == symbol)
            .map(|(_, (_, p))| *p);
        if let Some(mean) = Patch::mean(others) {
            let sim = own.similarity(&mean);
            agreement.push(sim);
            match own_level.iter_mut().find(|(s, _)| s == symbol) {
                Some(level) => level.1 = level.1.min(sim),
                None => own_level.push((*symbol, sim)),
            }
        }
    }
    agreement.sort_by(f32::total_cmp);
    let matches_at = agreement.get(agreement.len() / 4).map(|a| a - AGREEMENT_SLACK);
    let same_glyph_at = agreement.get(agreement.len() / 4).copied();
    let level = |symbol: char| own_level.iter().find(|(s, _)| *s == symbol).map(|(_, l)| *l);
    let mut verdicts = Vec::new();
    // Cells the references cannot tell from a look-alike, with the symbol each was read as.
    let mut undecided: Vec<((usize, usize), char, Vec<char>)> = Vec::new();
    // Every judged cell with its glyph and what it now reads, for comparing them.
    let mut judged: Vec<((usize, usize), char, &Patch)> = Vec::new();
    for (line, row) in classified.iter().enumerate() {
        for column in 0..row.len() {
            let Some(symbol) = read(line, column) else { continue };
            let rivals: Vec<char> =
                look_alikes(symbol).into_iter().filter(|&o| allowed(line, column, o)).collect();
            if rivals.is_empty() || !allowed(line, column, symbol) {
                continue;
            }
            // A glyph not seen whole is judged by the rules for such cells, not by its shape.
            let Some(glyph) = patch(line, column).filter(|_| trusted(line, column)) else {
                continue;
            };
            let score = |s: char| template(s).map(|t| glyph.similarity(t));
            let own = score(symbol);
            let matches = |sim: f32| matches_at.is_some_and(|at| sim >= at);
            // A rival whose prints the glyph is as like as they are like each other, while
            // it is unlike the prints of the symbol it was read as, by a clear margin: both
            // symbols need two prints or more, so that their agreement is measured.
            let better = rivals
                .iter()
                .filter_map(|&r| {
                    let (o, sim) = own.zip(score(r))?;
                    let (own_at, rival_at) = level(symbol).zip(level(r))?;
                    let is_rival = sim >= rival_at - AGREEMENT_SLACK
                        && o < own_at - AGREEMENT_SLACK
                        && sim > o + DECISIVE_MARGIN;
                    is_rival.then_some((r, sim))
                })
                .max_by(|a, b| a.1.total_cmp(&b.1));
            if let Some((rival, _)) = better {
                verdicts.push(((line, column), Verdict::Is { read: symbol, is: rival }));
                judged.push(((line, column), rival, glyph));
                continue;
            }
            judged.push(((line, column), symbol, glyph));
            // No print of either member in the document: the glyph is no evidence at all,
            // for the pairs whose prints differ by a detail a worn or small print loses.
            let unreferenced: Vec<char> = rivals
                .iter()
                .copied()
                .filter(|&r| own.is_none() && score(r).is_none() && close_pair(symbol, r))
                .collect();
            if !unreferenced.is_empty() {
                verdicts.push(((line, column), Verdict::Unruled(unreferenced)));
                continue;
            }
            // Both members' prints match the glyph about as well.
            let tied: Vec<char> = rivals
                .iter()
                .copied()
                .filter(|&r| {
                    own.zip(score(r)).is_some_and(|(o, sim)| matches(sim) && sim >= o - TIE)
                })
                .collect();
            if !tied.is_empty() {
                undecided.push(((line, column), symbol, tied));
            }
        }
    }
    // Two cells the references cannot settle, read as the two members of a pair: the glyphs
    // do not say which of them is misread, so neither is proved.
    let mut unruled: Vec<((usize, usize), char)> = Vec::new();
    for (place, _, tied) in &undecided {
        if undecided.iter().any(|(other, read, _)| other != place && tied.contains(read)) {
            unruled.extend(tied.iter().map(|&r| (*place, r)));
        }
    }
    // Two cells read as the two members of a pair whose glyphs are as alike as two prints
    // of one symbol: one of them is misread, and nothing says which.
    for (i, (a, read_a, glyph_a)) in judged.iter().enumerate() {
        for (b, read_b, glyph_b) in &judged[i + 1..] {
            let pair = look_alikes(*read_a).contains(read_b);
            if pair && same_glyph_at.is_some_and(|at| glyph_a.similarity(glyph_b) >= at) {
                unruled.push((*a, *read_b));
                unruled.push((*b, *read_a));
            }
        }
    }
    for (place, rival) in unruled {
        let decided = verdicts.iter().any(|(p, v)| *p == place && matches!(v, Verdict::Is { .. }));
        if decided {
            continue;
        }
        match verdicts.iter_mut().find(|(p, _)| *p == place) {
            Some((_, Verdict::Unruled(rivals))) if !rivals.contains(&rival) => rivals.push(rival),
            Some(_) => {}
            None => verdicts.push((place, Verdict::Unruled(vec![rival]))),
        }
    }
    verdicts
}

/// Applies the verdicts to a cell's candidates: a glyph that is the document's print of
/// another symbol is read as that symbol, with the probability the read one had (and the
/// read one with the other's), so that the check digits and the verdict rules see what the
/// document shows.
pub(crate) fn apply(cells: &mut [Vec<CellCandidates>], verdicts: &[((usize, usize), Verdict)]) {
    for ((line, column), verdict) in verdicts {
        let Verdict::Is { read, is } = *verdict else { continue };
        let Some(cell) = cells.get_mut(*line).and_then(|row| row.get_mut(*column)) else {
            continue;
        };
        let top = cell.options.iter().map(|o| o.1).fold(0.0f32, f32::max);
        let theirs = cell.probability(is);
        for option in cell.options.iter_mut() {
            if option.0 == read {
                option.1 = theirs;
            }
        }
        match cell.options.iter_mut().find(|o| o.0 == is) {
            Some(option) => option.1 = top,
            None => cell.options.push((is, top)),
        }
    }
}

/// The classifier's candidates with every look-alike the glyphs do not rule out offered at
/// [`UNRULED_LOOK_ALIKE`] at least, for the search for misreads that cancel.
pub(crate) fn with_unruled(
    cells: &[Vec<CellCandidates>],
    verdicts: &[((usize, usize), Verdict)],
) -> Vec<Vec<CellCandidates>> {
    let mut out = cells.to_vec();
    for ((line, column), verdict) in verdicts {
        let Verdict::Unruled(rivals) = verdict else { continue };
        let Some(cell) = out.get_mut(*line).and_then(|row| row.get_mut(*column)) else {
            continue;
        };
        for &rival in rivals {
            match cell.options.iter_mut().find(|o| o.0 == rival) {
                Some(option) => option.1 = option.1.max(UNRULED_LOOK_ALIKE),
                None => cell.options.push((rival, UNRULED_LOOK_ALIKE)),
            }
        }
    }
    out
}
