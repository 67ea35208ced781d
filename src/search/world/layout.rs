//! The world graph's layout: the nodes of every grid (the ends of the steps across seams and
//! links) and the steps between grids, each grid's seam steps kept until it or a grid it
//! touches changes.

use std::collections::{HashMap, HashSet};

use crate::grid::{GridPos, GridStamp, NavGrid};
use crate::search::linked::{Lattice, LinkedMaps, MapPos, Placement};

/// What a step between two nodes of different grids is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Across {
    Seam,
    Link(usize),
}

/// One grid's straight steps across its seams that are nodes' (both ends of each run of
/// crossings into a touching grid, and every `spacing`-th between), for the grid and the grids
/// it touches as they were.
#[derive(Debug)]
pub(super) struct SeamSteps {
    /// The grid's stamp and place, then those of each grid it touches (by their stamps); the
    /// places from the grid's own, on its world's lattice.
    made_from: Vec<(GridStamp, Option<Placement>)>,
    /// Each step: its cell, the grid it enters (by its place among the grids touched), that
    /// grid's cell, its cost.
    steps: Vec<(GridPos, u32, GridPos, f64)>,
}

impl SeamSteps {
    /// The bytes it keeps.
    fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.made_from.capacity() * std::mem::size_of::<(GridStamp, Option<Placement>)>()
            + self.steps.capacity() * std::mem::size_of::<(GridPos, u32, GridPos, f64)>()
    }

    /// The steps out of grid `m` into the grids it touches (`touching`, every grid
    /// [`Lattice::touching`] gives, in any order: a step into the `k`th keeps `k`), in an order
    /// fixed by those grids' order and the cells.
    fn work_out(
        lattice: &Lattice,
        maps: &[&NavGrid],
        (m, touching): (usize, &[usize]),
        spacing: u32,
    ) -> Vec<(GridPos, u32, GridPos, f64)> {
        // The straight crossings, by (the grid entered among those touched, direction), with
        // their place along the seam.
        type Run = ((u32, (i64, i64)), Vec<(i64, GridPos, GridPos, f64)>);
        let mut runs: Vec<Run> = Vec::new();
        lattice.crossings_from(maps, m, false, |from, to, len, dir| {
            let Some(k) = touching.iter().position(|&t| t == to.map) else { return };
            let cost = maps[to.map].cost(to.cell).map_or(f64::INFINITY, f64::from) * len;
            let along = if dir.0 != 0 { i64::from(from.cell.y) } else { i64::from(from.cell.x) };
            let key = (k as u32, dir);
            let run = match runs.iter().position(|r| r.0 == key) {
                Some(r) => r,
                None => {
                    runs.push((key, Vec::new()));
                    runs.len() - 1
                }
            };
            runs[run].1.push((along, from.cell, to.cell, cost));
        });
        runs.sort_by_key(|r| r.0);
        let spacing = i64::from(spacing);
        let mut steps = Vec::new();
        for ((k, _), crossings) in &mut runs {
            let (a, b) = (maps[m], maps[touching[*k as usize]]);
            crossings.sort_by_key(|c| c.0);
            // Two crossings side by side are one stretch when a walk along the seam joins them
            // both ways on both sides (walls between cells may cut it).
            let along_both =
                |grid: &NavGrid, p: GridPos, q: GridPos| grid.can_step(p, q) && grid.can_step(q, p);
            let joined = |c: &(i64, GridPos, GridPos, f64), d: &(i64, GridPos, GridPos, f64)| {
                d.0 == c.0 + 1 && along_both(a, c.1, d.1) && along_both(b, c.2, d.2)
            };
            let mut begin = 0;
            while begin < crossings.len() {
                let mut end = begin + 1;
                while end < crossings.len() && joined(&crossings[end - 1], &crossings[end]) {
                    end += 1;
                }
                let first = crossings[begin].0;
                for (i, &(along, from, to, cost)) in crossings[begin..end].iter().enumerate() {
                    if i == 0 || i == end - begin - 1 || (along - first) % spacing == 0 {
                        steps.push((from, *k, to, cost));
                    }
                }
                begin = end;
            }
        }
        steps
    }
}

