//! The request system: [`PathRequest`]s answered with a [`Path`] or a [`PathFailed`], within
//! the frame's search budget, searches spread over frames when they need more.

use std::collections::VecDeque;

use bevy::prelude::*;

use super::agent::{
    Arrival, NavError, NavObstacle, NavTeam, ObstacleCells, OnNavMap, Path, PathFailed,
    PathFollower, PathGoal, PathLeg, PathRequest, PlanAround, PlannedOn, Replanning, Targets,
    WatchSearch, WatchedSearch, agent_grid, agent_map, agent_start, body_point, collect_obstacles,
    corner_indices, cut_at_arrival, join_index, request_start, stand_in, target_cell, target_place,
    waits_for_map,
};
use super::clock::Moment;
use super::diagnostics::{LastMove, NavDiagnostics};
use super::link::{FrameLinks, LinkEnd, NavLink};
use super::map::WorldToCellError;
use super::map::{NavGeometry, NavMap, NavMaps};
use super::movement::GridLocked;
use super::movement::Yielding;
use super::precompute::table_answer;
use super::profiles::{NavAgent, NavProfiles};
use super::pursuit::Pursuit;
use super::seams::{NavSeam, Seams, WorldGraphs};
use super::settings::{NavSettings, WorldSearch};
use crate::grid::{Cell, GridPos, NavGrid};
use crate::path::{FleeOptions, flee_avoiding, wander_avoiding};
use crate::search::{
    Algorithm, Heuristic, Landmarks, Link, LinkedMaps, LinkedPath, MapPos, PathError, PathQuery,
    PathResult, Pathfinder, SearchOptions, SearchStep,
};

/// A search spread over frames, for one agent's request.
struct Running {
    entity: Entity,
    query: Plan,
    /// The frozen grid it runs on, when it had to begin again after the live grid changed
    /// under it; `None`: it runs on the live grid, which has not changed since it began.
    frozen: Option<NavGrid>,
    /// Times it began again.
    redone: u32,
    /// Cells it has expanded so far (since it last began).
    expanded: u32,
    /// Search time so far, microseconds.
    micros: f32,
    /// Its search is traced (the agent has [`WatchSearch`]).
    traced: bool,
}

/// One request made concrete: where from, where to (each on its map), how.
#[derive(Clone, Copy)]
struct Plan {
    map: Entity,
    start: GridPos,
    goal_map: Entity,
    goal: GridPos,
    options: SearchOptions,
    /// The kind of agent it plans for: which of each map's grids it searches.
    agent: NavAgent,
    /// Its team: which [`NavObstacle`]s it plans around.
    team: Option<NavTeam>,
}

/// How often a search spread over frames begins again when the grid keeps changing under it
/// before the plugin settles for a path that is checked walkable (but, in that rare case, not
/// proven the cheapest).
const MAX_REDOS: u32 = 2;

/// Requests waiting for an answer, in arrival order, the search spread over frames, and the
/// search scratch memory.
#[derive(Resource, Default)]
pub(crate) struct RequestQueue {
    waiting: VecDeque<Entity>,
    running: Option<Running>,
    /// The search through links spread over frames, if one is.
    running_linked: Option<LinkedRun>,
    pathfinder: Pathfinder,
    /// This frame's links (reused).
    links: FrameLinks,
}

/// Queues new and replaced requests in arrival order.
/// A request that replaces one still waiting keeps its place: under a steady load an agent that
/// renews its request is not sent to the back each time.
fn queue_requests(queue: &mut RequestQueue, requests: &Query<Entity, Changed<PathRequest>>) {
    for entity in requests {
        if !queue.waiting.contains(&entity) {
            queue.waiting.push_back(entity);
        }
    }
}

/// The requests, with what the request system reads of their agents.
type Requests<'w, 's> = Query<
    'w,
    's,
    (
        &'static PathRequest,
        Option<&'static Transform>,
        Option<&'static PathFollower>,
        Option<&'static Path>,
        Option<&'static OnNavMap>,
        Option<&'static PlanAround>,
        Has<WatchSearch>,
        Option<&'static NavAgent>,
        (
            Has<Replanning>,
            Option<&'static PlannedOn>,
            Option<&'static GridLocked>,
            Option<&'static Pursuit>,
        ),
    ),
>;

