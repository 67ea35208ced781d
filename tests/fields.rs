//! Distance fields against an independent Dijkstra: every cell's cost to the nearest goal, the
//! way down being legal and costing that; repaired after random changes exactly as a rebuild
//! answers; fields built only as far as some cells need; and the "would these walls cut a spawn
//! off?" question against a rebuild with the walls in.

mod common;

use bevy_tilemap_nav::grid::{Cell, GridPos, NavGrid};
use bevy_tilemap_nav::search::{DistanceField, PathError};
use common::{GridShape, Model, Rng, xy};

const SHAPE: GridShape = GridShape { min_side: 2, spread: 14, walls: 35, eight: 60, cut: 30 };

fn open_cell(rng: &mut Rng, grid: &NavGrid) -> Option<GridPos> {
    common::open_cell(rng, grid, 60)
}

fn model_of(grid: &NavGrid, base: &Model) -> Model {
    let cells = (0..grid.height())
        .map(|y| (0..grid.width()).map(|x| grid.cost(GridPos::new(x, y))).collect())
        .collect();
    Model { cells, ..*base }
}

/// Checks `field` against the oracle on `grid`: each cell's cost, and its way down.
fn check(field: &DistanceField, grid: &NavGrid, model: &Model, goals: &[GridPos], what: &str) {
    for y in 0..grid.height() {
        for x in 0..grid.width() {
            let cell = GridPos::new(x, y);
            let best = goals
                .iter()
                .filter_map(|&g| model.dijkstra(xy(cell), xy(g)))
                .fold(f64::INFINITY, f64::min);
            match field.cost(cell) {
                Some(cost) => {
                    assert!((cost - best).abs() < 1e-9, "{what}: {cell:?} {cost} vs {best}");
                    let way = field.path_from(cell).expect("a way down");
                    let steps: Vec<_> = way.iter().map(|&c| xy(c)).collect();
                    let walked = model.path_cost(&steps).expect("legal steps");
                    assert!((walked - cost).abs() < 1e-9, "{what}: {cell:?} walks {walked}");
                    assert!(goals.contains(way.last().unwrap()));
                }
                None => assert!(best.is_infinite(), "{what}: {cell:?} can reach a goal ({best})"),
            }
        }
    }
}

#[test]
fn every_cell_knows_its_cost_to_the_nearest_goal_and_the_way_down() {
    let mut rng = Rng(0xF1E1D);
    for round in 0..250 {
        let (grid, model) = common::random_grid(&mut rng, &SHAPE);
        let goals: Vec<GridPos> =
            (0..1 + rng.below(3)).filter_map(|_| open_cell(&mut rng, &grid)).collect();
        if goals.is_empty() {
            continue;
        }
        let field = DistanceField::new(&grid, &goals).unwrap();
        check(&field, &grid, &model, &goals, &format!("round {round}"));
        assert!(field.is_current(&grid));
    }
}

#[test]
fn repaired_fields_answer_as_rebuilt_ones_after_random_changes() {
    let mut rng = Rng(0x2E9A);
    let mut repaired = 0usize;
    let mut cells_total = 0usize;
    for round in 0..120 {
        let (mut grid, base) = common::random_grid(&mut rng, &SHAPE);
        let goals: Vec<GridPos> =
            (0..1 + rng.below(3)).filter_map(|_| open_cell(&mut rng, &grid)).collect();
        if goals.is_empty() {
            continue;
        }
        let mut field = DistanceField::new(&grid, &goals).unwrap();
        for batch in 0..15 {
            let mut changed = Vec::new();
            for _ in 0..1 + rng.below(5) {
                let cell = GridPos::new(rng.below(grid.width()), rng.below(grid.height()));
                if goals.contains(&cell) {
                    continue;
                }
                let now = match rng.below(3) {
                    0 => Cell::Blocked,
                    1 => Cell::Passable { cost: 1 },
                    _ => Cell::Passable { cost: 1 + rng.below(6) },
                };
                grid.set(cell, now).unwrap();
                changed.push(cell);
            }
            repaired += field.update(&grid, changed);
            cells_total += (grid.width() * grid.height()) as usize;
            let rebuilt = DistanceField::new(&grid, &goals).unwrap();
            let model = model_of(&grid, &base);
            for y in 0..grid.height() {
                for x in 0..grid.width() {
                    let c = GridPos::new(x, y);
                    let (a, b) = (field.cost(c), rebuilt.cost(c));
                    let same = match (a, b) {
                        (Some(a), Some(b)) => (a - b).abs() < 1e-9,
                        (None, None) => true,
                        _ => false,
                    };
                    assert!(
                        same,
                        "round {round} batch {batch}: {c:?} repaired {a:?}, rebuilt {b:?}"
                    );
                }
            }
            if batch % 5 == 4 {
                check(&field, &grid, &model, &goals, &format!("round {round} batch {batch}"));
            }
            assert!(field.is_current(&grid));
        }
    }
    // Repairs settle a part of the map, not all of it.
    assert!(repaired * 2 < cells_total, "{repaired} of {cells_total}");
}

