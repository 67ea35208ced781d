//! The field entities and their fields, built and kept in step with their maps.

use bevy::prelude::*;

use super::super::agent::{NavError, Tell};
use super::super::clock::Moment;
use super::super::map::{NavGeometry, NavMap, NavMaps};
use super::super::work::{FrameWork, WorkKind};
use crate::grid::GridPos;
use crate::grid::NavGrid;
use crate::search::{DistanceField, FLEE_WEIGHT, PathError, SlicedBuild, check_flee_weight};

/// The distance field of `goals` on `map` (the cost from every cell to the nearest goal), which the
/// plugin builds and keeps in step with the map's grid: only the cells whose way to a goal a change
/// touched are settled again. Agents with [`FollowField`] naming this entity walk down it. Change
/// `goals` to move them all: the new field is built a slice a frame
/// ([`WorkShares::fields`](super::super::WorkShares::fields)), the old one followed until it is
/// ready.
#[derive(Component, Clone, Debug)]
pub struct NavField {
    /// The map it lies on (its [`NavMap::entity`](super::super::NavMap::entity)).
    pub map: Entity,
    /// Where it leads: cells of that map.
    pub goals: Vec<GridPos>,
    field: Option<DistanceField>,
    /// Why there is no field: no goal it can use (none given, every one off the map or
    /// walled), or its map gone.
    error: Option<NavError>,
    /// Cells settled by the last build or repair, and the time it took.
    work: (usize, std::time::Duration),
    /// Counts the builds and repairs: followers read their ways again when it moves on.
    pub(super) revision: u64,
    /// A flee field's weight: `goals` are threats to run from.
    flee: Option<f64>,
    /// Built only as far as its followers need ([`covering_followers`](Self::covering_followers)).
    cover_followers: bool,
    /// Where its map sat in the world when last seen: moved or rescaled, its followers read
    /// their ways again from the cells they stand on.
    geometry: Option<NavGeometry>,
}

/// Fields a follower stood beyond this frame (a field built only as far as its followers
/// needed, and one came from farther): [`keep_fields`] builds them farther.
#[derive(Resource, Default)]
pub(crate) struct FieldsToExtend(Vec<Entity>);

impl FieldsToExtend {
    /// Asks for `field` to be built farther (once, however many followers ask).
    pub(super) fn ask(&mut self, field: Entity) {
        if !self.0.contains(&field) {
            self.0.push(field);
        }
    }
}

/// The last revision given to a field.
static REVISIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A goal a field can use on `grid`: on it, and open.
fn usable(grid: &NavGrid) -> impl Fn(&GridPos) -> bool + '_ {
    |&goal| grid.in_bounds(goal) && grid.is_passable(goal)
}

/// Why a field has no goal it can use on `grid`: none given, or (the first goal's reason) off
/// the map or walled.
fn no_goal(grid: &NavGrid, goals: &[GridPos]) -> PathError {
    match goals.first() {
        None => PathError::NoGoals,
        Some(&goal) if !grid.in_bounds(goal) => {
            PathError::GoalOutOfBounds { goal, width: grid.width(), height: grid.height() }
        }
        Some(&goal) => PathError::GoalBlocked { goal },
    }
}

/// A flee field from `threats` (those it can use; with none, every open cell is a safe spot).
fn build_fleeing(grid: &NavGrid, threats: &[GridPos], weight: f64) -> DistanceField {
    let threats: Vec<GridPos> = threats.iter().copied().filter(usable(grid)).collect();
    DistanceField::fleeing(grid, &threats, weight)
        .unwrap_or_else(|_| DistanceField::nothing_to_flee(grid, threats, weight))
}

/// The next revision: unique across fields and components, so a `NavField` put in place of
/// another on the same entity never repeats a revision its followers read.
fn next_revision() -> u64 {
    REVISIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1
}

impl NavField {
    /// The field of `goals` on `map`, built by the plugin.
    pub fn new(map: Entity, goals: Vec<GridPos>) -> Self {
        let work = (0, std::time::Duration::ZERO);
        let (field, error, revision) = (None, None, 0);
        let (flee, cover_followers, geometry) = (None, false, None);
        Self { map, goals, field, error, work, revision, flee, cover_followers, geometry }
    }

