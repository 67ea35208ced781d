//! Many maps in one world, and links between them, in a headless `App` with real
//! bevy_ecs_tilemap tilemaps: levels side by side (each of two layers), floors drawn at one
//! place grouped with `NavLayerOf`, agents walking through door and stair links, a level
//! despawned under an agent, a link taken away while an agent walks towards it.

use crate::tilemap::{FLOOR, WALL, app, centre_on as centre, messages, spawn_text_tilemap};
use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_tilemap_nav::plugin::OnNavMap;
use bevy_tilemap_nav::plugin::{NavGridChanged, NavLayerOf};
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::{Link, LinkedMaps, MapPos};

/// Spawns a square tilemap from text rows (top row first: `#` wall, `.` floor, ` ` no tile)
/// with tiles `tile` units wide, placed at `at`.
fn spawn_layer(app: &mut App, rows: &[&str], tile: f32, at: Vec2) -> Entity {
    let texture = |c| match c {
        '#' => Some(WALL),
        '.' => Some(FLOOR),
        _ => None,
    };
    spawn_text_tilemap(app, rows, tile, at, texture)
}

/// A level of two layers (floor everywhere; the walls layer's `#`s), at `at`. Returns the
/// layers, floor first.
fn spawn_level(app: &mut App, walls: &[&str], tile: f32, at: Vec2) -> [Entity; 2] {
    let floor: Vec<String> = walls.iter().map(|r| ".".repeat(r.len())).collect();
    let floor: Vec<&str> = floor.iter().map(String::as_str).collect();
    let walls: Vec<String> = walls.iter().map(|r| r.replace('.', " ")).collect();
    let walls: Vec<&str> = walls.iter().map(String::as_str).collect();
    [spawn_layer(app, &floor, tile, at), spawn_layer(app, &walls, tile, at)]
}

fn maps(app: &App) -> &NavMaps {
    app.world().resource::<NavMaps>()
}

fn spawn_agent(app: &mut App, map: Entity, at: GridPos, goal: PathGoal, speed: f32) -> Entity {
    let position = centre(app, map, at);
    app.world_mut()
        .spawn((
            Transform::from_translation(position.extend(1.0)),
            PathFollower::new(speed),
            PathRequest::to(goal),
        ))
        .id()
}

/// Steps frames until `entity` arrives, checking every frame that it stands on an open cell
/// of the map it is on; returns the links it crossed.
fn walk_until_arrived(app: &mut App, entity: Entity, max_frames: usize) -> Vec<LinkCrossed> {
    let mut crossed = Vec::new();
    for frame in 0..max_frames {
        app.update();
        crossed.extend(messages::<LinkCrossed>(app).into_iter().filter(|c| c.entity == entity));
        let position = app.world().get::<Transform>(entity).unwrap().translation.truncate();
        let on = app.world().get::<OnNavMap>(entity).expect("an agent with a path is on a map");
        let map = maps(app).get(on.0).expect("its map exists");
        let cell = map.geometry.world_to_cell(position).expect("the agent on its map");
        assert!(map.grid.is_passable(cell), "frame {frame}: agent inside blocked cell {cell}");
        if let Some(arrived) = messages::<Arrived>(app).iter().find(|a| a.entity == entity) {
            assert!(arrived.reached_goal);
            return crossed;
        }
    }
    panic!("agent did not arrive within {max_frames} frames");
}

const LEVEL_A: [&str; 5] = ["........", "...#....", "...#....", "...#....", "........"];
const LEVEL_B: [&str; 5] = ["......", "..##..", "......", "..##..", "......"];

