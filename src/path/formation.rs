//! Group orders: a goal cell for each member of a group sent to one point, in a formation round
//! it, on cells the goal's region reaches, each member given the slot that makes the group's
//! total walk least ([`group_goals`]).

use std::fmt;

use super::reach::reachable;
use crate::grid::{GridPos, NavGrid};
use crate::search::PathError;

/// The shape a group takes round its goal.
#[derive(Clone, Debug, PartialEq)]
pub enum Formation {
    /// As close round the goal as the members fit: rings outwards.
    Packed,
    /// Side by side across the way it faces (`facing`: a direction in cells, `(0, 1)` north).
    Line {
        /// The way the line faces.
        facing: (i32, i32),
    },
    /// A square block, row after row, its side the square root of the group.
    Box,
    /// The game's own slots: offsets from the goal in cells, one a member (members past the
    /// last offset are packed round the goal).
    Offsets(Vec<(i32, i32)>),
}

/// Why a group could not be given goals.
#[derive(Clone, Debug, PartialEq)]
pub enum FormationError {
    /// No members.
    EmptyGroup,
    /// A spacing of 0.
    NoSpacing,
    /// The goal is off the grid or blocked (the error the search gives it).
    Goal(PathError),
    /// Fewer open cells reach the goal than there are members.
    NotEnoughRoom {
        /// Members.
        members: usize,
        /// Open cells connected to the goal.
        room: usize,
    },
}

impl fmt::Display for FormationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EmptyGroup => write!(f, "a group order with no members"),
            Self::NoSpacing => write!(f, "a formation spacing of 0"),
            Self::Goal(e) => write!(f, "the group's goal: {e}"),
            Self::NotEnoughRoom { members, room } => {
                write!(f, "{members} members, and only {room} open cells reach the goal")
            }
        }
    }
}

impl std::error::Error for FormationError {}

impl Formation {
    /// The first `n` offsets of the formation (cells from the goal, `spacing` apart), in the
    /// order slots are filled: the goal's own first.
    pub fn offsets(&self, n: usize, spacing: u32) -> Vec<(i64, i64)> {
        let s = i64::from(spacing.max(1));
        let scaled = |(x, y): (i64, i64)| (x * s, y * s);
        // The game's offsets are in cells as given; the shapes' are `spacing` apart.
        let mut out: Vec<(i64, i64)> = match self {
            Formation::Offsets(_) => self.given_unscaled(n),
            _ => self.given_unscaled(n).into_iter().map(scaled).collect(),
        };
        if out.len() < n {
            // The rest packed: rings outwards, nearest first, skipping offsets taken.
            let taken: std::collections::HashSet<(i64, i64)> = out.iter().copied().collect();
            let ring = packed(n * 2 + 8).into_iter().map(scaled).filter(|p| !taken.contains(p));
            let missing = n - out.len();
            out.extend(ring.take(missing));
        }
        out
    }

    /// The shape's own offsets (unscaled), at most `n`.
    fn given_unscaled(&self, n: usize) -> Vec<(i64, i64)> {
        match self {
            Formation::Packed => Vec::new(),
            Formation::Line { facing } => {
                let across = (i64::from(-facing.1.signum()), i64::from(facing.0.signum()));
                let across = if across == (0, 0) { (1, 0) } else { across };
                (0..n as i64)
                    .map(|i| {
                        let k = if i % 2 == 1 { (i + 1) / 2 } else { -(i / 2) };
                        (across.0 * k, across.1 * k)
                    })
                    .collect()
            }
            Formation::Box => {
                let side = (n as f64).sqrt().ceil().max(1.0) as i64;
                let half = (side - 1) / 2;
                (0..n as i64).map(|i| (i % side - half, half - i / side)).collect()
            }
            Formation::Offsets(offsets) => {
                offsets.iter().take(n).map(|&(x, y)| (i64::from(x), i64::from(y))).collect()
            }
        }
    }
}

/// At least `n` offsets round (0, 0), nearest first (ties by angle from east).
fn packed(n: usize) -> Vec<(i64, i64)> {
    let r = ((n as f64 / std::f64::consts::PI).sqrt().ceil() as i64) + 1;
    let mut cells: Vec<(i64, i64)> = (-r..=r).flat_map(|y| (-r..=r).map(move |x| (x, y))).collect();
    let key = |&(x, y): &(i64, i64)| (x * x + y * y, ((y as f64).atan2(x as f64) * 1e6) as i64);
    cells.sort_by_key(key);
    cells
}

