//! What a game puts on its entities to make maps: [`NavTilemap`] and [`NavLayerOf`] on tilemaps,
//! [`NavGridMap`] for a map with no tilemap, [`NavMapLoading`] while one is put together,
//! [`TileNav`], [`TileTerrain`] and [`TileEdges`] on tiles, and the [`TileRules`] that say what
//! textures mean.

#[cfg(doc)]
use crate::plugin::NavGeometry;
#[cfg(doc)]
use crate::plugin::NavMapReady;
#[cfg(doc)]
use crate::plugin::NavMaps;
#[cfg(doc)]
use crate::plugin::NavSettings;
#[cfg(doc)]
use crate::plugin::TilemapNavWarning;
use std::collections::HashMap;

use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::world::DeferredWorld;
use bevy::prelude::*;
use bevy_ecs_tilemap::anchor::TilemapAnchor;
use bevy_ecs_tilemap::map::TilemapType;

use crate::grid::{Cell, CornerRule, NavGrid, Neighborhood, Sides, Terrain};

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
/// tilemaps, unless it has a [`NavTopology`] (its grid's own are not read). A staggered isometric map's grid is in the plugin's sheared cells
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

/// Walls and ledges on the sides of a tile, on a tile entity: a fence, a thin wall or a closed
/// door between this tile and the next (both stay floor), a ledge to drop down and never climb.
/// The sides are the navigation grid's (see [`Sides`]: on square and isometric maps north is
/// +y of `TilePos`; on hex maps `Sides::hex` of bevy_ecs_tilemap's `HexDirection`). Where
/// layers lie on one another their tiles' sides add up. Immutable, like [`TileNav`]: open a
/// door by inserting the tile's edges without it (or removing the component).
///
/// A step from a tile to its neighbour is barred when this tile has a wall on that side, or
/// the neighbour has a wall or a drop on the side facing it. No diagonal step passes the end
/// of a wall or ledge.
///
/// ```
/// use bevy_tilemap_nav::grid::Sides;
/// use bevy_tilemap_nav::plugin::TileEdges;
///
/// // A fence along the north side of a tile, and a ledge on its east side.
/// let edges = TileEdges { walls: Sides::NORTH, drops: Sides::EAST };
/// assert!(edges.walls.contains(Sides::NORTH) && !edges.is_empty());
/// ```
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[component(immutable, on_insert = tile_nav_inserted)]
#[reflect(Component)]
pub struct TileEdges {
    /// Sides with a wall: no step crosses them either way.
    pub walls: Sides,
    /// Sides with a ledge: a step may leave the tile across them (drop down), none comes in.
    pub drops: Sides,
}

impl TileEdges {
    /// No wall and no ledge.
    pub fn is_empty(self) -> bool {
        self.walls.is_empty() && self.drops.is_empty()
    }

    /// The sides of both.
    pub(crate) fn and(self, other: TileEdges) -> TileEdges {
        TileEdges { walls: self.walls | other.walls, drops: self.drops | other.drops }
    }
}

/// Tiles given a [`TileNav`], [`TileTerrain`] or [`TileEdges`] since the grid sync last ran.
#[derive(Resource, Default, Debug)]
pub(crate) struct InsertedOverrides(pub(super) Vec<Entity>);

fn tile_nav_inserted(mut world: DeferredWorld, context: HookContext) {
    if let Some(mut inserted) = world.get_resource_mut::<InsertedOverrides>() {
        inserted.0.push(context.entity);
    }
}

impl TileNav {
    #[inline]
    pub(super) fn cell(self) -> Cell {
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
    #[inline]
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
    #[inline]
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

/// A map's own moves and corner rule, where they differ from [`NavSettings`]' (the defaults for
/// every map). Put it on a map's entity: the tilemap (or the entity named by its layers'
/// [`NavLayerOf`]), or a [`NavGridMap`]'s. A field left `None` takes the settings' value.
/// Changing it changes the map's grid the next frame, as changing the settings does.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_tilemap_nav::prelude::*;
/// use bevy_tilemap_nav::grid::Neighborhood;
/// use bevy_tilemap_nav::plugin::NavTopology;
///
/// fn level(mut commands: Commands) {
///     // A grid puzzle beside an 8-way world: this map moves 4 ways.
///     let grid = NavGrid::new(16, 16).unwrap();
///     commands.spawn((
///         NavGridMap::square(grid, Vec2::splat(16.0)),
///         NavTopology { neighborhood: Some(Neighborhood::Four), corner_rule: None },
///     ));
/// }
/// ```
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
pub struct NavTopology {
    /// The moves on a square or isometric map (`Four` or `Eight`; hex maps always use their
    /// six neighbours).
    pub neighborhood: Option<Neighborhood>,
    /// Whether diagonal steps may pass a blocked corner.
    pub corner_rule: Option<CornerRule>,
}

impl NavTopology {
    /// The moves and corner rule of a map with this topology (or none) under `settings`.
    pub(crate) fn resolve(
        topology: Option<&Self>,
        settings: &crate::plugin::NavSettings,
    ) -> (Neighborhood, CornerRule) {
        let own = topology.copied().unwrap_or_default();
        (
            own.neighborhood.unwrap_or(settings.neighborhood),
            own.corner_rule.unwrap_or(settings.corner_rule),
        )
    }
}
