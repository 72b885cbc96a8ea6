//! The client half against a server nobody here wrote: `tests/e2e/elicit_server.py`, on the
//! official Python SDK (`mcp==2.3.0`), spawned over stdio with rmcp's child-process transport.
//! `AnsweringClient<Scripted>` answers its elicitations on both revisions: 2025-11-25
//! (`initialize`; the server sends `elicitation/create`) and 2026-07-28 (`server/discover`; the
//! server answers with input-required results, and rmcp's client retries with the answers).
//!
//! Each tool's result text is what the Python server received (its protocol version, the action,
//! and an accepted form's validated content with each value's Python type), so each test asserts
//! on the server's side of the exchange, and, through `Scripted::seen`, on what our
//! `read_request` made of the request the SDK wrote. The `wire` tests at the end write and read
//! the server's stdio lines themselves, so what our readers read there is the SDK's own JSON,
//! not rmcp's re-serialization of it.
//!
//! Every test's name starts with `python_sdk_server_`: `.ci/run`'s run of the ignored tests skips
//! them by that prefix (no venv yet at that point).
//!
//! Ignored unless `ELICIT_PYTHON` names a Python with `mcp==2.3.0`: `.ci/python_e2e.sh` creates
//! that venv and runs them (`bash .ci/python_e2e.sh`).

use std::future::Future;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use mcp_elicit::client::{
    Incoming, IncomingForm, IncomingInput, IncomingUrl, Scripted, Step, read_input_required,
    read_request,
};
use mcp_elicit::rmcp::AnsweringClient;
use mcp_elicit::{
    Mode, Revision,
    schema::{
        BooleanSchema, EnumOption, IntegerSchema, Property, RequestedSchema, SelectSchema,
        StringSchema,
    },
};
use rmcp::RoleClient;
use rmcp::model::{CallToolRequestParams, ErrorCode, ErrorData};
use rmcp::service::{RunningService, ServiceError};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{ChildStdin, ChildStdout, Command};

#[macro_use]
#[path = "common/revisions.rs"]
mod revisions;

type Client = RunningService<RoleClient, AnsweringClient<Scripted>>;

const SERVER_NAME: &str = "elicit-e2e";
const BOOKING_MESSAGE: &str = "Book a table: who is it for, how many, and where?";
const CONNECT_MESSAGE: &str = "Connect your calendar on our page.";
const CONNECT_PAGE: &str = "https://calendar.example.com/connect?flow=e2e";
/// The `elicitationId` the server gives its URL request on 2025-11-25.
const CONNECT_ID: &str = "connect-calendar-1";

/// The Python interpreter with `mcp==2.3.0`.
fn python() -> String {
    std::env::var("ELICIT_PYTHON").unwrap_or_else(|_| {
        panic!(
            "ELICIT_PYTHON is unset: it must name a Python with mcp==2.3.0. \
             Run these tests with `bash .ci/python_e2e.sh`, which creates that venv."
        )
    })
}

/// The server: `tests/e2e/elicit_server.py`.
fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/e2e/elicit_server.py")
}

/// `future`, or a failed test if it takes longer than a Python server could need.
async fn within_a_while<T>(future: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(30), future)
        .await
        .expect("done within 30 s")
}

/// A fresh Python server (its own process), and `user` answering through an `AnsweringClient`
/// on `revision`.
async fn connect(revision: Revision, user: &Arc<Scripted>) -> Client {
    let mut command = Command::new(python());
    command.arg(script());
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the Python server starts");
    let client = AnsweringClient::new(Arc::clone(user));
    let client = within_a_while(client.connect(transport, revision))
        .await
        .expect("the client connects to the Python server");
    let negotiated = client
        .peer_info()
        .expect("a server")
        .protocol_version
        .clone();
    assert_eq!(negotiated.as_str(), revision.to_string());
    client
}

/// Call `tool` (on 2026-07-28 rmcp's client answers each input-required result through the
/// `AnsweringClient` and retries): the result's text and `isError`, or the JSON-RPC error.
async fn call(client: &Client, tool: &'static str) -> Result<(String, bool), ErrorData> {
    let result = within_a_while(client.call_tool(CallToolRequestParams::new(tool))).await;
    match result {
        Ok(result) => {
            let texts: Vec<&str> = result
                .content
                .iter()
                .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
                .collect();
            Ok((texts.join("\n"), result.is_error == Some(true)))
        }
        Err(ServiceError::McpError(error)) => Err(error),
        Err(other) => panic!("`{tool}` failed in transport: {other}"),
    }
}

