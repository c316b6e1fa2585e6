//! RFC 9728 protected resource metadata: how clients find the authorization server.
//!
//! The document is served at `/.well-known/oauth-protected-resource` and at the
//! path-suffixed form for the resource's path (`/.well-known/oauth-protected-resource/mcp`
//! for `https://host/mcp`), and every `401`/`403` names it in `resource_metadata`.

use std::sync::Arc;

use axum::{Json, Router, routing::get};
use serde_json::{Value, json};

use super::{SCOPE_READ, SCOPE_WRITE, TokenVerifier};

/// The well-known path prefix.
pub const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// Splits a canonical resource URI into its origin and its path (empty for none).
fn split(resource: &str) -> (&str, &str) {
    let after_scheme = resource.find("://").map_or(0, |i| i + 3);
    match resource[after_scheme..].find('/') {
        Some(i) => resource.split_at(after_scheme + i),
        None => (resource, ""),
    }
}

/// The absolute URL of the metadata document for `resource`.
pub fn metadata_url(resource: &str) -> String {
    let (origin, path) = split(resource);
    format!("{origin}{WELL_KNOWN}{path}")
}

/// The metadata document.
pub fn document(verifier: &TokenVerifier) -> Value {
    json!({
        "resource": verifier.resource(),
        "authorization_servers": [verifier.issuer()],
        "scopes_supported": [SCOPE_READ, SCOPE_WRITE],
        "bearer_methods_supported": ["header"],
        "resource_name": "mrtd travel document reader",
    })
}

/// The routes that serve the document.
pub fn routes(verifier: &Arc<TokenVerifier>) -> Router {
    let body = Arc::new(document(verifier));
    let (_, path) = split(verifier.resource());
    let serve = move || {
        let body = body.clone();
        async move { Json((*body).clone()) }
    };
    let mut router = Router::new().route(WELL_KNOWN, get(serve.clone()));
    if !path.is_empty() {
        router = router.route(&format!("{WELL_KNOWN}{path}"), get(serve));
    }
    router
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_url_inserts_the_well_known_path() {
        assert_eq!(
            metadata_url("https://mrtd.example.com/mcp"),
            "https://mrtd.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            metadata_url("https://mrtd.example.com:8443"),
            "https://mrtd.example.com:8443/.well-known/oauth-protected-resource"
        );
    }
}
