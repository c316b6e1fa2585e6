//! Whole synthetic photos: a document with an MRZ, placed in a cluttered scene
//! with rotation, perspective and camera degradations, plus exact labels.

use crate::canvas::{Canvas, OcrFont};
use crate::rng::Rng;
use crate::text::{SynthFormat, random_line, random_mrz, replace_name_with_random_letters};
use mrtd_engine::cells::CellGeometry;
use mrtd_engine::geometry::Homography;
use mrtd_engine::gray::Gray;

/// How hard the generated photos are.
#[derive(Clone, Debug)]
pub struct SceneOptions {
    /// Smallest MRZ character height in the photo, in pixels.
    pub min_char_px: f32,
    /// Largest MRZ character height in the photo, in pixels.
    pub max_char_px: f32,
    /// Largest tilt away from the nearest quarter turn, in degrees.
    pub max_tilt_degrees: f32,
    /// Whether the document may lie at 90, 180 or 270 degrees.
    pub quarter_turns: bool,
    /// Largest corner displacement for perspective, as a fraction of the document width.
    pub perspective: f32,
    /// Whether to apply blur, noise, glare, low light and JPEG.
    pub degrade: bool,
    /// Probability that the MRZ holds uniformly random symbols instead of a document.
    pub random_text: f32,
    /// Whether the document has an MRZ at all (false makes negative examples).
    pub with_mrz: bool,
    /// Whether names are uniformly random letters instead of real names.
    pub random_names: bool,
    /// Whether to add what handheld photos of real documents add and the default
    /// sets leave out: dense security print under the text, the shadow of the phone
    /// or a hand, motion blur, and a pen stroke across the MRZ.
    pub more_faults: bool,
    /// Whether the portrait keeps out of the MRZ's clear zone, as ICAO 9303 asks of a
    /// printed document. Without it the portrait may reach into the MRZ's lines: dark
    /// clutter at and under the text, as a cluttered photo can put beside a line, which
    /// the classifier is trained on (no real document prints its portrait there).
    pub clear_zone: bool,
    /// Whether the MRZ is printed in varying stroke weights, from thin (a laser-engraved
    /// card) to bold (an inkjet visa), instead of the font's own.
    pub print_weights: bool,
    /// How much the focus blur may reach, as a multiple of the default's (at most a tenth of
    /// a character's height).
    pub blur_scale: f32,
}

impl Default for SceneOptions {
    fn default() -> SceneOptions {
        SceneOptions {
            min_char_px: 10.0,
            max_char_px: 28.0,
            max_tilt_degrees: 12.0,
            quarter_turns: true,
            perspective: 0.06,
            degrade: true,
            random_text: 0.0,
            with_mrz: true,
            random_names: false,
            more_faults: false,
            clear_zone: true,
            print_weights: false,
            blur_scale: 1.0,
        }
    }
}

/// A generated photo and what is in it.
#[derive(Clone, Debug)]
pub struct SynthDocument {
    /// The photo.
    pub image: Gray,
    /// The document format.
    pub format: SynthFormat,
    /// The MRZ lines, top to bottom.
    pub lines: Vec<String>,
    /// Where every MRZ character lies in the photo, line by line.
    pub cells: Vec<Vec<CellGeometry>>,
    /// The MRZ quadrilateral in the photo (top-left, top-right, bottom-right, bottom-left).
    pub region: [(f32, f32); 4],
}

