//! The navigation grid: which cells are blocked, what the passable ones cost to enter, how an
//! agent may step between them, and which cells are connected at all.
//!
//! Plain Rust: no Bevy type appears in this API, so the grid can be built, tested and
//! benchmarked without an `App`. (The grid derives Bevy's `Resource`, and `GridPos` derives
//! `Reflect`, so that the plugin can use them as they are; that is the only tie.)

use std::collections::{BTreeMap, VecDeque};
use std::fmt;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

/// A cell of a [`NavGrid`]: column `x`, row `y`. MovingAI files count rows from the top; the
/// Bevy layer uses `bevy_ecs_tilemap`'s `TilePos` as it is (rows from the bottom).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
pub struct GridPos {
    pub x: u32,
    pub y: u32,
}

impl GridPos {
    pub const fn new(x: u32, y: u32) -> Self {
        Self { x, y }
    }
}

impl fmt::Display for GridPos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

impl From<(u32, u32)> for GridPos {
    fn from((x, y): (u32, u32)) -> Self {
        Self { x, y }
    }
}

/// What a cell is: a wall, or ground an agent may enter at a cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Cell {
    /// Nothing may enter this cell.
    Blocked,
    /// An agent may enter; entering costs step length x `cost` (1 = ordinary ground).
    Passable { cost: u32 },
}

impl Cell {
    /// Ordinary ground: passable at cost 1.
    pub const GROUND: Cell = Cell::Passable { cost: 1 };

    pub fn is_passable(self) -> bool {
        matches!(self, Cell::Passable { .. })
    }
}

/// Which steps an agent may take from a cell.
///
/// `Four` and `Eight` are square grids (and isometric ones: their tiles form a square grid
/// drawn differently). `Hex` is a hexagonal grid: six neighbours, each one step of length 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Neighborhood {
    /// Up, down, left, right.
    Four,
    /// The four straight steps and the four diagonal ones (length sqrt(2)).
    #[default]
    Eight,
    /// Six neighbours on a hexagonal grid whose cells are numbered as `HexCoords` says (the
    /// numbering bevy_ecs_tilemap's `HexCoordSystem` of the same name uses). The corner rule
    /// does not apply: hexagons share edges with all six neighbours.
    Hex(HexCoords),
}

impl Neighborhood {
    /// True for a hexagonal grid.
    pub fn is_hex(self) -> bool {
        matches!(self, Neighborhood::Hex(_))
    }
}

/// How the cells of a hexagonal grid are numbered: the six coordinate systems of
/// bevy_ecs_tilemap's `HexCoordSystem`, with the same names and the same neighbours.
///
/// `Row` and `Column` are axial coordinates (x = q, y = r); the other four are offset
/// coordinates, where every other row (or column) is shifted by half a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum HexCoords {
    /// Axial coordinates, hexagons in rows ("pointy top").
    Row,
    /// Axial coordinates, hexagons in columns ("flat top").
    Column,
    /// Rows, the even ones shifted right.
    RowEven,
    /// Rows, the odd ones shifted right.
    RowOdd,
    /// Columns, the even ones shifted up.
    ColumnEven,
    /// Columns, the odd ones shifted up.
    ColumnOdd,
}

impl HexCoords {
    /// Every coordinate system, for tests and tools.
    pub const ALL: [HexCoords; 6] = [
        HexCoords::Row,
        HexCoords::Column,
        HexCoords::RowEven,
        HexCoords::RowOdd,
        HexCoords::ColumnEven,
        HexCoords::ColumnOdd,
    ];

    /// The axial coordinates (q, r) of cell (`x`, `y`).
    #[inline]
    pub fn to_axial(self, x: i64, y: i64) -> (i64, i64) {
        match self {
            HexCoords::Row | HexCoords::Column => (x, y),
            HexCoords::RowOdd => (x - y.div_euclid(2), y),
            HexCoords::RowEven => (x - (y + 1).div_euclid(2), y),
            HexCoords::ColumnOdd => (x, y - x.div_euclid(2)),
            HexCoords::ColumnEven => (x, y - (x + 1).div_euclid(2)),
        }
    }

    /// The cell (x, y) at axial coordinates (`q`, `r`): the inverse of
    /// [`to_axial`](Self::to_axial).
    #[inline]
    pub fn from_axial(self, q: i64, r: i64) -> (i64, i64) {
        match self {
            HexCoords::Row | HexCoords::Column => (q, r),
            HexCoords::RowOdd => (q + r.div_euclid(2), r),
            HexCoords::RowEven => (q + (r + 1).div_euclid(2), r),
            HexCoords::ColumnOdd => (q, r + q.div_euclid(2)),
            HexCoords::ColumnEven => (q, r + (q + 1).div_euclid(2)),
        }
    }

    /// The number of steps between two cells on an open hexagonal grid.
    #[inline]
    pub fn distance(self, a: GridPos, b: GridPos) -> u32 {
        let (aq, ar) = self.to_axial(i64::from(a.x), i64::from(a.y));
        let (bq, br) = self.to_axial(i64::from(b.x), i64::from(b.y));
        let (dq, dr) = (aq - bq, ar - br);
        ((dq.abs() + dr.abs() + (dq + dr).abs()) / 2) as u32
    }

    /// Whether the neighbours of a cell depend on the parity of its column (`Some(true)`), of
    /// its row (`Some(false)`), or of neither (axial).
    #[inline]
    fn parity_by_column(self) -> Option<bool> {
        match self {
            HexCoords::Row | HexCoords::Column => None,
            HexCoords::RowEven | HexCoords::RowOdd => Some(false),
            HexCoords::ColumnEven | HexCoords::ColumnOdd => Some(true),
        }
    }

