//! What the pages answer when they refuse, and what they read of a request: the refusal page,
//! cookies, the pages' origin and path.

use std::fmt;
use std::time::Duration;

use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::http::request::Parts;
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};

use super::html;
use crate::url_mode::{Abandonment, FlowError, Flows};

/// A page that refuses: `status`, a heading, and why, in words a person can act on. Its style
/// sheet is linked relative to it: for a page one segment under the pages' base.
pub(super) fn refusal(status: StatusCode, heading: &str, why: &str) -> Response {
    refusal_under("", status, heading, why)
}

/// [`refusal`], for a page anywhere under the pages' base path `base` (`/elicit/`), which its
/// style sheet is linked from: the sign-in callback is two segments under it.
pub(super) fn refusal_under(base: &str, status: StatusCode, heading: &str, why: &str) -> Response {
    let body = format!(
        "<p>{}</p>\n<p>Nothing was stored. If you were sent here by your MCP client, go back to \
         it and ask again.</p>",
        html::escape(why)
    );
    (
        status,
        html_body(html::page(base, "refused", heading, &body)),
    )
        .into_response()
}

pub(super) fn html_body(html: String) -> ([(header::HeaderName, &'static str); 1], String) {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html)
}

/// A flow that cannot be shown or submitted: the reason, on a page.
pub(super) fn flow_refusal(error: &FlowError) -> Response {
    let (status, heading) = match error {
        FlowError::Unknown => (StatusCode::NOT_FOUND, "No such page"),
        FlowError::WrongUser => (StatusCode::FORBIDDEN, "This page is for another user"),
        FlowError::OpenedElsewhere => (
            StatusCode::FORBIDDEN,
            "This page is open in another browser",
        ),
        FlowError::Finished => (StatusCode::GONE, "This step is finished"),
        FlowError::Expired => (StatusCode::GONE, "This step expired"),
        FlowError::Abandoned(why) => (StatusCode::GONE, abandoned_heading(*why)),
        FlowError::NotOpened => (StatusCode::FORBIDDEN, "This page was not opened here"),
        FlowError::Claimed => (StatusCode::CONFLICT, "This step is being saved"),
        FlowError::ClaimLapsed => (StatusCode::CONFLICT, "This was not saved in time"),
        // What the store said (Redis's own words, an address) is for the server's logs, and
        // stays in the error: the browser is told only that the server cannot take it now.
        FlowError::Unavailable(_) => {
            return refusal(
                StatusCode::SERVICE_UNAVAILABLE,
                "The server cannot take this now",
                "The server could not reach where it keeps this step. Try again in a minute.",
            );
        }
        _ => (
            StatusCode::SERVICE_UNAVAILABLE,
            "The server cannot take this now",
        ),
    };
    refusal(status, heading, &sentence(&error.to_string()))
}

/// The heading of a page whose flow was abandoned: why, as the store kept it.
pub(super) fn abandoned_heading(why: Abandonment) -> &'static str {
    match why {
        Abandonment::Declined => "You declined this request",
        Abandonment::Dismissed => "This request was dismissed",
        Abandonment::Cancelled => "This request was cancelled",
        // `Abandonment::CallEnded`, and any reason a later version adds.
        _ => "This request has ended",
    }
}

pub(super) fn unavailable(error: &dyn fmt::Display) -> Response {
    refusal(
        StatusCode::SERVICE_UNAVAILABLE,
        "The server cannot take this now",
        &sentence(&error.to_string()),
    )
}

/// `text` with a capital and a full stop.
pub(super) fn sentence(text: &str) -> String {
    let mut chars = text.chars();
    let mut sentence: String = chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default();
    if !sentence.ends_with('.') {
        sentence.push('.');
    }
    sentence
}

/// The pages' cookies (the browser's name, a sign-in, a session, an authorization under way):
/// their names and attributes, one rule for all of them. Every one is `HttpOnly` and
/// `SameSite=Lax`, and holds a value the pages sealed.
///
/// - **Over TLS** (an `https` base): `__Host-elicit-<what>`, `Secure`, `Path=/`, no `Domain`. A
///   browser keeps a `__Host-` cookie only when the page's own host set it over TLS, so a sibling
///   subdomain, or anyone on plain http, cannot plant one. `Path=/` (which the prefix requires)
///   sends them to the whole app on that host: the `elicit-` in their names keeps them from the
///   app's own cookies, and one set of pages per host keeps them from each other's.
/// - **Over plain http** (loopback only, the flows' URL policy): `elicit-<what>-<port>`, scoped
///   to the pages' path. A browser shares cookies across the ports of a host, so every server on
///   this machine's `localhost`, on any port, is sent these and can set its own under these
///   names: the port in the name keeps two servers' pages from overwriting each other's, and
///   is no boundary. What stops a value planted that way is the seal: a value these pages did not
///   issue is ignored. A value they issued to whoever planted it is not (SECURITY.md).
#[derive(Debug, Clone)]
pub(super) struct Cookies {
    prefix: &'static str,
    suffix: String,
    path: String,
    secure: bool,
}

impl Cookies {
    /// The cookies of the pages at `flows`' base.
    pub(super) fn of(flows: &Flows) -> Self {
        let base = flows.base();
        if base.scheme() == "https" {
            Self {
                prefix: "__Host-elicit-",
                suffix: String::new(),
                path: "/".to_owned(),
                secure: true,
            }
        } else {
            Self {
                prefix: "elicit-",
                suffix: base
                    .port()
                    .map(|port| format!("-{port}"))
                    .unwrap_or_default(),
                path: base_path(flows),
                secure: false,
            }
        }
    }

    /// The name of the cookie `what` (`browser`, `session`).
    pub(super) fn name(&self, what: &str) -> String {
        format!("{}{what}{}", self.prefix, self.suffix)
    }

    /// The `Set-Cookie` of `what` with `value`, kept `max_age` (`None`: until the browser
    /// closes).
    pub(super) fn set(
        &self,
        what: &str,
        value: String,
        max_age: Option<Duration>,
    ) -> Option<HeaderValue> {
        let mut cookie = cookie::Cookie::build((self.name(what), value))
            .path(self.path.clone())
            .http_only(true)
            .same_site(cookie::SameSite::Lax)
            .secure(self.secure);
        if let Some(age) = max_age {
            cookie = cookie.max_age(cookie::time::Duration::seconds(
                i64::try_from(age.as_secs()).unwrap_or(i64::MAX),
            ));
        }
        HeaderValue::from_str(&cookie.build().to_string()).ok()
    }

    /// The `Set-Cookie` that removes `what`.
    pub(super) fn clear(&self, what: &str) -> Option<HeaderValue> {
        self.set(what, String::new(), Some(Duration::ZERO))
    }

    /// Every value the browser sent for `what`, in its order (a browser sends two cookies of
    /// one name when a page elsewhere set one under a longer path): the caller takes the first
    /// that opens.
    pub(super) fn values(&self, headers: &HeaderMap, what: &str) -> Vec<String> {
        let name = self.name(what);
        headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(cookie::Cookie::split_parse)
            .filter_map(Result::ok)
            .filter(|cookie| cookie.name() == name && !cookie.value().is_empty())
            .map(|cookie| cookie.value().to_owned())
            .collect()
    }
}

/// The browser that sent a request, as the pages know it: the digest of the random name its
/// sealed cookie holds (the flow store keeps this digest, never the cookie). Put in the
/// request's extensions by the pages before any handler runs, for a cookie the pages sealed;
/// absent when the request has none (a POST from a browser that never opened a page).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Browser {
    pub(super) digest: String,
}

