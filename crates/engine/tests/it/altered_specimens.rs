//! Reads the twelve real specimens after turning them to arbitrary angles, scaling them and
//! darkening, glaring or blurring them, as phone photos of the same documents would be:
//! the ten that are not thumbnails must still be read exactly every time, the two thumbnails
//! (under 300 px wide) most times, and none may be read wrongly with status `read`. Then
//! bent, as a booklet page that does not lie flat, and in strong perspective, where the
//! verticals of the page converge or its far side shrinks; with a page edge running into the
//! last line, as a folded corner or a holder leaves it; shrunk to 250-px thumbnails, upright
//! and upside down; struck through with a pen, and framed as a scanning app frames the zone;
//! boxed in red and struck in blue, as an app's overlay and a pen mark a colour photo;
//! blurred along the lines, as a phone that moved while the shutter was open blurs them; and
//! under a shadow with a hard edge across the zone.

use crate::support;

use mrtd_engine::geometry::{Homography, distance_to_segment};
use mrtd_engine::gray::Gray;
use mrtd_engine::{DiagnosticCode, EngineBuilder, ImageReading, ParseOptions, Status};
use support::{data_dir, manifest};

/// What is done to the photo after it is turned and scaled.
#[derive(Clone, Copy, Debug)]
enum Light {
    Plain,
    /// Half the light, with sensor noise.
    Dark,
    /// A bright reflection centred on the MRZ's side of the page.
    Glare,
    /// Out of focus: a 3x3 box blur, twice.
    Blur,
}

/// A deterministic noise source (64-bit LCG), so that the test reads the same photos each run.
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> f32 {
        self.0 =
            self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 40) as f32 / (1u64 << 24) as f32) - 0.5
    }
}

/// A specimen of `tests/data/images` in gray.
fn load_gray(file: &str) -> Gray {
    let bytes = std::fs::read(data_dir().join(file)).expect("a specimen image");
    let luma = image::load_from_memory(&bytes).expect("a decodable specimen").into_luma8();
    Gray { width: luma.width() as usize, height: luma.height() as usize, data: luma.into_raw() }
}

/// Samples `src` at (x, y), pixel centres at the integers, with the engine's bilinear
/// interpolation; outside the image, `background`.
fn sample(src: &Gray, x: f32, y: f32, background: f32) -> f32 {
    if x < 0.0 || y < 0.0 || x > (src.width - 1) as f32 || y > (src.height - 1) as f32 {
        return background;
    }
    src.bilinear(x + 0.5, y + 0.5)
}

fn box_blur(image: &mut Gray) {
    let (w, h) = (image.width, image.height);
    let src = image.data.clone();
    for y in 0..h {
        for x in 0..w {
            let mut sum = 0u32;
            let mut n = 0u32;
            for dy in y.saturating_sub(1)..(y + 2).min(h) {
                for dx in x.saturating_sub(1)..(x + 2).min(w) {
                    sum += u32::from(src[dy * w + dx]);
                    n += 1;
                }
            }
            image.data[y * w + x] = (sum / n) as u8;
        }
    }
}

