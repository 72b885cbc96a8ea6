//! Multi round-trip requests (2026-07-28), reading a retry: answers are read by key into typed
//! outcomes; a missing one is asked again, an unknown one ignored, a malformed `inputResponses`
//! invalid params; decline and cancel are final; an answer is read only for the question the
//! server asked, once per run.

use std::collections::BTreeMap;

use elicit_core::mrtr::{Ask, MrtrError, Retry};
use elicit_core::{Elicit, Elicitation, UrlOutcome, UrlRequest};
use serde_json::{Value, json};

mod common;

use common::*;

#[test]
fn url_mode_elicitations_are_asked_and_read_as_url_outcomes() {
    let rounds = rounds();
    let params = json!({ "name": "connect", "_meta": capabilities(json!({ "elicitation": { "url": {} } })) });
    let page = || {
        UrlRequest::new(
            "Connect your Example Co account.",
            "https://mcp.example.com/connect?flow=7f3a",
        )
        .unwrap()
    };
    let result = ask(round::<()>(&rounds, &params)
        .unwrap()
        .answer(Ask::url("connect", page()))
        .unwrap());
    assert_eq!(
        result.to_value()["inputRequests"]["connect"]["params"],
        json!({
            "mode": "url",
            "message": "Connect your Example Co account.",
            "url": "https://mcp.example.com/connect?flow=7f3a",
        })
    );
    let retried = retry(
        &params,
        &result,
        json!({ "connect": { "action": "accept" } }),
    );
    let outcome = ready(
        round::<()>(&rounds, &retried)
            .unwrap()
            .answer(Ask::url("connect", page()))
            .unwrap(),
    );
    assert_eq!(outcome, UrlOutcome::Accept);

    // A form cannot be sent to a client that declared only URL mode.
    let mut round = round::<()>(&rounds, &params).unwrap();
    let error = round.answer(Ask::form::<Window>("window")).unwrap_err();
    assert_eq!(
        error.to_jsonrpc_error().to_value()["data"],
        json!({ "requiredCapabilities": { "elicitation": { "form": {} } } })
    );
}

#[test]
fn a_retry_reads_answers_by_key_into_typed_outcomes() {
    let rounds = rounds();
    let params = call();
    let asks = || {
        (
            Ask::form::<DeployTarget>("target"),
            Ask::form::<Window>("window"),
        )
    };
    let result = ask(round::<()>(&rounds, &params)
        .unwrap()
        .answer(asks())
        .unwrap());
    let retried = retry(
        &params,
        &result,
        json!({
            "target": accept(json!({ "env": "production", "ticket": "CHG-1234" })),
            "window": accept(json!({ "hour": 22 })),
        }),
    );
    let (target, window) = ready(
        round::<()>(&rounds, &retried)
            .unwrap()
            .answer(asks())
            .unwrap(),
    );
    assert_eq!(
        target,
        Elicitation::Accept(DeployTarget {
            env: Env::Production,
            ticket: Some("CHG-1234".into())
        })
    );
    assert_eq!(window, Elicitation::Accept(Window { hour: 22 }));
}

#[test]
fn a_missing_answer_is_asked_again_not_an_error() {
    let rounds = rounds();
    let params = call();
    let asks = || {
        (
            Ask::form::<DeployTarget>("target"),
            Ask::form::<Window>("window"),
        )
    };
    let result = ask(round::<()>(&rounds, &params)
        .unwrap()
        .answer(asks())
        .unwrap());
    let retried = retry(
        &params,
        &result,
        json!({ "window": accept(json!({ "hour": 6 })) }),
    );
    let again = ask(round::<()>(&rounds, &retried)
        .unwrap()
        .answer(asks())
        .unwrap());
    assert_eq!(
        keys_of(&again),
        ["target"],
        "only the missing answer is asked again"
    );

    // The answer already given travels in the state: the next retry need only carry `target`.
    let last = retry(
        &params,
        &again,
        json!({ "target": accept(json!({ "env": "staging" })) }),
    );
    let (_, window) = ready(round::<()>(&rounds, &last).unwrap().answer(asks()).unwrap());
    assert_eq!(window, Elicitation::Accept(Window { hour: 6 }));
}

#[test]
fn a_key_is_read_once_per_run() {
    let rounds = rounds();
    let params = call();
    let mut run = round::<()>(&rounds, &params).unwrap();
    let _first = run.answer(Ask::form::<Window>("window")).unwrap();
    let again = run.answer(Ask::form::<Window>("window"));
    assert!(
        matches!(&again, Err(MrtrError::DuplicateKey { key }) if key == "window"),
        "a second question under a key would read the first one's answer: {again:?}"
    );
}

