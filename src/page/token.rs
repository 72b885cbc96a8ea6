//! [`TokenSignIn`]: the pages sign the browser in with the server's own accounts and tokens.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

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
use super::respond::{
    Browser, FormToken, OpenSession, Place, SESSION_COOKIE, SignOut, html_body, refusal,
    same_origin,
};
use crate::events::{self, Check};
use crate::state::{Binding, ParamsDigest, UnixTime};

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
/// - **Guessing is bounded**, in memory: after [`FAILURES_PER_NAME`](Self::FAILURES_PER_NAME)
///   (5) failed sign-ins for one name, that name is refused, one failure forgiven a minute
///   ([`NAME_FAILURE_FORGIVEN_EVERY`](Self::NAME_FAILURE_FORGIVEN_EVERY)); after
///   [`FAILURES_IN_ALL`](Self::FAILURES_IN_ALL) (50) over every name, every sign-in is refused,
///   one forgiven every two seconds ([`FAILURE_FORGIVEN_EVERY`](Self::FAILURE_FORGIVEN_EVERY)),
///   so a spray over many names is bounded too. A refused sign-in is answered 429 with
///   `Retry-After` and the form again: "Too many sign-ins have failed here lately. Wait a
///   minute and try again.", before its token is compared. A name is counted whether or not an
///   account has it, so the refusal says nothing of which names exist. A success forgets its
///   name's failures. **The trade-off**: whoever can reach the form can hold up a real user's
///   sign-in, by failing five times with their name (refused for a minute, and for as long as
///   the guesser spends each minute's try first) or fifty times with any (every sign-in refused
///   for as long as they keep at it, thirty failures a minute). A browser already signed in is
///   not affected, and the bounds keep a guess at a token a person chose to thousands a day,
///   not millions: issue long random tokens all the same. On one process only: each replica of a fleet
///   counts its own.
/// - **The session** is a cookie sealed with the pages' keys (AES-256-GCM-SIV), `HttpOnly`,
///   `SameSite=Lax`, for [`with_session_ttl`](TokenSignIn::with_session_ttl) (eight hours by
///   default): `__Host-elicit-session` over TLS, `elicit-session-<port>` on loopback. It holds
///   the principal, the browser it was issued to, and eight bytes of a digest of the account's
///   token digest; it counts in that browser only, and only while the account is there with
///   that token: every request checks both against the accounts of now, so a session outlives
///   neither a removed account nor a changed token (where the pages' keys outlive the
///   accounts: a restart with kept keys, a fleet, accounts reloaded). That browser is sent to
///   sign in again.
/// - **Principals** are 1 to [`MAX_PRINCIPAL_LEN`](Self::MAX_PRINCIPAL_LEN) printable ASCII
///   characters without spaces or `:` (an email address fits): no look-alike letters, no
///   invisible or control characters ([`new`](Self::new)).
/// - **Sign-out**: every page links to `<base>signout`, whose form (a POST with its own CSRF
///   token, from the pages' origin) ends the session wherever its cookie is: the session's id
///   (the sealed cookie's own random id) is kept in the flows' store
///   ([`FlowStore::end_session`](crate::url_mode::FlowStore::end_session)) until the session
///   would have expired, and every request checks it there, so a copy of the cookie (a shared
///   profile; on loopback, any server on another port under the same path) opens nothing after
///   the person signed out; with a [`RedisFlowStore`](crate::url_mode::RedisFlowStore), neither
///   on another replica nor after a restart. The store bounds what it keeps (64 per principal;
///   the memory store 65,536 in all): over that, the sign-out says it could not sign out and
///   the browser stays signed in. A store that cannot be read signs no one in.
///
/// A page opened without a session redirects (303) to `<base>signin?next=<page>`.
///
/// ```
/// use mcp_elicit::page::TokenSignIn;
///
/// // A file of `principal:token` lines.
/// let accounts = TokenSignIn::from_lines(
///     "alice:s3cret-token-of-alice\nbob:bX9v2kQ7rT4mW8zL1pN6\n",
/// )?;
/// // A short token is refused, naming its line and how to make a good one.
/// let weak = TokenSignIn::from_lines("alice:s3cret-token-of-alice\nbob:hunter2\n");
/// assert!(weak.unwrap_err().to_string().contains("line 2: the token is shorter than 16"));
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
    /// The failed sign-ins lately, per name typed and in all.
    throttle: Mutex<Throttle>,
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

    /// The longest principal, in characters (an email address is at most 254).
    pub const MAX_PRINCIPAL_LEN: usize = 256;

    /// The shortest token, in characters (not bytes): sixteen. A session cookie seals a few
    /// bytes of a digest of the token's digest, so whoever holds the pages' keys could guess a
    /// short token offline, at no cost to the sign-in's bounds. Make each token random, such as
    /// the output of `openssl rand -base64 24` (32 characters, 192 bits).
    pub const MIN_TOKEN_LEN: usize = 16;

    /// How many sign-ins may fail for one name (whether or not an account has it) before that
    /// name is refused: five. After that, one more every
    /// [`NAME_FAILURE_FORGIVEN_EVERY`](Self::NAME_FAILURE_FORGIVEN_EVERY).
    pub const FAILURES_PER_NAME: u32 = 5;

    /// How often one of a name's failed sign-ins is forgotten: a minute. A name refused after
    /// [`FAILURES_PER_NAME`](Self::FAILURES_PER_NAME) failures in quick succession may be tried
    /// once more a minute after the first of them, and five times again five minutes after it.
    pub const NAME_FAILURE_FORGIVEN_EVERY: Duration = Duration::from_secs(60);

    /// How many sign-ins may fail in all, over every name, before every sign-in is refused:
    /// fifty. After that, one more every [`FAILURE_FORGIVEN_EVERY`](Self::FAILURE_FORGIVEN_EVERY).
    pub const FAILURES_IN_ALL: u32 = 50;

    /// How often one of the failed sign-ins in all is forgotten: two seconds (thirty a minute
    /// at most, over every name, once the fifty are spent).
    pub const FAILURE_FORGIVEN_EVERY: Duration = Duration::from_secs(2);

    /// The accounts `accounts`: each principal and its token.
    ///
    /// Each principal must be a name a person can read for what it is: 1 to
    /// [`MAX_PRINCIPAL_LEN`](Self::MAX_PRINCIPAL_LEN) printable ASCII characters, without spaces
    /// or `:` (`alice`, `alice@example.com`, `ops-bot_2`). That keeps out look-alikes (a Cyrillic
    /// `а` for a Latin `a`), zero-width and control characters, and names that differ only in
    /// spaces: two accounts that read the same are two names here.
    ///
    /// # Errors
    /// Each token must be at least [`MIN_TOKEN_LEN`](Self::MIN_TOKEN_LEN) (16) characters:
    /// `openssl rand -base64 24` makes a good one.
    ///
    /// # Errors
    /// [`PageError::Accounts`] naming the account (its place, from 1) and the rule: a principal
    /// outside the rule above, an empty token, a token shorter than 16 characters, a principal
    /// given twice. Nothing is built then.
    pub fn new(
        accounts: impl IntoIterator<Item = (String, SecretString)>,
    ) -> Result<Self, PageError> {
        let mut digests = HashMap::new();
        for (at, (principal, token)) in accounts.into_iter().enumerate() {
            let why = account_rule(&principal, &token).err().or_else(|| {
                digests
                    .insert(principal, digest(token.expose_secret()))
                    .is_some()
                    .then_some("the principal is given twice")
            });
            if let Some(why) = why {
                return Err(PageError::Accounts {
                    account: at + 1,
                    why,
                });
            }
        }
        Ok(Self {
            inner: Arc::new(Inner {
                accounts: digests,
                session_ttl: Self::DEFAULT_SESSION_TTL,
                throttle: Mutex::new(Throttle::new(Instant::now())),
            }),
        })
    }

    /// The accounts of `text`: one `principal:token` per line (split at the first `:`, each part
    /// trimmed); blank lines and lines starting with `#` are skipped.
    ///
    /// Each principal follows [`new`](TokenSignIn::new)'s rule: printable ASCII, no spaces, no
    /// `:`; each token is at least [`MIN_TOKEN_LEN`](Self::MIN_TOKEN_LEN) (16) characters.
    ///
    /// # Errors
    /// [`PageError::AccountLine`] naming the line (from 1) and the rule: a line without `:`, a
    /// principal outside [`new`](TokenSignIn::new)'s rule, an empty token, a token shorter than
    /// 16 characters, a principal given twice. Every line is checked before anything is built.
    pub fn from_lines(text: &str) -> Result<Self, PageError> {
        let mut accounts = Vec::new();
        for (at, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((principal, token)) = line.split_once(':') else {
                return Err(PageError::AccountLine {
                    line: at + 1,
                    why: "the line is not `principal:token`",
                });
            };
            accounts.push((
                at + 1,
                principal.trim().to_owned(),
                SecretString::from(token.trim()),
            ));
        }
        // Numbered by line, not by account: every rule checked here, before anything is built.
        let mut seen = std::collections::HashSet::new();
        for (line, principal, token) in &accounts {
            let why = account_rule(principal, token).err().or_else(|| {
                (!seen.insert(principal.as_str())).then_some("the principal is given twice")
            });
            if let Some(why) = why {
                return Err(PageError::AccountLine { line: *line, why });
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
    /// [`PageError::AccountsFile`] naming the file if it cannot be read;
    /// [`PageError::AccountsFileLine`] naming the file, the line (from 1) and the rule for a
    /// line that breaks one of [`from_lines`](TokenSignIn::from_lines)'s; as `from_lines` for
    /// the accounts in all.
    pub fn from_file(path: impl AsRef<std::path::Path>) -> Result<Self, PageError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|error| PageError::AccountsFile {
            path: path.to_owned(),
            error,
        })?;
        Self::from_lines(&secrecy::zeroize::Zeroizing::new(text)).map_err(|error| match error {
            PageError::AccountLine { line, why } => PageError::AccountsFileLine {
                path: path.to_owned(),
                line,
                why,
            },
            other => other,
        })
    }

    /// Whether `principal` has an account here. A stdio server checks its one user with it at
    /// start-up: a user without an account could never open their pages, and nothing else would
    /// say so before the first page.
    pub fn has_account(&self, principal: &str) -> bool {
        self.inner.accounts.contains_key(principal)
    }

    /// Keep a browser signed in for `ttl` (default [`DEFAULT_SESSION_TTL`](Self::DEFAULT_SESSION_TTL)).
    #[must_use]
    pub fn with_session_ttl(self, ttl: Duration) -> Self {
        let accounts = self.inner.accounts.clone();
        Self {
            inner: Arc::new(Inner {
                accounts,
                session_ttl: ttl,
                throttle: Mutex::new(Throttle::new(Instant::now())),
            }),
        }
    }
}

