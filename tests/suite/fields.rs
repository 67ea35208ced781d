//! Distance fields against an independent Dijkstra: every cell's cost to the nearest goal, the
//! way down being legal and costing that; repaired after random changes exactly as a rebuild
//! answers; fields built only as far as some cells need; and the "would these walls cut a spawn
//! off?" question against a rebuild with the walls in; flee fields against brute force.

use crate::support::{GridShape, Model, Rng, xy};
use bevy_tilemap_nav::grid::{Cell, GridPos, NavGrid};
use bevy_tilemap_nav::search::{DistanceField, MAX_FLEE_WEIGHT, PathError};

const SHAPE: GridShape = GridShape { min_side: 2, spread: 14, walls: 35, eight: 60, cut: 30 };

fn open_cell(rng: &mut Rng, grid: &NavGrid) -> Option<GridPos> {
    crate::support::open_cell(rng, grid, 60)
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
        let (grid, model) = crate::support::random_grid(&mut rng, &SHAPE);
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
        let (mut grid, base) = crate::support::random_grid(&mut rng, &SHAPE);
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
        let (grid, _) = crate::support::random_grid(&mut rng, &GridShape { walls: 25, ..SHAPE });
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

/// The flee field's value by brute force: for each cell `c`, the least over the cells `t` it
/// can walk to of the walk there plus `t`'s worth, `-weight` times `t`'s cost to the nearest
/// threat (0 where no threat can be reached).
fn flee_oracle(model: &Model, grid: &NavGrid, threats: &[GridPos], weight: f64) -> Vec<f64> {
    let w = grid.width() as usize;
    let cells: Vec<GridPos> = grid.positions().collect();
    let from: Vec<Option<Vec<f64>>> = cells.iter().map(|&c| model.distances(xy(c))).collect();
    let worth: Vec<f64> = from
        .iter()
        .map(|d| {
            let Some(d) = d else { return f64::INFINITY };
            let away = threats
                .iter()
                .map(|t| d[t.y as usize * w + t.x as usize])
                .fold(f64::INFINITY, f64::min);
            if away.is_finite() { -weight * away } else { 0.0 }
        })
        .collect();
    from.iter()
        .map(|d| match d {
            None => f64::INFINITY,
            Some(d) => d
                .iter()
                .zip(&worth)
                .filter(|(walk, _)| walk.is_finite())
                .map(|(walk, worth)| walk + worth)
                .fold(f64::INFINITY, f64::min),
        })
        .collect()
}

#[test]
fn a_flee_field_leads_every_cell_to_its_best_safe_spot_as_brute_force_finds() {
    let mut rng = Rng(0xF1EE);
    let mut checked = 0;
    for round in 0..150 {
        let (grid, model) = crate::support::random_grid(&mut rng, &SHAPE);
        let threats: Vec<GridPos> =
            (0..1 + rng.below(2)).filter_map(|_| open_cell(&mut rng, &grid)).collect();
        if threats.is_empty() {
            continue;
        }
        let weight = [1.0, 1.2, 2.5][rng.below(3) as usize];
        let field = DistanceField::fleeing(&grid, &threats, weight).unwrap();
        assert_eq!(field.flee_weight(), Some(weight));
        let oracle = flee_oracle(&model, &grid, &threats, weight);
        for (k, cell) in grid.positions().enumerate() {
            let what = format!("round {round}, weight {weight}, {cell:?}");
            let Some(cost) = field.cost(cell) else {
                assert!(oracle[k].is_infinite(), "{what}: no value, oracle {}", oracle[k]);
                continue;
            };
            assert!((cost - oracle[k]).abs() < 1e-6, "{what}: {cost} vs {}", oracle[k]);
            // Down the field to a safe spot: legal steps whose cost plus the spot's worth is
            // the value.
            let way = field.path_from(cell).expect("a way down");
            let end = *way.last().unwrap();
            assert!(field.is_end(end), "{what}: the way ends at {end:?}, not a safe spot");
            let steps: Vec<_> = way.iter().map(|&c| xy(c)).collect();
            let walked = model.path_cost(&steps).expect("legal steps");
            let worth = field.cost(end).unwrap();
            assert!((walked + worth - cost).abs() < 1e-6, "{what}: walks {walked} to {worth}");
            checked += 1;
        }
    }
    assert!(checked > 5000, "{checked} cells checked");
}

/// A corridor with a dead end at its left, two cells past a threat, and open ground 40 cells
/// to the right: with the usual weight the cornered character runs out past the threat; with a
/// weight of 1 (distance alone) it stays cornered. Walls move the field on (`update`).
#[test]
fn a_cornered_character_runs_past_the_threat_rather_than_cower() {
    let mut grid = NavGrid::new(60, 21).unwrap();
    for x in 0..60 {
        for y in 0..21 {
            if x < 20 && y != 10 {
                grid.set(GridPos::new(x, y), Cell::Blocked).unwrap();
            }
        }
    }
    let threat = GridPos::new(2, 10);
    let cornered = GridPos::new(0, 10);
    let usual =
        DistanceField::fleeing(&grid, &[threat], bevy_tilemap_nav::search::FLEE_WEIGHT).unwrap();
    assert_eq!(usual.next_step(cornered), Some(GridPos::new(1, 10)), "runs towards the way out");
    let end = *usual.path_from(cornered).unwrap().last().unwrap();
    assert!(end.x >= 40, "ends far out on open ground, at {end:?}");
    let timid = DistanceField::fleeing(&grid, &[threat], 1.0).unwrap();
    assert!(timid.is_end(cornered), "distance alone: stays in the dead end");
    // A character right of the threat runs right, away from it.
    assert_eq!(usual.next_step(GridPos::new(5, 10)), Some(GridPos::new(6, 10)));

    // The corridor walled shut at x = 10: the open ground is out of the threat's reach (safe
    // as it is), and the cornered character has nowhere better than where it stands.
    let mut field = usual.clone();
    grid.set(GridPos::new(10, 10), Cell::Blocked).unwrap();
    field.update(&grid, [GridPos::new(10, 10)]);
    assert!(field.is_current(&grid));
    assert!(field.is_end(GridPos::new(30, 10)), "out of the threat's reach: safe where it is");
    assert_eq!(field.cost(GridPos::new(30, 10)), Some(0.0));
    assert!(field.is_end(cornered), "walled in with the threat: it stays cornered");
    // The threat's own cell walled: no danger left, every open cell is safe.
    grid.set(threat, Cell::Blocked).unwrap();
    field.update(&grid, [threat]);
    assert_eq!(field.cost(GridPos::new(5, 10)), Some(0.0));
    assert!(field.is_end(cornered) && field.is_end(GridPos::new(30, 10)));
    assert_eq!(field.cost(threat), None);
}

#[test]
fn flee_fields_refuse_bad_threats_and_weights_with_typed_errors() {
    let grid = NavGrid::new(5, 5).unwrap();
    assert_eq!(DistanceField::fleeing(&grid, &[], 1.2).unwrap_err(), PathError::NoGoals);
    for weight in [0.0, -1.0, f64::NAN, f64::INFINITY, f64::MAX, MAX_FLEE_WEIGHT * 2.0] {
        let error = DistanceField::fleeing(&grid, &[GridPos::new(1, 1)], weight).unwrap_err();
        assert!(matches!(error, PathError::InvalidNumber { .. }), "{weight}: {error:?}");
    }
    // The largest weight taken still gives every cell a value and a way to a safe spot.
    let field = DistanceField::fleeing(&grid, &[GridPos::new(1, 1)], MAX_FLEE_WEIGHT).unwrap();
    assert!(grid.positions().all(|c| field.cost(c).is_some()));
    assert!(field.is_end(GridPos::new(4, 4)) && !field.is_end(GridPos::new(2, 2)));
    let off = DistanceField::fleeing(&grid, &[GridPos::new(9, 1)], 1.2).unwrap_err();
    assert!(matches!(off, PathError::GoalOutOfBounds { .. }), "{off:?}");
}

/// A field built a slice at a time is the field built in one go: every cell's cost and next
/// step, for whole fields and fields built for some cells; no step does more than it is given.
#[test]
fn a_field_built_in_slices_is_the_field_built_whole() {
    let mut rng = Rng(0x511CE);
    for round in 0..60 {
        let (grid, _) = crate::support::random_grid(&mut rng, &SHAPE);
        let goals: Vec<GridPos> =
            (0..1 + rng.below(3)).filter_map(|_| open_cell(&mut rng, &grid)).collect();
        if goals.is_empty() {
            continue;
        }
        let cover: Vec<GridPos> = match round % 2 {
            0 => Vec::new(),
            _ => (0..3).filter_map(|_| open_cell(&mut rng, &grid)).collect(),
        };
        let whole = if cover.is_empty() {
            DistanceField::new(&grid, &goals).unwrap()
        } else {
            DistanceField::covering(&grid, &goals, &cover).unwrap()
        };
        let mut build = DistanceField::build_in_slices(&grid, &goals, &cover);
        let budget = 600;
        let sliced = loop {
            let done = build.step(budget);
            assert!(build.last_step_work() <= budget, "round {round}: a step overran");
            if let Some(done) = done {
                break done.unwrap();
            }
            assert!(build.steps() < 10_000, "round {round}: never ends");
        };
        assert_eq!(sliced.limit(), whole.limit(), "round {round}");
        for cell in grid.positions() {
            assert_eq!(sliced.cost(cell), whole.cost(cell), "round {round}: {cell:?}");
            assert_eq!(sliced.next_step(cell), whole.next_step(cell), "round {round}: {cell:?}");
        }
        assert!(sliced.is_current(&grid));
    }
    // A large map takes several steps.
    let grid = NavGrid::new(200, 200).unwrap();
    let mut build = DistanceField::build_in_slices(&grid, &[GridPos::new(5, 5)], &[]);
    let mut steps = 1;
    while build.step(100_000).is_none() {
        steps += 1;
    }
    assert!(steps >= 4, "40,000 cells in {steps} steps of 100,000 units");
}
