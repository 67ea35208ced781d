//! From `bevy_ecs_tilemap` tiles to the [`NavGrid`] resource, and between world space and grid
//! cells.

use std::collections::HashMap;
use std::fmt;

use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::world::DeferredWorld;
use bevy::prelude::*;
use bevy_ecs_tilemap::anchor::TilemapAnchor;
use bevy_ecs_tilemap::map::{
    HexCoordSystem, IsoCoordSystem, TilemapGridSize, TilemapId, TilemapSize, TilemapTileSize,
    TilemapType,
};
use bevy_ecs_tilemap::tiles::{TilePos, TileStorage, TileTextureIndex};

use super::diagnostics::{NavDiagnostics, Stopwatch};
use super::settings::NavSettings;
use crate::grid::{Cell, GridPos, HexCoords, NavGrid, Neighborhood};
use crate::io::baked::{BakeError, expect_size, expect_topology};

/// Put this on a tilemap entity (the one with the `TileStorage`) to make its tiles part of the
/// [`NavGrid`]. Several marked tilemaps of the same size and grid are layers of one grid: a cell
/// is blocked if any layer blocks it, and otherwise costs the highest of the layers' costs.
#[derive(Component, Clone, Copy, Debug, Default, Reflect)]
#[reflect(Component, Default)]
pub struct NavTilemap;

/// A per-tile override, on a tile entity: this tile is blocked, or costs this much, whatever its
/// texture says. Immutable: change it by inserting another (or remove it). The plugin learns of
/// each insertion from a hook, so it need not look at every tile each frame to find them.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Reflect)]
#[component(immutable, on_insert = tile_nav_inserted)]
#[reflect(Component)]
pub enum TileNav {
    Blocked,
    Cost(u32),
}

/// Tiles given a [`TileNav`] since the grid sync last ran.
#[derive(Resource, Default, Debug)]
pub(crate) struct InsertedOverrides(Vec<Entity>);

fn tile_nav_inserted(mut world: DeferredWorld, context: HookContext) {
    if let Some(mut inserted) = world.get_resource_mut::<InsertedOverrides>() {
        inserted.0.push(context.entity);
    }
}

impl TileNav {
    fn cell(self) -> Cell {
        match self {
            TileNav::Blocked => Cell::Blocked,
            // A zero cost is not a cost: treat it as ordinary ground rather than fail.
            TileNav::Cost(cost) => Cell::Passable { cost: cost.max(1) },
        }
    }
}

/// How tiles become cells: a rule per texture index, with defaults for the rest.
///
/// ```
/// use bevy_tilemap_nav::prelude::*;
///
/// let rules = TileRules::default()
///     .with(1, Cell::Blocked)                 // wall
///     .with(2, Cell::Passable { cost: 4 });   // mud
/// assert_eq!(rules.cell_for_texture(1), Cell::Blocked);
/// assert_eq!(rules.cell_for_texture(7), Cell::GROUND);
/// ```
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct TileRules {
    /// Texture index -> cell.
    pub by_texture: HashMap<u32, Cell>,
    /// A tile whose texture index has no rule (default: ground).
    pub unlisted: Cell,
    /// A position with no tile in a layer's storage (default: ground, so an empty prop layer
    /// blocks nothing).
    pub missing: Cell,
}

impl Default for TileRules {
    fn default() -> Self {
        Self { by_texture: HashMap::new(), unlisted: Cell::GROUND, missing: Cell::GROUND }
    }
}

impl TileRules {
    /// Adds (or replaces) the rule for one texture index. A cost of 0 (in a rule, in `unlisted`
    /// or `missing`, or in a [`TileNav::Cost`]) is read as 1, ordinary ground: every step costs
    /// something.
    pub fn with(mut self, texture_index: u32, cell: Cell) -> Self {
        self.by_texture.insert(texture_index, cell);
        self
    }

    pub fn cell_for_texture(&self, texture_index: u32) -> Cell {
        self.by_texture.get(&texture_index).copied().unwrap_or(self.unlisted)
    }
}

/// Insert this resource (a grid loaded with [`crate::io::baked`]) to start the [`NavGrid`] from
/// baked data instead of scanning the tilemap. It is used when the grid is first built, if its
/// size matches the tilemap's (otherwise a [`TilemapNavWarning`] says so and the tiles are
/// scanned). Tile changes at run time then update the grid as usual; a change of [`TileRules`]
/// or of the layers rescans the tiles.
#[derive(Resource, Clone, Debug)]
pub struct BakedNavGrid(pub NavGrid);

