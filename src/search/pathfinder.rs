//! [`Pathfinder`]: runs [`PathQuery`]s on one grid: checks them, picks the expansion that fits
//! (jump points, neighbours, hex, Theta*), answers from a table where one was given and serves,
//! and runs the A* loop in one go or a slice at a time.

use std::fmt;
use std::sync::Arc;

use super::any_angle::AnyAngle;
use super::astar::{LoopState, Outcome, Scratch, search};
use super::avoided::Avoided;
use super::goal::{Goal, GoalCells, OneGoal};
use super::hex::HexNeighbors;
use super::jump_point::JumpPoints;
use super::jump_point::bits::JumpBits;
use super::jump_point::{jps_applies, jumps_pay};
use super::linked::{LinkedMaps, LinkedNodes, LinkedPath, LinkedPrep, LinkedSearch, MapPos};
use super::neighbors::Neighbors;
use super::options::{Algorithm, Heuristic, SearchOptions};
use super::precomputed::landmarks::Landmarks;
use super::query::{Goals, PathQuery, SearchHelp, SearchStep};
use super::result::{PathError, PathResult, SearchStats, SearchTrace};
use crate::grid::{GridPos, GridStamp, NavGrid};

/// Runs [`PathQuery`]s ([`find`](Self::find), or [`start`](Self::start) and
/// [`resume`](Self::resume) a slice at a time). Keep one and reuse it: its scratch memory is
/// sized to the largest grid searched and reused, so a query allocates only the path it
/// returns.
#[derive(Default)]
pub struct Pathfinder {
    pub(super) scratch: Scratch,
    avoided: Avoided,
    /// The goals of the last nearest-goal query.
    goals: GoalCells,
    /// The search that ran out of budget, if any.
    paused: Option<Paused>,
    /// What the last search through links worked out from its grids and links alone: used
    /// again while they stay the same.
    linked_prep: Option<Arc<LinkedPrep>>,
    /// The cells of the last search through links, made unseen again for the next.
    linked_nodes: LinkedNodes,
}

/// Where a [`Pathfinder`] searches: one grid (`&NavGrid`, cells are [`GridPos`], paths
/// [`PathResult`]) or several joined by links ([`LinkedMaps`], cells are [`MapPos`], paths
/// [`LinkedPath`]). Sealed: the crate's two are the only ones.
pub trait SearchSpace: Copy + sealed::Sealed {
    /// A cell.
    type Pos: Copy + PartialEq + std::fmt::Debug;
    /// A path found.
    type Path;

    /// Begins `query`, stopping after `budget` expansions if given ([`Pathfinder::find`] and
    /// [`Pathfinder::start`] call it).
    #[doc(hidden)]
    fn begin(
        self,
        pathfinder: &mut Pathfinder,
        query: &PathQuery<Self::Pos>,
        budget: Option<u32>,
    ) -> SearchStep<Self::Path>;

    /// Goes on with the paused search ([`Pathfinder::resume`] calls it).
    #[doc(hidden)]
    fn go_on(
        self,
        pathfinder: &mut Pathfinder,
        query: &PathQuery<Self::Pos>,
        budget: u32,
    ) -> SearchStep<Self::Path>;

    /// The cells the search that found `path` expanded.
    #[doc(hidden)]
    fn expanded(path: &Self::Path) -> u32;
}

mod sealed {
    /// Not nameable outside the crate, so that no other [`SearchSpace`](super::SearchSpace)
    /// can be made.
    pub trait Sealed {}
    impl Sealed for &crate::grid::NavGrid {}
    impl Sealed for crate::search::LinkedMaps<'_> {}
}

/// Which expansion a search uses.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Plain,
    JumpPoint,
    AnyAngle,
}

/// A paused search.
#[derive(Debug)]
enum Paused {
    Grid(GridPaused),
    Linked(Box<LinkedSearch>),
}

/// A paused search on one grid: enough to rebuild its expansion and go on (its open list and
/// cell states stay in the scratch memory, its goals in the pathfinder's).
#[derive(Clone, Copy, Debug)]
struct GridPaused {
    start: GridPos,
    /// The goal; `None` for the nearest of several.
    goal: Option<GridPos>,
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

