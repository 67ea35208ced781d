//! The LDtk integration (feature `ldtk`), with the real loader: the sample world under
//! `assets/ldtk` is loaded by bevy_ecs_ldtk through the asset server (no window; Bevy's renderer
//! on whatever adapter there is, Mesa's software one in CI). Each level spawned is a navigation
//! map of its own, checked cell by cell against the level's "Walls" IntGrid read from the file
//! here; levels switched and loaded together join and leave the navigation; an agent walks
//! across a level.

#![cfg(feature = "ldtk")]

use std::collections::HashMap;
use std::time::Duration;

use bevy::prelude::*;
use bevy_ecs_ldtk::prelude::*;
use bevy_tilemap_nav::integrations::ldtk::{LdtkNavPlugin, LdtkNavRules};
use bevy_tilemap_nav::io::ldtk::read_ldtk_levels;
use bevy_tilemap_nav::plugin::NavSeam;
use bevy_tilemap_nav::prelude::*;

use crate::editor::{ASSETS, headless_app, ready, walk_across};

const WORLD: &str = "ldtk/tile-based-game.ldtk";

fn app() -> App {
    let mut app = headless_app();
    app.add_plugins(LdtkPlugin)
        .add_plugins(LdtkNavPlugin)
        .insert_resource(LdtkNavRules::default().with(1, Cell::Blocked))
        .insert_resource(LevelSelection::index(0));
    ready(app)
}

