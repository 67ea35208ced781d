//! Per-agent navigation in a headless `App` with real bevy_ecs_tilemap tilemaps: terrain classes
//! from `TileRules` and `TileTerrain`, agents with profiles (a boat on a river, a ghost through
//! walls, a cart kept off mud), profiles and kinds changed at run time, a 2 x 2 agent that
//! fits through wide gaps only and never overlaps a wall, movement ranges, and the errors.

use std::time::Duration;

use crate::tilemap::{messages, nav_app, spawn_text_tilemap};
use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::{TilePos, TileStorage, TileTextureIndex};
use bevy_tilemap_nav::grid::GridError;
use bevy_tilemap_nav::path::reachable;
use bevy_tilemap_nav::plugin::{NavDiagnostics, NavMap, ProfileId, RangeFailed, WorldToCellError};
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::AgentGrid;

const DT: Duration = Duration::from_millis(16);
const TILE: f32 = 16.0;

const WALL: Terrain = Terrain(1);
const WATER: Terrain = Terrain(2);
const MUD: Terrain = Terrain(3);

/// `#` wall, `~` water (closed to walkers), `m` mud (cost 3), `.` floor.
fn app_with(rows: &[&str]) -> (App, Entity) {
    let mut app = nav_app(DT, 1);
    app.insert_resource(
        TileRules::default()
            .with(1, Cell::Blocked)
            .with_terrain(1, WALL)
            .with(2, Cell::Blocked)
            .with_terrain(2, WATER)
            .with(3, Cell::Passable { cost: 3 })
            .with_terrain(3, MUD),
    );
    let texture = |c| match c {
        '#' => Some(1),
        '~' => Some(2),
        'm' => Some(3),
        _ => Some(0),
    };
    let tilemap = spawn_text_tilemap(&mut app, rows, TILE, Vec2::ZERO, texture);
    app.update();
    (app, tilemap)
}

fn map(app: &App) -> &NavMap {
    app.world().resource::<NavMaps>().first().expect("a map")
}

fn add_profile(app: &mut App, name: &str, profile: NavProfile) -> ProfileId {
    app.world_mut().resource_mut::<NavProfiles>().insert(name, profile).unwrap()
}

/// An agent of `kind` standing with its body's lowest corner on `at`, sent to `goal`.
fn spawn(app: &mut App, kind: AgentKind, at: GridPos, goal: GridPos) -> Entity {
    let geometry = &map(app).geometry;
    let position = geometry.cell_to_world(at) + geometry.body_offset(kind.size);
    app.world_mut()
        .spawn((
            Transform::from_translation(position.extend(1.0)),
            PathFollower::new(160.0),
            kind,
            PathRequest::to(goal),
        ))
        .id()
}

/// The cheapest cost for `kind` from `start` to `goal`, from the core alone.
fn core_cost(app: &App, profile: NavProfile, size: u32, start: GridPos, goal: GridPos) -> f64 {
    let agent = AgentGrid::new(&map(app).grid, profile, size).unwrap();
    let options = SearchOptions::default();
    Pathfinder::new()
        .find(agent.grid(), &PathQuery::new(start, goal).with_options(options))
        .unwrap()
        .cost
}

/// Steps frames until `entity` arrives, calling `each` with the agent's position every frame.
fn walk(app: &mut App, entity: Entity, frames: usize, mut each: impl FnMut(&App, Vec2)) {
    for _ in 0..frames {
        app.update();
        if let Some(failed) = messages::<PathFailed>(app).iter().find(|f| f.entity == entity) {
            panic!("the agent's plan failed: {}", failed.error);
        }
        let position = app.world().get::<Transform>(entity).unwrap().translation.truncate();
        each(app, position);
        if let Some(arrived) = messages::<Arrived>(app).iter().find(|a| a.entity == entity) {
            assert!(arrived.reached_goal);
            return;
        }
    }
    panic!("not arrived in {frames} frames");
}

fn terrain_under(app: &App, position: Vec2) -> Terrain {
    let map = map(app);
    map.grid.terrain(map.geometry.world_to_cell(position).unwrap()).unwrap()
}

/// A river winding down the right of the map; land down the left.
const RIVER: [&str; 7] = [
    "..~~~~~~~~",
    "........~.",
    "..~~~~~~~.",
    "..~.......",
    "..~~~~~~~~",
    ".........~",
    "..~~~~~~~~",
];