/// Renders the upright document; returns the canvas and the MRZ layout
/// (left edge, baselines, pitch and cap height, all in document pixels).
fn render_document(
    rng: &mut Rng,
    font: &OcrFont,
    format: SynthFormat,
    lines: &[String],
    pitch: f32,
    options: &SceneOptions,
) -> (Canvas, f32, Vec<f32>, f32) {
    let (with_mrz, clear_zone) = (options.with_mrz, options.clear_zone);
    let px_per_mm = pitch / 2.54;
    let (width_mm, height_mm) = format.size_mm();
    let width = (width_mm * px_per_mm).round() as usize;
    let height = (height_mm * px_per_mm).round() as usize;
    let paper = rng.range(175.0, 250.0);
    let mut canvas = Canvas::new(width, height, paper);
    // Fine guilloche waves, as printed under the data of real documents.
    let n_waves = rng.below(4);
    for _ in 0..n_waves {
        let amplitude = rng.range(2.0, 12.0) * px_per_mm;
        let period = rng.range(8.0, 40.0) * px_per_mm;
        let phase = rng.range(0.0, 6.3);
        let base = rng.range(0.0, height as f32);
        let tone = paper - rng.range(10.0, 60.0);
        for x in 0..width {
            let y = base + amplitude * ((x as f32 / period) * std::f32::consts::TAU + phase).sin();
            canvas.blend(x as i64, y as i64, tone, 0.6);
        }
    }
    // The holder's photo.
    let photo_w = width as f32 * rng.range(0.22, 0.3);
    let photo_x = width as f32 * rng.range(0.03, 0.06);
    let photo_y = height as f32 * rng.range(0.12, 0.2);
    // ICAO 9303 keeps a clear zone around the MRZ: the portrait ends at least a
    // millimetre above the highest the MRZ can start (widest margins and spacing).
    let mrz_top_min =
        height as f32 - px_per_mm * (5.0 + 4.6 * (lines.len() - 1) as f32 + 1.0) - pitch;
    let mut photo_h = (photo_w * 1.3).min(height as f32 * 0.55);
    if clear_zone {
        photo_h = photo_h.min(mrz_top_min - photo_y);
    }
    let tone = rng.range(40.0, 170.0);
    canvas.fill_rect(photo_x, photo_y, photo_x + photo_w, photo_y + photo_h, tone, 1.0);
    for _ in 0..6 {
        let x = photo_x + rng.range(0.0, photo_w * 0.7);
        let y = photo_y + rng.range(0.0, photo_h * 0.7);
        let shade = rng.range(10.0, 230.0);
        canvas.fill_rect(x, y, x + photo_w * 0.3, y + photo_h * 0.3, shade, 0.5);
    }
    // Printed fields: short lines of text in several sizes.
    let text_left = photo_x + photo_w + 3.0 * px_per_mm;
    let mut y = height as f32 * rng.range(0.12, 0.2);
    while y < height as f32 * 0.62 {
        let cap = px_per_mm * rng.range(1.5, 3.2);
        let len = 3 + rng.below(18);
        let text = random_line(rng, len).replace('<', " ");
        let ink = rng.range(10.0, 110.0);
        font.draw(&mut canvas, &text, text_left, y + cap, cap * 1.05, cap, ink);
        y += cap * rng.range(1.8, 3.0);
    }
    // The MRZ itself, centred, near the bottom edge.
    let n = lines[0].len() as f32;
    let cap_height = pitch * rng.range(0.85, 1.0);
    let line_spacing = px_per_mm * rng.range(3.6, 4.6);
    let left = (width as f32 - n * pitch) / 2.0 + rng.range(-1.0, 1.0) * px_per_mm;
    let last_baseline = height as f32 - px_per_mm * rng.range(3.0, 5.0);
    let first_baseline = last_baseline - line_spacing * (lines.len() - 1) as f32;
    let baselines: Vec<f32> =
        (0..lines.len()).map(|idx| first_baseline + idx as f32 * line_spacing).collect();
    let ink = rng.range(0.0, 70.0);
    let weight = if options.print_weights { rng.range(-1.0, 1.0) } else { 0.0 };
    for (line, &baseline) in lines.iter().zip(&baselines).filter(|_| with_mrz) {
        font.draw_weighted(&mut canvas, line, (left, baseline), (pitch, cap_height), ink, weight);
    }
    (canvas, left, baselines, cap_height)
}

