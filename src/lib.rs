//! # bevy_tilemap_nav
//!
//! Pathfinding for Bevy games whose levels are `bevy_ecs_tilemap` tilemaps: a navigation grid
//! built from the tiles, optimal A* paths on 4- or 8-way grids with per-tile terrain costs, and
//! agents that walk those paths and plan again when walls move.
//!
//! The crate is layered:
//! - [`grid`] and [`search`]: plain Rust, no Bevy types in their API;
//! - [`io`]: map formats (MovingAI benchmark maps and scenarios);
//! - the Bevy layer: [`plugin`], [`tilemap`], [`request`], [`movement`].
//!
//! The Bevy layer sits behind the `bevy` feature (on by default). With
//! `default-features = false` the crate is the grid, the search and the file formats alone,
//! with no Bevy in its dependency tree: for tools, servers and the fuzz targets in `fuzz/`.

mod avoided;
#[cfg(feature = "bevy")]
mod debug;
pub mod grid;
pub mod io;
#[cfg(feature = "bevy")]
pub mod movement;
#[cfg(feature = "bevy")]
pub mod plugin;
#[cfg(feature = "bevy")]
pub mod request;
pub mod search;
pub mod smooth;
#[cfg(feature = "bevy")]
pub mod tilemap;

/// The names most programs need.
pub mod prelude {
    pub use crate::grid::{
        Cell, CornerRule, GridError, GridPos, GridStamp, HexCoords, NavGrid, Neighborhood,
    };
    #[cfg(feature = "bevy")]
    pub use crate::movement::{Arrived, NavObstacle, PathFollower, Replanning};
    #[cfg(feature = "bevy")]
    pub use crate::plugin::{NavSet, NavSettings, TilemapNavPlugin};
    #[cfg(feature = "bevy")]
    pub use crate::request::{
        NavDiagnostics, NavError, Path, PathFailed, PathGoal, PathRequest, WatchSearch,
        WatchedSearch,
    };
    pub use crate::search::{
        Algorithm, Heuristic, PathError, PathResult, Pathfinder, SearchLimit, SearchOptions,
        SearchStats, SearchStep, SearchTrace,
    };
    #[cfg(feature = "bevy")]
    pub use crate::tilemap::{
        BakedNavGrid, NavGeometry, NavGridChanged, NavTilemap, TileNav, TileRules, TilemapNavError,
        TilemapNavWarning, WorldToCellError,
    };
}

/// The README's code blocks, compiled and run as doc tests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
