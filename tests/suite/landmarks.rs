//! Landmarks (`search::Landmarks`): searches guided by them find the oracle's cost on random
//! grids of every square rule while cells change between queries (refreshed or not), their
//! estimate never overestimates and never drops by more than a step costs, and they cut the
//! work on the benchmark's painted maps.

use crate::support::{Model, Rng, cell_of, reseal, set_cells, xy};
use bevy_tilemap_nav::grid::{CornerRule, Neighborhood};
use bevy_tilemap_nav::io::baked::BakeError;
use bevy_tilemap_nav::io::movingai::{load_map, load_scenarios, paint_terrain};
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::{Algorithm, Heuristic, PathError, SearchStep};
use bevy_tilemap_nav::search::{
    LANDMARKS_FORMAT_VERSION, Landmarks, LandmarksError, MAX_LANDMARKS,
};

/// A random grid: walls, rectangles of costs 1 to 8 over a base cost; 8-way without corner
/// cutting, 8-way cutting corners, or 4-way, in turn.
fn random_grid(rng: &mut Rng, round: usize) -> (NavGrid, Model) {
    let (width, height) = (1 + rng.below(24), 1 + rng.below(24));
    let base = 1 + rng.below(3);
    let wall_percent = rng.below(35);
    let mut cells = vec![vec![Some(base); width as usize]; height as usize];
    for row in cells.iter_mut() {
        for cell in row.iter_mut() {
            if rng.chance(wall_percent) {
                *cell = None;
            }
        }
    }
    for _ in 0..rng.below(8) {
        let (x0, y0) = (rng.below(width), rng.below(height));
        let (w, h) = (1 + rng.below(8), 1 + rng.below(8));
        let cost = 1 + rng.below(8);
        for y in y0..(y0 + h).min(height) {
            for x in x0..(x0 + w).min(width) {
                let cell = &mut cells[y as usize][x as usize];
                if cell.is_some() {
                    *cell = Some(cost);
                }
            }
        }
    }
    let (neighborhood, corner_rule) = match round % 3 {
        0 => (Neighborhood::Eight, CornerRule::NoCornerCutting),
        1 => (Neighborhood::Eight, CornerRule::CutCorners),
        _ => (Neighborhood::Four, CornerRule::NoCornerCutting),
    };
    let mut grid = NavGrid::new(width, height)
        .unwrap()
        .with_neighborhood(neighborhood)
        .with_corner_rule(corner_rule);
    set_cells(&mut grid, &cells);
    let model = Model {
        eight: neighborhood == Neighborhood::Eight,
        cut_corners: corner_rule == CornerRule::CutCorners,
        ..Model::of(cells)
    };
    (grid, model)
}

/// Changes one cell, a rectangle or a batch to walls, open ground or another cost, in the grid
/// and the model alike.
fn change(rng: &mut Rng, grid: &mut NavGrid, model: &mut Model) {
    let (width, height) = (grid.width(), grid.height());
    let pick = |rng: &mut Rng| GridPos::new(rng.below(width), rng.below(height));
    let random_cell = |rng: &mut Rng| match rng.below(4) {
        0 => None,
        k => Some(k.min(2) + rng.below(4)),
    };
    let mut put = |grid: &mut NavGrid, p: GridPos, cost: Option<u32>| {
        grid.set(p, cell_of(cost)).unwrap();
        model.cells[p.y as usize][p.x as usize] = cost;
    };
    if rng.chance(50) {
        let (p, cost) = (pick(rng), random_cell(rng));
        put(grid, p, cost);
    } else {
        let (a, b) = (pick(rng), pick(rng));
        let cost = random_cell(rng);
        for y in a.y.min(b.y)..=a.y.max(b.y) {
            for x in a.x.min(b.x)..=a.x.max(b.x) {
                put(grid, GridPos::new(x, y), cost);
            }
        }
    }
}

