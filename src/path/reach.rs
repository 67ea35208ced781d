//! Reachable areas: every cell an agent can reach within a cost budget, with its cost (what a
//! tactics game draws as a unit's movement range).

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};
use std::f64::consts::SQRT_2;

use crate::grid::{GridPos, GridStamp, NavGrid};
use crate::search::{PathError, PathResult, SearchStats};

/// A cell of a [`Reach`]: its cost from the start and the cell it is entered from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReachedCell {
    /// The cell.
    pub pos: GridPos,
    /// The cost of the cheapest path from the start (the same sum as
    /// [`Pathfinder::find`](crate::search::Pathfinder::find)'s).
    pub cost: f64,
    /// The cell before it on a cheapest path (the start's is itself).
    pub from: GridPos,
}

/// The cells reachable from a start within a budget ([`reachable`]).
#[derive(Clone, Debug, Default)]
pub struct Reach {
    start: GridPos,
    budget: f64,
    /// Cheapest first.
    cells: Vec<ReachedCell>,
    index: HashMap<GridPos, usize>,
}

impl Reach {
    /// Where the reach was measured from.
    pub fn start(&self) -> GridPos {
        self.start
    }

    /// The most a path may cost.
    pub fn budget(&self) -> f64 {
        self.budget
    }

    /// Every reachable cell, the start first, in order of cost.
    pub fn cells(&self) -> &[ReachedCell] {
        &self.cells
    }

    /// The cost of reaching `pos`, or `None` if it is not within the budget.
    pub fn cost(&self, pos: GridPos) -> Option<f64> {
        self.index.get(&pos).map(|&k| self.cells[k].cost)
    }

    /// `pos` is reachable within the budget.
    pub fn contains(&self, pos: GridPos) -> bool {
        self.index.contains_key(&pos)
    }

    /// A cheapest path from the start to `pos`, both included, or `None` if `pos` is not
    /// within the budget.
    pub fn path_to(&self, pos: GridPos) -> Option<Vec<GridPos>> {
        let mut k = *self.index.get(&pos)?;
        let mut cells = vec![pos];
        // A start is entered from itself (with several starts, each of them).
        while self.cells[k].from != self.cells[k].pos {
            let from = self.cells[k].from;
            cells.push(from);
            k = self.index[&from];
        }
        cells.reverse();
        Some(cells)
    }
}

impl Reach {
    /// The cheapest walk from the start to `end` as a search's answer, `expanded` the cells the
    /// work behind it settled (`end` not reached: the start alone).
    pub(crate) fn walk_to(&self, grid: &NavGrid, end: GridPos, expanded: usize) -> PathResult {
        let end = if self.contains(end) { end } else { self.start };
        PathResult {
            cells: self.path_to(end).unwrap_or_else(|| vec![self.start]),
            cost: self.cost(end).unwrap_or(0.0),
            stats: SearchStats { expanded: u32::try_from(expanded).unwrap_or(u32::MAX), pushed: 0 },
            complete: true,
            neighborhood: grid.neighborhood(),
        }
    }
}

/// Dijkstra's open-list entry: cheapest first (ties: the later pushed).
#[derive(Clone, Debug, PartialEq)]
struct Entry(f64, u64, u64, GridPos);

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.total_cmp(&self.0)
    }
}

/// Every cell reachable from `start` by a path costing at most `budget` (infinite: the whole
/// connected area), with its cost: a Dijkstra search under the grid's rules that stops at the
/// budget. For an agent's own profile and size, pass its
/// [`AgentGrid::grid`](crate::search::AgentGrid::grid).
///
/// Costs are summed the way [`Pathfinder`](crate::search::Pathfinder) sums them (straight and
/// diagonal steps apart, then combined), so a path of five cost-1 steps costs exactly 5.0 and
/// fits a budget of 5.
///
/// Errors: the start off the grid or blocked; a budget that is NaN or negative
/// ([`PathError::InvalidCostLimit`]).
///
/// ```
/// use bevy_tilemap_nav::grid::{GridPos, NavGrid, Neighborhood};
/// use bevy_tilemap_nav::path::reachable;
///
/// let grid = NavGrid::new(9, 9).unwrap().with_neighborhood(Neighborhood::Four);
/// let range = reachable(&grid, GridPos::new(4, 4), 2.0).unwrap();
/// assert_eq!(range.cells().len(), 13); // a diamond of radius 2
/// assert_eq!(range.cost(GridPos::new(6, 4)), Some(2.0));
/// assert!(!range.contains(GridPos::new(6, 5)));
/// ```
pub fn reachable(grid: &NavGrid, start: GridPos, budget: f64) -> Result<Reach, PathError> {
    reachable_avoiding(grid, start, budget, &[])
}

