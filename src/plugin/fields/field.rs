//! The field entities and their fields, built and kept in step with their maps.

use bevy::prelude::*;

use super::super::agent::{NavError, Tell, agent_grid};
use super::super::clock::Moment;
use super::super::map::{NavGeometry, NavMap, NavMaps};
use super::super::profiles::{AgentKind, NavProfiles};
use super::super::work::{FrameWork, WorkKind};
use crate::grid::GridPos;
use crate::grid::NavGrid;
use crate::search::{
    DistanceField, FLEE_WEIGHT, PathError, SlicedBuild, check_flee_weight, corners_covering,
};

/// The distance field of `goals` on `map` (the cost from every cell to the nearest goal), which the
/// plugin builds and keeps in step with the map's grid: only the cells whose way to a goal a change
/// touched are settled again. Agents with [`FollowField`] naming this entity walk down it. Change
/// `goals` to move them all: the new field is built a slice a frame
/// ([`WorkShares::fields`](super::super::WorkShares::fields)), the old one followed until it is
/// ready.
///
/// Followers of another kind ([`AgentKind`]: a profile, or a body more than one tile across)
/// walk a field of their own, kept beside this one for each kind in use: built on the map's grid
/// as that kind sees it ([`NavMap::grid_for`]), so a size-2 monster's way down keeps its whole
/// body clear of walls. Such a follower has reached a goal when its body covers a goal cell
/// (its lowest corner stands in the `size` x `size` block below and left of the goal, on a
/// cell where its body fits).
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
    /// The fields of its followers of other kinds, one per kind in use (made when one first
    /// follows, dropped when none is left).
    kinds: Vec<KindField>,
}

/// The field of one kind of follower (not plain: a profile, or a size above one).
#[derive(Clone, Debug)]
struct KindField {
    agent: AgentKind,
    /// `None` while it is built, or when it cannot be (`error` says why).
    field: Option<DistanceField>,
    error: Option<NavError>,
    revision: u64,
}

