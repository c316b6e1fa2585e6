//! The engine value: configuration, the embedded model, and the read pipeline.

use std::sync::{Arc, OnceLock};
use std::time::Instant;

use crate::attempt::{Attempt, rank};
use crate::cells::CellGeometry;
use crate::components::Darkness;
use crate::error::ImageError;
use crate::face::FaceModel;
use crate::image::{DecodeLimits, InkLook, decode, decode_ink, decode_jpeg_reduced, within_pixels};
use crate::jpeg::Reduction;
use crate::locate::{LocateReport, MrzCandidate, WorkImage, locate, shrink_factor, work_image};
use crate::model::Classifier;
use crate::recognise::Reader;
use crate::strokes::{Stroke, erase, find_strokes, strokes_over};
use crate::types::{DiagnosticCode, ImageReading, Status};
use mrtd_mrz::ParseOptions;

/// JPEGs this long on their longest side (phone photos) are read at half size
/// first.
const HALF_SIZE_FROM_PX: u32 = 3600;

/// How far over the pixel limit a JPEG may be and still be read, at half size (which holds a
/// quarter of its pixels, so the decoded raster stays within the limit).
const OVERSIZED_FACTOR: u64 = 4;

/// How far over the pixel limit a JPEG may be and still be read, at quarter size (a 200 MP
/// frame against the default 40 MP). A progressive file holds 40 bytes a luma block while its
/// scans come in: 150 MB at this many pixels with the default limit, besides the 15 MP
/// quarter-size plane, about the 4 bytes a pixel of the limit that the decoded-pixel budget
/// reckons with.
const QUARTER_OVERSIZED_FACTOR: u64 = 6;

/// How far over the pixel limit a HEIC may be and still be read at half size: a HEIC is
/// decoded whole (to RGBA, four bytes a pixel) before it is halved, so twice the limit (an
/// iPhone's 48 MP "HEIF Max" photo) rather than four times.
const HEIC_OVERSIZED_FACTOR: u64 = 2;

/// The character height, in half-size pixels, from which a half-size reading
/// stands: the cell sampler then takes about one sample per pixel there, where
/// at full size it would average 2x2 pixels per sample to the same effect.
const HALF_SIZE_MIN_GLYPH_PX: f32 = 15.0;

/// Limits and thresholds of an [`Engine`].
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// Largest image accepted, in pixels (width times height).
    pub max_pixels: u64,
    /// Largest encoded input accepted, in bytes.
    pub max_bytes: usize,
    /// How many candidate regions to try before giving up.
    pub max_candidates: usize,
}

impl Default for EngineConfig {
    fn default() -> EngineConfig {
        EngineConfig { max_pixels: 40_000_000, max_bytes: 50 * 1024 * 1024, max_candidates: 8 }
    }
}

/// Builds an [`Engine`].
#[derive(Clone, Debug, Default)]
pub struct EngineBuilder {
    config: EngineConfig,
}

impl EngineBuilder {
    /// Starts from the default configuration.
    pub fn new() -> EngineBuilder {
        EngineBuilder::default()
    }

    /// Replaces the whole configuration.
    pub fn config(mut self, config: EngineConfig) -> EngineBuilder {
        self.config = config;
        self
    }

    /// Sets the pixel limit.
    pub fn max_pixels(mut self, max_pixels: u64) -> EngineBuilder {
        self.config.max_pixels = max_pixels;
        self
    }

    /// Sets the byte limit.
    pub fn max_bytes(mut self, max_bytes: usize) -> EngineBuilder {
        self.config.max_bytes = max_bytes;
        self
    }

    /// Makes the engine, loading the embedded classifier.
    pub fn build(self) -> Engine {
        let model = Classifier::embedded();
        let face = FaceModel::embedded().expect("the embedded face model is the one shipped");
        Engine { config: self.config, model, face, text: Arc::default() }
    }
}