/// Where the pages are, for an identity's own routes and check ([`TokenSignIn`](super::TokenSignIn)):
/// their path, origin, cookies, sealing keys and flows. Put in every request's extensions by the pages
/// before any handler runs, so an identity made before the pages' flows needs none of it.
#[derive(Debug, Clone)]
pub(super) struct Place {
    /// The pages' path: `/elicit/`.
    pub(super) path: String,
    /// `scheme://host[:port]`, for the `Origin` check.
    pub(super) origin: String,
    pub(super) cookies: Cookies,
    pub(super) keys: std::sync::Arc<crate::state::StateKeys>,
    /// The flows, whose store keeps the sessions signed out before they expired.
    pub(super) flows: crate::url_mode::Flows,
}

/// A submission from the pages' own origin: `Origin` when the browser names one (every current
/// browser sends the header on a POST), else `Sec-Fetch-Site: same-origin`; neither is refused.
///
/// `Origin: null` names none: a browser sends it for the pages' own form, because the pages say
/// `Referrer-Policy: no-referrer` (the Fetch standard serializes the origin of a POST under that
/// policy as `null`; Chromium does), and for a sandboxed or opaque document anywhere.
/// `Sec-Fetch-Site`, which the browser sets and no page can, tells them apart.
pub(super) fn same_origin(parts: &Parts, origin: &str) -> Result<(), Response> {
    let sent = parts
        .headers
        .get(header::ORIGIN)
        .map(|value| value.to_str().unwrap_or(""))
        .filter(|sent| *sent != "null");
    let site = parts
        .headers
        .get("sec-fetch-site")
        .and_then(|value| value.to_str().ok());
    let same = match (sent, site) {
        (Some(sent), _) => sent == origin,
        (None, Some(site)) => site == "same-origin",
        (None, None) => false,
    };
    if parts.method == Method::POST && !same {
        return Err(refusal(
            StatusCode::FORBIDDEN,
            "This form was sent from another site",
            "Only this page may send its form.",
        ));
    }
    Ok(())
}

