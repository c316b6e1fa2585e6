//! Decoding: bytes in, an upright grayscale raster out, within the configured limits.

use std::{
    io::Cursor,
    sync::atomic::{AtomicU64, Ordering},
};

use image::{DynamicImage, ImageDecoder, ImageReader};

use crate::error::ImageError;
use crate::gray::Gray;
use crate::jpeg::Reduction;

/// Limits applied while decoding untrusted input.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DecodeLimits {
    pub(crate) max_pixels: u64,
    pub(crate) max_bytes: usize,
}

/// A decoded image with the name of its container format.
pub(crate) struct Decoded {
    pub(crate) gray: Gray,
    pub(crate) format: &'static str,
}

/// The pixels every decoder in this process has produced (a raster, a half-size luma, a PDF
/// page image's samples): a statistic for a server's metrics, which shows the work a file
/// cost (a PDF that draws one image sixty times decodes it once).
static DECODED_PIXELS: AtomicU64 = AtomicU64::new(0);

/// The pixels decoded in this process so far, by every [`crate::Engine`]: a counter that
/// only grows, for metrics.
pub fn decoded_pixels_total() -> u64 {
    DECODED_PIXELS.load(Ordering::Relaxed)
}

/// Counts a decode of `width` × `height` pixels.
pub(crate) fn count_decoded(width: usize, height: usize) {
    DECODED_PIXELS.fetch_add(width.saturating_mul(height) as u64, Ordering::Relaxed);
}

/// What a PNG's compressed metadata (colour profile, text) may inflate to beyond the
/// file's own size.
const METADATA_BYTES: u64 = 16 << 20;

/// Decodes an image, applies its EXIF orientation and converts it to gray.
///
/// The pixel count is checked from the header before any pixel is decoded, and
/// the decoder gets a memory cap, so a small file that claims a huge raster is
/// refused instead of exhausting memory.
pub(crate) fn decode(bytes: &[u8], limits: DecodeLimits) -> Result<Decoded, ImageError> {
    if bytes.len() > limits.max_bytes {
        return Err(ImageError::TooLarge { bytes: bytes.len(), limit: limits.max_bytes });
    }
    if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        return decode_jpeg_luma(bytes, limits).map(|gray| Decoded { gray, format: "jpeg" });
    }
    if is_heif(bytes) {
        return decode_heif(bytes, limits).map(|gray| Decoded { gray, format: "heic" });
    }
    let (dynamic, orientation, format) = decode_dynamic(bytes, limits)?;
    Ok(Decoded { gray: upright_gray(dynamic, orientation), format })
}

/// The most pixels decoding `bytes` within `limits` holds at once, from the file's header,
/// for a caller that budgets decoded pixels: the declared size, a quarter of it where a
/// photo over the limit is read at half size, never more than the limit; the limit itself
/// for a PDF (its images are decoded one at a time, each within it) and for a file whose
/// size cannot be told from its header.
pub(crate) fn pixels_to_decode(bytes: &[u8], limits: DecodeLimits) -> u64 {
    let declared = if is_heif(bytes) {
        heifer::heifer_isobmff::HeifFile::parse(bytes).ok().and_then(|file| {
            file.item_properties(file.primary_id).ok().and_then(|mut properties| {
                properties.find_map(|property| match *property {
                    heifer::heifer_isobmff::boxes::Property::ImageSize { width, height } => {
                        Some((width, height))
                    }
                    _ => None,
                })
            })
        })
    } else if crate::pdf::is_pdf(bytes) {
        None
    } else {
        ImageReader::new(Cursor::new(bytes)).with_guessed_format().ok().and_then(|mut reader| {
            // Opening a decoder reads the metadata: a PNG's inflates, within its bound.
            let mut header_limits = image::Limits::default();
            header_limits.max_alloc = Some((bytes.len() as u64).saturating_add(METADATA_BYTES));
            reader.limits(header_limits);
            reader.into_dimensions().ok()
        })
    };
    let Some((width, height)) = declared else { return limits.max_pixels };
    let pixels = u64::from(width).saturating_mul(u64::from(height));
    if pixels > limits.max_pixels { (pixels / 4).min(limits.max_pixels) } else { pixels }
}