    /// A flee field on `map`: its followers run from `threats` (cells of that map) to the
    /// safest places within reach, past a threat out of a dead end rather than into a corner
    /// ([`DistanceField::fleeing`] with [`FLEE_WEIGHT`]), and arrive there. Change `goals`
    /// (the threats) as they move; each change builds it again whole.
    pub fn fleeing(map: Entity, threats: Vec<GridPos>) -> Self {
        Self { flee: Some(FLEE_WEIGHT), ..Self::new(map, threats) }
    }

    /// This flee field with another weight: how much a safe spot one step farther from the
    /// threats is worth, in steps of detour (see [`DistanceField::fleeing`]). A weight that is
    /// not a number above 0 and at most [`MAX_FLEE_WEIGHT`](crate::search::MAX_FLEE_WEIGHT)
    /// is refused here ([`PathError::InvalidNumber`]): every number the crate takes is checked
    /// where it is given.
    pub fn with_flee_weight(mut self, weight: f64) -> Result<Self, PathError> {
        check_flee_weight(weight)?;
        self.flee = Some(weight);
        Ok(self)
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

    /// Why there is no field: no goal it can use ([`NavError::Search`] with
    /// [`PathError::NoGoals`], or the first goal's [`PathError::GoalOutOfBounds`] or
    /// [`PathError::GoalBlocked`]), or its map gone ([`NavError::MapGone`]). Each follower is
    /// told once with a [`PathFailed`](super::super::PathFailed); the field comes back, and
    /// they walk again, when a goal can be used.
    pub fn error(&self) -> Option<&NavError> {
        self.error.as_ref()
    }

    /// Goals it leaves out as things stand: off the map or walled. It serves the others.
    pub fn unused_goals(&self) -> impl Iterator<Item = GridPos> + '_ {
        let used = self.field.as_ref().map_or(&[][..], |f| f.goals());
        self.goals.iter().copied().filter(move |g| !used.contains(g))
    }

    /// True when it has no field for `error` already.
    fn failed_for(&self, error: &NavError) -> bool {
        self.error.as_ref() == Some(error) && self.field.is_none()
    }

    /// No field, for `error`: followers are told once (a new revision).
    fn fail(&mut self, error: NavError) {
        self.field = None;
        self.error = Some(error);
        self.work = (0, std::time::Duration::ZERO);
        self.revision = next_revision();
    }

    /// Cells settled by its last build or repair, and how long that took.
    pub fn last_work(&self) -> (usize, std::time::Duration) {
        self.work
    }
}

/// Put on an agent with a [`PathFollower`](super::super::PathFollower) (and a `Transform`): it
/// walks down the field of the [`NavField`] entity named here, to the nearest goal, by a cheapest
/// way; smoothed if its follower is, steering round others if it has
/// [`Avoidance`](super::super::Avoidance), with an [`Arrived`](super::super::Arrived) at the goal.
/// When the field changes (cells or goals), it walks its new way from where it is; so does one the
/// game moves. An agent with no way down gets a [`PathFailed`](super::super::PathFailed)
/// (unreachable): one that steers, once per state of the field; a plain one once, and again only
/// after it has had a way since (a walled-in creep is not told at every new tower). Agents of size
/// 1 with no profile: the field is of the map's own grid.
///
/// How it walks: an agent with [`Avoidance`](super::super::Avoidance) or
/// [`GridLocked`](super::super::GridLocked) is given its way as a
/// [`NavPath`](super::super::NavPath) (read off the field, no search) and walks it as any path. Any
/// other walks straight off the field with no `NavPath` at all: from each waypoint to the next cell
/// down the field (or, when its follower is smoothed, to the farthest of the next few in a straight
/// line that costs no more than the way down), which is what lets tens of thousands follow one
/// field.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct FollowField(pub Entity);

/// On a field follower: the field state its path was read from, and whether that gave no way
/// (it was told, and is not told again until the field changes).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub(crate) struct ReadFrom(pub(super) Entity, pub(super) u64, pub(super) bool);

