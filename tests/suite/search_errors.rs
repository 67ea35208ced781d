//! Every way a query can fail gives its own typed error, and the options that bound or bend a
//! search do what they say.

use crate::support::Rng;
use bevy_tilemap_nav::grid::{CornerRule, GridError, Neighborhood};
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::{Algorithm, PathError, PathResult, SearchLimit};

/// 7 x 5, a wall down column 3 from row 0 to row 3: the only way across is through (3, 4).
fn walled() -> NavGrid {
    let mut grid = NavGrid::new(7, 5).unwrap();
    grid.fill_rect(GridPos::new(3, 0), GridPos::new(3, 3), Cell::Blocked).unwrap();
    grid
}

fn find(
    grid: &NavGrid,
    start: (u32, u32),
    goal: (u32, u32),
    options: SearchOptions,
) -> Result<PathResult, PathError> {
    Pathfinder::new().find(grid, &PathQuery::new(start.into(), goal.into()).with_options(options))
}

#[test]
fn out_of_bounds_and_blocked_ends() {
    let grid = walled();
    let o = SearchOptions::default();
    assert_eq!(
        find(&grid, (7, 0), (0, 0), o),
        Err(PathError::StartOutOfBounds { start: GridPos::new(7, 0), width: 7, height: 5 })
    );
    assert_eq!(
        find(&grid, (0, 0), (0, u32::MAX), o),
        Err(PathError::GoalOutOfBounds { goal: GridPos::new(0, u32::MAX), width: 7, height: 5 })
    );
    assert_eq!(
        find(&grid, (3, 0), (0, 0), o),
        Err(PathError::StartBlocked { start: GridPos::new(3, 0) })
    );
    assert_eq!(
        find(&grid, (0, 0), (3, 1), o),
        Err(PathError::GoalBlocked { goal: GridPos::new(3, 1) })
    );
}

#[test]
fn unreachable_goal_is_reported_without_a_search() {
    let mut grid = walled();
    grid.set(GridPos::new(3, 4), Cell::Blocked).unwrap();
    let err = find(&grid, (0, 0), (6, 0), SearchOptions::default()).unwrap_err();
    assert_eq!(err, PathError::Unreachable { start: GridPos::new(0, 0), goal: GridPos::new(6, 0) });
    // Reopening the gap makes it reachable again: the labels follow the change.
    grid.set(GridPos::new(3, 4), Cell::GROUND).unwrap();
    assert!(find(&grid, (0, 0), (6, 0), SearchOptions::default()).is_ok());
}

#[test]
fn start_equals_goal_is_a_one_cell_path() {
    let path = find(&walled(), (1, 1), (1, 1), SearchOptions::default()).unwrap();
    assert_eq!(path.cells, vec![GridPos::new(1, 1)]);
    assert_eq!(path.cost, 0.0);
    assert!(path.complete);
}

#[test]
fn expansion_limit() {
    let grid = walled();
    let limited = |n: u32| SearchOptions {
        limit: SearchLimit { max_expansions: Some(n), max_cost: None },
        ..SearchOptions::default()
    };
    // The path takes some expansions; a cap one below that stops the search there, and a cap
    // of exactly that many lets it through.
    let needed = find(&grid, (0, 0), (6, 0), SearchOptions::default()).unwrap().stats.expanded;
    assert!(needed >= 2, "the wall should take more than one expansion to get round");
    assert_eq!(
        find(&grid, (0, 0), (6, 0), limited(needed - 1)),
        Err(PathError::LimitExceeded { expanded: needed - 1 })
    );
    assert!(find(&grid, (0, 0), (6, 0), limited(needed)).is_ok());
    assert_eq!(
        find(&grid, (0, 0), (6, 0), limited(1)),
        Err(PathError::LimitExceeded { expanded: 1 })
    );
}

#[test]
fn cost_limit() {
    let grid = walled();
    let optimum = find(&grid, (0, 0), (6, 0), SearchOptions::default()).unwrap().cost;
    let tight = SearchOptions {
        limit: SearchLimit { max_expansions: None, max_cost: Some(optimum - 0.5) },
        ..SearchOptions::default()
    };
    assert!(matches!(find(&grid, (0, 0), (6, 0), tight), Err(PathError::LimitExceeded { .. })));
    let enough = SearchOptions {
        limit: SearchLimit { max_expansions: None, max_cost: Some(optimum + 1e-9) },
        ..SearchOptions::default()
    };
    assert!((find(&grid, (0, 0), (6, 0), enough).unwrap().cost - optimum).abs() < 1e-9);
}