/// Reads MRZs from images. Build once and share: reading takes `&self`.
#[derive(Clone, Debug)]
pub struct Engine {
    config: EngineConfig,
    model: Classifier,
    face: FaceModel,
    /// The visual zone's text reader, loaded on the first read that asks for it.
    text: Arc<OnceLock<Option<mrtd_text::TextReader>>>,
}

impl Engine {
    /// The configuration in use.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// The most pixels [`Engine::read`] holds decoded at once for `image_bytes`, read from
    /// the file's header (cheap): for a server that budgets decoded pixels across the reads
    /// it runs. Never more than the pixel limit.
    pub fn pixels_to_decode(&self, image_bytes: &[u8]) -> u64 {
        crate::image::pixels_to_decode(image_bytes, self.limits())
    }

    /// The page and the portrait `reading` (this engine's reading of `image_bytes`) located,
    /// drawn upright in colour at `pixels_per_mm` pixels per page millimetre: for a caller
    /// that asks for them, since decoding the photo again in colour costs as much as the read.
    pub fn crops(
        &self,
        image_bytes: &[u8],
        reading: &ImageReading,
        pixels_per_mm: f32,
    ) -> crate::crops::Crops {
        crate::crops::crops(image_bytes, reading, self.limits(), pixels_per_mm)
    }

    /// The visual zone (date of issue, place of birth, authority, names as printed) of the
    /// page `reading` (this engine's reading of `image_bytes`) located, compared with the
    /// MRZ where the MRZ holds the same fields; of a card's front (no MRZ, a face: the
    /// diagnostic `turn_over`), the fields the whole photo prints, compared with nothing;
    /// `None` where no page was located and the photo is no such front. Costs a text
    /// detector and a line recogniser over the page: asked for, never by default.
    pub fn visual_zone(
        &self,
        image_bytes: &[u8],
        reading: &ImageReading,
    ) -> Result<Option<crate::VisualZone>, mrtd_text::TextError> {
        let reader = self.text_reader()?;
        if reading.reading.is_none() {
            let front = reading.portrait.is_some_and(|portrait| portrait.face_found);
            if !front {
                return Ok(None);
            }
            return crate::visual::read_side(reader, image_bytes, reading, None, self.limits());
        }
        crate::visual::read(reader, image_bytes, reading, self.limits())
    }

    /// The visual zone of a document photographed on both sides (a card's back and front):
    /// the page of the side with the MRZ (`mrz_side`, its bytes and this engine's reading of
    /// them) as [`Engine::visual_zone`] reads it, and, where the other side (`other_side`)
    /// shows no MRZ, the fields printed on it (a field both show as the one read with more
    /// confidence); all compared with the MRZ. `None` where `mrz_side` holds no reading, or
    /// neither side could be read.
    pub fn visual_zone_of_sides(
        &self,
        mrz_side: (&[u8], &ImageReading),
        other_side: (&[u8], &ImageReading),
    ) -> Result<Option<crate::VisualZone>, mrtd_text::TextError> {
        let Some(mrz) = mrz_side.1.reading.as_ref() else { return Ok(None) };
        let reader = self.text_reader()?;
        let own = crate::visual::read(reader, mrz_side.0, mrz_side.1, self.limits())?;
        let other =
            crate::visual::read_side(reader, other_side.0, other_side.1, Some(mrz), self.limits())?;
        Ok(crate::VisualZone::of_sides(own, other, mrz))
    }

    /// The text reader, loaded on first use.
    fn text_reader(&self) -> Result<&mrtd_text::TextReader, mrtd_text::TextError> {
        self.text
            .get_or_init(|| mrtd_text::TextReader::new().ok())
            .as_ref()
            .ok_or(mrtd_text::TextError::Load { network: "text" })
    }

    /// The decoding limits of this engine's configuration.
    fn limits(&self) -> DecodeLimits {
        DecodeLimits { max_pixels: self.config.max_pixels, max_bytes: self.config.max_bytes }
    }

