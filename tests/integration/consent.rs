//! Consent as a type: only an accepted consent form yields `Consent<T>`, and it carries what was
//! agreed to.

use mcp_elicit::{
    Elicit, Elicitation,
    reply::{ConsentForm, ConsentMismatch},
};
use serde_json::json;

/// Drop a table permanently. This cannot be undone.
#[derive(Elicit, Debug, PartialEq)]
#[elicit(consent)]
struct DropTable {
    /// Type the table's name to confirm.
    table: String,
}

/// Delete every backup of this project?
#[derive(Elicit, Debug)]
#[elicit(consent)]
struct PurgeBackups {
    #[elicit(consent, title = "I understand the backups cannot be recovered")]
    understood: bool,
    #[elicit(consent, title = "Also purge the off-site copy")]
    offsite: Option<bool>,
    /// Why (for the audit log).
    reason: Option<String>,
}

fn drop_table(
    name: &str,
    consent: mcp_elicit::Consent<DropTable>,
) -> Result<String, ConsentMismatch> {
    consent.ensure(|terms| terms.table == name)?;
    Ok(format!("dropped {name}"))
}

#[test]
fn accepted_consent_form_grants_consent_carrying_the_terms_and_message() {
    let reply = json!({"action": "accept", "content": {"table": "sessions"}});
    let Elicitation::Accept(consent) = DropTable::consent_from_reply(&reply).expect("valid") else {
        panic!("accepted consent form must grant consent");
    };
    assert_eq!(
        consent.terms(),
        &DropTable {
            table: "sessions".into()
        }
    );
    assert_eq!(
        consent.message(),
        "Drop a table permanently. This cannot be undone."
    );
    assert_eq!(
        drop_table("sessions", consent),
        Ok("dropped sessions".into())
    );
}

#[test]
fn consent_does_not_cover_another_operation() {
    let reply = json!({"action": "accept", "content": {"table": "sessions"}});
    let Elicitation::Accept(consent) = DropTable::consent_from_reply(&reply).expect("valid") else {
        panic!("accepted");
    };
    assert_eq!(drop_table("users", consent), Err(ConsentMismatch));
}

#[test]
fn decline_cancel_and_no_reply_give_no_consent() {
    assert!(matches!(
        DropTable::consent_from_reply(&json!({"action": "decline"})),
        Ok(Elicitation::Decline)
    ));
    assert!(matches!(
        DropTable::consent_from_reply(&json!({"action": "cancel"})),
        Ok(Elicitation::Cancel)
    ));
    // No reply never turns into consent: mapping an outcome keeps NoReply.
    let silence: Elicitation<DropTable> = Elicitation::NoReply;
    assert!(silence.accepted().is_none());
}

#[test]
fn invalid_accepted_reply_gives_an_error_not_consent() {
    let err = DropTable::consent_from_reply(&json!({"action": "accept", "content": {}}))
        .expect_err("the table name is required");
    assert!(err.violations().is_some_and(|v| v.concerns("table")));
}

#[test]
fn every_consent_checkbox_must_be_ticked() {
    let ticked = json!({"action": "accept", "content": {"understood": true, "offsite": true}});
    assert!(
        PurgeBackups::consent_from_reply(&ticked)
            .expect("valid")
            .is_accepted()
    );

    for unticked in [
        json!({"understood": false, "offsite": true}),
        json!({"understood": true, "offsite": false}),
        // An optional checkbox left empty is not a tick.
        json!({"understood": true}),
    ] {
        let reply = json!({"action": "accept", "content": unticked});
        assert!(
            matches!(
                PurgeBackups::consent_from_reply(&reply),
                Ok(Elicitation::Decline)
            ),
            "an unticked box is a decline: {reply}"
        );
    }
}

#[test]
fn a_request_built_at_run_time_yields_consent_with_its_own_message() {
    let request = DropTable::form_request()
        .with_message("Drop the table `sessions` (41 GB, 3 years of data)? This cannot be undone.")
        .expect("non-empty");
    let reply = json!({"action": "accept", "content": {"table": "sessions"}});
    let Elicitation::Accept(consent) = request.parse_consent(&reply).expect("valid") else {
        panic!("accepted");
    };
    assert!(consent.message().contains("41 GB"));
    assert_eq!(consent.into_terms().table, "sessions");
}

#[test]
fn consent_checkbox_is_declared_as_a_boolean_without_a_default() {
    let schema = serde_json::to_value(PurgeBackups::requested_schema()).expect("serializes");
    assert_eq!(
        schema["properties"]["understood"],
        json!({
            "type": "boolean",
            "title": "I understand the backups cannot be recovered"
        })
    );
    assert_eq!(schema["required"], json!(["understood"]));
}

