//! A deploy tool that must ask the user which environment to deploy to.
//!
//! Prints the `elicitation/create` params it would send, then handles each way a client can
//! answer: accept, decline, cancel, no reply at all, and an accepted reply that breaks the form's
//! rules.
//!
//! Run it with `cargo run --example quickstart`.

use mcp_elicit::{Elicit, Elicitation, reply::ReplyError};

/// Choose where to deploy `billing-api` v2.4.1; production requires a change ticket.
#[derive(Elicit, Debug)]
struct DeployTarget {
    #[elicit(title = "Environment", default = Env::Staging)]
    env: Env,
    /// The change ticket approving a production deploy, e.g. CHG-1234.
    #[elicit(title = "Change ticket", min_length = 4, max_length = 32)]
    ticket: Option<String>,
    /// Who to notify when the deploy finishes.
    #[elicit(title = "Notify", format = "email")]
    notify: String,
    #[elicit(title = "Replicas", minimum = 1, maximum = 12, default = 3)]
    replicas: u8,
}

#[derive(Elicit, Debug, Clone, Copy, PartialEq)]
#[elicit(rename_all = "lowercase")]
enum Env {
    #[elicit(title = "Staging")]
    Staging,
    #[elicit(title = "Production (customer traffic)", dangerous)]
    Production,
}

/// What the tool does with each outcome. Nothing is applied unless the user accepted.
fn handle(outcome: Result<Elicitation<DeployTarget>, ReplyError>) -> String {
    match outcome {
        Ok(Elicitation::Accept(target)) => match (target.env, &target.ticket) {
            (Env::Production, None) => {
                "refused: production needs a change ticket; nothing was deployed".into()
            }
            (env, _) => format!(
                "deploying to {env:?} with {} replicas; will notify {}",
                target.replicas, target.notify
            ),
        },
        Ok(Elicitation::Decline) => "the user declined: nothing was deployed".into(),
        Ok(Elicitation::Cancel) => "the user dismissed the question: nothing was deployed".into(),
        Ok(Elicitation::NoReply) => "no answer arrived: nothing was deployed".into(),
        Err(error) => format!("rejected reply, nothing was deployed: {error}"),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let params = serde_json::to_string_pretty(&DeployTarget::form_request())?;
    println!("elicitation/create params:\n{params}\n");

    let replies = [
        (
            "accept",
            r#"{"action":"accept","content":{"env":"production","ticket":"CHG-1234","notify":"oncall@example.com","replicas":6}}"#,
        ),
        ("decline", r#"{"action":"decline"}"#),
        ("cancel", r#"{"action":"cancel","content":null}"#),
        (
            "invalid",
            r#"{"action":"accept","content":{"env":"prod","ticket":"x","notify":"not-an-email","replicas":40}}"#,
        ),
    ];
    for (label, reply) in replies {
        println!("{label:>8}: {reply}");
        println!("       → {}\n", handle(DeployTarget::from_reply_str(reply)));
    }
    // A client that never answers: the transport times out and reports no reply.
    println!("no reply: (timed out)");
    println!("       → {}", handle(Ok(Elicitation::NoReply)));
    Ok(())
}
