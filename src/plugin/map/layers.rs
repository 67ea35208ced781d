//! The layers behind the maps: each marked tilemap's tiles read into what each position says
//! (its cell, terrain and sides), read again where tiles changed, and grouped into maps.

use bevy::ecs::change_detection::{ContiguousRef, MAX_CHANGE_AGE, Tick};
use bevy::prelude::*;
use bevy_ecs_tilemap::anchor::TilemapAnchor;
use bevy_ecs_tilemap::map::{
    TilemapGridSize, TilemapId, TilemapSize, TilemapTileSize, TilemapType,
};
use bevy_ecs_tilemap::tiles::{TilePos, TileStorage, TileTextureIndex};

use super::components::*;
use super::errors::*;
use super::geometry::*;
use super::model::*;
use crate::grid::{Cell, GridPos, Terrain};

/// What the sync system remembers of one layer, to find what changed.
#[derive(Debug)]
pub(super) struct Layer {
    pub(super) size: UVec2,
    pub(super) map_type: TilemapType,
    /// The storage's tile entities as last seen, index `y * width + x`.
    pub(super) entities: Vec<Option<Entity>>,
    /// What each position of this layer says (its cell, terrain class and sides), index
    /// `y * width + x`.
    pub(super) cells: Vec<Says>,
}

/// What one tile says: its cell, terrain class, and walls and ledges on its sides.
pub(super) type Says = (Cell, Terrain, TileEdges);

/// The layer tilemaps behind the maps, oldest first.
#[derive(Resource, Default, Debug)]
pub(crate) struct NavLayers {
    pub(super) layers: Vec<(Entity, Layer)>,
    pub(super) rules_seen: Option<TileRules>,
}

/// The tiles whose texture changed this frame (the list reused from frame to frame).
#[derive(Default)]
pub(crate) struct ChangedTiles(pub(super) Vec<(TilePos, TilemapId)>);

pub(super) type TileQuery<'w, 's> = Query<
    'w,
    's,
    (
        Option<&'static TileNav>,
        Option<&'static TileTerrain>,
        Option<&'static TileTextureIndex>,
        Option<&'static TileEdges>,
    ),
    With<TilePos>,
>;

pub(super) type TilemapQuery<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        Ref<'static, TileStorage>,
        &'static TilemapSize,
        &'static TilemapGridSize,
        &'static TilemapTileSize,
        Ref<'static, TilemapType>,
        Option<&'static TilemapAnchor>,
        Ref<'static, Transform>,
        Option<&'static NavLayerOf>,
        Option<&'static GlobalTransform>,
        Has<ChildOf>,
    ),
    With<NavTilemap>,
>;

/// Where a tilemap lies in the world: its `Transform`, or for a tilemap that is a child of
/// another entity (as map loaders spawn them), its `GlobalTransform` (a frame late after it is
/// spawned or moved, until Bevy propagates transforms).
pub(super) fn placement(
    transform: &Transform,
    global: Option<&GlobalTransform>,
    child: bool,
) -> Transform {
    match global {
        Some(global) if child => global.compute_transform(),
        _ => *transform,
    }
}

/// Sizes and a placement from which world positions and cells can be worked out: finite
/// sizes above 0, a finite transform with a scale that is not 0.
pub(super) fn sane_geometry(
    grid: &TilemapGridSize,
    tile: &TilemapTileSize,
    placed: &Transform,
) -> bool {
    let size_ok = |v: f32| v.is_finite() && v > 0.0;
    [grid.x, grid.y, tile.x, tile.y].into_iter().all(size_ok)
        && placed.is_finite()
        && placed.scale.x != 0.0
        && placed.scale.y != 0.0
}

pub(super) fn resolve(entity: Option<Entity>, tiles: &TileQuery, rules: &TileRules) -> Says {
    let Some(Ok((nav, terrain, texture, edges))) = entity.map(|e| tiles.get(e)) else {
        return (rules.missing, Terrain::DEFAULT, TileEdges::default());
    };
    let cell = match (nav, texture) {
        (Some(nav), _) => nav.cell(),
        (None, Some(texture)) => rules.cell_for_texture(texture.0),
        (None, None) => rules.unlisted,
    };
    let terrain = match (terrain, texture) {
        (Some(terrain), _) => terrain.0,
        (None, Some(texture)) => rules.terrain_for_texture(texture.0),
        (None, None) => Terrain::DEFAULT,
    };
    (cell, terrain, edges.copied().unwrap_or_default())
}

