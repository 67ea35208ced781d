//! The crowd benchmark, headless: 1,000 agents on a tilemap, each asking for a new random goal
//! when it arrives or every 2 seconds, in 60 Hz frames; it times the plugin's systems (grid
//! sync, pathfinding, movement) every frame and prints p50, p99 and max after the first second,
//! two ways: their own running time (`NavDiagnostics::systems_time`, what the plugin's code
//! costs) and the wall time from before the first to after the last (that plus Bevy's
//! multi-threaded scheduler starting each system on a worker thread, which on a 2-core machine
//! costs tens of microseconds a system and is at the mercy of the OS scheduler). Three
//! situations on two maps:
//!
//! - `static`: nothing changes;
//! - `toggle`: one random cell turns wall or floor every 5 frames;
//! - `obstacles`: 10 of the agents are `NavObstacle`s, walked around by all the others;
//! - `avoidance`: every agent has `Avoidance` (bodies 0.6 tiles across) and steers round the
//!   others (ORCA, neighbours through a spatial hash);
//! - `links10`, `links1000`: 10 or 1,000 two-way `NavLink`s (teleporters, cost 10) between
//!   random open cells: every request is then a search through links;
//! - `chase`: 20 of the agents walk to random goals as above, the other 980 chase them
//!   (`PathRequest::chase`, 49 to a target, stopping within 2 tiles), sent once;
//! - `field`: 10,000 agents follow one `NavField` to one goal (`FollowField`), each sent back
//!   to a random open cell when it arrives: they walk straight off the field, no path each;
//! - `fieldavoidance`: the same 10,000 with `Avoidance` (each then walks its way as a `NavPath`);
//! - `chunks`: the map cut into tilemaps of 64 x 64 tiles side by side (the plugin joins them
//!   into one world at their seams), 300 agents sent to random world points across it
//!   (`PathGoal::World`) on arrival or every 2 s. It also prints requests answered and failed
//!   per second of game time (`WorldSearch` from `CROWD_WORLD=hierarchical` or `exact`, else the
//!   default, `Auto`: hierarchical on this world of 64 maps).
//!
//! Maps: `rooms`, 256 x 256 rooms and corridors generated from a seed, and `64room_000`
//! (512 x 512, `assets/maps`); `lak304d` (193 x 194) when named. It also times the first
//! frame (the grid built from the tiles) and reports live heap bytes after warm-up and at the
//! end, and (on standard error) how often an agent holding a path moved less than half a tile
//! in 10 s, and the longest such stand.
//!
//! ```sh
//! cargo run --release --example crowd_bench                 # 3,600 frames a situation
//! cargo run --release --example crowd_bench -- 600 rooms    # fewer frames, one map
//! cargo run --release --example crowd_bench -- 3600 lak304d # lak304d only (not in the default)
//! CROWD_LONG=4 cargo run --release --example crowd_bench    # also print every frame over 4 ms
//! CROWD_SINGLE=1 cargo run --release --example crowd_bench  # one thread, no task pool wake-ups
//! CROWD_SITUATION=avoidance cargo run --release --example crowd_bench  # one situation
//! CROWD_FRAME_US=500 cargo run --release --example crowd_bench  # a 0.5 ms frame budget
//! CROWD_THREADS=2 cargo run --release --example crowd_bench  # searches on 2 threads at once
//! CROWD_SIZE=2 cargo run --release --example crowd_bench     # agents 2 x 2 tiles (AgentKind)
//! CROWD_AGENTS=6000 cargo run --release --example crowd_bench # more agents (not `chunks`, hordes)
//! ```

// Timed natively only: the web rule of clippy.toml does not apply here.
#![allow(clippy::disallowed_types, clippy::disallowed_methods)]

#[path = "common/rooms.rs"]
mod rooms;
#[allow(dead_code)]
#[path = "../tests/support/soak.rs"]
mod soak;
#[path = "../tests/support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_ecs_tilemap::prelude::*;
use bevy_tilemap_nav::io::movingai::load_map;
use bevy_tilemap_nav::plugin::{Arrival, FollowField, NavDiagnostics, NavField, WorldSearch};
use bevy_tilemap_nav::prelude::*;
use rooms::rooms_map;
use soak::{FLOOR, TILE, WALL};
use support::Rng;

const AGENTS: usize = 1000;
const OBSTACLES: usize = 10;
/// Frames of the first second, left out of the figures.
const WARM_UP: usize = 60;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Situation {
    Static,
    Toggle,
    Obstacles,
    Avoidance,
    Links10,
    Links1000,
    Chase,
    Field,
    FieldAvoidance,
    Chunks,
}

