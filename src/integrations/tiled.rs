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
//! `nav_blocked` set: rectangles, ellipses, polygons and tile objects, in any map type.
//!
//! A map respawned or reloaded by `bevy_ecs_tiled` is read again; a map despawned leaves the
//! navigation with its tilemaps. The rules are read when tiles and objects spawn: after changing
//! [`TiledNavRules`], respawn the map (`RespawnTiledMap`).

use std::collections::HashMap;

use bevy::prelude::*;
use bevy_ecs_tiled::prelude::tiled::{Properties, PropertyValue};
use bevy_ecs_tiled::prelude::*;

use crate::grid::{Cell, Terrain};
use crate::plugin::{NavLayerOf, NavMaps, NavSet, NavTilemap, TileNav, TileTerrain};

/// Adds the wiring of Tiled maps to the navigation (see the [module](self)).
#[derive(Default)]
pub struct TiledNavPlugin;

impl Plugin for TiledNavPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<TiledNavRules>().add_systems(
            Update,
            (
                wire_tilemaps.before(NavSet::SyncGrid),
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
        }
    }
}

impl TiledNavRules {
    /// The cell and terrain class of tile `tile_id` of the tileset named `tileset`, whose
    /// properties are `properties` and class `class`.
    pub fn tile(
        &self,
        tileset: &str,
        tile_id: u32,
        properties: &Properties,
        class: &str,
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
        (self.classes.get(class).copied().unwrap_or(self.unlisted), terrain)
    }

    /// True when one of the [`blocked`](Self::blocked) properties is true in `properties`.
    pub fn blocks(&self, properties: &Properties) -> bool {
        self.blocked
            .iter()
            .any(|name| matches!(find(properties, name), Some(PropertyValue::BoolValue(true))))
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
        let (cell, terrain) = match get_tile_from_map(&asset.map, tileset_id.0, tile_id.0) {
            Some(data) => {
                let tileset =
                    get_tileset_from_map(&asset.map, tileset_id.0).map_or("", |t| t.name.as_str());
                rules.tile(tileset, tile_id.0, &data.properties, &data.user_type)
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

/// Lays the blocking objects of maps whose objects were just spawned onto a layer of blocked
/// cells: a cell is blocked when its centre lies inside an object's shape. Waits until the map
/// is navigable (its cells' centres known) and the objects are placed in the world.
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
    mut pending: Local<Vec<(Entity, u8)>>,
) {
    for (object, _, map, ..) in &objects {
        if object.is_added() && !pending.iter().any(|(m, _)| *m == map.0) {
            // Placed in the world (transforms propagated) after this frame.
            pending.push((map.0, 1));
        }
    }
    let waiting = std::mem::take(&mut *pending);
    for (map_entity, wait) in waiting {
        let asset = maps.get(map_entity).ok().and_then(|handle| assets.get(&handle.0));
        let nav_map = nav_maps.get(map_entity);
        let look = looks.iter().find(|look| look.0.0 == map_entity);
        let (Some(asset), Some(nav_map), Some(look), 0) = (asset, nav_map, look, wait) else {
            if maps.contains(map_entity) {
                pending.push((map_entity, wait.saturating_sub(1)));
            }
            continue;
        };
        let mut blocked: Vec<TilePos> = Vec::new();
        for (object, object_id, map, parent, transform) in &objects {
            if map.0 != map_entity {
                continue;
            }
            let Some(data) = get_object_from_map(&asset.map, object_id.0) else {
                continue;
            };
            let layer_blocks = layer_ids
                .get(parent.parent())
                .ok()
                .and_then(|id| get_layer_from_map(&asset.map, id.0))
                .is_some_and(|layer| rules.blocks(&layer.properties));
            if !(layer_blocks || rules.blocks(&data.properties)) {
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
