//! A request made concrete ([`Plan`]): where from and where to, each on its map, and how; the
//! query that searches it on one map; the [`NavPath`] that answers it there.

use std::collections::VecDeque;

use bevy::ecs::query::QueryItem;
use bevy::prelude::*;

use super::super::agent::{
    CHASE_REACH, NavError, NavPath, ObstacleCells, OnNavMap, PathFollower, PathGoal, PathRequest,
    PlanAround, PlannedOn, Replanning, Targets, TraceSearch, agent_grid, agent_map, body_point,
    open_near, request_start, target_place,
};
use super::super::link::FrameLinks;
use super::super::link::{AvoidLinks, CrossingLink};
use super::super::map::{NavGeometry, NavMap, NavMaps, WorldToCellError};
use super::super::movement::GridLocked;
use super::super::profiles::{AgentKind, NavProfiles};
use super::super::pursuit::Pursuit;
use super::super::settings::NavSettings;
use crate::grid::{GridPos, NavGrid};
use crate::search::{Landmarks, PathQuery, PathResult, SearchOptions};

/// One request made concrete: where from, where to (each on its map), how.
#[derive(Clone, Copy)]
pub(super) struct Plan {
    pub(super) map: Entity,
    pub(super) start: GridPos,
    pub(super) goal_map: Entity,
    pub(super) goal: GridPos,
    pub(super) options: SearchOptions,
    /// The kind of agent it plans for: which of each map's grids it searches.
    pub(super) agent: AgentKind,
    /// Its team: which [`NavObstacle`](super::super::agent::NavObstacle)s it plans around.
    pub(super) team: Option<super::super::agent::NavTeam>,
}

/// What the request system reads of each request's agent.
type AskerData = (
    &'static PathRequest,
    Option<&'static Transform>,
    Option<&'static PathFollower>,
    Option<&'static NavPath>,
    Option<&'static OnNavMap>,
    Option<&'static PlanAround>,
    Has<TraceSearch>,
    Option<&'static AgentKind>,
    (
        Has<Replanning>,
        Option<&'static PlannedOn>,
        Option<&'static GridLocked>,
        Option<&'static Pursuit>,
        Option<&'static AvoidLinks>,
        Option<&'static CrossingLink>,
    ),
);

/// The requests, with what the request system reads of their agents.
pub(super) type Requests<'w, 's> = Query<'w, 's, AskerData>;

/// What `entity`'s searches leave out: the cells it plans round (characters in its way,
/// [`PlanAround`]) and the links it avoids ([`AvoidLinks`]).
pub(super) fn left_out<'a>(
    requests: &'a Requests,
    entity: Entity,
) -> (&'a [GridPos], &'a [Entity]) {
    let Ok(asker) = requests.get(entity) else {
        return (&[], &[]);
    };
    let around = asker.5.map_or(&[][..], |a| &a.0[..]);
    (around, asker.8.4.map_or(&[][..], |a| &a.0[..]))
}

/// A request and what the request system reads of its agent (an item of [`Requests`]).
pub(super) type Asker<'a> = QueryItem<'a, 'a, AskerData>;

/// What a request is made concrete against: the maps, the agents' profiles, the settings and
/// where targets stand.
pub(super) type Against<'a, 'w, 's> =
    (&'a NavMaps, &'a NavProfiles, &'a NavSettings, &'a Targets<'w, 's>);

/// The kind of agent a request plans for: the request's own, else the agent's, else plain.
pub(super) fn agent_of(asker: &Asker) -> AgentKind {
    asker.0.agent.or(asker.7.copied()).unwrap_or_default()
}

/// True when the request waiting for the agent of the search made concrete as `was` (for the
/// cheapest of `nearest`, if given) asks for what that search is finding: the same goal (or
/// cells) and map, options and kind of agent, from the same start (or from wherever the agent
/// stands: the answer joins it where it is then).
fn asks_the_same(
    against: Against,
    requests: &Requests,
    (was, nearest): (&Plan, Option<&[GridPos]>),
    entity: Entity,
) -> bool {
    let Ok(asker) = requests.get(entity) else {
        return false;
    };
    let Ok(plan) = prepare(against, asker) else {
        return false;
    };
    (plan.map, plan.goal_map, plan.goal, plan.options, plan.agent)
        == (was.map, was.goal_map, was.goal, was.options, was.agent)
        && nearest_cells(asker.0) == nearest
        && (asker.0.start.is_none() || plan.start == was.start)
}

