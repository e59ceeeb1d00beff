//! Hashing for the checks. Their maps are keyed by short words (tool names, servers, words of
//! a narrative) or small integers and looked up once per call or token; a multiply-rotate hash
//! (the one rustc uses internally) is several times faster than SipHash on such keys, and has
//! no random seed. No map's iteration order reaches a report.

use std::collections::{HashMap as StdHashMap, HashSet as StdHashSet};
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// A multiply-rotate hasher over 8-byte words.
#[derive(Default, Clone, Copy)]
pub(crate) struct FastHasher(u64);

impl Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let n = bytes.len();
        if n <= 8 {
            // A short word in one step: its first and last bytes (overlapping loads), so no
            // loop runs over its length.
            self.add(short_word(bytes) ^ ((n as u64) << 56));
            return;
        }
        let mut rest = bytes;
        while let Some((word, tail)) = rest.split_first_chunk::<8>() {
            self.add(u64::from_le_bytes(*word));
            rest = tail;
        }
        if !rest.is_empty() {
            // The last eight bytes, overlapping what was read.
            self.add(u64::from_le_bytes(
                bytes[n - 8..].try_into().unwrap_or([0; 8]),
            ));
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

/// Up to eight bytes as one number, read with at most two loads (they overlap when the
/// length is not a power of two); equal for equal inputs of equal length. Every byte is in it,
/// and the rest of it is zero bytes.
#[inline]
pub(crate) fn short_word(b: &[u8]) -> u64 {
    let n = b.len();
    if n >= 4 {
        let lo = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let hi = u32::from_le_bytes([b[n - 4], b[n - 3], b[n - 2], b[n - 1]]);
        u64::from(lo) | (u64::from(hi) << 32)
    } else if n > 0 {
        u64::from(b[0]) | (u64::from(b[n / 2]) << 8) | (u64::from(b[n - 1]) << 16)
    } else {
        0
    }
}

/// A key of one to eight bytes as one number and its length: two keys are equal exactly when
/// their numbers and lengths are (every byte is read). `None` for an empty or longer key.
#[inline]
pub(crate) fn short_key(b: &[u8]) -> Option<(u64, u32)> {
    (1..=8)
        .contains(&b.len())
        .then(|| (short_word(b), b.len() as u32))
}

/// A direct-mapped table from short keys ([`short_key`]) to copies of values, ahead of a map:
/// a hit costs one multiply and one compare. It has `1 << BITS` slots, allocated at the first
/// insert; a slot holds the last key stored in it, so a key may be evicted, never misread.
pub(crate) struct ShortTable<V, const BITS: u32> {
    /// (key as a number, key length, value); length 0 marks a slot never written.
    slots: Vec<(u64, u32, V)>,
}

impl<V, const BITS: u32> Default for ShortTable<V, BITS> {
    fn default() -> Self {
        ShortTable { slots: Vec::new() }
    }
}

/// Where a short key lives in a [`ShortTable`]: the key, and its slot.
#[derive(Clone, Copy)]
pub(crate) struct ShortSlot {
    word: u64,
    len: u32,
    index: usize,
}

impl<V: Copy, const BITS: u32> ShortTable<V, BITS> {
    /// The slot of `key`, when it is short (one to eight bytes).
    #[inline]
    pub(crate) fn slot(key: &[u8]) -> Option<ShortSlot> {
        let (word, len) = short_key(key)?;
        let h = (word ^ u64::from(len)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        Some(ShortSlot {
            word,
            len,
            index: (h >> (64 - BITS)) as usize,
        })
    }

    /// The value stored for the key of `slot`, unless another key took its place.
    #[inline]
    pub(crate) fn get(&self, slot: ShortSlot) -> Option<V> {
        let &(word, len, value) = self.slots.get(slot.index)?;
        (word == slot.word && len == slot.len).then_some(value)
    }

    /// Stores `value` for the key of `slot`, in place of whatever the slot held.
    #[inline]
    pub(crate) fn set(&mut self, slot: ShortSlot, value: V) {
        if self.slots.is_empty() {
            // Every slot starts with length 0, which no key has: `value` only fills them.
            self.slots = vec![(0, 0, value); 1 << BITS];
        }
        self.slots[slot.index] = (slot.word, slot.len, value);
    }
}

impl FastHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// A hash map with [`FastHasher`].
pub(crate) type HashMap<K, V> = StdHashMap<K, V, BuildHasherDefault<FastHasher>>;
/// A hash set with [`FastHasher`].
pub(crate) type HashSet<K> = StdHashSet<K, BuildHasherDefault<FastHasher>>;

/// A borrowed string as a map key. Keys here are short words: comparing them inline costs
/// less than the call into the C library that `str` equality makes.
#[derive(Clone, Copy)]
pub(crate) struct Text<'a>(pub &'a str);

impl Hash for Text<'_> {
    /// The bytes alone: a map keyed by one `Text` needs no end marker (`str`'s `0xff`), and
    /// [`FastHasher`] folds a short key's length into its one step.
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write(self.0.as_bytes());
    }
}

