//! Reading a request body within its limits: size, time, and the server's memory budget.
//!
//! A body is read whole before the request takes any scarce resource (a recognition slot),
//! so a client that stalls its upload holds only its own connection and the part of the
//! memory budget its declared length reserved.

use std::{
    pin::Pin,
    sync::Arc,
    task::Poll,
    time::{Duration, Instant},
};

use axum::body::Body;
use bytes::{Bytes, BytesMut};
use http::{HeaderMap, header};
use http_body_util::BodyExt;
use hyper::body::{Body as _, Frame};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The budget is counted in units of this many bytes (a semaphore holds fewer permits
/// than a 64-bit byte count).
const UNIT: usize = 1024;

/// Bodies up to this size are not counted against the budget: the requests that are not
/// uploads (a `tools/list`, a typed MRZ) must not queue behind uploads waiting for room.
/// The connection cap bounds what they hold together.
pub const SMALL_BODY_BYTES: usize = 64 * 1024;

/// Request bodies held in memory at once, across all requests.
#[derive(Debug, Clone)]
pub struct MemoryBudget {
    units: Arc<Semaphore>,
}

/// A share of the [`MemoryBudget`], given back when dropped.
#[derive(Debug)]
pub struct BudgetShare(Option<OwnedSemaphorePermit>);

impl MemoryBudget {
    /// A budget of `bytes` (at least one unit).
    pub fn new(bytes: usize) -> Self {
        MemoryBudget { units: Arc::new(Semaphore::new(bytes.div_ceil(UNIT).max(1))) }
    }

    /// Adds `bytes` to `share`, waiting at most `wait` for the budget to have room.
    async fn take(
        &self,
        share: &mut BudgetShare,
        bytes: usize,
        wait: Duration,
    ) -> Result<(), BodyError> {
        let units = u32::try_from(bytes.div_ceil(UNIT)).map_err(|_| BodyError::Busy)?;
        if units == 0 {
            return Ok(());
        }
        let permit = match self.units.clone().try_acquire_many_owned(units) {
            Ok(permit) => permit,
            Err(_) => tokio::time::timeout(wait, self.units.clone().acquire_many_owned(units))
                .await
                .map_err(|_| BodyError::Busy)?
                .map_err(|_| BodyError::Busy)?,
        };
        match &mut share.0 {
            Some(held) => held.merge(permit),
            None => share.0 = Some(permit),
        }
        Ok(())
    }
}

impl MemoryBudget {
    /// A share of `bytes`, waiting at most `wait` for room.
    pub(crate) async fn reserve(
        &self,
        bytes: usize,
        wait: Duration,
    ) -> Result<BudgetShare, BodyError> {
        let mut share = BudgetShare(None);
        self.take(&mut share, bytes, wait).await?;
        Ok(share)
    }
}

impl BudgetShare {
    /// Gives back all of the share beyond `bytes`.
    pub(crate) fn shrink_to(&mut self, bytes: usize) {
        let keep = bytes.div_ceil(UNIT);
        if let Some(held) = &mut self.0
            && held.num_permits() > keep
        {
            drop(held.split(held.num_permits() - keep));
        }
    }

    /// Adds `other` to this share.
    pub(crate) fn merge(&mut self, other: BudgetShare) {
        match (&mut self.0, other.0) {
            (Some(held), Some(more)) => held.merge(more),
            (held @ None, more) => *held = more,
            (Some(_), None) => {}
        }
    }
}

/// The bounds one body is read within.
#[derive(Debug, Clone)]
pub struct BodyLimits {
    /// Largest body in bytes.
    pub max_bytes: usize,
    /// Longest pause between two pieces of the body.
    pub idle_timeout: Duration,
    /// Time for the whole body.
    pub total_timeout: Duration,
    /// The budget the body's bytes are counted against while the request runs.
    pub budget: MemoryBudget,
    /// How long a body waits for room in the budget (unread: TCP holds the client's upload
    /// back meanwhile) before the request is refused.
    pub budget_wait: Duration,
}

/// Why a body was not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BodyError {
    /// The declared or actual length is over the limit.
    #[error("the request body is over the limit")]
    TooLarge,
    /// The body stalled or took too long.
    #[error("the request body did not arrive in time")]
    TimedOut,
    /// The server holds too many bodies right now.
    #[error("the server holds too many request bodies right now")]
    Busy,
    /// The connection failed while the body was read.
    #[error("the request body could not be read")]
    Unreadable,
}