/// What a follower of `nav` (named by `follow`), which has no field, is to be told: the state it
/// was told at (to put on it) and why, once for each state of the field. `None` while it has a
/// field, is being built, or the follower was told already (by this or, the same reason, by the
/// movement system).
pub(super) fn no_field(
    nav: &NavField,
    follow: Entity,
    read: Option<&ReadFrom>,
    failed: Option<&super::super::agent::PathFailed>,
) -> Option<(ReadFrom, Option<NavError>)> {
    let error = nav.error.as_ref().filter(|_| nav.field.is_none())?;
    let told = ReadFrom(follow, nav.revision, true);
    if read == Some(&told) {
        return None;
    }
    let again = failed.is_some_and(|f| f.error == *error);
    Some((told, (!again).then(|| error.clone())))
}

/// Tells `entity`, a follower of a field with no field, why (see [`no_field`]): the state it was
/// told at put on it, and (unless it was told the same already) a [`PathFailed`](
/// super::super::agent::PathFailed).
pub(super) fn tell_no_field(
    commands: &mut Commands,
    tell: &mut Tell,
    entity: Entity,
    (told, error): (ReadFrom, Option<NavError>),
) {
    let mut agent = commands.entity(entity);
    agent.insert(told);
    if let Some(error) = error {
        tell.failed(&mut agent, error);
    }
}

/// A field's build under way, a slice a frame, on this map.
pub(crate) struct Pending {
    map: Entity,
    build: SlicedBuild<Result<DistanceField, PathError>>,
}

/// Builds or repairs each [`NavField`] to match its map's grid and goals. A build for new goals
/// runs in slices ([`WorkShares::fields`](super::super::WorkShares::fields)); the field it replaces
/// stays until then. Goals off the map or walled are left out; with none left, or its map gone, it
/// has no field and says why ([`NavField::error`]).
#[allow(clippy::type_complexity)]
pub(crate) fn keep_fields(
    maps: Res<NavMaps>,
    (mut fields, followers, entities): (
        Query<(Entity, &mut NavField)>,
        Query<(&FollowField, &Transform)>,
        Query<()>,
    ),
    (mut pending, mut extend): (Local<Vec<(Entity, Pending)>>, ResMut<FieldsToExtend>),
    mut work: FrameWork,
) {
    let extend = std::mem::take(&mut extend.0);
    let frame_began = Moment::now();
    // The builds' units this frame, all fields together (repairs are not counted: done whole).
    let mut slice = Slice { left: work.clockless(WorkKind::Fields), done: 0 };
    // Builds of fields gone, or moved to another map or made flee fields, are dropped. One
    // whose goals changed again goes on: goals that move every frame would otherwise never
    // see a build end; its field is put in, and the next build starts for the goals then.
    pending.retain(|(entity, p)| {
        fields.get(*entity).is_ok_and(|(_, nav)| nav.flee.is_none() && nav.map == p.map)
    });
    for (entity, mut nav) in &mut fields {
        let Some(map) = maps.get(nav.map) else {
            // Its map went (or its entity is no more): its followers are told. One whose map
            // is loading, or not made yet, waits.
            let gone = nav.field.is_some() || entities.get(nav.map).is_err();
            let error = NavError::MapGone { map: nav.map };
            // (Read before writing: a field that stands failed is not marked changed again.)
            if gone && !maps.is_loading(nav.map) && !nav.failed_for(&error) {
                nav.fail(error);
            }
            continue;
        };
        let grid = &map.grid;
        let began = Moment::now();
        let seen = nav.geometry;
        if seen != Some(map.geometry) {
            // (Read before writing: a field in step is not marked changed every frame.)
            nav.geometry = Some(map.geometry);
            if seen.is_some() {
                nav.revision = next_revision(); // its followers' world points are stale
            }
        }
        if nav.flee.is_none() && !nav.goals.iter().any(usable(grid)) {
            // No goal it can use: no field, until one can be used.
            pending.retain(|(e, _)| *e != entity);
            let error = NavError::Search(no_goal(grid, &nav.goals));
            if !nav.failed_for(&error) {
                nav.fail(error);
            }
            continue;
        }
        let outcome = keep_field(
            grid,
            map,
            &mut slice,
            (entity, &mut nav),
            &extend,
            &followers,
            &mut pending,
        );
        let settled = match outcome {
            Some(settled) => settled,
            None => continue, // in step, or a build under way: not marked changed
        };
        nav.error = None;
        nav.work = (settled, began.elapsed());
        nav.revision = next_revision();
    }
    let took = frame_began.elapsed();
    work.diagnostics.field_time += took;
    work.spend(WorkKind::Fields, slice.done, took);
}

