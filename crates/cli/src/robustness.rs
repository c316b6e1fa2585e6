//! `mrtd eval --robustness`: each photo with a known MRZ made worse in the ways photos
//! people send are worse (cut off, small, compressed, blurred, struck through with a pen,
//! framed, under a plastic sleeve's glare), and what the reader says of
//! each. The verdicts matter more than the count read: a worse photo may go unread, but it
//! must never come back `read` with a wrong character, nor `valid` over a wrong character
//! that a check digit covers.

use std::io::Cursor;

use anyhow::Context;

use image::{DynamicImage, ImageDecoder, ImageReader, imageops::FilterType};
use mrtd_engine::geometry::distance_to_segment;
use mrtd_engine::{Engine, ImageReading, ParseOptions, Status};
use serde_json::{Value, json};

/// The ways a photo is made worse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The photo ends at 50 % of the MRZ's line length.
    Cut50,
    /// ... at 65 %.
    Cut65,
    /// ... at 80 %.
    Cut80,
    /// The photo ends above the MRZ's last line.
    LastLineCut,
    /// Shrunk so that the MRZ's lines are 6 px apart.
    Lines6Px,
    /// ... 8 px apart.
    Lines8Px,
    /// ... 10 px apart.
    Lines10Px,
    /// Encoded as JPEG at quality 20.
    Jpeg20,
    /// Blurred (Gaussian, sigma a twelfth of the line spacing).
    Blur,
    /// A pen stroke drawn across the zone, slanting down through every line.
    PenLine,
    /// A frame drawn around the zone along its edges, touching its outer lines, as a
    /// scanning app or a pen draws one.
    Frame,
    /// Photographed in a plastic sleeve: the page's contrast lowered and a band of glare
    /// across the zone.
    SleeveGlare,
}

impl Kind {
    pub(crate) const ALL: [Kind; 12] = [
        Kind::Cut50,
        Kind::Cut65,
        Kind::Cut80,
        Kind::LastLineCut,
        Kind::Lines6Px,
        Kind::Lines8Px,
        Kind::Lines10Px,
        Kind::Jpeg20,
        Kind::Blur,
        Kind::PenLine,
        Kind::Frame,
        Kind::SleeveGlare,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Cut50 => "cut_50",
            Kind::Cut65 => "cut_65",
            Kind::Cut80 => "cut_80",
            Kind::LastLineCut => "last_line_cut",
            Kind::Lines6Px => "lines_6px",
            Kind::Lines8Px => "lines_8px",
            Kind::Lines10Px => "lines_10px",
            Kind::Jpeg20 => "jpeg_q20",
            Kind::Blur => "blur",
            Kind::PenLine => "pen_line",
            Kind::Frame => "frame",
            Kind::SleeveGlare => "sleeve_glare",
        }
    }
}

/// What the reader said of the variants of one kind.
#[derive(Debug, Default, Clone)]
pub(crate) struct Tally {
    pub(crate) variants: usize,
    pub(crate) exact: usize,
    pub(crate) read: usize,
    pub(crate) read_wrong: usize,
    pub(crate) valid_over_wrong_covered: usize,
    /// `file: what went wrong`, for the wrong verdicts.
    pub(crate) wrong: Vec<String>,
}

impl Tally {
    pub(crate) fn to_json(&self, kind: Kind) -> Value {
        json!({
            "kind": kind.name(),
            "variants": self.variants,
            "exact": self.exact,
            "read": self.read,
            "read_but_wrong": self.read_wrong,
            "valid_over_wrong_covered_cell": self.valid_over_wrong_covered,
        })
    }
}

/// A photo decoded upright (its EXIF orientation applied), as the reader sees it.
pub(crate) fn upright(bytes: &[u8]) -> Option<DynamicImage> {
    let mut decoder =
        ImageReader::new(Cursor::new(bytes)).with_guessed_format().ok()?.into_decoder().ok()?;
    let orientation = decoder.orientation().unwrap_or(image::metadata::Orientation::NoTransforms);
    let mut image = DynamicImage::from_decoder(decoder).ok()?;
    image.apply_orientation(orientation);
    Some(image)
}

