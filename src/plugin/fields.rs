//! Hordes: many agents that follow one [`DistanceField`] to the same goals instead of
//! searching each. A [`NavField`] entity asks the plugin to keep the field of some goals on a
//! map in step with it (repaired where cells change); agents with [`FollowField`] walk down it:
//! those that steer ([`Avoidance`]) or move tile by tile ([`GridLocked`]) by a [`Path`] read off
//! the field, the others straight off the field, a waypoint at a time ([`walk_fields`]), with
//! no path of their own.

use bevy::prelude::*;

use super::agent::{
    NavError, OnNavMap, Path, PathFailed, PathFollower, PathRequest, body_point, corner_indices,
    join_index,
};
use super::clock::Moment;
use super::diagnostics::{NavDiagnostics, Stopwatch};
use super::map::{NavMap, NavMaps};
use super::movement::{Avoidance, GridLocked};
use super::profiles::NavAgent;
use super::settings::NavSettings;
use crate::grid::GridPos;
use crate::grid::line::segment_cost;
use crate::grid::{GridStamp, NavGrid};
use crate::search::{DistanceField, FLEE_WEIGHT, PathError, SlicedBuild};

/// The distance field of `goals` on `map` (the cost from every cell to the nearest goal), which
/// the plugin builds and keeps in step with the map's grid: only the cells whose way to a goal
/// a change touched are settled again. Agents with [`FollowField`] naming this entity walk
/// down it. Change `goals` to move them all: the new field is built a slice a frame
/// ([`NavSettings::field_slice_work`]), the old one followed until it is ready.
#[derive(Component, Clone, Debug)]
pub struct NavField {
    /// The map it lies on (its [`NavMap::entity`](super::NavMap::entity)).
    pub map: Entity,
    /// Where it leads: cells of that map.
    pub goals: Vec<GridPos>,
    field: Option<DistanceField>,
    /// Why there is no field: goals off the map or walled, or no goals.
    error: Option<PathError>,
    /// Cells settled by the last build or repair, and the time it took.
    work: (usize, std::time::Duration),
    /// Counts the builds and repairs: followers read their ways again when it moves on.
    revision: u64,
    /// A flee field's weight: `goals` are threats to run from.
    flee: Option<f64>,
    /// Built only as far as its followers need ([`covering_followers`](Self::covering_followers)).
    cover_followers: bool,
}

/// Fields a follower stood beyond this frame (a field built only as far as its followers
/// needed, and one came from farther): [`keep_fields`] builds them farther.
#[derive(Resource, Default)]
pub(crate) struct FieldsToExtend(Vec<Entity>);

impl FieldsToExtend {
    /// Asks for `field` to be built farther (once, however many followers ask).
    fn ask(&mut self, field: Entity) {
        if !self.0.contains(&field) {
            self.0.push(field);
        }
    }
}

/// The last revision given to a field.
static REVISIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A field of goals, or a flee field.
fn build(grid: &NavGrid, goals: &[GridPos], flee: Option<f64>) -> Result<DistanceField, PathError> {
    match flee {
        Some(weight) => DistanceField::fleeing(grid, goals, weight),
        None => DistanceField::new(grid, goals),
    }
}

impl NavField {
    /// The field of `goals` on `map`, built by the plugin.
    pub fn new(map: Entity, goals: Vec<GridPos>) -> Self {
        let work = (0, std::time::Duration::ZERO);
        let (field, error, revision) = (None, None, 0);
        Self { map, goals, field, error, work, revision, flee: None, cover_followers: false }
    }

    /// A flee field on `map`: its followers run from `threats` (cells of that map) to the
    /// safest places within reach, past a threat out of a dead end rather than into a corner
    /// ([`DistanceField::fleeing`] with [`FLEE_WEIGHT`]), and arrive there. Change `goals`
    /// (the threats) as they move; each change builds it again whole.
    pub fn fleeing(map: Entity, threats: Vec<GridPos>) -> Self {
        Self { flee: Some(FLEE_WEIGHT), ..Self::new(map, threats) }
    }

    /// This flee field with another weight: how much a safe spot one step farther from the
    /// threats is worth, in steps of detour (see [`DistanceField::fleeing`]).
    pub fn with_flee_weight(mut self, weight: f64) -> Self {
        self.flee = Some(weight);
        self
    }

