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

use std::collections::VecDeque;

use bevy::prelude::*;

use super::agent::{Path, PathFollower, PathGoal, PathRequest, PlanAround};
#[cfg(doc)]
use super::settings::AvoidanceSettings;
use super::settings::NavSettings;
use super::tilemap::NavMap;
use crate::grid::GridPos;
use crate::search::SearchOptions;

/// Opt-in local avoidance for an agent: with it, a walking agent steers around the other agents
/// that have it (walking or standing), then rejoins its path. `radius` is the body's radius in
/// world units; the plugin keeps the other fields up to date.
///
/// No standoff lasts: after [`AvoidanceSettings::stall_time`] of little headway, an agent
/// blocked by another plans around it, or (two heading into each other) one of the two steps
/// aside to let the other pass; an agent that stalls again before it gets on walks through the
/// others for a second, as if they were not there (a jam in a narrow passage dissolves).
#[derive(Component, Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Component)]
pub struct Avoidance {
    /// The character's radius, in world units: others keep this far plus their own.
    pub radius: f32,
    /// Last frame's velocity.
    pub velocity: Vec2,
    /// Seconds of little headway so far.
    pub stalled: f32,
    /// Stalls since it last passed a point of its path.
    pub stalls: u32,
    /// Seconds it still walks through the others.
    pub passing_through: f32,
}

impl Avoidance {
    /// Avoidance for a character of this radius, standing still.
    pub fn new(radius: f32) -> Self {
        Self { radius, velocity: Vec2::ZERO, stalled: 0.0, stalls: 0, passing_through: 0.0 }
    }

    /// The radius the avoidance works with: `radius` if it is a number from 0 to
    /// [`MAX_RADIUS`]; a NaN or negative one is read as 0, a larger one (infinite included) as
    /// [`MAX_RADIUS`], so that the avoidance's squares stay finite.
    pub(crate) fn body_radius(&self) -> f32 {
        if self.radius.is_nan() { 0.0 } else { self.radius.clamp(0.0, MAX_RADIUS) }
    }
}

/// The largest body radius avoidance works with, in world units: a larger (or infinite)
/// [`Avoidance::radius`] is read as this. Its square and sums stay far inside `f32`'s range.
pub const MAX_RADIUS: f32 = 1.0e6;

/// A neighbour as avoidance sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Neighbour {
    pub(crate) position: Vec2,
    pub(crate) velocity: Vec2,
    pub(crate) radius: f32,
    /// It avoids too (it is walking): each takes half the care.
    pub(crate) reciprocal: bool,
}

/// [`orca_velocity`]'s memory: the half-planes, and those projected when they cannot all be met.
#[derive(Default)]
pub(crate) struct OrcaScratch {
    lines: Vec<Line>,
    projected: Vec<Line>,
}

/// A half-plane of allowed velocities: those on the left of `direction` through `point`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Line {
    point: Vec2,
    direction: Vec2,
}

const EPSILON: f32 = 1e-5;

fn det(a: Vec2, b: Vec2) -> f32 {
    a.x * b.y - a.y * b.x
}

