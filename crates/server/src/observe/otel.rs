//! OpenTelemetry export (cargo feature `otel`): spans go to an OTLP/HTTP collector, and a
//! tool call that arrives with a W3C `traceparent` in `_meta` continues the caller's trace.
//!
//! The binary adds [`OtelExport::layer`] to its tracing subscriber next to the log layer:
//!
//! ```no_run
//! # fn example() -> Result<(), mrtd_server::observe::ObserveError> {
//! use tracing_subscriber::layer::SubscriberExt as _;
//! let export = mrtd_server::observe::otel::OtelExport::new(
//!     "http://127.0.0.1:4318/v1/traces",
//!     "mrtd",
//! )?;
//! let subscriber = tracing_subscriber::registry().with(export.layer());
//! tracing::subscriber::set_global_default(subscriber).expect("one subscriber");
//! // ... serve; dropping `export` flushes the spans still buffered.
//! # Ok(()) }
//! ```

use std::str::FromStr;

use opentelemetry::{
    Context,
    trace::{
        SpanContext, SpanId, TraceContextExt as _, TraceFlags, TraceId, TraceState,
        TracerProvider as _,
    },
};
use opentelemetry_otlp::{SpanExporter, WithExportConfig as _};
use opentelemetry_sdk::{
    Resource,
    trace::{SdkTracerProvider, Tracer},
};
use tracing_opentelemetry::{OpenTelemetryLayer, OpenTelemetrySpanExt as _};
use tracing_subscriber::registry::LookupSpan;

use super::{ObserveError, TraceParent};

/// Exports spans over OTLP/HTTP (protobuf) in batches until it is dropped.
pub struct OtelExport {
    provider: SdkTracerProvider,
}

impl OtelExport {
    /// An exporter that posts to `endpoint`, the collector's full traces URL
    /// (`http://HOST:4318/v1/traces`), naming this process `service_name`.
    pub fn new(endpoint: &str, service_name: &str) -> Result<OtelExport, ObserveError> {
        let exporter = SpanExporter::builder()
            .with_http()
            .with_endpoint(endpoint)
            .build()
            .map_err(|error| ObserveError::Otel(error.to_string()))?;
        let resource = Resource::builder().with_service_name(service_name.to_owned()).build();
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(resource)
            .build();
        Ok(OtelExport { provider })
    }

    /// The tracing layer that turns spans into OpenTelemetry spans for this exporter.
    pub fn layer<S>(&self) -> OpenTelemetryLayer<S, Tracer>
    where
        S: tracing::Subscriber + for<'span> LookupSpan<'span>,
    {
        tracing_opentelemetry::layer().with_tracer(self.provider.tracer("mrtd"))
    }

    /// Sends what is buffered now.
    pub fn flush(&self) -> Result<(), ObserveError> {
        self.provider.force_flush().map_err(|error| ObserveError::Otel(error.to_string()))
    }
}

impl Drop for OtelExport {
    fn drop(&mut self) {
        if let Err(error) = self.provider.shutdown() {
            tracing::warn!(%error, "the OpenTelemetry exporter did not shut down cleanly");
        }
    }
}

/// Makes `span` a child of the caller's span named by `parent` (a remote parent).
pub(super) fn continue_trace(span: &tracing::Span, parent: &TraceParent, tracestate: Option<&str>) {
    let state = tracestate.and_then(|text| TraceState::from_str(text).ok()).unwrap_or_default();
    let remote = SpanContext::new(
        TraceId::from_bytes(parent.trace_id),
        SpanId::from_bytes(parent.parent_id),
        TraceFlags::new(parent.flags),
        true,
        state,
    );
    // Without an OpenTelemetry layer in the subscriber there is nothing to attach to.
    let _ = span.set_parent(Context::new().with_remote_span_context(remote));
}
