//! Property tests for per-agent navigation, against oracles written here and in `support`
//! independently of the crate: on random grids with random terrain classes, random profiles
//! and random agent sizes,
//! - the derived grid is, cell by cell, the grid eroded for the size under the profile, and each
//!   clearance is the largest open square (brute force), also after random changes followed
//!   incrementally;
//! - paths cost what Dijkstra on the eroded grid says, and the body never overlaps a wall;
//! - reachable areas hold exactly the cells Dijkstra puts within the budget, at its costs;
//! - the nearest of several goals costs the least of Dijkstra's costs to each.

use crate::support::{HEX_RULES, Model, Rng};
use bevy_tilemap_nav::grid::{CornerRule, GridError, HexCoords, Neighborhood};
use bevy_tilemap_nav::grid::{MAX_AGENT_SIZE, NavProfile, Terrain, TerrainRule};
use bevy_tilemap_nav::path::reachable;
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::{AgentGrid, jps_applies};
use bevy_tilemap_nav::search::{Algorithm, PathError};

const CLASSES: u32 = 4;

/// A random grid: walls, costs and terrain classes; its rules (4-way, 8-way with either corner
/// rule, or a hex numbering) also drawn.
fn random_grid(rng: &mut Rng) -> NavGrid {
    let (width, height) = (1 + rng.below(14), 1 + rng.below(14));
    let mut grid = NavGrid::new(width, height).unwrap();
    let rule = rng.below(8);
    grid.set_neighborhood(match rule {
        0 | 1 => Neighborhood::Four,
        2..=5 => Neighborhood::Eight,
        _ => Neighborhood::Hex(HexCoords::ALL[rng.below(6) as usize]),
    });
    if (4..=5).contains(&rule) {
        grid.set_corner_rule(CornerRule::CutCorners);
    }
    let walls = rng.below(35);
    for pos in grid.positions().collect::<Vec<_>>() {
        grid.set(pos, random_cell(rng, walls)).unwrap();
        grid.set_terrain(pos, Terrain(rng.below(CLASSES) as u8)).unwrap();
    }
    grid
}

fn random_cell(rng: &mut Rng, walls: u32) -> Cell {
    if rng.chance(walls) {
        Cell::Blocked
    } else if rng.chance(50) {
        Cell::GROUND
    } else {
        Cell::Passable { cost: 1 + rng.below(5) }
    }
}

fn random_rule(rng: &mut Rng) -> TerrainRule {
    match rng.below(4) {
        0 | 1 => TerrainRule::AsGrid,
        2 => TerrainRule::Blocked,
        _ => TerrainRule::Cost(rng.below(6)), // 0 is read as 1
    }
}

fn random_profile(rng: &mut Rng) -> NavProfile {
    let mut profile = NavProfile::new().otherwise(random_rule(rng));
    for class in 0..CLASSES {
        if rng.chance(70) {
            profile = profile.with(Terrain(class as u8), random_rule(rng));
        }
    }
    profile
}

/// The cost (`None`: closed) of base cell (x, y) for `profile`, from first principles.
fn profiled(grid: &NavGrid, profile: &NavProfile, x: i64, y: i64) -> Option<u32> {
    if x < 0 || y < 0 || x >= i64::from(grid.width()) || y >= i64::from(grid.height()) {
        return None;
    }
    let pos = GridPos::new(x as u32, y as u32);
    let cost = grid.cost(pos);
    match profile.rule(grid.terrain(pos).unwrap()) {
        TerrainRule::AsGrid => cost,
        TerrainRule::Blocked => None,
        TerrainRule::Cost(c) => Some(c.max(1)),
    }
}

/// The grid eroded for `size` under `profile`: an anchor is open when all its body's cells are,
/// at the highest of their costs.
fn eroded(grid: &NavGrid, profile: &NavProfile, size: u32) -> Vec<Vec<Option<u32>>> {
    let k = i64::from(size);
    (0..i64::from(grid.height()))
        .map(|y| {
            (0..i64::from(grid.width()))
                .map(|x| {
                    let body = (0..k).flat_map(|dy| (0..k).map(move |dx| (x + dx, y + dy)));
                    body.map(|(bx, by)| profiled(grid, profile, bx, by))
                        .try_fold(0, |most, cost| cost.map(|c| most.max(c)))
                })
                .collect()
        })
        .collect()
}

/// The side of the largest open square with (x, y) as its lowest corner, capped.
fn brute_clearance(grid: &NavGrid, profile: &NavProfile, x: i64, y: i64) -> u32 {
    let open = |k: i64| {
        (0..k).all(|dy| (0..k).all(|dx| profiled(grid, profile, x + dx, y + dy).is_some()))
    };
    (1..=i64::from(MAX_AGENT_SIZE)).take_while(|&k| open(k)).count() as u32
}

