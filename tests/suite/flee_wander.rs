//! Fleeing and wandering in the core, against an independent Dijkstra: a flight ends within its
//! budget, on a cell at least `keep` times as far from the nearest threat as the farthest cell
//! within the budget, by a cheapest legal path, and prefers open ground to a dead end; a wander
//! ends on a random cell within its budget, by a cheapest legal path, the same for the same seed,
//! and reaches every cell in range over many seeds.

use crate::support::{GridShape, Model, Rng, xy};
use bevy_tilemap_nav::grid::{Cell, GridPos, NavGrid, Neighborhood};
use bevy_tilemap_nav::path::{
    FleeOptions, flee, flee_avoiding, reachable, wander, wander_avoiding,
};
use bevy_tilemap_nav::search::PathError;

fn random_grid(rng: &mut Rng) -> (NavGrid, Model) {
    crate::support::random_grid(
        rng,
        &GridShape { min_side: 2, spread: 22, walls: 35, eight: 60, cut: 30 },
    )
}

fn open_cell(rng: &mut Rng, grid: &NavGrid) -> Option<GridPos> {
    crate::support::open_cell(rng, grid, 50)
}

fn index(model: &Model, p: GridPos) -> usize {
    p.y as usize * model.width as usize + p.x as usize
}

#[test]
fn flight_ends_far_from_every_threat_within_its_budget_by_a_cheapest_path() {
    let mut rng = Rng(0xF1EE);
    let (mut fled, mut stayed) = (0, 0);
    for round in 0..800 {
        let (grid, model) = random_grid(&mut rng);
        let Some(start) = open_cell(&mut rng, &grid) else { continue };
        let threats: Vec<GridPos> =
            (0..1 + rng.below(3)).filter_map(|_| open_cell(&mut rng, &grid)).collect();
        let budget = f64::from(1 + rng.below(14));
        let mut options = FleeOptions::new(budget);
        if rng.chance(30) {
            options.keep = [0.5, 1.0][rng.below(2) as usize];
        }
        let run = flee(&grid, start, &threats, options).unwrap();
        let from_start = model.distances(xy(start)).unwrap();
        let away: Vec<f64> = {
            let each: Vec<Vec<f64>> =
                threats.iter().map(|&t| model.distances(xy(t)).unwrap()).collect();
            (0..from_start.len())
                .map(|k| each.iter().map(|d| d[k]).fold(f64::MAX, f64::min))
                .collect()
        };
        let cells: Vec<(i64, i64)> = run.cells.iter().map(|&p| xy(p)).collect();
        let walked = model.path_cost(&cells).expect("legal steps");
        assert!((walked - run.cost).abs() < 1e-9, "round {round}: cost {walked} vs {}", run.cost);
        assert_eq!(run.cells[0], start);
        let end = run.end();
        assert!(run.cost <= budget + 1e-9, "round {round}: over the budget");
        assert!((from_start[index(&model, end)] - run.cost).abs() < 1e-9, "not a cheapest path");
        let in_range = (0..from_start.len())
            .filter(|&k| from_start[k] <= budget + 1e-9 && away[k].is_finite());
        let best = in_range.map(|k| away[k]).fold(f64::MIN, f64::max);
        if !away[index(&model, start)].is_finite() {
            // No threat can reach the agent: it is safe where it is.
            assert_eq!(run.cells, vec![start], "round {round}");
            stayed += 1;
            continue;
        }
        let got = away[index(&model, end)];
        assert!(
            got >= options.keep * best - 1e-9,
            "round {round}: ends {got} from the threats, the best in range is {best}"
        );
        if end != start {
            fled += 1;
        }
    }
    assert!(fled > 300, "fled {fled}, stayed {stayed}");
}

