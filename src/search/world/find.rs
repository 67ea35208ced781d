//! A query over the [`WorldGraph`], whole ([`WorldGraph::find`]) or a slice at a time
//! ([`WorldGraph::find_within`] with a [`WorldFind`]), a step a slice: the walks to the goal,
//! then from the start, on their grids; the A* over the nodes, a node a step (working out the
//! walks from that node to its grid's other nodes if not yet); the walk between each pair of
//! nodes passed; and the cheapest walk over two touching grids when start and goal lie on them
//! (itself in slices). Each step is bounded by one walk over one grid, whatever the number of
//! grids or of nodes on a grid.

use std::collections::BinaryHeap;

use super::graph::{Entry, Estimate, WorldGraph, walk_from};
use super::layout::Across;
use crate::grid::{GridPos, NavGrid};
use crate::search::linked::{Leg, LinkedMaps, LinkedPath, MapPos, Placement};
use crate::search::query::PathQuery;
use crate::search::result::{PathError, PathResult, SearchStats};
use crate::search::{Pathfinder, SearchStep};

/// A query over a [`WorldGraph`] spread over calls of [`WorldGraph::find_within`]: where it
/// stands.
#[derive(Debug)]
pub struct WorldFind {
    start: MapPos,
    goal: MapPos,
    stage: Stage,
    /// Nodes expanded and cells settled so far.
    expanded: u32,
}

#[derive(Debug)]
enum Stage {
    /// Not begun.
    Begin,
    /// The walks from the goal's grid's nodes to the goal are done (`to_goal`); those from the
    /// start come next.
    FromStart { to_goal: Vec<f64> },
    /// The A* over the nodes: node `n` is n, the start `count`, the goal `count + 1`.
    Graph {
        g: Vec<f64>,
        before: Vec<(u32, Option<Across>)>,
        heap: BinaryHeap<Entry>,
        /// From each node of the goal's grid to the goal.
        to_goal: Vec<f64>,
        /// The estimate to the goal (made once a query).
        estimate: Estimate,
    },
    /// The walks between the nodes passed: the next pair is `next - 1, next`.
    /// `cost`: the path's, as the A* over the nodes found it.
    Refine {
        points: Vec<(MapPos, Option<Across>)>,
        next: usize,
        legs: Vec<Leg>,
        walk: Walk,
        cost: f64,
    },
    /// The path over the graph is walked; a walk over two touching grids may beat it (searched
    /// with `near`, `None` until begun).
    Near { found: LinkedPath, near: Option<Box<Pathfinder>> },
    /// Ended (asked again, it says so).
    Ended,
}

/// The leg being walked: its grid, its cells and their cost.
#[derive(Debug)]
struct Walk {
    map: usize,
    cells: Vec<GridPos>,
    cost: f64,
}

impl Walk {
    fn leg(self, maps: &[&NavGrid], then: Option<usize>) -> Leg {
        let neighborhood = maps[self.map].neighborhood();
        let stats = SearchStats::default();
        let path =
            PathResult { cells: self.cells, cost: self.cost, stats, complete: true, neighborhood };
        Leg { map: self.map, path, then }
    }
}

impl WorldFind {
    /// A query from `start` to `goal`, not begun.
    pub fn new(start: MapPos, goal: MapPos) -> Self {
        Self { start, goal, stage: Stage::Begin, expanded: 0 }
    }

    /// Nodes expanded and cells settled so far.
    pub fn expanded(&self) -> u32 {
        self.expanded
    }
}

/// The start's or goal's grid, or the error if it is off its grid or blocked.
fn end_grid<'a>(
    maps: &[&'a NavGrid],
    at: MapPos,
    is_start: bool,
) -> Result<&'a NavGrid, PathError> {
    let grid = maps.get(at.map).copied().ok_or(PathError::NoSuchMap { map: at.map })?;
    let (width, height) = (grid.width(), grid.height());
    match (grid.in_bounds(at.cell), grid.is_passable(at.cell), is_start) {
        (false, _, true) => Err(PathError::StartOutOfBounds { start: at.cell, width, height }),
        (false, _, false) => Err(PathError::GoalOutOfBounds { goal: at.cell, width, height }),
        (true, false, true) => Err(PathError::StartBlocked { start: at.cell }),
        (true, false, false) => Err(PathError::GoalBlocked { goal: at.cell }),
        (true, true, _) => Ok(grid),
    }
}

