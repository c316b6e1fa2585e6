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
    /// What the answer says besides the checks (`details`), fixed at start.
    details: Map<String, Value>,
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

    /// Adds `value` to every answer under `details.name`: something the operator should see
    /// that does not make the server unready (a trust file that could not be loaded). The
    /// path is public: give nothing secret.
    pub fn detail(mut self, name: &str, value: Value) -> Self {
        self.details.insert(name.to_owned(), value);
        self
    }

    /// Runs every check, at once, each bounded by [`CHECK_TIMEOUT`]; a failure is logged
    /// and counted here, once per run.
    async fn outcomes(&self) -> Outcomes {
        futures::future::join_all(self.checks.iter().map(|(name, check)| {
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
                if outcome.is_err() {
                    metrics::counter!(super::READINESS_FAILURES, "check" => *name).increment(1);
                }
                (*name, outcome)
            }
        }))
        .await
    }
}

/// Each check's name and what it found.
type Outcomes = Vec<(&'static str, Result<(), &'static str>)>;

/// How long `/readyz` answers from the last run of its checks. Probes come from every
/// load balancer and orchestrator, and anyone may send them (the path is public), so the
/// store is asked at most about once a second however often they come.
pub const CHECK_CACHE: Duration = Duration::from_secs(1);

/// The answer to `/readyz` for `outcomes`, with the fixed `details` when there are any.
fn render(outcomes: &Outcomes, details: &Map<String, Value>) -> Response {
    let mut checks = Map::new();
    let mut reasons = Vec::new();
    for (name, outcome) in outcomes {
        match outcome {
            Ok(()) => {
                checks.insert((*name).to_owned(), json!("ok"));
            }
            Err(what) => {
                checks.insert((*name).to_owned(), json!(what));
                reasons.push(format!("{name} check {what}"));
            }
        }
    }
    let (status, mut body) = if reasons.is_empty() {
        (StatusCode::OK, json!({ "status": "ready", "checks": checks }))
    } else {
        let body = json!({
            "status": "not ready",
            "reason": reasons.join("; "),
            "checks": Value::Object(checks),
        });
        (StatusCode::SERVICE_UNAVAILABLE, body)
    };
    if !details.is_empty() {
        body["details"] = Value::Object(details.clone());
    }
    json_response(status, &body)
}

/// The readiness checks with their last outcomes, reused for [`CHECK_CACHE`].
struct Probe {
    readiness: Readiness,
    /// When the checks last finished, and what they found. Held while the checks run, so
    /// probes that arrive meanwhile wait for that run instead of starting their own.
    last: tokio::sync::Mutex<Option<(tokio::time::Instant, Outcomes)>>,
}

impl Probe {
    fn new(readiness: Readiness) -> Self {
        Probe { readiness, last: tokio::sync::Mutex::new(None) }
    }

    async fn answer(&self) -> Response {
        let mut last = self.last.lock().await;
        if let Some((finished, outcomes)) = &*last
            && finished.elapsed() < CHECK_CACHE
        {
            return render(outcomes, &self.readiness.details);
        }
        let outcomes = self.readiness.outcomes().await;
        let response = render(&outcomes, &self.readiness.details);
        *last = Some((tokio::time::Instant::now(), outcomes));
        response
    }
}

/// The probe routes.
pub(super) fn routes(readiness: Readiness) -> Router {
    let alive = || async { json_response(StatusCode::OK, &json!({ "status": "ok" })) };
    let probe = Arc::new(Probe::new(readiness));
    Router::new().route("/healthz", get(alive)).route("/livez", get(alive)).route(
        "/readyz",
        get(move || {
            let probe = probe.clone();
            async move { probe.answer().await }
        }),
    )
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// A readiness whose one check counts its runs and fails while `failing` is set.
    fn counted(runs: Arc<AtomicUsize>, failing: Arc<std::sync::atomic::AtomicBool>) -> Readiness {
        Readiness::new().check("store", move || {
            runs.fetch_add(1, Ordering::SeqCst);
            let fail = failing.load(Ordering::SeqCst);
            async move { if fail { Err("down") } else { Ok(()) } }
        })
    }

    #[tokio::test(start_paused = true)]
    async fn the_store_is_asked_at_most_once_a_second() {
        let runs = Arc::new(AtomicUsize::new(0));
        let failing = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let probe = Probe::new(counted(runs.clone(), failing.clone()));
        for _ in 0..50 {
            assert_eq!(probe.answer().await.status(), StatusCode::OK);
        }
        assert_eq!(runs.load(Ordering::SeqCst), 1, "fifty probes, one check");
        // Probes that arrive together share one run too.
        tokio::time::advance(CHECK_CACHE).await;
        let together = futures::future::join_all((0..10).map(|_| probe.answer())).await;
        assert!(together.iter().all(|r| r.status() == StatusCode::OK));
        assert_eq!(runs.load(Ordering::SeqCst), 2);
        // A failure is seen once the cached verdict is a second old, and is reused in turn.
        failing.store(true, Ordering::SeqCst);
        tokio::time::advance(Duration::from_millis(500)).await;
        assert_eq!(probe.answer().await.status(), StatusCode::OK, "still the cached verdict");
        tokio::time::advance(Duration::from_millis(500)).await;
        assert_eq!(probe.answer().await.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(probe.answer().await.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(runs.load(Ordering::SeqCst), 3);
        failing.store(false, Ordering::SeqCst);
        tokio::time::advance(CHECK_CACHE).await;
        assert_eq!(probe.answer().await.status(), StatusCode::OK);
        assert_eq!(runs.load(Ordering::SeqCst), 4);
    }

    #[tokio::test]
    async fn details_are_in_every_answer_and_do_not_make_the_server_unready() {
        let detail =
            json!({ "unusable_files": [{ "file": "notes.txt", "reason": "not a certificate" }] });
        let failing = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let readiness = counted(Arc::new(AtomicUsize::new(0)), failing.clone())
            .detail("trust_store", detail.clone());
        let probe = Probe::new(readiness);
        let body = |response: Response| async move {
            let bytes = axum::body::to_bytes(response.into_body(), 1 << 16).await.expect("body");
            serde_json::from_slice::<Value>(&bytes).expect("json")
        };
        let ready = probe.answer().await;
        assert_eq!(ready.status(), StatusCode::OK);
        assert_eq!(body(ready).await["details"]["trust_store"], detail);
        let plain = Probe::new(counted(Arc::new(AtomicUsize::new(0)), failing));
        assert!(body(plain.answer().await).await.get("details").is_none());
    }
}