/// The velocity nearest `preferred`, at most `max_speed` long, that keeps an agent at
/// `position` (radius `radius`, moving at `velocity`) clear of `neighbours` for `horizon`
/// seconds; `dt` is the frame's length. `scratch` is memory reused from call to call.
#[allow(clippy::too_many_arguments)]
pub(crate) fn orca_velocity(
    position: Vec2,
    velocity: Vec2,
    radius: f32,
    preferred: Vec2,
    max_speed: f32,
    neighbours: &[Neighbour],
    horizon: f32,
    dt: f32,
    scratch: &mut OrcaScratch,
) -> Vec2 {
    let OrcaScratch { lines, projected } = scratch;
    lines.clear();
    let inv_horizon = 1.0 / horizon.max(EPSILON);
    for other in neighbours {
        let relative_position = other.position - position;
        let relative_velocity = velocity - other.velocity;
        let dist_sq = relative_position.length_squared();
        let combined = radius + other.radius;
        let combined_sq = combined * combined;
        let (direction, u);
        if dist_sq > combined_sq {
            // No collision yet: the velocity obstacle is a truncated cone.
            let w = relative_velocity - inv_horizon * relative_position;
            let w_length_sq = w.length_squared();
            let dot = w.dot(relative_position);
            if dot < 0.0 && dot * dot > combined_sq * w_length_sq {
                // Nearest to the cut-off circle.
                let w_length = w_length_sq.sqrt().max(EPSILON);
                let unit_w = w / w_length;
                direction = Vec2::new(unit_w.y, -unit_w.x);
                u = (combined * inv_horizon - w_length) * unit_w;
            } else {
                // Nearest to a leg of the cone.
                let leg = (dist_sq - combined_sq).sqrt();
                direction = if det(relative_position, w) > 0.0 {
                    Vec2::new(
                        relative_position.x * leg - relative_position.y * combined,
                        relative_position.x * combined + relative_position.y * leg,
                    ) / dist_sq
                } else {
                    -Vec2::new(
                        relative_position.x * leg + relative_position.y * combined,
                        -relative_position.x * combined + relative_position.y * leg,
                    ) / dist_sq
                };
                u = relative_velocity.dot(direction) * direction - relative_velocity;
            }
        } else {
            // Already overlapping: get apart within this frame.
            let inv_dt = 1.0 / dt.max(EPSILON);
            let w = relative_velocity - inv_dt * relative_position;
            let w_length = w.length().max(EPSILON);
            let unit_w = w / w_length;
            direction = Vec2::new(unit_w.y, -unit_w.x);
            u = (combined * inv_dt - w_length) * unit_w;
        }
        let share = if other.reciprocal { 0.5 } else { 1.0 };
        lines.push(Line { point: velocity + share * u, direction });
    }
    let mut result = Vec2::ZERO;
    let failed = linear_program_2(lines, max_speed, preferred, false, &mut result);
    if failed < lines.len() {
        linear_program_3(lines, failed, max_speed, &mut result, projected);
    }
    if result.is_finite() { result } else { Vec2::ZERO }
}

/// The best velocity on line `line_no` within speed `radius` that the lines before it allow;
/// false if there is none.
fn linear_program_1(
    lines: &[Line],
    line_no: usize,
    radius: f32,
    optimum: Vec2,
    direction_opt: bool,
    result: &mut Vec2,
) -> bool {
    let line = lines[line_no];
    let dot = line.point.dot(line.direction);
    let discriminant = dot * dot + radius * radius - line.point.length_squared();
    if discriminant < 0.0 {
        return false; // the speed circle misses the line
    }
    let sqrt_disc = discriminant.sqrt();
    let (mut t_left, mut t_right) = (-dot - sqrt_disc, -dot + sqrt_disc);
    for other in &lines[..line_no] {
        let denominator = det(line.direction, other.direction);
        let numerator = det(other.direction, line.point - other.point);
        if denominator.abs() <= EPSILON {
            // Parallel lines.
            if numerator < 0.0 {
                return false;
            }
            continue;
        }
        let t = numerator / denominator;
        if denominator >= 0.0 {
            t_right = t_right.min(t);
        } else {
            t_left = t_left.max(t);
        }
        if t_left > t_right {
            return false;
        }
    }
    *result = if direction_opt {
        if optimum.dot(line.direction) > 0.0 {
            line.point + t_right * line.direction
        } else {
            line.point + t_left * line.direction
        }
    } else {
        // Not `clamp`: it panics on NaN bounds, and no input may make the plugin panic.
        let t = line.direction.dot(optimum - line.point).max(t_left).min(t_right);
        line.point + t * line.direction
    };
    true
}