/// What makes layers one map: an explicit [`NavLayerOf`], or else lying on one another.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum GroupKey {
    Explicit(Entity),
    Placed {
        size: UVec2,
        map_type: TilemapType,
        grid_size: TilemapGridSize,
        tile_size: TilemapTileSize,
        anchor: TilemapAnchor,
        transform: Transform,
    },
}

/// One map's layers this frame (indices into `NavLayers::layers`).
pub(super) struct Group {
    pub(super) key: GroupKey,
    pub(super) map: Entity,
    pub(super) members: Vec<usize>,
}

/// What changed in the layers this frame.
#[derive(Default)]
pub(super) struct Found {
    /// Tiles (layer tilemap, position on it) whose combined cell may have changed.
    pub(super) dirty: Vec<(Entity, GridPos)>,
    /// Layers read whole this frame: their maps are rebuilt whole.
    pub(super) new_layers: Vec<Entity>,
    /// The tile rules changed: every layer was read again, every map is rebuilt whole.
    pub(super) rules_changed: bool,
}

/// The messages of a frame's sync, gathered stage by stage and sent at its end.
#[derive(Default)]
pub(super) struct Told {
    pub(super) changed: Vec<NavGridChanged>,
    pub(super) warnings: Vec<TilemapNavWarning>,
    pub(super) ready: Vec<NavMapReady>,
}

impl Told {
    pub(super) fn warn(&mut self, error: TilemapNavError) {
        self.warnings.push(TilemapNavWarning { error });
    }
}

/// Takes in new layers and reads again layers resized or retyped or whose storage's entities
/// changed; leaves out tilemaps no grid can take (and takes them out if they were in), with a
/// warning when they appear or change. After a change of rules every layer is read again.
pub(super) fn refresh_layers(
    layers: &mut NavLayers,
    tilemaps: &TilemapQuery,
    tiles: &TileQuery,
    rules: &TileRules,
    rules_changed: bool,
    told: &mut Told,
) -> Found {
    let mut found = Found { rules_changed, ..Found::default() };
    // Layers whose tilemap is gone (despawned or unmarked): their maps' layer lists change.
    layers.layers.retain(|(e, _)| tilemaps.contains(*e));
    let mut ordered: Vec<_> = tilemaps.iter().collect();
    ordered
        .sort_by_key(|t| layers.layers.iter().position(|(e, _)| *e == t.0).unwrap_or(usize::MAX));
    for (entity, storage, size, grid_size, tile_size, map_type, _, transform, _, global, child) in
        &ordered
    {
        let size = UVec2::new(size.x, size.y);
        // A storage that does not hold the tiles its size says would make bevy_ecs_tilemap's
        // own lookups panic.
        let cells = u64::from(size.x) * u64::from(size.y);
        let storage_size = UVec2::new(storage.size.x, storage.size.y);
        // Counting the tiles reads the whole storage: only when it or the size changed (an
        // unchanged layer was found consistent when it was taken in).
        let known = layers
            .layers
            .iter()
            .any(|(e, l)| e == entity && l.size == size && l.map_type == **map_type);
        let storage_tiles =
            if known && !storage.is_changed() { cells as usize } else { storage.iter().count() };
        let refusal = if cells == 0 {
            Some((TilemapNavError::Empty { tilemap: *entity }, storage.is_added()))
        } else if storage_size != size || storage_tiles as u64 != cells {
            let error = TilemapNavError::InconsistentSize {
                tilemap: *entity,
                size,
                storage_size,
                storage_tiles,
            };
            Some((error, storage.is_changed()))
        } else if !sane_geometry(grid_size, tile_size, &placement(transform, *global, *child)) {
            let error = TilemapNavError::BadGeometry { tilemap: *entity };
            Some((error, storage.is_added() || transform.is_changed()))
        } else if grid_dims(**map_type, size)
            .is_none_or(|d| u64::from(d.x) * u64::from(d.y) > crate::grid::MAX_CELLS)
        {
            Some((TilemapNavError::TooLarge { tilemap: *entity, size }, storage.is_added()))
        } else {
            None
        };
        if let Some((error, say_so)) = refusal {
            layers.layers.retain(|(e, _)| e != entity);
            if say_so {
                told.warn(error);
            }
            continue;
        }
        let at = layers.layers.iter().position(|(e, _)| e == entity);
        if let Some(k) = at
            && layers.layers[k].1.size == size
            && layers.layers[k].1.map_type == **map_type
        {
            if storage.is_changed() && !rules_changed {
                let layer = &mut layers.layers[k].1;
                read_changed_entities(layer, *entity, storage, tiles, rules, &mut found.dirty);
            }
            continue;
        }
        // New, or resized or retyped: read whole (in its place, keeping its age).
        match read_layer(size, **map_type, storage, tiles, rules) {
            Some(layer) => {
                match at {
                    Some(k) => layers.layers[k].1 = layer,
                    None => layers.layers.push((*entity, layer)),
                }
                found.new_layers.push(*entity);
            }
            None => {
                if storage.is_added() {
                    told.warn(TilemapNavError::TooLarge { tilemap: *entity, size });
                }
                if let Some(k) = at {
                    layers.layers.remove(k);
                }
            }
        }
    }
    if rules_changed {
        for (_, layer) in layers.layers.iter_mut().filter(|(e, _)| !found.new_layers.contains(e)) {
            for (cell, e) in layer.cells.iter_mut().zip(&layer.entities) {
                *cell = resolve(*e, tiles, rules);
            }
        }
    }
    found
}

