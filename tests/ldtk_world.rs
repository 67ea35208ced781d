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
use bevy_tilemap_nav::prelude::*;

#[path = "common/editor.rs"]
mod editor;
use editor::{ASSETS, headless_app, ready, walk_across};

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
