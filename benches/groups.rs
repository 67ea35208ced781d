//! Cooperative moves of grid-locked units, in an app, in the same run:
//!
//! ```text
//! cargo bench --bench groups
//! ```
//!
//! The 200-unit shuffle of the tests (a 32 x 32 map with walls, 200 units at speeds from 50 to
//! 150 world units a second, tiles 16 wide, each sent to another's cell), in a headless app
//! with the plugin's default settings and frames of 16 ms of game time:
//! - with `Cooperative`: the game time until all arrived (the makespan) against the lower
//!   bound, the longest walk of one unit alone at its speed; the wall time of each frame's
//!   update (median, p99, worst), and of the frames the plan is made in (the default search
//!   budget spreads it over frames); then the same with a search budget so big that the plan
//!   is made in one frame, the stall it was before plans were spread;
//! - the plan alone, `search::plan_together` on the same starts and goals (best of three);
//! - the same shuffle with plain `GridLocked` units, as many frames: how many arrived, and the
//!   frames' wall times, the cost of walking without a plan;
//! - a group order of 10,000 members on a 200 x 200 map (`path::group_goals`, the slots a
//!   `GroupOrder` gives in the frame it is spawned; best of three), against one search across
//!   the same map (default options);
//! - a marching group order (`GroupOrder::marching`) of 144 members (a 12 x 12 box, speeds 60
//!   to 120) across a 96 x 64 map and a river with a bridge two tiles wide, against the same
//!   order loose (each member its own path at its own speed, no avoidance), as many frames:
//!   game time until all arrived, and the frames' wall times.

// Timed natively only: the web rule of clippy.toml does not apply here.
#![allow(clippy::disallowed_types, clippy::disallowed_methods)]

mod common;
#[path = "../tests/support/mod.rs"]
mod shared;

use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_tilemap_nav::path::{Formation, group_goals};
use bevy_tilemap_nav::plugin::{Cooperative, GroupOrder, NavDiagnostics};
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::{CELL_WORK, PlanTogether, plan_together};
use common::best;

const TILE: f32 = 16.0;
const FRAME: Duration = Duration::from_millis(16);
const UNITS: usize = 200;

/// The map of the shuffle.
fn tactics_grid() -> NavGrid {
    let rows = shared::tactics_rows();
    let mut grid = NavGrid::new(rows[0].len() as u32, rows.len() as u32).expect("a grid");
    for (row, line) in rows.iter().enumerate() {
        for (x, c) in line.chars().enumerate() {
            if c == '#' {
                let y = (rows.len() - 1 - row) as u32;
                grid.set(GridPos::new(x as u32, y), Cell::Blocked).expect("on the grid");
            }
        }
    }
    grid
}

/// What one run of the shuffle gave.
struct Run {
    /// Frames until every unit arrived (or all frames run).
    frames: usize,
    arrived: usize,
    /// Each frame's update, in wall time.
    updates: Vec<Duration>,
    /// The frames in which cooperative plans were made (`NavDiagnostics::cooperative_work`).
    planning: Vec<Duration>,
}

