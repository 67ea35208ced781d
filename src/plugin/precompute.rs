//! Precomputed paths for maps that rarely change: [`PrecomputePaths`] on a map has the plugin
//! keep a [`PathTable`] for it, built off the main thread or a slice a frame on it (or loaded
//! from its [`BakedPaths`]), and answer plain path requests on that map from it.

use std::sync::Arc;
use std::time::Duration;

use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, Task, futures::check_ready};

use super::clock::Moment;
use super::map::{NavMap, NavMaps, Precomputed, TilemapNavError, TilemapNavWarning};
use super::settings::PrecomputeBuilds;
use super::work::{FrameWork, WorkKind};
use crate::grid::GridPos;
use crate::grid::{GridStamp, NavGrid};
use crate::io::baked::BakeError;
use crate::search::precomputed::slices::Work;
use crate::search::{
    FirstMoveTable, Landmarks, LandmarksError, PathError, PathQuery, PathResult, PathTable,
    PathTableError, Pathfinder, SearchOptions, SlicedBuild, jps_applies, table_answers,
};

/// Put on a map's entity (the tilemap, or the entity its layers name with
/// [`NavLayerOf`](super::NavLayerOf)) when the level rarely changes: the plugin builds a
/// [`PathTable`] for it in the background and answers path requests on that map with table
/// lookups, with no search (BENCHMARKS.md quotes how much faster). After the map's cells change, requests are answered by online search until
/// the table is rebuilt, so paths are always right.
///
/// Only requests the table answers exactly take it: an agent with no profile and size 1, no
/// other characters in the way, an optimal algorithm, no cost cap, no partial path asked for.
///
/// Small maps the table cannot serve (terrain costs, 4-way or hex moves, corner cutting, a maze
/// of wall corners) get a [`FirstMoveTable`] instead when they have at most
/// [`MAX_FIRST_MOVE_CELLS`](crate::search::MAX_FIRST_MOVE_CELLS) passable cells: the same
/// requests are answered from it with no search either, and it is rebuilt in the background
/// after changes like the table. Larger ones get [`Landmarks`] ([`PLUGIN_LANDMARKS`] of them,
/// 8 bytes per cell each), built in the background the same way: searches by agents with no
/// profile and size 1 on that map are then guided by them (the same optimal paths, several
/// times faster than plain A* on large maps with terrain: BENCHMARKS.md). They follow the map's
/// changes: at once where cells only got dearer or blocked, in the background where cells
/// opened or got cheaper (searches run unguided, still optimal, until they catch up).
///
/// "In the background" is Bevy's async compute task pool. Where that pool has no thread of its
/// own (in a browser) the builds run instead a slice a frame on the plugin's thread, so that no
/// frame waits for one: [`NavSettings::precompute`](super::NavSettings::precompute) says how
/// much a frame, and can ask for slices anywhere. Either way the structure is the same.
///
/// A shipped game can load what the plugin would build instead: [`PrecomputePaths::bake`] the
/// level's grid ahead (a build step, a tool), ship the bytes, and put them on the map with
/// [`BakedPaths`].
#[derive(Component, Clone, Copy, Debug, Default, Reflect)]
#[reflect(Component)]
pub struct PrecomputePaths;

impl PrecomputePaths {
    /// What the plugin would build for a map with this grid (a path table, a first-move table
    /// or landmarks, the first that serves it), as bytes to ship with the game and give back
    /// with [`BakedPaths`]. The grid is the map's as the plugin makes it from its tiles
    /// ([`NavMap::grid`]), or the same cells built another way (a
    /// [`BakedNavGrid`](super::BakedNavGrid), a Tiled or LDtk import).
    ///
    /// ```
    /// use bevy_tilemap_nav::plugin::BakedPaths;
    /// use bevy_tilemap_nav::prelude::*;
    ///
    /// let mut grid = NavGrid::new(30, 20).unwrap();
    /// grid.fill_rect(GridPos::new(10, 0), GridPos::new(10, 15), Cell::Blocked).unwrap();
    /// let bytes = PrecomputePaths::bake(&grid).unwrap();
    /// // Shipped with the game (a file, `include_bytes!`), then on the map's entity:
    /// let baked = BakedPaths::new(bytes);
    /// # let _ = baked;
    /// ```
    pub fn bake(grid: &NavGrid) -> Result<Vec<u8>, LandmarksError> {
        Ok(match precompute(grid)?.0 {
            Precomputed::Table(table) => table.to_binary(),
            Precomputed::FirstMoves(moves) => moves.to_binary(),
            Precomputed::Landmarks(landmarks) => {
                landmarks.to_binary(grid).expect("built for this grid just now")
            }
        })
    }
}