/// Agents, and the side of a tilemap, in the `chunks` situation.
const CHUNK_AGENTS: usize = 300;
const CHUNK: u32 = 64;

/// Agents in the `field` situation.
const HORDE: usize = 10_000;

/// Agents that others chase, in the `chase` situation.
const TARGETS: usize = 20;

/// Per-frame wall-clock time from just before the plugin's first system to just after its
/// last: the systems' own time plus the scheduler's time to start each of them.
#[derive(Resource, Default)]
struct Timing {
    began: Option<Instant>,
    frames: Vec<Duration>,
}

fn timer_start(mut timing: ResMut<Timing>) {
    timing.began = Some(Instant::now());
}

fn timer_stop(mut timing: ResMut<Timing>) {
    if let Some(began) = timing.began.take() {
        timing.frames.push(began.elapsed());
    }
}

struct Run {
    first_frame: Duration,
    /// Per frame: the plugin's systems' own time (`NavDiagnostics::systems_time`).
    own: Vec<Duration>,
    /// Per frame: wall time from before the first of the plugin's systems to after the last.
    frames: Vec<Duration>,
    /// Mean own time of the sync, pathfinding and movement systems.
    parts: [Duration; 3],
    searches: u64,
    failed: u64,
    paused_frames: usize,
    early_bytes: usize,
    late_bytes: usize,
    stands: Stands,
    waits: Waits,
}

/// Agents holding a path that stand still: how often one moved less than half a tile in
/// [`STAND_SECONDS`] (counted once per stand, however long), and the longest stand, in frames.
#[derive(Default)]
struct Stands {
    /// Per agent: where it last was half a tile from, since which frame, and whether this
    /// stand is counted.
    since: Vec<(Vec2, usize, bool)>,
    count: usize,
    longest: usize,
}

/// How long agents waited for their answers: from the frame a request went on an agent with
/// none waiting (a request that replaces a waiting one goes on waiting from the first) to the
/// frame it was answered (its `PathRequest` taken off), in frames; requests made in the first
/// [`WARM_UP`] frames (while the maps warm) are not counted.
#[derive(Default)]
struct Waits {
    /// Per agent: the frame its waiting request went on, if one waits.
    since: Vec<Option<usize>>,
    /// Every answered request's wait.
    waits: Vec<usize>,
}

impl Waits {
    fn asked(&mut self, k: usize, frame: usize) {
        if self.since.len() <= k {
            self.since.resize(k + 1, None);
        }
        self.since[k].get_or_insert(frame);
    }

    fn see(&mut self, k: usize, waiting: bool, frame: usize) {
        if let Some(since) = self.since.get(k).copied().flatten().filter(|_| !waiting) {
            if since >= WARM_UP {
                self.waits.push(frame + 1 - since);
            }
            self.since[k] = None;
        }
    }

    /// The median, 99th percentile and longest wait, and how many requests still wait.
    fn summary(&mut self) -> (usize, usize, usize, usize) {
        self.waits.sort_unstable();
        let at = |q: f64| {
            let last = self.waits.len().saturating_sub(1);
            self.waits.get((last as f64 * q).round() as usize).copied().unwrap_or(0)
        };
        (at(0.5), at(0.99), at(1.0), self.since.iter().flatten().count())
    }
}

/// The stand the issue reports (10 s) and how far counts as moving (half a tile).
const STAND_SECONDS: usize = 10;

impl Stands {
    fn see(&mut self, k: usize, at: Vec2, holds_path: bool, frame: usize) {
        if self.since.len() <= k {
            self.since.resize(k + 1, (at, frame, false));
        }
        let (from, since, counted) = &mut self.since[k];
        if !holds_path || from.distance(at) >= 0.5 * TILE {
            (*from, *since, *counted) = (at, frame, false);
            return;
        }
        self.longest = self.longest.max(frame - *since);
        if frame - *since >= STAND_SECONDS * 60 && !*counted {
            self.count += 1;
            *counted = true;
        }
    }
}

/// The plugin's settings, with `CROWD_FRAME_US=N`: a frame budget of N microseconds (a slower
/// machine, or a game that gives navigation less of its frame).
fn frame_budget() -> NavSettings {
    let mut settings =
        NavSettings { search_threads: threads().unwrap_or(0), ..NavSettings::default() };
    if let Some(us) = std::env::var("CROWD_FRAME_US").ok().and_then(|u| u.parse::<u64>().ok()) {
        settings.work.time = Some(Duration::from_micros(us));
    }
    match std::env::var("CROWD_WORLD").map(|w| w.to_lowercase()).as_deref() {
        Ok("hierarchical") => settings.world_search = WorldSearch::Hierarchical,
        Ok("exact") => settings.world_search = WorldSearch::Exact,
        _ => {}
    }
    settings
}

