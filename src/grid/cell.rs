//! Cells and their positions: what a [`NavGrid`](super::NavGrid) holds.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A cell of a [`NavGrid`](super::NavGrid): column `x`, row `y`. MovingAI files count rows from the top; the
/// Bevy layer uses `bevy_ecs_tilemap`'s `TilePos` as it is (rows from the bottom).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
pub struct GridPos {
    /// Column, from 0 at the left.
    pub x: u32,
    /// Row, from 0 at the bottom (as `TilePos`).
    pub y: u32,
}

impl GridPos {
    /// The cell at column `x`, row `y`.
    pub const fn new(x: u32, y: u32) -> Self {
        Self { x, y }
    }
}

impl fmt::Display for GridPos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

impl From<(u32, u32)> for GridPos {
    fn from((x, y): (u32, u32)) -> Self {
        Self { x, y }
    }
}

/// What a cell is: a wall, or ground an agent may enter at a cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Cell {
    /// Nothing may enter this cell.
    Blocked,
    /// An agent may enter; entering costs step length x `cost` (1 = ordinary ground).
    Passable {
        /// What entering costs per unit of step length, at least 1.
        cost: u32,
    },
}

impl Cell {
    /// Ordinary ground: passable at cost 1.
    pub const GROUND: Cell = Cell::Passable { cost: 1 };

    /// This cell with `other` laid over it, as layers of one map combine: blocked if either
    /// is, else the higher cost.
    pub fn stacked(self, other: Cell) -> Cell {
        match (self, other) {
            (Cell::Blocked, _) | (_, Cell::Blocked) => Cell::Blocked,
            (Cell::Passable { cost: a }, Cell::Passable { cost: b }) => {
                Cell::Passable { cost: a.max(b) }
            }
        }
    }

    /// True for ground, false for a wall.
    pub fn is_passable(self) -> bool {
        matches!(self, Cell::Passable { .. })
    }
}

/// A kind of ground (water, mud, road, wall...), by number: what a
/// [`NavProfile`](super::NavProfile) reads to give each kind of agent its own costs. Every
/// cell has one (default `Terrain(0)`); the grid's own cost and wall say what an agent with no
/// profile sees, whatever the terrain.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
pub struct Terrain(pub u8);

impl Terrain {
    /// The terrain of a cell nobody gave one.
    pub const DEFAULT: Terrain = Terrain(0);
}

/// Why a grid could not be built or changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GridError {
    /// Width or height is zero.
    Empty {
        /// The width asked for.
        width: u32,
        /// The height asked for.
        height: u32,
    },
    /// The grid would not fit in memory (or in this crate's 32-bit cell indices).
    TooLarge {
        /// The width asked for.
        width: u32,
        /// The height asked for.
        height: u32,
    },
    /// A cell outside the grid was addressed.
    OutOfBounds {
        /// The cell addressed.
        pos: GridPos,
        /// The grid's width in cells.
        width: u32,
        /// The grid's height in cells.
        height: u32,
    },
    /// A passable cell must cost at least 1.
    ZeroCost {
        /// The cell given cost 0.
        pos: GridPos,
    },
    /// An agent size the grid cannot serve: 0, larger than
    /// [`MAX_AGENT_SIZE`](super::MAX_AGENT_SIZE), or larger than 1 on a hex grid.
    UnsupportedSize {
        /// The size asked for, in cells on a side.
        size: u32,
    },
    /// An edge was set between two cells that are not neighbours across an edge: on a square
    /// grid the four straight neighbours, on a hex grid the six.
    NotNeighbors {
        /// The cell on one side.
        from: GridPos,
        /// The cell asked for on the other side.
        to: GridPos,
    },
}

impl fmt::Display for GridError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GridError::Empty { width, height } => {
                write!(f, "a navigation grid needs at least one cell, got {width} x {height}")
            }
            GridError::TooLarge { width, height } => {
                write!(f, "a {width} x {height} navigation grid is too large to allocate")
            }
            GridError::OutOfBounds { pos, width, height } => {
                write!(f, "cell {pos} is outside the {width} x {height} grid")
            }
            GridError::ZeroCost { pos } => {
                write!(f, "cell {pos}: a passable cell must cost at least 1, got 0")
            }
            GridError::UnsupportedSize { size } => write!(
                f,
                "agent size {size} is not supported: sizes run from 1 to {} tiles, and hex \
                 grids take size 1 only",
                super::MAX_AGENT_SIZE
            ),
            GridError::NotNeighbors { from, to } => {
                write!(f, "cells {from} and {to} share no edge, so no wall can stand between them")
            }
        }
    }
}

impl std::error::Error for GridError {}

/// Largest number of cells a grid may have: indices are `u32`, with a border of padding.
pub const MAX_CELLS: u64 = 1 << 30;

pub(crate) fn cell_cost(cell: Cell, pos: GridPos) -> Result<u32, GridError> {
    match cell {
        Cell::Blocked => Ok(0),
        Cell::Passable { cost: 0 } => Err(GridError::ZeroCost { pos }),
        Cell::Passable { cost } => Ok(cost),
    }
}
