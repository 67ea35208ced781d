//! The Bevy layer: the plugin, its settings and system sets, and the systems it adds, a file
//! or a folder each, lower ones never importing higher ones (`ci/import_graph.py` checks that no
//! two files import each other):
//!
//! - `settings`: [`NavSettings`] ([`WorkBudget`]: one budget for the work spread over frames);
//!   `diagnostics`: [`NavDiagnostics`], what the systems did; `work`: what each kind of work may
//!   do this frame, and what it did;
//! - `map/`: tilemaps (and [`NavGridMap`]s) to navigation maps ([`NavMaps`], a
//!   [`NavGrid`](crate::grid::NavGrid) each), world <-> cell for every map type
//!   ([`NavGeometry`]), the tiles' rules, the errors, and the sync system;
//! - `profiles`: kinds of agents ([`NavProfiles`], [`AgentKind`]), below the maps that keep a
//!   grid for each kind;
//! - `link`: [`NavLink`]s between cells of the maps; `seams`: the links the plugin keeps where
//!   maps touch ([`NavSeam`]);
//! - `agent`: what agents carry and are told ([`PathRequest`], [`NavPath`], [`PathFollower`],
//!   [`NavObstacle`], messages and errors), shared by the two systems above it;
//! - `per_agent`: the grids kept per kind of agent, re-plans when kinds change, movement
//!   ranges ([`RangeRequest`]); `precompute`: path tables kept for maps marked
//!   [`PrecomputePaths`];
//! - `request/`: the system answering requests (a request made concrete, searches through
//!   links, answers applied, over the core's `search::schedule`); `movement/`: the system
//!   walking paths, agents steering round each other (ORCA, a spatial hash) and agents holding
//!   whole cells;
//! - `debug`: gizmo drawing; `clock`: the one reading of the clock (Bevy's, which works on the
//!   web); and this file, the plugin group that adds them all and its parts.

mod agent;
mod clock;
mod debug;
mod diagnostics;
mod fields;
mod groups;
mod link;
mod map;
mod march;
mod movement;
mod per_agent;
mod precompute;
mod profiles;
mod pursuit;
mod request;
mod seams;
mod settings;
mod side_view;
mod views;
mod work;

use bevy::app::PluginGroupBuilder;
use bevy::ecs::intern::Interned;
use bevy::ecs::schedule::ScheduleLabel;
use bevy::prelude::*;

pub use agent::GroupPace;
pub use agent::{
    Arrival, Arrived, Blocks, NavError, NavObstacle, NavPath, NavTeam, OnNavMap, PathFailed,
    PathFollower, PathGoal, PathLeg, PathRequest, Replanning, TeamSet, TraceSearch, TracedSearch,
    WAIT_RETRY_SECONDS, WhenUnreachable,
};
pub use agent::{GroundSpeed, PathTimes};
pub use diagnostics::NavDiagnostics;
pub use fields::{FollowField, NavField};
pub use groups::{GroupOrder, GroupOrderFailed};
pub use link::{
    AvoidLinks, CarryAcross, CarryOutcome, CrossingLink, LinkCrossed, LinkCrossing, LinkEnd,
    LinkOpenTo, LinkReached, MAX_CROSSING_SECONDS, NavLink, WaitingAtLink,
};
pub use map::{
    BakedNavGrid, NavGeometry, NavGridChanged, NavGridMap, NavLayerOf, NavMap, NavMapLoading,
    NavMapReady, NavMaps, NavTilemap, NavTopology, TileEdges, TileNav, TileRules, TileTerrain,
    TilemapNavError, TilemapNavWarning, WorldToCellError, hex_coords, neighborhood_for,
};
pub use march::{GroupMarch, LOST_AFTER, MAX_MARCHING, Marching};
pub use movement::{Avoidance, Cooperative, GridLocked, MAX_COOPERATIVE, SIZED_RADIUS};
pub use per_agent::{MoveRange, RangeFailed, RangeRequest};
pub use precompute::{BakedPaths, PLUGIN_LANDMARKS, PrecomputePaths};
pub use profiles::{AgentKind, NavProfiles, ProfileId, ProfilesFull};
pub use pursuit::Pursuit;
pub use seams::NavSeam;
pub use settings::{
    AvoidanceSettings, NavSettings, NavViews, PrecomputeBuilds, PrecomputeSettings, RepathPolicy,
    WorkBudget, WorkShares, WorldSearch,
};
pub use side_view::{SideViewAgent, SideViewLevel, SideViewRoute, SideViewRules, SideViewTilemap};
pub use views::{ViewLine, ViewMark, heat_color};

