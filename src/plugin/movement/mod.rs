//! Walking agents along their [`NavPath`]s, and planning again when the world changes under them:
//! the movement system (here), what walking agents carry (`walkers`), agents steering round each
//! other (`avoidance`, over `orca`'s maths and a `spatial_hash`), agents holding whole cells
//! (`gridlock`, over `cooperative`'s plans for agents that move together), and which paths pass
//! near which cells (`index`). Each file imports only those
//! listed before it.

use std::collections::HashMap;

use bevy::prelude::*;

mod avoidance;
mod cooperative;
mod crossing;
mod gridlock;
mod index;
mod orca;
mod spatial_hash;
mod walkers;

pub use cooperative::{Cooperative, MAX_COOPERATIVE};
use cooperative::{CooperativeAgents, OthersStanding, plan_together_in_play};
pub(crate) use crossing::move_on_links;
use crossing::{OnLinks, crossing_of};
pub(crate) use walkers::Yielding;
pub(crate) use walkers::size_bodies;
pub use walkers::{Avoidance, GridLocked, SIZED_RADIUS};

use avoidance::{Crowd, Stall, get_on_alone, resolve_stall};
use gridlock::{LockedStanding, Occupancy, resolve_waits};
pub(crate) use index::PathIndexes;
use index::{LinksStirred, PathIndex, passes_near, refile, stirred, update_indexes};
use walkers::{Standing, Waiting, Walkers, tick_yielding};

use crate::grid::{GridPos, NavGrid};
use crate::plugin::agent::{
    Arrival, GroundSpeed, GroupPace, NavError, NavPath, NavTeam, ObstacleCells, PathFollower,
    PathGoal, PathRequest, Replanning, Tell, WhenUnreachable, agent_start, blocks_agent,
    join_within, rederive_points, slowness, stand_in, stands_on, walk_corners,
};
#[cfg(doc)]
use crate::plugin::agent::{Arrived, PathFailed};
use crate::plugin::clock::Moment;
use crate::plugin::diagnostics::{LastMove, NavDiagnostics};
use crate::plugin::work::{FrameWork, WorkKind};
use crate::search::CELL_WORK;

use crate::plugin::link::{
    AvoidLinks, CarryOutcome, CrossingLink, LinkCrossed, LinkCrossing, LinkEnd, LinkOpenTo,
    LinkReached, NavLink, WaitingAtLink, admitted, usable,
};
use crate::plugin::map::{NavMap, NavMaps, WorldToCellError};
use crate::plugin::seams::NavSeam;
use crate::plugin::settings::NavSettings;

/// True when another character stands on one of the next two cells of the path (short of its
/// goal, where it cannot be avoided). Not the cell the path begins at, where the agent is: one
/// standing there too cannot be planned around (a plan from there would see it again at once).
fn obstacle_ahead(
    obstacles: &ObstacleCells,
    (entity, team): (Entity, Option<NavTeam>),
    path: &NavPath,
    next: usize,
) -> bool {
    let from = if next == 0 { 1 } else { path.previous_target(next) + 1 };
    let ahead = &path.cells[from.min(path.cells.len())..(from + 2).min(path.cells.len())];
    let at_goal = |c: &GridPos| *c == path.goal && path.goal_map == path.map;
    obstacles
        .0
        .iter()
        .filter(blocks_agent(entity, team))
        .any(|o| o.map == path.map && !at_goal(&o.cell) && ahead.contains(&o.cell))
}

/// True when the rest of the path, from the point last passed on, is no longer walkable on
/// `grid` (the map's grid for the path's kind of agent; `None`, not made yet: cut): a cell step
/// is illegal now or, on a smoothed path, a straight segment is no longer clear.
fn path_cut(grid: Option<&NavGrid>, path: &NavPath, next: usize) -> bool {
    let Some(grid) = grid else {
        return true;
    };
    let cells = &path.cells;
    if next == 0 && cells.first().is_some_and(|&c| !grid.is_passable(c)) {
        return true;
    }
    let from = path.previous_target(next.max(1));
    if (from + 1..cells.len()).any(|k| !grid.can_step(cells[k - 1], cells[k])) {
        return true;
    }
    let mut i = from;
    while i < cells.len() && !path.corners.is_empty() {
        let j = path.next_target_after(i);
        if j < cells.len() && crate::grid::line::segment_cells(grid, cells[i], cells[j]).is_none() {
            return true;
        }
        i = j;
    }
    false
}

