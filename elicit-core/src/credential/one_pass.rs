//! The lexicon at run time, reading a text once: what [`credential_kind`](super::credential_kind)
//! says of it, in one pass however many entries the lexicon has.
//!
//! The `const fn` reads a text once per entry (some 40 passes): cheap for a field's name, but a
//! client reads every title and description of a form it receives (up to 64 × 4.6 KiB), and
//! there the passes were most of its time (BENCHMARKS.md §6). Here the text is split into words
//! by the `const fn`'s own `next_word`, each character folded to lowercase by its own
//! `lowercase`, and every folded unit goes through two automata built from the same tables, one
//! step each:
//!
//! - `words`, a trie of the `SINGLE` and `PAIRS` words, started afresh at each word: at the
//!   word's end it says which word of the lexicon it is, if any; that word's number gives its
//!   `SINGLE` entry, and with the previous word's, its `PAIRS` entry, from plain tables;
//! - `glued`, the `GLUED` entries as one Aho–Corasick automaton, fed every word's units run
//!   together (what `has_glued` searches): in each state it says which entry ends there.
//!
//! No hashing: a first version looked each word and each pair of neighbours up in std's
//! `HashMap` (SipHash), and on a form whose titles and descriptions were `key key key …` (two
//! hashes every four bytes) `read_request` took 12.7 ms, over the 10 ms target that the
//! version with automata meets on it (BENCHMARKS.md §6). The automata take one table step per
//! unit whatever the text, and the tables are fixed, so a hostile text has nothing to collide.
//!
//! The answer is the `const fn`'s: the first entry of `SINGLE` found, else of `PAIRS`, else of
//! `GLUED`, in the tables' order, not the text's. The tables are the `const fn`'s, read into
//! these structures on first use; property tests check the two readings agree.

use std::collections::VecDeque;
use std::sync::LazyLock;

use super::{GLUED, PAIRS, SINGLE, lowercase, next_char, next_word};

/// What [`credential_kind`](super::credential_kind) gives for `text`, reading it once.
pub(crate) fn credential_kind_in_one_pass(text: &str) -> Option<&'static str> {
    let lexicon = &*LEXICON;
    // The first entry of each table found so far (its index, or `NONE`).
    let mut single = NONE;
    let mut pair = NONE;
    let mut glued = NONE;
    // The previous word's number, or `NONE` if the lexicon does not know it.
    let mut previous = NONE;
    let mut glued_state = ROOT;
    let mut rest = text.as_bytes();
    while let Some((word, after)) = next_word(rest) {
        let mut word_state = ROOT;
        let mut unit = |unit: u8| {
            word_state = lexicon.words.step(word_state, unit);
            glued_state = lexicon.glued.step(glued_state, unit);
            glued = glued.min(lexicon.glued.ends(glued_state));
        };
        let mut chars = word;
        // Every character of a word is alphanumeric (`next_word`), so every one is folded, as
        // `folds_to` folds them.
        while let Some((c, after)) = next_char(chars) {
            let (first, second) = lowercase(c);
            unit(first);
            if let Some(second) = second {
                unit(second);
            }
            chars = after;
        }
        let word = lexicon.words.ends(word_state);
        if word != NONE {
            single = single.min(lexicon.single(word));
            if previous != NONE {
                pair = pair.min(lexicon.pair(previous, word));
            }
        }
        previous = word;
        rest = after;
    }
    // `NONE` is no index: `get` gives `None`.
    let single = SINGLE.get(single).map(|(_, kind)| *kind);
    let pair = PAIRS.get(pair).map(|(_, _, kind)| *kind);
    let glued = GLUED.get(glued).map(|(_, kind)| *kind);
    single.or(pair).or(glued)
}

/// No entry, pattern or word: larger than any index, so the first entry found is the least of
/// those found, `NONE` if none was.
const NONE: usize = usize::MAX;

static LEXICON: LazyLock<Lexicon> = LazyLock::new(Lexicon::new);

/// The tables, arranged to be read in one pass.
struct Lexicon {
    /// Every word of `SINGLE` and `PAIRS`, anchored at a word's start: at its end, the word's
    /// number.
    words: Automaton,
    /// Each word's first `SINGLE` entry (or `NONE`), by its number.
    single: Vec<usize>,
    /// The first `PAIRS` entry (or `NONE`) two words are, at `first * count + second` (their
    /// numbers; there are a few dozen words, so a plain table).
    pairs: Vec<usize>,
    /// Every `GLUED` entry, anywhere in a text's words run together.
    glued: Automaton,
}

