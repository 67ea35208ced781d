//! Side-view levels in an app: [`SideViewLevel`] on a map entity (or [`SideViewTilemap`] on a
//! bevy_ecs_tilemap tilemap), [`SideViewAgent`] on the characters that walk, jump and climb it,
//! answered [`PathRequest`](crate::plugin::PathRequest)s as [`SideViewRoute`]s that the walk
//! system plays leg by leg. The plugin part that runs them is
//! [`NavSideViewPlugin`](crate::plugin::NavSideViewPlugin).

mod agent;
pub(crate) mod level;
pub(crate) mod request;
pub(crate) mod tilemap;
pub(crate) mod walk;

pub use agent::SideViewAgent;
pub use level::SideViewLevel;
pub use tilemap::{SideViewRules, SideViewTilemap};
pub use walk::SideViewRoute;
