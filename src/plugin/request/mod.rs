//! The request system: [`PathRequest`]s answered with a [`NavPath`] or a
//! [`PathFailed`](super::agent::PathFailed), within
//! the frame's search budget, searches spread over frames when they need more.
//!
//! The system gathers (obstacles, new requests, the frame's links and budget), then goes on
//! with the search spread over frames, if one is, and begins waiting requests in arrival order
//! while the budget lasts. Its parts: `plan` makes a request concrete and builds its query and
//! path; `ahead` runs the plain searches at the front of the queue at once on the compute task
//! pool, their answers taken in turn; `linked` begins and runs searches through links; `deliver`
//! applies answers to agents.
//! The budget, the step that runs a search on and what a search on a frozen grid answers come
//! from the core ([`crate::search::schedule`]).

mod ahead;
mod deliver;
mod linked;
mod plan;
mod wait;
mod warm;

use std::collections::VecDeque;

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use super::agent::{
    NavError, NavObstacle, NavPath, NavTeam, ObstacleCells, OnNavMap, PathGoal, PathRequest,
    Targets, collect_obstacles, target_cell, threats_of, waits_for_map,
};
use super::clock::Moment;
use super::diagnostics::NavDiagnostics;
use super::link::{FrameLinks, LinkRows, LinksMoved};
use super::map::{NavMap, NavMaps};
use super::precompute::table_answer;
use super::profiles::{AgentKind, NavProfiles};
use super::seams::{Seams, WorldGraphs};
use super::settings::WorldSearch;
use super::work::{FrameWork, WorkKind};
use crate::grid::{GridPos, NavGrid};
use crate::path::{FleeOptions, flee_avoiding, wander_avoiding};
use crate::search::schedule::{Budget, MAX_REDOS, advance, done_expansions, settle};
use crate::search::{CELL_WORK, LinkedPath, PathError, PathResult, Pathfinder, SearchStep};
use ahead::{Ahead, Taken, job, pool_for, run_ahead};
pub(crate) use deliver::Answers;
use linked::{LinkedSearch, agent_grids, begin_linked, go_on_linked, linked_error, map_gone};
use linked::{links_first, make_linked_path, then_links};
use plan::walks_the_answer;
use plan::{Plan, Requests, goes_on, grid_query, guide_for, make_path, nearest_cells, prepare};
use plan::{asks_a_table, avoid_for, left_out};
pub(crate) use wait::retry_unreachable;
pub(crate) use warm::warm_grids;

/// A search spread over frames, for one agent's request: on the start's map, or through links.
struct Running {
    entity: Entity,
    query: Plan,
    /// Times it began again after a grid changed under it.
    redone: u32,
    /// Cells it has expanded so far (since it last began).
    expanded: u32,
    /// Search time so far, microseconds.
    micros: f32,
    search: Search,
}

/// Where a running search searches.
enum Search {
    /// On the start's map, with the queue's pathfinder. `frozen`: the copy of the grid it runs
    /// on since it had to begin again after the live grid changed under it (`None`: the live
    /// grid, unchanged since it began). `traced`: the agent watches it ([`TraceSearch`]).
    ///
    /// `nearest`: the cells of a nearest-of goal ([`PathGoal::Nearest`]); `None`: the plan's goal.
    ///
    /// [`TraceSearch`]: super::agent::TraceSearch
    OnMap { frozen: Option<Box<NavGrid>>, traced: bool, nearest: Option<Box<[GridPos]>> },
    /// Through links, with a pathfinder of its own.
    Linked(Box<LinkedSearch>),
}

impl Running {
    fn new(entity: Entity, query: Plan, search: Search) -> Self {
        Self { entity, query, redone: 0, expanded: 0, micros: 0.0, search }
    }
}

/// What became of a search this frame.
enum Step {
    /// It paused: the frame's search time is spent.
    Paused(Running),
    /// It ended in a search through links, to run now.
    Then(Running),
    /// It was answered.
    Ended,
    /// It found no way round the characters in the way: asked again next frame, through them.
    AskAgain,
}

