//! Smoothed paths: a grid path pulled tight with line of sight, so that a character walks
//! straight across open floor instead of zig-zagging between cell centres.

use crate::grid::line::segment_cost;
use crate::grid::{GridPos, NavGrid, Neighborhood};

/// Pulls a grid path (consecutive cells one legal step apart, as a search returns) tight: the
/// returned corner cells, start and end included, are joined by clear straight segments
/// ([`segment_cells`](crate::grid::line::segment_cells)), and each segment costs no more ([`segment_cost`]) than the stretch of
/// grid path it replaces, so the smoothed path never trades cheap ground for a shorter way
/// through mud. On a 4-way grid, where characters move only straight, it returns the path's
/// turning points instead.
///
/// ```
/// use bevy_tilemap_nav::prelude::*;
/// use bevy_tilemap_nav::path::smooth_path;
///
/// let grid = NavGrid::new(12, 6).unwrap();
/// let path = Pathfinder::new()
///     .find(&grid, &PathQuery::new(GridPos::new(0, 0), GridPos::new(11, 4)))
///     .unwrap();
/// // Open floor: one straight segment.
/// assert_eq!(smooth_path(&grid, &path.cells), vec![GridPos::new(0, 0), GridPos::new(11, 4)]);
/// ```
pub fn smooth_path(grid: &NavGrid, cells: &[GridPos]) -> Vec<GridPos> {
    if grid.neighborhood() == Neighborhood::Four {
        return crate::search::turning_points(grid.neighborhood(), cells);
    }
    if cells.len() <= 2 {
        return cells.to_vec();
    }
    // Grid cost from the start to each cell of the path.
    let mut along = Vec::with_capacity(cells.len());
    along.push(0.0);
    for w in cells.windows(2) {
        let step = grid.step_cost(w[0], w[1]).unwrap_or(f64::INFINITY);
        along.push(along.last().copied().unwrap_or(0.0) + step);
    }
    let mut corners = vec![cells[0]];
    let mut anchor = 0;
    let mut k = 1;
    while k < cells.len() {
        let fits = |end: usize| {
            segment_cost(grid, cells[anchor], cells[end])
                .is_some_and(|cost| cost <= along[end] - along[anchor] + 1e-9)
        };
        if k + 1 < cells.len() && fits(k + 1) {
            k += 1;
            continue;
        }
        corners.push(cells[k]);
        anchor = k;
        k += 1;
    }
    corners
}

/// The cost of walking a smoothed path segment by segment ([`segment_cost`]), or `None` if a
/// segment is not clear.
pub fn smoothed_cost(grid: &NavGrid, corners: &[GridPos]) -> Option<f64> {
    corners.windows(2).map(|w| segment_cost(grid, w[0], w[1])).sum()
}
