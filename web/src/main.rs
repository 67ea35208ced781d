//! The plugin in a browser page, headless: `MinimalPlugins`, no window, no renderer. A level read
//! from its file (the MovingAI map `arena`, compiled in) is served as a `NavGridMap` with
//! `PrecomputePaths`; walkers are sent from cell to cell, a flock follows a field whose goal
//! moves every two seconds, and chasers chase a runner. For ten seconds of game time (real
//! time) it reports, each second, the arrivals and the plugin's time per frame, then a verdict.
//!
//! In a browser (`wasm32-unknown-unknown`) each line goes to the page's `window.navReport`
//! (`web/index.html` shows them; `ci/web.sh` runs the page in headless Chromium and fails on a
//! panic or a failed verdict). Natively it prints them and exits with an error on a failed
//! verdict:
//!
//! ```text
//! cargo run --manifest-path web/Cargo.toml
//! bash ci/web.sh            # built for wasm32 and run in headless Chromium
//! ```
//!
//! The verdict fails when no walker, no flock member or no chaser arrived, when the precomputed
//! build never finished, and, in a browser, when that build was not done in slices over several
//! frames (a build in one go on the page's only thread would stop the game while it runs).

use std::time::Duration;

use bevy::app::PanicHandlerPlugin;
use bevy::log::LogPlugin;
use bevy::prelude::*;
use bevy_tilemap_nav::io::movingai::parse_map;
use bevy_tilemap_nav::plugin::{FollowField, NavDiagnostics, NavField, NavMap};
use bevy_tilemap_nav::prelude::*;

const MAP: &str = include_str!("../../assets/maps/arena.map");
const TILE: f32 = 16.0;
/// Game time the scene runs for.
const SECONDS: u32 = 10;
const WALKERS: usize = 24;
const FLOCK: usize = 24;
const CHASERS: usize = 3;

fn main() -> AppExit {
    App::new()
        .add_plugins((MinimalPlugins, PanicHandlerPlugin, LogPlugin::default()))
        .add_plugins(TilemapNavPlugin::default())
        .init_resource::<Scene>()
        .add_systems(Startup, serve_level)
        .add_systems(
            Update,
            (populate, send_on, move_field_goal, watch).chain().after(NavSet::Move),
        )
        .run()
}

/// What each agent of the scene is, to count its arrivals.
#[derive(Component, Clone, Copy, PartialEq, Eq, Debug)]
enum Role {
    Walker,
    Runner,
    Chaser,
    Flock,
}

/// The scene's figures.
#[derive(Resource, Default)]
struct Scene {
    /// A small random number generator's state.
    seed: u64,
    /// The level's open cells (it does not change), taken when it is served.
    open: Vec<GridPos>,
    field: Option<Entity>,
    frames: u32,
    walker_arrivals: u32,
    flock_arrivals: u32,
    chaser_arrivals: u32,
    failed: u32,
    /// The frame the precomputed paths were ready in.
    table_ready: Option<u32>,
    /// Frames in which the plugin did precompute work on this thread (a build in slices).
    table_slices: u32,
    plugin_time: Duration,
    worst: Duration,
    /// Whole seconds of game time reported.
    seconds: u32,
    second_arrivals: u32,
    second_frames: u32,
    second_time: Duration,
    /// Units of precompute work done on this thread this second.
    second_precompute: u64,
    second_precompute_time: Duration,
}

impl Scene {
    fn below(&mut self, n: usize) -> usize {
        self.seed = self.seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.seed >> 33) % n.max(1) as u64) as usize
    }

    /// One of the level's open cells, at random.
    fn open_cell(&mut self) -> GridPos {
        let k = self.below(self.open.len());
        self.open[k]
    }
}

/// Reads the level and serves it with precomputed paths.
fn serve_level(mut commands: Commands, mut exit: MessageWriter<AppExit>) {
    match parse_map(MAP) {
        Ok(grid) => {
            commands.spawn((NavGridMap::square(grid, Vec2::splat(TILE)), PrecomputePaths));
        }
        Err(error) => {
            report(&format!("done FAILED: the level did not read: {error}"));
            exit.write(AppExit::error());
        }
    }
}

/// Spawns the agents and the field once the map is served.
fn populate(mut commands: Commands, maps: Res<NavMaps>, mut scene: ResMut<Scene>) {
    let Some(map) = maps.first() else { return };
    if scene.field.is_some() {
        return;
    }
    scene.open = map.grid.positions().filter(|&p| map.grid.is_passable(p)).collect();
    let at = |scene: &mut Scene| {
        let cell = scene.open_cell();
        Transform::from_translation(map.geometry.cell_to_world(cell).extend(0.0))
    };
    for _ in 0..WALKERS {
        let (start, goal) = (at(&mut scene), scene.open_cell());
        commands.spawn((start, PathFollower::new(160.0), PathRequest::to(goal), Role::Walker));
    }
    let (start, goal) = (at(&mut scene), scene.open_cell());
    let runner =
        commands.spawn((start, PathFollower::new(90.0), PathRequest::to(goal), Role::Runner)).id();
    for _ in 0..CHASERS {
        let start = at(&mut scene);
        let chase = PathRequest::chase(runner);
        commands.spawn((start, PathFollower::new(170.0), chase, Role::Chaser));
    }
    let goal = scene.open_cell();
    let field = commands.spawn(NavField::new(map.entity, vec![goal])).id();
    for _ in 0..FLOCK {
        commands.spawn((at(&mut scene), PathFollower::new(150.0), FollowField(field), Role::Flock));
    }
    scene.field = Some(field);
}

