//! Errors: input that cannot be read at all. A document that does not verify is not an error;
//! it is a [`crate::ChipReport`] that says so.

use std::path::PathBuf;

/// Why the chip data given cannot be checked.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ChipError {
    /// EF.SOD (or a structure inside it) is not what ICAO 9303-10 describes.
    #[error("{what} is malformed: {reason}")]
    Malformed { what: &'static str, reason: String },
    /// A data group file, counted from 1 in the order given.
    #[error("data group {index}: {reason}")]
    DataGroup { index: usize, reason: String },
    /// More data group files than the LDS has.
    #[error("{given} data groups given; a document has at most {limit}")]
    TooManyDataGroups { given: usize, limit: usize },
}

/// Why a trust file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    #[error("{}: {reason}", path.display())]
    Io { path: PathBuf, reason: String },
    #[error("{}: larger than {limit} bytes", path.display())]
    TooLarge { path: PathBuf, limit: u64 },
    #[error("{}: {reason}", path.display())]
    Unusable { path: PathBuf, reason: String },
}
