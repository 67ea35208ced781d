//! The soak: many agents on a big tilemap with random goals while walls are built and torn down
//! at random every frame, run in a headless `App` with the real plugin. Shared by the soak test
//! (`tests/soak.rs`) and the longer run (`examples/soak.rs`); both declare `mod support` (for
//! the seeded `Rng`) next to this module.
//!
//! At every frame it asserts:
//! - an agent that entered a new cell entered a passable one, by a legal step (one cell, and a
//!   diagonal only between two open side cells: no blocked corner crossed);
//! - every agent whose goal stayed reachable the whole trip (same connected component as the
//!   agent, every frame) arrives within [`SoakConfig::bound`] of the trip's optimal cost and is
//!   never told its path failed;
//! - memory stays flat after warm-up: live heap bytes (glibc's count, [`live_bytes`]) in the
//!   last stretch of the run are no higher than in the first stretch after
//!   warm-up, within a small margin.

// Timed natively only: the web rule of clippy.toml does not apply here.
#![allow(clippy::disallowed_types, clippy::disallowed_methods)]

use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_ecs_tilemap::prelude::*;
use bevy_tilemap_nav::prelude::*;

use crate::support::Rng;
use bevy_tilemap_nav::plugin::WorkBudget;

/// The bytes the process has on its heap now, every thread's and every shared library's
/// (glibc's `mallinfo2`: in-use bytes of every arena plus mmapped blocks). A counting global
/// allocator would miss what Bevy and std allocate inside their shared libraries (the tests
/// link Bevy dynamically) while it counted their frees.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn live_bytes() -> usize {
    /// glibc's `struct mallinfo2` (glibc 2.33 and later), field for field.
    #[repr(C)]
    struct MallInfo2 {
        arena: usize,
        ordblks: usize,
        smblks: usize,
        hblks: usize,
        hblkhd: usize,
        usmblks: usize,
        fsmblks: usize,
        uordblks: usize,
        fordblks: usize,
        keepcost: usize,
    }
    unsafe extern "C" {
        safe fn mallinfo2() -> MallInfo2;
    }
    let info = mallinfo2();
    info.uordblks + info.hblkhd
}

/// Elsewhere the heap is not measured: 0, and the memory check holds trivially (CI runs the
/// soak on Linux with glibc).
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn live_bytes() -> usize {
    0
}

/// Spawns a square `width` x `height` tilemap of `TILE`-sized tiles marked for navigation, tile
/// textures from `texture` (by position); returns the tiles, row by row from the bottom.
pub fn spawn_tilemap(
    app: &mut App,
    width: u32,
    height: u32,
    texture: impl FnMut(GridPos) -> u32,
) -> Vec<Entity> {
    spawn_chunked_tilemap(app, width, height, width.max(height).max(1), texture)
}

/// The same level cut into tilemaps of `chunk` x `chunk` tiles (fewer at the right and top
/// edges), each placed where its tiles lie in the level: the plugin joins them at their seams
/// into one world. Returns the tiles by the level's position, row by row from the bottom.
pub fn spawn_chunked_tilemap(
    app: &mut App,
    width: u32,
    height: u32,
    chunk: u32,
    mut texture: impl FnMut(GridPos) -> u32,
) -> Vec<Entity> {
    let chunk = chunk.max(1);
    let mut tiles = vec![Entity::PLACEHOLDER; (width * height) as usize];
    for y0 in (0..height).step_by(chunk as usize) {
        for x0 in (0..width).step_by(chunk as usize) {
            let size = TilemapSize { x: chunk.min(width - x0), y: chunk.min(height - y0) };
            let tilemap = app.world_mut().spawn_empty().id();
            let bundles: Vec<_> = (0..size.y)
                .flat_map(|y| (0..size.x).map(move |x| TilePos { x, y }))
                .map(|tile_pos| {
                    let level = GridPos::new(x0 + tile_pos.x, y0 + tile_pos.y);
                    (tile_pos, TilemapId(tilemap), TileTextureIndex(texture(level)))
                })
                .collect();
            let positions: Vec<TilePos> = bundles.iter().map(|b| b.0).collect();
            let spawned: Vec<Entity> = app.world_mut().spawn_batch(bundles).collect();
            let mut storage = TileStorage::empty(size);
            for (pos, &tile) in positions.iter().zip(&spawned) {
                storage.set(pos, tile);
                tiles[((y0 + pos.y) * width + x0 + pos.x) as usize] = tile;
            }
            let at = Vec3::new(x0 as f32 * TILE, y0 as f32 * TILE, 0.0);
            app.world_mut().entity_mut(tilemap).insert((
                storage,
                size,
                TilemapGridSize { x: TILE, y: TILE },
                TilemapTileSize { x: TILE, y: TILE },
                TilemapType::Square,
                TilemapAnchor::None,
                Transform::from_translation(at),
                NavTilemap,
            ));
        }
    }
    tiles
}

