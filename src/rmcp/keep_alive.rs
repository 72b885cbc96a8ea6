//! Keeping a call open while a person answers: `notifications/progress` on the call's progress
//! token, at the server's interval, for as long as the server waits for the user.

use std::future::{Future, poll_fn};
use std::pin::pin;
use std::task::Poll;
use std::time::Duration;

use ::rmcp::RoleServer;
use ::rmcp::model::{ProgressNotificationParam, ProgressToken};
use ::rmcp::service::RequestContext;

/// The `message` of every keep-alive notification.
pub(super) const WAITING: &str = "waiting for the user to answer";

/// The keep-alive of one call: its progress token, the interval, and how many notifications it
/// sent. The count is the `progress` of the next one, so it rises across every wait of the call
/// (a form asked again, a URL flow's question and then its page): the spec asks each `progress`
/// to be higher than the last.
#[derive(Debug)]
pub(super) struct KeepAlive {
    token: ProgressToken,
    every: Duration,
    sent: u32,
}

impl KeepAlive {
    /// For the call of `context`: `None` without an interval (or a zero one), or when the request
    /// carries no `_meta.progressToken` (the client asked for no progress, so it gets none).
    pub(super) fn of(
        context: &RequestContext<RoleServer>,
        every: Option<Duration>,
    ) -> Option<Self> {
        let every = every.filter(|every| !every.is_zero())?;
        let token = context.meta.get_progress_token()?;
        Some(Self {
            token,
            every,
            sent: 0,
        })
    }
}

/// `wait`'s output; meanwhile, with a `keep_alive`, a progress notification to the client every
/// interval until `wait` is ready or the call is cancelled (`notifications/cancelled`, which
/// cancels the request's token). Nothing is sent once `wait` is ready: the handler has not
/// returned yet, so every notification precedes the call's result on the one connection.
///
/// Lend it a pinned future (`Pin<&mut _>`) that lives in the caller: given the future itself, this
/// one would hold it twice (its argument, and the pinned copy it polls).
pub(super) async fn during<F: Future>(
    keep_alive: Option<&mut KeepAlive>,
    context: &RequestContext<RoleServer>,
    wait: F,
) -> F::Output {
    let Some(keep_alive) = keep_alive else {
        return wait.await;
    };
    enum Next<T> {
        Ready(T),
        Tick,
    }
    let mut wait = pin!(wait);
    let mut cancelled = pin!(context.ct.cancelled());
    let mut tick = pin!(tokio::time::sleep(keep_alive.every));
    let mut ticking = true;
    loop {
        let next = poll_fn(|cx| {
            if let Poll::Ready(output) = wait.as_mut().poll(cx) {
                return Poll::Ready(Next::Ready(output));
            }
            if ticking && cancelled.as_mut().poll(cx).is_ready() {
                // Nobody waits for the call any more: keep waiting as before, silently.
                ticking = false;
            }
            if ticking && tick.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Next::Tick);
            }
            Poll::Pending
        })
        .await;
        match next {
            Next::Ready(output) => return output,
            Next::Tick => {
                keep_alive.sent = keep_alive.sent.saturating_add(1);
                let progress = ProgressNotificationParam::new(
                    keep_alive.token.clone(),
                    f64::from(keep_alive.sent),
                )
                .with_message(WAITING);
                // A client gone by now changes nothing: the wait decides.
                // Boxed: sent once an interval, it need not be part of every waiting call.
                let _ = Box::pin(context.peer.notify_progress(progress)).await;
                tick.as_mut()
                    .reset(tokio::time::Instant::now() + keep_alive.every);
            }
        }
    }
}
