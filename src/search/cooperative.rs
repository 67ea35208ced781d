//! Cooperative plans for units that hold whole cells: each unit's moves planned in space and
//! time, one step a tick, so that no two ever share a cell or swap through each other
//! ([`plan_together`]), and the order in which the units take each cell, so that units
//! walking such plans at any speeds keep to them ([`CellTurns`](super::CellTurns)).
//!
//! Units are planned one after another (prioritised planning, as in Silver's cooperative A*):
//! each plans a fastest space-time path (moves to a neighbour or waits) through the cells and
//! moves the ones before it reserved, and ends on a goal nobody passes after it arrives. A unit
//! that finds no such path goes first and all are planned again (as many times as there are
//! units, at most 32); then the units before it wait a tick longer on their starts before they
//! move, to let it by (up to 16 times). A unit not planned yet holds its start for the first
//! ticks. Each unit's plan is a search of cells x ticks until the latest arrival of those
//! planned before it (after that nothing moves, and the rest of its way is a plain walk round
//! the parked units), over one bit per cell and tick: for hundreds of units on a
//! tactics-sized map, not thousands on a big one. A windowed planner
//! ([`PlanTogether::windowed`]) plans every unit a window of ticks at a time instead, keeping
//! half of each window while the next is made.

use std::collections::HashMap;
use std::fmt;

use super::cell_moves::{Moves, Steps, StepsBack, steps_to, steps_to_avoiding};
use super::reservations::{Reservations, START_HELD};
use super::space_time::{Came, Open};
use crate::grid::{GridPos, NavGrid};

/// Why units could not be planned together.
#[derive(Clone, Debug, PartialEq)]
pub enum CooperativeError {
    /// A unit's start or goal is off the grid or blocked.
    BadCell {
        /// The unit (its index).
        unit: usize,
        /// The cell.
        pos: GridPos,
    },
    /// Two units start, or end, on one cell.
    Shared {
        /// The first unit.
        first: usize,
        /// The second.
        second: usize,
    },
    /// A unit's goal cannot be walked to from its start, whoever is in the way.
    Unreachable {
        /// The unit.
        unit: usize,
    },
    /// No plan for this unit within the horizon, whichever went first.
    NoPlan {
        /// The unit.
        unit: usize,
    },
}

impl fmt::Display for CooperativeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BadCell { unit, pos } => {
                write!(f, "unit {unit}: cell ({}, {}) is off the grid or blocked", pos.x, pos.y)
            }
            Self::Shared { first, second } => {
                write!(f, "units {first} and {second} start or end on one cell")
            }
            Self::Unreachable { unit } => write!(f, "unit {unit}: no way to its goal"),
            Self::NoPlan { unit } => write!(f, "unit {unit}: no plan within the horizon"),
        }
    }
}

impl std::error::Error for CooperativeError {}

/// Plans `units` (start, goal) together on `grid`: `result[i]` is unit `i`'s cell at each
/// tick from 0 (its start) until it reaches its goal, where it then stays; no two units are in
/// one cell at one tick, nor at two ticks in a row (a unit steps into a cell a tick after the
/// last one left it: so none follows another nose to tail, no ring of units turns, and no two
/// swap cells). Each step is one move to a neighbour the grid allows (or a wait), taking one
/// tick. `horizon`: the most ticks a plan may take. Errors: a start or goal off the grid or blocked, shared starts or goals, a goal
/// with no way to it, no plan within the horizon.
///
/// ```
/// use bevy_tilemap_nav::grid::{Cell, GridPos, NavGrid};
/// use bevy_tilemap_nav::search::plan_together;
///
/// // A corridor one cell wide with a pocket off its middle: two units swap ends.
/// let mut grid = NavGrid::new(7, 2).unwrap();
/// for x in [0, 1, 2, 4, 5, 6] {
///     grid.set(GridPos::new(x, 1), Cell::Blocked).unwrap();
/// }
/// let (west, east) = (GridPos::new(0, 0), GridPos::new(6, 0));
/// let plans = plan_together(&grid, &[(west, east), (east, west)], 64).unwrap();
/// assert_eq!(plans[0].last(), Some(&east));
/// assert_eq!(plans[1].last(), Some(&west));
/// // One of them stepped into the pocket to let the other by.
/// assert!(plans.iter().any(|p| p.contains(&GridPos::new(3, 1))));
/// ```
pub fn plan_together(
    grid: &NavGrid,
    units: &[(GridPos, GridPos)],
    horizon: u32,
) -> Result<Vec<Vec<GridPos>>, CooperativeError> {
    let mut planner = PlanTogether::new(grid.clone(), units, horizon)?;
    loop {
        if let Some(done) = planner.step(u64::MAX, || false) {
            return done;
        }
    }
}

