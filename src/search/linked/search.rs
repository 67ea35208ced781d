//! One A* over every cell of every grid, a link being one more step (see the module above).

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::Arc;

use super::super::goal::GUIDED_GOALS;
use super::super::options::SearchOptions;
use super::super::query::{Goals, SearchStep};
use super::super::result::{PathError, PathResult, SearchStats};
use super::bounds::{EXACT_EXITS, ExitBound, LatticeBound};
use super::exits::{exact_exits, many_exits};
use super::jumps::{Jumps, cells_between};
use super::maps::{Leg, LinkedPath, MapPos, Placement};
use super::mix::MixSet;
use super::prep::LinkedPrep;
use crate::grid::{GridPos, NavGrid, Neighborhood};

/// An open-list entry: a cell of a grid reached at cost `g`, ordered by `f` (ties: the
/// deeper first).
#[derive(Clone, Copy, Debug)]
struct Open {
    f: f64,
    g: f64,
    at: MapPos,
}

impl PartialEq for Open {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Open {}

impl PartialOrd for Open {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Open {
    fn cmp(&self, other: &Self) -> Ordering {
        other.f.total_cmp(&self.f).then_with(|| self.g.total_cmp(&other.g))
    }
}

/// What the search knows of a cell: its best cost so far, the step into it (the cell before,
/// as its grid and index there, and the link taken from there, if one was), and whether it is
/// closed. Kept per grid in flat arrays, made when the search first reaches that grid.
#[derive(Clone, Copy, Debug)]
struct Reached {
    g: f64,
    from_map: u32,
    from_cell: u32,
    link: u32,
    closed: bool,
}

/// Nothing: no cell, no link.
const NONE: u32 = u32::MAX;
/// In [`Reached::link`]: the step into the cell crossed a seam between two placed grids.
const SEAM: u32 = u32::MAX - 1;

impl Reached {
    const UNSEEN: Self =
        Self { g: f64::INFINITY, from_map: NONE, from_cell: NONE, link: NONE, closed: false };
}

/// Every grid's cells as the search knows them. A pathfinder keeps them from one search to the
/// next: only the cells a search reached are made unseen again, not every cell of its grids.
#[derive(Clone, Debug, Default)]
pub(crate) struct Nodes {
    grids: Vec<Vec<Reached>>,
    widths: Vec<u32>,
    /// The cells reached, as (grid, index).
    touched: Vec<(u32, u32)>,
}

impl Nodes {
    /// These nodes made ready for a search over `maps`: every cell unseen.
    fn ready_for(mut self, maps: &[&NavGrid]) -> Self {
        for &(map, index) in &self.touched {
            if let Some(node) =
                self.grids.get_mut(map as usize).and_then(|grid| grid.get_mut(index as usize))
            {
                *node = Reached::UNSEEN;
            }
        }
        self.touched.clear();
        self.grids.resize(maps.len(), Vec::new());
        for (grid, map) in self.grids.iter_mut().zip(maps) {
            if grid.len() != map.len() {
                *grid = Vec::new(); // made when the search first reaches that grid
            }
        }
        self.widths = maps.iter().map(|g| g.width()).collect();
        self
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        let cells: usize = self.grids.iter().map(Vec::capacity).sum();
        cells * std::mem::size_of::<Reached>() + self.touched.capacity() * 8
    }

    fn index(&self, at: MapPos) -> usize {
        at.cell.y as usize * self.widths[at.map] as usize + at.cell.x as usize
    }

    fn get(&self, at: MapPos) -> Reached {
        self.grids[at.map].get(self.index(at)).copied().unwrap_or(Reached::UNSEEN)
    }

    fn get_mut(&mut self, maps: &[&NavGrid], at: MapPos) -> &mut Reached {
        let index = self.index(at);
        let grid = &mut self.grids[at.map];
        if grid.is_empty() {
            grid.resize(maps[at.map].len(), Reached::UNSEEN);
        }
        if grid[index].g == f64::INFINITY {
            // First reached (every change made through here gives it a finite cost).
            self.touched.push((at.map as u32, index as u32));
        }
        &mut grid[index]
    }

