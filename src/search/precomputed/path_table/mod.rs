//! Precomputed answers for grids that rarely change: a [`PathTable`].
//!
//! What it is: a subgoal graph (Uras, Koenig and Hernández 2013) with the distance between every
//! pair of its subgoals worked out ahead. Subgoals are the open cells at the convex corners of
//! walls, the only places a shortest path on an 8-way grid without corner cutting needs to turn.
//! Each cell keeps the short list of subgoals it reaches by a "diagonal first" run (diagonal
//! steps, then straight ones, no subgoal on the way), and the list of those that reach it that
//! way. A query is then a few table lookups: the best of `start -> a -> ... -> b -> goal` over
//! `a` in the start's list and `b` in the goal's, unless the goal is reached by one run. The path
//! is read back hop by hop from a table of predecessors, and each hop is one diagonal-first run
//! (subgoals a path passes straight through are skipped: only its turns are read).
//! Subgoals are numbered in the order a Hilbert curve meets them and the goal's list is kept in
//! number order: the subgoals near the start and near the goal have numbers near each other, so
//! the lookups of a query share cache lines.
//!
//! Why this one: jump point search tables (JPS+) still search at query time and, with goal
//! bounding, take a search from every cell to build (minutes on a 512 x 512 map); compressed
//! path databases take the same all-cells work. Subgoal corners are few on game maps (tens to a
//! few thousand), so the table of all their distances builds in well under a second and answers
//! without any search. The price: maps with very many corners (mazes, noise) are refused
//! ([`PathTableError::TooManySubgoals`]), and the grid must have one cost, 8-way moves and no
//! corner cutting (the grid the table's shortest-path theory holds for).
//!
//! Walls between cells (fences) are read as the jump point search reads them: no step crosses
//! one, and no diagonal step passes a corner one touches. The end of a fence is a corner paths
//! bend round as they bend round a wall cell's, so the cells there are subgoals too: an open
//! cell with both straight steps of a diagonal open (at least one way) and the diagonal step
//! between them not.
//!
//! One-way edges (ledges) are read the same way: a step crosses one only the way it lets, and
//! no diagonal passes a corner one touches. A path still turns only at subgoals: where it could
//! not take the diagonal first, the diagonal's corner touches a barred cell or edge, and the
//! cell it turns at has both straight steps open one way or the other. The distances between
//! subgoals follow the runs the way they go (the table of distances is then not symmetric). A
//! cell's list of the subgoals that reach it is worked out by running back from the cell, over
//! the grid with every edge turned round; that grid has the same subgoals, since the test reads
//! both ways of each edge.

use std::f64::consts::SQRT_2;
use std::fmt;

use super::slices::{SlicedBuild, Work, run_to_end};
use crate::grid::{GridPos, GridStamp, NavGrid, Neighborhood};
use crate::search::bit_set::BitSet;
use crate::search::result::{PathError, PathResult, SearchStats};

mod build;
mod bytes;

/// The version of [`PathTable::to_binary`]'s format this crate writes, and the newest it reads.
pub const TABLE_FORMAT_VERSION: u32 = 1;

const TABLE_MAGIC: &[u8; 4] = b"TNPT";

/// The most corners a cell's list may hold on average over the grid, each way (from the cell,
/// to the cell), while a [`PathTable`] is built; past it the build stops with
/// [`PathTableError::TooOpen`].
pub const MAX_LIST_ENTRIES_PER_CELL: usize = 96;

/// The most cells a build's work is counted for at a time (see [`SlicedBuild`]).
const SPAN: usize = 256;

/// The most subgoals a [`PathTable`] takes: its tables hold one entry per pair of them (6 bytes
/// each), 54 MB at this count.
pub const MAX_SUBGOALS: usize = 3000;

/// Why a [`PathTable`] was not built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathTableError {
    /// The grid is not one the table can serve: it needs 8-way moves, no corner cutting and a
    /// single cost on every passable cell (walls between cells and one-way edges are fine).
    /// (Online search serves every grid.)
    Unsupported(&'static str),
    /// The map has more wall corners than the table takes ([`MAX_SUBGOALS`]): a maze or a noisy
    /// map, where online search is the better fit.
    TooManySubgoals {
        /// How many the map has.
        found: usize,
        /// How many the table takes ([`MAX_SUBGOALS`]).
        limit: usize,
    },
    /// Too many corners in sight of each other (open ground strewn with small obstacles): the
    /// cells' lists of corners would pass [`MAX_LIST_ENTRIES_PER_CELL`] on average, and the
    /// table would take too long to build and too much memory.
    TooOpen,
}

