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
use bevy_tilemap_nav::plugin::NavMapReady;
use bevy_tilemap_nav::prelude::*;

use crate::editor::{ASSETS, headless_app, ready, walk_across};

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

/// The number attribute `name` of the first tag `tag` in `xml`.
fn tag_number(xml: &str, tag: &str, name: &str) -> Option<f32> {
    let tag = &xml[xml.find(&format!("<{tag} "))?..];
    let tag = &tag[..tag.find('>')?];
    let key = format!(" {name}=\"");
    let at = tag.find(&key)? + key.len();
    tag[at..at + tag[at..].find('"')?].parse().ok()
}

/// Whether each tile of a tileset has collision shapes covering the centre of the cell it is
/// drawn on (Tiled draws a tile image with its bottom on the cell's bottom, centred on an
/// isometric map, else from the cell's left), by tile id.
fn tile_colliders(map: &str, tileset: &str) -> HashMap<u32, bool> {
    let map = std::fs::read_to_string(format!("{ASSETS}/{map}")).unwrap();
    let xml = std::fs::read_to_string(format!("{ASSETS}/{tileset}")).unwrap();
    let cell = Vec2::new(
        tag_number(&map, "map", "tilewidth").unwrap(),
        tag_number(&map, "map", "tileheight").unwrap(),
    );
    let isometric = map.contains("orientation=\"isometric\"");
    xml.split("<tile id=\"")
        .skip(1)
        .map(|block| {
            let id = block[..block.find('"').unwrap()].parse().unwrap();
            let block = &block[..block.find("</tile>").unwrap_or(block.len())];
            let image = Vec2::new(
                tag_number(block, "image", "width")
                    .or(tag_number(&xml, "tileset", "tilewidth"))
                    .unwrap(),
                tag_number(block, "image", "height")
                    .or(tag_number(&xml, "tileset", "tileheight"))
                    .unwrap(),
            );
            let x = if isometric { image.x / 2.0 } else { cell.x.min(image.x) / 2.0 };
            let centre = Vec2::new(x, image.y - cell.y.min(image.y) / 2.0);
            let shapes = match block.find("<objectgroup") {
                Some(at) => shapes(&block[at..]),
                None => Vec::new(),
            };
            (id, shapes.iter().any(|ring| covers(ring, centre, 0.0) == Some(true)))
        })
        .collect()
}

/// What the files say each cell is: blocked if a layer's tile says so, else the highest cost,
/// and the newest layer's terrain class. `cost_names`: the properties read as costs;
/// `colliders`: tiles that say nothing of navigation are blocked by their collision shapes.
fn expected(
    map: &str,
    tileset: &str,
    cost_names: &[&str],
    colliders: bool,
) -> HashMap<GridPos, (Cell, Terrain)> {
    let tiles = tileset_properties(tileset);
    let collides = tile_colliders(map, tileset);
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
                } else if colliders && collides.get(&(gid - 1)) == Some(&true) {
                    Cell::Blocked
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
    let mut want = expected(
        "tiled/maps/orthogonal/finite.tmx",
        "tiled/tiles/orthogonal_1.tsx",
        &["nav_cost"],
        false,
    );
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
    let want = expected(path, "tiled/tiles/kenney-sketch-desert.tsx", &["nav_cost"], true);
    assert!(want.values().any(|&(c, _)| c == Cell::Blocked));
    assert_grid(&app, map, &want);
}

#[test]
fn a_hex_map_navigates_as_its_files_say_with_costs_from_a_class_property() {
    let rules = TiledNavRules { cost: vec!["nav_cost".into(), "move_cost".into()], ..default() };
    let mut app = app(rules);
    let path = "tiled/maps/hexagonal/finite_pointy_top_odd.tmx";
    let map = load(&mut app, path);
    let want =
        expected(path, "tiled/tiles/drjamgo_hex_16x16.tsx", &["nav_cost", "move_cost"], true);
    assert!(want.values().any(|&(c, _)| c == Cell::Passable { cost: 3 }));
    assert!(want.values().any(|&(c, _)| c == Cell::Blocked));
    assert_grid(&app, map, &want);
    let nav = app.world().resource::<NavMaps>().get(map).unwrap();
    assert!(nav.grid.neighborhood().is_hex());
}

