//! Why a side-view map, profile or plan was refused.

use std::fmt;

use crate::grid::{GridPos, MAX_CELLS};

/// Why a side-view map, profile or plan was refused.
#[derive(Clone, Debug, PartialEq)]
pub enum SideViewError {
    /// A map with a side of 0 or more than [`MAX_SIDE_VIEW_TILES`](crate::side_view::MAX_SIDE_VIEW_TILES) tiles.
    BadSize {
        /// Columns asked for.
        width: u32,
        /// Rows asked for.
        height: u32,
    },
    /// A row of [`SideViewMap::from_rows`](crate::side_view::SideViewMap::from_rows) longer or shorter than the first.
    BadRow {
        /// The row, from 0 at the top.
        line: usize,
    },
    /// A character [`SideViewMap::from_rows`](crate::side_view::SideViewMap::from_rows) does not read.
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
    /// ([`SideViewMoves::retile`](crate::side_view::SideViewMoves::retile)).
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
    /// A number of a [`SideViewAim`](crate::side_view::SideViewAim) that is NaN or out of range.
    InvalidAim {
        /// Which ("within", "weight", ...).
        what: &'static str,
        /// The number given.
        value: f64,
        /// The numbers taken, in words.
        range: &'static str,
    },
    /// The search reached its cap of expansions
    /// ([`SideViewAim::max_expansions`](crate::side_view::SideViewAim::max_expansions)) first.
    LimitReached {
        /// Places expanded.
        expanded: u32,
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
                "a side-view map of {width} x {height} tiles (each side 1 or more, at most {MAX_CELLS} tiles)"
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
            Self::InvalidAim { what, value, range } => {
                write!(f, "aim {what} {value} is not in {range}")
            }
            Self::LimitReached { expanded } => {
                write!(f, "the search stopped at its cap, {expanded} places expanded")
            }
            Self::Unreachable { start, goal } => write!(
                f,
                "no moves lead from ({}, {}) to ({}, {})",
                start.x, start.y, goal.x, goal.y
            ),
        }
    }
}

impl std::error::Error for SideViewError {}
