//! Searches run ahead on Bevy's compute task pool: the plain searches at the front of the queue
//! (one cell to reach on the start's own map, nothing watched, no table to answer from) run at
//! once on the pool's threads, each with a pathfinder of its own; the request system then takes
//! their answers in request order, as if it had run them one after another.
//!
//! Each search runs with the whole of what the frame has left. An answer is taken only where
//! one after another would have given the same: the search ended in fewer cells than the
//! budget still held when its turn came (so it would not have paused), and its expansions are
//! known (a search that found no way says not how many cells it took: it is searched again in
//! turn). Where an answer cannot be taken, the request is searched in turn as before, and the
//! answers after it wait for their turn. Counted in units alone
//! ([`NavSettings::deterministic`](super::super::NavSettings::deterministic)), the answers and
//! the frames they come on are then the same on one thread as on many. With a time budget,
//! each search stops at the frame's deadline; one that paused goes on next frame from where
//! it stopped (its pathfinder becomes the queue's).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use bevy::prelude::*;
use bevy::tasks::{ComputeTaskPool, TaskPool};

use super::super::agent::{NavTeam, ObstacleCells, PathGoal};
use super::super::clock::Moment;
use super::super::link::FrameLinks;
use super::super::map::NavMaps;
use super::super::precompute::table_serves;
use super::linked::links_first;
use super::plan::{Against, Plan, Requests, asks_a_table, avoid_for, grid_query, guide_for};
use super::plan::{prepare, walks_the_answer};
use crate::grid::GridPos;
use crate::search::schedule::{Budget, advance};
use crate::search::{PathError, PathResult, Pathfinder, SearchStep};

/// A plain search at the front of the queue, made concrete.
pub(super) struct Job {
    pub(super) entity: Entity,
    pub(super) plan: Plan,
    /// The cells it walls (obstacles, characters in the way).
    avoid: Vec<GridPos>,
}

/// What became of a search run ahead.
enum Outcome {
    /// It ended, after this many expansions (as [`advance`] counts them).
    Done(Result<PathResult, PathError>, u32),
    /// It paused (its budget or the frame's time ran out), in the helper pathfinder `helper`.
    Paused { expanded: u32, helper: usize },
    /// Its turn did not come: the budget or the time was spent first.
    NotRun,
}

/// The searches run ahead, in request order, with what became of them and their time
/// (microseconds).
#[derive(Default)]
pub(super) struct Ahead {
    runs: VecDeque<(Job, Outcome, f32)>,
}

/// A search's answer run ahead, taken in its turn.
pub(super) enum Taken {
    /// It ended, after `expanded` cells in `micros`.
    Answer { job: Job, result: Result<PathResult, PathError>, expanded: u32, micros: f32 },
    /// It paused at the frame's deadline in the helper pathfinder `helper`: it goes on next
    /// frame from where it stopped, in that pathfinder.
    Carry { job: Job, expanded: u32, helper: usize, micros: f32 },
}

impl Ahead {
    /// The request whose search comes next.
    pub(super) fn next(&self) -> Option<Entity> {
        self.runs.front().map(|run| run.0.entity)
    }

    /// Whether the next search has an answer to take with `left` cells left in the budget
    /// (whatever the clock says now: it was searched in time).
    pub(super) fn ready(&self, left: u32) -> bool {
        match self.runs.front() {
            Some((_, Outcome::Done(Err(PathError::Unreachable { .. }), _), _)) => false,
            Some((_, Outcome::Done(_, expanded), _)) => *expanded < left,
            _ => false,
        }
    }

    /// The next search, if it is `entity`'s and what it came to is what a search in turn would
    /// come to now, with `left` cells left in the budget (`timed`: and a clock); `None`: search
    /// it in turn (and, if it was not the next, forget those run ahead).
    pub(super) fn take(&mut self, entity: Entity, left: u32, timed: bool) -> Option<Taken> {
        if self.next() != Some(entity) {
            self.runs.clear();
            return None;
        }
        let (job, outcome, micros) = self.runs.pop_front()?;
        match outcome {
            Outcome::Done(Err(PathError::Unreachable { .. }), _) | Outcome::NotRun => None,
            Outcome::Done(result, expanded) if expanded < left => {
                Some(Taken::Answer { job, result, expanded, micros })
            }
            Outcome::Paused { expanded, helper } if timed => {
                Some(Taken::Carry { job, expanded, helper, micros })
            }
            Outcome::Done(..) | Outcome::Paused { .. } => None,
        }
    }
}

/// The compute task pool and how many helpers the frame's searches run on (the pool's threads,
/// or as many as the settings say), if more than one.
pub(super) fn pool_for(setting: usize) -> Option<(&'static TaskPool, usize)> {
    let pool = ComputeTaskPool::try_get()?;
    let helpers = if setting == 0 { pool.thread_num() } else { setting };
    (helpers > 1).then_some((pool, helpers))
}

/// What a request is looked at with to see if it is a plain search: what it is made concrete
/// against, the requests, the teams, the obstacles, the frame's links.
pub(super) type Seen<'a, 'w, 's> = (
    Against<'a, 'w, 's>,
    &'a Requests<'w, 's>,
    &'a Query<'w, 's, &'static NavTeam>,
    &'a ObstacleCells,
    &'a FrameLinks,
);