    /// The cell before `at` on the way the search found, and how the step from it was made: a
    /// link's index, [`SEAM`] or [`NONE`] (a step on one grid).
    fn before(&self, at: MapPos) -> Option<(MapPos, u32)> {
        let node = self.get(at);
        (node.from_map != NONE).then(|| {
            let (map, width) = (node.from_map as usize, self.widths[node.from_map as usize]);
            let cell = GridPos::new(node.from_cell % width, node.from_cell / width);
            (MapPos::new(map, cell), node.link)
        })
    }
}

/// A search through links that runs in slices ([`step`](Self::step)), for callers that spread
/// long searches over frames. It keeps the links it was made with; the grids must be the same
/// on every step (a grid that changed in between ends it with [`PathError::GridChanged`]).
#[derive(Clone, Debug)]
pub(crate) struct LinkedSearch {
    /// What it works out from the grids and links alone: the ways that can be taken now, by
    /// entrance; the seams; where jump point search stops.
    prep: Arc<LinkedPrep>,
    start: MapPos,
    /// The open goals it may end at, the estimate's (empty past `GUIDED_GOALS`: it is then
    /// 0 on their grids), and the goal named in errors.
    goals: MixSet<MapPos>,
    guide: Vec<MapPos>,
    /// Whether each grid holds a goal.
    goal_maps: Vec<bool>,
    named: MapPos,
    options: SearchOptions,
    avoid: MixSet<MapPos>,
    /// Each grid's lower bound on the cost of leaving it through a link.
    exits: Vec<ExitBound>,
    /// Over grids placed on one world's lattice: the distance on the lattice.
    lattice: Option<LatticeBound>,
    /// Where jump point search stops for this query besides the entrances: its goals, and
    /// next to its avoided cells.
    jumps: Jumps,
    open: BinaryHeap<Open>,
    reached: Nodes,
    stats: SearchStats,
    /// Set when it has ended (further steps answer the same).
    ended: Option<Result<LinkedPath, PathError>>,
}

impl LinkedSearch {
    /// Begins a search for the cheapest path from `start` to a goal of `goals` (one, or the
    /// nearest of several) over `maps` joined by `links`, with the cells in `avoid` walled for
    /// it (never the start or a goal). `options`: the weight scales the estimate (each path
    /// then within that factor of the cheapest), the limits bound the expansions and the cost;
    /// partial paths are not made across links. Bad input (a cell off its grid or blocked, a
    /// link with a bad end or cost, a weight below 1) is an error here.
    pub(crate) fn new(
        (maps, prep, places): (&[&NavGrid], &Arc<LinkedPrep>, &[Option<Placement>]),
        start: MapPos,
        goals: Goals<'_, MapPos>,
        options: &SearchOptions,
        avoid: &[MapPos],
        nodes: Nodes,
    ) -> Result<Self, PathError> {
        let grid_of =
            |at: MapPos| maps.get(at.map).copied().ok_or(PathError::NoSuchMap { map: at.map });
        let one = [match goals {
            Goals::One(goal) => goal,
            Goals::Nearest(goals) => goals.first().copied().unwrap_or(start),
        }];
        let asked: &[MapPos] = match goals {
            Goals::One(_) => &one,
            Goals::Nearest(goals) => goals,
        };
        let start_grid = grid_of(start)?;
        for &goal in asked {
            grid_of(goal)?;
        }
        let (width, height) = (start_grid.width(), start_grid.height());
        if !start_grid.in_bounds(start.cell) {
            return Err(PathError::StartOutOfBounds { start: start.cell, width, height });
        }
        for &goal in asked {
            let goal_grid = maps[goal.map];
            let (width, height) = (goal_grid.width(), goal_grid.height());
            if !goal_grid.in_bounds(goal.cell) {
                return Err(PathError::GoalOutOfBounds { goal: goal.cell, width, height });
            }
        }
        if !start_grid.is_passable(start.cell) {
            return Err(PathError::StartBlocked { start: start.cell });
        }
        let Some(&first) = asked.first() else {
            return Err(PathError::NoGoals);
        };
        let open_goals: Vec<MapPos> =
            asked.iter().copied().filter(|g| maps[g.map].is_passable(g.cell)).collect();
        let Some(&named) = open_goals.first() else {
            return Err(PathError::GoalBlocked { goal: first.cell });
        };
        if !(options.weight.is_finite() && options.weight >= 1.0) {
            return Err(PathError::InvalidWeight { weight: options.weight });
        }
        if let Some(max_cost) = options.limit.max_cost
            && (max_cost.is_nan() || max_cost < 0.0)
        {
            return Err(PathError::InvalidCostLimit { max_cost });
        }
        let ways = &prep.ways;
        let heuristics = &prep.heuristics;
        // From each way's exit, a lower bound on the rest of the way to the goal: walking there
        // on the goal's grid, or taking another way (worked out over the ways when they are
        // few; with many, the cheapest way out of the exit's grid stands in for the rest).
        let walk = |a: MapPos, b: MapPos| {
            let (heuristic, scale) = heuristics[a.map];
            heuristic.estimate(maps[a.map].neighborhood(), a.cell, b.cell) * scale
        };
        let guide: Vec<MapPos> =
            if open_goals.len() <= GUIDED_GOALS { open_goals.clone() } else { Vec::new() };
        let goal_maps: Vec<bool> =
            (0..maps.len()).map(|m| open_goals.iter().any(|g| g.map == m)).collect();
        let direct = |x: MapPos| match goal_maps[x.map] {
            false => f64::INFINITY,
            true if guide.is_empty() => 0.0,
            true => guide
                .iter()
                .filter(|g| g.map == x.map)
                .map(|&g| walk(x, g))
                .fold(f64::INFINITY, f64::min),
        };
        let exits = if ways.len() <= EXACT_EXITS {
            exact_exits(maps, prep, heuristics, &direct)
        } else {
            many_exits(maps, prep, (heuristics, &guide), &direct)
        };
        let lattice = LatticeBound::new(maps, places, &guide, ways, heuristics[named.map].0);
        let kept = |at: MapPos| at == start || open_goals.contains(&at);
        let jumps = Jumps::new(prep, maps, &open_goals, avoid, kept);
        let mut search = Self {
            jumps,
            lattice,
            prep: Arc::clone(prep),
            start,
            goals: open_goals.iter().copied().collect(),
            guide,
            goal_maps,
            named,
            options: SearchOptions { partial: false, ..*options },
            avoid: avoid.iter().copied().collect(),
            exits,
            open: BinaryHeap::new(),
            reached: nodes.ready_for(maps),
            stats: SearchStats::default(),
            ended: None,
        };
        for kept in open_goals.iter().chain([&start]) {
            search.avoid.remove(kept);
        }
        // (Across seams the components are not joined up ahead: the search finds out.)
        if prep.seams.is_none() && !prep.reachable(maps, start, &open_goals) {
            let goal = named.cell;
            search.ended = Some(Err(PathError::Unreachable { start: start.cell, goal }));
            return Ok(search);
        }
        search.reached.get_mut(maps, start).g = 0.0;
        search.open.push(Open { f: search.estimate(maps, start), g: 0.0, at: start });
        search.stats.pushed = 1;
        Ok(search)
    }