/// Pixels whose brightest and darkest channels differ by this much are coloured.
const COLOURED_SPREAD: u8 = 48;

/// The share of coloured pixels under which a photo's colour is no help in telling ink from
/// what lies over or under it.
const COLOURED_SHARE: f32 = 0.002;

/// How a photo is seen as ink on paper: the MRZ is printed black, so whatever has colour is
/// no ink of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum InkLook {
    /// Each pixel's brightest channel: anything coloured (a stamp, a pen line, an app's frame
    /// drawn over the zone, a tinted security print or UV fibres behind it) turns light while
    /// black print stays dark.
    Brightest,
    /// The brightest channel raised by the pixel's colour (its brightest less its darkest
    /// channel): a dark coloured mark, as dark blue ballpoint ink, whose brightest channel is
    /// still as dark as mid-gray, turns nearly paper. Black print's coloured fringes (a
    /// phone's demosaicing, JPEG's halved colour) lighten its edges too, so this look comes
    /// after the brightest channel's, not in its place.
    Lifted,
}

impl InkLook {
    /// The looks, in the order they are tried.
    pub(crate) const ALL: [InkLook; 2] = [InkLook::Brightest, InkLook::Lifted];

    /// The gray a pixel of colour `[r, g, b]` is seen as.
    fn of(self, [r, g, b]: [u8; 3]) -> u8 {
        let (high, low) = (r.max(g).max(b), r.min(g).min(b));
        match self {
            InkLook::Brightest => high,
            InkLook::Lifted => high.saturating_add(high - low),
        }
    }
}

/// The photo as ink on paper, seen as `look` says. `None` for a photo without colour to
/// speak of (a gray scan, a HEIC: the luma is all there is to see), or one that cannot be
/// decoded again.
pub(crate) fn decode_ink(bytes: &[u8], limits: DecodeLimits, look: InkLook) -> Option<Gray> {
    if bytes.len() > limits.max_bytes || is_heif(bytes) {
        return None;
    }
    let (dynamic, orientation, _) = decode_dynamic(bytes, limits).ok()?;
    if !dynamic.color().has_color() {
        return None;
    }
    // The colour raster is let go before the gray one is turned upright.
    let rgb = dynamic.into_rgb8();
    let (width, height) = rgb.dimensions();
    let mut coloured = 0usize;
    let data: Vec<u8> = rgb
        .pixels()
        .map(|pixel| {
            let [r, g, b] = pixel.0;
            coloured += usize::from(r.max(g).max(b) - r.min(g).min(b) >= COLOURED_SPREAD);
            look.of(pixel.0)
        })
        .collect();
    drop(rgb);
    let share = coloured as f32 / data.len().max(1) as f32;
    if share < COLOURED_SHARE {
        return None;
    }
    let ink = image::GrayImage::from_raw(width, height, data)?;
    Some(upright_gray(DynamicImage::ImageLuma8(ink), orientation))
}

/// Decodes a still image (not HEIF) within the limits, with its EXIF orientation.
fn decode_dynamic(
    bytes: &[u8],
    limits: DecodeLimits,
) -> Result<(DynamicImage, image::metadata::Orientation, &'static str), ImageError> {
    let mut reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|error| ImageError::Decode(error.to_string()))?;
    let format = match reader.format() {
        Some(image::ImageFormat::Jpeg) => "jpeg",
        Some(image::ImageFormat::Png) => "png",
        Some(image::ImageFormat::WebP) => "webp",
        Some(image::ImageFormat::Tiff) => "tiff",
        Some(image::ImageFormat::Bmp) => "bmp",
        _ => return Err(ImageError::UnsupportedFormat),
    };
    // Four bytes per pixel for the decoded raster plus the same again for
    // conversions is the most a legitimate image of the allowed size needs.
    let memory_limit = limits.max_pixels.saturating_mul(8).saturating_add(64 << 20);
    let mut decoder_limits = image::Limits::default();
    decoder_limits.max_alloc = Some(memory_limit);
    // The decoder is made under a limit of its own, since opening it reads the file's
    // metadata. A PNG's colour profile and text are deflate-compressed: a small file can
    // inflate them to gigabytes, so for PNG the header budget is the file's size plus
    // METADATA_BYTES (a real profile is a few hundred kilobytes). The other formats keep
    // their metadata uncompressed, within the file's size.
    let mut header_limits = decoder_limits.clone();
    if format == "png" {
        let header_bytes = (bytes.len() as u64).saturating_add(METADATA_BYTES);
        header_limits.max_alloc = Some(header_bytes.min(memory_limit));
    }
    reader.limits(header_limits);
    let mut decoder = reader.into_decoder().map_err(|error| map_error(error, memory_limit))?;
    let (width, height) = decoder.dimensions();
    check_pixels(width, height, limits)?;
    decoder.set_limits(decoder_limits).map_err(|error| map_error(error, memory_limit))?;
    // A missing or unreadable EXIF block means the pixels are already upright.
    let orientation = decoder.orientation().unwrap_or(image::metadata::Orientation::NoTransforms);
    let dynamic =
        DynamicImage::from_decoder(decoder).map_err(|error| map_error(error, memory_limit))?;
    count_decoded(width as usize, height as usize);
    Ok((dynamic, orientation, format))
}

