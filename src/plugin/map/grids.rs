//! Each map's grid this frame: built from its layers (or baked data, or its [`NavGridMap`]'s
//! grid), or last frame's brought in step with what changed; maps served or held while they load.

use bevy::prelude::*;
use bevy_ecs_tilemap::map::{TilemapGridSize, TilemapSize, TilemapTileSize, TilemapType};

use super::components::*;
use super::errors::*;
use super::geometry::*;
use super::layers::*;
use super::model::*;
use crate::grid::{Cell, CornerRule, GridPos, NavGrid, Neighborhood, Preparation, Sides, Terrain};
use crate::io::baked::{expect_size, expect_topology};
use crate::plugin::settings::NavSettings;

/// Maps made from a grid ([`NavGridMap`]), with their placement.
pub(super) type GridMaps<'w, 's> =
    Query<'w, 's, (Entity, Ref<'static, NavGridMap>, Option<Ref<'static, Transform>>)>;

/// What building this frame's maps shares: the settings, what changed, last frame's maps (each
/// taken out when its map is built again; those left are dropped) and the messages.
pub(super) struct Building<'a> {
    pub(super) settings: &'a NavSettings,
    pub(super) found: &'a Found,
    pub(super) old_maps: Vec<NavMap>,
    pub(super) told: &'a mut Told,
    /// The maps with a topology of their own.
    pub(super) topologies: Vec<(Entity, NavTopology)>,
}

impl Building<'_> {
    /// The moves (on a square map) and corner rule of `map`: its own, else the settings'.
    fn topology(&self, map: Entity) -> (Neighborhood, CornerRule) {
        let own = self.topologies.iter().find(|(e, _)| *e == map).map(|(_, t)| t);
        NavTopology::resolve(own, self.settings)
    }

    pub(super) fn take_old(&mut self, map: Entity) -> Option<NavMap> {
        let k = self.old_maps.iter().position(|m| m.entity == map)?;
        Some(self.old_maps.swap_remove(k))
    }
}

/// A map's layers stacked: what each tile of the map says, all layers combined.
pub(super) struct Stack<'a> {
    members: Vec<(Entity, &'a Layer)>,
    size: UVec2,
    map_type: TilemapType,
}

