//! Levels drawn in [Tiled](https://www.mapeditor.org/) and loaded by `bevy_ecs_tiled`: every
//! tile layer of a map becomes a layer of one navigation map, and the editor says which tiles
//! block or cost what.
//!
//! Add [`TiledNavPlugin`] beside `bevy_ecs_tiled`'s `TiledPlugin` and [`TilemapNavPlugin`](
//! crate::plugin::TilemapNavPlugin); spawn a `TiledMap` as usual. Each map (its entity, the one
//! with `TiledMap`) is a navigation map of that entity; the `layer x tileset` tilemaps
//! `bevy_ecs_tiled` spawns are its layers ([`NavLayerOf`]). Orthogonal, isometric (diamond) and
//! hexagonal maps all work.
//!
//! What a tile is, from the editor ([`TiledNavRules`] names the properties):
//! - a tile property `nav_blocked` (bool): true blocks it;
//! - `nav_cost` (int or float, rounded, at least 1): the cost of entering it;
//! - `nav_terrain` (int, 0 to 255): its [`Terrain`] class, for
//!   [`NavProfile`](crate::grid::NavProfile)s;
//! - properties are found at the top level of the tile or inside its class-typed properties
//!   (a `Biome` class with a `move_cost` member: add `"move_cost"` to [`TiledNavRules::cost`]);
//! - or a rule by tileset name and tile id ([`TiledNavRules::by_tile`]), which wins over
//!   properties, or by the tile's class ([`TiledNavRules::classes`]).
//!
//! Objects block the cells whose centres they cover when they, or their object layer, have
//! `nav_blocked` set: rectangles, ellipses, capsules, polygons and tile objects, in any map
//! type.
//!
//! Collision shapes, as maps made for physics draw their walls, block too
//! ([`TiledNavRules::colliders`], on by default):
//! - a tile whose collision shapes (drawn in the tileset editor) cover the centre of the cell
//!   it is drawn on is blocked, when no property or rule above says what it is;
//! - every object of an object layer named "Colliders", "Collisions", "Collider" or
//!   "Collision" ([`TiledNavRules::collider_layers`], any case) blocks, unless it or its layer
//!   sets `nav_blocked` to false.
//!
//! A map is served once it is complete: from when its `TiledMap` is spawned (or respawned)
//! until its objects are laid on the grid it has [`NavMapLoading`]; requests that need it wait,
//! and a [`NavMapReady`](crate::plugin::NavMapReady) message says when it is served.
//!
//! A map respawned or reloaded by `bevy_ecs_tiled` is read again; a map despawned leaves the
//! navigation with its tilemaps. The rules are read when tiles and objects spawn: after changing
//! [`TiledNavRules`], respawn the map (`RespawnTiledMap`).

use std::collections::HashMap;

use bevy::prelude::*;
use bevy_ecs_tiled::prelude::tiled::{self, ObjectShape, Properties, PropertyValue};
use bevy_ecs_tiled::prelude::*;

use crate::grid::{Cell, Terrain};
use crate::plugin::{NavLayerOf, NavMapLoading, NavMaps, NavSet, NavTilemap, TileNav, TileTerrain};

/// Adds the wiring of Tiled maps to the navigation (see the [module](self)).
#[derive(Default)]
pub struct TiledNavPlugin;

impl Plugin for TiledNavPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<TiledNavRules>().init_resource::<TiledLoads>().add_systems(
            Update,
            (
                (hold_new_maps, wire_tilemaps).before(NavSet::SyncGrid),
                block_objects.after(NavSet::SyncGrid).before(NavSet::Pathfind),
            ),
        );
    }
}

