//! Optimal path search on a [`NavGrid`]: A* with a binary-heap open list and per-cell state in
//! flat arrays that are reused from one query to the next.
//!
//! Plain Rust: no Bevy type appears here.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::f64::consts::SQRT_2;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::avoided::Avoided;
use crate::grid::{
    CornerRule, DIRECTIONS, GridPos, GridStamp, HexCoords, NavGrid, Neighborhood, OPEN,
};
use crate::smooth::{segment_cells, segment_cost};

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
    /// The number of steps on an open hex grid ([`HexCoords::distance`]): exact there, and the
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
        match (self, neighborhood) {
            (Heuristic::Manhattan, Neighborhood::Eight) => false,
            (Heuristic::Manhattan | Heuristic::Octile, Neighborhood::Hex(_)) => false,
            _ => true,
        }
    }

    /// The unscaled estimate between two cells of a grid of this neighborhood.
    #[inline]
    pub fn estimate(self, neighborhood: Neighborhood, a: GridPos, b: GridPos) -> f64 {
        match (self, neighborhood) {
            (Heuristic::Hex, Neighborhood::Hex(coords)) => f64::from(coords.distance(a, b)),
            (Heuristic::Euclidean, Neighborhood::Hex(coords)) => {
                let (ax, ay) = coords.unit_center(i64::from(a.x), i64::from(a.y));
                let (bx, by) = coords.unit_center(i64::from(b.x), i64::from(b.y));
                ((ax - bx) * (ax - bx) + (ay - by) * (ay - by)).sqrt()
            }
            _ => self.distance(a.x.abs_diff(b.x), a.y.abs_diff(b.y)),
        }
    }

    /// The unscaled estimate for a cell `dx`, `dy` cells away from the goal on a square grid
    /// (see [`estimate`](Self::estimate) for any grid).
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
            Heuristic::Hex => dx.max(dy),
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
    /// Plain A* or jump point search; `Auto` picks jump point search wherever it is valid.
    #[serde(default)]
    pub algorithm: Algorithm,
}

/// Which search runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Algorithm {
    /// Jump point search where it gives optimal paths (8-way, no corner cutting, every passable
    /// cell the same cost, no partial path or avoided cells asked for); plain A* otherwise.
    #[default]
    Auto,
    /// Plain A*, always.
    AStar,
    /// Jump point search; [`PathError::JumpPointUnsupported`] where it is not valid.
    JumpPoint,
    /// Theta* (Nash, Daniel, Koenig and Felner 2007), an any-angle search: a cell's parent may be
    /// any earlier cell in line of sight, so paths run straight across open floor at any angle.
    /// Segments follow the rules of [`crate::smooth::segment_cost`] (clear of walls and
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

    /// The turning points: the start, every cell where the direction of travel changes, and the
    /// end. Walking straight from one to the next retraces the path exactly.
    ///
    /// ```
    /// use bevy_tilemap_nav::prelude::*;
    ///
    /// let grid = NavGrid::new(6, 3).unwrap();
    /// let path = Pathfinder::new()
    ///     .find_path(&grid, GridPos::new(0, 0), GridPos::new(5, 2), &SearchOptions::default())
    ///     .unwrap();
    /// // Two diagonal steps and three straight ones (or the other way round): one turn.
    /// assert_eq!(path.waypoints().len(), 3);
    /// ```
    pub fn waypoints(&self) -> Vec<GridPos> {
        turning_points(&self.cells)
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
    /// The cost limit is NaN or negative.
    InvalidCostLimit {
        max_cost: f64,
    },
    /// [`Algorithm::JumpPoint`] was asked for on a grid where it would not be optimal (not 8-way
    /// without corner cutting, or terrain costs differ), or with a partial path.
    JumpPointUnsupported,
    /// [`Pathfinder::resume_search`] with no search paused.
    NothingToResume,
    /// [`Pathfinder::resume_search`] on a grid other than the one the search began on, or on
    /// the same grid after it changed: the search's state no longer fits it. Start again.
    GridChanged,
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
            PathError::JumpPointUnsupported => write!(
                f,
                "jump point search needs an 8-way grid without corner cutting and one terrain cost"
            ),
            PathError::NothingToResume => write!(f, "no search is paused"),
            PathError::GridChanged => {
                write!(f, "the grid changed since the paused search began; start it again")
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
    /// Successors whose f equals that of the cell being expanded: they are expanded next, off
    /// this stack, without going through the heap (see `Pathfinder::search`).
    level: Vec<OpenNode>,
    /// Recording of the current search, when one was asked for.
    trace: Option<SearchTrace>,
}

/// A recording of one search, to watch it step by step: the cells in the order they were
/// expanded (closed), and each cell put on the open list with how many expansions had been done
/// by then.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchTrace {
    pub expanded: Vec<GridPos>,
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
        self.level.clear();
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
    avoided: Avoided,
    /// The search that ran out of budget, if any.
    paused: Option<Paused>,
}

/// How far a search begun with [`Pathfinder::start_search`] got.
#[derive(Clone, Debug, PartialEq)]
pub enum SearchStep {
    /// Finished: the path, or why there is none.
    Done(Result<PathResult, PathError>),
    /// Out of budget: go on with [`Pathfinder::resume_search`] on the same, unchanged grid.
    Paused {
        /// Cells expanded so far.
        expanded: u32,
    },
}

/// Which expansion a search uses.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Plain,
    JumpPoint,
    AnyAngle,
}

/// What the search loop keeps between one call and the next.
#[derive(Clone, Copy, Debug)]
struct LoopState {
    stats: SearchStats,
    /// For partial paths: the expanded cell closest to the goal (closeness, g, padded index).
    best: (f64, f64, usize),
    /// A successor was dropped for exceeding the cost limit.
    pruned: bool,
}

/// A paused search: enough to rebuild its expansion and go on (its open list and cell states
/// stay in the scratch memory).
#[derive(Clone, Copy, Debug)]
struct Paused {
    start: GridPos,
    goal: GridPos,
    options: SearchOptions,
    kind: Kind,
    stamp: GridStamp,
    state: LoopState,
}

/// The search loop's answer for one call.
enum Outcome {
    Done(Result<PathResult, PathError>),
    Paused(LoopState),
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
            + self.avoided.bytes()
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