impl Stack<'_> {
    fn tile_index(&self, tile: GridPos) -> usize {
        tile.y as usize * self.size.x as usize + tile.x as usize
    }

    /// What the tile at index `k` says, all layers combined: cells stacked, the last layer with
    /// a terrain class gives it, walls and ledges of every layer.
    fn combine(&self, k: usize) -> Says {
        let start = (Cell::GROUND, Terrain::DEFAULT, TileEdges::default());
        self.members.iter().fold(start, |(cell, terrain, edges), (_, l)| {
            let (here, class, sides) = l.cells[k];
            let cell = cell.stacked(here);
            (cell, if class == Terrain::DEFAULT { terrain } else { class }, edges.and(sides))
        })
    }

    /// Walls and ledges on a cell's sides: the sides of its tile in every layer.
    fn sides(&self, cell: GridPos) -> (Sides, Sides) {
        let tile = cell_tile(self.map_type, self.size, cell);
        tile.map_or((Sides::NONE, Sides::NONE), |t| {
            let edges = self.combine(self.tile_index(t)).2;
            (edges.walls, edges.drops)
        })
    }

    fn has_edges(&self) -> bool {
        self.members.iter().any(|(_, l)| l.cells.iter().any(|c| !c.2.is_empty()))
    }

    fn all_tiles(&self) -> impl Iterator<Item = GridPos> + use<> {
        let size = self.size;
        (0..size.y).flat_map(move |y| (0..size.x).map(move |x| GridPos::new(x, y)))
    }

    /// Each tile's cell and what it says there.
    fn cell_of(&self, tile: GridPos) -> (GridPos, (Cell, Terrain)) {
        let (cell, terrain, _) = self.combine(self.tile_index(tile));
        (tile_cell(self.map_type, tile.x, tile.y), (cell, terrain))
    }

    /// Last frame's grid brought in step: the tiles that changed (all of them when `rebuild`),
    /// their cells, terrain and sides; the cells that changed reported in one message.
    fn update(
        &self,
        mut grid: NavGrid,
        map: Entity,
        rebuild: bool,
        layer_entities: &[Entity],
        (neighborhood, corner_rule): (Neighborhood, CornerRule),
        building: &mut Building,
    ) -> NavGrid {
        if grid.neighborhood() != neighborhood {
            grid.set_neighborhood(neighborhood);
        }
        if grid.corner_rule() != corner_rule {
            grid.set_corner_rule(corner_rule);
        }
        let mut tiles_to_check: Vec<GridPos> = if rebuild {
            self.all_tiles().collect()
        } else {
            let dirty = building.found.dirty.iter();
            dirty.filter(|(e, _)| layer_entities.contains(e)).map(|&(_, pos)| pos).collect()
        };
        tiles_to_check.sort_unstable();
        tiles_to_check.dedup();
        let checked: Vec<GridPos> =
            tiles_to_check.iter().map(|t| tile_cell(self.map_type, t.x, t.y)).collect();
        let changes: Vec<(GridPos, (Cell, Terrain))> = tiles_to_check
            .into_iter()
            .map(|tile| self.cell_of(tile))
            .filter(|&(pos, (cell, terrain))| {
                grid.get(pos) != Some(cell) || grid.terrain(pos) != Some(terrain)
            })
            .collect();
        // The cells whose sides changed are reported with the others.
        let mut cells: Vec<GridPos> = changes.iter().map(|&(pos, _)| pos).collect();
        // A grid with no edges gets some only from a changed tile that has sides (a
        // neighbour's sides were laid when it was).
        let edged = |pos: &GridPos| self.sides(*pos) != (Sides::NONE, Sides::NONE);
        if grid.has_edges() || checked.iter().any(edged) {
            for &pos in &checked {
                let before = grid.revision();
                grid.set_sides([pos], |cell| self.sides(cell));
                if grid.revision() != before {
                    cells.push(pos);
                }
            }
        }
        if !changes.is_empty() {
            // One call for the frame's changes: when they are many (a layer added or removed,
            // a level rewritten) the search's bits are rebuilt once rather than round each
            // cell. Every combined cell is valid and every position is on the grid (the layers
            // have its size), so this cannot fail.
            let _ = grid.set_all(changes.iter().map(|&(pos, (cell, _))| (pos, cell)));
            let _ = grid.set_all_terrain(changes.iter().map(|&(pos, (_, t))| (pos, t)));
        }
        if !cells.is_empty() {
            cells.sort_unstable();
            cells.dedup();
            building.told.changed.push(NavGridChanged { map, cells });
        }
        grid
    }

    /// A new map, or one that changed size: from baked data if given and it fits, else built
    /// whole from its tiles. `None` (with a warning) if memory for it is refused.
    fn build(
        &self,
        map: Entity,
        baked: Option<&BakedNavGrid>,
        dims: UVec2,
        (neighborhood, corner_rule): (Neighborhood, CornerRule),
        first_layer: Entity,
        building: &mut Building,
    ) -> Option<NavGrid> {
        let told = &mut *building.told;
        let baked = baked.and_then(|baked| {
            match expect_size(&baked.0, dims.x, dims.y)
                .and_then(|()| expect_topology(&baked.0, neighborhood))
            {
                Ok(()) => Some(baked.0.clone()),
                Err(error) => {
                    told.warn(TilemapNavError::Baked(error));
                    None
                }
            }
        });
        let grid = match baked {
            Some(grid) => grid,
            None => {
                // Start all walls (no jump point bits to compute), so that setting the cells
                // builds the bits once.
                let Ok(mut fresh) = NavGrid::filled(dims.x, dims.y, Cell::Blocked) else {
                    // Memory refused: say so rather than abort.
                    told.warn(TilemapNavError::TooLarge { tilemap: first_layer, size: self.size });
                    return None;
                };
                fresh.set_neighborhood(neighborhood);
                fresh.set_corner_rule(corner_rule);
                let tiles: Vec<(GridPos, (Cell, Terrain))> =
                    self.all_tiles().map(|tile| self.cell_of(tile)).collect();
                if self.has_edges() {
                    fresh.set_sides(tiles.iter().map(|&(pos, _)| pos), |cell| self.sides(cell));
                }
                // Every combined cell is valid (layer costs of 0 read as 1), so this cannot
                // fail.
                let _ = fresh.set_all(tiles.iter().map(|&(pos, (cell, _))| (pos, cell)));
                let _ = fresh.set_all_terrain(
                    tiles.iter().map(|&(pos, (_, t))| (pos, t)).filter(|(_, t)| t.0 != 0),
                );
                fresh
            }
        };
        told.changed.push(NavGridChanged { map, cells: grid.positions().collect() });
        Some(grid)
    }
}