    /// The six steps (dx, dy) out of a cell of the given parity (0 for an even row or column,
    /// 1 for an odd one), in the order of bevy_ecs_tilemap's `HexDirection`.
    pub(crate) fn steps(self, parity: usize) -> [(isize, isize); 6] {
        // The steps in axial coordinates are the same everywhere; in offset coordinates they
        // depend only on the parity of the shifted line, so one sample cell of each parity
        // gives them.
        let (x0, y0) = match self.parity_by_column() {
            Some(true) => (4 + parity as i64, 4),
            _ => (4, 4 + parity as i64),
        };
        let (q, r) = self.to_axial(x0, y0);
        let mut steps = [(0, 0); 6];
        for (step, (dq, dr)) in steps.iter_mut().zip(HEX_AXIAL_STEPS) {
            let (x, y) = self.from_axial(q + dq, r + dr);
            *step = ((x - x0) as isize, (y - y0) as isize);
        }
        steps
    }

    /// The parity (0 or 1) that picks a cell's steps from [`steps`](Self::steps).
    #[inline]
    pub(crate) fn parity(self, x: usize, y: usize) -> usize {
        match self.parity_by_column() {
            None => 0,
            Some(true) => x & 1,
            Some(false) => y & 1,
        }
    }

    /// The centre of cell (`x`, `y`) in a plane where neighbouring centres are 1 apart
    /// (pointy-top for the row systems, flat-top for the column ones, as bevy_ecs_tilemap
    /// draws them): straight-line distances there never exceed the number of steps.
    #[inline]
    pub fn unit_center(self, x: i64, y: i64) -> (f64, f64) {
        const HALF_SQRT_3: f64 = 0.866_025_403_784_438_6;
        let (q, r) = self.to_axial(x, y);
        let (q, r) = (q as f64, r as f64);
        if self.parity_by_column() == Some(true) || self == HexCoords::Column {
            (HALF_SQRT_3 * q, r + 0.5 * q)
        } else {
            (q + 0.5 * r, HALF_SQRT_3 * r)
        }
    }
}

/// The six steps in axial coordinates, in bevy_ecs_tilemap's `HexDirection` order.
const HEX_AXIAL_STEPS: [(i64, i64); 6] = [(1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)];

/// When a diagonal step is legal on an 8-way grid.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CornerRule {
    /// Only when both orthogonal cells beside the step are passable: an agent never clips a
    /// wall's corner (the MovingAI benchmark rule).
    #[default]
    NoCornerCutting,
    /// When at least one of the two orthogonal cells beside the step is passable. Squeezing
    /// between two diagonal walls is still forbidden.
    CutCorners,
}

impl CornerRule {
    /// Whether a diagonal step is allowed, given whether each of the two orthogonal cells beside
    /// it is passable.
    #[inline]
    pub fn allows_diagonal(self, side_a_open: bool, side_b_open: bool) -> bool {
        match self {
            CornerRule::NoCornerCutting => side_a_open && side_b_open,
            CornerRule::CutCorners => side_a_open || side_b_open,
        }
    }
}

/// Why a grid could not be built or changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GridError {
    /// Width or height is zero.
    Empty { width: u32, height: u32 },
    /// The grid would not fit in memory (or in this crate's 32-bit cell indices).
    TooLarge { width: u32, height: u32 },
    /// A cell outside the grid was addressed.
    OutOfBounds { pos: GridPos, width: u32, height: u32 },
    /// A passable cell must cost at least 1.
    ZeroCost { pos: GridPos },
}

impl fmt::Display for GridError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GridError::Empty { width, height } => {
                write!(f, "a navigation grid needs at least one cell, got {width} x {height}")
            }
            GridError::TooLarge { width, height } => {
                write!(f, "a {width} x {height} navigation grid is too large to allocate")
            }
            GridError::OutOfBounds { pos, width, height } => {
                write!(f, "cell {pos} is outside the {width} x {height} grid")
            }
            GridError::ZeroCost { pos } => {
                write!(f, "cell {pos}: a passable cell must cost at least 1, got 0")
            }
        }
    }
}

impl std::error::Error for GridError {}

/// Largest number of cells a grid may have: indices are `u32`, with a border of padding.
pub const MAX_CELLS: u64 = 1 << 30;

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
    /// How many passable cells have each cost: gives the smallest cost (for an admissible
    /// heuristic) and whether all costs are equal, at once.
    cost_counts: BTreeMap<u32, u32>,
    /// Connected-component labels, computed on first use, then kept up to date cell by cell
    /// where that is cheap (see `update_labels`), else dropped until next asked for.
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
    /// Passable cells as bits, one padded row after another (`row_words` words each, the last
    /// word always spare so that scans may read past the row end): jump point search scans 64
    /// cells of a row per step.
    open_rows: Vec<u64>,
    /// The same bits transposed: one padded column after another (`col_words` words each).
    open_cols: Vec<u64>,
    /// Where a straight run along a row may turn (a jump point of jump point search): bit x of
    /// row y is set when a cell beside (x, y), above or below, is open while the one behind it
    /// is blocked. `[0]` for runs towards +x (behind is x - 1), `[1]` towards -x. Same layout
    /// as `open_rows`; kept in step cell by cell.
    turn_rows: [Vec<u64>; 2],
    /// The same for runs along a column, towards +y and -y, in the layout of `open_cols`.
    turn_cols: [Vec<u64>; 2],
    /// One byte per padded cell: [`OPEN`] when passable, and bit `k` (for direction `k` of
    /// [`DIRECTIONS`]: +x, -x, +y, -y) when a straight run from the cell that way meets a turn
    /// bit before a wall. A diagonal run of jump point search stops where either of its two
    /// straight runs would find a jump point: this answers that in one load, not two scans.
    /// Kept in step cell by cell (a change reaches back along its rows and columns only as far
    /// as the bits change).
    runs: Vec<u8>,
}

