//! Maps whose edges touch join there: chunks of one world (bevy_ecs_tilemap's chunking, LDtk
//! levels side by side) are walked across as one map, with no links by hand.
//!
//! Maps of one type whose cells lie on one lattice in the world (the same steps to the next
//! cell across and up, their origins a whole number of cells apart; on hex maps in offset
//! coordinates an even number) and that do not overlap form a *world*. Each step that a grid would allow between two cells if the maps were one (a
//! straight step, or a diagonal one that the corner rule allows, its side cells read on whatever
//! map holds them) becomes a one-way [`NavLink`] marked [`NavSeam`], costing what that step would
//! cost on one grid (its length times the far cell's cost). The linked search is one A* over all
//! cells with links as steps, so a path across seams costs what it would on one grid. An agent
//! walks across a seam as across any step (it is not carried, and no [`LinkCrossed`] is sent).
//!
//! The seams are made again when a map of a world comes, goes, moves or changes a cell, so a
//! chunk streamed out takes its seams with it (paths through them are planned again) and one
//! streamed in brings new ways.
//!
//! [`LinkCrossed`]: super::LinkCrossed

use std::collections::HashMap;

use bevy::prelude::*;

use super::link::{FrameLinks, LinkEnd, NavLink};
use super::map::{NavMap, NavMaps};
use super::profiles::AgentKind;
use super::settings::NavSettings;
use crate::grid::{GridStamp, NavGrid, Neighborhood};
use crate::search::{LinkedMaps, LinkedPath, MapPos, PathError, Placement, WorldGraph, seam_links};

/// Marks a [`NavLink`] the plugin keeps across the seam of two maps whose edges touch (see
/// [`NavSettings::join_touching_maps`]). The plugin spawns and despawns these; paths go through
/// them like any link, and agents walk across them.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[reflect(Component)]
pub struct NavSeam;

/// A map that can join as the seams were made from it: its entity, grid stamp (a corner rule
/// or neighborhood changed moves it too), cell lattice and size.
type Seen = (Entity, GridStamp, [Vec2; 3], (u32, u32));

/// What the seams were made from, and the seam links made.
#[derive(Resource, Default)]
pub(crate) struct Seams {
    /// Each map that can join, when the seams were last made.
    seen: Vec<Seen>,
    /// Each seam link by its ends: its entity and cost.
    links: HashMap<(LinkEnd, LinkEnd), (Entity, f64)>,
    /// Where each map of a world lies on the world's lattice (for the search's estimate).
    pub(crate) places: Vec<(Entity, Placement)>,
}

impl Seams {
    /// The seam link from `from` to `to` (one step across a seam): its entity and cost.
    pub(crate) fn between(&self, from: LinkEnd, to: LinkEnd) -> Option<(Entity, f64)> {
        self.links.get(&(from, to)).copied()
    }
}

/// A map of a world: the map, and where its cell (0, 0) lies on the world's lattice.
struct Member<'a> {
    map: &'a NavMap,
    at: IVec2,
    size: IVec2,
}

impl Member<'_> {
    fn overlaps(&self, other: &Member) -> bool {
        let (a0, a1) = (self.at, self.at + self.size);
        let (b0, b1) = (other.at, other.at + other.size);
        a0.x < b1.x && b0.x < a1.x && a0.y < b1.y && b0.y < a1.y
    }
}

/// Where `origin` lies on the lattice of a map whose cell (0, 0) is at `base` with steps
/// `across` and `up`: whole cells, or `None` when it lies between them.
fn lattice_offset(base: Vec2, across: Vec2, up: Vec2, origin: Vec2) -> Option<IVec2> {
    let det = across.x * up.y - across.y * up.x;
    if det.abs() < 1e-9 {
        return None;
    }
    let d = origin - base;
    let k = (d.x * up.y - d.y * up.x) / det;
    let m = (across.x * d.y - across.y * d.x) / det;
    let (rk, rm) = (k.round(), m.round());
    let whole = (k - rk).abs() < 1e-3 && (m - rm).abs() < 1e-3;
    let fits = rk.abs() < i32::MAX as f32 / 2.0 && rm.abs() < i32::MAX as f32 / 2.0;
    (whole && fits).then(|| IVec2::new(rk as i32, rm as i32))
}

/// The same step on the world: equal within a part in ten thousand of its length.
fn same_step(a: Vec2, b: Vec2) -> bool {
    (a - b).length() <= 1e-4 * a.length().max(b.length())
}

/// The worlds among the maps: groups of maps on one lattice that do not overlap, each member
/// with its place on the group's lattice. A map that overlaps a group (a floor drawn over
/// another) starts a group of its own.
fn worlds(maps: &NavMaps) -> Vec<Vec<Member<'_>>> {
    let mut groups: Vec<(Vec2, Vec2, Vec2, Neighborhood, Vec<Member>)> = Vec::new();
    for map in maps.iter() {
        let Some(([origin, across, up], k)) = map.geometry.lattice() else { continue };
        let moves = map.grid.neighborhood();
        if !origin.is_finite() || !across.is_finite() || !up.is_finite() {
            continue;
        }
        let size = IVec2::new(map.grid.width() as i32, map.grid.height() as i32);
        let fits = groups.iter_mut().find_map(|(base, a, u, n, members)| {
            if !same_step(*a, across) || !same_step(*u, up) || *n != moves {
                return None;
            }
            // (On an offset hex map the lattice's steps are two cells.)
            let at = lattice_offset(*base, *a, *u, origin)?.checked_mul(IVec2::splat(k))?;
            let member = Member { map, at, size };
            if members.iter().any(|m| m.overlaps(&member)) {
                return None;
            }
            let rule = |m: &Member| m.map.grid.corner_rule();
            members.iter().all(|m| rule(m) == rule(&member)).then_some((members, member))
        });
        match fits {
            Some((members, member)) => members.push(member),
            None => {
                let member = Member { map, at: IVec2::ZERO, size };
                groups.push((origin, across, up, moves, vec![member]));
            }
        }
    }
    groups.into_iter().map(|g| g.4).filter(|m| m.len() > 1).collect()
}

