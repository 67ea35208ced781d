//! Links between cells of the navigation maps (stairs, doors between levels, teleporters,
//! ladders, drops), as entities a game spawns and despawns, and the message sent when an agent
//! is carried across one.

use std::collections::HashMap;

use bevy::prelude::*;

use super::map::NavMaps;
use super::settings::WorldSearch;
use crate::grid::GridPos;
use crate::search::{Link, Placement};

/// One end of a [`NavLink`]: a cell of a map (named by its entity, [`NavMap::entity`](super::NavMap::entity)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Reflect)]
pub struct LinkEnd {
    /// The map.
    pub map: Entity,
    /// The cell on it.
    pub cell: GridPos,
}

impl LinkEnd {
    /// The cell `cell` of map `map`.
    pub fn new(map: Entity, cell: GridPos) -> Self {
        Self { map, cell }
    }
}

/// A link between two cells, on one map or on two: spawn an entity with it, despawn it (or
/// remove it) to take it away. Paths go through it when that is cheaper; an agent walks to
/// `from`, is carried to `to` (a [`LinkCrossed`] message says so, for an animation or a fade;
/// its `Transform` moves there) and walks on. While either cell is blocked, or a map is
/// missing, the link is not taken.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_tilemap_nav::prelude::*;
/// fn stairs(mut commands: Commands, ground: Entity, upstairs: Entity) {
///     commands.spawn(NavLink::two_way(
///         LinkEnd::new(ground, GridPos::new(14, 3)),
///         LinkEnd::new(upstairs, GridPos::new(1, 3)),
///         2.0,
///     ));
/// }
/// ```
#[derive(Component, Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Component)]
pub struct NavLink {
    /// One end (where a one-way link is entered).
    pub from: LinkEnd,
    /// The other end.
    pub to: LinkEnd,
    /// What taking it costs, in cell-cost units (it stands in for entering `to`); a cost that
    /// is NaN, infinite or negative makes the link unusable.
    pub cost: f64,
    /// Whether it can be taken from `to` to `from` as well.
    pub two_way: bool,
}

impl NavLink {
    /// A link that can be taken both ways (stairs, a door).
    pub fn two_way(from: LinkEnd, to: LinkEnd, cost: f64) -> Self {
        Self { from, to, cost, two_way: true }
    }

    /// A link that can be taken from `from` to `to` only (a drop, a one-way teleporter).
    pub fn one_way(from: LinkEnd, to: LinkEnd, cost: f64) -> Self {
        Self { from, to, cost, two_way: false }
    }
}

/// Message: an agent was carried across a link.
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct LinkCrossed {
    /// The agent carried.
    pub entity: Entity,
    /// The link's entity.
    pub link: Entity,
    /// Where it left.
    pub from: LinkEnd,
    /// Where it arrived.
    pub to: LinkEnd,
}

/// The frame's links in the maps' terms: core [`Link`]s naming maps by their index in
/// [`NavMaps`], and beside each its entity, and where the maps of a world lie. Seams
/// ([`NavSeam`](super::NavSeam)) are not among them: the searches step across them from the
/// maps' places. Links to a missing map, a cell off its map, or with a bad cost are left out
/// (they can never be taken).
#[derive(Default)]
pub(crate) struct FrameLinks {
    pub(crate) links: Vec<Link>,
    pub(crate) entities: Vec<Entity>,
    /// Where each map (by its index) lies on the lattice of a world of maps that touch.
    pub(crate) places: Vec<Option<Placement>>,
    /// How many maps each map's world has (by its index; 0 for a map in none).
    world_sizes: Vec<u32>,
    /// What the links were gathered from.
    gathered_from: GatheredFrom,
    /// How searches that start or end in a world are searched.
    pub(crate) world_search: WorldSearch,
}

/// What a [`FrameLinks`] was gathered from: each map's entity and size, the maps' places, and
/// how many link entities there were.
type GatheredFrom = (Vec<(Entity, u32, u32)>, Vec<(Entity, Placement)>, usize);