/// Decodes a JPEG straight to its luma channel.
///
/// Photos arrive as colour JPEGs; asking the decoder for luma skips chroma
/// upsampling and colour conversion, which cost about as much as the rest of
/// decoding, and the reader needs gray anyway.
fn decode_jpeg_luma(bytes: &[u8], limits: DecodeLimits) -> Result<Gray, ImageError> {
    use zune_core::bytestream::ZCursor;
    use zune_core::colorspace::ColorSpace;
    use zune_core::options::DecoderOptions;
    use zune_jpeg::JpegDecoder;

    let options = DecoderOptions::default()
        .jpeg_set_out_colorspace(ColorSpace::Luma)
        .set_max_width(usize::from(u16::MAX))
        .set_max_height(usize::from(u16::MAX));
    let mut decoder = JpegDecoder::new_with_options(ZCursor::new(bytes), options);
    decoder.decode_headers().map_err(|error| ImageError::Decode(error.to_string()))?;
    let info = decoder.info().ok_or_else(|| ImageError::Decode("no JPEG header".to_owned()))?;
    let (width, height) = (u32::from(info.width), u32::from(info.height));
    check_pixels(width, height, limits)?;
    let orientation = decoder
        .exif()
        .and_then(|exif| image::metadata::Orientation::from_exif_chunk(exif))
        .unwrap_or(image::metadata::Orientation::NoTransforms);
    let data = decoder.decode().map_err(|error| ImageError::Decode(error.to_string()))?;
    count_decoded(width as usize, height as usize);
    let luma = image::GrayImage::from_raw(width, height, data)
        .ok_or_else(|| ImageError::Decode("the JPEG decoded to an unexpected size".to_owned()))?;
    Ok(upright_gray(DynamicImage::ImageLuma8(luma), orientation))
}

/// Whether the bytes are a HEIF file that may hold HEVC images: the iPhone's `heic`/`heix`,
/// or a generic `mif1`/`mif2` (AVIF and other codecs in the same container are refused
/// when their image is found not to be HEVC).
fn is_heif(bytes: &[u8]) -> bool {
    bytes.len() >= 12
        && matches!(
            heifer::check_file_type(bytes),
            heifer::FileTypeResult::Supported | heifer::FileTypeResult::MayBe
        )
}