/// The specimen turned by `degrees` about its centre, scaled by `scale`, on a margin of
/// background a fifth of its size, then lit as `light` says.
fn alter(src: &Gray, degrees: f32, scale: f32, light: Light, seed: u64) -> Gray {
    let (sin, cos) = degrees.to_radians().sin_cos();
    let (w, h) = (src.width as f32 * scale, src.height as f32 * scale);
    let out_w = (w * cos.abs() + h * sin.abs()) * 1.2;
    let out_h = (w * sin.abs() + h * cos.abs()) * 1.2;
    let (width, height) = (out_w.ceil() as usize, out_h.ceil() as usize);
    let background = 90.0;
    let mut noise = Noise(seed);
    let (cx, cy) = (out_w / 2.0, out_h / 2.0);
    let (sx, sy) = (src.width as f32 / 2.0, src.height as f32 / 2.0);
    let glare_at = (cx + 0.25 * out_w * cos, cy + 0.25 * out_h * sin);
    let glare_radius = 0.25 * out_w.max(out_h);
    let mut data = Vec::with_capacity(width * height);
    for y in 0..height {
        for x in 0..width {
            let (dx, dy) = (x as f32 - cx, y as f32 - cy);
            // The inverse turn, then the inverse scale, into the specimen's pixels.
            let u = (dx * cos + dy * sin) / scale + sx;
            let v = (-dx * sin + dy * cos) / scale + sy;
            let mut value = sample(src, u, v, background);
            match light {
                Light::Plain | Light::Blur => {}
                Light::Dark => value = value * 0.45 + noise.next() * 12.0,
                Light::Glare => {
                    let d2 = (x as f32 - glare_at.0).powi(2) + (y as f32 - glare_at.1).powi(2);
                    value += 120.0 * (-d2 / (2.0 * glare_radius * glare_radius)).exp();
                }
            }
            data.push(value.round().clamp(0.0, 255.0) as u8);
        }
    }
    let mut image = Gray { width, height, data };
    if matches!(light, Light::Blur) {
        box_blur(&mut image);
        box_blur(&mut image);
    }
    image
}

#[test]
fn altered_specimens_are_read_and_never_read_wrongly() {
    let engine = EngineBuilder::new().build();
    let angles = [-17.0, 8.0, 23.0, 96.0, 169.0, 274.0];
    let lights = [Light::Plain, Light::Dark, Light::Glare, Light::Blur];
    let (mut n_thumbnails, mut thumbnails_exact) = (0usize, 0usize);
    let mut misses = Vec::new();
    for (idx, (file, truth)) in manifest().iter().enumerate() {
        let specimen = load_gray(file);
        let thumbnail = specimen.width < 300;
        for (k, &angle) in angles.iter().enumerate() {
            let light = lights[(idx + k) % lights.len()];
            // Large specimens are also read at two thirds of their size.
            let scale = if specimen.width > 1000 && k % 2 == 1 { 0.67 } else { 1.0 };
            let photo = alter(&specimen, angle, scale, light, (idx * 31 + k) as u64);
            let reading = engine.read_gray(&photo, &ParseOptions::default());
            let lines = reading.reading.as_ref().map(|r| r.lines.join("|")).unwrap_or_default();
            let what = format!("{file} at {angle} degrees, {light:?}, scale {scale}");
            n_thumbnails += usize::from(thumbnail);
            if &lines == truth {
                thumbnails_exact += usize::from(thumbnail);
                continue;
            }
            assert_ne!(reading.status, Status::Read, "{what}: read {lines}");
            if thumbnail {
                misses.push(format!("{what}: {:?} {lines}", reading.status));
            } else {
                panic!("{what}: {:?} {lines}, truth {truth}", reading.status);
            }
        }
    }
    assert_eq!(n_thumbnails, 12);
    // Blurred, a thumbnail's glyphs are 5 px of mush; turned and lit otherwise, they read.
    assert!(
        thumbnails_exact >= 8,
        "thumbnails: {thumbnails_exact} of 12; misses:\n{}",
        misses.join("\n")
    );
}

/// How a page is out of the flat and square.
#[derive(Clone, Copy, Debug)]
enum Warp {
    /// A page curling away from the camera at both sides: each column sinks by
    /// `sag` of the page's height times the square of its distance from the
    /// middle (in half widths).
    Bent { sag: f32 },
    /// Seen from below the bottom edge: the top edge is `top` of the bottom
    /// edge's width, and the sides run straight between them.
    Keystone { top: f32 },
    /// Seen from beyond its right edge, in a true perspective: the left edge is `far`
    /// of the right edge's height, and the page's left part is foreshortened to match.
    SideView { far: f32 },
}

