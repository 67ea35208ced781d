//! Hordes: many agents that follow one [`DistanceField`] to the same goals instead of
//! searching each. A [`NavField`] entity asks the plugin to keep the field of some goals on a
//! map in step with it (repaired where cells change); agents with [`FollowField`] walk down it.

use bevy::prelude::*;

use super::agent::{
    NavError, OnNavMap, Path, PathFailed, PathFollower, PathRequest, body_point, corner_indices,
    join_index,
};
use super::clock::Moment;
use super::diagnostics::{NavDiagnostics, Stopwatch};
use super::map::NavMaps;
use super::profiles::NavAgent;
use crate::grid::GridPos;
use crate::search::{DistanceField, PathError, SearchOptions};

/// The distance field of `goals` on `map` (the cost from every cell to the nearest goal), which
/// the plugin builds and keeps in step with the map's grid: only the cells whose way to a goal
/// a change touched are settled again. Agents with [`FollowField`] naming this entity walk
/// down it. Change `goals` to move them all.
#[derive(Component, Clone, Debug)]
pub struct NavField {
    /// The map it lies on (its [`NavMap::entity`](super::NavMap::entity)).
    pub map: Entity,
    /// Where it leads: cells of that map.
    pub goals: Vec<GridPos>,
    field: Option<DistanceField>,
    /// Why there is no field: goals off the map or walled, or no goals.
    error: Option<PathError>,
    /// Cells settled by the last build or repair, and the time it took.
    work: (usize, std::time::Duration),
    /// Counts the builds and repairs: followers read their ways again when it moves on.
    revision: u64,
}

impl NavField {
    /// The field of `goals` on `map`, built by the plugin.
    pub fn new(map: Entity, goals: Vec<GridPos>) -> Self {
        let work = (0, std::time::Duration::ZERO);
        Self { map, goals, field: None, error: None, work, revision: 0 }
    }

    /// The field as it is now (`None` before the plugin built it, or when it cannot be built:
    /// see [`error`](Self::error)).
    pub fn field(&self) -> Option<&DistanceField> {
        self.field.as_ref()
    }

    /// Why there is no field.
    pub fn error(&self) -> Option<&PathError> {
        self.error.as_ref()
    }

    /// Cells settled by its last build or repair, and how long that took.
    pub fn last_work(&self) -> (usize, std::time::Duration) {
        self.work
    }
}

/// Put on an agent with a [`PathFollower`] (and a `Transform`): it walks down the field of the
/// [`NavField`] entity named here, to the nearest goal, by a cheapest way; smoothed if its
/// follower is, steering round others if it has [`Avoidance`](super::Avoidance), with an
/// [`Arrived`](super::Arrived) at the goal. When the field changes (cells or goals), it walks
/// its new way from where it is. An agent with no way down gets a [`PathFailed`]
/// (unreachable), once, until the field changes. Agents of size 1 with no profile: the field is
/// of the map's own grid.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct FollowField(pub Entity);

/// On a field follower: the field state its path was read from, and whether that gave no way
/// (it was told, and is not told again until the field changes).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub(crate) struct ReadFrom(Entity, u64, bool);

