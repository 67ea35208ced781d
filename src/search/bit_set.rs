//! A row of bits packed 64 to a word: the one place the search's flat bitmaps set and read
//! their bits (a query's avoided cells, the cooperative planner's held cells and ticks, a path
//! table's open cells and the runs its build found open).

/// Bits numbered from 0, all clear at first. Reading past the end gives `false`; setting a
/// bit past the end grows the set to hold it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    /// `len` bits, all clear.
    pub(crate) fn new(len: usize) -> Self {
        Self { words: vec![0; len.div_ceil(64)] }
    }

    /// One bit per item of `bits`, in order: bit `i` set when the `i`th is `true`.
    pub(crate) fn from_bools(bits: impl IntoIterator<Item = bool>) -> Self {
        let mut words = Vec::new();
        for (i, on) in bits.into_iter().enumerate() {
            if i % 64 == 0 {
                words.push(0);
            }
            words[i / 64] |= u64::from(on) << (i % 64);
        }
        Self { words }
    }

    /// Bit `i` is set (`false` past the end).
    #[inline]
    pub(crate) fn get(&self, i: usize) -> bool {
        self.words.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
    }

    /// Sets bit `i`, growing the set when it is past the end.
    #[inline]
    pub(crate) fn insert(&mut self, i: usize) {
        let word = i / 64;
        if word >= self.words.len() {
            self.words.resize(word + 1, 0);
        }
        self.words[word] |= 1 << (i % 64);
    }

    /// Clears bit `i` (nothing to do past the end).
    #[inline]
    pub(crate) fn remove(&mut self, i: usize) {
        if let Some(w) = self.words.get_mut(i / 64) {
            *w &= !(1 << (i % 64));
        }
    }

    /// Sets bit `i` when `on`, else clears it.
    #[inline]
    pub(crate) fn set(&mut self, i: usize, on: bool) {
        if on { self.insert(i) } else { self.remove(i) }
    }

    /// Room for `len` bits at least (the new ones clear).
    pub(crate) fn grow(&mut self, len: usize) {
        let words = len.div_ceil(64);
        if self.words.len() < words {
            self.words.resize(words, 0);
        }
    }

    /// The words, bit `i` at bit `i % 64` of word `i / 64`: for scans 64 bits a step.
    #[inline]
    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.words.capacity() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::BitSet;

    #[test]
    fn bits_set_and_cleared_read_back_and_nothing_else_changes() {
        let mut bits = BitSet::new(130);
        let picked = [0, 1, 63, 64, 65, 127, 128, 129];
        for &i in &picked {
            bits.insert(i);
        }
        for i in 0..200 {
            assert_eq!(bits.get(i), picked.contains(&i), "bit {i}");
        }
        bits.set(64, false);
        bits.remove(500); // past the end: nothing
        assert!(!bits.get(64) && bits.get(63) && bits.get(65));
        assert_eq!(bits.words().len(), 3);
        // Past the end it grows to hold the bit, the others kept.
        bits.insert(300);
        assert!(bits.get(300) && bits.get(129) && !bits.get(299));
        bits.grow(1000);
        assert_eq!(bits.words().len(), 16);
        assert!(bits.get(300));
    }

    #[test]
    fn from_bools_sets_exactly_the_bits_asked_for() {
        for len in [0usize, 1, 63, 64, 65, 200] {
            let bits = BitSet::from_bools((0..len).map(|i| i % 3 == 0 || i == 64));
            assert_eq!(bits.words().len(), len.div_ceil(64));
            for i in 0..len + 70 {
                assert_eq!(bits.get(i), i < len && (i % 3 == 0 || i == 64), "len {len}, bit {i}");
            }
        }
    }
}
