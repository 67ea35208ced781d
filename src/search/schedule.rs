//! Searches spread over frames: the frame's [`Budget`] that every search draws from, the one
//! step that runs a search on while the budget lasts ([`advance`], on one grid or through
//! links alike), and what a search that ran on a frozen copy of a grid answers for the live one
//! ([`settle`]). Plain Rust: the plugin's request system gathers requests, steps their searches
//! with these, and applies the answers.

use super::{PathError, PathQuery, PathResult, Pathfinder, SearchSpace, SearchStep};
use crate::grid::{Cell, NavGrid};

/// With a time budget, searches run in slices of this many expansions, the clock read between:
/// a search overruns the frame's deadline by at most one slice, and a clock read (tens of
/// nanoseconds) is small beside 16 expansions.
pub const SLICE: u32 = 16;

/// How often a search spread over frames begins again when the grid keeps changing under it
/// before its caller settles for a path that is checked walkable (but, in that rare case, not
/// proven the cheapest): [`settle`] with `give_up`, or a search through links run whole.
pub const MAX_REDOS: u32 = 2;

/// What a frame may still spend on searches: cells to expand and, when the game sets a time,
/// a check of the clock (the core reads no clock: `out_of_time` is the caller's).
pub struct Budget<'c> {
    expansions: u32,
    out_of_time: Option<&'c dyn Fn() -> bool>,
    /// Cells charged so far, past the budget too (a step that ran over it).
    spent: u64,
}

impl<'c> Budget<'c> {
    /// `expansions` cells, and the time until `out_of_time` says it is up (`None`: no time
    /// limit).
    pub fn new(expansions: u32, out_of_time: Option<&'c dyn Fn() -> bool>) -> Self {
        Self { expansions, out_of_time, spent: 0 }
    }

    /// No limit: a search run whole.
    pub fn whole() -> Self {
        Self { expansions: u32::MAX, out_of_time: None, spent: 0 }
    }

    /// Cells left to expand.
    pub fn expansions(&self) -> u32 {
        self.expansions
    }

    /// Cells are left and the time is not up.
    pub fn left(&self) -> bool {
        self.expansions > 0 && !self.out_of_time.is_some_and(|up| up())
    }

    /// How many expansions the next call of a search may take: a [`SLICE`] when the clock is
    /// watched, else all that is left.
    pub fn slice(&self) -> u32 {
        if self.out_of_time.is_some() { self.expansions.min(SLICE) } else { self.expansions }
    }

    /// Takes `cells` from the budget, at least one: every call of a search costs something, so
    /// that a frame of answers that expand nothing still ends.
    pub fn charge(&mut self, cells: u32) {
        self.expansions = self.expansions.saturating_sub(cells.max(1));
        self.spent += u64::from(cells);
    }

    /// The cells charged so far, all of them: a step that runs past what was left (a search
    /// checks the budget between steps) counts whole here, where [`Budget::expansions`] stops
    /// at 0.
    pub fn spent(&self) -> u64 {
        self.spent
    }
}

/// Cells a finished search expanded in all (0 for answers given before any expansion).
pub fn done_expansions<S: SearchSpace>(result: &Result<S::Path, PathError>) -> u32 {
    match result {
        Ok(found) => S::expanded(found),
        Err(PathError::LimitExceeded { expanded }) => *expanded,
        Err(_) => 0,
    }
}

/// Runs a search on `space` while `budget` lasts: begins `query` (`begun` false) or resumes
/// the paused search, then resumes it until it ends or the budget is spent. `before`: the cells
/// it had expanded when this frame's work on it began. Charges the budget for the cells
/// expanded since (at least one a call). Returns the last step and the cells expanded so far.
pub fn advance<S: SearchSpace>(
    pathfinder: &mut Pathfinder,
    space: S,
    query: &PathQuery<S::Pos>,
    budget: &mut Budget,
    begun: bool,
    before: u32,
) -> (SearchStep<S::Path>, u32) {
    let mut last = before;
    let mut resume = begun;
    loop {
        let step = match resume {
            true => pathfinder.resume(space, query, budget.slice()),
            false => pathfinder.start(space, query, budget.slice()),
        };
        resume = true;
        let expanded = match &step {
            SearchStep::Paused { expanded } => *expanded,
            SearchStep::Done(result) => done_expansions::<S>(result).max(last),
        };
        budget.charge(expanded.saturating_sub(last));
        last = expanded;
        if matches!(step, SearchStep::Done(_)) || !budget.left() {
            return (step, last);
        }
    }
}

