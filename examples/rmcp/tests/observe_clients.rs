//! The interrupt budget per client, through the `Asker` and rmcp's client: what the `metrics`
//! facade records, read back through `metrics-util`'s debugging recorder.
//!
//! - Every count carries `client`: a name of the server's list (normalized), `"other"` for any
//!   other name, `"unknown"` for none. However many names clients send, no other value.
//! - Before 2026-07-28, each answer is timed (`elicit_answer_seconds{client, outcome}`, in
//!   seconds) and, when it came back faster than a person could read its form (1 s plus 250 ms
//!   a field by default), counted in `elicit_answered_too_fast_total{client, outcome}`.
//! - On 2026-07-28 the counts carry the client too, and each answer is timed from the round
//!   that asked it (its time sealed in the `requestState`) to the retry that answers.
//! - A form accepted with nothing in it where a field is required is counted on its own,
//!   `elicit_accepted_empty_total{client}`, on both revisions.
//!
//! Each test runs on a current-thread runtime inside `metrics::with_local_recorder`, so the
//! server and the client record into that test's recorder alone, on tokio's paused clock: an
//! answer "after 5 s" takes no time, and its sample is exactly 5 s. The 2026-07-28 timing reads
//! the wall clock (it crosses replicas), so those tests run in real time, with short waits.
//!
//! `cargo test -p elicit-examples --features metrics --test observe_clients`

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use mcp_elicit::Revision;
use mcp_elicit::observe::{ClientNames, TooFast};
use mcp_elicit::rmcp::AskConfig;
use metrics_util::debugging::{DebugValue, DebuggingRecorder};

#[macro_use]
mod common;

use common::{
    Client, Ops, accept, connect, decline, deploy, drop_users, form_only, ops_with, staging,
};
use serde_json::json;

/// What was recorded: each metric as `name{label=value,…}` (labels sorted), and its value.
struct Recorded(BTreeMap<String, DebugValue>);

impl Recorded {
    fn counter(&self, key: &str) -> u64 {
        match self.0.get(key) {
            Some(DebugValue::Counter(n)) => *n,
            None => 0,
            Some(other) => panic!("{key} is not a counter: {other:?}"),
        }
    }

    /// The samples of a histogram, in seconds.
    fn samples(&self, key: &str) -> Vec<f64> {
        match self.0.get(key) {
            Some(DebugValue::Histogram(samples)) => samples.iter().map(|s| s.0).collect(),
            None => Vec::new(),
            Some(other) => panic!("{key} is not a histogram: {other:?}"),
        }
    }

    /// Every value the label `label` took, in any metric.
    fn values_of(&self, label: &str) -> BTreeSet<String> {
        let prefix = format!("{label}=");
        self.0
            .keys()
            .flat_map(|key| {
                let labels = key
                    .split_once('{')
                    .map_or("", |(_, l)| l.trim_end_matches('}'));
                labels.split(',').map(str::to_owned).collect::<Vec<_>>()
            })
            .filter_map(|pair| pair.strip_prefix(&prefix).map(str::to_owned))
            .collect()
    }
}

/// Runs `test` on a paused current-thread runtime with a recorder of its own: what it recorded.
fn recorded<F: Future<Output = ()>>(test: impl FnOnce() -> F) -> Recorded {
    recorded_on(true, test)
}

/// [`recorded`] on tokio's real clock.
fn recorded_in_real_time<F: Future<Output = ()>>(test: impl FnOnce() -> F) -> Recorded {
    recorded_on(false, test)
}

fn recorded_on<F: Future<Output = ()>>(paused: bool, test: impl FnOnce() -> F) -> Recorded {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    metrics::with_local_recorder(&recorder, || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(paused)
            .build()
            .expect("a runtime");
        runtime.block_on(test());
    });
    let mut recorded = BTreeMap::new();
    for (key, _, _, value) in snapshotter.snapshot().into_vec() {
        let mut labels: Vec<String> = key
            .key()
            .labels()
            .map(|l| format!("{}={}", l.key(), l.value()))
            .collect();
        labels.sort();
        recorded.insert(
            format!("{}{{{}}}", key.key().name(), labels.join(",")),
            value,
        );
    }
    Recorded(recorded)
}

