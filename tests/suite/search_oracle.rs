//! Property test: on thousands of random small grids, the search agrees with a plain Dijkstra
//! oracle written independently in `support`, and every path it returns is legal.

use crate::support::{GridShape, Model, Rng};
use bevy_tilemap_nav::grid::{CornerRule, Neighborhood};
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::{Algorithm, Heuristic, PathError, SearchLimit, SearchStep};

/// A random grid (random walls and costs, 1 to 12 cells a side) and the same grid as the
/// oracle's model, 8-way or not, cutting corners or not.
fn random_grid(rng: &mut Rng, eight: bool, cut_corners: bool) -> (NavGrid, Model) {
    let percent = |yes: bool| if yes { 100 } else { 0 };
    let shape = GridShape {
        min_side: 1,
        spread: 12,
        walls: 45,
        eight: percent(eight),
        cut: percent(cut_corners),
    };
    crate::support::random_grid(rng, &shape)
}

fn check_against_oracle(heuristic: Option<Heuristic>, seed: u64, rounds: usize) {
    let mut rng = Rng(seed);
    let mut pathfinder = Pathfinder::new();
    let (mut found, mut unreachable) = (0, 0);
    for round in 0..rounds {
        let eight = round % 2 == 0;
        let cut_corners = round % 4 >= 2;
        let (grid, model) = random_grid(&mut rng, eight, cut_corners);
        // Octile overestimates on 4-way grids; Manhattan on 8-way ones.
        let heuristic = match heuristic {
            Some(Heuristic::Octile) if !eight => Some(Heuristic::Manhattan),
            Some(Heuristic::Manhattan) if eight => Some(Heuristic::Octile),
            h => h,
        };
        let options = SearchOptions { heuristic, ..SearchOptions::default() };
        for _ in 0..8 {
            let start = GridPos::new(rng.below(grid.width()), rng.below(grid.height()));
            let goal = GridPos::new(rng.below(grid.width()), rng.below(grid.height()));
            let expected =
                model.dijkstra((start.x.into(), start.y.into()), (goal.x.into(), goal.y.into()));
            let got = pathfinder.find(&grid, &PathQuery::new(start, goal).with_options(options));
            match (expected, got) {
                (Some(cost), Ok(path)) => {
                    found += 1;
                    assert!(
                        (path.cost - cost).abs() < 1e-6,
                        "round {round}: cost {} but the optimum is {cost}",
                        path.cost
                    );
                    assert!(path.complete);
                    assert_eq!(path.cells.first(), Some(&start));
                    assert_eq!(path.cells.last(), Some(&goal));
                    let cells: Vec<(i64, i64)> =
                        path.cells.iter().map(|p| (p.x.into(), p.y.into())).collect();
                    let walked = model
                        .path_cost(&cells)
                        .unwrap_or_else(|| panic!("round {round}: illegal path {cells:?}"));
                    assert!((walked - path.cost).abs() < 1e-6, "round {round}: reported cost");
                }
                (None, Err(error)) => {
                    unreachable += 1;
                    let start_open = grid.is_passable(start);
                    let goal_open = grid.is_passable(goal);
                    let expected_error = if !start_open {
                        PathError::StartBlocked { start }
                    } else if !goal_open {
                        PathError::GoalBlocked { goal }
                    } else {
                        PathError::Unreachable { start, goal }
                    };
                    assert_eq!(error, expected_error, "round {round}");
                }
                (expected, got) => {
                    panic!("round {round}: oracle says {expected:?}, search says {got:?}")
                }
            }
        }
    }
    // The random grids exercise both answers.
    assert!(found > rounds && unreachable > rounds / 4, "{found} found, {unreachable} not");
}

#[test]
fn default_heuristic_matches_dijkstra_oracle() {
    check_against_oracle(None, 1, 3000);
}

