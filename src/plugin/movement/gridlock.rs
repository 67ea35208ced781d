//! Grid-locked movement, for games whose characters occupy whole tiles (turn-based games,
//! roguelikes, tile puzzles): at most one agent per cell, an agent steps into the next cell of
//! its path only once that cell is free (it holds both while it moves between them), waits while
//! it is taken, and plans again when the wait lasts. Two agents never swap through each other:
//! each needs the other's cell free first. A body `n` tiles across holds its `n` x `n` block of
//! cells (and, while it steps, the block it steps into), every cell of it free before it steps.

use std::collections::HashMap;

use bevy::prelude::*;

use super::cooperative::CooperativePlans;
use super::walkers::{GridLocked, Walkers, Yielding, side_cell};
use crate::grid::{GridPos, MAX_AGENT_SIZE, NavGrid};
use crate::plugin::agent::{
    Arrival, NavPath, PathFollower, PathGoal, PathRequest, PlanAround, WhenUnreachable,
};
use crate::plugin::map::{NavMap, NavMaps};
use crate::plugin::profiles::AgentKind;
use crate::search::{corners_covering, covers, footprint, overlaps};

/// Which agent holds each cell this frame.
#[derive(Default)]
pub(crate) struct Occupancy {
    held: HashMap<(Entity, GridPos), Entity>,
    /// Agents that waited too long, for [`resolve_waits`].
    waits: Vec<Wait>,
    /// Agents whose path does not pass the cell they hold (agent, cell), to plan again
    /// from there ([`resolve_waits`]).
    lost: Vec<(Entity, GridPos)>,
}

/// An agent (a body `size` across) that waited too long for the next cell of its path, where
/// `holder` holds the cells `taken` of that cell's block.
pub(crate) struct Wait {
    entity: Entity,
    map: Entity,
    here: GridPos,
    size: u32,
    holder: Entity,
    taken: Vec<GridPos>,
}

