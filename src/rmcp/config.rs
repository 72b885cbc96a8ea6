//! [`AskConfig`]: how a server asks, set once at start-up: the keys its round state is sealed
//! with, who is asking, and how long to wait.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use ::rmcp::service::RequestContext;
use ::rmcp::{ErrorData, RoleServer};

use crate::hosts::HostTable;
use crate::mrtr::Rounds;
use crate::observe::{ClientNames, TooFast};
use crate::state::{KeyError, MemoryReplayGuard};
use crate::url_mode::{Flow, Flows};

#[cfg(any(feature = "http", feature = "page"))]
use super::principal::HttpPrincipal;

/// How a server asks from its handlers: the keys its 2026-07-28 round state is sealed with, who
/// is asking, how often an answer that breaks a form's rules is asked again, and how long to wait
/// for an answer. Made once at start-up; cheap to clone.
///
/// - [`single_user`](AskConfig::single_user): a server with one user, the one who started it
///   (stdio), named by the server; keys generated for the life of the process.
/// - [`per_http_user`](AskConfig::per_http_user): a server behind authentication over
///   streamable HTTP ([`per_user`](AskConfig::per_user) on another transport). Round state
///   opens only for the principal that was asked, and keys come from the environment or a
///   secret store, shared by every replica.
///
/// ```
/// use mcp_elicit::mrtr::Rounds;
/// use mcp_elicit::rmcp::AskConfig;
///
/// // A stdio server: one call.
/// let asking = AskConfig::single_user("me")?;
/// assert_eq!(asking.rounds().reasks(), 1);
/// # Ok::<(), mcp_elicit::rmcp::AskConfigError>(())
/// ```
#[derive(Clone)]
pub struct AskConfig {
    pub(super) rounds: Arc<Rounds>,
    principal: Principal,
    pub(super) timeout: Duration,
    /// 2026-07-28: how long a retry that accepted a URL flow's question waits for its page
    /// ([`with_page_wait`](AskConfig::with_page_wait)).
    pub(super) page_wait: Duration,
    /// How often a waiting call sends progress to keep the client waiting; `None`: never.
    pub(super) keep_alive: Option<Duration>,
    /// Where URL flows are kept and their pages served ([`with_flows`](AskConfig::with_flows)).
    pub(super) flows: Option<Flows>,
    /// The clients counted by name ([`with_client_names`](AskConfig::with_client_names)).
    pub(super) client_names: Arc<ClientNames>,
    /// How fast is faster than a person ([`with_too_fast`](AskConfig::with_too_fast)).
    pub(super) too_fast: TooFast,
    /// What each known host draws and needs ([`with_hosts`](AskConfig::with_hosts)).
    pub(super) hosts: HostTable,
    /// Whether a URL step is carried in a form where the client cannot take the URL question
    /// ([`with_link_form`](AskConfig::with_link_form)).
    pub(super) link_form: super::link_form::LinkForm,
}

/// Why an [`AskConfig`] could not be made.
#[derive(Debug)]
#[non_exhaustive]
pub enum AskConfigError {
    /// The keys its round state is sealed with could not be made.
    Keys(KeyError),
    /// The single user's principal ([`single_user`](AskConfig::single_user)) is empty or only
    /// white space: it would name no one, and every page would refuse them.
    EmptyPrincipal,
}

impl fmt::Display for AskConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AskConfigError::Keys(error) => fmt::Display::fmt(error, f),
            AskConfigError::EmptyPrincipal => f.write_str(
                "the single user's principal is empty or only white space: name the user \
                 (`AskConfig::single_user(\"me\")`), with the name their pages' identity gives",
            ),
        }
    }
}

impl std::error::Error for AskConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AskConfigError::Keys(error) => Some(error),
            AskConfigError::EmptyPrincipal => None,
        }
    }
}

impl From<KeyError> for AskConfigError {
    fn from(error: KeyError) -> Self {
        AskConfigError::Keys(error)
    }
}

