//! What agents carry and are told: requests, paths, followers, errors and messages.

use std::fmt;

use bevy::prelude::*;

use super::super::link::LinkEnd;
use super::super::map::{NavMap, NavMaps, WorldToCellError};
use super::super::profiles::{AgentKind, ProfileId};
use crate::grid::{GridError, GridPos, GridStamp};
use crate::search::{PathError, SearchOptions, SearchTrace};

/// Where to go.
#[derive(Clone, Debug, PartialEq, Reflect)]
pub enum PathGoal {
    /// A cell of the map the agent is on (on square, diamond and hex maps its `TilePos` x
    /// and y; see [`NavGeometry::tile_to_cell`](super::super::NavGeometry::tile_to_cell) for staggered ones).
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
    /// until sent elsewhere: see [`Pursuit`](super::super::Pursuit). A target that is gone fails the request with
    /// [`NavError::TargetGone`].
    Entity(Entity),
    /// The cheapest to reach of these cells of the agent's own map (the search ends at the
    /// first of them it settles). None given: [`PathError::NoGoals`]. Like a search for one
    /// cell, a far one is spread over frames within the
    /// [`WorkBudget`](super::super::WorkBudget), round the characters in the way if the agent
    /// plans round them; asked again with the same cells, the search goes on. (The two goals
    /// below are searched whole in the frame their turn comes: their searches end within
    /// their cost budget.)
    Nearest(Vec<GridPos>),
    /// Away from these entities (threats, on the agent's map; others are left out): within
    /// `budget` (a path's cost) to a cell far from all of them, preferring ground that leads on
    /// to a dead end ([`flee`](crate::path::flee)). While the agent runs, the plan is made again
    /// as the threats move ([`Pursuit`](super::super::Pursuit)). The agent itself among them
    /// is left out: with no other threat it is safe where it stands (a path of its own cell).
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
/// ([`PathRequest::with_arrival`]). Distances are world units between the centre of the agent's
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
/// The plugin answers by inserting [`NavPath`] (and removing this request) or [`PathFailed`].
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
/// let path = app.world().get::<NavPath>(walker).expect("answered in the frame it was asked");
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
    /// ([`NavSettings::search`](super::super::NavSettings::search)).
    #[reflect(ignore)]
    pub options: Option<SearchOptions>,
    /// Start at this cell of the agent's map instead of at the cell under its `Transform`.
    pub start: Option<GridPos>,
    /// Plan for this kind of agent (profile, size); `None`: the entity's [`AgentKind`], or the
    /// plain agent without one.
    pub agent: Option<AgentKind>,
    /// Where it may stop short of the goal (at the goal: [`Arrival::AtGoal`]).
    pub arrive: Arrival,
    /// What it does when no way leads to the goal: fail ([`WhenUnreachable::Fail`], the
    /// default), or wait for one to open ([`WhenUnreachable::Wait`]).
    pub when_unreachable: WhenUnreachable,
}

/// What a [`PathRequest`] does when no way leads to its goal ([`PathError::Unreachable`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
pub enum WhenUnreachable {
    /// It fails: a [`PathFailed`], and the agent stands. The default for a request the game
    /// makes (a player who clicks where no way leads is told so, and is not walked there later
    /// when a door somewhere opens).
    #[default]
    Fail,
    /// It fails, told once by a [`PathFailed`], and waits: the request is asked again each time
    /// the grid of its start or goal map changes (cells or walls between them: a door opens),
    /// at most once every [`WAIT_RETRY_SECONDS`], until a way opens (it walks, its `PathFailed`
    /// taken off), it fails otherwise, or the game sends it elsewhere. Failing again as
    /// unreachable, it is not told again. The plugin's own re-plans wait: a walker whose way
    /// was cut (a door shut in its face) goes on when the door opens.
    Wait,
}

/// How often at most a request that waits for a way ([`WhenUnreachable::Wait`]) is asked again
/// (seconds): a door that shuts and opens every frame costs a search a walker four times a
/// second, not every frame.
pub const WAIT_RETRY_SECONDS: f32 = 0.25;

impl PathRequest {
    /// A request with the plugin's default options.
    pub fn to(goal: impl Into<PathGoal>) -> Self {
        let (goal, arrive) = (goal.into(), Arrival::AtGoal);
        let when_unreachable = WhenUnreachable::Fail;
        Self { goal, options: None, start: None, agent: None, arrive, when_unreachable }
    }

    /// This request waiting for a way to open when none leads to its goal
    /// ([`WhenUnreachable::Wait`]).
    pub fn waiting_for_a_way(mut self) -> Self {
        self.when_unreachable = WhenUnreachable::Wait;
        self
    }

    /// A request that follows another entity as it moves ([`PathGoal::Entity`]).
    pub fn chase(target: Entity) -> Self {
        Self::to(PathGoal::Entity(target))
    }

    /// This request stopping where `arrive` first holds along the path: the path ends at that
    /// cell, and [`Arrived::by`] says so.
    pub fn with_arrival(mut self, arrive: Arrival) -> Self {
        self.arrive = arrive;
        self
    }

    /// Plan for this kind of agent, whatever the entity's [`AgentKind`] says.
    pub fn with_agent(mut self, agent: AgentKind) -> Self {
        self.agent = Some(agent);
        self
    }

    /// Renamed [`PathRequest::with_arrival`].
    #[deprecated(note = "renamed with_arrival")]
    pub fn arriving(self, arrive: Arrival) -> Self {
        self.with_arrival(arrive)
    }

    /// Renamed [`PathRequest::with_agent`].
    #[deprecated(note = "renamed with_agent")]
    pub fn for_agent(self, agent: AgentKind) -> Self {
        self.with_agent(agent)
    }