/// Requests waiting for an answer, in arrival order, the search spread over frames, and the
/// search scratch memory.
#[derive(Resource, Default)]
pub(crate) struct RequestQueue {
    waiting: VecDeque<Entity>,
    running: Option<Running>,
    pathfinder: Pathfinder,
    /// The pathfinders of the searches run ahead on the compute task pool, one a helper.
    helpers: Vec<Pathfinder>,
    /// The pathfinder of the last search through links that ended, for the next to take (see
    /// `LinkedSearch::pathfinder`).
    linked: Option<Box<Pathfinder>>,
    /// This frame's links (reused).
    links: FrameLinks,
}

/// Queues new and replaced requests in arrival order.
/// A request that replaces one still waiting keeps its place: under a steady load an agent that
/// renews its request is not sent to the back each time.
fn queue_requests(queue: &mut RequestQueue, requests: &NewRequests) {
    for entity in requests {
        if !queue.waiting.contains(&entity) {
            queue.waiting.push_back(entity);
        }
    }
}

/// What the request system reads and writes.
#[derive(SystemParam)]
pub(crate) struct Answering<'w, 's> {
    queue: ResMut<'w, RequestQueue>,
    profiles: Res<'w, NavProfiles>,
    maps: Res<'w, NavMaps>,
    seams: Res<'w, Seams>,
    requests: Requests<'w, 's>,
    teams: Query<'w, 's, &'static NavTeam>,
    targets: Targets<'w, 's>,
    obstacles: ResMut<'w, ObstacleCells>,
    graphs: ResMut<'w, WorldGraphs>,
    /// The settings, the frame's diagnostics and its budget.
    work: FrameWork<'w>,
    answers: Answers<'w, 's>,
}

/// Answers waiting requests in arrival order until the frame's budget of expanded cells is
/// spent. A search that would overrun it pauses and goes on next frame (before any other), so
/// no frame waits on a long search; if a grid changes meanwhile, its answer is checked against
/// the new grid or the search begins again.
/// Requests made or changed since the last frame; side-view characters' are answered by their
/// own plugin.
type NewRequests<'w, 's> =
    Query<'w, 's, Entity, (Changed<PathRequest>, Without<crate::plugin::side_view::SideViewAgent>)>;

pub(crate) fn answer_requests(
    mut nav: Answering,
    new_requests: NewRequests,
    obstacle_agents: Query<(Entity, &Transform, Option<&OnNavMap>, &NavObstacle)>,
    (links, mut links_moved): (LinkRows, LinksMoved),
) {
    // One system rather than three: each system costs the scheduler a wake-up.
    let frame_began = Moment::now();
    collect_obstacles(&nav.maps, &obstacle_agents, &mut nav.obstacles);
    queue_requests(&mut nav.queue, &new_requests);
    let nav = &mut nav;
    let links_moved = links_moved.read();
    nav.queue.links.gather(&nav.maps, &links, &nav.seams.places, links_moved);
    nav.queue.links.world_search = nav.work.settings.world_search;
    let allowance = nav.work.allowance(WorkKind::Searches);
    let out_of_time = move || allowance.out_of_time();
    let timed: Option<&dyn Fn() -> bool> = allowance.deadline.map(|_| &out_of_time as _);
    // (What movement ranges used of the searches' share is not the requests' to use.)
    let cells = allowance.units / CELL_WORK;
    let budget = Budget::new(u32::try_from(cells).unwrap_or(u32::MAX).max(1), timed);
    let mut frame = Frame { nav, budget, answered: 0, deadline: allowance.deadline };
    // A search carried over from an earlier frame that ends now counts as a request answered.
    let (over, ended) = frame.go_on_running();
    frame.answered = ended;
    if !over {
        frame.answer_waiting();
    }
    // All the cells expanded, a step past the budget included (not only what was left of it).
    let spent = frame.budget.spent();
    let took = frame_began.elapsed();
    frame.nav.work.diagnostics.expansions = spent;
    frame.nav.work.diagnostics.pathfind_time = took;
    frame.nav.work.spend(WorkKind::Searches, spent * CELL_WORK, took);
}

/// One frame's answering: what the system gathered, the budget left, requests answered.
struct Frame<'a, 'w, 's> {
    nav: &'a mut Answering<'w, 's>,
    budget: Budget<'a>,
    answered: usize,
    /// With a time budget, when the frame's search time is up.
    deadline: Option<Moment>,
}

