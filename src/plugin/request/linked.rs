//! Searches through links: begun for requests between maps, or after the walk on the start's
//! own map when a link could beat it; run on over frames like any search; their answers as
//! [`NavPath`]s with legs.

use bevy::prelude::*;

use super::super::agent::{NavError, NavPath, ObstacleCells, PathLeg, body_point};
use super::super::link::{FrameLinks, LinkEnd, admitted};
use super::super::map::NavMaps;
use super::super::profiles::AgentKind;
use super::super::seams::{Seams, WorldGraphs};
use super::plan::Plan;
use crate::grid::{GridPos, NavGrid};
use crate::search::schedule::{Budget, advance};
use crate::search::{
    Algorithm, Heuristic, Link, LinkedMaps, LinkedPath, MapPos, PathError, PathQuery, PathResult,
    Pathfinder, SearchOptions, SearchStep, WorldFind,
};

/// A search through links: where it goes (by the maps' places in [`NavMaps`]), over which
/// links, round which cells.
pub(super) struct LinkedSearch {
    start: MapPos,
    goal: MapPos,
    options: SearchOptions,
    /// Holds the search while it is paused (its own, so that a search on one map can run
    /// beside it): the queue's spare one for searches through links, whose memory of the last
    /// such search (the links sorted, the cells reached) serves this one while the links and
    /// grids are the same. `None` until it has begun, or when the spare was taken.
    pub(super) pathfinder: Option<Box<Pathfinder>>,
    /// It has begun.
    begun: bool,
    /// The links it searches: those of the frame it began in that this kind of agent can take.
    links: FrameLinks,
    /// The cells it walls (characters in the way), for straightening its walks.
    avoid: Vec<MapPos>,
    /// It plans round characters in the way ([`PlanAround`](super::super::agent::PlanAround)).
    pub(super) around: bool,
    /// Searched over the world's graph ([`WorldSearch::Hierarchical`]), in slices: where that
    /// query stands (`None` until it has begun).
    ///
    /// [`WorldSearch::Hierarchical`]: super::super::settings::WorldSearch::Hierarchical
    hierarchical: bool,
    world_find: Option<WorldFind>,
}

impl LinkedSearch {
    /// Whether it searches over the world's graph.
    pub(super) fn over_graph(&self) -> bool {
        self.hierarchical
    }
}

/// Each map's grid for this kind of agent, in [`NavMaps`]' order; a map that cannot serve it
/// (a hex map for a larger agent) stands in with its own grid, and no link leads there.
pub(super) fn agent_grids(maps: &NavMaps, agent: AgentKind) -> Vec<&NavGrid> {
    maps.iter().map(|m| m.grid_for(agent).unwrap_or(&m.grid)).collect()
}

/// What a search through links begins from: the maps, the frame's links and the cells held by
/// characters.
pub(super) type Across<'a> = (&'a NavMaps, &'a FrameLinks, &'a ObstacleCells);

