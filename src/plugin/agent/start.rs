//! Where an agent plans from and where it joins a path: its start cell (out of a wall if it
//! stands in one), its map's grid for its kind, the point its body stands on a cell, and the
//! stand-in path it walks while it waits for a new plan.

use bevy::prelude::*;

use super::super::map::{NavGeometry, NavMap, NavMaps, WorldToCellError};
use super::super::profiles::{AgentKind, NavProfiles};
use super::{NavError, NavPath, OnNavMap, PathFollower, agent_map};
use crate::grid::{GridPos, NavGrid};
use crate::search::AgentGrid;

/// The cell an agent plans from: where it stands, or, when it is between two cells of its
/// path, the one of them it can safely walk to. An agent caught in a cell that has just become a
/// wall plans from a passable neighbouring cell, so that it walks out rather than stay stuck.
pub(crate) fn start_cell(
    geometry: &NavGeometry,
    grid: &NavGrid,
    position: Vec2,
    following: Option<(&PathFollower, &NavPath)>,
) -> Result<GridPos, WorldToCellError> {
    let under = geometry.world_to_cell(position)?;
    let mut candidates = Vec::with_capacity(4);
    // Where it stands is safe if passable: walking to that cell's centre stays inside it.
    candidates.push(under);
    if let Some((follower, path)) = following {
        let next = follower.next.min(path.cells.len().saturating_sub(1));
        candidates.extend(path.cells.get(path.previous_target(next)).copied());
        candidates.extend(path.cells.get(next).copied());
    }
    let walkable = |c: GridPos| walks_out(grid, under, c);
    if let Some(&cell) = candidates.iter().find(|&&c| walkable(c)) {
        return Ok(cell);
    }
    // Standing in a wall: the nearest passable neighbour, straight steps first.
    let around = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)];
    Ok(around
        .iter()
        .filter_map(|&(dx, dy)| {
            Some(GridPos::new(under.x.checked_add_signed(dx)?, under.y.checked_add_signed(dy)?))
        })
        .find(|&c| walkable(c))
        .unwrap_or(under))
}

/// The grid an agent of kind `agent` searches on `map`, or why there is none: its profile is
/// unknown, its size unsupported there (the plugin makes the grid of every other kind in use
/// before requests are answered).
pub(crate) fn agent_grid<'a>(
    map: &'a NavMap,
    agent: AgentKind,
    profiles: &NavProfiles,
) -> Result<&'a NavGrid, NavError> {
    if let Some(grid) = map.grid_for(agent) {
        return Ok(grid);
    }
    if let Some(profile) = agent.profile.filter(|&p| profiles.get(p).is_none()) {
        return Err(NavError::UnknownProfile { profile });
    }
    // A kind the map could serve, with no grid for it: being built (the request waits, see
    // `waits_for_map`), or none is kept for any kind.
    match AgentGrid::check_size(&map.grid, agent.size) {
        Ok(()) => Err(NavError::NoAgentGrid { agent }),
        Err(error) => Err(NavError::Agent(error)),
    }
}

/// True when a request that failed with `error` is to wait instead: the map it names is loading,
/// or it found no served map to start or end on while some map is loading ([`NavMapLoading`](
/// super::super::NavMapLoading)), or its kind of agent's grid is being built.
pub(crate) fn waits_for_map(maps: &NavMaps, error: &NavError) -> bool {
    match error {
        NavError::MapGone { map } => maps.is_loading(*map),
        NavError::NoGrid
        | NavError::Start(WorldToCellError::OffMap(_))
        | NavError::Goal(WorldToCellError::OffMap(_)) => maps.any_loading(),
        // Its kind's grid is being built a slice a frame.
        NavError::NoAgentGrid { agent } => maps.iter().any(|m| m.builds_grid_for(*agent)),
        _ => false,
    }
}