/// True for a `NavPath` (made or changed by hand) that cannot be walked: no cells, cells and
/// points of different numbers, a point that is not finite, or a leg like that.
fn malformed(path: &NavPath) -> bool {
    let bad = |cells: &[GridPos], points: &[Vec2]| {
        cells.is_empty() || cells.len() != points.len() || points.iter().any(|p| !p.is_finite())
    };
    bad(&path.cells, &path.points) || path.legs.iter().any(|leg| bad(&leg.cells, &leg.points))
}

/// An agent that cannot go on stops where it is, and says why.
fn stop(commands: &mut Commands, tell: &mut Tell, entity: Entity, error: NavError) {
    let mut agent = commands.entity(entity);
    agent.remove::<(NavPath, Replanning)>();
    tell.failed(&mut agent, error);
}

/// Where one agent's walk stands this frame.
#[derive(Clone, Copy)]
struct Plan {
    /// It waits for a new plan, walking to a safe cell meanwhile (no `Arrived` there).
    replanning: bool,
    /// A request for it waits to be answered.
    requested: bool,
}

/// Every link (seams too), with how it is crossed and who may take it.
type LinkRows<'w, 's> = Query<
    'w,
    's,
    (&'static NavLink, Has<NavSeam>, Option<&'static LinkCrossing>, Option<&'static LinkOpenTo>),
>;

/// What the movement system reads of the frame's world for every agent.
struct Scene<'a, 'w, 's> {
    maps: &'a NavMaps,
    links: &'a LinkRows<'w, 's>,
    obstacles: &'a ObstacleCells,
    teams: &'a Query<'w, 's, &'static NavTeam>,
    /// The links each agent avoids.
    avoided: &'a Query<'w, 's, &'static AvoidLinks>,
    /// Maps on which every path is checked this frame.
    check_all: &'a [Entity],
    /// Maps whose geometry changed (tile size, anchor, transform) this frame.
    moved: &'a [Entity],
    /// A link came, went or changed, or a grid changed, since last frame: the links of every
    /// path are checked again (else only those of paths new or changed).
    links_stirred: bool,
}

