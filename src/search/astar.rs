//! The one A* loop every algorithm shares: an open list (a binary heap, and a stack for
//! successors that keep the lowest f), per-cell state in flat arrays reused from query to query,
//! and the path read back from the parents. What follows a cell is the [`Expansion`]'s to say.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::f64::consts::SQRT_2;

use super::avoided::Avoided;
use super::expansion::Expansion;
use super::goal::Goal;
use super::options::{Heuristic, SearchOptions};
use super::precomputed::landmarks::Landmarks;
use super::result::{PathError, PathResult, SearchStats, SearchTrace};
use crate::grid::line::{segment_cells, segment_cost};
use crate::grid::{GridPos, NavGrid, Neighborhood};

/// An open-list entry. Ordered so that `BinaryHeap` (a max-heap) pops the lowest `f` first,
/// and among equal `f` the highest `g` (the node nearest the goal), which cuts expansions on
/// open ground where many paths tie.
#[derive(Clone, Copy, Debug)]
pub(super) struct OpenNode {
    /// The bits of `f` (never negative, so integer order is numeric order).
    pub(super) f: u64,
    /// The bits of g as an `f32`: only breaks ties between equal `f`.
    pub(super) g: u32,
    pub(super) index: u32,
}

impl OpenNode {
    #[inline]
    pub(super) fn new(f: f64, g: f64, index: usize) -> Self {
        Self { f: f.to_bits(), g: (g as f32).to_bits(), index: index as u32 }
    }
}

impl PartialEq for OpenNode {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for OpenNode {}

impl PartialOrd for OpenNode {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OpenNode {
    fn cmp(&self, other: &Self) -> Ordering {
        other.f.cmp(&self.f).then(self.g.cmp(&other.g))
    }
}

/// One cell's search state. Kept together so that a visit touches one cache line.
#[derive(Clone, Copy, Default)]
pub(super) struct NodeState {
    pub(super) g: f64,
    pub(super) parent: u32,
    /// `generation * 2` when the cell has been seen this query, `generation * 2 + 1` once closed;
    /// anything else means untouched (its `g` and `parent` are stale).
    pub(super) stamp: u32,
}

/// Per-cell search state, reused across queries. A cell's entries are valid only when its stamp
/// belongs to the current generation, so nothing is cleared between queries.
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) generation: u32,
    pub(super) nodes: Vec<NodeState>,
    pub(super) open: BinaryHeap<OpenNode>,
    /// Successors whose f equals that of the cell being expanded: they are expanded next, off
    /// this stack, without going through the heap (see `Pathfinder::search`).
    pub(super) level: Vec<OpenNode>,
    /// Recording of the current search, when one was asked for.
    pub(super) trace: Option<SearchTrace>,
}

impl Scratch {
    /// Makes room for `len` cells and starts a new generation. The room only grows, so that
    /// searches taking turns on grids of different sizes (a linked search) do not clear it.
    pub(super) fn begin(&mut self, len: usize) {
        if self.nodes.len() < len {
            self.nodes.clear();
            self.nodes.resize(len, NodeState::default());
            self.generation = 0;
        }
        self.generation += 1;
        if self.generation >= u32::MAX / 2 {
            self.nodes.fill(NodeState::default());
            self.generation = 1;
        }
        self.open.clear();
        self.level.clear();
    }
}

/// What the search loop keeps between one call and the next.
#[derive(Clone, Copy, Debug)]
pub(super) struct LoopState {
    pub(super) stats: SearchStats,
    /// For partial paths: the expanded cell closest to the goal (closeness, g, padded index).
    pub(super) best: (f64, f64, usize),
    /// A successor was dropped for exceeding the cost limit.
    pub(super) pruned: bool,
}

/// The search loop's answer for one call.
pub(super) enum Outcome {
    Done(Result<PathResult, PathError>),
    Paused(LoopState),
}

