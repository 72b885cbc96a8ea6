//! The api-key example's `connect_api_key` in every host the test kit plays (`Profile::ALL`):
//! URL mode reaches only the hosts that declare it; a host of the table checked in CI that
//! cannot take the URL question gets the step in a link form (a form with no field); in the
//! others the tool fails legibly, naming the capability, and no key is ever typed into a form. Nobody opens the page here, so
//! where the host agrees to open it the tool waits and then says that no key was connected (on
//! 2026-07-28 it waits each round and asks again with the same URL until the host gives up).
//! `cargo test -p elicit-examples --features page --test api_key_hosts`
use std::sync::Arc;

use mcp_elicit::client::{Incoming, Scripted, Step};
use mcp_elicit::page::Pages;
use mcp_elicit::rmcp::{KitError, Profile};
use serde_json::json;

#[allow(dead_code)] // its `main`, which serves stdio
#[path = "../api_key_server.rs"]
mod api_key_server;

#[tokio::test(start_paused = true)]
async fn connect_api_key_in_every_host() {
    for profile in Profile::ALL {
        let pages = Pages::bind_loopback("me").await.unwrap();
        let (keys, _pages) = api_key_server::api_key_server(pages, Default::default()).unwrap();
        let user = Arc::new(Scripted::new().when_url(Step::OpenPage));
        let connected = profile
            .kit()
            .connect(keys, Arc::clone(&user))
            .await
            .unwrap();
        let called = connected.call("connect_api_key", json!({})).await;
        let forms = user
            .seen()
            .iter()
            .filter(|(_, asked)| matches!(asked, Incoming::Form(_)))
            .count();
        // Where the host cannot take the URL question and its row was checked in CI, the step
        // is carried in a link form, a form with no field (issue 43, item 3): fast-agent shows
        // the link only after the call ends, Codex speaks 2025-06-18 (no URL mode), and Claude
        // Code with a hook declares form mode only.
        let link_form = matches!(
            profile,
            Profile::FastAgent | Profile::Codex | Profile::ClaudeCodeHook
        );
        let expected_forms = usize::from(link_form);
        assert_eq!(
            forms, expected_forms,
            "{profile:?}: a key is never asked in a form with a field"
        );
        let not_connected = "No key was connected: the page was declined, or not finished.";
        match profile {
            // The revision has no URL mode, and the host is not one the table knows: the tool
            // says so, naming it.
            Profile::WellBehaved(mcp_elicit::Revision::V2025_06_18) => {
                let called = called.unwrap();
                assert!(called.is_error(), "{}", called.text());
                let why = "the protocol version in use (2025-06-18) does not support it";
                assert!(called.text().contains(why), "{}", called.text());
            }
            // The host declares no URL mode, and is not one the table knows: the tool says so,
            // naming the capability.
            Profile::Cursor => {
                let called = called.unwrap();
                assert!(called.is_error(), "{profile:?}: {}", called.text());
                assert!(
                    called.text().contains("elicitation.url"),
                    "{profile:?}: {}",
                    called.text()
                );
                assert!(user.seen().is_empty(), "{profile:?}");
            }
            // 2026-07-28: each accept is a retry that waits for the page (issue 33); nobody
            // finishes it, so each wait ends in the same URL asked again, never counted as a bad
            // answer. The host's patience ends it: the kit's, at its round limit. Copilot CLI
            // too: its client needs the `elicitationId` 2026-07-28 removed, and the host table's
            // row has the question carry the flow's.
            Profile::WellBehaved(mcp_elicit::Revision::V2026_07_28)
            | Profile::ClaudeCode
            | Profile::CopilotCli => {
                assert!(
                    matches!(called, Err(KitError::RoundsExceeded { .. })),
                    "{called:?}"
                );
                let urls: Vec<_> = user
                    .seen()
                    .iter()
                    .map(|(_, asked)| match asked {
                        Incoming::Url(url) => url.url().as_str().to_owned(),
                        other => panic!("a URL question, not {other:?}"),
                    })
                    .collect();
                assert!(urls.len() > 2, "{urls:?}");
                assert!(urls.iter().all(|url| url == &urls[0]), "{urls:?}");
            }
            // `claude -p` cancels the question, unseen: nothing connects, and nobody is asked.
            Profile::ClaudeCodePrint => {
                let called = called.map(|c| c.text().to_owned());
                assert!(called.is_ok(), "{profile:?}: {called:?}");
                assert!(user.seen().is_empty(), "{profile:?}");
            }
            // The Inspector gives the call up at 60 s, while the tool still waits for the page.
            Profile::Inspector1 => {
                assert!(
                    matches!(called, Err(KitError::Unanswered { .. })),
                    "{called:?}"
                );
            }
            // The step is asked in a link form, a form with no field whose message gives the
            // page; nobody finishes it (the script dismisses every form), and the tool's result
            // never holds the URL.
            Profile::FastAgent | Profile::Codex | Profile::ClaudeCodeHook => {
                let Some((_, Incoming::Form(form))) = user.seen().into_iter().next() else {
                    panic!("a link form: {:?}", user.seen());
                };
                assert!(form.schema().properties().is_empty(), "{form:?}");
                assert!(form.message().contains("http://"), "{form:?}");
                let text = match called {
                    Ok(called) => called.text().to_owned(),
                    Err(error) => error.to_string(),
                };
                assert!(!text.contains("http://"), "{text}");
                assert_eq!(text, not_connected, "{profile:?}");
            }
            _ => {
                let called = called.map(|c| c.text().to_owned());
                assert_eq!(called.unwrap(), not_connected, "{profile:?}");
                assert_eq!(user.seen().len(), 1, "{profile:?}");
            }
        }
    }
}
