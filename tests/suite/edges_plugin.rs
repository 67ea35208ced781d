//! Walls between tiles and ledges in the plugin: `TileEdges` on tile entities become the grid's
//! edges, kept in step as tiles change (a door that shuts and opens), and characters walk
//! round fences and drop down ledges without ever crossing a barred edge.

use crate::tilemap::{DT, TILE, centre, nav_app, spawn_text_tilemap};
use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_tilemap_nav::plugin::{
    FollowField, NavDiagnostics, NavError, NavField, NavGridChanged, PathFailed, PrecomputeBuilds,
    WAIT_RETRY_SECONDS,
};
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::PathError;

/// An open 10 x 8 room.
const ROOM: [&str; 8] = [".........."; 8];

fn spawn_room(app: &mut App) -> Entity {
    spawn_text_tilemap(app, &ROOM, TILE, Vec2::ZERO, |_| Some(0))
}

fn tile(app: &App, tilemap: Entity, x: u32, y: u32) -> Entity {
    app.world().get::<TileStorage>(tilemap).unwrap().get(&TilePos { x, y }).unwrap()
}

fn grid(app: &App) -> NavGrid {
    app.world().resource::<NavMaps>().first().unwrap().grid.clone()
}

fn cell_of(app: &App, entity: Entity) -> GridPos {
    let at = app.world().get::<Transform>(entity).unwrap().translation.truncate();
    let geometry = app.world().resource::<NavMaps>().first().unwrap().geometry;
    geometry.world_to_cell(at).unwrap()
}

/// A fence along the north side of row 3, x = 0..10, with a gap (a door) at x = `door`.
fn build_fence(app: &mut App, tilemap: Entity, door: Option<u32>) {
    for x in 0..10 {
        let t = tile(app, tilemap, x, 3);
        if Some(x) == door {
            app.world_mut().entity_mut(t).remove::<TileEdges>();
        } else {
            let fence = TileEdges { walls: Sides::NORTH, drops: Sides::NONE };
            app.world_mut().entity_mut(t).insert(fence);
        }
    }
}

/// A ledge along the south side of row 4, x = 1..10: from row 4 a step down to row 3 is a drop;
/// the way up is round its west end (x = 0).
fn build_ledge(app: &mut App, tilemap: Entity) {
    for x in 1..10 {
        let t = tile(app, tilemap, x, 4);
        app.world_mut().entity_mut(t).insert(TileEdges { walls: Sides::NONE, drops: Sides::SOUTH });
    }
}

/// Steps frames until `agent` has no path and no request left (or `frames` pass), checking at
/// every frame that it moved across no barred edge: each change of cell is one the grid
/// allows (straight across an open edge, diagonally past no wall's end).
fn walk(app: &mut App, agent: Entity, frames: usize) -> Vec<GridPos> {
    let mut cells = vec![cell_of(app, agent)];
    for frame in 0..frames {
        app.update();
        let now = cell_of(app, agent);
        let last = *cells.last().unwrap();
        if now != last {
            let grid = grid(app);
            assert!(grid.can_step(last, now), "frame {frame}: {last} -> {now} crosses an edge");
            cells.push(now);
        }
        let world = app.world();
        if world.get::<NavPath>(agent).is_none() && world.get::<PathRequest>(agent).is_none() {
            break;
        }
    }
    cells
}

fn spawn_walker(app: &mut App, at: GridPos, goal: GridPos) -> Entity {
    let position = centre(app, at);
    app.world_mut()
        .spawn((
            Transform::from_translation(position.extend(1.0)),
            PathFollower::new(96.0),
            PathRequest::to(goal),
        ))
        .id()
}