/// Where a request of an agent of kind `agent` is made: its map (its `OnNavMap`, or the map
/// under `position`, or with an explicit `start` and neither, the first map), that map's grid
/// for its kind, and the cell it starts from (`start`, or where it stands, as [`agent_start`]
/// finds it). Shared by path and range requests.
pub(crate) fn request_start<'a>(
    (maps, profiles, agent): (&'a NavMaps, &NavProfiles, AgentKind),
    on_map: Option<&OnNavMap>,
    position: Option<Vec2>,
    start: Option<GridPos>,
    following: Option<(&PathFollower, &NavPath)>,
) -> Result<(&'a NavMap, &'a NavGrid, GridPos), NavError> {
    // Its `OnNavMap` (while it stands on it: see `agent_map`); if that map is gone, the map
    // under its feet.
    let map = match (on_map.and_then(|on| maps.get(on.0)), position) {
        (Some(map), Some(p)) => agent_map(maps, on_map, p).unwrap_or(map),
        (Some(map), None) => map,
        (None, Some(p)) if !p.is_finite() => {
            return Err(NavError::Start(WorldToCellError::NotFinite(p)));
        }
        (None, Some(p)) => maps.at_world(p).ok_or(match on_map {
            Some(OnNavMap(gone)) => NavError::MapGone { map: *gone },
            None => NavError::Start(WorldToCellError::OffMap(p)),
        })?,
        (None, None) => match on_map {
            Some(OnNavMap(gone)) => return Err(NavError::MapGone { map: *gone }),
            None if start.is_some() => maps.first().ok_or(NavError::NoGrid)?,
            None => return Err(NavError::NoTransform),
        },
    };
    let grid = agent_grid(map, agent, profiles)?;
    let start = match start {
        Some(start) => start,
        None => {
            let position = position.ok_or(NavError::NoTransform)?;
            let following = following.filter(|(_, path)| path.map == map.entity);
            agent_start(map, grid, agent, position, following).map_err(NavError::Start)?
        }
    };
    Ok((map, grid, start))
}

/// The cell where an agent of kind `agent` at `position` plans from on `map` (for a larger
/// agent: where the lowest corner of its body stands), as [`start_cell`] finds it.
pub(crate) fn agent_start(
    map: &NavMap,
    grid: &NavGrid,
    agent: AgentKind,
    position: Vec2,
    following: Option<(&PathFollower, &NavPath)>,
) -> Result<GridPos, WorldToCellError> {
    let corner = position - map.geometry.body_offset(agent.size);
    if !corner.is_finite() {
        return Err(WorldToCellError::NotFinite(position));
    }
    match start_cell(&map.geometry, grid, corner, following) {
        // A large body's corner can lie off the map where its centre does not.
        Err(WorldToCellError::OffMap(_)) => Err(WorldToCellError::OffMap(position)),
        found => found,
    }
}

/// Whether an agent standing in `from` (open, or a cell that has just become a wall) may walk
/// straight into `to`: `to` is open and `from` itself or next to it, across no wall between
/// cells, diagonally only with both side cells open (it would cross a wall's corner).
pub(crate) fn walks_out(grid: &NavGrid, from: GridPos, to: GridPos) -> bool {
    grid.is_passable(to)
        && to.x.abs_diff(from.x) <= 1
        && to.y.abs_diff(from.y) <= 1
        && grid.crossing_open(from, to)
        && grid
            .diagonal_sides(from, to)
            .is_none_or(|sides| sides.iter().all(|&s| grid.is_passable(s)))
}

/// Where an agent of kind `agent` stands when its lowest corner is at `cell`: the centre of
/// its body.
pub(crate) fn body_point(geometry: &NavGeometry, agent: AgentKind, cell: GridPos) -> Vec2 {
    geometry.cell_to_world(cell) + geometry.body_offset(agent.size)
}

/// The corners a follower walks between on `cells` of `grid` (indices in `cells`): the smoothed
/// ones when it is smoothed and one tile across; none (cell to cell) for a larger body (a line
/// clear for its corner cell could still take its body over a wall's corner) or with no grid.
pub(crate) fn walk_corners(
    smooth: bool,
    agent: AgentKind,
    grid: Option<&NavGrid>,
    cells: &[GridPos],
) -> Vec<usize> {
    match grid {
        Some(grid) if smooth && agent.size == 1 => corner_indices(grid, cells),
        _ => Vec::new(),
    }
}

/// The indices in `cells` of its smoothed corners ([`crate::path::smooth_path`]).
pub(crate) fn corner_indices(grid: &NavGrid, cells: &[GridPos]) -> Vec<usize> {
    let corners = crate::path::smooth_path(grid, cells);
    let mut indices = Vec::with_capacity(corners.len());
    let mut from = 0;
    for corner in corners {
        if let Some(k) = cells[from..].iter().position(|&c| c == corner) {
            indices.push(from + k);
            from += k;
        }
    }
    indices
}

/// How many of a new path's first cells are looked through for the one an agent stands on
/// ([`join_index`]): where the path begins, or a few cells on when the agent walked on while
/// the search ran.
const JOIN_LOOKAHEAD: usize = 8;

/// The index of the first point an agent at `position` walks to on a new `path` (on the map of
/// `geometry`; `grid`: that map's grid for the path's kind of agent). Asked again while it
/// walks, an agent does not walk back: when it stands on one of the path's first cells and is
/// already past that cell's centre towards the next point, with the straight line there clear,
/// it walks on to the next point. Otherwise 0, the path's start.
pub(crate) fn join_index(
    path: &NavPath,
    position: Vec2,
    geometry: &NavGeometry,
    grid: &NavGrid,
) -> usize {
    join_within(path, position, geometry, grid, JOIN_LOOKAHEAD).unwrap_or(0)
}

