//! Distance fields: the cost from every cell to the nearest of some goal cells, which any
//! number of agents read to walk downhill to the goals (a horde, a tower defence's creeps, a
//! roguelike's "Dijkstra map"). One search for all of them instead of one per agent.
//!
//! Built by a Dijkstra search run backwards from the goals (a step's cost is that of the cell
//! it enters, so the cost *to* the goal is summed along the way there). Kept in step with the
//! grid by repair, not rebuild: the cells whose way to a goal went through a changed cell lose
//! their value, and one search from their rim (and from every changed cell, which may have
//! become cheaper) settles them and whatever got cheaper around them.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::slices::{CELL_WORK, SlicedBuild, Work, run_to_end, spend};
use crate::grid::{GridPos, GridStamp, NavGrid};
use crate::search::{PathError, check_number};

/// No cell: the goals' own "next cell" and the cells not reached.
const NONE: u32 = u32::MAX;

/// Cells a build takes from its heap between two checks of the work left.
const BATCH: usize = 64;

/// The cost from every cell of a grid to the nearest of its goals, and which way to step.
///
/// ```
/// use bevy_tilemap_nav::grid::{Cell, GridPos, NavGrid, Neighborhood};
/// use bevy_tilemap_nav::search::DistanceField;
///
/// let mut grid = NavGrid::new(10, 3).unwrap().with_neighborhood(Neighborhood::Four);
/// let field = DistanceField::new(&grid, &[GridPos::new(9, 1)]).unwrap();
/// assert_eq!(field.cost(GridPos::new(0, 1)), Some(9.0));
/// assert_eq!(field.next_step(GridPos::new(0, 1)), Some(GridPos::new(1, 1)));
///
/// // A wall with a gap: repaired, not rebuilt.
/// let mut field = field;
/// let wall = [GridPos::new(5, 0), GridPos::new(5, 1)];
/// for cell in wall {
///     grid.set(cell, Cell::Blocked).unwrap();
/// }
/// field.update(&grid, wall);
/// assert_eq!(field.cost(GridPos::new(0, 1)), Some(11.0)); // round by (5, 2)
/// assert_eq!(field, DistanceField::new(&grid, &[GridPos::new(9, 1)]).unwrap());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct DistanceField {
    width: u32,
    height: u32,
    goals: Vec<GridPos>,
    /// Cost to the nearest goal, row by row (infinite: not reached).
    cost: Vec<f64>,
    /// The next cell on a cheapest way to a goal (`NONE` for goals and cells not reached).
    next: Vec<u32>,
    /// Reached only this far: cells dearer than this are not known (infinite: all).
    limit: f64,
    stamp: GridStamp,
    /// A flee field's weight ([`DistanceField::fleeing`]); `None` for a field of goals.
    flee: Option<f64>,
}

/// The weight [`DistanceField::fleeing`] is usually given: a safe spot one step farther from the
/// threats is worth a detour of 1.2 steps, enough to run past a threat out of a dead end rather
/// than be cornered in it.
pub const FLEE_WEIGHT: f64 = 1.2;

/// The most [`DistanceField::fleeing`] takes: a safe spot one step farther from the threats
/// worth a million steps of detour. Above it the field's values lose the single steps of
/// detour they must weigh against (an `f64` keeps about 16 digits), and at `f64::MAX` they
/// overflow.
pub const MAX_FLEE_WEIGHT: f64 = 1e6;

/// A flee weight is a number above 0 and at most [`MAX_FLEE_WEIGHT`]; any other is
/// [`PathError::InvalidNumber`].
pub(crate) fn check_flee_weight(weight: f64) -> Result<(), PathError> {
    let fits = weight > 0.0 && weight <= MAX_FLEE_WEIGHT;
    check_number("flee weight", weight, fits, "above 0 and at most 1e6")
}

/// An open-list entry: the cheapest first.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Entry(f64, u32);

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.total_cmp(&self.0).then(other.1.cmp(&self.1))
    }
}

impl DistanceField {
    /// The field of `goals` over the whole of `grid`. Goals off the grid or blocked are
    /// errors; none at all is [`PathError::NoGoals`].
    pub fn new(grid: &NavGrid, goals: &[GridPos]) -> Result<Self, PathError> {
        Self::build(grid, goals, f64::INFINITY, &[])
    }