#[test]
fn a_multi_round_trip_consent_ask_yields_consent_only_when_accepted() {
    use std::time::Duration;

    use mcp_elicit::mrtr::{Answer, Ask, Retry, Rounds};
    use mcp_elicit::observe::TooFast;
    use mcp_elicit::state::{Binding, KeyId, ParamsDigest, StateKey, StateKeys, UnixTime};

    let rounds = Rounds::new(StateKeys::single(
        KeyId::new(9),
        StateKey::from_bytes([3; 32]),
    ));
    let call = json!({
        "name": "drop_table",
        "arguments": {"table": "sessions"},
        "_meta": {"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}},
    });
    let run = |params: &serde_json::Value| {
        let binding = Binding {
            principal: "dba-7",
            method: "tools/call",
            params_digest: ParamsDigest::of_request_params(params),
        };
        let retry = Retry::from_params(params).expect("well-formed");
        let mut round = rounds
            .round::<()>(retry, binding, UnixTime::now())
            .expect("opens");
        // The server's threshold for a person: 50 ms (1 s plus 250 ms a field by default).
        round.set_too_fast(TooFast::new(Duration::from_millis(50), Duration::ZERO));
        match round
            .answer(Ask::consent::<DropTable>("confirm"))
            .expect("answers")
        {
            Answer::Ready(outcome) => Ok(outcome.map(|consent| drop_table("sessions", consent))),
            Answer::Ask(result) => Err(serde_json::to_value(&result).expect("serializes")),
            Answer::Rejected(rejected) => panic!("no consent answer breaks the form: {rejected}"),
        }
    };
    let asked = run(&call).expect_err("round 1 asks for consent");
    assert_eq!(
        asked["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );

    // A person reads the form first: a consent faster than that is not taken.
    std::thread::sleep(Duration::from_millis(80));
    let mut retry = call.clone();
    retry["requestState"] = asked["requestState"].clone();
    retry["inputResponses"] =
        json!({"confirm": {"action": "accept", "content": {"table": "sessions"}}});
    assert_eq!(
        run(&retry),
        Ok(Elicitation::Accept(Ok("dropped sessions".into())))
    );

    retry["inputResponses"] = json!({"confirm": {"action": "decline"}});
    assert_eq!(run(&retry), Ok(Elicitation::Decline));
}

#[test]
fn answers_given_before_the_question_are_read_only_by_opt_in_and_never_as_consent() {
    use mcp_elicit::mrtr::{Answer, Ask, Retry, Rounds};
    use mcp_elicit::state::{Binding, KeyId, ParamsDigest, StateKey, StateKeys, UnixTime};

    /// What should the report be called?
    #[derive(Elicit, Debug)]
    struct Title {
        title: String,
    }

    let rounds = Rounds::new(StateKeys::single(
        KeyId::new(2),
        StateKey::from_bytes([5; 32]),
    ));
    // A first request that already carries answers, with no requestState.
    let call = json!({
        "name": "tool",
        "arguments": {},
        "_meta": {"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}},
        "inputResponses": {
            "title": {"action": "accept", "content": {"title": "Q3"}},
            "confirm": {"action": "accept", "content": {"table": "sessions"}},
        },
    });
    let binding = || Binding {
        principal: "u",
        method: "tools/call",
        params_digest: ParamsDigest::of_request_params(&call),
    };
    let round = || {
        let retry = Retry::from_params(&call).expect("well-formed");
        rounds
            .round::<()>(retry, binding(), UnixTime::now())
            .expect("opens")
    };

    // By default the unasked answer is ignored: the question is asked.
    let by_default = round()
        .answer(Ask::form::<Title>("title"))
        .expect("answers");
    assert!(matches!(by_default, Answer::Ask(_)));

    // Opted in, the up-front answer is read.
    let opted_in = round()
        .answer(Ask::form::<Title>("title").answerable_before_asked())
        .expect("answers");
    let Answer::Ready(Elicitation::Accept(title)) = opted_in else {
        panic!("read up front")
    };
    assert_eq!(title.title, "Q3");

    // Consent is never taken from an answer to a question that was not asked.
    let consent = round()
        .answer(Ask::consent::<DropTable>("confirm").answerable_before_asked())
        .expect("answers");
    assert!(
        matches!(consent, Answer::Ask(_)),
        "consent must be asked, not pre-filled"
    );
}
