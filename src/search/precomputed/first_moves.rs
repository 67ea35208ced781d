//! Precomputed answers for small maps of any kind: a [`FirstMoveTable`].
//!
//! What it is: a compressed path database (Botea, Baier, Harabor and Hernández 2013), kept as
//! run-length rows (the idea of Strasser, Harabor and Botea 2014). For every passable cell, a
//! Dijkstra search out from it records, for every cell it reaches, the first step of a cheapest
//! path there. The row of a cell lists those first steps in the order of the grid's cells;
//! neighbouring cells mostly share their first step, so a row keeps only where the step changes
//! (walls and cells out of reach change nothing: no query asks for them). A query follows the
//! steps, each one looked up by a binary search in the row of the cell it stands on: no search
//! at all, and every path is a cheapest one, since each step is the first of a cheapest path
//! from where it starts.
//!
//! Why it exists beside [`PathTable`](crate::search::PathTable) and [`Landmarks`](crate::search::Landmarks):
//! it takes any grid the plain search does (terrain costs, 4-way, 8-way with either corner
//! rule, hex) and answers in a microsecond or two, but it takes a search from every cell to
//! build: it is for small maps ([`MAX_FIRST_MOVE_CELLS`] passable cells), the rooms and arenas
//! where a search is short and guiding it gains little.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt;

use super::slices::{SlicedBuild, Work, fingerprint, run_to_end, spend};
use crate::grid::sealed::{BakeError, cells_fingerprint, open_tied, rules_bytes, seal, write_tie};
use crate::grid::{GridPos, GridStamp, NavGrid};
use crate::search::astar::{Scratch, finish};
use crate::search::expansion::Expansion;
use crate::search::hex::HexNeighbors;
use crate::search::neighbors::Neighbors;
use crate::search::result::{PathError, PathResult, SearchStats};

/// The version of [`FirstMoveTable::to_binary`]'s format this crate writes, and the newest it
/// reads.
pub const FIRST_MOVE_FORMAT_VERSION: u32 = 1;

const FIRST_MOVE_MAGIC: &[u8; 4] = b"TNFM";

/// The most passable cells a [`FirstMoveTable`] takes: its build runs a search from every one
/// of them (its build time at this count: BENCHMARKS.md, "Measurements behind the code").
pub const MAX_FIRST_MOVE_CELLS: usize = 4096;

/// The most cells (walls included) a grid may have for a [`FirstMoveTable`]: it keeps a few
/// numbers for every cell.
pub const MAX_FIRST_MOVE_GRID: usize = 65_536;

/// Why a [`FirstMoveTable`] was not built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FirstMoveTableError {
    /// The map has more passable cells than the table takes ([`MAX_FIRST_MOVE_CELLS`]): its
    /// build would take a search from each of them.
    TooManyCells {
        /// How many passable cells the map has.
        found: usize,
        /// How many the table takes.
        limit: usize,
    },
    /// The grid has more cells, walls included, than the table takes
    /// ([`MAX_FIRST_MOVE_GRID`]).
    GridTooLarge {
        /// How many cells the grid has.
        cells: usize,
        /// How many the table takes.
        limit: usize,
    },
}

impl fmt::Display for FirstMoveTableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FirstMoveTableError::TooManyCells { found, limit } => write!(
                f,
                "the map has {found} passable cells, more than a first-move table takes \
                 ({limit})"
            ),
            FirstMoveTableError::GridTooLarge { cells, limit } => write!(
                f,
                "the grid has {cells} cells, more than a first-move table takes ({limit})"
            ),
        }
    }
}

impl std::error::Error for FirstMoveTableError {}

/// A run's step code: no step (only ever in a run nothing asks for).
const NO_MOVE: u32 = 15;

/// The step code of a step by (`dx`, `dy`), each -1, 0 or 1.
#[inline]
fn code(dx: isize, dy: isize) -> u32 {
    ((dy + 1) * 3 + dx + 1) as u32
}

