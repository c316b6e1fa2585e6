//! Scanned PDFs: the images drawn on each page, in page order.
//!
//! Scanners and phone scanning apps write one image per page, as a JPEG (`DCTDecode`) or as
//! Flate-compressed samples (gray, RGB or CMYK, 8 or 1 bits, PNG or TIFF predictors). Those
//! are what is read here; text drawn with fonts is not rendered, and images in other codecs
//! (CCITT fax, JBIG2, JPEG 2000) are reported as skipped. `lopdf` parses the file with a bound
//! on every stream it inflates; the image's declared size is checked against the pixel
//! limit before its samples are inflated.

use lopdf::{Document, LoadOptions, Object, xobject::PdfImage};

use crate::{error::ImageError, gray::Gray, image::DecodeLimits};

/// Pages looked through, at most.
pub(crate) const MAX_PAGES: usize = 20;
/// Images looked at across all pages, at most.
pub(crate) const MAX_IMAGES: usize = 40;
/// The pixels a PDF's images may hold in all, as a multiple of the pixel limit of one image:
/// the images are decoded one at a time, but each decode costs time in proportion.
pub(crate) const PIXEL_BUDGET_IMAGES: u64 = 4;
/// Images smaller than this on either side are logos and decorations, not scans.
const MIN_SIDE: i64 = 64;

/// Whether the bytes are a PDF file.
pub(crate) fn is_pdf(bytes: &[u8]) -> bool {
    bytes.starts_with(b"%PDF-")
}

/// One image of a page.
pub(crate) enum PageImage<'a> {
    /// A JPEG file as embedded: read like any uploaded JPEG.
    Jpeg(&'a [u8]),
    /// Samples turned to gray.
    Gray(Gray),
}

/// A parsed PDF.
pub(crate) struct Pdf {
    document: Document,
}

/// An image to read, and the page (numbered from 1) it was first drawn on.
pub(crate) struct Planned<'a> {
    pub(crate) page: u32,
    pub(crate) image: PdfImage<'a>,
}

/// Why an image of a page was not read.
pub(crate) struct Skipped {
    /// The filter or colour space not handled.
    pub(crate) reason: String,
}

impl Pdf {
    /// Parses the file; every stream inflated while loading is bounded by the byte limit.
    pub(crate) fn parse(bytes: &[u8], limits: DecodeLimits) -> Result<Self, ImageError> {
        let options =
            LoadOptions { max_decompressed_size: Some(limits.max_bytes), ..LoadOptions::default() };
        let document = Document::load_mem_with_options(bytes, options)
            .map_err(|error| ImageError::Decode(format!("the PDF could not be read: {error}")))?;
        if document.is_encrypted() {
            return Err(ImageError::Decode(
                "the PDF is encrypted; save it without a password".to_owned(),
            ));
        }
        Ok(Pdf { document })
    }

    /// The pages to look through, numbered from 1, in order (at most [`MAX_PAGES`]).
    pub(crate) fn pages(&self) -> Vec<(u32, lopdf::ObjectId)> {
        self.document.get_pages().into_iter().take(MAX_PAGES).collect()
    }

    /// The images to read, with their page numbers: page by page, largest first on a page;
    /// each image object once however many pages or names draw it; at most [`MAX_IMAGES`];
    /// and no more pixels in all than [`PIXEL_BUDGET_IMAGES`] times the pixel limit (an image
    /// beyond that is skipped, with the reason). Nothing is inflated here.
    pub(crate) fn images_to_read(&self, limits: DecodeLimits) -> (Vec<Planned<'_>>, Vec<Skipped>) {
        let budget = limits.max_pixels.saturating_mul(PIXEL_BUDGET_IMAGES);
        let mut seen = std::collections::HashSet::new();
        let mut pixels = 0u64;
        let (mut planned, mut skipped) = (Vec::new(), Vec::new());
        for (number, page) in self.pages() {
            let mut images = self.document.get_page_images(page).unwrap_or_default();
            images.retain(|image| image.width >= MIN_SIDE && image.height >= MIN_SIDE);
            images.sort_by_key(|image| std::cmp::Reverse(image.width.saturating_mul(image.height)));
            for image in images {
                if !seen.insert(image.id) {
                    continue;
                }
                if planned.len() == MAX_IMAGES {
                    return (planned, skipped);
                }
                let size = u64::try_from(image.width.saturating_mul(image.height)).unwrap_or(0);
                if pixels.saturating_add(size) > budget {
                    skipped.push(Skipped {
                        reason: "images beyond the pixels a PDF may hold in all".to_owned(),
                    });
                    continue;
                }
                pixels += size;
                planned.push(Planned { page: number, image });
            }
        }
        (planned, skipped)
    }

