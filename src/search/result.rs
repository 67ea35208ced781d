//! What a query answers: the path and its cost, or why there is none; and the recording of a
//! search, step by step.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::grid::{GridPos, Neighborhood};

/// What a search did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchStats {
    /// Cells taken off the open list and expanded.
    pub expanded: u32,
    /// Entries pushed onto the open list.
    pub pushed: u32,
}

/// A path found by a search.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PathResult {
    /// Every cell from the start to the end, both included; consecutive cells are one legal step
    /// apart.
    pub cells: Vec<GridPos>,
    /// Total cost: the sum over steps of step length (1 or sqrt(2)) x cost of the cell entered.
    pub cost: f64,
    /// What the search did to find it.
    pub stats: SearchStats,
    /// False for a partial path (see [`SearchOptions::partial`](super::SearchOptions::partial)) that stops short of the goal.
    pub complete: bool,
    /// The moves of the grid it was found on (what a straight line is, for
    /// [`waypoints`](Self::waypoints)).
    #[serde(default)]
    pub neighborhood: Neighborhood,
}

impl PathResult {
    /// The last cell of the path: the goal when [`complete`](Self::complete).
    pub fn end(&self) -> GridPos {
        *self.cells.last().expect("a path has at least one cell")
    }

    /// The turning points: the start, every cell where the direction of travel changes, and the
    /// end. Walking straight from one to the next retraces the path exactly.
    ///
    /// ```
    /// use bevy_tilemap_nav::prelude::*;
    ///
    /// let grid = NavGrid::new(6, 3).unwrap();
    /// let path = Pathfinder::new()
    ///     .find(&grid, &PathQuery::new(GridPos::new(0, 0), GridPos::new(5, 2)))
    ///     .unwrap();
    /// // Two diagonal steps and three straight ones (or the other way round): one turn.
    /// assert_eq!(path.waypoints().len(), 3);
    /// ```
    pub fn waypoints(&self) -> Vec<GridPos> {
        turning_points(self.neighborhood, &self.cells)
    }
}

/// `Ok` when `fits` (the check of `value`, false for NaN), else [`PathError::InvalidNumber`].
pub(crate) fn check_number(
    what: &'static str,
    value: f64,
    fits: bool,
    range: &'static str,
) -> Result<(), PathError> {
    match fits {
        true => Ok(()),
        false => Err(PathError::InvalidNumber { what, value, range }),
    }
}