    /// This field built only as far as its followers need: its build stops once every cell a
    /// follower stands on is settled ([`DistanceField::covering`]), so a field on a large map
    /// for followers near its goals costs little. A follower that stands beyond it (new, or
    /// put there by the game) waits while the field is built farther, to cover it too: a frame
    /// or a few, never told it has no way unless it truly has none. Not for flee fields (built
    /// whole), nor for asking [`DistanceField::cuts_off`] about cells no follower stands on.
    pub fn covering_followers(mut self) -> Self {
        self.cover_followers = true;
        self
    }

    /// Whether its followers run from its `goals` ([`fleeing`](Self::fleeing)).
    pub fn is_fleeing(&self) -> bool {
        self.flee.is_some()
    }

    /// The field as it is now (`None` before the plugin built it, or when it cannot be built:
    /// see [`error`](Self::error)).
    pub fn field(&self) -> Option<&DistanceField> {
        self.field.as_ref()
    }

    /// Why there is no field.
    pub fn error(&self) -> Option<&PathError> {
        self.error.as_ref()
    }

    /// Cells settled by its last build or repair, and how long that took.
    pub fn last_work(&self) -> (usize, std::time::Duration) {
        self.work
    }
}

/// Put on an agent with a [`PathFollower`] (and a `Transform`): it walks down the field of the
/// [`NavField`] entity named here, to the nearest goal, by a cheapest way; smoothed if its
/// follower is, steering round others if it has [`Avoidance`], with an
/// [`Arrived`](super::Arrived) at the goal. When the field changes (cells or goals), it walks
/// its new way from where it is; so does one the game moves. An agent with no way down gets a
/// [`PathFailed`] (unreachable): one that steers, once per state of the field; a plain one
/// once, and again only after it has had a way since (a walled-in creep is not told at every
/// new tower). Agents of size 1 with no profile: the field is of the map's own grid.
///
/// How it walks: an agent with [`Avoidance`] or [`GridLocked`] is given its way as a [`Path`]
/// (read off the field, no search) and walks it as any path. Any other walks straight off the
/// field with no `Path` at all: from each waypoint to the next cell down the field (or, when its
/// follower is smoothed, to the farthest of the next few in a straight line that costs no more
/// than the way down), which is what lets tens of thousands follow one field.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct FollowField(pub Entity);

/// On a field follower: the field state its path was read from, and whether that gave no way
/// (it was told, and is not told again until the field changes).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub(crate) struct ReadFrom(Entity, u64, bool);

/// A field's build under way, a slice a frame, on this map.
pub(crate) struct Pending {
    map: Entity,
    build: SlicedBuild<Result<DistanceField, PathError>>,
}

