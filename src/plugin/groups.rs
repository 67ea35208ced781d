//! Group orders in an app: a [`GroupOrder`] entity sends its members to one point in
//! formation, each with its own goal cell ([`group_goals`]).

use bevy::prelude::*;

use crate::grid::GridPos;
use crate::path::{Formation, FormationError, group_goals};
use crate::plugin::agent::{PathGoal, PathRequest};
use crate::plugin::map::NavMaps;

/// Spawn one to send `members` to `goal` (a world point) as a group: each member gets a
/// [`PathRequest`] to its own cell of the `formation` round the goal, `spacing` cells apart,
/// the slots handed out so that the group walks least (see [`group_goals`]). The order entity
/// is despawned once given; one that cannot be given keeps a [`GroupOrderFailed`] saying why
/// (the game despawns it). Members despawned, or with no `Transform`, are left out; members
/// on another map than the goal's are sent across links like any request.
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
}

impl GroupOrder {
    /// `members` to `goal` in `formation`, side by side.
    pub fn new(members: Vec<Entity>, goal: Vec2, formation: Formation) -> Self {
        Self { members, goal, formation, spacing: 1 }
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
/// member's request on it.
pub(crate) fn give_group_orders(
    mut commands: Commands,
    orders: Query<(Entity, &GroupOrder), Added<GroupOrder>>,
    members: Query<&Transform>,
    maps: Res<NavMaps>,
) {
    for (order_entity, order) in &orders {
        let present: Vec<(Entity, Vec2)> = order
            .members
            .iter()
            .filter_map(|&m| Some((m, members.get(m).ok()?.translation.truncate())))
            .collect();
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
                    commands.entity(*member).insert(request);
                }
                commands.entity(order_entity).despawn();
            }
            Err(e) => {
                commands.entity(order_entity).insert(GroupOrderFailed::Formation(e));
            }
        }
    }
}