    /// The field of `goals` reached only as far as needed to cover `cells` (the agents'
    /// cells, say): the search stops once each of them that can reach a goal is settled, so a
    /// field on a large map for agents near the goal costs little. Cells not reached read as
    /// unknown ([`cost`](Self::cost) `None`); [`limit`](Self::limit) says how far it went.
    pub fn covering(
        grid: &NavGrid,
        goals: &[GridPos],
        cells: &[GridPos],
    ) -> Result<Self, PathError> {
        Self::build(grid, goals, f64::INFINITY, cells)
    }

    /// The field of `goals` reached only up to a cost of `limit`.
    pub fn within(grid: &NavGrid, goals: &[GridPos], limit: f64) -> Result<Self, PathError> {
        if limit.is_nan() || limit < 0.0 {
            return Err(PathError::InvalidCostLimit { max_cost: limit });
        }
        Self::build(grid, goals, limit, &[])
    }

    /// A flee field: the way away from `threats` (cells), to the safest place within reach.
    /// Every cell is worth `-weight` times its cost from the nearest threat; a cell's value is
    /// the least, over the cells it can walk to, of that worth plus the walk there, and
    /// [`next_step`](Self::next_step) leads down it to a safe spot, a cell no walk improves on
    /// ([`is_end`](Self::is_end)). With a weight above 1 a character runs past a threat out of
    /// a dead end rather than cower at its back ("Dijkstra maps" of roguelikes; see
    /// [`FLEE_WEIGHT`]). Cells no threat can reach are safe spots already. [`cost`](Self::cost)
    /// is that value (negative where fleeing pays). [`update`](Self::update) rebuilds it whole;
    /// with every threat walled there, every open cell is a safe spot.
    /// Threats off the grid or walled are errors, none at all [`PathError::NoGoals`]; a weight
    /// that is not a number above 0 and at most [`MAX_FLEE_WEIGHT`] is
    /// [`PathError::InvalidNumber`].
    pub fn fleeing(grid: &NavGrid, threats: &[GridPos], weight: f64) -> Result<Self, PathError> {
        check_flee_weight(weight)?;
        let danger = Self::build(grid, threats, f64::INFINITY, &[])?;
        let mut field = Self {
            cost: vec![f64::INFINITY; danger.cost.len()],
            next: vec![NONE; danger.cost.len()],
            flee: Some(weight),
            ..danger
        };
        let mut open = BinaryHeap::new();
        for (k, &away) in danger.cost.iter().enumerate() {
            if !grid.is_passable(field.pos(k)) {
                continue;
            }
            // Out of every threat's reach: safe as it is (and no walk from a cell within reach
            // comes here).
            field.cost[k] = if away.is_finite() { -weight * away } else { 0.0 };
            open.push(Entry(field.cost[k], k as u32));
        }
        while let Some(Entry(cost, k)) = open.pop() {
            if cost > field.cost[k as usize] {
                continue;
            }
            field.relax_into(grid, k as usize, &mut open);
        }
        Ok(field)
    }

    /// The flee field with no threat in reach (`threats` all walled or off the grid): every open
    /// cell is a safe spot.
    pub(crate) fn nothing_to_flee(grid: &NavGrid, threats: Vec<GridPos>, weight: f64) -> Self {
        Self {
            width: grid.width(),
            height: grid.height(),
            goals: threats,
            cost: grid
                .positions()
                .map(|p| if grid.is_passable(p) { 0.0 } else { f64::INFINITY })
                .collect(),
            next: vec![NONE; grid.width() as usize * grid.height() as usize],
            limit: f64::INFINITY,
            stamp: grid.stamp(),
            flee: Some(weight),
        }
    }

    /// Where a walk down the field ends: a goal, or, on a flee field, a safe spot (a cell the
    /// field reaches with no step down from it).
    pub fn is_end(&self, pos: GridPos) -> bool {
        self.cost(pos).is_some() && self.next_step(pos).is_none()
    }

    /// The weight of a flee field ([`fleeing`](Self::fleeing)); `None` for a field of goals.
    pub fn flee_weight(&self) -> Option<f64> {
        self.flee
    }

    /// The same build as [`new`](Self::new) (or, with `cover` not empty, as
    /// [`covering`](Self::covering)), a slice at a time on the thread that steps it: see
    /// [`SlicedBuild`]. It builds on a copy of `grid` as it is now; if the grid changed by the
    /// time it ends, [`update`](Self::update) it with the changes since its
    /// [`stamp`](Self::stamp) (the plugin does).
    pub fn build_in_slices(
        grid: &NavGrid,
        goals: &[GridPos],
        cover: &[GridPos],
    ) -> SlicedBuild<Result<Self, PathError>> {
        let grid = grid.frozen_copy();
        let (goals, cover) = (goals.to_vec(), cover.to_vec());
        SlicedBuild::new(|mut work| async move {
            Self::build_counted(&grid, &goals, f64::INFINITY, &cover, &mut work).await
        })
    }

