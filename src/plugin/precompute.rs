//! Precomputed paths for maps that rarely change: [`PrecomputePaths`] on a map has the plugin
//! keep a [`PathTable`] for it, built off the main thread, and answer plain path requests on
//! that map from it.

use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, Task, futures::check_ready};

use super::tilemap::{NavMap, NavMaps};
use crate::grid::{GridStamp, NavGrid};
use crate::search::{
    Algorithm, Landmarks, LandmarksError, PathTable, PathTableError, SearchOptions, jps_applies,
};

/// Put on a map's entity (the tilemap, or the entity its layers name with
/// [`NavLayerOf`](super::NavLayerOf)) when the level rarely changes: the plugin builds a
/// [`PathTable`] for it in the background and answers path requests on that map with table
/// lookups (about a microsecond on the public benchmark maps, against 10 to 20 for jump point
/// search). After the map's cells change, requests are answered by online search until the
/// table is rebuilt, so paths are always right.
///
/// Only requests the table answers exactly take it: an agent with no profile and size 1, no
/// other characters in the way, an optimal algorithm, no cost cap, no partial path asked for.
///
/// Maps the table cannot serve (terrain costs, 4-way or hex moves, corner cutting, thousands of
/// wall corners) get [`Landmarks`] instead ([`PLUGIN_LANDMARKS`] of them, 4 bytes per cell
/// each), built in the background the same way: searches by agents with no profile and size 1
/// on that map are then guided by them (the same optimal paths, 5 to 15 times faster than plain
/// A* on the painted benchmark maps). They follow the map's changes: at once where cells only
/// got dearer or blocked, in the background where cells opened or got cheaper (searches run
/// unguided, still optimal, until they catch up).
#[derive(Component, Clone, Copy, Debug, Default, Reflect)]
#[reflect(Component)]
pub struct PrecomputePaths;

/// How many landmarks the plugin keeps for a map that no table serves.
pub const PLUGIN_LANDMARKS: usize = 16;

/// What is precomputed for a map: a table where one serves it, else landmarks.
enum Precomputed {
    Table(PathTable),
    Landmarks(Landmarks),
}

/// A table where one serves the grid; landmarks otherwise (with why no table, to log).
fn precompute(grid: &NavGrid) -> Result<(Precomputed, Option<PathTableError>), LandmarksError> {
    match PathTable::build(grid) {
        Ok(table) => Ok((Precomputed::Table(table), None)),
        Err(why) => Landmarks::build(grid, PLUGIN_LANDMARKS)
            .map(|landmarks| (Precomputed::Landmarks(landmarks), Some(why))),
    }
}

/// A build running off the main thread.
type Build = Task<Result<(Precomputed, Option<PathTableError>), LandmarksError>>;

/// The builds running: for which map, for which state of its grid.
#[derive(Resource, Default)]
pub(crate) struct TableBuilds {
    running: Vec<(Entity, GridStamp, Build)>,
    /// The grid state a build failed for: not tried again until the grid changes.
    failed: Vec<(Entity, GridStamp)>,
}

/// Puts a finished build on its map.
fn take(map: &mut NavMap, stamp: GridStamp, built: (Precomputed, Option<PathTableError>)) {
    match built {
        (Precomputed::Table(mut table), _) => {
            table.rebind(stamp);
            map.table = Some(table);
            map.landmarks = None;
        }
        (Precomputed::Landmarks(mut landmarks), why) => {
            if let Some(why) = why {
                info!("map {}: no path table ({why}); searches guided by landmarks", map.entity);
            }
            landmarks.rebind(stamp);
            map.table = None;
            map.landmarks = Some(landmarks);
        }
    }
}

/// Takes finished builds in (if their map has not changed since) and starts builds for marked
/// maps whose table or landmarks are missing or stale, one at a time per map. Landmarks that
/// can follow the grid's changes are refreshed instead of rebuilt: here when cells only got
/// dearer or blocked, in the background when some opened or got cheaper.
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
            (Some(map), Ok(built)) if map.grid.stamp() == *stamp => take(map, *stamp, built),
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
            map.landmarks = None;
            continue;
        }
        let stamp = map.grid.stamp();
        let building = running.iter().any(|(e, ..)| *e == map.entity);
        // Landmarks follow the map's changes: where cells only got dearer or blocked the
        // refresh has nothing to lower (cheap, here); where cells opened or got cheaper it may
        // reach far, so it runs in the background on a copy while searches go unguided. A map
        // a table may serve now, or whose changes are not listed, starts afresh.
        let mut repair = None;
        if let Some(landmarks) = map.landmarks.as_mut()
            && !landmarks.is_current(&map.grid)
        {
            let table_may_serve = map.grid.has_uniform_cost() && jps_applies(&map.grid);
            if !landmarks.can_follow(&map.grid) || table_may_serve {
                map.landmarks = None;
            } else if landmarks.usable_on(&map.grid) {
                landmarks.refresh(&map.grid);
            } else if !building {
                repair = Some(landmarks.clone());
            }
        }
        let current = map.table.as_ref().is_some_and(|t| t.is_current(&map.grid))
            || map.landmarks.as_ref().is_some_and(|l| l.is_current(&map.grid));
        let gave_up = failed.contains(&(map.entity, stamp));
        if current || building || gave_up {
            continue;
        }
        failed.retain(|(e, _)| *e != map.entity);
        if let Some(mut landmarks) = repair {
            // A copy that keeps the grid's identity, so the refresh reads its list of changes.
            let grid = map.grid.frozen_copy();
            let refresh = async move {
                landmarks.refresh(&grid);
                Ok((Precomputed::Landmarks(landmarks), None))
            };
            match AsyncComputeTaskPool::try_get() {
                Some(pool) => running.push((map.entity, stamp, pool.spawn(refresh))),
                // No task pool: here.
                None => {
                    if let Some(landmarks) = map.landmarks.as_mut() {
                        landmarks.refresh(&map.grid);
                    }
                }
            }
            continue;
        }
        let grid = map.grid.clone();
        let build = async move { precompute(&grid) };
        match AsyncComputeTaskPool::try_get() {
            Some(pool) => running.push((map.entity, stamp, pool.spawn(build))),
            // No task pool (an app without one): build here.
            None => match precompute(&map.grid) {
                Ok(built) => take(map, stamp, built),
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
