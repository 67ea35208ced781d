//! Side-view levels (platformers, metroidvanias): gravity along -y, characters that walk,
//! step, climb ladders, jump, fall off edges and drop through one-way platforms, with plans
//! fastest in time.
//!
//! - [`SideViewMap`]: the tiles ([`SideTile`]: empty, solid, ladder, one-way platform).
//! - [`JumpProfile`]: how a character moves: run and climb speeds, jump height, gravity, body.
//! - [`SideViewMoves`]: every move the profile can make on the map, generated from the
//!   tiles, and made again only near tiles that change ([`SideViewMoves::retile`]).
//! - [`SideViewPlanner`]: the fastest [`SideViewPath`] over those moves; each [`Leg`] says
//!   what it is ([`LegKind`]) and, for flights, its [`Arc`].
//!
//! What the moves are, exactly (the body is a `w` x `h` box of tiles, its position its lower
//! left tile; touching a tile's side is not being inside it):
//! - the body **stands** where it overlaps no solid tile and something is under one of its
//!   columns: a solid tile, a one-way platform, a ladder's top rung, or the map's bottom; it
//!   **holds a ladder** where a ladder tile is in its lowest row;
//! - **walk**: one tile sideways to a place it stands or holds a ladder (1 / run speed);
//! - **step** (profiles with `steps`): up or down one tile to the side, as a rise and a run
//!   (or a run and a drop), 1 / run speed;
//! - **climb**: up or down one tile while holding a ladder (the tile above a ladder's top
//!   is reached by climbing), 1 / climb speed;
//! - **jump**: from where it stands, at each of the profile's jump heights, on an arc at
//!   any sideways speed up to the run speed, to any place it stands that the arc reaches on
//!   its way down;
//! - **fall**: a walk off an edge (one tile sideways to where nothing holds it), then an arc
//!   with no speed up;
//! - **drop**: down through what it stands on, when that is all one-way platforms or ladder
//!   tops, on an arc with no speed up;
//! - every flight keeps the body out of solid tiles the whole way and ends on the first
//!   thing that holds it up: it never passes down through a platform or ladder top it is
//!   over (but for a drop's own), and it passes up through one-way platforms.
//!
//! ```
//! use bevy_tilemap_nav::grid::GridPos;
//! use bevy_tilemap_nav::side_view::{JumpProfile, LegKind, SideViewMap, SideViewMoves};
//!
//! let map = SideViewMap::from_rows(&[
//!     "..........",
//!     ".....---..",
//!     "..........",
//!     "###....###",
//! ])
//! .unwrap();
//! let hero = JumpProfile::new(6.0, 3.0, 40.0);
//! let moves = SideViewMoves::new(&map, hero).unwrap();
//! let path = moves.plan(&map, GridPos::new(0, 1), GridPos::new(6, 3)).unwrap();
//! assert_eq!(path.stops.last(), Some(&GridPos::new(6, 3)));
//! assert!(path.legs.iter().all(|leg| leg.kind != LegKind::Climb));
//! ```

mod arc;
mod error;
mod map;
mod moves;
mod plan;
mod profile;

pub use error::SideViewError;
pub use map::{MAX_SIDE_VIEW_TILES, SideTile, SideViewMap};
pub use moves::{LegKind, SideMove, SideViewMoves};
pub use plan::{Arc, Leg, SideViewAim, SideViewPath, SideViewPlanner};
pub use profile::{JumpProfile, MAX_BODY, MAX_JUMP_HEIGHT};