#[test]
fn characters_go_through_the_door_and_replan_when_it_shuts_and_opens() {
    let mut app = nav_app(DT, 1);
    let map = spawn_room(&mut app);
    app.update();
    build_fence(&mut app, map, Some(7));
    app.update();
    let g = grid(&app);
    assert!(g.has_edges());
    assert!(!g.can_step(GridPos::new(2, 3), GridPos::new(2, 4)));
    assert!(g.can_step(GridPos::new(7, 3), GridPos::new(7, 4)));
    // No diagonal past the fence's end beside the door.
    assert!(!g.can_step(GridPos::new(7, 3), GridPos::new(6, 4)));

    let (start, goal) = (GridPos::new(1, 1), GridPos::new(1, 6));
    let agent = spawn_walker(&mut app, start, goal);
    app.update();
    let path = app.world().get::<NavPath>(agent).expect("a path").clone();
    assert!(path.cells.contains(&GridPos::new(7, 3)) && path.cells.contains(&GridPos::new(7, 4)));
    let walked = walk(&mut app, agent, 900);
    assert_eq!(*walked.last().unwrap(), goal, "{walked:?}");

    // The door shuts: the grid follows with a message naming the cell, and the way back is
    // gone: the request fails as unreachable.
    build_fence(&mut app, map, None);
    app.update();
    let changed: Vec<NavGridChanged> = app
        .world()
        .resource::<Messages<NavGridChanged>>()
        .iter_current_update_messages()
        .cloned()
        .collect();
    assert!(changed.iter().any(|m| m.cells.contains(&GridPos::new(7, 3))), "{changed:?}");
    app.world_mut().entity_mut(agent).insert(PathRequest::to(start));
    app.update();
    let failed: Vec<PathFailed> = app
        .world()
        .resource::<Messages<PathFailed>>()
        .iter_current_update_messages()
        .cloned()
        .collect();
    assert!(
        failed.iter().any(|f| f.entity == agent
            && matches!(f.error, NavError::Search(PathError::Unreachable { .. }))),
        "{failed:?}"
    );
    assert_eq!(cell_of(&app, agent), goal);

    // It opens again (another door this time): the character walks back through it.
    build_fence(&mut app, map, Some(2));
    app.update();
    app.world_mut().entity_mut(agent).insert(PathRequest::to(start));
    let walked = walk(&mut app, agent, 900);
    assert_eq!(*walked.last().unwrap(), start, "{walked:?}");
    assert!(walked.windows(2).any(|w| w[0] == GridPos::new(2, 4) && w[1] == GridPos::new(2, 3)));
}

#[test]
fn a_door_shut_mid_walk_turns_the_walker_round() {
    let mut app = nav_app(DT, 1);
    let map = spawn_room(&mut app);
    app.update();
    build_fence(&mut app, map, Some(8));
    // A second door far to the west.
    app.update();
    let t = tile(&app, map, 0, 3);
    app.world_mut().entity_mut(t).remove::<TileEdges>();
    app.update();
    let (start, goal) = (GridPos::new(6, 0), GridPos::new(6, 7));
    let agent = spawn_walker(&mut app, start, goal);
    app.update();
    let path = app.world().get::<NavPath>(agent).unwrap().clone();
    assert!(path.cells.contains(&GridPos::new(8, 4)), "by the near door: {:?}", path.cells);
    // A few frames on, the near door shuts: the walker re-plans through the far one.
    for _ in 0..8 {
        app.update();
    }
    let t = tile(&app, map, 8, 3);
    app.world_mut().entity_mut(t).insert(TileEdges { walls: Sides::NORTH, drops: Sides::NONE });
    let walked = walk(&mut app, agent, 1500);
    assert_eq!(*walked.last().unwrap(), goal, "{walked:?}");
    assert!(walked.contains(&GridPos::new(0, 4)), "through the far door: {walked:?}");
}

