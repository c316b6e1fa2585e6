//! Who is calling: the owner of the scans a call creates and may see.

/// The authenticated caller. Scans and request states are bound to it.
///
/// The transports find it in the request (the composition puts it into the HTTP
/// request's extensions once the caller is authenticated); without authentication
/// (loopback only, or stdio) every caller is the local user.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Principal(pub String);

impl Principal {
    /// The caller when the server runs without authentication.
    pub fn local() -> Self {
        Principal("local".to_owned())
    }
}
