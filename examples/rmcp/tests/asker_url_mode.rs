//! URL mode: `ops_server`'s `connect_github` sends the user to its GitHub page, and reads what
//! the step came to (`Asker::url_flow`); on the wire the request has an `elicitationId` only
//! before 2026-07-28.
//!
//! The page's part is played as the page plays it: `ops_server`'s own token sink keeps a token
//! in the vault, and its receipt finishes the flow in the store (`common::finish_flow`). The
//! page itself, GitHub's consent included, is driven in Chromium by
//! `tests/browser/tests/ops_server_github.rs`.
//!
//! `cargo test -p elicit-examples --features oauth --test asker_url_mode`

use std::time::Duration;

use mcp_elicit::Revision;
use mcp_elicit::page::{ExposeSecret, Pages, SecretString, SingleUser, Token};
use mcp_elicit::rmcp::AskConfig;
use mcp_elicit::url_mode::{Flows, MemoryFlowStore};
use serde_json::json;

#[macro_use]
mod common;

use common::ops_server::{CONNECT_GITHUB, Vault, keep_token, ops_server};
use common::*;

/// The token GitHub gives the server: long and unlike anything else on the wire.
const TOKEN: &str = "gho_tokenFromGitHub7Qm2xVt9Lp4Rw8Zk";

fn token() -> Token {
    Token {
        access_token: SecretString::from(TOKEN),
        refresh_token: None,
        expires_in: None,
        scopes: vec!["repo".into()],
    }
}

/// A client that agrees to open the page (`answers`), after the user has finished it there the
/// way the page does: GitHub's token through `ops_server`'s sink into `vault`, the sink's
/// receipt into the flow.
fn finishing(
    store: &MemoryFlowStore,
    vault: &Vault,
    answers: Vec<rmcp::model::ElicitResult>,
) -> Client {
    let (store, vault) = (store.clone(), vault.clone());
    Client::declaring(form_and_url())
        .answering(answers)
        .on_page(move |url| finish_flow(&store, url, keep_token(&vault, "", token())))
}

fn single_user() -> AskConfig {
    AskConfig::single_user().expect("the OS has randomness")
}

on_both_revisions! {
    async fn a_finished_page_connects_github_and_the_token_stays_in_the_vault(revision) {
        let (store, vault) = (MemoryFlowStore::new(), Vault::default());
        let client = finishing(&store, &vault, vec![accept_url()]);
        let s = connect(revision, ops_in(single_user(), &store, &vault), client).await;
        let result = s.call("connect_github", json!({})).await;
        assert_eq!(result, ok("GitHub is connected (scopes: repo)."));
        let [asked] = &s.asked()[..] else { panic!("asked {:?}", s.asked()) };
        let (message, url, elicitation_id) = url(asked);
        assert_eq!(message, CONNECT_GITHUB);
        // The pages' base and a flow id, nothing more; before 2026-07-28 the flow id is the
        // elicitationId too (2026-07-28 has none: rmcp's client reads the absent member as "").
        let flow = flow_of(&url).to_string();
        assert_eq!(flow.len(), 32, "{url}");
        if revision == Revision::V2025_11_25 {
            assert_eq!(elicitation_id, flow);
        } else {
            assert_eq!(elicitation_id, "");
        }
        let vault = vault.lock().unwrap();
        assert_eq!(vault.get("").map(|t| t.expose_secret().to_owned()).as_deref(), Some(TOKEN));
        assert!(!s.wire().concat().contains(TOKEN), "the token went to the client");
    }
}

on_both_revisions! {
    async fn a_page_that_failed_connects_nothing_and_says_why(revision) {
        let store = MemoryFlowStore::new();
        let failing = store.clone();
        let client = Client::declaring(form_and_url())
            .answering([accept_url()])
            .on_page(move |url| {
                finish_flow(&failing, url, Err("You did not allow this server at GitHub.".into()))
            });
        let vault = Vault::default();
        let s = connect(revision, ops_in(single_user(), &store, &vault), client).await;
        let result = s.call("connect_github", json!({})).await;
        assert_eq!(
            result,
            error("GitHub was not connected: You did not allow this server at GitHub.")
        );
        assert!(vault.lock().unwrap().is_empty());
    }
}

