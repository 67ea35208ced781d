//! Property test: on thousands of random small grids, the search agrees with a plain Dijkstra
//! oracle written independently in `common`, and every path it returns is legal.

mod common;

use bevy_tilemap_nav::prelude::*;
use common::{Model, Rng};

/// A random grid (random walls and costs) and the same grid as an independent model.
fn random_grid(rng: &mut Rng, eight: bool, cut_corners: bool) -> (NavGrid, Model) {
    let width = 1 + rng.below(12);
    let height = 1 + rng.below(12);
    let wall_percent = rng.below(45);
    let varied_costs = rng.chance(50);
    let mut grid = NavGrid::new(width, height)
        .unwrap()
        .with_neighborhood(if eight { Neighborhood::Eight } else { Neighborhood::Four })
        .with_corner_rule(if cut_corners {
            CornerRule::CutCorners
        } else {
            CornerRule::NoCornerCutting
        });
    let mut cells = vec![vec![None; width as usize]; height as usize];
    for y in 0..height {
        for x in 0..width {
            let cell = if rng.chance(wall_percent) {
                Cell::Blocked
            } else if varied_costs {
                Cell::Passable { cost: 1 + rng.below(6) }
            } else {
                Cell::GROUND
            };
            grid.set(GridPos::new(x, y), cell).unwrap();
            if let Cell::Passable { cost } = cell {
                cells[y as usize][x as usize] = Some(cost);
            }
        }
    }
    let model = Model { width: width.into(), height: height.into(), cells, eight, cut_corners };
    (grid, model)
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
            let got = pathfinder.find_path(&grid, start, goal, &options);
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
        match (optimum, pathfinder.find_path(&grid, start, goal, &options)) {
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
        let a = shared.find_path(&grid, start, goal, &options).map(|p| p.cost);
        let b = Pathfinder::new().find_path(&grid, start, goal, &options).map(|p| p.cost);
        assert_eq!(a, b, "round {round}");
    }
}

#[test]
fn jump_point_search_matches_dijkstra_oracle_on_uniform_grids() {
    let mut rng = Rng(2024);
    let mut pathfinder = Pathfinder::new();
    let jps = SearchOptions { algorithm: Algorithm::JumpPoint, ..SearchOptions::default() };
    let astar = SearchOptions { algorithm: Algorithm::AStar, ..SearchOptions::default() };
    let mut found = 0;
    for round in 0..4000 {
        // Uniform cost (1, or another single cost), 8-way, no corner cutting: where JPS applies.
        // Every fourth grid is wider or taller than 64 cells, so that the 64-cell bit scans
        // cross word boundaries both ways.
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
        let model = Model {
            width: width.into(),
            height: height.into(),
            cells,
            eight: true,
            cut_corners: false,
        };
        for _ in 0..6 {
            let start = GridPos::new(rng.below(width), rng.below(height));
            let goal = GridPos::new(rng.below(width), rng.below(height));
            let expected =
                model.dijkstra((start.x.into(), start.y.into()), (goal.x.into(), goal.y.into()));
            let got = pathfinder.find_path(&grid, start, goal, &jps);
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
                    let plain = pathfinder.find_path(&grid, start, goal, &astar).unwrap();
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
fn jump_point_search_is_refused_where_it_would_not_be_optimal() {
    let jps = SearchOptions { algorithm: Algorithm::JumpPoint, ..SearchOptions::default() };
    let mut pathfinder = Pathfinder::new();
    let (a, b) = (GridPos::new(0, 0), GridPos::new(3, 3));
    let mut mud = NavGrid::new(4, 4).unwrap();
    mud.set(GridPos::new(1, 1), Cell::Passable { cost: 3 }).unwrap();
    let four = NavGrid::new(4, 4).unwrap().with_neighborhood(Neighborhood::Four);
    let cut = NavGrid::new(4, 4).unwrap().with_corner_rule(CornerRule::CutCorners);
    for grid in [&mud, &four, &cut] {
        assert_eq!(pathfinder.find_path(grid, a, b, &jps), Err(PathError::JumpPointUnsupported));
        // Auto quietly uses A* there, and stays optimal (checked by the oracle tests).
        assert!(pathfinder.find_path(grid, a, b, &SearchOptions::default()).is_ok());
    }
}
