//! [`TokenSignIn`]: the pages sign the browser in with the server's own accounts and tokens.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::http::request::Parts;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};
use serde_json::json;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::error::PageError;
use super::html;
use super::identity::{IdentifyFuture, Identity, SignedIn, Verdict};
use super::posted;
use super::respond::{Browser, Place, html_body, refusal, same_origin};
use crate::events::{self, Check};
use crate::state::{Binding, ParamsDigest, UnixTime};

/// The signed-in browser: a sealed cookie naming its principal and the browser it was issued to.
const SESSION_COOKIE: &str = "session";
/// The forms' field for their CSRF token (the pages' own name for it).
const CSRF_FIELD: &str = "_csrf";
/// The sign-in form's fields.
const PRINCIPAL_FIELD: &str = "principal";
const TOKEN_FIELD: &str = "token";
const NEXT_FIELD: &str = "next";
/// How long a sign-in form may stay open before it is sent.
const FORM_TTL: Duration = Duration::from_secs(60 * 60);
/// The most a sign-in form may post.
const MAX_BODY_BYTES: usize = 16 * 1024;

/// The identity check of a server with its own accounts, each a principal and a token (an API
/// key, a password the server issued): the user signs in once, on a form the pages serve at
/// `<base>signin`, and the browser is then kept signed in by a sealed cookie.
///
/// - **The form** is the pages' own: same origin only (`Origin`, or `Sec-Fetch-Site`), with a
///   CSRF token sealed to this browser, like every page's form. It posts `principal`, `token`,
///   `next` (the page to return to, one of the pages' own) and `_csrf`. A token never goes in a
///   URL, and is read from the body into buffers wiped on drop.
/// - **The token** is compared in constant time: the SHA-256 digests of the token typed and of
///   the account's, compared by `subtle`, so neither the comparison nor the token's length says
///   how much of it was right. An unknown principal is compared against a digest too, and
///   refused with the same words ("That name and token do not match an account.", 403, the form
///   shown again). Whether a principal exists can still show in timing: principals are names,
///   not secrets.
/// - **The session** is a cookie sealed with the pages' keys (AES-256-GCM-SIV), `HttpOnly`,
///   `SameSite=Lax`, for [`with_session_ttl`](TokenSignIn::with_session_ttl) (eight hours by
///   default): `__Host-elicit-session` over TLS, `elicit-session-<port>` on loopback. It holds
///   the principal and the browser it was issued to, and counts in that browser only.
/// - **Sign-out**: every page links to `<base>signout`, whose form (a POST with its own CSRF
///   token, from the pages' origin) clears the session.
///
/// A page opened without a session redirects (303) to `<base>signin?next=<page>`.
///
/// ```
/// use mcp_elicit::page::TokenSignIn;
///
/// // A file of `principal:token` lines.
/// let accounts = TokenSignIn::from_lines("alice:s3cret-token-of-alice\nbob:another-token\n")?;
/// # Ok::<(), mcp_elicit::page::PageError>(())
/// ```
#[derive(Clone)]
pub struct TokenSignIn {
    inner: Arc<Inner>,
}

struct Inner {
    /// Each principal's token, as the SHA-256 digest of its bytes.
    accounts: HashMap<String, [u8; 32]>,
    session_ttl: Duration,
}

impl fmt::Debug for TokenSignIn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenSignIn")
            .field("accounts", &self.inner.accounts.len())
            .field("session_ttl", &self.inner.session_ttl)
            .finish_non_exhaustive()
    }
}

impl TokenSignIn {
    /// How long a browser stays signed in by default: eight hours.
    pub const DEFAULT_SESSION_TTL: Duration = Duration::from_secs(8 * 60 * 60);

    /// The accounts `accounts`: each principal and its token.
    ///
    /// # Errors
    /// [`PageError::Accounts`] for an empty principal or token, or a principal given twice.
    pub fn new(
        accounts: impl IntoIterator<Item = (String, SecretString)>,
    ) -> Result<Self, PageError> {
        let mut digests = HashMap::new();
        for (at, (principal, token)) in accounts.into_iter().enumerate() {
            let account = at + 1;
            if principal.is_empty() {
                return Err(PageError::Accounts {
                    account,
                    why: "the principal is empty",
                });
            }
            if token.expose_secret().is_empty() {
                return Err(PageError::Accounts {
                    account,
                    why: "the token is empty",
                });
            }
            if digests
                .insert(principal, digest(token.expose_secret()))
                .is_some()
            {
                return Err(PageError::Accounts {
                    account,
                    why: "the principal is given twice",
                });
            }
        }
        Ok(Self {
            inner: Arc::new(Inner {
                accounts: digests,
                session_ttl: Self::DEFAULT_SESSION_TTL,
            }),
        })
    }

