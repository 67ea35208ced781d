//! Optimal path search on a [`NavGrid`]: A* with a binary-heap open list and per-cell state in
//! flat arrays that are reused from one query to the next.
//!
//! Plain Rust: no Bevy type appears here.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::f64::consts::SQRT_2;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::grid::{CornerRule, DIRECTIONS, GridPos, NavGrid, Neighborhood};

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
    /// Straight-line distance: admissible on both neighborhoods, weaker than the defaults.
    Euclidean,
    /// No estimate: the search becomes Dijkstra's algorithm.
    Zero,
}

impl Heuristic {
    /// The heuristic that is exact on an open grid of this neighborhood.
    pub fn default_for(neighborhood: Neighborhood) -> Self {
        match neighborhood {
            Neighborhood::Four => Heuristic::Manhattan,
            Neighborhood::Eight => Heuristic::Octile,
        }
    }

    /// The unscaled estimate for a cell `dx`, `dy` cells away from the goal.
    #[inline]
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
        }
    }
}

/// Caps on the work a search may do. A search that hits a cap fails with
/// [`PathError::LimitExceeded`] (or, with [`SearchOptions::partial`], returns the best partial
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
    pub limit: SearchLimit,
    /// When the goal cannot be reached (or a limit is hit), return the path to the reachable
    /// cell closest to the goal instead of an error. [`PathResult::complete`] tells which.
    pub partial: bool,
}

impl Default for SearchOptions {
    fn default() -> Self {
        Self { heuristic: None, weight: 1.0, limit: SearchLimit::default(), partial: false }
    }
}

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
    pub stats: SearchStats,
    /// False for a partial path (see [`SearchOptions::partial`]) that stops short of the goal.
    pub complete: bool,
}

impl PathResult {
    /// The last cell of the path: the goal when [`complete`](Self::complete).
    pub fn end(&self) -> GridPos {
        *self.cells.last().expect("a path has at least one cell")
    }
}

/// Why no path was returned.
#[derive(Clone, Debug, PartialEq)]
pub enum PathError {
    StartOutOfBounds {
        start: GridPos,
        width: u32,
        height: u32,
    },
    GoalOutOfBounds {
        goal: GridPos,
        width: u32,
        height: u32,
    },
    StartBlocked {
        start: GridPos,
    },
    GoalBlocked {
        goal: GridPos,
    },
    /// No sequence of legal steps leads from start to goal.
    Unreachable {
        start: GridPos,
        goal: GridPos,
    },
    /// The search stopped at a [`SearchLimit`] before finding a path.
    LimitExceeded {
        expanded: u32,
    },
    /// The weight is NaN, infinite or below 1.
    InvalidWeight {
        weight: f64,
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
        }
    }
}

impl std::error::Error for PathError {}

/// An open-list entry. Ordered so that `BinaryHeap` (a max-heap) pops the lowest `f` first,
/// and among equal `f` the highest `g` (the node nearest the goal), which cuts expansions on
/// open ground where many paths tie.
#[derive(Clone, Copy, Debug)]
struct OpenNode {
    /// The bits of `f` (never negative, so integer order is numeric order).
    f: u64,
    /// The bits of g as an `f32`: only breaks ties between equal `f`.
    g: u32,
    index: u32,
}

impl OpenNode {
    #[inline]
    fn new(f: f64, g: f64, index: usize) -> Self {
        Self { f: f.to_bits(), g: (g as f32).to_bits(), index: index as u32 }
    }
}

impl PartialEq for OpenNode {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for OpenNode {}

impl PartialOrd for OpenNode {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OpenNode {
    fn cmp(&self, other: &Self) -> Ordering {
        other.f.cmp(&self.f).then(self.g.cmp(&other.g))
    }
}

/// One cell's search state. Kept together so that a visit touches one cache line.
#[derive(Clone, Copy, Default)]
struct NodeState {
    g: f64,
    parent: u32,
    /// `generation * 2` when the cell has been seen this query, `generation * 2 + 1` once closed;
    /// anything else means untouched (its `g` and `parent` are stale).
    stamp: u32,
}

/// Per-cell search state, reused across queries. A cell's entries are valid only when its stamp
/// belongs to the current generation, so nothing is cleared between queries.
#[derive(Default)]
struct Scratch {
    generation: u32,
    nodes: Vec<NodeState>,
    open: BinaryHeap<OpenNode>,
}

impl Scratch {
    /// Makes room for `len` cells and starts a new generation.
    fn begin(&mut self, len: usize) {
        if self.nodes.len() != len {
            self.nodes.clear();
            self.nodes.resize(len, NodeState::default());
            self.generation = 0;
        }
        self.generation += 1;
        if self.generation >= u32::MAX / 2 {
            self.nodes.fill(NodeState::default());
            self.generation = 1;
        }
        self.open.clear();
    }
}

/// Finds paths on [`NavGrid`]s. Keep one and reuse it: its scratch memory is sized to the
/// largest grid searched and reused, so a query allocates only the path it returns.
///
/// ```
/// use bevy_tilemap_nav::grid::{Cell, GridPos, NavGrid};
/// use bevy_tilemap_nav::search::{Pathfinder, SearchOptions};
///
/// // A wall with a gap at the bottom.
/// let mut grid = NavGrid::new(5, 5).unwrap();
/// grid.fill_rect(GridPos::new(2, 0), GridPos::new(2, 3), Cell::Blocked).unwrap();
/// let mut pathfinder = Pathfinder::new();
/// let path = pathfinder
///     .find_path(&grid, GridPos::new(0, 0), GridPos::new(4, 0), &SearchOptions::default())
///     .unwrap();
/// assert_eq!(path.cells.first(), Some(&GridPos::new(0, 0)));
/// assert_eq!(path.end(), GridPos::new(4, 0));
/// assert!(path.cells.contains(&GridPos::new(2, 4)));
/// ```
#[derive(Default)]
pub struct Pathfinder {
    scratch: Scratch,
}

impl fmt::Debug for Pathfinder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pathfinder").field("cells", &self.scratch.nodes.len()).finish()
    }
}

