//! The crowd benchmark's generated level, shared with the benchmarks that search it alone.

use bevy_tilemap_nav::prelude::*;

use crate::support::Rng;

/// A 256 x 256 map of 16 x 16 rooms with doors between neighbours, two corridors across it,
/// and a few pillars, from a seed.
pub fn rooms_map(seed: u64) -> NavGrid {
    let n = 256u32;
    let mut rng = Rng(seed);
    let mut cells = Vec::new();
    let mut wall = vec![false; (n * n) as usize];
    for y in 0..n {
        for x in 0..n {
            wall[(y * n + x) as usize] = x % 16 == 0 || y % 16 == 0 || x == n - 1 || y == n - 1;
        }
    }
    let open = |wall: &mut Vec<bool>, x: u32, y: u32| {
        if x > 0 && y > 0 && x < n - 1 && y < n - 1 {
            wall[(y * n + x) as usize] = false;
        }
    };
    // Doors: two cells wide, in three walls of four.
    for ry in 0..16 {
        for rx in 0..16 {
            let (x0, y0) = (rx * 16, ry * 16);
            if rng.chance(75) {
                let d = 2 + rng.below(11);
                open(&mut wall, x0 + 16, y0 + d);
                open(&mut wall, x0 + 16, y0 + d + 1);
            }
            if rng.chance(75) {
                let d = 2 + rng.below(11);
                open(&mut wall, x0 + d, y0 + 16);
                open(&mut wall, x0 + d + 1, y0 + 16);
            }
            // A pillar or two.
            for _ in 0..rng.below(3) {
                let (px, py) = (x0 + 3 + rng.below(10), y0 + 3 + rng.below(10));
                wall[(py * n + px) as usize] = true;
            }
        }
    }
    // Corridors, three cells wide, across the middle both ways.
    for a in 1..n - 1 {
        for b in 127..130 {
            open(&mut wall, a, b);
            open(&mut wall, b, a);
        }
    }
    let mut grid = NavGrid::new(n, n).expect("a 256 x 256 grid");
    for y in 0..n {
        for x in 0..n {
            let cell = if wall[(y * n + x) as usize] { Cell::Blocked } else { Cell::GROUND };
            cells.push((GridPos::new(x, y), cell));
        }
    }
    grid.set_all(cells).expect("cells on the grid");
    grid
}
