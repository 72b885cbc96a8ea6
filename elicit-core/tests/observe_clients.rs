//! The client label: normalized, matched against the server's list, bounded whatever clients
//! send; and the threshold of an answer too fast for a person.

use std::collections::BTreeSet;
use std::time::Duration;

use elicit_core::observe::{self, ClientNames, Observer, Outcome, TimedAnswer, TooFast};

#[test]
fn names_are_normalized_before_they_are_matched() {
    assert_eq!(
        ClientNames::normalize("Claude Code").as_deref(),
        Some("claude-code")
    );
    assert_eq!(
        ClientNames::normalize("  claude_code  ").as_deref(),
        Some("claude-code")
    );
    assert_eq!(
        ClientNames::normalize("--Claude...CODE--").as_deref(),
        Some("claude-code")
    );
    assert_eq!(
        ClientNames::normalize("VS Code 1.96").as_deref(),
        Some("vs-code-1-96")
    );
    assert_eq!(ClientNames::normalize(" ~~ "), None);
    assert_eq!(ClientNames::normalize(""), None);

    let clients = ClientNames::new(["Claude Code", "claude-code", "Cursor"]);
    assert_eq!(
        clients.names().collect::<Vec<_>>(),
        ["claude-code", "cursor"]
    );
    assert_eq!(clients.label(Some("CLAUDE_CODE")).as_str(), "claude-code");
}

#[test]
fn a_name_not_on_the_list_is_other_and_no_name_is_unknown() {
    let clients = ClientNames::new(["cursor"]);
    assert_eq!(clients.label(Some("cursor-but-not")).as_str(), "other");
    assert_eq!(clients.label(None).as_str(), "unknown");
    assert_eq!(clients.label(Some("  ")).as_str(), "unknown");
    // The default list is empty: every named client is "other".
    assert_eq!(
        ClientNames::default().label(Some("cursor")).as_str(),
        "other"
    );
}

#[test]
fn the_reserved_labels_cannot_be_allowed_names() {
    let clients = ClientNames::new(["Other", "UNKNOWN", "", "cursor"]);
    assert_eq!(clients.names().collect::<Vec<_>>(), ["cursor"]);
}

#[test]
fn labels_are_bounded_whatever_clients_send() {
    let clients = ClientNames::new(["cursor"]);
    let long = "cursor".repeat(ClientNames::MAX_NAME_LEN);
    let sent = (0..1000).map(|n| format!("client {n}")).chain([
        long,
        "cursor".into(),
        "\u{0}\u{202e}".into(),
    ]);
    let labels: BTreeSet<String> = sent
        .map(|name| clients.label(Some(&name)).to_string())
        .chain([clients.label(None).to_string()])
        .collect();
    let expected: BTreeSet<String> = ["cursor", "other", "unknown"].map(String::from).into();
    assert_eq!(labels, expected);
}

#[test]
fn a_name_longer_than_the_bound_is_other_unread() {
    let at_bound = "a".repeat(ClientNames::MAX_NAME_LEN);
    let clients = ClientNames::new([at_bound.as_str()]);
    assert_eq!(clients.label(Some(&at_bound)).as_str(), at_bound);
    let over = format!("{at_bound}a");
    assert_eq!(clients.label(Some(&over)).as_str(), "other");
}

#[test]
fn the_too_fast_threshold_is_a_floor_plus_a_time_per_field() {
    let too_fast = TooFast::DEFAULT;
    assert_eq!(too_fast.threshold(0), Duration::from_secs(1));
    assert_eq!(too_fast.threshold(3), Duration::from_millis(1750));
    assert!(too_fast.is_too_fast(Duration::from_millis(1749), 3));
    assert!(!too_fast.is_too_fast(Duration::from_millis(1750), 3));
    // Zero for both: nothing is too fast.
    assert!(!TooFast::new(Duration::ZERO, Duration::ZERO).is_too_fast(Duration::ZERO, 5));
    // No overflow, however many fields.
    let most = TooFast::new(Duration::MAX, Duration::MAX);
    assert_eq!(most.threshold(usize::MAX), Duration::MAX);
    assert!(TooFast::DEFAULT.threshold(usize::MAX) > Duration::from_secs(1 << 20));
}

/// An observer written before the client label: it implements only `asked` and `answered`.
struct Counts(std::sync::Mutex<Vec<String>>);

impl Observer for Counts {
    fn asked(&self, elicitation: &str) {
        self.0.lock().unwrap().push(format!("asked {elicitation}"));
    }
    fn answered(&self, elicitation: &str, outcome: Outcome) {
        self.0
            .lock()
            .unwrap()
            .push(format!("{outcome} {elicitation}"));
    }
}

#[test]
fn an_observer_without_the_client_events_still_gets_every_ask_and_answer() {
    let counts: &'static Counts = Box::leak(Box::new(Counts(Default::default())));
    struct Shared(&'static Counts);
    impl Observer for Shared {
        fn asked(&self, elicitation: &str) {
            self.0.asked(elicitation);
        }
        fn answered(&self, elicitation: &str, outcome: Outcome) {
            self.0.answered(elicitation, outcome);
        }
    }
    observe::set_observer(Shared(counts)).expect("the only observer of this test binary");

    let cursor = ClientNames::new(["cursor"]).label(Some("Cursor"));
    observe::for_client(&cursor, || {
        observe::asked("Deploy");
        observe::answered("Deploy", Outcome::Declined);
        // A timed answer is an event of its own: the counts above are not repeated.
        observe::timed(&TimedAnswer::new(
            "Deploy",
            &cursor,
            Outcome::Declined,
            Duration::ZERO,
            0,
            TooFast::DEFAULT,
        ));
    });
    assert_eq!(
        *counts.0.lock().unwrap(),
        ["asked Deploy", "declined Deploy"]
    );
}
