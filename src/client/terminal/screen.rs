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

/// `text` with every character that would act on the terminal instead of being shown, or that
/// is not shown at all, made visible as `\u{…}`: controls (Unicode's `Cc`: escape sequences move
/// the cursor, clear lines and recolour; DEL; C1), format characters (`Cf`: the bidirectional
/// overrides and isolates, which reorder what follows so that a URL or a name reads as another,
/// and the invisible ones: zero-width spaces and joiners, tags), the line and paragraph
/// separators (`Zl`, `Zp`), every other invisible character ([`invisible`]) and unassigned code
/// points (`Cn`), whose width no two tables agree on. Line feeds are kept where `lines` is true
/// (a message), and shown too elsewhere (a title, a host, an option).
pub(super) fn shown(text: &str, lines: bool) -> Cow<'_, str> {
    let acts = |previous: Option<char>, c: char| {
        if lines && c == '\n' {
            return false;
        }
        matches!(
            get_general_category(c),
            GeneralCategory::Control
                | GeneralCategory::Format
                | GeneralCategory::LineSeparator
                | GeneralCategory::ParagraphSeparator
                | GeneralCategory::Unassigned
        ) || invisible(previous, c)
    };
    let mut previous = None;
    let any = text.chars().any(|c| {
        let acts = acts(previous, c);
        previous = Some(c);
        acts
    });
    if !any {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut previous = None;
    for c in text.chars() {
        if acts(previous, c) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
        previous = Some(c);
    }
    Cow::Owned(out)
}

/// Unicode's `Default_Ignorable_Code_Point` (DerivedCoreProperties.txt; the same from Unicode 14
/// to 16, and stable by policy: its unassigned ranges are reserved for more of the same), as
/// inclusive ranges. No crate this one depends on exposes it, and the list is short.
/// These are the characters a renderer draws as nothing — but terminals do not all agree: the
/// Hangul fillers (U+115F, U+1160, U+3164, U+FFA0) are letters, none to unicode-width, one or two
/// columns to glibc's `wcwidth`. A message padded with them wraps where this crate does not
/// expect, and its text starts a row of its own.
const DEFAULT_IGNORABLE: &[(u32, u32)] = &[
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
];

/// Whether `c`, after `previous`, is drawn as nothing, or as a width terminals disagree on: a
/// default-ignorable character, but for the variation selectors that choose how an emoji is
/// drawn (U+FE0E text, U+FE0F emoji), kept after a symbol (`So`, where the emoji are).
fn invisible(previous: Option<char>, c: char) -> bool {
    let code = u32::from(c);
    if !DEFAULT_IGNORABLE
        .iter()
        .any(|&(first, last)| (first..=last).contains(&code))
    {
        return false;
    }
    let after_symbol =
        previous.is_some_and(|p| get_general_category(p) == GeneralCategory::OtherSymbol);
    !(matches!(c, '\u{FE0E}' | '\u{FE0F}') && after_symbol)
}

