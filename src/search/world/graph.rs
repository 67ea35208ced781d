//! The world graph: each grid's nodes and the walks between them, kept from query to query.

use std::cmp::{Ordering, Reverse};
use std::collections::hash_map::Entry as Slot;
use std::collections::{BinaryHeap, HashMap, HashSet};

use super::jump_walks::{JumpWalks, jump_bits};
use super::layout::{Across, Layout, Seams};
use crate::grid::{DIRECTIONS, GridPos, GridStamp, NavGrid, Neighborhood, reverse};
use crate::search::linked::{Link, LinkedMaps, MapPos, Placement, apart};
use crate::search::options::Heuristic;
use crate::search::pathfinder::Pathfinder;
use crate::search::precomputed::slices::CELL_WORK;
use crate::search::seams::is_hex;

/// Whether grid `m`'s walks between its nodes are all worked out for the grid as it is.
pub(super) fn ready(
    layout: &Layout,
    chunks: &HashMap<u64, Chunk>,
    m: usize,
    grid: &NavGrid,
) -> bool {
    current(layout, chunks, m, grid).is_some_and(|c| c.done.iter().all(|&done| done))
}

/// Grid `m`'s nodes.
fn nodes_of(layout: &Layout, m: usize) -> &[GridPos] {
    &layout.cells[layout.first[m] as usize..layout.first[m + 1] as usize]
}

/// Grid `m`'s walks, if they are (wholly or in part) for the grid and nodes as they are.
fn current<'a>(
    layout: &Layout,
    chunks: &'a HashMap<u64, Chunk>,
    m: usize,
    grid: &NavGrid,
) -> Option<&'a Chunk> {
    let chunk = chunks.get(&grid.stamp().id())?;
    (chunk.stamp == grid.stamp() && chunk.nodes == nodes_of(layout, m)).then_some(chunk)
}

/// Works out the walks from grid `m`'s node `i` (the `i`th of its nodes) to its other nodes,
/// if not yet: one Dijkstra, a step of bounded work however many nodes the grid has. Once
/// every node's walks are worked out, those that pass another node are [`prune`]d.
pub(super) fn walk_from(
    layout: &Layout,
    chunks: &mut HashMap<u64, Chunk>,
    scratch: &mut Scratch,
    (m, grid): (usize, &NavGrid),
    i: usize,
) {
    let chunk = chunk_for(layout, chunks, (m, grid));
    if chunk.done.get(i) == Some(&false) {
        chunk.take(scratch, grid, Walk::Out(i));
    }
}

/// Grid `m`'s walks for the grid and nodes as they are: those made for other nodes of the
/// same grid give what they can ([`Chunk::new`]); those made for another grid are dropped.
fn chunk_for<'a>(
    layout: &Layout,
    chunks: &'a mut HashMap<u64, Chunk>,
    (m, grid): (usize, &NavGrid),
) -> &'a mut Chunk {
    let stale = current(layout, chunks, m, grid).is_none();
    // A walk into a node costs about what one out of it does, unless the ground is even and
    // only walks out go by jump points (edges between cells bar them going back): then it goes
    // over every cell, where jump points skip most. (On uneven ground walks into a node go over
    // cells too, yet keeping paid there: the open_world bench's chunks.)
    let alike = || {
        !grid.has_uniform_cost()
            || jump_bits(grid, false).is_some() == jump_bits(grid, true).is_some()
    };
    let made = |old: Option<&Chunk>| {
        Chunk::new(grid.stamp(), nodes_of(layout, m), old, old.is_some() && alike())
    };
    match chunks.entry(grid.stamp().id()) {
        Slot::Vacant(vacant) => vacant.insert(made(None)),
        Slot::Occupied(mut occupied) => {
            if stale {
                let chunk = made(Some(occupied.get()));
                occupied.insert(chunk);
            }
            occupied.into_mut()
        }
    }
}

/// One Dijkstra over a grid for its walks between nodes: the walks out of a node (its row) or
/// into it (its column).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Walk {
    Out(usize),
    Into(usize),
}