/// Answers waiting requests in arrival order until the frame's budget of expanded cells is
/// spent. A search on one map that would overrun it pauses and goes on next frame (before any
/// other), so no frame waits on a long search; if the grid changes meanwhile, its answer is
/// checked against the new grid or the search begins again. A search through links is spread
/// over frames the same way.
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
pub(crate) fn answer_requests(
    mut commands: Commands,
    mut queue: ResMut<RequestQueue>,
    (settings, profiles): (Res<NavSettings>, Res<NavProfiles>),
    maps: Res<NavMaps>,
    requests: Requests,
    new_requests: Query<Entity, Changed<PathRequest>>,
    walkers: WalkerQuery,
    (obstacle_agents, links, seams, yielders, teams, targets): (
        Query<(Entity, &Transform, Option<&OnNavMap>, &NavObstacle)>,
        Query<(Entity, &NavLink, Has<NavSeam>)>,
        Res<Seams>,
        Query<&'static Yielding>,
        Query<&'static NavTeam>,
        Targets,
    ),
    (mut obstacles, last_move, mut graphs): (
        ResMut<ObstacleCells>,
        Res<LastMove>,
        ResMut<WorldGraphs>,
    ),
    mut failures: MessageWriter<PathFailed>,
    mut diagnostics: ResMut<NavDiagnostics>,
) {
    // One system rather than three: each system costs the scheduler a wake-up.
    let frame_began = Moment::now();
    collect_obstacles(&maps, &obstacle_agents, &mut obstacles);
    queue_requests(&mut queue, &new_requests);
    // What movement ranges used of the frame's budget is not the requests' to use.
    let ranges = u32::try_from(diagnostics.range_expansions).unwrap_or(u32::MAX);
    let budget = u32::try_from(settings.max_expansions_per_frame).unwrap_or(u32::MAX);
    let mut budget = Budget {
        expansions: budget.saturating_sub(ranges).max(1),
        deadline: settings.max_search_time_per_frame.map(|t| {
            // What the frame has left after the tile sync and (as last frame) the movement.
            let spent = diagnostics.sync_time + last_move.0;
            let left = settings.max_time_per_frame.map_or(t, |frame| frame.saturating_sub(spent));
            Moment::now().after(t.min(left))
        }),
    };
    let budget_at_start = budget.expansions;
    let mut answered = 0usize;
    let RequestQueue { waiting, running, running_linked, pathfinder, links: frame_links } =
        &mut *queue;
    frame_links.gather(&maps, &links, &seams.places);
    frame_links.hierarchical = settings.world_search == WorldSearch::Hierarchical;
    let mut out = Answers {
        commands: &mut commands,
        failures: &mut failures,
        yielders: &yielders,
        maps: &maps,
        walkers: &walkers,
        targets: &targets,
    };
    let diagnostics = &mut *diagnostics;

    // The search spread over frames goes on first, unless its request went away or was
    // replaced (it is then waiting again), or its map did.
    if let Some(mut run) = running.take() {
        let asked = (&*maps, &*profiles, &*settings, &targets);
        let wanted = goes_on(asked, &requests, waiting, &run.query, run.entity);
        match maps.get(run.query.map).filter(|_| wanted) {
            None if wanted && maps.is_loading(run.query.map) => {
                // Its map is loading again: planned again once it is served.
                pathfinder.cancel();
                waiting.push_front(run.entity);
            }
            None => {
                pathfinder.cancel();
                if wanted {
                    let follower = requests.get(run.entity).ok().and_then(|r| r.2);
                    let error = NavError::MapGone { map: run.query.map };
                    let asked = requests.get(run.entity).ok().map(|r| r.0);
                    out.deliver(run.entity, asked, follower, None, Err(error), pathfinder);
                }
            }
            Some(map) if map.grid_for(run.query.agent).is_none() => {
                // Its kind's grid was dropped (its profile changed): plan it again.
                pathfinder.cancel();
                waiting.push_front(run.entity);
            }
            Some(map) => {
                let geometry = &map.geometry;
                let live = map.grid_for(run.query.agent).unwrap_or(&map.grid);
                let follower = requests.get(run.entity).ok().and_then(|r| r.2);
                let mut avoid = obstacles.for_agent(run.entity, run.query.team, run.query.map);
                let around = requests.get(run.entity).ok().and_then(|r| r.5);
                avoid.extend(around.iter().flat_map(|a| a.0.iter().copied()));
                let began = Moment::now();
                let on = run.frozen.as_ref().unwrap_or(live);
                let guide = guide_for(map, &run.query);
                let question = grid_query(&run.query, &avoid, guide, run.traced);
                let first = pathfinder.resume(on, &question, budget.slice());
                let mut step = go_on(pathfinder, on, &question, first, &mut budget, run.expanded);
                loop {
                    match step {
                        // The live grid changed under it: begin again, below.
                        SearchStep::Done(Err(PathError::GridChanged)) => {}
                        SearchStep::Paused { expanded } => {
                            run.expanded = expanded;
                            diagnostics.search_paused = true;
                            diagnostics.expansions = u64::from(budget_at_start - budget.expansions);
                            run.micros += began.elapsed().as_secs_f32() * 1e6;
                            *running = Some(run);
                            diagnostics.pathfind_time = frame_began.elapsed();
                            return;
                        }
                        SearchStep::Done(Err(PathError::Unreachable { .. }))
                            if around.is_some_and(|a| !a.0.is_empty()) =>
                        {
                            // No way round the characters in the way: the way through them,
                            // searched again from the start next frame.
                            out.commands.entity(run.entity).remove::<PlanAround>();
                            waiting.push_front(run.entity);
                            break;
                        }
                        SearchStep::Done(result) => {
                            if let Some(result) = settle(live, &run, result) {
                                let around = around.map_or(&[][..], |a| &a.0[..]);
                                let asked = (&*maps, &*frame_links, &*obstacles);
                                let (entity, query) = (run.entity, run.query);
                                if let Some(then) =
                                    then_links(asked, entity, around, query, &result)
                                {
                                    *running_linked = Some(then);
                                    break;
                                }
                                run.micros += began.elapsed().as_secs_f32() * 1e6;
                                answered += 1;
                                diagnostics.searches_finished += 1;
                                let path = result
                                    .map(|found| make_path(found, geometry, &run.query, run.micros))
                                    .map_err(NavError::from);
                                let asked = requests.get(run.entity).ok().map(|r| r.0);
                                let to = (asked, follower, Some(live));
                                out.deliver(run.entity, to.0, to.1, to.2, path, pathfinder);
                                break;
                            }
                        }
                    }
                    // Begin again on a frozen copy of the grid as it is now, which stays as it
                    // is until the search ends (so a fresh copy's answer settles at once).
                    let frozen = run.frozen.insert(live.frozen_copy());
                    run.redone += 1;
                    run.expanded = 0;
                    diagnostics.searches_redone += 1;
                    let first = pathfinder.start(&*frozen, &question, budget.slice());
                    step = go_on(pathfinder, frozen, &question, first, &mut budget, 0);
                }
            }
        }
    }

    // Then a search through links spread over frames, on the same terms.
    if let Some(mut run) = running_linked.take() {
        let asked = (&*maps, &*profiles, &*settings, &targets);
        let wanted = goes_on(asked, &requests, waiting, &run.query, run.entity);
        let follower = requests.get(run.entity).ok().and_then(|r| r.2);
        let asked_goal = requests.get(run.entity).ok().map(|r| r.0);
        let gone = [run.query.map, run.query.goal_map].into_iter().find(|&m| maps.get(m).is_none());
        let served = maps.get(run.query.map).is_some_and(|m| m.grid_for(run.query.agent).is_some());
        if !wanted {
            // Its request went away, or asks for something else now (it is waiting again).
        } else if gone.is_some_and(|map| maps.is_loading(map)) {
            waiting.push_front(run.entity); // a map it crosses is loading again
        } else if let Some(map) = gone {
            let error = Err(NavError::MapGone { map });
            out.deliver(run.entity, asked_goal, follower, None, error, pathfinder);
        } else if !served {
            waiting.push_front(run.entity); // its kind's grid was dropped: planned again
        } else {
            let began = Moment::now();
            let before = run.expanded;
            let mut step = go_on_linked(&mut run, (&maps, &mut graphs), &mut budget, before);
            while step == SearchStep::Done(Err(PathError::GridChanged)) {
                // A grid changed under it: it begins again on the grids as they are now, and
                // after a few times runs whole (the grids keep changing: better late than never).
                run.redone += 1;
                diagnostics.searches_redone += 1;
                let around = requests.get(run.entity).ok().and_then(|r| r.5);
                let around = around.map_or(&[][..], |a| &a.0[..]);
                let asked = (&*maps, &*frame_links, &*obstacles);
                run = match begin_linked(asked, run.entity, around, run.query, None) {
                    Ok(again) => LinkedRun { redone: run.redone, micros: run.micros, ..again },
                    Err(error) => {
                        step = SearchStep::Done(Err(error));
                        break;
                    }
                };
                let mut whole = Budget { expansions: u32::MAX, deadline: None };
                let budget = if run.redone > MAX_REDOS { &mut whole } else { &mut budget };
                step = go_on_linked(&mut run, (&maps, &mut graphs), budget, 0);
            }
            run.micros += began.elapsed().as_secs_f32() * 1e6;
            match step {
                SearchStep::Paused { .. } => {
                    diagnostics.search_paused = true;
                    *running_linked = Some(run);
                    diagnostics.expansions = u64::from(budget_at_start - budget.expansions);
                    diagnostics.pathfind_time = frame_began.elapsed();
                    return;
                }
                SearchStep::Done(result) => {
                    answered += 1;
                    let ended = (&mut out, &mut *pathfinder, &mut *waiting, &mut *diagnostics);
                    finish_linked(ended, (&maps, &seams), run, result, asked_goal, follower);
                }
            }
        }
    }

    // Then waiting requests, in arrival order, while the budget lasts; the one that runs out of
    // it is spread over the next frames.
    // At least one slice of search a frame, whatever the clock says, so that all goes on.
    let mut searched = running.is_some();
    let mut held = Vec::new();
    while answered < settings.max_requests_per_frame.max(1)
        && budget.expansions > 0
        && (!searched || budget.left())
    {
        let Some(entity) = waiting.pop_front() else {
            break;
        };
        let Ok(asker) = requests.get(entity) else {
            continue; // despawned, or the request was taken back
        };
        let (request, _, follower, old_path, _, around, watched, kind, more) = asker;
        let (replanning, planned, _, pursuit) = more;
        let agent = request.agent.or(kind.copied()).unwrap_or_default();
        let prepared = match maps.is_empty() {
            true => Err(NavError::NoGrid),
            false => prepare((&*maps, &*profiles, &*settings, agent), &targets, asker),
        };
        let query = match prepared {
            Ok(query) => Plan { team: teams.get(entity).ok().copied(), ..query },
            // A map it needs is loading: it waits (back in the queue after this frame).
            Err(error) if waits_for_map(&maps, &error) => {
                held.push(entity);
                continue;
            }
            Err(error) => {
                answered += 1;
                let asked = Some(request);
                out.deliver(entity, asked, follower, None, Err(error), pathfinder);
                continue;
            }
        };
        // Both on one map, which no link touches, or no links at all: a search on that map.
        let Some((map, Some(grid))) = maps.get(query.map).map(|m| (m, m.grid_for(agent))) else {
            continue; // prepare found them
        };
        // The nearest of several cells, away from threats, a wander: searched whole, here.
        if let Some(answer) = answer_aim(
            (entity, request),
            &query,
            (&maps, map),
            grid,
            pathfinder,
            &obstacles,
            &targets,
        ) {
            answered += 1;
            searched = true;
            diagnostics.searches_started += 1;
            diagnostics.searches_finished += 1;
            let used = done_expansions(&answer).max(1);
            budget.expansions = budget.expansions.saturating_sub(used);
            let path = answer
                .map(|found| {
                    let plan = Plan { goal: found.end(), ..query };
                    make_path(found, &map.geometry, &plan, 0.0)
                })
                .map_err(NavError::from);
            out.deliver(entity, Some(request), follower, Some(grid), path, pathfinder);
            continue;
        }
        // Asked again for the goal its path leads to, on the grid it was planned on, unchanged
        // since: the path being walked is the answer (a game may ask every frame).
        let same_path = old_path.filter(|old| {
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
                // A chase asks again after keeping its path on the target without a search:
                // for a cheapest path again.
                && !pursuit.is_some_and(|p| p.repaired)
        });
        if same_path.is_some() {
            out.commands.entity(entity).remove::<PathRequest>();
            diagnostics.requests_reused += 1;
            continue;
        }
        answered += 1;
        let geometry = &map.geometry;
        let began = Moment::now();
        searched = true;
        diagnostics.searches_started += 1;
        if query.goal_map != query.map {
            // A search over the maps and their links, spread over frames like any other.
            let around = around.map_or(&[][..], |a| &a.0[..]);
            let asked = (&*maps, &*frame_links, &*obstacles);
            let mut run = match begin_linked(asked, entity, around, query, None) {
                Ok(run) => run,
                Err(error) => {
                    diagnostics.searches_finished += 1;
                    let error = Err(linked_error(&query, error));
                    out.deliver(entity, Some(request), follower, Some(grid), error, pathfinder);
                    continue;
                }
            };
            let step = go_on_linked(&mut run, (&maps, &mut graphs), &mut budget, 0);
            run.micros += began.elapsed().as_secs_f32() * 1e6;
            match step {
                SearchStep::Paused { .. } => {
                    diagnostics.search_paused = true;
                    *running_linked = Some(run);
                    break;
                }
                SearchStep::Done(result) => {
                    let ended = (&mut out, &mut *pathfinder, &mut *waiting, &mut *diagnostics);
                    if !finish_linked(ended, (&maps, &seams), run, result, Some(request), follower)
                    {
                        break; // asked again without planning around: next frame
                    }
                    continue;
                }
            }
        }
        let mut avoid = obstacles.for_agent(entity, query.team, query.map);
        avoid.extend(around.iter().flat_map(|a| a.0.iter().copied()));
        // A map with precomputed paths answers a plain request from its table, at once.
        let plain =
            avoid.is_empty() && agent.is_plain() && !watched && frame_links.links.is_empty();
        let answer = plain
            .then(|| table_answer(map, pathfinder, (query.start, query.goal, &query.options)))
            .flatten();
        if let Some(result) = answer {
            let micros = began.elapsed().as_secs_f32() * 1e6;
            diagnostics.searches_finished += 1;
            diagnostics.table_answers += 1;
            let path = result
                .map(|found| make_path(found, geometry, &query, micros))
                .map_err(NavError::from);
            out.deliver(entity, Some(request), follower, Some(grid), path, pathfinder);
            continue;
        }
        let guide = guide_for(map, &query);
        let question = grid_query(&query, &avoid, guide, watched);
        let first = pathfinder.start(grid, &question, budget.slice());
        let step = go_on(pathfinder, grid, &question, first, &mut budget, 0);
        let micros = began.elapsed().as_secs_f32() * 1e6;
        match step {
            SearchStep::Paused { expanded } => {
                diagnostics.search_paused = true;
                let (frozen, traced) = (None, watched);
                *running =
                    Some(Running { entity, query, frozen, redone: 0, expanded, micros, traced });
                break;
            }
            SearchStep::Done(result) => {
                diagnostics.searches_finished += 1;
                let result = match result {
                    // No way round the characters in the way: the way through them, then.
                    Err(PathError::Unreachable { .. })
                        if around.is_some_and(|a| !a.0.is_empty()) =>
                    {
                        let avoid = obstacles.for_agent(entity, query.team, query.map);
                        pathfinder.find(grid, &grid_query(&query, &avoid, None, false))
                    }
                    result => result,
                };
                // With links about: the walk on this map first (jump point search, within the
                // budget); a search through links only if one could beat it.
                let around = around.map_or(&[][..], |a| &a.0[..]);
                let asked = (&*maps, &*frame_links, &*obstacles);
                if let Some(mut run) = then_links(asked, entity, around, query, &result) {
                    run.micros = micros;
                    match go_on_linked(&mut run, (&maps, &mut graphs), &mut budget, 0) {
                        SearchStep::Paused { .. } => {
                            diagnostics.search_paused = true;
                            *running_linked = Some(run);
                            break;
                        }
                        SearchStep::Done(result) => {
                            let ended =
                                (&mut out, &mut *pathfinder, &mut *waiting, &mut *diagnostics);
                            if !finish_linked(
                                ended,
                                (&maps, &seams),
                                run,
                                result,
                                Some(request),
                                follower,
                            ) {
                                break;
                            }
                            continue;
                        }
                    }
                }
                let path = result
                    .map(|found| make_path(found, geometry, &query, micros))
                    .map_err(NavError::from);
                out.deliver(entity, Some(request), follower, Some(grid), path, pathfinder);
            }
        }
    }
    for entity in held.into_iter().rev() {
        waiting.push_front(entity);
    }
    diagnostics.expansions = u64::from(budget_at_start - budget.expansions);
    diagnostics.pathfind_time = frame_began.elapsed();
}

