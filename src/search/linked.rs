//! Paths across several grids joined by links: stairs between floors, doors between levels,
//! teleporters, ladders, one-way drops.
//!
//! A path through links is a walk on one grid to a link's entrance, the link, a walk on the
//! next grid, and so on. So the search runs on two levels: on top, A* over the places where a
//! walk begins or ends (the start, the goal, link ends); beneath, the ordinary grid search for
//! each walk, which keeps jump point search wherever it applies. A walk is searched only when
//! the top level reaches it (its lower bound, from the grid's own heuristic, is what orders it
//! until then), and component labels skip walks between cells that cannot reach each other.
//! Every walk is the cheapest between its ends and the top level is A* with a consistent
//! heuristic over exact costs, so the whole path is the cheapest one.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

use serde::{Deserialize, Serialize};

use super::Pathfinder;
use super::options::{Algorithm, Heuristic, SearchOptions};
use super::result::{PathError, PathResult, SearchStats};
use crate::grid::{GridPos, NavGrid};

/// A cell on one of several grids: `map` indexes the grids given to
/// [`Pathfinder::find_linked_path`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MapPos {
    /// Which grid: its place in the list of grids given to the search.
    pub map: usize,
    /// The cell on it.
    pub cell: GridPos,
}

impl MapPos {
    /// Cell `cell` of grid number `map`.
    pub fn new(map: usize, cell: GridPos) -> Self {
        Self { map, cell }
    }
}

/// A way from one cell to another that is not a step on a grid: stairs, a door between two
/// levels, a teleporter, a ladder, a jump down a ledge. The two cells may be on one grid or on
/// two. Taking it costs `cost`, which stands in for the cost of entering the far cell. While
/// either cell is blocked the link is not taken.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Link {
    /// One end (where a one-way link is entered).
    pub from: MapPos,
    /// The other end.
    pub to: MapPos,
    /// What taking the link costs, in the units of the grids' cell costs (a finite number, 0
    /// or more).
    pub cost: f64,
    /// Whether it can be taken from `to` to `from` as well.
    pub two_way: bool,
}

impl Link {
    /// A link that can be taken both ways.
    pub fn two_way(from: MapPos, to: MapPos, cost: f64) -> Self {
        Self { from, to, cost, two_way: true }
    }

    /// A link that can be taken from `from` to `to` only.
    pub fn one_way(from: MapPos, to: MapPos, cost: f64) -> Self {
        Self { from, to, cost, two_way: false }
    }

    /// The link's ways, as (entrance, exit): one, or two for a two-way link.
    fn ways(&self) -> impl Iterator<Item = (MapPos, MapPos)> {
        let back = self.two_way.then_some((self.to, self.from));
        std::iter::once((self.from, self.to)).chain(back)
    }
}

/// One walk on one grid of a [`LinkedPath`].
#[derive(Clone, Debug, PartialEq)]
pub struct Leg {
    /// The grid walked on.
    pub map: usize,
    /// The walk: cells and cost, as from [`Pathfinder::find_path`].
    pub path: PathResult,
    /// The link taken at the end of this walk (an index into the links searched), or `None` for
    /// the last leg.
    pub then: Option<usize>,
}

/// A path found by [`Pathfinder::find_linked_path`]: walks on grids joined by links.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkedPath {
    /// In order: the first begins at the start, the last ends at the goal, and each but the
    /// last ends at the entrance of the link it names, whose exit is where the next begins.
    pub legs: Vec<Leg>,
    /// The cost of every walk plus every link taken.
    pub cost: f64,
    /// Cells expanded by all the walks' searches.
    pub stats: SearchStats,
}

impl LinkedPath {
    /// The links taken, in order (indices into the links searched).
    pub fn links(&self) -> impl Iterator<Item = usize> + '_ {
        self.legs.iter().filter_map(|leg| leg.then)
    }
}

