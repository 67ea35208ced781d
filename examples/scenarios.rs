//! Runs every scenario of a MovingAI benchmark map and prints one line per scenario:
//!
//! ```text
//! cargo run --release --example scenarios -- assets/maps/arena2.map assets/maps/arena2.map.scen
//! ```
//!
//! Output, tab-separated: `index start_x start_y goal_x goal_y length expanded micros` (length is
//! the path cost, `-` if none), then `N scenarios, N solved, N optimal, mean X us/query (Y after
//! the first, which took Z us)`, where optimal means within 0.01 of the scenario's published
//! optimum (the first query also builds the grid's jump point bits).
//!
//! `SCENARIOS_TERRAIN=SEED` paints a quarter of the open cells with costs 2 to 8
//! (`paint_terrain`, as the peers benchmark does) before the queries: the published optima are
//! not the painted map's, so `optimal` means nothing then. `SCENARIOS_FENCES=PERCENT` puts a wall
//! on that percent of the edges between open neighbouring cells (fences; chosen by a fixed seed):
//! `optimal` means nothing then either; `SCENARIOS_FENCE_LENGTH=N` puts them in lines of N edges
//! (as many fenced edges, a line started at a tenth of the places for N = 10);
//! `SCENARIOS_LEDGES=1` makes them one-way edges instead (ledges, each crossed one way), so
//! some goals may be cut off.
//! `SCENARIOS_WALLS=PERCENT` blocks that percent of the open cells instead (not the scenarios'
//! own starts and goals; a fixed seed), for comparing with fences: some goals may then be cut
//! off. `SCENARIOS_ASTAR=1` searches with plain A* instead of the default. `SCENARIOS_TABLE=1`
//! builds a `PathTable` first (its build time and subgoals, or why it was not built, go to
//! stderr) and answers each query with its help. `SCENARIOS_LANDMARKS=N` builds `Landmarks`
//! with N landmarks first (their build time goes to stderr) and asks each query with their help
//! (a table, when asked for too, is taken instead). `SCENARIOS_ROUNDS=N` asks every scenario N
//! times over (for a profiler: more samples) and prints the mean after the first query over all
//! rounds; the lines per scenario are the last round's. The lines are printed once the queries
//! are over (a line printed between two queries slowed the next).

// Timed natively only: the web rule of clippy.toml does not apply here.
#![allow(clippy::disallowed_types, clippy::disallowed_methods)]

use std::process::ExitCode;
use std::time::Instant;

use bevy_tilemap_nav::grid::{Cell, Edge, GridPos, NavGrid};
use bevy_tilemap_nav::io::movingai::{Scenario, load_map, load_scenarios, paint_terrain};
use bevy_tilemap_nav::search::{
    Algorithm, Landmarks, PathQuery, PathTable, Pathfinder, SearchOptions,
};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [map_path, scen_path] = args.as_slice() else {
        eprintln!("usage: scenarios MAP SCEN");
        return ExitCode::from(2);
    };
    let grid = match load_map(map_path) {
        Ok(grid) => grid,
        Err(error) => {
            eprintln!("{map_path}: {error}");
            return ExitCode::FAILURE;
        }
    };
    let scenarios = match load_scenarios(scen_path) {
        Ok(scenarios) => scenarios,
        Err(error) => {
            eprintln!("{scen_path}: {error}");
            return ExitCode::FAILURE;
        }
    };
    // Terrain and plain A*, for comparing builds (see the module docs).
    let weighted = std::env::var("SCENARIOS_TERRAIN").ok().and_then(|s| s.parse().ok());
    let grid = match weighted {
        Some(seed) => paint_terrain(&grid, seed),
        None => grid,
    };
    let fences = std::env::var("SCENARIOS_FENCES").ok().and_then(|s| s.parse::<f64>().ok());
    let length = std::env::var("SCENARIOS_FENCE_LENGTH").ok().and_then(|s| s.parse().ok());
    let length = length.unwrap_or(1);
    let ledges = std::env::var_os("SCENARIOS_LEDGES").is_some();
    let grid = match fences {
        Some(percent) => fence(grid, percent, length, ledges),
        None => grid,
    };
    let walls = std::env::var("SCENARIOS_WALLS").ok().and_then(|s| s.parse::<f64>().ok());
    let grid = match walls {
        Some(percent) => wall(grid, percent, &scenarios),
        None => grid,
    };
    let table = std::env::var_os("SCENARIOS_TABLE").and_then(|_| {
        timed_build(
            "path table",
            || PathTable::build(&grid),
            |table| format!("{} subgoals", table.subgoal_count()),
        )
    });
    let landmarks = std::env::var("SCENARIOS_LANDMARKS").ok().and_then(|s| s.parse().ok());
    let landmarks = landmarks.and_then(|count| {
        timed_build(
            "landmarks",
            || Landmarks::build(&grid, count),
            |_| format!("{count} landmarks"),
        )
    });
    let mut pathfinder = Pathfinder::new();
    let mut options = SearchOptions::default();
    if std::env::var_os("SCENARIOS_ASTAR").is_some() {
        options.algorithm = Algorithm::AStar;
    }
    let rounds: Option<usize> = std::env::var("SCENARIOS_ROUNDS").ok().and_then(|s| s.parse().ok());
    let rounds = rounds.unwrap_or(1).max(1);
    let (mut solved, mut optimal, mut total_micros) = (0usize, 0usize, 0.0f64);
    let mut first_micros = None;
    // One query, timed: its path's cost and expansions (`None`: no path), and how long it
    // took. The path itself is dropped at once, as a game's search loop would reuse its memory.
    let mut ask = |scenario: &Scenario| {
        let started = Instant::now();
        let query = PathQuery::new(scenario.start, scenario.goal).with_options(options);
        let result = match (&table, &landmarks) {
            (Some(table), _) => pathfinder.find(&grid, &query.with_help(table)),
            (None, Some(landmarks)) => pathfinder.find(&grid, &query.with_help(landmarks)),
            (None, None) => pathfinder.find(&grid, &query),
        };
        let micros = started.elapsed().as_secs_f64() * 1e6;
        total_micros += micros;
        first_micros.get_or_insert(micros);
        (result.ok().map(|path| (path.cost, path.stats.expanded)), micros)
    };
    for _ in 1..rounds {
        for scenario in &scenarios {
            let _ = ask(scenario);
        }
    }
    // The last round's answers, printed once it is over.
    let answers: Vec<_> = scenarios.iter().map(&mut ask).collect();
    let first_micros = first_micros.unwrap_or(0.0);
    for (index, (scenario, &(answer, micros))) in scenarios.iter().zip(&answers).enumerate() {
        let (length, expanded) = match answer {
            Some((cost, expanded)) => {
                solved += 1;
                if (cost - scenario.optimal_length).abs() <= 0.01 {
                    optimal += 1;
                }
                (format!("{cost:.5}"), expanded)
            }
            None => ("-".to_string(), 0),
        };
        println!(
            "{index}\t{}\t{}\t{}\t{}\t{length}\t{expanded}\t{micros:.1}",
            scenario.start.x, scenario.start.y, scenario.goal.x, scenario.goal.y
        );
    }
    let asked = scenarios.len() * rounds;
    let mean = if asked == 0 { 0.0 } else { total_micros / asked as f64 };
    // The first query also builds the grid's jump point bits (once per grid): the mean of the
    // others is the steady speed.
    let rest = if asked < 2 { 0.0 } else { (total_micros - first_micros) / (asked - 1) as f64 };
    println!(
        "{} scenarios, {solved} solved, {optimal} optimal, mean {mean:.2} us/query \
         ({rest:.2} after the first, which took {first_micros:.0} us)",
        scenarios.len()
    );
    ExitCode::SUCCESS
}

