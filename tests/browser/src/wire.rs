//! The bytes one side of an in-process MCP connection wrote, kept to be searched for secrets.

use std::{
    pin::Pin,
    sync::{Arc, Mutex, PoisonError},
    task::{Context, Poll},
};

use tokio::io::AsyncWrite;

/// Writes through to `inner`, keeping a copy of every byte written in `wire`: the JSON-RPC one
/// side sent the other.
pub struct Tee<W> {
    inner: W,
    wire: Arc<Mutex<Vec<u8>>>,
}

impl<W> Tee<W> {
    /// `inner`, copying what is written to it into `wire`.
    pub fn new(inner: W, wire: Arc<Mutex<Vec<u8>>>) -> Self {
        Self { inner, wire }
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for Tee<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let written = Pin::new(&mut self.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = written {
            self.wire
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .extend_from_slice(&buf[..n]);
        }
        written
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
