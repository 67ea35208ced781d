//! Walking agents along their [`Path`]s, and planning again when the world changes under them.

use bevy::prelude::*;

use crate::grid::{GridPos, NavGrid};
use crate::request::{NavError, Path, PathFailed, PathGoal, PathRequest, start_cell};
use crate::tilemap::{NavGeometry, WorldToCellError};

/// Makes an entity walk its [`Path`]: its `Transform` moves at `speed` world units per second
/// from cell centre to cell centre and stops exactly on the last one.
#[derive(Component, Clone, Debug, PartialEq, Reflect)]
#[reflect(Component)]
pub struct PathFollower {
    /// World units per second.
    pub speed: f32,
    /// Index in the path of the point being walked to (set by the plugin).
    pub next: usize,
    /// Walk the smoothed path (straight lines between corners, see
    /// [`crate::smooth::smooth_path`]) instead of from cell centre to cell centre. Applies to
    /// paths answered after it is set.
    pub smooth: bool,
}

impl PathFollower {
    /// A follower that walks from cell centre to cell centre.
    pub fn new(speed: f32) -> Self {
        Self { speed, next: 0, smooth: false }
    }

    /// A follower that walks smoothed paths.
    pub fn smoothed(speed: f32) -> Self {
        Self { speed, next: 0, smooth: true }
    }
}

/// Message: an agent reached the end of its path.
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct Arrived {
    pub entity: Entity,
    pub cell: GridPos,
    /// False when the path was partial and ended at the closest reachable cell.
    pub reached_goal: bool,
}

/// Present while an agent whose path was cut waits for a new one. It walks to a safe cell
/// centre (its [`Path`] is then a one-cell stand-in) and no [`Arrived`] is sent for that.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Reflect)]
#[reflect(Component)]
pub struct Replanning;

/// Marks a character that others walk around: requests from other agents treat the cell it
/// stands on as blocked, and an agent about to step into that cell plans again.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Reflect)]
#[reflect(Component)]
pub struct NavObstacle;

/// The cells that [`NavObstacle`]s stand on this frame.
#[derive(Resource, Default, Debug)]
pub(crate) struct ObstacleCells(pub Vec<(Entity, GridPos)>);

impl ObstacleCells {
    /// Cells to avoid for `entity`'s own planning.
    pub(crate) fn for_agent(&self, entity: Entity) -> Vec<GridPos> {
        self.0.iter().filter(|(e, _)| *e != entity).map(|(_, c)| *c).collect()
    }
}

pub(crate) fn collect_obstacles(
    geometry: Option<Res<NavGeometry>>,
    obstacles: Query<(Entity, &Transform), With<NavObstacle>>,
    mut cells: ResMut<ObstacleCells>,
) {
    cells.0.clear();
    let Some(geometry) = geometry else {
        return;
    };
    for (entity, transform) in &obstacles {
        if let Ok(cell) = geometry.world_to_cell(transform.translation.truncate()) {
            cells.0.push((entity, cell));
        }
    }
}

/// True when another character stands on one of the next two cells of the path (short of its
/// goal, where it cannot be avoided).
fn obstacle_ahead(obstacles: &ObstacleCells, entity: Entity, path: &Path, next: usize) -> bool {
    let from = if next == 0 { 0 } else { path.previous_target(next) + 1 };
    let ahead = &path.cells[from.min(path.cells.len())..(from + 2).min(path.cells.len())];
    obstacles.0.iter().any(|(e, c)| *e != entity && *c != path.goal && ahead.contains(c))
}

/// True when the rest of the path, from the point last passed on, is no longer walkable: a
/// cell step is illegal now or, on a smoothed path, a straight segment is no longer clear.
fn path_cut(grid: &NavGrid, path: &Path, next: usize) -> bool {
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
        if j < cells.len() && crate::smooth::segment_cells(grid, cells[i], cells[j]).is_none() {
            return true;
        }
        i = j;
    }
    false
}

