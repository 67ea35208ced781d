//! Search speed on the public MovingAI maps: every scenario of every map in `assets/maps`.
//!
//! ```text
//! cargo bench --bench grid_search
//! ```
//!
//! Runs each map's scenarios a few times and reports the best pass (the least disturbed by other
//! work on the machine): jump point search (the default), plain A*, and Dijkstra
//! (`Heuristic::Zero`, plain expansion) on the same queries in the same process, so the ratios
//! hold on a noisy machine. Each map runs twice: as published (uniform cost: paths checked
//! against the published optimum), and weighted (`paint_terrain`, seed 1: a quarter of the open
//! cells painted with costs 2 to 8; every path's cost checked against Dijkstra's). On the maps
//! as published the precomputed [`PathTable`] runs the same queries too (its build time and
//! memory alongside); a table serves grids of one cost only, so not the weighted versions: on
//! those the search guided by [`Landmarks`] runs the same queries instead (its build time and
//! memory alongside, its costs checked against Dijkstra's), and on the maps small enough for one
//! ([`MAX_FIRST_MOVE_CELLS`] passable cells), a [`FirstMoveTable`] too; first, the table's build
//! on the largest map it takes. The guided search's ratio is against plain A* run again pass for
//! pass with it (the two in turns), so that a slow spell of the machine falls on both. Each
//! precomputed structure is also baked (`to_binary`) and loaded back (`from_binary`): its size
//! and load time, against its build time.

// Timed natively only: the web rule of clippy.toml does not apply here.
#![allow(clippy::disallowed_types, clippy::disallowed_methods)]

use std::time::Instant;

use bevy_tilemap_nav::io::movingai::{Scenario, load_map, load_scenarios, paint_terrain};
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::MAX_FIRST_MOVE_CELLS;
use bevy_tilemap_nav::search::{
    Algorithm, FirstMoveTable, Heuristic, Landmarks, PathError, PathResult, PathTable,
};

const PASSES: usize = 5;
/// Passes of the searches run in turns.
const TURNS: usize = 3;
/// Landmarks for the weighted maps' guided search.
const LANDMARKS: usize = 16;

/// Best total seconds over the passes of `find` on every scenario, and each query's cost
/// (`None`: no path).
fn run_with(
    scenarios: &[Scenario],
    mut find: impl FnMut(&mut Pathfinder, &Scenario) -> Result<PathResult, PathError>,
) -> (f64, Vec<Option<f64>>) {
    let mut pathfinder = Pathfinder::new();
    let mut best = f64::INFINITY;
    let mut costs = Vec::new();
    for _ in 0..PASSES {
        costs.clear();
        let started = Instant::now();
        for scenario in scenarios {
            costs.push(find(&mut pathfinder, scenario).ok().map(|p| p.cost));
        }
        best = best.min(started.elapsed().as_secs_f64());
    }
    (best, costs)
}

/// A search for one scenario.
type Find<'a> = &'a mut dyn FnMut(&mut Pathfinder, &Scenario) -> Result<PathResult, PathError>;

/// Like [`run_with`] for several searches in turns, pass after pass: each one's best total
/// seconds and its costs.
fn run_turns<const N: usize>(
    scenarios: &[Scenario],
    mut finds: [Find; N],
) -> [(f64, Vec<Option<f64>>); N] {
    let mut pathfinders: [Pathfinder; N] = std::array::from_fn(|_| Pathfinder::new());
    let mut out: [(f64, Vec<Option<f64>>); N] =
        std::array::from_fn(|_| (f64::INFINITY, Vec::new()));
    for _ in 0..TURNS {
        for ((find, pathfinder), (best, costs)) in
            finds.iter_mut().zip(&mut pathfinders).zip(&mut out)
        {
            costs.clear();
            let started = Instant::now();
            for scenario in scenarios {
                costs.push(find(pathfinder, scenario).ok().map(|p| p.cost));
            }
            *best = best.min(started.elapsed().as_secs_f64());
        }
    }
    out
}