/// Moves every agent along its path; re-plans those whose path a grid change has cut, a
/// [`NavObstacle`](super::NavObstacle) stands in, or a link it was to take went away. Only the
/// paths that pass near changed cells are checked (found through each map's [`PathIndex`]);
/// when a grid cannot say which cells changed (it was built afresh, or its rules changed),
/// every path on it is. An agent at the end of a walk followed by a link is carried across it
/// ([`LinkCrossed`]) and walks on. When an agent's map goes away (its tilemaps despawned or
/// unmarked), it stops where it is with a [`PathFailed`] saying [`NavError::MapGone`] (or
/// [`NavError::NoGrid`] when no map is left); while the map is loading again
/// ([`NavMapLoading`](super::NavMapLoading)) it stands where it is.
///
/// Each agent's frame: its path kept walkable ([`keep_walkable`]), a step (held cells, steering
/// round others, or straight along the points), a link crossed ([`cross_link`]), the end of
/// the walk ([`finish_walk`]).
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
pub(crate) fn follow_paths(
    mut commands: Commands,
    time: Res<Time>,
    maps: Res<NavMaps>,
    mut indexes: ResMut<PathIndexes>,
    mut removed: RemovedComponents<NavPath>,
    mut diagnostics: ResMut<NavDiagnostics>,
    mut agents: Walkers,
    (standing, mut waiting, paces): (Standing, Waiting, Paces),
    (mut occupancy, mut locked_standing): Locked,
    ((links, mut stir), obstacles, (teams, avoided)): (
        (LinkRows, LinksStirred),
        Res<ObstacleCells>,
        (Query<&'static NavTeam>, Query<&'static AvoidLinks>),
    ),
    (settings, mut crowd, mut last_move): (Res<NavSettings>, Local<Crowd>, ResMut<LastMove>),
    mut tell: Tell,
    mut on_links: OnLinks,
) {
    let (began, avoiding, dt) = (Moment::now(), settings.avoidance.enabled, time.delta_secs());
    if avoiding {
        crowd.gather(&agents, &standing, settings.avoidance.reach);
    }
    tick_yielding(&mut commands, &mut waiting, dt);
    occupancy.gather(&maps, &mut agents, &mut locked_standing);
    let PathIndexes(indexes, plans) = &mut *indexes;
    let (check_all, moved) = update_indexes(indexes, &maps, removed.read(), &mut agents);
    let scene = Scene {
        maps: &maps,
        links: &links,
        obstacles: &obstacles,
        teams: &teams,
        avoided: &avoided,
        check_all: &check_all,
        moved: &moved,
        links_stirred: stirred(indexes, &check_all, (&maps, links.count()), &mut stir),
    };
    let (mut last, mut stalls): (Option<(Entity, &NavMap, &PathIndex)>, Vec<Stall>) =
        (None, vec![]);
    // Agents whose path went on to another map across a link this frame: filed again under it
    // below (this system does not see its own changes to a `NavPath` next frame).
    let mut moved_on: Vec<Entity> = Vec::new();
    for (
        entity,
        mut transform,
        mut follower,
        mut path,
        replanning,
        requested,
        mut avoidance,
        mut yielding,
        mut lock,
    ) in &mut agents
    {
        let mut plan = Plan { replanning, requested };
        let position = transform.translation.truncate();
        // On a link over time: moved by `move_on_links`; once across, it walks on from there,
        // its walk checked as a follower put back on (it was not while it rode).
        let Some(landed) = on_links.landed(&mut commands, entity) else {
            continue;
        };
        let added = follower.is_added() || landed;
        let fresh = added || path.is_changed(); // (its shape is checked then: `walk_from`)
        let (map, index) = match walk_from(&maps, indexes, &mut last, (&path, fresh), position) {
            Ok(found) => found,
            // Its map is loading again: it stands until the map is served.
            Err(None) => continue,
            Err(Some(error)) => {
                stop(&mut commands, &mut tell, entity, error);
                continue;
            }
        };
        if scene.moved.contains(&path.map)
            && let Err(error) = map.geometry.world_to_cell(position)
        {
            // Its map moved or shrank from under it: it stands off it, and stops, told.
            stop(&mut commands, &mut tell, entity, NavError::Start(error));
            continue;
        }
        let (out, locked) = ((&mut commands, &mut *diagnostics), lock.is_some());
        let agent = (entity, map, index, position);
        keep_walkable(out, &scene, agent, (&mut follower, added, locked), &mut path, &mut plan);

        let (speed, ground) = speed_of(&follower, paces.get(entity).ok(), map, &path);
        // (Walking round others or cell by cell: at the pace of the stretch it is on.)
        let paced = speed / ground.map_or(1.0, |g| stretch_slowness(g, &path, follower.next));
        let mut at = position;
        if let Some(lock) = lock.as_deref_mut() {
            let (follower, path, on) = (&mut *follower, &*path, (map, &mut *plans));
            let patience = settings.avoidance.stall_time;
            at = occupancy.step(entity, lock, position, paced, dt, follower, path, on, patience);
        } else {
            match avoidance.as_deref_mut().filter(|_| avoiding && dt > 0.0) {
                Some(body) => {
                    let (follower, path) = (&mut *follower, &*path);
                    at = crowd
                        .steer(entity, body, position, paced, dt, follower, path, map, &settings);
                    let patience = settings.avoidance.stall_time;
                    if body.stalled > patience && (plan.replanning || plan.requested) {
                        get_on_alone(body, follower, path, map, at);
                    } else if body.stalled > patience {
                        let radius = body.body_radius();
                        stalls.extend(stalled(body, Stall { entity, at, map: map.entity, radius }));
                    }
                }
                None => at = walk_points(at, (speed, dt), &mut follower, &path, ground),
            }
        }
        // At a link: it takes it, to the next walk, which begins where the link arrives (a
        // grid-locked agent once no other holds that cell: it waits at the link meanwhile).
        let at_link =
            follower.next >= path.points.len() && !plan.replanning && !path.legs.is_empty();
        leave_waits(&mut commands, &on_links, entity, &path, at_link);
        if at_link {
            let out = (&mut commands, &mut *diagnostics, &mut on_links);
            let walker = (&mut *follower, &mut path, &mut plan);
            let locked = lock.as_deref_mut().map(|l| (&mut *occupancy, l));
            let went_on;
            (at, went_on) = take_link(out, &scene, (entity, map, at), walker, locked);
            moved_on.extend(went_on.then_some(entity));
        }
        if !at.is_finite() {
            // Never written into a `Transform`: a map's geometry or a path point gave a
            // non-finite position.
            let error = NavError::Start(WorldToCellError::NotFinite(at));
            stop(&mut commands, &mut tell, entity, error);
            continue;
        }
        (transform.translation.x, transform.translation.y) = (at.x, at.y);
        let held_back = lock.is_some() && plans.holds_back(map.entity, entity);
        if follower.next >= path.points.len() && path.legs.is_empty() && !held_back {
            let bodies = (avoidance.as_deref_mut(), yielding.as_deref_mut());
            finish_walk(&mut commands, &mut tell, &maps, (entity, at), &path, plan, bodies);
        }
    }
    for entity in moved_on {
        if let Ok((_, _, _, path, ..)) = agents.get(entity) {
            refile(indexes, entity, path);
        }
    }
    resolve_waits(&mut commands, &mut occupancy, &maps, &agents);
    for stall in stalls {
        if let Some(map) = maps.get(stall.map) {
            diagnostics.replans += 1;
            resolve_stall(&mut commands, &crowd, &agents, map, stall);
        }
    }
    diagnostics.move_time = began.elapsed();
    last_move.0 = diagnostics.move_time;
}

