//! The debug overlay's views ([`NavViews`]): what each draws, worked out as plain shapes (a game
//! may draw them its own way), and the system that draws the views that are on with gizmos.

use bevy::prelude::*;

use super::fields::NavField;
use super::map::{NavMap, NavMaps};
use super::movement::{Avoidance, GridLocked, PathIndexes};
use super::profiles::AgentKind;
use super::seams::WorldGraphs;
use super::settings::{NavSettings, NavViews};
use crate::search::{DistanceField, WorldGraph, footprint};

/// A square a view draws: its centre, its size and its colour.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewMark {
    /// Its centre, in world units.
    pub at: Vec2,
    /// Its width and height.
    pub size: Vec2,
    /// Its colour.
    pub color: Color,
}

/// A line a view draws.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewLine {
    /// Where it begins, in world units.
    pub from: Vec2,
    /// Where it ends.
    pub to: Vec2,
    /// Its colour.
    pub color: Color,
}

/// The heat colour of a cell of `cost` on a map whose dearest cell costs `dearest`: green for
/// cost 1 through yellow to red for the dearest.
pub fn heat_color(cost: u32, dearest: u32) -> Color {
    let t = if dearest > 1 { (cost.saturating_sub(1)) as f32 / (dearest - 1) as f32 } else { 0.0 };
    let t = t.clamp(0.0, 1.0);
    Color::srgba((2.0 * t).min(1.0), (2.0 * (1.0 - t)).min(1.0), 0.1, 0.8)
}

impl NavViews {
    /// What [`NavViews::terrain`] draws on `map`: a square on each open cell in its
    /// [`heat_color`], and for a cost above 1 a second square inside it.
    pub fn terrain_marks(map: &NavMap) -> Vec<ViewMark> {
        let (grid, geometry) = (&map.grid, &map.geometry);
        let size = Vec2::new(geometry.grid_size.x, geometry.grid_size.y);
        let dearest = grid.positions().filter_map(|p| grid.cost(p)).max().unwrap_or(1);
        let mut marks = Vec::new();
        for pos in grid.positions() {
            let Some(cost) = grid.cost(pos) else {
                continue;
            };
            let (at, color) = (geometry.cell_to_world(pos), heat_color(cost, dearest));
            marks.push(ViewMark { at, size: size * 0.8, color });
            if cost > 1 {
                marks.push(ViewMark { at, size: size * 0.45, color });
            }
        }
        marks
    }

    /// What [`NavViews::fields`] draws of `field` on `map`: from each cell it reaches, a line
    /// most of the way to the cell's next step down it, white near the goals and blue far
    /// (by the cell's distance over the farthest reached); and a square on each goal.
    pub fn field_lines(map: &NavMap, field: &DistanceField) -> (Vec<ViewLine>, Vec<ViewMark>) {
        let (grid, geometry) = (&map.grid, &map.geometry);
        let far = grid.positions().filter_map(|p| field.cost(p)).fold(0.0, f64::max).max(1.0);
        let mut lines = Vec::new();
        for pos in grid.positions() {
            let (Some(cost), Some(next)) = (field.cost(pos), field.next_step(pos)) else {
                continue;
            };
            let (a, b) = (geometry.cell_to_world(pos), geometry.cell_to_world(next));
            let near = 1.0 - (cost / far) as f32;
            let color = Color::srgb(0.3 + 0.7 * near, 0.5 + 0.5 * near, 1.0);
            lines.push(ViewLine { from: a, to: a + (b - a) * 0.7, color });
        }
        let size = Vec2::new(geometry.grid_size.x, geometry.grid_size.y) * 0.6;
        let goals = field.goals().iter().map(|&g| ViewMark {
            at: geometry.cell_to_world(g),
            size,
            color: Color::WHITE,
        });
        (lines, goals.collect())
    }

