//! The working memory of the cooperative planner's space-time search, kept from one unit's
//! search to the next: the open states in buckets by their estimate ([`Open`]) and where each
//! state came from ([`Came`]).
//!
//! Every move of that search takes one tick, and the estimate (tick plus the fewest steps left)
//! never falls along a way: open states can be kept in one bucket per estimate and tick, taken
//! from the lowest estimate, the latest tick among equals (deeper first: far fewer states than
//! breadth among the many ties waiting makes), the lowest cell among those (each bucket a
//! small heap: the order of one heap of them all, without its cost).
//! A state's past is the cell it was in a tick before, so a table by cell and tick holds it
//! where cells x ticks is small, and a map beyond.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::linked::MixMap;

/// Open states: (cell, tick, whether a finish) in a bucket per estimate and tick.
#[derive(Default)]
pub(super) struct Open {
    /// Bucket `(estimate - base) * ticks + (ticks - 1 - tick)` holds the states of that
    /// estimate and tick, a tick past the last in the first bucket of the estimate: (cell,
    /// whether a finish, tick), the least first.
    buckets: Vec<BinaryHeap<Reverse<(u32, bool, u32)>>>,
    base: u32,
    ticks: usize,
    /// No bucket below this one holds a state (a search's estimates do not fall, so it moves
    /// back only over the ticks of one estimate).
    lowest: usize,
    /// States in the buckets.
    len: usize,
    /// States of a bucket past [`MAX_BUCKETS`] (a long search on a big map), by bucket: after
    /// every state in the buckets.
    spill: BinaryHeap<Reverse<(usize, u32, bool, u32)>>,
}

/// The most buckets kept (32 bytes each: 2 MB).
const MAX_BUCKETS: usize = 1 << 16;

impl Open {
    /// Empties it for a search whose estimates are at least `base` and ticks at most `last`.
    pub(super) fn clear(&mut self, base: u32, last: u32) {
        let from = self.lowest.min(self.buckets.len());
        for bucket in &mut self.buckets[from..] {
            bucket.clear();
        }
        (self.base, self.lowest, self.len) = (base, 0, 0);
        self.spill.clear();
        self.ticks = (last as usize).saturating_add(2);
    }

    /// Adds a state of estimate `estimate`, in the order of tick `when` (a finish: the tick it
    /// arrives). An estimate below `base` counts as `base`.
    pub(super) fn push(
        &mut self,
        estimate: u32,
        when: u32,
        (cell, tick, finish): (u32, u32, bool),
    ) {
        let later = self.ticks - 1 - (when as usize).min(self.ticks - 1);
        let i = (estimate.saturating_sub(self.base) as usize)
            .saturating_mul(self.ticks)
            .saturating_add(later);
        if i >= MAX_BUCKETS {
            self.spill.push(Reverse((i, cell, finish, tick)));
            return;
        }
        self.lowest = self.lowest.min(i);
        if i >= self.buckets.len() {
            self.buckets.resize_with(i + 1, BinaryHeap::new);
        }
        self.buckets[i].push(Reverse((cell, finish, tick)));
        self.len += 1;
    }

    /// Takes a state of the lowest estimate, of the latest tick among those, the lowest cell
    /// among those (a finish after the other).
    pub(super) fn pop(&mut self) -> Option<(u32, u32, bool)> {
        if self.len == 0 {
            let Reverse((_, cell, finish, tick)) = self.spill.pop()?;
            return Some((cell, tick, finish));
        }
        while self.buckets[self.lowest].is_empty() {
            self.lowest += 1;
        }
        self.len -= 1;
        let Reverse((cell, finish, tick)) = self.buckets[self.lowest].pop()?;
        Some((cell, tick, finish))
    }
}

/// Where each state of a search came from: the cell it was in a tick before (`u32::MAX` for
/// the start).
pub(super) enum Came {
    /// Entry `tick * cells + cell`: the cell, and the search that wrote it.
    Table {
        from: Vec<u32>,
        search: Vec<u32>,
        this: u32,
        cells: usize,
    },
    Map(MixMap<(u32, u32), u32>),
}

impl Default for Came {
    fn default() -> Self {
        Came::Map(MixMap::default())
    }
}

/// The most entries of a table of cells x ticks (8 bytes each: 16 MB); beyond, a map.
const TABLE_ENTRIES: usize = 1 << 21;