/// For every passable cell of a small grid, the first step of a cheapest path to every other
/// cell it reaches: paths with no search, for any grid the plain search takes (terrain costs,
/// 4-way, 8-way, hex). See the module notes for how it works.
///
/// ```
/// use bevy_tilemap_nav::grid::{Cell, GridPos, NavGrid};
/// use bevy_tilemap_nav::search::{FirstMoveTable, PathQuery, Pathfinder};
///
/// let mut grid = NavGrid::new(20, 20).unwrap();
/// grid.set(GridPos::new(5, 5), Cell::Passable { cost: 8 }).unwrap(); // mud
/// let table = FirstMoveTable::build(&grid).unwrap();
/// let mut pathfinder = Pathfinder::new();
/// let (start, goal) = (GridPos::new(0, 0), GridPos::new(19, 12));
/// let path = pathfinder.find(&grid, &PathQuery::new(start, goal).with_help(&table)).unwrap();
/// let online = pathfinder.find(&grid, &PathQuery::new(start, goal)).unwrap();
/// assert!((path.cost - online.cost).abs() < 1e-9);
/// ```
#[derive(Clone, Debug)]
pub struct FirstMoveTable {
    /// The grid state the table was built for.
    stamp: GridStamp,
    /// Where each padded cell's row begins in `runs` (one more entry than cells).
    row_start: Vec<u32>,
    /// The rows: each run is `the Z-order rank of its first target << 4 | step code`, and
    /// holds until the next.
    runs: Vec<u32>,
    /// Each padded cell's rank in the Z-order of the grid's cells (the order of a row).
    rank: Vec<u32>,
    /// The grid's stride, to turn a step code into an index step.
    stride: usize,
    /// The grid's cells, to report memory per cell.
    cells: usize,
    /// The grid's size, rules ([`rules_bytes`], two bytes of padding) and cells' fingerprint:
    /// what a baked table is checked against.
    width: u32,
    height: u32,
    rules: [u8; 4],
    fingerprint: u64,
}

impl FirstMoveTable {
    /// Builds the table for `grid` as it is now: a Dijkstra search from every passable cell.
    pub fn build(grid: &NavGrid) -> Result<Self, FirstMoveTableError> {
        Self::check(grid)?;
        Ok(match HexNeighbors::new(grid) {
            Some(hex) => Self::build_with(grid, &hex),
            None => Self::build_with(grid, &Neighbors::new(grid, None)),
        })
    }

    /// The same build a slice at a time, on the thread that steps it (the searches of a build
    /// in one go are shared out among the machine's cores): see [`SlicedBuild`].
    pub fn build_in_slices(grid: &NavGrid) -> SlicedBuild<Result<Self, FirstMoveTableError>> {
        let grid = grid.frozen_copy();
        SlicedBuild::new(|mut work| async move { Self::build_counted(&grid, &mut work).await })
    }

    /// The build, one source after the other, counting its work in `work`.
    pub(crate) async fn build_counted(
        grid: &NavGrid,
        work: &mut Work,
    ) -> Result<Self, FirstMoveTableError> {
        Self::check(grid)?;
        Ok(match HexNeighbors::new(grid) {
            Some(hex) => Self::rows_counted(grid, &hex, work).await,
            None => Self::rows_counted(grid, &Neighbors::new(grid, None), work).await,
        })
    }

    /// Whether the table takes `grid`.
    fn check(grid: &NavGrid) -> Result<(), FirstMoveTableError> {
        let cells = grid.len();
        if cells > MAX_FIRST_MOVE_GRID {
            return Err(FirstMoveTableError::GridTooLarge { cells, limit: MAX_FIRST_MOVE_GRID });
        }
        let found = grid.passable_count();
        if found > MAX_FIRST_MOVE_CELLS {
            return Err(FirstMoveTableError::TooManyCells { found, limit: MAX_FIRST_MOVE_CELLS });
        }
        Ok(())
    }