    /// Bytes of scratch memory held between queries (with what the last search through links
    /// kept: its cells, and what it worked out from the grids and links alone).
    pub fn scratch_bytes(&self) -> usize {
        self.scratch.nodes.capacity() * std::mem::size_of::<super::astar::NodeState>()
            + self.scratch.open.capacity() * std::mem::size_of::<super::astar::OpenNode>()
            + self.avoided.bytes()
            + self.linked_nodes.bytes()
            + self.linked_prep.as_ref().map_or(0, |prep| prep.bytes())
    }

    /// The record of the last search of a [`traced`](PathQuery::traced) query, once; `None`
    /// if it was not traced (or the record was taken).
    pub fn take_trace(&mut self) -> Option<SearchTrace> {
        self.scratch.trace.take()
    }

    /// True while a search begun with [`start`](Self::start) is paused.
    pub fn is_paused(&self) -> bool {
        self.paused.is_some()
    }

    /// Drops the paused search, if any.
    pub fn cancel(&mut self) {
        self.paused = None;
    }

    /// Keeps a paused search across links.
    pub(super) fn pause_linked(&mut self, search: LinkedSearch) {
        self.paused = Some(Paused::Linked(Box::new(search)));
    }

    /// Takes the paused search across links, if that is what is paused.
    pub(super) fn take_linked(&mut self) -> Option<Box<LinkedSearch>> {
        match self.paused.take() {
            Some(Paused::Linked(search)) => Some(search),
            other => {
                self.paused = other;
                None
            }
        }
    }

    /// Goes on with the paused search on one grid.
    fn resume_grid(&mut self, grid: &NavGrid, query: &PathQuery, budget: u32) -> SearchStep {
        let paused = match self.paused.take() {
            Some(Paused::Grid(paused)) => paused,
            other => {
                self.paused = other;
                return SearchStep::Done(Err(PathError::NothingToResume));
            }
        };
        let same_goal = match query.goals {
            Goals::One(goal) => paused.goal == Some(goal),
            Goals::Nearest(_) => paused.goal.is_none(),
        };
        if query.start != paused.start || !same_goal {
            // Not this query's search: it stays paused for its own.
            self.paused = Some(Paused::Grid(paused));
            return SearchStep::Done(Err(PathError::NothingToResume));
        }
        let landmarks = query.landmarks().filter(|l| paused.guided && l.usable_on(grid));
        if grid.stamp() != paused.stamp || paused.guided != landmarks.is_some() {
            return SearchStep::Done(Err(PathError::GridChanged));
        }
        let GridPaused { start, goal, options, kind, state, .. } = paused;
        let at = Resume { state: Some(state), budget: Some(budget), landmarks };
        self.run(kind, grid, start, goal, &options, at)
    }

