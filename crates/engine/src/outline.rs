//! The document's outline and its portrait zone, from the located MRZ's geometry and the
//! format's nominal layout (ICAO 9303 parts 4 to 7).
//!
//! The MRZ is printed at a fixed place on the page, in a fixed pitch (2.54 mm, ten
//! characters to the inch): each cell's centre has known page coordinates in millimetres,
//! and the cells found in the photo give the same points in pixels. A least-squares
//! similarity (scale, rotation, shift) from the one to the other maps the page's corners and
//! the layout's portrait zone into the photo. A similarity, not a projective transform: the
//! zone is a tenth of the page's height, so a perspective measured on it would be mostly
//! noise once carried to the far edge.

use serde::Serialize;

use crate::cells::CellGeometry;
use crate::geometry::Homography;
use crate::gray::Gray;
use mrtd_mrz::Format;

mod edges;

/// How far below its line's centre a glyph reaches, in millimetres, with a margin: the
/// page's bottom edge is not looked for above it.
const GLYPH_REACH_MM: f32 = 2.0;

/// The MRZ's character pitch, in millimetres (ICAO 9303 part 3: ten characters per inch).
const PITCH_MM: f32 = 2.54;

/// Where a format puts its MRZ and its portrait, in millimetres from the upright page's
/// top-left corner: the sizes are ICAO 9303's; the zone's place, its line spacing and the
/// portrait's place were measured on specimens (the engine README says which), since
/// documents print them within wide tolerances.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Layout {
    /// The page's width and height.
    pub(crate) size: (f32, f32),
    /// From the page's left edge to the left edge of each line's first cell.
    pub(crate) mrz_left: f32,
    /// From the page's bottom edge to the centre of the MRZ's last line.
    pub(crate) last_line_from_bottom: f32,
    /// From one line's centre to the next one's.
    pub(crate) line_spacing: f32,
    /// The portrait zone (left, top, right, bottom), where the MRZ's side of the document
    /// shows one.
    pub(crate) portrait: Option<[f32; 4]>,
}

impl Layout {
    /// The nominal layout of a format.
    pub(crate) fn of(format: Format) -> Layout {
        match format {
            // Passport data page (part 4): the portrait at the left, between the header
            // and the MRZ.
            Format::Td3 => Layout {
                size: (125.0, 88.0),
                mrz_left: 5.3,
                last_line_from_bottom: 9.5,
                line_spacing: 6.1,
                portrait: Some([4.5, 16.0, 39.5, 62.0]),
            },
            // ID card (part 5): the MRZ is on the back, the portrait on the front.
            Format::Td1 => Layout {
                size: (85.6, 53.98),
                mrz_left: 4.5,
                last_line_from_bottom: 5.4,
                line_spacing: 4.3,
                portrait: None,
            },
            // Official travel document (part 6): the portrait at the left above the MRZ.
            Format::Td2 => Layout {
                size: (105.0, 74.0),
                mrz_left: 5.5,
                last_line_from_bottom: 7.5,
                line_spacing: 6.6,
                portrait: Some([3.0, 9.0, 35.0, 52.0]),
            },
            // The French identity card issued before 2021 follows no ICAO size: measured on
            // the specimen of `tests/data/images`.
            Format::FraId => Layout {
                size: (101.5, 70.0),
                mrz_left: 4.7,
                last_line_from_bottom: 6.7,
                line_spacing: 6.5,
                portrait: Some([0.5, 12.5, 31.5, 51.0]),
            },
            // Visas (part 7), 120 mm and 105 mm wide: the portrait at the left.
            Format::MrvA => Layout {
                size: (120.0, 80.0),
                mrz_left: 4.1,
                last_line_from_bottom: 5.5,
                line_spacing: 4.2,
                portrait: Some([5.0, 20.0, 31.0, 55.0]),
            },
            Format::MrvB => Layout {
                size: (105.0, 74.0),
                mrz_left: 6.8,
                last_line_from_bottom: 5.5,
                line_spacing: 4.2,
                portrait: Some([5.0, 20.0, 30.0, 53.0]),
            },
        }
    }