    /// The rows of every cell, the sources shared out among the machine's cores.
    fn build_with<E: Expansion + Sync>(grid: &NavGrid, expansion: &E) -> Self {
        let len = grid.padded_len();
        let (order, rank) = run_to_end(z_order(grid, &mut Work::unlimited()));
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 8);
        let chunk = len.div_ceil(threads);
        let work = |from: usize| {
            let sources = from..len.min(from + chunk);
            run_to_end(rows(grid, expansion, (&order, &rank), sources, &mut Work::unlimited()))
        };
        let parts: Vec<(Vec<u32>, Vec<u32>)> = std::thread::scope(|scope| {
            // Where threads cannot be made (a browser), the work is done here.
            let others: Vec<_> = (chunk..len)
                .step_by(chunk)
                .map(|from| {
                    let thread =
                        std::thread::Builder::new().spawn_scoped(scope, move || work(from));
                    (from, thread.ok())
                })
                .collect();
            let mut parts = vec![work(0)];
            for (from, thread) in others {
                parts.push(thread.and_then(|t| t.join().ok()).unwrap_or_else(|| work(from)));
            }
            parts
        });
        Self::assemble(grid, parts, rank, cells_fingerprint(grid))
    }

    /// The rows of every cell, one source after the other, counting the work in `work`.
    async fn rows_counted<E: Expansion>(grid: &NavGrid, expansion: &E, work: &mut Work) -> Self {
        let (order, rank) = z_order(grid, work).await;
        let sources = 0..grid.padded_len();
        let part = rows(grid, expansion, (&order, &rank), sources, work).await;
        let fingerprint = fingerprint(grid, work).await;
        Self::assemble(grid, vec![part], rank, fingerprint)
    }

    /// The table from the rows of consecutive ranges of sources, in order.
    fn assemble(
        grid: &NavGrid,
        parts: Vec<(Vec<u32>, Vec<u32>)>,
        rank: Vec<u32>,
        fingerprint: u64,
    ) -> Self {
        let len = grid.padded_len();
        let mut row_start = Vec::with_capacity(len + 1);
        let mut runs = Vec::with_capacity(parts.iter().map(|(_, runs)| runs.len()).sum());
        for (lengths, part) in parts {
            let mut at = runs.len() as u32;
            for length in lengths {
                row_start.push(at);
                at += length;
            }
            runs.extend(part);
        }
        row_start.push(runs.len() as u32);
        Self { row_start, runs, rank, ..Self::identity(grid, fingerprint) }
    }

    /// The table was built for this grid as it is now: its answers come from the table.
    pub fn is_current(&self, grid: &NavGrid) -> bool {
        self.stamp == grid.stamp()
    }

    /// Rebuilds the table if `grid` changed since it was built (or it is another grid). On an
    /// error the old table stays, and answers keep coming from online search.
    pub fn refresh(&mut self, grid: &NavGrid) -> Result<(), FirstMoveTableError> {
        if !self.is_current(grid) {
            *self = Self::build(grid)?;
        }
        Ok(())
    }

    /// The memory the table takes, in bytes.
    pub fn memory_bytes(&self) -> usize {
        (self.row_start.len() + self.runs.len() + self.rank.len()) * 4
    }

    /// The memory the table takes per grid cell, in bytes.
    pub fn bytes_per_cell(&self) -> f64 {
        self.memory_bytes() as f64 / self.cells as f64
    }

    /// A cheapest path from `start` to `goal` from the table (the cost a search with default
    /// options finds), while the table is current for `grid`: `None` when a search must answer
    /// (the table not current, either end blocked or off the grid, or the start the goal).
    /// Asked through a [`PathQuery`](crate::search::PathQuery) given the table.
    pub(in crate::search) fn answer(
        &self,
        grid: &NavGrid,
        scratch: &mut Scratch,
        start: GridPos,
        goal: GridPos,
    ) -> Option<Result<PathResult, PathError>> {
        if !self.is_current(grid)
            || start == goal
            || !grid.is_passable(start)
            || !grid.is_passable(goal)
        {
            return None;
        }
        if grid.component(start) != grid.component(goal) {
            return Some(Err(PathError::Unreachable { start, goal }));
        }
        // `None` is not expected (the table covers every reachable pair): a search answers.
        self.walk(grid, scratch, grid.index(start), grid.index(goal)).map(Ok)
    }

    /// The table in a compact binary form, to ship with the game next to the grid's bake so that
    /// it loads instead of being built: `TNFM`, [`FIRST_MOVE_FORMAT_VERSION`], the grid's size,
    /// moves and corner rule, a fingerprint of its cells, the rows (little-endian), and a
    /// checksum of all that.
    pub fn to_binary(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.memory_bytes() + 64);
        let format = (FIRST_MOVE_MAGIC, FIRST_MOVE_FORMAT_VERSION);
        let rules = u32::from_le_bytes(self.rules);
        write_tie(&mut out, format, (self.width, self.height), rules, self.fingerprint);
        out.extend_from_slice(&(self.runs.len() as u32).to_le_bytes());
        for v in self.row_start.iter().chain(&self.runs) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        seal(&mut out);
        out
    }

    /// A table from bytes written by [`to_binary`](Self::to_binary), for `grid`: a typed error
    /// when the bytes are damaged, of another version, or made for another grid (other size,
    /// moves, corner rule or cells, or this one before its cells changed), so a game falls back
    /// to [`build`](Self::build).
    pub fn from_binary(bytes: &[u8], grid: &NavGrid) -> Result<Self, BakeError> {
        let [moves, corners] = rules_bytes(grid);
        let format = (FIRST_MOVE_MAGIC, FIRST_MOVE_FORMAT_VERSION);
        let rules = u32::from_le_bytes([moves, corners, 0, 0]);
        let (mut reader, fingerprint) = open_tied(bytes, format, grid, rules)?;
        let expected = Self::identity(grid, fingerprint);
        let invalid = |why: &str| BakeError::Invalid(format!("first-move table: {why}"));
        let len = grid.padded_len();
        let count = reader.u32()? as usize;
        let row_start = reader.u32s(len + 1)?;
        if row_start[0] != 0
            || row_start[len] as usize != count
            || row_start.windows(2).any(|w| w[0] > w[1])
        {
            return Err(invalid("rows out of order"));
        }
        let runs = reader.u32s(count)?;
        // Only the eight steps (code 4 is none) and "no move" are step codes.
        if runs.iter().any(|&run| run & 15 == code(0, 0) || (run & 15 > 8 && run & 15 != NO_MOVE)) {
            return Err(invalid("a step that is none of the grid's moves"));
        }
        if !reader.at_end() {
            return Err(invalid("bytes after the end"));
        }
        // Each step in an open cell's row is one the grid allows from that cell (corner rule
        // and hex parity included), as in a built table: bytes changed by hand and sealed again
        // then cannot walk a path through a wall's corner. (Walls' rows are never read.)
        let costs = grid.padded_costs();
        let legal = (0..len).filter(|&i| costs[i] != 0).all(|i| {
            let (x, y) = grid.unpad(i);
            let from = GridPos::new(x, y);
            runs[row_start[i] as usize..row_start[i + 1] as usize].iter().all(|&run| {
                let step = run & 15;
                let (dx, dy) = (step as i32 % 3 - 1, step as i32 / 3 - 1);
                let to = x.checked_add_signed(dx).zip(y.checked_add_signed(dy));
                step == NO_MOVE
                    || to.is_some_and(|(tx, ty)| grid.can_step(from, GridPos::new(tx, ty)))
            })
        });
        if !legal {
            return Err(invalid("a step the grid does not allow from its cell"));
        }
        let (_, rank) = run_to_end(z_order(grid, &mut Work::unlimited()));
        Ok(Self { row_start, runs, rank, ..expected })
    }

    /// An empty table for `grid` as it is now (its cells' `fingerprint`): what ties a table to
    /// its grid.
    fn identity(grid: &NavGrid, fingerprint: u64) -> Self {
        let [moves, corners] = rules_bytes(grid);
        Self {
            stamp: grid.stamp(),
            row_start: Vec::new(),
            runs: Vec::new(),
            rank: Vec::new(),
            stride: grid.stride(),
            cells: grid.len().max(1),
            width: grid.width(),
            height: grid.height(),
            rules: [moves, corners, 0, 0],
            fingerprint,
        }
    }

    /// The step code of the first step from padded cell `from` towards the cell of Z-order
    /// rank `to`.
    #[inline]
    fn first_move(&self, from: usize, to: u32) -> u32 {
        let row = &self.runs[self.row_start[from] as usize..self.row_start[from + 1] as usize];
        // The last run that begins at or before `to`.
        let at = row.partition_point(|&run| run >> 4 <= to);
        if at == 0 { NO_MOVE } else { row[at - 1] & 15 }
    }

    /// Follows the table's steps from `start` to `goal` (padded), parents in a search's
    /// scratch, and reads the path back as a search's. `None` if a step leads nowhere.
    fn walk(
        &self,
        grid: &NavGrid,
        scratch: &mut Scratch,
        start: usize,
        goal: usize,
    ) -> Option<PathResult> {
        let costs = grid.padded_costs();
        scratch.begin(grid.padded_len());
        let nodes = &mut scratch.nodes;
        let stride = self.stride as isize;
        let mut at = start;
        let to = self.rank[goal];
        // A cheapest path never comes back to a cell: more steps than cells is a broken table.
        for _ in 0..costs.len() {
            if at == goal {
                return Some(finish(grid, nodes, start, goal, SearchStats::default(), true, false));
            }
            let step = self.first_move(at, to);
            if step == NO_MOVE || step == code(0, 0) {
                return None;
            }
            let (dx, dy) = (step as isize % 3 - 1, step as isize / 3 - 1);
            let next = (at as isize + dx + dy * stride) as usize;
            if costs.get(next).is_none_or(|&c| c == 0) {
                return None;
            }
            nodes[next].parent = at as u32;
            at = next;
        }
        None
    }
}