    fn build(
        grid: &NavGrid,
        goals: &[GridPos],
        limit: f64,
        cover: &[GridPos],
    ) -> Result<Self, PathError> {
        run_to_end(Self::build_counted(grid, goals, limit, cover, &mut Work::unlimited()))
    }

    /// The build, counting its work in `work`: [`CELL_WORK`] units a cell taken from the heap,
    /// counted [`BATCH`] cells at a time, and a unit per 8 cells for the arrays.
    async fn build_counted(
        grid: &NavGrid,
        goals: &[GridPos],
        limit: f64,
        cover: &[GridPos],
        work: &mut Work,
    ) -> Result<Self, PathError> {
        if goals.is_empty() {
            return Err(PathError::NoGoals);
        }
        for &goal in goals {
            if !grid.in_bounds(goal) {
                let (width, height) = (grid.width(), grid.height());
                return Err(PathError::GoalOutOfBounds { goal, width, height });
            }
            if !grid.is_passable(goal) {
                return Err(PathError::GoalBlocked { goal });
            }
        }
        let cells = grid.width() as usize * grid.height() as usize;
        spend!(work, cells as u64 / 8);
        let mut field = Self {
            width: grid.width(),
            height: grid.height(),
            goals: goals.to_vec(),
            cost: vec![f64::INFINITY; cells],
            next: vec![NONE; cells],
            limit,
            stamp: grid.stamp(),
            flee: None,
        };
        let mut open = BinaryHeap::new();
        for &goal in goals {
            let k = field.index(goal);
            field.cost[k] = 0.0;
            open.push(Entry(0.0, k as u32));
        }
        // Cells still to settle before the search may stop.
        let mut uncovered: Vec<usize> =
            cover.iter().filter(|&&c| grid.is_passable(c)).map(|&c| field.index(c)).collect();
        uncovered.sort_unstable();
        uncovered.dedup();
        let covering = !uncovered.is_empty();
        let mut left = uncovered.len();
        let mut popped = 0;
        while let Some(Entry(cost, k)) = open.pop() {
            if popped % BATCH == 0 {
                spend!(work, CELL_WORK * BATCH as u64);
            }
            popped += 1;
            if cost > field.cost[k as usize] {
                continue;
            }
            if covering && uncovered.binary_search(&(k as usize)).is_ok() {
                left -= 1;
                if left == 0 {
                    field.limit = cost;
                    // Everything up to this cost is settled: leave the rest unknown.
                    field.forget_beyond(cost);
                    return Ok(field);
                }
            }
            field.relax_into(grid, k as usize, &mut open);
        }
        Ok(field)
    }

    /// Cells a step from cell `k` that can step into it get their cost through it, if cheaper
    /// (and within the limit).
    fn relax_into(&mut self, grid: &NavGrid, k: usize, open: &mut BinaryHeap<Entry>) {
        let here = self.pos(k);
        let cost = self.cost[k];
        for (before, step) in grid.predecessors(here) {
            let j = self.index(before);
            let through = cost + step;
            if through < self.cost[j] && through <= self.limit {
                self.cost[j] = through;
                self.next[j] = k as u32;
                open.push(Entry(through, j as u32));
            }
        }
    }

    /// Cells dearer than `cost` become unknown (a covering build stopped there).
    fn forget_beyond(&mut self, cost: f64) {
        for (c, n) in self.cost.iter_mut().zip(&mut self.next) {
            if *c > cost {
                *c = f64::INFINITY;
                *n = NONE;
            }
        }
    }

    fn index(&self, pos: GridPos) -> usize {
        pos.y as usize * self.width as usize + pos.x as usize
    }

    fn pos(&self, k: usize) -> GridPos {
        let w = self.width as usize;
        GridPos::new((k % w) as u32, (k / w) as u32)
    }

    fn in_bounds(&self, pos: GridPos) -> bool {
        pos.x < self.width && pos.y < self.height
    }