impl fmt::Display for PathTableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathTableError::Unsupported(why) => {
                write!(f, "a path table cannot serve this grid: {why}")
            }
            PathTableError::TooOpen => write!(
                f,
                "the map's wall corners see too many of each other for a path table; use online \
                 search on it"
            ),
            PathTableError::TooManySubgoals { found, limit } => write!(
                f,
                "the map has {found} wall corners, more than a path table takes ({limit}); \
                 use online search on it"
            ),
        }
    }
}

impl std::error::Error for PathTableError {}

/// A distance counted in steps: straight ones in the low 16 bits, diagonal ones in the high 16.
/// Exact, and a quarter of the room an `f64` takes.
type Steps = u32;
const UNREACHED: Steps = u32::MAX;

fn steps_value(steps: Steps) -> f64 {
    f64::from(steps & 0xffff) + f64::from(steps >> 16) * SQRT_2
}

/// Adds two step counts.
fn add_steps(a: Steps, b: Steps) -> Steps {
    ((a & 0xffff) + (b & 0xffff)) | (((a >> 16) + (b >> 16)) << 16)
}

/// Straight and diagonal steps between two cells an octile run apart.
fn octile_steps(a: (i32, i32), b: (i32, i32)) -> Steps {
    let (dx, dy) = ((a.0 - b.0).unsigned_abs(), (a.1 - b.1).unsigned_abs());
    let diagonal = dx.min(dy);
    (dx.max(dy) - diagonal) | (diagonal << 16)
}

fn octile(a: (i32, i32), b: (i32, i32)) -> f64 {
    steps_value(octile_steps(a, b))
}

/// Whether the diagonal-first run between two subgoals is open, for the pairs tried so far: a
/// bit per ordered pair says it was tried, and one that it is open. The build's searches from
/// each subgoal try the same stretches of paths again (`skip_stops`), and a table read from
/// bytes checks each hop its predecessors name once, however many rows name it.
struct ClearRuns {
    subgoals: usize,
    known: BitSet,
    clear: BitSet,
}

impl ClearRuns {
    fn new(subgoals: usize) -> Self {
        let pairs = subgoals * subgoals;
        Self { subgoals, known: BitSet::new(pairs), clear: BitSet::new(pairs) }
    }

    /// Whether the run from subgoal `q` to subgoal `u` is open: known, or found out by `try_run`
    /// (which says it, and how many cells it walked). Returns it and the cells walked now.
    #[inline]
    fn get_or_try(
        &mut self,
        q: usize,
        u: usize,
        try_run: impl FnOnce() -> (bool, u64),
    ) -> (bool, u64) {
        let pair = q * self.subgoals + u;
        if self.known.get(pair) {
            return (self.clear.get(pair), 0);
        }
        let (clear, tried) = try_run();
        self.known.insert(pair);
        self.clear.set(pair, clear);
        (clear, tried)
    }
}

/// Precomputed shortest paths for a grid that rarely changes: queries answered with table
/// lookups instead of a search (see the module docs for how).
///
/// Always right: when the grid has changed since the table was built (its
/// [`stamp`](NavGrid::stamp) moved on), a query given the table
/// ([`PathQuery::table`](crate::search::PathQuery::table)) is answered by online search until
/// [`refresh`](Self::refresh) rebuilds the table.
///
/// ```
/// use bevy_tilemap_nav::prelude::*;
/// use bevy_tilemap_nav::search::PathTable;
///
/// let mut grid = NavGrid::new(10, 10).unwrap();
/// grid.fill_rect(GridPos::new(4, 0), GridPos::new(4, 8), Cell::Blocked).unwrap();
/// let table = PathTable::build(&grid).unwrap();
/// let mut pathfinder = Pathfinder::new();
/// let query = PathQuery::new(GridPos::new(0, 0), GridPos::new(9, 0));
/// let path = pathfinder.find(&grid, &query.with_help(&table)).unwrap();
/// let online = pathfinder.find(&grid, &query).unwrap();
/// assert!((path.cost - online.cost).abs() < 1e-9);
/// assert!(path.cells.contains(&GridPos::new(4, 9))); // through the gap
/// ```
#[derive(Clone, Debug)]
pub struct PathTable {
    width: i32,
    height: i32,
    /// One bit per cell, row by row: open.
    open: BitSet,
    /// Per cell, row by row, the steps out of it that walls between cells bar (empty: none).
    exits: Vec<u8>,
    /// The grid (and its revision) the table was built for.
    stamp: GridStamp,
    /// What the grid's cells were when built: checks that baked data fits a grid.
    fingerprint: u64,
    /// The one cost of the grid's passable cells.
    cost: u32,
    /// Each subgoal's cell.
    subgoals: Vec<(i32, i32)>,
    /// Per cell, `out_list[out_start[i]..out_start[i + 1]]`: the subgoals it reaches by a
    /// diagonal-first run with no subgoal on the way.
    out_start: Vec<u32>,
    out_list: Vec<u16>,
    /// Per cell, the subgoals that reach it by such a run.
    in_start: Vec<u32>,
    in_list: Vec<u16>,
    /// Row `a`, column `b`: the steps of a shortest path from subgoal `a` to subgoal `b`.
    dist: Vec<Steps>,
    /// Row `a`, column `b`: the stop before `b` on that path (`b`'s own id when `a == b`): the
    /// subgoal before it, or an earlier one where the path goes on straight through those
    /// between, by one open diagonal-first run (so a query reads only the subgoals where the
    /// path turns).
    pred: Vec<u16>,
    /// The cells' lists were made by [`PathTable::build`], not read from bytes (whose lists a
    /// query checks as it walks them).
    lists_built: bool,
}

