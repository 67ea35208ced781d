//! What an agent carries and what it is told: the request for a path, the path, the walker
//! that follows it, obstacles, and the messages and errors about them. Shared by the request
//! and movement systems, which both import it from here.

use std::fmt;

use bevy::prelude::*;

use super::link::LinkEnd;
use super::map::{NavGeometry, NavMap, NavMaps, WorldToCellError};
use super::profiles::{NavAgent, NavProfiles, ProfileId};
use crate::grid::{GridError, GridPos, GridStamp, NavGrid};
use crate::search::{AgentGrid, PathError, SearchOptions, SearchTrace};

/// Where to go.
#[derive(Clone, Debug, PartialEq, Reflect)]
pub enum PathGoal {
    /// A cell of the map the agent is on (on square, diamond and hex maps its `TilePos` x
    /// and y; see [`NavGeometry::tile_to_cell`] for staggered ones).
    Tile(GridPos),
    /// A world position; the goal is the cell under it, on the agent's own map if it lies on
    /// it, else on the map under it ([`NavMaps::at_world`]).
    World(Vec2),
    /// A cell of a given map (its [`NavMap::entity`]).
    OnMap {
        /// The map.
        map: Entity,
        /// The cell on it.
        cell: GridPos,
    },
    /// Another entity (anything with a `Transform`): the cell under it, on its [`OnNavMap`] or
    /// the map under it. The agent then follows it as it moves, through links and across maps,
    /// until sent elsewhere: see [`Pursuit`](super::Pursuit). A target that is gone fails the request with
    /// [`NavError::TargetGone`].
    Entity(Entity),
    /// The cheapest to reach of these cells of the agent's own map (the search ends at the
    /// first of them it settles). None given: [`PathError::NoGoals`].
    Nearest(Vec<GridPos>),
    /// Away from these entities (threats, on the agent's map; others are left out): within
    /// `budget` (a path's cost) to a cell far from all of them, preferring ground that leads on
    /// to a dead end ([`flee`](crate::path::flee)). While the agent runs, the plan is made again
    /// as the threats move ([`Pursuit`](super::Pursuit)).
    AwayFrom {
        /// What to run from.
        threats: Vec<Entity>,
        /// The most the flight may cost.
        budget: f64,
    },
    /// A random cell within `budget` (a path's cost) of the agent, each equally likely, the
    /// same for the same `seed` and map ([`wander`](crate::path::wander)): change the seed for
    /// each new wander.
    Wander {
        /// The most the walk may cost.
        budget: f64,
        /// Picks the cell.
        seed: u64,
    },
}