#[test]
fn guided_search_matches_dijkstra_oracle_while_cells_change() {
    let mut rng = Rng(0x1a4d);
    let mut pathfinder = Pathfinder::new();
    let (mut found, mut used, mut skipped) = (0, 0, 0);
    for round in 0..1500 {
        let (mut grid, mut model) = random_grid(&mut rng, round);
        let Ok(mut landmarks) = Landmarks::build(&grid, 1 + rng.below(8) as usize) else {
            assert_eq!(grid.passable_count(), 0);
            continue;
        };
        let (width, height) = (grid.width(), grid.height());
        let pick = |rng: &mut Rng| GridPos::new(rng.below(width), rng.below(height));
        for step in 0..6 {
            if landmarks.usable_on(&grid) {
                used += 1;
            } else {
                skipped += 1;
            }
            for k in 0..4 {
                let (start, goal) = (pick(&mut rng), pick(&mut rng));
                let algorithm = [Algorithm::Auto, Algorithm::AStar, Algorithm::JumpPoint][k % 3];
                let options = SearchOptions { algorithm, ..SearchOptions::default() };
                let avoid: Vec<GridPos> = if k == 3 {
                    (0..rng.below(4)).map(|_| pick(&mut rng)).collect()
                } else {
                    vec![]
                };
                let avoided: Vec<(i64, i64)> = avoid.iter().map(|&p| xy(p)).collect();
                let expected = model.dijkstra_avoiding(xy(start), xy(goal), &avoided);
                let got = pathfinder.find(
                    &grid,
                    &PathQuery::new(start, goal)
                        .with_options(options)
                        .with_help(&landmarks)
                        .avoiding(&avoid),
                );
                match (expected, got) {
                    (Some(best), Ok(path)) => {
                        assert!(
                            (path.cost - best).abs() < 1e-6,
                            "round {round} step {step}: {start:?} -> {goal:?}: {} vs {best}",
                            path.cost
                        );
                        let cells: Vec<(i64, i64)> = path.cells.iter().map(|&p| xy(p)).collect();
                        let walked = model.path_cost(&cells).expect("a legal path");
                        assert!((walked - path.cost).abs() < 1e-6);
                        found += 1;
                    }
                    (None, Err(_)) => {}
                    (_, Err(PathError::JumpPointUnsupported)) => {}
                    (a, b) => panic!("round {round} step {step}: oracle {a:?}, guided {b:?}"),
                }
            }
            change(&mut rng, &mut grid, &mut model);
            // Refreshed half the time; otherwise used only while the changes allow.
            if rng.chance(50) {
                landmarks.refresh(&grid);
                assert!(landmarks.is_current(&grid) && landmarks.usable_on(&grid));
            }
        }
    }
    assert!(found > 10_000, "{found} paths");
    assert!(used > 3 * skipped && skipped > 100, "used {used}, skipped {skipped}");
}

/// The estimate is a lower bound on the cheapest cost from a cell to the goal, and consistent:
/// from a cell it never exceeds a step's cost plus the estimate from where the step lands.
/// Checked on every pair of cells after changes and refreshes.
#[test]
fn estimate_is_admissible_and_consistent_after_refreshes() {
    let mut rng = Rng(0xe571);
    let mut informative = 0;
    for round in 0..240 {
        let (mut grid, mut model) = random_grid(&mut rng, round);
        let Ok(mut landmarks) = Landmarks::build(&grid, 1 + rng.below(6) as usize) else {
            continue;
        };
        for _ in 0..3 {
            change(&mut rng, &mut grid, &mut model);
            landmarks.refresh(&grid);
        }
        let open: Vec<GridPos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
        // The oracle's cheapest costs from each open cell to every cell.
        let from: Vec<Vec<f64>> = open.iter().map(|&n| model.distances(xy(n)).unwrap()).collect();
        let index = |p: GridPos| p.y as usize * grid.width() as usize + p.x as usize;
        for &goal in &open {
            for (&n, from_n) in open.iter().zip(&from) {
                let estimate = landmarks.estimate(&grid, n, goal).unwrap();
                let there = from_n[index(goal)];
                assert!(estimate <= there + 1e-9, "round {round}");
                let octile = Heuristic::Octile.estimate(Neighborhood::Eight, n, goal)
                    * grid.min_cost().unwrap() as f64;
                informative += usize::from(there.is_finite() && estimate > octile + 0.5);
                for (m, step) in grid.neighbors(n) {
                    let next = landmarks.estimate(&grid, m, goal).unwrap();
                    assert!(estimate <= step + next + 1e-9, "round {round}: {n:?} -> {m:?}");
                }
            }
            if open.len() > 120 {
                break; // one goal is enough on the bigger grids
            }
        }
    }
    // It sees walls and terrain where the octile distance does not.
    assert!(informative > 1000, "{informative}");
}