    /// Like [`find_path`](Self::find_path), and also a [`SearchTrace`] of what the search did.
    pub fn find_path_traced(
        &mut self,
        grid: &NavGrid,
        start: GridPos,
        goal: GridPos,
        options: &SearchOptions,
    ) -> (Result<PathResult, PathError>, SearchTrace) {
        self.record_next();
        let result = self.find_path(grid, start, goal, options);
        (result, self.take_trace().unwrap_or_default())
    }

    /// Records the next search into a [`SearchTrace`], to be taken with
    /// [`take_trace`](Self::take_trace).
    pub fn record_next(&mut self) {
        self.scratch.trace = Some(SearchTrace::default());
    }

    /// The recording armed by [`record_next`](Self::record_next), if any; recording stops.
    pub fn take_trace(&mut self) -> Option<SearchTrace> {
        self.scratch.trace.take()
    }

    /// Like [`find_path`](Self::find_path), with the cells in `avoid` walled for this query only
    /// (other characters standing in the way, say): the path is the cheapest on the grid with
    /// those cells blocked, corner rule included (under [`CornerRule::NoCornerCutting`] no
    /// diagonal step squeezes past an avoided cell, as it would not past a wall). The start and
    /// goal are never avoided; cells outside the grid are ignored.
    ///
    /// Jump point search still applies: it keeps the grid's precomputed bits and stops its runs
    /// near the avoided cells, so a few avoided cells cost little.
    pub fn find_path_avoiding(
        &mut self,
        grid: &NavGrid,
        start: GridPos,
        goal: GridPos,
        options: &SearchOptions,
        avoid: &[GridPos],
    ) -> Result<PathResult, PathError> {
        match self.begin(grid, start, goal, options, avoid, None) {
            SearchStep::Done(result) => result,
            // Without a budget the loop runs to its end.
            SearchStep::Paused { .. } => unreachable!("an unbudgeted search never pauses"),
        }
    }

    /// Like [`find_path_avoiding`](Self::find_path_avoiding), but stops after `max_expansions`
    /// expanded cells if it has not finished, to go on later with
    /// [`resume_search`](Self::resume_search): a long search spread over several frames. The
    /// answer is the same as in one go. Starting another search (or any `find_path`) drops a
    /// paused one.
    ///
    /// ```
    /// use bevy_tilemap_nav::grid::{GridPos, NavGrid};
    /// use bevy_tilemap_nav::search::{Algorithm, Pathfinder, SearchOptions, SearchStep};
    ///
    /// let grid = NavGrid::new(64, 64).unwrap();
    /// let astar = SearchOptions { algorithm: Algorithm::AStar, ..SearchOptions::default() };
    /// let (start, goal) = (GridPos::new(0, 0), GridPos::new(63, 40));
    /// let mut pathfinder = Pathfinder::new();
    /// let mut step = pathfinder.start_search(&grid, start, goal, &astar, &[], 10);
    /// let mut calls = 1;
    /// while let SearchStep::Paused { .. } = step {
    ///     step = pathfinder.resume_search(&grid, 10); // next frame
    ///     calls += 1;
    /// }
    /// let SearchStep::Done(Ok(path)) = step else { panic!() };
    /// assert!(calls > 1);
    /// assert_eq!(path.cost, pathfinder.find_path(&grid, start, goal, &astar).unwrap().cost);
    /// ```
    pub fn start_search(
        &mut self,
        grid: &NavGrid,
        start: GridPos,
        goal: GridPos,
        options: &SearchOptions,
        avoid: &[GridPos],
        max_expansions: u32,
    ) -> SearchStep {
        self.begin(grid, start, goal, options, avoid, Some(max_expansions))
    }

    /// Goes on with the paused search for at most `max_expansions` more expanded cells. `grid`
    /// must be the grid it began on, unchanged ([`PathError::GridChanged`] otherwise: the
    /// search is dropped, start it again).
    pub fn resume_search(&mut self, grid: &NavGrid, max_expansions: u32) -> SearchStep {
        let Some(paused) = self.paused.take() else {
            return SearchStep::Done(Err(PathError::NothingToResume));
        };
        if grid.stamp() != paused.stamp {
            return SearchStep::Done(Err(PathError::GridChanged));
        }
        let Paused { start, goal, options, kind, state, .. } = paused;
        self.run(kind, grid, start, goal, &options, Some(state), Some(max_expansions))
    }

    /// True while a search begun with [`start_search`](Self::start_search) is paused.
    pub fn is_paused(&self) -> bool {
        self.paused.is_some()
    }

    /// Drops the paused search, if any.
    pub fn cancel_search(&mut self) {
        self.paused = None;
    }

    /// Checks the query, then searches.
    fn begin(
        &mut self,
        grid: &NavGrid,
        start: GridPos,
        goal: GridPos,
        options: &SearchOptions,
        avoid: &[GridPos],
        budget: Option<u32>,
    ) -> SearchStep {
        self.paused = None;
        let (width, height) = (grid.width(), grid.height());
        if !grid.in_bounds(start) {
            return SearchStep::Done(Err(PathError::StartOutOfBounds { start, width, height }));
        }
        if !grid.in_bounds(goal) {
            return SearchStep::Done(Err(PathError::GoalOutOfBounds { goal, width, height }));
        }
        if !grid.is_passable(start) {
            return SearchStep::Done(Err(PathError::StartBlocked { start }));
        }
        if !grid.is_passable(goal) {
            return SearchStep::Done(Err(PathError::GoalBlocked { goal }));
        }
        if !(options.weight.is_finite() && options.weight >= 1.0) {
            return SearchStep::Done(Err(PathError::InvalidWeight { weight: options.weight }));
        }
        if let Some(max_cost) = options.limit.max_cost
            && (max_cost.is_nan() || max_cost < 0.0)
        {
            return SearchStep::Done(Err(PathError::InvalidCostLimit { max_cost }));
        }
        if start == goal {
            return SearchStep::Done(Ok(PathResult {
                cells: vec![start],
                cost: 0.0,
                stats: SearchStats::default(),
                complete: true,
            }));
        }
        // Component labels answer "unreachable" without a search. A partial request still
        // searches, to find the closest cell it can reach.
        if !options.partial && !grid.connected(start, goal) {
            return SearchStep::Done(Err(PathError::Unreachable { start, goal }));
        }
        let jps_valid = jps_applies(grid);
        let kind = match options.algorithm {
            Algorithm::ThetaStar => Kind::AnyAngle,
            Algorithm::Auto if jps_valid && !options.partial => Kind::JumpPoint,
            Algorithm::Auto | Algorithm::AStar => Kind::Plain,
            Algorithm::JumpPoint if jps_valid && !options.partial => Kind::JumpPoint,
            Algorithm::JumpPoint => return SearchStep::Done(Err(PathError::JumpPointUnsupported)),
        };
        self.avoided.build(grid, avoid, start, goal);
        let options = match kind {
            Kind::AnyAngle => SearchOptions {
                heuristic: options.heuristic.or(Some(Heuristic::Euclidean)),
                ..*options
            },
            _ => *options,
        };
        self.run(kind, grid, start, goal, &options, None, budget)
    }