/// What a waiting request came to when its turn came.
enum Begun {
    /// Nothing to do: its agent or request went away, or the path it walks answers it.
    Skipped,
    /// A map it needs is loading: it waits.
    Held,
    /// Answered at once (`searched`: a search was run for it).
    Answered {
        searched: bool,
    },
    /// Its search goes on: over links (to run now), or paused.
    Running(Box<Running>),
    Paused(Box<Running>),
}

impl Frame<'_, '_, '_> {
    /// Gives `entity` its answer (planned as `plan`, if it got that far), with its search's
    /// trace if it was watched.
    fn deliver(&mut self, entity: Entity, plan: Option<&Plan>, result: Result<NavPath, NavError>) {
        let nav = &mut *self.nav;
        let trace = nav.queue.pathfinder.take_trace();
        let given = (&*nav.maps, &nav.targets, &nav.requests);
        nav.answers.deliver(given, entity, plan, result, trace);
    }

    /// The search spread over frames goes on first (then, if it ends in one, a search through
    /// links). Says whether the frame's search is over (it paused again, or its request is
    /// asked again next frame), and how many requests it answered (0 or 1).
    fn go_on_running(&mut self) -> (bool, usize) {
        let mut answered = 0;
        while let Some(run) = self.nav.queue.running.take() {
            let Some(run) = self.still_wanted(run) else {
                continue;
            };
            let step = match run.search {
                Search::OnMap { .. } => self.advance_on_map(run),
                Search::Linked(_) => self.advance_linked(run),
            };
            match step {
                Step::Paused(run) => {
                    self.nav.queue.running = Some(run);
                    self.nav.work.diagnostics.search_paused = true;
                    return (true, answered);
                }
                Step::Then(run) => self.nav.queue.running = Some(run),
                Step::Ended => answered += 1,
                Step::AskAgain => return (true, answered),
            }
        }
        (false, answered)
    }

    /// The running search, if it goes on: its request still asks for it and its maps serve its
    /// kind of agent. Otherwise it is dropped; its request waits again if a map it needs is
    /// loading or its kind's grid was dropped (its profile changed), fails if a map is gone.
    fn still_wanted(&mut self, run: Running) -> Option<Running> {
        let nav = &mut *self.nav;
        let against = (&*nav.maps, &*nav.profiles, &*nav.work.settings, &nav.targets);
        let waiting = &mut nav.queue.waiting;
        let nearest = match &run.search {
            Search::OnMap { nearest, .. } => nearest.as_deref(),
            Search::Linked(_) => None,
        };
        let wanted = goes_on(against, &nav.requests, waiting, (&run.query, nearest), run.entity);
        let maps = &nav.maps;
        let gone = [run.query.map, run.query.goal_map].into_iter().find(|&m| maps.get(m).is_none());
        let served = maps.get(run.query.map).is_some_and(|m| m.grid_for(run.query.agent).is_some());
        if wanted && gone.is_none() && served {
            return Some(run);
        }
        nav.queue.pathfinder.cancel();
        match gone {
            _ if !wanted => {} // its request went away, or asks for something else (waiting)
            Some(map) if !maps.is_loading(map) => {
                self.deliver(run.entity, None, Err(NavError::MapGone { map }));
            }
            _ => nav.queue.waiting.push_front(run.entity),
        }
        None
    }

    /// Goes on with a search on the start's map. If the live grid changed under it, it begins
    /// again on a frozen copy of the grid as it is now (which stays as it is until the search
    /// ends, so a fresh copy's answer settles at once); a search that ran on a copy answers
    /// for the live grid through [`settle`].
    fn advance_on_map(&mut self, mut run: Running) -> Step {
        let Search::OnMap { frozen, traced, nearest } = &mut run.search else {
            return Step::Ended;
        };
        let (mut frozen, traced, nearest) = (frozen.take(), *traced, nearest.take());
        let nav = &mut *self.nav;
        let Some(map) = nav.maps.get(run.query.map) else {
            return Step::Ended; // checked by `still_wanted`
        };
        let live = map.grid_for(run.query.agent).unwrap_or(&map.grid);
        let around = nav.requests.get(run.entity).ok().and_then(|r| r.5);
        let avoid = avoid_for(&nav.obstacles, run.entity, &run.query, around);
        let began = Moment::now();
        let asked = (&run.query, nearest.as_deref());
        let question = grid_query(asked, &avoid, guide_for(map, &run.query), traced);
        let pathfinder = &mut nav.queue.pathfinder;
        let on = frozen.as_deref().unwrap_or(live);
        let budget = &mut self.budget;
        let (mut step, mut expanded) =
            advance(pathfinder, on, &question, budget, true, run.expanded);
        loop {
            match step {
                // The live grid changed under it: begin again, below.
                SearchStep::Done(Err(PathError::GridChanged)) => {}
                SearchStep::Paused { .. } => {
                    run.expanded = expanded;
                    run.micros += began.elapsed().as_secs_f32() * 1e6;
                    run.search = Search::OnMap { frozen, traced, nearest };
                    return Step::Paused(run);
                }
                SearchStep::Done(Err(PathError::Unreachable { .. }))
                    if around.is_some_and(|a| !a.0.is_empty()) =>
                {
                    nav.answers.plan_through(run.entity);
                    nav.queue.waiting.push_front(run.entity);
                    return Step::AskAgain;
                }
                SearchStep::Done(result) => {
                    let give_up = run.redone > MAX_REDOS;
                    if let Some(result) = settle(live, frozen.as_deref(), give_up, result) {
                        run.micros += began.elapsed().as_secs_f32() * 1e6;
                        let asked = (run.query, nearest.is_some());
                        return self.finish_on_map(run.entity, asked, result, run.micros);
                    }
                }
            }
            let copy = frozen.insert(Box::new(live.frozen_copy()));
            run.redone += 1;
            nav.work.diagnostics.searches_redone += 1;
            (step, expanded) = advance(pathfinder, &**copy, &question, budget, false, 0);
        }
    }

    /// A search on the start's map (for `query`'s goal, or for the nearest of several cells)
    /// ended: with links about, a search through links follows if a link could beat the walk
    /// found to the goal (bounded by its cost); else the request is answered.
    fn finish_on_map(
        &mut self,
        entity: Entity,
        (query, nearest): (Plan, bool),
        result: Result<PathResult, PathError>,
        micros: f32,
    ) -> Step {
        let nav = &mut *self.nav;
        let around = left_out(&nav.requests, entity);
        let across = (&*nav.maps, &nav.queue.links, &*nav.obstacles);
        let linked = (!nearest).then(|| then_links(across, entity, around, query, &result));
        if let Some(search) = linked.flatten() {
            let run =
                Running { micros, ..Running::new(entity, query, Search::Linked(search.into())) };
            return Step::Then(run);
        }
        nav.work.diagnostics.searches_finished += 1;
        // The nearest of several cells: the path's goal is the one it found.
        let plan = |found: &PathResult| match nearest {
            true => Plan { goal: found.end(), ..query },
            false => query,
        };
        let path = match nav.maps.get(query.map) {
            Some(map) => result
                .map(|found| {
                    let plan = plan(&found);
                    make_path(found, &map.geometry, &plan, micros)
                })
                .map_err(NavError::from),
            None => Err(NavError::MapGone { map: query.map }),
        };
        self.deliver(entity, Some(&query), path);
        Step::Ended
    }

    /// Goes on with a search through links. If a grid changed under it, it begins again on the
    /// grids as they are now, and after [`MAX_REDOS`] times runs whole (the grids keep
    /// changing: better late than never).
    fn advance_linked(&mut self, mut run: Running) -> Step {
        let Search::Linked(search) = &mut run.search else {
            return Step::Ended;
        };
        let nav = &mut *self.nav;
        if search.pathfinder.is_none() {
            search.pathfinder = nav.queue.linked.take();
        }
        let began = Moment::now();
        let maps_graphs = (&*nav.maps, &mut *nav.graphs);
        let agent = run.query.agent;
        let (mut step, mut expanded) =
            go_on_linked(search, agent, maps_graphs, &mut self.budget, run.expanded);
        while step == SearchStep::Done(Err(PathError::GridChanged)) {
            run.redone += 1;
            nav.work.diagnostics.searches_redone += 1;
            let around = left_out(&nav.requests, run.entity);
            let across = (&*nav.maps, &nav.queue.links, &*nav.obstacles);
            let Some(again) = begin_linked(across, run.entity, around, run.query, None) else {
                nav.work.diagnostics.searches_finished += 1;
                let error = map_gone(&nav.maps, &run.query);
                self.deliver(run.entity, Some(&run.query), Err(error));
                return Step::Ended;
            };
            let pathfinder = search.pathfinder.take();
            **search = again;
            search.pathfinder = pathfinder;
            let mut whole = Budget::whole();
            let budget = if run.redone > MAX_REDOS { &mut whole } else { &mut self.budget };
            let maps_graphs = (&*nav.maps, &mut *nav.graphs);
            (step, expanded) = go_on_linked(search, agent, maps_graphs, budget, 0);
        }
        run.micros += began.elapsed().as_secs_f32() * 1e6;
        run.expanded = expanded;
        match step {
            SearchStep::Paused { .. } => Step::Paused(run),
            SearchStep::Done(result) => self.finish_linked(run, result),
        }
    }

    /// Answers the request of a search through links that ended, or asks it again next frame
    /// without planning round the characters in the way if it found no way round them.
    fn finish_linked(&mut self, mut run: Running, result: Result<LinkedPath, PathError>) -> Step {
        let Search::Linked(search) = &mut run.search else {
            return Step::Ended;
        };
        let nav = &mut *self.nav;
        nav.queue.linked = search.pathfinder.take();
        if matches!(result, Err(PathError::Unreachable { .. })) && search.around {
            nav.answers.plan_through(run.entity);
            nav.queue.waiting.push_front(run.entity);
            return Step::AskAgain;
        }
        nav.work.diagnostics.searches_finished += 1;
        let (query, micros) = (&run.query, run.micros);
        let path = result
            .map(|found| make_linked_path(found, (&nav.maps, &nav.seams), search, query, micros))
            .map_err(|error| linked_error(&nav.maps, query, error));
        self.deliver(run.entity, Some(&run.query), path);
        Step::Ended
    }

    /// Then waiting requests, in arrival order, while the budget lasts (at least one slice of
    /// search a frame, whatever the clock says, so that all goes on); the one that runs out of
    /// it is spread over the next frames.
    fn answer_waiting(&mut self) {
        let mut searched = false;
        let mut held = Vec::new();
        let mut ahead = Ahead::default();
        let most = self.nav.work.settings.max_requests_per_frame.max(1);
        while self.answered < most && self.budget.expansions() > 0 {
            let Some(&entity) = self.nav.queue.waiting.front() else {
                break;
            };
            if ahead.next() != Some(entity) && (!searched || self.budget.left()) {
                ahead = self.search_ahead(most - self.answered);
            }
            if searched && !self.budget.left() && !ahead.ready(self.budget.expansions()) {
                break;
            }
            self.nav.queue.waiting.pop_front();
            let begun = match self.take_ahead(&mut ahead, entity) {
                Some(begun) => begun,
                None => self.begin(entity),
            };
            match begun {
                Begun::Skipped => {}
                Begun::Held => held.push(entity),
                Begun::Answered { searched: ran } => searched |= ran,
                Begun::Running(run) => {
                    searched = true;
                    self.nav.queue.running = Some(*run);
                    if self.go_on_running().0 {
                        break;
                    }
                }
                Begun::Paused(run) => {
                    self.nav.queue.running = Some(*run);
                    self.nav.work.diagnostics.search_paused = true;
                    break;
                }
            }
        }
        for entity in held.into_iter().rev() {
            self.nav.queue.waiting.push_front(entity);
        }
    }

    /// The plain searches at the front of the queue (two at least, `most` at most), run ahead
    /// on the compute task pool if it lends more than one thread ([`ahead`]); else none.
    fn search_ahead(&mut self, most: usize) -> Ahead {
        let nav = &mut *self.nav;
        let Some(pool) = pool_for(nav.work.settings.search_threads) else {
            return Ahead::default();
        };
        let against = (&*nav.maps, &*nav.profiles, &*nav.work.settings, &nav.targets);
        let seen = (against, &nav.requests, &nav.teams, &*nav.obstacles, &nav.queue.links);
        let waiting = nav.queue.waiting.iter().take(most);
        let jobs: Vec<_> = waiting.map_while(|&entity| job(seen, entity)).collect();
        if jobs.len() < 2 {
            return Ahead::default();
        }
        nav.work.diagnostics.searches_ahead += jobs.len() as u32;
        let limits = (self.budget.expansions(), self.deadline);
        run_ahead(pool, &mut nav.queue.helpers, &nav.maps, jobs, limits)
    }

    /// `entity`'s search run ahead, taken if it is the next and came to what a search in turn
    /// would come to now; `None`: search it in turn.
    fn take_ahead(&mut self, ahead: &mut Ahead, entity: Entity) -> Option<Begun> {
        let left = self.budget.expansions();
        let taken = ahead.take(entity, left, self.deadline.is_some())?;
        self.answered += 1;
        self.nav.work.diagnostics.searches_started += 1;
        Some(match taken {
            Taken::Answer { job, result, expanded, micros } => {
                self.budget.charge(expanded);
                let step = SearchStep::Done(result);
                self.searched_on_map(job.entity, (job.plan, None), step, (expanded, micros))
            }
            Taken::Carry { job, expanded, helper, micros } => {
                // It goes on in the pathfinder it paused in.
                let queue = &mut *self.nav.queue;
                std::mem::swap(&mut queue.pathfinder, &mut queue.helpers[helper]);
                self.budget.charge(expanded);
                let search = Search::OnMap { frozen: None, traced: false, nearest: None };
                let run =
                    Running { expanded, micros, ..Running::new(job.entity, job.plan, search) };
                Begun::Paused(run.into())
            }
        })
    }

    /// Takes up `entity`'s request: made concrete, then answered at once (a failure, a flight or
    /// a wander, the path it walks, a precomputed table) or searched.
    fn begin(&mut self, entity: Entity) -> Begun {
        let query = match self.plan(entity) {
            Ok(query) => query,
            Err(begun) => return begun,
        };
        if let Some(begun) = self.answer_aim(entity, &query) {
            return begun;
        }
        let nav = &mut *self.nav;
        let Ok(asker) = nav.requests.get(entity) else {
            return Begun::Skipped;
        };
        let Some(grid) = nav.maps.get(query.map).and_then(|m| m.grid_for(query.agent)) else {
            return Begun::Skipped; // `plan` found them
        };
        let nearest = nearest_cells(asker.0).map(Box::from);
        if nearest.is_none() && walks_the_answer(&asker, &query, grid) {
            nav.answers.keep_path(entity);
            nav.work.diagnostics.requests_reused += 1;
            return Begun::Skipped;
        }
        self.answered += 1;
        nav.work.diagnostics.searches_started += 1;
        let around = left_out(&nav.requests, entity);
        let plain = around.0.is_empty() && !asker.6;
        if nearest.is_some()
            || query.goal_map == query.map
                && !(plain && links_first(&nav.maps, &nav.queue.links, &query))
        {
            return self.search_on_map(entity, (query, nearest));
        }
        // A search over the maps and their links, spread over frames like any other.
        let across = (&*nav.maps, &nav.queue.links, &*nav.obstacles);
        match begin_linked(across, entity, around, query, None) {
            Some(search) => {
                nav.work.diagnostics.graph_searches += u32::from(search.over_graph());
                let search = Search::Linked(search.into());
                Begun::Running(Running::new(entity, query, search).into())
            }
            None => {
                nav.work.diagnostics.searches_finished += 1;
                let error = map_gone(&nav.maps, &query);
                self.deliver(entity, Some(&query), Err(error));
                Begun::Answered { searched: true }
            }
        }
    }

    /// `entity`'s request made concrete, or what became of it: it waits for a map that is
    /// loading, or fails.
    fn plan(&mut self, entity: Entity) -> Result<Plan, Begun> {
        let nav = &mut *self.nav;
        let Ok(asker) = nav.requests.get(entity) else {
            return Err(Begun::Skipped); // despawned, or the request was taken back
        };
        let against = (&*nav.maps, &*nav.profiles, &*nav.work.settings, &nav.targets);
        let prepared = match nav.maps.is_empty() {
            true => Err(NavError::NoGrid),
            false => prepare(against, asker),
        };
        match prepared {
            Ok(query) => Ok(Plan { team: nav.teams.get(entity).ok().copied(), ..query }),
            // A map it needs is loading: it waits (back in the queue after this frame).
            Err(error) if waits_for_map(&nav.maps, &error) => Err(Begun::Held),
            Err(error) => {
                self.answered += 1;
                self.deliver(entity, None, Err(error));
                Err(Begun::Answered { searched: false })
            }
        }
    }

    /// The answer to a request to flee threats or to wander, searched whole on the start's map
    /// (their searches end within a cost budget); `None` for the other goals.
    fn answer_aim(&mut self, entity: Entity, query: &Plan) -> Option<Begun> {
        let nav = &mut *self.nav;
        let request = nav.requests.get(entity).ok()?.0;
        let map = nav.maps.get(query.map)?;
        let grid = map.grid_for(query.agent)?;
        let aim = (&*nav.maps, &*nav.obstacles, &nav.targets);
        let answer = aim_answer(aim, (entity, request), query, map, grid)?;
        nav.work.diagnostics.searches_started += 1;
        nav.work.diagnostics.searches_finished += 1;
        charge_whole(&mut self.budget, &mut nav.work.diagnostics, &answer);
        let path = answer.map(|found| {
            let plan = Plan { goal: found.end(), ..*query };
            make_path(found, &map.geometry, &plan, 0.0)
        });
        self.answered += 1;
        self.deliver(entity, Some(query), path.map_err(NavError::from));
        Some(Begun::Answered { searched: true })
    }

    /// Searches a request on its start's map, for its goal or the `nearest` of several cells
    /// (for its goal from a precomputed table at once, if its map has one and the request is
    /// plain), spread over frames if it outruns the budget.
    fn search_on_map(
        &mut self,
        entity: Entity,
        (query, nearest): (Plan, Option<Box<[GridPos]>>),
    ) -> Begun {
        let nav = &mut *self.nav;
        let queue = &mut *nav.queue;
        let Ok(asker) = nav.requests.get(entity) else {
            return Begun::Skipped;
        };
        let (around, watched) = (asker.5, asker.6);
        let Some(map) = nav.maps.get(query.map) else {
            return Begun::Skipped;
        };
        let Some(grid) = map.grid_for(query.agent) else {
            return Begun::Skipped;
        };
        let began = Moment::now();
        let avoid = avoid_for(&nav.obstacles, entity, &query, around);
        // A map with precomputed paths answers a plain request from its table, at once.
        let plain = asks_a_table(&nav.maps, &queue.links, &query, &avoid) && !watched;
        let plain = plain && nearest.is_none();
        let asked = (query.start, query.goal, &query.options);
        let table = plain.then(|| table_answer(map, &mut queue.pathfinder, asked)).flatten();
        if let Some(result) = table {
            let micros = began.elapsed().as_secs_f32() * 1e6;
            nav.work.diagnostics.searches_finished += 1;
            nav.work.diagnostics.table_answers += 1;
            let path = result.map(|found| make_path(found, &map.geometry, &query, micros));
            self.deliver(entity, Some(&query), path.map_err(NavError::from));
            return Begun::Answered { searched: true };
        }
        let asked = (&query, nearest.as_deref());
        let question = grid_query(asked, &avoid, guide_for(map, &query), watched);
        let budget = &mut self.budget;
        let (step, expanded) = advance(&mut queue.pathfinder, grid, &question, budget, false, 0);
        let micros = began.elapsed().as_secs_f32() * 1e6;
        self.searched_on_map(entity, (query, nearest), step, (expanded, micros))
    }

    /// What a search on the start's map that ran this frame (`step`, after `expanded` cells in
    /// `micros`) comes to: a search paused, a search through links to follow, or an answer.
    fn searched_on_map(
        &mut self,
        entity: Entity,
        (query, nearest): (Plan, Option<Box<[GridPos]>>),
        step: SearchStep<PathResult>,
        (expanded, micros): (u32, f32),
    ) -> Begun {
        let nav = &mut *self.nav;
        let Ok(asker) = nav.requests.get(entity) else {
            return Begun::Skipped;
        };
        let (around, watched) = (asker.5, asker.6);
        let result = match step {
            SearchStep::Paused { .. } => {
                let search = Search::OnMap { frozen: None, traced: watched, nearest };
                let run = Running { expanded, micros, ..Running::new(entity, query, search) };
                return Begun::Paused(run.into());
            }
            // No way round the characters in the way: the way through them, then.
            SearchStep::Done(Err(PathError::Unreachable { .. }))
                if around.is_some_and(|a| !a.0.is_empty()) =>
            {
                let map = nav.maps.get(query.map);
                let Some(grid) = map.and_then(|m| m.grid_for(query.agent)) else {
                    return Begun::Skipped;
                };
                let avoid = nav.obstacles.for_agent(entity, query.team, query.map);
                let asked = (&query, nearest.as_deref());
                let found =
                    nav.queue.pathfinder.find(grid, &grid_query(asked, &avoid, None, false));
                charge_whole(&mut self.budget, &mut nav.work.diagnostics, &found);
                found
            }
            SearchStep::Done(result) => result,
        };
        match self.finish_on_map(entity, (query, nearest.is_some()), result, micros) {
            Step::Then(run) => Begun::Running(run.into()),
            _ => Begun::Answered { searched: true },
        }
    }
}

