//! A quick hasher for the search's own keys, and the maps and sets that use it.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A quick hasher for the search's own keys (cells and components, a few integers each): a
/// multiply-rotate mix per word. Not for keys an adversary picks (std's SipHash is, and costs
/// several times more per lookup, which the search makes once per cell it expands).
#[derive(Default, Clone, Copy)]
pub(crate) struct Mix(u64);

impl Hasher for Mix {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

pub(crate) type MixMap<K, V> = HashMap<K, V, BuildHasherDefault<Mix>>;
pub(crate) type MixSet<K> = HashSet<K, BuildHasherDefault<Mix>>;