/// How many of its latest cell changes a [`NavGrid`] lists for [`NavGrid::changes_since`].
pub const JOURNAL_LEN: usize = 4096;

/// A point in a [`NavGrid`]'s history: which grid, and how many changes it had seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GridStamp {
    grid: u64,
    revision: u64,
}

fn next_grid_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Connected-component labels (padded layout, 0 = blocked) and the size of each label's
/// component (index 0 unused; a merged-away label has size 0).
#[derive(Clone, Debug)]
struct Labels {
    labels: Vec<u32>,
    sizes: Vec<u32>,
}

/// All turn bits of one orientation at once, 64 cells a step, from the open bits laid out in
/// `lines` lines of `words` words (rows of `open_rows`, or columns of `open_cols`). A cell of
/// line `l` has a turn bit for runs towards + (`turns[0]`) when, on line `l - 1` or `l + 1`,
/// the cell beside it is open and the one behind that (position - 1) is not; towards -
/// (`turns[1]`) the same with position + 1. The same rule as `refresh_turns`, cell by cell.
fn turns_from_open(open: &[u64], words: usize, lines: usize, turns: &mut [Vec<u64>; 2]) {
    let line = |l: usize| &open[l * words..(l + 1) * words];
    for l in 0..lines {
        for w in 0..words {
            let (mut forward, mut backward) = (0u64, 0u64);
            for side in [l.checked_sub(1), Some(l + 1).filter(|&n| n < lines)].into_iter().flatten()
            {
                let bits = line(side);
                let here = bits[w];
                let before = if w > 0 { bits[w - 1] >> 63 } else { 0 };
                let after = if w + 1 < words { bits[w + 1] << 63 } else { 0 };
                // Bit p of `behind_forward` is the open bit of position p - 1.
                let behind_forward = (here << 1) | before;
                let behind_backward = (here >> 1) | after;
                forward |= here & !behind_forward;
                backward |= here & !behind_backward;
            }
            turns[0][l * words + w] = forward;
            turns[1][l * words + w] = backward;
        }
    }
}

/// Which padded cells join a padded cell in connectivity: the four straight neighbours on a
/// square grid (under both corner rules a legal diagonal step has an open straight cell beside
/// it, so 8-way connectivity equals 4-way connectivity), the six neighbours on a hex grid.
#[derive(Clone, Copy)]
struct Adjacency {
    stride: usize,
    /// Padded offsets of the six hex steps, by parity.
    hex: Option<(HexCoords, [[isize; 6]; 2])>,
}

impl Adjacency {
    fn new(stride: usize, neighborhood: Neighborhood) -> Self {
        let hex = match neighborhood {
            Neighborhood::Hex(coords) => {
                let offsets =
                    |parity| coords.steps(parity).map(|(dx, dy)| dx + dy * stride as isize);
                Some((coords, [offsets(0), offsets(1)]))
            }
            _ => None,
        };
        Self { stride, hex }
    }

    /// The cells joining padded cell `i` (an inner cell), in cyclic order round it for hex
    /// grids; the first `n` of the array.
    #[inline]
    fn around(&self, i: usize) -> ([usize; 6], usize) {
        match self.hex {
            None => ([i - 1, i + 1, i - self.stride, i + self.stride, 0, 0], 4),
            Some((coords, offsets)) => {
                // Padded coordinates are one more than the cell's own.
                let (x, y) = ((i % self.stride).wrapping_sub(1), (i / self.stride).wrapping_sub(1));
                let offsets = offsets[coords.parity(x, y)];
                (offsets.map(|o| (i as isize + o) as usize), 6)
            }
        }
    }
}

/// Gives `label` to padded cell `start` and to every cell connected to it through cells that
/// `joins` (which must be false once a cell has `label`); returns how many it labelled.
fn fill(
    labels: &mut [u32],
    adjacency: Adjacency,
    stack: &mut Vec<usize>,
    start: usize,
    label: u32,
    joins: impl Fn(usize, u32) -> bool,
) -> u32 {
    let mut size = 1;
    labels[start] = label;
    stack.push(start);
    while let Some(i) = stack.pop() {
        let (around, n) = adjacency.around(i);
        for &j in &around[..n] {
            if joins(j, labels[j]) {
                labels[j] = label;
                size += 1;
                stack.push(j);
            }
        }
    }
    size
}

/// The passable bit of [`NavGrid`]'s per-cell run bits.
pub(crate) const OPEN: u8 = 1 << 4;

