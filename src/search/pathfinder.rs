//! [`Pathfinder`]: the searches' entry points, each query run by the A* loop over the expansion
//! that fits it (jump points, neighbours, hex, Theta*), in one go or a step at a time.

use std::fmt;

use super::any_angle::AnyAngle;
use super::astar::{LoopState, Outcome, Scratch, search};
use super::avoided::Avoided;
use super::hex::HexNeighbors;
use super::jump_point::JumpPoints;
use super::jump_point::bits::JumpBits;
use super::jump_point::jps_applies;
use super::neighbors::Neighbors;
use super::options::{Algorithm, Heuristic, SearchOptions};
use super::precomputed::landmarks::Landmarks;
use super::result::{PathError, PathResult, SearchStats, SearchTrace};
use crate::grid::{GridPos, GridStamp, NavGrid};

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
    pub(super) scratch: Scratch,
    avoided: Avoided,
    /// The search that ran out of budget, if any.
    pub(super) paused: Option<Paused>,
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

/// On a grid of several costs, jump point search expands every cell on the edge of a cost
/// change in all directions, and does more work than plain A* per such cell: `Auto` takes it
/// while at most a quarter of the open cells are such edges (painted areas, roads, rivers), not
/// on ground where the cost changes from cell to cell.
fn jumps_pay(grid: &NavGrid) -> bool {
    grid.has_uniform_cost()
        || grid
            .cell_index(JumpBits::build)
            .is_some_and(|bits| bits.mixed_cells() * 4 <= grid.passable_count())
}

/// Which expansion a search uses.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Plain,
    JumpPoint,
    AnyAngle,
}

/// A paused search: enough to rebuild its expansion and go on (its open list and cell states
/// stay in the scratch memory).
#[derive(Clone, Copy, Debug)]
pub(super) struct Paused {
    start: GridPos,
    goal: GridPos,
    options: SearchOptions,
    kind: Kind,
    stamp: GridStamp,
    state: LoopState,
    /// Begun guided by landmarks: goes on only with them (the estimate must not change
    /// midway).
    guided: bool,
}

impl fmt::Debug for Pathfinder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pathfinder").field("cells", &self.scratch.nodes.len()).finish()
    }
}