/// Plans the cooperative agents of each map together when one of them has a new path (see
/// [`Cooperative`]; the plans are kept in [`PathIndexes`]).
/// The plans are searches: they draw on the frame's search budget, and a plan that needs more
/// goes on next frame (its agents standing meanwhile).
pub(crate) fn plan_cooperative(
    maps: Res<NavMaps>,
    mut indexes: ResMut<PathIndexes>,
    (mut agents, others): (CooperativeAgents, OthersStanding),
    (mut work, settings): (FrameWork, Res<NavSettings>),
) {
    let began = Moment::now();
    let allowance = work.allowance(WorkKind::Searches);
    let past = || allowance.out_of_time();
    let cells = (allowance.units / CELL_WORK, settings.cooperative_window);
    let plans = &mut indexes.1;
    let looked = plan_together_in_play(&maps, plans, (&mut agents, &others), cells, &past);
    work.diagnostics.cooperative_work += looked * CELL_WORK;
    work.spend(WorkKind::Searches, looked * CELL_WORK, began.elapsed());
}

/// What the movement system holds of grid-locked agents: the cells held, the agents standing.
type Locked<'w, 's> = (Local<'s, Occupancy>, LockedStanding<'w, 's>);

/// What sets an agent's pace: its group's ([`GroupPace`]), and whether it walks slower on dear
/// ground ([`GroundSpeed`]).
type Paces<'w, 's> = Query<'w, 's, (Option<&'static GroupPace>, Has<GroundSpeed>)>;

/// How fast an agent walks this frame: its follower's speed (0 if below 0 or not a number), no
/// more than its group's pace (a `GroupPace` that is not a number is no limit); and, if it
/// walks slower on dear ground, the grid of its path's map that says how dear.
fn speed_of<'m>(
    follower: &PathFollower,
    pace: Option<(Option<&GroupPace>, bool)>,
    map: &'m NavMap,
    path: &NavPath,
) -> (f32, Option<&'m NavGrid>) {
    let (pace, grounded) = pace.unwrap_or_default();
    let speed = follower.walking_speed();
    let speed = pace.map_or(speed, |pace| speed.min(pace.speed).max(0.0));
    (speed, map.grid_for(path.agent).filter(|_| grounded))
}

/// How many times slower an agent with [`GroundSpeed`] walks the stretch of `path` it is on,
/// towards point `next`.
fn stretch_slowness(grid: &NavGrid, path: &NavPath, next: usize) -> f32 {
    let from = if next == 0 { 0 } else { path.previous_target(next) };
    slowness(grid, &path.cells, from, next)
}

/// Whether an agent can walk its path from `position` this frame, and the map the path is on
/// with its index, looked up once for a run of agents on one map (`last`: agents on one map
/// follow one another in the query). `Err(None)`: the map is loading again (the agent stands
/// until it is served); `Err(Some(error))`: the agent stops. A hand-made `NavPath` that cannot be
/// walked is [`NavError::MalformedPath`] (indexing it would panic; an index past its end is
/// read as its last point), checked when the path is `fresh` (new or changed since last
/// frame: its points are read once, not every frame; this system changes a path only to
/// one it makes); a NaN or infinite position, written by
/// something else, leaves no way back to the path.
fn walk_from<'m>(
    maps: &'m NavMaps,
    indexes: &'m HashMap<Entity, PathIndex>,
    last: &mut Option<(Entity, &'m NavMap, &'m PathIndex)>,
    (path, fresh): (&NavPath, bool),
    position: Vec2,
) -> Result<(&'m NavMap, &'m PathIndex), Option<NavError>> {
    if fresh && malformed(path) {
        return Err(Some(NavError::MalformedPath));
    }
    let on = path.map;
    if last.is_none_or(|(entity, ..)| entity != on) {
        *last = maps.get(on).zip(indexes.get(&on)).map(|(m, i)| (on, m, i));
    }
    match *last {
        Some((_, map, index)) => Ok((map, index)),
        None if maps.is_loading(on) => Err(None),
        None if maps.is_empty() => Err(Some(NavError::NoGrid)),
        None => Err(Some(NavError::MapGone { map: on })),
    }
    .and_then(|found| {
        let error = NavError::Start(WorldToCellError::NotFinite(position));
        if position.is_finite() { Ok(found) } else { Err(Some(error)) }
    })
}