/// A grid-locked agent standing, as [`LockedStanding`] reads it.
type Stander = (Entity, &'static Transform, &'static mut GridLocked, Option<&'static AgentKind>);

/// The grid-locked agents standing: with no path, or with a path and no follower to walk it.
pub(crate) type LockedStanding<'w, 's> = (
    Query<'w, 's, Stander, Without<NavPath>>,
    Query<'w, 's, Stander, (With<NavPath>, Without<PathFollower>)>,
);

impl Occupancy {
    /// Notes the cells every grid-locked agent holds: its own, and the one it is entering.
    pub(crate) fn gather(
        &mut self,
        maps: &NavMaps,
        walkers: &mut Walkers,
        standing: &mut LockedStanding,
    ) {
        self.held.clear();
        self.waits.clear();
        self.lost.clear();
        let walking = walkers.iter_mut().filter_map(|(entity, transform, _, path, .., lock)| {
            let (at, size) = (transform.translation.truncate(), path.agent.size);
            Some((entity, at, Some(path.map), size, lock?.into_inner()))
        });
        let (no_path, no_follower) = standing;
        let standing = no_path.iter_mut().chain(no_follower.iter_mut()).map(
            |(entity, transform, lock, kind)| {
                let size = kind.map_or(1, |k| k.size);
                (entity, transform.translation.truncate(), None, size, lock.into_inner())
            },
        );
        let all = walking.collect::<Vec<_>>().into_iter().chain(standing);
        for (entity, position, on, size, lock) in all {
            let size = size.clamp(1, MAX_AGENT_SIZE);
            let map = on.or(lock.holds.map(|h| h.0));
            let Some(map) = map.and_then(|m| maps.get(m)).or_else(|| maps.at_world(position))
            else {
                continue;
            };
            // Placed by hand, moved to another map, grown or shrunk, or never seen: it holds
            // the cells under its body.
            if lock.holds.is_none_or(|(m, _)| m != map.entity) || lock.size != size {
                lock.entering = None;
                lock.size = size;
                let corner = position - map.geometry.body_offset(size);
                lock.holds = map.geometry.world_to_cell(corner).ok().map(|cell| (map.entity, cell));
            }
            if let Some((m, _)) = lock.holds {
                for cell in lock.held_cells() {
                    self.held.entry((m, cell)).or_insert(entity);
                }
            }
        }
    }

    /// Another agent than `entity` holding a cell of the block of a body `size` across whose
    /// corner is `corner`, on `map`, and the cells of that block it holds.
    fn holder(
        &self,
        (map, entity): (Entity, Entity),
        corner: GridPos,
        size: u32,
    ) -> Option<(Entity, Vec<GridPos>)> {
        let other = |c: &GridPos| self.held.get(&(map, *c)).copied().filter(|&h| h != entity);
        let holder = footprint(corner, size).find_map(|c| other(&c))?;
        let taken = footprint(corner, size).filter(|c| other(c) == Some(holder)).collect();
        Some((holder, taken))
    }

    /// `entity` holds the block of `corner` on `map`.
    fn take(&mut self, (map, entity): (Entity, Entity), corner: GridPos, size: u32) {
        for cell in footprint(corner, size) {
            self.held.insert((map, cell), entity);
        }
    }

    /// `entity` lets go of the cells of `corner`'s block on `map` that the block of `keep`
    /// (the one it stays in, if any) does not cover.
    fn let_go(
        &mut self,
        (map, entity): (Entity, Entity),
        corner: GridPos,
        keep: Option<GridPos>,
        size: u32,
    ) {
        for cell in footprint(corner, size) {
            let kept = keep.is_some_and(|k| covers(k, size, cell));
            if !kept && self.held.get(&(map, cell)) == Some(&entity) {
                self.held.remove(&(map, cell));
            }
        }
    }

    /// Walks a grid-locked agent one frame along `path`: into the next cell once it is free,
    /// waiting meanwhile. Returns its new position.
    ///
    /// The cells it holds decide where it is, whatever the path says: it finishes the step it
    /// is in, and goes on from its cell along the path. A path that does not go on from there
    /// by a legal step (a new one given mid-step, or changed by hand) is joined where it
    /// passes the cell; one that does not pass it at all is planned again from the cell
    /// ([`resolve_waits`]). So it never holds a cell it does not stand next to, nor walks
    /// through a cell it does not hold.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn step(
        &mut self,
        entity: Entity,
        lock: &mut GridLocked,
        position: Vec2,
        speed: f32,
        dt: f32,
        follower: &mut PathFollower,
        path: &NavPath,
        (map, plans): (&NavMap, &mut CooperativePlans),
        patience: f32,
    ) -> Vec2 {
        let mut budget = speed * dt;
        let mut at = position;
        let grid = map.grid_for(path.agent).unwrap_or(&map.grid);
        let size = lock.size.max(1);
        let offset = map.geometry.body_offset(size);
        let me = (map.entity, entity);
        let mut joined = false;
        while let Some((_, here)) = lock.holds.filter(|(m, _)| *m == map.entity) {
            let want = path.cells.get(follower.next).copied();
            // Where to now: the cell it is entering, its own cell's centre, or the next cell
            // once that is free.
            let target = match (lock.entering, want) {
                (Some(next), _) if !grid.is_passable(next) => {
                    // The cell it was stepping into became a wall: it steps back.
                    self.let_go(me, next, Some(here), size);
                    lock.entering = None;
                    continue;
                }
                (Some(next), _) => next,
                (None, None) => return at,
                (None, Some(want)) if want == here => here,
                (None, Some(want)) if !legal_step(grid, here, want) => {
                    match path.cells.iter().position(|&c| c == here).filter(|_| !joined) {
                        Some(k) => {
                            // It joins the path where it passes its cell (once: a path whose
                            // step on from there is not legal either is planned again).
                            follower.next = k;
                            joined = true;
                            continue;
                        }
                        None => {
                            self.lost.push((entity, here));
                            return at;
                        }
                    }
                }
                // A plan it is in is being made: it stands on its start until then.
                (None, Some(_)) if plans.being_planned(map.entity, entity) => return at,
                // Walking a cooperative plan: its turn in that cell has not come yet, or another
                // planned agent is finishing its step there. (Each wait is for a move planned
                // before; one that lasts, as something outside the plan holds the agents up,
                // has the map planned again.)
                (None, Some(want))
                    if !plans.may_enter(map.entity, entity, want)
                        || self.holder(me, want, size).is_some_and(|(holder, _)| {
                            plans.planned(map.entity, entity) && plans.planned(map.entity, holder)
                        }) =>
                {
                    lock.waited += dt;
                    if lock.waited > PLANNED_PATIENCE * patience {
                        lock.waited = 0.0;
                        plans.plan_again(map.entity);
                    }
                    return at;
                }
                (None, Some(want)) => match self.holder(me, want, size) {
                    Some((holder, taken)) => {
                        lock.waited += dt;
                        if lock.waited > patience {
                            lock.waited = 0.0;
                            let map = map.entity;
                            self.waits.push(Wait { entity, map, here, size, holder, taken });
                        }
                        return at;
                    }
                    None => {
                        self.take(me, want, size);
                        lock.entering = Some(want);
                        lock.waited = 0.0;
                        want
                    }
                },
            };
            let centre = map.geometry.cell_to_world(target) + offset;
            let distance = at.distance(centre);
            if distance > budget {
                return at + (centre - at) / distance * budget;
            }
            budget -= distance;
            at = centre;
            if lock.entering.take().is_some() {
                // In: it lets the cells behind go.
                self.let_go(me, here, Some(target), size);
                lock.holds = Some((map.entity, target));
                plans.left(map.entity, entity, here);
            }
            if path.cells.get(follower.next) == Some(&target) {
                follower.next += 1;
            }
        }
        at
    }

    /// Carries a grid-locked agent across a link to `cell` of `map` if no other agent holds
    /// a cell of its body there (true), letting go of the cells it held; false: it waits at the
    /// link.
    pub(crate) fn cross(
        &mut self,
        entity: Entity,
        lock: &mut GridLocked,
        map: Entity,
        cell: GridPos,
    ) -> bool {
        let size = lock.size.max(1);
        if self.holder((map, entity), cell, size).is_some() {
            return false;
        }
        if let Some((from, here)) = lock.holds {
            for corner in std::iter::once(here).chain(lock.entering) {
                self.let_go((from, entity), corner, None, size);
            }
        }
        self.take((map, entity), cell, size);
        *lock = GridLocked { holds: Some((map, cell)), entering: None, waited: 0.0, size };
        true
    }
}