impl Came {
    /// Empties it for a search of `cells` cells up to tick `last`.
    pub(super) fn clear(&mut self, cells: usize, last: u32) {
        let entries = cells.saturating_mul((last as usize).saturating_add(1));
        if entries > TABLE_ENTRIES {
            match self {
                Came::Map(map) => map.clear(),
                Came::Table { .. } => *self = Came::Map(MixMap::default()),
            }
            return;
        }
        if let Came::Map(_) = self {
            *self = Came::Table { from: Vec::new(), search: Vec::new(), this: 0, cells };
        }
        let Came::Table { from, search, this, cells: width } = self else { return };
        if search.len() < entries {
            from.resize(entries, 0);
            search.resize(entries, 0);
        }
        *width = cells;
        *this = this.wrapping_add(1);
        if *this == 0 {
            search.fill(0);
            *this = 1;
        }
    }

    /// Where (`cell`, `tick`) came from, once reached.
    pub(super) fn get(&self, cell: u32, tick: u32) -> Option<u32> {
        match self {
            Came::Table { from, search, this, cells } => {
                let i = tick as usize * cells + cell as usize;
                (search.get(i) == Some(this)).then(|| from[i])
            }
            Came::Map(map) => map.get(&(cell, tick)).copied(),
        }
    }

    /// (`cell`, `tick`) is reached from `before` (the cell a tick earlier).
    pub(super) fn insert(&mut self, cell: u32, tick: u32, before: u32) {
        match self {
            Came::Table { from, search, this, cells } => {
                let i = tick as usize * *cells + cell as usize;
                if i < search.len() {
                    (from[i], search[i]) = (before, *this);
                }
            }
            Came::Map(map) => {
                map.insert((cell, tick), before);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lowest_estimate_comes_first_then_the_latest_tick_then_the_lowest_cell() {
        let mut open = Open::default();
        open.clear(5, 4);
        open.push(7, 1, (1, 1, false));
        open.push(5, 2, (3, 2, false));
        open.push(5, 1, (8, 1, false));
        open.push(5, 1, (2, 1, false));
        // A finish arriving past the last tick, at the last tick.
        open.push(9, 4, (4, 4, true));
        open.push(9, 6, (6, 4, true));
        assert_eq!(open.pop(), Some((3, 2, false)));
        open.push(6, 3, (5, 3, false));
        let rest: Vec<_> = std::iter::from_fn(|| open.pop()).collect();
        let expected = [(2, 1, false), (8, 1, false), (5, 3, false), (1, 1, false)];
        assert_eq!(rest[..4], expected);
        assert_eq!(rest[4..], [(6, 4, true), (4, 4, true)]);
        // Emptied for the next search, with a lower base.
        open.push(8, 0, (6, 0, false));
        open.clear(0, 4);
        assert_eq!(open.pop(), None);
        open.push(0, 0, (7, 0, false));
        assert_eq!(open.pop(), Some((7, 0, false)));
    }

    #[test]
    fn states_past_the_buckets_come_after_those_in_them_in_the_same_order() {
        let mut open = Open::default();
        open.clear(0, 100);
        let far = (MAX_BUCKETS / 100 + 3) as u32;
        open.push(far + 1, 5, (1, 5, false));
        open.push(far, 4, (2, 4, false));
        open.push(far, 9, (3, 9, false));
        open.push(0, 0, (4, 0, false));
        let order: Vec<u32> = std::iter::from_fn(|| open.pop()).map(|s| s.0).collect();
        assert_eq!(order, [4, 3, 2, 1]);
        assert!(open.buckets.len() < MAX_BUCKETS && open.spill.is_empty());
    }

    #[test]
    fn a_table_and_a_map_remember_alike_and_forget_with_each_search() {
        let (small, big) = (Came::default(), Came::default());
        for (mut came, cells, last) in [(small, 10, 4), (big, TABLE_ENTRIES, 4)] {
            came.clear(cells, last);
            assert_eq!(matches!(came, Came::Table { .. }), cells == 10);
            came.insert(3, 4, 2);
            came.insert(9, 0, u32::MAX);
            assert_eq!(
                (came.get(3, 4), came.get(9, 0), came.get(4, 3)),
                (Some(2), Some(u32::MAX), None)
            );
            came.clear(cells, last);
            assert_eq!(came.get(3, 4), None);
        }
        // A table that grows for a longer search keeps nothing of the last.
        let mut came = Came::default();
        came.clear(10, 2);
        came.insert(1, 2, 0);
        came.clear(10, 9);
        assert_eq!((came.get(1, 2), came.get(1, 9)), (None, None));
        came.insert(1, 9, 5);
        assert_eq!(came.get(1, 9), Some(5));
    }
}