/// Whether the search running for `entity`'s request (made concrete as `query`, with the
/// cells of a nearest-of goal) goes on: its request is still there and was not replaced by one
/// asking for something else. One asked again for the same leaves the queue, and the search
/// goes on for it.
pub(super) fn goes_on(
    against: Against,
    requests: &Requests,
    waiting: &mut VecDeque<Entity>,
    query: (&Plan, Option<&[GridPos]>),
    entity: Entity,
) -> bool {
    if waiting.contains(&entity) && asks_the_same(against, requests, query, entity) {
        waiting.retain(|&e| e != entity);
    }
    requests.contains(entity) && !waiting.contains(&entity)
}

/// Where a grid-locked agent plans from when its request names no start: the cell it is
/// stepping into, or else the cell it holds (where it stands once its step ends), if that is
/// on the map it is on.
fn locked_start(
    maps: &NavMaps,
    on_map: Option<&OnNavMap>,
    position: Option<Vec2>,
    locked: Option<&GridLocked>,
) -> Option<GridPos> {
    let locked = locked?;
    let (map, held) = locked.holds?;
    let on = agent_map(maps, on_map, position?)?;
    (on.entity == map).then(|| locked.entering.unwrap_or(held))
}

/// Makes a request concrete: its start map and cell, goal map and cell, and options.
pub(super) fn prepare(
    (maps, profiles, settings, targets): Against,
    asker: Asker,
) -> Result<Plan, NavError> {
    let agent = agent_of(&asker);
    let (request, transform, follower, old_path, on_map, .., (_, _, locked, _, _, riding)) = asker;
    // Crossing a link over time: planned from where it lands (and walked once across).
    let position = riding.map(|r| r.to_point).or(transform.map(|t| t.translation.truncate()));
    let following = follower.zip(old_path);
    let start = request.start.or_else(|| locked_start(maps, on_map, position, locked));
    let asked = (maps, profiles, agent);
    let (map, _, start) = request_start(asked, on_map, position, start, following)?;
    // A larger agent's goal is where its body's centre is to be: its corner cell lies half a
    // body back.
    let corner = |geometry: &NavGeometry, world: Vec2| {
        geometry.world_to_cell(world - geometry.body_offset(agent.size))
    };
    let (goal_map, goal) = match request.goal {
        PathGoal::Tile(pos) => (map.entity, pos),
        PathGoal::OnMap { map: goal_map, cell } => {
            maps.get(goal_map).ok_or(NavError::MapGone { map: goal_map })?;
            (goal_map, cell)
        }
        PathGoal::World(world) => match corner(&map.geometry, world) {
            Ok(cell) => (map.entity, cell),
            Err(error) => {
                let other = maps.at_world(world).ok_or(NavError::Goal(error))?;
                (other.entity, corner(&other.geometry, world).map_err(NavError::Goal)?)
            }
        },
        PathGoal::Entity(target) => {
            let (on, world) = target_place(targets, target)?;
            let other = agent_map(maps, on.as_ref(), world).ok_or(NavError::Goal(
                if world.is_finite() {
                    WorldToCellError::OffMap(world)
                } else {
                    WorldToCellError::NotFinite(world)
                },
            ))?;
            let cell = corner(&other.geometry, world).map_err(NavError::Goal)?;
            // Standing where the agent cannot walk: chased to the nearest cell it can.
            let near = other.grid_for(agent).and_then(|grid| open_near(grid, cell, CHASE_REACH));
            (other.entity, near.unwrap_or(cell))
        }
        // Searched on the start's map for the cells (`nearest_cells`), or answered there by
        // their own searches (`answer_aim`).
        PathGoal::Nearest(_) | PathGoal::AwayFrom { .. } | PathGoal::Wander { .. } => {
            (map.entity, start)
        }
    };
    if goal_map != map.entity {
        // Across maps: every map's grid for this kind (made with this one's).
        let goal_on = maps.get(goal_map).ok_or(NavError::MapGone { map: goal_map })?;
        agent_grid(goal_on, agent, profiles)?;
    }
    let options = request.options.unwrap_or(settings.search);
    Ok(Plan { map: map.entity, start, goal_map, goal, options, agent, team: None })
}

