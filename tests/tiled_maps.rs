//! The Tiled integration (feature `tiled`), with the real loader: the sample maps under
//! `assets/tiled` are loaded by bevy_ecs_tiled through the asset server (no window; Bevy's
//! renderer on whatever adapter there is, Mesa's software one in CI), and each resulting
//! navigation grid is checked cell by cell against what the files say, read here by a reader
//! of their own (the CSV tile data, the tilesets' properties, the object layer's shapes). Then
//! an agent walks across a level, and a map despawned leaves the navigation.

#![cfg(feature = "tiled")]

use std::collections::HashMap;
use std::time::Duration;

use bevy::prelude::*;
use bevy_ecs_tiled::prelude::{TiledMap, TiledPlugin, TiledPluginConfig};
use bevy_tilemap_nav::integrations::tiled::{TiledNavPlugin, TiledNavRules};
use bevy_tilemap_nav::prelude::*;

#[path = "common/editor.rs"]
mod editor;
use editor::{ASSETS, headless_app, ready, walk_across};

fn app(rules: TiledNavRules) -> App {
    let mut app = headless_app();
    app.add_plugins(TiledPlugin(TiledPluginConfig { tiled_types_export_file: None, ..default() }))
        .add_plugins(TiledNavPlugin)
        .insert_resource(rules);
    ready(app)
}

