//! # bevy_tilemap_nav
//!
//! Pathfinding for Bevy games whose levels are `bevy_ecs_tilemap` tilemaps (square, isometric
//! or hexagonal): a navigation grid built from the tiles, optimal A* paths with per-tile terrain
//! costs, and agents that walk those paths and plan again when walls move.
//!
//! The crate is layered, one folder each, each importing only the ones above it in this list
//! (`ci/import_graph.py` checks it in CI, and that no two files import each other):
//! - [`grid`]: cells, costs, topologies (square 4/8-way, hex), connectivity, line of sight, and
//!   the sealed binary form every baked format shares;
//! - [`search`]: the A* loop and one file per expansion (neighbours, jump points, Theta*),
//!   searches through links and over chunked worlds, precomputed help, and searches spread over
//!   frames within a budget (`search::schedule`, crate-private);
//! - [`path`]: shaping found paths (smoothing, costs);
//! - [`side_view`]: side-view levels (platformers): moves under gravity generated from the tiles
//!   for each jump profile, and plans fastest in time over them;
//! - [`io`]: file formats (MovingAI maps and scenarios, baked grids, Tiled and LDtk levels read
//!   into grids);
//! - [`plugin`]: the Bevy layer (tilemaps to navigation maps, links between them, requests,
//!   movement, debug drawing).
//!
//! The Bevy layer sits behind the `bevy` feature (on by default). With
//! `default-features = false` the crate is the grid, the search and the file formats alone,
//! with no Bevy in its dependency tree: for tools, servers and the fuzz targets in `fuzz/`.
//!
//! The [`guide`] walks through each part (marking tiles, requests, precomputed paths, links,
//! moving, crowds, kinds of agents, Tiled and LDtk levels, the core without Bevy, platforms),
//! with code that `cargo test` compiles.
//!
//! ## From tiles to walking characters
//!
//! 1. You spawn a `bevy_ecs_tilemap` tilemap as usual and add [`NavTilemap`](plugin::NavTilemap)
//!    to it. [`TileRules`](plugin::TileRules) (a resource) says which texture indices are walls
//!    and what the others cost; [`TileNav`](plugin::TileNav) on a tile overrides its texture.
//! 2. The plugin keeps a [`NavMap`](plugin::NavMap) per map in [`NavMaps`](plugin::NavMaps): a
//!    [`NavGrid`](grid::NavGrid) (one cell per tile: blocked, or a cost) and a
//!    [`NavGeometry`](plugin::NavGeometry) (world position <-> cell), updated cell by cell when
//!    tiles change ([`NavGridChanged`](plugin::NavGridChanged) says which).
//! 3. A character asks with [`PathRequest`](plugin::PathRequest). The plugin answers within the
//!    frame's budget with an optimal path (jump point search where it pays, A* otherwise, a
//!    precomputed [`PathTable`](search::PathTable) on maps marked
//!    [`PrecomputePaths`](plugin::PrecomputePaths)): a [`NavPath`](plugin::NavPath) component, or
//!    [`PathFailed`](plugin::PathFailed) with a typed reason.
//! 4. [`PathFollower`](plugin::PathFollower) walks the path, re-plans when a wall cuts it and
//!    sends [`Arrived`](plugin::Arrived). [`Avoidance`](plugin::Avoidance) steers round other
//!    characters; [`GridLocked`](plugin::GridLocked) holds whole cells (tactics games).
//!
//! ## Which component to reach for
//!
//! | You want | Use |
//! |---|---|
//! | a tilemap to be walkable | [`NavTilemap`](plugin::NavTilemap) + [`TileRules`](plugin::TileRules) |
//! | a character to go somewhere | [`PathRequest`](plugin::PathRequest) + [`PathFollower`](plugin::PathFollower) |
//! | characters not to walk through each other | [`Avoidance`](plugin::Avoidance), [`NavObstacle`](plugin::NavObstacle) |
//! | stairs, doors, teleporters between maps | [`NavLink`](plugin::NavLink) |
//! | boats, ghosts, big monsters | [`AgentKind`](plugin::AgentKind) with a [`NavProfile`](grid::NavProfile) from [`NavProfiles`](plugin::NavProfiles) |
//! | a tactics game's movement range | [`RangeRequest`](plugin::RangeRequest) |
//! | microsecond queries on a level that rarely changes | [`PrecomputePaths`](plugin::PrecomputePaths) |
//! | fast searches on a level with terrain costs | [`PrecomputePaths`](plugin::PrecomputePaths) (it keeps a [`FirstMoveTable`](search::FirstMoveTable) on small maps, [`Landmarks`](search::Landmarks) on larger ones) |
//! | a level from Tiled or LDtk | features `tiled`, `ldtk` (`integrations`) |
//! | paths without Bevy | [`Pathfinder`](search::Pathfinder) on a [`NavGrid`](grid::NavGrid) |
//!
//! ## A path without Bevy
//!
//! ```
//! use bevy_tilemap_nav::prelude::*;
//!
//! // A wall with a gap at the top, and a patch of mud on the way there.
//! let mut grid = NavGrid::new(8, 5).unwrap();
//! grid.fill_rect(GridPos::new(3, 0), GridPos::new(3, 3), Cell::Blocked).unwrap();
//! grid.set(GridPos::new(1, 1), Cell::Passable { cost: 4 }).unwrap();
//! let mut pathfinder = Pathfinder::new();
//! let path = pathfinder
//!     .find(&grid, &PathQuery::new(GridPos::new(0, 0), GridPos::new(7, 0)))
//!     .unwrap();
//! assert!(path.cells.contains(&GridPos::new(3, 4))); // through the gap
//! assert!(!path.cells.contains(&GridPos::new(1, 1))); // round the mud
//! ```

#![warn(missing_docs)]

pub mod grid;
pub mod guide;
#[cfg(any(feature = "tiled", feature = "ldtk"))]
pub mod integrations;
pub mod io;
pub mod path;
#[cfg(feature = "bevy")]
pub mod plugin;
pub mod search;
pub mod side_view;
#[cfg(test)]
mod test_rng;

/// What a game uses (about thirty names): the plugin and its settings, marking tiles, asking
/// for paths and walking them, crowds, links, kinds of agents, precomputed paths, and the grid
/// and search for code without Bevy. Everything else by its module path.
pub mod prelude {
    pub use crate::grid::{Cell, Edge, GridPos, NavGrid, NavProfile, Sides, Terrain, TerrainRule};
    #[cfg(feature = "bevy")]
    pub use crate::plugin::{
        AgentKind, Arrived, Avoidance, GridLocked, LinkCrossed, LinkEnd, MoveRange, NavError,
        NavGridMap, NavLink, NavMaps, NavObstacle, NavPath, NavProfiles, NavSet, NavSettings,
        NavTeam, NavTilemap, PathFailed, PathFollower, PathGoal, PathRequest, PrecomputePaths,
        RangeRequest, TileEdges, TileNav, TileRules, TileTerrain, TilemapNavPlugin,
        WhenUnreachable,
    };
    pub use crate::search::{PathQuery, Pathfinder, SearchOptions};
}

/// The README's code blocks, compiled and run as doc tests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