/// `user`, the single user's principal, unless it [names no one](Flow::names_no_one).
fn single_user_name(user: String) -> Result<String, AskConfigError> {
    if Flow::names_no_one(&user) {
        return Err(AskConfigError::EmptyPrincipal);
    }
    Ok(user)
}

/// Who is asking, for the binding of round state.
#[derive(Clone)]
enum Principal {
    /// One user, by the server's name for them: every request is theirs.
    Single(String),
    /// Read from each request; `None` refuses the request.
    PerRequest(Arc<PrincipalFn>),
    /// Read from the HTTP request each request came in; `None` refuses the request.
    #[cfg(any(feature = "http", feature = "page"))]
    PerHttpRequest(HttpPrincipal),
}

type PrincipalFn = dyn Fn(&RequestContext<RoleServer>) -> Option<String> + Send + Sync;

impl fmt::Debug for AskConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AskConfig")
            .field("rounds", &self.rounds)
            .field(
                "principal",
                &match self.principal {
                    Principal::Single(_) => "single user",
                    Principal::PerRequest(_) => "per request",
                    #[cfg(any(feature = "http", feature = "page"))]
                    Principal::PerHttpRequest(_) => "per HTTP request",
                },
            )
            .field("timeout", &self.timeout)
            .field("page_wait", &self.page_wait)
            .field("keep_alive", &self.keep_alive)
            .field("flows", &self.flows)
            .field("client_names", &self.client_names)
            .field("too_fast", &self.too_fast)
            .finish()
    }
}

impl AskConfig {
    /// How long to wait for an answer (before 2026-07-28) before it counts as
    /// [`Elicitation::NoReply`](crate::Elicitation::NoReply): time for a person to read and fill
    /// in a short form.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

    /// How often a call that waits for its user sends a keep-alive
    /// ([`with_keep_alive`](AskConfig::with_keep_alive)): on by default, every 15 s. The default
    /// wait ([`DEFAULT_TIMEOUT`](Self::DEFAULT_TIMEOUT), 10 minutes) is far longer than the
    /// request timeouts clients set (the TypeScript SDK's is 60 s): without progress, a client
    /// that resets its timeout on progress gives up on the call long before the user could have
    /// answered. A quarter of that 60 s leaves room for a late notification; the cost is one
    /// small notification per waiting call every 15 s, and only to a client that asked for
    /// progress.
    pub const DEFAULT_KEEP_ALIVE: Duration = Duration::from_secs(15);

    /// How long a 2026-07-28 retry that accepted a URL flow's question waits for the page
    /// before it asks again ([`with_page_wait`](AskConfig::with_page_wait)): 30 s.
    ///
    /// Hosts give up on a request after 60 s (the TypeScript SDK's default request timeout,
    /// which the MCP Inspector keeps; a timed-out request is cancelled and never retried with
    /// its state). The retry must answer well before that: the re-ask it sends at the bound
    /// carries the next round's state, and the client's timer started before the request
    /// reached the server. Half the 60 s leaves the other half for the network, a slow store,
    /// a client whose timer runs fast, and a host that shows the re-ask before it retries; a
    /// keep-alive at [`DEFAULT_KEEP_ALIVE`](Self::DEFAULT_KEEP_ALIVE) goes out once in the
    /// wait, for a client that resets its timeout on progress. Shorter waits only make more
    /// rounds: a person finishing a page takes tens of seconds, so 30 s sees most pages
    /// finished in one or two retries.
    pub const DEFAULT_PAGE_WAIT: Duration = Duration::from_secs(30);

