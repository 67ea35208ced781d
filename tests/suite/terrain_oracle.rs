//! Jump point search on terrain costs: on thousands of random grids with painted areas of
//! other costs (and some with a different cost on every cell), every path costs what an
//! independent Dijkstra oracle says, is legal, and stays so while walls and costs change
//! between queries (the bits that say where the cost changes are kept in step cell by cell).

use crate::support::{Model, Rng, cell_of, set_cells};
use bevy_tilemap_nav::io::movingai::paint_terrain;
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::Algorithm;

/// A random 8-way grid without corner cutting: walls, then rectangles painted with costs 1 to
/// 8 over a base cost (or, one grid in six, a random cost on every cell). Every fourth grid is
/// wider or taller than 64 cells, so that the 64-cell bit scans cross word boundaries.
fn terrain_grid(rng: &mut Rng, round: usize) -> (NavGrid, Vec<Vec<Option<u32>>>) {
    let (width, height) = match round % 4 {
        0 => (60 + rng.below(90), 1 + rng.below(14)),
        1 => (1 + rng.below(14), 60 + rng.below(90)),
        _ => (1 + rng.below(20), 1 + rng.below(20)),
    };
    let base = 1 + rng.below(3);
    let wall_percent = rng.below(35);
    let noisy = rng.chance(16);
    let mut cells = vec![vec![Some(base); width as usize]; height as usize];
    for row in cells.iter_mut() {
        for cell in row.iter_mut() {
            if rng.chance(wall_percent) {
                *cell = None;
            } else if noisy {
                *cell = Some(1 + rng.below(8));
            }
        }
    }
    // Few costs close together make many ties between paths, the hard case for pruning.
    let costs = if rng.chance(50) { 2 } else { 8 };
    for _ in 0..rng.below(8) {
        let (x0, y0) = (rng.below(width), rng.below(height));
        let (w, h) = (1 + rng.below(8), 1 + rng.below(8));
        let cost = 1 + rng.below(costs);
        for y in y0..(y0 + h).min(height) {
            for x in x0..(x0 + w).min(width) {
                let cell = &mut cells[y as usize][x as usize];
                if cell.is_some() {
                    *cell = Some(cost);
                }
            }
        }
    }
    let mut grid = NavGrid::new(width, height).unwrap();
    set_cells(&mut grid, &cells);
    (grid, cells)
}

fn model_of(cells: &[Vec<Option<u32>>]) -> Model {
    Model { eight: true, ..Model::of(cells.to_vec()) }
}

/// Checks one query by jump point search against the oracle: the same cost, a legal path
/// from start to goal that costs what it says. Returns whether a path exists.
fn check(
    pathfinder: &mut Pathfinder,
    grid: &NavGrid,
    model: &Model,
    (start, goal): (GridPos, GridPos),
    avoid: &[GridPos],
    round: usize,
) -> bool {
    let jps = SearchOptions { algorithm: Algorithm::JumpPoint, ..SearchOptions::default() };
    let at = |p: GridPos| (i64::from(p.x), i64::from(p.y));
    let avoided: Vec<(i64, i64)> = avoid.iter().map(|&p| at(p)).collect();
    let expected = model.dijkstra_avoiding(at(start), at(goal), &avoided);
    let got = pathfinder.find(grid, &PathQuery::new(start, goal).with_options(jps).avoiding(avoid));
    match (expected, got) {
        (Some(best), Ok(path)) => {
            assert!(
                (path.cost - best).abs() < 1e-6,
                "round {round}: {start:?} -> {goal:?}: {} vs {best}",
                path.cost
            );
            assert_eq!((path.cells[0], path.end()), (start, goal));
            let cells: Vec<(i64, i64)> = path.cells.iter().map(|&p| at(p)).collect();
            let walked = model
                .path_cost(&cells)
                .unwrap_or_else(|| panic!("round {round}: illegal path {cells:?}"));
            assert!((walked - path.cost).abs() < 1e-6, "round {round}");
            assert!(path.cells.iter().all(|c| !avoid.contains(c) || *c == start || *c == goal));
            true
        }
        (None, Err(_)) => false,
        (a, b) => panic!("round {round}: oracle {a:?}, jump point search {b:?}"),
    }
}