/// Where an agent may stop short of its goal: at the first cell of its path where this holds
/// ([`PathRequest::arriving`]). Distances are world units between the centre of the agent's
/// cell (its body's centre) and the goal: the goal cell's centre, or a chased entity's
/// position while it is chased.
#[derive(Clone, Copy, Debug, Default, PartialEq, Reflect)]
pub enum Arrival {
    /// At the goal itself.
    #[default]
    AtGoal,
    /// Within this distance of the goal.
    Within(f32),
    /// Where the rest of the path to the goal costs at most this (a path's cost: 1 a straight
    /// step on cost-1 ground).
    WithinCost(f64),
    /// Within `distance` of the goal, with a clear line on the grid from the agent's cell to the
    /// goal's cell (no wall between, as a missile or a look would need).
    InSight {
        /// The most the distance may be.
        distance: f32,
    },
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
/// Inserting a new request replaces one still waiting (which keeps its place in the queue).
///
/// # Example
///
/// A headless app (no window, as in a test): a 5 x 3 tilemap whose middle row is a wall with a
/// gap at its right end, and a character sent from the bottom-left tile to the top-left one.
///
/// ```
/// use std::time::Duration;
/// use bevy::prelude::*;
/// use bevy::time::TimeUpdateStrategy;
/// use bevy_ecs_tilemap::prelude::*;
/// use bevy_tilemap_nav::prelude::*;
///
/// const WALL: u32 = 1;
/// let mut app = App::new();
/// app.add_plugins((MinimalPlugins, TilemapNavPlugin::default()))
///     .insert_resource(TileRules::default().with(WALL, Cell::Blocked))
///     .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(50)));
///
/// // The tilemap, spawned as a game spawns one (tile y = 0 is the bottom row), marked
/// // `NavTilemap`.
/// let size = TilemapSize { x: 5, y: 3 };
/// let map = app.world_mut().spawn_empty().id();
/// let mut storage = TileStorage::empty(size);
/// for y in 0..size.y {
///     for x in 0..size.x {
///         let position = TilePos { x, y };
///         let texture = TileTextureIndex(if y == 1 && x < 4 { WALL } else { 0 });
///         let tile = app.world_mut().spawn((position, TilemapId(map), texture)).id();
///         storage.set(&position, tile);
///     }
/// }
/// let tile = TilemapTileSize { x: 16.0, y: 16.0 };
/// app.world_mut().entity_mut(map).insert((
///     storage, size, TilemapGridSize::from(tile), tile, TilemapType::Square,
///     TilemapAnchor::None, Transform::default(), NavTilemap,
/// ));
/// app.update(); // the plugin reads the tilemap into a navigation grid
///
/// let geometry = app.world().resource::<NavMaps>().first().unwrap().geometry;
/// let start = geometry.cell_to_world(GridPos::new(0, 0));
/// let goal = GridPos::new(0, 2);
/// let walker = app
///     .world_mut()
///     .spawn((
///         Transform::from_translation(start.extend(1.0)),
///         PathFollower::new(64.0), // world units a second
///         PathRequest::to(goal),   // a tile, or a world position
///     ))
///     .id();
/// app.update();
///
/// // The answer goes round the wall, through the gap at (4, 1).
/// let path = app.world().get::<Path>(walker).expect("answered in the frame it was asked");
/// assert!(path.complete && path.cells.contains(&GridPos::new(4, 1)));
/// // And the character walks it to the goal's centre.
/// for _ in 0..100 {
///     app.update();
/// }
/// let at = app.world().get::<Transform>(walker).unwrap().translation.truncate();
/// assert!(at.distance(geometry.cell_to_world(goal)) < 0.5);
/// ```
#[derive(Component, Clone, Debug, PartialEq, Reflect)]
#[reflect(Component)]
pub struct PathRequest {
    /// Where to go.
    pub goal: PathGoal,
    /// Heuristic, weight, limits, partial paths. `None`: the plugin's defaults
    /// ([`NavSettings::search`](super::NavSettings::search)).
    #[reflect(ignore)]
    pub options: Option<SearchOptions>,
    /// Start at this cell of the agent's map instead of at the cell under its `Transform`.
    pub start: Option<GridPos>,
    /// Plan for this kind of agent (profile, size); `None`: the entity's [`NavAgent`], or the
    /// plain agent without one.
    pub agent: Option<NavAgent>,
    /// Where it may stop short of the goal (at the goal: [`Arrival::AtGoal`]).
    pub arrive: Arrival,
}

impl PathRequest {
    /// A request with the plugin's default options.
    pub fn to(goal: impl Into<PathGoal>) -> Self {
        Self { goal: goal.into(), options: None, start: None, agent: None, arrive: Arrival::AtGoal }
    }

    /// A request that follows another entity as it moves ([`PathGoal::Entity`]).
    pub fn chase(target: Entity) -> Self {
        Self::to(PathGoal::Entity(target))
    }

    /// This request stopping where `arrive` first holds along the path: the path ends at that
    /// cell, and [`Arrived::by`] says so.
    pub fn arriving(mut self, arrive: Arrival) -> Self {
        self.arrive = arrive;
        self
    }

    /// Plan for this kind of agent, whatever the entity's [`NavAgent`] says.
    pub fn for_agent(mut self, agent: NavAgent) -> Self {
        self.agent = Some(agent);
        self
    }