    /// For a server with one user — a stdio server, started by the client of the person it
    /// serves — whom the server names `user`: the principal its round state is sealed for and
    /// its URL flows are kept under, and so the name its pages' identity must give
    /// ([`SingleUser::named`](crate::page::SingleUser::named) with the same name, or the
    /// account a [`TokenSignIn`](crate::page::TokenSignIn) signs in). Round state is sealed with a key generated now, for the life of the process: a
    /// restart drops the questions in flight (the client asks again), and nothing needs
    /// storing. Every round's state is single use, in a [`MemoryReplayGuard`]
    /// ([`Rounds::with_replay_guard`]): a replayed retry is refused.
    ///
    /// Not for a server that several people reach (streamable HTTP): with one principal, a
    /// round's state would open for any of them. Use [`per_user`](AskConfig::per_user) there.
    ///
    /// # Errors
    /// [`AskConfigError::EmptyPrincipal`] if `user` is empty or only white space;
    /// [`AskConfigError::Keys`] ([`KeyError::RandomnessUnavailable`]) if the operating system
    /// has no randomness to give.
    pub fn single_user(user: impl Into<String>) -> Result<Self, AskConfigError> {
        let user = single_user_name(user.into())?;
        // One user: the whole guard is theirs.
        let guard =
            MemoryReplayGuard::new().with_max_per_principal(MemoryReplayGuard::DEFAULT_MAX_ENTRIES);
        let rounds = Rounds::generate()?.with_replay_guard(guard);
        Ok(Self::with_principal(rounds, Principal::Single(user)))
    }

    /// [`single_user`](AskConfig::single_user) with rounds set up by the caller, e.g. keys kept
    /// across restarts ([`StateKeys::from_env`](crate::state::StateKeys::from_env)) or a
    /// different [`with_reasks`](Rounds::with_reasks).
    ///
    /// # Errors
    /// [`AskConfigError::EmptyPrincipal`] if `user` is empty or only white space.
    pub fn single_user_with(
        user: impl Into<String>,
        rounds: Rounds,
    ) -> Result<Self, AskConfigError> {
        Ok(Self::with_principal(
            rounds,
            Principal::Single(single_user_name(user.into())?),
        ))
    }

