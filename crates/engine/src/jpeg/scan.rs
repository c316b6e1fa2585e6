//! Entropy decoding of one interleaved baseline scan, keeping the luma
//! blocks' low frequencies and transforming them to half-size pixels.

use super::Reduction;
use super::headers::{Headers, max_sampling};
use crate::gray::Gray;

/// Bits a Huffman code is looked up by in one step.
const LOOKUP_BITS: u32 = 10;
const LOOKUP_SIZE: usize = 1 << LOOKUP_BITS;

/// Zero bytes fed past the end of the data (or past a marker) before the
/// decoder gives up on the scan as truncated.
const MAX_PADDING: u32 = 1024;

/// Bits past the first lookup that a second-level table resolves.
const LONG_BITS: u32 = 16 - LOOKUP_BITS;

/// Marks a first-level entry that names a second-level table.
const LONG: u16 = 0x8000;

/// One Huffman table, canonical codes of up to 16 bits.
pub(crate) struct Huffman {
    /// For each `LOOKUP_BITS` prefix: `(length << 8) | symbol` of the code it
    /// starts with; `LONG | n` when the code is longer and `long[n]` resolves
    /// it; 0 when no code starts so.
    lookup: [u16; LOOKUP_SIZE],
    /// Second-level tables, indexed by the `LONG_BITS` after the prefix, with
    /// entries as in `lookup`.
    long: Vec<[u16; 1 << LONG_BITS]>,
    /// For AC tables: each prefix that holds a whole code and its extra bits,
    /// as `(value << 16) | (run << 8) | bits`, with run 64 for the end of the
    /// block; 0 where the prefix is too short.
    fast_ac: [i32; LOOKUP_SIZE],
}

impl Huffman {
    /// Builds a table from the counts of codes of each length and the symbols
    /// in code order; `None` when the counts cannot be canonical codes.
    pub(crate) fn new(counts: &[u8; 16], symbols: &[u8], ac: bool) -> Option<Huffman> {
        let mut table =
            Huffman { lookup: [0; LOOKUP_SIZE], long: Vec::new(), fast_ac: [0; LOOKUP_SIZE] };
        let mut code = 0u32;
        let mut index = 0usize;
        for length in 1..=16u32 {
            for _ in 0..counts[length as usize - 1] {
                if code >= 1 << length {
                    return None;
                }
                let entry = ((length as u16) << 8) | u16::from(*symbols.get(index)?);
                if length <= LOOKUP_BITS {
                    let shift = LOOKUP_BITS - length;
                    let start = (code << shift) as usize;
                    table.lookup[start..start + (1 << shift)].fill(entry);
                } else {
                    let prefix = (code >> (length - LOOKUP_BITS)) as usize;
                    if table.lookup[prefix] == 0 {
                        table.lookup[prefix] = LONG | table.long.len() as u16;
                        table.long.push([0; 1 << LONG_BITS]);
                    }
                    // Canonical codes are prefix-free, so the prefix cannot
                    // already be a shorter code; refuse rather than trust it.
                    if table.lookup[prefix] & LONG == 0 {
                        return None;
                    }
                    let long = table.long.get_mut(usize::from(table.lookup[prefix] & !LONG))?;
                    let rest = length - LOOKUP_BITS;
                    let start = ((code & ((1 << rest) - 1)) << (LONG_BITS - rest)) as usize;
                    long[start..start + (1 << (LONG_BITS - rest))].fill(entry);
                }
                code += 1;
                index += 1;
            }
            code <<= 1;
        }
        if ac {
            table.fill_fast_ac();
        }
        Some(table)
    }

    fn fill_fast_ac(&mut self) {
        for (prefix, &entry) in self.lookup.iter().enumerate() {
            if entry == 0 || entry & LONG != 0 {
                continue;
            }
            let length = u32::from(entry >> 8);
            let symbol = entry as u8;
            let (run, size) = (i32::from(symbol >> 4), u32::from(symbol & 15));
            self.fast_ac[prefix] = match (run, size) {
                (0, 0) => (64 << 8) | length as i32,
                (15, 0) => (15 << 8) | length as i32,
                (_, 0) => 0,
                _ if length + size <= LOOKUP_BITS => {
                    let extra =
                        (prefix as u32 >> (LOOKUP_BITS - length - size)) & ((1 << size) - 1);
                    (extend(extra, size) << 16) | (run << 8) | (length + size) as i32
                }
                _ => 0,
            };
        }
    }
}