    /// This request with its own search options instead of the plugin's defaults.
    pub fn with_options(mut self, options: SearchOptions) -> Self {
        self.options = Some(options);
        self
    }
}

/// The answer to a [`PathRequest`]: the cells to walk and their world-space centres, on one map;
/// for a path through [`NavLink`](super::NavLink)s, the walks after each link follow in
/// [`legs`](Self::legs).
#[derive(Component, Clone, Debug, PartialEq, Reflect)]
#[reflect(Component)]
pub struct Path {
    /// The map walked on now (its [`NavMap::entity`]).
    pub map: Entity,
    /// Start to end, both included: the walk on `map` (to the goal, or to the first link).
    pub cells: Vec<GridPos>,
    /// World-space centre of each cell (as many as `cells`: a `Path` made by hand where the two
    /// differ is not walked).
    pub points: Vec<Vec2>,
    /// Total cost, as the search engine computes it.
    pub cost: f64,
    /// The goal that was asked for, and its map.
    pub goal: GridPos,
    /// The map of `goal`.
    pub goal_map: Entity,
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
    /// The walks still to come after `cells`, each reached through a link: the agent walks to
    /// the end of `cells`, is carried across the first leg's link, and walks it; and so on.
    pub legs: Vec<PathLeg>,
    /// The kind of agent it was planned for. For a larger agent the cells are where the lowest
    /// corner of its body stands, and the points the centres of its body.
    pub agent: NavAgent,
    /// Where the agent may stop short of `goal` (the request's [`PathRequest::arrive`]): the
    /// path ends at the first cell where it held when planned.
    pub arrival: Arrival,
}

/// A walk of a [`Path`] that begins across a link.
#[derive(Clone, Debug, PartialEq, Reflect)]
pub struct PathLeg {
    /// The link taken to begin it (the link's entity), from the end of the walk before.
    pub link: Entity,
    /// Where the link leaves from and where it arrives: the first cell of `cells`.
    pub from: LinkEnd,
    /// The map this walk is on.
    pub map: Entity,
    /// The cells of the walk, from the link's arrival cell.
    pub cells: Vec<GridPos>,
    /// Their world positions, where the agent's body stands on each.
    pub points: Vec<Vec2>,
    /// Its cost (the link's included).
    pub cost: f64,
}

/// The map an agent stands on. The plugin sets it when it answers a request and when the agent
/// crosses a link; insert it to place an agent on a map yourself (where maps overlap: floors
/// drawn at one place). Without it, when the map it names is gone, or when the agent does not
/// stand on that map (half a step across a seam), an agent is on the map under its feet
/// ([`NavMaps::at_world`]).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Reflect)]
#[reflect(Component)]
pub struct OnNavMap(pub Entity);

/// The map an agent is on: its [`OnNavMap`] if that map exists and `position` lies on it, else
/// the map under `position` (else the named map).
pub(crate) fn agent_map<'a>(
    maps: &'a NavMaps,
    on: Option<&OnNavMap>,
    position: Vec2,
) -> Option<&'a NavMap> {
    // (Its `OnNavMap` while it stands on that map: an agent half a step past a seam, its
    // `OnNavMap` already the next map's, is still on the map it is leaving.)
    let named = on.and_then(|on| maps.get(on.0));
    match named {
        Some(map) if map.geometry.world_to_cell(position).is_ok() => Some(map),
        _ => maps.at_world(position).or(named),
    }
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
    /// The map the agent was on, or was heading for, is gone (its tilemaps despawned or
    /// unmarked), or the agent's [`OnNavMap`] names no map.
    MapGone {
        /// The map's entity.
        map: Entity,
    },
    /// The entity has no `Transform` to start from.
    NoTransform,
    /// The entity's position has no cell.
    Start(WorldToCellError),
    /// The goal's world position has no cell.
    Goal(WorldToCellError),
    /// The agent's [`NavAgent`] names a profile that [`NavProfiles`] does not have.
    UnknownProfile {
        /// The profile asked for.
        profile: ProfileId,
    },
    /// The agent's size is one the map cannot serve ([`GridError::UnsupportedSize`]).
    Agent(GridError),
    /// The entity named by [`PathGoal::Entity`] is gone (or has no `Transform`).
    TargetGone {
        /// The entity.
        target: Entity,
    },
    /// The agent has a profile or a size above 1 and no grid is kept for its kind: the app
    /// left out [`NavAgentGridsPlugin`](super::NavAgentGridsPlugin).
    NoAgentGrid {
        /// The agent's kind.
        agent: NavAgent,
    },
    /// The agent's [`Path`] (made or changed by hand) cannot be walked: it has no cells, its
    /// cells and points differ in number, a point is not finite, or one of its legs is so.
    MalformedPath,
    /// The goal is on another map than the start and no [`NavLink`](super::NavLink)s lead
    /// there (or none that this agent can take): each map's cell is named with its map.
    NoWayBetweenMaps {
        /// The map the agent starts on.
        start_map: Entity,
        /// The cell it starts from.
        start: GridPos,
        /// The goal's map.
        goal_map: Entity,
        /// The goal's cell.
        goal: GridPos,
    },
}

