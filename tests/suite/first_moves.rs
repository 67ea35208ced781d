//! First-move tables (`search::FirstMoveTable`): on random grids of every kind (terrain costs;
//! 8-way with either corner rule, 4-way, hex) every answer costs what the Dijkstra oracle says
//! and walks only legal steps; while cells change between queries, answers stay right (online
//! search until the table is refreshed); maps past the size limits are refused; baked tables
//! load back, and bad bytes are typed errors.

use crate::support::{HEX_RULES, Model, Rng, cell_of, random_cells, set_cells, xy};
use bevy_tilemap_nav::grid::{CornerRule, HexCoords, Neighborhood};
use bevy_tilemap_nav::io::baked::BakeError;
use bevy_tilemap_nav::io::movingai::{load_map, load_scenarios, paint_terrain};
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::{Algorithm, PathError};
use bevy_tilemap_nav::search::{
    FIRST_MOVE_FORMAT_VERSION, FirstMoveTable, FirstMoveTableError, MAX_FIRST_MOVE_CELLS,
    MAX_FIRST_MOVE_GRID,
};

/// A random grid with walls and costs 1 to 6, and the oracle's model of it: 8-way without and
/// with corner cutting, 4-way, then hex in each coordinate system, in turn.
fn random_grid(rng: &mut Rng, round: usize) -> (NavGrid, Model) {
    let (width, height) = (1 + rng.below(22), 1 + rng.below(22));
    let (wall_percent, varied_costs) = (rng.below(40), rng.chance(75));
    let cells = random_cells(rng, width, height, wall_percent, varied_costs);
    let mut grid = NavGrid::new(width, height).unwrap();
    let mut model = Model::of(cells.clone());
    match round % 9 {
        0 => model.eight = true,
        1 => {
            grid.set_corner_rule(CornerRule::CutCorners);
            (model.eight, model.cut_corners) = (true, true);
        }
        2 => grid = grid.with_neighborhood(Neighborhood::Four),
        k => {
            let coords = HexCoords::ALL[k - 3];
            grid = grid.with_neighborhood(Neighborhood::Hex(coords));
            model.hex = Some(HEX_RULES[k - 3]);
        }
    }
    set_cells(&mut grid, &cells);
    (grid, model)
}

/// Sets a cell or a rectangle to a wall, open ground or another cost, in the grid and the
/// model alike.
fn change(rng: &mut Rng, grid: &mut NavGrid, model: &mut Model) {
    let (width, height) = (grid.width(), grid.height());
    let (a, b) = (rng.below(width * height), rng.below(width * height));
    let (a, b) = (GridPos::new(a % width, a / width), GridPos::new(b % width, b / width));
    let b = if rng.chance(50) { a } else { b };
    let cost = if rng.chance(30) { None } else { Some(1 + rng.below(6)) };
    for y in a.y.min(b.y)..=a.y.max(b.y) {
        for x in a.x.min(b.x)..=a.x.max(b.x) {
            grid.set(GridPos::new(x, y), cell_of(cost)).unwrap();
            model.cells[y as usize][x as usize] = cost;
        }
    }
}

#[test]
fn answers_match_dijkstra_oracle_on_every_kind_of_grid_while_cells_change() {
    let mut rng = Rng(0xf1e5);
    let mut pathfinder = Pathfinder::new();
    let (mut from_table, mut online, mut refused) = (0, 0, 0);
    for round in 0..900 {
        let (mut grid, mut model) = random_grid(&mut rng, round);
        let mut table = FirstMoveTable::build(&grid).unwrap();
        let (width, height) = (grid.width(), grid.height());
        for step in 0..5 {
            let current = table.is_current(&grid);
            for _ in 0..12 {
                let pick = |rng: &mut Rng| GridPos::new(rng.below(width), rng.below(height));
                let (start, goal) = (pick(&mut rng), pick(&mut rng));
                let expected = model.dijkstra(xy(start), xy(goal));
                match (
                    expected,
                    pathfinder.find(&grid, &PathQuery::new(start, goal).with_help(&table)),
                ) {
                    (Some(best), Ok(path)) => {
                        assert!(
                            (path.cost - best).abs() < 1e-6,
                            "round {round} step {step}: {start:?} -> {goal:?}: {} vs {best}",
                            path.cost
                        );
                        assert_eq!((path.cells[0], path.end()), (start, goal));
                        let cells: Vec<(i64, i64)> = path.cells.iter().map(|&p| xy(p)).collect();
                        let walked = model.path_cost(&cells).expect("a legal path");
                        assert!((walked - path.cost).abs() < 1e-6, "round {round}");
                        if current {
                            from_table += 1;
                        } else {
                            online += 1;
                        }
                    }
                    (None, Err(_)) => refused += 1,
                    (a, b) => panic!("round {round} step {step}: oracle {a:?}, table {b:?}"),
                }
            }
            change(&mut rng, &mut grid, &mut model);
            // Refreshed half the time; otherwise answers come from online search.
            if rng.chance(50) {
                table.refresh(&grid).unwrap();
                assert!(table.is_current(&grid));
            }
        }
    }
    assert!(from_table > 15_000 && online > 5_000, "{from_table} from the table, {online} online");
    assert!(refused > 2_000, "{refused}");
}

