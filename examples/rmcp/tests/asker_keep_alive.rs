//! Keep-alive: while a call waits for its user (before 2026-07-28), the server sends
//! `notifications/progress` on the call's progress token every interval it set
//! (`AskConfig::with_keep_alive`), so that a client that resets its request timeout on progress
//! keeps the call open until the user answers.
//!
//! - Each notification carries the call's token, a `progress` one more than the last (across
//!   every wait of the call) and the message "waiting for the user to answer".
//! - None after the answer, the server's deadline or the client's cancellation; every one is on
//!   the wire before the call's result.
//! - None for a request without a progress token, and none on 2026-07-28 (nothing waits there).
//! - rmcp's own client with a request timeout shorter than the user takes: with
//!   `reset_timeout_on_progress` it gets the answer, without it it times out.
//!
//! The progress is read as rmcp's client receives it (`ClientHandler::on_progress`) and as the
//! server wrote it (the tee'd wire). On tokio's paused clock: no test sleeps in real time.
//!
//! `cargo test -p elicit-examples --features oauth --test asker_keep_alive`

use std::time::Duration;

use mcp_elicit::Revision;
use mcp_elicit::rmcp::AskConfig;
use mcp_elicit::url_mode::MemoryFlowStore;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ProgressNotificationParam, ProgressToken, RequestId,
    ServerConfig, ServerResult,
};
use rmcp::service::{PeerRequestOptions, RequestContext, ServiceError};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

#[macro_use]
mod common;

use common::{
    Client, DEPLOYED, Ops, Session, accept_url, connect, deploy, finish_flow, form_and_url,
    form_only, ops_in, ops_server, ops_with, returned, staging, within_a_while,
};

/// The keep-alive interval of these tests.
const EVERY: Duration = Duration::from_millis(20);

/// `n` intervals and a half: an answer at this time comes between two notifications.
fn intervals(n: u32) -> Duration {
    EVERY * n + EVERY / 2
}

/// `ops_server` sending a keep-alive every [`EVERY`], waiting `timeout` for each answer.
fn keeping_alive(timeout: Duration) -> Ops {
    let asking = AskConfig::single_user("me").expect("the OS has randomness");
    ops_with(asking.with_keep_alive(EVERY).with_timeout(timeout))
}

/// The text and `isError` of a call's result.
fn tool_result(result: Result<ServerResult, ServiceError>) -> (String, bool) {
    match result {
        Ok(ServerResult::CallToolResult(result)) => returned(&result),
        other => panic!("expected a tool result, got {other:?}"),
    }
}

/// The progress the client received: each carries `token` and the keep-alive's message, and
/// the values are 1, 2, 3, … in order (strictly rising, none skipped, none repeated). Their
/// number.
fn assert_keep_alives(progress: &[ProgressNotificationParam], token: &ProgressToken) -> usize {
    for (n, note) in progress.iter().enumerate() {
        assert_eq!(&note.progress_token, token, "{note:?}");
        assert_eq!(note.progress, (n + 1) as f64, "rising by one: {progress:?}");
        assert_eq!(note.total, None);
        assert_eq!(
            note.message.as_deref(),
            Some("waiting for the user to answer")
        );
    }
    progress.len()
}

/// On the wire the server wrote: how many progress notifications, and whether every one came
/// before the response to the request `id`.
fn progress_before_the_result(s: &Session, id: &RequestId) -> (usize, bool) {
    let id = serde_json::to_value(id).unwrap();
    let lines: Vec<Value> = s
        .wire()
        .iter()
        .map(|line| serde_json::from_str(line).expect("the server writes JSON"))
        .collect();
    let is_progress = |line: &Value| line["method"] == "notifications/progress";
    let result = lines
        .iter()
        .position(|line| line["id"] == id && line.get("method").is_none());
    let last_progress = lines.iter().rposition(is_progress);
    let count = lines.iter().filter(|line| is_progress(line)).count();
    let before = match (last_progress, result) {
        (Some(progress), Some(result)) => progress < result,
        (None, _) => true,
        (Some(_), None) => false,
    };
    (count, before)
}