/// [`plan_together`] a slice at a time, for a game that cannot wait a frame for hundreds of
/// units: [`step`](Self::step) goes on where the last call stopped, for about as many cells as
/// it is given, and gives the plans once they are all made (the same plans as
/// `plan_together`'s, however it is sliced). The units must stand on their starts until then.
///
/// ```
/// use bevy_tilemap_nav::grid::{GridPos, NavGrid};
/// use bevy_tilemap_nav::search::{PlanTogether, plan_together};
///
/// let grid = NavGrid::new(8, 8).unwrap();
/// let units = [(GridPos::new(0, 0), GridPos::new(7, 7)), (GridPos::new(7, 7), GridPos::new(0, 0))];
/// let mut planner = PlanTogether::new(grid.clone(), &units, 64).unwrap();
/// // A few cells a call: it takes many calls, and gives the same plans.
/// let mut calls = 1;
/// let plans = loop {
///     match planner.step(10, || false) {
///         Some(done) => break done.unwrap(),
///         None => calls += 1,
///     }
/// };
/// assert!(calls > 1);
/// assert_eq!(plans, plan_together(&grid, &units, 64).unwrap());
/// ```
pub struct PlanTogether {
    grid: NavGrid,
    units: Vec<(GridPos, GridPos)>,
    horizon: u32,
    /// Each unit's steps to its goal, from every cell when units x cells is at most
    /// `KEPT_STEPS` numbers, else worked out as they are asked for (units x cells would be too
    /// much memory for a big group on a big map, and each unit asks only round its way).
    kept: Vec<Steps>,
    /// Units whose goal has been checked to be walkable to (the first stage, a unit a slice).
    checked: usize,
    /// The order units are planned in, and the next to plan in it.
    order: Vec<usize>,
    next: usize,
    /// Ticks each unit waits on its start before it moves.
    delays: Vec<u32>,
    reorders: usize,
    waits: u32,
    taken: Reservations,
    plans: Vec<Vec<u32>>,
    /// Cells looked at so far (states searched, cells of the walks to goals).
    work: u64,
    done: Option<Result<Vec<Vec<GridPos>>, CooperativeError>>,
    /// The space-time search's open states and where each came from, kept from one unit's
    /// search to the next (emptied, not freed).
    scratch: Scratch,
    /// Each cell's moves, worked out in the first call (with the first unit's goal check).
    moves: Option<Moves>,
    /// Windowed: each search looks this many ticks ahead (`None`: to the goal).
    window: Option<u32>,
    /// The windows made for good so far: each unit's cell at every tick up to the last one
    /// kept (empty until a window is made; starts of the window being made are their ends).
    kept_ticks: Vec<Vec<u32>>,
    /// Whether each unit's plan of this window reaches its goal (not cut at the window's end).
    arrives: Vec<bool>,
    /// The most steps any unit's walk to its goal takes, alone (known once all are checked).
    longest: u32,
    /// Windowed: the kept ticks past which the window is made twice as long (0: not set yet).
    widen_at: u32,
}

/// A space-time search's working memory: open states (cell, tick, whether a finish) by their
/// estimate, and the cell each state (cell, tick) came from.
#[derive(Default)]
struct Scratch {
    open: Open,
    came: Came,
}

impl PlanTogether {
    /// A planner of `units` (start, goal) on `grid` within `horizon` ticks (see
    /// [`plan_together`]). Errors at once: a start or goal off the grid or blocked, shared
    /// starts or goals; the rest come from [`step`](Self::step).
    pub fn new(
        grid: NavGrid,
        units: &[(GridPos, GridPos)],
        horizon: u32,
    ) -> Result<Self, CooperativeError> {
        check_units(&grid, units)?;
        let taken = Self::fresh(&grid, units, horizon);
        Ok(Self {
            units: units.to_vec(),
            horizon,
            kept: Vec::new(),
            checked: 0,
            order: (0..units.len()).collect(),
            next: 0,
            delays: vec![0; units.len()],
            reorders: 0,
            waits: 0,
            taken,
            plans: vec![Vec::new(); units.len()],
            work: 0,
            done: None,
            scratch: Scratch::default(),
            moves: None,
            window: None,
            kept_ticks: Vec::new(),
            arrives: vec![false; units.len()],
            longest: 0,
            widen_at: 0,
            grid,
        })
    }

