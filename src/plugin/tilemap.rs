//! From `bevy_ecs_tilemap` tiles to navigation maps (a [`NavGrid`] each, in the [`NavMaps`]
//! resource), and between world space and grid cells.

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
use super::profiles::NavAgent;
use super::settings::NavSettings;
use crate::grid::{Cell, GridPos, HexCoords, NavGrid, Neighborhood, Terrain};
use crate::io::baked::{BakeError, expect_size, expect_topology};
use crate::search::AgentGrid;

/// Put this on a tilemap entity (the one with the `TileStorage`) to make its tiles navigable.
///
/// Marked tilemaps that lie on one another (same size, tile and grid size, map type, anchor and
/// `Transform`) are layers of one navigation map: a cell is blocked if any layer blocks it,
/// and otherwise costs the highest of the layers' costs (the floor layer and the walls layer of
/// a level). Tilemaps placed elsewhere, or of another size or type, are maps of their own. When
/// that rule does not fit (two floors of a dungeon drawn at the same place, one at a time), put
/// [`NavLayerOf`] on the tilemaps to say which map each belongs to. The example on
/// [`PathRequest`](crate::plugin::PathRequest) spawns a tilemap marked so and paths across it.
#[derive(Component, Clone, Copy, Debug, Default, Reflect)]
#[reflect(Component, Default)]
pub struct NavTilemap;

/// Groups marked tilemaps explicitly: every [`NavTilemap`] with `NavLayerOf(e)` is a layer of
/// the map whose entity is `e` (any entity: the level's, or one of the layers', which is then a
/// layer of that map whether or not it carries a `NavLayerOf` itself), and of no other. Its layers must share size and map type (a layer that does not is left out, with a
/// [`TilemapNavWarning`]); the map's placement is its first (oldest) layer's.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Reflect)]
#[reflect(Component)]
pub struct NavLayerOf(pub Entity);

/// One navigation map: its grid, where it lies in the world, and the tilemaps it is made of.
#[derive(Clone, Debug)]
pub struct NavMap {
    /// The map's entity: the one named by the layers' [`NavLayerOf`], or else its first
    /// (oldest) layer tilemap. Requests, paths, links and messages name maps by it.
    pub entity: Entity,
    /// Its navigation grid, kept in step with its tiles.
    pub grid: NavGrid,
    /// Where it lies in the world: world <-> cell.
    pub geometry: NavGeometry,
    /// Its layer tilemaps, oldest first.
    pub layers: Vec<Entity>,
    /// The grid as each kind of agent in use sees it (a [`NavProfile`](crate::grid::NavProfile),
    /// a size), made when an agent of that kind first asks and kept in step with `grid`.
    agents: Vec<(NavAgent, AgentGrid)>,
    /// What is kept precomputed for it when it has [`PrecomputePaths`](super::PrecomputePaths),
    /// and whether it was loaded from its [`BakedPaths`](super::BakedPaths) (rather than
    /// built). Changed through [`keep_precomputed`](Self::keep_precomputed).
    precomputed: Option<(Precomputed, bool)>,
    /// For a map made from a [`NavGridMap`]: the stamp of its grid that `grid` last followed.
    pub(crate) source: Option<crate::grid::GridStamp>,
}

/// What a map keeps precomputed: a path table where one serves it, else a first-move table
/// where the map is small enough, else landmarks (current only while its grid's stamp matches;
/// landmarks are kept in step with the grid).
#[derive(Clone, Debug)]
pub(crate) enum Precomputed {
    Table(crate::search::PathTable),
    FirstMoves(crate::search::FirstMoveTable),
    Landmarks(crate::search::Landmarks),
}

impl NavMap {
    /// Keeps `precomputed` for this map (`from_bake`: loaded from its bake), or nothing.
    pub(crate) fn keep_precomputed(&mut self, precomputed: Option<Precomputed>, from_bake: bool) {
        self.precomputed = precomputed.map(|kept| (kept, from_bake));
    }

    /// True when the map keeps a grid for some kind of agent.
    pub(crate) fn keeps_agent_grids(&self) -> bool {
        !self.agents.is_empty()
    }

