//! Side-view requests answered, and the routes played leg by leg: re-planned at the next stop
//! when a tile change cuts the way ahead, and a character whose own move was cut dropped to
//! the ground under it.

use bevy::prelude::*;

use super::agent::SideViewAgent;
use super::level::SideViewLevel;
use crate::grid::GridPos;
use crate::plugin::agent::{
    Arrival, Arrived, NavError, PathFailed, PathRequest, WAIT_RETRY_SECONDS,
};
use crate::side_view::{
    Arc, Leg, LegKind, SideViewAim, SideViewError, SideViewMap, SideViewMoves, SideViewPath,
    SideViewPlanner,
};

/// The plan a [`SideViewAgent`] walks: put on it when its [`PathRequest`] is answered, taken
/// off when it arrives. `path`'s legs say what to animate ([`leg_now`](Self::leg_now)).
#[derive(Component, Clone, Debug)]
pub struct SideViewRoute {
    /// The level walked.
    pub level: Entity,
    /// The plan, its times counted from `clock`'s 0.
    pub path: SideViewPath,
    /// Seconds into `path`.
    pub clock: f32,
    /// Where it is going (the body's lower left tile).
    pub goal: GridPos,
    seen: u64,
    /// It failed on the way and walks to the end of what is left, then stops.
    stops_short: bool,
    /// The request it answers (re-plans settle for what it asks).
    request: PathRequest,
    aim: SideViewAim,
    /// Its way was cut and no other found: it waits at the end for the tiles to change.
    waits: bool,
    /// Seconds waited since it last planned.
    waited: f32,
    /// The tiles changed since it last planned.
    stale: bool,
}

impl SideViewRoute {
    /// A route walking `path` on `level` to `goal` for `request`, in step with the level's
    /// `seen` changes.
    pub(crate) fn new(
        level: Entity,
        path: SideViewPath,
        goal: GridPos,
        request: PathRequest,
        aim: SideViewAim,
        seen: u64,
    ) -> Self {
        let (clock, stops_short, waits, waited, stale) = (0.0, false, false, 0.0, false);
        Self { level, path, clock, goal, seen, stops_short, request, aim, waits, waited, stale }
    }

    /// The same, `clock` seconds in.
    pub(crate) fn at(mut self, clock: f32) -> Self {
        self.clock = clock;
        self
    }

    /// The changes of its level it is in step with.
    pub(crate) fn seen(&self) -> u64 {
        self.seen
    }

    /// The same route cut to the move under way: it finishes it and stands.
    pub(crate) fn stopping_short(&self) -> Self {
        let (path, clock) = move_under_way(&self.path, self.clock);
        Self { path, clock, stops_short: true, waits: false, ..self.clone() }
    }

    /// The leg being played now and the seconds into it.
    pub fn leg_now(&self) -> Option<(&Leg, f32)> {
        self.path.leg_at(self.clock).map(|(i, t)| (&self.path.legs[i], t))
    }
}

/// The planner's memory, one a system (a `Local`: no resource to make).
#[derive(Default)]
pub(crate) struct Planner(pub(crate) SideViewPlanner);

/// What a frame of a route came to.
#[derive(Debug, PartialEq)]
pub(crate) enum Step {
    Moving,
    Arrived,
    /// It stopped at the end of what was left.
    Stopped,
    /// It stands at the end of what was left, waiting for a way to open.
    Waiting,
    /// A way opened while it waited: it walks on.
    Resumed,
}

/// One frame of a route: a change of tiles since it last looked is checked against the way
/// ahead (the move under way and the moves after it, planned again if need be), and the clock
/// moves on by `dt`. A failure is returned for the game to be told; the route then ends where
/// what is left of it ends.
pub(crate) fn advance(
    route: &mut SideViewRoute,
    moves: &SideViewMoves,
    map: &SideViewMap,
    changes: u64,
    planner: &mut SideViewPlanner,
    dt: f32,
) -> (Step, Option<SideViewError>) {
    let mut failure = None;
    let mut changed = changes != route.seen;
    if changed {
        route.seen = changes;
        failure = look_ahead(route, moves, map, planner);
        let no_way = matches!(
            failure,
            Some(SideViewError::Unreachable { .. } | SideViewError::LimitReached { .. })
        );
        if no_way {
            // It waits at the end of what is left for the tiles to change again.
            (route.waits, route.waited, route.stale) = (true, 0.0, false);
            changed = false;
        }
    }
    route.clock += dt.max(0.0);
    if route.clock < route.path.duration {
        return (Step::Moving, failure);
    }
    route.clock = route.path.duration;
    if route.waits {
        route.waited += dt.max(0.0);
        return (try_again(route, moves, map, changed, planner), failure);
    }
    let step = if route.stops_short { Step::Stopped } else { Step::Arrived };
    (step, failure)
}

