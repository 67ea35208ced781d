//! Landmarks: a better estimate of the remaining cost on grids with terrain, from a few cells'
//! precomputed distances ([`Landmarks`]).
//!
//! The method is ALT (A*, landmarks, triangle inequality: Goldberg and Harrelson 2005), in the
//! form of "differential heuristics" that Sturtevant et al. (2009) measured on game maps. A few
//! cells far apart are picked as landmarks, and the distance from each to every cell and from
//! every cell to each is stored (a step costs its length times the cost of the cell it enters,
//! so the two differ on terrain). For a cell `n`, the goal `g` and a landmark `L`, the triangle
//! inequality gives `d(L, g) - d(L, n) <= d(n, g)` and `d(n, L) - d(g, L) <= d(n, g)`: lower
//! bounds on the remaining cost that see walls and terrain, where the octile distance sees
//! neither. The search takes the largest of these bounds and the octile one.
//!
//! Both ways are kept because one symmetric number loses at every edge of dearer ground. That
//! was the first version (each step at the lower of its two cells' costs, so one number served
//! both ways): with the same memory, 16 landmarks that way expanded more cells and took longer
//! than 8 both ways (BENCHMARKS.md, "Measurements behind the code").
//!
//! The distances are whole 1/985ths of a cost (a diagonal step 1393, a hair short of 985 x
//! sqrt(2)): exact integer arithmetic, and never more than the real costs, so the estimate
//! never overestimates and never drops by more than a step costs (it is consistent), so paths
//! stay optimal.
//!
//! Kept right when cells change ([`Landmarks::refresh`]): what the search needs is not exact
//! distances but numbers that never differ between two neighbors by more than the step between
//! them costs. A cell that gets dearer or blocked keeps that true, so nothing is done; a cell
//! that gets cheaper or opens is repaired by lowering the numbers around it, Dijkstra's way,
//! only as far as they change. Until refreshed, landmarks are still used for a grid whose
//! changes since were all of the first kind, and skipped otherwise: answers are always optimal.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::slices::{SlicedBuild, Work, filled, run_to_end, spend};
use crate::grid::sealed::{BakeError, cells_fingerprint, open_tied, rules_bytes, seal, write_tie};
use crate::grid::{Cell, CornerRule, GridPos, GridStamp, NavGrid, Neighborhood};
use crate::search::expansion::Expansion;
use crate::search::hex::HexNeighbors;
use crate::search::neighbors::Neighbors;

/// The stored distances' unit: a straight step over ground of cost 1 is 985.
const UNIT: u32 = 985;
/// A diagonal step over ground of cost 1: 1393, just under 985 x sqrt(2) (1393 / 985 is a
/// convergent of sqrt(2) from below, off by 3 parts in 10 million).
const DIAGONAL: u32 = 1393;
/// Not reached from the landmark.
const FAR: u32 = u32::MAX;

/// The most landmarks [`Landmarks::build`] takes.
pub const MAX_LANDMARKS: usize = 32;

/// The version of the baked form of [`Landmarks`] this crate writes, and the newest it reads.
pub const LANDMARKS_FORMAT_VERSION: u32 = 1;

const LANDMARKS_MAGIC: &[u8; 4] = b"TNLM";

