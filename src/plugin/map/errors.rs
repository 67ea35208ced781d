//! What can be wrong with a map or a position, as typed errors.

#[cfg(doc)]
use crate::plugin::BakedNavGrid;
#[cfg(doc)]
use crate::plugin::NavLayerOf;
#[cfg(doc)]
use crate::plugin::NavTilemap;
use std::fmt;

use bevy::prelude::*;
use bevy_ecs_tilemap::map::TilemapType;

use crate::io::baked::BakeError;

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
    /// A map's [`BakedPaths`](crate::plugin::BakedPaths) could not be used (damaged, of a newer
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