#[test]
fn an_agent_walks_from_one_level_to_the_next_through_a_door() {
    let mut app = app();
    // Level A: tiles of 32; level B, right of it with a gap, tiles of 16.
    let a = spawn_level(&mut app, &LEVEL_A, 32.0, Vec2::ZERO);
    let b = spawn_level(&mut app, &LEVEL_B, 16.0, Vec2::new(8.0 * 32.0 + 40.0, 0.0));
    app.update();
    // Two maps, each of its two layers, named by its first layer.
    assert_eq!(maps(&app).len(), 2);
    assert_eq!(maps(&app).get(a[0]).unwrap().layers, a.to_vec());
    assert_eq!(maps(&app).get(b[0]).unwrap().layers, b.to_vec());
    assert_eq!(maps(&app).of_tilemap(b[1]).unwrap().entity, b[0]);
    let (map_a, map_b) = (a[0], b[0]);
    // The walls layer counts.
    assert!(!maps(&app).get(map_a).unwrap().grid.is_passable(GridPos::new(3, 2)));
    assert!(!maps(&app).get(map_b).unwrap().grid.is_passable(GridPos::new(2, 1)));

    let door_a = LinkEnd::new(map_a, GridPos::new(7, 2));
    let door_b = LinkEnd::new(map_b, GridPos::new(0, 2));
    let door = app.world_mut().spawn(NavLink::two_way(door_a, door_b, 1.0)).id();
    // A world goal on level B finds its map.
    let goal = centre(&app, map_b, GridPos::new(5, 2));
    let agent = spawn_agent(&mut app, map_a, GridPos::new(0, 2), PathGoal::World(goal), 400.0);
    app.update();
    let path = app.world().get::<NavPath>(agent).expect("answered").clone();
    assert_eq!((path.map, path.goal_map, path.goal), (map_a, map_b, GridPos::new(5, 2)));
    assert_eq!(path.cells.last(), Some(&door_a.cell));
    assert_eq!(path.legs.len(), 1);
    assert_eq!((path.legs[0].link, path.legs[0].map), (door, map_b));
    assert_eq!(path.legs[0].cells.first(), Some(&door_b.cell));
    // Optimal: what the core's linked search says, through the door.
    let core = {
        let maps = maps(&app);
        let grids = [&maps.get(map_a).unwrap().grid, &maps.get(map_b).unwrap().grid];
        let link = Link::two_way(MapPos::new(0, door_a.cell), MapPos::new(1, door_b.cell), 1.0);
        Pathfinder::new()
            .find(
                LinkedMaps::new(&grids, &[link]),
                &PathQuery::new(
                    MapPos::new(0, GridPos::new(0, 2)),
                    MapPos::new(1, GridPos::new(5, 2)),
                ),
            )
            .unwrap()
    };
    assert!((path.cost - core.cost).abs() < 1e-9, "{} vs {}", path.cost, core.cost);

    let crossed = walk_until_arrived(&mut app, agent, 600);
    assert_eq!(crossed, vec![LinkCrossed { entity: agent, link: door, from: door_a, to: door_b }]);
    assert_eq!(app.world().get::<OnNavMap>(agent), Some(&OnNavMap(map_b)));
    let at = app.world().get::<Transform>(agent).unwrap().translation.truncate();
    assert!(at.distance(goal) < 1e-3);

    // A tile goal is on the agent's own map: back to (0, 0) of level B, no link needed.
    app.world_mut().entity_mut(agent).insert(PathRequest::to(GridPos::new(0, 0)));
    app.update();
    let path = app.world().get::<NavPath>(agent).unwrap();
    assert_eq!((path.map, path.goal_map, path.legs.len()), (map_b, map_b, 0));
    // Grid changes name their map.
    let t = app.world().get::<TileStorage>(b[0]).unwrap().get(&TilePos::new(5, 0)).unwrap();
    app.world_mut().entity_mut(t).insert(TileTextureIndex(WALL));
    app.update();
    let changes = messages::<NavGridChanged>(&app);
    assert_eq!(changes, vec![NavGridChanged { map: map_b, cells: vec![GridPos::new(5, 0)] }]);
}

