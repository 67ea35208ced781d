//! A spatial hash of agents' positions, to find each one's neighbours without looking at every
//! other.

use bevy::prelude::*;

use super::orca::EPSILON;

/// Agents' positions bucketed in square cells of `size` world units over the box they occupy
/// (a counting sort: each bucket's agents lie together), to find the neighbours of each without
/// looking at every other.
#[derive(Default)]
pub(crate) struct SpatialHash {
    size: f32,
    origin: Vec2,
    /// Buckets across and down.
    dims: (usize, usize),
    /// Where each bucket's agents begin in `agents` (one more entry than buckets).
    starts: Vec<u32>,
    agents: Vec<u32>,
    /// Scratch: each agent's bucket.
    buckets: Vec<u32>,
}

/// At most this many buckets: a crowd spread thin over a huge area gets larger ones.
const MAX_BUCKETS: usize = 1 << 20;

impl SpatialHash {
    /// Buckets `positions` (non-finite ones left out) in cells of `size`.
    pub(crate) fn build(&mut self, size: f32, positions: impl Iterator<Item = Vec2> + Clone) {
        let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
        for p in positions.clone().filter(|p| p.is_finite()) {
            lo = lo.min(p);
            hi = hi.max(p);
        }
        self.starts.clear();
        self.agents.clear();
        self.buckets.clear();
        if lo.x > hi.x {
            self.dims = (0, 0);
            return;
        }
        // Counted in floats: positions near `f32::MAX` apart make the span infinite, and a
        // count in integers would overflow. Past every finite size, one bucket holds all.
        let span = hi - lo;
        let across = |size: f32| ((span.x / size).floor() + 1.0, (span.y / size).floor() + 1.0);
        let mut size = if size.is_finite() { size.max(EPSILON) } else { f32::MAX };
        while size < f32::MAX && across(size).0 * across(size).1 > MAX_BUCKETS as f32 {
            size = (size * 2.0).min(f32::MAX);
        }
        let (x, y) = across(size);
        self.size = size;
        self.origin = lo;
        self.dims = if x * y <= MAX_BUCKETS as f32 { (x as usize, y as usize) } else { (1, 1) };
        self.starts.resize(self.dims.0 * self.dims.1 + 1, 0);
        for p in positions {
            let b = if p.is_finite() {
                let (x, y) = self.bucket_of(p);
                (y * self.dims.0 + x) as u32
            } else {
                u32::MAX
            };
            self.buckets.push(b);
            if b != u32::MAX {
                self.starts[b as usize + 1] += 1;
            }
        }
        for k in 1..self.starts.len() {
            self.starts[k] += self.starts[k - 1];
        }
        let mut next = self.starts.clone();
        self.agents.resize(self.starts[self.starts.len() - 1] as usize, 0);
        for (i, &b) in self.buckets.iter().enumerate() {
            if b != u32::MAX {
                self.agents[next[b as usize] as usize] = i as u32;
                next[b as usize] += 1;
            }
        }
    }

    fn bucket_of(&self, p: Vec2) -> (usize, usize) {
        let q = ((p - self.origin) / self.size).max(Vec2::ZERO);
        ((q.x as usize).min(self.dims.0 - 1), (q.y as usize).min(self.dims.1 - 1))
    }

    /// Calls `found` with the index of every agent in the buckets within `reach` of `at`.
    pub(crate) fn near(&self, at: Vec2, reach: f32, mut found: impl FnMut(usize)) {
        if !at.is_finite() || self.dims.0 == 0 {
            return;
        }
        let (x0, y0) = self.bucket_of(at - Vec2::splat(reach));
        let (x1, y1) = self.bucket_of(at + Vec2::splat(reach));
        for y in y0..=y1 {
            let row = y * self.dims.0;
            let (from, to) = (self.starts[row + x0] as usize, self.starts[row + x1 + 1] as usize);
            for &i in &self.agents[from..to] {
                found(i as usize);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spatial_hash_finds_every_agent_within_reach() {
        let points: Vec<Vec2> =
            (0..200).map(|i| Vec2::new((i * 37 % 101) as f32, (i * 53 % 89) as f32)).collect();
        let mut hash = SpatialHash::default();
        hash.build(4.0, points.iter().copied());
        for (i, &at) in points.iter().enumerate() {
            let mut found = Vec::new();
            hash.near(at, 6.0, |j| found.push(j));
            for (j, &other) in points.iter().enumerate() {
                if other.distance(at) <= 6.0 {
                    assert!(found.contains(&j), "{i}: missed {j}");
                }
            }
        }
    }
}