/// One group of layers' map this frame: last frame's kept in step, or built.
pub(super) fn tilemap_map(
    group: &Group,
    baked: Option<&BakedNavGrid>,
    layers: &NavLayers,
    tilemaps: &TilemapQuery,
    building: &mut Building,
) -> Option<NavMap> {
    let members: Vec<(Entity, &Layer)> =
        group.members.iter().map(|&i| (layers.layers[i].0, &layers.layers[i].1)).collect();
    let (first_entity, first_layer) = members[0];
    let (_, _, size, grid_size, tile_size, map_type, anchor, transform, _, global, child) =
        tilemaps.get(first_entity).ok()?;
    let geometry = NavGeometry::new(
        first_entity,
        *size,
        *grid_size,
        *tile_size,
        *map_type,
        anchor.copied().unwrap_or_default(),
        placement(&transform, global, child),
    );
    let stack = Stack { size: first_layer.size, map_type: first_layer.map_type, members };
    let layer_entities: Vec<Entity> = stack.members.iter().map(|(e, _)| *e).collect();
    let mut old = building.take_old(group.map);
    // The grids kept for kinds of agents follow the map's grid (`keep_agent_grids`).
    let agents = old.as_mut().map(|m| std::mem::take(&mut m.agents)).unwrap_or_default();
    // So does what is precomputed for it (current while the grid's stamp is unchanged).
    let precomputed = old.as_mut().and_then(|m| m.precomputed.take());
    let (square, corner_rule) = building.topology(group.map);
    let topology = (neighborhood_for(stack.map_type, square), corner_rule);
    // Every size was checked when the layer was taken in.
    let dims = grid_dims(stack.map_type, stack.size)?;
    let found = building.found;
    let rebuild = found.rules_changed
        || layer_entities.iter().any(|e| found.new_layers.contains(e))
        || old.as_ref().is_none_or(|m| {
            m.layers != layer_entities || (m.grid.width(), m.grid.height()) != (dims.x, dims.y)
        });
    let grid = match old {
        Some(NavMap { grid, .. }) if (grid.width(), grid.height()) == (dims.x, dims.y) => {
            stack.update(grid, group.map, rebuild, &layer_entities, topology, building)
        }
        _ => stack.build(group.map, baked, dims, topology, first_entity, building)?,
    };
    // Warmed a slice a frame (`warm_grids`): no first search stalls a frame.
    let grid = grid.with_preparation(Preparation::InSlices);
    Some(NavMap {
        entity: group.map,
        grid,
        geometry,
        layers: layer_entities,
        agents,
        precomputed,
        source: None,
    })
}

/// A map made from a grid ([`NavGridMap`]), with no tilemap: last frame's following the
/// source's changes as its journal tells them, or taken whole. `None` (with a warning when it
/// appears or changes) if its sizes or placement cannot place cells.
pub(super) fn grid_source_map(
    entity: Entity,
    source: &Ref<NavGridMap>,
    transform: Option<&Ref<Transform>>,
    building: &mut Building,
) -> Option<NavMap> {
    let placed = transform.map(|t| **t).unwrap_or_default();
    let (width, height) = (source.grid.width(), source.grid.height());
    // The tilemap it stands for: a staggered isometric grid is its tiles sheared.
    let tiles = match is_staggered(source.map_type) {
        true => height.checked_sub(width).map(|rows| UVec2::new(width, rows + 1)),
        false => Some(UVec2::new(width, height)),
    };
    let grid_size = TilemapGridSize { x: source.tile_size.x, y: source.tile_size.y };
    let tile_size = TilemapTileSize { x: source.tile_size.x, y: source.tile_size.y };
    let Some(tiles) = tiles.filter(|_| sane_geometry(&grid_size, &tile_size, &placed)) else {
        if source.is_changed() || transform.is_some_and(|t| t.is_changed()) {
            building.told.warn(TilemapNavError::BadGeometry { tilemap: entity });
        }
        return None;
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
    let (square, corner_rule) = building.topology(entity);
    let neighborhood = neighborhood_for(source.map_type, square);
    // What is kept for it follows its grid, as for a tilemap's map.
    let (old_grid, seen, agents, precomputed) = match building.take_old(entity) {
        Some(m) => (Some(m.grid), m.source, m.agents, m.precomputed),
        None => (None, None, Default::default(), None),
    };
    let told = &mut *building.told;
    // Its grid follows the source's changes, as told by the source's journal.
    let followed = old_grid.zip(seen).and_then(|(mut grid, seen)| {
        let same_shape = (grid.width(), grid.height()) == (width, height)
            && grid.neighborhood() == neighborhood
            && grid.corner_rule() == corner_rule;
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
            told.changed.push(NavGridChanged { map: entity, cells });
        }
        Some(grid)
    });
    let grid = followed.unwrap_or_else(|| {
        // New, or its grid replaced, reshaped or past what its journal remembers: taken whole,
        // with the plugin's moves and corner rule.
        let mut grid = source.grid.clone();
        grid.set_neighborhood(neighborhood);
        grid.set_corner_rule(corner_rule);
        told.changed.push(NavGridChanged { map: entity, cells: grid.positions().collect() });
        grid.with_preparation(Preparation::InSlices)
    });
    Some(NavMap {
        entity,
        grid,
        geometry,
        layers: Vec::new(),
        agents,
        precomputed,
        source: Some(source.grid.stamp()),
    })
}

/// Maps that are loading are held back; maps served from this frame on are announced, and
/// those that were held have their cells reported changed (what was checked against them while
/// they were held is checked again).
pub(super) fn serve(
    maps: &mut NavMaps,
    loading: impl Iterator<Item = Entity>,
    served_before: &[Entity],
    held_before: &[Entity],
    told: &mut Told,
) {
    maps.loading.clear();
    maps.loading.extend(loading);
    let (held, served): (Vec<NavMap>, Vec<NavMap>) =
        std::mem::take(&mut maps.maps).into_iter().partition(|m| maps.loading.contains(&m.entity));
    for map in served.iter().filter(|m| !served_before.contains(&m.entity)) {
        told.ready.push(NavMapReady { map: map.entity });
        if held_before.contains(&map.entity) {
            let cells = map.grid.positions().collect();
            told.changed.push(NavGridChanged { map: map.entity, cells });
        }
    }
    maps.maps = served;
    maps.held = held;
}
