//! The plugin in a headless `App`: a real bevy_ecs_tilemap tilemap (TileStorage, TilePos,
//! TileTextureIndex), manual time steps, agents that ask for paths and walk them.

use std::time::Duration;

use crate::tilemap::{FLOOR, MUD, TILE, WALL, app, centre, spawn_text_tilemap, texture};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_ecs_tilemap::prelude::*;
use bevy_tilemap_nav::io::baked::BakeError;
use bevy_tilemap_nav::plugin::{
    BakedNavGrid, BakedPaths, NavDiagnostics, NavGridChanged, NavMap, PLUGIN_LANDMARKS, Replanning,
    TilemapNavError, TilemapNavWarning, TraceSearch, TracedSearch, WorldToCellError,
};
use bevy_tilemap_nav::plugin::{WorkBudget, WorkShares};
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::CELL_WORK;
use bevy_tilemap_nav::search::MAX_FIRST_MOVE_CELLS;
use bevy_tilemap_nav::search::{Algorithm, PathError, PathResult};

/// The plugin's settings with the search budget in cells only: frame counts in these tests do
/// not depend on how fast the machine is.
fn settings() -> NavSettings {
    NavSettings { work: WorkBudget { time: None, ..default() }, ..NavSettings::default() }
}

/// [`settings`] with a search budget of `expansions` expanded cells a frame.
fn searching(expansions: u64) -> NavSettings {
    let mut settings = settings();
    settings.work.shares.searches = expansions * CELL_WORK;
    settings
}

/// Spawns a square tilemap drawn from text rows (top row first): `#` wall, `~` mud, `.` floor,
/// ` ` no tile. Returns the tilemap entity.
fn spawn_map(app: &mut App, rows: &[&str]) -> Entity {
    spawn_text_tilemap(app, rows, TILE, Vec2::ZERO, texture)
}

fn tile(app: &App, tilemap: Entity, x: u32, y: u32) -> Entity {
    app.world().get::<TileStorage>(tilemap).unwrap().get(&TilePos { x, y }).unwrap()
}

fn spawn_agent(app: &mut App, at: GridPos, goal: impl Into<PathGoal>, speed: f32) -> Entity {
    let position = centre(app, at);
    app.world_mut()
        .spawn((
            Transform::from_translation(position.extend(1.0)),
            PathFollower::new(speed),
            PathRequest::to(goal),
        ))
        .id()
}

/// The newest `NavGridChanged` message of the last update.
fn last_grid_change(app: &App) -> Option<NavGridChanged> {
    app.world()
        .resource::<Messages<NavGridChanged>>()
        .iter_current_update_messages()
        .last()
        .cloned()
}

fn arrivals(app: &App) -> Vec<Arrived> {
    let messages = app.world().resource::<Messages<Arrived>>();
    messages.iter_current_update_messages().copied().collect()
}

/// Steps frames until `entity` arrives (checking at every frame that it stands on a passable
/// cell), and returns the frame count.
fn walk_until_arrived(app: &mut App, entity: Entity, max_frames: usize) -> usize {
    for frame in 0..max_frames {
        app.update();
        let position = app.world().get::<Transform>(entity).unwrap().translation.truncate();
        let geometry = app.world().resource::<NavMaps>().first().unwrap().geometry;
        let cell = geometry.world_to_cell(position).expect("agent on the map");
        assert!(
            app.world().resource::<NavMaps>().first().unwrap().grid.is_passable(cell),
            "frame {frame}: agent inside blocked cell {cell}"
        );
        if arrivals(app).iter().any(|a| a.entity == entity) {
            return frame;
        }
    }
    panic!("agent did not arrive within {max_frames} frames");
}

const ROOM: [&str; 7] = [
    "..........",
    "..........",
    "....#.....",
    "....#.....",
    "....#.....",
    "....#.....",
    "....#.....",
];

#[test]
fn agent_walks_around_a_wall_to_the_goal_centre_on_an_optimal_path() {
    let mut app = app();
    spawn_map(&mut app, &ROOM);
    app.update();
    let (start, goal) = (GridPos::new(1, 1), GridPos::new(8, 1));
    let agent = spawn_agent(&mut app, start, goal, 64.0);
    app.update();

    let path = app.world().get::<NavPath>(agent).expect("answered").clone();
    let grid = app.world().resource::<NavMaps>().first().unwrap().grid.clone();
    let optimum = Pathfinder::new().find(&grid, &PathQuery::new(start, goal)).unwrap();
    assert!((path.cost - optimum.cost).abs() < 1e-9);
    assert!(path.complete);
    assert!(path.cells.windows(2).all(|w| grid.can_step(w[0], w[1])), "{:?}", path.cells);
    assert!(path.cells.iter().any(|c| c.y >= 5), "goes round the top of the wall");

    walk_until_arrived(&mut app, agent, 600);
    let end = app.world().get::<Transform>(agent).unwrap().translation;
    assert_eq!(end.truncate(), centre(&app, goal));
    assert_eq!(end.z, 1.0);
    assert!(app.world().get::<NavPath>(agent).is_none());
}

#[test]
fn movement_is_frame_rate_independent() {
    let frames_at = |step: Duration| {
        let mut app = app();
        app.insert_resource(TimeUpdateStrategy::ManualDuration(step));
        spawn_map(&mut app, &ROOM);
        app.update();
        let agent = spawn_agent(&mut app, GridPos::new(0, 0), GridPos::new(3, 0), 32.0);
        app.update();
        let f = walk_until_arrived(&mut app, agent, 10_000);
        f as f64 * step.as_secs_f64()
    };
    // 48 world units at 32 per second: 1.5 s whatever the frame length.
    let coarse = frames_at(Duration::from_millis(50));
    let fine = frames_at(Duration::from_millis(5));
    assert!((coarse - 1.5).abs() <= 0.05 + 1e-9, "{coarse}");
    assert!((fine - 1.5).abs() <= 0.05 + 1e-9, "{fine}");
}

#[test]
fn wall_across_the_path_mid_walk_makes_the_agent_replan_and_arrive() {
    let mut app = app();
    let map = spawn_map(&mut app, &ROOM);
    app.update();
    let goal = GridPos::new(8, 1);
    let agent = spawn_agent(&mut app, GridPos::new(1, 1), goal, 48.0);
    app.update();
    let first = app.world().get::<NavPath>(agent).unwrap().clone();
    // Let it walk a few steps, then close the top route and open one at the bottom.
    for _ in 0..10 {
        app.update();
    }
    for y in [5, 6] {
        let t = tile(&app, map, 4, y);
        app.world_mut().entity_mut(t).insert(TileTextureIndex(WALL));
    }
    let t = tile(&app, map, 4, 0);
    app.world_mut().entity_mut(t).insert(TileTextureIndex(FLOOR));
    let frames = walk_until_arrived(&mut app, agent, 2_000);
    assert!(frames > 0);
    let end = app.world().get::<Transform>(agent).unwrap().translation.truncate();
    assert_eq!(end, centre(&app, goal));
    // The first plan went over the top; the agent got there through the new bottom gap.
    assert!(first.cells.iter().any(|c| c.y >= 5));
    assert!(first.cells.iter().all(|c| *c != GridPos::new(4, 0)));
}

#[test]
fn sealed_goal_gives_path_failed_unreachable_and_agent_stops_on_a_legal_cell() {
    let mut app = app();
    let map = spawn_map(&mut app, &ROOM);
    app.update();
    let goal = GridPos::new(8, 1);
    let agent = spawn_agent(&mut app, GridPos::new(1, 1), goal, 48.0);
    app.update();
    for _ in 0..8 {
        app.update();
    }
    for y in [5, 6] {
        let t = tile(&app, map, 4, y);
        app.world_mut().entity_mut(t).insert(TileTextureIndex(WALL));
    }
    let mut failed = None;
    for _ in 0..200 {
        app.update();
        let world = app.world();
        if let Some(f) =
            world.resource::<Messages<PathFailed>>().iter_current_update_messages().next()
        {
            failed = Some(f.clone());
        }
    }
    let failed = failed.expect("a PathFailed message");
    assert_eq!(failed.entity, agent);
    assert!(
        matches!(failed.error, NavError::Search(PathError::Unreachable { goal: g, .. }) if g == goal)
    );
    assert!(app.world().get::<PathFailed>(agent).is_some());
    // It stopped on the centre of a passable cell, not between cells.
    let at = app.world().get::<Transform>(agent).unwrap().translation.truncate();
    let geometry = app.world().resource::<NavMaps>().first().unwrap().geometry;
    let cell = geometry.world_to_cell(at).unwrap();
    assert!(app.world().resource::<NavMaps>().first().unwrap().grid.is_passable(cell));
    assert_eq!(at, geometry.cell_to_world(cell));
    assert!(app.world().get::<NavPath>(agent).is_none());
    assert!(arrivals(&app).is_empty());
}