impl fmt::Display for NavError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NavError::Search(e) => write!(f, "{e}"),
            NavError::NoGrid => write!(f, "no navigation grid: mark a tilemap with NavTilemap"),
            NavError::MapGone { map } => write!(f, "map {map} is gone"),
            NavError::NoTransform => write!(f, "the entity has no Transform to start from"),
            NavError::Start(e) => write!(f, "start: {e}"),
            NavError::Goal(e) => write!(f, "goal: {e}"),
            NavError::UnknownProfile { profile } => {
                write!(f, "no navigation profile {profile:?} in NavProfiles")
            }
            NavError::Agent(e) => write!(f, "{e}"),
            NavError::TargetGone { target } => {
                write!(f, "the entity {target} to go to is gone (or has no Transform)")
            }
            NavError::NoAgentGrid { agent } => write!(
                f,
                "no grid is kept for agents of kind {agent:?}: the app left out NavAgentGridsPlugin"
            ),
            NavError::MalformedPath => write!(
                f,
                "the agent's Path cannot be walked (no cells, cells and points of different \
                 numbers, or a point that is not finite)"
            ),
            NavError::NoWayBetweenMaps { start_map, start, goal_map, goal } => write!(
                f,
                "no way from cell {start} of map {start_map} to cell {goal} of map {goal_map}: \
                 no link leads from one to the other"
            ),
        }
    }
}

impl std::error::Error for NavError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            NavError::Search(e) => Some(e),
            NavError::Start(e) | NavError::Goal(e) => Some(e),
            NavError::Agent(e) => Some(e),
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
    /// How many expansions of the recorded search to draw.
    pub step: usize,
}

/// The recording of the last search answered for an agent with [`WatchSearch`].
#[derive(Component, Clone, Debug, Default, PartialEq)]
pub struct WatchedSearch(pub SearchTrace);

/// A failed request: inserted on the entity (replacing any earlier one) and sent as a message.
#[derive(Component, Message, Clone, Debug, PartialEq)]
pub struct PathFailed {
    /// The agent whose request failed.
    pub entity: Entity,
    /// Why.
    pub error: NavError,
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
    agent: NavAgent,
    profiles: &NavProfiles,
) -> Result<&'a NavGrid, NavError> {
    if let Some(grid) = map.grid_for(agent) {
        return Ok(grid);
    }
    let profile = match agent.profile {
        Some(profile) => match profiles.get(profile) {
            Some(found) => found.clone(),
            None => return Err(NavError::UnknownProfile { profile }),
        },
        None => Default::default(),
    };
    // A kind the map could serve, with no grid kept for it: none is kept for any kind.
    match AgentGrid::new(&map.grid, profile, agent.size) {
        Ok(_) => Err(NavError::NoAgentGrid { agent }),
        Err(error) => Err(NavError::Agent(error)),
    }
}

/// True when a request that failed with `error` is to wait instead: the map it names is loading,
/// or it found no served map to start or end on while some map is loading ([`NavMapLoading`](
/// super::NavMapLoading)).
pub(crate) fn waits_for_map(maps: &NavMaps, error: &NavError) -> bool {
    match error {
        NavError::MapGone { map } => maps.is_loading(*map),
        NavError::NoGrid
        | NavError::Start(WorldToCellError::OffMap(_))
        | NavError::Goal(WorldToCellError::OffMap(_)) => maps.any_loading(),
        _ => false,
    }
}