    /// The page coordinates of the centre of cell `column` of line `line` of `n_lines`.
    fn cell_centre(&self, line: usize, n_lines: usize, column: usize) -> (f32, f32) {
        let x = self.mrz_left + (column as f32 + 0.5) * PITCH_MM;
        let lines_below = (n_lines - 1 - line) as f32;
        let y = self.size.1 - self.last_line_from_bottom - lines_below * self.line_spacing;
        (x, y)
    }
}

/// A page point (millimetres) and where the photo shows it (pixels).
pub(crate) type PointPair = ((f32, f32), (f32, f32));

/// A similarity transform from page millimetres to photo pixels: `p = a·z + b` in complex
/// numbers, `a` holding the scale and the rotation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PageToPhoto {
    a: (f64, f64),
    b: (f64, f64),
}

impl PageToPhoto {
    /// The least-squares similarity taking each `page` point to its `photo` point; `None`
    /// with fewer than two distinct points.
    pub(crate) fn fit(pairs: &[PointPair]) -> Option<PageToPhoto> {
        let n = pairs.len() as f64;
        if pairs.len() < 2 {
            return None;
        }
        let mean = |pick: fn(&PointPair) -> (f32, f32)| {
            let (sx, sy) = pairs
                .iter()
                .map(pick)
                .fold((0.0f64, 0.0f64), |(sx, sy), (x, y)| (sx + f64::from(x), sy + f64::from(y)));
            (sx / n, sy / n)
        };
        let page_mean = mean(|pair| pair.0);
        let photo_mean = mean(|pair| pair.1);
        // a = Σ (w - w̄) · conj(z - z̄) / Σ |z - z̄|².
        let (mut re, mut im, mut norm) = (0.0f64, 0.0f64, 0.0f64);
        for &((zx, zy), (wx, wy)) in pairs {
            let (zx, zy) = (f64::from(zx) - page_mean.0, f64::from(zy) - page_mean.1);
            let (wx, wy) = (f64::from(wx) - photo_mean.0, f64::from(wy) - photo_mean.1);
            re += wx * zx + wy * zy;
            im += wy * zx - wx * zy;
            norm += zx * zx + zy * zy;
        }
        if norm < 1e-9 {
            return None;
        }
        let a = (re / norm, im / norm);
        let b = (
            photo_mean.0 - (a.0 * page_mean.0 - a.1 * page_mean.1),
            photo_mean.1 - (a.0 * page_mean.1 + a.1 * page_mean.0),
        );
        Some(PageToPhoto { a, b })
    }

    /// Maps a page point (millimetres) into the photo (pixels).
    pub(crate) fn apply(&self, point: (f32, f32)) -> (f32, f32) {
        let (x, y) = (f64::from(point.0), f64::from(point.1));
        let (a, b) = (self.a, self.b);
        ((a.0 * x - a.1 * y + b.0) as f32, (a.1 * x + a.0 * y + b.1) as f32)
    }

    /// Photo pixels per page millimetre.
    pub(crate) fn scale(&self) -> f32 {
        self.a.0.hypot(self.a.1) as f32
    }
}

/// The document's page in the photo.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct DocumentOutline {
    /// The page's corners in the photo's pixels (after EXIF orientation): top-left,
    /// top-right, bottom-right, bottom-left of the upright page.
    pub corners: [(f32, f32); 4],
    /// Whether all four corners lie inside the photo.
    pub complete: bool,
    /// How many of the page's sides were moved onto an edge the photo shows (0 to 4); the
    /// others are where the layout puts them.
    pub edges_found: usize,
}

/// Where the layout puts the holder's portrait, in the photo.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PortraitZone {
    /// The zone's bounding box in the photo's pixels, `[x0, y0, x1, y1]`, clipped to the
    /// photo.
    pub bbox: [f32; 4],
    /// Whether a face detector found a face in the zone, straightened to the upright page.
    pub face_found: bool,
}

