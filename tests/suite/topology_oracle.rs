//! Property tests for the other topologies. Hex grids: on thousands of random hex grids in
//! every coordinate system, the search agrees with the Dijkstra oracle of `support` (whose hex
//! neighbours are tabled by hand), every path is legal under the oracle's rules, "unreachable"
//! verdicts agree, and the any-angle answers (Theta*, smoothing) only cross open hexagons.
//! Isometric staggered maps: held as the sheared square grid (tile (x, y) is cell (x, x + y)),
//! the search agrees with the oracle run on the tiles with bevy_ecs_tilemap's staggered steps.

use crate::support::{HEX_RULES, HexRule, Model, Rng, STAGGERED_STEPS, random_cells, xy};
use bevy_tilemap_nav::grid::line::segment_cells;
use bevy_tilemap_nav::grid::{HexCoords, Neighborhood};
use bevy_tilemap_nav::path::{smooth_path, smoothed_cost};
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::{Algorithm, Heuristic, PathError, SearchLimit};

fn rule_of(coords: HexCoords) -> HexRule {
    HEX_RULES[HexCoords::ALL.iter().position(|&c| c == coords).unwrap()]
}

/// A random hex grid (walls, costs) and the same grid as the oracle's model.
fn random_hex_grid(rng: &mut Rng, coords: HexCoords) -> (NavGrid, Model) {
    let width = 1 + rng.below(14);
    let height = 1 + rng.below(14);
    let (wall_percent, varied_costs) = (rng.below(45), rng.chance(50));
    let cells = random_cells(rng, width, height, wall_percent, varied_costs);
    let mut grid =
        NavGrid::new(width, height).unwrap().with_neighborhood(Neighborhood::Hex(coords));
    grid.set_all(grid.positions().collect::<Vec<_>>().into_iter().map(|p| {
        let cost = cells[p.y as usize][p.x as usize];
        (p, cost.map_or(Cell::Blocked, |cost| Cell::Passable { cost }))
    }))
    .unwrap();
    let model = Model { hex: Some(rule_of(coords)), ..Model::of(cells) };
    (grid, model)
}

#[test]
fn hex_neighbours_match_the_hand_tables() {
    let mut rng = Rng(3);
    for coords in HexCoords::ALL {
        let (grid, model) = random_hex_grid(&mut rng, coords);
        let open = NavGrid::new(9, 7).unwrap().with_neighborhood(Neighborhood::Hex(coords));
        for pos in open.positions() {
            let mut ours: Vec<(i64, i64)> = open.neighbors(pos).map(|(p, _)| xy(p)).collect();
            let (x, y) = xy(pos);
            let mut theirs: Vec<(i64, i64)> = rule_of(coords)
                .steps(x, y)
                .iter()
                .map(|&(dx, dy)| (x + dx, y + dy))
                .filter(|&(nx, ny)| nx >= 0 && ny >= 0 && nx < 9 && ny < 7)
                .collect();
            ours.sort_unstable();
            theirs.sort_unstable();
            assert_eq!(ours, theirs, "{coords:?} at {pos}");
            for &(nx, ny) in &theirs {
                let n = GridPos::new(nx as u32, ny as u32);
                assert_eq!(coords.distance(pos, n), 1, "{coords:?}: {pos} to {n}");
                assert!(open.can_step(pos, n) && open.can_step(n, pos));
                assert_eq!(open.step_cost(pos, n), Some(1.0));
            }
        }
        // Neighbours skip walls.
        for pos in grid.positions() {
            for (n, cost) in grid.neighbors(pos) {
                assert_eq!(model.step_cost(xy(pos), xy(n)), Some(cost));
            }
        }
    }
}

#[test]
fn hex_search_matches_dijkstra_oracle_in_every_coordinate_system() {
    let mut rng = Rng(41);
    let mut pathfinder = Pathfinder::new();
    let (mut found, mut unreachable) = (0, 0);
    for round in 0..3000 {
        let coords = HexCoords::ALL[round % 6];
        let (grid, model) = random_hex_grid(&mut rng, coords);
        let heuristic = [None, Some(Heuristic::Euclidean), Some(Heuristic::Zero)][round / 6 % 3];
        let options = SearchOptions { heuristic, ..SearchOptions::default() };
        for _ in 0..6 {
            let start = GridPos::new(rng.below(grid.width()), rng.below(grid.height()));
            let goal = GridPos::new(rng.below(grid.width()), rng.below(grid.height()));
            let oracle = model.dijkstra(xy(start), xy(goal));
            let passable = grid.is_passable(start) && grid.is_passable(goal);
            match pathfinder.find(&grid, &PathQuery::new(start, goal).with_options(options)) {
                Ok(path) => {
                    let best = oracle.expect("the search found a path the oracle did not");
                    assert!((path.cost - best).abs() < 1e-9, "{coords:?}: {} vs {best}", path.cost);
                    let cells: Vec<(i64, i64)> = path.cells.iter().map(|&p| xy(p)).collect();
                    let legal = model.path_cost(&cells).expect("every step legal");
                    assert!((legal - path.cost).abs() < 1e-9);
                    assert_eq!((path.cells[0], path.end()), (start, goal));
                    found += 1;
                }
                Err(PathError::Unreachable { .. }) => {
                    assert!(oracle.is_none(), "{coords:?}: unreachable, oracle says {oracle:?}");
                    assert!(!grid.connected(start, goal));
                    unreachable += 1;
                }
                Err(PathError::StartBlocked { .. } | PathError::GoalBlocked { .. }) => {
                    assert!(!passable);
                }
                Err(e) => panic!("{coords:?}: unexpected {e}"),
            }
            if passable {
                assert_eq!(grid.connected(start, goal), oracle.is_some(), "{coords:?} labels");
            }
        }
    }
    assert!(found > 3000 && unreachable > 300, "found {found}, unreachable {unreachable}");
}