#[test]
fn bad_weights_are_refused() {
    for weight in [f64::NAN, 0.5, f64::INFINITY, -1.0] {
        let o = SearchOptions { weight, ..SearchOptions::default() };
        assert!(matches!(find(&walled(), (0, 0), (6, 0), o), Err(PathError::InvalidWeight { .. })));
    }
}

#[test]
fn bad_cost_limits_are_refused_even_for_a_one_cell_path() {
    for max_cost in [f64::NAN, -1.0, f64::NEG_INFINITY] {
        let limit = SearchLimit { max_cost: Some(max_cost), ..SearchLimit::default() };
        let o = SearchOptions { limit, ..SearchOptions::default() };
        for goal in [(6, 0), (0, 0)] {
            let got = find(&walled(), (0, 0), goal, o);
            assert!(matches!(got, Err(PathError::InvalidCostLimit { .. })), "{max_cost}: {got:?}");
        }
    }
    // Zero is a limit: only the one-cell path fits under it.
    let limit = SearchLimit { max_cost: Some(0.0), ..SearchLimit::default() };
    let o = SearchOptions { limit, ..SearchOptions::default() };
    assert_eq!(find(&walled(), (0, 0), (0, 0), o).map(|p| p.cost), Ok(0.0));
    assert!(matches!(find(&walled(), (0, 0), (1, 0), o), Err(PathError::LimitExceeded { .. })));
}

#[test]
fn partial_path_ends_at_closest_reachable_cell() {
    let mut grid = walled();
    grid.set(GridPos::new(3, 4), Cell::Blocked).unwrap();
    let o = SearchOptions { partial: true, ..SearchOptions::default() };
    let path = find(&grid, (0, 4), (6, 1), o).unwrap();
    assert!(!path.complete);
    assert_eq!(path.cells[0], GridPos::new(0, 4));
    // Column 2, beside the wall, row 1 (the goal's row) is closest to the goal.
    assert_eq!(path.end(), GridPos::new(2, 1));
    assert!(bevy_tilemap_nav::path::path_cost(&grid, &path.cells).is_some());
}

#[test]
fn errors_read_well() {
    let e: Box<dyn std::error::Error> =
        Box::new(PathError::GoalBlocked { goal: GridPos::new(3, 1) });
    assert_eq!(e.to_string(), "goal (3, 1) is blocked");
}

#[test]
fn terrain_cost_steers_the_path() {
    // A band of mud (cost 10) down column 2 with a road of ground at the bottom.
    let mut grid = NavGrid::new(5, 5).unwrap();
    grid.fill_rect(GridPos::new(2, 0), GridPos::new(2, 3), Cell::Passable { cost: 10 }).unwrap();
    let path = find(&grid, (0, 0), (4, 0), SearchOptions::default()).unwrap();
    assert!(path.cells.contains(&GridPos::new(2, 4)), "{:?}", path.cells);
    // Four-way: the same detour, costs 1 per step.
    grid.set_neighborhood(Neighborhood::Four);
    let path = find(&grid, (0, 0), (4, 0), SearchOptions::default()).unwrap();
    assert_eq!(path.cost, 12.0);
}

#[test]
fn avoided_cells_are_walked_around_for_that_query_only() {
    let grid = walled();
    let mut pathfinder = Pathfinder::new();
    let o = SearchOptions::default();
    let (start, goal) = (GridPos::new(0, 4), GridPos::new(6, 4));
    let direct = pathfinder.find(&grid, &PathQuery::new(start, goal).with_options(o)).unwrap();
    assert!(direct.cells.contains(&GridPos::new(3, 4)));
    // Someone stands in the only gap: no way through while they do.
    let blocked = pathfinder
        .find(&grid, &PathQuery::new(start, goal).with_options(o).avoiding(&[GridPos::new(3, 4)]));
    assert!(matches!(blocked, Err(PathError::Unreachable { .. })));
    // Someone beside the route: a detour of equal or higher cost, never through them.
    let beside = GridPos::new(1, 4);
    let detour = pathfinder
        .find(&grid, &PathQuery::new(start, goal).with_options(o).avoiding(&[beside]))
        .unwrap();
    assert!(!detour.cells.contains(&beside));
    assert!(detour.cost >= direct.cost);
    // The next query is not affected, and start and goal are never avoided.
    assert_eq!(
        pathfinder.find(&grid, &PathQuery::new(start, goal).with_options(o)).unwrap().cost,
        direct.cost
    );
    let ends = pathfinder
        .find(&grid, &PathQuery::new(start, goal).with_options(o).avoiding(&[start, goal]))
        .unwrap();
    assert_eq!(ends.cost, direct.cost);
}

