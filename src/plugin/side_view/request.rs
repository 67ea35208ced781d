//! Side-view requests answered: a [`PathRequest`] of a [`SideViewAgent`] becomes a
//! [`SideViewRoute`], with the request's arrival, search options and waiting read as on other
//! maps.

use bevy::prelude::*;

use super::agent::SideViewAgent;
use super::level::SideViewLevel;
use super::walk::{Planner, SideViewRoute, move_under_way, plan_for};
use crate::grid::GridPos;
use crate::plugin::agent::{
    Arrival, NavError, PathFailed, PathGoal, PathRequest, WAIT_RETRY_SECONDS, WhenUnreachable,
};
use crate::plugin::{NavMapLoading, NavSettings};
use crate::search::SearchOptions;
use crate::side_view::{JumpProfile, SideViewAim, SideViewError, SideViewPlanner};

/// On a side-view character whose request waits: for its level to finish loading (asked
/// again every frame), or, as [`WhenUnreachable::Wait`] asks, for the level's tiles to change
/// (asked again then, at most every [`WAIT_RETRY_SECONDS`]).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub(crate) struct SideViewWait {
    /// The level and its count of changes when it was last asked; `None`: every frame.
    pub(crate) seen: Option<(Entity, u64)>,
    /// Not asked again before this (seconds of `Time::elapsed`).
    pub(crate) not_before: f32,
}

/// What a request settles for, in the terms of the side-view planner: `arrive` (world
/// distances in tiles of `tile_size`, counted by its larger side so that a stop is never
/// farther than asked) and the search options (the request's, else the plugin's).
pub(crate) fn aim_of(
    request: &PathRequest,
    defaults: &SearchOptions,
    tile_size: Vec2,
) -> SideViewAim {
    let options = request.options.as_ref().unwrap_or(defaults);
    let tiles = |distance: f32| distance / tile_size.max_element().max(f32::MIN_POSITIVE);
    let (within, in_sight) = match request.arrive {
        Arrival::AtGoal | Arrival::WithinCost(_) => (0.0, false),
        Arrival::Within(d) => (tiles(d), false),
        Arrival::InSight { distance } => (tiles(distance), true),
    };
    SideViewAim {
        within,
        in_sight,
        max_expansions: options.limit.max_expansions,
        max_seconds: options.limit.max_cost,
        partial: options.partial,
        weight: options.weight,
    }
}

type Requests<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        Ref<'static, PathRequest>,
        &'static SideViewAgent,
        Option<&'static Transform>,
        Option<&'static SideViewRoute>,
        Option<&'static SideViewWait>,
    ),
>;

/// Answers the [`PathRequest`]s of [`SideViewAgent`]s: new ones, and waiting ones whose
/// time to be asked again has come.
#[allow(clippy::too_many_arguments)]
pub(crate) fn answer_requests(
    mut commands: Commands,
    requests: Requests,
    targets: Query<&Transform>,
    loading: Query<(), With<NavMapLoading>>,
    mut levels: Query<(Entity, &mut SideViewLevel)>,
    settings: Option<Res<NavSettings>>,
    time: Res<Time>,
    mut planner: Local<Planner>,
    mut failed: MessageWriter<PathFailed>,
) {
    let defaults = settings.map_or_else(SearchOptions::default, |s| s.search);
    let now = time.elapsed_secs();
    for (entity, request, agent, transform, route, wait) in &requests {
        let changes =
            |seen: (Entity, u64)| levels.get(seen.0).map_or(u64::MAX, |(_, l)| l.changes());
        let due = match wait {
            _ if request.is_changed() => true,
            None => false,
            Some(w) => now >= w.not_before && w.seen.is_none_or(|seen| changes(seen) != seen.1),
        };
        if !due {
            continue;
        }
        let Some(here) = transform.map(|t| t.translation.truncate()) else {
            let error = NavError::NoTransform;
            commands
                .entity(entity)
                .remove::<PathRequest>()
                .insert(PathFailed { entity, error: error.clone() });
            failed.write(PathFailed { entity, error });
            continue;
        };
        let asked = Asked { request: &request, agent, here, route, defaults: &defaults };
        let answer = answer(&asked, &targets, &mut levels, &mut planner.0);
        let mut entity_commands = commands.entity(entity);
        let (level, error) = match answer {
            Ok(route) => {
                entity_commands.remove::<(PathRequest, PathFailed, SideViewWait)>().insert(route);
                continue;
            }
            Err(failure) => failure,
        };
        let level_loading = agent.level.is_some_and(|l| loading.contains(l));
        if error == SideViewError::NoLevel && level_loading {
            // Asked again each frame until the level is there.
            entity_commands.insert(SideViewWait { seen: None, not_before: now });
            continue;
        }
        let waits = request.when_unreachable == WhenUnreachable::Wait
            && matches!(
                error,
                SideViewError::Unreachable { .. } | SideViewError::LimitReached { .. }
            );
        let told = wait.is_some_and(|w| w.seen.is_some()) && !request.is_changed();
        if let Some(route) = route {
            // It finishes the move under way, and stands.
            entity_commands.insert(route.stopping_short());
        }
        if waits {
            let seen = level.map(|l| (l, levels.get(l).map_or(0, |(_, l)| l.changes())));
            entity_commands.insert(SideViewWait { seen, not_before: now + WAIT_RETRY_SECONDS });
        } else {
            entity_commands.remove::<(PathRequest, SideViewWait)>();
        }
        if !told {
            let error = NavError::SideView(error);
            entity_commands.insert(PathFailed { entity, error: error.clone() });
            failed.write(PathFailed { entity, error });
        }
    }
}