#[test]
fn jump_point_search_on_terrain_matches_dijkstra_oracle() {
    let mut rng = Rng(0x7e44a1);
    let mut pathfinder = Pathfinder::new();
    let (mut found, mut changed) = (0, 0);
    for round in 0..3000 {
        let (mut grid, mut cells) = terrain_grid(&mut rng, round);
        let (width, height) = (grid.width(), grid.height());
        let pick = |rng: &mut Rng| GridPos::new(rng.below(width), rng.below(height));
        for step in 0..8 {
            let model = model_of(&cells);
            for _ in 0..4 {
                let query = (pick(&mut rng), pick(&mut rng));
                found += usize::from(check(&mut pathfinder, &grid, &model, query, &[], round));
            }
            // Some queries with other characters in the way (avoided cells).
            let avoid: Vec<GridPos> = (0..rng.below(4)).map(|_| pick(&mut rng)).collect();
            let query = (pick(&mut rng), pick(&mut rng));
            found += usize::from(check(&mut pathfinder, &grid, &model, query, &avoid, round));
            // `Auto` agrees on the cost whichever search it picks.
            let (a, b) = (pick(&mut rng), pick(&mut rng));
            let auto = pathfinder.find(&grid, &PathQuery::new(a, b));
            let oracle = model.dijkstra((a.x.into(), a.y.into()), (b.x.into(), b.y.into()));
            assert_eq!(
                auto.as_ref().ok().map(|p| (p.cost * 1e6).round()),
                oracle.map(|c| (c * 1e6).round())
            );
            if step == 7 {
                break;
            }
            // Change the grid between queries: a cell, a rectangle, or a batch, to walls,
            // open ground or another cost; the bits follow each.
            let random_cell = |rng: &mut Rng| match rng.below(4) {
                0 => None,
                k => Some(k.min(2) + rng.below(3)),
            };
            match rng.below(3) {
                0 => {
                    let (p, cost) = (pick(&mut rng), random_cell(&mut rng));
                    grid.set(p, cell_of(cost)).unwrap();
                    cells[p.y as usize][p.x as usize] = cost;
                }
                1 => {
                    let (a, b) = (pick(&mut rng), pick(&mut rng));
                    let (min, max) = (
                        GridPos::new(a.x.min(b.x), a.y.min(b.y)),
                        GridPos::new(a.x.max(b.x), a.y.max(b.y)),
                    );
                    let cost = random_cell(&mut rng);
                    grid.fill_rect(min, max, cell_of(cost)).unwrap();
                    for y in min.y..=max.y {
                        for x in min.x..=max.x {
                            cells[y as usize][x as usize] = cost;
                        }
                    }
                }
                _ => {
                    let batch: Vec<(GridPos, Option<u32>)> = (0..1 + rng.below(12))
                        .map(|_| (pick(&mut rng), random_cell(&mut rng)))
                        .collect();
                    grid.set_all(batch.iter().map(|&(p, c)| (p, cell_of(c)))).unwrap();
                    for (p, cost) in batch {
                        cells[p.y as usize][p.x as usize] = cost;
                    }
                }
            }
            changed += 1;
        }
    }
    assert!(found > 40_000, "{found} paths");
    assert!(changed > 20_000);
}

/// The benchmark's weighted maps: a quarter of the open cells painted, costs 2 to 8, each map
/// the same for a seed; jump point search finds the oracle's cost on a painted room map.
#[test]
fn painted_benchmark_terrain_is_searched_optimally() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps/arena.map"))
            .expect("arena.map");
    let plain = bevy_tilemap_nav::io::movingai::parse_map(&text).unwrap();
    let grid = paint_terrain(&plain, 1);
    assert!(grid == paint_terrain(&plain, 1));
    assert!(grid != paint_terrain(&plain, 2));
    let open = plain.passable_count();
    let dear = grid.positions().filter(|&p| grid.cost(p).is_some_and(|c| c > 1)).count();
    assert_eq!(dear, open.div_ceil(4));
    assert_eq!((grid.min_cost(), grid.max_cost()), (Some(1), Some(8)));
    assert!(plain.positions().all(|p| plain.is_passable(p) == grid.is_passable(p)));
    let cells: Vec<Vec<Option<u32>>> = (0..grid.height())
        .map(|y| (0..grid.width()).map(|x| grid.cost(GridPos::new(x, y))).collect())
        .collect();
    let model = model_of(&cells);
    let mut rng = Rng(99);
    let mut pathfinder = Pathfinder::new();
    let (width, height) = (grid.width(), grid.height());
    let mut found = 0;
    for round in 0..300 {
        let query = (
            GridPos::new(rng.below(width), rng.below(height)),
            GridPos::new(rng.below(width), rng.below(height)),
        );
        found += usize::from(check(&mut pathfinder, &grid, &model, query, &[], round));
    }
    assert!(found > 100);
}