/// Begins a search across the maps and links, from `query`'s start to its goal, for `entity`
/// (walling the obstacles in its way and the cells `around`, over the links it may take but
/// those it `shuns`), no dearer than `max_cost`. `None` when the start's or the goal's map is
/// not served ([`map_gone`] says which).
pub(super) fn begin_linked(
    (maps, frame_links, obstacles): Across,
    entity: Entity,
    (around, shuns): (&[GridPos], &[Entity]),
    query: Plan,
    max_cost: Option<f64>,
) -> Option<LinkedSearch> {
    let start = maps.map_pos(query.map, query.start)?;
    let goal = maps.map_pos(query.goal_map, query.goal)?;
    let avoid: Vec<MapPos> = obstacles
        .for_agent_anywhere(entity, query.team)
        .filter_map(|(map, cell)| maps.map_pos(map, cell))
        .chain(around.iter().map(|&cell| MapPos::new(start.map, cell)))
        .collect();
    // The links this kind of agent can take: both ends on maps that serve it.
    let served: Vec<Option<&NavGrid>> = maps.iter().map(|m| m.grid_for(query.agent)).collect();
    let walkable =
        |at: MapPos| served.get(at.map).copied().flatten().is_some_and(|g| g.in_bounds(at.cell));
    // Those this agent may take ([`LinkOpenTo`](super::super::link::LinkOpenTo)) and does not
    // avoid.
    let closed = std::cell::Cell::new(false);
    let links = frame_links.only(|link, entity, open_to| {
        let may = admitted(open_to, query.team, query.agent.profile) && !shuns.contains(&entity);
        closed.set(closed.get() || !may);
        may && walkable(link.from) && walkable(link.to)
    });
    // Over the world's graph: when asked for, for a plain walk (no cells to walk round, not
    // any-angle) that starts or ends in a world, and takes every link (the graph is kept for
    // all of them: one closed to this agent is searched exactly).
    let placed = |at: MapPos| links.places.get(at.map).is_some_and(Option::is_some);
    let hierarchical = frame_links.over_graph([start.map, goal.map])
        && !closed.get()
        && avoid.is_empty()
        && query.options.algorithm != Algorithm::ThetaStar
        && (placed(start) || placed(goal));
    let mut options = query.options;
    if let Some(cost) = max_cost {
        options.limit.max_cost = Some(options.limit.max_cost.map_or(cost, |m| m.min(cost)));
    }
    let around = !around.is_empty();
    Some(LinkedSearch {
        start,
        goal,
        options,
        pathfinder: None,
        begun: false,
        links,
        avoid,
        around,
        hierarchical,
        world_find: None,
    })
}

/// The error for a query one of whose maps is not served: that map is gone (the goal's, if
/// both are served after all).
pub(super) fn map_gone(maps: &NavMaps, query: &Plan) -> NavError {
    let gone = [query.map, query.goal_map].into_iter().find(|&m| maps.get(m).is_none());
    NavError::MapGone { map: gone.unwrap_or(query.goal_map) }
}

/// After the walk on the start's own map (`direct`) for a request on one map while links
/// exist or the map joins others at seams: the search through links and seams that could find
/// a cheaper path, if one could. A link could when walking to its entrance, taking it and
/// walking on from its exit to the goal may cost less than the walk by the grids' estimates (or
/// when there is no walk); a seam could when going out past the map's edge and back may
/// ([`leaving_helps`]). That search is bounded by the walk's cost, which it finds again if
/// nothing is cheaper.
pub(super) fn then_links(
    across: Across,
    entity: Entity,
    around: (&[GridPos], &[Entity]),
    query: Plan,
    direct: &Result<PathResult, PathError>,
) -> Option<LinkedSearch> {
    let (maps, frame_links, _) = across;
    let here = maps.index_of(query.map)?;
    let joined = frame_links.joined(here);
    if frame_links.links.is_empty() && !joined {
        return None;
    }
    let bound = match direct {
        Ok(found) => Some(found.cost),
        Err(PathError::Unreachable { .. }) => None,
        Err(_) => return None,
    };
    let map = maps.get(query.map)?;
    let grid = map.grid_for(query.agent)?;
    let world_least = maps.iter().filter_map(|m| m.grid.min_cost()).min().unwrap_or(1);
    let leaves = joined && leaving_helps(grid, (query.start, query.goal), world_least, bound);
    if !leaves && !frame_links.links.iter().any(beats(grid, here, &query, bound)) {
        return None;
    }
    let slack = bound.map(|cost| cost + 1e-9 * cost.max(1.0));
    begin_linked(across, entity, around, query, slack)
}

/// Whether a link may beat a walk on the start's map (grid `grid`, map `here`) that costs
/// `bound` (`None`: there is none): walking to its entrance, taking it and walking on from its
/// exit to the goal costs less by the grid's estimate.
fn beats<'a>(
    grid: &'a NavGrid,
    here: usize,
    query: &'a Plan,
    bound: Option<f64>,
) -> impl Fn(&Link) -> bool + 'a {
    let walk = least_walk(grid);
    move |link: &Link| {
        link.ways().any(|(entrance, exit)| {
            let on = if exit.map == here { walk(exit.cell, query.goal) } else { 0.0 };
            let through = walk(query.start, entrance.cell) + link.cost + on;
            entrance.map == here && bound.is_none_or(|cost| through < cost - 1e-9)
        })
    }
}

