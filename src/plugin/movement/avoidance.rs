//! Local avoidance between moving characters: ORCA (optimal reciprocal collision avoidance, van
//! den Berg, Guy, Lin and Manocha, 2011, the method of RVO2), with neighbours found through a
//! spatial hash so that the work grows with the crowd's density, not its square.
//!
//! Each walking agent wants to head for the next point of its path at its speed. Every
//! neighbour within reach rules out a half-plane of velocities (those that would bring the two
//! within their radii before the time horizon, the moving neighbour taking half the care, a
//! standing one none); a small linear program picks the allowed velocity nearest the wanted one.
//! The grid then has the last word: a step that would enter a blocked cell or cut a blocked
//! corner is cut back (see `movement`).

use bevy::prelude::*;

use super::orca::{Neighbour, OrcaScratch, orca_velocity};
use super::spatial_hash::SpatialHash;
use super::walkers::{Avoidance, Standing, Walkers, Yielding, clamp_step, off_way, side_cell};
use crate::grid::GridPos;
use crate::plugin::agent::{
    Arrival, NavPath, PathFollower, PathGoal, PathRequest, PlanAround, WhenUnreachable, agent_start,
};
use crate::plugin::map::NavMap;
use crate::plugin::settings::NavSettings;
use crate::search::SearchOptions;

/// An agent with [`Avoidance`] as the others see it this frame.
#[derive(Clone, Copy, Debug)]
struct Body {
    entity: Entity,
    position: Vec2,
    velocity: Vec2,
    radius: f32,
    walking: bool,
}

/// The movement system's avoidance state, kept between frames for its memory.
#[derive(Default)]
pub(crate) struct Crowd {
    bodies: Vec<Body>,
    /// The largest radius among them.
    widest: f32,
    hash: SpatialHash,
    neighbours: Vec<(f32, Neighbour)>,
    near: Vec<Neighbour>,
    orca: OrcaScratch,
}

/// An agent that made too little headway for too long, for [`resolve_stall`].
pub(crate) struct Stall {
    pub(crate) entity: Entity,
    pub(crate) at: Vec2,
    pub(crate) map: Entity,
    pub(crate) radius: f32,
}

impl Crowd {
    /// Notes every agent with [`Avoidance`]: where it is, how it moves, how big it is.
    pub(crate) fn gather(&mut self, walkers: &Walkers, standing: &Standing, reach: f32) {
        self.bodies.clear();
        for (entity, transform, _, _, _, _, body, ..) in walkers {
            if let Some(body) = body {
                let position = transform.translation.truncate();
                self.bodies.push(Body {
                    entity,
                    position,
                    velocity: if body.velocity.is_finite() { body.velocity } else { Vec2::ZERO },
                    radius: body.body_radius(),
                    walking: true,
                });
            }
        }
        for (entity, transform, body) in standing {
            let position = transform.translation.truncate();
            self.bodies.push(Body {
                entity,
                position,
                velocity: Vec2::ZERO,
                radius: body.body_radius(),
                walking: false,
            });
        }
        // Buckets as wide as the farthest an agent looks (its reach plus a neighbour's radius):
        // a query reads two or three buckets each way.
        self.widest = self.bodies.iter().map(|b| b.radius).fold(0.0f32, f32::max);
        let size = self.widest * (reach.max(1.0) + 2.0);
        self.hash.build(size.max(1.0), self.bodies.iter().map(|b| b.position));
    }

