//! A JPEG decoder for one job: the luma channel of a large photo at
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
//! Only what cameras and image tools write is handled: 8-bit baseline or
//! extended sequential Huffman coding in one interleaved scan, or progressive
//! Huffman coding (`progressive.rs`), one (gray) or three (YCbCr) components
//! with luma at full resolution, restart intervals. Anything else (arithmetic
//! coding, CMYK, RGB, damaged data) returns `None`,
//! and the caller decodes the file with the general decoder, which also gives
//! the error for damaged files.

mod headers;
mod progressive;
mod scan;

use crate::gray::Gray;

/// How much smaller than the image the decoded luma is, in each direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// Half the width and height: each pixel the average of 2x2.
    Half,
    /// A quarter of the width and height (each pixel the average of 4x4), for photos too
    /// large for half size within the pixel limit.
    Quarter,
}

impl Reduction {
    /// The image's pixels per decoded pixel, in each direction.
    pub fn factor(self) -> usize {
        match self {
            Reduction::Half => 2,
            Reduction::Quarter => 4,
        }
    }
}

/// A JPEG's luma at reduced size, with the full size and the EXIF block the file carries.
pub struct ReducedLuma {
    /// `ceil(width / f)` by `ceil(height / f)` pixels for the reduction's factor `f`, before
    /// EXIF orientation.
    pub gray: Gray,
    /// The width of the full-size image, before EXIF orientation.
    pub width: u32,
    /// The height of the full-size image, before EXIF orientation.
    pub height: u32,
    /// The TIFF structure of the APP1 `Exif` segment, if any.
    pub exif: Option<Vec<u8>>,
    pub reduction: Reduction,
}

/// Decodes the luma channel of a JPEG at half size; `None` for a file this decoder does not
/// handle, that is damaged, or whose full width and height `wanted` refuses (it is asked
/// before any pixel is decoded).
pub fn decode_half_luma(
    bytes: &[u8],
    wanted: impl FnOnce(u32, u32) -> bool,
) -> Option<ReducedLuma> {
    decode_reduced_luma(bytes, |width, height| wanted(width, height).then_some(Reduction::Half))
}

/// Decodes the luma channel of a JPEG at the reduction `choose` picks from the full width and
/// height (asked before any pixel is decoded; `None` refuses the file); `None` also for a file
/// this decoder does not handle or that is damaged.
pub fn decode_reduced_luma(
    bytes: &[u8],
    choose: impl FnOnce(u32, u32) -> Option<Reduction>,
) -> Option<ReducedLuma> {
    let headers = headers::parse(bytes)?;
    let (width, height) = (u32::from(headers.frame.width), u32::from(headers.frame.height));
    let reduction = choose(width, height)?;
    let exif = headers.exif.map(<[u8]>::to_vec);
    let gray = if headers.frame.progressive {
        progressive::decode(headers, reduction)?
    } else {
        scan::decode(&headers, reduction)?
    };
    Some(ReducedLuma { gray, width, height, exif, reduction })
}

#[cfg(test)]
mod tests;