/// The answer, for the `live` grid, of a search that ran on `frozen` (a copy of it taken when
/// the search had to begin again), or `None` to begin it again. No copy (`None`), or the live
/// grid unchanged since: the answer as it is. If the live grid has only lost ground since
/// (cells blocked or dearer) and the path still costs what it did, it is still the cheapest,
/// since nothing got cheaper; a search that found nothing finds nothing now either. With
/// `give_up` (it began again often enough) a path is taken if it can still be walked, at what
/// it costs now.
pub fn settle(
    live: &NavGrid,
    frozen: Option<&NavGrid>,
    give_up: bool,
    result: Result<PathResult, PathError>,
) -> Option<Result<PathResult, PathError>> {
    let Some(frozen) = frozen.filter(|frozen| frozen.stamp() != live.stamp()) else {
        return Some(result);
    };
    let only_lost = live.changes_since(frozen.stamp()).is_some_and(|mut changes| {
        changes.all(|(cell, before)| match (before, live.get(cell)) {
            (_, Some(Cell::Blocked)) => true,
            (Cell::Passable { cost: was }, Some(Cell::Passable { cost: now })) => now >= was,
            _ => false,
        })
    });
    match result {
        Ok(found) => {
            let walked = walked_cost(live, &found.cells)?;
            let same = (walked - found.cost).abs() <= 1e-9 * found.cost.max(1.0);
            ((same && only_lost) || give_up).then_some(Ok(PathResult { cost: walked, ..found }))
        }
        Err(error) => (only_lost || give_up).then_some(Err(error)),
    }
}

/// What walking `cells` costs on `grid` now, or `None` if it cannot be walked.
fn walked_cost(grid: &NavGrid, cells: &[crate::grid::GridPos]) -> Option<f64> {
    let first = *cells.first()?;
    if !grid.is_passable(first) {
        return None;
    }
    cells.windows(2).map(|pair| grid.step_cost(pair[0], pair[1])).sum()
}

#[cfg(test)]
mod tests {
    use std::cell::Cell as Counter;

    use super::*;
    use crate::grid::GridPos;
    use crate::search::{Algorithm, Link, LinkedMaps, MapPos, SearchOptions};

    fn astar() -> SearchOptions {
        SearchOptions { algorithm: Algorithm::AStar, ..SearchOptions::default() }
    }

    /// A 40x40 grid with a wall down the middle, open at the top.
    fn walled() -> NavGrid {
        let mut grid = NavGrid::new(40, 40).unwrap();
        grid.fill_rect(GridPos::new(20, 0), GridPos::new(20, 37), Cell::Blocked).unwrap();
        grid
    }

    #[test]
    fn a_search_spread_over_frames_answers_as_in_one_go_and_is_charged_what_it_expanded() {
        let grid = walled();
        let query = PathQuery::new(GridPos::new(2, 2), GridPos::new(38, 2)).with_options(astar());
        let whole = Pathfinder::new().find(&grid, &query).unwrap();
        let mut pathfinder = Pathfinder::new();
        let (mut begun, mut before, mut charged, mut frames) = (false, 0, 0, 0);
        let found = loop {
            let mut budget = Budget::new(50, None);
            let (step, expanded) =
                advance(&mut pathfinder, &grid, &query, &mut budget, begun, before);
            charged += 50 - budget.expansions();
            frames += 1;
            match step {
                SearchStep::Paused { .. } => assert_eq!(budget.expansions(), 0),
                SearchStep::Done(result) => break result.unwrap(),
            }
            (begun, before) = (true, expanded);
        };
        assert!(frames > 3, "{frames}");
        assert_eq!(found.cells, whole.cells);
        assert_eq!(charged, whole.stats.expanded);
    }

    #[test]
    fn with_the_clock_watched_a_search_stops_within_a_slice_of_the_time_running_out() {
        let grid = walled();
        let query = PathQuery::new(GridPos::new(2, 2), GridPos::new(38, 2)).with_options(astar());
        let calls = Counter::new(0);
        let up = || {
            calls.set(calls.get() + 1);
            calls.get() > 3
        };
        let mut budget = Budget::new(10_000, Some(&up));
        let (step, expanded) =
            advance(&mut Pathfinder::new(), &grid, &query, &mut budget, false, 0);
        assert!(matches!(step, SearchStep::Paused { .. }));
        assert_eq!(expanded, 4 * SLICE);
        assert_eq!(budget.expansions(), 10_000 - 4 * SLICE);
    }

