#![cfg_attr(not(doctest), doc = include_str!("../../guide/terminal.md"))]
// The layers, bottom first (`tests/layers.rs`): the screen under the pages the user accepted,
// both under a form, a page and the wait for one, all three under this file.
mod screen;
// The pages the user accepted, shared by a terminal's clones.
mod accepted;
// A form, field by field; a page to open; the wait for an accepted page's step.
mod form;
mod page;
mod wait;

use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::io::{self, IsTerminal};
use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, OnceLock, PoisonError};
use std::thread;

use futures_channel::oneshot;
use serde_json::Value;

use crate::client::{Answerer, Incoming, IncomingUrl, answer};
use crate::{Mode, reply::Action};
use accepted::Accepted;
use page::Opener;
use screen::{Ended, SCREEN, say};

pub use screen::{Screen, printable, printable_line, quoted};
pub use wait::Waited;

/// An answerer that asks its user in the terminal (on standard error, so standard output stays
/// the host's). See the [module](self). Its clones share the pages the user accepted: wait
/// ([`wait`](Self::wait)) on the one the client answers with.
#[derive(Clone)]
pub struct Terminal {
    modes: Vec<Mode>,
    opener: Option<Arc<Opener>>,
    accepted: Arc<Accepted>,
}

impl fmt::Debug for Terminal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Terminal")
            .field("modes", &self.modes)
            .field("opener", &self.opener.is_some())
            .field("waiting", &self.accepted.waiting().len())
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
            accepted: Arc::default(),
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

    /// Whether a page the user accepted waits for the server to report its step complete
    /// (2025-11-25's `notifications/elicitation/complete`, which [`Answerer::completed`] is
    /// given): then [`wait`](Self::wait) has something to wait for. A page without an
    /// `elicitationId` (2026-07-28) is never reported complete: its server asks about it again
    /// instead, and the user checks again there.
    pub fn waiting(&self) -> bool {
        !self.accepted.waiting().is_empty()
    }

    /// Show that the terminal waits for the pages the user accepted, until the server reports
    /// their step complete, and offer *Check again* and *Cancel* meanwhile: the spec's client
    /// keeps a way to retry or cancel the request that asked, for a notification may never
    /// come. What ended it is for the host to act on: [`Waited::CheckAgain`] sends the request
    /// again (calls the tool again, cancelling it first if it is still running),
    /// [`Waited::Cancel`] gives it up (cancels it if it is still running). A completion ends it
    /// by itself ([`Waited::Completed`]), said on the screen.
    ///
    /// The wait takes its turn on the prompt thread, as a request does, and gives way to a
    /// request that comes while it is on the screen ([`Waited::GaveWay`]: wait again after it).
    /// Drop the future to stop waiting (the call returned): the wait leaves the screen within a
    /// tenth of a second, and the pages still wait. [`Waited::Completed`] at once if no page
    /// waits; [`Waited::Cancel`] if the terminal cannot show it.
    pub fn wait(&self) -> impl Future<Output = Waited> + Send + 'static {
        let terminal = self.clone();
        async move {
            let (send, waited) = oneshot::channel();
            let queued =
                prompter().is_some_and(|queue| queue.send(Work::Wait(terminal, send)).is_ok());
            if !queued {
                return Waited::Cancel;
            }
            waited.await.unwrap_or(Waited::Cancel)
        }
    }

    /// Ask `request` on the held terminal, while `wanted()` (a withdrawn request stops at its
    /// next prompt, and a withdrawn page is not opened): the `ElicitResult`, `None` if withdrawn.
    fn ask(&self, server: &str, request: &Incoming, wanted: &dyn Fn() -> bool) -> Option<Value> {
        let asked = match request {
            Incoming::Form(form) => form::ask(server, form, wanted),
            Incoming::Url(page) => {
                page::ask(server, page, self.opener.as_deref(), &self.accepted, wanted)
            }
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
            let queued = prompter().is_some_and(|queue| queue.send(Work::Ask(job, send)).is_ok());
            if !queued {
                let _ = say("The request could not be shown (no prompt thread): it was dismissed.");
                return Some(answer(Action::Cancel));
            }
            Some(answered.await.unwrap_or_else(|_| answer(Action::Cancel)))
        }
    }

    /// The page waited for no longer: the terminal says so on the prompt thread, after the
    /// prompt on the screen (at once if a [`wait`](Terminal::wait) is on it, which then ends if
    /// no other page waits). A page this terminal did not accept, or whose wait the user
    /// cancelled, is not shown.
    fn completed(&self, server: &str, page: &IncomingUrl) {
        if self.accepted.complete(server, page)
            && let Some(queue) = prompter()
        {
            let _ = queue.send(Work::Announce(self.clone()));
        }
    }
}