    /// Runs (or, with `resume`, goes on with) the search loop with the expansion of `kind`.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &mut self,
        kind: Kind,
        grid: &NavGrid,
        start: GridPos,
        goal: GridPos,
        options: &SearchOptions,
        resume: Option<LoopState>,
        budget: Option<u32>,
    ) -> SearchStep {
        let avoided = self.avoided.any().then_some(&self.avoided);
        let s = &mut self.scratch;
        let outcome = match kind {
            Kind::AnyAngle => {
                let expansion = AnyAngle(Neighbors::new(grid, avoided));
                search(s, grid, start, goal, options, avoided, &expansion, resume, budget)
            }
            Kind::JumpPoint if avoided.is_some() => {
                let expansion = JumpPoints::<true>::new(grid, goal, avoided);
                search(s, grid, start, goal, options, None, &expansion, resume, budget)
            }
            Kind::JumpPoint => {
                let expansion = JumpPoints::<false>::new(grid, goal, None);
                search(s, grid, start, goal, options, None, &expansion, resume, budget)
            }
            Kind::Plain => {
                let expansion = Neighbors::new(grid, avoided);
                search(s, grid, start, goal, options, avoided, &expansion, resume, budget)
            }
        };
        match outcome {
            Outcome::Done(result) => SearchStep::Done(result),
            Outcome::Paused(state) => {
                let stamp = grid.stamp();
                self.paused = Some(Paused { start, goal, options: *options, kind, stamp, state });
                SearchStep::Paused { expanded: state.stats.expanded }
            }
        }
    }
}

