//! What walking agents carry and how the movement system sees them: [`Avoidance`] and
//! [`GridLocked`] (the components a game puts on), [`Yielding`] (an agent stepping aside), the
//! queries of walking and standing agents, and the moves both ways of sharing the ground use
//! (the side cell to step to, the step the grid allows). Below both `avoidance` and `gridlock`.

use std::collections::VecDeque;

use bevy::prelude::*;

use crate::grid::{GridPos, MAX_AGENT_SIZE, NavGrid};
use crate::plugin::AgentKind;
#[cfg(doc)]
use crate::plugin::AvoidanceSettings;
use crate::plugin::agent::{
    Arrival, NavPath, OnNavMap, PathFollower, PathGoal, PathRequest, WhenUnreachable, walks_out,
};
use crate::plugin::map::{NavMap, NavMaps};
use crate::search::{SearchOptions, footprint};

/// Opt-in local avoidance for an agent: with it, a walking agent steers around the other agents
/// that have it (walking or standing), then rejoins its path. `radius` is the body's radius in
/// world units, set by the game ([`Avoidance::new`]) or, by default ([`Avoidance::sized`]),
/// from the agent's size; the plugin keeps the other fields up to date.
///
/// No standoff lasts: after [`AvoidanceSettings::stall_time`] of little headway (its average
/// speed towards its path's next point under a tenth of its speed), an agent
/// blocked by another plans around it, or (two heading into each other) one of the two steps
/// aside to let the other pass; an agent that stalls again before it gets on walks through the
/// others for a second, as if they were not there (a jam in a narrow passage dissolves). One
/// with a request waiting in the queue (the game's, or its own re-plan) walks through them at
/// its first stall, heading back to its path first if it was pushed where a wall stands between
/// it and its next point: how long it stands does not depend on how long the queue is. Passing
/// a point of its path does not count as getting on; only its headway coming back does.
#[derive(Component, Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Component)]
pub struct Avoidance {
    /// The character's radius, in world units: others keep this far plus their own. The
    /// plugin sets it while `sized` is on.
    pub radius: f32,
    /// The radius follows the agent's size: [`SIZED_RADIUS`] of a cell's width on the map it
    /// is on for each tile along its side (its [`AgentKind`]'s size; without one, the size its
    /// path was planned for; else 1), set before it moves each frame, so that it follows a
    /// change of size or a walk onto a map of other tiles. Off for [`Avoidance::new`].
    pub sized: bool,
    /// Last frame's velocity.
    pub velocity: Vec2,
    /// Headway: how fast it has been closing on its path's next point, in world units a second,
    /// averaged over about [`AvoidanceSettings::stall_time`] (a dance on the spot averages
    /// about zero, however fast the feet move).
    pub headway: f32,
    /// Seconds of little headway so far.
    pub stalled: f32,
    /// Stalls since it last passed a point of its path.
    pub stalls: u32,
    /// Seconds it still walks through the others.
    pub passing_through: f32,
}

/// A sized body's radius for each tile along its side, as a share of a cell's width
/// ([`Avoidance::sized`]): four tenths, so that two one-tile bodies pass in a corridor two cells
/// wide and a body of `n` tiles is four fifths of its `n` x `n` tiles' width across.
pub const SIZED_RADIUS: f32 = 0.4;

impl Default for Avoidance {
    /// [`Avoidance::sized`].
    fn default() -> Self {
        Self::sized()
    }
}

impl Avoidance {
    /// Avoidance for a character of this radius, standing still.
    pub fn new(radius: f32) -> Self {
        Self {
            radius,
            sized: false,
            velocity: Vec2::ZERO,
            headway: 0.0,
            stalled: 0.0,
            stalls: 0,
            passing_through: 0.0,
        }
    }

