//! From input lines to a grid of the right shape, and which format it is.

use crate::candidates::{digit_for, in_alphabet, letter_for};
use crate::check_digit::{agrees, compute};
use crate::layout::{Format, Layout, field_chars};
use crate::reading::{Warning, WarningCode};

/// The input is not a machine readable zone at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotMrz {
    /// Wrong number or length of lines.
    #[error("expected 2 or 3 lines of 30, 36 or 44 characters, got {got}")]
    Shape {
        /// What the input had, e.g. "1 line of 11 characters".
        got: String,
    },
    /// Line 1 does not start with a document code letter.
    #[error("line 1 does not start with a document code letter (got {first:?})")]
    NoDocumentCode {
        /// The first character of line 1.
        first: char,
    },
    /// Too much of the input is outside the MRZ alphabet (`A`-`Z`, `0`-`9`, `<`).
    #[error("{n_invalid} of {n_cells} characters are outside the MRZ alphabet")]
    NotMrzText {
        /// Characters outside the alphabet.
        n_invalid: usize,
        /// All characters.
        n_cells: usize,
    },
}

/// Describes line lengths for an error message.
fn describe(lines: &[Vec<char>]) -> String {
    match lines {
        [] => "no lines".to_owned(),
        [line] => format!("1 line of {} characters", line.len()),
        _ => {
            let lengths: Vec<String> = lines.iter().map(|line| line.len().to_string()).collect();
            format!("{} lines of {} characters", lines.len(), lengths.join(", "))
        }
    }
}

/// Normalises one text line: no whitespace, uppercase ASCII, `«` (a misread `<<`) expanded.
fn normalise_line(line: &str) -> Vec<char> {
    let mut chars = Vec::with_capacity(line.len());
    for c in line.chars().filter(|c| !c.is_whitespace()) {
        match c {
            '«' => chars.extend(['<', '<']),
            '‹' | '＜' => chars.push('<'),
            _ => chars.push(c.to_ascii_uppercase()),
        }
    }
    chars
}

/// Splits text into lines, drops empty ones and splits a single run-together zone.
pub(crate) fn text_lines(input: &[&str]) -> Vec<Vec<char>> {
    let mut lines: Vec<Vec<char>> = input
        .iter()
        .flat_map(|text| text.split(['\n', '\r']))
        .map(normalise_line)
        .filter(|line| !line.is_empty())
        .collect();
    if let [line] = lines.as_slice() {
        let parts = match line.len() {
            90 => 3,
            72 | 88 => 2,
            _ => 1,
        };
        if parts > 1 {
            let width = line.len() / parts;
            lines = line.chunks(width).map(<[char]>::to_vec).collect();
        }
    }
    lines
}

/// The shapes an MRZ comes in, as (lines, characters per line): the one place their sizes
/// are written ([`Format::shape`] gives each format's).
pub const ZONE_SHAPES: [(usize, usize); 3] = [(3, 30), (2, 44), (2, 36)];

/// The line widths of the zones with `lines` lines, shortest first: `[30]` for three lines,
/// `[36, 44]` for two, none otherwise.
pub fn line_widths(lines: usize) -> Vec<usize> {
    let mut widths: Vec<usize> =
        ZONE_SHAPES.iter().filter(|shape| shape.0 == lines).map(|shape| shape.1).collect();
    widths.sort_unstable();
    widths
}

/// Brings text lines to a common width, padding or trimming trailing fillers by up to two cells
/// (recognisers drop or repeat cells in long `<` runs), or explains why the shape is wrong.
pub(crate) fn fit_width(lines: Vec<Vec<char>>) -> Result<(Vec<Vec<char>>, Vec<Warning>), NotMrz> {
    let shape_error = |lines: &[Vec<char>]| NotMrz::Shape { got: describe(lines) };
    // Three lines have one width; of two, the longer width any line has exactly.
    let widths = line_widths(lines.len());
    let width = match widths[..] {
        [width] => width,
        _ => match widths.iter().rev().find(|&&width| lines.iter().any(|l| l.len() == width)) {
            Some(&width) => width,
            None => return Err(shape_error(&lines)),
        },
    };
    let mut warnings = Vec::new();
    let mut fitted = Vec::with_capacity(lines.len());
    for (line_idx, line) in lines.iter().enumerate() {
        let mut line = line.clone();
        if line.len() != width {
            let fixable = line.len().abs_diff(width) <= 2
                && if line.len() < width {
                    line.last() == Some(&'<')
                } else {
                    line[width..].iter().all(|c| *c == '<')
                };
            if !fixable {
                return Err(shape_error(&lines));
            }
            warnings.push(Warning {
                code: WarningCode::LineLengthAdjusted,
                message: format!(
                    "line {} had {} characters; fillers were {} at its end",
                    line_idx + 1,
                    line.len(),
                    if line.len() < width { "added" } else { "removed" }
                ),
                line: Some(line_idx + 1),
                column: None,
            });
            line.resize(width, '<');
        }
        fitted.push(line);
    }
    Ok((fitted, warnings))
}

