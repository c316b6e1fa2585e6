//! The bridge between cell probabilities and MRZ text: format detection,
//! character classes per position and check-digit-guided correction.
//!
//! This is the engine's own small decoder, kept behind the same shape as the
//! text engine's `decode_cells` so the two can be swapped without touching the
//! localiser or the classifier.

use serde::Serialize;

/// The classifier's ranked guesses for one cell, most probable first.
#[derive(Clone, Debug, PartialEq)]
pub struct CellCandidates {
    /// Symbols with their probabilities, descending.
    pub options: Vec<(char, f32)>,
}

/// The MRZ layouts the decoder knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum MrzFormat {
    /// ID card, 3 x 30.
    Td1,
    /// Travel document, 2 x 36.
    Td2,
    /// Passport, 2 x 44.
    Td3,
    /// Full-size visa, 2 x 44.
    MrvA,
    /// Small visa, 2 x 36.
    MrvB,
    /// French national ID card issued before 2021, 2 x 36.
    FraId,
}

/// One check digit and whether it matched.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Check {
    /// The field the digit protects.
    pub field: &'static str,
    /// Whether the digit matches.
    pub valid: bool,
}

/// A character the decoder changed from the classifier's first choice.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Correction {
    /// Line index, from 0.
    pub line: usize,
    /// Position in the line, from 0.
    pub position: usize,
    /// The classifier's first choice.
    pub from: char,
    /// The symbol kept.
    pub to: char,
    /// Why: `character_class` or `check_digit`.
    pub reason: &'static str,
}

/// A decoded MRZ.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reading {
    /// The layout.
    pub format: MrzFormat,
    /// The lines of text.
    pub lines: Vec<String>,
    /// Whether every check digit matches.
    pub valid: bool,
    /// Each check digit.
    pub checks: Vec<Check>,
    /// Changes made to the classifier's first choices.
    pub corrections: Vec<Correction>,
    /// The fields as printed (fillers trimmed; names with `<` turned into spaces).
    pub fields: std::collections::BTreeMap<&'static str, String>,
    /// The lowest probability of a kept symbol in positions no check digit covers.
    pub min_unchecked_confidence: f32,
    /// The lowest probability of any kept symbol.
    pub min_confidence: f32,
}

/// The cells do not form an MRZ of any known layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the cells do not form a known MRZ layout")]
pub struct NotMrz;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Digit,
    AlphaFiller,
    Any,
    Sex,
    DigitFiller,
    /// The first letter of a document code: P (passport), V (visa), or I, A, C (ID documents).
    DocumentCode(&'static str),
}

fn allowed(class: Class, symbol: char) -> bool {
    match class {
        Class::Digit => symbol.is_ascii_digit(),
        Class::DigitFiller => symbol.is_ascii_digit() || symbol == '<',
        Class::AlphaFiller => symbol.is_ascii_uppercase() || symbol == '<',
        Class::Sex => matches!(symbol, 'M' | 'F' | 'X' | '<'),
        Class::Any => true,
        Class::DocumentCode(letters) => letters.contains(symbol),
    }
}

/// A check digit: the positions it covers (line, start, end) and where it is.
struct CheckSpec {
    field: &'static str,
    covers: Vec<(usize, usize, usize)>,
    at: (usize, usize),
}

fn spec(field: &'static str, covers: &[(usize, usize, usize)], at: (usize, usize)) -> CheckSpec {
    CheckSpec { field, covers: covers.to_vec(), at }
}

