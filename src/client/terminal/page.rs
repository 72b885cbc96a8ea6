//! A page (URL mode): shown whole, its host set apart, opened only if the user accepts.

use std::io;

use inquire::Select;
use serde_json::Value;

use super::screen::{Ended, discard_typeahead, hanging, heading, say, shown, warnings, width};
use crate::client::IncomingUrl;

/// Opens an accepted page: the host's choice (a browser, a new tab), called only after the user
/// accepted. An error is shown, and the URL with it, for the user to open by hand.
pub(crate) type Opener = dyn Fn(&str) -> io::Result<()> + Send + Sync;

/// Ask the user to open `page`, which `server` sent: the heading, the URL whole and its host
/// apart, the notes, then Accept (open it, or show it to open by hand) or Decline. Nothing is
/// opened or fetched before the user accepts.
pub(super) fn ask(
    server: &str,
    page: &IncomingUrl,
    opener: Option<&Opener>,
    wanted: &dyn Fn() -> bool,
) -> Result<Value, Ended> {
    heading(server, "A server asks you to open a page", page.message())?;
    let url = page.url().as_str();
    // The host and the URL whole, each row of them under its own label's column, none at the
    // start of a row where a fake heading or Host line could stand.
    let (host, shown_url) = (shown(page.host(), false), shown(url, false));
    let mut rows = String::new();
    hanging(&mut rows, "  Host  ", "        ", &host, width());
    hanging(&mut rows, "  URL   ", "        ", &shown_url, width());
    say(&rows)?;
    warnings(page.notes())?;
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
    // `hanging` ends each row; `say` adds a line of its own.
    say(rows.trim_end_matches('\n'))?;
    Ok(page.accept())
}
