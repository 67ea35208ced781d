//! Precomputed answers for grids that rarely change: a [`PathTable`].
//!
//! What it is: a subgoal graph (Uras, Koenig and Hernández 2013) with the distance between every
//! pair of its subgoals worked out ahead. Subgoals are the open cells at the convex corners of
//! walls, the only places a shortest path on an 8-way grid without corner cutting needs to turn.
//! Each cell keeps the short list of subgoals it reaches by a "diagonal first" run (diagonal
//! steps, then straight ones, no subgoal on the way), and the list of those that reach it that
//! way. A query is then a few table lookups: the best of `start -> a -> ... -> b -> goal` over
//! `a` in the start's list and `b` in the goal's, unless the goal is reached by one run. The path
//! is read back hop by hop from a table of predecessors, and each hop is one diagonal-first run.
//!
//! Why this one: jump point search tables (JPS+) still search at query time and, with goal
//! bounding, take a search from every cell to build (minutes on a 512 x 512 map); compressed
//! path databases take the same all-cells work. Subgoal corners are few on game maps (tens to a
//! few thousand), so the table of all their distances builds in well under a second and answers
//! without any search. The price: maps with very many corners (mazes, noise) are refused
//! ([`PathTableError::TooManySubgoals`]), and the grid must have one cost, 8-way moves and no
//! corner cutting (the grid the table's shortest-path theory holds for).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::f64::consts::SQRT_2;
use std::fmt;

use super::slices::{SlicedBuild, Work, fingerprint, run_to_end, spend};
use crate::grid::sealed::{BakeError, open_tied, seal, write_tie};
use crate::grid::{CornerRule, GridPos, GridStamp, NavGrid, Neighborhood};
use crate::search::result::{PathError, PathResult, SearchStats};

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
    /// The grid is not one the table can serve: it needs 8-way moves, no corner cutting, a
    /// single cost on every passable cell and no walls between cells. (Online search serves
    /// every grid.)
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

/// Straight and diagonal steps between two cells an octile run apart.
fn octile_steps(a: (i32, i32), b: (i32, i32)) -> Steps {
    let (dx, dy) = ((a.0 - b.0).unsigned_abs(), (a.1 - b.1).unsigned_abs());
    let diagonal = dx.min(dy);
    (dx.max(dy) - diagonal) | (diagonal << 16)
}

