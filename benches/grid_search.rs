//! Search speed on the public MovingAI maps: every scenario of every map in `assets/maps`.
//!
//! ```text
//! cargo bench --bench grid_search
//! ```
//!
//! Runs each map's scenarios a few times and reports the best pass (the least disturbed by other
//! work on the machine): jump point search (the default on these uniform-cost maps), plain A*,
//! and Dijkstra (`Heuristic::Zero`, plain expansion) on the same queries in the same process, so
//! the ratios hold on a noisy machine.

use std::time::Instant;

use bevy_tilemap_nav::io::movingai::{Scenario, load_map, load_scenarios};
use bevy_tilemap_nav::prelude::*;

const PASSES: usize = 5;

/// Best total seconds over the passes, and whether every path was at the published optimum.
fn run(grid: &NavGrid, scenarios: &[Scenario], options: &SearchOptions) -> (f64, bool, u64) {
    let mut pathfinder = Pathfinder::new();
    let mut best = f64::INFINITY;
    let mut all_optimal = true;
    let mut expanded = 0u64;
    for _ in 0..PASSES {
        expanded = 0;
        let started = Instant::now();
        for scenario in scenarios {
            match pathfinder.find_path(grid, scenario.start, scenario.goal, options) {
                Ok(path) => {
                    expanded += u64::from(path.stats.expanded);
                    all_optimal &= (path.cost - scenario.optimal_length).abs() <= 0.01;
                }
                Err(_) => all_optimal = false,
            }
        }
        best = best.min(started.elapsed().as_secs_f64());
    }
    (best, all_optimal, expanded)
}

fn main() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps");
    println!(
        "{:<11} {:>7} {:>8} {:>10} {:>9} {:>10} {:>11} {:>9} {:>9}",
        "map",
        "cells",
        "queries",
        "JPS us/q",
        "JPS all s",
        "A* us/q",
        "Dijkstra us/q",
        "A*/JPS",
        "optimal"
    );
    for name in ["arena", "arena2", "lak304d", "64room_000"] {
        let grid = load_map(format!("{dir}/{name}.map")).expect("map");
        let scenarios = load_scenarios(format!("{dir}/{name}.map.scen")).expect("scenarios");
        let with = |algorithm, heuristic| SearchOptions {
            algorithm,
            heuristic,
            ..SearchOptions::default()
        };
        let (jps, jps_ok, _) = run(&grid, &scenarios, &with(Algorithm::JumpPoint, None));
        let (astar, astar_ok, _) = run(&grid, &scenarios, &with(Algorithm::AStar, None));
        let (dijkstra, dijkstra_ok, _) =
            run(&grid, &scenarios, &with(Algorithm::AStar, Some(Heuristic::Zero)));
        let n = scenarios.len() as f64;
        println!(
            "{:<11} {:>7} {:>8} {:>10.1} {:>9.3} {:>10.1} {:>11.1} {:>8.1}x {:>9}",
            name,
            grid.len(),
            scenarios.len(),
            jps / n * 1e6,
            jps,
            astar / n * 1e6,
            dijkstra / n * 1e6,
            astar / jps,
            if jps_ok && astar_ok && dijkstra_ok { "all" } else { "NOT ALL" },
        );
    }
}
