//! [`Terminal`]: an [`Answerer`] that asks its user in a terminal.
//!
//! A form is asked field by field, each checked as it is answered by the rules the server will
//! check it by ([`Property::check`](crate::Property::check)), then shown whole for review before
//! anything is sent. A page (URL mode) is shown whole, its host set apart, and opened only if
//! the user accepts. Everything the server wrote is shown with its control characters made
//! visible, so a message cannot move the cursor, recolour the screen or reorder a URL.
//!
//! | the user | is sent |
//! |---|---|
//! | answers and chooses **Send** | `accept`, with the content |
//! | chooses **Decline** (on the first screen or at the review) | `decline` |
//! | presses **Esc** (or Ctrl-C) at any prompt | `cancel` |
//!
//! The prompts are [`inquire`]'s: it validates a field before leaving it and keeps the user on
//! it with the rule in words, offers selects and multi-selects with a starting selection, and
//! reports Esc as its own outcome on every kind of prompt, which Cancel needs.
//!
//! ```no_run
//! use mcp_elicit::Revision;
//! use mcp_elicit::client::read_request;
//! use mcp_elicit::terminal::Terminal;
//! use serde_json::json;
//!
//! let request = read_request(&json!({
//!     "mode": "form",
//!     "message": "Deploy to which environment?",
//!     "requestedSchema": {"type": "object", "properties": {
//!         "env": {"type": "string", "enum": ["staging", "production"]}
//!     }, "required": ["env"]}
//! }), Revision::V2025_11_25)?;
//! // Blocks until the user answers; `Answerer::answer` asks on a thread of its own instead.
//! let result = Terminal::new().answer_blocking("ops", &request);
//! println!("{result}"); // {"action":"accept","content":{"env":"staging"}}
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! With rmcp (feature `rmcp-client`), `AnsweringClient::new(Arc::new(Terminal::new()))` is a
//! client whose user answers in the terminal: the `terminal_client` example is such a host.

mod form;
mod page;
mod shown;

use std::fmt;
use std::future::Future;
use std::io::{self, IsTerminal};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;

use futures_channel::oneshot;
use inquire::InquireError;
use serde_json::Value;

use crate::client::{Answerer, Incoming, Note, answer};
use crate::{Action, Mode};
use shown::shown;

/// One prompt on the terminal at a time: two requests answered at once (a 2026-07-28 round
/// asks several) queue here instead of drawing over each other.
static SCREEN: Mutex<()> = Mutex::new(());

/// Opens an accepted page: the host's choice (a browser, a new tab), called only after the user
/// accepted. An error is shown, and the URL with it, for the user to open by hand.
pub(crate) type Opener = dyn Fn(&str) -> io::Result<()> + Send + Sync;

/// An answerer that asks its user in the terminal (on standard error, so standard output stays
/// the host's). See the [module](self).
#[derive(Clone)]
pub struct Terminal {
    modes: Vec<Mode>,
    opener: Option<Arc<Opener>>,
}

impl fmt::Debug for Terminal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Terminal")
            .field("modes", &self.modes)
            .field("opener", &self.opener.is_some())
            .finish()
    }
}

impl Default for Terminal {
    fn default() -> Self {
        Self::new()
    }
}

impl Terminal {
    /// A terminal that answers forms and pages, if standard input and standard error are a
    /// terminal; otherwise it answers nothing, so a client built on it declares no elicitation
    /// and no server asks a user who cannot see the question. An accepted page is not opened:
    /// its URL stays on the screen for the user to open (see [`with_opener`](Self::with_opener)).
    pub fn new() -> Self {
        let interactive = io::stdin().is_terminal() && io::stderr().is_terminal();
        Self {
            modes: if interactive {
                vec![Mode::Form, Mode::Url]
            } else {
                Vec::new()
            },
            opener: None,
        }
    }

    /// Answer only these modes (a host that shows no pages: `&[Mode::Form]`), whatever the
    /// terminal is.
    #[must_use]
    pub fn answering(mut self, modes: &[Mode]) -> Self {
        self.modes = modes.to_vec();
        self
    }