#[test]
fn a_ledge_is_dropped_down_and_never_climbed() {
    let mut app = nav_app(DT, 1);
    let map = spawn_room(&mut app);
    app.update();
    build_ledge(&mut app, map);
    app.update();
    let (high, low) = (GridPos::new(6, 6), GridPos::new(6, 1));
    let agent = spawn_walker(&mut app, high, low);
    app.update();
    let down = app.world().get::<NavPath>(agent).unwrap().clone();
    assert_eq!(down.cells.len(), 6, "straight down: {:?}", down.cells);
    let walked = walk(&mut app, agent, 900);
    assert_eq!(*walked.last().unwrap(), low);
    app.world_mut().entity_mut(agent).insert(PathRequest::to(high));
    app.update();
    let up = app.world().get::<NavPath>(agent).unwrap().clone();
    assert!(up.cells.iter().any(|c| c.x == 0), "round the west end: {:?}", up.cells);
    let walked = walk(&mut app, agent, 1500);
    assert_eq!(*walked.last().unwrap(), high);
    // Taking the ledges off opens the way straight up.
    for x in 1..10 {
        let t = tile(&app, map, x, 4);
        app.world_mut().entity_mut(t).remove::<TileEdges>();
    }
    app.update();
    assert!(!grid(&app).has_edges());
}

/// A map with a ledge marked `PrecomputePaths` gets a path table (not landmarks or a first-move
/// table): requests down the ledge and round its end back up are answered from it, with
/// online search's costs, and walked without climbing it.
#[test]
fn a_map_with_a_ledge_is_answered_from_a_path_table() {
    let mut app = nav_app(DT, 1);
    let map = spawn_room(&mut app);
    app.update();
    build_ledge(&mut app, map);
    app.world_mut().entity_mut(map).insert(PrecomputePaths);
    let table_ready = |app: &App| {
        let maps = app.world().resource::<NavMaps>();
        maps.first().is_some_and(|nav| nav.path_table().is_some_and(|t| t.is_current(&nav.grid)))
    };
    for _ in 0..600 {
        if table_ready(&app) {
            break;
        }
        app.update();
    }
    assert!(table_ready(&app), "no path table for the map with a ledge");
    let (high, low) = (GridPos::new(6, 6), GridPos::new(6, 1));
    let online = |app: &App, from, to| {
        Pathfinder::new().find(&grid(app), &PathQuery::new(from, to)).unwrap().cost
    };
    let agent = spawn_walker(&mut app, high, low);
    app.update();
    assert_eq!(app.world().resource::<NavDiagnostics>().table_answers, 1);
    let down = app.world().get::<NavPath>(agent).unwrap().clone();
    assert_eq!(down.cells.len(), 6, "straight down: {:?}", down.cells);
    assert_eq!(*walk(&mut app, agent, 900).last().unwrap(), low);
    app.world_mut().entity_mut(agent).insert(PathRequest::to(high));
    app.update();
    assert_eq!(app.world().resource::<NavDiagnostics>().table_answers, 1);
    let up = app.world().get::<NavPath>(agent).unwrap().clone();
    assert!(up.cells.iter().any(|c| c.x == 0), "round the west end: {:?}", up.cells);
    let cost: f64 = up
        .cells
        .windows(2)
        .map(|w| if w[0].x != w[1].x && w[0].y != w[1].y { std::f64::consts::SQRT_2 } else { 1.0 })
        .sum();
    assert!((cost - online(&app, low, high)).abs() < 1e-9, "{cost}");
    assert_eq!(*walk(&mut app, agent, 1500).last().unwrap(), high);
}

/// A long random session: 16 walkers sent to random cells over and over while fences and
/// ledges come and go on random tiles every few frames. Every frame, no walker crosses an edge
/// barred when it moved, every new path costs what online search finds on that frame's grid,
/// and every request that fails has no way there on it.
#[test]
fn a_long_random_session_of_shifting_fences_never_lets_a_walker_through_one() {
    let (crossings, arrivals, _) = shifting_fences_session(SessionMap::Plain);
    assert!(crossings > 2000 && arrivals > 100, "{crossings} {arrivals}");
}

/// The same session on a map marked `PrecomputePaths`: a path table for open floor, a
/// first-move table with mud across the middle (no path table takes terrain). The table is
/// built again after every change, a slice a frame, and answers in between. Every path
/// handed out costs what online search finds on the grid of its frame, and every request
/// that fails has no way there on it, however the fences and ledges have shifted since the
/// table last caught up.
#[test]
fn precomputed_tables_answer_right_through_shifting_fences_and_ledges() {
    for map in [SessionMap::Precomputed, SessionMap::PrecomputedWithMud] {
        let (crossings, arrivals, table_answers) = shifting_fences_session(map);
        assert!(crossings > 2000 && arrivals > 100, "{crossings} {arrivals}");
        assert!(table_answers > 100, "the table answered {table_answers} requests");
    }
}

