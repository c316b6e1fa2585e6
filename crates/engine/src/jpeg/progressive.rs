//! Progressive JPEGs at half or quarter size. A progressive file codes each component's coefficients in
//! several scans: the DC first, then bands of the AC, each band maybe first in its high bits
//! and then refined a bit a scan (successive approximation). Every scan that holds luma is
//! decoded into one record per luma block: the 4x4 lowest frequencies the half-size transform
//! uses, and for all 64 whether it is not 0 (a refinement scan codes a bit for each coefficient
//! of its band already not 0, kept or not). Chroma is parsed only where it shares a DC scan
//! with luma; a scan of chroma alone, or of a luma band above the kept frequencies, is stepped
//! over to the next marker. When the last scan is in, each
//! block goes through the same transform as a sequential file's.
//!
//! Memory: 40 bytes a luma block (0.6 byte a pixel) while the scans are read, besides the
//! half-size plane the sequential decoder also makes.

use super::Reduction;
use super::headers::{self, DHT, DRI, EOI, Headers, SOS, Scan, max_sampling};
use super::scan::{self, Bits, Huffman, KEEP};
use crate::gray::Gray;

/// More scans than encoders write (libjpeg's default script has 10, mozjpeg's searched ones a
/// few dozen); a file with more goes to the general decoder. Each scan decoded visits every
/// luma block, so this bounds what a file of few bytes and many scans can cost.
const MAX_SCANS: usize = 100;

/// What the scans have told of one luma block.
#[derive(Clone, Copy, Default)]
struct Block {
    /// The kept coefficients, quantised, by [`KEEP`] slot.
    kept: [i16; 16],
    /// Bit `k` set when the coefficient at zigzag position `k` is not 0.
    nonzero: u64,
}

impl Block {
    /// Sets the coefficient at zigzag position `k` (below 64).
    fn set(&mut self, k: usize, value: i32) {
        if value != 0 {
            self.nonzero |= 1 << k;
        }
        if let Some(slot) = self.kept.get_mut(usize::from(KEEP[k])) {
            *slot = value as i16;
        }
    }

    /// Adds one more bit, `1 << low`, to the coefficient at zigzag position `k`, already not
    /// 0, away from 0, when the refinement bit is set and the coefficient lacks it.
    fn refine(&mut self, k: usize, low: u32, bit: bool) {
        if !bit {
            return;
        }
        if let Some(slot) = self.kept.get_mut(usize::from(KEEP[k])) {
            let p1 = 1i16 << low;
            if *slot & p1 == 0 {
                *slot = if *slot >= 0 { slot.wrapping_add(p1) } else { slot.wrapping_sub(p1) };
            }
        }
    }
}

/// The Huffman tables and restart interval in force, which the segments between scans change.
struct Tables {
    dc: [Option<Box<Huffman>>; 4],
    ac: [Option<Box<Huffman>>; 4],
    restart_interval: usize,
}

/// Luma blocks in a grid padded to whole MCUs, as an interleaved scan visits them.
struct Plane {
    blocks: Vec<Block>,
    per_line: usize,
    /// Luma blocks that hold pixels of the image, across and down.
    wide: usize,
    high: usize,
    /// The image's size in pixels.
    width: usize,
    height: usize,
}

/// Decodes every scan of a progressive file into the luma plane at half or quarter size.
pub(super) fn decode(headers: Headers<'_>, reduction: Reduction) -> Option<Gray> {
    let frame = &headers.frame;
    let (width, height) = (usize::from(frame.width), usize::from(frame.height));
    let (h_max, v_max) = max_sampling(&frame.components);
    let (mcus_x, mcus_y) = (width.div_ceil(8 * h_max), height.div_ceil(8 * v_max));
    let per_line = mcus_x * h_max;
    let mut plane = Plane {
        blocks: vec![Block::default(); per_line.checked_mul(mcus_y * v_max)?],
        per_line,
        wide: width.div_ceil(8),
        high: height.div_ceil(8),
        width,
        height,
    };
    let mut tables = Tables {
        dc: headers.dc_tables,
        ac: headers.ac_tables,
        restart_interval: headers.restart_interval,
    };
    let (mut scan, mut data) = (headers.scan, headers.data);
    let mut luma_dc_seen = false;
    for _ in 0..MAX_SCANS {
        // A band of luma AC wholly above the kept frequencies changes nothing the transform
        // uses, first scan or refinement alike, and is stepped over as chroma is.
        let kept_band = scan.start == 0 || (scan.start..=scan.end).any(|k| KEEP[k] < 16);
        if kept_band && scan.components.iter().any(|c| c.frame_index == 0) {
            luma_dc_seen |= scan.start == 0;
            if !luma_dc_seen {
                return None;
            }
            decode_scan(&scan, data, frame, &tables, &mut plane)?;
        }
        let end = end_of_scan(data)?;
        match next_scan(&data[end..], frame, &mut tables)? {
            Some((next, rest)) => (scan, data) = (next, rest),
            None => {
                return luma_dc_seen.then(|| transform(&plane, &headers.luma_quant, reduction));
            }
        }
    }
    None
}

