//! What can go wrong when reading text.

/// An error of the text reader: only its networks failing, never the image's content (an
/// image without text gives no lines).
#[derive(Debug, thiserror::Error)]
pub enum TextError {
    /// An embedded network could not be loaded (its bytes are checked when it is).
    #[error("the {network} network could not be loaded")]
    Load {
        /// Which network: `detection` or `recognition`.
        network: &'static str,
    },
    /// A network failed to run on its input.
    #[error("the {network} network failed on its input")]
    Run {
        /// Which network: `detection` or `recognition`.
        network: &'static str,
    },
}