/// Message: cells of the [`NavGrid`] changed this frame (walls built or removed, costs changed).
#[derive(Message, Clone, Debug, PartialEq)]
pub struct NavGridChanged {
    /// The cells whose blocked state or cost changed, each once.
    pub cells: Vec<GridPos>,
}

/// Why something in the tilemap-to-grid layer could not be done.
#[derive(Clone, Debug, PartialEq)]
pub enum TilemapNavError {
    /// A layer's map type differs from the first layer's (a hex layer over a square map); it
    /// is left out of the grid.
    MapTypeMismatch { tilemap: Entity, expected: TilemapType, found: TilemapType },
    /// A layer's size differs from the first layer's; it is left out of the grid.
    SizeMismatch { tilemap: Entity, expected: UVec2, found: UVec2 },
    /// The tilemap has no cells.
    Empty { tilemap: Entity },
    /// The tilemap's `TilemapSize` and its `TileStorage` disagree on how many tiles it has; it is
    /// left out of the grid.
    InconsistentSize { tilemap: Entity, size: UVec2, storage_size: UVec2, storage_tiles: usize },
    /// The tilemap has more cells than a grid can hold ([`crate::grid::MAX_CELLS`]) or than
    /// memory allows; it is left out of the grid.
    TooLarge { tilemap: Entity, size: UVec2 },
    /// The [`BakedNavGrid`] does not fit the tilemap; the tiles were scanned instead.
    Baked(BakeError),
}

impl fmt::Display for TilemapNavError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TilemapNavError::MapTypeMismatch { tilemap, expected, found } => write!(
                f,
                "tilemap {tilemap} is {found:?} but the navigation grid is {expected:?}; it is left out"
            ),
            TilemapNavError::SizeMismatch { tilemap, expected, found } => write!(
                f,
                "tilemap {tilemap} is {found} tiles but the navigation grid is {expected}; it is left out"
            ),
            TilemapNavError::Empty { tilemap } => write!(f, "tilemap {tilemap} has no tiles"),
            TilemapNavError::InconsistentSize { tilemap, size, storage_size, storage_tiles } => {
                write!(
                    f,
                    "tilemap {tilemap} is {size} tiles but its TileStorage is {storage_size} with \
                     {storage_tiles} tiles; it is left out"
                )
            }
            TilemapNavError::TooLarge { tilemap, size } => write!(
                f,
                "tilemap {tilemap} is {size} tiles, too large for a navigation grid; it is left out"
            ),
            TilemapNavError::Baked(error) => write!(f, "{error}; the tiles were scanned instead"),
        }
    }
}

impl std::error::Error for TilemapNavError {}

/// Message: a tilemap marked [`NavTilemap`] could not be used as it is.
#[derive(Message, Clone, Debug, PartialEq)]
pub struct TilemapNavWarning {
    pub error: TilemapNavError,
}

/// Where the grid sits in the world: what world <-> cell conversion needs. Taken from the first
/// (oldest) [`NavTilemap`]; its `Transform` must be the world transform (a root entity).
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct NavGeometry {
    pub tilemap: Entity,
    pub size: TilemapSize,
    pub grid_size: TilemapGridSize,
    pub tile_size: TilemapTileSize,
    pub map_type: TilemapType,
    pub anchor: TilemapAnchor,
    pub transform: Transform,
    /// On square and isometric maps, where cell centres are affine in the cell: the world
    /// centre of cell (0, 0) and the steps to cells (1, 0) and (0, 1), so that a path's
    /// points cost two multiply-adds each rather than bevy_ecs_tilemap's whole conversion.
    affine: Option<[Vec2; 3]>,
}

/// Why a world position has no cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WorldToCellError {
    /// A coordinate is NaN or infinite.
    NotFinite(Vec2),
    /// The position is outside the tilemap.
    OffMap(Vec2),
}

impl fmt::Display for WorldToCellError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorldToCellError::NotFinite(p) => write!(f, "world position {p} is not finite"),
            WorldToCellError::OffMap(p) => write!(f, "world position {p} is off the tilemap"),
        }
    }
}

impl std::error::Error for WorldToCellError {}

/// The hex numbering of a bevy_ecs_tilemap hex coordinate system (the same six, by name).
pub fn hex_coords(system: HexCoordSystem) -> HexCoords {
    match system {
        HexCoordSystem::Row => HexCoords::Row,
        HexCoordSystem::Column => HexCoords::Column,
        HexCoordSystem::RowEven => HexCoords::RowEven,
        HexCoordSystem::RowOdd => HexCoords::RowOdd,
        HexCoordSystem::ColumnEven => HexCoords::ColumnEven,
        HexCoordSystem::ColumnOdd => HexCoords::ColumnOdd,
    }
}

