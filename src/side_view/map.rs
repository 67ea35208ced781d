//! The tiles of a level seen from the side, and what a body of a given size can do on them.

use std::fmt;

use crate::grid::GridPos;

use super::error::SideViewError;

/// What one tile of a side-view level is to a character.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "bevy", derive(bevy::prelude::Reflect))]
pub enum SideTile {
    /// Air: the body passes, nothing to stand on.
    #[default]
    Empty,
    /// Ground and walls: never inside a body; the top is stood on.
    Solid,
    /// Climbed up and down; the tile above a ladder's top rung is stood on.
    Ladder,
    /// A platform stood on from above, jumped up through and dropped down through.
    OneWay,
}

impl SideTile {
    /// The tile a character of [`SideViewMap::from_rows`] draws: `#` solid, `H` ladder, `-`
    /// one-way platform, `.` or space empty.
    pub fn from_char(c: char) -> Option<Self> {
        match c {
            '#' => Some(Self::Solid),
            'H' => Some(Self::Ladder),
            '-' => Some(Self::OneWay),
            '.' | ' ' => Some(Self::Empty),
            _ => None,
        }
    }

    /// The tile a map editor's property names (any case, `-` or space for `_`): `"solid"`,
    /// `"ladder"`, `"one_way"` (or `"oneway"`, `"platform"`), `"empty"` (or `"air"`). `None`
    /// for anything else.
    ///
    /// ```
    /// use bevy_tilemap_nav::side_view::SideTile;
    ///
    /// assert_eq!(SideTile::parse("One-Way"), Some(SideTile::OneWay));
    /// assert_eq!(SideTile::parse(" ladder "), Some(SideTile::Ladder));
    /// assert_eq!(SideTile::parse("lava"), None);
    /// ```
    pub fn parse(text: &str) -> Option<Self> {
        let name = text.trim().to_ascii_lowercase().replace(['-', ' '], "_");
        match name.as_str() {
            "solid" => Some(Self::Solid),
            "ladder" => Some(Self::Ladder),
            "one_way" | "oneway" | "platform" => Some(Self::OneWay),
            "empty" | "air" => Some(Self::Empty),
            _ => None,
        }
    }

    /// What a place is where `self` and `above` (a layer drawn over it) lie on one another:
    /// the stronger of the two, solid over ladder over one-way platform over air.
    ///
    /// ```
    /// use bevy_tilemap_nav::side_view::SideTile;
    ///
    /// assert_eq!(SideTile::Ladder.stacked(SideTile::Solid), SideTile::Solid);
    /// assert_eq!(SideTile::OneWay.stacked(SideTile::Empty), SideTile::OneWay);
    /// ```
    pub fn stacked(self, above: Self) -> Self {
        let rank = |t: Self| match t {
            Self::Empty => 0,
            Self::OneWay => 1,
            Self::Ladder => 2,
            Self::Solid => 3,
        };
        if rank(above) > rank(self) { above } else { self }
    }
}

/// A side-view level: `width` x `height` tiles, row 0 at the bottom, gravity along -y.
///
/// Outside the map is solid: a character stands on the bottom edge and never leaves the map.
///
/// ```
/// use bevy_tilemap_nav::grid::GridPos;
/// use bevy_tilemap_nav::side_view::{SideTile, SideViewMap};
///
/// let map = SideViewMap::from_rows(&[
///     "..H.",
///     "--H.",
///     "..H#",
/// ])
/// .unwrap();
/// assert_eq!((map.width(), map.height()), (4, 3));
/// assert_eq!(map.tile(GridPos::new(3, 0)), SideTile::Solid);
/// assert_eq!(map.tile(GridPos::new(0, 1)), SideTile::OneWay);
/// ```
#[derive(Clone)]
pub struct SideViewMap {
    width: u32,
    height: u32,
    tiles: Vec<SideTile>,
    revision: u64,
}

/// Two maps are equal when their tiles are (however many times each was changed).
impl PartialEq for SideViewMap {
    fn eq(&self, other: &Self) -> bool {
        (self.width, self.height) == (other.width, other.height) && self.tiles == other.tiles
    }
}

impl Eq for SideViewMap {}

/// The most tiles a side-view map holds (as many as a navigation grid).
pub const MAX_SIDE_VIEW_TILES: u64 = crate::grid::MAX_CELLS;

impl SideViewMap {
    /// An empty map. Errors: a side of 0, or more than [`MAX_SIDE_VIEW_TILES`] tiles.
    pub fn new(width: u32, height: u32) -> Result<Self, SideViewError> {
        let tiles = u64::from(width) * u64::from(height);
        if width == 0 || height == 0 || tiles > MAX_SIDE_VIEW_TILES {
            return Err(SideViewError::BadSize { width, height });
        }
        Ok(Self { width, height, tiles: vec![SideTile::Empty; tiles as usize], revision: 0 })
    }