#[test]
fn landmarks_are_skipped_until_refreshed_after_a_cell_opens() {
    let mut grid = NavGrid::new(30, 20).unwrap();
    grid.fill_rect(GridPos::new(15, 0), GridPos::new(15, 18), Cell::Blocked).unwrap();
    let mut landmarks = Landmarks::build(&grid, 4).unwrap();
    assert_eq!(landmarks.cells().len(), 4);
    assert!(landmarks.is_current(&grid) && landmarks.usable_on(&grid));
    let (a, b) = (GridPos::new(14, 0), GridPos::new(16, 0));
    // Round the wall's end: far more than the two steps the octile distance says.
    let round = landmarks.estimate(&grid, a, b).unwrap();
    assert!(round > 20.0, "{round}");

    // Dearer ground and a new wall keep the numbers usable as they are.
    grid.set(GridPos::new(3, 3), Cell::Passable { cost: 5 }).unwrap();
    grid.set(GridPos::new(3, 4), Cell::Blocked).unwrap();
    assert!(!landmarks.is_current(&grid) && landmarks.usable_on(&grid));
    // A gap in the wall does not: a guided search then runs unguided, still optimal.
    grid.set(GridPos::new(15, 0), Cell::GROUND).unwrap();
    assert!(!landmarks.usable_on(&grid));
    assert_eq!(landmarks.estimate(&grid, a, b), None);
    let mut pathfinder = Pathfinder::new();
    let options = SearchOptions::default();
    let path = pathfinder
        .find(&grid, &PathQuery::new(a, b).with_options(options).with_help(&landmarks))
        .unwrap();
    assert!((path.cost - 2.0).abs() < 1e-9);
    // Refreshed: current again, and the estimate knows the gap.
    landmarks.refresh(&grid);
    assert!(landmarks.is_current(&grid));
    assert!(landmarks.estimate(&grid, a, b).unwrap() <= 2.0);
    // A rule change lists no cells: the refresh rebuilds.
    grid.set_corner_rule(CornerRule::CutCorners);
    assert!(!landmarks.usable_on(&grid));
    landmarks.refresh(&grid);
    assert!(landmarks.is_current(&grid));
    // Landmarks of another grid are never used on this one.
    let other = Landmarks::build(&NavGrid::new(30, 20).unwrap(), 4).unwrap();
    assert!(!other.usable_on(&grid));
    let path = pathfinder
        .find(&grid, &PathQuery::new(a, b).with_options(options).with_help(&other))
        .unwrap();
    assert!((path.cost - 2.0).abs() < 1e-9);
}

#[test]
fn bad_landmark_counts_and_empty_grids_are_errors() {
    let grid = NavGrid::new(8, 8).unwrap();
    assert_eq!(Landmarks::build(&grid, 0).unwrap_err(), LandmarksError::BadCount { count: 0 });
    let too_many = MAX_LANDMARKS + 1;
    assert_eq!(
        Landmarks::build(&grid, too_many).unwrap_err(),
        LandmarksError::BadCount { count: too_many }
    );
    let walls = NavGrid::filled(8, 8, Cell::Blocked).unwrap();
    assert_eq!(Landmarks::build(&walls, 4).unwrap_err(), LandmarksError::NoPassableCell);
    assert!(LandmarksError::NoPassableCell.to_string().contains("no passable cell"));
}

/// On the benchmark's painted maps guided jump point search finds the same costs as plain A*
/// after far fewer expansions (the speed itself is measured by `cargo bench`).
#[test]
fn landmarks_cut_expansions_on_painted_benchmark_maps() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps");
    let grid = paint_terrain(&load_map(format!("{dir}/arena2.map")).unwrap(), 1);
    let landmarks = Landmarks::build(&grid, 8).unwrap();
    // 8 bytes a landmark (a distance each way) for each cell and for the ring of walls round
    // the grid.
    let padded = (grid.width() as usize + 2) * (grid.height() as usize + 2);
    assert!(landmarks.memory_bytes() <= padded * 8 * 8 + 1024);
    let mut rng = Rng(5);
    let mut pathfinder = Pathfinder::new();
    let astar = SearchOptions { algorithm: Algorithm::AStar, ..SearchOptions::default() };
    let (mut plain, mut guided, mut paths) = (0u64, 0u64, 0);
    while paths < 60 {
        let pick = |rng: &mut Rng| GridPos::new(rng.below(grid.width()), rng.below(grid.height()));
        let (start, goal) = (pick(&mut rng), pick(&mut rng));
        let Ok(a) = pathfinder.find(&grid, &PathQuery::new(start, goal).with_options(astar)) else {
            continue;
        };
        let options = SearchOptions::default();
        let b = pathfinder
            .find(&grid, &PathQuery::new(start, goal).with_options(options).with_help(&landmarks))
            .unwrap();
        assert!((a.cost - b.cost).abs() < 1e-6);
        plain += u64::from(a.stats.expanded);
        guided += u64::from(b.stats.expanded);
        paths += 1;
    }
    assert!(guided * 5 < plain, "guided {guided} vs plain A* {plain} expansions");
}