/// Wait long enough for any late notification to arrive: twenty intervals.
async fn a_while() {
    tokio::time::sleep(EVERY * 20).await;
}

#[tokio::test(start_paused = true)]
async fn a_waiting_call_is_kept_alive_with_rising_progress_until_the_answer() {
    let user = Client::declaring(form_only())
        .answering([staging()])
        .after(intervals(5));
    let s = connect(
        Revision::V2025_11_25,
        keeping_alive(Duration::from_secs(60)),
        user,
    )
    .await;
    let call = s
        .start("deploy", deploy(), PeerRequestOptions::no_options())
        .await;
    let (token, id) = (call.progress_token.clone(), call.id.clone());

    let result = within_a_while(call.await_response()).await;
    assert_eq!(tool_result(result), (DEPLOYED.to_owned(), false));
    a_while().await;

    // One every interval while the user took five and a half.
    assert_eq!(assert_keep_alives(&s.progress(), &token), 5);
    assert_eq!(progress_before_the_result(&s, &id), (5, true));
}

#[tokio::test(start_paused = true)]
async fn on_2025_06_18_a_waiting_call_is_kept_alive_too() {
    let user = Client::declaring(json!({"elicitation": {}}))
        .answering([staging()])
        .after(intervals(3));
    let s = connect(
        Revision::V2025_06_18,
        keeping_alive(Duration::from_secs(60)),
        user,
    )
    .await;
    let call = s
        .start("deploy", deploy(), PeerRequestOptions::no_options())
        .await;
    let (token, id) = (call.progress_token.clone(), call.id.clone());

    let result = within_a_while(call.await_response()).await;
    assert_eq!(tool_result(result), (DEPLOYED.to_owned(), false));
    a_while().await;

    assert_eq!(assert_keep_alives(&s.progress(), &token), 3);
    assert_eq!(progress_before_the_result(&s, &id), (3, true));
}