/// The value of `size` extra bits `bits` (the JPEG sign convention).
#[inline(always)]
pub(super) fn extend(bits: u32, size: u32) -> i32 {
    let value = bits as i32;
    if size > 0 && value < 1 << (size - 1) { value - (1 << size) + 1 } else { value }
}

/// Reads the entropy-coded bytes, removing stuffed zeros, with bits kept at
/// the top of a 64-bit word.
///
/// The hot methods are inlined and the cold ones take and return the reader
/// by value, so that it never has an address and its fields stay in registers.
#[derive(Clone, Copy)]
pub(super) struct Bits<'a> {
    data: &'a [u8],
    pub(super) pos: usize,
    acc: u64,
    /// Valid bits in `acc`.
    count: u32,
    /// Zero bytes fed since the data ended or a marker was reached.
    pub(super) padding: u32,
}

impl<'a> Bits<'a> {
    pub(super) fn new(data: &'a [u8]) -> Bits<'a> {
        Bits { data, pos: 0, acc: 0, count: 0, padding: 0 }
    }

    /// Makes at least 32 bits available: one code and its extra bits.
    #[inline(always)]
    pub(super) fn refill(&mut self) {
        if self.count > 32 {
            return;
        }
        if let Some(&[a, b, c, d]) = self.data.get(self.pos..self.pos + 4) {
            // A bit for each byte that is 0xFF (a stuffed zero or a marker
            // follows), exact up to the first one, which is all that is used.
            let little = u32::from_le_bytes([a, b, c, d]);
            let marks = (!little).wrapping_sub(0x0101_0101) & little & 0x8080_8080;
            let clean = marks.trailing_zeros().min(32) / 8;
            if clean > 0 {
                let word = u64::from(u32::from_be_bytes([a, b, c, d]) >> (32 - 8 * clean));
                self.acc |= word << (64 - self.count - 8 * clean);
                self.count += 8 * clean;
                self.pos += clean as usize;
                if self.count > 32 {
                    return;
                }
            }
        }
        *self = self.refill_bytes();
    }

    #[cold]
    #[inline(never)]
    fn refill_bytes(mut self) -> Bits<'a> {
        while self.count <= 56 {
            let byte = match self.data.get(self.pos) {
                Some(0xFF) if self.data.get(self.pos + 1) == Some(&0) => {
                    self.pos += 2;
                    0xFF
                }
                // A marker, or the end: zeros from here on, until a restart.
                Some(0xFF) | None => {
                    self.padding += 1;
                    0
                }
                Some(&byte) => {
                    self.pos += 1;
                    byte
                }
            };
            self.acc |= u64::from(byte) << (56 - self.count);
            self.count += 8;
        }
        self
    }

    #[inline(always)]
    pub(super) fn peek(&self, bits: u32) -> u32 {
        (self.acc >> (64 - bits)) as u32
    }

    #[inline(always)]
    pub(super) fn consume(&mut self, bits: u32) {
        self.acc <<= bits;
        self.count -= bits;
    }

    #[inline(always)]
    pub(super) fn decode(&mut self, table: &Huffman) -> Option<u8> {
        let mut entry = table.lookup[self.peek(LOOKUP_BITS) as usize];
        if entry & LONG != 0 {
            let long = table.long.get(usize::from(entry & !LONG))?;
            entry = long[(self.peek(16) & ((1 << LONG_BITS) - 1)) as usize];
        }
        if entry == 0 {
            return None;
        }
        self.consume(u32::from(entry >> 8));
        Some(entry as u8)
    }

    /// Reads `size` extra bits as a signed value (`size` at most 16).
    #[inline(always)]
    pub(super) fn receive(&mut self, size: u32) -> i32 {
        if size == 0 {
            return 0;
        }
        let bits = self.peek(size);
        self.consume(size);
        extend(bits, size)
    }

    /// Whether bits past the end of the data, or past a marker, were used.
    pub(super) fn overran(&self) -> bool {
        self.padding * 8 > self.count
    }

    /// Moves past a restart marker, which the encoder put at a byte boundary.
    #[inline(never)]
    pub(super) fn restart(mut self) -> Option<Bits<'a>> {
        if self.overran() {
            return None;
        }
        self.acc = 0;
        self.count = 0;
        self.padding = 0;
        if *self.data.get(self.pos)? != 0xFF {
            return None;
        }
        while *self.data.get(self.pos)? == 0xFF {
            self.pos += 1;
        }
        let marker = *self.data.get(self.pos)?;
        if !(0xD0..=0xD7).contains(&marker) {
            return None;
        }
        self.pos += 1;
        Some(self)
    }
}