/// Character classes per line and position, and the check digits, of a layout.
fn layout(format: MrzFormat) -> (Vec<Vec<Class>>, Vec<CheckSpec>) {
    use Class::*;
    let fill = |line: &mut Vec<Class>, range: std::ops::Range<usize>, class: Class| {
        for idx in range {
            line[idx] = class;
        }
    };
    match format {
        MrzFormat::Td3 | MrzFormat::MrvA | MrzFormat::Td2 | MrzFormat::MrvB => {
            let len = if matches!(format, MrzFormat::Td3 | MrzFormat::MrvA) { 44 } else { 36 };
            let mut l1 = vec![AlphaFiller; len];
            l1[0] = DocumentCode(match format {
                MrzFormat::Td3 => "P",
                MrzFormat::MrvA | MrzFormat::MrvB => "V",
                _ => "IAC",
            });
            let mut l2 = vec![Any; len];
            fill(&mut l2, 9..10, Digit);
            fill(&mut l2, 10..13, AlphaFiller);
            fill(&mut l2, 13..20, DigitFiller);
            l2[19] = Digit;
            l2[20] = Sex;
            fill(&mut l2, 21..28, Digit);
            let mut checks = vec![
                spec("document_number", &[(1, 0, 9)], (1, 9)),
                spec("birth_date", &[(1, 13, 19)], (1, 19)),
                spec("expiry_date", &[(1, 21, 27)], (1, 27)),
            ];
            match format {
                MrzFormat::Td3 => {
                    l2[42] = DigitFiller;
                    l2[43] = Digit;
                    checks.push(spec("personal_number", &[(1, 28, 42)], (1, 42)));
                    checks.push(spec(
                        "composite",
                        &[(1, 0, 10), (1, 13, 20), (1, 21, 43)],
                        (1, 43),
                    ));
                }
                MrzFormat::Td2 => {
                    l2[35] = Digit;
                    checks.push(spec(
                        "composite",
                        &[(1, 0, 10), (1, 13, 20), (1, 21, 35)],
                        (1, 35),
                    ));
                }
                _ => {}
            }
            (vec![l1, l2], checks)
        }
        MrzFormat::Td1 => {
            let mut l1 = vec![Any; 30];
            l1[0] = DocumentCode("IAC");
            l1[1] = AlphaFiller;
            fill(&mut l1, 2..5, AlphaFiller);
            let mut l2 = vec![Any; 30];
            fill(&mut l2, 0..7, DigitFiller);
            l2[6] = Digit;
            l2[7] = Sex;
            fill(&mut l2, 8..15, Digit);
            fill(&mut l2, 15..18, AlphaFiller);
            l2[29] = Digit;
            let l3 = vec![AlphaFiller; 30];
            let checks = vec![
                spec("document_number", &[(0, 5, 14)], (0, 14)),
                spec("birth_date", &[(1, 0, 6)], (1, 6)),
                spec("expiry_date", &[(1, 8, 14)], (1, 14)),
                spec("composite", &[(0, 5, 30), (1, 0, 7), (1, 8, 15), (1, 18, 29)], (1, 29)),
            ];
            (vec![l1, l2, l3], checks)
        }
        MrzFormat::FraId => {
            let mut l1 = vec![AlphaFiller; 36];
            l1[0] = DocumentCode("I");
            fill(&mut l1, 30..36, Any);
            let mut l2 = vec![Any; 36];
            fill(&mut l2, 0..4, Digit);
            l2[12] = Digit;
            fill(&mut l2, 13..27, AlphaFiller);
            fill(&mut l2, 27..34, Digit);
            l2[34] = Sex;
            l2[35] = Digit;
            let checks = vec![
                spec("document_number", &[(1, 0, 12)], (1, 12)),
                spec("birth_date", &[(1, 27, 33)], (1, 33)),
                spec("composite", &[(0, 0, 36), (1, 0, 35)], (1, 35)),
            ];
            (vec![l1, l2], checks)
        }
    }
}

/// The layouts the cells may be in, likeliest first. Lines of 36 that start
/// `IDFRA` are an old French identity card or a TD2 issued by France: both
/// are tried, and the check digits decide.
fn candidate_formats(lines: &[Vec<CellCandidates>]) -> Vec<MrzFormat> {
    match detect_format(lines) {
        Some(MrzFormat::FraId) => vec![MrzFormat::FraId, MrzFormat::Td2],
        Some(format) => vec![format],
        None => Vec::new(),
    }
}