/// Which Tiled properties and rules say what a tile is (see the [module](self)).
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct TiledNavRules {
    /// Bool properties that block a tile (or, on an object or object layer, the cells under the
    /// objects) when true. Default: `nav_blocked`.
    pub blocked: Vec<String>,
    /// Number properties that give a tile's cost. Default: `nav_cost`.
    pub cost: Vec<String>,
    /// Int properties that give a tile's terrain class. Default: `nav_terrain`.
    pub terrain: Vec<String>,
    /// A tile's class (its "Class" in Tiled) -> cell, for tiles whose properties say nothing.
    pub classes: HashMap<String, Cell>,
    /// (tileset name, tile id) -> cell, before anything else.
    pub by_tile: HashMap<(String, u32), Cell>,
    /// A tile nothing above speaks of (default: ground).
    pub unlisted: Cell,
    /// Collision shapes block (default: true): a tile whose collision shapes cover the centre
    /// of the cell it is drawn on, when nothing above speaks of it, and the objects of the
    /// [`collider_layers`](Self::collider_layers).
    pub colliders: bool,
    /// Object layers whose objects block when [`colliders`](Self::colliders) is on, by name
    /// (any case). Default: "Colliders", "Collisions", "Collider", "Collision".
    pub collider_layers: Vec<String>,
}

impl Default for TiledNavRules {
    fn default() -> Self {
        Self {
            blocked: vec!["nav_blocked".into()],
            cost: vec!["nav_cost".into()],
            terrain: vec!["nav_terrain".into()],
            classes: HashMap::new(),
            by_tile: HashMap::new(),
            unlisted: Cell::GROUND,
            colliders: true,
            collider_layers: ["Colliders", "Collisions", "Collider", "Collision"]
                .map(String::from)
                .into(),
        }
    }
}

impl TiledNavRules {
    /// The cell and terrain class of tile `tile_id` of the tileset named `tileset`, whose
    /// properties are `properties` and class `class`; `collides` says that its collision
    /// shapes cover its cell's centre (read when nothing else speaks of the tile and
    /// [`colliders`](Self::colliders) is on).
    pub fn tile(
        &self,
        tileset: &str,
        tile_id: u32,
        properties: &Properties,
        class: &str,
        collides: bool,
    ) -> (Cell, Terrain) {
        let terrain = self
            .terrain
            .iter()
            .find_map(|name| number(properties, name))
            .map_or(Terrain::DEFAULT, |t| Terrain(t.clamp(0.0, 255.0) as u8));
        // (The key is built only when there are rules by tile: this runs for every tile spawned.)
        let by_tile = (!self.by_tile.is_empty())
            .then(|| self.by_tile.get(&(tileset.to_owned(), tile_id)))
            .flatten();
        if let Some(&cell) = by_tile {
            return (cell, terrain);
        }
        if self.blocks(properties) {
            return (Cell::Blocked, terrain);
        }
        if let Some(cost) = self.cost.iter().find_map(|name| number(properties, name)) {
            return (Cell::Passable { cost: cost.round().max(1.0) as u32 }, terrain);
        }
        if let Some(&cell) = self.classes.get(class) {
            return (cell, terrain);
        }
        match collides && self.colliders {
            true => (Cell::Blocked, terrain),
            false => (self.unlisted, terrain),
        }
    }

    /// True when one of the [`blocked`](Self::blocked) properties is true in `properties`.
    pub fn blocks(&self, properties: &Properties) -> bool {
        self.says_blocked(properties) == Some(true)
    }

    /// What the first of the [`blocked`](Self::blocked) properties found in `properties` says.
    fn says_blocked(&self, properties: &Properties) -> Option<bool> {
        self.blocked.iter().find_map(|name| match find(properties, name) {
            Some(PropertyValue::BoolValue(b)) => Some(*b),
            _ => None,
        })
    }

    /// True when the objects of the object layer named `layer` block as colliders.
    fn collider_layer(&self, layer: &str) -> bool {
        self.colliders && self.collider_layers.iter().any(|name| name.eq_ignore_ascii_case(layer))
    }
}

/// True when the collision shapes of `tile` cover the centre of the cell it is drawn on: Tiled
/// draws a tile image `image` pixels large with its bottom edge on the cell's (centred on it
/// on an isometric map, else from its left edge), `cell` pixels being the map's tile size.
fn tile_collides(tile: &tiled::TileData, image: Vec2, cell: Vec2, isometric: bool) -> bool {
    let Some(collision) = &tile.collision else {
        return false;
    };
    let x = if isometric { image.x / 2.0 } else { cell.x.min(image.x) / 2.0 };
    let centre = Vec2::new(x, image.y - cell.y.min(image.y) / 2.0);
    collision.object_data().iter().any(|object| shape_covers(object, centre))
}