impl Clone for NavGrid {
    fn clone(&self) -> Self {
        let components = OnceLock::new();
        if let Some(labels) = self.components.get() {
            let _ = components.set(labels.clone());
        }
        Self {
            width: self.width,
            height: self.height,
            neighborhood: self.neighborhood,
            corner_rule: self.corner_rule,
            costs: self.costs.clone(),
            cost_counts: self.cost_counts.clone(),
            components,
            revision: self.revision,
            id: next_grid_id(),
            journal: VecDeque::new(),
            journal_floor: self.revision,
            open_rows: self.open_rows.clone(),
            open_cols: self.open_cols.clone(),
            turn_rows: self.turn_rows.clone(),
            turn_cols: self.turn_cols.clone(),
            runs: self.runs.clone(),
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
        let mut costs = Vec::new();
        costs
            .try_reserve_exact(padded as usize)
            .map_err(|_| GridError::TooLarge { width, height })?;
        costs.resize(padded as usize, 0);
        let mut grid = Self {
            width,
            height,
            neighborhood: Neighborhood::Eight,
            corner_rule: CornerRule::NoCornerCutting,
            costs,
            cost_counts: BTreeMap::new(),
            components: OnceLock::new(),
            revision: 0,
            id: next_grid_id(),
            journal: VecDeque::new(),
            journal_floor: 0,
            open_rows: Vec::new(),
            open_cols: Vec::new(),
            turn_rows: [Vec::new(), Vec::new()],
            turn_cols: [Vec::new(), Vec::new()],
            runs: Vec::new(),
        };
        let too_large = |_| GridError::TooLarge { width, height };
        let row_bits = grid.row_words() * (height as usize + 2);
        let col_bits = grid.col_words() * grid.stride();
        let [turn_a, turn_b] = &mut grid.turn_rows;
        for bits in [&mut grid.open_rows, turn_a, turn_b] {
            bits.try_reserve_exact(row_bits).map_err(too_large)?;
            bits.resize(row_bits, 0);
        }
        let [turn_a, turn_b] = &mut grid.turn_cols;
        for bits in [&mut grid.open_cols, turn_a, turn_b] {
            bits.try_reserve_exact(col_bits).map_err(too_large)?;
            bits.resize(col_bits, 0);
        }
        grid.runs.try_reserve_exact(padded as usize).map_err(too_large)?;
        grid.runs.resize(padded as usize, 0);
        if cost != 0 {
            for y in 0..height {
                let row = grid.index(GridPos::new(0, y));
                grid.costs[row..row + width as usize].fill(cost);
            }
            grid.cost_counts.insert(cost, width * height);
            for i in 0..grid.costs.len() {
                if grid.costs[i] != 0 {
                    grid.set_open_bit(i, true);
                }
            }
            grid.refresh_all_bits();
        }
        Ok(grid)
    }

    pub fn width(&self) -> u32 {
        self.width
    }

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

    pub fn neighborhood(&self) -> Neighborhood {
        self.neighborhood
    }

    pub fn set_neighborhood(&mut self, neighborhood: Neighborhood) {
        if neighborhood.is_hex() || self.neighborhood.is_hex() {
            // Which cells are joined changes with the shape of the cells.
            self.components.take();
        }
        self.neighborhood = neighborhood;
        self.revision += 1;
        self.forget_changes();
    }

    pub fn corner_rule(&self) -> CornerRule {
        self.corner_rule
    }

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
    #[cfg_attr(not(feature = "bevy"), allow(dead_code))]
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
        if old != new && self.write_cost(i, old, new) {
            self.refresh_around(i);
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
    /// jump point search reads are brought up to date once at the end. When walls appear or go
    /// on an eighth of the grid or more they are rebuilt whole (linear in its size)
    /// instead of round every changed cell, a refresh that may reach along whole rows and
    /// columns. Use it to load or regenerate a map. On an error the cells before it stay set
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
        // The cells where a wall appeared or went, until there are so many that rebuilding
        // every bit costs less than refreshing round each.
        let mut moved = Vec::new();
        let mut rebuild = false;
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
            if old != new && self.write_cost(i, old, new) && !rebuild {
                moved.push(i);
                // `parse_map` of 64room_000 (6% walls) took 24 ms refreshing round each wall
                // after the batch, 30 ms with a full rebuild; past an eighth, the rebuild wins.
                rebuild = moved.len() * 8 >= self.len();
            }
        }
        if rebuild {
            self.refresh_all_bits();
        } else {
            for i in moved {
                self.refresh_around(i);
            }
        }
        result
    }

    /// Writes one cell's cost and keeps the counts, labels and open bits in step. Returns true
    /// when the cell turned open or blocked: its turn and run bits are then the caller's to
    /// refresh (`refresh_around`).
    fn write_cost(&mut self, i: usize, old: u32, new: u32) -> bool {
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
        self.revision += 1;
        if self.journal.len() >= JOURNAL_LEN
            && let Some((dropped, ..)) = self.journal.pop_front()
        {
            self.journal_floor = dropped;
        }
        self.journal.push_back((self.revision, i as u32, old));
        let moved = (old == 0) != (new == 0);
        if moved {
            self.set_open_bit(i, new != 0);
            self.update_labels(i, new != 0);
        }
        moved
    }

