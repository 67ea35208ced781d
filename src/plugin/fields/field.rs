//! The field entities and their fields, built and kept in step with their maps.

use bevy::prelude::*;

use super::super::clock::Moment;
use super::super::diagnostics::{NavDiagnostics, Stopwatch};
use super::super::map::{NavMap, NavMaps};
use super::super::settings::NavSettings;
use crate::grid::GridPos;
use crate::grid::NavGrid;
use crate::search::{DistanceField, FLEE_WEIGHT, PathError, SlicedBuild};

/// The distance field of `goals` on `map` (the cost from every cell to the nearest goal), which
/// the plugin builds and keeps in step with the map's grid: only the cells whose way to a goal
/// a change touched are settled again. Agents with [`FollowField`] naming this entity walk
/// down it. Change `goals` to move them all: the new field is built a slice a frame
/// ([`NavSettings::field_slice_work`]), the old one followed until it is ready.
#[derive(Component, Clone, Debug)]
pub struct NavField {
    /// The map it lies on (its [`NavMap::entity`](super::super::NavMap::entity)).
    pub map: Entity,
    /// Where it leads: cells of that map.
    pub goals: Vec<GridPos>,
    field: Option<DistanceField>,
    /// Why there is no field: goals off the map or walled, or no goals.
    error: Option<PathError>,
    /// Cells settled by the last build or repair, and the time it took.
    work: (usize, std::time::Duration),
    /// Counts the builds and repairs: followers read their ways again when it moves on.
    pub(super) revision: u64,
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
    pub(super) fn ask(&mut self, field: Entity) {
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
/// [`GridLocked`](super::super::GridLocked) is given its way as a [`Path`](super::super::Path)
/// (read off the field, no search) and walks it as any path. Any other walks straight off the field
/// with no `Path` at all: from each waypoint to the next cell down the field (or, when its follower
/// is smoothed, to the farthest of the next few in a straight line that costs no more than the way
/// down), which is what lets tens of thousands follow one field.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct FollowField(pub Entity);

/// On a field follower: the field state its path was read from, and whether that gave no way
/// (it was told, and is not told again until the field changes).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub(crate) struct ReadFrom(pub(super) Entity, pub(super) u64, pub(super) bool);

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

/// `cell` lies beyond a field that stops short (built only as far as its followers needed), on
/// open ground: the field does not know it yet.
pub(super) fn beyond(field: &DistanceField, map: &NavMap, cell: GridPos) -> bool {
    field.limit().is_finite() && field.cost(cell).is_none() && map.grid.is_passable(cell)
}
