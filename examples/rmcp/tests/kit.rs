//! The booking example's `book_table`, called in process by a scripted user: every answer a
//! user can give, on 2025-11-25 and on 2026-07-28, and a client that cannot be asked.
//! `cargo test -p elicit-examples --features rmcp --test kit`
use std::sync::Arc;
use std::time::Duration;

use mcp_elicit::Revision;
use mcp_elicit::client::{Incoming, Scripted, Step};
use mcp_elicit::rmcp::{AskConfig, Called, KitError, TestKit};
use serde_json::json;

// Your own server in a library: `use my_server as booking;` in place of the `mod booking` below.
// An example has no library, so this test includes the example's file.
#[allow(dead_code)] // its `main`, which serves stdio
#[path = "../booking.rs"]
mod booking;

const BOTH: [Revision; 2] = [Revision::V2025_11_25, Revision::V2026_07_28];

/// The server waits 5 s for an answer on 2025-11-25 (10 minutes by default), the kit 10 s for
/// a result. The tests run on tokio's paused clock: neither wait takes any time.
fn restaurant() -> booking::Restaurant {
    let asking = AskConfig::single_user("me").unwrap();
    let asking = asking.with_timeout(Duration::from_secs(5));
    booking::Restaurant { asking }
}

/// `book_table`, called by `user` on `revision`, and each request the user was shown.
async fn book(revision: Revision, user: Scripted) -> (Result<Called, KitError>, Vec<Incoming>) {
    let user = Arc::new(user);
    let kit = TestKit::new(revision).connect(restaurant(), user.clone());
    let called = kit.await.unwrap().call("book_table", json!({})).await;
    let seen = user.seen().into_iter().map(|(_server, asked)| asked);
    (called, seen.collect())
}

/// The message of a form the user was shown, and its fields.
fn form(asked: &Incoming) -> (&str, Vec<&str>) {
    let Incoming::Form(form) = asked else {
        panic!("a form")
    };
    let fields = form.schema().properties().iter().map(|p| p.name());
    (form.message(), fields.collect())
}

#[tokio::test(start_paused = true)]
async fn accept() {
    for revision in BOTH {
        let answer = json!({"party_size": 4, "date": "2026-08-01", "seating": "terrace"});
        let (called, seen) = book(revision, Scripted::new().then(Step::accept(answer))).await;
        assert_eq!(called.unwrap().text(), "A table for 4 on 2026-08-01.");
        let message = "Your table: for how many, when, and where would you like to sit?";
        let fields = vec!["party_size", "date", "seating", "note"];
        assert_eq!(form(&seen[0]), (message, fields));
    }
}

#[tokio::test(start_paused = true)]
async fn decline() {
    for revision in BOTH {
        let (called, seen) = book(revision, Scripted::new().then(Step::Decline)).await;
        assert_eq!(called.unwrap().text(), "You declined: nothing was booked.");
        assert_eq!(seen.len(), 1);
    }
}

