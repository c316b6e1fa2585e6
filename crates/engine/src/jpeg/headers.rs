//! The marker segments before the first scan: frame, tables, restart interval,
//! EXIF, and the scan header, checked against what the scan decoder handles.

use super::scan::Huffman;

/// One component of the frame.
#[derive(Clone, Copy, Debug)]
pub(super) struct Component {
    pub(super) id: u8,
    /// Horizontal and vertical sampling factors, 1 to 4.
    pub(super) h: usize,
    pub(super) v: usize,
    /// Quantisation table index, 0 to 3.
    pub(super) tq: usize,
}

/// The frame header (SOF0, SOF1 or SOF2).
#[derive(Debug)]
pub(super) struct Frame {
    pub(super) width: u16,
    pub(super) height: u16,
    pub(super) components: Vec<Component>,
    /// A progressive frame (SOF2): the coefficients come in several scans.
    pub(super) progressive: bool,
}

/// A component of the scan: which frame component, and its Huffman tables.
#[derive(Clone, Copy, Debug)]
pub(super) struct ScanComponent {
    pub(super) frame_index: usize,
    pub(super) dc: usize,
    pub(super) ac: usize,
}

/// A scan header: its components, and the band of the spectrum and the bits of it that it
/// codes (the whole spectrum at full precision in a sequential frame).
#[derive(Debug)]
pub(super) struct Scan {
    pub(super) components: Vec<ScanComponent>,
    /// First and last zigzag index of the band.
    pub(super) start: usize,
    pub(super) end: usize,
    /// Successive approximation: the bit position of the previous scan of this band (0 for
    /// the first), and the one this scan codes down to.
    pub(super) high: u32,
    pub(super) low: u32,
}

/// Everything the scan decoder needs, with the scan's entropy-coded data.
pub(super) struct Headers<'a> {
    pub(super) frame: Frame,
    /// The luma quantisation table in zigzag order, as written in the file.
    pub(super) luma_quant: [u16; 64],
    pub(super) dc_tables: [Option<Box<Huffman>>; 4],
    pub(super) ac_tables: [Option<Box<Huffman>>; 4],
    /// MCUs between restart markers; 0 for none.
    pub(super) restart_interval: usize,
    pub(super) scan: Scan,
    /// The bytes after the scan header, entropy-coded data first.
    pub(super) data: &'a [u8],
    /// The TIFF structure of the first APP1 `Exif` segment.
    pub(super) exif: Option<&'a [u8]>,
}

const SOI: u8 = 0xD8;
pub(super) const EOI: u8 = 0xD9;
pub(super) const SOS: u8 = 0xDA;
pub(super) const DQT: u8 = 0xDB;
pub(super) const DHT: u8 = 0xC4;
pub(super) const DRI: u8 = 0xDD;
const APP1: u8 = 0xE1;
const APP14: u8 = 0xEE;

/// Parses the headers up to the first scan; `None` for anything this decoder
/// does not handle or cannot make sense of.
pub(super) fn parse(bytes: &[u8]) -> Option<Headers<'_>> {
    if !bytes.starts_with(&[0xFF, SOI]) {
        return None;
    }
    let mut pos = 2;
    let mut frame: Option<Frame> = None;
    let mut quant: [Option<[u16; 64]>; 4] = [None; 4];
    let mut dc_tables: [Option<Box<Huffman>>; 4] = Default::default();
    let mut ac_tables: [Option<Box<Huffman>>; 4] = Default::default();
    let mut restart_interval = 0;
    let mut exif = None;
    let mut adobe_transform = None;
    loop {
        let (marker, body, next) = segment(bytes, pos)?;
        pos = next;
        match marker {
            EOI => return None,
            0xC0 | 0xC1 => frame = Some(parse_frame(body, false)?),
            0xC2 => frame = Some(parse_frame(body, true)?),
            // Lossless, hierarchical and arithmetic-coded frames.
            0xC3 | 0xC5..=0xC7 | 0xC9..=0xCB | 0xCD..=0xCF => return None,
            DHT => parse_huffman(body, &mut dc_tables, &mut ac_tables)?,
            DQT => parse_quant(body, &mut quant)?,
            DRI => restart_interval = usize::from(u16::from_be_bytes(body.try_into().ok()?)),
            APP1 if exif.is_none() => exif = body.strip_prefix(b"Exif\0\0"),
            APP14 if body.starts_with(b"Adobe") => adobe_transform = body.get(11).copied(),
            SOS => {
                let frame = frame?;
                let scan = parse_scan(body, &frame)?;
                let luma = frame.components[0];
                let luma_quant = quant[luma.tq]?;
                if frame.components.len() == 3 && is_rgb(&frame, adobe_transform) {
                    return None;
                }
                if !has_tables(&scan, &dc_tables, &ac_tables) {
                    return None;
                }
                return Some(Headers {
                    frame,
                    luma_quant,
                    dc_tables,
                    ac_tables,
                    restart_interval,
                    scan,
                    data: &bytes[pos..],
                    exif,
                });
            }
            _ => {}
        }
    }
}