/// A layer read whole from its storage; `None` if memory for it is refused.
pub(super) fn read_layer(
    size: UVec2,
    map_type: TilemapType,
    storage: &TileStorage,
    tiles: &TileQuery,
    rules: &TileRules,
) -> Option<Layer> {
    let mut layer = Layer { size, map_type, entities: Vec::new(), cells: Vec::new() };
    let count = size.x as usize * size.y as usize;
    layer.entities.try_reserve_exact(count).ok()?;
    layer.cells.try_reserve_exact(count).ok()?;
    for y in 0..size.y {
        for x in 0..size.x {
            let e = storage.checked_get(&TilePos::new(x, y));
            layer.entities.push(e);
            layer.cells.push(resolve(e, tiles, rules));
        }
    }
    Some(layer)
}

/// A layer whose storage changed: the positions that hold another tile entity are read again.
pub(super) fn read_changed_entities(
    layer: &mut Layer,
    entity: Entity,
    storage: &TileStorage,
    tiles: &TileQuery,
    rules: &TileRules,
    dirty: &mut Vec<(Entity, GridPos)>,
) {
    let width = layer.size.x as usize;
    for y in 0..layer.size.y {
        for x in 0..layer.size.x {
            let e = storage.checked_get(&TilePos::new(x, y));
            let i = y as usize * width + x as usize;
            if layer.entities[i] != e {
                layer.entities[i] = e;
                layer.cells[i] = resolve(e, tiles, rules);
                dirty.push((entity, GridPos::new(x, y)));
            }
        }
    }
}

/// Reads again the tiles at these positions of their layers; those that say something else now
/// are recorded in `dirty`.
pub(super) fn touch_tiles(
    layers: &mut NavLayers,
    touched: &[(TilePos, TilemapId)],
    tiles: &TileQuery,
    rules: &TileRules,
    dirty: &mut Vec<(Entity, GridPos)>,
) {
    for (pos, map) in touched {
        if let Some((_, layer)) = layers.layers.iter_mut().find(|(e, _)| *e == map.0)
            && pos.x < layer.size.x
            && pos.y < layer.size.y
        {
            let k = pos.y as usize * layer.size.x as usize + pos.x as usize;
            let cell = resolve(layer.entities[k], tiles, rules);
            if layer.cells[k] != cell {
                layer.cells[k] = cell;
                dirty.push((map.0, GridPos::new(pos.x, pos.y)));
            }
        }
    }
}

