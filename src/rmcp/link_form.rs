//! The link form: a URL step asked as a form with no field, for a client that cannot take the
//! URL question (issue 43, item 3). What decides it lives here, in one function over plain
//! facts, so that the host table ([`crate::hosts`]) and the client's declaration are read in
//! one place.

use std::fmt;
use std::time::Duration;

use crate::hosts::Host;
use crate::{ElicitationSupport, Mode, Revision};

/// Whether a server carries a URL step in a form where the client cannot take the URL question
/// ([`AskConfig::with_link_form`](super::AskConfig::with_link_form)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LinkForm {
    /// Never: a client that cannot take the URL question gets today's
    /// [`Stop::CannotAsk`](super::Stop::CannotAsk).
    Off,
    /// Only for a client whose row in the host table was checked in CI (the default): a form
    /// message is not a URL question, and a host that receives it as text owes it none of URL
    /// mode's duties, so it is offered only where a run of that host showed the message.
    #[default]
    HostsCheckedInCi,
}

/// What the fallback needs to know of a host, as the host table says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostFacts {
    /// It shows a URL question's link to the person before the call ends.
    pub shows_link_before_call_ends: bool,
    /// It opens (offers) `http` links, not only `https`.
    pub opens_http_links: bool,
    /// Its row was checked against the running host in CI.
    pub checked_in_ci: bool,
}

impl HostFacts {
    /// The facts of a host table row.
    #[must_use]
    pub fn of(host: &Host) -> Self {
        Self {
            shows_link_before_call_ends: host.shows_link_before_call_ends(),
            opens_http_links: host.opens_http_links(),
            checked_in_ci: host.checked_in_ci(),
        }
    }
}

/// Why a URL step is asked as a link form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkFormReason {
    /// The revision has no URL mode (2025-06-18).
    RevisionLacksUrlMode,
    /// The client declared form mode and not URL mode.
    FormOnly,
    /// The host shows a URL question's link only after the call ends.
    LinkShownTooLate,
    /// The page's link is `http` and the host refuses such links.
    RefusesHttp,
}

impl LinkFormReason {
    /// The reason as a log field.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            LinkFormReason::RevisionLacksUrlMode => "revision_lacks_url_mode",
            LinkFormReason::FormOnly => "form_only",
            LinkFormReason::LinkShownTooLate => "link_shown_too_late",
            LinkFormReason::RefusesHttp => "refuses_http",
        }
    }
}

/// A link form accepted faster than a person can read it ([`Stop::LinkFormNotShown`](super::Stop::LinkFormNotShown)):
/// the step's name, how soon the accept came, and the least a person takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkFormNotShown {
    page: String,
    elapsed: Duration,
    threshold: Duration,
}

impl LinkFormNotShown {
    /// The step `page`, accepted `elapsed` after it was asked, where a person takes at least
    /// `threshold`.
    #[must_use]
    pub fn new(page: impl Into<String>, elapsed: Duration, threshold: Duration) -> Self {
        Self {
            page: page.into(),
            elapsed,
            threshold,
        }
    }

    /// The step's name (its page's).
    #[must_use]
    pub fn page(&self) -> &str {
        &self.page
    }

    /// How soon after it was asked the accept came.
    #[must_use]
    pub fn elapsed(&self) -> Duration {
        self.elapsed
    }

    /// The least a person takes to read the form.
    #[must_use]
    pub fn threshold(&self) -> Duration {
        self.threshold
    }
}

/// Never the page's URL: this goes into the tool's result.
impl fmt::Display for LinkFormNotShown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the step `{}` was accepted {} ms after it was asked, faster than a person can read \
             it (at least {} ms): the host did not show it to the user; the user must open the \
             page from a host that shows it",
            self.page,
            self.elapsed.as_millis(),
            self.threshold.as_millis()
        )
    }
}

impl std::error::Error for LinkFormNotShown {}