/// A search through links spread over frames, for one agent's request.
struct LinkedRun {
    entity: Entity,
    query: Plan,
    /// Where it goes (by the maps' places in [`NavMaps`]), and its options.
    start: MapPos,
    goal: MapPos,
    options: SearchOptions,
    /// Holds the search while it is paused (its own, so that a search on one map can run
    /// beside it); `None` until it has begun.
    pathfinder: Option<Box<Pathfinder>>,
    /// Cells it has expanded so far.
    expanded: u32,
    /// The links it searches: those of the frame it began in that this kind of agent can take.
    links: FrameLinks,
    /// The cells it walls (characters in the way), for straightening its walks.
    avoid: Vec<MapPos>,
    /// It plans round characters in the way ([`PlanAround`]).
    around: bool,
    /// Times it began again, and its search time so far (microseconds).
    redone: u32,
    micros: f32,
    /// Searched over the world's graph ([`WorldSearch::Hierarchical`]), in one go.
    hierarchical: bool,
}

/// Each map's grid for this kind of agent, in [`NavMaps`]' order; a map that cannot serve it
/// (a hex map for a larger agent) stands in with its own grid, and no link leads there.
fn agent_grids(maps: &NavMaps, agent: NavAgent) -> Vec<&NavGrid> {
    maps.iter().map(|m| m.grid_for(agent).unwrap_or(&m.grid)).collect()
}

