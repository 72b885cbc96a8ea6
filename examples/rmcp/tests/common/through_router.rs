//! A request sent through an axum router in process (tower's `oneshot`, no socket), read as a
//! browser reads the response. Its own file, included by `#[path]` by the pages' tests
//! (`page_site.rs`) and by the page-cookie bench (`benches/page_cookie.rs`), so that both read
//! a response the same way.

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{Request, StatusCode, header};
use tower::ServiceExt;

/// `request` through `router`: the status, the first `Set-Cookie` as a `Cookie` header sends it
/// back (`name=value`), and the body (at most 1 MiB).
pub async fn through_router(
    router: &Router,
    request: Request<Body>,
) -> (StatusCode, Option<String>, Bytes) {
    let response = router.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let cookie = response
        .headers()
        .get(header::SET_COOKIE)
        .map(|set| set.to_str().unwrap().split(';').next().unwrap().to_owned());
    let body = axum::body::to_bytes(response.into_body(), 1 << 20)
        .await
        .unwrap();
    (status, cookie, body)
}
