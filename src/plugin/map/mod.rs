//! Maps: from `bevy_ecs_tilemap` tiles (or a [`NavGrid`](crate::grid::NavGrid) with no
//! tilemap) to navigation maps, and between world space and cells. In order, each file using
//! only those before it: `errors`, `geometry` (world <-> cell for every map type),
//! `components` (what a game puts on entities: tilemaps, tiles, rules), `model` (the
//! [`NavMaps`] the plugin keeps), `sync` (the system keeping them in step with the tiles).

mod components;
mod errors;
mod geometry;
mod model;
mod sync;

pub use components::{
    BakedNavGrid, NavGridMap, NavLayerOf, NavMapLoading, NavTilemap, TileEdges, TileNav, TileRules,
    TileTerrain,
};
pub use errors::{TilemapNavError, TilemapNavWarning, WorldToCellError};
pub use geometry::{NavGeometry, hex_coords, neighborhood_for};
pub use model::{NavGridChanged, NavMap, NavMapReady, NavMaps};

pub(crate) use components::InsertedOverrides;
pub(crate) use model::Precomputed;
pub(crate) use sync::{NavLayers, sync_nav_grid};