/// The neighborhood a grid of this map type uses: the settings' one (4- or 8-way) on square
/// and isometric maps, six neighbours on hex maps.
pub fn neighborhood_for(map_type: TilemapType, square: Neighborhood) -> Neighborhood {
    match map_type {
        TilemapType::Hexagon(system) => Neighborhood::Hex(hex_coords(system)),
        _ if square.is_hex() => Neighborhood::Eight,
        _ => square,
    }
}

/// True for isometric staggered maps, whose tiles are a square grid sheared (see
/// [`NavGeometry::tile_to_cell`]).
fn is_staggered(map_type: TilemapType) -> bool {
    map_type == TilemapType::Isometric(IsoCoordSystem::Staggered)
}

/// The grid size for a tilemap of `size` tiles of this map type, or `None` if too large.
fn grid_dims(map_type: TilemapType, size: UVec2) -> Option<UVec2> {
    if is_staggered(map_type) {
        // Tile (x, y) is cell (x, x + y): the cells from row 0 to row (w - 1) + (h - 1).
        Some(UVec2::new(size.x, size.x.checked_add(size.y)? - 1))
    } else {
        Some(size)
    }
}

/// The grid cell of tile (`x`, `y`) on a map of this type.
#[inline]
fn tile_cell(map_type: TilemapType, x: u32, y: u32) -> GridPos {
    if is_staggered(map_type) { GridPos::new(x, x + y) } else { GridPos::new(x, y) }
}

impl NavGeometry {
    /// The geometry of a tilemap with these components.
    pub fn new(
        tilemap: Entity,
        size: TilemapSize,
        grid_size: TilemapGridSize,
        tile_size: TilemapTileSize,
        map_type: TilemapType,
        anchor: TilemapAnchor,
        transform: Transform,
    ) -> Self {
        let mut geometry =
            Self { tilemap, size, grid_size, tile_size, map_type, anchor, transform, affine: None };
        if !matches!(map_type, TilemapType::Hexagon(_)) {
            let origin = geometry.tile_center(0, 0);
            let up = geometry.tile_center(0, 1) - origin;
            let across = geometry.tile_center(1, 0) - origin;
            // On a staggered map cell (x, d) is tile (x, d - x): a step across the cells is a
            // step across the tiles and one down.
            let across = if is_staggered(map_type) { across - up } else { across };
            geometry.affine = Some([origin, across, up]);
        }
        geometry
    }

    /// The grid cell a tile is. On square, isometric diamond and hex maps that is the tile's
    /// own position. On isometric staggered maps the tiles are a square grid drawn sheared
    /// (bevy_ecs_tilemap's `StaggeredPos` to `DiamondPos`): tile (x, y) is cell (x, x + y) of
    /// a grid `width` wide and `width + height - 1` tall, so that the eight moves and jump
    /// point search work there as on a square map; the cells outside the tilemap are walls.
    pub fn tile_to_cell(&self, tile: TilePos) -> GridPos {
        tile_cell(self.map_type, tile.x, tile.y)
    }

    /// The tile a grid cell is, or `None` for a cell that is no tile of the map (see
    /// [`tile_to_cell`](Self::tile_to_cell)).
    pub fn cell_to_tile(&self, cell: GridPos) -> Option<TilePos> {
        let y = if is_staggered(self.map_type) { cell.y.checked_sub(cell.x)? } else { cell.y };
        (cell.x < self.size.x && y < self.size.y).then_some(TilePos::new(cell.x, y))
    }

    /// The cell under a world position, using bevy_ecs_tilemap's own conversion.
    pub fn world_to_cell(&self, world: Vec2) -> Result<GridPos, WorldToCellError> {
        if !world.is_finite() {
            return Err(WorldToCellError::NotFinite(world));
        }
        let local = self.transform.compute_affine().inverse().transform_point3(world.extend(0.0));
        let local = local.truncate();
        if !local.is_finite() {
            return Err(WorldToCellError::NotFinite(world));
        }
        TilePos::from_world_pos(
            &local,
            &self.size,
            &self.grid_size,
            &self.tile_size,
            &self.map_type,
            &self.anchor,
        )
        .map(|t| self.tile_to_cell(t))
        .ok_or(WorldToCellError::OffMap(world))
    }