fn model_of(grid: &NavGrid, cells: Vec<Vec<Option<u32>>>, size: u32) -> Model {
    let hex = match grid.neighborhood() {
        Neighborhood::Hex(coords) => {
            let k = HexCoords::ALL.iter().position(|&c| c == coords).unwrap();
            Some(HEX_RULES[k])
        }
        _ => None,
    };
    Model {
        eight: grid.neighborhood() == Neighborhood::Eight,
        cut_corners: grid.corner_rule() == CornerRule::CutCorners && size == 1,
        hex,
        ..Model::of(cells)
    }
}

fn random_size(rng: &mut Rng, grid: &NavGrid) -> u32 {
    if grid.neighborhood().is_hex() { 1 } else { 1 + rng.below(3) }
}

/// A random grid, profile and size, the agent's derived grid, and the oracle's model of the
/// grid eroded for it.
struct Case {
    base: NavGrid,
    profile: NavProfile,
    size: u32,
    agent: AgentGrid,
    model: Model,
}

fn random_case(rng: &mut Rng) -> Case {
    let base = random_grid(rng);
    let profile = random_profile(rng);
    let size = random_size(rng, &base);
    let agent = AgentGrid::new(&base, profile.clone(), size).unwrap();
    let model = model_of(&base, eroded(&base, &profile, size), size);
    Case { base, profile, size, agent, model }
}

/// Cells as the model's coordinates.
fn coords(cells: &[GridPos]) -> Vec<(i64, i64)> {
    cells.iter().map(|c| (i64::from(c.x), i64::from(c.y))).collect()
}

/// The derived grid matches the eroded grid and every clearance its brute force.
fn check_derived(agent: &AgentGrid, base: &NavGrid, context: &str) {
    let expected = eroded(base, agent.profile(), agent.size());
    for pos in base.positions() {
        let want = expected[pos.y as usize][pos.x as usize];
        let got = agent.grid().cost(pos);
        assert_eq!(got, want, "{context}: derived cell {pos}");
        let clearance = brute_clearance(base, agent.profile(), i64::from(pos.x), i64::from(pos.y));
        assert_eq!(agent.clearance(pos), Some(clearance), "{context}: clearance of {pos}");
    }
}

#[test]
fn derived_grids_are_the_eroded_profiled_grids_and_follow_changes() {
    let mut rng = Rng(0xA6E7);
    for round in 0..400 {
        let mut base = random_grid(&mut rng);
        let profile = random_profile(&mut rng);
        let size = random_size(&mut rng, &base);
        let mut agent = AgentGrid::new(&base, profile.clone(), size).unwrap();
        check_derived(&agent, &base, &format!("round {round}, new"));
        for batch in 0..4 {
            let changes = 1 + rng.below(6);
            for _ in 0..changes {
                let pos = GridPos::new(rng.below(base.width()), rng.below(base.height()));
                if rng.chance(50) {
                    base.set(pos, random_cell(&mut rng, 40)).unwrap();
                } else {
                    base.set_terrain(pos, Terrain(rng.below(CLASSES) as u8)).unwrap();
                }
            }
            agent.update(&base).unwrap();
            let context = format!("round {round}, batch {batch}");
            check_derived(&agent, &base, &context);
            // Followed change by change, it is the grid made afresh (labels included).
            let fresh = AgentGrid::new(&base, profile.clone(), size).unwrap();
            assert!(agent.grid() == fresh.grid(), "{context}: followed != fresh");
            for _ in 0..4 {
                let a = GridPos::new(rng.below(base.width()), rng.below(base.height()));
                let b = GridPos::new(rng.below(base.width()), rng.below(base.height()));
                assert_eq!(
                    agent.grid().connected(a, b),
                    fresh.grid().connected(a, b),
                    "{context}: labels of {a} {b}"
                );
            }
        }
    }
}