/// Whether the URL step of a flow whose page is at an `http` link (`url_is_http`) is asked as a
/// link form, and why: `None` asks the URL question as today (or refuses as today, when the
/// client cannot take it and the fallback does not apply).
///
/// The link form is asked only when the client cannot take the URL question, can take a form,
/// and the server's `setting` allows it for this host.
#[must_use]
pub fn link_form_reason(
    setting: LinkForm,
    revision: Revision,
    support: ElicitationSupport,
    host: Option<HostFacts>,
    url_is_http: bool,
) -> Option<LinkFormReason> {
    let allowed = match setting {
        LinkForm::Off => false,
        LinkForm::HostsCheckedInCi => host.is_some_and(|host| host.checked_in_ci),
    };
    if !allowed || support.check(Mode::Form, revision).is_err() {
        return None;
    }
    if !revision.has_url_mode() {
        return Some(LinkFormReason::RevisionLacksUrlMode);
    }
    if !support.supports(Mode::Url) {
        return Some(LinkFormReason::FormOnly);
    }
    let host = host?;
    if !host.shows_link_before_call_ends {
        return Some(LinkFormReason::LinkShownTooLate);
    }
    if url_is_http && !host.opens_http_links {
        return Some(LinkFormReason::RefusesHttp);
    }
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn support(capabilities: serde_json::Value) -> ElicitationSupport {
        ElicitationSupport::from_client_capabilities(&capabilities).unwrap()
    }

    const CHECKED: HostFacts = HostFacts {
        shows_link_before_call_ends: true,
        opens_http_links: true,
        checked_in_ci: true,
    };

    #[test]
    fn a_client_that_takes_the_url_question_gets_it() {
        let both = support(json!({ "elicitation": { "form": {}, "url": {} } }));
        for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
            assert_eq!(
                link_form_reason(
                    LinkForm::HostsCheckedInCi,
                    revision,
                    both,
                    Some(CHECKED),
                    true
                ),
                None
            );
        }
    }

    #[test]
    fn each_reason_the_url_question_cannot_reach_a_person() {
        let both = support(json!({ "elicitation": { "form": {}, "url": {} } }));
        let form = support(json!({ "elicitation": { "form": {} } }));
        let on = LinkForm::HostsCheckedInCi;
        assert_eq!(
            link_form_reason(on, Revision::V2025_06_18, both, Some(CHECKED), false),
            Some(LinkFormReason::RevisionLacksUrlMode)
        );
        assert_eq!(
            link_form_reason(on, Revision::V2025_11_25, form, Some(CHECKED), false),
            Some(LinkFormReason::FormOnly)
        );
        let late = HostFacts {
            shows_link_before_call_ends: false,
            ..CHECKED
        };
        assert_eq!(
            link_form_reason(on, Revision::V2026_07_28, both, Some(late), false),
            Some(LinkFormReason::LinkShownTooLate)
        );
        let https_only = HostFacts {
            opens_http_links: false,
            ..CHECKED
        };
        assert_eq!(
            link_form_reason(on, Revision::V2025_11_25, both, Some(https_only), true),
            Some(LinkFormReason::RefusesHttp)
        );
        assert_eq!(
            link_form_reason(on, Revision::V2025_11_25, both, Some(https_only), false),
            None
        );
    }

    #[test]
    fn only_hosts_checked_in_ci_get_it_unless_turned_off() {
        let form = support(json!({ "elicitation": { "form": {} } }));
        let by_hand = HostFacts {
            checked_in_ci: false,
            ..CHECKED
        };
        let on = LinkForm::HostsCheckedInCi;
        assert_eq!(
            link_form_reason(on, Revision::V2025_11_25, form, Some(by_hand), true),
            None
        );
        assert_eq!(
            link_form_reason(on, Revision::V2025_11_25, form, None, true),
            None
        );
        assert_eq!(
            link_form_reason(
                LinkForm::Off,
                Revision::V2025_11_25,
                form,
                Some(CHECKED),
                true
            ),
            None
        );
    }

    #[test]
    fn a_client_that_takes_no_form_gets_no_link_form() {
        let url_only = support(json!({ "elicitation": { "url": {} } }));
        let late = HostFacts {
            shows_link_before_call_ends: false,
            ..CHECKED
        };
        assert_eq!(
            link_form_reason(
                LinkForm::HostsCheckedInCi,
                Revision::V2025_11_25,
                url_only,
                Some(late),
                true
            ),
            None
        );
    }
}
