//! Group orders in an app: a [`GroupOrder`] entity sends its members to one point in
//! formation, each with its own goal cell ([`group_goals`]).

use bevy::prelude::*;

use crate::grid::GridPos;
use crate::path::{Formation, FormationError, group_goals};
use crate::plugin::agent::{GroupPace, NavPath, PathFollower, PathGoal, PathRequest};
use crate::plugin::map::{NavMap, NavMaps};
#[cfg(doc)]
use crate::plugin::march::MAX_MARCHING;
use crate::plugin::march::{GroupMarch, Marcher, Marching, join_march, plan_march};
use crate::plugin::movement::GridLocked;
use crate::plugin::profiles::AgentKind;
use crate::plugin::pursuit::Pursuit;

/// Spawn one to send `members` to `goal` (a world point) as a group: each member gets a
/// [`PathRequest`] to its own cell of the `formation` round the goal, `spacing` cells apart,
/// the slots handed out so that the group walks least (see [`group_goals`]). The order entity
/// is despawned once given; one that cannot be given keeps a [`GroupOrderFailed`] saying why
/// (the game despawns it). Members despawned, or with no `Transform`, are left out; members
/// on another map than the goal's are sent across links like any request. With `same_pace`,
/// every member walks at the slowest one's speed on the way ([`GroupPace`]), so that the
/// group keeps together.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_tilemap_nav::path::Formation;
/// use bevy_tilemap_nav::plugin::GroupOrder;
///
/// fn order(mut commands: Commands, selected: Query<Entity, With<Transform>>) {
///     let members = selected.iter().collect();
///     commands.spawn(GroupOrder::new(members, Vec2::new(320.0, 96.0), Formation::Box));
/// }
/// ```
#[derive(Component, Clone, Debug, PartialEq)]
pub struct GroupOrder {
    /// The agents sent.
    pub members: Vec<Entity>,
    /// Where to (the world point the formation forms round).
    pub goal: Vec2,
    /// The shape they take there.
    pub formation: Formation,
    /// Cells between neighbours in the formation (1: side by side).
    pub spacing: u32,
    /// Every member walks at the slowest member's speed until it arrives.
    pub same_pace: bool,
    /// The group walks in formation: its members keep their slots round one anchor on the
    /// way, file through what is too narrow and form again after it ([`GroupMarch`]).
    pub marching: bool,
}

impl GroupOrder {
    /// `members` to `goal` in `formation`, side by side, each at its own speed.
    pub fn new(members: Vec<Entity>, goal: Vec2, formation: Formation) -> Self {
        Self { members, goal, formation, spacing: 1, same_pace: false, marching: false }
    }

    /// The order walked in formation (see [`GroupMarch`]): members that are plain one-tile
    /// walkers, not grid-locked, standing on the goal's map, at most [`MAX_MARCHING`], march
    /// at the slowest one's speed; the rest (or all, when fewer than two can) walk as
    /// without it.
    pub fn marching(self) -> Self {
        Self { marching: true, ..self }
    }

    /// The order with every member at the slowest member's speed.
    pub fn at_same_pace(self) -> Self {
        Self { same_pace: true, ..self }
    }
}

/// The slowest of `speeds` that is a number above 0 (none: `None`).
pub(crate) fn slowest(speeds: impl Iterator<Item = f32>) -> Option<f32> {
    speeds.filter(|s| s.is_finite() && *s > 0.0).reduce(f32::min)
}

/// What a group pace's end is read from: the walker's path and whether it has a request or
/// marches.
type Paced =
    (Entity, &'static GroupPace, Option<&'static NavPath>, Has<PathRequest>, Has<Marching>);

/// Takes [`GroupPace`] off the members that arrived, stopped, or walk to another goal.
fn end_group_paces(commands: &mut Commands, paced: &Query<Paced>) {
    for (entity, pace, path, requested, marching) in paced {
        let walking_there = path.is_some_and(|p| (p.goal_map, p.goal) == pace.goal);
        if !requested && !walking_there && !marching {
            commands.entity(entity).remove::<GroupPace>();
        }
    }
}

/// On a [`GroupOrder`] entity whose order could not be given: why.
#[derive(Component, Clone, Debug, PartialEq)]
pub enum GroupOrderFailed {
    /// No navigation map lies under the goal.
    NoMap,
    /// The formation could not be placed (no members left, no room, a goal in a wall...).
    Formation(FormationError),
}

