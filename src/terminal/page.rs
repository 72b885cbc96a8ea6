//! A page (URL mode): shown whole, its host set apart, opened only if the user accepts.

use inquire::Select;
use serde_json::Value;

use super::shown::shown;
use super::{Ended, Opener, heading, warnings};
use crate::client::IncomingUrl;

/// Ask the user to open `page`, which `server` sent: the heading, the URL whole and its host
/// apart, the notes, then Accept (open it, or show it to open by hand) or Decline. Nothing is
/// opened or fetched before the user accepts.
pub(super) fn ask(
    server: &str,
    page: &IncomingUrl,
    opener: Option<&Opener>,
) -> Result<Value, Ended> {
    heading(server, "asks you to open a page", page.message());
    let url = page.url().as_str();
    eprintln!("  Host  {}", shown(page.host(), false));
    eprintln!("  URL   {}", shown(url, false));
    eprintln!();
    warnings(page.notes());
    let accept = if opener.is_some() {
        "Open it"
    } else {
        "Accept (I will open it myself)"
    };
    let choice = Select::new("Open this page?", vec![accept, "Decline"])
        .with_help_message(
            "↑↓ to move, enter to choose, esc to dismiss · nothing is opened unless you accept",
        )
        .without_filtering()
        .raw_prompt()?;
    if choice.index == 1 {
        return Err(Ended::Decline);
    }
    match opener.map(|open| open(url)) {
        Some(Ok(())) => eprintln!("Opened {}", shown(page.host(), false)),
        Some(Err(error)) => eprintln!(
            "It could not be opened ({error}): open it yourself:\n  {}",
            shown(url, false)
        ),
        None => eprintln!("Open it in your browser:\n  {}", shown(url, false)),
    }
    Ok(page.accept())
}
