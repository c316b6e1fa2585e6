//! The visual zone: the fields a document prints for people (date of issue, place of birth,
//! authority, personal number, names as printed), read from the page a reading located.
//!
//! The page is drawn upright from the photo ([`crate::crops::page_of_photo`]), `mrtd-text`
//! finds and reads its lines of text, and each field is the first line of values under (or
//! beside) the label that names it, in any of the languages of [`labels`]. The names, dates,
//! number and sex read there are compared with the MRZ's by `mrtd-mrz`
//! ([`mrtd_mrz::Reading::compare_read_page`]): a disagreement is a misread or an edited page.
//! A card photographed on both sides prints most of its fields on the side without the MRZ
//! (its front): that photo is read whole ([`read_side`]) and its fields join the page's.

mod labels;

use mrtd_mrz::{Comparison, Printed, PrintedDate, printed_sex};
use mrtd_text::{Line, TextReader};

use crate::geometry::Homography;
use labels::Label;
pub use labels::VisualFieldName;

/// How many pixels per page millimetre the page is drawn at to be read: printed fields are
/// some 2.5 mm high, 25 pixels.
const PIXELS_PER_MM: f32 = 10.0;
/// A line read below this mean probability is noise (a seal, a guilloche), not a value.
const MIN_LINE_CONFIDENCE: f32 = 0.7;
/// A value lies below its label within this many of the label's heights.
const BELOW_WITHIN: f32 = 2.6;
/// A value beside its label (on a card's one-line fields) starts within this many heights.
const BESIDE_WITHIN: f32 = 8.0;
/// A document's side without an MRZ is read shrunk to this longest side: a card filling a
/// phone photo then prints its fields some 25 pixels high, as a page drawn for reading does.
const SIDE_LONGEST_PX: u32 = 1600;
/// A card's page covering less than this share of its photo leaves room for its other side
/// scanned beside it.
const SHEET_SHARE: f32 = 0.5;
/// A value is compared with the MRZ only when each of its characters was read at this
/// probability or more: a doubtful character is no evidence of an edited page.
const COMPARED_FROM: f32 = 0.8;
/// A value's second line starts no further under its first than this many of the first's
/// heights (the recogniser's boxes of two lines of one value touch or overlap; a label
/// between two values leaves a gap of its own height).
const CONTINUED_WITHIN: f32 = 0.35;
/// A value's second line is at least this share of its first's height, and at most its
/// inverse: the same print.
const LIKE_HEIGHT: f32 = 0.8;

/// One field of the visual zone, as printed.
#[derive(Clone, Debug, PartialEq)]
pub struct VisualField {
    /// What the page prints, as read (spaces kept, case as printed).
    pub value: String,
    /// The lowest probability among the value's characters (0 to 1).
    pub confidence: f32,
    /// The label the value was found by, as read: the evidence that this is the field.
    /// `None` for a date of issue known by elimination: the one full date the page prints
    /// under no label read that is neither the MRZ's date of birth nor its date of expiry.
    pub label: Option<String>,
    /// Where the value is in the photo, `[x0, y0, x1, y1]` in its pixels.
    pub bbox: [f32; 4],
    /// Whether it was read on the photo of the document's other side (a card's front,
    /// [`crate::Engine::visual_zone_of_sides`]), whose pixels `bbox` is in.
    pub other_side: bool,
}

/// The visual zone of a document: its fields as printed and their agreement with the MRZ.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VisualZone {
    /// Each field found, by name.
    pub fields: Vec<(VisualFieldName, VisualField)>,
    /// The fields the MRZ holds too, against the MRZ's: absent where the page shows none.
    pub agreement: Option<Comparison>,
    /// How many lines of text the page showed outside the MRZ.
    pub lines_read: usize,
}

impl VisualZone {
    /// The field named `name`, when the page showed it.
    pub fn field(&self, name: VisualFieldName) -> Option<&VisualField> {
        self.fields.iter().find(|(field, _)| *field == name).map(|(_, value)| value)
    }
}