/// Where a request of an agent of kind `agent` is made: its map (its `OnNavMap`, or the map
/// under `position`, or with an explicit `start` and neither, the first map), that map's grid
/// for its kind, and the cell it starts from (`start`, or where it stands, as [`agent_start`]
/// finds it). Shared by path and range requests.
pub(crate) fn request_start<'a>(
    (maps, profiles, agent): (&'a NavMaps, &NavProfiles, NavAgent),
    on_map: Option<&OnNavMap>,
    position: Option<Vec2>,
    start: Option<GridPos>,
    following: Option<(&PathFollower, &Path)>,
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
    agent: NavAgent,
    position: Vec2,
    following: Option<(&PathFollower, &Path)>,
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
pub(crate) fn body_point(geometry: &NavGeometry, agent: NavAgent, cell: GridPos) -> Vec2 {
    geometry.cell_to_world(cell) + geometry.body_offset(agent.size)
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

/// Makes an entity walk its [`Path`]: its `Transform` moves at `speed` world units per second
/// from cell centre to cell centre and stops exactly on the last one. The example on
/// [`PathRequest`] walks one in a headless app.
#[derive(Component, Clone, Debug, PartialEq, Reflect)]
#[reflect(Component)]
pub struct PathFollower {
    /// World units per second.
    pub speed: f32,
    /// Index in the path of the point being walked to (set by the plugin).
    pub next: usize,
    /// Walk the smoothed path (straight lines between corners, see
    /// [`crate::path::smooth_path`]) instead of from cell centre to cell centre. Applies to
    /// paths answered after it is set.
    pub smooth: bool,
}

impl PathFollower {
    /// A follower that walks from cell centre to cell centre.
    pub fn new(speed: f32) -> Self {
        Self { speed, next: 0, smooth: false }
    }

    /// A follower that walks smoothed paths.
    pub fn smoothed(speed: f32) -> Self {
        Self { speed, next: 0, smooth: true }
    }
}

/// Message: an agent reached the end of its path.
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct Arrived {
    /// The agent.
    pub entity: Entity,
    /// The cell it stopped on.
    pub cell: GridPos,
    /// True at the goal, or where the request's [`Arrival`] held; false when the path was
    /// partial and ended at the closest reachable cell.
    pub reached_goal: bool,
    /// Why it stopped there: [`Arrival::AtGoal`] at the goal (or at the end of a partial path),
    /// else the condition that held ([`PathRequest::arriving`]).
    pub by: Arrival,
}

/// The grid (and its state) an agent's [`Path`] was planned on: a request asked again for the
/// same goal while the grid is as it was is answered by the path being walked.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub(crate) struct PlannedOn(pub(crate) GridStamp);

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
    path: &Path,
    position: Vec2,
    geometry: &NavGeometry,
    grid: &NavGrid,
) -> usize {
    join_within(path, position, geometry, grid, JOIN_LOOKAHEAD).unwrap_or(0)
}

/// [`join_index`] looking through the first `lookahead` cells of the path; `None` when the
/// agent stands on none of them.
pub(crate) fn join_within(
    path: &Path,
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
    path: &Path,
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
    agent: NavAgent,
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

/// The one-cell path an agent walks while it waits for a new plan ([`Replanning`]): to the
/// centre of `cell` of `map`, keeping `old`'s goal and options.
pub(crate) fn stand_in(map: &NavMap, cell: GridPos, old: &Path) -> Path {
    Path {
        map: map.entity,
        cells: vec![cell],
        points: vec![body_point(&map.geometry, old.agent, cell)],
        cost: 0.0,
        goal: old.goal,
        goal_map: old.goal_map,
        complete: false,
        expanded: 0,
        micros: 0.0,
        options: old.options,
        corners: Vec::new(),
        legs: Vec::new(),
        agent: old.agent,
        arrival: old.arrival,
    }
}

/// Present while an agent whose path was cut waits for a new one. It walks to a safe cell
/// centre (its [`Path`] is then a one-cell stand-in) and no [`Arrived`] is sent for that.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Reflect)]
#[reflect(Component)]
pub struct Replanning;

/// Marks a character that others walk around: requests from the agents it blocks treat the
/// cell it stands on as blocked, and such an agent about to step into that cell plans again.
/// `NavObstacle::default()` blocks every agent; [`blocking`](Self::blocking) and
/// [`ally_of`](Self::ally_of) only some teams ([`NavTeam`]), so that allies walk through each
/// other while enemies plan around.
///
/// Teams decide planning only. Bodies with [`Avoidance`](super::Avoidance) still steer round
/// each other whatever their teams, and a [`GridLocked`](super::GridLocked) agent still holds
/// its cell against everyone (two bodies never share a cell).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[reflect(Component)]
pub struct NavObstacle {
    /// Whom it blocks.
    pub blocks: Blocks,
}

impl NavObstacle {
    /// An obstacle for the agents of `teams` only (agents with no [`NavTeam`] pass).
    pub fn blocking(teams: TeamSet) -> Self {
        Self { blocks: Blocks::Teams(teams) }
    }

    /// An obstacle for every agent but those of `team` (its own): its allies pass.
    pub fn ally_of(team: NavTeam) -> Self {
        Self { blocks: Blocks::AllBut(TeamSet::of(&[team])) }
    }

    /// True when an agent of `team` (`None`: of no team) plans around this obstacle.
    pub fn blocks(&self, team: Option<NavTeam>) -> bool {
        match (self.blocks, team) {
            (Blocks::All, _) => true,
            (Blocks::Teams(set), Some(team)) => set.contains(team),
            (Blocks::Teams(_), None) => false,
            (Blocks::AllBut(set), Some(team)) => !set.contains(team),
            (Blocks::AllBut(_), None) => true,
        }
    }
}

/// Which agents a [`NavObstacle`] blocks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
pub enum Blocks {
    /// Every agent.
    #[default]
    All,
    /// The agents of these teams.
    Teams(TeamSet),
    /// Every agent but those of these teams (agents of no team included).
    AllBut(TeamSet),
}

/// The team of an agent (0 to 63), for [`NavObstacle`]s that block only some teams. An agent
/// without one is of no team.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Reflect)]
#[reflect(Component)]
pub struct NavTeam(pub u8);

/// A set of [`NavTeam`]s (teams 0 to 63; higher numbers are read modulo 64).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Reflect)]
pub struct TeamSet(pub u64);

impl TeamSet {
    /// The set of these teams.
    pub fn of(teams: &[NavTeam]) -> Self {
        Self(teams.iter().fold(0, |bits, team| bits | 1 << (team.0 % 64)))
    }

    /// True when `team` is in the set.
    pub fn contains(self, team: NavTeam) -> bool {
        self.0 & 1 << (team.0 % 64) != 0
    }
}

/// Cells of its own map that an agent's next search treats as walls (other characters in its
/// way, found by the avoidance), removed once the request is answered.
#[derive(Component, Clone, Debug, Default, PartialEq)]
pub(crate) struct PlanAround(pub(crate) Vec<GridPos>);

/// A cell a [`NavObstacle`] stands on this frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ObstacleCell {
    pub(crate) obstacle: Entity,
    pub(crate) map: Entity,
    pub(crate) cell: GridPos,
    pub(crate) rule: NavObstacle,
}

/// The cells that [`NavObstacle`]s stand on this frame.
#[derive(Resource, Default, Debug)]
pub(crate) struct ObstacleCells(pub Vec<ObstacleCell>);

/// The obstacles an agent plans around: not itself, and only those that block its team.
pub(crate) fn blocks_agent(
    entity: Entity,
    team: Option<NavTeam>,
) -> impl Fn(&&ObstacleCell) -> bool {
    move |o| o.obstacle != entity && o.rule.blocks(team)
}

impl ObstacleCells {
    /// Cells of `map` to avoid for the planning of `entity`, of `team`.
    pub(crate) fn for_agent(
        &self,
        entity: Entity,
        team: Option<NavTeam>,
        map: Entity,
    ) -> Vec<GridPos> {
        let blocks = blocks_agent(entity, team);
        self.0.iter().filter(|o| blocks(o) && o.map == map).map(|o| o.cell).collect()
    }

    /// Cells of every map to avoid for the planning of `entity`, of `team`.
    pub(crate) fn for_agent_anywhere(
        &self,
        entity: Entity,
        team: Option<NavTeam>,
    ) -> impl Iterator<Item = (Entity, GridPos)> + '_ {
        self.0.iter().filter(blocks_agent(entity, team)).map(|o| (o.map, o.cell))
    }
}

