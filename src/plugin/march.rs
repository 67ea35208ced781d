//! Group orders walked in formation: members of a [`GroupOrder`](super::GroupOrder) given
//! `marching` keep their slots round one anchor on the way ([`March`]), file through what is
//! too narrow for the formation and form again after it, and walk the last cell to their own
//! goals as a request.

use bevy::prelude::*;

use crate::grid::GridPos;
use crate::path::{March, Place, best_assignment, smooth_path, step_towards};
use crate::plugin::agent::{NavPath, PathFollower, PathGoal, PathRequest, Replanning};
use crate::plugin::map::{NavMap, NavMaps};
use crate::plugin::pursuit::Pursuit;
use crate::search::{PathQuery, Pathfinder};

/// The most members an order marches; a larger order's members walk to their cells each by
/// its own way (as without `marching`).
pub const MAX_MARCHING: usize = 256;

/// How far from its slot (cells) a member in formation may be before it counts as taking its
/// slot again rather than keeping it: the anchor stands for one nearer, walks on at half the
/// pace for one further.
const REFORMING: f32 = 2.0;

/// How long a member may have no straight way to its place before it leaves the march and
/// walks to its goal by a path of its own, in seconds.
pub const LOST_AFTER: f32 = 1.0;

/// On a member of a marching group order: the order entity (with its [`GroupMarch`]) that
/// moves it. The plugin's walker leaves it alone meanwhile (it has no [`NavPath`]); a
/// [`PathRequest`] given to it, or another order, takes it out of the march.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Reflect)]
#[reflect(Component)]
pub struct Marching {
    /// The order entity.
    pub order: Entity,
}

/// On a marching group order's entity, until every member is at its place at the goal (then
/// each walks onto its own cell as a request, and the entity is despawned): the march, and
/// who walks it.
#[derive(Component, Clone, Debug)]
pub struct GroupMarch {
    march: March,
    /// Each slot's member.
    members: Vec<Member>,
    map: Entity,
    /// The anchor's most speed: the slowest member's.
    pace: f32,
    /// A cell's width in the world (how close counts as in place).
    tile: f32,
}

/// A slot of a march and who walks it.
#[derive(Clone, Copy, Debug)]
struct Member {
    /// `None`: it left the march.
    entity: Option<Entity>,
    /// The cell it walks onto at the end.
    goal: GridPos,
    /// How long it has had no straight way to its place or the route, in seconds.
    unseen: f32,
    /// How long it has waited for others to make room, in seconds.
    waited: f32,
}

impl GroupMarch {
    /// The march: its route, slots and how far along the anchor is.
    pub fn march(&self) -> &March {
        &self.march
    }

    /// The members still marching.
    pub fn members(&self) -> impl Iterator<Item = Entity> + '_ {
        self.members.iter().filter_map(|m| m.entity)
    }

    /// The goal cell `member` marches to.
    pub fn goal_of(&self, member: Entity) -> Option<GridPos> {
        self.members.iter().find(|m| m.entity == Some(member)).map(|m| m.goal)
    }

    /// The map it marches on.
    pub fn map(&self) -> Entity {
        self.map
    }
}

/// One member to march: its entity, where it stands, its speed and its goal cell.
pub(crate) struct Marcher {
    pub entity: Entity,
    pub at: Vec2,
    pub speed: f32,
    pub goal: GridPos,
}

