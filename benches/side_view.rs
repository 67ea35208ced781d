//! Side-view plans on a 512 x 256 platformer level, against a plain Dijkstra over the same
//! moves in the same run, and the moves made again after one tile changes, against making
//! them all:
//!
//! ```text
//! cargo bench --bench side_view
//! ```
//!
//! The level (seeded): hilly ground with pits, floors of solid and one-way platforms every
//! 6-10 rows with gaps, ladders between floors. The hero runs 8 tiles/s, jumps 3 tiles at a
//! gravity of 40 tiles/s², is 1 x 2 tiles and walks steps. 200 random pairs of resting
//! places are planned with `SideViewPlanner` and with a textbook Dijkstra (a binary heap of
//! (seconds, place)) over the moves copied into plain lists (`moves_from`); every answer's
//! time is checked equal. The test suite checks those moves against a tile-by-tile model on
//! small levels (that model checks each flight against every tile of the map, too slow to
//! build this level). Then 40 tiles toggled one at a time (solid, or back as they were),
//! each followed by `retile`, timed against a whole build (best of three).

// Timed natively only: the web rule of clippy.toml does not apply here.
#![allow(clippy::disallowed_types, clippy::disallowed_methods)]

mod common;
#[path = "../tests/support/mod.rs"]
mod shared;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::{Duration, Instant};

use bevy_tilemap_nav::grid::GridPos;
use bevy_tilemap_nav::side_view::{
    JumpProfile, SideTile, SideViewMap, SideViewMoves, SideViewPlanner,
};
use common::best;
use shared::Rng;

const WIDTH: u32 = 512;
const HEIGHT: u32 = 256;

fn level(rng: &mut Rng) -> SideViewMap {
    let mut map = SideViewMap::new(WIDTH, HEIGHT).unwrap();
    let set = |map: &mut SideViewMap, x: u32, y: u32, tile| {
        if x < WIDTH && y < HEIGHT {
            map.set(GridPos::new(x, y), tile).unwrap();
        }
    };
    // Ground: a height that wanders by steps, with pits.
    let mut ground = 6i64;
    for x in 0..WIDTH {
        if rng.chance(15) {
            ground = (ground + i64::from(rng.below(3)) - 1).clamp(2, 12);
        }
        let pit = rng.chance(4);
        for y in 0..ground as u32 {
            if !pit || y == 0 {
                set(&mut map, x, y, SideTile::Solid);
            }
        }
    }
    // Floors every 6-10 rows: runs of platforms with gaps, ladders down to the floor below.
    let mut y = 16;
    while y < HEIGHT - 8 {
        let mut x = rng.below(8);
        while x < WIDTH {
            let len = 4 + rng.below(20);
            let tile = if rng.chance(30) { SideTile::OneWay } else { SideTile::Solid };
            for i in 0..len {
                set(&mut map, x + i, y, tile);
            }
            if rng.chance(50) {
                let lx = x + rng.below(len);
                for ly in y.saturating_sub(10)..=y {
                    if map.tile(GridPos::new(lx.min(WIDTH - 1), ly)) != SideTile::Solid || ly == y {
                        set(&mut map, lx, ly, SideTile::Ladder);
                    }
                }
            }
            x += len + 2 + rng.below(6);
        }
        y += 6 + rng.below(5);
    }
    map
}

/// Seconds from `start` to `goal` over `lists` (place index -> (place, seconds)).
fn plain_dijkstra(lists: &[Vec<(u32, f32)>], start: usize, goal: usize) -> Option<f64> {
    let mut best = vec![f64::INFINITY; lists.len()];
    let mut open = BinaryHeap::new();
    best[start] = 0.0;
    open.push(Reverse((0u64, start as u32)));
    while let Some(Reverse((bits, at))) = open.pop() {
        let (here, at) = (f64::from_bits(bits), at as usize);
        if here > best[at] {
            continue;
        }
        if at == goal {
            return Some(here);
        }
        for &(to, time) in &lists[at] {
            let through = here + f64::from(time);
            if through < best[to as usize] {
                best[to as usize] = through;
                open.push(Reverse((through.to_bits(), to)));
            }
        }
    }
    None
}

