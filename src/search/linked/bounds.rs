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
    Blocks { blocks: Blocking, bound: Vec<f64> },
}

/// How a grid is cut into square blocks for [`ExitBound`] and [`ExitsByBlock`]: sides of
/// [`EXIT_BLOCK`] cells, doubled while there would be more than [`MOST_BLOCKS`] (the kept
/// bound is worked out over every pair of blocks, and a query's over every block).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Blocking {
    /// The side is 2 to this power.
    shift: u32,
    across: u32,
    down: u32,
}

impl Blocking {
    fn of_grid(grid: &NavGrid) -> Self {
        let (w, h) = (grid.width(), grid.height());
        let count =
            |shift: u32| u64::from(w.div_ceil(1 << shift)) * u64::from(h.div_ceil(1 << shift));
        let mut shift = EXIT_BLOCK.trailing_zeros();
        while count(shift) > MOST_BLOCKS && shift < 31 {
            shift += 1;
        }
        let side = 1u32 << shift;
        Self { shift, across: w.div_ceil(side), down: h.div_ceil(side) }
    }

    fn side(self) -> u32 {
        1 << self.shift
    }

    fn len(self) -> usize {
        self.across as usize * self.down as usize
    }

    /// The block (column, row) that holds `cell`.
    fn xy_of(self, cell: GridPos) -> (u32, u32) {
        (cell.x >> self.shift, cell.y >> self.shift)
    }

    /// The index of the block that holds `cell`.
    fn of(self, cell: GridPos) -> usize {
        self.index(self.xy_of(cell))
    }

    /// The index of block (`bx`, `by`).
    fn index(self, (bx, by): (u32, u32)) -> usize {
        by as usize * self.across as usize + bx as usize
    }

    /// The block (column, row) of index `b`.
    fn xy(self, b: usize) -> (u32, u32) {
        (b as u32 % self.across, b as u32 / self.across)
    }

    /// The cells of block (`bx`, `by`): (x0, y0, x1, y1).
    fn rect(self, (bx, by): (u32, u32)) -> (u32, u32, u32, u32) {
        let side = self.side();
        let (x0, y0) = (bx.saturating_mul(side), by.saturating_mul(side));
        (x0, y0, x0.saturating_add(side - 1), y0.saturating_add(side - 1))
    }

    /// How many blocks apart a block may lie for a walk to it, at `scale` a step, to cost
    /// under `under`: a block `k` blocks apart is at least (k - 1) x side + 1 steps away.
    fn within(self, under: f64, scale: f64) -> u32 {
        if !(under.is_finite() && scale > 0.0) {
            return u32::MAX;
        }
        let steps = (under / scale).max(0.0);
        // (k - 1) x side + 1 < steps, for the largest k.
        ((steps / f64::from(self.side())).ceil() as u32).saturating_add(1)
    }
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

/// Links on one grid up to which [`ExitBound`] is worked out per cell.
pub(super) const EXACT_EXITS: usize = 48;
/// Side of the blocks [`ExitBound`] keeps its bound for, with more links (a power of two),
/// on grids of up to [`MOST_BLOCKS`] such blocks.
const EXIT_BLOCK: u32 = 16;
/// The most blocks of a grid: on a bigger grid their side is doubled until they are no more.
const MOST_BLOCKS: u64 = 4096;

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
        let blocks = Blocking::of_grid(grid);
        let (blocks_x, blocks_y) = (blocks.across, blocks.down);
        // The entrances of each block, and for each block that has some: the box round them
        // and their least cost.
        let mut by_block: Vec<Vec<(GridPos, f64)>> = vec![Vec::new(); blocks.len()];
        for &(e, cost) in &entrances {
            by_block[blocks.of(e)].push((e, cost));
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
        let mut bound = vec![f64::INFINITY; blocks.len()];
        for by in 0..blocks_y {
            for bx in 0..blocks_x {
                let rect = blocks.rect((bx, by));
                // Each entrance of the blocks next to it (its own included), and each farther
                // block by the box round its entrances: a bound on the walk to any of them.
                let least = summaries.iter().fold(f64::INFINITY, |least, &(b, lo, hi, cost)| {
                    let (ox, oy) = blocks.xy(b);
                    if ox.abs_diff(bx) <= 1 && oy.abs_diff(by) <= 1 {
                        by_block[b]
                            .iter()
                            .fold(least, |least, &(e, cost)| least.min(apart(rect, e, e) + cost))
                    } else {
                        least.min(apart(rect, lo, hi) + cost)
                    }
                });
                bound[blocks.index((bx, by))] = least;
            }
        }
        ExitBound::Blocks { blocks, bound }
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
            &ExitBound::Blocks { blocks, ref bound } => {
                let mut bound: Vec<f64> = bound.iter().map(|b| b + raise).collect();
                let highest = bound.iter().copied().fold(0.0, f64::max);
                let (blocks_x, blocks_y) = (blocks.across, blocks.down);
                for &(e, cost) in &extra {
                    // Only the blocks near enough for the walk to one to come under the
                    // highest bound (the walk to a block `k` blocks away is at least
                    // (k - 1) x side + 1 steps: every estimate but Zero is at least the
                    // longer side).
                    let reach = match heuristic {
                        Heuristic::Zero => u32::MAX,
                        _ => blocks.within(highest - cost, scale),
                    };
                    let (ex, ey) = blocks.xy_of(e);
                    for by in ey.saturating_sub(reach)..=ey.saturating_add(reach).min(blocks_y - 1)
                    {
                        for bx in
                            ex.saturating_sub(reach)..=ex.saturating_add(reach).min(blocks_x - 1)
                        {
                            let least = &mut bound[blocks.index((bx, by))];
                            let walk = box_apart(heuristic, blocks.rect((bx, by)), e, e) * scale;
                            *least = least.min(walk + cost);
                        }
                    }
                }
                ExitBound::Blocks { blocks, bound }
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
            ExitBound::Blocks { blocks, bound } => {
                bound.get(blocks.of(cell)).copied().unwrap_or(0.0)
            }
        }
    }
}

