//! Whose turn it is in each cell, for units walking cooperative plans ([`CellTurns`]).

use std::collections::{HashMap, VecDeque};

use crate::grid::GridPos;

/// Whose turn it is in each cell, for units walking [`plan_together`](super::plan_together)'s plans at speeds of
/// their own (some slower, some held up, none keeping to the ticks): a unit may step into a
/// cell only once every unit planned to be there before it has left. Walked so, plans from
/// `plan_together` never bring two units into one cell and never deadlock, whatever the speeds
/// (each wait is for a move planned at an earlier tick, so the waits never form a ring, as in
/// Hönig et al.'s action dependency graphs).
///
/// ```
/// use bevy_tilemap_nav::grid::{GridPos, NavGrid};
/// use bevy_tilemap_nav::search::{CellTurns, plan_together};
///
/// let grid = NavGrid::new(3, 1).unwrap();
/// let (a, b, c) = (GridPos::new(0, 0), GridPos::new(1, 0), GridPos::new(2, 0));
/// // A corridor: unit 0 steps on from b to c, unit 1 follows from a to b.
/// let plans = plan_together(&grid, &[(b, c), (a, b)], 16).unwrap();
/// let mut turns = CellTurns::new(&plans);
/// // Unit 1 waits for unit 0 to leave b before it steps in.
/// assert!(turns.may_enter(0, c));
/// assert!(!turns.may_enter(1, b));
/// turns.left(0, b);
/// assert!(turns.may_enter(1, b));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CellTurns {
    /// Cell -> the units that are to be in it, in the order of the plans.
    queues: HashMap<GridPos, VecDeque<usize>>,
}

impl CellTurns {
    /// The turns of `plans` (each a unit's cell at each tick, as [`plan_together`](super::plan_together) gives them).
    pub fn new(plans: &[Vec<GridPos>]) -> Self {
        Self::new_for(plans, |_| true)
    }

    /// The turns of the plans of the units `keep` takes (the others have none, as if
    /// [`forget`](Self::forget) had been called on each).
    pub(crate) fn new_for(plans: &[Vec<GridPos>], keep: impl Fn(usize) -> bool) -> Self {
        let mut turns = Self::default();
        for (unit, plan) in plans.iter().enumerate().filter(|&(unit, _)| keep(unit)) {
            if let Some(&start) = plan.first() {
                turns.queues.entry(start).or_default().push_back(unit);
            }
        }
        turns.extend_for(plans, 0, keep);
        turns
    }

    /// Adds the turns of `plans` after tick `from` (each plan a unit's cell at every tick from
    /// 0; those before `from` already given, as a windowed
    /// [`PlanTogether`](super::PlanTogether) keeps them a window at a time): they come after
    /// every turn there is, in the order of their ticks. A plan that ends by `from` adds none.
    ///
    /// ```
    /// use bevy_tilemap_nav::grid::{GridPos, NavGrid};
    /// use bevy_tilemap_nav::search::{CellTurns, plan_together};
    ///
    /// let grid = NavGrid::new(5, 2).unwrap();
    /// let units = [(GridPos::new(0, 0), GridPos::new(4, 0)), (GridPos::new(4, 0), GridPos::new(0, 0))];
    /// let plans = plan_together(&grid, &units, 32).unwrap();
    /// // The first two ticks, then the rest: the turns of the whole plans.
    /// let mut turns = CellTurns::new(&plans.iter().map(|p| p[..3].to_vec()).collect::<Vec<_>>());
    /// turns.extend(&plans, 2);
    /// assert_eq!(turns, CellTurns::new(&plans));
    /// ```
    pub fn extend(&mut self, plans: &[Vec<GridPos>], from: usize) {
        self.extend_for(plans, from, |_| true);
    }