    /// Refreshes the turn and run bits that read padded cell `i`, after it turned open or
    /// blocked. Any order of cells is fine: each refresh reaches back along its lines for as
    /// long as the bits change.
    fn refresh_around(&mut self, i: usize) {
        // The turn bits that read this cell: its own and its eight neighbours'.
        let stride = self.stride();
        let (x, y) = (i % stride, i / stride);
        for ty in y.saturating_sub(1)..=(y + 1).min(self.height as usize + 1) {
            for tx in x.saturating_sub(1)..=(x + 1).min(stride - 1) {
                self.refresh_turns(tx, ty);
            }
        }
        // The run bits that read those: along the three rows and three columns through
        // them, back from this cell (the three nearest always, then while they change).
        let (x, y) = (x as isize, y as isize);
        for k in 0..4 {
            for side in [-1, 0, 1] {
                let (line_x, line_y) = if k < 2 { (x, y + side) } else { (x + side, y) };
                self.refresh_runs(k, line_x, line_y, 3);
            }
        }
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

    /// Bytes held by the grid: cell costs, the bit rows and columns (open cells and turns),
    /// the per-cell run bits, and (once computed) component labels, all with the one-cell
    /// border.
    pub fn memory_bytes(&self) -> usize {
        let labels =
            self.components.get().map_or(0, |l| (l.labels.capacity() + l.sizes.capacity()) * 4);
        std::mem::size_of::<Self>()
            + self.costs.capacity() * 4
            + labels
            + (self.open_rows.capacity() + self.open_cols.capacity()) * 8
            + self.turn_rows.iter().chain(&self.turn_cols).map(|b| b.capacity() * 8).sum::<usize>()
            + self.runs.capacity()
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

    /// The legal steps out of `pos` under the grid's neighborhood and corner rule, with each
    /// step's cost (step length x cost of the cell entered). Empty for a blocked or
    /// out-of-bounds cell.
    pub fn neighbors(&self, pos: GridPos) -> impl Iterator<Item = (GridPos, f64)> + '_ {
        let from = self.in_bounds(pos).then(|| self.index(pos)).filter(|&i| self.costs[i] != 0);
        let dirs: &[usize] = match self.neighborhood {
            Neighborhood::Four => &[0, 1, 2, 3],
            Neighborhood::Eight => &[0, 1, 2, 3, 4, 5, 6, 7],
            Neighborhood::Hex(_) => &[8, 9, 10, 11, 12, 13],
        };
        from.into_iter().flat_map(move |i| {
            dirs.iter().filter_map(move |&d| {
                let (j, len) = self.step(i, d)?;
                let (x, y) = self.unpad(j);
                Some((GridPos::new(x, y), len * f64::from(self.costs[j])))
            })
        })
    }

    /// True when one legal step leads from `a` to `b`: both passable, adjacent under the
    /// neighborhood, and (for a diagonal) allowed by the corner rule.
    pub fn can_step(&self, a: GridPos, b: GridPos) -> bool {
        if !self.is_passable(a) || !self.is_passable(b) {
            return false;
        }
        let (dx, dy) = (i64::from(b.x) - i64::from(a.x), i64::from(b.y) - i64::from(a.y));
        if let Neighborhood::Hex(coords) = self.neighborhood {
            let parity = coords.parity(a.x as usize, a.y as usize);
            return coords.steps(parity).contains(&(dx as isize, dy as isize));
        }
        match (dx.abs(), dy.abs()) {
            (1, 0) | (0, 1) => true,
            (1, 1) => {
                self.neighborhood == Neighborhood::Eight
                    && self.diagonal_allowed(a, dx as i32, dy as i32)
            }
            _ => false,
        }
    }

    /// The cost of one step from `a` to `b` (step length x cost of `b`), or `None` when that is
    /// not a legal step ([`can_step`](Self::can_step)).
    pub fn step_cost(&self, a: GridPos, b: GridPos) -> Option<f64> {
        if !self.can_step(a, b) {
            return None;
        }
        let diagonal = a.x != b.x && a.y != b.y && !self.neighborhood.is_hex();
        let length = if diagonal { std::f64::consts::SQRT_2 } else { 1.0 };
        Some(length * f64::from(self.cost(b)?))
    }

    /// Whether a diagonal step from `pos` by (dx, dy) is allowed by the corner rule, given that
    /// both end cells are passable. False for anything but a diagonal step (`dx` and `dy` each
    /// 1 or -1) from a cell of the grid, and always on a hex grid.
    pub fn diagonal_allowed(&self, pos: GridPos, dx: i32, dy: i32) -> bool {
        if self.neighborhood.is_hex()
            || !self.in_bounds(pos)
            || dx.unsigned_abs() != 1
            || dy.unsigned_abs() != 1
        {
            return false;
        }
        let i = self.index(pos) as isize;
        let stride = self.stride() as isize;
        let side_a = self.costs[(i + dx as isize) as usize] != 0;
        let side_b = self.costs[(i + dy as isize * stride) as usize] != 0;
        self.corner_rule.allows_diagonal(side_a, side_b)
    }

    /// The connected component of `pos` (cells that can reach each other share a label), or
    /// `None` for a blocked or out-of-bounds cell. Labels are recomputed lazily, in O(cells),
    /// on the first call after a cell turned blocked or passable.
    pub fn component(&self, pos: GridPos) -> Option<u32> {
        if !self.in_bounds(pos) {
            return None;
        }
        let label = self.labels().labels[self.index(pos)];
        (label != 0).then_some(label)
    }

    /// True when a path exists between `a` and `b` (both passable and connected).
    pub fn connected(&self, a: GridPos, b: GridPos) -> bool {
        match (self.component(a), self.component(b)) {
            (Some(ca), Some(cb)) => ca == cb,
            _ => false,
        }
    }

    fn labels(&self) -> &Labels {
        self.components.get_or_init(|| self.compute_labels())
    }

    /// Flood fills connected regions (see [`Adjacency`]).
    fn compute_labels(&self) -> Labels {
        let mut labels = vec![0u32; self.costs.len()];
        let mut sizes = vec![0u32];
        let adjacency = Adjacency::new(self.stride(), self.neighborhood);
        let mut stack = Vec::new();
        for start in 0..self.costs.len() {
            if self.costs[start] == 0 || labels[start] != 0 {
                continue;
            }
            let label = sizes.len() as u32;
            let costs = &self.costs;
            let unlabelled_open = |j: usize, l: u32| costs[j] != 0 && l == 0;
            sizes.push(fill(&mut labels, adjacency, &mut stack, start, label, unlabelled_open));
        }
        Labels { labels, sizes }
    }

    /// After padded cell `i` (of component `label`) was blocked and its open neighbours are not
    /// joined round it: searches outwards from them, a bounded number of cells, to find whether
    /// they are still joined, and gives any part cut off a label of its own. False when the
    /// bound was reached first (the labels are then to be dropped).
    fn rejoin(&mut self, i: usize, label: u32) -> bool {
        const BOUND: usize = 4096;
        let adjacency = Adjacency::new(self.stride(), self.neighborhood);
        let costs = &self.costs;
        let Some(labels) = self.components.get_mut() else {
            return true;
        };
        let (around, n) = adjacency.around(i);
        let mut targets: Vec<usize> =
            around[..n].iter().copied().filter(|&j| costs[j] != 0).collect();
        let mut seen = std::collections::HashSet::new();
        let mut queue = std::collections::VecDeque::new();
        while targets.len() > 1 {
            seen.clear();
            queue.clear();
            seen.insert(targets[0]);
            queue.push_back(targets[0]);
            let mut missing = targets.len() - 1;
            while let Some(c) = queue.pop_front() {
                let (around, n) = adjacency.around(c);
                for &j in &around[..n] {
                    if costs[j] != 0 && seen.insert(j) {
                        if targets[1..].contains(&j) {
                            missing -= 1;
                        }
                        queue.push_back(j);
                    }
                }
                if missing == 0 {
                    return true; // still one piece
                }
                if seen.len() > BOUND {
                    return false;
                }
            }
            // Exhausted: the part round targets[0] is cut off from the rest.
            let new = labels.sizes.len() as u32;
            for &c in &seen {
                labels.labels[c] = new;
            }
            labels.sizes.push(seen.len() as u32);
            if let Some(size) = labels.sizes.get_mut(label as usize) {
                *size = size.saturating_sub(seen.len() as u32);
            }
            targets.retain(|t| !seen.contains(t));
        }
        true
    }

    /// Keeps the labels (if computed) in step after padded cell `i` turned open or blocked.
    /// Opening joins the neighbours' components (relabelling all but the largest). Blocking can
    /// split a component only if the cell's open neighbours are not joined round the ring of
    /// its eight surrounding cells; then a bounded search ([`rejoin`](Self::rejoin)) decides,
    /// and if it runs out the labels are dropped, to be recomputed when next asked for. Most
    /// changes (a cell in open ground, at the end of a corridor) cost O(1).
    fn update_labels(&mut self, i: usize, open: bool) {
        let stride = self.stride();
        let adjacency = Adjacency::new(stride, self.neighborhood);
        let Some(labels) = self.components.get_mut() else {
            return;
        };
        let (around, n) = adjacency.around(i);
        let around = &around[..n];
        if open {
            let mut best = 0u32;
            for &j in around {
                let l = labels.labels[j];
                if l != 0 && (best == 0 || labels.sizes[l as usize] > labels.sizes[best as usize]) {
                    best = l;
                }
            }
            if best == 0 {
                labels.labels[i] = labels.sizes.len() as u32;
                labels.sizes.push(1);
                return;
            }
            labels.labels[i] = best;
            labels.sizes[best as usize] += 1;
            let mut stack = Vec::new();
            for &j in around {
                let l = labels.labels[j];
                if l != 0 && l != best {
                    let of_l = |_: usize, label: u32| label == l;
                    let moved = fill(&mut labels.labels, adjacency, &mut stack, j, best, of_l);
                    labels.sizes[best as usize] += moved;
                    labels.sizes[l as usize] = 0;
                }
            }
        } else {
            let label = labels.labels[i];
            labels.labels[i] = 0;
            if let Some(size) = labels.sizes.get_mut(label as usize) {
                *size = size.saturating_sub(1);
            }
            if adjacency.hex.is_some() {
                // The six neighbours are a ring, each joined to the next: open ones in one run
                // round it are still joined.
                let open_at = |k: usize| self.costs[around[k % 6]] != 0;
                let runs = (0..6).filter(|&k| open_at(k) && !open_at(k + 5)).count();
                if runs > 1 && !self.rejoin(i, label) {
                    self.components.take();
                }
                return;
            }
            // The ring round i, in order: the open neighbours must be joined along it.
            let ring = [
                i + 1,
                i + 1 + stride,
                i + stride,
                i + stride - 1,
                i - 1,
                i - 1 - stride,
                i - stride,
                i - stride + 1,
            ];
            let costs = &self.costs;
            let open_at = |k: usize| costs[ring[k % 8]] != 0;
            // Count the runs of open ring cells that hold an orthogonal neighbour (even k).
            // Orthogonal neighbours in one run are joined through the ring; in two runs they
            // may not be.
            let Some(start) = (0..8).find(|&k| !open_at(k)) else {
                return; // the whole ring is open: still joined
            };
            let (mut runs_with_neighbour, mut in_run, mut has_neighbour) = (0, false, false);
            for step in 1..=8 {
                let k = (start + step) % 8;
                if open_at(k) {
                    in_run = true;
                    has_neighbour |= k % 2 == 0;
                } else if in_run {
                    runs_with_neighbour += usize::from(has_neighbour);
                    in_run = false;
                    has_neighbour = false;
                }
            }
            if runs_with_neighbour > 1 && !self.rejoin(i, label) {
                self.components.take();
            }
        }
    }

    // ---- internals shared with the search engine ----

    /// Words per padded row in `open_rows` (one spare).
    #[inline]
    pub(crate) fn row_words(&self) -> usize {
        self.stride().div_ceil(64) + 1
    }

    /// Words per padded column in `open_cols` (one spare).
    #[inline]
    pub(crate) fn col_words(&self) -> usize {
        (self.height as usize + 2).div_ceil(64) + 1
    }

    fn set_open_bit(&mut self, i: usize, open: bool) {
        let stride = self.stride();
        let (x, y) = (i % stride, i / stride);
        let (rw, cw) = (self.row_words(), self.col_words());
        let row = &mut self.open_rows[y * rw + x / 64];
        let col = &mut self.open_cols[x * cw + y / 64];
        if open {
            *row |= 1 << (x % 64);
            *col |= 1 << (y % 64);
            self.runs[i] |= OPEN;
        } else {
            *row &= !(1 << (x % 64));
            *col &= !(1 << (y % 64));
            self.runs[i] &= !OPEN;
        }
    }

    /// The turn bit of padded (`x`, `y`) for runs in direction `k` (+x, -x, +y, -y).
    fn turn_at(&self, k: usize, x: usize, y: usize) -> bool {
        let word = match k {
            0 | 1 => self.turn_rows[k][y * self.row_words() + x / 64] >> (x % 64),
            _ => self.turn_cols[k - 2][x * self.col_words() + y / 64] >> (y % 64),
        };
        word & 1 == 1
    }

    /// Recomputes the run bit of direction `k` (+x, -x, +y, -y) for padded (`x`, `y`) and the
    /// cells behind it (against the run direction), each from the cell ahead of it: the first
    /// `settle` cells whatever, then until a bit comes out as it was.
    fn refresh_runs(&mut self, k: usize, mut x: isize, mut y: isize, settle: usize) {
        let (dx, dy) = DIRECTIONS[k];
        let (stride, rows) = (self.stride() as isize, self.height as isize + 2);
        let inside = |x: isize, y: isize| (0..stride).contains(&x) && (0..rows).contains(&y);
        let bit = 1u8 << k;
        let mut done = 0;
        while inside(x, y) {
            let (ax, ay) = (x + dx, y + dy);
            let ahead = (ay * stride + ax) as usize;
            let run = inside(ax, ay)
                && self.costs[ahead] != 0
                && (self.turn_at(k, ax as usize, ay as usize) || self.runs[ahead] & bit != 0);
            let cell = &mut self.runs[(y * stride + x) as usize];
            if (*cell & bit != 0) == run && done >= settle {
                break;
            }
            *cell = if run { *cell | bit } else { *cell & !bit };
            x -= dx;
            y -= dy;
            done += 1;
        }
    }

    /// Recomputes every turn and run bit from the costs (the open bits being up to date).
    fn refresh_all_bits(&mut self) {
        let (rw, cw) = (self.row_words(), self.col_words());
        let (rows, cols) = (self.height as usize + 2, self.stride());
        turns_from_open(&self.open_rows, rw, rows, &mut self.turn_rows);
        turns_from_open(&self.open_cols, cw, cols, &mut self.turn_cols);
        self.refresh_all_runs();
    }

    /// Recomputes every run bit, each line from its far end.
    fn refresh_all_runs(&mut self) {
        let (last_x, last_y) = (self.stride() as isize - 1, self.height as isize + 1);
        for y in 0..=last_y {
            self.refresh_runs(0, last_x, y, usize::MAX);
            self.refresh_runs(1, 0, y, usize::MAX);
        }
        for x in 0..=last_x {
            self.refresh_runs(2, x, last_y, usize::MAX);
            self.refresh_runs(3, x, 0, usize::MAX);
        }
    }

    /// Recomputes the four turn bits of padded (`x`, `y`) from the costs.
    fn refresh_turns(&mut self, x: usize, y: usize) {
        let stride = self.stride();
        let rows = self.height as usize + 2;
        let open = |x: usize, y: usize| x < stride && y < rows && self.costs[y * stride + x] != 0;
        // Runs along the row: the cells above and below, and those behind them.
        let side = |x: usize, behind: Option<usize>| {
            let turn = |sy: Option<usize>| {
                sy.is_some_and(|sy| open(x, sy) && !behind.is_some_and(|bx| open(bx, sy)))
            };
            turn(y.checked_sub(1)) || turn(Some(y + 1))
        };
        let along_rows = [side(x, x.checked_sub(1)), side(x, Some(x + 1))];
        // Runs along the column: the cells left and right, and those behind them.
        let across = |behind: Option<usize>| {
            let turn = |sx: Option<usize>| {
                sx.is_some_and(|sx| open(sx, y) && !behind.is_some_and(|by| open(sx, by)))
            };
            turn(x.checked_sub(1)) || turn(Some(x + 1))
        };
        let along_cols = [across(y.checked_sub(1)), across(Some(y + 1))];
        let (rw, cw) = (self.row_words(), self.col_words());
        let put = |bits: &mut Vec<u64>, word: usize, bit: usize, on: bool| {
            if on {
                bits[word] |= 1 << bit;
            } else {
                bits[word] &= !(1 << bit);
            }
        };
        for k in 0..2 {
            put(&mut self.turn_rows[k], y * rw + x / 64, x % 64, along_rows[k]);
            put(&mut self.turn_cols[k], x * cw + y / 64, y % 64, along_cols[k]);
        }
    }

    /// Turn bits of padded row `y` for runs towards +x (`forward`) or -x.
    #[inline]
    pub(crate) fn turn_row(&self, y: usize, forward: bool) -> &[u64] {
        let rw = self.row_words();
        &self.turn_rows[usize::from(!forward)][y * rw..(y + 1) * rw]
    }

    /// Turn bits of padded column `x` for runs towards +y (`forward`) or -y.
    #[inline]
    pub(crate) fn turn_col(&self, x: usize, forward: bool) -> &[u64] {
        let cw = self.col_words();
        &self.turn_cols[usize::from(!forward)][x * cw..(x + 1) * cw]
    }

    /// Passable-cell bits of padded row `y` (`row_words` words).
    #[inline]
    pub(crate) fn open_row(&self, y: usize) -> &[u64] {
        let rw = self.row_words();
        &self.open_rows[y * rw..(y + 1) * rw]
    }

    /// Passable-cell bits of padded column `x` (`col_words` words).
    #[inline]
    pub(crate) fn open_col(&self, x: usize) -> &[u64] {
        let cw = self.col_words();
        &self.open_cols[x * cw..(x + 1) * cw]
    }

    #[inline]
    pub(crate) fn stride(&self) -> usize {
        self.width as usize + 2
    }

    /// Padded index of an in-bounds position.
    #[inline]
    pub(crate) fn index(&self, pos: GridPos) -> usize {
        (pos.y as usize + 1) * self.stride() + pos.x as usize + 1
    }

    /// Position of a padded index that lies inside the grid.
    #[inline]
    pub(crate) fn unpad(&self, i: usize) -> (u32, u32) {
        let stride = self.stride();
        ((i % stride - 1) as u32, (i / stride - 1) as u32)
    }

    /// The per-cell run bits (padded layout): [`OPEN`], and bit `k` when a straight run that way
    /// finds a jump point before a wall.
    #[inline]
    pub(crate) fn runs(&self) -> &[u8] {
        &self.runs
    }

    #[inline]
    pub(crate) fn padded_costs(&self) -> &[u32] {
        &self.costs
    }

    /// Number of padded cells: the size of per-cell arrays indexed like the grid.
    #[inline]
    pub(crate) fn padded_len(&self) -> usize {
        self.costs.len()
    }

    /// Step `d` (0..4 straight: E, W, S, N; 4..8 diagonal; 8..14 the six hex steps on a hex
    /// grid) from padded index `i`: the target index
    /// and the step length, or `None` if the target is blocked or the corner rule forbids it.
    #[inline]
    pub(crate) fn step(&self, i: usize, d: usize) -> Option<(usize, f64)> {
        let stride = self.stride() as isize;
        if let (Neighborhood::Hex(coords), 8..) = (self.neighborhood, d) {
            let (x, y) = self.unpad(i);
            let (dx, dy) = coords.steps(coords.parity(x as usize, y as usize))[d - 8];
            let j = (i as isize + dx + dy * stride) as usize;
            return (self.costs[j] != 0).then_some((j, 1.0));
        }
        let (dx, dy) = DIRECTIONS[d];
        let j = (i as isize + dx + dy * stride) as usize;
        if self.costs[j] == 0 {
            return None;
        }
        if d < 4 {
            return Some((j, 1.0));
        }
        let side_a = self.costs[(i as isize + dx) as usize] != 0;
        let side_b = self.costs[(i as isize + dy * stride) as usize] != 0;
        self.corner_rule.allows_diagonal(side_a, side_b).then_some((j, std::f64::consts::SQRT_2))
    }
}

/// Step directions as (dx, dy): four straight, then four diagonal.
pub(crate) const DIRECTIONS: [(isize, isize); 8] =
    [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)];

