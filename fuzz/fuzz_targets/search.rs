//! The search on arbitrary grids, ends and options, checked against an independent Dijkstra
//! oracle (the one the property tests use, `tests/support`) and the path legality rules.

#![no_main]

#[path = "../../tests/support/mod.rs"]
mod common;

use arbitrary::Arbitrary;
use bevy_tilemap_nav::grid::{CornerRule, HexCoords, Neighborhood};
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::{Algorithm, Heuristic, PathError, SearchLimit};
use bevy_tilemap_nav::grid::line::segment_cost;
use common::{HEX_RULES, Model};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input {
    width: u8,
    height: u8,
    /// One byte per cell, row after row (missing bytes: ground): 0 and 1 are walls, 2..=9 cost
    /// 1..=8 when the costs vary, the rest cost 1.
    cells: Vec<u8>,
    eight: bool,
    /// A hex grid (the coordinate system `HexCoords::ALL[n % 6]`) instead of a square one.
    hex: Option<u8>,
    cut_corners: bool,
    varied_costs: bool,
    /// Ends may lie outside the grid (up to 3 cells beyond it).
    start: (u8, u8),
    goal: (u8, u8),
    algorithm: u8,
    heuristic: u8,
    weight: Weight,
    partial: bool,
    max_expansions: Option<u16>,
    max_cost: Option<f64>,
    avoid: Vec<(u8, u8)>,
}

#[derive(Arbitrary, Debug)]
enum Weight {
    One,
    Tenths(u8),
    Raw(f64),
}

fuzz_target!(|input: Input| check(input));

