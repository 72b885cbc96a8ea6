//! A page (URL mode): shown whole, its host set apart, opened only if the user accepts; and a
//! page the user accepted that the server asks about again, because its step is not finished.

use std::io;

use inquire::Select;
use serde_json::Value;

use super::accepted::Accepted;
use super::screen::{Ended, discard_typeahead, hanging, heading, say, shown, warnings, width};
use crate::client::IncomingUrl;

/// Opens an accepted page: the host's choice (a browser, a new tab), called only after the user
/// accepted. An error is shown, and the URL with it, for the user to open by hand.
pub(crate) type Opener = dyn Fn(&str) -> io::Result<()> + Send + Sync;

/// Ask the user to open `page`, which `server` sent: the heading, the URL whole and its host
/// apart, the notes, then Accept (open it, or show it to open by hand) or Decline. Nothing is
/// opened or fetched before the user accepts. A page the user accepted is remembered in
/// `accepted` until its step is reported complete; one the same server asks about again before
/// then is [asked again](again).
pub(super) fn ask(
    server: &str,
    page: &IncomingUrl,
    opener: Option<&Opener>,
    accepted: &Accepted,
    wanted: &dyn Fn() -> bool,
) -> Result<Value, Ended> {
    if accepted.asked_again(server, page) {
        return again(server, page, accepted, wanted);
    }
    heading(server, "A server asks you to open a page", page.message())?;
    let url = page.url().as_str();
    let (host, shown_url) = where_it_is(page)?;
    let accept = if opener.is_some() {
        "Open it"
    } else {
        "Accept (I will open it myself)"
    };
    // Consent is given on this screen, after it is drawn: nothing typed before counts, and the
    // cursor starts on Decline.
    discard_typeahead()?;
    let choice = Select::new("Open this page?", vec![accept, "Decline"])
        .with_help_message(
            "↑↓ to move, enter to choose, esc dismisses · nothing opens unless you accept",
        )
        .with_starting_cursor(1)
        .without_filtering()
        .raw_prompt()?;
    if choice.index == 1 {
        return Err(Ended::Decline);
    }
    // Withdrawn while the user chose: nothing is opened for a request nobody waits for.
    if !wanted() {
        return Err(Ended::Withdrawn);
    }
    let mut rows = String::new();
    match opener.map(|open| open(url)) {
        Some(Ok(())) => hanging(&mut rows, "Opened ", "       ", &host, width()),
        Some(Err(error)) => {
            rows.push_str(&format!(
                "It could not be opened ({error}): open it yourself:\n"
            ));
            hanging(&mut rows, "  ", "  ", &shown_url, width());
        }
        None => {
            rows.push_str("Open it in your browser:\n");
            hanging(&mut rows, "  ", "  ", &shown_url, width());
        }
    }
    if page.elicitation_id().is_some() {
        rows.push_str("Waiting for the server to report the step on the page complete.\n");
    }
    // `hanging` ends each row; `say` adds a line of its own.
    say(rows.trim_end_matches('\n'))?;
    accepted.accepted(server, page);
    Ok(page.accept())
}

/// The host and the URL whole, each row of them under its own label's column, none at the start
/// of a row where a fake heading or Host line could stand; then the notes. Each as shown.
fn where_it_is(page: &IncomingUrl) -> io::Result<(String, String)> {
    let host = shown(page.host(), false).into_owned();
    let url = shown(page.url().as_str(), false).into_owned();
    let mut rows = String::new();
    hanging(&mut rows, "  Host  ", "        ", &host, width());
    hanging(&mut rows, "  URL   ", "        ", &url, width());
    say(&rows)?;
    warnings(page.notes())?;
    Ok((host, url))
}

/// `server` asks again about `page`, which the user accepted and whose step it has not reported
/// complete (on 2026-07-28, a step not finished is asked about again, with the same URL): the
/// page as before, then *Check again* (accept again: the server looks at the step again; nothing
/// is opened again) or *Cancel* (the page is forgotten).
fn again(
    server: &str,
    page: &IncomingUrl,
    accepted: &Accepted,
    wanted: &dyn Fn() -> bool,
) -> Result<Value, Ended> {
    heading(
        server,
        "The server asks again about a page you accepted",
        page.message(),
    )?;
    where_it_is(page)?;
    say("Waiting for you to finish on the page. When you have, check again; or cancel.")?;
    // The server learns of a choice made on this screen only.
    discard_typeahead()?;
    let choice = Select::new("Check again?", vec!["Check again", "Cancel"])
        .with_help_message("↑↓ to move, enter to choose, esc cancels · nothing is opened again")
        .without_filtering()
        .raw_prompt();
    let url = page.url().as_str();
    match choice {
        Ok(choice) if choice.index == 0 => {
            if !wanted() {
                return Err(Ended::Withdrawn);
            }
            // The page as asked now: its completion comes for this request's id.
            accepted.accepted(server, page);
            Ok(page.accept())
        }
        Ok(_) => {
            accepted.forget(server, url);
            Err(Ended::Cancel)
        }
        Err(error) => {
            let ended = Ended::from(error);
            if matches!(ended, Ended::Cancel) {
                accepted.forget(server, url);
            }
            Err(ended)
        }
    }
}