/// Zigzag position to the index of a kept coefficient in a column-major 4x4
/// block (frequency `col * 4 + row`), or 16 for the frequencies dropped.
pub(super) const KEEP: [u8; 64] = {
    const ZIGZAG: [u8; 64] = [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27,
        20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
        58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
    ];
    let mut keep = [16u8; 64];
    let mut k = 0;
    while k < 64 {
        let (row, col) = (ZIGZAG[k] / 8, ZIGZAG[k] % 8);
        if row < 4 && col < 4 {
            keep[k] = col * 4 + row;
        }
        k += 1;
    }
    keep
};

/// The luma quantisers of the kept frequencies, in the kept blocks' order, from the table in
/// zigzag order.
pub(super) fn kept_quant(zigzag: &[u16; 64]) -> [f32; 16] {
    let mut quant = [0f32; 16];
    for (k, &slot) in KEEP.iter().enumerate() {
        if let Some(q) = quant.get_mut(usize::from(slot)) {
            *q = f32::from(zigzag[k]);
        }
    }
    quant
}

/// `BASIS[i][u] = c(u) / 2 * cos((2i + 1) u pi / 8) * cos(u pi / 16)`, with
/// `c(0) = 1 / sqrt(2)` and `c(u) = 1` otherwise: the 8-point inverse DCT
/// averaged over output pixels `2i` and `2i + 1` (the average of
/// `cos((2x + 1) u pi / 16)` over those two is the product of the cosines).
pub(super) const BASIS: [[f32; 4]; 4] = [
    [0.353_553_4, 0.453_063_7, 0.326_640_7, 0.159_094_8],
    [0.353_553_4, 0.187_665_1, -0.326_640_7, -0.384_088_9],
    [0.353_553_4, -0.187_665_1, -0.326_640_7, 0.384_088_9],
    [0.353_553_4, -0.453_063_7, 0.326_640_7, -0.159_094_8],
];

/// Decodes the scan into the luma plane at half or quarter size.
pub(super) fn decode(headers: &Headers<'_>, reduction: Reduction) -> Option<Gray> {
    let frame = &headers.frame;
    let (width, height) = (usize::from(frame.width), usize::from(frame.height));
    let (h_max, v_max) = max_sampling(&frame.components);
    // One component alone is coded block by block, whatever its sampling.
    let interleaved = headers.scan.components.len() > 1;
    let (mcu_w, mcu_h) = if interleaved { (8 * h_max, 8 * v_max) } else { (8, 8) };
    let (mcus_x, mcus_y) = (width.div_ceil(mcu_w), height.div_ceil(mcu_h));
    let factor = reduction.factor();
    let (out_w, out_h) = (width.div_ceil(factor), height.div_ceil(factor));
    let mut out = vec![0u8; out_w * out_h];

    let quant = kept_quant(&headers.luma_quant);
    struct Plan<'t> {
        dc: &'t Huffman,
        ac: &'t Huffman,
        luma: bool,
        h: usize,
        v: usize,
    }
    let plans: Vec<Plan<'_>> = headers
        .scan
        .components
        .iter()
        .map(|s| {
            let component = &frame.components[s.frame_index];
            let (h, v) = if interleaved { (component.h, component.v) } else { (1, 1) };
            Some(Plan {
                dc: headers.dc_tables[s.dc].as_deref()?,
                ac: headers.ac_tables[s.ac].as_deref()?,
                luma: s.frame_index == 0,
                h,
                v,
            })
        })
        .collect::<Option<_>>()?;

    let mut bits = Bits::new(headers.data);
    let mut predictors = [0i32; 3];
    let mut mcu_index = 0usize;
    for mcu_y in 0..mcus_y {
        for mcu_x in 0..mcus_x {
            if headers.restart_interval > 0
                && mcu_index > 0
                && mcu_index.is_multiple_of(headers.restart_interval)
            {
                bits = bits.restart()?;
                predictors = [0; 3];
            }
            mcu_index += 1;
            for (plan, predictor) in plans.iter().zip(predictors.iter_mut()) {
                for block_y in 0..plan.v {
                    for block_x in 0..plan.h {
                        if !plan.luma {
                            skip_block(&mut bits, plan.dc, plan.ac, predictor)?;
                            continue;
                        }
                        let mut quantised = [0i32; 17];
                        luma_block(&mut bits, plan, predictor, &mut quantised)?;
                        let x = mcu_x * plan.h + block_x;
                        let y = mcu_y * plan.v + block_y;
                        place_block(&mut out, out_w, out_h, (x, y), reduction, || {
                            let (coefficients, has_ac) = dequantise(&quantised, &quant);
                            transform(&coefficients, has_ac)
                        });
                    }
                }
            }
        }
        if bits.padding > MAX_PADDING {
            return None;
        }
    }
    if bits.overran() {
        return None;
    }
    return Some(Gray { width: out_w, height: out_h, data: out });

    /// Decodes one luma block's coefficients, keeping the 4x4 lowest
    /// frequencies (quantised, by column of frequency; the 17th slot takes
    /// those dropped).
    #[inline(always)]
    fn luma_block(
        bits: &mut Bits<'_>,
        plan: &Plan<'_>,
        predictor: &mut i32,
        quantised: &mut [i32; 17],
    ) -> Option<()> {
        quantised[0] = dc(bits, plan.dc, predictor)?;
        let mut k = 1usize;
        while k < 64 {
            bits.refill();
            let fast = plan.ac.fast_ac[bits.peek(LOOKUP_BITS) as usize];
            let value = if fast != 0 {
                bits.consume((fast & 0xFF) as u32);
                k += ((fast >> 8) & 0xFF) as usize;
                fast >> 16
            } else {
                let symbol = bits.decode(plan.ac)?;
                let (run, size) = (usize::from(symbol >> 4), u32::from(symbol & 15));
                if size == 0 {
                    if run != 15 {
                        break;
                    }
                    k += 16;
                    continue;
                }
                k += run;
                bits.receive(size)
            };
            if k >= 64 {
                break;
            }
            // Dropped frequencies go to the 17th slot, which nothing reads: no
            // branch the data decides.
            quantised[usize::from(KEEP[k])] = value;
            k += 1;
        }
        Some(())
    }
}