/// The one A* loop; `expansion` says which cells follow a cell (its neighbors, or its jump
/// points) and at what cost. `closed_early`: avoided cells the loop itself must keep out of
/// (marked closed before it begins), for expansions that do not know them as walls. With a
/// `budget` it pauses after that many expansions; `resume` goes on from such a pause (the
/// open list and cell states are still in `s`).
#[allow(clippy::too_many_arguments)]
fn search<E: Expansion>(
    s: &mut Scratch,
    grid: &NavGrid,
    start: GridPos,
    goal: GridPos,
    options: &SearchOptions,
    closed_early: Option<&Avoided>,
    expansion: &E,
    resume: Option<LoopState>,
    budget: Option<u32>,
) -> Outcome {
    let heuristic = options.heuristic.unwrap_or(Heuristic::default_for(grid.neighborhood()));
    let h_scale = options.weight * f64::from(grid.min_cost().unwrap_or(1));
    let max_expansions = options.limit.max_expansions.unwrap_or(u32::MAX);
    let max_cost = options.limit.max_cost.unwrap_or(f64::INFINITY);
    // The octile distance times the one terrain cost is exactly what an octile-shaped path
    // costs on a uniform grid: the heuristic is then exact wherever such a path is clear.
    let exact_heuristic = heuristic == Heuristic::Octile && options.weight == 1.0;
    // With a consistent heuristic (never dropping by more than a step costs), f never falls
    // along a path, so a successor whose f equals the expanded cell's is itself a lowest-f
    // cell: expanding it at once is one of A*'s allowed tie orders, and skips the heap's
    // push and pop. Open floor towards the goal is mostly such successors.
    let neighborhood = grid.neighborhood();
    let consistent =
        options.weight == 1.0 && !expansion.any_angle() && heuristic.is_consistent_on(neighborhood);
    let stride = grid.stride();
    // Padded coordinates of the goal; a cell's padded coordinates are (i % stride, i / stride).
    let (gx, gy) = (goal.x as isize + 1, goal.y as isize + 1);
    let hex = neighborhood.is_hex();
    let unpadded = |x: isize, y: isize| GridPos::new(x as u32 - 1, y as u32 - 1);
    let h = |x: isize, y: isize| -> f64 {
        if hex {
            return h_scale * heuristic.estimate(neighborhood, unpadded(x, y), goal);
        }
        h_scale * heuristic.distance(x.abs_diff(gx) as u32, y.abs_diff(gy) as u32)
    };
    // For partial paths: the expanded cell closest to the goal (octile distance, or steps on a
    // hex grid, then cost).
    let closeness = |x: isize, y: isize| -> f64 {
        if let Neighborhood::Hex(coords) = neighborhood {
            return f64::from(coords.distance(unpadded(x, y), goal));
        }
        Heuristic::Octile.distance(x.abs_diff(gx) as u32, y.abs_diff(gy) as u32)
    };

    if resume.is_none() {
        s.begin(grid.padded_len());
    }
    let gen_seen = s.generation * 2;
    let gen_closed = gen_seen + 1;
    let Scratch { nodes, open, level, trace, .. } = s;
    let start_i = grid.index(start);
    let goal_i = grid.index(goal);
    // Theta*'s line-of-sight shortcuts must not cross an avoided cell either.
    let crosses_avoided = |a: GridPos, b: GridPos| {
        closed_early.is_some_and(|avoided| {
            segment_cells(grid, a, b)
                .is_none_or(|cells| cells.iter().any(|&c| avoided.is_wall(grid.index(c))))
        })
    };
    let LoopState { mut stats, mut best, mut pruned } = match resume {
        Some(state) => state,
        None => {
            for &i in closed_early.map(Avoided::cells).unwrap_or_default() {
                nodes[i].stamp = gen_closed;
            }
            nodes[start_i] = NodeState { g: 0.0, parent: start_i as u32, stamp: gen_seen };
            let (sx, sy) = (start.x as isize + 1, start.y as isize + 1);
            open.push(OpenNode::new(h(sx, sy), 0.0, start_i));
            if let Some(trace) = trace.as_mut() {
                trace.opened.push((0, start));
            }
            let stats = SearchStats { expanded: 0, pushed: 1 };
            LoopState { stats, best: (closeness(sx, sy), 0.0, start_i), pruned: false }
        }
    };
    let mut stopped_at_limit = false;
    let pause_at = budget.map(|b| stats.expanded.saturating_add(b));

    loop {
        if pause_at.is_some_and(|at| stats.expanded >= at) {
            return Outcome::Paused(LoopState { stats, best, pruned });
        }
        let Some(node) = level.pop().or_else(|| open.pop()) else {
            break;
        };
        let i = node.index as usize;
        let f_here = f64::from_bits(node.f);
        let state = nodes[i];
        if state.stamp == gen_closed {
            continue; // stale entry: already expanded with a lower g
        }
        if i == goal_i {
            let path = finish(grid, nodes, start_i, i, stats, true, expansion.any_angle());
            return Outcome::Done(Ok(path));
        }
        if stats.expanded >= max_expansions {
            stopped_at_limit = true;
            break;
        }
        nodes[i].stamp = gen_closed;
        stats.expanded += 1;
        if let Some(trace) = trace.as_mut() {
            let (px, py) = grid.unpad(i);
            trace.expanded.push(GridPos::new(px, py));
        }
        let g_here = state.g;
        let (x, y) = ((i % stride) as isize, (i / stride) as isize);
        // Any-angle (Theta* only; the branch folds away for the others): a successor may
        // hang from this cell's parent when it sees it.
        let grandparent = state.parent as usize;
        let shortcut = (expansion.any_angle() && grandparent != i).then(|| {
            let (px, py) = grid.unpad(grandparent);
            (nodes[grandparent].g, GridPos::new(px, py))
        });
        if options.partial {
            let close = closeness(x, y);
            if close < best.0 || (close == best.0 && g_here < best.1) {
                best = (close, g_here, i);
            }
        }
        // This cell has the lowest f = g + h on the open list, so no path costs less than
        // g + h; when a clear path to the goal costs exactly h, it is optimal: take it.
        if exact_heuristic
            && (i == start_i || x.abs_diff(gx).max(y.abs_diff(gy)) <= DIRECT_NEAR)
            && let Some((turn, to_turn, rest)) = expansion.direct_to_goal(x, y)
            && g_here + rest <= max_cost
            && turn.is_none_or(|t| nodes[t].stamp != gen_closed)
        {
            let mut parent = i;
            for (cell, g) in
                turn.map(|t| (t, g_here + to_turn)).into_iter().chain([(goal_i, g_here + rest)])
            {
                nodes[cell] = NodeState { g, parent: parent as u32, stamp: gen_seen };
                parent = cell;
                stats.pushed += 1;
                if let Some(trace) = trace.as_mut() {
                    let (cx, cy) = grid.unpad(cell);
                    trace.opened.push((stats.expanded, GridPos::new(cx, cy)));
                }
            }
            let path = finish(grid, nodes, start_i, goal_i, stats, true, expansion.any_angle());
            return Outcome::Done(Ok(path));
        }
        expansion.successors(i, x, y, state.parent as usize, |j, jx, jy, step| {
            let mut g = g_here + step;
            let mut parent = i;
            if let Some((grandparent_g, grandparent_pos)) = shortcut {
                let target = GridPos::new(jx as u32 - 1, jy as u32 - 1);
                if let Some(line) = segment_cost(grid, grandparent_pos, target)
                    && grandparent_g + line < g
                    && !crosses_avoided(grandparent_pos, target)
                {
                    g = grandparent_g + line;
                    parent = grandparent;
                }
            }
            let next = &mut nodes[j];
            if next.stamp == gen_closed || (next.stamp == gen_seen && g >= next.g) {
                return;
            }
            if g > max_cost {
                pruned = true;
                return;
            }
            *next = NodeState { g, parent: parent as u32, stamp: gen_seen };
            let f = g + h(jx, jy);
            if consistent && f <= f_here {
                level.push(OpenNode::new(f, g, j));
            } else {
                open.push(OpenNode::new(f, g, j));
            }
            stats.pushed += 1;
            if let Some(trace) = trace.as_mut() {
                trace.opened.push((stats.expanded, GridPos::new(jx as u32 - 1, jy as u32 - 1)));
            }
        });
    }
    if options.partial {
        let path = finish(grid, nodes, start_i, best.2, stats, false, expansion.any_angle());
        return Outcome::Done(Ok(path));
    }
    Outcome::Done(if stopped_at_limit || pruned {
        Err(PathError::LimitExceeded { expanded: stats.expanded })
    } else {
        Err(PathError::Unreachable { start, goal })
    })
}

/// How near the goal (in steps along the longer axis) a cell must be for the search to look
/// for a clear octile-shaped path from it; the start always looks. Farther out the look costs
/// more than it saves on maps where such paths are rare.
const DIRECT_NEAR: usize = 32;

/// True when jump point search finds optimal paths on this grid: 8-way, no corner cutting,
/// every passable cell the same cost.
pub fn jps_applies(grid: &NavGrid) -> bool {
    grid.neighborhood() == Neighborhood::Eight
        && grid.corner_rule() == CornerRule::NoCornerCutting
        && grid.has_uniform_cost()
}

/// How the search loop finds the cells that follow a cell.
trait Expansion {
    /// True for Theta*: successors may take the expanded cell's parent as theirs.
    fn any_angle(&self) -> bool {
        false
    }

    /// A path from padded (`x`, `y`) to the goal that no path beats, when one is clear: the
    /// cell where it turns (padded index; `None` for one straight or diagonal run), the cost to
    /// that turn, and the whole cost. Only asked when the heuristic is that cost's exact lower
    /// bound, so that the search may stop there.
    fn direct_to_goal(&self, _x: isize, _y: isize) -> Option<(Option<usize>, f64, f64)> {
        None
    }