/// Put on a map's entity with [`PrecomputePaths`]: bytes made by [`PrecomputePaths::bake`] (or
/// by `to_binary` of a [`PathTable`], a [`FirstMoveTable`] or [`Landmarks`]) that the plugin
/// loads instead of building, off the main thread as a build would be. Bytes that do not fit
/// the map (damaged, of a newer format, made for other cells) are not used: a
/// [`TilemapNavWarning`] ([`TilemapNavError::BakedPaths`]) says why, once, and the plugin
/// builds as if there were none. After the map's cells change, what they held is rebuilt or
/// followed as usual (and they are used again if the cells go back to those they were made
/// for). [`NavMap::precomputed_from_bake`] tells whether they are in use.
#[derive(Component, Clone, Debug)]
pub struct BakedPaths(Arc<[u8]>);

impl BakedPaths {
    /// Baked precomputed paths, from the bytes of [`PrecomputePaths::bake`] (a `Vec<u8>` read
    /// from a file, or `include_bytes!`).
    pub fn new(bytes: impl Into<Arc<[u8]>>) -> Self {
        Self(bytes.into())
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }
}

/// How many landmarks the plugin keeps for a map that no table serves.
pub const PLUGIN_LANDMARKS: usize = 16;

/// The first of a path table, a first-move table and landmarks that serves the grid (with why
/// no path table, to log).
fn precompute(grid: &NavGrid) -> Result<(Precomputed, Option<PathTableError>), LandmarksError> {
    let why = match PathTable::build(grid) {
        Ok(table) => return Ok((Precomputed::Table(table), None)),
        Err(why) => why,
    };
    if let Ok(moves) = FirstMoveTable::build(grid) {
        return Ok((Precomputed::FirstMoves(moves), Some(why)));
    }
    Landmarks::build(grid, PLUGIN_LANDMARKS)
        .map(|landmarks| (Precomputed::Landmarks(landmarks), Some(why)))
}

/// [`precompute`] one structure after the other on this thread, counting the work in `work`
/// (what a build in slices runs).
async fn precompute_counted(
    grid: &NavGrid,
    work: &mut Work,
) -> Result<(Precomputed, Option<PathTableError>), LandmarksError> {
    let why = match PathTable::build_counted(grid, work).await {
        Ok(table) => return Ok((Precomputed::Table(table), None)),
        Err(why) => why,
    };
    if let Ok(moves) = FirstMoveTable::build_counted(grid, work).await {
        return Ok((Precomputed::FirstMoves(moves), Some(why)));
    }
    Landmarks::build_counted(grid, PLUGIN_LANDMARKS, work, None)
        .await
        .map(|landmarks| (Precomputed::Landmarks(landmarks), Some(why)))
}

/// Baked precomputed data for `grid`: whichever of a path table, a first-move table and
/// landmarks the bytes hold.
fn load(bytes: &[u8], grid: &NavGrid) -> Result<Precomputed, BakeError> {
    let not_this = |e: &BakeError| *e == BakeError::NotBaked;
    PathTable::from_binary(bytes, grid)
        .map(Precomputed::Table)
        .or_else(|e| match not_this(&e) {
            true => FirstMoveTable::from_binary(bytes, grid).map(Precomputed::FirstMoves),
            false => Err(e),
        })
        .or_else(|e| match not_this(&e) {
            true => Landmarks::from_binary(bytes, grid).map(Precomputed::Landmarks),
            false => Err(e),
        })
}

