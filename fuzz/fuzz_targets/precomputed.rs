//! The loaders of precomputed paths (`PathTable`, `FirstMoveTable` and `Landmarks`'
//! `from_binary`) on bytes made from a real bake of a small grid: its header kept, so that the
//! loader reads on into the body, and the body replaced by the input or the input XORed onto it,
//! the checksum sealed again. No panic; whatever loads answers each query with a legal walk from
//! the start to the goal, costing what its steps cost and never less than the optimum
//! (landmarks: the optimum), the checks of `tests/common`.

#![no_main]

#[path = "../../tests/common/mod.rs"]
mod common;

use std::sync::OnceLock;

use bevy_tilemap_nav::grid::HexCoords;
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::{FirstMoveTable, Landmarks, PathTable};
use common::{Rng, check_loaded_answers, random_cells, reseal};
use libfuzzer_sys::fuzz_target;

/// The header kept from the real bake: magic, version, width, height, a word of rules or cost,
/// the fingerprint of the cells (the same 28 bytes in all three forms).
const HEADER: usize = 28;

enum Kind {
    Table,
    FirstMoves,
    Landmarks,
}

struct Case {
    kind: Kind,
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
    for (y, row) in cells.iter().enumerate() {
        for (x, &cost) in row.iter().enumerate() {
            let cell = cost.map_or(Cell::Blocked, |cost| Cell::Passable { cost });
            grid.set(GridPos::new(x as u32, y as u32), cell).expect("in bounds");
        }
    }
    grid
}

fn case(kind: Kind, grid: NavGrid) -> Case {
    let bake = match kind {
        Kind::Table => PathTable::build(&grid).expect("a table").to_binary(),
        Kind::FirstMoves => FirstMoveTable::build(&grid).expect("a table").to_binary(),
        Kind::Landmarks => {
            Landmarks::build(&grid, 3).expect("landmarks").to_binary(&grid).expect("current")
        }
    };
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
            case(Kind::Table, grid(1, true)),
            case(Kind::FirstMoves, grid(2, false)),
            case(Kind::FirstMoves, hex.clone()),
            case(Kind::Landmarks, grid(2, false)),
            case(Kind::Landmarks, hex),
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
    let (grid, pairs) = (&case.grid, case.pairs.iter().copied());
    match case.kind {
        Kind::Table => {
            if let Ok(table) = PathTable::from_binary(&bytes, grid) {
                check_loaded_answers(grid, pairs, false, |p, a, b| table.find_path(grid, p, a, b));
            }
        }
        Kind::FirstMoves => {
            if let Ok(table) = FirstMoveTable::from_binary(&bytes, grid) {
                check_loaded_answers(grid, pairs, false, |p, a, b| table.find_path(grid, p, a, b));
            }
        }
        Kind::Landmarks => {
            if let Ok(landmarks) = Landmarks::from_binary(&bytes, grid) {
                let options = SearchOptions::default();
                check_loaded_answers(grid, pairs, true, |p, a, b| {
                    p.find_path_guided(grid, &landmarks, a, b, &options)
                });
            }
        }
    }
});