/// Begins a search across the maps and links, from `query`'s start to its goal.
fn begin_linked(
    (maps, frame_links, obstacles): (&NavMaps, &FrameLinks, &ObstacleCells),
    entity: Entity,
    around: &[GridPos],
    query: Plan,
    max_cost: Option<f64>,
) -> Result<LinkedRun, PathError> {
    let index = |map: Entity| maps.index_of(map).ok_or(PathError::NoSuchMap { map: usize::MAX });
    let start = MapPos::new(index(query.map)?, query.start);
    let goal = MapPos::new(index(query.goal_map)?, query.goal);
    let avoid: Vec<MapPos> = obstacles
        .for_agent_anywhere(entity, query.team)
        .filter_map(|(map, cell)| Some(MapPos::new(maps.index_of(map)?, cell)))
        .chain(around.iter().map(|&cell| MapPos::new(start.map, cell)))
        .collect();
    // The links this kind of agent can take: both ends on maps that serve it.
    let served: Vec<Option<&NavGrid>> = maps.iter().map(|m| m.grid_for(query.agent)).collect();
    let walkable =
        |at: MapPos| served.get(at.map).copied().flatten().is_some_and(|g| g.in_bounds(at.cell));
    let mut links = FrameLinks { places: frame_links.places.clone(), ..FrameLinks::default() };
    let all = frame_links.links.iter().zip(&frame_links.entities).zip(&frame_links.seams);
    for ((link, &entity), &seam) in all {
        if walkable(link.from) && walkable(link.to) {
            links.links.push(*link);
            links.entities.push(entity);
            links.seams.push(seam);
        }
    }
    // Over the world's graph: when asked for, for a plain walk (no cells to walk round, not
    // any-angle) that starts or ends in a world.
    let placed = |at: MapPos| links.places.get(at.map).is_some_and(Option::is_some);
    let hierarchical = frame_links.hierarchical
        && avoid.is_empty()
        && query.options.algorithm != Algorithm::ThetaStar
        && (placed(start) || placed(goal));
    let mut options = query.options;
    if let Some(cost) = max_cost {
        options.limit.max_cost = Some(options.limit.max_cost.map_or(cost, |m| m.min(cost)));
    }
    let around = !around.is_empty();
    Ok(LinkedRun {
        entity,
        query,
        start,
        goal,
        options,
        pathfinder: None,
        expanded: 0,
        links,
        avoid,
        around,
        redone: 0,
        micros: 0.0,
        hierarchical,
    })
}

