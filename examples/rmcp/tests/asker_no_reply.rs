//! No answer in time (2025-11-25, where the server waits for one): the call ends with
//! `Elicitation::NoReply`, nothing is asked again, and a request the server gives up on is no
//! longer asked of the user.
//!
//! `cargo test -p elicit-examples --features oauth --test asker_no_reply`

use std::sync::Arc;
use std::time::Duration;

use mcp_elicit::client::{Scripted, Step as KitStep};
use mcp_elicit::rmcp::TestKit;
use mcp_elicit::{Mode, Revision};
use serde_json::{Value, json};

mod common;

use common::*;

/// 2025-11-25 only: on 2026-07-28 the server does not wait, the client retries when it has
/// the answer.
#[tokio::test]
async fn an_answer_too_late_is_no_reply_on_2025_11_25() {
    let client = Client::declaring(form_only())
        .answering([accept(json!({"env": "staging", "replicas": 2}))])
        .after(Duration::from_secs(5));
    let server = waiting(Duration::from_millis(100));
    let s = connect(Revision::V2025_11_25, server, client).await;
    let result = s.call("deploy", deploy()).await;
    assert_eq!(result, error("No answer arrived: nothing was deployed."));
    assert_eq!(s.messages(), [DEPLOY_MESSAGE], "asked once, not again");
}

/// 2025-11-25: a user who says nothing is no reply once the server stops waiting.
#[tokio::test]
async fn a_silent_scripted_user_is_no_reply() {
    let user = Arc::new(Scripted::new().otherwise(KitStep::Silence));
    let server = waiting(Duration::from_millis(100));
    let client = kit(Revision::V2025_11_25, server, &user).await;
    assert_eq!(
        call_deploy(&client).await,
        error("No answer arrived: nothing was deployed.")
    );
    assert_eq!(user.seen().len(), 1);
}

/// A user still thinking when the server gives up (its timeout cancels the request): the client
/// stops waiting for the answerer, whose future is dropped, so a terminal would not go on
/// asking a question nobody waits for.
#[tokio::test]
async fn a_request_the_server_withdraws_is_no_longer_asked() {
    /// Never answers; says when its answer is no longer awaited.
    struct Thinking(Arc<std::sync::atomic::AtomicBool>);
    struct Dropped(Arc<std::sync::atomic::AtomicBool>);
    impl Drop for Dropped {
        fn drop(&mut self) {
            self.0.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }
    impl mcp_elicit::client::Answerer for Thinking {
        fn modes(&self) -> &[Mode] {
            &[Mode::Form]
        }
        fn answer(
            &self,
            _server: &str,
            _request: &mcp_elicit::client::Incoming,
        ) -> impl Future<Output = Option<Value>> + Send {
            let dropped = Dropped(Arc::clone(&self.0));
            async move {
                let _dropped = dropped;
                std::future::pending::<Option<Value>>().await
            }
        }
    }
    let dropped = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let user = Arc::new(Thinking(Arc::clone(&dropped)));
    let server = waiting(Duration::from_millis(100));
    let kit = TestKit::new(Revision::V2025_11_25).connect(server, user);
    let client = kit.await.expect("connected");
    let called = client.call("deploy", deploy()).await.expect("a result");
    assert_eq!(called.text(), "No answer arrived: nothing was deployed.");
    within_a_while(async {
        while !dropped.load(std::sync::atomic::Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
}
