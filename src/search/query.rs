//! [`PathQuery`]: the one way to ask for a path. A query names where from and where to, and
//! carries the options that shape the search; each option is a method that can be added to any
//! other. [`Pathfinder::find`](super::Pathfinder::find) answers it in one go,
//! [`start`](super::Pathfinder::start) and [`resume`](super::Pathfinder::resume) a slice at a
//! time, on one grid or on several joined by links ([`LinkedMaps`](super::LinkedMaps)).

use super::options::SearchOptions;
use super::precomputed::first_moves::FirstMoveTable;
use super::precomputed::landmarks::Landmarks;
use super::precomputed::path_table::PathTable;
use super::result::{PathError, PathResult};
use crate::grid::GridPos;

/// A question for a [`Pathfinder`](super::Pathfinder): a path from `start` to a goal (or to the nearest of several
/// goals), with options. `P` is a cell: a [`GridPos`] on one grid, a
/// [`MapPos`](super::MapPos) on [`LinkedMaps`](super::LinkedMaps).
///
/// | Option | Method | What it does |
/// |---|---|---|
/// | search options | [`options`](Self::options) | algorithm, heuristic, weight, limits, partial paths ([`SearchOptions`]) |
/// | avoided cells | [`avoiding`](Self::avoiding) | cells walled for this query only (others standing in the way) |
/// | nearest goal | [`PathQuery::nearest`] | the cheapest of several goals |
/// | precomputed help | [`guided`](Self::guided), [`table`](Self::table), [`first_moves`](Self::first_moves) | landmarks that guide the search, or a table that answers it |
/// | trace | [`traced`](Self::traced) | a record of the cells the search touched ([`Pathfinder::take_trace`](super::Pathfinder::take_trace)) |
/// | in slices | [`Pathfinder::start`](super::Pathfinder::start), [`resume`](super::Pathfinder::resume) | a long search spread over frames |
/// | across links | [`LinkedMaps`](super::LinkedMaps) as the place searched | several grids joined by stairs, doors, teleporters |
///
/// Every option goes with every other. Where one cannot help another, the answer is still
/// right and only the help is left out: landmarks and tables help on one grid only (across
/// links the search runs unguided), a table answers only a plain query (one goal, nothing
/// avoided, no cost cap or partial path, not any-angle, not traced: otherwise the search runs,
/// guided by nothing), jump point search needs one goal (with several the search expands cell
/// by cell), and a trace records a search on one grid (across links it stays empty).
///
/// ```
/// use bevy_tilemap_nav::grid::{Cell, GridPos, NavGrid};
/// use bevy_tilemap_nav::search::{Algorithm, PathQuery, Pathfinder, SearchOptions};
///
/// let mut grid = NavGrid::new(10, 10).unwrap();
/// // A wall with a gap two cells wide at the top.
/// grid.fill_rect(GridPos::new(5, 0), GridPos::new(5, 7), Cell::Blocked).unwrap();
/// let mut pathfinder = Pathfinder::new();
/// let (start, goal) = (GridPos::new(0, 0), GridPos::new(9, 0));
///
/// // The cheapest path round the wall.
/// let path = pathfinder.find(&grid, &PathQuery::new(start, goal)).unwrap();
/// assert!(path.cells.contains(&GridPos::new(5, 8)));
///
/// // The same, with a cell kept clear, by A*, traced.
/// let keep_clear = [GridPos::new(5, 8)];
/// let query = PathQuery::new(start, goal)
///     .avoiding(&keep_clear)
///     .with_options(SearchOptions { algorithm: Algorithm::AStar, ..SearchOptions::default() })
///     .traced();
/// let around = pathfinder.find(&grid, &query).unwrap();
/// assert!(around.cells.contains(&GridPos::new(5, 9)));
/// assert!(pathfinder.take_trace().is_some_and(|trace| !trace.expanded.is_empty()));
///
/// // The nearest of two exits.
/// let exits = [GridPos::new(9, 9), GridPos::new(0, 9)];
/// let nearest = pathfinder.find(&grid, &PathQuery::nearest(start, &exits)).unwrap();
/// assert_eq!(nearest.end(), GridPos::new(0, 9));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct PathQuery<'a, P = GridPos> {
    pub(super) start: P,
    pub(super) goals: Goals<'a, P>,
    pub(super) options: SearchOptions,
    pub(super) avoid: &'a [P],
    pub(super) help: Option<SearchHelp<'a>>,
    pub(super) traced: bool,
}

/// Where a query may end.
#[derive(Clone, Copy, Debug)]
pub(super) enum Goals<'a, P> {
    One(P),
    Nearest(&'a [P]),
}

/// What was worked out ahead for a grid, given to a query with [`PathQuery::with_help`]: a
/// `&Landmarks`, a `&PathTable` or a `&FirstMoveTable` turns into one.
#[derive(Clone, Copy, Debug)]
pub enum SearchHelp<'a> {
    /// Estimates the remaining cost with these landmarks too.
    Landmarks(&'a Landmarks),
    /// Answers from this path table.
    PathTable(&'a PathTable),
    /// Answers from this first-move table.
    FirstMoves(&'a FirstMoveTable),
}

impl<'a> From<&'a Landmarks> for SearchHelp<'a> {
    fn from(landmarks: &'a Landmarks) -> Self {
        SearchHelp::Landmarks(landmarks)
    }
}

impl<'a> From<&'a PathTable> for SearchHelp<'a> {
    fn from(table: &'a PathTable) -> Self {
        SearchHelp::PathTable(table)
    }
}

