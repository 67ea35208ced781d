//! A game server's navigation, headless: `MinimalPlugins`, no window, no renderer, no tilemap.
//! It reads a Tiled level straight from its file (`io::tiled`, feature `tiled_files`), serves
//! it as a `NavGridMap`, and walks 200 agents in `FixedUpdate` (30 ticks a second) for five
//! seconds of game time, each sent somewhere new when it arrives. It prints the arrivals and
//! the plugin's time per tick, each second, and exits.
//!
//! ```text
//! cargo run --example server --features tiled_files
//! ```

use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_tilemap_nav::io::tiled::{TiledNavRules, read_tiled_level};
use bevy_tilemap_nav::plugin::NavDiagnostics;
use bevy_tilemap_nav::prelude::*;

const AGENTS: u32 = 200;
const TICKS_PER_SECOND: f64 = 30.0;
const SECONDS: u32 = 5;

fn main() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/tiled/maps/orthogonal/finite.tmx");
    let level = match read_tiled_level(path, &TiledNavRules::default()) {
        Ok(level) => level,
        Err(error) => {
            eprintln!("{path}: {error}");
            std::process::exit(1);
        }
    };
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .add_plugins(
            TilemapNavPlugin::with_settings(NavSettings::deterministic()).in_schedule(FixedUpdate),
        )
        .insert_resource(Time::<Fixed>::from_hz(TICKS_PER_SECOND))
        // Game time runs a tick a frame, as fast as the machine goes.
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            1.0 / TICKS_PER_SECOND,
        )))
        .init_resource::<Stats>()
        .add_systems(FixedUpdate, (send_agents, count).chain().after(NavSet::Move));
    app.world_mut().spawn(NavGridMap::from(level));
    for _ in 0..SECONDS * TICKS_PER_SECOND as u32 + 1 {
        app.update();
    }
    let stats = app.world().resource::<Stats>();
    println!("{} arrivals in {SECONDS} s, {} paths failed", stats.arrivals, stats.failed);
    if stats.arrivals == 0 {
        std::process::exit(1);
    }
}

/// Arrivals, failures and the plugin's time per tick, this second and in all.
#[derive(Resource, Default)]
struct Stats {
    ticks: u32,
    arrivals: u32,
    failed: u32,
    second_arrivals: u32,
    second_time: Duration,
    second_worst: Duration,
    /// A small random number generator's state (the same run each time).
    seed: u64,
}

impl Stats {
    fn below(&mut self, n: usize) -> usize {
        self.seed = self.seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.seed >> 33) % n as u64) as usize
    }
}

/// Spawns the agents once the map is served, and sends each that arrived somewhere new.
fn send_agents(
    mut commands: Commands,
    maps: Res<NavMaps>,
    mut stats: ResMut<Stats>,
    mut arrived: MessageReader<Arrived>,
    agents: Query<(), With<PathFollower>>,
) {
    let Some(map) = maps.first() else { return };
    let open: Vec<GridPos> = map.grid.positions().filter(|&p| map.grid.is_passable(p)).collect();
    if agents.is_empty() {
        for _ in 0..AGENTS {
            let at = map.geometry.cell_to_world(open[stats.below(open.len())]);
            let goal = open[stats.below(open.len())];
            commands.spawn((
                Transform::from_translation(at.extend(0.0)),
                PathFollower::new(64.0),
                PathRequest::to(goal),
            ));
        }
    }
    for arrival in arrived.read() {
        let goal = open[stats.below(open.len())];
        commands.entity(arrival.entity).insert(PathRequest::to(goal));
        stats.arrivals += 1;
        stats.second_arrivals += 1;
    }
}

/// Counts failures and the plugin's time, and prints each second's figures.
fn count(
    mut stats: ResMut<Stats>,
    diagnostics: Res<NavDiagnostics>,
    mut failed: MessageReader<PathFailed>,
) {
    stats.failed += failed.read().count() as u32;
    let spent = diagnostics.systems_time();
    stats.second_time += spent;
    stats.second_worst = stats.second_worst.max(spent);
    stats.ticks += 1;
    if stats.ticks.is_multiple_of(TICKS_PER_SECOND as u32) {
        let per_tick = stats.second_time / TICKS_PER_SECOND as u32;
        println!(
            "second {}: {} arrivals, plugin {:.3} ms a tick (worst {:.3} ms)",
            stats.ticks / TICKS_PER_SECOND as u32,
            stats.second_arrivals,
            per_tick.as_secs_f64() * 1e3,
            stats.second_worst.as_secs_f64() * 1e3,
        );
        stats.second_arrivals = 0;
        stats.second_time = Duration::ZERO;
        stats.second_worst = Duration::ZERO;
    }
}