/// Keeps an agent's path walkable before it steps: a follower put (back) on a path joins it
/// where it stands; an index past the path's end, a path cut by changed cells, an obstacle on
/// the next cells or a link gone sends it to plan again, or (a plan already on its way) to wait
/// for it at a safe cell. `follower` comes with whether it was just added and whether the agent
/// holds cells ([`GridLocked`]).
fn keep_walkable(
    (commands, diagnostics): (&mut Commands, &mut NavDiagnostics),
    scene: &Scene,
    (entity, map, index, position): (Entity, &NavMap, &PathIndex, Vec2),
    (follower, added, locked): (&mut PathFollower, bool, bool),
    path: &mut Mut<NavPath>,
    plan: &mut Plan,
) {
    // Its map moved or was rescaled: its walk is read again from its cells, and it joins it
    // where it stands (or plans again from there) as a follower put back on would.
    let rescaled = !scene.moved.is_empty() && rederive_points(path, scene.maps, scene.moved);
    let added = added || rescaled;
    let bad_index = follower.next > path.points.len();
    if added && !bad_index && !plan.replanning && !locked {
        // A follower put (back) on a path: it walks on from where it stands on the path (not
        // back to its start across whatever lies between), or plans again from there.
        let grid = map.grid_for(path.agent).unwrap_or(&map.grid);
        match join_within(path, position, &map.geometry, grid, usize::MAX) {
            Some(next) => follower.next = next,
            None if plan.requested => {
                wait_for_plan(commands, entity, map, position, follower, path);
                plan.replanning = true;
            }
            None => {
                diagnostics.replans += 1;
                replan(commands, entity, map, position, follower, path);
                *plan = Plan { replanning: true, requested: true };
            }
        }
    }
    if bad_index {
        // An index past the path's end (written by hand): where it is on the path is unknown,
        // and a straight walk to any point could cross a wall. It plans again from where it
        // stands (or, already waiting for a plan, walks to its stand-in).
        if plan.replanning || plan.requested {
            // A plan is on its way: it waits for it at the nearest safe cell centre.
            follower.next = 0;
            wait_for_plan(commands, entity, map, position, follower, path);
            plan.replanning = true;
        } else {
            diagnostics.replans += 1;
            replan(commands, entity, map, position, follower, path);
            *plan = Plan { replanning: true, requested: true };
        }
    }
    // Cells near the path changed: is the rest of it still walkable? (A larger agent's cells
    // are its body's corner: a change up to its size away may cut its path.) A follower put
    // (back) on: the grid may have changed meanwhile, unwatched.
    let near_changes = scene.check_all.contains(&path.map)
        || added
        || (path.agent.size > 1 && !index.changed.is_empty())
        || (index.near.binary_search(&entity).is_ok()
            && passes_near(path, follower.next, &index.changed));
    if near_changes && !plan.replanning && !plan.requested {
        diagnostics.paths_checked += 1;
    }
    if plan.replanning
        && let Some(grid) = map.grid_for(path.agent)
        && (rescaled || path.cells.iter().any(|&c| !grid.is_passable(c)))
    {
        // The safe cell it waits at became a wall, or the map moved under it (that cell may
        // now lie anywhere): another one, where it stands now.
        let following = Some((&*follower, &**path));
        if let Ok(safe) = agent_start(map, grid, path.agent, position, following)
            && grid.is_passable(safe)
        {
            let stand = stand_in(map, safe, path);
            **path = stand;
            follower.next = 0;
        }
    }
    let team = scene.teams.get(entity).ok().copied();
    let shunned = scene.avoided.get(entity).ok();
    // A link on its way that cannot be taken now, or not by this agent.
    let links_gone = || {
        path.legs.iter().any(|leg| {
            let to = LinkEnd::new(leg.map, leg.cells.first().copied().unwrap_or_default());
            let open = |(link, _, crossing, open_to): (&NavLink, bool, _, _)| {
                usable(scene.maps, (link, crossing), leg.from, to)
                    && admitted(open_to, team, path.agent.profile)
                    && shunned.is_none_or(|s| !s.0.contains(&leg.link))
            };
            !scene.links.get(leg.link).is_ok_and(open)
        })
    };
    // (Its links are read again when they or the grids changed, or the path is new.)
    let links_read = scene.links_stirred || added || path.is_changed();
    let cut = !plan.replanning
        && ((near_changes && path_cut(map.grid_for(path.agent), path, follower.next))
            || obstacle_ahead(scene.obstacles, (entity, team), path, follower.next)
            || (links_read && links_gone()));
    if cut && plan.requested {
        // The game asked for a new path, not answered yet: it waits for it at a safe cell
        // rather than walk on into the cut.
        wait_for_plan(commands, entity, map, position, follower, path);
        plan.replanning = true;
    } else if cut {
        diagnostics.replans += 1;
        replan(commands, entity, map, position, follower, path);
        // From now on this frame it is waiting for the new plan (the commands apply later): no
        // `Arrived` for reaching the safe cell.
        *plan = Plan { replanning: true, requested: true };
    }
}