/// `scheme://host[:port]` of the flows' base: the pages' origin.
pub(super) fn origin_of(flows: &Flows) -> String {
    let base = flows.base();
    match base.port() {
        Some(port) => format!("{}://{}:{port}", base.scheme(), base.host()),
        None => format!("{}://{}", base.scheme(), base.host()),
    }
}

/// The path of the flows' base: `/elicit/`.
pub(super) fn base_path(flows: &Flows) -> String {
    flows
        .base()
        .as_str()
        .strip_prefix(origin_of(flows).as_str())
        .unwrap_or("/")
        .to_owned()
}

/// The session cookie of a sign-in the pages keep themselves ([`TokenSignIn`](super::TokenSignIn),
/// [`OidcSignIn`](super::OidcSignIn)).
pub(super) const SESSION_COOKIE: &str = "session";

/// What a sign-in's own form's token seals (the sign-in form's, the sign-out form's): the
/// browser it was given to. What the form is for, and for the sign-out the principal, are in its
/// binding.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct FormToken {
    b: String,
}

impl FormToken {
    /// A token for `browser`'s form, bound to `binding`, for `ttl`.
    pub(super) fn seal(
        keys: &crate::state::StateKeys,
        browser: &Browser,
        binding: &crate::state::Binding<'_>,
        ttl: Duration,
    ) -> Result<String, crate::state::SealError> {
        keys.seal(
            &FormToken {
                b: browser.digest.clone(),
            },
            binding,
            ttl,
            crate::state::UnixTime::now(),
        )
    }

    /// Whether `token` (posted) is one [`seal`](FormToken::seal) made for `browser` and
    /// `binding`, and has not expired.
    pub(super) fn opens(
        keys: &crate::state::StateKeys,
        token: Option<&str>,
        browser: &Browser,
        binding: &crate::state::Binding<'_>,
    ) -> bool {
        token.is_some_and(|token| {
            keys.open::<FormToken>(token, binding, crate::state::UnixTime::now())
                .is_ok_and(|opened| opened.into_value().b == browser.digest)
        })
    }
}

/// The sign-out of a sign-in that keeps its session in [`SESSION_COOKIE`]: `<path>signout`, a
/// page that shows who is signed in with a form (GET; showing it changes nothing, since any site
/// can make a browser follow a link), and that form posted (POST: from the pages' own origin,
/// with the token its page gave this browser for this session), which clears the cookie. The
/// sign-in finds the session and passes it in; the rest is here, once.
pub(super) struct SignOut<'a> {
    /// The pages' path (`/elicit/`): the form posts to `<path>signout`.
    pub(super) path: &'a str,
    /// The pages' origin, for the `Origin` check.
    pub(super) origin: &'a str,
    pub(super) keys: &'a crate::state::StateKeys,
    pub(super) cookies: &'a Cookies,
    /// What the form's token is bound to, with the principal: its method (one per sign-in)...
    pub(super) method: &'static str,
    /// ...and the sign-in it belongs to.
    pub(super) params_digest: crate::state::ParamsDigest,
    /// How long the form's token lasts: the session's own time.
    pub(super) ttl: Duration,
    /// The flows' store, which keeps the sessions signed out until they would have expired.
    pub(super) store: &'a dyn crate::url_mode::FlowStore,
}

/// A browser's session that a sign-in ([`TokenSignIn`](super::TokenSignIn),
/// [`OidcSignIn`](super::OidcSignIn)) sealed, still open: whose, its id (the sealed cookie's own
/// random id) and when it expires.
pub(super) struct OpenSession {
    pub(super) principal: String,
    pub(super) id: crate::state::StateId,
    pub(super) expires_at: crate::state::UnixTime,
}

impl OpenSession {
    /// The session `opened`, whose principal `principal` reads, unless it was signed out: the
    /// flows' `store` keeps the sessions signed out, anywhere, until they would have expired.
    /// A store that cannot say is a session not taken.
    pub(super) async fn unless_signed_out<S>(
        opened: crate::state::Opened<S>,
        principal: impl FnOnce(S) -> String,
        store: &dyn crate::url_mode::FlowStore,
        now: crate::state::UnixTime,
    ) -> Option<Self> {
        let session = OpenSession {
            id: opened.id(),
            expires_at: opened.expires_at(),
            principal: principal(opened.into_value()),
        };
        match store.session_ended(&session.id, now).await {
            Ok(false) => Some(session),
            Ok(true) | Err(_) => None,
        }
    }

    /// Ends the session in `store`, until it would have expired: what a sign-out posts.
    async fn end(
        self,
        store: &dyn crate::url_mode::FlowStore,
    ) -> Result<(), crate::url_mode::FlowError> {
        let now = crate::state::UnixTime::now();
        store
            .end_session(&self.id, &self.principal, self.expires_at, now)
            .await
    }
}