/// A route waiting at its end: once the tiles changed since it last planned and
/// [`WAIT_RETRY_SECONDS`] have passed, it plans again from where it stands.
fn try_again(
    route: &mut SideViewRoute,
    moves: &SideViewMoves,
    map: &SideViewMap,
    changed: bool,
    planner: &mut SideViewPlanner,
) -> Step {
    route.stale |= changed;
    if !route.stale || route.waited < WAIT_RETRY_SECONDS {
        return Step::Waiting;
    }
    (route.waited, route.stale) = (0.0, false);
    let from = *route.path.stops.last().unwrap_or(&route.goal);
    match plan_for(planner, moves, map, (from, route.goal), &route.request, &route.aim) {
        Ok(rest) => {
            route.path = std::mem::replace(&mut route.path, resting_at(from)).then(rest);
            (route.stops_short, route.waits) = (false, false);
            Step::Resumed
        }
        Err(_) => Step::Waiting,
    }
}

/// The plan `request` asks for from `start` to `goal`: planned with `aim` (what
/// `request::aim_of` makes of it), then, for [`Arrival::WithinCost`] (seconds on a side-view
/// level), ending at the first stop from which the rest takes at most that long.
pub(crate) fn plan_for(
    planner: &mut SideViewPlanner,
    moves: &SideViewMoves,
    map: &SideViewMap,
    (start, goal): (GridPos, GridPos),
    request: &PathRequest,
    aim: &SideViewAim,
) -> Result<SideViewPath, SideViewError> {
    let path = planner.plan_aimed(moves, map, start, goal, aim)?;
    match request.arrive {
        Arrival::WithinCost(seconds) if seconds.is_nan() || seconds < 0.0 => {
            Err(SideViewError::InvalidAim {
                what: "within cost",
                value: seconds,
                range: "0 or more seconds",
            })
        }
        Arrival::WithinCost(seconds) if path.complete => {
            let rest = |i: usize| f64::from(path.duration - path.arrivals[i]);
            let n = (0..path.stops.len()).find(|&i| rest(i) <= seconds).unwrap_or(0);
            Ok(path.until(n))
        }
        _ => Ok(path),
    }
}

/// The move under way of a path `clock` seconds in, alone (from the stop before to the next),
/// and the seconds into it.
pub(crate) fn move_under_way(path: &SideViewPath, clock: f32) -> (SideViewPath, f32) {
    let n = path.next_stop(clock);
    let k = if path.arrivals[n] > clock { n.saturating_sub(1) } else { n };
    (path.until(n).after(k), clock - path.arrivals[k])
}

/// After a change of tiles: if the move under way now meets a solid tile (or its landing lost
/// its footing), the character drops from where it is to the ground under it and plans from
/// there; else, if a move after it changed, it plans again from where the move under way
/// lands (and finishes that move first).
fn look_ahead(
    route: &mut SideViewRoute,
    moves: &SideViewMoves,
    map: &SideViewMap,
    planner: &mut SideViewPlanner,
) -> Option<SideViewError> {
    let path = &route.path;
    let n = path.next_stop(route.clock);
    let profile = moves.profile();
    let body = (profile.body_width, profile.body_height);
    let until = path.arrivals[n];
    // Samples no more than 1/32 of a tile apart along the rest of the move.
    let fastest = path
        .legs
        .iter()
        .filter(|l| l.start + l.duration >= route.clock && l.start <= until)
        .map(|l| match l.arc {
            Some(a) => a.vx.abs() + a.vy.abs() + a.gravity * l.duration,
            None => {
                let d = (l.to[0] - l.from[0]).abs() + (l.to[1] - l.from[1]).abs();
                d / l.duration.max(1e-6)
            }
        })
        .fold(0.0f32, f32::max);
    let samples = ((until - route.clock) * fastest * 32.0).ceil().clamp(8.0, 65536.0) as usize;
    let cut = !moves.rests(path.stops[n])
        || (0..=samples).any(|i| {
            let t = route.clock + (until - route.clock) * i as f32 / samples as f32;
            map.overlaps_solid(path.position_at(t), body)
        });
    if !cut {
        if path.still_walkable(moves, n) {
            return None;
        }
        let (base, clock) = move_under_way(path, route.clock);
        let from = *base.stops.last().unwrap_or(&path.stops[n]);
        route.clock = clock;
        return match plan_for(planner, moves, map, (from, route.goal), &route.request, &route.aim) {
            Ok(rest) => {
                route.path = base.then(rest);
                None
            }
            Err(e) => {
                route.path = base;
                route.stops_short = true;
                Some(e)
            }
        };
    }
    let pos = nearest_tile(map, path.position_at(route.clock));
    let Some((fit, landing)) = moves.way_out(pos) else {
        // Nowhere on the level for the body: it stays where it is.
        route.path = resting_at(pos);
        route.clock = 0.0;
        route.stops_short = true;
        return Some(SideViewError::NoFooting { pos, is_start: true });
    };
    let fall = fall_to(fit, landing, profile.gravity);
    route.clock = 0.0;
    match plan_for(planner, moves, map, (landing, route.goal), &route.request, &route.aim) {
        Ok(rest) => {
            route.path = fall.then(rest);
            None
        }
        Err(e) => {
            route.path = fall;
            route.stops_short = true;
            Some(e)
        }
    }
}