fn cell_cost(cell: Cell, pos: GridPos) -> Result<u32, GridError> {
    match cell {
        Cell::Blocked => Ok(0),
        Cell::Passable { cost: 0 } => Err(GridError::ZeroCost { pos }),
        Cell::Passable { cost } => Ok(cost),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The turn bits kept in step cell by cell equal those of a grid built whole from the same
    /// cells, after thousands of random walls built and torn down (on a grid wider and taller
    /// than 64 cells, so that words and the spare word are crossed).
    #[test]
    fn turn_bits_follow_every_change() {
        let (width, height) = (70, 67);
        let mut grid = NavGrid::new(width, height).unwrap();
        // The same changes a few at a time through `set_all`, which then refreshes round each
        // changed cell after the batch rather than rebuilding everything.
        let mut batched = grid.clone();
        let mut batch = Vec::new();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for round in 0..4000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let pos = GridPos::new((seed % u64::from(width)) as u32, (seed >> 32) as u32 % height);
            let cell = if seed >> 20 & 3 == 0 { Cell::GROUND } else { Cell::Blocked };
            grid.set(pos, cell).unwrap();
            batch.push((pos, cell));
            if batch.len() == 8 || round % 500 == 499 {
                batched.set_all(batch.drain(..)).unwrap();
            }
            if round % 500 == 499 {
                let mut fresh = NavGrid::filled(width, height, Cell::Blocked).unwrap();
                for p in grid.positions() {
                    fresh.set(p, grid.get(p).unwrap()).unwrap();
                }
                let mut whole = NavGrid::filled(width, height, Cell::Blocked).unwrap();
                whole.costs.clone_from(&grid.costs);
                whole.open_rows.clone_from(&grid.open_rows);
                whole.open_cols.clone_from(&grid.open_cols);
                whole.runs = grid.costs.iter().map(|&c| if c != 0 { OPEN } else { 0 }).collect();
                for i in 0..whole.costs.len() {
                    whole.refresh_turns(i % whole.stride(), i / whole.stride());
                }
                whole.refresh_all_runs();
                assert!(grid.turn_rows == whole.turn_rows && grid.turn_cols == whole.turn_cols);
                assert!(fresh.turn_rows == whole.turn_rows && fresh.turn_cols == whole.turn_cols);
                assert!(grid.runs == whole.runs && fresh.runs == whole.runs);
                assert!(batched == grid && batched.runs == whole.runs);
                assert!(
                    batched.turn_rows == whole.turn_rows && batched.turn_cols == whole.turn_cols
                );
                // The same cells set all at once, bits rebuilt at the end.
                let mut bulk = NavGrid::filled(width, height, Cell::GROUND).unwrap();
                bulk.set_all(grid.positions().map(|p| (p, grid.get(p).unwrap()))).unwrap();
                assert!(bulk == grid && bulk.turn_rows == whole.turn_rows);
                assert!(bulk.turn_cols == whole.turn_cols && bulk.runs == whole.runs);
                assert_eq!(bulk.min_cost(), grid.min_cost());
                assert_eq!(bulk.passable_count(), grid.passable_count());
            }
        }
    }

    /// A bad cell in the middle of `set_all` stops it there: the cells before it are set, the
    /// rest are not, and the bits match the cells that are set.
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
        assert!(grid == one_by_one && grid.runs == one_by_one.runs);
        assert!(grid.turn_rows == one_by_one.turn_rows && grid.turn_cols == one_by_one.turn_cols);
        assert!(!grid.connected(GridPos::new(0, 0), GridPos::new(7, 0)));
        // A large `fill_rect` takes the same path: the same cells and bits as cell by cell.
        grid.fill_rect(GridPos::new(1, 2), GridPos::new(6, 6), Cell::Blocked).unwrap();
        for y in 2..=6 {
            for x in 1..=6 {
                one_by_one.set(GridPos::new(x, y), Cell::Blocked).unwrap();
            }
        }
        assert!(grid == one_by_one && grid.runs == one_by_one.runs);
        assert!(grid.turn_rows == one_by_one.turn_rows && grid.turn_cols == one_by_one.turn_cols);
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
        let mut seed = 12345u64;
        let mut next = move |n: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % u64::from(n)) as u32
        };
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
