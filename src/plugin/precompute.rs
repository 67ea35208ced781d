//! Precomputed paths for maps that rarely change: [`PrecomputePaths`] on a map has the plugin
//! keep a [`PathTable`] for it, built off the main thread, and answer plain path requests on
//! that map from it.

use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, Task, futures::check_ready};

use super::tilemap::NavMaps;
use crate::grid::GridStamp;
use crate::search::{Algorithm, PathTable, PathTableError, SearchOptions};

/// Put on a map's entity (the tilemap, or the entity its layers name with
/// [`NavLayerOf`](super::NavLayerOf)) when the level rarely changes: the plugin builds a
/// [`PathTable`] for it in the background and answers path requests on that map with table
/// lookups (about a microsecond on the public benchmark maps, against 10 to 20 for jump point
/// search). After the map's cells change, requests are answered by online search until the
/// table is rebuilt, so paths are always right.
///
/// Only requests the table answers exactly take it: an agent with no profile and size 1, no
/// other characters in the way, an optimal algorithm, no cost cap, no partial path asked for.
/// Maps the table cannot serve (terrain costs, 4-way or hex moves, corner cutting, thousands of
/// wall corners) stay on online search, with a warning in the log.
#[derive(Component, Clone, Copy, Debug, Default, Reflect)]
#[reflect(Component)]
pub struct PrecomputePaths;

/// A table being built off the main thread.
type Build = Task<Result<PathTable, PathTableError>>;

/// The tables being built: for which map, for which state of its grid.
#[derive(Resource, Default)]
pub(crate) struct TableBuilds {
    running: Vec<(Entity, GridStamp, Build)>,
    /// The grid state a build failed for: not tried again until the grid changes.
    failed: Vec<(Entity, GridStamp)>,
}

/// Takes finished tables in (if their map has not changed since) and starts builds for marked
/// maps whose table is missing or stale, one at a time per map.
pub(crate) fn keep_path_tables(
    mut maps: ResMut<NavMaps>,
    marked: Query<(), With<PrecomputePaths>>,
    mut builds: ResMut<TableBuilds>,
) {
    let TableBuilds { running, failed } = &mut *builds;
    running.retain_mut(|(entity, stamp, task)| {
        let Some(result) = check_ready(task) else {
            return true;
        };
        let map = maps.maps_mut().find(|m| m.entity == *entity);
        match (map, result) {
            (Some(map), Ok(mut table)) if map.grid.stamp() == *stamp => {
                table.rebind(*stamp);
                map.table = Some(table);
            }
            (Some(map), Err(error)) if map.grid.stamp() == *stamp => {
                warn!("no precomputed paths for map {entity}: {error}");
                failed.push((*entity, *stamp));
            }
            _ => {} // the map changed or went: the next build starts below
        }
        false
    });
    for map in maps.maps_mut() {
        if !marked.contains(map.entity) {
            map.table = None;
            continue;
        }
        let stamp = map.grid.stamp();
        let current = map.table.as_ref().is_some_and(|t| t.is_current(&map.grid));
        let building = running.iter().any(|(e, ..)| *e == map.entity);
        let gave_up = failed.contains(&(map.entity, stamp));
        if current || building || gave_up {
            continue;
        }
        failed.retain(|(e, _)| *e != map.entity);
        let grid = map.grid.clone();
        let build = async move { PathTable::build(&grid) };
        match AsyncComputeTaskPool::try_get() {
            Some(pool) => running.push((map.entity, stamp, pool.spawn(build))),
            // No task pool (an app without one): build here.
            None => match PathTable::build(&map.grid) {
                Ok(table) => map.table = Some(table),
                Err(error) => {
                    warn!("no precomputed paths for map {}: {error}", map.entity);
                    failed.push((map.entity, stamp));
                }
            },
        }
    }
}

/// The table's answer is the search's for these options: an optimal search with no cost cap
/// and no partial path.
pub(crate) fn table_answers(options: &SearchOptions) -> bool {
    matches!(options.algorithm, Algorithm::Auto | Algorithm::AStar | Algorithm::JumpPoint)
        && options.weight >= 1.0
        && options.limit.max_cost.is_none()
        && !options.partial
}