/// The table's answers have the errors online search gives: out of bounds, blocked ends,
/// no way across. A start that is its own goal is the one-cell path.
#[test]
fn bad_queries_get_the_online_search_errors() {
    let mut grid = NavGrid::new(10, 6).unwrap();
    grid.fill_rect(GridPos::new(5, 0), GridPos::new(5, 5), Cell::Blocked).unwrap();
    let table = FirstMoveTable::build(&grid).unwrap();
    let mut pathfinder = Pathfinder::new();
    let (left, right) = (GridPos::new(0, 0), GridPos::new(9, 5));
    let mut ask =
        |start, goal| pathfinder.find(&grid, &PathQuery::new(start, goal).with_help(&table));
    assert_eq!(ask(left, right).unwrap_err(), PathError::Unreachable { start: left, goal: right });
    let wall = GridPos::new(5, 2);
    assert!(matches!(ask(left, wall), Err(PathError::GoalBlocked { .. })));
    assert!(matches!(ask(wall, left), Err(PathError::StartBlocked { .. })));
    let outside = GridPos::new(10, 0);
    assert!(matches!(ask(left, outside), Err(PathError::GoalOutOfBounds { .. })));
    assert_eq!(ask(left, left).unwrap().cells, vec![left]);
    let path = ask(left, GridPos::new(4, 5)).unwrap();
    assert!((path.cost - (1.0 + 4.0 * std::f64::consts::SQRT_2)).abs() < 1e-9);
}

#[test]
fn maps_past_the_limit_are_refused() {
    let side = (MAX_FIRST_MOVE_CELLS as f64).sqrt() as u32 + 1;
    let grid = NavGrid::new(side, side).unwrap();
    let found = grid.passable_count();
    let error = FirstMoveTable::build(&grid).unwrap_err();
    assert_eq!(error, FirstMoveTableError::TooManyCells { found, limit: MAX_FIRST_MOVE_CELLS });
    assert!(error.to_string().contains("passable cells"));
    // Walls do not count.
    let mut walled = grid.clone();
    walled.fill_rect(GridPos::new(0, 0), GridPos::new(side - 1, 1), Cell::Blocked).unwrap();
    assert!(FirstMoveTable::build(&walled).is_ok());
    // Nor may the grid be huge round a few open cells.
    let mut huge = NavGrid::filled(300, 300, Cell::Blocked).unwrap();
    huge.set(GridPos::new(1, 1), Cell::GROUND).unwrap();
    let error = FirstMoveTable::build(&huge).unwrap_err();
    assert_eq!(
        error,
        FirstMoveTableError::GridTooLarge { cells: 90_000, limit: MAX_FIRST_MOVE_GRID }
    );
}

/// On the painted small benchmark map every scenario's answer costs what plain A* finds, and
/// the runs keep the table far smaller than a step for every pair of cells would be.
#[test]
fn painted_arena_scenarios_cost_what_astar_finds() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps");
    let grid = paint_terrain(&load_map(format!("{dir}/arena.map")).unwrap(), 1);
    let table = FirstMoveTable::build(&grid).unwrap();
    let open = grid.passable_count();
    // A quarter of a table of 4 bits for every pair of open cells, at most.
    assert!(table.memory_bytes() * 4 < open * open / 2, "{} bytes", table.memory_bytes());
    let mut pathfinder = Pathfinder::new();
    let astar = SearchOptions { algorithm: Algorithm::AStar, ..SearchOptions::default() };
    let scenarios = load_scenarios(format!("{dir}/arena.map.scen")).unwrap();
    for s in &scenarios {
        let expected =
            pathfinder.find(&grid, &PathQuery::new(s.start, s.goal).with_options(astar)).unwrap();
        let path =
            pathfinder.find(&grid, &PathQuery::new(s.start, s.goal).with_help(&table)).unwrap();
        assert!((path.cost - expected.cost).abs() < 1e-6, "{:?} -> {:?}", s.start, s.goal);
        assert_eq!(path.stats.expanded, 0, "answered without a search");
    }
}

