//! Where the request system's answers go: a [`NavPath`] put on the agent (joined where it stands,
//! smoothed if its follower asks, cut where it is to arrive, a chase kept up), or a
//! [`PathFailed`] on the agent and as a message.

use bevy::ecs::query::QueryItem;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use super::super::agent::{
    NavError, NavPath, PathFailed, PathFollower, PathGoal, PathRequest, PlanAround, PlannedOn,
    Replanning, Targets, Tell, TraceSearch, TracedSearch, WhenUnreachable, agent_start, chase_cell,
    corner_indices, cut_at_arrival, join_index, stand_in, stands_on, target_cell, threats_of,
};
use super::super::map::NavMaps;
use super::super::movement::{GridLocked, Yielding};
use super::super::pursuit::Pursuit;
use super::plan::{Plan, Requests};
use super::wait::WaitingForWay;
use crate::grid::{GridPos, NavGrid};
use crate::search::PathError;
use crate::search::SearchTrace;

/// What the request system reads of walking agents: where they are, whether they hold cells,
/// the path they walk.
type Walkers<'w, 's> = Query<'w, 's, WalkerData>;

/// What is read of each walker (see [`Walkers`]).
type WalkerData = (
    &'static Transform,
    Option<&'static GridLocked>,
    Option<&'static NavPath>,
    Option<&'static PathFollower>,
);

/// What an answer is given with: the maps, where targets stand, the requests.
pub(super) type Given<'a, 'w, 's> = (&'a NavMaps, &'a Targets<'w, 's>, &'a Requests<'w, 's>);

/// Where the frame's answers go.
#[derive(SystemParam)]
pub(crate) struct Answers<'w, 's> {
    commands: Commands<'w, 's>,
    tell: Tell<'w>,
    /// Agents stepping aside for another ([`Yielding`]): a failed side step is theirs to
    /// handle (they wait where they are, then go on), not the game's.
    yielders: Query<'w, 's, &'static Yielding>,
    walkers: Walkers<'w, 's>,
    /// Agents whose request waits for a way ([`WaitingForWay`]).
    waiting: Query<'w, 's, &'static WaitingForWay>,
}

impl Answers<'_, '_> {
    /// The request of `entity` is asked again next frame, without planning round the
    /// characters in the way (no way round them was found).
    pub(super) fn plan_through(&mut self, entity: Entity) {
        self.commands.entity(entity).remove::<PlanAround>();
    }

    /// The request of `entity` is answered by the path it walks already.
    pub(super) fn keep_path(&mut self, entity: Entity) {
        self.commands.entity(entity).remove::<PathRequest>();
    }

    /// Gives `entity` its answer: the path (planned as `plan`, on its start map's grid for its
    /// kind of agent) or the failure, with the trace of its search if it was watched.
    pub(super) fn deliver(
        &mut self,
        (maps, targets, requests): Given,
        entity: Entity,
        plan: Option<&Plan>,
        result: Result<NavPath, NavError>,
        trace: Option<SearchTrace>,
    ) {
        let grid = plan.and_then(|p| maps.get(p.map).and_then(|m| m.grid_for(p.agent)));
        let asker = requests.get(entity).ok();
        let (asked, follower) = (asker.map(|a| a.0), asker.and_then(|a| a.2));
        let walker = self.walkers.get(entity).ok();
        let yielding = self.yielders.get(entity).ok();
        let Ok(mut entity_commands) = self.commands.get_entity(entity) else {
            return;
        };
        // An answer for an agent stepping aside ([`Yielding`]): to its side step, or to a
        // request the game made meanwhile (which ends the stepping aside).
        let side_step = yielding.is_some_and(|y| asked.is_some_and(|r| r.goal == y.side_step()));
        if yielding.is_some() && !side_step {
            entity_commands.remove::<Yielding>();
        }
        entity_commands.remove::<(PathRequest, PlanAround)>();
        if let Some(trace) = trace {
            entity_commands.insert((TracedSearch(trace), TraceSearch { step: 0 }));
        }
        // A goal that moves keeps a `Pursuit`; being sent elsewhere, or failing, ends it. (The
        // plugin's own re-plans ask for the cell they were going to, and keep it.) A chase whose
        // target stands where no way leads waits for it to move.
        let waits = chase_waits(asked, &result);
        let ends_pursuit = match (asked.map(|r| &r.goal), &result) {
            (_, Err(_)) => !waits,
            (Some(goal), Ok(_)) => matches!(
                goal,
                PathGoal::Tile(_)
                    | PathGoal::World(_)
                    | PathGoal::Nearest(_)
                    | PathGoal::Wander { .. }
            ),
            (None, Ok(_)) => false,
        };
        if !side_step && ends_pursuit {
            entity_commands.remove::<Pursuit>();
        }
        match result {
            Ok(mut path) => {
                entity_commands.remove::<WaitingForWay>();
                if let Some(request) = asked {
                    if let Some(map) = maps.get(path.goal_map)
                        && let Some(grid) = map.grid_for(path.agent)
                    {
                        cut_at_arrival(&mut path, request.arrive, &map.geometry, grid);
                    }
                    pursue((maps, targets), &mut entity_commands, request, &path);
                }
                give_path(&mut entity_commands, maps, (walker, follower), grid, path);
            }
            // A failed side step is the agent's own business: it waits where it is, then goes on.
            Err(_) if side_step => {}
            Err(error) => {
                // No way, for a request that waits for one: told once, then it waits.
                let was_waiting = self.waiting.get(entity).ok().map(|w| &w.request);
                let wait_for_way = waits_for_way(asked, &error, plan);
                let told = wait_for_way.is_some() && was_waiting.is_some() && was_waiting == asked;
                match (wait_for_way, asked) {
                    (Some(on), Some(request)) => {
                        entity_commands.insert(WaitingForWay::new(request.clone(), maps, on));
                    }
                    _ => {
                        entity_commands.remove::<WaitingForWay>();
                    }
                }
                if let (Some(request), true) = (asked, waits) {
                    let now = match &request.goal {
                        PathGoal::Entity(target) => chase_cell(maps, targets, *target),
                        _ => None,
                    };
                    keep_pursuit(&mut entity_commands, request, vec![now]);
                }
                stop_safely(&mut entity_commands, maps, walker);
                if !told {
                    self.tell.failed(&mut entity_commands, error);
                }
            }
        }
    }
}

