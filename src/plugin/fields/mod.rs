//! Hordes: many agents that follow one [`DistanceField`](crate::search::DistanceField) to the same
//! goals instead of searching each. A [`NavField`] entity asks the plugin to keep the field of some
//! goals on a map in step with it (repaired where cells change); agents with [`FollowField`] walk
//! down it: those that steer ([`Avoidance`](super::Avoidance)) or move tile by tile
//! ([`GridLocked`](super::GridLocked)) by a [`NavPath`](super::NavPath) read off the field, the
//! others straight off the field, a waypoint at a time ([`walk_fields`]), with no path of their
//! own.
//!
//! - `field`: the field entities ([`NavField`]), kept in step with their maps ([`keep_fields`]);
//! - `follow`: followers that steer or move tile by tile, given a path read off the field
//!   ([`follow_fields`]);
//! - `walk`: the others, walked straight off the field ([`walk_fields`]).

mod field;
mod follow;
mod walk;

pub(crate) use field::{FieldsToExtend, keep_fields};
pub use field::{FollowField, NavField};
pub(crate) use follow::follow_fields;
pub(crate) use walk::walk_fields;