/// The shifting fences session's map: open floor, the same marked `PrecomputePaths`, or that
/// with mud across its middle.
#[derive(Clone, Copy, PartialEq)]
enum SessionMap {
    Plain,
    Precomputed,
    PrecomputedWithMud,
}

/// Runs the shifting fences session on `kind` of map, checking every frame that no walker
/// crossed a barred edge, that every new path costs what online search finds on that frame's
/// grid, and that every failure finds no way online either. Returns the walkers' changes of
/// cell, their arrivals, and the requests a table answered.
fn shifting_fences_session(kind: SessionMap) -> (usize, usize, u32) {
    const MUD: u32 = 2;
    let mut app = nav_app(DT, 1);
    let mut rows = [".................."; 14];
    let map = if kind == SessionMap::PrecomputedWithMud {
        rows[4..10].fill("......mmmmmmm.....");
        // The app's rules (its wall) and mud.
        let rules = app.world_mut().remove_resource::<TileRules>().unwrap();
        app.insert_resource(rules.with(MUD, Cell::Passable { cost: 4 }));
        spawn_text_tilemap(&mut app, &rows, TILE, Vec2::ZERO, |c| Some(MUD * u32::from(c == 'm')))
    } else {
        spawn_text_tilemap(&mut app, &rows, TILE, Vec2::ZERO, |_| Some(0))
    };
    if kind != SessionMap::Plain {
        app.world_mut().entity_mut(map).insert(PrecomputePaths);
        // Built a slice a frame, not on the task pool, so that the frames it serves on are the
        // same in every run.
        app.world_mut().resource_mut::<NavSettings>().precompute.builds = PrecomputeBuilds::Sliced;
    }
    app.update();
    let mut seed = 0x5EED_u64;
    let mut next = move |n: u32| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % u64::from(n)) as u32
    };
    let (w, h) = (18, 14);
    let walkers: Vec<Entity> = (0..16)
        .map(|_| {
            let (at, goal) = (GridPos::new(next(w), next(h)), GridPos::new(next(w), next(h)));
            spawn_walker(&mut app, at, goal)
        })
        .collect();
    let mut cells: Vec<GridPos> = walkers.iter().map(|&e| cell_of(&app, e)).collect();
    let mut paths: Vec<Option<NavPath>> = vec![None; walkers.len()];
    let (mut crossings, mut failures, mut arrivals, mut table_answers) = (0, 0, 0, 0);
    for frame in 0..3000 {
        if frame % 7 == 0 {
            for _ in 0..3 {
                let t = tile(&app, map, next(w), next(h));
                let (a, b, c) = (Sides(1 << next(4)), Sides(1 << next(4)), Sides(1 << next(4)));
                let edges = match next(3) {
                    0 => TileEdges { walls: a, drops: Sides::NONE },
                    1 => TileEdges { walls: Sides::NONE, drops: a },
                    _ => TileEdges { walls: a | b, drops: c },
                };
                let mut entity = app.world_mut().entity_mut(t);
                if next(2) == 0 {
                    entity.remove::<TileEdges>();
                } else {
                    entity.insert(edges);
                }
            }
        }
        app.update();
        let g = grid(&app);
        for (k, &walker) in walkers.iter().enumerate() {
            let now = cell_of(&app, walker);
            if now != cells[k] {
                assert!(g.can_step(cells[k], now), "frame {frame}: {} -> {now}", cells[k]);
                crossings += 1;
                cells[k] = now;
            }
            let path = app.world().get::<NavPath>(walker);
            if path != paths[k].as_ref() {
                if let Some(path) = path.filter(|p| p.complete) {
                    let (from, to) = (path.cells[0], *path.cells.last().unwrap());
                    let online = Pathfinder::new().find(&g, &PathQuery::new(from, to));
                    let online = online.unwrap_or_else(|e| panic!("frame {frame}: online {e}"));
                    assert!(
                        (path.cost - online.cost).abs() < 1e-9,
                        "frame {frame}: {from} -> {to} costs {}, online {}",
                        path.cost,
                        online.cost
                    );
                }
                paths[k] = path.cloned();
            }
        }
        let world = app.world();
        for failed in world.resource::<Messages<PathFailed>>().iter_current_update_messages() {
            failures += 1;
            // No way there on this frame's grid, as online search finds too.
            let NavError::Search(PathError::Unreachable { start, goal }) = failed.error else {
                panic!("frame {frame}: {:?}", failed.error);
            };
            let online = Pathfinder::new().find(&g, &PathQuery::new(start, goal));
            assert!(online.is_err(), "frame {frame}: {start} -> {goal} failed, online found a way");
        }
        arrivals += world.resource::<Messages<Arrived>>().iter_current_update_messages().count();
        table_answers += world.resource::<NavDiagnostics>().table_answers;
        for &walker in &walkers {
            let world = app.world();
            if world.get::<NavPath>(walker).is_none() && world.get::<PathRequest>(walker).is_none()
            {
                let goal = GridPos::new(next(w), next(h));
                app.world_mut().entity_mut(walker).insert(PathRequest::to(goal));
            }
        }
    }
    eprintln!(
        "{crossings} cell changes, {arrivals} arrivals, {failures} failures, {table_answers} \
         table answers"
    );
    let nav = app.world().resource::<NavMaps>().first().unwrap();
    match kind {
        SessionMap::Plain => {
            assert!(nav.path_table().is_none() && nav.first_move_table().is_none())
        }
        SessionMap::Precomputed => assert!(nav.path_table().is_some()),
        SessionMap::PrecomputedWithMud => {
            assert!(nav.path_table().is_none() && nav.first_move_table().is_some())
        }
    }
    (crossings, arrivals, table_answers)
}