/// Distances from a few landmark cells to every cell of one [`NavGrid`], for a sharper estimate
/// of the remaining cost on grids with terrain (see the module notes for the method). Optimal
/// paths stay optimal: the estimate is a lower bound that never drops by more than a step costs.
///
/// Give it to a query with [`PathQuery::guided`](crate::search::PathQuery::guided). Memory:
/// 8 bytes per cell per landmark (a distance each way).
///
/// ```
/// use bevy_tilemap_nav::grid::{Cell, GridPos, NavGrid};
/// use bevy_tilemap_nav::search::{Landmarks, PathQuery, Pathfinder};
///
/// let mut grid = NavGrid::new(40, 30).unwrap();
/// // Mud (cost 6) across the middle, with a road (cost 1) through it.
/// grid.fill_rect(GridPos::new(15, 0), GridPos::new(24, 29), Cell::Passable { cost: 6 }).unwrap();
/// grid.fill_rect(GridPos::new(15, 25), GridPos::new(24, 25), Cell::Passable { cost: 1 }).unwrap();
/// let landmarks = Landmarks::build(&grid, 8).unwrap();
/// let mut pathfinder = Pathfinder::new();
/// let query = PathQuery::new(GridPos::new(2, 5), GridPos::new(37, 5));
/// let guided = pathfinder.find(&grid, &query.with_help(&landmarks)).unwrap();
/// let plain = pathfinder.find(&grid, &query).unwrap();
/// assert!((guided.cost - plain.cost).abs() < 1e-9); // the same, optimal, cost
/// assert!(guided.stats.expanded < plain.stats.expanded); // after less work
/// ```
#[derive(Clone)]
pub struct Landmarks {
    /// Landmarks.
    count: usize,
    /// `2 x count` numbers per padded cell, cell after cell: the distance from each landmark to
    /// the cell, then from the cell to each landmark.
    dist: Vec<u32>,
    /// The landmark cells.
    cells: Vec<GridPos>,
    /// The grid state the distances are right for.
    stamp: GridStamp,
    width: u32,
    height: u32,
    neighborhood: Neighborhood,
    corner_rule: CornerRule,
}

impl std::fmt::Debug for Landmarks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Landmarks")
            .field("cells", &self.cells)
            .field("width", &self.width)
            .field("height", &self.height)
            .field("bytes", &self.memory_bytes())
            .finish()
    }
}

/// Why [`Landmarks`] were not built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LandmarksError {
    /// The count asked for is 0 or above [`MAX_LANDMARKS`].
    BadCount {
        /// The count asked for.
        count: usize,
    },
    /// The grid has no passable cell.
    NoPassableCell,
}

impl std::fmt::Display for LandmarksError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LandmarksError::BadCount { count } => {
                write!(f, "{count} landmarks asked for; take 1 to {MAX_LANDMARKS}")
            }
            LandmarksError::NoPassableCell => write!(f, "the grid has no passable cell"),
        }
    }
}

impl std::error::Error for LandmarksError {}

/// The legal steps between cells, weighted in the stored units (see the module notes): the
/// search's own expansions, made once per pass over the grid.
struct Steps<'a> {
    grid: &'a NavGrid,
    hex: Option<HexNeighbors<'a>>,
    square: Neighbors<'a>,
}

impl<'a> Steps<'a> {
    fn new(grid: &'a NavGrid) -> Self {
        Self { grid, hex: HexNeighbors::new(grid), square: Neighbors::new(grid, None) }
    }

    /// Calls `visit(j, weight)` for every legal step between padded cell `i` and a neighbour
    /// `j`: weighted as the step from `i` to `j` (`Way::Out`), or from `j` to `i` (`Way::In`).
    #[inline]
    fn from(&self, i: usize, way: Way, mut visit: impl FnMut(usize, u32)) {
        let costs = self.grid.padded_costs();
        let stride = self.grid.stride();
        let (x, y) = ((i % stride) as isize, (i / stride) as isize);
        let here = costs[i];
        let hex = self.hex.is_some();
        let weigh = |j: usize, jx: isize, jy: isize, _step: f64| {
            let unit = if jx != x && jy != y && !hex { DIAGONAL } else { UNIT };
            let entered = if way == Way::In { here } else { costs[j] };
            visit(j, unit.saturating_mul(entered));
        };
        if way == Way::In && self.grid.has_edges() {
            // Across one-way edges the steps into a cell are not the steps out of it read
            // backwards.
            let (px, py) = self.grid.unpad(i);
            let mut weigh = weigh;
            for (before, _) in self.grid.predecessors(GridPos::new(px, py)) {
                let j = self.grid.index(before);
                weigh(j, (j % stride) as isize, (j / stride) as isize, 0.0);
            }
            return;
        }
        match &self.hex {
            Some(hex) => hex.successors(i, x, y, i, weigh),
            None => self.square.successors(i, x, y, i, weigh),
        }
    }
}

