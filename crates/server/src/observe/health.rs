//! Health probes: `/healthz` and `/livez` (the process answers), `/readyz` (its
//! dependencies answer too).

use std::{fmt::Display, future::Future, pin::Pin, sync::Arc, time::Duration};

use axum::{Router, response::Response, routing::get};
use http::StatusCode;
use serde_json::{Map, Value, json};

use crate::jsonrpc::json_response;

type CheckFuture = Pin<Box<dyn Future<Output = Result<(), String>> + Send>>;
type CheckFn = Arc<dyn Fn() -> CheckFuture + Send + Sync>;

/// How long one readiness check may take before it counts as failed.
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(2);

/// What `/readyz` checks: a list of named checks that must all pass.
///
/// ```
/// use mrtd_server::observe::Readiness;
/// let readiness = Readiness::new().check("store", || async { Ok::<(), std::io::Error>(()) });
/// # let _ = readiness;
/// ```
#[derive(Clone, Default)]
pub struct Readiness {
    checks: Vec<(&'static str, CheckFn)>,
}

impl std::fmt::Debug for Readiness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.checks.iter().map(|(name, _)| *name).collect();
        f.debug_struct("Readiness").field("checks", &names).finish()
    }
}

impl Readiness {
    /// No checks: always ready.
    pub fn new() -> Self {
        Readiness::default()
    }

    /// Adds a check named `name` (for example `store`, with `Store::ping`). Its error is
    /// logged; the probe's answer names only the check, never the error's text.
    pub fn check<F, Fut, E>(mut self, name: &'static str, check: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), E>> + Send + 'static,
        E: Display,
    {
        let check: CheckFn = Arc::new(move || {
            let future = check();
            Box::pin(async move { future.await.map_err(|error| error.to_string()) })
        });
        self.checks.push((name, check));
        self
    }

    /// Runs every check, at once, each bounded by [`CHECK_TIMEOUT`].
    async fn run(&self) -> Response {
        let outcomes = futures::future::join_all(self.checks.iter().map(|(name, check)| {
            let future = check();
            async move {
                let outcome = match tokio::time::timeout(CHECK_TIMEOUT, future).await {
                    Ok(Ok(())) => Ok(()),
                    Ok(Err(error)) => {
                        tracing::warn!(check = name, %error, "readiness check failed");
                        Err("failed")
                    }
                    Err(_) => {
                        tracing::warn!(check = name, "readiness check timed out");
                        Err("timed out")
                    }
                };
                (*name, outcome)
            }
        }))
        .await;
        let mut checks = Map::new();
        let mut reasons = Vec::new();
        for (name, outcome) in outcomes {
            match outcome {
                Ok(()) => {
                    checks.insert(name.to_owned(), json!("ok"));
                }
                Err(what) => {
                    metrics::counter!(super::READINESS_FAILURES, "check" => name).increment(1);
                    checks.insert(name.to_owned(), json!(what));
                    reasons.push(format!("{name} check {what}"));
                }
            }
        }
        if reasons.is_empty() {
            json_response(StatusCode::OK, &json!({ "status": "ready", "checks": checks }))
        } else {
            let body = json!({
                "status": "not ready",
                "reason": reasons.join("; "),
                "checks": Value::Object(checks),
            });
            json_response(StatusCode::SERVICE_UNAVAILABLE, &body)
        }
    }
}

/// The probe routes.
pub(super) fn routes(readiness: Readiness) -> Router {
    let alive = || async { json_response(StatusCode::OK, &json!({ "status": "ok" })) };
    let readiness = Arc::new(readiness);
    Router::new().route("/healthz", get(alive)).route("/livez", get(alive)).route(
        "/readyz",
        get(move || {
            let readiness = readiness.clone();
            async move { readiness.run().await }
        }),
    )
}