impl WorldGraph {
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
        let mut find = WorldFind::new(start, goal);
        loop {
            if let SearchStep::Done(result) = self.find_within(world, &mut find, u32::MAX) {
                return result;
            }
        }
    }

    /// Goes on with `find` for about `work` nodes expanded and cells settled (at least one
    /// step: the walks to the goal or from the start, one node, or the walk between two nodes;
    /// each within one grid). The answer is [`WorldGraph::find`]'s. If the grids, their places
    /// or the links changed since `find` began: [`PathError::GridChanged`] (begin again).
    pub fn find_within(
        &mut self,
        world: LinkedMaps<'_>,
        find: &mut WorldFind,
        work: u32,
    ) -> SearchStep<LinkedPath> {
        let began = find.expanded;
        let same = self.lay_out_again(world);
        if !same && !matches!(find.stage, Stage::Begin) {
            find.stage = Stage::Ended;
            return SearchStep::Done(Err(PathError::GridChanged));
        }
        loop {
            let step = match std::mem::replace(&mut find.stage, Stage::Ended) {
                Stage::Begin => self.begin_find(world, find),
                Stage::FromStart { to_goal } => self.walk_from_start(world, find, to_goal),
                Stage::Graph { g, before, heap, to_goal, estimate } => {
                    self.expand_node(world, find, (g, before, heap, to_goal, estimate))
                }
                Stage::Refine { points, next, legs, walk, cost } => {
                    self.walk_pair(world, find, (points, next, legs, walk, cost))
                }
                Stage::Near { found, near } => {
                    let left = work.saturating_sub(find.expanded - began);
                    Self::nearer(world, find, (found, near), left)
                }
                Stage::Ended => Err(PathError::GridChanged),
            };
            match step {
                Err(error) => return SearchStep::Done(Err(error)),
                Ok(Some(found)) => return SearchStep::Done(Ok(found)),
                Ok(None) if find.expanded.saturating_sub(began) >= work => {
                    return SearchStep::Paused { expanded: find.expanded };
                }
                Ok(None) => {}
            }
        }
    }

    /// The walks from the goal's grid's nodes to the goal.
    fn begin_find(
        &mut self,
        world: LinkedMaps<'_>,
        find: &mut WorldFind,
    ) -> Result<Option<LinkedPath>, PathError> {
        let goal = find.goal;
        end_grid(world.maps, find.start, true)?;
        let to_grid = end_grid(world.maps, goal, false)?;
        self.scratch.settled = 0;
        let l = &self.layout;
        let nodes = &l.cells[l.first[goal.map] as usize..l.first[goal.map + 1] as usize];
        let to_goal = self.scratch.walks(to_grid, goal.cell, nodes, true);
        find.expanded += self.scratch.settled;
        find.stage = Stage::FromStart { to_goal };
        Ok(None)
    }

    /// The walks from the start to its grid's nodes (and to the goal on the same grid); the A*
    /// over the nodes begins.
    fn walk_from_start(
        &mut self,
        world: LinkedMaps<'_>,
        find: &mut WorldFind,
        to_goal: Vec<f64>,
    ) -> Result<Option<LinkedPath>, PathError> {
        let (start, goal) = (find.start, find.goal);
        let from_grid = end_grid(world.maps, start, true)?;
        self.scratch.settled = 0;
        let Self { layout: l, scratch, .. } = self;
        let nodes_of = |m: usize| l.first[m] as usize..l.first[m + 1] as usize;
        let mut targets = l.cells[nodes_of(start.map)].to_vec();
        let same = goal.map == start.map;
        if same {
            targets.push(goal.cell);
        }
        let from_start = scratch.walks(from_grid, start.cell, &targets, false);
        let direct = if same { from_start[targets.len() - 1] } else { f64::INFINITY };
        let count = l.cells.len();
        let (start_id, goal_id) = (count as u32, count as u32 + 1);
        let estimate = Estimate::new(world, goal, &self.made_links);
        let mut g = vec![f64::INFINITY; count + 2];
        let mut before: Vec<(u32, Option<Across>)> = vec![(u32::MAX, None); count + 2];
        let mut heap = BinaryHeap::new();
        g[start_id as usize] = 0.0;
        let mut reach = |to: u32, cost: f64, h: f64| {
            if cost < g[to as usize] {
                g[to as usize] = cost;
                before[to as usize] = (start_id, None);
                heap.push(Entry { f: cost + h, g: cost, at: to });
            }
        };
        if direct.is_finite() {
            reach(goal_id, direct, 0.0);
        }
        for (i, n) in nodes_of(start.map).enumerate() {
            if from_start[i].is_finite() {
                let h = estimate.at(MapPos::new(start.map, l.cells[n]));
                reach(n as u32, from_start[i], h);
            }
        }
        find.expanded += self.scratch.settled;
        find.stage = Stage::Graph { g, before, heap, to_goal, estimate };
        Ok(None)
    }

    /// The A* over the nodes expands one node (working out its grid's walks if not yet), or
    /// ends: the walks between the nodes passed begin.
    fn expand_node(
        &mut self,
        world: LinkedMaps<'_>,
        find: &mut WorldFind,
        (mut g, mut before, mut heap, to_goal, estimate): Graph,
    ) -> Result<Option<LinkedPath>, PathError> {
        let maps = world.maps;
        let (start, goal) = (find.start, find.goal);
        let count = self.layout.cells.len();
        let goal_id = count as u32 + 1;
        let Some(Entry { g: at_g, at, .. }) = heap.pop() else {
            return Err(PathError::Unreachable { start: start.cell, goal: goal.cell });
        };
        if at == goal_id {
            let points = self.points_back(&before, find);
            let walk = Walk { map: points[0].0.map, cells: vec![points[0].0.cell], cost: 0.0 };
            let cost = g[goal_id as usize];
            find.stage = Stage::Refine { points, next: 1, legs: Vec::new(), walk, cost };
            return Ok(None);
        }
        if at_g > g[at as usize] {
            find.stage = Stage::Graph { g, before, heap, to_goal, estimate };
            return Ok(None);
        }
        find.expanded += 1;
        let Self { layout: l, chunks, scratch, .. } = self;
        let settled = scratch.settled;
        let mut reach = |to: u32, cost: f64, across: Option<Across>, h: f64| {
            if cost < g[to as usize] {
                g[to as usize] = cost;
                before[to as usize] = (at, across);
                heap.push(Entry { f: cost + h, g: cost, at: to });
            }
        };
        let h = |n: usize| estimate.at(MapPos::new(l.map_of[n] as usize, l.cells[n]));
        let n = at as usize;
        let m = l.map_of[n] as usize;
        let i = n - l.first[m] as usize;
        if m == goal.map && to_goal[i].is_finite() {
            reach(goal_id, at_g + to_goal[i], None, 0.0);
        }
        // Walks to the other nodes of its grid (worked out now if not yet: from this node
        // alone, so that a step's work is one walk over one grid).
        walk_from(l, chunks, scratch, (m, maps[m]), i);
        let chunk = &chunks[&maps[m].stamp().id()];
        let k = chunk.nodes.len();
        for (j, cost) in (0..k).map(|j| (j, chunk.walk(i, j))) {
            if j != i && cost.is_finite() {
                let to = l.first[m] + j as u32;
                reach(to, at_g + cost, None, h(to as usize));
            }
        }
        for &(to, cost, across) in &l.out[l.out_first[n] as usize..l.out_first[n + 1] as usize] {
            reach(to, at_g + cost, Some(across), h(to as usize));
        }
        find.expanded += scratch.settled.wrapping_sub(settled);
        find.stage = Stage::Graph { g, before, heap, to_goal, estimate };
        Ok(None)
    }

    /// The nodes passed, from the start to the goal, each with how it was reached.
    fn points_back(
        &self,
        before: &[(u32, Option<Across>)],
        find: &WorldFind,
    ) -> Vec<(MapPos, Option<Across>)> {
        let l = &self.layout;
        let count = l.cells.len();
        let (start_id, goal_id) = (count as u32, count as u32 + 1);
        let mut points = Vec::new();
        let mut at = goal_id;
        loop {
            let pos = match at {
                _ if at == start_id => find.start,
                _ if at == goal_id => find.goal,
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
        points
    }

    /// The walk between the next pair of nodes passed, on their grid (a leg ends where a seam
    /// or link is crossed); after the last, the path over the graph.
    fn walk_pair(
        &mut self,
        world: LinkedMaps<'_>,
        find: &mut WorldFind,
        (points, next, mut legs, mut walk, cost): Refining,
    ) -> Result<Option<LinkedPath>, PathError> {
        let maps = world.maps;
        if next < points.len() {
            let (from, (to, across)) = (points[next - 1].0, points[next]);
            match across {
                None if to.cell != from.cell => {
                    let query = PathQuery::new(from.cell, to.cell);
                    let found = self.pathfinder.find(maps[walk.map], &query)?;
                    find.expanded += found.stats.expanded.max(1);
                    walk.cost += found.cost;
                    walk.cells.extend_from_slice(&found.cells[1..]);
                }
                None => {}
                Some(across) => {
                    let then = match across {
                        Across::Seam => None,
                        Across::Link(k) => Some(k),
                    };
                    let done = std::mem::replace(
                        &mut walk,
                        Walk { map: to.map, cells: vec![to.cell], cost: 0.0 },
                    );
                    legs.push(done.leg(maps, then));
                }
            }
            find.stage = Stage::Refine { points, next: next + 1, legs, walk, cost };
            return Ok(None);
        }
        legs.push(walk.leg(maps, None));
        let stats = SearchStats { expanded: find.expanded, ..SearchStats::default() };
        find.stage = Stage::Near { found: LinkedPath { legs, cost, stats }, near: None };
        Ok(None)
    }

    /// The path found over the graph, or (start and goal on two grids side by side) the
    /// cheapest walk over those two grids alone when it is cheaper: the graph crosses their
    /// seam at a node, which on a short way can be far off it. That walk is searched with a
    /// pathfinder of the query's own (`near`, `None` until begun) for about `work` cells.
    fn nearer(
        world: LinkedMaps<'_>,
        find: &mut WorldFind,
        (mut found, mut near): (LinkedPath, Option<Box<Pathfinder>>),
        work: u32,
    ) -> Result<Option<LinkedPath>, PathError> {
        let begun = near.is_some();
        let pathfinder = near.get_or_insert_with(Box::default);
        let base = found.stats.expanded;
        match over_two(world, (find.start, find.goal), pathfinder, (begun, work)) {
            Some(SearchStep::Paused { expanded }) => {
                find.expanded = base + expanded;
                find.stage = Stage::Near { found, near };
                return Ok(None);
            }
            Some(SearchStep::Done(Ok(walk))) => {
                let total = base + walk.stats.expanded;
                if walk.cost < found.cost - 1e-9 * found.cost.max(1.0) {
                    found = walk;
                }
                found.stats.expanded = total;
            }
            Some(SearchStep::Done(Err(_))) | None => {}
        }
        find.expanded = found.stats.expanded;
        if let Some(first) = found.legs.first_mut() {
            first.path.stats = found.stats;
        }
        Ok(Some(found))
    }
}

/// The cheapest walk from `start` to `goal` over their two grids alone, joined at their seam,
/// when they are two grids that touch (else `None`): begun (`begun` false) or gone on with on
/// `pathfinder` for about `work` cells.
fn over_two(
    world: LinkedMaps<'_>,
    (start, goal): (MapPos, MapPos),
    pathfinder: &mut Pathfinder,
    (begun, work): (bool, u32),
) -> Option<SearchStep<LinkedPath>> {
    if start.map == goal.map {
        return None;
    }
    let pair = [world.maps[start.map], world.maps[goal.map]];
    let place = |m: usize| world.places.get(m).copied().flatten();
    let (a, b) = (place(start.map)?, place(goal.map)?);
    // Their boxes on the lattice touch (or overlap) when each reaches the other's edge.
    let reaches = |p: Placement, len: u32, q: Placement| p.x.saturating_add(len.into()) >= q.x;
    let reaches_up = |p: Placement, len: u32, q: Placement| p.y.saturating_add(len.into()) >= q.y;
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
    let step = match begun {
        true => pathfinder.resume(both, &query, work.max(1)),
        false => pathfinder.start(both, &query, work.max(1)),
    };
    Some(match step {
        SearchStep::Done(found) => SearchStep::Done(found.map(|mut near| {
            for leg in &mut near.legs {
                leg.map = if leg.map == 0 { start.map } else { goal.map };
                leg.then = None;
            }
            near
        })),
        paused => paused,
    })
}

/// The A* over the nodes, as [`Stage::Graph`] holds it.
type Graph = (Vec<f64>, Vec<(u32, Option<Across>)>, BinaryHeap<Entry>, Vec<f64>, Estimate);

/// The walks between nodes, as [`Stage::Refine`] holds them.
type Refining = (Vec<(MapPos, Option<Across>)>, usize, Vec<Leg>, Walk, f64);
