//! What real games do that scripted walks do not: asking again every frame, long searches
//! asked again while they run, new requests that fail mid-walk, grid-locked units re-targeted
//! mid-step, and hostile numbers (huge radii and coordinates, hand-made paths, odd sizes).
//! Each test here failed before the fix it names.

use std::time::Duration;

use crate::tilemap::{
    FLOOR, TILE, WALL, app, centre, position, read_new, spawn_text_tilemap, spawn_typed_tilemap,
    texture,
};
use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_tilemap_nav::io::baked::{self, BakeError, MAX_LOADED_CELLS};
use bevy_tilemap_nav::path::reachable;
use bevy_tilemap_nav::plugin::WorkBudget;
use bevy_tilemap_nav::plugin::{
    NavDiagnostics, NavMap, NavMapLoading, NavMapReady, PathLeg, RangeFailed, Replanning,
    TilemapNavError, TilemapNavWarning, WorldToCellError,
};
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::CELL_WORK;
use bevy_tilemap_nav::search::{Algorithm, Link, LinkedMaps, MapPos, PathError};

fn spawn_map(app: &mut App, rows: &[String]) -> Entity {
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    spawn_text_tilemap(app, &rows, TILE, Vec2::ZERO, texture)
}

fn open_rows(width: usize, height: usize) -> Vec<String> {
    vec![".".repeat(width); height]
}

fn first_map(app: &App) -> NavMap {
    app.world().resource::<NavMaps>().first().expect("a map").clone()
}

fn arrived(app: &App, entity: Entity) -> Option<Arrived> {
    let messages = app.world().resource::<Messages<Arrived>>();
    messages.iter_current_update_messages().find(|a| a.entity == entity).copied()
}

fn spawn_walker(app: &mut App, at: GridPos, speed: f32) -> Entity {
    let at = centre(app, at);
    spawn_asking(app, at, speed, None)
}

/// An agent at world point `at` walking at `speed`, asking for a path to `goal` if given.
fn spawn_asking(app: &mut App, at: Vec2, speed: f32, goal: Option<PathGoal>) -> Entity {
    let mut agent = app
        .world_mut()
        .spawn((Transform::from_translation(at.extend(1.0)), PathFollower::new(speed)));
    if let Some(goal) = goal {
        agent.insert(PathRequest::to(goal));
    }
    agent.id()
}

/// Frames until `entity` arrives, with `every_frame` run before each frame; checks that it
/// never stands in a blocked cell.
fn frames_to_arrive(
    app: &mut App,
    entity: Entity,
    max: usize,
    mut every_frame: impl FnMut(&mut App, usize),
) -> Option<usize> {
    for frame in 0..max {
        every_frame(app, frame);
        app.update();
        let map = first_map(app);
        let cell = map.geometry.world_to_cell(position(app, entity)).expect("on the map");
        assert!(map.grid.is_passable(cell), "frame {frame}: in blocked cell {cell}");
        if arrived(app, entity).is_some() {
            return Some(frame);
        }
    }
    None
}

/// An agent sent across a 20 x 20 open map at 100 units a second, its request put on again
/// every `every` frames (0: asked once); `goal_of(frame)` is the goal of the request made then.
fn arrival_when_asked_every(every: usize, goal_of: impl Fn(usize) -> PathGoal) -> Option<usize> {
    let mut app = app();
    spawn_map(&mut app, &open_rows(20, 20));
    app.update();
    let agent = spawn_walker(&mut app, GridPos::new(0, 0), 100.0);
    app.world_mut().entity_mut(agent).insert(PathRequest::to(goal_of(0)));
    frames_to_arrive(&mut app, agent, 2000, |app, frame| {
        if every > 0 && frame > 0 && frame % every == 0 {
            app.world_mut().entity_mut(agent).insert(PathRequest::to(goal_of(frame)));
        }
    })
}

#[test]
fn an_agent_asked_again_every_frame_moves_as_fast_as_one_asked_once() {
    let goal = |_| PathGoal::Tile(GridPos::new(19, 19));
    let once = arrival_when_asked_every(0, goal).expect("arrives when asked once");
    for every in [1, 2, 10, 30] {
        let again = arrival_when_asked_every(every, goal)
            .unwrap_or_else(|| panic!("asked every {every} frames: never arrives"));
        assert!(again <= once + 2, "asked every {every} frames: frame {again}, once: {once}");
    }
    // A world goal that moves a little inside its cell every frame (a mouse, a target).
    let jitter = |frame: usize| {
        let wobble = Vec2::new((frame % 5) as f32, (frame % 3) as f32);
        PathGoal::World(Vec2::splat(19.0 * TILE) + wobble)
    };
    let again = arrival_when_asked_every(1, jitter).expect("arrives with a wobbling goal");
    assert!(again <= once + 2, "wobbling goal: frame {again}, once: {once}");
}

#[test]
fn an_agent_sent_to_a_goal_that_moves_between_cells_every_frame_keeps_walking() {
    let once = arrival_when_asked_every(0, |_| PathGoal::Tile(GridPos::new(19, 10)))
        .expect("arrives when asked once");
    // The goal flips between two neighbouring cells every frame for most of the way (a new
    // search each time), then stays.
    let flip = |frame: usize| {
        let moving = frame < once * 3 / 4;
        PathGoal::Tile(GridPos::new(19, 10 + (moving && frame % 2 == 1) as u32))
    };
    let again = arrival_when_asked_every(1, flip).expect("arrives with a goal that moves");
    assert!(again <= once + once / 10 + 5, "moving goal: frame {again}, once: {once}");
}