/// Marks among a grid's `n` x `n` walks between nodes each walk that passing another node
/// costs no more than (its cost stays that of the two walks through that node): the graph's
/// distances stay the same with far fewer edges to try. Every walk costs at least 1 (one step
/// onto a cell of cost 1 or more), so no two walks are each marked for the other.
fn prune(costs: &[f64], pruned: &mut [bool], n: usize) {
    for i in 0..n {
        for j in 0..n {
            let cost = costs[i * n + j];
            let tolerance = 1e-9 * cost.max(1.0);
            let through = |k: usize| costs[i * n + k] + costs[k * n + j] <= cost + tolerance;
            pruned[i * n + j] =
                i != j && cost.is_finite() && (0..n).any(|k| k != i && k != j && through(k));
        }
    }
}

/// One grid's nodes and the cheapest walk between each pair, for the grid as it was: worked
/// out a node at a time ([`walk_from`]), as a search reaches the node or ahead of queries.
#[derive(Debug)]
pub(super) struct Chunk {
    pub(super) stamp: GridStamp,
    pub(super) nodes: Vec<GridPos>,
    /// Row `i`, column `j`: the cost from node `i` to node `j` (infinite: no walk, or row `i`
    /// not worked out yet).
    costs: Vec<f64>,
    /// Row `i`, column `j`: whether the walk from node `i` to node `j` is left out of the
    /// graph, one through another node costing as little (see [`prune`]); the grid's next
    /// nodes keep the walks all the same.
    pruned: Vec<bool>,
    /// Whether each row is worked out; once all are, the rows are pruned.
    done: Vec<bool>,
    /// The nodes whose column (the walks into them) is still to be worked out: nodes new
    /// since the grid's last nodes, in a chunk that kept the walks between the others. Their
    /// rows are walked first; once no column is due, every row is worked out.
    due: Vec<bool>,
}

impl Chunk {
    /// The walks between `nodes` on the grid of `stamp`: those between nodes `old` had too are
    /// kept when `old` was made for the same grid (the same stamp: the cells are as they were)
    /// and that leaves fewer walks to take. Each new node then takes two (out of it and into
    /// it), against one out of every node made anew; a neighbour leaving only drops nodes, so
    /// nothing is left to walk. Where the walks into a node are dearer than those out (`alike`
    /// false), they are kept only when no node is new.
    fn new(stamp: GridStamp, nodes: &[GridPos], old: Option<&Chunk>, alike: bool) -> Self {
        let k = nodes.len();
        let mut chunk = Self {
            stamp,
            nodes: nodes.to_vec(),
            costs: vec![f64::INFINITY; k * k],
            pruned: vec![false; k * k],
            done: vec![false; k],
            due: vec![false; k],
        };
        if let Some(old) = old.filter(|old| old.stamp == stamp) {
            chunk.keep(old, alike);
        }
        chunk
    }

    /// [`Chunk::new`]'s keeping of `old`'s walks.
    fn keep(&mut self, old: &Chunk, alike: bool) {
        let (k, ok) = (self.nodes.len(), old.nodes.len());
        // Each node's row in `old`, where that row was worked out.
        let rows: HashMap<GridPos, usize> =
            (0..ok).filter(|&i| old.done[i]).map(|i| (old.nodes[i], i)).collect();
        let was: Vec<Option<usize>> = self.nodes.iter().map(|p| rows.get(p).copied()).collect();
        let new = was.iter().filter(|w| w.is_none()).count();
        if new > 0 && (2 * new >= k || !alike) {
            return; // as many walks as made anew, or more, or walks into nodes dearer
        }
        for (i, oi) in was.iter().enumerate() {
            let Some(oi) = *oi else {
                self.due[i] = true;
                continue;
            };
            for (j, oj) in was.iter().enumerate() {
                if let Some(oj) = *oj {
                    self.costs[i * k + j] = old.costs[oi * ok + oj];
                }
            }
            self.done[i] = new == 0;
        }
        self.finish();
    }

    /// The next walk it wants: the rows of nodes whose column is due, then those columns, then
    /// the other rows (`None`: all are worked out).
    fn next(&self) -> Option<Walk> {
        let due = self.due.iter().any(|&due| due);
        let row = (0..self.nodes.len()).find(|&i| !self.done[i] && (self.due[i] || !due));
        row.map(Walk::Out).or_else(|| self.due.iter().position(|&due| due).map(Walk::Into))
    }