/// The one A* loop; `expansion` says which cells follow a cell (its neighbors, or its jump
/// points) and at what cost, `goal` where it may end (one cell, or the nearest of several). `closed_early`: avoided cells the loop itself must keep out of
/// (marked closed before it begins), for expansions that do not know them as walls. With a
/// `budget` it pauses after that many expansions; `resume` goes on from such a pause (the
/// open list and cell states are still in `s`).
#[allow(clippy::too_many_arguments)]
pub(super) fn search<E: Expansion, G: Goal>(
    s: &mut Scratch,
    grid: &NavGrid,
    start: GridPos,
    goal: &G,
    options: &SearchOptions,
    closed_early: Option<&Avoided>,
    expansion: &E,
    resume: Option<LoopState>,
    budget: Option<u32>,
    landmarks: Option<&Landmarks>,
) -> Outcome {
    let heuristic = options.heuristic.unwrap_or(Heuristic::default_for(grid.neighborhood()));
    let h_scale = options.weight * f64::from(grid.min_cost().unwrap_or(1));
    let max_expansions = options.limit.max_expansions.unwrap_or(u32::MAX);
    let max_cost = options.limit.max_cost.unwrap_or(f64::INFINITY);
    // The octile distance times the least terrain cost is exactly what an octile-shaped path
    // over the cheapest ground costs: the heuristic is then exact wherever such a path is
    // clear (the expansion checks both).
    let exact_heuristic =
        heuristic == Heuristic::Octile && options.weight == 1.0 && goal.one().is_some();
    // With a consistent heuristic (never dropping by more than a step costs), f never falls
    // along a path, so a successor whose f equals the expanded cell's is itself a lowest-f
    // cell: expanding it at once is one of A*'s allowed tie orders, and skips the heap's
    // push and pop. Open floor towards the goal is mostly such successors.
    let neighborhood = grid.neighborhood();
    let consistent =
        options.weight == 1.0 && !expansion.any_angle() && heuristic.is_consistent_on(neighborhood);
    let stride = grid.stride();
    // Padded coordinates of the goal (of one goal: only asked then); a cell's padded
    // coordinates are (i % stride, i / stride).
    let (gx, gy) = goal.one().map_or((0, 0), |g| (g.x as isize + 1, g.y as isize + 1));
    // With landmarks, the larger of their bound and the heuristic's (both consistent, so the
    // larger is too).
    let h = |x: isize, y: isize, j: usize| -> f64 {
        let estimate = h_scale * goal.distance(expansion, heuristic, x, y);
        match landmarks {
            Some(landmarks) => estimate.max(
                options.weight * f64::from(goal.landmark_bound(landmarks, j)) * Landmarks::SCALE,
            ),
            None => estimate,
        }
    };
    // For partial paths: the expanded cell closest to the goal, then the cheapest.
    let closeness = |x: isize, y: isize| -> f64 { goal.closeness(expansion, x, y) };

    if resume.is_none() {
        s.begin(grid.padded_len());
    }
    let gen_seen = s.generation * 2;
    let gen_closed = gen_seen + 1;
    let Scratch { nodes, open, level, trace, .. } = s;
    let start_i = grid.index(start);
    // Theta*'s line-of-sight shortcuts must not cross an avoided cell either.
    let crosses_avoided = |a: GridPos, b: GridPos| {
        closed_early.is_some_and(|avoided| {
            segment_cells(grid, a, b)
                .is_none_or(|cells| cells.iter().any(|&c| avoided.is_wall(grid.index(c))))
        })
    };
    let LoopState { mut stats, mut best, mut pruned } = match resume {
        Some(state) => state,
        None => {
            for &i in closed_early.map(Avoided::cells).unwrap_or_default() {
                nodes[i].stamp = gen_closed;
            }
            nodes[start_i] = NodeState { g: 0.0, parent: start_i as u32, stamp: gen_seen };
            let (sx, sy) = (start.x as isize + 1, start.y as isize + 1);
            open.push(OpenNode::new(h(sx, sy, start_i), 0.0, start_i));
            if let Some(trace) = trace.as_mut() {
                trace.opened.push((0, start));
            }
            let stats = SearchStats { expanded: 0, pushed: 1 };
            LoopState { stats, best: (closeness(sx, sy), 0.0, start_i), pruned: false }
        }
    };
    let mut stopped_at_limit = false;
    let pause_at = budget.map(|b| stats.expanded.saturating_add(b));

    loop {
        if pause_at.is_some_and(|at| stats.expanded >= at) {
            return Outcome::Paused(LoopState { stats, best, pruned });
        }
        let Some(node) = level.pop().or_else(|| open.pop()) else {
            break;
        };
        let i = node.index as usize;
        let f_here = f64::from_bits(node.f);
        let state = nodes[i];
        if state.stamp == gen_closed {
            continue; // stale entry: already expanded with a lower g
        }
        if goal.is_goal(i) {
            let path = finish(grid, nodes, start_i, i, stats, true, expansion.any_angle());
            return Outcome::Done(Ok(path));
        }
        if stats.expanded >= max_expansions {
            stopped_at_limit = true;
            break;
        }
        nodes[i].stamp = gen_closed;
        stats.expanded += 1;
        if let Some(trace) = trace.as_mut() {
            let (px, py) = grid.unpad(i);
            trace.expanded.push(GridPos::new(px, py));
        }
        let g_here = state.g;
        let (x, y) = ((i % stride) as isize, (i / stride) as isize);
        // Any-angle (Theta* only; the branch folds away for the others): a successor may
        // hang from this cell's parent when it sees it.
        let grandparent = state.parent as usize;
        let shortcut = (expansion.any_angle() && grandparent != i).then(|| {
            let (px, py) = grid.unpad(grandparent);
            (nodes[grandparent].g, GridPos::new(px, py))
        });
        if options.partial {
            let close = closeness(x, y);
            if close < best.0 || (close == best.0 && g_here < best.1) {
                best = (close, g_here, i);
            }
        }
        // This cell has the lowest f = g + h on the open list, so no path costs less than
        // g + h; when a clear path to the goal costs exactly h, it is optimal: take it.
        if exact_heuristic
            && (i == start_i || x.abs_diff(gx).max(y.abs_diff(gy)) <= DIRECT_NEAR)
            && let Some((turn, to_turn, rest)) = expansion.direct_to_goal(x, y)
            && g_here + rest <= max_cost
            && turn.is_none_or(|t| nodes[t].stamp != gen_closed)
        {
            let mut parent = i;
            let goal_i = (gy as usize) * stride + gx as usize;
            for (cell, g) in
                turn.map(|t| (t, g_here + to_turn)).into_iter().chain([(goal_i, g_here + rest)])
            {
                nodes[cell] = NodeState { g, parent: parent as u32, stamp: gen_seen };
                parent = cell;
                stats.pushed += 1;
                if let Some(trace) = trace.as_mut() {
                    let (cx, cy) = grid.unpad(cell);
                    trace.opened.push((stats.expanded, GridPos::new(cx, cy)));
                }
            }
            let path = finish(grid, nodes, start_i, goal_i, stats, true, expansion.any_angle());
            return Outcome::Done(Ok(path));
        }
        expansion.successors(i, x, y, state.parent as usize, |j, jx, jy, step| {
            let mut g = g_here + step;
            let mut parent = i;
            if let Some((grandparent_g, grandparent_pos)) = shortcut {
                let target = GridPos::new(jx as u32 - 1, jy as u32 - 1);
                if let Some(line) = segment_cost(grid, grandparent_pos, target)
                    && grandparent_g + line < g
                    && !crosses_avoided(grandparent_pos, target)
                {
                    g = grandparent_g + line;
                    parent = grandparent;
                }
            }
            let next = &mut nodes[j];
            if next.stamp == gen_closed || (next.stamp == gen_seen && g >= next.g) {
                return;
            }
            if g > max_cost {
                pruned = true;
                return;
            }
            *next = NodeState { g, parent: parent as u32, stamp: gen_seen };
            let f = g + h(jx, jy, j);
            if consistent && f <= f_here {
                level.push(OpenNode::new(f, g, j));
            } else {
                open.push(OpenNode::new(f, g, j));
            }
            stats.pushed += 1;
            if let Some(trace) = trace.as_mut() {
                trace.opened.push((stats.expanded, GridPos::new(jx as u32 - 1, jy as u32 - 1)));
            }
        });
    }
    if options.partial {
        let path = finish(grid, nodes, start_i, best.2, stats, false, expansion.any_angle());
        return Outcome::Done(Ok(path));
    }
    Outcome::Done(if stopped_at_limit || pruned {
        Err(PathError::LimitExceeded { expanded: stats.expanded })
    } else {
        Err(PathError::Unreachable { start, goal: goal.named() })
    })
}