#[test]
fn an_agent_with_a_profile_asked_again_every_frame_keeps_walking() {
    let once = arrival_when_asked_every(0, |_| PathGoal::Tile(GridPos::new(19, 19))).unwrap();
    let mut app = app();
    let walker = app
        .world_mut()
        .resource_mut::<NavProfiles>()
        .insert("walker", NavProfile::default())
        .unwrap();
    spawn_map(&mut app, &open_rows(20, 20));
    app.update();
    let agent = spawn_walker(&mut app, GridPos::new(0, 0), 100.0);
    let kind = AgentKind::with_profile(walker);
    let request = PathRequest::to(GridPos::new(19, 19));
    app.world_mut().entity_mut(agent).insert((kind, request.clone()));
    let frames = frames_to_arrive(&mut app, agent, 2000, |app, _| {
        app.world_mut().entity_mut(agent).insert((kind, request.clone().with_agent(kind)));
    })
    .expect("arrives with its kind and request put on every frame");
    assert!(frames <= once + 2, "frame {frames}, once: {once}");
}

/// A 256 x 256 map with bands of mud and walls, whose searches need many frames' budgets.
fn long_search_map() -> Vec<String> {
    (0..256)
        .map(|y| {
            (0..256)
                .map(|x| match (x % 32, y % 16) {
                    (16, r) if r != 8 => '#',
                    (a, b) if (a + b) % 7 == 0 => '~',
                    _ => '.',
                })
                .collect()
        })
        .collect()
}

#[test]
fn a_long_search_asked_again_while_it_runs_goes_on_and_is_answered() {
    let frames_to_answer = |every: usize| {
        let mut app = app();
        app.world_mut().resource_mut::<NavSettings>().work.shares.searches = 300 * CELL_WORK;
        spawn_map(&mut app, &long_search_map());
        app.update();
        let agent = spawn_walker(&mut app, GridPos::new(1, 1), 10.0);
        let goal = GridPos::new(250, 250);
        app.world_mut().entity_mut(agent).insert(PathRequest::to(goal));
        for frame in 1..=1000 {
            app.update();
            if app.world().get::<NavPath>(agent).is_some() {
                return Some(frame);
            }
            if every > 0 && frame % every == 0 {
                app.world_mut().entity_mut(agent).insert(PathRequest::to(goal));
            }
        }
        None
    };
    let once = frames_to_answer(0).expect("answered when asked once");
    assert!(once > 3, "the search must need several frames ({once})");
    for every in [1, 2, 5] {
        let again = frames_to_answer(every)
            .unwrap_or_else(|| panic!("asked every {every} frames: never answered"));
        assert!(again <= once + 1, "asked every {every} frames: frame {again}, once: {once}");
    }
}

#[test]
fn a_new_request_that_fails_stops_the_walk_to_the_old_goal() {
    let mut rows = open_rows(20, 10);
    // A walled-in cell at (17, 5) (row 4 from the top is y = 5).
    rows[3].replace_range(16..19, "###");
    rows[4].replace_range(16..19, "#.#");
    rows[5].replace_range(16..19, "###");
    let mut app = app();
    spawn_map(&mut app, &rows);
    app.update();
    let agent = spawn_walker(&mut app, GridPos::new(0, 0), 50.0);
    app.world_mut().entity_mut(agent).insert(PathRequest::to(GridPos::new(19, 0)));
    for _ in 0..30 {
        app.update();
    }
    let walked_to = position(&app, agent);
    assert!(walked_to.x > 10.0, "walking");
    app.world_mut().entity_mut(agent).insert(PathRequest::to(GridPos::new(17, 5)));
    app.update();
    let failed = app.world().get::<PathFailed>(agent).expect("the new request failed");
    assert!(matches!(failed.error, NavError::Search(PathError::Unreachable { .. })));
    for _ in 0..200 {
        app.update();
        assert!(arrived(&app, agent).is_none(), "no Arrived for the old goal");
    }
    // It stopped at the centre of a cell next to where it was, not at the old goal.
    let stopped = position(&app, agent);
    assert!(stopped.distance(walked_to) <= TILE * 1.5, "{walked_to} -> {stopped}");
    let map = first_map(&app);
    let cell = map.geometry.world_to_cell(stopped).unwrap();
    assert_eq!(stopped, map.geometry.cell_to_world(cell), "stops at a cell centre");
    assert!(app.world().get::<Replanning>(agent).is_none());
}

