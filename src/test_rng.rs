//! A small seeded generator for the crate's unit tests (xorshift64): the same numbers on every
//! machine, no dependency.

/// Seeded xorshift64. A seed of 0 is read as 1 (xorshift stays at 0).
pub(crate) struct TestRng(pub(crate) u64);

impl TestRng {
    /// The next number in `0..n` (`n` > 0).
    pub(crate) fn below(&mut self, n: u32) -> u32 {
        if self.0 == 0 {
            self.0 = 1;
        }
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % u64::from(n.max(1))) as u32
    }
}
