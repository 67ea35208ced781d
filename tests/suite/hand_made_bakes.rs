//! Baked precomputed paths changed by hand and sealed again with a valid checksum (a modder's
//! edit, a tool's bug): whatever the loaders accept never makes a query panic, and every path
//! it answers with is a walk of legal steps from the start to the goal, costing what its steps
//! cost and never less than the optimum (landmarks: exactly the optimum).

use crate::support::{Baked, Optima, Rng, random_cells, reseal, set_cells};
use bevy_tilemap_nav::grid::{CornerRule, Neighborhood};
use bevy_tilemap_nav::prelude::*;

/// Changed words per bake.
const EDITS: usize = 150;

/// A random grid with walls: uniform cost, 8-way without corner cutting (what a path table
/// serves) when `plain`, else costs 1 to 6 under one of the other rules by `round`.
fn random_grid(rng: &mut Rng, round: usize, plain: bool) -> NavGrid {
    let (width, height, walls) = (2 + rng.below(14), 2 + rng.below(14), 10 + rng.below(25));
    let cells = random_cells(rng, width, height, walls, !plain);
    let mut grid = NavGrid::new(width, height).unwrap();
    set_cells(&mut grid, &cells);
    if !plain {
        match round % 4 {
            0 => {}
            1 => grid.set_corner_rule(CornerRule::CutCorners),
            2 => grid = grid.with_neighborhood(Neighborhood::Four),
            _ => {
                let layouts = bevy_tilemap_nav::grid::HexCoords::ALL;
                grid.set_neighborhood(Neighborhood::Hex(layouts[round / 4 % layouts.len()]));
            }
        }
    }
    grid
}

/// `bytes` with one 4-byte word changed (to a random number, a small one, or one off) and the
/// checksum sealed again.
fn edited(rng: &mut Rng, bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let at = 4 * rng.below((out.len() as u32 - 8) / 4) as usize;
    let word = u32::from_le_bytes(out[at..at + 4].try_into().unwrap());
    let new = match rng.below(3) {
        0 => rng.next_u64() as u32,
        1 => rng.below(64),
        _ => word.wrapping_add(if rng.chance(50) { 1 } else { u32::MAX }),
    };
    out[at..at + 4].copy_from_slice(&new.to_le_bytes());
    reseal(&mut out);
    out
}

/// Every pair of passable cells of `grid`.
fn all_pairs(grid: &NavGrid) -> Vec<(GridPos, GridPos)> {
    let open: Vec<GridPos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
    open.iter().flat_map(|&a| open.iter().map(move |&b| (a, b))).collect()
}

/// Bakes `kind` for each of 24 random grids (`plain`: of one cost), edits each bake `EDITS`
/// times, and loads each edited bake, checking the answers of what loads between every pair of
/// open cells: enough must load for the checks to mean something.
fn edit_bakes(kind: Baked, seed: u64, plain: bool) {
    let mut rng = Rng(seed);
    let mut loaded = 0;
    for round in 0..24 {
        let grid = random_grid(&mut rng, round, plain);
        let Some(bytes) = kind.bake(&grid) else { continue };
        let mut optima = Optima::default();
        for _ in 0..EDITS {
            let edited = edited(&mut rng, &bytes);
            loaded +=
                usize::from(kind.load_and_check(&grid, &edited, all_pairs(&grid), &mut optima));
        }
    }
    assert!(loaded > 100, "edited {kind:?} bakes that load: {loaded}");
}

#[test]
fn hand_made_path_tables_never_answer_with_an_illegal_walk() {
    edit_bakes(Baked::PathTable, 0xba4e, true);
}

#[test]
fn hand_made_first_move_tables_never_answer_with_an_illegal_walk() {
    edit_bakes(Baked::FirstMoves, 0xf1257, false);
}

#[test]
fn hand_made_landmarks_that_load_keep_paths_optimal() {
    edit_bakes(Baked::Landmarks, 0x1a4d, false);
}
