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
//! streamed in brings new ways. When maps only changed cells, only the seams within a step of
//! those maps are worked out again ([`seam_links_near`]).
//!
//! [`LinkCrossed`]: super::LinkCrossed

use std::collections::HashMap;

use bevy::prelude::*;

use super::link::{FrameLinks, LinkEnd, NavLink};
use super::map::{NavMap, NavMaps};
use super::profiles::AgentKind;
use super::settings::NavSettings;
use crate::grid::{CornerRule, GridStamp, NavGrid, Neighborhood};
use crate::search::{
    Link, LinkedMaps, LinkedPath, MapPos, Placement, SearchStep, WorldFind, WorldGraph, seam_links,
    seam_links_near,
};

/// Marks a [`NavLink`] the plugin keeps across the seam of two maps whose edges touch (see
/// [`NavSettings::join_touching_maps`]). The plugin spawns and despawns these; paths go through
/// them like any link, and agents walk across them.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[reflect(Component)]
pub struct NavSeam;

/// A map that can join as the seams were made from it: its entity, grid stamp (any change of
/// its cells or rules moves it), cell lattice, size and moves (which maps join).
type Seen = (Entity, GridStamp, [Vec2; 3], (u32, u32), (Neighborhood, CornerRule));

/// The seam links out of one cell: where each goes, its entity and cost.
type Outgoing = Vec<(LinkEnd, Entity, f64)>;

/// What the seams were made from, and the seam links made.
#[derive(Resource, Default)]
pub(crate) struct Seams {
    /// Each map that can join, when the seams were last made.
    seen: Vec<Seen>,
    /// The seam links by the cell they leave from.
    links: HashMap<LinkEnd, Outgoing>,
    /// Where each map of a world lies on the world's lattice (for the search's estimate).
    pub(crate) places: Vec<(Entity, Placement)>,
}

impl Seams {
    /// The seam link from `from` to `to` (one step across a seam): its entity and cost.
    pub(crate) fn between(&self, from: LinkEnd, to: LinkEnd) -> Option<(Entity, f64)> {
        let out = self.links.get(&from)?;
        out.iter().find(|(end, ..)| *end == to).map(|&(_, entity, cost)| (entity, cost))
    }
}

/// The seam links as they should be, by the cell they leave from: where each goes and its cost.
type Wanted = HashMap<LinkEnd, Vec<(LinkEnd, f64)>>;

/// Files `links` (of `world`'s maps) in `wanted` by the cell each leaves from.
fn file_links(wanted: &mut Wanted, world: &[Member], links: Vec<Link>) {
    for link in links {
        let end = |p: MapPos| LinkEnd::new(world[p.map].map.entity, p.cell);
        wanted.entry(end(link.from)).or_default().push((end(link.to), link.cost));
    }
}

/// Brings the seam links out of one cell (`kept`) to what they should be (`wanted`): links that
/// should go are despawned, costs that changed are set, new links are spawned (and links
/// despawned by someone else made again).
fn reconcile(
    commands: &mut Commands,
    links: &mut Query<&mut NavLink, With<NavSeam>>,
    from: LinkEnd,
    kept: &mut Outgoing,
    wanted: Vec<(LinkEnd, f64)>,
) {
    kept.retain_mut(|(to, entity, cost)| match wanted.iter().find(|(end, _)| end == to) {
        None => {
            if let Ok(mut e) = commands.get_entity(*entity) {
                e.despawn();
            }
            false
        }
        Some(&(_, now)) => {
            match links.get_mut(*entity) {
                Ok(mut link) if now != *cost => link.cost = now,
                Ok(_) => {}
                Err(_) => *entity = spawn_seam(commands, (from, *to), now),
            }
            *cost = now;
            true
        }
    });
    for (to, cost) in wanted {
        if !kept.iter().any(|(end, ..)| *end == to) {
            kept.push((to, spawn_seam(commands, (from, to), cost), cost));
        }
    }
}

/// Brings the kept seam links out of `from` to the wanted ones, taking them out of `wanted`.
fn settle(
    commands: &mut Commands,
    links: &mut Query<&mut NavLink, With<NavSeam>>,
    (kept, wanted): (&mut HashMap<LinkEnd, Outgoing>, &mut Wanted),
    from: LinkEnd,
) {
    let mut out = kept.remove(&from).unwrap_or_default();
    reconcile(commands, links, from, &mut out, wanted.remove(&from).unwrap_or_default());
    if !out.is_empty() {
        kept.insert(from, out);
    }
}