    /// Takes one walk (one Dijkstra over `grid`, the grid it was made for).
    fn take(&mut self, scratch: &mut Scratch, grid: &NavGrid, walk: Walk) {
        let k = self.nodes.len();
        match walk {
            Walk::Out(i) if i < k => {
                let row = scratch.walks(grid, self.nodes[i], &self.nodes, false);
                self.costs[i * k..(i + 1) * k].copy_from_slice(&row);
                self.done[i] = true;
            }
            Walk::Into(j) if j < k => {
                let column = scratch.walks(grid, self.nodes[j], &self.nodes, true);
                for (i, cost) in column.into_iter().enumerate() {
                    self.costs[i * k + j] = cost;
                }
                self.due[j] = false;
                // The rows of the nodes due were walked first ([`Chunk::next`]), so once no
                // column is due, every row is whole.
                if !self.due.contains(&true) {
                    self.done.fill(true);
                }
            }
            _ => return,
        }
        self.finish();
    }

    /// Once every row is worked out, nothing is due and the rows are [`prune`]d.
    fn finish(&mut self) {
        if self.done.iter().all(|&done| done) {
            self.due.fill(false);
            prune(&self.costs, &mut self.pruned, self.nodes.len());
        }
    }

    /// The cost of the graph's edge from node `i` to node `j` (infinite: none).
    pub(super) fn walk(&self, i: usize, j: usize) -> f64 {
        let at = i * self.nodes.len() + j;
        match self.pruned.get(at) {
            Some(false) => self.costs[at],
            _ => f64::INFINITY,
        }
    }
}

/// [`WorldGraph::sketch`]: each node as its grid and cell, each edge as the nodes it joins.
pub type GraphSketch = (Vec<(usize, GridPos)>, Vec<(usize, usize)>);

/// A hierarchical search over grids joined at their seams (see [`Placement`]) and by links:
/// paths across a world of chunks in time that grows with the chunks crossed (see the module
/// above for how, and `BENCHMARKS.md` for how close to the cheapest its paths are).
///
/// Keep one and ask it again: each grid's nodes and the walks between them are kept until that
/// grid, its neighbours or the links change, and only those grids are worked out again (one
/// whose neighbours changed keeps the walks between the nodes it still has, and walks only
/// out of and into its new ones).
#[derive(Debug)]
pub struct WorldGraph {
    pub(super) spacing: u32,
    pub(super) chunks: HashMap<u64, Chunk>,
    pub(super) layout: Layout,
    /// What the layout was made from.
    pub(super) made_from: Vec<(GridStamp, Option<Placement>)>,
    pub(super) made_links: Vec<Link>,
    /// Each grid's steps across its seams.
    pub(super) seams: Seams,
    /// Grids whose walks are still to be worked out.
    pub(super) waiting: usize,
    /// Work done by [`WorldGraph::update_within`] so far, in its units.
    pub(super) work: u64,
    pub(super) pathfinder: Pathfinder,
    pub(super) scratch: Scratch,
}

impl Default for WorldGraph {
    fn default() -> Self {
        Self::new(WorldGraph::DEFAULT_SPACING)
    }
}

/// A Dijkstra's buffers, reused.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    pub(super) costs: Vec<f64>,
    pub(super) wanted: Vec<bool>,
    /// Cells by the cost to reach them (as the bits of a non-negative `f64`, which order as
    /// the numbers do): a smaller entry than a general one, for the chunks' many walks.
    pub(super) heap: BinaryHeap<Reverse<(u64, u32)>>,
    pub(super) settled: u32,
    /// The walks by jump points, where they serve.
    jumps: JumpWalks,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Entry {
    pub(super) f: f64,
    pub(super) g: f64,
    pub(super) at: u32,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        other.f.total_cmp(&self.f).then(self.g.total_cmp(&other.g))
    }
}

impl Scratch {
    /// The cheapest walk on `grid` from `from` to each cell of `targets` (forward), or from each
    /// of them to `from` (backward). It stops once every target is settled. By jump points
    /// where they serve (see [`jump_bits`]), else over cells.
    pub(super) fn walks(
        &mut self,
        grid: &NavGrid,
        from: GridPos,
        targets: &[GridPos],
        backward: bool,
    ) -> Vec<f64> {
        match jump_bits(grid, backward) {
            Some(bits) if grid.is_passable(from) => {
                self.jumps.walks((grid, bits), from, targets, &mut self.settled)
            }
            _ => self.cell_walks(grid, from, targets, backward),
        }
    }