/// The march of `marchers` to `goal` on `map` (their goal cells round it; handed out again so
/// that each keeps its place in the group), a cell apart in file: the route runs from the cell
/// of the member nearest the group's middle. `None` when there is none to make: too few or
/// too many members, no way to the goal, bad numbers.
pub(crate) fn plan_march(map: &NavMap, marchers: &[Marcher], goal: GridPos) -> Option<GroupMarch> {
    if marchers.len() < 2 || marchers.len() > MAX_MARCHING {
        return None;
    }
    let middle = marchers.iter().map(|m| m.at).sum::<Vec2>() / marchers.len() as f32;
    let centre = map.geometry.cell_to_world(goal);
    // The goal cells handed out again so that each keeps its place in the group: the slot
    // nearest where it stands from the group's middle (no two crossing on the way).
    let n = marchers.len();
    let costs: Vec<f64> = marchers
        .iter()
        .flat_map(|a| {
            let from = a.at - middle;
            let slot = |b: &Marcher| {
                f64::from((map.geometry.cell_to_world(b.goal) - centre - from).length_squared())
            };
            marchers.iter().map(slot).collect::<Vec<_>>()
        })
        .collect();
    let goals: Vec<GridPos> =
        best_assignment(&costs, n).into_iter().map(|s| marchers[s].goal).collect();
    let first =
        marchers.iter().min_by(|a, b| a.at.distance(middle).total_cmp(&b.at.distance(middle)))?;
    let start = map.geometry.world_to_cell(first.at).ok()?;
    let cells = Pathfinder::new().find(&map.grid, &PathQuery::new(start, goal)).ok()?.cells;
    let world = |cells: &[GridPos]| -> Vec<Vec2> {
        cells.iter().map(|&c| map.geometry.cell_to_world(c)).collect()
    };
    // The path pulled tight, where its straight lines are open in the world too (on a hex
    // map a line between cells in the grid need not be one between their centres).
    let ground = Ground::of(map);
    let tight = world(&smooth_path(&map.grid, &cells));
    let open_line = |w: &[Vec2]| ground.clear_within(w[0], w[1], u32::MAX);
    let route = if tight.windows(2).all(open_line) { tight } else { world(&cells) };
    let tile = ground.tile;
    let slots = goals.iter().map(|&g| map.geometry.cell_to_world(g) - centre).collect();
    // In file one cell apart, whatever the formation's spacing.
    let march = March::new(route, slots, tile)?;
    let pace = marchers.iter().map(|m| m.speed).fold(f32::INFINITY, f32::min);
    let members = marchers
        .iter()
        .zip(goals)
        .map(|(m, g)| Member { entity: Some(m.entity), goal: g, unseen: 0.0, waited: 0.0 })
        .collect();
    (pace.is_finite() && pace > 0.0 && tile > 0.0).then_some(GroupMarch {
        march,
        members,
        map: map.entity,
        pace,
        tile,
    })
}

/// A map as a march reads it: which points are open, which straight ways clear, and a
/// cell's width in the world (worked out once a frame, not once a look).
struct Ground<'a> {
    map: &'a NavMap,
    tile: f32,
}

impl<'a> Ground<'a> {
    fn of(map: &'a NavMap) -> Self {
        let (a, b) = (GridPos::new(0, 0), GridPos::new(1, 0));
        let tile = map.geometry.cell_to_world(b).distance(map.geometry.cell_to_world(a));
        Self { map, tile }
    }

    /// True when `at` is on an open cell.
    fn open(&self, at: Vec2) -> bool {
        self.map.geometry.world_to_cell(at).is_ok_and(|c| self.map.grid.is_passable(c))
    }

    /// True when the straight way from `a` to `b` crosses only open cells (looked at every
    /// quarter of a cell; a way longer than 64 cells is not counted as straight: a member's
    /// place is near).
    fn clear(&self, a: Vec2, b: Vec2) -> bool {
        self.clear_within(a, b, 256)
    }

    /// [`clear`](Self::clear), looking at no more than `most` points.
    fn clear_within(&self, a: Vec2, b: Vec2, most: u32) -> bool {
        let steps = (a.distance(b) / (self.tile.max(1e-3) * 0.25)).ceil();
        if !steps.is_finite() || steps > most as f32 {
            return false;
        }
        let steps = (steps as u32).max(1);
        (0..=steps).all(|i| self.open(a.lerp(b, i as f32 / steps as f32)))
    }

    /// The point of `march`'s route nearest its anchor that `pos` has a straight way to,
    /// looking back from the anchor half a cell at a time as far as the file may reach, 32
    /// cells at most (`None`: none).
    fn along_route(&self, march: &March, pos: Vec2) -> Option<Vec2> {
        let step = (self.tile * 0.5).max(1e-3);
        let looks = ((march.file_length() / step).ceil() as usize).min(64);
        (0..=looks)
            .map(|k| march.point_at(march.travelled() - k as f32 * step))
            .find(|&p| self.clear(pos, p))
    }
}

/// What one frame of a march did with a member.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Stride {
    /// It moved (or stood) here.
    To(Vec2),
    /// It left the march: it walks to its goal on its own.
    Left,
}