/// `CROWD_SIZE=N`: the side of every agent's body in tiles (1 if unset, up to 8).
fn body_size() -> u32 {
    let size = std::env::var("CROWD_SIZE").ok().and_then(|s| s.parse::<u32>().ok());
    size.unwrap_or(1).clamp(1, 8)
}

/// `CROWD_THREADS=N`: the searches on N threads of the compute task pool (1: one after another).
fn threads() -> Option<usize> {
    std::env::var("CROWD_THREADS").ok()?.parse::<usize>().ok().filter(|&n| n > 0)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let k = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[k.min(sorted.len() - 1)]
}

fn run(grid: &NavGrid, situation: Situation, frames: usize, seed: u64) -> Run {
    let mut rng = Rng(seed);
    let mut app = App::new();
    if std::env::var_os("CROWD_SINGLE").is_some() {
        app.add_plugins(
            MinimalPlugins
                .set(TaskPoolPlugin { task_pool_options: TaskPoolOptions::with_num_threads(1) }),
        );
        app.edit_schedule(Update, |s| {
            s.set_executor(bevy::ecs::schedule::SingleThreadedExecutor::new());
        });
    } else if let Some(threads) = threads() {
        // `CROWD_THREADS=N`: a compute task pool of N threads, all of them lent to the searches.
        let mut options = TaskPoolOptions::default();
        (options.compute.min_threads, options.compute.max_threads) = (threads, threads);
        app.add_plugins(MinimalPlugins.set(TaskPoolPlugin { task_pool_options: options }));
    } else {
        app.add_plugins(MinimalPlugins);
    }
    app.add_plugins(TilemapNavPlugin::default())
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(1.0 / 60.0)))
        .insert_resource(TileRules::default().with(WALL, Cell::Blocked))
        .insert_resource(frame_budget())
        .init_resource::<Timing>()
        .add_systems(Update, timer_start.before(NavSet::SyncGrid))
        .add_systems(Update, timer_stop.after(NavSet::Debug));

    let chunk =
        if situation == Situation::Chunks { CHUNK } else { grid.width().max(grid.height()) };
    let tiles = soak::spawn_chunked_tilemap(&mut app, grid.width(), grid.height(), chunk, |pos| {
        if grid.is_passable(pos) { FLOOR } else { WALL }
    });
    app.update();
    let first_frame = app.world_mut().resource_mut::<Timing>().frames.pop().unwrap_or_default();

    let map = app.world().resource::<NavMaps>().first().unwrap();
    let (geometry, map) = (map.geometry, map.entity);
    // `CROWD_SIZE=N`: agents N tiles across (`AgentKind::sized`), started and sent where their
    // whole body fits.
    let size = body_size();
    let fits = |p: GridPos| {
        (0..size).all(|dy| {
            (0..size).all(|dx| {
                let c = GridPos::new(p.x + dx, p.y + dy);
                c.x < grid.width() && c.y < grid.height() && grid.is_passable(c)
            })
        })
    };
    let open: Vec<GridPos> = grid.positions().filter(|&p| fits(p)).collect();
    let body = geometry.body_offset(size);
    let links = match situation {
        Situation::Links10 => 10,
        Situation::Links1000 => 1000,
        _ => 0,
    };
    for _ in 0..links {
        let mut end = || LinkEnd::new(map, open[rng.below(open.len() as u32) as usize]);
        let (from, to) = (end(), end());
        app.world_mut().spawn(NavLink::two_way(from, to, 10.0));
    }
    let speed = 4.0 * TILE; // 4 tiles a second
    let horde = matches!(situation, Situation::Field | Situation::FieldAvoidance);
    let count = match situation {
        _ if horde => HORDE,
        Situation::Chunks => CHUNK_AGENTS,
        // `CROWD_AGENTS=N`: N agents instead (more requests a frame than the budget answers).
        _ => std::env::var("CROWD_AGENTS").ok().and_then(|a| a.parse().ok()).unwrap_or(AGENTS),
    };
    // A goal: a cell of the level, or (chunks) the world point at its centre.
    let goal_at = |cell: GridPos| match situation {
        Situation::Chunks => PathRequest::to(PathGoal::World(geometry.cell_to_world(cell))),
        _ => PathRequest::to(cell),
    };
    let field = horde.then(|| {
        let goal = open[open.len() / 2];
        app.world_mut().spawn(NavField::new(map, vec![goal])).id()
    });
    let mut agents = Vec::with_capacity(count);
    let mut next_goal_at = Vec::with_capacity(count);
    for k in 0..count {
        let at = open[rng.below(open.len() as u32) as usize];
        let goal = open[rng.below(open.len() as u32) as usize];
        let chases = situation == Situation::Chase && k >= TARGETS;
        let request = match chases {
            true => {
                PathRequest::chase(agents[k % TARGETS]).with_arrival(Arrival::Within(2.0 * TILE))
            }
            false => goal_at(goal),
        };
        let mut agent = app.world_mut().spawn((
            Transform::from_translation((geometry.cell_to_world(at) + body).extend(1.0)),
            PathFollower::new(speed),
        ));
        if size > 1 {
            agent.insert(AgentKind::sized(size));
        }
        match field {
            Some(field) => agent.insert(FollowField(field)),
            None => agent.insert(request),
        };
        if situation == Situation::Obstacles && k < OBSTACLES {
            agent.insert(NavObstacle::default());
        }
        if matches!(situation, Situation::Avoidance | Situation::FieldAvoidance) {
            agent.insert(Avoidance::new(0.3 * TILE * size as f32));
        }
        agents.push(agent.id());
        // Staggered, so that the 2-second renewals do not all fall on one frame.
        next_goal_at.push(rng.below(120) as usize);
    }

    // `CROWD_LONG=MS`: frames longer than MS milliseconds (4 if not a number) are printed.
    let long_frame = std::env::var("CROWD_LONG").ok().map(|ms| {
        Duration::from_secs_f64(ms.parse::<f64>().ok().filter(|ms| *ms >= 0.0).unwrap_or(4.0) / 1e3)
    });
    let mut searches = 0u64;
    let mut failed = 0u64;
    let mut own = Vec::with_capacity(frames);
    let mut parts = [Duration::ZERO; 3];
    let mut paused_frames = 0;
    let (mut early_bytes, mut late_bytes) = (0, 0);
    let mut stands = Stands::default();
    // Every agent but the horde's asks on the first frame.
    let mut waits = Waits::default();
    for k in (0..count).filter(|_| !horde) {
        waits.asked(k, 0);
    }
    for frame in 0..frames {
        if situation == Situation::Toggle && frame % 5 == 0 {
            let tile = tiles[rng.below(tiles.len() as u32) as usize];
            let mut texture = app.world_mut().get_mut::<TileTextureIndex>(tile).unwrap();
            texture.0 = if texture.0 == WALL { FLOOR } else { WALL };
        }
        let arrived: Vec<Entity> = app
            .world()
            .resource::<Messages<Arrived>>()
            .iter_current_update_messages()
            .map(|a| a.entity)
            .collect();
        if horde {
            // Home: back to a random open cell, to walk the field again.
            for &agent in &arrived {
                let at = open[rng.below(open.len() as u32) as usize];
                let place = (geometry.cell_to_world(at) + body).extend(1.0);
                app.world_mut().get_mut::<Transform>(agent).unwrap().translation = place;
            }
        }
        for (k, &agent) in agents.iter().enumerate() {
            if (situation == Situation::Chase && k >= TARGETS) || horde {
                continue; // chasers are sent once; the horde follows its field
            }
            if frame >= next_goal_at[k] || arrived.contains(&agent) {
                next_goal_at[k] = frame + 120;
                let goal = open[rng.below(open.len() as u32) as usize];
                app.world_mut().entity_mut(agent).insert(goal_at(goal));
                waits.asked(k, frame);
            }
        }
        app.update();
        let diagnostics = *app.world().resource::<NavDiagnostics>();
        if let Some(&last) = app.world().resource::<Timing>().frames.last()
            && let Some(long) = long_frame
            && last.max(diagnostics.systems_time()) > long
        {
            eprintln!("frame {frame}: wall {last:?} {diagnostics:?}");
        }
        searches += u64::from(diagnostics.searches_finished);
        failed +=
            app.world().resource::<Messages<PathFailed>>().iter_current_update_messages().count()
                as u64;
        own.push(diagnostics.systems_time());
        if frame >= WARM_UP {
            parts[0] += diagnostics.sync_time;
            parts[1] += diagnostics.pathfind_time;
            parts[2] += diagnostics.move_time;
        }
        paused_frames += usize::from(diagnostics.search_paused);
        for (k, &agent) in agents.iter().enumerate() {
            let world = app.world();
            let at = world.get::<Transform>(agent).map_or(Vec2::ZERO, |t| t.translation.truncate());
            stands.see(k, at, world.get::<NavPath>(agent).is_some(), frame);
            waits.see(k, world.get::<PathRequest>(agent).is_some(), frame);
        }
        if frame == frames / 4 {
            early_bytes = soak::live_bytes();
        }
        if frame == frames - 1 {
            late_bytes = soak::live_bytes();
        }
    }
    let measured = frames.saturating_sub(WARM_UP).max(1) as u32;
    let parts = parts.map(|p| p / measured);
    let frames = std::mem::take(&mut app.world_mut().resource_mut::<Timing>().frames);
    Run {
        first_frame,
        own,
        frames,
        parts,
        searches,
        failed,
        paused_frames,
        early_bytes,
        late_bytes,
        stands,
        waits,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let frames: usize = args.first().and_then(|f| f.parse().ok()).unwrap_or(3600).max(WARM_UP + 1);
    let only = args.get(1).cloned();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps");
    let mut maps = vec![("rooms (256 x 256)", rooms_map(11))];
    if only.as_deref() != Some("rooms") {
        let room = load_map(format!("{dir}/64room_000.map")).expect("assets/maps/64room_000.map");
        maps.push(("64room_000 (512 x 512)", room));
    }
    if only.as_deref() == Some("64room") {
        maps.remove(0);
    }
    if only.as_deref() == Some("lak304d") {
        let lake = load_map(format!("{dir}/lak304d.map")).expect("assets/maps/lak304d.map");
        maps = vec![("lak304d (193 x 194)", lake)];
    }
    println!(
        "crowd: {AGENTS} agents, {frames} frames of 1/60 s per situation, new goal on arrival or \
         every 2 s; per frame after the first {WARM_UP}: the plugin's systems' own time \
         (NavDiagnostics), and the wall time from before its first system to after its last"
    );
    println!(
        "| map | situation | own p50 | own p99 | own max | wall p50 | wall p99 | wall max | \
         own mean: sync, pathfind, move | first frame | searches/frame | paused frames | \
         heap at 1/4, end |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    // p50, p99 and max of the frames after the warm-up, in ms.
    let spread = |frames: &[Duration]| {
        let mut sorted = frames[WARM_UP.min(frames.len())..].to_vec();
        sorted.sort_unstable();
        let max = sorted.last().copied().unwrap_or_default();
        [percentile(&sorted, 0.5), percentile(&sorted, 0.99), max].map(ms)
    };
    for (name, grid) in &maps {
        let situations = [
            Situation::Static,
            Situation::Toggle,
            Situation::Obstacles,
            Situation::Avoidance,
            Situation::Links10,
            Situation::Links1000,
            Situation::Chase,
            Situation::Field,
            Situation::FieldAvoidance,
            Situation::Chunks,
        ];
        let only = std::env::var("CROWD_SITUATION").ok().map(|s| s.to_lowercase());
        for situation in situations {
            if only.as_ref().is_some_and(|o| *o != format!("{situation:?}").to_lowercase()) {
                continue;
            }
            let mut run = run(grid, situation, frames, 5);
            let own = spread(&run.own);
            let wall = spread(&run.frames);
            let [sync, pathfind, walk] = run.parts.map(ms);
            println!(
                "| {name} | {situation:?} | {:.2} ms | {:.2} ms | {:.2} ms | {:.2} ms | {:.2} ms | \
                 {:.2} ms | {sync:.2}, {pathfind:.2}, {walk:.2} ms | {:.1} ms | {:.1} | {} | \
                 {:.1} / {:.1} MiB |",
                own[0],
                own[1],
                own[2],
                wall[0],
                wall[1],
                wall[2],
                ms(run.first_frame),
                run.searches as f64 / run.frames.len().max(1) as f64,
                run.paused_frames,
                run.early_bytes as f64 / (1 << 20) as f64,
                run.late_bytes as f64 / (1 << 20) as f64,
            );
            if situation == Situation::Chunks {
                let seconds = run.frames.len().max(1) as f64 / 60.0;
                let (p50, p99, max, waiting) = run.waits.summary();
                eprintln!(
                    "{name} chunks: {:.1} requests answered and {:.1} failed a second; waits \
                     p50 {p50}, p99 {p99}, max {max} frames; {waiting} waiting at the end",
                    run.searches as f64 / seconds,
                    run.failed as f64 / seconds,
                );
            }
            let stands = &run.stands;
            eprintln!(
                "{name} {situation:?}: {} times an agent holding a path moved under half a tile \
                 in {STAND_SECONDS} s; longest such stand {:.1} s",
                stands.count,
                stands.longest as f64 / 60.0,
            );
        }
    }
}
