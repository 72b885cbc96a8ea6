//! The email check as it was first written: the specification the table-driven scanner of
//! `format.rs` is tested against (`tests` there compare both on many inputs). The URI mirror of
//! `format.rs` has its own reference: the `fluent-uri` parser that the run-time check uses.
#![allow(clippy::indexing_slicing)]

// The address literal check and the atext symbols were not rewritten: both use the ones in
// `format.rs` (the table of `format.rs` is built from the same symbols).
use super::{at, is_address_literal, is_atext_symbol};

/// `local@domain`: a dot-string local part (ASCII atext) or a quoted string of printable ASCII,
/// then a domain of dot-separated labels (ASCII letters, digits, inner hyphens) or a bracketed
/// address literal. No byte outside ASCII anywhere.
pub(super) const fn is_email(b: &[u8]) -> bool {
    // The last `@` splits local part and domain.
    let mut at_pos = b.len();
    let mut i = b.len();
    while i > 0 {
        i -= 1;
        if at(b, i) == b'@' {
            at_pos = i;
            break;
        }
    }
    if at_pos == b.len()
        || at_pos == 0
        || at_pos > 64
        || b.len() - at_pos - 1 == 0
        || b.len() - at_pos - 1 > 255
    {
        return false;
    }
    let local_ok = if at_pos >= 2 && at(b, 0) == b'"' && at(b, at_pos - 1) == b'"' {
        let mut j = 1;
        let mut ok = true;
        while j < at_pos - 1 {
            let c = at(b, j);
            if c == b'"' || c == b'\\' || c < 0x20 || c >= 0x7f {
                ok = false;
            }
            j += 1;
        }
        ok
    } else {
        let mut j = 0;
        let mut ok = true;
        let mut atom_len = 0;
        while j < at_pos {
            let c = at(b, j);
            if c == b'.' {
                if atom_len == 0 {
                    ok = false;
                }
                atom_len = 0;
            } else if c.is_ascii_alphanumeric() || is_atext_symbol(c) {
                atom_len += 1;
            } else {
                ok = false;
            }
            j += 1;
        }
        ok && atom_len > 0
    };
    if !local_ok {
        return false;
    }
    let start = at_pos + 1;
    if at(b, start) == b'[' {
        return at(b, b.len() - 1) == b']' && is_address_literal(b, start + 1, b.len() - 1);
    }
    is_domain(b, start, b.len())
}

/// Dot-separated labels of 1..=63 bytes, ASCII letters/digits and inner hyphens.
const fn is_domain(b: &[u8], start: usize, end: usize) -> bool {
    let mut i = start;
    let mut label_len = 0;
    let mut prev = 0u8;
    while i < end {
        let c = at(b, i);
        if c == b'.' {
            if label_len == 0 || prev == b'-' {
                return false;
            }
            label_len = 0;
        } else if c.is_ascii_alphanumeric() || (c == b'-' && label_len > 0) {
            label_len += 1;
            if label_len > 63 {
                return false;
            }
        } else {
            return false;
        }
        prev = c;
        i += 1;
    }
    label_len > 0 && prev != b'-'
}
