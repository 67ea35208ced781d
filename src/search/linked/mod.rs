//! Paths across several grids joined by links: stairs between floors, doors between levels,
//! teleporters, ladders, one-way drops.
//!
//! The search is one A* over every grid, a link being one more step from its entrance to its
//! exit: over jump points on the grids where jump point search is optimal (runs stop at every
//! entrance, every goal and every cell a seam step leaves from: `jumps`), cell by cell
//! elsewhere. Its estimate on the goal's grid is the
//! grid's own (scaled by its cheapest cell), capped by a lower bound on leaving the grid through
//! a link (`bounds`); so the path is the cheapest one. What it works out from the grids and
//! links alone (the links leaving each cell, the bound by blocks of cells with many links, the
//! jump point bits with the entrances as stops) is kept while they stay the same (`prep`), so
//! a query's setup does not grow with the number of links; its search does, where more links
//! weaken the estimate (any link may lead near the goal). `LinkedSearch` runs it in slices of
//! a given number of expansions, for callers that spread long searches over frames (through
//! [`Pathfinder::start`](super::Pathfinder::start)); it ends at one goal or at the nearest of
//! several.
//!
//! - `maps`: the grids and their links ([`LinkedMaps`], [`MapPos`], [`Link`], [`Placement`]),
//!   and the paths found through them ([`LinkedPath`], [`Leg`]);
//! - `lattice`: where placed grids lie on their world's lattice, and the steps across the seams
//!   between grids that touch there ([`Placement`]): the search takes them as steps of one grid;
//! - `bounds`: the search's estimates (the lattice's for placed grids, the links' way out of a
//!   grid);
//! - `exits`: a query's bound on leaving each grid through a link, from the kept bounds and
//!   the walk from the links' exits near its goals;
//! - `prep`: what a search works out from the grids and links alone, kept by the pathfinder
//!   from one query to the next while they stay the same ([`LinkedPrep`]);
//! - `jumps`: jump point search inside each grid, stopping at link entrances and goals;
//! - `search`: the search itself, in slices ([`LinkedSearch`]).

mod bounds;
mod exits;
mod jumps;
mod lattice;
mod maps;
mod mix;
mod prep;
mod search;

pub(in crate::search) use lattice::Lattice;
pub(in crate::search) use maps::apart;
pub use maps::{Leg, Link, LinkedMaps, LinkedPath, MapPos, Placement};
pub(crate) use mix::{MixMap, MixSet};
pub(crate) use prep::LinkedPrep;
pub(crate) use search::{LinkedSearch, Nodes as LinkedNodes};