/// What the server received, read from a tool's (successful) result text.
async fn received(client: &Client, tool: &'static str) -> Value {
    let (text, is_error) = call(client, tool)
        .await
        .unwrap_or_else(|e| panic!("`{tool}` ended in a JSON-RPC error: {e:?}"));
    assert!(!is_error, "`{tool}` failed: {text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// The one request `user` saw, from the Python server, with no note (in particular no
/// `Note::Nonconformant`): what the official SDK writes, our reader reads as conforming.
fn the_one_request(user: &Scripted) -> Incoming {
    let seen = user.seen();
    let [(server, request)] = &seen[..] else {
        panic!("expected one request, saw {seen:?}")
    };
    assert_eq!(server, SERVER_NAME);
    assert_eq!(request.notes(), [], "{request:?}");
    request.clone()
}

/// The form `Booking` renders to, as our reader must read it: pydantic's titles, the field
/// descriptions, the bounds, the defaults; `outdoor` and `seating` have defaults, so they are
/// not required.
fn booking_schema() -> RequestedSchema {
    let options = vec![
        EnumOption::new("window"),
        EnumOption::new("terrace"),
        EnumOption::new("bar"),
    ];
    RequestedSchema::new(vec![
        Property::new("name", StringSchema::new().min_length(1).max_length(40))
            .title("Name")
            .description("Who the table is for"),
        Property::new("guests", IntegerSchema::new().minimum(1).maximum(12))
            .title("Guests")
            .description("How many people"),
        Property::new("outdoor", BooleanSchema::new().default_value(false))
            .optional()
            .title("Outdoor")
            .description("A table outside"),
        Property::new(
            "seating",
            SelectSchema::new(options).default_value("window"),
        )
        .optional()
        .title("Seating")
        .description("Where"),
    ])
    .expect("a valid schema")
}

/// The user saw the booking form, read into exactly [`booking_schema`].
fn assert_saw_the_booking_form(user: &Scripted) {
    let Incoming::Form(form) = the_one_request(user) else {
        panic!("expected a form, saw {:?}", user.seen())
    };
    assert_eq!(form.message(), BOOKING_MESSAGE);
    assert_eq!(form.schema(), &booking_schema());
}

/// The user saw the page request: the URL whole, its host, and an `elicitationId` only on
/// 2025-11-25 (2026-07-28 removed it).
fn assert_saw_the_page(user: &Scripted, revision: Revision) {
    let Incoming::Url(page) = the_one_request(user) else {
        panic!("expected a URL request, saw {:?}", user.seen())
    };
    assert_eq!(page.message(), CONNECT_MESSAGE);
    assert_eq!(page.url().as_str(), CONNECT_PAGE);
    assert_eq!(page.host(), "calendar.example.com");
    let id = (revision == Revision::V2025_11_25).then_some(CONNECT_ID);
    assert_eq!(page.elicitation_id(), id);
}

fn booking() -> Value {
    json!({"name": "Ada", "guests": 4, "outdoor": true, "seating": "terrace"})
}

/// `on_both_revisions!` (from `tests/common/revisions.rs`), each test ignored unless
/// `.ci/python_e2e.sh` runs it.
macro_rules! on_both_revisions_with_python {
    ($(#[$attr:meta])* async fn $($rule:tt)*) => {
        on_both_revisions! {
            $(#[$attr])*
            #[ignore = "needs Python with mcp==2.3.0: run by .ci/python_e2e.sh (ELICIT_PYTHON)"]
            async fn $($rule)*
        }
    };
}

// ------------------------------------------------------------------------------------------ forms

on_both_revisions_with_python! {
    async fn python_sdk_server_receives_an_accepted_form_typed(revision) {
        let user = Arc::new(Scripted::new().when_field("guests", Step::accept(booking())));
        let client = connect(revision, &user).await;
        assert_eq!(
            received(&client, "book_table").await,
            json!({
                "protocolVersion": revision.to_string(),
                "action": "accept",
                "content": booking(),
                "types": {"name": "str", "guests": "int", "outdoor": "bool", "seating": "str"},
            })
        );
        assert_saw_the_booking_form(&user);
    }
}

on_both_revisions_with_python! {
    async fn python_sdk_server_receives_a_decline(revision) {
        let user = Arc::new(Scripted::new().then(Step::Decline));
        let client = connect(revision, &user).await;
        assert_eq!(
            received(&client, "book_table").await,
            json!({"protocolVersion": revision.to_string(), "action": "decline"})
        );
        assert_saw_the_booking_form(&user);
    }
}

on_both_revisions_with_python! {
    async fn python_sdk_server_receives_a_cancel(revision) {
        let user = Arc::new(Scripted::new().then(Step::Cancel));
        let client = connect(revision, &user).await;
        assert_eq!(
            received(&client, "book_table").await,
            json!({"protocolVersion": revision.to_string(), "action": "cancel"})
        );
        assert_saw_the_booking_form(&user);
    }
}

on_both_revisions_with_python! {
    /// 99 guests is above the form's `maximum` of 12: pydantic refuses the content, and the
    /// SDK ends the call with an `isError` result naming the resolver (worded a little
    /// differently on each revision), not with a JSON-RPC error.
    async fn python_sdk_server_rejects_content_outside_the_schema(revision) {
        let invalid = json!({"name": "Ada", "guests": 99});
        let user = Arc::new(Scripted::new().then(Step::accept(invalid)));
        let client = connect(revision, &user).await;
        let refusal = if revision == Revision::V2025_11_25 {
            "Resolver '__main__:ask_booking': Received an accepted elicitation"
        } else {
            "Resolver '__main__:ask_booking' received an accepted elicitation"
        };
        let expected = format!(
            "Error executing tool book_table: {refusal} whose content does not match the requested schema"
        );
        assert_eq!(call(&client, "book_table").await, Ok((expected, true)));
        assert_saw_the_booking_form(&user);
    }
}

on_both_revisions_with_python! {
    /// pydantic validates in its lax mode: the string "4" for the integer `guests` and "yes" for
    /// the boolean `outdoor` arrive as 4 and True. The form's JSON Schema (and our own check,
    /// `IncomingForm::accept`) refuses both; a client must not count on the server to.
    async fn python_sdk_server_coerces_strings_the_schema_refuses(revision) {
        let loose = json!({"name": "Ada", "guests": "4", "outdoor": "yes"});
        let user = Arc::new(Scripted::new().then(Step::accept(loose.clone())));
        let client = connect(revision, &user).await;
        assert_eq!(
            received(&client, "book_table").await,
            json!({
                "protocolVersion": revision.to_string(),
                "action": "accept",
                "content": {"name": "Ada", "guests": 4, "outdoor": true, "seating": "window"},
                "types": {"name": "str", "guests": "int", "outdoor": "bool", "seating": "str"},
            })
        );
        let Incoming::Form(form) = the_one_request(&user) else { panic!("a form") };
        let refused = form.accept(loose.as_object().unwrap().clone()).expect_err("refused");
        assert!(refused.concerns("guests") && refused.concerns("outdoor"), "{refused}");
    }
}

// ------------------------------------------------------------------------------------------- URLs

on_both_revisions_with_python! {
    async fn python_sdk_server_receives_an_accepted_page(revision) {
        let user = Arc::new(Scripted::new().when_url(Step::OpenPage));
        let client = connect(revision, &user).await;
        assert_eq!(
            received(&client, "connect_account").await,
            json!({"protocolVersion": revision.to_string(), "action": "accept"})
        );
        assert_saw_the_page(&user, revision);
    }
}

on_both_revisions_with_python! {
    async fn python_sdk_server_receives_a_declined_page(revision) {
        let user = Arc::new(Scripted::new().when_url(Step::Decline));
        let client = connect(revision, &user).await;
        assert_eq!(
            received(&client, "connect_account").await,
            json!({"protocolVersion": revision.to_string(), "action": "decline"})
        );
        assert_saw_the_page(&user, revision);
    }
}

// ------------------------------------------------------------------- a client that cannot be asked

on_both_revisions_with_python! {
    /// The SDK checks the capability before it asks a form (`Resolve`): the call ends in a
    /// JSON-RPC error, `-32021` (missing required client capability), and nobody is asked.
    async fn python_sdk_server_asks_no_form_of_a_client_without_elicitation(revision) {
        let user = Arc::new(Scripted::new().answering(&[]));
        let client = connect(revision, &user).await;
        let error = call(&client, "book_table").await.expect_err("a JSON-RPC error");
        assert_eq!(error.code, ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY, "{error:?}");
        assert!(error.message.contains("form elicitation"), "{error:?}");
        assert!(user.seen().is_empty(), "asked {:?}", user.seen());
    }
}

on_both_revisions_with_python! {
    /// `ctx.elicit_url` checks no capability (and the tool's 2026-07-28 branch, like it, asks
    /// anyway): the SDK sends the page to a client that declared no URL mode. Our client refuses
    /// it with `-32602`, the spec's error for a mode it did not declare, and the user is never
    /// shown it. On 2025-11-25 the refusal goes back to the server, whose `ctx.elicit_url`
    /// raises it, and the SDK ends the call with it as a JSON-RPC error; on 2026-07-28 an input
    /// request has no error reply, so rmcp's client ends the call with it and retries nothing.
    async fn python_sdk_server_sends_a_page_a_client_without_url_mode_refuses(revision) {
        for modes in [&[Mode::Form][..], &[]] {
            let user = Arc::new(Scripted::new().answering(modes).otherwise(Step::Decline));
            let client = connect(revision, &user).await;
            let error = call(&client, "connect_account").await.expect_err("a JSON-RPC error");
            assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{modes:?}: {error:?}");
            assert_eq!(
                error.message,
                "this client did not declare `elicitation.url`: it is not asked in url mode"
            );
            assert!(user.seen().is_empty(), "{modes:?}: shown {:?}", user.seen());
        }
    }
}

// ------------------------------------------------------------------------------------- the wire

/// The Python server spoken to line by line, with no SDK in between: what it writes is what
/// our reader reads (the `AnsweringClient` reads rmcp's re-serialization of it).
struct Wire {
    _server: tokio::process::Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
}

impl Wire {
    fn spawn() -> Self {
        let mut server = Command::new(python())
            .arg(script())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the Python server starts");
        Self {
            stdin: server.stdin.take().expect("its stdin"),
            stdout: BufReader::new(server.stdout.take().expect("its stdout")).lines(),
            _server: server,
        }
    }

    async fn send(&mut self, message: Value) {
        let line = format!("{message}\n");
        self.stdin.write_all(line.as_bytes()).await.expect("sent");
        self.stdin.flush().await.expect("flushed");
    }

    /// The next message the server writes that `is` picks out (others are skipped).
    async fn next(&mut self, is: impl Fn(&Value) -> bool) -> Value {
        loop {
            let line = within_a_while(self.stdout.next_line())
                .await
                .expect("the server's stdout")
                .expect("the server writes before it exits");
            let message: Value = serde_json::from_str(&line).expect("the server writes JSON");
            if is(&message) {
                return message;
            }
        }
    }

    /// The `result` of the request `id`.
    async fn result(&mut self, id: u64) -> Value {
        let message = self
            .next(|m| m["id"] == id && m.get("method").is_none())
            .await;
        assert!(message.get("error").is_none(), "{message}");
        message["result"].clone()
    }

    /// Call `tool` on a 2025-11-25 connection; the params of the `elicitation/create` it sends,
    /// which this answers with `answer`, and the call's result.
    async fn legacy_call(&mut self, id: u64, tool: &str, answer: Value) -> (Value, Value) {
        let call = json!({"name": tool, "arguments": {}});
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": call}))
            .await;
        let request = self.next(|m| m["method"] == "elicitation/create").await;
        let reply = json!({"jsonrpc": "2.0", "id": request["id"], "result": answer});
        self.send(reply).await;
        (request["params"].clone(), self.result(id).await)
    }
}

fn form_of(incoming: &Incoming) -> &IncomingForm {
    match incoming {
        Incoming::Form(form) => form,
        other => panic!("expected a form, read {other:?}"),
    }
}

fn page_of(incoming: &Incoming) -> &IncomingUrl {
    match incoming {
        Incoming::Url(page) => page,
        other => panic!("expected a URL request, read {other:?}"),
    }
}

/// A tool result's text.
fn text_of(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .expect("a text result")
        .to_owned()
}

/// 2025-11-25: `read_request` reads the `elicitation/create` params the SDK writes, form and URL,
/// with no note; the SDK reads our reply (`decline`).
#[tokio::test]
#[ignore = "needs Python with mcp==2.3.0: run by .ci/python_e2e.sh (ELICIT_PYTHON)"]
async fn python_sdk_server_wire_on_2025_11_25_reads_as_it_is_written() {
    let mut wire = Wire::spawn();
    let capabilities = json!({"elicitation": {"form": {}, "url": {}}});
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": capabilities,
        "clientInfo": {"name": "wire", "version": "0"}});
    wire.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}))
        .await;
    assert_eq!(wire.result(1).await["protocolVersion"], "2025-11-25");
    wire.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;

    let (params, result) = wire
        .legacy_call(2, "book_table", json!({"action": "decline"}))
        .await;
    let form = read_request(&params, Revision::V2025_11_25).expect("a form we can show");
    assert_eq!(form.notes(), [], "{params}");
    assert_eq!(form_of(&form).message(), BOOKING_MESSAGE);
    assert_eq!(form_of(&form).schema(), &booking_schema(), "{params}");
    let decline = json!({"protocolVersion": "2025-11-25", "action": "decline"});
    assert_eq!(
        serde_json::from_str::<Value>(&text_of(&result)).unwrap(),
        decline
    );

    let (params, result) = wire
        .legacy_call(3, "connect_account", json!({"action": "decline"}))
        .await;
    let page = read_request(&params, Revision::V2025_11_25).expect("a page we can show");
    assert_eq!(page.notes(), [], "{params}");
    assert_eq!(page_of(&page).url().as_str(), CONNECT_PAGE);
    assert_eq!(page_of(&page).elicitation_id(), Some(CONNECT_ID));
    assert_eq!(
        serde_json::from_str::<Value>(&text_of(&result)).unwrap(),
        decline
    );
}

