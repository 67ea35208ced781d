//! Each cell's moves worked out once, by cell index, for searches that read them again and
//! again ([`Moves`]), and the fewest steps from every cell to a goal over them.

use std::collections::VecDeque;

use crate::grid::NavGrid;

/// Each cell's moves by cell index, worked out once a plan (the searches read them far more
/// often than the grid could work them out): the cells a step from a cell leads to, as
/// [`NavGrid::neighbors`] gives them (`out`), and the cells a step into a cell comes from
/// (`into`, in the order of the cells it comes from). Four bytes a cell and a move.
pub(super) struct Moves {
    pub(super) out: Adjacency,
    pub(super) into: Adjacency,
}

/// Cell `c`'s cells are `cells[first[c]..first[c + 1]]`.
#[derive(Default)]
pub(super) struct Adjacency {
    first: Vec<u32>,
    cells: Vec<u32>,
}

impl Adjacency {
    pub(super) fn of(&self, cell: u32) -> &[u32] {
        let c = cell as usize;
        &self.cells[self.first[c] as usize..self.first[c + 1] as usize]
    }
}

impl Moves {
    pub(super) fn of(grid: &NavGrid) -> Self {
        let width = grid.width();
        let mut out = Adjacency::default();
        for at in grid.positions() {
            out.first.push(out.cells.len() as u32);
            out.cells.extend(grid.neighbors(at).map(|(next, _)| next.y * width + next.x));
        }
        out.first.push(out.cells.len() as u32);
        // The steps into each cell: the steps out, turned round (a neighbour's list leaves
        // out a one-way step into the cell, so it cannot be asked).
        let mut first = vec![0u32; out.first.len()];
        for &to in &out.cells {
            first[to as usize + 1] += 1;
        }
        for c in 1..first.len() {
            first[c] += first[c - 1];
        }
        let mut filled = first.clone();
        let mut cells = vec![0u32; out.cells.len()];
        for from in 0..out.first.len() as u32 - 1 {
            for &to in out.of(from) {
                cells[filled[to as usize] as usize] = from;
                filled[to as usize] += 1;
            }
        }
        Self { out, into: Adjacency { first, cells } }
    }
}

/// Steps from every cell to `goal` (`u32::MAX`: none), by moves the grid allows.
pub(super) fn steps_to(moves: &Moves, goal: u32) -> Vec<u32> {
    steps_to_avoiding(moves, goal, |_| false)
}

/// Steps from every cell to `goal` (`u32::MAX`: none), by moves the grid allows, through no
/// cell (by index) that is `taken`.
pub(super) fn steps_to_avoiding(moves: &Moves, goal: u32, taken: impl Fn(u32) -> bool) -> Vec<u32> {
    let mut d = vec![u32::MAX; moves.out.first.len() - 1];
    let mut queue = VecDeque::from([goal]);
    d[goal as usize] = 0;
    while let Some(at) = queue.pop_front() {
        let here = d[at as usize];
        // Cells a step leads from into `at`.
        for &i in moves.into.of(at) {
            if d[i as usize] == u32::MAX && !taken(i) {
                d[i as usize] = here + 1;
                queue.push_back(i);
            }
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::{Edge, GridPos};

    /// On a grid with a ledge, every cell's moves out are the steps the grid allows from it,
    /// its moves in the steps it allows into it, and the steps to a goal count the ledge one
    /// way only.
    #[test]
    fn moves_are_the_grids_steps_both_ways() {
        let mut grid = NavGrid::new(4, 3).unwrap();
        let (a, b) = (GridPos::new(1, 1), GridPos::new(2, 1));
        grid.set_edge(a, b, Edge::OneWay).unwrap();
        grid.set(GridPos::new(1, 0), crate::grid::Cell::Blocked).unwrap();
        let moves = Moves::of(&grid);
        let index = |p: GridPos| p.y * 4 + p.x;
        for at in grid.positions() {
            for to in grid.positions() {
                let out = moves.out.of(index(at)).contains(&index(to));
                let into = moves.into.of(index(to)).contains(&index(at));
                let step = grid.neighbors(at).any(|(n, _)| n == to) && grid.can_step(at, to);
                assert_eq!(out, step, "{at:?} -> {to:?}");
                assert_eq!(into, step, "{at:?} -> {to:?}");
            }
        }
        // Off the ledge in one step; back up only round its ends.
        assert_eq!(steps_to(&moves, index(b))[index(a) as usize], 1);
        assert!(steps_to(&moves, index(a))[index(b) as usize] > 1);
        let walled = steps_to_avoiding(&moves, index(a), |c| c != index(a) && c != index(b));
        assert_eq!(walled[index(b) as usize], u32::MAX);
    }
}
