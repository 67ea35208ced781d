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
    /// Flood fills connected regions (see [`Adjacency`]).
    pub(super) fn compute(cells: Cells) -> Labels {
        let Cells { costs, edges, adjacency } = cells;
        let mut labels = vec![0u32; costs.len()];
        let mut sizes = vec![0u32];
        let mut stack = Vec::new();
        for start in 0..costs.len() {
            if costs[start] == 0 || labels[start] != 0 {
                continue;
            }
            let label = sizes.len() as u32;
            let unlabelled_open = |j: usize, l: u32| costs[j] != 0 && l == 0;
            let size =
                fill(&mut labels, adjacency, edges, &mut stack, start, label, unlabelled_open);
            sizes.push(size);
        }
        Labels { labels, sizes }
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