/// `entity`'s request as a plain search, if that is what the request system would search for
/// it in its turn: made concrete without error, one cell to reach on the start's map, not
/// answered by the path it walks, nothing watched, no precomputed table to answer it.
pub(super) fn job(
    (against, requests, teams, obstacles, links): Seen,
    entity: Entity,
) -> Option<Job> {
    let maps = against.0;
    let asker = requests.get(entity).ok()?;
    let aimed = matches!(
        asker.0.goal,
        PathGoal::Nearest(_) | PathGoal::AwayFrom { .. } | PathGoal::Wander { .. }
    );
    let (around, watched) = (asker.5, asker.6);
    if aimed || watched || maps.is_empty() {
        return None;
    }
    let plan = Plan { team: teams.get(entity).ok().copied(), ..prepare(against, asker).ok()? };
    let map = maps.get(plan.map)?;
    let grid = map.grid_for(plan.agent)?;
    if plan.goal_map != plan.map || walks_the_answer(&asker, &plan, grid) {
        return None;
    }
    let avoid = avoid_for(obstacles, entity, &plan, around);
    if asks_a_table(maps, links, &plan, &avoid) && table_serves(map, &plan.options) {
        return None;
    }
    // (Searched through links at once, in turn.)
    if around.is_none_or(|a| a.0.is_empty()) && links_first(maps, links, &plan) {
        return None;
    }
    Some(Job { entity, plan, avoid })
}

/// Runs `jobs` on `pool`, on `helpers` pathfinders (made as needed in `pathfinders`), each with
/// the budget's cells left and the clock's deadline (`limits`).
pub(super) fn run_ahead(
    (pool, helpers): (&TaskPool, usize),
    pathfinders: &mut Vec<Pathfinder>,
    maps: &NavMaps,
    jobs: Vec<Job>,
    limits: (u32, Option<Moment>),
) -> Ahead {
    pathfinders.resize_with(helpers.min(jobs.len()), Pathfinder::default);
    let outcomes = run_jobs(pool, pathfinders, maps, &jobs, limits);
    let runs =
        jobs.into_iter().zip(outcomes).map(|(job, (outcome, micros))| (job, outcome, micros));
    Ahead { runs: runs.collect() }
}

/// Runs `jobs` on `pool` with a pathfinder each from `helpers`: each search with `cap`
/// expansions at most, and the clock's `deadline`. A helper takes the next job until the jobs
/// run out, the time is up, the jobs ended so far took `cap`, or its own search paused (its
/// pathfinder then holds it). Outcomes in the jobs' order.
fn run_jobs(
    pool: &TaskPool,
    helpers: &mut [Pathfinder],
    maps: &NavMaps,
    jobs: &[Job],
    (cap, deadline): (u32, Option<Moment>),
) -> Vec<(Outcome, f32)> {
    let timed = deadline.is_some();
    let next = AtomicUsize::new(0);
    let spent = AtomicU64::new(0);
    let up = move || deadline.is_some_and(|d| Moment::now() >= d);
    let done = pool.scope(|scope| {
        for (helper, pathfinder) in helpers.iter_mut().enumerate() {
            let (next, spent) = (&next, &spent);
            scope.spawn(async move {
                let mut done = Vec::new();
                while !up() && spent.load(Ordering::Relaxed) < u64::from(cap) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else { break };
                    let began = Moment::now();
                    let clock = timed.then_some(&up as &(dyn Fn() -> bool + Sync));
                    let Some((step, expanded)) = run_job(pathfinder, maps, job, cap, clock) else {
                        continue; // its map went: searched in turn, which tells it
                    };
                    let micros = began.elapsed().as_secs_f32() * 1e6;
                    spent.fetch_add(u64::from(expanded.max(1)), Ordering::Relaxed);
                    let outcome = match step {
                        SearchStep::Done(result) => Outcome::Done(result, expanded),
                        SearchStep::Paused { .. } => Outcome::Paused { expanded, helper },
                    };
                    let paused = matches!(outcome, Outcome::Paused { .. });
                    done.push((i, outcome, micros));
                    if paused {
                        break; // its pathfinder holds the paused search
                    }
                }
                done
            });
        }
    });
    let mut outcomes: Vec<(Outcome, f32)> = jobs.iter().map(|_| (Outcome::NotRun, 0.0)).collect();
    for (i, outcome, micros) in done.into_iter().flatten() {
        outcomes[i] = (outcome, micros);
    }
    outcomes
}

/// Searches `job` on its map's grid for its kind of agent (`None` if the map or grid went).
fn run_job(
    pathfinder: &mut Pathfinder,
    maps: &NavMaps,
    job: &Job,
    cap: u32,
    clock: Option<&(dyn Fn() -> bool + Sync)>,
) -> Option<(SearchStep<PathResult>, u32)> {
    let map = maps.get(job.plan.map)?;
    let grid = map.grid_for(job.plan.agent)?;
    let question = grid_query((&job.plan, None), &job.avoid, guide_for(map, &job.plan), false);
    let timed: Option<&dyn Fn() -> bool> = clock.map(|up| up as _);
    let mut budget = Budget::new(cap, timed);
    Some(advance(pathfinder, grid, &question, &mut budget, false, 0))
}