/// A block's kept coefficients dequantised, and whether any but DC is not 0;
/// a coded coefficient is never 0, so that is whether any was coded.
#[inline(always)]
pub(super) fn dequantise(quantised: &[i32; 17], quant: &[f32; 16]) -> ([f32; 17], bool) {
    let mut coefficients = [0f32; 17];
    let mut any = 0;
    for slot in 0..16 {
        coefficients[slot] = quantised[slot] as f32 * quant[slot];
        any |= if slot > 0 { quantised[slot] } else { 0 };
    }
    (coefficients, any != 0)
}

/// Decodes a block's DC difference into its component's predictor and
/// returns the predictor (the block's DC value, not yet dequantised).
#[inline(always)]
pub(super) fn dc(bits: &mut Bits<'_>, table: &Huffman, predictor: &mut i32) -> Option<i32> {
    bits.refill();
    let size = u32::from(bits.decode(table)?);
    // 11 bits are the most an 8-bit frame's DC difference takes.
    if size > 11 {
        return None;
    }
    *predictor = predictor.wrapping_add(bits.receive(size));
    Some(*predictor)
}

/// Parses one block and drops it (chroma), keeping its DC predictor current.
#[inline(always)]
fn skip_block(
    bits: &mut Bits<'_>,
    dc_table: &Huffman,
    ac: &Huffman,
    predictor: &mut i32,
) -> Option<()> {
    dc(bits, dc_table, predictor)?;
    let mut k = 1usize;
    while k < 64 {
        bits.refill();
        let fast = ac.fast_ac[bits.peek(LOOKUP_BITS) as usize];
        if fast != 0 {
            bits.consume((fast & 0xFF) as u32);
            k += ((fast >> 8) & 0xFF) as usize + 1;
            continue;
        }
        let symbol = bits.decode(ac)?;
        let (run, size) = (usize::from(symbol >> 4), u32::from(symbol & 15));
        if size == 0 && run != 15 {
            break;
        }
        bits.consume(size);
        k += run + 1;
    }
    Some(())
}