/// 2025-11-25: the server stops waiting, and the tool says so. 2026-07-28: the tool returned
/// its input-required result, and the client never retries: the call never ends.
#[tokio::test(start_paused = true)]
async fn no_reply() {
    let silent = || Scripted::new().then(Step::Silence);
    let (called, seen) = book(Revision::V2025_11_25, silent()).await;
    let no_reply = "No answer arrived: nothing was booked.";
    assert_eq!(called.unwrap().text(), no_reply);
    assert_eq!(seen.len(), 1);

    let (called, seen) = book(Revision::V2026_07_28, silent()).await;
    assert!(matches!(called, Err(KitError::Unanswered { .. })));
    assert_eq!(seen.len(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_client_that_cannot_be_asked() {
    for revision in BOTH {
        // A client that declares no elicitation mode.
        let (called, seen) = book(revision, Scripted::new().answering(&[])).await;
        let called = called.unwrap();
        assert!(called.is_error());
        assert!(called.text().contains("elicitation.form` is missing"));
        assert!(seen.is_empty());
    }
}

// ----------------------------------------------- the README shows this file down to here

use mcp_elicit::hosts::HostTable;
use mcp_elicit::schema::PropertyKind;

#[tokio::test(start_paused = true)]
async fn cancel() {
    for revision in BOTH {
        let (called, seen) = book(revision, Scripted::new().then(Step::Cancel)).await;
        let dismissed = "You dismissed the form: nothing was booked.";
        assert_eq!(called.unwrap().text(), dismissed);
        assert_eq!(seen.len(), 1);
    }
}

// The kit's own behaviour: a server that outwaits it, one that keeps asking, a call that
// fails, a server that does not speak the revision, no runtime.
use std::borrow::Cow;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use mcp_elicit::mrtr::Rounds;
use rmcp::ServerHandler;
use rmcp::model::{ErrorCode, ProtocolVersion};

/// The booking server asking again after every answer that breaks its rules, `reasks` times.
fn insistent(reasks: u32) -> booking::Restaurant {
    let rounds = Rounds::generate().unwrap().with_reasks(reasks);
    booking::Restaurant {
        asking: AskConfig::single_user_with("me", rounds).unwrap(),
    }
}

/// A user whose every answer breaks the rules (at most 12 guests).
fn always_too_many() -> Arc<Scripted> {
    let answer = json!({"party_size": 99, "date": "2026-08-01"});
    Arc::new(Scripted::new().otherwise(Step::accept(answer)))
}

/// 2025-11-25: a server that waits longer than the kit (the default 10 minutes) leaves the call
/// unanswered; the kit gives up after its own wait, and says where the call was.
#[tokio::test(start_paused = true)]
async fn a_server_that_outwaits_the_kit_is_unanswered() {
    let user = Arc::new(Scripted::new().then(Step::Silence));
    let patient = booking::Restaurant {
        asking: AskConfig::single_user("me").unwrap(),
    };
    let wait = Duration::from_secs(60);
    let kit = TestKit::new(Revision::V2025_11_25).with_wait(wait);
    let connected = kit.connect(patient, Arc::clone(&user)).await.unwrap();

    let started = tokio::time::Instant::now();
    let error = connected.call("book_table", json!({})).await.unwrap_err();
    assert_eq!(started.elapsed(), wait, "the kit's wait, on tokio's clock");
    assert!(
        matches!(&error, KitError::Unanswered { tool, revision: Revision::V2025_11_25, after }
            if tool == "book_table" && *after == wait),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "`book_table` had no result within 60s on 2025-11-25: the server is still waiting (for \
         an answer the user did not give, for longer than the kit does), or the tool never \
         returned"
    );
    assert_eq!(user.seen().len(), 1);
}

/// 2026-07-28: the same silence is the kit's wait, whatever the server's timeout (it has none
/// on this revision), and the error says the client is waiting for the user.
#[tokio::test(start_paused = true)]
async fn a_silent_user_on_2026_07_28_is_the_kits_wait() {
    let user = Arc::new(Scripted::new().then(Step::Silence));
    let kit = TestKit::new(Revision::V2026_07_28).with_wait(Duration::from_millis(250));
    let connected = kit.connect(restaurant(), Arc::clone(&user)).await.unwrap();
    let started = tokio::time::Instant::now();
    let error = connected.call("book_table", json!({})).await.unwrap_err();
    assert_eq!(started.elapsed(), Duration::from_millis(250));
    assert!(
        error.to_string().starts_with(
            "`book_table` had no result within 250ms on 2026-07-28: the tool returned"
        ),
        "{error}"
    );
    assert_eq!(user.seen().len(), 1);
}

/// 2026-07-28: a server that keeps asking ends at rmcp's round cap (10 calls by default), the
/// user having answered once per call.
#[tokio::test(start_paused = true)]
async fn a_server_that_keeps_asking_ends_at_the_round_cap() {
    let default = TestKit::new(Revision::V2026_07_28);
    for (kit, cap) in [(default, 10), (default.with_max_rounds(3), 3)] {
        let user = always_too_many();
        let connected = kit.connect(insistent(50), Arc::clone(&user)).await.unwrap();
        let error = connected.call("book_table", json!({})).await.unwrap_err();
        assert!(
            matches!(&error, KitError::RoundsExceeded { max_rounds, .. } if *max_rounds == cap),
            "{error:?}"
        );
        assert_eq!(
            error.to_string(),
            format!("`book_table` was still asking after {cap} rounds (the client's round cap)")
        );
        assert_eq!(user.seen().len(), cap);
    }
}

/// 2025-11-25 has no rounds: the cap does not apply, and the server asks within its one call
/// as often as it does (once, and once again per re-ask), then says the answer broke a rule.
#[tokio::test(start_paused = true)]
async fn before_2026_07_28_the_round_cap_does_not_apply() {
    let kit = TestKit::new(Revision::V2025_11_25).with_max_rounds(3);
    let user = always_too_many();
    let connected = kit.connect(insistent(4), Arc::clone(&user)).await.unwrap();
    let called = connected.call("book_table", json!({})).await.unwrap();
    assert!(called.is_error());
    assert!(called.text().contains("after 5 tries"), "{}", called.text());
    assert_eq!(user.seen().len(), 5);
}

#[tokio::test(start_paused = true)]
async fn a_call_that_fails_is_an_error_that_names_it() {
    for revision in BOTH {
        let kit = TestKit::new(revision);
        let user = Arc::new(Scripted::new());
        let connected = kit.connect(restaurant(), user).await.unwrap();
        assert_eq!(connected.revision(), revision);

        let error = connected.call("book_a_room", json!({})).await.unwrap_err();
        assert!(
            matches!(&error, KitError::Rpc { tool, error } if tool == "book_a_room"
                && error.code == ErrorCode::INVALID_PARAMS),
            "{error:?}"
        );
        assert_eq!(
            error.to_string(),
            "`book_a_room` ended in a JSON-RPC error, not a tool result: tool not found (-32602)"
        );

        let error = connected.call("book_table", json!([4])).await.unwrap_err();
        assert_eq!(
            error.to_string(),
            "the arguments of `book_table` must be a JSON object (or null for none), not an array"
        );
    }
}

/// A server that speaks 2025-11-25 at most.
struct Legacy;

impl ServerHandler for Legacy {
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(&[ProtocolVersion::V_2025_11_25])
    }
}

#[tokio::test(start_paused = true)]
async fn a_server_that_does_not_speak_the_revision_is_named() {
    let user = Arc::new(Scripted::new());
    let kit = TestKit::new(Revision::V2026_07_28);
    let error = kit.connect(Legacy, Arc::clone(&user)).await.unwrap_err();
    assert!(matches!(error, KitError::Connect { .. }), "{error:?}");
    assert!(
        error
            .to_string()
            .starts_with("the client could not connect on 2026-07-28: "),
        "{error}"
    );

    let kit = TestKit::new(Revision::V2025_06_18);
    let error = kit.connect(Legacy, user).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "the client asked for 2025-06-18 and the server agreed on 2025-11-25"
    );
}

#[test]
fn outside_a_tokio_runtime_the_kit_says_so() {
    let user = Arc::new(Scripted::new());
    let kit = TestKit::new(Revision::V2025_11_25);
    let connect = pin!(kit.connect(restaurant(), user));
    let Poll::Ready(Err(error)) = connect.poll(&mut Context::from_waker(Waker::noop())) else {
        panic!("no runtime: an error at once")
    };
    assert!(matches!(error, KitError::NoRuntime));
    assert!(error.to_string().contains("inside a tokio runtime"));
}

// Served as it ships (issue 25, point 9): through `AskingService` as over stdio, or as
// `AskingHttpService` has rmcp's `StreamableHttpService` serve a `ServerHandler`.
use mcp_elicit::rmcp::{Asker, AskingServer, Served, ToolResponse, respond};
use mcp_elicit::{Elicit, Elicitation};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolRequestParams, CallToolResponse};
use rmcp::service::ServiceError;
use rmcp::{schemars, tool, tool_handler, tool_router};