/// The velocity nearest `optimum` within speed `radius` that every line allows; on failure,
/// the index of the line that could not be met (`result` then holds the best so far).
fn linear_program_2(
    lines: &[Line],
    radius: f32,
    optimum: Vec2,
    direction_opt: bool,
    result: &mut Vec2,
) -> usize {
    *result = if direction_opt {
        optimum * radius
    } else if optimum.length_squared() > radius * radius {
        optimum.normalize_or_zero() * radius
    } else {
        optimum
    };
    for i in 0..lines.len() {
        if det(lines[i].direction, lines[i].point - *result) > 0.0 {
            let before = *result;
            if !linear_program_1(lines, i, radius, optimum, direction_opt, result) {
                *result = before;
                return i;
            }
        }
    }
    lines.len()
}

/// When no velocity meets every line (a dense crowd): the one that breaks them least.
fn linear_program_3(
    lines: &[Line],
    begin: usize,
    radius: f32,
    result: &mut Vec2,
    projected: &mut Vec<Line>,
) {
    let mut distance = 0.0;
    for i in begin..lines.len() {
        if det(lines[i].direction, lines[i].point - *result) > distance {
            projected.clear();
            for j in 0..i {
                let determinant = det(lines[i].direction, lines[j].direction);
                let point = if determinant.abs() <= EPSILON {
                    if lines[i].direction.dot(lines[j].direction) > 0.0 {
                        continue; // same direction
                    }
                    0.5 * (lines[i].point + lines[j].point)
                } else {
                    lines[i].point
                        + (det(lines[j].direction, lines[i].point - lines[j].point) / determinant)
                            * lines[i].direction
                };
                let direction = (lines[j].direction - lines[i].direction).normalize_or_zero();
                projected.push(Line { point, direction });
            }
            let before = *result;
            let towards = Vec2::new(-lines[i].direction.y, lines[i].direction.x);
            if linear_program_2(projected, radius, towards, true, result) < projected.len() {
                *result = before;
            }
            distance = det(lines[i].direction, lines[i].point - *result);
        }
    }
}

/// Agents' positions bucketed in square cells of `size` world units over the box they occupy
/// (a counting sort: each bucket's agents lie together), to find the neighbours of each without
/// looking at every other.
#[derive(Default)]
pub(crate) struct SpatialHash {
    size: f32,
    origin: Vec2,
    /// Buckets across and down.
    dims: (usize, usize),
    /// Where each bucket's agents begin in `agents` (one more entry than buckets).
    starts: Vec<u32>,
    agents: Vec<u32>,
    /// Scratch: each agent's bucket.
    buckets: Vec<u32>,
}

/// At most this many buckets: a crowd spread thin over a huge area gets larger ones.
const MAX_BUCKETS: usize = 1 << 20;

impl SpatialHash {
    /// Buckets `positions` (non-finite ones left out) in cells of `size`.
    pub(crate) fn build(&mut self, size: f32, positions: impl Iterator<Item = Vec2> + Clone) {
        let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
        for p in positions.clone().filter(|p| p.is_finite()) {
            lo = lo.min(p);
            hi = hi.max(p);
        }
        self.starts.clear();
        self.agents.clear();
        self.buckets.clear();
        if lo.x > hi.x {
            self.dims = (0, 0);
            return;
        }
        // Counted in floats: positions near `f32::MAX` apart make the span infinite, and a
        // count in integers would overflow. Past every finite size, one bucket holds all.
        let span = hi - lo;
        let across = |size: f32| ((span.x / size).floor() + 1.0, (span.y / size).floor() + 1.0);
        let mut size = if size.is_finite() { size.max(EPSILON) } else { f32::MAX };
        while size < f32::MAX && across(size).0 * across(size).1 > MAX_BUCKETS as f32 {
            size = (size * 2.0).min(f32::MAX);
        }
        let (x, y) = across(size);
        self.size = size;
        self.origin = lo;
        self.dims = if x * y <= MAX_BUCKETS as f32 { (x as usize, y as usize) } else { (1, 1) };
        self.starts.resize(self.dims.0 * self.dims.1 + 1, 0);
        for p in positions {
            let b = if p.is_finite() {
                let (x, y) = self.bucket_of(p);
                (y * self.dims.0 + x) as u32
            } else {
                u32::MAX
            };
            self.buckets.push(b);
            if b != u32::MAX {
                self.starts[b as usize + 1] += 1;
            }
        }
        for k in 1..self.starts.len() {
            self.starts[k] += self.starts[k - 1];
        }
        let mut next = self.starts.clone();
        self.agents.resize(self.starts[self.starts.len() - 1] as usize, 0);
        for (i, &b) in self.buckets.iter().enumerate() {
            if b != u32::MAX {
                self.agents[next[b as usize] as usize] = i as u32;
                next[b as usize] += 1;
            }
        }
    }

