//! [`TestKit`]: a server's tools, called in process by a scripted user, in `cargo test`.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use ::rmcp::model::{CallToolRequestParams, CallToolResult, DEFAULT_MRTR_MAX_ROUNDS};
use ::rmcp::service::{RunningService, ServiceError};
use ::rmcp::{ErrorData, RoleClient, ServerHandler, ServiceExt};
use serde_json::Value;
use tokio::io::DuplexStream;
use tokio::task::JoinHandle;

use super::client::AnsweringClient;
use super::convert::revision;
use super::handler::AskingHandler;
use super::profile::{Pace, Profile};
use super::wire::AskingService;
use crate::Revision;
use crate::client::{Answerer, WrongMode};

/// The test kit of a server's tools: it serves the server as its transport will
/// ([`served_as`](TestKit::served_as): through [`AskingService`] as over stdio, the default, or
/// as `AskingHttpService` has rmcp's `StreamableHttpService` serve it) and connects an [`AnsweringClient`] of a
/// given answerer to it in process, over an in-memory duplex stream, on a given revision. Then
/// [`call`](Connected::call) a tool and assert on what it returned and on what the answerer was
/// asked ([`Scripted::seen`](crate::client::Scripted::seen)).
///
/// - **2025-06-18 and 2025-11-25**: the client opens the session with `initialize`, asking for
///   that protocol version. The tool asks with `elicitation/create` inside the call.
/// - **2026-07-28**: the client opens the session with `server/discover`. The tool returns an
///   input-required result; rmcp's client answers it through the answerer and retries, round
///   after round, until the tool's result (at most [`with_max_rounds`](TestKit::with_max_rounds)
///   calls).
///
/// # A user who does not answer
///
/// Every call has a wait ([`with_wait`](TestKit::with_wait), [`DEFAULT_WAIT`](Self::DEFAULT_WAIT)
/// by default). What a silent user ([`Step::Silence`](crate::client::Step::Silence)) means
/// depends on the revision:
///
/// - **2025-06-18 and 2025-11-25**: the client sends no response, and the server's own timeout
///   decides ([`AskConfig::with_timeout`](super::AskConfig::with_timeout), 10 minutes by
///   default): the tool sees [`Elicitation::NoReply`](crate::Elicitation::NoReply) and
///   [`call`](Connected::call) returns what it made of it, if the server's timeout is the
///   shorter of the two. Otherwise the kit stops waiting first: [`KitError::Unanswered`].
/// - **2026-07-28**: nothing waits on the server for an answer that never comes (a retry that
///   accepts an unfinished URL page waits for it, but here no retry comes). The tool returned
///   its input-required result and is done; the client never retries, so the call never ends
///   and the tool's `NoReply` branch never runs. [`call`](Connected::call) returns
///   [`KitError::Unanswered`] after the kit's wait: assert on it, and on the request the user
///   was shown.
///
/// # The hosts your users have, and how fast the user answers
///
/// [`Profile::kit`](super::Profile::kit) is a kit that connects as one real host (Claude Code,
/// VS Code, Cursor, Codex, GitHub Copilot CLI, MCP Inspector 1.x, fast-agent, or a well-behaved
/// host per revision) by that host's one documented rule; loop over
/// [`Profile::ALL`](super::Profile::ALL) to test a tool in each (the guide
/// [`hosts`](super::hosts)). The user answers at once by default; [`with_pace`](TestKit::with_pace)
/// gives them a person's time ([`Pace::PERSON`]), which a consent needs.
///
/// In a `#[tokio::test(start_paused = true)]` (tokio's `test-util` feature) neither wait takes
/// any time: tokio's clock jumps ahead whenever every task is waiting. Outside it, set short
/// waits ([`with_wait`](TestKit::with_wait), the server's timeout).
///
/// # Example
///
/// ```
/// use std::sync::Arc;
///
/// use mcp_elicit::client::{Scripted, Step};
/// use mcp_elicit::rmcp::{AskConfig, Asker, TestKit, respond};
/// use mcp_elicit::{Elicit, Elicitation, Revision};
/// use rmcp::model::{CallToolRequestParams, CallToolResponse};
/// use rmcp::service::RequestContext;
/// use rmcp::{ErrorData, RoleServer, ServerHandler};
/// use serde_json::json;
///
/// /// For how many?
/// #[derive(Elicit)]
/// struct Party {
///     #[elicit(minimum = 1, maximum = 12)]
///     size: u8,
/// }
///
/// // A hand-written server, to keep rmcp's macros out of this example; a `#[tool_router]`
/// // server is tested the same way.
/// struct Restaurant {
///     asking: AskConfig,
/// }
///
/// impl ServerHandler for Restaurant {
///     async fn call_tool(
///         &self,
///         request: CallToolRequestParams,
///         context: RequestContext<RoleServer>,
///     ) -> Result<CallToolResponse, ErrorData> {
///         let mut asker = Asker::for_tool_call(&self.asking, &request, &context)?;
///         respond(async {
///             Ok(match asker.form::<Party>().await? {
///                 Elicitation::Accept(party) => format!("A table for {}.", party.size),
///                 _ => "Nothing was booked.".to_owned(),
///             })
///         })
///         .await
///     }
/// }
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # tokio::runtime::Builder::new_current_thread().enable_time().build()?.block_on(async {
/// for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
///     let user = Arc::new(Scripted::new().when_field("size", Step::accept(json!({"size": 4}))));
///     let restaurant = Restaurant { asking: AskConfig::single_user("me")? };
///     let kit = TestKit::new(revision).connect(restaurant, Arc::clone(&user)).await?;
///
///     let called = kit.call("book", json!({})).await?;
///     assert_eq!((called.text(), called.is_error()), ("A table for 4.", false));
///     assert_eq!(user.seen()[0].1.message(), "For how many?");
/// }
/// # Ok(())
/// # })
/// # }
/// ```
#[derive(Debug, Clone, Copy)]
pub struct TestKit {
    revision: Revision,
    served: Served,
    wait: Duration,
    max_rounds: usize,
    pace: Pace,
    host: Option<Profile>,
}