/// A top-level open-list entry: a walk's end, reached at cost `g`; or, not searched yet, a
/// walk from a reached place to a target, ordered by its lower bound.
#[derive(Clone, Copy, Debug)]
enum Step {
    Reached { place: usize },
    Unsearched { from: usize, target: Target },
}

/// Where a walk goes: the goal, or a link's entrance (then through the link).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Target {
    Goal,
    Link { link: usize, entrance: MapPos, exit: MapPos },
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    f: f64,
    step: Step,
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
        // A min-heap on f; among equal f, reached places (the goal) before unsearched walks.
        other.f.total_cmp(&self.f).then_with(|| {
            let rank = |s: &Step| matches!(s, Step::Reached { .. }) as u8;
            rank(&self.step).cmp(&rank(&other.step))
        })
    }
}

/// A place the top level reached: where, at what cost, and how.
struct Place {
    at: MapPos,
    g: f64,
    closed: bool,
    /// The place before, the walk from it, and the link taken after that walk.
    came_from: Option<(usize, PathResult, Option<usize>)>,
}

/// The lower bounds the top level orders walks by.
struct Bounds<'a> {
    maps: &'a [&'a NavGrid],
    /// The grids' heuristics (as the walks' own searches use them, never overestimating).
    heuristic: Vec<Heuristic>,
    goal: MapPos,
    /// The ways in, as (entrance, exit, cost, link).
    ways: Vec<(MapPos, MapPos, f64, usize)>,
}

impl Bounds<'_> {
    /// A lower bound on the cost of walking from `a` to `b` on one grid.
    fn walk(&self, a: MapPos, b: MapPos) -> f64 {
        let grid = self.maps[a.map];
        let scale = f64::from(grid.min_cost().unwrap_or(1));
        self.heuristic[a.map].estimate(grid.neighborhood(), a.cell, b.cell) * scale
    }

    /// A lower bound on the cost from `at` to the goal: a path either stays on the goal's grid
    /// (at least the walk's bound) or first takes a link from `at`'s grid (at least the walk to
    /// its entrance and its cost). Each term never drops by more than a step or a walk costs,
    /// so neither does their minimum: consistent.
    fn to_goal(&self, at: MapPos) -> f64 {
        if at.map != self.goal.map {
            return 0.0;
        }
        self.ways
            .iter()
            .filter(|w| w.0.map == at.map)
            .map(|w| self.walk(at, w.0) + w.2)
            .fold(self.walk(at, self.goal), f64::min)
    }
}

impl Pathfinder {
    /// The cheapest path from `start` to `goal` over several grids (`maps`) joined by `links`
    /// (or, with a weight above 1, each walk within that factor of its cheapest). `options` apply
    /// to each walk (jump point search runs on each grid where it applies); partial paths are
    /// not made across links (the option is ignored).
    ///
    /// ```
    /// use bevy_tilemap_nav::grid::{GridPos, NavGrid};
    /// use bevy_tilemap_nav::search::{Link, MapPos, Pathfinder, SearchOptions};
    ///
    /// // Two floors, stairs between them.
    /// let (ground, upstairs) = (NavGrid::new(8, 8).unwrap(), NavGrid::new(6, 6).unwrap());
    /// let stairs = Link::two_way(
    ///     MapPos::new(0, GridPos::new(7, 7)),
    ///     MapPos::new(1, GridPos::new(0, 0)),
    ///     2.0,
    /// );
    /// let path = Pathfinder::new()
    ///     .find_linked_path(
    ///         &[&ground, &upstairs],
    ///         &[stairs],
    ///         MapPos::new(0, GridPos::new(0, 7)),
    ///         MapPos::new(1, GridPos::new(5, 0)),
    ///         &SearchOptions::default(),
    ///     )
    ///     .unwrap();
    /// assert_eq!(path.legs.len(), 2);
    /// assert_eq!(path.cost, 7.0 + 2.0 + 5.0);
    /// ```
    pub fn find_linked_path(
        &mut self,
        maps: &[&NavGrid],
        links: &[Link],
        start: MapPos,
        goal: MapPos,
        options: &SearchOptions,
    ) -> Result<LinkedPath, PathError> {
        self.find_linked_path_avoiding(maps, links, start, goal, options, &[])
    }

