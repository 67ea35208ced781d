//! Shaping paths the search found: smoothing them with line of sight, and what walking a list
//! of cells costs; reachable areas (movement ranges); where to run from threats and where to
//! wander; goals for a group in formation. Plain Rust, above the grid and the search.

mod flee;
mod formation;
// Marching works in world points (Bevy's `Vec2`): with the Bevy layer only.
#[cfg(feature = "bevy")]
mod march;
mod reach;
mod smooth;
mod wander;

pub use flee::{FleeOptions, flee, flee_avoiding};
pub use formation::{
    ESTIMATED_LIMIT, EXACT_LIMIT, Formation, FormationError, best_assignment, group_goals,
};
#[cfg(feature = "bevy")]
pub use march::{March, Place, step_towards};
pub use reach::{
    Reach, ReachSearch, ReachedCell, reachable, reachable_avoiding, reachable_from_any,
};
pub use smooth::{smooth_path, smoothed_cost};
pub use wander::{wander, wander_avoiding};

use crate::grid::{GridPos, NavGrid};

/// Cost of a path given cell by cell under the grid's rules, or `None` if some step is not a
/// legal move (off the grid, into a wall, too long, or across a forbidden corner).
pub fn path_cost(grid: &NavGrid, cells: &[GridPos]) -> Option<f64> {
    let first = *cells.first()?;
    if !grid.is_passable(first) {
        return None;
    }
    cells.windows(2).map(|pair| grid.step_cost(pair[0], pair[1])).sum()
}