    /// The accounts of `text`: one `principal:token` per line (split at the first `:`, each part
    /// trimmed); blank lines and lines starting with `#` are skipped.
    ///
    /// # Errors
    /// [`PageError::Accounts`] naming the account (its line) and the rule: a line without `:`,
    /// an empty principal or token, a principal given twice.
    pub fn from_lines(text: &str) -> Result<Self, PageError> {
        let mut accounts = Vec::new();
        for (at, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((principal, token)) = line.split_once(':') else {
                return Err(PageError::Accounts {
                    account: at + 1,
                    why: "the line is not `principal:token`",
                });
            };
            accounts.push((
                at + 1,
                principal.trim().to_owned(),
                SecretString::from(token.trim()),
            ));
        }
        // Numbered by line, not by account.
        let mut seen = std::collections::HashSet::new();
        for (line, principal, token) in &accounts {
            let why = if principal.is_empty() {
                Some("the principal is empty")
            } else if token.expose_secret().is_empty() {
                Some("the token is empty")
            } else if !seen.insert(principal.clone()) {
                Some("the principal is given twice")
            } else {
                None
            };
            if let Some(why) = why {
                return Err(PageError::Accounts {
                    account: *line,
                    why,
                });
            }
        }
        Self::new(
            accounts
                .into_iter()
                .map(|(_, principal, token)| (principal, token)),
        )
    }

    /// The accounts of the file at `path` ([`from_lines`](TokenSignIn::from_lines)).
    ///
    /// # Errors
    /// [`PageError::Io`] if the file cannot be read; as [`from_lines`](TokenSignIn::from_lines).
    pub fn from_file(path: impl AsRef<std::path::Path>) -> Result<Self, PageError> {
        let text =
            secrecy::zeroize::Zeroizing::new(std::fs::read_to_string(path).map_err(PageError::Io)?);
        Self::from_lines(&text)
    }

    /// Keep a browser signed in for `ttl` (default [`DEFAULT_SESSION_TTL`](Self::DEFAULT_SESSION_TTL)).
    #[must_use]
    pub fn with_session_ttl(self, ttl: Duration) -> Self {
        let accounts = self.inner.accounts.clone();
        Self {
            inner: Arc::new(Inner {
                accounts,
                session_ttl: ttl,
            }),
        }
    }
}

/// SHA-256 of `token`: what is kept and compared, so that a comparison takes as long whatever
/// the length of the token typed.
fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// What the session cookie seals.
#[derive(Serialize, Deserialize)]
struct Session {
    /// The principal.
    p: String,
    /// The browser it was issued to ([`Browser`]'s digest).
    b: String,
}

/// What a form's token seals: the browser it was given to (and, in its binding, what it is
/// for and, for the sign-out, the principal).
#[derive(Serialize, Deserialize)]
struct FormToken {
    b: String,
}

fn binding<'a>(place: &Place, what: &'a str, principal: &'a str) -> Binding<'a> {
    Binding {
        principal,
        method: what,
        params_digest: ParamsDigest::of(&json!(place.path)),
    }
}

impl Inner {
    /// The principal of `browser`'s session: a session these pages sealed for that browser.
    fn session(&self, place: &Place, headers: &HeaderMap, browser: &Browser) -> Option<String> {
        let binding = binding(place, "elicit/token-session", "");
        let now = UnixTime::now();
        place
            .cookies
            .values(headers, SESSION_COOKIE)
            .iter()
            .filter_map(|sealed| place.keys.open::<Session>(sealed, &binding, now).ok())
            .map(|opened| opened.into_value())
            .find(|session| session.b == browser.digest)
            .map(|session| session.p)
    }