/// How the [`TestKit`] serves a server: the way the transport it ships on does, so that a test
/// passes only where production would.
///
/// Both record each call before the tool's parameters are built, so a 2026-07-28 round is bound
/// to the call's arguments either way; they differ in where the wrapper sits, and so in what a
/// test sees on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Served {
    /// Through [`AskingService`], as `AskingService(server).serve(rmcp::transport::stdio())`
    /// serves it (or any byte stream rmcp's `serve` takes). The default.
    #[default]
    Stdio,
    /// As `AskingHttpService` has rmcp's `StreamableHttpService`
    /// serve it: the server wrapped as a `ServerHandler`, each request handed to rmcp's
    /// `Service` implementation for handlers. In process, over one session: no HTTP, no headers,
    /// and no `http::request::Parts` in a request's extensions (a principal read from them,
    /// by `AskConfig::per_http_user` or `request_extension`, is not found), so no session bound
    /// to one either; and no HTTP response, so a 2026-07-28 URL request keeps the
    /// `"elicitationId": ""` that `AskingHttpService` leaves out of it.
    StreamableHttp,
}

/// The kit of a host (here, above the kit's client, which plays the host's rule: the profiles
/// themselves sit below it).
impl Profile {
    /// A [`TestKit`] that connects as this host: its revision and modes, its rule, a person
    /// answering at [`Pace::PERSON`] (a hook at once), and a wait of [`WAIT`](Self::WAIT) (the
    /// Inspector's 60 s). Change the pace or the wait as for any kit.
    pub fn kit(self) -> TestKit {
        let wait = match self {
            Profile::Inspector1 => Duration::from_secs(60),
            _ => Self::WAIT,
        };
        TestKit::new(self.revision())
            .as_host(self)
            .with_pace(Pace::PERSON)
            .with_wait(wait)
    }
}

impl TestKit {
    /// How long a call (and the handshake) may take before the kit reports it unanswered.
    pub const DEFAULT_WAIT: Duration = Duration::from_secs(10);

    /// A kit that connects on `revision`, waiting [`DEFAULT_WAIT`](Self::DEFAULT_WAIT) for each
    /// call, with rmcp's round cap (`DEFAULT_MRTR_MAX_ROUNDS`, 10).
    pub fn new(revision: Revision) -> Self {
        Self {
            revision,
            served: Served::Stdio,
            wait: Self::DEFAULT_WAIT,
            max_rounds: DEFAULT_MRTR_MAX_ROUNDS,
            pace: Pace::INSTANT,
            host: None,
        }
    }

    /// The user answers at `pace` ([`Pace::INSTANT`] by default: a script answers at once).
    /// Give a test whose user consents [`Pace::PERSON`]: a consent accepted faster than a
    /// person can read it is not taken ([`Stop::AutomaticConsent`](super::Stop); on 2026-07-28
    /// timed on the wall clock, so on the real clock, not a paused one), and nothing in the
    /// library lets a test skip that. The kit still waits
    /// [`DEFAULT_WAIT`](Self::DEFAULT_WAIT) for a whole call: a call whose forms a person takes
    /// longer over (3 s and 2 s a field each) needs [`with_wait`](Self::with_wait) too.
    #[must_use]
    pub fn with_pace(mut self, pace: Pace) -> Self {
        self.pace = pace;
        self
    }