#[test]
fn a_request_asked_again_for_the_same_goal_costs_no_search() {
    let mut app = app();
    spawn_map(&mut app, &open_rows(20, 20));
    app.update();
    let agents: Vec<Entity> = (0..50)
        .map(|k| {
            let agent = spawn_walker(&mut app, GridPos::new(k % 10, k / 10), 20.0);
            app.world_mut().entity_mut(agent).insert(PathRequest::to(GridPos::new(19, 19)));
            agent
        })
        .collect();
    app.update();
    for _ in 0..5 {
        for &agent in &agents {
            app.world_mut().entity_mut(agent).insert(PathRequest::to(GridPos::new(19, 19)));
        }
        app.update();
        let diagnostics = *app.world().resource::<NavDiagnostics>();
        assert_eq!(diagnostics.searches_started, 0);
        assert_eq!(diagnostics.requests_reused, 50);
    }
    // Once the grid changes, the next request is searched again.
    let tilemap = first_map(&app).layers[0];
    let tile = app.world().get::<TileStorage>(tilemap).unwrap().get(&TilePos::new(5, 15)).unwrap();
    app.world_mut().entity_mut(tile).insert(TileTextureIndex(WALL));
    app.update();
    app.world_mut().entity_mut(agents[0]).insert(PathRequest::to(GridPos::new(19, 19)));
    app.update();
    assert_eq!(app.world().resource::<NavDiagnostics>().searches_started, 1);
}

// ---------------------------------------------------------------------------------------
// Hostile numbers.

#[test]
fn huge_infinite_and_nan_avoidance_radii_do_not_panic() {
    let mut app = app();
    spawn_map(&mut app, &open_rows(12, 12));
    app.update();
    let radii = [1.0e30, f32::INFINITY, f32::NAN, -5.0, f32::MAX, 6.0];
    let agents: Vec<Entity> = radii
        .iter()
        .enumerate()
        .map(|(k, &radius)| {
            let agent = spawn_walker(&mut app, GridPos::new(k as u32, 0), 40.0);
            let goal = GridPos::new(11 - k as u32, 11);
            app.world_mut()
                .entity_mut(agent)
                .insert((Avoidance::new(radius), PathRequest::to(goal)));
            agent
        })
        .collect();
    for _ in 0..300 {
        app.update();
        for &agent in &agents {
            assert!(position(&app, agent).is_finite());
        }
    }
}

#[test]
fn agents_with_positions_far_apart_near_the_float_limit_do_not_hang_or_panic() {
    let mut app = app();
    spawn_map(&mut app, &open_rows(8, 8));
    app.update();
    for x in [-3.0e38f32, 3.0e38] {
        app.world_mut().spawn((
            Transform::from_xyz(x, x, 0.0),
            Avoidance::new(4.0),
            PathFollower::new(10.0),
            PathRequest::to(GridPos::new(1, 1)),
        ));
    }
    for _ in 0..5 {
        app.update();
    }
}

fn spawn_typed_map(
    app: &mut App,
    size: u32,
    map_type: TilemapType,
    grid_size: TilemapGridSize,
    transform: Transform,
) -> Entity {
    spawn_typed_tilemap(app, size, map_type, grid_size, transform, |_, _| FLOOR)
}

#[test]
fn world_points_far_off_hex_and_staggered_maps_are_off_the_map_never_an_overflow() {
    let types = [
        TilemapType::Hexagon(HexCoordSystem::Row),
        TilemapType::Hexagon(HexCoordSystem::Column),
        TilemapType::Hexagon(HexCoordSystem::RowEven),
        TilemapType::Hexagon(HexCoordSystem::RowOdd),
        TilemapType::Hexagon(HexCoordSystem::ColumnEven),
        TilemapType::Hexagon(HexCoordSystem::ColumnOdd),
        TilemapType::Isometric(IsoCoordSystem::Staggered),
        TilemapType::Isometric(IsoCoordSystem::Diamond),
    ];
    let far = [1.0e11, -1.0e11, 3.0e38, -3.0e38, 1.0e20];
    for map_type in types {
        for scale in [1.0, 1.0e-6] {
            let mut app = app();
            let grid_size = TilemapGridSize { x: 16.0, y: 14.0 };
            let transform = Transform::from_scale(Vec3::new(scale, scale, 1.0));
            spawn_typed_map(&mut app, 8, map_type, grid_size, transform);
            app.update();
            let map = first_map(&app);
            for &x in &far {
                for point in [Vec2::new(x, 0.0), Vec2::new(0.0, x), Vec2::splat(x)] {
                    assert!(matches!(
                        map.geometry.world_to_cell(point),
                        Err(WorldToCellError::OffMap(_))
                    ));
                    assert!(app.world().resource::<NavMaps>().at_world(point).is_none());
                }
            }
            // The same numbers as a goal, an agent's position and an obstacle's.
            let start = map.geometry.cell_to_world(GridPos::new(1, 1));
            let goal = spawn_asking(&mut app, start, 10.0, Some(Vec2::splat(1.0e11).into()));
            let far = Vec2::splat(1.0e11);
            let lost = spawn_asking(&mut app, far, 10.0, Some(GridPos::new(2, 2).into()));
            app.world_mut()
                .spawn((Transform::from_xyz(-1.0e11, 3.0e38, 0.0), NavObstacle::default()));
            for _ in 0..3 {
                app.update();
            }
            let error = |e: Entity| app.world().get::<PathFailed>(e).map(|f| f.error.clone());
            assert!(matches!(error(goal), Some(NavError::Goal(WorldToCellError::OffMap(_)))));
            assert!(matches!(error(lost), Some(NavError::Start(WorldToCellError::OffMap(_)))));
        }
    }
}

