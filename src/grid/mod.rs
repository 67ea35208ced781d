//! The navigation grid: which cells are blocked, what the passable ones cost to enter, how an
//! agent may step between them, and which cells are connected at all.
//!
//! Plain Rust: no Bevy type appears in this API, so the grid can be built, tested and
//! benchmarked without an `App`. (The grid derives Bevy's `Resource`, and `GridPos` derives
//! `Reflect`, so that the plugin can use them as they are; that is the only tie.)
//!
//! - `cell`: positions and cells; `topology`: the moves between cells (square 4/8-way with a
//!   corner rule, hex); `moves`: a grid's legal steps and their costs; `terrain`: each cell's
//!   terrain class; `edges`: walls between cells and one-way steps; `components`: which cells
//!   are connected; [`line`](mod@line): line of sight.
//! - What the search derives from the cells (jump point search's bits) is not kept here: it
//!   is a `CellIndex` the search hands in, built on first use and told of every change.

use std::any::Any;
use std::collections::{BTreeMap, VecDeque};
use std::fmt;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

mod cell;
mod components;
mod edges;
pub mod line;
mod moves;
mod preparation;
mod prepare;
mod profile;
pub(crate) mod sealed;
mod terrain;
mod topology;

pub(crate) use cell::cell_cost;
pub use cell::{Cell, GridError, GridPos, MAX_CELLS, Terrain};
pub(crate) use profile::apply_cost;
pub use profile::{MAX_AGENT_SIZE, NavProfile, TerrainRule};
pub(crate) use topology::DIRECTIONS;
pub use topology::{CornerRule, Edge, HexCoords, Neighborhood, Sides};
pub(crate) use topology::{direction_of, reverse};

pub(crate) use components::LabelsBuild;
use components::{Adjacency, Cells, Labels};
pub use preparation::Preparation;

/// A width x height grid of cells for pathfinding.
///
/// Internally the cells are stored with a one-cell border of blocked padding, so that the search
/// can look at every neighbor of a real cell without a bounds check.
///
/// ```
/// use bevy_tilemap_nav::grid::{Cell, GridPos, NavGrid};
///
/// let mut grid = NavGrid::new(8, 4).unwrap();
/// grid.set(GridPos::new(3, 1), Cell::Blocked).unwrap();
/// grid.set(GridPos::new(4, 1), Cell::Passable { cost: 5 }).unwrap();
/// assert_eq!(grid.get(GridPos::new(3, 1)), Some(Cell::Blocked));
/// assert_eq!(grid.min_cost(), Some(1));
/// ```
#[derive(Debug)]
#[cfg_attr(feature = "bevy", derive(bevy::prelude::Resource))]
pub struct NavGrid {
    width: u32,
    height: u32,
    neighborhood: Neighborhood,
    corner_rule: CornerRule,
    /// Padded cell costs, row-major with stride `width + 2`; 0 means blocked.
    costs: Vec<u32>,
    /// Each cell's terrain class, indexed like `costs`; empty while every cell has
    /// [`Terrain::DEFAULT`].
    terrain: Vec<u8>,
    /// Each cell's barred exits (walls and one-way edges, see `edges`), indexed like `costs`;
    /// empty while no edge is barred.
    edges: Vec<u8>,
    /// How many straight exits are barred (when none is, `edges` is emptied).
    barred: u32,
    /// How many passable cells have each cost: gives the smallest cost (for an admissible
    /// heuristic) and whether all costs are equal, at once.
    cost_counts: BTreeMap<u32, u32>,
    /// Connected-component labels, computed on first use, then kept up to date cell by cell
    /// where that is cheap (see `components::Labels::update`), else dropped until next asked
    /// for.
    components: OnceLock<Labels>,
    /// Bumped on every change; lets caches elsewhere know the grid moved on.
    revision: u64,
    /// This grid's identity in [`GridStamp`]s; a clone is another grid.
    id: u64,
    /// The latest cell changes, oldest first: (revision after the change, padded index, cost
    /// before it). At most [`JOURNAL_LEN`] entries.
    journal: VecDeque<(u64, u32, u32)>,
    /// The journal lists no change made at or before this revision.
    journal_floor: u64,
    /// What the search keeps in step with the cells (jump point search's bits), built on
    /// first use ([`cell_index`](Self::cell_index)).
    index: OnceLock<Box<dyn CellIndex>>,
    /// Whether searches build the labels and index on first use, or go without until built.
    preparation: Preparation,
}

