//! The estimates of a search through links: the lattice's for grids placed side by side, and
//! on one grid the cheapest way out through a link.

use super::super::options::Heuristic;
use super::maps::{MapPos, Placement, apart};
use crate::grid::{GridPos, NavGrid, Neighborhood};

/// The lattice estimate of a search over placed grids (see [`Placement`]).
#[derive(Clone, Debug)]
pub(super) struct LatticeBound {
    places: Vec<Option<Placement>>,
    world: u32,
    heuristic: Heuristic,
    /// The cheapest cell of the world's grids.
    scale: f64,
    /// The goals on the lattice.
    goals: Vec<(i64, i64)>,
    /// The cheapest way that leaves the world's lattice from inside it (a link that is not a
    /// lattice step), and the cheapest way into the world from outside.
    leave: f64,
    enter: f64,
}

impl LatticeBound {
    /// Worked out when every goal is on one world whose grids all have the goal grid's moves;
    /// else `None` (the search goes without).
    pub(super) fn new(
        maps: &[&NavGrid],
        places: &[Option<Placement>],
        goals: &[MapPos],
        ways: &[(MapPos, MapPos, f64, usize)],
        heuristic: Heuristic,
    ) -> Option<Self> {
        let place = |at: MapPos| places.get(at.map).copied().flatten();
        let first = place(*goals.first()?)?;
        let world = first.world;
        let mut lattice_goals = Vec::new();
        for &goal in goals {
            let p = place(goal).filter(|p| p.world == world)?;
            lattice_goals.push(p.of(goal.cell));
        }
        let moves = maps[goals[0].map].neighborhood();
        let mut scale = f64::INFINITY;
        for (grid, p) in maps.iter().zip(places) {
            if p.is_some_and(|p| p.world == world) {
                if grid.neighborhood() != moves || moves.is_hex() {
                    return None;
                }
                scale = scale.min(f64::from(grid.min_cost().unwrap_or(1)));
            }
        }
        let inside = |at: MapPos| place(at).filter(|p| p.world == world);
        let (mut leave, mut enter) = (f64::INFINITY, f64::INFINITY);
        for &(entrance, exit, cost, _) in ways {
            match (inside(entrance), inside(exit)) {
                (Some(a), Some(b)) => {
                    let ((ax, ay), (bx, by)) = (a.of(entrance.cell), b.of(exit.cell));
                    let step = heuristic
                        .distance(apart(ax.saturating_sub(bx)), apart(ay.saturating_sub(by)))
                        * scale;
                    if cost < step {
                        leave = leave.min(cost);
                    }
                }
                (Some(_), None) => leave = leave.min(cost),
                (None, Some(_)) => enter = enter.min(cost),
                (None, None) => {}
            }
        }
        let places = places.to_vec();
        Some(Self { places, world, heuristic, scale, goals: lattice_goals, leave, enter })
    }

    /// A lower bound on the cost from `at` to a goal.
    pub(super) fn at(&self, at: MapPos) -> f64 {
        let Some(p) = self.places.get(at.map).copied().flatten().filter(|p| p.world == self.world)
        else {
            return self.enter;
        };
        let (x, y) = p.of(at.cell);
        let walk = self
            .goals
            .iter()
            .map(|&(gx, gy)| {
                self.heuristic.distance(apart(x.saturating_sub(gx)), apart(y.saturating_sub(gy)))
            })
            .fold(f64::INFINITY, f64::min)
            * self.scale;
        walk.min(self.leave)
    }
}

/// A lower bound, on one grid, on the cost of reaching the goal through a link: the walk to a
/// link's entrance (by the grid's heuristic at its cheapest cell) plus the link's cost plus a
/// lower bound from its exit to the goal, least over its links. With few links, worked out for
/// the cell asked (consistent); with many, once per block of cells, from the block's nearest
/// point to each entrance in the blocks round it and to the box round each farther block's
/// entrances (admissible, not consistent: the search then opens cells again when it finds
/// them cheaper).
#[derive(Clone, Debug)]
pub(super) enum ExitBound {
    None,
    Exact(Vec<(GridPos, f64)>),
    Blocks { blocks_x: u32, bound: Vec<f64> },
}

/// The cells of block (`bx`, `by`) of [`ExitBound`]: (x0, y0, x1, y1).
fn block_rect(bx: u32, by: u32) -> (u32, u32, u32, u32) {
    let (x0, y0) = (bx * EXIT_BLOCK, by * EXIT_BLOCK);
    (x0, y0, x0 + EXIT_BLOCK - 1, y0 + EXIT_BLOCK - 1)
}