impl Pathfinder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes of scratch memory held between queries.
    pub fn scratch_bytes(&self) -> usize {
        self.scratch.nodes.capacity() * std::mem::size_of::<NodeState>()
            + self.scratch.open.capacity() * std::mem::size_of::<OpenNode>()
    }

    /// The cheapest path from `start` to `goal` (or, with a weight above 1, one within that
    /// factor of the cheapest). Never panics: every bad input is a [`PathError`].
    pub fn find_path(
        &mut self,
        grid: &NavGrid,
        start: GridPos,
        goal: GridPos,
        options: &SearchOptions,
    ) -> Result<PathResult, PathError> {
        self.find_path_avoiding(grid, start, goal, options, &[])
    }

    /// Like [`find_path`](Self::find_path), treating the cells in `avoid` as blocked for this
    /// query only (other characters standing in the way, say). The start and goal are never
    /// avoided; cells outside the grid are ignored. Costs nothing per expansion: avoided cells are
    /// marked closed before the search begins.
    pub fn find_path_avoiding(
        &mut self,
        grid: &NavGrid,
        start: GridPos,
        goal: GridPos,
        options: &SearchOptions,
        avoid: &[GridPos],
    ) -> Result<PathResult, PathError> {
        let (width, height) = (grid.width(), grid.height());
        if !grid.in_bounds(start) {
            return Err(PathError::StartOutOfBounds { start, width, height });
        }
        if !grid.in_bounds(goal) {
            return Err(PathError::GoalOutOfBounds { goal, width, height });
        }
        if !grid.is_passable(start) {
            return Err(PathError::StartBlocked { start });
        }
        if !grid.is_passable(goal) {
            return Err(PathError::GoalBlocked { goal });
        }
        if !(options.weight.is_finite() && options.weight >= 1.0) {
            return Err(PathError::InvalidWeight { weight: options.weight });
        }
        if start == goal {
            return Ok(PathResult {
                cells: vec![start],
                cost: 0.0,
                stats: SearchStats::default(),
                complete: true,
            });
        }
        // Component labels answer "unreachable" without a search. A partial request still
        // searches, to find the closest cell it can reach.
        if !options.partial && !grid.connected(start, goal) {
            return Err(PathError::Unreachable { start, goal });
        }
        self.astar(grid, start, goal, options, avoid)
    }

    fn astar(
        &mut self,
        grid: &NavGrid,
        start: GridPos,
        goal: GridPos,
        options: &SearchOptions,
        avoid: &[GridPos],
    ) -> Result<PathResult, PathError> {
        let heuristic = options.heuristic.unwrap_or(Heuristic::default_for(grid.neighborhood()));
        let h_scale = options.weight * f64::from(grid.min_cost().unwrap_or(1));
        let max_expansions = options.limit.max_expansions.unwrap_or(u32::MAX);
        let max_cost = options.limit.max_cost.unwrap_or(f64::INFINITY);
        let costs = grid.padded_costs();
        let stride = grid.stride();
        let directions = match grid.neighborhood() {
            Neighborhood::Four => 4,
            Neighborhood::Eight => 8,
        };
        let mut offsets = [0isize; 8];
        for (offset, (dx, dy)) in offsets.iter_mut().zip(DIRECTIONS) {
            *offset = dx + dy * stride as isize;
        }
        let cut_corners = grid.corner_rule() == CornerRule::CutCorners;
        // Padded coordinates of the goal; a cell's padded coordinates are (i % stride, i / stride).
        let (gx, gy) = (goal.x as isize + 1, goal.y as isize + 1);
        let h = |x: isize, y: isize| -> f64 {
            h_scale * heuristic.distance(x.abs_diff(gx) as u32, y.abs_diff(gy) as u32)
        };
        // For partial paths: the expanded cell closest to the goal (octile distance, then cost).
        let closeness = |x: isize, y: isize| -> f64 {
            Heuristic::Octile.distance(x.abs_diff(gx) as u32, y.abs_diff(gy) as u32)
        };

        let s = &mut self.scratch;
        s.begin(grid.padded_len());
        let gen_seen = s.generation * 2;
        let gen_closed = gen_seen + 1;
        let nodes = &mut s.nodes;
        let start_i = grid.index(start);
        let goal_i = grid.index(goal);
        for &cell in avoid {
            if grid.in_bounds(cell) && cell != start && cell != goal {
                nodes[grid.index(cell)].stamp = gen_closed;
            }
        }
        nodes[start_i] = NodeState { g: 0.0, parent: start_i as u32, stamp: gen_seen };
        let (sx, sy) = (start.x as isize + 1, start.y as isize + 1);
        s.open.push(OpenNode::new(h(sx, sy), 0.0, start_i));
        let mut stats = SearchStats { expanded: 0, pushed: 1 };
        let mut best = (closeness(sx, sy), 0.0, start_i);
        let mut pruned = false;
        let mut stopped_at_limit = false;

        while let Some(node) = s.open.pop() {
            let i = node.index as usize;
            let state = nodes[i];
            if state.stamp == gen_closed {
                continue; // stale entry: already expanded with a lower g
            }
            if i == goal_i {
                return Ok(finish(grid, nodes, start_i, i, stats, true));
            }
            if stats.expanded >= max_expansions {
                stopped_at_limit = true;
                break;
            }
            nodes[i].stamp = gen_closed;
            stats.expanded += 1;
            let g_here = state.g;
            let (x, y) = ((i % stride) as isize, (i / stride) as isize);
            if options.partial {
                let close = closeness(x, y);
                if close < best.0 || (close == best.0 && g_here < best.1) {
                    best = (close, g_here, i);
                }
            }
            for d in 0..directions {
                let j = (i as isize + offsets[d]) as usize;
                let cost = costs[j];
                if cost == 0 {
                    continue;
                }
                let (dx, dy) = DIRECTIONS[d];
                let step = if d < 4 {
                    1.0
                } else {
                    let side_a = costs[(i as isize + dx) as usize] != 0;
                    let side_b = costs[(i as isize + dy * stride as isize) as usize] != 0;
                    let ok = if cut_corners { side_a || side_b } else { side_a && side_b };
                    if !ok {
                        continue;
                    }
                    SQRT_2
                };
                let g = g_here + step * f64::from(cost);
                let next = &mut nodes[j];
                if next.stamp == gen_closed || (next.stamp == gen_seen && g >= next.g) {
                    continue;
                }
                if g > max_cost {
                    pruned = true;
                    continue;
                }
                *next = NodeState { g, parent: i as u32, stamp: gen_seen };
                s.open.push(OpenNode::new(g + h(x + dx, y + dy), g, j));
                stats.pushed += 1;
            }
        }
        if options.partial {
            return Ok(finish(grid, nodes, start_i, best.2, stats, false));
        }
        if stopped_at_limit || pruned {
            Err(PathError::LimitExceeded { expanded: stats.expanded })
        } else {
            Err(PathError::Unreachable { start, goal })
        }
    }
}

