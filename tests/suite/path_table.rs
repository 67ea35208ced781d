//! The precomputed [`PathTable`]: on thousands of random grids (rooms, pillars, noise, open
//! ground) every answer costs what an independent Dijkstra oracle says and is a legal path; and
//! while the grid changes between queries, answers stay right (online search until the table is
//! refreshed, the table's own after).

use crate::support::{Model, Rng};
use bevy_tilemap_nav::grid::Neighborhood;
use bevy_tilemap_nav::io::baked::BakeError;
use bevy_tilemap_nav::io::movingai::load_map;
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::PathError;
use bevy_tilemap_nav::search::{MAX_SUBGOALS, PathTable, PathTableError, TABLE_FORMAT_VERSION};

/// A random grid of one cost: walls at a random density, some wall rectangles (rooms and
/// pillars), every fourth grid over 64 cells on a side.
fn random_grid(rng: &mut Rng, round: usize) -> Vec<Vec<Option<u32>>> {
    let (width, height) = match round % 4 {
        0 => (40 + rng.below(60), 1 + rng.below(30)),
        1 => (1 + rng.below(30), 40 + rng.below(60)),
        _ => (1 + rng.below(24), 1 + rng.below(24)),
    };
    let wall_percent = rng.below(30);
    let mut cells = vec![vec![Some(1); width as usize]; height as usize];
    for row in cells.iter_mut() {
        for cell in row.iter_mut() {
            if rng.chance(wall_percent) {
                *cell = None;
            }
        }
    }
    for _ in 0..rng.below(6) {
        let (x0, y0) = (rng.below(width), rng.below(height));
        let (w, h) = (1 + rng.below(10), 1 + rng.below(10));
        for y in y0..(y0 + h).min(height) {
            for x in x0..(x0 + w).min(width) {
                cells[y as usize][x as usize] = None;
            }
        }
    }
    cells
}

fn grid_of(cells: &[Vec<Option<u32>>], cost: u32) -> NavGrid {
    let mut grid = NavGrid::new(cells[0].len() as u32, cells.len() as u32).unwrap();
    let all = grid.positions().collect::<Vec<_>>();
    grid.set_all(all.into_iter().map(|p| {
        let open = cells[p.y as usize][p.x as usize].is_some();
        (p, if open { Cell::Passable { cost } } else { Cell::Blocked })
    }))
    .unwrap();
    grid
}

/// One query through the table against the oracle: same cost, a legal path from start to goal
/// that costs what it says; no path exactly when the oracle finds none.
fn check(
    table: &PathTable,
    pathfinder: &mut Pathfinder,
    grid: &NavGrid,
    model: &Model,
    (start, goal): (GridPos, GridPos),
) -> bool {
    let at = |p: GridPos| (i64::from(p.x), i64::from(p.y));
    match (
        model.dijkstra(at(start), at(goal)),
        pathfinder.find(grid, &PathQuery::new(start, goal).with_help(table)),
    ) {
        (Some(best), Ok(path)) => {
            assert!(
                (path.cost - best).abs() < 1e-6,
                "{start:?} -> {goal:?}: {} vs {best}",
                path.cost
            );
            assert_eq!((path.cells[0], path.end()), (start, goal));
            let cells: Vec<(i64, i64)> = path.cells.iter().map(|&p| at(p)).collect();
            let walked = model.path_cost(&cells).unwrap_or_else(|| panic!("illegal {cells:?}"));
            assert!((walked - path.cost).abs() < 1e-6);
            true
        }
        (None, Err(_)) => false,
        (a, b) => panic!("{start:?} -> {goal:?}: oracle {a:?}, table {b:?}"),
    }
}

