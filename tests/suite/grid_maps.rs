//! Maps with no tilemap (`NavGridMap`): a server's or a tool's `NavGrid` served as a tilemap's
//! map is, with the same geometry, and followed through changes made to the grid.

use std::time::Duration;

use bevy::prelude::*;
use bevy_tilemap_nav::plugin::{
    FollowField, NavDiagnostics, NavField, NavGridChanged, TilemapNavError, TilemapNavWarning,
};
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::{AgentGrid, GridWarmup, PathError};

#[allow(dead_code)] // its typed tilemaps are not used here
use crate::tilemap::{nav_app, position, read_new, spawn_text_tilemap};
use bevy_tilemap_nav::plugin::WorkBudget;

const WALL: u32 = 1;
const TILE: f32 = 16.0;

/// A `width` x `height` grid, open but for a wall down column `wall_x` with a gap at `gap_y`.
fn walled(width: u32, height: u32, wall_x: u32, gap_y: u32) -> NavGrid {
    let mut grid = NavGrid::new(width, height).unwrap();
    for y in (0..height).filter(|&y| y != gap_y) {
        grid.set(GridPos::new(wall_x, y), Cell::Blocked).unwrap();
    }
    grid
}

#[test]
fn a_grid_with_no_tilemap_is_served_as_a_tilemaps_map_and_followed_through_its_changes() {
    let mut app = nav_app(Duration::from_millis(16), WALL);
    let at = Vec3::new(100.0, 50.0, 0.0);
    let map = app
        .world_mut()
        .spawn((
            NavGridMap::square(walled(30, 10, 15, 8), Vec2::splat(TILE)),
            Transform::from_translation(at),
        ))
        .id();
    // The same level as a tilemap, placed the same way, for its geometry.
    let rows: Vec<String> = (0..10)
        .map(|row| (0..30).map(|x| if x == 15 && 9 - row != 8 { '#' } else { '.' }).collect())
        .collect();
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let texture = |c: char| Some(u32::from(c == '#'));
    let tilemap = spawn_text_tilemap(&mut app, &rows, TILE, at.truncate(), texture);
    app.update();
    let maps = app.world().resource::<NavMaps>();
    let (ours, theirs) = (maps.get(map).expect("served"), maps.of_tilemap(tilemap).unwrap());
    for pos in [GridPos::new(0, 0), GridPos::new(29, 9), GridPos::new(15, 8)] {
        assert_eq!(ours.geometry.cell_to_world(pos), theirs.geometry.cell_to_world(pos));
        assert_eq!(ours.grid.get(pos), theirs.grid.get(pos));
    }
    assert_eq!(ours.grid.neighborhood(), theirs.grid.neighborhood());
    let geometry = ours.geometry;
    app.world_mut().entity_mut(tilemap).despawn();
    app.update();

    // An agent walks across, through the gap.
    let agent = app
        .world_mut()
        .spawn((
            Transform::from_translation(geometry.cell_to_world(GridPos::new(2, 2)).extend(1.0)),
            PathFollower::new(80.0),
            PathRequest::to(GridPos::new(28, 2)),
        ))
        .id();
    app.update();
    let path = app.world().get::<NavPath>(agent).expect("answered").clone();
    assert!(path.cells.contains(&GridPos::new(15, 8)));

    // The game moves the gap while it walks: only the changed cells are reported, and the
    // agent walks round through the new gap.
    let mut changed = app.world().resource::<Messages<NavGridChanged>>().get_cursor();
    {
        let mut source = app.world_mut().get_mut::<NavGridMap>(map).unwrap();
        source.grid.set(GridPos::new(15, 8), Cell::Blocked).unwrap();
        source.grid.set(GridPos::new(15, 1), Cell::GROUND).unwrap();
        source.grid.set_terrain(GridPos::new(3, 3), Terrain(2)).unwrap();
    }
    app.update();
    let reported = read_new(&app, &mut changed);
    assert_eq!(reported.len(), 1);
    let mut cells = reported[0].cells.clone();
    cells.sort_unstable();
    assert_eq!(cells, vec![GridPos::new(3, 3), GridPos::new(15, 1), GridPos::new(15, 8)]);
    let nav = app.world().resource::<NavMaps>().get(map).unwrap();
    assert_eq!(nav.grid.terrain(GridPos::new(3, 3)), Some(Terrain(2)));
    let mut arrived = app.world().resource::<Messages<Arrived>>().get_cursor();
    let mut through_new_gap = false;
    for frame in 0..2000 {
        app.update();
        let nav = app.world().resource::<NavMaps>().get(map).unwrap();
        let cell = nav.geometry.world_to_cell(position(&app, agent)).unwrap();
        assert!(nav.grid.is_passable(cell), "frame {frame}: in the wall at {cell}");
        through_new_gap |= cell == GridPos::new(15, 1);
        if read_new(&app, &mut arrived).iter().any(|a| a.entity == agent && a.reached_goal) {
            break;
        }
        assert!(frame < 1999, "never arrived");
    }
    assert!(through_new_gap);

    // A grid replaced whole (another level) is taken whole.
    app.world_mut().get_mut::<NavGridMap>(map).unwrap().grid = walled(30, 10, 5, 0);
    app.update();
    let nav = app.world().resource::<NavMaps>().get(map).unwrap();
    assert_eq!(nav.grid.get(GridPos::new(5, 3)), Some(Cell::Blocked));
    assert_eq!(nav.grid.get(GridPos::new(15, 3)), Some(Cell::GROUND));
    let reported = read_new(&app, &mut changed);
    assert_eq!(reported.last().map(|c| c.cells.len()), Some(300));

    // Taken away: the map goes.
    app.world_mut().entity_mut(map).remove::<NavGridMap>();
    app.update();
    assert!(app.world().resource::<NavMaps>().get(map).is_none());
}