/// Builds or repairs each [`NavField`] to match its map's grid and goals. A build for new goals
/// runs in slices ([`NavSettings::field_slice_work`]); the field it replaces stays until then.
pub(crate) fn keep_fields(
    maps: Res<NavMaps>,
    settings: Res<NavSettings>,
    mut fields: Query<(Entity, &mut NavField)>,
    followers: Query<(&FollowField, &Transform)>,
    (mut pending, mut extend): (Local<Vec<(Entity, Pending)>>, ResMut<FieldsToExtend>),
    mut diagnostics: ResMut<NavDiagnostics>,
) {
    let extend = std::mem::take(&mut extend.0);
    let _timing = Stopwatch::start(&mut diagnostics.field_time);
    // Builds of fields gone, or moved to another map or made flee fields, are dropped. One
    // whose goals changed again goes on: goals that move every frame would otherwise never
    // see a build end; its field is put in, and the next build starts for the goals then.
    pending.retain(|(entity, p)| {
        fields.get(*entity).is_ok_and(|(_, nav)| nav.flee.is_none() && nav.map == p.map)
    });
    for (entity, mut nav) in &mut fields {
        let Some(map) = maps.get(nav.map) else {
            if nav.field.is_some() {
                nav.field = None;
            }
            continue;
        };
        let grid = &map.grid;
        let began = Moment::now();
        let same_goals = nav
            .field
            .as_ref()
            .is_some_and(|f| f.goals() == nav.goals && f.flee_weight() == nav.flee);
        // A follower stood beyond a field built only as far as its followers needed.
        let farther = nav.cover_followers
            && extend.contains(&entity)
            && nav.field.as_ref().is_some_and(|f| f.limit().is_finite());
        let building = pending.iter().position(|(e, _)| *e == entity);
        // The field as it is, kept in step with the grid by repair (also while a build for new
        // goals goes on: its followers never walk a way a new wall cut). A field whose changes
        // were forgotten, or whose goals' cells were walled, is built again whole.
        let mut repaired = None;
        // (Read before writing: a field in step is not marked changed every frame.)
        let stale = nav.field.as_ref().is_some_and(|f| !f.is_current(grid));
        if stale && let Some(field) = nav.field.as_mut() {
            match grid.changes_since(field.stamp()) {
                Some(changes) => {
                    let cells: Vec<GridPos> = changes.map(|(cell, _)| cell).collect();
                    repaired = Some(field.update(grid, cells));
                }
                None => nav.field = None,
            }
        }
        let wanted = !same_goals || farther || nav.field.is_none();
        if !wanted {
            // (Goals changed and changed back: a build for the others is not needed.)
            if let Some(at) = building {
                pending.swap_remove(at);
            }
        }
        let outcome = match (wanted, repaired) {
            (false, None) => continue, // in step: not marked changed
            (false, Some(work)) => Ok(work),
            // A flee field: built whole.
            (true, _) if nav.flee.is_some() => build(grid, &nav.goals, nav.flee).map(|field| {
                nav.field = Some(field);
                grid.width() as usize * grid.height() as usize
            }),
            // A field of goals: a slice of its build this frame.
            (true, repaired) => {
                let at = match building {
                    Some(at) => at,
                    None => {
                        // Covering its followers: where they stand (or, none yet, the goals
                        // alone: followers that come are covered as they come).
                        let cover: Vec<GridPos> = match nav.cover_followers {
                            true => followers
                                .iter()
                                .filter(|(f, _)| f.0 == entity)
                                .filter_map(|(_, t)| {
                                    map.geometry.world_to_cell(t.translation.truncate()).ok()
                                })
                                .chain(nav.goals.iter().copied())
                                .collect(),
                            false => Vec::new(),
                        };
                        let build = DistanceField::build_in_slices(grid, &nav.goals, &cover);
                        pending.push((entity, Pending { map: nav.map, build }));
                        pending.len() - 1
                    }
                };
                match pending[at].1.build.step(settings.field_slice_work) {
                    // Not done: the field it replaces (if any) stays meanwhile, repaired.
                    None => match repaired {
                        Some(work) => Ok(work),
                        None => continue,
                    },
                    Some(done) => {
                        pending.swap_remove(at);
                        done.map(|mut field| {
                            // The grid changed while it was built: repaired to match (or, its
                            // changes forgotten, built again whole).
                            if !field.is_current(grid) {
                                let cells: Vec<GridPos> = match grid.changes_since(field.stamp()) {
                                    Some(changes) => changes.map(|(c, _)| c).collect(),
                                    None => grid.positions().collect(),
                                };
                                field.update(grid, cells);
                            }
                            nav.field = Some(field);
                            grid.width() as usize * grid.height() as usize
                        })
                    }
                }
            }
        };
        let work = match outcome {
            Ok(work) => {
                nav.error = None;
                work
            }
            Err(error) => {
                if nav.error.as_ref() == Some(&error) && nav.field.is_none() {
                    continue;
                }
                nav.field = None;
                nav.error = Some(error);
                0
            }
        };
        nav.work = (work, began.elapsed());
        // Unique across fields and components: a `NavField` put in place of another on the
        // same entity never repeats a revision its followers read.
        nav.revision = REVISIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
    }
}