/// Cost of the cheapest path from `from` to `to` on `grid` (8-way, octile), if any.
fn best_cost(grid: &NavGrid, from: GridPos, to: GridPos) -> Option<f64> {
    Pathfinder::new().find(grid, &PathQuery::new(from, to)).ok().map(|p| p.cost)
}

#[test]
fn a_map_is_served_once_its_objects_are_laid_and_requests_wait_for_it() {
    // A game that asks for a path from its first frame, every frame until it has one (before
    // the map has loaded, while its layers and objects come in).
    let mut app = app(TiledNavRules { colliders: false, ..default() });
    let path = "tiled/maps/orthogonal/finite.tmx";
    let handle = app.world().resource::<AssetServer>().load(path.to_owned());
    let map = app.world_mut().spawn(TiledMap(handle)).id();
    // Either side of the object layer's rectangle (cells (6, 6) and (7, 6)).
    let (from, to) = (GridPos::new(5, 6), GridPos::new(8, 6));
    let agent =
        app.world_mut().spawn(PathRequest { start: Some(from), ..PathRequest::to(to) }).id();
    let mut ready_at = Vec::new();
    let mut ready_cursor = app.world().resource::<Messages<NavMapReady>>().get_cursor();
    let mut failed_cursor = app.world().resource::<Messages<PathFailed>>().get_cursor();
    let mut frame = 0;
    let first_path = loop {
        frame += 1;
        assert!(frame < 3000, "no path");
        app.update();
        let world = app.world();
        let readies = world.resource::<Messages<NavMapReady>>();
        if ready_cursor.read(readies).any(|r| r.map == map) {
            ready_at.push(frame);
        }
        if ready_at.is_empty() {
            assert!(world.resource::<NavMaps>().get(map).is_none(), "served before ready");
        }
        assert!(world.get::<PathFailed>(agent).is_none(), "frame {frame}: {:?}", {
            world.get::<PathFailed>(agent)
        });
        let failures = world.resource::<Messages<PathFailed>>();
        assert!(failed_cursor.read(failures).next().is_none(), "frame {frame}");
        if let Some(path) = world.get::<NavPath>(agent) {
            break path.clone();
        }
        app.world_mut()
            .entity_mut(agent)
            .insert(PathRequest { start: Some(from), ..PathRequest::to(to) });
        std::thread::sleep(Duration::from_millis(1));
    };
    for _ in 0..5 {
        app.update();
        let readies = app.world().resource::<Messages<NavMapReady>>();
        assert!(ready_cursor.read(readies).all(|r| r.map != map), "ready again");
    }
    assert_eq!(ready_at.len(), 1, "one NavMapReady for the map");
    // The first path is the best on the complete grid, and the objects mattered.
    let nav = app.world().resource::<NavMaps>().get(map).unwrap();
    let best = best_cost(&nav.grid, from, to).unwrap();
    let mut tiles_only = nav.grid.clone();
    let tiles = expected(path, "tiled/tiles/orthogonal_1.tsx", &["nav_cost"], false);
    for (&pos, &(cell, _)) in &tiles {
        tiles_only.set(pos, cell).unwrap();
    }
    let without_objects = best_cost(&tiles_only, from, to).unwrap();
    assert!(
        best > without_objects + 0.5,
        "the objects block the way ({best} vs {without_objects})"
    );
    assert!((first_path.cost - best).abs() < 1e-6, "first path {} best {best}", first_path.cost);
    assert!(first_path.cells.iter().all(|&c| nav.grid.is_passable(c)));
}

