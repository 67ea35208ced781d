//! Precomputed structures built in one go against the same builds in slices, on the public
//! MovingAI maps, in the same run:
//!
//! ```text
//! cargo bench --bench sliced_builds
//! ```
//!
//! For each map and structure (the [`PathTable`] on the map as published; [`Landmarks`] on it
//! painted with terrain; a [`FirstMoveTable`] on a 64 x 64 painted map, the largest it takes):
//! the one-go build's time (best of a few), then a sliced build at 20,000 work units a step:
//! how many steps, the total time over them (against one go, single-threaded, the slices
//! included), the longest step and the rate in units per millisecond (what a time slice per
//! frame turns into). Each sliced build is checked byte for byte against the one-go build.
//! Then a grid's warm-up and a kind of agent's grid in slices (`-- agent`: that table only).

// Timed natively only: the web rule of clippy.toml does not apply here.
#![allow(clippy::disallowed_types, clippy::disallowed_methods)]

mod common;

use std::time::{Duration, Instant};

use bevy_tilemap_nav::grid::Preparation;
use bevy_tilemap_nav::io::movingai::{load_map, paint_terrain};
use bevy_tilemap_nav::plugin::NavSettings;
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::{AgentGrid, AgentGridBuild, Landmarks, PathTable};
use bevy_tilemap_nav::search::{FirstMoveTable, GridWarmup, PathQuery, Pathfinder, SlicedBuild};
use common::best;

const SLICE: u64 = 20_000;

/// Steps `build` to its end: the result, the steps, the total and longest step's time, the work.
fn sliced<T>(mut build: SlicedBuild<T>) -> (T, u64, Duration, Duration, u64) {
    let (mut total, mut longest) = (Duration::ZERO, Duration::ZERO);
    loop {
        let started = Instant::now();
        let done = build.step(SLICE);
        let took = started.elapsed();
        total += took;
        longest = longest.max(took);
        assert!(build.last_step_work() <= SLICE, "a step past its budget");
        if let Some(done) = done {
            return (done, build.steps(), total, longest, build.work());
        }
    }
}

fn row(map: &str, what: &str, one_go: Duration, sliced: (u64, Duration, Duration, u64)) {
    let (steps, total, longest, work) = sliced;
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{map:<11} {what:<15} {:>9.1} {:>9.1} {:>6.2}x {steps:>7} {:>10.3} {:>10.0}",
        ms(one_go),
        ms(total),
        ms(total) / ms(one_go),
        ms(longest),
        work as f64 / ms(total),
    );
}

fn main() {
    // `cargo bench --bench sliced_builds -- agent`: the agent grid table only.
    if std::env::args().any(|a| a == "agent") {
        agent_grids();
        return;
    }
    println!(
        "{:<11} {:<15} {:>9} {:>9} {:>7} {:>7} {:>10} {:>10}",
        "map", "structure", "one go ms", "sliced ms", "ratio", "steps", "longest ms", "units/ms"
    );
    for name in ["arena", "arena2", "lak304d", "64room_000"] {
        let path = format!("{}/assets/maps/{name}.map", env!("CARGO_MANIFEST_DIR"));
        let grid = load_map(&path).expect("a public map");
        let (one_go, table) = best(|| PathTable::build(&grid).expect("a table"));
        let (built, steps, total, longest, work) = sliced(PathTable::build_in_slices(&grid));
        assert_eq!(built.expect("a table").to_binary(), table.to_binary());
        row(name, "PathTable", one_go, (steps, total, longest, work));

        let painted = paint_terrain(&grid, 1);
        let (one_go, landmarks) = best(|| Landmarks::build(&painted, 16).expect("landmarks"));
        let build = Landmarks::build_in_slices(&painted, 16);
        let (built, steps, total, longest, work) = sliced(build);
        let bytes = |l: &Landmarks| l.to_binary(&painted).expect("current");
        assert_eq!(bytes(&built.expect("landmarks")), bytes(&landmarks));
        row(name, "Landmarks (16)", one_go, (steps, total, longest, work));
    }
    let mut small = NavGrid::new(64, 64).expect("a grid");
    small.fill_rect(GridPos::new(20, 0), GridPos::new(21, 50), Cell::Blocked).expect("in bounds");
    let small = paint_terrain(&small, 1);
    let (one_go, moves) = best(|| FirstMoveTable::build(&small).expect("a first-move table"));
    let (built, steps, total, longest, work) = sliced(FirstMoveTable::build_in_slices(&small));
    assert_eq!(built.expect("a first-move table").to_binary(), moves.to_binary());
    row("64x64", "FirstMoveTable", one_go, (steps, total, longest, work));
    warmups();
    agent_grids();
}

