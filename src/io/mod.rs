//! Map formats in and out.

pub mod movingai;
