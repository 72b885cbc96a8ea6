//! A stdio server whose page finishes on a timer: for `tests/terminal.rs` to drive
//! `terminal_client` through the wait for a page, in a real pseudo-terminal. Not one to copy: its
//! page does not exist, and nothing but a timer finishes the step.
//!
//! - `connect` asks the user to open a page. On 2025-11-25, once they accept, it waits for the
//!   step within the call: `complete_after_ms` later it sends `notifications/elicitation/complete`
//!   for the page's `elicitationId` (after one for an id it never asked about, which the client
//!   must ignore) and returns "Connected."; without `complete_after_ms` the step never completes,
//!   and the call waits until the client cancels it.
//! - `connect_later` returns as soon as the user accepts, saying to call it again once the step
//!   is done; the notification follows `complete_after_ms` later, after the call.
//! - On 2026-07-28, where there is no notification, both ask about the same page again, saying
//!   the step is not finished, until the user has checked again `checks` times (1 by default):
//!   then "Connected.".
use std::time::Duration;

use mcp_elicit::UrlOutcome;
use mcp_elicit::rmcp::{AskConfig, Asker, AskingServer, AskingService, ToolResponse, respond};
use mcp_elicit::url_mode::{ElicitationId, UrlRequest};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, CustomNotification, ServerNotification};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::json;

const MESSAGE: &str = "Connect your account on our page.";
const PAGE: &str = "https://pages.example.com/connect";
const NOT_FINISHED: &str =
    "the step on the page is not finished yet: finish it there, then retry or continue";

#[derive(Deserialize, schemars::JsonSchema, Default)]
struct Step {
    /// 2025-11-25: how long after the user accepts the step completes (never, without it).
    complete_after_ms: Option<u64>,
    /// 2026-07-28: how many times the user checks again before the step is finished.
    checks: Option<u32>,
}

#[derive(Clone)]
struct Pages {
    asking: AskConfig,
}

impl AskingServer for Pages {
    fn asking(&self) -> &AskConfig {
        &self.asking
    }
}

fn text(text: &str) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

/// `notifications/elicitation/complete` for `id`.
async fn complete(context: &RequestContext<RoleServer>, id: &str) {
    let params = json!({ "elicitationId": id });
    let notification = CustomNotification::new("notifications/elicitation/complete", Some(params));
    let sent = context
        .peer
        .send_notification(ServerNotification::CustomNotification(notification))
        .await;
    if let Err(error) = sent {
        eprintln!("page_server: the notification was not sent: {error}");
    }
}

impl Pages {
    /// Ask the user to open the page; on 2026-07-28 ask again until they have checked `checks`
    /// times. What they answered last, and the page's id.
    async fn ask(
        asker: &mut Asker,
        step: &Step,
    ) -> Result<(UrlOutcome, ElicitationId), mcp_elicit::rmcp::Stop> {
        let id = ElicitationId::random()?;
        let page = UrlRequest::new(MESSAGE, PAGE)?
            .with_elicitation_id(id.clone())
            .with_name("connect");
        let mut outcome = asker.url(page).await?;
        if asker.revision().has_multi_round_trip() {
            for check in 1..=step.checks.unwrap_or(1) {
                if outcome != UrlOutcome::Accept {
                    break;
                }
                let again = UrlRequest::new(format!("{MESSAGE} ({NOT_FINISHED})"), PAGE)?
                    .with_name(format!("connect-again-{check}"));
                outcome = asker.url(again).await?;
            }
        }
        Ok((outcome, id))
    }
}

/// What a page the user did not accept ends with.
fn not_accepted(outcome: UrlOutcome) -> CallToolResult {
    match outcome {
        UrlOutcome::Decline => text("You declined: not connected."),
        UrlOutcome::Cancel => text("You cancelled: not connected."),
        _ => CallToolResult::error(vec![ContentBlock::text("No answer: not connected.")]),
    }
}

#[tool_router]
impl Pages {
    #[tool(description = "Connect an account on a page; the step completes within the call.")]
    async fn connect(
        &self,
        mut asker: Asker,
        context: RequestContext<RoleServer>,
        Parameters(step): Parameters<Step>,
    ) -> ToolResponse {
        respond(async {
            let (outcome, id) = Self::ask(&mut asker, &step).await?;
            if outcome != UrlOutcome::Accept {
                return Ok(not_accepted(outcome));
            }
            if asker.revision().has_multi_round_trip() {
                return Ok(text("Connected."));
            }
            let Some(after) = step.complete_after_ms else {
                context.ct.cancelled().await;
                eprintln!("page_server: the client cancelled the call");
                return Ok(text("Cancelled."));
            };
            tokio::time::sleep(Duration::from_millis(after / 2)).await;
            complete(&context, "an-id-never-asked").await;
            tokio::time::sleep(Duration::from_millis(after / 2)).await;
            complete(&context, id.as_str()).await;
            Ok(text("Connected."))
        })
        .await
    }

    #[tool(description = "Connect an account on a page; the step completes after the call.")]
    async fn connect_later(
        &self,
        mut asker: Asker,
        context: RequestContext<RoleServer>,
        Parameters(step): Parameters<Step>,
    ) -> ToolResponse {
        respond(async {
            let (outcome, id) = Self::ask(&mut asker, &step).await?;
            if outcome != UrlOutcome::Accept {
                return Ok(not_accepted(outcome));
            }
            if asker.revision().has_multi_round_trip() {
                return Ok(text("Connected."));
            }
            if let Some(after) = step.complete_after_ms {
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(after)).await;
                    complete(&context, id.as_str()).await;
                });
            }
            Ok(text("Finish on the page, then call this tool again."))
        })
        .await
    }
}

#[tool_handler(name = "pages")]
impl ServerHandler for Pages {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let pages = Pages {
        asking: AskConfig::single_user("me")?,
    };
    AskingService(pages)
        .serve(rmcp::transport::stdio())
        .await?
        .waiting()
        .await?;
    Ok(())
}