#[test]
fn a_field_built_for_some_cells_reaches_them_and_stops() {
    let mut grid = NavGrid::new(200, 200).unwrap();
    for y in 20..180 {
        grid.set(GridPos::new(100, y), Cell::Blocked).unwrap();
    }
    let goal = GridPos::new(10, 10);
    let whole = DistanceField::new(&grid, &[goal]).unwrap();
    let agents = [GridPos::new(30, 12), GridPos::new(15, 40), GridPos::new(5, 5)];
    let near = DistanceField::covering(&grid, &[goal], &agents).unwrap();
    for a in agents {
        assert_eq!(near.cost(a), whole.cost(a));
        assert_eq!(near.path_from(a).map(|p| p.len()), whole.path_from(a).map(|p| p.len()));
    }
    let known = (0..200).flat_map(|y| (0..200).map(move |x| GridPos::new(x, y)));
    let known = known.filter(|&c| near.cost(c).is_some()).count();
    assert!(known < 200 * 200 / 8, "{known} cells settled for three agents near the goal");
    assert!(near.limit() < whole.limit());
    // Within a cost.
    let within = DistanceField::within(&grid, &[goal], 20.0).unwrap();
    assert_eq!(within.cost(GridPos::new(30, 10)), Some(20.0));
    assert_eq!(within.cost(GridPos::new(31, 10)), None);
    assert!(matches!(
        DistanceField::within(&grid, &[goal], f64::NAN),
        Err(PathError::InvalidCostLimit { .. })
    ));
}

#[test]
fn bad_goals_get_typed_errors() {
    let mut grid = NavGrid::new(5, 5).unwrap();
    grid.set(GridPos::new(2, 2), Cell::Blocked).unwrap();
    assert_eq!(DistanceField::new(&grid, &[]), Err(PathError::NoGoals));
    assert!(matches!(
        DistanceField::new(&grid, &[GridPos::new(9, 0)]),
        Err(PathError::GoalOutOfBounds { .. })
    ));
    assert!(matches!(
        DistanceField::new(&grid, &[GridPos::new(2, 2)]),
        Err(PathError::GoalBlocked { .. })
    ));
    // A goal walled later: left out, the field rebuilt from the others (none: reaches nothing).
    let goal = GridPos::new(0, 0);
    let mut field = DistanceField::new(&grid, &[goal]).unwrap();
    grid.set(goal, Cell::Blocked).unwrap();
    field.update(&grid, [goal]);
    assert_eq!(field.cost(GridPos::new(4, 4)), None);
    assert!(field.goals().is_empty());
}

#[test]
fn would_these_walls_cut_a_spawn_off_answers_as_a_rebuild_with_them_in() {
    let mut rng = Rng(0xC07);
    let (mut yes, mut no, mut at_once) = (0, 0, 0);
    for round in 0..400 {
        let (grid, _) = common::random_grid(&mut rng, &GridShape { walls: 25, ..SHAPE });
        let (Some(goal), Some(spawn)) = (open_cell(&mut rng, &grid), open_cell(&mut rng, &grid))
        else {
            continue;
        };
        let field = DistanceField::new(&grid, &[goal]).unwrap();
        if field.cost(spawn).is_none() {
            continue;
        }
        let towers: Vec<GridPos> =
            (0..1 + rng.below(6)).filter_map(|_| open_cell(&mut rng, &grid)).collect();
        let cut = field.cuts_off(&grid, &towers, &[spawn]);
        let mut walled = grid.clone();
        for &t in &towers {
            walled.set(t, Cell::Blocked).unwrap();
        }
        let oracle = towers.contains(&goal)
            || towers.contains(&spawn)
            || DistanceField::new(&walled, &[goal]).unwrap().cost(spawn).is_none();
        assert_eq!(cut, oracle, "round {round}: {towers:?}");
        let way = field.path_from(spawn).unwrap();
        at_once += usize::from(!towers.iter().any(|t| way.contains(t)));
        if cut { yes += 1 } else { no += 1 }
    }
    assert!(yes > 20 && no > 100 && at_once > 50, "cut {yes}, not {no}, at once {at_once}");
}
