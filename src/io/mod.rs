//! Map formats in and out.

pub mod baked;
pub mod movingai;
#[cfg(feature = "tiled_files")]
pub mod tiled;