    /// Keeps the grids of the kinds of agents `keep` says yes to, brought up to date with the
    /// map's grid, and makes those of `kinds` it lacks (with the profile `profile_of` gives;
    /// none for a size the map cannot serve, as on hex maps: requests say why).
    pub(crate) fn keep_agent_grids(
        &mut self,
        keep: impl Fn(NavAgent) -> bool,
        kinds: &[NavAgent],
        profile_of: impl Fn(NavAgent) -> crate::grid::NavProfile,
    ) {
        self.agents.retain(|(kind, _)| keep(*kind));
        for (_, grid) in &mut self.agents {
            // Memory refused for a resized map: the grid stays as it was, and paths on it are
            // checked against it as before.
            let _ = grid.update(&self.grid);
        }
        for &kind in kinds {
            if self.agents.iter().any(|(k, _)| *k == kind) {
                continue;
            }
            if let Ok(grid) = AgentGrid::new(&self.grid, profile_of(kind), kind.size) {
                self.agents.push((kind, grid));
            }
        }
    }

    /// What is kept precomputed for this map, if any.
    pub(crate) fn precomputed(&self) -> Option<&Precomputed> {
        self.precomputed.as_ref().map(|(kept, _)| kept)
    }

    /// The map's grid, and the landmarks kept for it (to follow the grid's changes).
    pub(crate) fn grid_and_landmarks_mut(
        &mut self,
    ) -> (&NavGrid, Option<&mut crate::search::Landmarks>) {
        let landmarks = match &mut self.precomputed {
            Some((Precomputed::Landmarks(landmarks), _)) => Some(landmarks),
            _ => None,
        };
        (&self.grid, landmarks)
    }

    /// The grid an agent of this kind searches: `grid` itself for an agent with no profile and
    /// size 1, else its [`AgentGrid`]'s (`None` until the plugin has made it, which it does
    /// for the kinds of the agents that ask for paths or ranges).
    pub fn grid_for(&self, agent: NavAgent) -> Option<&NavGrid> {
        if agent.is_plain() {
            return Some(&self.grid);
        }
        self.agent_grid(agent).map(AgentGrid::grid)
    }

    /// The precomputed paths for this map, when it has
    /// [`PrecomputePaths`](super::PrecomputePaths) and the table has been built (check
    /// [`PathTable::is_current`](crate::search::PathTable::is_current) against `grid`).
    pub fn path_table(&self) -> Option<&crate::search::PathTable> {
        match self.precomputed() {
            Some(Precomputed::Table(table)) => Some(table),
            _ => None,
        }
    }

    /// The first-move table for this map, when it has [`PrecomputePaths`](super::PrecomputePaths),
    /// no path table serves it and it has at most
    /// [`MAX_FIRST_MOVE_CELLS`](crate::search::MAX_FIRST_MOVE_CELLS) passable cells (check
    /// [`FirstMoveTable::is_current`](crate::search::FirstMoveTable::is_current) against `grid`).
    pub fn first_move_table(&self) -> Option<&crate::search::FirstMoveTable> {
        match self.precomputed() {
            Some(Precomputed::FirstMoves(moves)) => Some(moves),
            _ => None,
        }
    }

    /// The landmarks that guide searches on this map, when it has
    /// [`PrecomputePaths`](super::PrecomputePaths) and no table serves it (terrain costs, 4-way
    /// or hex moves, corner cutting, too many wall corners).
    pub fn landmarks(&self) -> Option<&crate::search::Landmarks> {
        match self.precomputed() {
            Some(Precomputed::Landmarks(landmarks)) => Some(landmarks),
            _ => None,
        }
    }

    /// True when what is precomputed for this map (its path table, first-move table or
    /// landmarks) was loaded from its [`BakedPaths`](super::BakedPaths) rather than built: a
    /// way to check that a shipped bake is used.
    pub fn precomputed_from_bake(&self) -> bool {
        self.precomputed.as_ref().is_some_and(|(_, from_bake)| *from_bake)
    }

    /// The [`AgentGrid`] kept for agents of this kind, if any (with each cell's clearance).
    pub fn agent_grid(&self, agent: NavAgent) -> Option<&AgentGrid> {
        self.agents.iter().find(|(kind, _)| *kind == agent).map(|(_, grid)| grid)
    }
}