#[test]
fn grid_maps_join_by_links_and_get_precomputed_paths() {
    let mut app = nav_app(Duration::from_millis(16), WALL);
    let a = app.world_mut().spawn(NavGridMap::square(walled(20, 8, 10, 3), Vec2::splat(TILE))).id();
    let b = app
        .world_mut()
        .spawn((
            NavGridMap::square(NavGrid::new(12, 12).unwrap(), Vec2::splat(TILE)),
            Transform::from_xyz(1000.0, 0.0, 0.0),
            PrecomputePaths,
        ))
        .id();
    let door = NavLink::two_way(
        LinkEnd::new(a, GridPos::new(19, 0)),
        LinkEnd::new(b, GridPos::new(0, 0)),
        1.0,
    );
    let door = app.world_mut().spawn(door).id();
    app.update();
    let start = app
        .world()
        .resource::<NavMaps>()
        .get(a)
        .unwrap()
        .geometry
        .cell_to_world(GridPos::new(0, 7));
    let agent = app
        .world_mut()
        .spawn((
            Transform::from_translation(start.extend(1.0)),
            PathFollower::new(120.0),
            PathRequest::to(PathGoal::OnMap { map: b, cell: GridPos::new(11, 11) }),
        ))
        .id();
    let mut crossed = app.world().resource::<Messages<LinkCrossed>>().get_cursor();
    let mut arrived = app.world().resource::<Messages<Arrived>>().get_cursor();
    let (mut crossings, mut done) = (0, false);
    for _ in 0..3000 {
        app.update();
        crossings += read_new(&app, &mut crossed).iter().filter(|c| c.entity == agent).count();
        if read_new(&app, &mut arrived).iter().any(|a| a.entity == agent && a.reached_goal) {
            done = true;
            break;
        }
    }
    assert!(done && crossings == 1, "arrived {done}, crossings {crossings}");

    // The second map's table is built as for a tilemap's map, and answers (with no link about:
    // a table does not know of links).
    app.world_mut().entity_mut(door).despawn();
    for _ in 0..60_000 {
        let nav = app.world().resource::<NavMaps>().get(b).unwrap();
        if nav.path_table().is_some_and(|t| t.is_current(&nav.grid)) {
            break;
        }
        app.update();
        std::thread::sleep(Duration::from_millis(1));
    }
    let nav = app.world().resource::<NavMaps>().get(b).unwrap();
    assert!(nav.path_table().is_some_and(|t| t.is_current(&nav.grid)), "no table");
    app.world_mut().entity_mut(agent).insert(PathRequest::to(GridPos::new(0, 11)));
    app.update();
    assert_eq!(app.world().resource::<NavDiagnostics>().table_answers, 1);
    assert!(app.world().get::<NavPath>(agent).is_some_and(|p| p.map == b));
}