impl Pathfinder {
    /// A pathfinder with no scratch memory yet (it grows to the largest grid searched).
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes of scratch memory held between queries.
    pub fn scratch_bytes(&self) -> usize {
        self.scratch.nodes.capacity() * std::mem::size_of::<super::astar::NodeState>()
            + self.scratch.open.capacity() * std::mem::size_of::<super::astar::OpenNode>()
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

    /// Like [`find_path`](Self::find_path), estimating the remaining cost with `landmarks` too
    /// (see [`Landmarks`]): the same optimal cost, usually after far less work on grids with
    /// terrain. Landmarks built for another grid, or for an earlier state of this one that
    /// cells have since opened or got cheaper from (see [`Landmarks::usable_on`]), are not
    /// used: the search then runs as [`find_path`](Self::find_path) would.
    pub fn find_path_guided(
        &mut self,
        grid: &NavGrid,
        landmarks: &Landmarks,
        start: GridPos,
        goal: GridPos,
        options: &SearchOptions,
    ) -> Result<PathResult, PathError> {
        self.find_path_guided_avoiding(grid, landmarks, start, goal, options, &[])
    }

    /// [`find_path_guided`](Self::find_path_guided) with the cells in `avoid` walled for this
    /// query (see [`find_path_avoiding`](Self::find_path_avoiding)).
    pub fn find_path_guided_avoiding(
        &mut self,
        grid: &NavGrid,
        landmarks: &Landmarks,
        start: GridPos,
        goal: GridPos,
        options: &SearchOptions,
        avoid: &[GridPos],
    ) -> Result<PathResult, PathError> {
        self.whole(grid, start, goal, options, avoid, Some(landmarks))
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
    /// those cells blocked, corner rule included (under [`CornerRule::NoCornerCutting`](crate::grid::CornerRule::NoCornerCutting) no
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
        self.whole(grid, start, goal, options, avoid, None)
    }

    /// A search without a budget, so run to its end.
    fn whole(
        &mut self,
        grid: &NavGrid,
        start: GridPos,
        goal: GridPos,
        options: &SearchOptions,
        avoid: &[GridPos],
        landmarks: Option<&Landmarks>,
    ) -> Result<PathResult, PathError> {
        match self.begin(grid, start, goal, options, avoid, None, landmarks) {
            SearchStep::Done(result) => result,
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
        self.begin(grid, start, goal, options, avoid, Some(max_expansions), None)
    }

    /// Goes on with the paused search for at most `max_expansions` more expanded cells. `grid`
    /// must be the grid it began on, unchanged ([`PathError::GridChanged`] otherwise: the
    /// search is dropped, start it again). A search begun guided by landmarks goes on with
    /// [`resume_search_guided`](Self::resume_search_guided) instead.
    pub fn resume_search(&mut self, grid: &NavGrid, max_expansions: u32) -> SearchStep {
        self.resume(grid, None, max_expansions)
    }

    /// [`start_search`](Self::start_search) guided by `landmarks` (see
    /// [`find_path_guided`](Self::find_path_guided)); go on with
    /// [`resume_search_guided`](Self::resume_search_guided).
    #[allow(clippy::too_many_arguments)]
    pub fn start_search_guided(
        &mut self,
        grid: &NavGrid,
        landmarks: &Landmarks,
        start: GridPos,
        goal: GridPos,
        options: &SearchOptions,
        avoid: &[GridPos],
        max_expansions: u32,
    ) -> SearchStep {
        self.begin(grid, start, goal, options, avoid, Some(max_expansions), Some(landmarks))
    }

    /// Goes on with a paused search, with the same landmarks it began with. A search begun
    /// guided goes on only with landmarks usable on `grid`: resumed without them (or with
    /// [`resume_search`](Self::resume_search)) it is dropped with
    /// [`PathError::GridChanged`], to begin again. A search begun unguided ignores them.
    pub fn resume_search_guided(
        &mut self,
        grid: &NavGrid,
        landmarks: Option<&Landmarks>,
        max_expansions: u32,
    ) -> SearchStep {
        self.resume(grid, landmarks, max_expansions)
    }

    fn resume(
        &mut self,
        grid: &NavGrid,
        landmarks: Option<&Landmarks>,
        max_expansions: u32,
    ) -> SearchStep {
        let Some(paused) = self.paused.take() else {
            return SearchStep::Done(Err(PathError::NothingToResume));
        };
        let landmarks = landmarks.filter(|l| paused.guided && l.usable_on(grid));
        if grid.stamp() != paused.stamp || paused.guided != landmarks.is_some() {
            return SearchStep::Done(Err(PathError::GridChanged));
        }
        let Paused { start, goal, options, kind, state, .. } = paused;
        let budget = Some(max_expansions);
        self.run(kind, grid, start, goal, &options, Some(state), budget, landmarks)
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
    #[allow(clippy::too_many_arguments)]
    fn begin(
        &mut self,
        grid: &NavGrid,
        start: GridPos,
        goal: GridPos,
        options: &SearchOptions,
        avoid: &[GridPos],
        budget: Option<u32>,
        landmarks: Option<&Landmarks>,
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
                neighborhood: grid.neighborhood(),
            }));
        }
        // Component labels answer "unreachable" without a search. A partial request still
        // searches, to find the closest cell it can reach.
        if !options.partial && !grid.connected(start, goal) {
            return SearchStep::Done(Err(PathError::Unreachable { start, goal }));
        }
        // Landmarks behind a change that could make them wrong are not used (see
        // `Landmarks::usable_on`).
        let landmarks = landmarks.filter(|l| l.usable_on(grid));
        let jps_valid = jps_applies(grid);
        let kind = match options.algorithm {
            Algorithm::ThetaStar => Kind::AnyAngle,
            // Guided, jump point search's fewer, dearer expansions pay on any terrain.
            Algorithm::Auto
                if jps_valid && !options.partial && (landmarks.is_some() || jumps_pay(grid)) =>
            {
                Kind::JumpPoint
            }
            Algorithm::Auto | Algorithm::AStar => Kind::Plain,
            Algorithm::JumpPoint if jps_valid && !options.partial => Kind::JumpPoint,
            Algorithm::JumpPoint => return SearchStep::Done(Err(PathError::JumpPointUnsupported)),
        };
        // Any-angle paths may cost less than the grid paths the landmarks bound: not guided.
        let landmarks = landmarks.filter(|_| kind != Kind::AnyAngle);
        self.avoided.build(grid, avoid, start, goal);
        let options = match kind {
            Kind::AnyAngle => SearchOptions {
                heuristic: options.heuristic.or(Some(Heuristic::Euclidean)),
                ..*options
            },
            _ => *options,
        };
        self.run(kind, grid, start, goal, &options, None, budget, landmarks)
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
        landmarks: Option<&Landmarks>,
    ) -> SearchStep {
        let avoided = self.avoided.any().then_some(&self.avoided);
        // Jump point search's bits: built on the grid's first jump point search.
        let bits = (kind == Kind::JumpPoint).then(|| grid.cell_index(JumpBits::build)).flatten();
        let kind = if kind == Kind::JumpPoint && bits.is_none() { Kind::Plain } else { kind };
        let s = &mut self.scratch;
        let outcome = if let Some(hex) = HexNeighbors::new(grid) {
            // Jump point search never runs on a hex grid (`jps_applies`).
            if kind == Kind::AnyAngle {
                let expansion = AnyAngle(hex);
                search(
                    s, grid, start, goal, options, avoided, &expansion, resume, budget, landmarks,
                )
            } else {
                search(s, grid, start, goal, options, avoided, &hex, resume, budget, landmarks)
            }
        } else {
            match (kind, bits) {
                (Kind::AnyAngle, _) => {
                    let expansion = AnyAngle(Neighbors::new(grid, avoided));
                    search(
                        s, grid, start, goal, options, avoided, &expansion, resume, budget,
                        landmarks,
                    )
                }
                (Kind::JumpPoint, Some(bits)) if avoided.is_some() => {
                    let expansion = JumpPoints::<true>::new(grid, bits, goal, avoided);
                    search(
                        s, grid, start, goal, options, None, &expansion, resume, budget, landmarks,
                    )
                }
                (Kind::JumpPoint, Some(bits)) => {
                    let expansion = JumpPoints::<false>::new(grid, bits, goal, None);
                    search(
                        s, grid, start, goal, options, None, &expansion, resume, budget, landmarks,
                    )
                }
                (Kind::Plain | Kind::JumpPoint, _) => {
                    let expansion = Neighbors::new(grid, avoided);
                    search(
                        s, grid, start, goal, options, avoided, &expansion, resume, budget,
                        landmarks,
                    )
                }
            }
        };
        match outcome {
            Outcome::Done(result) => SearchStep::Done(result),
            Outcome::Paused(state) => {
                let stamp = grid.stamp();
                let guided = landmarks.is_some();
                let options = *options;
                self.paused = Some(Paused { start, goal, options, kind, stamp, state, guided });
                SearchStep::Paused { expanded: state.stats.expanded }
            }
        }
    }
}
