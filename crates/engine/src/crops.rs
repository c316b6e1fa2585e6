//! The page and the portrait a reading located, drawn upright from the photo in colour, for
//! a caller who asks for them: the page through the perspective its four corners give, at a
//! stated number of pixels per millimetre of the page; the portrait as the layout's zone of
//! that page, or, on a side without an MRZ, the face found with a margin round it; and the
//! photo itself, upright and shrunk, to draw the reading's geometry over where a browser
//! cannot show the file (HEIC, TIFF, a PDF's page).

use std::io::Cursor;

use image::RgbImage;

use crate::error::ImageError;
use crate::geometry::Homography;
use crate::image::{DecodeLimits, decode, decode_upright_rgb};
use crate::outline::Layout;
use crate::types::ImageReading;

/// The most pixels per page millimetre a caller may ask for: 20 (about 500 dpi) draws a
/// passport page 2,500 pixels wide, more than any photo holds.
pub const MAX_PIXELS_PER_MM: f32 = 20.0;

/// The JPEG quality of the images.
const QUALITY: u8 = 90;

/// The longest side of the photo's preview, in pixels.
pub const PREVIEW_PX: u32 = 1600;

/// A face's box is widened by this share of its size on every side to take in the head and
/// the shoulders, as a printed portrait shows them.
const FACE_MARGIN: f32 = 0.4;

/// One image drawn from the photo.
#[derive(Clone, Debug)]
pub struct Crop {
    /// The image, JPEG-encoded.
    pub jpeg: Vec<u8>,
    /// Its width in pixels.
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
}

/// The page and the portrait of a reading.
#[derive(Clone, Debug, Default)]
pub struct Crops {
    /// The document's page, straightened, when the reading has an outline.
    pub page: Option<Crop>,
    /// The holder's portrait, upright, when the reading places one.
    pub portrait: Option<Crop>,
    /// The photo (for a PDF, the page image the reading is of), upright, its longest side at
    /// most [`PREVIEW_PX`]: the reading's geometry scaled by `width / image_width` falls on it.
    pub photo: Option<Crop>,
}

/// Draws the page and the portrait of `reading`, which [`crate::Engine::read`] gave for
/// `bytes`, at `pixels_per_mm` (clamped to 1 to [`MAX_PIXELS_PER_MM`]). The photo is decoded
/// again in colour (in gray where only its luma can be, a HEIC; a PDF's page image as it is
/// stored). Nothing is drawn from a photo over the pixel limit (read from a reduced decode).
pub(crate) fn crops(
    bytes: &[u8],
    reading: &ImageReading,
    limits: DecodeLimits,
    pixels_per_mm: f32,
) -> Crops {
    let Some(photo) = photo_as_read(bytes, reading, limits) else {
        return Crops::default();
    };
    let preview = encode(&shrunk(&photo));
    let scale = pixels_per_mm.clamp(1.0, MAX_PIXELS_PER_MM);
    let page = page_map(reading);
    let page_crop = page.as_ref().and_then(|(map, layout)| {
        let (width, height) = layout.size;
        encode(&draw(&photo, map, [0.0, 0.0, width, height], scale))
    });
    let portrait_crop = match (&page, reading.portrait) {
        (Some((map, layout)), Some(_)) => {
            layout.portrait.and_then(|zone| encode(&draw(&photo, map, zone, scale)))
        }
        // A side without a zone: the face found, with the head and shoulders round it.
        (None, Some(face)) => {
            let [x0, y0, x1, y1] = face.bbox;
            let (dx, dy) = ((x1 - x0) * FACE_MARGIN, (y1 - y0) * FACE_MARGIN);
            let (left, top) = ((x0 - dx).max(0.0) as u32, (y0 - dy).max(0.0) as u32);
            let right = ((x1 + dx) as u32).min(photo.width());
            let bottom = ((y1 + dy * 1.5) as u32).min(photo.height());
            (right > left && bottom > top)
                .then(|| {
                    image::imageops::crop_imm(&photo, left, top, right - left, bottom - top)
                        .to_image()
                })
                .and_then(|cut| encode(&cut))
        }
        _ => None,
    };
    Crops { page: page_crop, portrait: portrait_crop, photo: preview }
}

/// The map from the page `reading` located (millimetres) into the photo, through its
/// outline's corners, and the page's layout; `None` without a located page.
fn page_map(reading: &ImageReading) -> Option<(Homography, Layout)> {
    let (document, read) = (reading.document.as_ref()?, reading.reading.as_ref()?);
    let layout = Layout::of(read.format);
    let (width, height) = layout.size;
    let rectangle = [(0.0, 0.0), (width, 0.0), (width, height), (0.0, height)];
    Homography::from_corners(rectangle, document.corners).map(|map| (map, layout))
}

/// The page `reading` located, drawn upright at `scale` pixels per millimetre from `photo`
/// (the photo it read, as [`photo_as_read`] gives it), with the map from the page
/// (millimetres) into the photo. `None` without a located page.
pub(crate) fn page_of_photo(
    photo: &RgbImage,
    reading: &ImageReading,
    scale: f32,
) -> Option<(RgbImage, Homography)> {
    let (map, layout) = page_map(reading)?;
    let (width, height) = layout.size;
    let page = draw(photo, &map, [0.0, 0.0, width, height], scale);
    Some((page, map))
}