    /// A lower bound on the cost from `at` to the goal (its walking part x the weight): a
    /// path either walks to the goal on this grid or leaves it through a link. Infinite where
    /// neither can be (no link leaves another grid): such cells are not searched. On a grid
    /// that touches others of its world, a path may leave it across any seam: the distance on
    /// the lattice bounds it (0 when the goal lies off the world).
    fn estimate(&self, maps: &[&NavGrid], at: MapPos) -> f64 {
        if self.prep.seams.as_ref().is_some_and(|s| s.is_joined(at.map)) {
            return self.lattice.as_ref().map_or(0.0, |lattice| lattice.at(at));
        }
        let (heuristic, scale) = self.prep.heuristics[at.map];
        let grid = maps[at.map];
        let walk = if !self.goal_maps[at.map] {
            f64::INFINITY
        } else if self.guide.is_empty() {
            0.0
        } else {
            self.guide
                .iter()
                .filter(|g| g.map == at.map)
                .map(|g| heuristic.estimate(grid.neighborhood(), at.cell, g.cell))
                .fold(f64::INFINITY, f64::min)
                * scale
                * self.options.weight
        };
        let estimate =
            walk.min(self.exits[at.map].at(maps[at.map].neighborhood(), heuristic, scale, at.cell));
        match &self.lattice {
            Some(lattice) => estimate.max(lattice.at(at)),
            None => estimate,
        }
    }