    /// Checks the query, then answers it from a table or searches.
    fn begin(&mut self, grid: &NavGrid, query: &PathQuery, budget: Option<u32>) -> SearchStep {
        self.paused = None;
        self.scratch.trace = query.traced.then(SearchTrace::default);
        let PathQuery { start, options, .. } = *query;
        let options = &options;
        let (width, height) = (grid.width(), grid.height());
        let done = |error| SearchStep::Done(Err(error));
        if !grid.in_bounds(start) {
            return done(PathError::StartOutOfBounds { start, width, height });
        }
        let goal = match query.goals {
            Goals::One(goal) => {
                if !grid.in_bounds(goal) {
                    return done(PathError::GoalOutOfBounds { goal, width, height });
                }
                Some(goal)
            }
            Goals::Nearest(goals) => {
                if let Some(&goal) = goals.iter().find(|&&g| !grid.in_bounds(g)) {
                    return done(PathError::GoalOutOfBounds { goal, width, height });
                }
                None
            }
        };
        if !grid.is_passable(start) {
            return done(PathError::StartBlocked { start });
        }
        if !(options.weight.is_finite() && options.weight >= 1.0) {
            return done(PathError::InvalidWeight { weight: options.weight });
        }
        if let Some(max_cost) = options.limit.max_cost
            && (max_cost.is_nan() || max_cost < 0.0)
        {
            return done(PathError::InvalidCostLimit { max_cost });
        }
        // The goals the search may end at.
        match (goal, query.goals) {
            (Some(goal), _) => {
                if !grid.is_passable(goal) {
                    return done(PathError::GoalBlocked { goal });
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
                // Component labels answer "unreachable" without a search. A partial request
                // still searches, to find the closest cell it can reach.
                if !options.partial && !grid.may_connect(start, goal) {
                    return done(PathError::Unreachable { start, goal });
                }
            }
            (None, Goals::Nearest(goals)) => {
                let Some(&first) = goals.first() else {
                    return done(PathError::NoGoals);
                };
                let open = goals.iter().copied().filter(|&g| grid.is_passable(g));
                let Some(named) = open.clone().next() else {
                    return done(PathError::GoalBlocked { goal: first });
                };
                let reachable =
                    open.clone().filter(|&g| options.partial || grid.may_connect(start, g));
                if reachable.clone().next().is_none() {
                    return done(PathError::Unreachable { start, goal: named });
                }
                self.goals.set(grid, reachable);
            }
            (None, Goals::One(_)) => unreachable!("one goal is always read above"),
        }
        if let Some(answer) = self.table_answer(grid, query) {
            return SearchStep::Done(answer);
        }
        // Landmarks behind a change that could make them wrong are not used (see
        // `Landmarks::usable_on`).
        let landmarks = query.landmarks().filter(|l| l.usable_on(grid));
        let jps_valid = jps_applies(grid) && goal.is_some();
        // A grid prepared in slices whose bits are not built yet: plain A* (for the whole
        // search, should they be built while it is paused). The same costs.
        let bits_ready = || grid.prepared_index(JumpBits::build).is_some();
        let kind = match options.algorithm {
            Algorithm::ThetaStar => Kind::AnyAngle,
            // Guided, jump point search's fewer, dearer expansions pay on any terrain.
            Algorithm::Auto
                if jps_valid
                    && !options.partial
                    && (landmarks.is_some() || jumps_pay(grid))
                    && bits_ready() =>
            {
                Kind::JumpPoint
            }
            Algorithm::Auto | Algorithm::AStar => Kind::Plain,
            Algorithm::JumpPoint if jps_valid && !options.partial && bits_ready() => {
                Kind::JumpPoint
            }
            Algorithm::JumpPoint if jps_valid && !options.partial => Kind::Plain,
            // With several goals the search expands cell by cell.
            Algorithm::JumpPoint if goal.is_none() && jps_applies(grid) => Kind::Plain,
            Algorithm::JumpPoint => return done(PathError::JumpPointUnsupported),
        };
        // Any-angle paths may cost less than the grid paths the landmarks bound: not guided.
        let landmarks = landmarks.filter(|_| kind != Kind::AnyAngle);
        let goals = &self.goals;
        self.avoided.build(grid, query.avoid, |cell| {
            cell == start
                || match goal {
                    Some(goal) => cell == goal,
                    None => goals.contains(grid.index(cell)),
                }
        });
        let options = match kind {
            Kind::AnyAngle => SearchOptions {
                heuristic: options.heuristic.or(Some(Heuristic::Euclidean)),
                ..*options
            },
            _ => *options,
        };
        let at = Resume { state: None, budget, landmarks };
        self.run(kind, grid, start, goal, &options, at)
    }

    /// The answer of the query's table, when it has one that is current for `grid` and answers
    /// this query; `None` when a search must answer.
    fn table_answer(
        &mut self,
        grid: &NavGrid,
        query: &PathQuery,
    ) -> Option<Result<PathResult, PathError>> {
        let Goals::One(goal) = query.goals else { return None };
        if !query.avoid.is_empty() || query.traced || !table_answers(&query.options) {
            return None;
        }
        match query.help? {
            SearchHelp::PathTable(table) => table.answer(grid, query.start, goal),
            SearchHelp::FirstMoves(table) => {
                table.answer(grid, &mut self.scratch, query.start, goal)
            }
            SearchHelp::Landmarks(_) => None,
        }
    }

    /// Runs (or, with a state to resume, goes on with) the search loop with the expansion of
    /// `kind`, towards `goal` or (`None`) the nearest of the pathfinder's goals.
    fn run(
        &mut self,
        kind: Kind,
        grid: &NavGrid,
        start: GridPos,
        goal: Option<GridPos>,
        options: &SearchOptions,
        at: Resume,
    ) -> SearchStep {
        let landmarks = at.landmarks;
        let s = (&mut self.scratch, &self.avoided);
        let outcome = match goal {
            Some(goal) => {
                let target = OneGoal::new(grid, goal, landmarks);
                run_loop(s, kind, grid, start, &target, options, at)
            }
            None => {
                let target = self.goals.goal(grid, landmarks);
                run_loop(s, kind, grid, start, &target, options, at)
            }
        };
        match outcome {
            Outcome::Done(result) => SearchStep::Done(result),
            Outcome::Paused(state) => {
                let stamp = grid.stamp();
                let guided = landmarks.is_some();
                let options = *options;
                let paused = GridPaused { start, goal, options, kind, stamp, state, guided };
                self.paused = Some(Paused::Grid(paused));
                SearchStep::Paused { expanded: state.stats.expanded }
            }
        }
    }
}

/// Where a run of the loop begins: afresh or from a paused state, with a budget or without,
/// guided by landmarks or not.
#[derive(Clone, Copy)]
struct Resume<'a> {
    state: Option<LoopState>,
    budget: Option<u32>,
    landmarks: Option<&'a Landmarks>,
}