/// Runs the shuffle in an app, cooperative or plain, for at most `frames` frames; `whole`: with
/// a search budget so big that the plan is made in one frame (the plugin's default spreads it
/// over frames).
fn run(
    grid: &NavGrid,
    (cooperative, window): (bool, Option<u32>),
    frames: usize,
    whole: bool,
) -> Run {
    let mut settings = NavSettings { cooperative_window: window, ..NavSettings::default() };
    if whole {
        settings.work.time = None;
        settings.work.shares.searches = u64::MAX;
        settings.work.units = u64::MAX;
    }
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .add_plugins(TilemapNavPlugin::with_settings(settings))
        .insert_resource(TimeUpdateStrategy::ManualDuration(FRAME));
    app.world_mut().spawn(NavGridMap::square(grid.clone(), Vec2::splat(TILE)));
    app.update();
    let (starts, goals, speeds) = shared::shuffle(grid, UNITS);
    let map = app.world().resource::<NavMaps>().first().expect("the map").clone();
    let units: Vec<Entity> = starts
        .iter()
        .zip(&speeds)
        .map(|(&cell, &speed)| {
            let at = Transform::from_translation(map.geometry.cell_to_world(cell).extend(1.0));
            let mut unit =
                app.world_mut().spawn((at, GridLocked::default(), PathFollower::new(speed)));
            if cooperative {
                unit.insert(Cooperative);
            }
            unit.id()
        })
        .collect();
    app.update();
    for (&unit, &goal) in units.iter().zip(&goals) {
        app.world_mut().entity_mut(unit).insert(PathRequest::to(goal));
    }
    let mut arrived = 0;
    let (mut updates, mut planning) = (Vec::new(), Vec::new());
    for frame in 0..frames {
        let started = Instant::now();
        app.update();
        updates.push(started.elapsed());
        if app.world().resource::<NavDiagnostics>().cooperative_work > 0 {
            planning.push(started.elapsed());
        }
        let messages = app.world().resource::<Messages<Arrived>>();
        arrived += messages.iter_current_update_messages().filter(|a| a.reached_goal).count();
        if arrived == units.len() {
            return Run { frames: frame + 1, arrived, updates, planning };
        }
    }
    Run { frames, arrived, updates, planning }
}