/// The specimen warped, on a margin of background a tenth of its size on each side.
fn warp(src: &Gray, how: Warp) -> Gray {
    let margin = src.width.max(src.height) / 10;
    let (width, height) = (src.width + 2 * margin, src.height + 2 * margin);
    let (w, h) = (src.width as f32, src.height as f32);
    let cx = w / 2.0;
    // From the photo back to the page: the page's corners seen as a trapezoid.
    let side_view = match how {
        Warp::SideView { far } => {
            let inset = h * (1.0 - far) / 2.0;
            let seen = [(0.0, inset), (w, 0.0), (w, h), (0.0, h - inset)];
            Homography::from_corners(seen, [(0.0, 0.0), (w, 0.0), (w, h), (0.0, h)])
        }
        _ => None,
    };
    let mut data = Vec::with_capacity(width * height);
    for y in 0..height {
        for x in 0..width {
            // In the specimen's pixels; the margin falls outside it, on the background.
            let (px, py) = (x as f32 - margin as f32, y as f32 - margin as f32);
            let (u, v) = match how {
                Warp::SideView { .. } => side_view.as_ref().expect("a trapezoid").apply((px, py)),
                Warp::Bent { sag } => {
                    let side = (px - cx) / cx;
                    (px, py - sag * h * side * side)
                }
                Warp::Keystone { top } => {
                    let across = top + (1.0 - top) * (py / h).clamp(0.0, 1.0);
                    (cx + (px - cx) / across, py)
                }
            };
            data.push(sample(src, u, v, 90.0).round() as u8);
        }
    }
    Gray { width, height, data }
}

#[test]
fn bent_keystoned_and_side_viewed_specimens_are_read_and_never_read_wrongly() {
    let engine = EngineBuilder::new().build();
    let warps = [
        Warp::Bent { sag: 0.03 },
        Warp::Bent { sag: 0.06 },
        Warp::Keystone { top: 0.8 },
        Warp::Keystone { top: 0.6 },
        Warp::SideView { far: 0.8 },
        Warp::SideView { far: 0.6 },
    ];
    let mut exact = vec![0usize; warps.len()];
    let mut misses = Vec::new();
    for (file, truth) in manifest() {
        let specimen = load_gray(&file);
        for (k, &how) in warps.iter().enumerate() {
            let reading = engine.read_gray(&warp(&specimen, how), &ParseOptions::default());
            let lines = reading.reading.as_ref().map(|r| r.lines.join("|")).unwrap_or_default();
            if lines == truth {
                exact[k] += 1;
                continue;
            }
            assert_ne!(reading.status, Status::Read, "{file}, {how:?}: read {lines}");
            misses.push(format!("{file}, {how:?}: {:?} {lines}", reading.status));
        }
    }
    // Rows fitted as straight lines read 1 of the 12 at either bend; square cells, and
    // one shift to give a line the columns of the next, read 9 under the stronger keystone;
    // glyphs numbered in the row's median pitch read 1 in the steeper side view.
    let want = [12, 12, 12, 11, 11, 10];
    assert!(
        exact.iter().zip(want).all(|(got, want)| *got >= want),
        "exact per warp {exact:?}, want at least {want:?}; misses:\n{}",
        misses.join("\n")
    );
}