#[test]
fn texture_change_and_tilenav_override_update_the_grid_with_a_message() {
    let mut app = app();
    let map = spawn_map(&mut app, &ROOM);
    app.update();
    let cell = |app: &App, x, y| {
        app.world().resource::<NavMaps>().first().unwrap().grid.get(GridPos::new(x, y)).unwrap()
    };
    assert_eq!(cell(&app, 4, 3), Cell::Blocked);
    assert_eq!(cell(&app, 2, 2), Cell::GROUND);

    let t = tile(&app, map, 2, 2);
    app.world_mut().entity_mut(t).insert(TileTextureIndex(MUD));
    app.update();
    assert_eq!(cell(&app, 2, 2), Cell::Passable { cost: 5 });
    // The newest message lists exactly the cell that changed.
    let changed = last_grid_change(&app);
    assert_eq!(changed, Some(NavGridChanged { map, cells: vec![GridPos::new(2, 2)] }));

    // An override wins over the texture, and removing it restores the texture's rule.
    let wall = tile(&app, map, 4, 3);
    app.world_mut().entity_mut(wall).insert(TileNav::Cost(3));
    app.update();
    assert_eq!(cell(&app, 4, 3), Cell::Passable { cost: 3 });
    // Overrides are changed by inserting another (they are immutable).
    app.world_mut().entity_mut(wall).insert(TileNav::Cost(7));
    app.update();
    assert_eq!(cell(&app, 4, 3), Cell::Passable { cost: 7 });
    app.world_mut().entity_mut(wall).remove::<TileNav>();
    app.update();
    assert_eq!(cell(&app, 4, 3), Cell::Blocked);

    // A removed tile is "missing": ground by default.
    let removed = tile(&app, map, 4, 2);
    app.world_mut().get_mut::<TileStorage>(map).unwrap().remove(&TilePos { x: 4, y: 2 });
    app.world_mut().despawn(removed);
    app.update();
    assert_eq!(cell(&app, 4, 2), Cell::GROUND);
}

/// A level rewritten in one frame (a large share of the tiles change, so the grid takes them
/// all at once): the message lists every changed cell, and jump point search on the plugin's
/// grid finds the same costs as on a grid built cell by cell from the same rows.
#[test]
fn a_level_rewritten_in_one_frame_is_searched_like_a_fresh_grid() {
    let (width, height) = (24u32, 16u32);
    let floor: Vec<String> = (0..height).map(|_| ".".repeat(width as usize)).collect();
    let rows: Vec<&str> = floor.iter().map(String::as_str).collect();
    let mut app = app();
    let map = spawn_map(&mut app, &rows);
    app.update();
    // Combs of wall with gaps that move from tooth to tooth, then the other way round.
    let patterns: [fn(u32, u32) -> bool; 2] =
        [|x, y| x % 4 == 2 && y != (x * 3) % 16, |x, y| y % 3 == 1 && x != (y * 5) % 24];
    for wall_at in patterns {
        let mut expected = NavGrid::new(width, height).unwrap();
        let mut changed = Vec::new();
        for y in 0..height {
            for x in 0..width {
                let pos = GridPos::new(x, y);
                let wall = wall_at(x, y);
                let texture = if wall { WALL } else { FLOOR };
                let t = tile(&app, map, x, y);
                let before = app.world().get::<TileTextureIndex>(t).unwrap().0;
                if before != texture {
                    app.world_mut().entity_mut(t).insert(TileTextureIndex(texture));
                    changed.push(pos);
                }
                if wall {
                    expected.set(pos, Cell::Blocked).unwrap();
                }
            }
        }
        app.update();
        assert!(changed.len() * 8 >= (width * height) as usize, "a large share changes");
        let message = last_grid_change(&app);
        changed.sort_unstable();
        assert_eq!(message, Some(NavGridChanged { map, cells: changed }));
        let grid = &app.world().resource::<NavMaps>().first().unwrap().grid;
        assert!(*grid == expected);
        let mut pathfinder = Pathfinder::new();
        let options = SearchOptions { algorithm: Algorithm::JumpPoint, ..Default::default() };
        let open: Vec<GridPos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
        for (k, &start) in open.iter().enumerate().step_by(7) {
            let goal = open[(k * 31 + 5) % open.len()];
            let ours = pathfinder.find(grid, &PathQuery::new(start, goal).with_options(options));
            let fresh =
                pathfinder.find(&expected, &PathQuery::new(start, goal).with_options(options));
            match (ours, fresh) {
                (Ok(a), Ok(b)) => {
                    assert!((a.cost - b.cost).abs() < 1e-9, "{start:?} to {goal:?}");
                    assert!(a.cells.iter().all(|&c| grid.is_passable(c)));
                }
                (a, b) => assert_eq!(a.err(), b.err(), "{start:?} to {goal:?}"),
            }
        }
    }
}

#[test]
fn two_layers_combine_blocked_wins_and_cost_is_the_highest() {
    let mut app = app();
    spawn_map(&mut app, &["~~..", "...."]);
    spawn_map(&mut app, &["..~#", "  ~ "]);
    app.update();
    let grid = &app.world().resource::<NavMaps>().first().unwrap().grid;
    let at = |x, y| grid.get(GridPos::new(x, y)).unwrap();
    // Top row (y = 1): mud+floor, mud+floor, floor+mud, floor+wall.
    assert_eq!(at(0, 1), Cell::Passable { cost: 5 });
    assert_eq!(at(2, 1), Cell::Passable { cost: 5 });
    assert_eq!(at(3, 1), Cell::Blocked);
    // Bottom row: missing tiles in the prop layer count as ground.
    assert_eq!(at(0, 0), Cell::GROUND);
    assert_eq!(at(2, 0), Cell::Passable { cost: 5 });
}

#[test]
fn bad_goals_get_path_failed_never_a_panic() {
    let mut app = app();
    spawn_map(&mut app, &ROOM);
    app.update();
    let start = GridPos::new(1, 1);
    let off_map = spawn_agent(&mut app, start, GridPos::new(50, 1), 10.0);
    let on_wall = spawn_agent(&mut app, start, GridPos::new(4, 2), 10.0);
    let nan = spawn_agent(&mut app, start, Vec2::new(f32::NAN, 3.0), 10.0);
    let world_off = spawn_agent(&mut app, start, Vec2::new(-500.0, 3.0), 10.0);
    let no_transform = app.world_mut().spawn(PathRequest::to(GridPos::new(2, 2))).id();
    let nan_start = app
        .world_mut()
        .spawn((Transform::from_xyz(f32::NAN, 0.0, 0.0), PathRequest::to(GridPos::new(2, 2))))
        .id();
    app.update();
    let error = |e: Entity| app.world().get::<PathFailed>(e).map(|f| f.error.clone());
    assert!(matches!(error(off_map), Some(NavError::Search(PathError::GoalOutOfBounds { .. }))));
    assert!(matches!(error(on_wall), Some(NavError::Search(PathError::GoalBlocked { .. }))));
    assert!(matches!(error(nan), Some(NavError::Goal(WorldToCellError::NotFinite(_)))));
    assert!(matches!(error(world_off), Some(NavError::Goal(WorldToCellError::OffMap(_)))));
    assert_eq!(error(no_transform), Some(NavError::NoTransform));
    assert!(matches!(error(nan_start), Some(NavError::Start(WorldToCellError::NotFinite(_)))));
    for e in [off_map, on_wall, nan, world_off, no_transform, nan_start] {
        assert!(app.world().get::<PathRequest>(e).is_none());
        assert!(app.world().get::<NavPath>(e).is_none());
    }
    // A request before any tilemap exists.
    let mut bare = self::app();
    let early =
        bare.world_mut().spawn((Transform::default(), PathRequest::to(GridPos::new(0, 0)))).id();
    bare.update();
    assert_eq!(
        bare.world().get::<PathFailed>(early).map(|f| f.error.clone()),
        Some(NavError::NoGrid)
    );
}

