//! How an agent may step between cells: square grids (4- or 8-way, with a corner rule) and
//! hexagonal ones in bevy_ecs_tilemap's six coordinate systems.

use serde::{Deserialize, Serialize};

use super::cell::GridPos;

/// Which steps an agent may take from a cell.
///
/// `Four` and `Eight` are square grids (and isometric ones: their tiles form a square grid
/// drawn differently). `Hex` is a hexagonal grid: six neighbours, each one step of length 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Neighborhood {
    /// Up, down, left, right.
    Four,
    /// The four straight steps and the four diagonal ones (length sqrt(2)).
    #[default]
    Eight,
    /// Six neighbours on a hexagonal grid whose cells are numbered as `HexCoords` says (the
    /// numbering bevy_ecs_tilemap's `HexCoordSystem` of the same name uses). The corner rule
    /// does not apply: hexagons share edges with all six neighbours.
    Hex(HexCoords),
}

impl Neighborhood {
    /// True for a hexagonal grid.
    pub fn is_hex(self) -> bool {
        matches!(self, Neighborhood::Hex(_))
    }
}

/// How the cells of a hexagonal grid are numbered: the six coordinate systems of
/// bevy_ecs_tilemap's `HexCoordSystem`, with the same names and the same neighbours.
///
/// `Row` and `Column` are axial coordinates (x = q, y = r); the other four are offset
/// coordinates, where every other row (or column) is shifted by half a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum HexCoords {
    /// Axial coordinates, hexagons in rows ("pointy top").
    Row,
    /// Axial coordinates, hexagons in columns ("flat top").
    Column,
    /// Rows, the even ones shifted right.
    RowEven,
    /// Rows, the odd ones shifted right.
    RowOdd,
    /// Columns, the even ones shifted up.
    ColumnEven,
    /// Columns, the odd ones shifted up.
    ColumnOdd,
}

impl HexCoords {
    /// Every coordinate system, for tests and tools.
    pub const ALL: [HexCoords; 6] = [
        HexCoords::Row,
        HexCoords::Column,
        HexCoords::RowEven,
        HexCoords::RowOdd,
        HexCoords::ColumnEven,
        HexCoords::ColumnOdd,
    ];

    /// The axial coordinates (q, r) of cell (`x`, `y`).
    #[inline]
    pub fn to_axial(self, x: i64, y: i64) -> (i64, i64) {
        match self {
            HexCoords::Row | HexCoords::Column => (x, y),
            HexCoords::RowOdd => (x - y.div_euclid(2), y),
            HexCoords::RowEven => (x - (y + 1).div_euclid(2), y),
            HexCoords::ColumnOdd => (x, y - x.div_euclid(2)),
            HexCoords::ColumnEven => (x, y - (x + 1).div_euclid(2)),
        }
    }

    /// The cell (x, y) at axial coordinates (`q`, `r`): the inverse of
    /// [`to_axial`](Self::to_axial).
    #[inline]
    pub fn from_axial(self, q: i64, r: i64) -> (i64, i64) {
        match self {
            HexCoords::Row | HexCoords::Column => (q, r),
            HexCoords::RowOdd => (q + r.div_euclid(2), r),
            HexCoords::RowEven => (q + (r + 1).div_euclid(2), r),
            HexCoords::ColumnOdd => (q, r + q.div_euclid(2)),
            HexCoords::ColumnEven => (q, r + (q + 1).div_euclid(2)),
        }
    }

    /// The number of steps between two cells on an open hexagonal grid.
    #[inline]
    pub fn distance(self, a: GridPos, b: GridPos) -> u32 {
        let (aq, ar) = self.to_axial(i64::from(a.x), i64::from(a.y));
        let (bq, br) = self.to_axial(i64::from(b.x), i64::from(b.y));
        let (dq, dr) = (aq - bq, ar - br);
        ((dq.abs() + dr.abs() + (dq + dr).abs()) / 2) as u32
    }