/// A fixed sequence of pseudo-random numbers (xorshift), the same on every run.
struct Seeded(u64);

impl Seeded {
    /// The next number, under 2^32.
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 >> 32
    }
}

/// `grid` with `percent` of its open cells blocked, picked by a fixed seed, all but the
/// scenarios' starts and goals.
fn wall(mut grid: NavGrid, percent: f64, scenarios: &[Scenario]) -> NavGrid {
    let mut seed = Seeded(0x9E37_79B9_7F4A_7C15);
    let threshold = (percent / 100.0 * u32::MAX as f64) as u64;
    let ends: std::collections::HashSet<GridPos> =
        scenarios.iter().flat_map(|s| [s.start, s.goal]).collect();
    let cells: Vec<GridPos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
    let mut walled = 0;
    for p in cells {
        if seed.next() < threshold && !ends.contains(&p) {
            // An open cell of the grid: this cannot fail.
            let _ = grid.set(p, Cell::Blocked);
            walled += 1;
        }
    }
    eprintln!("{walled} cells walled");
    grid
}

/// `grid` with a wall on `percent` of the edges between open straight neighbours, picked by a
/// fixed seed (the same fences on every run), in lines of `length` edges (a line of fence
/// posts across a row or a column, cut short by a wall cell or the map's edge); with `ledges`,
/// one-way edges instead of walls, each line crossed one way (down or up the row or column,
/// by the seed).
fn fence(mut grid: NavGrid, percent: f64, length: u32, ledges: bool) -> NavGrid {
    let mut seed = Seeded(0x9E37_79B9_7F4A_7C15);
    let threshold = (percent / 100.0 / f64::from(length.max(1)) * u32::MAX as f64) as u64;
    let cells: Vec<GridPos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
    let mut fenced = 0;
    for a in cells {
        for (dx, dy) in [(1, 0), (0, 1)] {
            if seed.next() >= threshold {
                continue;
            }
            let back = ledges && seed.next() % 2 == 1;
            // The line goes across the step from `a`: down a column for a step along a row.
            for k in 0..length.max(1) {
                let from = GridPos::new(a.x + k * dy, a.y + k * dx);
                let to = GridPos::new(from.x + dx, from.y + dy);
                if !grid.is_passable(from) || !grid.is_passable(to) || !grid.edge_open(from, to) {
                    break;
                }
                // Both cells are open neighbours on the grid: this cannot fail.
                let _ = match (ledges, back) {
                    (false, _) => grid.set_edge(from, to, Edge::Wall),
                    (true, false) => grid.set_edge(from, to, Edge::OneWay),
                    (true, true) => grid.set_edge(to, from, Edge::OneWay),
                };
                fenced += 1;
            }
        }
    }
    eprintln!("{fenced} fences");
    grid
}

/// Builds `what`, and says on stderr how long that took and what it holds (`size`), or why it
/// was not built.
fn timed_build<T, E: std::fmt::Display>(
    what: &str,
    build: impl FnOnce() -> Result<T, E>,
    size: impl FnOnce(&T) -> String,
) -> Option<T> {
    let started = Instant::now();
    let built = build();
    let ms = started.elapsed().as_secs_f64() * 1e3;
    match &built {
        Ok(value) => eprintln!("{what}: {ms:.0} ms, {}", size(value)),
        Err(error) => eprintln!("no {what}: {error}"),
    }
    built.ok()
}