#[test]
fn a_small_bake_claiming_a_huge_grid_is_refused_before_allocating() {
    let mut bytes = baked::to_binary(&NavGrid::new(2, 2).unwrap());
    // Header: magic, version, width (8..12), height (12..16), moves, corner rule, run count
    // (18..22), then runs of (count, cost).
    for side in [16_000u32, 32_000, 65_535] {
        bytes[8..12].copy_from_slice(&side.to_le_bytes());
        bytes[12..16].copy_from_slice(&side.to_le_bytes());
        let cells = u64::from(side) * u64::from(side);
        let runs = u32::from_le_bytes(bytes[18..22].try_into().unwrap()) as usize;
        assert_eq!(runs, 1, "one run for an open 2 x 2 grid");
        bytes[22..26].copy_from_slice(&(cells.min(u64::from(u32::MAX)) as u32).to_le_bytes());
        reseal(&mut bytes);
        assert_eq!(
            baked::from_binary(&bytes).unwrap_err(),
            BakeError::TooLarge { cells, limit: MAX_LOADED_CELLS }
        );
    }
    // Under the limit it still loads, and a caller may raise the limit.
    let grid = NavGrid::new(300, 200).unwrap();
    let bytes = baked::to_binary(&grid);
    assert_eq!(
        baked::from_binary_with_limit(&bytes, 1000).unwrap_err(),
        BakeError::TooLarge { cells: 60_000, limit: 1000 }
    );
    assert_eq!(baked::from_binary_with_limit(&bytes, 60_000).unwrap().len(), 60_000);
}

/// The checksum of a baked grid, sealed again after an edit (as a modder's tool would).
fn reseal(bytes: &mut [u8]) {
    let body = bytes.len() - 8;
    let sum = bytes[..body]
        .iter()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    bytes[body..].copy_from_slice(&sum.to_le_bytes());
}

/// An agent on `rows` with an answered path to `goal`, after a frame.
fn agent_with_path(rows: &[String], goal: GridPos) -> (App, Entity) {
    let mut app = app();
    spawn_map(&mut app, rows);
    app.update();
    let agent = spawn_walker(&mut app, GridPos::new(0, 0), 40.0);
    app.world_mut().entity_mut(agent).insert(PathRequest::to(goal));
    app.update();
    assert!(app.world().get::<NavPath>(agent).is_some());
    (app, agent)
}

#[test]
fn hand_made_paths_that_cannot_be_walked_stop_the_agent_with_an_error() {
    let edits: [fn(&mut NavPath); 5] = [
        |p| p.cells.clear(),
        |p| p.points.truncate(1),
        |p| p.points[1] = Vec2::NAN,
        |p| {
            let mut leg = p.clone();
            leg.cells.clear();
            leg.points.clear();
            p.legs.push(PathLeg {
                link: Entity::PLACEHOLDER,
                from: LinkEnd::new(p.map, p.cells[p.cells.len() - 1]),
                map: p.map,
                cells: Vec::new(),
                points: Vec::new(),
                cost: 1.0,
            });
        },
        |p| {
            p.legs.push(PathLeg {
                link: Entity::PLACEHOLDER,
                from: LinkEnd::new(p.map, p.cells[p.cells.len() - 1]),
                map: p.map,
                cells: vec![GridPos::new(1, 1)],
                points: Vec::new(),
                cost: 1.0,
            });
        },
    ];
    // Put on as a new path, or edited in place on one already walked for two frames (the
    // shape of a path is checked when it changes, not every frame).
    for (k, (edit, in_place)) in edits.iter().flat_map(|e| [(e, false), (e, true)]).enumerate() {
        let (mut app, agent) = agent_with_path(&open_rows(8, 8), GridPos::new(7, 7));
        if in_place {
            app.update();
            app.update();
            edit(&mut app.world_mut().get_mut::<NavPath>(agent).unwrap());
        } else {
            let mut path = app.world().get::<NavPath>(agent).unwrap().clone();
            edit(&mut path);
            app.world_mut().entity_mut(agent).insert(path);
        }
        for _ in 0..3 {
            app.update();
        }
        let error = app.world().get::<PathFailed>(agent).map(|f| f.error.clone());
        assert_eq!(error, Some(NavError::MalformedPath), "edit {k}");
        assert!(position(&app, agent).is_finite());
    }
}

#[test]
fn a_follower_index_past_the_end_plans_again_and_arrives_round_the_walls() {
    let mut rows = open_rows(8, 8);
    rows[3] = "######..".into();
    for next in [usize::MAX, 40] {
        let (mut app, agent) = agent_with_path(&rows, GridPos::new(0, 7));
        app.world_mut().get_mut::<PathFollower>(agent).unwrap().next = next;
        // Never in a wall on the way (checked every frame), and at the goal in the end.
        frames_to_arrive(&mut app, agent, 600, |_, _| {}).expect("arrives");
        assert_eq!(position(&app, agent), centre(&app, GridPos::new(0, 7)));
    }
}

