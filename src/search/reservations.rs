//! The cells units planned so far hold in space and time, for the cooperative planner's
//! searches ([`Reservations`]).

use super::bit_set::BitSet;
use super::linked::MixSet;

/// Cells taken in space and time: by the units planned so far, and by the starts of those
/// not planned yet (for the first ticks: a unit planned later may wait a moment before it
/// steps off, and those planned before it do not step in at once). Looked at for every step a
/// search tries: one bit a cell and tick, until the latest arrival (on a map too big for a
/// table of cells x the horizon, a set of the cells and ticks held).
pub(super) struct Reservations {
    cells: usize,
    /// A unit planned so far is in a cell at a tick, or a tick before or after (its parked
    /// ticks from its arrival are in `parked`): what [`free`](Self::free) asks, in one look.
    held: Held,
    /// Cell -> the tick from which a unit is parked on it for good (`u32::MAX`: none).
    parked: Vec<u32>,
    /// Cell -> the last tick a unit planned so far is in it.
    last: Vec<Option<u32>>,
    /// Cell -> the unit not planned yet that starts on it (`usize::MAX`: none).
    start: Vec<usize>,
    /// The last tick anyone planned so far moves (the latest arrival).
    pub(super) latest: u32,
}

/// Cells and ticks held by units planned so far (each with the ticks either side).
enum Held {
    /// Bit `tick * cells + cell`.
    Table(BitSet),
    /// (cell, tick).
    Set(MixSet<(u32, u32)>),
}

/// The most bits of a table of the cells held at each tick (8 MB); beyond, a set.
pub(super) const TABLE_BITS: usize = 1 << 26;

/// How many ticks from the first a unit not planned yet holds its start.
pub(super) const START_HELD: u32 = 1;

impl Reservations {
    /// Nobody in any of `cells` but the `units`' starts (by cell index), for plans up to
    /// `horizon` ticks.
    pub(super) fn starts(
        cells: usize,
        horizon: u32,
        units: impl Iterator<Item = (u32, usize)>,
    ) -> Self {
        let mut start = vec![usize::MAX; cells];
        for (cell, unit) in units {
            start[cell as usize] = unit;
        }
        let table = cells.saturating_mul((horizon as usize).saturating_add(1)) <= TABLE_BITS;
        let held =
            if table { Held::Table(BitSet::default()) } else { Held::Set(MixSet::default()) };
        let (parked, last) = (vec![u32::MAX; cells], vec![None; cells]);
        Self { cells, held, parked, last, start, latest: 0 }
    }

    /// A unit planned so far is in `cell` at `tick`, or a tick before or after (not counting
    /// parked units).
    pub(super) fn near(&self, cell: u32, tick: u32) -> bool {
        match &self.held {
            Held::Table(bits) => bits.get(tick as usize * self.cells + cell as usize),
            Held::Set(set) => set.contains(&(cell, tick)),
        }
    }

    /// Whether `me` may be in `cell` at `tick`: nobody else is there then, nor a tick before
    /// or after. The tick between two units in one cell is what lets them walk the plan at any
    /// speeds ([`CellTurns`](super::CellTurns)): nobody steps into a cell as its last holder steps out.
    pub(super) fn free(&self, cell: u32, tick: u32, me: usize) -> bool {
        !self.near(cell, tick)
            && self.parked[cell as usize] > tick + 1
            && !(self.others_start(cell, me) && tick <= START_HELD + 1)
    }

    /// A unit other than `me`, not planned yet, starts on `cell`.
    pub(super) fn others_start(&self, cell: u32, me: usize) -> bool {
        let unit = self.start[cell as usize];
        unit != usize::MAX && unit != me
    }

    /// The last tick someone other than `me` is in `cell` (`None`: nobody ever).
    pub(super) fn last(&self, cell: u32, me: usize) -> Option<u32> {
        self.last[cell as usize].max(self.others_start(cell, me).then_some(START_HELD))
    }

    /// Whether a unit is parked on `cell` for good.
    pub(super) fn parked(&self, cell: u32) -> bool {
        self.parked[cell as usize] != u32::MAX
    }

    /// Holds `unit`'s planned `path` (its start is `path[0]`, no longer held as a start).
    pub(super) fn hold(&mut self, unit: usize, path: &[u32]) {
        if let Some(&start) = path.first()
            && self.start[start as usize] == unit
        {
            self.start[start as usize] = usize::MAX;
        }
        if let Held::Table(bits) = &mut self.held {
            bits.grow((path.len() + 1) * self.cells);
        }
        for (tick, &cell) in path.iter().enumerate() {
            for near in tick.saturating_sub(1)..=tick + 1 {
                match &mut self.held {
                    Held::Table(bits) => bits.insert(near * self.cells + cell as usize),
                    Held::Set(set) => {
                        set.insert((cell, near as u32));
                    }
                }
            }
            let last = &mut self.last[cell as usize];
            *last = (*last).max(Some(tick as u32));
        }
        if let Some(&end) = path.last() {
            let arrival = path.len() as u32 - 1;
            self.parked[end as usize] = arrival;
            self.latest = self.latest.max(arrival);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit not planned yet keeps its start for the first ticks; one planned before it
    /// passes there only after them.
    #[test]
    fn a_start_is_held_for_the_first_ticks() {
        let starts = Reservations::starts(4, 16, [(2, 1)].into_iter());
        for tick in 0..=START_HELD + 1 {
            assert!(!starts.free(2, tick, 0), "tick {tick}");
            assert!(starts.free(2, tick, 1), "its own start, tick {tick}");
        }
        assert!(starts.free(2, START_HELD + 2, 0));
        assert_eq!(starts.last(2, 0), Some(START_HELD));
    }
}