/// Renamed [`NavPath`]: it shadowed `std::path::Path`.
#[deprecated(note = "renamed NavPath (it shadowed std::path::Path)")]
pub type Path = NavPath;
/// Renamed [`AgentKind`]: a kind of agent, not an agent.
#[deprecated(note = "renamed AgentKind (a kind of agent, not an agent)")]
pub type NavAgent = AgentKind;
/// Renamed [`TraceSearch`]: one word, "trace", for recording a search everywhere.
#[deprecated(note = "renamed TraceSearch")]
pub type WatchSearch = TraceSearch;
/// Renamed [`TracedSearch`].
#[deprecated(note = "renamed TracedSearch")]
pub type WatchedSearch = TracedSearch;

use agent::ObstacleCells;
use map::{InsertedOverrides, NavLayers, sync_nav_grid};
use movement::{PathIndexes, follow_paths};
use per_agent::{RangeQueue, answer_ranges, keep_agent_grids};
use precompute::{TableBuilds, keep_path_tables};
use request::{RequestQueue, answer_requests};

/// The plugin's systems, in this order in `Update` (or the schedule given to
/// [`TilemapNavPlugin::in_schedule`]). Put your own systems before or after a set,
/// for example `my_system.before(NavSet::Pathfind)` to have requests answered the same frame.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NavSet {
    /// Tilemaps to `NavGrid`.
    SyncGrid,
    /// The grids of the kinds of agents in use; `RangeRequest` to `MoveRange`; `PathRequest`
    /// to `NavPath` or `PathFailed`.
    Pathfind,
    /// `PathFollower`s walk their paths.
    Move,
    /// Gizmo drawing, when enabled.
    Debug,
}

/// Adds tilemap navigation to an app: a group of plugins, the core ([`NavCorePlugin`]: maps,
/// requests, movement) and the parts a game can leave out ([`NavAgentGridsPlugin`],
/// [`NavPrecomputePlugin`], [`NavDebugPlugin`]). See the [`guide`](crate::guide) for a walk-through, and
/// the example on [`PathRequest`] for a whole app (headless) that answers a request and walks
/// the path.
///
/// Its systems run in `Update` unless told otherwise: a game server or a networked game that
/// steps its world in `FixedUpdate` puts them there, and agents then walk by the fixed step
/// (`Time<Fixed>`):
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_tilemap_nav::prelude::*;
/// App::new().add_plugins(TilemapNavPlugin::default().in_schedule(FixedUpdate));
/// ```
///
/// A part left out, as with Bevy's own plugin groups:
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_tilemap_nav::prelude::*;
/// use bevy_tilemap_nav::plugin::NavDebugPlugin;
///
/// App::new().add_plugins(TilemapNavPlugin::default().build().disable::<NavDebugPlugin>());
/// ```
pub struct TilemapNavPlugin {
    /// The settings the app starts with (the [`NavSettings`] resource afterwards).
    pub settings: NavSettings,
    /// The schedule its systems (and [`NavSet`]s) run in. Default: `Update`.
    pub schedule: Interned<dyn ScheduleLabel>,
}

impl Default for TilemapNavPlugin {
    fn default() -> Self {
        Self { settings: NavSettings::default(), schedule: Update.intern() }
    }
}

impl TilemapNavPlugin {
    /// The plugins with these settings, in `Update`.
    pub fn with_settings(settings: NavSettings) -> Self {
        Self { settings, ..default() }
    }

    /// The plugins with their systems in `schedule` (`FixedUpdate`, for example).
    pub fn in_schedule(mut self, schedule: impl ScheduleLabel) -> Self {
        self.schedule = schedule.intern();
        self
    }
}