    /// A map drawn as text, the top row first (as it is seen): `#` solid, `H` ladder, `-`
    /// one-way platform, `.` or space empty. Errors: rows of different lengths, no rows, or
    /// another character (with its row and column, counted from the top left).
    pub fn from_rows(rows: &[&str]) -> Result<Self, SideViewError> {
        let width = rows.first().map_or(0, |row| row.chars().count()) as u32;
        let mut map = Self::new(width, rows.len() as u32)?;
        for (line, row) in rows.iter().enumerate() {
            if row.chars().count() as u32 != width {
                return Err(SideViewError::BadRow { line });
            }
            let y = map.height - 1 - line as u32;
            for (x, c) in row.chars().enumerate() {
                let tile =
                    SideTile::from_char(c).ok_or(SideViewError::BadChar { line, column: x, c })?;
                map.tiles[(y * width + x as u32) as usize] = tile;
            }
        }
        Ok(map)
    }

    /// Columns.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Rows.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The tile at `pos`; [`SideTile::Solid`] outside the map.
    pub fn tile(&self, pos: GridPos) -> SideTile {
        self.tile_at(i64::from(pos.x), i64::from(pos.y))
    }

    /// The tile at a column and row that may lie outside the map (solid there).
    pub(crate) fn tile_at(&self, x: i64, y: i64) -> SideTile {
        if x < 0 || y < 0 || x >= i64::from(self.width) || y >= i64::from(self.height) {
            return SideTile::Solid;
        }
        self.tiles[(y as u64 * u64::from(self.width) + x as u64) as usize]
    }

    /// Sets one tile. Moves made before it are out of date until
    /// [`SideViewMoves::retile`](super::SideViewMoves::retile) is told of the change.
    /// Errors: `pos` off the map.
    pub fn set(&mut self, pos: GridPos, tile: SideTile) -> Result<(), SideViewError> {
        if pos.x >= self.width || pos.y >= self.height {
            return Err(SideViewError::OutOfBounds { pos, width: self.width, height: self.height });
        }
        let index = (pos.y * self.width + pos.x) as usize;
        if self.tiles[index] != tile {
            self.tiles[index] = tile;
            self.revision += 1;
        }
        Ok(())
    }

    /// Whether a body `body` tiles large (across, up) with its lower left corner at `corner`
    /// (in tiles) is inside a solid tile, or out of the map, by more than a thousandth of a
    /// tile.
    pub fn overlaps_solid(&self, corner: [f32; 2], body: (u32, u32)) -> bool {
        const SLACK: f32 = 1e-3;
        let [x, y] = corner;
        if !(x.is_finite() && y.is_finite()) {
            return true;
        }
        let (w, h) = (body.0 as f32, body.1 as f32);
        let c0 = (x + SLACK).floor() as i64;
        let c1 = (x + w - SLACK).ceil() as i64 - 1;
        let r0 = (y + SLACK).floor() as i64;
        let r1 = (y + h - SLACK).ceil() as i64 - 1;
        (c0..=c1).any(|c| (r0..=r1).any(|r| self.tile_at(c, r) == SideTile::Solid))
    }

    /// Counts the changes made with [`set`](Self::set): moves know which revision they were made for.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Whether a body with its lower left tile at (`x`, `y`) rests on something at level `y`
    /// in column `x`: a solid or one-way tile below, the top of a ladder, or the map's bottom.
    pub(crate) fn supports(&self, x: i64, y: i64) -> bool {
        if y == 0 {
            return true;
        }
        match self.tile_at(x, y - 1) {
            SideTile::Solid | SideTile::OneWay => true,
            SideTile::Ladder => self.tile_at(x, y) != SideTile::Ladder,
            SideTile::Empty => false,
        }
    }
}

impl fmt::Debug for SideViewMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "SideViewMap {}x{}:", self.width, self.height)?;
        for y in (0..self.height).rev() {
            for x in 0..self.width {
                let c = match self.tile(GridPos::new(x, y)) {
                    SideTile::Empty => '.',
                    SideTile::Solid => '#',
                    SideTile::Ladder => 'H',
                    SideTile::OneWay => '-',
                };
                write!(f, "{c}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// A body's width and height in tiles, and where it may be on a map: the per-column counts
/// that let an arc be checked a column at a time.
pub(crate) struct Footprint<'a> {
    pub map: &'a SideViewMap,
    pub width: i64,
    pub height: i64,
}

impl Footprint<'_> {
    /// The body, lower left tile at (`x`, `y`), overlaps no solid tile and stays on the map.
    pub fn clear(&self, x: i64, y: i64) -> bool {
        (x..x + self.width)
            .all(|c| (y..y + self.height).all(|r| self.map.tile_at(c, r) != SideTile::Solid))
    }

    /// Clear, and resting on something under at least one of its columns.
    pub fn standable(&self, x: i64, y: i64) -> bool {
        self.clear(x, y) && (x..x + self.width).any(|c| self.map.supports(c, y))
    }

    /// Clear, and holding a ladder: a ladder tile in the body's lowest row.
    pub fn on_ladder(&self, x: i64, y: i64) -> bool {
        self.clear(x, y) && (x..x + self.width).any(|c| self.map.tile_at(c, y) == SideTile::Ladder)
    }

    /// Every column under the body that holds it up is a one-way platform or a ladder's top,
    /// so it may drop through.
    pub fn may_drop(&self, x: i64, y: i64) -> bool {
        y > 0
            && (x..x + self.width)
                .all(|c| !self.map.supports(c, y) || self.map.tile_at(c, y - 1) != SideTile::Solid)
    }
}