/// A consent form whose message names the table, asked under the key `confirm`.
fn drop_consent(table: &str) -> Ask<Elicitation<serde_json::Map<String, Value>>> {
    let schema =
        elicit_core::schema::RequestedSchema::new(vec![elicit_core::schema::Property::new(
            "confirm",
            elicit_core::schema::BooleanSchema::new(),
        )])
        .unwrap();
    let form = elicit_core::FormRequest::new(format!("Drop table `{table}`?"), schema).unwrap();
    Ask::form_request("confirm", form)
}

#[test]
fn a_fresh_answer_is_read_only_for_the_question_it_answered() {
    let rounds = rounds();
    let params = call();
    let first = asked(&rounds, &params, drop_consent("staging_tmp"));
    // The retry's run asks about another table under the same key (the list it drops from
    // changed): the user's yes was not about it.
    let retried = retry(
        &params,
        &first,
        json!({ "confirm": accept(json!({ "confirm": true })) }),
    );
    let again = asked(&rounds, &retried, drop_consent("customers"));
    assert_eq!(message_of(&again, "confirm"), "Drop table `customers`?");
}

#[test]
fn a_carried_answer_is_read_only_for_the_question_it_answered() {
    let rounds = rounds();
    let params = call();
    let asks = |table: &str| (drop_consent(table), Ask::form::<Window>("window"));
    let first = asked(&rounds, &params, asks("staging_tmp"));
    // Round 2: the consent is answered, the window not yet: the consent is carried.
    let retried = retry(
        &params,
        &first,
        json!({ "confirm": accept(json!({ "confirm": true })) }),
    );
    let second = asked(&rounds, &retried, asks("staging_tmp"));
    assert_eq!(keys_of(&second), ["window"]);
    // Round 3 asks about another table: the carried yes is not read for it.
    let retried = retry(
        &params,
        &second,
        json!({ "window": accept(json!({ "hour": 9 })) }),
    );
    let third = asked(&rounds, &retried, asks("customers"));
    assert_eq!(keys_of(&third), ["confirm"]);
    assert_eq!(message_of(&third, "confirm"), "Drop table `customers`?");
    // And with the same table, the carried yes and the fresh window complete the call.
    let (consent, window) = ready(
        round::<()>(&rounds, &retried)
            .unwrap()
            .answer(asks("staging_tmp"))
            .unwrap(),
    );
    assert!(consent.is_accepted());
    assert_eq!(window, Elicitation::Accept(Window { hour: 9 }));
}

