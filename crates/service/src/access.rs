//! What an operation touches, so that the HTTP front's guard can ask for the right scope
//! without knowing the operations by name.

/// What calling an operation needs from the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// A valid caller; it touches no kept scan (parsing typed text, reading docs).
    Open,
    /// The right to read kept scans.
    ReadScans,
    /// The right to read kept scans, only when the arguments name one (`scan_id`).
    ReadScansById,
    /// The right to create or delete kept scans.
    WriteScans,
}
