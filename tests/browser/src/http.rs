//! An HTTP/1.1 client that only talks to loopback.

use std::{future::Future, net::IpAddr, pin::Pin, time::Duration};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::{
    client::legacy::{Client, connect::HttpConnector},
    rt::TokioExecutor,
};
use openidconnect::{AsyncHttpClient, HttpRequest, HttpResponse};

use crate::error::{Error, Result};

/// How long one request may take, connection included.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);

/// An HTTP/1.1 client for `http://` URLs on loopback (`127.0.0.0/8`, `::1`, `localhost`); any
/// other host is refused before a connection is tried. It never follows redirects (a 303 comes
/// back as it is), which is also what `openidconnect` requires of its client.
///
/// Uses: waiting for a server to answer, requests a browser would not make (a replayed POST, a
/// form posted with another `Origin`), and a relying party's calls, through its
/// [`AsyncHttpClient`] impl: `CoreProviderMetadata::discover_async(provider.issuer_url(),
/// &LoopbackHttp::new())` (`tests/smoke_oidc.rs`).
#[derive(Clone)]
pub struct LoopbackHttp {
    client: Client<HttpConnector, Full<Bytes>>,
}

impl Default for LoopbackHttp {
    fn default() -> Self {
        Self::new()
    }
}

impl LoopbackHttp {
    /// A client with its own connection pool.
    pub fn new() -> Self {
        Self {
            client: Client::builder(TokioExecutor::new()).build_http(),
        }
    }

    /// Sends one request and reads the whole response.
    pub async fn send(&self, request: http::Request<Vec<u8>>) -> Result<http::Response<Vec<u8>>> {
        let target = request.uri().to_string();
        let doing = format!("{} {target}", request.method());
        check_loopback(request.uri())?;
        let (parts, body) = request.into_parts();
        let request = http::Request::from_parts(parts, Full::new(Bytes::from(body)));
        let exchange = async {
            let response = self
                .client
                .request(request)
                .await
                .map_err(Error::context(&doing))?;
            let (parts, body) = response.into_parts();
            let body = body.collect().await.map_err(Error::context(&doing))?;
            Ok(http::Response::from_parts(parts, body.to_bytes().to_vec()))
        };
        tokio::time::timeout(REQUEST_TIMEOUT, exchange)
            .await
            .map_err(|_| Error::new(format!("{doing}: no answer in {REQUEST_TIMEOUT:?}")))?
    }

    /// `GET url`.
    pub async fn get(&self, url: &str) -> Result<http::Response<Vec<u8>>> {
        let request = http::Request::get(url)
            .body(Vec::new())
            .map_err(Error::context(format!("GET {url}")))?;
        self.send(request).await
    }

    /// `POST url` with an `application/x-www-form-urlencoded` body and the given extra headers
    /// (`Cookie`, `Origin`, `Sec-Fetch-Site`, …), as a browser's form would send it.
    pub async fn post_form(
        &self,
        url: &str,
        headers: &[(&str, &str)],
        fields: &[(&str, &str)],
    ) -> Result<http::Response<Vec<u8>>> {
        let mut request = http::Request::post(url).header(
            http::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        );
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request
            .body(form_urlencoded(fields).into_bytes())
            .map_err(Error::context(format!("POST {url}")))?;
        self.send(request).await
    }

    /// Polls `GET url` until it answers 2xx and `ready` accepts the body, or `timeout` passes.
    pub async fn wait_until_ready(
        &self,
        url: &str,
        timeout: Duration,
        ready: impl Fn(&[u8]) -> bool,
    ) -> Result<Vec<u8>> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let last = match self.get(url).await {
                Ok(response) if response.status().is_success() && ready(response.body()) => {
                    return Ok(response.into_body());
                }
                Ok(response) => format!("status {}", response.status()),
                Err(e) => e.to_string(),
            };
            if tokio::time::Instant::now() > deadline {
                return Err(Error::new(format!(
                    "{url} was not ready after {timeout:?} (last: {last})"
                )));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

impl<'c> AsyncHttpClient<'c> for LoopbackHttp {
    type Error = Error;
    type Future = Pin<Box<dyn Future<Output = Result<HttpResponse>> + Send + 'c>>;

    fn call(&'c self, request: HttpRequest) -> Self::Future {
        Box::pin(self.send(request))
    }
}

fn check_loopback(uri: &http::Uri) -> Result<()> {
    if uri.scheme_str() != Some("http") {
        return Err(Error::new(format!(
            "{uri}: the harness speaks plain http:// to loopback only"
        )));
    }
    let host = uri.host().unwrap_or("");
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let loopback = host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback());
    if loopback {
        Ok(())
    } else {
        Err(Error::new(format!(
            "{uri}: refused, not a loopback address (tests reach nothing but this machine)"
        )))
    }
}

/// `application/x-www-form-urlencoded`, as a browser's form encodes it.
pub(crate) fn form_urlencoded(fields: &[(&str, &str)]) -> String {
    openidconnect::url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(fields)
        .finish()
}