/// The `heuristic` distance, in steps, from the box (x0, y0)-(x1, y1) to the box `lo`-`hi`.
fn box_apart(
    heuristic: Heuristic,
    (x0, y0, x1, y1): (u32, u32, u32, u32),
    lo: GridPos,
    hi: GridPos,
) -> f64 {
    let dx = lo.x.saturating_sub(x1).max(x0.saturating_sub(hi.x));
    let dy = lo.y.saturating_sub(y1).max(y0.saturating_sub(hi.y));
    heuristic.distance(dx, dy)
}

/// How many blocks apart a block may lie for a walk to it, at `scale` a step, to cost under
/// `under`: a block `k` blocks apart is at least (k - 1) x [`EXIT_BLOCK`] + 1 steps away.
fn blocks_within(under: f64, scale: f64) -> u32 {
    if !(under.is_finite() && scale > 0.0) {
        return u32::MAX;
    }
    let steps = (under / scale).max(0.0);
    // (k - 1) x EXIT_BLOCK + 1 < steps, for the largest k.
    ((steps / f64::from(EXIT_BLOCK)).ceil() as u32).saturating_add(1)
}

/// Links on one grid up to which [`ExitBound`] is worked out per cell.
pub(super) const EXACT_EXITS: usize = 48;
/// Side of the blocks [`ExitBound`] keeps its bound for, with more links.
const EXIT_BLOCK: u32 = 16;

impl ExitBound {
    pub(super) fn new(
        grid: &NavGrid,
        entrances: Vec<(GridPos, f64)>,
        heuristic: Heuristic,
        scale: f64,
    ) -> Self {
        if entrances.is_empty() {
            return ExitBound::None;
        }
        if entrances.len() <= EXACT_EXITS {
            return ExitBound::Exact(entrances);
        }
        let blocks_x = grid.width().div_ceil(EXIT_BLOCK);
        let blocks_y = grid.height().div_ceil(EXIT_BLOCK);
        let blocks = (blocks_x * blocks_y) as usize;
        // The entrances of each block, and for each block that has some: the box round them
        // and their least cost.
        let block_of = |p: GridPos| ((p.y / EXIT_BLOCK) * blocks_x + p.x / EXIT_BLOCK) as usize;
        let mut by_block: Vec<Vec<(GridPos, f64)>> = vec![Vec::new(); blocks];
        for &(e, cost) in &entrances {
            by_block[block_of(e)].push((e, cost));
        }
        let summaries: Vec<(usize, GridPos, GridPos, f64)> = by_block
            .iter()
            .enumerate()
            .filter(|(_, list)| !list.is_empty())
            .map(|(b, list)| {
                let (mut lo, mut hi, mut least) = (list[0].0, list[0].0, f64::INFINITY);
                for &(e, cost) in list {
                    lo = GridPos::new(lo.x.min(e.x), lo.y.min(e.y));
                    hi = GridPos::new(hi.x.max(e.x), hi.y.max(e.y));
                    least = least.min(cost);
                }
                (b, lo, hi, least)
            })
            .collect();
        let apart = |rect, lo, hi| box_apart(heuristic, rect, lo, hi) * scale;
        let mut bound = vec![f64::INFINITY; blocks];
        for by in 0..blocks_y {
            for bx in 0..blocks_x {
                let rect = block_rect(bx, by);
                // Each entrance of the blocks next to it (its own included), and each farther
                // block by the box round its entrances: a bound on the walk to any of them.
                let least = summaries.iter().fold(f64::INFINITY, |least, &(b, lo, hi, cost)| {
                    let (ox, oy) = (b as u32 % blocks_x, b as u32 / blocks_x);
                    if ox.abs_diff(bx) <= 1 && oy.abs_diff(by) <= 1 {
                        by_block[b]
                            .iter()
                            .fold(least, |least, &(e, cost)| least.min(apart(rect, e, e) + cost))
                    } else {
                        least.min(apart(rect, lo, hi) + cost)
                    }
                });
                bound[(by * blocks_x + bx) as usize] = least;
            }
        }
        ExitBound::Blocks { blocks_x, bound }
    }