fn octile(a: (i32, i32), b: (i32, i32)) -> f64 {
    steps_value(octile_steps(a, b))
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
/// let path = pathfinder.find(&grid, &query.table(&table)).unwrap();
/// let online = pathfinder.find(&grid, &query).unwrap();
/// assert!((path.cost - online.cost).abs() < 1e-9);
/// assert!(path.cells.contains(&GridPos::new(4, 9))); // through the gap
/// ```
#[derive(Clone, Debug)]
pub struct PathTable {
    width: i32,
    height: i32,
    /// One bit per cell, row by row: open.
    open: Vec<u64>,
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
    /// Row `a`, column `b`: the subgoal before `b` on that path (`b`'s own id when `a == b`).
    pred: Vec<u16>,
}

/// The cells of a `width` x `height` grid in the order that visits, for direction (`dx`, `dy`),
/// the next cell along it first, in spans of at most [`SPAN`] cells of a row (the work of a
/// build is counted a span at a time). `(0, 0)`: row after row, each from left to right.
fn sweep(
    width: i32,
    height: i32,
    (dx, dy): (i32, i32),
) -> impl Iterator<Item = impl ExactSizeIterator<Item = (i32, i32)>> {
    (0..height).flat_map(move |row| {
        let y = if dy > 0 { height - 1 - row } else { row };
        (0..width).step_by(SPAN).map(move |from| {
            let cols = from..(from + SPAN as i32).min(width);
            cols.map(move |col| (if dx > 0 { width - 1 - col } else { col }, y))
        })
    })
}

/// The grid's open cells and subgoals, and how far runs go: what building needs.
struct Layout {
    width: i32,
    height: i32,
    open: Vec<bool>,
    /// Per cell, its subgoal id, or `u16::MAX`.
    subgoal: Vec<u16>,
    /// Per straight direction (`STRAIGHT`), how many steps a run takes from each cell before
    /// the next cell is a wall or a subgoal.
    straight: [Vec<u16>; 4],
    /// The same for each diagonal direction (`DIAGONAL`): legal steps onto cells that are not
    /// subgoals.
    diagonal: [Vec<u16>; 4],
}

const STRAIGHT: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const DIAGONAL: [(i32, i32); 4] = [(1, 1), (-1, 1), (1, -1), (-1, -1)];

impl Layout {
    #[inline]
    fn index(&self, (x, y): (i32, i32)) -> usize {
        (y * self.width + x) as usize
    }

    #[inline]
    fn open(&self, (x, y): (i32, i32)) -> bool {
        x >= 0 && y >= 0 && x < self.width && y < self.height && self.open[self.index((x, y))]
    }

    /// The subgoal at a cell, if any (cells outside the grid have none).
    #[inline]
    fn subgoal_at(&self, p: (i32, i32)) -> Option<u16> {
        if !self.open(p) {
            return None;
        }
        let id = self.subgoal[self.index(p)];
        (id != u16::MAX).then_some(id)
    }

    /// A diagonal step from `p` by `d` is legal: onto an open cell, between two open ones.
    #[inline]
    fn diagonal_ok(&self, p: (i32, i32), d: (i32, i32)) -> bool {
        self.open((p.0 + d.0, p.1))
            && self.open((p.0, p.1 + d.1))
            && self.open((p.0 + d.0, p.1 + d.1))
    }

    /// The subgoal a straight run from `p` in direction `STRAIGHT[k]` meets first, if any.
    #[inline]
    fn straight_hit(&self, p: (i32, i32), k: usize) -> Option<u16> {
        let n = i32::from(self.straight[k][self.index(p)]) + 1;
        let (dx, dy) = STRAIGHT[k];
        self.subgoal_at((p.0 + dx * n, p.1 + dy * n))
    }

    /// The subgoal a diagonal run from `p` in direction `DIAGONAL[k]` meets first, if any.
    #[inline]
    fn diagonal_hit(&self, p: (i32, i32), k: usize) -> Option<u16> {
        let n = i32::from(self.diagonal[k][self.index(p)]);
        let d = DIAGONAL[k];
        let t = (p.0 + d.0 * n, p.1 + d.1 * n);
        if self.diagonal_ok(t, d) { self.subgoal_at((t.0 + d.0, t.1 + d.1)) } else { None }
    }

    /// The layout of `grid`: a unit of work per cell for each of its ten passes (counted a row
    /// at a time).
    async fn new(grid: &NavGrid, work: &mut Work) -> Result<Self, PathTableError> {
        let (width, height) = (grid.width() as i32, grid.height() as i32);
        let cells = (width * height) as usize;
        let mut open = Vec::with_capacity(cells);
        for span in sweep(width, height, (0, 0)) {
            spend!(work, span.len() as u64);
            open.extend(span.map(|(x, y)| grid.is_passable(GridPos::new(x as u32, y as u32))));
        }
        let mut layout = Layout {
            width,
            height,
            open,
            subgoal: vec![u16::MAX; cells],
            straight: Default::default(),
            diagonal: Default::default(),
        };
        // A subgoal: an open cell by a wall's corner, with both cells between them open.
        let mut count = 0usize;
        for span in sweep(layout.width, layout.height, (0, 0)) {
            spend!(work, span.len() as u64);
            for (x, y) in span {
                let corner = layout.open((x, y))
                    && DIAGONAL.iter().any(|&(dx, dy)| {
                        layout.open((x + dx, y))
                            && layout.open((x, y + dy))
                            && !layout.open((x + dx, y + dy))
                    });
                if corner {
                    if count < MAX_SUBGOALS {
                        let i = layout.index((x, y));
                        layout.subgoal[i] = count as u16;
                    }
                    count += 1;
                }
            }
        }
        if count > MAX_SUBGOALS {
            return Err(PathTableError::TooManySubgoals { found: count, limit: MAX_SUBGOALS });
        }
        for (k, &(dx, dy)) in STRAIGHT.iter().enumerate() {
            let mut run = vec![0u16; cells];
            for span in sweep(layout.width, layout.height, (dx, dy)) {
                spend!(work, span.len() as u64);
                for (x, y) in span {
                    let next = (x + dx, y + dy);
                    if layout.open((x, y)) && layout.open(next) && layout.subgoal_at(next).is_none()
                    {
                        run[layout.index((x, y))] = run[layout.index(next)].saturating_add(1);
                    }
                }
            }
            layout.straight[k] = run;
        }
        for (k, &(dx, dy)) in DIAGONAL.iter().enumerate() {
            let mut run = vec![0u16; cells];
            for span in sweep(layout.width, layout.height, (dx, dy)) {
                spend!(work, span.len() as u64);
                for (x, y) in span {
                    let next = (x + dx, y + dy);
                    if layout.open((x, y))
                        && layout.diagonal_ok((x, y), (dx, dy))
                        && layout.subgoal_at(next).is_none()
                    {
                        run[layout.index((x, y))] = run[layout.index(next)].saturating_add(1);
                    }
                }
            }
            layout.diagonal[k] = run;
        }
        Ok(layout)
    }
}

/// Shortest paths between every pair of subgoals: a search from each over the diagonal-first
/// runs between subgoals (a shortest path between two subgoals is a chain of them). Rows of
/// steps, and of predecessors.
/// A unit of work per entry of a row, then per subgoal taken from the open list and per run
/// from it.
async fn all_pairs(
    layout: &Layout,
    subgoals: &[(i32, i32)],
    (out_start, out_list): (&[u32], &[u16]),
    work: &mut Work,
) -> (Vec<Steps>, Vec<u16>) {
    let n = subgoals.len();
    // Made row by row (a slice need not fill the whole square at once).
    let mut dist = Vec::with_capacity(n * n);
    let mut pred = Vec::with_capacity(n * n);
    let mut open = BinaryHeap::new();
    for a in 0..n {
        spend!(work, n as u64 / 64 + 1);
        let row = a * n;
        dist.resize(row + n, UNREACHED);
        pred.resize(row + n, u16::MAX);
        dist[row + a] = 0;
        pred[row + a] = a as u16;
        open.push(Reverse((0u64, a as u16)));
        while let Some(Reverse((key, u))) = open.pop() {
            let u = usize::from(u);
            let du = dist[row + u];
            if steps_value(du).to_bits() != key {
                continue; // a stale entry
            }
            let cell = layout.index(subgoals[u]);
            let runs = &out_list[out_start[cell] as usize..out_start[cell + 1] as usize];
            spend!(work, 1 + runs.len() as u64);
            for &v in runs {
                let step = octile_steps(subgoals[u], subgoals[usize::from(v)]);
                let straight = (du & 0xffff) + (step & 0xffff);
                let diagonal = (du >> 16) + (step >> 16);
                if straight > 0xffff || diagonal > 0xffff {
                    continue; // over 65535 steps of a kind: no map the table takes
                }
                let dv = straight | (diagonal << 16);
                let slot = row + usize::from(v);
                if dist[slot] == UNREACHED || steps_value(dv) < steps_value(dist[slot]) {
                    dist[slot] = dv;
                    pred[slot] = u as u16;
                    open.push(Reverse((steps_value(dv).to_bits(), v)));
                }
            }
        }
    }
    (dist, pred)
}

/// Lists longer than this are kept whole rather than thinned.
const MAX_THINNED: usize = 32;

/// Which way a cell list goes: from the cell to its subgoals, or from them to the cell.
#[derive(Clone, Copy, PartialEq)]
enum Way {
    Out,
    In,
}

/// Adds two step counts.
fn add_steps(a: Steps, b: Steps) -> Steps {
    ((a & 0xffff) + (b & 0xffff)) | (((a >> 16) + (b >> 16)) << 16)
}

/// Drops from each cell's list the subgoals that another subgoal of the list lies on a shortest
/// way to: for `Way::Out`, `a` goes when some `a2` has `cell -> a2 -> a` as short as
/// `cell -> a`; for `Way::In`, `b` goes when some `b2` has `b -> b2 -> cell` as short as
/// `b -> cell`. (Steps are exact, so "as short" is equality. The kept subgoal that covers a
/// dropped one is never dropped itself for the same reason, as it is strictly nearer.)
///
/// A unit of work per cell and per entry of its list, and per 8 pairs of entries it compares.
async fn thin_lists(
    layout: &Layout,
    subgoals: &[(i32, i32)],
    dist: &[Steps],
    (starts, list): (&[u32], &[u16]),
    way: Way,
    work: &mut Work,
) -> (Vec<u32>, Vec<u16>) {
    let n = subgoals.len();
    let mut new_starts = Vec::with_capacity(starts.len());
    let mut new_list = Vec::new();
    new_starts.push(0);
    // The work of a cell's thinning, counted for cells in turn, a few hundred units at a time.
    let units = |i: usize| {
        let len = (starts[i + 1] - starts[i]) as usize;
        1 + len + if len > MAX_THINNED { 0 } else { len * len / 8 }
    };
    let cells = starts.len() - 1;
    let mut from = 0;
    while from < cells {
        let (mut to, mut counted) = (from + 1, units(from));
        while to < cells && counted + units(to) <= 2 * SPAN {
            counted += units(to);
            to += 1;
        }
        spend!(work, counted as u64);
        for i in from..to {
            let cell = ((i as i32) % layout.width, (i as i32) / layout.width);
            let here = &list[starts[i] as usize..starts[i + 1] as usize];
            if here.len() > MAX_THINNED {
                new_list.extend_from_slice(here); // kept whole: thinning is quadratic in its length
                new_starts.push(new_list.len() as u32);
                continue;
            }
            for &a in here {
                let a_at = subgoals[usize::from(a)];
                let direct = octile_steps(cell, a_at);
                let (x0, x1) = (cell.0.min(a_at.0), cell.0.max(a_at.0));
                let (y0, y1) = (cell.1.min(a_at.1), cell.1.max(a_at.1));
                let covered = here.iter().any(|&other| {
                    let o = subgoals[usize::from(other)];
                    // On a shortest way between the cell and `a` only if inside their box.
                    if other == a || o.0 < x0 || o.0 > x1 || o.1 < y0 || o.1 > y1 {
                        return false;
                    }
                    let via = octile_steps(cell, o);
                    let (from, to) = if way == Way::Out { (other, a) } else { (a, other) };
                    let between = dist[usize::from(from) * n + usize::from(to)];
                    between != UNREACHED && add_steps(via, between) == direct
                });
                if !covered {
                    new_list.push(a);
                }
            }
            new_starts.push(new_list.len() as u32);
        }
        from = to;
    }
    (new_starts, new_list)
}

/// Per-cell lists, concatenated: `starts` has one more entry than there are cells.
type CellLists = (Vec<u32>, Vec<u16>);

/// Gathers per-cell lists (`total` entries) into [`CellLists`], or [`PathTableError::TooOpen`]
/// past the budget. A unit of work per cell and per few entries.
async fn concatenate(
    lists: Vec<Vec<u16>>,
    total: usize,
    work: &mut Work,
) -> Result<CellLists, PathTableError> {
    if total > list_budget(lists.len()) {
        return Err(PathTableError::TooOpen);
    }
    let mut starts = Vec::with_capacity(lists.len() + 1);
    let mut list = Vec::with_capacity(total);
    starts.push(0);
    let mut lists = lists.into_iter();
    while lists.len() > 0 {
        spend!(work, 64);
        for cell in lists.by_ref().take(64) {
            spend!(work, cell.len() as u64 / 4);
            list.extend_from_slice(&cell);
            starts.push(list.len() as u32);
        }
    }
    Ok((starts, list))
}

/// The most entries all cells' lists (one way) may hold: [`MAX_LIST_ENTRIES_PER_CELL`] a
/// cell on average, and never more than the `u32` offsets address.
fn list_budget(cells: usize) -> usize {
    cells.saturating_mul(MAX_LIST_ENTRIES_PER_CELL).max(1 << 16).min(u32::MAX as usize)
}

/// Per-cell lists built direction by direction: `own(p, list)` fills each open cell's list
/// with what it finds itself; then for each direction, a cell's runs that way are worked out
/// from those of the cell one step ahead (`along(p, next, runs_of_next)`: `None` where no run
/// goes on from `p`), visiting that cell first. The work is the size of the lists, not the
/// length of the runs; [`PathTableError::TooOpen`] past the budget.
///
/// A unit of work per cell of each pass, and per four entries of the lists made (counted a row
/// at a time, and a list at a time).
async fn build_lists(
    layout: &Layout,
    own: impl Fn((i32, i32), &mut Vec<u16>),
    directions: &[(i32, i32)],
    along: impl Fn(usize, (i32, i32), (i32, i32), &[u16]) -> Option<Vec<u16>>,
    work: &mut Work,
) -> Result<CellLists, PathTableError> {
    let cells = layout.open.len();
    let mut lists: Vec<Vec<u16>> = Vec::with_capacity(cells);
    let mut total = 0;
    for span in sweep(layout.width, layout.height, (0, 0)) {
        spend!(work, 2 * span.len() as u64);
        for p in span {
            let mut list = Vec::new();
            if layout.open(p) {
                own(p, &mut list);
            }
            total += list.len();
            lists.push(list);
        }
    }
    for (k, &(dx, dy)) in directions.iter().enumerate() {
        let mut runs: Vec<Vec<u16>> = Vec::with_capacity(cells);
        while runs.len() < cells {
            spend!(work, SPAN as u64);
            runs.extend(std::iter::repeat_with(Vec::new).take(SPAN.min(cells - runs.len())));
        }
        for span in sweep(layout.width, layout.height, (dx, dy)) {
            spend!(work, span.len() as u64);
            for p in span {
                if !layout.open(p) {
                    continue;
                }
                let next = (p.0 + dx, p.1 + dy);
                let ahead = if layout.open(next) { &runs[layout.index(next)][..] } else { &[] };
                let Some(here) = along(k, p, next, ahead) else {
                    continue;
                };
                spend!(work, here.len() as u64 / 4);
                total += here.len();
                if total > list_budget(cells) {
                    return Err(PathTableError::TooOpen);
                }
                runs[layout.index(p)] = here;
            }
        }
        for (lists, runs) in lists.chunks_mut(64).zip(runs.chunks(64)) {
            let entries: usize = runs.iter().map(Vec::len).sum();
            spend!(work, (64 + entries / 4) as u64);
            for (list, run) in lists.iter_mut().zip(runs) {
                list.extend_from_slice(run);
            }
        }
    }
    concatenate(lists, total, work).await
}

/// For every cell, the subgoals it reaches by a diagonal-first run (diagonal steps, then
/// straight ones) with no subgoal before its end: the straight runs' own, then per diagonal,
/// from the cell a diagonal step ahead (a subgoal there, or its straight hits and its runs).
async fn lists_out(layout: &Layout, work: &mut Work) -> Result<CellLists, PathTableError> {
    build_lists(
        layout,
        |p, list| list.extend((0..4).filter_map(|k| layout.straight_hit(p, k))),
        &DIAGONAL,
        |k, p, next, ahead| {
            let (dx, dy) = DIAGONAL[k];
            if !layout.diagonal_ok(p, (dx, dy)) {
                return None;
            }
            if let Some(id) = layout.subgoal_at(next) {
                return Some(vec![id]);
            }
            let sides = [if dx > 0 { 0 } else { 1 }, if dy > 0 { 2 } else { 3 }];
            let mut here: Vec<u16> =
                sides.iter().filter_map(|&s| layout.straight_hit(next, s)).collect();
            here.extend_from_slice(ahead);
            Some(here)
        },
        work,
    )
    .await
}

/// For every cell, the subgoals that reach it by a diagonal-first run with no subgoal before
/// its end: from the cell, runs straight first, then diagonal. Its straight and diagonal runs'
/// own, then per straight direction, from the cell a straight step ahead (its diagonal hits
/// onward, and its runs).
async fn lists_in(layout: &Layout, work: &mut Work) -> Result<CellLists, PathTableError> {
    build_lists(
        layout,
        |p, list| {
            list.extend((0..4).filter_map(|k| layout.straight_hit(p, k)));
            list.extend((0..4).filter_map(|k| layout.diagonal_hit(p, k)));
        },
        &STRAIGHT,
        |k, _, next, ahead| {
            if !layout.open(next) || layout.subgoal_at(next).is_some() {
                return None;
            }
            // The diagonals (`DIAGONAL` indices) that go on the way this straight run went.
            let diagonals = match k {
                0 => [0, 2],
                1 => [1, 3],
                2 => [0, 1],
                _ => [2, 3],
            };
            let mut here: Vec<u16> =
                diagonals.iter().filter_map(|&d| layout.diagonal_hit(next, d)).collect();
            here.extend_from_slice(ahead);
            Some(here)
        },
        work,
    )
    .await
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

    /// The build, counting its work in `work`.
    pub(crate) async fn build_counted(
        grid: &NavGrid,
        work: &mut Work,
    ) -> Result<Self, PathTableError> {
        if grid.neighborhood() != Neighborhood::Eight {
            return Err(PathTableError::Unsupported("the table needs 8-way moves"));
        }
        if grid.corner_rule() != CornerRule::NoCornerCutting {
            return Err(PathTableError::Unsupported("the table needs no corner cutting"));
        }
        if !grid.has_uniform_cost() {
            return Err(PathTableError::Unsupported("the table needs one cost on every cell"));
        }
        if grid.has_edges() {
            return Err(PathTableError::Unsupported(
                "the table takes no walls between cells or one-way edges",
            ));
        }
        if grid.width() > u32::from(u16::MAX) || grid.height() > u32::from(u16::MAX) {
            return Err(PathTableError::Unsupported(
                "the table takes grids up to 65535 cells a side",
            ));
        }
        let layout = Layout::new(grid, work).await?;
        let mut subgoals = Vec::new();
        for span in sweep(layout.width, layout.height, (0, 0)) {
            spend!(work, span.len() as u64 / 16 + 1);
            subgoals.extend(span.filter(|&p| layout.subgoal_at(p).is_some()));
        }
        let (out_start, out_list) = lists_out(&layout, work).await?;
        let (in_start, in_list) = lists_in(&layout, work).await?;
        let (dist, pred) = all_pairs(&layout, &subgoals, (&out_start, &out_list), work).await;
        // Keep in each list only the subgoals no other in it passes on the way: a query tries
        // fewer pairs, and loses none (a shortest path to a dropped one goes through a kept one).
        let (out_start, out_list) =
            thin_lists(&layout, &subgoals, &dist, (&out_start, &out_list), Way::Out, work).await;
        let (in_start, in_list) =
            thin_lists(&layout, &subgoals, &dist, (&in_start, &in_list), Way::In, work).await;
        let mut open = Vec::with_capacity(layout.open.len().div_ceil(64));
        for bits in layout.open.chunks(64) {
            spend!(work, 1);
            open.push(bits.iter().enumerate().fold(0u64, |w, (i, &o)| w | u64::from(o) << i));
        }
        Ok(Self {
            width: layout.width,
            height: layout.height,
            open,
            stamp: grid.stamp(),
            fingerprint: fingerprint(grid, work).await,
            cost: grid.min_cost().unwrap_or(1),
            subgoals,
            out_start,
            out_list,
            in_start,
            in_list,
            dist,
            pred,
        })
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
            + self.open.len() * 8
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
        let i = self.index(p);
        self.open[i / 64] >> (i % 64) & 1 == 1
    }

    /// The best way from `s` to `g`: `Some(None)` for the direct run, `Some(Some((a, b)))`
    /// through subgoals `a` first and `b` last, `None` when the table knows no way.
    fn route(&self, s: (i32, i32), g: (i32, i32)) -> Option<Option<(u16, u16)>> {
        let n = self.subgoals.len();
        let (si, gi) = (self.index(s), self.index(g));
        let outs = &self.out_list[self.out_start[si] as usize..self.out_start[si + 1] as usize];
        let ins = &self.in_list[self.in_start[gi] as usize..self.in_start[gi + 1] as usize];
        // Each last subgoal's column and its way to the goal, worked out once.
        let last: Vec<(usize, f64)> = ins
            .iter()
            .map(|&b| (usize::from(b), octile(self.subgoals[usize::from(b)], g)))
            .collect();
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
            // independent and the loop has no branch to mispredict, which made queries about
            // 1.5x faster than pruning each pair by its octile bound.
            let mut row_best = f64::INFINITY;
            let mut row_b = 0;
            for &(b, from_b) in &last {
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
        // As short as the octile distance: nothing is shorter, the direct run included.
        if found.is_some() && best <= octile(s, g) + 1e-9 {
            return found.map(Some);
        }
        if self.diagonal_first_clear(s, g) {
            return Some(None);
        }
        found.map(Some)
    }

    /// The diagonal-first run from `a` to `b` is open.
    fn diagonal_first_clear(&self, a: (i32, i32), b: (i32, i32)) -> bool {
        self.diagonal_first(a, b, |_| {}).is_some()
    }

    /// Walks the diagonal-first run from `a` to `b`, calling `each` on every cell after `a`;
    /// `None` if a step is not legal.
    fn diagonal_first(
        &self,
        a: (i32, i32),
        b: (i32, i32),
        mut each: impl FnMut((i32, i32)),
    ) -> Option<()> {
        let (sx, sy) = ((b.0 - a.0).signum(), (b.1 - a.1).signum());
        let (ax, ay) = ((b.0 - a.0).abs(), (b.1 - a.1).abs());
        let diagonal = ax.min(ay);
        let mut t = a;
        for _ in 0..diagonal {
            if !(self.is_open((t.0 + sx, t.1))
                && self.is_open((t.0, t.1 + sy))
                && self.is_open((t.0 + sx, t.1 + sy)))
            {
                return None;
            }
            t = (t.0 + sx, t.1 + sy);
            each(t);
        }
        let (tx, ty) = if ax > ay { (sx, 0) } else { (0, sy) };
        for _ in 0..(ax.max(ay) - diagonal) {
            t = (t.0 + tx, t.1 + ty);
            if !self.is_open(t) {
                return None;
            }
            each(t);
        }
        Some(())
    }

    /// The path of a route: the direct run, or start, first subgoal, the table's chain of
    /// subgoals, last subgoal, goal; every hop a diagonal-first run.
    fn walk(&self, s: (i32, i32), g: (i32, i32), route: Option<(u16, u16)>) -> Option<PathResult> {
        let mut stops = vec![s];
        if let Some((a, b)) = route {
            let n = self.subgoals.len();
            let row = usize::from(a) * n;
            let mut chain = vec![b];
            let mut at = b;
            while at != a {
                at = self.pred[row + usize::from(at)];
                if usize::from(at) >= n || chain.len() > n {
                    return None;
                }
                chain.push(at);
            }
            stops.extend(chain.iter().rev().map(|&id| self.subgoals[usize::from(id)]));
        }
        stops.push(g);
        // The hops from the start and to the goal come from the cells' lists, which a table
        // loaded from bytes changed by hand (and sealed again) may have wrong: checked here, so
        // that such a table falls back on online search rather than walk through a wall
        // (checking every list as it loads took as long as a build). The hops between subgoals
        // were checked as it loaded (`pred_steps_clear`), the direct run by `route`.
        let last = stops.len() - 2;
        if route.is_some()
            && (!self.diagonal_first_clear(stops[0], stops[1])
                || !self.diagonal_first_clear(stops[last], stops[last + 1]))
        {
            return None;
        }
        let (mut straight, mut diagonal) = (0u32, 0u32);
        for hop in stops.windows(2) {
            debug_assert!(self.diagonal_first_clear(hop[0], hop[1]), "every hop is open");
            let steps = octile_steps(hop[0], hop[1]);
            straight += steps & 0xffff;
            diagonal += steps >> 16;
        }
        let mut cells = Vec::with_capacity((straight + diagonal + 1) as usize);
        cells.push(GridPos::new(s.0 as u32, s.1 as u32));
        for hop in stops.windows(2) {
            // Diagonal steps, then straight ones (the table knows each hop is open).
            let (a, b) = (hop[0], hop[1]);
            let (sx, sy) = ((b.0 - a.0).signum(), (b.1 - a.1).signum());
            let (ax, ay) = ((b.0 - a.0).abs(), (b.1 - a.1).abs());
            // (`extend` over a range writes the cells with no length update per cell.)
            let slant = ax.min(ay);
            let at = |(x, y): (i32, i32)| GridPos::new(x as u32, y as u32);
            cells.extend((1..slant + 1).map(|i| at((a.0 + i * sx, a.1 + i * sy))));
            let corner = (a.0 + slant * sx, a.1 + slant * sy);
            let (tx, ty) = if ax > ay { (sx, 0) } else { (0, sy) };
            let rest = ax.max(ay) - slant;
            cells.extend((1..rest + 1).map(|i| at((corner.0 + i * tx, corner.1 + i * ty))));
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

    /// The table in a compact binary form, to ship with the game next to the grid's bake so that
    /// it loads instead of being built: `TNPT`, [`TABLE_FORMAT_VERSION`], the grid's size, cost
    /// and fingerprint, the subgoals, the cell lists, the distance and predecessor tables
    /// (little-endian), and a checksum of all that.
    pub fn to_binary(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.memory_bytes() + 64);
        let u32s = |out: &mut Vec<u8>, values: &mut dyn Iterator<Item = u32>| {
            for v in values {
                out.extend_from_slice(&v.to_le_bytes());
            }
        };
        let size = (self.width as u32, self.height as u32);
        write_tie(&mut out, (TABLE_MAGIC, TABLE_FORMAT_VERSION), size, self.cost, self.fingerprint);
        u32s(&mut out, &mut std::iter::once(self.subgoals.len() as u32));
        u32s(&mut out, &mut self.subgoals.iter().map(|&(x, y)| x as u32 | (y as u32) << 16));
        for (starts, list) in [(&self.out_start, &self.out_list), (&self.in_start, &self.in_list)] {
            u32s(&mut out, &mut std::iter::once(list.len() as u32));
            u32s(&mut out, &mut starts.iter().copied());
            for v in list.iter() {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        u32s(&mut out, &mut self.dist.iter().copied());
        for v in &self.pred {
            out.extend_from_slice(&v.to_le_bytes());
        }
        seal(&mut out);
        out
    }

    /// A table from bytes written by [`to_binary`](Self::to_binary), for `grid`: a typed error
    /// when the bytes are damaged, of another version, or made for another grid (or for this
    /// one before its cells changed), so a game falls back to [`build`](Self::build).
    pub fn from_binary(bytes: &[u8], grid: &NavGrid) -> Result<Self, BakeError> {
        let format = (TABLE_MAGIC, TABLE_FORMAT_VERSION);
        let cost = grid.min_cost().unwrap_or(1);
        let (mut reader, fingerprint) = open_tied(bytes, format, grid, cost)?;
        if !grid.has_uniform_cost()
            || grid.has_edges()
            || grid.neighborhood() != Neighborhood::Eight
            || grid.corner_rule() != CornerRule::NoCornerCutting
        {
            return Err(BakeError::OtherGrid);
        }
        let (width, height) = (grid.width(), grid.height());
        let invalid = |why: &str| BakeError::Invalid(format!("path table: {why}"));
        let n = reader.u32()? as usize;
        if n > MAX_SUBGOALS {
            return Err(invalid("too many subgoals"));
        }
        let mut subgoals = Vec::with_capacity(n);
        for _ in 0..n {
            let v = reader.u32()?;
            let (x, y) = (v & 0xffff, v >> 16);
            if x >= width || y >= height {
                return Err(invalid("a subgoal outside the grid"));
            }
            subgoals.push((x as i32, y as i32));
        }
        let cells = width as usize * height as usize;
        let mut lists = Vec::new();
        for _ in 0..2 {
            let len = reader.u32()? as usize;
            let starts = reader.u32s(cells + 1)?;
            if starts[0] != 0
                || starts[cells] as usize != len
                || starts.windows(2).any(|w| w[0] > w[1])
            {
                return Err(invalid("cell lists out of order"));
            }
            let list = reader.u16s(len)?;
            if list.iter().any(|&v| usize::from(v) >= n) {
                return Err(invalid("a list names no subgoal"));
            }
            lists.push((starts, list));
        }
        let dist = reader.u32s(n * n)?;
        let pred = reader.u16s(n * n)?;
        if !reader.at_end() {
            return Err(invalid("bytes after the end"));
        }
        let (in_start, in_list) = lists.pop().expect("two lists");
        let (out_start, out_list) = lists.pop().expect("two lists");
        let mut open = vec![0u64; cells.div_ceil(64)];
        for (i, pos) in grid.positions().enumerate() {
            if grid.is_passable(pos) {
                open[i / 64] |= 1 << (i % 64);
            }
        }
        let table = Self {
            width: width as i32,
            height: height as i32,
            open,
            stamp: grid.stamp(),
            fingerprint,
            cost,
            subgoals,
            out_start,
            out_list,
            in_start,
            in_list,
            dist,
            pred,
        };
        if !table.pred_steps_clear() {
            return Err(invalid("a step between subgoals that is not a clear run"));
        }
        Ok(table)
    }

    /// Every hop between subgoals that the predecessor table names (from `pred` to the subgoal)
    /// is a clear diagonal-first run, as in a built table: each distinct hop checked once (they
    /// are the subgoal graph's edges, far fewer than the table's entries).
    fn pred_steps_clear(&self) -> bool {
        let n = self.subgoals.len();
        let mut checked = vec![0u64; (n * n).div_ceil(64)];
        for (slot, &from) in self.pred.iter().enumerate() {
            let (from, to) = (usize::from(from), slot % n);
            if from >= n || from == to {
                continue; // unreached, or the row's own subgoal: not a hop
            }
            let hop = from * n + to;
            if checked[hop / 64] >> (hop % 64) & 1 == 1 {
                continue;
            }
            checked[hop / 64] |= 1 << (hop % 64);
            if !self.diagonal_first_clear(self.subgoals[from], self.subgoals[to]) {
                return false;
            }
        }
        true
    }
}