    /// [`Scratch::walks`] over every cell.
    fn cell_walks(
        &mut self,
        grid: &NavGrid,
        from: GridPos,
        targets: &[GridPos],
        backward: bool,
    ) -> Vec<f64> {
        if is_hex(grid) {
            return self.hex_walks(grid, from, targets, backward);
        }
        // On the grid's padded arrays (walls all round: no bounds to check).
        let cells = grid.padded_costs();
        self.costs.clear();
        self.costs.resize(grid.padded_len(), f64::INFINITY);
        self.wanted.clear();
        self.wanted.resize(grid.padded_len(), false);
        self.heap.clear();
        let mut left = 0usize;
        for &t in targets {
            if grid.in_bounds(t) && !std::mem::replace(&mut self.wanted[grid.index(t)], true) {
                left += 1;
            }
        }
        let directions = if grid.neighborhood() == Neighborhood::Four { 0..4 } else { 0..8 };
        let start = grid.index(from);
        self.costs[start] = 0.0;
        self.heap.push(Reverse((0f64.to_bits(), start as u32)));
        while let Some(Reverse((bits, at))) = self.heap.pop() {
            let (g, i) = (f64::from_bits(bits), at as usize);
            if g > self.costs[i] {
                continue;
            }
            self.settled += 1;
            if self.wanted[i] {
                self.wanted[i] = false;
                left -= 1;
                if left == 0 {
                    break;
                }
            }
            for d in directions.clone() {
                let step = if backward {
                    // The step into this cell from the neighbour in direction d (one-way edges
                    // make it differ from the step out).
                    let (dx, dy) = DIRECTIONS[d];
                    let j = (i as isize + dx + dy * grid.stride() as isize) as usize;
                    (cells[j] != 0)
                        .then(|| grid.step(j, reverse(grid.neighborhood(), d)))
                        .flatten()
                        .map(|(_, len)| (j, len))
                } else {
                    grid.step(i, d)
                };
                let Some((j, len)) = step else { continue };
                // A step costs its length times the cost of the cell it enters.
                let g2 = g + len * f64::from(cells[if backward { i } else { j }]);
                if g2 < self.costs[j] {
                    self.costs[j] = g2;
                    self.heap.push(Reverse((g2.to_bits(), j as u32)));
                }
            }
        }
        let cost =
            |t: GridPos| if grid.in_bounds(t) { self.costs[grid.index(t)] } else { f64::INFINITY };
        targets.iter().map(|&t| cost(t)).collect()
    }

    /// [`Scratch::walks`] on a hex grid, through its neighbours.
    fn hex_walks(
        &mut self,
        grid: &NavGrid,
        from: GridPos,
        targets: &[GridPos],
        backward: bool,
    ) -> Vec<f64> {
        let w = grid.width() as usize;
        let index = |p: GridPos| p.y as usize * w + p.x as usize;
        self.costs.clear();
        self.costs.resize(grid.len(), f64::INFINITY);
        self.heap.clear();
        let mut wanted: Vec<bool> = vec![false; grid.len()];
        let mut left = 0usize;
        for &t in targets {
            if grid.in_bounds(t) && !std::mem::replace(&mut wanted[index(t)], true) {
                left += 1;
            }
        }
        self.costs[index(from)] = 0.0;
        self.heap.push(Reverse((0f64.to_bits(), index(from) as u32)));
        while let Some(Reverse((bits, at))) = self.heap.pop() {
            let (g, i) = (f64::from_bits(bits), at as usize);
            if g > self.costs[i] {
                continue;
            }
            self.settled += 1;
            if wanted[i] {
                wanted[i] = false;
                left -= 1;
                if left == 0 {
                    break;
                }
            }
            let pos = GridPos::new((i % w) as u32, (i / w) as u32);
            // Backward: the steps into this cell (its length times this cell's cost).
            let (into, out) = match backward {
                true => (Some(grid.predecessors(pos)), None),
                false => (None, Some(grid.neighbors(pos))),
            };
            for (next, step) in into.into_iter().flatten().chain(out.into_iter().flatten()) {
                let j = index(next);
                let g2 = g + step;
                if g2 < self.costs[j] {
                    self.costs[j] = g2;
                    self.heap.push(Reverse((g2.to_bits(), j as u32)));
                }
            }
        }
        targets
            .iter()
            .map(|&t| if grid.in_bounds(t) { self.costs[index(t)] } else { f64::INFINITY })
            .collect()
    }
}

impl WorldGraph {
    /// The default spacing of nodes along a seam (see [`WorldGraph::new`]).
    pub const DEFAULT_SPACING: u32 = 8;

