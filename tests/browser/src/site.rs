//! An axum `Router` served on 127.0.0.1 in the test's own process.

use std::net::SocketAddr;

use tokio::{net::TcpListener, task::JoinHandle};

use crate::error::{Error, Result};

/// A `Router` served on `127.0.0.1:PORT` until the `Site` is dropped.
///
/// When the router needs its own address before it is built (an OAuth redirect URI given to
/// the provider at its start, say), bind first with [`Site::bind`], then [`Site::serve_on`].
pub struct Site {
    addr: SocketAddr,
    task: JoinHandle<()>,
}

impl Site {
    /// Binds a free port on 127.0.0.1.
    pub async fn bind() -> Result<TcpListener> {
        TcpListener::bind(("127.0.0.1", 0))
            .await
            .map_err(Error::context("binding 127.0.0.1:0"))
    }

    /// Serves `router` on a free port of 127.0.0.1.
    pub async fn serve(router: axum::Router) -> Result<Self> {
        Self::serve_on(Self::bind().await?, router)
    }

    /// Serves `router` on `listener` (from [`Site::bind`]).
    pub fn serve_on(listener: TcpListener, router: axum::Router) -> Result<Self> {
        let addr = listener
            .local_addr()
            .map_err(Error::context("the listener's address"))?;
        if !addr.ip().is_loopback() {
            return Err(Error::new(format!("{addr}: serve on loopback only")));
        }
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        Ok(Self { addr, task })
    }

    /// `http://127.0.0.1:PORT`: the site's origin.
    pub fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `http://127.0.0.1:PORT{path}`; `path` starts with `/`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.origin())
    }

    /// The same page under the name `localhost`: another origin *and another site* than
    /// `127.0.0.1` (a browser sends `Sec-Fetch-Site: cross-site` between them), though the same
    /// socket. `path` starts with `/`.
    pub fn url_as_localhost(&self, path: &str) -> String {
        format!("http://localhost:{}{path}", self.addr.port())
    }

    /// The socket address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for Site {
    fn drop(&mut self) {
        self.task.abort();
    }
}