/// True when `point` (in the pixels of the object's layer or tile, y down) lies inside
/// `object`'s shape (rectangles, ellipses, capsules and polygons; lines, points and text cover
/// nothing).
fn shape_covers(object: &tiled::ObjectData, point: Vec2) -> bool {
    // Into the object's own frame: it is rotated clockwise (y down) about its (x, y).
    let (sin, cos) = object.rotation.to_radians().sin_cos();
    let d = point - Vec2::new(object.x, object.y);
    let p = Vec2::new(d.x * cos + d.y * sin, -d.x * sin + d.y * cos);
    let in_box = |w: f32, h: f32| (0.0..=w).contains(&p.x) && (0.0..=h).contains(&p.y);
    match &object.shape {
        ObjectShape::Rect { width, height } => in_box(*width, *height),
        ObjectShape::Ellipse { width, height } => {
            let (rx, ry) = (width / 2.0, height / 2.0);
            rx > 0.0 && ry > 0.0 && ((p.x - rx) / rx).powi(2) + ((p.y - ry) / ry).powi(2) <= 1.0
        }
        ObjectShape::Capsule { width, height } => {
            // Round ends along its longer side.
            let (w, h) = (*width, *height);
            let r = w.min(h) / 2.0;
            let (a, b) = if w >= h {
                (Vec2::new(r, r), Vec2::new(w - r, r))
            } else {
                (Vec2::new(r, r), Vec2::new(r, h - r))
            };
            let t = ((p - a).dot(b - a) / (b - a).length_squared().max(f32::MIN_POSITIVE))
                .clamp(0.0, 1.0);
            in_box(w, h) && p.distance(a + (b - a) * t) <= r
        }
        ObjectShape::Polygon { points } => {
            let ring: Vec<Vec2> = points.iter().map(|&(x, y)| Vec2::new(x, y)).collect();
            inside(&ring, p)
        }
        _ => false,
    }
}

/// The property `name`, at the top level or inside class-typed properties (depth first).
fn find<'a>(properties: &'a Properties, name: &str) -> Option<&'a PropertyValue> {
    properties.get(name).or_else(|| {
        properties.values().find_map(|value| match value {
            PropertyValue::ClassValue { properties, .. } => find(properties, name),
            _ => None,
        })
    })
}

fn number(properties: &Properties, name: &str) -> Option<f64> {
    match find(properties, name)? {
        PropertyValue::IntValue(n) => Some(f64::from(*n)),
        PropertyValue::FloatValue(x) if x.is_finite() => Some(f64::from(*x)),
        _ => None,
    }
}