    /// The cells of the 3 x 3 block round `pos` on the grid, but `pos` itself.
    fn block(&self, pos: GridPos) -> impl Iterator<Item = usize> + '_ {
        (-1i64..=1).flat_map(move |dy| {
            (-1i64..=1).filter_map(move |dx| {
                let (x, y) = (i64::from(pos.x) + dx, i64::from(pos.y) + dy);
                let inside =
                    x >= 0 && y >= 0 && x < i64::from(self.width) && y < i64::from(self.height);
                (inside && (dx, dy) != (0, 0)).then(|| self.index(GridPos::new(x as u32, y as u32)))
            })
        })
    }

    /// The goals.
    pub fn goals(&self) -> &[GridPos] {
        &self.goals
    }

    /// How far it reaches: cells whose cost is above this are not known (infinite for a whole
    /// field).
    pub fn limit(&self) -> f64 {
        self.limit
    }

    /// The cost from `pos` to the nearest goal, `None` when no goal can be reached from it (or
    /// it lies beyond the field's reach, or off the grid).
    pub fn cost(&self, pos: GridPos) -> Option<f64> {
        let c = *self.cost.get(self.in_bounds(pos).then(|| self.index(pos))?)?;
        c.is_finite().then_some(c)
    }

    /// The cell to step to from `pos` on a cheapest way to a goal (`None` at a goal, or where
    /// no goal is reached).
    pub fn next_step(&self, pos: GridPos) -> Option<GridPos> {
        let k = self.in_bounds(pos).then(|| self.index(pos))?;
        let next = self.next[k];
        (next != NONE).then(|| self.pos(next as usize))
    }

    /// The cells from `pos` down to a goal, both included (`None` where no goal is reached).
    pub fn path_from(&self, pos: GridPos) -> Option<Vec<GridPos>> {
        self.cost(pos)?;
        let mut cells = vec![pos];
        let mut at = pos;
        while let Some(next) = self.next_step(at) {
            cells.push(next);
            at = next;
            if cells.len() > self.cost.len() {
                return None; // never for a field kept in step: a guard against a loop
            }
        }
        Some(cells)
    }

    /// The grid state it is in step with (see [`NavGrid::changes_since`] for what changed
    /// after).
    pub fn stamp(&self) -> GridStamp {
        self.stamp
    }

    /// True while the grid is as it was when the field was built or last updated.
    pub fn is_current(&self, grid: &NavGrid) -> bool {
        grid.stamp() == self.stamp && (grid.width(), grid.height()) == (self.width, self.height)
    }

    /// Brings the field in step with `grid` after the cells of `changed` changed (walled,
    /// opened, dearer or cheaper; the goals' cells must stay open). Returns how many cells it
    /// settled again. A grid of another size, or a goal walled, rebuilds the field whole
    /// (a walled goal is left out of the goals; with none left the field reaches nothing).
    pub fn update(&mut self, grid: &NavGrid, changed: impl IntoIterator<Item = GridPos>) -> usize {
        if let Some(weight) = self.flee {
            // Every value hangs on the distance to the threats: built again whole. With every
            // threat walled in, no cell is in danger: every open cell is a safe spot.
            self.goals.retain(|&g| grid.in_bounds(g) && grid.is_passable(g));
            let goals = std::mem::take(&mut self.goals);
            *self = Self::fleeing(grid, &goals, weight)
                .unwrap_or_else(|_| Self::nothing_to_flee(grid, goals, weight));
            return self.cost.len();
        }
        let changed: Vec<GridPos> = changed.into_iter().filter(|&c| self.in_bounds(c)).collect();
        if (grid.width(), grid.height()) != (self.width, self.height)
            || self.goals.iter().any(|&g| !grid.is_passable(g))
        {
            self.goals.retain(|&g| grid.in_bounds(g) && grid.is_passable(g));
            let goals = std::mem::take(&mut self.goals);
            *self = match Self::build(grid, &goals, self.limit, &[]) {
                Ok(field) => field,
                Err(_) => Self {
                    width: grid.width(),
                    height: grid.height(),
                    goals,
                    cost: vec![f64::INFINITY; grid.width() as usize * grid.height() as usize],
                    next: vec![NONE; grid.width() as usize * grid.height() as usize],
                    limit: self.limit,
                    stamp: grid.stamp(),
                    flee: None,
                },
            };
            return self.cost.len();
        }
        self.stamp = grid.stamp();
        // The cells whose way went through a changed cell, or diagonally past one (the corner
        // rule may now forbid the step), and those cells: their costs go.
        let mut lost = vec![false; self.cost.len()];
        let mut queue: Vec<usize> = Vec::new();
        let beside = |a: GridPos, b: GridPos, cell: GridPos| {
            grid.diagonal_sides(a, b).is_some_and(|sides| sides.contains(&cell))
        };
        for &cell in &changed {
            for k in std::iter::once(self.index(cell)).chain(self.block(cell)) {
                let next = self.next[k];
                let passes = k == self.index(cell)
                    || (next != NONE && beside(self.pos(k), self.pos(next as usize), cell));
                if passes && !lost[k] {
                    lost[k] = true;
                    queue.push(k);
                }
            }
        }
        let mut at = 0;
        while at < queue.len() {
            let k = queue[at];
            at += 1;
            // Every cell within one step (as drawn, whatever it is now) whose next cell was it.
            for j in self.block(self.pos(k)) {
                if !lost[j] && self.next[j] == k as u32 {
                    lost[j] = true;
                    queue.push(j);
                }
            }
        }
        let goal_cells: Vec<usize> = self.goals.iter().map(|&g| self.index(g)).collect();
        for &k in &queue {
            if !goal_cells.contains(&k) {
                self.cost[k] = f64::INFINITY;
                self.next[k] = NONE;
            }
        }
        // Each lost cell from its best neighbour that kept its cost; then one search from them
        // (and from the goals among them) settles them and lowers any cell they make cheaper.
        let mut open = BinaryHeap::new();
        for &k in &queue {
            if goal_cells.contains(&k) {
                open.push(Entry(0.0, k as u32));
                continue;
            }
            let here = self.pos(k);
            for (after, _) in grid.neighbors(here) {
                let j = self.index(after);
                let Some(step) = grid.step_cost(here, after) else {
                    continue;
                };
                let through = self.cost[j] + step;
                if !lost[j] && through < self.cost[k] && through <= self.limit {
                    self.cost[k] = through;
                    self.next[k] = j as u32;
                }
            }
            if self.cost[k].is_finite() {
                open.push(Entry(self.cost[k], k as u32));
            }
        }
        // Cells round a changed cell that kept their cost: a step past it may have become legal
        // (a wall beside a diagonal gone), so they look at their neighbours again.
        for &cell in &changed {
            for j in self.block(cell) {
                if !lost[j] && self.cost[j].is_finite() {
                    open.push(Entry(self.cost[j], j as u32));
                }
            }
        }
        let mut settled = 0;
        while let Some(Entry(cost, k)) = open.pop() {
            if cost > self.cost[k as usize] {
                continue;
            }
            settled += 1;
            self.relax_into(grid, k as usize, &mut open);
        }
        settled
    }

    /// Would walling `cells` cut any of `spawns` off from every goal? Answered without changing
    /// the grid: at once when none of the cells lies on a spawn's way down the field (those
    /// ways stay open), else by a search of the grid with the cells walled. A spawn that
    /// reaches no goal now counts as cut. The goals' own cells count as walled if named.
    pub fn cuts_off(&self, grid: &NavGrid, cells: &[GridPos], spawns: &[GridPos]) -> bool {
        let mut walled: Vec<GridPos> = cells.to_vec();
        walled.sort_unstable();
        walled.dedup();
        let is_walled = |c: GridPos| walled.binary_search(&c).is_ok();
        let mut on_a_way = false;
        for &spawn in spawns {
            let Some(way) = self.path_from(spawn) else {
                return true;
            };
            // A wall on the way, or beside one of its diagonal steps (the corner rule).
            on_a_way |= way.iter().any(|&c| is_walled(c))
                || way.windows(2).any(|w| {
                    grid.diagonal_sides(w[0], w[1]).is_some_and(|s| s.iter().any(|&c| is_walled(c)))
                });
        }
        if !on_a_way {
            return false;
        }
        // A search from the goals over the grid with the cells walled: does it reach them all?
        let mut seen = vec![false; self.cost.len()];
        let mut stack: Vec<GridPos> = Vec::new();
        for &goal in &self.goals {
            if !is_walled(goal) {
                seen[self.index(goal)] = true;
                stack.push(goal);
            }
        }
        while let Some(here) = stack.pop() {
            for (before, _) in grid.predecessors(here) {
                let k = self.index(before);
                if !seen[k] && !is_walled(before) && grid.can_step_walled(before, here, is_walled) {
                    seen[k] = true;
                    stack.push(before);
                }
            }
        }
        spawns.iter().any(|&s| !self.in_bounds(s) || !seen[self.index(s)])
    }
}