/// The nodes of every grid and the steps between grids, for the grids, places and links as
/// they were.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Layout {
    /// Each grid's first node in the numbering of all nodes (and one past the end).
    pub(super) first: Vec<u32>,
    /// Each node's cell.
    pub(super) cells: Vec<GridPos>,
    /// Each node's grid.
    pub(super) map_of: Vec<u32>,
    /// The steps out of each node to nodes of other grids (or through a link): start into
    /// `out`, by node.
    pub(super) out_first: Vec<u32>,
    pub(super) out: Vec<(u32, f64, Across)>,
}

/// Each grid's steps across its seams ([`SeamSteps`]), by grid, kept from layout to layout.
#[derive(Debug, Default)]
pub(super) struct Seams {
    by_grid: HashMap<u64, SeamSteps>,
    /// How many grids' seam steps have been worked out so far.
    pub(super) worked: u64,
}

impl Seams {
    /// The nodes of every grid and the steps between grids, with a node every `spacing` cells
    /// along a seam. Each grid's steps across its seams are worked out again only when it or
    /// a grid it touches changed, or they moved against each other (not when the world moves
    /// whole): a chunk streaming in costs the seams round it, not the world's. Grids not among
    /// `ids` (the stamp ids of `world`'s grids) are forgotten.
    pub(super) fn lay_out(
        &mut self,
        world: LinkedMaps<'_>,
        ids: &HashSet<u64>,
        spacing: u32,
    ) -> Layout {
        let maps = world.maps;
        self.by_grid.retain(|id, _| ids.contains(id));
        let mut steps = self.seam_steps(world, spacing);
        let open = |at: MapPos| maps.get(at.map).is_some_and(|g| g.is_passable(at.cell));
        for (k, link) in world.links.iter().enumerate() {
            for (from, to) in link.ways() {
                if open(from) && open(to) && link.cost.is_finite() && link.cost >= 0.0 {
                    steps.push((from, to, link.cost, Across::Link(k)));
                }
            }
        }
        assemble(maps.len(), &steps)
    }

    /// The bytes it keeps.
    pub(super) fn memory_bytes(&self) -> usize {
        self.by_grid.values().map(SeamSteps::memory_bytes).sum()
    }

    /// Every grid's steps across its seams, each grid's kept from the last layout if neither it
    /// nor a grid it touches changed or moved against it.
    fn seam_steps(
        &mut self,
        world: LinkedMaps<'_>,
        spacing: u32,
    ) -> Vec<(MapPos, MapPos, f64, Across)> {
        let maps = world.maps;
        let lattice = Lattice::new(maps, world.places);
        let mut steps: Vec<(MapPos, MapPos, f64, Across)> = Vec::new();
        for (m, grid) in maps.iter().enumerate() {
            // The grids it touches, by their stamps: an order that holds as other grids come
            // and go.
            let mut touching = lattice.touching(maps, m);
            touching.sort_by_key(|&g| (maps[g].stamp().id(), g));
            // Places from the grid's own (its own at 0, 0): the steps are the same wherever
            // the world lies, so a world shifted whole (as when the map the plugin measures
            // places from streams out) keeps them. The grids a step reaches share its world.
            let own = lattice.place(m);
            let relative = |g: usize| {
                let (q, p) = (lattice.place(g)?, own?);
                Some(Placement { world: 0, x: q.x - p.x, y: q.y - p.y })
            };
            let of = |g: usize| (maps[g].stamp(), relative(g));
            let made_from: Vec<_> =
                std::iter::once(m).chain(touching.iter().copied()).map(of).collect();
            let id = grid.stamp().id();
            if self.by_grid.get(&id).is_none_or(|s| s.made_from != made_from) {
                let worked = SeamSteps::work_out(&lattice, maps, (m, &touching), spacing);
                self.by_grid.insert(id, SeamSteps { made_from, steps: worked });
                self.worked += 1;
            }
            let Some(seams) = self.by_grid.get(&id) else { continue };
            for &(from, k, to, cost) in &seams.steps {
                let Some(&b) = touching.get(k as usize) else { continue };
                steps.push((MapPos::new(m, from), MapPos::new(b, to), cost, Across::Seam));
            }
        }
        steps
    }
}

