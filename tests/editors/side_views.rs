//! Side-view levels from the editors: a Tiled map with `nav_side_view` set, and an LDtk world
//! read with `LdtkNavRules::as_side_view`, each read from its file without a renderer and
//! loaded through its loader, checked tile by tile against what the file says; a character
//! climbs the Tiled level.

use std::time::Duration;

use bevy::prelude::*;
use bevy_tilemap_nav::grid::GridPos;
use bevy_tilemap_nav::plugin::{Arrived, PathRequest, SideViewAgent, SideViewLevel};
use bevy_tilemap_nav::side_view::{JumpProfile, SideTile, SideViewMap};

use crate::editor::{ASSETS, headless_app, ready};

/// Steps frames until `entity` has a side-view level.
fn wait_for_level(app: &mut App, entity: Entity) {
    for _ in 0..3000 {
        app.update();
        if app.world().get::<SideViewLevel>(entity).is_some() {
            return;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    panic!("{entity} never became a side-view level");
}

#[cfg(feature = "tiled")]
mod tiled {
    use bevy_ecs_tiled::prelude::{TiledMap, TiledPlugin, TiledPluginConfig};
    use bevy_ecs_tilemap::anchor::TilemapAnchor;
    use bevy_ecs_tilemap::prelude::*;
    use bevy_tilemap_nav::integrations::tiled::{TiledNavPlugin, TiledNavRules};
    use bevy_tilemap_nav::io::tiled::{TiledFileError, read_tiled_side_view};
    use bevy_tilemap_nav::prelude::NavMaps;

    use super::*;

    const MAP: &str = "tiled/maps/orthogonal/side_view.tmx";

    /// What `side_view.tmx` says, drawn by hand from its layers: `Ground` (solid `nav_side`
    /// tiles, a one-way platform, a ladder of two `nav_side` ladder tiles round one of class
    /// `Ladder`, a tile solid by its collision shape), `Decor` in a group (tiles with nothing
    /// to say, and a ladder tile over the ground, which stays solid), and a `Colliders`
    /// rectangle over the gap's left two tiles.
    fn expected() -> SideViewMap {
        SideViewMap::from_rows(&[
            "............",
            "............",
            "....---.....",
            "..........H.",
            "..........H.",
            "..........H.",
            "####...#####",
            "############",
        ])
        .unwrap()
    }

    #[test]
    fn a_tiled_side_view_map_is_a_level_as_its_tiles_say_and_is_climbed() {
        // Read from the file alone.
        let rules = TiledNavRules::default();
        let read = read_tiled_side_view(format!("{ASSETS}/{MAP}"), &rules).unwrap();
        assert_eq!(read.map, expected());
        assert_eq!(read.tile_size, Vec2::splat(32.0));
        // No side-view reading of an isometric map.
        let iso = format!("{ASSETS}/tiled/maps/isometric/finite_diamond.tmx");
        assert!(matches!(read_tiled_side_view(iso, &rules), Err(TiledFileError::Unsupported(_))));

        // Loaded by bevy_ecs_tiled: a side-view level on the map's entity, not a top-down map.
        let mut app = headless_app();
        app.add_plugins(TiledPlugin(TiledPluginConfig {
            tiled_types_export_file: None,
            ..default()
        }))
        .add_plugins(TiledNavPlugin);
        let mut app = ready(app);
        let handle = app.world().resource::<AssetServer>().load(MAP);
        let map = app.world_mut().spawn(TiledMap(handle)).id();
        wait_for_level(&mut app, map);
        for _ in 0..5 {
            app.update();
        }
        assert_eq!(app.world().get::<SideViewLevel>(map).unwrap().map(), &expected());
        assert!(app.world().resource::<NavMaps>().get(map).is_none());
        // Tile (0, 0) where bevy_ecs_tiled draws it.
        let mut tilemaps = app.world_mut().query::<(
            &GlobalTransform,
            &TilemapSize,
            &TilemapGridSize,
            &TilemapTileSize,
            &TilemapType,
            &TilemapAnchor,
        )>();
        let drawn = tilemaps
            .iter(app.world())
            .map(|(at, size, grid, tile, kind, anchor)| {
                at.translation().truncate()
                    + TilePos { x: 0, y: 0 }.center_in_world(size, grid, tile, kind, anchor)
            })
            .next()
            .unwrap();
        let level = app.world().get::<SideViewLevel>(map).unwrap();
        let map_at = app.world().get::<Transform>(map).unwrap().translation.truncate();
        let ours = level.corner_to_world(map_at, [0.0, 0.0], UVec2::ONE);
        assert!(ours.distance(drawn) < 0.01, "tile (0, 0) at {ours}, drawn at {drawn}");
        // A character runs along the ground, over the pit, and up the ladder.
        let profile = JumpProfile::new(6.0, 2.0, 40.0);
        let start = level.corner_to_world(map_at, [0.0, 2.0], UVec2::ONE);
        let hero = app
            .world_mut()
            .spawn((
                SideViewAgent { profile, level: Some(map) },
                Transform::from_translation(start.extend(5.0)),
                PathRequest::to(GridPos::new(10, 5)),
            ))
            .id();
        let arrived = (0..1500).any(|_| {
            app.update();
            let told = app.world().resource::<Messages<Arrived>>();
            told.iter_current_update_messages().any(|a| a.entity == hero)
        });
        assert!(arrived, "the character never arrived on top of the ladder");
    }
}

#[cfg(feature = "ldtk")]
mod ldtk {
    use bevy_ecs_ldtk::prelude::*;
    use bevy_tilemap_nav::integrations::ldtk::{LdtkNavPlugin, LdtkNavRules};
    use bevy_tilemap_nav::io::ldtk::read_ldtk_side_views;
    use bevy_tilemap_nav::prelude::NavMaps;

    use super::*;

    const WORLD: &str = "ldtk/tile-based-game.ldtk";

    /// The first level's "Walls" IntGrid as the file has it: value 1 where `one`, air where 0.
    fn first_level_in_file(one: SideTile) -> SideViewMap {
        let text = std::fs::read_to_string(format!("{ASSETS}/{WORLD}")).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        let level = &json["levels"][0];
        let layers = level["layerInstances"].as_array().unwrap();
        let walls = layers.iter().find(|l| l["__identifier"] == "Walls").unwrap();
        let (width, height) =
            (walls["__cWid"].as_u64().unwrap() as u32, walls["__cHei"].as_u64().unwrap() as u32);
        let mut map = SideViewMap::new(width, height).unwrap();
        for (i, value) in walls["intGridCsv"].as_array().unwrap().iter().enumerate() {
            let (x, row) = (i as u32 % width, i as u32 / width);
            if value.as_i64() == Some(1) {
                map.set(GridPos::new(x, height - 1 - row), one).unwrap();
            }
        }
        map
    }

    #[test]
    fn ldtk_levels_read_as_side_views_are_levels_as_their_int_grids_say() {
        // From the file alone: unlisted values are solid; a value given a tile is that tile.
        let path = format!("{ASSETS}/{WORLD}");
        let solid = LdtkNavRules::default().as_side_view();
        let read = read_ldtk_side_views(&path, &solid).unwrap();
        assert_eq!(read[0].map, first_level_in_file(SideTile::Solid));
        let platforms = LdtkNavRules::default().as_side_view().with_side(1, SideTile::OneWay);
        let read = read_ldtk_side_views(&path, &platforms).unwrap();
        assert_eq!(read[0].map, first_level_in_file(SideTile::OneWay));

        // Loaded by bevy_ecs_ldtk: the level's entity is a side-view level, not a top-down map,
        // and lies where the file reader says.
        let mut app = headless_app();
        app.add_plugins(LdtkPlugin)
            .add_plugins(LdtkNavPlugin)
            .insert_resource(platforms)
            .insert_resource(LevelSelection::index(0));
        let mut app = ready(app);
        let handle: LdtkProjectHandle = app.world().resource::<AssetServer>().load(WORLD).into();
        app.world_mut().spawn(LdtkWorldBundle { ldtk_handle: handle, ..default() });
        let mut found = None;
        for _ in 0..3000 {
            app.update();
            let mut levels = app.world_mut().query_filtered::<Entity, With<LevelIid>>();
            found =
                levels.iter(app.world()).find(|&e| app.world().get::<SideViewLevel>(e).is_some());
            if found.is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        let level = found.expect("no level became a side-view level");
        let side = app.world().get::<SideViewLevel>(level).unwrap();
        assert_eq!(side.map(), &read[0].map);
        assert!(app.world().resource::<NavMaps>().get(level).is_none());
        let at = app.world().get::<Transform>(level).unwrap().translation.truncate();
        let ours = side.corner_to_world(at, [0.0, 0.0], UVec2::ONE);
        let file = read[0].transform.translation.truncate();
        assert!(ours.distance(file) < 0.01, "tile (0, 0) at {ours}, the file reader says {file}");
    }
}