/// Notes the cells that [`NavObstacle`]s stand on this frame.
pub(crate) fn collect_obstacles(
    maps: &NavMaps,
    obstacles: &Query<(Entity, &Transform, Option<&OnNavMap>, &NavObstacle)>,
    cells: &mut ObstacleCells,
) {
    cells.0.clear();
    for (entity, transform, on, rule) in obstacles {
        let position = transform.translation.truncate();
        if let Some(map) = agent_map(maps, on, position)
            && let Ok(cell) = map.geometry.world_to_cell(position)
        {
            cells.0.push(ObstacleCell { obstacle: entity, map: map.entity, cell, rule: *rule });
        }
    }
}

/// What the plugin reads of entities named as goals or threats: where they are and their map.
pub(crate) type Targets<'w, 's> = Query<'w, 's, (&'static Transform, Option<&'static OnNavMap>)>;

/// Where `target` is: its [`OnNavMap`] and world position, or [`NavError::TargetGone`].
pub(crate) fn target_place(
    targets: &Targets,
    target: Entity,
) -> Result<(Option<OnNavMap>, Vec2), NavError> {
    let (transform, on) = targets.get(target).map_err(|_| NavError::TargetGone { target })?;
    Ok((on.copied(), transform.translation.truncate()))
}

/// The map and cell `target` stands on, if it stands on one.
pub(crate) fn target_cell(
    maps: &NavMaps,
    targets: &Targets,
    target: Entity,
) -> Option<(Entity, GridPos)> {
    let (on, world) = target_place(targets, target).ok()?;
    let map = agent_map(maps, on.as_ref(), world)?;
    Some((map.entity, map.geometry.world_to_cell(world).ok()?))
}

