//! The composition: what ties the layers together without any of them knowing the others.
//!
//! The HTTP front (`mrtd-server`) authenticates callers and guards operations it knows
//! only as rules; the MCP handler and the REST API find the caller as a
//! [`mrtd_service::Principal`]. Here the tools' and routes' declared needs become the
//! guard's rules, the front's principal becomes the service's, and tool-call spans join
//! the HTTP request's span and the caller's trace.

use std::{sync::Arc, time::Duration};

use axum::{Router, extract::Request, middleware::Next};
use mrtd_mcp::{Access, ToolCall, ToolSpans};
use mrtd_server::{
    HostOriginPolicy,
    auth::{self, AccessRules, RestRule, SCOPE_READ, SCOPE_WRITE, ToolRule},
    observe::{self, RequestSpan},
};

/// `image_url` for the service, fetched through the SSRF guard of `mrtd-fetch`.
pub(crate) struct UrlImages(pub(crate) mrtd_fetch::Fetcher);

#[async_trait::async_trait]
impl mrtd_service::ImageFetch for UrlImages {
    async fn fetch(&self, url: &str) -> Result<Vec<u8>, String> {
        self.0.get(url).await.map(|fetched| fetched.body).map_err(|error| error.to_string())
    }
}

/// The photo a recognition names by `image_url`, fetched by the guard before the request
/// takes a recognition slot and handed to the tool or route as a
/// [`mrtd_service::FetchedImage`].
pub(crate) struct PrefetchImages {
    pub(crate) fetcher: Arc<dyn mrtd_service::ImageFetch>,
    /// The fetch's byte limit.
    pub(crate) max_bytes: usize,
}

impl auth::Prefetch for PrefetchImages {
    fn prefetch<'a>(
        &'a self,
        url: &'a str,
        extensions: &'a mut http::Extensions,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = usize> + Send + 'a>> {
        Box::pin(async move {
            let outcome = self.fetcher.fetch(url).await;
            let held = outcome.as_ref().map_or(0, Vec::len);
            extensions.insert(mrtd_service::FetchedImage::new(url, outcome));
            held
        })
    }

    fn max_bytes(&self) -> usize {
        self.max_bytes
    }
}

/// Admits a recognition at the HTTP front through the service's one recognition gate: the
/// request waits for its slot holding only its body, and its handler reads in the
/// [`mrtd_service::Turn`] that holds the slot.
pub(crate) struct AdmitReads(pub(crate) mrtd_service::AppState);

impl auth::Admit for AdmitReads {
    fn admit<'a>(
        &'a self,
        caller: &'a str,
        extensions: &'a mut http::Extensions,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), Duration>> + Send + 'a>>
    {
        Box::pin(async move {
            match self.0.admit(caller).await {
                Ok(turn) => {
                    extensions.insert(turn);
                    Ok(())
                }
                Err(mrtd_service::ServiceError::Busy(seconds)) => Err(Duration::from_secs(seconds)),
                Err(_) => Err(Duration::from_secs(1)),
            }
        })
    }
}

/// The scope an access needs always, and the one it needs only with a `scan_id`.
fn scopes(access: Access) -> (Option<&'static str>, Option<(&'static str, &'static str)>) {
    match access {
        Access::Open => (None, None),
        Access::ReadScans => (Some(SCOPE_READ), None),
        Access::ReadScansById => (None, Some(("scan_id", SCOPE_READ))),
        Access::WriteScans => (Some(SCOPE_WRITE), None),
    }
}

/// The guard's rules: what each MCP tool, MCP resource and REST operation declares.
pub(crate) fn access_rules() -> AccessRules {
    let tools = mrtd_mcp::tool_access()
        .into_iter()
        .map(|tool| {
            let (scope, scope_with_argument) = scopes(tool.access);
            ToolRule {
                name: tool.name.to_owned(),
                scope,
                scope_with_argument,
                recognition: tool.recognition,
            }
        })
        .collect();
    let resources = mrtd_mcp::resource_access()
        .into_iter()
        .filter_map(|(prefix, access)| scopes(access).0.map(|scope| (prefix.to_owned(), scope)))
        .collect();
    let rest = mrtd_web::rest_access()
        .into_iter()
        .map(|operation| RestRule {
            method: operation.method,
            path: operation.path.to_owned(),
            scope: scopes(operation.access).0,
            recognition: operation.recognition,
        })
        .collect();
    AccessRules { tools, resources, rest, fetched_argument: Some("image_url") }
}

