//! A socket whose writes give up when the peer stops reading.
//!
//! hyper waits for as long as the socket will not take more bytes, so a client that sends
//! a request and never reads the answer would hold its connection, and the response's
//! memory, forever. [`WriteTimeout`] turns a write that has made no progress for the
//! response timeout into an error, on which hyper closes the connection and drops the
//! response.

use std::{
    io,
    pin::Pin,
    task::{Context, Poll},
    time::Duration,
};

use tokio::{
    io::{AsyncRead, AsyncWrite, ReadBuf},
    time::{Instant, Sleep},
};

/// `inner` with a bound on how long a single write may wait for the peer.
#[derive(Debug)]
pub(crate) struct WriteTimeout<S> {
    inner: S,
    timeout: Duration,
    /// Boxed so that the wrapper stays `Unpin` without any pin projection.
    deadline: Pin<Box<Sleep>>,
    /// Whether `deadline` counts for a write that is pending now.
    armed: bool,
}

impl<S> WriteTimeout<S> {
    pub(crate) fn new(inner: S, timeout: Duration) -> Self {
        WriteTimeout {
            inner,
            timeout,
            deadline: Box::pin(tokio::time::sleep(timeout)),
            armed: false,
        }
    }

    /// What a write of the inner socket returned, with its stall bounded: a result is
    /// progress and disarms the deadline; `Pending` starts it when it is not running
    /// already, and turns into `TimedOut` once it has passed.
    fn bound<T>(
        &mut self,
        cx: &mut Context<'_>,
        polled: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        match polled {
            Poll::Ready(result) => {
                self.armed = false;
                Poll::Ready(result)
            }
            Poll::Pending => {
                if !self.armed {
                    self.armed = true;
                    self.deadline.as_mut().reset(Instant::now() + self.timeout);
                }
                match self.deadline.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the peer did not read the response in time",
                    ))),
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for WriteTimeout<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for WriteTimeout<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_write(cx, buf);
        this.bound(cx, polled)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        this.bound(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_flush(cx);
        this.bound(cx, polled)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_shutdown(cx);
        this.bound(cx, polled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    const TIMEOUT: Duration = Duration::from_secs(30);

    #[tokio::test(start_paused = true)]
    async fn a_write_the_peer_never_takes_fails_after_the_timeout() {
        let (near, _far) = tokio::io::duplex(64);
        let mut socket = WriteTimeout::new(near, TIMEOUT);
        let started = Instant::now();
        let error = socket.write_all(&[0; 1024]).await.expect_err("the write must give up");
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        assert_eq!(started.elapsed(), TIMEOUT);
    }

    #[tokio::test(start_paused = true)]
    async fn a_peer_that_reads_slowly_but_steadily_is_served() {
        let (near, mut far) = tokio::io::duplex(64);
        let mut socket = WriteTimeout::new(near, TIMEOUT);
        // The reader takes 64 bytes every 20 s: each stall is shorter than the timeout,
        // although the whole write takes far longer.
        let reader = tokio::spawn(async move {
            let mut received = Vec::new();
            let mut chunk = [0; 64];
            loop {
                tokio::time::sleep(Duration::from_secs(20)).await;
                match far.read(&mut chunk).await.unwrap() {
                    0 => return received,
                    n => received.extend_from_slice(&chunk[..n]),
                }
            }
        });
        socket.write_all(&[7; 640]).await.expect("a steady reader is not cut off");
        socket.shutdown().await.unwrap();
        drop(socket);
        assert_eq!(reader.await.unwrap(), vec![7; 640]);
    }

    #[tokio::test(start_paused = true)]
    async fn the_deadline_is_not_armed_while_nothing_is_written() {
        let (near, mut far) = tokio::io::duplex(64);
        let mut socket = WriteTimeout::new(near, TIMEOUT);
        socket.write_all(b"first").await.unwrap();
        // A quiet connection (a kept-alive one between requests) is no stalled write.
        tokio::time::sleep(TIMEOUT * 3).await;
        socket.write_all(b" second").await.unwrap();
        let mut received = [0; 12];
        far.read_exact(&mut received).await.unwrap();
        assert_eq!(&received, b"first second");
    }
}
