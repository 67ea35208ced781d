//! Connected components: which cells can reach each other at all, so that "unreachable" is
//! answered without a search. Labels are computed on first use, then kept in step cell by cell
//! where that is cheap.

use super::topology::{HexCoords, Neighborhood};

/// Connected-component labels (padded layout, 0 = blocked) and the size of each label's
/// component (index 0 unused; a merged-away label has size 0).
#[derive(Clone, Debug)]
pub(super) struct Labels {
    pub(super) labels: Vec<u32>,
    pub(super) sizes: Vec<u32>,
}

/// A grid's cells as the labels see them: padded costs (0 = blocked) and how cells join.
#[derive(Clone, Copy)]
pub(super) struct Cells<'a> {
    pub(super) costs: &'a [u32],
    /// Barred exits (`NavGrid::edges`), empty when none: two cells join when the edge between
    /// them lets a step cross at least one way.
    pub(super) edges: &'a [u8],
    pub(super) adjacency: Adjacency,
}

/// Which padded cells join a padded cell in connectivity: the four straight neighbours on a
/// square grid (under both corner rules a legal diagonal step has an open straight cell beside
/// it, so 8-way connectivity equals 4-way connectivity), the six neighbours on a hex grid.
#[derive(Clone, Copy)]
pub(super) struct Adjacency {
    stride: usize,
    /// Padded offsets of the six hex steps, by parity.
    hex: Option<(HexCoords, [[isize; 6]; 2])>,
}

impl Adjacency {
    pub(super) fn new(stride: usize, neighborhood: Neighborhood) -> Self {
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

    /// Whether padded cells `i` and `j`, the `k`-th of [`around`](Self::around) `i`, are
    /// joined across their edge: open at least one way.
    #[inline]
    fn crosses(&self, edges: &[u8], i: usize, k: usize, j: usize) -> bool {
        if edges.is_empty() {
            return true;
        }
        // `around` lists the square steps W, E, S, N: directions 1, 0, 3, 2 of `DIRECTIONS`.
        let (d, back) = match self.hex {
            None => ([1, 0, 3, 2][k], [0, 1, 2, 3][k]),
            Some(_) => (k, (k + 3) % 6),
        };
        edges[i] & (1 << d) == 0 || edges[j] & (1 << back) == 0
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
    edges: &[u8],
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
        for (k, &j) in around[..n].iter().enumerate() {
            if joins(j, labels[j]) && adjacency.crosses(edges, i, k, j) {
                labels[j] = label;
                size += 1;
                stack.push(j);
            }
        }
    }
    size
}

impl Labels {
    /// Labels connected regions (see [`Adjacency`]) in one go: a [`LabelsBuild`] stepped to its
    /// end. Components are numbered in the order of their first cell, row by row.
    pub(super) fn compute(cells: Cells) -> Labels {
        let mut build = LabelsBuild::new(cells.costs.len());
        while !build.step(cells, &mut { u64::MAX }) {}
        build.finish()
    }

    /// After padded cell `i` (of component `label`) was blocked and its open neighbours are not
    /// joined round it: searches outwards from them, a bounded number of cells, to find whether
    /// they are still joined, and gives any part cut off a label of its own. False when the
    /// bound was reached first (the labels are then to be dropped).
    fn rejoin(&mut self, cells: Cells, i: usize, label: u32) -> bool {
        const BOUND: usize = 4096;
        let Cells { costs, adjacency, .. } = cells;
        let labels = self;
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

    /// Keeps the labels in step after padded cell `i` turned open or blocked (its cost already
    /// written in `cells`). Opening joins the neighbours' components (relabelling all but the
    /// largest). Blocking can split a component only if the cell's open neighbours are not
    /// joined round the ring of cells about it; then a bounded search
    /// ([`rejoin`](Self::rejoin)) decides. False when that search ran out: the labels are then
    /// to be dropped, and recomputed when next asked for. Most changes (a cell in open ground,
    /// at the end of a corridor) cost O(1).
    pub(super) fn update(&mut self, cells: Cells, i: usize, open: bool) -> bool {
        if !open {
            return self.split(cells, i);
        }
        let Cells { adjacency, .. } = cells;
        let labels = &mut *self;
        let (around, n) = adjacency.around(i);
        let around = &around[..n];
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
            return true;
        }
        labels.labels[i] = best;
        labels.sizes[best as usize] += 1;
        let mut stack = Vec::new();
        for &j in around {
            let l = labels.labels[j];
            if l != 0 && l != best {
                let of_l = |_: usize, label: u32| label == l;
                let moved = fill(&mut labels.labels, adjacency, &[], &mut stack, j, best, of_l);
                labels.sizes[best as usize] += moved;
                labels.sizes[l as usize] = 0;
            }
        }
        true
    }