    /// Avoidance for a character whose radius follows its size (see [`sized`](Self::sized)),
    /// standing still. Its radius is 0 until the plugin first sets it.
    pub fn sized() -> Self {
        Self { sized: true, ..Self::new(0.0) }
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

/// The radius of a sized body `size` tiles along a side (read as 1 to [`MAX_AGENT_SIZE`]) on a
/// map whose cells are `cell` world units wide.
pub(crate) fn sized_radius(cell: f32, size: u32) -> f32 {
    SIZED_RADIUS * cell * size.clamp(1, MAX_AGENT_SIZE) as f32
}

/// What sizes a body: its avoidance, where it is, its kind, its path and its map.
type SizedBody<'a> = (
    &'a mut Avoidance,
    &'a Transform,
    Option<&'a AgentKind>,
    Option<&'a NavPath>,
    Option<&'a OnNavMap>,
);

/// Sets the radius of every [`Avoidance::sized`] body from its size and the cells of the map it
/// is on (the map it names, else its path's, else the one under it; on none, it keeps the
/// radius it has). A radius that stays is not written (no change is signalled).
pub(crate) fn size_bodies(maps: Res<NavMaps>, mut bodies: Query<SizedBody>) {
    for (mut body, transform, kind, path, on) in &mut bodies {
        if !body.sized {
            continue;
        }
        let size = kind.map(|k| k.size).or(path.map(|p| p.agent.size)).unwrap_or(1);
        let map = on
            .and_then(|m| maps.get(m.0))
            .or_else(|| path.and_then(|p| maps.get(p.map)))
            .or_else(|| maps.at_world(transform.translation.truncate()));
        let Some(map) = map else { continue };
        let radius = sized_radius(map.geometry.cell_width(), size);
        if body.radius != radius {
            body.radius = radius;
        }
    }
}

/// Grid-locked movement, for games whose characters occupy whole tiles (turn-based games,
/// roguelikes, tile puzzles): at most one agent per cell, an agent steps into the next cell of
/// its path only once that cell is free (it holds both while it moves between them), waits while
/// it is taken, and plans again when the wait lasts. Two agents never swap through each other:
/// each needs the other's cell free first.
///
/// Put this on an agent to make it occupy whole cells: see the module's description. The
/// plugin keeps its fields up to date.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Reflect)]
#[reflect(Component)]
pub struct GridLocked {
    /// The cell it holds, and its map (`None` until the plugin first sees it: then the cell
    /// under it).
    pub holds: Option<(Entity, GridPos)>,
    /// The next cell, held too while it walks there.
    pub entering: Option<GridPos>,
    /// Seconds it has waited for the next cell.
    pub waited: f32,
    /// How many cells along a side its body covers: its kind's size ([`AgentKind::size`]), set
    /// by the plugin (0 until it first sees it, read as 1). A body of size `n` holds the `n` x `n`
    /// block whose lowest corner is the cell in `holds` (and, while it steps, the block it
    /// steps into): its centre stands half a body up and right of that cell's centre.
    pub size: u32,
}

impl GridLocked {
    /// Every cell its body holds on its map: the block of the cell it holds, and of the one it
    /// is entering (a cell held twice is given twice).
    pub fn held_cells(&self) -> impl Iterator<Item = GridPos> + '_ {
        let corners = self.holds.map(|(_, cell)| cell).into_iter().chain(self.entering);
        corners.flat_map(|corner| footprint(corner, self.size))
    }
}

/// The query of walking agents, as the movement system holds it.
pub(crate) type Walkers<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static mut Transform,
        &'static mut PathFollower,
        &'static mut NavPath,
        Has<crate::plugin::agent::Replanning>,
        Has<PathRequest>,
        Option<&'static mut Avoidance>,
        Option<&'static mut Yielding>,
        Option<&'static mut GridLocked>,
    ),
>;

/// The query of agents with [`Avoidance`] and no path.
pub(crate) type Standing<'w, 's> =
    Query<'w, 's, (Entity, &'static Transform, &'static Avoidance), Without<NavPath>>;

/// The query of agents stepping aside with no path (waiting at the side cell).
pub(crate) type Waiting<'w, 's> =
    Query<'w, 's, (Entity, &'static mut Yielding, Has<PathRequest>), Without<NavPath>>;

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

/// The nearest open cell of `grid` (in steps, at most 256 cells searched) that `off_way` says
/// is off the way (see [`off_way`]), reached without entering a cell `closed` says no to.
pub(crate) fn side_cell(
    grid: &NavGrid,
    from: GridPos,
    closed: impl Fn(GridPos) -> bool,
    off_way: impl Fn(GridPos) -> bool,
) -> Option<GridPos> {
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

/// Whether `cell` lies more than `margin` steps (straight) from every cell of `way`.
pub(crate) fn off_way(way: &[GridPos], margin: u32) -> impl Fn(GridPos) -> bool + '_ {
    move |c| !way.iter().any(|w| w.x.abs_diff(c.x) + w.y.abs_diff(c.y) <= margin)
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
            let request = PathRequest {
                goal,
                options: Some(yielding.options),
                start: None,
                agent: None,
                arrive: Arrival::AtGoal,
                when_unreachable: WhenUnreachable::Wait,
            };
            commands.entity(entity).remove::<Yielding>().insert(request);
        }
    }
}

/// Where a step from `from` towards `to` may end on `map`: `to` if its cell is open and one legal
/// step (corner rule included) from `from`'s, else the step along one axis only that is, else
/// `from`. From a cell that has become a wall, a step may end in it or in an open neighbour.
pub(crate) fn clamp_step(map: &NavMap, from: Vec2, to: Vec2) -> Vec2 {
    let (grid, geometry) = (&map.grid, &map.geometry);
    let Ok(start) = geometry.world_to_cell(from) else {
        return from;
    };
    // Caught in a cell that became a wall: it may walk out, into an open neighbour (diagonally
    // only past two open sides), not further in.
    let leaving = !grid.is_passable(start);
    let fits = |p: Vec2| {
        geometry.world_to_cell(p).is_ok_and(|c| match leaving {
            true => c == start || walks_out(grid, start, c),
            false => grid.is_passable(c) && (c == start || grid.can_step(start, c)),
        })
    };
    [to, Vec2::new(to.x, from.y), Vec2::new(from.x, to.y)]
        .into_iter()
        .find(|&p| p.is_finite() && fits(p))
        .unwrap_or(from)
}
