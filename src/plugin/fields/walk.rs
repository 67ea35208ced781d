//! Field followers walked straight off the field, a waypoint at a time.

use bevy::prelude::*;

use super::super::agent::{
    Arrival, NavError, NavPath, OnNavMap, PathFailed, PathFollower, PathRequest, Tell, stands_on,
};
use super::super::clock::Moment;
use super::super::diagnostics::NavDiagnostics;
use super::super::map::WorldToCellError;
use super::super::map::{NavMap, NavMaps};
use super::super::movement::{Avoidance, GridLocked};
use super::super::profiles::AgentKind;
use super::field::{
    FieldsToExtend, FollowField, NavField, ReadFrom, beyond, no_field, tell_no_field,
};
use crate::grid::GridPos;
use crate::grid::line::segment_cost;
use crate::grid::{GridStamp, NavGrid};
use crate::search::{DistanceField, PathError};

/// Where a [`FollowField`] agent that walks straight off its field is going.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub(crate) struct FieldWalk {
    /// The field and its state the target was read from, and the field's map then.
    field: Entity,
    revision: u64,
    map: Entity,
    /// The point it walks to, and that point's cell.
    target: Option<(Vec2, GridPos)>,
    /// That cell as read off the field, read on the walker's own frame before it gets there
    /// ([`READ_AHEAD`]): a horde that reaches cells together does not read them all in one
    /// frame.
    ahead: Option<Here>,
    /// The last waypoint's cell (open when it got there): where it steps back to when it
    /// finds itself in a wall.
    from: GridPos,
    /// Where this system last put it: moved by anything else, it reads its way afresh.
    at: Vec2,
    /// At a goal, or told it has no way: it stands until the field changes or it is moved.
    resting: bool,
    /// Told it has no way (its [`PathFailed`] is taken off when it finds one).
    told: bool,
}

/// Walkers read the cell they walk to on one frame in this many, each on its own (by its entity's
/// index), not all on the frame they reach it: a horde started on cell centres reaches its
/// cells together, and frames where every walker reads at once miss the cache (BENCHMARKS.md,
/// "Measurements behind the code").
const READ_AHEAD: u32 = 8;

/// How many cells down the field a smoothed walker looks for a straight line.
const LOOK_AHEAD: usize = 12;

/// Where a kind of walker stands on a field's map: the map, the grid its field was built on (the
/// map's own, or its kind's), and where its body's centre lies from its lowest corner cell's
/// centre (zero for size 1).
#[derive(Clone, Copy)]
pub(super) struct Footing<'a> {
    pub(super) map: &'a NavMap,
    pub(super) grid: &'a NavGrid,
    pub(super) offset: Vec2,
}

impl<'a> Footing<'a> {
    /// Agents of kind `agent` on `map` (`None` until the map has that kind's grid).
    pub(super) fn of(map: &'a NavMap, agent: AgentKind) -> Option<Self> {
        let offset = map.geometry.body_offset(agent.size);
        Some(Self { map, grid: map.grid_for(agent)?, offset })
    }

    /// The cell of the body's lowest corner when its centre is at `at`.
    pub(super) fn cell(&self, at: Vec2) -> Result<GridPos, WorldToCellError> {
        self.map.geometry.world_to_cell(at - self.offset)
    }

    /// Where the body's centre is when its lowest corner stands on `cell`'s centre.
    pub(super) fn point(&self, cell: GridPos) -> Vec2 {
        self.map.geometry.cell_to_world(cell) + self.offset
    }
}

/// The next waypoint down `field` from `cell`: the next cell, or (`smooth`) the farthest of the
/// next [`LOOK_AHEAD`] in a straight line from `cell` that costs no more than the way down to it.
fn waypoint(grid: &NavGrid, field: &DistanceField, cell: GridPos, smooth: bool) -> Option<GridPos> {
    let mut next = field.next_step(cell)?;
    if !smooth {
        return Some(next);
    }
    let here = field.cost(cell)?;
    for _ in 1..LOOK_AHEAD {
        let Some(after) = field.next_step(next) else {
            break;
        };
        let down = here - field.cost(after).unwrap_or(f64::INFINITY);
        if !segment_cost(grid, cell, after).is_some_and(|line| line <= down + 1e-9) {
            break;
        }
        next = after;
    }
    Some(next)
}

/// What walkers read off each field, kept while the field and its grid stay as they are: per
/// cell, whether it is open, a goal, and its next waypoint (up to [`LOOK_AHEAD`] steps down, a
/// line checked to each when smoothed), in one `u32`. Ten thousand walkers reach a few thousand
/// cells: each cell is worked out once, and a walker reaching a waypoint reads one number from
/// memory, not the grid's and the field's arrays (on a 512 x 512 map those reads missed the
/// cache and cost most of a frame when many walkers reached waypoints at once). 1 MiB a field
/// on a 512 x 512 map (twice that when smoothed and plain walkers share it). A field no walker
/// read this frame is forgotten.
#[derive(Default)]
pub(crate) struct Ways(Vec<FieldWays>);

