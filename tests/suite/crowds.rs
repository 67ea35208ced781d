//! Local avoidance in a headless `App`: agents with `Avoidance` cross, swap sides and meet in a
//! corridor, on square and hex maps. Every frame, every agent stands in an open cell of its map
//! and every move between two frames is one legal step (no blocked corner cut); bodies keep
//! apart up to a stated tolerance; everyone arrives within a bound.

use crate::tilemap::{FLOOR, TILE, WALL, app, spawn_text_tilemap};
use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_tilemap_nav::prelude::*;

/// Bodies may overlap by this share of the sum of their radii at most (ORCA keeps them apart
/// in continuous time; frames are discrete steps).
const OVERLAP: f32 = 0.1;

fn spawn_room(app: &mut App, rows: &[&str]) -> Entity {
    let texture = |c| match c {
        '#' => Some(WALL),
        _ => Some(FLOOR),
    };
    let map = spawn_text_tilemap(app, rows, TILE, Vec2::ZERO, texture);
    app.update();
    map
}

fn spawn_walker(app: &mut App, at: GridPos, goal: GridPos, radius: f32) -> Entity {
    let map = app.world().resource::<NavMaps>().first().unwrap();
    let position = map.geometry.cell_to_world(at);
    app.world_mut()
        .spawn((
            Transform::from_translation(position.extend(1.0)),
            PathFollower::new(4.0 * TILE),
            PathRequest::to(goal),
            Avoidance::new(radius),
        ))
        .id()
}

/// Runs frames until every agent has arrived at its goal cell's centre (at most `frames`),
/// checking the rules above each frame. Returns the frames it took and the smallest gap seen
/// between two bodies, as a share of the sum of their radii.
fn run_until_all_arrive(
    app: &mut App,
    agents: &[(Entity, GridPos)],
    frames: usize,
) -> (usize, f32) {
    let mut arrived = vec![false; agents.len()];
    let mut closest = f32::INFINITY;
    let mut before: Vec<Vec2> = positions(app, agents);
    for frame in 0..frames {
        app.update();
        let now = positions(app, agents);
        let map = app.world().resource::<NavMaps>().first().unwrap();
        for (k, (&p, &q)) in before.iter().zip(&now).enumerate() {
            let (a, b) =
                (map.geometry.world_to_cell(p).unwrap(), map.geometry.world_to_cell(q).unwrap());
            assert!(map.grid.is_passable(b), "frame {frame}: agent {k} in blocked cell {b}");
            assert!(
                a == b || map.grid.can_step(a, b),
                "frame {frame}: agent {k} jumped {a} -> {b}"
            );
        }
        for i in 0..agents.len() {
            for j in i + 1..agents.len() {
                let sum = radius(app, agents[i].0) + radius(app, agents[j].0);
                closest = closest.min(now[i].distance(now[j]) / sum);
            }
        }
        if note_arrivals(app, agents, &mut arrived) {
            return (frame, closest);
        }
        before = now;
    }
    let late: Vec<usize> = (0..agents.len()).filter(|&k| !arrived[k]).collect();
    panic!("agents {late:?} did not arrive within {frames} frames");
}

/// Marks the agents that arrived this frame (each at its goal cell); true once all have.
fn note_arrivals(app: &App, agents: &[(Entity, GridPos)], arrived: &mut [bool]) -> bool {
    let messages = app.world().resource::<Messages<Arrived>>();
    for a in messages.iter_current_update_messages() {
        if let Some(k) = agents.iter().position(|(e, _)| *e == a.entity) {
            assert!(a.reached_goal && a.cell == agents[k].1, "{a:?}");
            arrived[k] = true;
        }
    }
    arrived.iter().all(|&a| a)
}

fn positions(app: &App, agents: &[(Entity, GridPos)]) -> Vec<Vec2> {
    agents
        .iter()
        .map(|(e, _)| app.world().get::<Transform>(*e).unwrap().translation.truncate())
        .collect()
}

fn radius(app: &App, entity: Entity) -> f32 {
    app.world().get::<Avoidance>(entity).unwrap().radius
}