const SERVED: [Served; 2] = [Served::Stdio, Served::StreamableHttp];

/// On 2026-07-28 a tool that asks asks, served either way: both wrappers record the call.
#[tokio::test(start_paused = true)]
async fn served_either_way_a_tool_that_asks_on_2026_07_28_asks() {
    for served in SERVED {
        let answer = json!({"party_size": 2, "date": "2026-08-01", "seating": "indoors"});
        let user = Arc::new(Scripted::new().then(Step::accept(answer)));
        let kit = TestKit::new(Revision::V2026_07_28).served_as(served);
        let connected = kit.connect(restaurant(), Arc::clone(&user)).await.unwrap();
        let called = connected.call("book_table", json!({})).await;
        assert_eq!(
            called.unwrap().text(),
            "A table for 2 on 2026-08-01.",
            "{served:?}"
        );
    }
}

/// Drop the table? This cannot be undone.
#[derive(Elicit)]
#[elicit(consent)]
struct DropIt {
    #[elicit(title = "Drop it", consent)]
    confirm: bool,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Table {
    table: String,
}

/// A tool that lists `Parameters<..>` before its `Asker`: rmcp's `Parameters` takes the
/// arguments out of the tool's context before the asker is built, so only the wrapper's record
/// of the call can bind the round to them.
struct Dropper {
    asking: AskConfig,
}

impl AskingServer for Dropper {
    fn asking(&self) -> &AskConfig {
        &self.asking
    }
}

#[tool_router]
impl Dropper {
    #[tool(description = "Drop a table, with the user's consent.")]
    async fn drop_table(&self, Parameters(t): Parameters<Table>, mut asker: Asker) -> ToolResponse {
        respond(async {
            Ok(match asker.consent::<DropIt>().await? {
                Elicitation::Accept(_) => format!("Dropped table `{}`.", t.table),
                _ => format!("`{}` was not dropped.", t.table),
            })
        })
        .await
    }
}

#[tool_handler]
impl ServerHandler for Dropper {}

fn dropper() -> Dropper {
    Dropper {
        asking: AskConfig::single_user("me").unwrap(),
    }
}

fn drop_table(table: &str) -> CallToolRequestParams {
    let arguments = json!({ "table": table }).as_object().cloned().unwrap();
    CallToolRequestParams::new("drop_table").with_arguments(arguments)
}

/// 2026-07-28, `dropper()` served as `served`: the user consents to dropping `scratch`, and a
/// retry sends that consent, and its request state, with `{"table": "customers"}`.
async fn consent_for_scratch_replayed_for_customers(
    served: Served,
) -> Result<CallToolResponse, ServiceError> {
    let kit = TestKit::new(Revision::V2026_07_28).served_as(served);
    let connected = kit.connect(dropper(), Arc::new(Scripted::new())).await;
    let client = connected.unwrap();
    let client = client.client();
    let asked = client.call_tool_once(drop_table("scratch")).await.unwrap();
    let CallToolResponse::InputRequired(asked) = asked else {
        panic!("{asked:?}")
    };
    let consent = json!({"action": "accept", "content": {"confirm": true}});
    let questions = asked.input_requests.unwrap_or_default().into_keys();
    let responses = questions.map(|key| (key, consent.clone())).collect();
    let mut retry = drop_table("customers").with_input_responses(responses);
    retry.request_state = asked.request_state;
    client.call_tool_once(retry).await
}

/// Served either way, the round is bound to the arguments the client sent, whatever the order
/// of the tool's parameters: the consent given for `scratch` does not open for `customers`
/// (`-32602`). (Before issue 26 a server over streamable HTTP had to promise its `Asker` came
/// first, and a broken promise let this consent drop `customers`.)
#[tokio::test(start_paused = true)]
async fn served_either_way_a_consent_is_bound_to_its_arguments() {
    for served in SERVED {
        let replayed = consent_for_scratch_replayed_for_customers(served).await;
        let Err(ServiceError::McpError(error)) = &replayed else {
            panic!("{served:?}: {replayed:?}")
        };
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{served:?}");
    }
}

// The hosts your users have (issue 36): `book_table` and `drop_table` in every host the kit
// plays, each by its one documented rule (`Profile`), the user answering the same way in each.
use mcp_elicit::rmcp::{Pace, Profile};

/// What a user who fills in the booking form answers: the first seating option, as many do.
fn a_full_booking() -> Arc<Scripted> {
    let answer = json!({"party_size": 4, "date": "2026-08-01", "seating": "indoors"});
    Arc::new(Scripted::new().otherwise(Step::accept(answer)))
}

/// The booking server as it ships: it waits 10 minutes for an answer before 2026-07-28.
fn patient_restaurant() -> booking::Restaurant {
    let asking = AskConfig::single_user("me").unwrap();
    booking::Restaurant { asking }
}

/// `book_table` finishes in every host that shows the form (Codex too: its party size, an
/// integer from 1 to 12, is asked as a select of the numbers, issue 43), fails legibly where
/// the host sends nothing usable, is dismissed where the host cancels every question
/// (`claude -p`), and ends in the tool's own `NoReply` where the host never answers (Cursor).
#[tokio::test(start_paused = true)]
async fn book_table_in_every_host() {
    for profile in Profile::ALL {
        let user = a_full_booking();
        let connected = profile
            .kit()
            .connect(patient_restaurant(), Arc::clone(&user));
        let called = connected.await.unwrap().call("book_table", json!({})).await;
        let called = called.unwrap_or_else(|e| panic!("{profile:?}: {e}"));
        let asked = user.seen().len();
        match profile {
            Profile::Cursor => {
                assert_eq!(called.text(), "No answer arrived: nothing was booked.");
                assert_eq!(asked, 0, "Cursor shows nothing");
            }
            Profile::ClaudeCodePrint => {
                assert_eq!(called.text(), "You dismissed the form: nothing was booked.");
                assert_eq!(asked, 0, "the host cancels, and nobody is asked");
            }
            // Codex sees the party size as a select of "1" … "12", and sends the one picked
            // as text: the tool gets the same `u8`.
            Profile::Codex => {
                assert_eq!(called.text(), "A table for 4 on 2026-08-01.");
                assert_eq!(asked, 1);
                let Incoming::Form(form) = &user.seen()[0].1 else {
                    panic!("a form")
                };
                let size = form.schema().property("party_size").unwrap();
                assert!(
                    matches!(size.kind(), PropertyKind::Select(s) if s.options().len() == 12),
                    "{size:?}"
                );
            }
            // The first seating option, highlighted, is not sent: the form is asked again
            // naming the field, and the same answer ends in a legible stop.
            Profile::CopilotCli => {
                assert!(called.is_error(), "{}", called.text());
                let named = "The answer could not be used after 2 tries: Seating is required.";
                assert_eq!(called.text(), named);
                assert_eq!(asked, 2, "asked once, then once again naming the field");
                let again = user.seen()[1].1.message().to_owned();
                assert!(again.contains("Seating"), "{again}");
            }
            _ => {
                assert_eq!(called.text(), "A table for 4 on 2026-08-01.", "{profile:?}");
                assert_eq!(asked, 1, "{profile:?}");
            }
        }
    }
}

/// Before 2026-07-28 a consent accepted faster than a person can read its form is not taken:
/// nothing is dropped, and the result says why. The same script at a person's pace drops.
#[tokio::test(start_paused = true)]
async fn a_consent_faster_than_a_person_is_not_taken() {
    for revision in [Revision::V2025_06_18, Revision::V2025_11_25] {
        let consent = || Arc::new(Scripted::new().then(Step::accept(json!({"confirm": true}))));
        let kit = TestKit::new(revision);
        let connected = kit.connect(dropper(), consent()).await.unwrap();
        let called = connected
            .call("drop_table", json!({"table": "scratch"}))
            .await;
        let called = called.unwrap();
        assert!(called.is_error(), "{revision}: {}", called.text());
        assert!(
            called.text().starts_with(
                "Nothing was done: the consent `DropIt` was accepted 0 ms after it was asked, \
                 faster than a person can read it (at least 1250 ms)"
            ),
            "{}",
            called.text()
        );

        let kit = TestKit::new(revision).with_pace(Pace::PERSON);
        let connected = kit.connect(dropper(), consent()).await.unwrap();
        let called = connected
            .call("drop_table", json!({"table": "scratch"}))
            .await;
        assert_eq!(called.unwrap().text(), "Dropped table `scratch`.");
    }
}

/// `drop_table` in every host: it drops only where a person accepted the consent, never where
/// the host sends nothing (Cursor), nor where the user's own hook accepts it at once (Claude
/// Code with a hook: on 2026-07-28 the retry is timed against the asking time sealed in its
/// state), nor where the host cancels every question (`claude -p`). On tokio's paused clock: the hosts that speak 2026-07-28, where a person's time is
/// the wall clock's, are in the next test.
#[tokio::test(start_paused = true)]
async fn drop_table_in_every_host() {
    let speaks_2026 = |profile: Profile| profile.revision() == Revision::V2026_07_28;
    for profile in Profile::ALL {
        if speaks_2026(profile)
            && !matches!(profile, Profile::ClaudeCodeHook | Profile::ClaudeCodePrint)
        {
            continue;
        }
        let text = drop_scratch_in(profile, profile.kit()).await;
        match profile {
            Profile::Cursor | Profile::ClaudeCodePrint => {
                assert_eq!(text, "`scratch` was not dropped.", "{profile:?}")
            }
            // Timed on the wall clock, which runs on under the paused one: a few ms at most.
            Profile::ClaudeCodeHook => assert!(
                text.starts_with("Nothing was done: the consent `DropIt` was accepted ")
                    && text.contains(
                        " ms after it was asked, faster than a person can read it (at least \
                         1250 ms)"
                    ),
                "{text}"
            ),
            _ => assert_eq!(text, "Dropped table `scratch`.", "{profile:?}"),
        }
    }
}

/// With the host table off, Codex is asked the booking form as any client is, and sends what
/// its approval dialog sends: nothing usable, asked again once naming the fields, then a
/// legible stop (what every Codex user got before issue 43).
#[tokio::test(start_paused = true)]
async fn with_the_host_table_off_codex_cannot_book() {
    let user = a_full_booking();
    let asking = AskConfig::single_user("me")
        .unwrap()
        .with_hosts(HostTable::off());
    let restaurant = booking::Restaurant { asking };
    let connected = Profile::Codex.kit().connect(restaurant, Arc::clone(&user));
    let called = connected.await.unwrap().call("book_table", json!({})).await;
    let called = called.unwrap();
    assert!(called.is_error(), "{}", called.text());
    let named = "The answer could not be used after 2 tries: Party size is required; \
                 Date is required";
    assert!(called.text().starts_with(named), "{}", called.text());
    let Incoming::Form(form) = &user.seen()[0].1 else {
        panic!("a form")
    };
    let size = form.schema().property("party_size").unwrap();
    assert!(matches!(size.kind(), PropertyKind::Integer(_)), "{size:?}");
}

/// A client the table does not know is asked the form byte for byte as before: the kit's own
/// client (`elicit-client`) on each revision sees the derived form's schema unchanged, with or
/// without the table.
#[tokio::test(start_paused = true)]
async fn a_host_the_table_does_not_know_gets_the_form_as_it_is() {
    for revision in [
        Revision::V2025_06_18,
        Revision::V2025_11_25,
        Revision::V2026_07_28,
    ] {
        let mut seen = Vec::new();
        for hosts in [HostTable::known(), HostTable::off()] {
            let user = a_full_booking();
            let asking = AskConfig::single_user("me").unwrap().with_hosts(hosts);
            let restaurant = booking::Restaurant { asking };
            let connected = TestKit::new(revision).connect(restaurant, Arc::clone(&user));
            let called = connected.await.unwrap().call("book_table", json!({})).await;
            assert_eq!(called.unwrap().text(), "A table for 4 on 2026-08-01.");
            let Incoming::Form(form) = &user.seen()[0].1 else {
                panic!("a form")
            };
            seen.push(form.schema().clone());
        }
        assert_eq!(seen[0], seen[1], "{revision}");
        let size = seen[0].property("party_size").unwrap();
        assert!(
            matches!(size.kind(), PropertyKind::Integer(_)),
            "{revision}"
        );
    }
}

/// A form with a multi-select and a number, built at run time.
struct Diets {
    asking: AskConfig,
}

impl AskingServer for Diets {
    fn asking(&self) -> &AskConfig {
        &self.asking
    }
}

fn diet_form() -> mcp_elicit::FormRequest {
    use mcp_elicit::schema::{
        EnumOption, MultiSelectSchema, NumberSchema, Property, RequestedSchema,
    };
    let options = vec![
        EnumOption::titled("veg", "Vegetarian"),
        EnumOption::titled("gf", "Gluten free"),
        EnumOption::titled("nuts", "No nuts"),
    ];
    let schema = RequestedSchema::new(vec![
        Property::new(
            "diet",
            MultiSelectSchema::new(options).min_items(1).max_items(2),
        )
        .title("Diet"),
        Property::new("budget", NumberSchema::new().minimum(10.0).maximum(500.0)).title("Budget"),
    ])
    .unwrap();
    mcp_elicit::FormRequest::new("Any diet, and your budget?", schema).unwrap()
}

#[tool_router]
impl Diets {
    #[tool(description = "Ask for a diet and a budget.")]
    async fn choose_diet(&self, mut asker: Asker) -> ToolResponse {
        respond(async {
            Ok(match asker.form_request(diet_form()).await? {
                Elicitation::Accept(content) => serde_json::Value::Object(content).to_string(),
                _ => "Nothing chosen.".to_owned(),
            })
        })
        .await
    }
}

#[tool_handler]
impl ServerHandler for Diets {}

fn diets() -> Diets {
    Diets {
        asking: AskConfig::single_user("me").unwrap(),
    }
}

/// Codex speaks 2025-06-18, which has no multi-select: the library used to refuse the form
/// before sending it. Now Codex is asked one boolean per option and a text field for the
/// number, and the tool gets the same list and number.
#[tokio::test(start_paused = true)]
async fn a_multi_select_reaches_codex_on_2025_06_18_as_booleans() {
    let answer = json!({"diet.0": true, "diet.1": false, "diet.2": true, "budget": 80});
    let user = Arc::new(Scripted::new().otherwise(Step::accept(answer)));
    let connected = Profile::Codex.kit().connect(diets(), Arc::clone(&user));
    let called = connected
        .await
        .unwrap()
        .call("choose_diet", json!({}))
        .await;
    let called = called.unwrap();
    assert_eq!(called.text(), r#"{"diet":["veg","nuts"],"budget":80}"#);
    let Incoming::Form(form) = &user.seen()[0].1 else {
        panic!("a form")
    };
    let names: Vec<&str> = form
        .schema()
        .properties()
        .iter()
        .map(|p| p.name())
        .collect();
    assert_eq!(names, ["diet.0", "diet.1", "diet.2", "budget"]);

    // Unadapted, the same revision cannot ask it at all.
    let user = Arc::new(Scripted::new());
    let kit = TestKit::new(Revision::V2025_06_18);
    let called = kit.connect(diets(), Arc::clone(&user)).await.unwrap();
    let called = called.call("choose_diet", json!({})).await;
    assert!(
        called.is_err() || called.as_ref().is_ok_and(Called::is_error),
        "{called:?}"
    );
    assert!(user.seen().is_empty());
}

/// Too many ticked: Codex is asked again for the same reason, in the same words, as a host
/// that draws the multi-select is for the same answer (`maxItems`).
#[tokio::test(start_paused = true)]
async fn codex_is_reasked_for_the_same_reasons() {
    let ticked = json!({"diet.0": true, "diet.1": true, "diet.2": true, "budget": 900});
    let listed = json!({"diet": ["veg", "gf", "nuts"], "budget": 900});
    let mut again = Vec::new();
    for (profile, answer) in [
        (Profile::Codex, ticked),
        (Profile::WellBehaved(Revision::V2025_11_25), listed),
    ] {
        let user = Arc::new(Scripted::new().otherwise(Step::accept(answer)));
        let connected = profile.kit().connect(diets(), Arc::clone(&user));
        let called = connected
            .await
            .unwrap()
            .call("choose_diet", json!({}))
            .await;
        let called = called.unwrap();
        assert!(called.is_error(), "{profile:?}: {}", called.text());
        again.push((
            called.text().to_owned(),
            user.seen()[1].1.message().to_owned(),
        ));
    }
    assert_eq!(again[0], again[1]);
    assert!(
        again[0].1.contains("Budget must be at most 500"),
        "{:?}",
        again[0]
    );
    assert!(again[0].1.contains("Diet"), "{:?}", again[0]);
}

/// On 2026-07-28 a host whose row says it draws no integer is asked the party size as a
/// select of its values' text, and the text it sends reads as the same `u8`, round after round
/// (the adapted request is the question its round seals). A server's own row, for Claude Code's
/// `clientInfo`, stands in for such a host.
#[tokio::test(start_paused = true)]
async fn on_2026_07_28_a_form_is_adapted_to_the_row_too() {
    use mcp_elicit::hosts::{FieldKinds, Host};
    let row = Host::new("text only", "claude-code", "*")
        .unwrap()
        .draws(FieldKinds::BASIC);
    let asking = AskConfig::single_user("me")
        .unwrap()
        .with_hosts(HostTable::off().with_host(row));
    let restaurant = booking::Restaurant { asking };
    let answer = json!({"party_size": "4", "date": "2026-08-01", "seating": "indoors"});
    let user = Arc::new(Scripted::new().otherwise(Step::accept(answer)));
    let connected = Profile::ClaudeCode
        .kit()
        .connect(restaurant, Arc::clone(&user));
    let called = connected.await.unwrap().call("book_table", json!({})).await;
    assert_eq!(called.unwrap().text(), "A table for 4 on 2026-08-01.");
    let Incoming::Form(form) = &user.seen()[0].1 else {
        panic!("a form")
    };
    let size = form.schema().property("party_size").unwrap();
    assert!(matches!(size.kind(), PropertyKind::Select(_)), "{size:?}");
}

/// [`drop_table_in_every_host`] in the hosts that speak 2026-07-28 and show the form to a
/// person, on the real clock: a person's time (1.5 s, over the 1.25 s threshold for the form's
/// one field) is the wall clock's, which the sealed asking time is read against.
#[tokio::test]
async fn drop_table_in_every_host_that_speaks_2026_07_28() {
    let person = Pace::new(Duration::from_millis(1_500), Duration::ZERO);
    for profile in Profile::ALL {
        if profile.revision() != Revision::V2026_07_28
            || matches!(profile, Profile::ClaudeCodeHook | Profile::ClaudeCodePrint)
        {
            continue;
        }
        let text = drop_scratch_in(profile, profile.kit().with_pace(person)).await;
        assert_eq!(text, "Dropped table `scratch`.", "{profile:?}");
    }
}

/// What `drop_table` of `scratch` answers in `profile`'s host, connected by `kit`, its user
/// accepting every consent.
async fn drop_scratch_in(profile: Profile, kit: TestKit) -> String {
    let user = Arc::new(Scripted::new().otherwise(Step::accept(json!({"confirm": true}))));
    let connected = kit.connect(dropper(), Arc::clone(&user));
    let called = connected.await.unwrap();
    let called = called.call("drop_table", json!({"table": "scratch"})).await;
    let text = called.map(|c| c.text().to_owned());
    text.unwrap_or_else(|e| panic!("{profile:?}: {e}"))
}

// GitHub Copilot CLI 1.0.102 on 2026-07-28 (issue 43): its client fails a URL question without
// the `elicitationId` the revision removed. The host table's `copilot-cli` row says so, and the
// question goes to it with the flow's own id, served either way; to any other host, without.
use mcp_elicit::client::{Answerer, IncomingUrl};
use mcp_elicit::url_mode::{Flow, FlowId, FlowOutcome, Flows, MemoryFlowStore};

/// The pages' base of [`Connector`]'s flows.
const PAGES: &str = "http://localhost:8719/elicit/";

/// A tool that asks its user to connect a key on a page of its flows, and says what came of it.
struct Connector {
    asking: AskConfig,
}

impl AskingServer for Connector {
    fn asking(&self) -> &AskConfig {
        &self.asking
    }
}

#[tool_router]
impl Connector {
    #[tool(description = "Connect an API key on a page.")]
    async fn connect_key(&self, mut asker: Asker) -> ToolResponse {
        respond(async {
            let outcome = asker
                .url_flow::<serde_json::Value>("api_key", "Enter your Example Co. API key.")
                .await?;
            Ok(match outcome {
                FlowOutcome::Completed(receipt) => format!("Connected: {receipt}."),
                other => format!("Not connected: {other:?}."),
            })
        })
        .await
    }
}

#[tool_handler]
impl ServerHandler for Connector {}

/// A person who, shown a URL question, opens the page and saves the key there (the flow
/// finished in `store` as the page finishes it once its sink has answered), then says they are
/// done: their script's answer (accept). Each URL question they were shown is kept.
struct SavesTheKey {
    store: MemoryFlowStore,
    user: Scripted,
    shown: std::sync::Mutex<Vec<IncomingUrl>>,
}

impl Answerer for SavesTheKey {
    fn modes(&self) -> &[mcp_elicit::Mode] {
        self.user.modes()
    }

    fn answer(
        &self,
        server: &str,
        request: &Incoming,
    ) -> impl std::future::Future<Output = Option<serde_json::Value>> + Send {
        if let Incoming::Url(url) = request {
            self.shown.lock().unwrap().push(url.clone());
            let id = url.url().as_str().strip_prefix(PAGES).unwrap();
            let id = FlowId::parse(id).unwrap();
            let now = mcp_elicit::state::UnixTime::now();
            // Saved once: a later round's question is the same page, finished.
            let open = self.store.get_now(&id, now).unwrap().status().is_open();
            if open {
                self.store.open_now(&id, "me", "browser-1", now).unwrap();
                let lease = Flow::DEFAULT_CLAIM_LEASE;
                let claim = self.store.claim_now(&id, "me", "browser-1", lease, now);
                let saved = self
                    .store
                    .finish_now(&claim.unwrap(), Ok(json!("ex_…1234")), now);
                saved.unwrap();
            }
        }
        self.user.answer(server, request)
    }
}

/// `connect_key` in `profile`'s host, served as `served`, by a person who saves the key: what
/// it answered, and each URL question the person was shown.
async fn connect_key_in(profile: Profile, served: Served) -> (String, Vec<IncomingUrl>) {
    let store = MemoryFlowStore::new();
    let flows = Flows::new(store.clone(), PAGES).unwrap();
    let asking = AskConfig::single_user("me").unwrap().with_flows(flows);
    let person = Arc::new(SavesTheKey {
        store,
        user: Scripted::new().when_url(Step::OpenPage),
        shown: Default::default(),
    });
    let kit = profile.kit().served_as(served);
    let connected = kit.connect(Connector { asking }, Arc::clone(&person));
    let called = connected
        .await
        .unwrap()
        .call("connect_key", json!({}))
        .await;
    let text = called.unwrap_or_else(|e| panic!("{profile:?} {served:?}: {e}"));
    let shown = person.shown.lock().unwrap().clone();
    (text.text().to_owned(), shown)
}

/// Copilot CLI, served either way, is asked the URL question with the flow's own
/// `elicitationId` (the flow its URL names), shows it, and the key connects. Without it (the
/// row's need ignored) its client fails the question before the person sees it.
#[tokio::test(start_paused = true)]
async fn copilot_cli_gets_the_flows_elicitation_id_on_2026_07_28() {
    for served in SERVED {
        let (text, shown) = connect_key_in(Profile::CopilotCli, served).await;
        assert_eq!(text, "Connected: \"ex_…1234\".", "{served:?}");
        let [url] = &shown[..] else {
            panic!("{served:?}: one URL question, not {shown:?}")
        };
        let flow = url.url().as_str().strip_prefix(PAGES).unwrap();
        let flow = FlowId::parse(flow).unwrap();
        assert_eq!(
            url.elicitation_id(),
            Some(flow.elicitation_id().as_str()),
            "{served:?}"
        );
    }
}

/// Every other host that speaks 2026-07-28 and shows a URL question gets it as the revision
/// writes it, with no `elicitationId`, served either way; the key connects there too.
#[tokio::test(start_paused = true)]
async fn other_hosts_get_no_elicitation_id_on_2026_07_28() {
    for served in SERVED {
        for profile in [
            Profile::ClaudeCode,
            Profile::WellBehaved(Revision::V2026_07_28),
        ] {
            let (text, shown) = connect_key_in(profile, served).await;
            assert_eq!(text, "Connected: \"ex_…1234\".", "{profile:?} {served:?}");
            assert_eq!(shown.len(), 1, "{profile:?} {served:?}");
            assert_eq!(shown[0].elicitation_id(), None, "{profile:?} {served:?}");
        }
    }
}

// 2026-07-28 (issue 43): the form that was sent is sealed in the request state, so a retry is
// read against the schema its question had, whatever the retry's `clientInfo` says.
use mcp_elicit::hosts::{Checked, FieldKinds, Host};
use rmcp::model::CallToolResult;

/// `diets()` with a row for the kit's own client (`elicit-client`) that draws no number and no
/// multi-select, as Codex draws none: its form is adapted; Claude Code's is not.
fn diets_adapted_for_the_kit() -> Diets {
    let row = Host::new("The kit, as Codex draws", "elicit-client", "*")
        .unwrap()
        .draws(FieldKinds::BASIC)
        .checked(Checked::Tracker { link: "".into() });
    let hosts = HostTable::known().with_host(row);
    Diets {
        asking: AskConfig::single_user("me").unwrap().with_hosts(hosts),
    }
}

/// Asked of the kit's client (the adapted form: one box per diet, the budget as text), the
/// retry comes from a client that calls itself Claude Code, which draws the whole form, with
/// `answer` and the first round's state: what the tool returned.
async fn diets_retried_as_claude_code(answer: serde_json::Value) -> CallToolResponse {
    let server = diets_adapted_for_the_kit();
    let asking = server.asking.clone();
    let kit = TestKit::new(Revision::V2026_07_28);
    let first = kit
        .connect(server, Arc::new(Scripted::new()))
        .await
        .unwrap();
    let asked = first
        .client()
        .call_tool_once(CallToolRequestParams::new("choose_diet"))
        .await
        .unwrap();
    let CallToolResponse::InputRequired(asked) = asked else {
        panic!("{asked:?}")
    };
    let requests = asked.input_requests.clone().unwrap_or_default();
    let sent = serde_json::to_value(&requests).unwrap();
    let properties = sent["form"]["params"]["requestedSchema"]["properties"].clone();
    assert_eq!(properties["diet.0"]["type"], "boolean", "{sent}");
    assert_eq!(properties["budget"]["type"], "string", "{sent}");

    // The same server (its keys), another client.
    let other = Diets { asking };
    let claude = Profile::ClaudeCode.kit();
    let second = claude.connect(other, Arc::new(Scripted::new())).await;
    let responses = requests
        .into_keys()
        .map(|key| (key, answer.clone()))
        .collect();
    let mut retry = CallToolRequestParams::new("choose_diet").with_input_responses(responses);
    retry.request_state = asked.request_state;
    second
        .unwrap()
        .client()
        .call_tool_once(retry)
        .await
        .unwrap()
}

/// The adapted answer (boxes, the budget as text) is read back into the same list and number,
/// though the retry's client would have been asked the whole form.
#[tokio::test(start_paused = true)]
async fn a_retry_from_another_host_is_read_as_its_question_was_sent() {
    let answer = json!({"action": "accept",
        "content": {"diet.0": true, "diet.1": false, "diet.2": true, "budget": "80"}});
    let done = diets_retried_as_claude_code(answer).await;
    let CallToolResponse::Complete(CallToolResult { content, .. }) = &done else {
        panic!("the answer read: {done:?}")
    };
    let text = serde_json::to_value(content).unwrap();
    assert_eq!(text[0]["text"], r#"{"diet":["veg","nuts"],"budget":80}"#);
}

/// An answer to the whole form, sent to the adapted question, does not fit it (no box ticked:
/// a diet is required): it is asked again, adapted as it was first sent, never read as accepted.
#[tokio::test(start_paused = true)]
async fn an_answer_that_does_not_fit_the_sealed_form_is_asked_again() {
    let answer = json!({"action": "accept",
        "content": {"diet": ["veg"], "budget": 80}});
    let again = diets_retried_as_claude_code(answer).await;
    let CallToolResponse::InputRequired(again) = &again else {
        panic!("asked again: {again:?}")
    };
    let sent = serde_json::to_value(&again.input_requests).unwrap();
    let properties = &sent["form"]["params"]["requestedSchema"]["properties"];
    assert_eq!(properties["diet.0"]["type"], "boolean", "{sent}");
    assert!(properties.get("diet").is_none(), "{sent}");
}