#[test]
fn two_hundred_agents_in_one_frame_are_all_answered_within_the_budget() {
    let mut app = app();
    spawn_map(&mut app, &ROOM);
    app.update();
    let per_frame = app.world().resource::<NavSettings>().max_requests_per_frame;
    let agents: Vec<Entity> = (0..200u32)
        .map(|i| {
            let start = GridPos::new(i % 4, i % 7);
            let goal = GridPos::new(5 + i % 5, (i / 5) % 7);
            spawn_agent(&mut app, start, goal, 0.0)
        })
        .collect();
    let frames_allowed = 200usize.div_ceil(per_frame);
    let mut answered_per_frame = Vec::new();
    for _ in 0..frames_allowed {
        app.update();
        let answered = agents.iter().filter(|&&a| app.world().get::<NavPath>(a).is_some()).count();
        answered_per_frame.push(answered);
    }
    assert_eq!(*answered_per_frame.last().unwrap(), 200, "{answered_per_frame:?}");
    // The budget holds: no frame answers more than allowed.
    for (frame, &answered) in answered_per_frame.iter().enumerate() {
        assert!(answered <= per_frame * (frame + 1), "{answered_per_frame:?}");
    }
}

#[test]
fn diagnostics_report_each_frames_work_and_each_systems_time() {
    let mut app = app();
    spawn_map(&mut app, &ROOM);
    app.update();
    // The new map's grid is warmed for its searches in its first frame, and that time shows.
    let first = diagnostics(&app);
    assert!(first.warm_time > Duration::ZERO);
    assert!(first.systems_time() >= first.sync_time + first.warm_time);
    let agent = spawn_agent(&mut app, GridPos::new(0, 0), GridPos::new(9, 0), 4.0);
    app.update();
    let frame = diagnostics(&app);
    assert_eq!((frame.searches_started, frame.searches_finished), (1, 1));
    assert!(frame.expansions > 0);
    // Every system ran and timed itself; the total is their sum.
    assert!(frame.sync_time > Duration::ZERO && frame.pathfind_time > Duration::ZERO);
    assert!(frame.move_time > Duration::ZERO && frame.pursue_time > Duration::ZERO);
    let parts = frame.sync_time
        + frame.pathfind_time
        + frame.pursue_time
        + frame.field_time
        + frame.move_time
        + frame.precompute_time
        + frame.warm_time;
    assert_eq!(frame.systems_time(), parts);
    assert!(app.world().get::<NavPath>(agent).is_some());
    // The next frame starts afresh: no search, the counts back to zero.
    app.update();
    let next = diagnostics(&app);
    assert_eq!((next.searches_started, next.searches_finished, next.expansions), (0, 0, 0));
}

#[test]
fn requests_are_answered_in_arrival_order() {
    let mut app = app();
    app.insert_resource(NavSettings { max_requests_per_frame: 3, ..settings() });
    spawn_map(&mut app, &ROOM);
    app.update();
    let agents: Vec<Entity> = (0..7u32)
        .map(|i| spawn_agent(&mut app, GridPos::new(0, i), GridPos::new(9, i), 0.0))
        .collect();
    app.update();
    let done = |app: &App| {
        agents.iter().map(|&a| app.world().get::<NavPath>(a).is_some()).collect::<Vec<_>>()
    };
    assert_eq!(done(&app), [true, true, true, false, false, false, false]);
    app.update();
    assert_eq!(done(&app), [true, true, true, true, true, true, false]);
    app.update();
    assert!(done(&app).iter().all(|&d| d));
}

#[test]
fn a_request_replaced_while_waiting_keeps_its_place() {
    let mut app = app();
    app.insert_resource(NavSettings { max_requests_per_frame: 1, ..settings() });
    spawn_map(&mut app, &ROOM);
    app.update();
    let agents: Vec<Entity> = (0..3u32)
        .map(|i| spawn_agent(&mut app, GridPos::new(0, i), GridPos::new(9, i), 0.0))
        .collect();
    app.update(); // the first is answered
    // The third and then the second renew their requests while waiting.
    for &agent in [agents[2], agents[1]].iter() {
        app.world_mut().entity_mut(agent).insert(PathRequest::to(GridPos::new(8, 6)));
    }
    app.update();
    let has_path = |app: &App, k: usize| app.world().get::<NavPath>(agents[k]).is_some();
    assert!(has_path(&app, 1) && !has_path(&app, 2), "the second keeps its place");
    assert_eq!(app.world().get::<NavPath>(agents[1]).unwrap().goal, GridPos::new(8, 6));
    app.update();
    assert!(has_path(&app, 2));
}

#[test]
fn agents_walk_around_an_obstacle_character() {
    let mut app = app();
    spawn_map(&mut app, &["..........", "..........", ".........."]);
    app.update();
    // A character stands in the middle of the straight route along the bottom row.
    let blocker = centre(&app, GridPos::new(5, 0));
    app.world_mut()
        .spawn((Transform::from_translation(blocker.extend(1.0)), NavObstacle::default()));
    let (start, goal) = (GridPos::new(0, 0), GridPos::new(9, 0));
    let agent = spawn_agent(&mut app, start, goal, 64.0);
    app.update();
    let path = app.world().get::<NavPath>(agent).unwrap().clone();
    assert!(!path.cells.contains(&GridPos::new(5, 0)), "{:?}", path.cells);
    for frame in 0..400 {
        app.update();
        let at = app.world().get::<Transform>(agent).unwrap().translation.truncate();
        let cell =
            app.world().resource::<NavMaps>().first().unwrap().geometry.world_to_cell(at).unwrap();
        assert_ne!(cell, GridPos::new(5, 0), "frame {frame}: walked into the other character");
        if arrivals(&app).iter().any(|a| a.entity == agent) {
            return;
        }
    }
    panic!("did not arrive");
}

#[test]
fn agent_caught_by_a_new_wall_steps_out_and_goes_on() {
    let mut app = app();
    let map = spawn_map(&mut app, &["..........", "..........", ".........."]);
    app.update();
    let goal = GridPos::new(9, 1);
    let agent = spawn_agent(&mut app, GridPos::new(0, 1), goal, 32.0);
    app.update();
    // Walk until the agent is past the centre of cell (3, 1) (the cell behind it on its path is
    // then (3, 1) itself), and build a wall right there.
    let geometry = app.world().resource::<NavMaps>().first().unwrap().geometry;
    let wall_centre = centre(&app, GridPos::new(3, 1));
    for _ in 0..400 {
        app.update();
        let at = app.world().get::<Transform>(agent).unwrap().translation.truncate();
        if geometry.world_to_cell(at) == Ok(GridPos::new(3, 1)) && at.x > wall_centre.x {
            break;
        }
    }
    let t = tile(&app, map, 3, 1);
    app.world_mut().entity_mut(t).insert(TileTextureIndex(WALL));
    let mut arrived = false;
    for _ in 0..600 {
        app.update();
        assert!(app.world().get::<PathFailed>(agent).is_none(), "it must not give up");
        if arrivals(&app).iter().any(|a| a.entity == agent) {
            arrived = true;
            break;
        }
    }
    assert!(arrived);
    let at = app.world().get::<Transform>(agent).unwrap().translation.truncate();
    assert_eq!(at, centre(&app, goal));
}

#[test]
fn a_new_request_replaces_the_one_being_walked() {
    let mut app = app();
    spawn_map(&mut app, &ROOM);
    app.update();
    let agent = spawn_agent(&mut app, GridPos::new(0, 0), GridPos::new(3, 0), 32.0);
    app.update();
    for _ in 0..5 {
        app.update();
    }
    let second = GridPos::new(0, 6);
    app.world_mut().entity_mut(agent).insert(PathRequest::to(second));
    walk_until_arrived(&mut app, agent, 1_000);
    let at = app.world().get::<Transform>(agent).unwrap().translation.truncate();
    assert_eq!(at, centre(&app, second));
}

#[test]
fn partial_request_walks_to_the_closest_reachable_cell() {
    let mut app = app();
    spawn_map(&mut app, &["....#...", "....#...", "....#..."]);
    app.update();
    let options = SearchOptions { partial: true, ..SearchOptions::default() };
    let position = centre(&app, GridPos::new(0, 1));
    let agent = app
        .world_mut()
        .spawn((
            Transform::from_translation(position.extend(0.0)),
            PathFollower::new(64.0),
            PathRequest::to(GridPos::new(7, 1)).with_options(options),
        ))
        .id();
    app.update();
    let path = app.world().get::<NavPath>(agent).unwrap().clone();
    assert!(!path.complete);
    assert_eq!(path.cells.last(), Some(&GridPos::new(3, 1)));
    for _ in 0..200 {
        app.update();
        if let Some(a) = arrivals(&app).into_iter().find(|a| a.entity == agent) {
            assert!(!a.reached_goal);
            assert_eq!(a.cell, GridPos::new(3, 1));
            return;
        }
    }
    panic!("did not arrive");
}