    /// A graph with a node every `spacing` cells along each open stretch of a seam (and at both
    /// ends of each): closer nodes make paths closer to the cheapest and each grid's part of
    /// the graph dearer to work out (quadratic in its nodes). 0 counts as 1.
    pub fn new(spacing: u32) -> Self {
        Self {
            spacing: spacing.max(1),
            chunks: HashMap::new(),
            layout: Layout::default(),
            made_from: Vec::new(),
            made_links: Vec::new(),
            seams: Seams::default(),
            waiting: 0,
            work: 0,
            pathfinder: Pathfinder::new(),
            scratch: Scratch::default(),
        }
    }

    /// The bytes it keeps: the nodes of each grid and the walks between them.
    pub fn memory_bytes(&self) -> usize {
        let seams = self.seams.memory_bytes();
        let chunks: usize = self
            .chunks
            .values()
            .map(|c| {
                std::mem::size_of::<Chunk>()
                    + c.nodes.capacity() * std::mem::size_of::<GridPos>()
                    + c.costs.capacity() * 8
                    + c.pruned.capacity()
                    + c.done.capacity()
                    + c.due.capacity()
            })
            .sum();
        let l = &self.layout;
        chunks
            + seams
            + l.first.capacity() * 4
            + l.cells.capacity() * std::mem::size_of::<GridPos>()
            + l.map_of.capacity() * 4
            + l.out_first.capacity() * 4
            + l.out.capacity() * std::mem::size_of::<(u32, f64, Across)>()
    }

    /// How many nodes the graph has (after the last query).
    pub fn node_count(&self) -> usize {
        self.layout.cells.len()
    }

    /// The graph as it stands, to draw: each node as its grid (by its place in the world's
    /// grids) and cell, and each edge as the two nodes it joins (by their place in the list):
    /// the walks kept within each grid (one edge for either way) and the steps between grids
    /// (across seams and links, each way its own edge).
    pub fn sketch(&self) -> GraphSketch {
        let layout = &self.layout;
        let nodes: Vec<(usize, GridPos)> =
            layout.map_of.iter().zip(&layout.cells).map(|(&m, &c)| (m as usize, c)).collect();
        let mut edges = Vec::new();
        for (from, bounds) in layout.out_first.windows(2).enumerate() {
            let steps = layout.out.get(bounds[0] as usize..bounds[1] as usize).unwrap_or(&[]);
            edges.extend(steps.iter().map(|&(to, ..)| (from, to as usize)));
        }
        for (g, (stamp, _)) in self.made_from.iter().enumerate() {
            let (Some(chunk), Some(&first)) = (self.chunks.get(&stamp.id()), layout.first.get(g))
            else {
                continue;
            };
            let (first, k) = (first as usize, chunk.nodes.len());
            if layout.cells.get(first..first + k) != Some(&chunk.nodes[..]) {
                continue; // (not worked out for this layout yet)
            }
            for i in 0..k {
                let walked =
                    |j: usize| chunk.walk(i, j).is_finite() || chunk.walk(j, i).is_finite();
                let walks = (i + 1..k).filter(|&j| walked(j));
                edges.extend(walks.map(|j| (first + i, first + j)));
            }
        }
        (nodes, edges)
    }

    /// Works out the nodes again if the grids, places or links changed since the last time,
    /// and each grid's walks between its nodes if that grid or its nodes changed (a grid whose
    /// cells are as they were keeps the walks between the nodes it still has).
    /// [`WorldGraph::find`] works out only the grids its search reaches; see
    /// [`WorldGraph::update_within`] to spread the work over frames ahead of queries.
    pub fn update(&mut self, world: LinkedMaps<'_>) {
        self.update_within(world, u64::MAX);
    }