#[test]
fn table_answers_match_dijkstra_oracle() {
    let mut rng = Rng(0x7ab1e);
    let mut pathfinder = Pathfinder::new();
    let (mut found, mut unreachable, mut subgoals) = (0, 0, 0);
    for round in 0..1500 {
        let cells = random_grid(&mut rng, round);
        let cost = 1 + rng.below(3);
        let grid = grid_of(&cells, cost);
        let model = Model {
            eight: true,
            ..Model::of(cells.iter().map(|r| r.iter().map(|c| c.map(|_| cost)).collect()).collect())
        };
        let table = PathTable::build(&grid).unwrap();
        assert!(table.is_current(&grid));
        subgoals += table.subgoal_count();
        let (w, h) = (grid.width(), grid.height());
        for _ in 0..12 {
            let query = (
                GridPos::new(rng.below(w), rng.below(h)),
                GridPos::new(rng.below(w), rng.below(h)),
            );
            if check(&table, &mut pathfinder, &grid, &model, query) {
                found += 1;
            } else {
                unreachable += 1;
            }
        }
    }
    assert!(found > 7000 && unreachable > 1000, "found {found}, unreachable {unreachable}");
    assert!(subgoals > 30_000, "{subgoals}");
}

/// Changes between queries: answers are right at once (online search while the table is
/// stale), and right again from the table after `refresh`.
#[test]
fn answers_stay_right_while_the_grid_changes() {
    let mut rng = Rng(0xc4a5e);
    let mut pathfinder = Pathfinder::new();
    let (mut stale_answers, mut table_answers) = (0, 0);
    for round in 0..300 {
        let mut cells = random_grid(&mut rng, round);
        let mut grid = grid_of(&cells, 1);
        let mut table = PathTable::build(&grid).unwrap();
        let (w, h) = (grid.width(), grid.height());
        let pick = |rng: &mut Rng| GridPos::new(rng.below(w), rng.below(h));
        for _ in 0..10 {
            let model = Model { eight: true, ..Model::of(cells.clone()) };
            for _ in 0..4 {
                let query = (pick(&mut rng), pick(&mut rng));
                check(&table, &mut pathfinder, &grid, &model, query);
                if table.is_current(&grid) {
                    table_answers += 1;
                } else {
                    stale_answers += 1;
                }
            }
            // A wall goes up or comes down; half the time the table is refreshed at once.
            let p = pick(&mut rng);
            let open = rng.chance(50);
            grid.set(p, if open { Cell::Passable { cost: 1 } } else { Cell::Blocked }).unwrap();
            cells[p.y as usize][p.x as usize] = open.then_some(1);
            if rng.chance(50) {
                table.refresh(&grid).unwrap();
                assert!(table.is_current(&grid));
            }
        }
    }
    assert!(stale_answers > 2000 && table_answers > 5000, "{stale_answers}, {table_answers}");
}

#[test]
fn errors_are_typed() {
    let mut grid = NavGrid::new(8, 8).unwrap();
    grid.fill_rect(GridPos::new(3, 0), GridPos::new(3, 7), Cell::Blocked).unwrap();
    let table = PathTable::build(&grid).unwrap();
    let mut pathfinder = Pathfinder::new();
    let (a, b) = (GridPos::new(0, 0), GridPos::new(7, 7));
    assert_eq!(
        pathfinder.find(&grid, &PathQuery::new(a, b).with_help(&table)),
        Err(PathError::Unreachable { start: a, goal: b })
    );
    assert!(matches!(
        pathfinder.find(&grid, &PathQuery::new(a, GridPos::new(3, 3)).with_help(&table)),
        Err(PathError::GoalBlocked { .. })
    ));
    assert!(matches!(
        pathfinder.find(&grid, &PathQuery::new(GridPos::new(9, 0), a).with_help(&table)),
        Err(PathError::StartOutOfBounds { .. })
    ));
    // Grids the table cannot serve say why.
    let mut mud = NavGrid::new(4, 4).unwrap();
    mud.set(GridPos::new(1, 1), Cell::Passable { cost: 3 }).unwrap();
    assert!(matches!(PathTable::build(&mud), Err(PathTableError::Unsupported(_))));
    let four = NavGrid::new(4, 4).unwrap().with_neighborhood(Neighborhood::Four);
    assert!(matches!(PathTable::build(&four), Err(PathTableError::Unsupported(_))));
    // A checkerboard is all corners.
    let mut noise = NavGrid::new(120, 120).unwrap();
    for pos in noise.positions().collect::<Vec<_>>() {
        if pos.x % 2 == 0 && pos.y % 2 == 0 {
            noise.set(pos, Cell::Blocked).unwrap();
        }
    }
    assert!(matches!(
        PathTable::build(&noise),
        Err(PathTableError::TooManySubgoals { limit: MAX_SUBGOALS, .. })
    ));
}

