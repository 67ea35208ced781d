//! Each cell's moves worked out once, by cell index, for searches that read them again and
//! again ([`Moves`]), and the fewest steps from cells to a goal over them: from every cell at
//! once ([`steps_to`]), or from the cells asked for, worked out as they are asked
//! ([`StepsBack`]).

use std::collections::VecDeque;

use super::linked::MixMap;

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

/// The fewest steps from a cell to a goal, worked out as they are asked for (Silver's reverse
/// resumable A*): a search back from the goal towards one cell (`toward`, by the larger of the
/// cells' distances across and up, which a step changes by one at most), resumed until the cell
/// asked for is closed. Each cell is searched once however often it is asked for; it holds
/// only the cells searched (a unit's way and round it), not every cell of a big map.
pub(super) struct StepsBack {
    toward: (u32, u32),
    width: u32,
    /// Open cells (steps back from the goal, cell) in a bucket per estimate from `lowest` on,
    /// the last put in taken first. The estimate never falls along a way and grows by at most
    /// two a step, so a bucket emptied is not used again and only a few are kept at once
    /// however long the ways.
    open: VecDeque<Vec<(u32, u32)>>,
    lowest: u32,
    /// Cell -> the fewest steps found so far, with [`CLOSED`] set once they are its steps.
    steps: MixMap<u32, u32>,
}

/// The bit of a [`StepsBack`] cell's steps that says they are final.
const CLOSED: u32 = 1 << 31;

impl StepsBack {
    /// Steps to `goal` (a cell index on a grid `width` wide), searched back towards `toward`.
    pub(super) fn new(goal: u32, toward: u32, width: u32) -> Self {
        let mut back = Self {
            toward: (toward % width, toward / width),
            width,
            open: VecDeque::new(),
            lowest: 0,
            steps: MixMap::default(),
        };
        back.push(back.estimate(goal), (0, goal));
        back.steps.insert(goal, 0);
        back
    }

    fn push(&mut self, estimate: u32, open: (u32, u32)) {
        if self.open.is_empty() {
            self.lowest = estimate;
        }
        // (Never below the lowest: the estimate does not fall along a way.)
        let at = estimate.saturating_sub(self.lowest) as usize;
        if at >= self.open.len() {
            self.open.resize_with(at + 1, Vec::new);
        }
        self.open[at].push(open);
    }

    fn pop(&mut self) -> Option<(u32, u32)> {
        while let Some(bucket) = self.open.front_mut() {
            if let Some(open) = bucket.pop() {
                return Some(open);
            }
            self.open.pop_front();
            self.lowest += 1;
        }
        None
    }

    fn estimate(&self, cell: u32) -> u32 {
        let (x, y) = (cell % self.width, cell / self.width);
        x.abs_diff(self.toward.0).max(y.abs_diff(self.toward.1))
    }

    /// Steps from `cell` to the goal (`u32::MAX`: none), searching on as far as it takes (each
    /// cell closed adds one to `work`).
    pub(super) fn to(&mut self, moves: &Moves, cell: u32, work: &mut u64) -> u32 {
        loop {
            if let Some(&steps) = self.steps.get(&cell)
                && steps & CLOSED != 0
            {
                return steps & !CLOSED;
            }
            let Some((steps, at)) = self.pop() else {
                return u32::MAX;
            };
            match self.steps.get_mut(&at) {
                Some(s) if *s == steps => *s |= CLOSED,
                _ => continue, // closed already, or a shorter way came later
            }
            *work += 1;
            let next = steps + 1;
            for &from in moves.into.of(at) {
                // (Not seen yet: more steps than any way has.)
                let known = self.steps.entry(from).or_insert(!CLOSED);
                if *known & CLOSED == 0 && next < *known {
                    *known = next;
                    self.push(next + self.estimate(from), (next, from));
                }
            }
        }
    }
}

/// A unit's steps to its goal: worked out from every cell at once where units x cells is
/// small, else as they are asked for ([`StepsBack`]).
pub(super) enum Steps {
    Every(Vec<u32>),
    Back(StepsBack),
}

impl Steps {
    /// Steps from `cell` to the goal (`u32::MAX`: none).
    pub(super) fn to(&mut self, moves: &Moves, cell: u32, work: &mut u64) -> u32 {
        match self {
            Steps::Every(d) => d[cell as usize],
            Steps::Back(back) => back.to(moves, cell, work),
        }
    }
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

    /// Asked cell by cell in any order, the steps worked out as they are asked are the steps
    /// from every cell at once, on random grids with walls, ledges and both neighbourhoods;
    /// and a cell asked twice is not searched again.
    #[test]
    fn steps_asked_for_are_the_steps_from_every_cell() {
        let mut rng = crate::test_rng::TestRng(0x6_0400);
        for trial in 0..40 {
            let (w, h) = (3 + rng.below(20), 3 + rng.below(20));
            let mut grid = NavGrid::new(w, h).unwrap();
            if trial % 2 == 1 {
                grid.set_neighborhood(crate::grid::Neighborhood::Four);
            }
            for p in grid.clone().positions() {
                if rng.below(100) < 25 {
                    grid.set(p, crate::grid::Cell::Blocked).unwrap();
                }
            }
            for _ in 0..4 {
                let a = GridPos::new(rng.below(w - 1), rng.below(h));
                let _ = grid.set_edge(a, GridPos::new(a.x + 1, a.y), Edge::OneWay);
            }
            let moves = Moves::of(&grid);
            let cells = w * h;
            let (goal, toward) = (rng.below(cells), rng.below(cells));
            let every = steps_to(&moves, goal);
            let mut back = StepsBack::new(goal, toward, w);
            let mut work = 0;
            let mut order: Vec<u32> = (0..cells).collect();
            for i in (1..order.len()).rev() {
                order.swap(i, rng.below(i as u32 + 1) as usize);
            }
            for &cell in &order {
                assert_eq!(back.to(&moves, cell, &mut work), every[cell as usize], "trial {trial}");
            }
            let searched = work;
            assert_eq!(back.to(&moves, order[0], &mut work), every[order[0] as usize]);
            assert_eq!(work, searched, "asked again: no more search");
            let reachable = every.iter().filter(|&&d| d != u32::MAX).count() as u64;
            assert_eq!(searched, reachable, "each cell closed once");
        }
    }
}
