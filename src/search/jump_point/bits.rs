//! What jump point search keeps in step with the grid: the passable cells as bit rows and
//! columns (64 cells a word), the turn bits (where a straight run may meet a jump point), the
//! cells on the edge of a cost change, and the per-cell run bits. Built from the cells on the
//! first jump point search of a grid, then told of every cell whose cost changes through the
//! grid's one change hook ([`CellIndex`]); grids never searched this way (hex maps, 4-way or
//! corner-cutting grids) never hold them.
//!
//! Terrain costs (jump point search for weighted grids): a cell is *mixed* when an open cell
//! among its eight neighbours costs other than it does. Around any other cell the ground is
//! one cost, where the pruning rules of jump point search hold as on a uniform grid; a mixed
//! cell is a jump point (every straight and diagonal run stops on it) and is expanded in every
//! direction, as a start is. Runs therefore cross only ground of one cost, and a successor
//! costs its length times its own cost.
//!
//! Walls between cells and one-way edges: the block bits say no diagonal passes a corner a
//! barred edge touches, and the turn bits stop a straight run where an edge bars its next step
//! or forces a turn (see [`edge_turns`]). The grid tells the bits of an edge change as of a
//! cell change.

use std::any::Any;

use crate::grid::{CellIndex, CellView, DIRECTIONS, direction_of};

/// Jump point search's bits for one grid (padded layout, like the grid's cells).
#[derive(Clone, Debug)]
pub(crate) struct JumpBits {
    /// Padded width and height.
    stride: usize,
    rows: usize,
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
    /// `DIRECTIONS`: +x, -x, +y, -y) when a straight run from the cell that way meets a turn
    /// bit before a wall. A diagonal run of jump point search stops where either of its two
    /// straight runs would find a jump point: this answers that in one load, not two scans.
    /// Kept in step cell by cell (a change reaches back along its rows and columns only as far
    /// as the bits change).
    runs: Vec<u8>,
    /// How many cells are [`MIXED`].
    mixed: usize,
}

impl JumpBits {
    /// The bits of the grid's cells, built whole (linear in the grid's size, 64 cells a step
    /// for the turn bits): a [`JumpBitsBuild`] stepped to its end.
    pub(crate) fn build(cells: CellView) -> Self {
        let mut build = JumpBitsBuild::new(cells);
        while !build.step(cells, &mut { u64::MAX }) {}
        build.bits
    }

    /// Bits of no open cell, sized for the grid of `cells`: where a build starts.
    fn empty(cells: CellView) -> Self {
        let (stride, rows) = (cells.stride, cells.costs.len() / cells.stride);
        let mut bits = Self {
            stride,
            rows,
            open_rows: Vec::new(),
            open_cols: Vec::new(),
            turn_rows: [Vec::new(), Vec::new()],
            turn_cols: [Vec::new(), Vec::new()],
            runs: vec![0; cells.costs.len()],
            mixed: 0,
        };
        let (row_bits, col_bits) = (bits.row_words() * rows, bits.col_words() * stride);
        bits.open_rows = vec![0; row_bits];
        bits.open_cols = vec![0; col_bits];
        bits.turn_rows = [vec![0; row_bits], vec![0; row_bits]];
        bits.turn_cols = [vec![0; col_bits], vec![0; col_bits]];
        bits
    }
}

/// Jump point search's bits built a slice at a time (what a grid's first jump point search
/// needs, spread over frames). The stages of a whole build, each resumable at any cell or
/// line; the bits come out the same as built whole.
#[derive(Clone, Debug)]
pub(crate) struct JumpBitsBuild {
    bits: JumpBits,
    progress: Progress,
}

impl JumpBitsBuild {
    pub(crate) fn new(cells: CellView) -> Self {
        Self { bits: JumpBits::empty(cells), progress: Progress::at(Stage::Open) }
    }

    /// Does at most `*work` units (a cell each; at least one cell or line), taking them from
    /// it; true once the bits are built ([`finish`](Self::finish)). `cells` must be the same
    /// at every step.
    pub(crate) fn step(&mut self, cells: CellView, work: &mut u64) -> bool {
        self.progress.advance(&mut self.bits, cells, work)
    }

    pub(crate) fn finish(self) -> JumpBits {
        self.bits
    }
}

/// The stages of a build, in order: each reads what those before it wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// Open bits, cell by cell.
    Open,
    /// Block bits, cell by cell.
    Blocks,
    /// Turn bits of each row, then of each column.
    TurnRows,
    TurnCols,
    /// Whether every open cell costs the same.
    Uniform,
    /// Mixed cells (and their turn bits), cell by cell.
    Mixed,
    /// Run bits along each row; then along the columns, a row at a time (towards +y from
    /// the last row up, towards -y from the first down), in the cells' own order.
    RunRows,
    RunsDown,
    RunsUp,
    Done,
}