    #[test]
    fn an_answer_given_without_expanding_still_costs_one() {
        let grid = walled();
        let blocked = PathQuery::new(GridPos::new(2, 2), GridPos::new(20, 5));
        let mut budget = Budget::new(5, None);
        let (step, _) = advance(&mut Pathfinder::new(), &grid, &blocked, &mut budget, false, 0);
        assert!(matches!(step, SearchStep::Done(Err(PathError::GoalBlocked { .. }))));
        assert_eq!(budget.expansions(), 4);
    }

    #[test]
    fn a_search_through_links_is_charged_like_one_on_a_grid() {
        let (a, b) = (NavGrid::new(12, 12).unwrap(), NavGrid::new(12, 12).unwrap());
        let grids = [&a, &b];
        let links = [Link::two_way(
            MapPos::new(0, GridPos::new(11, 6)),
            MapPos::new(1, GridPos::new(0, 6)),
            1.0,
        )];
        let world = LinkedMaps::new(&grids, &links);
        let query = PathQuery::new(
            MapPos::new(0, GridPos::new(0, 0)),
            MapPos::new(1, GridPos::new(11, 11)),
        );
        let whole = Pathfinder::new().find(world, &query).unwrap();
        let mut pathfinder = Pathfinder::new();
        let (mut begun, mut before, mut charged) = (false, 0, 0);
        let found = loop {
            let mut budget = Budget::new(7, None);
            let (step, expanded) =
                advance(&mut pathfinder, world, &query, &mut budget, begun, before);
            charged += 7 - budget.expansions();
            match step {
                SearchStep::Paused { .. } => {}
                SearchStep::Done(result) => break result.unwrap(),
            }
            (begun, before) = (true, expanded);
        };
        assert_eq!(found.cost, whole.cost);
        assert_eq!(charged, whole.stats.expanded);
    }

    #[test]
    fn an_answer_for_a_grid_that_only_lost_ground_stands_and_one_that_gained_begins_again() {
        let mut live = walled();
        let query = PathQuery::new(GridPos::new(2, 2), GridPos::new(38, 2)).with_options(astar());
        let frozen = live.frozen_copy();
        let found = Pathfinder::new().find(&frozen, &query).unwrap();
        assert_eq!(settle(&live, Some(&frozen), false, Ok(found.clone())), Some(Ok(found.clone())));
        // A wall off the path: nothing got cheaper, the path stands.
        live.set(GridPos::new(5, 30), Cell::Blocked).unwrap();
        let kept = settle(&live, Some(&frozen), false, Ok(found.clone()));
        assert_eq!(kept.map(|r| r.map(|p| p.cells)), Some(Ok(found.cells.clone())));
        // A gap in the wall: there may be a cheaper way now.
        live.set(GridPos::new(20, 2), Cell::Passable { cost: 1 }).unwrap();
        assert_eq!(settle(&live, Some(&frozen), false, Ok(found.clone())), None);
        // After enough tries the path is taken as long as it can be walked...
        let taken = settle(&live, Some(&frozen), true, Ok(found.clone())).unwrap().unwrap();
        assert_eq!(taken.cells, found.cells);
        // ...but never one that crosses a wall.
        live.set(found.cells[found.cells.len() / 2], Cell::Blocked).unwrap();
        assert_eq!(settle(&live, Some(&frozen), true, Ok(found)), None);
    }

    #[test]
    fn no_path_on_a_grid_that_only_lost_ground_is_no_path_now() {
        let mut live = NavGrid::new(10, 10).unwrap();
        live.fill_rect(GridPos::new(5, 0), GridPos::new(5, 9), Cell::Blocked).unwrap();
        let frozen = live.frozen_copy();
        let none =
            Err(PathError::Unreachable { start: GridPos::new(0, 0), goal: GridPos::new(9, 9) });
        live.set(GridPos::new(1, 1), Cell::Blocked).unwrap();
        assert_eq!(settle(&live, Some(&frozen), false, none.clone()), Some(none.clone()));
        live.set(GridPos::new(5, 5), Cell::Passable { cost: 1 }).unwrap();
        assert_eq!(settle(&live, Some(&frozen), false, none), None);
    }
}