/// A table's answer is the search's for these options: an optimal search with no cost cap
/// and no partial path.
pub(crate) fn table_answers(options: &SearchOptions) -> bool {
    matches!(options.algorithm, Algorithm::Auto | Algorithm::AStar | Algorithm::JumpPoint)
        && options.weight >= 1.0
        && options.limit.max_cost.is_none()
        && !options.partial
}

/// The A* loop over the expansion of `kind`.
fn run_loop<G: Goal>(
    (s, avoided): (&mut Scratch, &Avoided),
    kind: Kind,
    grid: &NavGrid,
    start: GridPos,
    goal: &G,
    options: &SearchOptions,
    at: Resume,
) -> Outcome {
    let Resume { state: resume, budget, landmarks } = at;
    let avoided = avoided.any().then_some(avoided);
    // Jump point search's bits: built on the grid's first jump point search.
    let bits = (kind == Kind::JumpPoint).then(|| grid.prepared_index(JumpBits::build)).flatten();
    let kind = if kind == Kind::JumpPoint && bits.is_none() { Kind::Plain } else { kind };
    if let Some(hex) = HexNeighbors::new(grid) {
        // Jump point search never runs on a hex grid (`jps_applies`).
        if kind == Kind::AnyAngle {
            let expansion = AnyAngle(hex);
            search(s, grid, start, goal, options, avoided, &expansion, resume, budget, landmarks)
        } else {
            search(s, grid, start, goal, options, avoided, &hex, resume, budget, landmarks)
        }
    } else {
        match (kind, bits, goal.one()) {
            (Kind::AnyAngle, ..) => {
                let expansion = AnyAngle(Neighbors::new(grid, avoided));
                search(
                    s, grid, start, goal, options, avoided, &expansion, resume, budget, landmarks,
                )
            }
            (Kind::JumpPoint, Some(bits), Some(one)) if avoided.is_some() => {
                let expansion = JumpPoints::<true>::new(grid, bits, Some(one), avoided);
                search(s, grid, start, goal, options, None, &expansion, resume, budget, landmarks)
            }
            (Kind::JumpPoint, Some(bits), Some(one)) => {
                let expansion = JumpPoints::<false>::new(grid, bits, Some(one), None);
                search(s, grid, start, goal, options, None, &expansion, resume, budget, landmarks)
            }
            _ => {
                let expansion = Neighbors::new(grid, avoided);
                search(
                    s, grid, start, goal, options, avoided, &expansion, resume, budget, landmarks,
                )
            }
        }
    }
}

impl SearchSpace for &NavGrid {
    type Pos = GridPos;
    type Path = PathResult;

    fn begin(
        self,
        pathfinder: &mut Pathfinder,
        query: &PathQuery,
        budget: Option<u32>,
    ) -> SearchStep {
        pathfinder.begin(self, query, budget)
    }