type NewTilemaps<'w, 's> =
    Query<'w, 's, (Entity, &'static TiledMapReference), (Added<TiledTilemap>, Without<NavTilemap>)>;

type NewTiles<'w, 's> = Query<
    'w,
    's,
    (Entity, &'static TiledTilesetId, &'static TiledTileId, &'static TilemapId),
    Added<TiledTile>,
>;

/// Marks the tilemaps of newly spawned Tiled maps as layers of their map, and gives each new
/// tile its cell and terrain class from the editor's data. Tiles of a map whose asset is not
/// there are left to the texture rules.
fn wire_tilemaps(
    mut commands: Commands,
    rules: Res<TiledNavRules>,
    assets: Res<Assets<TiledMapAsset>>,
    maps: Query<&TiledMap>,
    new_tilemaps: NewTilemaps,
    references: Query<&TiledMapReference>,
    new_tiles: NewTiles,
) {
    for (tilemap, map) in &new_tilemaps {
        commands.entity(tilemap).insert((NavTilemap, NavLayerOf(map.0)));
    }
    for (tile, tileset_id, tile_id, tilemap) in &new_tiles {
        let Some(asset) = references
            .get(tilemap.0)
            .ok()
            .and_then(|map| maps.get(map.0).ok())
            .and_then(|handle| assets.get(&handle.0))
        else {
            continue;
        };
        let map = &asset.map;
        let (cell, terrain) = match get_tile_from_map(map, tileset_id.0, tile_id.0) {
            Some(data) => {
                let tileset = get_tileset_from_map(map, tileset_id.0);
                let name = tileset.map_or("", |t| t.name.as_str());
                let collides = rules.colliders
                    && tileset.is_some_and(|tileset| {
                        let image = match &data.image {
                            Some(image) => Vec2::new(image.width as f32, image.height as f32),
                            None => {
                                Vec2::new(tileset.tile_width as f32, tileset.tile_height as f32)
                            }
                        };
                        let cell = Vec2::new(map.tile_width as f32, map.tile_height as f32);
                        let isometric = map.orientation == tiled::Orientation::Isometric;
                        tile_collides(&data, image, cell, isometric)
                    });
                rules.tile(name, tile_id.0, &data.properties, &data.user_type, collides)
            }
            None => (rules.unlisted, Terrain::DEFAULT),
        };
        let nav = match cell {
            Cell::Blocked => TileNav::Blocked,
            Cell::Passable { cost } => TileNav::Cost(cost),
        };
        commands.entity(tile).insert(nav);
        if terrain != Terrain::DEFAULT {
            commands.entity(tile).insert(TileTerrain(terrain));
        }
    }
}

/// The tilemap that carries the cells a map's objects block: one more layer of that map, made
/// by [`TiledNavPlugin`] as a child of the map (a tile with [`TileNav::Blocked`] on each
/// blocked cell, nothing elsewhere; not drawn).
#[derive(Component, Clone, Copy, Debug)]
pub struct TiledObjectBlocks {
    /// The map (its `TiledMap` entity).
    pub map: Entity,
}

type Objects<'w, 's> = Query<
    'w,
    's,
    (
        Ref<'static, TiledObject>,
        &'static TiledObjectId,
        &'static TiledMapReference,
        &'static ChildOf,
        &'static GlobalTransform,
    ),
>;

type LayerLooks<'w, 's> = Query<
    'w,
    's,
    (
        &'static NavLayerOf,
        &'static TilemapSize,
        &'static TilemapGridSize,
        &'static TilemapTileSize,
        &'static TilemapType,
        Option<&'static TilemapAnchor>,
    ),
    With<TiledTilemap>,
>;

/// Maps whose objects are to be laid on the grid, and whether each is held back
/// ([`NavMapLoading`]) until they are.
#[derive(Resource, Default)]
struct TiledLoads(Vec<Load>);

struct Load {
    /// The map (its `TiledMap` entity).
    map: Entity,
    /// Frames to wait before laying (objects are placed in the world the frame they spawn).
    wait: u8,
    /// The map was spawned or respawned: it is served once its objects are laid.
    hold: bool,
}

impl TiledLoads {
    fn add(&mut self, map: Entity, hold: bool) {
        match self.0.iter_mut().find(|load| load.map == map) {
            Some(load) => {
                load.wait = 1;
                load.hold |= hold;
            }
            None => self.0.push(Load { map, wait: 1, hold }),
        }
    }
}

/// Holds back ([`NavMapLoading`]) a Tiled map from when it is spawned, or given another map
/// asset, while its asset loads; and again when bevy_ecs_tiled (re)spawns its layers, until
/// its objects are laid ([`block_objects`]).
fn hold_new_maps(
    mut commands: Commands,
    new_maps: Query<Entity, (Changed<TiledMap>, Without<NavMapLoading>)>,
    mut created: MessageReader<TiledEvent<MapCreated>>,
    mut loads: ResMut<TiledLoads>,
) {
    for map in &new_maps {
        commands.entity(map).insert(NavMapLoading);
    }
    for event in created.read() {
        let map = event.origin;
        if let Ok(mut entity) = commands.get_entity(map) {
            entity.insert(NavMapLoading);
            loads.add(map, true);
        }
    }
}

/// Lays the blocking objects of maps whose objects were just spawned onto a layer of blocked
/// cells: a cell is blocked when its centre lies inside an object's shape. Waits until the map
/// has a grid (its cells' centres known) and the objects are placed in the world; then a map
/// held back while it loaded is served ([`NavMapLoading`] removed; the plugin then sends
/// [`NavMapReady`](crate::plugin::NavMapReady)).
#[allow(clippy::too_many_arguments)]
fn block_objects(
    mut commands: Commands,
    rules: Res<TiledNavRules>,
    assets: Res<Assets<TiledMapAsset>>,
    nav_maps: Res<NavMaps>,
    maps: Query<&TiledMap>,
    objects: Objects,
    layer_ids: Query<&TiledLayerId>,
    looks: LayerLooks,
    blocks: Query<(Entity, &TiledObjectBlocks)>,
    mut loads: ResMut<TiledLoads>,
) {
    for (object, _, map, ..) in &objects {
        if object.is_added() {
            loads.add(map.0, false);
        }
    }
    let waiting = std::mem::take(&mut loads.0);
    for mut load in waiting {
        let map_entity = load.map;
        let asset = maps.get(map_entity).ok().and_then(|handle| assets.get(&handle.0));
        let nav_map = nav_maps.get(map_entity).or_else(|| nav_maps.loading_map(map_entity));
        if load.wait > 0 || asset.is_none() {
            if maps.contains(map_entity) {
                load.wait = load.wait.saturating_sub(1);
                loads.0.push(load);
            }
            continue;
        }
        if load.hold {
            // Served from next frame, with the layer laid below (or with none to lay).
            commands.entity(map_entity).remove::<NavMapLoading>();
        }
        let look = looks.iter().find(|look| look.0.0 == map_entity);
        let (Some(asset), Some(nav_map), Some(look)) = (asset, nav_map, look) else {
            continue; // no tile layer the navigation can take: nothing to lay objects on
        };
        let mut blocked: Vec<TilePos> = Vec::new();
        for (object, object_id, map, parent, transform) in &objects {
            if map.0 != map_entity {
                continue;
            }
            let Some(data) = get_object_from_map(&asset.map, object_id.0) else {
                continue;
            };
            let layer = layer_ids
                .get(parent.parent())
                .ok()
                .and_then(|id| get_layer_from_map(&asset.map, id.0));
            let says = rules
                .says_blocked(&data.properties)
                .or_else(|| layer.as_ref().and_then(|layer| rules.says_blocked(&layer.properties)));
            let collider = layer.as_ref().is_some_and(|layer| rules.collider_layer(&layer.name));
            if !says.unwrap_or(collider) {
                continue;
            }
            let Some(polygon) = asset.object_polygon(&object, transform) else {
                continue;
            };
            let ring: Vec<Vec2> =
                polygon.exterior().coords().map(|c| Vec2::new(c.x, c.y)).collect();
            let geometry = &nav_map.geometry;
            blocked.extend(
                nav_map
                    .grid
                    .positions()
                    .filter(|&cell| inside(&ring, geometry.cell_to_world(cell)))
                    .filter_map(|cell| geometry.cell_to_tile(cell)),
            );
        }
        for (entity, of) in &blocks {
            if of.map == map_entity {
                commands.entity(entity).despawn();
            }
        }
        if blocked.is_empty() {
            continue;
        }
        blocked.sort_unstable_by_key(|t| (t.y, t.x));
        blocked.dedup();
        let (_, size, grid_size, tile_size, map_type, anchor) = look;
        let layer = commands.spawn_empty().id();
        let mut storage = TileStorage::empty(*size);
        for pos in blocked {
            let tile = commands.spawn((pos, TilemapId(layer), TileNav::Blocked)).id();
            storage.set(&pos, tile);
        }
        commands.entity(layer).insert((
            TiledObjectBlocks { map: map_entity },
            storage,
            *size,
            *grid_size,
            *tile_size,
            *map_type,
            anchor.copied().unwrap_or_default(),
            Transform::default(),
            NavTilemap,
            NavLayerOf(map_entity),
            // Despawned with the map.
            ChildOf(map_entity),
        ));
    }
}

/// True when `point` lies inside the polygon `ring` (even-odd rule).
fn inside(ring: &[Vec2], point: Vec2) -> bool {
    let mut inside = false;
    let mut j = ring.len().wrapping_sub(1);
    for i in 0..ring.len() {
        let (a, b) = (ring[i], ring[j]);
        if (a.y > point.y) != (b.y > point.y)
            && point.x < (b.x - a.x) * (point.y - a.y) / (b.y - a.y) + a.x
        {
            inside = !inside;
        }
        j = i;
    }
    inside
}