/// Counts arrivals and sends walkers and the runner somewhere new.
fn send_on(
    mut commands: Commands,
    mut scene: ResMut<Scene>,
    mut arrived: MessageReader<Arrived>,
    mut failed: MessageReader<PathFailed>,
    roles: Query<&Role>,
) {
    scene.failed += failed.read().count() as u32;
    for arrival in arrived.read() {
        scene.second_arrivals += 1;
        match roles.get(arrival.entity) {
            Ok(&role @ (Role::Walker | Role::Runner)) => {
                scene.walker_arrivals += u32::from(role == Role::Walker);
                let goal = scene.open_cell();
                commands.entity(arrival.entity).insert(PathRequest::to(goal));
            }
            Ok(Role::Chaser) => scene.chaser_arrivals += 1,
            Ok(Role::Flock) => scene.flock_arrivals += 1,
            Err(_) => {}
        }
    }
}

/// Every two seconds the flock's field leads somewhere else (built again in slices).
fn move_field_goal(time: Res<Time>, mut scene: ResMut<Scene>, mut fields: Query<&mut NavField>) {
    let Some(field) = scene.field else { return };
    let now = time.elapsed_secs();
    if (now / 2.0).floor() == ((now - time.delta_secs()) / 2.0).floor() {
        return;
    }
    let goal = scene.open_cell();
    if let Ok(mut field) = fields.get_mut(field) {
        field.goals = vec![goal];
    }
}

/// Counts frames, the plugin's time and the precomputed build's progress; reports each second
/// and, at the end, the verdict.
fn watch(
    time: Res<Time>,
    maps: Res<NavMaps>,
    diagnostics: Res<NavDiagnostics>,
    mut scene: ResMut<Scene>,
    mut exit: MessageWriter<AppExit>,
) {
    scene.frames += 1;
    scene.second_frames += 1;
    let spent = diagnostics.systems_time();
    scene.plugin_time += spent;
    scene.second_time += spent;
    scene.worst = scene.worst.max(spent);
    if diagnostics.precompute_work > 0 {
        scene.table_slices += 1;
        scene.second_precompute += diagnostics.precompute_work;
        scene.second_precompute_time += diagnostics.precompute_time;
    }
    if scene.table_ready.is_none() && maps.first().is_some_and(precomputed_ready) {
        scene.table_ready = Some(scene.frames);
    }
    if time.elapsed_secs() < (scene.seconds + 1) as f32 {
        return;
    }
    scene.seconds += 1;
    report(&format!(
        "second {}: {} arrivals, {} frames, plugin {:.3} ms a frame, {} units precomputed in {:.1} ms",
        scene.seconds,
        scene.second_arrivals,
        scene.second_frames,
        scene.second_time.as_secs_f64() * 1e3 / scene.second_frames.max(1) as f64,
        scene.second_precompute,
        scene.second_precompute_time.as_secs_f64() * 1e3,
    ));
    scene.second_precompute_time = Duration::ZERO;
    (scene.second_arrivals, scene.second_frames, scene.second_time) = (0, 0, Duration::ZERO);
    scene.second_precompute = 0;
    if scene.seconds == SECONDS {
        let problems = verdict(&scene);
        let figures = figures(&scene);
        if problems.is_empty() {
            report(&format!("done ok {figures}"));
            exit.write(AppExit::Success);
        } else {
            report(&format!("done FAILED: {} {figures}", problems.join("; ")));
            exit.write(AppExit::error());
        }
    }
}

/// True when what the plugin precomputes for the map is built and current.
fn precomputed_ready(map: &NavMap) -> bool {
    map.path_table().is_some_and(|t| t.is_current(&map.grid))
        || map.first_move_table().is_some_and(|t| t.is_current(&map.grid))
        || map.landmarks().is_some_and(|l| l.is_current(&map.grid))
}

/// What went wrong, if anything.
fn verdict(scene: &Scene) -> Vec<&'static str> {
    let mut problems = Vec::new();
    if scene.walker_arrivals == 0 {
        problems.push("no walker arrived");
    }
    if scene.flock_arrivals == 0 {
        problems.push("no flock member arrived");
    }
    if scene.chaser_arrivals == 0 {
        problems.push("no chaser caught the runner");
    }
    if scene.table_ready.is_none() {
        problems.push("the precomputed paths were never ready");
    }
    // In a browser the build must come in slices: one go would stop the page while it ran.
    if cfg!(target_family = "wasm") && scene.table_slices < 2 {
        problems.push("the precomputed build was not done in slices over several frames");
    }
    problems
}

/// The run's figures, as JSON.
fn figures(scene: &Scene) -> String {
    format!(
        concat!(
            "{{\"frames\":{},\"walker_arrivals\":{},\"flock_arrivals\":{},\"chaser_arrivals\":{},",
            "\"failed\":{},\"table_ready_frame\":{},\"table_slices\":{},",
            "\"plugin_ms_per_frame\":{:.3},\"plugin_worst_ms\":{:.3}}}"
        ),
        scene.frames,
        scene.walker_arrivals,
        scene.flock_arrivals,
        scene.chaser_arrivals,
        scene.failed,
        scene.table_ready.map_or("null".to_string(), |f| f.to_string()),
        scene.table_slices,
        scene.plugin_time.as_secs_f64() * 1e3 / scene.frames.max(1) as f64,
        scene.worst.as_secs_f64() * 1e3,
    )
}

#[cfg(target_family = "wasm")]
mod page {
    use wasm_bindgen::prelude::*;

    #[wasm_bindgen]
    extern "C" {
        /// The page's report function (`web/index.html`).
        #[wasm_bindgen(js_namespace = window, js_name = navReport)]
        pub fn report(line: &str);
    }
}

/// Tells the page (or, natively, standard output) one line of the report.
fn report(line: &str) {
    #[cfg(target_family = "wasm")]
    page::report(line);
    #[cfg(not(target_family = "wasm"))]
    println!("{line}");
}
