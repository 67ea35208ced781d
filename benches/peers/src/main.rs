//! Every scenario of every public map through each solver, timed in the same process, with
//! ratios against ours. Lengths are recomputed from each returned path with exact step lengths
//! (1 and sqrt(2)) and compared with the published optimum (within 0.01).

use std::f64::consts::SQRT_2;
use std::time::Instant;

use bevy::math::UVec3;
use bevy_northstar::grid::{Grid, GridSettingsBuilder};
use bevy_northstar::nav::Nav;
use bevy_northstar::pathfind::PathfindArgs;
use bevy_northstar::prelude::OrdinalNeighborhood;
use bevy_tilemap_nav::io::movingai::{Scenario, load_map, load_scenarios, paint_terrain};
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::{
    Algorithm, FirstMoveTable, Heuristic, Landmarks, LinkedMaps, MapPos, PathResult, PathTable,
    Placement, WorldGraph,
};
use grid_util::grid::ValueGrid;
use grid_util::point::Point;

const PASSES: usize = 3;
const MIN_SECONDS: f64 = 0.2;
/// Landmarks for the weighted maps' guided search.
const LANDMARKS: usize = 16;

struct Outcome {
    micros_per_query: f64,
    solved: usize,
    optimal: usize,
}

fn length(cells: &[(i64, i64)]) -> f64 {
    cells.windows(2).map(|w| if w[0].0 != w[1].0 && w[0].1 != w[1].1 { SQRT_2 } else { 1.0 }).sum()
}

/// Runs `solve` on every scenario, pass after pass (at least `PASSES`, and for at least
/// `MIN_SECONDS` in all); keeps the fastest pass.
fn measure(
    scenarios: &[Scenario],
    solve: impl FnMut(&Scenario) -> Option<Vec<(i64, i64)>>,
) -> Outcome {
    let optimal: Vec<f64> = scenarios.iter().map(|s| s.optimal_length).collect();
    measure_against(scenarios, &optimal, length, PASSES, solve)
}

/// `measure`, with each path's cost (`cost`) checked against `optimal` (one per scenario), and
/// `passes` passes at least.
fn measure_against(
    scenarios: &[Scenario],
    optimal: &[f64],
    cost: impl Fn(&[(i64, i64)]) -> f64,
    passes_wanted: usize,
    mut solve: impl FnMut(&Scenario) -> Option<Vec<(i64, i64)>>,
) -> Outcome {
    let mut outcome = Outcome { micros_per_query: f64::INFINITY, solved: 0, optimal: 0 };
    let mut passes = 0;
    let mut total = 0.0;
    // At least `PASSES`, and on for a fifth of a second: a pass over a small map's scenarios
    // takes well under a millisecond, where one interruption would decide the figure.
    while passes < passes_wanted || total < MIN_SECONDS {
        passes += 1;
        total += one_pass(scenarios, optimal, &cost, &mut solve, &mut outcome);
    }
    outcome
}

/// One pass of `solve` over every scenario: its time in seconds; `outcome` keeps the fastest
/// pass (per query) and the last pass's counts.
fn one_pass(
    scenarios: &[Scenario],
    optimal: &[f64],
    cost: &impl Fn(&[(i64, i64)]) -> f64,
    solve: &mut impl FnMut(&Scenario) -> Option<Vec<(i64, i64)>>,
    outcome: &mut Outcome,
) -> f64 {
    let mut paths = Vec::with_capacity(scenarios.len());
    let started = Instant::now();
    for scenario in scenarios {
        paths.push(solve(scenario));
    }
    let elapsed = started.elapsed().as_secs_f64();
    let per_query = elapsed / scenarios.len() as f64 * 1e6;
    outcome.micros_per_query = outcome.micros_per_query.min(per_query);
    outcome.solved = paths.iter().flatten().count();
    outcome.optimal = paths
        .iter()
        .zip(optimal)
        .filter(|(p, best)| p.as_ref().is_some_and(|p| (cost(p) - *best).abs() <= 0.01))
        .count();
    elapsed
}

