//! Path requests on entities, answered with a [`Path`] or a [`PathFailed`].

use std::collections::VecDeque;
use std::fmt;

use bevy::prelude::*;

use crate::grid::{GridPos, NavGrid};
use crate::movement::{ObstacleCells, PathFollower, Replanning};
use crate::plugin::NavSettings;
use crate::search::{PathError, Pathfinder, SearchOptions, SearchTrace};
use crate::tilemap::{NavGeometry, WorldToCellError};

/// Where to go.
#[derive(Clone, Copy, Debug, PartialEq, Reflect)]
pub enum PathGoal {
    /// A tile position (`TilePos` x and y).
    Tile(GridPos),
    /// A world position; the goal is the tile under it.
    World(Vec2),
}

impl From<GridPos> for PathGoal {
    fn from(pos: GridPos) -> Self {
        PathGoal::Tile(pos)
    }
}

impl From<Vec2> for PathGoal {
    fn from(world: Vec2) -> Self {
        PathGoal::World(world)
    }
}

/// Put this on an entity with a `Transform` to ask for a path from the tile under it to `goal`.
/// The plugin answers by inserting [`Path`] (and removing this request) or [`PathFailed`].
/// Inserting a new request replaces one still waiting.
#[derive(Component, Clone, Debug, PartialEq, Reflect)]
#[reflect(Component)]
pub struct PathRequest {
    pub goal: PathGoal,
    /// Heuristic, weight, limits, partial paths. `None`: the plugin's defaults
    /// ([`NavSettings::search`]).
    #[reflect(ignore)]
    pub options: Option<SearchOptions>,
    /// Start here instead of at the tile under the entity's `Transform`.
    pub start: Option<GridPos>,
}

impl PathRequest {
    /// A request with the plugin's default options.
    pub fn to(goal: impl Into<PathGoal>) -> Self {
        Self { goal: goal.into(), options: None, start: None }
    }

    pub fn with_options(mut self, options: SearchOptions) -> Self {
        self.options = Some(options);
        self
    }
}

/// The answer to a [`PathRequest`]: the cells to walk and their world-space centres.
#[derive(Component, Clone, Debug, PartialEq, Reflect)]
#[reflect(Component)]
pub struct Path {
    /// Start to end, both included.
    pub cells: Vec<GridPos>,
    /// World-space centre of each cell (as many as `cells`: a `Path` made by hand where the two
    /// differ is not walked).
    pub points: Vec<Vec2>,
    /// Total cost, as the search engine computes it.
    pub cost: f64,
    /// The goal that was asked for.
    pub goal: GridPos,
    /// False for a partial path that stops at the reachable cell closest to the goal.
    pub complete: bool,
    /// Cells expanded by the search.
    pub expanded: u32,
    /// Search time in microseconds.
    pub micros: f32,
    /// The options it was planned with, to plan again the same way.
    #[reflect(ignore)]
    pub options: SearchOptions,
    /// For a smoothed path ([`PathFollower::smooth`]): the indices in `cells` of the corners
    /// walked through in straight lines. Empty: every cell centre is walked through.
    pub corners: Vec<usize>,
}

impl Path {
    /// The index of the first point walked to after index `i`.
    pub fn next_target_after(&self, i: usize) -> usize {
        if self.corners.is_empty() {
            i + 1
        } else {
            self.corners.iter().copied().find(|&c| c > i).unwrap_or(self.cells.len())
        }
    }

    /// The index of the last point walked through before reaching index `next`.
    pub fn previous_target(&self, next: usize) -> usize {
        if self.corners.is_empty() {
            next.saturating_sub(1)
        } else {
            self.corners.iter().copied().rev().find(|&c| c < next).unwrap_or(0)
        }
    }