/// `ops_server` counting the clients named "Claude Code" and "Cursor" by name.
fn counting(too_fast: TooFast) -> Ops {
    let asking = AskConfig::single_user("me").expect("the OS has randomness");
    let names = ClientNames::new(["Claude Code", "Cursor"]);
    ops_with(asking.with_client_names(names).with_too_fast(too_fast))
}

/// `deploy`, called on `revision` by a client named `name` that answers `answer` after `after`.
async fn deploy_by(
    revision: Revision,
    name: &str,
    answer: rmcp::model::ElicitResult,
    after: Duration,
) {
    deploy_judged_by(revision, TooFast::DEFAULT, name, [answer], after).await;
}

/// [`deploy_by`], with the server's `too_fast` and the client's `answers` in turn; what the
/// tool returned.
async fn deploy_judged_by<const N: usize>(
    revision: Revision,
    too_fast: TooFast,
    name: &str,
    answers: [rmcp::model::ElicitResult; N],
    after: Duration,
) -> common::Returned {
    let user = Client::declaring(form_only())
        .named(name)
        .answering(answers)
        .after(after);
    let s = connect(revision, counting(too_fast), user).await;
    s.call("deploy", deploy()).await
}

#[test]
fn an_allowed_clients_answers_are_counted_and_timed_under_its_normalized_name() {
    let recorded = recorded(|| async {
        let v = Revision::V2025_11_25;
        deploy_by(v, "claude_code", decline(), Duration::ZERO).await;
        deploy_by(v, "  CLAUDE CODE ", staging(), Duration::from_secs(5)).await;
    });

    let asked = "elicit_asked_total{client=claude-code,elicitation=DeployTarget}";
    assert_eq!(recorded.counter(asked), 2);
    let answered = |outcome: &str| {
        format!(
            "elicit_answered_total{{client=claude-code,elicitation=DeployTarget,outcome={outcome}}}"
        )
    };
    assert_eq!(recorded.counter(&answered("declined")), 1);
    assert_eq!(recorded.counter(&answered("accepted")), 1);
    let seconds =
        |outcome: &str| format!("elicit_answer_seconds{{client=claude-code,outcome={outcome}}}");
    assert_eq!(recorded.samples(&seconds("declined")), [0.0]);
    assert_eq!(recorded.samples(&seconds("accepted")), [5.0]);
    assert_eq!(
        recorded.values_of("client"),
        BTreeSet::from(["claude-code".into()])
    );
}

#[test]
fn an_instant_decline_is_too_fast_and_a_slow_answer_is_not() {
    let recorded = recorded(|| async {
        let v = Revision::V2025_11_25;
        deploy_by(v, "Cursor", decline(), Duration::ZERO).await;
        deploy_by(v, "Cursor", decline(), Duration::from_secs(5)).await;
        deploy_by(v, "Cursor", staging(), Duration::from_secs(5)).await;
    });

    let too_fast = |outcome: &str| {
        format!("elicit_answered_too_fast_total{{client=cursor,outcome={outcome}}}")
    };
    assert_eq!(
        recorded.counter(&too_fast("declined")),
        1,
        "the instant one only"
    );
    assert_eq!(recorded.counter(&too_fast("accepted")), 0);
    let declined = "elicit_answer_seconds{client=cursor,outcome=declined}";
    assert_eq!(recorded.samples(declined), [0.0, 5.0]);
}

