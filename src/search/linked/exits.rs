//! A query's bound on leaving each grid through a way (a link from its entrance), from the
//! bounds its [`LinkedPrep`] keeps for every query and the walk from the ways' exits to this
//! query's goals.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::super::options::Heuristic;
use super::bounds::ExitBound;
use super::maps::MapPos;
use super::prep::LinkedPrep;
use crate::grid::{GridPos, NavGrid};

/// With few ways (up to [`EXACT_EXITS`](super::bounds::EXACT_EXITS)): each grid's bound on
/// leaving it through a way, the rest from each way's exit worked out over the ways (walking on
/// to the goal, `direct`, or taking another way: the prep's `way_hops`) until nothing gets
/// cheaper.
pub(super) fn exact_exits(
    maps: &[&NavGrid],
    prep: &LinkedPrep,
    heuristics: &[(Heuristic, f64)],
    direct: &impl Fn(MapPos) -> f64,
) -> Vec<ExitBound> {
    let (ways, hops, n) = (&prep.ways, &prep.way_hops, prep.ways.len());
    let mut rest: Vec<f64> = ways.iter().map(|&(_, x, ..)| direct(x)).collect();
    for _ in 0..n {
        let mut changed = false;
        for w in 0..n {
            let row = &hops[w * n..w * n + n];
            let on = row.iter().zip(&rest).fold(rest[w], |least, (hop, r)| least.min(hop + r));
            if on < rest[w] {
                rest[w] = on;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut entrances: Vec<Vec<(GridPos, f64)>> = vec![Vec::new(); maps.len()];
    for (&(e, _, cost, _), &r) in ways.iter().zip(&rest) {
        if r.is_finite() {
            entrances[e.map].push((e.cell, cost + r));
        }
    }
    ExitBound::per_grid(maps, entrances, heuristics)
}

/// With many ways (more than [`EXACT_EXITS`](super::bounds::EXACT_EXITS)): each grid's bound on leaving it through a way,
/// the bounds kept with the ways (the rest from each exit: the cheapest way out of its grid)
/// raised by the least walk from any exit to the goal (`direct`), and the ways whose exits lie
/// nearer the goal than that added one by one.
///
/// From an exit a path either walks on to the goal on that grid (at least `direct`), or takes
/// another way out of the grid (at least the cheapest) and ends with a walk from some exit to
/// the goal (at least the least of them all). Grids joined at seams may leave their grid
/// without a way: there nothing is added.
pub(super) fn many_exits(
    maps: &[&NavGrid],
    prep: &LinkedPrep,
    (heuristics, guide): (&[(Heuristic, f64)], &[MapPos]),
    direct: &impl Fn(MapPos) -> f64,
) -> Vec<ExitBound> {
    let ways = &prep.ways;
    let (least_walk, near) = near_exits(maps, prep, (heuristics, guide), direct)
        .unwrap_or_else(|| every_exit(prep, direct));
    let mut extra: Vec<Vec<(GridPos, f64)>> = vec![Vec::new(); maps.len()];
    for (w, on) in near {
        let (e, _, cost, _) = ways[w];
        extra[e.map].push((e.cell, cost + on));
    }
    let raise = if least_walk.is_finite() { least_walk } else { 0.0 };
    maps.iter()
        .zip(extra)
        .zip(prep.exit_bounds.iter().zip(heuristics))
        .map(|((grid, extra), (kept, &(heuristic, scale)))| {
            kept.with(grid, (raise, extra), heuristic, scale)
        })
        .collect()
}

/// [`many_exits`]'s least walk from an exit to the goal (`direct`; 0 across seams), and the
/// ways whose exits walk there for less than the cheapest way out of their grid plus that
/// (each with its walk), found from the blocks of exits nearest the goals (`guide`) outward:
/// the same as from every exit, without a look at the far ones. `None` where the blocks do
/// not bound the walks (no guide, a hexagonal grid): every exit is looked at.
fn near_exits(
    maps: &[&NavGrid],
    prep: &LinkedPrep,
    (heuristics, guide): (&[(Heuristic, f64)], &[MapPos]),
    direct: &impl Fn(MapPos) -> f64,
) -> Option<(f64, Vec<(usize, f64)>)> {
    if guide.is_empty() {
        return None;
    }
    let blocks = prep.exit_blocks.near(maps, guide, heuristics)?;
    let exits = |map, block| prep.exit_blocks.ways_in(map, block).iter().map(|&w| w as usize);
    let least_walk = match prep.seams {
        Some(_) => 0.0,
        None => {
            // Nearest block first (a heap: most blocks are never taken out): no exit of a
            // block is nearer than its bound, so the blocks past the least so far cannot
            // lower it. (The bounds are not negative: their bits order as they do.)
            let mut nearest: BinaryHeap<Reverse<(u64, usize)>> =
                blocks.iter().enumerate().map(|(i, b)| Reverse((b.0.to_bits(), i))).collect();
            let mut least = f64::INFINITY;
            while let Some(Reverse((_, i))) = nearest.pop() {
                let (bound, map, block) = blocks[i];
                if bound >= least {
                    break;
                }
                for w in exits(map, block) {
                    least = least.min(direct(prep.ways[w].1));
                }
            }
            least
        }
    };
    let mut near = Vec::new();
    for &(bound, map, block) in &blocks {
        let under = prep.cheapest_out[map] + least_walk;
        if bound >= under {
            continue;
        }
        for w in exits(map, block) {
            let on = direct(prep.ways[w].1);
            if on < under {
                near.push((w, on));
            }
        }
    }
    Some((least_walk, near))
}

/// [`near_exits`] from every exit.
fn every_exit(prep: &LinkedPrep, direct: &impl Fn(MapPos) -> f64) -> (f64, Vec<(usize, f64)>) {
    let ways = &prep.ways;
    let on: Vec<f64> = ways.iter().map(|&(_, x, ..)| direct(x)).collect();
    let least_walk = match prep.seams {
        Some(_) => 0.0,
        None => on.iter().copied().fold(f64::INFINITY, f64::min),
    };
    let near = (0..ways.len())
        .filter(|&w| on[w] < prep.cheapest_out[ways[w].1.map] + least_walk)
        .map(|w| (w, on[w]))
        .collect();
    (least_walk, near)
}

#[cfg(test)]
mod tests {
    use super::super::maps::{Link, Placement};
    use super::*;
    use crate::grid::{Cell, HexCoords, Neighborhood};
    use crate::search::options::Algorithm;
    use crate::test_rng::TestRng;

    /// A random grid: walls, some terrain dearer than ground, four- or eight-way (or hex).
    fn random_grid(rng: &mut TestRng, (w, h): (u32, u32), moves: Neighborhood) -> NavGrid {
        let mut grid = NavGrid::new(w, h).unwrap().with_neighborhood(moves);
        let least = 1 + rng.below(2);
        for pos in grid.positions().collect::<Vec<_>>() {
            let cell = match rng.below(100) {
                0..20 => Cell::Blocked,
                20..30 => Cell::Passable { cost: least + 1 + rng.below(4) },
                _ => Cell::Passable { cost: least },
            };
            grid.set(pos, cell).unwrap();
        }
        grid
    }

    fn random_pos(rng: &mut TestRng, maps: &[&NavGrid]) -> MapPos {
        let map = rng.below(maps.len() as u32) as usize;
        let (w, h) = (maps[map].width(), maps[map].height());
        MapPos::new(map, GridPos::new(rng.below(w), rng.below(h)))
    }

    /// The walk from each exit as `LinkedSearch::new` works it out for `guide`.
    fn direct_to<'a>(
        maps: &'a [&'a NavGrid],
        prep: &'a LinkedPrep,
        guide: &'a [MapPos],
    ) -> impl Fn(MapPos) -> f64 + 'a {
        move |x: MapPos| {
            let (heuristic, scale) = prep.heuristics[x.map];
            let moves = maps[x.map].neighborhood();
            guide
                .iter()
                .filter(|g| g.map == x.map)
                .map(|g| heuristic.estimate(moves, x.cell, g.cell) * scale)
                .fold(f64::INFINITY, f64::min)
        }
    }

    /// The exits near the goals, found block by block outward, are the exits a look at every
    /// exit finds: the same least walk to a goal, and the same ways walked for less than the
    /// cheapest way out plus that (each with the same walk). On 4- and 8-way grids with walls
    /// and terrain, one to three of them (side by side as chunks of one world on some rounds),
    /// 49 to 900 ways, one to four goals.
    #[test]
    fn exits_near_the_goal_are_those_every_exit_gives() {
        let mut rng = TestRng(0x5EED_D00E);
        let mut nearer = 0;
        for round in 0..120 {
            let moves = if rng.below(3) == 0 { Neighborhood::Four } else { Neighborhood::Eight };
            let count = 1 + rng.below(3) as usize;
            let size = (8 + rng.below(150), 8 + rng.below(150));
            let grids: Vec<NavGrid> =
                (0..count).map(|_| random_grid(&mut rng, size, moves)).collect();
            let maps: Vec<&NavGrid> = grids.iter().collect();
            // Chunks of one world, side by side, on a third of the rounds.
            let places: Vec<Option<Placement>> = match round % 3 {
                0 => (0..count)
                    .map(|i| Some(Placement { world: 0, x: i as i64 * i64::from(size.0), y: 0 }))
                    .collect(),
                _ => Vec::new(),
            };
            let links: Vec<Link> = (0..25 + rng.below(450))
                .map(|_| {
                    let (a, b) = (random_pos(&mut rng, &maps), random_pos(&mut rng, &maps));
                    let cost = f64::from(rng.below(30)) / 2.0;
                    if rng.below(4) == 0 {
                        Link::one_way(a, b, cost)
                    } else {
                        Link::two_way(a, b, cost)
                    }
                })
                .collect();
            let prep = LinkedPrep::new((&maps, &links, &places), Algorithm::Auto).unwrap();
            if prep.ways.len() <= super::super::bounds::EXACT_EXITS {
                continue;
            }
            for _ in 0..6 {
                let guide: Vec<MapPos> =
                    (0..1 + rng.below(4)).map(|_| random_pos(&mut rng, &maps)).collect();
                let direct = direct_to(&maps, &prep, &guide);
                let heuristics = prep.heuristics.as_slice();
                let near = near_exits(&maps, &prep, (heuristics, &guide), &direct);
                let (least, mut near) = near.expect("square grids are bounded by blocks");
                let (every_least, every) = every_exit(&prep, &direct);
                near.sort_by_key(|&(w, _)| w);
                assert_eq!(least.to_bits(), every_least.to_bits(), "round {round}");
                assert_eq!(near, every, "round {round}");
                nearer += usize::from(near.len() < prep.ways.len());
            }
        }
        // (Most queries leave far exits out, which is what makes the look cheap.)
        assert!(nearer > 300, "{nearer} queries left exits out");
    }

    /// On a hexagonal goal grid the blocks do not bound the walk: every exit is looked at.
    #[test]
    fn a_hexagonal_goal_grid_has_every_exit_looked_at() {
        let mut rng = TestRng(7);
        let hex = Neighborhood::Hex(HexCoords::RowEven);
        let grid = random_grid(&mut rng, (60, 60), hex);
        let maps = [&grid];
        let links: Vec<Link> = (0..100)
            .map(|_| Link::two_way(random_pos(&mut rng, &maps), random_pos(&mut rng, &maps), 3.0))
            .collect();
        let prep = LinkedPrep::new((&maps, &links, &[]), Algorithm::Auto).unwrap();
        let guide = [random_pos(&mut rng, &maps)];
        let direct = direct_to(&maps, &prep, &guide);
        let heuristics = prep.heuristics.as_slice();
        assert!(near_exits(&maps, &prep, (heuristics, &guide), &direct).is_none());
    }
}