impl PluginGroup for TilemapNavPlugin {
    fn build(self) -> PluginGroupBuilder {
        let schedule = self.schedule;
        PluginGroupBuilder::start::<Self>()
            .add(NavCorePlugin { settings: self.settings, schedule })
            .add(NavAgentGridsPlugin { schedule })
            .add(NavPrecomputePlugin { schedule })
            .add(NavDebugPlugin { schedule })
            .add(NavSideViewPlugin { schedule })
    }
}

/// The steps of [`NavSet::Pathfind`], in order: the parts that prepare what the answers read,
/// then the answers.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum PathfindStep {
    AgentGrids,
    Precompute,
    Answer,
}

/// The core of [`TilemapNavPlugin`]: tilemaps (and [`NavGridMap`]s) to navigation maps, path
/// and range requests answered, agents walking. Needed by the other parts.
pub struct NavCorePlugin {
    /// The settings the app starts with (the [`NavSettings`] resource afterwards).
    pub settings: NavSettings,
    /// The schedule its systems (and [`NavSet`]s) run in.
    pub schedule: Interned<dyn ScheduleLabel>,
}

impl Plugin for NavCorePlugin {
    fn build(&self, app: &mut App) {
        let schedule = self.schedule;
        app.insert_resource(self.settings)
            .init_resource::<TileRules>()
            .init_resource::<NavProfiles>()
            .init_resource::<NavLayers>()
            .init_resource::<NavMaps>()
            .init_resource::<seams::Seams>()
            .init_resource::<seams::WorldGraphs>()
            .init_resource::<InsertedOverrides>()
            .init_resource::<RequestQueue>()
            .init_resource::<RangeQueue>()
            .init_resource::<ObstacleCells>()
            .init_resource::<PathIndexes>()
            .init_resource::<NavDiagnostics>()
            .init_resource::<fields::FieldsToExtend>()
            .init_resource::<diagnostics::LastMove>()
            .init_resource::<work::WorkMeter>()
            .add_message::<NavGridChanged>()
            .add_message::<NavMapReady>()
            .add_message::<TilemapNavWarning>()
            .add_message::<PathFailed>()
            .add_message::<Arrived>()
            .add_message::<LinkCrossed>()
            .add_message::<LinkReached>()
            .add_message::<CarryAcross>()
            .add_message::<RangeFailed>()
            .register_type::<NavTilemap>()
            .register_type::<NavLayerOf>()
            .register_type::<NavMapLoading>()
            .register_type::<PrecomputePaths>()
            .register_type::<TileNav>()
            .register_type::<TileTerrain>()
            .register_type::<TileEdges>()
            .register_type::<AgentKind>()
            .register_type::<RangeRequest>()
            .register_type::<PathRequest>()
            .register_type::<NavPath>()
            .register_type::<PathFollower>()
            .register_type::<Replanning>()
            .register_type::<NavObstacle>()
            .register_type::<NavTeam>()
            .register_type::<Avoidance>()
            .register_type::<GridLocked>()
            .register_type::<Cooperative>()
            .register_type::<GroupPace>()
            .register_type::<Marching>()
            .register_type::<GroundSpeed>()
            .register_type::<NavLink>()
            .register_type::<LinkCrossing>()
            .register_type::<LinkOpenTo>()
            .register_type::<AvoidLinks>()
            .register_type::<CrossingLink>()
            .register_type::<WaitingAtLink>()
            .register_type::<NavSeam>()
            .register_type::<OnNavMap>()
            .register_type::<NavDiagnostics>()
            .register_type::<TraceSearch>()
            .configure_sets(
                schedule,
                (NavSet::SyncGrid, NavSet::Pathfind, NavSet::Move, NavSet::Debug).chain(),
            )
            .configure_sets(
                schedule,
                (PathfindStep::AgentGrids, PathfindStep::Precompute, PathfindStep::Answer)
                    .chain()
                    .in_set(NavSet::Pathfind),
            )
            .add_systems(
                schedule,
                (
                    (sync_nav_grid, seams::keep_seams).chain().in_set(NavSet::SyncGrid),
                    (
                        request::warm_grids,
                        fields::keep_fields,
                        fields::follow_fields,
                        pursuit::pursue,
                        request::retry_unreachable,
                        answer_ranges,
                        answer_requests,
                        request::warm_world_graphs,
                    )
                        .chain()
                        .in_set(PathfindStep::Answer),
                    (
                        movement::size_bodies,
                        movement::plan_cooperative,
                        movement::move_on_links,
                        follow_paths,
                        fields::walk_fields,
                        march::march_groups,
                    )
                        .chain()
                        .in_set(NavSet::Move),
                    // After the maps are in step; its requests are answered this frame.
                    groups::give_group_orders.after(seams::keep_seams).in_set(NavSet::SyncGrid),
                ),
            );
    }
}

