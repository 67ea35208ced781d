//! What the benchmarks share.

use std::time::{Duration, Instant};

/// How many times [`best`] runs a build.
pub const PASSES: usize = 3;

/// Best time of [`PASSES`] runs of `build`, and its last result.
pub fn best<T>(mut build: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..PASSES {
        let started = Instant::now();
        let done = build();
        best = best.min(started.elapsed());
        last = Some(done);
    }
    (best, last.expect("at least one pass"))
}