/// After the walk on the start's own map (`direct`) for a request on one map while links
/// exist: the search through links that could find a cheaper path, if one could. A link could
/// when walking to its entrance, taking it and walking on from its exit to the goal may cost
/// less than the walk by the grids' estimates (or when there is no walk). That search is
/// bounded by the walk's cost, which it finds again if nothing is cheaper.
fn then_links(
    asked: (&NavMaps, &FrameLinks, &ObstacleCells),
    entity: Entity,
    around: &[GridPos],
    query: Plan,
    direct: &Result<PathResult, PathError>,
) -> Option<LinkedRun> {
    let (maps, frame_links, _) = asked;
    if frame_links.links.is_empty() {
        return None;
    }
    let bound = match direct {
        Ok(found) => Some(found.cost),
        Err(PathError::Unreachable { .. }) => None,
        Err(_) => return None,
    };
    let map = maps.get(query.map)?;
    let here = maps.index_of(query.map)?;
    let grid = map.grid_for(query.agent)?;
    let moves = grid.neighborhood();
    let heuristic = Heuristic::default_for(moves);
    let least = f64::from(grid.min_cost().unwrap_or(1));
    let walk = |a: GridPos, b: GridPos| heuristic.estimate(moves, a, b) * least;
    let helps = |link: &Link| {
        link.ways().any(|(entrance, exit)| {
            let on = if exit.map == here { walk(exit.cell, query.goal) } else { 0.0 };
            let through = walk(query.start, entrance.cell) + link.cost + on;
            entrance.map == here && bound.is_none_or(|cost| through < cost - 1e-9)
        })
    };
    if !frame_links.links.iter().any(helps) {
        return None;
    }
    let slack = bound.map(|cost| cost + 1e-9 * cost.max(1.0));
    begin_linked(asked, entity, around, query, slack).ok()
}

/// Begins (or goes on with) a search through links while the budget lasts (it had expanded
/// `before` cells when this frame's work on it began), and charges the budget for it. Its
/// walks come straightened for Theta*.
fn go_on_linked(
    run: &mut LinkedRun,
    (maps, graphs): (&NavMaps, &mut WorldGraphs),
    budget: &mut Budget,
    before: u32,
) -> SearchStep<LinkedPath> {
    let grids = agent_grids(maps, run.query.agent);
    if run.hierarchical {
        let found = graphs.find(&grids, &run.links, (run.query.agent, run.start, run.goal));
        let found = found.and_then(|path| match run.options.limit.max_cost {
            Some(max) if path.cost > max => {
                Err(PathError::Unreachable { start: run.start.cell, goal: run.goal.cell })
            }
            _ => Ok(path),
        });
        let expanded = found.as_ref().map_or(1, |path| path.stats.expanded);
        budget.expansions = budget.expansions.saturating_sub(expanded.max(1));
        run.expanded = expanded;
        return SearchStep::Done(found);
    }
    let world = LinkedMaps::new(&grids, &run.links.links).with_places(&run.links.places);
    let query = PathQuery::new(run.start, run.goal).options(run.options).avoiding(&run.avoid);
    let mut last = before;
    loop {
        let step = match run.pathfinder.as_mut() {
            Some(pathfinder) => pathfinder.resume(world, &query, budget.slice()),
            None => run.pathfinder.insert(Box::default()).start(world, &query, budget.slice()),
        };
        let expanded = match &step {
            SearchStep::Paused { expanded } => *expanded,
            SearchStep::Done(Ok(found)) => found.stats.expanded,
            SearchStep::Done(Err(PathError::LimitExceeded { expanded })) => *expanded,
            SearchStep::Done(Err(_)) => last,
        };
        budget.expansions = budget.expansions.saturating_sub(expanded.saturating_sub(last).max(1));
        last = expanded;
        run.expanded = expanded;
        if matches!(step, SearchStep::Done(_)) || !budget.left() {
            return step;
        }
    }
}

/// Answers the request of a search through links that ended. False when it found no way round
/// the characters in the way: asked again next frame, through them.
fn finish_linked(
    (out, pathfinder, waiting, diagnostics): (
        &mut Answers,
        &mut Pathfinder,
        &mut VecDeque<Entity>,
        &mut NavDiagnostics,
    ),
    (maps, seams): (&NavMaps, &Seams),
    run: LinkedRun,
    result: Result<LinkedPath, PathError>,
    asked: Option<&PathRequest>,
    follower: Option<&PathFollower>,
) -> bool {
    if matches!(result, Err(PathError::Unreachable { .. })) && run.around {
        out.commands.entity(run.entity).remove::<PlanAround>();
        waiting.push_front(run.entity);
        return false;
    }
    diagnostics.searches_finished += 1;
    let grid = maps.get(run.query.map).and_then(|m| m.grid_for(run.query.agent));
    let path = result
        .map(|found| make_linked_path(found, (maps, seams), &run.links, &run.query, run.micros))
        .map_err(|error| linked_error(&run.query, error));
    out.deliver(run.entity, asked, follower, grid, path, pathfinder);
    true
}