#[test]
fn every_admissible_heuristic_matches_dijkstra_oracle() {
    for (seed, heuristic) in
        [Heuristic::Octile, Heuristic::Euclidean, Heuristic::Zero].into_iter().enumerate()
    {
        check_against_oracle(Some(heuristic), 100 + seed as u64, 1000);
    }
}

#[test]
fn weighted_search_stays_within_its_bound() {
    let mut rng = Rng(7);
    let mut pathfinder = Pathfinder::new();
    for round in 0..2000 {
        let (grid, model) = random_grid(&mut rng, round % 2 == 0, round % 4 >= 2);
        let weight = 1.0 + f64::from(rng.below(30)) / 10.0;
        let options = SearchOptions { weight, ..SearchOptions::default() };
        let start = GridPos::new(rng.below(grid.width()), rng.below(grid.height()));
        let goal = GridPos::new(rng.below(grid.width()), rng.below(grid.height()));
        let optimum =
            model.dijkstra((start.x.into(), start.y.into()), (goal.x.into(), goal.y.into()));
        match (optimum, pathfinder.find(&grid, &PathQuery::new(start, goal).with_options(options)))
        {
            (Some(best), Ok(path)) => {
                assert!(path.cost <= weight * best + 1e-6, "round {round}");
                assert!(path.cost >= best - 1e-6, "round {round}");
                let cells: Vec<(i64, i64)> =
                    path.cells.iter().map(|p| (p.x.into(), p.y.into())).collect();
                assert!(model.path_cost(&cells).is_some(), "round {round}: illegal path");
            }
            (None, Err(_)) => {}
            (a, b) => panic!("round {round}: oracle {a:?}, search {b:?}"),
        }
    }
}

#[test]
fn scratch_reuse_across_grid_sizes_gives_same_answers() {
    // One pathfinder for many grids of different sizes must answer like a fresh one.
    let mut rng = Rng(99);
    let mut shared = Pathfinder::new();
    for round in 0..500 {
        let (grid, _) = random_grid(&mut rng, round % 2 == 0, false);
        let start = GridPos::new(rng.below(grid.width()), rng.below(grid.height()));
        let goal = GridPos::new(rng.below(grid.width()), rng.below(grid.height()));
        let options = SearchOptions::default();
        let a =
            shared.find(&grid, &PathQuery::new(start, goal).with_options(options)).map(|p| p.cost);
        let b = Pathfinder::new()
            .find(&grid, &PathQuery::new(start, goal).with_options(options))
            .map(|p| p.cost);
        assert_eq!(a, b, "round {round}");
    }
}

/// A random grid where jump point search applies (uniform cost, 8-way, no corner cutting),
/// and the same grid as a model. Every fourth grid is wider or taller than 64 cells, so that
/// the 64-cell bit scans cross word boundaries both ways.
fn uniform_grid(rng: &mut Rng, round: usize) -> (NavGrid, Model) {
    let (width, height) = match round % 4 {
        0 => (60 + rng.below(100), 1 + rng.below(12)),
        1 => (1 + rng.below(12), 60 + rng.below(100)),
        _ => (1 + rng.below(16), 1 + rng.below(16)),
    };
    let cost = if rng.chance(30) { 1 + rng.below(5) } else { 1 };
    let wall_percent = rng.below(45);
    // Half the grids start open and get walls; half start walled and get opened, so both
    // directions of a cell change keep the bit rows and columns in step.
    let start_open = rng.chance(50);
    let mut grid = NavGrid::filled(
        width,
        height,
        if start_open { Cell::Passable { cost } } else { Cell::Blocked },
    )
    .unwrap();
    let mut cells = vec![vec![Some(cost); width as usize]; height as usize];
    for y in 0..height {
        for x in 0..width {
            let wall = rng.chance(wall_percent);
            grid.set(
                GridPos::new(x, y),
                if wall { Cell::Blocked } else { Cell::Passable { cost } },
            )
            .unwrap();
            if wall {
                cells[y as usize][x as usize] = None;
            }
        }
    }
    let model = Model { eight: true, ..Model::of(cells) };
    (grid, model)
}