/// A labelled solver for [`measure_interleaved`].
type Solver<'a> = (String, Box<dyn FnMut(&Scenario) -> Option<Vec<(i64, i64)>> + 'a>);

/// `measure_against` for several solvers in turns: round after round, each solver runs one
/// pass (at least `PASSES` rounds, and on until each has run for `MIN_SECONDS`), so that a slow
/// spell of the machine falls on all of them rather than on one; each keeps its fastest pass.
fn measure_interleaved(
    scenarios: &[Scenario],
    optimal: &[f64],
    cost: impl Fn(&[(i64, i64)]) -> f64,
    mut solvers: Vec<Solver<'_>>,
) -> Vec<(String, Outcome)> {
    let fresh = || Outcome { micros_per_query: f64::INFINITY, solved: 0, optimal: 0 };
    let mut outcomes: Vec<(Outcome, f64)> = solvers.iter().map(|_| (fresh(), 0.0)).collect();
    let mut round = 0;
    while round < PASSES || outcomes.iter().any(|(_, total)| *total < MIN_SECONDS) {
        for ((_, solve), (outcome, total)) in solvers.iter_mut().zip(&mut outcomes) {
            if round < PASSES || *total < MIN_SECONDS {
                *total += one_pass(scenarios, optimal, &cost, solve, outcome);
            }
        }
        round += 1;
    }
    solvers.into_iter().zip(outcomes).map(|((label, _), (outcome, _))| (label, outcome)).collect()
}

/// A straight step's cost in the `pathfinding` runs, in micro-units.
const STRAIGHT: u64 = 1_000_000;
/// A diagonal step's.
const DIAGONAL: u64 = 1_414_214;

/// The `pathfinding` crate's generic A* on one scenario: the benchmark's moves (8-way, no
/// corner cutting) as the successor function, `enter(x, y)` the cost of entering a cell by a
/// straight step in micro-units (a diagonal step costs sqrt(2) times that), the octile distance
/// at the smallest cost as the heuristic.
fn pathfinding_astar(
    s: &Scenario,
    open: &impl Fn(i64, i64) -> bool,
    enter: impl Fn(i64, i64) -> u64,
) -> Option<Vec<(i64, i64)>> {
    let goal = (i64::from(s.goal.x), i64::from(s.goal.y));
    let (path, _) = pathfinding::prelude::astar(
        &(i64::from(s.start.x), i64::from(s.start.y)),
        |&(x, y)| {
            let mut next = Vec::with_capacity(8);
            for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)] {
                let to = (x + dx, y + dy);
                if !open(to.0, to.1) {
                    continue;
                }
                let cost = enter(to.0, to.1);
                if dx != 0 && dy != 0 {
                    if open(x + dx, y) && open(x, y + dy) {
                        next.push((to, cost * DIAGONAL / STRAIGHT));
                    }
                } else {
                    next.push((to, cost));
                }
            }
            next
        },
        |&(x, y)| {
            let (dx, dy) = (x.abs_diff(goal.0), y.abs_diff(goal.1));
            dx.max(dy) * STRAIGHT + dx.min(dy) * (DIAGONAL - STRAIGHT)
        },
        |&p| p == goal,
    )?;
    Some(path)
}

/// One line per solver of a map, with its time against the first row's (ours).
fn print_rows(name: &str, queries: usize, rows: &[(String, Outcome)]) {
    let ours = rows[0].1.micros_per_query;
    for (label, o) in rows {
        println!(
            "{:<11} {:<34} {:>11.1} {:>8} {:>8} {:>13.2}x",
            name,
            label,
            o.micros_per_query,
            format!("{}/{queries}", o.solved),
            o.optimal,
            o.micros_per_query / ours
        );
    }
}

