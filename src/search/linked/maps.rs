//! The grids a linked search runs over, their links, and the paths found through them.

use serde::{Deserialize, Serialize};

use super::super::result::{PathResult, SearchStats};
use crate::grid::{GridPos, NavGrid};

/// A cell on one of several grids: `map` indexes the grids of a
/// [`LinkedMaps`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MapPos {
    /// Which grid: its place in the list of grids given to the search.
    pub map: usize,
    /// The cell on it.
    pub cell: GridPos,
}

impl MapPos {
    /// Cell `cell` of grid number `map`.
    pub fn new(map: usize, cell: GridPos) -> Self {
        Self { map, cell }
    }
}

/// A way from one cell to another that is not a step on a grid: stairs, a door between two
/// levels, a teleporter, a ladder, a jump down a ledge. The two cells may be on one grid or on
/// two. Taking it costs `cost`, which stands in for the cost of entering the far cell. While
/// either cell is blocked the link is not taken.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Link {
    /// One end (where a one-way link is entered).
    pub from: MapPos,
    /// The other end.
    pub to: MapPos,
    /// What taking the link costs, in the units of the grids' cell costs (a finite number, 0
    /// or more).
    pub cost: f64,
    /// Whether it can be taken from `to` to `from` as well.
    pub two_way: bool,
}

impl Link {
    /// A link that can be taken both ways.
    pub fn two_way(from: MapPos, to: MapPos, cost: f64) -> Self {
        Self { from, to, cost, two_way: true }
    }

    /// A link that can be taken from `from` to `to` only.
    pub fn one_way(from: MapPos, to: MapPos, cost: f64) -> Self {
        Self { from, to, cost, two_way: false }
    }

    /// The link's ways, as (entrance, exit): one, or two for a two-way link.
    pub(crate) fn ways(&self) -> impl Iterator<Item = (MapPos, MapPos)> {
        let back = self.two_way.then_some((self.to, self.from));
        std::iter::once((self.from, self.to)).chain(back)
    }
}

/// One walk on one grid of a [`LinkedPath`].
#[derive(Clone, Debug, PartialEq)]
pub struct Leg {
    /// The grid walked on.
    pub map: usize,
    /// The walk: cells and cost, as from [`Pathfinder::find`](crate::search::Pathfinder::find) on
    /// one grid.
    pub path: PathResult,
    /// The link taken at the end of this walk (an index into the links searched), or `None`:
    /// the last leg, or (grids placed on one lattice) the next leg begins one step away across
    /// a seam.
    pub then: Option<usize>,
}

/// A path across [`LinkedMaps`]: walks on grids joined by links.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkedPath {
    /// In order: the first begins at the start, the last ends at the goal, and each but the
    /// last ends at the entrance of the link it names, whose exit is where the next begins (or,
    /// naming none, one step across a seam from where the next begins).
    pub legs: Vec<Leg>,
    /// The cost of every walk plus every link taken.
    pub cost: f64,
    /// Cells expanded by all the walks' searches.
    pub stats: SearchStats,
}

impl LinkedPath {
    /// The links taken, in order (indices into the links searched).
    pub fn links(&self) -> impl Iterator<Item = usize> + '_ {
        self.legs.iter().filter_map(|leg| leg.then)
    }
}

/// Several grids joined by links, searched as one: stairs between floors, doors between
/// levels, teleporters, ladders, one-way drops. A [`MapPos`] names a cell on one of them by the
/// grid's place in `maps`.
///
/// ```
/// use bevy_tilemap_nav::grid::{GridPos, NavGrid};
/// use bevy_tilemap_nav::search::{Link, LinkedMaps, MapPos, PathQuery, Pathfinder};
///
/// // Two floors, stairs between them.
/// let (ground, upstairs) = (NavGrid::new(8, 8).unwrap(), NavGrid::new(6, 6).unwrap());
/// let stairs =
///     Link::two_way(MapPos::new(0, GridPos::new(7, 7)), MapPos::new(1, GridPos::new(0, 0)), 2.0);
/// let (maps, links) = ([&ground, &upstairs], [stairs]);
/// let world = LinkedMaps::new(&maps, &links);
/// let (start, goal) = (MapPos::new(0, GridPos::new(0, 7)), MapPos::new(1, GridPos::new(5, 0)));
/// let path = Pathfinder::new().find(world, &PathQuery::new(start, goal)).unwrap();
/// assert_eq!(path.legs.len(), 2);
/// assert_eq!(path.cost, 7.0 + 2.0 + 5.0);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct LinkedMaps<'a> {
    /// The grids.
    pub maps: &'a [&'a NavGrid],
    /// The links between their cells.
    pub links: &'a [Link],
    /// Where each grid lies on a lattice it shares with others (see [`Placement`]); empty, or
    /// `None` for a grid, when not known.
    pub places: &'a [Option<Placement>],
}

impl<'a> LinkedMaps<'a> {
    /// The grids `maps` joined by `links`.
    pub fn new(maps: &'a [&'a NavGrid], links: &'a [Link]) -> Self {
        Self { maps, links, places: &[] }
    }

    /// The same, with where each grid lies on a lattice shared with others (`places[i]` for
    /// `maps[i]`): chunks of one world. Grids of one world join at their seams: every step one
    /// grid would allow between cells of two of them is a step of the search (as the links of
    /// [`seam_links`](crate::search::seam_links) would be, without listing them), and the
    /// search estimates the distance to the goal across the chunks, going as straight at it as
    /// on one grid.
    pub fn with_places(self, places: &'a [Option<Placement>]) -> Self {
        Self { places, ..self }
    }
}

/// Where a grid lies among others cut from one world (chunks side by side): which world, and
/// where its cell (0, 0) falls on that world's lattice of cells. Grids of one world must have
/// the same moves (neighborhood). The search across [`LinkedMaps`] with places estimates the
/// rest of the way by the distance on the lattice, scaled by the world's cheapest cell, capped
/// by the cheapest link that is not a step of the lattice (a teleporter, a link to another
/// world): the estimate stays a lower bound whatever links there are, so paths stay the
/// cheapest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Placement {
    /// Which world (any number; grids with the same one share the lattice).
    pub world: u32,
    /// The lattice column and row of the grid's cell (0, 0).
    pub x: i64,
    /// See `x`.
    pub y: i64,
}

impl Placement {
    /// The lattice position of `cell` of the grid placed here.
    pub(in crate::search) fn of(self, cell: GridPos) -> (i64, i64) {
        (self.x.saturating_add(cell.x.into()), self.y.saturating_add(cell.y.into()))
    }

    /// Places this far out are not laid on a lattice (their cells' positions would not fit):
    /// such grids join no world.
    pub(super) const FARTHEST: i64 = 1 << 60;

    /// Whether it lies within [`Placement::FARTHEST`] of the origin.
    pub(in crate::search) fn is_near(self) -> bool {
        self.x.unsigned_abs() < Self::FARTHEST as u64
            && self.y.unsigned_abs() < Self::FARTHEST as u64
    }
}

/// How many lattice cells apart two columns (or rows) `d` are, as a heuristic counts them
/// (a difference taken saturating: never more than the true one, so a bound stays a bound).
pub(in crate::search) fn apart(d: i64) -> u32 {
    u32::try_from(d.unsigned_abs()).unwrap_or(u32::MAX)
}