    /// A planner of `units` that looks `window` ticks ahead (windowed cooperative A*, as in
    /// Silver's WHCA*): each unit's search stops at the window's end, where the rest of its way
    /// is counted as a plain walk. Once every unit is planned for a window, the first half of
    /// it is kept for good ([`kept_ticks`](Self::kept_ticks), [`kept_plans`](Self::kept_plans))
    /// and the next window is planned from where that half ends, units already on their goals
    /// last (so they step aside for those still on their way), until every unit's plan of a
    /// window reaches its goal. The units may walk what is kept while the rest is made.
    ///
    /// Each window costs a search of `window` ticks a unit, however far the goals; but looking
    /// ahead only so far, units can go round each other for ever: once the kept ticks pass
    /// twice the longest walk to a goal (plus a window), the window is made twice as long, and
    /// so on (a window past the horizon plans the rest to the goals in one, as
    /// [`plan_together`] does). A `window` below 8 is taken as 8. `horizon` bounds each
    /// window's searches (and the rest, once planned all the way), not the whole plan. Like
    /// [`plan_together`], it can find no plan for a unit ([`CooperativeError::NoPlan`]). The plans it gives
    /// keep the same rules as [`plan_together`]'s (and [`CellTurns`](super::CellTurns) of the kept windows,
    /// then [`extend`](super::CellTurns::extend)ed with each one kept after, keep units walking them
    /// apart whatever their speeds).
    ///
    /// ```
    /// use bevy_tilemap_nav::grid::{GridPos, NavGrid};
    /// use bevy_tilemap_nav::search::PlanTogether;
    ///
    /// let grid = NavGrid::new(40, 3).unwrap();
    /// let (west, east) = (GridPos::new(0, 1), GridPos::new(39, 1));
    /// let mut planner = PlanTogether::windowed(grid, &[(west, east), (east, west)], 256, 8)
    ///     .unwrap();
    /// // The first window is kept before the units are anywhere near each other.
    /// while planner.kept_ticks() == 0 {
    ///     assert_eq!(planner.step(1, || false), None);
    /// }
    /// assert_eq!(planner.kept_ticks(), 4);
    /// // Unit 0 has come four cells east (in some row) in those four ticks.
    /// assert_eq!(planner.kept_plans()[0][4].x, 4);
    /// let plans = loop {
    ///     if let Some(done) = planner.step(u64::MAX, || false) {
    ///         break done.unwrap();
    ///     }
    /// };
    /// assert_eq!((plans[0].last(), plans[1].last()), (Some(&east), Some(&west)));
    /// assert_eq!(plans[0].len(), 40, "no wait on the way: they pass side by side");
    /// ```
    pub fn windowed(
        grid: NavGrid,
        units: &[(GridPos, GridPos)],
        horizon: u32,
        window: u32,
    ) -> Result<Self, CooperativeError> {
        let mut planner = Self::new(grid, units, horizon)?;
        planner.window = Some(window.max(MIN_WINDOW));
        Ok(planner)
    }

    /// The ticks kept for good so far by a windowed planner (0 until its first window is made;
    /// always 0 for one that is not windowed).
    pub fn kept_ticks(&self) -> u32 {
        self.kept_ticks.first().map_or(0, |k| k.len() as u32 - 1)
    }

    /// Each unit's cell at every tick from 0 to [`kept_ticks`](Self::kept_ticks): what the
    /// units may walk while the rest is made.
    pub fn kept_plans(&self) -> Vec<Vec<GridPos>> {
        let width = self.grid.width();
        let pos = |&i: &u32| GridPos::new(i % width, i / width);
        self.kept_ticks.iter().map(|k| k.iter().map(pos).collect()).collect()
    }