/// The variant of `kind` of `photo`, encoded, given the MRZ's region in it (corners: top
/// left, top right, bottom right, bottom left, in the zone's reading direction) and its
/// number of lines. `None` when the variant cannot be made (nothing left after a cut).
pub(crate) fn variant(
    photo: &DynamicImage,
    region: &[(f32, f32); 4],
    n_lines: usize,
    kind: Kind,
) -> Option<Vec<u8>> {
    let [top_left, top_right, _, bottom_left] = *region;
    let along = (top_right.0 - top_left.0, top_right.1 - top_left.1);
    let across = (bottom_left.0 - top_left.0, bottom_left.1 - top_left.1);
    let line_spacing = (across.0.hypot(across.1) / n_lines.max(1) as f32).max(1.0);
    let at = |point: (f32, f32), direction: (f32, f32), fraction: f32| {
        (point.0 + direction.0 * fraction, point.1 + direction.1 * fraction)
    };
    let image = match kind {
        Kind::Cut50 | Kind::Cut65 | Kind::Cut80 => {
            let fraction = match kind {
                Kind::Cut50 => 0.50,
                Kind::Cut65 => 0.65,
                _ => 0.80,
            };
            cut(photo, at(top_left, along, fraction), along)?
        }
        Kind::LastLineCut => {
            let fraction = (n_lines.max(2) - 1) as f32 / n_lines.max(2) as f32;
            cut(photo, at(top_left, across, fraction), across)?
        }
        Kind::Lines6Px | Kind::Lines8Px | Kind::Lines10Px => {
            let target = match kind {
                Kind::Lines6Px => 6.0,
                Kind::Lines8Px => 8.0,
                _ => 10.0,
            };
            let scale = (target / line_spacing).min(1.0);
            let width = ((photo.width() as f32 * scale).round() as u32).max(1);
            let height = ((photo.height() as f32 * scale).round() as u32).max(1);
            photo.resize_exact(width, height, FilterType::Lanczos3)
        }
        Kind::Jpeg20 => {
            let mut bytes = Vec::new();
            let encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, 20);
            photo.to_rgb8().write_with_encoder(encoder).ok()?;
            return Some(bytes);
        }
        Kind::Blur => photo.blur(line_spacing / 12.0),
        Kind::PenLine => {
            // Blue ink, a tenth of the line spacing wide, from a fifth down the zone near
            // its start to four fifths down near its end.
            let from = at(at(top_left, along, 0.15), across, 0.2);
            let to = at(at(top_left, along, 0.85), across, 0.8);
            let half_width = (line_spacing * 0.05).max(0.8);
            let ink = [25.0, 35.0, 110.0];
            paint(photo, |x, y| {
                let distance = distance_to_segment((x, y), from, to);
                let cover = (half_width + 0.5 - distance).clamp(0.0, 1.0);
                (cover > 0.0).then_some((cover, ink))
            })
        }
        Kind::Frame => {
            // The zone's four edges, in ink a twelfth of the line spacing wide.
            let [top_left, top_right, bottom_right, bottom_left] = *region;
            let edges = [
                (top_left, top_right),
                (top_right, bottom_right),
                (bottom_right, bottom_left),
                (bottom_left, top_left),
            ];
            let half_width = (line_spacing / 24.0).max(0.8);
            let ink = [30.0, 60.0, 160.0];
            paint(photo, |x, y| {
                let distance = edges
                    .iter()
                    .map(|&(a, b)| distance_to_segment((x, y), a, b))
                    .fold(f32::MAX, f32::min);
                let cover = (half_width + 0.5 - distance).clamp(0.0, 1.0);
                (cover > 0.0).then_some((cover, ink))
            })
        }
        Kind::SleeveGlare => {
            // The sleeve's sheen lifts every dark pixel a fifth of the way to white; the
            // reflection is a band a line spacing and a half wide, slanting across the zone
            // at 60 % of its length, nearly white at its middle.
            let centre = at(at(top_left, along, 0.6), across, 0.5);
            let length = along.0.hypot(along.1).max(1.0);
            // The band's axis slants 20° from the zone's across direction.
            let unit_along = (along.0 / length, along.1 / length);
            let (sin, cos) = 20f32.to_radians().sin_cos();
            let normal =
                (unit_along.0 * cos - unit_along.1 * sin, unit_along.0 * sin + unit_along.1 * cos);
            let sigma = line_spacing * 0.75;
            let white = [255.0; 3];
            paint(photo, |x, y| {
                let offset = (x - centre.0) * normal.0 + (y - centre.1) * normal.1;
                let band = 0.92 * (-0.5 * (offset / sigma).powi(2)).exp();
                Some((0.2 + 0.8 * band, white))
            })
        }
    };
    let mut bytes = Vec::new();
    image.write_to(&mut Cursor::new(&mut bytes), image::ImageFormat::Png).ok()?;
    Some(bytes)
}