/// A link whose end moves or whose cost changes (the same link entity, no link added or taken
/// away) is searched as it is now: the request system's gathered links follow the change.
#[test]
fn a_link_moved_or_repriced_in_place_is_searched_as_it_is_now() {
    let mut app = app();
    let a = spawn_level(&mut app, &LEVEL_A, 32.0, Vec2::ZERO);
    let b = spawn_level(&mut app, &LEVEL_B, 16.0, Vec2::new(8.0 * 32.0 + 40.0, 0.0));
    app.update();
    let (map_a, map_b) = (a[0], b[0]);
    let (door_a, door_b) =
        (LinkEnd::new(map_a, GridPos::new(7, 2)), LinkEnd::new(map_b, GridPos::new(0, 2)));
    let door = app.world_mut().spawn(NavLink::two_way(door_a, door_b, 1.0)).id();
    let goal = PathGoal::OnMap { map: map_b, cell: GridPos::new(5, 2) };
    let ask = |app: &mut App| {
        let agent = spawn_agent(app, map_a, GridPos::new(0, 2), goal.clone(), 100.0);
        app.update();
        let path = app.world().get::<NavPath>(agent).expect("answered").clone();
        app.world_mut().despawn(agent);
        path
    };
    let first = ask(&mut app);
    assert_eq!(first.cells.last(), Some(&door_a.cell));
    // The door moves to the top row of level A, and costs 5 to cross.
    let moved = LinkEnd::new(map_a, GridPos::new(7, 4));
    {
        let mut link = app.world_mut().get_mut::<NavLink>(door).unwrap();
        link.from = moved;
        link.cost = 5.0;
    }
    app.update();
    let second = ask(&mut app);
    assert_eq!(second.cells.last(), Some(&moved.cell), "the door where it was");
    assert_eq!(second.legs[0].link, door);
    // Every cell costs 1: a walk costs its length.
    let length = |cells: &[GridPos]| -> f64 {
        let step =
            |w: &[GridPos]| if w[0].x != w[1].x && w[0].y != w[1].y { 2f64.sqrt() } else { 1.0 };
        cells.windows(2).map(step).sum()
    };
    let (walk_a, walk_b) = (length(&second.cells), length(&second.legs[0].cells));
    assert!((second.cost - (walk_a + 5.0 + walk_b)).abs() < 1e-9, "{} costs", second.cost);
}

#[test]
fn floors_drawn_at_one_place_are_grouped_by_nav_layer_of_and_joined_by_stairs() {
    let mut app = app();
    let ground = spawn_level(&mut app, &LEVEL_A, 32.0, Vec2::ZERO);
    let upstairs = spawn_level(&mut app, &LEVEL_A, 32.0, Vec2::ZERO);
    // Left alone, all four layers lie on one another: one map.
    app.update();
    assert_eq!(maps(&app).len(), 1);
    // Grouped: two floors, named by their first layers (which need no `NavLayerOf` of their
    // own: being named is enough).
    app.world_mut().entity_mut(ground[1]).insert(NavLayerOf(ground[0]));
    for layer in upstairs {
        app.world_mut().entity_mut(layer).insert(NavLayerOf(upstairs[0]));
    }
    // The upstairs floor has a wall across it, with the stairs on either side.
    let t = app.world().get::<TileStorage>(upstairs[0]).unwrap().get(&TilePos::new(3, 4)).unwrap();
    app.world_mut().entity_mut(t).insert(TileTextureIndex(WALL));
    app.update();
    assert_eq!(maps(&app).len(), 2);
    let (g, u) = (ground[0], upstairs[0]);
    assert_eq!(maps(&app).get(g).unwrap().layers, ground.to_vec());
    assert_eq!(maps(&app).get(u).unwrap().layers, upstairs.to_vec());
    assert_ne!(
        maps(&app).get(g).unwrap().grid.passable_count(),
        maps(&app).get(u).unwrap().grid.passable_count()
    );
    let stairs = app
        .world_mut()
        .spawn(NavLink::two_way(
            LinkEnd::new(g, GridPos::new(1, 0)),
            LinkEnd::new(u, GridPos::new(1, 0)),
            3.0,
        ))
        .id();
    // An agent on the ground floor (said so: the floors overlap) sent to a cell upstairs.
    let goal = PathGoal::OnMap { map: u, cell: GridPos::new(6, 4) };
    let agent = spawn_agent(&mut app, g, GridPos::new(0, 4), goal, 300.0);
    app.world_mut().entity_mut(agent).insert(OnNavMap(g));
    let crossed = walk_until_arrived(&mut app, agent, 600);
    assert_eq!(crossed.len(), 1);
    assert_eq!(crossed[0].link, stairs);
    assert_eq!(app.world().get::<OnNavMap>(agent), Some(&OnNavMap(u)));
}