    /// The reservations of nobody planned yet: only the starts.
    fn fresh(grid: &NavGrid, units: &[(GridPos, GridPos)], horizon: u32) -> Reservations {
        let starts = units.iter().enumerate().map(|(u, &(s, _))| (s.y * grid.width() + s.x, u));
        Reservations::starts(grid.len(), horizon, starts)
    }

    /// Goes on planning until about `cells` more cells are looked at or `out_of_time` says so
    /// (at least one unit's search a call, so that it always goes on). `Some`: done, the plans
    /// (as [`plan_together`] gives them) or why there are none; `None`: call again.
    pub fn step(
        &mut self,
        cells: u64,
        out_of_time: impl Fn() -> bool,
    ) -> Option<Result<Vec<Vec<GridPos>>, CooperativeError>> {
        let began = self.work;
        while self.done.is_none() {
            self.done = self.one_unit();
            if self.work - began >= cells || out_of_time() {
                break;
            }
        }
        self.done.clone()
    }

    /// Cells looked at so far, all calls together.
    pub fn work(&self) -> u64 {
        self.work
    }

    /// One unit's part: its goal checked, or its plan made (`Some`: the planning is over).
    fn one_unit(&mut self) -> Option<Result<Vec<Vec<GridPos>>, CooperativeError>> {
        let grid = &self.grid;
        let index = |p: GridPos| p.y * grid.width() + p.x;
        if self.moves.is_none() {
            // Worked out with the first goal's check, in the same slice.
            self.work += grid.len() as u64;
        }
        let moves = &*self.moves.get_or_insert_with(|| Moves::of(grid));
        if self.checked < self.units.len() {
            let unit = self.checked;
            let (start, goal) = self.units[unit];
            let mut steps = if self.units.len().saturating_mul(grid.len()) <= KEPT_STEPS {
                self.work += grid.len() as u64;
                Steps::Every(steps_to(moves, index(goal)))
            } else {
                Steps::Back(StepsBack::new(index(goal), index(start), grid.width()))
            };
            let walk = steps.to(moves, index(start), &mut self.work);
            if walk == u32::MAX {
                return Some(Err(CooperativeError::Unreachable { unit }));
            }
            self.longest = self.longest.max(walk);
            self.kept.push(steps);
            self.checked += 1;
            return None;
        }
        let Some(&unit) = self.order.get(self.next) else {
            if self.window.is_some() && !self.arrives.iter().all(|&a| a) {
                self.next_window();
                return None;
            }
            return Some(Ok(self.finish()));
        };
        let steps = &mut self.kept[unit];
        let me = (unit, self.units[unit]);
        let (delay, horizon) = (self.delays[unit], self.horizon);
        let scratch = &mut self.scratch;
        let limits = Limits { delay, horizon, window: self.window };
        let ground = (grid, moves);
        let plan = space_time_path(ground, &self.taken, me, steps, limits, scratch, &mut self.work);
        if let Some((path, arrives)) = plan {
            self.taken.hold(unit, &path);
            self.plans[unit] = path;
            self.arrives[unit] = arrives;
            self.next += 1;
            return None;
        }
        if self.reorders < self.units.len().min(MAX_REORDERS) {
            // It goes first.
            self.reorders += 1;
            self.order.retain(|&u| u != unit);
            self.order.insert(0, unit);
        } else if self.waits < MAX_WAIT_ROUNDS {
            // Those before it let it by: each waits a tick longer before it moves.
            self.waits += 1;
            for &before in &self.order[..self.next] {
                self.delays[before] += 1;
            }
        } else {
            return Some(Err(CooperativeError::NoPlan { unit }));
        }
        // All are planned again.
        self.taken = Self::fresh(&self.grid, &self.units, self.horizon);
        self.plans = vec![Vec::new(); self.units.len()];
        self.next = 0;
        None
    }
}

impl PlanTogether {
    /// The plans of every unit, all windows kept and the last one made: each unit's cell at
    /// every tick until it is on its goal for good.
    fn finish(&mut self) -> Vec<Vec<GridPos>> {
        let width = self.grid.width();
        let pos = |i: u32| GridPos::new(i % width, i / width);
        let plans = std::mem::take(&mut self.plans);
        let kept = std::mem::take(&mut self.kept_ticks);
        let whole = plans.into_iter().enumerate().map(|(unit, plan)| {
            let Some(before) = kept.get(unit) else { return plan };
            let mut cells = before.clone();
            cells.extend(plan.into_iter().skip(1));
            // On its goal from the tick it last came there.
            while cells.len() > 1 && cells[cells.len() - 2] == cells[cells.len() - 1] {
                cells.pop();
            }
            cells
        });
        whole.map(|p| p.into_iter().map(pos).collect()).collect()
    }

