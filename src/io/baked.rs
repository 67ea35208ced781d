//! Baked navigation data: a [`NavGrid`] saved to a file and loaded back, in a readable RON form
//! or a compact binary one, both carrying a format version.
//!
//! Loading never touches an existing grid: it returns a new one or a typed [`BakeError`], so a
//! failed load leaves whatever the game had as it was.
//!
//! ```
//! use bevy_tilemap_nav::io::baked;
//! use bevy_tilemap_nav::prelude::*;
//!
//! let mut grid = NavGrid::new(4, 3).unwrap();
//! grid.set(GridPos::new(1, 1), Cell::Blocked).unwrap();
//! let bytes = baked::to_binary(&grid);
//! assert_eq!(baked::from_binary(&bytes).unwrap(), grid);
//! let text = baked::to_ron(&grid);
//! assert_eq!(baked::from_ron(&text).unwrap(), grid);
//! ```

use serde::{Deserialize, Serialize};

pub use crate::grid::sealed::BakeError;
use crate::grid::sealed::{checksum, rules_bytes};

use crate::grid::{
    Cell, CornerRule, GridError, GridPos, HexCoords, NavGrid, Neighborhood, Terrain,
};

/// The format version this crate writes, and the newest it reads.
pub const FORMAT_VERSION: u32 = 3;

const MAGIC: &[u8; 4] = b"TNAV";

/// The RON form: everything a grid is, in plain fields. `costs` holds one number per cell, row
/// after row (`y` = 0 first): 0 for blocked, else the cost. `terrain` (from version 2) holds
/// each cell's terrain class the same way, or nothing when every cell has the default class.
/// `exits` (from version 3) holds the walls between cells and one-way edges: for each cell of
/// the grid with a one-cell border round it, row after row, a byte whose bit `d` bars the step
/// out in direction `d` (E, W, N, S on a square grid; bevy_ecs_tilemap's `HexDirection` on a
/// hex grid; the border's bytes bar the steps in from beyond the grid); empty when none.
#[derive(Serialize, Deserialize)]
struct BakedGrid {
    version: u32,
    width: u32,
    height: u32,
    neighborhood: Neighborhood,
    corner_rule: CornerRule,
    costs: Vec<u32>,
    #[serde(default)]
    terrain: Vec<u8>,
    #[serde(default)]
    exits: Vec<u8>,
}

/// Each cell's terrain class, row after row; empty when every cell has the default class.
fn terrain_of(grid: &NavGrid) -> Vec<u8> {
    let terrain: Vec<u8> =
        grid.positions().map(|p| grid.terrain(p).unwrap_or_default().0).collect();
    if terrain.iter().all(|&t| t == 0) { Vec::new() } else { terrain }
}

/// Run-length encoding: (how many, value) pairs.
fn runs(values: impl Iterator<Item = u32>) -> Vec<(u32, u32)> {
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for value in values {
        match runs.last_mut() {
            Some((n, v)) if *v == value => *n += 1,
            _ => runs.push((1, value)),
        }
    }
    runs
}

fn costs_of(grid: &NavGrid) -> Vec<u32> {
    grid.positions()
        .map(|p| match grid.get(p) {
            Some(Cell::Passable { cost }) => cost,
            _ => 0,
        })
        .collect()
}

