//! Consent: `ops_server`'s `drop_table` drops only with a ticked consent form, and spends it
//! once; a call asks one consent per key, and asking the same form twice under one name is
//! refused. On both revisions that ask.
//!
//! `cargo test -p elicit-examples --features oauth --test asker_consent`

use mcp_elicit::Elicit;
use mcp_elicit::rmcp::{AskConfig, Asker, ToolResponse, respond};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock, ElicitResult, ErrorCode};
use rmcp::service::ServiceError;
use rmcp::{ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::json;

#[macro_use]
mod common;

use common::ops_server::DropTable;
use common::*;

#[macro_use]
#[path = "common/servers.rs"]
mod servers;

asking_server!(
    /// A server with the one tool these tests need and `ops_server` does not have: a call that asks
    /// for several consents, each with `ops_server`'s own `DropTable` form, under its own name or
    /// (`named: false`) all under the form's.
    DropsTables
);

#[derive(Deserialize, schemars::JsonSchema)]
struct Tables {
    /// The tables to drop.
    tables: Vec<String>,
    /// Whether each consent is asked under its own name.
    named: bool,
}

#[tool_router]
impl DropsTables {
    #[tool(description = "Drop several tables; asks for consent for each.")]
    async fn drop_tables(
        &self,
        mut asker: Asker,
        Parameters(args): Parameters<Tables>,
    ) -> ToolResponse {
        respond(async {
            let mut dropped = Vec::new();
            for table in args.tables {
                let form = DropTable::form_request()
                    .with_message(format!("Permanently drop table `{table}`?"))?;
                let form = if args.named {
                    form.with_name(format!("drop-{table}"))
                } else {
                    form
                };
                if asker.consent_request(form).await?.is_accepted() {
                    dropped.push(table);
                }
            }
            let text = format!("Dropped {}.", dropped.join(", "));
            Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
        })
        .await
    }
}

#[tool_handler]
impl ServerHandler for DropsTables {}

fn drops_tables() -> DropsTables {
    let asking = AskConfig::single_user("me").expect("the OS has randomness");
    DropsTables { asking }
}

on_both_revisions! {
    async fn a_ticked_consent_is_consent(revision) {
        let client = Client::declaring(form_only()).answering([accept(json!({"confirm": true}))]);
        let client = client.after(A_PERSON);
        let s = connect(revision, ops(), client).await;
        assert_eq!(s.call("drop_table", drop_users()).await, ok("Dropped table `users`."));
        let [asked] = &s.asked()[..] else { panic!("asked {:?}", s.asked()) };
        let (message, schema) = form(asked);
        assert_eq!(message, DROP_MESSAGE);
        assert_eq!(schema["properties"]["confirm"]["type"], "boolean");
        assert_ne!(schema["properties"]["confirm"]["default"], true, "never ticked for the user");
    }
}

on_both_revisions! {
    async fn an_unticked_consent_is_a_decline_asked_once(revision) {
        let client = Client::declaring(form_only()).answering([accept(json!({"confirm": false}))]);
        let s = connect(revision, ops(), client).await;
        let result = s.call("drop_table", drop_users()).await;
        assert_eq!(result, ok("You declined: `users` was not dropped."));
        assert_eq!(s.messages(), [DROP_MESSAGE]);
    }
}

// ------------------------------------------------------------------------ one question per key

/// How long a person takes to read the consent form and tick its box: longer than the server's
/// threshold for a person (1.25 s for its one field), under which a consent is not taken before
/// 2026-07-28 (`Stop::AutomaticConsent`).
const A_PERSON: std::time::Duration = std::time::Duration::from_millis(1_500);

fn yes() -> ElicitResult {
    accept(json!({"confirm": true}))
}

on_both_revisions! {
    async fn one_consent_per_table_each_under_its_own_name(revision) {
        let client = Client::declaring(form_only()).answering([yes(), yes()]).after(A_PERSON);
        let s = connect(revision, drops_tables(), client).await;
        let tables = json!({"tables": ["staging_tmp", "customers"], "named": true});
        assert_eq!(s.call("drop_tables", tables).await, ok("Dropped staging_tmp, customers."));
        assert_eq!(
            s.messages(),
            ["Permanently drop table `staging_tmp`?", "Permanently drop table `customers`?"]
        );
    }
}

on_both_revisions! {
    async fn a_second_question_under_one_name_is_refused(revision) {
        // On 2026-07-28 the second consent would otherwise read the first one's yes.
        let client = Client::declaring(form_only()).answering([yes(), yes()]).after(A_PERSON);
        let s = connect(revision, drops_tables(), client).await;
        let tables = json!({"tables": ["staging_tmp", "customers"], "named": false});
        let params = CallToolRequestParams::new("drop_tables").with_arguments(arguments(tables));
        let error = match within_a_while(s.client.call_tool(params)).await {
            Err(ServiceError::McpError(error)) => error,
            other => panic!("expected a JSON-RPC error, got {other:?}"),
        };
        assert_eq!(error.code, ErrorCode::INTERNAL_ERROR);
        assert!(error.message.contains("`DropTable` is asked twice in one call"), "{}", error.message);
        assert_eq!(s.messages(), ["Permanently drop table `staging_tmp`?"]);
    }
}

#[tokio::test]
async fn a_consent_is_spent_once() {
    let s = on_2026_07_28(ops()).await;
    let asked = s.first_round("drop_table", drop_users(), None).await;
    // A person reads the form before ticking it (the real clock: the state seals wall time).
    tokio::time::sleep(A_PERSON).await;
    let first = s.send(
        "drop_table",
        drop_users(),
        None,
        Some(asked.answered(&yes())),
    );
    assert_eq!(completed(first.await), ok("Dropped table `users`."));
    let replayed = s.send(
        "drop_table",
        drop_users(),
        None,
        Some(asked.answered(&yes())),
    );
    assert_eq!(refused(replayed.await), ErrorCode::INVALID_PARAMS);
}

/// On 2026-07-28 too, a consent accepted sooner after the round that asked than a person can
/// read it is not taken (`Stop::AutomaticConsent`): the asking time is sealed in the state, and
/// the retry's arrival says how long the answer took. Claude Code 2.1.337's hook accepted
/// `drop_table` 1.0 s after the form appeared; here the retry comes at once, and then 1.0 s
/// later, and nothing is dropped. Sent again under the same state at a person's pace it is a
/// replay, refused; a new question answered at a person's pace drops. On the real clock: the
/// sealed time is the wall clock's, which tokio's paused clock does not move.
#[tokio::test]
async fn on_2026_07_28_a_consent_faster_than_a_person_is_not_taken() {
    let s = on_2026_07_28(ops()).await;
    let automatic = |elapsed: &str| {
        error(&format!(
            "Nothing was done: the consent `DropTable` was accepted {elapsed} ms after it was \
             asked, faster than a person can read it (at least 1250 ms): an automatic answer is \
             not the user's consent, so it was not taken; the user must answer the form \
             themselves. `users` was not dropped."
        ))
    };
    let asked = s.first_round("drop_table", drop_users(), None).await;
    let instant = s.send(
        "drop_table",
        drop_users(),
        None,
        Some(asked.answered(&yes())),
    );
    let (text, is_error) = completed(instant.await);
    let elapsed = text
        .strip_prefix("Nothing was done: the consent `DropTable` was accepted ")
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_else(|| panic!("not an automatic consent: {text}"));
    assert!(elapsed.parse::<u64>().unwrap() < 1_000, "{text}");
    assert_eq!((text.clone(), is_error), automatic(elapsed));

    // The hook's second: still faster than a person.
    let asked = s.first_round("drop_table", drop_users(), None).await;
    tokio::time::sleep(std::time::Duration::from_millis(1_000)).await;
    let hook = completed(
        s.send(
            "drop_table",
            drop_users(),
            None,
            Some(asked.answered(&yes())),
        )
        .await,
    );
    assert!(
        hook.0.contains("faster than a person can read it"),
        "{}",
        hook.0
    );
    assert!(hook.1, "an isError result");
    // The same retry, sent again once a person's time has passed: its state is spent.
    tokio::time::sleep(A_PERSON).await;
    let again = s.send(
        "drop_table",
        drop_users(),
        None,
        Some(asked.answered(&yes())),
    );
    assert_eq!(refused(again.await), ErrorCode::INVALID_PARAMS);

    // A person's pace, from a new question: taken.
    let asked = s.first_round("drop_table", drop_users(), None).await;
    tokio::time::sleep(A_PERSON).await;
    let paced = s.send(
        "drop_table",
        drop_users(),
        None,
        Some(asked.answered(&yes())),
    );
    assert_eq!(completed(paced.await), ok("Dropped table `users`."));
}
