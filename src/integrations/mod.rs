//! Map editors: levels drawn in Tiled (feature `tiled`, through `bevy_ecs_tiled`) navigate
//! without wiring. Each integration is an optional cargo feature, off by default.

#[cfg(feature = "tiled")]
pub mod tiled;
