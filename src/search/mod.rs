//! Optimal path search on a [`NavGrid`](crate::grid::NavGrid): A* with a binary-heap open
//! list and per-cell state in flat arrays that are reused from one query to the next.
//!
//! Plain Rust: no Bevy type appears here. The layout follows the search's parts (this file only
//! names them and re-exports what is public):
//!
//! - `query`, `options` and `result`: what a query asks for ([`PathQuery`], the one way to ask,
//!   and its [`SearchOptions`]) and what it answers;
//! - `expansion`: what the loop asks of the grid (the cells that follow a cell); `goal`: where
//!   it may end (one cell, or the nearest of several);
//! - `astar`: the one A* loop every algorithm shares; `pathfinder`: the [`Pathfinder`] that
//!   checks a query, picks its expansion and runs the loop (or a table's answer);
//! - one file per expansion: `neighbors` (plain A*, square), `hex`, `jump_point` (jump point
//!   search and the bits it keeps in step with the grid), `any_angle` (Theta*);
//! - `avoided`: cells avoided for one query, as temporary walls;
//! - `linked`: paths across several grids joined by links ([`LinkedMaps`]); `seams`: grids laid
//!   side by side on one lattice and the steps across their seams ([`seam_links`]); `world`: a
//!   hierarchical search over such grids ([`WorldGraph`]);
//! - `schedule`: searches spread over frames: the frame's budget, the step that runs a search
//!   on while it lasts, and what an answer found on a frozen grid means for the live one;
//! - `warmup`: what searches derive from a grid's cells (labels, jump point bits), built a
//!   slice at a time ([`GridWarmup`]);
//! - `agent_grid`: the grid as one kind of agent sees it (its profile, its size);
//! - `precomputed`: what is worked out ahead for a grid, in a folder of its own: `path_table`
//!   (answers for grids that rarely change, [`PathTable`]), `first_moves` (answers for small
//!   grids of any kind, [`FirstMoveTable`]), `landmarks` (lower bounds that guide searches on
//!   grids no table serves, [`Landmarks`]), and `slices` (their builds, in one go or a slice at
//!   a time, [`SlicedBuild`]).

mod agent_grid;
mod any_angle;
mod astar;
mod avoided;
mod bit_set;
mod cell_moves;
mod cooperative;
mod expansion;
mod goal;
mod hex;
pub(crate) mod jump_point;
mod linked;
mod neighbors;
mod options;
mod pathfinder;
pub(crate) mod precomputed;
mod query;
mod reservations;
mod result;
#[cfg(feature = "bevy")]
pub(crate) mod schedule;
mod seams;
mod space_time;
mod turns;
mod warmup;
mod world;

pub use agent_grid::{AgentGrid, AgentGridBuild};
#[cfg(feature = "bevy")]
pub(crate) use agent_grid::{corners_covering, covers, footprint, overlaps};
pub use cooperative::{CooperativeError, PlanTogether, plan_together};
pub use jump_point::jps_applies;
pub use linked::{Leg, Link, LinkedMaps, LinkedPath, MapPos, Placement};
pub use options::{Algorithm, Heuristic, SearchLimit, SearchOptions};
#[cfg(feature = "bevy")]
pub(crate) use precomputed::field::check_flee_weight;
pub use precomputed::field::{DistanceField, FLEE_WEIGHT, MAX_FLEE_WEIGHT};
pub use precomputed::first_moves::{
    FIRST_MOVE_FORMAT_VERSION, FirstMoveTable, FirstMoveTableError, MAX_FIRST_MOVE_CELLS,
    MAX_FIRST_MOVE_GRID,
};
pub use precomputed::landmarks::{
    LANDMARKS_FORMAT_VERSION, Landmarks, LandmarksError, MAX_LANDMARKS,
};
pub use precomputed::path_table::{
    MAX_LIST_ENTRIES_PER_CELL, MAX_SUBGOALS, PathTable, PathTableError, TABLE_FORMAT_VERSION,
};
pub use precomputed::slices::{CELL_WORK, SlicedBuild};
pub use result::{PathError, PathResult, SearchStats, SearchTrace, turning_points};
pub use seams::{seam_links, seam_links_near};
pub use turns::CellTurns;
pub use warmup::GridWarmup;
pub use world::{GraphSketch, WorldFind, WorldGraph};

#[cfg(feature = "bevy")]
pub(crate) use pathfinder::table_answers;
pub use pathfinder::{Pathfinder, SearchSpace};
pub use query::{PathQuery, SearchHelp, SearchStep};
pub(crate) use result::check_number;