/// Which distances a landmark's number is: from the landmark to the cell, or from the cell to
/// the landmark (steps cost their length times the cost of the cell they enter, so the two
/// differ).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Way {
    Out,
    In,
}

/// Cells a search takes from its heap between two checks of the work left.
const BATCH: usize = 64;

/// Lowers `dist` (one landmark's numbers one way, `count` apart from `offset`) Dijkstra's way
/// from the cells in `heap` until no step can lower any further. 8 units of work per cell taken
/// from the heap (a unit is about 10 ns), counted [`BATCH`] cells at a time.
async fn settle(
    steps: &Steps<'_>,
    dist: &mut [u32],
    (count, offset): (usize, usize),
    way: Way,
    heap: &mut BinaryHeap<Reverse<(u32, u32)>>,
    work: &mut Work,
) {
    while !heap.is_empty() {
        spend!(work, 8 * BATCH as u64);
        let mut settled = 0;
        while settled < BATCH
            && let Some(Reverse((d, i))) = heap.pop()
        {
            let i = i as usize;
            if dist[i * count + offset] != d {
                continue;
            }
            settled += 1;
            steps.from(i, way, |j, w| {
                let through = d.saturating_add(w);
                let slot = &mut dist[j * count + offset];
                if through < *slot {
                    *slot = through;
                    heap.push(Reverse((through, j as u32)));
                }
            });
        }
    }
}

/// One landmark's numbers one way: a search over the whole grid from padded cell `from`.
async fn search(
    steps: &Steps<'_>,
    from: usize,
    way: Way,
    heap: &mut BinaryHeap<Reverse<(u32, u32)>>,
    work: &mut Work,
) -> Vec<u32> {
    let mut dist = filled(steps.grid.padded_len(), FAR, work).await;
    dist[from] = 0;
    heap.push(Reverse((0, from as u32)));
    settle(steps, &mut dist, (1, 0), way, heap, work).await;
    dist
}

/// A cell of the grid's largest connected area (of those as large, the one whose first cell in
/// row order comes first): that first cell, padded. A unit of work per cell.
async fn largest_area_cell(steps: &Steps<'_>, work: &mut Work) -> Option<usize> {
    let costs = steps.grid.padded_costs();
    let mut seen = vec![false; costs.len()];
    let mut largest: Option<(usize, usize)> = None;
    let mut stack = Vec::new();
    for first in 0..costs.len() {
        spend!(work, 1);
        if costs[first] == 0 || seen[first] {
            continue;
        }
        seen[first] = true;
        stack.push(first);
        let mut size = 0;
        while let Some(i) = stack.pop() {
            spend!(work, 4);
            size += 1;
            steps.from(i, Way::Out, |j, _| {
                if !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            });
        }
        if largest.is_none_or(|(most, _)| size > most) {
            largest = Some((size, first));
        }
    }
    largest.map(|(_, first)| first)
}

/// The grid's moves and corner rule in one number, as the baked form stores them.
fn rules_word(grid: &NavGrid) -> u32 {
    let [moves, corners] = rules_bytes(grid);
    u32::from_le_bytes([moves, corners, 0, 0])
}