    /// Reads the MRZ of an encoded image.
    ///
    /// Returns an error only when the input is not a usable image; a photo
    /// without a readable MRZ gives `Ok` with status `NoMrz` or `Partial`.
    pub fn read(
        &self,
        image_bytes: &[u8],
        options: &ParseOptions,
    ) -> Result<ImageReading, ImageError> {
        let started = Instant::now();
        let limits = self.limits();
        if crate::pdf::is_pdf(image_bytes) {
            let mut reading = self.read_pdf(image_bytes, limits, options)?;
            reading.timing_ms = started.elapsed().as_secs_f64() * 1000.0;
            return Ok(reading);
        }
        if let Some(mut reading) = self.read_half_size(image_bytes, limits, options) {
            reading.timing_ms = started.elapsed().as_secs_f64() * 1000.0;
            return Ok(reading);
        }
        let decoded = match decode(image_bytes, limits) {
            Err(ImageError::TooManyPixels { .. })
                if let Some(mut reading) = self.read_oversized(image_bytes, limits, options) =>
            {
                reading.timing_ms = started.elapsed().as_secs_f64() * 1000.0;
                return Ok(reading);
            }
            other => other?,
        };
        let format = decoded.format;
        let (mut reading, _, candidates_seen) = self.read_gray_inner(&decoded.gray, options);
        self.look_for_front(&mut reading, &decoded.gray);
        // The luma is let go before the photo is decoded again.
        drop(decoded);
        // Marks in colour over or under the zone (a stamp, a pen line, an app's frame, a
        // tinted background) are as dark as ink in the luma: where the reading is not `read`
        // and something like a zone was seen, the photo gets a look as ink on paper, and a
        // second, colour lifted further, where the first is not `read` either.
        for look in InkLook::ALL {
            if reading.status != Status::Read
                && candidates_seen
                && let Some(ink) = decode_ink(image_bytes, limits, look)
            {
                let again = self.read_gray(&ink, options);
                if better_reading(&again, &reading) {
                    reading = again;
                }
            }
        }
        reading.image_format = format;
        reading.timing_ms = started.elapsed().as_secs_f64() * 1000.0;
        Ok(reading)
    }

    /// Reads a scanned PDF: the images of its pages in order, the first `read` wins;
    /// otherwise the best reading (partial before no MRZ, earlier pages first). The reading
    /// names its page; its geometry is that page image's.
    fn read_pdf(
        &self,
        bytes: &[u8],
        limits: DecodeLimits,
        options: &ParseOptions,
    ) -> Result<ImageReading, ImageError> {
        use crate::pdf::{PageImage, Pdf};

        if bytes.len() > limits.max_bytes {
            return Err(ImageError::TooLarge { bytes: bytes.len(), limit: limits.max_bytes });
        }
        let pdf = Pdf::parse(bytes, limits)?;
        let rank = |status: Status| match status {
            Status::Read => 2,
            Status::Partial => 1,
            Status::NoMrz => 0,
        };
        let mut best: Option<ImageReading> = None;
        let (planned, skipped) = pdf.images_to_read(limits);
        let mut skipped: Vec<String> = skipped.into_iter().map(|why| why.reason).collect();
        for planned in planned {
            let number = planned.page;
            let mut reading = match pdf.image(&planned.image, limits) {
                Ok(PageImage::Jpeg(jpeg)) => match self.read(jpeg, options) {
                    Ok(reading) => reading,
                    Err(error) => {
                        skipped.push(format!("a JPEG that could not be used ({error})"));
                        continue;
                    }
                },
                Ok(PageImage::Gray(gray)) => self.read_gray(&gray, options),
                Err(why) => {
                    skipped.push(why.reason);
                    continue;
                }
            };
            reading.page = Some(number);
            reading.image_format = "pdf";
            let status = reading.status;
            if best.as_ref().is_none_or(|b| rank(status) > rank(b.status)) {
                best = Some(reading);
            }
            if status == Status::Read {
                break;
            }
        }
        best.ok_or_else(|| {
            ImageError::Decode(if skipped.is_empty() {
                "the PDF has no scanned page image to read (text drawn with fonts is not \
                 read); send a photo or scan of the page instead"
                    .to_owned()
            } else {
                skipped.sort();
                skipped.dedup();
                format!("the PDF's page images could not be used: {}", skipped.join("; "))
            })
        })
    }