/// Every navigation map, oldest first, kept in step with the marked tilemaps by the plugin.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_tilemap_nav::prelude::*;
/// fn show(maps: Res<NavMaps>) {
///     // A game with one map:
///     if let Some(map) = maps.first() {
///         let open = map.grid.positions().filter(|&p| map.grid.is_passable(p)).count();
///         println!("{open} open cells");
///     }
///     // A game with several: by the map's entity, or by a world position.
///     if let Some(map) = maps.at_world(Vec2::new(100.0, 40.0)) {
///         println!("(100, 40) is on map {}", map.entity);
///     }
/// }
/// ```
#[derive(Resource, Clone, Debug, Default)]
pub struct NavMaps {
    maps: Vec<NavMap>,
    /// Maps built from their layers but not served yet: their entity has [`NavMapLoading`].
    held: Vec<NavMap>,
    /// Every entity with [`NavMapLoading`] (with layers or not yet).
    loading: Vec<Entity>,
}

impl NavMaps {
    /// The oldest map: in a game with one map, the map.
    pub fn first(&self) -> Option<&NavMap> {
        self.maps.first()
    }

    /// The map whose entity is `map`.
    pub fn get(&self, map: Entity) -> Option<&NavMap> {
        self.maps.iter().find(|m| m.entity == map)
    }

    /// The map a marked tilemap is a layer of.
    pub fn of_tilemap(&self, tilemap: Entity) -> Option<&NavMap> {
        self.maps.iter().find(|m| m.layers.contains(&tilemap))
    }

    /// The map under a world position: of the maps it lies on, the oldest whose cell there is
    /// open, or else the oldest.
    pub fn at_world(&self, world: Vec2) -> Option<&NavMap> {
        let mut on =
            self.maps.iter().filter_map(|m| Some((m, m.geometry.world_to_cell(world).ok()?)));
        let first = on.clone().next().map(|(m, _)| m);
        on.find(|(m, cell)| m.grid.is_passable(*cell)).map(|(m, _)| m).or(first)
    }

    /// Every map, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &NavMap> {
        self.maps.iter()
    }

    /// How many maps there are.
    pub fn len(&self) -> usize {
        self.maps.len()
    }

    /// No map yet (no tilemap marked for navigation).
    pub fn is_empty(&self) -> bool {
        self.maps.is_empty()
    }

    /// The position of map `map` in [`iter`](Self::iter)'s order (the index a linked search
    /// names it by).
    pub(crate) fn index_of(&self, map: Entity) -> Option<usize> {
        self.maps.iter().position(|m| m.entity == map)
    }

    pub(crate) fn maps_mut(&mut self) -> impl Iterator<Item = &mut NavMap> {
        self.maps.iter_mut()
    }

    /// True while the map whose entity is `map` has [`NavMapLoading`]: it is not served yet
    /// (none of the methods above finds it).
    pub fn is_loading(&self, map: Entity) -> bool {
        self.loading.contains(&map)
    }

    /// True while some map is loading: requests that find no served map to start or end on
    /// wait rather than fail.
    pub fn any_loading(&self) -> bool {
        !self.loading.is_empty()
    }

    /// A map that is loading, as its layers make it so far (not served: see
    /// [`NavMapLoading`]). `None` when it has no layers yet, or is not loading.
    pub fn loading_map(&self, map: Entity) -> Option<&NavMap> {
        self.held.iter().find(|m| m.entity == map)
    }
}

/// Put on a map's entity (the entity its layers' [`NavLayerOf`] names, or its single tilemap)
/// while the map is being put together: the plugin builds its grid from the layers there are,
/// but does not serve it. [`NavMaps`] does not list it ([`NavMaps::loading_map`] shows it);
/// path and range requests that start or end on it wait instead of failing, as do requests
/// that find no map to start or end on while any map is loading; agents walking a path on it
/// stand still. Remove it when the map is complete: a [`NavMapReady`] message follows.
///
/// The map-editor integrations put it on their maps while they load (a Tiled map from when it
/// is spawned until its objects are laid on the grid). A game that builds a level over several
/// frames can do the same.
#[derive(Component, Clone, Copy, Debug, Default, Reflect)]
#[reflect(Component, Default)]
pub struct NavMapLoading;

