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
    /// How many threads of Bevy's compute task pool the frame's searches may run on at once
    /// (0, the default: as many as the pool has; 1: one after another on the request system's
    /// thread). The plain searches at the front of the queue run at once, each with the budget
    /// the frame has left; their answers are taken in request order, as one after another
    /// would have given them, so [`deterministic`](Self::deterministic) settings give the same
    /// answers on the same frames with one thread or many. In a browser the pool has one
    /// thread.
    pub search_threads: usize,
    /// The frame's budget for the work the plugin spreads over frames (searches, movement
    /// ranges, field builds, precomputed builds, grid warm-ups, a world's graph): one unit, one
    /// budget, a share for each kind. Work that needs more goes on next frame; no frame waits
    /// on a long search or build, and answers are the same as in one go.
    pub work: WorkBudget,
    /// How agents with [`Avoidance`](super::Avoidance) steer round each other.
    pub avoidance: AvoidanceSettings,
    /// How what maps with [`PrecomputePaths`](super::PrecomputePaths) keep is built.
    pub precompute: PrecomputeSettings,
    /// Square and isometric maps whose edges touch, their cells on one lattice (chunks of one
    /// world, levels laid side by side), join at their edges: the plugin keeps a [`NavLink`]
    /// marked [`NavSeam`] for each step across, and agents walk across as on one map (see
    /// [`NavSeam`]). Maps that overlap do not join. Default: on.
    ///
    /// [`NavLink`]: super::NavLink
    /// [`NavSeam`]: super::NavSeam
    pub join_touching_maps: bool,
    /// How paths across a world of maps that touch are searched: [`WorldSearch::Exact`] (the
    /// cheapest path, in time that grows with the cells between its ends),
    /// [`WorldSearch::Hierarchical`] (for worlds of many chunks: time that grows with the chunks
    /// crossed, paths a little dearer), or [`WorldSearch::Auto`] (the default: hierarchical in
    /// worlds of [`WorldSearch::AUTO_MAPS`] maps or more, exact elsewhere).
    pub world_search: WorldSearch,
    /// How often agents re-plan towards goals that move ([`Pursuit`](super::Pursuit)).
    pub repath: RepathPolicy,
    /// How far ahead [`Cooperative`](super::Cooperative) agents are planned: `Some(ticks)`
    /// plans each map's agents a window of that many steps at a time (windowed cooperative
    /// A*): they set off once the first window is made, walk half of it while the next is
    /// made from where that half ends, and so on until all arrive. `None` plans every agent
    /// all the way to its goal before any sets off (no agent waits for a window on the way;
    /// the plans are [`plan_together`](crate::search::plan_together)'s).
    pub cooperative_window: Option<u32>,
    /// Draw blocked cells, paths and goals with gizmos (needs Bevy's gizmo plugin, part of
    /// `DefaultPlugins`).
    pub debug: bool,
    /// The debug overlay's other views, each turned on by itself ([`NavViews`]).
    pub views: NavViews,
}

/// What navigation sees, drawn with gizmos in [`NavSet::Debug`](super::NavSet::Debug), each view
/// on its own ([`NavSettings::views`]; `NavSettings::debug` draws blocked cells and paths, and
/// [`TraceSearch`](super::TraceSearch) on an agent its searches' expanded cells). They are drawn
/// with Bevy's default gizmo group: a game that shows them in one camera only sets that group's
/// render layers (Bevy's `GizmoConfigStore`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NavViews {
    /// Each open cell's cost as a heat colour: cost 1 green, the map's dearest red (a cost
    /// above 1 gets a second, inner square).
    pub terrain: bool,
    /// Each [`NavField`](super::NavField)'s way down: from each cell it reaches, a line to its
    /// next step, coloured by its distance to the goals (near: white, far: blue); its goals
    /// circled.
    pub fields: bool,
    /// The world graph of each world of chunks ([`WorldSearch::Hierarchical`]), as plain
    /// agents search it: its nodes (circles) and the edges between them (walks kept within a
    /// chunk, steps across seams and links).
    pub world_graph: bool,
    /// Agents' [`Avoidance`](super::Avoidance) bodies (circles of their radius) and velocities
    /// (a line a second long).
    pub bodies: bool,
    /// The cells [`GridLocked`](super::GridLocked) agents hold (squares) and are entering
    /// (smaller squares), and the cells [`Cooperative`](super::Cooperative) plans have
    /// reserved (a ring for each turn still to come there, up to four).
    pub holds: bool,
}

impl NavViews {
    /// Every view on.
    pub const ALL: NavViews =
        NavViews { terrain: true, fields: true, world_graph: true, bodies: true, holds: true };

    /// Whether any view is on.
    pub fn any(self) -> bool {
        self != NavViews::default()
    }
}

impl Default for NavSettings {
    fn default() -> Self {
        Self {
            neighborhood: Neighborhood::Eight,
            corner_rule: CornerRule::NoCornerCutting,
            search: SearchOptions::default(),
            max_requests_per_frame: 64,
            search_threads: 0,
            work: WorkBudget::default(),
            avoidance: AvoidanceSettings::default(),
            precompute: PrecomputeSettings::default(),
            join_touching_maps: true,
            world_search: WorldSearch::Auto,
            repath: RepathPolicy::default(),
            cooperative_window: None,
            debug: false,
            views: NavViews::default(),
        }
    }
}

