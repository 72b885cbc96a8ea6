//! [`Stop`]: why a tool ends before the user's answer, and [`respond`], which turns it into what
//! the tool returns.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use ::rmcp::ErrorData;
use ::rmcp::handler::server::prompt::IntoGetPromptResult;
use ::rmcp::handler::server::tool::IntoCallToolResult;
use ::rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, GetPromptResponse, InputRequiredResult,
};

use super::convert::{ConvertError, cannot_ask_result, jsonrpc_error, mrtr_error};
use crate::mrtr::MrtrError;
pub use crate::reply::AutomaticConsent;
use crate::state::{KeyError, RedeemError, SealError, StateError};
use crate::{
    protocol::{CannotAsk, CapabilityError, RevisionError},
    reply::{ConsentMismatch, Rejected},
    schema::{SchemaError, Text},
    url_mode::{UrlError, UrlRequestError},
};

/// What a tool returns: rmcp's response, or a protocol error.
pub type ToolResponse = Result<CallToolResponse, ErrorData>;

/// Why a tool stops before it has the user's answer. Every ask of an [`Asker`](super::Asker)
/// returns it as its error, and every error a handler meets while asking converts into it, so
/// `?` works; [`respond`] turns it into the tool's response.
///
/// Only [`Error`](Stop::Error) is a protocol error. The others are results the client
/// understands: the question itself (2026-07-28), or an `isError` result the model and the user
/// can read.
#[derive(Debug)]
#[must_use = "a `Stop` is what the tool returns: pass it to `respond`"]
#[non_exhaustive]
pub enum Stop {
    /// 2026-07-28: the question, as an input-required result. The client asks the user and
    /// calls the tool again with the answer; nothing has been done yet.
    InputRequired(Box<InputRequiredResult>),
    /// The client cannot be asked in this mode; nothing was asked. An `isError` result names the
    /// missing capability and what the user can do instead.
    CannotAsk(CannotAsk),
    /// Every answer broke the form's rules and the re-asks are spent. An `isError` result says,
    /// per field, what was wrong.
    Rejected {
        /// The question and its last answer's broken rules.
        rejected: Box<Rejected>,
        /// What was not done, or what the user can do instead
        /// ([`Asker::set_hint`](super::Asker::set_hint)).
        hint: Option<Text>,
    },
    /// The consent the user gave does not cover what the tool is about to do
    /// ([`Consent::ensure`](crate::Consent::ensure)): nothing was done. An `isError` result
    /// says so, with the hint.
    ConsentMismatch(ConsentMismatch),
    /// A consent form came back accepted faster than a person can read it
    /// ([`AskConfig::with_too_fast`](super::AskConfig::with_too_fast)): an automatic answer (a
    /// host's hook, an auto-approver) is not a person's consent, so the tool gets none and
    /// nothing is done. An `isError` result says so, with the hint. Before 2026-07-28 timed
    /// from the request to its answer; on 2026-07-28 from the round that asked (its time sealed
    /// in the state) to the retry that answers. The guide's "The hosts your users have" says
    /// what "faster than a person" can and cannot tell.
    AutomaticConsent {
        /// The form, the answer's time and the least a person takes.
        automatic: AutomaticConsent,
        /// What was not done, or what the user can do instead
        /// ([`Asker::set_hint`](super::Asker::set_hint)).
        hint: Option<Text>,
    },
    /// A URL step asked in a link form (a form with no field whose message gives the page's
    /// URL, [`LinkForm`](super::LinkForm)) came back accepted faster than a person can read it
    /// ([`AskConfig::with_too_fast`](super::AskConfig::with_too_fast)): the host answered it by
    /// itself without showing it (an auto-approver), so nobody went to the page. Its flow is
    /// abandoned and nothing is done; the call ends here rather than asking again. An `isError`
    /// result says the host did not show the step, with the hint. Timed as
    /// [`AutomaticConsent`](Stop::AutomaticConsent) is, on every revision.
    LinkFormNotShown {
        /// The step, the answer's time and the least a person takes.
        not_shown: super::link_form::LinkFormNotShown,
        /// What was not done, or what the user can do instead
        /// ([`Asker::set_hint`](super::Asker::set_hint)).
        hint: Option<Text>,
    },
    /// A protocol error: a `requestState` that does not open (`-32602`), or a request this
    /// server could not build or send (`-32603`).
    Error(ErrorData),
}

