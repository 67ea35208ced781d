//! Wandering: a random cell within a cost budget, and the cheapest way there.

use super::reach::reachable_avoiding;
use crate::grid::{GridPos, NavGrid};
use crate::search::{PathError, PathResult};

/// A path from `start` to a cell picked at random among those reachable within `budget` (the
/// start itself only when nothing else is): each equally likely, and the same for the same
/// `seed` on the same grid. The walk is a cheapest path there under the grid's rules.
///
/// Errors: the start off the grid or blocked; a budget that is NaN or negative.
///
/// ```
/// use bevy_tilemap_nav::grid::{GridPos, NavGrid};
/// use bevy_tilemap_nav::path::{path_cost, wander};
///
/// let grid = NavGrid::new(30, 30).unwrap();
/// let walk = wander(&grid, GridPos::new(15, 15), 6.0, 7).unwrap();
/// assert!(walk.cost <= 6.0 && walk.end() != GridPos::new(15, 15));
/// assert_eq!(path_cost(&grid, &walk.cells), Some(walk.cost));
/// assert_eq!(wander(&grid, GridPos::new(15, 15), 6.0, 7).unwrap(), walk); // seeded
/// ```
pub fn wander(
    grid: &NavGrid,
    start: GridPos,
    budget: f64,
    seed: u64,
) -> Result<PathResult, PathError> {
    wander_avoiding(grid, start, budget, seed, &[])
}

/// [`wander`] that neither ends on nor walks through the cells of `avoid` (other characters).
pub fn wander_avoiding(
    grid: &NavGrid,
    start: GridPos,
    budget: f64,
    seed: u64,
    avoid: &[GridPos],
) -> Result<PathResult, PathError> {
    let range = reachable_avoiding(grid, start, budget, avoid)?;
    // The start is the first cell of the range: pick among the others.
    let others = &range.cells()[1..];
    let end = match others.len() {
        0 => start,
        n => others[(mix(seed) % n as u64) as usize].pos,
    };
    Ok(range.walk_to(grid, end, range.cells().len()))
}

/// SplitMix64's finaliser: a seed (even 0, 1, 2, ...) to well-spread bits.
pub(crate) fn mix(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
