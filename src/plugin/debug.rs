//! Optional gizmo drawing: blocked cells, each agent's remaining path, its goal.

use bevy::prelude::*;

use super::agent::{Path, PathFollower, WatchSearch, WatchedSearch};
use super::tilemap::NavGeometry;
use crate::grid::NavGrid;

pub(crate) fn draw_debug(
    mut gizmos: Gizmos,
    grid: Option<Res<NavGrid>>,
    geometry: Option<Res<NavGeometry>>,
    agents: Query<(&Transform, &Path, Option<&PathFollower>)>,
) {
    let (Some(grid), Some(geometry)) = (grid, geometry) else {
        return;
    };
    let cell_size = Vec2::new(geometry.grid_size.x, geometry.grid_size.y) * 0.9;
    for pos in grid.positions() {
        if !grid.is_passable(pos) {
            let centre = geometry.cell_to_world(pos);
            gizmos.rect_2d(
                Isometry2d::from_translation(centre),
                cell_size,
                Color::srgba(1.0, 0.2, 0.2, 0.6),
            );
        }
    }
    for (transform, path, follower) in &agents {
        let next = follower.map_or(0, |f| f.next);
        let here = transform.translation.truncate();
        let rest = std::iter::once(here).chain(path.remaining_points(next));
        gizmos.linestrip_2d(rest, Color::srgb(1.0, 0.9, 0.2));
        if let Some(&end) = path.points.last() {
            gizmos.circle_2d(
                Isometry2d::from_translation(end),
                cell_size.x * 0.35,
                Color::srgb(0.2, 1.0, 0.4),
            );
        }
    }
}

/// The search view: for each agent with [`WatchSearch`], its last search after `step`
/// expansions: closed cells (blue), open cells (green), and at the last step the path (yellow).
pub(crate) fn draw_watched_search(
    mut gizmos: Gizmos,
    geometry: Option<Res<NavGeometry>>,
    watched: Query<(&WatchSearch, &WatchedSearch, Option<&Path>)>,
) {
    let Some(geometry) = geometry else {
        return;
    };
    let size = Vec2::new(geometry.grid_size.x, geometry.grid_size.y);
    for (watch, WatchedSearch(trace), path) in &watched {
        let (closed, open) = trace.at_step(watch.step);
        for (cells, color) in
            [(closed, Color::srgba(0.3, 0.5, 1.0, 0.9)), (open, Color::srgba(0.3, 1.0, 0.4, 0.9))]
        {
            for cell in cells {
                let centre = geometry.cell_to_world(cell);
                gizmos.rect_2d(Isometry2d::from_translation(centre), size * 0.7, color);
            }
        }
        if watch.step >= trace.expanded.len()
            && let Some(path) = path
        {
            gizmos.linestrip_2d(path.points.iter().copied(), Color::srgb(1.0, 0.9, 0.2));
        }
    }
}