/// How many of its latest cell changes a [`NavGrid`] lists for [`NavGrid::changes_since`].
pub const JOURNAL_LEN: usize = 4096;

/// A point in a [`NavGrid`]'s history: which grid, and how many changes it had seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GridStamp {
    grid: u64,
    revision: u64,
}

impl GridStamp {
    /// Which grid it is (a number no other grid of this run has).
    pub(crate) fn id(self) -> u64 {
        self.grid
    }

    /// How many changes the grid had seen.
    pub(crate) fn revision(self) -> u64 {
        self.revision
    }
}

fn next_grid_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl Clone for NavGrid {
    fn clone(&self) -> Self {
        let components = OnceLock::new();
        if let Some(labels) = self.components.get() {
            let _ = components.set(labels.clone());
        }
        let index = OnceLock::new();
        if let Some(built) = self.index.get() {
            let _ = index.set(built.clone_index());
        }
        Self {
            width: self.width,
            height: self.height,
            neighborhood: self.neighborhood,
            corner_rule: self.corner_rule,
            costs: self.costs.clone(),
            terrain: self.terrain.clone(),
            edges: self.edges.clone(),
            barred: self.barred,
            cost_counts: self.cost_counts.clone(),
            components,
            revision: self.revision,
            id: next_grid_id(),
            journal: VecDeque::new(),
            journal_floor: self.revision,
            index,
            preparation: self.preparation,
        }
    }
}

impl PartialEq for NavGrid {
    /// Two grids are equal when they have the same size, rules and cells.
    fn eq(&self, other: &Self) -> bool {
        self.width == other.width
            && self.height == other.height
            && self.neighborhood == other.neighborhood
            && self.corner_rule == other.corner_rule
            && self.costs == other.costs
            && self.terrain_padded() == other.terrain_padded()
            && self.edges == other.edges
    }
}

impl NavGrid {
    /// A grid of ordinary ground (every cell passable at cost 1), 8-way, no corner cutting.
    pub fn new(width: u32, height: u32) -> Result<Self, GridError> {
        Self::filled(width, height, Cell::GROUND)
    }

    /// A grid whose every cell is `cell`.
    pub fn filled(width: u32, height: u32, cell: Cell) -> Result<Self, GridError> {
        if width == 0 || height == 0 {
            return Err(GridError::Empty { width, height });
        }
        let padded = (u64::from(width) + 2)
            .checked_mul(u64::from(height) + 2)
            .filter(|&n| n <= MAX_CELLS)
            .ok_or(GridError::TooLarge { width, height })?;
        let cost = cell_cost(cell, GridPos::new(0, 0))?;
        // Memory refused is an error, not an abort; then the cells are taken zeroed from the
        // allocator, which on a large grid gives pages as they are first touched rather than
        // writing them all now (a 5,000 x 5,000 grid's first frame).
        let mut probe: Vec<u32> = Vec::new();
        probe
            .try_reserve_exact(padded as usize)
            .map_err(|_| GridError::TooLarge { width, height })?;
        drop(probe);
        let costs = vec![0u32; padded as usize];
        let mut grid = Self {
            width,
            height,
            neighborhood: Neighborhood::Eight,
            corner_rule: CornerRule::NoCornerCutting,
            costs,
            terrain: Vec::new(),
            edges: Vec::new(),
            barred: 0,
            cost_counts: BTreeMap::new(),
            components: OnceLock::new(),
            revision: 0,
            id: next_grid_id(),
            journal: VecDeque::new(),
            journal_floor: 0,
            index: OnceLock::new(),
            preparation: Preparation::OnFirstSearch,
        };
        if cost != 0 {
            for y in 0..height {
                let row = grid.index(GridPos::new(0, y));
                grid.costs[row..row + width as usize].fill(cost);
            }
            grid.cost_counts.insert(cost, width * height);
        }
        Ok(grid)
    }