    /// The world-space centre of a cell, where bevy_ecs_tilemap draws its tile (honouring the
    /// map type, the `TilemapAnchor` and the tilemap's transform).
    pub fn cell_to_world(&self, cell: GridPos) -> Vec2 {
        match self.affine {
            Some([origin, across, up]) => origin + across * cell.x as f32 + up * cell.y as f32,
            None => self.tile_center(cell.x, cell.y),
        }
    }

    /// The world-space centre of tile (`x`, `y`) through bevy_ecs_tilemap's conversion (the
    /// tile may lie off the map: centres are computed all the same).
    fn tile_center(&self, x: u32, y: u32) -> Vec2 {
        let local = TilePos::new(x, y).center_in_world(
            &self.size,
            &self.grid_size,
            &self.tile_size,
            &self.map_type,
            &self.anchor,
        );
        self.transform.transform_point(local.extend(0.0)).truncate()
    }
}

/// What the sync system remembers of one layer, to find what changed.
#[derive(Debug)]
struct Layer {
    size: UVec2,
    map_type: TilemapType,
    /// The storage's tile entities as last seen, index `y * width + x`.
    entities: Vec<Option<Entity>>,
    /// What each position of this layer says, index `y * width + x`.
    cells: Vec<Cell>,
}

/// The layers behind the grid, oldest first.
#[derive(Resource, Default, Debug)]
pub(crate) struct NavLayers {
    layers: Vec<(Entity, Layer)>,
    rules_seen: Option<TileRules>,
}

/// The tiles whose texture changed this frame (the list reused from frame to frame).
#[derive(Default)]
pub(crate) struct ChangedTiles(Vec<(TilePos, TilemapId)>);

type TileQuery<'w, 's> =
    Query<'w, 's, (Option<&'static TileNav>, Option<&'static TileTextureIndex>), With<TilePos>>;

fn resolve(entity: Option<Entity>, tiles: &TileQuery, rules: &TileRules) -> Cell {
    let Some(entity) = entity else {
        return rules.missing;
    };
    match tiles.get(entity) {
        Ok((Some(nav), _)) => nav.cell(),
        Ok((None, Some(texture))) => rules.cell_for_texture(texture.0),
        Ok((None, None)) => rules.unlisted,
        Err(_) => rules.missing,
    }
}

