//! Server-written text, made safe to print on a terminal.

use std::borrow::Cow;
use std::fmt::Write;

use unicode_general_category::{GeneralCategory, get_general_category};

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
