//! A baseline JPEG decoder for one job: the luma channel of a large photo at
//! half its size, straight from the DCT coefficients.
//!
//! Phone photos are 12 MP or more, and an MRZ in such a photo has glyphs tens
//! of pixels high, far more than the reader samples. Decoding every pixel and
//! then averaging them away costs more than the rest of reading: a full-size
//! decode spends about a fifth of its time in the 8x8 inverse DCT and another
//! fifth writing and copying planes. Here each 8x8 block's 4x4 lowest
//! frequencies go through a 4x4 inverse transform, weighted so that each output
//! pixel is the average of the 2x2 pixels it stands for (as `Gray::shrink(2)`
//! would give, less the quantised top half of the spectrum), and the chroma
//! blocks are parsed but never transformed. No crate decodes at reduced scale
//! this way; `jpeg-decoder` scales in the DCT domain but its entropy decoding
//! alone is slower than a full-size luma decode with `zune-jpeg`.
//!
//! Only what phone cameras write is handled: 8-bit baseline or extended
//! sequential Huffman coding, one interleaved scan, one (gray) or three (YCbCr)
//! components with luma at full resolution, restart intervals. Anything else
//! (progressive, arithmetic coding, CMYK, RGB, damaged data) returns `None`,
//! and the caller decodes the file with the general decoder, which also gives
//! the error for damaged files.

mod headers;
mod scan;

use crate::gray::Gray;

/// A JPEG's luma at half size in each direction, with the full size and the
/// EXIF block the file carries.
pub struct HalfLuma {
    /// `ceil(width / 2)` by `ceil(height / 2)` pixels, before EXIF orientation.
    pub gray: Gray,
    /// The width of the full-size image, before EXIF orientation.
    pub width: u32,
    /// The height of the full-size image, before EXIF orientation.
    pub height: u32,
    /// The TIFF structure of the APP1 `Exif` segment, if any.
    pub exif: Option<Vec<u8>>,
}

/// Decodes the luma channel of a baseline JPEG at half size; `None` for a file
/// this decoder does not handle, that is damaged, or whose full width and
/// height `wanted` refuses (it is asked before any pixel is decoded).
pub fn decode_half_luma(bytes: &[u8], wanted: impl FnOnce(u32, u32) -> bool) -> Option<HalfLuma> {
    let headers = headers::parse(bytes)?;
    if !wanted(u32::from(headers.frame.width), u32::from(headers.frame.height)) {
        return None;
    }
    let gray = scan::decode(&headers)?;
    Some(HalfLuma {
        gray,
        width: u32::from(headers.frame.width),
        height: u32::from(headers.frame.height),
        exif: headers.exif.map(<[u8]>::to_vec),
    })
}

#[cfg(test)]
mod tests;
