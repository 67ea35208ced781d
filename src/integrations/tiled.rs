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
//! Walls between tiles and ledges ([`TileEdges`]):
//! - tile properties `nav_walls` and `nav_drops` (strings naming sides, `"north, east"`, as
//!   [`Sides::parse`](crate::grid::Sides::parse) reads them; north is up on the screen): a
//!   wall on those sides of the tile, or a ledge to drop off by them;
//! - on orthogonal maps, lines (polylines, or polygons' outlines) drawn along cell edges: with
//!   `nav_wall` (bool) true on the object or its layer every edge they run along is a wall;
//!   with `nav_drop` (a side, `"south"`) a one-way edge crossed only towards that side.
//!
//! Collision shapes, as maps made for physics draw their walls, block too
//! ([`TiledNavRules::colliders`], on by default):
//! - a tile whose collision shapes (drawn in the tileset editor) cover the centre of the cell
//!   it is drawn on is blocked, when no property or rule above says what it is;
//! - every object of an object layer named "Colliders", "Collisions", "Collider" or
//!   "Collision" ([`TiledNavRules::collider_layers`], any case) blocks, unless it or its layer
//!   sets `nav_blocked` to false.
//!
//! A map with the bool map property `nav_side_view` ([`TiledNavRules::side_view`]) is a
//! side-view level instead (a platformer's): a [`SideViewLevel`] on the map's entity, each
//! tile by [`TiledNavRules::side_tile`] (`nav_side`, `nav_blocked`, its class, its collision
//! shapes), layers stacked, blocking objects solid ([`read_side_view`]).
//!
//! A map is served once it is complete: from when its `TiledMap` is spawned (or respawned)
//! until its objects are laid on the grid it has [`NavMapLoading`]; requests that need it wait,
//! and a [`NavMapReady`](crate::plugin::NavMapReady) message says when it is served.
//!
//! A map respawned or reloaded by `bevy_ecs_tiled` is read again; a map despawned leaves the
//! navigation with its tilemaps. The rules are read when tiles and objects spawn: after changing
//! [`TiledNavRules`], respawn the map (`RespawnTiledMap`).

use bevy::prelude::*;
use bevy_ecs_tiled::prelude::*;

use crate::grid::{Cell, Edge, GridPos, Sides, Terrain};
pub use crate::io::tiled::TiledNavRules;
use crate::io::tiled::{inside, read_side_view};
use crate::plugin::{
    NavLayerOf, NavMapLoading, NavMaps, NavSet, NavTilemap, SideViewLevel, TileEdges, TileNav,
    TileTerrain,
};

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
                side_view_maps.before(NavSet::SyncGrid),
            ),
        );
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
    let side_view = |map: Entity| {
        map_asset(&maps, &assets, map).is_some_and(|asset| rules.is_side_view(&asset.map))
    };
    for (tilemap, map) in &new_tilemaps {
        if !side_view(map.0) {
            commands.entity(tilemap).insert((NavTilemap, NavLayerOf(map.0)));
        }
    }
    for (tile, tileset_id, tile_id, tilemap) in &new_tiles {
        let Some(asset) =
            references.get(tilemap.0).ok().and_then(|m| map_asset(&maps, &assets, m.0))
        else {
            continue;
        };
        if rules.is_side_view(&asset.map) {
            continue; // read whole by `side_view_maps`
        }
        let map = &asset.map;
        let tileset = map.tilesets().get(tileset_id.0 as usize);
        let data = tileset.and_then(|tileset| Some((tileset, tileset.get_tile(tile_id.0)?)));
        let (cell, terrain) = match &data {
            Some((tileset, data)) => rules.map_tile(map, tileset, tile_id.0, data),
            None => (rules.unlisted, Terrain::DEFAULT),
        };
        if let Some((_, data)) = &data {
            let (walls, drops) = rules.tile_sides(&data.properties);
            let edges = TileEdges { walls, drops };
            if !edges.is_empty() {
                commands.entity(tile).insert(edges);
            }
        }
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

type NewSideTilemaps<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static TiledMapReference,
        &'static TilemapSize,
        &'static TilemapGridSize,
        &'static TilemapTileSize,
        &'static TilemapType,
        Option<&'static TilemapAnchor>,
    ),
    Added<TiledTilemap>,
>;

/// Makes a [`SideViewLevel`] on each Tiled map that is a side-view level (a map property
/// `nav_side_view` true: [`TiledNavRules::side_view`]) when its tilemaps spawn: its tiles
/// read from the whole map by [`read_side_view`] (tiles by [`TiledNavRules::side_tile`],
/// layers stacked, blocking objects solid), tile (0, 0) where bevy_ecs_tiled draws it.
fn side_view_maps(
    mut commands: Commands,
    rules: Res<TiledNavRules>,
    assets: Res<Assets<TiledMapAsset>>,
    maps: Query<&TiledMap>,
    new_tilemaps: NewSideTilemaps,
    placed: Query<(&Transform, Option<&ChildOf>)>,
) {
    let mut made: Vec<Entity> = Vec::new();
    for (tilemap, map, size, grid, tile_size, map_type, anchor) in &new_tilemaps {
        let Some(asset) = map_asset(&maps, &assets, map.0) else {
            continue;
        };
        if made.contains(&map.0) || !rules.is_side_view(&asset.map) {
            continue;
        }
        made.push(map.0);
        let Ok(read) = read_side_view(&asset.map, &rules) else {
            continue; // a map type or size no side-view level takes: nothing navigates
        };
        // Tile (0, 0)'s centre from the map entity: the tilemap's own offset, and its
        // parents' up to the map.
        let mut offset = Vec2::ZERO;
        let mut at = tilemap;
        while at != map.0 {
            let Ok((transform, parent)) = placed.get(at) else { break };
            offset += transform.translation.truncate();
            let Some(parent) = parent else { break };
            at = parent.parent();
        }
        let anchor = anchor.copied().unwrap_or_default();
        let centre =
            TilePos { x: 0, y: 0 }.center_in_world(size, grid, tile_size, map_type, &anchor);
        let mut level = SideViewLevel::new(read.map, read.tile_size);
        level.origin = offset + centre;
        commands.entity(map.0).insert(level);
    }
}