/// True when an agent whose body's centre is at `point`, its corner cell `cell` on `grid`,
/// stands where `arrive` holds for the goal at `goal_point` (its cell `goal`), the rest of
/// its path costing `rest`.
pub(crate) fn arrival_holds(
    arrive: Arrival,
    grid: &NavGrid,
    (cell, point): (GridPos, Vec2),
    (goal, goal_point): (GridPos, Vec2),
    rest: f64,
) -> bool {
    match arrive {
        Arrival::AtGoal => cell == goal,
        Arrival::Within(distance) => point.distance(goal_point) <= distance,
        Arrival::WithinCost(cost) => rest <= cost + 1e-9 * cost.abs().max(1.0),
        Arrival::InSight { distance } => {
            point.distance(goal_point) <= distance
                && crate::grid::line::segment_cells(grid, cell, goal).is_some()
        }
    }
}

/// Ends `path` at the first cell of its last walk (the one on the goal's map) where `arrive`
/// holds (the goal's centre, for a larger agent its body's, as the goal point), and records
/// `arrive` on it. `grid`: the goal map's grid for the path's kind of agent.
pub(crate) fn cut_at_arrival(
    path: &mut Path,
    arrive: Arrival,
    geometry: &NavGeometry,
    grid: &NavGrid,
) {
    path.arrival = arrive;
    if arrive == Arrival::AtGoal {
        return;
    }
    let goal_point = body_point(geometry, path.agent, path.goal);
    let goal = path.goal;
    let (cells, points, cost) = match path.legs.last_mut() {
        Some(leg) => (&mut leg.cells, &mut leg.points, &mut leg.cost),
        None => (&mut path.cells, &mut path.points, &mut path.cost),
    };
    // The cost of the rest of the walk from each cell, from the end back.
    let mut rest = vec![0.0; cells.len()];
    for k in (0..cells.len().saturating_sub(1)).rev() {
        rest[k] = rest[k + 1] + grid.step_cost(cells[k], cells[k + 1]).unwrap_or(0.0);
    }
    let Some(k) = (0..cells.len())
        .find(|&k| arrival_holds(arrive, grid, (cells[k], points[k]), (goal, goal_point), rest[k]))
    else {
        return;
    };
    cells.truncate(k + 1);
    points.truncate(k + 1);
    *cost -= rest[k];
    if !path.legs.is_empty() {
        path.cost -= rest[k];
    }
}