    /// Connect as `host` does: its modes (those the answerer has too) and its rule
    /// ([`Profile`]). [`Profile::kit`] is this, with the host's revision, pace and wait.
    #[must_use]
    pub fn as_host(mut self, host: Profile) -> Self {
        self.host = Some(host);
        self
    }

    /// The user's pace.
    pub fn pace(&self) -> Pace {
        self.pace
    }

    /// The host it connects as, if any.
    pub fn host(&self) -> Option<Profile> {
        self.host
    }

    /// Serve the server as `served` says: through [`AskingService`] as over stdio (the default),
    /// or as `AskingHttpService` serves it over streamable HTTP. Test a server the way it ships.
    #[must_use]
    pub fn served_as(mut self, served: Served) -> Self {
        self.served = served;
        self
    }

    /// Wait at most `wait` for the handshake and for each call's result.
    #[must_use]
    pub fn with_wait(mut self, wait: Duration) -> Self {
        self.wait = wait;
        self
    }

    /// On 2026-07-28, send a call at most `max_rounds` times (the first call and its retries):
    /// a tool still asking after that ends in [`KitError::RoundsExceeded`], the user having
    /// answered `max_rounds` times. rmcp's cap, passed on; 0 is taken as 1. Earlier revisions
    /// have no rounds: a tool asks within its one call, as often as it does.
    #[must_use]
    pub fn with_max_rounds(mut self, max_rounds: usize) -> Self {
        self.max_rounds = max_rounds.max(1);
        self
    }

    /// The revision it connects on.
    pub fn revision(&self) -> Revision {
        self.revision
    }

    /// How it serves the server.
    pub fn served(&self) -> Served {
        self.served
    }

    /// Serve `server` as [`served_as`](Self::served_as) says (through [`AskingService`] by
    /// default) on a task of the current tokio runtime, and connect an [`AnsweringClient`] of
    /// `answerer` to it. Keep a clone of `answerer` to look at what it was asked.
    ///
    /// `server` is your `ServerHandler`, as both transports take it: the kit wraps it where
    /// stdio would.
    ///
    /// # Errors
    /// [`KitError::NoRuntime`] outside a tokio runtime; [`KitError::Connect`] if the session
    /// does not open (the server does not speak the revision, or does not answer within the
    /// wait); [`KitError::Negotiated`] if the server agreed on another protocol version.
    ///
    /// # Panics
    /// If the runtime has no time driver (a runtime built without `enable_time`; a
    /// `#[tokio::test]` has one), as every tokio timer does.
    pub async fn connect<S, A>(self, server: S, answerer: Arc<A>) -> Result<Connected<A>, KitError>
    where
        S: ServerHandler,
        A: Answerer + 'static,
    {
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| KitError::NoRuntime)?;
        let (server_io, client_io) = tokio::io::duplex(1 << 16);
        let served = self.served;
        let server = runtime.spawn(async move {
            match served {
                Served::Stdio => {
                    if let Ok(running) = AskingService(server).serve(server_io).await {
                        let _ = running.waiting().await;
                    }
                }
                // As `AskingHttpService` has `StreamableHttpService` do: `serve_server` (or
                // `serve_directly`) of the wrapped handler, through rmcp's `Service`
                // implementation for handlers.
                Served::StreamableHttp => {
                    if let Ok(running) = AskingHandler(server).serve(server_io).await {
                        let _ = running.waiting().await;
                    }
                }
            }
        });
        match self
            .open(
                AnsweringClient::new(Arc::clone(&answerer)).scripted(self.pace, self.host),
                client_io,
            )
            .await
        {
            Ok(client) => Ok(Connected {
                client,
                answerer,
                server,
                revision: self.revision,
                wait: self.wait,
                max_rounds: self.max_rounds,
            }),
            Err(error) => {
                server.abort();
                Err(error)
            }
        }
    }

    /// The client's half of [`connect`](Self::connect): the handshake, within the wait, and the
    /// revision agreed on.
    async fn open<A: Answerer + 'static>(
        self,
        client: AnsweringClient<A>,
        io: DuplexStream,
    ) -> Result<RunningService<RoleClient, AnsweringClient<A>>, KitError> {
        let connect_error = |error: String| KitError::Connect {
            revision: self.revision,
            error,
        };
        let client = tokio::time::timeout(self.wait, client.connect(io, self.revision))
            .await
            .map_err(|_| {
                connect_error(format!("the server did not answer within {:?}", self.wait))
            })?
            .map_err(|e| connect_error(e.to_string()))?;
        let negotiated = client.peer_info().map(|info| info.protocol_version.clone());
        if negotiated.as_ref().and_then(revision) != Some(self.revision) {
            return Err(KitError::Negotiated {
                revision: self.revision,
                negotiated: negotiated.map(|v| v.to_string()),
            });
        }
        Ok(client)
    }
}