/// The error of a search through links: between two maps, with both maps named (the cells
/// alone read as two cells of one map).
fn linked_error(query: &Plan, error: PathError) -> NavError {
    match error {
        PathError::Unreachable { start, goal } if query.goal_map != query.map => {
            let (start_map, goal_map) = (query.map, query.goal_map);
            NavError::NoWayBetweenMaps { start_map, start, goal_map, goal }
        }
        error => NavError::from(error),
    }
}

/// With [`WorldSearch::Hierarchical`]: works out the world graph's part for chunks that
/// streamed in or changed while the frame's search time lasts (one chunk at least), so that a
/// query seldom waits for that work. For plain agents; other kinds' graphs are worked out when
/// they ask.
pub(crate) fn warm_world_graphs(
    settings: Res<NavSettings>,
    maps: Res<NavMaps>,
    queue: Res<RequestQueue>,
    mut graphs: ResMut<WorldGraphs>,
    diagnostics: Res<NavDiagnostics>,
) {
    let links = &queue.links;
    let worlds = links.places.iter().any(Option::is_some);
    if settings.world_search != WorldSearch::Hierarchical || !worlds {
        return;
    }
    let left = |t: std::time::Duration| t.saturating_sub(diagnostics.pathfind_time);
    let deadline = settings.max_search_time_per_frame.map(|t| Moment::now().after(left(t)));
    let grids = agent_grids(&maps, NavAgent::PLAIN);
    let past = || deadline.is_some_and(|d| d.elapsed() > std::time::Duration::ZERO);
    graphs.warm(&grids, links, NavAgent::PLAIN, past);
}

/// The frame's search budget: expanded cells, and a time when one is set.
struct Budget {
    expansions: u32,
    deadline: Option<Moment>,
}

/// With a time budget, searches run in slices of this many expansions, the clock read between:
/// a search overruns the frame's deadline by at most one slice, and a clock read (tens of
/// nanoseconds) is small beside 16 expansions.
const SLICE: u32 = 16;

impl Budget {
    fn left(&self) -> bool {
        self.expansions > 0 && self.deadline.is_none_or(|d| Moment::now() < d)
    }

    /// How many expansions the next call may take.
    fn slice(&self) -> u32 {
        if self.deadline.is_some() { self.expansions.min(SLICE) } else { self.expansions }
    }
}

/// Goes on with a search (`step` is its first call this frame, on `grid`; it had expanded
/// `before` cells until then) while the budget lasts, and charges the budget for it.
fn go_on(
    pathfinder: &mut Pathfinder,
    grid: &NavGrid,
    query: &PathQuery,
    mut step: SearchStep,
    budget: &mut Budget,
    before: u32,
) -> SearchStep {
    let mut last = before;
    loop {
        match step {
            SearchStep::Paused { expanded } => {
                budget.expansions = budget.expansions.saturating_sub(expanded - last);
                last = expanded;
                if !budget.left() {
                    return step;
                }
                step = pathfinder.resume(grid, query, budget.slice());
            }
            SearchStep::Done(ref result) => {
                let used = done_expansions(result).saturating_sub(last);
                budget.expansions = budget.expansions.saturating_sub(used.max(1));
                return step;
            }
        }
    }
}

/// What the request system reads of walking agents: where they are, whether they hold cells,
/// the path they walk.
type WalkerQuery<'w, 's> = Query<
    'w,
    's,
    (
        &'static Transform,
        Option<&'static GridLocked>,
        Option<&'static Path>,
        Option<&'static PathFollower>,
    ),
>;

/// Where the frame's answers go.
struct Answers<'a, 'w, 's, 'm, 'y, 'z, 'q, 'r, 't, 'u> {
    commands: &'a mut Commands<'w, 's>,
    failures: &'a mut MessageWriter<'m, PathFailed>,
    /// Agents stepping aside for another ([`Yielding`]): a failed side step is theirs to
    /// handle (they wait where they are, then go on), not the game's.
    yielders: &'a Query<'y, 'z, &'static Yielding>,
    maps: &'a NavMaps,
    walkers: &'a WalkerQuery<'q, 'r>,
    /// Where chased entities and threats are.
    targets: &'a Targets<'t, 'u>,
}