/// The specimen with the photo's background over the page beyond a straight edge that
/// runs into the last MRZ line from below: at the first character it stands `depth`
/// of a glyph's height above the glyph's foot, and it leaves the line `reach`
/// characters on, as a page whose corner is folded back or lies off the edge of a
/// holder. `last` is that line's cells as read on the clean specimen; `None` when it
/// has no cell `reach`.
fn cut_last_line(
    src: &Gray,
    last: &[mrtd_engine::cells::CellGeometry],
    depth: f32,
    reach: usize,
) -> Option<Gray> {
    let (first, on) = (last.first()?, last.get(reach)?);
    let foot = |c: &mrtd_engine::cells::CellGeometry, below: f32| {
        (c.centre.0 + c.across.0 * below, c.centre.1 + c.across.1 * below)
    };
    let start = foot(first, 0.5 - depth);
    let end = foot(on, 0.6);
    // The page lies on the side of the edge where the glyphs' centres are.
    let side =
        |x: f32, y: f32| (end.0 - start.0) * (y - start.1) - (end.1 - start.1) * (x - start.0);
    let page_side = side(first.centre.0, first.centre.1).signum();
    let mut noise = Noise(u64::from(reach as u32) * 31 + (depth * 100.0) as u64);
    Some(repaint(src, |x, y, pixel| {
        if side(x as f32 + 0.5, y as f32 + 0.5).signum() == page_side {
            return pixel;
        }
        (95.0 + 20.0 * ((x as f32 / 9.0).sin() + noise.next())).round() as u8
    }))
}

/// `src` with each pixel `(x, y)` replaced by what `paint` makes of it, row by row.
fn repaint(src: &Gray, mut paint: impl FnMut(usize, usize, u8) -> u8) -> Gray {
    let mut image = src.clone();
    for y in 0..src.height {
        for x in 0..src.width {
            let pixel = &mut image.data[y * src.width + x];
            *pixel = paint(x, y, *pixel);
        }
    }
    image
}

/// The specimen in `file` and the cells of its zone read clean.
fn specimen_and_cells(
    engine: &mrtd_engine::Engine,
    file: &str,
) -> (Gray, Vec<Vec<mrtd_engine::cells::CellGeometry>>) {
    let specimen = load_gray(file);
    let (_, cells) = engine.read_gray_with_cells(&specimen, &ParseOptions::default());
    let cells = cells.unwrap_or_else(|| panic!("{file}: no cells on the clean specimen"));
    (specimen, cells)
}

#[test]
fn specimens_whose_last_line_a_page_edge_cuts_are_never_read_wrongly() {
    let engine = EngineBuilder::new().build();
    let mut n_exact = 0;
    let mut wrong = Vec::new();
    for (file, truth) in manifest() {
        let specimen = load_gray(&file);
        let (_, cells) = engine.read_gray_with_cells(&specimen, &ParseOptions::default());
        let last = cells
            .and_then(|mut lines| lines.pop())
            .unwrap_or_else(|| panic!("{file}: no cells on the clean specimen"));
        for (depth, reach) in
            [(0.1, 6), (0.2, 6), (0.3, 4), (0.45, 4), (0.3, 8), (0.45, 8), (0.6, 6)]
        {
            let cut = cut_last_line(&specimen, &last, depth, reach)
                .unwrap_or_else(|| panic!("{file}: no cell {reach} on its last line"));
            let reading = engine.read_gray(&cut, &ParseOptions::default());
            let lines = reading.reading.as_ref().map(|r| r.lines.join("|")).unwrap_or_default();
            if lines == truth {
                n_exact += 1;
            } else if reading.status == Status::Read {
                wrong.push(format!("{file}, depth {depth}, reach {reach}: read {lines}"));
            }
        }
    }
    // Cells whose margin the background covers were read confidently and wrongly, and
    // two or three such misreads can cancel in a check digit: D231458907 read L23145S9O7
    // with every check passing, status read. Such cells are no longer vouched for.
    assert!(wrong.is_empty(), "read wrongly:\n{}", wrong.join("\n"));
    // With their covered margins left dark, 10 of the 84 were read exactly; repainted as
    // paper, 32 (nearly all of those where the edge takes a tenth of the first glyphs); 26
    // since a correction beside another doubtful cell under the same check digits is left
    // as read (the edge makes its neighbours doubtful).
    assert!(n_exact >= 24, "{n_exact} of 84 read exactly");
}

