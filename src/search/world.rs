//! Worlds of grids laid side by side on one lattice (chunks): the steps across their seams, and
//! a hierarchical search over them ([`WorldGraph`]) whose work grows with the number of chunks a
//! path crosses rather than with the cells between its ends.
//!
//! The hierarchical search is HPA* (Botea, Müller and Schaeffer, 2004) in the shape this crate
//! needs:
//! - each grid is a chunk; its *nodes* are some cells on its border where a straight step
//!   crosses into a touching grid (both ends of every run of such crossings, and every
//!   `spacing`-th cell between), plus both ends of every link;
//! - the cost between two nodes of one grid is the cheapest walk on that grid (a search per
//!   node, kept until the grid or its nodes change);
//! - a query walks from its start to the nodes of its grid and from the nodes of the goal's grid
//!   to the goal, searches the graph of nodes (A* with the lattice distance as its estimate),
//!   and then finds the walk between each pair of nodes on their grid.
//!
//! Paths are not always the cheapest: they cross each seam at a node. Every run of crossings has
//! a node, so a path is found exactly when one exists. `BENCHMARKS.md` quotes how much dearer
//! they are on the public maps.

use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashMap};

use super::linked::{Lattice, Leg, Link, LinkedMaps, LinkedPath, MapPos, Placement, apart};
use super::options::Heuristic;
use super::pathfinder::Pathfinder;
use super::precomputed::slices::CELL_WORK;
use super::query::PathQuery;
use super::result::{PathError, PathResult, SearchStats};
use super::seams::is_hex;
use crate::grid::{DIRECTIONS, GridPos, GridStamp, NavGrid, Neighborhood, reverse};

/// Whether grid `m`'s walks between its nodes are worked out for the grid as it is.
fn ready(layout: &Layout, chunks: &HashMap<u64, Chunk>, m: usize, grid: &NavGrid) -> bool {
    let nodes = &layout.cells[layout.first[m] as usize..layout.first[m + 1] as usize];
    let chunk = chunks.get(&grid.stamp().id());
    chunk.is_some_and(|c| c.stamp == grid.stamp() && c.nodes == nodes)
}

/// Works out grid `m`'s walks between its nodes: one Dijkstra from each node.
fn build(
    layout: &Layout,
    chunks: &mut HashMap<u64, Chunk>,
    scratch: &mut Scratch,
    m: usize,
    grid: &NavGrid,
) {
    let nodes = &layout.cells[layout.first[m] as usize..layout.first[m + 1] as usize];
    let mut costs = Vec::with_capacity(nodes.len() * nodes.len());
    for &node in nodes {
        costs.extend(scratch.walks(grid, node, nodes, false));
    }
    prune(&mut costs, nodes.len());
    chunks.insert(grid.stamp().id(), Chunk { stamp: grid.stamp(), nodes: nodes.to_vec(), costs });
}

/// Drops from a grid's `n` x `n` walks between nodes each walk that passing another node costs
/// no more than (its cost stays that of the two walks through that node): the graph's
/// distances stay the same with far fewer edges to try. Every walk costs at least 1 (one step
/// onto a cell of cost 1 or more), so no two walks are each dropped for the other.
fn prune(costs: &mut [f64], n: usize) {
    let full = costs.to_vec();
    for i in 0..n {
        for j in 0..n {
            let cost = full[i * n + j];
            if i == j || !cost.is_finite() {
                continue;
            }
            let tolerance = 1e-9 * cost.max(1.0);
            let through = |k: usize| full[i * n + k] + full[k * n + j] <= cost + tolerance;
            if (0..n).any(|k| k != i && k != j && through(k)) {
                costs[i * n + j] = f64::INFINITY;
            }
        }
    }
}

/// What a step between two nodes of different grids is.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Across {
    Seam,
    Link(usize),
}

/// One grid's nodes and the cheapest walk between each pair, for the grid as it was.
#[derive(Debug)]
struct Chunk {
    stamp: GridStamp,
    nodes: Vec<GridPos>,
    /// Row `i`, column `j`: the cost from node `i` to node `j` (infinite: no walk, or one
    /// through another node costs as little, see [`prune`]).
    costs: Vec<f64>,
}

/// The nodes of every grid and the steps between grids, for the grids, places and links as
/// they were.
#[derive(Debug, Default)]
struct Layout {
    /// Each grid's first node in the numbering of all nodes (and one past the end).
    first: Vec<u32>,
    /// Each node's cell.
    cells: Vec<GridPos>,
    /// Each node's grid.
    map_of: Vec<u32>,
    /// The steps out of each node to nodes of other grids (or through a link): start into
    /// `out`, by node.
    out_first: Vec<u32>,
    out: Vec<(u32, f64, Across)>,
}

