//! A `#[prompt]` asks the way a `#[tool]` does, on both revisions that ask; served without
//! `AskingService`, a prompt that asks on 2026-07-28 is refused, naming it.
//!
//! `cargo test -p elicit-examples --features oauth --test asker_prompt`

use mcp_elicit::rmcp::{AskConfig, Asker, PromptResponse, respond_prompt};
use mcp_elicit::{Elicitation, Revision};
use rmcp::model::{ErrorCode, GetPromptRequestParams, PromptMessage, Role};
use rmcp::service::ServiceError;
use rmcp::{ServerHandler, prompt, prompt_handler, prompt_router};

#[macro_use]
mod common;

use common::ops_server::DeployTarget;
use common::*;

#[macro_use]
#[path = "common/servers.rs"]
mod servers;

asking_server!(
    /// A server with a prompt, which `ops_server` does not have; it asks `ops_server`'s own
    /// `DeployTarget` form.
    Planner
);

#[prompt_router]
impl Planner {
    #[prompt(description = "A deploy plan; asks where to deploy.")]
    async fn deploy_plan(&self, mut asker: Asker) -> PromptResponse {
        respond_prompt(async {
            let plan = match asker.form::<DeployTarget>().await? {
                Elicitation::Accept(t) => {
                    format!("Plan: {:?} with {} replicas.", t.env, t.replicas)
                }
                _ => "Plan: nothing to deploy.".to_owned(),
            };
            Ok(vec![PromptMessage::new_text(Role::User, plan)])
        })
        .await
    }
}

#[prompt_handler]
impl ServerHandler for Planner {}

fn planner() -> Planner {
    let asking = AskConfig::single_user("me").expect("the OS has randomness");
    Planner { asking }
}

on_both_revisions! {
    async fn a_prompt_asks_like_a_tool(revision) {
        let client = Client::declaring(form_only()).answering([staging()]);
        let s = connect(revision, planner(), client).await;
        let prompt = within_a_while(s.client.get_prompt(GetPromptRequestParams::new("deploy_plan")))
            .await
            .expect("the prompt completes");
        let text = serde_json::to_value(&prompt.messages).unwrap()[0]["content"]["text"].clone();
        assert_eq!(text, "Plan: Staging with 2 replicas.");
        assert_eq!(s.asked().len(), 1);
    }
}

#[tokio::test]
async fn unwrapped_a_prompt_that_asks_on_2026_07_28_is_refused_naming_asking_service() {
    let client = Client::declaring(form_only()).answering([staging()]);
    let s = connect_served(Revision::V2026_07_28, planner(), client, false).await;
    let refused = within_a_while(
        s.client
            .get_prompt(GetPromptRequestParams::new("deploy_plan")),
    )
    .await;
    let Err(ServiceError::McpError(error)) = refused else {
        panic!("expected a JSON-RPC error, got {refused:?}")
    };
    assert_eq!(error.code, ErrorCode::INTERNAL_ERROR);
    assert!(error.message.contains("AskingService"), "{}", error.message);
    assert!(s.asked().is_empty(), "nothing was asked");
}