impl Lexicon {
    fn new() -> Self {
        // The words, numbered in the order they first appear.
        let mut words: Vec<&'static str> = Vec::new();
        let mut number = |word: &'static str| match words.iter().position(|w| *w == word) {
            Some(number) => number,
            None => {
                words.push(word);
                words.len() - 1
            }
        };
        let single: Vec<(usize, usize)> = SINGLE
            .iter()
            .enumerate()
            .map(|(index, (word, _))| (number(word), index))
            .collect();
        let pairs: Vec<(usize, usize, usize)> = PAIRS
            .iter()
            .enumerate()
            .map(|(index, (first, second, _))| (number(first), number(second), index))
            .collect();
        let count = words.len();
        let mut by_word = vec![NONE; count];
        for (word, index) in single {
            if let Some(slot) = by_word.get_mut(word) {
                *slot = (*slot).min(index);
            }
        }
        let mut by_pair = vec![NONE; count * count];
        for (first, second, index) in pairs {
            if let Some(slot) = by_pair.get_mut(first * count + second) {
                *slot = (*slot).min(index);
            }
        }
        let glued = GLUED.iter().map(|(word, _)| *word).enumerate();
        Self {
            words: Automaton::trie(words.iter().copied().enumerate()).anchored(),
            single: by_word,
            pairs: by_pair,
            glued: Automaton::trie(glued).unanchored(),
        }
    }

    /// The first `SINGLE` entry word `word` (its number) is, or `NONE`.
    fn single(&self, word: usize) -> usize {
        self.single.get(word).copied().unwrap_or(NONE)
    }

    /// The first `PAIRS` entry words `first` then `second` (their numbers) are, or `NONE`.
    fn pair(&self, first: usize, second: usize) -> usize {
        let at = first
            .checked_mul(self.single.len())
            .and_then(|row| row.checked_add(second));
        at.and_then(|at| self.pairs.get(at))
            .copied()
            .unwrap_or(NONE)
    }
}

// ---------------------------------------------------------------------------------------------
// Automata over folded units

/// The state before any unit.
const ROOT: usize = 0;

/// The units a folded text is made of: `a`–`z`, `0`–`9`, and [`OTHER`] for the rest (the unit
/// `lowercase` gives for any character beyond ASCII).
const COLUMNS: usize = 37;
const OTHER: usize = COLUMNS - 1;

const fn column(unit: u8) -> usize {
    match unit {
        b'a'..=b'z' => (unit - b'a') as usize,
        b'0'..=b'9' => 26 + (unit - b'0') as usize,
        _ => OTHER,
    }
}

/// A deterministic automaton over folded units, made from a set of patterns (each with a
/// number): one table step per unit, and in each state the first pattern that ends there.
struct Automaton {
    /// The next state, for each state and [`column()`]: `COLUMNS` to a state.
    next: Vec<usize>,
    /// The first pattern (its number) that ends in each state, or `NONE`.
    ends: Vec<usize>,
}