impl Stop {
    /// The tool's response: the input-required result, an `isError` tool result, or the
    /// protocol error.
    ///
    /// # Errors
    /// [`Stop::Error`]'s error.
    pub fn into_response(self) -> ToolResponse {
        match self {
            Stop::InputRequired(result) => Ok((*result).into()),
            Stop::CannotAsk(cannot) => match cannot_ask_result(&cannot) {
                Ok(result) => Ok(result.into()),
                Err(error) => Stop::from(error).into_response(),
            },
            Stop::Rejected { rejected, hint } => {
                let text = rejected_text(&rejected, hint.as_deref());
                Ok(CallToolResult::error(vec![ContentBlock::text(text)]).into())
            }
            Stop::ConsentMismatch(mismatch) => {
                let text = format!("Nothing was done: {mismatch}.");
                Ok(CallToolResult::error(vec![ContentBlock::text(text)]).into())
            }
            Stop::AutomaticConsent { automatic, hint } => {
                let text = automatic_text(&automatic, hint.as_deref());
                Ok(CallToolResult::error(vec![ContentBlock::text(text)]).into())
            }
            Stop::LinkFormNotShown { not_shown, hint } => {
                let text = nothing_done(&not_shown, hint.as_deref());
                Ok(CallToolResult::error(vec![ContentBlock::text(text)]).into())
            }
            Stop::Error(error) => Err(error),
        }
    }

    /// A `#[prompt]`'s response. A prompt has no `isError` result, so what a tool returns as one
    /// is a JSON-RPC error here: [`CannotAsk`](Stop::CannotAsk) the revision's
    /// ([`CannotAsk::to_jsonrpc_error`]: `-32602`, or `-32021` on 2026-07-28), and
    /// [`Rejected`](Stop::Rejected) `-32602` with the same text (on 2026-07-28 the answers are
    /// the retry's `inputResponses`).
    ///
    /// # Errors
    /// As above, and [`Stop::Error`]'s error.
    pub fn into_prompt_response(self) -> Result<GetPromptResponse, ErrorData> {
        match self {
            Stop::InputRequired(result) => Ok((*result).into()),
            Stop::CannotAsk(cannot) => Err(jsonrpc_error(&cannot.to_jsonrpc_error())),
            Stop::Rejected { rejected, hint } => Err(ErrorData::invalid_params(
                rejected_text(&rejected, hint.as_deref()),
                None,
            )),
            Stop::ConsentMismatch(mismatch) => {
                Err(ErrorData::invalid_request(mismatch.to_string(), None))
            }
            Stop::AutomaticConsent { automatic, hint } => Err(ErrorData::invalid_request(
                automatic_text(&automatic, hint.as_deref()),
                None,
            )),
            Stop::LinkFormNotShown { not_shown, hint } => Err(ErrorData::invalid_request(
                nothing_done(&not_shown, hint.as_deref()),
                None,
            )),
            Stop::Error(error) => Err(error),
        }
    }
}

/// What an automatic consent says to the user: that nothing was done and why, then the hint.
fn automatic_text(automatic: &AutomaticConsent, hint: Option<&str>) -> String {
    nothing_done(automatic, hint)
}

/// That nothing was done, and `why`, then the hint.
fn nothing_done(why: &dyn fmt::Display, hint: Option<&str>) -> String {
    match hint {
        Some(hint) => format!("Nothing was done: {why}. {hint}"),
        None => format!("Nothing was done: {why}."),
    }
}

/// What a rejection says to the user: why, then the tool's hint.
fn rejected_text(rejected: &Rejected, hint: Option<&str>) -> String {
    match hint {
        Some(hint) => format!("{rejected} {hint}"),
        None => rejected.to_string(),
    }
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::InputRequired(_) => f.write_str("the user is being asked (input required)"),
            Stop::CannotAsk(cannot) => fmt::Display::fmt(cannot, f),
            Stop::Rejected { rejected, .. } => fmt::Display::fmt(rejected, f),
            Stop::ConsentMismatch(mismatch) => fmt::Display::fmt(mismatch, f),
            Stop::AutomaticConsent { automatic, .. } => fmt::Display::fmt(automatic, f),
            Stop::LinkFormNotShown { not_shown, .. } => fmt::Display::fmt(not_shown, f),
            Stop::Error(error) => fmt::Display::fmt(&error.message, f),
        }
    }
}

impl std::error::Error for Stop {}

/// Runs a tool's work and returns what the tool replies: the work's value, or what its
/// [`Stop`] turns into ([`Stop::into_response`]).
///
/// A `#[tool]` cannot return `Result<T, Stop>` itself: rmcp refuses an input-required result
/// from a tool's error branch. So the work is an `async` block whose `?` stops it, and the tool
/// returns `respond(async { .. }).await` (the [module documentation](super) shows a whole tool).
///
/// # Errors
/// The protocol error of a [`Stop::Error`], or of the value's own conversion.
pub fn respond<T, W>(work: W) -> impl Future<Output = ToolResponse>
where
    W: Future<Output = Result<T, Stop>>,
    T: IntoCallToolResult,
{
    Finish {
        work,
        finish: |done: Result<T, Stop>| match done {
            Ok(value) => value.into_call_tool_result(),
            Err(stop) => stop.into_response(),
        },
    }
}

