//! Hashing for the narrative check. Every map here is keyed by short words or small integers
//! and looked up once per token; a multiply-rotate hash (the one rustc uses internally) is
//! several times faster than SipHash on such keys, and has no random seed. No map's iteration
//! order reaches a report.

use std::collections::{HashMap as StdHashMap, HashSet as StdHashSet};
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// A multiply-rotate hasher over 8-byte words.
#[derive(Default, Clone, Copy)]
pub(super) struct FastHasher(u64);

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut rest = bytes;
        while let Some((word, tail)) = rest.split_first_chunk::<8>() {
            self.add(u64::from_le_bytes(*word));
            rest = tail;
        }
        if let Some((word, tail)) = rest.split_first_chunk::<4>() {
            self.add(u64::from(u32::from_le_bytes(*word)));
            rest = tail;
        }
        for &b in rest {
            self.add(u64::from(b));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

impl FastHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// A hash map with [`FastHasher`].
pub(super) type HashMap<K, V> = StdHashMap<K, V, BuildHasherDefault<FastHasher>>;
/// A hash set with [`FastHasher`].
pub(super) type HashSet<K> = StdHashSet<K, BuildHasherDefault<FastHasher>>;

/// A borrowed string as a map key. Keys here are short words: comparing them inline costs
/// less than the call into the C library that `str` equality makes.
#[derive(Clone, Copy)]
pub(super) struct Text<'a>(pub &'a str);

impl Hash for Text<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl PartialEq for Text<'_> {
    fn eq(&self, other: &Self) -> bool {
        same_bytes(self.0.as_bytes(), other.0.as_bytes())
    }
}

impl Eq for Text<'_> {}

/// Byte equality, eight bytes at a time, inline.
pub(super) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (mut x, mut y) = (a, b);
    while let (Some((p, xs)), Some((q, ys))) =
        (x.split_first_chunk::<8>(), y.split_first_chunk::<8>())
    {
        if u64::from_ne_bytes(*p) != u64::from_ne_bytes(*q) {
            return false;
        }
        (x, y) = (xs, ys);
    }
    x.iter().zip(y).all(|(p, q)| p == q)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_bytes_is_equality() {
        let words = [
            "",
            "a",
            "ab",
            "abcdefgh",
            "abcdefgi",
            "abcdefghij",
            "abcdefghik",
            "é",
        ];
        for a in words {
            for b in words {
                assert_eq!(
                    same_bytes(a.as_bytes(), b.as_bytes()),
                    a == b,
                    "{a:?} {b:?}"
                );
            }
        }
    }
}