impl PathTable {
    /// Builds the table for `grid` (see the module docs for what it holds).
    pub fn build(grid: &NavGrid) -> Result<Self, PathTableError> {
        run_to_end(Self::build_counted(grid, &mut Work::unlimited()))
    }

    /// The same build a slice at a time, for a game that cannot wait for it in one go nor
    /// run it on another thread (a browser): see [`SlicedBuild`].
    pub fn build_in_slices(grid: &NavGrid) -> SlicedBuild<Result<Self, PathTableError>> {
        let grid = grid.frozen_copy();
        SlicedBuild::new(|mut work| async move { Self::build_counted(&grid, &mut work).await })
    }

    /// The table was built for this grid as it is now: its answers come from the table.
    pub fn is_current(&self, grid: &NavGrid) -> bool {
        self.stamp == grid.stamp()
    }

    /// Rebuilds the table if `grid` changed since it was built (or it is another grid). On an
    /// error the old table stays, and answers keep coming from online search.
    pub fn refresh(&mut self, grid: &NavGrid) -> Result<(), PathTableError> {
        if !self.is_current(grid) {
            *self = Self::build(grid)?;
        }
        Ok(())
    }

    /// How many subgoals (wall corners) the table holds.
    pub fn subgoal_count(&self) -> usize {
        self.subgoals.len()
    }

    /// The memory the table takes, in bytes.
    pub fn memory_bytes(&self) -> usize {
        self.subgoals.len() * 8
            + self.open.words().len() * 8
            + self.exits.len()
            + (self.out_start.len() + self.in_start.len()) * 4
            + (self.out_list.len() + self.in_list.len()) * 2
            + self.dist.len() * 4
            + self.pred.len() * 2
    }

    /// The memory the table takes per grid cell, in bytes.
    pub fn bytes_per_cell(&self) -> f64 {
        self.memory_bytes() as f64 / (f64::from(self.width) * f64::from(self.height)).max(1.0)
    }

    /// A shortest path from `start` to `goal` from the table (the cost a search with default
    /// options finds), while the table is current for `grid`: `None` when a search must answer
    /// (the table not current, either end blocked or off the grid). Asked through a
    /// [`PathQuery`](crate::search::PathQuery) given the table.
    pub(in crate::search) fn answer(
        &self,
        grid: &NavGrid,
        start: GridPos,
        goal: GridPos,
    ) -> Option<Result<PathResult, PathError>> {
        if !self.is_current(grid) || !grid.is_passable(start) || !grid.is_passable(goal) {
            return None;
        }
        if grid.component(start) != grid.component(goal) {
            return Some(Err(PathError::Unreachable { start, goal }));
        }
        let s = (start.x as i32, start.y as i32);
        let g = (goal.x as i32, goal.y as i32);
        // A route the table does not know, or a chain that does not close, is not expected
        // (the table covers every reachable pair, `build` closes every chain): a search answers.
        self.route(s, g).and_then(|route| self.walk(s, g, route)).map(Ok)
    }

    #[inline]
    fn index(&self, (x, y): (i32, i32)) -> usize {
        (y * self.width + x) as usize
    }

    #[inline]
    fn is_open(&self, p: (i32, i32)) -> bool {
        if p.0 < 0 || p.1 < 0 || p.0 >= self.width || p.1 >= self.height {
            return false;
        }
        self.open.get(self.index(p))
    }