    /// What [`NavViews::world_graph`] draws of `graph` over `maps` (the graph numbers grids as
    /// `maps` holds them): a mark on each node, a line for each edge.
    pub fn graph_lines(maps: &NavMaps, graph: &WorldGraph) -> (Vec<ViewLine>, Vec<ViewMark>) {
        let (nodes, edges) = graph.sketch();
        let grids: Vec<&NavMap> = maps.iter().collect();
        let place = |(g, cell): (usize, crate::grid::GridPos)| {
            let geometry = &grids.get(g)?.geometry;
            let size = Vec2::new(geometry.grid_size.x, geometry.grid_size.y);
            Some((geometry.cell_to_world(cell), size))
        };
        let placed: Vec<Option<(Vec2, Vec2)>> = nodes.iter().map(|&n| place(n)).collect();
        let color = Color::srgb(1.0, 0.4, 0.9);
        let marks =
            placed.iter().flatten().map(|&(at, size)| ViewMark { at, size: size * 0.5, color });
        let lines = edges
            .iter()
            .filter_map(|&(a, b)| {
                let (from, to) = (placed.get(a)?.as_ref()?.0, placed.get(b)?.as_ref()?.0);
                Some(ViewLine { from, to, color: color.with_alpha(0.5) })
            })
            .collect();
        (lines, marks.collect())
    }
}

/// Draws the views of [`NavSettings::views`] that are on.
pub(crate) fn draw_views(
    mut gizmos: Gizmos,
    settings: Res<NavSettings>,
    maps: Res<NavMaps>,
    (fields, graphs): (Query<&NavField>, Res<WorldGraphs>),
    bodies: Query<(&Transform, &Avoidance)>,
    (holds, plans): (Query<&GridLocked>, Res<PathIndexes>),
) {
    let views = settings.views;
    let mut marks = Vec::new();
    let mut lines = Vec::new();
    if views.terrain {
        maps.iter().for_each(|map| marks.extend(NavViews::terrain_marks(map)));
    }
    if views.fields {
        for nav in &fields {
            if let (Some(map), Some(field)) = (maps.get(nav.map), nav.field()) {
                let (l, m) = NavViews::field_lines(map, field);
                lines.extend(l);
                marks.extend(m);
            }
        }
    }
    if views.world_graph
        && let Some(graph) = graphs.get(AgentKind::PLAIN)
    {
        let (l, m) = NavViews::graph_lines(&maps, graph);
        lines.extend(l);
        marks.extend(m);
    }
    for mark in marks {
        gizmos.rect_2d(Isometry2d::from_translation(mark.at), mark.size, mark.color);
    }
    for line in lines {
        gizmos.line_2d(line.from, line.to, line.color);
    }
    if views.bodies {
        for (transform, body) in &bodies {
            let at = transform.translation.truncate();
            let color = Color::srgb(0.2, 0.9, 1.0);
            gizmos.circle_2d(Isometry2d::from_translation(at), body.body_radius(), color);
            gizmos.line_2d(at, at + body.velocity, Color::srgb(1.0, 1.0, 0.3));
        }
    }
    if views.holds {
        for lock in &holds {
            let Some((map, cell)) = lock.holds else { continue };
            let Some(map) = maps.get(map) else { continue };
            let size = Vec2::new(map.geometry.grid_size.x, map.geometry.grid_size.y);
            let square = |c, s: f32, color| {
                (Isometry2d::from_translation(map.geometry.cell_to_world(c)), size * s, color)
            };
            // Each cell of its body, and of the block it steps into.
            for c in footprint(cell, lock.size) {
                let (at, s, color) = square(c, 0.9, Color::srgb(1.0, 0.5, 0.1));
                gizmos.rect_2d(at, s, color);
            }
            for c in lock.entering.into_iter().flat_map(|next| footprint(next, lock.size)) {
                let (at, s, color) = square(c, 0.55, Color::srgb(1.0, 0.8, 0.2));
                gizmos.rect_2d(at, s, color);
            }
        }
        // Cooperative plans' reservations: a dot on each cell with turns still to come, one
        // ring more for each turn that waits there.
        for (map, cell, turns) in plans.reserved() {
            let Some(map) = maps.get(map) else { continue };
            let (at, width) = (map.geometry.cell_to_world(cell), map.geometry.grid_size.x);
            for ring in 1..=turns.min(4) {
                let radius = width * 0.08 * ring as f32;
                gizmos.circle_2d(
                    Isometry2d::from_translation(at),
                    radius,
                    Color::srgb(1.0, 0.3, 0.8),
                );
            }
        }
    }
}