/// The rows of the cells `sources` (padded indices): how many runs each has, and the runs.
/// `order` is the grid's cells in Z-order, `rank` each cell's place in it. 8 units of work per
/// cell each search takes from its open list (counted [`BATCH`] at a time), 4 per 32 cells of
/// each row read.
async fn rows<E: Expansion>(
    grid: &NavGrid,
    expansion: &E,
    (order, rank): (&[usize], &[u32]),
    sources: std::ops::Range<usize>,
    work: &mut Work,
) -> (Vec<u32>, Vec<u32>) {
    let costs = grid.padded_costs();
    let mut lengths = Vec::with_capacity(sources.len());
    let mut runs = Vec::new();
    let mut search = Dijkstra::new(costs.len());
    for source in sources {
        spend!(work, 1);
        let before = runs.len();
        if costs[source] != 0 {
            search.run(source, grid.stride(), expansion, work).await;
            // The row, in Z-order: a run goes on while some step is the first of a cheapest
            // path to every cell in it so far (the greedy cut is the fewest runs).
            let mut run: Option<(u32, u16)> = None;
            for targets in order.chunks(32) {
                spend!(work, 4);
                for &target in targets {
                    if search.seen[target] != search.round || target == source {
                        continue; // out of reach, or the source: no query asks
                    }
                    let steps = search.first[target];
                    match run {
                        Some((at, common)) if common & steps != 0 => {
                            run = Some((at, common & steps))
                        }
                        _ => {
                            if let Some((at, common)) = run {
                                runs.push(at << 4 | common.trailing_zeros());
                            }
                            run = Some((rank[target], steps));
                        }
                    }
                }
            }
            if let Some((at, common)) = run {
                runs.push(at << 4 | common.trailing_zeros());
            }
        }
        lengths.push((runs.len() - before) as u32);
    }
    (lengths, runs)
}

