//! Side-view levels in an app: [`SideViewLevel`] on a map entity (or [`SideViewTilemap`] on a
//! bevy_ecs_tilemap tilemap), [`SideViewAgent`] on the characters that walk, jump and climb it, answered [`PathRequest`]s as [`SideViewRoute`]s
//! that the walk system plays leg by leg.

mod level;
mod tilemap;
mod walk;

use bevy::ecs::intern::Interned;
use bevy::ecs::schedule::ScheduleLabel;
use bevy::prelude::*;

pub use level::SideViewLevel;
pub use tilemap::{SideViewRules, SideViewTilemap};
pub use walk::SideViewRoute;

use super::NavSet;
use super::NavSettings;
#[cfg(doc)]
use super::{Arrived, PathFailed, PathRequest};
use crate::side_view::JumpProfile;
#[cfg(doc)]
use crate::side_view::SideViewPath;

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

/// Part of [`TilemapNavPlugin`](super::TilemapNavPlugin): side-view levels, their
/// characters' requests, and their walks. Left out, [`SideViewAgent`]s' requests are not
/// answered (the rest of the plugin leaves them alone).
pub struct NavSideViewPlugin {
    /// The schedule the core runs in.
    pub schedule: Interned<dyn ScheduleLabel>,
}

impl Plugin for NavSideViewPlugin {
    fn build(&self, app: &mut App) {
        let gizmos = resource_exists::<bevy::gizmos::config::GizmoConfigStore>;
        app.init_resource::<walk::Planner>()
            .init_resource::<SideViewRules>()
            .register_type::<SideViewAgent>()
            .register_type::<SideViewTilemap>()
            .add_systems(
                self.schedule,
                (
                    (tilemap::sync_tilemaps, level::keep_levels).chain().in_set(NavSet::SyncGrid),
                    walk::answer_requests.in_set(NavSet::Pathfind),
                    walk::walk_routes.in_set(NavSet::Move),
                    walk::draw_routes
                        .in_set(NavSet::Debug)
                        .run_if(gizmos.and_then(|settings: Res<NavSettings>| settings.debug)),
                ),
            );
    }
}