/// Spawns the seam link from `from` to `to`.
fn spawn_seam(commands: &mut Commands, (from, to): (LinkEnd, LinkEnd), cost: f64) -> Entity {
    commands.spawn((NavLink::one_way(from, to, cost), NavSeam)).id()
}

/// Keeps the seam links in step with the maps: made again whenever a map that can join comes,
/// goes, moves or changes, and all taken away when [`NavSettings::join_touching_maps`] is off.
pub(crate) fn keep_seams(
    mut commands: Commands,
    settings: Res<NavSettings>,
    maps: Res<NavMaps>,
    mut seams: ResMut<Seams>,
    mut links: Query<&mut NavLink, With<NavSeam>>,
) {
    // (Compared each frame without collecting: a list is made only when something changed.)
    let joining = settings.join_touching_maps;
    let seen = || {
        maps.iter().filter(|_| joining).filter_map(|m| -> Option<Seen> {
            let (lattice, _) = m.geometry.lattice()?;
            Some((m.entity, m.grid.stamp(), lattice, (m.grid.width(), m.grid.height())))
        })
    };
    if seen().eq(seams.seen.iter().copied()) {
        return;
    }
    let mut wanted = HashMap::new();
    let mut places = Vec::new();
    let worlds = if joining { worlds(&maps) } else { Vec::new() };
    for (number, world) in worlds.iter().enumerate() {
        // Each member's place, for the search's estimate and for the core to work out the
        // steps across the world's seams.
        let at =
            |m: &Member| Placement { world: number as u32, x: m.at.x.into(), y: m.at.y.into() };
        let lattice: Vec<Option<Placement>> = world.iter().map(|m| Some(at(m))).collect();
        let grids: Vec<&NavGrid> = world.iter().map(|m| &m.map.grid).collect();
        for link in seam_links(&grids, &lattice) {
            let end = |p: MapPos| LinkEnd::new(world[p.map].map.entity, p.cell);
            wanted.insert((end(link.from), end(link.to)), link.cost);
        }
        places.extend(world.iter().zip(lattice.iter().flatten()).map(|(m, &p)| (m.map.entity, p)));
    }
    let Seams { links: kept, seen: was, places: placed } = &mut *seams;
    *placed = places;
    *was = seen().collect();
    kept.retain(|ends, (entity, cost)| match wanted.remove(ends) {
        None => {
            if let Ok(mut e) = commands.get_entity(*entity) {
                e.despawn();
            }
            false
        }
        Some(now) => {
            match links.get_mut(*entity) {
                Ok(mut link) if now != *cost => link.cost = now,
                Ok(_) => {}
                // (Despawned by someone else: made again.)
                Err(_) => *entity = spawn_seam(&mut commands, *ends, now),
            }
            *cost = now;
            true
        }
    });
    for ((from, to), cost) in wanted {
        kept.insert((from, to), (spawn_seam(&mut commands, (from, to), cost), cost));
    }
}

/// The graph of each world for each kind of agent (its grids differ), for
/// [`WorldSearch::Hierarchical`](super::WorldSearch::Hierarchical): kept from one search to the
/// next, each chunk's part worked out again when that chunk or its neighbours change.
#[derive(Resource, Default)]
pub(crate) struct WorldGraphs(HashMap<AgentKind, WorldGraph>);

impl WorldGraphs {
    /// Works out `agent`'s graph for the chunks that need it, a chunk at a time, until none is
    /// left, `work` units are spent or `stop` says so (one chunk at least). Returns the work
    /// done.
    pub(crate) fn warm(
        &mut self,
        grids: &[&NavGrid],
        links: &FrameLinks,
        agent: AgentKind,
        work: u64,
        stop: impl Fn() -> bool,
    ) -> u64 {
        let world = LinkedMaps::new(grids, &links.links).with_places(&links.places);
        let graph = self.0.entry(agent).or_default();
        let before = graph.work();
        while !graph.update_within(world, 1) && graph.work() - before < work && !stop() {}
        graph.work() - before
    }

    /// A path over `grids` (each map's grid for `agent`), their seams and the links of `links`;
    /// the legs name links by their place in `links`.
    pub(crate) fn find(
        &mut self,
        grids: &[&NavGrid],
        links: &FrameLinks,
        (agent, start, goal): (AgentKind, MapPos, MapPos),
    ) -> Result<LinkedPath, PathError> {
        let world = LinkedMaps::new(grids, &links.links).with_places(&links.places);
        self.0.entry(agent).or_default().find(world, start, goal)
    }
}
