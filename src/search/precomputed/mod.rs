//! What is worked out ahead for a grid, to answer without searching or to search less: a
//! [`PathTable`](path_table::PathTable) (grids of one cost, 8-way, no corner cutting), a
//! [`FirstMoveTable`](first_moves::FirstMoveTable) (small grids of any kind) and
//! [`Landmarks`](landmarks::Landmarks) (the rest: lower bounds for A*); and
//! [`DistanceField`](field::DistanceField)s, the cost from every cell to some goals, which
//! many agents follow at once (kept in step by repair; not baked).
//!
//! They share one protocol, written once:
//! - a structure is current for the grid state it was made for (the grid's stamp) and answers
//!   only then (`is_current`); made on a copy of a grid, it is bound to the original's state;
//! - its bytes (`to_binary`) are sealed (`grid::sealed`: magic, version, body, checksum) and
//!   begin with what ties them to their grid: its size, one word of rules and a fingerprint of
//!   its cells, checked on load (`from_binary`) before anything else is read
//!   ([`open_tied`](crate::grid::sealed::open_tied));
//! - each is built by one `async fn` that counts its work ([`slices`]): in one go, or a slice at
//!   a time ([`SlicedBuild`](slices::SlicedBuild)), with the same result.

pub(crate) mod field;
pub(crate) mod first_moves;
pub(crate) mod landmarks;
pub(crate) mod path_table;
pub(crate) mod slices;