#[test]
fn paths_are_optimal_for_the_profile_and_size_and_the_body_stays_clear() {
    let mut rng = Rng(0x005E_ED18);
    let mut pathfinder = Pathfinder::new();
    let (mut found, mut refused) = (0, 0);
    for round in 0..1500 {
        let Case { base, profile, size, agent, model } = random_case(&mut rng);
        for _ in 0..6 {
            let start = GridPos::new(rng.below(base.width()), rng.below(base.height()));
            let goal = GridPos::new(rng.below(base.width()), rng.below(base.height()));
            let (s, g) =
                ((i64::from(start.x), i64::from(start.y)), (i64::from(goal.x), i64::from(goal.y)));
            let result = pathfinder.find(agent.grid(), &PathQuery::new(start, goal));
            let open = model.cost(s.0, s.1).is_some() && model.cost(g.0, g.1).is_some();
            match (result, open.then(|| model.dijkstra(s, g)).flatten()) {
                (Ok(path), Some(best)) => {
                    found += 1;
                    assert!(
                        (path.cost - best).abs() < 1e-9,
                        "round {round}: {} vs {best}",
                        path.cost
                    );
                    let cells = coords(&path.cells);
                    let walked = model.path_cost(&cells).expect("a legal path on the eroded grid");
                    assert!((walked - path.cost).abs() < 1e-9);
                    // Every tile the body covers at each step, and on each diagonal step the
                    // tiles it sweeps (the bodies at the two corners), is open for the profile
                    // (unless the grid lets a one-tile agent cut corners).
                    let k = i64::from(size);
                    let sweeps_clear = !base.neighborhood().is_hex()
                        && (size > 1 || base.corner_rule() == CornerRule::NoCornerCutting);
                    for pair in cells.windows(2) {
                        let ((ax, ay), (bx, by)) = (pair[0], pair[1]);
                        let xs = ax.min(bx)..ax.max(bx) + k;
                        for y in ay.min(by)..ay.max(by) + k {
                            for x in xs.clone() {
                                if sweeps_clear {
                                    assert!(
                                        profiled(&base, &profile, x, y).is_some(),
                                        "round {round}: body over a wall at ({x}, {y})"
                                    );
                                }
                            }
                        }
                    }
                }
                (Err(PathError::Unreachable { .. }), None) if open => refused += 1,
                (Err(PathError::StartBlocked { .. } | PathError::GoalBlocked { .. }), _)
                    if !open =>
                {
                    refused += 1
                }
                (other, best) => panic!("round {round}: {other:?} but the oracle says {best:?}"),
            }
        }
    }
    assert!(found > 1500 && refused > 1000, "found {found}, refused {refused}");
}

#[test]
fn reachable_areas_hold_exactly_the_cells_within_the_budget() {
    let mut rng = Rng(0x4EAC4);
    let mut cells_seen = 0;
    for round in 0..800 {
        let Case { base, agent, model, .. } = random_case(&mut rng);
        let start = GridPos::new(rng.below(base.width()), rng.below(base.height()));
        let budget = f64::from(rng.below(12)) + if rng.chance(30) { 0.5 } else { 0.0 };
        let Some(dist) = model.distances((i64::from(start.x), i64::from(start.y))) else {
            assert_eq!(
                reachable(agent.grid(), start, budget).unwrap_err(),
                PathError::StartBlocked { start }
            );
            continue;
        };
        let reach = reachable(agent.grid(), start, budget).unwrap();
        for pos in base.positions() {
            let d = dist[(pos.y * base.width() + pos.x) as usize];
            // Sums of the same steps taken in another order differ in the last bits only.
            let inside = d <= budget + 1e-9;
            match reach.cost(pos) {
                Some(cost) => {
                    assert!(inside, "round {round}: {pos} at {cost} is past the budget {budget}");
                    assert!((cost - d).abs() < 1e-9, "round {round}: {pos} costs {cost}, not {d}");
                    let path = reach.path_to(pos).unwrap();
                    let cells = coords(&path);
                    let walked = model.path_cost(&cells).unwrap();
                    assert!((walked - cost).abs() < 1e-9, "round {round}: path to {pos}");
                    cells_seen += 1;
                }
                None => assert!(d > budget - 1e-9, "round {round}: {pos} at {d} is missing"),
            }
        }
        assert_eq!(reach.cells()[0].pos, start);
        assert!(reach.cells().windows(2).all(|w| w[0].cost <= w[1].cost));
    }
    assert!(cells_seen > 2000, "{cells_seen}");
    let grid = NavGrid::new(3, 3).unwrap();
    let nan = reachable(&grid, GridPos::new(0, 0), f64::NAN).unwrap_err();
    assert!(matches!(nan, PathError::InvalidCostLimit { .. }));
    let off = reachable(&grid, GridPos::new(3, 0), 1.0).unwrap_err();
    assert!(matches!(off, PathError::StartOutOfBounds { .. }));
}