/// `src` shrunk so that its longest side is `longest` pixels, with the Lanczos filter that
/// galleries and web forms make thumbnails with.
fn thumbnail(src: &Gray, longest: usize) -> Gray {
    let scale = longest as f32 / src.width.max(src.height) as f32;
    let width = ((src.width as f32 * scale).round() as u32).max(1);
    let height = ((src.height as f32 * scale).round() as u32).max(1);
    let full = image::GrayImage::from_raw(src.width as u32, src.height as u32, src.data.clone())
        .expect("a whole gray image");
    let small =
        image::imageops::resize(&full, width, height, image::imageops::FilterType::Lanczos3);
    Gray { width: width as usize, height: height as usize, data: small.into_raw() }
}

#[test]
fn specimens_shrunk_to_250_px_thumbnails_are_read_exactly_either_way_up() {
    let engine = EngineBuilder::new().build();
    for (file, truth) in manifest() {
        let small = thumbnail(&load_gray(&file), 250);
        let mut upside_down = small.clone();
        upside_down.data.reverse();
        for (photo, how) in [(small, "upright"), (upside_down, "upside down")] {
            let reading = engine.read_gray(&photo, &ParseOptions::default());
            let lines = reading.reading.as_ref().map(|r| r.lines.join("|")).unwrap_or_default();
            assert_eq!(
                lines, truth,
                "{file} at {}x{} px, {how}: {:?}",
                photo.width, photo.height, reading.status
            );
        }
    }
}

/// `src` with a pen stroke drawn straight from `from` to `to`, `width` pixels wide, in dark
/// ink with soft edges.
fn strike(src: &Gray, from: (f32, f32), to: (f32, f32), width: f32) -> Gray {
    repaint(src, |x, y, pixel| {
        let distance = distance_to_segment((x as f32 + 0.5, y as f32 + 0.5), from, to);
        let cover = (width / 2.0 + 0.5 - distance).clamp(0.0, 1.0);
        (f32::from(pixel) * (1.0 - cover) + 45.0 * cover).round() as u8
    })
}

#[test]
fn specimens_struck_through_with_a_pen_are_found_and_never_read_wrongly() {
    let engine = EngineBuilder::new().build();
    let (mut tally, mut variants) = (Tally::default(), 0);
    for (file, truth) in manifest() {
        let (specimen, cells) = specimen_and_cells(&engine, &file);
        let (first, last) = (&cells[0], &cells[cells.len() - 1]);
        let glyph = first[0].across.0.hypot(first[0].across.1);
        let at = |cell: &mrtd_engine::cells::CellGeometry, down: f32| {
            (cell.centre.0 + cell.across.0 * down, cell.centre.1 + cell.across.1 * down)
        };
        // Down across every line; along the middle of the first line, slightly slanted; and
        // up from the last line's start to the first line's end.
        let strokes = [
            (at(&first[3], -0.3), at(&last[last.len() - 4], 0.3)),
            (at(&first[2], -0.1), at(&first[first.len() - 3], 0.15)),
            (at(&last[1], 0.4), at(&first[first.len() - 2], -0.4)),
        ];
        for (k, (from, to)) in strokes.into_iter().enumerate() {
            variants += 1;
            let struck = strike(&specimen, from, to, (glyph * 0.1).max(1.5));
            let reading = engine.read_gray(&struck, &ParseOptions::default());
            if reading.reading.is_some() {
                let said = reading.diagnostics.iter().any(|d| d.code == DiagnosticCode::MarkedOver);
                assert!(said, "{file}, stroke {k}: {:?}", reading.diagnostics);
            }
            tally.add(&reading, &truth, &format!("{file}, stroke {k}"));
        }
    }
    let Tally { found, exact: n_exact, .. } = tally.checked("struck through", variants);
    // Before lines drawn over the page were looked for, 2 of these 36 were found and none
    // read exactly: the stroke joins the glyphs it crosses into one blob, and the rows fall
    // apart. Since, 32 are found and 8 read exactly.
    assert!(found >= 30, "the zone was found in {found} of {variants}");
    assert!(n_exact >= 6, "{n_exact} of {variants} read exactly");
}