/// The tile of `map` nearest a body corner (in tiles), clamped onto the map.
fn nearest_tile(map: &SideViewMap, corner: [f32; 2]) -> GridPos {
    let on = |v: f32, size: u32| (v.round().max(0.0) as u32).min(size - 1);
    GridPos::new(on(corner[0], map.width()), on(corner[1], map.height()))
}

/// A path that stays at `pos`.
fn resting_at(pos: GridPos) -> SideViewPath {
    SideViewPath {
        legs: Vec::new(),
        stops: vec![pos],
        arrivals: vec![0.0],
        duration: 0.0,
        expanded: 0,
        complete: true,
    }
}

/// Straight down from `fit` (a place the body fits) to `landing` under it.
fn fall_to(fit: GridPos, landing: GridPos, gravity: f32) -> SideViewPath {
    let drop = fit.y.saturating_sub(landing.y) as f32;
    let mut path = resting_at(fit);
    if drop > 0.0 {
        let duration = (2.0 * drop / gravity).sqrt();
        path.legs.push(Leg {
            kind: LegKind::Fall,
            from: [fit.x as f32, fit.y as f32],
            to: [landing.x as f32, landing.y as f32],
            start: 0.0,
            duration,
            arc: Some(Arc { vx: 0.0, vy: 0.0, gravity }),
        });
        path.stops.push(landing);
        path.arrivals.push(duration);
        path.duration = duration;
    }
    path
}

/// Where a character standing still at `corner` (in tiles) goes after the tiles changed: a
/// fall to the ground under it when a tile was set on it or the ground under it went; `None`
/// when it stands as it was.
pub(crate) fn settle(
    moves: &SideViewMoves,
    map: &SideViewMap,
    corner: Vec2,
) -> Option<SideViewPath> {
    let profile = moves.profile();
    let pos = nearest_tile(map, [corner.x, corner.y]);
    let fine = moves.rests(pos)
        && !map.overlaps_solid([corner.x, corner.y], (profile.body_width, profile.body_height));
    if fine {
        return None;
    }
    let (fit, landing) = moves.way_out(pos)?;
    Some(fall_to(fit, landing, profile.gravity))
}

type Standing<'w, 's> = Query<
    'w,
    's,
    (Entity, &'static mut Transform, &'static SideViewAgent),
    (Without<SideViewRoute>, Without<SideViewLevel>),
>;

type Levels<'w, 's> = Query<
    'w,
    's,
    (Entity, &'static mut SideViewLevel, Option<&'static Transform>),
    (Without<SideViewRoute>, Without<SideViewAgent>),
>;

/// Characters standing still on a level whose tiles changed: one a tile was set on, or whose
/// ground went, falls to the ground under it (a route that ends there).
fn settle_standing(commands: &mut Commands, standing: &mut Standing, levels: &mut Levels) {
    let changed: Vec<Entity> =
        levels.iter().filter(|(_, l, _)| l.changes() != l.settled).map(|(e, ..)| e).collect();
    if changed.is_empty() {
        return;
    }
    for (entity, mut transform, agent) in standing.iter_mut() {
        let here = transform.translation.truncate();
        let body = UVec2::new(agent.profile.body_width, agent.profile.body_height);
        let on = |e: &Entity, l: &SideViewLevel, t: Option<&Transform>| {
            agent.level.map_or_else(
                || {
                    l.world_to_tile(t.map_or(Vec2::ZERO, |t| t.translation.truncate()), here)
                        .is_some()
                },
                |want| want == *e,
            )
        };
        let Some((level_entity, mut level, at)) =
            levels.iter_mut().find(|(e, l, t)| changed.contains(e) && on(e, l, *t))
        else {
            continue;
        };
        let at = at.map_or(Vec2::ZERO, |t| t.translation.truncate());
        let corner = level.world_to_corner(at, here, body);
        let changes = level.changes();
        let Ok((moves, map)) = level.in_step(&agent.profile) else {
            continue;
        };
        if let Some(fall) = settle(moves, map, corner) {
            let goal = *fall.stops.last().unwrap_or(&GridPos::new(0, 0));
            let start = fall.position_at(0.0);
            let world = level.corner_to_world(at, start, body);
            transform.translation.x = world.x;
            transform.translation.y = world.y;
            let request = PathRequest::to(goal);
            let aim = SideViewAim::default();
            let mut route = SideViewRoute::new(level_entity, fall, goal, request, aim, changes);
            route.stops_short = true;
            commands.entity(entity).insert(route);
        }
    }
    for (_, mut level, _) in levels.iter_mut() {
        if level.settled != level.changes() {
            level.settled = level.changes();
        }
    }
}