/// One shape of a Tiled file (an object of an object layer, or a tile's collision shape), as a
/// polygon in the file's pixels (y down): ellipses as 256-gons.
fn shapes(xml: &str) -> Vec<Vec<Vec2>> {
    let mut out = Vec::new();
    for block in xml.split("<object ").skip(1) {
        let head = &block[..block.find('>').unwrap()];
        let body = &block[..block.find("</object>").unwrap_or(head.len())];
        let attribute = |text: &str, name: &str| -> Option<String> {
            let key = format!(" {name}=\"");
            let text = format!(" {text}");
            let at = text.find(&key)? + key.len();
            Some(text[at..at + text[at..].find('"')?].to_owned())
        };
        let number = |name: &str| attribute(head, name).map_or(0.0, |v| v.parse::<f32>().unwrap());
        let (w, h) = (number("width"), number("height"));
        let local: Vec<Vec2> = if attribute(head, "gid").is_some() {
            // A tile object stands on its (x, y): bottom left.
            vec![Vec2::new(0.0, -h), Vec2::new(w, -h), Vec2::new(w, 0.0), Vec2::ZERO]
        } else if body.contains("<ellipse") {
            (0..256)
                .map(|i| {
                    let a = i as f32 / 256.0 * std::f32::consts::TAU;
                    Vec2::new(w / 2.0 * (1.0 + a.cos()), h / 2.0 * (1.0 + a.sin()))
                })
                .collect()
        } else if let Some(at) = body.find("<polygon points=\"") {
            let points = &body[at + "<polygon points=\"".len()..];
            points[..points.find('"').unwrap()]
                .split(' ')
                .map(|p| {
                    let (x, y) = p.split_once(',').unwrap();
                    Vec2::new(x.parse().unwrap(), y.parse().unwrap())
                })
                .collect()
        } else {
            vec![Vec2::ZERO, Vec2::new(w, 0.0), Vec2::new(w, h), Vec2::new(0.0, h)]
        };
        // Turned clockwise (y down) about its (x, y).
        let (sin, cos) = number("rotation").to_radians().sin_cos();
        let origin = Vec2::new(number("x"), number("y"));
        out.push(
            local
                .iter()
                .map(|p| origin + Vec2::new(p.x * cos - p.y * sin, p.x * sin + p.y * cos))
                .collect(),
        );
    }
    out
}

