//! The tile sync system: tilemaps (and [`NavGridMap`](crate::plugin::NavGridMap)s) to navigation maps
//! each frame, cell by cell where tiles changed.

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
use crate::grid::{Cell, GridPos, NavGrid, Sides, Terrain};
use crate::io::baked::{expect_size, expect_topology};
use crate::plugin::diagnostics::{NavDiagnostics, Stopwatch};
use crate::plugin::settings::NavSettings;

/// What the sync system remembers of one layer, to find what changed.
#[derive(Debug)]
struct Layer {
    size: UVec2,
    map_type: TilemapType,
    /// The storage's tile entities as last seen, index `y * width + x`.
    entities: Vec<Option<Entity>>,
    /// What each position of this layer says (its cell, terrain class and sides), index
    /// `y * width + x`.
    cells: Vec<Says>,
}

/// What one tile says: its cell, terrain class, and walls and ledges on its sides.
type Says = (Cell, Terrain, TileEdges);

/// The layer tilemaps behind the maps, oldest first.
#[derive(Resource, Default, Debug)]
pub(crate) struct NavLayers {
    layers: Vec<(Entity, Layer)>,
    rules_seen: Option<TileRules>,
}

/// The tiles whose texture changed this frame (the list reused from frame to frame).
#[derive(Default)]
pub(crate) struct ChangedTiles(Vec<(TilePos, TilemapId)>);

type TileQuery<'w, 's> = Query<
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

type TilemapQuery<'w, 's> = Query<
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
fn placement(transform: &Transform, global: Option<&GlobalTransform>, child: bool) -> Transform {
    match global {
        Some(global) if child => global.compute_transform(),
        _ => *transform,
    }
}

/// Sizes and a placement from which world positions and cells can be worked out: finite
/// sizes above 0, a finite transform with a scale that is not 0.
fn sane_geometry(grid: &TilemapGridSize, tile: &TilemapTileSize, placed: &Transform) -> bool {
    let size_ok = |v: f32| v.is_finite() && v > 0.0;
    [grid.x, grid.y, tile.x, tile.y].into_iter().all(size_ok)
        && placed.is_finite()
        && placed.scale.x != 0.0
        && placed.scale.y != 0.0
}