/// What a `#[prompt]` that asks returns: the prompt's messages, the question (2026-07-28), or a
/// JSON-RPC error. (rmcp's `#[prompt]` takes a `Result<GetPromptResult, ErrorData>` or an
/// input-required result, but not a response that may be either; this is one.)
#[derive(Debug)]
pub struct PromptResponse(Result<GetPromptResponse, ErrorData>);

impl PromptResponse {
    /// The response, or the protocol error.
    ///
    /// # Errors
    /// The protocol error.
    pub fn into_inner(self) -> Result<GetPromptResponse, ErrorData> {
        self.0
    }
}

impl IntoGetPromptResult for PromptResponse {
    fn into_get_prompt_result(self) -> Result<GetPromptResponse, ErrorData> {
        self.0
    }
}

/// [`respond`] for a `#[prompt]`: the messages, or what the [`Stop`] turns into
/// ([`Stop::into_prompt_response`]).
pub fn respond_prompt<T, W>(work: W) -> impl Future<Output = PromptResponse>
where
    W: Future<Output = Result<T, Stop>>,
    T: IntoGetPromptResult,
{
    Finish {
        work,
        finish: |done: Result<T, Stop>| {
            PromptResponse(match done {
                Ok(value) => value.into_get_prompt_result(),
                Err(stop) => stop.into_prompt_response(),
            })
        },
    }
}

pin_project_lite::pin_project! {
    /// `work`, then `finish` of its output, polled in place: an `async fn` taking `work` would
    /// hold it twice (the argument, and the future it awaits), and a tool's work waiting for a
    /// person is most of what a pending call keeps in memory.
    struct Finish<W, F> {
        #[pin]
        work: W,
        finish: F,
    }
}

impl<W: Future, F: Fn(W::Output) -> R, R> Future for Finish<W, F> {
    type Output = R;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<R> {
        let this = self.project();
        this.work.poll(cx).map(|done| (this.finish)(done))
    }
}

impl From<ErrorData> for Stop {
    fn from(error: ErrorData) -> Self {
        Stop::Error(error)
    }
}

impl From<MrtrError> for Stop {
    fn from(error: MrtrError) -> Self {
        Stop::Error(mrtr_error(&error))
    }
}

impl From<StateError> for Stop {
    fn from(error: StateError) -> Self {
        MrtrError::from(error).into()
    }
}

impl From<RedeemError> for Stop {
    fn from(error: RedeemError) -> Self {
        Stop::Error(jsonrpc_error(&error.to_jsonrpc_error()))
    }
}

impl From<CannotAsk> for Stop {
    fn from(cannot: CannotAsk) -> Self {
        Stop::CannotAsk(cannot)
    }
}

impl From<ConsentMismatch> for Stop {
    fn from(mismatch: ConsentMismatch) -> Self {
        Stop::ConsentMismatch(mismatch)
    }
}

impl From<Rejected> for Stop {
    fn from(rejected: Rejected) -> Self {
        Stop::Rejected {
            rejected: Box::new(rejected),
            hint: None,
        }
    }
}

impl From<crate::protocol::jsonrpc::JsonRpcError> for Stop {
    fn from(error: crate::protocol::jsonrpc::JsonRpcError) -> Self {
        Stop::Error(jsonrpc_error(&error))
    }
}

/// Errors in what the server built (a message, a URL, options) or its environment (keys,
/// randomness): the server's fault, `-32603`, with the error's own words.
macro_rules! internal_errors {
    ($($error:ty),+ $(,)?) => {$(
        impl From<$error> for Stop {
            fn from(error: $error) -> Self {
                Stop::Error(ErrorData::internal_error(error.to_string(), None))
            }
        }
    )+};
}

internal_errors!(
    ConvertError,
    RevisionError,
    SchemaError,
    UrlError,
    UrlRequestError,
    CapabilityError,
    KeyError,
    SealError,
    crate::url_mode::FlowError,
);

#[cfg(test)]
mod tests {
    use std::mem::size_of_val;

    use super::{Stop, respond};

    /// A tool's work waiting for a person is most of what a pending call keeps: `respond` must
    /// hold it once, in place (an `async fn` taking it held it twice, BENCHMARKS.md §8).
    #[test]
    fn respond_holds_the_work_once() {
        let work = || async {
            let held = [7u8; 4096];
            std::future::ready(()).await;
            Ok::<_, Stop>(held.iter().map(|&b| u32::from(b)).sum::<u32>().to_string())
        };
        let alone = size_of_val(&work());
        let responding = respond(work());
        assert!(
            size_of_val(&responding) <= alone + 16,
            "respond's future is {} bytes for work of {alone}",
            size_of_val(&responding)
        );
    }
}