/// What the prompt thread does, in the order it is sent.
enum Work {
    /// Ask a request; its answer goes back on the channel.
    Ask(Job, oneshot::Sender<Value>),
    /// Wait for the pages the user accepted; what ended it goes back on the channel.
    Wait(Terminal, oneshot::Sender<Waited>),
    /// Say which pages the server reported complete.
    Announce(Terminal),
}

/// One request for the prompt thread.
struct Job {
    terminal: Terminal,
    server: String,
    request: Incoming,
}

/// The queue of the one thread that prompts, started with the first request (`None` if it
/// could not be).
fn prompter() -> Option<&'static Sender<Work>> {
    static QUEUE: OnceLock<Option<Sender<Work>>> = OnceLock::new();
    QUEUE
        .get_or_init(|| {
            let (queue, work) = mpsc::channel::<Work>();
            let prompting = thread::Builder::new()
                .name("elicit-terminal".to_owned())
                .spawn(move || prompt(&work));
            prompting.ok().map(|_| queue)
        })
        .as_ref()
}

/// The prompt thread: each piece of work in turn, on the held terminal.
fn prompt(work: &Receiver<Work>) {
    // Work that came while a wait was on the screen: done before the next that comes.
    let mut later = VecDeque::new();
    while let Some(next) = later.pop_front().or_else(|| work.recv().ok()) {
        // The terminal first, then the question of whether anyone still waits: a request
        // withdrawn while the host held the terminal is not shown.
        let _screen = Terminal::screen();
        match next {
            Work::Ask(job, send) => ask(&job, send),
            Work::Announce(terminal) => {
                let _ = wait::announce(&terminal.accepted);
            }
            Work::Wait(terminal, send) => {
                // A request that comes while the wait is on the screen is asked first.
                let mut gave_way = || {
                    later.extend(work.try_iter());
                    later.iter().any(|queued| matches!(queued, Work::Ask(..)))
                };
                wait_on(&terminal, send, &mut gave_way);
            }
        }
    }
}

/// Ask `job`'s request and send its answer, if anyone still waits for it.
fn ask(job: &Job, send: oneshot::Sender<Value>) {
    if send.is_canceled() {
        return;
    }
    // A prompt that panics dismisses its request, not the thread that every later request
    // waits on.
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

/// Wait for `terminal`'s accepted pages and send what ended it, if the host still waits.
fn wait_on(terminal: &Terminal, send: oneshot::Sender<Waited>, gave_way: &mut dyn FnMut() -> bool) {
    if send.is_canceled() {
        return;
    }
    let wanted = || !send.is_canceled();
    let waited = panic::catch_unwind(AssertUnwindSafe(|| {
        wait::wait(&terminal.accepted, &wanted, gave_way)
    }));
    let waited = match waited {
        Ok(Ok(waited)) => waited,
        // The host stopped waiting: nothing to send.
        Ok(Err(Ended::Withdrawn)) => return,
        Ok(Err(Ended::Cancel | Ended::Decline)) => Waited::Cancel,
        Ok(Err(Ended::Failed(error))) => {
            let _ = say(&format!(
                "The wait could not be shown ({error}): it was cancelled."
            ));
            Waited::Cancel
        }
        Err(_) => Waited::Cancel,
    };
    let _ = send.send(waited);
}