/// Finds the zone in text with other lines around it (a header, a caption): the last run of
/// consecutive lines with an exact zone shape, since the zone is printed at the bottom.
pub(crate) fn select_zone(lines: Vec<Vec<char>>) -> Result<(Vec<Vec<char>>, Vec<Warning>), NotMrz> {
    let n_lines = lines.len();
    let fitted = fit_width(lines.clone());
    if fitted.is_ok() || n_lines < 3 {
        return fitted;
    }
    let exact = |start: usize, n: usize, width: usize| {
        lines.get(start..start + n).is_some_and(|run| run.iter().all(|line| line.len() == width))
    };
    let zone = (0..n_lines).rev().find_map(|start| {
        ZONE_SHAPES.into_iter().find(|(n, width)| exact(start, *n, *width)).map(|(n, _)| (start, n))
    });
    let Some((start, n)) = zone else { return fitted };
    let warning = Warning {
        code: WarningCode::LinesIgnored,
        message: format!(
            "{} of {n_lines} lines are not part of the zone and were ignored",
            n_lines - n
        ),
        line: None,
        column: None,
    };
    Ok((lines[start..start + n].to_vec(), vec![warning]))
}

/// Checks that a grid (already of a valid shape) reads as MRZ text at all.
///
/// A zone always starts with a document code letter, and even a poor read is mostly MRZ
/// characters: a quarter or more outside the alphabet means this is some other text.
pub(crate) fn plausibility(grid: &[Vec<char>]) -> Result<(), NotMrz> {
    let n_cells: usize = grid.iter().map(Vec::len).sum();
    let n_invalid = grid.iter().flatten().filter(|c| !in_alphabet(**c)).count();
    if n_invalid * 4 > n_cells {
        return Err(NotMrz::NotMrzText { n_invalid, n_cells });
    }
    let first = grid.first().and_then(|line| line.first()).copied().unwrap_or('<');
    let letter = letter_for(first).unwrap_or(first);
    if !letter.is_ascii_uppercase() {
        return Err(NotMrz::NoDocumentCode { first });
    }
    Ok(())
}

/// How many check digits a layout verifies on the grid as it stands.
fn n_verified(layout: &Layout, grid: &[Vec<char>]) -> u32 {
    layout
        .checks
        .iter()
        .filter(|spec| {
            let Some((line, column)) = spec.digit else { return false };
            let computed = compute(field_chars(grid, &spec.spans));
            let printed = grid.get(line).and_then(|row| row.get(column)).copied();
            matches!((printed, computed), (Some(p), Some(c)) if agrees(p, c))
        })
        .fold(0, |n, _| n + 1)
}

/// What a line 2 cell holds in a layout: `D` digits, `L` letters or fillers, `S` the sex cell.
type Structure = [(usize, usize, char); 4];

/// Old French ID line 2: issue YYMM, first given-name letter, birth date, sex (1-based).
const FRENCH_LINE2: Structure = [(1, 4, 'D'), (14, 14, 'L'), (28, 33, 'D'), (35, 35, 'S')];

/// TD2 line 2: nationality, birth date, sex, expiry date (1-based).
const TD2_LINE2: Structure = [(11, 13, 'L'), (14, 19, 'D'), (21, 21, 'S'), (22, 27, 'D')];

/// The fraction of structured line 2 cells that hold what the layout expects there.
fn structure(grid: &[Vec<char>], expected: &Structure) -> f64 {
    let Some(line) = grid.get(1) else { return 0.0 };
    let mut n_cells = 0u32;
    let mut n_matching = 0u32;
    for &(first, last, kind) in expected {
        for column in first..=last {
            let c = line.get(column - 1).copied().unwrap_or(' ');
            let matches = match kind {
                'D' => c.is_ascii_digit() || digit_for(c).is_some(),
                'L' => c.is_ascii_uppercase() || c == '<',
                _ => matches!(c, 'M' | 'F' | '<'),
            };
            n_cells += 1;
            n_matching += u32::from(matches);
        }
    }
    f64::from(n_matching) / f64::from(n_cells.max(1))
}