/// 2026-07-28: `read_input_required` reads the input-required results the SDK writes, form and
/// URL, with no note; the SDK reads our retry (`inputResponses` under its keys, its
/// `requestState` echoed).
#[tokio::test]
#[ignore = "needs Python with mcp==2.3.0: run by .ci/python_e2e.sh (ELICIT_PYTHON)"]
async fn python_sdk_server_wire_on_2026_07_28_reads_as_it_is_written() {
    let mut wire = Wire::spawn();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}, "url": {}}},
    });
    let decline = json!({"protocolVersion": "2026-07-28", "action": "decline"});
    for (id, tool, key) in [
        (1, "book_table", "__main__:ask_booking"),
        (3, "connect_account", "connect_calendar"),
    ] {
        let call = json!({"name": tool, "arguments": {}, "_meta": meta});
        wire.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": call}))
            .await;
        let result = wire.result(id).await;
        assert_eq!(result["resultType"], "input_required", "{result}");
        let round = read_input_required(&result).expect("a round we can show");
        let [(read_key, IncomingInput::Elicitation(incoming))] = &round.inputs[..] else {
            panic!("expected one elicitation, read {round:?}")
        };
        assert_eq!(read_key, key);
        assert_eq!(incoming.notes(), [], "{result}");
        if tool == "book_table" {
            assert_eq!(form_of(incoming).schema(), &booking_schema(), "{result}");
        } else {
            assert_eq!(page_of(incoming).url().as_str(), CONNECT_PAGE);
            assert_eq!(page_of(incoming).elicitation_id(), None);
        }
        let state = round.request_state.expect("a requestState");
        let retry = json!({"name": tool, "arguments": {}, "_meta": meta,
            "inputResponses": {key: {"action": "decline"}}, "requestState": state});
        wire.send(json!({"jsonrpc": "2.0", "id": id + 1, "method": "tools/call", "params": retry}))
            .await;
        let result = wire.result(id + 1).await;
        assert_eq!(
            serde_json::from_str::<Value>(&text_of(&result)).unwrap(),
            decline
        );
    }
}