    /// Calls `visit(j, jx, jy, cost)` for each successor `j` (padded index and coordinates) of
    /// cell `i` at padded coordinates (`x`, `y`), reached from `parent` (`i` itself for the
    /// start), with the cost of getting from `i` to `j`.
    fn successors(
        &self,
        i: usize,
        x: isize,
        y: isize,
        parent: usize,
        visit: impl FnMut(usize, isize, isize, f64),
    );
}

/// Plain A*: every legal step to a neighbor.
struct Neighbors<'a> {
    costs: &'a [u32],
    stride: isize,
    directions: usize,
    offsets: [isize; 8],
    /// On a hex grid: the coordinate system and its six steps (dx, dy) by parity.
    hex: Option<(HexCoords, [[(isize, isize); 6]; 2])>,
    corner_rule: CornerRule,
    /// This query's avoided cells: walls for the corner rule too (the search loop keeps the
    /// path out of them).
    avoided: Option<&'a Avoided>,
}

impl<'a> Neighbors<'a> {
    fn new(grid: &'a NavGrid, avoided: Option<&'a Avoided>) -> Self {
        let stride = grid.stride() as isize;
        let mut offsets = [0isize; 8];
        for (offset, (dx, dy)) in offsets.iter_mut().zip(DIRECTIONS) {
            *offset = dx + dy * stride;
        }
        Self {
            costs: grid.padded_costs(),
            stride,
            directions: match grid.neighborhood() {
                Neighborhood::Four => 4,
                Neighborhood::Eight | Neighborhood::Hex(_) => 8,
            },
            offsets,
            hex: match grid.neighborhood() {
                Neighborhood::Hex(coords) => Some((coords, [coords.steps(0), coords.steps(1)])),
                _ => None,
            },
            corner_rule: grid.corner_rule(),
            avoided,
        }
    }

    /// Padded cell `i` is open: passable and not avoided.
    #[inline]
    fn side_open(&self, i: usize) -> bool {
        self.costs[i] != 0 && self.avoided.is_none_or(|a| !a.is_wall(i))
    }
}

impl Expansion for Neighbors<'_> {
    #[inline]
    fn successors(
        &self,
        i: usize,
        x: isize,
        y: isize,
        _parent: usize,
        mut visit: impl FnMut(usize, isize, isize, f64),
    ) {
        let costs = self.costs;
        if let Some((coords, steps)) = &self.hex {
            // Padded coordinates are one more than the cell's own. Avoided cells are kept out
            // by the search loop; hexagons have no corner rule.
            for &(dx, dy) in &steps[coords.parity(x as usize - 1, y as usize - 1)] {
                let j = (i as isize + dx + dy * self.stride) as usize;
                let cost = costs[j];
                if cost != 0 {
                    visit(j, x + dx, y + dy, f64::from(cost));
                }
            }
            return;
        }
        for (d, (&offset, &(dx, dy))) in
            self.offsets.iter().zip(&DIRECTIONS).take(self.directions).enumerate()
        {
            let j = (i as isize + offset) as usize;
            let cost = costs[j];
            if cost == 0 {
                continue;
            }
            let step = if d < 4 {
                1.0
            } else {
                let side_a = self.side_open((i as isize + dx) as usize);
                let side_b = self.side_open((i as isize + dy * self.stride) as usize);
                if !self.corner_rule.allows_diagonal(side_a, side_b) {
                    continue;
                }
                SQRT_2
            };
            visit(j, x + dx, y + dy, step * f64::from(cost));
        }
    }
}

/// Theta*: plain neighbors, with line-of-sight shortcuts through the parent.
struct AnyAngle<'a>(Neighbors<'a>);

impl Expansion for AnyAngle<'_> {
    fn any_angle(&self) -> bool {
        true
    }

    #[inline]
    fn successors(
        &self,
        i: usize,
        x: isize,
        y: isize,
        parent: usize,
        visit: impl FnMut(usize, isize, isize, f64),
    ) {
        self.0.successors(i, x, y, parent, visit);
    }
}

/// Jump point search (Harabor and Grastien 2011) under the no-corner-cutting rule: from each
/// cell, run straight or diagonally, skipping cells that an optimal path would only pass
/// through, and stop at the goal or at a cell where a wall forces a turn. Valid only where
/// [`jps_applies`].
struct JumpPoints<'a, const AVOID: bool> {
    grid: &'a NavGrid,
    stride: isize,
    /// The goal's padded coordinates.
    goal: (isize, isize),
    /// The one passable cost.
    cost: f64,
    /// The grid's per-cell run bits.
    runs: &'a [u8],
    /// This query's avoided cells, walls the grid's bits do not know: runs stop near them.
    avoided_cells: Option<&'a Avoided>,
}

/// 64 bits of a bit line from position `start` on: bit k is position `start + k`. Positions
/// outside the line read as 0 (blocked).
#[inline]
fn bits_from(line: &[u64], start: isize) -> u64 {
    if start < 0 {
        return if start <= -64 { 0 } else { bits_from(line, 0) << (-start) as u32 };
    }
    let (word, bit) = (start as usize / 64, (start % 64) as u32);
    let low = line.get(word).copied().unwrap_or(0);
    if bit == 0 {
        return low;
    }
    let high = line.get(word + 1).copied().unwrap_or(0);
    (low >> bit) | (high << (64 - bit))
}

/// 64 bits of a bit line going backwards from `end`: bit k is position `end - k`.
#[inline]
fn bits_back(line: &[u64], end: isize) -> u64 {
    bits_from(line, end - 63).reverse_bits()
}

/// Scans a line of cells (a row, or a column of the transposed bits) from position `from` in
/// direction `dir` (+1 or -1), 64 cells a step, for the first jump point: the goal, or a cell
/// whose turn bit for this direction is set (an open side cell whose neighbor behind is a wall:
/// a turn an optimal path may take there). `None` when a wall comes first.
#[inline]
fn scan_line(
    line: &[u64],
    turns: &[u64],
    from: isize,
    dir: isize,
    goal: Option<isize>,
) -> Option<isize> {
    let mut p = from + dir;
    loop {
        let (open, turn) = if dir > 0 {
            (bits_from(line, p), bits_from(turns, p))
        } else {
            (bits_back(line, p), bits_back(turns, p))
        };
        let wall = !open;
        let mut hits = wall | turn;
        if let Some(g) = goal {
            let k = (g - p) * dir;
            if (0..64).contains(&k) {
                hits |= 1 << k;
            }
        }
        if hits != 0 {
            let k = hits.trailing_zeros();
            return if wall >> k & 1 == 1 { None } else { Some(p + k as isize * dir) };
        }
        p += 64 * dir;
    }
}