/// SHA-256 of `token`: what is kept and compared, so that a comparison takes as long whatever
/// the length of the token typed.
fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// The rules of an account: its principal (1 to [`TokenSignIn::MAX_PRINCIPAL_LEN`] printable
/// ASCII characters, no space, no `:`) and its token (at least
/// [`TokenSignIn::MIN_TOKEN_LEN`] characters).
fn account_rule(principal: &str, token: &SecretString) -> Result<(), &'static str> {
    if principal.is_empty() {
        return Err("the principal is empty");
    }
    if principal.len() > TokenSignIn::MAX_PRINCIPAL_LEN {
        return Err("the principal is longer than 256 characters");
    }
    if principal.contains(' ') {
        return Err("the principal has a space (a principal is printable ASCII without spaces)");
    }
    if principal.contains(':') {
        return Err("the principal has `:`, which ends a principal in `principal:token`");
    }
    if !principal.bytes().all(|byte| byte.is_ascii_graphic()) {
        return Err(
            "the principal has a character that is not printable ASCII (a look-alike letter \
             such as Cyrillic `а`, a zero-width or control character, a tab)",
        );
    }
    if token.expose_secret().is_empty() {
        return Err("the token is empty");
    }
    if token.expose_secret().chars().count() < TokenSignIn::MIN_TOKEN_LEN {
        return Err(
            "the token is shorter than 16 characters: give each account a long random token, \
             such as the output of `openssl rand -base64 24`",
        );
    }
    Ok(())
}