/// Whether a request on one map goes straight to the search through links, without the walk
/// on its map first: a link beats any walk there could (the least the grid's estimate allows
/// from start to goal), so [`then_links`] would search through links whatever the walk found,
/// and the walk would only bound that search. With a teleporter in every room that is most
/// requests, and the walk was a search more each. For plain requests (no partial paths, no
/// cap on expansions, not any-angle: the estimate bounds such walks); the caller checks for
/// cells to walk round and watched searches.
pub(super) fn links_first(maps: &NavMaps, frame_links: &FrameLinks, query: &Plan) -> bool {
    let options = &query.options;
    if query.goal_map != query.map
        || frame_links.links.is_empty()
        || options.partial
        || options.limit.max_expansions.is_some()
        || options.algorithm == Algorithm::ThetaStar
    {
        return false;
    }
    let (Some(here), Some(grid)) =
        (maps.index_of(query.map), maps.get(query.map).and_then(|m| m.grid_for(query.agent)))
    else {
        return false;
    };
    let walk = least_walk(grid)(query.start, query.goal);
    frame_links.links.iter().any(beats(grid, here, query, Some(walk)))
}

/// The least a walk between two cells of `grid` can cost: its estimate, every step at the
/// cost of its cheapest cell.
fn least_walk(grid: &NavGrid) -> impl Fn(GridPos, GridPos) -> f64 + use<> {
    let moves = grid.neighborhood();
    let heuristic = Heuristic::default_for(moves);
    let least = f64::from(grid.min_cost().unwrap_or(1));
    move |a: GridPos, b: GridPos| heuristic.estimate(moves, a, b) * least
}

/// Whether a path from `start` to `goal` (cells of `grid`) that leaves the grid across a seam
/// may cost less than `bound` (`None`: no walk on the grid alone): it passes a cell just
/// outside the grid's edge, so it costs at least the estimate to there and on to the goal,
/// at `least` a step (the cheapest cell of any map). On a hex grid: always.
pub(super) fn leaving_helps(
    grid: &NavGrid,
    (start, goal): (GridPos, GridPos),
    least: u32,
    bound: Option<f64>,
) -> bool {
    let Some(bound) = bound else { return true };
    let moves = grid.neighborhood();
    if moves.is_hex() {
        return true;
    }
    let heuristic = Heuristic::default_for(moves);
    let (w, h) = (i64::from(grid.width()), i64::from(grid.height()));
    let apart = |a: GridPos, (x, y): (i64, i64)| {
        let d =
            |p: u32, q: i64| u32::try_from((i64::from(p) - q).unsigned_abs()).unwrap_or(u32::MAX);
        heuristic.distance(d(a.x, x), d(a.y, y))
    };
    let ring =
        (-1..=w).flat_map(|x| [(x, -1), (x, h)]).chain((0..h).flat_map(|y| [(-1, y), (w, y)]));
    let out = ring.map(|x| apart(start, x) + apart(goal, x)).fold(f64::INFINITY, f64::min);
    out * f64::from(least) < bound - 1e-9 * bound.max(1.0)
}

/// Begins (or goes on with) a search through links for `agent` while the budget lasts (it had
/// expanded `before` cells when this frame's work on it began), and charges the budget for it.
/// Returns its last step and the cells it has expanded. Its walks come straightened for Theta*.
pub(super) fn go_on_linked(
    search: &mut LinkedSearch,
    agent: AgentKind,
    (maps, graphs): (&NavMaps, &mut WorldGraphs),
    budget: &mut Budget,
    before: u32,
) -> (SearchStep<LinkedPath>, u32) {
    let grids = agent_grids(maps, agent);
    if search.hierarchical {
        return go_on_over_graph(search, (agent, &grids), graphs, budget, before);
    }
    let world = LinkedMaps::new(&grids, &search.links.links).with_places(&search.links.places);
    let query = PathQuery::new(search.start, search.goal)
        .with_options(search.options)
        .avoiding(&search.avoid);
    let begun = std::mem::replace(&mut search.begun, true);
    let pathfinder = search.pathfinder.get_or_insert_with(Box::default);
    advance(pathfinder, world, &query, budget, begun, before)
}