    /// As [`WorldGraph::update`], with about `work` units of work (8 a cell its walks settle,
    /// as a [`SlicedBuild`](crate::search::SlicedBuild)'s search over every cell counts): it
    /// works out grids' walks, one walk at a time (one Dijkstra over its grid: out of a node,
    /// or into a node new to a grid that kept its other walks), until that is spent, one walk
    /// at least (the rest wait for the next call, or for a query that reaches them). True when
    /// nothing is left to work out. Call it each frame while chunks stream in, to keep that
    /// work out of the queries; [`WorldGraph::work`] says how much it has done.
    pub fn update_within(&mut self, world: LinkedMaps<'_>, work: u64) -> bool {
        if self.lay_out_again(world) && self.waiting == 0 {
            return true;
        }
        let (mut done, mut waiting, mut walked) = (0u64, 0usize, false);
        for (m, grid) in world.maps.iter().enumerate() {
            let (layout, chunks, scratch) = (&self.layout, &mut self.chunks, &mut self.scratch);
            while !walked || done < work {
                let chunk = chunk_for(layout, chunks, (m, grid));
                let Some(walk) = chunk.next() else {
                    break;
                };
                let before = scratch.settled;
                chunk.take(scratch, grid, walk);
                walked = true;
                done += u64::from(scratch.settled.wrapping_sub(before)) * CELL_WORK;
            }
            waiting += usize::from(!ready(layout, chunks, m, grid));
        }
        self.work += done;
        self.waiting = waiting;
        waiting == 0
    }

    /// The work [`WorldGraph::update_within`] has done so far, in its units.
    pub fn work(&self) -> u64 {
        self.work
    }

    /// Works out the nodes again if the grids, places or links changed (true when they did
    /// not); the walks of the grids whose nodes changed are then due.
    pub(super) fn lay_out_again(&mut self, world: LinkedMaps<'_>) -> bool {
        let same = world.maps.len() == self.made_from.len()
            && world.maps.iter().enumerate().zip(&self.made_from).all(|((m, g), &(s, p))| {
                g.stamp() == s && world.places.get(m).copied().flatten() == p
            })
            && world.links == self.made_links.as_slice();
        if same {
            return true;
        }
        self.made_from = world
            .maps
            .iter()
            .enumerate()
            .map(|(m, g)| (g.stamp(), world.places.get(m).copied().flatten()))
            .collect();
        self.made_links = world.links.to_vec();
        // Only the grids of this world are kept.
        let ids: HashSet<u64> = world.maps.iter().map(|g| g.stamp().id()).collect();
        self.layout = self.seams.lay_out(world, self.spacing);
        self.chunks.retain(|id, _| ids.contains(id));
        self.waiting = world.maps.len();
        false
    }
}

/// A lower bound on the cost from a cell to the goal: the distance on the lattice times the
/// cheapest cell, where both lie on one world, capped by the cheapest link (which may lead
/// anywhere).
#[derive(Debug)]
pub(super) struct Estimate {
    heuristic: Heuristic,
    places: Vec<Option<Placement>>,
    goal: Option<(u32, i64, i64)>,
    scale: f64,
    cap: f64,
}

impl Estimate {
    pub(super) fn new(world: LinkedMaps<'_>, goal: MapPos, links: &[Link]) -> Self {
        let place = |m: usize| world.places.get(m).copied().flatten();
        let goal_grid = world.maps[goal.map];
        let goal_at = place(goal.map).filter(|_| !is_hex(goal_grid)).map(|p| {
            let (x, y) = p.of(goal.cell);
            (p.world, x, y)
        });
        // Manhattan distance only where every grid of the goal's world moves four ways.
        let four = (0..world.maps.len())
            .filter(|&m| place(m).zip(goal_at).is_some_and(|(p, g)| p.world == g.0))
            .all(|m| world.maps[m].neighborhood() == Neighborhood::Four);
        let moves = if four { Neighborhood::Four } else { Neighborhood::Eight };
        let heuristic = Heuristic::default_for(moves);
        let scale = world
            .maps
            .iter()
            .map(|g| f64::from(g.min_cost().unwrap_or(1)))
            .fold(f64::INFINITY, f64::min);
        let cap = links.iter().map(|l| l.cost).filter(|c| *c >= 0.0).fold(f64::INFINITY, f64::min);
        let places = world.places.to_vec();
        Self { heuristic, places, goal: goal_at, scale, cap }
    }