/// An avoiding agent stalled past its patience: the first time, a [`Stall`] to resolve after
/// the frame (the others make way); stalled again without getting on, it passes through the
/// others for a second. (One that waits for a plan gets on alone: [`get_on_alone`].)
fn stalled(body: &mut Avoidance, stall: Stall) -> Option<Stall> {
    body.stalled = 0.0;
    body.stalls += 1;
    if body.stalls > 1 {
        body.passing_through = 1.0;
        body.stalls = 0;
        return None;
    }
    Some(stall)
}

/// Walks from `at` along the path's points at `speed` for `dt` seconds, passing the points it
/// reaches; with `ground` (it has [`GroundSpeed`]), each stretch at its pace on that grid.
/// Returns where it ends.
fn walk_points(
    mut at: Vec2,
    (speed, mut dt): (f32, f32),
    follower: &mut PathFollower,
    path: &NavPath,
    ground: Option<&NavGrid>,
) -> Vec2 {
    while follower.next < path.points.len() {
        let pace = speed / ground.map_or(1.0, |g| stretch_slowness(g, path, follower.next));
        let budget = pace * dt;
        let target = path.points[follower.next];
        let to = target - at;
        let distance = to.length();
        if distance > budget {
            if budget > 0.0 {
                at += to / distance * budget;
            }
            break;
        }
        at = target;
        if pace > 0.0 {
            dt -= distance / pace;
        }
        follower.next = path.next_target_after(follower.next);
    }
    at
}

/// An agent waiting at a carried link's entrance that is not there any more (a new path, the
/// link gone, planning again) waits no longer.
fn leave_waits(
    commands: &mut Commands,
    on_links: &OnLinks,
    entity: Entity,
    path: &NavPath,
    at_link: bool,
) {
    if let Ok(wait) = on_links.waiting.get(entity)
        && !(at_link && path.legs.first().is_some_and(|leg| leg.link == wait.link))
    {
        commands.entity(entity).remove::<WaitingAtLink>();
    }
}

