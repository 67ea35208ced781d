//! Side-view levels (platformers, metroidvanias): gravity along -y, characters that walk,
//! step, climb ladders, jump, fall off edges and drop through one-way platforms, with plans
//! fastest in time.
//!
//! - [`SideViewMap`]: the tiles ([`SideTile`]: empty, solid, ladder, one-way platform).
//! - [`JumpProfile`]: how a character moves: run and climb speeds, jump height, gravity, body.
//! - [`SideViewMoves`]: every move the profile can make on the map, generated from the
//!   tiles, and made again only near tiles that change ([`SideViewMoves::retile`]).
//! - [`SideViewPlanner`]: the fastest [`SideViewPath`] over those moves; each [`Leg`] says
//!   what it is ([`LegKind`]) and, for flights, its [`Arc`].
//!
//! What the moves are, exactly (the body is a `w` x `h` box of tiles, its position its lower
//! left tile; touching a tile's side is not being inside it):
//! - the body **stands** where it overlaps no solid tile and something is under one of its
//!   columns: a solid tile, a one-way platform, a ladder's top rung, or the map's bottom; it
//!   **holds a ladder** where a ladder tile is in its lowest row;
//! - **walk**: one tile sideways to a place it stands or holds a ladder (1 / run speed);
//! - **step** (profiles with `steps`): up or down one tile to the side, as a rise and a run
//!   (or a run and a drop), 1 / run speed;
//! - **climb**: up or down one tile while holding a ladder (the tile above a ladder's top
//!   is reached by climbing), 1 / climb speed;
//! - **jump**: from where it stands, at each of the profile's jump heights, on an arc at
//!   any sideways speed up to the run speed, to any place it stands that the arc reaches on
//!   its way down;
//! - **fall**: a walk off an edge (one tile sideways to where nothing holds it), then an arc
//!   with no speed up;
//! - **drop**: down through what it stands on, when that is all one-way platforms or ladder
//!   tops, on an arc with no speed up;
//! - every flight keeps the body out of solid tiles the whole way and ends on the first
//!   thing that holds it up: it never passes down through a platform or ladder top it is
//!   over (but for a drop's own), and it passes up through one-way platforms.
//!
//! ```
//! use bevy_tilemap_nav::grid::GridPos;
//! use bevy_tilemap_nav::side_view::{JumpProfile, LegKind, SideViewMap, SideViewMoves};
//!
//! let map = SideViewMap::from_rows(&[
//!     "..........",
//!     ".....---..",
//!     "..........",
//!     "###....###",
//! ])
//! .unwrap();
//! let hero = JumpProfile::new(6.0, 3.0, 40.0);
//! let moves = SideViewMoves::new(&map, hero).unwrap();
//! let path = moves.plan(&map, GridPos::new(0, 1), GridPos::new(6, 3)).unwrap();
//! assert_eq!(path.stops.last(), Some(&GridPos::new(6, 3)));
//! assert!(path.legs.iter().all(|leg| leg.kind != LegKind::Climb));
//! ```

use std::fmt;

use crate::grid::GridPos;

mod arc;
mod map;
mod moves;
mod plan;
mod profile;

pub use map::{MAX_SIDE_VIEW_TILES, SideTile, SideViewMap};
pub use moves::{LegKind, SideMove, SideViewMoves};
pub use plan::{Arc, Leg, SideViewPath, SideViewPlanner};
pub use profile::{JumpProfile, MAX_BODY, MAX_JUMP_HEIGHT};