    /// Reads a large JPEG from a half-size decode of its luma, which costs a
    /// fraction of a full decode. The reading stands when it is `read` and its
    /// characters are large enough at half size that the full size would show
    /// the classifier nothing more, or when nothing that could be an MRZ was
    /// seen in a working image the size the full-size read would localise in;
    /// otherwise `None`, and the photo is read at full size. Geometry is
    /// reported in full-size pixels.
    fn read_half_size(
        &self,
        image_bytes: &[u8],
        limits: DecodeLimits,
        options: &ParseOptions,
    ) -> Option<ImageReading> {
        let half = decode_jpeg_reduced(image_bytes, limits, |width, height| {
            let wanted =
                width.max(height) >= HALF_SIZE_FROM_PX && within_pixels(width, height, limits);
            wanted.then_some(Reduction::Half)
        })?;
        let (mut reading, cells, candidates_seen) = self.read_gray_inner(&half.gray, options);
        let stands = match cells.as_deref() {
            Some(cells) => {
                reading.status == Status::Read
                    && median_glyph_height(cells) >= HALF_SIZE_MIN_GLYPH_PX
            }
            // The full-size read shrinks to the same working image when its
            // factor is twice this one, and would see nothing either. A
            // "too small" diagnostic gives half-size pixels, so it is redone.
            None => {
                let longest = |w: usize, h: usize| w.max(h);
                let same_view = shrink_factor(longest(half.full_width, half.full_height))
                    == 2 * shrink_factor(longest(half.gray.width, half.gray.height));
                let too_small =
                    reading.diagnostics.iter().any(|d| d.code == DiagnosticCode::TooSmall);
                !candidates_seen && same_view && !too_small
            }
        };
        if !stands {
            return None;
        }
        self.look_for_front(&mut reading, &half.gray);
        Some(at_full_size(reading, &half))
    }

    /// Reads a JPEG or HEIC over the pixel limit (a 48 or 50 megapixel phone photo) from its
    /// half-size decode, which holds a quarter of the pixels, instead of refusing it: up to
    /// [`OVERSIZED_FACTOR`] times the limit ([`HEIC_OVERSIZED_FACTOR`] for HEIC), and a JPEG
    /// up to [`QUARTER_OVERSIZED_FACTOR`] times it from its quarter-size decode. `None` for
    /// larger files and for JPEGs the reducing decoder does not handle (arithmetic coding,
    /// CMYK), which stay refused.
    fn read_oversized(
        &self,
        image_bytes: &[u8],
        limits: DecodeLimits,
        options: &ParseOptions,
    ) -> Option<ImageReading> {
        let times = |factor: u64| DecodeLimits {
            max_pixels: limits.max_pixels.saturating_mul(factor),
            ..limits
        };
        let choose = |width, height| {
            if within_pixels(width, height, times(OVERSIZED_FACTOR)) {
                Some(Reduction::Half)
            } else {
                within_pixels(width, height, times(QUARTER_OVERSIZED_FACTOR))
                    .then_some(Reduction::Quarter)
            }
        };
        let heic_wider = DecodeLimits {
            max_pixels: limits.max_pixels.saturating_mul(HEIC_OVERSIZED_FACTOR),
            ..limits
        };
        let reduced = decode_jpeg_reduced(image_bytes, limits, choose)
            .or_else(|| crate::image::decode_heif_half(image_bytes, heic_wider))?;
        let mut reading = self.read_gray(&reduced.gray, options);
        self.look_for_front(&mut reading, &reduced.gray);
        Some(at_full_size(reading, &reduced))
    }