impl Landmarks {
    /// Picks `count` landmarks far apart on `grid` (each the cell farthest from those before it,
    /// in the grid's largest connected area) and stores the distance from each to every cell:
    /// `count` searches over the whole grid. 8 to 16 is a good count.
    pub fn build(grid: &NavGrid, count: usize) -> Result<Self, LandmarksError> {
        // The distances from each landmark pick the next, so those searches run in turn here;
        // the distances to each landmark go to another core as each is picked (or are worked
        // out here after, where no thread can be made).
        std::thread::scope(|scope| {
            let (picked, queue) = std::sync::mpsc::channel::<usize>();
            let worker = std::thread::Builder::new()
                .spawn_scoped(scope, || {
                    let steps = Steps::new(grid);
                    let mut heap = BinaryHeap::new();
                    let mut work = Work::unlimited();
                    queue
                        .into_iter()
                        .map(|far| run_to_end(search(&steps, far, Way::In, &mut heap, &mut work)))
                        .collect::<Vec<_>>()
                })
                .ok();
            let mut work = Work::unlimited();
            let build =
                Self::build_counted(grid, count, &mut work, worker.as_ref().map(|_| &picked));
            let built = run_to_end(build);
            drop(picked);
            let mut landmarks = built?;
            if let Some(to_landmarks) = worker.and_then(|w| w.join().ok()) {
                for (k, to) in to_landmarks.iter().enumerate() {
                    run_to_end(landmarks.store(count + k, to, &mut work));
                }
            }
            Ok(landmarks)
        })
    }

    /// The same build a slice at a time, on the thread that steps it (a build in one go uses
    /// two cores): see [`SlicedBuild`].
    pub fn build_in_slices(
        grid: &NavGrid,
        count: usize,
    ) -> SlicedBuild<Result<Self, LandmarksError>> {
        let grid = grid.frozen_copy();
        SlicedBuild::new(move |mut work| async move {
            Self::build_counted(&grid, count, &mut work, None).await
        })
    }

    /// The build, counting its work in `work`. With `picked`, each landmark is sent there as it
    /// is picked and the distances to it are left for the receiver to work out and
    /// [`store`](Self::store); without, they are worked out here after the picks.
    pub(crate) async fn build_counted(
        grid: &NavGrid,
        count: usize,
        work: &mut Work,
        picked: Option<&std::sync::mpsc::Sender<usize>>,
    ) -> Result<Self, LandmarksError> {
        if count == 0 || count > MAX_LANDMARKS {
            return Err(LandmarksError::BadCount { count });
        }
        let steps = Steps::new(grid);
        let Some(seed) = largest_area_cell(&steps, work).await else {
            return Err(LandmarksError::NoPassableCell);
        };
        let len = grid.padded_len();
        let mut landmarks = Self {
            count,
            dist: filled(len * 2 * count, FAR, work).await,
            cells: Vec::with_capacity(count),
            stamp: grid.stamp(),
            width: grid.width(),
            height: grid.height(),
            neighborhood: grid.neighborhood(),
            corner_rule: grid.corner_rule(),
        };
        // The nearest landmark's distance per cell (at first, from the seed): the next
        // landmark is the cell where it is largest.
        let mut heap = BinaryHeap::new();
        let mut nearest = search(&steps, seed, Way::Out, &mut heap, work).await;
        let mut reached = Vec::new();
        for (at, cells) in nearest.chunks(64).enumerate() {
            spend!(work, 4);
            reached.extend((0..cells.len()).filter(|&i| cells[i] != FAR).map(|i| at * 64 + i));
        }
        let mut farthest = Vec::with_capacity(count);
        for k in 0..count {
            let mut far = None;
            for cells in reached.chunks(64) {
                spend!(work, 4);
                for &i in cells {
                    if far.is_none_or(|(d, _)| nearest[i] > d) {
                        far = Some((nearest[i], i));
                    }
                }
            }
            let (_, far) = far.expect("the seed is reached");
            farthest.push(far);
            if let Some(picked) = picked {
                let _ = picked.send(far);
            }
            let (x, y) = grid.unpad(far);
            landmarks.cells.push(GridPos::new(x, y));
            let from = search(&steps, far, Way::Out, &mut heap, work).await;
            for (near, from) in nearest.chunks_mut(64).zip(from.chunks(64)) {
                spend!(work, 4);
                for (near, &d) in near.iter_mut().zip(from) {
                    *near = if k == 0 { d } else { (*near).min(d) };
                }
            }
            landmarks.store(k, &from, work).await;
        }
        if picked.is_none() {
            for (k, &far) in farthest.iter().enumerate() {
                let to = search(&steps, far, Way::In, &mut heap, work).await;
                landmarks.store(count + k, &to, work).await;
            }
        }
        Ok(landmarks)
    }