/// Why no path was returned.
#[derive(Clone, Debug, PartialEq)]
pub enum PathError {
    /// The start is not a cell of the grid.
    StartOutOfBounds {
        /// The start asked for.
        start: GridPos,
        /// The grid's width.
        width: u32,
        /// The grid's height.
        height: u32,
    },
    /// The goal is not a cell of the grid.
    GoalOutOfBounds {
        /// The goal asked for.
        goal: GridPos,
        /// The grid's width.
        width: u32,
        /// The grid's height.
        height: u32,
    },
    /// The start is a wall (for this search: a wall, or a cell the agent may not enter).
    StartBlocked {
        /// The start asked for.
        start: GridPos,
    },
    /// The goal is a wall.
    GoalBlocked {
        /// The goal asked for.
        goal: GridPos,
    },
    /// No sequence of legal steps leads from start to goal.
    Unreachable {
        /// The start asked for.
        start: GridPos,
        /// The goal asked for.
        goal: GridPos,
    },
    /// The search stopped at a [`SearchLimit`](super::SearchLimit) before finding a path.
    LimitExceeded {
        /// Cells expanded when it stopped.
        expanded: u32,
    },
    /// The weight is NaN, infinite or below 1.
    InvalidWeight {
        /// The weight given.
        weight: f64,
    },
    /// The cost limit is NaN or negative.
    InvalidCostLimit {
        /// The limit given.
        max_cost: f64,
    },
    /// A number given that cannot give a useful answer: NaN, infinite, or outside the range it
    /// must lie in. Every number the crate takes is checked where it is given.
    InvalidNumber {
        /// What it was for ("flee weight", "keep", ...).
        what: &'static str,
        /// The number given.
        value: f64,
        /// The numbers taken, in words.
        range: &'static str,
    },
    /// [`Algorithm::JumpPoint`](super::Algorithm::JumpPoint) was asked for on a grid where it would not be optimal (not 8-way
    /// without corner cutting), or with a partial path.
    JumpPointUnsupported,
    /// [`Pathfinder::resume`](super::Pathfinder::resume) with no search paused, or with
    /// another query than the paused one.
    NothingToResume,
    /// [`Pathfinder::resume`](super::Pathfinder::resume) on a grid other than the one the
    /// search began on, or on the same grid after it changed (or without the landmarks it began
    /// with): the search's state no longer fits it. Start again.
    GridChanged,
    /// A search for the nearest of several goals was given none.
    NoGoals,
    /// A linked search named a grid it was not given (an index past the end of its maps).
    NoSuchMap {
        /// The grid's number.
        map: usize,
    },
    /// A link of a linked search has a cost that is NaN, infinite or negative, or a cell off
    /// its grid (or on a grid it was not given).
    InvalidLink {
        /// The link's place in the list of links given.
        link: usize,
    },
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathError::StartOutOfBounds { start, width, height } => {
                write!(f, "start {start} is outside the {width} x {height} grid")
            }
            PathError::GoalOutOfBounds { goal, width, height } => {
                write!(f, "goal {goal} is outside the {width} x {height} grid")
            }
            PathError::StartBlocked { start } => write!(f, "start {start} is blocked"),
            PathError::GoalBlocked { goal } => write!(f, "goal {goal} is blocked"),
            PathError::Unreachable { start, goal } => {
                write!(f, "no path leads from {start} to {goal}")
            }
            PathError::LimitExceeded { expanded } => {
                write!(f, "search limit reached after expanding {expanded} cells")
            }
            PathError::InvalidWeight { weight } => {
                write!(f, "heuristic weight must be a finite number >= 1, got {weight}")
            }
            PathError::InvalidCostLimit { max_cost } => {
                write!(f, "the cost limit must be a number >= 0, got {max_cost}")
            }
            PathError::InvalidNumber { what, value, range } => {
                write!(f, "the {what} must be {range}, got {value}")
            }
            PathError::JumpPointUnsupported => write!(
                f,
                "jump point search needs an 8-way grid without corner cutting, and no partial path"
            ),
            PathError::NothingToResume => write!(f, "no search is paused"),
            PathError::GridChanged => {
                write!(f, "the grid changed since the paused search began; start it again")
            }
            PathError::NoSuchMap { map } => write!(f, "there is no map {map}"),
            PathError::NoGoals => write!(f, "a search for the nearest goal was given no goals"),
            PathError::InvalidLink { link } => write!(
                f,
                "link {link} has a cost that is not a finite number >= 0, or a cell off its map"
            ),
        }
    }
}

impl std::error::Error for PathError {}

/// A recording of one search, to watch it step by step: the cells in the order they were
/// expanded (closed), and each cell put on the open list with how many expansions had been done
/// by then.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchTrace {
    /// The cells expanded, in order.
    pub expanded: Vec<GridPos>,
    /// Each cell put on the open list, with how many expansions had been done then.
    pub opened: Vec<(u32, GridPos)>,
}

impl SearchTrace {
    /// The closed and open cells after the first `step` expansions.
    pub fn at_step(&self, step: usize) -> (Vec<GridPos>, Vec<GridPos>) {
        let step = step.min(self.expanded.len());
        let closed: Vec<GridPos> = self.expanded[..step].to_vec();
        let done: std::collections::HashSet<GridPos> = closed.iter().copied().collect();
        let mut seen = std::collections::HashSet::new();
        let open = self
            .opened
            .iter()
            .filter(|(at, cell)| {
                (*at as usize) <= step && !done.contains(cell) && seen.insert(*cell)
            })
            .map(|(_, cell)| *cell)
            .collect();
        (closed, open)
    }
}

/// The cells of `cells` where the direction of travel changes on a grid of `neighborhood`,
/// with the first and last cell.
pub fn turning_points(neighborhood: Neighborhood, cells: &[GridPos]) -> Vec<GridPos> {
    let direction = |a: GridPos, b: GridPos| {
        let (ax, ay, bx, by) = (i64::from(a.x), i64::from(a.y), i64::from(b.x), i64::from(b.y));
        match neighborhood {
            // In offset coordinates a straight line of hexagons zig-zags; in axial ones it
            // keeps one step.
            Neighborhood::Hex(coords) => {
                let ((aq, ar), (bq, br)) = (coords.to_axial(ax, ay), coords.to_axial(bx, by));
                ((bq - aq).signum(), (br - ar).signum())
            }
            _ => ((bx - ax).signum(), (by - ay).signum()),
        }
    };
    let mut points: Vec<GridPos> = cells.first().copied().into_iter().collect();
    for w in cells.windows(3) {
        if direction(w[0], w[1]) != direction(w[1], w[2]) {
            points.push(w[1]);
        }
    }
    if cells.len() > 1 {
        points.extend(cells.last());
    }
    points
}