#[test]
fn on_a_grid_map_crowds_steer_round_each_other_and_larger_agents_keep_their_room() {
    let mut app = nav_app(Duration::from_millis(16), WALL);
    // A wall down column 12 with a one-tile gap at row 6 and two open rows above it.
    let mut grid = walled(24, 12, 12, 6);
    grid.set_all([(GridPos::new(12, 10), Cell::GROUND), (GridPos::new(12, 11), Cell::GROUND)])
        .unwrap();
    let map = app.world_mut().spawn(NavGridMap::square(grid, Vec2::splat(TILE))).id();
    app.update();
    let geometry = app.world().resource::<NavMaps>().get(map).unwrap().geometry;
    // Six agents in two files walking through each other's way, and one two tiles wide.
    let mut agents = Vec::new();
    for k in 0..6u32 {
        let (from, to) = if k % 2 == 0 { (1, 22) } else { (22, 1) };
        let from = GridPos::new(from, 4 + k);
        let agent = app.world_mut().spawn((
            Transform::from_translation(geometry.cell_to_world(from).extend(1.0)),
            PathFollower::new(60.0),
            Avoidance::new(5.0),
            PathRequest::to(GridPos::new(to, 9 - k)),
        ));
        agents.push(agent.id());
    }
    let wide = app
        .world_mut()
        .spawn((
            Transform::from_translation(geometry.cell_to_world(GridPos::new(2, 1)).extend(1.0)),
            PathFollower::new(60.0),
            AgentKind::sized(2),
            PathRequest::to(GridPos::new(20, 1)),
        ))
        .id();
    agents.push(wide);
    let mut arrived = app.world().resource::<Messages<Arrived>>().get_cursor();
    let (mut done, mut wide_cells) = (Vec::new(), Vec::new());
    for frame in 0..3000 {
        app.update();
        let nav = app.world().resource::<NavMaps>().get(map).unwrap();
        wide_cells.push(nav.geometry.world_to_cell(position(&app, wide)).unwrap());
        for &agent in &agents {
            let cell = nav.geometry.world_to_cell(position(&app, agent)).unwrap();
            assert!(nav.grid.is_passable(cell), "frame {frame}: {agent} in the wall at {cell}");
        }
        done.extend(
            read_new(&app, &mut arrived).iter().filter(|a| a.reached_goal).map(|a| a.entity),
        );
        if agents.iter().all(|a| done.contains(a)) {
            break;
        }
    }
    assert!(agents.iter().all(|a| done.contains(a)), "{} of {} arrived", done.len(), agents.len());
    // The wide agent does not fit the one-tile gap: it went round through the two open rows
    // (its centre, a corner of its cells, over the wall's column only up there).
    assert!(wide_cells.iter().all(|c| c.x != 12 || c.y >= 10), "{wide_cells:?}");
    assert!(wide_cells.iter().any(|c| c.y >= 10));
}

#[test]
fn a_grid_map_with_sizes_no_geometry_can_take_is_left_out_with_a_warning_until_fixed() {
    let mut app = nav_app(Duration::from_millis(16), WALL);
    let mut warned = app.world().resource::<Messages<TilemapNavWarning>>().get_cursor();
    let bad = NavGridMap::square(NavGrid::new(8, 8).unwrap(), Vec2::new(f32::NAN, 16.0));
    let map = app.world_mut().spawn(bad).id();
    app.update();
    assert!(app.world().resource::<NavMaps>().get(map).is_none());
    let warnings = read_new(&app, &mut warned);
    assert!(
        warnings.iter().any(|w| w.error == TilemapNavError::BadGeometry { tilemap: map }),
        "{warnings:?}"
    );
    app.world_mut().get_mut::<NavGridMap>(map).unwrap().tile_size = Vec2::splat(16.0);
    app.update();
    assert!(app.world().resource::<NavMaps>().get(map).is_some());
}