/// Puts `path` on the agent, joined where it stands (a grid-locked agent from its start, the
/// cell it holds or steps into, as the movement walks it), its corners for smoothing when its
/// follower asks.
fn give_path(
    entity_commands: &mut EntityCommands,
    maps: &NavMaps,
    (walker, follower): (Option<WalkerItem>, Option<&PathFollower>),
    grid: Option<&NavGrid>,
    mut path: NavPath,
) {
    // A larger agent walks from cell to cell: a straight line between corners clear for its
    // corner cell could still take its body over a wall's corner.
    if let (Some(follower), Some(grid)) = (follower, grid)
        && follower.smooth
        && path.agent.size == 1
    {
        path.corners = corner_indices(grid, &path.cells);
    }
    if let Some(grid) = grid {
        entity_commands.insert(PlannedOn(grid.stamp()));
    }
    let next = match (walker, maps.get(path.map), grid) {
        (Some((transform, None, ..)), Some(map), Some(grid)) => {
            join_index(&path, transform.translation.truncate(), &map.geometry, grid)
        }
        _ => 0,
    };
    stands_on(entity_commands, path.map);
    entity_commands.remove::<(PathFailed, Replanning)>().insert(path);
    if let Some(follower) = follower {
        entity_commands.insert(PathFollower { next, ..follower.clone() });
    }
}

/// A walker's item of [`Walkers`].
type WalkerItem<'a> = QueryItem<'a, 'a, WalkerData>;

/// A failed request of an agent walking a path to another goal: it stops at the next safe cell
/// centre rather than walk on to a goal the game no longer wants.
fn stop_safely(entity_commands: &mut EntityCommands, maps: &NavMaps, walker: Option<WalkerItem>) {
    let Some((transform, locked, Some(old), Some(follower))) = walker else {
        return;
    };
    let Some(map) = maps.get(old.map) else {
        return;
    };
    let Some(grid) = map.grid_for(old.agent) else {
        return;
    };
    let position = transform.translation.truncate();
    let held = locked.and_then(|l| l.holds.filter(|h| h.0 == map.entity));
    let cell = match held {
        Some((_, cell)) => Some(locked.and_then(|l| l.entering).unwrap_or(cell)),
        None => agent_start(map, grid, old.agent, position, Some((follower, old)))
            .ok()
            .or(old.cells.first().copied()),
    };
    if let Some(cell) = cell {
        entity_commands.insert((
            stand_in(map, cell, old),
            PathFollower { next: 0, ..follower.clone() },
            Replanning,
        ));
    }
}

/// Puts on (or brings up to date) the [`Pursuit`] of an answered request whose goal moves.
fn pursue(
    (maps, targets): (&NavMaps, &Targets),
    entity_commands: &mut EntityCommands,
    request: &PathRequest,
    path: &NavPath,
) {
    let planned_for = match &request.goal {
        PathGoal::Entity(_) => vec![Some((path.goal_map, path.goal))],
        PathGoal::AwayFrom { threats, .. } => threats_of(threats, entity_commands.id())
            .map(|t| target_cell(maps, targets, t))
            .collect(),
        _ => return,
    };
    keep_pursuit(entity_commands, request, planned_for);
}

/// The maps (start, goal) a request that found no way waits on, when it waits for a way
/// ([`WhenUnreachable::Wait`]).
fn waits_for_way(
    asked: Option<&PathRequest>,
    error: &NavError,
    plan: Option<&Plan>,
) -> Option<[Entity; 2]> {
    let waits = asked.is_some_and(|r| r.when_unreachable == WhenUnreachable::Wait);
    let unreachable = matches!(error, NavError::Search(PathError::Unreachable { .. }));
    let plan = plan.filter(|_| waits && unreachable)?;
    Some([plan.map, plan.goal_map])
}

/// A chase's plan failed because its target stands where no way leads (walled in, or on a
/// cell that cannot be walked with none open near): it waits for the target to move.
fn chase_waits(asked: Option<&PathRequest>, result: &Result<NavPath, NavError>) -> bool {
    let chase = asked.is_some_and(|r| matches!(r.goal, PathGoal::Entity(_)));
    let no_way = matches!(
        result,
        Err(NavError::Search(PathError::GoalBlocked { .. } | PathError::Unreachable { .. }))
    );
    chase && no_way
}

/// Puts on, or brings up to date, the [`Pursuit`] of `request`, planned for `planned_for`.
fn keep_pursuit(
    entity_commands: &mut EntityCommands,
    request: &PathRequest,
    planned_for: Vec<Option<(Entity, GridPos)>>,
) {
    let new = Pursuit::new(request.clone(), planned_for.clone());
    let (request, fresh) = (request.clone(), planned_for);
    entity_commands
        .entry::<Pursuit>()
        .and_modify(move |mut pursuit| {
            pursuit.request = request;
            pursuit.planned_for = fresh;
            pursuit.repaired = false;
        })
        .or_insert(new);
}