/// Why a side-view map, profile or plan was refused.
#[derive(Clone, Debug, PartialEq)]
pub enum SideViewError {
    /// A map with a side of 0 or more than [`MAX_SIDE_VIEW_TILES`] tiles.
    BadSize {
        /// Columns asked for.
        width: u32,
        /// Rows asked for.
        height: u32,
    },
    /// A row of [`SideViewMap::from_rows`] longer or shorter than the first.
    BadRow {
        /// The row, from 0 at the top.
        line: usize,
    },
    /// A character [`SideViewMap::from_rows`] does not read.
    BadChar {
        /// The row, from 0 at the top.
        line: usize,
        /// The column, from 0 at the left.
        column: usize,
        /// What was there.
        c: char,
    },
    /// A tile off the map.
    OutOfBounds {
        /// The tile.
        pos: GridPos,
        /// The map's columns.
        width: u32,
        /// The map's rows.
        height: u32,
    },
    /// A profile number that is NaN, infinite, or out of its range.
    InvalidProfile {
        /// Which ("jump height", "gravity", ...).
        what: &'static str,
        /// The number given.
        value: f64,
        /// The numbers taken, in words.
        range: &'static str,
    },
    /// A body wider or taller than the map.
    BodyTooLarge {
        /// The body, tiles across and up.
        body: (u32, u32),
        /// The map, tiles across and up.
        map: (u32, u32),
    },
    /// Moves made for a map of another size.
    OtherMap {
        /// The size the moves were made for.
        moves: (u32, u32),
        /// The map's size.
        map: (u32, u32),
    },
    /// The map changed since the moves were made or last retiled
    /// ([`SideViewMoves::retile`]).
    MovesOutOfDate {
        /// The revision the moves are in step with.
        moves: u64,
        /// The map's revision.
        map: u64,
    },
    /// The start (`is_start`) or the goal is off the map.
    OffMap {
        /// The place asked for.
        pos: GridPos,
        /// The start (true) or the goal.
        is_start: bool,
    },
    /// The body at the start or goal would be inside a solid tile (or stick out of the map).
    InSolid {
        /// The place asked for.
        pos: GridPos,
        /// The start (true) or the goal.
        is_start: bool,
    },
    /// Nothing to stand on or hold at the start or goal: the body would fall.
    NoFooting {
        /// The place asked for.
        pos: GridPos,
        /// The start (true) or the goal.
        is_start: bool,
    },
    /// (In an app.) No side-view level lies under the character, or the one it names is gone.
    NoLevel,
    /// (In an app.) A kind of goal side-view levels do not serve (only tiles, world positions,
    /// entities and tiles of the character's own level are).
    GoalKind {
        /// Which.
        kind: &'static str,
    },
    /// No moves of this profile lead from start to goal (it may jump too low, or be too big).
    Unreachable {
        /// The start asked for.
        start: GridPos,
        /// The goal asked for.
        goal: GridPos,
    },
}

impl fmt::Display for SideViewError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let end = |is_start: &bool| if *is_start { "start" } else { "goal" };
        match self {
            Self::BadSize { width, height } => write!(
                f,
                "a side-view map of {width} x {height} tiles (each side 1 or more, at most {MAX_SIDE_VIEW_TILES} tiles)"
            ),
            Self::BadRow { line } => write!(f, "row {line} is not as long as the first"),
            Self::BadChar { line, column, c } => {
                write!(f, "{c:?} at row {line}, column {column} is not a side-view tile (# H - .)")
            }
            Self::OutOfBounds { pos, width, height } => {
                write!(f, "tile ({}, {}) is off the {width} x {height} map", pos.x, pos.y)
            }
            Self::InvalidProfile { what, value, range } => {
                write!(f, "{what} {value} is not in {range}")
            }
            Self::BodyTooLarge { body, map } => write!(
                f,
                "a {} x {} body does not fit in a {} x {} map",
                body.0, body.1, map.0, map.1
            ),
            Self::OtherMap { moves, map } => write!(
                f,
                "moves made for a {} x {} map asked about a {} x {} one",
                moves.0, moves.1, map.0, map.1
            ),
            Self::MovesOutOfDate { moves, map } => write!(
                f,
                "moves made for map revision {moves}, the map is at {map}: retile them first"
            ),
            Self::OffMap { pos, is_start } => {
                write!(f, "the {} ({}, {}) is off the map", end(is_start), pos.x, pos.y)
            }
            Self::InSolid { pos, is_start } => write!(
                f,
                "the body at the {} ({}, {}) is inside a solid tile",
                end(is_start),
                pos.x,
                pos.y
            ),
            Self::NoFooting { pos, is_start } => write!(
                f,
                "nothing to stand on or hold at the {} ({}, {})",
                end(is_start),
                pos.x,
                pos.y
            ),
            Self::NoLevel => write!(f, "no side-view level under the character"),
            Self::GoalKind { kind } => write!(f, "side-view levels do not serve {kind} goals"),
            Self::Unreachable { start, goal } => write!(
                f,
                "no moves lead from ({}, {}) to ({}, {})",
                start.x, start.y, goal.x, goal.y
            ),
        }
    }
}

impl std::error::Error for SideViewError {}
