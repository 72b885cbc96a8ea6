//! The terminal itself, under every prompt: server-written text made safe to print on it, the
//! hold on it, and what each request draws around its prompts (the heading, the notes, a line).

use std::borrow::Cow;
use std::fmt::{self, Write as _};
use std::io::{self, Write};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use inquire::InquireError;
use unicode_general_category::{GeneralCategory, get_general_category};

use crate::client::Note;

/// `text` with every character that would act on the terminal instead of being shown made
/// visible as `\u{…}`: controls (Unicode's `Cc`: escape sequences move the cursor, clear lines
/// and recolour; DEL; C1), format characters (`Cf`: the bidirectional overrides and isolates,
/// which reorder what follows so that a URL or a name reads as another, and the invisible ones:
/// zero-width spaces and joiners, tags), and the line and paragraph separators (`Zl`, `Zp`).
/// Line feeds are kept where `lines` is true (a message), and shown too elsewhere (a title, a
/// host, an option).
pub(super) fn shown(text: &str, lines: bool) -> Cow<'_, str> {
    let acts = |c: char| {
        if lines && c == '\n' {
            return false;
        }
        matches!(
            get_general_category(c),
            GeneralCategory::Control
                | GeneralCategory::Format
                | GeneralCategory::LineSeparator
                | GeneralCategory::ParagraphSeparator
        )
    };
    if !text.chars().any(acts) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if acts(c) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The terminal, one user of it at a time: a prompt, or the host's own output
/// ([`Terminal::screen`](super::Terminal::screen)), never both drawn at once.
pub(super) static SCREEN: Mutex<()> = Mutex::new(());

/// A hold on the terminal: see [`Terminal::screen`](super::Terminal::screen).
#[must_use = "the terminal is held only while the guard lives"]
pub struct Screen(#[allow(dead_code)] pub(super) MutexGuard<'static, ()>);

impl fmt::Debug for Screen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Screen")
    }
}

/// `text` a server wrote (a tool's description, a result), safe to print on a terminal: every
/// character that would act on the terminal instead of being shown (escape sequences and other
/// controls, bidirectional overrides) is made visible as `\u{…}`; line feeds are kept (see
/// [`printable_line`] for a name). The terminal answerer shows every message, title and URL so.
///
/// ```
/// use mcp_elicit::client::terminal::printable;
/// assert_eq!(printable("done\u{1b}[2J"), "done\\u{1b}[2J");
/// assert_eq!(printable("two\nlines"), "two\nlines");
/// ```
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    shown(text, true)
}

/// [`printable`] for text that must stay on one line (a name, a tool's name): line feeds are
/// made visible too, so a name cannot add lines of its own.
///
/// ```
/// use mcp_elicit::client::terminal::printable_line;
/// assert_eq!(printable_line("ops\nFake heading"), "ops\\u{a}Fake heading");
/// ```
pub fn printable_line(text: &str) -> std::borrow::Cow<'_, str> {
    shown(text, false)
}

/// How a request ended without content.
#[derive(Debug)]
pub(super) enum Ended {
    /// The user chose Decline.
    Decline,
    /// The user pressed Esc or Ctrl-C.
    Cancel,
    /// Nobody waits for the answer any more (the server withdrew the request).
    Withdrawn,
    /// The terminal failed.
    Failed(InquireError),
}

impl From<InquireError> for Ended {
    fn from(error: InquireError) -> Self {
        match error {
            InquireError::OperationCanceled | InquireError::OperationInterrupted => Ended::Cancel,
            error => Ended::Failed(error),
        }
    }
}

impl From<io::Error> for Ended {
    fn from(error: io::Error) -> Self {
        Ended::Failed(InquireError::IO(error))
    }
}

/// Write `text` and a line feed on standard error, where the prompts are: an error, not a panic,
/// if the terminal is gone.
pub(super) fn say(text: &str) -> io::Result<()> {
    let mut err = io::stderr().lock();
    writeln!(err, "{text}")?;
    err.flush()
}

/// How long after a consent screen is drawn the keys typed are still thrown away: a second Enter
/// pressed with the last field's must not send a form whose review the user has not read.
const CONSENT_GRACE: Duration = Duration::from_millis(400);