/// Groups up to this many members are given slots by their exact walking costs, the best
/// assignment of all; larger ones up to [`ESTIMATED_LIMIT`] by straight-line estimates (still
/// the best assignment for those costs); larger still, by a sweep across the way they go.
pub const EXACT_LIMIT: usize = 64;
/// See [`EXACT_LIMIT`].
pub const ESTIMATED_LIMIT: usize = 256;

/// A cost that stands for "cannot get there" in an assignment (finite, so sums stay exact).
const NO_WAY: f64 = 1e12;

/// Goal cells for a group whose members stand at `starts`, sent to `goal` in `formation`
/// (`spacing` cells apart): one distinct open cell each, every one connected to the goal,
/// each member given the slot that makes the group's total walk least (see
/// [`EXACT_LIMIT`]). Slots the formation puts in a wall or out of the goal's region move to
/// the free cells nearest the goal. `result[i]` is member `i`'s goal. Errors: no members, a
/// spacing of 0, the goal off the grid or blocked, too little room.
///
/// ```
/// use bevy_tilemap_nav::grid::{GridPos, NavGrid};
/// use bevy_tilemap_nav::path::{Formation, group_goals};
///
/// let grid = NavGrid::new(20, 20).unwrap();
/// let starts = [GridPos::new(1, 1), GridPos::new(2, 1), GridPos::new(3, 1)];
/// let line = Formation::Line { facing: (0, 1) };
/// let goals = group_goals(&grid, &starts, GridPos::new(10, 15), &line, 1).unwrap();
/// // Side by side across the way north, the member on the left to the left.
/// assert_eq!(goals, vec![GridPos::new(9, 15), GridPos::new(10, 15), GridPos::new(11, 15)]);
/// ```
pub fn group_goals(
    grid: &NavGrid,
    starts: &[GridPos],
    goal: GridPos,
    formation: &Formation,
    spacing: u32,
) -> Result<Vec<GridPos>, FormationError> {
    if starts.is_empty() {
        return Err(FormationError::EmptyGroup);
    }
    if spacing == 0 {
        return Err(FormationError::NoSpacing);
    }
    let slots = place_slots(grid, goal, &formation.offsets(starts.len(), spacing))?;
    let order = if starts.len() <= ESTIMATED_LIMIT {
        let costs = if starts.len() <= EXACT_LIMIT {
            walking_costs(grid, starts, &slots)
        } else {
            estimated_costs(starts, &slots)
        };
        best_assignment(&costs, starts.len())
    } else {
        sweep_assignment(starts, &slots, goal)
    };
    Ok(order.into_iter().map(|s| slots[s]).collect())
}

/// The cells of `offsets` round `goal`: each where it falls if that cell is open, connected to
/// the goal and not taken, else the free connected cell nearest the goal (by walking cost).
fn place_slots(
    grid: &NavGrid,
    goal: GridPos,
    offsets: &[(i64, i64)],
) -> Result<Vec<GridPos>, FormationError> {
    let region = reachable(grid, goal, f64::INFINITY).map_err(FormationError::Goal)?;
    let room = region.cells().len();
    if room < offsets.len() {
        return Err(FormationError::NotEnoughRoom { members: offsets.len(), room });
    }
    let mut taken = std::collections::HashSet::with_capacity(offsets.len());
    let mut slots = Vec::with_capacity(offsets.len());
    let mut nearest = region.cells().iter().map(|c| c.pos);
    for &(dx, dy) in offsets {
        let (x, y) = (i64::from(goal.x) + dx, i64::from(goal.y) + dy);
        let at = (x >= 0 && y >= 0 && x <= i64::from(u32::MAX) && y <= i64::from(u32::MAX))
            .then(|| GridPos::new(x as u32, y as u32))
            .filter(|&p| region.contains(p) && !taken.contains(&p));
        let pos = match at {
            Some(p) => p,
            // There is room: some cell of the region is free.
            None => nearest.by_ref().find(|p| !taken.contains(p)).unwrap_or(goal),
        };
        taken.insert(pos);
        slots.push(pos);
    }
    // A slot placed where it falls may have been one a fallback took first: none are shared,
    // as each is checked against those taken before it.
    Ok(slots)
}

/// `costs[i * n + s]`: member `i`'s walking cost to slot `s` ([`NO_WAY`] where it has none).
fn walking_costs(grid: &NavGrid, starts: &[GridPos], slots: &[GridPos]) -> Vec<f64> {
    let mut costs = Vec::with_capacity(starts.len() * slots.len());
    for &start in starts {
        match reachable(grid, start, f64::INFINITY) {
            Ok(reach) => costs.extend(slots.iter().map(|&s| reach.cost(s).unwrap_or(NO_WAY))),
            Err(_) => costs.extend(slots.iter().map(|_| NO_WAY)),
        }
    }
    costs
}