/// Decodes a HEIC photo's primary image (grid tiles assembled, its crop, rotation and
/// mirroring applied by the decoder: HEIF's orientation lives in those properties, and
/// the EXIF tag only repeats it) to luma.
fn decode_heif(bytes: &[u8], limits: DecodeLimits) -> Result<Gray, ImageError> {
    let file = heifer::heifer_isobmff::HeifFile::parse(bytes)
        .map_err(|error| ImageError::Decode(format!("HEIF: {error}")))?;
    // The size the file declares for its primary image, checked before any pixel is decoded;
    // the decoder enforces the same limit on every tile and assembled image.
    let declared = file.item_properties(file.primary_id).ok().and_then(|mut properties| {
        properties.find_map(|property| match *property {
            heifer::heifer_isobmff::boxes::Property::ImageSize { width, height } => {
                Some((width, height))
            }
            _ => None,
        })
    });
    if let Some((width, height)) = declared {
        check_pixels(width, height, limits)?;
    }
    // One thread: the server already runs one read per core, and a decoder that spread each
    // photo over every core would multiply the threads by the reads in flight.
    let options = heifer::Options { max_threads: 1, max_pixels: limits.max_pixels };
    let image = heifer::decode_rgba8(bytes, &options).map_err(|error| match error {
        heifer::Error::Unsupported(_) => ImageError::UnsupportedFormat,
        other => ImageError::Decode(format!("HEIC: {other}")),
    })?;
    let (width, height) = (image.width as usize, image.height as usize);
    count_decoded(width, height);
    if image.data.len() != width * height * 4 {
        return Err(ImageError::Decode("the HEIC decoded to an unexpected size".to_owned()));
    }
    let data =
        image.data.chunks_exact(4).map(|rgba| Gray::luma(rgba[0], rgba[1], rgba[2])).collect();
    Ok(Gray { width, height, data })
}

/// A large JPEG decoded at reduced size, upright, with the full upright size; `choose` picks
/// the reduction from the full width and height, or refuses the file (too small to need it,
/// or too large). `None` also when the file is over the byte limit or not one the reducing
/// decoder handles (the caller then decodes it in full, which also reports any error).
pub(crate) fn decode_jpeg_reduced(
    bytes: &[u8],
    limits: DecodeLimits,
    choose: impl FnOnce(u32, u32) -> Option<Reduction>,
) -> Option<ReducedDecoded> {
    if bytes.len() > limits.max_bytes || !bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        return None;
    }
    let reduced = crate::jpeg::decode_reduced_luma(bytes, |width, height| {
        choose(width, height).filter(|_| width > 0 && height > 0)
    })?;
    count_decoded(reduced.gray.width, reduced.gray.height);
    let orientation = reduced
        .exif
        .as_deref()
        .and_then(image::metadata::Orientation::from_exif_chunk)
        .unwrap_or(image::metadata::Orientation::NoTransforms);
    use image::metadata::Orientation::{Rotate90, Rotate90FlipH, Rotate270, Rotate270FlipH};
    let turned = matches!(orientation, Rotate90 | Rotate270 | Rotate90FlipH | Rotate270FlipH);
    let full_size =
        if turned { (reduced.height, reduced.width) } else { (reduced.width, reduced.height) };
    let luma = image::GrayImage::from_raw(
        reduced.gray.width as u32,
        reduced.gray.height as u32,
        reduced.gray.data,
    )?;
    let gray = upright_gray(DynamicImage::ImageLuma8(luma), orientation);
    Some(ReducedDecoded {
        gray,
        factor: reduced.reduction.factor() as f32,
        full_width: full_size.0 as usize,
        full_height: full_size.1 as usize,
        format: "jpeg",
    })
}

/// Whether a raster of `width` by `height` is within the pixel limit (and not empty).
pub(crate) fn within_pixels(width: u32, height: u32, limits: DecodeLimits) -> bool {
    check_pixels(width, height, limits).is_ok()
}

/// A photo decoded at reduced size.
pub(crate) struct ReducedDecoded {
    /// The upright luma at reduced size.
    pub(crate) gray: Gray,
    /// The full-size pixels per reduced pixel, in each direction.
    pub(crate) factor: f32,
    /// The upright full-size width.
    pub(crate) full_width: usize,
    /// The upright full-size height.
    pub(crate) full_height: usize,
    /// The container format.
    pub(crate) format: &'static str,
}

/// A HEIC over the pixel limit, decoded whole within `limits` and halved (2 × 2 averages);
/// `None` when it is no HEIC or cannot be decoded within them (the caller then reports the
/// usual error).
pub(crate) fn decode_heif_half(bytes: &[u8], limits: DecodeLimits) -> Option<ReducedDecoded> {
    if bytes.len() > limits.max_bytes || !is_heif(bytes) {
        return None;
    }
    let full = decode_heif(bytes, limits).ok()?;
    Some(ReducedDecoded {
        gray: full.shrink(2),
        factor: 2.0,
        full_width: full.width,
        full_height: full.height,
        format: "heic",
    })
}