    /// Width in cells.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in cells.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Number of cells, `width * height`.
    pub fn len(&self) -> usize {
        self.width as usize * self.height as usize
    }

    /// Always false: a grid has at least one cell.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Which cells a step may reach: 4 or 8 around a square, or the 6 of a hex.
    pub fn neighborhood(&self) -> Neighborhood {
        self.neighborhood
    }

    /// Changes the moves (every cell's neighbours change: a change of every cell to caches).
    /// Going from square to hex cells or back takes every edge off (their sides differ).
    pub fn set_neighborhood(&mut self, neighborhood: Neighborhood) {
        if neighborhood.is_hex() || self.neighborhood.is_hex() {
            // Which cells are joined changes with the shape of the cells.
            self.components.take();
            if neighborhood != self.neighborhood && self.has_edges() {
                self.edges = Vec::new();
                self.barred = 0;
                self.tell_index_all();
            }
        }
        self.neighborhood = neighborhood;
        self.revision += 1;
        self.forget_changes();
    }

    /// Whether a diagonal step may pass a blocked corner.
    pub fn corner_rule(&self) -> CornerRule {
        self.corner_rule
    }

    /// Changes the corner rule (a change of every cell to caches).
    pub fn set_corner_rule(&mut self, corner_rule: CornerRule) {
        self.corner_rule = corner_rule;
        self.revision += 1;
        self.forget_changes();
    }

    /// Where the grid stands now, to ask [`changes_since`](Self::changes_since) later.
    pub fn stamp(&self) -> GridStamp {
        GridStamp { grid: self.id, revision: self.revision }
    }