    fn go_on(self, pathfinder: &mut Pathfinder, query: &PathQuery, budget: u32) -> SearchStep {
        pathfinder.resume_grid(self, query, budget)
    }

    fn expanded(path: &PathResult) -> u32 {
        path.stats.expanded
    }
}

impl Pathfinder {
    /// The answer to `query` on `space` (a `&NavGrid`, or [`LinkedMaps`]): the cheapest path
    /// (or, with a weight above 1, one within that factor of the cheapest). Never panics: every
    /// bad input is a [`PathError`]. Drops a paused search.
    ///
    /// ```
    /// use bevy_tilemap_nav::grid::{Cell, GridPos, NavGrid};
    /// use bevy_tilemap_nav::search::{PathQuery, Pathfinder};
    ///
    /// // A wall with a gap at the bottom.
    /// let mut grid = NavGrid::new(5, 5).unwrap();
    /// grid.fill_rect(GridPos::new(2, 0), GridPos::new(2, 3), Cell::Blocked).unwrap();
    /// let mut pathfinder = Pathfinder::new();
    /// let path = pathfinder.find(&grid, &PathQuery::new(GridPos::new(0, 0), GridPos::new(4, 0)));
    /// let path = path.unwrap();
    /// assert_eq!(path.cells.first(), Some(&GridPos::new(0, 0)));
    /// assert_eq!(path.end(), GridPos::new(4, 0));
    /// assert!(path.cells.contains(&GridPos::new(2, 4)));
    /// ```
    pub fn find<S>(&mut self, space: S, query: &PathQuery<S::Pos>) -> Result<S::Path, PathError>
    where
        S: SearchSpace,
    {
        match space.begin(self, query, None) {
            SearchStep::Done(result) => result,
            SearchStep::Paused { .. } => unreachable!("a search without a budget never pauses"),
        }
    }

    /// Begins `query` on `space` and stops after `budget` expanded cells if it has not
    /// finished, to go on later with [`resume`](Self::resume): a long search spread over several
    /// frames. The answer is the same as in one go. Beginning another search (or a
    /// [`find`](Self::find)) drops a paused one.
    ///
    /// ```
    /// use bevy_tilemap_nav::grid::{GridPos, NavGrid};
    /// use bevy_tilemap_nav::search::{Algorithm, PathQuery, Pathfinder, SearchOptions, SearchStep};
    ///
    /// let grid = NavGrid::new(64, 64).unwrap();
    /// let astar = SearchOptions { algorithm: Algorithm::AStar, ..SearchOptions::default() };
    /// let query = PathQuery::new(GridPos::new(0, 0), GridPos::new(63, 40)).with_options(astar);
    /// let mut pathfinder = Pathfinder::new();
    /// let mut step = pathfinder.start(&grid, &query, 10);
    /// let mut calls = 1;
    /// while let SearchStep::Paused { .. } = step {
    ///     step = pathfinder.resume(&grid, &query, 10); // next frame
    ///     calls += 1;
    /// }
    /// let SearchStep::Done(Ok(path)) = step else { panic!() };
    /// assert!(calls > 1);
    /// assert_eq!(path.cost, pathfinder.find(&grid, &query).unwrap().cost);
    /// ```
    pub fn start<S>(
        &mut self,
        space: S,
        query: &PathQuery<S::Pos>,
        budget: u32,
    ) -> SearchStep<S::Path>
    where
        S: SearchSpace,
    {
        space.begin(self, query, Some(budget))
    }

    /// Goes on with the paused search for at most `budget` more expanded cells. `space` must be
    /// the one it began on, unchanged ([`PathError::GridChanged`] otherwise: the search is
    /// dropped, start it again), and `query` the query it began with (its landmarks guide the
    /// rest; a search begun guided goes on only with landmarks still usable on the grid).
    /// Nothing paused, or another query: [`PathError::NothingToResume`].
    pub fn resume<S>(
        &mut self,
        space: S,
        query: &PathQuery<S::Pos>,
        budget: u32,
    ) -> SearchStep<S::Path>
    where
        S: SearchSpace,
    {
        space.go_on(self, query, budget)
    }
}

