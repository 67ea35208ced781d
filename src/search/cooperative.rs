//! Cooperative plans for units that hold whole cells: each unit's moves planned in space and
//! time, one step a tick, so that no two ever share a cell or swap through each other
//! ([`plan_together`]), and the order in which the units take each cell, so that units
//! walking such plans at any speeds keep to them ([`CellTurns`]).
//!
//! Units are planned one after another (prioritised planning, as in Silver's cooperative A*):
//! each plans a fastest space-time path (moves to a neighbour or waits) through the cells and
//! moves the ones before it reserved, and ends on a goal nobody passes after it arrives. A unit
//! that finds no such path goes first and all are planned again (as many times as there are
//! units, at most 32); then the units before it wait a tick longer on their starts before they
//! move, to let it by (up to 16 times). Each unit's plan is a search of cells x ticks up to
//! the horizon: for hundreds of units on a tactics-sized map, not thousands on a big one.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::fmt;

use super::linked::{MixMap, MixSet};
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

/// Cells taken in space and time: by the units planned so far, and by the starts of those
/// not planned yet (at tick 0).
#[derive(Default)]
struct Reservations {
    /// (cell, tick) -> held by a unit planned so far.
    cells: MixSet<(u32, u32)>,
    /// Cell -> the unit not planned yet that starts on it.
    starts: MixMap<u32, usize>,
    /// Cell -> the last tick anyone is in it.
    last: MixMap<u32, u32>,
    /// Cell -> the tick from which a unit parked on it stays for good.
    parked: MixMap<u32, u32>,
}

impl Reservations {
    /// Whether someone other than `me` is in `cell` at `tick`.
    fn held(&self, cell: u32, tick: u32, me: usize) -> bool {
        self.cells.contains(&(cell, tick))
            || self.parked.get(&cell).is_some_and(|&p| tick >= p)
            || (tick == 0 && self.starts.get(&cell).is_some_and(|&u| u != me))
    }

    /// Whether `me` may be in `cell` at `tick`: nobody else is there then, nor a tick before
    /// or after. The tick between two units in one cell is what lets them walk the plan at any
    /// speeds ([`CellTurns`]): nobody steps into a cell as its last holder steps out.
    fn free(&self, cell: u32, tick: u32, me: usize) -> bool {
        let before = tick.checked_sub(1).is_some_and(|t| self.held(cell, t, me));
        !before && !self.held(cell, tick, me) && !self.held(cell, tick + 1, me)
    }

    /// Holds a planned unit's `path` (its start is `path[0]`, no longer held as a start).
    fn hold(&mut self, path: &[u32]) {
        if let Some(start) = path.first() {
            self.starts.remove(start);
        }
        for (tick, &cell) in path.iter().enumerate() {
            self.cells.insert((cell, tick as u32));
            let last = self.last.entry(cell).or_insert(0);
            *last = (*last).max(tick as u32);
        }
        if let Some(&end) = path.last() {
            self.parked.insert(end, path.len() as u32 - 1);
        }
    }
}

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
    check_units(grid, units)?;
    let width = grid.width();
    let index = |p: GridPos| p.y * width + p.x;
    let pos = |i: u32| GridPos::new(i % width, i / width);
    let mut order: Vec<usize> = (0..units.len()).collect();
    // Each unit's steps to its goal from every cell, worked out once a unit (and not kept for
    // all of them at once: units x cells would be too much memory for a big group on a big
    // map); the first pass checks that every goal can be walked to.
    let distance = |&(start, goal): &(GridPos, GridPos)| {
        let d = steps_to(grid, goal);
        (d[index(start) as usize] != u32::MAX).then_some(d)
    };
    if let Some(unit) = units.iter().position(|u| distance(u).is_none()) {
        return Err(CooperativeError::Unreachable { unit });
    }
    // Ticks each unit waits on its start before it moves.
    let mut delays = vec![0u32; units.len()];
    let (mut reorders, mut waits) = (0, 0);
    'again: loop {
        let starts = units.iter().enumerate().map(|(u, &(s, _))| (index(s), u)).collect();
        let mut taken = Reservations { starts, ..Default::default() };
        let mut plans: Vec<Vec<u32>> = vec![Vec::new(); units.len()];
        for (k, &unit) in order.iter().enumerate() {
            let ends = units[unit];
            let steps = distance(&ends).unwrap_or_default();
            let plan = space_time_path(grid, &taken, (unit, ends), &steps, delays[unit], horizon);
            let Some(path) = plan else {
                if reorders < units.len().min(MAX_REORDERS) {
                    // It goes first.
                    reorders += 1;
                    order.retain(|&u| u != unit);
                    order.insert(0, unit);
                } else if waits < MAX_WAIT_ROUNDS {
                    // Those before it let it by: each waits a tick longer before it moves.
                    waits += 1;
                    for &before in &order[..k] {
                        delays[before] += 1;
                    }
                } else {
                    return Err(CooperativeError::NoPlan { unit });
                }
                continue 'again;
            };
            taken.hold(&path);
            plans[unit] = path;
        }
        return Ok(plans.into_iter().map(|p| p.into_iter().map(pos).collect()).collect());
    }
}

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

