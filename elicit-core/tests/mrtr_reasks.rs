//! Multi round-trip requests (2026-07-28), re-asking: an answer that cannot be used is asked
//! again, saying what was wrong, as many times as the rounds allow, then the question is
//! rejected; a URL answer that cannot be read counts against the same re-asks.

use elicit_core::Elicitation;
use elicit_core::mrtr::{Answer, Ask};
use serde_json::json;

mod common;

use common::*;

#[test]
fn an_unparsable_or_invalid_answer_is_asked_again() {
    let rounds = rounds();
    let params = call();
    let result = ask(round::<()>(&rounds, &params)
        .unwrap()
        .answer(Ask::form::<Window>("window"))
        .unwrap());
    for bad in [
        accept(json!({ "hour": 24 })),
        json!({ "action": "maybe" }),
        json!("accept"),
    ] {
        let retried = retry(&params, &result, json!({ "window": bad }));
        let mut round = round::<()>(&rounds, &retried).unwrap();
        let again = ask(round.answer(Ask::form::<Window>("window")).unwrap());
        assert_eq!(keys_of(&again), ["window"]);
        let [(key, _reason)] = round.unusable_answers() else {
            panic!("one unusable answer")
        };
        assert_eq!(key, "window");
    }
}

#[test]
fn an_invalid_answer_is_asked_again_once_saying_what_was_wrong_then_rejected() {
    let rounds = rounds();
    let params = call();
    let first = asked(&rounds, &params, Ask::form::<Window>("window"));
    let original = message_of(&first, "window").to_owned();

    // The first invalid answer: asked again, the message saying which field broke which rule.
    let retried = retry(
        &params,
        &first,
        json!({ "window": accept(json!({ "hour": 24 })) }),
    );
    let again = asked(&rounds, &retried, Ask::form::<Window>("window"));
    assert_eq!(
        message_of(&again, "window"),
        format!("Your last answer could not be used: hour must be at most 23.\n\n{original}")
    );
    assert_eq!(
        again.input_requests().get("window").unwrap()["params"]["requestedSchema"],
        first.input_requests().get("window").unwrap()["params"]["requestedSchema"],
        "the same form is asked again",
    );

    // The second: the re-ask is spent, whatever the client does with the state.
    let retried = retry(
        &params,
        &again,
        json!({ "window": accept(json!({ "hour": -1 })) }),
    );
    let mut round = round::<()>(&rounds, &retried).unwrap();
    let Answer::Rejected(rejected) = round.answer(Ask::form::<Window>("window")).unwrap() else {
        panic!("the re-ask is spent")
    };
    assert_eq!(rejected.asks(), 2);
    assert_eq!(rejected.name(), "Window");
    assert_eq!(rejected.explanation(), "hour must be at least 0.");
    assert_eq!(
        rejected.to_string(),
        "The answer could not be used after 2 tries: hour must be at least 0."
    );
    assert!(
        rejected
            .error()
            .violations()
            .is_some_and(|v| v.concerns("hour"))
    );
}

#[test]
fn a_valid_answer_after_an_invalid_one_is_used() {
    let rounds = rounds();
    let params = call();
    let retried = window_answered(&rounds, &params, accept(json!({ "hour": 99 })));
    let again = asked(&rounds, &retried, Ask::form::<Window>("window"));
    let retried = retry(
        &params,
        &again,
        json!({ "window": accept(json!({ "hour": 9 })) }),
    );
    let window = ready(
        round::<()>(&rounds, &retried)
            .unwrap()
            .answer(Ask::form::<Window>("window"))
            .unwrap(),
    );
    assert_eq!(window, Elicitation::Accept(Window { hour: 9 }));
}

#[test]
fn reasks_are_configurable_and_corrections_do_not_pile_up() {
    for reasks in [0, 1, 3] {
        let rounds = rounds().with_reasks(reasks);
        let params = call();
        let mut result = asked(&rounds, &params, Ask::form::<Window>("window"));
        let original = message_of(&result, "window").to_owned();
        let mut asks = 1;
        loop {
            let retried = retry(
                &params,
                &result,
                json!({ "window": accept(json!({ "hour": 30 })) }),
            );
            match round::<()>(&rounds, &retried)
                .unwrap()
                .answer(Ask::form::<Window>("window"))
                .unwrap()
            {
                Answer::Ask(again) => {
                    asks += 1;
                    assert_eq!(
                        message_of(&again, "window"),
                        format!(
                            "Your last answer could not be used: hour must be at most 23.\n\n{original}"
                        ),
                        "ask {asks} with {reasks} re-asks",
                    );
                    result = again;
                }
                Answer::Rejected(rejected) => {
                    assert_eq!(rejected.asks(), asks);
                    break;
                }
                Answer::Ready(_) => panic!("an invalid answer is never ready"),
            }
        }
        assert_eq!(asks, reasks + 1, "asked once plus {reasks} re-asks");
    }
}

