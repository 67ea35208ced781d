//! [`NavDiagnostics`]: what the plugin's systems did and how long they took, frame by frame.

use std::time::Duration;

use super::clock::Moment;
use bevy::prelude::*;

/// What the plugin did in the last frame, to tune its budgets, for benchmarks and for tests.
/// Reset when the frame's grid sync (the plugin's first system) begins.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Reflect)]
#[reflect(Resource)]
pub struct NavDiagnostics {
    /// Searches begun this frame.
    pub searches_started: u32,
    /// Searches that ended this frame with a path or an error.
    pub searches_finished: u32,
    /// Of those, requests answered from a map's precomputed [`PathTable`](crate::search::PathTable)
    /// or [`FirstMoveTable`](crate::search::FirstMoveTable) (see
    /// [`PrecomputePaths`](super::PrecomputePaths)), with no search.
    pub table_answers: u32,
    /// Cells settled this frame measuring movement ranges ([`RangeRequest`](super::RangeRequest)s):
    /// taken from the frame's budget before path requests are answered.
    pub range_expansions: u64,
    /// Cells expanded by this frame's searches, all of them: past the budget too when a step
    /// ran over it (a search reads the budget between steps; a [`PathGoal::AwayFrom`] or
    /// `Wander` is searched whole).
    ///
    /// [`PathGoal::AwayFrom`]: super::PathGoal::AwayFrom
    pub expansions: u64,
    /// Of [`expansions`](Self::expansions), those of the searches answered whole this frame:
    /// flights and wanders (`AwayFrom`, `Wander`), and the way through the characters in the
    /// way searched when there was none round them.
    pub whole_expansions: u64,
    /// Work done this frame planning [`Cooperative`](super::Cooperative) agents together, in
    /// [`WorkBudget`](super::WorkBudget)'s units (a plan draws on the searches' share; one
    /// that needs more goes on next frame).
    pub cooperative_work: u64,
    /// True when a search used up the frame's budget and goes on next frame.
    pub search_paused: bool,
    /// Requests asked again for the goal the agent's path already leads to, on a grid
    /// unchanged since it was planned: answered by the path being walked, with no search.
    pub requests_reused: u32,
    /// Searches begun again because the grid changed while they were spread over frames.
    pub searches_redone: u32,
    /// Searches run ahead this frame on Bevy's compute task pool, several at once (see
    /// [`NavSettings::search_threads`](super::NavSettings::search_threads)); their answers are
    /// taken in request order, and one that could not be taken is searched again in turn.
    pub searches_ahead: u32,
    /// Searches begun this frame over a world's graph
    /// ([`WorldSearch::Hierarchical`](super::WorldSearch::Hierarchical), or `Auto` in a world of
    /// many maps).
    pub graph_searches: u32,
    /// Walking agents whose path was checked against grid changes near it.
    pub paths_checked: u32,
    /// Walking agents sent to plan again (a cut path, or someone standing in the way).
    pub replans: u32,
    /// Time the grid sync system took this frame (its own running time, from its first line
    /// to its last: not the scheduler's time to start it).
    pub sync_time: Duration,
    /// Time the request system took this frame (searches, and building the answers).
    pub pathfind_time: Duration,
    /// Time the movement system took this frame.
    pub move_time: Duration,
    /// Time spent keeping chases and flights on their moving goals ([`Pursuit`](super::Pursuit)).
    pub pursue_time: Duration,
    /// Chases kept on a moved target this frame without a search.
    pub pursuits_repaired: u32,
    /// Chases and flights asked again this frame because their goal moved.
    pub pursuits_asked: u32,
    /// Time spent keeping [`NavField`](super::NavField)s in step and handing their followers
    /// their ways.
    pub field_time: Duration,
    /// Work done this frame by builds of precomputed paths run in slices (see
    /// [`PrecomputeSettings`](super::PrecomputeSettings)), in [`WorkBudget`](super::WorkBudget)'s
    /// units: never more than the frame's [`WorkShares::precompute`](super::WorkShares::precompute)
    /// (but for one indivisible piece).
    pub precompute_work: u64,
    /// Work done this frame by everything spread over frames, all kinds together, in
    /// [`WorkBudget`](super::WorkBudget)'s units.
    pub work: u64,
    /// Time those slices took this frame.
    pub precompute_time: Duration,
    /// Time spent this frame working out ahead what searches read: grids' warm-ups (within
    /// [`WorkShares::warm_up`](super::WorkShares::warm_up)) and, on a world of chunks searched
    /// over its graph, the graph's layout and walks for chunks that came or changed (within
    /// the searches' share). Not in [`pathfind_time`](Self::pathfind_time).
    pub warm_time: Duration,
}

impl NavDiagnostics {
    /// The plugin's systems' own time this frame: grid sync, pathfinding, pursuits, fields,
    /// movement, sliced builds and warm-ups.
    pub fn systems_time(&self) -> Duration {
        self.sync_time
            + self.pathfind_time
            + self.warm_time
            + self.pursue_time
            + self.field_time
            + self.move_time
            + self.precompute_time
    }
}

/// Writes the time from its making to its drop into `into`: a system's own running time,
/// whichever way it returns.
pub(crate) struct Stopwatch<'a> {
    into: &'a mut Duration,
    began: Moment,
}

impl<'a> Stopwatch<'a> {
    pub(crate) fn start(into: &'a mut Duration) -> Self {
        Self { into, began: Moment::now() }
    }
}

impl Drop for Stopwatch<'_> {
    fn drop(&mut self) {
        *self.into = self.began.elapsed();
    }
}

/// The movement system's time in the last frame, for the next frame's work budget
/// ([`WorkBudget::time`](super::WorkBudget::time)).
#[derive(Resource, Default, Debug)]
pub(crate) struct LastMove(pub(crate) Duration);