/// Steps from every cell to `goal` (`u32::MAX`: none), by moves the grid allows.
fn steps_to(grid: &NavGrid, goal: GridPos) -> Vec<u32> {
    let width = grid.width();
    let mut d = vec![u32::MAX; grid.len()];
    let mut queue = VecDeque::from([goal]);
    d[(goal.y * width + goal.x) as usize] = 0;
    while let Some(at) = queue.pop_front() {
        let here = d[(at.y * width + at.x) as usize];
        // Cells a step leads from into `at`: its neighbours that may step to it.
        for (next, _) in grid.neighbors(at) {
            let i = (next.y * width + next.x) as usize;
            if d[i] == u32::MAX && grid.can_step(next, at) {
                d[i] = here + 1;
                queue.push_back(next);
            }
        }
    }
    d
}

/// The fastest space-time path for one unit through what `taken` holds, ending at its goal at
/// a tick after which nobody passes there.
fn space_time_path(
    grid: &NavGrid,
    taken: &Reservations,
    (me, (start, goal)): (usize, (GridPos, GridPos)),
    distance: &[u32],
    delay: u32,
    horizon: u32,
) -> Option<Vec<u32>> {
    let width = grid.width();
    let index = |p: GridPos| p.y * width + p.x;
    let (from, to) = (index(start), index(goal));
    // Nobody else in the goal from a tick before it arrives (a start there counts at 0).
    let others_start = taken.starts.get(&to).is_some_and(|&u| u != me);
    let last = taken.last.get(&to).copied().or(others_start.then_some(0));
    let after_everyone = last.map_or(0, |t| t + 2);
    // Open states by their estimate, the later tick first among equal estimates (deeper
    // first: far fewer states than breadth among the many ties waiting makes).
    let mut open = BinaryHeap::new();
    let mut came: MixMap<(u32, u32), (u32, u32)> = MixMap::default();
    open.push(Reverse((distance[from as usize], u32::MAX, from)));
    came.insert((from, 0), (u32::MAX, 0));
    while let Some(Reverse((_, later, cell))) = open.pop() {
        let tick = u32::MAX - later;
        if cell == to && tick >= after_everyone {
            let mut path = vec![cell];
            let mut at = (cell, tick);
            while let Some(&(c, t)) = came.get(&at).filter(|p| p.0 != u32::MAX) {
                path.push(c);
                at = (c, t);
            }
            path.reverse();
            return Some(path);
        }
        if tick >= horizon {
            continue;
        }
        let here = GridPos::new(cell % width, cell / width);
        let stay = std::iter::once(here);
        // Before its delay is up it only waits.
        let steps = grid.neighbors(here).map(|(n, _)| n).filter(|_| tick >= delay);
        for next in stay.chain(steps) {
            let n = index(next);
            let t = tick + 1;
            if !taken.free(n, t, me)
                || distance[n as usize] == u32::MAX
                || came.contains_key(&(n, t))
            {
                continue;
            }
            came.insert((n, t), (cell, tick));
            open.push(Reverse((t + distance[n as usize], u32::MAX - t, n)));
        }
    }
    None
}

/// Whose turn it is in each cell, for units walking [`plan_together`]'s plans at speeds of
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
    /// The turns of `plans` (each a unit's cell at each tick, as [`plan_together`] gives them).
    pub fn new(plans: &[Vec<GridPos>]) -> Self {
        let mut visits: Vec<(u32, usize, GridPos)> = Vec::new();
        for (unit, plan) in plans.iter().enumerate() {
            for (tick, &cell) in plan.iter().enumerate() {
                if tick == 0 || plan[tick - 1] != cell {
                    visits.push((tick as u32, unit, cell));
                }
            }
        }
        visits.sort_unstable();
        let mut queues: HashMap<GridPos, VecDeque<usize>> = HashMap::new();
        for (_, unit, cell) in visits {
            queues.entry(cell).or_default().push_back(unit);
        }
        Self { queues }
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

    /// `unit` walks these plans no more (gone, or sent elsewhere): its turns go, and those
    /// after it move up.
    pub fn forget(&mut self, unit: usize) {
        for queue in self.queues.values_mut() {
            queue.retain(|&u| u != unit);
        }
    }
}