/// Where the ways' exits lie on each grid, by the blocks of [`Blocking`]: a query with
/// many ways looks at the exits near its goals, block by block outward, not at every exit.
#[derive(Clone, Debug, Default)]
pub(super) struct ExitsByBlock {
    /// Per grid: its blocks, and per block `ways[starts[b]..starts[b + 1]]`, the indexes of
    /// the ways whose exit lies in it.
    grids: Vec<(Blocking, Vec<u32>, Vec<u32>)>,
}

impl ExitsByBlock {
    /// From each way's exit (`exits[i]` for way `i`).
    pub(super) fn new(maps: &[&NavGrid], exits: &[MapPos]) -> Self {
        let grids = maps
            .iter()
            .enumerate()
            .map(|(map, grid)| {
                let blocks = Blocking::of_grid(grid);
                let mut keyed: Vec<(usize, u32)> = (exits.iter().enumerate())
                    .filter(|(_, x)| x.map == map)
                    .map(|(i, x)| (blocks.of(x.cell), i as u32))
                    .collect();
                keyed.sort_unstable();
                let mut starts = vec![0u32; blocks.len() + 1];
                for &(b, _) in &keyed {
                    starts[b + 1] += 1;
                }
                for b in 0..blocks.len() {
                    starts[b + 1] += starts[b];
                }
                (blocks, starts, keyed.into_iter().map(|(_, w)| w).collect())
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
        for (map, (blocks, starts, _)) in self.grids.iter().enumerate() {
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
                let rect = blocks.rect(blocks.xy(b));
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

    /// Blocks are 16 cells a side up to 4,096 of them (1,024 x 1,024 cells), and bigger on
    /// bigger grids, never more than 4,096; every cell lies in one of them.
    #[test]
    fn grids_are_cut_into_at_most_4096_blocks() {
        let blocking = |w, h| Blocking::of_grid(&NavGrid::new(w, h).unwrap());
        assert_eq!(blocking(256, 256).side(), 16);
        assert_eq!(blocking(1024, 1024).side(), 16);
        assert_eq!(blocking(1025, 1024).side(), 32);
        assert_eq!(blocking(4096, 100).side(), 16);
        assert_eq!(blocking(4096, 4096).side(), 64);
        let mut rng = TestRng(0xB1_0C5);
        for _ in 0..200 {
            let (w, h) = (1 + rng.below(6000), 1 + rng.below(6000));
            let blocks = blocking(w, h);
            assert!(blocks.len() as u64 <= MOST_BLOCKS, "{w} x {h}: {blocks:?}");
            // (The least side that keeps to the most: half of it would not.)
            let half = blocks.side() / 2;
            let at_half = u64::from(w.div_ceil(half)) * u64::from(h.div_ceil(half));
            assert!(blocks.side() == EXIT_BLOCK || at_half > MOST_BLOCKS, "{w} x {h}");
            let far = GridPos::new(w - 1, h - 1);
            assert!(blocks.of(far) < blocks.len(), "{w} x {h}: {blocks:?}");
            let (x0, y0, x1, y1) = blocks.rect(blocks.xy(blocks.of(far)));
            assert!((x0..=x1).contains(&far.x) && (y0..=y1).contains(&far.y));
        }
    }

    /// A query's bound by blocks, the kept one raised and the ways near its goal added, is
    /// what adding each of those ways to every block gives (the blocks too far for a way to
    /// lower are left as they are): on grids up to 400 cells a side, and every tenth from
    /// 1,000 to 3,000 (most of those cut into bigger blocks), with every estimate.
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
            let (w, h) = match round % 10 {
                0 => (1000 + rng.below(2000), 1000 + rng.below(2000)),
                _ => (1 + rng.below(400), 1 + rng.below(400)),
            };
            let grid = NavGrid::new(w, h).unwrap();
            let heuristic = heuristics[round % heuristics.len()];
            let scale = f64::from(1 + rng.below(3));
            let cell = |rng: &mut TestRng| GridPos::new(rng.below(w), rng.below(h));
            let entrances: Vec<(GridPos, f64)> = (0..EXACT_EXITS + 1 + rng.below(300) as usize)
                .map(|_| (cell(&mut rng), f64::from(rng.below(60))))
                .collect();
            let kept = ExitBound::new(&grid, entrances, heuristic, scale);
            let ExitBound::Blocks { blocks, bound } = &kept else {
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
                let rect = blocks.rect(blocks.xy(b));
                let every = extra.iter().fold(kept + raise, |least, &(e, cost)| {
                    least.min(box_apart(heuristic, rect, e, e) * scale + cost)
                });
                assert_eq!(got[b].to_bits(), every.to_bits(), "round {round}, block {b}");
            }
        }
    }
}
