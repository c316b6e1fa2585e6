//! Photos read into results, in place: no transport, no gate, no budget. What
//! [`crate::AppState`] runs on the blocking pool once a read has its slot, and what
//! `mrtd scan` runs for each file, so that a photo, with its extras, and a document's two
//! sides give one result whichever door they came in by.

use mrtd_engine::{Engine, ImageError, ImageReading, ParseOptions};

use crate::ops::{Extras, IMAGE_PIXELS_PER_MM};
use crate::result::{DocumentResult, ImagesPart};

/// A photo read: its result, and the photo and the engine's reading of it, which the
/// visual zone of a document's two sides reads again. Not `Debug`: it holds the photo, which
/// no log may show.
pub struct PhotoRead {
    /// The photo's result, with the extras asked for.
    pub result: DocumentResult,
    image: Vec<u8>,
    reading: ImageReading,
}

/// Reads `image` with `engine`: its MRZ, and the extras asked for (the page and the
/// portrait drawn at [`IMAGE_PIXELS_PER_MM`], the visual zone). Fails only for bytes that
/// are no usable image; a photo without a readable MRZ is a result.
pub fn read_photo(
    engine: &Engine,
    image: Vec<u8>,
    options: &ParseOptions,
    extras: Extras,
) -> Result<PhotoRead, ImageError> {
    let reading = engine.read(&image, options)?;
    let mut result = DocumentResult::from_image(&reading);
    if extras.images {
        let crops = engine.crops(&image, &reading, IMAGE_PIXELS_PER_MM);
        result.images = Some(ImagesPart::new(IMAGE_PIXELS_PER_MM, crops));
    }
    if extras.visual_zone {
        // The text reader's networks are embedded and checked: failing to run them on a
        // page is a fault of this build, told as the visual zone not read.
        result.set_visual_zone(engine.visual_zone(&image, &reading));
    }
    Ok(PhotoRead { result, image, reading })
}

/// The result of a document's two sides, `first` and `second` in the order given, each read
/// by [`read_photo`] without the visual zone ([`DocumentResult::from_sides`]); with
/// `visual_zone`, the visual zone of both together, the side without the MRZ (a card's
/// front, which prints most of its fields) with the page of the side with it.
pub fn sides(
    engine: &Engine,
    first: PhotoRead,
    second: PhotoRead,
    visual_zone: bool,
) -> DocumentResult {
    let mut result = DocumentResult::from_sides(first.result, second.result);
    if visual_zone {
        let first_has_the_mrz = result.other_side.as_ref().is_some_and(|side| side.photo == 2);
        let ((mrz_side, mrz_reading), (other_side, other_reading)) = if first_has_the_mrz {
            ((first.image, first.reading), (second.image, second.reading))
        } else {
            ((second.image, second.reading), (first.image, first.reading))
        };
        let visual =
            engine.visual_zone_of_sides((&mrz_side, &mrz_reading), (&other_side, &other_reading));
        result.set_visual_zone(visual);
    }
    result
}

/// The pixels reading `first` and `second` again holds decoded at once (one after the other).
pub(crate) fn pixels_to_read_again(engine: &Engine, first: &PhotoRead, second: &PhotoRead) -> u64 {
    engine.pixels_to_decode(&first.image).max(engine.pixels_to_decode(&second.image))
}