#[test]
fn jump_point_search_matches_dijkstra_oracle_on_uniform_grids() {
    let mut rng = Rng(2024);
    let mut pathfinder = Pathfinder::new();
    let jps = SearchOptions { algorithm: Algorithm::JumpPoint, ..SearchOptions::default() };
    let astar = SearchOptions { algorithm: Algorithm::AStar, ..SearchOptions::default() };
    let mut found = 0;
    for round in 0..4000 {
        let (grid, model) = uniform_grid(&mut rng, round);
        let (width, height) = (grid.width(), grid.height());
        for _ in 0..6 {
            let start = GridPos::new(rng.below(width), rng.below(height));
            let goal = GridPos::new(rng.below(width), rng.below(height));
            let expected =
                model.dijkstra((start.x.into(), start.y.into()), (goal.x.into(), goal.y.into()));
            let got = pathfinder.find(&grid, &PathQuery::new(start, goal).with_options(jps));
            match (expected, got) {
                (Some(best), Ok(path)) => {
                    found += 1;
                    assert!(
                        (path.cost - best).abs() < 1e-6,
                        "round {round}: {} vs {best}",
                        path.cost
                    );
                    assert_eq!((path.cells[0], path.end()), (start, goal));
                    let cells: Vec<(i64, i64)> =
                        path.cells.iter().map(|p| (p.x.into(), p.y.into())).collect();
                    let walked = model
                        .path_cost(&cells)
                        .unwrap_or_else(|| panic!("round {round}: illegal path {cells:?}"));
                    assert!((walked - path.cost).abs() < 1e-6, "round {round}");
                    // Plain A* agrees on the cost.
                    let plain = pathfinder
                        .find(&grid, &PathQuery::new(start, goal).with_options(astar))
                        .unwrap();
                    assert!((plain.cost - path.cost).abs() < 1e-6);
                }
                (None, Err(_)) => {}
                (a, b) => panic!("round {round}: oracle {a:?}, jps {b:?}"),
            }
        }
    }
    assert!(found > 4000);
}

#[test]
fn jump_point_search_is_refused_where_it_would_not_be_optimal_and_takes_terrain() {
    let jps = SearchOptions { algorithm: Algorithm::JumpPoint, ..SearchOptions::default() };
    let mut pathfinder = Pathfinder::new();
    let (a, b) = (GridPos::new(0, 0), GridPos::new(3, 3));
    let four = NavGrid::new(4, 4).unwrap().with_neighborhood(Neighborhood::Four);
    let cut = NavGrid::new(4, 4).unwrap().with_corner_rule(CornerRule::CutCorners);
    for grid in [&four, &cut] {
        assert_eq!(
            pathfinder.find(grid, &PathQuery::new(a, b).with_options(jps)),
            Err(PathError::JumpPointUnsupported)
        );
        // Auto quietly uses A* there, and stays optimal (checked by the oracle tests).
        assert!(pathfinder.find(grid, &PathQuery::new(a, b)).is_ok());
    }
    // Terrain costs are fine: the path goes round the mud on the diagonal.
    let mut mud = NavGrid::new(4, 4).unwrap();
    mud.set(GridPos::new(1, 1), Cell::Passable { cost: 3 }).unwrap();
    let path = pathfinder.find(&mud, &PathQuery::new(a, b).with_options(jps)).unwrap();
    assert!(!path.cells.contains(&GridPos::new(1, 1)));
    assert!((path.cost - (2.0 + 2.0 * std::f64::consts::SQRT_2)).abs() < 1e-9);
}