/// Two rooms joined by a corridor one cell wide.
const CORRIDOR: [&str; 5] = [
    "#################",
    "#...#########...#",
    "#...............#",
    "#...#########...#",
    "#################",
];

const OPEN_ROOM: [&str; 9] = [
    "##############",
    "#............#",
    "#............#",
    "#............#",
    "#............#",
    "#............#",
    "#............#",
    "#............#",
    "##############",
];

#[test]
fn two_agents_crossing_head_on_both_arrive_and_keep_apart() {
    let mut app = app();
    spawn_room(&mut app, &OPEN_ROOM);
    let (a, b) = (GridPos::new(1, 4), GridPos::new(12, 4));
    let r = 0.4 * TILE;
    let agents = [(spawn_walker(&mut app, a, b, r), b), (spawn_walker(&mut app, b, a, r), a)];
    let (frames, closest) = run_until_all_arrive(&mut app, &agents, 600);
    assert!(closest >= 1.0 - OVERLAP, "bodies came to {closest} of their radii");
    // Straight across is 11 tiles at 4 tiles a second: 172 frames; the detour costs little.
    assert!(frames < 260, "{frames} frames");
}

#[test]
fn twenty_agents_swapping_sides_of_a_room_all_arrive() {
    let mut app = app();
    let mut rows = vec!["#".repeat(24)];
    rows.extend((0..10).map(|_| format!("#{}#", ".".repeat(22))));
    rows.push("#".repeat(24));
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    spawn_room(&mut app, &rows);
    // Ten down each side, each bound for the other side's mirror cell: their ways all cross
    // in the middle of the room.
    let r = 0.3 * TILE;
    let mut agents = Vec::new();
    for y in 1..=10u32 {
        let (left, right) = (GridPos::new(1, y), GridPos::new(22, 11 - y));
        agents.push((spawn_walker(&mut app, left, right, r), right));
        agents.push((spawn_walker(&mut app, right, left, r), left));
    }
    // Straight across is 21 to 23 tiles, 6 seconds at 4 tiles a second (360 frames): allowed,
    // four times that.
    let (frames, closest) = run_until_all_arrive(&mut app, &agents, 1440);
    assert!(closest >= 1.0 - OVERLAP, "bodies came to {closest} of their radii");
    eprintln!("twenty agents: {frames} frames, closest {closest}");
}

#[test]
fn two_agents_meeting_in_a_one_cell_corridor_get_past_each_other() {
    let mut app = app();
    spawn_room(&mut app, &CORRIDOR);
    let (a, b) = (GridPos::new(1, 2), GridPos::new(15, 2));
    // Bodies 1.2 tiles across: two cannot pass in the corridor (centres keep to open cells).
    let r = 0.6 * TILE;
    let agents = [(spawn_walker(&mut app, a, b, r), b), (spawn_walker(&mut app, b, a, r), a)];
    // 14 tiles at 4 a second is 210 frames; one of them backs out and waits: allowed, 1000.
    let (frames, _) = run_until_all_arrive(&mut app, &agents, 1000);
    eprintln!("corridor: {frames} frames");
}

#[test]
fn agents_cross_on_hex_and_isometric_maps_too() {
    let rows = ["#########", "#.......#", "#.......#", "#.......#", "#.......#", "#########"];
    let types = [
        TilemapType::Hexagon(HexCoordSystem::RowOdd),
        TilemapType::Isometric(IsoCoordSystem::Diamond),
        TilemapType::Isometric(IsoCoordSystem::Staggered),
    ];
    for map_type in types {
        let mut app = app();
        let map = spawn_room(&mut app, &rows);
        app.world_mut().entity_mut(map).insert(map_type);
        app.update();
        // Staggered maps hold tile (x, y) as cell (x, x + y).
        let geometry = app.world().resource::<NavMaps>().first().unwrap().geometry;
        let (a, b) =
            (geometry.tile_to_cell(TilePos::new(1, 2)), geometry.tile_to_cell(TilePos::new(7, 2)));
        let r = 0.3 * TILE;
        let agents = [(spawn_walker(&mut app, a, b, r), b), (spawn_walker(&mut app, b, a, r), a)];
        let (_, closest) = run_until_all_arrive(&mut app, &agents, 900);
        assert!(closest >= 1.0 - OVERLAP, "{map_type:?}: bodies came to {closest} of their radii");
    }
}