    /// The best way from `s` to `g`: `Some(None)` for the direct run, `Some(Some((a, b)))`
    /// through subgoals `a` first and `b` last, `None` when the table knows no way.
    fn route(&self, s: (i32, i32), g: (i32, i32)) -> Option<Option<(u16, u16)>> {
        let n = self.subgoals.len();
        let (si, gi) = (self.index(s), self.index(g));
        let outs = &self.out_list[self.out_start[si] as usize..self.out_start[si + 1] as usize];
        let ins = &self.in_list[self.in_start[gi] as usize..self.in_start[gi + 1] as usize];
        // The direct run first: when open it is a shortest path (nothing is shorter than the
        // octile distance), and checking it costs a step a cell, where the pairs below cost
        // the product of the lists' lengths (long on open ground, where most goals are in
        // sight: BENCHMARKS.md, "Path tables on open ground").
        if self.run_clear(s, g) {
            return Some(None);
        }
        // Each last subgoal's column and its way to the goal, worked out once (on the stack
        // for lists of the usual length: allocations were a sixth of a query's time in `perf`).
        let mut on_stack = [(0usize, 0.0f64); 64];
        let on_heap: Vec<(usize, f64)>;
        let column = |&b: &u16| (usize::from(b), octile(self.subgoals[usize::from(b)], g));
        let last: &[(usize, f64)] = if ins.len() <= on_stack.len() {
            for (slot, b) in on_stack.iter_mut().zip(ins) {
                *slot = column(b);
            }
            &on_stack[..ins.len()]
        } else {
            on_heap = ins.iter().map(column).collect();
            &on_heap
        };
        let mut best = f64::INFINITY;
        let mut found = None;
        for &a in outs {
            let ap = self.subgoals[usize::from(a)];
            let to_a = octile(s, ap);
            if to_a + octile(ap, g) >= best {
                continue; // nothing through `a` can be shorter
            }
            let row = &self.dist[usize::from(a) * n..usize::from(a) * n + n];
            // Every last subgoal, with no test per pair that could skip it: the lookups are
            // independent and the loop has no branch to mispredict (faster than pruning each
            // pair by its octile bound: BENCHMARKS.md, "Measurements behind the code").
            let mut row_best = f64::INFINITY;
            let mut row_b = 0;
            for &(b, from_b) in last {
                let d = row[b];
                let v = if d == UNREACHED { f64::INFINITY } else { steps_value(d) } + from_b;
                if v < row_best {
                    row_best = v;
                    row_b = b;
                }
            }
            if to_a + row_best < best {
                best = to_a + row_best;
                found = Some((a, row_b as u16));
            }
        }
        found.map(Some)
    }

    /// The path of a route: the direct run, or start, first subgoal, the table's chain of
    /// subgoals, last subgoal, goal; every hop a diagonal-first run.
    fn walk(&self, s: (i32, i32), g: (i32, i32), route: Option<(u16, u16)>) -> Option<PathResult> {
        // (Room for most chains at once: growing a step at a time cost a reallocation a
        // doubling.)
        let mut stops = Vec::with_capacity(64);
        stops.push(s);
        if let Some((a, b)) = route {
            // The chain from the last subgoal back to the first, then turned round in place.
            let n = self.subgoals.len();
            let row = usize::from(a) * n;
            let mut at = b;
            stops.push(self.subgoals[usize::from(b)]);
            while at != a {
                at = self.pred[row + usize::from(at)];
                if usize::from(at) >= n || stops.len() > n + 1 {
                    return None;
                }
                stops.push(self.subgoals[usize::from(at)]);
            }
            stops[1..].reverse();
        }
        stops.push(g);
        // The hops from the start and to the goal come from the cells' lists, which a table
        // loaded from bytes changed by hand (and sealed again) may have wrong: checked here, so
        // that such a table falls back on online search rather than walk through a wall
        // (checking every list as it loads would cost about a build). A table built here made
        // its lists itself. The hops between subgoals were checked as it loaded
        // (`pred_steps_clear`), the direct run by `route`.
        let last = stops.len() - 2;
        if route.is_some()
            && !self.lists_built
            && (!self.run_clear(stops[0], stops[1])
                || !self.run_clear(stops[last], stops[last + 1]))
        {
            return None;
        }
        let (mut straight, mut diagonal) = (0u32, 0u32);
        for hop in stops.windows(2) {
            debug_assert!(self.run_clear(hop[0], hop[1]), "every hop is open");
            let steps = octile_steps(hop[0], hop[1]);
            straight += steps & 0xffff;
            diagonal += steps >> 16;
        }
        let mut cells = Vec::with_capacity((straight + diagonal + 1) as usize);
        cells.push(GridPos::new(s.0 as u32, s.1 as u32));
        for hop in stops.windows(2) {
            // Diagonal steps, then straight ones (the table knows each hop is open).
            let (a, run) = (hop[0], Run::new(hop[0], hop[1]));
            let ((sx, sy), (tx, ty), corner) = (run.diagonal, run.straight, run.corner(a));
            // (`extend` over a range writes the cells with no length update per cell.)
            let at = |(x, y): (i32, i32)| GridPos::new(x as u32, y as u32);
            cells.extend((1..run.slant + 1).map(|i| at((a.0 + i * sx, a.1 + i * sy))));
            cells.extend((1..run.rest + 1).map(|i| at((corner.0 + i * tx, corner.1 + i * ty))));
        }
        let cost = (f64::from(straight) + f64::from(diagonal) * SQRT_2) * f64::from(self.cost);
        Some(PathResult {
            cells,
            cost,
            stats: SearchStats::default(),
            complete: true,
            neighborhood: Neighborhood::Eight,
        })
    }
}