#[test]
fn parts_of_the_plugin_can_be_left_out_and_say_so() {
    use bevy::time::TimeUpdateStrategy;
    use bevy_tilemap_nav::plugin::{NavAgentGridsPlugin, NavDebugPlugin, NavPrecomputePlugin};

    // The whole group, then the core alone: the same plain request is served by both; a sized
    // agent's and a precomputed table only by the whole group.
    for whole in [true, false] {
        let mut app = App::new();
        let work = WorkBudget { time: None, ..default() };
        let settings = NavSettings { work, ..NavSettings::default() };
        let group = TilemapNavPlugin::with_settings(settings);
        let group = if whole {
            group.build()
        } else {
            let build = group.build().disable::<NavAgentGridsPlugin>();
            build.disable::<NavPrecomputePlugin>().disable::<NavDebugPlugin>()
        };
        app.add_plugins((MinimalPlugins, group))
            .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(16)));
        let map = (NavGridMap::square(walled(20, 10, 10, 5), Vec2::splat(TILE)), PrecomputePaths);
        let map = app.world_mut().spawn(map).id();
        app.update();
        let start = app
            .world()
            .resource::<NavMaps>()
            .get(map)
            .unwrap()
            .geometry
            .cell_to_world(GridPos::new(1, 1));
        let at = Transform::from_translation(start.extend(1.0));
        let plain = app.world_mut().spawn((at, PathRequest::to(GridPos::new(18, 1)))).id();
        let sized = app
            .world_mut()
            .spawn((at, AgentKind::sized(2), PathRequest::to(GridPos::new(7, 7))))
            .id();
        let mut failed = app.world().resource::<Messages<PathFailed>>().get_cursor();
        let mut failures = Vec::new();
        // 200 frames, and then (the table and the sized agent's grid are built on background
        // threads, which a busy machine can hold up) up to a minute more while the table is not
        // there: not a speed check.
        for frame in 0..60_000 {
            app.update();
            failures.extend(read_new(&app, &mut failed));
            let nav = app.world().resource::<NavMaps>().get(map).unwrap();
            let table = nav.path_table().is_some_and(|t| t.is_current(&nav.grid));
            let sized_answered = app.world().get::<NavPath>(sized).is_some()
                || failures.iter().any(|f| f.entity == sized);
            if frame >= 200 {
                if !whole || (table && sized_answered) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        assert!(
            app.world().get::<NavPath>(plain).is_some(),
            "whole {whole}: the plain agent's path"
        );
        let nav = app.world().resource::<NavMaps>().get(map).unwrap();
        let table = nav.path_table().is_some_and(|t| t.is_current(&nav.grid));
        if whole {
            assert!(app.world().get::<NavPath>(sized).is_some(), "the sized agent's path");
            assert!(failures.is_empty(), "{failures:?}");
            assert!(table, "a table for the marked map");
        } else {
            assert!(app.world().get::<NavPath>(sized).is_none());
            let why: Vec<_> = failures.iter().filter(|f| f.entity == sized).collect();
            assert!(
                matches!(why.as_slice(), [f] if f.error == NavError::NoAgentGrid { agent: AgentKind::sized(2) }),
                "{failures:?}"
            );
            assert!(!table, "no table without the precompute part");
        }
    }
}