/// A 20 x 12 room fenced across on the north side of row 5, the door at x = 10 the only gap.
fn fenced_hall(app: &mut App, door_open: bool) -> Entity {
    let rows = ["...................."; 12];
    let hall = spawn_text_tilemap(app, &rows, TILE, Vec2::ZERO, |_| Some(0));
    app.update();
    set_door(app, hall, door_open);
    for x in (0..20).filter(|&x| x != 10) {
        let t = tile(app, hall, x, 5);
        app.world_mut().entity_mut(t).insert(TileEdges { walls: Sides::NORTH, drops: Sides::NONE });
    }
    app.update();
    hall
}

fn set_door(app: &mut App, hall: Entity, open: bool) {
    let door = tile(app, hall, 10, 5);
    match open {
        true => app.world_mut().entity_mut(door).remove::<TileEdges>(),
        false => app
            .world_mut()
            .entity_mut(door)
            .insert(TileEdges { walls: Sides::NORTH, drops: Sides::NONE }),
    };
}

/// 100 walkers set off through a fence's one door; then it shuts and opens every `period`
/// frames for 10 s, and stays open. None crosses a barred edge; every one gets there (walkers
/// whose way the door cut wait for it: it failed them for good as unreachable), and the
/// searches while it toggles stay within what the waiting allows (one a walker per
/// `WAIT_RETRY_SECONDS`, and one for each time its way is cut).
#[test]
fn walkers_that_meet_a_shut_door_wait_for_it_and_all_get_through() {
    for period in [7, 1] {
        let mut app = nav_app(DT, 1);
        let hall = fenced_hall(&mut app, true);
        let walkers: Vec<(Entity, GridPos)> = (0..100u32)
            .map(|k| {
                let from = GridPos::new(k % 20, k / 20);
                let goal = GridPos::new(19 - k % 20, 11 - k / 20);
                let at = centre(&app, from).extend(1.0);
                let agent = (
                    Transform::from_translation(at),
                    PathFollower::new(96.0),
                    PathRequest::to(goal),
                );
                (app.world_mut().spawn(agent).id(), goal)
            })
            .collect();
        let mut cells: Vec<GridPos> = walkers.iter().map(|&(e, _)| cell_of(&app, e)).collect();
        let (mut home, mut searches, mut cuts) = (vec![false; 100], 0u32, 0u32);
        let toggling = 30..(30 + 625); // 10 s of frames of 16 ms
        let mut frames = 0;
        while frames < 4000 && !home.iter().all(|&h| h) {
            if toggling.contains(&frames) && frames % period == 0 {
                set_door(&mut app, hall, (frames / period) % 2 == 1);
            } else if frames == toggling.end {
                set_door(&mut app, hall, true);
            }
            app.update();
            frames += 1;
            let diagnostics = app.world().resource::<NavDiagnostics>();
            if toggling.contains(&frames) {
                searches += diagnostics.searches_started;
                cuts += diagnostics.replans;
            }
            let g = grid(&app);
            for (k, &(e, goal)) in walkers.iter().enumerate() {
                let now = cell_of(&app, e);
                assert!(now == cells[k] || g.can_step(cells[k], now), "{e}: {} -> {now}", cells[k]);
                cells[k] = now;
                home[k] |= now == goal && app.world().get::<NavPath>(e).is_none();
            }
            for f in crate::tilemap::messages::<PathFailed>(&app) {
                assert!(
                    matches!(f.error, NavError::Search(PathError::Unreachable { .. })),
                    "{f:?}"
                );
            }
        }
        let left = home.iter().filter(|&&h| !h).count();
        assert_eq!(left, 0, "period {period}: {left} of 100 never got through in {frames} frames");
        let retries = 100 * (10.0 / WAIT_RETRY_SECONDS).ceil() as u32;
        assert!(searches <= retries + cuts, "period {period}: {searches} searches, {cuts} cuts");
    }
}