#[test]
fn the_grid_can_start_from_baked_data() {
    use bevy_tilemap_nav::io::baked;
    // Baked data says (1, 1) is a wall although the tiles are all floor: the baked grid is used.
    let mut grid = NavGrid::new(4, 3).unwrap();
    grid.set(GridPos::new(1, 1), Cell::Blocked).unwrap();
    let loaded = baked::from_binary(&baked::to_binary(&grid)).unwrap();
    let mut app = app();
    app.insert_resource(BakedNavGrid(loaded));
    let map = spawn_map(&mut app, &["....", "....", "...."]);
    app.update();
    assert_eq!(app.world().resource::<NavMaps>().first().unwrap().grid, grid);
    // Tile changes still apply on top of it.
    let t = tile(&app, map, 3, 0);
    app.world_mut().entity_mut(t).insert(TileTextureIndex(WALL));
    app.update();
    assert_eq!(
        app.world().resource::<NavMaps>().first().unwrap().grid.get(GridPos::new(3, 0)),
        Some(Cell::Blocked)
    );
    assert_eq!(
        app.world().resource::<NavMaps>().first().unwrap().grid.get(GridPos::new(1, 1)),
        Some(Cell::Blocked)
    );

    // Baked data of the wrong size: a warning, and the tiles are scanned instead.
    let mut app = self::app();
    app.insert_resource(BakedNavGrid(NavGrid::new(9, 9).unwrap()));
    spawn_map(&mut app, &["....", "....", "...."]);
    app.update();
    assert_eq!(app.world().resource::<NavMaps>().first().unwrap().grid.width(), 4);
    assert_eq!(
        app.world().resource::<NavMaps>().first().unwrap().grid.get(GridPos::new(1, 1)),
        Some(Cell::GROUND)
    );
    let warned =
        app.world().resource::<Messages<TilemapNavWarning>>().iter_current_update_messages().any(
            |w| matches!(w.error, TilemapNavError::Baked(baked::BakeError::SizeMismatch { .. })),
        );
    assert!(warned);
}

fn spawn_smooth_agent(app: &mut App, at: GridPos, goal: GridPos, speed: f32) -> Entity {
    let position = centre(app, at);
    app.world_mut()
        .spawn((
            Transform::from_translation(position.extend(1.0)),
            PathFollower::smoothed(speed),
            PathRequest::to(goal),
        ))
        .id()
}

#[test]
fn smoothed_follower_walks_a_straight_line_across_open_floor() {
    let mut app = app();
    spawn_map(&mut app, &ROOM);
    app.update();
    let (start, goal) = (GridPos::new(0, 0), GridPos::new(3, 6));
    let agent = spawn_smooth_agent(&mut app, start, goal, 48.0);
    app.update();
    let path = app.world().get::<NavPath>(agent).unwrap().clone();
    assert_eq!(path.corners, vec![0, path.cells.len() - 1], "{:?}", path.cells);
    let (a, b) = (centre(&app, start), centre(&app, goal));
    let direction = (b - a).normalize();
    let frames = walk_until_arrived(&mut app, agent, 600);
    assert!(frames > 0);
    // Every position it passed was on the straight line (checked at arrival and along the way
    // by re-running with samples).
    let end = app.world().get::<Transform>(agent).unwrap().translation.truncate();
    assert_eq!(end, b);
    let mut app = self::app();
    spawn_map(&mut app, &ROOM);
    app.update();
    let agent = spawn_smooth_agent(&mut app, start, goal, 48.0);
    for _ in 0..20 {
        app.update();
        let at = app.world().get::<Transform>(agent).unwrap().translation.truncate();
        let off_line = (at - a).perp_dot(direction).abs();
        assert!(off_line < 1e-3, "{at} is {off_line} off the straight line");
    }
}

#[test]
fn smoothed_follower_replans_when_a_wall_cuts_its_straight_line() {
    let mut app = app();
    let map = spawn_map(&mut app, &["..........", "..........", "..........", ".........."]);
    app.update();
    let (start, goal) = (GridPos::new(0, 0), GridPos::new(9, 3));
    let agent = spawn_smooth_agent(&mut app, start, goal, 32.0);
    app.update();
    let path = app.world().get::<NavPath>(agent).unwrap().clone();
    assert_eq!(path.corners.len(), 2);
    // Wall off a cell the straight line crosses but the grid path may not: (6, 2).
    let crossed = bevy_tilemap_nav::grid::line::segment_cells(
        &app.world().resource::<NavMaps>().first().unwrap().grid,
        start,
        goal,
    )
    .unwrap();
    let target = *crossed.iter().find(|c| c.x >= 6).unwrap();
    let t = tile(&app, map, target.x, target.y);
    app.world_mut().entity_mut(t).insert(TileTextureIndex(WALL));
    walk_until_arrived(&mut app, agent, 1_000);
    let end = app.world().get::<Transform>(agent).unwrap().translation.truncate();
    assert_eq!(end, centre(&app, goal));
}

#[test]
fn watched_agents_get_a_recording_of_their_search() {
    let mut app = app();
    spawn_map(&mut app, &ROOM);
    app.update();
    let agent = spawn_agent(&mut app, GridPos::new(1, 1), GridPos::new(8, 1), 0.0);
    app.world_mut().entity_mut(agent).insert(TraceSearch { step: 7 });
    let unwatched = spawn_agent(&mut app, GridPos::new(1, 1), GridPos::new(8, 1), 0.0);
    app.update();
    let path = app.world().get::<NavPath>(agent).unwrap().clone();
    let TracedSearch(trace) = app.world().get::<TracedSearch>(agent).unwrap().clone();
    assert_eq!(trace.expanded.len(), path.expanded as usize);
    assert_eq!(trace.expanded[0], GridPos::new(1, 1));
    // A new recording starts at step 0.
    assert_eq!(app.world().get::<TraceSearch>(agent), Some(&TraceSearch { step: 0 }));
    assert!(app.world().get::<TracedSearch>(unwatched).is_none());
}

fn warnings(app: &App) -> Vec<TilemapNavError> {
    let messages = app.world().resource::<Messages<TilemapNavWarning>>();
    messages.iter_current_update_messages().map(|w| w.error.clone()).collect()
}

fn passable_count(app: &App) -> usize {
    let grid = &app.world().resource::<NavMaps>().first().unwrap().grid;
    grid.positions().filter(|&p| grid.is_passable(p)).count()
}

#[test]
fn tilemaps_no_grid_can_take_are_left_out_with_a_warning_and_other_sizes_are_other_maps() {
    let mut app = app();
    let room = spawn_map(&mut app, &ROOM);
    app.update();
    let walls_in_room = 10 * 7 - passable_count(&app);
    assert_eq!(walls_in_room, 5);

    // Another size (another map), no size at all, and a TilemapSize its TileStorage does not
    // back.
    let small = spawn_map(&mut app, &["#....", ".....", ".....", ".....", "....#"]);
    let empty = app
        .world_mut()
        .spawn((
            TileStorage::empty(TilemapSize { x: 0, y: 0 }),
            TilemapSize { x: 0, y: 0 },
            TilemapGridSize { x: TILE, y: TILE },
            TilemapTileSize { x: TILE, y: TILE },
            TilemapType::Square,
            Transform::default(),
            NavTilemap,
        ))
        .id();
    let liar = spawn_map(&mut app, &["#.#", "...", "#.#"]);
    app.world_mut().entity_mut(liar).insert(TilemapSize { x: 100_000, y: 100_000 });
    app.update();

    let got = warnings(&app);
    assert!(got.contains(&TilemapNavError::Empty { tilemap: empty }));
    assert!(got.iter().any(|e| matches!(
        e,
        TilemapNavError::InconsistentSize { tilemap, storage_tiles: 9, .. } if *tilemap == liar
    )));
    assert_eq!(got.len(), 2, "{got:?}");
    // Two maps: the room, and the small one; neither has the other's walls.
    let maps = app.world().resource::<NavMaps>();
    assert_eq!(maps.len(), 2);
    let room_map = maps.get(room).expect("the room is a map of its own");
    assert_eq!((room_map.grid.width(), room_map.grid.height()), (10, 7));
    assert_eq!(room_map.grid.passable_count(), 10 * 7 - walls_in_room);
    assert_eq!(room_map.geometry.tilemap, room);
    assert_eq!(maps.of_tilemap(small).map(|m| m.entity), Some(small));
    assert_eq!(maps.get(small).unwrap().grid.passable_count(), 25 - 2);
    assert!(maps.of_tilemap(liar).is_none() && maps.of_tilemap(empty).is_none());
    // And it still answers requests.
    let agent = spawn_agent(&mut app, GridPos::new(1, 1), GridPos::new(8, 1), 200.0);
    walk_until_arrived(&mut app, agent, 400);
}