/// How near the goal (in steps along the longer axis) a cell must be for the search to look
/// for a clear octile-shaped path from it; the start always looks. Farther out the look costs
/// more than it saves on maps where such paths are rare.
const DIRECT_NEAR: usize = 32;

/// Walks parents back from `end`, filling in the cells between jump points, and totals the cost
/// exactly: straight and diagonal steps are summed as integers, then combined.
pub(super) fn finish(
    grid: &NavGrid,
    nodes: &[NodeState],
    start_i: usize,
    end_i: usize,
    stats: SearchStats,
    complete: bool,
    any_angle_edges: bool,
) -> PathResult {
    let costs = grid.padded_costs();
    let stride = grid.stride() as isize;
    // Count the cells first (a run of n steps adds n), so the path is allocated once.
    let mut length = 1;
    let mut i = end_i as isize;
    while i != start_i as isize {
        let p = nodes[i as usize].parent as isize;
        length +=
            (p % stride - i % stride).unsigned_abs().max((p / stride - i / stride).unsigned_abs());
        i = p;
    }
    let mut cells = Vec::with_capacity(length);
    let (mut straight, mut diagonal) = (0u64, 0u64);
    let mut any_angle = 0.0;
    let mut i = end_i as isize;
    let (x, y) = grid.unpad(end_i);
    cells.push(GridPos::new(x, y));
    let hex = match grid.neighborhood() {
        Neighborhood::Hex(coords) => Some(coords),
        _ => None,
    };
    while i != start_i as isize {
        let p = nodes[i as usize].parent as isize;
        let (sx, sy) = (p % stride - i % stride, p / stride - i / stride);
        // On a hex grid every step is one to a neighbour (length 1); anything longer is a
        // Theta* segment.
        let hex_step = hex.map(|coords| {
            let (a, b) = (grid.unpad(p as usize), grid.unpad(i as usize));
            coords.distance(GridPos::new(a.0, a.1), GridPos::new(b.0, b.1)) == 1
        });
        if hex_step == Some(true) {
            straight += u64::from(costs[i as usize]);
            i = p;
            let (x, y) = grid.unpad(i as usize);
            cells.push(GridPos::new(x, y));
            continue;
        }
        if hex_step == Some(false)
            || (any_angle_edges && sx != 0 && sy != 0 && sx.abs() != sy.abs())
        {
            // An any-angle segment (Theta*): its cells, and its cost as the search priced it.
            let (a, b) = (grid.unpad(p as usize), grid.unpad(i as usize));
            let (a, b) = (GridPos::new(a.0, a.1), GridPos::new(b.0, b.1));
            let line = segment_cells(grid, a, b).unwrap_or_default();
            cells.extend(line.iter().rev().skip(1));
            any_angle += segment_cost(grid, a, b).unwrap_or(f64::INFINITY);
            i = p;
            continue;
        }
        // Straight, diagonal, or (jump point search) diagonal from p then straight: step back
        // from i to p a cell at a time, straight along the longer axis first.
        let (mut x, mut y) = (i % stride - 1, i / stride - 1);
        let (ax, ay) = (sx.abs(), sy.abs());
        let (ux, uy) = (sx.signum(), sy.signum());
        let straight_leg = if ax > ay { (ux, 0, ax - ay) } else { (0, uy, ay - ax) };
        for ((dx, dy, n), total) in
            [(straight_leg, &mut straight), ((ux, uy, ax.min(ay)), &mut diagonal)]
        {
            for _ in 0..n {
                *total += u64::from(costs[i as usize]);
                i += dx + dy * stride;
                (x, y) = (x + dx, y + dy);
                cells.push(GridPos::new(x as u32, y as u32));
            }
        }
    }
    cells.reverse();
    let cost = straight as f64 + diagonal as f64 * SQRT_2 + any_angle;
    PathResult { cells, cost, stats, complete, neighborhood: grid.neighborhood() }
}