/// Where the entropy-coded data ends: the first marker that is not a restart.
fn end_of_scan(data: &[u8]) -> Option<usize> {
    let mut at = 0;
    while at + 1 < data.len() {
        if data[at] == 0xFF {
            match data[at + 1] {
                // A stuffed zero, a restart, or fill before a marker.
                0x00 | 0xD0..=0xD7 => at += 2,
                0xFF => at += 1,
                _ => return Some(at),
            }
        } else {
            at += 1;
        }
    }
    None
}

/// Reads the segments after a scan up to the next scan header; `Some(None)` at the end of the
/// image, `None` for anything this decoder does not follow.
fn next_scan<'a>(
    bytes: &'a [u8],
    frame: &headers::Frame,
    tables: &mut Tables,
) -> Option<Option<(Scan, &'a [u8])>> {
    let mut pos = 0;
    loop {
        let (marker, body, next) = headers::segment(bytes, pos)?;
        pos = next;
        match marker {
            EOI => return Some(None),
            DHT => headers::parse_huffman(body, &mut tables.dc, &mut tables.ac)?,
            DRI => tables.restart_interval = usize::from(u16::from_be_bytes(body.try_into().ok()?)),
            SOS => {
                let scan = headers::parse_scan(body, frame)?;
                if !headers::has_tables(&scan, &tables.dc, &tables.ac) {
                    return None;
                }
                return Some(Some((scan, &bytes[pos..])));
            }
            // Another frame, or a new quantisation table for coefficients already sent.
            0xC0..=0xC3 | 0xC5..=0xC7 | 0xC9..=0xCB | 0xCD..=0xCF | headers::DQT => return None,
            _ => {}
        }
    }
}

/// Decodes one scan that holds luma into the plane.
fn decode_scan(
    scan: &Scan,
    data: &[u8],
    frame: &headers::Frame,
    tables: &Tables,
    plane: &mut Plane,
) -> Option<()> {
    let mut bits = Bits::new(data);
    let mut predictors = [0i32; 3];
    let mut eob_run = 0u32;
    let mut restarts = Restarts { interval: tables.restart_interval, index: 0 };
    if scan.components.len() > 1 {
        // An interleaved scan: DC only, MCU by MCU.
        let (h_max, v_max) = max_sampling(&frame.components);
        let (width, height) = (usize::from(frame.width), usize::from(frame.height));
        let (mcus_x, mcus_y) = (width.div_ceil(8 * h_max), height.div_ceil(8 * v_max));
        for mcu_y in 0..mcus_y {
            for mcu_x in 0..mcus_x {
                bits = restarts.next(bits, &mut predictors, &mut eob_run)?;
                for (component, predictor) in scan.components.iter().zip(predictors.iter_mut()) {
                    let sampling = &frame.components[component.frame_index];
                    let table = tables.dc[component.dc].as_deref();
                    for block_y in 0..sampling.v {
                        for block_x in 0..sampling.h {
                            let value = dc(&mut bits, scan, table, predictor)?;
                            if component.frame_index == 0 {
                                let x = mcu_x * sampling.h + block_x;
                                let y = mcu_y * sampling.v + block_y;
                                let block = &mut plane.blocks[y * plane.per_line + x];
                                apply_dc(block, scan, value);
                            }
                        }
                    }
                }
            }
            if bits.overran() {
                return None;
            }
        }
    } else {
        // Luma alone, block by block over the blocks that hold pixels.
        let component = &scan.components[0];
        for y in 0..plane.high {
            for x in 0..plane.wide {
                bits = restarts.next(bits, &mut predictors, &mut eob_run)?;
                let block = &mut plane.blocks[y * plane.per_line + x];
                if scan.start == 0 {
                    let table = tables.dc[component.dc].as_deref();
                    let value = dc(&mut bits, scan, table, &mut predictors[0])?;
                    apply_dc(block, scan, value);
                } else {
                    let table = tables.ac[component.ac].as_deref()?;
                    if scan.high == 0 {
                        ac_first(&mut bits, table, scan, block, &mut eob_run)?;
                    } else {
                        ac_refine(&mut bits, table, scan, block, &mut eob_run)?;
                    }
                }
            }
            if bits.overran() {
                return None;
            }
        }
    }
    (!bits.overran()).then_some(())
}

/// Counts the MCUs of a scan (single blocks in a scan of one component) and moves past a
/// restart marker where one is due, which resets the DC predictors and the run of empty blocks.
struct Restarts {
    interval: usize,
    index: usize,
}