/// What a session keeps of its account's token: eight bytes of a digest of the token's digest,
/// sealed with the session. A session whose account's token changed (or that names an account
/// no longer there) opens to no one.
fn session_tag(token_digest: &[u8; 32]) -> [u8; 8] {
    let tag: [u8; 32] = Sha256::new()
        .chain_update(b"mcp-elicit token session\0")
        .chain_update(token_digest)
        .finalize()
        .into();
    let mut short = [0; 8];
    short.copy_from_slice(&tag[..8]);
    short
}

/// What the session cookie seals.
#[derive(Serialize, Deserialize)]
struct Session {
    /// The principal.
    p: String,
    /// The browser it was issued to ([`Browser`]'s digest).
    b: String,
    /// The account's token when the session began ([`session_tag`]).
    t: [u8; 8],
}

fn binding<'a>(place: &Place, what: &'a str, principal: &'a str) -> Binding<'a> {
    Binding {
        principal,
        method: what,
        params_digest: ParamsDigest::of(&json!(place.path)),
    }
}

impl Inner {
    /// `browser`'s session: one these pages sealed for that browser, whose account still holds
    /// its token, and that was not signed out (anywhere: the flows' store keeps the sessions
    /// signed out until they would have expired). A store that cannot say is a session not
    /// taken.
    async fn session(
        &self,
        place: &Place,
        headers: &HeaderMap,
        browser: &Browser,
    ) -> Option<OpenSession> {
        let binding = binding(place, "elicit/token-session", "");
        let now = UnixTime::now();
        let opened = place
            .cookies
            .values(headers, SESSION_COOKIE)
            .iter()
            .filter_map(|sealed| place.keys.open::<Session>(sealed, &binding, now).ok())
            .find(|opened| {
                opened.value().b == browser.digest && self.still_holds(opened.value())
            })?;
        OpenSession::unless_signed_out(opened, |session| session.p, place.flows.store(), now).await
    }

