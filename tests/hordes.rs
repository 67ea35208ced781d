//! Many agents following one distance field (`NavField` + `FollowField`): all reach the goal by
//! cheapest ways, never standing in a wall; when a wall goes up across their way the field is
//! repaired and they walk round it, with no search of their own; moved goals turn them all; an
//! agent that cannot get there is told so once.

use std::time::Duration;

use bevy::ecs::message::Messages;
use bevy::prelude::*;
use bevy_tilemap_nav::plugin::{FollowField, NavDiagnostics, NavField};
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::PathError;

#[allow(dead_code)]
#[path = "common/tilemap.rs"]
mod tilemap;
use tilemap::{nav_app, position};

const TILE: f32 = 16.0;

/// A 40 x 30 map: a wall down x = 20 with gaps at y = 5 and y = 25, and a closed pocket at the
/// top left (x 0-2, y 27-29).
fn level() -> NavGrid {
    let mut grid = NavGrid::new(40, 30).unwrap();
    for y in 0..30 {
        if y != 5 && y != 25 {
            grid.set(GridPos::new(20, y), Cell::Blocked).unwrap();
        }
    }
    for k in 0..4 {
        grid.set(GridPos::new(3, 26 + k.min(3)), Cell::Blocked).unwrap();
        grid.set(GridPos::new(k, 26), Cell::Blocked).unwrap();
    }
    grid
}

struct Horde {
    app: App,
    map: Entity,
    field: Entity,
    agents: Vec<Entity>,
}

fn horde(goal: GridPos) -> Horde {
    let mut app = nav_app(Duration::from_millis(20), 1);
    let map = app.world_mut().spawn(NavGridMap::square(level(), Vec2::splat(TILE))).id();
    app.update();
    let field = app.world_mut().spawn(NavField::new(map, vec![goal])).id();
    let mut agents = Vec::new();
    for k in 0..60u32 {
        let cell = GridPos::new(1 + (k % 15), 1 + (k / 15) * 6);
        let at = app.world().resource::<NavMaps>().get(map).unwrap().geometry.cell_to_world(cell);
        let follower =
            if k % 3 == 0 { PathFollower::smoothed(80.0) } else { PathFollower::new(80.0) };
        let agent = app
            .world_mut()
            .spawn((Transform::from_translation(at.extend(1.0)), follower, FollowField(field)))
            .id();
        agents.push(agent);
    }
    // In the walled pocket: no way out.
    let at = app
        .world()
        .resource::<NavMaps>()
        .get(map)
        .unwrap()
        .geometry
        .cell_to_world(GridPos::new(1, 28));
    agents.push(
        app.world_mut()
            .spawn((
                Transform::from_translation(at.extend(1.0)),
                PathFollower::new(80.0),
                FollowField(field),
            ))
            .id(),
    );
    Horde { app, map, field, agents }
}

fn messages<M: Message + Clone>(app: &App) -> Vec<M> {
    app.world().resource::<Messages<M>>().iter_current_update_messages().cloned().collect()
}

/// Runs frames until every agent but the last (the walled-in one) arrived at `goal`, checking
/// each frame that no one stands in a wall and that nobody searched. Returns the frames taken.
fn walk_all_home(h: &mut Horde, goal: GridPos, frames: usize) -> usize {
    let mut home = vec![false; h.agents.len() - 1];
    for frame in 0..frames {
        h.app.update();
        assert_eq!(
            h.app.world().resource::<NavDiagnostics>().searches_started,
            0,
            "frame {frame}: a search"
        );
        let maps = h.app.world().resource::<NavMaps>();
        let nav = maps.get(h.map).unwrap();
        for &a in &h.agents {
            let cell = nav.geometry.world_to_cell(position(&h.app, a)).unwrap();
            assert!(nav.grid.is_passable(cell), "frame {frame}: {a} in a wall at {cell:?}");
        }
        for arrived in messages::<Arrived>(&h.app) {
            if let Some(k) = h.agents.iter().position(|&a| a == arrived.entity) {
                assert!(arrived.reached_goal && arrived.cell == goal, "{arrived:?}");
                home[k] = true;
            }
        }
        if home.iter().all(|&h| h) {
            return frame;
        }
    }
    panic!("not all home: {} of {}", home.iter().filter(|&&h| h).count(), home.len());
}

#[test]
fn a_horde_follows_one_field_home_by_cheapest_ways_and_round_a_new_wall() {
    let goal = GridPos::new(35, 15);
    let mut h = horde(goal);
    h.app.update();
    h.app.update();
    // Each agent's way costs what a search of its own finds.
    let grid = h.app.world().resource::<NavMaps>().get(h.map).unwrap().grid.clone();
    for &a in &h.agents[..h.agents.len() - 1] {
        let path = h.app.world().get::<Path>(a).expect("a way down").clone();
        let own = Pathfinder::new().find(&grid, &PathQuery::new(path.cells[0], goal)).unwrap();
        assert!((path.cost - own.cost).abs() < 1e-9, "{} vs {}", path.cost, own.cost);
        assert_eq!(*path.cells.last().unwrap(), goal);
    }
    // The walled-in one is told, once.
    let last = *h.agents.last().unwrap();
    let failed = h.app.world().get::<PathFailed>(last).expect("told");
    assert!(matches!(failed.error, NavError::Search(PathError::Unreachable { .. })));
    // A wall across the lower gap while they walk: the field is repaired, they go round.
    for _ in 0..20 {
        h.app.update();
    }
    h.app
        .world_mut()
        .get_mut::<NavGridMap>(h.map)
        .unwrap()
        .grid
        .set(GridPos::new(20, 5), Cell::Blocked)
        .unwrap();
    h.app.update();
    let nav = h.app.world().get::<NavField>(h.field).unwrap();
    let (settled, _) = nav.last_work();
    assert!(settled > 0 && settled < 40 * 30, "repaired {settled} cells");
    assert!(
        nav.field().unwrap().path_from(GridPos::new(2, 1)).unwrap().contains(&GridPos::new(20, 25))
    );
    walk_all_home(&mut h, goal, 3000);
    assert_eq!(messages::<PathFailed>(&h.app).len(), 0, "the walled-in one is not told again");
}

#[test]
fn moved_goals_turn_the_whole_horde() {
    let mut h = horde(GridPos::new(35, 15));
    for _ in 0..30 {
        h.app.update();
    }
    let goal = GridPos::new(10, 15);
    h.app.world_mut().get_mut::<NavField>(h.field).unwrap().goals = vec![goal];
    walk_all_home(&mut h, goal, 3000);
    // One that arrived, put elsewhere by the game (a creep sent back to its spawn): off again.
    let back = h
        .app
        .world()
        .resource::<NavMaps>()
        .get(h.map)
        .unwrap()
        .geometry
        .cell_to_world(GridPos::new(30, 3));
    h.app.world_mut().get_mut::<Transform>(h.agents[0]).unwrap().translation = back.extend(1.0);
    h.app.update();
    let path = h.app.world().get::<Path>(h.agents[0]).expect("walking home again");
    assert_eq!((path.cells[0], *path.cells.last().unwrap()), (GridPos::new(30, 3), goal));
}