/// The photo `reading` is of (of `bytes`), decoded again in colour, only when it has the
/// size the reading's geometry is in (not where the reading came from a reduced decode).
pub(crate) fn photo_as_read(
    bytes: &[u8],
    reading: &ImageReading,
    limits: DecodeLimits,
) -> Option<RgbImage> {
    let photo = decode_again(bytes, reading.page, limits)?;
    let size = (photo.width() as usize, photo.height() as usize);
    (size == (reading.image_width, reading.image_height)).then_some(photo)
}

/// The photo the reading is of, decoded again in colour: for a PDF, the image of `page`.
fn decode_again(bytes: &[u8], page: Option<u32>, limits: DecodeLimits) -> Option<RgbImage> {
    if let Some(page) = page {
        use crate::pdf::{PageImage, Pdf};
        let pdf = Pdf::parse(bytes, limits).ok()?;
        let (planned, _) = pdf.images_to_read(limits);
        let planned = planned.into_iter().find(|planned| planned.page == page)?;
        return match pdf.image(&planned.image, limits).ok()? {
            PageImage::Jpeg(jpeg) => decode_upright_rgb(jpeg, limits).ok(),
            PageImage::Gray(gray) => Some(gray_to_rgb(gray)),
        };
    }
    match decode_upright_rgb(bytes, limits) {
        Ok(rgb) => Some(rgb),
        Err(ImageError::UnsupportedFormat) => {
            decode(bytes, limits).ok().map(|d| gray_to_rgb(d.gray))
        }
        Err(_) => None,
    }
}

/// The photo with its longest side at most [`PREVIEW_PX`].
fn shrunk(photo: &RgbImage) -> RgbImage {
    let longest = photo.width().max(photo.height());
    if longest <= PREVIEW_PX {
        return photo.clone();
    }
    let scale = f64::from(PREVIEW_PX) / f64::from(longest);
    let size = |side: u32| ((f64::from(side) * scale).round() as u32).max(1);
    image::imageops::thumbnail(photo, size(photo.width()), size(photo.height()))
}

/// A gray raster as RGB, by the image crate's conversion (an empty image where the raster's
/// size and data disagree, which `Gray` never lets happen).
fn gray_to_rgb(gray: crate::gray::Gray) -> RgbImage {
    let (width, height) = (gray.width as u32, gray.height as u32);
    image::GrayImage::from_raw(width, height, gray.data)
        .map(|luma| image::DynamicImage::ImageLuma8(luma).into_rgb8())
        .unwrap_or_default()
}

/// Draws the page rectangle `zone` (millimetres: left, top, right, bottom) upright at `scale`
/// pixels per millimetre, each pixel sampled bilinearly where `map` puts it in `photo`; what
/// lies outside the photo is mid gray.
fn draw(photo: &RgbImage, map: &Homography, zone: [f32; 4], scale: f32) -> RgbImage {
    let [left, top, right, bottom] = zone;
    let width = ((right - left) * scale).round().max(1.0) as u32;
    let height = ((bottom - top) * scale).round().max(1.0) as u32;
    RgbImage::from_fn(width, height, |column, row| {
        let page = (left + (column as f32 + 0.5) / scale, top + (row as f32 + 0.5) / scale);
        let (x, y) = map.apply(page);
        sample(photo, x, y)
    })
}

/// The photo's colour at `(x, y)` (pixel centres at half-integers), bilinear; mid gray outside.
fn sample(photo: &RgbImage, x: f32, y: f32) -> image::Rgb<u8> {
    let (width, height) = (photo.width() as f32, photo.height() as f32);
    if !(0.0..width).contains(&x) || !(0.0..height).contains(&y) {
        return image::Rgb([128, 128, 128]);
    }
    let (xf, yf) = ((x - 0.5).clamp(0.0, width - 1.0), (y - 0.5).clamp(0.0, height - 1.0));
    let (x0, y0) = (xf.floor() as u32, yf.floor() as u32);
    let (x1, y1) = ((x0 + 1).min(photo.width() - 1), (y0 + 1).min(photo.height() - 1));
    let (ax, ay) = (xf - x0 as f32, yf - y0 as f32);
    let [p00, p10, p01, p11] =
        [(x0, y0), (x1, y0), (x0, y1), (x1, y1)].map(|(x, y)| photo.get_pixel(x, y).0);
    image::Rgb(std::array::from_fn(|channel| {
        let value = |p: [u8; 3]| f32::from(p[channel]);
        let top = value(p00) * (1.0 - ax) + value(p10) * ax;
        let bottom = value(p01) * (1.0 - ax) + value(p11) * ax;
        (top * (1.0 - ay) + bottom * ay).round().clamp(0.0, 255.0) as u8
    }))
}

fn encode(picture: &RgbImage) -> Option<Crop> {
    let mut jpeg = Vec::new();
    let encoder =
        image::codecs::jpeg::JpegEncoder::new_with_quality(Cursor::new(&mut jpeg), QUALITY);
    picture.write_with_encoder(encoder).ok()?;
    Some(Crop { jpeg, width: picture.width(), height: picture.height() })
}