fn main() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/maps");
    println!(
        "{:<11} {:<34} {:>11} {:>8} {:>8} {:>14}",
        "map", "solver", "us/query", "solved", "optimal", "x ours (JPS)"
    );
    let mut summary = Vec::new();
    let mut hierarchy = Vec::new();
    for name in ["arena", "arena2", "lak304d", "64room_000"] {
        let grid = load_map(format!("{dir}/{name}.map")).expect("map");
        let scenarios = load_scenarios(format!("{dir}/{name}.map.scen")).expect("scenarios");
        let (w, h) = (grid.width() as i64, grid.height() as i64);
        let open = |x: i64, y: i64| {
            x >= 0 && y >= 0 && x < w && y < h && grid.is_passable(GridPos::new(x as u32, y as u32))
        };
        let mut rows: Vec<(String, Outcome)> = Vec::new();

        for (label, algorithm) in [
            ("bevy_tilemap_nav JPS (default)", Algorithm::Auto),
            ("bevy_tilemap_nav A*", Algorithm::AStar),
        ] {
            let mut pathfinder = Pathfinder::new();
            let options = SearchOptions { algorithm, ..SearchOptions::default() };
            rows.push((
                label.to_string(),
                measure(&scenarios, |s| {
                    let path = pathfinder
                        .find(&grid, &PathQuery::new(s.start, s.goal).with_options(options))
                        .ok()?;
                    Some(path.cells.iter().map(|c| (i64::from(c.x), i64::from(c.y))).collect())
                }),
            ));
        }

        // The `pathfinding` crate's generic A*, with the benchmark's movement rule as the
        // successor function and integer costs (micro-units).
        rows.push((
            "pathfinding 4 A*".to_string(),
            measure(&scenarios, |s| pathfinding_astar(s, &open, |_, _| STRAIGHT)),
        ));

        // grid_pathfinding's JPS. Note: it allows a diagonal step past one blocked corner, so
        // some of its paths are shorter than the benchmark's optimum (counted as not optimal).
        let mut pathing = grid_pathfinding::PathingGrid::new(w as usize, h as usize, false);
        for y in 0..h {
            for x in 0..w {
                pathing.grid.set(x as i32, y as i32, !open(x, y));
            }
        }
        pathing.allow_diagonal_move = true;
        pathing.improved_pruning = true;
        pathing.initialize();
        pathing.generate_components();
        rows.push((
            "grid_pathfinding 0.3 JPS (cuts corners)".to_string(),
            measure(&scenarios, |s| {
                let path = pathing.get_path_single_goal(
                    Point::new(s.start.x as i32, s.start.y as i32),
                    Point::new(s.goal.x as i32, s.goal.y as i32),
                    false,
                )?;
                Some(path.iter().map(|p| (i64::from(p.x), i64::from(p.y))).collect())
            }),
        ));

        // bevy_northstar 0.7: its A* and its hierarchical HPA* (refined paths), 8-way with its
        // no-corner-cutting filter. Its diagonal steps cost the same as straight ones, so its
        // paths are optimal for that metric, not always for the benchmark's (sqrt(2) diagonals).
        let settings = GridSettingsBuilder::new_2d(w as u32, h as u32)
            .chunk_size(16)
            .enable_diagonal_connections()
            .add_neighbor_filter(bevy_northstar::filter::NoCornerCutting)
            .build();
        let mut northstar: Grid<OrdinalNeighborhood> = Grid::new(&settings);
        for y in 0..h {
            for x in 0..w {
                let nav = if open(x, y) { Nav::Passable(1) } else { Nav::Impassable };
                northstar.set_nav(UVec3::new(x as u32, y as u32, 0), nav);
            }
        }
        northstar.build();
        for (label, astar) in [("bevy_northstar 0.7 A*", true), ("bevy_northstar 0.7 HPA*", false)]
        {
            rows.push((
                label.to_string(),
                measure(&scenarios, |s| {
                    let args = PathfindArgs::new(
                        UVec3::new(s.start.x, s.start.y, 0),
                        UVec3::new(s.goal.x, s.goal.y, 0),
                    );
                    let mut args = if astar { args.astar() } else { args.refined() };
                    let path = northstar.pathfind(&mut args)?;
                    let mut cells: Vec<(i64, i64)> =
                        vec![(i64::from(s.start.x), i64::from(s.start.y))];
                    cells.extend(path.path().iter().map(|p| (i64::from(p.x), i64::from(p.y))));
                    cells.dedup();
                    Some(cells)
                }),
            ));
        }

        // Ours hierarchical: the map cut into chunks of northstar's size (16 x 16), each a grid
        // placed on one lattice, answered by the world graph (HPA*, refined paths). Its build
        // (the walks between each chunk's nodes) timed apart, like the tables'.
        const SIDE: u32 = 16;
        let (across, up) = (grid.width().div_ceil(SIDE), grid.height().div_ceil(SIDE));
        let mut chunks = Vec::new();
        let mut places = Vec::new();
        for cy in 0..up {
            for cx in 0..across {
                let (x0, y0) = (cx * SIDE, cy * SIDE);
                let (cw, ch) = (SIDE.min(grid.width() - x0), SIDE.min(grid.height() - y0));
                let mut chunk = NavGrid::new(cw, ch).expect("a chunk");
                let cells: Vec<GridPos> = chunk.positions().collect();
                let at = |p: GridPos| grid.get(GridPos::new(x0 + p.x, y0 + p.y)).expect("a cell");
                chunk.set_all(cells.into_iter().map(|p| (p, at(p)))).expect("cells");
                chunks.push(chunk);
                places.push(Some(Placement { world: 0, x: i64::from(x0), y: i64::from(y0) }));
            }
        }
        let refs: Vec<&NavGrid> = chunks.iter().collect();
        let world = LinkedMaps::new(&refs, &[]).with_places(&places);
        let mut graph = WorldGraph::default();
        let started = Instant::now();
        graph.update(world);
        let graph_ms = started.elapsed().as_secs_f64() * 1e3;
        let in_chunk = |p: GridPos| {
            let (cx, cy) = (p.x / SIDE, p.y / SIDE);
            MapPos::new((cy * across + cx) as usize, GridPos::new(p.x % SIDE, p.y % SIDE))
        };
        let mut hierarchical = |s: &Scenario| {
            let found = graph.find(world, in_chunk(s.start), in_chunk(s.goal)).ok()?;
            let mut cells = Vec::new();
            for leg in &found.legs {
                let p = places[leg.map].expect("placed");
                cells.extend(
                    leg.path.cells.iter().map(|c| (p.x + i64::from(c.x), p.y + i64::from(c.y))),
                );
            }
            Some(cells)
        };
        rows.push((
            "bevy_tilemap_nav WorldGraph (16x16 chunks)".to_string(),
            measure(&scenarios, &mut hierarchical),
        ));
        // How much longer than the optimum the two hierarchical searches' paths are.
        let excess = |solve: &mut dyn FnMut(&Scenario) -> Option<Vec<(i64, i64)>>| {
            let ratios: Vec<f64> = scenarios
                .iter()
                .filter(|s| s.optimal_length > 0.0)
                .filter_map(|s| Some(length(&solve(s)?) / s.optimal_length))
                .collect();
            let worst = ratios.iter().copied().fold(1.0, f64::max);
            (ratios.iter().sum::<f64>() / ratios.len() as f64, worst)
        };
        let ours_excess = excess(&mut hierarchical);
        let theirs_excess = excess(&mut |s: &Scenario| {
            let args = PathfindArgs::new(
                UVec3::new(s.start.x, s.start.y, 0),
                UVec3::new(s.goal.x, s.goal.y, 0),
            );
            let path = northstar.pathfind(&mut args.refined())?;
            let mut cells = vec![(i64::from(s.start.x), i64::from(s.start.y))];
            cells.extend(path.path().iter().map(|p| (i64::from(p.x), i64::from(p.y))));
            cells.dedup();
            Some(cells)
        });
        hierarchy.push(format!(
            "| {name} | {:.1} | {:.4} / {:.3} | {graph_ms:.0} ms, {:.1} B/cell | {:.1} | {:.4} / {:.3} |",
            rows.last().map_or(f64::NAN, |r| r.1.micros_per_query),
            ours_excess.0,
            ours_excess.1,
            graph.memory_bytes() as f64 / (f64::from(grid.width()) * f64::from(grid.height())),
            rows.iter().find(|r| r.0 == "bevy_northstar 0.7 HPA*").map_or(f64::NAN, |r| r.1.micros_per_query),
            theirs_excess.0,
            theirs_excess.1,
        ));

        // Ours precomputed: the path table, built here (fastest of `PASSES` builds).
        let mut build_ms = f64::INFINITY;
        let mut table = None;
        for _ in 0..PASSES {
            let started = Instant::now();
            table = Some(PathTable::build(&grid).expect("a table for every public map"));
            build_ms = build_ms.min(started.elapsed().as_secs_f64() * 1e3);
        }
        let table = table.expect("built");
        let mut pathfinder = Pathfinder::new();
        let precomputed = measure(&scenarios, |s| {
            let path =
                pathfinder.find(&grid, &PathQuery::new(s.start, s.goal).with_help(&table)).ok()?;
            Some(path.cells.iter().map(|c| (i64::from(c.x), i64::from(c.y))).collect())
        });
        rows.insert(1, ("bevy_tilemap_nav PathTable".to_string(), precomputed));

        // The weighted version (a quarter of the open cells painted with costs 2 to 8, seed 1):
        // ours (guided, first-move table, Auto: jump point search on terrain, plain A*), and the
        // `pathfinding` crate's A* with the same costs. Each path's cost against Dijkstra's.
        // Ours run in turns, pass after pass, each keeping its fastest (`measure_interleaved`): a
        // pass over a larger map takes seconds, and a slow spell of the machine that fell on one
        // of them alone would decide the ratio.
        let weighted = paint_terrain(&grid, 1);
        let cell_cost = |x: i64, y: i64| {
            f64::from(weighted.cost(GridPos::new(x as u32, y as u32)).unwrap_or(u32::MAX))
        };
        let weighted_cost = |cells: &[(i64, i64)]| -> f64 {
            cells
                .windows(2)
                .map(|w| {
                    let diagonal = w[0].0 != w[1].0 && w[0].1 != w[1].1;
                    (if diagonal { SQRT_2 } else { 1.0 }) * cell_cost(w[1].0, w[1].1)
                })
                .sum()
        };
        let mut pathfinder = Pathfinder::new();
        let dijkstra = SearchOptions {
            algorithm: Algorithm::AStar,
            heuristic: Some(Heuristic::Zero),
            ..SearchOptions::default()
        };
        let reference: Vec<f64> = scenarios
            .iter()
            .map(|s| {
                pathfinder
                    .find(&weighted, &PathQuery::new(s.start, s.goal).with_options(dijkstra))
                    .expect("path")
                    .cost
            })
            .collect();
        // Guided by landmarks (built here, timed): the default search with their estimate.
        let started = Instant::now();
        let landmarks = Landmarks::build(&weighted, LANDMARKS).expect("landmarks");
        let landmarks_ms = started.elapsed().as_secs_f64() * 1e3;
        let landmark_bytes = landmarks.memory_bytes() as f64 / weighted.len() as f64;
        // A first-move table (built here, timed), on the maps small enough for one.
        let started = Instant::now();
        let moves = FirstMoveTable::build(&weighted).ok();
        let moves_ms = started.elapsed().as_secs_f64() * 1e3;
        let cells = |path: PathResult| -> Vec<(i64, i64)> {
            path.cells.iter().map(|c| (i64::from(c.x), i64::from(c.y))).collect()
        };
        let (weighted, landmarks) = (&weighted, &landmarks); // the solvers below hold references
        let mut ours: Vec<Solver> = Vec::new();
        let mut finder = Pathfinder::new();
        ours.push((
            format!("bevy_tilemap_nav guided ({LANDMARKS} landmarks), weighted"),
            Box::new(move |s: &Scenario| {
                let options = SearchOptions::default();
                let path = finder
                    .find(
                        weighted,
                        &PathQuery::new(s.start, s.goal).with_options(options).with_help(landmarks),
                    )
                    .ok()?;
                Some(cells(path))
            }),
        ));
        if let Some(moves) = &moves {
            let mut finder = Pathfinder::new();
            ours.push((
                "bevy_tilemap_nav FirstMoveTable, weighted".to_string(),
                Box::new(move |s: &Scenario| {
                    let path = finder
                        .find(weighted, &PathQuery::new(s.start, s.goal).with_help(moves))
                        .ok()?;
                    Some(cells(path))
                }),
            ));
        }
        for (label, algorithm) in [
            ("bevy_tilemap_nav Auto, weighted", Algorithm::Auto),
            ("bevy_tilemap_nav A*, weighted", Algorithm::AStar),
        ] {
            let options = SearchOptions { algorithm, ..SearchOptions::default() };
            let mut finder = Pathfinder::new();
            ours.push((
                label.to_string(),
                Box::new(move |s: &Scenario| {
                    let path = finder
                        .find(weighted, &PathQuery::new(s.start, s.goal).with_options(options))
                        .ok()?;
                    Some(cells(path))
                }),
            ));
        }
        let mut weighted_rows = measure_interleaved(&scenarios, &reference, weighted_cost, ours);
        let micro = |x: i64, y: i64| (cell_cost(x, y) * 1e6).round() as u64;
        weighted_rows.push((
            "pathfinding 4 A*, weighted".to_string(),
            measure_against(&scenarios, &reference, weighted_cost, 1, |s| {
                pathfinding_astar(s, &open, micro)
            }),
        ));

        print_rows(name, scenarios.len(), &rows);
        println!(
            "{:<11} {:<34} {:>11} {:>8}   (precomputed table: {} subgoals, {:.1} bytes/cell)",
            name,
            "PathTable build",
            format!("{build_ms:.0} ms"),
            "",
            table.subgoal_count(),
            table.bytes_per_cell()
        );
        print_rows(name, scenarios.len(), &weighted_rows);
        println!(
            "{:<11} {:<34} {:>11} {:>8}   (landmarks: {LANDMARKS}, {landmark_bytes:.1} bytes/cell)",
            name,
            "Landmarks build",
            format!("{landmarks_ms:.0} ms"),
            "",
        );
        let us = |rows: &[(String, Outcome)], prefix: &str| {
            rows.iter()
                .find(|(l, _)| l.starts_with(prefix))
                .map_or(f64::NAN, |(_, o)| o.micros_per_query)
        };
        let guided = us(&weighted_rows, "bevy_tilemap_nav guided");
        let weighted_ours = us(&weighted_rows, "bevy_tilemap_nav Auto");
        let weighted_astar = us(&weighted_rows, "bevy_tilemap_nav A*");
        let first_moves = match &moves {
            Some(moves) => {
                let table_us = us(&weighted_rows, "bevy_tilemap_nav FirstMoveTable");
                println!(
                    "{:<11} {:<34} {:>11} {:>8}   (first-move table: {:.1} bytes/cell)",
                    name,
                    "FirstMoveTable build",
                    format!("{moves_ms:.0} ms"),
                    "",
                    moves.bytes_per_cell()
                );
                format!(
                    "{table_us:.2} ({:.1}x faster; {moves_ms:.0} ms, {:.0} B/cell)",
                    weighted_astar / table_us,
                    moves.bytes_per_cell()
                )
            }
            None => "too big for one".to_string(),
        };
        summary.push(format!(
            "| {name} | {:.1} | {:.2} ({build_ms:.0} ms, {:.0} B/cell) | {:.1} ({:.1}x faster; {landmarks_ms:.0} ms, {landmark_bytes:.0} B/cell) | {first_moves} | {:.1} ({:.1}x faster) | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} |",
            us(&rows, "bevy_tilemap_nav JPS"),
            us(&rows, "bevy_tilemap_nav PathTable"),
            table.bytes_per_cell(),
            guided,
            us(&weighted_rows, "bevy_tilemap_nav A*") / guided,
            weighted_ours,
            us(&weighted_rows, "bevy_tilemap_nav A*") / weighted_ours,
            us(&weighted_rows, "bevy_tilemap_nav A*"),
            us(&rows, "pathfinding 4 A*"),
            us(&rows, "bevy_northstar 0.7 A*"),
            us(&rows, "bevy_northstar 0.7 HPA*"),
            us(&rows, "grid_pathfinding"),
        ));
    }
    println!(
        "\nsummary (us per query; every path of ours optimal; \"x faster\": than our plain A* on the \
         weighted map, same run):\n\n| map | ours online (JPS) | ours precomputed (build, memory) \
         | ours weighted, guided by landmarks (build, memory) | ours weighted, first-move table \
         (build, memory) | ours weighted, Auto | our A* weighted | pathfinding A* | northstar A* \
         | northstar HPA* | grid_pathfinding JPS |\n|---|---|---|---|---|---|---|---|---|---|---|"
    );
    for line in &summary {
        println!("{line}");
    }
    println!(
        "\nhierarchical searches (us per query; path length / optimum: mean / worst):\n\n| map | \
         ours: WorldGraph, 16 x 16 chunks | its paths | its build, memory | bevy_northstar 0.7 \
         HPA* (chunk 16) | its paths |\n|---|---|---|---|---|---|"
    );
    for line in &hierarchy {
        println!("{line}");
    }
    // Memory after a real query: the grid with its bit rows and columns (open cells and turn
    // bits) and component labels,
    // and the search's scratch (per-cell state plus the open list it grew to).
    let grid = load_map(format!("{dir}/64room_000.map")).expect("map");
    let scenarios = load_scenarios(format!("{dir}/64room_000.map.scen")).expect("scenarios");
    let mut pathfinder = Pathfinder::new();
    for s in &scenarios {
        let _ = pathfinder.find(&grid, &PathQuery::new(s.start, s.goal));
    }
    println!(
        "\nmemory on 64room_000: grid {:.2} bytes/cell (costs, bit rows and columns, turn \
         bits, run bits, component labels), search scratch {:.2} bytes/cell",
        grid.memory_bytes() as f64 / grid.len() as f64,
        pathfinder.scratch_bytes() as f64 / grid.len() as f64
    );

    // Building the grid: `load_map` sets all walls with `set_all` (the jump point bits rebuilt
    // once), against the same walls set one by one with `set` (bits refreshed per cell).
    let text = std::fs::read_to_string(format!("{dir}/64room_000.map")).expect("map");
    let walls: Vec<GridPos> = grid.positions().filter(|&p| !grid.is_passable(p)).collect();
    let mut bulk_ms = f64::INFINITY;
    let mut each_ms = f64::INFINITY;
    for _ in 0..PASSES {
        // The jump point bits are built by the first search on a grid: each way ends with one
        // query, and the grid set cell by cell has its bits from the start (a query first).
        let query = |grid: &NavGrid| {
            let (a, b) = (scenarios[0].start, scenarios[0].goal);
            Pathfinder::new().find(grid, &PathQuery::new(a, b)).map(|p| p.cost)
        };
        let started = Instant::now();
        let bulk = bevy_tilemap_nav::io::movingai::parse_map(&text).expect("map");
        let bulk_cost = query(&bulk);
        bulk_ms = bulk_ms.min(started.elapsed().as_secs_f64() * 1e3);
        let started = Instant::now();
        let mut each = NavGrid::new(grid.width(), grid.height()).expect("grid");
        let _ = query(&each);
        for &pos in &walls {
            each.set(pos, Cell::Blocked).expect("in bounds");
        }
        let each_cost = query(&each);
        each_ms = each_ms.min(started.elapsed().as_secs_f64() * 1e3);
        assert_eq!(bulk_cost, each_cost);
        assert!(bulk == each, "both ways build the same grid");
    }
    println!(
        "building 64room_000 ({} walls) and one query: parse_map (set_all, bits built by the \
         query) {bulk_ms:.1} ms, the walls set one by one on a grid with its bits {each_ms:.1} \
         ms ({:.1}x)",
        walls.len(),
        each_ms / bulk_ms
    );
}