    /// Whether `token` is `principal`'s, compared in constant time.
    fn verify(&self, principal: &str, token: &str) -> bool {
        let typed = digest(token);
        // An unknown principal is compared too, against a digest no token has (all zeros).
        let (expected, known) = match self.accounts.get(principal) {
            Some(expected) => (*expected, true),
            None => ([0; 32], false),
        };
        bool::from(typed.ct_eq(&expected)) && known
    }
}

fn place(parts: &Parts) -> Result<&Place, Response> {
    parts
        .extensions
        .get::<Arc<Place>>()
        .map(AsRef::as_ref)
        .ok_or_else(|| {
            refusal(
                StatusCode::INTERNAL_SERVER_ERROR,
                "This page cannot check who opened it",
                "The token sign-in is used outside the pages that serve it.",
            )
        })
}

/// The page to return to after signing in: one of the pages' own, else their base.
fn return_to<'a>(place: &'a Place, next: Option<&'a str>) -> &'a str {
    next.filter(|next| is_under(&place.path, next))
        .unwrap_or(&place.path)
}

/// Whether `next` is a path under `base` (`/elicit/`, or `/` for pages at the root) that a
/// browser reads as that path on this host: only printable ASCII, no `\` (which browsers read
/// as `/`) and no `//` (a tab or a backslash after `/` would make `//evil.example` of it, a
/// host of another site).
fn is_under(base: &str, next: &str) -> bool {
    next.starts_with(base)
        && !next.contains("//")
        && next
            .bytes()
            .all(|byte| byte.is_ascii_graphic() && byte != b'\\')
}

impl Identity for TokenSignIn {
    fn identify<'a>(&'a self, request: &'a Parts) -> IdentifyFuture<'a> {
        Box::pin(async move {
            let place = place(request)?;
            let Some(browser) = request.extensions.get::<Browser>() else {
                return Err(refusal(
                    StatusCode::FORBIDDEN,
                    "This browser did not open the page",
                    "Open the link your MCP client gave you in this browser first.",
                ));
            };
            match self.inner.session(place, &request.headers, browser) {
                Some(principal) => {
                    Ok(SignedIn::new(principal).with_sign_out(format!("{}signout", place.path)))
                }
                None => Verdict::sign_in_at(format!("{}signin", place.path)).answer(request),
            }
        })
    }

    /// `signin` (the form) and `signout`, under the pages' base.
    fn routes(&self) -> Option<Router> {
        Some(
            Router::new()
                .route("/signin", get(sign_in_page).post(sign_in))
                .route("/signout", get(sign_out_page).post(sign_out))
                .with_state(Arc::clone(&self.inner)),
        )
    }
}

/// `?next=` of a sign-in page's URL.
#[derive(Deserialize)]
struct Next {
    next: Option<String>,
}

/// The sign-in form, with a token sealed to this browser; `problem` above it, if any.
fn sign_in_form(place: &Place, browser: &Browser, next: &str, problem: Option<&str>) -> Response {
    let token = place.keys.seal(
        &FormToken {
            b: browser.digest.clone(),
        },
        &binding(place, "elicit/token-sign-in", ""),
        FORM_TTL,
        UnixTime::now(),
    );
    let Ok(token) = token else {
        return unavailable("The sign-in form could not be made.");
    };
    let problem = problem
        .map(|problem| format!("<p class=\"error\">{}</p>\n", html::escape(problem)))
        .unwrap_or_default();
    let body = format!(
        "{problem}<form method=\"post\" action=\"{action}\">\n\
         <input type=\"hidden\" name=\"{CSRF_FIELD}\" value=\"{token}\">\n\
         <input type=\"hidden\" name=\"{NEXT_FIELD}\" value=\"{next}\">\n\
         <label for=\"{PRINCIPAL_FIELD}\">Name</label>\n\
         <input id=\"{PRINCIPAL_FIELD}\" name=\"{PRINCIPAL_FIELD}\" type=\"text\" \
         autocomplete=\"username\" required>\n\
         <label for=\"{TOKEN_FIELD}\">Token</label>\n\
         <input id=\"{TOKEN_FIELD}\" name=\"{TOKEN_FIELD}\" type=\"password\" \
         autocomplete=\"current-password\" required>\n\
         <button type=\"submit\">Sign in</button>\n</form>",
        action = html::escape(&format!("{}signin", place.path)),
        token = html::escape(&token),
        next = html::escape(next),
    );
    html_body(html::page("", "form", "Sign in", &body)).into_response()
}