/// Reads the visual zone of the page `reading` located in `bytes`. `None` where no page was
/// located (no reading, or a photo that cannot be decoded again as it was read).
pub(crate) fn read(
    reader: &TextReader,
    bytes: &[u8],
    reading: &crate::ImageReading,
    limits: crate::image::DecodeLimits,
) -> Result<Option<VisualZone>, mrtd_text::TextError> {
    let Some(mut photo) = crate::crops::photo_as_read(bytes, reading, limits) else {
        return Ok(None);
    };
    let Some((page, map)) = crate::crops::page_of_photo(&photo, reading, PIXELS_PER_MM) else {
        return Ok(None);
    };
    let Some(mrz) = reading.reading.as_ref() else { return Ok(None) };
    let layout = crate::outline::Layout::of(mrz.format);
    // The zone itself and the portrait are no fields: their boxes are not read (the
    // recogniser's cost grows with the length of what it reads, and the zone's lines are
    // the page's longest).
    let zone_top = layout.size.1
        - layout.last_line_from_bottom
        - (mrz.lines.len() as f32 - 0.5) * layout.line_spacing;
    let mut lines = Vec::new();
    for bbox in reader.detect(&page)? {
        let [x0, y0, x1, y1] = bbox.map(|v| v / PIXELS_PER_MM);
        let in_zone = (y0 + y1) / 2.0 > zone_top;
        let in_portrait = layout.portrait.is_some_and(|[left, top, right, bottom]| {
            x0 >= left && x1 <= right && y0 >= top && y1 <= bottom
        });
        if in_zone || in_portrait {
            continue;
        }
        if let Some(line) = reader.recognise(&page, bbox)?
            && !is_mrz(&line.text)
            && line.confidence >= MIN_LINE_CONFIDENCE
        {
            lines.push(line);
        }
    }
    let mut zone = VisualZone { lines_read: lines.len(), ..VisualZone::default() };
    for (name, field) in fields(&lines, Some(mrz)) {
        let bbox = to_photo(&map, field.bbox);
        zone.fields.push((name, VisualField { bbox, ..field }));
    }
    zone.compare(mrz);
    // A card's two sides scanned on one sheet: its front, beside the page, is read too.
    let beside = match reading.document.as_ref() {
        Some(document) if is_card(mrz.format) && covers_little(document, &photo) => {
            paint_over(&mut photo, document);
            Some(read_whole(reader, &photo, Some(mrz), false)?)
        }
        _ => None,
    };
    Ok(VisualZone::of_sides(Some(zone), beside, mrz))
}

/// Whether a document of `format` is a card, whose other side (its front, with most of its
/// printed fields) may be scanned beside it on one sheet.
fn is_card(format: mrtd_mrz::Format) -> bool {
    matches!(format, mrtd_mrz::Format::Td1 | mrtd_mrz::Format::Td2)
}

/// Whether the located page covers less than [`SHEET_SHARE`] of the photo: the photo shows
/// more than the card (a scanned sheet, a photo of both sides).
fn covers_little(document: &crate::DocumentOutline, photo: &image::RgbImage) -> bool {
    let corners = document.corners;
    let twice_area: f32 = (0..4)
        .map(|i| {
            let ((x0, y0), (x1, y1)) = (corners[i], corners[(i + 1) % 4]);
            x0 * y1 - x1 * y0
        })
        .sum();
    let photo_area = photo.width() as f32 * photo.height() as f32;
    (twice_area.abs() / 2.0) < SHEET_SHARE * photo_area
}