pub const FLOOR: u32 = 0;
pub const WALL: u32 = 1;
pub const TILE: f32 = 16.0;
const DT: Duration = Duration::from_millis(16);

#[derive(Clone, Debug)]
pub struct SoakConfig {
    pub agents: usize,
    /// The map is `size` x `size` tiles.
    pub size: u32,
    pub frames: usize,
    /// Cells picked at random every frame: a wall there is torn down, open floor becomes a wall
    /// one time in four (so about a fifth of the map stays walled).
    pub toggles_per_frame: usize,
    /// Agent speed in tiles per frame.
    pub tiles_per_frame: f32,
    /// Frames before the memory check starts (queues, hash maps and paths reach their size).
    pub warm_up: usize,
    pub seed: u64,
    /// Agents with `Avoidance` of this radius (in tiles), steering round each other.
    pub avoidance: Option<f32>,
}

impl SoakConfig {
    /// The soak: 500 agents, 128 x 128, `frames` frames.
    pub fn standard(frames: usize) -> Self {
        Self {
            agents: 500,
            size: 128,
            frames,
            toggles_per_frame: 8,
            tiles_per_frame: 0.25,
            warm_up: (frames / 5).min(1000),
            seed: 7,
            avoidance: None,
        }
    }

    /// 500 agents avoiding each other (bodies 0.6 tiles across), otherwise the same.
    pub fn with_avoidance(frames: usize) -> Self {
        Self { avoidance: Some(0.3), seed: 8, ..Self::standard(frames) }
    }