    /// For a server that several people reach: `principal` names who is asking, from the MCP
    /// request (its `_meta`, its extensions, or those of the HTTP request it came in, with
    /// [`request_extension`]). Round state opens only for the same principal and the same call.
    /// Where it returns `None` (or a name that [names no one](crate::url_mode::Flow::names_no_one):
    /// empty, or only white space), a 2026-07-28 question (whose round state is sealed for its
    /// principal) and a URL flow (bound to its user) are refused (`-32600`) before anything is
    /// asked; a form asked before 2026-07-28 seals nothing and needs no principal.
    ///
    /// **Over streamable HTTP, use [`per_http_user`](AskConfig::per_http_user)** instead: its
    /// function reads the HTTP request, so the same one also binds each session to the
    /// principal that opened it ([`SessionBinding::BoundTo`](super::SessionBinding::BoundTo)),
    /// which a function of the MCP request cannot do (an elicitation answer carries none).
    /// `per_user` is for the other transports (a stdio or in-process server whose requests
    /// name their principal in `_meta`, say).
    ///
    /// **A replay guard is the caller's to give** (the example does): without
    /// [`Rounds::with_replay_guard`] a round's state resumes as often as it is sent while it is
    /// open, so a replayed retry would reset the re-ask count or act on an accept twice.
    /// `per_user` does not refuse rounds without one, by decision: which guard is right is the
    /// deployment's (a [`MemoryReplayGuard`] for one process, a `RedisReplayGuard` for a
    /// fleet, which `per_user` cannot build), and a tool that reads answers sent before it asked
    /// ([`Ask::answerable_before_asked`](crate::mrtr::Ask::answerable_before_asked)) needs rounds
    /// without one. A server can check its rounds at start-up with
    /// [`Rounds::has_replay_guard`]. ([`single_user`](AskConfig::single_user), one process,
    /// sets a [`MemoryReplayGuard`] itself.)
    ///
    /// ```no_run
    /// use mcp_elicit::mrtr::Rounds;
    /// use mcp_elicit::rmcp::AskConfig;
    /// use mcp_elicit::state::{MemoryReplayGuard, StateKeys};
    ///
    /// // Every replica loads the same keys: `2:<hex of 32 bytes>,1:<the previous key>`; one
    /// // process spends each round's state once in memory (a fleet: a `RedisReplayGuard`).
    /// let rounds = Rounds::new(StateKeys::from_env("ELICIT_STATE_KEYS")?)
    ///     .with_replay_guard(MemoryReplayGuard::new());
    /// // The principal, as the client's transport names it in each request's `_meta`.
    /// let asking = AskConfig::per_user(rounds, |request| {
    ///     request.meta.get("example.com/principal")?.as_str().map(str::to_owned)
    /// });
    /// assert!(asking.rounds().has_replay_guard());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn per_user(
        rounds: Rounds,
        principal: impl Fn(&RequestContext<RoleServer>) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        Self::with_principal(rounds, Principal::PerRequest(Arc::new(principal)))
    }

    /// For a server that several people reach over streamable HTTP (cargo feature `http` or
    /// `page`): as [`per_user`](AskConfig::per_user), the principal named by `principal` from
    /// the HTTP request each MCP request came in (rmcp's streamable HTTP service keeps its
    /// `http::request::Parts` in the MCP request's extensions). A request that came in no HTTP
    /// request names no principal. Give the same [`HttpPrincipal`] to `AskingHttpService`'s
    /// [`SessionBinding::BoundTo`](super::SessionBinding::BoundTo), so that one function names
    /// who asks and who may answer on a session. The replay guard is the caller's to give, as
    /// for `per_user`.
    ///
    /// ```no_run
    /// use mcp_elicit::mrtr::Rounds;
    /// use mcp_elicit::rmcp::{AskConfig, HttpPrincipal};
    /// use mcp_elicit::state::{MemoryReplayGuard, StateKeys};
    ///
    /// /// What the server's authentication layer (an axum middleware, say) leaves in each HTTP
    /// /// request's extensions.
    /// #[derive(Clone)]
    /// struct Subject(String);
    ///
    /// let principal = HttpPrincipal::new(|request| {
    ///     request.extensions.get::<Subject>().map(|subject| subject.0.clone())
    /// });
    /// let rounds = Rounds::new(StateKeys::from_env("ELICIT_STATE_KEYS")?)
    ///     .with_replay_guard(MemoryReplayGuard::new());
    /// let asking = AskConfig::per_http_user(rounds, principal.clone());
    /// # let _ = asking;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(any(feature = "http", feature = "page"))]
    pub fn per_http_user(rounds: Rounds, principal: HttpPrincipal) -> Self {
        Self::with_principal(rounds, Principal::PerHttpRequest(principal))
    }

    fn with_principal(rounds: Rounds, principal: Principal) -> Self {
        Self {
            rounds: Arc::new(rounds),
            principal,
            timeout: Self::DEFAULT_TIMEOUT,
            page_wait: Self::DEFAULT_PAGE_WAIT,
            keep_alive: Some(Self::DEFAULT_KEEP_ALIVE),
            flows: None,
            client_names: Arc::default(),
            hosts: HostTable::known(),
            too_fast: TooFast::DEFAULT,
            link_form: super::link_form::LinkForm::HostsCheckedInCi,
        }
    }

    /// Wait at most `timeout` for each answer (before 2026-07-28). The deadline is the
    /// server's: when it passes, the tool sees [`Elicitation::NoReply`](crate::Elicitation::NoReply)
    /// (a URL flow's page, [`FlowOutcome::NotFinished`](crate::url_mode::FlowOutcome::NotFinished)),
    /// whatever keep-alives were sent.
    ///
    /// The hosts' own timeouts are shorter: 60 s per request in the TypeScript SDK's clients
    /// (longer with `resetTimeoutOnProgress`, which the keep-alive serves), and 60 s in all in
    /// MCP Inspector 1.x, which then sends no cancel. A host that never answers (Cursor) ends
    /// here. The default stays at 10 minutes, for the person on a sign-in or payment page; the
    /// guide [`hosts`](super::hosts) has the table. On 2026-07-28 nothing waits: what a silent
    /// host leaves is a `requestState` and a flow, each expiring on its own.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// While a call waits for its user (before 2026-07-28: a form or URL question, and a URL
    /// flow's page; on 2026-07-28: a retry waiting for a URL flow's page), send
    /// `notifications/progress` on the call's progress token every `interval` ([`DEFAULT_KEEP_ALIVE`](Self::DEFAULT_KEEP_ALIVE), 15 s, by default), so that
    /// a client that resets its request timeout on progress (the TypeScript SDK's
    /// `resetTimeoutOnProgress`) keeps the call open until the user answers or
    /// [`with_timeout`](Self::with_timeout)'s deadline passes.
    ///
    /// Each notification's `progress` is one more than the last one of the call (1, 2, 3, …,
    /// with no `total`) and its `message` is `"waiting for the user to answer"`. None is sent
    /// when the request carries no `_meta.progressToken`, after the answer arrives, after the
    /// client cancels the call, or after the deadline. On 2026-07-28 only a URL flow's page is
    /// waited for on the server ([`with_page_wait`](Self::with_page_wait)); every other question
    /// goes back to the client in the call's result at once. A zero
    /// `interval` sends none, as [`without_keep_alive`](Self::without_keep_alive).
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_elicit::rmcp::AskConfig;
    ///
    /// let asking = AskConfig::single_user("me")?
    ///     .with_timeout(Duration::from_secs(300))
    ///     .with_keep_alive(Duration::from_secs(10));
    /// # let _ = asking;
    /// # Ok::<(), mcp_elicit::rmcp::AskConfigError>(())
    /// ```
    #[must_use]
    pub fn with_keep_alive(mut self, interval: Duration) -> Self {
        self.keep_alive = Some(interval).filter(|interval| !interval.is_zero());
        self
    }

    /// On 2026-07-28, and for a link form on any revision, wait at most `wait` for a URL
    /// flow's page when the client accepts its question before the page is finished
    /// ([`Asker::url_flow`](super::Asker::url_flow); default
    /// [`DEFAULT_PAGE_WAIT`](Self::DEFAULT_PAGE_WAIT), which says why 30 s). Never past the
    /// flow's expiry. Keep it well under the request timeout of the clients you serve: a retry
    /// whose client gave up cannot be retried with the same state while a replay guard is on.
    /// (Before 2026-07-28 a URL question's page is waited for within
    /// [`with_timeout`](Self::with_timeout); a link form's, `wait` at a time, then the form is
    /// asked again saying the step is not finished, within that timeout.)
    #[must_use]
    pub fn with_page_wait(mut self, wait: Duration) -> Self {
        self.page_wait = wait;
        self
    }

    /// Send no keep-alive progress: a client with a request timeout shorter than the user takes
    /// gives up on the call (`-32001` in the TypeScript SDK) while the server still waits.
    #[must_use]
    pub fn without_keep_alive(mut self) -> Self {
        self.keep_alive = None;
        self
    }

    /// Ask URL questions that start [flows](crate::url_mode::Flows) ([`Asker::url_flow`](super::Asker::url_flow)):
    /// kept in `flows`' store, each bound to the principal this configuration names and to the
    /// call, finished by the page served under `flows`' base.
    #[must_use]
    pub fn with_flows(mut self, flows: Flows) -> Self {
        self.flows = Some(flows);
        self
    }

    /// Ask URL questions that `pages` finish: [`with_flows`](AskConfig::with_flows) with the
    /// pages' own flows, so they are configured once, where the pages are made
    /// ([`Pages::new`](crate::page::Pages::new), or
    /// [`Pages::bind_loopback`](crate::page::Pages::bind_loopback), which makes them). Set the
    /// pages' flow TTL ([`Pages::with_flow_ttl`](crate::page::Pages::with_flow_ttl)) before.
    ///
    /// ```no_run
    /// use mcp_elicit::page::Pages;
    /// use mcp_elicit::rmcp::AskConfig;
    ///
    /// # async fn start() -> Result<(), Box<dyn std::error::Error>> {
    /// let pages = Pages::bind_loopback("me").await?;
    /// let asking = AskConfig::single_user("me")?.with_pages(&pages);
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(feature = "page")]
    #[must_use]
    pub fn with_pages(self, pages: &crate::page::Pages) -> Self {
        self.with_flows(pages.flows().clone())
    }

    /// Count asks and answers under the client's name when it is one of `names`
    /// ([`observe`](crate::observe)): the `client` label is then a name of the list, `"other"`
    /// for any other client, `"unknown"` for a request without `clientInfo`. By default the list
    /// is empty, and every named client is `"other"`.
    ///
    /// ```
    /// use mcp_elicit::observe::ClientNames;
    /// use mcp_elicit::rmcp::AskConfig;
    ///
    /// let asking = AskConfig::single_user("me")?
    ///     .with_client_names(ClientNames::new(["claude-code", "cursor", "vscode"]));
    /// # let _ = asking;
    /// # Ok::<(), mcp_elicit::rmcp::AskConfigError>(())
    /// ```
    #[must_use]
    pub fn with_client_names(mut self, names: ClientNames) -> Self {
        self.client_names = Arc::new(names);
        self
    }

    /// Count an answer as too fast for a person (`elicit_answered_too_fast_total`) below
    /// `too_fast`'s threshold for its form ([`TooFast::DEFAULT`] by default: 1 s plus 250 ms a
    /// field), on every revision: before 2026-07-28 timed while the call waits for it, on
    /// 2026-07-28 from the round that asked to the retry that answers (the time the round asked
    /// travels sealed in its `requestState`, so the retry may land on any replica). A consent
    /// accepted faster than that is not taken, on either ([`Stop::AutomaticConsent`](super::Stop)),
    /// and a link form accepted faster than that was not shown by its host
    /// ([`Stop::LinkFormNotShown`](super::Stop)).
    #[must_use]
    pub fn with_too_fast(mut self, too_fast: TooFast) -> Self {
        self.too_fast = too_fast;
        self
    }

    /// Look each client up in `hosts` ([`HostTable::known`] by default): a host that cannot
    /// draw a field kind is asked that field in a kind it draws, and the tool gets the same
    /// typed value, read by the same rules (the guide [`hosts`](super::hosts) says what each
    /// host gets). [`HostTable::off`] turns it off: every client is asked as if the library
    /// knew no host. [`HostTable::with_host`] adds a host, or replaces a known row.
    ///
    /// ```
    /// use mcp_elicit::hosts::HostTable;
    /// use mcp_elicit::rmcp::AskConfig;
    /// let asking = AskConfig::single_user("me")?.with_hosts(HostTable::off());
    /// assert!(asking.hosts().is_off());
    /// # Ok::<(), mcp_elicit::rmcp::AskConfigError>(())
    /// ```
    #[must_use]
    pub fn with_hosts(mut self, hosts: HostTable) -> Self {
        self.hosts = hosts;
        self
    }

    /// Whether `Asker::url_flow` carries its step in a link form, a form with no field (the
    /// page's URL in its message), where the client cannot take the URL question (on every
    /// revision; on 2026-07-28 the way it was asked is sealed in the round's state), as
    /// [`link_form_reason`](super::link_form_reason) decides:
    /// [`LinkForm::HostsCheckedInCi`](super::LinkForm::HostsCheckedInCi) by default,
    /// [`LinkForm::Off`](super::LinkForm::Off) for what a server got before (the client cannot
    /// be asked: [`Stop::CannotAsk`](super::Stop::CannotAsk)).
    #[must_use]
    pub fn with_link_form(mut self, link_form: super::link_form::LinkForm) -> Self {
        self.link_form = link_form;
        self
    }

    /// The host table clients are looked up in ([`with_hosts`](AskConfig::with_hosts)).
    pub fn hosts(&self) -> &HostTable {
        &self.hosts
    }

    /// The rounds: their keys, TTL and re-asks.
    pub fn rounds(&self) -> &Rounds {
        &self.rounds
    }

    /// Refuses to ask on a request served by an `AskingHttpService` built with
    /// [`SessionBinding::Unbound`](super::SessionBinding::Unbound) when this configuration names
    /// its users per request: on such a session another user could answer (before 2026-07-28 an
    /// answer is a response posted to the session). Checked before anything is asked, a form
    /// before 2026-07-28 included, which needs no principal of its own.
    pub(super) fn refuse_unbound_sessions(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        #[cfg(feature = "http")]
        if !matches!(self.principal, Principal::Single(_))
            && request_extension::<ServedUnbound>(context).is_some()
        {
            tracing::error!(
                target: crate::events::SESSION,
                check = "identity",
                "a question refused: this AskConfig names its users per request, and its \
                 AskingHttpService was built with SessionBinding::Unbound, so another user \
                 holding the session's id could answer; build it with SessionBinding::BoundTo \
                 the same HttpPrincipal"
            );
            return Err(per_user_on_unbound_sessions());
        }
        #[cfg(not(feature = "http"))]
        let _ = context;
        Ok(())
    }

    pub(super) fn principal_of(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<String, ErrorData> {
        match &self.principal {
            Principal::Single(user) => Ok(user.clone()),
            // A name that names no one (empty, white space) is no principal: round state sealed
            // for it would open for every request that names no one the same way.
            Principal::PerRequest(principal) => principal(context)
                .filter(|name| !Flow::names_no_one(name))
                .ok_or_else(no_principal),
            #[cfg(any(feature = "http", feature = "page"))]
            Principal::PerHttpRequest(principal) => {
                principal.of_request(context).ok_or_else(no_principal)
            }
        }
    }
}