/// Goes on with a query over the world's graph while the budget lasts, a step at a time (each
/// within one grid's work), as [`go_on_linked`] does; a path dearer than the search's
/// `max_cost` is no path.
fn go_on_over_graph(
    search: &mut LinkedSearch,
    (agent, grids): (AgentKind, &[&NavGrid]),
    graphs: &mut WorldGraphs,
    budget: &mut Budget,
    before: u32,
) -> (SearchStep<LinkedPath>, u32) {
    let (start, goal) = (search.start, search.goal);
    let find = search.world_find.get_or_insert_with(|| WorldFind::new(start, goal));
    let mut last = before;
    loop {
        let step = graphs.find_within(grids, &search.links, agent, find, budget.slice());
        let expanded = find.expanded().max(last);
        budget.charge(expanded.saturating_sub(last));
        last = expanded;
        match step {
            SearchStep::Done(found) => {
                let (start, goal) = (start.cell, goal.cell);
                let found = found.and_then(|path| match search.options.limit.max_cost {
                    Some(max) if path.cost > max => Err(PathError::Unreachable { start, goal }),
                    _ => Ok(path),
                });
                return (SearchStep::Done(found), last);
            }
            paused if !budget.left() => return (paused, last),
            SearchStep::Paused { .. } => {}
        }
    }
}

/// The error of a search through links: between two maps, with both maps named (the cells
/// alone read as two cells of one map); a map of the query that is no longer served is
/// [`NavError::MapGone`].
pub(super) fn linked_error(maps: &NavMaps, query: &Plan, error: PathError) -> NavError {
    match error {
        PathError::NoSuchMap { .. } => map_gone(maps, query),
        PathError::Unreachable { start, goal } if query.goal_map != query.map => {
            let (start_map, goal_map) = (query.map, query.goal_map);
            NavError::NoWayBetweenMaps { start_map, start, goal_map, goal }
        }
        error => NavError::from(error),
    }
}

/// A path through links: its first walk as the path's cells, the others as its legs.
pub(super) fn make_linked_path(
    found: LinkedPath,
    (maps, seams): (&NavMaps, &Seams),
    search: &LinkedSearch,
    query: &Plan,
    micros: f32,
) -> NavPath {
    let links = &search.links;
    let entity_of = |index: usize| maps.by_index(index).map(|m| m.entity);
    let points = |index: usize, cells: &[GridPos]| -> Vec<Vec2> {
        let map = maps.by_index(index);
        cells
            .iter()
            .map(|&c| map.map_or(Vec2::ZERO, |m| body_point(&m.geometry, query.agent, c)))
            .collect()
    };
    let mut walks = found.legs.into_iter();
    // A linked path has at least one leg.
    let first = walks.next().expect("a linked path has a walk");
    let mut legs = Vec::new();
    let (mut map, mut end, mut then) = (first.map, first.path.end(), first.then);
    for walk in walks {
        let next = (walk.map, walk.path.end(), walk.then);
        let from = LinkEnd::new(entity_of(map).unwrap_or(query.map), end);
        let to_map = entity_of(walk.map).unwrap_or(query.goal_map);
        // Taken: a link, or (none named, from a world's graph) the seam one step across.
        let (link, cost) = match then {
            Some(link) => (links.entities[link], links.links[link].cost),
            None => {
                let to = LinkEnd::new(to_map, walk.path.cells.first().copied().unwrap_or(end));
                seams.between(from, to).unwrap_or((Entity::PLACEHOLDER, 0.0))
            }
        };
        legs.push(PathLeg {
            link,
            from,
            map: to_map,
            points: points(walk.map, &walk.path.cells),
            cost: walk.path.cost + cost,
            cells: walk.path.cells,
        });
        (map, end, then) = next;
    }
    let (map, points) =
        (entity_of(first.map).unwrap_or(query.map), points(first.map, &first.path.cells));
    NavPath {
        goal: query.goal,
        goal_map: query.goal_map,
        expanded: found.stats.expanded,
        micros,
        options: query.options,
        legs,
        ..NavPath::walk(map, first.path.cells, points, found.cost, query.agent)
    }
}
