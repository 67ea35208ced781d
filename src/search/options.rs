//! What a query asks for: the heuristic, the algorithm, limits on the work, partial paths.

use std::f64::consts::SQRT_2;

use serde::{Deserialize, Serialize};

use crate::grid::{GridPos, HexCoords, Neighborhood};

/// The estimate of the remaining cost that guides A*.
///
/// Every heuristic is multiplied by the grid's smallest passable cost, so that on a grid whose
/// cheapest ground costs more than 1 it still never overestimates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Heuristic {
    /// max(dx, dy) + (sqrt(2) - 1) min(dx, dy): exact on an open 8-way grid. Default for 8-way.
    Octile,
    /// dx + dy: exact on an open 4-way grid. Default for 4-way. Overestimates on 8-way grids
    /// (paths may then be suboptimal).
    Manhattan,
    /// Straight-line distance (between hexagon centres on a hex grid): admissible on every
    /// neighborhood, weaker than the defaults.
    Euclidean,
    /// No estimate: the search becomes Dijkstra's algorithm.
    Zero,
    /// The number of steps on an open hex grid ([`HexCoords::distance`](crate::grid::HexCoords::distance)): exact there, and the
    /// default for hex grids. On a square grid it is max(dx, dy), a lower bound.
    Hex,
}

impl Heuristic {
    /// The heuristic that is exact on an open grid of this neighborhood.
    pub fn default_for(neighborhood: Neighborhood) -> Self {
        match neighborhood {
            Neighborhood::Four => Heuristic::Manhattan,
            Neighborhood::Eight => Heuristic::Octile,
            Neighborhood::Hex(_) => Heuristic::Hex,
        }
    }

    /// Whether the estimate never drops by more than a step costs (so that A* never reopens a
    /// cell) on a grid of this neighborhood. Manhattan on 8-way grids, and the square-grid
    /// estimates read on a hex grid's coordinates, are not.
    pub fn is_consistent_on(self, neighborhood: Neighborhood) -> bool {
        !matches!(
            (self, neighborhood),
            (Heuristic::Manhattan, Neighborhood::Eight)
                | (Heuristic::Manhattan | Heuristic::Octile, Neighborhood::Hex(_))
        )
    }

    /// The unscaled estimate between two cells of a grid of this neighborhood.
    // (Always inlined, hexagonal grids apart: searches call it for every cell they push, some
    // many times over, and the compiler's choice to inline it or not has swung them by a
    // third.)
    #[inline(always)]
    pub fn estimate(self, neighborhood: Neighborhood, a: GridPos, b: GridPos) -> f64 {
        match neighborhood {
            Neighborhood::Hex(coords) => self.estimate_hex(coords, a, b),
            _ => self.distance(a.x.abs_diff(b.x), a.y.abs_diff(b.y)),
        }
    }

    /// [`estimate`](Self::estimate) on a hexagonal grid of `coords`.
    #[inline(never)]
    fn estimate_hex(self, coords: HexCoords, a: GridPos, b: GridPos) -> f64 {
        match self {
            Heuristic::Hex => f64::from(coords.distance(a, b)),
            Heuristic::Euclidean => {
                let (ax, ay) = coords.unit_center(i64::from(a.x), i64::from(a.y));
                let (bx, by) = coords.unit_center(i64::from(b.x), i64::from(b.y));
                ((ax - bx) * (ax - bx) + (ay - by) * (ay - by)).sqrt()
            }
            _ => self.distance(a.x.abs_diff(b.x), a.y.abs_diff(b.y)),
        }
    }

    /// The unscaled estimate for a cell `dx`, `dy` cells away from the goal on a square grid
    /// (see [`estimate`](Self::estimate) for any grid).
    #[inline(always)]
    pub fn distance(self, dx: u32, dy: u32) -> f64 {
        let (dx, dy) = (f64::from(dx), f64::from(dy));
        match self {
            Heuristic::Octile => {
                let (long, short) = if dx > dy { (dx, dy) } else { (dy, dx) };
                long + (SQRT_2 - 1.0) * short
            }
            Heuristic::Manhattan => dx + dy,
            Heuristic::Euclidean => (dx * dx + dy * dy).sqrt(),
            Heuristic::Zero => 0.0,
            Heuristic::Hex => dx.max(dy),
        }
    }
}

/// Caps on the work a search may do. A search that hits a cap fails with
/// [`PathError::LimitExceeded`](super::PathError::LimitExceeded) (or, with [`SearchOptions::partial`], returns the best partial
/// path found).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SearchLimit {
    /// Stop after expanding this many cells.
    pub max_expansions: Option<u32>,
    /// Ignore every path that costs more than this.
    pub max_cost: Option<f64>,
}

/// How one search runs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchOptions {
    /// `None`: the grid neighborhood's default ([`Heuristic::default_for`]).
    pub heuristic: Option<Heuristic>,
    /// Weighted A*: the heuristic is multiplied by `weight` (>= 1). The path found then costs
    /// at most `weight` x the optimum, usually after far fewer expansions. 1 = optimal.
    pub weight: f64,
    /// Caps on the work and on the cost (none by default).
    pub limit: SearchLimit,
    /// When the goal cannot be reached (or a limit is hit), return the path to the reachable
    /// cell closest to the goal instead of an error. [`PathResult::complete`](super::PathResult::complete) tells which.
    pub partial: bool,
    /// Plain A* or jump point search; `Auto` picks jump point search wherever it is valid and
    /// pays.
    #[serde(default)]
    pub algorithm: Algorithm,
}

/// Which search runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Algorithm {
    /// Jump point search where it gives optimal paths (8-way, no corner cutting, no partial
    /// path asked for) and pays: on terrain costs, while at most a quarter of the open cells lie
    /// on the edge of a cost change. Plain A* otherwise.
    #[default]
    Auto,
    /// Plain A*, always.
    AStar,
    /// Jump point search; [`PathError::JumpPointUnsupported`](super::PathError::JumpPointUnsupported) where it is not valid.
    JumpPoint,
    /// Theta* (Nash, Daniel, Koenig and Felner 2007), an any-angle search: a cell's parent may be
    /// any earlier cell in line of sight, so paths run straight across open floor at any angle.
    /// Segments follow the rules of [`crate::grid::line::segment_cost`] (clear of walls and
    /// forbidden corners, priced at length x highest cost entered). Not guaranteed optimal.
    /// Its default heuristic is Euclidean.
    ThetaStar,
}

impl Default for SearchOptions {
    fn default() -> Self {
        Self {
            heuristic: None,
            weight: 1.0,
            limit: SearchLimit::default(),
            partial: false,
            algorithm: Algorithm::Auto,
        }
    }
}
