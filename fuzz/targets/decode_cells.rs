//! Fuzzes the candidate decoder: arbitrary per-cell candidates in every zone shape must decode
//! or be refused without panicking.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mrtd_mrz::{CellCandidates, Date, ParseOptions, decode_cells};

/// Zone shapes, plus one invalid shape so the refusal path is exercised too.
const SHAPES: [(usize, usize); 4] = [(3, 30), (2, 36), (2, 44), (2, 30)];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    let (n_lines, width) = SHAPES[usize::from(selector) % SHAPES.len()];
    // Each cell takes three bytes: top character, second character, and the top's probability.
    let mut chunks = rest.chunks(3);
    let lines: Vec<Vec<CellCandidates>> = (0..n_lines)
        .map(|_| {
            (0..width)
                .map(|_| match chunks.next() {
                    Some([first, second, weight]) => {
                        let p = f32::from(*weight) / 255.0;
                        CellCandidates {
                            options: vec![(char::from(*first), p), (char::from(*second), 1.0 - p)],
                            // A quarter of the cells (by their weight byte) as unseen.
                            unseen: weight % 4 == 0,
                        }
                    }
                    _ => CellCandidates::certain('<'),
                })
                .collect()
        })
        .collect();
    let options = ParseOptions::new(Date { year: 2026, month: 11, day: 29 });
    let _ = decode_cells(&lines, &options);
});
