//! Who is calling: the owner of the scans a call creates and may see.

use rmcp::{RoleServer, service::RequestContext};

/// The authenticated caller. Scans and request states are bound to it.
///
/// The HTTP authentication layer inserts it into the request's extensions; without
/// authentication (loopback only, or stdio) every caller is the local user.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Principal(pub String);

impl Principal {
    /// The caller when the server runs without authentication.
    pub fn local() -> Self {
        Principal("local".to_owned())
    }

    /// The principal of a request: from the HTTP request parts when present.
    pub(crate) fn of(context: &RequestContext<RoleServer>) -> Self {
        if let Some(parts) = context.extensions.get::<http::request::Parts>() {
            // The HTTP front's authentication layer puts its own principal type there.
            if let Some(principal) = parts.extensions.get::<mrtd_server::auth::Principal>() {
                return Principal::from(principal.clone());
            }
            if let Some(principal) = parts.extensions.get::<Principal>() {
                return principal.clone();
            }
        }
        context.extensions.get::<Principal>().cloned().unwrap_or_else(Principal::local)
    }
}

impl From<mrtd_server::auth::Principal> for Principal {
    fn from(principal: mrtd_server::auth::Principal) -> Self {
        Principal(principal.0)
    }
}