    /// Where no MRZ was found, looks for a face in the whole photo: the side of a document
    /// that shows the portrait and not the zone (an ID card's front) is named as such, with
    /// the face as its portrait, and the advice to photograph the other side.
    fn look_for_front(&self, reading: &mut ImageReading, gray: &crate::gray::Gray) {
        if reading.status != Status::NoMrz {
            return;
        }
        let Some(face) = self.face.face_in_photo(gray) else {
            return;
        };
        reading.portrait = Some(crate::outline::PortraitZone { bbox: face, face_found: true });
        reading.diagnostics.insert(0, crate::diagnose::turn_over());
    }

    /// Reads the MRZ of an already decoded, upright grayscale image.
    pub fn read_gray(&self, gray: &crate::gray::Gray, options: &ParseOptions) -> ImageReading {
        self.read_gray_with_cells(gray, options).0
    }

    /// Like [`Engine::read_gray`], also returning the cell geometry of the
    /// chosen reading (for drawing and for measuring the localiser).
    pub fn read_gray_with_cells(
        &self,
        gray: &crate::gray::Gray,
        options: &ParseOptions,
    ) -> (ImageReading, Option<Vec<Vec<CellGeometry>>>) {
        let (reading, cells, _) = self.read_gray_inner(gray, options);
        (reading, cells)
    }