/// Part of [`TilemapNavPlugin`]: the grid of each map as each kind of agent sees it (a
/// [`AgentKind`] with a profile or a size above 1), made when one asks and kept in step. Left
/// out, requests by such agents fail with [`NavError::NoAgentGrid`]; plain agents are served
/// as before.
pub struct NavAgentGridsPlugin {
    /// The schedule the core runs in.
    pub schedule: Interned<dyn ScheduleLabel>,
}

impl Plugin for NavAgentGridsPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(self.schedule, keep_agent_grids.in_set(PathfindStep::AgentGrids));
    }
}

/// Part of [`TilemapNavPlugin`]: what maps with [`PrecomputePaths`] keep (path tables,
/// first-move tables, landmarks; loaded from [`BakedPaths`]), built in the background or in
/// slices. Left out, [`PrecomputePaths`] does nothing and every request is searched.
pub struct NavPrecomputePlugin {
    /// The schedule the core runs in.
    pub schedule: Interned<dyn ScheduleLabel>,
}

impl Plugin for NavPrecomputePlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<TableBuilds>()
            .add_systems(self.schedule, keep_path_tables.in_set(PathfindStep::Precompute));
    }
}

/// Part of [`TilemapNavPlugin`]: side-view levels, their
/// characters' requests, and their walks. Left out, [`SideViewAgent`]s' requests are not
/// answered (the rest of the plugin leaves them alone).
pub struct NavSideViewPlugin {
    /// The schedule the core runs in.
    pub schedule: Interned<dyn ScheduleLabel>,
}

impl Plugin for NavSideViewPlugin {
    fn build(&self, app: &mut App) {
        let gizmos = resource_exists::<bevy::gizmos::config::GizmoConfigStore>;
        // (No resource of its own: a game without side-view levels keeps the same resources.
        // SideViewRules is the game's to insert; without it every texture is air.)
        app.register_type::<SideViewAgent>().register_type::<SideViewTilemap>().add_systems(
            self.schedule,
            (
                // Each after the core's systems of its set, so that adding this part leaves
                // the order of theirs (and of the commands they queue) as it was.
                (side_view::tilemap::sync_tilemaps, side_view::level::keep_levels)
                    .chain()
                    .after(seams::keep_seams)
                    .in_set(NavSet::SyncGrid),
                side_view::request::answer_requests
                    .after(request::warm_world_graphs)
                    .in_set(NavSet::Pathfind),
                side_view::walk::walk_routes.after(fields::walk_fields).in_set(NavSet::Move),
                side_view::walk::draw_routes
                    .in_set(NavSet::Debug)
                    .run_if(gizmos.and_then(|settings: Res<NavSettings>| settings.debug)),
            ),
        );
    }
}

/// Part of [`TilemapNavPlugin`]: gizmo drawing of blocked cells, paths and goals
/// ([`NavSettings::debug`]) and of watched searches ([`TraceSearch`]), when the app has Bevy's
/// gizmos. Left out, nothing is drawn (a server, a release build).
pub struct NavDebugPlugin {
    /// The schedule the core runs in.
    pub schedule: Interned<dyn ScheduleLabel>,
}

impl Plugin for NavDebugPlugin {
    fn build(&self, app: &mut App) {
        let gizmos = resource_exists::<bevy::gizmos::config::GizmoConfigStore>;
        app.add_systems(
            self.schedule,
            (
                debug::draw_watched_search.in_set(NavSet::Debug).run_if(gizmos),
                views::draw_views
                    .in_set(NavSet::Debug)
                    .run_if(gizmos.and_then(|settings: Res<NavSettings>| settings.views.any())),
                debug::draw_debug
                    .in_set(NavSet::Debug)
                    .run_if(gizmos.and_then(|settings: Res<NavSettings>| settings.debug)),
            ),
        );
    }
}