/// The `Content-Length` a request declares, if it declares a readable one.
pub fn declared_length(headers: &HeaderMap) -> Option<u64> {
    headers.get(header::CONTENT_LENGTH)?.to_str().ok()?.trim().parse().ok()
}

/// The text of a `413`: the guard and the endpoint answer an oversized body alike.
pub fn too_large_message(limit: usize) -> String {
    let limit_mib = limit as f64 / (1024.0 * 1024.0);
    format!("Payload Too Large: the request body exceeds the {limit_mib:.0} MiB limit")
}

/// What the guard already established about a request it let through, put into the
/// request's extensions so that the endpoint behind it does not check it again: `Host` and
/// `Origin` passed the policy, the body was read whole within its limits, and whether that
/// body is well-formed JSON (UTF-8 throughout).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Vetted {
    /// The body is well-formed JSON; `None` when the guard did not look (no body, or not
    /// the MCP endpoint).
    pub well_formed_json: Option<bool>,
}

/// Reads `body` within `limits`: a declared length over the limit is refused before a
/// byte is read, the declared length is reserved from the budget at once, and every
/// piece must arrive within the idle timeout and the whole within the total timeout.
pub async fn read(
    headers: &HeaderMap,
    mut body: Body,
    limits: &BodyLimits,
) -> Result<(Bytes, BudgetShare), BodyError> {
    let mut share = BudgetShare(None);
    let declared = declared_length(headers);
    let deadline = Instant::now() + limits.total_timeout;
    if let Some(declared) = declared {
        if declared > limits.max_bytes as u64 {
            return Err(BodyError::TooLarge);
        }
        let wait = limits.budget_wait.min(limits.total_timeout);
        let counted = if declared as usize <= SMALL_BODY_BYTES { 0 } else { declared as usize };
        if let Err(busy) = limits.budget.take(&mut share, counted, wait).await {
            drain(&mut body, limits, deadline).await;
            return Err(busy);
        }
    }
    let reserved = declared.map_or(0, |d| d as usize);
    // A body that arrives in one piece (most do) is kept as it came, without a copy.
    let mut first: Option<Bytes> = None;
    let mut buffer = BytesMut::new();
    while let Some(frame) = next_frame(&mut body, limits, deadline).await? {
        let Ok(data) = frame.into_data() else { continue };
        let held = first.as_ref().map_or(0, Bytes::len) + buffer.len();
        let total = held + data.len();
        if total > limits.max_bytes {
            return Err(BodyError::TooLarge);
        }
        if total > reserved.max(SMALL_BODY_BYTES) {
            // Only a body without (or beyond) a declared length grows its share here.
            let before = held.max(reserved).max(SMALL_BODY_BYTES);
            let wait = limits.budget_wait.min(deadline.saturating_duration_since(Instant::now()));
            if let Err(busy) = limits.budget.take(&mut share, total - before, wait).await {
                drop((first, buffer));
                drain(&mut body, limits, deadline).await;
                return Err(busy);
            }
        }
        if held == 0 {
            first = Some(data);
        } else {
            if let Some(piece) = first.take() {
                buffer.reserve(reserved.max(total));
                buffer.extend_from_slice(&piece);
            }
            buffer.extend_from_slice(&data);
        }
        if body.is_end_stream() {
            // The declared length has arrived: no need to wait for the end to be signalled.
            break;
        }
    }
    let bytes = match first {
        Some(piece) => piece,
        None => buffer.freeze(),
    };
    Ok((bytes, share))
}

/// The next piece of the body, within the idle timeout and the deadline.
async fn next_frame(
    body: &mut Body,
    limits: &BodyLimits,
    deadline: Instant,
) -> Result<Option<Frame<Bytes>>, BodyError> {
    // A piece already received is taken without arming a timer.
    let polled = std::future::poll_fn(|cx| Poll::Ready(Pin::new(&mut *body).poll_frame(cx))).await;
    let frame = match polled {
        Poll::Ready(frame) => frame,
        Poll::Pending => {
            let wait = limits.idle_timeout.min(deadline.saturating_duration_since(Instant::now()));
            tokio::time::timeout(wait, body.frame()).await.map_err(|_| BodyError::TimedOut)?
        }
    };
    match frame {
        None => Ok(None),
        Some(Err(_)) => Err(BodyError::Unreadable),
        Some(Ok(frame)) => Ok(Some(frame)),
    }
}