impl<'a, const AVOID: bool> JumpPoints<'a, AVOID> {
    fn new(grid: &'a NavGrid, goal: GridPos, avoided: Option<&'a Avoided>) -> Self {
        Self {
            grid,
            stride: grid.stride() as isize,
            goal: (goal.x as isize + 1, goal.y as isize + 1),
            cost: f64::from(grid.min_cost().unwrap_or(1)),
            runs: grid.runs(),
            avoided_cells: avoided,
        }
    }

    /// This query's avoided cells; with `AVOID` false (none), every check on them folds away.
    #[inline]
    fn avoided(&self) -> Option<&'a Avoided> {
        if AVOID { self.avoided_cells } else { None }
    }

    /// Padded cell `i` is within a step of an avoided cell, where the grid's bits may be wrong
    /// for this query: runs stop there and it is expanded in every direction.
    #[inline]
    fn near_avoided(&self, i: isize) -> bool {
        self.avoided().is_some_and(|a| a.is_near(i as usize))
    }

    /// Padded cell `i` is open for this query: passable and not avoided.
    #[inline]
    fn open_here(&self, i: isize) -> bool {
        self.open(i) && self.avoided().is_none_or(|a| !a.is_wall(i as usize))
    }

    /// A diagonal step from padded index `i` that checks the avoided cells too.
    #[inline]
    fn diagonal_step_open_here(&self, i: isize, dx: isize, vertical: isize) -> bool {
        self.open_here(i + dx) && self.open_here(i + vertical) && self.open_here(i + dx + vertical)
    }

    /// No cell of the octile-shaped path from padded (`x`, `y`) along `legs` (each `n` steps of
    /// (`dx`, `dy`)) lies near an avoided cell (so the grid's own check of it holds).
    fn far_from_avoided(&self, (x, y): (isize, isize), legs: [(isize, isize, isize); 2]) -> bool {
        let mut i = y * self.stride + x;
        if self.near_avoided(i) {
            return false;
        }
        for (dx, dy, n) in legs {
            for _ in 0..n {
                i += dx + dy * self.stride;
                if self.near_avoided(i) {
                    return false;
                }
            }
        }
        true
    }

    #[inline]
    fn open(&self, i: isize) -> bool {
        self.runs[i as usize] & OPEN != 0
    }

    /// A diagonal step from padded index `i` by `dx` across and `vertical` (`dy` x stride) is
    /// legal: onto an open cell, and (no corner cutting) between two open side cells.
    #[inline]
    fn diagonal_step_open(&self, i: isize, dx: isize, vertical: isize) -> bool {
        let runs = self.runs;
        let (a, b, c) = ((i + dx) as usize, (i + vertical) as usize, (i + dx + vertical) as usize);
        runs[a] & runs[b] & runs[c] & OPEN != 0
    }

    /// `n` straight steps from padded (`x`, `y`) in direction (dx, dy) are all on open cells.
    #[inline]
    fn straight_clear(&self, x: isize, y: isize, dx: isize, dy: isize, n: isize) -> bool {
        if dy == 0 {
            run_open(self.grid.open_row(y as usize), x, dx, n)
        } else {
            run_open(self.grid.open_col(x as usize), y, dy, n)
        }
    }

    /// `n` diagonal steps from padded (`x`, `y`) in direction (dx, dy) are all legal.
    #[inline]
    fn diagonal_clear(&self, x: isize, y: isize, dx: isize, dy: isize, n: isize) -> bool {
        let vertical = dy * self.stride;
        let mut i = y * self.stride + x;
        for _ in 0..n {
            if !self.diagonal_step_open(i, dx, vertical) {
                return false;
            }
            i += dx + vertical;
        }
        true
    }

    /// Runs straight from padded (`x`, `y`) in direction (dx, dy) (one of them 0): the first
    /// jump point, as (index, steps), or `None` at a wall.
    #[inline]
    fn jump_straight(&self, x: isize, y: isize, dx: isize, dy: isize) -> Option<(isize, isize)> {
        let grid = self.grid;
        let (gx, gy) = self.goal;
        // Most runs find nothing: the run bits say so in one load, unless the goal lies ahead.
        let k = if dy == 0 { usize::from(dx < 0) } else { 2 + usize::from(dy < 0) };
        let goal_ahead =
            if dy == 0 { gy == y && (gx - x) * dx > 0 } else { gx == x && (gy - y) * dy > 0 };
        // Where the run must stop for a look besides the grid's jump points: the goal, or the
        // first cell near an avoided one (past it the grid's bits may be wrong this query).
        let near = self.avoided().and_then(|a| {
            if dy == 0 {
                a.next_near(true, y as usize, x, dx)
            } else {
                a.next_near(false, x as usize, y, dy)
            }
        });
        if self.runs[(y * self.stride + x) as usize] & (1 << k) == 0
            && !goal_ahead
            && near.is_none()
        {
            return None;
        }
        let (xu, yu) = (x as usize, y as usize);
        // A row of the bits, or a column of the transposed bits: the same scan either way.
        let (line, turns, from, dir, goal) = if dy == 0 {
            (grid.open_row(yu), grid.turn_row(yu, dx > 0), x, dx, goal_ahead.then_some(gx))
        } else {
            (grid.open_col(xu), grid.turn_col(xu, dy > 0), y, dy, goal_ahead.then_some(gy))
        };
        let stop = match (goal, near) {
            (Some(g), Some(n)) => Some(if (g - from).abs() <= (n - from).abs() { g } else { n }),
            (g, n) => g.or(n),
        };
        let found = scan_line(line, turns, from, dir, stop)?;
        let index = if dy == 0 { y * self.stride + found } else { found * self.stride + x };
        if self.avoided().is_some_and(|a| a.is_wall(index as usize)) {
            return None; // an avoided cell right ahead: a wall for this query
        }
        Some((index, (found - from).abs()))
    }

    /// Runs diagonally from padded (`x`, `y`) in direction (dx, dy) until a wall (or the goal),
    /// and visits, as successors of the cell it started from, what an expansion of each
    /// diagonal jump point on the way would find: the jump points of its straight runs (dx, 0)
    /// and (0, dy), at the cost of the diagonal run there plus the straight run. The diagonal
    /// jump points themselves never go on the open list (Harabor and Grastien 2014); the path
    /// from the start cell to such a successor is diagonal first, then straight.
    ///
    /// A cell stops the run for a look when the grid's run bits say one of its straight runs
    /// finds a jump point, or when it lies on the goal's row or column with the goal ahead.
    #[inline]
    fn diagonal_run(
        &self,
        mut x: isize,
        mut y: isize,
        dx: isize,
        dy: isize,
        visit: &mut impl FnMut(usize, isize, isize, f64),
    ) {
        let vertical = dy * self.stride;
        let mut i = y * self.stride + x;
        let ahead: u8 = (if dx > 0 { 1 } else { 2 }) | (if dy > 0 { 4 } else { 8 });
        let (gx, gy) = self.goal;
        let mut n = 0;
        loop {
            let legal = if self.near_avoided(i) {
                self.diagonal_step_open_here(i, dx, vertical)
            } else {
                self.diagonal_step_open(i, dx, vertical)
            };
            if !legal {
                return;
            }
            i += dx + vertical;
            x += dx;
            y += dy;
            n += 1;
            let diagonal = n as f64 * SQRT_2 * self.cost;
            if (x, y) == self.goal || self.near_avoided(i) {
                // The goal, or a cell whose surroundings this query changed: a jump point.
                visit(i as usize, x, y, diagonal);
                return;
            }
            if self.runs[i as usize] & ahead != 0
                || (x == gx && (gy - y) * dy > 0)
                || (y == gy && (gx - x) * dx > 0)
                || self
                    .avoided()
                    .is_some_and(|a| a.row_marked(y as usize) || a.col_marked(x as usize))
            {
                for (sdx, sdy) in [(dx, 0), (0, dy)] {
                    if let Some((j, m)) = self.jump_straight(x, y, sdx, sdy) {
                        let straight = m as f64 * self.cost;
                        visit(j as usize, x + sdx * m, y + sdy * m, diagonal + straight);
                    }
                }
            }
        }
    }
}