/// How many times its patience an agent walking a cooperative plan waits for its turn before
/// the map is planned again.
const PLANNED_PATIENCE: f32 = 4.0;

/// True when a grid-locked agent may step from `here` to `want`: a legal step, or, out of a
/// cell that has become a wall, to an open cell next to it (the way out; diagonally only with
/// both side cells open, so as not to cross a wall's corner).
fn legal_step(grid: &NavGrid, here: GridPos, want: GridPos) -> bool {
    let (dx, dy) = (here.x.abs_diff(want.x), here.y.abs_diff(want.y));
    let sides_open = dx + dy < 2
        || grid.neighborhood().is_hex()
        || (grid.is_passable(GridPos::new(here.x, want.y))
            && grid.is_passable(GridPos::new(want.x, here.y)));
    grid.can_step(here, want)
        || (!grid.is_passable(here) && grid.is_passable(want) && dx <= 1 && dy <= 1 && sides_open)
}

/// Agents that waited too long: of two waiting for each other's cells, the one with the larger
/// entity steps aside to a free cell off the other's way and waits there; an agent waiting for
/// a cell someone stands on (or a queue that does not move) plans around the taken cell (or, if
/// there is no way round, the same way again).
pub(crate) fn resolve_waits(
    commands: &mut Commands,
    occupancy: &mut Occupancy,
    maps: &NavMaps,
    walkers: &Walkers,
) {
    for (entity, here) in std::mem::take(&mut occupancy.lost) {
        let Ok((_, _, _, path, replanning, requested, _, yielding, _)) = walkers.get(entity) else {
            continue;
        };
        if requested || replanning {
            continue; // a plan is on its way
        }
        let ((goal_map, goal), options) =
            yielding.map_or(((path.goal_map, path.goal), path.options), |y| y.goal());
        let request = PathRequest {
            goal: PathGoal::OnMap { map: goal_map, cell: goal },
            options: Some(options),
            start: Some(here),
            agent: Some(path.agent),
            arrive: path.arrival,
            when_unreachable: WhenUnreachable::Wait,
        };
        commands.entity(entity).insert(request);
    }
    for wait in std::mem::take(&mut occupancy.waits) {
        let Some(map) = maps.get(wait.map) else {
            continue;
        };
        let Ok((_, _, _, path, _, _, _, yielding, _)) = walkers.get(wait.entity) else {
            continue;
        };
        // Where it is really going (while it steps aside, the goal it stepped aside from).
        let ((goal_map, goal_cell), options) =
            yielding.map_or(((path.goal_map, path.goal), path.options), |y| y.goal());
        let goal = PathGoal::OnMap { map: goal_map, cell: goal_cell };
        // Does the holder (walking) want this agent's cells?
        let holder = walkers.get(wait.holder).ok();
        let their_size = holder.and_then(|h| h.8).map_or(1, |l| l.size);
        let head_on = holder.is_some_and(|(_, _, their_follower, their_path, .., lock)| {
            let entering = lock.is_some_and(|l| l.entering.is_some());
            let wants = their_path.cells.get(their_follower.next);
            !entering && wants.is_some_and(|&w| overlaps((w, their_size), (wait.here, wait.size)))
        });
        // Planning round the holder: every corner from which this body would cover a cell of
        // it that was in the way.
        let around = corners_covering(&wait.taken, wait.size);
        if head_on {
            if wait.entity < wait.holder {
                continue; // the other steps aside
            }
            let their_way: Vec<GridPos> = holder
                .and_then(|(_, _, f, p, ..)| {
                    Some(p.cells.get(f.next.saturating_sub(1)..)?.to_vec())
                })
                .unwrap_or_default();
            // A cell whose block another holds is closed; any whose block is clear of the
            // other's way will do.
            let closed = |c: GridPos| {
                footprint(c, wait.size).any(|cell| {
                    occupancy.held.get(&(map.entity, cell)).is_some_and(|&h| h != wait.entity)
                })
            };
            let off_way =
                |c: GridPos| !their_way.iter().any(|&w| overlaps((w, their_size), (c, wait.size)));
            let grid = map.grid_for(path.agent).unwrap_or(&map.grid);
            if let Some(aside) = side_cell(grid, wait.here, closed, off_way) {
                let yielding = Yielding::new((goal_map, goal_cell), options, (map.entity, aside));
                let request = PathRequest {
                    goal: yielding.side_step(),
                    options: Some(options),
                    start: Some(wait.here),
                    agent: None,
                    arrive: Arrival::AtGoal,
                    when_unreachable: WhenUnreachable::Fail,
                };
                commands.entity(wait.entity).insert((yielding, request, PlanAround(around)));
                continue;
            }
        }
        let request = PathRequest {
            goal,
            options: Some(options),
            start: Some(wait.here),
            agent: None,
            arrive: Arrival::AtGoal,
            when_unreachable: WhenUnreachable::Wait,
        };
        commands.entity(wait.entity).insert((request, PlanAround(around)));
    }
}