/// [`reachable`] entering none of the cells of `avoid` (characters in the way, say).
pub fn reachable_avoiding(
    grid: &NavGrid,
    start: GridPos,
    budget: f64,
    avoid: &[GridPos],
) -> Result<Reach, PathError> {
    let mut search = ReachSearch::new(grid, start, budget)?.avoiding(avoid);
    loop {
        if let Some(done) = search.step(grid, u32::MAX) {
            return done;
        }
    }
}

/// Every cell reachable within `budget` from the nearest of `starts`, with that cost: one
/// Dijkstra search from all of them at once ([`Reach::start`] is the first; [`Reach::path_to`]
/// leads from whichever start is nearest). What a flee search measures from its threats.
///
/// Errors: no starts ([`PathError::NoGoals`]), a start off the grid or blocked, a budget that
/// is NaN or negative.
///
/// ```
/// use bevy_tilemap_nav::grid::{GridPos, NavGrid, Neighborhood};
/// use bevy_tilemap_nav::path::reachable_from_any;
///
/// let grid = NavGrid::new(9, 1).unwrap().with_neighborhood(Neighborhood::Four);
/// let near = reachable_from_any(&grid, &[GridPos::new(0, 0), GridPos::new(8, 0)], 9.0).unwrap();
/// assert_eq!(near.cost(GridPos::new(4, 0)), Some(4.0));
/// assert_eq!(near.cost(GridPos::new(6, 0)), Some(2.0)); // from the start at x = 8
/// assert_eq!(near.path_to(GridPos::new(6, 0)).unwrap().first(), Some(&GridPos::new(8, 0)));
/// ```
pub fn reachable_from_any(
    grid: &NavGrid,
    starts: &[GridPos],
    budget: f64,
) -> Result<Reach, PathError> {
    let mut search = ReachSearch::from_any(grid, starts, budget)?;
    loop {
        if let Some(done) = search.step(grid, u32::MAX) {
            return done;
        }
    }
}

/// [`reachable`] in slices of work, for callers that spread a large range over frames: each
/// [`step`](Self::step) settles at most a given number of cells. The grid must be the same on
/// every step (one that changed in between ends it with [`PathError::GridChanged`]); the
/// finished [`Reach`] is the one [`reachable`] gives.
///
/// ```
/// use bevy_tilemap_nav::grid::{GridPos, NavGrid};
/// use bevy_tilemap_nav::path::{ReachSearch, reachable};
///
/// let grid = NavGrid::new(100, 100).unwrap();
/// let mut search = ReachSearch::new(&grid, GridPos::new(50, 50), f64::INFINITY).unwrap();
/// let mut slices = 1;
/// let reach = loop {
///     match search.step(&grid, 1000) {
///         Some(done) => break done.unwrap(),
///         None => slices += 1,
///     }
/// };
/// assert!(slices >= 10); // 10,000 cells, at most 1,000 a slice
/// assert_eq!(reach.cells(), reachable(&grid, GridPos::new(50, 50), f64::INFINITY).unwrap().cells());
/// ```
#[derive(Clone, Debug)]
pub struct ReachSearch {
    stamp: GridStamp,
    /// Best known (straight, diagonal) sums per cell, and the cell before it.
    best: HashMap<GridPos, (u64, u64, GridPos)>,
    reach: Reach,
    open: BinaryHeap<Entry>,
    /// Cells settled so far (the finished reach is handed over, this stays).
    settled: usize,
    /// Cells not entered (characters in the way), sorted.
    avoid: Vec<GridPos>,
}

impl ReachSearch {
    /// Begins measuring the cells reachable from `start` within `budget` on `grid` (errors as
    /// [`reachable`]'s).
    pub fn new(grid: &NavGrid, start: GridPos, budget: f64) -> Result<Self, PathError> {
        Self::from_any(grid, &[start], budget)
    }