/// What the fields' builds may still do this frame, and have done, in work units.
struct Slice {
    left: u64,
    done: u64,
}

/// One field's frame: repaired to match its grid, and a slice of the build it needs (new goals,
/// built farther, or none yet). Returns the cells settled when the field changed, `None` when
/// it did not.
fn keep_field(
    grid: &NavGrid,
    map: &NavMap,
    slice: &mut Slice,
    (entity, nav): (Entity, &mut NavField),
    extend: &[Entity],
    followers: &Query<(&FollowField, &Transform)>,
    pending: &mut Vec<(Entity, Pending)>,
) -> Option<usize> {
    // A follower stood beyond a field built only as far as its followers needed.
    let farther = nav.cover_followers
        && extend.contains(&entity)
        && nav.field.as_ref().is_some_and(|f| f.limit().is_finite());
    let building = pending.iter().position(|(e, _)| *e == entity);
    // The field as it is, kept in step with the grid by repair (also while a build for new
    // goals goes on: its followers never walk a way a new wall cut). A field whose changes
    // were forgotten, or whose goals' cells were walled, is built again whole (the repair
    // leaves walled goals out).
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
    // The goals it can use now are the field's goals (one walled is left out, one opened
    // again is taken back: a new build).
    let same_goals = nav.field.as_ref().is_some_and(|f| {
        f.goals().iter().eq(nav.goals.iter().filter(|g| usable(grid)(g)))
            && f.flee_weight() == nav.flee
    });
    let wanted = !same_goals || farther || nav.field.is_none();
    if !wanted {
        // (Goals changed and changed back: a build for the others is not needed.)
        if let Some(at) = building {
            pending.swap_remove(at);
        }
        return repaired;
    }
    if let Some(weight) = nav.flee {
        // A flee field: built whole.
        nav.field = Some(build_fleeing(grid, &nav.goals, weight));
        return Some(grid.width() as usize * grid.height() as usize);
    }
    // A field of goals: a slice of its build this frame.
    let at = match building {
        Some(at) => at,
        None => {
            let goals: Vec<GridPos> = nav.goals.iter().copied().filter(usable(grid)).collect();
            // Covering its followers: where they stand (or, none yet, the goals alone:
            // followers that come are covered as they come).
            let cover: Vec<GridPos> = match nav.cover_followers {
                true => followers
                    .iter()
                    .filter(|(f, _)| f.0 == entity)
                    .filter_map(|(_, t)| map.geometry.world_to_cell(t.translation.truncate()).ok())
                    .chain(goals.iter().copied())
                    .collect(),
                false => Vec::new(),
            };
            let build = DistanceField::build_in_slices(grid, &goals, &cover);
            pending.push((entity, Pending { map: nav.map, build }));
            pending.len() - 1
        }
    };
    if slice.left == 0 {
        return repaired; // the frame's builds are done: it goes on next frame
    }
    let build = &mut pending[at].1.build;
    let step = build.step(slice.left);
    slice.left = slice.left.saturating_sub(build.last_step_work());
    slice.done += build.last_step_work();
    let Some(done) = step else {
        return repaired; // not done: the field it replaces (if any) stays meanwhile, repaired
    };
    pending.swap_remove(at);
    // (Its goals were usable when it began: one walled since is left out by the repair.)
    let mut field = done.ok()?;
    // The grid changed while it was built: repaired to match (or, its changes forgotten,
    // built again whole).
    if !field.is_current(grid) {
        let cells: Vec<GridPos> = match grid.changes_since(field.stamp()) {
            Some(changes) => changes.map(|(c, _)| c).collect(),
            None => grid.positions().collect(),
        };
        field.update(grid, cells);
    }
    nav.field = Some(field);
    Some(grid.width() as usize * grid.height() as usize)
}

/// `cell` lies beyond a field that stops short (built only as far as its followers needed), on
/// open ground: the field does not know it yet.
pub(super) fn beyond(field: &DistanceField, map: &NavMap, cell: GridPos) -> bool {
    field.limit().is_finite() && field.cost(cell).is_none() && map.grid.is_passable(cell)
}