/// The 4x4 half-size pixels of a block from its kept coefficients
/// (`coefficients[col * 4 + row]` of frequency, the 17th unused), level
/// shifted and clamped.
#[inline(always)]
pub(super) fn transform(coefficients: &[f32; 17], has_ac: bool) -> [[u8; 4]; 4] {
    if !has_ac {
        return [[to_pixel(coefficients[0] / 8.0 + 128.0); 4]; 4];
    }
    let [a, p, c, r] = BASIS[0];
    let (q, t) = (BASIS[1][1], BASIS[1][3]);
    // The 4-point inverse transform as even and odd halves (the signs of the
    // basis rows), on four lanes at once.
    let butterfly = |f: [[f32; 4]; 4]| -> [[f32; 4]; 4] {
        let lanes = |g: &dyn Fn(usize) -> f32| -> [f32; 4] { [g(0), g(1), g(2), g(3)] };
        let even0 = lanes(&|l| a * f[0][l] + c * f[2][l]);
        let even1 = lanes(&|l| a * f[0][l] - c * f[2][l]);
        let odd0 = lanes(&|l| p * f[1][l] + r * f[3][l]);
        let odd1 = lanes(&|l| q * f[1][l] + t * f[3][l]);
        [
            lanes(&|l| even0[l] + odd0[l]),
            lanes(&|l| even1[l] + odd1[l]),
            lanes(&|l| even1[l] - odd1[l]),
            lanes(&|l| even0[l] - odd0[l]),
        ]
    };
    // Coefficients are stored by column of frequency: `column(u)[v]`.
    let column = |u: usize| -> [f32; 4] {
        [
            coefficients[u * 4],
            coefficients[u * 4 + 1],
            coefficients[u * 4 + 2],
            coefficients[u * 4 + 3],
        ]
    };
    // Across each row of frequencies: `across[i][v]`, pixel column i.
    let across = butterfly([column(0), column(1), column(2), column(3)]);
    // Transposed to `by_row[v][i]`, then down the columns: pixel rows.
    let mut by_row = [[0f32; 4]; 4];
    for (v, row) in by_row.iter_mut().enumerate() {
        for (i, value) in row.iter_mut().enumerate() {
            *value = across[i][v];
        }
    }
    let down = butterfly(by_row);
    // Plain loops: `array::map` is not always inlined, and a call per block costs.
    let mut pixels = [[0u8; 4]; 4];
    for (line, row) in pixels.iter_mut().zip(&down) {
        for (pixel, &value) in line.iter_mut().zip(row) {
            *pixel = to_pixel(value + 128.0);
        }
    }
    pixels
}

/// A level-shifted sample as a pixel, clamped and rounded to nearest.
///
/// Adding 2^23 leaves the rounded integer in the low bits of the float's
/// mantissa, which a bit cast reads: unlike `as u8`, this needs no range or
/// NaN checks, so four samples convert in a few vector instructions.
/// `max` and `min` rather than `clamp`: they turn NaN into a bound, where
/// `clamp` keeps it, and the compiler can then drop the checks.
#[allow(clippy::manual_clamp)]
#[inline(always)]
pub(super) fn to_pixel(sample: f32) -> u8 {
    (sample.max(0.0).min(255.0) + 8_388_608.0).to_bits() as u8
}

/// Writes the pixels of the 8x8 block at `block` (across, down) into a plane reduced by
/// `reduction`: its 4x4 half-size pixels, or their 2x2 averages at quarter size; nothing for a
/// block of the padding past the image. `pixels` is only called for a block that shows.
#[inline(always)]
pub(super) fn place_block(
    out: &mut [u8],
    width: usize,
    height: usize,
    block: (usize, usize),
    reduction: Reduction,
    pixels: impl FnOnce() -> [[u8; 4]; 4],
) {
    let side = 8 / reduction.factor();
    let (x0, y0) = (block.0 * side, block.1 * side);
    if x0 >= width || y0 >= height {
        return;
    }
    let pixels = pixels();
    match reduction {
        Reduction::Half => write_block(out, width, height, x0, y0, &pixels),
        Reduction::Quarter => {
            for dy in 0..2.min(height - y0) {
                for dx in 0..2.min(width - x0) {
                    let sum: u32 = [(0, 0), (0, 1), (1, 0), (1, 1)]
                        .iter()
                        .map(|&(j, i)| u32::from(pixels[2 * dy + j][2 * dx + i]))
                        .sum();
                    out[(y0 + dy) * width + x0 + dx] = ((sum + 2) / 4) as u8;
                }
            }
        }
    }
}

/// Writes a 4x4 block at `(x0, y0)`, clipped to the plane.
#[inline(always)]
fn write_block(
    out: &mut [u8],
    width: usize,
    height: usize,
    x0: usize,
    y0: usize,
    pixels: &[[u8; 4]; 4],
) {
    let columns = (width - x0).min(4);
    for (dy, line) in pixels.iter().enumerate().take(height - y0) {
        let start = (y0 + dy) * width + x0;
        // Whole blocks, nearly all of them, as one fixed-size store.
        let whole = out.get_mut(start..start + 4).filter(|_| columns == 4);
        if let Some(whole) = whole.and_then(|slice| <&mut [u8; 4]>::try_from(slice).ok()) {
            *whole = *line;
        } else {
            out[start..start + columns].copy_from_slice(&line[..columns]);
        }
    }
}