#[test]
fn despawning_tilemaps_while_agents_walk() {
    let mut app = app();
    let room = spawn_map(&mut app, &ROOM);
    // A prop layer of the same size with one crate in a corner, off the agent's way.
    let props = spawn_map(
        &mut app,
        &[
            "#         ",
            "          ",
            "          ",
            "          ",
            "          ",
            "          ",
            "          ",
        ],
    );
    app.update();
    let corner = GridPos::new(0, 6);
    assert!(!app.world().resource::<NavMaps>().first().unwrap().grid.is_passable(corner));

    // The prop layer goes while the agent walks: its crate leaves the grid, the walk goes on.
    let agent = spawn_agent(&mut app, GridPos::new(1, 1), GridPos::new(8, 1), 32.0);
    for _ in 0..10 {
        app.update();
    }
    app.world_mut().despawn(props);
    app.update();
    assert!(app.world().resource::<NavMaps>().first().unwrap().grid.is_passable(corner));
    assert!(app.world().get::<NavPath>(agent).is_some(), "still walking");
    walk_until_arrived(&mut app, agent, 600);

    // The last tilemap goes while the agent walks: no grid, so it stops where it is and says so.
    app.world_mut().entity_mut(agent).insert(PathRequest::to(GridPos::new(1, 1)));
    for _ in 0..10 {
        app.update();
    }
    assert!(app.world().get::<NavPath>(agent).is_some());
    app.world_mut().despawn(room);
    app.update();
    assert!(app.world().resource::<NavMaps>().is_empty());
    assert_eq!(
        app.world().get::<PathFailed>(agent).map(|f| f.error.clone()),
        Some(NavError::NoGrid)
    );
    assert!(app.world().get::<NavPath>(agent).is_none());
    let stopped = app.world().get::<Transform>(agent).unwrap().translation;
    for _ in 0..10 {
        app.update();
    }
    assert_eq!(app.world().get::<Transform>(agent).unwrap().translation, stopped);
    // A new request fails plainly too.
    app.world_mut().entity_mut(agent).insert(PathRequest::to(GridPos::new(2, 2)));
    app.update();
    assert_eq!(
        app.world().get::<PathFailed>(agent).map(|f| f.error.clone()),
        Some(NavError::NoGrid)
    );
}

#[test]
fn costs_of_zero_read_as_ground() {
    let mut app = app();
    app.insert_resource(
        TileRules::default().with(WALL, Cell::Blocked).with(MUD, Cell::Passable { cost: 0 }),
    );
    let map = spawn_map(&mut app, &["~..", "...", "..."]);
    app.update();
    let mud = GridPos::new(0, 2);
    assert_eq!(
        app.world().resource::<NavMaps>().first().unwrap().grid.get(mud),
        Some(Cell::GROUND)
    );
    let floor = tile(&app, map, 1, 1);
    app.world_mut().entity_mut(floor).insert(TileNav::Cost(0));
    app.update();
    assert_eq!(
        app.world().resource::<NavMaps>().first().unwrap().grid.get(GridPos::new(1, 1)),
        Some(Cell::GROUND)
    );
    let agent = spawn_agent(&mut app, GridPos::new(2, 0), mud, 100.0);
    walk_until_arrived(&mut app, agent, 200);
}

#[test]
fn non_finite_and_off_map_positions_stop_the_agent_with_a_typed_error() {
    let mut app = app();
    spawn_map(&mut app, &ROOM);
    app.update();
    // Below and left of the map: negative world coordinates.
    let outside = app
        .world_mut()
        .spawn((Transform::from_xyz(-40.0, -40.0, 0.0), PathRequest::to(GridPos::new(2, 2))))
        .id();
    let walker = spawn_agent(&mut app, GridPos::new(1, 1), GridPos::new(8, 1), 32.0);
    for _ in 0..5 {
        app.update();
    }
    assert!(matches!(
        app.world().get::<PathFailed>(outside).map(|f| f.error.clone()),
        Some(NavError::Start(WorldToCellError::OffMap(_)))
    ));
    // Game code writes a NaN position mid-walk.
    app.world_mut().get_mut::<Transform>(walker).unwrap().translation.x = f32::NAN;
    app.update();
    assert!(matches!(
        app.world().get::<PathFailed>(walker).map(|f| f.error.clone()),
        Some(NavError::Start(WorldToCellError::NotFinite(_)))
    ));
    assert!(app.world().get::<NavPath>(walker).is_none());
    // A NaN speed or a hand-made path whose cells and points differ: nothing moves, no panic.
    let odd = spawn_agent(&mut app, GridPos::new(1, 1), GridPos::new(3, 1), f32::NAN);
    for _ in 0..5 {
        app.update();
    }
    let mut path = app.world().get::<NavPath>(odd).expect("answered").clone();
    path.cells.pop();
    app.world_mut().entity_mut(odd).insert((path, PathFollower::new(50.0)));
    let before = app.world().get::<Transform>(odd).unwrap().translation;
    for _ in 0..5 {
        app.update();
    }
    assert_eq!(app.world().get::<Transform>(odd).unwrap().translation, before);
}

fn set_tile(app: &mut App, map: Entity, cell: GridPos, texture: u32) {
    let tile = tile(app, map, cell.x, cell.y);
    app.world_mut().entity_mut(tile).insert(TileTextureIndex(texture));
}

fn diagnostics(app: &App) -> NavDiagnostics {
    *app.world().resource::<NavDiagnostics>()
}

/// A wide open map for the tests below: 64 x 16 floor.
fn open_map(app: &mut App) -> Entity {
    let rows = vec![".".repeat(64); 16];
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    spawn_map(app, &rows)
}

#[test]
fn a_grid_change_checks_only_the_paths_that_pass_near_it() {
    let mut app = app();
    let map = open_map(&mut app);
    app.update();
    // Two agents walking slowly along the bottom and top rows.
    let low = spawn_agent(&mut app, GridPos::new(1, 1), GridPos::new(62, 1), 8.0);
    let high = spawn_agent(&mut app, GridPos::new(1, 14), GridPos::new(62, 14), 8.0);
    app.update();
    let low_path = app.world().get::<NavPath>(low).unwrap().clone();
    let high_path = app.world().get::<NavPath>(high).unwrap().clone();
    app.update();

    // A wall far from both paths: nobody is checked, both keep their paths.
    set_tile(&mut app, map, GridPos::new(40, 7), WALL);
    app.update();
    assert_eq!(last_grid_change(&app).unwrap().cells, vec![GridPos::new(40, 7)]);
    assert_eq!(diagnostics(&app).paths_checked, 0);
    assert_eq!(diagnostics(&app).replans, 0);

    // A wall across the top path: only that agent is checked, and it plans again.
    set_tile(&mut app, map, GridPos::new(40, 14), WALL);
    app.update();
    assert_eq!(diagnostics(&app).paths_checked, 1);
    assert_eq!(diagnostics(&app).replans, 1);
    assert!(app.world().get::<Replanning>(high).is_some());
    assert_eq!(app.world().get::<NavPath>(low).unwrap().cells, low_path.cells);
    assert!(app.world().get::<Replanning>(low).is_none());

    // A wall right beside the bottom path: it is checked (it passes beside the change), found
    // still walkable (straight steps do not touch the corner), and kept.
    set_tile(&mut app, map, GridPos::new(30, 2), WALL);
    app.update();
    assert_eq!(diagnostics(&app).paths_checked, 1);
    assert_eq!(diagnostics(&app).replans, 0);
    assert_eq!(app.world().get::<NavPath>(low).unwrap().cells, low_path.cells);
    // It arrives, on legal cells all the way.
    app.world_mut().get_mut::<PathFollower>(low).unwrap().speed = 160.0;
    walk_until_arrived(&mut app, low, 2000);
    assert_ne!(app.world().get::<NavPath>(high).map(|p| p.cells.clone()), Some(high_path.cells));
}

