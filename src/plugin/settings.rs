//! The plugin's settings: a resource every system reads, defined here below them all.

use bevy::prelude::*;

use crate::grid::{CornerRule, Neighborhood};
use crate::search::SearchOptions;

/// How the plugin builds grids and answers requests. A resource: change it at run time and the
/// next frame follows it.
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct NavSettings {
    /// The moves on square and isometric maps: `Four` or `Eight` (a `Hex` value reads as
    /// `Eight` there). Hex maps always use their six neighbours. The default for every map: a
    /// map with a [`NavTopology`](crate::plugin::NavTopology) of its own takes that.
    pub neighborhood: Neighborhood,
    /// Whether diagonal steps may pass a blocked corner (default: no). The default for every
    /// map, as `neighborhood` is.
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
    /// or pause as above (the clock is read every 16 expanded cells). `None`: cells only.
    pub max_search_time_per_frame: Option<std::time::Duration>,
    /// What the plugin's systems together (tile sync, searches, movement) aim to take a frame:
    /// the searches get at most what the tile sync and the movement's last frame leave of it,
    /// and never more than `max_search_time_per_frame` (a game whose movement is heavy, say
    /// with [`Avoidance`](super::Avoidance), then searches a little less a frame rather than
    /// overrun). Applies only with a search time budget; one slice of search a frame runs
    /// whatever the clock says, so that all goes on. `None`: the search budget alone.
    pub max_time_per_frame: Option<std::time::Duration>,
    /// How agents with [`Avoidance`](super::Avoidance) steer round each other.
    pub avoidance: AvoidanceSettings,
    /// How what maps with [`PrecomputePaths`](super::PrecomputePaths) keep is built.
    pub precompute: PrecomputeSettings,
    /// A [`NavField`](super::NavField)'s build (new goals) does at most this much work a frame,
    /// each field, in the units of [`SlicedBuild`](crate::search::SlicedBuild) (8 a cell
    /// settled): the default, 200,000, settles 25,000 cells a frame, so a field over a
    /// 512 x 512 map takes about a dozen frames and no frame stalls. Its
    /// followers follow the field it replaces meanwhile. `u64::MAX`: whole in one frame.
    /// Repairs after cells change, and flee fields, are done whole.
    pub field_slice_work: u64,
    /// What each map's grid needs before its searches go at full speed (its component labels,
    /// which answer "unreachable" without a search, and jump point search's bits; see
    /// [`GridWarmup`](crate::search::GridWarmup)) is built at most this much work a frame, for
    /// all maps together, in units of about a tenth of a cell (a cell costs ten). The default,
    /// 50,000, took about a third of a millisecond in an optimized build (`cargo bench --bench
    /// sliced_builds` prints the rate on your machine): a map of
    /// 256 x 256 warms in 14 frames, 1,000 x 1,000 in 200, 5,000 x 5,000 in 5,000, and no
    /// first search stalls a frame. Until a map is warm its searches go without (plain A*, an
    /// unreachable goal found by searching, within the search budget): the same path costs.
    /// `u64::MAX`: whole in the frame a map appears.
    pub warm_slice_work: u64,
    /// Square and isometric maps whose edges touch, their cells on one lattice (chunks of one
    /// world, levels laid side by side), join at their edges: the plugin keeps a [`NavLink`]
    /// marked [`NavSeam`] for each step across, and agents walk across as on one map (see
    /// [`NavSeam`]). Maps that overlap do not join. Default: on.
    ///
    /// [`NavLink`]: super::NavLink
    /// [`NavSeam`]: super::NavSeam
    pub join_touching_maps: bool,
    /// How paths across a world of maps that touch are searched: [`WorldSearch::Exact`] (the
    /// default: the cheapest path, in time that grows with the cells between its ends) or
    /// [`WorldSearch::Hierarchical`] (for worlds of many chunks: time that grows with the chunks
    /// crossed, paths a little dearer).
    pub world_search: WorldSearch,
    /// How often agents re-plan towards goals that move ([`Pursuit`](super::Pursuit)).
    pub repath: RepathPolicy,
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
            max_time_per_frame: Some(std::time::Duration::from_micros(800)),
            avoidance: AvoidanceSettings::default(),
            precompute: PrecomputeSettings::default(),
            field_slice_work: 200_000,
            warm_slice_work: 50_000,
            join_touching_maps: true,
            world_search: WorldSearch::Exact,
            repath: RepathPolicy::default(),
            debug: false,
        }
    }
}

impl NavSettings {
    /// The default settings in deterministic mode: the search budget counted in expanded cells
    /// only, never by the clock, and what maps with [`PrecomputePaths`](super::PrecomputePaths)
    /// keep built in slices of a set amount of work a frame (so it serves from the same frame
    /// in every run). Two runs of one app with the same inputs (the same frame times included)
    /// then give the same paths on the same frames and bit-identical agent positions, on the
    /// same build and platform. Not covered: float results across platforms or compilers.
    pub fn deterministic() -> Self {
        Self {
            max_search_time_per_frame: None,
            precompute: PrecomputeSettings {
                builds: PrecomputeBuilds::Sliced,
                slice_time: None,
                ..PrecomputeSettings::default()
            },
            ..Self::default()
        }
    }
}