/// A navigation map with no tilemap: a game server, a tool or a test that has a [`NavGrid`]
/// puts it on an entity (the map's entity), with the geometry of the tilemap it stands for and
/// the entity's `Transform` for its placement (none: at the origin). The plugin serves it as
/// it serves a tilemap's map: requests, movement, links, kinds of agents, avoidance,
/// precomputed paths. Change its cells through `grid` (`Query<&mut NavGridMap>`): the plugin
/// follows the changes as it follows tiles' (only the cells changed are looked at); a grid
/// replaced whole is taken whole. Its moves and corner rule are [`NavSettings`]'s, as for
/// tilemaps. A staggered isometric map's grid is in the plugin's sheared cells
/// ([`NavGeometry::tile_to_cell`]).
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_tilemap_nav::prelude::*;
/// # use bevy_ecs_tilemap::prelude::*;
/// fn level(mut commands: Commands) {
///     let mut grid = NavGrid::new(64, 64).unwrap();
///     grid.set(GridPos::new(10, 10), Cell::Blocked).unwrap();
///     commands.spawn(NavGridMap::square(grid, Vec2::splat(16.0)));
/// }
/// ```
#[derive(Component, Clone, Debug)]
pub struct NavGridMap {
    /// The cells.
    pub grid: NavGrid,
    /// A tile's size in the world (the tilemap's grid size).
    pub tile_size: Vec2,
    /// The tilemap type it stands for.
    pub map_type: TilemapType,
    /// Where the map lies against its `Transform`, as for a tilemap.
    pub anchor: TilemapAnchor,
}

impl NavGridMap {
    /// A square map of these cells, tiles `tile_size` large, its cell (0, 0) centred on the
    /// entity's position.
    pub fn square(grid: NavGrid, tile_size: Vec2) -> Self {
        Self { grid, tile_size, map_type: TilemapType::Square, anchor: TilemapAnchor::None }
    }
}

/// The map of a Tiled level read from its file (feature `tiled_files`).
#[cfg(feature = "tiled_files")]
impl From<crate::io::tiled::TiledLevel> for NavGridMap {
    fn from(level: crate::io::tiled::TiledLevel) -> Self {
        let (grid, tile_size, map_type) = (level.grid, level.tile_size, level.map_type);
        Self { grid, tile_size, map_type, anchor: TilemapAnchor::None }
    }
}

/// The map of an LDtk level read from its file (feature `ldtk_files`): square tiles of its grid
/// size; spawn it with the level's `transform`.
#[cfg(feature = "ldtk_files")]
impl From<&crate::io::ldtk::LdtkLevel> for NavGridMap {
    fn from(level: &crate::io::ldtk::LdtkLevel) -> Self {
        Self::square(level.grid.clone(), Vec2::splat(level.tile_size))
    }
}

/// Message: a map is served from this frame on: it appeared in [`NavMaps`] (its layers were
/// marked and, if it had [`NavMapLoading`], that was removed), or came back after loading
/// again (a reloaded level).
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct NavMapReady {
    /// The map's entity ([`NavMap::entity`]).
    pub map: Entity,
}

/// A per-tile override, on a tile entity: this tile is blocked, or costs this much, whatever its
/// texture says. Immutable: change it by inserting another (or remove it). The plugin learns of
/// each insertion from a hook, so it need not look at every tile each frame to find them.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Reflect)]
#[component(immutable, on_insert = tile_nav_inserted)]
#[reflect(Component)]
pub enum TileNav {
    /// A wall.
    Blocked,
    /// Ground of this cost (at least 1).
    Cost(u32),
}

/// A per-tile terrain class, on a tile entity: what [`NavProfile`](crate::grid::NavProfile)s
/// read, whatever [`TileRules::terrain_by_texture`] says. Immutable, like [`TileNav`].
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Reflect)]
#[component(immutable, on_insert = tile_nav_inserted)]
#[reflect(Component)]
pub struct TileTerrain(pub Terrain);

/// Tiles given a [`TileNav`] or a [`TileTerrain`] since the grid sync last ran.
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

/// How tiles become cells: a rule per texture index, with defaults for the rest; and the
/// terrain class of each texture, for [`NavProfile`](crate::grid::NavProfile)s.
///
/// ```
/// use bevy_tilemap_nav::prelude::*;
///
/// const WATER: Terrain = Terrain(1);
/// let rules = TileRules::default()
///     .with(1, Cell::Blocked)                 // wall
///     .with(2, Cell::Passable { cost: 4 })    // mud
///     .with(3, Cell::Blocked)                 // water: walkers keep out...
///     .with_terrain(3, WATER);                // ...boats read it as water
/// assert_eq!(rules.cell_for_texture(1), Cell::Blocked);
/// assert_eq!(rules.cell_for_texture(7), Cell::GROUND);
/// assert_eq!(rules.terrain_for_texture(3), WATER);
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
    /// Texture index -> terrain class (unlisted: [`Terrain::DEFAULT`]). Where layers lie on
    /// one another, a cell takes the class of the newest layer that gives it one other than
    /// the default.
    pub terrain_by_texture: HashMap<u32, Terrain>,
}