/// The refusal of a question asked by an `AskConfig` that names users per request, on a request
/// an `AskingHttpService` with [`SessionBinding::Unbound`](super::SessionBinding::Unbound) served.
#[cfg(feature = "http")]
fn per_user_on_unbound_sessions() -> ErrorData {
    ErrorData::internal_error(
        "this server names its users per request (`AskConfig::per_http_user` or `per_user`), \
         and its `AskingHttpService` was built with `SessionBinding::Unbound`, whose sessions \
         bind nothing: another user holding this session's id could answer this user's \
         question, so nothing is asked. Build the service with `SessionBinding::BoundTo` the \
         same `HttpPrincipal` (or, for a server one user reaches, use `AskConfig::single_user`)",
        None,
    )
}

fn no_principal() -> ErrorData {
    ErrorData::invalid_request(
        "this tool asks its user, and the request names no authenticated principal",
        None,
    )
}

/// A value of type `T` that the layers in front of the server left on this request: in the
/// request's own extensions, or (over streamable HTTP, cargo feature `http`) in those of the
/// HTTP request, which rmcp's `StreamableHttpService` keeps in the request's extensions as
/// `http::request::Parts`. An axum middleware's `request.extensions_mut().insert(..)` lands in
/// the second.
pub fn request_extension<T: Send + Sync + 'static>(
    request: &RequestContext<RoleServer>,
) -> Option<&T> {
    if let Some(value) = request.extensions.get::<T>() {
        return Some(value);
    }
    #[cfg(feature = "http")]
    if let Some(parts) = request.extensions.get::<http::request::Parts>() {
        return parts.extensions.get::<T>();
    }
    None
}

/// The mark an `AskingHttpService` built with `SessionBinding::Unbound` leaves on each HTTP
/// request it serves (rmcp keeps the request's parts, this mark with them, in each MCP request's
/// extensions): an [`AskConfig`] that names its users per request refuses to
/// ask on such a request, since any holder of the session's id could answer.
#[cfg(feature = "http")]
#[derive(Clone, Copy, Debug)]
pub(super) struct ServedUnbound;