    /// Stores one landmark's numbers one way (`slot`: `k` from landmark `k`, `count + k` to
    /// it), a unit of work per 64 cells.
    async fn store(&mut self, slot: usize, numbers: &[u32], work: &mut Work) {
        let slots = self.slots();
        for (at, cells) in numbers.chunks(64).enumerate() {
            spend!(work, 8);
            for (i, &d) in cells.iter().enumerate() {
                self.dist[(at * 64 + i) * slots + slot] = d;
            }
        }
    }

    /// The landmarks as bytes, to ship with a game built for `grid` as it is now, so that it
    /// loads them ([`from_binary`](Self::from_binary)) instead of building them: `TNLM`,
    /// [`LANDMARKS_FORMAT_VERSION`], the grid's size, moves and corner rule, a fingerprint of its
    /// cells, the landmark cells, every cell's numbers, and a checksum (8 bytes a cell per
    /// landmark, as in memory). [`BakeError::OtherGrid`] when they are not current for `grid`
    /// ([`is_current`](Self::is_current)).
    pub fn to_binary(&self, grid: &NavGrid) -> Result<Vec<u8>, BakeError> {
        if !self.is_current(grid) {
            return Err(BakeError::OtherGrid);
        }
        let mut out = Vec::with_capacity(self.dist.len() * 4 + 64);
        let format = (LANDMARKS_MAGIC, LANDMARKS_FORMAT_VERSION);
        let size = (self.width, self.height);
        write_tie(&mut out, format, size, rules_word(grid), cells_fingerprint(grid));
        out.extend_from_slice(&(self.count as u32).to_le_bytes());
        let cells = self.cells.iter().flat_map(|c| [c.x, c.y]);
        for v in cells.chain(self.dist.iter().copied()) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        seal(&mut out);
        Ok(out)
    }

    /// Landmarks from bytes written by [`to_binary`](Self::to_binary), for `grid`: a typed error
    /// when the bytes are damaged, of another version, or made for another grid (other size,
    /// moves, corner rule or cells, or this one before its cells changed), so a game falls back
    /// to [`build`](Self::build). The numbers are checked step by step before use (no step may
    /// lower one by more than the step costs), so even bytes made by hand cannot make a path
    /// less than optimal.
    pub fn from_binary(bytes: &[u8], grid: &NavGrid) -> Result<Self, BakeError> {
        let format = (LANDMARKS_MAGIC, LANDMARKS_FORMAT_VERSION);
        let (mut reader, _) = open_tied(bytes, format, grid, rules_word(grid))?;
        let (width, height) = (grid.width(), grid.height());
        let invalid = |why: &str| BakeError::Invalid(format!("landmarks: {why}"));
        let count = reader.u32()? as usize;
        if count == 0 || count > MAX_LANDMARKS {
            return Err(invalid("no landmark, or more than MAX_LANDMARKS"));
        }
        let cells: Vec<GridPos> =
            reader.u32s(2 * count)?.chunks_exact(2).map(|c| GridPos::new(c[0], c[1])).collect();
        if !cells.iter().all(|&c| grid.is_passable(c)) {
            return Err(invalid("a landmark on a wall or outside the grid"));
        }
        let dist = reader.u32s(grid.padded_len() * 2 * count)?;
        if !reader.at_end() {
            return Err(invalid("bytes after the end"));
        }
        let landmarks = Self {
            count,
            dist,
            cells,
            stamp: grid.stamp(),
            width,
            height,
            neighborhood: grid.neighborhood(),
            corner_rule: grid.corner_rule(),
        };
        if !landmarks.consistent(grid) {
            return Err(invalid("numbers that would overestimate a path's cost"));
        }
        Ok(landmarks)
    }