    /// Like [`find_linked_path`](Self::find_linked_path), with the cells in `avoid` walled for
    /// this query (see [`find_path_avoiding`](Self::find_path_avoiding)).
    pub fn find_linked_path_avoiding(
        &mut self,
        maps: &[&NavGrid],
        links: &[Link],
        start: MapPos,
        goal: MapPos,
        options: &SearchOptions,
        avoid: &[MapPos],
    ) -> Result<LinkedPath, PathError> {
        let grid_of =
            |at: MapPos| maps.get(at.map).copied().ok_or(PathError::NoSuchMap { map: at.map });
        let (start_grid, goal_grid) = (grid_of(start)?, grid_of(goal)?);
        let (width, height) = (start_grid.width(), start_grid.height());
        if !start_grid.in_bounds(start.cell) {
            return Err(PathError::StartOutOfBounds { start: start.cell, width, height });
        }
        let (width, height) = (goal_grid.width(), goal_grid.height());
        if !goal_grid.in_bounds(goal.cell) {
            return Err(PathError::GoalOutOfBounds { goal: goal.cell, width, height });
        }
        if !start_grid.is_passable(start.cell) {
            return Err(PathError::StartBlocked { start: start.cell });
        }
        if !goal_grid.is_passable(goal.cell) {
            return Err(PathError::GoalBlocked { goal: goal.cell });
        }
        for (index, link) in links.iter().enumerate() {
            let on_grid = |at: MapPos| maps.get(at.map).is_some_and(|grid| grid.in_bounds(at.cell));
            if !(link.cost.is_finite()
                && link.cost >= 0.0
                && on_grid(link.from)
                && on_grid(link.to))
            {
                return Err(PathError::InvalidLink { link: index });
            }
        }
        let options = SearchOptions { partial: false, ..*options };
        // The ways that can be taken now: both ends open.
        let open = |at: MapPos| maps[at.map].is_passable(at.cell);
        let ways: Vec<(MapPos, MapPos, f64, usize)> = links
            .iter()
            .enumerate()
            .flat_map(|(k, link)| link.ways().map(move |(a, b)| (a, b, link.cost, k)))
            .filter(|&(a, b, ..)| open(a) && open(b))
            .collect();
        if !reachable(maps, &ways, start, goal) {
            return Err(PathError::Unreachable { start: start.cell, goal: goal.cell });
        }

        let heuristic = maps
            .iter()
            .map(|grid| match options.algorithm {
                // Any-angle walks are shorter than grid ones: only the straight line bounds them.
                Algorithm::ThetaStar => Heuristic::Euclidean,
                _ => Heuristic::default_for(grid.neighborhood()),
            })
            .collect();
        let bounds = Bounds { maps, heuristic, goal, ways };
        let mut places = vec![Place { at: start, g: 0.0, closed: false, came_from: None }];
        let mut place_of: HashMap<MapPos, usize> = HashMap::from([(start, 0)]);
        let mut open_list = BinaryHeap::from([Entry {
            f: bounds.to_goal(start),
            step: Step::Reached { place: 0 },
        }]);
        let mut stats = SearchStats::default();
        let mut limited = false;
        let mut avoid_here: Vec<GridPos> = Vec::new();

        while let Some(Entry { step, .. }) = open_list.pop() {
            match step {
                Step::Reached { place } => {
                    if places[place].closed {
                        continue;
                    }
                    places[place].closed = true;
                    let (at, g) = (places[place].at, places[place].g);
                    if at == goal {
                        return Ok(unwind(maps, places, place, stats));
                    }
                    let grid = maps[at.map];
                    let mut push = |target: Target, to: MapPos, then: f64, after: MapPos| {
                        if grid.connected(at.cell, to.cell) {
                            let f = g + bounds.walk(at, to) + then + bounds.to_goal(after);
                            open_list
                                .push(Entry { f, step: Step::Unsearched { from: place, target } });
                        }
                    };
                    if goal.map == at.map {
                        push(Target::Goal, goal, 0.0, goal);
                    }
                    for &(entrance, exit, cost, link) in &bounds.ways {
                        if entrance.map == at.map {
                            push(Target::Link { link, entrance, exit }, entrance, cost, exit);
                        }
                    }
                }
                Step::Unsearched { from, target } => {
                    let at = places[from].at;
                    let (to, arrive, then, cost) = match target {
                        Target::Goal => (goal.cell, goal, None, 0.0),
                        Target::Link { link, entrance, exit } => {
                            (entrance.cell, exit, Some(link), links[link].cost)
                        }
                    };
                    avoid_here.clear();
                    avoid_here.extend(avoid.iter().filter(|a| a.map == at.map).map(|a| a.cell));
                    let walk = match self.find_path_avoiding(
                        maps[at.map],
                        at.cell,
                        to,
                        &options,
                        &avoid_here,
                    ) {
                        Ok(walk) => walk,
                        Err(PathError::LimitExceeded { expanded }) => {
                            stats.expanded += expanded;
                            limited = true;
                            continue;
                        }
                        Err(PathError::Unreachable { .. }) => continue,
                        Err(error) => return Err(error),
                    };
                    stats.expanded += walk.stats.expanded;
                    stats.pushed += walk.stats.pushed;
                    let g = places[from].g + walk.cost + cost;
                    let place = match place_of.get(&arrive) {
                        Some(&p) if places[p].closed || places[p].g <= g => continue,
                        Some(&p) => p,
                        None => {
                            places.push(Place { at: arrive, g, closed: false, came_from: None });
                            place_of.insert(arrive, places.len() - 1);
                            places.len() - 1
                        }
                    };
                    places[place].g = g;
                    places[place].came_from = Some((from, walk, then));
                    let f = g + bounds.to_goal(arrive);
                    open_list.push(Entry { f, step: Step::Reached { place } });
                }
            }
        }
        if limited {
            Err(PathError::LimitExceeded { expanded: stats.expanded })
        } else {
            Err(PathError::Unreachable { start: start.cell, goal: goal.cell })
        }
    }
}