/// `photo` with `ink(x, y)` laid over each pixel: `(cover, colour)`, the colour blended in
/// by `cover` in [0, 1].
fn paint(photo: &DynamicImage, ink: impl Fn(f32, f32) -> Option<(f32, [f32; 3])>) -> DynamicImage {
    let mut rgb = photo.to_rgb8();
    for (x, y, pixel) in rgb.enumerate_pixels_mut() {
        let Some((cover, colour)) = ink(x as f32 + 0.5, y as f32 + 0.5) else { continue };
        for (channel, target) in pixel.0.iter_mut().zip(colour) {
            let blended = f32::from(*channel) * (1.0 - cover) + target * cover;
            *channel = blended.round().clamp(0.0, 255.0) as u8;
        }
    }
    DynamicImage::ImageRgb8(rgb)
}

/// The photo cut off at `point`: what lies beyond it in `direction` (taken along the axis
/// that direction mostly follows) is no longer in the picture.
fn cut(photo: &DynamicImage, point: (f32, f32), direction: (f32, f32)) -> Option<DynamicImage> {
    let (width, height) = (photo.width(), photo.height());
    let clamp = |value: f32, limit: u32| (value.round().max(0.0) as u32).min(limit);
    let (x, y, w, h) = if direction.0.abs() >= direction.1.abs() {
        let edge = clamp(point.0, width);
        if direction.0 > 0.0 { (0, 0, edge, height) } else { (edge, 0, width - edge, height) }
    } else {
        let edge = clamp(point.1, height);
        if direction.1 > 0.0 { (0, 0, width, edge) } else { (0, edge, width, height - edge) }
    };
    (w > 0 && h > 0).then(|| photo.crop_imm(x, y, w, h))
}

/// Whether the reading is `valid` while a cell some check digit covers differs from the
/// truth (or the reading's shape differs from it altogether).
pub(crate) fn valid_over_wrong_covered_cell(reading: &ImageReading, truth: &[String]) -> bool {
    let Some(read) = reading.reading.as_ref().filter(|r| r.valid) else { return false };
    let same_shape = read.lines.len() == truth.len()
        && read.lines.iter().zip(truth).all(|(a, b)| a.len() == b.len());
    if !same_shape {
        return true;
    }
    let cell = |lines: &[String], line: usize, column: usize| {
        lines
            .get(line.wrapping_sub(1))
            .and_then(|l| l.as_bytes().get(column.wrapping_sub(1)))
            .copied()
    };
    read.checks.iter().any(|check| {
        let digit = check.line.zip(check.column);
        let covered = check
            .covers
            .iter()
            .flat_map(|range| (range.from..=range.to).map(move |column| (range.line, column)));
        covered
            .chain(digit)
            .any(|(line, column)| cell(&read.lines, line, column) != cell(truth, line, column))
    })
}