#[test]
fn a_wall_beside_a_diagonal_step_cuts_the_path() {
    // The path steps diagonally from (2, 1) to (3, 2); walling (3, 1), beside that step and not
    // on the path, makes it illegal under no corner cutting: caught, and planned again.
    let mut app = app();
    let map = open_map(&mut app);
    app.update();
    let agent = spawn_agent(&mut app, GridPos::new(0, 0), GridPos::new(10, 3), 0.0);
    app.update();
    let path = app.world().get::<NavPath>(agent).unwrap().clone();
    let diagonal = path
        .cells
        .windows(2)
        .find(|w| w[0].x != w[1].x && w[0].y != w[1].y)
        .expect("a diagonal step")
        .to_vec();
    let beside = GridPos::new(diagonal[1].x, diagonal[0].y);
    assert!(!path.cells.contains(&beside));
    set_tile(&mut app, map, beside, WALL);
    app.update();
    assert_eq!(diagnostics(&app).paths_checked, 1);
    assert_eq!(diagnostics(&app).replans, 1);
    app.update();
    let new_path = app.world().get::<NavPath>(agent).unwrap();
    let grid = &app.world().resource::<NavMaps>().first().unwrap().grid;
    assert!(bevy_tilemap_nav::path::path_cost(grid, &new_path.cells).is_some());
}

/// Spawns an agent with a plain A* request (many expansions on open floor).
fn spawn_astar_agent(app: &mut App, at: GridPos, goal: GridPos) -> Entity {
    let position = centre(app, at);
    let astar = SearchOptions { algorithm: Algorithm::AStar, ..SearchOptions::default() };
    app.world_mut()
        .spawn((
            Transform::from_translation(position.extend(1.0)),
            PathFollower::new(0.0),
            PathRequest::to(goal).with_options(astar),
        ))
        .id()
}

/// Runs frames until `agent` has a path, checking the frame's expansions stay in the budget;
/// returns the path and the number of frames.
fn frames_until_path(app: &mut App, agent: Entity, budget: u64) -> (NavPath, usize) {
    for frame in 1..1000 {
        app.update();
        let d = diagnostics(app);
        assert!(d.expansions <= budget, "frame {frame}: {} expansions", d.expansions);
        if let Some(path) = app.world().get::<NavPath>(agent) {
            return (path.clone(), frame);
        }
    }
    panic!("no path");
}

/// The open map with a long wall at x = 32 (a gap at the top, so that A* expands a good part
/// of the map), built, with these settings.
fn walled_map(settings: NavSettings) -> (App, Entity) {
    let mut app = app();
    app.insert_resource(settings);
    let map = open_map(&mut app);
    for y in 0..14 {
        set_tile(&mut app, map, GridPos::new(32, y), WALL);
    }
    app.update();
    (app, map)
}

#[test]
fn a_long_search_is_spread_over_frames_and_answers_as_in_one_go() {
    let budget = 40;
    let (mut app, _) = walled_map(searching(budget));
    let (start, goal) = (GridPos::new(2, 2), GridPos::new(60, 2));
    let agent = spawn_astar_agent(&mut app, start, goal);
    let (path, frames) = frames_until_path(&mut app, agent, budget);
    assert!(frames > 3, "answered in {frames} frames");
    let grid = app.world().resource::<NavMaps>().first().unwrap().grid.clone();
    let astar = SearchOptions { algorithm: Algorithm::AStar, ..SearchOptions::default() };
    let whole =
        Pathfinder::new().find(&grid, &PathQuery::new(start, goal).with_options(astar)).unwrap();
    assert_eq!(path.cells, whole.cells);
    assert_eq!(path.expanded, whole.stats.expanded);
}

#[test]
fn a_spread_search_answers_for_the_grid_as_it_is_when_it_ends() {
    let astar = SearchOptions { algorithm: Algorithm::AStar, ..SearchOptions::default() };
    let (start, goal) = (GridPos::new(2, 2), GridPos::new(60, 2));
    for opened in [false, true] {
        let budget = 40;
        let settings = searching(budget);
        let (mut app, map) = walled_map(settings);
        let agent = spawn_astar_agent(&mut app, start, goal);
        let mut redone = 0;
        for _ in 0..2 {
            app.update();
            assert!(diagnostics(&app).search_paused);
        }
        // A wall far away while it runs: it begins again on a frozen copy of the new grid.
        set_tile(&mut app, map, GridPos::new(5, 12), WALL);
        for _ in 0..2 {
            app.update();
            assert!(diagnostics(&app).search_paused);
            redone += diagnostics(&app).searches_redone;
        }
        // Then, while that runs: another wall far away (the grid only loses ground: its answer
        // stands), or a gap low in the long wall (a much shorter way: it begins again).
        if opened {
            set_tile(&mut app, map, GridPos::new(32, 2), FLOOR);
        } else {
            set_tile(&mut app, map, GridPos::new(6, 12), WALL);
        }
        let mut found = None;
        for _ in 0..1000 {
            app.update();
            assert!(diagnostics(&app).expansions <= budget);
            redone += diagnostics(&app).searches_redone;
            if let Some(path) = app.world().get::<NavPath>(agent) {
                found = Some(path.clone());
                break;
            }
        }
        let path = found.expect("a path");
        assert_eq!(redone, if opened { 2 } else { 1 });
        let grid = app.world().resource::<NavMaps>().first().unwrap().grid.clone();
        let best = Pathfinder::new()
            .find(&grid, &PathQuery::new(start, goal).with_options(astar))
            .unwrap();
        assert!((path.cost - best.cost).abs() < 1e-9, "{opened}: {} vs {}", path.cost, best.cost);
        assert!(bevy_tilemap_nav::path::path_cost(&grid, &path.cells).is_some());
        assert_eq!(path.cells.contains(&GridPos::new(32, 2)), opened);
    }
}

/// A plain A* request for the nearest of `cells` (many expansions on open floor).
fn nearest_request(cells: &[GridPos]) -> PathRequest {
    let astar = SearchOptions { algorithm: Algorithm::AStar, ..SearchOptions::default() };
    PathRequest::to(PathGoal::Nearest(cells.to_vec())).with_options(astar)
}

/// Spawns an agent at `at` asking for the nearest of `cells` ([`nearest_request`]).
fn spawn_nearest_agent(app: &mut App, at: GridPos, cells: &[GridPos]) -> Entity {
    let position = centre(app, at).extend(1.0);
    let follower = PathFollower::new(0.0);
    let request = nearest_request(cells);
    app.world_mut().spawn((Transform::from_translation(position), follower, request)).id()
}

/// The cheapest path from `start` to any of `cells` on the first map's grid as it is now,
/// searched in one go.
fn nearest_in_one_go(app: &App, start: GridPos, cells: &[GridPos]) -> PathResult {
    let grid = &app.world().resource::<NavMaps>().first().unwrap().grid;
    let astar = SearchOptions { algorithm: Algorithm::AStar, ..SearchOptions::default() };
    Pathfinder::new().find(grid, &PathQuery::nearest(start, cells).with_options(astar)).unwrap()
}

#[test]
fn a_far_nearest_is_spread_over_frames_and_answers_as_in_one_go() {
    // Beyond the long wall, all of them: the search expands most of the map.
    let cells = [GridPos::new(60, 2), GridPos::new(62, 12), GridPos::new(40, 0)];
    let start = GridPos::new(2, 2);
    let budget = 40;
    let (mut app, _) = walled_map(searching(budget));
    let agent = spawn_nearest_agent(&mut app, start, &cells);
    let (path, frames) = frames_until_path(&mut app, agent, budget);
    assert!(frames > 3, "answered in {frames} frames");
    let whole = nearest_in_one_go(&app, start, &cells);
    assert!(whole.stats.expanded > 3 * budget as u32, "{}", whole.stats.expanded);
    assert_eq!(path.cells, whole.cells);
    assert_eq!(path.expanded, whole.stats.expanded);
    assert_eq!(path.goal, *path.cells.last().unwrap());
    assert!(cells.contains(&path.goal));
}