    /// One planned image as read, or why it was skipped. Each is inflated only when it is
    /// taken, so that one image's samples are held at a time.
    pub(crate) fn image<'a>(
        &'a self,
        image: &PdfImage<'a>,
        limits: DecodeLimits,
    ) -> Result<PageImage<'a>, Skipped> {
        let skipped = |reason: String| Skipped { reason };
        let filters = image.filters.clone().unwrap_or_default();
        match filters.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
            // Only a JPEG goes on to be read as a file: anything else (another PDF, say)
            // could nest without end.
            ["DCTDecode"] if image.content.starts_with(&[0xFF, 0xD8, 0xFF]) => {
                return Ok(PageImage::Jpeg(image.content));
            }
            ["DCTDecode"] => {
                return Err(skipped("a DCTDecode image that is not a JPEG".to_owned()));
            }
            [] | ["FlateDecode"] => {}
            other => return Err(skipped(format!("an image compressed as {}", other.join(", ")))),
        }
        let (width, height) = (image.width, image.height);
        let pixels = u64::try_from(width.saturating_mul(height)).unwrap_or(u64::MAX);
        if pixels > limits.max_pixels {
            return Err(skipped(format!("an image of {width} × {height} pixels, over the limit")));
        }
        let components = self.components(image).ok_or_else(|| {
            skipped(format!(
                "an image in the colour space {}",
                image.color_space.as_deref().unwrap_or("(none)")
            ))
        })?;
        let bits = image.bits_per_component.unwrap_or(8);
        if !matches!((bits, components), (8, _) | (1, 1)) {
            return Err(skipped(format!("an image of {bits} bits per sample")));
        }
        let (width, height) = (width as usize, height as usize);
        let row_bytes = (width * components * bits as usize).div_ceil(8);
        let needed = row_bytes * height;
        let stream = lopdf::Stream::new(image.origin_dict.clone(), image.content.to_vec());
        // PNG predictors add a tag byte to every row before they are undone.
        let inflated_limit = needed + height + 1024;
        let samples = stream
            .decompressed_content_with_limit(inflated_limit)
            .map_err(|error| skipped(format!("an image that could not be inflated: {error}")))?;
        if samples.len() < needed {
            return Err(skipped("an image with fewer samples than its size needs".to_owned()));
        }
        let inverted = decode_is_inverted(image);
        let data = to_gray(&samples, width, height, components, bits == 1, row_bytes, inverted);
        crate::image::count_decoded(width, height);
        Ok(PageImage::Gray(Gray { width, height, data }))
    }

    /// Colour components per sample, for the colour spaces a scan uses.
    fn components(&self, image: &PdfImage<'_>) -> Option<usize> {
        match image.color_space.as_deref() {
            Some("DeviceGray" | "CalGray" | "G") => Some(1),
            Some("DeviceRGB" | "CalRGB" | "RGB") => Some(3),
            Some("DeviceCMYK" | "CMYK") => Some(4),
            Some("ICCBased") => {
                let array = image.origin_dict.get(b"ColorSpace").ok()?.as_array().ok()?;
                let (_, profile) = self.document.dereference(array.get(1)?).ok()?;
                let n = profile.as_stream().ok()?.dict.get(b"N").ok()?.as_i64().ok()?;
                matches!(n, 1 | 3 | 4).then_some(n as usize)
            }
            // An image mask or a stencil has no colour space: one bit, ink where 0.
            None if image.bits_per_component == Some(1) => Some(1),
            _ => None,
        }
    }
}