/// How agents with [`Avoidance`](super::Avoidance) steer round each other ([`NavSettings::avoidance`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AvoidanceSettings {
    /// Off: agents with [`Avoidance`](super::Avoidance) walk their paths as the others do.
    pub enabled: bool,
    /// Seconds ahead that velocities are kept collision-free: longer is more cautious.
    pub time_horizon: f32,
    /// Neighbours considered per agent, nearest first.
    pub max_neighbours: usize,
    /// Neighbours farther than this many of the agent's own radii (plus theirs) are ignored.
    pub reach: f32,
    /// Seconds of little headway before a blocked agent plans around the one in its way (or
    /// steps aside).
    pub stall_time: f32,
}

impl Default for AvoidanceSettings {
    fn default() -> Self {
        Self { enabled: true, time_horizon: 1.0, max_neighbours: 8, reach: 6.0, stall_time: 0.75 }
    }
}

/// How what maps with [`PrecomputePaths`](super::PrecomputePaths) keep (a path table, a
/// first-move table or landmarks) is built ([`NavSettings::precompute`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrecomputeSettings {
    /// Where the builds run.
    pub builds: PrecomputeBuilds,
    /// Sliced builds: the time they may take a frame, all maps together. The work that buys is
    /// learnt from the frames before (the first slice assumes a slow machine). `None`: counted
    /// in work alone (`slice_work`), never by the clock.
    pub slice_time: Option<std::time::Duration>,
    /// Sliced builds: the most work they do a frame, all maps together, in the units of
    /// [`SlicedBuild`](crate::search::SlicedBuild) (about 70 a microsecond natively on these
    /// machines' builds of the path table: see BENCHMARKS.md).
    pub slice_work: u64,
}

impl Default for PrecomputeSettings {
    fn default() -> Self {
        Self {
            builds: PrecomputeBuilds::Auto,
            slice_time: Some(std::time::Duration::from_millis(2)),
            slice_work: 200_000,
        }
    }
}

/// Where what maps with [`PrecomputePaths`](super::PrecomputePaths) keep is built.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PrecomputeBuilds {
    /// In the background where Bevy's task pool has threads of its own, else in slices: in a
    /// browser (`wasm32`, where the pool runs its tasks on the page's one thread and a build in
    /// one go would stop the game for as long as it takes) or where there is no task pool.
    #[default]
    Auto,
    /// On Bevy's async compute task pool, in one go.
    Background,
    /// On the thread that runs the plugin's systems, a slice a frame
    /// ([`PrecomputeSettings::slice_time`], [`PrecomputeSettings::slice_work`]): no frame waits
    /// for a whole build. Slower to finish than in the background (one core, a slice a frame);
    /// the same structure in the end.
    Sliced,
}

/// How a path across maps that touch (a world of chunks, see
/// [`NavSettings::join_touching_maps`]) is searched, for requests that start or end on such a
/// map and have no cells to walk round (no standing `NavObstacle` characters the agent must
/// avoid, no `PlanAround`); the others always search exactly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WorldSearch {
    /// One A* over every cell, the seams' steps among them: the cheapest path. Its time grows
    /// with the cells between the ends (it is spread over frames by the search budget).
    #[default]
    Exact,
    /// A search over a graph of cells on the chunks' edges, refined into walks on each chunk
    /// ([`WorldGraph`](crate::search::WorldGraph)): its time grows with the chunks crossed, and
    /// a path always comes when there is one, a little dearer than the cheapest (BENCHMARKS.md
    /// quotes how much). Links other than seams are taken as in the exact search.
    Hierarchical,
}

/// How often an agent re-plans towards a goal that moves (a chased entity, threats it runs
/// from): the further it is from the goal, the less often, as the time it would take to walk
/// there times `lead`, within `min_interval` and `max_interval` seconds. Between searches its
/// path is kept on the target where that is a step ([`Pursuit`](super::Pursuit)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RepathPolicy {
    /// Never more often than this (seconds).
    pub min_interval: f32,
    /// Never less often than this while the goal has moved (seconds).
    pub max_interval: f32,
    /// The share of the walking time to the goal between two searches.
    pub lead: f32,
}

impl Default for RepathPolicy {
    fn default() -> Self {
        Self { min_interval: 0.1, max_interval: 1.0, lead: 0.25 }
    }
}

impl RepathPolicy {
    /// Seconds between searches for an agent `distance` world units from its goal walking at
    /// `speed` (none: `max_interval`).
    ///
    /// ```
    /// use bevy_tilemap_nav::plugin::RepathPolicy;
    ///
    /// let policy = RepathPolicy::default();
    /// assert_eq!(policy.interval(64.0, Some(64.0)), 0.25); // a second's walk away: every 1/4 s
    /// assert_eq!(policy.interval(8.0, Some(64.0)), 0.1); // close: as often as allowed
    /// assert_eq!(policy.interval(1000.0, Some(64.0)), 1.0); // far: once a second
    /// assert_eq!(policy.interval(f32::NAN, None), 1.0);
    /// ```
    pub fn interval(&self, distance: f32, speed: Option<f32>) -> f32 {
        let (low, high) = (self.min_interval.max(0.0), self.max_interval.max(0.0));
        let walk = match speed {
            Some(speed) if speed > 0.0 && speed.is_finite() => distance / speed * self.lead,
            _ => high,
        };
        if walk.is_nan() { high } else { walk.clamp(low.min(high), high) }
    }
}
