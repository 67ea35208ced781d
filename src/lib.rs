//! # bevy_tilemap_nav
//!
//! Pathfinding for Bevy games whose levels are `bevy_ecs_tilemap` tilemaps (square, isometric
//! or hexagonal): a navigation grid built from the tiles, optimal A* paths with per-tile terrain
//! costs, and agents that walk those paths and plan again when walls move.
//!
//! The crate is layered, one folder each, each importing only the ones above it in this list:
//! - [`grid`]: cells, costs, topologies (square 4/8-way, hex), connectivity, line of sight;
//! - [`search`]: the A* loop and one file per expansion (neighbours, jump points, Theta*);
//! - [`path`]: shaping found paths (smoothing, costs);
//! - [`io`]: file formats (MovingAI maps and scenarios, baked grids);
//! - [`plugin`]: the Bevy layer (tilemaps to navigation maps, links between them, requests,
//!   movement, debug drawing).
//!
//! The Bevy layer sits behind the `bevy` feature (on by default). With
//! `default-features = false` the crate is the grid, the search and the file formats alone,
//! with no Bevy in its dependency tree: for tools, servers and the fuzz targets in `fuzz/`.

pub mod grid;
#[cfg(any(feature = "tiled", feature = "ldtk"))]
pub mod integrations;
pub mod io;
pub mod path;
#[cfg(feature = "bevy")]
pub mod plugin;
pub mod search;

/// The names most programs need.
pub mod prelude {
    pub use crate::grid::{
        Cell, CornerRule, GridError, GridPos, GridStamp, HexCoords, NavGrid, NavProfile,
        Neighborhood, Terrain, TerrainRule,
    };
    pub use crate::path::{Reach, ReachedCell, reachable};
    #[cfg(feature = "bevy")]
    pub use crate::plugin::{
        Arrived, Avoidance, AvoidanceSettings, BakedNavGrid, GridLocked, LinkCrossed, LinkEnd,
        MoveRange, NavAgent, NavDiagnostics, NavError, NavGeometry, NavGridChanged, NavLayerOf,
        NavLink, NavMap, NavMaps, NavObstacle, NavProfiles, NavSet, NavSettings, NavTilemap,
        OnNavMap, Path, PathFailed, PathFollower, PathGoal, PathLeg, PathRequest, PrecomputePaths,
        ProfileId, RangeFailed, RangeRequest, Replanning, TileNav, TileRules, TileTerrain,
        TilemapNavError, TilemapNavPlugin, TilemapNavWarning, WatchSearch, WatchedSearch,
        WorldToCellError,
    };
    pub use crate::search::{
        AgentGrid, Algorithm, Heuristic, Link, LinkedPath, MapPos, PathError, PathResult,
        PathTable, Pathfinder, SearchLimit, SearchOptions, SearchStats, SearchStep, SearchTrace,
    };
}

/// The README's code blocks, compiled and run as doc tests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
