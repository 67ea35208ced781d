//! Maps: from `bevy_ecs_tilemap` tiles (or a [`NavGrid`](crate::grid::NavGrid) with no
//! tilemap) to navigation maps, and between world space and cells. In order, each file using
//! only those before it: `errors`, `geometry` (world <-> cell for every map type),
//! `components` (what a game puts on entities: tilemaps, tiles, rules), `model` (the
//! [`NavMaps`] the plugin keeps), `layers` (tilemaps' tiles read where they changed, and
//! grouped into maps), `grids` (each map's grid built or brought in step), `sync` (the system
//! that runs those stages each frame).

mod components;
mod errors;
mod geometry;
mod grids;
mod layers;
mod model;
mod sync;

pub use components::{
    BakedNavGrid, NavGridMap, NavLayerOf, NavMapLoading, NavTilemap, NavTopology, TileEdges,
    TileNav, TileRules, TileTerrain,
};
pub use errors::{TilemapNavError, TilemapNavWarning, WorldToCellError};
pub use geometry::{NavGeometry, hex_coords, neighborhood_for};
pub use model::{NavGridChanged, NavMap, NavMapReady, NavMaps};

pub(crate) use components::InsertedOverrides;
pub(crate) use layers::NavLayers;
pub(crate) use model::Precomputed;
pub(crate) use sync::sync_nav_grid;