    fn bucket_of(&self, p: Vec2) -> (usize, usize) {
        let q = ((p - self.origin) / self.size).max(Vec2::ZERO);
        ((q.x as usize).min(self.dims.0 - 1), (q.y as usize).min(self.dims.1 - 1))
    }

    /// Calls `found` with the index of every agent in the buckets within `reach` of `at`.
    pub(crate) fn near(&self, at: Vec2, reach: f32, mut found: impl FnMut(usize)) {
        if !at.is_finite() || self.dims.0 == 0 {
            return;
        }
        let (x0, y0) = self.bucket_of(at - Vec2::splat(reach));
        let (x1, y1) = self.bucket_of(at + Vec2::splat(reach));
        for y in y0..=y1 {
            let row = y * self.dims.0;
            let (from, to) = (self.starts[row + x0] as usize, self.starts[row + x1 + 1] as usize);
            for &i in &self.agents[from..to] {
                found(i as usize);
            }
        }
    }
}

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

/// The query of walking agents, as the movement system holds it.
pub(crate) type Walkers<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static mut Transform,
        &'static mut PathFollower,
        &'static mut Path,
        Has<super::agent::Replanning>,
        Has<PathRequest>,
        Option<&'static mut Avoidance>,
        Option<&'static mut Yielding>,
        Option<&'static mut super::gridlock::GridLocked>,
    ),
>;

/// The query of agents with [`Avoidance`] and no path.
pub(crate) type Standing<'w, 's> =
    Query<'w, 's, (Entity, &'static Transform, &'static Avoidance), Without<Path>>;