/// A grid's first search builds its labels and jump point bits whole (`OnFirstSearch`); the
/// plugin's grids have them built by a `GridWarmup` in slices of `WorkShares::warm_up`
/// instead: per size, the first search's time, then the warm-up's steps, total, longest step and
/// rate, and a first search on the cold grid (plain A*, no labels), on square maps of walls
/// with gaps every 97 cells, 50 rows apart.
fn warmups() {
    let slice = NavSettings::default().work.shares.warm_up;
    println!("\ngrid warm-up, slices of {slice} units");
    println!(
        "{:<11} {:>15} {:>7} {:>9} {:>10} {:>9} {:>14}",
        "map", "1st search ms", "steps", "total ms", "longest ms", "units/ms", "cold search ms"
    );
    for n in [1000u32, 2000, 5000] {
        let grid = walled(n);
        let cold = grid.clone().with_preparation(Preparation::InSlices);
        let query = PathQuery::new(GridPos::new(0, 0), GridPos::new(n - 1, n - 1));
        let started = Instant::now();
        Pathfinder::new().find(&grid, &query).expect("a path");
        let first = started.elapsed();
        let started = Instant::now();
        Pathfinder::new().find(&cold, &query).expect("a path");
        let cold_search = started.elapsed();
        let cold = cold.clone();
        let mut warmup = GridWarmup::default();
        let (steps, total, longest) = stepped(|| warmup.step(&cold, slice));
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!(
            "{:<11} {:>15.1} {steps:>7} {:>9.1} {:>10.3} {:>9.0} {:>14.1}",
            format!("{n}x{n}"),
            ms(first),
            ms(total),
            ms(longest),
            warmup.work() as f64 / ms(total),
            ms(cold_search),
        );
    }
}

/// A kind of agent's grid (`AgentGrid`, here a 2 x 2 body with the default profile) built whole,
/// as a grid `OnFirstSearch` has it, against an `AgentGridBuild` in slices of
/// `WorkShares::warm_up`, as the plugin's maps have it: per size, the whole build's
/// time (best of a few), the sliced build's start (the grid allocated, in the frame the kind
/// first asks), then the slices' steps, total, longest step and rate. The sliced grid
/// is checked against the whole one cell by cell.
fn agent_grids() {
    let slice = NavSettings::default().work.shares.warm_up;
    println!("\nagent grid (2 x 2), slices of {slice} units");
    println!(
        "{:<11} {:>11} {:>7} {:>7} {:>9} {:>10} {:>9}",
        "map", "whole ms", "new ms", "steps", "total ms", "longest ms", "units/ms"
    );
    for n in [1000u32, 2000, 5000] {
        let grid = walled(n);
        let profile = NavProfile::default();
        let (whole_time, whole) =
            best(|| AgentGrid::new(&grid, profile.clone(), 2).expect("a grid"));
        let started = Instant::now();
        let mut build = AgentGridBuild::new(&grid, profile, 2).expect("a build");
        let new = started.elapsed();
        let (steps, total, longest) = stepped(|| build.step(&grid, slice));
        let work = build.work();
        let built = build.into_grid().expect("built");
        assert!(grid.positions().all(|p| built.grid().get(p) == whole.grid().get(p)));
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!(
            "{:<11} {:>11.1} {:>7.1} {steps:>7} {:>9.1} {:>10.3} {:>9.0}",
            format!("{n}x{n}"),
            ms(whole_time),
            ms(new),
            ms(total),
            ms(longest),
            work as f64 / ms(total),
        );
    }
}

/// A square map `n` wide of walls every 50 rows, with a gap every 97 cells.
fn walled(n: u32) -> NavGrid {
    let mut grid = NavGrid::new(n, n).expect("a grid");
    for y in (10..n - 10).step_by(50) {
        let wall = (5..n - 5).filter(|x| x % 97 != 0).map(|x| (GridPos::new(x, y), Cell::Blocked));
        grid.set_all(wall).expect("in bounds");
    }
    grid
}

/// Runs `step` until it says it is done: the steps, their total and the longest one's time.
fn stepped(mut step: impl FnMut() -> bool) -> (u64, Duration, Duration) {
    let (mut steps, mut total, mut longest) = (0u64, Duration::ZERO, Duration::ZERO);
    loop {
        let started = Instant::now();
        let done = step();
        let took = started.elapsed();
        (steps, total, longest) = (steps + 1, total + took, longest.max(took));
        if done {
            return (steps, total, longest);
        }
    }
}