impl SearchSpace for LinkedMaps<'_> {
    type Pos = MapPos;
    type Path = LinkedPath;

    fn begin(
        self,
        pathfinder: &mut Pathfinder,
        query: &PathQuery<MapPos>,
        budget: Option<u32>,
    ) -> SearchStep<LinkedPath> {
        pathfinder.paused = None;
        pathfinder.scratch.trace = query.traced.then(SearchTrace::default);
        let options = &query.options;
        let prep = match pathfinder.linked_prep(self, options.algorithm) {
            Ok(prep) => prep,
            Err(error) => return SearchStep::Done(Err(error)),
        };
        let space = (self.maps, &prep, self.places);
        let nodes = std::mem::take(&mut pathfinder.linked_nodes);
        match LinkedSearch::new(space, query.start, query.goals, options, query.avoid, nodes) {
            Ok(search) => pathfinder.step_linked(self, query, search, budget),
            Err(error) => SearchStep::Done(Err(error)),
        }
    }

    fn go_on(
        self,
        pathfinder: &mut Pathfinder,
        query: &PathQuery<MapPos>,
        budget: u32,
    ) -> SearchStep<LinkedPath> {
        match pathfinder.take_linked() {
            Some(search) => pathfinder.step_linked(self, query, *search, Some(budget)),
            None => SearchStep::Done(Err(PathError::NothingToResume)),
        }
    }

    fn expanded(path: &LinkedPath) -> u32 {
        path.stats.expanded
    }
}

impl Pathfinder {
    /// What a search through `world` with `algorithm` works out from its grids and links
    /// alone: the one kept from the last search while it serves, else worked out (and kept).
    fn linked_prep(
        &mut self,
        world: LinkedMaps,
        algorithm: Algorithm,
    ) -> Result<Arc<LinkedPrep>, PathError> {
        let space = (world.maps, world.links, world.places);
        if let Some(prep) = self.linked_prep.as_ref().filter(|p| p.serves(space, algorithm)) {
            return Ok(Arc::clone(prep));
        }
        let prep = Arc::new(LinkedPrep::new(space, algorithm)?);
        self.linked_prep = Some(Arc::clone(&prep));
        Ok(prep)
    }

    /// Steps a search across links for `budget` expansions (to its end without one), keeping
    /// it paused if it has not ended; an ended one's walks are straightened for Theta*.
    fn step_linked(
        &mut self,
        world: LinkedMaps,
        query: &PathQuery<MapPos>,
        mut search: LinkedSearch,
        budget: Option<u32>,
    ) -> SearchStep<LinkedPath> {
        match search.step(world.maps, budget.unwrap_or(u32::MAX)) {
            SearchStep::Paused { expanded } if budget.is_some() => {
                self.pause_linked(search);
                SearchStep::Paused { expanded }
            }
            SearchStep::Paused { .. } => self.step_linked(world, query, search, None),
            SearchStep::Done(found) => {
                self.linked_nodes = search.take_nodes();
                SearchStep::Done(found.map(|found| {
                    self.straighten(world.maps, found, query.search_options(), query.avoid)
                }))
            }
        }
    }

    /// With [`Algorithm::ThetaStar`], each walk of a linked path searched again any-angle
    /// between its ends (never dearer than the grid walk); otherwise the path as it is.
    fn straighten(
        &mut self,
        maps: &[&NavGrid],
        mut found: LinkedPath,
        options: &SearchOptions,
        avoid: &[MapPos],
    ) -> LinkedPath {
        if options.algorithm != Algorithm::ThetaStar {
            return found;
        }
        let options = SearchOptions { partial: false, ..*options };
        for leg in &mut found.legs {
            let (a, b) = (leg.path.cells[0], leg.path.end());
            let walled: Vec<GridPos> =
                avoid.iter().filter(|p| p.map == leg.map).map(|p| p.cell).collect();
            let query = PathQuery::new(a, b).with_options(options).avoiding(&walled);
            if let Ok(walk) = self.find(maps[leg.map], &query)
                && walk.cost <= leg.path.cost
            {
                found.cost -= leg.path.cost - walk.cost;
                leg.path = walk;
            }
        }
        found
    }
}