    /// The world points still to walk to, from index `next` on.
    pub fn remaining_points(&self, next: usize) -> impl Iterator<Item = Vec2> + '_ {
        let mut i = next;
        std::iter::from_fn(move || {
            let point = self.points.get(i).copied()?;
            i = self.next_target_after(i);
            Some(point)
        })
    }
}

/// Why a request got no path.
#[derive(Clone, Debug, PartialEq)]
pub enum NavError {
    /// The search engine's verdict: out of bounds, blocked, unreachable, limit.
    Search(PathError),
    /// There is no navigation grid yet (no tilemap marked `NavTilemap`).
    NoGrid,
    /// The entity has no `Transform` to start from.
    NoTransform,
    /// The entity's position has no cell.
    Start(WorldToCellError),
    /// The goal's world position has no cell.
    Goal(WorldToCellError),
}

impl fmt::Display for NavError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NavError::Search(e) => write!(f, "{e}"),
            NavError::NoGrid => write!(f, "no navigation grid: mark a tilemap with NavTilemap"),
            NavError::NoTransform => write!(f, "the entity has no Transform to start from"),
            NavError::Start(e) => write!(f, "start: {e}"),
            NavError::Goal(e) => write!(f, "goal: {e}"),
        }
    }
}

impl std::error::Error for NavError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            NavError::Search(e) => Some(e),
            NavError::Start(e) | NavError::Goal(e) => Some(e),
            _ => None,
        }
    }
}

impl From<PathError> for NavError {
    fn from(e: PathError) -> Self {
        NavError::Search(e)
    }
}

/// Put this on an agent to watch its searches: the plugin records each search it answers for
/// this agent in a [`WatchedSearch`], and the debug view draws the closed cells, the open cells
/// and (at the last step) the path, after `step` expansions. Raise `step` to step through it.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Reflect)]
#[reflect(Component)]
pub struct WatchSearch {
    pub step: usize,
}

/// The recording of the last search answered for an agent with [`WatchSearch`].
#[derive(Component, Clone, Debug, Default, PartialEq)]
pub struct WatchedSearch(pub SearchTrace);

/// A failed request: inserted on the entity (replacing any earlier one) and sent as a message.
#[derive(Component, Message, Clone, Debug, PartialEq)]
pub struct PathFailed {
    pub entity: Entity,
    pub error: NavError,
}

/// Requests waiting for an answer, in arrival order, and the search scratch memory.
#[derive(Resource, Default)]
pub(crate) struct RequestQueue {
    waiting: VecDeque<Entity>,
    pathfinder: Pathfinder,
}

/// Queues new and replaced requests in arrival order.
pub(crate) fn queue_requests(
    mut queue: ResMut<RequestQueue>,
    requests: Query<Entity, Changed<PathRequest>>,
) {
    for entity in &requests {
        if let Some(i) = queue.waiting.iter().position(|&e| e == entity) {
            queue.waiting.remove(i);
        }
        queue.waiting.push_back(entity);
    }
}

/// The cell an agent plans from: where it stands, or, when it is between two cells of its
/// path, the one of them it can safely walk to. An agent caught in a cell that has just become a
/// wall plans from a passable neighbouring cell, so that it walks out rather than stay stuck.
pub(crate) fn start_cell(
    geometry: &NavGeometry,
    grid: &NavGrid,
    position: Vec2,
    following: Option<(&PathFollower, &Path)>,
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
    if let Some(&cell) = candidates.iter().find(|&&c| grid.is_passable(c)) {
        return Ok(cell);
    }
    // Standing in a wall: the nearest passable neighbour, straight steps first.
    let around = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)];
    Ok(around
        .iter()
        .filter_map(|&(dx, dy)| {
            Some(GridPos::new(under.x.checked_add_signed(dx)?, under.y.checked_add_signed(dy)?))
        })
        .find(|&c| grid.is_passable(c))
        .unwrap_or(under))
}