    /// Whether the neighbours of a cell depend on the parity of its column (`Some(true)`), of
    /// its row (`Some(false)`), or of neither (axial).
    #[inline]
    fn parity_by_column(self) -> Option<bool> {
        match self {
            HexCoords::Row | HexCoords::Column => None,
            HexCoords::RowEven | HexCoords::RowOdd => Some(false),
            HexCoords::ColumnEven | HexCoords::ColumnOdd => Some(true),
        }
    }

    /// The six steps (dx, dy) out of a cell of the given parity (0 for an even row or column,
    /// 1 for an odd one), in the order of bevy_ecs_tilemap's `HexDirection`.
    pub(crate) fn steps(self, parity: usize) -> [(isize, isize); 6] {
        // The steps in axial coordinates are the same everywhere; in offset coordinates they
        // depend only on the parity of the shifted line, so one sample cell of each parity
        // gives them.
        let (x0, y0) = match self.parity_by_column() {
            Some(true) => (4 + parity as i64, 4),
            _ => (4, 4 + parity as i64),
        };
        let (q, r) = self.to_axial(x0, y0);
        let mut steps = [(0, 0); 6];
        for (step, (dq, dr)) in steps.iter_mut().zip(HEX_AXIAL_STEPS) {
            let (x, y) = self.from_axial(q + dq, r + dr);
            *step = ((x - x0) as isize, (y - y0) as isize);
        }
        steps
    }

    /// The parity (0 or 1) that picks a cell's steps from [`steps`](Self::steps).
    #[inline]
    pub(crate) fn parity(self, x: usize, y: usize) -> usize {
        match self.parity_by_column() {
            None => 0,
            Some(true) => x & 1,
            Some(false) => y & 1,
        }
    }

    /// The centre of cell (`x`, `y`) in a plane where neighbouring centres are 1 apart
    /// (pointy-top for the row systems, flat-top for the column ones, as bevy_ecs_tilemap
    /// draws them): straight-line distances there never exceed the number of steps.
    #[inline]
    pub fn unit_center(self, x: i64, y: i64) -> (f64, f64) {
        const HALF_SQRT_3: f64 = 0.866_025_403_784_438_6;
        let (q, r) = self.to_axial(x, y);
        let (q, r) = (q as f64, r as f64);
        if self.parity_by_column() == Some(true) || self == HexCoords::Column {
            (HALF_SQRT_3 * q, r + 0.5 * q)
        } else {
            (q + 0.5 * r, HALF_SQRT_3 * r)
        }
    }
}

/// The six steps in axial coordinates, in bevy_ecs_tilemap's `HexDirection` order.
const HEX_AXIAL_STEPS: [(i64, i64); 6] = [(1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)];

/// When a diagonal step is legal on an 8-way grid.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CornerRule {
    /// Only when both orthogonal cells beside the step are passable: an agent never clips a
    /// wall's corner (the MovingAI benchmark rule).
    #[default]
    NoCornerCutting,
    /// When at least one of the two orthogonal cells beside the step is passable. Squeezing
    /// between two diagonal walls is still forbidden.
    CutCorners,
}

impl CornerRule {
    /// Whether a diagonal step is allowed, given whether each of the two orthogonal cells beside
    /// it is passable.
    #[inline]
    pub fn allows_diagonal(self, side_a_open: bool, side_b_open: bool) -> bool {
        match self {
            CornerRule::NoCornerCutting => side_a_open && side_b_open,
            CornerRule::CutCorners => side_a_open || side_b_open,
        }
    }
}

/// Step directions as (dx, dy): four straight, then four diagonal.
pub(crate) const DIRECTIONS: [(isize, isize); 8] =
    [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)];

/// What stands on the edge between two neighbouring cells ([`NavGrid::set_edge`](super::NavGrid::set_edge)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Edge {
    /// Nothing: steps cross both ways (every edge starts so).
    #[default]
    Open,
    /// A wall (fence, thin wall, closed door): no step crosses either way, and on a square grid
    /// no diagonal step passes either end of it.
    Wall,
    /// One way, from the first cell named to the second (a ledge: drop down, never climb). On a
    /// square grid no diagonal step passes either end of it, either way.
    OneWay,
}

