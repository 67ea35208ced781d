//! Smoothed paths stay legal, keep their ends and never cost more than the grid path; terrain
//! costs steer paths (roads taken when cheaper, ignored when not).

use crate::support::Rng;
use bevy_tilemap_nav::grid::CornerRule;
use bevy_tilemap_nav::path::{smooth_path, smoothed_cost};
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::{Algorithm, Heuristic, PathResult};

/// Independent check: walk the segment between two cell centres in small steps and look at the
/// cell under each sample (cell (x, y) spans x - 1/2 .. x + 1/2).
fn segment_clear(grid: &NavGrid, a: GridPos, b: GridPos) -> bool {
    let (ax, ay, bx, by) = (f64::from(a.x), f64::from(a.y), f64::from(b.x), f64::from(b.y));
    let samples = (((bx - ax).abs() + (by - ay).abs()) * 97.0).ceil().max(1.0) as usize;
    (0..=samples).all(|i| {
        let t = i as f64 / samples as f64;
        let (px, py) = (ax + t * (bx - ax), ay + t * (by - ay));
        // Skip samples on a cell border (the corner rule governs those).
        let near_border = |v: f64| ((v + 0.5) - (v + 0.5).round()).abs() < 1e-9;
        if near_border(px) || near_border(py) {
            return true;
        }
        grid.is_passable(GridPos::new(px.round() as u32, py.round() as u32))
    })
}

#[test]
fn smoothed_paths_are_clear_keep_their_ends_and_cost_no_more() {
    let mut rng = Rng(11);
    let mut pathfinder = Pathfinder::new();
    let mut shortened = 0;
    for round in 0..1500 {
        let (width, height) = (2 + rng.below(20), 2 + rng.below(20));
        let mut grid = NavGrid::new(width, height).unwrap().with_corner_rule(if round % 2 == 0 {
            CornerRule::NoCornerCutting
        } else {
            CornerRule::CutCorners
        });
        let walls = rng.below(35);
        let mud = rng.chance(50);
        for pos in grid.positions().collect::<Vec<_>>() {
            if rng.chance(walls) {
                grid.set(pos, Cell::Blocked).unwrap();
            } else if mud && rng.chance(25) {
                grid.set(pos, Cell::Passable { cost: 2 + rng.below(6) }).unwrap();
            }
        }
        let start = GridPos::new(rng.below(width), rng.below(height));
        let goal = GridPos::new(rng.below(width), rng.below(height));
        let Ok(path) = pathfinder.find(&grid, &PathQuery::new(start, goal)) else {
            continue;
        };
        let corners = smooth_path(&grid, &path.cells);
        assert_eq!(corners.first(), Some(&start), "round {round}");
        assert_eq!(corners.last(), Some(&goal), "round {round}");
        for w in corners.windows(2) {
            assert!(segment_clear(&grid, w[0], w[1]), "round {round}: {w:?} clips a wall");
        }
        let cost = smoothed_cost(&grid, &corners).expect("every segment clear");
        assert!(cost <= path.cost + 1e-6, "round {round}: smoothed {cost} > grid {}", path.cost);
        if corners.len() < path.waypoints().len() {
            shortened += 1;
        }
    }
    assert!(shortened > 100, "smoothing should often remove turns: {shortened}");
}

#[test]
fn open_floor_route_becomes_one_segment_and_mud_is_not_cut_across() {
    let mut grid = NavGrid::new(12, 7).unwrap();
    let (start, goal) = (GridPos::new(0, 0), GridPos::new(11, 6));
    let path = Pathfinder::new().find(&grid, &PathQuery::new(start, goal)).unwrap();
    assert!(path.waypoints().len() >= 3);
    assert_eq!(smooth_path(&grid, &path.cells), vec![start, goal]);

    // A mud patch on the straight line: the grid path goes round it, and so must the smoothed
    // one (a straight line through costs more than the way round).
    grid.fill_rect(GridPos::new(4, 2), GridPos::new(7, 4), Cell::Passable { cost: 9 }).unwrap();
    let path = Pathfinder::new().find(&grid, &PathQuery::new(start, goal)).unwrap();
    let corners = smooth_path(&grid, &path.cells);
    assert!(corners.len() > 2);
    assert!(smoothed_cost(&grid, &corners).unwrap() <= path.cost + 1e-9);
}