impl StepRules for PathTable {
    #[inline]
    fn passable(&self, p: (i32, i32)) -> bool {
        self.is_open(p)
    }

    #[inline]
    fn barred(&self, p: (i32, i32), d: (i32, i32)) -> bool {
        build::barred(&self.exits, self.width, p, d)
    }
}

/// The rules of a step and of a diagonal-first run, over what a grid holds (its open cells and
/// its walls between cells): one set for the build's layout and the table's bits.
trait StepRules {
    /// `p` is an open cell of the grid (false outside it).
    fn passable(&self, p: (i32, i32)) -> bool;

    /// A wall between cells bars the step from the open cell `p` by `d` (one of the eight).
    fn barred(&self, p: (i32, i32), d: (i32, i32)) -> bool;

    /// A diagonal step from `p` by `d` is legal: onto an open cell, between two open ones,
    /// past no corner a wall between cells touches.
    #[inline]
    fn diagonal_ok(&self, p: (i32, i32), d: (i32, i32)) -> bool {
        self.passable((p.0 + d.0, p.1))
            && self.passable((p.0, p.1 + d.1))
            && self.passable((p.0 + d.0, p.1 + d.1))
            && !self.barred(p, d)
    }

    /// A straight step from `p` by `d` is legal: onto an open cell, across no wall.
    #[inline]
    fn straight_ok(&self, p: (i32, i32), d: (i32, i32)) -> bool {
        self.passable((p.0 + d.0, p.1 + d.1)) && !self.barred(p, d)
    }

    /// The diagonal-first run from `a` to `b` is open: each diagonal step, then each straight
    /// one, legal.
    #[inline]
    fn run_clear(&self, a: (i32, i32), b: (i32, i32)) -> bool {
        let Run { diagonal: d, slant, straight, rest } = Run::new(a, b);
        let mut t = a;
        for _ in 0..slant {
            if !self.diagonal_ok(t, d) {
                return false;
            }
            t = (t.0 + d.0, t.1 + d.1);
        }
        for _ in 0..rest {
            if !self.straight_ok(t, straight) {
                return false;
            }
            t = (t.0 + straight.0, t.1 + straight.1);
        }
        true
    }
}

/// The parts of the diagonal-first run between two cells: `slant` steps by `diagonal`, then
/// `rest` steps by `straight` (a direction with one zero part).
#[derive(Clone, Copy)]
struct Run {
    diagonal: (i32, i32),
    slant: i32,
    straight: (i32, i32),
    rest: i32,
}

impl Run {
    #[inline]
    fn new(a: (i32, i32), b: (i32, i32)) -> Self {
        let (sx, sy) = ((b.0 - a.0).signum(), (b.1 - a.1).signum());
        let (ax, ay) = ((b.0 - a.0).abs(), (b.1 - a.1).abs());
        let slant = ax.min(ay);
        let straight = if ax > ay { (sx, 0) } else { (0, sy) };
        Run { diagonal: (sx, sy), slant, straight, rest: ax.max(ay) - slant }
    }

    /// Where the run from `a` turns straight.
    #[inline]
    fn corner(&self, a: (i32, i32)) -> (i32, i32) {
        (a.0 + self.slant * self.diagonal.0, a.1 + self.slant * self.diagonal.1)
    }
}