/// A request and what it is asked about.
struct Asked<'a> {
    request: &'a PathRequest,
    agent: &'a SideViewAgent,
    /// The character's position.
    here: Vec2,
    /// The route it walks now.
    route: Option<&'a SideViewRoute>,
    defaults: &'a SearchOptions,
}

/// The level a character plans on: the one it names, else the one under it.
fn level_of(
    agent: &SideViewAgent,
    here: Vec2,
    levels: &Query<(Entity, &mut SideViewLevel)>,
    place: impl Fn(Entity) -> Vec2,
) -> Option<Entity> {
    agent.level.or_else(|| {
        levels
            .iter()
            .find(|(e, level)| level.world_to_tile(place(*e), here).is_some())
            .map(|(e, _)| e)
    })
}

/// The route answering a request, or why there is none (and the level it was asked on).
fn answer(
    asked: &Asked,
    targets: &Query<&Transform>,
    levels: &mut Query<(Entity, &mut SideViewLevel)>,
    planner: &mut SideViewPlanner,
) -> Result<SideViewRoute, (Option<Entity>, SideViewError)> {
    let place = |e: Entity| targets.get(e).map_or(Vec2::ZERO, |t| t.translation.truncate());
    let level_entity =
        level_of(asked.agent, asked.here, levels, place).ok_or((None, SideViewError::NoLevel))?;
    let fail = |e| (Some(level_entity), e);
    let at = place(level_entity);
    let (_, mut level) = levels.get_mut(level_entity).map_err(|_| fail(SideViewError::NoLevel))?;
    let profile = asked.agent.profile;
    let body = UVec2::new(profile.body_width, profile.body_height);
    // Carry on with the move under way: the new plan starts where it lands.
    // (A change of tiles the old route has not looked at yet is looked at on the new one: the
    // move under way may be cut.)
    let carried = asked.route.filter(|r| r.level == level_entity && !r.path.stops.is_empty());
    let base = carried.map(|r| (move_under_way(&r.path, r.clock), r.seen()));
    let start = match (&base, asked.request.start) {
        (Some(((b, _), _)), _) => *b.stops.last().unwrap_or(&GridPos::new(0, 0)),
        (None, Some(start)) => start,
        (None, None) => corner_tile(&level, at, asked.here, body, true).map_err(fail)?,
    };
    let goal = goal_tile(&asked.request.goal, level_entity, at, &profile, &mut level, targets)
        .map_err(fail)?;
    level.bring_in_step();
    let changes = level.changes();
    let aim = aim_of(asked.request, asked.defaults, level.tile_size);
    let (moves, map) = level.in_step(&profile).map_err(fail)?;
    let plan = plan_for(planner, moves, map, (start, goal), asked.request, &aim).map_err(fail)?;
    Ok(match base {
        Some(((b, clock), seen)) => {
            let path = b.then(plan);
            SideViewRoute::new(level_entity, path, goal, asked.request.clone(), aim, seen).at(clock)
        }
        None => SideViewRoute::new(level_entity, plan, goal, asked.request.clone(), aim, changes),
    })
}

/// The tile a goal names on the level `level_entity` (placed at `at`) for `profile`'s body: a
/// tile as given, a world point or an entity's position as the ground at or under it.
fn goal_tile(
    goal: &PathGoal,
    level_entity: Entity,
    at: Vec2,
    profile: &JumpProfile,
    level: &mut SideViewLevel,
    targets: &Query<&Transform>,
) -> Result<GridPos, SideViewError> {
    let world = match goal {
        PathGoal::Tile(tile) => return Ok(*tile),
        PathGoal::OnMap { map, cell } if *map == level_entity => return Ok(*cell),
        PathGoal::OnMap { .. } => return Err(SideViewError::GoalKind { kind: "other maps'" }),
        PathGoal::World(world) => *world,
        PathGoal::Entity(target) => targets
            .get(*target)
            .map_err(|_| SideViewError::GoalKind { kind: "gone entities'" })?
            .translation
            .truncate(),
        PathGoal::Nearest(_) => return Err(SideViewError::GoalKind { kind: "nearest-of" }),
        PathGoal::AwayFrom { .. } => return Err(SideViewError::GoalKind { kind: "flee" }),
        PathGoal::Wander { .. } => return Err(SideViewError::GoalKind { kind: "wander" }),
    };
    let body = UVec2::new(profile.body_width, profile.body_height);
    let tile = corner_tile(level, at, world, body, false)?;
    let moves = level.moves_for(profile)?;
    moves.landing_below(tile).ok_or(SideViewError::NoFooting { pos: tile, is_start: false })
}

/// The body's lower left tile for a character whose centre is at `world`; off the level, the
/// start's (`is_start`) or the goal's [`SideViewError::OffMap`].
fn corner_tile(
    level: &SideViewLevel,
    at: Vec2,
    world: Vec2,
    body: UVec2,
    is_start: bool,
) -> Result<GridPos, SideViewError> {
    let corner = level.world_to_corner(at, world, body).round();
    let on = corner.x >= 0.0
        && corner.y >= 0.0
        && corner.x < level.map().width() as f32
        && corner.y < level.map().height() as f32;
    let off = SideViewError::OffMap { pos: GridPos::new(u32::MAX, u32::MAX), is_start };
    on.then(|| GridPos::new(corner.x as u32, corner.y as u32)).ok_or(off)
}