/// The public maps: every scenario's answer from the table costs the published optimum.
#[test]
fn public_maps_published_optima() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps");
    let mut pathfinder = Pathfinder::new();
    for name in ["arena", "arena2", "lak304d", "64room_000"] {
        let grid = load_map(format!("{dir}/{name}.map")).unwrap();
        let scenarios =
            bevy_tilemap_nav::io::movingai::load_scenarios(format!("{dir}/{name}.map.scen"))
                .unwrap();
        let table = PathTable::build(&grid).unwrap();
        for s in &scenarios {
            let path =
                pathfinder.find(&grid, &PathQuery::new(s.start, s.goal).with_help(&table)).unwrap();
            assert!(
                (path.cost - s.optimal_length).abs() < 0.01,
                "{name}: {} vs {}",
                path.cost,
                s.optimal_length
            );
            assert_eq!(path.stats.expanded, 0, "{name}: answered from the table");
        }
    }
}

/// Baked: a table written with the grid loads back and answers the same; damaged bytes, bytes
/// of another format version, or a table made for another grid (or this one before a change)
/// give typed errors, never a panic.
#[test]
fn baked_tables_load_and_bad_bytes_are_errors() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps");
    let mut grid = load_map(format!("{dir}/arena.map")).unwrap();
    let table = PathTable::build(&grid).unwrap();
    let bytes = table.to_binary();
    let loaded = PathTable::from_binary(&bytes, &grid).unwrap();
    assert!(loaded.is_current(&grid));
    assert_eq!(loaded.memory_bytes(), table.memory_bytes());
    let mut pathfinder = Pathfinder::new();
    let open: Vec<GridPos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
    let mut rng = Rng(0xba4e);
    for _ in 0..500 {
        let (a, b) = (
            open[rng.below(open.len() as u32) as usize],
            open[rng.below(open.len() as u32) as usize],
        );
        assert_eq!(
            pathfinder.find(&grid, &PathQuery::new(a, b).with_help(&loaded)),
            pathfinder.find(&grid, &PathQuery::new(a, b).with_help(&table))
        );
    }
    // Every truncation, and a flipped byte anywhere, is an error.
    for len in (0..bytes.len()).step_by(7) {
        assert!(PathTable::from_binary(&bytes[..len], &grid).is_err(), "{len}");
    }
    for at in (0..bytes.len()).step_by(13) {
        let mut bad = bytes.clone();
        bad[at] ^= 0x20;
        assert!(PathTable::from_binary(&bad, &grid).is_err(), "{at}");
    }
    let mut future = bytes.clone();
    future[4..8].copy_from_slice(&(TABLE_FORMAT_VERSION + 1).to_le_bytes());
    assert!(matches!(PathTable::from_binary(&future, &grid), Err(BakeError::FutureVersion { .. })));
    // The grid changed since: the table is not for it any more.
    let wall = open[open.len() / 2];
    grid.set(wall, Cell::Blocked).unwrap();
    assert_eq!(PathTable::from_binary(&bytes, &grid).err(), Some(BakeError::OtherGrid));
    let small = NavGrid::new(5, 5).unwrap();
    assert!(matches!(PathTable::from_binary(&bytes, &small), Err(BakeError::SizeMismatch { .. })));
}