/// Throw away the keys typed before a prompt that gives consent is drawn, and for
/// [`CONSENT_GRACE`] after the screen it asks about is: an Enter meant for the last prompt, or for
/// the host, must not accept what the user has not seen. Uses `crossterm`, inquire's own back
/// end, at the same version, so that both read one queue of keys.
pub(super) fn discard_typeahead() -> io::Result<()> {
    let was_raw = crossterm::terminal::is_raw_mode_enabled()?;
    if !was_raw {
        crossterm::terminal::enable_raw_mode()?;
    }
    let deadline = std::time::Instant::now() + CONSENT_GRACE;
    let drained = (|| {
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if !crossterm::event::poll(left)? {
                return Ok(());
            }
            crossterm::event::read()?;
        }
    })();
    if !was_raw {
        crossterm::terminal::disable_raw_mode()?;
    }
    drained
}

/// The heading every request starts with, in this crate's words (`what`: "A server asks", …),
/// then who asks and the message, every row of them set off by a gutter (`│`) and wrapped here
/// to the terminal's width, so that no server text can start a row of its own and pass for what
/// the terminal itself draws (a page's host and URL).
pub(super) fn heading(server: &str, what: &str, message: &str) -> io::Result<()> {
    let width = crossterm::terminal::size().map_or(80, |(columns, _)| usize::from(columns));
    let server = if server.is_empty() {
        "(no name given)".into()
    } else {
        shown(server, false)
    };
    let mut out = format!("\n── {what} ──\n");
    gutter(&mut out, &format!("From: {server}"), width);
    gutter(&mut out, &shown(message, true), width);
    say(&out)
}

/// `text`, line by line, in rows of at most `width` columns each starting with the gutter.
fn gutter(out: &mut String, text: &str, width: usize) {
    use unicode_width::UnicodeWidthChar;
    const GUTTER: &str = "│ ";
    let room = width.saturating_sub(GUTTER.len()).max(8);
    for line in text.split('\n') {
        out.push_str(GUTTER);
        let mut used = 0;
        for c in line.chars() {
            let columns = c.width().unwrap_or(0);
            if used + columns > room {
                out.push('\n');
                out.push_str(GUTTER);
                used = 0;
            }
            out.push(c);
            used += columns;
        }
        out.push('\n');
    }
}

/// The notes a careful host shows before anything is answered.
pub(super) fn warnings(notes: &[Note]) -> io::Result<()> {
    for note in notes {
        say(&format!("  ⚠ {}", shown(&note.to_string(), false)))?;
    }
    if notes.is_empty() { Ok(()) } else { say("") }
}

#[cfg(test)]
mod tests {
    use super::shown;

    #[test]
    fn plain_text_is_borrowed_as_it_is() {
        assert!(matches!(
            shown("Deploy to staging?", false),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(shown("Größe: 2 ✓", false), "Größe: 2 ✓");
    }

    #[test]
    fn escape_sequences_are_shown_not_run() {
        assert_eq!(
            shown("ok\u{1b}[2J\u{1b}]8;;x\u{7}", false),
            "ok\\u{1b}[2J\\u{1b}]8;;x\\u{7}"
        );
        assert_eq!(
            shown("a\rb\u{7f}c\u{9b}d", true),
            "a\\u{d}b\\u{7f}c\\u{9b}d"
        );
    }

    #[test]
    fn line_feeds_are_kept_only_in_a_message() {
        assert_eq!(shown("one\ntwo", true), "one\ntwo");
        assert_eq!(shown("one\ntwo", false), "one\\u{a}two");
        assert_eq!(shown("tab\there", true), "tab\\u{9}here");
    }

    #[test]
    fn bidirectional_controls_cannot_reorder_a_url() {
        let spoof = "https://example.com/\u{202E}moc.evil";
        assert_eq!(shown(spoof, false), "https://example.com/\\u{202e}moc.evil");
        for c in [
            '\u{061C}', '\u{200E}', '\u{200F}', '\u{202A}', '\u{2066}', '\u{2069}',
        ] {
            assert!(shown(&c.to_string(), true).starts_with("\\u{"), "{c:?}");
        }
    }
}