/// Charges the frame's budget for a search run whole (`result`), and counts it among the
/// frame's [`NavDiagnostics::whole_expansions`].
fn charge_whole(
    budget: &mut Budget,
    diagnostics: &mut NavDiagnostics,
    result: &Result<PathResult, PathError>,
) {
    let cells = done_expansions::<&NavGrid>(result);
    budget.charge(cells);
    diagnostics.whole_expansions += u64::from(cells);
}

/// The answer to a request to flee threats or to wander, on the start's map (round the
/// obstacles in the way, as any request); `None` for the other goals.
fn aim_answer(
    (maps, obstacles, targets): (&NavMaps, &ObstacleCells, &Targets),
    (entity, request): (Entity, &PathRequest),
    plan: &Plan,
    map: &NavMap,
    grid: &NavGrid,
) -> Option<Result<PathResult, PathError>> {
    let avoid = || obstacles.for_agent(entity, plan.team, map.entity);
    Some(match &request.goal {
        PathGoal::AwayFrom { threats, budget } => {
            let cells: Vec<GridPos> = threats_of(threats, entity)
                .filter_map(|t| target_cell(maps, targets, t))
                .filter(|&(on, _)| on == map.entity)
                .map(|(_, cell)| cell)
                .collect();
            flee_avoiding(grid, plan.start, &cells, FleeOptions::new(*budget), &avoid())
        }
        PathGoal::Wander { budget, seed } => {
            wander_avoiding(grid, plan.start, *budget, *seed, &avoid())
        }
        _ => return None,
    })
}