/// `Avoidance::sized` (the default) gives a body four tenths of a cell's width for each tile
/// along the agent's side, follows a change of size, and is the game's to turn off; a radius the
/// game set stays whatever the size. Two size-2 bodies crossing head on keep apart by their
/// sized radii (twice a one-tile body's) and arrive.
#[test]
fn sized_bodies_follow_the_agents_size() {
    let mut app = app();
    spawn_room(&mut app, &OPEN_ROOM);
    let geometry = app.world().resource::<NavMaps>().first().unwrap().geometry;
    let spawn = |app: &mut App, at: GridPos, size: u32, body: Avoidance| {
        let position = geometry.cell_to_world(at) + geometry.body_offset(size);
        let at = Transform::from_translation(position.extend(1.0));
        let kind = AgentKind::sized(size);
        app.world_mut().spawn((at, PathFollower::new(4.0 * TILE), kind, body)).id()
    };
    let close = |a: f32, b: f32| (a - b).abs() <= 1e-4 * b.abs().max(1.0);
    // Standing, one tile: 0.4 of a tile; grown to 3 tiles: 1.2; its radius its own: kept.
    let one = spawn(&mut app, GridPos::new(1, 7), 1, Avoidance::default());
    let set = spawn(&mut app, GridPos::new(12, 7), 2, Avoidance::new(7.0));
    app.update();
    assert!(close(radius(&app, one), 0.4 * TILE), "{}", radius(&app, one));
    assert_eq!(radius(&app, set), 7.0);
    app.world_mut().entity_mut(one).insert(AgentKind::sized(3));
    app.update();
    assert!(close(radius(&app, one), 1.2 * TILE), "{}", radius(&app, one));
    app.world_mut().get_mut::<Avoidance>(one).unwrap().sized = false;
    app.world_mut().get_mut::<Avoidance>(one).unwrap().radius = 5.0;
    app.update();
    assert_eq!(radius(&app, one), 5.0);
    for entity in [one, set] {
        app.world_mut().despawn(entity);
    }
    // Two bodies two tiles wide cross head on.
    let (a, b) = (GridPos::new(1, 3), GridPos::new(11, 3));
    let agents = [
        (spawn(&mut app, a, 2, Avoidance::sized()), b),
        (spawn(&mut app, b, 2, Avoidance::sized()), a),
    ];
    for &(agent, goal) in &agents {
        app.world_mut().entity_mut(agent).insert(PathRequest::to(goal));
    }
    let (frames, closest) = run_until_all_arrive(&mut app, &agents, 900);
    for &(agent, _) in &agents {
        assert!(close(radius(&app, agent), 0.8 * TILE), "{}", radius(&app, agent));
    }
    assert!(closest >= 1.0 - OVERLAP, "bodies came to {closest} of their radii");
    eprintln!("two size-2 bodies crossing: {frames} frames, closest {closest}");
}

fn spawn_locked(app: &mut App, at: GridPos, goal: GridPos) -> Entity {
    let map = app.world().resource::<NavMaps>().first().unwrap();
    let position = map.geometry.cell_to_world(at);
    app.world_mut()
        .spawn((
            Transform::from_translation(position.extend(1.0)),
            PathFollower::new(4.0 * TILE),
            PathRequest::to(goal),
            GridLocked::default(),
        ))
        .id()
}