impl Default for TileRules {
    fn default() -> Self {
        Self {
            by_texture: HashMap::new(),
            unlisted: Cell::GROUND,
            missing: Cell::GROUND,
            terrain_by_texture: HashMap::new(),
        }
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

    /// The cell the tiles of one texture index make (the rules' cell for unlisted textures
    /// when no rule names it).
    pub fn cell_for_texture(&self, texture_index: u32) -> Cell {
        self.by_texture.get(&texture_index).copied().unwrap_or(self.unlisted)
    }

    /// Gives the tiles of one texture index a terrain class.
    pub fn with_terrain(mut self, texture_index: u32, terrain: Terrain) -> Self {
        self.terrain_by_texture.insert(texture_index, terrain);
        self
    }

    /// The terrain class of the tiles of one texture index (the default class when none was
    /// given).
    pub fn terrain_for_texture(&self, texture_index: u32) -> Terrain {
        self.terrain_by_texture.get(&texture_index).copied().unwrap_or_default()
    }
}

/// Insert this resource (a grid loaded with [`crate::io::baked`]) to start the first (oldest)
/// map's [`NavGrid`] from baked data instead of scanning its tiles. It is used when that grid is
/// first built, if its size and topology match the tilemap's (otherwise a
/// [`TilemapNavWarning`] says so and the tiles are scanned). Tile changes at run time then
/// update the grid as usual; a change of [`TileRules`] or of the layers rescans the tiles.
#[derive(Resource, Clone, Debug)]
pub struct BakedNavGrid(pub NavGrid);

/// Message: cells of a map's [`NavGrid`] changed this frame (walls built or removed, costs
/// changed), or the map was built afresh (every cell listed).
#[derive(Message, Clone, Debug, PartialEq)]
pub struct NavGridChanged {
    /// The map's entity ([`NavMap::entity`]).
    pub map: Entity,
    /// The cells whose blocked state or cost changed, each once.
    pub cells: Vec<GridPos>,
}

/// Why something in the tilemap-to-grid layer could not be done.
#[derive(Clone, Debug, PartialEq)]
pub enum TilemapNavError {
    /// A layer's map type differs from its map's first layer's (tilemaps grouped by
    /// [`NavLayerOf`]); it is left out.
    MapTypeMismatch {
        /// The tilemap at fault.
        tilemap: Entity,
        /// The map's first layer's type.
        expected: TilemapType,
        /// This layer's.
        found: TilemapType,
    },
    /// A layer's size differs from its map's first layer's (tilemaps grouped by
    /// [`NavLayerOf`]); it is left out.
    SizeMismatch {
        /// The tilemap at fault.
        tilemap: Entity,
        /// The map's first layer's size.
        expected: UVec2,
        /// This layer's.
        found: UVec2,
    },
    /// The tilemap has no cells.
    Empty {
        /// The tilemap at fault.
        tilemap: Entity,
    },
    /// The tilemap's `TilemapSize` and its `TileStorage` disagree on how many tiles it has; it is
    /// left out of the grid.
    InconsistentSize {
        /// The tilemap at fault.
        tilemap: Entity,
        /// Its `TilemapSize`.
        size: UVec2,
        /// Its `TileStorage`'s size.
        storage_size: UVec2,
        /// How many tiles the storage holds.
        storage_tiles: usize,
    },
    /// The tilemap has more cells than a grid can hold ([`crate::grid::MAX_CELLS`]) or than
    /// memory allows; it is left out of the grid.
    TooLarge {
        /// The tilemap at fault.
        tilemap: Entity,
        /// Its size.
        size: UVec2,
    },
    /// The tilemap's `TilemapGridSize` or `TilemapTileSize` is not a finite size above 0, or
    /// its `Transform` is not finite (NaN or infinite): no world position could be given a
    /// cell. It is left out until they are.
    BadGeometry {
        /// The tilemap at fault.
        tilemap: Entity,
    },
    /// The [`BakedNavGrid`] does not fit the tilemap; the tiles were scanned instead.
    Baked(BakeError),
    /// A map's [`BakedPaths`](super::BakedPaths) could not be used (damaged, of a newer
    /// version, or made for other cells); what it holds is built instead.
    BakedPaths {
        /// The map's entity.
        map: Entity,
        /// Why.
        error: BakeError,
    },
}

impl fmt::Display for TilemapNavError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TilemapNavError::MapTypeMismatch { tilemap, expected, found } => write!(
                f,
                "tilemap {tilemap} is {found:?} but the map it is a layer of is {expected:?}; it is left out"
            ),
            TilemapNavError::SizeMismatch { tilemap, expected, found } => write!(
                f,
                "tilemap {tilemap} is {found} tiles but the map it is a layer of is {expected}; it is left out"
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
            TilemapNavError::BadGeometry { tilemap } => write!(
                f,
                "tilemap {tilemap} has a grid or tile size that is not a finite number above 0, \
                 or a Transform that is not finite; it is left out"
            ),
            TilemapNavError::Baked(error) => write!(f, "{error}; the tiles were scanned instead"),
            TilemapNavError::BakedPaths { map, error } => {
                write!(f, "baked paths of map {map}: {error}; built instead")
            }
        }
    }
}