/// Some sides of a cell, named by the way a step leaves through them: on a square grid
/// [`EAST`](Self::EAST) (+x), [`WEST`](Self::WEST) (-x), [`NORTH`](Self::NORTH) (+y, up as
/// bevy_ecs_tilemap's `TilePos` counts) and [`SOUTH`](Self::SOUTH) (-y); on a hex grid
/// [`hex(d)`](Self::hex) for bevy_ecs_tilemap's `HexDirection` number `d`.
///
/// ```
/// use bevy_tilemap_nav::grid::Sides;
///
/// assert_eq!(Sides::parse("north, east"), Some(Sides::NORTH | Sides::EAST));
/// assert_eq!(Sides::parse("S W"), Some(Sides::SOUTH | Sides::WEST));
/// assert_eq!(Sides::parse("up"), None);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
pub struct Sides(pub u8);

impl Sides {
    /// No side.
    pub const NONE: Sides = Sides(0);
    /// Towards +x.
    pub const EAST: Sides = Sides(1);
    /// Towards -x.
    pub const WEST: Sides = Sides(2);
    /// Towards +y.
    pub const NORTH: Sides = Sides(4);
    /// Towards -y.
    pub const SOUTH: Sides = Sides(8);
    /// The four sides of a square cell.
    pub const ALL_SQUARE: Sides = Sides(15);

    /// The side of a hexagon in bevy_ecs_tilemap's `HexDirection` number `direction` (0 to
    /// 5; others give no side).
    pub const fn hex(direction: u8) -> Sides {
        if direction < 6 { Sides(1 << direction) } else { Sides::NONE }
    }

    /// True when every side of `other` is one of these.
    pub const fn contains(self, other: Sides) -> bool {
        self.0 & other.0 == other.0
    }

    /// True for no side.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The sides a text names, as a level editor's property gives them: words separated by
    /// commas or spaces, each `north`, `east`, `south`, `west` or their first letter, `all`,
    /// or on a hex grid a `HexDirection` number 0 to 5 (any case). `None` if a word is none
    /// of these.
    pub fn parse(text: &str) -> Option<Sides> {
        let mut sides = Sides::NONE;
        for word in text.split([',', ' ', ';', '|']).filter(|w| !w.is_empty()) {
            sides = sides
                | match word.to_ascii_lowercase().as_str() {
                    "north" | "n" => Sides::NORTH,
                    "east" | "e" => Sides::EAST,
                    "south" | "s" => Sides::SOUTH,
                    "west" | "w" => Sides::WEST,
                    "all" => Sides::ALL_SQUARE,
                    number => match number.parse::<u8>() {
                        Ok(d) if d < 6 => Sides::hex(d),
                        _ => return None,
                    },
                };
        }
        Some(sides)
    }

    /// Whether the side a step in direction `d` leaves by is one of these.
    #[inline]
    pub(super) fn has(self, d: usize) -> bool {
        self.0 & (1 << d) != 0
    }
}

impl std::ops::BitOr for Sides {
    type Output = Sides;
    fn bitor(self, other: Sides) -> Sides {
        Sides(self.0 | other.0)
    }
}

/// The straight direction (index into `DIRECTIONS`) of the step (`dx`, `dy`).
#[inline]
pub(super) fn straight(dx: isize, dy: isize) -> usize {
    match (dx, dy) {
        (1, 0) => 0,
        (-1, 0) => 1,
        (0, 1) => 2,
        _ => 3,
    }
}

/// The direction (index into `DIRECTIONS`) of the step (`dx`, `dy`), one of the eight.
#[inline]
pub(crate) fn direction_of(dx: isize, dy: isize) -> usize {
    match (dx, dy) {
        (_, 0) | (0, _) => straight(dx, dy),
        _ => 4 + usize::from(dx < 0) + 2 * usize::from(dy < 0),
    }
}

/// The direction back along direction `d` (square: `DIRECTIONS`; hex: `HexCoords::steps`).
#[inline]
pub(crate) fn reverse(neighborhood: Neighborhood, d: usize) -> usize {
    match neighborhood {
        Neighborhood::Hex(_) => (d + 3) % 6,
        _ if d < 4 => d ^ 1,
        _ => 11 - d,
    }
}