impl PartialEq for Text<'_> {
    fn eq(&self, other: &Self) -> bool {
        same_bytes(self.0.as_bytes(), other.0.as_bytes())
    }
}

impl Eq for Text<'_> {}

/// Byte equality, eight bytes at a time, inline; a word of up to eight bytes in one step.
#[inline]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if a.len() <= 8 {
        // Two loads cover every byte (they overlap below eight).
        return short_word(a) == short_word(b);
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
    // The last eight bytes, overlapping what was compared.
    let n = a.len();
    let last = |s: &[u8]| u64::from_ne_bytes(s[n - 8..].try_into().unwrap_or([0; 8]));
    last(a) == last(b)
}

/// A fixed word table (the lexicon's): looked up by any borrowed word, compared inline.
pub(crate) struct Table<V>(HashMap<Text<'static>, V>);

impl<V> Table<V> {
    /// The value stored for `word`.
    pub(crate) fn get<'s>(&'s self, word: &'s str) -> Option<&'s V> {
        // The keys outlive `word`; read through a shorter-lived view of the map.
        let map: &HashMap<Text<'_>, V> = &self.0;
        map.get(&Text(word))
    }

    /// True when the table holds `word`.
    pub(crate) fn contains(&self, word: &str) -> bool {
        self.get(word).is_some()
    }

    /// Every word of the table.
    #[cfg(test)]
    pub(crate) fn keys(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.0.keys().map(|k| k.0)
    }
}

impl<V> FromIterator<(&'static str, V)> for Table<V> {
    fn from_iter<I: IntoIterator<Item = (&'static str, V)>>(iter: I) -> Self {
        Table(iter.into_iter().map(|(k, v)| (Text(k), v)).collect())
    }
}

impl FromIterator<&'static str> for Table<()> {
    fn from_iter<I: IntoIterator<Item = &'static str>>(iter: I) -> Self {
        Table(iter.into_iter().map(|k| (Text(k), ())).collect())
    }
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

    #[test]
    fn a_short_table_returns_what_was_stored_for_the_same_key_only() {
        type Table = ShortTable<u32, 2>;
        let mut t = Table::default();
        let a = Table::slot(b"alpha").unwrap();
        assert_eq!(t.get(a), None);
        t.set(a, 7);
        assert_eq!(t.get(a), Some(7));
        // With four slots, some other short key shares the slot of `alpha`: it misses, and
        // storing it evicts `alpha`.
        let other = (0u32..)
            .map(|i| format!("k{i}"))
            .find_map(|k| Table::slot(k.as_bytes()).filter(|s| s.index == a.index))
            .unwrap();
        assert_eq!(t.get(other), None);
        t.set(other, 9);
        assert_eq!((t.get(other), t.get(a)), (Some(9), None));
        assert!(Table::slot(b"").is_none());
        assert!(Table::slot(b"ninebytes").is_none());
    }

    #[test]
    fn short_keys_are_equal_exactly_when_the_bytes_are() {
        // Every word of one to eight letters over a two-letter alphabet.
        let mut words = Vec::new();
        for len in 1..=8u32 {
            for bits in 0..(1u32 << len) {
                words.push(
                    (0..len)
                        .map(|i| if bits >> i & 1 == 1 { b'b' } else { b'a' })
                        .collect::<Vec<u8>>(),
                );
            }
        }
        let keys: HashSet<(u64, u32)> = words.iter().map(|w| short_key(w).unwrap()).collect();
        assert_eq!(keys.len(), words.len());
        assert_eq!(short_key(b""), None);
        assert_eq!(short_key(b"ninebytes"), None);
    }
}
