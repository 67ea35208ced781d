//! Cells avoided for one query, as temporary walls laid over the grid without touching it.
//!
//! The grid's jump point bits describe its own walls. An avoided cell changes what those bits
//! would say only for the cells within one step of it (its 3 x 3 block): whether a straight run
//! meets a forced turn there, and whether a diagonal step beside it is legal. So jump point
//! search keeps the grid's bits everywhere else and treats those nearby cells as places where a
//! run must stop and look (like the goal): optimal on the grid with the avoided cells walled.

use crate::grid::{GridPos, NavGrid};

#[inline]
fn bit(bits: &[u64], i: usize) -> bool {
    bits.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
}

#[inline]
fn set_bit(bits: &mut [u64], i: usize, on: bool) {
    if let Some(w) = bits.get_mut(i / 64) {
        if on {
            *w |= 1 << (i % 64);
        } else {
            *w &= !(1 << (i % 64));
        }
    }
}

/// The avoided cells of the current query, reused from one query to the next (only the bits
/// that were set are cleared).
#[derive(Default)]
pub(crate) struct Avoided {
    stride: usize,
    padded_len: usize,
    /// A bit per padded cell: avoided (a temporary wall).
    walls: Vec<u64>,
    /// A bit per padded cell: in the 3 x 3 block of an avoided cell.
    near: Vec<u64>,
    /// A bit per padded row (column) holding a near cell.
    rows: Vec<u64>,
    cols: Vec<u64>,
    /// Near cells as padded (row, column), sorted; and as (column, row), sorted.
    by_row: Vec<(u32, u32)>,
    by_col: Vec<(u32, u32)>,
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
        self.clear();
        if avoid.is_empty() {
            return; // nothing to lay out: no bitmaps for queries that never avoid anything
        }
        let (stride, padded_len) = (grid.stride(), grid.padded_len());
        if (stride, padded_len) != (self.stride, self.padded_len) {
            self.stride = stride;
            self.padded_len = padded_len;
            let words = padded_len.div_ceil(64);
            self.walls = vec![0; words];
            self.near = vec![0; words];
            self.rows = vec![0; (padded_len / stride.max(1)).div_ceil(64)];
            self.cols = vec![0; stride.div_ceil(64)];
        }
        for &cell in avoid {
            if kept(cell) || !grid.is_passable(cell) {
                continue;
            }
            let i = grid.index(cell);
            if !bit(&self.walls, i) {
                set_bit(&mut self.walls, i, true);
                self.cells.push(i);
            }
        }
        for k in 0..self.cells.len() {
            let i = self.cells[k];
            for dy in [-1isize, 0, 1] {
                for dx in [-1isize, 0, 1] {
                    // Padding surrounds the grid, so the block of an in-grid cell is in range.
                    let j = (i as isize + dx + dy * stride as isize) as usize;
                    if !bit(&self.near, j) {
                        set_bit(&mut self.near, j, true);
                        let (x, y) = ((j % stride) as u32, (j / stride) as u32);
                        self.by_row.push((y, x));
                        self.by_col.push((x, y));
                        set_bit(&mut self.rows, y as usize, true);
                        set_bit(&mut self.cols, x as usize, true);
                    }
                }
            }
        }
        self.by_row.sort_unstable();
        self.by_col.sort_unstable();
    }

    fn clear(&mut self) {
        for &i in &self.cells {
            set_bit(&mut self.walls, i, false);
        }
        for &(y, x) in &self.by_row {
            set_bit(&mut self.near, y as usize * self.stride + x as usize, false);
            set_bit(&mut self.rows, y as usize, false);
            set_bit(&mut self.cols, x as usize, false);
        }
        self.cells.clear();
        self.by_row.clear();
        self.by_col.clear();
    }

    /// True when some cell is avoided in this query.
    #[inline]
    pub(crate) fn any(&self) -> bool {
        !self.cells.is_empty()
    }

    /// Padded cell `i` is avoided.
    #[inline]
    pub(crate) fn is_wall(&self, i: usize) -> bool {
        bit(&self.walls, i)
    }

    /// Padded cell `i` is within one step of an avoided cell.
    #[inline]
    pub(crate) fn is_near(&self, i: usize) -> bool {
        bit(&self.near, i)
    }

    /// Padded row `y` holds a near cell.
    #[inline]
    pub(crate) fn row_marked(&self, y: usize) -> bool {
        bit(&self.rows, y)
    }

    /// Padded column `x` holds a near cell.
    #[inline]
    pub(crate) fn col_marked(&self, x: usize) -> bool {
        bit(&self.cols, x)
    }

    /// The first near cell strictly after position `from` along padded row `y` (`horizontal`)
    /// or column `y`, going in direction `dir` (+1 or -1): its position along that line.
    pub(crate) fn next_near(
        &self,
        horizontal: bool,
        line: usize,
        from: isize,
        dir: isize,
    ) -> Option<isize> {
        let marked = if horizontal { self.row_marked(line) } else { self.col_marked(line) };
        if !marked {
            return None;
        }
        let list = if horizontal { &self.by_row } else { &self.by_col };
        let line = line as u32;
        let lo = list.partition_point(|&(l, _)| l < line);
        let hi = list.partition_point(|&(l, _)| l <= line);
        let on_line = &list[lo..hi];
        if dir > 0 {
            let k = on_line.partition_point(|&(_, p)| (p as isize) <= from);
            on_line.get(k).map(|&(_, p)| p as isize)
        } else {
            let k = on_line.partition_point(|&(_, p)| (p as isize) < from);
            k.checked_sub(1).map(|k| on_line[k].1 as isize)
        }
    }

    /// Padded indices of the avoided cells.
    pub(crate) fn cells(&self) -> &[usize] {
        &self.cells
    }

    /// Bytes held between queries.
    pub(crate) fn bytes(&self) -> usize {
        (self.walls.capacity() + self.near.capacity() + self.rows.capacity() + self.cols.capacity())
            * 8
            + (self.by_row.capacity() + self.by_col.capacity()) * 8
            + self.cells.capacity() * std::mem::size_of::<usize>()
    }
}
