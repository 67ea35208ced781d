//! A character of a side-view level.

use bevy::prelude::*;

#[cfg(doc)]
use super::SideViewRoute;
#[cfg(doc)]
use crate::plugin::{Arrived, PathFailed, PathRequest};
use crate::side_view::JumpProfile;

/// A character of a side-view level: how it moves, and (if the game says) which level it is
/// on. Its [`PathRequest`]s are planned on the level, fastest in time for its profile; it
/// walks the answer ([`SideViewRoute`]) leg by leg, and says [`Arrived`] at the goal or
/// [`PathFailed`] when no moves lead there.
///
/// The entity's `Transform` is the centre of its body. A goal given as a world position (or
/// an entity) is the place the body stands on at or below it: a click in the air sends the
/// character to the ground under the click.
#[derive(Component, Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Component)]
pub struct SideViewAgent {
    /// How it runs, jumps and climbs, and its body.
    pub profile: JumpProfile,
    /// Its level; `None`: the level its position lies on.
    pub level: Option<Entity>,
}

impl SideViewAgent {
    /// A character with this profile, on the level under it.
    pub fn new(profile: JumpProfile) -> Self {
        Self { profile, level: None }
    }
}