#[test]
fn avoided_cells_keep_jump_point_search_optimal() {
    // Avoided cells are walls for one query: jump point search (which keeps the grid's bits and
    // stops near them) and plain A* must both find the optimum of the grid with them walled.
    let mut rng = Rng(4242);
    let mut pathfinder = Pathfinder::new();
    let jps = SearchOptions { algorithm: Algorithm::JumpPoint, ..SearchOptions::default() };
    let astar = SearchOptions { algorithm: Algorithm::AStar, ..SearchOptions::default() };
    let (mut found, mut cut_off) = (0, 0);
    for round in 0..3000 {
        let (grid, model) = uniform_grid(&mut rng, round);
        let (width, height) = (grid.width(), grid.height());
        for _ in 0..6 {
            let start = GridPos::new(rng.below(width), rng.below(height));
            let goal = GridPos::new(rng.below(width), rng.below(height));
            // Scattered cells, and some bunched round the straight line from start to goal
            // (where they are in the way), sometimes the start and goal themselves.
            let mut avoid = Vec::new();
            for _ in 0..rng.below(12) {
                avoid.push(GridPos::new(rng.below(width), rng.below(height)));
            }
            for _ in 0..rng.below(8) {
                let t = rng.below(101);
                let along = |a: u32, b: u32| a as i64 + (b as i64 - a as i64) * t as i64 / 100;
                let mut jitter = |v: i64, max: u32| {
                    (v + rng.below(3) as i64 - 1).clamp(0, max as i64 - 1) as u32
                };
                let (x, y) = (along(start.x, goal.x), along(start.y, goal.y));
                avoid.push(GridPos::new(jitter(x, width), jitter(y, height)));
            }
            if rng.chance(10) {
                avoid.push(start);
                avoid.push(goal);
            }
            avoid.push(GridPos::new(width + 3, 0)); // off the grid: ignored
            let at = |p: GridPos| (i64::from(p.x), i64::from(p.y));
            let walled: Vec<(i64, i64)> = avoid.iter().map(|&p| at(p)).collect();
            let expected = model.dijkstra_avoiding(at(start), at(goal), &walled);
            let got = pathfinder
                .find(&grid, &PathQuery::new(start, goal).with_options(jps).avoiding(&avoid));
            let plain = pathfinder
                .find(&grid, &PathQuery::new(start, goal).with_options(astar).avoiding(&avoid));
            match (expected, got) {
                (Some(best), Ok(path)) => {
                    found += 1;
                    assert!(
                        (path.cost - best).abs() < 1e-6,
                        "round {round}: {} vs {best}, avoiding {avoid:?}",
                        path.cost
                    );
                    assert_eq!((path.cells[0], path.end()), (start, goal));
                    let cells: Vec<(i64, i64)> = path.cells.iter().map(|&p| at(p)).collect();
                    let mut model_walled = Model { cells: model.cells.clone(), ..model };
                    for &(x, y) in &walled {
                        if (x, y) != at(start) && (x, y) != at(goal) && x < i64::from(width) {
                            model_walled.cells[y as usize][x as usize] = None;
                        }
                    }
                    let walked = model_walled
                        .path_cost(&cells)
                        .unwrap_or_else(|| panic!("round {round}: illegal path {cells:?}"));
                    assert!((walked - path.cost).abs() < 1e-6, "round {round}");
                    let plain = plain.unwrap();
                    assert!((plain.cost - best).abs() < 1e-6, "round {round}: A* {}", plain.cost);
                }
                (None, Err(error)) => {
                    if grid.connected(start, goal) {
                        cut_off += 1;
                    }
                    assert!(
                        matches!(error, PathError::Unreachable { .. })
                            || start == goal
                            || !grid.is_passable(start)
                            || !grid.is_passable(goal),
                        "round {round}: {error:?}"
                    );
                    assert!(plain.is_err());
                }
                (a, b) => panic!("round {round}: oracle {a:?}, jps {b:?}, avoiding {avoid:?}"),
            }
        }
    }
    // Both answers are exercised, including goals that only the avoided cells cut off.
    assert!(found > 3000 && cut_off > 20, "{found} found, {cut_off} cut off by avoided cells");
}