/// Whether `/Decode [1 0]` inverts the samples (as some bilevel scans write them).
fn decode_is_inverted(image: &PdfImage<'_>) -> bool {
    let number =
        |object: &Object| object.as_float().ok().or_else(|| object.as_i64().ok().map(|v| v as f32));
    match image.origin_dict.get(b"Decode").and_then(Object::as_array) {
        Ok(array) => array.first().and_then(number).is_some_and(|first| first > 0.5),
        Err(_) => false,
    }
}

/// Samples to gray: luma from RGB, ink from CMYK, 1-bit rows unpacked.
fn to_gray(
    samples: &[u8],
    width: usize,
    height: usize,
    components: usize,
    one_bit: bool,
    row_bytes: usize,
    inverted: bool,
) -> Vec<u8> {
    let mut gray = Vec::with_capacity(width * height);
    for row in samples.chunks_exact(row_bytes).take(height) {
        if one_bit {
            gray.extend(
                (0..width).map(|x| if row[x / 8] >> (7 - x % 8) & 1 == 1 { 255 } else { 0 }),
            );
            continue;
        }
        gray.extend(row[..width * components].chunks_exact(components).map(|pixel| match pixel {
            [v] => *v,
            [r, g, b] => Gray::luma(*r, *g, *b),
            [c, m, y, k] => {
                let ink = u32::from(Gray::luma(*c, *m, *y)) + u32::from(*k);
                255 - ink.min(255) as u8
            }
            _ => 0,
        }));
    }
    if inverted {
        gray.iter_mut().for_each(|v| *v = 255 - *v);
    }
    gray
}

#[cfg(test)]
mod tests {
    use lopdf::{Document, Object, Stream, dictionary};

    use super::{MAX_IMAGES, PIXEL_BUDGET_IMAGES, Pdf};
    use crate::{EngineBuilder, ImageError, ParseOptions, image::DecodeLimits};

    /// A PDF of `pages` pages; page `n` draws the images `draws(n)` names, out of `images`
    /// distinct gray images of 100 × 80 (one XObject name per image drawn).
    fn pdf_drawing(images: usize, pages: usize, draws: impl Fn(usize) -> Vec<usize>) -> Vec<u8> {
        let mut doc = Document::with_version("1.5");
        let pages_id = doc.new_object_id();
        let image_ids: Vec<_> = (0..images)
            .map(|n| {
                let dict = dictionary! {
                    "Type" => "XObject", "Subtype" => "Image", "Width" => 100, "Height" => 80,
                    "ColorSpace" => "DeviceGray", "BitsPerComponent" => 8,
                };
                doc.add_object(Stream::new(dict, vec![200 - n as u8; 100 * 80]))
            })
            .collect();
        let kids: Vec<Object> = (0..pages)
            .map(|page| {
                let mut xobjects = lopdf::Dictionary::new();
                for (name, image) in draws(page).into_iter().enumerate() {
                    xobjects.set(format!("Im{name}"), image_ids[image]);
                }
                doc.add_object(dictionary! {
                    "Type" => "Page", "Parent" => pages_id,
                    "MediaBox" => vec![0.into(), 0.into(), 100.into(), 80.into()],
                    "Resources" => dictionary! { "XObject" => xobjects },
                })
                .into()
            })
            .collect();
        doc.objects.insert(
            pages_id,
            Object::Dictionary(dictionary! {
                "Type" => "Pages", "Kids" => kids, "Count" => pages as i64,
            }),
        );
        let catalog_id = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
        doc.trailer.set("Root", catalog_id);
        let mut bytes = Vec::new();
        doc.save_to(&mut bytes).expect("a PDF");
        bytes
    }

    fn limits(max_pixels: u64) -> DecodeLimits {
        DecodeLimits { max_pixels, max_bytes: 50 << 20 }
    }

