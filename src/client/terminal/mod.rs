#![cfg_attr(not(doctest), doc = include_str!("../../guide/terminal.md"))]
// The layers, bottom first (`tests/layers.rs`): the screen under a form and a page, both under
// this file.
mod screen;
// A form, field by field; a page to open.
mod form;
mod page;

use std::fmt;
use std::future::Future;
use std::io::{self, IsTerminal};
use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, OnceLock, PoisonError};
use std::thread;

use futures_channel::oneshot;
use serde_json::Value;

use crate::client::{Answerer, Incoming, answer};
use crate::{Mode, reply::Action};
use page::Opener;
use screen::{Ended, SCREEN, say};

pub use screen::{Screen, printable, printable_line, quoted};

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

    /// Open a page the user accepted with `open` (a browser), not only show its URL. It is
    /// called while the terminal is held: it must not take [`Terminal::screen`] nor prompt.
    #[must_use]
    pub fn with_opener(
        mut self,
        open: impl Fn(&str) -> io::Result<()> + Send + Sync + 'static,
    ) -> Self {
        self.opener = Some(Arc::new(open));
        self
    }

    /// The terminal, for the host's own output: while the guard lives no prompt is drawn, and it
    /// is taken only once no prompt is on the screen (one the server has withdrawn included: the
    /// user finishes it first). A host writes its results under it, and takes it before it
    /// exits, so that it never draws over a prompt nor leaves the terminal in a prompt's raw mode.
    /// Never across a call that may ask: the prompt would wait for the guard, and the call for
    /// the prompt.
    pub fn screen() -> Screen {
        Screen(SCREEN.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Ask the user `request`, which `server` sent, and wait for the `ElicitResult` (JSON) to
    /// send: what [`Answerer::answer`] does on its own thread, for a host without an executor.
    /// It asks whatever the [`modes`](Answerer::modes) are (they are what a client declares).
    /// A terminal that fails (no terminal, a write error) cannot show the request: it is said
    /// on standard error if it can be, and the request is dismissed (`cancel`).
    pub fn answer_blocking(&self, server: &str, request: &Incoming) -> Value {
        let _screen = Self::screen();
        self.ask(server, request, &|| true)
            .unwrap_or_else(|| answer(Action::Cancel))
    }

    /// Ask `request` on the held terminal, while `wanted()` (a withdrawn request stops at its
    /// next prompt, and a withdrawn page is not opened): the `ElicitResult`, `None` if withdrawn.
    fn ask(&self, server: &str, request: &Incoming, wanted: &dyn Fn() -> bool) -> Option<Value> {
        let asked = match request {
            Incoming::Form(form) => form::ask(server, form, wanted),
            Incoming::Url(page) => page::ask(server, page, self.opener.as_deref(), wanted),
        };
        match asked {
            Ok(result) => Some(result),
            Err(Ended::Decline) => Some(answer(Action::Decline)),
            Err(Ended::Cancel) => Some(answer(Action::Cancel)),
            Err(Ended::Withdrawn) => None,
            Err(Ended::Failed(error)) => {
                let _ = say(&format!(
                    "The request could not be shown ({error}): it was dismissed."
                ));
                Some(answer(Action::Cancel))
            }
        }
    }
}

impl Answerer for Terminal {
    fn modes(&self) -> &[Mode] {
        &self.modes
    }

    /// Queues the request for the terminal's one prompt thread (the prompts block), so any
    /// executor can wait for it; requests are asked one at a time, in the order they came.
    /// A request whose future is dropped before its turn (the client stopped waiting: the server
    /// cancelled it, the session ended) is not asked. One already on the screen cannot be taken
    /// back: the user finishes or dismisses it, is told it was withdrawn, and nothing is sent.
    fn answer(
        &self,
        server: &str,
        request: &Incoming,
    ) -> impl Future<Output = Option<Value>> + Send {
        let job = Job {
            terminal: self.clone(),
            server: server.to_owned(),
            request: request.clone(),
        };
        async move {
            let (send, answered) = oneshot::channel();
            let queued = prompter().is_some_and(|queue| queue.send((job, send)).is_ok());
            if !queued {
                let _ = say("The request could not be shown (no prompt thread): it was dismissed.");
                return Some(answer(Action::Cancel));
            }
            Some(answered.await.unwrap_or_else(|_| answer(Action::Cancel)))
        }
    }
}

/// A request for the prompt thread, and where its answer goes.
type Queued = (Job, oneshot::Sender<Value>);

/// One request for the prompt thread.
struct Job {
    terminal: Terminal,
    server: String,
    request: Incoming,
}

/// The queue of the one thread that prompts, started with the first request (`None` if it
/// could not be).
fn prompter() -> Option<&'static Sender<Queued>> {
    static QUEUE: OnceLock<Option<Sender<Queued>>> = OnceLock::new();
    QUEUE
        .get_or_init(|| {
            let (queue, jobs) = mpsc::channel::<Queued>();
            let prompting = thread::Builder::new()
                .name("elicit-terminal".to_owned())
                .spawn(move || {
                    for (job, send) in jobs {
                        // The terminal first, then the question of whether anyone still waits:
                        // a request withdrawn while the host held the terminal is not shown.
                        let _screen = Terminal::screen();
                        if send.is_canceled() {
                            continue;
                        }
                        // A prompt that panics dismisses its request, not the thread that
                        // every later request waits on.
                        let wanted = || !send.is_canceled();
                        let asked = panic::catch_unwind(AssertUnwindSafe(|| {
                            job.terminal.ask(&job.server, &job.request, &wanted)
                        }));
                        let sent = match asked {
                            Ok(Some(result)) => send.send(result).is_ok(),
                            Ok(None) => false,
                            Err(_) => send.send(answer(Action::Cancel)).is_ok(),
                        };
                        if !sent {
                            let _ = say("The server withdrew this request: nothing was sent.");
                        }
                    }
                });
            prompting.ok().map(|_| queue)
        })
        .as_ref()
}
