//! Small text helpers for the reply's hot path.

/// `a == b`, without a call to `memcmp` for the short texts a reply is made of (member names,
/// option values): their length is compared first, then up to sixteen bytes as at most two
/// overlapping words. `==` on `str` calls `memcmp` for any length, and on names of a few bytes
/// the call costs more than the comparison (a quarter of the reply's comparisons' time went to
/// its entry and dispatch).
#[inline(always)]
pub(crate) fn same(a: &str, b: &str) -> bool {
    same_bytes(a.as_bytes(), b.as_bytes())
}

/// [`same`] on bytes.
#[inline(always)]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    // Two words that together cover the whole text, overlapping when it is shorter than both.
    macro_rules! words {
        ($n:literal, $int:ty) => {
            if let (Some(a0), Some(a1), Some(b0), Some(b1)) = (
                a.first_chunk::<$n>(),
                a.last_chunk::<$n>(),
                b.first_chunk::<$n>(),
                b.last_chunk::<$n>(),
            ) {
                return <$int>::from_ne_bytes(*a0) == <$int>::from_ne_bytes(*b0)
                    && <$int>::from_ne_bytes(*a1) == <$int>::from_ne_bytes(*b1);
            }
        };
    }
    match a.len() {
        0 => true,
        // The first, middle and last bytes: every byte of a text of one to three.
        1..=3 => {
            let n = a.len();
            a.first() == b.first() && a.get(n / 2) == b.get(n / 2) && a.last() == b.last()
        }
        4..=7 => {
            words!(4, u32);
            false
        }
        8..=16 => {
            words!(8, u64);
            false
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::same;

    #[test]
    fn same_is_equality_for_every_length_and_every_differing_byte() {
        let base: String = (0..40u8).map(|i| char::from(b'a' + i % 26)).collect();
        for n in 0..=base.len() {
            let a = &base[..n];
            assert!(same(a, a), "{n}");
            // The same bytes elsewhere in memory.
            let copy = String::from(a);
            assert!(same(a, &copy), "{n}");
            // One byte changed, at each position: never the same.
            for i in 0..n {
                let mut b = a.as_bytes().to_vec();
                b[i] = b'Z';
                let b = String::from_utf8(b).unwrap();
                assert!(!same(a, &b), "{n} {i}");
                assert!(!same(&b, a), "{n} {i}");
            }
            // A different length: never the same, even as a prefix.
            if n > 0 {
                assert!(!same(a, &a[..n - 1]), "{n}");
            }
        }
        assert!(same("é", "é") && !same("é", "è"));
    }
}