#[test]
fn a_follower_put_back_after_a_wall_cut_its_path_plans_again() {
    let (mut app, agent) = agent_with_path(&open_rows(12, 12), GridPos::new(11, 0));
    app.world_mut().entity_mut(agent).remove::<PathFollower>();
    app.update();
    // A wall across the bottom rows, between the agent and its goal.
    let tilemap = first_map(&app).layers[0];
    for y in 0..11 {
        let tile =
            app.world().get::<TileStorage>(tilemap).unwrap().get(&TilePos::new(6, y)).unwrap();
        app.world_mut().entity_mut(tile).insert(TileTextureIndex(WALL));
    }
    app.update();
    app.world_mut().entity_mut(agent).insert(PathFollower::new(40.0));
    let frames =
        frames_to_arrive(&mut app, agent, 2000, |_, _| {}).expect("arrives round the wall");
    assert!(frames > 0);
    assert_eq!(position(&app, agent), centre(&app, GridPos::new(11, 0)));
}

#[test]
fn non_finite_speeds_stand_still_and_non_finite_map_sizes_are_refused() {
    let (mut app, agent) = agent_with_path(&open_rows(8, 8), GridPos::new(7, 7));
    let before = position(&app, agent);
    for speed in [f32::INFINITY, f32::NEG_INFINITY, f32::NAN] {
        app.world_mut().get_mut::<PathFollower>(agent).unwrap().speed = speed;
        for _ in 0..5 {
            app.update();
            assert_eq!(position(&app, agent), before, "speed {speed}");
        }
    }
    // A tilemap whose grid size is infinite is left out with a warning; nothing gets NaN.
    for bad in [f32::INFINITY, f32::NAN, 0.0, -16.0] {
        let mut app = self::app();
        let grid_size = TilemapGridSize { x: bad, y: 16.0 };
        let tilemap =
            spawn_typed_map(&mut app, 6, TilemapType::Square, grid_size, Transform::IDENTITY);
        let at = Vec2::splat(8.0);
        let walker = spawn_asking(&mut app, at, 40.0, Some(GridPos::new(4, 4).into()));
        app.update();
        let warnings: Vec<TilemapNavError> = app
            .world()
            .resource::<Messages<TilemapNavWarning>>()
            .iter_current_update_messages()
            .map(|w| w.error.clone())
            .collect();
        assert_eq!(warnings, vec![TilemapNavError::BadGeometry { tilemap }], "grid size {bad}");
        for _ in 0..5 {
            app.update();
        }
        assert!(position(&app, walker).is_finite());
        assert_eq!(
            app.world().get::<PathFailed>(walker).map(|f| f.error.clone()),
            Some(NavError::NoGrid)
        );
    }
}

#[test]
fn a_larger_agent_plans_across_links_while_a_hex_map_is_in_the_world() {
    let mut app = app();
    let square = spawn_map(&mut app, &open_rows(10, 10));
    // A hex map elsewhere in the world, which no agent of size 2 can use.
    let grid_size = TilemapGridSize { x: 16.0, y: 14.0 };
    let far = Transform::from_xyz(2000.0, 0.0, 0.0);
    let hex =
        spawn_typed_map(&mut app, 6, TilemapType::Hexagon(HexCoordSystem::Row), grid_size, far);
    app.update();
    let maps = app.world().resource::<NavMaps>();
    let (square_map, hex_map) =
        (maps.of_tilemap(square).unwrap().entity, maps.of_tilemap(hex).unwrap().entity);
    let ask = |app: &mut App| {
        let at = centre(app, GridPos::new(0, 0)) + Vec2::splat(TILE / 2.0);
        let agent = app
            .world_mut()
            .spawn((
                Transform::from_translation(at.extend(0.0)),
                AgentKind::sized(2),
                PathRequest::to(GridPos::new(6, 0)),
            ))
            .id();
        for _ in 0..3 {
            app.update();
        }
        let failed = app.world().get::<PathFailed>(agent).map(|f| f.error.clone());
        app.world().get::<NavPath>(agent).map(|p| p.cost).ok_or(failed)
    };
    let without = ask(&mut app).expect("a path without links");
    // Links: one on the square map, one to the hex map.
    app.world_mut().spawn(NavLink::two_way(
        LinkEnd::new(square_map, GridPos::new(0, 8)),
        LinkEnd::new(square_map, GridPos::new(8, 8)),
        50.0,
    ));
    app.world_mut().spawn(NavLink::two_way(
        LinkEnd::new(square_map, GridPos::new(4, 4)),
        LinkEnd::new(hex_map, GridPos::new(1, 1)),
        1.0,
    ));
    app.update();
    let with = ask(&mut app).expect("a path with links in the world");
    assert!((with - without).abs() < 1e-9, "{with} vs {without}");
}