/// Paints the located page's bounding box, grown by a twentieth of its size, in mid gray,
/// so that reading the rest of the photo does not read the page again.
fn paint_over(photo: &mut image::RgbImage, document: &crate::DocumentOutline) {
    let [left, top, right, bottom] = bounds(document.corners);
    let (margin_x, margin_y) = ((right - left) / 20.0, (bottom - top) / 20.0);
    let clamp = |v: f32, side: u32| v.clamp(0.0, side as f32) as u32;
    let (x0, x1) = (clamp(left - margin_x, photo.width()), clamp(right + margin_x, photo.width()));
    let (y0, y1) =
        (clamp(top - margin_y, photo.height()), clamp(bottom + margin_y, photo.height()));
    for y in y0..y1 {
        for x in x0..x1 {
            photo.put_pixel(x, y, image::Rgb([128, 128, 128]));
        }
    }
}

/// Reads the visual zone of a document's side that shows no MRZ (`side`, this engine's
/// reading of `bytes`: a card's front), whose MRZ `mrz`, when given, was read on its other
/// side. The side has no page located, so the whole photo is read, upright as it was taken
/// and shrunk to at most [`SIDE_LONGEST_PX`]; the fields are compared with `mrz` as a page's
/// are. `None` where the side shows an MRZ (its own page is read instead) or cannot be
/// decoded again.
pub(crate) fn read_side(
    reader: &TextReader,
    bytes: &[u8],
    side: &crate::ImageReading,
    mrz: Option<&mrtd_mrz::Reading>,
    limits: crate::image::DecodeLimits,
) -> Result<Option<VisualZone>, mrtd_text::TextError> {
    if side.status != crate::Status::NoMrz {
        return Ok(None);
    }
    let Some(photo) = crate::crops::photo_as_read(bytes, side, limits) else {
        return Ok(None);
    };
    read_whole(reader, &photo, mrz, mrz.is_some()).map(Some)
}

/// The fields printed anywhere in `photo`, read upright as it is and shrunk to at most
/// [`SIDE_LONGEST_PX`], compared with `mrz` where given; `other_side` says the photo is of
/// the MRZ's other side.
fn read_whole(
    reader: &TextReader,
    photo: &image::RgbImage,
    mrz: Option<&mrtd_mrz::Reading>,
    other_side: bool,
) -> Result<VisualZone, mrtd_text::TextError> {
    let longest = photo.width().max(photo.height()).max(1);
    let factor = (SIDE_LONGEST_PX as f32 / longest as f32).min(1.0);
    let size = |side: u32| ((side as f32 * factor).round() as u32).max(1);
    let shrunk = image::imageops::resize(
        photo,
        size(photo.width()),
        size(photo.height()),
        image::imageops::FilterType::Triangle,
    );
    let mut lines = Vec::new();
    for bbox in reader.detect(&shrunk)? {
        if let Some(line) = reader.recognise(&shrunk, bbox)?
            && !is_mrz(&line.text)
            && line.confidence >= MIN_LINE_CONFIDENCE
        {
            lines.push(line);
        }
    }
    let mut zone = VisualZone { lines_read: lines.len(), ..VisualZone::default() };
    for (name, field) in fields(&lines, mrz) {
        let bbox = field.bbox.map(|v| (v / factor * 10.0).round() / 10.0);
        zone.fields.push((name, VisualField { bbox, other_side, ..field }));
    }
    if let Some(mrz) = mrz {
        zone.compare(mrz);
    }
    Ok(zone)
}

impl VisualZone {
    /// Sets the fields the MRZ holds too against `mrz`'s (none where the zone shows none).
    fn compare(&mut self, mrz: &mrtd_mrz::Reading) {
        let printed = printed(self);
        self.agreement = (printed != Printed::default()).then(|| mrz.compare_read_page(&printed));
    }

    /// The visual zone of a document photographed on both sides: the fields of the side
    /// with the MRZ (`own`, from its page) and those of the other side (`other`), a field
    /// both show as the one read with more confidence, compared with `mrz` together. `None`
    /// when neither side was read.
    pub(crate) fn of_sides(
        own: Option<VisualZone>,
        other: Option<VisualZone>,
        mrz: &mrtd_mrz::Reading,
    ) -> Option<VisualZone> {
        let (mut zone, other) = match (own, other) {
            (Some(own), Some(other)) => (own, other),
            (own, other) => return own.or(other),
        };
        zone.lines_read += other.lines_read;
        for (name, field) in other.fields {
            match zone.fields.iter_mut().find(|(own, _)| *own == name) {
                Some((_, own)) if own.confidence < field.confidence => *own = field,
                Some(_) => {}
                None => zone.fields.push((name, field)),
            }
        }
        zone.compare(mrz);
        Some(zone)
    }
}