fn bilinear(canvas: &Canvas, x: f32, y: f32) -> f32 {
    let xf = (x - 0.5).clamp(0.0, canvas.width as f32 - 1.001);
    let yf = (y - 0.5).clamp(0.0, canvas.height as f32 - 1.001);
    let (x0, y0) = (xf as usize, yf as usize);
    let (ax, ay) = (xf - x0 as f32, yf - y0 as f32);
    let at = |xx: usize, yy: usize| canvas.data[yy * canvas.width + xx];
    let top = at(x0, y0) + (at(x0 + 1, y0) - at(x0, y0)) * ax;
    let bottom = at(x0, y0 + 1) + (at(x0 + 1, y0 + 1) - at(x0, y0 + 1)) * ax;
    top + (bottom - top) * ay
}

/// Paints a cluttered background: a tone, shapes and stray text.
fn background(rng: &mut Rng, font: &OcrFont, width: usize, height: usize, scale: f32) -> Canvas {
    let mut canvas = Canvas::new(width, height, rng.range(10.0, 240.0));
    for _ in 0..rng.below(8) {
        let x = rng.range(0.0, width as f32);
        let y = rng.range(0.0, height as f32);
        let w = rng.range(0.05, 0.5) * width as f32;
        let h = rng.range(0.05, 0.5) * height as f32;
        canvas.fill_rect(x, y, x + w, y + h, rng.range(0.0, 255.0), rng.range(0.3, 1.0));
    }
    for _ in 0..rng.below(5) {
        let cap = scale * rng.range(0.5, 2.0);
        let len = 4 + rng.below(30);
        let text = random_line(rng, len).replace('<', " ");
        let x = rng.range(-50.0, width as f32);
        let y = rng.range(0.0, height as f32 + cap);
        font.draw(&mut canvas, &text, x, y, cap * rng.range(0.8, 1.3), cap, rng.range(0.0, 255.0));
    }
    canvas
}