    #[test]
    fn an_image_drawn_sixty_times_is_decoded_once() {
        // Sixty names for one image on one page, and one image on each of twenty pages (the
        // pages looked through): one decode each.
        for bytes in [pdf_drawing(1, 1, |_| vec![0; 60]), pdf_drawing(1, 60, |_| vec![0])] {
            let pdf = Pdf::parse(&bytes, limits(40_000_000)).unwrap();
            let (planned, skipped) = pdf.images_to_read(limits(40_000_000));
            assert_eq!(planned.len(), 1);
            assert_eq!(planned[0].page, 1);
            assert!(skipped.is_empty());
            let engine = EngineBuilder::new().build();
            let reading = engine.read(&bytes, &ParseOptions::default()).unwrap();
            assert_eq!(reading.page, Some(1));
        }
        // Distinct images are each read, up to the cap.
        let many = pdf_drawing(60, 1, |_| (0..60).collect());
        let pdf = Pdf::parse(&many, limits(40_000_000)).unwrap();
        assert_eq!(pdf.images_to_read(limits(40_000_000)).0.len(), MAX_IMAGES);
    }

    #[test]
    fn a_pdf_s_images_share_one_pixel_budget() {
        // Room for PIXEL_BUDGET_IMAGES images of the pixel limit: the rest are skipped.
        let one_image = 100 * 80;
        let bytes = pdf_drawing(10, 10, |page| vec![page]);
        let pdf = Pdf::parse(&bytes, limits(one_image)).unwrap();
        let (planned, skipped) = pdf.images_to_read(limits(one_image));
        assert_eq!(planned.len() as u64, PIXEL_BUDGET_IMAGES);
        assert_eq!(skipped.len() as u64, 10 - PIXEL_BUDGET_IMAGES);
        assert!(skipped[0].reason.contains("pixels a PDF may hold"));
        let pages: Vec<u32> = planned.iter().map(|p| p.page).collect();
        assert_eq!(pages, [1, 2, 3, 4]);
    }

    /// A one-page PDF whose page draws one 100 × 80 gray image with this filter (none when
    /// empty) and content.
    fn one_image_pdf(filter: &str, content: Vec<u8>) -> Vec<u8> {
        let mut doc = Document::with_version("1.5");
        let pages_id = doc.new_object_id();
        let mut dict = dictionary! {
            "Type" => "XObject", "Subtype" => "Image", "Width" => 100, "Height" => 80,
            "ColorSpace" => "DeviceGray", "BitsPerComponent" => 8,
        };
        if !filter.is_empty() {
            dict.set("Filter", filter);
        }
        let image = Stream::new(dict, content);
        let image_id = doc.add_object(image);
        let page_id = doc.add_object(dictionary! {
            "Type" => "Page", "Parent" => pages_id, "MediaBox" => vec![0.into(), 0.into(), 100.into(), 80.into()],
            "Resources" => dictionary! { "XObject" => dictionary! { "Im0" => image_id } },
        });
        doc.objects.insert(
            pages_id,
            Object::Dictionary(dictionary! {
                "Type" => "Pages", "Kids" => vec![page_id.into()], "Count" => 1,
            }),
        );
        let catalog_id = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
        doc.trailer.set("Root", catalog_id);
        let mut bytes = Vec::new();
        doc.save_to(&mut bytes).expect("a PDF");
        bytes
    }

    #[test]
    fn a_page_image_is_read_and_a_pdf_inside_an_image_is_not_followed() {
        let engine = EngineBuilder::new().build();
        let options = ParseOptions::default();
        let blank = engine.read(&one_image_pdf("", vec![200; 100 * 80]), &options).unwrap();
        assert_eq!((blank.page, blank.image_format), (Some(1), "pdf"));
        assert_eq!((blank.image_width, blank.image_height), (100, 80));

        // A "JPEG" that is itself a PDF, nested again and again, is skipped, not opened.
        let mut nested = one_image_pdf("", vec![0; 10]);
        for _ in 0..50 {
            nested = one_image_pdf("DCTDecode", nested);
        }
        match engine.read(&nested, &options) {
            Err(ImageError::Decode(message)) => {
                assert!(message.contains("not a JPEG"), "{message}")
            }
            other => panic!("{:?}", other.map(|r| r.status)),
        }
    }
}