/// Whether `point` is inside `ring`, or `None` when it lies within `margin` of its edge.
fn covers(ring: &[Vec2], point: Vec2, margin: f32) -> Option<bool> {
    let mut inside = false;
    for (i, &a) in ring.iter().enumerate() {
        let b = ring[(i + 1) % ring.len()];
        let t = ((point - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
        if point.distance(a + (b - a) * t) < margin {
            return None;
        }
        if (a.y > point.y) != (b.y > point.y)
            && point.x < (b.x - a.x) * (point.y - a.y) / (b.y - a.y) + a.x
        {
            inside = !inside;
        }
    }
    Some(inside)
}

#[test]
fn collision_shapes_block_as_maps_made_for_physics_draw_their_walls() {
    // bevy_ecs_tiled's orthogonal sample as it ships (here `physics.tmx`, with its tileset):
    // walls are tile collision shapes and a "Collisions" object layer, and no tile or object
    // says anything of navigation.
    let path = "tiled/maps/orthogonal/physics.tmx";
    let tiles = expected(path, "tiled/tiles/orthogonal_1_physics.tsx", &[], true);
    let map_xml = std::fs::read_to_string(format!("{ASSETS}/{path}")).unwrap();
    let layer = &map_xml[map_xml.find("name=\"Collisions\"").unwrap()..];
    let objects = shapes(&layer[..layer.find("</objectgroup>").unwrap()]);

    let mut app = app(TiledNavRules::default());
    let map = load(&mut app, path);
    let nav = app.world().resource::<NavMaps>().get(map).unwrap();
    let (mut checked, mut blocked_by_tiles, mut blocked_by_objects) = (0, 0, 0);
    for (&pos, &(cell, _)) in &tiles {
        let tile = cell == Cell::Blocked;
        // The cell's centre in the file's pixels (32 px tiles, rows from the top).
        let centre = Vec2::new(pos.x as f32 * 32.0 + 16.0, (9 - pos.y) as f32 * 32.0 + 16.0);
        // (bevy_ecs_tiled draws ellipses as 20-gons: up to 1.6 px inside the true curve.)
        let Some(object) =
            objects.iter().try_fold(false, |any, ring| Some(any || covers(ring, centre, 3.0)?))
        else {
            continue; // on an edge
        };
        checked += 1;
        blocked_by_tiles += usize::from(tile);
        blocked_by_objects += usize::from(object && !tile);
        let want = if tile || object { Cell::Blocked } else { Cell::GROUND };
        assert_eq!(nav.grid.get(pos), Some(want), "cell {pos} (tile {tile}, object {object})");
    }
    assert!(checked >= 80, "only {checked} cells away from edges");
    assert!(
        blocked_by_tiles >= 30 && blocked_by_objects >= 10,
        "{blocked_by_tiles} {blocked_by_objects}"
    );
    assert!(nav.grid.positions().any(|p| nav.grid.is_passable(p)));

    // Turned off: the same map is all open (nothing else speaks of navigation).
    // (`self::app`: the local `app` above hides the function's name.)
    let mut app = self::app(TiledNavRules { colliders: false, ..default() });
    let map = load(&mut app, path);
    let nav = app.world().resource::<NavMaps>().get(map).unwrap();
    assert!(nav.grid.positions().all(|p| nav.grid.is_passable(p)));
}

#[test]
fn tiled_files_read_without_a_renderer_give_the_cells_the_integration_gives() {
    use bevy_tilemap_nav::io::tiled::read_tiled_level;
    let hex_rules =
        || TiledNavRules { cost: vec!["nav_cost".into(), "move_cost".into()], ..default() };
    let levels = [
        ("tiled/maps/orthogonal/finite.tmx", TiledNavRules::default()),
        // Two layers, the second in a group: the upper tile's cost and terrain class win.
        ("tiled/maps/orthogonal/layers.tmx", TiledNavRules::default()),
        ("tiled/maps/orthogonal/physics.tmx", TiledNavRules::default()),
        ("tiled/maps/orthogonal/physics.tmx", TiledNavRules { colliders: false, ..default() }),
        ("tiled/maps/isometric/finite_diamond.tmx", TiledNavRules::default()),
        ("tiled/maps/hexagonal/finite_pointy_top_odd.tmx", hex_rules()),
        ("tiled/maps/hexagonal/finite_pointy_top_odd.tmx", TiledNavRules::default()),
    ];
    // One app for all (each renderer made and dropped costs time, and Mesa's software driver
    // has been seen to crash on exit after many).
    let mut app = app(TiledNavRules::default());
    for (path, rules) in levels {
        let level = read_tiled_level(format!("{ASSETS}/{path}"), &rules).unwrap();
        assert_eq!(level.objects_left_out, 0, "{path}");
        // The rules are read as tiles spawn: a level loaded after they are set.
        app.insert_resource(rules.clone());
        let map = load(&mut app, path);
        let nav = app.world().resource::<NavMaps>().get(map).unwrap();
        assert_eq!(
            (level.grid.width(), level.grid.height()),
            (nav.grid.width(), nav.grid.height())
        );
        let map_xml = std::fs::read_to_string(format!("{ASSETS}/{path}")).unwrap();
        // Object edges: bevy_ecs_tiled draws ellipses as 20-gons, the reader as 32-gons.
        let objects = match map_xml.find("name=\"Collisions\"") {
            Some(at) if rules.colliders => {
                let layer = &map_xml[at..];
                shapes(&layer[..layer.find("</objectgroup>").unwrap()])
            }
            _ => Vec::new(),
        };
        let mut compared = 0;
        for pos in nav.grid.positions() {
            // (Objects only on the orthogonal map: 10 x 10 tiles of 32 px.)
            let row = nav.grid.height() - 1 - pos.y;
            let centre = Vec2::new(pos.x as f32 * 32.0 + 16.0, row as f32 * 32.0 + 16.0);
            if objects.iter().any(|ring| covers(ring, centre, 3.0).is_none()) {
                continue;
            }
            compared += 1;
            assert_eq!(level.grid.get(pos), nav.grid.get(pos), "{path}: cell {pos}");
            assert_eq!(level.grid.terrain(pos), nav.grid.terrain(pos), "{path}: terrain {pos}");
        }
        assert!(compared * 10 >= nav.grid.len() * 8, "{path}: {compared} cells compared");
        if path.ends_with("layers.tmx") {
            // Row 0 of the file is the top row: (0, 2) has both layers' tiles, (1, 2) one.
            assert_eq!(nav.grid.get(GridPos::new(0, 2)), Some(Cell::Passable { cost: 3 }));
            assert_eq!(nav.grid.terrain(GridPos::new(0, 2)), Some(Terrain(2)));
            assert_eq!(nav.grid.terrain(GridPos::new(1, 2)), Some(Terrain(1)));
        }
        assert_eq!(
            level.map_type,
            *app.world().get::<bevy_ecs_tilemap::prelude::TilemapType>(nav.layers[0]).unwrap()
        );
        app.world_mut().entity_mut(map).despawn();
        app.update();
        app.update();
        assert!(app.world().resource::<NavMaps>().is_empty());
    }
    // Not a Tiled file: a typed error.
    let bad = read_tiled_level(format!("{ASSETS}/maps/arena.map"), &TiledNavRules::default());
    assert!(bad.is_err());
}

#[test]
fn tiled_files_the_reader_does_not_take_are_typed_errors() {
    use bevy_tilemap_nav::io::tiled::{TiledFileError, read_tiled_level};
    let dir = std::env::temp_dir().join(format!("tiled_files_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, head: &str, layer: &str| {
        let text = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<map version=\"1.10\" {head} \
             renderorder=\"right-down\" width=\"2\" height=\"2\" tilewidth=\"16\" \
             tileheight=\"16\" nextlayerid=\"2\" nextobjectid=\"1\">\n{layer}\n</map>\n"
        );
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let finite = "<layer id=\"1\" name=\"L\" width=\"2\" height=\"2\"><data encoding=\"csv\">\n0,0,\n0,0\n</data></layer>";
    let infinite = "<layer id=\"1\" name=\"L\" width=\"2\" height=\"2\"><data encoding=\"csv\">\
                    <chunk x=\"0\" y=\"0\" width=\"2\" height=\"2\">\n0,0,\n0,0\n</chunk></data></layer>";
    let rules = TiledNavRules::default();
    let ok = write("ok.tmx", "orientation=\"orthogonal\" infinite=\"0\"", finite);
    let level = read_tiled_level(&ok, &rules).unwrap();
    assert!(level.grid.positions().all(|p| level.grid.is_passable(p)));
    let path = write("infinite.tmx", "orientation=\"orthogonal\" infinite=\"1\"", infinite);
    let result = read_tiled_level(&path, &rules).map(|level| level.objects_left_out);
    assert!(matches!(result, Err(TiledFileError::Infinite)), "{result:?}");
    let path = write(
        "staggered.tmx",
        "orientation=\"staggered\" staggeraxis=\"y\" staggerindex=\"odd\" infinite=\"0\"",
        finite,
    );
    assert!(matches!(read_tiled_level(&path, &rules), Err(TiledFileError::Unsupported(_))));
    let missing = read_tiled_level(dir.join("none.tmx"), &rules);
    assert!(matches!(missing, Err(TiledFileError::Read(_))));
    std::fs::remove_dir_all(&dir).ok();
}

/// A Tiled world (`.world` file) of two maps side by side: bevy_ecs_tiled spawns both where the
/// world puts them, and they join at their touching edges (seam links both ways); an agent
/// walks from the left map into the right one across the seam.
#[test]
fn maps_of_a_tiled_world_join_at_their_edges() {
    use bevy_ecs_tiled::prelude::TiledWorld;
    use bevy_tilemap_nav::plugin::NavSeam;
    let mut app = app(TiledNavRules::default());
    let handle =
        app.world().resource::<AssetServer>().load("tiled/maps/orthogonal/side_by_side.world");
    app.world_mut().spawn(TiledWorld(handle));
    let mut maps = Vec::new();
    for _ in 0..3000 {
        app.update();
        maps = app.world().resource::<NavMaps>().iter().map(|m| m.entity).collect();
        if maps.len() == 2 {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    assert_eq!(maps.len(), 2, "both maps of the world navigate");
    for _ in 0..5 {
        app.update();
    }
    // Left and right, by where their cell (0, 0) lies.
    let nav = app.world().resource::<NavMaps>();
    let x0 = |m: Entity| nav.get(m).unwrap().geometry.cell_to_world(GridPos::new(0, 0)).x;
    maps.sort_by(|&a, &b| x0(a).total_cmp(&x0(b)));
    let (left, right) = (maps[0], maps[1]);
    assert!((x0(right) - x0(left) - 320.0).abs() < 1e-3, "laid 320 px apart");
    let mut seams = app.world_mut().query_filtered::<&NavLink, With<NavSeam>>();
    let pairs: Vec<(Entity, Entity)> =
        seams.iter(app.world()).map(|l| (l.from.map, l.to.map)).collect();
    assert!(pairs.contains(&(left, right)) && pairs.contains(&(right, left)), "{pairs:?}");

    let nav = app.world().resource::<NavMaps>();
    let (from, to) = (GridPos::new(1, 1), GridPos::new(8, 8));
    assert!(nav.get(left).unwrap().grid.is_passable(from));
    assert!(nav.get(right).unwrap().grid.is_passable(to));
    let goal = nav.get(right).unwrap().geometry.cell_to_world(to);
    let start = nav.get(left).unwrap().geometry.cell_to_world(from);
    let agent = app
        .world_mut()
        .spawn((
            Transform::from_translation(start.extend(5.0)),
            PathFollower::new(200.0),
            PathRequest::to(PathGoal::OnMap { map: right, cell: to }),
        ))
        .id();
    let mut crossed = false;
    for _ in 0..3000 {
        app.update();
        if let Some(path) = app.world().get::<NavPath>(agent) {
            let seam = |leg: &bevy_tilemap_nav::plugin::PathLeg| {
                app.world().get::<NavSeam>(leg.link).is_some() && leg.map == right
            };
            crossed |= path.legs.iter().any(seam);
        }
        assert!(app.world().get::<PathFailed>(agent).is_none());
        let at = app.world().get::<Transform>(agent).unwrap().translation.truncate();
        if at.distance(goal) < 1e-3 {
            break;
        }
    }
    let at = app.world().get::<Transform>(agent).unwrap().translation.truncate();
    assert!(at.distance(goal) < 1e-3, "stopped at {at}, the goal is at {goal}");
    assert!(crossed, "its path never crossed the seam");
}

/// The edges `fences.tmx` draws (grid rows counted up from the bottom, 8 rows): fence tiles
/// (`nav_walls = "north"`) along grid row 3 but for a door at x = 7; a wall line between
/// columns 4 and 5 in the top three rows; a ledge line (`nav_drop = "south"`) under row 2 for
/// x = 0..5; ledge tiles (`nav_drops = "south"`) at (8, 1) and (9, 1).
fn fence_edges() -> Vec<(GridPos, GridPos)> {
    let mut barred = Vec::new();
    let p = GridPos::new;
    for x in (0..10).filter(|&x| x != 7) {
        barred.extend([(p(x, 3), p(x, 4)), (p(x, 4), p(x, 3))]);
    }
    for y in 5..8 {
        barred.extend([(p(4, y), p(5, y)), (p(5, y), p(4, y))]);
    }
    for x in 0..5 {
        barred.push((p(x, 1), p(x, 2)));
    }
    for x in 8..10 {
        barred.push((p(x, 0), p(x, 1)));
    }
    barred.sort();
    barred
}

#[test]
fn walls_and_ledges_drawn_in_tiled_are_read_by_both_ways_in() {
    use bevy_tilemap_nav::io::tiled::read_tiled_level;
    let path = "tiled/maps/orthogonal/fences.tmx";
    let level = read_tiled_level(format!("{ASSETS}/{path}"), &TiledNavRules::default()).unwrap();
    let mut read: Vec<(GridPos, GridPos)> = level.grid.barred_crossings().collect();
    read.sort();
    assert_eq!(read, fence_edges());

    let mut app = app(TiledNavRules::default());
    let map = load(&mut app, path);
    let grid = app.world().resource::<NavMaps>().get(map).unwrap().grid.clone();
    let mut loaded: Vec<(GridPos, GridPos)> = grid.barred_crossings().collect();
    loaded.sort();
    assert_eq!(loaded, fence_edges());
    // A character from the top left to the bottom left goes through the door at x = 7 and
    // drops down the ledge; back up it must go round the ledge's east end.
    let (top, bottom) = (GridPos::new(1, 6), GridPos::new(1, 0));
    let mut pathfinder = Pathfinder::new();
    let down = pathfinder.find(&grid, &PathQuery::new(top, bottom)).unwrap();
    assert!(down.cells.contains(&GridPos::new(7, 4)) && down.cells.contains(&GridPos::new(7, 3)));
    let up = pathfinder.find(&grid, &PathQuery::new(bottom, top)).unwrap();
    assert!(up.cells.iter().any(|c| c.x >= 5 && c.y == 2), "{:?}", up.cells);
    assert!(walk_across(&mut app, map, top, bottom, 3000));
}