/// Rows from the top: `.` floor, `#` wall, `T` the threat, `A` the agent.
fn grid_of(rows: &[&str]) -> (NavGrid, GridPos, GridPos) {
    let height = rows.len() as u32;
    let mut grid = NavGrid::new(rows[0].len() as u32, height).unwrap();
    grid.set_neighborhood(Neighborhood::Four);
    let (mut agent, mut threat) = (GridPos::new(0, 0), GridPos::new(0, 0));
    for (r, row) in rows.iter().enumerate() {
        for (x, c) in row.chars().enumerate() {
            let p = GridPos::new(x as u32, height - 1 - r as u32);
            if c == '#' {
                grid.set(p, Cell::Blocked).unwrap();
            }
            if c == 'A' {
                agent = p;
            }
            if c == 'T' {
                threat = p;
            }
        }
    }
    (grid, agent, threat)
}

#[test]
fn flight_runs_into_open_ground_not_into_an_equally_far_dead_end() {
    // Within a budget of 12 the agent can reach the end of the pocket going up (16 from the
    // threat) or the room to the right (as far): only the room leads on.
    let rows = [
        "############################################",
        "############################################",
        "##########.#################################",
        "##########.#################################",
        "##########.#################################",
        "##########.#################################",
        "##########.#................................",
        "##########.#................................",
        "T...A.......................................",
        "###########.................................",
        "###########.................................",
        "############################################",
    ];
    let (grid, agent, threat) = grid_of(&rows);
    let run = flee(&grid, agent, &[threat], FleeOptions::new(12.0)).unwrap();
    assert!(run.end().x > 10, "into the room, not up the pocket: {:?}", run.end());
    let away = reachable(&grid, threat, f64::INFINITY).unwrap();
    let pocket_end = GridPos::new(10, 9);
    assert_eq!(away.cost(pocket_end), Some(16.0));
    assert!(away.cost(run.end()).unwrap() >= 0.8 * 16.0);
    // Told to keep the farthest distance whatever the ground, it may take either.
    let farthest = FleeOptions { keep: 1.0, ..FleeOptions::new(12.0) };
    let run = flee(&grid, agent, &[threat], farthest).unwrap();
    assert_eq!(away.cost(run.end()), Some(16.0));
}

#[test]
fn bad_flights_and_wanders_get_typed_errors() {
    let grid = NavGrid::new(5, 5).unwrap();
    let (inside, outside) = (GridPos::new(2, 2), GridPos::new(9, 9));
    let options = FleeOptions::new(3.0);
    assert!(matches!(
        flee(&grid, outside, &[inside], options),
        Err(PathError::StartOutOfBounds { .. })
    ));
    assert!(matches!(
        flee(&grid, inside, &[inside], FleeOptions::new(f64::NAN)),
        Err(PathError::InvalidCostLimit { .. })
    ));
    // Options that cannot give an answer are refused, named, before the grid is looked at
    // (a keep of NaN answered a stay-put path of cost 0).
    let threat = [GridPos::new(1, 2)];
    for (keep, lure, what) in [
        (f64::NAN, 1.5, "keep"),
        (1.5, 1.5, "keep"),
        (-0.1, 1.5, "keep"),
        (0.8, f64::NAN, "lure"),
        (0.8, 0.0, "lure"),
        (0.8, f64::MAX, "lure"),
        (0.8, f64::INFINITY, "lure"),
    ] {
        let bad = FleeOptions { keep, lure, ..options };
        let error = flee(&grid, inside, &threat, bad).unwrap_err();
        assert!(
            matches!(error, PathError::InvalidNumber { what: w, .. } if w == what),
            "{error:?}"
        );
        assert_eq!(format!("{:?}", bad.check()), format!("{:?}", Err::<(), _>(error)));
    }
    assert!(options.check().is_ok() && FleeOptions::new(f64::INFINITY).check().is_ok());
    // Threats off the grid are left out: with none left, it stays.
    assert_eq!(flee(&grid, inside, &[outside], options).unwrap().cells, vec![inside]);
    assert_eq!(flee(&grid, inside, &[], options).unwrap().cells, vec![inside]);
    assert!(matches!(wander(&grid, outside, 3.0, 1), Err(PathError::StartOutOfBounds { .. })));
    assert!(matches!(wander(&grid, inside, -1.0, 1), Err(PathError::InvalidCostLimit { .. })));
    let mut walled = grid.clone();
    walled.set(inside, Cell::Blocked).unwrap();
    assert!(matches!(wander(&walled, inside, 3.0, 1), Err(PathError::StartBlocked { .. })));
}