fn detect_format(lines: &[Vec<CellCandidates>]) -> Option<MrzFormat> {
    let top = |line: usize, idx: usize| lines[line][idx].options.first().map_or('<', |o| o.0);
    let has = |line: usize, idx: usize, symbol: char| {
        lines[line][idx].options.iter().take(2).any(|o| o.0 == symbol && o.1 > 0.1)
    };
    match (lines.len(), lines[0].len()) {
        (3, 30) if lines.iter().all(|l| l.len() == 30) => Some(MrzFormat::Td1),
        (2, 44) if lines[1].len() == 44 => {
            Some(if has(0, 0, 'V') && top(0, 0) != 'P' { MrzFormat::MrvA } else { MrzFormat::Td3 })
        }
        (2, 36) if lines[1].len() == 36 => {
            let french = ["IDFRA"].iter().any(|p| p.chars().enumerate().all(|(i, c)| has(0, i, c)));
            if french {
                Some(MrzFormat::FraId)
            } else if has(0, 0, 'V') && top(0, 0) != 'I' {
                Some(MrzFormat::MrvB)
            } else {
                Some(MrzFormat::Td2)
            }
        }
        _ => None,
    }
}

fn field_text(text: &[Vec<char>], covers: &[(usize, usize, usize)]) -> Vec<u8> {
    covers
        .iter()
        .flat_map(|&(line, start, end)| text[line][start..end].iter().map(|&c| c as u8))
        .collect()
}

fn check_passes(text: &[Vec<char>], check: &CheckSpec) -> bool {
    let digit = text[check.at.0][check.at.1];
    let field = field_text(text, &check.covers);
    // The check digit is mrtd-mrz's; cells hold only alphabet symbols, so it is computed.
    let Some(value) = mrtd_mrz::compute_check_digit(field.iter().map(|&c| char::from(c))) else {
        return false;
    };
    let expected = char::from(b'0' + value);
    // An empty optional field may carry a filler instead of zero.
    digit == expected || (digit == '<' && expected == '0' && field.iter().all(|&c| c == b'<'))
}

/// Decodes cell candidates into an MRZ reading, repairing single characters
/// where a check digit fails and a likely alternative makes it pass.
pub fn decode_cells(lines: &[Vec<CellCandidates>]) -> Result<Reading, NotMrz> {
    let n_valid = |reading: &Reading| reading.checks.iter().filter(|c| c.valid).count();
    candidate_formats(lines)
        .into_iter()
        .map(|format| decode_as(lines, format))
        .reduce(|best, next| {
            let better = (next.valid, n_valid(&next)) > (best.valid, n_valid(&best));
            if better { next } else { best }
        })
        .ok_or(NotMrz)
}