on_both_revisions! {
    /// The user agrees to open the page and never finishes it. Before 2026-07-28 the tool
    /// waits for the page as long as the server waits for an answer; on 2026-07-28 the client
    /// is asked again, with the same URL, and then the call ends in an error.
    async fn a_page_not_finished_connects_nothing(revision) {
        let client = Client::declaring(form_and_url()).answering([accept_url()]);
        let s = connect(revision, waiting(Duration::from_millis(300)), client).await;
        let (text, is_error) = s.call("connect_github", json!({})).await;
        assert!(is_error, "{text}");
        let asked = s.asked();
        if revision == Revision::V2025_11_25 {
            assert_eq!(
                text,
                "The GitHub page was not finished in time: GitHub was not connected. Finish it, \
                 then call this tool again."
            );
            assert_eq!(asked.len(), 1);
        } else {
            assert!(text.contains("not finished"), "{text}");
            let [first, again] = &asked[..] else { panic!("asked {asked:?}") };
            assert_eq!(url(first).1, url(again).1, "the same page");
            assert!(url(again).0.starts_with(CONNECT_GITHUB), "{}", url(again).0);
        }
    }
}

on_both_revisions! {
    async fn a_declined_page_is_declined(revision) {
        let client = Client::declaring(form_and_url()).answering([decline()]);
        let s = connect(revision, ops(), client).await;
        let result = s.call("connect_github", json!({})).await;
        assert_eq!(result, ok("You declined: GitHub was not connected."));
        assert_eq!(s.asked().len(), 1);
    }
}

on_both_revisions! {
    async fn a_dismissed_page_is_dismissed(revision) {
        let client = Client::declaring(form_and_url()).answering([cancel()]);
        let s = connect(revision, ops(), client).await;
        let result = s.call("connect_github", json!({})).await;
        assert_eq!(result, ok("You dismissed the request: GitHub was not connected."));
        assert_eq!(s.asked().len(), 1);
    }
}

on_both_revisions! {
    async fn the_url_request_on_the_wire_has_an_elicitation_id_only_before_2026_07_28(revision) {
        let client = Client::declaring(form_and_url()).answering([decline()]);
        let s = connect(revision, ops(), client).await;
        s.call("connect_github", json!({})).await;
        let [line] = &s.questions_on_the_wire()[..] else { panic!("{:?}", s.wire()) };
        assert!(line.contains(r#""mode":"url""#), "{line}");
        if revision == Revision::V2025_11_25 {
            assert!(!line.contains(r#""elicitationId":"""#), "an empty id: {line}");
            assert!(line.contains(r#""elicitationId":""#), "no id: {line}");
        } else {
            assert!(!line.contains("elicitationId"), "2026-07-28 removed it: {line}");
        }
    }
}

on_both_revisions! {
    /// `GITHUB_CLIENT_ID` and `GITHUB_CLIENT_SECRET` unset: the other tools work, and this one
    /// asks nothing and tells its operator what to set and which callback URL to register.
    async fn without_a_github_app_nothing_is_asked_and_the_operator_is_told_what_to_set(revision) {
        let pages = Pages::new(Flows::new(MemoryFlowStore::new(), BASE).unwrap(), SingleUser).unwrap();
        let (ops, _pages) = ops_server(pages, None, Vault::default()).unwrap();
        let client = Client::declaring(form_and_url()).answering([staging()]);
        let s = connect(revision, ops, client).await;
        let (text, is_error) = s.call("connect_github", json!({})).await;
        assert!(is_error, "{text}");
        assert!(text.starts_with("GitHub is not set up on this server: nothing was asked."), "{text}");
        for named in ["GITHUB_CLIENT_ID", "GITHUB_CLIENT_SECRET", &format!("{BASE}authorized")] {
            assert!(text.contains(named), "{named}: {text}");
        }
        assert!(s.asked().is_empty());
        assert_eq!(s.call("deploy", deploy()).await, ok(DEPLOYED));
    }
}