/// One field's cells as walkers read them (see [`Ways`]).
struct FieldWays {
    /// The field's revision and its grid's stamp they were read at.
    revision: u64,
    stamp: GridStamp,
    /// Per cell (row-major), smoothed and not: a [`Here`] in a `u32` (0 when not read yet).
    smooth: Vec<u32>,
    plain: Vec<u32>,
    /// Read this frame.
    used: bool,
}

/// A cell as a walker reads it off its field.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(crate) enum Here {
    /// A wall (one went up under the walker).
    Wall,
    /// A goal (a safe spot of a flee field): walked to its centre, then arrived.
    End,
    /// Open, with its next waypoint.
    Way(GridPos),
    /// Open, with no way down the field (cut off, or beyond a field that stops short).
    NoWay,
}

impl Ways {
    /// The cells of the field at `revision` on `grid`: kept ones, or a fresh table.
    fn of(&mut self, revision: u64, grid: &NavGrid) -> usize {
        let stamp = grid.stamp();
        let at = match self.0.iter().position(|w| w.revision == revision && w.stamp == stamp) {
            Some(at) => at,
            None => {
                let (smooth, plain, used) = (Vec::new(), Vec::new(), false);
                self.0.push(FieldWays { revision, stamp, smooth, plain, used });
                self.0.len() - 1
            }
        };
        self.0[at].used = true;
        at
    }

    /// Forgets the fields no walker read since the last call.
    fn sweep(&mut self) {
        self.0.retain(|w| w.used);
        for ways in &mut self.0 {
            ways.used = false;
        }
    }
}

impl FieldWays {
    /// `cell` (on the grid) as a walker reads it, worked out once.
    fn here(&mut self, grid: &NavGrid, field: &DistanceField, cell: GridPos, smooth: bool) -> Here {
        // The codes in the table: 0 is a cell not read yet.
        const NO_WAY: u32 = 1;
        const WALL: u32 = 2;
        const END: u32 = 3;
        const WAY: u32 = 4;
        let width = grid.width() as usize;
        let cells = width * grid.height() as usize;
        let table = if smooth { &mut self.smooth } else { &mut self.plain };
        if table.len() != cells {
            table.clear();
            table.resize(cells, 0);
        }
        let at = cell.y as usize * width + cell.x as usize;
        let known = table.get(at).copied();
        match known {
            Some(NO_WAY) => return Here::NoWay,
            Some(WALL) => return Here::Wall,
            Some(END) => return Here::End,
            Some(0) | None => {}
            Some(way) => {
                let i = (way - WAY) as usize;
                return Here::Way(GridPos::new((i % width) as u32, (i / width) as u32));
            }
        }
        let here = if !grid.is_passable(cell) {
            Here::Wall
        } else if field.is_end(cell) {
            Here::End
        } else {
            waypoint(grid, field, cell, smooth).map_or(Here::NoWay, Here::Way)
        };
        if known.is_some() {
            table[at] = match here {
                Here::NoWay => NO_WAY,
                Here::Wall => WALL,
                Here::End => END,
                Here::Way(n) => (n.y as usize * width + n.x as usize) as u32 + WAY,
            };
        }
        here
    }
}

/// What a walker's step leaves to be done after all have stepped.
pub(crate) struct Deferred {
    entity: Entity,
    /// A new walker's state.
    insert: Option<FieldWalk>,
    /// The field's map, when the walker stands on it and its [`OnNavMap`] says otherwise.
    on_map: Option<Entity>,
    /// It found a way after being told it had none: its [`PathFailed`] comes off.
    found: bool,
    arrived: Option<GridPos>,
    failed: Option<NavError>,
    /// It stands beyond its field, which must be built farther.
    beyond: bool,
}