    /// The cells changed since `stamp` was taken, each with what it was before that change (a
    /// cell changed twice appears twice, oldest first). `None` when that is not known: the stamp
    /// is of another grid (a clone counts as another), more than [`JOURNAL_LEN`] changes ago,
    /// or a rule changed that alters every cell's moves (neighborhood, corner rule). Then treat
    /// every cell as changed.
    ///
    /// ```
    /// use bevy_tilemap_nav::grid::{Cell, GridPos, NavGrid};
    ///
    /// let mut grid = NavGrid::new(8, 8).unwrap();
    /// let seen = grid.stamp();
    /// grid.set(GridPos::new(3, 4), Cell::Blocked).unwrap();
    /// let changed: Vec<_> = grid.changes_since(seen).unwrap().collect();
    /// assert_eq!(changed, vec![(GridPos::new(3, 4), Cell::GROUND)]);
    /// assert_eq!(grid.changes_since(grid.stamp()).unwrap().count(), 0);
    /// ```
    pub fn changes_since(
        &self,
        stamp: GridStamp,
    ) -> Option<impl Iterator<Item = (GridPos, Cell)> + '_> {
        if stamp.grid != self.id || stamp.revision < self.journal_floor {
            return None;
        }
        let from = self.journal.partition_point(|&(revision, ..)| revision <= stamp.revision);
        Some(self.journal.range(from..).map(|&(_, i, old)| {
            let (x, y) = self.unpad(i as usize);
            let old = if old == 0 { Cell::Blocked } else { Cell::Passable { cost: old } };
            (GridPos::new(x, y), old)
        }))
    }

    /// A copy that keeps this grid's identity, so that stamps taken of either match while
    /// neither changes: a frozen view for a search spread over frames. Never changed itself.
    pub(crate) fn frozen_copy(&self) -> NavGrid {
        let mut copy = self.clone();
        copy.id = self.id;
        copy
    }

    fn forget_changes(&mut self) {
        self.journal.clear();
        self.journal_floor = self.revision;
    }

    /// Builder form of [`set_neighborhood`](Self::set_neighborhood).
    pub fn with_neighborhood(mut self, neighborhood: Neighborhood) -> Self {
        self.set_neighborhood(neighborhood);
        self
    }

    /// Builder form of [`set_corner_rule`](Self::set_corner_rule).
    pub fn with_corner_rule(mut self, corner_rule: CornerRule) -> Self {
        self.set_corner_rule(corner_rule);
        self
    }

    /// A counter that changes whenever a cell or a rule changes.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// `pos` is a cell of this grid.
    pub fn in_bounds(&self, pos: GridPos) -> bool {
        pos.x < self.width && pos.y < self.height
    }

    /// The cell at `pos`, or `None` outside the grid.
    pub fn get(&self, pos: GridPos) -> Option<Cell> {
        self.in_bounds(pos).then(|| match self.costs[self.index(pos)] {
            0 => Cell::Blocked,
            cost => Cell::Passable { cost },
        })
    }

    /// The cost of entering `pos`, or `None` for a blocked or out-of-bounds cell.
    pub fn cost(&self, pos: GridPos) -> Option<u32> {
        match self.get(pos)? {
            Cell::Passable { cost } => Some(cost),
            Cell::Blocked => None,
        }
    }

    /// True when `pos` is inside the grid and passable.
    pub fn is_passable(&self, pos: GridPos) -> bool {
        self.in_bounds(pos) && self.costs[self.index(pos)] != 0
    }

    /// Sets one cell. Returns the cell it replaced. Costs O(log k) for k distinct costs.
    pub fn set(&mut self, pos: GridPos, cell: Cell) -> Result<Cell, GridError> {
        if !self.in_bounds(pos) {
            return Err(GridError::OutOfBounds { pos, width: self.width, height: self.height });
        }
        let new = cell_cost(cell, pos)?;
        let i = self.index(pos);
        let old = self.costs[i];
        if old != new {
            self.write_cost(i, old, new);
            self.tell_index(&[i]);
        }
        Ok(match old {
            0 => Cell::Blocked,
            cost => Cell::Passable { cost },
        })
    }

    /// Sets every cell of the rectangle from `min` to `max` inclusive (clamped to the grid).
    pub fn fill_rect(&mut self, min: GridPos, max: GridPos, cell: Cell) -> Result<(), GridError> {
        if !self.in_bounds(min) {
            return Err(GridError::OutOfBounds {
                pos: min,
                width: self.width,
                height: self.height,
            });
        }
        // Refused even when the rectangle is empty.
        cell_cost(cell, min)?;
        let max_x = max.x.min(self.width - 1);
        let max_y = max.y.min(self.height - 1);
        let cells = (min.y..=max_y).flat_map(|y| (min.x..=max_x).map(move |x| GridPos::new(x, y)));
        self.set_all(cells.map(|pos| (pos, cell)))
    }

    /// Sets every cell of the grid.
    pub fn fill(&mut self, cell: Cell) -> Result<(), GridError> {
        self.fill_rect(GridPos::new(0, 0), GridPos::new(self.width - 1, self.height - 1), cell)
    }

    /// Sets many cells at once: the same as [`NavGrid::set`] for each in turn, but the bits
    /// jump point search reads (if built) are brought up to date once at the end: when walls
    /// appear or go on an eighth of the grid or more they are rebuilt whole (linear in its
    /// size) instead of round every changed cell. Use it to load or regenerate a map. On an error the cells before it stay set
    /// (and the grid stays consistent); the rest are not.
    ///
    /// ```
    /// use bevy_tilemap_nav::grid::{Cell, GridPos, NavGrid};
    ///
    /// let mut grid = NavGrid::new(4, 4).unwrap();
    /// grid.set_all((0..4).map(|y| (GridPos::new(2, y), Cell::Blocked))).unwrap();
    /// assert!(!grid.connected(GridPos::new(0, 0), GridPos::new(3, 0)));
    /// ```
    pub fn set_all(
        &mut self,
        cells: impl IntoIterator<Item = (GridPos, Cell)>,
    ) -> Result<(), GridError> {
        // The cells where a wall appeared or went, for the search's index.
        let mut moved = Vec::new();
        let mut result = Ok(());
        for (pos, cell) in cells {
            if !self.in_bounds(pos) {
                result =
                    Err(GridError::OutOfBounds { pos, width: self.width, height: self.height });
                break;
            }
            let new = match cell_cost(cell, pos) {
                Ok(new) => new,
                Err(error) => {
                    result = Err(error);
                    break;
                }
            };
            let i = self.index(pos);
            let old = self.costs[i];
            if old != new {
                self.write_cost(i, old, new);
                if self.index.get().is_some() {
                    moved.push(i);
                }
            }
        }
        self.tell_index(&moved);
        result
    }

    /// Writes one cell's cost and keeps the counts and labels in step. The search's index is
    /// the caller's to tell (`tell_index`).
    fn write_cost(&mut self, i: usize, old: u32, new: u32) {
        if old != 0
            && let Some(count) = self.cost_counts.get_mut(&old)
        {
            *count -= 1;
            if *count == 0 {
                self.cost_counts.remove(&old);
            }
        }
        if new != 0 {
            *self.cost_counts.entry(new).or_insert(0) += 1;
        }
        self.costs[i] = new;
        self.note_change(i, old);
        if (old == 0) != (new == 0) {
            let cells =
                Cells { costs: &self.costs, edges: &self.edges, adjacency: self.adjacency() };
            // With edges the labels are worked out afresh when next asked for.
            let kept = self
                .components
                .get_mut()
                .is_none_or(|l| cells.edges.is_empty() && l.update(cells, i, new != 0));
            if !kept {
                self.components.take(); // to be recomputed when next asked for
            }
        }
    }

    /// Bumps the revision and lists padded cell `i` (whose cost was `old`) as changed.
    fn note_change(&mut self, i: usize, old: u32) {
        self.revision += 1;
        if self.journal.len() >= JOURNAL_LEN
            && let Some((dropped, ..)) = self.journal.pop_front()
        {
            self.journal_floor = dropped;
        }
        self.journal.push_back((self.revision, i as u32, old));
    }

    /// The smallest cost of any passable cell, or `None` if every cell is blocked.
    pub fn min_cost(&self) -> Option<u32> {
        self.cost_counts.keys().next().copied()
    }

    /// The largest cost of any passable cell, or `None` if every cell is blocked.
    pub fn max_cost(&self) -> Option<u32> {
        self.cost_counts.keys().next_back().copied()
    }

    /// True when every passable cell has the same cost (what jump point search needs).
    pub fn has_uniform_cost(&self) -> bool {
        self.cost_counts.len() <= 1
    }

    /// Bytes held by the grid: cell costs, and once computed, component labels and jump point
    /// search's bits (bit rows and columns of open cells and turns, per-cell run bits), all with
    /// the one-cell border.
    pub fn memory_bytes(&self) -> usize {
        let labels =
            self.components.get().map_or(0, |l| (l.labels.capacity() + l.sizes.capacity()) * 4);
        std::mem::size_of::<Self>()
            + self.costs.capacity() * 4
            + self.terrain.capacity()
            + self.edges.capacity()
            + labels
            + self.index.get().map_or(0, |index| index.memory_bytes())
            + self.journal.capacity() * std::mem::size_of::<(u64, u32, u32)>()
    }

    /// Number of passable cells.
    pub fn passable_count(&self) -> usize {
        self.cost_counts.values().map(|&n| n as usize).sum()
    }

    /// Iterates over every cell position, row by row.
    pub fn positions(&self) -> impl Iterator<Item = GridPos> + '_ {
        (0..self.height).flat_map(move |y| (0..self.width).map(move |x| GridPos::new(x, y)))
    }
}

