//! Which agents' paths pass near which cells of each map ([`PathIndex`]), so that a grid
//! change checks only the paths near it, and what changed on the maps this frame.

use std::collections::HashMap;

use bevy::prelude::*;

use super::cooperative::CooperativePlans;
use super::walkers::Walkers;
use crate::grid::{GridPos, GridStamp};
use crate::plugin::agent::NavPath;
use crate::plugin::link::{AvoidLinks, LinkCrossing, LinkOpenTo, NavLink};
use crate::plugin::map::{NavGeometry, NavMaps};

/// Side of the square blocks of cells that [`PathIndex`] files paths under.
const BLOCK: u32 = 16;

/// Each map's [`PathIndex`], by map entity; and the cooperative plans in play. (One resource
/// for both: in Bevy 0.19 a resource is an entity, and one more would renumber every entity a
/// game spawns after the plugin, which changed how a seeded session plays.)
#[derive(Resource, Default)]
pub(crate) struct PathIndexes(pub(super) HashMap<Entity, PathIndex>, pub(super) CooperativePlans);

impl PathIndexes {
    /// The cells cooperative plans have reserved, on each map, with how many turns wait there.
    pub(crate) fn reserved(&self) -> impl Iterator<Item = (Entity, GridPos, usize)> + '_ {
        self.1.reserved()
    }
}

/// Which agents' paths pass through each block of cells of one map, so that a grid change
/// checks only the paths that pass near it: walking agents elsewhere pay nothing.
#[derive(Default)]
pub(crate) struct PathIndex {
    /// The grid size the blocks were laid out for, and blocks per row.
    size: (u32, u32),
    blocks_x: u32,
    /// The agents filed under each block.
    blocks: Vec<Vec<Entity>>,
    /// The blocks each agent is filed under.
    filed: HashMap<Entity, Vec<u32>>,
    /// The grid as the paths were last checked against it.
    seen: Option<GridStamp>,
    /// Where the map sat in the world then: moved or rescaled, its paths' points are read
    /// again from their cells.
    geometry: Option<NavGeometry>,
    /// Scratch: agents filed near the changes, the changed cells.
    pub(super) near: Vec<Entity>,
    pub(super) changed: Vec<GridPos>,
}

impl PathIndex {
    fn lay_out(&mut self, width: u32, height: u32) {
        self.size = (width, height);
        self.blocks_x = width.div_ceil(BLOCK);
        self.blocks.clear();
        self.blocks.resize((self.blocks_x * height.div_ceil(BLOCK)) as usize, Vec::new());
        self.filed.clear();
    }

    fn block(&self, x: u32, y: u32) -> u32 {
        (y / BLOCK) * self.blocks_x + x / BLOCK
    }

    /// Takes `entity` out of its blocks; returns the list of them (emptied, for reuse).
    fn unfile(&mut self, entity: Entity) -> Vec<u32> {
        let mut blocks = self.filed.remove(&entity).unwrap_or_default();
        for &b in &blocks {
            if let Some(list) = self.blocks.get_mut(b as usize)
                && let Some(k) = list.iter().position(|&e| e == entity)
            {
                list.swap_remove(k);
            }
        }
        blocks.clear();
        blocks
    }

    /// Files `entity` under every block its path passes: its cells, and for a smoothed path the
    /// blocks round each straight segment (whose line may leave the cells of the grid path).
    fn file(&mut self, entity: Entity, path: &NavPath) {
        let mut blocks = self.unfile(entity);
        let (width, height) = self.size;
        let inside = |c: &GridPos| c.x < width && c.y < height;
        blocks.extend(path.cells.iter().filter(|c| inside(c)).map(|c| self.block(c.x, c.y)));
        if !path.corners.is_empty() {
            let mut i = 0;
            while i < path.cells.len() {
                let j = path.next_target_after(i);
                if let (Some(a), Some(b)) = (path.cells.get(i), path.cells.get(j))
                    && inside(a)
                    && inside(b)
                {
                    for by in a.y.min(b.y) / BLOCK..=a.y.max(b.y) / BLOCK {
                        for bx in a.x.min(b.x) / BLOCK..=a.x.max(b.x) / BLOCK {
                            blocks.push(by * self.blocks_x + bx);
                        }
                    }
                }
                i = j;
            }
        }
        blocks.sort_unstable();
        blocks.dedup();
        for &b in &blocks {
            self.blocks[b as usize].push(entity);
        }
        self.filed.insert(entity, blocks);
    }

    /// The agents filed near `changed` cells (within a step of one: a path through a changed
    /// cell, or passing diagonally beside one), sorted, into `self.near`.
    fn collect_near(&mut self, changed: impl Iterator<Item = GridPos>) {
        self.near.clear();
        self.changed.clear();
        self.changed.extend(changed);
        self.changed.sort_unstable();
        self.changed.dedup();
        let (width, height) = self.size;
        for &cell in &self.changed {
            let (x0, y0) = (cell.x.saturating_sub(1), cell.y.saturating_sub(1));
            let (x1, y1) = ((cell.x + 1).min(width - 1), (cell.y + 1).min(height - 1));
            for by in y0 / BLOCK..=y1 / BLOCK {
                for bx in x0 / BLOCK..=x1 / BLOCK {
                    self.near.extend(&self.blocks[(by * self.blocks_x + bx) as usize]);
                }
            }
        }
        self.near.sort_unstable();
        self.near.dedup();
    }
}