/// The sign-in form. Showing it changes nothing.
async fn sign_in_page(parts: Parts) -> Response {
    let place = match place(&parts) {
        Ok(place) => place,
        Err(refused) => return refused,
    };
    let Some(browser) = parts.extensions.get::<Browser>() else {
        return no_browser();
    };
    let next = serde_urlencoded::from_str::<Next>(parts.uri.query().unwrap_or(""))
        .ok()
        .and_then(|next| next.next);
    let next = return_to(place, next.as_deref()).to_owned();
    sign_in_form(place, browser, &next, None)
}

/// The sign-in form, posted: from the pages' own origin, with the token its page gave this
/// browser; then the token typed is compared with the account's, and the browser is signed in.
async fn sign_in(
    axum::extract::State(inner): axum::extract::State<Arc<Inner>>,
    parts: Parts,
    body: axum::body::Body,
) -> Response {
    let place = match place(&parts) {
        Ok(place) => place,
        Err(refused) => return refused,
    };
    if let Err(refused) = same_origin(&parts, &place.origin) {
        events::page_refused(
            Check::Origin,
            None,
            None,
            None,
            "a sign-in posted from another site",
        );
        return refused;
    }
    let Some(browser) = parts.extensions.get::<Browser>() else {
        events::page_refused(
            Check::Browser,
            None,
            None,
            None,
            "a sign-in from a browser the pages never named",
        );
        return no_browser();
    };
    // The token typed, from the body on, only ever in buffers wiped on drop.
    let Ok(submitted) = posted::read_body(body, MAX_BODY_BYTES)
        .await
        .and_then(|body| posted::fields(&body))
    else {
        return refusal(
            StatusCode::BAD_REQUEST,
            "The form could not be read",
            "The sign-in form was not sent as a form.",
        );
    };
    let field = |name: &str| {
        submitted
            .iter()
            .find(|(field, _)| field == name)
            .map(|(_, value)| value.as_str())
    };
    let valid = field(CSRF_FIELD).is_some_and(|token| {
        place
            .keys
            .open::<FormToken>(
                token,
                &binding(place, "elicit/token-sign-in", ""),
                UnixTime::now(),
            )
            .is_ok_and(|opened| opened.into_value().b == browser.digest)
    });
    if !valid {
        events::page_refused(
            Check::Csrf,
            None,
            None,
            None,
            "the sign-in form's token is not this browser's",
        );
        return refusal(
            StatusCode::FORBIDDEN,
            "This form was not sent from its page",
            "The sign-in form's token does not match this browser. Open the sign-in page again.",
        );
    }
    let next = return_to(place, field(NEXT_FIELD)).to_owned();
    let principal = field(PRINCIPAL_FIELD).unwrap_or("").trim().to_owned();
    if !inner.verify(&principal, field(TOKEN_FIELD).unwrap_or("")) {
        events::page_refused(
            Check::Identity,
            None,
            None,
            None,
            "a sign-in whose name and token match no account",
        );
        let mut refused = sign_in_form(
            place,
            browser,
            &next,
            Some("That name and token do not match an account."),
        );
        *refused.status_mut() = StatusCode::FORBIDDEN;
        return refused;
    }
    let session = Session {
        p: principal,
        b: browser.digest.clone(),
    };
    let sealed = place.keys.seal(
        &session,
        &binding(place, "elicit/token-session", ""),
        inner.session_ttl,
        UnixTime::now(),
    );
    let Some(cookie) = sealed.ok().and_then(|sealed| {
        place
            .cookies
            .set(SESSION_COOKIE, sealed, Some(inner.session_ttl))
    }) else {
        return unavailable("The session could not be sealed.");
    };
    let mut response = Redirect::to(&next).into_response();
    response.headers_mut().append(header::SET_COOKIE, cookie);
    response
}