/// Decodes cell candidates in one layout.
fn decode_as(lines: &[Vec<CellCandidates>], format: MrzFormat) -> Reading {
    let (classes, checks) = layout(format);
    let mut corrections = Vec::new();
    // Choose per position the most probable symbol its class allows.
    let mut text: Vec<Vec<char>> = Vec::new();
    let mut prob: Vec<Vec<f32>> = Vec::new();
    for (line_idx, (cells, line_classes)) in lines.iter().zip(&classes).enumerate() {
        let mut line_text = Vec::new();
        let mut line_prob = Vec::new();
        for (pos, (cell, &class)) in cells.iter().zip(line_classes).enumerate() {
            let first = cell.options.first().copied().unwrap_or(('<', 0.0));
            // A symbol the layout forbids keeps its place but counts as unread
            // (probability zero), so the reading cannot be reported as certain.
            let chosen = cell
                .options
                .iter()
                .copied()
                .find(|o| allowed(class, o.0))
                .unwrap_or((first.0, 0.0));
            if chosen.0 != first.0 {
                corrections.push(Correction {
                    line: line_idx,
                    position: pos,
                    from: first.0,
                    to: chosen.0,
                    reason: "character_class",
                });
            }
            line_text.push(chosen.0);
            line_prob.push(chosen.1);
        }
        text.push(line_text);
        prob.push(line_prob);
    }
    // Issuer and nationality must be known codes: no check digit covers them,
    // so an unknown code is replaced by the likeliest known one among the
    // candidates (a specimen-only or withdrawn code counts as known).
    for (line, start) in code_fields(format) {
        let current: String = text[line][start..start + 3].iter().collect();
        if is_known_code(&current) {
            continue;
        }
        let options: Vec<Vec<(char, f32)>> = (start..start + 3)
            .map(|pos| {
                lines[line][pos]
                    .options
                    .iter()
                    .copied()
                    .filter(|o| allowed(Class::AlphaFiller, o.0))
                    .take(3)
                    .collect()
            })
            .collect();
        let mut best: Option<(f32, [(char, f32); 3])> = None;
        for a in &options[0] {
            for b in &options[1] {
                for c in &options[2] {
                    let code: String = [a.0, b.0, c.0].iter().collect();
                    let joint = a.1 * b.1 * c.1;
                    if is_known_code(&code) && best.is_none_or(|(p, _)| joint > p) {
                        best = Some((joint, [*a, *b, *c]));
                    }
                }
            }
        }
        if let Some((_, chosen)) = best {
            for (offset, (symbol, p)) in chosen.iter().enumerate() {
                let pos = start + offset;
                if text[line][pos] != *symbol {
                    corrections.push(Correction {
                        line,
                        position: pos,
                        from: text[line][pos],
                        to: *symbol,
                        reason: "country_code",
                    });
                    text[line][pos] = *symbol;
                    // A known code among the top candidates is strong evidence in itself.
                    prob[line][pos] = p.max(0.5);
                }
            }
        }
    }
    // Repair failing check digits with the single most probable substitution.
    for check in &checks {
        if check_passes(&text, check) {
            continue;
        }
        let mut positions: Vec<(usize, usize)> = check
            .covers
            .iter()
            .flat_map(|&(line, start, end)| (start..end).map(move |pos| (line, pos)))
            .collect();
        positions.push(check.at);
        let mut best: Option<(f32, usize, usize, char, f32)> = None;
        for &(line, pos) in &positions {
            let class = classes[line][pos];
            for &(symbol, p) in lines[line][pos].options.iter() {
                if symbol == text[line][pos] || !allowed(class, symbol) || p < 0.005 {
                    continue;
                }
                let old = text[line][pos];
                text[line][pos] = symbol;
                let passes = check_passes(&text, check);
                text[line][pos] = old;
                let ratio = p / prob[line][pos].max(1e-6);
                if passes && best.is_none_or(|b| ratio > b.0) {
                    best = Some((ratio, line, pos, symbol, p));
                }
            }
        }
        if let Some((_, line, pos, symbol, p)) = best {
            corrections.push(Correction {
                line,
                position: pos,
                from: text[line][pos],
                to: symbol,
                reason: "check_digit",
            });
            text[line][pos] = symbol;
            prob[line][pos] = p;
        }
    }
    let results: Vec<Check> =
        checks.iter().map(|c| Check { field: c.field, valid: check_passes(&text, c) }).collect();
    let valid = results.iter().all(|c| c.valid);
    let covered = coverage(&checks, lines.len(), lines[0].len());
    let mut min_unchecked: f32 = 1.0;
    let mut min_all: f32 = 1.0;
    for (line, probs) in prob.iter().enumerate() {
        for (pos, &p) in probs.iter().enumerate() {
            min_all = min_all.min(p);
            if !covered[line][pos] {
                min_unchecked = min_unchecked.min(p);
            }
        }
    }
    let lines_text: Vec<String> = text.iter().map(|l| l.iter().collect()).collect();
    Reading {
        format,
        fields: fields(format, &lines_text),
        lines: lines_text,
        valid,
        checks: results,
        corrections,
        min_unchecked_confidence: min_unchecked,
        min_confidence: min_all,
    }
}

/// Which cells some check digit covers (the digits themselves included).
fn coverage(checks: &[CheckSpec], n_lines: usize, len: usize) -> Vec<Vec<bool>> {
    let mut covered = vec![vec![false; len]; n_lines];
    for check in checks {
        for &(line, start, end) in &check.covers {
            covered[line][start..end].iter_mut().for_each(|c| *c = true);
        }
        covered[check.at.0][check.at.1] = true;
    }
    covered
}

/// The probability a character no check digit covers needs under glare to be reported
/// `read` (a document code's D under a reflection was read as J).
const WASHED_OUT_MIN_P: f32 = 0.98;