/// Reads every variant of `photo` (whose MRZ is `truth`) and adds the outcomes to `tallies`
/// (in the order of [`Kind::ALL`]), writing each variant into `save` when given. `Ok(None)`
/// when the photo itself is not read exactly, so that there is no region to make the variants
/// from; an error when a variant cannot be written.
#[allow(clippy::too_many_arguments)]
pub(crate) fn measure(
    engine: &Engine,
    options: &ParseOptions,
    file: &str,
    bytes: &[u8],
    truth: &[String],
    tallies: &mut [Tally],
    calibration: &mut crate::calibration::Calibration,
    save: Option<&std::path::Path>,
) -> anyhow::Result<Option<()>> {
    let Ok(baseline) = engine.read(bytes, options) else { return Ok(None) };
    let exact = baseline.reading.as_ref().is_some_and(|r| r.lines == truth);
    let Some(region) = baseline.region.filter(|_| exact) else { return Ok(None) };
    let Some(photo) = upright(bytes) else { return Ok(None) };
    for (kind, tally) in Kind::ALL.iter().zip(tallies.iter_mut()) {
        let Some(variant) = variant(&photo, &region, truth.len(), *kind) else { continue };
        tally.variants += 1;
        if let Some(dir) = save {
            let stem = std::path::Path::new(file).file_stem().unwrap_or_default().to_string_lossy();
            let extension = if *kind == Kind::Jpeg20 { "jpg" } else { "png" };
            let path = dir.join(format!("{stem}.{}.{extension}", kind.name()));
            std::fs::write(&path, &variant)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        let Ok(reading) = engine.read(&variant, options) else { continue };
        if let Some(read) = &reading.reading {
            calibration.add(read, truth, options);
        }
        let lines = reading.reading.as_ref().map(|r| r.lines.clone()).unwrap_or_default();
        let is_exact = lines == truth;
        tally.exact += usize::from(is_exact);
        if reading.status == Status::Read {
            tally.read += 1;
            if !is_exact {
                tally.read_wrong += 1;
                tally.wrong.push(format!("{file} {}: read {}", kind.name(), lines.join("|")));
            }
        }
        if valid_over_wrong_covered_cell(&reading, truth) {
            tally.valid_over_wrong_covered += 1;
            tally.wrong.push(format!("{file} {}: valid over {}", kind.name(), lines.join("|")));
        }
    }
    Ok(Some(()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_keeps_the_side_the_lines_start_on() {
        let photo = DynamicImage::new_luma8(100, 50);
        let right = cut(&photo, (60.0, 10.0), (1.0, 0.05)).unwrap();
        assert_eq!((right.width(), right.height()), (60, 50));
        let upside_down = cut(&photo, (60.0, 10.0), (-1.0, 0.0)).unwrap();
        assert_eq!((upside_down.width(), upside_down.height()), (40, 50));
        let down = cut(&photo, (10.0, 30.0), (0.1, 1.0)).unwrap();
        assert_eq!((down.width(), down.height()), (100, 30));
        assert!(cut(&photo, (0.0, 10.0), (1.0, 0.0)).is_none(), "nothing left");
    }

    #[test]
    fn shrinking_sets_the_line_spacing() {
        let photo = DynamicImage::new_luma8(400, 200);
        // Two lines over 40 px: 20 px apart; 8 px apart is 40 % of the size.
        let region = [(10.0, 100.0), (390.0, 100.0), (390.0, 140.0), (10.0, 140.0)];
        let bytes = variant(&photo, &region, 2, Kind::Lines8Px).unwrap();
        let small = image::load_from_memory(&bytes).unwrap();
        assert_eq!((small.width(), small.height()), (160, 80));
    }
}
