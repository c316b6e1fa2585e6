//! The metrics of the document operations, recorded through the [`metrics`] facade: a
//! no-op until the binary installs a recorder, so tests and the stdio server pay nothing.
//!
//! | name | kind | labels |
//! |---|---|---|
//! | `mrtd_recognition_duration_seconds` | histogram | `outcome` (`read`, `partial`, `no_mrz`, `unusable`) |
//! | `mrtd_recognition_queue_depth` | gauge | (recognitions waiting for a slot plus running) |
//! | `mrtd_recognitions_running` | gauge | |
//! | `mrtd_store_errors_total` | counter | `operation` |
//! | `mrtd_decoded_pixels_total` | counter | (pixels the decoders produced: the work photos cost) |

use std::time::Instant;

/// Histogram of the time the vision engine takes for one image, in seconds.
pub const RECOGNITION_DURATION: &str = "mrtd_recognition_duration_seconds";
/// Gauge of recognitions waiting for a slot or running.
pub const RECOGNITION_QUEUE_DEPTH: &str = "mrtd_recognition_queue_depth";
/// Gauge of recognitions running.
pub const RECOGNITIONS_RUNNING: &str = "mrtd_recognitions_running";
/// Counter of failed store operations (a missing scan is not a failure).
pub const STORE_ERRORS: &str = "mrtd_store_errors_total";
/// Counter of the pixels the engine's decoders produced (a PDF's image drawn many times is
/// decoded, and counted, once).
pub const DECODED_PIXELS: &str = "mrtd_decoded_pixels_total";

/// Buckets of the recognition histogram, in seconds: a small scan to a slow 40 MP photo.
pub const RECOGNITION_BUCKETS: &[f64] =
    &[0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.5, 5.0, 10.0, 30.0];

/// The histograms whose buckets are not the recorder's defaults.
pub const HISTOGRAMS: &[(&str, &[f64])] = &[(RECOGNITION_DURATION, RECOGNITION_BUCKETS)];

/// Describes these metrics to the installed recorder (call once it is installed).
pub fn describe() {
    metrics::describe_histogram!(
        RECOGNITION_DURATION,
        metrics::Unit::Seconds,
        "Time the vision engine took for one image"
    );
    metrics::describe_gauge!(RECOGNITION_QUEUE_DEPTH, "Recognitions waiting for a slot or running");
    metrics::describe_gauge!(RECOGNITIONS_RUNNING, "Recognitions running");
    metrics::describe_counter!(STORE_ERRORS, "Failed scan store operations");
    metrics::describe_counter!(DECODED_PIXELS, "Pixels the image decoders produced");
}

/// Brings the decoded-pixel counter up to the engine's count (after a recognition; the
/// engine counts for the whole process, and a counter never goes back).
pub fn record_decoded_pixels() {
    metrics::counter!(DECODED_PIXELS).absolute(mrtd_engine::decoded_pixels_total());
}

/// One recognition's passage through the queue: counted as queued from creation, as running
/// from [`start`](Self::start), and out of both when dropped (even when the caller gives up).
#[derive(Debug)]
#[must_use = "the recognition counts as queued until the ticket is dropped"]
pub struct RecognitionTicket {
    started: Option<Instant>,
}

impl RecognitionTicket {
    /// A recognition joins the queue.
    pub fn queued() -> Self {
        metrics::gauge!(RECOGNITION_QUEUE_DEPTH).increment(1.0);
        RecognitionTicket { started: None }
    }

    /// The recognition got its slot and starts running.
    pub fn start(&mut self) {
        if self.started.is_none() {
            metrics::gauge!(RECOGNITIONS_RUNNING).increment(1.0);
            self.started = Some(Instant::now());
        }
    }

    /// The recognition ended with `outcome` (the reading's status, or `unusable`); records
    /// how long it ran.
    pub fn finish(self, outcome: &'static str) {
        if let Some(started) = self.started {
            metrics::histogram!(RECOGNITION_DURATION, "outcome" => outcome)
                .record(started.elapsed().as_secs_f64());
        }
    }
}

impl Drop for RecognitionTicket {
    fn drop(&mut self) {
        metrics::gauge!(RECOGNITION_QUEUE_DEPTH).decrement(1.0);
        if self.started.is_some() {
            metrics::gauge!(RECOGNITIONS_RUNNING).decrement(1.0);
        }
    }
}

/// Counts a failed store operation (`insert`, `get`, ...).
pub fn record_store_error(operation: &'static str) {
    metrics::counter!(STORE_ERRORS, "operation" => operation).increment(1);
}
