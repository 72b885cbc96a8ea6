//! 2025-11-25's completion notification, on the client: `AnsweringClient` hands
//! `notifications/elicitation/complete` to its answerer, matched to the page it completes, only
//! for a page the user accepted, once; everything else a server sends under that method is
//! ignored, and nothing it sends there panics the client.
//!
//! `cargo test -p elicit-examples --features rmcp --test url_completion`

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use mcp_elicit::client::{Answerer, Incoming, IncomingUrl, Scripted, Step};
use mcp_elicit::rmcp::{AskConfig, Asker, TestKit, respond};
use mcp_elicit::url_mode::{ElicitationId, UrlRequest};
use mcp_elicit::{Mode, Revision};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomNotification,
    ServerNotification,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

const METHOD: &str = "notifications/elicitation/complete";

/// A server that asks to open two pages (`page-a`, then `page-b`), then sends each notification
/// of its list, in order.
struct Notifier {
    asking: AskConfig,
    notifications: Vec<(&'static str, Option<Value>)>,
    /// Send the notifications while the pages are being answered, not after.
    early: bool,
}

fn notifier(notifications: Vec<(&'static str, Option<Value>)>) -> Notifier {
    Notifier {
        asking: AskConfig::single_user("me").unwrap(),
        notifications,
        early: false,
    }
}

fn complete(id: Value) -> (&'static str, Option<Value>) {
    (METHOD, Some(json!({ "elicitationId": id })))
}

fn page(name: &str) -> UrlRequest {
    UrlRequest::new(
        format!("Connect {name}."),
        &format!("https://pages.example.com/{name}"),
    )
    .unwrap()
    .with_elicitation_id(ElicitationId::parse(name).unwrap())
    .with_name(name.to_owned())
}

async fn send_all(
    context: &RequestContext<RoleServer>,
    notifications: &[(&'static str, Option<Value>)],
) {
    for (method, params) in notifications {
        let notification = CustomNotification::new(*method, params.clone());
        let sent = context
            .peer
            .send_notification(ServerNotification::CustomNotification(notification))
            .await;
        sent.unwrap();
    }
}

impl ServerHandler for Notifier {
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let mut asker = Asker::for_tool_call(&self.asking, &request, &context)?;
        if self.early {
            let (context, notifications) = (context.clone(), self.notifications.clone());
            // One every 200 ms: each while its page is on a slow user's screen (300 ms each).
            tokio::spawn(async move {
                for notification in notifications {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    send_all(&context, &[notification]).await;
                }
            });
        }
        respond(async {
            let a = asker.url(page("page-a")).await?;
            let b = asker.url(page("page-b")).await?;
            if !self.early {
                send_all(&context, &self.notifications).await;
            }
            let said = format!("{a:?} {b:?}");
            Ok::<_, mcp_elicit::rmcp::Stop>(CallToolResult::success(vec![ContentBlock::text(said)]))
        })
        .await
    }
}

/// A user who opens `page-a` and declines `page-b`.
fn user() -> Scripted {
    Scripted::new()
        .when_message("Connect page-a", Step::OpenPage)
        .when_message("Connect page-b", Step::Decline)
}

/// Call the server's tool as `user` on 2025-11-25, and give the client's notification tasks
/// time to run: the pages handed to the user as completed.
async fn completions<A: Answerer + 'static>(
    server: Notifier,
    user: Arc<A>,
    completed: impl Fn(&A) -> Vec<(String, IncomingUrl)>,
) -> Vec<(String, IncomingUrl)> {
    let kit = TestKit::new(Revision::V2025_11_25);
    let connected = kit.connect(server, Arc::clone(&user)).await.unwrap();
    let called = connected.call("connect", json!({})).await.unwrap();
    assert_eq!(called.text(), "Accept Decline");
    // Notifications are handled on tasks of their own: wait for them to settle.
    for _ in 0..20 {
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    completed(&user)
}

fn ids(completed: &[(String, IncomingUrl)]) -> Vec<&str> {
    completed
        .iter()
        .filter_map(|(_, page)| page.elicitation_id())
        .collect()
}

#[tokio::test]
async fn a_completion_for_an_accepted_page_reaches_the_answerer_once() {
    let user = Arc::new(user());
    let server = notifier(vec![complete(json!("page-a")), complete(json!("page-a"))]);
    let completed = completions(server, Arc::clone(&user), Scripted::completions).await;
    let [(server, page)] = &completed[..] else {
        panic!("{completed:?}")
    };
    assert_eq!(page.elicitation_id(), Some("page-a"));
    assert_eq!(page.url().as_str(), "https://pages.example.com/page-a");
    let (asked_by, _) = &user.seen()[0];
    assert_eq!(
        server, asked_by,
        "the server as the answerer was told when asked"
    );
}

#[tokio::test]
async fn a_completion_for_a_page_never_asked_or_not_accepted_is_ignored() {
    let server = notifier(vec![
        complete(json!("never-asked")),
        complete(json!("page-b")),
        complete(json!("PAGE-A")),
        // The one that counts, last.
        complete(json!("page-a")),
    ]);
    let completed = completions(server, Arc::new(user()), Scripted::completions).await;
    assert_eq!(ids(&completed), ["page-a"]);
}

#[tokio::test]
async fn a_malformed_completion_is_ignored() {
    let long = "a".repeat(ElicitationId::MAX_LEN + 1);
    let server = notifier(vec![
        (METHOD, None),
        (METHOD, Some(json!("page-a"))),
        (METHOD, Some(json!({}))),
        (METHOD, Some(json!({ "id": "page-a" }))),
        complete(json!(null)),
        complete(json!(42)),
        complete(json!(["page-a"])),
        complete(json!("")),
        complete(json!("page a")),
        complete(json!("page-a\u{1b}[2J")),
        complete(json!(long)),
        (
            "notifications/elicitation/completed",
            Some(json!({ "elicitationId": "page-a" })),
        ),
        (
            "notifications/message",
            Some(json!({ "elicitationId": "page-a" })),
        ),
    ]);
    let completed = completions(server, Arc::new(user()), Scripted::completions).await;
    assert!(completed.is_empty(), "{completed:?}");
}

/// A user who takes a while over each request: the server's notifications come while the page
/// is still on the screen.
struct Slow(Scripted);

impl Answerer for Slow {
    fn modes(&self) -> &[Mode] {
        self.0.modes()
    }

    fn answer(
        &self,
        server: &str,
        request: &Incoming,
    ) -> impl Future<Output = Option<Value>> + Send {
        let answer = self.0.answer(server, request);
        async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            answer.await
        }
    }

    fn completed(&self, server: &str, page: &IncomingUrl) {
        self.0.completed(server, page);
    }
}

/// A completion that arrives while its page is still on the screen is handed over once the user
/// accepts, not before; one for a page the user then declines is never handed over.
#[tokio::test]
async fn a_completion_before_the_answer_waits_for_the_user_to_accept() {
    let mut server = notifier(vec![complete(json!("page-a")), complete(json!("page-b"))]);
    server.early = true;
    let completed = completions(server, Arc::new(Slow(user())), |slow| slow.0.completions()).await;
    assert_eq!(ids(&completed), ["page-a"]);
}