#[test]
fn a_spread_nearest_asked_again_goes_on_and_asked_for_other_cells_begins_again() {
    let start = GridPos::new(2, 2);
    let first = [GridPos::new(60, 2), GridPos::new(62, 12)];
    let other = [GridPos::new(50, 8), GridPos::new(2, 15)];
    let budget = 40;
    let mut frames_taken = Vec::new();
    // Asked once; asked again every frame with the same cells; asked for other cells on the
    // third frame, a wall set on the second (it begins again on the grid as it is then).
    for case in 0..3 {
        let (mut app, map) = walled_map(searching(budget));
        let agent = spawn_nearest_agent(&mut app, start, &first);
        let mut path = None;
        for frame in 1..1000 {
            match (case, frame) {
                (1, _) => {
                    app.world_mut().entity_mut(agent).insert(nearest_request(&first));
                }
                (2, 2) => set_tile(&mut app, map, GridPos::new(40, 6), WALL),
                (2, 3) => {
                    app.world_mut().entity_mut(agent).insert(nearest_request(&other));
                }
                _ => {}
            }
            app.update();
            assert!(diagnostics(&app).expansions <= budget, "case {case}, frame {frame}");
            if let Some(found) = app.world().get::<NavPath>(agent) {
                path = Some(found.clone());
                frames_taken.push(frame);
                break;
            }
        }
        let path = path.expect("a path");
        let cells: &[GridPos] = if case == 2 { &other } else { &first };
        let whole = nearest_in_one_go(&app, start, cells);
        assert!(
            (path.cost - whole.cost).abs() < 1e-9,
            "case {case}: {} vs {}",
            path.cost,
            whole.cost
        );
        assert!(cells.contains(&path.goal), "case {case}: {:?}", path.goal);
        let grid = app.world().resource::<NavMaps>().first().unwrap().grid.clone();
        assert!(bevy_tilemap_nav::path::path_cost(&grid, &path.cells).is_some());
    }
    // Asked again for the same: not begun again, so answered as soon as asked once.
    assert_eq!(frames_taken[0], frames_taken[1]);
    assert!(frames_taken[0] > 3, "{frames_taken:?}");
}

#[test]
fn a_search_time_budget_spreads_searches_and_always_makes_progress() {
    // No time at all (the frame's whole time taken by the other systems), or no share of the
    // work for searches: each frame still runs one slice of search, so every request is
    // answered, with the same paths.
    let no_time = WorkBudget { time: Some(Duration::ZERO), ..default() };
    let no_time = NavSettings { work: no_time, ..settings() };
    let mut no_share = settings();
    no_share.work.shares.searches = 0;
    for settings in [no_time, no_share] {
        search_time_budget_case(settings);
    }
}

/// Extreme budgets are read, not trusted: every share and the total at `u64::MAX` and the time
/// at `Duration::MAX` (a game's "no limit") answer in the first frames; all at zero still answer,
/// a little a frame. The same path either way, and no panic.
#[test]
fn extreme_work_budgets_answer_and_never_panic() {
    let all = |n: u64| WorkShares { searches: n, fields: n, precompute: n, warm_up: n };
    let unlimited =
        WorkBudget { units: u64::MAX, time: Some(Duration::MAX), shares: all(u64::MAX) };
    let nothing = WorkBudget { units: 0, time: Some(Duration::ZERO), shares: all(0) };
    let mut paths = Vec::new();
    for (work, most) in [(unlimited, 2), (nothing, 20_000)] {
        let (mut app, _) = walled_map(NavSettings { work, ..settings() });
        let agent = spawn_astar_agent(&mut app, GridPos::new(2, 2), GridPos::new(60, 2));
        let answered = (1..=most).find(|_| {
            app.update();
            app.world().get::<NavPath>(agent).is_some()
        });
        assert!(answered.is_some(), "{work:?}: no path in {most} frames");
        paths.push(app.world().get::<NavPath>(agent).unwrap().cells.clone());
    }
    assert_eq!(paths[0], paths[1]);
}

fn search_time_budget_case(settings: NavSettings) {
    let (mut app, _) = walled_map(settings);
    let (start, goal) = (GridPos::new(2, 2), GridPos::new(60, 2));
    let agent = spawn_astar_agent(&mut app, start, goal);
    let other = spawn_agent(&mut app, GridPos::new(1, 1), GridPos::new(5, 5), 0.0);
    let (path, frames) = frames_until_path(&mut app, agent, 64);
    assert!(frames > 1);
    let grid = app.world().resource::<NavMaps>().first().unwrap().grid.clone();
    let astar = SearchOptions { algorithm: Algorithm::AStar, ..SearchOptions::default() };
    assert_eq!(
        path.cells,
        Pathfinder::new()
            .find(&grid, &PathQuery::new(start, goal).with_options(astar))
            .unwrap()
            .cells
    );
    for _ in 0..3 {
        app.update();
    }
    assert!(app.world().get::<NavPath>(other).is_some());
}