    /// Moves a walking agent one frame: towards its path's next point, round the others, never
    /// into a blocked cell or across a blocked corner; notes its velocity and whether it is
    /// stalled. Returns its new position.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn steer(
        &mut self,
        entity: Entity,
        body: &mut Avoidance,
        position: Vec2,
        speed: f32,
        dt: f32,
        follower: &mut PathFollower,
        path: &NavPath,
        map: &NavMap,
        settings: &NavSettings,
    ) -> Vec2 {
        let Some(&target) = path.points.get(follower.next) else {
            return position;
        };
        let last = path.next_target_after(follower.next) >= path.points.len();
        let to = target - position;
        let distance = to.length();
        // Slow down onto the last point rather than overshoot it.
        let wanted = if last { speed.min(distance / dt) } else { speed };
        let preferred = if distance > 0.0 { to / distance * wanted } else { Vec2::ZERO };
        // The nearest neighbours within reach.
        let radius = body.body_radius();
        let reach = radius * settings.avoidance.reach.max(1.0) + radius;
        self.neighbours.clear();
        let (bodies, neighbours) = (&self.bodies, &mut self.neighbours);
        self.hash.near(position, reach + self.widest, |i| {
            let other = bodies[i];
            let gap = other.position.distance(position) - other.radius;
            if other.entity != entity && gap <= reach {
                let n = Neighbour {
                    position: other.position,
                    velocity: other.velocity,
                    radius: other.radius,
                    reciprocal: other.walking,
                };
                neighbours.push((gap, n));
            }
        });
        self.neighbours.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
        self.neighbours.truncate(settings.avoidance.max_neighbours);
        if body.passing_through > 0.0 {
            body.passing_through -= dt;
            self.neighbours.clear();
        }
        self.near.clear();
        self.near.extend(self.neighbours.iter().map(|(_, n)| *n));
        let velocity = orca_velocity(
            position,
            body.velocity,
            radius,
            preferred,
            speed,
            &self.near,
            settings.avoidance.time_horizon,
            dt,
            &mut self.orca,
        );
        let at = clamp_step(map, position, position + velocity * dt);
        body.velocity = (at - position) / dt;
        // Held back this frame: it moved less than a quarter of what it wanted.
        let held_back = wanted > 0.0 && (at - position).length() < 0.25 * wanted * dt;
        // Headway, averaged over about `stall_time`: how fast it closed on its point. An agent
        // dancing round others in a doorway moves at full speed and gets nowhere; this sees it.
        let closing = (distance - at.distance(target)) / dt;
        let weight = (dt / settings.avoidance.stall_time.max(dt)).min(1.0);
        if !body.headway.is_finite() {
            body.headway = 0.0;
        }
        body.headway += (closing - body.headway) * weight;
        // Stalled below a tenth of what it wants; free again only above a quarter (an average
        // that wavers between the two neither stalls nor frees it). Two stalls in a row
        // without getting back above half its speed make it walk through the others.
        if wanted > 0.0 && body.headway < 0.1 * wanted {
            body.stalled += dt;
        } else if wanted <= 0.0 || body.headway >= 0.25 * wanted {
            body.stalled = 0.0;
        }
        if body.headway >= 0.5 * wanted {
            body.stalls = 0; // getting on
        }
        // Points passed: the next one within the body's radius (or a frame's walk). The last
        // one: reached; or, held back from it, within the body's radius of it, or a little
        // farther when someone stands on it (as close as it gets: the agent arrives where it
        // is, and `Arrived` says whether that is the goal's cell); or, jostled round it by a
        // crowd passing through for half the stall time, within a body of it.
        let near_enough = radius.max(speed * dt);
        let jostled = body.stalled >= 0.5 * settings.avoidance.stall_time;
        while let Some(&point) = path.points.get(follower.next) {
            let last = path.next_target_after(follower.next) >= path.points.len();
            let distance = at.distance(point);
            if last && distance <= 1e-3 * near_enough.max(1.0) {
                follower.next = path.points.len();
                return point;
            }
            // Someone stands on it: as close as it gets is a body or two away.
            let taken = || {
                self.near
                    .iter()
                    .any(|n| !n.reciprocal && n.position.distance(point) < n.radius + radius)
            };
            let close = distance <= radius || (distance <= 3.0 * radius + near_enough && taken());
            if last && !(held_back && close) && !(jostled && distance <= 2.0 * radius + near_enough)
            {
                break;
            }
            if !last && distance > near_enough {
                break;
            }
            follower.next = path.next_target_after(follower.next);
        }
        at
    }

    /// The agent with [`Avoidance`] in the way of `stall`'s: the nearest one touching or nearly
    /// so, on the side it wants to go.
    fn blocker(&self, stall: &Stall, towards: Vec2) -> Option<Body> {
        let mut best: Option<(f32, Body)> = None;
        self.hash.near(stall.at, stall.radius * 8.0, |i| {
            let other = self.bodies[i];
            let offset = other.position - stall.at;
            let gap = offset.length() - other.radius - stall.radius;
            let ahead = towards == Vec2::ZERO || offset.dot(towards) > 0.0;
            if other.entity != stall.entity
                && ahead
                && gap <= stall.radius
                && best.is_none_or(|(g, _)| gap < g)
            {
                best = Some((gap, other));
            }
        });
        best.map(|(_, b)| b)
    }
}

/// Whether the grid, not a body, keeps an agent of `radius` at `at` from heading `towards` its
/// next point: a step of its radius that way (a quarter of the way at least) ends little
/// nearer, cut back by a wall or a blocked corner.
fn grid_in_the_way(map: &NavMap, at: Vec2, towards: Vec2, radius: f32) -> bool {
    let gap = towards.length();
    if gap <= 0.0 || !gap.is_finite() {
        return false;
    }
    let reach = gap.min(radius.max(0.25 * gap));
    let got = clamp_step(map, at, at + towards / gap * reach);
    got.distance(at + towards) > gap - 0.5 * reach
}