impl Restarts {
    fn next<'a>(
        &mut self,
        bits: Bits<'a>,
        predictors: &mut [i32; 3],
        eob_run: &mut u32,
    ) -> Option<Bits<'a>> {
        let due = self.interval > 0 && self.index > 0 && self.index.is_multiple_of(self.interval);
        self.index += 1;
        if !due {
            return Some(bits);
        }
        *predictors = [0; 3];
        *eob_run = 0;
        bits.restart()
    }
}

/// One block's part of a DC scan: the DC value (first scan) or the refinement bit.
fn dc(
    bits: &mut Bits<'_>,
    scan: &Scan,
    table: Option<&Huffman>,
    predictor: &mut i32,
) -> Option<i32> {
    if scan.high == 0 { scan::dc(bits, table?, predictor) } else { Some(i32::from(bit(bits))) }
}

fn apply_dc(block: &mut Block, scan: &Scan, value: i32) {
    if scan.high == 0 {
        block.set(0, value << scan.low);
    } else if value != 0 {
        block.kept[0] |= 1 << scan.low;
    }
}

fn bit(bits: &mut Bits<'_>) -> bool {
    bits.refill();
    let set = bits.peek(1) != 0;
    bits.consume(1);
    set
}

/// `count` (at most 14) bits as an unsigned number.
fn unsigned(bits: &mut Bits<'_>, count: u32) -> u32 {
    if count == 0 {
        return 0;
    }
    bits.refill();
    let value = bits.peek(count);
    bits.consume(count);
    value
}

/// A block's first look at an AC band: its coefficients' high bits, or part of a run of
/// blocks with nothing in the band.
fn ac_first(
    bits: &mut Bits<'_>,
    table: &Huffman,
    scan: &Scan,
    block: &mut Block,
    eob_run: &mut u32,
) -> Option<()> {
    if *eob_run > 0 {
        *eob_run -= 1;
        return Some(());
    }
    let mut k = scan.start;
    while k <= scan.end {
        bits.refill();
        let symbol = bits.decode(table)?;
        let (run, size) = (u32::from(symbol >> 4), u32::from(symbol & 15));
        if size == 0 {
            if run < 15 {
                *eob_run = (1 << run) - 1 + unsigned(bits, run);
                break;
            }
            k += 16;
            continue;
        }
        k += run as usize;
        if k > scan.end {
            return None;
        }
        block.set(k, bits.receive(size) << scan.low);
        k += 1;
    }
    Some(())
}

/// A block's refinement of an AC band: one more bit of each coefficient already not 0, and
/// the coefficients that become not 0 at this bit (as in ITU-T T.81 G.1.2.3).
fn ac_refine(
    bits: &mut Bits<'_>,
    table: &Huffman,
    scan: &Scan,
    block: &mut Block,
    eob_run: &mut u32,
) -> Option<()> {
    let mut k = scan.start;
    if *eob_run == 0 {
        while k <= scan.end {
            bits.refill();
            let symbol = bits.decode(table)?;
            let (mut run, size) = (u32::from(symbol >> 4), symbol & 15);
            let mut value = 0;
            match (size, run) {
                (1, _) => value = if bit(bits) { 1 << scan.low } else { -1 << scan.low },
                (0, 15) => {}
                (0, _) => {
                    *eob_run = (1 << run) + unsigned(bits, run);
                    break;
                }
                _ => return None,
            }
            // Past `run` coefficients still 0, refining those that are not on the way.
            while k <= scan.end {
                if block.nonzero & (1 << k) != 0 {
                    block.refine(k, scan.low, bit(bits));
                } else {
                    if run == 0 {
                        break;
                    }
                    run -= 1;
                }
                k += 1;
            }
            if value != 0 {
                if k > scan.end {
                    return None;
                }
                block.set(k, value);
            }
            k += 1;
        }
    }
    if *eob_run > 0 {
        while k <= scan.end {
            if block.nonzero & (1 << k) != 0 {
                block.refine(k, scan.low, bit(bits));
            }
            k += 1;
        }
        *eob_run -= 1;
    }
    Some(())
}

/// Every block through the half-size transform, as the sequential decoder does.
fn transform(plane: &Plane, luma_quant: &[u16; 64], reduction: Reduction) -> Gray {
    let quant = scan::kept_quant(luma_quant);
    let factor = reduction.factor();
    let (out_w, out_h) = (plane.width.div_ceil(factor), plane.height.div_ceil(factor));
    let mut out = vec![0u8; out_w * out_h];
    for y in 0..plane.high {
        for x in 0..plane.wide {
            let block = &plane.blocks[y * plane.per_line + x];
            let mut quantised = [0i32; 17];
            for (slot, &value) in quantised.iter_mut().zip(&block.kept) {
                *slot = i32::from(value);
            }
            let (coefficients, has_ac) = scan::dequantise(&quantised, &quant);
            scan::place_block(&mut out, out_w, out_h, (x, y), reduction, || {
                scan::transform(&coefficients, has_ac)
            });
        }
    }
    Gray { width: out_w, height: out_h, data: out }
}
