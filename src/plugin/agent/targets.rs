//! Entities named as goals or threats: where they stand; where an agent may stop short of its
//! goal ([`Arrival`]) and the path cut there.

use bevy::prelude::*;

use super::super::link::CrossingLink;
use super::super::map::{NavGeometry, NavMaps};
use super::{Arrival, NavError, NavPath, OnNavMap, agent_map, body_point};
use crate::grid::{GridPos, NavGrid};

/// What the plugin reads of entities named as goals or threats: where they are and their map.
pub(crate) type Targets<'w, 's> =
    Query<'w, 's, (&'static Transform, Option<&'static OnNavMap>, Option<&'static CrossingLink>)>;

/// Where `target` is: its [`OnNavMap`] and world position, or [`NavError::TargetGone`].
pub(crate) fn target_place(
    targets: &Targets,
    target: Entity,
) -> Result<(Option<OnNavMap>, Vec2), NavError> {
    let (transform, on, riding) =
        targets.get(target).map_err(|_| NavError::TargetGone { target })?;
    // Crossing a link over time: where it lands (it may be between maps now).
    let at = riding.map_or(transform.translation.truncate(), |r| r.to_point);
    Ok((on.copied(), at))
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

/// How far round a chased target's cell, when that cell cannot be walked, a chase looks for one
/// that can (in cells, each way): the nearest of them is where it heads.
pub(crate) const CHASE_REACH: u32 = 8;

/// The open cell of `grid` nearest `cell` (by straight-line distance; `cell` itself if open),
/// within `within` cells each way; `None` if there is none.
pub(crate) fn open_near(grid: &NavGrid, cell: GridPos, within: u32) -> Option<GridPos> {
    if grid.is_passable(cell) {
        return Some(cell);
    }
    let mut best: Option<(u64, GridPos)> = None;
    for r in 1..=i64::from(within) {
        // A ring farther out cannot hold a cell nearer than one found (r^2 > best).
        if best.is_some_and(|(d, _)| (r * r) as u64 > d) {
            break;
        }
        for dy in -r..=r {
            for dx in -r..=r {
                if dx.abs() != r && dy.abs() != r {
                    continue; // inside the ring: looked at already
                }
                let (x, y) = (i64::from(cell.x) + dx, i64::from(cell.y) + dy);
                let (Ok(x), Ok(y)) = (u32::try_from(x), u32::try_from(y)) else {
                    continue;
                };
                let at = GridPos::new(x, y);
                let d = (dx * dx + dy * dy) as u64;
                if grid.is_passable(at) && best.is_none_or(|(b, _)| d < b) {
                    best = Some((d, at));
                }
            }
        }
    }
    best.map(|(_, at)| at)
}

/// The map and cell a chase of `target` heads for: the cell it stands on, or when that cannot
/// be walked (a wall, water, a cell under a closed door), the nearest that can within
/// [`CHASE_REACH`].
pub(crate) fn chase_cell(
    maps: &NavMaps,
    targets: &Targets,
    target: Entity,
) -> Option<(Entity, GridPos)> {
    let (map, cell) = target_cell(maps, targets, target)?;
    let grid = &maps.get(map)?.grid;
    Some((map, open_near(grid, cell, CHASE_REACH).unwrap_or(cell)))
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
    path: &mut NavPath,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Cell;

    #[test]
    fn the_open_cell_nearest_a_walled_one_is_found_within_reach_only() {
        let mut grid = NavGrid::new(20, 20).unwrap();
        // A 5 x 5 block of wall round (10, 10): the nearest open cells 3 straight away; then
        // (12, 12) opened, 2 x 2 diagonal, nearer.
        for y in 8..=12 {
            for x in 8..=12 {
                grid.set(GridPos::new(x, y), Cell::Blocked).unwrap();
            }
        }
        let at = GridPos::new(10, 10);
        assert_eq!(open_near(&grid, at, 8), Some(GridPos::new(10, 7)));
        grid.set(GridPos::new(12, 12), Cell::Passable { cost: 1 }).unwrap();
        assert_eq!(open_near(&grid, at, 8), Some(GridPos::new(12, 12)));
        assert_eq!(open_near(&grid, GridPos::new(3, 3), 8), Some(GridPos::new(3, 3)));
        assert_eq!(open_near(&grid, at, 1), None);
        // At the grid's corner, rings leave the grid.
        grid.set(GridPos::new(0, 0), Cell::Blocked).unwrap();
        assert_eq!(open_near(&grid, GridPos::new(0, 0), 2), Some(GridPos::new(1, 0)));
    }
}