    /// Each grid's bound, from its `entrances` (each with its cost on to the goal) and its
    /// estimate (heuristic, cost of its cheapest cell).
    pub(super) fn per_grid(
        maps: &[&NavGrid],
        entrances: Vec<Vec<(GridPos, f64)>>,
        heuristics: &[(Heuristic, f64)],
    ) -> Vec<Self> {
        maps.iter()
            .zip(entrances)
            .zip(heuristics)
            .map(|((grid, entrances), &(heuristic, scale))| {
                ExitBound::new(grid, entrances, heuristic, scale)
            })
            .collect()
    }

    /// This bound with every entrance's cost on to the goal raised by `raise`, and more
    /// entrances (`extra`, each with its cost on), worked out per block for them alone when it
    /// is kept by blocks: for a query whose least walk from an exit to the goal, and few ways
    /// near the goal, the bound made for every query does not count.
    pub(super) fn with(
        &self,
        grid: &NavGrid,
        (raise, extra): (f64, Vec<(GridPos, f64)>),
        heuristic: Heuristic,
        scale: f64,
    ) -> Self {
        match self {
            ExitBound::None => ExitBound::new(grid, extra, heuristic, scale),
            ExitBound::Exact(entrances) => {
                let raised = entrances.iter().map(|&(e, cost)| (e, cost + raise));
                ExitBound::new(grid, raised.chain(extra).collect(), heuristic, scale)
            }
            ExitBound::Blocks { blocks_x, bound } => {
                let mut bound: Vec<f64> = bound.iter().map(|b| b + raise).collect();
                let highest = bound.iter().copied().fold(0.0, f64::max);
                let blocks_y = bound.len() as u32 / blocks_x;
                for &(e, cost) in &extra {
                    // Only the blocks near enough for the walk to one to come under the
                    // highest bound (the walk to a block `k` blocks away is at least
                    // (k - 1) x EXIT_BLOCK + 1 steps: every estimate but Zero is at least the
                    // longer side).
                    let reach = match heuristic {
                        Heuristic::Zero => u32::MAX,
                        _ => blocks_within(highest - cost, scale),
                    };
                    let (ex, ey) = (e.x / EXIT_BLOCK, e.y / EXIT_BLOCK);
                    for by in ey.saturating_sub(reach)..=ey.saturating_add(reach).min(blocks_y - 1)
                    {
                        for bx in
                            ex.saturating_sub(reach)..=ex.saturating_add(reach).min(blocks_x - 1)
                        {
                            let least = &mut bound[(by * blocks_x + bx) as usize];
                            let walk = box_apart(heuristic, block_rect(bx, by), e, e) * scale;
                            *least = least.min(walk + cost);
                        }
                    }
                }
                ExitBound::Blocks { blocks_x: *blocks_x, bound }
            }
        }
    }

    pub(super) fn at(
        &self,
        moves: Neighborhood,
        heuristic: Heuristic,
        scale: f64,
        cell: GridPos,
    ) -> f64 {
        match self {
            ExitBound::None => f64::INFINITY,
            ExitBound::Exact(entrances) => {
                entrances.iter().fold(f64::INFINITY, |least, &(e, cost)| {
                    least.min(heuristic.estimate(moves, cell, e) * scale + cost)
                })
            }
            ExitBound::Blocks { blocks_x, bound } => {
                let block = (cell.y / EXIT_BLOCK) * blocks_x + cell.x / EXIT_BLOCK;
                bound.get(block as usize).copied().unwrap_or(0.0)
            }
        }
    }
}

/// Where the ways' exits lie on each grid, by blocks of [`EXIT_BLOCK`] cells: a query with
/// many ways looks at the exits near its goals, block by block outward, not at every exit.
#[derive(Clone, Debug, Default)]
pub(super) struct ExitsByBlock {
    /// Per grid: blocks across, and per block `ways[starts[b]..starts[b + 1]]`, the indexes
    /// of the ways whose exit lies in it.
    grids: Vec<(u32, Vec<u32>, Vec<u32>)>,
}