/// The sign-out page every page links to: who is signed in here, and a form that signs them out.
async fn sign_out_page(
    axum::extract::State(inner): axum::extract::State<Arc<Inner>>,
    parts: Parts,
) -> Response {
    let place = match place(&parts) {
        Ok(place) => place,
        Err(refused) => return refused,
    };
    let signed_in = parts
        .extensions
        .get::<Browser>()
        .and_then(|browser| Some((inner.session(place, &parts.headers, browser)?, browser)));
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
    let token = place.keys.seal(
        &FormToken {
            b: browser.digest.clone(),
        },
        &binding(place, "elicit/token-sign-out", &principal),
        inner.session_ttl,
        UnixTime::now(),
    );
    let Ok(token) = token else {
        return unavailable("The sign-out form could not be made.");
    };
    let body = format!(
        "<p>This browser is signed in to these pages as <strong>{who}</strong>. Sign out if that \
         is not you, or when you are done.</p>\n\
         <form method=\"post\" action=\"{action}\">\n\
         <input type=\"hidden\" name=\"{CSRF_FIELD}\" value=\"{token}\">\n\
         <button type=\"submit\">Sign out</button>\n</form>",
        who = html::escape(&principal),
        action = html::escape(&format!("{}signout", place.path)),
        token = html::escape(&token),
    );
    html_body(html::page("", "form", "Sign out", &body)).into_response()
}

/// The sign-out form, posted: from the pages' own origin, with the token its page gave this
/// browser for this session; then the session cookie is cleared.
async fn sign_out(
    axum::extract::State(inner): axum::extract::State<Arc<Inner>>,
    parts: Parts,
    body: axum::body::Bytes,
) -> Response {
    let place = match place(&parts) {
        Ok(place) => place,
        Err(refused) => return refused,
    };
    if let Err(refused) = same_origin(&parts, &place.origin) {
        events::page_refused(
            Check::Origin,
            None,
            None,
            None,
            "a sign-out posted from another site",
        );
        return refused;
    }
    let signed_in = parts
        .extensions
        .get::<Browser>()
        .and_then(|browser| Some((inner.session(place, &parts.headers, browser)?, browser)));
    let Some((principal, browser)) = signed_in else {
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
    let submitted =
        serde_urlencoded::from_bytes::<Vec<(String, String)>>(&body).unwrap_or_default();
    let valid = submitted
        .iter()
        .find(|(name, _)| name == CSRF_FIELD)
        .is_some_and(|(_, token)| {
            place
                .keys
                .open::<FormToken>(
                    token,
                    &binding(place, "elicit/token-sign-out", &principal),
                    UnixTime::now(),
                )
                .is_ok_and(|opened| opened.into_value().b == browser.digest)
        });
    if !valid {
        events::page_refused(
            Check::Csrf,
            None,
            None,
            Some(&principal),
            "the sign-out form's token is not this browser's session's",
        );
        html::signed_in(&principal, Some(&format!("{}signout", place.path)));
        return refusal(
            StatusCode::FORBIDDEN,
            "This form was not sent from its page",
            "The sign-out form's token does not match this browser's session. You are still \
             signed in.",
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
        place
            .cookies
            .clear(SESSION_COOKIE)
            .unwrap_or_else(|| HeaderValue::from_static("")),
    );
    response
}

fn no_browser() -> Response {
    refusal(
        StatusCode::FORBIDDEN,
        "This browser did not open the page",
        "Open the link your MCP client gave you in this browser first.",
    )
}

/// The sign-in's refusal when the server cannot sign in now.
fn unavailable(why: &str) -> Response {
    refusal(
        StatusCode::SERVICE_UNAVAILABLE,
        "You could not be signed in",
        why,
    )
}

#[cfg(test)]
mod tests {
    use super::is_under;

    #[test]
    fn only_a_page_of_this_host_is_returned_to_after_signing_in() {
        for base in ["/", "/elicit/"] {
            assert!(is_under(base, &format!("{base}0123abcd")), "{base}");
            for elsewhere in [
                "//evil.example",
                "/\\evil.example",
                "/\t/evil.example",
                "/ /evil.example",
                "/\n/evil.example",
                "https://evil.example/",
            ] {
                let next = format!("{}{}", base.trim_end_matches('/'), elsewhere);
                assert!(!is_under(base, &next), "{base} {next:?}");
            }
        }
        assert!(!is_under("/elicit/", "/other/page"));
    }
}