fn main() {
    let mut rng = Rng(0x5EED_0055);
    let mut map = level(&mut rng);
    let hero = JumpProfile::new(8.0, 3.0, 40.0).with_body(1, 2).with_steps(true);
    let (built, moves) = best(|| SideViewMoves::new(&map, hero).unwrap());
    let index = |p: GridPos| (p.y * WIDTH + p.x) as usize;
    let places: Vec<GridPos> = (0..HEIGHT)
        .flat_map(|y| (0..WIDTH).map(move |x| GridPos::new(x, y)))
        .filter(|&p| moves.rests(p))
        .collect();
    println!(
        "level {WIDTH} x {HEIGHT}: {} resting places, {} moves; built in {:.1} ms (best of 3)",
        places.len(),
        moves.len(),
        built.as_secs_f64() * 1e3
    );
    let lists: Vec<Vec<(u32, f32)>> = (0..WIDTH * HEIGHT)
        .map(|i| {
            moves
                .moves_from(GridPos::new(i % WIDTH, i / WIDTH))
                .map(|m| (m.to.y * WIDTH + m.to.x, m.time))
                .collect()
        })
        .collect();

    let pairs: Vec<(GridPos, GridPos)> = (0..200)
        .map(|_| {
            let a = places[rng.below(places.len() as u32) as usize];
            let b = places[rng.below(places.len() as u32) as usize];
            (a, b)
        })
        .collect();
    let mut planner = SideViewPlanner::default();
    let (mut ours, mut plain) = (Duration::ZERO, Duration::ZERO);
    let (mut answered, mut expanded, mut legs) = (0, 0u64, 0);
    for &(a, b) in &pairs {
        let start = Instant::now();
        let planned = planner.plan(&moves, &map, a, b);
        ours += start.elapsed();
        let start = Instant::now();
        let reference = plain_dijkstra(&lists, index(a), index(b));
        plain += start.elapsed();
        match (&planned, reference) {
            (Ok(path), Some(t)) => {
                assert!((f64::from(path.duration) - t).abs() < 1e-3 * t.max(1.0), "{a:?} -> {b:?}");
                answered += 1;
                expanded += u64::from(path.expanded);
                legs += path.legs.len();
            }
            (Err(_), None) => {}
            _ => panic!("{a:?} -> {b:?}: {planned:?} against {reference:?}"),
        }
    }
    let n = pairs.len() as f64;
    println!(
        "plans: {answered} of {} reached, {:.0} legs and {:.0} places expanded a plan",
        pairs.len(),
        legs as f64 / answered.max(1) as f64,
        expanded as f64 / answered.max(1) as f64
    );
    println!(
        "plan: SideViewPlanner {:.1} us, plain Dijkstra over the same moves {:.1} us a plan ({:.2}x)",
        ours.as_secs_f64() * 1e6 / n,
        plain.as_secs_f64() * 1e6 / n,
        ours.as_secs_f64() / plain.as_secs_f64()
    );

    let mut retiles = Duration::ZERO;
    let mut moves = moves;
    let toggles = 40;
    for i in 0..toggles {
        let pos = GridPos::new(rng.below(WIDTH), 1 + rng.below(HEIGHT - 1));
        let was = map.tile(pos);
        let tile = if was == SideTile::Solid { SideTile::Empty } else { SideTile::Solid };
        map.set(pos, tile).unwrap();
        let start = Instant::now();
        moves.retile(&map, &[pos]).unwrap();
        retiles += start.elapsed();
        if i % 2 == 1 {
            map.set(pos, was).unwrap();
            moves.retile(&map, &[pos]).unwrap();
        }
    }
    let (rebuilt, fresh) = best(|| SideViewMoves::new(&map, hero).unwrap());
    assert_eq!(fresh.len(), moves.len(), "retiled moves differ from a fresh build");
    let retile = retiles.as_secs_f64() / f64::from(toggles);
    println!(
        "one tile changed: retile {:.2} ms, whole build {:.1} ms ({:.3}x)",
        retile * 1e3,
        rebuilt.as_secs_f64() * 1e3,
        retile / rebuilt.as_secs_f64()
    );
}