/// Median, p99 and worst of `times`, in milliseconds.
fn spread(times: &[Duration]) -> (f64, f64, f64) {
    let mut ms: Vec<f64> = times.iter().map(|t| t.as_secs_f64() * 1e3).collect();
    if ms.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| ms[((ms.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.99), at(1.0))
}

/// `pairs` planned all the way (`PlanTogether::new`) and windowed (16 and 32 ticks ahead): the
/// time and the frames of the default search budget until units may set off (the whole plan;
/// the first window), the whole plan's time, and its makespan.
fn windows(grid: &NavGrid, pairs: &[(GridPos, GridPos)]) {
    let share = NavSettings::default().work.shares.searches / CELL_WORK;
    println!("  {} units on {} x {}:", pairs.len(), grid.width(), grid.height());
    // The plugin's horizon: enough to cross the map twice, and to wait for every unit.
    let horizon = (2 * (grid.width() + grid.height()) + 2 * pairs.len() as u32).min(4096);
    for window in [None, Some(16), Some(32)] {
        let make = || match window {
            Some(w) => PlanTogether::windowed(grid.clone(), pairs, horizon, w),
            None => PlanTogether::new(grid.clone(), pairs, horizon),
        };
        let (first, set_off) = best(|| {
            let mut planner = make().expect("a planner");
            while planner.kept_ticks() == 0 && planner.step(share, || false).is_none() {}
            planner.work()
        });
        let (whole, plans) = best(|| {
            let mut planner = make().expect("a planner");
            loop {
                if let Some(done) = planner.step(share, || false) {
                    break done;
                }
            }
        });
        let ticks = plans.map_or(0, |p| p.iter().map(Vec::len).max().unwrap_or(1) - 1);
        println!(
            "    {}: units set off after {:.2} ms ({} frames of the default budget), the whole \
             plan {:.2} ms, makespan {ticks} ticks",
            window.map_or("all the way".to_string(), |w| format!("window {w}")),
            first.as_secs_f64() * 1e3,
            set_off.div_ceil(share.max(1)),
            whole.as_secs_f64() * 1e3,
        );
    }
}

/// A 128 x 128 map with one cell in ten a wall (at random), for long walks.
fn big_grid() -> NavGrid {
    let mut grid = NavGrid::new(128, 128).expect("a grid");
    let mut rng = shared::Rng(0x6_0300);
    for p in grid.clone().positions() {
        if rng.chance(10) {
            grid.set(p, Cell::Blocked).expect("on the grid");
        }
    }
    grid
}

/// 300 units on [`big_grid`]'s open cells connected to its middle, each sent about across it:
/// from the left third to the right third and back.
fn big_shuffle() -> Vec<(GridPos, GridPos)> {
    let grid = big_grid();
    let centre = GridPos::new(64, 64);
    let region = bevy_tilemap_nav::path::reachable(&grid, centre, f64::INFINITY).expect("open");
    let mut open: Vec<GridPos> = region.cells().iter().map(|c| c.pos).collect();
    open.sort_unstable_by_key(|p| (p.y, p.x));
    let mut rng = shared::Rng(0x6_0301);
    for i in (1..open.len()).rev() {
        open.swap(i, rng.below(i as u32 + 1) as usize);
    }
    let left: Vec<GridPos> = open.iter().copied().filter(|p| p.x < 40).take(300).collect();
    let right: Vec<GridPos> = open.iter().copied().filter(|p| p.x >= 88).take(300).collect();
    (0..300).map(|i| if i % 2 == 0 { (left[i], right[i]) } else { (right[i], left[i]) }).collect()
}

/// A group order of 10,000 members: the time `group_goals` takes, against one search across the
/// map.
fn ten_thousand() {
    let mut grid = NavGrid::new(200, 200).expect("a grid");
    grid.fill_rect(GridPos::new(90, 0), GridPos::new(92, 150), Cell::Blocked).expect("on it");
    let starts: Vec<GridPos> = (0..10_000u32).map(|i| GridPos::new(i % 80, 10 + i / 80)).collect();
    let goal = GridPos::new(150, 100);
    let (slots, goals) = best(|| group_goals(&grid, &starts, goal, &Formation::Packed, 1));
    let placed = goals.map_or(0, |g| g.len());
    let query = PathQuery::new(GridPos::new(0, 10), goal);
    let mut pathfinder = Pathfinder::new();
    let (search, found) = best(|| pathfinder.find(&grid, &query));
    println!(
        "group order of 10,000 on 200 x 200: group_goals {:.2} ms ({placed} slots); one search \
         across the map (default options) {:.3} ms ({} cells): {:.0}x",
        slots.as_secs_f64() * 1e3,
        search.as_secs_f64() * 1e3,
        found.map_or(0, |p| p.cells.len()),
        slots.as_secs_f64() / search.as_secs_f64()
    );
}

/// A group order of 144 over a river's bridge, marching or loose: frames until all arrived,
/// how many did, and the frames' wall times.
fn march(marching: bool) -> Run {
    let mut grid = NavGrid::new(96, 64).expect("a grid");
    grid.fill_rect(GridPos::new(0, 30), GridPos::new(95, 33), Cell::Blocked).expect("on it");
    for x in [47, 48] {
        grid.fill_rect(GridPos::new(x, 30), GridPos::new(x, 33), Cell::Passable { cost: 1 })
            .expect("on it");
    }
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .add_plugins(TilemapNavPlugin::default())
        .insert_resource(TimeUpdateStrategy::ManualDuration(FRAME));
    app.world_mut().spawn(NavGridMap::square(grid, Vec2::splat(TILE)));
    app.update();
    let map = app.world().resource::<NavMaps>().first().expect("the map").clone();
    let members: Vec<Entity> = (0..144u32)
        .map(|i| {
            let cell = GridPos::new(20 + (i % 12) * 2, 2 + (i / 12) * 2);
            let at = Transform::from_translation(map.geometry.cell_to_world(cell).extend(1.0));
            let speed = 60.0 + (i % 7) as f32 * 10.0;
            app.world_mut().spawn((at, PathFollower::new(speed))).id()
        })
        .collect();
    let goal = map.geometry.cell_to_world(GridPos::new(70, 50));
    let order = GroupOrder { spacing: 2, ..GroupOrder::new(members.clone(), goal, Formation::Box) };
    app.world_mut().spawn(if marching { order.marching() } else { order });
    let (mut arrived, mut updates) = (0, Vec::new());
    for frame in 0..12_000 {
        let started = Instant::now();
        app.update();
        updates.push(started.elapsed());
        let messages = app.world().resource::<Messages<Arrived>>();
        arrived += messages.iter_current_update_messages().count();
        if arrived == members.len() {
            return Run { frames: frame + 1, arrived, updates, planning: Vec::new() };
        }
    }
    Run { frames: 12_000, arrived, updates, planning: Vec::new() }
}

fn main() {
    // `cargo bench --bench groups -- windows`: the windowed plans only.
    if std::env::args().any(|a| a == "windows") {
        let grid = tactics_grid();
        let (starts, goals, _) = shared::shuffle(&grid, UNITS);
        windows(&grid, &starts.into_iter().zip(goals).collect::<Vec<_>>());
        windows(&big_grid(), &big_shuffle());
        return;
    }
    for marching in [true, false] {
        let run = march(marching);
        let (median, p99, worst) = spread(&run.updates);
        println!(
            "group order of 144 over a bridge, {}: {} arrived in {:.2} s of game time; frame \
             update: median {median:.3} ms, p99 {p99:.3} ms, worst {worst:.3} ms",
            if marching { "marching" } else { "loose" },
            run.arrived,
            run.frames as f32 * FRAME.as_secs_f32()
        );
    }
    let grid = tactics_grid();
    let (starts, goals, speeds) = shared::shuffle(&grid, UNITS);
    let alone = (0..UNITS)
        .map(|i| shared::steps_alone(&grid, starts[i], goals[i]) as f32 * TILE / speeds[i])
        .fold(0.0, f32::max);
    let dt = FRAME.as_secs_f32();
    let mut frames = 0;
    for (whole, window) in [(false, None), (true, None), (false, Some(16))] {
        let together = run(&grid, (true, window), 4000, whole);
        let (median, p99, worst) = spread(&together.updates);
        let how = match (whole, window) {
            (true, _) => "made in one frame (an unbounded search budget)",
            (_, Some(_)) => "windowed (cooperative_window 16: walked while made)",
            _ => "default",
        };
        println!(
            "cooperative, {how}: {} of {UNITS} arrived in {:.2} s of game time ({} frames); the \
             longest walk alone {alone:.2} s: {:.2}x",
            together.arrived,
            together.frames as f32 * dt,
            together.frames,
            together.frames as f32 * dt / alone
        );
        println!("  frame update: median {median:.3} ms, p99 {p99:.3} ms, worst {worst:.3} ms");
        let (_, _, worst) = spread(&together.planning);
        println!(
            "  plans made over {} frames ({:.2} s of game time), the worst of them {worst:.3} ms",
            together.planning.len(),
            together.planning.len() as f32 * dt
        );
        if !whole && window.is_none() {
            frames = together.frames;
        }
    }
    let pairs: Vec<(GridPos, GridPos)> =
        starts.iter().copied().zip(goals.iter().copied()).collect();
    let (planned, plans) = best(|| plan_together(&grid, &pairs, 512));
    let ticks = plans.map_or(0, |p| p.iter().map(Vec::len).max().unwrap_or(1) - 1);
    println!(
        "  the plan alone (plan_together, {UNITS} units, best of 3): {:.3} ms, makespan {ticks} \
         ticks",
        planned.as_secs_f64() * 1e3
    );
    windows(&grid, &pairs);
    windows(&big_grid(), &big_shuffle());
    let plain = run(&grid, (false, None), frames, false);
    let (median, p99, worst) = spread(&plain.updates);
    println!(
        "plain GridLocked, the same {} frames: {} of {UNITS} arrived; frame update: median \
         {median:.3} ms, p99 {p99:.3} ms, worst {worst:.3} ms",
        frames, plain.arrived
    );
    ten_thousand();
}