#[test]
fn every_algorithm_honours_avoided_cells_or_says_it_cannot() {
    // Found by the `search` fuzz target: Theta*'s line-of-sight shortcuts crossed an avoided
    // cell, and forced jump point search ignored the list.
    let grid = NavGrid::new(11, 7).unwrap().with_neighborhood(Neighborhood::Four);
    let (start, goal) = (GridPos::new(7, 0), GridPos::new(0, 6));
    let avoid = [GridPos::new(3, 4)];
    let theta = SearchOptions { algorithm: Algorithm::ThetaStar, ..SearchOptions::default() };
    let path = Pathfinder::new()
        .find(&grid, &PathQuery::new(start, goal).with_options(theta).avoiding(&avoid))
        .unwrap();
    assert!(!path.cells.contains(&avoid[0]), "{:?}", path.cells);

    let open = NavGrid::new(9, 9).unwrap();
    let (start, goal) = (GridPos::new(0, 0), GridPos::new(8, 8));
    let avoid = [GridPos::new(4, 4)];
    for algorithm in [Algorithm::Auto, Algorithm::AStar, Algorithm::ThetaStar, Algorithm::JumpPoint]
    {
        let o = SearchOptions { algorithm, ..SearchOptions::default() };
        let path = Pathfinder::new()
            .find(&open, &PathQuery::new(start, goal).with_options(o).avoiding(&avoid))
            .unwrap();
        assert!(!path.cells.contains(&avoid[0]), "{algorithm:?}: {:?}", path.cells);
    }
}

#[test]
fn an_avoided_cell_is_a_wall_for_the_corner_rule_too() {
    // Someone stands in the middle of an open 3 x 3 room. Under no corner cutting nobody
    // squeezes diagonally past them, as nobody would past a wall: around the edge, 4 steps.
    let grid = NavGrid::new(3, 3).unwrap();
    let (start, goal) = (GridPos::new(0, 0), GridPos::new(2, 2));
    let avoid = [GridPos::new(1, 1)];
    for algorithm in [Algorithm::Auto, Algorithm::AStar, Algorithm::JumpPoint] {
        let o = SearchOptions { algorithm, ..SearchOptions::default() };
        let path = Pathfinder::new()
            .find(&grid, &PathQuery::new(start, goal).with_options(o).avoiding(&avoid))
            .unwrap();
        assert_eq!(path.cost, 4.0, "{algorithm:?}: {:?}", path.cells);
        assert!(path.cells.windows(2).all(|w| w[0].x == w[1].x || w[0].y == w[1].y));
    }
    // Where corners may be cut, one open side is enough: straight, diagonal past them, straight.
    let cut = grid.clone().with_corner_rule(CornerRule::CutCorners);
    let o = SearchOptions::default();
    let path = Pathfinder::new()
        .find(&cut, &PathQuery::new(start, goal).with_options(o).avoiding(&avoid))
        .unwrap();
    assert!((path.cost - (2.0 + std::f64::consts::SQRT_2)).abs() < 1e-9, "{:?}", path.cells);
    assert!(!path.cells.contains(&avoid[0]));
}

