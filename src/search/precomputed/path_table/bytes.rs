//! A [`PathTable`] to and from its binary form.

use super::{ClearRuns, MAX_SUBGOALS, PathTable, StepRules, TABLE_FORMAT_VERSION, TABLE_MAGIC};
use crate::grid::sealed::{BakeError, open_tied, seal, write_tie};
use crate::grid::{CornerRule, NavGrid, Neighborhood};
use crate::search::bit_set::BitSet;

impl PathTable {
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
        let open = BitSet::from_bools(grid.positions().map(|pos| grid.is_passable(pos)));
        let table = Self {
            width: width as i32,
            height: height as i32,
            open,
            exits: super::build::cell_exits(grid),
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
            lists_built: false,
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
        let mut runs = ClearRuns::new(n);
        for (slot, &from) in self.pred.iter().enumerate() {
            let (from, to) = (usize::from(from), slot % n);
            if from >= n || from == to {
                continue; // unreached, or the row's own subgoal: not a hop
            }
            let (a, b) = (self.subgoals[from], self.subgoals[to]);
            if !runs.get_or_try(from, to, || (self.run_clear(a, b), 0)).0 {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::PathTable;
    use crate::grid::{Cell, GridPos, NavGrid};

    /// A table read from bytes checks the hops to and from subgoals that its cells' lists give
    /// as a query walks them: a list changed by hand (and sealed again) that names a subgoal
    /// behind a wall leaves the query to online search, never a path through the wall.
    #[test]
    fn a_loaded_table_checks_the_hops_its_lists_give() {
        let mut grid = NavGrid::new(9, 9).unwrap();
        grid.fill_rect(GridPos::new(4, 0), GridPos::new(4, 7), Cell::Blocked).unwrap();
        let built = PathTable::build(&grid).unwrap();
        let mut loaded = PathTable::from_binary(&built.to_binary(), &grid).unwrap();
        let (start, goal) = (GridPos::new(0, 0), GridPos::new(8, 0));
        assert!(loaded.answer(&grid, start, goal).is_some_and(|path| path.is_ok()));
        // Past the wall's top, on its far side: not in sight of the start.
        let behind = loaded.subgoals.iter().position(|&p| p == (5, 8)).unwrap() as u16;
        let cell = loaded.index((0, 0));
        let (from, to) = (loaded.out_start[cell] as usize, loaded.out_start[cell + 1] as usize);
        assert!(to > from, "the start sees a subgoal");
        loaded.out_list[from..to].fill(behind);
        assert!(loaded.answer(&grid, start, goal).is_none(), "a hop through the wall");
    }
}