impl Answers<'_, '_, '_, '_, '_, '_, '_, '_, '_, '_> {
    /// Gives `entity` its answer: the path (smoothed if its follower asks) or the failure.
    #[allow(clippy::too_many_arguments)]
    fn deliver(
        &mut self,
        entity: Entity,
        asked: Option<&PathRequest>,
        follower: Option<&PathFollower>,
        grid: Option<&NavGrid>,
        result: Result<Path, NavError>,
        pathfinder: &mut Pathfinder,
    ) {
        let trace = pathfinder.take_trace();
        let Ok(mut entity_commands) = self.commands.get_entity(entity) else {
            return;
        };
        // An answer for an agent stepping aside ([`Yielding`]): to its side step, or to a
        // request the game made meanwhile (which ends the stepping aside).
        let yielding = self.yielders.get(entity).ok();
        let side_step = yielding.is_some_and(|y| asked.is_some_and(|r| r.goal == y.side_step()));
        if yielding.is_some() && !side_step {
            entity_commands.remove::<Yielding>();
        }
        entity_commands.remove::<(PathRequest, PlanAround)>();
        if let Some(trace) = trace {
            entity_commands.insert((WatchedSearch(trace), WatchSearch { step: 0 }));
        }
        let walker = self.walkers.get(entity).ok();
        // A goal that moves keeps a `Pursuit`; being sent elsewhere, or failing, ends it. (The
        // plugin's own re-plans ask for the cell they were going to, and keep it.)
        let ends_pursuit = match (asked.map(|r| &r.goal), &result) {
            (_, Err(_)) => true,
            (Some(goal), Ok(_)) => matches!(
                goal,
                PathGoal::Tile(_)
                    | PathGoal::World(_)
                    | PathGoal::Nearest(_)
                    | PathGoal::Wander { .. }
            ),
            (None, Ok(_)) => false,
        };
        if !side_step && ends_pursuit {
            entity_commands.remove::<Pursuit>();
        }
        match result {
            Ok(mut path) => {
                if let Some(request) = asked {
                    if let Some(map) = self.maps.get(path.goal_map)
                        && let Some(grid) = map.grid_for(path.agent)
                    {
                        cut_at_arrival(&mut path, request.arrive, &map.geometry, grid);
                    }
                    pursue((self.maps, self.targets), &mut entity_commands, request, &path);
                }
                // A larger agent walks from cell to cell: a straight line between corners
                // clear for its corner cell could still take its body over a wall's corner.
                if let (Some(follower), Some(grid)) = (follower, grid)
                    && follower.smooth
                    && path.agent.size == 1
                {
                    path.corners = corner_indices(grid, &path.cells);
                }
                if let Some(grid) = grid {
                    entity_commands.insert(PlannedOn(grid.stamp()));
                }
                // Where it joins the path: on from where it stands (a grid-locked agent from
                // its start, the cell it holds or steps into, as the movement walks it).
                let next = match (walker, self.maps.get(path.map), grid) {
                    (Some((transform, None, ..)), Some(map), Some(grid)) => {
                        join_index(&path, transform.translation.truncate(), &map.geometry, grid)
                    }
                    _ => 0,
                };
                let on = OnNavMap(path.map);
                entity_commands.remove::<(PathFailed, Replanning)>().insert((path, on));
                if let Some(follower) = follower {
                    entity_commands.insert(PathFollower { next, ..follower.clone() });
                }
            }
            // A failed side step is the agent's own business: it waits where it is, then goes on.
            Err(_) if side_step => {}
            Err(error) => {
                // Walking a path to another goal: it stops at the next safe cell centre rather
                // than walk on to a goal the game no longer wants.
                if let Some((transform, locked, Some(old), Some(follower))) = walker
                    && let Some(map) = self.maps.get(old.map)
                    && let Some(grid) = map.grid_for(old.agent)
                {
                    let position = transform.translation.truncate();
                    let held = locked.and_then(|l| l.holds.filter(|h| h.0 == map.entity));
                    let cell = match held {
                        Some((_, cell)) => Some(locked.and_then(|l| l.entering).unwrap_or(cell)),
                        None => agent_start(map, grid, old.agent, position, Some((follower, old)))
                            .ok()
                            .or(old.cells.first().copied()),
                    };
                    if let Some(cell) = cell {
                        entity_commands.insert((
                            stand_in(map, cell, old),
                            PathFollower { next: 0, ..follower.clone() },
                            Replanning,
                        ));
                    }
                }
                let failed = PathFailed { entity, error };
                entity_commands.insert(failed.clone());
                self.failures.write(failed);
            }
        }
    }
}

/// Puts on (or brings up to date) the [`Pursuit`] of an answered request whose goal moves.
fn pursue(
    (maps, targets): (&NavMaps, &Targets),
    entity_commands: &mut EntityCommands,
    request: &PathRequest,
    path: &Path,
) {
    let planned_for = match &request.goal {
        PathGoal::Entity(_) => vec![Some((path.goal_map, path.goal))],
        PathGoal::AwayFrom { threats, .. } => {
            threats.iter().map(|&t| target_cell(maps, targets, t)).collect()
        }
        _ => return,
    };
    let new = Pursuit::new(request.clone(), planned_for.clone());
    let (request, fresh) = (request.clone(), planned_for);
    entity_commands
        .entry::<Pursuit>()
        .and_modify(move |mut pursuit| {
            pursuit.request = request;
            pursuit.planned_for = fresh;
            pursuit.repaired = false;
        })
        .or_insert(new);
}

/// The answer to a request whose goal is not one cell, on the start's map: the nearest of
/// several cells (round the obstacles in the way, as any request), away from threats, or a
/// wander; `None` for the other goals.
fn answer_aim(
    (entity, request): (Entity, &PathRequest),
    plan: &Plan,
    (maps, map): (&NavMaps, &NavMap),
    grid: &NavGrid,
    pathfinder: &mut Pathfinder,
    obstacles: &ObstacleCells,
    targets: &Targets,
) -> Option<Result<PathResult, PathError>> {
    let avoid = || obstacles.for_agent(entity, plan.team, map.entity);
    Some(match &request.goal {
        PathGoal::Nearest(cells) => {
            let avoid = avoid();
            let query = PathQuery::nearest(plan.start, cells).options(plan.options);
            pathfinder.find(grid, &query.avoiding(&avoid))
        }
        PathGoal::AwayFrom { threats, budget } => {
            let cells: Vec<GridPos> = threats
                .iter()
                .filter_map(|&t| target_cell(maps, targets, t))
                .filter(|&(on, _)| on == map.entity)
                .map(|(_, cell)| cell)
                .collect();
            flee_avoiding(grid, plan.start, &cells, FleeOptions::new(*budget), &avoid())
        }
        PathGoal::Wander { budget, seed } => {
            wander_avoiding(grid, plan.start, *budget, *seed, &avoid())
        }
        _ => return None,
    })
}

/// Cells a finished search expanded in all (0 for answers given before any expansion).
fn done_expansions(result: &Result<PathResult, PathError>) -> u32 {
    match result {
        Ok(found) => found.stats.expanded,
        Err(PathError::LimitExceeded { expanded }) => *expanded,
        Err(_) => 0,
    }
}

/// The search query of `plan` on its own map, walling `avoid`, guided by `guide`, traced when
/// the agent shows its search.
fn grid_query<'a>(
    plan: &Plan,
    avoid: &'a [GridPos],
    guide: Option<&'a Landmarks>,
    traced: bool,
) -> PathQuery<'a> {
    let mut query = PathQuery::new(plan.start, plan.goal).options(plan.options).avoiding(avoid);
    if let Some(landmarks) = guide {
        query = query.guided(landmarks);
    }
    if traced { query.traced() } else { query }
}