/// The goal cells of an order whose members stand at `starts` (`None`: off the goal's map,
/// counted as standing at the goal), on `map`'s grid: see [`group_goals`].
pub(crate) fn order_goals(
    grid: &crate::grid::NavGrid,
    starts: &[Option<GridPos>],
    goal: GridPos,
    order: &GroupOrder,
) -> Result<Vec<GridPos>, FormationError> {
    let starts: Vec<GridPos> = starts.iter().map(|s| s.unwrap_or(goal)).collect();
    group_goals(grid, &starts, goal, &order.formation, order.spacing)
}

/// What an order reads of a member: where it stands, its speed, whether it may march.
type MemberData = (
    &'static Transform,
    Option<&'static PathFollower>,
    Has<GridLocked>,
    Option<&'static AgentKind>,
);

/// A member present for an order: its entity, where it stands, its speed, whether it is of a
/// kind that marches (a plain one-tile walker, not grid-locked).
type Present = (Entity, Vec2, Option<f32>, bool);

/// Gives new group orders: gathers the members' cells, places the formation, and puts each
/// member's request on it (and its pace), or starts its march; takes the paces of earlier
/// orders off where they are done ([`end_group_paces`]).
pub(crate) fn give_group_orders(
    mut commands: Commands,
    orders: Query<(Entity, &GroupOrder), Added<GroupOrder>>,
    members: Query<MemberData>,
    maps: Res<NavMaps>,
    paced: Query<Paced>,
) {
    end_group_paces(&mut commands, &paced);
    for (order_entity, order) in &orders {
        let present: Vec<Present> = order
            .members
            .iter()
            .filter_map(|&m| {
                let (place, follower, locked, kind) = members.get(m).ok()?;
                let plain = !locked && kind.is_none_or(|k| *k == AgentKind::PLAIN);
                Some((m, place.translation.truncate(), follower.map(|f| f.speed), plain))
            })
            .collect();
        match give(&mut commands, order_entity, order, &present, &maps) {
            Ok(true) => {}
            Ok(false) => commands.entity(order_entity).despawn(),
            Err(why) => {
                commands.entity(order_entity).insert(why);
            }
        }
    }
}

/// Gives one order to the members `present`: `Ok(true)` when some of them march (the order
/// entity then carries the [`GroupMarch`]).
fn give(
    commands: &mut Commands,
    order_entity: Entity,
    order: &GroupOrder,
    present: &[Present],
    maps: &NavMaps,
) -> Result<bool, GroupOrderFailed> {
    let pace = slowest(present.iter().filter_map(|p| p.2)).filter(|_| order.same_pace);
    let map = maps.at_world(order.goal).ok_or(GroupOrderFailed::NoMap)?;
    let goal = map.geometry.world_to_cell(order.goal).map_err(|_| GroupOrderFailed::NoMap)?;
    let starts: Vec<Option<GridPos>> =
        present.iter().map(|p| map.geometry.world_to_cell(p.1).ok()).collect();
    let goals =
        order_goals(&map.grid, &starts, goal, order).map_err(GroupOrderFailed::Formation)?;
    let march = order.marching.then(|| march_of(map, present, &starts, &goals, goal)).flatten();
    for ((member, ..), &cell) in present.iter().zip(&goals) {
        let marching_to = march.as_ref().and_then(|m| m.goal_of(*member));
        let cell = marching_to.unwrap_or(cell);
        if marching_to.is_some() {
            join_march(commands, *member, order_entity);
        } else {
            // Sent elsewhere: a chase or a flight it was on ends (a request for a cell of a
            // map is what the plugin's own re-plans ask, and would keep it).
            let request = PathRequest::to(PathGoal::OnMap { map: map.entity, cell });
            commands.entity(*member).remove::<Pursuit>().insert(request);
        }
        match pace {
            Some(speed) => {
                commands.entity(*member).insert(GroupPace { speed, goal: (map.entity, cell) })
            }
            None => commands.entity(*member).remove::<GroupPace>(),
        };
    }
    let Some(march) = march else { return Ok(false) };
    commands.entity(order_entity).insert(march);
    Ok(true)
}

/// The march of the members of `present` that may march (of a plain kind, with a speed,
/// standing on `map`), to their `goals` round `goal`.
fn march_of(
    map: &NavMap,
    present: &[Present],
    starts: &[Option<GridPos>],
    goals: &[GridPos],
    goal: GridPos,
) -> Option<GroupMarch> {
    let marchers: Vec<Marcher> = present
        .iter()
        .zip(starts)
        .zip(goals)
        .filter_map(|(((entity, at, speed, plain), start), &goal)| {
            let speed = speed.filter(|s| s.is_finite() && *s > 0.0 && *plain && start.is_some())?;
            Some(Marcher { entity: *entity, at: *at, speed, goal })
        })
        .collect();
    plan_march(map, &marchers, goal)
}