    /// Begins measuring from the nearest of `starts` (errors as [`reachable_from_any`]'s).
    pub fn from_any(grid: &NavGrid, starts: &[GridPos], budget: f64) -> Result<Self, PathError> {
        let &first = starts.first().ok_or(PathError::NoGoals)?;
        for &start in starts {
            if !grid.in_bounds(start) {
                let (width, height) = (grid.width(), grid.height());
                return Err(PathError::StartOutOfBounds { start, width, height });
            }
            if !grid.is_passable(start) {
                return Err(PathError::StartBlocked { start });
            }
        }
        if budget.is_nan() || budget < 0.0 {
            return Err(PathError::InvalidCostLimit { max_cost: budget });
        }
        let mut search = Self {
            stamp: grid.stamp(),
            best: starts.iter().map(|&s| (s, (0, 0, s))).collect(),
            reach: Reach { start: first, budget, ..Reach::default() },
            open: BinaryHeap::new(),
            settled: 0,
            avoid: Vec::new(),
        };
        for &start in starts {
            search.open.push(Entry(0.0, 0, 0, start));
        }
        Ok(search)
    }

    /// This search, entering none of `cells` (other characters, say; a start among them is
    /// still the start).
    pub fn avoiding(mut self, cells: &[GridPos]) -> Self {
        self.avoid = cells.to_vec();
        self.avoid.sort_unstable();
        self.avoid.dedup();
        self
    }

    /// A legal step on the grid may still be barred by the avoided cells: into one, or (they
    /// count as walls for the corner rule, as in a search) diagonally past one.
    fn may_step(&self, grid: &NavGrid, from: GridPos, to: GridPos) -> bool {
        self.avoid.is_empty()
            || grid.can_step_walled(from, to, |c| self.avoid.binary_search(&c).is_ok())
    }

    /// Cells settled so far.
    pub fn settled(&self) -> usize {
        self.settled
    }

    /// The cost of `pos` if it is settled already.
    pub(crate) fn settled_cost(&self, pos: GridPos) -> Option<f64> {
        self.reach.cost(pos)
    }

    /// The least cost of a cell not settled yet (`None`: every reachable cell is).
    pub(crate) fn frontier(&self) -> Option<f64> {
        self.open.peek().map(|e| e.0)
    }

    /// The cells settled so far, as a [`Reach`] (the search stops here).
    pub(crate) fn into_settled(self) -> Reach {
        self.reach
    }

    /// Settles at most `max_cells` more cells (at least one); `None` while there are more.
    pub fn step(&mut self, grid: &NavGrid, max_cells: u32) -> Option<Result<Reach, PathError>> {
        if grid.stamp() != self.stamp {
            return Some(Err(PathError::GridChanged));
        }
        let hex = grid.neighborhood().is_hex();
        let cost_of = |straight: u64, diagonal: u64| straight as f64 + diagonal as f64 * SQRT_2;
        let budget = self.reach.budget;
        let mut left = max_cells.max(1);
        while let Some(Entry(cost, straight, diagonal, pos)) = self.open.pop() {
            if self.reach.index.contains_key(&pos) {
                continue;
            }
            let from = self.best[&pos].2;
            self.reach.index.insert(pos, self.reach.cells.len());
            self.reach.cells.push(ReachedCell { pos, cost, from });
            self.settled += 1;
            for (next, _) in grid.neighbors(pos) {
                if self.reach.index.contains_key(&next) || !self.may_step(grid, pos, next) {
                    continue;
                }
                let enter = u64::from(grid.cost(next).unwrap_or(0));
                let diagonal_step = !hex && next.x != pos.x && next.y != pos.y;
                let (s, d) = if diagonal_step {
                    (straight, diagonal + enter)
                } else {
                    (straight + enter, diagonal)
                };
                let c = cost_of(s, d);
                let known = self.best.get(&next).is_some_and(|&(bs, bd, _)| cost_of(bs, bd) <= c);
                if c > budget || known {
                    continue;
                }
                self.best.insert(next, (s, d, pos));
                self.open.push(Entry(c, s, d, next));
            }
            left -= 1;
            if left == 0 {
                break;
            }
        }
        if self.open.is_empty() {
            self.best = HashMap::new();
            return Some(Ok(std::mem::take(&mut self.reach)));
        }
        None
    }
}