#[test]
fn waypoints_are_the_turns_and_retrace_the_path() {
    let grid = walled();
    let path = find(&grid, (0, 0), (6, 0), SearchOptions::default()).unwrap();
    let waypoints = path.waypoints();
    assert_eq!(waypoints.first(), Some(&GridPos::new(0, 0)));
    assert_eq!(waypoints.last(), Some(&GridPos::new(6, 0)));
    assert!(waypoints.len() >= 3 && waypoints.len() < path.cells.len());
    // Expanding each leg back into cells, straight or diagonal, gives the path again.
    let mut cells = vec![waypoints[0]];
    for leg in waypoints.windows(2) {
        let (mut x, mut y) = (i64::from(leg[0].x), i64::from(leg[0].y));
        let (dx, dy) = ((i64::from(leg[1].x) - x).signum(), (i64::from(leg[1].y) - y).signum());
        while (x, y) != (i64::from(leg[1].x), i64::from(leg[1].y)) {
            x += dx;
            y += dy;
            cells.push(GridPos::new(x as u32, y as u32));
        }
    }
    assert_eq!(cells, path.cells);
    let single = find(&grid, (1, 1), (1, 1), SearchOptions::default()).unwrap();
    assert_eq!(single.waypoints(), vec![GridPos::new(1, 1)]);
}

#[test]
fn a_traced_search_records_every_expansion_and_answers_the_same() {
    let grid = walled();
    let o = SearchOptions { algorithm: Algorithm::AStar, ..SearchOptions::default() };
    let mut pathfinder = Pathfinder::new();
    let (start, goal) = (GridPos::new(0, 0), GridPos::new(6, 0));
    let plain = pathfinder.find(&grid, &PathQuery::new(start, goal).with_options(o)).unwrap();
    let traced = pathfinder.find(&grid, &PathQuery::new(start, goal).with_options(o).traced());
    let trace = pathfinder.take_trace().unwrap();
    assert_eq!(traced.unwrap(), plain);
    // Taken once; an untraced query records nothing.
    assert_eq!(pathfinder.take_trace(), None);
    pathfinder.find(&grid, &PathQuery::new(start, goal).with_options(o)).unwrap();
    assert_eq!(pathfinder.take_trace(), None);
    assert_eq!(trace.expanded.len(), plain.stats.expanded as usize);
    assert_eq!(trace.expanded[0], start);
    let (closed, open) = trace.at_step(0);
    assert!(closed.is_empty());
    assert_eq!(open, vec![start]);
    // Midway: closed and open are disjoint, and every open cell borders a closed one.
    let (closed, open) = trace.at_step(trace.expanded.len() / 2);
    assert!(open.iter().all(|c| !closed.contains(c)));
    assert!(
        open.iter()
            .all(|o| closed.iter().any(|c| c.x.abs_diff(o.x) <= 1 && c.y.abs_diff(o.y) <= 1))
    );
    // The goal was opened; the next untraced search records nothing.
    assert!(trace.opened.iter().any(|(_, c)| *c == goal));
    assert!(pathfinder.take_trace().is_none());
}

/// Every public function of the core that takes positions or paths from a caller, fed positions
/// far off the grid, steps that are not steps, and random cell lists: plain answers, no panic.
#[test]
fn garbage_positions_and_paths_get_plain_answers_never_a_panic() {
    use bevy_tilemap_nav::grid::line::{segment_cells, segment_cost};
    use bevy_tilemap_nav::path::path_cost;
    use bevy_tilemap_nav::path::{smooth_path, smoothed_cost};
    use bevy_tilemap_nav::search::turning_points;

    let mut grid = NavGrid::new(6, 5).unwrap();
    grid.fill_rect(GridPos::new(2, 0), GridPos::new(2, 3), Cell::Blocked).unwrap();
    let far = GridPos::new(u32::MAX, u32::MAX);
    let inside = GridPos::new(1, 1);

    assert!(!grid.diagonal_allowed(inside, 1000, 1));
    assert!(!grid.diagonal_allowed(inside, i32::MIN, i32::MIN));
    assert!(!grid.diagonal_allowed(inside, 0, 1));
    assert!(!grid.diagonal_allowed(far, 1, 1));
    assert!(grid.diagonal_allowed(inside, -1, -1));
    assert!(!grid.can_step(inside, far) && !grid.can_step(far, inside));
    assert_eq!(grid.step_cost(inside, GridPos::new(3, 1)), None);
    assert_eq!(grid.neighbors(far).count(), 0);
    assert_eq!((grid.component(far), grid.connected(inside, far)), (None, false));
    assert_eq!(segment_cells(&grid, inside, far), None);
    assert_eq!(segment_cost(&grid, far, inside), None);
    assert_eq!(path_cost(&grid, &[]), None);
    assert_eq!(path_cost(&grid, &[inside, far]), None);
    assert_eq!(smoothed_cost(&grid, &[inside, far]), None);
    assert!(matches!(
        grid.fill_rect(far, inside, Cell::Blocked),
        Err(GridError::OutOfBounds { .. })
    ));
    // A rectangle given back to front is empty: nothing changes.
    let before = grid.clone();
    grid.fill_rect(GridPos::new(4, 4), GridPos::new(0, 0), Cell::Blocked).unwrap();
    assert_eq!(grid, before);

    // Random cell lists, in and far out of the grid, for the functions that take a path.
    let mut rng = Rng(11);
    for _ in 0..2000 {
        let len = rng.below(8) as usize;
        let cells: Vec<GridPos> = (0..len)
            .map(|_| {
                if rng.chance(20) {
                    GridPos::new(u32::MAX - rng.below(3), rng.below(u32::MAX))
                } else {
                    GridPos::new(rng.below(9), rng.below(8))
                }
            })
            .collect();
        let smoothed = smooth_path(&grid, &cells);
        assert_eq!(smoothed.first(), cells.first());
        assert_eq!(smoothed.last(), cells.last());
        let turns = turning_points(grid.neighborhood(), &cells);
        assert_eq!(turns.last(), cells.last());
        if let Some(cost) = path_cost(&grid, &cells) {
            assert!(cells.iter().all(|&c| grid.is_passable(c)) && cost.is_finite());
        }
        let _ = smoothed_cost(&grid, &cells);
    }
}