/// Plays the routes: each character's `Transform` follows its path; arrivals and failures on
/// the way are told. Characters standing still are moved when the tiles change under them.
#[allow(clippy::too_many_arguments)]
pub(crate) fn walk_routes(
    mut commands: Commands,
    time: Res<Time>,
    mut walkers: Query<(Entity, &mut Transform, &mut SideViewRoute, &SideViewAgent)>,
    mut standing: Standing,
    mut levels: Levels,
    mut planner: Local<Planner>,
    mut arrived: MessageWriter<Arrived>,
    mut failed: MessageWriter<PathFailed>,
) {
    for (_, mut level, _) in levels.iter_mut() {
        if level.has_pending() {
            level.bring_in_step();
        }
    }
    settle_standing(&mut commands, &mut standing, &mut levels);
    let dt = time.delta_secs();
    for (entity, mut transform, mut route, agent) in &mut walkers {
        let Ok((_, mut level, level_transform)) = levels.get_mut(route.level) else {
            commands.entity(entity).remove::<SideViewRoute>();
            let error = NavError::MapGone { map: route.level };
            failed.write(PathFailed { entity, error });
            continue;
        };
        if !route.path.is_well_formed() || !route.clock.is_finite() {
            commands.entity(entity).remove::<SideViewRoute>();
            failed.write(PathFailed { entity, error: NavError::MalformedPath });
            continue;
        }
        let at = level_transform.map_or(Vec2::ZERO, |t| t.translation.truncate());
        let changes = level.changes();
        let (step, failure) = match level.in_step(&agent.profile) {
            Ok((moves, map)) => advance(&mut route, moves, map, changes, &mut planner.0, dt),
            Err(e) => (Step::Stopped, Some(e)),
        };
        let body = UVec2::new(agent.profile.body_width, agent.profile.body_height);
        let corner = route.path.position_at(route.clock);
        let world = level.corner_to_world(at, corner, body);
        transform.translation.x = world.x;
        transform.translation.y = world.y;
        if let Some(e) = failure {
            let error = NavError::SideView(e);
            commands.entity(entity).insert(PathFailed { entity, error: error.clone() });
            failed.write(PathFailed { entity, error });
        }
        match step {
            Step::Moving | Step::Waiting => {}
            Step::Resumed => {
                commands.entity(entity).remove::<PathFailed>();
            }
            Step::Arrived => {
                commands.entity(entity).remove::<SideViewRoute>();
                let cell = *route.path.stops.last().unwrap_or(&route.goal);
                let reached_goal = route.path.complete;
                let short = reached_goal && cell != route.goal;
                let by = if short { route.request.arrive } else { Arrival::AtGoal };
                arrived.write(Arrived { entity, cell, reached_goal, by });
            }
            Step::Stopped => {
                commands.entity(entity).remove::<SideViewRoute>();
            }
        }
    }
}