/// Gives each [`FollowField`] agent that steers or moves tile by tile the way down its field
/// from where it stands, as a [`Path`], when it has none or the field changed since.
#[allow(clippy::type_complexity)]
pub(crate) fn follow_fields(
    mut commands: Commands,
    maps: Res<NavMaps>,
    fields: Query<&NavField>,
    mut agents: Query<
        (
            Entity,
            &FollowField,
            &Transform,
            Option<&Path>,
            &PathFollower,
            Option<&ReadFrom>,
            Option<&NavAgent>,
        ),
        (Without<PathRequest>, Or<(With<Avoidance>, With<GridLocked>)>),
    >,
    mut failures: MessageWriter<PathFailed>,
    mut diagnostics: ResMut<NavDiagnostics>,
    mut extend: ResMut<FieldsToExtend>,
) {
    let began = Moment::now();
    for (entity, follow, transform, path, follower, read, kind) in &mut agents {
        let Ok(nav) = fields.get(follow.0) else {
            continue;
        };
        let (Some(field), Some(map)) = (nav.field(), maps.get(nav.map)) else {
            continue;
        };
        let fresh = read.is_some_and(|r| (r.0, r.1) == (follow.0, nav.revision));
        let told = fresh && read.is_some_and(|r| r.2);
        // Walking a way read from the field as it is: on it goes.
        if fresh && path.is_some() {
            continue;
        }
        let position = transform.translation.truncate();
        let Ok(cell) = map.geometry.world_to_cell(position) else {
            continue;
        };
        let at_goal = field.is_end(cell) && path.is_none();
        if at_goal || told {
            continue; // arrived, or no way and already told
        }
        let read = |told| ReadFrom(follow.0, nav.revision, told);
        let agent = kind.copied().unwrap_or_default();
        if beyond(field, map, cell) {
            // Beyond a field built only as far as its followers needed: it waits for more.
            extend.ask(follow.0);
            continue;
        }
        let Some(cells) = field.path_from(cell).filter(|_| agent.is_plain()) else {
            commands.entity(entity).insert(read(true));
            let goal = field.goals().first().copied().unwrap_or(cell);
            let error = match agent.is_plain() {
                true => NavError::Search(PathError::Unreachable { start: cell, goal }),
                false => NavError::NoAgentGrid { agent },
            };
            let failed = PathFailed { entity, error };
            commands.entity(entity).insert(failed.clone());
            failures.write(failed);
            continue;
        };
        let points = cells.iter().map(|&c| body_point(&map.geometry, agent, c)).collect();
        let corners = if follower.smooth { corner_indices(&map.grid, &cells) } else { Vec::new() };
        let cost = field.cost(cell).unwrap_or(0.0);
        let way = Path { corners, ..Path::walk(map.entity, cells, points, cost, agent) };
        let next = join_index(&way, position, &map.geometry, &map.grid);
        commands.entity(entity).remove::<PathFailed>().insert((
            read(false),
            way,
            OnNavMap(map.entity),
            PathFollower { next, ..follower.clone() },
        ));
    }
    diagnostics.field_time += began.elapsed();
}

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
/// index), not all on the frame they reach it. On `64room_000` a horde of 10,000 started on cell
/// centres reached their cells together every 21 frames, and those frames took 3-5x as long as
/// the others (each reading missed the cache).
const READ_AHEAD: u32 = 8;

/// How many cells down the field a smoothed walker looks for a straight line.
const LOOK_AHEAD: usize = 12;

/// `cell` lies beyond a field that stops short (built only as far as its followers needed), on
/// open ground: the field does not know it yet.
fn beyond(field: &DistanceField, map: &NavMap, cell: GridPos) -> bool {
    field.limit().is_finite() && field.cost(cell).is_none() && map.grid.is_passable(cell)
}