impl GroupMarch {
    /// One frame of `dt` seconds: each member (`at[i]`: where it stands and its speed, `None`
    /// gone) steps towards its place, in file order (straight, else turned round whoever is in
    /// the way), never closer than half a cell to another member than it was (else it waits,
    /// and after [`LOST_AFTER`] seconds of waiting walks on); one with no straight way to its
    /// place walks the route towards the anchor, as far along as it sees. The anchor walks on
    /// at the pace while the formation keeps up ([`keep_up`](Self::keep_up); members in file,
    /// with no straight way to their slots, or held up by other members this frame do not
    /// hold it).
    /// Members with no straight way to their place or the route for [`LOST_AFTER`] seconds,
    /// standing on no number, or with no speed, leave. Returns each member's stride, and
    /// whether the march arrived: the anchor was at the goal and every member still marching
    /// is within a quarter of a cell of its place.
    pub(crate) fn stride(
        &mut self,
        map: &NavMap,
        at: &[Option<(Vec2, f32)>],
        dt: f32,
    ) -> (Vec<Stride>, bool) {
        let ground = Ground::of(map);
        let places = self.march.targets(|a, b| ground.clear(a, b));
        // Arrived: the anchor at the goal, and every member still marching in place.
        let mut arrived = self.march.is_done();
        let mut strides = vec![Stride::Left; at.len()];
        let mut now: Vec<Option<Vec2>> = at.iter().map(|a| a.map(|(p, _)| p)).collect();
        let (mut furthest, mut reforming): (f32, bool) = (0.0, false);
        let keep = self.tile * 0.5;
        // A step from `from` to `to` that comes within `keep` of another at `other`, nearer
        // than it was.
        let crowds = |from: Vec2, to: Vec2, other: Option<Vec2>| {
            other.is_some_and(|o| {
                o != from && to.distance(o) < keep && to.distance(o) < from.distance(o)
            })
        };
        for i in self.march.file_order() {
            let member = &mut self.members[i];
            let Some((pos, speed)) = at[i].filter(|_| member.entity.is_some()) else {
                member.entity = None;
                now[i] = None;
                continue;
            };
            let place = places[i].point();
            let target = if ground.clear(pos, place) {
                Some(place)
            } else {
                ground.along_route(&self.march, pos)
            };
            member.unseen = if target.is_some() { 0.0 } else { member.unseen + dt };
            // Lost, on no number, or with no speed to keep up (the march would wait for it).
            if !pos.is_finite() || member.unseen > LOST_AFTER || !(speed.is_finite() && speed > 0.0)
            {
                member.entity = None;
                now[i] = None;
                continue;
            }
            let aim = target.unwrap_or(place);
            // Straight on, else round whoever is in the way (45 then 90 degrees either side).
            let room = |p: Vec2| now.iter().enumerate().all(|(j, o)| j == i || !crowds(pos, p, *o));
            let turns = [0.0f32, 0.785, -0.785, 1.571, -1.571];
            let step = turns.iter().find_map(|&turn| {
                let towards = pos + Vec2::from_angle(turn).rotate(aim - pos);
                let p = step_towards(pos, towards, speed * dt, |p| ground.open(p));
                (p != pos && room(p)).then_some(p)
            });
            let next = match step {
                Some(p) => {
                    member.waited = 0.0;
                    p
                }
                None if member.waited > LOST_AFTER => {
                    member.waited = 0.0;
                    step_towards(pos, aim, speed * dt, |p| ground.open(p))
                }
                None => {
                    member.waited += dt;
                    pos
                }
            };
            now[i] = Some(next);
            // Held up: no nearer its aim (waiting, or turned aside round another member).
            let held_up = next.distance(aim) >= pos.distance(aim) - speed * dt * 0.25;
            // The anchor waits for those in formation with a straight way to their slots; the
            // file, and those still coming through what the formation does not fit, catch up.
            // It does not wait for one held up by other members (one walled in by the
            // formation itself would hold it for ever): the way clears as the group walks on.
            if matches!(places[i], Place::InFormation(_)) && target == Some(place) && !held_up {
                let off = next.distance(place);
                // Within two cells it keeps the shape; further, it is taking its slot again
                // (out of the file, round a corner): the anchor walks on at half the pace,
                // which every member outwalks (the pace is the slowest member's speed).
                if off <= REFORMING * self.tile {
                    furthest = furthest.max(off);
                } else {
                    reforming = true;
                }
            }
            arrived &= next.distance(place) <= self.tile * 0.25;
            strides[i] = Stride::To(next);
        }
        let keep_up = self.keep_up(&ground, &places, furthest, reforming);
        self.march.advance(self.pace * keep_up * dt);
        (strides, arrived)
    }
}

