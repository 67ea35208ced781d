//! Goals that move. An agent sent after an entity ([`PathGoal::Entity`]) or away from threats
//! ([`PathGoal::AwayFrom`]) keeps a [`Pursuit`], and its plan is kept on the goal as it moves:
//! a chased entity that steps onto the rest of the path or one step past its end is followed by
//! cutting or lengthening the path, with no search; otherwise, and to make a repaired path the
//! cheapest again, the request is asked again at the [`RepathPolicy`]'s interval, which
//! shortens as the agent gets close.

use bevy::prelude::*;

use super::agent::{
    Arrival, NavPath, OnNavMap, PathFollower, PathGoal, PathRequest, Replanning, Targets,
    agent_map, arrival_holds, body_point, chase_cell, target_cell, target_place, threats_of,
};
use super::diagnostics::{NavDiagnostics, Stopwatch};
use super::map::{NavMap, NavMaps};
use super::settings::{NavSettings, RepathPolicy};
use crate::grid::{GridPos, NavGrid};

/// On an agent whose goal moves: a chase ([`PathRequest::chase`]) or a flight
/// ([`PathGoal::AwayFrom`]). The plugin puts it on with the first answer and keeps it up to
/// date. A chase goes on after the agent arrives (it sets out again when the target moves
/// away); a flight ends when the agent arrives. A chased target that stands where the agent
/// cannot walk (a wall, water, a cell it cannot enter) is chased to the nearest cell it can,
/// within 8 cells; one that stands where no way leads (walled in, or on a wall with no open
/// cell near) makes the agent stop and wait, told by a [`PathFailed`](super::PathFailed), until
/// the target moves to another cell. Either ends when the agent is sent elsewhere (a request
/// for a tile, a point, the nearest of cells or a wander), when a plan for it fails otherwise
/// (the target gone, say: a `PathFailed` says why), or when you remove it.
#[derive(Component, Clone, Debug, PartialEq)]
pub struct Pursuit {
    /// The request it was planned from, asked again when the goal has moved.
    pub request: PathRequest,
    /// Where the goal's entities stood (map, cell) when the path was last planned or repaired:
    /// the chased entity, or each threat (`None`: on no map).
    pub planned_for: Vec<Option<(Entity, GridPos)>>,
    /// Seconds since a search was last asked for.
    pub since_search: f32,
    /// Searches asked for because the goal moved.
    pub searches: u32,
    /// Times the path was kept on a moved target without a search.
    pub repairs: u32,
    /// The path was repaired since the last search (it may not be the cheapest).
    pub(crate) repaired: bool,
}

impl Pursuit {
    pub(crate) fn new(request: PathRequest, planned_for: Vec<Option<(Entity, GridPos)>>) -> Self {
        Self { request, planned_for, since_search: 0.0, searches: 0, repairs: 0, repaired: false }
    }

    /// Asks for the plan again.
    fn ask(&mut self, commands: &mut Commands, entity: Entity) {
        commands.entity(entity).insert(self.request.clone());
        self.since_search = 0.0;
        self.searches += 1;
    }
}

/// The agents with a [`Pursuit`] and what the system reads and changes of them.
type Pursuers<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static mut Pursuit,
        &'static Transform,
        Option<&'static OnNavMap>,
        Option<&'static mut NavPath>,
        Option<&'static PathFollower>,
        (Has<PathRequest>, Has<Replanning>),
    ),
>;