/// Asked again for the goal its path leads to, on the grid it was planned on, unchanged since:
/// the path being walked is the answer (a game may ask every frame).
pub(super) fn walks_the_answer(asker: &Asker, query: &Plan, grid: &NavGrid) -> bool {
    let (request, _, follower, old_path, _, around, watched, _, more) = *asker;
    let (replanning, planned, _, pursuit, ..) = more;
    old_path.is_some_and(|old| {
        request.start.is_none()
            && around.is_none()
            && !watched
            && !replanning
            && follower.is_some()
            && old.complete
            && old.legs.is_empty()
            && old.map == query.map
            && old.goal_map == query.goal_map
            && old.goal == query.goal
            && old.options == query.options
            && old.agent == query.agent
            && planned.is_some_and(|p| p.0 == grid.stamp())
            // A chase asks again after keeping its path on the target without a search: for a
            // cheapest path again.
            && !pursuit.is_some_and(|p| p.repaired)
    })
}

/// The cells of a [`PathGoal::Nearest`] request: searched on the start's map as a one-cell
/// goal is (spread over frames), for the cheapest of them; `None` for the other goals.
pub(super) fn nearest_cells(request: &PathRequest) -> Option<&[GridPos]> {
    match &request.goal {
        PathGoal::Nearest(cells) => Some(cells),
        _ => None,
    }
}

/// The search query of `plan` on its own map (for the cheapest of `nearest`, if given, else
/// for its goal), walling `avoid`, guided by `guide`, traced when the agent shows its search.
pub(super) fn grid_query<'a>(
    (plan, nearest): (&Plan, Option<&'a [GridPos]>),
    avoid: &'a [GridPos],
    guide: Option<&'a Landmarks>,
    traced: bool,
) -> PathQuery<'a> {
    let goals = match nearest {
        Some(cells) => PathQuery::nearest(plan.start, cells),
        None => PathQuery::new(plan.start, plan.goal),
    };
    let mut query = goals.with_options(plan.options).avoiding(avoid);
    if let Some(landmarks) = guide {
        query = query.with_help(landmarks);
    }
    if traced { query.traced() } else { query }
}

/// The map's landmarks, for a query they may guide: by an agent with no profile and size 1
/// (they are of the map's own grid). The search checks they fit the grid it runs on.
pub(super) fn guide_for<'m>(map: &'m NavMap, query: &Plan) -> Option<&'m Landmarks> {
    map.landmarks().filter(|_| query.agent.is_plain())
}

/// The path that answers `query` on its own map: the cells found and the points its agent's
/// body walks through.
pub(super) fn make_path(
    found: PathResult,
    geometry: &NavGeometry,
    query: &Plan,
    micros: f32,
) -> NavPath {
    let points = found.cells.iter().map(|&c| body_point(geometry, query.agent, c)).collect();
    NavPath {
        goal: query.goal,
        goal_map: query.goal_map,
        complete: found.complete,
        expanded: found.stats.expanded,
        micros,
        options: query.options,
        ..NavPath::walk(query.map, found.cells, points, found.cost, query.agent)
    }
}

/// Whether a request made concrete as `query`, walling `avoid`, may be answered from its map's
/// precomputed table: a plain agent on a map alone (no links from it, not a chunk of a world)
/// with nothing to avoid (and, the caller checks, nothing watching its search).
pub(super) fn asks_a_table(
    maps: &NavMaps,
    links: &FrameLinks,
    query: &Plan,
    avoid: &[GridPos],
) -> bool {
    let alone = links.links.is_empty() && maps.index_of(query.map).is_none_or(|k| !links.joined(k));
    avoid.is_empty() && query.agent.is_plain() && alone
}

/// The cells `entity`'s search on its start's map walls: the obstacles in its way and, when
/// it plans round them, the characters in the way.
pub(super) fn avoid_for(
    obstacles: &ObstacleCells,
    entity: Entity,
    query: &Plan,
    around: Option<&PlanAround>,
) -> Vec<GridPos> {
    let mut avoid = obstacles.for_agent(entity, query.team, query.map);
    avoid.extend(around.iter().flat_map(|a| a.0.iter().copied()));
    avoid
}