    /// A step on `grid` from `at` to `cell` (one the grid allows) passes this query's avoided
    /// cells: on a square grid a diagonal step beside one obeys the grid's corner rule as
    /// beside a wall.
    fn passes(&self, grid: &NavGrid, at: MapPos, cell: GridPos) -> bool {
        if self.avoid.is_empty()
            || grid.neighborhood() != Neighborhood::Eight
            || cell.x == at.cell.x
            || cell.y == at.cell.y
        {
            return true;
        }
        let side_open = |side: GridPos| {
            grid.is_passable(side) && !self.avoid.contains(&MapPos::new(at.map, side))
        };
        let (a, b) = (GridPos::new(cell.x, at.cell.y), GridPos::new(at.cell.x, cell.y));
        grid.corner_rule().allows_diagonal(side_open(a), side_open(b))
    }

    /// Goes on for at most `budget` expansions (at least one) on the same `maps` it began on.
    pub(crate) fn step(&mut self, maps: &[&NavGrid], budget: u32) -> SearchStep<LinkedPath> {
        if let Some(ended) = &self.ended {
            return SearchStep::Done(ended.clone());
        }
        // The grids as they were when it began (its prep was made from them as they were).
        let stamps = &self.prep.stamps;
        let same = maps.len() == stamps.len()
            && maps.iter().zip(stamps).all(|(grid, stamp)| grid.stamp() == *stamp);
        if !same {
            return self.end(Err(PathError::GridChanged));
        }
        let limit = self.options.limit.max_expansions.unwrap_or(u32::MAX);
        let max_cost = self.options.limit.max_cost.unwrap_or(f64::INFINITY);
        let mut left = budget.max(1);
        let mut next: Vec<(MapPos, f64, u32)> = Vec::with_capacity(8);
        let mut reads: Vec<f64> = Vec::with_capacity(8);
        while let Some(Open { g, at, .. }) = self.open.pop() {
            let node = self.reached.get(at);
            if node.closed || g > node.g {
                continue;
            }
            if self.goals.contains(&at) {
                let found = self.unwind(maps, at);
                return self.end(Ok(found));
            }
            if self.stats.expanded >= limit {
                return self.end(Err(PathError::LimitExceeded { expanded: self.stats.expanded }));
            }
            self.reached.get_mut(maps, at).closed = true;
            self.stats.expanded += 1;
            let grid = maps[at.map];
            next.clear();
            if self.prep.jumps_on(at.map) {
                // The cell before, when the step in was one on this grid: runs go on from it.
                let parent = self
                    .reached
                    .before(at)
                    .filter(|&(before, link)| link == NONE && before.map == at.map)
                    .map(|(before, _)| before.cell);
                self.jumps.successors((&self.prep, grid), at, parent, |cell, cost| {
                    next.push((MapPos::new(at.map, cell), cost, NONE));
                });
            } else {
                let steps =
                    grid.neighbors(at.cell).filter(|&(cell, _)| self.passes(grid, at, cell));
                next.extend(steps.map(|(cell, cost)| (MapPos::new(at.map, cell), cost, NONE)));
            }
            if let Some(seams) = &self.prep.seams {
                seams.steps_out(maps, at, true, |to, len, _| {
                    let cost = maps[to.map].cost(to.cell).map_or(f64::INFINITY, f64::from);
                    next.push((to, len * cost, SEAM));
                });
            }
            if let Some(&(first, count)) = self.prep.way_index.get(&at) {
                let ways = &self.prep.ways[first as usize..(first + count) as usize];
                next.extend(ways.iter().map(|&(_, exit, cost, k)| (exit, cost, k as u32)));
            }
            let from_cell = self.reached.index(at) as u32;
            // Each successor's cost so far, read for all of them first: loads that do not
            // wait on each other (the nodes of far jump points and link exits are seldom in
            // the cache), where the loop below would wait on each in turn. A cost only falls,
            // so one read early and not below `g2` rules the successor out as a read now would.
            reads.clear();
            reads.extend(next.iter().map(|&(to, ..)| self.reached.get(to).g));
            for (&(to, cost, link), &read) in next.iter().zip(&reads) {
                let g2 = g + cost;
                if g2 > max_cost || (!self.avoid.is_empty() && self.avoid.contains(&to)) {
                    continue;
                }
                // A cheaper way to a closed cell opens it again: the estimate of links taken
                // by blocks of cells is admissible but not consistent.
                if read <= g2 || self.reached.get(to).g <= g2 {
                    continue;
                }
                let h = self.estimate(maps, to);
                if h == f64::INFINITY {
                    continue; // no way to the goal from there
                }
                *self.reached.get_mut(maps, to) =
                    Reached { g: g2, from_map: at.map as u32, from_cell, link, closed: false };
                let f = g2 + h;
                self.open.push(Open { f, g: g2, at: to });
                self.stats.pushed += 1;
            }
            left -= 1;
            if left == 0 {
                return SearchStep::Paused { expanded: self.stats.expanded };
            }
        }
        let (start, goal) = (self.start.cell, self.named.cell);
        self.end(Err(PathError::Unreachable { start, goal }))
    }