/// A field as one kind of follower reads it: the field (while there is one), why there is
/// none, and its revision.
#[derive(Clone, Copy)]
pub(super) struct Layer<'a> {
    pub(super) field: Option<&'a DistanceField>,
    pub(super) error: Option<&'a NavError>,
    pub(super) revision: u64,
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
        let kinds = Vec::new();
        Self { map, goals, field, error, work, revision, flee, cover_followers, geometry, kinds }
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

    /// The field followers of kind `agent` walk: [`field`](Self::field) for plain agents (no
    /// profile, size 1), else the one kept for that kind (`None` until a follower of that kind
    /// has made the plugin build it).
    pub fn field_for(&self, agent: AgentKind) -> Option<&DistanceField> {
        self.layer(agent).and_then(|layer| layer.field)
    }

    /// The field of kind `agent` as its followers read it; `None` for a kind it keeps no field
    /// for yet (they wait). A field that failed as a whole (no goal, its map gone) fails for
    /// every kind.
    pub(super) fn layer(&self, agent: AgentKind) -> Option<Layer<'_>> {
        let own = Layer {
            field: self.field.as_ref(),
            error: self.error.as_ref(),
            revision: self.revision,
        };
        if agent.is_plain() || (self.field.is_none() && self.error.is_some()) {
            return Some(own);
        }
        let kind = self.kinds.iter().find(|k| k.agent == agent)?;
        Some(Layer {
            field: kind.field.as_ref(),
            error: kind.error.as_ref(),
            revision: kind.revision,
        })
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
        self.kinds.clear();
    }

    /// What its followers read, in brief: its own field's revision and whether it has one, and
    /// its kinds' (how many, how many have a field, the latest revision: every change to a
    /// kind's field or error takes a new one). Equal before and after a frame's upkeep when
    /// nothing they read changed.
    fn state(&self) -> (u64, bool, usize, usize, u64) {
        let kinds_built = self.kinds.iter().filter(|k| k.field.is_some()).count();
        let latest = self.kinds.iter().map(|k| k.revision).max().unwrap_or(0);
        (self.revision, self.field.is_some(), self.kinds.len(), kinds_built, latest)
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

/// What a follower of `layer` (its kind's field of the entity `follow`), which has no field, is
/// to be told: the state it was told at (to put on it) and why, once for each state of the
/// field. `None` while it has a field, is being built, or the follower was told already (by
/// this or, the same reason, by the movement system).
pub(super) fn no_field(
    layer: Layer,
    follow: Entity,
    read: Option<&ReadFrom>,
    failed: Option<&super::super::agent::PathFailed>,
) -> Option<(ReadFrom, Option<NavError>)> {
    let error = layer.error.filter(|_| layer.field.is_none())?;
    let told = ReadFrom(follow, layer.revision, true);
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

/// A field's build under way, a slice a frame, on this map, for this kind of follower.
pub(crate) struct Pending {
    map: Entity,
    agent: AgentKind,
    build: SlicedBuild<Result<DistanceField, PathError>>,
}

/// The followers of fields, where they stand, and their kinds (none: plain).
type Followers<'w, 's> =
    Query<'w, 's, (&'static FollowField, &'static Transform, Option<&'static AgentKind>)>;

/// Builds or repairs each [`NavField`] to match its map's grid and goals, and the field of each
/// other kind of agent that follows it. A build for new goals runs in slices
/// ([`WorkShares::fields`](super::super::WorkShares::fields)); the field it replaces stays until
/// then. Goals off the map or walled are left out; with none left, or its map gone, it has no
/// field and says why ([`NavField::error`]).
#[allow(clippy::type_complexity)]
pub(crate) fn keep_fields(
    (maps, profiles): (Res<NavMaps>, Res<NavProfiles>),
    (mut fields, followers, kinds, entities): (
        Query<(Entity, &mut NavField)>,
        Followers,
        Query<(&FollowField, &AgentKind)>,
        Query<()>,
    ),
    (mut pending, mut extend): (Local<Vec<(Entity, Pending)>>, ResMut<FieldsToExtend>),
    mut work: FrameWork,
) {
    let extend = std::mem::take(&mut extend.0);
    let frame_began = Moment::now();
    // The builds' units this frame, all fields together (repairs are not counted: done whole).
    let mut slice = Slice { left: work.clockless(WorkKind::Fields), done: 0 };
    // The kinds of agents other than plain following each field.
    let mut wanted: Vec<(Entity, AgentKind)> = Vec::new();
    for (follow, &kind) in &kinds {
        let this = (follow.0, kind);
        if !kind.is_plain() && wanted.last() != Some(&this) && !wanted.contains(&this) {
            wanted.push(this);
        }
    }
    // Builds of fields gone, or moved to another map or made flee fields, or of a kind no
    // longer followed, are dropped. One whose goals changed again goes on: goals that move
    // every frame would otherwise never see a build end; its field is put in, and the next
    // build starts for the goals then.
    pending.retain(|(entity, p)| {
        fields.get(*entity).is_ok_and(|(_, nav)| {
            nav.flee.is_none()
                && nav.map == p.map
                && (p.agent.is_plain() || wanted.contains(&(*entity, p.agent)))
        })
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
        let seen = nav.geometry;
        if seen != Some(map.geometry) {
            // (Read before writing: a field in step is not marked changed every frame.)
            nav.geometry = Some(map.geometry);
            if seen.is_some() {
                // Its followers' world points are stale.
                nav.revision = next_revision();
                for kind in &mut nav.kinds {
                    kind.revision = next_revision();
                }
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
        let began = Moment::now();
        let goals: Vec<GridPos> = nav.goals.iter().copied().filter(usable(grid)).collect();
        let asked = Asked::of(&nav, (entity, AgentKind::PLAIN), &goals, &extend);
        let cover = || covering(&followers, entity, map, AgentKind::PLAIN, &goals);
        // Written unwatched, and marked changed only if it did change: a field in step is not
        // marked changed every frame.
        let before = nav.state();
        let inner = nav.bypass_change_detection();
        let on = (grid, &mut slice, &mut *pending);
        if let Some(settled) = keep_field(on, &asked, &mut inner.field, cover) {
            inner.error = None;
            inner.work = (settled, began.elapsed());
            inner.revision = next_revision();
        }
        let kinds = wanted.iter().filter(|(e, _)| *e == entity).map(|(_, k)| *k);
        let kinds: Vec<AgentKind> = kinds.collect();
        inner.kinds.retain(|k| kinds.contains(&k.agent));
        for agent in kinds {
            let against = (map, &*profiles, &followers, &extend[..]);
            keep_kind(against, &mut slice, (entity, &mut *inner), agent, &mut pending);
        }
        if nav.state() != before {
            nav.set_changed();
        }
    }
    let took = frame_began.elapsed();
    work.diagnostics.field_time += took;
    work.spend(WorkKind::Fields, slice.done, took);
}

/// Where the followers of field `entity` of kind `agent` stand on `map`, and `goals` (a field
/// built only as far as its followers need covers these; with no follower yet, the goals
/// alone: followers that come are covered as they come).
fn covering(
    followers: &Followers,
    entity: Entity,
    map: &NavMap,
    agent: AgentKind,
    goals: &[GridPos],
) -> Vec<GridPos> {
    let offset = map.geometry.body_offset(agent.size);
    followers
        .iter()
        .filter(|(f, _, k)| f.0 == entity && k.copied().unwrap_or_default() == agent)
        .filter_map(|(_, t, _)| map.geometry.world_to_cell(t.translation.truncate() - offset).ok())
        .chain(goals.iter().copied())
        .collect()
}

/// The field of kind `agent` (not plain) that follows field `entity`: made when first
/// followed, kept in step with the kind's grid as the plain one is with the map's.
fn keep_kind(
    (map, profiles, followers, extend): (&NavMap, &NavProfiles, &Followers, &[Entity]),
    slice: &mut Slice,
    (entity, nav): (Entity, &mut NavField),
    agent: AgentKind,
    pending: &mut Vec<(Entity, Pending)>,
) {
    if !nav.kinds.iter().any(|k| k.agent == agent) {
        let (field, error, revision) = (None, None, next_revision());
        nav.kinds.push(KindField { agent, field, error, revision });
    }
    let grid = match agent_grid(map, agent, profiles) {
        Ok(grid) => grid,
        // Its grid is being made a slice a frame: its followers wait.
        Err(NavError::NoAgentGrid { .. }) if map.builds_grid_for(agent) => return,
        Err(error) => {
            // A kind the map cannot serve (a size on a hex map, a profile not registered, or
            // no grids made for kinds: `NavAgentGridsPlugin` left out).
            if let Some(kind) = nav.kinds.iter_mut().find(|k| k.agent == agent)
                && kind.error.as_ref() != Some(&error)
            {
                *kind =
                    KindField { agent, field: None, error: Some(error), revision: next_revision() };
            }
            return;
        }
    };
    let goals = kind_goals(grid, &nav.goals, agent.size);
    let asked = Asked::of(nav, (entity, agent), &goals, extend);
    let Some(kind) = nav.kinds.iter_mut().find(|k| k.agent == agent) else { return };
    if goals.is_empty() && asked.flee.is_none() {
        // No goal its body can cover: none for this kind until one opens.
        pending.retain(|(e, p)| *e != entity || p.agent != agent);
        let goal = nav.goals.first().copied().unwrap_or_default();
        let error = NavError::Search(PathError::GoalBlocked { goal });
        if kind.field.is_some() || kind.error.as_ref() != Some(&error) {
            *kind = KindField { agent, field: None, error: Some(error), revision: next_revision() };
        }
        return;
    }
    let cover = || covering(followers, entity, map, agent, &goals);
    if keep_field((grid, slice, pending), &asked, &mut kind.field, cover).is_some() {
        kind.error = None;
        kind.revision = next_revision();
    }
}

/// The cells of an agent `size` tiles across (its lowest corner's, on its kind's `grid`) from
/// which its body covers one of `goals`, and fits; sorted, each once. For size 1, the goals
/// open on `grid`.
pub(super) fn kind_goals(grid: &NavGrid, goals: &[GridPos], size: u32) -> Vec<GridPos> {
    let mut cells = corners_covering(goals, size);
    cells.retain(usable(grid));
    cells
}

/// What the frame's builds may still do, and have done, in work units.
struct Slice {
    left: u64,
    done: u64,
}

/// What one field of a [`NavField`] is to be: its key among the builds under way (the entity
/// and the kind of follower), its goals on its grid, its flee weight, whether it is built only
/// as far as its followers need, and whether a follower asked for it farther.
struct Asked<'a> {
    key: (Entity, AgentKind),
    map: Entity,
    goals: &'a [GridPos],
    flee: Option<f64>,
    cover: bool,
    farther: bool,
}

impl<'a> Asked<'a> {
    fn of(
        nav: &NavField,
        key: (Entity, AgentKind),
        goals: &'a [GridPos],
        extend: &[Entity],
    ) -> Self {
        let (map, flee, cover) = (nav.map, nav.flee, nav.cover_followers);
        let farther = cover && extend.contains(&key.0);
        Self { key, map, goals, flee, cover, farther }
    }
}

/// One field's frame (`slot`, on `grid`): repaired to match its grid, and a slice of the build
/// it needs (new goals, built farther, or none yet). Returns the cells settled when the field
/// changed, `None` when it did not.
fn keep_field(
    (grid, slice, pending): (&NavGrid, &mut Slice, &mut Vec<(Entity, Pending)>),
    asked: &Asked,
    slot: &mut Option<DistanceField>,
    cover: impl FnOnce() -> Vec<GridPos>,
) -> Option<usize> {
    let (entity, agent) = asked.key;
    // A follower stood beyond a field built only as far as its followers needed.
    let farther = asked.farther && slot.as_ref().is_some_and(|f| f.limit().is_finite());
    let building = pending.iter().position(|(e, p)| *e == entity && p.agent == agent);
    // The field as it is, kept in step with the grid by repair (also while a build for new
    // goals goes on: its followers never walk a way a new wall cut). A field whose changes
    // were forgotten, or whose goals' cells were walled, is built again whole (the repair
    // leaves walled goals out).
    let mut repaired = None;
    let stale = slot.as_ref().is_some_and(|f| !f.is_current(grid));
    if stale && let Some(field) = slot.as_mut() {
        match grid.changes_since(field.stamp()) {
            Some(changes) => {
                let cells: Vec<GridPos> = changes.map(|(cell, _)| cell).collect();
                repaired = Some(field.update(grid, cells));
            }
            None => *slot = None,
        }
    }
    // The goals it can use now are the field's goals (one walled is left out, one opened
    // again is taken back: a new build).
    let same_goals = slot
        .as_ref()
        .is_some_and(|f| f.goals().iter().eq(asked.goals.iter()) && f.flee_weight() == asked.flee);
    let wanted = !same_goals || farther || slot.is_none();
    if !wanted {
        // (Goals changed and changed back: a build for the others is not needed.)
        if let Some(at) = building {
            pending.swap_remove(at);
        }
        return repaired;
    }
    if let Some(weight) = asked.flee {
        // A flee field: built whole.
        *slot = Some(build_fleeing(grid, asked.goals, weight));
        return Some(grid.width() as usize * grid.height() as usize);
    }
    // A field of goals: a slice of its build this frame.
    let at = match building {
        Some(at) => at,
        None => {
            let cover = if asked.cover { cover() } else { Vec::new() };
            let build = DistanceField::build_in_slices(grid, asked.goals, &cover);
            pending.push((entity, Pending { map: asked.map, agent, build }));
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
    *slot = Some(field);
    Some(grid.width() as usize * grid.height() as usize)
}

/// `cell` lies beyond a field that stops short (built only as far as its followers needed), on
/// open ground: the field does not know it yet.
pub(super) fn beyond(field: &DistanceField, grid: &NavGrid, cell: GridPos) -> bool {
    field.limit().is_finite() && field.cost(cell).is_none() && grid.is_passable(cell)
}