/// How far a build has gone: its stage, the next cell or line of it, and what the stage of
/// uniform costs found (the first open cost, and whether any other differs).
#[derive(Clone, Copy, Debug)]
struct Progress {
    stage: Stage,
    at: usize,
    first: u32,
    uniform: bool,
}

impl Progress {
    fn at(stage: Stage) -> Self {
        Self { stage, at: 0, first: 0, uniform: true }
    }

    /// The stage's items (cells or lines) and what one costs, in cells.
    fn extent(&self, bits: &JumpBits) -> (usize, u64) {
        let (stride, rows, cells) = (bits.stride, bits.rows, bits.runs.len());
        match self.stage {
            Stage::Open | Stage::Blocks | Stage::Uniform | Stage::Mixed => (cells, 1),
            Stage::TurnRows => (rows, bits.row_words() as u64),
            Stage::TurnCols => (stride, bits.col_words() as u64),
            Stage::RunRows => (rows, 2 * stride as u64),
            Stage::RunsDown | Stage::RunsUp => (rows, stride as u64),
            Stage::Done => (0, 1),
        }
    }

    /// Does at most `*work` units of the build of `bits` (at least one item), taking them
    /// from it; true once done.
    fn advance(&mut self, bits: &mut JumpBits, cells: CellView, work: &mut u64) -> bool {
        let mut left = (*work).max(1);
        let mut first_item = true;
        while self.stage != Stage::Done {
            let (items, cost) = self.extent(bits);
            if left < cost && !first_item {
                break;
            }
            let take = usize::try_from((left / cost).max(1)).unwrap_or(usize::MAX);
            let end = items.min(self.at.saturating_add(take));
            self.run(bits, cells, self.at..end);
            left = left.saturating_sub((end - self.at) as u64 * cost);
            first_item = false;
            self.at = end;
            if end == items {
                self.stage = match self.stage {
                    Stage::Open => Stage::Blocks,
                    Stage::Blocks => Stage::TurnRows,
                    Stage::TurnRows => Stage::TurnCols,
                    Stage::TurnCols => Stage::Uniform,
                    Stage::Uniform => Stage::Mixed,
                    Stage::Mixed => Stage::RunRows,
                    Stage::RunRows => Stage::RunsDown,
                    Stage::RunsDown => Stage::RunsUp,
                    Stage::RunsUp | Stage::Done => Stage::Done,
                };
                self.at = 0;
            }
            if left == 0 {
                break;
            }
        }
        *work = (*work).min(left);
        self.stage == Stage::Done
    }

    /// The cells or lines `items` of the stage.
    fn run(&mut self, bits: &mut JumpBits, cells: CellView, items: std::ops::Range<usize>) {
        let costs = cells.costs;
        let (rw, cw) = (bits.row_words(), bits.col_words());
        let last_x = bits.stride as isize - 1;
        match self.stage {
            Stage::Open => {
                for i in items.filter(|&i| costs[i] != 0) {
                    bits.set_open_bit(i, true);
                }
            }
            Stage::Blocks => items.for_each(|i| bits.refresh_block(i, cells.exits)),
            Stage::TurnRows => {
                turns_from_open(&bits.open_rows, rw, bits.rows, items, &mut bits.turn_rows)
            }
            Stage::TurnCols => {
                turns_from_open(&bits.open_cols, cw, bits.stride, items, &mut bits.turn_cols)
            }
            Stage::Uniform => {
                for &c in costs[items].iter().filter(|&&c| c != 0) {
                    if self.first == 0 {
                        self.first = c;
                    }
                    self.uniform &= c == self.first;
                }
            }
            Stage::Mixed => {
                if items.start == 0 {
                    bits.mixed = 0;
                }
                // Mixed cells are jump points for runs every way: their turn bits are set
                // too. On a grid of one cost there are none (and no need to look). The turns
                // of edges are added here too.
                for i in items {
                    bits.mark_mixed(i, !self.uniform && is_mixed(costs, bits.stride, i));
                    if !cells.exits.is_empty() {
                        bits.add_turns(i, edge_turns(cells, i));
                    }
                }
            }
            Stage::RunRows => {
                for y in items.map(|y| y as isize) {
                    bits.refresh_runs(costs, 0, last_x, y, usize::MAX);
                    bits.refresh_runs(costs, 1, 0, y, usize::MAX);
                }
            }
            Stage::RunsDown => items.for_each(|i| bits.column_runs(costs, 2, bits.rows - 1 - i)),
            Stage::RunsUp => items.for_each(|y| bits.column_runs(costs, 3, y)),
            Stage::Done => {}
        }
    }
}