/// A guided search spread over many calls answers as in one go; resumed without its
/// landmarks it is dropped (its estimate must not change midway), to begin again.
#[test]
fn a_guided_search_in_steps_answers_as_in_one_go() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps");
    let grid = paint_terrain(&load_map(format!("{dir}/arena2.map")).unwrap(), 1);
    let landmarks = Landmarks::build(&grid, 8).unwrap();
    let options = SearchOptions::default();
    // The longest of the map's benchmark scenarios.
    let scenarios = load_scenarios(format!("{dir}/arena2.map.scen")).unwrap();
    let longest = scenarios.last().unwrap();
    let (start, goal) = (longest.start, longest.goal);
    let mut pathfinder = Pathfinder::new();
    let guided = PathQuery::new(start, goal).with_options(options).with_help(&landmarks);
    let whole = pathfinder.find(&grid, &guided).unwrap();
    let mut step = pathfinder.start(&grid, &guided, 20);
    let mut calls = 1;
    while let SearchStep::Paused { .. } = step {
        step = pathfinder.resume(&grid, &guided, 20);
        calls += 1;
    }
    let SearchStep::Done(Ok(path)) = step else { panic!("{step:?}") };
    assert!(calls > 3, "{calls}");
    assert_eq!((path.cost, path.stats.expanded), (whole.cost, whole.stats.expanded));

    // Begun guided, it goes on only guided.
    let step = pathfinder.start(&grid, &guided, 20);
    assert!(matches!(step, SearchStep::Paused { .. }));
    let unguided = PathQuery::new(start, goal).with_options(options);
    let step = pathfinder.resume(&grid, &unguided, 20);
    assert_eq!(step, SearchStep::Done(Err(PathError::GridChanged)));
    assert!(!pathfinder.is_paused());
}

/// Baked landmarks load back for their grid and guide searches exactly as built; damaged,
/// truncated, newer or other-grid bytes are typed errors.
#[test]
fn baked_landmarks_load_and_bad_bytes_are_errors() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps");
    let mut grid = paint_terrain(&load_map(format!("{dir}/arena.map")).unwrap(), 1);
    let landmarks = Landmarks::build(&grid, 8).unwrap();
    let bytes = landmarks.to_binary(&grid).unwrap();
    let loaded = Landmarks::from_binary(&bytes, &grid).unwrap();
    assert!(loaded.is_current(&grid));
    assert_eq!(loaded.cells(), landmarks.cells());
    assert_eq!(loaded.memory_bytes(), landmarks.memory_bytes());
    let open: Vec<GridPos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
    let (mut a_finder, mut b_finder) = (Pathfinder::new(), Pathfinder::new());
    let options = SearchOptions::default();
    let mut rng = Rng(0x1a4d);
    for _ in 0..300 {
        let pick = |rng: &mut Rng| open[rng.below(open.len() as u32) as usize];
        let (a, b) = (pick(&mut rng), pick(&mut rng));
        assert_eq!(loaded.estimate(&grid, a, b), landmarks.estimate(&grid, a, b));
        let built = a_finder
            .find(&grid, &PathQuery::new(a, b).with_options(options).with_help(&landmarks))
            .unwrap();
        let from_bytes = b_finder
            .find(&grid, &PathQuery::new(a, b).with_options(options).with_help(&loaded))
            .unwrap();
        assert_eq!(from_bytes.cells, built.cells);
        assert_eq!(from_bytes.stats.expanded, built.stats.expanded);
    }
    for len in (0..bytes.len()).step_by(89) {
        assert!(Landmarks::from_binary(&bytes[..len], &grid).is_err(), "{len}");
    }
    for at in (0..bytes.len()).step_by(97) {
        let mut bad = bytes.clone();
        bad[at] ^= 0x10;
        assert!(Landmarks::from_binary(&bad, &grid).is_err(), "{at}");
    }
    let mut future = bytes.clone();
    future[4..8].copy_from_slice(&(LANDMARKS_FORMAT_VERSION + 1).to_le_bytes());
    assert!(matches!(Landmarks::from_binary(&future, &grid), Err(BakeError::FutureVersion { .. })));
    assert_eq!(Landmarks::from_binary(b"TNFM....", &grid).err(), Some(BakeError::NotBaked));
    let mut four_way = grid.clone();
    four_way.set_neighborhood(Neighborhood::Four);
    assert_eq!(Landmarks::from_binary(&bytes, &four_way).err(), Some(BakeError::OtherGrid));
    let mut cutting = grid.clone();
    cutting.set_corner_rule(CornerRule::CutCorners);
    assert_eq!(Landmarks::from_binary(&bytes, &cutting).err(), Some(BakeError::OtherGrid));
    let small = NavGrid::new(5, 5).unwrap();
    assert!(matches!(Landmarks::from_binary(&bytes, &small), Err(BakeError::SizeMismatch { .. })));
    // The grid changed since: neither loaded nor baked for it.
    let cheaper = open.iter().copied().find(|&p| grid.cost(p).unwrap() > 1).unwrap();
    grid.set(cheaper, Cell::Passable { cost: 1 }).unwrap();
    assert_eq!(Landmarks::from_binary(&bytes, &grid).err(), Some(BakeError::OtherGrid));
    assert_eq!(landmarks.to_binary(&grid).err(), Some(BakeError::OtherGrid));
}