/// A map whose geometry changes while agents walk (tile size 16 -> 32, then moved and
/// re-anchored): every walk is read again from its cells, and each agent arrives on its goal
/// cell's centre as the map is now, with an `Arrived` naming the cell it stands on.
#[test]
fn a_map_rescaled_or_moved_while_agents_walk_takes_them_to_their_cells_as_they_are_now() {
    let mut app = nav_app(Duration::from_millis(20), 1);
    let grid = walled(30, 30, 12, 20);
    let map = app.world_mut().spawn(NavGridMap::square(grid, Vec2::splat(16.0))).id();
    app.update();
    let goal = GridPos::new(20, 20);
    let centre = |app: &App, cell| {
        app.world().resource::<NavMaps>().get(map).unwrap().geometry.cell_to_world(cell)
    };
    let start = centre(&app, GridPos::new(2, 2));
    let mut walkers: Vec<Entity> = [PathFollower::new(100.0), PathFollower::smoothed(100.0)]
        .into_iter()
        .map(|follower| {
            let at = Transform::from_translation(start.extend(1.0));
            app.world_mut().spawn((at, follower, PathRequest::to(goal))).id()
        })
        .collect();
    // And followers of a field to the same goal: one walking straight off it, one steering.
    let field = app.world_mut().spawn(NavField::new(map, vec![goal])).id();
    for steer in [false, true] {
        let at = Transform::from_translation(start.extend(1.0));
        let mut agent = app.world_mut().spawn((at, PathFollower::new(100.0), FollowField(field)));
        if steer {
            agent.insert(Avoidance::new(4.0));
        }
        walkers.push(agent.id());
    }
    let mut arrivals = app.world().resource::<Messages<Arrived>>().get_cursor();
    let mut arrived = Vec::new();
    for frame in 0..1500 {
        match frame {
            20 => app.world_mut().get_mut::<NavGridMap>(map).unwrap().tile_size = Vec2::splat(32.0),
            200 => {
                let mut nav = app.world_mut().get_mut::<NavGridMap>(map).unwrap();
                nav.anchor = bevy_ecs_tilemap::prelude::TilemapAnchor::Center;
                app.world_mut().entity_mut(map).insert(Transform::from_xyz(-100.0, 50.0, 0.0));
            }
            _ => {}
        }
        app.update();
        arrived.extend(
            read_new(&app, &mut arrivals).into_iter().filter(|a| walkers.contains(&a.entity)),
        );
        if arrived.len() == walkers.len() {
            break;
        }
    }
    assert_eq!(arrived.len(), walkers.len(), "not all arrived: {arrived:?}");
    let nav = app.world().resource::<NavMaps>().get(map).unwrap();
    for a in &arrived {
        assert_eq!(a.cell, goal, "{a:?}");
        let at = position(&app, a.entity);
        assert_eq!(nav.geometry.world_to_cell(at), Ok(goal), "{a:?} stands at {at}");
        assert!(at.distance(nav.geometry.cell_to_world(goal)) < 1e-3, "{a:?} stands at {at}");
    }
}

/// Issue 52, point 10: a large map's first requests cost no long frame. What its searches derive
/// from its cells (component labels, jump point bits) is built a slice a frame
/// (`WorkShares::warm_up`), never by a search, and requests are answered meanwhile with
/// the costs a warm map gives: a path across, and an enclosed goal told unreachable.
#[test]
fn a_large_maps_first_requests_are_answered_while_it_warms_a_slice_a_frame() {
    let mut app = nav_app(Duration::from_millis(16), WALL);
    let n = 1200;
    let mut grid = NavGrid::new(n, n).unwrap();
    for y in (10..n - 10).step_by(40) {
        let wall = (0..n).filter(|x| x % 97 != 13).map(|x| (GridPos::new(x, y), Cell::Blocked));
        grid.set_all(wall).unwrap();
    }
    let pocket = GridPos::new(600, 605);
    for (x, y) in [(599, 605), (601, 605), (600, 604), (600, 606)] {
        grid.set(GridPos::new(x, y), Cell::Blocked).unwrap();
    }
    let (from, to) = (GridPos::new(3, 2), GridPos::new(1190, 1195));
    let mut finder = Pathfinder::new();
    // On a copy: the grid served keeps nothing a search built.
    let want = finder.find(&grid.clone(), &PathQuery::new(from, to)).expect("a path").cost;
    let map = app.world_mut().spawn(NavGridMap::square(grid, Vec2::splat(TILE))).id();
    app.update();
    let at = |app: &App, cell| {
        let maps = app.world().resource::<NavMaps>();
        maps.get(map).unwrap().geometry.cell_to_world(cell).extend(1.0)
    };
    let ask = |app: &mut App, goal| {
        let start = Transform::from_translation(at(app, from));
        app.world_mut().spawn((start, PathRequest::to(goal))).id()
    };
    let (across, enclosed) = (ask(&mut app, to), ask(&mut app, pocket));
    let warm =
        |app: &App| GridWarmup::is_warm(&app.world().resource::<NavMaps>().get(map).unwrap().grid);
    let slice = app.world().resource::<NavSettings>().work.shares.warm_up;
    let (mut frames, mut answered) = (1u64, 0);
    while !warm(&app) {
        app.update();
        frames += 1;
        let world = app.world();
        if let Some(path) = world.get::<NavPath>(across).filter(|_| answered & 1 == 0) {
            assert!(!warm(&app), "answered only once warm (frame {frames})");
            assert!((path.cost - want).abs() < 1e-6, "{} against {want}", path.cost);
            answered |= 1;
        }
        if let Some(failed) = world.get::<PathFailed>(enclosed).filter(|_| answered & 2 == 0) {
            let error = NavError::Search(PathError::Unreachable { start: from, goal: pocket });
            assert_eq!(failed.error, error);
            answered |= 2;
        }
        assert!(frames < 2000, "still cold after {frames} frames");
    }
    assert_eq!(answered, 3, "both requests answered while the map warmed");
    // Ten units a cell, at most a slice a frame: spread over as many frames.
    let cells = u64::from((n + 2) * (n + 2));
    assert!(frames >= 10 * cells / slice, "warm in {frames} frames");
    // Warm: an enclosed goal is told unreachable at once (no search of the start's million
    // cells; the diagnostics count the start).
    let again = ask(&mut app, pocket);
    app.update();
    assert!(app.world().get::<PathFailed>(again).is_some());
    assert!(app.world().resource::<NavDiagnostics>().expansions <= 1);
}