    /// Frames allowed for a trip whose optimal cost (in tiles) was `cost` when it was set: one
    /// and a half times the walking time (detours around new walls), plus 2 seconds for waiting
    /// in the request queue and re-planning. With avoidance: three times the walking time plus
    /// 6 seconds (crowded detours, waits while others pass, stepping aside: a trip of 102
    /// tiles through the crowd was seen to step aside twice, a second each, and re-plan round
    /// new walls five times, and to take about 2.4 times its walk).
    pub fn bound(&self, cost: f64) -> usize {
        let walk = cost / f64::from(self.tiles_per_frame);
        match self.avoidance {
            None => (1.5 * walk).ceil() as usize + 120,
            Some(_) => (3.0 * walk).ceil() as usize + 360,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct SoakReport {
    /// Every arrival.
    pub arrivals: usize,
    /// Arrivals of trips whose goal stayed reachable throughout (held to the bound).
    pub checked_trips: usize,
    /// Trips exempted because their goal was cut off at some frame.
    pub disturbed_trips: usize,
    /// Failed requests and re-plans (`PathFailed`), all on disturbed trips.
    pub failures: usize,
    /// Cell changes of agents checked for legality.
    pub steps_checked: usize,
    /// Worst (frames taken / frames allowed) over checked trips.
    pub worst_bound_ratio: f64,
    /// Highest live heap bytes in the first and the last stretch after warm-up.
    pub early_peak_bytes: usize,
    pub late_peak_bytes: usize,
    /// Mean and worst wall-clock time of one `App::update`.
    pub mean_frame: Duration,
    pub worst_frame: Duration,
}

struct Agent {
    entity: Entity,
    cell: GridPos,
    goal: GridPos,
    set_at: usize,
    allowed: usize,
    disturbed: bool,
}

/// Runs the soak, asserting the rules above at every frame; `progress` is called every 1000
/// frames with the frame number and live heap bytes.
pub fn run(config: &SoakConfig, mut progress: impl FnMut(usize, usize)) -> SoakReport {
    let mut rng = Rng(config.seed);
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        // The search budget in cells only, so that the run is the same on any machine.
        .add_plugins(TilemapNavPlugin::with_settings(NavSettings {
            work: WorkBudget { time: None, ..default() },
            ..NavSettings::default()
        }))
        .insert_resource(TimeUpdateStrategy::ManualDuration(DT))
        .insert_resource(TileRules::default().with(WALL, Cell::Blocked));

    // The map: a fifth walls at random.
    let n = config.size;
    let tiles = spawn_tilemap(&mut app, n, n, |_| if rng.chance(20) { WALL } else { FLOOR });
    app.update();

    let geometry = app.world().resource::<NavMaps>().first().unwrap().geometry;
    let speed = config.tiles_per_frame * TILE / DT.as_secs_f32();
    let mut pathfinder = Pathfinder::new();
    let mut agents: Vec<Agent> = Vec::with_capacity(config.agents);
    {
        let grid = app.world().resource::<NavMaps>().first().unwrap().grid.clone();
        for _ in 0..config.agents {
            let cell = random_open_cell(&grid, &mut rng);
            let mut agent = app.world_mut().spawn((
                Transform::from_translation(geometry.cell_to_world(cell).extend(1.0)),
                PathFollower::new(speed),
            ));
            if let Some(radius) = config.avoidance {
                agent.insert(Avoidance::new(radius * TILE));
            }
            let entity = agent.id();
            agents.push(Agent { entity, cell, goal: cell, set_at: 0, allowed: 0, disturbed: true });
        }
    }

    let mut report = SoakReport::default();
    let mut components = Components::default();
    let stretch = ((config.frames - config.warm_up) / 4).max(1);
    let late_from = config.frames - stretch;
    let mut total_time = Duration::ZERO;
    let entities = app.world().entities().len();
    for frame in 0..config.frames {
        // Walls toggled at random, through the tiles' textures as a game would.
        for _ in 0..config.toggles_per_frame {
            let tile = tiles[rng.below(n * n) as usize];
            let mut texture = app.world_mut().get_mut::<TileTextureIndex>(tile).unwrap();
            if texture.0 == WALL {
                texture.0 = FLOOR;
            } else if rng.chance(25) {
                texture.0 = WALL;
            }
        }
        // New goals for agents that arrived, failed, or have none yet.
        let arrived: Vec<Entity> = app
            .world()
            .resource::<Messages<Arrived>>()
            .iter_current_update_messages()
            .map(|a| a.entity)
            .collect();
        {
            let grid = app.world().resource::<NavMaps>().first().unwrap().grid.clone();
            for agent in &mut agents {
                let failed = app.world().get::<PathFailed>(agent.entity).is_some();
                let done = arrived.contains(&agent.entity);
                if frame > 0 && !done && !failed {
                    continue;
                }
                if done {
                    report.arrivals += 1;
                    if !agent.disturbed {
                        // With avoidance, an agent whose goal someone stands on arrives next to
                        // it.
                        let off = agent
                            .cell
                            .x
                            .abs_diff(agent.goal.x)
                            .max(agent.cell.y.abs_diff(agent.goal.y));
                        let near = if config.avoidance.is_some() { 1 } else { 0 };
                        assert!(off <= near, "arrived at {} for {}", agent.cell, agent.goal);
                        let took = frame - agent.set_at;
                        assert!(
                            took <= agent.allowed,
                            "agent {:?} took {took} frames to {}, {} allowed",
                            agent.entity,
                            agent.goal,
                            agent.allowed
                        );
                        report.checked_trips += 1;
                        report.worst_bound_ratio =
                            report.worst_bound_ratio.max(took as f64 / agent.allowed as f64);
                    } else if frame > 0 {
                        report.disturbed_trips += 1;
                    }
                }
                if failed {
                    report.failures += 1;
                    assert!(
                        agent.disturbed,
                        "agent {:?} was refused a path to {} that stayed reachable: {:?}",
                        agent.entity,
                        agent.goal,
                        app.world().get::<PathFailed>(agent.entity)
                    );
                    report.disturbed_trips += 1;
                }
                let goal = random_open_cell(&grid, &mut rng);
                let optimum =
                    pathfinder.find(&grid, &PathQuery::new(agent.cell, goal)).map(|p| p.cost);
                agent.goal = goal;
                agent.set_at = frame;
                agent.disturbed = optimum.is_err();
                agent.allowed = config.bound(optimum.unwrap_or(0.0));
                app.world_mut()
                    .entity_mut(agent.entity)
                    .remove::<PathFailed>()
                    .insert(PathRequest::to(goal));
            }
        }

        let started = Instant::now();
        app.update();
        let took = started.elapsed();
        total_time += took;
        report.worst_frame = report.worst_frame.max(took);

        let grid = &app.world().resource::<NavMaps>().first().unwrap().grid;
        components.label(grid);
        for agent in &mut agents {
            let position = app.world().get::<Transform>(agent.entity).unwrap().translation;
            let cell = geometry.world_to_cell(position.truncate()).unwrap_or_else(|e| {
                panic!("frame {frame}: agent {:?} off the map: {e}", agent.entity)
            });
            if cell != agent.cell {
                let (dx, dy) = (cell.x.abs_diff(agent.cell.x), cell.y.abs_diff(agent.cell.y));
                assert!(
                    dx <= 1 && dy <= 1,
                    "frame {frame}: agent {:?} jumped from {} to {cell}",
                    agent.entity,
                    agent.cell
                );
                assert!(
                    grid.is_passable(cell),
                    "frame {frame}: agent {:?} entered blocked cell {cell}",
                    agent.entity
                );
                if dx == 1 && dy == 1 {
                    let sides =
                        [GridPos::new(cell.x, agent.cell.y), GridPos::new(agent.cell.x, cell.y)];
                    assert!(
                        sides.iter().all(|&s| grid.is_passable(s)),
                        "frame {frame}: agent {:?} cut a blocked corner from {} to {cell}",
                        agent.entity,
                        agent.cell
                    );
                }
                agent.cell = cell;
                report.steps_checked += 1;
            }
            // The goal must stay reachable from where the agent stands for the trip to be held
            // to the bound.
            if !agent.disturbed && !components.same(grid, agent.cell, agent.goal) {
                agent.disturbed = true;
            }
            if !agent.disturbed && frame - agent.set_at > agent.allowed {
                panic!(
                    "frame {frame}: agent {:?} has not reached {} (reachable all along) in {} \
                     frames, {} allowed; it is at {}",
                    agent.entity,
                    agent.goal,
                    frame - agent.set_at,
                    agent.allowed,
                    agent.cell
                );
            }
        }

        assert_eq!(app.world().entities().len(), entities, "frame {frame}: entity count changed");
        let bytes = live_bytes();
        if frame >= config.warm_up && frame < config.warm_up + stretch {
            report.early_peak_bytes = report.early_peak_bytes.max(bytes);
        }
        if frame >= late_from {
            report.late_peak_bytes = report.late_peak_bytes.max(bytes);
        }
        if (frame + 1) % 1000 == 0 {
            progress(frame + 1, bytes);
        }
    }
    report.mean_frame = total_time / config.frames as u32;
    // Flat memory: the last stretch's peak within 5% (plus 1 MiB for allocator slack) of the
    // first stretch's after warm-up.
    assert!(
        report.late_peak_bytes
            <= report.early_peak_bytes + report.early_peak_bytes / 20 + (1 << 20),
        "live heap grew: {} bytes at peak early, {} late",
        report.early_peak_bytes,
        report.late_peak_bytes
    );
    report
}

fn random_open_cell(grid: &NavGrid, rng: &mut Rng) -> GridPos {
    loop {
        let cell = GridPos::new(rng.below(grid.width()), rng.below(grid.height()));
        if grid.is_passable(cell) {
            return cell;
        }
    }
}

/// Connected components of the grid under its own step rule, relabelled every frame.
#[derive(Default)]
struct Components {
    label: Vec<u32>,
    stack: Vec<GridPos>,
}

impl Components {
    fn label(&mut self, grid: &NavGrid) {
        let width = grid.width() as usize;
        self.label.clear();
        self.label.resize(grid.len(), u32::MAX);
        let mut next = 0;
        for start in grid.positions() {
            let k = start.y as usize * width + start.x as usize;
            if self.label[k] != u32::MAX || !grid.is_passable(start) {
                continue;
            }
            self.label[k] = next;
            self.stack.push(start);
            while let Some(cell) = self.stack.pop() {
                for (dx, dy) in
                    [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)]
                {
                    let (Some(x), Some(y)) =
                        (cell.x.checked_add_signed(dx), cell.y.checked_add_signed(dy))
                    else {
                        continue;
                    };
                    let to = GridPos::new(x, y);
                    if grid.can_step(cell, to) {
                        let j = y as usize * width + x as usize;
                        if self.label[j] == u32::MAX {
                            self.label[j] = next;
                            self.stack.push(to);
                        }
                    }
                }
            }
            next += 1;
        }
    }

    /// Both passable and connected.
    fn same(&self, grid: &NavGrid, a: GridPos, b: GridPos) -> bool {
        let width = grid.width() as usize;
        let at = |p: GridPos| self.label[p.y as usize * width + p.x as usize];
        grid.is_passable(a) && grid.is_passable(b) && at(a) == at(b)
    }
}
