//! Search speed on the public MovingAI maps: every scenario of every map in `assets/maps`.
//!
//! ```text
//! cargo bench --bench grid_search
//! ```
//!
//! Runs each map's scenarios a few times and reports the best pass (the least disturbed by other
//! work on the machine). Dijkstra (`Heuristic::Zero`) runs on the same queries in the same
//! process as a reference point, so the ratio holds on a noisy machine.

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
        "{:<12} {:>9} {:>9} {:>12} {:>12} {:>10} {:>8} {:>13}",
        "map",
        "cells",
        "queries",
        "A* total s",
        "A* us/query",
        "optimal",
        "Dijkstra",
        "A* speed-up"
    );
    for name in ["arena", "arena2", "lak304d", "64room_000"] {
        let grid = load_map(format!("{dir}/{name}.map")).expect("map");
        let scenarios = load_scenarios(format!("{dir}/{name}.map.scen")).expect("scenarios");
        let astar = SearchOptions::default();
        let dijkstra =
            SearchOptions { heuristic: Some(Heuristic::Zero), ..SearchOptions::default() };
        let (a_secs, a_optimal, _) = run(&grid, &scenarios, &astar);
        let (d_secs, _, _) = run(&grid, &scenarios, &dijkstra);
        let n = scenarios.len() as f64;
        println!(
            "{:<12} {:>9} {:>9} {:>12.3} {:>12.1} {:>10} {:>7.1}us {:>12.1}x",
            name,
            grid.len(),
            scenarios.len(),
            a_secs,
            a_secs / n * 1e6,
            if a_optimal { "all" } else { "NOT ALL" },
            d_secs / n * 1e6,
            d_secs / a_secs,
        );
    }
}