    /// Whether `session`'s account is still there with the token it was signed in with.
    fn still_holds(&self, session: &Session) -> bool {
        self.accounts
            .get(&session.p)
            .is_some_and(|token| bool::from(session_tag(token).ct_eq(&session.t)))
    }

    /// The digest of `principal`'s token, if `token` is it, compared in constant time.
    fn verify(&self, principal: &str, token: &str) -> Option<[u8; 32]> {
        let typed = digest(token);
        // An unknown principal is compared too, against a digest no token has (all zeros).
        let (expected, known) = match self.accounts.get(principal) {
            Some(expected) => (*expected, true),
            None => ([0; 32], false),
        };
        (bool::from(typed.ct_eq(&expected)) && known).then_some(expected)
    }

    /// The sign-out's form and its post, for this sign-in's session.
    fn sign_out<'a>(&self, place: &'a Place) -> SignOut<'a> {
        SignOut {
            path: &place.path,
            origin: &place.origin,
            keys: &place.keys,
            cookies: &place.cookies,
            method: "elicit/token-sign-out",
            params_digest: ParamsDigest::of(&json!(place.path)),
            ttl: self.session_ttl,
            store: place.flows.store().as_ref(),
        }
    }
}

/// The most names the throttle remembers at once. Only a name with failures not yet forgiven is
/// kept, and [`TokenSignIn::FAILURES_IN_ALL`] bounds how many those can be (about two hundred:
/// fifty, and thirty a minute for the five minutes a name takes to be forgiven all), so this
/// is never reached by guessing alone; if it were, sign-ins would be refused, not remembered.
const MAX_THROTTLED_NAMES: usize = 4096;

/// Failed sign-ins, forgiven one at a time at a steady rate.
#[derive(Clone, Copy)]
struct Failures {
    count: u32,
    /// When the last one was forgiven (or the first counted, from none).
    since: Instant,
}

impl Failures {
    fn none(now: Instant) -> Self {
        Self {
            count: 0,
            since: now,
        }
    }

    /// These failures at `now`, with one forgiven for each `every` that passed.
    fn at(self, now: Instant, every: Duration) -> Self {
        let passed = now.saturating_duration_since(self.since);
        let forgiven = u32::try_from(passed.as_nanos() / every.as_nanos().max(1))
            .unwrap_or(u32::MAX)
            .min(self.count);
        if forgiven == self.count {
            return Self::none(now);
        }
        Self {
            count: self.count - forgiven,
            since: self.since + every * forgiven,
        }
    }

    /// How long until the next one is forgiven.
    fn wait(self, now: Instant, every: Duration) -> Duration {
        every.saturating_sub(now.saturating_duration_since(self.since))
    }
}

/// The failed sign-ins lately: per name typed (keyed by its digest, so a name's length costs
/// nothing), and in all. A sign-in is counted as failed when it starts, and forgiven when it
/// succeeds, so that many sent at once are bounded too.
struct Throttle {
    names: HashMap<[u8; 32], Failures>,
    all: Failures,
}

impl Throttle {
    fn new(now: Instant) -> Self {
        Self {
            names: HashMap::new(),
            all: Failures::none(now),
        }
    }

