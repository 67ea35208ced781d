//! Every scenario of the public benchmark maps is solved at its published optimum: `arena` and
//! `arena2` with plain A*, all four maps with jump point search.

use bevy_tilemap_nav::io::movingai::{load_map, load_scenarios};
use bevy_tilemap_nav::path::path_cost;
use bevy_tilemap_nav::search::{Algorithm, PathQuery, Pathfinder, SearchOptions};

fn assert_all_optimal(name: &str, algorithm: Algorithm) {
    let options = SearchOptions { algorithm, ..SearchOptions::default() };
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps");
    let grid = load_map(format!("{dir}/{name}.map")).unwrap();
    let scenarios = load_scenarios(format!("{dir}/{name}.map.scen")).unwrap();
    assert!(!scenarios.is_empty());
    let mut pathfinder = Pathfinder::new();
    for (index, scenario) in scenarios.iter().enumerate() {
        assert_eq!((scenario.map_width, scenario.map_height), (grid.width(), grid.height()));
        let path = pathfinder
            .find(&grid, &PathQuery::new(scenario.start, scenario.goal).with_options(options))
            .unwrap_or_else(|e| panic!("{name} scenario {index}: {e}"));
        assert!(
            (path.cost - scenario.optimal_length).abs() <= 0.01,
            "{name} scenario {index}: cost {} but the published optimum is {}",
            path.cost,
            scenario.optimal_length
        );
        let walked = path_cost(&grid, &path.cells).expect("legal path");
        assert!((walked - path.cost).abs() < 1e-6);
    }
}

#[test]
fn arena2_all_scenarios_optimal_with_astar() {
    assert_all_optimal("arena2", Algorithm::AStar);
}

#[test]
fn arena_all_scenarios_optimal_with_astar() {
    assert_all_optimal("arena", Algorithm::AStar);
}

#[test]
fn every_public_map_all_scenarios_optimal_with_jump_point_search() {
    for name in ["arena", "arena2", "lak304d", "64room_000"] {
        assert_all_optimal(name, Algorithm::JumpPoint);
    }
}