/// The layout of `maps` grids joined by `steps`: their ends are the nodes.
fn assemble(maps: usize, steps: &[(MapPos, MapPos, f64, Across)]) -> Layout {
    // The nodes: both ends of each step, by grid (counted into place), then by cell within
    // each grid.
    let mut first = vec![0u32; maps + 1];
    for &(from, to, ..) in steps {
        first[from.map + 1] += 1;
        first[to.map + 1] += 1;
    }
    for m in 0..maps {
        first[m + 1] += first[m];
    }
    let mut placed = vec![GridPos::new(0, 0); first[maps] as usize];
    let mut next = first.clone();
    for &(from, to, ..) in steps {
        for end in [from, to] {
            placed[next[end.map] as usize] = end.cell;
            next[end.map] += 1;
        }
    }
    let mut cells: Vec<GridPos> = Vec::with_capacity(placed.len());
    for m in 0..maps {
        let ends = &mut placed[first[m] as usize..first[m + 1] as usize];
        ends.sort_unstable_by_key(|c| (c.y, c.x));
        first[m] = cells.len() as u32;
        cells.extend(
            ends.iter().enumerate().filter(|&(i, c)| i == 0 || ends[i - 1] != *c).map(|(_, c)| *c),
        );
    }
    first[maps] = cells.len() as u32;
    let id = |p: MapPos| {
        let (begin, end) = (first[p.map] as usize, first[p.map + 1] as usize);
        let at = cells[begin..end].binary_search_by_key(&(p.cell.y, p.cell.x), |c| (c.y, c.x));
        at.map(|i| (begin + i) as u32)
    };
    // The steps by the node they leave (counted into place, each node's in step order).
    let by_id: Vec<(u32, u32, f64, Across)> = steps
        .iter()
        .filter_map(|&(from, to, cost, across)| Some((id(from).ok()?, id(to).ok()?, cost, across)))
        .collect();
    let mut out_first = vec![0u32; cells.len() + 1];
    for &(from, ..) in &by_id {
        out_first[from as usize + 1] += 1;
    }
    for n in 0..cells.len() {
        out_first[n + 1] += out_first[n];
    }
    let mut out = vec![(0u32, 0.0, Across::Seam); by_id.len()];
    let mut next = out_first.clone();
    for (from, to, cost, across) in by_id {
        out[next[from as usize] as usize] = (to, cost, across);
        next[from as usize] += 1;
    }
    let map_of = (0..maps)
        .flat_map(|m| std::iter::repeat_n(m as u32, (first[m + 1] - first[m]) as usize))
        .collect();
    Layout { first, cells, map_of, out_first, out }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::{Cell, Edge, Neighborhood};
    use crate::search::linked::Link;
    use crate::test_rng::TestRng;

    /// A world of chunks that stream in and out, change tiles and walls, move, and gain links,
    /// with its grids in a new order each time: after each change the kept seams lay it out just
    /// as seams made afresh do, only the seams of the grids by the change are worked out again,
    /// and every step across a seam enters a grid that [`Lattice::touching`] lists.
    #[test]
    fn a_stream_lays_out_only_the_seams_by_it_as_a_fresh_layout_would() {
        use std::collections::BTreeMap;
        let mut rng = TestRng(0x5eed_5ea5);
        // Chunks of up to 10 x 10 cells, one every 10 lattice cells, in an 8 x 8 square.
        let make = |rng: &mut TestRng| {
            let (w, h) = (7 + rng.below(4), 7 + rng.below(4));
            let mut grid = NavGrid::new(w, h).unwrap();
            for pos in grid.positions().collect::<Vec<_>>() {
                if rng.below(100) < 20 {
                    grid.set(pos, Cell::Blocked).unwrap();
                }
            }
            if rng.below(6) == 0 {
                grid.set_neighborhood(Neighborhood::Four);
            }
            grid
        };
        let mut loaded: BTreeMap<(u32, u32), NavGrid> = BTreeMap::new();
        for cx in 0..8 {
            for cy in 0..8 {
                if rng.below(10) < 7 {
                    loaded.insert((cx, cy), make(&mut rng));
                }
            }
        }
        let mut seams = Seams::default();
        // Links by their ends' slots and cells.
        type End = ((u32, u32), GridPos);
        let mut links: Vec<(End, End)> = Vec::new();
        let (mut worked, mut grids) = (0u64, 0u64);
        for round in 0..200u32 {
            let slot = (rng.below(8), rng.below(8));
            // The slots whose grid changed, came, went or moved.
            let mut changed = vec![slot];
            match rng.below(6) {
                0 => drop(loaded.remove(&slot)),
                1 => drop(loaded.insert(slot, make(&mut rng))),
                2 | 3 => {
                    if let Some(grid) = loaded.get_mut(&slot) {
                        let pos = GridPos::new(rng.below(grid.width()), rng.below(grid.height()));
                        let cell = [Cell::Blocked, Cell::Passable { cost: 1 + rng.below(4) }];
                        let _ = grid.set(pos, cell[rng.below(2) as usize]);
                        let _ = grid.set_edge(pos, GridPos::new(pos.x + 1, pos.y), Edge::Wall);
                    }
                }
                4 => {
                    // A chunk moves to another slot.
                    let to = (rng.below(8), rng.below(8));
                    if let Some(grid) = loaded.remove(&slot) {
                        loaded.insert(to, grid);
                        changed.push(to);
                    }
                }
                _ => {
                    changed.clear();
                    let keys: Vec<(u32, u32)> = loaded.keys().copied().collect();
                    let mut end = || {
                        let key = keys[rng.below(keys.len() as u32) as usize];
                        (key, GridPos::new(rng.below(7), rng.below(7)))
                    };
                    links.push((end(), end()));
                }
            }
            // The grids in a new order each round.
            let mut keys: Vec<(u32, u32)> = loaded.keys().copied().collect();
            let turn = round as usize % keys.len().max(1);
            keys.rotate_left(turn);
            let maps: Vec<&NavGrid> = keys.iter().map(|k| &loaded[k]).collect();
            // The world lies somewhere else each round (the plugin measures places from one
            // of the maps, which may stream out), and may be named by another number.
            let (ox, oy) = (i64::from(rng.below(41)) - 20, i64::from(rng.below(41)) - 20);
            let world_id = rng.below(3);
            let places: Vec<Option<Placement>> = keys
                .iter()
                .map(|&(cx, cy)| {
                    let (x, y) = (10 * i64::from(cx) + ox, 10 * i64::from(cy) + oy);
                    Some(Placement { world: world_id, x, y })
                })
                .collect();
            let index = |k: (u32, u32)| keys.iter().position(|&q| q == k);
            let links: Vec<Link> = links
                .iter()
                .filter_map(|&((a, p), (b, q))| {
                    Some(Link::two_way(MapPos::new(index(a)?, p), MapPos::new(index(b)?, q), 3.0))
                })
                .collect();
            let world = LinkedMaps::new(&maps, &links).with_places(&places);
            // Every step across a seam enters a grid the grid it leaves touches.
            let lattice = Lattice::new(&maps, &places);
            lattice.crossings(&maps, true, |from, to, _, _| {
                let touching = lattice.touching(&maps, from.map);
                assert!(touching.contains(&to.map), "round {round}: {from:?} -> {to:?}");
            });
            let before = seams.worked;
            let ids: HashSet<u64> = world.maps.iter().map(|g| g.stamp().id()).collect();
            let layout = seams.lay_out(world, &ids, 3);
            assert_eq!(layout, Seams::default().lay_out(world, &ids, 3), "round {round}");
            // Only the grids by a changed slot are worked out again.
            let near = |&(cx, cy): &(u32, u32)| {
                changed.iter().any(|&(x, y)| cx.abs_diff(x) <= 1 && cy.abs_diff(y) <= 1)
            };
            let due = keys.iter().filter(|k| near(k)).count() as u64;
            assert!(
                round == 0 || seams.worked - before <= due,
                "round {round}: {} worked out, {due} by the change",
                seams.worked - before
            );
            if round > 0 {
                worked += seams.worked - before;
                grids += keys.len() as u64;
            }
        }
        // Most rounds changed something, yet the grids worked out again were few.
        assert!(worked > 100 && worked * 5 < grids, "{worked} grids worked out over {grids}");
    }
}