    /// [`update`](Self::update) for a cell that was blocked.
    fn split(&mut self, cells: Cells, i: usize) -> bool {
        let Cells { costs, adjacency, .. } = cells;
        let stride = adjacency.stride;
        let (around, n) = adjacency.around(i);
        let around = &around[..n];
        let labels = &mut *self;
        let label = labels.labels[i];
        labels.labels[i] = 0;
        if let Some(size) = labels.sizes.get_mut(label as usize) {
            *size = size.saturating_sub(1);
        }
        if adjacency.hex.is_some() {
            // The six neighbours are a ring, each joined to the next: open ones in one run
            // round it are still joined.
            let open_at = |k: usize| costs[around[k % 6]] != 0;
            let runs = (0..6).filter(|&k| open_at(k) && !open_at(k + 5)).count();
            return runs <= 1 || self.rejoin(cells, i, label);
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
        let open_at = |k: usize| costs[ring[k % 8]] != 0;
        // Count the runs of open ring cells that hold an orthogonal neighbour (even k).
        // Orthogonal neighbours in one run are joined through the ring; in two runs they
        // may not be.
        let Some(start) = (0..8).find(|&k| !open_at(k)) else {
            return true; // the whole ring is open: still joined
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
        runs_with_neighbour <= 1 || self.rejoin(cells, i, label)
    }
}

/// Component labels built a slice at a time (what a grid's first search needs, spread over
/// frames). Three passes, each resumable at any cell: every open cell takes a provisional label,
/// joined (union-find, the smaller label the root) with those of the neighbours already passed;
/// each provisional label is resolved to its root's final label, numbered in the order roots
/// were made, that is of each component's first cell; every cell takes its final label. The
/// same labels as a flood fill from each unlabelled cell in turn, in linear time.
#[derive(Clone, Debug)]
pub(crate) struct LabelsBuild {
    /// Provisional labels (pass 1), then final ones (pass 3).
    labels: Vec<u32>,
    /// Union-find parents of provisional labels (index 0 unused), then (pass 2 on) each
    /// provisional label's final label.
    parent: Vec<u32>,
    sizes: Vec<u32>,
    pass: u8,
    /// The next cell (passes 1 and 3) or provisional label (pass 2).
    at: usize,
}

impl LabelsBuild {
    pub(crate) fn new(cells: usize) -> Self {
        Self { labels: vec![0; cells], parent: vec![0], sizes: vec![0], pass: 1, at: 0 }
    }

    fn root(&mut self, mut l: u32) -> u32 {
        while self.parent[l as usize] != l {
            let up = self.parent[self.parent[l as usize] as usize];
            self.parent[l as usize] = up;
            l = up;
        }
        l
    }

    /// Does at most `*work` units (a cell or a provisional label each, at least one), taking
    /// them from it; true once the labels are built (see [`finish`](Self::finish)). `cells`
    /// must be the same at every step.
    pub(super) fn step(&mut self, cells: Cells, work: &mut u64) -> bool {
        let Cells { costs, edges, adjacency } = cells;
        let mut left = (*work).max(1);
        while left > 0 && self.pass < 4 {
            let n = if self.pass == 2 { self.parent.len() } else { costs.len() };
            let end = n.min(self.at.saturating_add(usize::try_from(left).unwrap_or(usize::MAX)));
            for i in self.at..end {
                match self.pass {
                    1 => self.provisional(costs, edges, adjacency, i),
                    2 => {
                        // A label's parent is never larger: resolved before it, to its root's
                        // final label.
                        let up = self.parent[i] as usize;
                        self.parent[i] = if up == i {
                            self.sizes.push(0);
                            (self.sizes.len() - 1) as u32
                        } else {
                            self.parent[up]
                        };
                    }
                    _ => {
                        let l = self.parent[self.labels[i] as usize];
                        self.labels[i] = l;
                        self.sizes[l as usize] += u32::from(l != 0);
                    }
                }
            }
            left -= (end - self.at) as u64;
            self.at = end;
            if end == n {
                self.pass += 1;
                self.at = if self.pass == 2 { 1 } else { 0 };
            }
        }
        *work = (*work).min(left);
        self.pass == 4
    }

    /// Pass 1 at padded cell `i`.
    fn provisional(&mut self, costs: &[u32], edges: &[u8], adjacency: Adjacency, i: usize) {
        if costs[i] == 0 {
            return;
        }
        // Border cells are never open: an open cell has all its neighbours in range.
        let (around, n) = adjacency.around(i);
        let mut mine = 0u32;
        for (k, &j) in around[..n].iter().enumerate() {
            if j >= i || self.labels[j] == 0 || !adjacency.crosses(edges, i, k, j) {
                continue;
            }
            let theirs = self.root(self.labels[j]);
            if mine == 0 {
                mine = theirs;
            } else if theirs != mine {
                let (low, high) = (mine.min(theirs), mine.max(theirs));
                self.parent[high as usize] = low;
                mine = low;
            }
        }
        if mine == 0 {
            mine = self.parent.len() as u32;
            self.parent.push(mine);
        }
        self.labels[i] = mine;
    }

    /// The labels, once [`step`](Self::step) said they are built.
    pub(super) fn finish(self) -> Labels {
        Labels { labels: self.labels, sizes: self.sizes }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Cell, Edge, GridPos, HexCoords, NavGrid, Neighborhood};
    use super::*;

    /// The labels of a flood fill from each unlabelled open cell in turn, in cell order.
    fn flood(cells: Cells) -> Labels {
        let Cells { costs, edges, adjacency } = cells;
        let (mut labels, mut sizes, mut stack) = (vec![0u32; costs.len()], vec![0u32], Vec::new());
        for start in 0..costs.len() {
            if costs[start] != 0 && labels[start] == 0 {
                let label = sizes.len() as u32;
                let unlabelled_open = |j: usize, l: u32| costs[j] != 0 && l == 0;
                sizes.push(fill(
                    &mut labels,
                    adjacency,
                    edges,
                    &mut stack,
                    start,
                    label,
                    unlabelled_open,
                ));
            }
        }
        Labels { labels, sizes }
    }

    /// Built in slices of any size, the labels are exactly a flood fill's (the same numbers),
    /// on square and hex grids, with walls and one-way edges between cells.
    #[test]
    fn labels_built_in_slices_are_a_flood_fills() {
        let mut rng = crate::test_rng::TestRng(99u64);
        let mut next = |n: u32| rng.below(n);
        let kinds = [
            Neighborhood::Eight,
            Neighborhood::Four,
            Neighborhood::Hex(HexCoords::Row),
            Neighborhood::Hex(HexCoords::ColumnOdd),
            Neighborhood::Hex(HexCoords::RowEven),
        ];
        for round in 0..120 {
            let (w, h) = (1 + next(30), 1 + next(30));
            let kind = kinds[round % kinds.len()];
            let mut grid = NavGrid::new(w, h).unwrap().with_neighborhood(kind);
            for _ in 0..next(w * h) {
                grid.set(GridPos::new(next(w), next(h)), Cell::Blocked).unwrap();
            }
            if round % 2 == 1 {
                for _ in 0..next(w * h / 2 + 1) {
                    let a = GridPos::new(next(w), next(h));
                    let b = grid.neighbors(a).map(|(p, _)| p).nth(next(3) as usize);
                    let edge = if next(2) == 0 { Edge::Wall } else { Edge::OneWay };
                    if let Some(b) = b {
                        let _ = grid.set_edge(a, b, edge);
                    }
                }
            }
            let cells = grid.cells();
            let want = flood(cells);
            for slice in [1, 7, 64, u64::MAX] {
                let mut build = LabelsBuild::new(cells.costs.len());
                let mut steps = 0;
                while !build.step(cells, &mut slice.clone()) {
                    steps += 1;
                    assert!(steps < 10 * cells.costs.len() + 10, "a build that never ends");
                }
                let got = build.finish();
                assert_eq!(got.labels, want.labels, "round {round} ({kind:?}), slices of {slice}");
                assert_eq!(got.sizes, want.sizes, "round {round} ({kind:?}), slices of {slice}");
            }
        }
    }
}