/// True when the `n` cells after position `from` of a bit line, going in direction `dir`, are
/// all open.
#[inline]
fn run_open(line: &[u64], from: isize, dir: isize, n: isize) -> bool {
    let mut done = 0;
    while done < n {
        let p = from + dir * (done + 1);
        let bits = if dir > 0 { bits_from(line, p) } else { bits_back(line, p) };
        let take = (n - done).min(64);
        let mask = if take == 64 { u64::MAX } else { (1u64 << take) - 1 };
        if bits & mask != mask {
            return false;
        }
        done += take;
    }
    true
}

impl<const AVOID: bool> Expansion for JumpPoints<'_, AVOID> {
    /// The two octile-shaped paths (diagonal run then straight run, or straight then diagonal)
    /// cost exactly the octile distance: if either is clear, nothing is shorter.
    fn direct_to_goal(&self, x: isize, y: isize) -> Option<(Option<usize>, f64, f64)> {
        let (gx, gy) = self.goal;
        let (sx, sy) = ((gx - x).signum(), (gy - y).signum());
        let (adx, ady) = ((gx - x).abs(), (gy - y).abs());
        let diagonal = adx.min(ady);
        let straight = adx.max(ady) - diagonal;
        let (tx, ty) = if adx > ady { (sx, 0) } else { (0, sy) };
        let diagonal_cost = diagonal as f64 * SQRT_2 * self.cost;
        let straight_cost = straight as f64 * self.cost;
        let total = diagonal_cost + straight_cost;
        let index = |x: isize, y: isize| (y * self.stride + x) as usize;
        let (cx, cy) = (x + sx * diagonal, y + sy * diagonal);
        // Near an avoided cell the grid's own check does not hold: such a path is left to the
        // search.
        let far = |first: (isize, isize, isize), second: (isize, isize, isize)| {
            self.avoided().is_none() || self.far_from_avoided((x, y), [first, second])
        };
        if self.diagonal_clear(x, y, sx, sy, diagonal)
            && self.straight_clear(cx, cy, tx, ty, straight)
            && far((sx, sy, diagonal), (tx, ty, straight))
        {
            let turn = (diagonal > 0 && straight > 0).then(|| index(cx, cy));
            return Some((turn, diagonal_cost, total));
        }
        if diagonal == 0 || straight == 0 {
            return None; // one run, already tried
        }
        let (cx, cy) = (x + tx * straight, y + ty * straight);
        (self.straight_clear(x, y, tx, ty, straight)
            && self.diagonal_clear(cx, cy, sx, sy, diagonal)
            && far((tx, ty, straight), (sx, sy, diagonal)))
        .then(|| (Some(index(cx, cy)), straight_cost, total))
    }

    fn successors(
        &self,
        i: usize,
        x: isize,
        y: isize,
        parent: usize,
        mut visit: impl FnMut(usize, isize, isize, f64),
    ) {
        let stride = self.stride;
        let i = i as isize;
        let (px, py) = ((parent as isize) % stride, (parent as isize) / stride);
        // The direction of the last step in: a successor hangs from its parent by a straight
        // run, a diagonal run, or a diagonal run then a straight one.
        // Near an avoided cell the pruning rules (read off the grid's walls) may not hold: expand
        // it in every direction, as the start is.
        let (dx, dy) = if self.near_avoided(i) { (0, 0) } else { octile_step(x - px, y - py) };
        let mut straight = |sdx: isize, sdy: isize| {
            if let Some((j, n)) = self.jump_straight(x, y, sdx, sdy) {
                visit(j as usize, x + sdx * n, y + sdy * n, n as f64 * self.cost);
            }
        };
        // Directions worth exploring from here (the pruned neighbor set): straight ones now,
        // diagonal ones after.
        let mut diagonals = [(0isize, 0isize); 4];
        let mut count = 0;
        if dx == 0 && dy == 0 {
            for (sdx, sdy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                straight(sdx, sdy);
            }
            diagonals = [(1, 1), (-1, 1), (1, -1), (-1, -1)];
            count = 4;
        } else if dx != 0 && dy != 0 {
            straight(dx, 0);
            straight(0, dy);
            diagonals[0] = (dx, dy);
            count = 1;
        } else if dx != 0 {
            let ahead = self.open(i + dx);
            for side in [1, -1] {
                // A side cell is worth turning to only when the one behind it is a wall:
                // otherwise the parent reaches it as cheaply without this cell.
                if self.open(i + side * stride) && !self.open(i - dx + side * stride) {
                    straight(0, side);
                    if ahead {
                        diagonals[count] = (dx, side);
                        count += 1;
                    }
                }
            }
            if ahead {
                straight(dx, 0);
            }
        } else {
            let ahead = self.open(i + dy * stride);
            for side in [1, -1] {
                if self.open(i + side) && !self.open(i + side - dy * stride) {
                    straight(side, 0);
                    if ahead {
                        diagonals[count] = (side, dy);
                        count += 1;
                    }
                }
            }
            if ahead {
                straight(0, dy);
            }
        }
        for &(ddx, ddy) in &diagonals[..count] {
            self.diagonal_run(x, y, ddx, ddy, &mut visit);
        }
    }
}