#[test]
fn a_goal_on_another_map_with_no_link_names_both_maps() {
    let mut app = app();
    // Maps that touch join at their edges unless the game says not to.
    app.world_mut().resource_mut::<NavSettings>().join_touching_maps = false;
    let left = spawn_map(&mut app, &open_rows(5, 5));
    let rows = open_rows(5, 5);
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let right = spawn_text_tilemap(&mut app, &rows, TILE, Vec2::new(5.0 * TILE, 0.0), texture);
    app.update();
    let maps = app.world().resource::<NavMaps>();
    let (left_map, right_map) =
        (maps.of_tilemap(left).unwrap().entity, maps.of_tilemap(right).unwrap().entity);
    let start = centre(&app, GridPos::new(4, 2));
    let agent = app
        .world_mut()
        .spawn((
            Transform::from_translation(start.extend(0.0)),
            PathRequest::to(start + Vec2::new(TILE, 0.0)),
        ))
        .id();
    app.update();
    let error = app.world().get::<PathFailed>(agent).map(|f| f.error.clone());
    assert_eq!(
        error,
        Some(NavError::NoWayBetweenMaps {
            start_map: left_map,
            start: GridPos::new(4, 2),
            goal_map: right_map,
            goal: GridPos::new(0, 2),
        })
    );
    let text = error.unwrap().to_string();
    assert!(
        text.contains(&format!("{left_map}")) && text.contains(&format!("{right_map}")),
        "{text}"
    );
}

/// A `side` x `side` map with a wall across every `every` rows, each with one gap (at
/// `y x step` along it), so that walks are long; the map as the plugin has it.
fn spawn_barred_map(app: &mut App, side: usize, (every, step): (usize, usize)) -> NavMap {
    let mut rows = open_rows(side, side);
    for (y, row) in rows.iter_mut().enumerate() {
        if y % every == every / 2 {
            let gap = (y * step) % side;
            *row = (0..side).map(|x| if x == gap { '.' } else { '#' }).collect();
        }
    }
    spawn_map(app, &rows);
    app.update();
    first_map(app)
}

/// Open cells of `grid` at random (xorshift from `seed`).
fn open_at_random(grid: &NavGrid, mut seed: u64) -> impl FnMut() -> GridPos + '_ {
    move || loop {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let cell = GridPos::new(
            (seed % u64::from(grid.width())) as u32,
            ((seed >> 16) % u64::from(grid.height())) as u32,
        );
        if grid.is_passable(cell) {
            return cell;
        }
    }
}

#[test]
fn a_thousand_links_are_searched_within_the_frame_budget() {
    let mut app = app();
    // Jump points: ten a frame (a search through links expands jump points inside the
    // map).
    let budget = 10;
    app.world_mut().resource_mut::<NavSettings>().work.shares.searches = budget * CELL_WORK;
    let map = spawn_barred_map(&mut app, 128, (16, 7));
    // A thousand one-way doors between open cells, expensive enough that few are worth taking.
    let mut random_open = open_at_random(&map.grid, 0x2545_f491);
    let mut links = Vec::new();
    for _ in 0..1000 {
        let (a, b) = (random_open(), random_open());
        links.push(Link::one_way(MapPos::new(0, a), MapPos::new(0, b), 40.0));
        let (a, b) = (LinkEnd::new(map.entity, a), LinkEnd::new(map.entity, b));
        app.world_mut().spawn(NavLink::one_way(a, b, 40.0));
    }
    let (start, goal) = (GridPos::new(1, 1), GridPos::new(126, 126));
    let agent = spawn_walker(&mut app, start, 10.0);
    app.world_mut().entity_mut(agent).insert(PathRequest::to(goal));
    let mut frames = 0;
    while app.world().get::<NavPath>(agent).is_none() {
        app.update();
        frames += 1;
        let expanded = app.world().resource::<NavDiagnostics>().expansions;
        assert!(expanded <= budget, "frame {frames}: {expanded} cells expanded");
        assert!(frames < 1000, "not answered");
    }
    assert!(frames > 2, "spread over frames ({frames})");
    let path = app.world().get::<NavPath>(agent).unwrap();
    // The cheapest, as plain A* over every cell finds it.
    let astar = SearchOptions { algorithm: Algorithm::AStar, ..SearchOptions::default() };
    let optimum = Pathfinder::new()
        .find(
            LinkedMaps::new(&[&map.grid], &links),
            &PathQuery::new(MapPos::new(0, start), MapPos::new(0, goal)).with_options(astar),
        )
        .unwrap();
    assert!((path.cost - optimum.cost).abs() < 1e-9, "{} vs {}", path.cost, optimum.cost);
}