/// A hierarchical search over grids joined at their seams (see [`Placement`]) and by links:
/// paths across a world of chunks in time that grows with the chunks crossed (see the module
/// above for how, and `BENCHMARKS.md` for how close to the cheapest its paths are).
///
/// Keep one and ask it again: each grid's nodes and the walks between them are kept until that
/// grid, its neighbours or the links change, and only those grids are worked out again.
#[derive(Debug)]
pub struct WorldGraph {
    spacing: u32,
    chunks: HashMap<u64, Chunk>,
    layout: Layout,
    /// What the layout was made from.
    made_from: Vec<(GridStamp, Option<Placement>)>,
    made_links: Vec<Link>,
    /// Grids whose walks are still to be worked out.
    waiting: usize,
    /// Work done by [`WorldGraph::update_within`] so far, in its units.
    work: u64,
    pathfinder: Pathfinder,
    scratch: Scratch,
}

impl Default for WorldGraph {
    fn default() -> Self {
        Self::new(WorldGraph::DEFAULT_SPACING)
    }
}

/// A Dijkstra's buffers, reused.
#[derive(Debug, Default)]
struct Scratch {
    costs: Vec<f64>,
    wanted: Vec<bool>,
    /// Cells by the cost to reach them (as the bits of a non-negative `f64`, which order as
    /// the numbers do): a smaller entry than a general one, for the chunks' many walks.
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    settled: u32,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    f: f64,
    g: f64,
    at: u32,
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
    /// of them to `from` (backward). It stops once every target is settled.
    fn walks(
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
            waiting: 0,
            work: 0,
            pathfinder: Pathfinder::new(),
            scratch: Scratch::default(),
        }
    }

    /// The bytes it keeps: the nodes of each grid and the walks between them.
    pub fn memory_bytes(&self) -> usize {
        let chunks: usize = self
            .chunks
            .values()
            .map(|c| {
                std::mem::size_of::<Chunk>()
                    + c.nodes.capacity() * std::mem::size_of::<GridPos>()
                    + c.costs.capacity() * 8
            })
            .sum();
        let l = &self.layout;
        chunks
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

    /// Works out the nodes again if the grids, places or links changed since the last time,
    /// and each grid's walks between its nodes if that grid or its nodes changed.
    /// [`WorldGraph::find`] works out only the grids its search reaches; see
    /// [`WorldGraph::update_within`] to spread the work over frames ahead of queries.
    pub fn update(&mut self, world: LinkedMaps<'_>) {
        self.update_within(world, u64::MAX);
    }

    /// As [`WorldGraph::update`], with about `work` units of work (8 a cell its walks settle,
    /// as a [`SlicedBuild`](super::SlicedBuild)'s search over every cell counts): it works out
    /// grids' walks until that is spent, one grid at least (the rest wait for the next call, or
    /// for a query that reaches them). True when nothing is left to work out. Call it each frame
    /// while chunks stream in, to keep that work out of the queries; [`WorldGraph::work`] says
    /// how much it has done.
    pub fn update_within(&mut self, world: LinkedMaps<'_>, work: u64) -> bool {
        if self.lay_out_again(world) && self.waiting == 0 {
            return true;
        }
        let (mut done, mut waiting, mut built) = (0u64, 0usize, false);
        for (m, grid) in world.maps.iter().enumerate() {
            if ready(&self.layout, &self.chunks, m, grid) {
                continue;
            }
            if built && done >= work {
                waiting += 1;
                continue;
            }
            let before = self.scratch.settled;
            build(&self.layout, &mut self.chunks, &mut self.scratch, m, grid);
            built = true;
            done += u64::from(self.scratch.settled.wrapping_sub(before)) * CELL_WORK;
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
    fn lay_out_again(&mut self, world: LinkedMaps<'_>) -> bool {
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
        self.layout = self.lay_out(world);
        // Only the grids of this world are kept.
        let ids: std::collections::HashSet<u64> =
            world.maps.iter().map(|g| g.stamp().id()).collect();
        self.chunks.retain(|id, _| ids.contains(id));
        self.waiting = world.maps.len();
        false
    }

    /// The nodes of every grid and the steps between grids.
    fn lay_out(&self, world: LinkedMaps<'_>) -> Layout {
        let maps = world.maps;
        let lattice = Lattice::new(maps, world.places);
        // The straight crossings, by (from grid, to grid, direction), with their place along
        // the seam.
        type Side = (usize, usize, (i64, i64));
        let mut runs: HashMap<Side, Vec<(i64, MapPos, MapPos, f64)>> = HashMap::new();
        lattice.crossings(maps, false, |from, to, len, dir| {
            let cost = maps[to.map].cost(to.cell).map_or(f64::INFINITY, f64::from) * len;
            let along = if dir.0 != 0 { i64::from(from.cell.y) } else { i64::from(from.cell.x) };
            runs.entry((from.map, to.map, dir)).or_default().push((along, from, to, cost));
        });
        let mut steps: Vec<(MapPos, MapPos, f64, Across)> = Vec::new();
        let spacing = i64::from(self.spacing);
        for crossings in runs.values_mut() {
            crossings.sort_by_key(|c| c.0);
            let mut begin = 0;
            // Two crossings side by side are one stretch when a walk along the seam joins them
            // both ways on both sides (walls between cells may cut it).
            let along_both = |p: MapPos, q: MapPos| {
                let grid = maps[p.map];
                grid.can_step(p.cell, q.cell) && grid.can_step(q.cell, p.cell)
            };
            let joined = |a: &(i64, MapPos, MapPos, f64), b: &(i64, MapPos, MapPos, f64)| {
                b.0 == a.0 + 1 && along_both(a.1, b.1) && along_both(a.2, b.2)
            };
            while begin < crossings.len() {
                let mut end = begin + 1;
                while end < crossings.len() && joined(&crossings[end - 1], &crossings[end]) {
                    end += 1;
                }
                for (i, &(along, from, to, cost)) in crossings[begin..end].iter().enumerate() {
                    let first = crossings[begin].0;
                    if i == 0 || i == end - begin - 1 || (along - first) % spacing == 0 {
                        steps.push((from, to, cost, Across::Seam));
                    }
                }
                begin = end;
            }
        }
        let open = |at: MapPos| maps.get(at.map).is_some_and(|g| g.is_passable(at.cell));
        for (k, link) in world.links.iter().enumerate() {
            for (from, to) in link.ways() {
                if open(from) && open(to) && link.cost.is_finite() && link.cost >= 0.0 {
                    steps.push((from, to, link.cost, Across::Link(k)));
                }
            }
        }
        // The nodes: both ends of each step, by grid.
        let mut ends: Vec<MapPos> = steps.iter().flat_map(|s| [s.0, s.1]).collect();
        ends.sort_unstable_by_key(|p| (p.map, p.cell.y, p.cell.x));
        ends.dedup();
        let mut first = vec![0u32; maps.len() + 1];
        for p in &ends {
            first[p.map + 1] += 1;
        }
        for m in 0..maps.len() {
            first[m + 1] += first[m];
        }
        let id = |p: MapPos| {
            let key = (p.map, p.cell.y, p.cell.x);
            ends.binary_search_by_key(&key, |q| (q.map, q.cell.y, q.cell.x)).map(|i| i as u32)
        };
        let mut out: Vec<(u32, u32, f64, Across)> = steps
            .iter()
            .filter_map(|&(from, to, cost, across)| {
                Some((id(from).ok()?, id(to).ok()?, cost, across))
            })
            .collect();
        out.sort_by_key(|o| o.0);
        let mut out_first = vec![0u32; ends.len() + 1];
        for o in &out {
            out_first[o.0 as usize + 1] += 1;
        }
        for n in 0..ends.len() {
            out_first[n + 1] += out_first[n];
        }
        Layout {
            first,
            cells: ends.iter().map(|p| p.cell).collect(),
            map_of: ends.iter().map(|p| p.map as u32).collect(),
            out_first,
            out: out.into_iter().map(|(_, to, cost, across)| (to, cost, across)).collect(),
        }
    }

    /// A path from `start` to `goal` over `world`'s grids, its seams (where it has places) and
    /// its links: found exactly when one exists, not always the cheapest (see the module).
    /// A leg's [`Leg::then`] is the link taken after it, or `None` where the next leg begins
    /// one step away across a seam (and on the last leg).
    ///
    /// Errors as the other searches: a start or goal off its grid or blocked, no such grid, no
    /// way ([`PathError::Unreachable`]).
    pub fn find(
        &mut self,
        world: LinkedMaps<'_>,
        start: MapPos,
        goal: MapPos,
    ) -> Result<LinkedPath, PathError> {
        let maps = world.maps;
        let grid_of =
            |at: MapPos| maps.get(at.map).copied().ok_or(PathError::NoSuchMap { map: at.map });
        let (from_grid, to_grid) = (grid_of(start)?, grid_of(goal)?);
        if !from_grid.in_bounds(start.cell) {
            let (width, height) = (from_grid.width(), from_grid.height());
            return Err(PathError::StartOutOfBounds { start: start.cell, width, height });
        }
        if !to_grid.in_bounds(goal.cell) {
            let (width, height) = (to_grid.width(), to_grid.height());
            return Err(PathError::GoalOutOfBounds { goal: goal.cell, width, height });
        }
        if !from_grid.is_passable(start.cell) {
            return Err(PathError::StartBlocked { start: start.cell });
        }
        if !to_grid.is_passable(goal.cell) {
            return Err(PathError::GoalBlocked { goal: goal.cell });
        }
        self.lay_out_again(world);
        self.scratch.settled = 0;
        let Self { layout: l, chunks, scratch, .. } = self;
        let nodes_of = |m: usize| l.first[m] as usize..l.first[m + 1] as usize;
        let cells_of = |m: usize| &l.cells[nodes_of(m)];
        // From the start to its grid's nodes (and the goal on the same grid), and from the
        // goal's grid's nodes to the goal.
        let mut targets = cells_of(start.map).to_vec();
        targets.push(goal.cell);
        let from_start = scratch.walks(from_grid, start.cell, &targets, false);
        let direct =
            if goal.map == start.map { from_start[targets.len() - 1] } else { f64::INFINITY };
        let to_goal = scratch.walks(to_grid, goal.cell, cells_of(goal.map), true);

        // A* over the nodes; node `n` is n, the start `count`, the goal `count + 1`.
        let count = l.cells.len();
        let (start_id, goal_id) = (count as u32, count as u32 + 1);
        let estimate = Estimate::new(world, goal, &self.made_links);
        let h = |n: usize| estimate.at(MapPos::new(l.map_of[n] as usize, l.cells[n]));
        let mut g = vec![f64::INFINITY; count + 2];
        let mut before: Vec<(u32, Option<Across>)> = vec![(u32::MAX, None); count + 2];
        let mut heap = BinaryHeap::new();
        g[start_id as usize] = 0.0;
        let mut expanded = 0u32;
        let mut reach = |heap: &mut BinaryHeap<Entry>,
                         g: &mut Vec<f64>,
                         to: u32,
                         cost: f64,
                         from: u32,
                         across: Option<Across>,
                         h: f64| {
            if cost < g[to as usize] {
                g[to as usize] = cost;
                before[to as usize] = (from, across);
                heap.push(Entry { f: cost + h, g: cost, at: to });
            }
        };
        if direct.is_finite() {
            reach(&mut heap, &mut g, goal_id, direct, start_id, None, 0.0);
        }
        for (i, n) in nodes_of(start.map).enumerate() {
            if from_start[i].is_finite() {
                reach(&mut heap, &mut g, n as u32, from_start[i], start_id, None, h(n));
            }
        }
        while let Some(Entry { g: at_g, at, .. }) = heap.pop() {
            if at_g > g[at as usize] {
                continue;
            }
            if at == goal_id {
                break;
            }
            expanded += 1;
            let n = at as usize;
            let m = l.map_of[n] as usize;
            if m == goal.map {
                let i = n - l.first[m] as usize;
                if to_goal[i].is_finite() {
                    reach(&mut heap, &mut g, goal_id, at_g + to_goal[i], at, None, 0.0);
                }
            }
            // Walks to the other nodes of its grid (worked out now if not yet).
            if !ready(l, chunks, m, maps[m]) {
                build(l, chunks, scratch, m, maps[m]);
            }
            let chunk = &chunks[&maps[m].stamp().id()];
            let k = chunk.nodes.len();
            let i = n - l.first[m] as usize;
            for (j, &cost) in chunk.costs[i * k..(i + 1) * k].iter().enumerate() {
                if j != i && cost.is_finite() {
                    let to = l.first[m] + j as u32;
                    reach(&mut heap, &mut g, to, at_g + cost, at, None, h(to as usize));
                }
            }
            for &(to, cost, across) in &l.out[l.out_first[n] as usize..l.out_first[n + 1] as usize]
            {
                reach(&mut heap, &mut g, to, at_g + cost, at, Some(across), h(to as usize));
            }
        }
        if !g[goal_id as usize].is_finite() {
            return Err(PathError::Unreachable { start: start.cell, goal: goal.cell });
        }
        // Back from the goal: the nodes passed, each with how it was reached.
        let mut points: Vec<(MapPos, Option<Across>)> = Vec::new();
        let mut at = goal_id;
        loop {
            let pos = match at {
                _ if at == start_id => start,
                _ if at == goal_id => goal,
                n => MapPos::new(l.map_of[n as usize] as usize, l.cells[n as usize]),
            };
            let (from, across) = before[at as usize];
            points.push((pos, across));
            if at == start_id {
                break;
            }
            at = from;
        }
        points.reverse();
        let cost = g[goal_id as usize];
        let settled = self.scratch.settled;
        let legs = self.refine(maps, &points)?;
        let stats = SearchStats { expanded: expanded + settled, ..SearchStats::default() };
        let mut found = LinkedPath { legs, cost, stats };
        // Start and goal on two grids side by side: the graph crosses their seam at a node,
        // which on a short way can be far off it; the cheapest walk over those two grids alone
        // is taken when it is cheaper.
        if let Some(near) = self.over_two(world, start, goal) {
            let work = found.stats.expanded + near.stats.expanded;
            if near.cost < found.cost - 1e-9 * found.cost.max(1.0) {
                found = near;
            }
            found.stats.expanded = work;
        }
        if let Some(first) = found.legs.first_mut() {
            first.path.stats = found.stats;
        }
        Ok(found)
    }

    /// The cheapest path from `start` to `goal` over their two grids alone, joined at their
    /// seam, when they are two grids that touch.
    fn over_two(
        &mut self,
        world: LinkedMaps<'_>,
        start: MapPos,
        goal: MapPos,
    ) -> Option<LinkedPath> {
        if start.map == goal.map {
            return None;
        }
        let pair = [world.maps[start.map], world.maps[goal.map]];
        let place = |m: usize| world.places.get(m).copied().flatten();
        let (a, b) = (place(start.map)?, place(goal.map)?);
        // Their boxes on the lattice touch (or overlap) when each reaches the other's edge.
        let reaches = |p: Placement, len: u32, q: Placement| p.x.saturating_add(len.into()) >= q.x;
        let reaches_up =
            |p: Placement, len: u32, q: Placement| p.y.saturating_add(len.into()) >= q.y;
        let touch = a.world == b.world
            && reaches(a, pair[0].width(), b)
            && reaches(b, pair[1].width(), a)
            && reaches_up(a, pair[0].height(), b)
            && reaches_up(b, pair[1].height(), a);
        if !touch {
            return None;
        }
        let places = [Some(a), Some(b)];
        // (Placed on one world, the two join at their seam.)
        let both = LinkedMaps::new(&pair, &[]).with_places(&places);
        let query = PathQuery::new(MapPos::new(0, start.cell), MapPos::new(1, goal.cell));
        let mut near = self.pathfinder.find(both, &query).ok()?;
        for leg in &mut near.legs {
            leg.map = if leg.map == 0 { start.map } else { goal.map };
            leg.then = None;
        }
        Some(near)
    }

    /// The walks between the nodes passed, on their grids, cut into legs where a seam or link
    /// is crossed.
    fn refine(
        &mut self,
        maps: &[&NavGrid],
        points: &[(MapPos, Option<Across>)],
    ) -> Result<Vec<Leg>, PathError> {
        let mut legs = Vec::new();
        let (mut map, mut cells, mut cost) = (points[0].0.map, vec![points[0].0.cell], 0.0);
        for pair in points.windows(2) {
            let (from, (to, across)) = (pair[0].0, pair[1]);
            match across {
                None => {
                    if to.cell != from.cell {
                        let walk =
                            self.pathfinder.find(maps[map], &PathQuery::new(from.cell, to.cell))?;
                        cost += walk.cost;
                        cells.extend_from_slice(&walk.cells[1..]);
                    }
                }
                Some(across) => {
                    let path = PathResult {
                        cells: std::mem::replace(&mut cells, vec![to.cell]),
                        cost,
                        stats: SearchStats::default(),
                        complete: true,
                        neighborhood: maps[map].neighborhood(),
                    };
                    let then = match across {
                        Across::Seam => None,
                        Across::Link(k) => Some(k),
                    };
                    legs.push(Leg { map, path, then });
                    (map, cost) = (to.map, 0.0);
                }
            }
        }
        let path = PathResult {
            cells,
            cost,
            stats: SearchStats::default(),
            complete: true,
            neighborhood: maps[map].neighborhood(),
        };
        legs.push(Leg { map, path, then: None });
        Ok(legs)
    }
}

/// A lower bound on the cost from a cell to the goal: the distance on the lattice times the
/// cheapest cell, where both lie on one world, capped by the cheapest link (which may lead
/// anywhere).
struct Estimate {
    heuristic: Heuristic,
    places: Vec<Option<Placement>>,
    goal: Option<(u32, i64, i64)>,
    scale: f64,
    cap: f64,
}

impl Estimate {
    fn new(world: LinkedMaps<'_>, goal: MapPos, links: &[Link]) -> Self {
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

    fn at(&self, at: MapPos) -> f64 {
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