/// Equal costs, for the Dijkstra search's sets of first steps: sums of steps that differ in
/// exact arithmetic differ by far more than this on a grid of at most
/// [`MAX_FIRST_MOVE_CELLS`] cells, and rounding stays far below it.
const TIE: f64 = 1e-7;

/// Cells a search takes from its open list between two checks of the work left.
const BATCH: usize = 64;

/// One Dijkstra search at a time, its arrays reused from source to source.
struct Dijkstra {
    cost: Vec<f64>,
    /// The step codes (bits) of every first step of a cheapest path to each cell.
    first: Vec<u16>,
    /// `round` when the cell was reached by the current search.
    seen: Vec<u32>,
    round: u32,
    open: BinaryHeap<Reverse<(u64, usize)>>,
}

impl Dijkstra {
    fn new(len: usize) -> Self {
        Self {
            cost: vec![0.0; len],
            first: vec![0; len],
            seen: vec![0; len],
            round: 0,
            open: BinaryHeap::new(),
        }
    }

    /// Searches out from padded cell `source` to every cell it reaches.
    async fn run<E: Expansion>(
        &mut self,
        source: usize,
        stride: usize,
        expansion: &E,
        work: &mut Work,
    ) {
        self.round += 1;
        let round = self.round;
        self.open.clear();
        self.cost[source] = 0.0;
        self.first[source] = 0;
        self.seen[source] = round;
        self.open.push(Reverse((0f64.to_bits(), source)));
        while !self.open.is_empty() {
            spend!(work, 8 * BATCH as u64);
            self.settle(source, stride, expansion, BATCH);
        }
    }