/// The marker at `pos` (after any fill bytes), its segment's body (empty for a marker without
/// one: TEM, SOI, EOI, restarts) and where the next marker begins; `None` when no marker or
/// no whole segment is there.
pub(super) fn segment(bytes: &[u8], mut pos: usize) -> Option<(u8, &[u8], usize)> {
    if *bytes.get(pos)? != 0xFF {
        return None;
    }
    // Any number of fill bytes may precede a marker.
    while *bytes.get(pos)? == 0xFF {
        pos += 1;
    }
    let marker = *bytes.get(pos)?;
    pos += 1;
    if matches!(marker, 0x01 | SOI | EOI | 0xD0..=0xD7) {
        return Some((marker, &[], pos));
    }
    let length = usize::from(u16::from_be_bytes([*bytes.get(pos)?, *bytes.get(pos + 1)?]));
    let body = bytes.get(pos + 2..pos.checked_add(length)?)?;
    Some((marker, body, pos + length))
}

/// Whether three components hold red, green and blue rather than YCbCr.
fn is_rgb(frame: &Frame, adobe_transform: Option<u8>) -> bool {
    let ids: Vec<u8> = frame.components.iter().map(|c| c.id).collect();
    adobe_transform == Some(0) || ids == b"RGB"
}

/// Whether the tables the scan decodes with are defined: DC tables for the first DC scan
/// (a refinement codes bare bits), AC tables for an AC band.
pub(super) fn has_tables(
    scan: &Scan,
    dc_tables: &[Option<Box<Huffman>>; 4],
    ac_tables: &[Option<Box<Huffman>>; 4],
) -> bool {
    scan.components.iter().all(|c| {
        (scan.start > 0 || scan.high > 0 || dc_tables[c.dc].is_some())
            && (scan.end == 0 || ac_tables[c.ac].is_some())
    })
}

fn parse_frame(body: &[u8], progressive: bool) -> Option<Frame> {
    let (&precision, rest) = body.split_first()?;
    if precision != 8 || rest.len() < 5 {
        return None;
    }
    let height = u16::from_be_bytes([rest[0], rest[1]]);
    let width = u16::from_be_bytes([rest[2], rest[3]]);
    let count = usize::from(rest[4]);
    // Height 0 means a DNL marker gives it after the scan: not handled.
    if width == 0 || height == 0 || !(count == 1 || count == 3) {
        return None;
    }
    let specs = rest.get(5..5 + 3 * count)?;
    let components: Vec<Component> = specs
        .chunks_exact(3)
        .map(|spec| Component {
            id: spec[0],
            h: usize::from(spec[1] >> 4),
            v: usize::from(spec[1] & 15),
            tq: usize::from(spec[2]),
        })
        .collect();
    if components.iter().any(|c| !(1..=4).contains(&c.h) || !(1..=4).contains(&c.v) || c.tq > 3) {
        return None;
    }
    // The luma plane must be the full-resolution one.
    let (h_max, v_max) = max_sampling(&components);
    if components[0].h != h_max || components[0].v != v_max {
        return None;
    }
    if count > 1 && components.iter().map(|c| c.h * c.v).sum::<usize>() > 10 {
        return None;
    }
    Some(Frame { width, height, components, progressive })
}