/// A line of the MRZ itself (fillers), which the visual zone's fields never hold.
fn is_mrz(text: &str) -> bool {
    text.matches('<').count() >= 2
}

/// The page box `[x0, y0, x1, y1]` (pixels at [`PIXELS_PER_MM`]) in the photo's pixels.
fn to_photo(map: &Homography, bbox: [f32; 4]) -> [f32; 4] {
    let [x0, y0, x1, y1] = bbox.map(|v| v / PIXELS_PER_MM);
    let corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)].map(|corner| map.apply(corner));
    bounds(corners).map(|v| (v * 10.0).round() / 10.0)
}

/// The box `[x0, y0, x1, y1]` round four points.
fn bounds(points: [(f32, f32); 4]) -> [f32; 4] {
    let min = |v: [f32; 4]| v.into_iter().fold(f32::INFINITY, f32::min);
    let max = |v: [f32; 4]| v.into_iter().fold(f32::NEG_INFINITY, f32::max);
    let (xs, ys) = (points.map(|(x, _)| x), points.map(|(_, y)| y));
    [min(xs), min(ys), max(xs), max(ys)]
}

/// The fields of the page: each label's value, the first line that is no label under it
/// (or, failing that, beside it), each line the value of one label only; then, on a passport
/// or an identity card whose MRZ is `mrz`, the date of issue by elimination where its label
/// was not read ([`issue_date_by_elimination`]).
fn fields(lines: &[Line], mrz: Option<&mrtd_mrz::Reading>) -> Vec<(VisualFieldName, VisualField)> {
    let labels: Vec<Option<Label>> =
        lines.iter().map(|line| labels::label_of(&line.text)).collect();
    let (mut found, taken) = labelled_fields(lines, &labels);
    if let Some(mrz) = mrz
        && !found.iter().any(|(name, _)| *name == VisualFieldName::DateOfIssue)
        && let Some(issue) = issue_date_by_elimination(lines, &labels, &taken, mrz)
    {
        found.push((VisualFieldName::DateOfIssue, issue));
    }
    found
}

/// The date of issue of a passport or an identity card whose label was not read (small
/// print over a guilloche): such a page prints three full dates, of birth, of issue and of
/// expiry, and the MRZ holds two of them. The one full date left, on a line no label or
/// other field took, read with confidence, after the date of birth (and not on the holder's
/// birthday: a misread year of birth) and before the date of expiry, is the date of issue;
/// where none or several are left, nothing is inferred. A visa is not read this way: it
/// prints its validity's dates too.
fn issue_date_by_elimination(
    lines: &[Line],
    labels: &[Option<Label>],
    taken: &[bool],
    mrz: &mrtd_mrz::Reading,
) -> Option<VisualField> {
    if !matches!(mrz.fields.document_code.chars().next(), Some('P' | 'I' | 'A' | 'C')) {
        return None;
    }
    let birth = mrz.dates.birth.date()?;
    let expiry = mrz.dates.expiry.as_ref()?.date()?;
    let mut left: Vec<(&Line, mrtd_mrz::Date)> = Vec::new();
    for ((line, label), &taken) in lines.iter().zip(labels).zip(taken) {
        if taken || lowest(&line.char_confidences) < COMPARED_FROM || label.is_some() {
            continue;
        }
        let Some(date) =
            PrintedDate::parse(&line.text).and_then(|date| between(date, birth, expiry))
        else {
            continue;
        };
        if (date.month, date.day) == (birth.month, birth.day) {
            continue;
        }
        if left.iter().all(|(_, other)| *other != date) {
            left.push((line, date));
        }
    }
    let [(line, _)] = left.as_slice() else { return None };
    Some(VisualField::of_line(line, None))
}

