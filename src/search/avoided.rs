//! Cells avoided for one query, as temporary walls laid over the grid without touching it.
//!
//! The grid's jump point bits describe its own walls. An avoided cell changes what those bits
//! would say only for the cells within one step of it (its 3 x 3 block): whether a straight run
//! meets a forced turn there, and whether a diagonal step beside it is legal. So jump point
//! search keeps the grid's bits everywhere else and treats those nearby cells as places where a
//! run must stop and look (like the goal): optimal on the grid with the avoided cells walled.
//!
//! The same marks serve cells where a run must stop without a wall: a search through links
//! stops on every link entrance (the link is one more way on from there) and on every goal.

use super::bit_set::BitSet;
use crate::grid::{GridPos, NavGrid};

/// The avoided cells of the current query, reused from one query to the next (only the bits
/// that were set are cleared).
#[derive(Clone, Debug, Default)]
pub(crate) struct Avoided {
    stride: usize,
    padded_len: usize,
    /// Words per padded row in `near_rows`, and per padded column in `near_cols` (the layout
    /// of the jump point bits' lines, a spare word each).
    row_words: usize,
    col_words: usize,
    /// A bit per padded cell: avoided (a temporary wall).
    walls: BitSet,
    /// A bit per padded cell: in the 3 x 3 block of an avoided cell, or a stop.
    near: BitSet,
    /// The same bits row by row, and column by column: runs scan them 64 cells a step.
    near_rows: BitSet,
    near_cols: BitSet,
    /// A bit per padded row (column) holding a near cell.
    rows: BitSet,
    cols: BitSet,
    /// Padded indices of the near cells.
    marked: Vec<usize>,
    /// Padded indices of the avoided cells.
    cells: Vec<usize>,
}

impl Avoided {
    /// Takes `avoid` for a query: cells off the grid, already blocked, or `kept` (the query's
    /// start and goals) are left out.
    pub(crate) fn build(
        &mut self,
        grid: &NavGrid,
        avoid: &[GridPos],
        kept: impl Fn(GridPos) -> bool,
    ) {
        self.build_with_stops(grid, avoid, &[], kept);
    }

    /// [`build`](Self::build), with `stops` marked too: cells where jump point search stops
    /// and looks in every direction without their being walls (a cell off the grid is left
    /// out).
    pub(crate) fn build_with_stops(
        &mut self,
        grid: &NavGrid,
        avoid: &[GridPos],
        stops: &[GridPos],
        kept: impl Fn(GridPos) -> bool,
    ) {
        self.clear();
        if avoid.is_empty() && stops.is_empty() {
            return; // nothing to lay out: no bitmaps for queries that never avoid anything
        }
        let (stride, padded_len) = (grid.stride(), grid.padded_len());
        if (stride, padded_len) != (self.stride, self.padded_len) {
            let rows = padded_len / stride.max(1);
            self.stride = stride;
            self.padded_len = padded_len;
            self.row_words = stride.div_ceil(64) + 1;
            self.col_words = rows.div_ceil(64) + 1;
            self.walls = BitSet::new(padded_len);
            self.near = BitSet::new(padded_len);
            self.near_rows = BitSet::new(rows * self.row_words * 64);
            self.near_cols = BitSet::new(stride * self.col_words * 64);
            self.rows = BitSet::new(rows);
            self.cols = BitSet::new(stride);
        }
        for &cell in avoid {
            if kept(cell) || !grid.is_passable(cell) {
                continue;
            }
            let i = grid.index(cell);
            if !self.walls.get(i) {
                self.walls.insert(i);
                self.cells.push(i);
            }
        }
        for k in 0..self.cells.len() {
            let i = self.cells[k];
            for dy in [-1isize, 0, 1] {
                for dx in [-1isize, 0, 1] {
                    // Padding surrounds the grid, so the block of an in-grid cell is in range.
                    self.mark_near((i as isize + dx + dy * stride as isize) as usize);
                }
            }
        }
        for &cell in stops.iter().filter(|&&cell| grid.in_bounds(cell)) {
            self.mark_near(grid.index(cell));
        }
    }

    /// Marks padded cell `j` near (a place where runs stop and look), once.
    fn mark_near(&mut self, j: usize) {
        if !self.near.get(j) {
            self.set_near(j, true);
            self.marked.push(j);
        }
    }

    fn set_near(&mut self, j: usize, on: bool) {
        let (x, y) = (j % self.stride, j / self.stride);
        self.near.set(j, on);
        self.near_rows.set(y * self.row_words * 64 + x, on);
        self.near_cols.set(x * self.col_words * 64 + y, on);
        self.rows.set(y, on);
        self.cols.set(x, on);
    }

    fn clear(&mut self) {
        for &i in &self.cells {
            self.walls.remove(i);
        }
        for k in 0..self.marked.len() {
            self.set_near(self.marked[k], false);
        }
        self.cells.clear();
        self.marked.clear();
    }

    /// True when some cell is avoided or marked as a stop in this query.
    #[inline]
    pub(crate) fn any(&self) -> bool {
        !self.marked.is_empty()
    }

    /// Padded cell `i` is avoided.
    #[inline]
    pub(crate) fn is_wall(&self, i: usize) -> bool {
        self.walls.get(i)
    }

    /// Padded cell `i` is within one step of an avoided cell, or a stop.
    #[inline]
    pub(crate) fn is_near(&self, i: usize) -> bool {
        self.near.get(i)
    }

    /// Padded row `y` holds a near cell.
    #[inline]
    pub(crate) fn row_marked(&self, y: usize) -> bool {
        self.rows.get(y)
    }

    /// Padded column `x` holds a near cell.
    #[inline]
    pub(crate) fn col_marked(&self, x: usize) -> bool {
        self.cols.get(x)
    }

    /// The near cells of padded row `line` (`horizontal`) or column `line` as a bit line (bit
    /// p for position p along it, the layout of the jump point bits' lines); `None` when it
    /// holds none.
    #[inline]
    pub(crate) fn near_line(&self, horizontal: bool, line: usize) -> Option<&[u64]> {
        if horizontal {
            let at = line * self.row_words;
            self.row_marked(line).then(|| &self.near_rows.words()[at..at + self.row_words])
        } else {
            let at = line * self.col_words;
            self.col_marked(line).then(|| &self.near_cols.words()[at..at + self.col_words])
        }
    }

    /// Padded indices of the avoided cells.
    pub(crate) fn cells(&self) -> &[usize] {
        &self.cells
    }

    /// Bytes held between queries.
    pub(crate) fn bytes(&self) -> usize {
        [&self.walls, &self.near, &self.rows, &self.cols, &self.near_rows, &self.near_cols]
            .iter()
            .map(|bits| bits.bytes())
            .sum::<usize>()
            + (self.marked.capacity() + self.cells.capacity()) * std::mem::size_of::<usize>()
    }
}