    /// Every unit is planned for this window and some have not arrived: its first half is kept,
    /// and the next window is planned from where that half ends (units on their goals last;
    /// once the kept ticks pass what any walk could need, in a window twice as long).
    fn next_window(&mut self) {
        let Some(window) = self.window else { return };
        let keep = (window / 2) as usize;
        let plans = std::mem::take(&mut self.plans);
        if self.kept_ticks.is_empty() {
            self.kept_ticks = vec![Vec::new(); self.units.len()];
            self.kept_ticks.iter_mut().zip(&plans).for_each(|(k, p)| k.extend(p.first()));
        }
        for (unit, plan) in plans.iter().enumerate() {
            let ends = |t: usize| plan[t.min(plan.len() - 1)];
            self.kept_ticks[unit].extend((1..=keep).map(ends));
            self.units[unit].0 = self.pos(ends(keep));
        }
        let at_goal = |u: &usize| self.units[*u].0 == self.units[*u].1;
        let mut order = std::mem::take(&mut self.order);
        order.sort_by_key(at_goal);
        self.order = order;
        // Looking twice as far once the kept ticks pass what any walk could need (twice the
        // longest, and a window); all the way once a window would pass the horizon.
        let enough = |window: u32| self.longest.saturating_mul(2).saturating_add(window);
        if self.widen_at == 0 {
            self.widen_at = enough(window);
        }
        if self.kept_ticks() > self.widen_at {
            let wider = window.saturating_mul(2);
            self.window = (wider < self.horizon).then_some(wider);
            self.widen_at = self.kept_ticks().saturating_add(enough(wider));
        }
        self.taken = Self::fresh(&self.grid, &self.units, self.horizon);
        self.plans = vec![Vec::new(); self.units.len()];
        self.arrives = vec![false; self.units.len()];
        self.delays = vec![0; self.units.len()];
        (self.next, self.reorders, self.waits) = (0, 0, 0);
    }

    fn pos(&self, i: u32) -> GridPos {
        GridPos::new(i % self.grid.width(), i / self.grid.width())
    }
}

/// The shortest window a windowed planner looks ahead: in shorter ones, units planned first
/// end their windows where later ones stand, and those can be left nowhere to go.
const MIN_WINDOW: u32 = 8;

/// What bounds one unit's space-time search: the ticks it waits on its start, the most ticks
/// its plan may take, and (windowed) the tick its search stops at.
#[derive(Clone, Copy)]
struct Limits {
    delay: u32,
    horizon: u32,
    window: Option<u32>,
}

/// The most steps-to-goal numbers (a unit's for every cell) kept through a plan (16 MB).
const KEPT_STEPS: usize = 1 << 22;

/// How many times the units before one that found no plan are made to wait a tick longer
/// before it is given up.
const MAX_WAIT_ROUNDS: u32 = 16;

/// How many times at most a unit that found no plan is put first and all are planned again
/// (each time costs a plan of every unit).
const MAX_REORDERS: usize = 32;

fn check_units(grid: &NavGrid, units: &[(GridPos, GridPos)]) -> Result<(), CooperativeError> {
    let mut starts: HashMap<GridPos, usize> = HashMap::new();
    let mut goals: HashMap<GridPos, usize> = HashMap::new();
    for (unit, &(start, goal)) in units.iter().enumerate() {
        for pos in [start, goal] {
            if !grid.is_passable(pos) {
                return Err(CooperativeError::BadCell { unit, pos });
            }
        }
        for (seen, pos) in [(&mut starts, start), (&mut goals, goal)] {
            if let Some(&first) = seen.get(&pos) {
                return Err(CooperativeError::Shared { first, second: unit });
            }
            seen.insert(pos, unit);
        }
    }
    Ok(())
}