/// `src` blurred by a motion `length` pixels long along the unit vector `dir`, as a phone
/// moved while the shutter was open.
fn motion_blur(src: &Gray, dir: (f32, f32), length: usize) -> Gray {
    let (max_x, max_y) = ((src.width - 1) as f32, (src.height - 1) as f32);
    repaint(src, |x, y, _| {
        let sum: f32 = (0..length)
            .map(|i| {
                let u = i as f32 - (length - 1) as f32 / 2.0;
                let (sx, sy) = (x as f32 + u * dir.0, y as f32 + u * dir.1);
                sample(src, sx.clamp(0.0, max_x), sy.clamp(0.0, max_y), 0.0)
            })
            .sum();
        (sum / length as f32).round() as u8
    })
}

#[test]
fn specimens_blurred_along_their_lines_are_found_and_never_read_wrongly() {
    let engine = EngineBuilder::new().build();
    let mut tally = Tally::default();
    for (file, truth) in manifest() {
        let (specimen, cells) = specimen_and_cells(&engine, &file);
        let (first, second) = (&cells[0][0], &cells[1][0]);
        let spacing = (second.centre.0 - first.centre.0).hypot(second.centre.1 - first.centre.1);
        let norm = first.along.0.hypot(first.along.1);
        let dir = (first.along.0 / norm, first.along.1 / norm);
        // A quarter of a line spacing runs most glyphs of a line into their neighbours.
        let blurred = motion_blur(&specimen, dir, (spacing / 4.0).round().max(3.0) as usize);
        tally.add(&engine.read_gray(&blurred, &ParseOptions::default()), &truth, &file);
    }
    let Tally { found, exact: n_exact, .. } = tally.checked("blurred along the lines", 12);
    // Before runs of glyphs were cut into glyph-wide pieces, 5 of the 12 were found (3 read
    // exactly); since, 8 are. The rest of the misreadings are the blurred glyphs' own.
    assert!(found >= 8, "the zone was found in {found} of 12");
    assert!(n_exact >= 3, "{n_exact} of 12 read exactly");
}

/// `src` under a hard-edged shadow: every pixel on the left of the line through `through`
/// along the unit vector `dir` at 45 % of its light, as a hand or a phone held over the page
/// in a lamp's light darkens it.
fn shadow(src: &Gray, through: (f32, f32), dir: (f32, f32)) -> Gray {
    repaint(src, |x, y, pixel| {
        let (dx, dy) = (x as f32 + 0.5 - through.0, y as f32 + 0.5 - through.1);
        if dir.0 * dy - dir.1 * dx > 0.0 { (f32::from(pixel) * 0.45).round() as u8 } else { pixel }
    })
}

#[test]
fn specimens_under_a_hard_edged_shadow_are_read_and_never_read_wrongly() {
    let engine = EngineBuilder::new().build();
    let (mut tally, mut variants) = (Tally::default(), 0);
    for (file, truth) in manifest() {
        let (specimen, cells) = specimen_and_cells(&engine, &file);
        let all = cells.iter().flatten();
        let n = all.clone().count() as f32;
        let centre =
            all.fold((0.0, 0.0), |(x, y), cell| (x + cell.centre.0 / n, y + cell.centre.1 / n));
        let along = cells[0][0].along;
        let angle = along.1.atan2(along.0);
        // The shadow's edge through the zone's middle, nearly along its lines (either way)
        // and across them at 45 degrees.
        for turn in [5f32, -5.0, 45.0] {
            variants += 1;
            let a = angle + turn.to_radians();
            let shaded = shadow(&specimen, centre, (a.cos(), a.sin()));
            let reading = engine.read_gray(&shaded, &ParseOptions::default());
            tally.add(&reading, &truth, &format!("{file}, edge at {turn}"));
        }
    }
    let n_exact = tally.checked("under a hard-edged shadow", variants).exact;
    // Before the look with the paper brought to white, 5 of the 36 were read exactly: the
    // local mean beside the edge makes a band of ink of the shadowed paper, and cells half in
    // the shadow read wrongly. Since, 34.
    assert!(n_exact >= 32, "{n_exact} of {variants} read exactly");
}