fn build(
    width: u32,
    height: u32,
    neighborhood: Neighborhood,
    corner_rule: CornerRule,
    costs: impl Iterator<Item = u32>,
    terrain: Vec<u8>,
    exits: &[u8],
) -> Result<NavGrid, BakeError> {
    let invalid = |e: GridError| BakeError::Invalid(e.to_string());
    let mut grid = NavGrid::filled(width, height, Cell::Blocked)
        .map_err(invalid)?
        .with_neighborhood(neighborhood)
        .with_corner_rule(corner_rule);
    let mut count = 0usize;
    let mut open = Vec::new();
    for (i, cost) in costs.enumerate() {
        if i >= grid.len() {
            return Err(BakeError::Invalid(format!("more than {} cells", grid.len())));
        }
        if cost != 0 {
            let pos = GridPos::new((i % width as usize) as u32, (i / width as usize) as u32);
            open.push((pos, Cell::Passable { cost }));
        }
        count = i + 1;
    }
    if count != grid.len() {
        return Err(BakeError::Invalid(format!("{count} cells for a {width} x {height} grid")));
    }
    grid.set_all(open).map_err(invalid)?;
    if !terrain.is_empty() {
        if terrain.len() != grid.len() {
            let n = terrain.len();
            return Err(BakeError::Invalid(format!("{n} terrain classes for {count} cells")));
        }
        let classes = terrain.iter().enumerate().filter(|(_, t)| **t != 0).map(|(i, &t)| {
            (GridPos::new((i % width as usize) as u32, (i / width as usize) as u32), Terrain(t))
        });
        grid.set_all_terrain(classes).map_err(invalid)?;
    }
    grid.load_exits(exits).map_err(BakeError::Invalid)?;
    Ok(grid)
}

/// The grid as readable RON text.
pub fn to_ron(grid: &NavGrid) -> String {
    let baked = BakedGrid {
        version: FORMAT_VERSION,
        width: grid.width(),
        height: grid.height(),
        neighborhood: grid.neighborhood(),
        corner_rule: grid.corner_rule(),
        costs: costs_of(grid),
        terrain: terrain_of(grid),
        exits: grid.straight_exits(),
    };
    ron::ser::to_string_pretty(&baked, ron::ser::PrettyConfig::default())
        .expect("plain data always serializes")
}

/// A grid from RON text written by [`to_ron`].
pub fn from_ron(text: &str) -> Result<NavGrid, BakeError> {
    // Read the version first, so that a newer file says so rather than failing to parse.
    if let Ok(v) = ron::from_str::<VersionOnly>(text)
        && v.version > FORMAT_VERSION
    {
        return Err(BakeError::FutureVersion { found: v.version, supported: FORMAT_VERSION });
    }
    let baked: BakedGrid = ron::from_str(text).map_err(|e| BakeError::Ron(e.to_string()))?;
    if baked.version > FORMAT_VERSION {
        return Err(BakeError::FutureVersion { found: baked.version, supported: FORMAT_VERSION });
    }
    // Checked before the grid is allocated, so that a small file cannot claim a huge grid.
    let cells = u64::from(baked.width) * u64::from(baked.height);
    if baked.costs.len() as u64 != cells {
        return Err(BakeError::Invalid(format!(
            "{} cells for a {} x {} grid",
            baked.costs.len(),
            baked.width,
            baked.height
        )));
    }
    if cells > MAX_LOADED_CELLS {
        return Err(BakeError::TooLarge { cells, limit: MAX_LOADED_CELLS });
    }
    let (costs, terrain) = (baked.costs.into_iter(), baked.terrain);
    let (width, height, exits) = (baked.width, baked.height, &baked.exits);
    build(width, height, baked.neighborhood, baked.corner_rule, costs, terrain, exits)
}

/// Only the version field of a RON file; other fields are ignored.
#[derive(Deserialize)]
struct VersionOnly {
    version: u32,
}