#[test]
fn a_level_despawned_under_an_agent_stops_it_with_a_typed_error() {
    let mut app = app();
    let a = spawn_level(&mut app, &LEVEL_A, 32.0, Vec2::ZERO);
    let b = spawn_level(&mut app, &LEVEL_B, 32.0, Vec2::new(0.0, 400.0));
    app.update();
    let agent =
        spawn_agent(&mut app, b[0], GridPos::new(0, 0), PathGoal::Tile(GridPos::new(5, 4)), 20.0);
    for _ in 0..5 {
        app.update();
    }
    assert_eq!(app.world().get::<NavPath>(agent).map(|p| p.map), Some(b[0]));
    // Level B streams out: both its layers despawned.
    for layer in b {
        app.world_mut().despawn(layer);
    }
    app.update();
    assert_eq!(maps(&app).len(), 1);
    assert!(maps(&app).get(a[0]).is_some());
    assert_eq!(
        app.world().get::<PathFailed>(agent).map(|f| f.error.clone()),
        Some(NavError::MapGone { map: b[0] })
    );
    assert!(app.world().get::<NavPath>(agent).is_none());
    let stopped = app.world().get::<Transform>(agent).unwrap().translation;
    for _ in 0..5 {
        app.update();
    }
    assert_eq!(app.world().get::<Transform>(agent).unwrap().translation, stopped);
    // Asked again, it is told its map is gone (no other map lies under it).
    app.world_mut().entity_mut(agent).insert(PathRequest::to(GridPos::new(1, 1)));
    app.update();
    assert_eq!(
        app.world().get::<PathFailed>(agent).map(|f| f.error.clone()),
        Some(NavError::MapGone { map: b[0] })
    );
    // The level streams back in, a new map: the agent, on the map under its feet now, walks.
    let b_again = spawn_level(&mut app, &LEVEL_B, 32.0, Vec2::new(0.0, 400.0));
    app.update();
    assert_eq!(maps(&app).len(), 2);
    app.world_mut().entity_mut(agent).insert(PathRequest::to(GridPos::new(5, 4)));
    app.update();
    assert_eq!(app.world().get::<OnNavMap>(agent), Some(&OnNavMap(b_again[0])));
    walk_until_arrived(&mut app, agent, 1200);
}

#[test]
fn a_link_taken_away_while_an_agent_walks_towards_it_makes_it_plan_again() {
    let mut app = app();
    let a = spawn_level(&mut app, &LEVEL_A, 32.0, Vec2::ZERO);
    let b = spawn_level(&mut app, &LEVEL_B, 32.0, Vec2::new(8.0 * 32.0 + 40.0, 0.0));
    app.update();
    let (map_a, map_b) = (a[0], b[0]);
    // Two doors: a near one and a far one.
    let near = app
        .world_mut()
        .spawn(NavLink::two_way(
            LinkEnd::new(map_a, GridPos::new(7, 4)),
            LinkEnd::new(map_b, GridPos::new(0, 4)),
            1.0,
        ))
        .id();
    let far = app
        .world_mut()
        .spawn(NavLink::one_way(
            LinkEnd::new(map_a, GridPos::new(7, 0)),
            LinkEnd::new(map_b, GridPos::new(0, 0)),
            1.0,
        ))
        .id();
    let goal = PathGoal::OnMap { map: map_b, cell: GridPos::new(5, 4) };
    let agent = spawn_agent(&mut app, map_a, GridPos::new(0, 4), goal, 64.0);
    app.update();
    assert_eq!(app.world().get::<NavPath>(agent).unwrap().legs[0].link, near);
    for _ in 0..5 {
        app.update();
    }
    app.world_mut().despawn(near);
    let crossed = walk_until_arrived(&mut app, agent, 900);
    assert_eq!(crossed.len(), 1);
    assert_eq!(crossed[0].link, far);
    // The one-way door does not lead back.
    app.world_mut()
        .entity_mut(agent)
        .insert(PathRequest::to(PathGoal::OnMap { map: map_a, cell: GridPos::new(0, 0) }));
    app.update();
    assert!(matches!(
        app.world().get::<PathFailed>(agent).map(|f| f.error.clone()),
        Some(NavError::NoWayBetweenMaps { start_map, goal_map, .. })
            if start_map == map_b && goal_map == map_a
    ));
}