    /// Open a page the user accepted with `open` (a browser), not only show its URL.
    #[must_use]
    pub fn with_opener(
        mut self,
        open: impl Fn(&str) -> io::Result<()> + Send + Sync + 'static,
    ) -> Self {
        self.opener = Some(Arc::new(open));
        self
    }

    /// Ask the user `request`, which `server` sent, and wait for the `ElicitResult` (JSON) to
    /// send: what [`Answerer::answer`] does on its own thread, for a host without an executor.
    /// A terminal that fails (no terminal, a write error) cannot show the request: it is said
    /// on standard error and the request is dismissed (`cancel`).
    pub fn answer_blocking(&self, server: &str, request: &Incoming) -> Value {
        let _screen = SCREEN.lock().unwrap_or_else(PoisonError::into_inner);
        let asked = match request {
            Incoming::Form(form) => form::ask(server, form),
            Incoming::Url(page) => page::ask(server, page, self.opener.as_deref()),
        };
        match asked {
            Ok(result) => result,
            Err(Ended::Decline) => answer(Action::Decline),
            Err(Ended::Cancel) => answer(Action::Cancel),
            Err(Ended::Failed(error)) => {
                eprintln!("The request could not be shown ({error}): it was dismissed.");
                answer(Action::Cancel)
            }
        }
    }
}

impl Answerer for Terminal {
    fn modes(&self) -> &[Mode] {
        &self.modes
    }

    /// Asks on a thread of its own (the prompts block), so any executor can wait for it. If the
    /// future is dropped (the server cancelled the request, the session ended), the prompt on
    /// the screen is not taken back: the user finishes or dismisses it, and the answer goes
    /// nowhere. Requests answered at once wait their turn for the terminal.
    fn answer(
        &self,
        server: &str,
        request: &Incoming,
    ) -> impl Future<Output = Option<Value>> + Send {
        let (send, answered) = oneshot::channel();
        let terminal = self.clone();
        let (server, request) = (server.to_owned(), request.clone());
        let asking = thread::Builder::new()
            .name("elicit-terminal".to_owned())
            .spawn(move || {
                // The receiver is gone if the request was: nothing is left to answer.
                let _ = send.send(terminal.answer_blocking(&server, &request));
            });
        async move {
            if let Err(error) = asking {
                eprintln!("The request could not be shown ({error}): it was dismissed.");
                return Some(answer(Action::Cancel));
            }
            // A prompt thread that panicked dropped its sender: the request was not answered.
            Some(answered.await.unwrap_or_else(|_| answer(Action::Cancel)))
        }
    }
}

/// `text` a server wrote (a tool's description, a result), safe to print on a terminal: every
/// character that would act on the terminal instead of being shown (escape sequences and other
/// controls, bidirectional overrides) is made visible as `\u{…}`; line feeds are kept. The
/// terminal answerer shows every message, title and URL this way.
///
/// ```
/// use mcp_elicit::terminal::printable;
/// assert_eq!(printable("done\u{1b}[2J"), "done\\u{1b}[2J");
/// assert_eq!(printable("two\nlines"), "two\nlines");
/// ```
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    shown(text, true)
}

/// How a request ended without content.
#[derive(Debug)]
enum Ended {
    /// The user chose Decline.
    Decline,
    /// The user pressed Esc or Ctrl-C.
    Cancel,
    /// The terminal failed.
    Failed(InquireError),
}

impl From<InquireError> for Ended {
    fn from(error: InquireError) -> Self {
        match error {
            InquireError::OperationCanceled | InquireError::OperationInterrupted => Ended::Cancel,
            error => Ended::Failed(error),
        }
    }
}

/// The heading every request starts with: who asks, and what.
fn heading(server: &str, asks: &str, message: &str) {
    let server = if server.is_empty() {
        "A server".into()
    } else {
        shown(server, false)
    };
    eprintln!();
    eprintln!("── {server} {asks} ──");
    eprintln!("{}", shown(message, true));
    eprintln!();
}

/// The notes a careful host shows before anything is answered.
fn warnings(notes: &[Note]) {
    for note in notes {
        eprintln!("  ⚠ {}", shown(&note.to_string(), false));
    }
    if !notes.is_empty() {
        eprintln!();
    }
}
