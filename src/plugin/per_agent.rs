//! Per-agent navigation in the plugin: the grids kept for each kind of agent in use ([`AgentKind`]:
//! a profile, a size), plans made again when an agent's kind or a profile changes, and movement
//! ranges ([`RangeRequest`] answered with [`MoveRange`]).

use std::collections::VecDeque;

use bevy::prelude::*;

use super::agent::{
    NavError, NavPath, OnNavMap, PathGoal, PathRequest, WhenUnreachable, request_start,
    waits_for_map,
};
use super::clock::Moment;
use super::fields::FollowField;
use super::map::NavMaps;
use super::profiles::{AgentKind, NavProfiles, ProfileId};
use super::work::{FrameWork, WorkKind};
use crate::grid::{GridPos, NavProfile};
use crate::path::{Reach, ReachSearch};
use crate::search::{CELL_WORK, PathError};

/// Put this on an agent to ask which cells it can reach for at most `budget` (the sum of the step
/// costs, as a path's cost): a tactics game's movement range. The plugin answers with a
/// [`MoveRange`] (removing this request) or a [`RangeFailed`] message: in the same frame when the
/// range fits the searches' share of the frame's work
/// ([`WorkShares::searches`](super::WorkShares::searches)), else over as many frames as it needs
/// (an unbounded budget on a huge map never freezes a frame). The range is for the agent's
/// [`AgentKind`] kind, on the map it stands on.
#[derive(Component, Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Component)]
pub struct RangeRequest {
    /// The most a path may cost (the same sum as a path's cost).
    pub budget: f64,
    /// From this cell of the agent's map instead of from where it stands.
    pub start: Option<GridPos>,
    /// For this kind of agent instead of the entity's [`AgentKind`].
    pub agent: Option<AgentKind>,
}

impl RangeRequest {
    /// The range of the agent where it stands, for its own kind.
    pub fn within(budget: f64) -> Self {
        Self { budget, start: None, agent: None }
    }
}

/// The answer to a [`RangeRequest`]: every cell within the budget with its cost and the way
/// there ([`Reach`]). For a larger agent the cells are where the lowest corner of its body
/// stands ([`NavGeometry::body_offset`](super::NavGeometry::body_offset) gives its centre).
#[derive(Component, Clone, Debug)]
pub struct MoveRange {
    /// The map the range lies on.
    pub map: Entity,
    /// The kind of agent it was measured for.
    pub agent: AgentKind,
    /// The cells, their costs and the ways there.
    pub reach: Reach,
}

/// Message: a [`RangeRequest`] could not be answered (the request is removed).
#[derive(Message, Clone, Debug, PartialEq)]
pub struct RangeFailed {
    /// The agent whose request failed.
    pub entity: Entity,
    /// Why.
    pub error: NavError,
}

type Wanted<'w, 's> = Query<
    'w,
    's,
    (Option<&'static PathRequest>, Option<&'static RangeRequest>, Option<&'static AgentKind>),
    Or<(With<PathRequest>, With<RangeRequest>)>,
>;

/// Agents with paths (their kinds, the kinds their paths were planned for, whether they asked
/// again), and field followers' kinds.
type Walking<'w, 's> = (
    Query<'w, 's, (Entity, &'static NavPath, Option<&'static AgentKind>, Has<PathRequest>)>,
    Query<'w, 's, &'static AgentKind, With<FollowField>>,
);

/// Keeps, on every map, the grid of each kind of agent that has a path, asks for one or follows
/// a field (made when first needed, followed change by change, dropped when no agent of that
/// kind is left or its profile changed), and sends agents whose kind or profile changed to plan
/// again.
pub(crate) fn keep_agent_grids(
    mut commands: Commands,
    mut maps: ResMut<NavMaps>,
    profiles: Res<NavProfiles>,
    mut seen: Local<Vec<NavProfile>>,
    wanted: Wanted,
    (paths, followers): Walking,
    changed_kinds: Query<(Entity, &AgentKind, &NavPath, Has<PathRequest>), Changed<AgentKind>>,
) {
    let mut changed_profiles: Vec<ProfileId> = Vec::new();
    if profiles.is_changed() {
        changed_profiles.extend(
            profiles
                .iter()
                .filter(|(id, p)| seen.get(usize::from(id.0)) != Some(p))
                .map(|(id, _)| id),
        );
        *seen = profiles.iter().map(|(_, p)| p.clone()).collect();
    }
    let mut kinds: Vec<AgentKind> = Vec::new();
    let mut plan_again = |entity: Entity, path: &NavPath, agent: AgentKind| {
        commands.entity(entity).insert(PathRequest {
            goal: PathGoal::OnMap { map: path.goal_map, cell: path.goal },
            options: Some(path.options),
            start: None,
            agent: Some(agent),
            arrive: path.arrival,
            when_unreachable: WhenUnreachable::Wait,
        });
    };
    for (entity, kind, path, requested) in &changed_kinds {
        if *kind != path.agent && !requested {
            plan_again(entity, path, *kind);
            kinds.push(*kind);
        }
    }
    // Every path's kind, to keep its grid: only once some map keeps one (a game without kinds
    // of agents pays nothing here), or when a profile changed (its followers plan again).
    let any_kept = maps.iter().any(|map| map.keeps_agent_grids());
    if any_kept || !changed_profiles.is_empty() {
        for (entity, path, kind, requested) in &paths {
            let profile_changed = path.agent.profile.is_some_and(|p| changed_profiles.contains(&p));
            if profile_changed && !requested && kind.is_none_or(|k| *k == path.agent) {
                plan_again(entity, path, path.agent);
            }
            kinds.push(path.agent);
        }
    }
    // Field followers of other kinds walk their kind's field, built on their kind's grid.
    kinds.extend(AgentKind::distinct_others(followers.iter().copied()));
    for (path, range, kind) in &wanted {
        let own = kind.copied().unwrap_or_default();
        kinds.extend(path.map(|r| r.agent.unwrap_or(own)));
        kinds.extend(range.map(|r| r.agent.unwrap_or(own)));
    }
    kinds.retain(|k| !k.is_plain() && k.is_known(&profiles));
    kinds.sort_unstable_by_key(|k| (k.profile, k.size));
    kinds.dedup();
    for map in maps.maps_mut() {
        map.keep_agent_grids(
            |kind| {
                kinds.contains(&kind) && kind.profile.is_none_or(|p| !changed_profiles.contains(&p))
            },
            &kinds,
            |kind| kind.profile.and_then(|p| profiles.get(p)).cloned().unwrap_or_default(),
        );
    }
}

type RangeRequests<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static RangeRequest,
        Option<&'static Transform>,
        Option<&'static OnNavMap>,
        Option<&'static AgentKind>,
    ),
