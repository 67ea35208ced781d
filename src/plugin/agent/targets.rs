//! Entities named as goals or threats: where they stand; where an agent may stop short of its
//! goal ([`Arrival`]) and the path cut there.

use bevy::prelude::*;

use super::super::map::{NavGeometry, NavMaps};
use super::{Arrival, NavError, OnNavMap, Path, agent_map, body_point};
use crate::grid::{GridPos, NavGrid};

/// What the plugin reads of entities named as goals or threats: where they are and their map.
pub(crate) type Targets<'w, 's> = Query<'w, 's, (&'static Transform, Option<&'static OnNavMap>)>;

/// Where `target` is: its [`OnNavMap`] and world position, or [`NavError::TargetGone`].
pub(crate) fn target_place(
    targets: &Targets,
    target: Entity,
) -> Result<(Option<OnNavMap>, Vec2), NavError> {
    let (transform, on) = targets.get(target).map_err(|_| NavError::TargetGone { target })?;
    Ok((on.copied(), transform.translation.truncate()))
}

/// The threats `agent` runs from ([`PathGoal::AwayFrom`](super::PathGoal::AwayFrom)): every one
/// but itself (running from oneself would never end; with no other, it is safe where it stands).
pub(crate) fn threats_of(threats: &[Entity], agent: Entity) -> impl Iterator<Item = Entity> + '_ {
    threats.iter().copied().filter(move |&t| t != agent)
}

/// The map and cell `target` stands on, if it stands on one.
pub(crate) fn target_cell(
    maps: &NavMaps,
    targets: &Targets,
    target: Entity,
) -> Option<(Entity, GridPos)> {
    let (on, world) = target_place(targets, target).ok()?;
    let map = agent_map(maps, on.as_ref(), world)?;
    Some((map.entity, map.geometry.world_to_cell(world).ok()?))
}

/// True when an agent whose body's centre is at `point`, its corner cell `cell` on `grid`,
/// stands where `arrive` holds for the goal at `goal_point` (its cell `goal`), the rest of
/// its path costing `rest`.
pub(crate) fn arrival_holds(
    arrive: Arrival,
    grid: &NavGrid,
    (cell, point): (GridPos, Vec2),
    (goal, goal_point): (GridPos, Vec2),
    rest: f64,
) -> bool {
    match arrive {
        Arrival::AtGoal => cell == goal,
        Arrival::Within(distance) => point.distance(goal_point) <= distance,
        Arrival::WithinCost(cost) => rest <= cost + 1e-9 * cost.abs().max(1.0),
        Arrival::InSight { distance } => {
            point.distance(goal_point) <= distance
                && crate::grid::line::segment_cells(grid, cell, goal).is_some()
        }
    }
}

/// Ends `path` at the first cell of its last walk (the one on the goal's map) where `arrive`
/// holds (the goal's centre, for a larger agent its body's, as the goal point), and records
/// `arrive` on it. `grid`: the goal map's grid for the path's kind of agent.
pub(crate) fn cut_at_arrival(
    path: &mut Path,
    arrive: Arrival,
    geometry: &NavGeometry,
    grid: &NavGrid,
) {
    path.arrival = arrive;
    if arrive == Arrival::AtGoal {
        return;
    }
    let goal_point = body_point(geometry, path.agent, path.goal);
    let goal = path.goal;
    let (cells, points, cost) = match path.legs.last_mut() {
        Some(leg) => (&mut leg.cells, &mut leg.points, &mut leg.cost),
        None => (&mut path.cells, &mut path.points, &mut path.cost),
    };
    // The cost of the rest of the walk from each cell, from the end back.
    let mut rest = vec![0.0; cells.len()];
    for k in (0..cells.len().saturating_sub(1)).rev() {
        rest[k] = rest[k + 1] + grid.step_cost(cells[k], cells[k + 1]).unwrap_or(0.0);
    }
    let Some(k) = (0..cells.len())
        .find(|&k| arrival_holds(arrive, grid, (cells[k], points[k]), (goal, goal_point), rest[k]))
    else {
        return;
    };
    cells.truncate(k + 1);
    points.truncate(k + 1);
    *cost -= rest[k];
    if !path.legs.is_empty() {
        path.cost -= rest[k];
    }
}