/// Reads and discards the rest of a refused body (at most the body limit, within the
/// timeouts), so that the client, still sending, reads the refusal instead of a reset
/// connection. Nothing is kept, so it costs no memory.
async fn drain(body: &mut Body, limits: &BodyLimits, deadline: Instant) {
    let mut discarded = 0usize;
    while discarded <= limits.max_bytes {
        match next_frame(body, limits, deadline).await {
            Ok(Some(frame)) => discarded += frame.data_ref().map_or(0, Bytes::len),
            _ => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(max_bytes: usize, budget: usize) -> BodyLimits {
        BodyLimits {
            max_bytes,
            idle_timeout: Duration::from_millis(200),
            total_timeout: Duration::from_secs(5),
            budget: MemoryBudget::new(budget),
            budget_wait: Duration::from_millis(100),
        }
    }

    fn with_length(length: usize) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::CONTENT_LENGTH, length.into());
        headers
    }

    #[tokio::test]
    async fn a_declared_length_over_the_limit_is_refused_unread() {
        let limits = limits(10, 1 << 20);
        let body = Body::from_stream(futures::stream::pending::<Result<Bytes, std::io::Error>>());
        let refused = read(&with_length(11), body, &limits).await.unwrap_err();
        assert_eq!(refused, BodyError::TooLarge);
    }

    #[tokio::test]
    async fn a_stalled_body_times_out() {
        let limits = limits(1 << 20, 1 << 20);
        let body = Body::from_stream(futures::stream::pending::<Result<Bytes, std::io::Error>>());
        assert_eq!(read(&with_length(5), body, &limits).await.unwrap_err(), BodyError::TimedOut);
    }

    #[tokio::test]
    async fn the_budget_is_shared_and_given_back() {
        const S: usize = SMALL_BODY_BYTES;
        let limits = limits(1 << 24, 3 * S);
        let (first, share) =
            read(&with_length(2 * S), Body::from(vec![1u8; 2 * S]), &limits).await.unwrap();
        assert_eq!(first.len(), 2 * S);
        let busy = read(&with_length(3 * S / 2), Body::from(vec![1u8; 3 * S / 2]), &limits).await;
        assert_eq!(busy.unwrap_err(), BodyError::Busy);
        // A body without a declared length is counted as it arrives.
        let chunked = Body::from_stream(futures::stream::iter(
            (0..5).map(|_| Ok::<_, std::io::Error>(Bytes::from(vec![2u8; S / 2]))),
        ));
        assert_eq!(read(&HeaderMap::new(), chunked, &limits).await.unwrap_err(), BodyError::Busy);
        // Small bodies (requests that are not uploads) pass however full the budget is.
        let (small, _) = read(&with_length(S), Body::from(vec![3u8; S]), &limits).await.unwrap();
        assert_eq!(small.len(), S);
        drop(share);
        let (again, _share) =
            read(&with_length(3 * S / 2), Body::from(vec![1u8; 3 * S / 2]), &limits).await.unwrap();
        assert_eq!(again.len(), 3 * S / 2);
    }

    #[tokio::test]
    async fn a_body_in_pieces_is_read_whole_and_in_order() {
        let limits = limits(1 << 20, 1 << 20);
        let pieces = ["", "{\"jsonrpc\":", "", "\"2.0\"", "}"];
        let (tx, rx) = tokio::sync::mpsc::channel::<Result<Bytes, std::io::Error>>(8);
        let body = Body::from_stream(tokio_stream_of(rx));
        let sender = tokio::spawn(async move {
            for piece in pieces {
                // Each piece after the first arrives late, when the reader already waits.
                tokio::task::yield_now().await;
                tx.send(Ok(Bytes::from_static(piece.as_bytes()))).await.unwrap();
            }
        });
        let (bytes, _) = read(&HeaderMap::new(), body, &limits).await.unwrap();
        sender.await.unwrap();
        assert_eq!(&bytes[..], pieces.concat().as_bytes());
        // One piece, with its length declared, is the body as it came.
        let (one, _) = read(&with_length(4), Body::from("abcd"), &limits).await.unwrap();
        assert_eq!(&one[..], b"abcd");
    }

    /// The pieces a channel receives, as a stream.
    fn tokio_stream_of<T>(
        rx: tokio::sync::mpsc::Receiver<T>,
    ) -> impl futures::Stream<Item = T> + Send + 'static
    where
        T: Send + 'static,
    {
        futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|item| (item, rx)) })
    }

    #[tokio::test]
    async fn a_body_longer_than_the_limit_is_refused() {
        let limits = limits(100, 1 << 20);
        let refused = read(&HeaderMap::new(), Body::from(vec![0u8; 101]), &limits).await;
        assert_eq!(refused.unwrap_err(), BodyError::TooLarge);
    }
}