/// A request the game makes fails when no way leads there, and stays failed (the default);
/// one that waits for a way walks when the door opens.
#[test]
fn a_request_fails_when_no_way_leads_there_unless_it_waits_for_a_way() {
    let mut app = nav_app(DT, 1);
    let hall = fenced_hall(&mut app, false);
    let goal = GridPos::new(10, 9);
    let spawn = |app: &mut App, request: PathRequest| {
        let at = centre(app, GridPos::new(10, 1)).extend(1.0);
        app.world_mut()
            .spawn((Transform::from_translation(at), PathFollower::new(96.0), request))
            .id()
    };
    let fails = spawn(&mut app, PathRequest::to(goal));
    let waits = spawn(&mut app, PathRequest::to(goal).waiting_for_a_way());
    // Sent to follow a field while it waits: it waits no more (the door opening does not send
    // it back to its old goal).
    let refield = spawn(&mut app, PathRequest::to(goal).waiting_for_a_way());
    let field = app.world_mut().spawn(NavField::new(hall, vec![GridPos::new(16, 2)])).id();
    let mut told = Vec::new();
    for frame in 0..600 {
        if frame == 60 {
            set_door(&mut app, hall, true);
        }
        if frame == 10 {
            app.world_mut().entity_mut(refield).insert(FollowField(field));
        }
        app.update();
        told.extend(crate::tilemap::messages::<PathFailed>(&app).into_iter().map(|f| f.entity));
        let sent_back = app.world().get::<NavPath>(refield).is_some_and(|p| p.goal == goal);
        assert!(frame < 10 || !sent_back, "frame {frame}: sent back to its old goal");
    }
    assert_eq!(told, vec![fails, waits, refield], "each told once");
    assert_eq!(cell_of(&app, fails), GridPos::new(10, 1));
    assert_eq!(cell_of(&app, waits), goal);
    assert_eq!(cell_of(&app, refield), GridPos::new(16, 2), "it followed the field");
    assert!(app.world().get::<PathFailed>(waits).is_none(), "its PathFailed taken off");
}