impl NavSettings {
    /// The default settings in deterministic mode: the work spread over frames counted in
    /// units only, never by the clock ([`WorkBudget::time`] `None`), and what maps with
    /// [`PrecomputePaths`](super::PrecomputePaths) keep built in slices (so it serves from the
    /// same frame in every run). Two runs of one app with the same inputs (the same frame times
    /// included) then give the same paths on the same frames and bit-identical agent positions,
    /// on the same build and platform. Not covered: float results across platforms or
    /// compilers.
    pub fn deterministic() -> Self {
        Self {
            work: WorkBudget { time: None, ..WorkBudget::default() },
            precompute: PrecomputeSettings { builds: PrecomputeBuilds::Sliced },
            ..Self::default()
        }
    }
}

/// The frame's one budget for the work the plugin spreads over frames ([`NavSettings::work`]).
///
/// Every kind counts its work in one unit, about one cell touched once (its time on a machine:
/// BENCHMARKS.md, "Builds in slices"): a search's expanded cell
/// [`CELL_WORK`](crate::search::CELL_WORK) units (a movement range's settled cell too), a field's
/// settled cell as many, a grid warm-up's cell 10 (component labels and jump point bits), a kind of
/// agent's grid 1 + size² a cell, a world's graph as many a cell its walks settle, a precomputed
/// build as [`SlicedBuild`](crate::search::SlicedBuild) counts. Each kind does at most its share a
/// frame, all together at most `units`; with a `time`, each also stops at its part of the time the
/// frame has left. One slice of each kind runs whatever the budget says, so that all goes on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorkBudget {
    /// The most units a frame, all kinds together (a kind's share is cut to what the kinds run
    /// before it this frame left). Default: the shares' sum.
    pub units: u64,
    /// What the plugin's systems together aim to take a frame: the work gets what the tile sync
    /// and the movement (as last frame) leave of it, parted among the kinds that have work in
    /// proportion to their shares (a kind alone gets all of it). A game whose movement is heavy,
    /// say with [`Avoidance`](super::Avoidance), then searches and builds a little less a frame
    /// rather than overrun, but never less than a quarter of `time` (where the sync and the
    /// movement alone overrun it, builds would otherwise never finish). Work that cannot read
    /// the clock as it goes (builds) is given the units it did in that time in the frames
    /// before. `None`: counted in units only, never by the clock: frame counts do not depend on
    /// the machine. Default: 0.8 ms.
    pub time: Option<std::time::Duration>,
    /// Each kind's most units a frame.
    pub shares: WorkShares,
}

impl Default for WorkBudget {
    fn default() -> Self {
        let shares = WorkShares::default();
        Self { units: shares.total(), time: Some(std::time::Duration::from_micros(800)), shares }
    }
}

/// Each kind's share of [`WorkBudget`]: its most units a frame, and its weight when the frame's
/// time is parted among the kinds that have work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkShares {
    /// Path searches, movement ranges (answered first) and a world's graph worked out ahead
    /// ([`WorldSearch::Hierarchical`]). Default 160,000: 20,000 expanded cells.
    pub searches: u64,
    /// [`NavField`](super::NavField) builds for new goals, all fields together (repairs after
    /// cells change, and flee fields, are done whole). Default 200,000: 25,000 settled cells,
    /// a field over a 512 x 512 map in about a dozen frames when counted in units alone (with a
    /// `time`, as many more as its part of the frame's time asks). Followers follow the field
    /// it replaces meanwhile.
    pub fields: u64,
    /// What maps with [`PrecomputePaths`](super::PrecomputePaths) keep, built in slices
    /// ([`PrecomputeBuilds::Sliced`], or `Auto` where there are no threads), all maps together.
    /// Default 200,000.
    pub precompute: u64,
    /// Each map's grids for kinds of agents, then what its searches derive from its cells
    /// (component labels, which answer "unreachable" without a search, and jump point
    /// search's bits; see [`GridWarmup`](crate::search::GridWarmup)), all maps together.
    /// Default 100,000: counted in units alone, a 256 x 256 map warms in 7 frames, 1,000 x 1,000
    /// in 100 (with a `time`, as many more as its part of the frame's time asks), and no first
    /// search stalls a frame. Until a map is warm its searches go without (plain A*, an
    /// unreachable goal found by searching): the same path costs.
    pub warm_up: u64,
}

impl Default for WorkShares {
    fn default() -> Self {
        Self { searches: 160_000, fields: 200_000, precompute: 200_000, warm_up: 100_000 }
    }
}

impl WorkShares {
    /// The shares together.
    pub fn total(&self) -> u64 {
        self.searches
            .saturating_add(self.fields)
            .saturating_add(self.precompute)
            .saturating_add(self.warm_up)
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
}

impl Default for PrecomputeSettings {
    fn default() -> Self {
        Self { builds: PrecomputeBuilds::Auto }
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
    /// ([`WorkShares::precompute`]): no frame waits
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
    /// The default: `Hierarchical` for a request that starts or ends in a world of
    /// [`WorldSearch::AUTO_MAPS`] maps or more (a streamed world of chunks, where the exact
    /// search takes many frames a path), `Exact` elsewhere (a few levels side by side).
    #[default]
    Auto,
    /// One A* over the cells (jump points inside 8-way maps without corner cutting), the seams'
    /// steps among them: the cheapest path. Its time grows with the cells between the ends (it
    /// is spread over frames by the search budget).
    Exact,
    /// A search over a graph of cells on the chunks' edges, refined into walks on each chunk
    /// ([`WorldGraph`](crate::search::WorldGraph)): its time grows with the chunks crossed, and
    /// a path always comes when there is one, a little dearer than the cheapest (BENCHMARKS.md
    /// quotes how much). Links other than seams are taken as in the exact search.
    Hierarchical,
}

impl WorldSearch {
    /// With [`WorldSearch::Auto`], the fewest maps a world has for its searches to go over its
    /// graph.
    pub const AUTO_MAPS: u32 = 16;
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