/// One walker's frame: moves it down `field` by `left` world units (a few waypoints at most),
/// updating `state`; what else it needs done goes into `out`.
#[allow(clippy::too_many_arguments)]
fn step_walker(
    smooth: bool,
    (revision, field, on, ways): (u64, &DistanceField, &Footing, &mut FieldWays),
    (follow, read_ahead): (Entity, bool),
    position: Vec2,
    mut left: f32,
    state: &mut FieldWalk,
    out: &mut Deferred,
) -> Vec2 {
    let map = on.map;
    if (state.field, state.revision, state.at) != (follow, revision, position) {
        // The field changed, or the agent was moved: its way is read again from here (one at a
        // goal that still is one stays, without arriving again; one told meanwhile that its
        // field had none arrives again: its goals are new to it).
        let home = state.resting
            && !state.told
            && !out.found
            && state.at == position
            && state.field == follow
            && on.cell(position).is_ok_and(|c| field.is_end(c));
        let moved = state.at != position || state.map != map.entity;
        state.field = follow;
        state.map = map.entity;
        state.revision = revision;
        state.target = None;
        state.ahead = None;
        state.resting = home;
        if moved {
            // Its last waypoint is where it stands now (on the field's map, if it is on it).
            state.from = on.cell(position).unwrap_or(state.from);
        }
    }
    let mut fail = |error: NavError, state: &mut FieldWalk| {
        state.resting = true;
        state.told = true;
        out.failed = Some(error);
    };
    let mut at = position;
    // The cell whose centre it has just reached, as read off the field.
    let mut standing: Option<(GridPos, Here)> = None;
    // A few waypoints at most in one frame (a fast agent on short steps).
    for _ in 0..4 {
        if state.resting {
            break;
        }
        let (target, cell) = match state.target {
            Some(target) => target,
            None => {
                // From the cell it stands in; found in a wall (one went up under it), back to
                // its last waypoint first. Off the field's map, it cannot follow the field.
                let (here, known) = match standing.take() {
                    Some(standing) => standing,
                    None => match on.cell(at) {
                        Ok(here) => (here, ways.here(on.grid, field, here, smooth)),
                        Err(error) => {
                            if !state.told {
                                fail(NavError::Start(error), state);
                            }
                            state.resting = true;
                            break;
                        }
                    },
                };
                let cell = match known {
                    Here::Wall
                        if state.from != here
                            && state.from.x.abs_diff(here.x) <= 1
                            && state.from.y.abs_diff(here.y) <= 1
                            && on.grid.is_passable(state.from) =>
                    {
                        // (Its last waypoint is next to it unless the game moved it.)
                        state.target = Some((on.point(state.from), state.from));
                        state.ahead = None;
                        continue;
                    }
                    Here::Wall => {
                        if !state.told {
                            fail(NavError::Search(PathError::StartBlocked { start: here }), state);
                        }
                        state.resting = true;
                        break;
                    }
                    _ => here,
                };
                let next = match known {
                    Here::End => Some(cell), // to the goal's centre, then arrived
                    Here::Way(next) => Some(next),
                    _ => None,
                };
                let Some(next) = next else {
                    if beyond(field, on.grid, cell) {
                        // Beyond a field built only as far as its followers needed: it waits
                        // for the field to reach it.
                        out.beyond = true;
                        break;
                    }
                    if !state.told {
                        let goal = field.goals().first().copied().unwrap_or(cell);
                        fail(NavError::Search(PathError::Unreachable { start: cell, goal }), state);
                    }
                    state.resting = true;
                    break;
                };
                if state.told {
                    state.told = false;
                    out.found = true;
                }
                // Off its cell's centre (its way was read again mid-step, or the game moved
                // it), a line from where it stands is safe only to a straight neighbour: to
                // anything farther, through its cell's centre first.
                let centre = on.point(cell);
                let straight = next.x.abs_diff(cell.x) + next.y.abs_diff(cell.y) <= 1;
                let next =
                    if at.distance_squared(centre) > 1e-6 && !straight { cell } else { next };
                let target = (on.point(next), next);
                state.target = Some(target);
                state.ahead = None;
                target
            }
        };
        let gap = target - at;
        let distance = gap.length();
        if distance > left {
            at += gap * (left / distance);
            if read_ahead && state.ahead.is_none() {
                state.ahead = Some(ways.here(on.grid, field, cell, smooth));
            }
            break;
        }
        at = target;
        left -= distance;
        state.from = cell;
        state.target = None;
        let known = state.ahead.take().unwrap_or_else(|| ways.here(on.grid, field, cell, smooth));
        if known == Here::End {
            state.resting = true;
            out.arrived = Some(cell);
        }
        standing = Some((cell, known));
    }
    state.at = at;
    at
}

