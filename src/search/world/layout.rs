//! The world graph's layout: the nodes of every grid (the ends of the steps across seams and
//! links) and the steps between grids, the steps across each seam kept until either grid by it
//! changes.

use crate::grid::{GridPos, GridStamp, NavGrid};
use crate::search::linked::{Lattice, LinkedMaps, MapPos, MixMap, Placement};

/// What a step between two nodes of different grids is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Across {
    Seam,
    Link(usize),
}

/// The straight steps across one seam that are nodes' (both ends of each run of crossings from
/// one grid into another, and every `spacing`-th between), for the two grids as they were.
#[derive(Debug)]
pub(super) struct SeamSteps {
    /// The stamps of the grid the steps leave and of the grid they enter, and the second's
    /// place from the first's (on their world's lattice).
    made_from: (GridStamp, GridStamp, Option<Placement>),
    /// Each step: its cell, the cell it enters, its cost.
    steps: Vec<(GridPos, GridPos, f64)>,
}

impl SeamSteps {
    /// The bytes it keeps.
    fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.steps.capacity() * std::mem::size_of::<(GridPos, GridPos, f64)>()
    }

    /// The steps out of grid `m` into grid `t` (which touches it), in an order fixed by their
    /// direction and cells.
    fn work_out(
        lattice: &Lattice,
        maps: &[&NavGrid],
        (m, t): (usize, usize),
        spacing: u32,
    ) -> Vec<(GridPos, GridPos, f64)> {
        // The straight crossings, by direction, with their place along the seam.
        type Run = ((i64, i64), Vec<(i64, GridPos, GridPos, f64)>);
        let mut runs: Vec<Run> = Vec::new();
        lattice.crossings_into(maps, (m, t), |from, to, len, dir| {
            let cost = maps[t].cost(to.cell).map_or(f64::INFINITY, f64::from) * len;
            let along = if dir.0 != 0 { i64::from(from.cell.y) } else { i64::from(from.cell.x) };
            let run = match runs.iter().position(|r| r.0 == dir) {
                Some(r) => r,
                None => {
                    runs.push((dir, Vec::new()));
                    runs.len() - 1
                }
            };
            runs[run].1.push((along, from.cell, to.cell, cost));
        });
        runs.sort_by_key(|r| r.0);
        let spacing = i64::from(spacing);
        let (a, b) = (maps[m], maps[t]);
        // Two crossings side by side are one stretch when a walk along the seam joins them both
        // ways on both sides (walls between cells may cut it).
        let along_both =
            |grid: &NavGrid, p: GridPos, q: GridPos| grid.can_step(p, q) && grid.can_step(q, p);
        let joined = |c: &(i64, GridPos, GridPos, f64), d: &(i64, GridPos, GridPos, f64)| {
            d.0 == c.0 + 1 && along_both(a, c.1, d.1) && along_both(b, c.2, d.2)
        };
        let mut steps = Vec::new();
        for (_, crossings) in &mut runs {
            crossings.sort_by_key(|c| c.0);
            let mut begin = 0;
            while begin < crossings.len() {
                let mut end = begin + 1;
                while end < crossings.len() && joined(&crossings[end - 1], &crossings[end]) {
                    end += 1;
                }
                let first = crossings[begin].0;
                for (i, &(along, from, to, cost)) in crossings[begin..end].iter().enumerate() {
                    if i == 0 || i == end - begin - 1 || (along - first) % spacing == 0 {
                        steps.push((from, to, cost));
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

/// The steps across each seam ([`SeamSteps`]), by the stamp ids of the grid they leave and of
/// the grid they enter, kept from layout to layout.
#[derive(Debug, Default)]
pub(super) struct Seams {
    by_pair: MixMap<(u64, u64), SeamSteps>,
    /// Whether two grids of the last layout overlapped.
    overlapped: bool,
    /// How many seams' steps (one way across, from one grid into one other) have been worked
    /// out so far.
    pub(super) worked: u64,
}

impl Seams {
    /// The nodes of every grid and the steps between grids, with a node every `spacing` cells
    /// along a seam. The steps across a seam are worked out again only when either grid
    /// changed or they moved against each other (not when the world moves whole, nor when
    /// another grid comes or goes): a chunk streaming in costs its own seams, and a chunk
    /// streaming out none. Seams between grids no longer side by side are forgotten.
    pub(super) fn lay_out(&mut self, world: LinkedMaps<'_>, spacing: u32) -> Layout {
        let maps = world.maps;
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
        self.by_pair.values().map(SeamSteps::memory_bytes).sum()
    }

    /// Every step across a seam, each seam's kept from the last layout if neither of its
    /// grids changed or moved against the other.
    fn seam_steps(
        &mut self,
        world: LinkedMaps<'_>,
        spacing: u32,
    ) -> Vec<(MapPos, MapPos, f64, Across)> {
        let maps = world.maps;
        let lattice = Lattice::new(maps, world.places);
        // The grids each touches, by their stamps: an order that holds as other grids come and
        // go.
        let touching: Vec<Vec<usize>> = (0..maps.len())
            .map(|m| {
                let mut touching = lattice.touching(maps, m);
                touching.sort_by_key(|&g| (maps[g].stamp().id(), g));
                touching
            })
            .collect();
        let mut kept = std::mem::take(&mut self.by_pair);
        // Where two grids overlap, which one a step into a cell both hold enters depends on
        // the grids there: nothing is kept from such a layout or into one.
        let overlap = |(m, touching): (usize, &Vec<usize>)| {
            touching.iter().any(|&t| lattice.overlap(maps, m, t))
        };
        let overlapped = std::mem::replace(&mut self.overlapped, false);
        self.overlapped = touching.iter().enumerate().any(overlap);
        if overlapped || self.overlapped {
            kept.clear();
        }
        let mut steps: Vec<(MapPos, MapPos, f64, Across)> = Vec::new();
        for ((m, grid), touching) in maps.iter().enumerate().zip(touching) {
            // Places from the grid's own: the steps are the same wherever the world lies, so a
            // world shifted whole (as when the map the plugin measures places from streams out)
            // keeps them. The grids a step reaches share its world.
            let own = lattice.place(m);
            for t in touching {
                let relative = lattice.place(t).zip(own).map(|(q, p)| Placement {
                    world: 0,
                    x: q.x - p.x,
                    y: q.y - p.y,
                });
                let made_from = (grid.stamp(), maps[t].stamp(), relative);
                let key = (grid.stamp().id(), maps[t].stamp().id());
                let seam = match kept.remove(&key) {
                    Some(seam) if seam.made_from == made_from => seam,
                    _ => {
                        self.worked += 1;
                        let worked = SeamSteps::work_out(&lattice, maps, (m, t), spacing);
                        SeamSteps { made_from, steps: worked }
                    }
                };
                for &(a, b, cost) in &seam.steps {
                    steps.push((MapPos::new(m, a), MapPos::new(t, b), cost, Across::Seam));
                }
                self.by_pair.insert(key, seam);
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

    /// Grids that overlap (the plugin's worlds never do) lay out as afresh as another grid
    /// comes over one and leaves: a step into a cell two grids hold enters the one the lattice
    /// finds first, as in a layout made from nothing.
    #[test]
    fn overlapping_grids_lay_out_as_a_fresh_layout_would() {
        let open = || NavGrid::new(4, 4).unwrap();
        let (m, t, u) = (open(), open(), open());
        let mut seams = Seams::default();
        // `u` over `t`, listed before it (so found first), then gone, then back.
        let apart: &[(&NavGrid, i64)] = &[(&m, 0), (&t, 4)];
        let over: &[(&NavGrid, i64)] = &[(&m, 0), (&u, 4), (&t, 4)];
        for (round, grids) in [apart, over, apart, over].iter().enumerate() {
            let maps: Vec<&NavGrid> = grids.iter().map(|g| g.0).collect();
            let places: Vec<_> =
                grids.iter().map(|g| Some(Placement { world: 0, x: g.1, y: 0 })).collect();
            let world = LinkedMaps::new(&maps, &[]).with_places(&places);
            let layout = seams.lay_out(world, 1);
            assert!(!layout.out.is_empty(), "round {round}");
            assert_eq!(layout, Seams::default().lay_out(world, 1), "round {round}");
        }
    }

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
            // (Most fill their slot, so that most touch their neighbours.)
            let mut side = || if rng.below(3) > 0 { 10 } else { 7 + rng.below(3) };
            let (w, h) = (side(), side());
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
        let (mut worked, mut seams_laid) = (0u64, 0u64);
        for round in 0..200u32 {
            let slot = (rng.below(8), rng.below(8));
            // The slots whose grid changed, came, went or moved.
            let mut changed = vec![slot];
            let kind = rng.below(6);
            match kind {
                0 => drop(loaded.remove(&slot)),
                1 => drop(loaded.insert(slot, make(&mut rng))),
                2 | 3 => {
                    if let Some(grid) = loaded.get_mut(&slot) {
                        // A cell on a side (by a seam) two times in three.
                        let (w, h) = (grid.width(), grid.height());
                        let x = [0, w - 1, rng.below(w)][rng.below(3) as usize];
                        let pos = GridPos::new(x, rng.below(h));
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
            let layout = seams.lay_out(world, 3);
            assert_eq!(layout, Seams::default().lay_out(world, 3), "round {round}");
            // Only the seams of a grid at a changed slot are worked out again (none when a
            // grid only leaves), and only the seams of grids side by side are kept.
            let pairs: Vec<(usize, usize)> = (0..maps.len())
                .flat_map(|m| lattice.touching(&maps, m).into_iter().map(move |t| (m, t)))
                .collect();
            let due = pairs
                .iter()
                .filter(|&&(m, t)| changed.contains(&keys[m]) || changed.contains(&keys[t]))
                .count() as u64;
            let now = seams.worked - before;
            assert!(
                round == 0 || now <= due,
                "round {round}: {now} worked out, {due} by the change"
            );
            assert!(
                round == 0 || kind != 0 || now == 0,
                "round {round}: {now} worked out as a grid left"
            );
            assert_eq!(seams.by_pair.len(), pairs.len(), "round {round}");
            if round > 0 {
                worked += now;
                seams_laid += pairs.len() as u64;
            }
        }
        // Most rounds changed something, yet the seams worked out again were few.
        assert!(
            worked > 50 && worked * 20 < seams_laid,
            "{worked} seams worked out of {seams_laid}"
        );
    }
}