/// A server and an [`AnsweringClient`] connected in process by [`TestKit::connect`]. Dropping it
/// closes the session and stops the server.
pub struct Connected<A: Answerer + 'static> {
    client: RunningService<RoleClient, AnsweringClient<A>>,
    answerer: Arc<A>,
    server: JoinHandle<()>,
    revision: Revision,
    wait: Duration,
    max_rounds: usize,
}

impl<A: Answerer + 'static> Connected<A> {
    /// Call `tool` with `arguments` (a JSON object; `null` for none) as rmcp's client does, and
    /// wait for its result.
    ///
    /// # Errors
    /// [`KitError::Arguments`] if `arguments` is neither an object nor `null`;
    /// [`KitError::Rpc`] if the server answered with a JSON-RPC error (an unknown tool, invalid
    /// arguments, a retry it refused); [`KitError::Unanswered`] if no result came within the
    /// kit's wait (see [`TestKit`] for what a silent user means on each revision);
    /// [`KitError::RoundsExceeded`] if on 2026-07-28 the tool was still asking after the round
    /// cap; [`KitError::WrongMode`], whatever the tool returned, if a scripted step met a
    /// request of the other mode (a form's acceptance met a URL request: the user cancelled
    /// it); [`KitError::Client`] for anything else rmcp's client reported (a closed
    /// connection).
    pub async fn call(&self, tool: &str, arguments: Value) -> Result<Called, KitError> {
        let arguments = match arguments {
            Value::Object(arguments) => Some(arguments),
            Value::Null => None,
            other => {
                return Err(KitError::Arguments {
                    tool: tool.to_owned(),
                    found: crate::schema::json_kind(&other),
                });
            }
        };
        let mut params = CallToolRequestParams::new(tool.to_owned());
        params.arguments = arguments;
        let called = tokio::time::timeout(
            self.wait,
            self.client
                .call_tool_with_mrtr_max_rounds(params, self.max_rounds),
        )
        .await;
        let tool = tool.to_owned();
        // What the tool made of a cancel the script did not mean is beside the point: the test
        // expected another question.
        if let Some(wrong) = self.answerer.take_wrong_modes().into_iter().next() {
            return Err(KitError::WrongMode { tool, wrong });
        }
        match called {
            Ok(Ok(result)) => Ok(Called::new(result)),
            Err(_) => Err(KitError::Unanswered {
                tool,
                revision: self.revision,
                after: self.wait,
            }),
            Ok(Err(ServiceError::McpError(error))) => Err(KitError::Rpc { tool, error }),
            Ok(Err(ServiceError::InputRequiredRoundsExceeded { max_rounds })) => {
                Err(KitError::RoundsExceeded { tool, max_rounds })
            }
            Ok(Err(error)) => Err(KitError::Client { tool, error }),
        }
    }

    /// The revision of the session.
    pub fn revision(&self) -> Revision {
        self.revision
    }

    /// rmcp's running client, for what [`call`](Self::call) does not do (list the tools, get a
    /// prompt). It is rmcp's `Peer` too.
    pub fn client(&self) -> &RunningService<RoleClient, AnsweringClient<A>> {
        &self.client
    }
}

impl<A: Answerer + 'static> Drop for Connected<A> {
    fn drop(&mut self) {
        self.server.abort();
    }
}

impl<A: Answerer + 'static> fmt::Debug for Connected<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connected")
            .field("revision", &self.revision)
            .field("wait", &self.wait)
            .field("max_rounds", &self.max_rounds)
            .finish_non_exhaustive()
    }
}

/// What a tool returned: its text and whether it is an error result (`isError`), and rmcp's
/// whole `CallToolResult`.
#[derive(Debug, Clone)]
pub struct Called {
    text: String,
    result: CallToolResult,
}

impl Called {
    fn new(result: CallToolResult) -> Self {
        let texts: Vec<&str> = result
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
            .collect();
        Self {
            text: texts.join("\n"),
            result,
        }
    }

