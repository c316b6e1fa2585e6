//! Fixtures for the tests of this crate and of the crates above it (feature `test-support`,
//! which only their dev-dependencies turn on): recogniser candidates made from known lines.

use crate::CellCandidates;

/// Candidates for `lines`: each cell's true character with the probability `p(line, column)`
/// and an unlikely other one (`X`, or `Y` for an `X`); the `misread` cells put that other
/// character on top instead (0.85 against 0.15). Lines and columns count from 0.
pub fn candidates(
    lines: &[&str],
    p: impl Fn(usize, usize) -> f32,
    misread: &[(usize, usize)],
) -> Vec<Vec<CellCandidates>> {
    lines
        .iter()
        .enumerate()
        .map(|(line, text)| {
            text.chars()
                .enumerate()
                .map(|(column, truth)| {
                    let other = if truth == 'X' { 'Y' } else { 'X' };
                    let options = if misread.contains(&(line, column)) {
                        vec![(other, 0.85), (truth, 0.15)]
                    } else {
                        vec![(truth, p(line, column)), (other, 0.01)]
                    };
                    CellCandidates::new(options)
                })
                .collect()
        })
        .collect()
}