#[test]
fn unknown_response_keys_are_ignored() {
    let rounds = rounds();
    let params = call();
    let result = asked(&rounds, &params, Ask::form::<Window>("window"));
    let retried = retry(
        &params,
        &result,
        json!({
            "window": accept(json!({ "hour": 9 })),
            "surprise": { "anything": true },
        }),
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
fn malformed_input_responses_is_invalid_params() {
    let mut params = call();
    params["inputResponses"] = json!([{ "action": "accept" }]);
    let error = Retry::from_params(&params).unwrap_err();
    assert_eq!(
        error.to_jsonrpc_error().to_value(),
        json!({
            "code": -32602,
            "message": "`inputResponses` must be an object keyed by the inputRequests keys, but is an array",
            "data": { "field": "inputResponses" },
        })
    );
    params["inputResponses"] = json!(null);
    params["requestState"] = json!(7);
    let error = Retry::from_params(&params).unwrap_err();
    assert_eq!(
        error.to_string(),
        "`requestState` must be the string the server sent, but is a number"
    );
    assert_eq!(
        error.to_jsonrpc_error().to_value()["data"],
        json!({ "field": "requestState" })
    );
    assert!(matches!(
        Retry::from_params(&json!([])),
        Err(MrtrError::ParamsNotAnObject { .. })
    ));
}

#[test]
fn decline_and_cancel_are_final_answers_never_asked_again() {
    let rounds = rounds();
    let params = call();
    for (action, outcome) in [
        ("decline", Elicitation::Decline),
        ("cancel", Elicitation::Cancel),
    ] {
        let result = asked(&rounds, &params, Ask::form::<DeployTarget>("target"));
        let retried = retry(&params, &result, json!({ "target": { "action": action } }));
        let mut round = round::<()>(&rounds, &retried).unwrap();
        let target = ready(round.answer(Ask::form::<DeployTarget>("target")).unwrap());
        assert_eq!(target, outcome);

        // A later ask in the same run carries the refusal forward: on the next retry it is still
        // the answer, and `target` is not among the requests.
        let later = ask(round.answer(Ask::form::<Window>("window")).unwrap());
        assert_eq!(keys_of(&later), ["window"]);
        let third = retry(
            &params,
            &later,
            json!({ "window": accept(json!({ "hour": 1 })) }),
        );
        let mut round = self::round::<()>(&rounds, &third).unwrap();
        let target = ready(round.answer(Ask::form::<DeployTarget>("target")).unwrap());
        assert_eq!(target, outcome);
    }
}

#[test]
fn answers_the_server_did_not_ask_for_are_ignored() {
    let rounds = rounds();
    // A first request that arrives with a pre-filled "consent" and no state: never read.
    let mut params = call();
    params["inputResponses"] =
        json!({ "target": accept(json!({ "env": "production", "ticket": "CHG-0001" })) });
    let result = asked(&rounds, &params, Ask::form::<DeployTarget>("target"));
    assert_eq!(keys_of(&result), ["target"]);

    // A retry answering a key that round did not ask: not read either.
    let first = call();
    let asked_window = asked(&rounds, &first, Ask::form::<Window>("window"));
    let retried = retry(
        &first,
        &asked_window,
        json!({
            "window": accept(json!({ "hour": 3 })),
            "target": accept(json!({ "env": "production", "ticket": "CHG-0001" })),
        }),
    );
    let mut round = round::<()>(&rounds, &retried).unwrap();
    assert!(ready(round.answer(Ask::form::<Window>("window")).unwrap()).is_accepted());
    let target = ask(round.answer(Ask::form::<DeployTarget>("target")).unwrap());
    assert_eq!(keys_of(&target), ["target"]);
}

#[test]
fn input_responses_from_a_transport_map_read_the_same() {
    let rounds = rounds();
    let params = call();
    let result = asked(&rounds, &params, Ask::form::<Window>("window"));
    // What rmcp hands over: `BTreeMap<String, Value>` and `Option<String>`.
    let responses: BTreeMap<String, Value> =
        BTreeMap::from([("window".to_owned(), accept(json!({ "hour": 12 })))]);
    let request_state: Option<String> = result.request_state().map(str::to_owned);
    let capabilities = Retry::from_params(&params)
        .unwrap()
        .capabilities()
        .to_owned();
    let retry = Retry::new(capabilities)
        .with_input_response_pairs(&responses)
        .with_request_state(request_state.as_deref());
    let mut round = rounds.round::<()>(retry, binding(&params), NOW).unwrap();
    assert_eq!(
        ready(round.answer(Ask::form::<Window>("window")).unwrap()),
        Elicitation::Accept(Window { hour: 12 })
    );
}

/// A derived form's question is made once per type: it is the question the same form makes
/// anew at run time, so an answer to one is read for the other; and a form changed at run time
/// is another question.
#[test]
fn a_derived_forms_question_is_the_same_made_once_or_anew() {
    let rounds = rounds();
    let params = call();
    let retried = window_answered(&rounds, &params, accept(json!({ "hour": 9 })));
    // Changed at run time, then back: made anew, the same question, so the answer is read.
    let anew = Window::form_request()
        .with_message("another message")
        .and_then(|form| form.with_message(Window::form_request().message().to_owned()))
        .unwrap();
    let window = ready(
        round::<()>(&rounds, &retried)
            .unwrap()
            .answer(Ask::form_request("window", anew))
            .unwrap(),
    );
    assert_eq!(window, Elicitation::Accept(Window { hour: 9 }));
    // Another message: another question, asked again rather than read.
    let other = Window::form_request()
        .with_message("When, for the other one?")
        .unwrap();
    let again = asked(&rounds, &retried, Ask::form_request("window", other));
    assert_eq!(keys_of(&again), ["window"]);
    assert_eq!(message_of(&again, "window"), "When, for the other one?");
}

/// A round parked while its handler waits (the rmcp `Asker` parks it while a retry waits for a
/// URL flow's page) reads, once resumed, exactly what it would have read: the fresh answer, the
/// carried one, each for the question it answered.
#[test]
fn a_parked_round_reads_the_same_answers_once_resumed() {
    let rounds = rounds();
    let params = call();
    let asks = || (drop_consent("staging_tmp"), Ask::form::<Window>("window"));
    let first = asked(&rounds, &params, asks());
    let retried = retry(
        &params,
        &first,
        json!({ "confirm": accept(json!({ "confirm": true })) }),
    );
    let second = asked(&rounds, &retried, asks());
    let retried = retry(
        &params,
        &second,
        json!({ "window": accept(json!({ "hour": 9 })) }),
    );
    let round = Box::new(round::<()>(&rounds, &retried).unwrap());
    let mut round = round.park().resume();
    let (confirm, window) = ready(round.answer(asks()).unwrap());
    assert!(matches!(confirm, Elicitation::Accept(c) if c["confirm"] == json!(true)));
    assert!(matches!(window, Elicitation::Accept(_)));
}

/// A parked round keeps an answer that is only an action (a URL question's) as that action:
/// resumed, each reads as it was sent, and an answer with more than an action is kept whole.
#[test]
fn a_parked_round_reads_the_same_url_answers_once_resumed() {
    let rounds = rounds();
    let params = json!({ "name": "connect", "_meta": capabilities(json!({ "elicitation": { "url": {}, "form": {} } })) });
    let page = |name: &str| {
        UrlRequest::new("Connect your account.", "https://mcp.example.com/connect")
            .unwrap()
            .with_name(name.to_owned())
    };
    let asks = || {
        (
            Ask::url("first", page("first")),
            Ask::url("second", page("second")),
            Ask::url("third", page("third")),
        )
    };
    let first = ask(round::<()>(&rounds, &params)
        .unwrap()
        .answer(asks())
        .unwrap());
    let retried = retry(
        &params,
        &first,
        json!({
            "first": { "action": "accept" },
            "second": { "action": "decline" },
            "third": { "action": "cancel" },
        }),
    );
    let parked = Box::new(round::<()>(&rounds, &retried).unwrap()).park();
    let mut resumed = parked.resume();
    assert_eq!(
        ready(resumed.answer(asks()).unwrap()),
        (UrlOutcome::Accept, UrlOutcome::Decline, UrlOutcome::Cancel)
    );
    // An answer with more than its action (a form's content) comes back whole.
    let asks = || Ask::form::<Window>("window");
    let first = ask(round::<()>(&rounds, &params)
        .unwrap()
        .answer(asks())
        .unwrap());
    let retried = retry(
        &params,
        &first,
        json!({ "window": accept(json!({ "hour": 9 })) }),
    );
    let parked = Box::new(round::<()>(&rounds, &retried).unwrap()).park();
    let mut resumed = parked.resume();
    assert!(
        matches!(ready(resumed.answer(asks()).unwrap()), Elicitation::Accept(w) if w == Window { hour: 9 })
    );
}

/// Drop the table for good?
#[derive(elicit_derive::Elicit, Debug)]
#[elicit(crate = elicit_core, consent)]
struct DropIt {
    #[elicit(consent)]
    confirm: bool,
}

/// A consent accepted sooner after the round that asked it than a person can read it (the
/// asking time sealed in the state, against the retry's arrival) is neither taken nor carried:
/// with another question still missing, the run ends in `AutomaticConsent`, and a later round
/// asks the consent again rather than read the automatic yes. At a person's pace (here a
/// threshold of 50 ms, the server's to set) it is taken.
#[test]
fn a_consent_faster_than_a_person_is_neither_taken_nor_carried() {
    use elicit_core::observe::TooFast;
    use std::time::Duration;

    let rounds = rounds();
    let params = call();
    let asks = || {
        (
            Ask::consent::<DropIt>("drop"),
            Ask::form::<Window>("window"),
        )
    };
    let first = asked(&rounds, &params, asks());
    let retried = retry(
        &params,
        &first,
        json!({ "drop": accept(json!({ "confirm": true })) }),
    );
    let mut run = round::<()>(&rounds, &retried).unwrap();
    let error = run.answer(asks()).unwrap_err();
    let MrtrError::AutomaticConsent(automatic) = &error else {
        panic!("expected an automatic consent, got {error:?}");
    };
    assert_eq!(automatic.form(), "DropIt");
    assert_eq!(automatic.threshold(), Duration::from_millis(1_250));
    assert!(
        automatic.elapsed() < Duration::from_millis(1_250),
        "{automatic}"
    );
    assert_eq!(
        error.to_jsonrpc_error().to_value()["data"],
        json!({ "field": "inputResponses" })
    );
    // Whatever the handler does next in this run, the automatic yes is not in its state.
    let checkpoint = run.checkpoint().unwrap();
    let later = retry(
        &params,
        &checkpoint,
        json!({ "window": accept(json!({ "hour": 9 })) }),
    );
    let mut run = round::<()>(&rounds, &later).unwrap();
    run.set_too_fast(TooFast::new(Duration::ZERO, Duration::ZERO));
    let again = ask(run.answer(asks()).unwrap());
    assert!(keys_of(&again).contains(&"drop"), "{:?}", keys_of(&again));

    // A person's pace: taken.
    let first = asked(&rounds, &params, Ask::consent::<DropIt>("drop"));
    std::thread::sleep(Duration::from_millis(80));
    let retried = retry(
        &params,
        &first,
        json!({ "drop": accept(json!({ "confirm": true })) }),
    );
    let mut run = round::<()>(&rounds, &retried).unwrap();
    run.set_too_fast(TooFast::new(Duration::from_millis(50), Duration::ZERO));
    let consent = ready(run.answer(Ask::consent::<DropIt>("drop")).unwrap());
    assert!(consent.is_accepted());
}