/// What a build off the main thread gives back.
struct Outcome {
    built: Result<(Precomputed, Option<PathTableError>), LandmarksError>,
    /// Loaded from the map's [`BakedPaths`] rather than built.
    from_bake: bool,
    /// Why the map's [`BakedPaths`] were not used.
    bake_error: Option<BakeError>,
}

/// What `baked` holds when given and it fits `grid` (`Ok`); else why not, if given (`Err`).
fn load_baked(grid: &NavGrid, baked: Option<&[u8]>) -> Result<Outcome, Option<BakeError>> {
    match baked.map(|bytes| load(bytes, grid)) {
        Some(Ok(loaded)) => {
            Ok(Outcome { built: Ok((loaded, None)), from_bake: true, bake_error: None })
        }
        Some(Err(error)) => Err(Some(error)),
        None => Err(None),
    }
}

/// Loads `baked` when given and it fits `grid`, else builds.
fn load_or_build(grid: &NavGrid, baked: Option<&[u8]>) -> Outcome {
    load_baked(grid, baked).unwrap_or_else(|bake_error| Outcome {
        built: precompute(grid),
        from_bake: false,
        bake_error,
    })
}

/// [`load_or_build`] a slice at a time on this thread (the bake, if any, is read in the first).
fn load_or_build_in_slices(grid: NavGrid, baked: Option<Arc<[u8]>>) -> SlicedBuild<Outcome> {
    SlicedBuild::new(|mut work| async move {
        match load_baked(&grid, baked.as_deref()) {
            Ok(loaded) => loaded,
            Err(bake_error) => {
                let built = precompute_counted(&grid, &mut work).await;
                Outcome { built, from_bake: false, bake_error }
            }
        }
    })
}

/// A build: in the background, or in slices here.
enum Build {
    Background(Task<Outcome>),
    Sliced(SlicedBuild<Outcome>),
}

/// The builds running: for which map, for which state of its grid.
#[derive(Resource, Default)]
pub(crate) struct TableBuilds {
    running: Vec<(Entity, GridStamp, Build, Option<Outcome>)>,
    /// The grid state a build failed for: not tried again until the grid changes.
    failed: Vec<(Entity, GridStamp)>,
    /// The maps whose [`BakedPaths`] were used, or said not to fit: not reported on again
    /// until they are replaced.
    bakes_noted: Vec<Entity>,
}

/// More than the largest piece of work a sliced build does at once (a few hundred units).
const LARGEST_PIECE: u64 = 2_048;

impl TableBuilds {
    /// Steps the sliced builds, in the order they started, with `budget` units in all: the
    /// work they did, and the time it took.
    fn step_sliced(&mut self, mut budget: u64) -> (u64, Duration) {
        let started = Moment::now();
        let (mut done, mut steps) = (0, 0usize);
        for (_, _, build, ready) in &mut self.running {
            let Build::Sliced(sliced) = build else {
                continue;
            };
            // A build is stepped with less than its largest piece of work only when it is the
            // first (a step does that piece whole): so the frame's work stays within its budget.
            if ready.is_some() || steps > 0 && budget < LARGEST_PIECE {
                continue;
            }
            *ready = sliced.step(budget);
            let spent = sliced.last_step_work();
            budget = budget.saturating_sub(spent);
            done += spent;
            steps += 1;
        }
        if steps == 0 {
            return (0, Duration::ZERO);
        }
        (done, started.elapsed())
    }
}

/// Whether builds run in slices here rather than on the task pool.
fn builds_sliced(builds: PrecomputeBuilds) -> bool {
    match builds {
        PrecomputeBuilds::Sliced => true,
        PrecomputeBuilds::Background => false,
        PrecomputeBuilds::Auto => {
            cfg!(target_arch = "wasm32")
                || AsyncComputeTaskPool::try_get().is_none_or(|pool| pool.thread_num() == 0)
        }
    }
}