#[test]
fn a_search_spread_over_many_calls_answers_as_in_one_go() {
    // Pausing after a few expansions and resuming (a search spread over frames) gives the very
    // same answer, path and all, for every algorithm, option and outcome.
    let mut rng = Rng(77);
    let mut whole = Pathfinder::new();
    let mut spread = Pathfinder::new();
    let mut paused_searches = 0;
    for round in 0..1500 {
        let (grid, _) = if round % 2 == 0 {
            uniform_grid(&mut rng, round)
        } else {
            random_grid(&mut rng, round % 4 == 1, round % 8 >= 4)
        };
        let (width, height) = (grid.width(), grid.height());
        let algorithm = [Algorithm::Auto, Algorithm::AStar, Algorithm::ThetaStar][round % 3];
        let options = SearchOptions {
            algorithm,
            partial: rng.chance(20),
            limit: SearchLimit {
                max_expansions: rng.chance(20).then(|| rng.below(40)),
                max_cost: None,
            },
            ..SearchOptions::default()
        };
        let start = GridPos::new(rng.below(width), rng.below(height));
        let goal = GridPos::new(rng.below(width), rng.below(height));
        let avoid: Vec<GridPos> =
            (0..rng.below(6)).map(|_| GridPos::new(rng.below(width), rng.below(height))).collect();
        let query = PathQuery::new(start, goal).with_options(options).avoiding(&avoid);
        let expected = whole.find(&grid, &query);
        let budget = 1 + rng.below(8);
        let mut step = spread.start(&grid, &query, budget);
        let mut calls = 0;
        while let SearchStep::Paused { expanded } = step {
            assert!(spread.is_paused());
            assert!(expanded <= budget * (calls + 1), "round {round}: budget overrun");
            calls += 1;
            step = spread.resume(&grid, &query, budget);
        }
        assert!(!spread.is_paused());
        if calls > 0 {
            paused_searches += 1;
        }
        assert_eq!(step, SearchStep::Done(expected), "round {round}");
    }
    assert!(paused_searches > 300, "{paused_searches}");
}

#[test]
fn a_paused_search_is_not_resumed_on_a_changed_grid() {
    let mut grid = NavGrid::new(40, 40).unwrap();
    let astar = SearchOptions { algorithm: Algorithm::AStar, ..SearchOptions::default() };
    let (start, goal) = (GridPos::new(0, 0), GridPos::new(39, 39));
    let mut pathfinder = Pathfinder::new();
    let query = PathQuery::new(start, goal).with_options(astar);
    let nothing = SearchStep::Done(Err(PathError::NothingToResume));
    assert_eq!(pathfinder.resume(&grid, &query, 10), nothing);
    let step = pathfinder.start(&grid, &query, 5);
    assert_eq!(step, SearchStep::Paused { expanded: 5 });
    // Another grid (a clone is another grid), or this one changed: refused, and dropped.
    let copy = grid.clone();
    let changed = SearchStep::Done(Err(PathError::GridChanged));
    assert_eq!(pathfinder.resume(&copy, &query, 10), changed);
    assert!(!pathfinder.is_paused());
    let _ = pathfinder.start(&grid, &query, 5);
    grid.set(GridPos::new(20, 20), Cell::Blocked).unwrap();
    assert_eq!(pathfinder.resume(&grid, &query, 10), changed);
    // Another query than the paused one: nothing of its own to resume (the paused one stays).
    let _ = pathfinder.start(&grid, &query, 5);
    let other = PathQuery::new(start, GridPos::new(30, 39)).with_options(astar);
    assert_eq!(pathfinder.resume(&grid, &other, 10), nothing);
    // A plain query drops a paused search too.
    let _ = pathfinder.start(&grid, &query, 5);
    assert!(pathfinder.find(&grid, &query).is_ok());
    assert!(!pathfinder.is_paused());
}