/// An agent at the end of a walk followed by a link takes it, as the link is crossed
/// ([`LinkCrossing`]): at once ([`cross_link`]), setting off across it over time (a
/// [`CrossingLink`]), or, carried by the game, waiting at the entrance ([`WaitingAtLink`])
/// until the game carries it (at once) or gives up (it plans again without the link). A
/// grid-locked agent (`locked`) sets off once no other holds the far end's cell, and waits at
/// the link meanwhile. Returns where it stands, and whether its path went on to the next map.
fn take_link(
    (commands, diagnostics, on_links): (&mut Commands, &mut NavDiagnostics, &mut OnLinks),
    scene: &Scene,
    (entity, map, at): (Entity, &NavMap, Vec2),
    (follower, path, plan): (&mut PathFollower, &mut Mut<NavPath>, &mut Plan),
    locked: Option<(&mut Occupancy, &mut GridLocked)>,
) -> (Vec2, bool) {
    let leg = &path.legs[0];
    let (link, from, to) = (leg.link, leg.from, LinkEnd::new(leg.map, leg.cells[0]));
    let row = scene.links.get(link).ok();
    let seam = row.is_some_and(|(_, seam, ..)| seam);
    let crossing = crossing_of(row.map(|(link, _, crossing, _)| (link, crossing)));
    if crossing == LinkCrossing::Carried && !seam {
        let answer = on_links.waiting.get(entity).ok().filter(|w| w.link == link).map(|w| w.answer);
        match answer {
            None => {
                let wait = WaitingAtLink { link, from, to, answer: None };
                commands.entity(entity).insert(wait);
                let seconds = 0.0;
                on_links.reached.write(LinkReached { entity, link, from, to, crossing, seconds });
                return (at, false);
            }
            Some(None) => return (at, false),
            Some(Some(CarryOutcome::GiveUp)) => {
                let mut shunned = scene.avoided.get(entity).cloned().unwrap_or_default();
                shunned.0.push(link);
                commands.entity(entity).remove::<WaitingAtLink>().insert(shunned);
                diagnostics.replans += 1;
                replan(commands, entity, map, at, follower, path);
                *plan = Plan { replanning: true, requested: true };
                return (at, false);
            }
            Some(Some(CarryOutcome::Across)) => {}
        }
    }
    if let Some((occupancy, lock)) = locked
        && !occupancy.cross(entity, lock, to.map, to.cell)
    {
        return (at, false);
    }
    commands.entity(entity).remove::<WaitingAtLink>();
    let landing = leg.points[0];
    match crossing.seconds(at.distance(landing)) {
        Some(seconds) if seconds > 0.0 && !seam => {
            next_leg(commands, scene, entity, follower, path);
            let (from_point, to_point, elapsed) = (at, landing, 0.0);
            let ride = CrossingLink { link, from, to, from_point, to_point, seconds, elapsed };
            commands.entity(entity).insert(ride);
            on_links.reached.write(LinkReached { entity, link, from, to, crossing, seconds });
            (at, true)
        }
        _ => {
            let out = (commands, diagnostics, &mut on_links.crossed);
            (cross_link(out, scene, (entity, at, seam), follower, path, plan), true)
        }
    }
}

/// An agent's path goes on with the walk after its first link: on that walk's map (where it
/// stands now: [`OnNavMap`](crate::plugin::OnNavMap)), from its first cell (across a seam: from
/// where it stands, to the first cell). Returns the link's entity, its ends as taken, and
/// where the walk begins.
fn next_leg(
    commands: &mut Commands,
    scene: &Scene,
    entity: Entity,
    follower: &mut PathFollower,
    path: &mut NavPath,
) -> (Entity, LinkEnd, LinkEnd, Vec2) {
    let leg = path.legs.remove(0);
    let seam = scene.links.get(leg.link).is_ok_and(|(_, seam, ..)| seam);
    let taken = (leg.link, leg.from, LinkEnd::new(leg.map, leg.cells[0]), leg.points[0]);
    path.map = leg.map;
    path.cells = leg.cells;
    path.points = leg.points;
    follower.next = if seam { 0 } else { path.cells.len().min(1) };
    stands_on(&mut commands.entity(entity), leg.map);
    let grid = scene.maps.get(leg.map).and_then(|m| m.grid_for(path.agent));
    path.corners = walk_corners(follower.smooth, path.agent, grid, &path.cells);
    taken
}

/// Carries an agent at the end of a walk across the link that follows it at once: its path
/// goes on with the next walk ([`next_leg`]). Across a seam (maps that touch) it walks on from
/// where it stands; across any other link it is put at the link's far end ([`LinkCrossed`]).
/// If the next walk was cut meanwhile, it plans again from there. Returns where it stands.
fn cross_link(
    (commands, diagnostics, crossed): (
        &mut Commands,
        &mut NavDiagnostics,
        &mut MessageWriter<LinkCrossed>,
    ),
    scene: &Scene,
    (entity, mut at, seam): (Entity, Vec2, bool),
    follower: &mut PathFollower,
    path: &mut Mut<NavPath>,
    plan: &mut Plan,
) -> Vec2 {
    let (link, from, to, landing) = next_leg(commands, scene, entity, follower, path);
    if !seam {
        crossed.write(LinkCrossed { entity, link, from, to });
        at = landing;
    }
    if let Some(next_map) = scene.maps.get(to.map) {
        // Changed since it was planned: plan again from here.
        if path_cut(next_map.grid_for(path.agent), path, 0) {
            diagnostics.replans += 1;
            replan(commands, entity, next_map, at, follower, path);
            *plan = Plan { replanning: true, requested: true };
        }
    }
    at
}