/// Notes the outcome of reading `map`'s [`BakedPaths`]: the first time they do not fit, a
/// warning; none once they were used (the map's cells changed since).
fn note_bake(
    noted: &mut Vec<Entity>,
    warnings: &mut MessageWriter<TilemapNavWarning>,
    map: Entity,
    from_bake: bool,
    error: Option<BakeError>,
) {
    if noted.contains(&map) {
        return;
    }
    if let Some(error) = error {
        warn!("map {map}: baked paths not used: {error}");
        warnings.write(TilemapNavWarning { error: TilemapNavError::BakedPaths { map, error } });
    } else if !from_bake {
        return;
    }
    noted.push(map);
}

/// Puts a finished build on its map (`from_bake`: loaded from its [`BakedPaths`]).
fn take(map: &mut NavMap, built: (Precomputed, Option<PathTableError>), from_bake: bool) {
    if from_bake {
        info!("map {}: precomputed paths loaded from its BakedPaths", map.entity);
    }
    let (kept, why) = built;
    if let Some(why) = why {
        let instead = match kept {
            Precomputed::FirstMoves(_) => "answers from a first-move table",
            _ => "searches guided by landmarks",
        };
        info!("map {}: no path table ({why}); {instead}", map.entity);
    }
    map.keep_precomputed(Some(kept), from_bake);
}