/// The form's CSRF field (every page's name for it).
const SIGN_OUT_CSRF_FIELD: &str = "_csrf";

impl SignOut<'_> {
    fn binding<'p>(&self, principal: &'p str) -> crate::state::Binding<'p>
    where
        Self: 'p,
    {
        crate::state::Binding {
            principal,
            method: self.method,
            params_digest: self.params_digest,
        }
    }

    /// The sign-out page every page links to, for `signed_in` (the session's principal and the
    /// browser it is this browser's; `None`: not signed in).
    pub(super) fn page(&self, signed_in: Option<(String, &Browser)>) -> Response {
        let Some((principal, browser)) = signed_in else {
            return html_body(html::page(
                "",
                "done",
                "You are not signed in",
                "<p>This browser is not signed in to these pages.</p>",
            ))
            .into_response();
        };
        html::signed_in(&principal, None);
        let token = FormToken::seal(self.keys, browser, &self.binding(&principal), self.ttl);
        let Ok(token) = token else {
            return refusal_under(
                self.path,
                StatusCode::SERVICE_UNAVAILABLE,
                "You could not be signed out",
                "The sign-out form could not be made.",
            );
        };
        let body = format!(
            "<p>This browser is signed in to these pages as <strong>{who}</strong>. Sign out if \
             that is not you, or when you are done.</p>\n\
             <form method=\"post\" action=\"{action}\">\n\
             <input type=\"hidden\" name=\"{SIGN_OUT_CSRF_FIELD}\" value=\"{token}\">\n\
             <button type=\"submit\">Sign out</button>\n</form>",
            who = html::escape(&principal),
            action = html::escape(&format!("{}signout", self.path)),
            token = html::escape(&token),
        );
        html_body(html::page("", "form", "Sign out", &body)).into_response()
    }

    /// The sign-out form, posted (`body`) by `parts`' browser, `signed_in` as for
    /// [`page`](SignOut::page): the session is ended in the flows' store until it would have
    /// expired (so that a copy of its cookie, anywhere, opens nothing), its cookie is cleared,
    /// and the page says so. If the store cannot end it, nothing is cleared, and the page says
    /// that too.
    pub(super) async fn post(
        &self,
        parts: &Parts,
        body: &[u8],
        signed_in: Option<(OpenSession, &Browser)>,
    ) -> Response {
        use crate::events::{self, Check};
        if let Err(refused) = same_origin(parts, self.origin) {
            events::page_refused(
                Check::Origin,
                None,
                None,
                None,
                "a sign-out posted from another site",
            );
            return refused;
        }
        let Some((session, browser)) = signed_in else {
            events::page_refused(
                Check::Identity,
                None,
                None,
                None,
                "a sign-out of no session",
            );
            return refusal(
                StatusCode::FORBIDDEN,
                "You are not signed in",
                "This browser is not signed in to these pages.",
            );
        };
        let principal = session.principal.clone();
        let submitted =
            serde_urlencoded::from_bytes::<Vec<(String, String)>>(body).unwrap_or_default();
        let token = submitted
            .iter()
            .find(|(name, _)| name == SIGN_OUT_CSRF_FIELD)
            .map(|(_, token)| token.as_str());
        let valid = FormToken::opens(self.keys, token, browser, &self.binding(&principal));
        if !valid {
            events::page_refused(
                Check::Csrf,
                None,
                None,
                Some(&principal),
                "the sign-out form's token is not this browser's session's",
            );
            html::signed_in(&principal, Some(&format!("{}signout", self.path)));
            return refusal(
                StatusCode::FORBIDDEN,
                "This form was not sent from its page",
                "The sign-out form's token does not match this browser's session. You are still \
                 signed in.",
            );
        }
        if session.end(self.store).await.is_err() {
            events::page_refused(
                Check::Identity,
                None,
                None,
                Some(&principal),
                "a sign-out the flows' store could not record",
            );
            html::signed_in(&principal, Some(&format!("{}signout", self.path)));
            return refusal_under(
                self.path,
                StatusCode::SERVICE_UNAVAILABLE,
                "You could not be signed out",
                "The server could not end this session everywhere (its store is unreachable, or \
                 keeps as many signed-out sessions as it may). You are still signed in: try \
                 again later.",
            );
        }
        html::signed_out();
        let mut response = html_body(html::page(
            "",
            "done",
            "Signed out",
            &format!(
                "<p>This browser is no longer signed in as <strong>{}</strong>.</p>",
                html::escape(&principal)
            ),
        ))
        .into_response();
        response.headers_mut().append(
            header::SET_COOKIE,
            self.cookies
                .clear(SESSION_COOKIE)
                .unwrap_or_else(|| HeaderValue::from_static("")),
        );
        response
    }
}
