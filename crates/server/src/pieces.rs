//! Response bodies handed to hyper in pieces, and bodies that keep something alive.
//!
//! hyper takes a body's frame whole into its write buffer and drops the body once the last
//! frame is taken, so a large answer in one frame would let go of its body, and of what the
//! body keeps alive (a share of a memory budget), while the bytes still wait for a client
//! that may never read them. Cut into pieces, hyper asks for the next one only as the
//! client takes the previous: the body, and what it keeps, lives until the client has taken
//! nearly all of it, or until the connection is closed.

use std::{
    pin::Pin,
    task::{Context, Poll},
};

use axum::body::Body;
use bytes::Bytes;
use hyper::body::{Frame, SizeHint};

/// The largest piece handed to hyper at once.
const PIECE: usize = 256 * 1024;

/// `inner`, its data frames cut into pieces of at most [`PIECE`] bytes (without copying).
pub(crate) struct InPieces {
    inner: Body,
    /// The rest of a frame not yet handed on.
    pending: Bytes,
}

impl InPieces {
    pub(crate) fn wrap(inner: Body) -> Body {
        Body::new(InPieces { inner, pending: Bytes::new() })
    }

    fn next_piece(&mut self, mut data: Bytes) -> Frame<Bytes> {
        if data.len() > PIECE {
            self.pending = data.split_off(PIECE);
        }
        Frame::data(data)
    }
}

impl hyper::body::Body for InPieces {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        if !this.pending.is_empty() {
            let rest = std::mem::take(&mut this.pending);
            return Poll::Ready(Some(Ok(this.next_piece(rest))));
        }
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                Ok(data) => Poll::Ready(Some(Ok(this.next_piece(data)))),
                Err(other) => Poll::Ready(Some(Ok(other))),
            },
            other => other,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.pending.is_empty() && self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        let inner = self.inner.size_hint();
        let pending = self.pending.len() as u64;
        let mut hint = SizeHint::new();
        hint.set_lower(inner.lower().saturating_add(pending));
        if let Some(upper) = inner.upper() {
            hint.set_upper(upper.saturating_add(pending));
        }
        hint
    }
}

/// `response` with `keep` kept alive as long as its body: until the client has taken the
/// response (its body handed to hyper in pieces) or the connection is closed. The body's
/// size is kept, so a response with a length still says it.
pub fn keep_with_body<K: Send + Sync + Unpin + 'static>(
    response: axum::response::Response,
    keep: K,
) -> axum::response::Response {
    response.map(|inner| Body::new(Keeping { inner, _keep: keep }))
}

/// A body and what it keeps alive.
struct Keeping<K> {
    inner: Body,
    _keep: K,
}

impl<K: Send + Sync + Unpin + 'static> hyper::body::Body for Keeping<K> {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Pin::new(&mut self.get_mut().inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use http_body_util::BodyExt as _;
    use hyper::body::Body as _;

    use super::*;

    #[tokio::test]
    async fn a_large_frame_is_handed_on_in_pieces_and_the_body_kept_until_the_last() {
        let kept = std::sync::Arc::new(());
        let watch = std::sync::Arc::downgrade(&kept);
        let response = axum::response::Response::new(Body::from(vec![7u8; 3 * PIECE + 5]));
        let response = keep_with_body(response, kept);
        let mut body = InPieces::wrap(response.into_body());
        assert_eq!(body.size_hint().exact(), Some(3 * PIECE as u64 + 5));
        let mut sizes = Vec::new();
        while let Some(frame) = body.frame().await {
            sizes.push(frame.unwrap().into_data().unwrap().len());
            // What the body keeps alive lives while pieces remain.
            if sizes.len() < 4 {
                assert!(watch.upgrade().is_some());
            }
        }
        assert_eq!(sizes, [PIECE, PIECE, PIECE, 5]);
        drop(body);
        assert!(watch.upgrade().is_none());
    }
}