/// Refuses a raster over the pixel limit, or without pixels, from its header.
fn check_pixels(width: u32, height: u32, limits: DecodeLimits) -> Result<(), ImageError> {
    let pixels = u64::from(width) * u64::from(height);
    if pixels > limits.max_pixels {
        return Err(ImageError::TooManyPixels { width, height, pixels, limit: limits.max_pixels });
    }
    if pixels == 0 {
        return Err(ImageError::Decode("the image has no pixels".to_owned()));
    }
    Ok(())
}

/// Decodes a still image (not HEIF, not PDF) in colour within the limits, upright by its
/// EXIF orientation: what the page and portrait images are drawn from.
pub(crate) fn decode_upright_rgb(
    bytes: &[u8],
    limits: DecodeLimits,
) -> Result<image::RgbImage, ImageError> {
    if bytes.len() > limits.max_bytes {
        return Err(ImageError::TooLarge { bytes: bytes.len(), limit: limits.max_bytes });
    }
    let (mut dynamic, orientation, _) = decode_dynamic(bytes, limits)?;
    dynamic.apply_orientation(orientation);
    Ok(dynamic.into_rgb8())
}

/// Applies the EXIF orientation and converts to the reader's gray raster.
fn upright_gray(mut image: DynamicImage, orientation: image::metadata::Orientation) -> Gray {
    image.apply_orientation(orientation);
    let luma = image.into_luma8();
    let (width, height) = luma.dimensions();
    Gray { width: width as usize, height: height as usize, data: luma.into_raw() }
}

fn map_error(error: image::ImageError, memory_limit: u64) -> ImageError {
    match error {
        image::ImageError::Limits(_) => ImageError::MemoryLimit { limit: memory_limit },
        image::ImageError::Unsupported(_) => ImageError::UnsupportedFormat,
        other => ImageError::Decode(other.to_string()),
    }
}

#[cfg(test)]
mod pixels_tests {
    use super::*;

    #[test]
    fn the_pixels_to_decode_come_from_the_header() {
        let limits = DecodeLimits { max_pixels: 1_000_000, max_bytes: 50 << 20 };
        let png = |width, height| {
            let mut bytes = Cursor::new(Vec::new());
            image::GrayImage::new(width, height)
                .write_to(&mut bytes, image::ImageFormat::Png)
                .unwrap();
            bytes.into_inner()
        };
        assert_eq!(pixels_to_decode(&png(400, 300), limits), 120_000);
        // Over the limit: read at half size, a quarter of the pixels, never over the limit.
        assert_eq!(pixels_to_decode(&png(2000, 1000), limits), 500_000);
        assert_eq!(pixels_to_decode(&png(4000, 4000), limits), 1_000_000);
        // Not an image, or a PDF: the limit.
        assert_eq!(pixels_to_decode(b"not an image", limits), 1_000_000);
        assert_eq!(pixels_to_decode(b"%PDF-1.5 ...", limits), 1_000_000);
    }

    #[test]
    fn coloured_marks_are_seen_lighter_than_black_print() {
        let (black, paper, ballpoint) = ([30, 32, 28], [235, 232, 228], [25, 35, 110]);
        // The brightest channel leaves black print and paper as the luma has them, and a
        // dark blue pen stroke as dark as mid-gray.
        assert_eq!(InkLook::Brightest.of(black), 32);
        assert_eq!(InkLook::Brightest.of(paper), 235);
        assert_eq!(InkLook::Brightest.of(ballpoint), 110);
        // Lifted by its colour, the stroke is nearly paper; black print stays black, and
        // paper stays paper.
        assert_eq!(InkLook::Lifted.of(ballpoint), 195);
        assert!(InkLook::Lifted.of(black) < 40);
        assert_eq!(InkLook::Lifted.of(paper), 242);
        // A saturated stamp turns white, never wraps round to dark.
        assert_eq!(InkLook::Lifted.of([200, 20, 30]), 255);
    }
}