/// Loads `path` (under `assets/`) as a Tiled map and steps frames until it is a navigation map
/// (and its objects are laid on it). Returns the map entity.
fn load(app: &mut App, path: &str) -> Entity {
    let handle = app.world().resource::<AssetServer>().load(path.to_owned());
    let map = app.world_mut().spawn(TiledMap(handle)).id();
    for _ in 0..3000 {
        app.update();
        if app.world().resource::<NavMaps>().get(map).is_some() {
            // A few more frames: objects are laid once the map is navigable.
            for _ in 0..5 {
                app.update();
            }
            return map;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    panic!("{path} did not become a navigation map");
}

/// What a tileset file says of each tile: its properties, flattened (class members included).
fn tileset_properties(path: &str) -> HashMap<u32, HashMap<String, String>> {
    let text = std::fs::read_to_string(format!("{ASSETS}/{path}")).unwrap();
    let mut tiles = HashMap::new();
    for block in text.split("<tile id=\"").skip(1) {
        let id: u32 = block[..block.find('"').unwrap()].parse().unwrap();
        let body = &block[..block.find("</tile>").unwrap_or(block.len())];
        let mut properties = HashMap::new();
        for property in body.split("<property ").skip(1) {
            let attribute = |name: &str| {
                let key = format!("{name}=\"");
                let at = property.find(&key)? + key.len();
                let end = property[at..].find('"')? + at;
                Some(property[at..end].to_owned())
            };
            if let (Some(name), Some(value)) = (attribute("name"), attribute("value")) {
                properties.insert(name, value);
            }
        }
        tiles.insert(id, properties);
    }
    tiles
}

/// The tile layers of a map file: for each, its rows (top first) of global tile ids.
fn tile_layers(path: &str) -> Vec<Vec<Vec<u32>>> {
    let text = std::fs::read_to_string(format!("{ASSETS}/{path}")).unwrap();
    text.split("<data encoding=\"csv\">")
        .skip(1)
        .map(|data| {
            let csv = &data[..data.find("</data>").unwrap()];
            csv.lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| {
                    l.split(',')
                        .filter(|v| !v.trim().is_empty())
                        .map(|v| v.trim().parse().unwrap())
                        .collect()
                })
                .collect()
        })
        .collect()
}

/// What the files say each cell is: blocked if a layer's tile says so, else the highest cost,
/// and the newest layer's terrain class. `cost_names`: the properties read as costs.
fn expected(map: &str, tileset: &str, cost_names: &[&str]) -> HashMap<GridPos, (Cell, Terrain)> {
    let tiles = tileset_properties(tileset);
    let layers = tile_layers(map);
    let height = layers[0].len() as u32;
    let mut cells = HashMap::new();
    for layer in &layers {
        for (row, gids) in layer.iter().enumerate() {
            for (x, &gid) in gids.iter().enumerate() {
                let pos = GridPos::new(x as u32, height - 1 - row as u32);
                let entry = cells.entry(pos).or_insert((Cell::GROUND, Terrain::DEFAULT));
                // Global id 0 is no tile; the one tileset starts at 1; the top bits are flips.
                let gid = gid & 0x0FFF_FFFF;
                if gid == 0 {
                    continue;
                }
                let props = tiles.get(&(gid - 1)).cloned().unwrap_or_default();
                let here = if props.get("nav_blocked").is_some_and(|v| v == "true") {
                    Cell::Blocked
                } else if let Some(cost) = cost_names.iter().find_map(|n| props.get(*n)) {
                    Cell::Passable { cost: cost.parse::<u32>().unwrap().max(1) }
                } else {
                    Cell::GROUND
                };
                entry.0 = match (entry.0, here) {
                    (Cell::Blocked, _) | (_, Cell::Blocked) => Cell::Blocked,
                    (Cell::Passable { cost: a }, Cell::Passable { cost: b }) => {
                        Cell::Passable { cost: a.max(b) }
                    }
                };
                if let Some(class) = props.get("nav_terrain") {
                    entry.1 = Terrain(class.parse().unwrap());
                }
            }
        }
    }
    cells
}

fn assert_grid(app: &App, map: Entity, want: &HashMap<GridPos, (Cell, Terrain)>) {
    let nav = app.world().resource::<NavMaps>().get(map).expect("the map navigates");
    assert_eq!(nav.grid.len(), want.len());
    for (&pos, &(cell, terrain)) in want {
        assert_eq!(nav.grid.get(pos), Some(cell), "cell {pos}");
        assert_eq!(nav.grid.terrain(pos), Some(terrain), "terrain of {pos}");
    }
}

#[test]
fn an_orthogonal_map_navigates_as_its_files_say_and_an_agent_walks_it() {
    let mut app = app(TiledNavRules::default());
    let map = load(&mut app, "tiled/maps/orthogonal/finite.tmx");
    let mut want =
        expected("tiled/maps/orthogonal/finite.tmx", "tiled/tiles/orthogonal_1.tsx", &["nav_cost"]);
    // The object layer `NavBlockers` (nav_blocked on the layer): cells whose centres (in
    // Tiled's pixels, y down, 32 px tiles) lie in its rectangle (192, 96)-(256, 128) or its
    // triangle (64, 192), (136, 192), (64, 264) (no cell centre on an edge).
    let mut from_objects = 0;
    for (pos, cell) in want.iter_mut() {
        let (cx, cy) = (pos.x as f32 * 32.0 + 16.0, (9 - pos.y) as f32 * 32.0 + 16.0);
        let in_rect = (192.0..=256.0).contains(&cx) && (96.0..=128.0).contains(&cy);
        let (u, v) = (cx - 64.0, cy - 192.0);
        let in_triangle = u >= 0.0 && v >= 0.0 && u + v < 72.0;
        if in_rect || in_triangle {
            from_objects += usize::from(cell.0 != Cell::Blocked);
            cell.0 = Cell::Blocked;
        }
    }
    assert!(from_objects >= 3, "the objects block cells of their own");
    assert_grid(&app, map, &want);
    // Costs and classes came through: cost 2 with class 1, cost 3, walls.
    assert!(want.values().any(|&(c, t)| c == Cell::Passable { cost: 2 } && t == Terrain(1)));
    assert!(want.values().any(|&(c, _)| c == Cell::Passable { cost: 3 }));

    // An agent walks from one side of the level to the other.
    let arrived = walk_across(&mut app, map, GridPos::new(1, 1), GridPos::new(8, 8), 2000);
    assert!(arrived, "the agent crossed the level");

    // The map despawned: it leaves the navigation.
    app.world_mut().entity_mut(map).despawn();
    app.update();
    app.update();
    assert!(app.world().resource::<NavMaps>().get(map).is_none());
    assert!(app.world().resource::<NavMaps>().is_empty());
}

#[test]
fn an_isometric_map_navigates_as_its_files_say() {
    let mut app = app(TiledNavRules::default());
    let path = "tiled/maps/isometric/finite_diamond.tmx";
    let map = load(&mut app, path);
    let want = expected(path, "tiled/tiles/kenney-sketch-desert.tsx", &["nav_cost"]);
    assert!(want.values().any(|&(c, _)| c == Cell::Blocked));
    assert_grid(&app, map, &want);
}

#[test]
fn a_hex_map_navigates_as_its_files_say_with_costs_from_a_class_property() {
    let rules = TiledNavRules { cost: vec!["nav_cost".into(), "move_cost".into()], ..default() };
    let mut app = app(rules);
    let path = "tiled/maps/hexagonal/finite_pointy_top_odd.tmx";
    let map = load(&mut app, path);
    let want = expected(path, "tiled/tiles/drjamgo_hex_16x16.tsx", &["nav_cost", "move_cost"]);
    assert!(want.values().any(|&(c, _)| c == Cell::Passable { cost: 3 }));
    assert!(want.values().any(|&(c, _)| c == Cell::Blocked));
    assert_grid(&app, map, &want);
    let nav = app.world().resource::<NavMaps>().get(map).unwrap();
    assert!(nav.grid.neighborhood().is_hex());
}
