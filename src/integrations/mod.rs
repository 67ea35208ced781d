//! Map editors: levels drawn in Tiled (feature `tiled`, through `bevy_ecs_tiled`) or LDtk
//! (feature `ldtk`, through `bevy_ecs_ldtk`) navigate without wiring. Each integration is an
//! optional cargo feature, off by default.

#[cfg(feature = "ldtk")]
pub mod ldtk;
#[cfg(feature = "tiled")]
pub mod tiled;