/// Each level of the file: its "Walls" IntGrid as cells (row 0 of the file is the top).
fn levels_in_file() -> HashMap<String, HashMap<GridPos, Cell>> {
    let text = std::fs::read_to_string(format!("{ASSETS}/{WORLD}")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut levels = HashMap::new();
    for level in json["levels"].as_array().unwrap() {
        let walls = level["layerInstances"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["__identifier"] == "Walls")
            .unwrap();
        let (width, height) =
            (walls["__cWid"].as_u64().unwrap(), walls["__cHei"].as_u64().unwrap());
        let mut cells = HashMap::new();
        for (i, value) in walls["intGridCsv"].as_array().unwrap().iter().enumerate() {
            let (x, row) = (i as u64 % width, i as u64 / width);
            let cell = if value.as_i64() == Some(1) { Cell::Blocked } else { Cell::GROUND };
            cells.insert(GridPos::new(x as u32, (height - 1 - row) as u32), cell);
        }
        levels.insert(level["iid"].as_str().unwrap().to_owned(), cells);
    }
    levels
}

/// Steps frames until the navigation holds exactly the levels `iids` (by their LevelIid).
fn wait_for_levels(app: &mut App, iids: &[&str]) -> Vec<Entity> {
    for _ in 0..3000 {
        app.update();
        let maps: Vec<Entity> =
            app.world().resource::<NavMaps>().iter().map(|m| m.entity).collect();
        let mut found = Vec::new();
        for &map in &maps {
            if let Some(iid) = app.world().get::<LevelIid>(map) {
                found.push((iid.as_str().to_owned(), map));
            }
        }
        if found.len() == maps.len()
            && maps.len() == iids.len()
            && iids.iter().all(|iid| found.iter().any(|(f, _)| f == iid))
        {
            return iids
                .iter()
                .map(|iid| found.iter().find(|(f, _)| f == iid).unwrap().1)
                .collect();
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let have: Vec<_> = app.world().resource::<NavMaps>().iter().map(|m| m.entity).collect();
    panic!("the navigation never held levels {iids:?} (it has maps {have:?})");
}

fn assert_level(app: &App, map: Entity, cells: &HashMap<GridPos, Cell>) {
    let nav = app.world().resource::<NavMaps>().get(map).expect("the level navigates");
    assert_eq!(nav.grid.len(), cells.len());
    for (&pos, &cell) in cells {
        assert_eq!(nav.grid.get(pos), Some(cell), "cell {pos}");
    }
}

#[test]
fn each_level_is_a_map_as_its_int_grid_says_and_levels_come_and_go() {
    let levels = levels_in_file();
    let iid = |k: usize| {
        let text = std::fs::read_to_string(format!("{ASSETS}/{WORLD}")).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        json["levels"][k]["iid"].as_str().unwrap().to_owned()
    };
    let (first, third, fourth) = (iid(0), iid(2), iid(3));
    let mut app = app();
    let handle: LdtkProjectHandle = app.world().resource::<AssetServer>().load(WORLD).into();
    app.world_mut().spawn(LdtkWorldBundle { ldtk_handle: handle, ..default() });

    let level = wait_for_levels(&mut app, &[&first])[0];
    assert_level(&app, level, &levels[&first]);
    assert!(levels[&first].values().any(|&c| c == Cell::Blocked));

    // The file read without the renderer gives every level's cells, and lays the level where
    // bevy_ecs_ldtk lays it.
    let rules = LdtkNavRules::default().with(1, Cell::Blocked);
    let read = read_ldtk_levels(format!("{ASSETS}/{WORLD}"), &rules).unwrap();
    assert_eq!(read.len(), levels.len());
    for level in &read {
        let want = &levels[&level.iid];
        assert_eq!(level.grid.len(), want.len());
        for (&pos, &cell) in want {
            assert_eq!(level.grid.get(pos), Some(cell), "{}: cell {pos}", level.identifier);
        }
    }
    let ours = read.iter().find(|l| l.iid == first).unwrap();
    let ours = app.world_mut().spawn((NavGridMap::from(ours), ours.transform)).id();
    app.update();
    let maps = app.world().resource::<NavMaps>();
    let (theirs, ours) = (maps.get(level).unwrap(), maps.get(ours).unwrap());
    for pos in [GridPos::new(0, 0), GridPos::new(3, 5), GridPos::new(ours.grid.width() - 1, 0)] {
        let (a, b) = (ours.geometry.cell_to_world(pos), theirs.geometry.cell_to_world(pos));
        assert!(a.distance(b) < 1e-3, "cell {pos}: {a} read, {b} loaded");
    }
    let ours = ours.entity;
    app.world_mut().entity_mut(ours).despawn();
    app.update();

    // An agent walks across the level, round its walls.
    let nav = app.world().resource::<NavMaps>().get(level).unwrap();
    let open: Vec<GridPos> = nav.grid.positions().filter(|&p| nav.grid.is_passable(p)).collect();
    let (from, to) = (open[0], *open.last().unwrap());
    assert!(nav.grid.connected(from, to));
    assert!(walk_across(&mut app, level, from, to, 3000), "the agent crossed the level");

    // Another level selected: the first leaves the navigation, the new one joins it.
    *app.world_mut().resource_mut::<LevelSelection>() = LevelSelection::index(2);
    let level = wait_for_levels(&mut app, &[&third])[0];
    assert_level(&app, level, &levels[&third]);

    // Two levels loaded at once (a LevelSet): two maps, each its own level.
    app.world_mut().remove_resource::<LevelSelection>();
    let world = app
        .world_mut()
        .query_filtered::<Entity, With<LdtkProjectHandle>>()
        .single(app.world())
        .unwrap();
    app.world_mut().entity_mut(world).insert(LevelSet::from_iids([first.clone(), fourth.clone()]));
    let both = wait_for_levels(&mut app, &[&first, &fourth]);
    assert_level(&app, both[0], &levels[&first]);
    assert_level(&app, both[1], &levels[&fourth]);
}

#[test]
fn ldtk_files_that_are_not_projects_or_keep_levels_apart_are_typed_errors() {
    use bevy_tilemap_nav::io::ldtk::{LdtkFileError, read_ldtk_str};
    let rules = LdtkNavRules::default();
    assert!(matches!(read_ldtk_str("not json", &rules), Err(LdtkFileError::Json(_))));
    assert!(matches!(read_ldtk_str("{}", &rules), Err(LdtkFileError::Json(_))));
    let external = r#"{"levels": [{"identifier": "Level_0", "iid": "a", "layerInstances": null}]}"#;
    assert!(
        matches!(read_ldtk_str(external, &rules), Err(LdtkFileError::ExternalLevel(l)) if l == "Level_0")
    );
    let missing = read_ldtk_levels(format!("{ASSETS}/ldtk/none.ldtk"), &rules);
    assert!(matches!(missing, Err(LdtkFileError::Io(_))));
}

/// Levels laid side by side by the world layout (`worldLayout: Free`, spawned with their world
/// translation) join at their touching edges: seam links between them, and an agent on one
/// walks through the passage into the other, its path crossing the seam.
#[test]
fn levels_side_by_side_join_at_their_edges() {
    const SIDE_BY_SIDE: &str = "ldtk/side-by-side.ldtk";
    let text = std::fs::read_to_string(format!("{ASSETS}/{SIDE_BY_SIDE}")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let iid = |k: usize| json["levels"][k]["iid"].as_str().unwrap().to_owned();
    let (left, right, apart) = (iid(0), iid(1), iid(2));
    let mut app = headless_app();
    app.add_plugins(LdtkPlugin)
        .add_plugins(LdtkNavPlugin)
        .insert_resource(LdtkNavRules::default().with(1, Cell::Blocked))
        .insert_resource(LdtkSettings {
            level_spawn_behavior: LevelSpawnBehavior::UseWorldTranslation {
                load_level_neighbors: false,
            },
            ..default()
        });
    let mut app = ready(app);
    let handle: LdtkProjectHandle = app.world().resource::<AssetServer>().load(SIDE_BY_SIDE).into();
    let levels = LevelSet::from_iids([left.clone(), right.clone(), apart.clone()]);
    app.world_mut().spawn(LdtkWorldBundle { ldtk_handle: handle, level_set: levels, ..default() });
    let maps = wait_for_levels(&mut app, &[&left, &right, &apart]);
    for _ in 0..3 {
        app.update();
    }
    // Seams join the two that touch, and only them.
    let mut seams = app.world_mut().query_filtered::<&NavLink, With<NavSeam>>();
    let pairs: Vec<(Entity, Entity)> =
        seams.iter(app.world()).map(|l| (l.from.map, l.to.map)).collect();
    assert!(pairs.contains(&(maps[0], maps[1])) && pairs.contains(&(maps[1], maps[0])));
    assert!(pairs.iter().all(|&(a, b)| [a, b].iter().all(|m| *m != maps[2])), "{pairs:?}");

    // From the middle of the left level into the right one's bottom-left corner.
    let nav = app.world().resource::<NavMaps>();
    let (from_level, to_level) = (nav.get(maps[0]).unwrap(), nav.get(maps[1]).unwrap());
    let start = from_level.geometry.cell_to_world(GridPos::new(5, 5));
    let goal_cell = GridPos::new(0, 0);
    let goal = to_level.geometry.cell_to_world(goal_cell);
    assert!(from_level.grid.is_passable(GridPos::new(5, 5)));
    assert!(to_level.grid.is_passable(goal_cell));
    let agent = app
        .world_mut()
        .spawn((
            Transform::from_translation(start.extend(5.0)),
            PathFollower::new(200.0),
            PathRequest::to(PathGoal::OnMap { map: maps[1], cell: goal_cell }),
        ))
        .id();
    let mut crossed = false;
    for _ in 0..3000 {
        app.update();
        if let Some(path) = app.world().get::<NavPath>(agent) {
            crossed |= path
                .legs
                .iter()
                .any(|leg| app.world().get::<NavSeam>(leg.link).is_some() && leg.map == maps[1]);
        }
        let at = app.world().get::<Transform>(agent).unwrap().translation.truncate();
        assert!(app.world().get::<PathFailed>(agent).is_none());
        if at.distance(goal) < 1e-3 {
            break;
        }
    }
    let at = app.world().get::<Transform>(agent).unwrap().translation.truncate();
    assert!(at.distance(goal) < 1e-3, "stopped at {at}, the goal is at {goal}");
    assert!(crossed, "its path never crossed the seam");
}