#[test]
fn a_rejected_question_asks_nothing_else() {
    let rounds = rounds().with_reasks(0);
    let params = call();
    let asks = || {
        (
            Ask::form::<DeployTarget>("target"),
            Ask::form::<Window>("window"),
        )
    };
    let first = asked(&rounds, &params, asks());
    assert_eq!(keys_of(&first), ["target", "window"]);
    let retried = retry(
        &params,
        &first,
        json!({ "window": accept(json!({ "hour": 24 })) }),
    );
    let mut round = round::<()>(&rounds, &retried).unwrap();
    let Answer::Rejected(rejected) = round.answer(asks()).unwrap() else {
        panic!("no re-asks allowed")
    };
    assert_eq!(rejected.name(), "Window");
    // The next `answer` in the same run starts clean: nothing of the rejected round is sent.
    let next = ask(round.answer(Ask::form::<DeployTarget>("later")).unwrap());
    assert_eq!(keys_of(&next), ["later"]);
}

#[test]
fn an_unreadable_url_answer_counts_against_the_same_reasks() {
    let rounds = rounds();
    let params = call();
    let page = || {
        Ask::url(
            "connect",
            elicit_core::UrlRequest::new("Connect your account.", "https://example.com/connect")
                .unwrap(),
        )
    };
    let meta = capabilities(json!({ "elicitation": { "url": {} } }));
    let mut params = params;
    params["_meta"] = meta;
    let first = asked(&rounds, &params, page());
    let retried = retry(&params, &first, json!({ "connect": { "action": "maybe" } }));
    let again = asked(&rounds, &retried, page());
    assert_eq!(
        again.input_requests().get("connect").unwrap(),
        first.input_requests().get("connect").unwrap(),
        "a URL request is asked again as it was"
    );
    let retried = retry(&params, &again, json!({ "connect": { "action": "maybe" } }));
    let Answer::Rejected(rejected) = round::<()>(&rounds, &retried)
        .unwrap()
        .answer(page())
        .unwrap()
    else {
        panic!("the re-ask is spent")
    };
    assert_eq!(
        rejected.explanation(),
        "the client's reply could not be read (`action` must be \"accept\", \"decline\" or \"cancel\")."
    );
}

/// A re-asked form pre-fills each field whose answer kept its rules, as its `default`, and
/// not the field that broke one; the message says what was wrong, as before.
#[test]
fn a_reasked_form_prefills_what_kept_its_rules() {
    let rounds = rounds();
    let params = call();
    let first = asked(&rounds, &params, Ask::form::<DeployTarget>("target"));
    let schema_of = |result: &elicit_core::mrtr::InputRequiredResult| {
        result.input_requests().get("target").unwrap()["params"]["requestedSchema"].clone()
    };
    assert_eq!(schema_of(&first)["properties"]["env"].get("default"), None);

    // The environment kept its rules, the ticket broke one.
    let retried = retry(
        &params,
        &first,
        json!({ "target": accept(json!({ "env": "production", "ticket": "CH" })) }),
    );
    let again = asked(&rounds, &retried, Ask::form::<DeployTarget>("target"));
    let schema = schema_of(&again);
    assert_eq!(schema["properties"]["env"]["default"], "production");
    assert_eq!(schema["properties"]["ticket"].get("default"), None);
    assert!(
        message_of(&again, "target").starts_with("Your last answer could not be used: ticket "),
        "{}",
        message_of(&again, "target")
    );

    // The pre-filled answer is read as any other.
    let retried = retry(
        &params,
        &again,
        json!({ "target": accept(json!({ "env": "production", "ticket": "CHG-1" })) }),
    );
    let target = ready(
        round::<()>(&rounds, &retried)
            .unwrap()
            .answer(Ask::form::<DeployTarget>("target"))
            .unwrap(),
    );
    assert!(matches!(
        target,
        Elicitation::Accept(DeployTarget {
            env: Env::Production,
            ..
        })
    ));
}

/// Archive the project for good?
#[derive(elicit_derive::Elicit, Debug)]
#[elicit(crate = elicit_core, consent)]
struct Archive {
    #[elicit(consent)]
    confirm: bool,
    #[elicit(min_length = 10)]
    reason: String,
}

/// Consent comes from the person, every time: a consent form asked again pre-fills nothing,
/// not even a box the last answer ticked.
#[test]
fn a_reasked_consent_form_prefills_nothing() {
    let rounds = rounds();
    let params = call();
    let first = asked(&rounds, &params, Ask::consent::<Archive>("archive"));
    let retried = retry(
        &params,
        &first,
        json!({ "archive": accept(json!({ "confirm": true, "reason": "old" })) }),
    );
    let again = asked(&rounds, &retried, Ask::consent::<Archive>("archive"));
    assert_eq!(
        again.input_requests().get("archive").unwrap()["params"]["requestedSchema"],
        first.input_requests().get("archive").unwrap()["params"]["requestedSchema"],
        "asked again as first asked",
    );
    assert!(message_of(&again, "archive").starts_with("Your last answer could not be used: "));
}
