//! Shadows with sharp edges: a hand or a phone held over the page casts one, and where its
//! edge runs along the zone the local mean threshold sees a band of ink beside it and cells
//! half in the shadow read wrongly. The photo is divided by its paper, estimated so that the
//! shadow's edge stays where it is.

use crate::cells::CellGeometry;
use crate::gray::Gray;
use crate::locate::{WorkImage, ink_radius};
use std::collections::VecDeque;

/// The paper of the working image: a morphological closing (the brightest pixel near each,
/// then the darkest of those) over a square half as wide as the ink threshold's window. It
/// fills print thinner than the square and keeps a shadow's edge sharp, where a mean or a
/// blur would spread it over the square.
pub(crate) fn paper(work: &WorkImage) -> Gray {
    closing(&work.image, (ink_radius(&work.image) / 2).max(3))
}

/// How much darker than the zone's brightest paper its darkest may be before a shadow is
/// said to lie over it.
const SHADOW: f32 = 0.75;

/// Whether `paper` (of the working image) under `cells` (original pixels, `scale` working
/// pixels to one) is a quarter darker in places than elsewhere: a shadow over the zone.
pub(crate) fn shadowed(paper: &Gray, cells: &[Vec<CellGeometry>], scale: f32) -> bool {
    let levels = cells
        .iter()
        .flatten()
        .map(|cell| paper.bilinear(cell.centre.0 * scale, cell.centre.1 * scale));
    let (darkest, brightest) =
        levels.fold((f32::MAX, 0.0f32), |(lo, hi), level| (lo.min(level), hi.max(level)));
    darkest < SHADOW * brightest
}

/// The photo and its working image with `paper` (of the working image) brought to white.
pub(crate) fn flatten(original: &Gray, work: &WorkImage, paper: &Gray) -> (Gray, WorkImage) {
    let flat_work = divide(&work.image, |x, y| f32::from(paper.data[y * paper.width + x]));
    let flat = divide(original, |x, y| {
        paper.bilinear((x as f32 + 0.5) * work.scale, (y as f32 + 0.5) * work.scale)
    });
    (flat, WorkImage { image: flat_work, scale: work.scale })
}

/// `image` with each pixel scaled so that `paper(x, y)` becomes white.
fn divide(image: &Gray, paper: impl Fn(usize, usize) -> f32) -> Gray {
    let mut out = image.clone();
    for y in 0..image.height {
        for x in 0..image.width {
            let pixel = &mut out.data[y * image.width + x];
            let level = paper(x, y).max(1.0);
            *pixel = (f32::from(*pixel) * 255.0 / level).round().min(255.0) as u8;
        }
    }
    out
}

/// The brightest pixel within `radius` of each (a square), then the darkest of those.
fn closing(image: &Gray, radius: usize) -> Gray {
    let dilated = filter(image, radius, |a, b| a > b);
    filter(&dilated, radius, |a, b| a < b)
}

/// Each pixel replaced by the winner of `beats` over the square within `radius` of it, by
/// rows and then by columns, each a sliding window over a queue of candidates.
fn filter(image: &Gray, radius: usize, beats: impl Fn(u8, u8) -> bool + Copy) -> Gray {
    let (w, h) = (image.width, image.height);
    let mut rows = image.clone();
    for y in 0..h {
        slide(&image.data[y * w..][..w], radius, beats, |x, v| rows.data[y * w + x] = v);
    }
    let mut out = rows.clone();
    let mut column = vec![0u8; h];
    for x in 0..w {
        for (y, value) in column.iter_mut().enumerate() {
            *value = rows.data[y * w + x];
        }
        slide(&column, radius, beats, |y, v| out.data[y * w + x] = v);
    }
    out
}

/// The winner of `beats` over `line[i - radius..=i + radius]` (within the line) for each
/// `i`, handed to `put`.
fn slide(
    line: &[u8],
    radius: usize,
    beats: impl Fn(u8, u8) -> bool,
    mut put: impl FnMut(usize, u8),
) {
    // Indices whose values no later value beats, in order: the front is the winner.
    let mut queue: VecDeque<usize> = VecDeque::new();
    for end in 0..line.len() + radius {
        if end < line.len() {
            while queue.back().is_some_and(|&k| !beats(line[k], line[end])) {
                queue.pop_back();
            }
            queue.push_back(end);
        }
        let Some(centre) = end.checked_sub(radius) else { continue };
        while queue.front().is_some_and(|&k| k + radius < centre) {
            queue.pop_front();
        }
        if let Some(&winner) = queue.front() {
            put(centre, line[winner]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sliding_window_finds_what_a_plain_search_finds() {
        let line: Vec<u8> = (0..40u32).map(|i| ((i * 37 + 11) % 97) as u8).collect();
        for radius in [0, 1, 3, 7] {
            let mut got = vec![0; line.len()];
            slide(&line, radius, |a, b| a > b, |i, v| got[i] = v);
            let want: Vec<u8> = (0..line.len())
                .map(|i| {
                    let (a, b) = (i.saturating_sub(radius), (i + radius + 1).min(line.len()));
                    *line[a..b].iter().max().expect("a window")
                })
                .collect();
            assert_eq!(got, want, "radius {radius}");
        }
    }

    #[test]
    fn a_shadows_edge_stays_sharp_and_the_print_on_both_sides_keeps_its_contrast() {
        // Lit paper (220) above row 40, shadowed (90) below; a dark glyph stroke 3 px wide
        // crossing the edge, in ink at a fifth of the paper's light.
        let (width, height) = (200, 80);
        let mut data = vec![0u8; width * height];
        for y in 0..height {
            for x in 0..width {
                let paper: u16 = if y < 40 { 220 } else { 90 };
                let ink = (99..102).contains(&x) && (20..60).contains(&y);
                data[y * width + x] = if ink { (paper / 5) as u8 } else { paper as u8 };
            }
        }
        let original = Gray { width, height, data };
        let work = WorkImage { image: original.clone(), scale: 1.0 };
        let (flat, flat_work) = flatten(&original, &work, &paper(&work));
        for image in [&flat, &flat_work.image] {
            let at = |x: usize, y: usize| image.data[y * width + x];
            // Paper white on both sides, up to the edge; ink dark on both sides.
            assert!(
                [(20, 38), (20, 39), (20, 40), (20, 41), (150, 70)]
                    .iter()
                    .all(|&(x, y)| at(x, y) >= 250)
            );
            assert!(at(100, 30) <= 60 && at(100, 50) <= 60, "{} {}", at(100, 30), at(100, 50));
        }
    }

    #[test]
    fn a_zone_is_shadowed_where_its_paper_is_a_quarter_darker_in_places() {
        let paper = Gray {
            width: 100,
            height: 10,
            data: (0..1000).map(|i| if i % 100 < 50 { 220 } else { 150 }).collect(),
        };
        let cell =
            |x: f32| CellGeometry { centre: (x, 5.0), along: (1.0, 0.0), across: (0.0, 1.0) };
        let lit = vec![(10..40).map(|x| cell(x as f32)).collect::<Vec<_>>()];
        assert!(!shadowed(&paper, &lit, 1.0));
        let across_the_edge = vec![(30..70).map(|x| cell(x as f32)).collect::<Vec<_>>()];
        assert!(shadowed(&paper, &across_the_edge, 1.0));
        // Cells in original pixels, twice the working image's.
        assert!(!shadowed(&paper, &across_the_edge, 0.5));
    }
}