    /// Takes up to `limit` cells from the open list of the search from `source`.
    fn settle<E: Expansion>(&mut self, source: usize, stride: usize, expansion: &E, limit: usize) {
        let round = self.round;
        let mut settled = 0;
        while settled < limit
            && let Some(Reverse((bits, i))) = self.open.pop()
        {
            let g = f64::from_bits(bits);
            if g > self.cost[i] {
                continue; // a stale entry
            }
            settled += 1;
            let (x, y) = ((i % stride) as isize, (i / stride) as isize);
            let from_source = i == source;
            let steps_here = self.first[i];
            expansion.successors(i, x, y, i, |j, jx, jy, step| {
                let next = g + step;
                let steps = if from_source { 1 << code(jx - x, jy - y) } else { steps_here };
                if self.seen[j] == round && next >= self.cost[j] - TIE {
                    if next <= self.cost[j] + TIE {
                        self.first[j] |= steps; // another cheapest way
                    }
                    return;
                }
                self.seen[j] = round;
                self.cost[j] = next;
                self.first[j] = steps;
                self.open.push(Reverse((next.to_bits(), j)));
            });
        }
    }
}

/// The grid's cells in Z-order (bits of x and y interleaved): cells near each other are mostly
/// near in it, so a row's runs are long. Also each padded cell's rank in it. Made by walking the
/// quadrants that cover the padded grid in Z-order (no sort): a unit of work per quadrant.
async fn z_order(grid: &NavGrid, work: &mut Work) -> (Vec<usize>, Vec<u32>) {
    let len = grid.padded_len();
    let (width, height) = (grid.stride(), len / grid.stride());
    let mut side = 1;
    while side < width.max(height) {
        side *= 2;
    }
    let mut order = Vec::with_capacity(len);
    let mut quadrants = vec![(0, 0, side)];
    while let Some((x, y, size)) = quadrants.pop() {
        spend!(work, 1);
        if x >= width || y >= height {
            continue;
        }
        if size == 1 {
            order.push(y * width + x);
            continue;
        }
        // Visited low x before high x, then low y before high y (y's bit is above x's).
        let half = size / 2;
        quadrants.extend([(x + half, y + half, half), (x, y + half, half), (x + half, y, half)]);
        quadrants.push((x, y, half));
    }
    let mut rank = vec![0; len];
    for (k, &i) in order.iter().enumerate() {
        rank[i] = k as u32;
    }
    (order, rank)
}