>;

/// The range being measured over frames, and the requests waiting, in arrival order.
#[derive(Resource, Default)]
pub(crate) struct RangeQueue {
    waiting: VecDeque<Entity>,
    running: Option<RangeRun>,
}

/// A range measured over frames: for which request, on which map's grid for which kind.
struct RangeRun {
    entity: Entity,
    request: RangeRequest,
    map: Entity,
    agent: AgentKind,
    search: ReachSearch,
}

/// Answers [`RangeRequest`]s, in arrival order, within the searches' share of the frame's work
/// ([`WorkShares::searches`](super::WorkShares::searches), shared with path requests: what ranges
/// use this frame, path requests do not get). A range larger than the budget is measured over
/// several frames (a new request for the agent, or a change of the grid, begins it again).
#[allow(clippy::too_many_arguments)]
pub(crate) fn answer_ranges(
    mut commands: Commands,
    maps: Res<NavMaps>,
    profiles: Res<NavProfiles>,
    mut queue: ResMut<RangeQueue>,
    requests: RangeRequests,
    new_requests: Query<Entity, Changed<RangeRequest>>,
    (mut work, mut failed): (FrameWork, MessageWriter<RangeFailed>),
) {
    let began = Moment::now();
    let RangeQueue { waiting, running } = &mut *queue;
    for entity in &new_requests {
        if !waiting.contains(&entity) {
            waiting.push_back(entity);
        }
    }
    let allowance = work.allowance(WorkKind::Searches);
    let cells = allowance.units / CELL_WORK;
    let mut budget = u32::try_from(cells).unwrap_or(u32::MAX).max(1);
    let past = || allowance.out_of_time();
    // It goes on while its request is there and asks the same (put on again or not).
    let mut run = running
        .take()
        .filter(|run| requests.get(run.entity).is_ok_and(|(_, r, ..)| *r == run.request));
    if let Some(run) = &run {
        waiting.retain(|&e| e != run.entity);
    }
    // Requests waiting for a map to load: back in the queue, in their order, after this frame.
    let mut held = Vec::new();
    loop {
        if run.is_none() {
            let Some(entity) = waiting.pop_front() else {
                break;
            };
            let Ok((entity, request, transform, on_map, kind)) = requests.get(entity) else {
                continue; // answered, taken back or despawned
            };
            let agent = request.agent.or(kind.copied()).unwrap_or_default();
            let position = transform.map(|t| t.translation.truncate());
            let begun = (|| {
                let asked = (&*maps, &*profiles, agent);
                let (map, grid, start) =
                    request_start(asked, on_map, position, request.start, None)?;
                let search = ReachSearch::new(grid, start, request.budget)?;
                Ok(RangeRun { entity, request: *request, map: map.entity, agent, search })
            })();
            match begun {
                Ok(begun) => run = Some(begun),
                Err(error) if waits_for_map(&maps, &error) => held.push(entity),
                Err(error) => {
                    commands.entity(entity).remove::<RangeRequest>();
                    failed.write(RangeFailed { entity, error });
                    continue;
                }
            }
        }
        let Some(mut measuring) = run.take() else {
            break;
        };
        let Some(grid) = maps.get(measuring.map).and_then(|m| m.grid_for(measuring.agent)) else {
            // Its map or its kind's grid went away: measured again from the start.
            waiting.push_front(measuring.entity);
            continue;
        };
        if budget == 0 || work.diagnostics.range_expansions > 0 && past() {
            run = Some(measuring);
            break;
        }
        let before = measuring.search.settled();
        let step = measuring.search.step(grid, budget);
        let settled = (measuring.search.settled() - before) as u32;
        budget = budget.saturating_sub(settled.max(1));
        work.diagnostics.range_expansions += u64::from(settled.max(1));
        match step {
            None => run = Some(measuring),
            Some(Err(PathError::GridChanged)) => waiting.push_front(measuring.entity),
            Some(result) => {
                let entity = measuring.entity;
                commands.entity(entity).remove::<RangeRequest>();
                match result {
                    Ok(reach) => {
                        let (map, agent) = (measuring.map, measuring.agent);
                        commands.entity(entity).insert(MoveRange { map, agent, reach });
                    }
                    Err(error) => {
                        failed.write(RangeFailed { entity, error: NavError::Search(error) });
                    }
                }
            }
        }
    }
    *running = run;
    for entity in held.into_iter().rev() {
        waiting.push_front(entity);
    }
    let settled = work.diagnostics.range_expansions;
    work.spend(WorkKind::Searches, settled * CELL_WORK, began.elapsed());
}