#[test]
fn roads_are_taken_when_cheaper_and_ignored_when_not() {
    // Ordinary ground costs 3, the road (row 0) costs 1. Going from (0, 2) to (20, 2): walking
    // down to the road, along it and back up is cheaper than 20 steps of ground.
    let mut grid = NavGrid::filled(21, 5, Cell::Passable { cost: 3 }).unwrap();
    grid.fill_rect(GridPos::new(0, 0), GridPos::new(20, 0), Cell::GROUND).unwrap();
    let on_road = |path: &PathResult| path.cells.iter().filter(|c| c.y == 0).count();
    let mut pathfinder = Pathfinder::new();
    let o = SearchOptions::default();
    let long = pathfinder
        .find(&grid, &PathQuery::new(GridPos::new(0, 2), GridPos::new(20, 2)).with_options(o))
        .unwrap();
    assert!(on_road(&long) >= 15, "{:?}", long.cells);
    // The heuristic is scaled by the cheapest cost (the road's), so the result is optimal:
    // Dijkstra agrees.
    let dijkstra = SearchOptions { heuristic: Some(Heuristic::Zero), ..o };
    let exact = pathfinder.find(
        &grid,
        &PathQuery::new(GridPos::new(0, 2), GridPos::new(20, 2)).with_options(dijkstra),
    );
    assert!((exact.unwrap().cost - long.cost).abs() < 1e-9);
    // A short trip far from the road ignores it.
    let short = pathfinder
        .find(&grid, &PathQuery::new(GridPos::new(5, 4), GridPos::new(8, 4)).with_options(o))
        .unwrap();
    assert_eq!(on_road(&short), 0);
}

#[test]
fn theta_star_paths_are_clear_and_no_costlier_than_grid_optimum() {
    let mut rng = Rng(21);
    let mut pathfinder = Pathfinder::new();
    let theta = SearchOptions { algorithm: Algorithm::ThetaStar, ..SearchOptions::default() };
    let mut found = 0;
    for round in 0..1500 {
        let (width, height) = (2 + rng.below(20), 2 + rng.below(20));
        let mut grid = NavGrid::new(width, height).unwrap();
        let walls = rng.below(35);
        for pos in grid.positions().collect::<Vec<_>>() {
            if rng.chance(walls) {
                grid.set(pos, Cell::Blocked).unwrap();
            } else if rng.chance(15) {
                grid.set(pos, Cell::Passable { cost: 2 + rng.below(4) }).unwrap();
            }
        }
        let start = GridPos::new(rng.below(width), rng.below(height));
        let goal = GridPos::new(rng.below(width), rng.below(height));
        let grid_optimum = pathfinder.find(&grid, &PathQuery::new(start, goal));
        let any_angle = pathfinder.find(&grid, &PathQuery::new(start, goal).with_options(theta));
        match (grid_optimum, any_angle) {
            (Ok(best), Ok(path)) => {
                found += 1;
                assert_eq!((path.cells[0], path.end()), (start, goal), "round {round}");
                let corners = path.waypoints();
                for w in corners.windows(2) {
                    assert!(segment_clear(&grid, w[0], w[1]), "round {round}: {w:?}");
                }
                // Consecutive cells touch (straight or diagonal), all passable.
                for w in path.cells.windows(2) {
                    assert!(w[0].x.abs_diff(w[1].x) <= 1 && w[0].y.abs_diff(w[1].y) <= 1);
                    assert!(grid.is_passable(w[1]), "round {round}");
                }
                assert!(
                    path.cost <= best.cost + 1e-6,
                    "round {round}: {} > {}",
                    path.cost,
                    best.cost
                );
            }
            (Err(_), Err(_)) => {}
            (a, b) => panic!("round {round}: grid {a:?}, theta {b:?}"),
        }
    }
    assert!(found > 500);
    // Open floor: one straight segment, priced at its Euclidean length.
    let grid = NavGrid::new(12, 7).unwrap();
    let path = pathfinder
        .find(&grid, &PathQuery::new(GridPos::new(0, 0), GridPos::new(11, 4)).with_options(theta))
        .unwrap();
    assert!((path.cost - (11f64 * 11.0 + 16.0).sqrt()).abs() < 1e-9);
}