    /// Its nodes, for the next search to use (this one is left without).
    pub(crate) fn take_nodes(&mut self) -> Nodes {
        std::mem::take(&mut self.reached)
    }

    fn end(&mut self, result: Result<LinkedPath, PathError>) -> SearchStep<LinkedPath> {
        self.open.clear();
        self.ended = Some(result.clone());
        SearchStep::Done(result)
    }

    /// The path to the goal, read back through the steps into each cell: a walk per grid, cut
    /// where a link was taken.
    fn unwind(&self, maps: &[&NavGrid], goal: MapPos) -> LinkedPath {
        // Back from the goal: each cell, its cost so far, and how the step into it was made.
        let mut trail: Vec<(MapPos, f64, u32)> = Vec::new();
        let mut at = goal;
        loop {
            let g = self.reached.get(at).g;
            match self.reached.before(at) {
                Some((before, link)) => {
                    trail.push((at, g, link));
                    at = before;
                }
                None => {
                    trail.push((at, g, NONE));
                    break;
                }
            }
        }
        trail.reverse();
        let mut legs = Vec::new();
        let mut cells = Vec::new();
        let mut leg_start = 0.0;
        let mut map = self.start.map;
        for (k, &(pos, g, link)) in trail.iter().enumerate() {
            if link != NONE {
                // A link taken, or a seam crossed, from the cell before: the walk so far ends
                // there (a seam's leg names no link).
                let end_g = trail[k - 1].1;
                let path = PathResult {
                    cells: std::mem::take(&mut cells),
                    cost: end_g - leg_start,
                    stats: SearchStats::default(),
                    complete: true,
                    neighborhood: maps[map].neighborhood(),
                };
                let then = (link != SEAM).then_some(link as usize);
                legs.push(Leg { map, path, then });
                leg_start = g;
                map = pos.map;
            }
            if link == NONE && k > 0 {
                // A jump point search's run: the cells it passed over.
                cells.extend(cells_between(trail[k - 1].0.cell, pos.cell));
            }
            cells.push(pos.cell);
        }
        let cost = trail.last().map_or(0.0, |t| t.1);
        let path = PathResult {
            cells,
            cost: cost - leg_start,
            stats: SearchStats::default(),
            complete: true,
            neighborhood: maps[map].neighborhood(),
        };
        legs.push(Leg { map, path, then: None });
        if let Some(first) = legs.first_mut() {
            first.path.stats = self.stats;
        }
        LinkedPath { legs, cost, stats: self.stats }
    }
}