#[test]
fn hex_avoid_lists_partial_paths_and_limits() {
    let mut rng = Rng(17);
    let mut pathfinder = Pathfinder::new();
    for round in 0..1500 {
        let coords = HexCoords::ALL[round % 6];
        let (grid, model) = random_hex_grid(&mut rng, coords);
        let start = GridPos::new(rng.below(grid.width()), rng.below(grid.height()));
        let goal = GridPos::new(rng.below(grid.width()), rng.below(grid.height()));
        let avoid: Vec<GridPos> = (0..rng.below(6))
            .map(|_| GridPos::new(rng.below(grid.width()), rng.below(grid.height())))
            .collect();
        let avoided: Vec<(i64, i64)> = avoid.iter().map(|&p| xy(p)).collect();
        let options = SearchOptions::default();
        let oracle = model.dijkstra_avoiding(xy(start), xy(goal), &avoided);
        match pathfinder
            .find(&grid, &PathQuery::new(start, goal).with_options(options).avoiding(&avoid))
        {
            Ok(path) => {
                let best = oracle.expect("a path the oracle did not find");
                assert!((path.cost - best).abs() < 1e-9, "{coords:?} avoiding");
                for cell in path.cells.iter().skip(1).rev().skip(1) {
                    assert!(!avoid.contains(cell), "{coords:?}: went through avoided {cell}");
                }
            }
            Err(PathError::Unreachable { .. }) => assert!(oracle.is_none()),
            Err(PathError::StartBlocked { .. } | PathError::GoalBlocked { .. }) => {}
            Err(e) => panic!("{coords:?}: unexpected {e}"),
        }
        // A partial path ends on the reachable cell nearest the goal, legally.
        let partial = SearchOptions { partial: true, ..SearchOptions::default() };
        if let Ok(path) = pathfinder.find(&grid, &PathQuery::new(start, goal).with_options(partial))
        {
            let cells: Vec<(i64, i64)> = path.cells.iter().map(|&p| xy(p)).collect();
            assert!(model.path_cost(&cells).is_some(), "{coords:?}: illegal partial path");
            assert_eq!(path.complete, path.end() == goal);
            if !path.complete {
                assert!(model.dijkstra(xy(start), xy(goal)).is_none());
                let nearest = grid
                    .positions()
                    .filter(|&p| model.dijkstra(xy(start), xy(p)).is_some())
                    .map(|p| coords.distance(p, goal))
                    .min();
                assert_eq!(Some(coords.distance(path.end(), goal)), nearest);
            }
        }
        // A cost limit below the optimum fails with LimitExceeded, never a costlier path.
        if let Some(best) = model.dijkstra(xy(start), xy(goal)).filter(|&b| b >= 2.0) {
            let limit = SearchOptions {
                limit: SearchLimit { max_cost: Some(best - 1.0), ..SearchLimit::default() },
                ..SearchOptions::default()
            };
            assert!(matches!(
                pathfinder.find(&grid, &PathQuery::new(start, goal).with_options(limit)),
                Err(PathError::LimitExceeded { .. })
            ));
        }
    }
}

