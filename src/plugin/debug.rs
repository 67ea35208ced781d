//! Optional gizmo drawing: blocked cells, walls between cells and one-way edges, each agent's
//! remaining path, its goal.

use bevy::prelude::*;

use super::agent::{NavPath, PathFollower, TraceSearch, TracedSearch};
use super::map::NavMaps;
use crate::grid::Edge;

pub(crate) fn draw_debug(
    mut gizmos: Gizmos,
    maps: Res<NavMaps>,
    agents: Query<(&Transform, &NavPath, Option<&PathFollower>)>,
) {
    let Some(first) = maps.first() else {
        return;
    };
    for map in maps.iter() {
        let (grid, geometry) = (&map.grid, &map.geometry);
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
        // Walls between cells (white) and one-way edges (orange, with a tick on the side a
        // step may come from), drawn along the edge between the two cells' centres.
        for (from, to, edge) in grid.edges() {
            let (a, b) = (geometry.cell_to_world(from), geometry.cell_to_world(to));
            let (middle, across) = ((a + b) / 2.0, (b - a).perp() / 2.0);
            let wall = edge == Edge::Wall;
            let color =
                if wall { Color::srgb(0.95, 0.95, 0.95) } else { Color::srgb(1.0, 0.6, 0.1) };
            gizmos.line_2d(middle - across, middle + across, color);
            if !wall {
                // `from` may step to `to`, not back: the tick points into `from`.
                gizmos.line_2d(middle, middle + (a - b) * 0.2, color);
            }
        }
    }
    let cell_size = Vec2::new(first.geometry.grid_size.x, first.geometry.grid_size.y) * 0.9;
    for (transform, path, follower) in &agents {
        let next = follower.map_or(0, |f| f.next);
        let here = transform.translation.truncate();
        let rest = std::iter::once(here).chain(path.remaining_points(next));
        gizmos.linestrip_2d(rest, Color::srgb(1.0, 0.9, 0.2));
        for leg in &path.legs {
            gizmos.linestrip_2d(leg.points.iter().copied(), Color::srgb(1.0, 0.9, 0.2));
        }
        if let Some(&end) = path.legs.last().map_or(path.points.last(), |l| l.points.last()) {
            gizmos.circle_2d(
                Isometry2d::from_translation(end),
                cell_size.x * 0.35,
                Color::srgb(0.2, 1.0, 0.4),
            );
        }
    }
}

/// The search view: for each agent with [`TraceSearch`], its last search after `step`
/// expansions: closed cells (blue), open cells (green), and at the last step the path (yellow).
pub(crate) fn draw_watched_search(
    mut gizmos: Gizmos,
    maps: Res<NavMaps>,
    watched: Query<(&TraceSearch, &TracedSearch, Option<&NavPath>)>,
) {
    for (watch, TracedSearch(trace), path) in &watched {
        let map = path.and_then(|p| maps.get(p.map)).or(maps.first());
        let Some(geometry) = map.map(|m| &m.geometry) else {
            continue;
        };
        let size = Vec2::new(geometry.grid_size.x, geometry.grid_size.y);
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