#[test]
fn terrain_classes_come_from_the_rules_and_per_tile() {
    let (mut app, tilemap) = app_with(&["#~m."]);
    let grid = &map(&app).grid;
    let classes: Vec<Terrain> = (0..4).map(|x| grid.terrain(GridPos::new(x, 0)).unwrap()).collect();
    assert_eq!(classes, [WALL, WATER, MUD, Terrain::DEFAULT]);
    // A per-tile class wins over the texture's, and goes when it is removed.
    let storage = app.world().get::<TileStorage>(tilemap).unwrap();
    let tile = storage.get(&TilePos { x: 3, y: 0 }).unwrap();
    app.world_mut().entity_mut(tile).insert(TileTerrain(WATER));
    app.update();
    assert_eq!(map(&app).grid.terrain(GridPos::new(3, 0)), Some(WATER));
    assert_eq!(map(&app).grid.get(GridPos::new(3, 0)), Some(Cell::GROUND));
    app.world_mut().entity_mut(tile).remove::<TileTerrain>();
    app.update();
    assert_eq!(map(&app).grid.terrain(GridPos::new(3, 0)), Some(Terrain::DEFAULT));
}

#[test]
fn a_boat_keeps_to_the_water_and_a_walker_to_the_land() {
    let (mut app, _) = app_with(&RIVER);
    let sail = NavProfile::new().with(WATER, TerrainRule::Cost(1)).otherwise(TerrainRule::Blocked);
    let boat_profile = add_profile(&mut app, "boat", sail.clone());
    let (from, to) = (GridPos::new(2, 6), GridPos::new(2, 0));
    let boat = spawn(&mut app, AgentKind::with_profile(boat_profile), from, to);
    app.update();
    let path = app.world().get::<NavPath>(boat).expect("the boat has a path").clone();
    assert_eq!(path.cost, core_cost(&app, sail, 1, from, to));
    assert_eq!(path.agent, AgentKind::with_profile(boat_profile));
    walk(&mut app, boat, 2000, |app, at| assert_eq!(terrain_under(app, at), WATER));
    let walker = spawn(&mut app, AgentKind::PLAIN, GridPos::new(0, 6), GridPos::new(8, 1));
    walk(&mut app, walker, 2000, |app, at| assert_ne!(terrain_under(app, at), WATER));
}

#[test]
fn a_ghost_drifts_through_walls() {
    let rows = ["..#..", "..#..", "..#..", "..#..", "....."];
    let (mut app, _) = app_with(&rows);
    let drift = NavProfile::new().with(WALL, TerrainRule::Cost(1));
    let ghost = add_profile(&mut app, "ghost", drift.clone());
    let (from, to) = (GridPos::new(0, 4), GridPos::new(4, 4));
    let spirit = spawn(&mut app, AgentKind::with_profile(ghost), from, to);
    let walker = spawn(&mut app, AgentKind::PLAIN, from, to);
    app.update();
    let through = app.world().get::<NavPath>(spirit).unwrap().cost;
    let around = app.world().get::<NavPath>(walker).unwrap().cost;
    assert_eq!(through, 4.0);
    assert_eq!(around, core_cost(&app, NavProfile::default(), 1, from, to));
    assert!(around > 6.0);
    let mut in_wall = false;
    walk(&mut app, spirit, 1000, |app, at| in_wall |= terrain_under(app, at) == WALL);
    assert!(in_wall, "the ghost went through the wall");
}

#[test]
fn changing_a_profile_or_a_kind_plans_again() {
    // A wall with a stretch of mud in it, and a dry way round at the right.
    let rows = ["..........", "####mm###.", "####mm###.", ".........."];
    let (mut app, _) = app_with(&rows);
    let keep_off = NavProfile::new().with(MUD, TerrainRule::Blocked);
    let cart = add_profile(&mut app, "cart", keep_off);
    let (from, to) = (GridPos::new(4, 0), GridPos::new(4, 3));
    let agent = spawn(&mut app, AgentKind::with_profile(cart), from, to);
    app.update();
    let first = app.world().get::<NavPath>(agent).unwrap().clone();
    // The cart keeps off the mud: round by the top (the wall has an opening only there).
    assert!(first.cells.iter().all(|c| !(c.y == 1 || c.y == 2) || c.x < 4 || c.x > 5));
    // The cart learns to cross mud (at 3 a step): its profile replaced, it plans again.
    add_profile(&mut app, "cart", NavProfile::new());
    app.update();
    app.update();
    let second = app.world().get::<NavPath>(agent).unwrap().clone();
    assert_ne!(second.cells, first.cells);
    assert!(second.cells.iter().any(|c| c.y == 1 && (4..=5).contains(&c.x)));
    // Its kind changed (a profile that shuns mud again): planned again too.
    let shy = add_profile(&mut app, "shy", NavProfile::new().with(MUD, TerrainRule::Blocked));
    app.world_mut().entity_mut(agent).insert(AgentKind::with_profile(shy));
    app.update();
    app.update();
    let third = app.world().get::<NavPath>(agent).unwrap().clone();
    assert_eq!(third.agent, AgentKind::with_profile(shy));
    assert!(third.cells.iter().all(|c| !(c.y == 1 || c.y == 2) || c.x < 4 || c.x > 5));
    walk(&mut app, agent, 2000, |app, at| assert_ne!(terrain_under(app, at), MUD));
}