/// The probability each letter of an issuer or nationality code that is no known code
/// needs to be reported `read`. Real documents print such codes (`BDR` on old German
/// specimens, `SI` on Slovenian cards), read at 0.999 and more; a `UTO` with its T under a
/// printed background pattern was read `UIO`, the I at 0.955, when no known code was
/// among the candidates for the list to settle it.
const UNKNOWN_CODE_MIN_P: f32 = 0.99;

/// The most probability a cell's other symbols of the same value modulo 10 may have for
/// a check digit over the cell to settle it: weighted by 7, 3 or 1, such a symbol changes
/// the sum by a multiple of ten, so the digit cannot tell `<` from K (0 and 20), G from
/// 6 or S from 8. A `<` in optional data read as K passed every check digit.
const BLIND_MAX_P: f32 = 0.05;

/// The probability `probability` gives the symbols the layout allows in a cell of
/// `class` that a check digit cannot tell from `symbol`.
fn blind_alternatives(class: Class, symbol: char, probability: impl Fn(char) -> f32) -> f32 {
    let residue = mrtd_mrz::char_value(symbol).unwrap_or(0) % 10;
    crate::model::ALPHABET
        .iter()
        .map(|&byte| char::from(byte))
        .filter(|&other| other != symbol && allowed(class, other))
        .filter(|&other| mrtd_mrz::char_value(other).unwrap_or(0) % 10 == residue)
        .map(probability)
        .sum()
}

/// Whether every character that no check digit covers was recognised with
/// enough confidence to be reported without a warning.
///
/// `probability(line, position, symbol)` gives the classifier's probability for
/// a symbol. Cells where a digit and a letter may both appear (optional data)
/// need near certainty, since O/0 and I/1 look alike and nothing else can tell
/// them apart; letter-only cells (names, codes) need less. Cells in a run washed out by
/// glare (`washed`: line, first and last position) need [`WASHED_OUT_MIN_P`] whatever
/// their class, since a washed-out glyph can look like another one.
/// The letters of an issuer or nationality code that is no known code need
/// [`UNKNOWN_CODE_MIN_P`].
pub(crate) fn unchecked_cells_certain(
    format: MrzFormat,
    lines: &[String],
    probability: impl Fn(usize, usize, char) -> f32,
    washed: &[(usize, usize, usize)],
) -> bool {
    let (classes, checks) = layout(format);
    if lines.len() != classes.len() || lines.iter().zip(&classes).any(|(l, c)| l.len() != c.len()) {
        return false;
    }
    let covered = coverage(&checks, classes.len(), classes[0].len());
    let symbols: Vec<Vec<char>> = lines.iter().map(|l| l.chars().collect()).collect();
    // A mod-10 check digit lets one wrong character in ten through. One doubtful
    // cell under a check digit is what it exists to settle; two or more doubtful
    // cells under the same digit can pass together by coincidence.
    for check in &checks {
        let cells = check
            .covers
            .iter()
            .flat_map(|&(line, start, end)| (start..end).map(move |pos| (line, pos)))
            .chain(std::iter::once(check.at));
        let n_doubtful =
            cells.filter(|&(line, pos)| probability(line, pos, symbols[line][pos]) < 0.8).count();
        if n_doubtful > 1 {
            return false;
        }
    }
    // Runs of cells as (line, first, last), as `washed` gives them.
    let unknown_codes: Vec<(usize, usize, usize)> = code_fields(format)
        .into_iter()
        .filter(|&(line, start)| {
            !is_known_code(&symbols[line][start..start + 3].iter().collect::<String>())
        })
        .map(|(line, start)| (line, start, start + 2))
        .collect();
    let within = |runs: &[(usize, usize, usize)], line: usize, pos: usize| {
        runs.iter().any(|&(l, first, last)| l == line && (first..=last).contains(&pos))
    };
    for (line_idx, line) in lines.iter().enumerate() {
        for (pos, symbol) in line.chars().enumerate() {
            // A symbol the layout forbids here (a document code starting with X) is a misread.
            if !allowed(classes[line_idx][pos], symbol) {
                return false;
            }
            if covered[line_idx][pos] {
                if blind_alternatives(classes[line_idx][pos], symbol, |other| {
                    probability(line_idx, pos, other)
                }) > BLIND_MAX_P
                {
                    return false;
                }
                continue;
            }
            let threshold = match classes[line_idx][pos] {
                _ if within(washed, line_idx, pos) => WASHED_OUT_MIN_P,
                _ if within(&unknown_codes, line_idx, pos) => UNKNOWN_CODE_MIN_P,
                Class::AlphaFiller | Class::DocumentCode(_) | Class::Sex => 0.7,
                // Where letters and digits may both appear and nothing checks them,
                // a look-alike pair needs the classifier to be all but certain.
                _ if "O0QDI1B8S5Z2G6".contains(symbol) => 0.98,
                _ => 0.9,
            };
            if probability(line_idx, pos, symbol) < threshold {
                return false;
            }
        }
    }
    true
}