/// Bytes made by hand with a valid checksum are still checked: numbers that could overestimate
/// a path's cost (and so make a path less than optimal) and landmarks on walls are refused.
#[test]
fn hand_made_landmarks_that_could_mislead_are_refused() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps");
    let grid = paint_terrain(&load_map(format!("{dir}/arena.map")).unwrap(), 1);
    let count = 4;
    let mut bytes = Landmarks::build(&grid, count).unwrap().to_binary(&grid).unwrap();
    reseal(&mut bytes);
    assert!(Landmarks::from_binary(&bytes, &grid).is_ok(), "resealed as written");
    // Header: magic, version, width, height, rules (4 bytes each), fingerprint (8), count (4);
    // then each landmark's x and y, then the numbers.
    let numbers = 32 + 8 * count;
    let far = u32::MAX.to_le_bytes();
    let first = (numbers..bytes.len() - 8)
        .step_by(4)
        .find(|&at| bytes[at..at + 4] != far)
        .expect("a cell the landmarks reach");
    let mut raised = bytes.clone();
    let n = u32::from_le_bytes(raised[first..first + 4].try_into().unwrap());
    raised[first..first + 4].copy_from_slice(&(n + 1_000_000).to_le_bytes());
    reseal(&mut raised);
    assert!(matches!(Landmarks::from_binary(&raised, &grid), Err(BakeError::Invalid(_))));
    let wall = grid.positions().find(|&p| !grid.is_passable(p)).unwrap();
    let mut on_wall = bytes.clone();
    on_wall[32..36].copy_from_slice(&wall.x.to_le_bytes());
    on_wall[36..40].copy_from_slice(&wall.y.to_le_bytes());
    reseal(&mut on_wall);
    assert!(matches!(Landmarks::from_binary(&on_wall, &grid), Err(BakeError::Invalid(_))));
}

/// Baked landmarks of random grids with terrain, of every square rule and every hex layout,
/// load back and estimate as built.
#[test]
fn baked_landmarks_of_every_rule_estimate_as_built() {
    let mut rng = Rng(0x7e11);
    let hex_layouts = bevy_tilemap_nav::grid::HexCoords::ALL;
    for round in 0..6 + 2 * hex_layouts.len() {
        let (mut grid, _) = random_grid(&mut rng, round);
        if round >= 6 {
            grid.set_neighborhood(Neighborhood::Hex(hex_layouts[(round - 6) / 2]));
        }
        let Ok(landmarks) = Landmarks::build(&grid, 3) else { continue };
        let loaded = Landmarks::from_binary(&landmarks.to_binary(&grid).unwrap(), &grid).unwrap();
        for a in grid.positions() {
            for b in grid.positions() {
                assert_eq!(loaded.estimate(&grid, a, b), landmarks.estimate(&grid, a, b));
            }
        }
    }
}