/// The columns `c` may take on any terminal: the most any table gives it (East Asian ambiguous
/// characters are two columns on a terminal set for East Asian text), and never none (a
/// combining mark or a conjoining jamo drawn alone takes one on some). Text measured so is never
/// wider than a terminal draws it, so a row cut or wrapped here never wraps again there.
pub(super) fn columns(c: char) -> usize {
    use unicode_width::UnicodeWidthChar;
    c.width().max(c.width_cjk()).unwrap_or(0).max(1)
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
/// controls, bidirectional overrides), and every one that is not shown at all (zero-width and
/// other default-ignorable characters, the Hangul fillers, a variation selector after anything
/// but a symbol, unassigned code points), is made visible as `\u{…}`; line feeds are kept (see
/// [`printable_line`] for a name). The terminal answerer shows every message, title and URL so.
///
/// ```
/// use mcp_elicit::client::terminal::printable;
/// assert_eq!(printable("done\u{1b}[2J"), "done\\u{1b}[2J");
/// assert_eq!(printable("two\nlines"), "two\nlines");
/// assert_eq!(printable("a\u{3164}b"), "a\\u{3164}b");
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

/// `text` a server wrote (a tool's description, a result, a log line), for a host to print whole
/// as the terminal answerer prints a message: [`printable`], and every row of it set off by a
/// gutter (`│ `) and wrapped to the terminal's width, so that none starts at column 0 where it
/// could pass for the terminal's own (a heading, a `Host` line, `Your answers:`). Ends with a line
/// feed. [`printable`] alone keeps the server's line feeds: a result of
/// `"\n── A server asks you to open a page ──"` would draw a heading of its own.
///
/// ```
/// use mcp_elicit::client::terminal::quoted;
/// let fake = "Done.\n── A server asks you to open a page ──\n  Host  accounts.example.com";
/// for row in quoted(fake).lines() {
///     assert!(row.starts_with("│ "), "{row}");
/// }
/// ```
pub fn quoted(text: &str) -> String {
    let mut out = String::new();
    gutter(&mut out, &shown(text, true), width());
    out
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

/// The terminal's width in columns, as it is now (80 if it cannot be read).
pub(super) fn width() -> usize {
    crossterm::terminal::size().map_or(80, |(columns, _)| usize::from(columns))
}

/// The columns `text` may take on any terminal ([`columns`]).
pub(super) fn wide(text: &str) -> usize {
    text.chars().map(columns).sum()
}

/// `text` (already [`shown`]) in at most `room` columns: as it is if it fits, else cut and ended
/// with `…`, so that it never reaches the end of a row and wraps into a row of its own. Every row
/// a prompt draws with server text in it (a field's label, an option, a help line, an error, an
/// answer) is cut so: inquire wraps a long row itself, starting the next at column 0.
pub(super) fn fit(text: &str, room: usize) -> Cow<'_, str> {
    if wide(text) <= room {
        return Cow::Borrowed(text);
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let columns = columns(c);
        if used + columns + self::columns('…') > room {
            break;
        }
        out.push(c);
        used += columns;
    }
    out.push('…');
    Cow::Owned(out)
}

/// `text` (already [`shown`], one line) in rows of at most `width` columns, the first after
/// `first` and the others after `rest` (the same width: spaces to align, or the gutter), so that
/// every row of it starts with this crate's own text, never with the server's. For what must be
/// read whole: a URL, its host, a note, an answer at the review.
pub(super) fn hanging(out: &mut String, first: &str, rest: &str, text: &str, width: usize) {
    // One column to spare: a row that fills the last column leaves some terminals waiting to
    // wrap.
    let room = width.saturating_sub(wide(first).max(wide(rest)) + 1).max(8);
    out.push_str(first);
    let mut used = 0;
    for c in text.chars() {
        let columns = columns(c);
        if used > 0 && used + columns > room {
            out.push('\n');
            out.push_str(rest);
            used = 0;
        }
        out.push(c);
        used += columns;
    }
    out.push('\n');
}

/// The heading every request starts with, in this crate's words (`what`: "A server asks", …),
/// then who asks and the message, every row of them set off by a gutter (`│`) and wrapped here
/// to the terminal's width, so that no server text can start a row of its own and pass for what
/// the terminal itself draws (a page's host and URL).
pub(super) fn heading(server: &str, what: &str, message: &str) -> io::Result<()> {
    let width = width();
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

/// `text`, line by line, in rows of at most `width` columns (as [`columns`] counts them) each
/// starting with the gutter.
fn gutter(out: &mut String, text: &str, width: usize) {
    const GUTTER: &str = "│ ";
    for line in text.split('\n') {
        hanging(out, GUTTER, GUTTER, line, width);
    }
}

/// The notes a careful host shows before anything is answered (a note names a field: it is
/// server text, its rows indented under the ⚠).
pub(super) fn warnings(notes: &[Note]) -> io::Result<()> {
    let width = width();
    let mut out = String::new();
    for note in notes {
        hanging(
            &mut out,
            "  ⚠ ",
            "    ",
            &shown(&note.to_string(), false),
            width,
        );
    }
    if notes.is_empty() { Ok(()) } else { say(&out) }
}

#[cfg(test)]
mod tests {
    use super::{fit, gutter, hanging, shown, wide};

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

    /// Invisible characters (Unicode's `Default_Ignorable_Code_Point`, the Hangul fillers among
    /// them) are drawn as nothing by some terminals and as one or two blank columns by others:
    /// shown escaped, they cannot pad a row by an amount this crate does not know.
    #[test]
    fn invisible_characters_are_shown_escaped() {
        for c in [
            '\u{ad}',
            '\u{34f}',
            '\u{115f}',
            '\u{1160}',
            '\u{17b4}',
            '\u{180b}',
            '\u{2065}',
            '\u{3164}',
            '\u{fe00}',
            '\u{ffa0}',
            '\u{fff0}',
            '\u{1bca0}',
            '\u{e0100}',
            '\u{e0fff}',
        ] {
            let escaped = format!("a\\u{{{:x}}}b", u32::from(c));
            assert_eq!(shown(&format!("a{c}b"), true), escaped, "{c:?}");
        }
        // A variation selector chooses how an emoji is drawn: kept after one, shown elsewhere.
        assert_eq!(shown("\u{2764}\u{fe0f}", false), "\u{2764}\u{fe0f}");
        assert_eq!(shown("a\u{fe0f}", false), "a\\u{fe0f}");
        assert_eq!(shown("\u{fe0f}", false), "\\u{fe0f}");
    }

    /// A terminal set for East Asian text draws an ambiguous character (`①`) two columns wide,
    /// unicode-width one: a row is wrapped at the widest count, so it never wraps again.
    #[test]
    fn a_gutter_row_fits_the_terminal_however_it_measures() {
        use unicode_width::UnicodeWidthChar;
        let mut out = String::new();
        gutter(&mut out, &"\u{2460}".repeat(200), 80);
        for row in out.lines() {
            let widest: usize = row.chars().map(|c| c.width_cjk().unwrap_or(0)).sum();
            assert!(widest <= 80, "{widest} columns: {row}");
        }
    }

    /// Cut text ends with `…` and fits its room; text that fits is left as it is.
    #[test]
    fn fit_cuts_with_a_visible_ellipsis() {
        assert_eq!(fit("Party size", 10), "Party size");
        assert_eq!(
            fit("Party size", 9),
            "Party s…",
            "`…` counts two: ambiguous"
        );
        assert_eq!(fit("\u{4e00}\u{4e00}\u{4e00}", 5), "\u{4e00}…");
        assert!(wide(&fit(&"\u{2460}".repeat(50), 21)) <= 21);
        assert_eq!(fit("anything", 0), "…");
    }

    /// Every row starts with the prefix given for it, none with the text.
    #[test]
    fn hanging_rows_each_start_with_their_prefix() {
        let mut out = String::new();
        hanging(&mut out, "  URL   ", "        ", &"q".repeat(200), 40);
        let rows: Vec<&str> = out.lines().collect();
        assert!(rows.len() > 1);
        assert!(rows[0].starts_with("  URL   q"));
        for row in &rows[1..] {
            assert!(row.starts_with("        q"), "{row}");
            assert!(wide(row) < 40);
        }
    }
}