/// The first step of an octile-shaped run covering (`sx`, `sy`) that goes straight first and
/// diagonal last: along the longer axis when one is longer, else diagonal. From a jump point
/// back to its parent this is the reverse of the last step in.
#[inline]
fn octile_step(sx: isize, sy: isize) -> (isize, isize) {
    let (ax, ay) = (sx.abs(), sy.abs());
    (if ax >= ay { sx.signum() } else { 0 }, if ay >= ax { sy.signum() } else { 0 })
}

/// Walks parents back from `end`, filling in the cells between jump points, and totals the cost
/// exactly: straight and diagonal steps are summed as integers, then combined.
fn finish(
    grid: &NavGrid,
    nodes: &[NodeState],
    start_i: usize,
    end_i: usize,
    stats: SearchStats,
    complete: bool,
    any_angle_edges: bool,
) -> PathResult {
    let costs = grid.padded_costs();
    let stride = grid.stride() as isize;
    // Count the cells first (a run of n steps adds n), so the path is allocated once.
    let mut length = 1;
    let mut i = end_i as isize;
    while i != start_i as isize {
        let p = nodes[i as usize].parent as isize;
        length +=
            (p % stride - i % stride).unsigned_abs().max((p / stride - i / stride).unsigned_abs());
        i = p;
    }
    let mut cells = Vec::with_capacity(length);
    let (mut straight, mut diagonal) = (0u64, 0u64);
    let mut any_angle = 0.0;
    let mut i = end_i as isize;
    let (x, y) = grid.unpad(end_i);
    cells.push(GridPos::new(x, y));
    let hex = match grid.neighborhood() {
        Neighborhood::Hex(coords) => Some(coords),
        _ => None,
    };
    while i != start_i as isize {
        let p = nodes[i as usize].parent as isize;
        let (sx, sy) = (p % stride - i % stride, p / stride - i / stride);
        // On a hex grid every step is one to a neighbour (length 1); anything longer is a
        // Theta* segment.
        let hex_step = hex.map(|coords| {
            let (a, b) = (grid.unpad(p as usize), grid.unpad(i as usize));
            coords.distance(GridPos::new(a.0, a.1), GridPos::new(b.0, b.1)) == 1
        });
        if hex_step == Some(true) {
            straight += u64::from(costs[i as usize]);
            i = p;
            let (x, y) = grid.unpad(i as usize);
            cells.push(GridPos::new(x, y));
            continue;
        }
        if hex_step == Some(false)
            || (any_angle_edges && sx != 0 && sy != 0 && sx.abs() != sy.abs())
        {
            // An any-angle segment (Theta*): its cells, and its cost as the search priced it.
            let (a, b) = (grid.unpad(p as usize), grid.unpad(i as usize));
            let (a, b) = (GridPos::new(a.0, a.1), GridPos::new(b.0, b.1));
            let line = segment_cells(grid, a, b).unwrap_or_default();
            cells.extend(line.iter().rev().skip(1));
            any_angle += segment_cost(grid, a, b).unwrap_or(f64::INFINITY);
            i = p;
            continue;
        }
        // Straight, diagonal, or (jump point search) diagonal from p then straight: step back
        // from i to p a cell at a time, straight along the longer axis first.
        let (mut x, mut y) = (i % stride - 1, i / stride - 1);
        let (ax, ay) = (sx.abs(), sy.abs());
        let (ux, uy) = (sx.signum(), sy.signum());
        let straight_leg = if ax > ay { (ux, 0, ax - ay) } else { (0, uy, ay - ax) };
        for ((dx, dy, n), total) in
            [(straight_leg, &mut straight), ((ux, uy, ax.min(ay)), &mut diagonal)]
        {
            for _ in 0..n {
                *total += u64::from(costs[i as usize]);
                i += dx + dy * stride;
                (x, y) = (x + dx, y + dy);
                cells.push(GridPos::new(x as u32, y as u32));
            }
        }
    }
    cells.reverse();
    let cost = straight as f64 + diagonal as f64 * SQRT_2 + any_angle;
    PathResult { cells, cost, stats, complete }
}

/// The cells of `cells` where the direction of travel changes, with the first and last cell.
pub fn turning_points(cells: &[GridPos]) -> Vec<GridPos> {
    let direction = |a: GridPos, b: GridPos| {
        ((i64::from(b.x) - i64::from(a.x)).signum(), (i64::from(b.y) - i64::from(a.y)).signum())
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

/// Cost of a path given cell by cell under the grid's rules, or `None` if some step is not a
/// legal move (off the grid, into a wall, too long, or across a forbidden corner).
pub fn path_cost(grid: &NavGrid, cells: &[GridPos]) -> Option<f64> {
    let first = *cells.first()?;
    if !grid.is_passable(first) {
        return None;
    }
    cells.windows(2).map(|pair| grid.step_cost(pair[0], pair[1])).sum()
}