impl GroupMarch {
    /// The share of its pace the anchor walks at this frame, given how far the member in
    /// formation furthest from its slot (within [`REFORMING`] cells) is, and whether one is
    /// further (`reforming`: taking its slot again, out of the file or round a corner).
    ///
    /// Slower as the furthest falls behind, standing at two cells. One re-forming halves the
    /// pace, which every member outwalks (the pace is the slowest member's speed): standing
    /// for it would stand the whole file behind it. Near a goal where the formation stands
    /// within a cell of what is shut, the anchor stands for it while others still file: the
    /// ranks stop there, and must not stand across the way of those still to come out of the
    /// narrows.
    fn keep_up(&self, ground: &Ground, places: &[Place], furthest: f32, reforming: bool) -> f32 {
        let slack = self.tile;
        let keep_up = ((REFORMING * slack - furthest) / slack).clamp(0.0, 1.0);
        if !reforming {
            return keep_up;
        }
        let near_end = self.march.remaining() <= self.march.depth() + 2.0 * self.tile;
        let filing = || places.iter().any(|p| matches!(p, Place::InFile(_)));
        let end = self.march.point_at(self.march.length());
        let round = [Vec2::ZERO, Vec2::X, Vec2::NEG_X, Vec2::Y, Vec2::NEG_Y].map(|d| d * slack);
        let tight = || {
            let slots = self.march.slots().iter();
            slots.flat_map(|s| round.map(|d| end + *s + d)).any(|p| !ground.open(p))
        };
        if near_end && filing() && tight() { 0.0 } else { keep_up.min(0.5) }
    }
}

/// Sends `member` to its goal `cell` on `map` as a request, out of any march.
fn walk_on(commands: &mut Commands, member: Entity, map: Entity, cell: GridPos) {
    if let Ok(mut member) = commands.get_entity(member) {
        member.remove::<Marching>().insert(PathRequest::to(PathGoal::OnMap { map, cell }));
    }
}

/// Starts a member marching under `order`: it leaves the path it walks (and a chase or a
/// flight it was on).
pub(crate) fn join_march(commands: &mut Commands, member: Entity, order: Entity) {
    let mut member = commands.entity(member);
    member.remove::<(NavPath, PathRequest, Replanning, Pursuit)>().insert(Marching { order });
}

/// A member's part in one frame: where it stands, its speed, and whether it still marches
/// under the order (no request given it since, nor a path, no other order).
type MemberData = (
    &'static mut Transform,
    &'static PathFollower,
    &'static Marching,
    Has<PathRequest>,
    Has<NavPath>,
);

/// Moves the members of every marching order one frame, and ends the marches that arrived:
/// their members walk onto their own cells as requests.
pub(crate) fn march_groups(
    mut commands: Commands,
    time: Res<Time>,
    maps: Res<NavMaps>,
    mut marches: Query<(Entity, &mut GroupMarch)>,
    mut members: Query<MemberData>,
) {
    let dt = time.delta_secs();
    for (order, mut group) in &mut marches {
        let Some(map) = maps.get(group.map) else {
            end_march(&mut commands, order, &group);
            continue;
        };
        let now: Vec<Option<(Vec2, f32)>> = group
            .members
            .iter()
            .map(|m| {
                let (place, follower, marching, asked, walks) = members.get(m.entity?).ok()?;
                (marching.order == order && !asked && !walks)
                    .then(|| (place.translation.truncate(), follower.speed))
            })
            .collect();
        let was: Vec<Option<Entity>> = group.members.iter().map(|m| m.entity).collect();
        let (strides, arrived) = group.stride(map, &now, dt);
        for (i, stride) in strides.iter().enumerate() {
            let Some(entity) = was[i] else { continue };
            match stride {
                Stride::To(p) => {
                    if let Ok((mut place, ..)) = members.get_mut(entity) {
                        place.translation.x = p.x;
                        place.translation.y = p.y;
                    }
                }
                // Lost on the way: it walks on alone (one given another order or request, or
                // despawned, is left as it is).
                Stride::Left if now[i].is_some() => {
                    walk_on(&mut commands, entity, group.map, group.members[i].goal);
                }
                // Given a request or despawned: it is no longer ours.
                Stride::Left => {
                    let ours = members.get(entity).is_ok_and(|m| m.2.order == order);
                    if ours {
                        commands.entity(entity).remove::<Marching>();
                    }
                }
            }
        }
        if group.members.iter().all(|m| m.entity.is_none()) || arrived {
            end_march(&mut commands, order, &group);
        }
    }
}

/// Ends a march: its members still in it walk onto their cells; the order entity goes.
fn end_march(commands: &mut Commands, order: Entity, group: &GroupMarch) {
    for Member { entity: member, goal: cell, .. } in &group.members {
        if let Some(member) = member {
            walk_on(commands, *member, group.map, *cell);
        }
    }
    if let Ok(mut order) = commands.get_entity(order) {
        order.despawn();
    }
}
