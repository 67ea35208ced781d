//! ORCA (optimal reciprocal collision avoidance, van den Berg, Guy, Lin and Manocha, 2011, the
//! method of RVO2): the velocity an agent takes among its neighbours, by a small linear program
//! over the half-planes each neighbour rules out.

use bevy::prelude::*;

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

/// Below this, lengths and determinants count as zero.
pub(super) const EPSILON: f32 = 1e-5;

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
}