#[test]
fn the_nearest_goal_is_the_cheapest_to_reach() {
    let mut rng = Rng(0x0E4A);
    let mut pathfinder = Pathfinder::new();
    let (mut found, mut refused) = (0, 0);
    for round in 0..1500 {
        let Case { base, agent, model, .. } = random_case(&mut rng);
        let start = GridPos::new(rng.below(base.width()), rng.below(base.height()));
        // Sometimes more goals than the search guides itself by.
        let count = if rng.chance(10) { 40 } else { 1 + rng.below(5) };
        let goals: Vec<GridPos> = (0..count)
            .map(|_| GridPos::new(rng.below(base.width()), rng.below(base.height())))
            .collect();
        let result = pathfinder.find(agent.grid(), &PathQuery::nearest(start, &goals));
        let Some(dist) = model.distances((i64::from(start.x), i64::from(start.y))) else {
            assert_eq!(result.unwrap_err(), PathError::StartBlocked { start });
            continue;
        };
        let at = |g: GridPos| dist[(g.y * base.width() + g.x) as usize];
        let best = goals.iter().map(|&g| at(g)).fold(f64::INFINITY, f64::min);
        match result {
            Ok(path) => {
                found += 1;
                assert!((path.cost - best).abs() < 1e-9, "round {round}: {} vs {best}", path.cost);
                assert!(goals.contains(&path.end()));
                assert!((at(path.end()) - best).abs() < 1e-9);
                let cells = coords(&path.cells);
                assert!((model.path_cost(&cells).unwrap() - best).abs() < 1e-9);
                assert_eq!(path.cells[0], start);
            }
            Err(PathError::Unreachable { .. } | PathError::GoalBlocked { .. }) => {
                assert!(best.is_infinite(), "round {round}: no path, but one costs {best}");
                refused += 1;
            }
            Err(other) => panic!("round {round}: {other:?}"),
        }
    }
    assert!(found > 300 && refused > 100, "found {found}, refused {refused}");
    let grid = NavGrid::new(3, 3).unwrap();
    let none = pathfinder.find(&grid, &PathQuery::nearest(GridPos::new(0, 0), &[]));
    assert_eq!(none.unwrap_err(), PathError::NoGoals);
}

#[test]
fn unsupported_sizes_are_refused() {
    let grid = NavGrid::new(4, 4).unwrap();
    for size in [0, MAX_AGENT_SIZE + 1] {
        let error = AgentGrid::new(&grid, NavProfile::default(), size).unwrap_err();
        assert_eq!(error, GridError::UnsupportedSize { size });
    }
    let hex = NavGrid::new(4, 4).unwrap().with_neighborhood(Neighborhood::Hex(HexCoords::ALL[0]));
    assert!(AgentGrid::new(&hex, NavProfile::default(), 2).is_err());
    assert!(AgentGrid::new(&hex, NavProfile::default(), 1).is_ok());
}

#[test]
fn a_profile_that_changes_nothing_sees_the_grid_as_it_is() {
    let mut rng = Rng(7);
    for _ in 0..50 {
        let base = random_grid(&mut rng);
        let agent = AgentGrid::new(&base, NavProfile::default(), 1).unwrap();
        for pos in base.positions() {
            assert_eq!(agent.grid().get(pos), base.get(pos));
        }
        assert!(NavProfile::default().is_identity());
    }
}

/// Where a profile makes the grid uniform for an agent (a boat on water, on a map of mixed
/// land costs), jump point search runs on its grid, with A*'s costs.
#[test]
fn jump_point_search_runs_where_the_profile_makes_the_grid_uniform() {
    let mut rng = Rng(0x1A5);
    let water = Terrain(1);
    let sail = NavProfile::new().with(water, TerrainRule::Cost(1)).otherwise(TerrainRule::Blocked);
    let mut pathfinder = Pathfinder::new();
    let mut fewer = 0;
    for round in 0..20 {
        let mut base = NavGrid::new(64, 64).unwrap();
        for pos in base.positions().collect::<Vec<_>>() {
            // Land of costs 1 to 4; a lake of water (blocked for walkers) with islands.
            if pos.x > 4 && pos.y > 4 && !rng.chance(8) {
                base.set(pos, Cell::Blocked).unwrap();
                base.set_terrain(pos, water).unwrap();
            } else {
                base.set(pos, Cell::Passable { cost: 1 + rng.below(4) }).unwrap();
            }
        }
        assert!(!base.has_uniform_cost());
        let boat = AgentGrid::new(&base, sail.clone(), 1).unwrap();
        assert!(jps_applies(boat.grid()), "round {round}");
        assert!(boat.grid().has_uniform_cost(), "round {round}");
        for _ in 0..20 {
            let a = GridPos::new(5 + rng.below(59), 5 + rng.below(59));
            let b = GridPos::new(5 + rng.below(59), 5 + rng.below(59));
            let jump =
                SearchOptions { algorithm: Algorithm::JumpPoint, ..SearchOptions::default() };
            let plain = SearchOptions { algorithm: Algorithm::AStar, ..SearchOptions::default() };
            match (
                pathfinder.find(boat.grid(), &PathQuery::new(a, b).with_options(jump)),
                pathfinder.find(boat.grid(), &PathQuery::new(a, b).with_options(plain)),
            ) {
                (Ok(j), Ok(p)) => {
                    assert!((j.cost - p.cost).abs() < 1e-9);
                    fewer += usize::from(j.stats.expanded < p.stats.expanded);
                }
                (Err(j), Err(p)) => assert_eq!(j, p),
                (j, p) => panic!("round {round}: {j:?} vs {p:?}"),
            }
        }
    }
    assert!(fewer > 200, "{fewer}");
}
