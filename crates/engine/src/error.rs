//! The one error type of the engine: the input cannot be used as an image at all.

/// Why an input could not be turned into an image to read.
///
/// A photo that decodes but holds no readable MRZ is not an error; it is an
/// [`ImageReading`](crate::ImageReading) whose status and diagnostics say why.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImageError {
    /// The bytes are not an image in a supported format (JPEG, PNG, WebP, TIFF, BMP).
    #[error(
        "unsupported or unrecognised image format (expected JPEG, PNG, WebP, TIFF, BMP, HEIC or a scanned PDF)"
    )]
    UnsupportedFormat,
    /// The format was recognised but the data is damaged or truncated.
    #[error("the image could not be decoded: {0}")]
    Decode(String),
    /// The image declares more pixels than the configured limit.
    #[error(
        "the image has {pixels} pixels ({width}x{height}), more than the limit of {limit}: \
         send a smaller copy (a JPEG is read up to 6 times the limit, and 12 megapixels are \
         plenty for an MRZ)"
    )]
    TooManyPixels {
        /// Declared width.
        width: u32,
        /// Declared height.
        height: u32,
        /// Width times height.
        pixels: u64,
        /// The configured limit.
        limit: u64,
    },
    /// The encoded input is larger than the configured byte limit.
    #[error("the file is {bytes} bytes, more than the limit of {limit} bytes")]
    TooLarge {
        /// Size of the input.
        bytes: usize,
        /// The configured limit.
        limit: usize,
    },
    /// Decoding would need more memory than allowed (a decompression bomb).
    #[error("decoding the image would need more memory than the limit of {limit} bytes")]
    MemoryLimit {
        /// The memory limit given to the decoder.
        limit: u64,
    },
}