/// Whether the goal's component can be reached from the start's through the ways: a search
/// over (grid, component) pairs, as many as the ways at most, without touching a cell.
fn reachable(
    maps: &[&NavGrid],
    ways: &[(MapPos, MapPos, f64, usize)],
    start: MapPos,
    goal: MapPos,
) -> bool {
    let component = |at: MapPos| (at.map, maps[at.map].component(at.cell));
    let target = component(goal);
    let mut seen = vec![component(start)];
    let mut frontier = seen.clone();
    while let Some(here) = frontier.pop() {
        if here == target {
            return true;
        }
        for &(entrance, exit, ..) in ways {
            let next = component(exit);
            if component(entrance) == here && !seen.contains(&next) {
                seen.push(next);
                frontier.push(next);
            }
        }
    }
    false
}

/// The path to `place`, read back through the places before it.
fn unwind(
    maps: &[&NavGrid],
    mut places: Vec<Place>,
    place: usize,
    stats: SearchStats,
) -> LinkedPath {
    let cost = places[place].g;
    let mut legs = Vec::new();
    let mut at = place;
    while let Some((from, walk, then)) = places[at].came_from.take() {
        legs.push(Leg { map: places[from].at.map, path: walk, then });
        at = from;
    }
    legs.reverse();
    if legs.last().is_none_or(|leg| leg.then.is_some()) {
        // The goal is the start, or a link's exit: the last walk is the one cell it stands on.
        let goal = places[place].at;
        let path = PathResult {
            cells: vec![goal.cell],
            cost: 0.0,
            stats: SearchStats::default(),
            complete: true,
            neighborhood: maps[goal.map].neighborhood(),
        };
        legs.push(Leg { map: goal.map, path, then: None });
    }
    LinkedPath { legs, cost, stats }
}
