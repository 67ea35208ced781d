//! The loaders of precomputed paths (`PathTable`, `FirstMoveTable` and `Landmarks`'
//! `from_binary`) on bytes made from a real bake of a small grid: its header kept, so that the
//! loader reads on into the body, and the body replaced by the input or the input XORed onto it,
//! the checksum sealed again. No panic; whatever loads answers each query with a legal walk from
//! the start to the goal, costing what its steps cost and never less than the optimum
//! (landmarks: the optimum), the checks of `tests/support`.

#![no_main]

#[path = "../../tests/support/mod.rs"]
mod common;

use std::sync::OnceLock;

use bevy_tilemap_nav::grid::{HexCoords, Neighborhood};
use bevy_tilemap_nav::prelude::*;
use common::{Baked, Rng, random_cells, reseal, set_cells};
use libfuzzer_sys::fuzz_target;

/// The header kept from the real bake: magic, version, width, height, a word of rules or cost,
/// the fingerprint of the cells (the same 28 bytes in all three forms).
const HEADER: usize = 28;

struct Case {
    kind: Baked,
    grid: NavGrid,
    bake: Vec<u8>,
    /// Queries checked for a structure that loads: a spread of the open cells' pairs.
    pairs: Vec<(GridPos, GridPos)>,
}

/// A 9 x 7 grid with walls, from `seed`: one cost when `plain`, else costs 1 to 6.
fn grid(seed: u64, plain: bool) -> NavGrid {
    let mut rng = Rng(seed);
    let cells = random_cells(&mut rng, 9, 7, 25, !plain);
    let mut grid = NavGrid::new(9, 7).expect("grid");
    set_cells(&mut grid, &cells);
    grid
}

fn case(kind: Baked, grid: NavGrid) -> Case {
    let bake = kind.bake(&grid).expect("a bake of the grid");
    let open: Vec<GridPos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
    let pairs = open
        .iter()
        .step_by(5)
        .flat_map(|&a| open.iter().step_by(3).map(move |&b| (a, b)))
        .collect();
    Case { kind, grid, bake, pairs }
}

fn cases() -> &'static [Case] {
    static CASES: OnceLock<Vec<Case>> = OnceLock::new();
    CASES.get_or_init(|| {
        let mut hex = grid(3, false);
        hex.set_neighborhood(Neighborhood::Hex(HexCoords::ALL[1]));
        vec![
            case(Baked::PathTable, grid(1, true)),
            case(Baked::FirstMoves, grid(2, false)),
            case(Baked::FirstMoves, hex.clone()),
            case(Baked::Landmarks, grid(2, false)),
            case(Baked::Landmarks, hex),
        ]
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, input)) = data.split_first() else { return };
    let cases = cases();
    let case = &cases[usize::from(mode >> 1) % cases.len()];
    let mut bytes = case.bake.clone();
    let body = bytes.len() - 8;
    if mode & 1 == 0 {
        bytes.truncate(HEADER);
        bytes.extend_from_slice(input);
        bytes.extend_from_slice(&[0; 8]);
    } else {
        for (byte, x) in bytes[HEADER..body].iter_mut().zip(input) {
            *byte ^= x;
        }
    }
    reseal(&mut bytes);
    let mut optima = common::Optima::default();
    case.kind.load_and_check(&case.grid, &bytes, case.pairs.iter().copied(), &mut optima);
});