/// Best milliseconds of three runs of `load` (which must succeed).
fn load_ms(load: impl Fn() -> bool) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let started = Instant::now();
        assert!(load(), "the baked bytes load back");
        best = best.min(started.elapsed().as_secs_f64() * 1e3);
    }
    best
}

/// `run_with` a plain search with `options`.
fn run(grid: &NavGrid, scenarios: &[Scenario], options: &SearchOptions) -> (f64, Vec<Option<f64>>) {
    run_with(scenarios, |pathfinder, s| {
        pathfinder.find(grid, &PathQuery::new(s.start, s.goal).with_options(*options))
    })
}

fn same(a: &[Option<f64>], b: &[Option<f64>]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(a, b)| match (a, b) {
            (Some(a), Some(b)) => (a - b).abs() <= 1e-6,
            _ => false,
        })
}

fn main() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps");
    first_move_table_at_the_limit();
    println!(
        "{:<20} {:>7} {:>8} {:>10} {:>10} {:>13} {:>8} {:>9}   PathTable us/q (build, memory), or guided by landmarks",
        "map", "cells", "queries", "JPS us/q", "A* us/q", "Dijkstra us/q", "A*/JPS", "optimal",
    );
    for name in ["arena", "arena2", "lak304d", "64room_000"] {
        let plain = load_map(format!("{dir}/{name}.map")).expect("map");
        let scenarios = load_scenarios(format!("{dir}/{name}.map.scen")).expect("scenarios");
        for weighted in [false, true] {
            let grid = if weighted { paint_terrain(&plain, 1) } else { plain.clone() };
            let with = |algorithm, heuristic| SearchOptions {
                algorithm,
                heuristic,
                ..SearchOptions::default()
            };
            let (jps, jps_costs) = run(&grid, &scenarios, &with(Algorithm::JumpPoint, None));
            let (astar, astar_costs) = run(&grid, &scenarios, &with(Algorithm::AStar, None));
            let (dijkstra, dijkstra_costs) =
                run(&grid, &scenarios, &with(Algorithm::AStar, Some(Heuristic::Zero)));
            // As published: every cost at the published optimum. Weighted: at Dijkstra's.
            let optimal = if weighted {
                same(&jps_costs, &dijkstra_costs) && same(&astar_costs, &dijkstra_costs)
            } else {
                let published: Vec<Option<f64>> =
                    scenarios.iter().map(|s| Some(s.optimal_length)).collect();
                [&jps_costs, &astar_costs, &dijkstra_costs].iter().all(|costs| {
                    costs
                        .iter()
                        .zip(&published)
                        .all(|(a, b)| matches!((a, b), (Some(a), Some(b)) if (a - b).abs() <= 0.01))
                })
            };
            let n = scenarios.len() as f64;
            let table = if weighted {
                // Guided by landmarks: built here (timed), then the same queries.
                let started = Instant::now();
                let landmarks = Landmarks::build(&grid, LANDMARKS).expect("landmarks");
                let build_ms = started.elapsed().as_secs_f64() * 1e3;
                let baked = landmarks.to_binary(&grid).expect("current");
                let load = load_ms(|| Landmarks::from_binary(&baked, &grid).is_ok());
                let (options, plain) = (SearchOptions::default(), with(Algorithm::AStar, None));
                let [(astar_turns, _), (best, costs)] = run_turns(
                    &scenarios,
                    [
                        &mut |pathfinder, s| {
                            pathfinder
                                .find(&grid, &PathQuery::new(s.start, s.goal).with_options(plain))
                        },
                        &mut |pathfinder, s| {
                            pathfinder.find(
                                &grid,
                                &PathQuery::new(s.start, s.goal)
                                    .with_options(options)
                                    .with_help(&landmarks),
                            )
                        },
                    ],
                );
                assert!(same(&costs, &dijkstra_costs), "{name}: guided costs are Dijkstra's");
                let guided = format!(
                    "guided {:.1} us/q, {:.1}x faster than A* in turns ({:.1} us/q) ({LANDMARKS} \
                     landmarks: {build_ms:.0} ms, {:.0} B/cell; baked {:.1} MB loads in {load:.0} ms)",
                    best / n * 1e6,
                    astar_turns / best,
                    astar_turns / n * 1e6,
                    landmarks.memory_bytes() as f64 / grid.len() as f64,
                    baked.len() as f64 / 1e6,
                );
                // A first-move table, on the maps small enough for one.
                let started = Instant::now();
                match FirstMoveTable::build(&grid) {
                    Ok(moves) => {
                        let build_ms = started.elapsed().as_secs_f64() * 1e3;
                        let (best, costs) = run_with(&scenarios, |pathfinder, s| {
                            pathfinder
                                .find(&grid, &PathQuery::new(s.start, s.goal).with_help(&moves))
                        });
                        let right = same(&costs, &dijkstra_costs);
                        assert!(right, "{name}: the first-move table's costs are Dijkstra's");
                        let baked = moves.to_binary();
                        let load = load_ms(|| FirstMoveTable::from_binary(&baked, &grid).is_ok());
                        format!(
                            "{guided}; first-move table {:.2} us/q, {:.1}x ({build_ms:.0} ms, \
                             {:.0} B/cell; baked loads in {load:.1} ms)",
                            best / n * 1e6,
                            astar_turns / best,
                            moves.bytes_per_cell()
                        )
                    }
                    Err(_) => guided,
                }
            } else {
                let started = Instant::now();
                let table = PathTable::build(&grid).expect("a table for every public map");
                let build_ms = started.elapsed().as_secs_f64() * 1e3;
                let (best, costs) = run_with(&scenarios, |pathfinder, s| {
                    pathfinder.find(&grid, &PathQuery::new(s.start, s.goal).with_help(&table))
                });
                let right = same(&costs, &jps_costs);
                assert!(right, "{name}: the table's costs are jump point search's");
                let baked = table.to_binary();
                let load = load_ms(|| PathTable::from_binary(&baked, &grid).is_ok());
                format!(
                    "{:.2} ({build_ms:.0} ms, {:.0} B/cell; baked loads in {load:.1} ms)",
                    best / n * 1e6,
                    table.bytes_per_cell()
                )
            };
            println!(
                "{:<20} {:>7} {:>8} {:>10.1} {:>10.1} {:>13.1} {:>7.1}x {:>9}   {}",
                if weighted { format!("{name} weighted") } else { name.to_string() },
                grid.len(),
                scenarios.len(),
                jps / n * 1e6,
                astar / n * 1e6,
                dijkstra / n * 1e6,
                astar / jps,
                if optimal { "all" } else { "NOT ALL" },
                table,
            );
        }
    }
}

/// The build of a first-move table on the largest map it takes: 64 x 64 open cells, painted.
fn first_move_table_at_the_limit() {
    let side = (MAX_FIRST_MOVE_CELLS as f64).sqrt() as u32;
    let grid = paint_terrain(&NavGrid::new(side, side).expect("grid"), 1);
    let mut build_ms = f64::INFINITY;
    let mut bytes = 0.0;
    for _ in 0..PASSES {
        let started = Instant::now();
        let moves = FirstMoveTable::build(&grid).expect("at the limit");
        build_ms = build_ms.min(started.elapsed().as_secs_f64() * 1e3);
        bytes = moves.bytes_per_cell();
    }
    println!(
        "first-move table on a painted open {side} x {side} map ({} passable cells, the limit): \
         built in {build_ms:.0} ms on {} threads, {bytes:.0} B/cell\n",
        grid.passable_count(),
        std::thread::available_parallelism().map_or(1, |n| n.get()).min(8),
    );
}