/// `costs[i * n + s]`: the straight-line distance from member `i` to slot `s`.
fn estimated_costs(starts: &[GridPos], slots: &[GridPos]) -> Vec<f64> {
    let d = |a: GridPos, b: GridPos| {
        let (dx, dy) = (f64::from(a.x.abs_diff(b.x)), f64::from(a.y.abs_diff(b.y)));
        (dx * dx + dy * dy).sqrt()
    };
    starts.iter().flat_map(|&a| slots.iter().map(move |&b| d(a, b))).collect()
}

/// The assignment of `n` members to `n` slots of least total cost (`costs[i * n + s]`):
/// `result[i]` is member `i`'s slot. The Hungarian method with potentials, O(n³). A cost
/// that is NaN or infinite counts as "no way there" (a very large cost); with fewer than
/// `n * n` costs, members keep their own index.
pub fn best_assignment(costs: &[f64], n: usize) -> Vec<usize> {
    if n == 0 || costs.len() < n * n {
        return (0..n).collect();
    }
    // Rows are members, columns slots; index 0 stands for "none" (1-based below).
    let cost = |i: usize, j: usize| {
        let c = costs[(i - 1) * n + (j - 1)];
        if c.is_finite() { c.clamp(-NO_WAY, NO_WAY) } else { NO_WAY }
    };
    let (mut u, mut v) = (vec![0.0f64; n + 1], vec![0.0f64; n + 1]);
    let mut owner = vec![0usize; n + 1]; // owner[j]: the member holding slot j
    let mut way = vec![0usize; n + 1];
    for i in 1..=n {
        owner[0] = i;
        let mut j0 = 0;
        let mut least = vec![f64::INFINITY; n + 1];
        let mut used = vec![false; n + 1];
        loop {
            used[j0] = true;
            let i0 = owner[j0];
            let (mut delta, mut j1) = (f64::INFINITY, 0);
            for j in 1..=n {
                if used[j] {
                    continue;
                }
                let reduced = cost(i0, j) - u[i0] - v[j];
                if reduced < least[j] {
                    least[j] = reduced;
                    way[j] = j0;
                }
                if least[j] < delta {
                    delta = least[j];
                    j1 = j;
                }
            }
            for j in 0..=n {
                if used[j] {
                    u[owner[j]] += delta;
                    v[j] -= delta;
                } else {
                    least[j] -= delta;
                }
            }
            j0 = j1;
            if owner[j0] == 0 {
                break;
            }
        }
        // Walk the augmenting path back.
        loop {
            let j1 = way[j0];
            owner[j0] = owner[j1];
            j0 = j1;
            if j0 == 0 {
                break;
            }
        }
    }
    let mut slot_of = vec![0; n];
    for j in 1..=n {
        slot_of[owner[j] - 1] = j - 1;
    }
    slot_of
}

/// A large group's assignment: members and slots each put in ranks along the way from the
/// group to the goal (as many ranks as there are in a square of them), each rank in order
/// across it, and matched in that order: the front rank takes the front slots, left to left,
/// so that few paths cross.
fn sweep_assignment(starts: &[GridPos], slots: &[GridPos], goal: GridPos) -> Vec<usize> {
    let n = starts.len() as f64;
    let (cx, cy) = starts
        .iter()
        .fold((0.0, 0.0), |(x, y), p| (x + f64::from(p.x) / n, y + f64::from(p.y) / n));
    let (mut ax, mut ay) = (f64::from(goal.x) - cx, f64::from(goal.y) - cy);
    let len = (ax * ax + ay * ay).sqrt();
    (ax, ay) = if len > 1e-9 { (ax / len, ay / len) } else { (0.0, 1.0) };
    let across = |p: &GridPos| f64::from(p.x) * ay - f64::from(p.y) * ax;
    let along = |p: &GridPos| f64::from(p.x) * ax + f64::from(p.y) * ay;
    let rank = (n.sqrt().ceil() as usize).max(1);
    let ordered = |cells: &[GridPos]| {
        let mut order: Vec<usize> = (0..cells.len()).collect();
        order.sort_by(|&a, &b| along(&cells[b]).total_cmp(&along(&cells[a])));
        for chunk in order.chunks_mut(rank) {
            chunk.sort_by(|&a, &b| across(&cells[a]).total_cmp(&across(&cells[b])));
        }
        order
    };
    let mut slot_of = vec![0; starts.len()];
    for (m, s) in ordered(starts).into_iter().zip(ordered(slots)) {
        slot_of[m] = s;
    }
    slot_of
}