impl CellIndex for JumpBits {
    fn cells_moved(&mut self, cells: CellView, moved: &[usize]) {
        for &i in moved {
            self.set_open_bit(i, cells.costs[i] != 0);
        }
        // The blocks holding a moved cell: its own, and those whose top-left is left of it,
        // above it, or both.
        for &i in moved {
            let (left, up) = (i.checked_sub(1), i.checked_sub(self.stride));
            for corner in
                [Some(i), left, up, up.and_then(|u| u.checked_sub(1))].into_iter().flatten()
            {
                self.refresh_block(corner, cells.exits);
            }
        }
        // A cost change that leaves a cell open changes no open bit, only which cells are
        // mixed: refreshed round each below like a wall.
        // Past an eighth of the grid, a full rebuild is cheaper than refreshing round each
        // changed cell (BENCHMARKS.md, "Measurements behind the code").
        if moved.len() * 8 >= cells.costs.len() {
            self.refresh_all_bits(cells);
        } else {
            for &i in moved {
                self.refresh_around(cells, i);
            }
        }
    }

    fn clone_index(&self) -> Box<dyn CellIndex> {
        Box::new(self.clone())
    }

    fn memory_bytes(&self) -> usize {
        (self.open_rows.capacity() + self.open_cols.capacity()) * 8
            + self.turn_rows.iter().chain(&self.turn_cols).map(|b| b.capacity() * 8).sum::<usize>()
            + self.runs.capacity()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The turn bits of lines `these` of one orientation, 64 cells a step, from the open bits laid out in
/// `lines` lines of `words` words (rows of `open_rows`, or columns of `open_cols`). A cell of
/// line `l` has a turn bit for runs towards + (`turns[0]`) when, on line `l - 1` or `l + 1`,
/// the cell beside it is open and the one behind that (position - 1) is not; towards -
/// (`turns[1]`) the same with position + 1. The same rule as `refresh_turns`, cell by cell.
fn turns_from_open(
    open: &[u64],
    words: usize,
    lines: usize,
    these: std::ops::Range<usize>,
    turns: &mut [Vec<u64>; 2],
) {
    let line = |l: usize| &open[l * words..(l + 1) * words];
    for l in these {
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

/// The passable bit of the per-cell run bits.
pub(crate) const OPEN: u8 = 1 << 4;

/// The bit of the per-cell run bits that marks a mixed cell: open, with an open neighbour (of
/// the eight) of another cost. Every run stops on it; it is expanded in every direction.
pub(crate) const MIXED: u8 = 1 << 5;

/// The bit of the per-cell run bits set when the 2 x 2 block whose top-left cell this is (it,
/// the cell right of it, and the two below) is all open. A diagonal step from an open cell is
/// legal (onto an open cell, between two open side cells) exactly when the block it crosses
/// is: one load instead of three at every step of a diagonal run.
pub(crate) const BLOCK: u8 = 1 << 6;

/// The turn bits walls between cells and one-way edges add to padded cell `i` (open), for
/// straight runs towards +x, -x, +y, -y: the run must stop here when the step on is barred
/// (onto an open cell), or when a side cell is open and the corner between this cell and the
/// one behind it on that side is touched by a barred edge. A diagonal step never passes such a
/// corner, so the run's cell behind does not reach the side cell as cheaply: it is a forced
/// neighbour here, as beside a wall cell. (`refresh_turns`' cell rule with the block read as
/// walled; the cell's diagonal exits say which corners are.)
fn edge_turns(cells: CellView, i: usize) -> [bool; 4] {
    let CellView { costs, stride, exits } = cells;
    let Some(&exit) = exits.get(i).filter(|_| costs[i] != 0) else {
        return [false; 4];
    };
    let open = |dx: isize, dy: isize| costs[(i as isize + dx + dy * stride as isize) as usize] != 0;
    std::array::from_fn(|k| {
        let (dx, dy) = DIRECTIONS[k];
        let ahead_barred = exit & (1 << k) != 0 && open(dx, dy);
        // A run only reads this cell's bit arriving from the cell behind: none when that step
        // is barred.
        let behind = (i as isize - dx - dy * stride as isize) as usize;
        if exits[behind] & (1 << k) != 0 {
            return ahead_barred;
        }
        // The two side directions (as indices of `DIRECTIONS`): +y, -y or +x, -x.
        let sides = if dy == 0 { [2, 3] } else { [0, 1] };
        ahead_barred
            || sides.iter().any(|&side| {
                let (sx, sy) = DIRECTIONS[side];
                // A side step barred from here leads nowhere from here either (its corner
                // ahead is barred too): no turn.
                open(sx, sy)
                    && exit & (1 << side) == 0
                    && exit & (1 << direction_of(sx - dx, sy - dy)) != 0
            })
    })
}

/// Padded cell `i` is open and an open cell among its eight neighbours costs otherwise.
#[inline]
fn is_mixed(costs: &[u32], stride: usize, i: usize) -> bool {
    let cost = costs[i];
    if cost == 0 {
        return false;
    }
    let (x, y) = (i % stride, i / stride);
    let rows = costs.len() / stride;
    for ny in y.saturating_sub(1)..=(y + 1).min(rows - 1) {
        for nx in x.saturating_sub(1)..=(x + 1).min(stride - 1) {
            let c = costs[ny * stride + nx];
            if c != 0 && c != cost {
                return true;
            }
        }
    }
    false
}

impl JumpBits {
    /// Words per padded row in `open_rows` (one spare).
    #[inline]
    pub(crate) fn row_words(&self) -> usize {
        self.stride.div_ceil(64) + 1
    }

    /// Words per padded column in `open_cols` (one spare).
    #[inline]
    pub(crate) fn col_words(&self) -> usize {
        self.rows.div_ceil(64) + 1
    }

    fn set_open_bit(&mut self, i: usize, open: bool) {
        let stride = self.stride;
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

    /// Sets the [`BLOCK`] bit of padded cell `i` from the open bits of its block and the
    /// edges inside it (off the grid's last padded row or column: never set). A barred edge
    /// touching the block's middle corner bars both diagonals across it (`edges.rs`), which the
    /// cell's exit towards +x +y (direction 4) says.
    fn refresh_block(&mut self, i: usize, exits: &[u8]) {
        let (stride, runs) = (self.stride, &self.runs);
        let open = |j: usize| runs.get(j).is_some_and(|&r| r & OPEN != 0);
        let all = i % stride + 1 < stride
            && exits.get(i).is_none_or(|&e| e & (1 << 4) == 0)
            && open(i)
            && open(i + 1)
            && open(i + stride)
            && open(i + stride + 1);
        self.runs[i] = if all { self.runs[i] | BLOCK } else { self.runs[i] & !BLOCK };
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
    fn refresh_runs(&mut self, costs: &[u32], k: usize, mut x: isize, mut y: isize, settle: usize) {
        let (dx, dy) = DIRECTIONS[k];
        let (stride, rows) = (self.stride as isize, self.rows as isize);
        let inside = |x: isize, y: isize| (0..stride).contains(&x) && (0..rows).contains(&y);
        let bit = 1u8 << k;
        let mut done = 0;
        while inside(x, y) {
            let (ax, ay) = (x + dx, y + dy);
            let ahead = (ay * stride + ax) as usize;
            let run = inside(ax, ay)
                && costs[ahead] != 0
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

    /// Recomputes every turn and run bit (the open and block bits being up to date): the
    /// stages of a build after those.
    fn refresh_all_bits(&mut self, cells: CellView) {
        let mut progress = Progress::at(Stage::TurnRows);
        while !progress.advance(self, cells, &mut { u64::MAX }) {}
    }

    /// Recomputes the run bits of direction `k` (+y or -y) of padded row `y` from the row
    /// ahead of it (done first): what [`refresh_runs`](Self::refresh_runs) does down each
    /// column, a row at a time, reading the cells in their own order.
    fn column_runs(&mut self, costs: &[u32], k: usize, y: usize) {
        let (stride, cw, bit) = (self.stride, self.col_words(), 1u8 << k);
        let ahead = if k == 2 { y.checked_add(1) } else { y.checked_sub(1) };
        let row = y * stride..(y + 1) * stride;
        let Some(ay) = ahead.filter(|&ay| ay < self.rows) else {
            self.runs[row].iter_mut().for_each(|cell| *cell &= !bit);
            return;
        };
        let (word, shift) = (ay / 64, ay % 64);
        let turns = &self.turn_cols[k - 2];
        for x in 0..stride {
            let ahead = ay * stride + x;
            let turn = (turns[x * cw + word] >> shift) & 1 == 1;
            let run = costs[ahead] != 0 && (turn || self.runs[ahead] & bit != 0);
            let cell = &mut self.runs[y * stride + x];
            *cell = if run { *cell | bit } else { *cell & !bit };
        }
    }

    /// Sets the turn bits of padded cell `i` for the directions `turns` says (+x, -x, +y, -y).
    fn add_turns(&mut self, i: usize, turns: [bool; 4]) {
        let (rw, cw) = (self.row_words(), self.col_words());
        let (x, y) = (i % self.stride, i / self.stride);
        for (k, _) in turns.iter().enumerate().filter(|&(_, &on)| on) {
            match k {
                0 | 1 => self.turn_rows[k][y * rw + x / 64] |= 1 << (x % 64),
                _ => self.turn_cols[k - 2][x * cw + y / 64] |= 1 << (y % 64),
            }
        }
    }

    /// Sets or clears padded cell `i`'s [`MIXED`] bit, counting it, and when set, its turn bits.
    fn mark_mixed(&mut self, i: usize, mixed: bool) {
        let (rw, cw) = (self.row_words(), self.col_words());
        self.runs[i] = if mixed { self.runs[i] | MIXED } else { self.runs[i] & !MIXED };
        if mixed {
            self.mixed += 1;
            let (x, y) = (i % self.stride, i / self.stride);
            for k in 0..2 {
                self.turn_rows[k][y * rw + x / 64] |= 1 << (x % 64);
                self.turn_cols[k][x * cw + y / 64] |= 1 << (y % 64);
            }
        }
    }

    /// Recomputes the four turn bits of padded (`x`, `y`) from the costs and edges.
    fn refresh_turns(&mut self, cells: CellView, x: usize, y: usize) {
        let costs = cells.costs;
        let stride = self.stride;
        let rows = self.rows;
        let open = |x: usize, y: usize| x < stride && y < rows && costs[y * stride + x] != 0;
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
        let i = y * stride + x;
        let mixed = is_mixed(costs, stride, i);
        let edged = edge_turns(cells, i);
        if mixed != (self.runs[i] & MIXED != 0) {
            if mixed {
                self.runs[i] |= MIXED;
                self.mixed += 1;
            } else {
                self.runs[i] &= !MIXED;
                self.mixed -= 1;
            }
        }
        let along_rows = [0, 1].map(|k| along_rows[k] || mixed || edged[k]);
        let along_cols = [0, 1].map(|k| along_cols[k] || mixed || edged[2 + k]);
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

    /// How many cells are mixed (on the edge of a cost change).
    #[inline]
    pub(crate) fn mixed_cells(&self) -> usize {
        self.mixed
    }

    /// The per-cell run bits (padded layout): [`OPEN`], [`MIXED`], [`BLOCK`], and bit `k` when
    /// a straight run that way finds a jump point before a wall.
    #[inline]
    pub(crate) fn runs(&self) -> &[u8] {
        &self.runs
    }
    /// A copy of these bits where every run also stops on the padded cells `stops` (of a grid
    /// whose padded costs are `costs`), each looked at in every direction as a cell on the
    /// edge of a cost change is: marked [`MIXED`], with its turn bits and the run bits that
    /// lead to it. A search through links stops so on every link entrance.
    pub(crate) fn with_stops(&self, costs: &[u32], stops: &[usize]) -> JumpBits {
        let mut bits = self.clone();
        for &i in stops {
            if bits.runs.get(i).is_none_or(|r| r & MIXED != 0) {
                continue; // off the grid, or a stop already
            }
            bits.mark_mixed(i, true);
            let (x, y) = (i % bits.stride, i / bits.stride);
            for (k, &(dx, dy)) in DIRECTIONS.iter().take(4).enumerate() {
                bits.refresh_runs(costs, k, x as isize - dx, y as isize - dy, 1);
            }
        }
        bits
    }

    /// Refreshes the turn, mixed and run bits that read padded cell `i`, after its cost
    /// changed. Any order of cells is fine: each refresh reaches back along its lines for as
    /// long as the bits change.
    fn refresh_around(&mut self, cells: CellView, i: usize) {
        let costs = cells.costs;
        // The turn and mixed bits that read this cell: its own and its eight neighbours'.
        let stride = self.stride;
        let (x, y) = (i % stride, i / stride);
        for ty in y.saturating_sub(1)..=(y + 1).min(self.rows - 1) {
            for tx in x.saturating_sub(1)..=(x + 1).min(stride - 1) {
                self.refresh_turns(cells, tx, ty);
            }
        }
        // The run bits that read those: along the three rows and three columns through
        // them, back from this cell (the three nearest always, then while they change).
        let (x, y) = (x as isize, y as isize);
        for k in 0..4 {
            for side in [-1, 0, 1] {
                let (line_x, line_y) = if k < 2 { (x, y + side) } else { (x + side, y) };
                self.refresh_runs(costs, k, line_x, line_y, 3);
            }
        }
    }
}

#[cfg(test)]
mod tests;