/// The largest horizontal and vertical sampling factors of the frame.
pub(super) fn max_sampling(components: &[Component]) -> (usize, usize) {
    let h = components.iter().map(|c| c.h).max().unwrap_or(1);
    let v = components.iter().map(|c| c.v).max().unwrap_or(1);
    (h, v)
}

fn parse_quant(mut body: &[u8], quant: &mut [Option<[u16; 64]>; 4]) -> Option<()> {
    while let Some((&spec, rest)) = body.split_first() {
        let (precision, index) = (spec >> 4, usize::from(spec & 15));
        if index > 3 {
            return None;
        }
        let mut table = [0u16; 64];
        body = match precision {
            0 => {
                let values = rest.get(..64)?;
                for (slot, &value) in table.iter_mut().zip(values) {
                    *slot = u16::from(value);
                }
                &rest[64..]
            }
            1 => {
                let values = rest.get(..128)?;
                for (slot, pair) in table.iter_mut().zip(values.chunks_exact(2)) {
                    *slot = u16::from_be_bytes([pair[0], pair[1]]);
                }
                &rest[128..]
            }
            _ => return None,
        };
        quant[index] = Some(table);
    }
    Some(())
}

pub(super) fn parse_huffman(
    mut body: &[u8],
    dc_tables: &mut [Option<Box<Huffman>>; 4],
    ac_tables: &mut [Option<Box<Huffman>>; 4],
) -> Option<()> {
    while let Some((&spec, rest)) = body.split_first() {
        let (class, index) = (spec >> 4, usize::from(spec & 15));
        if index > 3 || class > 1 {
            return None;
        }
        let counts: [u8; 16] = rest.get(..16)?.try_into().ok()?;
        let total = counts.iter().map(|&c| usize::from(c)).sum::<usize>();
        let symbols = rest.get(16..16 + total)?;
        let table = Box::new(Huffman::new(&counts, symbols, class == 1)?);
        if class == 0 {
            dc_tables[index] = Some(table);
        } else {
            ac_tables[index] = Some(table);
        }
        body = &rest[16 + total..];
    }
    Some(())
}

/// A scan header. A sequential frame has every component once, in one interleaved scan of
/// the whole spectrum. A progressive frame's scan codes the DC of one or more components or
/// one band of one component's AC, the first time or one more bit of it.
pub(super) fn parse_scan(body: &[u8], frame: &Frame) -> Option<Scan> {
    let (&count, rest) = body.split_first()?;
    let count = usize::from(count);
    if count == 0 || count > frame.components.len() {
        return None;
    }
    let specs = rest.get(..2 * count)?;
    let mut components = Vec::with_capacity(count);
    for spec in specs.chunks_exact(2) {
        let frame_index = frame.components.iter().position(|c| c.id == spec[0])?;
        if components.iter().any(|s: &ScanComponent| s.frame_index == frame_index) {
            return None;
        }
        let (dc, ac) = (usize::from(spec[1] >> 4), usize::from(spec[1] & 15));
        if dc > 3 || ac > 3 {
            return None;
        }
        components.push(ScanComponent { frame_index, dc, ac });
    }
    let &[start, end, approximation] = rest.get(2 * count..2 * count + 3)? else {
        return None;
    };
    let scan = Scan {
        components,
        start: usize::from(start),
        end: usize::from(end),
        high: u32::from(approximation >> 4),
        low: u32::from(approximation & 15),
    };
    if !frame.progressive {
        let whole = scan.start == 0 && scan.end == 63 && approximation == 0;
        return (whole && count == frame.components.len()).then_some(scan);
    }
    // A DC scan, or one band of one component's AC; a refinement codes one bit.
    let dc = scan.start == 0 && scan.end == 0;
    let ac = scan.start >= 1 && scan.start <= scan.end && scan.end <= 63 && count == 1;
    let bits = scan.low <= 13 && (scan.high == 0 || scan.high == scan.low + 1);
    ((dc || ac) && bits).then_some(scan)
}