/// Answers waiting requests in arrival order until the frame's budget is spent.
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
pub(crate) fn answer_requests(
    mut commands: Commands,
    mut queue: ResMut<RequestQueue>,
    settings: Res<NavSettings>,
    grid: Option<Res<NavGrid>>,
    geometry: Option<Res<NavGeometry>>,
    requests: Query<(
        &PathRequest,
        Option<&Transform>,
        Option<&PathFollower>,
        Option<&Path>,
        Has<WatchSearch>,
    )>,
    obstacles: Res<ObstacleCells>,
    mut failures: MessageWriter<PathFailed>,
) {
    let (mut answered, mut expanded) = (0usize, 0u64);
    let RequestQueue { waiting, pathfinder } = &mut *queue;
    while answered < settings.max_requests_per_frame.max(1)
        && (answered == 0 || expanded < settings.max_expansions_per_frame)
    {
        let Some(entity) = waiting.pop_front() else {
            break;
        };
        let Ok((request, transform, follower, old_path, watched)) = requests.get(entity) else {
            continue; // despawned, or the request was taken back
        };
        answered += 1;
        if watched {
            pathfinder.record_next();
        }
        let result = plan(
            pathfinder,
            grid.as_deref().zip(geometry.as_deref()),
            &settings,
            request,
            transform,
            follower.zip(old_path),
            &obstacles.for_agent(entity),
        );
        let Ok(mut entity_commands) = commands.get_entity(entity) else {
            continue;
        };
        entity_commands.remove::<PathRequest>();
        if let Some(trace) = pathfinder.take_trace() {
            entity_commands.insert((WatchedSearch(trace), WatchSearch { step: 0 }));
        }
        match result {
            Ok(mut path) => {
                expanded += u64::from(path.expanded);
                if let (Some(follower), Some(grid)) = (follower, grid.as_deref())
                    && follower.smooth
                {
                    path.corners = corner_indices(grid, &path.cells);
                }
                entity_commands.remove::<(PathFailed, Replanning)>().insert(path);
                if let Some(follower) = follower {
                    entity_commands.insert(PathFollower { next: 0, ..follower.clone() });
                }
            }
            Err(error) => {
                let failed = PathFailed { entity, error };
                entity_commands.insert(failed.clone());
                failures.write(failed);
            }
        }
    }
}

fn plan(
    pathfinder: &mut Pathfinder,
    map: Option<(&NavGrid, &NavGeometry)>,
    settings: &NavSettings,
    request: &PathRequest,
    transform: Option<&Transform>,
    following: Option<(&PathFollower, &Path)>,
    avoid: &[GridPos],
) -> Result<Path, NavError> {
    let (grid, geometry) = map.ok_or(NavError::NoGrid)?;
    let start = match request.start {
        Some(start) => start,
        None => {
            let transform = transform.ok_or(NavError::NoTransform)?;
            start_cell(geometry, grid, transform.translation.truncate(), following)
                .map_err(NavError::Start)?
        }
    };
    let goal = match request.goal {
        PathGoal::Tile(pos) => pos,
        PathGoal::World(world) => geometry.world_to_cell(world).map_err(NavError::Goal)?,
    };
    let options = request.options.unwrap_or(settings.search);
    let started = std::time::Instant::now();
    let found = pathfinder.find_path_avoiding(grid, start, goal, &options, avoid)?;
    let micros = started.elapsed().as_secs_f32() * 1e6;
    Ok(Path {
        points: found.cells.iter().map(|&c| geometry.cell_to_world(c)).collect(),
        cells: found.cells,
        cost: found.cost,
        goal,
        complete: found.complete,
        expanded: found.stats.expanded,
        micros,
        options,
        corners: Vec::new(),
    })
}

/// The indices in `cells` of its smoothed corners ([`crate::smooth::smooth_path`]).
fn corner_indices(grid: &NavGrid, cells: &[GridPos]) -> Vec<usize> {
    let corners = crate::smooth::smooth_path(grid, cells);
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
