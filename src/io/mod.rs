//! Map formats in and out.

pub mod baked;
#[cfg(feature = "ldtk_files")]
pub mod ldtk;
pub mod movingai;
#[cfg(feature = "tiled_files")]
pub mod tiled;