/// With a cheap teleporter in every stretch of the map, most requests on it are searched
/// through the links at once (a link beats any walk there could), the rest walked first: every
/// path costs the cheapest, as plain A* over every cell and link finds it, whichever way it was
/// searched, with requests asked again while they are searched.
#[test]
fn requests_on_a_map_of_teleporters_all_get_the_cheapest_paths() {
    let mut app = app();
    let map = spawn_barred_map(&mut app, 96, (12, 5));
    let mut random_open = open_at_random(&map.grid, 0x9E37_79B9);
    let mut links = Vec::new();
    for _ in 0..300 {
        let (a, b) = (random_open(), random_open());
        links.push(Link::two_way(MapPos::new(0, a), MapPos::new(0, b), 3.0));
        let (a, b) = (LinkEnd::new(map.entity, a), LinkEnd::new(map.entity, b));
        app.world_mut().spawn(NavLink::two_way(a, b, 3.0));
    }
    // Near goals (a walk beats every link) and far ones.
    let asks: Vec<(GridPos, GridPos)> = (0..40)
        .map(|i| {
            let start = random_open();
            let goal = match i % 4 {
                0 => GridPos::new((start.x + 1).min(95), start.y),
                _ => random_open(),
            };
            (start, goal)
        })
        .filter(|(start, goal)| map.grid.is_passable(*goal) && start != goal)
        .collect();
    let agents: Vec<Entity> = asks
        .iter()
        .map(|&(start, goal)| {
            let agent = spawn_walker(&mut app, start, 10.0);
            app.world_mut().entity_mut(agent).insert(PathRequest::to(goal));
            agent
        })
        .collect();
    let mut costs: Vec<Option<f64>> = vec![None; agents.len()];
    for frame in 0..600 {
        app.update();
        for (i, &agent) in agents.iter().enumerate() {
            if costs[i].is_none()
                && let Some(path) = app.world().get::<NavPath>(agent)
            {
                costs[i] = Some(path.cost);
            }
            // Asked again now and then while it is searched.
            if costs[i].is_none() && frame % 3 == 1 {
                app.world_mut().entity_mut(agent).insert(PathRequest::to(asks[i].1));
            }
        }
        if costs.iter().all(Option::is_some) {
            break;
        }
    }
    let astar = SearchOptions { algorithm: Algorithm::AStar, ..SearchOptions::default() };
    let (mut through, mut walked) = (0, 0);
    for (&(start, goal), cost) in asks.iter().zip(&costs) {
        let cost = cost.unwrap_or_else(|| panic!("{start:?} -> {goal:?} not answered"));
        let optimum = Pathfinder::new()
            .find(
                LinkedMaps::new(&[&map.grid], &links),
                &PathQuery::new(MapPos::new(0, start), MapPos::new(0, goal)).with_options(astar),
            )
            .unwrap();
        assert!(
            (cost - optimum.cost).abs() < 1e-9,
            "{start:?} -> {goal:?}: {cost} vs {}",
            optimum.cost
        );
        if optimum.legs.len() > 1 {
            through += 1;
        } else {
            walked += 1;
        }
    }
    assert!(through > 10 && walked > 5, "{through} through links, {walked} walked");
}

#[test]
fn an_unbounded_movement_range_on_a_large_map_is_measured_within_the_frame_budget() {
    let mut app = app();
    let budget = 5000;
    app.world_mut().resource_mut::<NavSettings>().work.shares.searches = budget * CELL_WORK;
    let mut rows = open_rows(300, 300);
    rows[150] = (0..300).map(|x| if x % 50 == 25 { '.' } else { '#' }).collect();
    spawn_map(&mut app, &rows);
    app.update();
    let grid = first_map(&app).grid;
    let expected = reachable(&grid, GridPos::new(3, 3), f64::INFINITY).unwrap();
    let ranger = spawn_walker(&mut app, GridPos::new(3, 3), 10.0);
    app.world_mut().entity_mut(ranger).insert(RangeRequest::within(f64::INFINITY));
    // A path request in the same frames: it shares the budget.
    let walker = spawn_walker(&mut app, GridPos::new(0, 0), 10.0);
    app.world_mut().entity_mut(walker).insert(PathRequest::to(GridPos::new(299, 299)));
    let mut frames = 0;
    while app.world().get::<MoveRange>(ranger).is_none() {
        // Put on again now and then with the same budget: the measuring goes on.
        if frames % 7 == 3 {
            app.world_mut().entity_mut(ranger).insert(RangeRequest::within(f64::INFINITY));
        }
        app.update();
        frames += 1;
        let diagnostics = *app.world().resource::<NavDiagnostics>();
        let spent = diagnostics.range_expansions + diagnostics.expansions;
        assert!(spent <= budget + 1, "frame {frames}: {spent} cells");
        assert!(frames < 500, "not answered");
    }
    assert!(frames >= 18, "spread over frames ({frames})");
    let range = app.world().get::<MoveRange>(ranger).unwrap();
    assert_eq!(range.reach.cells(), expected.cells());
    assert!(app.world().get::<RangeRequest>(ranger).is_none());
}