/// The maps whose cells alone changed since `was`: `None` when any map came, went, moved,
/// resized or changed its moves (then every seam is made again).
fn only_cells_changed(was: &[Seen], now: &[Seen]) -> Option<Vec<Entity>> {
    let same_but_cells = was.len() == now.len()
        && was.iter().zip(now).all(|(a, b)| (a.0, a.2, a.3, a.4) == (b.0, b.2, b.3, b.4));
    same_but_cells
        .then(|| was.iter().zip(now).filter(|(a, b)| a.1 != b.1).map(|(_, b)| b.0).collect())
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
            let size = (m.grid.width(), m.grid.height());
            let rules = (m.grid.neighborhood(), m.grid.corner_rule());
            Some((m.entity, m.grid.stamp(), lattice, size, rules))
        })
    };
    if seen().eq(seams.seen.iter().copied()) {
        return;
    }
    let now: Vec<Seen> = seen().collect();
    let changed = only_cells_changed(&seams.seen, &now);
    let worlds = if joining { worlds(&maps) } else { Vec::new() };
    let Seams { links: kept, seen: was, places: placed } = &mut *seams;
    *was = now;
    let mut wanted = Wanted::new();
    let Some(changed) = changed else {
        // Made again whole: every world's seams, every kept link reconciled.
        placed.clear();
        for (number, world) in worlds.iter().enumerate() {
            let lattice = places(number, world);
            let grids: Vec<&NavGrid> = world.iter().map(|m| &m.map.grid).collect();
            file_links(&mut wanted, world, seam_links(&grids, &lattice));
            placed.extend(
                world.iter().zip(lattice.iter().flatten()).map(|(m, &p)| (m.map.entity, p)),
            );
        }
        let mut froms: Vec<LinkEnd> = kept.keys().copied().collect();
        froms.extend(wanted.keys().filter(|from| !kept.contains_key(from)));
        for from in froms {
            settle(&mut commands, &mut links, (kept, &mut wanted), from);
        }
        return;
    };
    // Only cells changed: the seams within a step of the changed maps, world by world.
    for (number, world) in worlds.iter().enumerate() {
        let touched: Vec<usize> =
            (0..world.len()).filter(|&k| changed.contains(&world[k].map.entity)).collect();
        if touched.is_empty() {
            continue;
        }
        let grids: Vec<&NavGrid> = world.iter().map(|m| &m.map.grid).collect();
        let (made, cells) = seam_links_near(&grids, &places(number, world), &touched);
        file_links(&mut wanted, world, made);
        for cell in cells {
            let from = LinkEnd::new(world[cell.map].map.entity, cell.cell);
            settle(&mut commands, &mut links, (kept, &mut wanted), from);
        }
    }
}

/// Each member's place on the lattice of world `number` (for the search's estimate and for the
/// core to work out the steps across the world's seams).
fn places(number: usize, world: &[Member]) -> Vec<Option<Placement>> {
    let at = |m: &Member| Placement { world: number as u32, x: m.at.x.into(), y: m.at.y.into() };
    world.iter().map(|m| Some(at(m))).collect()
}

/// The graph of each world for each kind of agent (its grids differ), for
/// [`WorldSearch::Hierarchical`](super::WorldSearch::Hierarchical): kept from one search to the
/// next, each chunk's part worked out again when that chunk or its neighbours change (the walks
/// between the nodes a chunk keeps are kept when only its neighbours changed).
#[derive(Resource, Default)]
pub(crate) struct WorldGraphs(HashMap<AgentKind, WorldGraph>);

impl WorldGraphs {
    /// The graph kept for `agent`, if one was made.
    pub(crate) fn get(&self, agent: AgentKind) -> Option<&WorldGraph> {
        self.0.get(&agent)
    }

    /// Works out `agent`'s graph for the chunks that need it, one walk at a time, until none is
    /// left, `work` units are spent or `stop` says so (one walk at least).
    /// Returns the work done.
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

    /// Goes on with `find`, a path over `grids` (each map's grid for `agent`), their seams and
    /// the links of `links`, for about `work` cells ([`WorldGraph::find_within`]); the legs
    /// name links by their place in `links`.
    pub(crate) fn find_within(
        &mut self,
        grids: &[&NavGrid],
        links: &FrameLinks,
        agent: AgentKind,
        find: &mut WorldFind,
        work: u32,
    ) -> SearchStep<LinkedPath> {
        let world = LinkedMaps::new(grids, &links.links).with_places(&links.places);
        self.0.entry(agent).or_default().find_within(world, find, work)
    }
}