/// The grid in the compact binary form: `TNAV`, version, size, rules, run-length encoded costs
/// (a count of runs, then run length and cost of each; little-endian `u32`s), the terrain
/// classes encoded the same way (from version 2; no runs when every cell has the default
/// class), the walls between cells and one-way edges (from version 3: the padded exit bytes of
/// the RON form's `exits`, encoded the same way), and a checksum of all that.
pub fn to_binary(grid: &NavGrid) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&grid.width().to_le_bytes());
    out.extend_from_slice(&grid.height().to_le_bytes());
    out.extend_from_slice(&rules_bytes(grid));
    let terrain = terrain_of(grid);
    let exits = grid.straight_exits();
    let all = [
        runs(costs_of(grid).into_iter()),
        runs(terrain.into_iter().map(u32::from)),
        runs(exits.into_iter().map(u32::from)),
    ];
    for runs in all {
        out.extend_from_slice(&(runs.len() as u32).to_le_bytes());
        for (n, v) in runs {
            out.extend_from_slice(&n.to_le_bytes());
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// The most cells [`from_binary`] and [`from_ron`] make: 4096 x 4096 (about 340 MB of grid).
/// Larger bakes load with [`from_binary_with_limit`].
pub const MAX_LOADED_CELLS: u64 = 1 << 24;

/// A grid from bytes written by [`to_binary`], of at most [`MAX_LOADED_CELLS`] cells.
pub fn from_binary(bytes: &[u8]) -> Result<NavGrid, BakeError> {
    from_binary_with_limit(bytes, MAX_LOADED_CELLS)
}

/// A grid from bytes written by [`to_binary`], refused with [`BakeError::TooLarge`] (before
/// anything is allocated) if it claims more than `max_cells` cells.
pub fn from_binary_with_limit(bytes: &[u8], max_cells: u64) -> Result<NavGrid, BakeError> {
    if bytes.len() < 8 {
        return Err(if bytes.len() >= 4 && &bytes[..4] != MAGIC {
            BakeError::NotBaked
        } else {
            BakeError::Truncated
        });
    }
    if &bytes[..4] != MAGIC {
        return Err(BakeError::NotBaked);
    }
    let version = u32::from_le_bytes(bytes[4..8].try_into().expect("4 bytes"));
    if version > FORMAT_VERSION {
        return Err(BakeError::FutureVersion { found: version, supported: FORMAT_VERSION });
    }
    // Header (magic, version, width, height, rules, run count) is 22 bytes; the checksum 8.
    if bytes.len() < 22 + 8 {
        return Err(BakeError::Truncated);
    }
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    let runs = u32_at(18) as usize;
    let costs_end =
        runs.checked_mul(8).and_then(|n| n.checked_add(22)).ok_or(BakeError::Corrupt)?;
    // From version 2 the terrain runs follow: their count, then the runs.
    let (terrain_runs, body_end) = if version >= 2 {
        if bytes.len() < costs_end + 4 + 8 {
            return Err(BakeError::Truncated);
        }
        let t = u32_at(costs_end) as usize;
        let end = t.checked_mul(8).and_then(|n| n.checked_add(costs_end + 4));
        (t, end.ok_or(BakeError::Corrupt)?)
    } else {
        (0, costs_end)
    };
    // From version 3 the exits' runs follow: their count, then the runs.
    let exits_at = body_end + 4;
    let (exit_runs, body_end) = if version >= 3 {
        if bytes.len() < body_end + 4 + 8 {
            return Err(BakeError::Truncated);
        }
        let n = u32_at(body_end) as usize;
        let end = n.checked_mul(8).and_then(|k| k.checked_add(exits_at));
        (n, end.ok_or(BakeError::Corrupt)?)
    } else {
        (0, body_end)
    };
    if bytes.len() < body_end + 8 {
        return Err(BakeError::Truncated);
    }
    if bytes.len() > body_end + 8 {
        return Err(BakeError::Invalid(format!(
            "{} bytes after the end",
            bytes.len() - body_end - 8
        )));
    }
    let stored = u64::from_le_bytes(bytes[body_end..body_end + 8].try_into().expect("8 bytes"));
    if checksum(&bytes[..body_end]) != stored {
        return Err(BakeError::Corrupt);
    }
    let (width, height) = (u32_at(8), u32_at(12));
    let neighborhood = match bytes[16] {
        4 => Neighborhood::Four,
        8 => Neighborhood::Eight,
        n @ 60..66 => Neighborhood::Hex(HexCoords::ALL[usize::from(n - 60)]),
        n => return Err(BakeError::Invalid(format!("neighborhood {n}"))),
    };
    let corner_rule = match bytes[17] {
        0 => CornerRule::NoCornerCutting,
        1 => CornerRule::CutCorners,
        n => return Err(BakeError::Invalid(format!("corner rule {n}"))),
    };
    let cells = u64::from(width) * u64::from(height);
    if cells > max_cells {
        return Err(BakeError::TooLarge { cells, limit: max_cells });
    }
    let mut total = 0u64;
    for r in 0..runs {
        total += u64::from(u32_at(22 + r * 8));
    }
    if total != cells {
        return Err(BakeError::Invalid(format!("{total} cells for a {width} x {height} grid")));
    }
    let costs = (0..runs).flat_map(|r| {
        let (n, c) = (u32_at(22 + r * 8), u32_at(26 + r * 8));
        std::iter::repeat_n(c, n as usize)
    });
    let terrain_at = costs_end + 4;
    let terrain = byte_runs(&u32_at, terrain_at, terrain_runs, cells, "terrain classes")?;
    // As many exits as padded cells (or none), each a byte.
    let padded = (u64::from(width) + 2) * (u64::from(height) + 2);
    let exits = byte_runs(&u32_at, exits_at, exit_runs, padded, "exits")?;
    build(width, height, neighborhood, corner_rule, costs, terrain, &exits)
}

/// `runs` runs of bytes (a count and a value, each a `u32`) from byte `at`, as `u32_at` reads
/// them: `expected` bytes in all (or no run), each value at most 255; `what` they are, for the
/// error.
fn byte_runs(
    u32_at: &impl Fn(usize) -> u32,
    at: usize,
    runs: usize,
    expected: u64,
    what: &str,
) -> Result<Vec<u8>, BakeError> {
    let mut count = 0u64;
    for r in 0..runs {
        count += u64::from(u32_at(at + r * 8));
        if u32_at(at + 4 + r * 8) > u32::from(u8::MAX) {
            return Err(BakeError::Invalid(format!("{what}: a value above 255")));
        }
    }
    if runs > 0 && count != expected {
        return Err(BakeError::Invalid(format!("{count} {what} for {expected} cells")));
    }
    Ok((0..runs)
        .flat_map(|r| {
            let (n, v) = (u32_at(at + r * 8), u32_at(at + 4 + r * 8));
            std::iter::repeat_n(v as u8, n as usize)
        })
        .collect())
}

/// Checks that a loaded grid fits the map it is meant for.
pub fn expect_size(grid: &NavGrid, width: u32, height: u32) -> Result<(), BakeError> {
    if (grid.width(), grid.height()) == (width, height) {
        Ok(())
    } else {
        Err(BakeError::SizeMismatch {
            expected: (width, height),
            found: (grid.width(), grid.height()),
        })
    }
}

/// Checks that a loaded grid's cells have the shape of the map it is meant for: both square
/// (4- or 8-way: the map's settings then choose), or both hex with the same numbering.
pub fn expect_topology(grid: &NavGrid, neighborhood: Neighborhood) -> Result<(), BakeError> {
    let found = grid.neighborhood();
    let same = match (found, neighborhood) {
        (Neighborhood::Hex(a), Neighborhood::Hex(b)) => a == b,
        (a, b) => !a.is_hex() && !b.is_hex(),
    };
    if same { Ok(()) } else { Err(BakeError::TopologyMismatch { expected: neighborhood, found }) }
}

fn is_ron(path: &std::path::Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("ron"))
}

/// Saves the grid to a file: RON if the name ends in `.ron`, the binary form otherwise.
pub fn save(grid: &NavGrid, path: impl AsRef<std::path::Path>) -> Result<(), BakeError> {
    let path = path.as_ref();
    let bytes = if is_ron(path) { to_ron(grid).into_bytes() } else { to_binary(grid) };
    std::fs::write(path, bytes)
        .map_err(|e| BakeError::Io { path: path.display().to_string(), error: e.to_string() })
}

/// Loads a grid saved with [`save`] (RON if the name ends in `.ron`, binary otherwise).
pub fn load(path: impl AsRef<std::path::Path>) -> Result<NavGrid, BakeError> {
    let path = path.as_ref();
    let io = |e: std::io::Error| BakeError::Io {
        path: path.display().to_string(),
        error: e.to_string(),
    };
    if is_ron(path) {
        from_ron(&std::fs::read_to_string(path).map_err(io)?)
    } else {
        from_binary(&std::fs::read(path).map_err(io)?)
    }
}
