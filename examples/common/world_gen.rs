//! A 4,096 x 4,096-cell world worked out cell by cell (nothing stored), so that any chunk of it
//! can be made when it streams in: districts walled every 32 cells with gaps for doors, roads
//! every 256 cells, ponds of mud and scattered rocks. The `open_world` benchmark includes this
//! file by path.

#![allow(dead_code)]

/// The world's side, in cells.
pub const WORLD: u32 = 4096;
/// A chunk's side, in cells.
pub const CHUNK: u32 = 64;

/// Texture indices, as the examples' tileset draws them.
pub const GROUND: u32 = 0;
pub const ROCK: u32 = 1;
pub const BOG: u32 = 2;
pub const PATHWAY: u32 = 5;

fn hash(x: u32, y: u32, salt: u32) -> u32 {
    let mut h = u64::from(x) | (u64::from(y) << 32);
    h ^= u64::from(salt).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (h ^ (h >> 31)) as u32
}

/// Whether the wall of a district side is open at `at` (0..32 along it): a gap of three cells
/// at a place of its own, and one side in eight with no wall at all.
fn gap(side: u32, along: u32, at: u32) -> bool {
    let h = hash(side, along, 7);
    if h.is_multiple_of(8) {
        return true;
    }
    let door = 2 + (h >> 8) % 26;
    (door..door + 3).contains(&at)
}

/// The texture of world cell (x, y) (`ROCK` off the world).
pub fn world_texture(x: u32, y: u32) -> u32 {
    if x == 0 || y == 0 || x >= WORLD - 1 || y >= WORLD - 1 {
        return ROCK;
    }
    if x % 256 == 128 || y % 256 == 128 {
        return PATHWAY;
    }
    let wall_x = x.is_multiple_of(32) && !gap(x / 32, y / 32, y % 32);
    let wall_y = y.is_multiple_of(32) && !gap(y / 32 + 1000, x / 32, x % 32);
    if wall_x || wall_y {
        return ROCK;
    }
    // Ponds: blocks of 8 x 8 cells, one in seven.
    if hash(x / 8, y / 8, 3).is_multiple_of(7) {
        return BOG;
    }
    if hash(x, y, 5) % 100 < 4 { ROCK } else { GROUND }
}