/// Asserts that a 2 x 2 body centred at `at` covers open tiles only.
fn assert_body_clear(app: &App, at: Vec2) {
    let map = map(app);
    let half = TILE - 0.01; // a 2 x 2 body reaches one tile each way from its centre
    for (dx, dy) in [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)] {
        let cell = map.geometry.world_to_cell(at + Vec2::new(dx, dy) * half).expect("on the map");
        assert!(map.grid.is_passable(cell), "body over the wall at {cell}, centre {at}");
    }
}

#[test]
fn a_large_agent_fits_through_wide_gaps_only_and_never_overlaps_a_wall() {
    // A wall down the middle: a one-tile door at the bottom, two-tile gaps higher up.
    let rows = [
        ".....##.....",
        ".....##.....",
        "............",
        "............",
        ".....##.....",
        ".....##.....",
        ".....##.....",
        ".....##.....",
        "............",
        "............",
        ".....##.....",
        "............",
    ];
    let (mut app, tilemap) = app_with(&rows);
    let (from, to) = (GridPos::new(1, 0), GridPos::new(9, 0));
    let giant = spawn(&mut app, AgentKind::sized(2), from, to);
    let walker = spawn(&mut app, AgentKind::PLAIN, from, to);
    app.update();
    let path = app.world().get::<NavPath>(giant).unwrap().clone();
    assert_eq!(path.cost, core_cost(&app, NavProfile::default(), 2, from, to));
    let small = app.world().get::<NavPath>(walker).unwrap().cost;
    assert!(small < path.cost, "the walker takes the door, the giant a gap");
    // The gap it heads for (rows 2-3 from the bottom: cells y = 2, 3).
    let crossing = path.cells.iter().find(|c| c.x == 5).copied().expect("it crosses x = 5");
    assert_eq!(crossing.y, 2);
    // Close that gap when it is on its way: it plans again through the upper one.
    let mut closed = false;
    let mut crossing_after = None;
    for frame in 0..4000 {
        app.update();
        let at = app.world().get::<Transform>(giant).unwrap().translation.truncate();
        assert_body_clear(&app, at);
        assert!(messages::<PathFailed>(&app).is_empty());
        if closed && let Some(path) = app.world().get::<NavPath>(giant) {
            crossing_after = path.cells.iter().find(|c| c.x == 5).map(|c| c.y).or(crossing_after);
        }
        if messages::<Arrived>(&app).iter().any(|a| a.entity == giant && a.reached_goal) {
            assert!(closed);
            assert_eq!(crossing_after, Some(8), "through the upper gap");
            let corner = map(&app).geometry.world_to_cell(at - Vec2::splat(TILE / 2.0));
            assert_eq!(corner, Ok(to));
            return;
        }
        if frame == 10 {
            let storage = app.world().get::<TileStorage>(tilemap).unwrap();
            let tile = storage.get(&TilePos { x: 5, y: 3 }).unwrap();
            app.world_mut().entity_mut(tile).insert(TileTextureIndex(1));
            closed = true;
        }
    }
    panic!("the giant did not arrive");
}

#[test]
fn movement_ranges_are_the_reachable_cells_for_the_kind() {
    let (mut app, _) = app_with(&RIVER);
    let sail = NavProfile::new().with(WATER, TerrainRule::Cost(1)).otherwise(TerrainRule::Blocked);
    let boat = add_profile(&mut app, "boat", sail.clone());
    let at = map(&app).geometry.cell_to_world(GridPos::new(5, 4));
    let unit = app
        .world_mut()
        .spawn((Transform::from_translation(at.extend(0.0)), AgentKind::with_profile(boat)))
        .id();
    app.world_mut().entity_mut(unit).insert(RangeRequest::within(3.0));
    app.update();
    let range = app.world().get::<MoveRange>(unit).expect("answered in the frame").clone();
    assert!(app.world().get::<RangeRequest>(unit).is_none());
    let agent = AgentGrid::new(&map(&app).grid, sail, 1).unwrap();
    let expected = reachable(agent.grid(), GridPos::new(5, 4), 3.0).unwrap();
    assert_eq!(range.reach.cells(), expected.cells());
    // Seven cells of its stretch of river: x = 2 to 8 (the bends are 4 away).
    assert_eq!(range.reach.cells().len(), 7);
    assert!(range.reach.cells().iter().all(|c| c.pos.y == 4 && c.cost <= 3.0));
    // The plain kind asked for instead: land around, no water.
    let plain = RangeRequest { agent: Some(AgentKind::PLAIN), ..RangeRequest::within(2.0) };
    app.world_mut().entity_mut(unit).insert((plain, Transform::from_xyz(0.0, 0.0, 0.0)));
    app.update();
    let range = app.world().get::<MoveRange>(unit).unwrap();
    let on_land = reachable(&map(&app).grid, GridPos::new(0, 0), 2.0).unwrap();
    assert_eq!(range.reach.cells(), on_land.cells());
    assert!(range.reach.cells().len() >= 4);
}