/// Runs frames until every grid-locked agent has arrived (at most `frames`), checking every
/// frame that no two stand in one cell, none holds another's cell, and no two swap cells.
fn run_locked(app: &mut App, agents: &[(Entity, GridPos)], frames: usize) -> usize {
    let mut arrived = vec![false; agents.len()];
    let cells = |app: &App| -> Vec<GridPos> {
        let map = app.world().resource::<NavMaps>().first().unwrap();
        positions(app, agents).iter().map(|&p| map.geometry.world_to_cell(p).unwrap()).collect()
    };
    let mut before = cells(app);
    for frame in 0..frames {
        app.update();
        let now = cells(app);
        let map = app.world().resource::<NavMaps>().first().unwrap();
        let mut held = Vec::new();
        for (k, &(entity, _)) in agents.iter().enumerate() {
            assert!(map.grid.is_passable(now[k]), "frame {frame}: agent {k} in a blocked cell");
            let lock = app.world().get::<GridLocked>(entity).unwrap();
            held.extend(lock.holds.map(|h| h.1));
            held.extend(lock.entering);
            // It stands in the cell it holds or the one it is entering.
            let own = [lock.holds.map(|h| h.1), lock.entering];
            assert!(own.contains(&Some(now[k])), "frame {frame}: agent {k} outside its cells");
        }
        let count = held.len();
        held.sort_unstable();
        held.dedup();
        assert_eq!(held.len(), count, "frame {frame}: a cell held twice");
        for i in 0..agents.len() {
            for j in i + 1..agents.len() {
                assert_ne!(now[i], now[j], "frame {frame}: agents {i} and {j} in one cell");
                let swapped = now[i] == before[j] && now[j] == before[i] && now[i] != now[j];
                assert!(!swapped, "frame {frame}: agents {i} and {j} swapped cells");
            }
        }
        if note_arrivals(app, agents, &mut arrived) {
            return frame;
        }
        before = now;
    }
    let late: Vec<usize> = (0..agents.len()).filter(|&k| !arrived[k]).collect();
    panic!("grid-locked agents {late:?} did not arrive within {frames} frames");
}

#[test]
fn grid_locked_agents_meeting_in_a_corridor_never_share_a_cell_and_get_past() {
    let mut app = app();
    spawn_room(&mut app, &CORRIDOR);
    let (a, b) = (GridPos::new(1, 2), GridPos::new(15, 2));
    let agents = [(spawn_locked(&mut app, a, b), b), (spawn_locked(&mut app, b, a), a)];
    // 14 cells at 4 a second is 210 frames; one backs out of the corridor and waits.
    let frames = run_locked(&mut app, &agents, 1200);
    eprintln!("grid-locked corridor: {frames} frames");
}

#[test]
fn twelve_grid_locked_agents_swapping_sides_of_a_room_all_arrive_one_per_cell() {
    let mut app = app();
    spawn_room(&mut app, &OPEN_ROOM);
    let mut agents = Vec::new();
    for y in 1..=6u32 {
        let (left, right) = (GridPos::new(1, y), GridPos::new(12, 8 - y));
        agents.push((spawn_locked(&mut app, left, right), right));
        agents.push((spawn_locked(&mut app, right, left), left));
    }
    let frames = run_locked(&mut app, &agents, 2400);
    eprintln!("twelve grid-locked: {frames} frames");
}

#[test]
fn a_grid_locked_agent_waits_for_a_taken_cell_then_goes_round() {
    let mut app = app();
    // Two ways from left to right: the short one through the middle, a long one round the top.
    spawn_room(
        &mut app,
        &["###########", "#.........#", "#.#######.#", "#.........#", "###########"],
    );
    // Someone stands in the middle of the short way and stays there.
    let stander = spawn_locked(&mut app, GridPos::new(5, 1), GridPos::new(5, 1));
    let walker = spawn_locked(&mut app, GridPos::new(1, 1), GridPos::new(9, 1));
    let frames =
        run_locked(&mut app, &[(walker, GridPos::new(9, 1)), (stander, GridPos::new(5, 1))], 900);
    // It went round the top.
    assert!(frames > 0);
    let at = app.world().get::<Transform>(walker).unwrap().translation.truncate();
    let map = app.world().resource::<NavMaps>().first().unwrap();
    assert_eq!(map.geometry.world_to_cell(at).unwrap(), GridPos::new(9, 1));
}
