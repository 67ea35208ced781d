//! The guide: what the crate does and how to use it, chapter by chapter. Every Rust block in it
//! is compiled by `cargo test` (those marked `no_run` are compiled, not run; `ignore` ones need
//! a feature). Start with the crate's [front page](crate) for the shape of it; the API pages
//! have the details.
//!
//! 1. [Marking tiles](marking_tiles)
//! 2. [Requests and answers](requests)
//! 3. [Precomputed paths for levels that rarely change](precomputed_paths)
//! 4. [Links: stairs, doors between levels, teleporters](links)
//! 5. [Moving](moving)
//! 6. [Crowds: characters that do not walk through each other](crowds)
//! 7. [Behaviours: chase, stop in range, flee, wander, teams](behaviours)
//! 8. [Kinds of agents: who may go where, how big they are, how far they can move](kinds_of_agents)
//! 9. [Side view: platformers](side_view)
//! 10. [Levels from Tiled](tiled)
//! 11. [Levels from LDtk](ldtk)
//! 12. [The core, without Bevy](without_bevy)
//! 13. [Features, side by side](comparison)
//! 14. [Speed](speed)
//! 15. [Platforms](platforms)

#[doc = include_str!("../docs/guide/marking_tiles.md")]
pub mod marking_tiles {}

#[doc = include_str!("../docs/guide/requests.md")]
pub mod requests {}

#[doc = include_str!("../docs/guide/precomputed_paths.md")]
pub mod precomputed_paths {}

#[doc = include_str!("../docs/guide/links.md")]
pub mod links {}

#[doc = include_str!("../docs/guide/moving.md")]
pub mod moving {}

#[doc = include_str!("../docs/guide/crowds.md")]
pub mod crowds {}

#[doc = include_str!("../docs/guide/behaviours.md")]
pub mod behaviours {}

#[doc = include_str!("../docs/guide/kinds_of_agents.md")]
pub mod kinds_of_agents {}

#[doc = include_str!("../docs/guide/side_view.md")]
pub mod side_view {}

#[doc = include_str!("../docs/guide/tiled.md")]
pub mod tiled {}

#[doc = include_str!("../docs/guide/ldtk.md")]
pub mod ldtk {}

#[doc = include_str!("../docs/guide/without_bevy.md")]
pub mod without_bevy {}

#[doc = include_str!("../docs/guide/comparison.md")]
pub mod comparison {}

#[doc = include_str!("../docs/guide/speed.md")]
pub mod speed {}

#[doc = include_str!("../docs/guide/platforms.md")]
pub mod platforms {}