/// Walks parents back from `end` and totals the cost exactly: straight and diagonal steps are
/// summed as integers, then combined.
fn finish(
    grid: &NavGrid,
    nodes: &[NodeState],
    start_i: usize,
    end_i: usize,
    stats: SearchStats,
    complete: bool,
) -> PathResult {
    let costs = grid.padded_costs();
    let stride = grid.stride();
    let mut cells = Vec::new();
    let (mut straight, mut diagonal) = (0u64, 0u64);
    let mut i = end_i;
    loop {
        let (x, y) = grid.unpad(i);
        cells.push(GridPos::new(x, y));
        if i == start_i {
            break;
        }
        let p = nodes[i].parent as usize;
        let is_diagonal = (i % stride != p % stride) && (i / stride != p / stride);
        if is_diagonal {
            diagonal += u64::from(costs[i]);
        } else {
            straight += u64::from(costs[i]);
        }
        i = p;
    }
    cells.reverse();
    PathResult { cells, cost: straight as f64 + diagonal as f64 * SQRT_2, stats, complete }
}

/// Cost of a path given cell by cell under the grid's rules, or `None` if some step is not a
/// legal move (off the grid, into a wall, too long, or across a forbidden corner).
pub fn path_cost(grid: &NavGrid, cells: &[GridPos]) -> Option<f64> {
    let first = *cells.first()?;
    if !grid.is_passable(first) {
        return None;
    }
    let mut total = 0.0;
    for pair in cells.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let step = grid.neighbors(a).find(|&(n, _)| n == b)?;
        total += step.1;
    }
    Some(total)
}