/// An agent at the end of its path (and of its links) stops. It has arrived ([`Arrived`] names
/// the cell it stands on, and whether and how it reached its goal), or stands at the side cell
/// it stepped aside to, or (waiting for a plan that failed) simply stops.
fn finish_walk(
    commands: &mut Commands,
    tell: &mut Tell,
    maps: &NavMaps,
    (entity, at): (Entity, Vec2),
    path: &NavPath,
    plan: Plan,
    (avoidance, yielding): (Option<&mut Avoidance>, Option<&mut Yielding>),
) {
    let last = *path.cells.last().expect("non-empty path");
    // Where it stopped: the last cell, or (an avoiding agent held back from it by someone
    // standing there) the cell it stands in.
    let cell = if path.points.last() == Some(&at) {
        last
    } else {
        maps.get(path.map).and_then(|m| m.geometry.world_to_cell(at).ok()).unwrap_or(last)
    };
    commands.entity(entity).remove::<NavPath>();
    if let Some(body) = avoidance {
        body.velocity = Vec2::ZERO;
        body.headway = 0.0;
        body.stalled = 0.0;
        body.stalls = 0;
    }
    let was_yielding = yielding.is_some();
    match yielding.filter(|y| path.goal == y.aside && path.map == y.aside_map) {
        // At the side cell it stepped to: it waits there (no `Arrived`), then goes on.
        Some(yielding) => yielding.arrived = true,
        None if !plan.replanning => {
            if was_yielding {
                commands.entity(entity).remove::<Yielding>(); // sent elsewhere meanwhile
            }
            let at_goal = cell == path.goal && path.map == path.goal_map;
            // Stopped short where its arrival condition held (the end of its path).
            let by_condition = !at_goal && path.arrival != Arrival::AtGoal && cell == last;
            let by = if by_condition { path.arrival } else { Arrival::AtGoal };
            let reached_goal = at_goal || by_condition;
            tell.arrived(entity, cell, reached_goal, by);
            // (The links it avoided on the way are open to it again.)
            commands.entity(entity).remove::<AvoidLinks>();
        }
        // The new plan failed (a PathFailed says why): the agent stops here.
        None if !plan.requested => {
            commands.entity(entity).remove::<Replanning>();
        }
        None => {}
    }
}

/// An agent whose plan is on its way (a request is waiting) stops walking its path: its path
/// becomes the one safe cell it walks to meanwhile, with no `Arrived` for reaching it.
fn wait_for_plan(
    commands: &mut Commands,
    entity: Entity,
    map: &NavMap,
    position: Vec2,
    follower: &mut PathFollower,
    path: &mut NavPath,
) {
    let grid = map.grid_for(path.agent).unwrap_or(&map.grid);
    let safe = agent_start(map, grid, path.agent, position, Some((follower, path)))
        .unwrap_or(path.cells[follower.next.saturating_sub(1).min(path.cells.len() - 1)]);
    *path = stand_in(map, safe, path);
    follower.next = 0;
    commands.entity(entity).insert(Replanning);
}

/// Sends an agent whose path is cut to plan again: it walks to a safe cell of `map` meanwhile
/// (its path becomes that one cell) and asks for a path to the same goal.
fn replan(
    commands: &mut Commands,
    entity: Entity,
    map: &NavMap,
    position: Vec2,
    follower: &mut PathFollower,
    path: &mut NavPath,
) {
    let (goal, goal_map, options, agent) = (path.goal, path.goal_map, path.options, path.agent);
    wait_for_plan(commands, entity, map, position, follower, path);
    let mut walker = commands.entity(entity);
    stands_on(&mut walker, map.entity);
    walker.insert(PathRequest {
        goal: PathGoal::OnMap { map: goal_map, cell: goal },
        options: Some(options),
        // Where it stands when the plan is made (the safe cell may have become a wall by then,
        // while the request waited its turn).
        start: None,
        agent: Some(agent),
        arrive: path.arrival,
        // A walker whose way was cut (a door shut in its face) waits for it to open.
        when_unreachable: WhenUnreachable::Wait,
    });
}