/// The lowest of a value's characters' probabilities (1 for none).
fn lowest(probabilities: &[f32]) -> f32 {
    probabilities.iter().copied().fold(1.0, f32::min)
}

impl VisualField {
    /// The whole of `line` as a field's value, found by `label`, on the photo read.
    fn of_line(line: &Line, label: Option<String>) -> VisualField {
        VisualField {
            value: line.text.trim().to_owned(),
            confidence: lowest(&line.char_confidences),
            label,
            bbox: line.bbox,
            other_side: false,
        }
    }

    /// The value going on in `next`, the line under it: the two joined by a space, read at
    /// the lower of their confidences, in the box round both.
    fn continue_with(&mut self, next: &Line) {
        self.value = format!("{} {}", self.value, next.text.trim());
        self.confidence = self.confidence.min(lowest(&next.char_confidences));
        let ([x0, y0, x1, y1], [u0, v0, u1, v1]) = (self.bbox, next.bbox);
        self.bbox = bounds([(x0, y0), (x1, y1), (u0, v0), (u1, v1)]);
    }
}

/// The full date `printed` names strictly between `after` and `before`, a year of two digits
/// taken in that span; `None` where a part is missing or no such date is in the span.
fn between(
    printed: PrintedDate,
    after: mrtd_mrz::Date,
    before: mrtd_mrz::Date,
) -> Option<mrtd_mrz::Date> {
    let (day, month) = (printed.day?, printed.month?);
    let years: Vec<i32> = match printed.year? {
        mrtd_mrz::PrintedYear::Full(year) => vec![i32::from(year)],
        mrtd_mrz::PrintedYear::TwoDigits(year) => (after.year..=before.year)
            .filter(|full| full.rem_euclid(100) == i32::from(year))
            .collect(),
    };
    years.into_iter().map(|year| mrtd_mrz::Date { year, month, day }).find(|date| {
        *date > after && *date < before && day <= mrtd_mrz::days_in_month(date.year, month)
    })
}

/// The fields whose labels were read: each label's value, the first line that is no label
/// under it (or, failing that, beside it), each line the value of one label only; a name,
/// place or authority printed on two lines is both ([`continuation`]). With them, which lines
/// a field took as its value.
fn labelled_fields(
    lines: &[Line],
    labels: &[Option<Label>],
) -> (Vec<(VisualFieldName, VisualField)>, Vec<bool>) {
    let mut taken = vec![false; lines.len()];
    let mut found: Vec<(VisualFieldName, VisualField)> = Vec::new();
    // Each field found under or beside its label, and the line of its value.
    let mut values: Vec<(usize, usize)> = Vec::new();
    for (index, label) in labels.iter().enumerate() {
        let Some(Label::Field(name)) = *label else { continue };
        if found.iter().any(|(field, _)| *field == name) {
            continue;
        }
        if let Some(inline) = inline_value(&lines[index], name) {
            found.push((name, inline));
            continue;
        }
        let Some(value) = value_of(lines, labels, &taken, index) else { continue };
        taken[value] = true;
        found.push((name, VisualField::of_line(&lines[value], Some(lines[index].text.clone()))));
        values.push((found.len() - 1, value));
    }
    // A value on two lines goes on once every label has its first: a line another field
    // takes is no continuation.
    for (at, value) in values {
        let name = found[at].0;
        if let Some(next) = continuation(lines, labels, &taken, value, name) {
            taken[next] = true;
            found[at].1.continue_with(&lines[next]);
        }
    }
    (found, taken)
}