    /// [`extend`](Self::extend) with the plans of the units `keep` takes only.
    pub(crate) fn extend_for(
        &mut self,
        plans: &[Vec<GridPos>],
        from: usize,
        keep: impl Fn(usize) -> bool,
    ) {
        let mut visits: Vec<(usize, usize, GridPos)> = Vec::new();
        for (unit, plan) in plans.iter().enumerate().filter(|&(unit, _)| keep(unit)) {
            for tick in from + 1..plan.len() {
                if plan[tick - 1] != plan[tick] {
                    visits.push((tick, unit, plan[tick]));
                }
            }
        }
        visits.sort_unstable();
        for (_, unit, cell) in visits {
            self.queues.entry(cell).or_default().push_back(unit);
        }
    }

    /// Whether it is `unit`'s turn in `cell`: everyone planned there before it has left (true
    /// too for a cell no plan passes, or a unit it has no plan for).
    pub fn may_enter(&self, unit: usize, cell: GridPos) -> bool {
        self.queues
            .get(&cell)
            .is_none_or(|queue| queue.front() == Some(&unit) || !queue.contains(&unit))
    }

    /// `unit` has left `cell` (it stands wholly in the next one): the next unit's turn there.
    pub fn left(&mut self, unit: usize, cell: GridPos) {
        if let Some(queue) = self.queues.get_mut(&cell)
            && queue.front() == Some(&unit)
        {
            queue.pop_front();
        }
    }

    /// The cells some unit has still to enter or leave, each with how many turns wait there
    /// (its reservations), in no set order.
    pub fn reserved(&self) -> impl Iterator<Item = (GridPos, usize)> + '_ {
        self.queues.iter().filter(|(_, q)| !q.is_empty()).map(|(&cell, q)| (cell, q.len()))
    }

    /// `unit` walks these plans no more (gone, or sent elsewhere): its turns go, and those
    /// after it move up.
    pub fn forget(&mut self, unit: usize) {
        for queue in self.queues.values_mut() {
            queue.retain(|&u| u != unit);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_are_the_turns_still_to_come_in_each_cell() {
        let cell = |x| GridPos::new(x, 0);
        // Unit 0 walks 0 -> 1 -> 2; unit 1 waits a tick in 3, then walks 3 -> 2.
        let plans = vec![vec![cell(0), cell(1), cell(2)], vec![cell(3), cell(3), cell(3), cell(2)]];
        let mut turns = CellTurns::new(&plans);
        let sorted = |t: &CellTurns| {
            let mut r: Vec<(GridPos, usize)> = t.reserved().collect();
            r.sort_unstable_by_key(|&(c, _)| (c.x, c.y));
            r
        };
        assert_eq!(sorted(&turns), vec![(cell(0), 1), (cell(1), 1), (cell(2), 2), (cell(3), 1)]);
        turns.left(0, cell(0));
        turns.left(0, cell(1));
        turns.left(0, cell(2));
        assert_eq!(sorted(&turns), vec![(cell(2), 1), (cell(3), 1)]);
        turns.forget(1);
        assert_eq!(sorted(&turns), vec![]);
    }

    #[test]
    fn turns_for_some_units_are_the_turns_with_the_others_forgotten() {
        let cell = |x| GridPos::new(x, 0);
        // Three units through one corridor; unit 1 leaves the plan.
        let plans = vec![
            vec![cell(0), cell(1), cell(2), cell(3)],
            vec![cell(4), cell(4), cell(3), cell(2)],
            vec![cell(5), cell(4), cell(4), cell(4), cell(3)],
        ];
        let mut all = CellTurns::new(&plans);
        all.forget(1);
        assert_eq!(CellTurns::new_for(&plans, |u| u != 1), all);
        // Given a tick at a time, the later ticks added for the units still in it.
        let first: Vec<Vec<GridPos>> = plans.iter().map(|p| p[..2].to_vec()).collect();
        let mut windows = CellTurns::new_for(&first, |u| u != 1);
        windows.extend_for(&plans, 1, |u| u != 1);
        assert_eq!(windows, all);
        assert!(!all.may_enter(2, cell(3)) && all.may_enter(2, cell(4)));
    }
}