    /// Like [`Engine::read_gray_with_cells`], also saying whether the
    /// localiser saw any group of rows that could be an MRZ, in either look.
    fn read_gray_inner(
        &self,
        gray: &crate::gray::Gray,
        options: &ParseOptions,
    ) -> (ImageReading, Option<Vec<Vec<CellGeometry>>>, bool) {
        let started = Instant::now();
        let work = work_image(gray);
        let (mut best, mut report) = self.best_attempt(gray, &work, Darkness::NORMAL, options);
        let mut candidates_seen = report.n_candidates > 0;
        // Faint or thin print breaks apart under the normal threshold; without a
        // confident reading, the photo gets a second look at a fainter one.
        if best.as_ref().is_none_or(|b| !is_confident(b)) {
            let (faint, faint_report) = self.best_attempt(gray, &work, Darkness::FAINT, options);
            candidates_seen |= faint_report.n_candidates > 0;
            if faint.as_ref().is_some_and(|f| best.as_ref().is_none_or(|b| rank(f) > rank(b))) {
                (best, report) = (faint, faint_report);
            }
        }
        // A shadow's sharp edge along the zone darkens half of some cells and makes a band
        // of ink beside it; without a confident reading where rows of text were seen, the
        // photo gets a look with its paper brought to white.
        let text_seen = candidates_seen || report.n_long_rows > 0;
        if text_seen && best.as_ref().is_none_or(|b| !is_confident(b)) {
            let paper = crate::shade::paper(&work);
            let (flat, flat_work) = crate::shade::flatten(gray, &work, &paper);
            let (again, again_report) =
                self.best_attempt(&flat, &flat_work, Darkness::NORMAL, options);
            candidates_seen |= again_report.n_candidates > 0;
            // Kept where it reads better; over a zone on even paper, clearly better.
            let better = |a: &Attempt| {
                best.as_ref().is_none_or(|b| {
                    let shadowed = crate::shade::shadowed(&paper, &b.cells, work.scale);
                    rank(a) > rank(b) + if shadowed { 0.0 } else { FLAT_PAGE_MARGIN }
                })
            };
            if again.as_ref().is_some_and(better) {
                (best, report) = (again, again_report);
            }
        }
        // A line drawn over the page (a pen stroke, a frame) joins the glyphs it crosses into
        // one blob, so the zone is not found or is read in pieces; without a confident
        // reading, the photo gets a look with such lines painted out.
        let mut drawn: Vec<Stroke> = Vec::new();
        if best.as_ref().is_none_or(|b| !is_confident(b)) {
            drawn = find_strokes(&work.image, Darkness::NORMAL);
            if !drawn.is_empty() {
                let (again, again_report) = self.read_without(gray, &work, &drawn, options);
                candidates_seen |= again_report.n_candidates > 0;
                (best, report) = better_of((best, report), (again, again_report), &drawn, &work);
            }
        }
        // A line that crosses the zone without hiding it (the zone was found, maybe read with
        // confidence, a frame drawn along its edges) still joins the glyphs it touches: near
        // the zone, where a blob over two glyphs high is no glyph, such lines are looked for
        // too, and the zone read again without them.
        if let Some(found) = best.as_ref() {
            // A line that reaches no cell's window (a printed rule below the zone) changes
            // nothing the zone is read from.
            let reaches_a_cell = |stroke: &Stroke| {
                let in_original = stroke.scaled(1.0 / work.scale);
                found.cells.iter().flatten().any(|cell| in_original.touches(cell))
            };
            let near: Vec<Stroke> =
                strokes_over(&work.image, Darkness::NORMAL, &found.cells, work.scale)
                    .into_iter()
                    .filter(|stroke| !drawn.iter().any(|known| known.same_line(stroke)))
                    .filter(reaches_a_cell)
                    .collect();
            if !near.is_empty() {
                drawn.extend(near);
                let again = self.read_without(gray, &work, &drawn, options);
                (best, report) = better_of((best, report), again, &drawn, &work);
            }
        }
        let cells = best.as_ref().map(|b| b.cells.clone());
        let mut result = crate::diagnose::conclude(best, &report, gray, work.scale, options);
        // The second document, concluded as the first: its own status and diagnostics.
        if let Some(other) = report.another_zone.clone()
            && result.reading.is_some()
        {
            result.diagnostics.push(crate::diagnose::another_mrz());
            let other_cells = other.cells.clone();
            let mut second =
                crate::diagnose::conclude(Some(*other), &report, gray, work.scale, options);
            self.place_page(&mut second, &other_cells, gray);
            result.others.push(second);
        }
        result.image_width = gray.width;
        result.image_height = gray.height;
        if let Some(cells) = cells.as_deref() {
            self.place_page(&mut result, cells, gray);
        }
        result.timing_ms = started.elapsed().as_secs_f64() * 1000.0;
        (result, cells, candidates_seen)
    }

    /// The page and its portrait, from where the zone of `result`'s reading was found
    /// (`cells`); a face is looked for only inside the portrait zone, so the cost does not
    /// grow with the photo.
    fn place_page(
        &self,
        result: &mut ImageReading,
        cells: &[Vec<CellGeometry>],
        gray: &crate::gray::Gray,
    ) {
        let Some(format) = result.reading.as_ref().map(|reading| reading.format) else {
            return;
        };
        let Some(transform) = crate::outline::page_to_photo(format, cells) else {
            return;
        };
        let (document, portrait) = crate::outline::outline(format, &transform, gray);
        result.document = Some(document);
        result.portrait = portrait.map(|mut zone| {
            if let Some(page_zone) = crate::outline::Layout::of(format).portrait {
                zone.face_found = self.face.face_in_zone(gray, &transform, page_zone);
            }
            zone
        });
    }

    /// Reads the photo again with `strokes` (working-image pixels) painted out, at the normal
    /// ink threshold.
    fn read_without(
        &self,
        gray: &crate::gray::Gray,
        work: &WorkImage,
        strokes: &[Stroke],
        options: &ParseOptions,
    ) -> (Option<Attempt>, LocateReport) {
        let in_original: Vec<Stroke> =
            strokes.iter().map(|stroke| stroke.scaled(1.0 / work.scale)).collect();
        let clean = erase(gray, &in_original);
        let clean_work = WorkImage { image: erase(&work.image, strokes), scale: work.scale };
        self.best_attempt(&clean, &clean_work, Darkness::NORMAL, options)
    }