/// The map's landmarks, for a query they may guide: by an agent with no profile and size 1
/// (they are of the map's own grid). The search checks they fit the grid it runs on.
fn guide_for<'m>(map: &'m NavMap, query: &Plan) -> Option<&'m Landmarks> {
    map.landmarks().filter(|_| query.agent.is_plain())
}

/// The answer of a search spread over frames, or `None` to begin it again. One that ran on a
/// frozen grid answered for the grid as it was: if the live grid has only lost ground since
/// (cells blocked or dearer) and the path still costs what it did, it is still the cheapest,
/// since nothing got cheaper. Otherwise it begins again, or, after [`MAX_REDOS`], the path is
/// taken if it can still be walked.
fn settle(
    live: &NavGrid,
    run: &Running,
    result: Result<PathResult, PathError>,
) -> Option<Result<PathResult, PathError>> {
    let Some(frozen) = run.frozen.as_ref() else {
        return Some(result); // ran on the live grid, unchanged throughout
    };
    if live.stamp() == frozen.stamp() {
        return Some(result);
    }
    let only_lost = live.changes_since(frozen.stamp()).is_some_and(|mut changes| {
        changes.all(|(cell, before)| match (before, live.get(cell)) {
            (_, Some(Cell::Blocked)) => true,
            (Cell::Passable { cost: was }, Some(Cell::Passable { cost: now })) => now >= was,
            _ => false,
        })
    });
    let give_up = run.redone > MAX_REDOS;
    match result {
        Ok(found) => {
            let walked = crate::path::path_cost(live, &found.cells)?;
            let same = (walked - found.cost).abs() <= 1e-9 * found.cost.max(1.0);
            ((same && only_lost) || give_up).then_some(Ok(PathResult { cost: walked, ..found }))
        }
        // No path on a grid that only lost ground: none now either.
        Err(error) => (only_lost || give_up).then_some(Err(error)),
    }
}

/// A request and what the request system reads of its agent (an item of [`Requests`]).
type Asker<'a> = (
    &'a PathRequest,
    Option<&'a Transform>,
    Option<&'a PathFollower>,
    Option<&'a Path>,
    Option<&'a OnNavMap>,
    Option<&'a PlanAround>,
    bool,
    Option<&'a NavAgent>,
    (bool, Option<&'a PlannedOn>, Option<&'a GridLocked>, Option<&'a Pursuit>),
);

/// True when the request waiting for the agent of the search `run` asks for what that search
/// is finding: the same goal and map, options and kind of agent, from the same start (or from
/// wherever the agent stands: the answer joins it where it is then).
fn asks_the_same(
    (maps, profiles, settings, targets): (&NavMaps, &NavProfiles, &NavSettings, &Targets),
    requests: &Requests,
    was: &Plan,
    entity: Entity,
) -> bool {
    let Ok(asker) = requests.get(entity) else {
        return false;
    };
    let (request, kind) = (asker.0, asker.7);
    let agent = request.agent.or(kind.copied()).unwrap_or_default();
    let Ok(plan) = prepare((maps, profiles, settings, agent), targets, asker) else {
        return false;
    };
    (plan.map, plan.goal_map, plan.goal, plan.options, plan.agent)
        == (was.map, was.goal_map, was.goal, was.options, was.agent)
        && (request.start.is_none() || plan.start == was.start)
}

/// Whether the search running for `entity`'s request (made concrete as `query`) goes on: its
/// request is still there and was not replaced by one asking for something else. One asked
/// again for the same leaves the queue, and the search goes on for it.
fn goes_on(
    asked: (&NavMaps, &NavProfiles, &NavSettings, &Targets),
    requests: &Requests,
    waiting: &mut VecDeque<Entity>,
    query: &Plan,
    entity: Entity,
) -> bool {
    if waiting.contains(&entity) && asks_the_same(asked, requests, query, entity) {
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
fn prepare(
    (maps, profiles, settings, agent): (&NavMaps, &NavProfiles, &NavSettings, NavAgent),
    targets: &Targets,
    asker: Asker,
) -> Result<Plan, NavError> {
    let (request, transform, follower, old_path, on_map, .., (_, _, locked, _)) = asker;
    let position = transform.map(|t| t.translation.truncate());
    let following = follower.zip(old_path);
    let locked = locked.filter(|_| agent.size == 1);
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
            (other.entity, corner(&other.geometry, world).map_err(NavError::Goal)?)
        }
        // Answered on the start's map by their own searches ([`answer_aim`]).
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

fn make_path(found: PathResult, geometry: &NavGeometry, query: &Plan, micros: f32) -> Path {
    Path {
        map: query.map,
        points: found.cells.iter().map(|&c| body_point(geometry, query.agent, c)).collect(),
        cells: found.cells,
        cost: found.cost,
        goal: query.goal,
        goal_map: query.goal_map,
        complete: found.complete,
        expanded: found.stats.expanded,
        micros,
        options: query.options,
        corners: Vec::new(),
        legs: Vec::new(),
        agent: query.agent,
        arrival: Arrival::AtGoal,
    }
}

/// A path through links: its first walk as the path's cells, the others as its legs.
fn make_linked_path(
    found: LinkedPath,
    (maps, seams): (&NavMaps, &Seams),
    links: &FrameLinks,
    query: &Plan,
    micros: f32,
) -> Path {
    let entity_of = |index: usize| maps.iter().nth(index).map(|m| m.entity);
    let points = |index: usize, cells: &[GridPos]| -> Vec<Vec2> {
        let map = maps.iter().nth(index);
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
    Path {
        map: entity_of(first.map).unwrap_or(query.map),
        points: points(first.map, &first.path.cells),
        cells: first.path.cells,
        cost: found.cost,
        goal: query.goal,
        goal_map: query.goal_map,
        complete: true,
        expanded: found.stats.expanded,
        micros,
        options: query.options,
        corners: Vec::new(),
        legs,
        agent: query.agent,
        arrival: Arrival::AtGoal,
    }
}