#[test]
fn wander_ends_on_a_random_cell_in_range_by_a_cheapest_path() {
    let mut rng = Rng(0x3A4D);
    for round in 0..600 {
        let (grid, model) = random_grid(&mut rng);
        let Some(start) = open_cell(&mut rng, &grid) else { continue };
        let budget = f64::from(rng.below(10));
        let seed = rng.next_u64();
        let walk = wander(&grid, start, budget, seed).unwrap();
        assert_eq!(wander(&grid, start, budget, seed).unwrap(), walk, "seeded");
        let cells: Vec<(i64, i64)> = walk.cells.iter().map(|&p| xy(p)).collect();
        let walked = model.path_cost(&cells).expect("legal steps");
        assert!((walked - walk.cost).abs() < 1e-9, "round {round}");
        let from_start = model.distances(xy(start)).unwrap();
        assert!((from_start[index(&model, walk.end())] - walk.cost).abs() < 1e-9);
        assert!(walk.cost <= budget + 1e-9);
        let others = from_start.iter().filter(|&&d| d > 0.0 && d <= budget + 1e-9).count();
        assert_eq!(
            walk.end() == start,
            others == 0,
            "round {round}: stays only with nowhere to go"
        );
    }
    // Over many seeds every cell in range is picked, none out of it.
    let grid = NavGrid::new(9, 9).unwrap().with_neighborhood(Neighborhood::Four);
    let centre = GridPos::new(4, 4);
    let mut seen = std::collections::HashSet::new();
    for seed in 0..3000 {
        seen.insert(wander(&grid, centre, 2.0, seed).unwrap().end());
    }
    assert_eq!(seen.len(), 12, "the 12 cells within two steps");
    assert!(!seen.contains(&centre));
}

/// `model` with the cells of `avoid` (but `keep`) walled, as the `_avoiding` variants see it.
fn walled(model: &Model, avoid: &[GridPos], keep: GridPos) -> Model {
    let mut cells = model.cells.clone();
    for &c in avoid.iter().filter(|&&c| c != keep) {
        cells[c.y as usize][c.x as usize] = None;
    }
    Model { cells, ..*model }
}

#[test]
fn flights_and_wanders_round_avoided_cells_answer_as_on_the_grid_with_them_walled() {
    let mut rng = Rng(0xAB0D);
    let mut moved = 0;
    for round in 0..500 {
        let (grid, model) = random_grid(&mut rng);
        let Some(start) = open_cell(&mut rng, &grid) else { continue };
        let avoid: Vec<GridPos> =
            (0..rng.below(8)).filter_map(|_| open_cell(&mut rng, &grid)).collect();
        let fenced = walled(&model, &avoid, start);
        let from_start = fenced.distances(xy(start)).unwrap();
        let budget = f64::from(1 + rng.below(10));
        let check = |run: &bevy_tilemap_nav::search::PathResult| {
            let cells: Vec<(i64, i64)> = run.cells.iter().map(|&p| xy(p)).collect();
            let walked = fenced.path_cost(&cells).expect("legal with the avoided cells walled");
            assert!((walked - run.cost).abs() < 1e-9, "round {round}");
            assert!(
                (from_start[index(&fenced, run.end())] - run.cost).abs() < 1e-9,
                "round {round}"
            );
            assert!(run.cost <= budget + 1e-9);
        };
        let walk = wander_avoiding(&grid, start, budget, rng.next_u64(), &avoid).unwrap();
        check(&walk);
        let threat = open_cell(&mut rng, &grid).into_iter().collect::<Vec<_>>();
        let run = flee_avoiding(&grid, start, &threat, FleeOptions::new(budget), &avoid).unwrap();
        check(&run);
        moved += usize::from(walk.end() != start) + usize::from(run.end() != start);
    }
    assert!(moved > 400, "{moved}");
}
