//! Map formats in and out.

pub mod baked;
pub mod movingai;