/// The query of agents stepping aside with no path (waiting at the side cell).
pub(crate) type Waiting<'w, 's> =
    Query<'w, 's, (Entity, &'static mut Yielding, Has<PathRequest>), Without<Path>>;

/// An agent that made too little headway for too long, for [`resolve_stall`].
pub(crate) struct Stall {
    pub(crate) entity: Entity,
    pub(crate) at: Vec2,
    pub(crate) map: Entity,
    pub(crate) radius: f32,
}

/// On an agent stepping aside to let another pass: where it was going, and how long it still
/// waits once at the side cell.
#[derive(Component, Clone, Copy, Debug)]
pub(crate) struct Yielding {
    goal_map: Entity,
    goal: GridPos,
    options: SearchOptions,
    wait: f32,
    pub(crate) arrived: bool,
    /// The side cell it steps to.
    pub(crate) aside_map: Entity,
    pub(crate) aside: GridPos,
}

impl Yielding {
    /// Stepping aside from the way to `goal` on `goal_map` to `aside` on `aside_map`.
    pub(crate) fn new(
        (goal_map, goal): (Entity, GridPos),
        options: SearchOptions,
        (aside_map, aside): (Entity, GridPos),
    ) -> Self {
        Self { goal_map, goal, options, wait: 1.0, arrived: false, aside_map, aside }
    }

    /// Where it was going, and how.
    pub(crate) fn goal(&self) -> ((Entity, GridPos), SearchOptions) {
        ((self.goal_map, self.goal), self.options)
    }

    /// The request for the side step.
    pub(crate) fn side_step(&self) -> PathGoal {
        PathGoal::OnMap { map: self.aside_map, cell: self.aside }
    }
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
        path: &Path,
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
        // Headway: less than a quarter of what it wanted, and not there yet.
        let held_back = wanted > 0.0 && (at - position).length() < 0.25 * wanted * dt;
        if held_back {
            body.stalled += dt;
        } else {
            body.stalled = 0.0;
        }
        // Points passed: the next one within the body's radius (or a frame's walk). The last
        // one: reached; or, held back from it, within the body's radius of it, or a little
        // farther when someone stands on it (as close as it gets: the agent arrives where it
        // is, and `Arrived` says whether that is the goal's cell).
        let near_enough = radius.max(speed * dt);
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
            if last
                && !(held_back
                    && (distance <= radius || (distance <= 3.0 * radius + near_enough && taken())))
            {
                break;
            }
            if !last && distance > near_enough {
                break;
            }
            follower.next = path.next_target_after(follower.next);
            body.stalls = 0; // getting on
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
    let Ok(here) = map.geometry.world_to_cell(stall.at) else {
        return;
    };
    // Where it is really going: its path's goal, or, while it steps aside, the goal it stepped
    // aside from.
    let (goal_map, goal_cell, options) = match yielding {
        Some(y) => (y.goal_map, y.goal, y.options),
        None => (path.goal_map, path.goal, path.options),
    };
    let goal = PathGoal::OnMap { map: goal_map, cell: goal_cell };
    let replan = |commands: &mut Commands, around: Vec<GridPos>| {
        let request = PathRequest { goal, options: Some(options), start: Some(here), agent: None };
        commands.entity(stall.entity).insert((request, PlanAround(around)));
    };
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
    let Some(aside) = side_cell(map, here, |c| Some(c) == blocker_cell, &their_way, 1) else {
        replan(commands, blocker_cell.into_iter().collect());
        return;
    };
    let wait = 1.0;
    let yielding = Yielding {
        goal_map,
        goal: goal_cell,
        options,
        wait,
        arrived: false,
        aside_map: map.entity,
        aside,
    };
    commands.entity(stall.entity).insert((
        yielding,
        PathRequest {
            goal: yielding.side_step(),
            options: Some(SearchOptions { partial: true, ..options }),
            start: Some(here),
            agent: None,
        },
        PlanAround(blocker_cell.into_iter().collect()),
    ));
}

/// The nearest open cell (in steps, at most 256 cells searched) farther than `margin` straight
/// steps from every cell of `way`, reached without entering a cell `closed` says no to.
pub(crate) fn side_cell(
    map: &NavMap,
    from: GridPos,
    closed: impl Fn(GridPos) -> bool,
    way: &[GridPos],
    margin: u32,
) -> Option<GridPos> {
    let grid = &map.grid;
    let off_way = |c: GridPos| !way.iter().any(|w| w.x.abs_diff(c.x) + w.y.abs_diff(c.y) <= margin);
    let mut seen = vec![from];
    let mut queue = VecDeque::from([from]);
    while let Some(cell) = queue.pop_front() {
        if cell != from && off_way(cell) {
            return Some(cell);
        }
        if seen.len() > 256 {
            break;
        }
        for (next, _) in grid.neighbors(cell) {
            if !closed(next) && !seen.contains(&next) {
                seen.push(next);
                queue.push_back(next);
            }
        }
    }
    None
}

/// Agents waiting at a side cell: when the wait is over they ask again for their own goal.
pub(crate) fn tick_yielding(commands: &mut Commands, waiting: &mut Waiting, dt: f32) {
    for (entity, mut yielding, requested) in waiting.iter_mut() {
        if requested {
            continue;
        }
        yielding.wait -= if yielding.arrived { dt } else { 0.0 };
        // Stopped short of the side cell (its request failed) counts as there.
        yielding.arrived = true;
        if yielding.wait <= 0.0 {
            let goal = PathGoal::OnMap { map: yielding.goal_map, cell: yielding.goal };
            let request =
                PathRequest { goal, options: Some(yielding.options), start: None, agent: None };
            commands.entity(entity).remove::<Yielding>().insert(request);
        }
    }
}

/// Where a step from `from` towards `to` may end on `map`: `to` if its cell is open and one legal
/// step (corner rule included) from `from`'s, else the step along one axis only that is, else
/// `from`.
pub(crate) fn clamp_step(map: &NavMap, from: Vec2, to: Vec2) -> Vec2 {
    let (grid, geometry) = (&map.grid, &map.geometry);
    let Ok(start) = geometry.world_to_cell(from) else {
        return from;
    };
    let fits = |p: Vec2| {
        geometry
            .world_to_cell(p)
            .is_ok_and(|c| grid.is_passable(c) && (c == start || grid.can_step(start, c)))
    };
    [to, Vec2::new(to.x, from.y), Vec2::new(from.x, to.y)]
        .into_iter()
        .find(|&p| p.is_finite() && fits(p))
        .unwrap_or(from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(positions: &mut [Vec2], velocities: &mut [Vec2], goals: &[Vec2], radius: f32) {
        let dt = 0.05;
        let mut scratch = OrcaScratch::default();
        let snapshot: Vec<(Vec2, Vec2)> =
            positions.iter().copied().zip(velocities.iter().copied()).collect();
        for i in 0..positions.len() {
            let neighbours: Vec<Neighbour> = snapshot
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, &(position, velocity))| Neighbour {
                    position,
                    velocity,
                    radius,
                    reciprocal: true,
                })
                .collect();
            let to_goal = goals[i] - positions[i];
            let preferred = to_goal.clamp_length_max(1.0);
            let v = orca_velocity(
                positions[i],
                velocities[i],
                radius,
                preferred,
                1.0,
                &neighbours,
                2.0,
                dt,
                &mut scratch,
            );
            velocities[i] = v;
        }
        for (p, v) in positions.iter_mut().zip(velocities.iter()) {
            *p += *v * dt;
        }
    }

    #[test]
    fn two_agents_head_on_pass_each_other_without_touching() {
        let radius = 0.25;
        // Nearly on one line (exactly on one, ORCA's two half-planes are mirror images and the
        // two stop face to face: the movement system's stall handling is for that).
        let mut positions = vec![Vec2::new(-3.0, 0.02), Vec2::new(3.0, -0.02)];
        let mut velocities = vec![Vec2::ZERO; 2];
        let goals = [Vec2::new(3.0, 0.02), Vec2::new(-3.0, -0.02)];
        let mut closest = f32::INFINITY;
        for _ in 0..400 {
            step(&mut positions, &mut velocities, &goals, radius);
            closest = closest.min(positions[0].distance(positions[1]));
        }
        assert!(closest >= 2.0 * radius * 0.99, "came within {closest}");
        for (p, g) in positions.iter().zip(goals) {
            assert!(p.distance(g) < 0.05, "{p} short of {g}");
        }
    }

    #[test]
    fn the_spatial_hash_finds_every_agent_within_reach() {
        let points: Vec<Vec2> =
            (0..200).map(|i| Vec2::new((i * 37 % 101) as f32, (i * 53 % 89) as f32)).collect();
        let mut hash = SpatialHash::default();
        hash.build(4.0, points.iter().copied());
        for (i, &at) in points.iter().enumerate() {
            let mut found = Vec::new();
            hash.near(at, 6.0, |j| found.push(j));
            for (j, &other) in points.iter().enumerate() {
                if other.distance(at) <= 6.0 {
                    assert!(found.contains(&j), "{i}: missed {j}");
                }
            }
        }
    }
}