    pub(super) fn at(&self, at: MapPos) -> f64 {
        let Some((world, gx, gy)) = self.goal else { return 0.0 };
        let Some(p) = self.places.get(at.map).copied().flatten().filter(|p| p.world == world)
        else {
            return 0.0;
        };
        let (x, y) = p.of(at.cell);
        let walk =
            self.heuristic.distance(apart(x.saturating_sub(gx)), apart(y.saturating_sub(gy)));
        let walk = walk * self.scale;
        walk.min(self.cap)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::{Cell, Edge};
    use crate::test_rng::TestRng;

    /// A random 8-way grid without corner cutting: walls, on some rounds terrain in patches, on
    /// some walls between cells and one-way edges.
    fn random_grid(rng: &mut TestRng, round: u32) -> NavGrid {
        let (w, h) = (4 + rng.below(40), 4 + rng.below(40));
        let mut grid = NavGrid::new(w, h).unwrap();
        let density = rng.below(35);
        let terrain = round % 2 == 1;
        for pos in grid.positions().collect::<Vec<_>>() {
            if rng.below(100) < density {
                grid.set(pos, Cell::Blocked).unwrap();
            }
        }
        for _ in 0..if terrain { 1 + rng.below(3) } else { 0 } {
            let min = GridPos::new(rng.below(w), rng.below(h));
            let max = GridPos::new(min.x + rng.below(w - min.x), min.y + rng.below(h - min.y));
            let cell = Cell::Passable { cost: 2 + rng.below(3) };
            let inside =
                |p: &GridPos| (min.x..=max.x).contains(&p.x) && (min.y..=max.y).contains(&p.y);
            let patch: Vec<GridPos> =
                grid.positions().filter(|p| inside(p) && grid.is_passable(*p)).collect();
            for pos in patch {
                grid.set(pos, cell).unwrap();
            }
        }
        if round % 3 == 2 {
            for _ in 0..rng.below(w * h / 4) {
                let a = GridPos::new(rng.below(w), rng.below(h));
                let b = match rng.below(2) {
                    0 => GridPos::new(a.x + 1, a.y),
                    _ => GridPos::new(a.x, a.y + 1),
                };
                let edge = if rng.below(2) == 0 { Edge::Wall } else { Edge::OneWay };
                // Off the grid: refused, as it should be; the round goes on without it.
                let _ = grid.set_edge(a, b, edge);
            }
        }
        grid
    }

    /// The walks by jump points cost what the walks over every cell cost, forward and backward,
    /// to every kind of target (blocked, off the grid, twice, the start itself), on grids with
    /// terrain, walls between cells and one-way edges; and they settle far fewer points.
    #[test]
    fn walks_by_jump_points_cost_what_walks_over_cells_cost() {
        let mut rng = TestRng(0x5eed_0054);
        let (mut scratch, mut plain) = (Scratch::default(), Scratch::default());
        // Walks by jump points, forward and backward, and the points and cells they settled.
        let mut by_jumps = [0u32; 2];
        let (mut settled, mut settled_over_cells) = (0u64, 0u64);
        for round in 0..300 {
            let grid = random_grid(&mut rng, round);
            let open: Vec<GridPos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
            if open.is_empty() {
                continue;
            }
            let pick = |rng: &mut TestRng| open[rng.below(open.len() as u32) as usize];
            let from = pick(&mut rng);
            let mut targets: Vec<GridPos> = (0..rng.below(24)).map(|_| pick(&mut rng)).collect();
            targets.push(GridPos::new(rng.below(grid.width()), rng.below(grid.height())));
            targets.push(GridPos::new(grid.width() + rng.below(3), 0));
            if let Some(&t) = targets.first() {
                targets.push(t);
            }
            if round % 4 == 0 {
                targets.push(from);
            }
            for backward in [false, true] {
                scratch.settled = 0;
                plain.settled = 0;
                let got = scratch.walks(&grid, from, &targets, backward);
                let want = plain.cell_walks(&grid, from, &targets, backward);
                for (k, (&a, &b)) in got.iter().zip(&want).enumerate() {
                    let same = (a.is_infinite() && b.is_infinite())
                        || (a - b).abs() <= 1e-9 * b.abs().max(1.0);
                    assert!(
                        same,
                        "round {round}, backward {backward}: {from:?} to {:?} costs {a}, over \
                         cells {b}",
                        targets[k]
                    );
                }
                if jump_bits(&grid, backward).is_some() {
                    by_jumps[usize::from(backward)] += 1;
                    settled += u64::from(scratch.settled);
                    settled_over_cells += u64::from(plain.settled);
                }
            }
        }
        // Most walks went by jump points: forward on every kind of grid (but where the cost
        // changes from cell to cell), backward where every step costs the same both ways.
        assert!(by_jumps[0] > 200 && by_jumps[1] > 60, "walks by jump points: {by_jumps:?}");
        assert!(
            settled * 3 < settled_over_cells,
            "{settled} jump points settled against {settled_over_cells} cells"
        );
    }
}