/// An agent that cannot go on stops where it is, and says why.
fn stop(
    commands: &mut Commands,
    failures: &mut MessageWriter<PathFailed>,
    entity: Entity,
    error: NavError,
) {
    let failed = PathFailed { entity, error };
    commands.entity(entity).remove::<(Path, Replanning)>().insert(failed.clone());
    failures.write(failed);
}

/// Moves every agent along its path; re-plans those whose path a grid change has cut or a
/// [`NavObstacle`] stands in. When the grid goes away (its tilemaps despawned or unmarked),
/// walking agents stop where they are with a [`PathFailed`] saying [`NavError::NoGrid`]: there
/// is nothing left to check their paths against.
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
pub(crate) fn follow_paths(
    mut commands: Commands,
    time: Res<Time>,
    grid: Option<Res<NavGrid>>,
    geometry: Option<Res<NavGeometry>>,
    mut agents: Query<(
        Entity,
        &mut Transform,
        &mut PathFollower,
        &mut Path,
        Has<Replanning>,
        Has<PathRequest>,
    )>,
    obstacles: Res<ObstacleCells>,
    mut arrived: MessageWriter<Arrived>,
    mut failures: MessageWriter<PathFailed>,
) {
    let (Some(grid), Some(geometry)) = (grid, geometry) else {
        for (entity, ..) in &agents {
            stop(&mut commands, &mut failures, entity, NavError::NoGrid);
        }
        return;
    };
    let dt = time.delta_secs();
    let grid_changed = grid.is_changed();
    for (entity, mut transform, mut follower, mut path, mut replanning, mut requested) in
        &mut agents
    {
        let position = transform.translation.truncate();
        // A hand-made `Path` whose cells and points differ in number is not walked.
        if path.points.is_empty() || path.points.len() != path.cells.len() {
            continue;
        }
        if !position.is_finite() {
            // Something else wrote a NaN or infinite position: there is no way back to the
            // path from there.
            let error = NavError::Start(WorldToCellError::NotFinite(position));
            stop(&mut commands, &mut failures, entity, error);
            continue;
        }
        // The grid changed: is the rest of the path still walkable?
        if !replanning
            && !requested
            && ((grid_changed && path_cut(&grid, &path, follower.next))
                || obstacle_ahead(&obstacles, entity, &path, follower.next))
        {
            let safe = start_cell(&geometry, &grid, position, Some((&follower, &path)))
                .unwrap_or(path.cells[follower.next.saturating_sub(1).min(path.cells.len() - 1)]);
            let goal = path.goal;
            let options = path.options;
            *path = Path {
                cells: vec![safe],
                points: vec![geometry.cell_to_world(safe)],
                cost: 0.0,
                goal,
                complete: false,
                expanded: 0,
                micros: 0.0,
                options,
                corners: Vec::new(),
            };
            follower.next = 0;
            // From now on this frame it is waiting for the new plan (the commands below apply
            // later): no `Arrived` for reaching the safe cell.
            replanning = true;
            requested = true;
            commands.entity(entity).insert((
                Replanning,
                PathRequest {
                    goal: PathGoal::Tile(goal),
                    options: Some(options),
                    start: Some(safe),
                },
            ));
        }

        let speed = if follower.speed.is_finite() { follower.speed.max(0.0) } else { 0.0 };
        let mut budget = speed * dt;
        let mut at = position;
        while follower.next < path.points.len() {
            let target = path.points[follower.next];
            let to = target - at;
            let distance = to.length();
            if distance <= budget {
                at = target;
                budget -= distance;
                follower.next = path.next_target_after(follower.next);
            } else {
                if budget > 0.0 {
                    at += to / distance * budget;
                }
                break;
            }
        }
        transform.translation.x = at.x;
        transform.translation.y = at.y;
        if follower.next >= path.points.len() {
            let cell = *path.cells.last().expect("non-empty path");
            commands.entity(entity).remove::<Path>();
            if !replanning {
                arrived.write(Arrived { entity, cell, reached_goal: cell == path.goal });
            } else if !requested {
                // The new plan failed (a PathFailed says why): the agent stops here.
                commands.entity(entity).remove::<Replanning>();
            }
        }
    }
}