/// Generates one labelled photo.
pub fn generate(
    rng: &mut Rng,
    font: &OcrFont,
    format: SynthFormat,
    options: &SceneOptions,
) -> SynthDocument {
    let mut lines = random_mrz(rng, format);
    if options.random_names {
        replace_name_with_random_letters(rng, format, &mut lines);
    }
    if rng.chance(options.random_text) {
        let len = lines[0].len();
        lines = lines.iter().map(|_| random_line(rng, len)).collect();
    }
    let char_px = rng.range(options.min_char_px, options.max_char_px);
    let pitch = char_px / 0.92;
    let (mut document, left, baselines, cap_height) =
        render_document(rng, font, format, &lines, pitch, options);
    if options.more_faults && rng.chance(0.35) {
        security_print(rng, &mut document, pitch);
    }
    let (doc_w, doc_h) = (document.width as f32, document.height as f32);

    // Place the document: a quarter turn, a tilt, and perspective corner jitter.
    let quarter = if options.quarter_turns { rng.below(4) } else { 0 } as f32;
    let angle = (quarter * 90.0 + rng.normal().clamp(-2.5, 2.5) * options.max_tilt_degrees / 2.5)
        .to_radians();
    let (sin, cos) = angle.sin_cos();
    let corners_doc = [(0.0, 0.0), (doc_w, 0.0), (doc_w, doc_h), (0.0, doc_h)];
    let jitter = options.perspective * doc_w;
    let mut corners_scene = corners_doc.map(|(x, y)| {
        let (cx, cy) = (x - doc_w / 2.0, y - doc_h / 2.0);
        (
            cx * cos - cy * sin + rng.range(-jitter, jitter),
            cx * sin + cy * cos + rng.range(-jitter, jitter),
        )
    });
    let min_x = corners_scene.iter().map(|c| c.0).fold(f32::INFINITY, f32::min);
    let max_x = corners_scene.iter().map(|c| c.0).fold(f32::NEG_INFINITY, f32::max);
    let min_y = corners_scene.iter().map(|c| c.1).fold(f32::INFINITY, f32::min);
    let max_y = corners_scene.iter().map(|c| c.1).fold(f32::NEG_INFINITY, f32::max);
    let margin_l = rng.range(0.03, 0.3) * (max_x - min_x);
    let margin_t = rng.range(0.03, 0.3) * (max_y - min_y);
    let width = (max_x - min_x + margin_l + rng.range(0.03, 0.3) * (max_x - min_x)) as usize;
    let height = (max_y - min_y + margin_t + rng.range(0.03, 0.3) * (max_y - min_y)) as usize;
    for corner in &mut corners_scene {
        corner.0 += margin_l - min_x;
        corner.1 += margin_t - min_y;
    }
    let to_scene =
        Homography::from_corners(corners_doc, corners_scene).expect("a convex quadrilateral");
    let to_doc =
        Homography::from_corners(corners_scene, corners_doc).expect("a convex quadrilateral");

    let mut scene = background(rng, font, width, height, pitch);
    for y in 0..height {
        for x in 0..width {
            let (dx, dy) = to_doc.apply((x as f32 + 0.5, y as f32 + 0.5));
            if dx >= 0.0 && dy >= 0.0 && dx < doc_w && dy < doc_h {
                scene.data[y * width + x] = bilinear(&document, dx, dy);
            }
        }
    }

    // Labels: every cell mapped into the photo.
    let cells: Vec<Vec<CellGeometry>> = lines
        .iter()
        .zip(&baselines)
        .map(|(line, &baseline)| {
            (0..line.len())
                .map(|idx| {
                    let cx = left + (idx as f32 + 0.5) * pitch;
                    let cy = baseline - cap_height / 2.0;
                    let centre = to_scene.apply((cx, cy));
                    let right = to_scene.apply((cx + pitch / 2.0, cy));
                    let leftp = to_scene.apply((cx - pitch / 2.0, cy));
                    let down = to_scene.apply((cx, cy + cap_height / 2.0));
                    let up = to_scene.apply((cx, cy - cap_height / 2.0));
                    CellGeometry {
                        centre,
                        along: (right.0 - leftp.0, right.1 - leftp.1),
                        across: (down.0 - up.0, down.1 - up.1),
                    }
                })
                .collect()
        })
        .collect();
    let n = lines[0].len() as f32;
    let top = baselines[0] - cap_height * 1.5;
    let bottom = baselines[baselines.len() - 1] + cap_height * 0.5;
    let region = [
        to_scene.apply((left - pitch * 0.3, top)),
        to_scene.apply((left + (n + 0.3) * pitch, top)),
        to_scene.apply((left + (n + 0.3) * pitch, bottom)),
        to_scene.apply((left - pitch * 0.3, bottom)),
    ];

    if options.degrade {
        if options.more_faults {
            handheld_faults(rng, &mut scene, pitch, &region);
        }
        degrade(rng, &mut scene, pitch, options.blur_scale, &region);
    }
    if !options.with_mrz {
        return SynthDocument {
            image: scene.to_gray(),
            format,
            lines: Vec::new(),
            cells: Vec::new(),
            region,
        };
    }
    SynthDocument { image: scene.to_gray(), format, lines, cells, region }
}

/// Families of fine wavy lines over the whole page, text included, lighter than ink:
/// the security print of ID cards and passport data pages, denser than `render_document`'s
/// few waves.
fn security_print(rng: &mut Rng, page: &mut Canvas, pitch: f32) {
    let (width, height) = (page.width, page.height);
    for _ in 0..1 + rng.below(2) {
        let spacing = pitch * rng.range(0.25, 0.9);
        let amplitude = pitch * rng.range(0.0, 1.5);
        let period = pitch * rng.range(2.0, 12.0);
        let slope = rng.range(-0.6, 0.6);
        let tone = rng.range(15.0, 50.0);
        let alpha = rng.range(0.4, 0.9);
        let phase = rng.range(0.0, 6.3);
        let n_lines = ((height as f32 + slope.abs() * width as f32) / spacing) as i64 + 2;
        for k in 0..n_lines {
            let base = k as f32 * spacing - slope.max(0.0) * width as f32;
            for x in 0..width {
                let xf = x as f32;
                let y = base
                    + slope * xf
                    + amplitude * (xf / period * std::f32::consts::TAU + phase).sin();
                if y >= 0.0 && (y as usize) < height {
                    let value = page.data[y as usize * width + x];
                    page.blend(x as i64, y as i64, value - tone, alpha);
                }
            }
        }
    }
}

