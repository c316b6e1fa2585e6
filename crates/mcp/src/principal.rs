//! Who is calling, as the transport tells it.

use mrtd_service::{Principal, Turn};
use rmcp::{RoleServer, service::RequestContext};

/// The principal of a request: the one the composition put into the HTTP request's
/// extensions once the caller was authenticated, else one put into the request
/// context (an embedding over another transport), else the local user (stdio, or
/// HTTP without authentication).
pub(crate) fn of(context: &RequestContext<RoleServer>) -> Principal {
    named(context).unwrap_or_else(Principal::local)
}

/// The turn the request's recognitions wait in: the one the composition named (the HTTP
/// front's caller: without authentication, the client's address), else the principal's.
pub(crate) fn turn_of(context: &RequestContext<RoleServer>) -> Turn {
    named(context).unwrap_or_else(|| Turn::of(&of(context)))
}

/// What the transport named `T`: in the HTTP request's extensions, else in the request
/// context's.
fn named<T: Clone + Send + Sync + 'static>(context: &RequestContext<RoleServer>) -> Option<T> {
    context
        .extensions
        .get::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<T>())
        .or_else(|| context.extensions.get::<T>())
        .cloned()
}