    /// Locates MRZ candidates with one ink threshold and reads them, best first,
    /// stopping at the first confident reading.
    fn best_attempt(
        &self,
        gray: &crate::gray::Gray,
        work: &WorkImage,
        darkness: Darkness,
        options: &ParseOptions,
    ) -> (Option<Attempt>, LocateReport) {
        let (candidates, mut report) = locate(&work.image, darkness);
        let mut best: Option<Attempt> = None;
        let reader = Reader { model: &self.model, original: gray, scale: work.scale, options };
        let mut read = 0;
        for candidate in candidates.iter().take(self.config.max_candidates) {
            read += 1;
            let attempts = reader.read_candidate(candidate);
            if let Some(attempt) = attempts.into_iter().next() {
                if best.as_ref().is_none_or(|b| rank(&attempt) > rank(b)) {
                    best = Some(attempt);
                }
                if best.as_ref().is_some_and(is_confident) {
                    break;
                }
            }
        }
        // A second document in the photo: another zone, away from the one read, that reads
        // with confidence too. The candidates before the confident one did not.
        if let Some(found) = best.as_ref().filter(|found| is_confident(found)) {
            let elsewhere = candidates
                .iter()
                .take(self.config.max_candidates)
                .skip(read)
                .filter(|candidate| !overlaps(candidate, &found.cells, work.scale));
            for candidate in elsewhere {
                let attempt = reader.read_candidate(candidate).into_iter().next();
                if let Some(other) = attempt.filter(is_confident) {
                    report.another_zone = Some(Box::new(other));
                    break;
                }
            }
        }
        (best, report)
    }
}

