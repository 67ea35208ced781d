//! Group orders in an app: a [`GroupOrder`] entity sends its members to one point in
//! formation, each with its own goal cell ([`group_goals`]).

use bevy::prelude::*;

use crate::grid::GridPos;
use crate::path::{Formation, FormationError, group_goals};
use crate::plugin::agent::{NavPath, PathFollower, PathGoal, PathRequest};
use crate::plugin::map::NavMaps;

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
}

impl GroupOrder {
    /// `members` to `goal` in `formation`, side by side, each at its own speed.
    pub fn new(members: Vec<Entity>, goal: Vec2, formation: Formation) -> Self {
        Self { members, goal, formation, spacing: 1, same_pace: false }
    }

    /// The order with every member at the slowest member's speed.
    pub fn at_same_pace(self) -> Self {
        Self { same_pace: true, ..self }
    }
}

/// On a member of a [`GroupOrder`] given with `same_pace`: it walks no faster than `speed`
/// (the slowest member's [`PathFollower::speed`]) while it walks to `goal`. The plugin takes
/// it off when the member arrives, stops, or walks to another goal (a new request answered);
/// a game may put one on any walker to slow it.
#[derive(Component, Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Component)]
pub struct GroupPace {
    /// The most it walks, in world units a second.
    pub speed: f32,
    /// The goal it walks to at this pace: its map and cell.
    pub goal: (Entity, GridPos),
}

/// The slowest of `speeds` that is a number above 0 (none: `None`).
pub(crate) fn slowest(speeds: impl Iterator<Item = f32>) -> Option<f32> {
    speeds.filter(|s| s.is_finite() && *s > 0.0).reduce(f32::min)
}

/// Takes [`GroupPace`] off the members that arrived, stopped, or walk to another goal.
fn end_group_paces(
    commands: &mut Commands,
    paced: &Query<(Entity, &GroupPace, Option<&NavPath>, Has<PathRequest>)>,
) {
    for (entity, pace, path, requested) in paced {
        let walking_there = path.is_some_and(|p| (p.goal_map, p.goal) == pace.goal);
        if !requested && !walking_there {
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

/// Gives new group orders: gathers the members' cells, places the formation, and puts each
/// member's request on it (and its pace); takes the paces of earlier orders off where they
/// are done ([`end_group_paces`]).
pub(crate) fn give_group_orders(
    mut commands: Commands,
    orders: Query<(Entity, &GroupOrder), Added<GroupOrder>>,
    members: Query<(&Transform, Option<&PathFollower>)>,
    maps: Res<NavMaps>,
    paced: Query<(Entity, &GroupPace, Option<&NavPath>, Has<PathRequest>)>,
) {
    end_group_paces(&mut commands, &paced);
    for (order_entity, order) in &orders {
        let present: Vec<(Entity, Vec2)> = order
            .members
            .iter()
            .filter_map(|&m| Some((m, members.get(m).ok()?.0.translation.truncate())))
            .collect();
        let speeds = present.iter().filter_map(|(m, _)| Some(members.get(*m).ok()?.1?.speed));
        let pace = slowest(speeds).filter(|_| order.same_pace);
        let Some(map) = maps.at_world(order.goal) else {
            commands.entity(order_entity).insert(GroupOrderFailed::NoMap);
            continue;
        };
        let goal = match map.geometry.world_to_cell(order.goal) {
            Ok(cell) => cell,
            Err(_) => {
                commands.entity(order_entity).insert(GroupOrderFailed::NoMap);
                continue;
            }
        };
        let starts: Vec<Option<GridPos>> =
            present.iter().map(|(_, at)| map.geometry.world_to_cell(*at).ok()).collect();
        match order_goals(&map.grid, &starts, goal, order) {
            Ok(goals) => {
                for ((member, _), cell) in present.iter().zip(goals) {
                    let request = PathRequest::to(PathGoal::OnMap { map: map.entity, cell });
                    let mut member = commands.entity(*member);
                    member.insert(request);
                    match pace {
                        Some(speed) => member.insert(GroupPace { speed, goal: (map.entity, cell) }),
                        None => member.remove::<GroupPace>(),
                    };
                }
                commands.entity(order_entity).despawn();
            }
            Err(e) => {
                commands.entity(order_entity).insert(GroupOrderFailed::Formation(e));
            }
        }
    }
}