    /// This request with its own search options instead of the plugin's defaults.
    pub fn with_options(mut self, options: SearchOptions) -> Self {
        self.options = Some(options);
        self
    }
}

/// The answer to a [`PathRequest`]: the cells to walk and their world-space centres, on one map;
/// for a path through [`NavLink`](super::super::NavLink)s, the walks after each link follow in
/// [`legs`](Self::legs).
#[derive(Component, Clone, Debug, PartialEq, Reflect)]
#[reflect(Component)]
pub struct NavPath {
    /// The map walked on now (its [`NavMap::entity`]).
    pub map: Entity,
    /// Start to end, both included: the walk on `map` (to the goal, or to the first link).
    pub cells: Vec<GridPos>,
    /// World-space centre of each cell (as many as `cells`: a `NavPath` made by hand where the two
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
    pub agent: AgentKind,
    /// Where the agent may stop short of `goal` (the request's [`PathRequest::arrive`]): the
    /// path ends at the first cell where it held when planned.
    pub arrival: Arrival,
}

/// A walk of a [`NavPath`] that begins across a link.
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

impl NavPath {
    /// The one constructor the plugin builds paths with: a complete walk along `cells` of `map`
    /// (their points where the body of `agent` stands), costing `cost`, its last cell the goal,
    /// planned at once with the default options. Callers set what differs.
    pub(crate) fn walk(
        map: Entity,
        cells: Vec<GridPos>,
        points: Vec<Vec2>,
        cost: f64,
        agent: AgentKind,
    ) -> NavPath {
        NavPath {
            map,
            goal: cells.last().copied().unwrap_or_default(),
            goal_map: map,
            cells,
            points,
            cost,
            complete: true,
            expanded: 0,
            micros: 0.0,
            options: SearchOptions::default(),
            corners: Vec::new(),
            legs: Vec::new(),
            agent,
            arrival: Arrival::AtGoal,
        }
    }

    /// The index of the first point walked to after index `i`.
    pub(crate) fn next_target_after(&self, i: usize) -> usize {
        if self.corners.is_empty() {
            i + 1
        } else {
            self.corners.iter().copied().find(|&c| c > i).unwrap_or(self.cells.len())
        }
    }

    /// The index of the last point walked through before reaching index `next`.
    pub(crate) fn previous_target(&self, next: usize) -> usize {
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
    /// The agent's [`AgentKind`] names a profile that [`NavProfiles`](super::super::NavProfiles) does not have.
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
    /// left out [`NavAgentGridsPlugin`](super::super::NavAgentGridsPlugin). (While a map
    /// builds its kind's grid, a slice a frame, its requests wait rather than fail.)
    NoAgentGrid {
        /// The agent's kind.
        agent: AgentKind,
    },
    /// A side-view character's request ([`SideViewAgent`](super::super::SideViewAgent)):
    /// the level, its profile, or its start or goal would not do.
    SideView(crate::side_view::SideViewError),
    /// The agent's [`NavPath`] (made or changed by hand) cannot be walked: it has no cells, its
    /// cells and points differ in number, a point is not finite, or one of its legs is so.
    MalformedPath,
    /// The goal is on another map than the start and no [`NavLink`](super::super::NavLink)s lead
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
            NavError::SideView(e) => write!(f, "{e}"),
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
                "the agent's NavPath cannot be walked (no cells, cells and points of different \
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
/// this agent in a [`TracedSearch`], and the debug view draws the closed cells, the open cells
/// and (at the last step) the path, after `step` expansions. Raise `step` to step through it.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Reflect)]
#[reflect(Component)]
pub struct TraceSearch {
    /// How many expansions of the recorded search to draw.
    pub step: usize,
}

/// The recording of the last search answered for an agent with [`TraceSearch`].
#[derive(Component, Clone, Debug, Default, PartialEq)]
pub struct TracedSearch(pub SearchTrace);

/// A failed request: inserted on the entity (replacing any earlier one) and sent as a message.
#[derive(Component, Message, Clone, Debug, PartialEq)]
pub struct PathFailed {
    /// The agent whose request failed.
    pub entity: Entity,
    /// Why.
    pub error: NavError,
}

/// Makes an entity walk its [`NavPath`]: its `Transform` moves at `speed` world units per second
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

    /// The speed it walks at: `speed`, or 0 when the game made it odd (below 0, not a number,
    /// infinite): it stands still.
    pub(crate) fn walking_speed(&self) -> f32 {
        if self.speed.is_finite() { self.speed.max(0.0) } else { 0.0 }
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
    /// else the condition that held ([`PathRequest::with_arrival`]).
    pub by: Arrival,
}

/// The grid (and its state) an agent's [`NavPath`] was planned on: a request asked again for the
/// same goal while the grid is as it was is answered by the path being walked.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub(crate) struct PlannedOn(pub(crate) GridStamp);

/// Present while an agent whose path was cut waits for a new one. It walks to a safe cell
/// centre (its [`NavPath`] is then a one-cell stand-in) and no [`Arrived`] is sent for that.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Reflect)]
#[reflect(Component)]
pub struct Replanning;

/// On a member of a [`GroupOrder`](crate::plugin::GroupOrder) given with `same_pace`: it walks no faster than `speed`
/// (the slowest member's [`PathFollower::speed`]) while it walks to `goal`. The plugin takes
/// it off when the member arrives, stops, or walks to another goal (a new request answered);
/// a game may put one on any walker to slow it.
#[derive(Component, Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Component)]
pub struct GroupPace {
    /// The most it walks, in world units a second.
    pub speed: f32,
    /// The goal it walks to at this pace: its map and cell.
    pub goal: (Entity, GridPos),
}