/// Builds or repairs each [`NavField`] to match its map's grid and goals.
pub(crate) fn keep_fields(
    maps: Res<NavMaps>,
    mut fields: Query<&mut NavField>,
    mut diagnostics: ResMut<NavDiagnostics>,
) {
    let _timing = Stopwatch::start(&mut diagnostics.field_time);
    for mut nav in &mut fields {
        let Some(map) = maps.get(nav.map) else {
            if nav.field.is_some() {
                nav.field = None;
            }
            continue;
        };
        let grid = &map.grid;
        let began = Moment::now();
        let same_goals = nav.field.as_ref().is_some_and(|f| f.goals() == nav.goals);
        // Read before writing: a field already in step is not marked changed every frame.
        if same_goals && nav.field.as_ref().is_some_and(|f| f.is_current(grid)) {
            continue;
        }
        let repaired = match nav.field.as_mut().filter(|_| same_goals) {
            Some(field) => grid.changes_since(field.stamp()).map(|changes| {
                let cells: Vec<GridPos> = changes.map(|(cell, _)| cell).collect();
                field.update(grid, cells)
            }),
            None => None,
        };
        let work = match repaired {
            Some(work) => work,
            None => match DistanceField::new(grid, &nav.goals) {
                Ok(field) => {
                    let cells = grid.width() as usize * grid.height() as usize;
                    nav.field = Some(field);
                    nav.error = None;
                    cells
                }
                Err(error) => {
                    if nav.error.as_ref() == Some(&error) && nav.field.is_none() {
                        continue;
                    }
                    nav.field = None;
                    nav.error = Some(error);
                    0
                }
            },
        };
        nav.work = (work, began.elapsed());
        nav.revision += 1;
    }
}

/// Gives each [`FollowField`] agent the way down its field from where it stands, when it has
/// none or the field changed since.
#[allow(clippy::type_complexity)]
pub(crate) fn follow_fields(
    mut commands: Commands,
    maps: Res<NavMaps>,
    fields: Query<&NavField>,
    mut agents: Query<
        (
            Entity,
            &FollowField,
            &Transform,
            Option<&Path>,
            &PathFollower,
            Option<&ReadFrom>,
            Option<&NavAgent>,
        ),
        Without<PathRequest>,
    >,
    mut failures: MessageWriter<PathFailed>,
    mut diagnostics: ResMut<NavDiagnostics>,
) {
    let began = Moment::now();
    for (entity, follow, transform, path, follower, read, kind) in &mut agents {
        let Ok(nav) = fields.get(follow.0) else {
            continue;
        };
        let (Some(field), Some(map)) = (nav.field(), maps.get(nav.map)) else {
            continue;
        };
        let fresh = read.is_some_and(|r| (r.0, r.1) == (follow.0, nav.revision));
        let told = fresh && read.is_some_and(|r| r.2);
        // Walking a way read from the field as it is: on it goes.
        if fresh && path.is_some() {
            continue;
        }
        let position = transform.translation.truncate();
        let Ok(cell) = map.geometry.world_to_cell(position) else {
            continue;
        };
        let at_goal = field.goals().contains(&cell) && path.is_none();
        if at_goal || told {
            continue; // arrived, or no way and already told
        }
        let read = |told| ReadFrom(follow.0, nav.revision, told);
        let agent = kind.copied().unwrap_or_default();
        let Some(cells) = field.path_from(cell).filter(|_| agent.is_plain()) else {
            commands.entity(entity).insert(read(true));
            let goal = field.goals().first().copied().unwrap_or(cell);
            let error = match agent.is_plain() {
                true => NavError::Search(PathError::Unreachable { start: cell, goal }),
                false => NavError::NoAgentGrid { agent },
            };
            let failed = PathFailed { entity, error };
            commands.entity(entity).insert(failed.clone());
            failures.write(failed);
            continue;
        };
        let goal = *cells.last().expect("a way has cells");
        let points = cells.iter().map(|&c| body_point(&map.geometry, agent, c)).collect();
        let corners = if follower.smooth { corner_indices(&map.grid, &cells) } else { Vec::new() };
        let way = Path {
            map: map.entity,
            cost: field.cost(cell).unwrap_or(0.0),
            points,
            cells,
            goal,
            goal_map: map.entity,
            complete: true,
            expanded: 0,
            micros: 0.0,
            options: SearchOptions::default(),
            corners,
            legs: Vec::new(),
            agent,
            arrival: Default::default(),
        };
        let next = join_index(&way, position, &map.geometry, &map.grid);
        commands.entity(entity).remove::<PathFailed>().insert((
            read(false),
            way,
            OnNavMap(map.entity),
            PathFollower { next, ..follower.clone() },
        ));
    }
    diagnostics.field_time += began.elapsed();
}