/// Updates the app until `ready` holds ("`what` was never ready" if it does not).
///
/// What is waited for may be built on a background thread, which a busy machine (CI with other
/// builds beside it) can hold up for longer than any number of quick frames: past the first 200
/// frames each frame waits a millisecond, for up to about a minute in all. Not a speed check.
fn update_until(app: &mut App, what: &str, mut ready: impl FnMut(&App) -> bool) {
    let mut frames = 0;
    while !ready(app) {
        app.update();
        frames += 1;
        if frames > 200 {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(frames < 60_000, "{what} was never ready");
    }
}

/// A one-off request from `start` to `goal` by an agent spawned there: its path, answered in one
/// frame (the agent is despawned after).
fn ask_path(app: &mut App, start: GridPos, goal: GridPos) -> NavPath {
    let at = centre(app, start);
    let agent = app
        .world_mut()
        .spawn((Transform::from_translation(at.extend(1.0)), PathRequest::to(goal)))
        .id();
    app.update();
    let path = app.world().get::<NavPath>(agent).expect("a path").clone();
    app.world_mut().despawn(agent);
    path
}

/// The cost online search finds on the first map's grid as it is.
fn online_cost(app: &App, start: GridPos, goal: GridPos) -> f64 {
    let grid = &app.world().resource::<NavMaps>().first().unwrap().grid;
    Pathfinder::new().find(grid, &PathQuery::new(start, goal)).unwrap().cost
}

/// A map marked `PrecomputePaths`: once its table is built (off the main thread), requests are
/// answered from it, with the cost online search finds; after a wall goes up, answers are right
/// at once (online search while the table is stale), and the table is rebuilt and used again.
#[test]
fn precomputed_paths_answer_requests_and_stay_right_after_changes() {
    let rows = [
        "....................",
        "....#.........#.....",
        "....#....######.....",
        "....#...............",
        "....######....#.....",
        "..............#.....",
        "......###.....#.....",
        "....................",
    ];
    tables_answer_and_stay_right(&rows, |nav| {
        nav.path_table().is_some_and(|t| t.is_current(&nav.grid))
    });
}

/// A small map with mud marked `PrecomputePaths`: no path table serves terrain costs, so the
/// plugin keeps a first-move table for it, which answers as the path table does.
#[test]
fn precomputed_first_moves_answer_on_a_small_map_with_terrain() {
    let rows = [
        "....~~~~~~~~~~~.....",
        "....~~~~~~~~~~~.....",
        "....#~~~~######.....",
        "....#~~~~...........",
        "....######~~~~#.....",
        "..........~~~~#.....",
        "......###.~~~~#.....",
        "..........~~~~......",
    ];
    tables_answer_and_stay_right(&rows, |nav| {
        nav.path_table().is_none()
            && nav.landmarks().is_none()
            && nav.first_move_table().is_some_and(|t| t.is_current(&nav.grid))
    });
}

/// The map of `rows` marked `PrecomputePaths`, once `table_ready` holds: table answers with
/// online search's cost, right at once after a wall goes up, and from the table again once it
/// is rebuilt.
fn tables_answer_and_stay_right(rows: &[&str], table_ready: fn(&NavMap) -> bool) {
    let mut app = app();
    let map = spawn_map(&mut app, rows);
    app.world_mut().entity_mut(map).insert(PrecomputePaths);
    let table_ready =
        |app: &App| app.world().resource::<NavMaps>().first().is_some_and(table_ready);
    update_until(&mut app, "the table", table_ready);
    let (start, goal) = (GridPos::new(0, 0), GridPos::new(19, 7));
    let table_answers = |app: &App| app.world().resource::<NavDiagnostics>().table_answers;
    let path = ask_path(&mut app, start, goal);
    assert_eq!(table_answers(&app), 1);
    assert_eq!(path.expanded, 0, "no search ran");
    assert!((path.cost - online_cost(&app, start, goal)).abs() < 1e-9);

    // A wall across the way the path took: the next answer is online search's, on the new grid.
    let cut = path.cells[path.cells.len() / 2];
    let t = tile(&app, map, cut.x, cut.y);
    app.world_mut().entity_mut(t).insert(TileTextureIndex(WALL));
    let path = ask_path(&mut app, start, goal);
    assert_eq!(table_answers(&app), 0);
    assert!(!path.cells.contains(&cut));
    assert!((path.cost - online_cost(&app, start, goal)).abs() < 1e-9);

    // The table catches up, and answers again.
    update_until(&mut app, "the rebuilt table", table_ready);
    let path = ask_path(&mut app, start, goal);
    assert_eq!(table_answers(&app), 1);
    assert!(!path.cells.contains(&cut));
    assert!((path.cost - online_cost(&app, start, goal)).abs() < 1e-9);
}

/// Rows with mud and walls at the bottom and open floor to the right and above: too many open
/// cells for a first-move table, so `PrecomputePaths` keeps landmarks for it.
fn rows_too_big_for_a_first_move_table() -> Vec<String> {
    let rows = [
        "....~~~~~~~~~~~.....",
        "....~~~~~~~~~~~.....",
        "....#~~~~######.....",
        "....#~~~~...........",
        "....######~~~~#.....",
        "..........~~~~#.....",
        "......###.~~~~#.....",
        "..........~~~~......",
    ];
    let (width, height) = (70, 64);
    // The first text row is the top one: these rows stay at the bottom, as y 0 to 7.
    let rows: Vec<String> = (0..height)
        .map(|k| {
            format!("{:.<width$}", (k + rows.len()).checked_sub(height).map_or("", |r| rows[r]))
        })
        .collect();
    let open: usize = rows.iter().map(|row| row.matches(['.', '~']).count()).sum();
    assert!(open > MAX_FIRST_MOVE_CELLS);
    rows
}

/// A map with mud marked `PrecomputePaths`: no table serves terrain costs, so the plugin keeps
/// landmarks for it (built off the main thread); requests are then answered by the guided
/// search, with online search's cost. When floor turns to mud they are brought up to date in the
/// same frame; when mud turns to floor answers stay optimal at once and the landmarks catch up
/// in the background.
#[test]
fn precomputed_landmarks_guide_searches_on_terrain_and_follow_changes() {
    let rows = rows_too_big_for_a_first_move_table();
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let mut app = app();
    let map = spawn_map(&mut app, &rows);
    app.world_mut().entity_mut(map).insert(PrecomputePaths);
    let ready = |app: &App| {
        let nav = app.world().resource::<NavMaps>().first();
        nav.is_some_and(|nav| nav.landmarks().is_some_and(|l| l.is_current(&nav.grid)))
    };
    update_until(&mut app, "the landmarks", ready);
    let nav = app.world().resource::<NavMaps>().first().unwrap();
    assert!(nav.path_table().is_none() && nav.first_move_table().is_none());
    assert_eq!(nav.landmarks().unwrap().cells().len(), PLUGIN_LANDMARKS);
    let (start, goal) = (GridPos::new(0, 0), GridPos::new(19, 7));
    let path = ask_path(&mut app, start, goal);
    let unguided = {
        let grid = &app.world().resource::<NavMaps>().first().unwrap().grid;
        Pathfinder::new().find(grid, &PathQuery::new(start, goal)).unwrap()
    };
    assert!((path.cost - unguided.cost).abs() < 1e-9);
    assert!(
        path.expanded < unguided.stats.expanded,
        "{} vs {}",
        path.expanded,
        unguided.stats.expanded
    );

    // Floor turns to mud: cells only got dearer, so the landmarks are brought up to date in
    // the same frame (nothing to lower).
    for x in 15..18 {
        let t = tile(&app, map, x, 0);
        app.world_mut().entity_mut(t).insert(TileTextureIndex(MUD));
    }
    app.update();
    assert!(ready(&app), "refreshed in the frame of the change");
    let path = ask_path(&mut app, start, goal);
    assert!((path.cost - online_cost(&app, start, goal)).abs() < 1e-9);

    // Mud turns to floor: cheaper cells. Answers are optimal at once (unguided until the
    // landmarks catch up, in the background), and guided again after.
    for x in 5..9 {
        let t = tile(&app, map, x, 4);
        app.world_mut().entity_mut(t).insert(TileTextureIndex(FLOOR));
    }
    app.update();
    let path = ask_path(&mut app, start, goal);
    assert!((path.cost - online_cost(&app, start, goal)).abs() < 1e-9);
    update_until(&mut app, "the refreshed landmarks", ready);
    let path = ask_path(&mut app, start, goal);
    assert!((path.cost - online_cost(&app, start, goal)).abs() < 1e-9);
}

/// Runs frames until the map's precomputed data is current: the warnings written meanwhile.
fn until_precomputed(app: &mut App) -> Vec<TilemapNavError> {
    let mut seen = Vec::new();
    let mut first = true;
    update_until(app, "the precomputed data", |app| {
        // `update_until` checks before its first frame: this helper always runs one.
        if std::mem::take(&mut first) {
            return false;
        }
        seen.extend(warnings(app));
        let nav = app.world().resource::<NavMaps>().first().unwrap();
        let grid = &nav.grid;
        nav.path_table().is_some_and(|t| t.is_current(grid))
            || nav.first_move_table().is_some_and(|t| t.is_current(grid))
            || nav.landmarks().is_some_and(|l| l.is_current(grid))
    });
    seen
}

/// A map marked `PrecomputePaths` with the `BakedPaths` of its grid (a path table, a first-move
/// table or landmarks, whichever the plugin keeps for it) loads them instead of building: the
/// map says so, no warning, and requests get the optimal cost. Damaged bytes, or bytes baked for
/// other cells, are not used: a typed warning, once, and the plugin builds as usual.
#[test]
fn baked_paths_are_loaded_instead_of_built_and_bad_bakes_are_warned_about() {
    let table_rows = ["..........", "....#.....", "....#..#..", "....####..", ".........."];
    let moves_rows = ["....~~~...", "....#~~...", "....#..#..", "....####..", "..~~~....."];
    let landmark_rows = rows_too_big_for_a_first_move_table();
    let landmark_rows: Vec<&str> = landmark_rows.iter().map(String::as_str).collect();
    let kept = |nav: &NavMap| {
        [nav.path_table().is_some(), nav.first_move_table().is_some(), nav.landmarks().is_some()]
    };
    for (rows, kind) in [(&table_rows[..], 0), (&moves_rows[..], 1), (&landmark_rows[..], 2)] {
        // The grid the plugin makes from these tiles, baked.
        let mut app = self::app();
        spawn_map(&mut app, rows);
        app.update();
        let grid = app.world().resource::<NavMaps>().first().unwrap().grid.clone();
        let bytes = PrecomputePaths::bake(&grid).unwrap();

        let mut app = self::app();
        let map = spawn_map(&mut app, rows);
        app.world_mut().entity_mut(map).insert((PrecomputePaths, BakedPaths::new(bytes.clone())));
        assert_eq!(until_precomputed(&mut app), vec![], "kind {kind}");
        let nav = app.world().resource::<NavMaps>().first().unwrap();
        assert!(nav.precomputed_from_bake(), "kind {kind}");
        let mut expected = [false; 3];
        expected[kind] = true;
        assert_eq!(kept(nav), expected);
        let (start, goal) = (GridPos::new(0, 0), GridPos::new(9, 4));
        let path = ask_path(&mut app, start, goal);
        assert!((path.cost - online_cost(&app, start, goal)).abs() < 1e-9);

        // Damaged: a typed warning, and what the plugin keeps is built.
        let mut damaged = bytes.clone();
        let middle = damaged.len() / 2;
        damaged[middle] ^= 1;
        let mut app = self::app();
        let map = spawn_map(&mut app, rows);
        app.world_mut().entity_mut(map).insert((PrecomputePaths, BakedPaths::new(damaged)));
        let seen = until_precomputed(&mut app);
        assert_eq!(
            seen,
            vec![TilemapNavError::BakedPaths { map, error: BakeError::Corrupt }],
            "kind {kind}"
        );
        let nav = app.world().resource::<NavMaps>().first().unwrap();
        assert!(!nav.precomputed_from_bake());
        assert_eq!(kept(nav), expected);
    }

    // Baked before a wall went up: made for other cells, so built instead (warned once, not at
    // every rebuild after the map changes).
    let mut app = self::app();
    spawn_map(&mut app, &table_rows);
    app.update();
    let grid = app.world().resource::<NavMaps>().first().unwrap().grid.clone();
    let bytes = PrecomputePaths::bake(&grid).unwrap();
    let mut walled = table_rows;
    walled[0] = "#.........";
    let mut app = self::app();
    let map = spawn_map(&mut app, &walled);
    app.world_mut().entity_mut(map).insert((PrecomputePaths, BakedPaths::new(bytes)));
    let seen = until_precomputed(&mut app);
    let other = TilemapNavError::BakedPaths { map, error: BakeError::OtherGrid };
    assert_eq!(seen, vec![other]);
    assert!(!app.world().resource::<NavMaps>().first().unwrap().precomputed_from_bake());
    let t = tile(&app, map, 5, 0);
    app.world_mut().entity_mut(t).insert(TileTextureIndex(WALL));
    assert_eq!(until_precomputed(&mut app), vec![]);
}