/// The similarity that maps the page of a zone of `format` into the photo, fitted to the
/// zone's cells (lines top to bottom, cells in reading order, original pixels).
pub(crate) fn page_to_photo(format: Format, cells: &[Vec<CellGeometry>]) -> Option<PageToPhoto> {
    let layout = Layout::of(format);
    let n_lines = cells.len();
    let pairs: Vec<PointPair> = cells
        .iter()
        .enumerate()
        .flat_map(|(line, row)| {
            row.iter()
                .enumerate()
                .map(move |(column, cell)| (layout.cell_centre(line, n_lines, column), cell.centre))
        })
        .collect();
    PageToPhoto::fit(&pairs)
}

/// The page's outline and portrait zone in `gray`, into which `transform` maps a page of
/// `format`: the sides moved onto the page's own edges where they show ([`edges`]); the zone
/// without `face_found`, which the caller judges.
pub(crate) fn outline(
    format: Format,
    transform: &PageToPhoto,
    gray: &Gray,
) -> (DocumentOutline, Option<PortraitZone>) {
    let layout = Layout::of(format);
    let (page_w, page_h) = layout.size;
    let page_corners = [(0.0, 0.0), (page_w, 0.0), (page_w, page_h), (0.0, page_h)];
    let predicted = page_corners.map(|corner| transform.apply(corner));
    // The bottom side is looked for no nearer the zone than the last line's glyphs reach.
    let scale = transform.scale();
    let bottom_room = (layout.last_line_from_bottom - GLYPH_REACH_MM).max(0.0) * scale;
    let (corners, n_edges) =
        edges::refine(gray, predicted, [f32::MAX, f32::MAX, bottom_room, f32::MAX]);
    // With all four edges found, the page's own shape (perspective included) places the
    // portrait; otherwise the zone's similarity does.
    let to_photo =
        |point: (f32, f32)| match (n_edges, Homography::from_corners(page_corners, corners)) {
            (4, Some(homography)) => homography.apply(point),
            _ => transform.apply(point),
        };
    let (w, h) = (gray.width as f32, gray.height as f32);
    let complete = corners.iter().all(|&(x, y)| (0.0..=w).contains(&x) && (0.0..=h).contains(&y));
    let portrait = layout.portrait.and_then(|[left, top, right, bottom]| {
        let quad = [(left, top), (right, top), (right, bottom), (left, bottom)].map(to_photo);
        let min_x = quad.iter().map(|p| p.0).fold(f32::INFINITY, f32::min).max(0.0);
        let min_y = quad.iter().map(|p| p.1).fold(f32::INFINITY, f32::min).max(0.0);
        let max_x = quad.iter().map(|p| p.0).fold(f32::NEG_INFINITY, f32::max).min(w);
        let max_y = quad.iter().map(|p| p.1).fold(f32::NEG_INFINITY, f32::max).min(h);
        (max_x > min_x && max_y > min_y)
            .then_some(PortraitZone { bbox: [min_x, min_y, max_x, max_y], face_found: false })
    });
    (DocumentOutline { corners, complete, edges_found: n_edges }, portrait)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cells of a zone of `format` printed on a page that `transform` puts in the photo.
    fn cells_through(format: Format, transform: &PageToPhoto) -> Vec<Vec<CellGeometry>> {
        let (n_lines, n_columns) = match format {
            Format::Td1 => (3, 30),
            Format::Td3 | Format::MrvA => (2, 44),
            _ => (2, 36),
        };
        let layout = Layout::of(format);
        (0..n_lines)
            .map(|line| {
                (0..n_columns)
                    .map(|column| {
                        let (x, y) = layout.cell_centre(line, n_lines, column);
                        let centre = transform.apply((x, y));
                        let next = transform.apply((x + PITCH_MM, y));
                        let below = transform.apply((x, y + 2.0));
                        CellGeometry {
                            centre,
                            along: (next.0 - centre.0, next.1 - centre.1),
                            across: (below.0 - centre.0, below.1 - centre.1),
                        }
                    })
                    .collect()
            })
            .collect()
    }

    fn close(a: (f32, f32), b: (f32, f32), tolerance: f32) -> bool {
        (a.0 - b.0).hypot(a.1 - b.1) <= tolerance
    }

    #[test]
    fn a_turned_and_scaled_passport_maps_back_onto_its_corners() {
        // 8 px per millimetre, turned 30 degrees clockwise, shifted.
        let (cos, sin) = (30f64.to_radians().cos(), 30f64.to_radians().sin());
        let truth = PageToPhoto { a: (8.0 * cos, 8.0 * sin), b: (700.0, 150.0) };
        let cells = cells_through(Format::Td3, &truth);
        let (outline, portrait) = outline(
            Format::Td3,
            &page_to_photo(Format::Td3, &cells).unwrap(),
            &Gray::filled(2000, 2000, 128),
        );
        let expected = [(0.0, 0.0), (125.0, 0.0), (125.0, 88.0), (0.0, 88.0)]
            .map(|corner| truth.apply(corner));
        for (got, want) in outline.corners.iter().zip(expected) {
            assert!(close(*got, want, 0.01), "{got:?} against {want:?}");
        }
        assert!(outline.complete);
        let portrait = portrait.expect("a passport shows its portrait beside its MRZ");
        // The zone's bounding box holds the mapped zone's centre.
        let centre = truth.apply((22.5, 41.0));
        let [x0, y0, x1, y1] = portrait.bbox;
        assert!(x0 < centre.0 && centre.0 < x1 && y0 < centre.1 && centre.1 < y1);
    }

    #[test]
    fn a_page_running_off_the_photo_is_not_complete_and_its_portrait_is_clipped() {
        // Upright, 10 px per millimetre, the page's left 20 mm off the photo.
        let truth = PageToPhoto { a: (10.0, 0.0), b: (-200.0, 50.0) };
        let cells = cells_through(Format::Td3, &truth);
        let (outline, portrait) = outline(
            Format::Td3,
            &page_to_photo(Format::Td3, &cells).unwrap(),
            &Gray::filled(1200, 1000, 128),
        );
        assert!(!outline.complete);
        assert!(close(outline.corners[0], (-200.0, 50.0), 0.01));
        let [x0, _, x1, _] = portrait.unwrap().bbox;
        assert_eq!(x0, 0.0, "clipped at the photo's left edge");
        let zone_right = Layout::of(Format::Td3).portrait.unwrap()[2];
        assert!((x1 - (zone_right * 10.0 - 200.0)).abs() < 0.01);
    }

    #[test]
    fn an_id_card_back_has_no_portrait_and_a_card_shaped_outline() {
        // Upside down (180 degrees), 20 px per millimetre.
        let truth = PageToPhoto { a: (-20.0, 0.0), b: (1900.0, 1200.0) };
        let cells = cells_through(Format::Td1, &truth);
        let (outline, portrait) = outline(
            Format::Td1,
            &page_to_photo(Format::Td1, &cells).unwrap(),
            &Gray::filled(2000, 1300, 128),
        );
        assert!(portrait.is_none());
        assert!(outline.complete);
        let [top_left, top_right, bottom_right, _] = outline.corners;
        let side = |a: (f32, f32), b: (f32, f32)| (a.0 - b.0).hypot(a.1 - b.1);
        assert!(
            (side(top_left, top_right) / side(top_right, bottom_right) - 85.6 / 53.98).abs() < 1e-3
        );
        // Upside down, the page's top-left corner is at the photo's bottom right.
        assert!(close(top_left, (1900.0, 1200.0), 0.01));
    }

    #[test]
    fn the_fit_needs_two_distinct_points() {
        assert!(PageToPhoto::fit(&[((1.0, 1.0), (5.0, 5.0))]).is_none());
        assert!(PageToPhoto::fit(&[((1.0, 1.0), (5.0, 5.0)), ((1.0, 1.0), (6.0, 6.0))]).is_none());
        let fitted =
            PageToPhoto::fit(&[((0.0, 0.0), (10.0, 10.0)), ((1.0, 0.0), (10.0, 13.0))]).unwrap();
        assert!((fitted.scale() - 3.0).abs() < 1e-6);
        assert!(close(fitted.apply((0.0, 1.0)), (7.0, 10.0), 1e-4), "turned 90 degrees");
    }
}
