//! The Bevy plugin: settings, system sets, and what it adds to an `App`.

use bevy::prelude::*;

use crate::grid::{CornerRule, Neighborhood};
use crate::movement::{
    Arrived, NavObstacle, ObstacleCells, PathFollower, PathIndex, Replanning, follow_paths,
};
use crate::request::{
    NavDiagnostics, Path, PathFailed, PathRequest, RequestQueue, answer_requests,
};
use crate::search::SearchOptions;
use crate::tilemap::{
    NavGridChanged, NavLayers, NavTilemap, TileNav, TileRules, TilemapNavWarning, sync_nav_grid,
};

/// How the plugin builds grids and answers requests. A resource: change it at run time and the
/// next frame follows it.
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct NavSettings {
    pub neighborhood: Neighborhood,
    pub corner_rule: CornerRule,
    /// Search options for requests that bring none (heuristic, weight, limits, partial paths).
    pub search: SearchOptions,
    /// At most this many requests are answered per frame; the rest wait, in arrival order.
    pub max_requests_per_frame: usize,
    /// The frame's search budget, in expanded cells: once spent, the remaining requests wait
    /// for the next frame, and a search that needs more pauses and goes on next frame (before
    /// any other), so that no frame waits on a long search. Paths are the same as in one go.
    pub max_expansions_per_frame: u64,
    /// The frame's search budget in time, on top of the one in cells: once spent, searches wait
    /// or pause as above (the clock is read every 64 expanded cells). `None`: cells only.
    pub max_search_time_per_frame: Option<std::time::Duration>,
    /// Draw blocked cells, paths and goals with gizmos (needs Bevy's gizmo plugin, part of
    /// `DefaultPlugins`).
    pub debug: bool,
}

impl Default for NavSettings {
    fn default() -> Self {
        Self {
            neighborhood: Neighborhood::Eight,
            corner_rule: CornerRule::NoCornerCutting,
            search: SearchOptions::default(),
            max_requests_per_frame: 64,
            max_expansions_per_frame: 20_000,
            max_search_time_per_frame: Some(std::time::Duration::from_micros(500)),
            debug: false,
        }
    }
}

/// The plugin's systems, in this order in `Update`. Put your own systems before or after a set,
/// for example `my_system.before(NavSet::Pathfind)` to have requests answered the same frame.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NavSet {
    /// Tilemaps to `NavGrid`.
    SyncGrid,
    /// `PathRequest` to `Path` or `PathFailed`.
    Pathfind,
    /// `PathFollower`s walk their paths.
    Move,
    /// Gizmo drawing, when enabled.
    Debug,
}

/// Adds tilemap navigation to an app. See the crate's README for a walk-through.
#[derive(Default)]
pub struct TilemapNavPlugin {
    pub settings: NavSettings,
}

impl Plugin for TilemapNavPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(self.settings)
            .init_resource::<TileRules>()
            .init_resource::<NavLayers>()
            .init_resource::<crate::tilemap::InsertedOverrides>()
            .init_resource::<RequestQueue>()
            .init_resource::<ObstacleCells>()
            .init_resource::<PathIndex>()
            .init_resource::<NavDiagnostics>()
            .add_message::<NavGridChanged>()
            .add_message::<TilemapNavWarning>()
            .add_message::<PathFailed>()
            .add_message::<Arrived>()
            .register_type::<NavTilemap>()
            .register_type::<TileNav>()
            .register_type::<PathRequest>()
            .register_type::<Path>()
            .register_type::<PathFollower>()
            .register_type::<Replanning>()
            .register_type::<NavObstacle>()
            .register_type::<NavDiagnostics>()
            .register_type::<crate::request::WatchSearch>()
            .configure_sets(
                Update,
                (NavSet::SyncGrid, NavSet::Pathfind, NavSet::Move, NavSet::Debug).chain(),
            )
            .add_systems(
                Update,
                (
                    sync_nav_grid.in_set(NavSet::SyncGrid),
                    answer_requests.in_set(NavSet::Pathfind),
                    follow_paths.in_set(NavSet::Move),
                    crate::debug::draw_watched_search
                        .in_set(NavSet::Debug)
                        .run_if(resource_exists::<bevy::gizmos::config::GizmoConfigStore>),
                    crate::debug::draw_debug.in_set(NavSet::Debug).run_if(
                        |settings: Res<NavSettings>, store: Option<Res<bevy::gizmos::config::GizmoConfigStore>>| {
                            settings.debug && store.is_some()
                        },
                    ),
                ),
            );
    }
}