/// On a uniform grid a clear octile-shaped path (diagonal run then straight, or straight then
/// diagonal) costs exactly the heuristic, so the search takes it as soon as it reaches a cell
/// that has one; the path is still optimal and legal.
#[test]
fn a_clear_octile_path_ends_the_search_early() {
    use bevy_tilemap_nav::path::path_cost;
    let legal_at = |grid: &NavGrid, path: &PathResult| {
        path_cost(grid, &path.cells).is_some_and(|c| (c - path.cost).abs() < 1e-9)
    };
    let mut grid = NavGrid::new(30, 20).unwrap();
    let options = SearchOptions::default();
    let mut pathfinder = Pathfinder::new();
    let (start, goal) = (GridPos::new(2, 3), GridPos::new(25, 11));
    let open = pathfinder.find(&grid, &PathQuery::new(start, goal).with_options(options)).unwrap();
    assert_eq!(open.stats.expanded, 1, "straight from the start");
    assert!((open.cost - (8.0 * std::f64::consts::SQRT_2 + 15.0)).abs() < 1e-9);
    assert!(legal_at(&grid, &open));
    // A wall across the diagonal-first shape: the straight-first one is taken.
    grid.fill_rect(GridPos::new(6, 5), GridPos::new(6, 9), Cell::Blocked).unwrap();
    let other = pathfinder.find(&grid, &PathQuery::new(start, goal).with_options(options)).unwrap();
    assert_eq!(other.stats.expanded, 1);
    assert!((other.cost - open.cost).abs() < 1e-9);
    assert!(legal_at(&grid, &other));
    // Both shapes blocked: a real search, still optimal (plain A* agrees).
    grid.fill_rect(GridPos::new(6, 0), GridPos::new(6, 18), Cell::Blocked).unwrap();
    let around =
        pathfinder.find(&grid, &PathQuery::new(start, goal).with_options(options)).unwrap();
    let astar = pathfinder
        .find(
            &grid,
            &PathQuery::new(start, goal)
                .with_options(SearchOptions { algorithm: Algorithm::AStar, ..options }),
        )
        .unwrap();
    assert!(around.stats.expanded > 1);
    assert!((around.cost - astar.cost).abs() < 1e-9);
    assert!(legal_at(&grid, &around));
    // A cost limit below the octile distance still stops it.
    grid.fill(Cell::GROUND).unwrap();
    let limited = SearchOptions {
        limit: SearchLimit { max_cost: Some(10.0), ..Default::default() },
        ..options
    };
    assert!(matches!(
        pathfinder.find(&grid, &PathQuery::new(start, goal).with_options(limited)),
        Err(PathError::LimitExceeded { .. })
    ));
}