/// Issue 52, point 10, for kinds of agents: a large map's first request by a 2 x 2 agent costs
/// no long frame either. Its kind's grid is built a slice a frame while the request waits (no
/// `PathFailed`), walls set on the map meanwhile are in it, and the request is then answered at
/// the cost the grid built whole gives.
#[test]
fn a_large_maps_first_request_by_a_big_agent_waits_while_its_grid_is_built_in_slices() {
    let mut app = nav_app(Duration::from_millis(16), WALL);
    let n = 1000;
    let mut grid = NavGrid::new(n, n).unwrap();
    for y in (10..n - 10).step_by(40) {
        // Doors of 1, 2 and 3 tiles: the big agent takes the wider ones.
        let door = |x: u32| matches!(x % 97, 13 | 50 | 51 | 80..=82);
        let wall = (0..n).filter(|&x| !door(x)).map(|x| (GridPos::new(x, y), Cell::Blocked));
        grid.set_all(wall).unwrap();
    }
    let (from, to) = (GridPos::new(3, 2), GridPos::new(990, 995));
    let map = app.world_mut().spawn(NavGridMap::square(grid, Vec2::splat(TILE))).id();
    app.update();
    let big = AgentKind::sized(2);
    let start = {
        let maps = app.world().resource::<NavMaps>();
        let geometry = maps.get(map).unwrap().geometry;
        geometry.cell_to_world(from) + geometry.body_offset(2)
    };
    let agent = app
        .world_mut()
        .spawn((Transform::from_translation(start.extend(1.0)), big, PathRequest::to(to)))
        .id();
    let built =
        |app: &App| app.world().resource::<NavMaps>().get(map).unwrap().agent_grid(big).is_some();
    let mut frames = 0u64;
    while !built(&app) {
        app.update();
        frames += 1;
        assert!(app.world().get::<PathFailed>(agent).is_none(), "frame {frames}: failed");
        assert!(app.world().get::<NavPath>(agent).is_none(), "frame {frames}: answered unbuilt");
        if frames == 5 {
            // The 2-tile doors of the first wall shut while the grid is built.
            let mut source = app.world_mut().get_mut::<NavGridMap>(map).unwrap();
            for x in (0..n).filter(|x| matches!(x % 97, 50 | 51)) {
                source.grid.set(GridPos::new(x, 10), Cell::Blocked).unwrap();
            }
        }
        assert!(frames < 2000, "no grid after {frames} frames");
    }
    // A clearance and a derived cell a unit each at least, at most a slice a frame.
    let slice = app.world().resource::<NavSettings>().work.shares.warm_up;
    let cells = u64::from((n + 2) * (n + 2));
    assert!(frames >= 2 * cells / slice, "built in {frames} frames");
    let maps = app.world().resource::<NavMaps>();
    let nav = maps.get(map).unwrap();
    let whole = AgentGrid::new(&nav.grid, NavProfile::default(), 2).unwrap();
    let got = nav.agent_grid(big).unwrap();
    for y in [8, 9, 10, 11, 50, 500] {
        for x in 0..n {
            let pos = GridPos::new(x, y);
            assert_eq!(got.grid().get(pos), whole.grid().get(pos), "{pos}");
            assert_eq!(got.clearance(pos), whole.clearance(pos), "{pos}");
        }
    }
    let want = Pathfinder::new().find(&whole.grid().clone(), &PathQuery::new(from, to)).unwrap();
    for _ in 0..600 {
        app.update();
        if app.world().get::<NavPath>(agent).is_some() {
            break;
        }
    }
    let path = app.world().get::<NavPath>(agent).expect("answered once its grid is built");
    assert!((path.cost - want.cost).abs() < 1e-6, "{} against {}", path.cost, want.cost);
}