#[test]
fn bad_kinds_and_positions_get_typed_errors() {
    let (mut app, _) = app_with(&RIVER);
    // An id from another set of profiles: none here.
    let mut elsewhere = NavProfiles::default();
    elsewhere.insert("a", NavProfile::new()).unwrap();
    let stranger = elsewhere.insert("b", NavProfile::new()).unwrap();
    add_profile(&mut app, "only", NavProfile::new());
    let lost =
        spawn(&mut app, AgentKind::with_profile(stranger), GridPos::new(0, 0), GridPos::new(1, 1));
    let huge = spawn(&mut app, AgentKind::sized(9), GridPos::new(0, 0), GridPos::new(1, 1));
    let at = Transform::from_xyz(f32::NAN, 0.0, 0.0);
    let nowhere = app.world_mut().spawn((at, RangeRequest::within(2.0))).id();
    let unknown_range = app
        .world_mut()
        .spawn((Transform::default(), AgentKind::with_profile(stranger), RangeRequest::within(2.0)))
        .id();
    app.update();
    let failed = |entity| app.world().get::<PathFailed>(entity).map(|f| f.error.clone());
    assert_eq!(failed(lost), Some(NavError::UnknownProfile { profile: stranger }));
    assert_eq!(failed(huge), Some(NavError::Agent(GridError::UnsupportedSize { size: 9 })));
    let ranges = messages::<RangeFailed>(&app);
    let range_error = |entity| ranges.iter().find(|f| f.entity == entity).map(|f| f.error.clone());
    assert!(matches!(range_error(nowhere), Some(NavError::Start(WorldToCellError::NotFinite(_)))));
    assert_eq!(range_error(unknown_range), Some(NavError::UnknownProfile { profile: stranger }));
    // Nothing else was touched: the agents stay where they are, with no path.
    for entity in [lost, huge] {
        assert!(app.world().get::<NavPath>(entity).is_none());
        assert!(app.world().get::<PathRequest>(entity).is_none());
    }
}

/// A profile re-inserted every frame (unchanged) on a large map costs nothing: no search after
/// the first, and the agent walks its path to the end (issue 52's report of an agent holding a
/// path for 1,394 frames and never arriving was not reproduced; this holds the promise).
#[test]
fn a_profile_re_inserted_every_frame_unchanged_costs_nothing_and_the_agent_arrives() {
    let mut app = nav_app(DT, 1);
    let mut grid = NavGrid::new(300, 300).unwrap();
    for y in 0..300 {
        for x in (100..=102).chain(200..=202) {
            let (cell, wall) = (GridPos::new(x, y), (y + x / 100 * 97) % 300 > 8);
            grid.set(cell, if wall { Cell::Blocked } else { Cell::Passable { cost: 3 } }).unwrap();
            grid.set_terrain(cell, if wall { WALL } else { MUD }).unwrap();
        }
    }
    app.world_mut().spawn(NavGridMap::square(grid, Vec2::splat(TILE)));
    app.update();
    let profile = NavProfile::new().with(MUD, TerrainRule::Cost(2));
    let cart = add_profile(&mut app, "cart", profile.clone());
    let (from, to) = (GridPos::new(2, 2), GridPos::new(290, 280));
    let agent = spawn(&mut app, AgentKind::with_profile(cart), from, to);
    let mut searches = 0;
    for frame in 0..6000 {
        assert_eq!(add_profile(&mut app, "cart", profile.clone()), cart);
        app.update();
        let diagnostics = app.world().resource::<NavDiagnostics>();
        searches += diagnostics.searches_started;
        assert!(messages::<PathFailed>(&app).is_empty(), "frame {frame}");
        if messages::<Arrived>(&app).iter().any(|a| a.entity == agent && a.reached_goal) {
            assert_eq!(searches, 1, "searched again after the first");
            return;
        }
    }
    panic!("never arrived: at {:?}", app.world().get::<Transform>(agent).unwrap().translation);
}