impl NavGrid {
    /// The connected component of `pos` (cells that can reach each other share a label), or
    /// `None` for a blocked or out-of-bounds cell. Labels are computed on first use, then kept
    /// in step with changes (recomputed, in O(cells), only after a change too far-reaching to
    /// follow cell by cell).
    pub fn component(&self, pos: GridPos) -> Option<u32> {
        if !self.in_bounds(pos) {
            return None;
        }
        let label = self.labels().labels[self.index(pos)];
        (label != 0).then_some(label)
    }

    /// True when a path exists between `a` and `b` (both passable and connected). One-way
    /// edges join the cells on their two sides here: with them, `false` still means no path,
    /// but `true` may be a path one way only.
    pub fn connected(&self, a: GridPos, b: GridPos) -> bool {
        match (self.component(a), self.component(b)) {
            (Some(ca), Some(cb)) => ca == cb,
            _ => false,
        }
    }

    fn adjacency(&self) -> Adjacency {
        Adjacency::new(self.stride(), self.neighborhood)
    }

    fn labels(&self) -> &Labels {
        self.components.get_or_init(|| self.compute_labels())
    }

    fn compute_labels(&self) -> Labels {
        Labels::compute(self.cells())
    }

    fn cells(&self) -> Cells<'_> {
        Cells { costs: &self.costs, edges: &self.edges, adjacency: self.adjacency() }
    }
}