/// The grid sync system: keeps [`NavGrid`] and [`NavGeometry`] in step with the marked
/// tilemaps. Unchanged cells cost nothing; changed ones are written and reported in one
/// [`NavGridChanged`] message.
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub(crate) fn sync_nav_grid(
    mut commands: Commands,
    mut layers: ResMut<NavLayers>,
    grid: Option<ResMut<NavGrid>>,
    geometry: Option<Res<NavGeometry>>,
    settings: Res<NavSettings>,
    rules: Res<TileRules>,
    baked: Option<Res<BakedNavGrid>>,
    tilemaps: Query<
        (
            Entity,
            Ref<TileStorage>,
            &TilemapSize,
            &TilemapGridSize,
            &TilemapTileSize,
            Ref<TilemapType>,
            Option<&TilemapAnchor>,
            Ref<Transform>,
        ),
        With<NavTilemap>,
    >,
    tiles: TileQuery,
    changed_tiles: Query<(&TilePos, &TilemapId), Changed<TileTextureIndex>>,
    (mut changed_scratch, mut diagnostics): (Local<ChangedTiles>, ResMut<NavDiagnostics>),
    mut inserted_overrides: ResMut<InsertedOverrides>,
    mut removed_overrides: RemovedComponents<TileNav>,
    all_tiles: Query<(&TilePos, &TilemapId)>,
    mut changed: MessageWriter<NavGridChanged>,
    mut warnings: MessageWriter<TilemapNavWarning>,
) {
    // The first of the plugin's systems: it begins the frame's diagnostics.
    *diagnostics = NavDiagnostics::default();
    let _clock = Stopwatch::start(&mut diagnostics.sync_time);
    // Tiles (as positions on their tilemap) whose combined cell may have changed.
    let mut dirty: Vec<GridPos> = Vec::new();
    let mut full = false;
    // Layers taken in this frame: their cells were just read with the current rules.
    let mut new_layers: Vec<Entity> = Vec::new();

    // Layers whose tilemap is gone (despawned or unmarked).
    let before = layers.layers.len();
    layers.layers.retain(|(e, _)| tilemaps.contains(*e));
    full |= layers.layers.len() != before;

    // Rules changed: every cell of every layer may read differently.
    let rules_changed = layers.rules_seen.as_ref() != Some(&*rules);
    if rules_changed {
        layers.rules_seen = Some(rules.clone());
        full = true;
    }

    // The first layer sets the map type: when it changes, the grid follows (and the other
    // layers must match it).
    if let Some((first, layer)) = layers.layers.first_mut()
        && let Ok((.., map_type, _, _)) = tilemaps.get(*first)
        && layer.map_type != *map_type
    {
        layer.map_type = *map_type;
        full = true;
    }

    // New layers, resized layers, and storages whose entities changed.
    let mut expected: Option<(UVec2, TilemapType)> =
        layers.layers.first().map(|(_, l)| (l.size, l.map_type));
    let mut ordered: Vec<_> = tilemaps.iter().collect();
    ordered
        .sort_by_key(|t| layers.layers.iter().position(|(e, _)| *e == t.0).unwrap_or(usize::MAX));
    for (entity, storage, size, _, _, map_type, _, _) in &ordered {
        let size = UVec2::new(size.x, size.y);
        // Maps the grid cannot take are left out (and taken out if they were in), with a
        // warning when they appear or change. A storage that does not hold the tiles its size
        // says would make bevy_ecs_tilemap's own lookups panic.
        let cells = u64::from(size.x) * u64::from(size.y);
        let storage_size = UVec2::new(storage.size.x, storage.size.y);
        // Counting the tiles reads the whole storage: only when it or the size changed (an
        // unchanged layer was found consistent when it was taken in).
        let known = layers.layers.iter().any(|(e, l)| e == entity && l.size == size);
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
        } else if cells > crate::grid::MAX_CELLS {
            Some((TilemapNavError::TooLarge { tilemap: *entity, size }, storage.is_added()))
        } else {
            let (expected_size, expected_type) = *expected.get_or_insert((size, **map_type));
            if size != expected_size {
                let error = TilemapNavError::SizeMismatch {
                    tilemap: *entity,
                    expected: expected_size,
                    found: size,
                };
                Some((error, storage.is_changed()))
            } else if **map_type != expected_type {
                let error = TilemapNavError::MapTypeMismatch {
                    tilemap: *entity,
                    expected: expected_type,
                    found: **map_type,
                };
                Some((error, storage.is_added() || map_type.is_changed()))
            } else {
                None
            }
        };
        if let Some((error, say_so)) = refusal {
            if let Some(i) = layers.layers.iter().position(|(e, _)| e == entity) {
                layers.layers.remove(i);
                full = true;
            }
            if say_so {
                warnings.write(TilemapNavWarning { error });
            }
            continue;
        }
        let width = size.x as usize;
        let read = |x: usize, y: usize| storage.checked_get(&TilePos::new(x as u32, y as u32));
        match layers.layers.iter_mut().find(|(e, _)| e == entity) {
            None => {
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
                    continue;
                }
                for y in 0..size.y as usize {
                    for x in 0..width {
                        let e = read(x, y);
                        layer.entities.push(e);
                        layer.cells.push(resolve(e, &tiles, &rules));
                    }
                }
                layers.layers.push((*entity, layer));
                new_layers.push(*entity);
                full = true;
            }
            Some((_, layer)) if storage.is_changed() && !rules_changed => {
                for y in 0..size.y as usize {
                    for x in 0..width {
                        let e = read(x, y);
                        let k = y * width + x;
                        if layer.entities[k] != e {
                            layer.entities[k] = e;
                            layer.cells[k] = resolve(e, &tiles, &rules);
                            dirty.push(GridPos::new(x as u32, y as u32));
                        }
                    }
                }
            }
            Some(_) => {}
        }
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
                dirty.push(GridPos::new(pos.x, pos.y));
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
        list.extend(changed_tiles.iter().map(|(pos, map)| (*pos, *map)));
        for (pos, map) in list.iter() {
            if !new_layers.contains(&map.0) {
                touch(pos, map, &mut layers);
            }
        }
    }
    for entity in inserted_overrides.0.drain(..).chain(removed_overrides.read()) {
        if let Ok((pos, map)) = all_tiles.get(entity) {
            touch(pos, map, &mut layers);
        }
    }

    // Geometry follows the first layer.
    let first = layers.layers.first().map(|(e, _)| *e);
    match first.and_then(|e| tilemaps.get(e).ok()) {
        Some((entity, _, size, grid_size, tile_size, map_type, anchor, transform)) => {
            let new = NavGeometry::new(
                entity,
                *size,
                *grid_size,
                *tile_size,
                *map_type,
                anchor.copied().unwrap_or_default(),
                *transform,
            );
            if geometry.as_deref() != Some(&new) {
                commands.insert_resource(new);
            }
        }
        None => {
            if geometry.is_some() {
                commands.remove_resource::<NavGeometry>();
            }
        }
    }

    let Some((_, first_layer)) = layers.layers.first() else {
        if grid.is_some() {
            commands.remove_resource::<NavGrid>();
        }
        return;
    };
    let (size, map_type) = (first_layer.size, first_layer.map_type);
    let neighborhood = neighborhood_for(map_type, settings.neighborhood);
    let tile_index = |pos: GridPos| pos.y as usize * size.x as usize + pos.x as usize;
    let all_tiles = || (0..size.y).flat_map(move |y| (0..size.x).map(move |x| GridPos::new(x, y)));
    let combine = |k: usize| -> Cell {
        layers.layers.iter().fold(Cell::GROUND, |acc, (_, l)| match (acc, l.cells[k]) {
            (Cell::Blocked, _) | (_, Cell::Blocked) => Cell::Blocked,
            (Cell::Passable { cost: a }, Cell::Passable { cost: b }) => {
                Cell::Passable { cost: a.max(b) }
            }
        })
    };
    let Some(dims) = grid_dims(map_type, size) else {
        if grid.is_some() {
            commands.remove_resource::<NavGrid>();
        }
        return;
    };
    let mut grid = match grid {
        Some(grid) if grid.width() == dims.x && grid.height() == dims.y => grid,
        _ => {
            // First grid, or the map changed size: start from baked data if it fits, else
            // build it whole from the tiles.
            if let Some(baked) = baked.as_deref() {
                match expect_size(&baked.0, dims.x, dims.y)
                    .and_then(|()| expect_topology(&baked.0, neighborhood))
                {
                    Ok(()) => {
                        let cells: Vec<GridPos> = baked.0.positions().collect();
                        commands.insert_resource(baked.0.clone());
                        changed.write(NavGridChanged { cells });
                        return;
                    }
                    Err(error) => {
                        warnings.write(TilemapNavWarning { error: TilemapNavError::Baked(error) });
                    }
                }
            }
            // Start all walls (no jump point bits to compute), so that setting the cells
            // builds the bits once.
            let Ok(mut fresh) = NavGrid::filled(dims.x, dims.y, Cell::Blocked) else {
                // Memory refused: say so, once, rather than abort.
                if grid.is_some() {
                    commands.remove_resource::<NavGrid>();
                }
                if full {
                    let tilemap = layers.layers[0].0;
                    warnings.write(TilemapNavWarning {
                        error: TilemapNavError::TooLarge { tilemap, size },
                    });
                }
                return;
            };
            fresh.set_neighborhood(neighborhood);
            fresh.set_corner_rule(settings.corner_rule);
            let cells: Vec<GridPos> = fresh.positions().collect();
            let tiles = all_tiles()
                .map(|tile| (tile_cell(map_type, tile.x, tile.y), combine(tile_index(tile))));
            // Every combined cell is valid (layer costs of 0 read as 1), so this cannot fail.
            let _ = fresh.set_all(tiles);
            commands.insert_resource(fresh);
            changed.write(NavGridChanged { cells });
            return;
        }
    };
    if full {
        dirty = all_tiles().collect();
    }
    if grid.neighborhood() != neighborhood {
        grid.set_neighborhood(neighborhood);
    }
    if grid.corner_rule() != settings.corner_rule {
        grid.set_corner_rule(settings.corner_rule);
    }
    dirty.sort_unstable();
    dirty.dedup();
    let changes: Vec<(GridPos, Cell)> = dirty
        .into_iter()
        .map(|tile| (tile_cell(map_type, tile.x, tile.y), combine(tile_index(tile))))
        .filter(|&(pos, cell)| grid.get(pos) != Some(cell))
        .collect();
    if changes.is_empty() {
        return;
    }
    // One call for the frame's changes: when they are many (a layer added or removed, a level
    // rewritten) the search's bits are rebuilt once rather than round each cell. Every combined
    // cell is valid and every position is on the grid (the layers have its size), so this
    // cannot fail.
    let _ = grid.set_all(changes.iter().copied());
    let cells: Vec<GridPos> = changes.into_iter().map(|(pos, _)| pos).collect();
    changed.write(NavGridChanged { cells });
}