impl Automaton {
    /// The trie of `patterns`: a state for each prefix. `ROOT` as a move means none yet (no
    /// move of a trie leads back to its root), until [`Automaton::anchored`] or
    /// [`Automaton::unanchored`] fills them in.
    fn trie<'a>(patterns: impl Iterator<Item = (usize, &'a str)>) -> Self {
        let mut trie = Self {
            next: vec![ROOT; COLUMNS],
            ends: vec![NONE],
        };
        for (number, pattern) in patterns {
            // A byte no folded text holds (uppercase, beyond ASCII) means the `const fn` never
            // matches the pattern, so it is left out.
            let columns: Option<Vec<usize>> = pattern
                .bytes()
                .map(|byte| Some(column(byte)).filter(|&c| c != OTHER))
                .collect();
            let Some(columns) = columns else { continue };
            let mut state = ROOT;
            for c in columns {
                state = match trie.step_by_column(state, c) {
                    ROOT => {
                        let child = trie.add_state();
                        trie.set(state, c, child);
                        child
                    }
                    child => child,
                };
            }
            if let Some(end) = trie.ends.get_mut(state) {
                *end = (*end).min(number);
            }
        }
        trie
    }

    /// Matching whole texts (a word): a move the trie lacks leads to a dead state, which
    /// matches nothing and never leaves.
    fn anchored(mut self) -> Self {
        let dead = self.add_state();
        for slot in &mut self.next {
            if *slot == ROOT {
                *slot = dead;
            }
        }
        self
    }

    /// Matching anywhere (Aho–Corasick): a move the trie lacks is that of the state's fallback,
    /// the state of its longest proper end, and the patterns that end at the fallback end here
    /// too. Breadth first, so a fallback is complete before the states that fall back to it.
    fn unanchored(mut self) -> Self {
        let mut fallback = vec![ROOT; self.ends.len()];
        let mut queue = VecDeque::from([ROOT]);
        while let Some(state) = queue.pop_front() {
            let from = fallback.get(state).copied().unwrap_or(ROOT);
            for c in 0..COLUMNS {
                let via = if state == ROOT {
                    ROOT
                } else {
                    self.step_by_column(from, c)
                };
                match self.step_by_column(state, c) {
                    ROOT => self.set(state, c, via),
                    child => {
                        if let Some(slot) = fallback.get_mut(child) {
                            *slot = via;
                        }
                        let inherited = self.ends(via);
                        if let Some(end) = self.ends.get_mut(child) {
                            *end = (*end).min(inherited);
                        }
                        queue.push_back(child);
                    }
                }
            }
        }
        self
    }

    /// A new state, every move leading to `ROOT` (none yet, in a trie).
    fn add_state(&mut self) -> usize {
        self.ends.push(NONE);
        self.next.extend([ROOT; COLUMNS]);
        self.ends.len() - 1
    }

    /// The state after `unit`.
    fn step(&self, state: usize, unit: u8) -> usize {
        self.step_by_column(state, column(unit))
    }

    fn step_by_column(&self, state: usize, column: usize) -> usize {
        self.next
            .get(state * COLUMNS + column)
            .copied()
            .unwrap_or(ROOT)
    }

    fn set(&mut self, state: usize, column: usize, to: usize) {
        if let Some(slot) = self.next.get_mut(state * COLUMNS + column) {
            *slot = to;
        }
    }

    /// The first pattern that ends in `state`, or `NONE`.
    fn ends(&self, state: usize) -> usize {
        self.ends.get(state).copied().unwrap_or(NONE)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{credential_kind, field_credential_kind};
    use super::*;
    use proptest::prelude::*;

    /// Every word of the tables, pieces of them, and near misses that hold one.
    fn words() -> Vec<&'static str> {
        let mut words: Vec<&'static str> = SINGLE.iter().map(|(word, _)| *word).collect();
        words.extend(
            PAIRS
                .iter()
                .flat_map(|(first, second, _)| [*first, *second]),
        );
        words.extend(GLUED.iter().map(|(word, _)| *word));
        words.extend([
            "pass",
            "word",
            "refresh",
            "bearer",
            "auth",
            "client",
            "spinner",
            "tokenizer",
            "pinned",
            "opinion",
            "keyboard",
            "secretary",
            "passport",
            "cvv3",
            "2fa",
            "x",
            "1",
            "name",
            "user",
            "my",
        ]);
        words
    }

    /// A word of the lexicon, or a piece of one (so pieces glue together across separators).
    fn piece() -> impl Strategy<Value = String> {
        let word = proptest::sample::select(words()).prop_map(str::to_owned);
        let piece =
            (proptest::sample::select(words()), 0..14usize, 0..14usize).prop_map(|(word, a, b)| {
                let (a, b) = (a.min(word.len()), b.min(word.len()));
                word[a.min(b)..a.max(b)].to_owned()
            });
        prop_oneof![3 => word, 1 => piece]
    }

    /// `piece` cased: as it is, upper, capitalised, or letter by letter; some letters swapped
    /// for the characters beyond ASCII whose lowercase holds ASCII (the Kelvin sign, `İ`).
    fn cased() -> impl Strategy<Value = String> {
        (piece(), 0..4u8, proptest::collection::vec(0..8u8, 16)).prop_map(
            |(piece, casing, flips)| {
                piece
                    .chars()
                    .zip(flips.iter().cycle())
                    .enumerate()
                    .map(|(i, (c, flip))| match (casing, flip, c) {
                        (_, 0, 'k') => '\u{212A}',
                        (_, 1, 'i') => '\u{130}',
                        (1, _, c) => c.to_ascii_uppercase(),
                        (2, _, c) if i == 0 => c.to_ascii_uppercase(),
                        (3, 2..=4, c) => c.to_ascii_uppercase(),
                        (_, _, c) => c,
                    })
                    .collect()
            },
        )
    }

    /// Between pieces: nothing (glued), ASCII separators, a digit, letters and marks beyond
    /// ASCII (with case and without), spaces beyond ASCII, or any character.
    fn separator() -> impl Strategy<Value = String> {
        prop_oneof![
            proptest::sample::select(vec![
                "", "", " ", "_", "-", ".", "\u{a0}", "2", "é", "É", "ß", "\u{301}", "\u{345}",
                "ǅ", "Σ", "ς", "٣", "😀", "\u{212A}", "\u{130}", "\u{2028}", "\u{200d}",
            ])
            .prop_map(str::to_owned),
            any::<char>().prop_map(String::from),
        ]
    }

    fn lexicon_text() -> impl Strategy<Value = String> {
        proptest::collection::vec((separator(), cased()), 0..6).prop_map(|parts| {
            parts
                .into_iter()
                .flat_map(|(separator, piece)| [separator, piece])
                .collect()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        #[test]
        fn one_pass_agrees_with_the_const_fn_on_texts_of_lexicon_words(text in lexicon_text()) {
            prop_assert_eq!(credential_kind_in_one_pass(&text), credential_kind(&text), "{:?}", text);
        }
    }

    proptest! {
        #[test]
        fn one_pass_agrees_with_the_const_fn_on_any_text(text in any::<String>()) {
            prop_assert_eq!(credential_kind_in_one_pass(&text), credential_kind(&text), "{:?}", text);
        }

        #[test]
        fn a_field_is_read_by_name_then_title_then_description(
            name in lexicon_text(),
            title in proptest::option::of(lexicon_text()),
            description in proptest::option::of(lexicon_text()),
        ) {
            let by_const_fn = [Some(name.as_str()), title.as_deref(), description.as_deref()]
                .into_iter()
                .flatten()
                .find_map(credential_kind);
            prop_assert_eq!(
                field_credential_kind(&name, title.as_deref(), description.as_deref()),
                by_const_fn
            );
        }
    }

    /// Every entry is found alone, with the kind the `const fn` gives, and read as the `const fn`
    /// reads it in uppercase (where `secretKEY` is one word) and between other words.
    #[test]
    fn every_entry_is_found_as_the_const_fn_finds_it() {
        let entries = SINGLE
            .iter()
            .map(|(word, _)| word.to_string())
            .chain(PAIRS.iter().flat_map(|(a, b, _)| {
                [
                    format!("{a}_{b}"),
                    format!("{a}{}", b.to_uppercase()),
                    format!("{a} {b}"),
                ]
            }))
            .chain(GLUED.iter().map(|(word, _)| format!("my{word}s")));
        for entry in entries {
            assert!(credential_kind(&entry).is_some(), "{entry:?}");
            for text in [entry.clone(), entry.to_uppercase(), format!("x {entry} y")] {
                assert_eq!(
                    credential_kind_in_one_pass(&text),
                    credential_kind(&text),
                    "{text:?}"
                );
            }
        }
    }

    /// As `tests/credential.rs` checks the `const fn` against its oracle: every character up to
    /// U+2FFF and a sample of the rest, as a separator, part of a word, a case change, and in
    /// lowercase.
    #[test]
    fn one_pass_reads_characters_beyond_ascii_as_the_const_fn_does() {
        let sample = (0..0x3000).chain((0x3000..=0x10FFFF).step_by(61));
        for c in sample.filter_map(char::from_u32) {
            for text in [
                format!("pass{c}word"),
                format!("token{c}"),
                format!("{c}Token"),
                format!("api{c}ey"),
                format!("{c}{c}pin{c}"),
                format!("credit{c}card"),
                format!("client{c}{c}secret key"),
            ] {
                assert_eq!(
                    credential_kind_in_one_pass(&text),
                    credential_kind(&text),
                    "{text:?}"
                );
            }
        }
    }

    /// Words longer than the lexicon's longest, and a long run of words, each read once.
    #[test]
    fn long_words_and_long_texts_are_read_as_the_const_fn_reads_them() {
        for text in [
            "a".repeat(4096),
            format!("{}password", "a".repeat(4096)),
            format!("{} pin", "x".repeat(100)),
            "passwords".to_owned(),
            "pinx".repeat(1000),
            "key ".repeat(1000),
            format!("{}api key", " ".repeat(4096)),
            "accesstoke".repeat(400),
        ] {
            assert_eq!(
                credential_kind_in_one_pass(&text),
                credential_kind(&text),
                "{}",
                &text[..40.min(text.len())]
            );
        }
    }
}