impl std::error::Error for TilemapNavError {}

/// Message: a tilemap marked [`NavTilemap`] could not be used as it is.
#[derive(Message, Clone, Debug, PartialEq)]
pub struct TilemapNavWarning {
    /// What went wrong.
    pub error: TilemapNavError,
}

/// Where a map's grid sits in the world: what world <-> cell conversion needs. Taken from the
/// map's first (oldest) layer; its `Transform` must be the world transform (a root entity).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NavGeometry {
    /// The layer tilemap it is taken from.
    pub tilemap: Entity,
    /// The tilemap's size in tiles.
    pub size: TilemapSize,
    /// Its grid size (tile spacing), in world units.
    pub grid_size: TilemapGridSize,
    /// Its tile size, in world units.
    pub tile_size: TilemapTileSize,
    /// Square, isometric or hex.
    pub map_type: TilemapType,
    /// Where the tilemap is anchored on its transform.
    pub anchor: TilemapAnchor,
    /// The tilemap's world transform.
    pub transform: Transform,
    /// On square and isometric maps, where cell centres are affine in the cell: the world
    /// centre of cell (0, 0) and the steps to cells (1, 0) and (0, 1), so that a path's
    /// points cost two multiply-adds each rather than bevy_ecs_tilemap's whole conversion.
    affine: Option<[Vec2; 3]>,
    /// World to the tilemap's local space (the transform's inverse), and the anchor's offset
    /// in that space: computed once, not per conversion.
    to_local: bevy::math::Affine3A,
    anchor_offset: Vec2,
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
        let to_local = transform.compute_affine().inverse();
        let anchor_offset = anchor.as_offset(&size, &grid_size, &tile_size, &map_type);
        let mut geometry = Self {
            tilemap,
            size,
            grid_size,
            tile_size,
            map_type,
            anchor,
            transform,
            affine: None,
            to_local,
            anchor_offset,
        };
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
        let local = self.to_local.transform_point3(world.extend(0.0));
        let local = local.truncate();
        if !local.is_finite() {
            // A finite point that the map's scale takes past `f32`'s range: far off the map.
            return Err(WorldToCellError::OffMap(world));
        }
        // bevy_ecs_tilemap's own conversion, with the anchor's offset taken off once here.
        let pos = local - self.anchor_offset;
        let tile = match self.map_type {
            // Its square case, written out: the most common, and called per agent per frame.
            TilemapType::Square => {
                let x = ((pos.x / self.grid_size.x) + 0.5).floor();
                let y = ((pos.y / self.grid_size.y) + 0.5).floor();
                let inside =
                    x >= 0.0 && y >= 0.0 && x < self.size.x as f32 && y < self.size.y as f32;
                inside.then(|| TilePos::new(x as u32, y as u32))
            }
            // bevy_ecs_tilemap's helpers for the other types count in integers, which a point
            // far off the map overflows (a panic in debug builds): such a point is off the map,
            // said before they are asked.
            _ if !self.near_map(pos) => None,
            _ => TilePos::from_world_pos(
                &pos,
                &self.size,
                &self.grid_size,
                &self.tile_size,
                &self.map_type,
                &TilemapAnchor::None,
            ),
        };
        tile.map(|t| self.tile_to_cell(t)).ok_or(WorldToCellError::OffMap(world))
    }

    /// True when a local point (anchor offset taken off) lies within a box round the map that
    /// holds every tile of every map type: as many tiles out as the map is wide and tall, each
    /// the largest of the grid and tile sizes.
    fn near_map(&self, local: Vec2) -> bool {
        let (grid, tile) = (self.grid_size, self.tile_size);
        let step = grid.x.abs().max(grid.y.abs()).max(tile.x.abs()).max(tile.y.abs());
        let reach = (self.size.x as f32 + self.size.y as f32 + 2.0) * step;
        reach.is_finite() && local.x.abs() <= reach && local.y.abs() <= reach
    }

    /// The world-space centre of a cell, where bevy_ecs_tilemap draws its tile (honouring the
    /// map type, the `TilemapAnchor` and the tilemap's transform).
    pub fn cell_to_world(&self, cell: GridPos) -> Vec2 {
        match self.affine {
            Some([origin, across, up]) => origin + across * cell.x as f32 + up * cell.y as f32,
            None => self.tile_center(cell.x, cell.y),
        }
    }

    /// Where the centre of an agent `size` tiles across lies from the centre of the cell
    /// where its lowest corner stands (an [`AgentGrid`]'s cell): half a body diagonally up the
    /// map's axes. Zero for size 1, and on hex maps (which take size 1 only).
    pub fn body_offset(&self, size: u32) -> Vec2 {
        match self.affine {
            Some([_, across, up]) => (across + up) * size.saturating_sub(1) as f32 / 2.0,
            None => Vec2::ZERO,
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
    /// What each position of this layer says (its cell and terrain class), index
    /// `y * width + x`.
    cells: Vec<(Cell, Terrain)>,
}

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
    (Option<&'static TileNav>, Option<&'static TileTerrain>, Option<&'static TileTextureIndex>),
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

fn resolve(entity: Option<Entity>, tiles: &TileQuery, rules: &TileRules) -> (Cell, Terrain) {
    let Some(Ok((nav, terrain, texture))) = entity.map(|e| tiles.get(e)) else {
        return (rules.missing, Terrain::DEFAULT);
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
    (cell, terrain)
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
    changed_tiles: Query<(&TilePos, &TilemapId), Changed<TileTextureIndex>>,
    (mut changed_scratch, mut diagnostics): (Local<ChangedTiles>, ResMut<NavDiagnostics>),
    mut inserted_overrides: ResMut<InsertedOverrides>,
    (mut removed_overrides, mut removed_terrain): (
        RemovedComponents<TileNav>,
        RemovedComponents<TileTerrain>,
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
        list.extend(changed_tiles.iter().map(|(pos, map)| (*pos, *map)));
        for (pos, map) in list.iter() {
            if !new_layers.contains(&map.0) {
                touch(pos, map, &mut layers);
            }
        }
    }
    let removed = removed_overrides.read().chain(removed_terrain.read());
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
        let combine = |k: usize| -> (Cell, Terrain) {
            members.iter().fold((Cell::GROUND, Terrain::DEFAULT), |(cell, terrain), (_, l)| {
                let (here, class) = l.cells[k];
                let cell = cell.stacked(here);
                (cell, if class == Terrain::DEFAULT { terrain } else { class })
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
                let changes: Vec<(GridPos, (Cell, Terrain))> = tiles_to_check
                    .into_iter()
                    .map(|tile| (tile_cell(map_type, tile.x, tile.y), combine(tile_index(tile))))
                    .filter(|&(pos, (cell, terrain))| {
                        grid.get(pos) != Some(cell) || grid.terrain(pos) != Some(terrain)
                    })
                    .collect();
                if !changes.is_empty() {
                    // One call for the frame's changes: when they are many (a layer added or
                    // removed, a level rewritten) the search's bits are rebuilt once rather
                    // than round each cell. Every combined cell is valid and every position is
                    // on the grid (the layers have its size), so this cannot fail.
                    let _ = grid.set_all(changes.iter().map(|&(pos, (cell, _))| (pos, cell)));
                    let _ = grid.set_all_terrain(changes.iter().map(|&(pos, (_, t))| (pos, t)));
                    let cells: Vec<GridPos> = changes.into_iter().map(|(pos, _)| pos).collect();
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
                                (tile_cell(map_type, tile.x, tile.y), combine(tile_index(tile)))
                            })
                            .collect();
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