/// A map's topology is its own (`NavTopology` on its entity), the settings' the default: a
/// 4-way `NavGridMap` and a 4-way tilemap beside 8-way maps, each grid and path as its map says;
/// a topology changed at run time (back to the settings', then a corner rule of its own)
/// changes that map's grid the next frame and no other's.
#[test]
fn each_map_may_have_its_own_moves_and_corner_rule() {
    use bevy_tilemap_nav::grid::{CornerRule, Neighborhood};
    use bevy_tilemap_nav::plugin::NavTopology;
    let mut app = nav_app(Duration::from_millis(16), WALL);
    let four = NavTopology { neighborhood: Some(Neighborhood::Four), corner_rule: None };
    let open = || NavGrid::new(10, 10).unwrap();
    let at = |x: f32| Transform::from_xyz(x, 0.0, 0.0);
    let plain =
        app.world_mut().spawn((NavGridMap::square(open(), Vec2::splat(TILE)), at(0.0))).id();
    let grid_four = app
        .world_mut()
        .spawn((NavGridMap::square(open(), Vec2::splat(TILE)), at(400.0), four))
        .id();
    let rows = [".........."; 10];
    let tilemap = spawn_text_tilemap(&mut app, &rows, TILE, Vec2::new(0.0, 400.0), |_| Some(0));
    app.world_mut().entity_mut(tilemap).insert(four);
    app.update();
    let topology = |app: &App, map| {
        let grid = &app.world().resource::<NavMaps>().get(map).unwrap().grid;
        (grid.neighborhood(), grid.corner_rule())
    };
    let eight = NavSettings::default().neighborhood;
    let rule = NavSettings::default().corner_rule;
    assert_eq!(eight, Neighborhood::Eight);
    assert_eq!(topology(&app, plain), (Neighborhood::Eight, rule));
    assert_eq!(topology(&app, grid_four), (Neighborhood::Four, rule));
    assert_eq!(topology(&app, tilemap), (Neighborhood::Four, rule));
    // Corner to corner: 9 straight and 9 across on the 4-way maps, 9 diagonal on the other.
    let walk = |app: &mut App, map| {
        let geometry = app.world().resource::<NavMaps>().get(map).unwrap().geometry;
        let start = geometry.cell_to_world(GridPos::new(0, 0)).extend(1.0);
        let agent = app
            .world_mut()
            .spawn((Transform::from_translation(start), PathRequest::to(GridPos::new(9, 9))))
            .id();
        app.update();
        app.world().get::<NavPath>(agent).expect("a path").cells.len()
    };
    assert_eq!(walk(&mut app, plain), 10);
    assert_eq!(walk(&mut app, grid_four), 19);
    assert_eq!(walk(&mut app, tilemap), 19);
    // Changed at run time: the tilemap back to the settings' moves; the grid map cuts corners.
    app.world_mut().entity_mut(tilemap).remove::<NavTopology>();
    let cutting = NavTopology { neighborhood: None, corner_rule: Some(CornerRule::CutCorners) };
    app.world_mut().entity_mut(grid_four).insert(cutting);
    app.update();
    assert_eq!(topology(&app, tilemap), (Neighborhood::Eight, rule));
    assert_eq!(topology(&app, grid_four), (Neighborhood::Eight, CornerRule::CutCorners));
    assert_eq!(topology(&app, plain), (Neighborhood::Eight, rule));
    assert_eq!(walk(&mut app, tilemap), 10);
}