impl FrameLinks {
    /// Gathers the links again when `links_moved` (a link came, changed or went), fewer or more
    /// links are there, or the maps or their places changed since they were last gathered;
    /// else keeps them. (The count catches a link removed while the system did not run, in a
    /// fixed-step schedule, whose removal it was not told of.)
    pub(crate) fn gather(
        &mut self,
        maps: &NavMaps,
        links: &Query<(Entity, &NavLink), Without<super::NavSeam>>,
        places: &[(Entity, Placement)],
        links_moved: bool,
    ) {
        let shape = || maps.iter().map(|m| (m.entity, m.grid.width(), m.grid.height()));
        let (seen_maps, seen_places, seen_links) = &mut self.gathered_from;
        let count = links.count();
        if !links_moved
            && count == *seen_links
            && shape().eq(seen_maps.iter().copied())
            && places == seen_places.as_slice()
        {
            return;
        }
        *seen_links = count;
        seen_maps.clear();
        seen_maps.extend(shape());
        seen_places.clear();
        seen_places.extend_from_slice(places);
        self.links.clear();
        self.entities.clear();
        self.places.clear();
        let placed = |map: Entity| places.iter().find(|(m, _)| *m == map).map(|(_, p)| *p);
        self.places.extend(maps.iter().map(|m| placed(m.entity)));
        let mut members: HashMap<u32, u32> = HashMap::new();
        for p in self.places.iter().flatten() {
            *members.entry(p.world).or_default() += 1;
        }
        let size = |p: &Option<Placement>| p.and_then(|p| members.get(&p.world).copied());
        self.world_sizes.clear();
        self.world_sizes.extend(self.places.iter().map(|p| size(p).unwrap_or(0)));
        let end = |e: LinkEnd| {
            let at = maps.map_pos(e.map, e.cell)?;
            maps.get(e.map)?.grid.in_bounds(e.cell).then_some(at)
        };
        for (entity, link) in links {
            if let (Some(from), Some(to)) = (end(link.from), end(link.to))
                && link.cost.is_finite()
                && link.cost >= 0.0
            {
                self.links.push(Link { from, to, cost: link.cost, two_way: link.two_way });
                self.entities.push(entity);
            }
        }
    }

    /// These links with only those `keep` keeps (the maps' places as they are).
    pub(crate) fn only(&self, keep: impl Fn(&Link) -> bool) -> FrameLinks {
        let kept = self.links.iter().zip(&self.entities).filter(|(link, _)| keep(link));
        let (links, entities) = kept.map(|(link, entity)| (*link, *entity)).unzip();
        let (places, world_sizes) = (self.places.clone(), self.world_sizes.clone());
        FrameLinks { links, entities, places, world_sizes, ..FrameLinks::default() }
    }

    /// Whether the map at `index` in [`NavMaps`] joins others of its world at seams.
    pub(crate) fn joined(&self, index: usize) -> bool {
        self.world_sizes.get(index).is_some_and(|&n| n > 1)
    }

    /// Whether a search between the maps at `ends` goes over the world's graph, as
    /// [`FrameLinks::world_search`] says (with [`WorldSearch::Auto`], when either lies in a
    /// world of [`WorldSearch::AUTO_MAPS`] maps or more).
    pub(crate) fn over_graph(&self, ends: [usize; 2]) -> bool {
        let big = |m: usize| self.world_sizes.get(m).is_some_and(|&n| n >= WorldSearch::AUTO_MAPS);
        match self.world_search {
            WorldSearch::Exact => false,
            WorldSearch::Hierarchical => true,
            WorldSearch::Auto => ends.into_iter().any(big),
        }
    }

    /// Whether any world has [`WorldSearch::AUTO_MAPS`] maps or more.
    pub(crate) fn has_big_world(&self) -> bool {
        self.world_sizes.iter().any(|&n| n >= WorldSearch::AUTO_MAPS)
    }
}

/// True when `link` can be taken from `from` now: it exists, goes that way and both of its
/// cells are open.
pub(crate) fn usable(maps: &NavMaps, link: &NavLink, from: LinkEnd, to: LinkEnd) -> bool {
    let forward = link.from == from && link.to == to;
    let back = link.two_way && link.to == from && link.from == to;
    let open = |e: LinkEnd| maps.get(e.map).is_some_and(|m| m.grid.is_passable(e.cell));
    (forward || back) && link.cost.is_finite() && link.cost >= 0.0 && open(from) && open(to)
}
