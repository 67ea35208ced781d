//! Worlds of grids laid side by side on one lattice (chunks): the steps across their seams, and
//! a hierarchical search over them ([`WorldGraph`]) whose work grows with the number of chunks a
//! path crosses rather than with the cells between its ends.
//!
//! The hierarchical search is HPA* (Botea, Müller and Schaeffer, 2004) in the shape this crate
//! needs:
//! - each grid is a chunk; its *nodes* are some cells on its border where a straight step
//!   crosses into a touching grid (both ends of every run of such crossings, and every
//!   `spacing`-th cell between), plus both ends of every link;
//! - the cost between two nodes of one grid is the cheapest walk on that grid (a search per
//!   node, run when a query first expands the node or ahead of queries, kept until the grid or
//!   its nodes change);
//! - a query walks from its start to the nodes of its grid and from the nodes of the goal's grid
//!   to the goal, searches the graph of nodes (A* with the lattice distance as its estimate),
//!   and then finds the walk between each pair of nodes on their grid.
//!
//! Paths are not always the cheapest: they cross each seam at a node. Every run of crossings has
//! a node, so a path is found exactly when one exists. `BENCHMARKS.md` quotes how much dearer
//! they are on the public maps.

mod find;
mod graph;
mod jump_walks;
mod layout;

pub use find::WorldFind;
pub use graph::{GraphSketch, WorldGraph};