#[test]
fn the_threshold_grows_with_the_forms_fields() {
    // DeployTarget has three fields: 1 s + 3 × 250 ms = 1.75 s. An answer after 1.5 s is past
    // the floor and still too fast; one after 2 s is not.
    let recorded = recorded(|| async {
        let v = Revision::V2025_11_25;
        deploy_by(v, "Cursor", staging(), Duration::from_millis(1500)).await;
        deploy_by(v, "Cursor", staging(), Duration::from_secs(2)).await;
    });

    let too_fast = "elicit_answered_too_fast_total{client=cursor,outcome=accepted}";
    assert_eq!(recorded.counter(too_fast), 1);
    let seconds = "elicit_answer_seconds{client=cursor,outcome=accepted}";
    assert_eq!(recorded.samples(seconds), [1.5, 2.0]);
}

/// A user who accepts the consent form with its box unticked, on `revision`: the tool reads a
/// decline. What was recorded.
fn unticked_consent(revision: Revision) -> Recorded {
    recorded(|| async move {
        let user = Client::declaring(form_only())
            .named("Cursor")
            .answering([accept(json!({"confirm": false}))]);
        let s = connect(revision, counting(TooFast::DEFAULT), user).await;
        let dropped = s.call("drop_table", drop_users()).await;
        assert_eq!(dropped.0, "You declined: `users` was not dropped.");
    })
}

#[test]
fn an_answer_is_timed_under_the_outcome_its_reading_counted() {
    // A consent form accepted with its box unticked: the tool reads a decline, the reading
    // counts a decline, and the answer is timed (and judged too fast) under that one, never
    // under another derived from the action.
    let recorded = unticked_consent(Revision::V2025_11_25);

    let outcomes = recorded.values_of("outcome");
    let [outcome] = &outcomes.iter().collect::<Vec<_>>()[..] else {
        panic!("one outcome in every metric: {outcomes:?}")
    };
    assert_eq!(outcome.as_str(), "declined");
    let counted =
        format!("elicit_answered_total{{client=cursor,elicitation=DropTable,outcome={outcome}}}");
    assert_eq!(recorded.counter(&counted), 1);
    let seconds = format!("elicit_answer_seconds{{client=cursor,outcome={outcome}}}");
    assert_eq!(recorded.samples(&seconds), [0.0]);
    let too_fast = format!("elicit_answered_too_fast_total{{client=cursor,outcome={outcome}}}");
    assert_eq!(recorded.counter(&too_fast), 1);
}

#[test]
fn an_unticked_consent_counts_as_declined_in_rounds_too() {
    let recorded = unticked_consent(Revision::V2026_07_28);

    let declined = "elicit_answered_total{client=cursor,elicitation=DropTable,outcome=declined}";
    assert_eq!(recorded.counter(declined), 1);
    let accepted = "elicit_answered_total{client=cursor,elicitation=DropTable,outcome=accepted}";
    assert_eq!(recorded.counter(accepted), 0);
}

#[test]
fn the_threshold_is_the_servers_to_set() {
    let recorded = recorded(|| async {
        let user = Client::declaring(form_only())
            .named("Cursor")
            .answering([decline()])
            .after(Duration::from_secs(5));
        // A server whose users are known to answer in under ten seconds only by script.
        let too_fast = TooFast::new(Duration::from_secs(10), Duration::ZERO);
        let s = connect(Revision::V2025_11_25, counting(too_fast), user).await;
        s.call("deploy", deploy()).await;
    });

    let too_fast = "elicit_answered_too_fast_total{client=cursor,outcome=declined}";
    assert_eq!(recorded.counter(too_fast), 1);
}