/// Draws each route's way ahead: runs and climbs in white, jumps yellow, falls and drops
/// blue, the arcs as curves.
pub(crate) fn draw_routes(
    mut gizmos: Gizmos,
    walkers: Query<(&SideViewRoute, &SideViewAgent)>,
    levels: Query<(&SideViewLevel, Option<&Transform>)>,
) {
    for (route, agent) in &walkers {
        let Ok((level, transform)) = levels.get(route.level) else {
            continue;
        };
        let at = transform.map_or(Vec2::ZERO, |t| t.translation.truncate());
        let body = UVec2::new(agent.profile.body_width, agent.profile.body_height);
        for leg in route.path.legs.iter().filter(|l| l.start + l.duration >= route.clock) {
            let color = match leg.kind {
                LegKind::Walk | LegKind::Step | LegKind::Climb => Color::srgb(0.95, 0.95, 0.95),
                LegKind::Jump => Color::srgb(1.0, 0.85, 0.2),
                LegKind::Fall | LegKind::Drop => Color::srgb(0.3, 0.6, 1.0),
            };
            let samples = if leg.arc.is_some() { 16 } else { 1 };
            let points = (0..=samples).map(|i| {
                let corner = leg.position_at(leg.duration * i as f32 / samples as f32);
                level.corner_to_world(at, corner, body)
            });
            gizmos.linestrip_2d(points, color);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::side_view::{JumpProfile, SideTile};

    fn route_on(
        moves: &SideViewMoves,
        map: &SideViewMap,
        from: GridPos,
        to: GridPos,
    ) -> SideViewRoute {
        let path = moves.plan(map, from, to).unwrap();
        let (request, aim) = (PathRequest::to(to), SideViewAim::default());
        SideViewRoute::new(Entity::PLACEHOLDER, path, to, request, aim, 0)
    }

    /// Plays `route` to its end, frame by frame, checking the body every frame.
    fn play(
        route: &mut SideViewRoute,
        moves: &SideViewMoves,
        map: &SideViewMap,
        changes: u64,
    ) -> Step {
        let mut planner = SideViewPlanner::default();
        let body = (moves.profile().body_width, moves.profile().body_height);
        for _ in 0..2000 {
            let (step, _) = advance(route, moves, map, changes, &mut planner, 1.0 / 60.0);
            let at = route.path.position_at(route.clock);
            assert!(!map.overlaps_solid(at, body), "inside a solid tile at {at:?}: {route:?}");
            if step != Step::Moving {
                return step;
            }
        }
        panic!("never ended: {route:?}");
    }

    #[test]
    fn a_tile_set_in_a_jump_s_way_drops_the_jumper_and_it_plans_on() {
        let mut map = SideViewMap::from_rows(&[
            "..........",
            "..........",
            "..........",
            "###....###",
            "###.......",
            "##########",
        ])
        .unwrap();
        let profile = JumpProfile::new(6.0, 3.0, 40.0);
        let mut moves = SideViewMoves::new(&map, profile).unwrap();
        let (from, to) = (GridPos::new(1, 3), GridPos::new(8, 3));
        let mut route = route_on(&moves, &map, from, to);
        let jump = route.path.legs.iter().find(|l| l.kind == LegKind::Jump).copied().unwrap();
        // Halfway through the jump, a block appears just ahead on its arc.
        route.clock = jump.start + jump.duration * 0.5;
        let ahead = jump.position_at(jump.duration * 0.6);
        let block = GridPos::new(ahead[0].round() as u32, ahead[1].round() as u32);
        map.set(block, SideTile::Solid).unwrap();
        moves.retile(&map, &[block]).unwrap();
        let mut planner = SideViewPlanner::default();
        let (step, failure) = advance(&mut route, &moves, &map, 1, &mut planner, 1.0 / 60.0);
        assert_eq!((step, failure), (Step::Moving, None));
        // It comes down first, then goes on to the goal.
        assert_eq!(route.path.legs[0].kind, LegKind::Fall, "{route:?}");
        assert_eq!(play(&mut route, &moves, &map, 1), Step::Arrived);
        assert_eq!(route.path.stops.last(), Some(&to));
    }

    #[test]
    fn a_tile_set_on_the_way_ahead_is_planned_round_at_the_next_stop() {
        let mut map = SideViewMap::from_rows(&[
            "............",
            "............",
            "............",
            "............",
            "############",
        ])
        .unwrap();
        let profile = JumpProfile::new(6.0, 2.0, 40.0);
        let mut moves = SideViewMoves::new(&map, profile).unwrap();
        let (from, to) = (GridPos::new(0, 1), GridPos::new(11, 1));
        let mut route = route_on(&moves, &map, from, to);
        let before = route.path.duration;
        route.clock = 0.05;
        // A one-tile wall halfway: walked round by a jump, planned at the next stop.
        let wall = GridPos::new(6, 1);
        map.set(wall, SideTile::Solid).unwrap();
        moves.retile(&map, &[wall]).unwrap();
        assert_eq!(play(&mut route, &moves, &map, 1), Step::Arrived);
        assert_eq!(route.path.stops.last(), Some(&to));
        assert!(route.path.legs.iter().any(|l| l.kind == LegKind::Jump));
        // Without the look ahead it would have walked into the wall: the plan changed.
        assert!(route.path.duration != before);
    }
}