    /// Count a sign-in for `name` as failed unless it succeeds, or, when too many have failed
    /// (for this name or in all), refuse it: how long to wait.
    fn begin(&mut self, name: &[u8; 32], now: Instant) -> Result<(), Duration> {
        let name_every = TokenSignIn::NAME_FAILURE_FORGIVEN_EVERY;
        let all_every = TokenSignIn::FAILURE_FORGIVEN_EVERY;
        self.all = self.all.at(now, all_every);
        if self.all.count >= TokenSignIn::FAILURES_IN_ALL {
            return Err(self.all.wait(now, all_every));
        }
        let failures = self
            .names
            .get(name)
            .map_or(Failures::none(now), |failures| failures.at(now, name_every));
        if failures.count >= TokenSignIn::FAILURES_PER_NAME {
            return Err(failures.wait(now, name_every));
        }
        if !self.names.contains_key(name) && self.names.len() >= MAX_THROTTLED_NAMES {
            self.names
                .retain(|_, failures| failures.at(now, name_every).count > 0);
            if self.names.len() >= MAX_THROTTLED_NAMES {
                return Err(all_every);
            }
        }
        self.names.insert(
            *name,
            Failures {
                count: failures.count + 1,
                since: failures.since,
            },
        );
        self.all.count += 1;
        Ok(())
    }

    /// The sign-in for `name` that [`begin`](Throttle::begin) counted succeeded: the name's
    /// failures are forgotten, and this one is not counted in all.
    fn succeeded(&mut self, name: &[u8; 32]) {
        self.names.remove(name);
        self.all.count = self.all.count.saturating_sub(1);
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
            match self.inner.session(place, &request.headers, browser).await {
                Some(current) => Ok(SignedIn::new(current.principal)
                    .with_sign_out(format!("{}signout", place.path))),
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
    let token = FormToken::seal(
        &place.keys,
        browser,
        &binding(place, "elicit/token-sign-in", ""),
        FORM_TTL,
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
    let valid = FormToken::opens(
        &place.keys,
        field(CSRF_FIELD),
        browser,
        &binding(place, "elicit/token-sign-in", ""),
    );
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
    // Throttled by the name typed, whether or not an account has it, before the token is read.
    let name = digest(&principal);
    let begun = inner
        .throttle
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .begin(&name, Instant::now());
    if let Err(wait) = begun {
        events::page_refused(
            Check::Identity,
            None,
            None,
            None,
            "a sign-in refused: too many have failed lately",
        );
        let minutes = wait.as_secs().div_ceil(60).max(1);
        let mut refused = sign_in_form(
            place,
            browser,
            &next,
            Some(&format!(
                "Too many sign-ins have failed here lately. Wait {} and try again.",
                if minutes == 1 {
                    "a minute".to_owned()
                } else {
                    format!("{minutes} minutes")
                }
            )),
        );
        *refused.status_mut() = StatusCode::TOO_MANY_REQUESTS;
        refused.headers_mut().insert(
            header::RETRY_AFTER,
            HeaderValue::from(wait.as_secs().max(1)),
        );
        return refused;
    }
    let Some(token_digest) = inner.verify(&principal, field(TOKEN_FIELD).unwrap_or("")) else {
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
    };
    inner
        .throttle
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .succeeded(&name);
    let session = Session {
        p: principal,
        b: browser.digest.clone(),
        t: session_tag(&token_digest),
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
    let Some(browser) = parts.extensions.get::<Browser>() else {
        return inner.sign_out(place).page(None);
    };
    let current = inner.session(place, &parts.headers, browser).await;
    inner
        .sign_out(place)
        .page(current.map(|current| (current.principal, browser)))
}

/// The sign-out form, posted: the session is ended in the flows' store until it would have
/// expired (so a copy of its cookie, anywhere, opens nothing), its cookie is cleared, and the
/// page says so.
async fn sign_out(
    axum::extract::State(inner): axum::extract::State<Arc<Inner>>,
    parts: Parts,
    body: axum::body::Bytes,
) -> Response {
    let place = match place(&parts) {
        Ok(place) => place,
        Err(refused) => return refused,
    };
    let browser = parts.extensions.get::<Browser>();
    let current = match browser {
        Some(browser) => inner.session(place, &parts.headers, browser).await,
        None => None,
    };
    let signed_in = current.zip(browser);
    inner.sign_out(place).post(&parts, &body, signed_in).await
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