/// Where the three-letter issuer and nationality codes are: (line, start).
fn code_fields(format: MrzFormat) -> Vec<(usize, usize)> {
    match format {
        MrzFormat::Td1 => vec![(0, 2), (1, 15)],
        MrzFormat::FraId => vec![(0, 2)],
        _ => vec![(0, 2), (1, 10)],
    }
}

/// Whether a printed three-cell code is a known issuer or nationality code.
fn is_known_code(code: &str) -> bool {
    let trimmed = code.trim_end_matches('<');
    !trimmed.is_empty()
        && !trimmed.contains('<')
        && mrtd_mrz::classify_code(trimmed).kind != mrtd_mrz::CodeKind::Unknown
}

fn trim(text: &str) -> String {
    text.trim_end_matches('<').replace('<', " ").trim().to_owned()
}

/// Splits the lines into named fields, as printed.
fn fields(format: MrzFormat, lines: &[String]) -> std::collections::BTreeMap<&'static str, String> {
    let mut map = std::collections::BTreeMap::new();
    let mut put = |name: &'static str, line: usize, start: usize, end: usize| {
        if let Some(value) = lines.get(line).and_then(|l| l.get(start..end)) {
            map.insert(name, trim(value));
        }
    };
    let name_at = match format {
        MrzFormat::Td1 => Some((2, 0, 30)),
        MrzFormat::Td2 | MrzFormat::MrvB => Some((0, 5, 36)),
        MrzFormat::Td3 | MrzFormat::MrvA => Some((0, 5, 44)),
        MrzFormat::FraId => None,
    };
    match format {
        MrzFormat::Td1 => {
            put("document_code", 0, 0, 2);
            put("issuing_state", 0, 2, 5);
            put("document_number", 0, 5, 14);
            put("optional_data_1", 0, 15, 30);
            put("birth_date", 1, 0, 6);
            put("sex", 1, 7, 8);
            put("expiry_date", 1, 8, 14);
            put("nationality", 1, 15, 18);
            put("optional_data_2", 1, 18, 29);
        }
        MrzFormat::FraId => {
            put("document_code", 0, 0, 2);
            put("issuing_state", 0, 2, 5);
            put("surname", 0, 5, 30);
            put("document_number", 1, 0, 12);
            put("given_names", 1, 13, 27);
            put("birth_date", 1, 27, 33);
            put("sex", 1, 34, 35);
        }
        _ => {
            let end = lines.first().map_or(0, String::len);
            put("document_code", 0, 0, 2);
            put("issuing_state", 0, 2, 5);
            put("document_number", 1, 0, 9);
            put("nationality", 1, 10, 13);
            put("birth_date", 1, 13, 19);
            put("sex", 1, 20, 21);
            put("expiry_date", 1, 21, 27);
            let optional_end = if format == MrzFormat::Td3 {
                42
            } else if format == MrzFormat::Td2 {
                35
            } else {
                end
            };
            put("optional_data", 1, 28, optional_end);
        }
    }
    if let Some((line, start, end)) = name_at
        && let Some(name) = lines.get(line).and_then(|l| l.get(start..end))
    {
        let (surname, given) = name.split_once("<<").unwrap_or((name, ""));
        map.insert("surname", trim(surname));
        map.insert("given_names", trim(given));
    }
    map
}

#[cfg(test)]
mod tests;