impl ExitsByBlock {
    /// From each way's exit (`exits[i]` for way `i`).
    pub(super) fn new(maps: &[&NavGrid], exits: &[MapPos]) -> Self {
        let grids = maps
            .iter()
            .enumerate()
            .map(|(map, grid)| {
                let blocks_x = grid.width().div_ceil(EXIT_BLOCK);
                let blocks = (blocks_x * grid.height().div_ceil(EXIT_BLOCK)) as usize;
                let block =
                    |x: GridPos| ((x.y / EXIT_BLOCK) * blocks_x + x.x / EXIT_BLOCK) as usize;
                let mut keyed: Vec<(usize, u32)> = (exits.iter().enumerate())
                    .filter(|(_, x)| x.map == map)
                    .map(|(i, x)| (block(x.cell), i as u32))
                    .collect();
                keyed.sort_unstable();
                let mut starts = vec![0u32; blocks + 1];
                for &(b, _) in &keyed {
                    starts[b + 1] += 1;
                }
                for b in 0..blocks {
                    starts[b + 1] += starts[b];
                }
                (blocks_x, starts, keyed.into_iter().map(|(_, w)| w).collect())
            })
            .collect();
        Self { grids }
    }

    /// The blocks with exits on the grids of `goals`, each as (a lower bound on the walk from
    /// any of its cells to the nearest goal on its grid, grid, block), in no order; `None`
    /// when a goal's grid is hexagonal (its estimate is not bounded by the blocks' boxes).
    pub(super) fn near(
        &self,
        maps: &[&NavGrid],
        goals: &[MapPos],
        heuristics: &[(Heuristic, f64)],
    ) -> Option<Vec<(f64, usize, usize)>> {
        let mut near = Vec::new();
        for (map, (blocks_x, starts, _)) in self.grids.iter().enumerate() {
            if !goals.iter().any(|g| g.map == map) {
                continue;
            }
            if maps[map].neighborhood().is_hex() {
                return None;
            }
            let (heuristic, scale) = heuristics[map];
            for b in 0..starts.len() - 1 {
                if starts[b] == starts[b + 1] {
                    continue;
                }
                let rect = block_rect(b as u32 % blocks_x, b as u32 / blocks_x);
                let walk = goals
                    .iter()
                    .filter(|g| g.map == map)
                    .map(|g| box_apart(heuristic, rect, g.cell, g.cell) * scale)
                    .fold(f64::INFINITY, f64::min);
                near.push((walk, map, b));
            }
        }
        Some(near)
    }

    /// The ways whose exits lie in `block` of grid `map`.
    pub(super) fn ways_in(&self, map: usize, block: usize) -> &[u32] {
        let (_, starts, ways) = &self.grids[map];
        &ways[starts[block] as usize..starts[block + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::TestRng;

    /// A query's bound by blocks, the kept one raised and the ways near its goal added, is
    /// what adding each of those ways to every block gives (the blocks too far for a way to
    /// lower are left as they are): on grids up to 400 cells a side, with every estimate.
    #[test]
    fn a_query_s_ways_lower_the_blocks_they_can_and_no_others() {
        let mut rng = TestRng(0xB10C);
        let heuristics = [
            Heuristic::Octile,
            Heuristic::Manhattan,
            Heuristic::Euclidean,
            Heuristic::Hex,
            Heuristic::Zero,
        ];
        for round in 0..200 {
            let (w, h) = (1 + rng.below(400), 1 + rng.below(400));
            let grid = NavGrid::new(w, h).unwrap();
            let heuristic = heuristics[round % heuristics.len()];
            let scale = f64::from(1 + rng.below(3));
            let cell = |rng: &mut TestRng| GridPos::new(rng.below(w), rng.below(h));
            let entrances: Vec<(GridPos, f64)> = (0..EXACT_EXITS + 1 + rng.below(300) as usize)
                .map(|_| (cell(&mut rng), f64::from(rng.below(60))))
                .collect();
            let kept = ExitBound::new(&grid, entrances, heuristic, scale);
            let ExitBound::Blocks { blocks_x, bound } = &kept else {
                panic!("round {round}: more than EXACT_EXITS entrances are kept by blocks");
            };
            let raise = f64::from(rng.below(20)) / 4.0;
            let extra: Vec<(GridPos, f64)> =
                (0..rng.below(12)).map(|_| (cell(&mut rng), f64::from(rng.below(40)))).collect();
            let ExitBound::Blocks { bound: got, .. } =
                kept.with(&grid, (raise, extra.clone()), heuristic, scale)
            else {
                panic!("round {round}: still by blocks");
            };
            for (b, &kept) in bound.iter().enumerate() {
                let rect = block_rect(b as u32 % blocks_x, b as u32 / blocks_x);
                let every = extra.iter().fold(kept + raise, |least, &(e, cost)| {
                    least.min(box_apart(heuristic, rect, e, e) * scale + cost)
                });
                assert_eq!(got[b].to_bits(), every.to_bits(), "round {round}, block {b}");
            }
        }
    }
}