/// What a test of altered specimens counts: zones found, readings exact, and readings `read`
/// or `valid` wrongly.
#[derive(Default)]
struct Tally {
    found: usize,
    exact: usize,
    wrong: Vec<String>,
}

impl Tally {
    /// Counts `reading` of a photo whose zone is `truth`, named `what` where it is wrong.
    fn add(&mut self, reading: &ImageReading, truth: &str, what: &str) {
        let Some(read) = reading.reading.as_ref() else { return };
        self.found += 1;
        let lines = read.lines.join("|");
        self.exact += usize::from(lines == truth);
        if reading.status == Status::Read && lines != truth {
            self.wrong.push(format!("{what}: read {lines}"));
        }
        if read.valid && !valid_cells_right(read, truth) {
            self.wrong.push(format!("{what}: valid over {lines}"));
        }
    }

    /// The tally of `variants` photos altered as `how` says, printed, once none was read or
    /// `valid` wrongly.
    fn checked(self, how: &str, variants: usize) -> Tally {
        println!("{how}: {} of {variants} found, {} read exactly", self.found, self.exact);
        assert!(self.wrong.is_empty(), "read or valid wrongly:\n{}", self.wrong.join("\n"));
        self
    }
}

/// Whether every cell a check digit covers, and the check digit itself, is as in `truth`.
fn valid_cells_right(read: &mrtd_engine::Reading, truth: &str) -> bool {
    let truth: Vec<&[u8]> = truth.split('|').map(str::as_bytes).collect();
    let cell = |lines: &[&[u8]], line: usize, column: usize| {
        lines.get(line - 1).and_then(|l| l.get(column - 1)).copied()
    };
    let read_lines: Vec<&[u8]> = read.lines.iter().map(|l| l.as_bytes()).collect();
    read_lines.len() == truth.len()
        && read.checks.iter().all(|check| {
            let covered = check
                .covers
                .iter()
                .flat_map(|range| (range.from..=range.to).map(move |column| (range.line, column)));
            covered
                .chain(check.line.zip(check.column))
                .all(|(line, column)| cell(&read_lines, line, column) == cell(&truth, line, column))
        })
}

#[test]
fn specimens_framed_along_the_zone_are_read_as_without_the_frame() {
    let engine = EngineBuilder::new().build();
    let (mut n_read, mut wrong) = (0, Vec::new());
    for (file, truth) in manifest() {
        let specimen = load_gray(&file);
        let clean = engine.read_gray(&specimen, &ParseOptions::default());
        let region =
            clean.region.unwrap_or_else(|| panic!("{file}: no zone on the clean specimen"));
        // The zone's edges (three quarters of a glyph above and below its outer lines, half
        // a pitch beyond its ends), in ink about a twelfth of the line spacing wide.
        let [top_left, top_right, bottom_right, bottom_left] = region;
        let width = ((bottom_left.1 - top_left.1) / 2.0 / 12.0).max(1.5);
        let mut framed = specimen;
        for (from, to) in [
            (top_left, top_right),
            (top_right, bottom_right),
            (bottom_right, bottom_left),
            (bottom_left, top_left),
        ] {
            framed = strike(&framed, from, to, width);
        }
        let reading = engine.read_gray(&framed, &ParseOptions::default());
        let lines = reading.reading.as_ref().map(|r| r.lines.join("|")).unwrap_or_default();
        if reading.status == Status::Read {
            n_read += 1;
            if lines != truth {
                wrong.push(format!("{file}: read {lines}"));
            }
        }
    }
    assert!(wrong.is_empty(), "read wrongly:\n{}", wrong.join("\n"));
    // The frame touches the glyphs of the outer lines and darkens every cell's margin: before
    // lines near the zone were looked for and painted out, none of the frames of
    // `mrtd eval --robustness` was read (every cell partly covered); since, 9 of the 12
    // (10 are read without a frame).
    assert!(n_read >= 8, "{n_read} of 12 read");
}