    /// The result's text blocks, one line apart.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the result is an error result (`isError: true`): one the model reads, such as a
    /// client that cannot be asked or an answer that broke the form's rules to the end.
    pub fn is_error(&self) -> bool {
        self.result.is_error == Some(true)
    }

    /// rmcp's result: every content block, the structured content, `_meta`.
    pub fn result(&self) -> &CallToolResult {
        &self.result
    }

    /// rmcp's result, owned.
    pub fn into_result(self) -> CallToolResult {
        self.result
    }
}

/// Why the [`TestKit`] has no result to give.
#[derive(Debug)]
#[non_exhaustive]
pub enum KitError {
    /// [`TestKit::connect`] was called outside a tokio runtime.
    NoRuntime,
    /// The session did not open.
    Connect {
        /// The revision asked for.
        revision: Revision,
        /// rmcp's error, or the wait that passed.
        error: String,
    },
    /// The server agreed on another protocol version than the one asked for.
    Negotiated {
        /// The revision asked for.
        revision: Revision,
        /// What the server agreed on, if it said.
        negotiated: Option<String>,
    },
    /// The arguments were not a JSON object.
    Arguments {
        /// The tool.
        tool: String,
        /// What they were instead ("an array", …).
        found: &'static str,
    },
    /// The server answered the call with a JSON-RPC error.
    Rpc {
        /// The tool.
        tool: String,
        /// The error: code, message, `data`.
        error: ErrorData,
    },
    /// No result within the kit's wait. See [`TestKit`] for what it means on each revision.
    Unanswered {
        /// The tool.
        tool: String,
        /// The session's revision.
        revision: Revision,
        /// The kit's wait.
        after: Duration,
    },
    /// 2026-07-28: the tool was still asking after `max_rounds` calls (rmcp's
    /// `InputRequiredRoundsExceeded`).
    RoundsExceeded {
        /// The tool.
        tool: String,
        /// The round cap.
        max_rounds: usize,
    },
    /// A scripted step met a request of the other mode: the test expected a form and the tool
    /// sent a URL request, or the reverse. The user cancelled it.
    WrongMode {
        /// The tool.
        tool: String,
        /// The step's mode, the request's, and its message.
        wrong: WrongMode,
    },
    /// Anything else rmcp's client reported: the connection closed, an unexpected response.
    Client {
        /// The tool.
        tool: String,
        /// rmcp's error.
        error: ServiceError,
    },
}

impl fmt::Display for KitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KitError::NoRuntime => f.write_str(
                "the test kit runs the server on a tokio task: call it inside a tokio runtime \
                 (e.g. a #[tokio::test])",
            ),
            KitError::Connect { revision, error } => {
                write!(f, "the client could not connect on {revision}: {error}")
            }
            KitError::Negotiated {
                revision,
                negotiated: Some(negotiated),
            } => write!(
                f,
                "the client asked for {revision} and the server agreed on {negotiated}"
            ),
            KitError::Negotiated {
                revision,
                negotiated: None,
            } => write!(
                f,
                "the client asked for {revision} and the server named no protocol version"
            ),
            KitError::Arguments { tool, found } => write!(
                f,
                "the arguments of `{tool}` must be a JSON object (or null for none), not {found}"
            ),
            KitError::Rpc { tool, error } => write!(
                f,
                "`{tool}` ended in a JSON-RPC error, not a tool result: {} ({})",
                error.message, error.code.0
            ),
            KitError::Unanswered {
                tool,
                revision,
                after,
            } => {
                write!(f, "`{tool}` had no result within {after:?} on {revision}: ")?;
                if revision.has_multi_round_trip() {
                    f.write_str(
                        "the tool returned and the client is still waiting for the user's \
                         answer before it retries (a silent user never answers), or the tool \
                         itself never returned",
                    )
                } else {
                    f.write_str(
                        "the server is still waiting (for an answer the user did not give, for \
                         longer than the kit does), or the tool never returned",
                    )
                }
            }
            KitError::RoundsExceeded { tool, max_rounds } => write!(
                f,
                "`{tool}` was still asking after {max_rounds} rounds (the client's round cap)"
            ),
            KitError::WrongMode { tool, wrong } => write!(f, "calling `{tool}`: {wrong}"),
            KitError::Client { tool, error } => write!(f, "calling `{tool}` failed: {error}"),
        }
    }
}

impl std::error::Error for KitError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            KitError::Client { error, .. } => Some(error),
            _ => None,
        }
    }
}