#[test]
fn hex_any_angle_paths_cross_only_open_hexagons() {
    let mut rng = Rng(29);
    let mut pathfinder = Pathfinder::new();
    let mut shortened = 0;
    for round in 0..1200 {
        let coords = HexCoords::ALL[round % 6];
        let (grid, model) = random_hex_grid(&mut rng, coords);
        let start = GridPos::new(rng.below(grid.width()), rng.below(grid.height()));
        let goal = GridPos::new(rng.below(grid.width()), rng.below(grid.height()));
        let Some(best) = model.dijkstra(xy(start), xy(goal)) else {
            continue;
        };
        let grid_path = pathfinder.find(&grid, &PathQuery::new(start, goal)).unwrap();
        // Smoothing: clear segments, never dearer than the grid path.
        let corners = smooth_path(&grid, &grid_path.cells);
        assert_eq!((corners[0], *corners.last().unwrap()), (start, goal));
        let cost = smoothed_cost(&grid, &corners).expect("every smoothed segment clear");
        assert!(cost <= best + 1e-9, "{coords:?}: smoothed {cost} > {best}");
        if cost < best - 1e-9 {
            shortened += 1;
        }
        // Theta*: every segment between its corners is clear.
        let theta = SearchOptions { algorithm: Algorithm::ThetaStar, ..SearchOptions::default() };
        let path =
            pathfinder.find(&grid, &PathQuery::new(start, goal).with_options(theta)).unwrap();
        assert_eq!((path.cells[0], path.end()), (start, goal));
        for cell in &path.cells {
            assert!(grid.is_passable(*cell), "{coords:?}: Theta* through a wall at {cell}");
        }
        assert!(path.cost <= best * 1.0 + 1e-9, "{coords:?}: Theta* {} > A* {best}", path.cost);
        for w in corners.windows(2) {
            let cells = segment_cells(&grid, w[0], w[1]).unwrap();
            assert!(cells.iter().all(|&c| grid.is_passable(c)));
        }
        // Waypoints (where the direction changes) are joined by clear straight lines, for the
        // grid path and the Theta* path alike.
        for found in [&grid_path, &path] {
            for w in found.waypoints().windows(2) {
                assert!(segment_cells(&grid, w[0], w[1]).is_some(), "{coords:?}: {w:?}");
            }
        }
    }
    assert!(shortened > 100, "smoothing shortened only {shortened} paths");
}

#[test]
fn hex_labels_follow_changes() {
    let mut rng = Rng(5);
    for round in 0..300 {
        let coords = HexCoords::ALL[round % 6];
        let (mut grid, _) = random_hex_grid(&mut rng, coords);
        let _ = grid.component(GridPos::new(0, 0)); // labels computed, then kept in step
        for _ in 0..40 {
            let pos = GridPos::new(rng.below(grid.width()), rng.below(grid.height()));
            let cell = if rng.chance(50) { Cell::Blocked } else { Cell::GROUND };
            grid.set(pos, cell).unwrap();
            let fresh = grid.clone().with_neighborhood(Neighborhood::Eight);
            let fresh = fresh.with_neighborhood(Neighborhood::Hex(coords));
            for a in grid.positions() {
                for b in [GridPos::new(0, 0), pos] {
                    assert_eq!(grid.connected(a, b), fresh.connected(a, b), "{coords:?}");
                }
            }
        }
    }
}

/// A random isometric staggered tile map (walls), as the oracle's model in tile coordinates
/// and as the sheared square grid the plugin holds: tile (x, y) is cell (x, x + y) of a grid
/// `w` wide and `w + h - 1` tall, the cells off the map walls.
fn random_staggered(rng: &mut Rng) -> (NavGrid, Model) {
    let (width, height) = (1 + rng.below(12), 1 + rng.below(12));
    let wall_percent = rng.below(40);
    let cells = random_cells(rng, width, height, wall_percent, false);
    let mut grid = NavGrid::filled(width, width + height - 1, Cell::Blocked).unwrap();
    for (y, row) in (0..).zip(&cells) {
        for (x, _) in (0..).zip(row).filter(|(_, cost)| cost.is_some()) {
            grid.set(GridPos::new(x, x + y), Cell::GROUND).unwrap();
        }
    }
    let model = Model { eight: true, staggered: true, ..Model::of(cells) };
    (grid, model)
}