/// The fastest space-time path for one unit through what `taken` holds, ending at its goal at
/// a tick after which nobody passes there.
///
/// From the tick on which the last unit planned so far has arrived (and this one's delay is
/// up) nothing moves any more: only the cells of parked units are taken. A state of that tick
/// is not searched on in time: the rest of its way is the fewest steps to the goal round the
/// parked units, worked out once ([`steps_to_avoiding`]). So a search covers cells x the ticks
/// until everyone planned has arrived, not cells x the horizon, and a unit that can never
/// reach its goal (parked units wall it in) is known at that tick.
fn space_time_path(
    (grid, moves): (&NavGrid, &Moves),
    taken: &Reservations,
    (me, (start, goal)): (usize, (GridPos, GridPos)),
    steps: &mut Steps,
    Limits { delay, horizon, window }: Limits,
    Scratch { open, came }: &mut Scratch,
    work: &mut u64,
) -> Option<(Vec<u32>, bool)> {
    let width = grid.width();
    let index = |p: GridPos| p.y * width + p.x;
    let (from, to) = (index(start), index(goal));
    // Nobody else in the goal from a tick before it arrives (a start there counts at 0).
    let after_everyone = taken.last(to, me).map_or(0, |t| t.saturating_add(2));
    // From this tick on, a cell is free if nobody is parked on it (nobody held anything a
    // tick before), the unit may move, and its goal is left to it.
    let settled = taken.latest.max(START_HELD).saturating_add(2).max(delay).max(after_everyone);
    // Windowed: a state of the window's end tick (before everyone has settled) comes back
    // as a finish too, at its estimate (the tick and a plain walk from there), and the plan
    // is cut there.
    let cut = window.filter(|&w| w < settled);
    let settled = cut.unwrap_or(settled);
    let mut still: Option<Vec<u32>> = None;
    // Open states by their estimate, the later tick first among equal estimates (deeper
    // first); a state of the settled tick comes back as a finish (at its arrival's estimate,
    // which is exact).
    // No state is kept past the settled tick (it finishes there) nor the horizon.
    let last = settled.min(horizon);
    let first = steps.to(moves, from, work);
    open.clear(first, last);
    came.clear(grid.len(), last);
    open.push(first, 0, (from, 0, false));
    came.insert(from, 0, u32::MAX);
    while let Some((cell, tick, finish)) = open.pop() {
        *work += 1;
        if finish || (cell == to && tick >= after_everyone) {
            let mut path = vec![cell];
            let mut at = (cell, tick);
            while let Some(c) = came.get(at.0, at.1).filter(|&c| c != u32::MAX) {
                path.push(c);
                at = (c, at.1 - 1);
            }
            path.reverse();
            if finish && cut.is_some() {
                return Some((path, false));
            }
            if finish {
                let round = still.as_deref().unwrap_or_default();
                walk_down(grid, round, &mut path);
            }
            return Some((path, true));
        }
        if tick >= horizon {
            continue;
        }
        if tick == settled && cut.is_some() {
            let estimate = tick.saturating_add(steps.to(moves, cell, work));
            open.push(estimate, tick, (cell, tick, true));
            continue;
        }
        if tick == settled {
            let round = still.get_or_insert_with(|| {
                *work += grid.len() as u64;
                steps_to_avoiding(moves, to, |c| taken.parked(c))
            });
            let rest = round[cell as usize];
            let arrival = tick.saturating_add(rest);
            if rest != u32::MAX && arrival <= horizon {
                open.push(arrival, arrival, (cell, tick, true));
            }
            continue;
        }
        // Before its delay is up it only waits.
        let out: &[u32] = if tick >= delay { moves.out.of(cell) } else { &[] };
        for &n in std::iter::once(&cell).chain(out) {
            let t = tick + 1;
            if !taken.free(n, t, me) || came.get(n, t).is_some() {
                continue;
            }
            let left = steps.to(moves, n, work);
            if left == u32::MAX {
                continue;
            }
            came.insert(n, t, cell);
            open.push(t + left, t, (n, t, false));
        }
    }
    None
}