#[test]
fn any_other_name_is_other_and_no_name_is_unknown_whatever_clients_send() {
    let recorded = recorded(|| async {
        let v = Revision::V2025_11_25;
        for n in 0..20 {
            let name = format!("bot-{n}-{}", "x".repeat(n * 10));
            deploy_by(v, &name, decline(), Duration::ZERO).await;
        }
        deploy_by(v, "", decline(), Duration::ZERO).await;
        deploy_by(v, " ~~ ", decline(), Duration::ZERO).await;
    });

    let other = "elicit_answered_total{client=other,elicitation=DeployTarget,outcome=declined}";
    assert_eq!(recorded.counter(other), 20);
    let unknown = "elicit_answered_total{client=unknown,elicitation=DeployTarget,outcome=declined}";
    assert_eq!(recorded.counter(unknown), 2);
    let clients = BTreeSet::from(["other".into(), "unknown".into()]);
    assert_eq!(recorded.values_of("client"), clients);
}

#[test]
fn on_2026_07_28_the_counts_carry_the_client_and_each_answer_is_timed_from_its_round() {
    // A threshold of 300 ms, in real time: an instant decline is too fast, an answer after
    // 700 ms is not.
    let too_fast = TooFast::new(Duration::from_millis(300), Duration::ZERO);
    let recorded = recorded_in_real_time(|| async {
        let v = Revision::V2026_07_28;
        deploy_judged_by(v, too_fast, "Claude Code", [decline()], Duration::ZERO).await;
        deploy_judged_by(
            v,
            too_fast,
            "Claude Code",
            [decline()],
            Duration::from_millis(700),
        )
        .await;
    });

    let asked = "elicit_asked_total{client=claude-code,elicitation=DeployTarget}";
    assert_eq!(recorded.counter(asked), 2);
    let declined =
        "elicit_answered_total{client=claude-code,elicitation=DeployTarget,outcome=declined}";
    assert_eq!(recorded.counter(declined), 2);
    let too_fast = "elicit_answered_too_fast_total{client=claude-code,outcome=declined}";
    assert_eq!(recorded.counter(too_fast), 1, "the instant one only");
    let mut seconds =
        recorded.samples("elicit_answer_seconds{client=claude-code,outcome=declined}");
    seconds.sort_by(f64::total_cmp);
    let [instant, slow] = seconds[..] else {
        panic!("both answers timed: {seconds:?}")
    };
    assert!(instant < 0.3, "{instant}");
    // From the round that asked to the retry: the client's 700 ms and both trips.
    assert!((0.7..5.0).contains(&slow), "{slow}");
}

/// A client that accepts the form with `{}`, as Codex has for forms it rendered as an approval:
/// counted per client on its own (and as rejected), asked once more naming the required fields
/// it left out, then the call ends with an `isError` result naming them.
#[test]
fn an_empty_accept_is_counted_per_client_on_both_revisions() {
    for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
        let recorded = recorded(|| async move {
            let returned = deploy_judged_by(
                revision,
                TooFast::DEFAULT,
                "Cursor",
                [accept(json!({}))],
                Duration::ZERO,
            )
            .await;
            assert_eq!(
                returned,
                common::error(
                    "The answer could not be used after 2 tries: Environment is required; \
                     Replicas is required. Nothing was deployed."
                ),
                "{revision}"
            );
        });
        let empty = "elicit_accepted_empty_total{client=cursor}";
        assert_eq!(recorded.counter(empty), 2, "{revision}: both tries");
        let rejected =
            "elicit_answered_total{client=cursor,elicitation=DeployTarget,outcome=rejected}";
        assert_eq!(recorded.counter(rejected), 2, "{revision}");
    }
}

/// A form answered with a field: not empty, however many are missing.
#[test]
fn an_accept_missing_only_some_fields_is_not_counted_as_empty() {
    let recorded = recorded(|| async {
        let v = Revision::V2025_11_25;
        deploy_by(v, "Cursor", accept(json!({"replicas": 2})), Duration::ZERO).await;
    });
    assert_eq!(
        recorded.counter("elicit_accepted_empty_total{client=cursor}"),
        0
    );
    let rejected = "elicit_answered_total{client=cursor,elicitation=DeployTarget,outcome=rejected}";
    assert_eq!(recorded.counter(rejected), 2);
}