fn resolve(entity: Option<Entity>, tiles: &TileQuery, rules: &TileRules) -> Says {
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
enum GroupKey {
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

/// Maps made from a grid ([`NavGridMap`]), with their placement.
type GridMaps<'w, 's> =
    Query<'w, 's, (Entity, Ref<'static, NavGridMap>, Option<Ref<'static, Transform>>)>;

/// One map's layers this frame (indices into `NavLayers::layers`).
struct Group {
    key: GroupKey,
    map: Entity,
    members: Vec<usize>,
}

/// The grid sync system: keeps [`NavMaps`] in step with the marked tilemaps, a map per group of
/// layers. Unchanged cells cost nothing; a map's changed cells are written and reported in one
/// [`NavGridChanged`] message.
#[allow(clippy::too_many_arguments)]
pub(crate) fn sync_nav_grid(
    mut layers: ResMut<NavLayers>,
    mut maps: ResMut<NavMaps>,
    settings: Res<NavSettings>,
    rules: Res<TileRules>,
    baked: Option<Res<BakedNavGrid>>,
    tilemaps: TilemapQuery,
    tiles: TileQuery,
    changed_tiles: Query<(Ref<TileTextureIndex>, &TilePos, &TilemapId)>,
    (mut changed_scratch, mut diagnostics): (Local<ChangedTiles>, ResMut<NavDiagnostics>),
    mut inserted_overrides: ResMut<InsertedOverrides>,
    (mut removed_overrides, mut removed_terrain, mut removed_edges): (
        RemovedComponents<TileNav>,
        RemovedComponents<TileTerrain>,
        RemovedComponents<TileEdges>,
    ),
    all_tiles: Query<(&TilePos, &TilemapId)>,
    mut changed: MessageWriter<NavGridChanged>,
    mut warnings: MessageWriter<TilemapNavWarning>,
    (loading, mut ready, grid_maps): (
        Query<Entity, With<NavMapLoading>>,
        MessageWriter<NavMapReady>,
        GridMaps,
    ),
) {
    // The first of the plugin's systems: it begins the frame's diagnostics.
    *diagnostics = NavDiagnostics::default();
    let _clock = Stopwatch::start(&mut diagnostics.sync_time);
    // Tiles (layer tilemap, position on it) whose combined cell may have changed.
    let mut dirty: Vec<(Entity, GridPos)> = Vec::new();
    // Layers read whole this frame: their maps are rebuilt whole.
    let mut new_layers: Vec<Entity> = Vec::new();

    // Layers whose tilemap is gone (despawned or unmarked): their maps' layer lists change.
    layers.layers.retain(|(e, _)| tilemaps.contains(*e));

    // Rules changed: every cell of every layer may read differently.
    let rules_changed = layers.rules_seen.as_ref() != Some(&*rules);
    if rules_changed {
        layers.rules_seen = Some(rules.clone());
    }

    // New layers, resized or retyped layers, and storages whose entities changed.
    let mut ordered: Vec<_> = tilemaps.iter().collect();
    ordered
        .sort_by_key(|t| layers.layers.iter().position(|(e, _)| *e == t.0).unwrap_or(usize::MAX));
    for (entity, storage, size, grid_size, tile_size, map_type, _, transform, _, global, child) in
        &ordered
    {
        let size = UVec2::new(size.x, size.y);
        // Tilemaps no grid can take are left out (and taken out if they were in), with a
        // warning when they appear or change. A storage that does not hold the tiles its size
        // says would make bevy_ecs_tilemap's own lookups panic.
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
                warnings.write(TilemapNavWarning { error });
            }
            continue;
        }
        let width = size.x as usize;
        let read = |x: usize, y: usize| storage.checked_get(&TilePos::new(x as u32, y as u32));
        let at = layers.layers.iter().position(|(e, _)| e == entity);
        if let Some(k) = at
            && layers.layers[k].1.size == size
            && layers.layers[k].1.map_type == **map_type
        {
            if storage.is_changed() && !rules_changed {
                let layer = &mut layers.layers[k].1;
                for y in 0..size.y as usize {
                    for x in 0..width {
                        let e = read(x, y);
                        let i = y * width + x;
                        if layer.entities[i] != e {
                            layer.entities[i] = e;
                            layer.cells[i] = resolve(e, &tiles, &rules);
                            dirty.push((*entity, GridPos::new(x as u32, y as u32)));
                        }
                    }
                }
            }
            continue;
        }
        // New, or resized or retyped: read whole (in its place, keeping its age).
        let mut layer =
            Layer { size, map_type: **map_type, entities: Vec::new(), cells: Vec::new() };
        let count = width * size.y as usize;
        if layer.entities.try_reserve_exact(count).is_err()
            || layer.cells.try_reserve_exact(count).is_err()
        {
            if storage.is_added() {
                warnings.write(TilemapNavWarning {
                    error: TilemapNavError::TooLarge { tilemap: *entity, size },
                });
            }
            if let Some(k) = at {
                layers.layers.remove(k);
            }
            continue;
        }
        for y in 0..size.y as usize {
            for x in 0..width {
                let e = read(x, y);
                layer.entities.push(e);
                layer.cells.push(resolve(e, &tiles, &rules));
            }
        }
        match at {
            Some(k) => layers.layers[k].1 = layer,
            None => layers.layers.push((*entity, layer)),
        }
        new_layers.push(*entity);
    }

    if rules_changed {
        for (_, layer) in layers.layers.iter_mut().filter(|(e, _)| !new_layers.contains(e)) {
            for (cell, e) in layer.cells.iter_mut().zip(&layer.entities) {
                *cell = resolve(*e, &tiles, &rules);
            }
        }
    }

    // Tiles whose texture or override changed, or whose override was removed.
    let mut touch = |pos: &TilePos, map: &TilemapId, layers: &mut NavLayers| {
        if let Some((_, layer)) = layers.layers.iter_mut().find(|(e, _)| *e == map.0)
            && pos.x < layer.size.x
            && pos.y < layer.size.y
        {
            let k = pos.y as usize * layer.size.x as usize + pos.x as usize;
            let cell = resolve(layer.entities[k], &tiles, &rules);
            if layer.cells[k] != cell {
                layer.cells[k] = cell;
                dirty.push((map.0, GridPos::new(pos.x, pos.y)));
            }
        }
    };
    // (Every tile of a new layer counts as changed; it was just read, so is skipped. After a
    // change of rules every layer was read again.)
    if !rules_changed {
        // Finding the changed textures reads a change tick per tile of every layer, each
        // frame: on a 512 x 512 map that is most of this system's time. One thread does it: on
        // 2 cores, sharing it (`par_iter`) cost more in wake-ups than it saved (crowd_bench).
        let list = &mut changed_scratch.0;
        list.clear();
        changed_textures(&changed_tiles, list);
        for (pos, map) in list.iter() {
            if !new_layers.contains(&map.0) {
                touch(pos, map, &mut layers);
            }
        }
    }
    let removed =
        removed_overrides.read().chain(removed_terrain.read()).chain(removed_edges.read());
    for entity in inserted_overrides.0.drain(..).chain(removed) {
        if let Ok((pos, map)) = all_tiles.get(entity) {
            touch(pos, map, &mut layers);
        }
    }

    // Layers into maps, oldest layer first. A tilemap that some `NavLayerOf` names is in that
    // map too, whether or not it carries one itself.
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
        match groups.iter_mut().find(|g| g.key == key) {
            Some(group) => {
                let first = &layers.layers[group.members[0]].1;
                let say_so = new_layers.contains(entity) || map_type.is_changed();
                if layer.size != first.size {
                    let error = TilemapNavError::SizeMismatch {
                        tilemap: *entity,
                        expected: first.size,
                        found: layer.size,
                    };
                    if say_so {
                        warnings.write(TilemapNavWarning { error });
                    }
                } else if layer.map_type != first.map_type {
                    let error = TilemapNavError::MapTypeMismatch {
                        tilemap: *entity,
                        expected: first.map_type,
                        found: layer.map_type,
                    };
                    if say_so {
                        warnings.write(TilemapNavWarning { error });
                    }
                } else {
                    group.members.push(index);
                }
            }
            None => {
                let map = match key {
                    GroupKey::Explicit(map) => map,
                    GroupKey::Placed { .. } => *entity,
                };
                groups.push(Group { key, map, members: vec![index] });
            }
        }
    }

    // Each group's map, kept or built; maps whose group is gone are dropped.
    let served_before: Vec<Entity> = maps.maps.iter().map(|m| m.entity).collect();
    let held_before: Vec<Entity> = maps.held.iter().map(|m| m.entity).collect();
    let mut old_maps = std::mem::take(&mut maps.maps);
    old_maps.append(&mut maps.held);
    for (g, group) in groups.iter().enumerate() {
        let members: Vec<(Entity, &Layer)> =
            group.members.iter().map(|&i| (layers.layers[i].0, &layers.layers[i].1)).collect();
        let (first_entity, first_layer) = members[0];
        let Ok((_, _, size, grid_size, tile_size, map_type, anchor, transform, _, global, child)) =
            tilemaps.get(first_entity)
        else {
            continue;
        };
        let geometry = NavGeometry::new(
            first_entity,
            *size,
            *grid_size,
            *tile_size,
            *map_type,
            anchor.copied().unwrap_or_default(),
            placement(&transform, global, child),
        );
        let layer_entities: Vec<Entity> = members.iter().map(|(e, _)| *e).collect();
        let mut old =
            old_maps.iter().position(|m| m.entity == group.map).map(|k| old_maps.swap_remove(k));
        // The grids kept for kinds of agents follow the map's grid (`keep_agent_grids`).
        let agents = old.as_mut().map(|m| std::mem::take(&mut m.agents)).unwrap_or_default();
        // So does what is precomputed for it (current while the grid's stamp is unchanged).
        let precomputed = old.as_mut().and_then(|m| m.precomputed.take());
        let (size, map_type) = (first_layer.size, first_layer.map_type);
        let neighborhood = neighborhood_for(map_type, settings.neighborhood);
        // Every size was checked above.
        let Some(dims) = grid_dims(map_type, size) else {
            continue;
        };
        let tile_index = |pos: GridPos| pos.y as usize * size.x as usize + pos.x as usize;
        let combine = |k: usize| -> Says {
            let start = (Cell::GROUND, Terrain::DEFAULT, TileEdges::default());
            members.iter().fold(start, |(cell, terrain, edges), (_, l)| {
                let (here, class, sides) = l.cells[k];
                let cell = cell.stacked(here);
                (cell, if class == Terrain::DEFAULT { terrain } else { class }, edges.and(sides))
            })
        };
        // Walls and ledges between tiles: the sides of the cell's tile in every layer.
        // (Read whole only when a map is built whole: a frame's changes look at their own tiles.)
        let has_edges = || members.iter().any(|(_, l)| l.cells.iter().any(|c| !c.2.is_empty()));
        let sides = |cell: GridPos| {
            let tile = cell_tile(map_type, size, cell);
            tile.map_or((Sides::NONE, Sides::NONE), |t| {
                let edges = combine(tile_index(t)).2;
                (edges.walls, edges.drops)
            })
        };
        let all_tiles =
            || (0..size.y).flat_map(move |y| (0..size.x).map(move |x| GridPos::new(x, y)));
        let rebuild = rules_changed
            || layer_entities.iter().any(|e| new_layers.contains(e))
            || old.as_ref().is_none_or(|m| {
                m.layers != layer_entities || (m.grid.width(), m.grid.height()) != (dims.x, dims.y)
            });
        let grid = match old {
            Some(NavMap { mut grid, .. }) if (grid.width(), grid.height()) == (dims.x, dims.y) => {
                if grid.neighborhood() != neighborhood {
                    grid.set_neighborhood(neighborhood);
                }
                if grid.corner_rule() != settings.corner_rule {
                    grid.set_corner_rule(settings.corner_rule);
                }
                let mut tiles_to_check: Vec<GridPos> = if rebuild {
                    all_tiles().collect()
                } else {
                    dirty
                        .iter()
                        .filter(|(e, _)| layer_entities.contains(e))
                        .map(|&(_, pos)| pos)
                        .collect()
                };
                tiles_to_check.sort_unstable();
                tiles_to_check.dedup();
                let checked: Vec<GridPos> =
                    tiles_to_check.iter().map(|t| tile_cell(map_type, t.x, t.y)).collect();
                let changes: Vec<(GridPos, (Cell, Terrain))> = tiles_to_check
                    .into_iter()
                    .map(|tile| {
                        let (cell, terrain, _) = combine(tile_index(tile));
                        (tile_cell(map_type, tile.x, tile.y), (cell, terrain))
                    })
                    .filter(|&(pos, (cell, terrain))| {
                        grid.get(pos) != Some(cell) || grid.terrain(pos) != Some(terrain)
                    })
                    .collect();
                // The cells whose sides changed are reported with the others.
                let mut cells: Vec<GridPos> = changes.iter().map(|&(pos, _)| pos).collect();
                // A grid with no edges gets some only from a changed tile that has sides (a
                // neighbour's sides were laid when it was).
                let edged = |pos: &GridPos| sides(*pos) != (Sides::NONE, Sides::NONE);
                if grid.has_edges() || checked.iter().any(edged) {
                    for &pos in &checked {
                        let before = grid.revision();
                        grid.set_sides([pos], sides);
                        if grid.revision() != before {
                            cells.push(pos);
                        }
                    }
                }
                if !changes.is_empty() {
                    // One call for the frame's changes: when they are many (a layer added or
                    // removed, a level rewritten) the search's bits are rebuilt once rather
                    // than round each cell. Every combined cell is valid and every position is
                    // on the grid (the layers have its size), so this cannot fail.
                    let _ = grid.set_all(changes.iter().map(|&(pos, (cell, _))| (pos, cell)));
                    let _ = grid.set_all_terrain(changes.iter().map(|&(pos, (_, t))| (pos, t)));
                }
                if !cells.is_empty() {
                    cells.sort_unstable();
                    cells.dedup();
                    changed.write(NavGridChanged { map: group.map, cells });
                }
                grid
            }
            _ => {
                // A new map, or one that changed size: the first map starts from baked data
                // if it fits, any other is built whole from its tiles.
                let baked =
                    baked.as_deref().filter(|_| g == 0).and_then(|baked| {
                        match expect_size(&baked.0, dims.x, dims.y)
                            .and_then(|()| expect_topology(&baked.0, neighborhood))
                        {
                            Ok(()) => Some(baked.0.clone()),
                            Err(error) => {
                                warnings.write(TilemapNavWarning {
                                    error: TilemapNavError::Baked(error),
                                });
                                None
                            }
                        }
                    });
                let grid = match baked {
                    Some(grid) => grid,
                    None => {
                        // Start all walls (no jump point bits to compute), so that setting
                        // the cells builds the bits once.
                        let Ok(mut fresh) = NavGrid::filled(dims.x, dims.y, Cell::Blocked) else {
                            // Memory refused: say so rather than abort.
                            warnings.write(TilemapNavWarning {
                                error: TilemapNavError::TooLarge { tilemap: first_entity, size },
                            });
                            continue;
                        };
                        fresh.set_neighborhood(neighborhood);
                        fresh.set_corner_rule(settings.corner_rule);
                        let tiles: Vec<(GridPos, (Cell, Terrain))> = all_tiles()
                            .map(|tile| {
                                let (cell, terrain, _) = combine(tile_index(tile));
                                (tile_cell(map_type, tile.x, tile.y), (cell, terrain))
                            })
                            .collect();
                        if has_edges() {
                            fresh.set_sides(tiles.iter().map(|&(pos, _)| pos), sides);
                        }
                        // Every combined cell is valid (layer costs of 0 read as 1), so this
                        // cannot fail.
                        let _ = fresh.set_all(tiles.iter().map(|&(pos, (cell, _))| (pos, cell)));
                        let _ = fresh.set_all_terrain(
                            tiles.iter().map(|&(pos, (_, t))| (pos, t)).filter(|(_, t)| t.0 != 0),
                        );
                        fresh
                    }
                };
                changed.write(NavGridChanged { map: group.map, cells: grid.positions().collect() });
                grid
            }
        };
        maps.maps.push(NavMap {
            entity: group.map,
            grid,
            geometry,
            layers: layer_entities,
            agents,
            precomputed,
            source: None,
        });
    }

    // Maps made from a grid, with no tilemap.
    for (entity, source, transform) in &grid_maps {
        let placed = transform.as_deref().copied().unwrap_or_default();
        let (width, height) = (source.grid.width(), source.grid.height());
        // The tilemap it stands for: a staggered isometric grid is its tiles sheared.
        let tiles = match is_staggered(source.map_type) {
            true => height.checked_sub(width).map(|rows| UVec2::new(width, rows + 1)),
            false => Some(UVec2::new(width, height)),
        };
        let grid_size = TilemapGridSize { x: source.tile_size.x, y: source.tile_size.y };
        let tile_size = TilemapTileSize { x: source.tile_size.x, y: source.tile_size.y };
        let Some(tiles) = tiles.filter(|_| sane_geometry(&grid_size, &tile_size, &placed)) else {
            if source.is_changed() || transform.as_ref().is_some_and(|t| t.is_changed()) {
                let error = TilemapNavError::BadGeometry { tilemap: entity };
                warnings.write(TilemapNavWarning { error });
            }
            continue;
        };
        let size = TilemapSize { x: tiles.x, y: tiles.y };
        let geometry = NavGeometry::new(
            entity,
            size,
            grid_size,
            tile_size,
            source.map_type,
            source.anchor,
            placed,
        );
        let neighborhood = neighborhood_for(source.map_type, settings.neighborhood);
        let old = old_maps.iter().position(|m| m.entity == entity).map(|k| old_maps.swap_remove(k));
        // What is kept for it follows its grid, as for a tilemap's map.
        let (old_grid, seen, agents, precomputed) = match old {
            Some(m) => (Some(m.grid), m.source, m.agents, m.precomputed),
            None => (None, None, Vec::new(), None),
        };
        // Its grid follows the source's changes, as told by the source's journal.
        let followed = old_grid.zip(seen).and_then(|(mut grid, seen)| {
            let same_shape = (grid.width(), grid.height()) == (width, height)
                && grid.neighborhood() == neighborhood
                && grid.corner_rule() == settings.corner_rule;
            let changes = source.grid.changes_since(seen).filter(|_| same_shape)?;
            let mut cells: Vec<GridPos> = changes.map(|(pos, _)| pos).collect();
            cells.sort_unstable();
            cells.dedup();
            let cell = |pos: GridPos| (pos, source.grid.get(pos).unwrap_or(Cell::Blocked));
            let terrain = |pos: GridPos| (pos, source.grid.terrain(pos).unwrap_or_default());
            // Cells of the source grid, which has this size: these cannot fail.
            let _ = grid.set_all(cells.iter().map(|&pos| cell(pos)));
            let _ = grid.set_all_terrain(cells.iter().map(|&pos| terrain(pos)));
            if !cells.is_empty() {
                changed.write(NavGridChanged { map: entity, cells });
            }
            Some(grid)
        });
        let grid = followed.unwrap_or_else(|| {
            // New, or its grid replaced, reshaped or past what its journal remembers: taken
            // whole, with the plugin's moves and corner rule.
            let mut grid = source.grid.clone();
            grid.set_neighborhood(neighborhood);
            grid.set_corner_rule(settings.corner_rule);
            changed.write(NavGridChanged { map: entity, cells: grid.positions().collect() });
            grid
        });
        maps.maps.push(NavMap {
            entity,
            grid,
            geometry,
            layers: Vec::new(),
            agents,
            precomputed,
            source: Some(source.grid.stamp()),
        });
    }

    // Maps that are loading are held back; maps served from this frame on are announced.
    maps.loading.clear();
    maps.loading.extend(loading.iter());
    let (held, served): (Vec<NavMap>, Vec<NavMap>) =
        std::mem::take(&mut maps.maps).into_iter().partition(|m| maps.loading.contains(&m.entity));
    for map in served.iter().filter(|m| !served_before.contains(&m.entity)) {
        ready.write(NavMapReady { map: map.entity });
        if held_before.contains(&map.entity) {
            // What was checked against it while it was held is checked again.
            changed
                .write(NavGridChanged { map: map.entity, cells: map.grid.positions().collect() });
        }
    }
    maps.maps = served;
    maps.held = held;
}

/// The tiles whose texture changed since the sync last ran, into `list`. Bevy's `Changed` filter
/// tests one tile at a time; here the change ticks are read a table at a time, as slices, and a
/// block of them is tested at once (a loop the compiler turns into vector code), so that a map
/// where nothing changed costs a pass over its ticks and little more.
fn changed_textures(
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
