//! The pages the user accepted, shared by a terminal's clones: which still wait for their step,
//! so that the terminal can show the wait, end it when the server reports the step complete, and
//! tell a page it is asked about again from a new one.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::client::IncomingUrl;

/// A page the user accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Page {
    /// Who sent it (the name the answerer was given).
    pub(super) server: String,
    /// Its URL, as sent.
    pub(super) url: String,
    /// Its host, as sent (shown with [`shown`](super::screen::shown)).
    pub(super) host: String,
    /// Its `elicitationId` (2025-11-25): only such a page can be reported complete.
    pub(super) id: Option<String>,
}

impl Page {
    fn of(server: &str, page: &IncomingUrl) -> Self {
        Self {
            server: server.to_owned(),
            url: page.url().as_str().to_owned(),
            host: page.host().to_owned(),
            id: page.elicitation_id().map(str::to_owned),
        }
    }

    /// The same page: the same server and URL.
    fn is(&self, server: &str, url: &str) -> bool {
        self.server == server && self.url == url
    }
}

/// Where an accepted page is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// The user agreed to open it; the server has not reported its step complete.
    Waiting,
    /// The server reported its step complete; the terminal has not said so yet.
    Completed,
}

/// The pages the user accepted, the newest last: at most [`Accepted::MAX`], the oldest forgotten
/// first (a forgotten page's completion is ignored, and a new ask about it is a new page).
#[derive(Debug, Default)]
pub(super) struct Accepted(Mutex<VecDeque<(Page, State)>>);

impl Accepted {
    const MAX: usize = 16;

    fn pages(&self) -> MutexGuard<'_, VecDeque<(Page, State)>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The user accepted `page`, which `server` sent: it waits for its step.
    pub(super) fn accepted(&self, server: &str, page: &IncomingUrl) {
        let page = Page::of(server, page);
        let mut pages = self.pages();
        pages.retain(|(known, _)| !known.is(&page.server, &page.url));
        if pages.len() >= Self::MAX {
            pages.pop_front();
        }
        pages.push_back((page, State::Waiting));
    }

    /// Whether `server` asks again about a page the user accepted whose step is not reported
    /// complete: the same server and the same URL.
    pub(super) fn asked_again(&self, server: &str, page: &IncomingUrl) -> bool {
        let url = page.url().as_str();
        self.pages()
            .iter()
            .any(|(known, state)| *state == State::Waiting && known.is(server, url))
    }

    /// The server reports `page`'s step complete: whether the page was waiting (it is then kept
    /// until [`take_completed`](Self::take_completed) says so).
    pub(super) fn complete(&self, server: &str, page: &IncomingUrl) -> bool {
        let (url, id) = (page.url().as_str(), page.elicitation_id());
        let mut pages = self.pages();
        let waiting = pages.iter_mut().rev().find(|(known, state)| {
            *state == State::Waiting && known.is(server, url) && known.id.as_deref() == id
        });
        match waiting {
            Some((_, state)) => {
                *state = State::Completed;
                true
            }
            None => false,
        }
    }

    /// The pages reported complete since this was last called, forgotten: each is said once.
    pub(super) fn take_completed(&self) -> Vec<Page> {
        let mut pages = self.pages();
        let (completed, waiting) = pages
            .drain(..)
            .partition::<VecDeque<_>, _>(|(_, state)| *state == State::Completed);
        *pages = waiting;
        completed.into_iter().map(|(page, _)| page).collect()
    }

    /// The pages that wait for a step the server can report complete (they have an id).
    pub(super) fn waiting(&self) -> Vec<Page> {
        self.pages()
            .iter()
            .filter(|(page, state)| *state == State::Waiting && page.id.is_some())
            .map(|(page, _)| page.clone())
            .collect()
    }

    /// Whether `page` still waits.
    pub(super) fn still_waiting(&self, page: &Page) -> bool {
        self.pages()
            .iter()
            .any(|(known, state)| *state == State::Waiting && known == page)
    }

    /// Forget `page`: the user gave up waiting for it.
    pub(super) fn forget(&self, server: &str, url: &str) {
        self.pages().retain(|(known, _)| !known.is(server, url));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::Accepted;
    use crate::Revision;
    use crate::client::{Incoming, IncomingUrl, read_request};

    fn page(url: &str, id: Option<&str>) -> IncomingUrl {
        let mut params = json!({"mode": "url", "message": "Connect.", "url": url});
        if let (Some(id), Some(params)) = (id, params.as_object_mut()) {
            params.insert("elicitationId".into(), id.into());
        }
        match read_request(&params, Revision::V2025_11_25) {
            Ok(Incoming::Url(page)) => page,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_page_waits_until_reported_complete_and_is_said_once() {
        let accepted = Accepted::default();
        let github = page("https://ops.example.com/connect?flow=1", Some("e-1"));
        accepted.accepted("ops", &github);
        assert_eq!(accepted.waiting().len(), 1);
        assert!(accepted.asked_again("ops", &github));
        assert!(
            !accepted.asked_again("other", &github),
            "another server's page is new"
        );

        assert!(accepted.complete("ops", &github));
        assert!(!accepted.complete("ops", &github), "completes once");
        assert!(accepted.waiting().is_empty());
        assert!(
            !accepted.asked_again("ops", &github),
            "a completed page is asked anew"
        );
        assert_eq!(accepted.take_completed().len(), 1);
        assert!(accepted.take_completed().is_empty());
    }

    #[test]
    fn only_a_page_with_that_id_from_that_server_completes() {
        let accepted = Accepted::default();
        let github = page("https://ops.example.com/connect?flow=1", Some("e-1"));
        accepted.accepted("ops", &github);
        let other_id = page("https://ops.example.com/connect?flow=1", Some("e-2"));
        assert!(!accepted.complete("ops", &other_id));
        assert!(!accepted.complete("elsewhere", &github));
        assert_eq!(accepted.waiting().len(), 1);
    }

    #[test]
    fn a_page_without_an_id_is_asked_again_but_never_waited_for() {
        let accepted = Accepted::default();
        let page = page("https://ops.example.com/connect?flow=1", None);
        accepted.accepted("ops", &page);
        assert!(accepted.waiting().is_empty());
        assert!(accepted.asked_again("ops", &page));
        accepted.forget("ops", page.url().as_str());
        assert!(!accepted.asked_again("ops", &page));
    }

    #[test]
    fn the_oldest_page_is_forgotten_first() {
        let accepted = Accepted::default();
        for n in 0..=Accepted::MAX {
            let url = format!("https://ops.example.com/connect?flow={n}");
            accepted.accepted("ops", &page(&url, Some("e")));
        }
        assert_eq!(accepted.waiting().len(), Accepted::MAX);
        let first = page("https://ops.example.com/connect?flow=0", Some("e"));
        assert!(!accepted.asked_again("ops", &first));
    }
}