    /// No step between passable cells lowers a number by more than the step costs: what keeps
    /// the estimate a lower bound that never drops by more than a step costs (each term of
    /// [`bound`](Self::bound) then is one, by induction along any path).
    fn consistent(&self, grid: &NavGrid) -> bool {
        let steps = Steps::new(grid);
        let costs = grid.padded_costs();
        let (count, slots) = (self.count, self.slots());
        let mut ok = true;
        for i in (0..costs.len()).filter(|&i| costs[i] != 0) {
            let here = self.at(i);
            // Out: d(L, j) <= d(L, i) + w(i -> j). In: d(j, L) <= w(j -> i) + d(i, L).
            for (way, range) in [(Way::Out, 0..count), (Way::In, count..slots)] {
                steps.from(i, way, |j, w| {
                    let there = &self.dist[j * slots..(j + 1) * slots];
                    for k in range.clone() {
                        ok &= here[k] == FAR || there[k] <= here[k].saturating_add(w);
                    }
                });
            }
            if !ok {
                return false;
            }
        }
        true
    }

    /// The landmark cells.
    pub fn cells(&self) -> &[GridPos] {
        &self.cells
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.dist.capacity() * 4 + self.cells.capacity() * std::mem::size_of::<GridPos>()
    }

    /// True when built (or last refreshed) for the grid as it is now.
    pub fn is_current(&self, grid: &NavGrid) -> bool {
        self.stamp == grid.stamp()
    }

    /// Whether the search may use these numbers on `grid` as it is now: built for it, or for an
    /// earlier state of it from which cells only got dearer or blocked.
    pub fn usable_on(&self, grid: &NavGrid) -> bool {
        if self.is_current(grid) {
            return true;
        }
        let Some(changes) = self.changes(grid) else {
            return false;
        };
        // Each cell's first entry is its cost when the numbers were made.
        let mut seen = std::collections::HashSet::new();
        for (pos, old) in changes {
            if !seen.insert(pos) {
                continue;
            }
            let before = match old {
                Cell::Passable { cost } => cost,
                Cell::Blocked => 0,
            };
            let now = grid.cost(pos).unwrap_or(0);
            if now != 0 && (before == 0 || now < before) {
                return false; // opened or cheaper
            }
        }
        true
    }