impl<'a> From<&'a FirstMoveTable> for SearchHelp<'a> {
    fn from(table: &'a FirstMoveTable) -> Self {
        SearchHelp::FirstMoves(table)
    }
}

impl<'a, P: Copy> PathQuery<'a, P> {
    /// The cheapest path from `start` to `goal`, with the default options.
    pub fn new(start: P, goal: P) -> Self {
        Self::with_goals(start, Goals::One(goal))
    }

    /// The cheapest path from `start` to whichever of `goals` is cheapest to reach (the closest
    /// exit, the nearest well): one search, ending at the first of equally cheap goals it
    /// meets. Blocked goals are passed over; errors: no goals ([`PathError::NoGoals`]), a goal
    /// off its grid, every goal blocked ([`PathError::GoalBlocked`] for the first), none
    /// reachable ([`PathError::Unreachable`]).
    pub fn nearest(start: P, goals: &'a [P]) -> Self {
        Self::with_goals(start, Goals::Nearest(goals))
    }

    fn with_goals(start: P, goals: Goals<'a, P>) -> Self {
        let options = SearchOptions::default();
        Self { start, goals, options, avoid: &[], help: None, traced: false }
    }

    /// Searches with `options` (algorithm, heuristic, weight, limits, partial paths).
    pub fn with_options(mut self, options: SearchOptions) -> Self {
        self.options = options;
        self
    }

    /// Walls the cells in `cells` for this query only (other characters standing in the way,
    /// say): the path is the cheapest on the grid with those cells blocked, corner rule
    /// included (under [`CornerRule::NoCornerCutting`](crate::grid::CornerRule::NoCornerCutting)
    /// no diagonal step squeezes past an avoided cell, as it would not past a wall). The start
    /// and the goals are never avoided; cells outside the grid are ignored. Jump point search
    /// still applies: it stops its runs near the avoided cells, so a few cost little.
    pub fn avoiding(mut self, cells: &'a [P]) -> Self {
        self.avoid = cells;
        self
    }

    /// Searches with what was worked out ahead for the grid (the one way to pass it):
    /// - `&Landmarks` estimate the remaining cost too (see [`Landmarks`]): the same optimal
    ///   cost, usually after far less work on grids with terrain. Landmarks built for another
    ///   grid, or for an earlier state of this one that cells have since opened or got cheaper
    ///   from (see [`Landmarks::usable_on`]), are not used: the search then runs unguided.
    /// - a `&PathTable` or a `&FirstMoveTable` answers while it is current for the grid and the
    ///   query is one it answers (see [`PathQuery`]); otherwise the query searches. The same
    ///   cost either way.
    pub fn with_help(mut self, help: impl Into<SearchHelp<'a>>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Renamed [`PathQuery::with_options`].
    #[deprecated(note = "renamed with_options")]
    pub fn options(self, options: SearchOptions) -> Self {
        self.with_options(options)
    }

    /// Renamed: [`PathQuery::with_help`] takes every kind of help.
    #[deprecated(note = "use with_help(&landmarks)")]
    pub fn guided(self, landmarks: &'a Landmarks) -> Self {
        self.with_help(landmarks)
    }

    /// Renamed: [`PathQuery::with_help`] takes every kind of help.
    #[deprecated(note = "use with_help(&table)")]
    pub fn table(self, table: &'a PathTable) -> Self {
        self.with_help(table)
    }

    /// Renamed: [`PathQuery::with_help`] takes every kind of help.
    #[deprecated(note = "use with_help(&table)")]
    pub fn first_moves(self, table: &'a FirstMoveTable) -> Self {
        self.with_help(table)
    }

    /// Records what the search does, to be taken with
    /// [`Pathfinder::take_trace`](super::Pathfinder::take_trace) once it ends.
    pub fn traced(mut self) -> Self {
        self.traced = true;
        self
    }

    /// Where the query starts.
    pub fn start(&self) -> P {
        self.start
    }

    /// The search options it runs with.
    pub fn search_options(&self) -> &SearchOptions {
        &self.options
    }

    /// The landmarks it is guided by, if any.
    pub(super) fn landmarks(&self) -> Option<&'a Landmarks> {
        match self.help {
            Some(SearchHelp::Landmarks(landmarks)) => Some(landmarks),
            _ => None,
        }
    }
}

/// How far a search begun with [`Pathfinder::start`](super::Pathfinder::start) got. `T` is the path found: a
/// [`PathResult`] on one grid, a [`LinkedPath`](super::LinkedPath) across links.
#[derive(Clone, Debug, PartialEq)]
pub enum SearchStep<T = PathResult> {
    /// Finished: the path, or why there is none.
    Done(Result<T, PathError>),
    /// Out of budget: go on with [`Pathfinder::resume`](super::Pathfinder::resume) on the
    /// same, unchanged grids.
    Paused {
        /// Cells expanded so far.
        expanded: u32,
    },
}