#[test]
fn a_map_that_is_loading_is_not_served_requests_wait_and_walkers_stand_until_it_is_ready() {
    let mut app = app();
    // A level put together over frames: its floor now, its wall (a column with one gap) later.
    let map = spawn_map(&mut app, &open_rows(12, 5));
    app.world_mut().entity_mut(map).insert(NavMapLoading);
    let mut ready = app.world().resource::<Messages<NavMapReady>>().get_cursor();
    let mut failed = app.world().resource::<Messages<PathFailed>>().get_cursor();
    let mut range_failed = app.world().resource::<Messages<RangeFailed>>().get_cursor();
    app.update();
    let maps = app.world().resource::<NavMaps>();
    assert!(maps.get(map).is_none() && maps.is_empty() && maps.is_loading(map));
    let geometry = maps.loading_map(map).expect("built, not served").geometry;
    let (from, to) = (GridPos::new(0, 2), GridPos::new(11, 2));
    let walker = spawn_asking(&mut app, geometry.cell_to_world(from), 60.0, Some(to.into()));
    let ranger = spawn_asking(&mut app, geometry.cell_to_world(from), 60.0, None);
    app.world_mut().entity_mut(ranger).insert(RangeRequest::within(4.0));
    for frame in 0..10 {
        app.update();
        let world = app.world();
        assert!(world.get::<NavPath>(walker).is_none(), "frame {frame}: served while loading");
        assert!(world.get::<MoveRange>(ranger).is_none(), "frame {frame}");
        assert!(read_new(&app, &mut failed).is_empty(), "frame {frame}: a request failed");
        assert!(read_new(&app, &mut range_failed).is_empty(), "frame {frame}");
        assert!(read_new(&app, &mut ready).is_empty());
    }
    // The wall comes in, then the level is complete.
    let storage = app.world().get::<TileStorage>(map).unwrap().clone();
    for y in 0..5 {
        if y != 4 {
            let tile = storage.get(&TilePos::new(6, y)).unwrap();
            app.world_mut().entity_mut(tile).insert(TileTextureIndex(WALL));
        }
    }
    app.update();
    assert!(app.world().get::<NavPath>(walker).is_none(), "served before it was complete");
    app.world_mut().entity_mut(map).remove::<NavMapLoading>();
    app.update();
    assert_eq!(read_new(&app, &mut ready), vec![NavMapReady { map }]);
    for _ in 0..3 {
        app.update();
    }
    let path = app.world().get::<NavPath>(walker).expect("answered once served").clone();
    let grid = first_map(&app).grid;
    assert!(path.cells.iter().all(|&c| grid.is_passable(c)), "through the wall");
    assert!(path.cells.contains(&GridPos::new(6, 4)), "through the gap");
    assert!(app.world().get::<MoveRange>(ranger).is_some());

    // Loading again while the agent walks (a level reloaded): it stands, with no failure, and
    // walks on and arrives once the map is served again.
    for _ in 0..5 {
        app.update();
    }
    app.world_mut().entity_mut(map).insert(NavMapLoading);
    app.update();
    let stood = position(&app, walker);
    for frame in 0..10 {
        app.update();
        assert_eq!(position(&app, walker), stood, "frame {frame}: walked while loading");
        assert!(read_new(&app, &mut failed).is_empty(), "frame {frame}: failed while loading");
    }
    app.world_mut().entity_mut(map).remove::<NavMapLoading>();
    app.update();
    assert_eq!(read_new(&app, &mut ready), vec![NavMapReady { map }]);
    let arrival = frames_to_arrive(&mut app, walker, 600, |_, _| {});
    assert!(arrival.is_some(), "arrived once served again");
    assert!(read_new(&app, &mut failed).is_empty());

    // A map that never completes because it is despawned: the waiting request fails.
    app.world_mut().entity_mut(map).insert(NavMapLoading);
    app.update();
    app.world_mut().entity_mut(walker).insert(PathRequest::to(GridPos::new(0, 0)));
    app.update();
    assert!(read_new(&app, &mut failed).is_empty());
    app.world_mut().entity_mut(map).despawn();
    app.update();
    app.update();
    let failures = read_new(&app, &mut failed);
    assert!(
        failures.iter().any(|f| f.entity == walker && f.error == NavError::NoGrid),
        "{failures:?}"
    );
}

#[test]
fn in_fixed_update_the_plugin_serves_and_walks_by_the_fixed_step() {
    // A server's set-up: the plugin in FixedUpdate at 25 ticks a second, frames of 10 ms.
    let mut app = App::new();
    let work = WorkBudget { time: None, ..default() };
    let settings = NavSettings { work, ..NavSettings::default() };
    app.add_plugins(MinimalPlugins)
        .add_plugins(TilemapNavPlugin::with_settings(settings).in_schedule(FixedUpdate))
        .insert_resource(bevy::time::TimeUpdateStrategy::ManualDuration(Duration::from_millis(10)))
        .insert_resource(Time::<Fixed>::from_hz(25.0))
        .insert_resource(TileRules::default().with(WALL, Cell::Blocked));
    spawn_map(&mut app, &open_rows(30, 3));
    let mut frames = 0;
    while app.world().resource::<NavMaps>().is_empty() {
        app.update();
        frames += 1;
        assert!(frames < 20, "the map is never synced");
    }
    let speed = 200.0;
    let agent = spawn_walker(&mut app, GridPos::new(0, 1), speed);
    app.world_mut().entity_mut(agent).insert(PathRequest::to(GridPos::new(29, 1)));
    // Each tick moves it speed x 40 ms; frames without a tick do not move it.
    let tick = speed * 0.04;
    let (mut last, mut moved, mut still) = (position(&app, agent), 0, 0);
    let mut cursor = app.world().resource::<Messages<Arrived>>().get_cursor();
    for frame in 0..1000 {
        app.update();
        let now = position(&app, agent);
        let step = now.distance(last);
        last = now;
        let arrivals = read_new(&app, &mut cursor);
        if arrivals.iter().any(|a| a.entity == agent) {
            assert!(step <= tick + 1e-3, "frame {frame}: {step}");
            // 29 tiles of 16 units at 200 a second: 2.32 s, 58 ticks of 40 ms.
            assert!((57..=60).contains(&moved), "{moved} ticks");
            assert!(still >= 3 * moved - 6, "{still} frames without a tick, {moved} with");
            return;
        }
        if step == 0.0 {
            still += 1;
        } else {
            assert!((step - tick).abs() < 1e-3, "frame {frame}: moved {step}, a tick is {tick}");
            moved += 1;
        }
    }
    panic!("never arrived");
}