/// A table baked to bytes loads back for its grid and answers as the built one does (from the
/// table: no search); damaged, truncated, newer or other-grid bytes are typed errors.
#[test]
fn baked_tables_load_and_bad_bytes_are_errors() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps");
    let mut grid = paint_terrain(&load_map(format!("{dir}/arena.map")).unwrap(), 1);
    let table = FirstMoveTable::build(&grid).unwrap();
    let bytes = table.to_binary();
    let loaded = FirstMoveTable::from_binary(&bytes, &grid).unwrap();
    assert!(loaded.is_current(&grid));
    assert_eq!(loaded.memory_bytes(), table.memory_bytes());
    let mut pathfinder = Pathfinder::new();
    let open: Vec<GridPos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
    let mut rng = Rng(0xf1b5);
    for _ in 0..500 {
        let pick = |rng: &mut Rng| open[rng.below(open.len() as u32) as usize];
        let (a, b) = (pick(&mut rng), pick(&mut rng));
        let path = pathfinder.find(&grid, &PathQuery::new(a, b).with_help(&loaded));
        assert_eq!(path, pathfinder.find(&grid, &PathQuery::new(a, b).with_help(&table)));
        if a != b {
            assert_eq!(path.unwrap().stats.expanded, 0, "from the loaded table");
        }
    }
    // Every truncation, and a flipped byte anywhere, is an error.
    for len in (0..bytes.len()).step_by(97) {
        assert!(FirstMoveTable::from_binary(&bytes[..len], &grid).is_err(), "{len}");
    }
    for at in (0..bytes.len()).step_by(101) {
        let mut bad = bytes.clone();
        bad[at] ^= 0x20;
        assert!(FirstMoveTable::from_binary(&bad, &grid).is_err(), "{at}");
    }
    let mut future = bytes.clone();
    future[4..8].copy_from_slice(&(FIRST_MOVE_FORMAT_VERSION + 1).to_le_bytes());
    assert!(matches!(
        FirstMoveTable::from_binary(&future, &grid),
        Err(BakeError::FutureVersion { .. })
    ));
    assert_eq!(FirstMoveTable::from_binary(b"TNPT....", &grid).err(), Some(BakeError::NotBaked));
    // Other moves on the same cells: other first steps, so not this table's grid.
    let mut four_way = grid.clone();
    four_way.set_neighborhood(Neighborhood::Four);
    assert_eq!(FirstMoveTable::from_binary(&bytes, &four_way).err(), Some(BakeError::OtherGrid));
    let mut cutting = grid.clone();
    cutting.set_corner_rule(CornerRule::CutCorners);
    assert_eq!(FirstMoveTable::from_binary(&bytes, &cutting).err(), Some(BakeError::OtherGrid));
    // The grid changed since: the table is not for it any more.
    let wall = open[open.len() / 2];
    grid.set(wall, Cell::Blocked).unwrap();
    assert_eq!(FirstMoveTable::from_binary(&bytes, &grid).err(), Some(BakeError::OtherGrid));
    let small = NavGrid::new(5, 5).unwrap();
    assert!(matches!(
        FirstMoveTable::from_binary(&bytes, &small),
        Err(BakeError::SizeMismatch { .. })
    ));
}

/// Baked tables of hex grids load back and answer as built.
#[test]
fn baked_hex_tables_answer_as_built() {
    let mut rng = Rng(0x4e8);
    for round in 3..9 {
        let (grid, _) = random_grid(&mut rng, round);
        assert!(grid.neighborhood().is_hex());
        let table = FirstMoveTable::build(&grid).unwrap();
        let loaded = FirstMoveTable::from_binary(&table.to_binary(), &grid).unwrap();
        let mut pathfinder = Pathfinder::new();
        for a in grid.positions() {
            for b in grid.positions() {
                assert_eq!(
                    pathfinder.find(&grid, &PathQuery::new(a, b).with_help(&loaded)),
                    pathfinder.find(&grid, &PathQuery::new(a, b).with_help(&table))
                );
            }
        }
    }
}
