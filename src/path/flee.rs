//! Fleeing: where to run from threats within a cost budget, preferring ground the agent can go
//! on running across to the far end of a dead end (the roguelike "safety map": the distance
//! from the threats, scaled by a negative factor, searched again).

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

use super::reach::{ReachSearch, reachable_avoiding};
use crate::grid::{GridPos, NavGrid};
use crate::search::check_number;
use crate::search::{MAX_FLEE_WEIGHT, PathError, PathResult};

/// How [`flee`] weighs distance against room to run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FleeOptions {
    /// The most the flight may cost (as a path's cost: 1 a straight step on cost-1 ground).
    pub budget: f64,
    /// The end is at least this share (0 to 1) of the farthest distance from the threats that
    /// any cell within the budget has. Among those cells the one with the most room to run on
    /// is taken. 1: the farthest cell, dead end or not.
    pub keep: f64,
    /// How much a step farther from the threats is worth against a step walked (above 1): the
    /// safety map's factor. Higher values favour open ground that leads on more strongly.
    pub lure: f64,
}

impl FleeOptions {
    /// A flight of at most `budget`, keeping 0.8 of the best distance, lure 1.5.
    pub fn new(budget: f64) -> Self {
        Self { budget, keep: 0.8, lure: 1.5 }
    }

    /// `Ok` when every number can give an answer: `budget` a number of at least 0 (infinite
    /// is the whole map), `keep` from 0 to 1, `lure` above 0 and at most
    /// [`MAX_FLEE_WEIGHT`]; else the first that cannot
    /// ([`PathError::InvalidCostLimit`] for the budget, [`PathError::InvalidNumber`]).
    /// [`flee`] checks them before it looks at the grid.
    pub fn check(&self) -> Result<(), PathError> {
        if self.budget.is_nan() || self.budget < 0.0 {
            return Err(PathError::InvalidCostLimit { max_cost: self.budget });
        }
        check_number("keep", self.keep, (0.0..=1.0).contains(&self.keep), "from 0 to 1")?;
        let lure = self.lure > 0.0 && self.lure <= MAX_FLEE_WEIGHT;
        check_number("lure", self.lure, lure, "above 0 and at most 1e6")
    }
}

/// A path for an agent at `start` that runs from `threats` (cells of the same grid): it ends
/// on a cell within `options.budget` of the start whose distance from the nearest threat (the
/// cheapest path's cost from it) is at least `options.keep` times the greatest such distance
/// of any cell within the budget. Among those cells it picks the one from which the agent
/// could go on getting farther, looking as far again as the budget, so that a corridor into
/// open ground wins over a dead end.
///
/// The walk is a cheapest path from `start` to that end, within the budget, under the grid's
/// rules. Threats off the grid or on blocked cells are left out. With none left, or none that
/// can reach the start within what the budget could matter for, the agent is safe: the
/// one-cell path of the start.
///
/// Errors: options that cannot give an answer ([`FleeOptions::check`]); the start off the grid
/// or blocked.
///
/// [`flee_avoiding`] runs round cells it must not enter (other characters).
///
/// ```
/// use bevy_tilemap_nav::grid::{GridPos, NavGrid, Neighborhood};
/// use bevy_tilemap_nav::path::{FleeOptions, flee};
///
/// let grid = NavGrid::new(20, 1).unwrap().with_neighborhood(Neighborhood::Four);
/// let run = flee(&grid, GridPos::new(8, 0), &[GridPos::new(6, 0)], FleeOptions::new(5.0)).unwrap();
/// assert_eq!(run.end(), GridPos::new(13, 0)); // five steps away from the threat
/// ```
pub fn flee(
    grid: &NavGrid,
    start: GridPos,
    threats: &[GridPos],
    options: FleeOptions,
) -> Result<PathResult, PathError> {
    flee_avoiding(grid, start, threats, options, &[])
}

/// [`flee`] that neither ends on nor walks through the cells of `avoid` (the distances from
/// the threats are measured through them: a threat is not held up by them).
pub fn flee_avoiding(
    grid: &NavGrid,
    start: GridPos,
    threats: &[GridPos],
    options: FleeOptions,
    avoid: &[GridPos],
) -> Result<PathResult, PathError> {
    options.check()?;
    let budget = options.budget;
    let near = reachable_avoiding(grid, start, budget, avoid)?;
    let stay = |expanded: usize| near.walk_to(grid, start, expanded);
    let threats: Vec<GridPos> = threats.iter().copied().filter(|&t| grid.is_passable(t)).collect();
    let Ok(mut from_threats) = ReachSearch::from_any(grid, &threats, f64::INFINITY) else {
        return Ok(stay(near.cells().len()));
    };
    // From the threats as far as any cell within twice the budget of the start can be: the
    // start's own distance, plus twice the budget (no nearer cell matters).
    let mut horizon = f64::INFINITY;
    let away = loop {
        if from_threats.frontier().is_none_or(|f| f > horizon) {
            break from_threats.into_settled();
        }
        if let Some(done) = from_threats.step(grid, 256) {
            break done?; // every cell the threats reach, settled
        }
        if horizon.is_infinite()
            && let Some(d) = from_threats.settled_cost(start)
        {
            horizon = d + 2.0 * budget;
        }
    };
    let Some(at_start) = away.cost(start) else {
        return Ok(stay(near.cells().len() + away.cells().len()));
    };
    // The safety map over the ground within twice the budget: each cell's worth is -lure times
    // its distance, then lowered to what a cell it can walk to is worth plus the walk there.
    let ground = reachable_avoiding(grid, start, 2.0 * budget, avoid)?;
    let distance = |pos: GridPos| away.cost(pos).unwrap_or(horizon.max(at_start + 2.0 * budget));
    let mut worth: HashMap<GridPos, f64> = HashMap::with_capacity(ground.cells().len());
    let mut open = BinaryHeap::with_capacity(ground.cells().len());
    for cell in ground.cells() {
        let w = -options.lure * distance(cell.pos);
        worth.insert(cell.pos, w);
        open.push(Least(w, cell.pos));
    }
    while let Some(Least(w, pos)) = open.pop() {
        if worth.get(&pos).is_some_and(|&best| w > best) {
            continue;
        }
        for (before, step) in grid.predecessors(pos) {
            let Some(&known) = worth.get(&before) else {
                continue; // outside the ground looked at
            };
            if w + step < known {
                worth.insert(before, w + step);
                open.push(Least(w + step, before));
            }
        }
    }
    let farthest = near.cells().iter().map(|c| distance(c.pos)).fold(f64::MIN, f64::max);
    let floor = options.keep * farthest;
    let end = near
        .cells()
        .iter()
        .filter(|c| distance(c.pos) >= floor)
        .min_by(|a, b| {
            let (wa, wb) = (worth[&a.pos], worth[&b.pos]);
            wa.total_cmp(&wb)
                .then(distance(b.pos).total_cmp(&distance(a.pos)))
                .then(a.cost.total_cmp(&b.cost))
        })
        .map_or(start, |c| c.pos);
    let expanded = near.cells().len() + away.cells().len() + ground.cells().len();
    Ok(near.walk_to(grid, end, expanded))
}

/// An entry of the safety map's open list: the least worth first.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Least(f64, GridPos);

impl Eq for Least {}

impl PartialOrd for Least {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Least {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.total_cmp(&self.0)
    }
}