fn check(input: Input) {
    let (width, height) = (u32::from(input.width % 20) + 1, u32::from(input.height % 20) + 1);
    let mut grid = NavGrid::new(width, height)
        .unwrap()
        .with_neighborhood(match input.hex {
            Some(n) => Neighborhood::Hex(HexCoords::ALL[usize::from(n % 6)]),
            None if input.eight => Neighborhood::Eight,
            None => Neighborhood::Four,
        })
        .with_corner_rule(if input.cut_corners {
            CornerRule::CutCorners
        } else {
            CornerRule::NoCornerCutting
        });
    let mut cells = vec![vec![Some(1u32); width as usize]; height as usize];
    for (i, &byte) in input.cells.iter().take((width * height) as usize).enumerate() {
        let (x, y) = (i as u32 % width, i as u32 / width);
        let cell = match byte {
            0 | 1 => Cell::Blocked,
            2..=9 if input.varied_costs => Cell::Passable { cost: u32::from(byte) - 1 },
            _ => Cell::GROUND,
        };
        grid.set(GridPos::new(x, y), cell).unwrap();
        cells[y as usize][x as usize] = match cell {
            Cell::Passable { cost } => Some(cost),
            Cell::Blocked => None,
        };
    }
    let end = |(x, y): (u8, u8)| GridPos::new(u32::from(x) % (width + 3), u32::from(y) % (height + 3));
    let (start, goal) = (end(input.start), end(input.goal));
    let algorithm = match input.algorithm % 4 {
        0 => Algorithm::Auto,
        1 => Algorithm::AStar,
        2 => Algorithm::JumpPoint,
        _ => Algorithm::ThetaStar,
    };
    let heuristic = match input.heuristic % 7 {
        0 => Some(Heuristic::Octile),
        1 => Some(Heuristic::Manhattan),
        2 => Some(Heuristic::Euclidean),
        3 => Some(Heuristic::Zero),
        4 => Some(Heuristic::Hex),
        _ => None,
    };
    let weight = match input.weight {
        Weight::One => 1.0,
        Weight::Tenths(t) => 1.0 + f64::from(t) / 10.0,
        Weight::Raw(w) => w,
    };
    let limit = SearchLimit {
        max_expansions: input.max_expansions.map(u32::from),
        max_cost: input.max_cost,
    };
    let limited = limit != SearchLimit::default();
    let options = SearchOptions { heuristic, weight, limit, partial: input.partial, algorithm };
    let avoid: Vec<GridPos> = input.avoid.iter().take(16).map(|&p| end(p)).collect();

    let result = Pathfinder::new().find(&grid, &PathQuery::new(start, goal).with_options(options).avoiding(&avoid));

    // Avoided cells (the two ends excepted) are walls for this query, corner rule included:
    // the oracle and the legality checks use the grid with them walled.
    let model = Model {
        eight: input.eight,
        cut_corners: input.cut_corners,
        hex: input.hex.map(|n| HEX_RULES[usize::from(n % 6)]),
        ..Model::of(cells)
    };
    let at = |p: GridPos| (i64::from(p.x), i64::from(p.y));
    let avoided: Vec<(i64, i64)> =
        avoid.iter().filter(|&&p| p != start && p != goal).map(|&p| at(p)).collect();
    let mut walled = Model { cells: model.cells.clone(), ..model };
    for &(x, y) in &avoided {
        if walled.cost(x, y).is_some() {
            walled.cells[y as usize][x as usize] = None;
        }
    }

    // Errors about the input come first, in this order.
    let input_error = if !grid.in_bounds(start) {
        Some(PathError::StartOutOfBounds { start, width, height })
    } else if !grid.in_bounds(goal) {
        Some(PathError::GoalOutOfBounds { goal, width, height })
    } else if !grid.is_passable(start) {
        Some(PathError::StartBlocked { start })
    } else if !grid.is_passable(goal) {
        Some(PathError::GoalBlocked { goal })
    } else if !(weight.is_finite() && weight >= 1.0) {
        Some(PathError::InvalidWeight { weight })
    } else if let Some(max_cost) = limit.max_cost.filter(|c| !(*c >= 0.0)) {
        Some(PathError::InvalidCostLimit { max_cost })
    } else {
        None
    };
    if let Some(expected) = input_error {
        match (&result, &expected) {
            // NaN != NaN: compare the variant.
            (Err(PathError::InvalidWeight { .. }), PathError::InvalidWeight { .. })
            | (Err(PathError::InvalidCostLimit { .. }), PathError::InvalidCostLimit { .. }) => {}
            _ => assert_eq!(result.as_ref().err(), Some(&expected)),
        }
        return;
    }
    let optimum = model.dijkstra_avoiding(at(start), at(goal), &avoided);
    let jps_refused = algorithm == Algorithm::JumpPoint
        && start != goal
        && (input.partial || !bevy_tilemap_nav::search::jps_applies(&grid))
        && (grid.connected(start, goal) || input.partial);
    if jps_refused {
        assert_eq!(result.as_ref().err(), Some(&PathError::JumpPointUnsupported));
        return;
    }
    let path = match result {
        Ok(path) => path,
        Err(PathError::LimitExceeded { .. }) => {
            assert!(limited && !input.partial, "limit error without a limit");
            return;
        }
        Err(PathError::Unreachable { .. }) => {
            assert!(optimum.is_none(), "unreachable, but the oracle finds {optimum:?}");
            assert!(!input.partial);
            return;
        }
        Err(other) => panic!("unexpected error {other:?}"),
    };

    // Every path: starts at the start, legal steps, reported cost the walked cost.
    assert_eq!(path.cells.first(), Some(&start));
    let theta = algorithm == Algorithm::ThetaStar;
    for w in path.cells.windows(2) {
        let step_ok = if theta {
            w[0].x.abs_diff(w[1].x) <= 1 && w[0].y.abs_diff(w[1].y) <= 1 && w[0] != w[1]
        } else {
            walled.step_cost(at(w[0]), at(w[1])).is_some()
        };
        assert!(step_ok && walled.cost(at(w[1]).0, at(w[1]).1).is_some(), "illegal step {w:?}");
        assert!(!avoided.contains(&at(w[1])), "steps on avoided cell {:?}", w[1]);
    }
    if theta {
        let corners = path.waypoints();
        for w in corners.windows(2) {
            assert!(segment_cost(&grid, w[0], w[1]).is_some(), "segment {w:?} not clear");
        }
    } else {
        let cells: Vec<(i64, i64)> = path.cells.iter().map(|&p| at(p)).collect();
        let walked = walled.path_cost(&cells).expect("legal path");
        assert!((walked - path.cost).abs() < 1e-6, "cost {} but walked {walked}", path.cost);
    }
    if let Some(max_cost) = limit.max_cost {
        assert!(!(path.cost > max_cost + 1e-9) || !path.complete, "over the cost limit");
    }

    if !path.complete {
        assert!(input.partial, "partial path without asking");
        assert_ne!(path.end(), goal);
        return;
    }
    assert_eq!(path.end(), goal);
    let best = optimum.expect("a path where the oracle finds none");
    assert!(path.cost >= best - 1e-6 || theta, "cost {} below the optimum {best}", path.cost);
    // The heuristics that never overestimate on this neighbourhood give the optimum (times the
    // weight at most); Theta* may only beat the grid optimum.
    let admissible = match heuristic {
        // The square-grid estimates, read on a hex grid's coordinates, may overestimate.
        Some(Heuristic::Manhattan | Heuristic::Octile) if input.hex.is_some() => false,
        Some(Heuristic::Manhattan) => !input.eight,
        Some(Heuristic::Octile) => input.eight || theta,
        _ => true,
    };
    if admissible {
        assert!(path.cost <= weight * best + 1e-6, "cost {} above {weight} x {best}", path.cost);
    }
}