/// [`join_index`] looking through the first `lookahead` cells of the path; `None` when the
/// agent stands on none of them.
pub(crate) fn join_within(
    path: &NavPath,
    position: Vec2,
    geometry: &NavGeometry,
    grid: &NavGrid,
    lookahead: usize,
) -> Option<usize> {
    let corner = position - geometry.body_offset(path.agent.size);
    let here = geometry.world_to_cell(corner).ok()?;
    let k = path.cells.iter().take(lookahead).position(|&c| c == here)?;
    Some(join_from(path, position, geometry, grid, k))
}

/// Where an agent at `position`, standing on cell `k` of `path`, walks to first.
fn join_from(
    path: &NavPath,
    position: Vec2,
    geometry: &NavGeometry,
    grid: &NavGrid,
    k: usize,
) -> usize {
    let next = path.next_target_after(k);
    let (Some(&from), Some(&to)) = (path.points.get(k), path.points.get(next)) else {
        return k;
    };
    // Only on to the next cell of the path (a straight line from off the centre to a corner
    // farther away could clip a wall's corner), and past a diagonal only with both side cells
    // open, whatever the corner rule: from off the centre, the line may cross either.
    let (a, b) = (path.cells[k], path.cells[next.min(path.cells.len() - 1)]);
    let diagonal = a.x != b.x && a.y != b.y && !grid.neighborhood().is_hex();
    let sides_open = !diagonal
        || (grid.is_passable(GridPos::new(a.x, b.y)) && grid.is_passable(GridPos::new(b.x, a.y)));
    if next == k + 1
        && sides_open
        && (to - from).dot(position - from) > 0.0
        && clear_line(geometry, grid, path.agent, position, to)
    {
        next
    } else {
        k
    }
}

/// True when an agent's body centre can move in a straight line from `from` to `to` with its
/// lowest corner cell passable on `grid` all the way (checked every quarter of a tile; a line
/// longer than 256 tiles is not taken).
fn clear_line(
    geometry: &NavGeometry,
    grid: &NavGrid,
    agent: AgentKind,
    from: Vec2,
    to: Vec2,
) -> bool {
    let tile = geometry.grid_size.x.abs().min(geometry.grid_size.y.abs());
    let length = from.distance(to);
    let samples = (4.0 * length / tile).ceil();
    if !(samples.is_finite() && samples <= 1024.0) {
        return false;
    }
    let offset = geometry.body_offset(agent.size);
    let samples = samples as u32;
    (0..=samples).all(|k| {
        let at = from.lerp(to, k as f32 / samples.max(1) as f32) - offset;
        geometry.world_to_cell(at).is_ok_and(|cell| grid.is_passable(cell))
    })
}

/// The one-cell path an agent walks while it waits for a new plan ([`Replanning`](super::Replanning)): to the
/// centre of `cell` of `map`, keeping `old`'s goal and options.
pub(crate) fn stand_in(map: &NavMap, cell: GridPos, old: &NavPath) -> NavPath {
    let point = body_point(&map.geometry, old.agent, cell);
    NavPath {
        goal: old.goal,
        goal_map: old.goal_map,
        complete: false,
        options: old.options,
        arrival: old.arrival,
        ..NavPath::walk(map.entity, vec![cell], vec![point], 0.0, old.agent)
    }
}

/// A path on a map that moved or was rescaled (or with a walk on one, across a link): its
/// points read again from its cells, where its agent's body stands on each. True if any were.
pub(crate) fn rederive_points(path: &mut Mut<NavPath>, maps: &NavMaps, moved: &[Entity]) -> bool {
    let on_moved = std::iter::once(path.map).chain(path.legs.iter().map(|l| l.map));
    if !on_moved.into_iter().any(|m| moved.contains(&m)) {
        return false; // (read only: a path left alone is not marked changed)
    }
    let path = &mut **path;
    let mut any = false;
    let agent = path.agent;
    let mut points = |map: Entity, cells: &[GridPos], points: &mut Vec<Vec2>| {
        if let Some(on) = maps.get(map).filter(|_| moved.contains(&map)) {
            *points = cells.iter().map(|&c| body_point(&on.geometry, agent, c)).collect();
            any = true;
        }
    };
    points(path.map, &path.cells, &mut path.points);
    for leg in &mut path.legs {
        points(leg.map, &leg.cells, &mut leg.points);
    }
    any
}