/// Layers into maps, oldest layer first. A tilemap that some `NavLayerOf` names is in that map
/// too, whether or not it carries one itself. A layer whose size or map type differs from its
/// map's first layer is left out, with a warning when it appears or changes.
pub(super) fn group_layers(
    layers: &NavLayers,
    tilemaps: &TilemapQuery,
    new_layers: &[Entity],
    told: &mut Told,
) -> Vec<Group> {
    let named: Vec<Entity> =
        tilemaps.iter().filter_map(|t| t.8.map(|layer_of| layer_of.0)).collect();
    let mut groups: Vec<Group> = Vec::new();
    for (index, (entity, layer)) in layers.layers.iter().enumerate() {
        let Ok((
            _,
            _,
            _,
            grid_size,
            tile_size,
            map_type,
            anchor,
            transform,
            layer_of,
            global,
            child,
        )) = tilemaps.get(*entity)
        else {
            continue;
        };
        let key = match layer_of {
            Some(NavLayerOf(map)) => GroupKey::Explicit(*map),
            None if named.contains(entity) => GroupKey::Explicit(*entity),
            None => GroupKey::Placed {
                size: layer.size,
                map_type: layer.map_type,
                grid_size: *grid_size,
                tile_size: *tile_size,
                anchor: anchor.copied().unwrap_or_default(),
                transform: placement(&transform, global, child),
            },
        };
        let Some(group) = groups.iter_mut().find(|g| g.key == key) else {
            let map = match key {
                GroupKey::Explicit(map) => map,
                GroupKey::Placed { .. } => *entity,
            };
            groups.push(Group { key, map, members: vec![index] });
            continue;
        };
        let first = &layers.layers[group.members[0]].1;
        let say_so = new_layers.contains(entity) || map_type.is_changed();
        let mismatch = if layer.size != first.size {
            Some(TilemapNavError::SizeMismatch {
                tilemap: *entity,
                expected: first.size,
                found: layer.size,
            })
        } else if layer.map_type != first.map_type {
            Some(TilemapNavError::MapTypeMismatch {
                tilemap: *entity,
                expected: first.map_type,
                found: layer.map_type,
            })
        } else {
            None
        };
        match mismatch {
            Some(error) if say_so => told.warn(error),
            Some(_) => {}
            None => group.members.push(index),
        }
    }
    groups
}

/// The tiles whose texture changed since the sync last ran, into `list`. Bevy's `Changed` filter
/// tests one tile at a time; here the change ticks are read a table at a time, as slices, and a
/// block of them is tested at once (a loop the compiler turns into vector code), so that a map
/// where nothing changed costs a pass over its ticks and little more.
pub(super) fn changed_textures(
    tiles: &Query<(Ref<TileTextureIndex>, &TilePos, &TilemapId)>,
    list: &mut Vec<(TilePos, TilemapId)>,
) {
    const BLOCK: usize = 64;
    let Ok(tables) = tiles.contiguous_iter() else {
        // (Never for these components, which live in tables: a sure way all the same.)
        let changed = tiles.iter().filter(|(texture, _, _)| texture.is_changed());
        list.extend(changed.map(|(_, pos, map)| (*pos, *map)));
        return;
    };
    for (textures, positions, maps) in tables {
        let (_, ticks) = ContiguousRef::split(textures);
        // Changed since the last run: `is_newer_than`, with the clamp to `MAX_CHANGE_AGE` left
        // out, which cannot alter the answer (the age since the last run is at most that).
        let now = ticks.this_run().get();
        let since_last = now.wrapping_sub(ticks.last_run().get()).min(MAX_CHANGE_AGE);
        let changed = |tick: &Tick| now.wrapping_sub(tick.get()) < since_last;
        for (block, ticks) in ticks.changed().chunks(BLOCK).enumerate() {
            if !ticks.iter().fold(false, |any, tick| any | changed(tick)) {
                continue;
            }
            for (i, tick) in ticks.iter().enumerate() {
                if changed(tick) {
                    let row = block * BLOCK + i;
                    list.push((positions[row], maps[row]));
                }
            }
        }
    }
}