/// True when the rest of the path (from the point last passed) comes within a step of one of
/// `changed` (sorted): through it, or diagonally beside it. For a smoothed path, within a step
/// of a straight segment's bounding box. Many changes: true (the full check decides).
pub(super) fn passes_near(path: &NavPath, next: usize, changed: &[GridPos]) -> bool {
    if changed.len() > 64 {
        return true;
    }
    let near = |lo: GridPos, hi: GridPos| {
        changed
            .iter()
            .any(|c| c.x + 1 >= lo.x && c.x <= hi.x + 1 && c.y + 1 >= lo.y && c.y <= hi.y + 1)
    };
    let cells = &path.cells;
    let from = if next == 0 { 0 } else { path.previous_target(next) };
    if path.corners.is_empty() {
        return cells.get(from..).unwrap_or_default().iter().any(|&c| near(c, c));
    }
    let mut i = from;
    while i < cells.len() {
        let j = path.next_target_after(i).min(cells.len() - 1);
        let (a, b) = (cells[i], cells[j]);
        let lo = GridPos::new(a.x.min(b.x), a.y.min(b.y));
        let hi = GridPos::new(a.x.max(b.x), a.y.max(b.y));
        if near(lo, hi) || cells[i..=j].iter().any(|&c| near(c, c)) {
            return true;
        }
        if j == cells.len() - 1 {
            break;
        }
        i = j;
    }
    false
}

/// Keeps each map's [`PathIndex`] in step with the maps and the paths, and finds the agents
/// filed near this frame's changed cells (each index's `near`). Returns the maps on which every
/// path is to be checked (laid out afresh, or a grid that cannot say which cells changed), and
/// those whose geometry changed.
pub(super) fn update_indexes(
    indexes: &mut HashMap<Entity, PathIndex>,
    maps: &NavMaps,
    removed: impl Iterator<Item = Entity>,
    agents: &mut Walkers,
) -> (Vec<Entity>, Vec<Entity>) {
    for entity in removed {
        for index in indexes.values_mut() {
            index.unfile(entity);
        }
    }
    indexes.retain(|map, _| maps.get(*map).is_some());
    let (mut check_all, mut moved): (Vec<Entity>, Vec<Entity>) = (Vec::new(), Vec::new());
    for map in maps.iter() {
        let index = indexes.entry(map.entity).or_default();
        if index.geometry.replace(map.geometry).is_some_and(|g| g != map.geometry) {
            moved.push(map.entity);
        }
        if index.size != (map.grid.width(), map.grid.height()) {
            index.lay_out(map.grid.width(), map.grid.height());
            check_all.push(map.entity);
        }
    }
    for (entity, _, follower, path, ..) in agents.iter_mut() {
        // A follower put (back) on: its path may have changed while this system did not see it.
        if path.is_changed() || follower.is_added() || check_all.contains(&path.map) {
            refile(indexes, entity, &path);
        }
    }
    for map in maps.iter() {
        let Some(index) = indexes.get_mut(&map.entity) else {
            continue;
        };
        match index.seen.and_then(|seen| map.grid.changes_since(seen)) {
            Some(changes) => index.collect_near(changes.map(|(cell, _)| cell)),
            None => {
                index.near.clear();
                check_all.push(map.entity);
            }
        }
        index.seen = Some(map.grid.stamp());
    }
    (check_all, moved)
}

/// Files `entity`'s path in the index of its map only (taken out of any other).
pub(super) fn refile(indexes: &mut HashMap<Entity, PathIndex>, entity: Entity, path: &NavPath) {
    for index in indexes.values_mut() {
        index.unfile(entity);
    }
    if let Some(index) = indexes.get_mut(&path.map) {
        index.file(entity, path);
    }
}

/// What tells the movement system that links came, changed or went since it last ran, and the
/// maps and the number of links it saw then (the count catches a removal it was not told of,
/// in a fixed-step schedule that skipped frames).
pub(super) type LinksStirred<'w, 's> = (
    Query<
        'w,
        's,
        (),
        Or<(Changed<NavLink>, Changed<LinkCrossing>, Changed<LinkOpenTo>, Changed<AvoidLinks>)>,
    >,
    (RemovedComponents<'w, 's, NavLink>, RemovedComponents<'w, 's, LinkOpenTo>),
    Local<'s, (Vec<Entity>, usize)>,
);

/// Whether the links of walking agents' paths are to be read again this frame: a link came,
/// changed or went, a grid changed (as the indexes saw it: `check_all` maps, or changed cells),
/// or maps came or went since last frame (the maps' entities are kept in `stir` for the next).
/// `links` is how many link entities there are now.
pub(super) fn stirred(
    indexes: &HashMap<Entity, PathIndex>,
    check_all: &[Entity],
    (maps, links): (&NavMaps, usize),
    (changed, removed, seen): &mut LinksStirred,
) -> bool {
    let (seen, seen_links) = &mut **seen;
    let counted = std::mem::replace(seen_links, links) != links;
    let removed = removed.0.read().count() + removed.1.read().count();
    let links_moved = !changed.is_empty() || removed > 0 || counted;
    let cells_changed = !check_all.is_empty() || indexes.values().any(|i| !i.changed.is_empty());
    let maps_changed = !maps.iter().map(|m| m.entity).eq(seen.iter().copied());
    if maps_changed {
        *seen = maps.iter().map(|m| m.entity).collect();
    }
    links_moved || cells_changed || maps_changed
}