/// A segment from one point to another, in pixels.
type Segment = ((f32, f32), (f32, f32));

/// `photo` with `colour` laid over every pixel within `half_width` of one of the segments.
fn with_coloured_lines(
    photo: &image::RgbImage,
    segments: &[Segment],
    half_width: f32,
    colour: [u8; 3],
) -> image::RgbImage {
    let mut out = photo.clone();
    for (x, y, pixel) in out.enumerate_pixels_mut() {
        let point = (x as f32 + 0.5, y as f32 + 0.5);
        let near = segments.iter().any(|&(a, b)| distance_to_segment(point, a, b) <= half_width);
        if near {
            pixel.0 = colour;
        }
    }
    out
}

#[test]
fn coloured_marks_over_the_zone_are_looked_past() {
    // Each colour specimen with a red box drawn tight around every line of its zone, as a
    // reader app's overlay draws one, and a blue pen line slanting through the zone: as dark
    // as ink in the luma, nearly paper once each pixel is taken at its brightest channel.
    let engine = EngineBuilder::new().build();
    let options = ParseOptions::default();
    let (mut tried, mut exact) = (0, 0);
    for (file, truth) in manifest() {
        let bytes = std::fs::read(data_dir().join(&file)).expect("a specimen image");
        let photo = image::load_from_memory(&bytes).expect("a decodable specimen");
        if !photo.color().has_color() {
            continue;
        }
        let plain = engine.read(&bytes, &options).expect("a readable specimen");
        let Some([top_left, top_right, bottom_right, bottom_left]) = plain.region else {
            continue;
        };
        let lines = truth.split('|').count() as f32;
        let along =
            |p: (f32, f32), q: (f32, f32), t: f32| (p.0 + (q.0 - p.0) * t, p.1 + (q.1 - p.1) * t);
        let spacing = (bottom_left.1 - top_left.1).hypot(bottom_left.0 - top_left.0) / lines;
        // A box around each line, its edges a twelfth of the line spacing from the glyphs.
        let mut segments = Vec::new();
        for line in 0..=truth.split('|').count() {
            let t = line as f32 / lines;
            segments.push((along(top_left, bottom_left, t), along(top_right, bottom_right, t)));
        }
        segments.push((top_left, bottom_left));
        segments.push((top_right, bottom_right));
        let boxed = with_coloured_lines(&photo.to_rgb8(), &segments, spacing / 24.0, [220, 30, 40]);
        let pen = (along(top_left, top_right, 0.2), along(bottom_left, bottom_right, 0.7));
        let marked = with_coloured_lines(&boxed, &[pen], spacing / 20.0, [40, 60, 200]);
        let mut encoded = Vec::new();
        image::DynamicImage::ImageRgb8(marked)
            .write_to(&mut std::io::Cursor::new(&mut encoded), image::ImageFormat::Png)
            .expect("encode");
        let read = engine.read(&encoded, &options).expect("a readable photo");
        tried += 1;
        let got = read.reading.as_ref().map(|r| r.lines.join("|")).unwrap_or_default();
        assert!(read.status != Status::Read || got == truth, "{file} read wrongly: {got}");
        exact += usize::from(got == truth);
    }
    assert!(tried >= 8, "{tried} colour specimens");
    // 2 of 12 from the luma alone; 9 of 12 with the second look as ink on paper; 8 of 12
    // since doubtful cells are also read nudged (the quarter-size passport's `UTO`, a blue
    // stroke through its `O`, comes out `UT0`, `partial`), which reads more of every other
    // set altered from real photos exactly (the engine README).
    assert!(exact * 3 >= tried * 2, "{exact} of {tried} exact with coloured marks");
}