/// A shadow's soft edge across the photo, motion blur and a pen stroke across the MRZ
/// (`region`), each with some probability.
fn handheld_faults(rng: &mut Rng, scene: &mut Canvas, pitch: f32, region: &[(f32, f32); 4]) {
    if rng.chance(0.3) {
        let point =
            (rng.range(0.2, 0.8) * scene.width as f32, rng.range(0.2, 0.8) * scene.height as f32);
        let angle = rng.range(0.0, std::f32::consts::TAU);
        let softness = pitch * rng.range(0.1, 3.0);
        scene.shadow(point, angle, softness, rng.range(0.3, 0.7));
    }
    if rng.chance(0.3) {
        scene.motion_blur(pitch * rng.range(0.1, 0.45), rng.range(0.0, std::f32::consts::PI));
    }
    if rng.chance(0.15) {
        // From somewhere over the zone's first half to somewhere over its second, a little
        // beyond its top or bottom at most: a line drawn through the text.
        let [top_left, top_right, _, bottom_left] = *region;
        let mut at = |along: (f32, f32), across: (f32, f32)| {
            let (u, v) = (rng.range(along.0, along.1), rng.range(across.0, across.1));
            (
                top_left.0 + u * (top_right.0 - top_left.0) + v * (bottom_left.0 - top_left.0),
                top_left.1 + u * (top_right.1 - top_left.1) + v * (bottom_left.1 - top_left.1),
            )
        };
        let from = at((0.0, 0.5), (-0.2, 1.2));
        let to = at((0.5, 1.0), (-0.2, 1.2));
        scene.stroke(from, to, (pitch * rng.range(0.06, 0.15)).max(1.2), rng.range(20.0, 90.0));
    }
}

/// Applies the camera faults readers meet in practice, each with some probability.
fn degrade(rng: &mut Rng, scene: &mut Canvas, pitch: f32, blur: f32, region: &[(f32, f32); 4]) {
    if rng.chance(0.7) {
        scene.blur(rng.range(0.3, 1.0) * blur * (pitch * 0.09).max(0.6));
    }
    if rng.chance(0.25) {
        // Glare, often over the MRZ itself since that is where it hurts.
        let (cx, cy) = if rng.chance(0.6) {
            let t = rng.unit();
            let s = rng.unit();
            let top = (
                region[0].0 + (region[1].0 - region[0].0) * t,
                region[0].1 + (region[1].1 - region[0].1) * t,
            );
            let bottom = (
                region[3].0 + (region[2].0 - region[3].0) * t,
                region[3].1 + (region[2].1 - region[3].1) * t,
            );
            (top.0 + (bottom.0 - top.0) * s, top.1 + (bottom.1 - top.1) * s)
        } else {
            (rng.range(0.0, scene.width as f32), rng.range(0.0, scene.height as f32))
        };
        let radius = pitch * rng.range(2.0, 10.0);
        scene.glare((cx, cy), (radius * rng.range(0.6, 1.6), radius), rng.range(0.2, 0.7));
    }
    if rng.chance(0.3) {
        scene.exposure(rng.range(0.3, 0.8), rng.range(0.0, 20.0));
    } else if rng.chance(0.2) {
        scene.exposure(rng.range(0.6, 0.9), rng.range(20.0, 80.0));
    }
    if rng.chance(0.6) {
        let sigma = rng.range(1.0, 9.0);
        scene.noise(rng, sigma);
    }
    if rng.chance(0.6) {
        scene.jpeg(40 + rng.below(55) as u8);
    }
}