/// With [`WorldSearch::Hierarchical`] (or `Auto` and a world of many maps): works out the world
/// graph's part for chunks that streamed in or changed while the frame's search time lasts (one
/// walk over a chunk at least), so that a query seldom waits for that work.
/// For plain agents; other kinds' graphs are worked out when they ask.
pub(crate) fn warm_world_graphs(
    maps: Res<NavMaps>,
    queue: Res<RequestQueue>,
    mut graphs: ResMut<WorldGraphs>,
    mut work: FrameWork,
) {
    let links = &queue.links;
    let worlds = links.places.iter().any(Option::is_some);
    let wanted = match work.settings.world_search {
        WorldSearch::Exact => false,
        WorldSearch::Hierarchical => worlds,
        WorldSearch::Auto => links.has_big_world(),
    };
    if !wanted {
        return;
    }
    let began = Moment::now();
    let allowance = work.allowance(WorkKind::Searches);
    let grids = agent_grids(&maps, AgentKind::PLAIN);
    let past = || allowance.out_of_time();
    let done = graphs.warm(&grids, links, AgentKind::PLAIN, allowance.units, past);
    let took = began.elapsed();
    work.spend(WorkKind::Searches, done, took);
    if done > 0 {
        work.diagnostics.warm_time += took;
    }
}