/// Whether any glyph of `candidate` (working pixels) lies within the zone of `cells`
/// (original pixels), widened by a cell each way: the same zone found again.
fn overlaps(candidate: &MrzCandidate, cells: &[Vec<CellGeometry>], scale: f32) -> bool {
    let reach = |cell: &CellGeometry| {
        cell.along.0.hypot(cell.along.1).max(cell.across.0.hypot(cell.across.1))
    };
    let Some(margin) = cells.iter().flatten().map(reach).reduce(f32::max) else {
        return false;
    };
    let centres = cells.iter().flatten().map(|cell| cell.centre);
    let (mut x0, mut y0, mut x1, mut y1) = (f32::MAX, f32::MAX, f32::MIN, f32::MIN);
    for (x, y) in centres {
        (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
    }
    candidate.rows.iter().flat_map(|row| row.members.iter()).any(|((x, y), _)| {
        let (x, y) = (x / scale, y / scale);
        (x0 - margin..=x1 + margin).contains(&x) && (y0 - margin..=y1 + margin).contains(&y)
    })
}

/// How much lower (in [`rank`]: the mean log probability of the symbols read, when the check
/// digits and layout rules agree) a reading with lines drawn over the page painted out may
/// rank and still be preferred, when the lines cross no glyph's body: a frame in the glyphs'
/// margins, repainted as paper when the cells are sampled, can leave the reading with it a
/// shade surer. Painting out a line through glyphs takes part of them with it (an 8 read 3
/// where the line crossed its middle), so that reading must rank higher.
const CLEAN_PAGE_MARGIN: f32 = 0.05;

/// How much better (in [`rank`]) a reading of the photo with its paper brought to white must
/// be to replace the photo's own where the zone's paper is even: an eighth of the check
/// digits. Small glyphs on even paper read a little more confidently, and wrongly, after the
/// division.
const FLAT_PAGE_MARGIN: f32 = 0.5;

/// The better of a reading with lines drawn over the page and one with them painted out
/// (`strokes`, in working-image pixels), as [`CLEAN_PAGE_MARGIN`] says. Either way the lines
/// go with it, since the cells they cross were not seen whole.
fn better_of(
    (with, with_report): (Option<Attempt>, LocateReport),
    (without, without_report): (Option<Attempt>, LocateReport),
    strokes: &[Stroke],
    work: &WorkImage,
) -> (Option<Attempt>, LocateReport) {
    let in_original: Vec<Stroke> =
        strokes.iter().map(|stroke| stroke.scaled(1.0 / work.scale)).collect();
    let prefer_without = |without: &Attempt| {
        with.as_ref().is_none_or(|with| {
            let through_glyphs = with
                .cells
                .iter()
                .flatten()
                .any(|cell| in_original.iter().any(|stroke| stroke.crosses(cell)));
            let margin = if through_glyphs { 0.0 } else { CLEAN_PAGE_MARGIN };
            rank(without) + margin > rank(with)
        })
    };
    let (mut best, report) = match without {
        Some(without) if prefer_without(&without) => (Some(without), without_report),
        _ => (with, with_report),
    };
    if let Some(best) = best.as_mut() {
        best.strokes = in_original;
    }
    (best, report)
}

/// Whether `a` is a better reading of a photo than `b`: a higher status, then `valid`, then
/// more check digits verified. Field confidence does not decide between two readings
/// alike in these: a second look at a photo shrunk to 10 px per line read one more
/// confidently and wrongly.
fn better_reading(a: &ImageReading, b: &ImageReading) -> bool {
    let key = |r: &ImageReading| {
        let status = match r.status {
            Status::Read => 2,
            Status::Partial => 1,
            Status::NoMrz => 0,
        };
        let reading = r.reading.as_ref();
        let valid = reading.is_some_and(|r| r.valid);
        let verified = reading.map_or(0, |r| {
            r.checks.iter().filter(|c| c.status == mrtd_mrz::CheckStatus::Verified).count()
        });
        (status, valid, verified)
    };
    key(a) > key(b)
}

/// The median character height of a reading's cells, in pixels.
fn median_glyph_height(cells: &[Vec<CellGeometry>]) -> f32 {
    let mut heights: Vec<f32> =
        cells.iter().flatten().map(|cell| cell.across.0.hypot(cell.across.1)).collect();
    if heights.is_empty() {
        return 0.0;
    }
    let middle = heights.len() / 2;
    *heights.select_nth_unstable_by(middle, f32::total_cmp).1
}

/// Whether a reading can be reported as read: every check digit passes and
/// the characters no check digit protects were recognised with confidence.
pub(crate) fn is_confident(attempt: &Attempt) -> bool {
    attempt.reading.valid && attempt.least_unchecked >= 0.5 && attempt.least >= 0.2
}

/// A reading of a reduced decode, in the full-size image's geometry: the centre of reduced
/// pixel i (i + 0.5) stands for full-size f * (i + 0.5), f the reduction's factor.
fn at_full_size(mut reading: ImageReading, half: &crate::image::ReducedDecoded) -> ImageReading {
    let factor = half.factor;
    if let Some(region) = reading.region.as_mut() {
        for corner in region.iter_mut() {
            *corner = (corner.0 * factor, corner.1 * factor);
        }
    }
    if let Some(document) = reading.document.as_mut() {
        for corner in document.corners.iter_mut() {
            *corner = (corner.0 * factor, corner.1 * factor);
        }
    }
    if let Some(portrait) = reading.portrait.as_mut() {
        for value in portrait.bbox.iter_mut() {
            *value *= factor;
        }
    }
    reading.others = reading.others.into_iter().map(|other| at_full_size(other, half)).collect();
    reading.image_width = half.full_width;
    reading.image_height = half.full_height;
    reading.image_format = half.format;
    reading
}

#[cfg(test)]
mod tests;
