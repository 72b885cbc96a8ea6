//! A re-asked form keeps what was right: each field whose answer kept its rules comes back
//! pre-filled as its `default`; a field whose value broke a rule does not, nor any field of a
//! consent form. On 2025-06-18, where only booleans carry defaults, only booleans are.
//! Through the test kit: the tool served as it ships, rmcp's client, a scripted user.
//!
//! `cargo test -p elicit-examples --features rmcp --test reask_prefill`
use std::sync::Arc;
use std::time::Duration;

use mcp_elicit::client::{Incoming, Scripted, Step};
use mcp_elicit::observe::TooFast;
use mcp_elicit::rmcp::{AskConfig, Asker, Pace, TestKit, ToolResponse, respond};
use mcp_elicit::{Elicit, Elicitation, Revision};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use serde_json::{Value, json};

#[macro_use]
#[path = "common/servers.rs"]
mod servers;

/// Where should the release notes go?
#[derive(Elicit, Debug)]
struct Announce {
    #[elicit(title = "Channel", min_length = 2)]
    channel: String,
    #[elicit(title = "Date", format = "date")]
    date: String,
    #[elicit(title = "Mention everyone")]
    everyone: bool,
    #[elicit(title = "Copies", minimum = 1, maximum = 5)]
    copies: u8,
}

/// Archive the project? It stays readable, and nobody can change it.
#[derive(Elicit, Debug)]
#[elicit(consent)]
struct Archive {
    #[elicit(title = "Archive it", consent)]
    confirm: bool,
    #[elicit(title = "Why", min_length = 10)]
    reason: String,
}

asking_server!(Releases);

#[tool_router]
impl Releases {
    #[tool(description = "Announce a release; asks where and when.")]
    async fn announce(&self, mut asker: Asker) -> ToolResponse {
        respond(async {
            Ok(match asker.form::<Announce>().await? {
                Elicitation::Accept(a) => format!("Announced in {} on {}.", a.channel, a.date),
                _ => "Nothing was announced.".to_owned(),
            })
        })
        .await
    }

    #[tool(description = "Archive the project; asks for consent.")]
    async fn archive(&self, mut asker: Asker) -> ToolResponse {
        respond(async {
            Ok(match asker.consent::<Archive>().await? {
                Elicitation::Accept(_) => "Archived.".to_owned(),
                _ => "Nothing was archived.".to_owned(),
            })
        })
        .await
    }
}

#[tool_handler(name = "releases")]
impl ServerHandler for Releases {}

const EVERY: [Revision; 3] = [
    Revision::V2025_06_18,
    Revision::V2025_11_25,
    Revision::V2026_07_28,
];

/// Calls `tool` on `revision` with a user who answers `answers` in turn: the result's text,
/// and each form's fields' defaults as the user was shown them (`None`: no default).
async fn called(
    revision: Revision,
    tool: &str,
    answers: [Value; 2],
) -> (String, Vec<Vec<(String, Option<Value>)>>) {
    called_at(revision, tool, answers, Pace::PERSON, TooFast::DEFAULT).await
}

/// [`called`], the user answering at `pace`, the server's threshold for a person `too_fast`.
async fn called_at(
    revision: Revision,
    tool: &str,
    answers: [Value; 2],
    pace: Pace,
    too_fast: TooFast,
) -> (String, Vec<Vec<(String, Option<Value>)>>) {
    let [first, second] = answers;
    let user = Arc::new(
        Scripted::new()
            .then(Step::accept(first))
            .then(Step::accept(second)),
    );
    let server = Releases {
        asking: AskConfig::single_user("me")
            .unwrap()
            .with_too_fast(too_fast),
    };
    // A person's pace: an instant consent is not taken as the user's.
    let kit = TestKit::new(revision)
        .with_pace(pace)
        .with_wait(Duration::from_secs(60))
        .connect(server, Arc::clone(&user));
    let called = kit.await.unwrap().call(tool, json!({})).await.unwrap();
    let forms = user
        .seen()
        .into_iter()
        .map(|(_server, asked)| {
            let Incoming::Form(form) = asked else {
                panic!("a form")
            };
            let properties = form.schema().properties().iter();
            let mut defaults: Vec<_> = properties
                .map(|p| (p.name().to_owned(), p.kind().default_json()))
                .collect();
            // By name: the order on the wire depends on serde_json's features.
            defaults.sort_by(|a, b| a.0.cmp(&b.0));
            defaults
        })
        .collect();
    (called.text().to_owned(), forms)
}

fn defaults(pairs: &[(&str, Option<Value>)]) -> Vec<(String, Option<Value>)> {
    let mut defaults: Vec<_> = pairs
        .iter()
        .map(|(name, value)| ((*name).to_owned(), value.clone()))
        .collect();
    defaults.sort_by(|a, b| a.0.cmp(&b.0));
    defaults
}

#[tokio::test(start_paused = true)]
async fn a_reask_prefills_each_field_that_kept_its_rules_and_not_the_one_that_broke() {
    for revision in EVERY {
        let bad_date =
            json!({"channel": "#releases", "date": "next Friday", "everyone": true, "copies": 3});
        let good =
            json!({"channel": "#releases", "date": "2026-08-07", "everyone": true, "copies": 3});
        let (text, forms) = called(revision, "announce", [bad_date, good]).await;
        assert_eq!(text, "Announced in #releases on 2026-08-07.", "{revision}");
        let nothing = defaults(&[
            ("channel", None),
            ("date", None),
            ("everyone", None),
            ("copies", None),
        ]);
        assert_eq!(
            forms[0], nothing,
            "{revision}: the first ask has no defaults"
        );
        let kept = if revision == Revision::V2025_06_18 {
            // Only booleans carry defaults on 2025-06-18.
            defaults(&[
                ("channel", None),
                ("date", None),
                ("everyone", Some(json!(true))),
                ("copies", None),
            ])
        } else {
            defaults(&[
                ("channel", Some(json!("#releases"))),
                ("date", None),
                ("everyone", Some(json!(true))),
                ("copies", Some(json!(3))),
            ])
        };
        assert_eq!(forms[1], kept, "{revision}");
    }
}

/// On the real clock: on 2026-07-28 a consent is timed on the wall clock (sealed in the round's
/// state), which tokio's paused clock does not move. A threshold of 200 ms, answers after 300.
#[tokio::test]
async fn a_consent_form_asked_again_prefills_nothing() {
    let pace = Pace::new(Duration::from_millis(300), Duration::ZERO);
    let too_fast = TooFast::new(Duration::from_millis(200), Duration::ZERO);
    for revision in EVERY {
        // The box ticked and the reason too short: asked again, and the box is not pre-ticked.
        let short = json!({"confirm": true, "reason": "old"});
        let good = json!({"confirm": true, "reason": "the project moved to a new repository"});
        let (text, forms) = called_at(revision, "archive", [short, good], pace, too_fast).await;
        assert_eq!(text, "Archived.", "{revision}");
        let nothing = defaults(&[("confirm", None), ("reason", None)]);
        assert_eq!(forms, [nothing.clone(), nothing], "{revision}");
    }
}