/// The tilemap that carries the cells a map's objects block, and the walls and ledges its line
/// objects lay: one more layer of that map, made by [`TiledNavPlugin`] as a child of the map (a
/// tile with [`TileNav::Blocked`] on each blocked cell, a tile with [`TileEdges`] beside each
/// wall or ledge, nothing elsewhere; not drawn).
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
        let asset = map_asset(&maps, &assets, map_entity);
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
        // Walls and ledges that line objects lay on the sides of tiles.
        let mut edged: Vec<(TilePos, TileEdges)> = Vec::new();
        for (object, object_id, map, parent, transform) in &objects {
            if map.0 != map_entity {
                continue;
            }
            let Some(data) = object_by_id(asset.map.layers(), object_id.0) else {
                continue;
            };
            let layer = layer_ids
                .get(parent.parent())
                .ok()
                .and_then(|id| layer_by_id(asset.map.layers(), id.0));
            if asset.map.orientation == tiled::Orientation::Orthogonal {
                let cell = Vec2::new(asset.map.tile_width as f32, asset.map.tile_height as f32);
                let none = tiled::Properties::new();
                let layer_properties = layer.as_ref().map_or(&none, |layer| &layer.properties);
                let lines = rules.line_edges(&data, layer_properties, cell, asset.map.height);
                for (from, to, edge) in lines {
                    let Some(tile) = nav_map.geometry.cell_to_tile(from) else { continue };
                    let Some(side) = side_towards(from, to) else { continue };
                    let edges = match edge {
                        Edge::Wall => TileEdges { walls: side, drops: Sides::NONE },
                        _ => TileEdges { walls: Sides::NONE, drops: side },
                    };
                    edged.push((tile, edges));
                }
            }
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
        if blocked.is_empty() && edged.is_empty() {
            continue;
        }
        blocked.sort_unstable_by_key(|t| (t.y, t.x));
        blocked.dedup();
        edged.sort_unstable_by_key(|(t, _)| (t.y, t.x));
        // One tile per position: the sides of all the lines along it.
        let mut sides: Vec<(TilePos, TileEdges)> = Vec::new();
        for (pos, edges) in edged {
            match sides.last_mut() {
                Some((last, all)) if *last == pos => *all = all.and(edges),
                _ => sides.push((pos, edges)),
            }
        }
        let (_, size, grid_size, tile_size, map_type, anchor) = look;
        let layer = commands.spawn_empty().id();
        let mut storage = TileStorage::empty(*size);
        for &pos in &blocked {
            let tile = commands.spawn((pos, TilemapId(layer), TileNav::Blocked)).id();
            storage.set(&pos, tile);
        }
        for (pos, edges) in sides {
            if pos.x >= size.x || pos.y >= size.y {
                continue;
            }
            match storage.get(&pos) {
                Some(tile) => {
                    commands.entity(tile).insert(edges);
                }
                None => {
                    // Ground of cost 1 adds nothing to the layers under it: only the sides.
                    let tile = (pos, TilemapId(layer), TileNav::Cost(1), edges);
                    let tile = commands.spawn(tile).id();
                    storage.set(&pos, tile);
                }
            }
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

/// The loaded asset of the Tiled map whose `TiledMap` entity is `map`.
fn map_asset<'a>(
    maps: &Query<&TiledMap>,
    assets: &'a Assets<TiledMapAsset>,
    map: Entity,
) -> Option<&'a TiledMapAsset> {
    maps.get(map).ok().and_then(|handle| assets.get(&handle.0))
}

/// The side of square cell `from` that its neighbour `to` lies across.
fn side_towards(from: GridPos, to: GridPos) -> Option<Sides> {
    let (dx, dy) = (i64::from(to.x) - i64::from(from.x), i64::from(to.y) - i64::from(from.y));
    match (dx, dy) {
        (1, 0) => Some(Sides::EAST),
        (-1, 0) => Some(Sides::WEST),
        (0, 1) => Some(Sides::NORTH),
        (0, -1) => Some(Sides::SOUTH),
        _ => None,
    }
}

// Lookups by the ids bevy_ecs_tiled's components carry, on the `tiled` crate's own API:
// bevy_ecs_tiled's helpers for these were renamed between its releases for Bevy 0.19 and 0.20
// (`get_layer_from_map` became `layer_from_map`), and these keep one source for both.

/// The layer with id `id` among `layers` and, depth first, the layers of their groups.
fn layer_by_id<'map>(
    mut layers: impl Iterator<Item = tiled::Layer<'map>>,
    id: u32,
) -> Option<tiled::Layer<'map>> {
    layers.find_map(|layer| match layer.layer_type() {
        tiled::LayerType::Group(group) => layer_by_id(group.layers(), id),
        _ => (layer.id() == id).then_some(layer),
    })
}

/// The object with id `id` in the object layers among `layers` and their groups.
fn object_by_id<'map>(
    mut layers: impl Iterator<Item = tiled::Layer<'map>>,
    id: u32,
) -> Option<tiled::Object<'map>> {
    layers.find_map(|layer| match layer.layer_type() {
        tiled::LayerType::Group(group) => object_by_id(group.layers(), id),
        tiled::LayerType::Objects(objects) => objects.objects().find(|o| o.id() == id),
        _ => None,
    })
}
