//! What a client declares it can be asked decides what it is asked: a client without form
//! elicitation, or without URL mode, is told what is missing in a tool error and never asked;
//! and our own client refuses a request in a mode it did not declare.
//!
//! `cargo test -p elicit-examples --features oauth --test asker_capabilities`

use std::sync::Arc;

use mcp_elicit::client::{Scripted, Step as KitStep};
use mcp_elicit::rmcp::AnsweringClient;
use mcp_elicit::{Mode, Revision};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ElicitRequestParams,
};
use rmcp::service::{RequestContext, ServiceError};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::json;

#[macro_use]
mod common;

use common::*;

/// Where `revision` declares a capability: the initialize handshake, or each request's `_meta`.
fn capability(revision: Revision, mode: &str) -> String {
    match revision {
        Revision::V2025_11_25 => format!("`capabilities.elicitation.{mode}` is missing"),
        _ => format!(
            "`_meta[\"io.modelcontextprotocol/clientCapabilities\"].elicitation.{mode}` is missing"
        ),
    }
}

on_both_revisions! {
    async fn a_client_without_elicitation_is_told_what_is_missing(revision) {
        let s = connect(revision, ops(), Client::declaring(headless())).await;
        let (text, is_error) = s.call("deploy", deploy()).await;
        assert!(is_error, "{text}");
        assert!(text.contains(&capability(revision, "form")), "{text}");
        assert!(text.ends_with(". Nothing was deployed."), "{text}");
        assert!(s.asked().is_empty());
    }
}

on_both_revisions! {
    async fn a_form_only_client_is_not_sent_to_a_page(revision) {
        let s = connect(revision, ops(), Client::declaring(form_only())).await;
        let (text, is_error) = s.call("connect_github", json!({})).await;
        assert!(is_error, "{text}");
        assert!(text.contains(&capability(revision, "url")), "{text}");
        let hint = ". You can also connect GitHub at https://ops.example.com/settings.";
        assert!(text.ends_with(hint), "{text}");
        assert!(s.asked().is_empty());
    }
}

on_both_revisions! {
    async fn a_scripted_user_who_cannot_be_asked_is_never_asked(revision) {
        let user = Arc::new(Scripted::new().answering(&[]));
        let client = kit(revision, ops(), &user).await;
        let returned = call_deploy(&client).await;
        assert!(returned.1, "an isError result: {returned:?}");
        assert!(returned.0.contains("elicitation.form"), "{}", returned.0);
        assert!(user.seen().is_empty());
    }
}

/// A server that asks for a page whatever the client declared (rmcp's `Peer::create_elicitation`
/// sends what it is given), and says how the client answered.
struct Careless;

impl ServerHandler for Careless {
    async fn call_tool(
        &self,
        _request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let page = ElicitRequestParams::UrlElicitationParams {
            meta: None,
            message: "Open our page.".into(),
            url: format!("{BASE}0123456789abcdef0123456789abcdef"),
            elicitation_id: "page-1".into(),
        };
        let text = match context.peer.create_elicitation(page).await {
            Ok(result) => format!("answered: {:?}", result.action),
            Err(ServiceError::McpError(error)) => {
                format!("refused: {} {}", error.code.0, error.message)
            }
            Err(other) => format!("failed: {other}"),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

/// 2025-11-25: a request in a mode the client did not declare is refused with -32602 (the
/// spec's error for it), and the user is never shown it.
#[tokio::test]
async fn a_mode_the_scripted_user_did_not_declare_is_refused_unseen() {
    for modes in [&[Mode::Form][..], &[]] {
        let user = Arc::new(Scripted::new().answering(modes).otherwise(KitStep::Decline));
        let (server_io, client_io) = tokio::io::duplex(1 << 16);
        tokio::spawn(async move {
            if let Ok(running) = Careless.serve(server_io).await {
                let _ = running.waiting().await;
            }
        });
        let client = AnsweringClient::new(Arc::clone(&user))
            .connect(client_io, Revision::V2025_11_25)
            .await
            .expect("the client connects");
        let result = within_a_while(client.call_tool(CallToolRequestParams::new("open_page")))
            .await
            .expect("a tool result");
        let (text, _) = returned(&result);
        assert!(text.starts_with("refused: -32602 "), "{modes:?}: {text}");
        assert!(text.contains("`elicitation.url`"), "{modes:?}: {text}");
        assert!(user.seen().is_empty(), "{modes:?}: shown {:?}", user.seen());
    }
}