/// Gives every request that passed the guard its caller as the service's principal, the
/// turn its recognitions wait in (the guard's [`auth::Caller`]), and a
/// [`mrtd_service::ResponseHold`] that lives as long as its response body: the share of
/// the memory budget an answer took is given back once the answer is written (or the
/// connection closed). Apply it to the router before the guard wraps it, so it runs after
/// authentication.
pub(crate) fn identify(router: Router) -> Router {
    router.layer(axum::middleware::from_fn(|mut request: Request, next: Next| async move {
        if let Some(principal) = request.extensions().get::<auth::Principal>() {
            let principal = mrtd_service::Principal(principal.0.clone());
            request.extensions_mut().insert(principal);
        }
        // A recognition admitted at the front has its turn, holding its slot, already.
        if let Some(auth::Caller(caller)) = request.extensions().get::<auth::Caller>()
            && request.extensions().get::<mrtd_service::Turn>().is_none()
        {
            let turn = mrtd_service::Turn::new(caller.clone());
            request.extensions_mut().insert(turn);
        }
        let hold = mrtd_service::ResponseHold::default();
        request.extensions_mut().insert(hold.clone());
        let mut response = next.run(request).await;
        if let Some(retry_after) = hold.refused() {
            refused_for_memory(&mut response, retry_after);
        }
        mrtd_server::http::keep_with_body(response, hold)
    }))
}

/// A request a memory budget had no room for (its JSON-RPC error already in the body) is
/// answered as the HTTP front answers its other limits, `503` with `Retry-After`, so that
/// clients and proxies see an overload rather than a success; and its connection is closed,
/// so that a client that never reads holds nothing once refused, not even its socket until
/// the idle timeout.
fn refused_for_memory(response: &mut axum::response::Response, retry_after: Duration) {
    use http::{HeaderValue, StatusCode, header};
    *response.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
    let headers = response.headers_mut();
    headers.insert(header::RETRY_AFTER, HeaderValue::from(retry_after.as_secs().max(1)));
    headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
}

/// CORS for the REST API and the other web routes: a page on an origin the policy allows
/// (`--allowed-origin`, or the server's own) may call them and read the answers; its
/// preflights are answered here (the guard has already refused other origins'). The MCP
/// endpoint answers its own.
pub(crate) fn cors(router: Router, policy: Arc<HostOriginPolicy>) -> Router {
    use http::{HeaderName, Method, header};
    let allowed =
        tower_http::cors::AllowOrigin::predicate(move |_, parts: &http::request::Parts| {
            policy.check(&parts.uri, &parts.headers).is_ok()
        });
    router.layer(
        tower_http::cors::CorsLayer::new()
            .allow_origin(allowed)
            .allow_methods([Method::GET, Method::POST, Method::DELETE, Method::OPTIONS])
            .allow_headers([
                header::CONTENT_TYPE,
                header::AUTHORIZATION,
                HeaderName::from_static("x-api-key"),
            ])
            .expose_headers([header::LOCATION, header::RETRY_AFTER, header::WWW_AUTHENTICATE])
            .max_age(std::time::Duration::from_secs(600)),
    )
}

/// Tool-call spans: children of the HTTP request's span, carrying the caller's trace.
pub(crate) fn tool_spans() -> ToolSpans {
    Arc::new(|call: ToolCall<'_>| {
        let request = call.http.and_then(|parts| parts.extensions.get::<RequestSpan>());
        observe::tool_call_span(call.tool, call.traceparent, call.tracestate, request)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_and_rest_operation_reaches_the_guard() {
        let rules = access_rules();
        let names: Vec<&str> = rules.tools.iter().map(|rule| rule.name.as_str()).collect();
        let catalog: Vec<String> =
            mrtd_mcp::tool_catalog().into_iter().map(|tool| tool.name.into_owned()).collect();
        assert_eq!(names, catalog);
        let scan = rules.tools.iter().find(|rule| rule.name == "scan_document").unwrap();
        assert_eq!((scan.scope, scan.recognition), (Some(SCOPE_WRITE), true));
        let check = rules.tools.iter().find(|rule| rule.name == "check_document").unwrap();
        assert_eq!((check.scope, check.scope_with_argument), (None, Some(("scan_id", SCOPE_READ))));
        assert_eq!(
            rules.resources,
            [("mrtd://scans".to_owned(), SCOPE_READ), ("mrtd://images".to_owned(), SCOPE_READ)]
        );
        let chip = rules.tools.iter().find(|rule| rule.name == "verify_chip").unwrap();
        assert_eq!((chip.scope, chip.scope_with_argument), (None, Some(("scan_id", SCOPE_READ))));
        assert!(rules.rest.iter().any(|rule| rule.path == "/v1/scans" && rule.recognition));
    }
}