/// Keeps each [`Pursuit`]'s plan on its moving goal (see the module docs).
pub(crate) fn pursue(
    mut commands: Commands,
    time: Res<Time>,
    settings: Res<NavSettings>,
    maps: Res<NavMaps>,
    mut pursuers: Pursuers,
    targets: Targets,
    mut diagnostics: ResMut<NavDiagnostics>,
) {
    let diagnostics = &mut *diagnostics;
    let _timing = Stopwatch::start(&mut diagnostics.pursue_time);
    let (mut repaired, mut asked) = (0, 0);
    let dt = time.delta_secs();
    let policy: RepathPolicy = settings.repath;
    for (entity, mut pursuit, transform, on, path, follower, (requested, replanning)) in
        &mut pursuers
    {
        pursuit.since_search += dt;
        if requested {
            continue; // a plan is on its way
        }
        let position = transform.translation.truncate();
        let speed = follower.map(|f| f.speed);
        let arrive = pursuit.request.arrive;
        match pursuit.request.goal.clone() {
            PathGoal::Entity(target) => {
                let Ok((_, target_at)) = target_place(&targets, target) else {
                    // Gone: asked again, the request fails (`TargetGone`) and the agent stops.
                    pursuit.ask(&mut commands, entity);
                    asked += 1;
                    continue;
                };
                let Some(now) = chase_cell(&maps, &targets, target) else {
                    continue; // off every map for now: the agent keeps to its plan
                };
                let interval = policy.interval(position.distance(target_at), speed);
                let planned = pursuit.planned_for.first().copied().flatten();
                match path {
                    Some(mut path) if !replanning => {
                        let next = follower.map_or(0, |f| f.next);
                        if arrive != Arrival::AtGoal {
                            stop_in_range(&maps, &mut path, next, arrive, (now, target_at));
                        } else if planned != Some(now)
                            && keep_on_target(&maps, &mut path, next, now)
                        {
                            pursuit.planned_for = vec![Some(now)];
                            pursuit.repairs += 1;
                            repaired += 1;
                            pursuit.repaired = true;
                        }
                        let off = pursuit.planned_for.first().copied().flatten() != Some(now);
                        if (off || pursuit.repaired) && pursuit.since_search >= interval {
                            pursuit.ask(&mut commands, entity);
                            asked += 1;
                        }
                    }
                    Some(_) => {} // waiting for a new plan
                    None => {
                        // Standing (arrived): sets out again once the target has moved and
                        // the condition no longer holds where it stands.
                        let holds = agent_map(&maps, on, position).is_some_and(|map| {
                            map.entity == now.0
                                && map.geometry.world_to_cell(position).is_ok_and(|cell| {
                                    let goal = (now.1, target_at);
                                    arrival_holds(
                                        arrive,
                                        &map.grid,
                                        (cell, position),
                                        goal,
                                        f64::MAX,
                                    )
                                })
                        });
                        if planned != Some(now)
                            && !holds
                            && pursuit.since_search >= policy.min_interval
                        {
                            pursuit.ask(&mut commands, entity);
                            asked += 1;
                        }
                    }
                }
            }
            PathGoal::AwayFrom { threats, .. } => {
                if path.is_none() {
                    commands.entity(entity).remove::<Pursuit>(); // the flight is over
                    continue;
                }
                let now: Vec<_> =
                    threats_of(&threats, entity).map(|t| target_cell(&maps, &targets, t)).collect();
                let nearest = threats_of(&threats, entity)
                    .filter_map(|t| target_place(&targets, t).ok())
                    .map(|(_, at)| at.distance(position))
                    .fold(f32::INFINITY, f32::min);
                if now != pursuit.planned_for
                    && !replanning
                    && pursuit.since_search >= policy.interval(nearest, speed)
                {
                    pursuit.ask(&mut commands, entity);
                    asked += 1;
                }
            }
            _ => {
                commands.entity(entity).remove::<Pursuit>();
            }
        }
    }
    diagnostics.pursuits_repaired = repaired;
    diagnostics.pursuits_asked = asked;
}

/// The target moved to `now`: when that is a cell of the rest of the path, the path ends there;
/// when it is one legal step past the path's end, the path takes that step. True if either.
fn keep_on_target(maps: &NavMaps, path: &mut NavPath, next: usize, now: (Entity, GridPos)) -> bool {
    let Some((map, grid)) = one_walk_on(maps, path, now.0) else {
        return false;
    };
    let from = next.saturating_sub(1).min(path.cells.len());
    if let Some(k) = path.cells[from..].iter().position(|&c| c == now.1) {
        end_at(path, from + k, grid);
    } else {
        let Some(&last) = path.cells.last() else {
            return false;
        };
        let Some(step) = grid.step_cost(last, now.1) else {
            return false;
        };
        path.cells.push(now.1);
        path.points.push(body_point(&map.geometry, path.agent, now.1));
        path.cost += step;
        end_corners_at(path);
    }
    path.goal = now.1;
    path.goal_map = now.0;
    true
}

/// The map and grid of `path` when it is one walk on `map` that the movement can walk (a path
/// made by hand with no cells, or points not matching its cells, is the movement's to stop).
fn one_walk_on<'m>(
    maps: &'m NavMaps,
    path: &NavPath,
    map: Entity,
) -> Option<(&'m NavMap, &'m NavGrid)> {
    let walkable = !path.cells.is_empty() && path.points.len() == path.cells.len();
    let on = maps.get(path.map).filter(|_| map == path.map && path.legs.is_empty() && walkable)?;
    Some((on, on.grid_for(path.agent)?))
}

/// Ends `path` at its cell `end`: its cost and (smoothed) corners to match.
fn end_at(path: &mut NavPath, end: usize, grid: &NavGrid) {
    path.cells.truncate(end + 1);
    path.points.truncate(end + 1);
    path.cost = crate::path::path_cost(grid, &path.cells).unwrap_or(path.cost);
    end_corners_at(path);
}

/// A smoothed path's corners after its cells were cut or lengthened: none past the end, and
/// the old end and the new one walked through.
fn end_corners_at(path: &mut NavPath) {
    if path.corners.is_empty() {
        return;
    }
    let last = path.cells.len() - 1;
    path.corners.retain(|&c| c < last);
    if last > 0 && path.corners.last() != Some(&(last - 1)) {
        path.corners.push(last - 1);
    }
    path.corners.push(last);
}

/// With an arrival condition: when it already holds at the next cell of the path for where
/// the target is now, the path ends there.
fn stop_in_range(
    maps: &NavMaps,
    path: &mut NavPath,
    next: usize,
    arrive: Arrival,
    (now, target_at): ((Entity, GridPos), Vec2),
) {
    // Only on the target's map, and not by cost (the rest of the way to where the target is
    // now is not known without a search).
    if matches!(arrive, Arrival::WithinCost(_)) {
        return;
    }
    let Some((_, grid)) = one_walk_on(maps, path, now.0) else {
        return;
    };
    let k = next.min(path.cells.len() - 1);
    if k + 1 == path.cells.len() {
        return;
    }
    let here = (path.cells[k], path.points[k]);
    if arrival_holds(arrive, grid, here, (now.1, target_at), f64::MAX) {
        end_at(path, k, grid);
        path.arrival = arrive;
    }
}
