//! The cheapest path to whichever of several goals is cheapest to reach (the closest exit, the
//! nearest well): one A* search whose estimate is the least over the goals.

use std::collections::BinaryHeap;

use super::astar::{NodeState, OpenNode, finish};
use super::options::{Heuristic, SearchOptions};
use super::pathfinder::Pathfinder;
use super::result::{PathError, PathResult, SearchStats};
use crate::grid::{GridPos, NavGrid};

/// Up to this many goals the search is guided by the least estimate over them; past it the
/// estimate would cost more than it saves, and the search runs as Dijkstra's.
const GUIDED_GOALS: usize = 32;

impl Pathfinder {
    /// The cheapest path from `start` to any cell of `goals`, in one search: it ends at the goal
    /// that is cheapest to reach (the first of equally cheap ones that the search meets).
    /// Blocked goals are passed over. From `options` it takes the heuristic, the weight and the
    /// limits; it always expands cell by cell (never jump point search), and a partial path is
    /// not offered.
    ///
    /// Errors: no goals ([`PathError::NoGoals`]); the start or a goal off the grid; the start
    /// blocked; every goal blocked ([`PathError::GoalBlocked`] for the first); none connected
    /// to the start ([`PathError::Unreachable`], at once, from the component labels).
    ///
    /// ```
    /// use bevy_tilemap_nav::grid::{Cell, GridPos, NavGrid};
    /// use bevy_tilemap_nav::search::{Pathfinder, SearchOptions};
    ///
    /// let mut grid = NavGrid::new(10, 3).unwrap();
    /// grid.fill_rect(GridPos::new(2, 0), GridPos::new(2, 1), Cell::Blocked).unwrap();
    /// let exits = [GridPos::new(0, 0), GridPos::new(9, 0)];
    /// let path = Pathfinder::new()
    ///     .find_nearest_path(&grid, GridPos::new(3, 0), &exits, &SearchOptions::default())
    ///     .unwrap();
    /// // (0, 0) is 3 away as the crow flies, but round the wall; (9, 0) is 6 steps straight.
    /// assert_eq!(path.end(), GridPos::new(9, 0));
    /// assert_eq!(path.cost, 6.0);
    /// ```
    pub fn find_nearest_path(
        &mut self,
        grid: &NavGrid,
        start: GridPos,
        goals: &[GridPos],
        options: &SearchOptions,
    ) -> Result<PathResult, PathError> {
        self.paused = None;
        let (width, height) = (grid.width(), grid.height());
        if !grid.in_bounds(start) {
            return Err(PathError::StartOutOfBounds { start, width, height });
        }
        if let Some(&goal) = goals.iter().find(|&&g| !grid.in_bounds(g)) {
            return Err(PathError::GoalOutOfBounds { goal, width, height });
        }
        if !grid.is_passable(start) {
            return Err(PathError::StartBlocked { start });
        }
        if !(options.weight.is_finite() && options.weight >= 1.0) {
            return Err(PathError::InvalidWeight { weight: options.weight });
        }
        if let Some(max_cost) = options.limit.max_cost
            && (max_cost.is_nan() || max_cost < 0.0)
        {
            return Err(PathError::InvalidCostLimit { max_cost });
        }
        let first = *goals.first().ok_or(PathError::NoGoals)?;
        let mut open_goals: Vec<GridPos> =
            goals.iter().copied().filter(|&g| grid.is_passable(g)).collect();
        if open_goals.is_empty() {
            return Err(PathError::GoalBlocked { goal: first });
        }
        open_goals.retain(|&g| grid.connected(start, g));
        let Some(&reachable) = open_goals.first() else {
            let goal = goals.iter().copied().find(|&g| grid.is_passable(g)).unwrap_or(first);
            return Err(PathError::Unreachable { start, goal });
        };
        let mut goal_cells: Vec<usize> = open_goals.iter().map(|&g| grid.index(g)).collect();
        goal_cells.sort_unstable();
        goal_cells.dedup();

        let neighborhood = grid.neighborhood();
        let heuristic = options.heuristic.unwrap_or(Heuristic::default_for(neighborhood));
        let h_scale = options.weight * f64::from(grid.min_cost().unwrap_or(1));
        let guided = (goal_cells.len() <= GUIDED_GOALS).then_some(&open_goals);
        let h = |pos: GridPos| -> f64 {
            guided.map_or(0.0, |goals| {
                goals
                    .iter()
                    .map(|&g| heuristic.estimate(neighborhood, pos, g))
                    .fold(f64::INFINITY, f64::min)
                    * h_scale
            })
        };
        let max_expansions = options.limit.max_expansions.unwrap_or(u32::MAX);
        let max_cost = options.limit.max_cost.unwrap_or(f64::INFINITY);

        let s = &mut self.scratch;
        s.begin(grid.padded_len());
        let (seen, closed) = (s.generation * 2, s.generation * 2 + 1);
        let nodes = &mut s.nodes;
        let open: &mut BinaryHeap<OpenNode> = &mut s.open;
        let start_i = grid.index(start);
        nodes[start_i] = NodeState { g: 0.0, parent: start_i as u32, stamp: seen };
        open.push(OpenNode::new(h(start), 0.0, start_i));
        let mut stats = SearchStats { expanded: 0, pushed: 1 };
        let mut limited = false;
        while let Some(node) = open.pop() {
            let i = node.index as usize;
            let state = nodes[i];
            if state.stamp == closed {
                continue;
            }
            if goal_cells.binary_search(&i).is_ok() {
                return Ok(finish(grid, nodes, start_i, i, stats, true, false));
            }
            if stats.expanded >= max_expansions {
                limited = true;
                break;
            }
            nodes[i].stamp = closed;
            stats.expanded += 1;
            let (x, y) = grid.unpad(i);
            for (next, step) in grid.neighbors(GridPos::new(x, y)) {
                let j = grid.index(next);
                let g = state.g + step;
                let entry = &mut nodes[j];
                if entry.stamp == closed || (entry.stamp == seen && g >= entry.g) {
                    continue;
                }
                if g > max_cost {
                    limited = true;
                    continue;
                }
                *entry = NodeState { g, parent: i as u32, stamp: seen };
                open.push(OpenNode::new(g + h(next), g, j));
                stats.pushed += 1;
            }
        }
        Err(if limited {
            PathError::LimitExceeded { expanded: stats.expanded }
        } else {
            PathError::Unreachable { start, goal: reachable }
        })
    }
}