/// The line that continues the value of `name` at `value` on a second line (a second
/// surname, a long place or authority): under it with no more than a line's own spacing
/// between them, starting where it starts, as high, in capitals where it is (a label the
/// recogniser misread, `Natlonality/Nationalite`, is in small letters), no label, no other
/// field's value and not beside a label (a card's next field, its label on its left).
fn continuation(
    lines: &[Line],
    labels: &[Option<Label>],
    taken: &[bool],
    value: usize,
    name: VisualFieldName,
) -> Option<usize> {
    use VisualFieldName::{GivenNames, IssuingAuthority, PlaceOfBirth, Surname};
    if !matches!(name, Surname | GivenNames | PlaceOfBirth | IssuingAuthority) {
        return None;
    }
    let first = lines[value].bbox;
    let height = (first[3] - first[1]).max(1.0);
    (0..lines.len())
        .filter(|&other| {
            let next = lines[other].bbox;
            other != value
                && !taken[other]
                && labels[other].is_none()
                && plausible(name, &lines[other].text)
                && next[1] > first[1] + height / 2.0
                && next[1] < first[3] + CONTINUED_WITHIN * height
                && (next[0] - first[0]).abs() < height
                && (LIKE_HEIGHT..=1.0 / LIKE_HEIGHT).contains(&((next[3] - next[1]) / height))
                && (has_lower_case(&lines[value].text) || !has_lower_case(&lines[other].text))
                && !beside_a_label(lines, labels, other)
        })
        .min_by(|&a, &b| lines[a].bbox[1].total_cmp(&lines[b].bbox[1]))
}

/// Whether `text` holds a small letter, of any script.
fn has_lower_case(text: &str) -> bool {
    text.chars().any(char::is_lowercase)
}

/// Whether a label on the left shares the line at `index`'s row: the line is that label's
/// value, beside it.
fn beside_a_label(lines: &[Line], labels: &[Option<Label>], index: usize) -> bool {
    let [x0, y0, _, y1] = lines[index].bbox;
    (0..lines.len()).any(|other| {
        let label = lines[other].bbox;
        let middle = (label[1] + label[3]) / 2.0;
        labels[other].is_some() && middle > y0 && middle < y1 && label[0] < x0
    })
}

/// The value printed on the label's own line after a colon (`Nom : BERTHIER`, which the
/// detector reads as one line), where the part before the colon is the label of `name` and
/// the rest is no label and fits the field; its box the line's share after the colon.
fn inline_value(line: &Line, name: VisualFieldName) -> Option<VisualField> {
    let chars: Vec<char> = line.text.chars().collect();
    let colon = chars.iter().position(|&c| c == ':' || c == '：')?;
    let (before, after): (String, String) =
        (chars[..colon].iter().collect(), chars[colon + 1..].iter().collect());
    let value = after.trim();
    if value.is_empty()
        || labels::label_of(&before) != Some(Label::Field(name))
        || labels::label_of(value).is_some()
        || !plausible(name, value)
    {
        return None;
    }
    let start = chars.len() - after.trim_start().chars().count();
    let end = start + value.chars().count();
    let [x0, y0, x1, y1] = line.bbox;
    let at = |index: usize| x0 + (x1 - x0) * index as f32 / chars.len() as f32;
    Some(VisualField {
        value: value.to_owned(),
        confidence: lowest(line.char_confidences.get(start..end).unwrap_or_default()),
        label: Some(before.trim().to_owned()),
        bbox: [at(start), y0, at(end), y1],
        other_side: false,
    })
}