#[test]
fn staggered_maps_match_dijkstra_oracle_on_their_tiles() {
    let mut rng = Rng(77);
    let mut pathfinder = Pathfinder::new();
    let (mut found, mut unreachable, mut jump_point) = (0, 0, 0);
    for _ in 0..3000 {
        let (grid, model) = random_staggered(&mut rng);
        let (w, h) = (model.width as u32, model.height as u32);
        let tile = |rng: &mut Rng| (i64::from(rng.below(w)), i64::from(rng.below(h)));
        let cell = |(x, y): (i64, i64)| GridPos::new(x as u32, (x + y) as u32);
        let untile = |p: GridPos| (i64::from(p.x), i64::from(p.y) - i64::from(p.x));
        jump_point += usize::from(bevy_tilemap_nav::search::jps_applies(&grid));
        for _ in 0..6 {
            let (a, b) = (tile(&mut rng), tile(&mut rng));
            let oracle = model.dijkstra(a, b);
            match pathfinder.find(&grid, &PathQuery::new(cell(a), cell(b))) {
                Ok(path) => {
                    let best = oracle.expect("a path the oracle did not find");
                    assert!((path.cost - best).abs() < 1e-9, "{} vs {best}", path.cost);
                    let tiles: Vec<(i64, i64)> = path.cells.iter().map(|&p| untile(p)).collect();
                    let walked = model.path_cost(&tiles).expect("every step a staggered step");
                    assert!((walked - path.cost).abs() < 1e-9);
                    found += 1;
                }
                Err(PathError::Unreachable { .. }) => {
                    assert!(oracle.is_none());
                    unreachable += 1;
                }
                Err(PathError::StartBlocked { .. } | PathError::GoalBlocked { .. }) => {
                    assert!(model.cost(a.0, a.1).is_none() || model.cost(b.0, b.1).is_none());
                }
                Err(e) => panic!("unexpected {e}"),
            }
        }
    }
    // The sheared grid keeps jump point search (one cost, 8-way, no corner cutting).
    assert_eq!(jump_point, 3000);
    assert!(found > 5000 && unreachable > 300, "found {found}, unreachable {unreachable}");
    assert_eq!(STAGGERED_STEPS.len(), 8);
}

/// Found by the fuzz target: in offset coordinates a straight run up a column zig-zags between
/// hexagons, so its waypoints must be read in axial coordinates (here the straight line from
/// (0, 0) to (0, 6) would run along the map's edge, outside it).
#[test]
fn hex_waypoints_follow_straight_lines_of_hexagons() {
    let grid = NavGrid::new(16, 8).unwrap().with_neighborhood(Neighborhood::Hex(HexCoords::RowOdd));
    let (start, goal) = (GridPos::new(0, 0), GridPos::new(0, 6));
    for algorithm in [Algorithm::AStar, Algorithm::ThetaStar] {
        let options = SearchOptions {
            algorithm,
            heuristic: Some(Heuristic::Octile),
            ..SearchOptions::default()
        };
        let path = Pathfinder::new()
            .find(&grid, &PathQuery::new(start, goal).with_options(options))
            .unwrap();
        let waypoints = path.waypoints();
        assert!(waypoints.len() >= 3, "{algorithm:?}: {waypoints:?}");
        for w in waypoints.windows(2) {
            assert!(segment_cells(&grid, w[0], w[1]).is_some(), "{algorithm:?}: {w:?}");
        }
    }
}

/// The hex distance never overestimates (it is at most the oracle's cost on an open grid of
/// cost 1, and equal there) and never drops by more than a step (consistent), from every cell
/// to every goal.
#[test]
fn hex_distance_is_admissible_and_consistent() {
    for coords in HexCoords::ALL {
        let grid = NavGrid::new(9, 8).unwrap().with_neighborhood(Neighborhood::Hex(coords));
        let cells = vec![vec![Some(1); 9]; 8];
        let model = Model { hex: Some(rule_of(coords)), ..Model::of(cells) };
        let h = |a: GridPos, b: GridPos| Heuristic::Hex.estimate(grid.neighborhood(), a, b);
        for goal in grid.positions() {
            for a in grid.positions() {
                assert_eq!(Some(h(a, goal)), model.dijkstra(xy(a), xy(goal)), "{coords:?}");
                for (b, step) in grid.neighbors(a) {
                    assert!(h(a, goal) <= step + h(b, goal), "{coords:?}: {a} {b} {goal}");
                }
            }
        }
    }
}

/// The search view works on hex grids: a recorded search answers as an unrecorded one and
/// records each expansion once, ending on the goal.
#[test]
fn hex_searches_can_be_watched() {
    let mut rng = Rng(91);
    let mut pathfinder = Pathfinder::new();
    for round in 0..300 {
        let coords = HexCoords::ALL[round % 6];
        let (grid, _) = random_hex_grid(&mut rng, coords);
        let start = GridPos::new(rng.below(grid.width()), rng.below(grid.height()));
        let goal = GridPos::new(rng.below(grid.width()), rng.below(grid.height()));
        let options = SearchOptions::default();
        let plain = pathfinder.find(&grid, &PathQuery::new(start, goal).with_options(options));
        let traced =
            pathfinder.find(&grid, &PathQuery::new(start, goal).with_options(options).traced());
        let trace = pathfinder.take_trace().unwrap();
        assert_eq!(plain, traced, "{coords:?}");
        if let Ok(path) = traced
            && start != goal
        {
            assert_eq!(trace.expanded.len(), path.stats.expanded as usize);
            let mut seen = trace.expanded.clone();
            seen.sort();
            seen.dedup();
            assert_eq!(seen.len(), trace.expanded.len(), "{coords:?}: a cell expanded twice");
            assert!(trace.opened.iter().any(|&(_, cell)| cell == goal));
        }
    }
}