/// Takes finished builds in (if their map has not changed since) and starts builds for marked
/// maps whose table or landmarks are missing or stale, one at a time per map. Landmarks that
/// can follow the grid's changes are refreshed instead of rebuilt: here when cells only got
/// dearer or blocked, in the background when some opened or got cheaper.
pub(crate) fn keep_path_tables(
    mut maps: ResMut<NavMaps>,
    marked: Query<(), With<PrecomputePaths>>,
    bakes: Query<Ref<BakedPaths>>,
    mut builds: ResMut<TableBuilds>,
    mut warnings: MessageWriter<TilemapNavWarning>,
    mut work: FrameWork,
) {
    // A sliced build for a map that changed, went or lost its mark since it started is
    // dropped before it takes more of the frame (one in the background runs to its end).
    builds.running.retain(|(entity, stamp, build, _)| {
        matches!(build, Build::Background(_))
            || marked.contains(*entity)
                && maps.get(*entity).is_some_and(|map| map.grid.stamp() == *stamp)
    });
    let (done, took) = builds.step_sliced(work.clockless(WorkKind::Precompute));
    (work.diagnostics.precompute_work, work.diagnostics.precompute_time) = (done, took);
    work.spend(WorkKind::Precompute, done, took);
    let sliced = builds_sliced(work.settings.precompute.builds);
    let TableBuilds { running, failed, bakes_noted, .. } = &mut *builds;
    // Bakes put on (or replaced) since are reported on afresh.
    bakes_noted.retain(|e| !bakes.get(*e).is_ok_and(|baked| baked.is_changed()));
    running.retain_mut(|(entity, stamp, build, ready)| {
        let outcome = match build {
            Build::Background(task) => check_ready(task),
            Build::Sliced(_) => ready.take(),
        };
        let Some(Outcome { built, from_bake, bake_error }) = outcome else {
            return true;
        };
        note_bake(bakes_noted, &mut warnings, *entity, from_bake, bake_error);
        let map = maps.maps_mut().find(|m| m.entity == *entity);
        match (map, built) {
            (Some(map), Ok(built)) if map.grid.stamp() == *stamp => take(map, built, from_bake),
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
            map.keep_precomputed(None, false);
            continue;
        }
        let stamp = map.grid.stamp();
        let building = running.iter().any(|(e, ..)| *e == map.entity);
        // Builds are started in slices here, or on the task pool (or in one go here without one).
        let pool = AsyncComputeTaskPool::try_get().filter(|_| !sliced);
        // Landmarks follow the map's changes: where cells only got dearer or blocked the
        // refresh has nothing to lower (cheap, here); where cells opened or got cheaper it may
        // reach far, so it runs in the background on a copy while searches go unguided. A map
        // a table may serve now, or whose changes are not listed, starts afresh.
        let mut repair = None;
        let (grid, kept) = map.grid_and_landmarks_mut();
        if let Some(landmarks) = kept
            && !landmarks.is_current(grid)
        {
            let table_may_serve = grid.has_uniform_cost() && jps_applies(grid);
            if !landmarks.can_follow(grid) || table_may_serve {
                map.keep_precomputed(None, false);
            } else if landmarks.usable_on(grid) {
                landmarks.refresh(grid);
            } else if !building {
                repair = Some(landmarks.clone());
            }
        }
        let current = match map.precomputed() {
            Some(Precomputed::Table(table)) => table.is_current(&map.grid),
            Some(Precomputed::FirstMoves(moves)) => moves.is_current(&map.grid),
            Some(Precomputed::Landmarks(landmarks)) => landmarks.is_current(&map.grid),
            None => false,
        };
        let gave_up = failed.contains(&(map.entity, stamp));
        if current || building || gave_up {
            continue;
        }
        failed.retain(|(e, _)| *e != map.entity);
        if let Some(mut landmarks) = repair {
            // A copy that keeps the grid's identity, so the refresh reads its list of changes.
            let grid = map.grid.frozen_copy();
            let from_bake = map.precomputed_from_bake();
            let refresh = |mut work: Work| async move {
                landmarks.refresh_counted(&grid, &mut work).await;
                let built = Ok((Precomputed::Landmarks(landmarks), None));
                Outcome { built, from_bake, bake_error: None }
            };
            let build = match pool {
                _ if sliced => Build::Sliced(SlicedBuild::new(refresh)),
                Some(pool) => Build::Background(pool.spawn(refresh(Work::unlimited()))),
                // No task pool: here.
                None => {
                    if let (grid, Some(landmarks)) = map.grid_and_landmarks_mut() {
                        landmarks.refresh(grid);
                    }
                    continue;
                }
            };
            running.push((map.entity, stamp, build, None));
            continue;
        }
        // The map's bake is tried at every build: it is used whenever the cells are those it
        // was made for (checked off the main thread, like the build).
        let baked = bakes.get(map.entity).ok().map(|baked| baked.0.clone());
        // Built on a copy that keeps the grid's identity, so what is built carries the stamp of
        // the map's grid as it was when the build began.
        if sliced {
            let build = load_or_build_in_slices(map.grid.frozen_copy(), baked);
            running.push((map.entity, stamp, Build::Sliced(build), None));
            continue;
        }
        let Some(pool) = pool else {
            // No task pool (an app without one): build here.
            let Outcome { built, from_bake, bake_error } =
                load_or_build(&map.grid, baked.as_deref());
            note_bake(bakes_noted, &mut warnings, map.entity, from_bake, bake_error);
            match built {
                Ok(built) => take(map, built, from_bake),
                Err(error) => {
                    warn!("no precomputed paths for map {}: {error}", map.entity);
                    failed.push((map.entity, stamp));
                }
            }
            continue;
        };
        let grid = map.grid.frozen_copy();
        let build = async move { load_or_build(&grid, baked.as_deref()) };
        running.push((map.entity, stamp, Build::Background(pool.spawn(build)), None));
    }
}

/// The answer of the map's path table or first-move table, whichever is current for its grid
/// and answers these options; `None` when neither does (a search answers then).
pub(crate) fn table_answer(
    map: &NavMap,
    pathfinder: &mut Pathfinder,
    (start, goal, options): (GridPos, GridPos, &SearchOptions),
) -> Option<Result<PathResult, PathError>> {
    let grid = &map.grid;
    let query = PathQuery::new(start, goal).with_options(*options);
    let query = match map.precomputed()? {
        Precomputed::Table(table) if table.is_current(grid) => query.with_help(table),
        Precomputed::FirstMoves(moves) if moves.is_current(grid) => query.with_help(moves),
        _ => return None,
    };
    table_answers(options).then(|| pathfinder.find(grid, &query))
}

/// Whether [`table_answer`] answers for these options on `map` (a table current for its grid).
pub(crate) fn table_serves(map: &NavMap, options: &SearchOptions) -> bool {
    let grid = &map.grid;
    let current = match map.precomputed() {
        Some(Precomputed::Table(table)) => table.is_current(grid),
        Some(Precomputed::FirstMoves(moves)) => moves.is_current(grid),
        _ => false,
    };
    current && table_answers(options)
}