/// The cells as a [`CellIndex`] sees them: padded costs (0 = blocked, a one-cell border of
/// walls round the grid), the padded width, and each padded cell's barred exits (bit `d` for
/// direction `d`; empty when no edge is barred, see `edges.rs`).
#[derive(Clone, Copy)]
pub(crate) struct CellView<'a> {
    pub(crate) costs: &'a [u32],
    pub(crate) stride: usize,
    pub(crate) exits: &'a [u8],
}

/// Data a layer above the grid derives from its cells (jump point search's bits): the one
/// hook through which the grid keeps it in step. Built on first use by
/// [`NavGrid::cell_index`], then told of every cell whose cost changes.
pub(crate) trait CellIndex: Send + Sync + fmt::Debug {
    /// The costs of padded cells `moved` changed (some may have turned open or blocked), or the
    /// edges round them did; their new costs and exits are in `cells`.
    fn cells_moved(&mut self, cells: CellView, moved: &[usize]);
    fn clone_index(&self) -> Box<dyn CellIndex>;
    fn memory_bytes(&self) -> usize;
    fn as_any(&self) -> &dyn Any;
}

impl NavGrid {
    pub(crate) fn cell_view(&self) -> CellView<'_> {
        CellView { costs: &self.costs, stride: self.stride(), exits: &self.edges }
    }

    /// The search's index of this grid, built by `build` on first use and kept in step with
    /// every change after. `None` if the grid holds an index of another kind.
    pub(crate) fn cell_index<T: CellIndex + 'static>(
        &self,
        build: impl FnOnce(CellView) -> T,
    ) -> Option<&T> {
        let index = self.index.get_or_init(|| Box::new(build(self.cell_view())));
        index.as_any().downcast_ref::<T>()
    }

    /// Tells the index (if built) that the costs of padded cells `moved`, or the edges round
    /// them, changed.
    pub(super) fn tell_index(&mut self, moved: &[usize]) {
        if moved.is_empty() {
            return;
        }
        let stride = self.stride();
        if let Some(index) = self.index.get_mut() {
            index.cells_moved(CellView { costs: &self.costs, stride, exits: &self.edges }, moved);
        }
    }

    /// Tells the index (if built) that the edges of every cell may have changed.
    pub(super) fn tell_index_all(&mut self) {
        if self.index.get().is_some() {
            let all: Vec<usize> = (0..self.costs.len()).collect();
            self.tell_index(&all);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bad cell in the middle of `set_all` stops it there: the cells before it are set, the
    /// rest are not (the search's bits follow: `search::jump_point::bits` tests).
    #[test]
    fn set_all_stops_at_a_bad_cell_and_stays_consistent() {
        let mut grid = NavGrid::new(8, 8).unwrap();
        let wall = (0..8).map(|y| (GridPos::new(3, y), Cell::Blocked));
        let bad = [(GridPos::new(9, 9), Cell::Blocked), (GridPos::new(5, 5), Cell::Blocked)];
        let error = grid.set_all(wall.chain(bad)).unwrap_err();
        assert_eq!(error, GridError::OutOfBounds { pos: GridPos::new(9, 9), width: 8, height: 8 });
        assert_eq!(grid.get(GridPos::new(3, 7)), Some(Cell::Blocked));
        assert_eq!(grid.get(GridPos::new(5, 5)), Some(Cell::GROUND));
        let zero = grid.set_all([(GridPos::new(6, 6), Cell::Passable { cost: 0 })]);
        assert_eq!(zero, Err(GridError::ZeroCost { pos: GridPos::new(6, 6) }));
        let mut one_by_one = NavGrid::new(8, 8).unwrap();
        for y in 0..8 {
            one_by_one.set(GridPos::new(3, y), Cell::Blocked).unwrap();
        }
        assert!(grid == one_by_one);
        assert!(!grid.connected(GridPos::new(0, 0), GridPos::new(7, 0)));
        // A large `fill_rect` takes the same path: the same cells and bits as cell by cell.
        grid.fill_rect(GridPos::new(1, 2), GridPos::new(6, 6), Cell::Blocked).unwrap();
        for y in 2..=6 {
            for x in 1..=6 {
                one_by_one.set(GridPos::new(x, y), Cell::Blocked).unwrap();
            }
        }
        assert!(grid == one_by_one);
        assert_eq!(grid.passable_count(), one_by_one.passable_count());
    }

    #[test]
    fn empty_and_huge_grids_are_refused() {
        assert_eq!(NavGrid::new(0, 5).unwrap_err(), GridError::Empty { width: 0, height: 5 });
        assert_eq!(
            NavGrid::new(u32::MAX, u32::MAX).unwrap_err(),
            GridError::TooLarge { width: u32::MAX, height: u32::MAX }
        );
    }

    #[test]
    fn set_reports_bad_cells_and_keeps_grid() {
        let mut grid = NavGrid::new(3, 3).unwrap();
        let before = grid.clone();
        assert!(matches!(
            grid.set(GridPos::new(3, 0), Cell::Blocked),
            Err(GridError::OutOfBounds { .. })
        ));
        assert_eq!(
            grid.set(GridPos::new(1, 1), Cell::Passable { cost: 0 }),
            Err(GridError::ZeroCost { pos: GridPos::new(1, 1) })
        );
        assert_eq!(grid, before);
    }

    #[test]
    fn min_cost_and_uniformity_follow_changes() {
        let mut grid = NavGrid::filled(4, 4, Cell::Passable { cost: 3 }).unwrap();
        assert!(grid.has_uniform_cost());
        assert_eq!(grid.min_cost(), Some(3));
        grid.set(GridPos::new(0, 0), Cell::Passable { cost: 2 }).unwrap();
        assert!(!grid.has_uniform_cost());
        assert_eq!(grid.min_cost(), Some(2));
        grid.set(GridPos::new(0, 0), Cell::Blocked).unwrap();
        assert!(grid.has_uniform_cost());
        assert_eq!(grid.min_cost(), Some(3));
        assert_eq!(grid.passable_count(), 15);
        grid.fill(Cell::Blocked).unwrap();
        assert_eq!(grid.min_cost(), None);
    }

    #[test]
    fn components_split_and_merge_with_walls() {
        let mut grid = NavGrid::new(5, 3).unwrap();
        let (a, b) = (GridPos::new(0, 1), GridPos::new(4, 1));
        assert!(grid.connected(a, b));
        grid.fill_rect(GridPos::new(2, 0), GridPos::new(2, 2), Cell::Blocked).unwrap();
        assert!(!grid.connected(a, b));
        grid.set(GridPos::new(2, 2), Cell::GROUND).unwrap();
        assert!(grid.connected(a, b));
        // Cost changes keep labels valid.
        grid.set(GridPos::new(2, 2), Cell::Passable { cost: 9 }).unwrap();
        assert!(grid.connected(a, b));
    }

    #[test]
    fn labels_kept_cell_by_cell_match_labels_computed_afresh() {
        // Random walls appear and vanish one at a time, with the labels in use throughout:
        // after every change they must partition the open cells exactly as a fresh flood fill.
        let mut rng = crate::test_rng::TestRng(12345u64);
        let mut next = |n: u32| rng.below(n);
        let (mut kept, mut dropped) = (0, 0);
        for round in 0..40 {
            let (w, h) = (2 + next(20), 2 + next(20));
            let mut grid = NavGrid::new(w, h).unwrap();
            for _ in 0..(w * h / 3) {
                grid.set(GridPos::new(next(w), next(h)), Cell::Blocked).unwrap();
            }
            for change in 0..300 {
                let _ = grid.labels(); // labels in use
                let pos = GridPos::new(next(w), next(h));
                let cell = if grid.is_passable(pos) { Cell::Blocked } else { Cell::GROUND };
                grid.set(pos, cell).unwrap();
                let Some(labels) = grid.components.get() else {
                    dropped += 1;
                    continue;
                };
                kept += 1;
                let fresh = grid.compute_labels();
                let mut map = std::collections::HashMap::new();
                let mut back = std::collections::HashMap::new();
                for (i, (&l, &f)) in labels.labels.iter().zip(&fresh.labels).enumerate() {
                    assert_eq!(l == 0, f == 0, "round {round} change {change} cell {i}");
                    if l != 0 {
                        assert_eq!(*map.entry(l).or_insert(f), f, "round {round} change {change}");
                        assert_eq!(*back.entry(f).or_insert(l), l, "round {round} change {change}");
                    }
                }
                for (&l, &f) in &map {
                    assert_eq!(labels.sizes[l as usize], fresh.sizes[f as usize]);
                }
            }
        }
        // Changes keep the labels (splits are found by a bounded search round the cell).
        assert!(kept > 9 * dropped, "kept {kept}, dropped {dropped}");
    }

    #[test]
    fn diagonal_between_two_walls_is_never_a_connection() {
        // .#
        // #.
        let mut grid = NavGrid::new(2, 2).unwrap().with_corner_rule(CornerRule::CutCorners);
        grid.set(GridPos::new(1, 0), Cell::Blocked).unwrap();
        grid.set(GridPos::new(0, 1), Cell::Blocked).unwrap();
        assert!(!grid.connected(GridPos::new(0, 0), GridPos::new(1, 1)));
        assert_eq!(grid.neighbors(GridPos::new(0, 0)).count(), 0);
    }

    #[test]
    fn neighbors_follow_corner_rule() {
        // ...
        // .#.
        // ...
        let mut grid = NavGrid::new(3, 3).unwrap();
        grid.set(GridPos::new(1, 1), Cell::Blocked).unwrap();
        let from = GridPos::new(0, 0);
        let strict: Vec<_> = grid.neighbors(from).map(|(p, _)| p).collect();
        assert_eq!(strict.len(), 2);
        grid.set_corner_rule(CornerRule::CutCorners);
        // Still no diagonal into the wall itself.
        assert_eq!(grid.neighbors(from).count(), 2);
        let mid = GridPos::new(1, 0);
        let cut: Vec<_> = grid.neighbors(mid).map(|(p, _)| p).collect();
        assert!(cut.contains(&GridPos::new(0, 1)) && cut.contains(&GridPos::new(2, 1)));
        grid.set_corner_rule(CornerRule::NoCornerCutting);
        let strict_mid: Vec<_> = grid.neighbors(mid).map(|(p, _)| p).collect();
        assert!(!strict_mid.contains(&GridPos::new(0, 1)));
    }
}