/// Walks `path` (which ends on a cell `steps` says is that many steps from the goal) down
/// `steps` to the goal, one step a tick (each cell a step from the goal has a neighbour a step
/// nearer, which `steps_to_avoiding` came to it from).
fn walk_down(grid: &NavGrid, steps: &[u32], path: &mut Vec<u32>) {
    let width = grid.width();
    while let Some(&cell) = path.last() {
        let here = steps[cell as usize];
        if here == 0 {
            break;
        }
        let at = GridPos::new(cell % width, cell / width);
        let next = grid.neighbors(at).map(|(n, _)| n).find(|&n| {
            let i = (n.y * width + n.x) as usize;
            steps[i] == here - 1 && grid.can_step(at, n)
        });
        match next {
            Some(n) => path.push(n.y * width + n.x),
            None => break,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::reservations::TABLE_BITS;
    use super::*;
    use crate::grid::Cell;

    /// A dead end one cell wide: unit 0's goal at its mouth, unit 1's at its far end. Planned
    /// in that order, unit 0 parks in the mouth and walls unit 1 out for good, which its
    /// search sees once everyone planned has arrived, not at the horizon (here none): unit 1
    /// then goes first and both arrive.
    #[test]
    fn a_unit_walled_out_by_a_parked_one_is_found_out_without_a_horizon() {
        let mut grid = NavGrid::new(8, 3).unwrap();
        for x in 3..8 {
            grid.set(GridPos::new(x, 0), Cell::Blocked).unwrap();
            grid.set(GridPos::new(x, 2), Cell::Blocked).unwrap();
        }
        let (mouth, end) = (GridPos::new(3, 1), GridPos::new(7, 1));
        let units = [(GridPos::new(2, 1), mouth), (GridPos::new(0, 2), end)];
        let plans = plan_together(&grid, &units, u32::MAX).unwrap();
        assert_eq!(plans[0].last(), Some(&mouth));
        assert_eq!(plans[1].last(), Some(&end));
        // Windowed (looking 4 ticks ahead), unit 0 parks in the mouth first; on its goal, it is
        // planned after unit 1 in the next windows, and steps out to let it by.
        let mut windowed = PlanTogether::windowed(grid.clone(), &units, 64, 4).unwrap();
        let by_windows = loop {
            if let Some(done) = windowed.step(u64::MAX, || false) {
                break done.unwrap();
            }
        };
        assert_eq!(by_windows[0].last(), Some(&mouth));
        assert_eq!(by_windows[1].last(), Some(&end));
        // Unit 1 passed the mouth before unit 0 stepped into it.
        let passed = plans[1].iter().position(|&c| c == mouth).unwrap();
        let parked = plans[0].iter().position(|&c| c == mouth).unwrap();
        assert!(passed + 1 < parked, "{passed} {parked}");
    }

    /// A horizon too long for a table of cells x ticks holds them in a set: the same plans.
    #[test]
    fn held_cells_in_a_table_or_a_set_plan_alike() {
        let (grid, units) = walled_rows();
        let table = plan_together(&grid, &units, 200).unwrap();
        assert!(grid.len() * 201 <= TABLE_BITS);
        let set = plan_together(&grid, &units, (TABLE_BITS / grid.len()) as u32 + 1).unwrap();
        assert_eq!(table, set);
    }

    /// A grid too big for a table of where each searched state came from (cells x ticks) keeps
    /// them in a map, and too big for every unit's steps from every cell works them out as they
    /// are asked for: the same 12 x 12 puzzle walled off in a corner of one gets the same plans.
    #[test]
    fn states_come_from_a_table_or_a_map_alike() {
        let (small, units) = walled_rows();
        let mut big = NavGrid::new(1_500, 1_400).unwrap();
        assert!(big.len() > 1 << 21, "past the table: {}", big.len());
        assert!(units.len() * big.len() > KEPT_STEPS, "steps as they are asked for");
        big.fill_rect(GridPos::new(12, 0), GridPos::new(1_499, 1_399), Cell::Blocked).unwrap();
        big.fill_rect(GridPos::new(0, 12), GridPos::new(11, 1_399), Cell::Blocked).unwrap();
        for p in small.positions() {
            big.set(p, small.get(p).unwrap()).unwrap();
        }
        let table = plan_together(&small, &units, 200).unwrap();
        assert_eq!(plan_together(&big, &units, 200).unwrap(), table);
    }

    /// Planned a slice at a time (down to a cell a call), the plans are the same as in one
    /// call, re-orders and all; the work is counted, and a slice stops at its cells.
    #[test]
    fn plans_made_in_slices_are_the_plans_made_at_once() {
        let (grid, units) = walled_rows();
        let whole = plan_together(&grid, &units, 200).unwrap();
        for slice in [1, 50, 2_000] {
            let mut planner = PlanTogether::new(grid.clone(), &units, 200).unwrap();
            let mut calls = 0u64;
            let plans = loop {
                let before = planner.work();
                calls += 1;
                match planner.step(slice, || false) {
                    Some(done) => break done.unwrap(),
                    // A slice ends once its cells are used, within one unit's search.
                    None => assert!(planner.work() - before >= slice),
                }
            };
            assert_eq!(plans, whole, "slices of {slice}");
            assert!(calls > 1 && calls <= planner.work() / slice + 1, "{calls} calls");
            // Asked again once done, it says the same.
            assert_eq!(planner.step(1, || false), Some(Ok(whole.clone())));
        }
        // The walled-out unit (planned again, first) in slices of one cell.
        let mut grid = NavGrid::new(8, 3).unwrap();
        for x in 3..8 {
            grid.set(GridPos::new(x, 0), Cell::Blocked).unwrap();
            grid.set(GridPos::new(x, 2), Cell::Blocked).unwrap();
        }
        let units =
            [(GridPos::new(2, 1), GridPos::new(3, 1)), (GridPos::new(0, 2), GridPos::new(7, 1))];
        let mut planner = PlanTogether::new(grid.clone(), &units, 64).unwrap();
        let sliced = loop {
            if let Some(done) = planner.step(1, || false) {
                break done;
            }
        };
        assert_eq!(sliced, plan_together(&grid, &units, 64));
        // Out of time: one unit a call, whatever the cells.
        let mut planner = PlanTogether::new(grid, &units, 64).unwrap();
        assert_eq!(planner.step(u64::MAX, || true), None);
    }

    /// A corridor whose only way on is a ledge (a one-way step): the unit is planned down it.
    /// The walks to the goal count steps into each cell, the ledge among them (they were read
    /// from the cell's own neighbours, which leave out a step that comes in one way only: the
    /// goal was "unreachable").
    #[test]
    fn a_plan_takes_a_one_way_step() {
        let mut grid = NavGrid::new(4, 1).unwrap();
        let cell = |x| GridPos::new(x, 0);
        grid.set_edge(cell(1), cell(2), crate::grid::Edge::OneWay).unwrap();
        let plans = plan_together(&grid, &[(cell(0), cell(3))], 16).unwrap();
        assert_eq!(plans[0], vec![cell(0), cell(1), cell(2), cell(3)]);
        let back = plan_together(&grid, &[(cell(3), cell(0))], 16);
        assert_eq!(back, Err(CooperativeError::Unreachable { unit: 0 }));
    }

    /// Errors come in slices too: an unreachable goal from `step`, a shared start at once.
    #[test]
    fn a_sliced_plan_says_what_plan_together_says() {
        let mut grid = NavGrid::new(5, 1).unwrap();
        grid.set(GridPos::new(2, 0), Cell::Blocked).unwrap();
        let (a, b, e) = (GridPos::new(0, 0), GridPos::new(1, 0), GridPos::new(4, 0));
        let units = [(a, b), (b, e)];
        let mut planner = PlanTogether::new(grid.clone(), &units, 16).unwrap();
        assert_eq!(planner.step(1, || false), None, "the first unit's goal checked");
        assert_eq!(planner.step(1, || false), Some(Err(CooperativeError::Unreachable { unit: 1 })));
        assert_eq!(
            plan_together(&grid, &units, 16),
            Err(CooperativeError::Unreachable { unit: 1 })
        );
        let shared = PlanTogether::new(grid, &[(a, b), (a, GridPos::new(3, 0))], 16);
        assert_eq!(shared.err(), Some(CooperativeError::Shared { first: 0, second: 1 }));
    }

    /// A 12 x 12 grid with two walls of doors, and 30 units each sent across them.
    fn walled_rows() -> (NavGrid, Vec<(GridPos, GridPos)>) {
        let mut grid = NavGrid::new(12, 12).unwrap();
        for y in [3, 7] {
            for x in (0..12).filter(|x| x % 4 != 1) {
                grid.set(GridPos::new(x, y), Cell::Blocked).unwrap();
            }
        }
        let open: Vec<GridPos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
        // Each to the cell 37 places on in the list (across the walls).
        let units = (0..30).map(|i| (open[i * 3], open[(i * 3 + 37) % open.len()])).collect();
        (grid, units)
    }
}