/// A stalled agent that cannot ask for a plan (one it or the game asked for waits to be
/// answered) gets on by itself, however long the request queue: pushed off its path where a
/// wall stands between it and its next point, it heads back for the furthest cell of its path
/// so far that is one legal step from where it stands; and it walks through the others for a
/// second.
pub(crate) fn get_on_alone(
    body: &mut Avoidance,
    follower: &mut PathFollower,
    path: &NavPath,
    map: &NavMap,
    at: Vec2,
) {
    body.stalled = 0.0;
    body.stalls = 0;
    body.passing_through = 1.0;
    let Some(&next) = path.points.get(follower.next) else {
        return;
    };
    if !grid_in_the_way(map, at, next - at, body.body_radius()) {
        return;
    }
    let grid = map.grid_for(path.agent).unwrap_or(&map.grid);
    // Where it stands as its path's cells count (a larger body: its lowest corner).
    let Ok(here) = agent_start(map, grid, path.agent, at, None) else {
        return;
    };
    let back = (0..=follower.next.min(path.cells.len().saturating_sub(1))).rev().find(|&i| {
        let cell = path.cells[i];
        cell == here || grid.can_step(here, cell)
    });
    if let Some(i) = back {
        follower.next = i;
    }
}

/// A stalled agent: if another walking agent heading into it blocks it, the one of the two with
/// the larger entity steps aside to a cell off the other's way and waits there, then goes on;
/// the other keeps going (one walking the same way ahead is waited for). If a standing agent blocks it, it plans around that one. If nothing does (a
/// corner), it plans again from where it stands.
pub(crate) fn resolve_stall(
    commands: &mut Commands,
    crowd: &Crowd,
    walkers: &Walkers,
    map: &NavMap,
    stall: Stall,
) {
    let Ok((_, _, follower, path, _, _, _, yielding, _)) = walkers.get(stall.entity) else {
        return;
    };
    let towards = path.points.get(follower.next).map_or(Vec2::ZERO, |p| *p - stall.at);
    // Where it plans from: the cell it stands in, or, caught in a new wall, an open neighbour.
    let Some(grid) = map.grid_for(path.agent) else {
        return;
    };
    let Ok(here) = agent_start(map, grid, path.agent, stall.at, None) else {
        return;
    };
    // Where it is really going: its path's goal, or, while it steps aside, the goal it stepped
    // aside from.
    let ((goal_map, goal_cell), options) = match yielding {
        Some(y) => y.goal(),
        None => ((path.goal_map, path.goal), path.options),
    };
    let goal = PathGoal::OnMap { map: goal_map, cell: goal_cell };
    let replan = |commands: &mut Commands, around: Vec<GridPos>| {
        let request = PathRequest {
            goal,
            options: Some(options),
            start: None,
            agent: None,
            arrive: Arrival::AtGoal,
            when_unreachable: WhenUnreachable::Wait,
        };
        commands.entity(stall.entity).insert((request, PlanAround(around)));
    };
    // The grid, not a body, in the way: pushed off its path, it may stand where the straight
    // line to its next point crosses a wall or a blocked corner (walking through the others
    // would not help). It plans again from where it is.
    if grid_in_the_way(map, stall.at, towards, stall.radius) {
        replan(commands, Vec::new());
        return;
    }
    let Some(blocker) = crowd.blocker(&stall, towards) else {
        replan(commands, Vec::new());
        return;
    };
    let blocker_cell = map.geometry.world_to_cell(blocker.position).ok();
    if !blocker.walking {
        replan(commands, blocker_cell.into_iter().collect());
        return;
    }
    // Only two heading into each other need one to step aside; one walking the same way
    // ahead will move on.
    let their_heading = walkers
        .get(blocker.entity)
        .ok()
        .and_then(|(_, t, f, p, ..)| Some(*p.points.get(f.next)? - t.translation.truncate()));
    let head_on = their_heading.is_some_and(|h| h.dot(towards) < 0.0);
    if !head_on || stall.entity < blocker.entity {
        return; // it waits, or the other steps aside
    }
    // Step aside: the nearest open cell off the other's remaining way.
    let their_way: Vec<GridPos> = walkers
        .get(blocker.entity)
        .map(|(_, _, f, p, ..)| {
            p.cells.get(f.next.saturating_sub(1)..).unwrap_or_default().to_vec()
        })
        .unwrap_or_default();
    // Bodies pass side by side: a cell next to the way is not enough.
    let closed = |c| Some(c) == blocker_cell;
    let Some(aside) = side_cell(&map.grid, here, closed, off_way(&their_way, 1)) else {
        replan(commands, blocker_cell.into_iter().collect());
        return;
    };
    let yielding = Yielding::new((goal_map, goal_cell), options, (map.entity, aside));
    commands.entity(stall.entity).insert((
        yielding,
        PathRequest {
            goal: yielding.side_step(),
            options: Some(SearchOptions { partial: true, ..options }),
            start: None,
            agent: None,
            arrive: Arrival::AtGoal,
            when_unreachable: WhenUnreachable::Fail,
        },
        PlanAround(blocker_cell.into_iter().collect()),
    ));
}