/// Decides the format of a grid of valid shape.
pub(crate) fn detect_format(grid: &[Vec<char>]) -> Result<Format, NotMrz> {
    let width = grid.first().map_or(0, Vec::len);
    let lead: Vec<char> = grid
        .first()
        .map(|line| line.iter().take(5).map(|c| letter_for(*c).unwrap_or(*c)).collect())
        .unwrap_or_default();
    let format = match (grid.len(), width) {
        (3, 30) => Format::Td1,
        (2, 44) if lead.first() == Some(&'V') => Format::MrvA,
        (2, 44) => Format::Td3,
        (2, 36) if lead.first() == Some(&'V') => Format::MrvB,
        (2, 36) if lead == ['I', 'D', 'F', 'R', 'A'] => {
            // The old French card shares TD2's shape and prefix: check digits and the line 2
            // structure of each layout decide.
            let french = f64::from(n_verified(&Layout::new(Format::FraId, grid), grid))
                + 3.0 * structure(grid, &FRENCH_LINE2);
            let td2 = f64::from(n_verified(&Layout::new(Format::Td2, grid), grid))
                + 3.0 * structure(grid, &TD2_LINE2);
            if td2 > french { Format::Td2 } else { Format::FraId }
        }
        (2, 36) => Format::Td2,
        _ => {
            let lines: Vec<Vec<char>> = grid.to_vec();
            return Err(NotMrz::Shape { got: describe(&lines) });
        }
    };
    Ok(format)
}

/// Checks the shape of recogniser output. Cells are positional, so unlike text no padding or
/// trimming is attempted: a missing cell would shift every field after it.
pub(crate) fn check_cells_shape(lengths: &[usize]) -> Result<(), NotMrz> {
    let ok = lengths.first().is_some_and(|&width| {
        ZONE_SHAPES.contains(&(lengths.len(), width)) && lengths.iter().all(|&len| len == width)
    });
    if ok {
        return Ok(());
    }
    let got = match lengths {
        [] => "no lines".to_owned(),
        [len] => format!("1 line of {len} cells"),
        _ => {
            let list: Vec<String> = lengths.iter().map(ToString::to_string).collect();
            format!("{} lines of {} cells", lengths.len(), list.join(", "))
        }
    };
    Err(NotMrz::Shape { got })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_normalises() {
        let lines = text_lines(&["  p<uto eriksson\n", "", "L898 902"]);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].iter().collect::<String>(), "P<UTOERIKSSON");
        let joined = "I".repeat(90);
        assert_eq!(text_lines(&[joined.as_str()]).len(), 3);
    }

    #[test]
    fn pads_short_filler_lines_only() {
        let short: Vec<char> = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<".chars().collect();
        let full: Vec<char> = "L898902C36UTO7408122F1204159ZE184226B<<<<<10".chars().collect();
        let (grid, warnings) = fit_width(vec![short, full.clone()]).unwrap();
        assert_eq!(grid[0].len(), 44);
        assert_eq!(warnings.len(), 1);
        let truncated: Vec<char> = full[..43].to_vec();
        assert!(fit_width(vec![full, truncated]).is_err());
    }

    #[test]
    fn finds_the_zone_below_other_text() {
        let lines = text_lines(&[
            "REPUBLIC OF UTOPIA",
            "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
            "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
            "",
        ]);
        let (grid, warnings) = select_zone(lines).unwrap();
        assert_eq!(grid.len(), 2);
        assert_eq!(grid[0][0], 'P');
        assert_eq!(warnings[0].code, WarningCode::LinesIgnored);
        assert!(select_zone(text_lines(&["A", "B", "C", "D"])).is_err());
    }

    #[test]
    fn every_format_has_one_of_the_zone_shapes() {
        use Format::*;
        for format in [Td1, Td2, Td3, MrvA, MrvB, FraId] {
            assert!(ZONE_SHAPES.contains(&format.shape()), "{format:?}");
        }
        assert_eq!(line_widths(3), [30]);
        assert_eq!(line_widths(2), [36, 44]);
        assert!(line_widths(1).is_empty() && line_widths(4).is_empty());
    }

    #[test]
    fn error_messages_name_the_shape() {
        let error = fit_width(vec!["HELLO".chars().collect()]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "expected 2 or 3 lines of 30, 36 or 44 characters, got 1 line of 5 characters"
        );
        assert!(check_cells_shape(&[30, 30, 30]).is_ok());
        assert!(check_cells_shape(&[44, 36]).is_err());
    }
}