/// The line holding the value of the label at `index`: below it (a label's continuation in
/// another language skipped), else on its right.
fn value_of(
    lines: &[Line],
    labels: &[Option<Label>],
    taken: &[bool],
    index: usize,
) -> Option<usize> {
    let label = lines[index].bbox;
    let height = (label[3] - label[1]).max(1.0);
    let Some(Label::Field(name)) = labels[index] else { return None };
    let candidates = || {
        (0..lines.len()).filter(move |&other| {
            other != index
                && !taken[other]
                && labels[other].is_none()
                && plausible(name, &lines[other].text)
        })
    };
    // Below: its top under the label's middle, within reach, starting under the label (a
    // label the detector joined with its neighbours' spans their values too: the nearest
    // that fits the field is taken), the nearest line first, then the one nearest the
    // label's start.
    let below = candidates()
        .filter(|&other| {
            let bbox = lines[other].bbox;
            let top = bbox[1];
            top > (label[1] + label[3]) / 2.0
                && top < label[3] + BELOW_WITHIN * height + continuation_depth(lines, labels, index)
                && bbox[0] > label[0] - 3.0 * height
                && bbox[0] < label[2]
        })
        .min_by(|&a, &b| {
            let (a, b) = (lines[a].bbox, lines[b].bbox);
            let rows = (a[1] - b[1]).abs() < height / 2.0;
            let from_start = |bbox: [f32; 4]| (bbox[0] - label[0]).abs();
            if rows { from_start(a).total_cmp(&from_start(b)) } else { a[1].total_cmp(&b[1]) }
        });
    below.or_else(|| {
        candidates()
            .filter(|&other| {
                let bbox = lines[other].bbox;
                let middle = (bbox[1] + bbox[3]) / 2.0;
                middle > label[1]
                    && middle < label[3]
                    && bbox[0] > label[2] - height
                    && bbox[0] < label[2] + BESIDE_WITHIN * height
            })
            .min_by(|&a, &b| lines[a].bbox[0].total_cmp(&lines[b].bbox[0]))
    })
}

/// Whether `text` may be the value of the field `name`: a date holds three digits or more,
/// a number one, a name or a place none, the sex is one the page's words give.
fn plausible(name: VisualFieldName, text: &str) -> bool {
    let digits = text.chars().filter(char::is_ascii_digit).count();
    match name {
        // A day and a year at the least (`1 JAN 07`).
        VisualFieldName::DateOfBirth
        | VisualFieldName::DateOfIssue
        | VisualFieldName::DateOfExpiry => digits >= 3,
        VisualFieldName::DocumentNumber | VisualFieldName::PersonalNumber => digits > 0,
        VisualFieldName::Surname
        | VisualFieldName::GivenNames
        | VisualFieldName::PlaceOfBirth
        | VisualFieldName::IssuingAuthority => digits == 0,
        VisualFieldName::Sex => printed_sex(text).is_some(),
    }
}

/// How far the label at `index` runs on in lines below it that are labels too (the same
/// label in another language), which its value lies under.
fn continuation_depth(lines: &[Line], labels: &[Option<Label>], index: usize) -> f32 {
    let mut bottom = lines[index].bbox[3];
    let height = (lines[index].bbox[3] - lines[index].bbox[1]).max(1.0);
    let left = lines[index].bbox[0];
    loop {
        let next = (0..lines.len()).find(|&other| {
            let bbox = lines[other].bbox;
            labels[other].is_some()
                && other != index
                && bbox[1] > bottom - height / 2.0
                && bbox[1] < bottom + height / 2.0
                && (bbox[0] - left).abs() < 3.0 * height
        });
        match next {
            Some(other) => bottom = lines[other].bbox[3],
            None => return bottom - lines[index].bbox[3],
        }
    }
}

/// The fields the MRZ holds too, as the page prints them.
fn printed(zone: &VisualZone) -> Printed {
    let text = |name| {
        zone.field(name)
            .filter(|field| field.confidence >= COMPARED_FROM)
            .map(|field| field.value.clone())
    };
    Printed {
        surname: text(VisualFieldName::Surname),
        given_names: text(VisualFieldName::GivenNames),
        birth_date: text(VisualFieldName::DateOfBirth).and_then(|date| PrintedDate::parse(&date)),
        expiry_date: text(VisualFieldName::DateOfExpiry).and_then(|date| PrintedDate::parse(&date)),
        document_number: text(VisualFieldName::DocumentNumber),
        sex: text(VisualFieldName::Sex).and_then(|sex| printed_sex(&sex)),
    }
}

#[cfg(test)]
mod tests;