/// The next waypoint down `field` from `cell`: the next cell, or (`smooth`) the farthest of the
/// next [`LOOK_AHEAD`] in a straight line from `cell` that costs no more than the way down to it.
fn waypoint(map: &NavMap, field: &DistanceField, cell: GridPos, smooth: bool) -> Option<GridPos> {
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
        if !segment_cost(&map.grid, cell, after).is_some_and(|line| line <= down + 1e-9) {
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
    fn here(&mut self, map: &NavMap, field: &DistanceField, cell: GridPos, smooth: bool) -> Here {
        // The codes in the table: 0 is a cell not read yet.
        const NO_WAY: u32 = 1;
        const WALL: u32 = 2;
        const END: u32 = 3;
        const WAY: u32 = 4;
        let width = map.grid.width() as usize;
        let cells = width * map.grid.height() as usize;
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
        let here = if !map.grid.is_passable(cell) {
            Here::Wall
        } else if field.is_end(cell) {
            Here::End
        } else {
            waypoint(map, field, cell, smooth).map_or(Here::NoWay, Here::Way)
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
    (agent, smooth): (NavAgent, bool),
    (nav, field, map, ways): (&NavField, &DistanceField, &NavMap, &mut FieldWays),
    (follow, read_ahead): (Entity, bool),
    position: Vec2,
    mut left: f32,
    state: &mut FieldWalk,
    out: &mut Deferred,
) -> Vec2 {
    if (state.field, state.revision, state.at) != (follow, nav.revision, position) {
        // The field changed, or the agent was moved: its way is read again from here (one at a
        // goal that still is one stays, without arriving again).
        let home = state.resting
            && !state.told
            && state.at == position
            && state.field == follow
            && map.geometry.world_to_cell(position).is_ok_and(|c| field.is_end(c));
        let moved = state.at != position || state.map != map.entity;
        state.field = follow;
        state.map = map.entity;
        state.revision = nav.revision;
        state.target = None;
        state.ahead = None;
        state.resting = home;
        if moved {
            // Its last waypoint is where it stands now (on the field's map, if it is on it).
            state.from = map.geometry.world_to_cell(position).unwrap_or(state.from);
        }
    }
    let mut fail = |error: NavError, state: &mut FieldWalk| {
        state.resting = true;
        state.told = true;
        out.failed = Some(error);
    };
    if !state.resting && !agent.is_plain() {
        fail(NavError::NoAgentGrid { agent }, state);
    }
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
                    None => match map.geometry.world_to_cell(at) {
                        Ok(here) => (here, ways.here(map, field, here, smooth)),
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
                            && map.grid.is_passable(state.from) =>
                    {
                        // (Its last waypoint is next to it unless the game moved it.)
                        state.target = Some((map.geometry.cell_to_world(state.from), state.from));
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
                    if beyond(field, map, cell) {
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
                let centre = map.geometry.cell_to_world(cell);
                let straight = next.x.abs_diff(cell.x) + next.y.abs_diff(cell.y) <= 1;
                let next =
                    if at.distance_squared(centre) > 1e-6 && !straight { cell } else { next };
                let target = (map.geometry.cell_to_world(next), next);
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
                state.ahead = Some(ways.here(map, field, cell, smooth));
            }
            break;
        }
        at = target;
        left -= distance;
        state.from = cell;
        state.target = None;
        let known = state.ahead.take().unwrap_or_else(|| ways.here(map, field, cell, smooth));
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
/// its field: no [`Path`], one waypoint at a time (see [`FollowField`]). Arrives with an
/// [`Arrived`](super::Arrived) at a goal; an agent with no way is told once. One thread: shared
/// out with `par_iter` on 2 cores, 10,000 walkers took as long or longer (crowd_bench `field`).
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
            Option<&NavAgent>,
            Option<&OnNavMap>,
        ),
        (Without<PathRequest>, Without<Path>, Without<Avoidance>, Without<GridLocked>),
    >,
    mut arrived: MessageWriter<super::Arrived>,
    mut failures: MessageWriter<PathFailed>,
    mut diagnostics: ResMut<NavDiagnostics>,
    mut deferred: Local<Vec<Deferred>>,
    mut extend: ResMut<FieldsToExtend>,
    mut ways: Local<Ways>,
    mut frame: Local<u32>,
) {
    let began = Moment::now();
    *frame = frame.wrapping_add(1);
    let dt = time.delta_secs();
    // Most agents share a field: the last one looked up is kept.
    let mut last: Option<(Entity, &NavField, &DistanceField, &NavMap, usize)> = None;
    for (entity, follow, mut transform, follower, walk, kind, on) in &mut agents {
        let (nav, field, map, known) = match last {
            Some((e, nav, field, map, known)) if e == follow.0 => (nav, field, map, known),
            _ => {
                let Ok(nav) = fields.get(follow.0) else {
                    continue;
                };
                let (Some(field), Some(map)) = (nav.field(), maps.get(nav.map)) else {
                    continue;
                };
                let known = ways.of(nav.revision, &map.grid);
                last = Some((follow.0, nav, field, map, known));
                (nav, field, map, known)
            }
        };
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
                revision: nav.revision,
                map: map.entity,
                target: None,
                ahead: None,
                from: map.geometry.world_to_cell(position).unwrap_or_default(),
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
            found: false,
            arrived: None,
            failed: None,
            beyond: false,
        };
        let who = (kind.copied().unwrap_or_default(), follower.smooth);
        // A speed the game made odd (negative, NaN, infinite) stands it still, as on a path.
        let speed = if follower.speed.is_finite() { follower.speed.max(0.0) } else { 0.0 };
        let left = speed * dt;
        let on_field = (nav, field, map, &mut ways.0[known]);
        let read_ahead = entity.index_u32() % READ_AHEAD == *frame % READ_AHEAD;
        let walking = (follow.0, read_ahead);
        let at = step_walker(who, on_field, walking, position, left, state, &mut out);
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
    for out in deferred.drain(..) {
        let mut entity = commands.entity(out.entity);
        if let Some(state) = out.insert {
            entity.insert(state);
        }
        if let Some(map) = out.on_map {
            entity.insert(OnNavMap(map));
        }
        if out.found {
            entity.remove::<PathFailed>();
        }
        if let Some(error) = out.failed {
            let failed = PathFailed { entity: out.entity, error };
            entity.insert(failed.clone());
            failures.write(failed);
        }
        if let Some(cell) = out.arrived {
            let by = Default::default();
            arrived.write(super::Arrived { entity: out.entity, cell, reached_goal: true, by });
        }
    }
    diagnostics.move_time += began.elapsed();
}