/// Walks each [`FollowField`] agent that neither steers nor moves tile by tile straight down
/// its field: no [`NavPath`], one waypoint at a time (see [`FollowField`]). Arrives with an
/// [`Arrived`](super::super::Arrived) at a goal; an agent with no way is told once. One thread
/// (why: BENCHMARKS.md, "Measurements behind the code").
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
pub(crate) fn walk_fields(
    mut commands: Commands,
    time: Res<Time>,
    maps: Res<NavMaps>,
    fields: Query<&NavField>,
    mut agents: Query<
        (
            Entity,
            &FollowField,
            &mut Transform,
            &PathFollower,
            Option<&mut FieldWalk>,
            Option<&AgentKind>,
            Option<&OnNavMap>,
            (Option<&ReadFrom>, Option<&PathFailed>),
        ),
        (Without<PathRequest>, Without<NavPath>, Without<Avoidance>, Without<GridLocked>),
    >,
    mut tell: Tell,
    mut diagnostics: ResMut<NavDiagnostics>,
    (mut deferred, mut told_of): (
        Local<Vec<Deferred>>,
        Local<Vec<(Entity, ReadFrom, Option<NavError>)>>,
    ),
    mut extend: ResMut<FieldsToExtend>,
    mut ways: Local<Ways>,
    mut frame: Local<u32>,
) {
    let began = Moment::now();
    *frame = frame.wrapping_add(1);
    let dt = time.delta_secs();
    // Most agents share a field and a kind: the last one looked up is kept.
    let mut last: Option<(Entity, AgentKind, u64, &DistanceField, Footing, usize)> = None;
    for (entity, follow, mut transform, follower, walk, kind, on, (read, failed)) in &mut agents {
        let agent = kind.copied().unwrap_or_default();
        let (revision, field, footing, known) = match last {
            Some((e, a, revision, field, footing, known)) if e == follow.0 && a == agent => {
                (revision, field, footing, known)
            }
            _ => {
                // (A kind whose field is not made yet waits for it.)
                let Some(layer) = fields.get(follow.0).ok().and_then(|nav| nav.layer(agent)) else {
                    continue;
                };
                if let Some((told, error)) = no_field(layer, follow.0, read, failed) {
                    // No field (no goal it can use, or its map gone): it stands, told once.
                    told_of.push((entity, told, error));
                    continue;
                }
                let map = fields.get(follow.0).ok().and_then(|nav| maps.get(nav.map));
                let (Some(field), Some(footing)) =
                    (layer.field, map.and_then(|map| Footing::of(map, agent)))
                else {
                    continue;
                };
                let known = ways.of(layer.revision, footing.grid);
                last = Some((follow.0, agent, layer.revision, field, footing, known));
                (layer.revision, field, footing, known)
            }
        };
        let map = footing.map;
        let position = transform.translation.truncate();
        if !position.is_finite() {
            continue;
        }
        // Walked in place (no one watches it change: the copy and compare cost more than the
        // change tick saved), or a new walker's state, inserted after.
        let mut fresh = None;
        let mut walk = walk;
        let state = match walk.as_mut() {
            Some(walk) => walk.bypass_change_detection(),
            None => fresh.insert(FieldWalk {
                field: follow.0,
                revision,
                map: map.entity,
                target: None,
                ahead: None,
                from: footing.cell(position).unwrap_or_default(),
                at: position,
                resting: false,
                told: false,
            }),
        };
        let on_map = (on.map(|o| o.0) != Some(map.entity)
            && map.geometry.world_to_cell(position).is_ok())
        .then_some(map.entity);
        let mut out = Deferred {
            entity,
            insert: None,
            on_map,
            // Told its field had none, and it has one again.
            found: read.is_some(),
            arrived: None,
            failed: None,
            beyond: false,
        };
        // A larger body walks cell to cell: a straight line clear for its corner cell could
        // still take it over a wall's corner.
        let smooth = follower.smooth && agent.size == 1;
        // A speed the game made odd (negative, NaN, infinite) stands it still, as on a path.
        let speed = follower.walking_speed();
        let left = speed * dt;
        let on_field = (revision, field, &footing, &mut ways.0[known]);
        let read_ahead = entity.index_u32() % READ_AHEAD == *frame % READ_AHEAD;
        let walking = (follow.0, read_ahead);
        let at = step_walker(smooth, on_field, walking, position, left, state, &mut out);
        if at != position {
            transform.translation = at.extend(transform.translation.z);
        }
        out.insert = fresh;
        if out.beyond {
            extend.ask(follow.0);
        }
        if out.insert.is_some()
            || out.on_map.is_some()
            || out.found
            || out.arrived.is_some()
            || out.failed.is_some()
        {
            deferred.push(out);
        }
    }
    ways.sweep();
    for (agent, told, error) in told_of.drain(..) {
        tell_no_field(&mut commands, &mut tell, agent, (told, error));
    }
    for out in deferred.drain(..) {
        let mut entity = commands.entity(out.entity);
        if let Some(state) = out.insert {
            entity.insert(state);
        }
        if let Some(map) = out.on_map {
            stands_on(&mut entity, map);
        }
        if out.found {
            entity.remove::<(PathFailed, ReadFrom)>();
        }
        if let Some(error) = out.failed {
            tell.failed(&mut entity, error);
        }
        if let Some(cell) = out.arrived {
            tell.arrived(out.entity, cell, true, Arrival::AtGoal);
        }
    }
    diagnostics.move_time += began.elapsed();
}