#[tokio::test(start_paused = true)]
async fn a_client_that_resets_its_timeout_on_progress_gets_the_answer_and_one_that_does_not_times_out()
 {
    // rmcp's client gives up after 5 intervals without progress; the user takes 15.
    let slow_user = || {
        Client::declaring(form_only())
            .answering([staging()])
            .after(intervals(15))
    };
    let timeout = EVERY * 5;

    let s = connect(
        Revision::V2025_11_25,
        keeping_alive(Duration::from_secs(60)),
        slow_user(),
    )
    .await;
    let options = PeerRequestOptions::with_timeout(timeout).reset_timeout_on_progress();
    let call = s.start("deploy", deploy(), options).await;
    let result = within_a_while(call.await_response()).await;
    assert_eq!(tool_result(result), (DEPLOYED.to_owned(), false));

    let s = connect(
        Revision::V2025_11_25,
        keeping_alive(Duration::from_secs(60)),
        slow_user(),
    )
    .await;
    let call = s
        .start(
            "deploy",
            deploy(),
            PeerRequestOptions::with_timeout(timeout),
        )
        .await;
    let result = within_a_while(call.await_response()).await;
    assert!(
        matches!(result, Err(ServiceError::Timeout { .. })),
        "{result:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn progress_stops_at_the_servers_deadline() {
    // The server waits five intervals and a half; the user would take a hundred.
    let user = Client::declaring(form_only())
        .answering([staging()])
        .after(intervals(100));
    let s = connect(Revision::V2025_11_25, keeping_alive(intervals(5)), user).await;
    let call = s
        .start("deploy", deploy(), PeerRequestOptions::no_options())
        .await;
    let (token, id) = (call.progress_token.clone(), call.id.clone());

    let result = within_a_while(call.await_response()).await;
    let no_answer = "No answer arrived: nothing was deployed.";
    assert_eq!(tool_result(result), (no_answer.to_owned(), true));
    a_while().await;

    assert_eq!(assert_keep_alives(&s.progress(), &token), 5);
    assert_eq!(progress_before_the_result(&s, &id), (5, true));
}

#[tokio::test(start_paused = true)]
async fn progress_stops_when_the_client_cancels_the_call() {
    let user = Client::declaring(form_only())
        .answering([staging()])
        .after(intervals(100));
    let s = connect(
        Revision::V2025_11_25,
        keeping_alive(Duration::from_secs(60)),
        user,
    )
    .await;
    let call = s
        .start("deploy", deploy(), PeerRequestOptions::no_options())
        .await;
    let token = call.progress_token.clone();

    tokio::time::sleep(intervals(3)).await;
    call.cancel(Some("the user closed the chat".into()))
        .await
        .expect("the cancellation is sent");
    tokio::time::sleep(EVERY).await;
    let at_cancel = s.progress().len();
    a_while().await;

    assert_eq!(at_cancel, 3, "one per interval before the cancellation");
    assert_eq!(assert_keep_alives(&s.progress(), &token), at_cancel);
}

#[tokio::test(start_paused = true)]
async fn a_url_flows_page_is_waited_for_with_progress_rising_across_both_waits() {
    let store = MemoryFlowStore::new();
    let asking = AskConfig::single_user("me").expect("the OS has randomness");
    let asking = asking.with_keep_alive(EVERY);
    let ops = ops_in(asking, &store, &ops_server::Vault::default());
    // The user agrees to open the page after 3 intervals and a half; the page finishes at 10.
    let page_store = store.clone();
    let user = Client::declaring(form_and_url())
        .answering([accept_url()])
        .after(intervals(3))
        .on_page(move |url| {
            let store = page_store.clone();
            async move {
                tokio::spawn(async move {
                    tokio::time::sleep(EVERY * 10).await;
                    finish_flow(&store, &url, Ok(json!({"scopes": ["repo"]})));
                });
            }
        });
    let s = connect(Revision::V2025_11_25, ops, user).await;
    let call = s
        .start(
            "connect_github",
            json!({}),
            PeerRequestOptions::no_options(),
        )
        .await;
    let (token, id) = (call.progress_token.clone(), call.id.clone());

    let result = within_a_while(call.await_response()).await;
    let connected = "GitHub is connected (scopes: repo).";
    assert_eq!(tool_result(result), (connected.to_owned(), false));
    a_while().await;

    // 3 while the question waits (at 1, 2, 3), 6 while the page does (at 4.5, …, 9.5): one
    // count, rising across both.
    assert_eq!(assert_keep_alives(&s.progress(), &token), 9);
    assert_eq!(progress_before_the_result(&s, &id), (9, true));
}

#[tokio::test(start_paused = true)]
async fn on_2026_07_28_nothing_waits_and_no_progress_is_sent() {
    let user = Client::declaring(form_only())
        .answering([staging()])
        .after(intervals(5));
    let s = connect(
        Revision::V2026_07_28,
        keeping_alive(Duration::from_secs(60)),
        user,
    )
    .await;
    // rmcp's client answers the input-required result and retries; every request it sends
    // carries a progress token.
    assert_eq!(
        s.call("deploy", deploy()).await,
        (DEPLOYED.to_owned(), false)
    );
    a_while().await;

    assert_eq!(s.progress(), []);
    assert!(!s.wire().concat().contains("notifications/progress"));
}

/// `ops_server` as it sees a request whose client asked for no progress: rmcp's client sets a
/// `_meta.progressToken` on every request, so this server takes it out before the tool runs.
struct WithoutProgressToken(Ops);

impl ServerHandler for WithoutProgressToken {
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        context.meta.remove("progressToken");
        assert_eq!(context.meta.get_progress_token(), None);
        self.0.call_tool(request, context).await
    }

    fn get_info(&self) -> ServerConfig {
        self.0.get_info()
    }
}

#[tokio::test(start_paused = true)]
async fn without_a_progress_token_no_progress_is_sent() {
    let user = Client::declaring(form_only())
        .answering([staging()])
        .after(intervals(5));
    let server = WithoutProgressToken(keeping_alive(Duration::from_secs(60)));
    let s = connect(Revision::V2025_11_25, server, user).await;
    assert_eq!(
        s.call("deploy", deploy()).await,
        (DEPLOYED.to_owned(), false)
    );
    a_while().await;

    assert_eq!(s.progress(), []);
    assert!(!s.wire().concat().contains("notifications/progress"));
}