    /// The grid's changes since the numbers were made, when they are listed: `None` for a
    /// grid of another size or rules, another grid, changes no longer listed, or a grid state
    /// older than the numbers (a frozen copy taken before a refresh).
    fn changes<'g>(&self, grid: &'g NavGrid) -> Option<impl Iterator<Item = (GridPos, Cell)> + 'g> {
        if !self.same_shape(grid) || self.stamp.revision() > grid.revision() {
            return None;
        }
        grid.changes_since(self.stamp)
    }

    /// [`refresh`](Self::refresh) can follow the grid's changes cell by cell (no rebuild).
    #[cfg_attr(not(feature = "bevy"), allow(dead_code))]
    pub(crate) fn can_follow(&self, grid: &NavGrid) -> bool {
        self.changes(grid).is_some()
    }

    fn same_shape(&self, grid: &NavGrid) -> bool {
        self.width == grid.width()
            && self.height == grid.height()
            && self.neighborhood == grid.neighborhood()
            && self.corner_rule == grid.corner_rule()
    }

    /// Brings the numbers in step with `grid` after its cells changed: lowered around cells that
    /// opened or got cheaper (as far as the change reaches), nothing for the others. A grid of
    /// another size or rules, or one whose changes are no longer listed
    /// ([`NavGrid::changes_since`]), gets a full rebuild with the same landmarks where they are
    /// still passable.
    pub fn refresh(&mut self, grid: &NavGrid) {
        run_to_end(self.refresh_counted(grid, &mut Work::unlimited()));
    }

    /// [`refresh`](Self::refresh), counting its work in `work`.
    pub(crate) async fn refresh_counted(&mut self, grid: &NavGrid, work: &mut Work) {
        if self.is_current(grid) {
            return;
        }
        let changed: Option<Vec<GridPos>> =
            self.changes(grid).map(|c| c.map(|(pos, _)| pos).collect());
        let Some(changed) = changed else {
            if let Ok(fresh) = Self::build_counted(grid, self.count, work, None).await {
                *self = fresh;
            } else {
                self.dist.fill(FAR);
                self.stamp = grid.stamp();
            }
            return;
        };
        // Every step whose weight may have dropped touches a changed cell or (a diagonal that
        // a changed side cell now allows) two of its neighbors: settle from all of them.
        let stride = grid.stride() as isize;
        let mut seeds: Vec<usize> = Vec::new();
        for pos in changed {
            spend!(work, 1);
            let i = grid.index(pos) as isize;
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let j = (i + dx + dy * stride) as usize;
                    if grid.padded_costs()[j] != 0 {
                        seeds.push(j);
                    }
                }
            }
        }
        seeds.sort_unstable();
        seeds.dedup();
        let mut heap = BinaryHeap::new();
        let steps = Steps::new(grid);
        let slots = self.slots();
        for slot in 0..slots {
            spend!(work, seeds.len() as u64 / 64 + 1);
            for &j in &seeds {
                let d = self.dist[j * slots + slot];
                if d != FAR {
                    heap.push(Reverse((d, j as u32)));
                }
            }
            let way = if slot < self.count { Way::Out } else { Way::In };
            settle(&steps, &mut self.dist, (slots, slot), way, &mut heap, work).await;
        }
        self.stamp = grid.stamp();
    }

    /// A lower bound on the cost of the cheapest path from `from` to `to`,
    /// from the landmarks alone: no search. `None` when the landmarks may not be used on the
    /// grid as it is ([`usable_on`](Self::usable_on)) or either cell is blocked or outside.
    pub fn estimate(&self, grid: &NavGrid, from: GridPos, to: GridPos) -> Option<f64> {
        if !grid.is_passable(from) || !grid.is_passable(to) || !self.usable_on(grid) {
            return None;
        }
        let bound = self.bound(grid.index(from), self.at(grid.index(to)));
        Some(f64::from(bound) * Self::SCALE)
    }

    /// The landmarks' lower bound on the cost from padded cell `i` to the goal whose numbers
    /// are `goal`, in the stored units: for a landmark `L`, `d(L, g) - d(L, n)` and
    /// `d(n, L) - d(g, L)` (each at most `d(n, g)` by the triangle inequality).
    #[inline]
    pub(in crate::search) fn bound(&self, i: usize, goal: &[u32]) -> u32 {
        let (out_here, in_here) = self.at(i).split_at(self.count);
        let (out_goal, in_goal) = goal[..self.slots()].split_at(self.count);
        // Branch-free, so that it runs in vector registers: a landmark that does not reach
        // both cells (or that both do not reach) counts 0.
        let mut best = 0;
        for (&n, &g) in out_here.iter().zip(out_goal) {
            let both = u32::from(n != FAR && g != FAR).wrapping_neg();
            best = best.max(g.saturating_sub(n) & both);
        }
        for (&n, &g) in in_here.iter().zip(in_goal) {
            let both = u32::from(n != FAR && g != FAR).wrapping_neg();
            best = best.max(n.saturating_sub(g) & both);
        }
        best
    }

    /// The numbers of padded cell `i`.
    pub(in crate::search) fn at(&self, i: usize) -> &[u32] {
        let slots = self.slots();
        &self.dist[i * slots..(i + 1) * slots]
    }

    /// Numbers per cell: two per landmark.
    fn slots(&self) -> usize {
        2 * self.count
    }

    /// One unit of the stored numbers, in cost.
    pub(in crate::search) const SCALE: f64 = 1.0 / UNIT as f64;
}
