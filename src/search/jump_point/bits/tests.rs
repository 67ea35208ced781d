//! The bits against bits built whole, however they were kept in step.

use super::*;
use crate::grid::{Cell, GridPos, NavGrid};

fn bits(grid: &NavGrid) -> &JumpBits {
    grid.cell_index(JumpBits::build).expect("jump point bits")
}

fn same(a: &JumpBits, b: &JumpBits) -> bool {
    a.open_rows == b.open_rows
        && a.open_cols == b.open_cols
        && a.turn_rows == b.turn_rows
        && a.turn_cols == b.turn_cols
        && a.runs == b.runs
        && a.mixed == b.mixed
}

/// Built in slices of any size (a cell, a few cells, a line's worth, more), the bits are
/// those built whole, on grids of walls and terrain costs wider and taller than 64 cells.
#[test]
fn bits_built_in_slices_equal_bits_built_whole() {
    let mut rng = crate::test_rng::TestRng(7u64);
    let mut next = |n: u32| rng.below(n);
    for round in 0..12 {
        let (w, h) = (1 + next(150), 1 + next(150));
        let mut grid = NavGrid::new(w, h).unwrap();
        for _ in 0..next(w * h / 2 + 1) {
            let cell = match (round % 3, next(3)) {
                (0, _) | (_, 0) => Cell::Blocked,
                _ => Cell::Passable { cost: 1 + next(3) },
            };
            grid.set(GridPos::new(next(w), next(h)), cell).unwrap();
        }
        let whole = JumpBits::build(grid.cell_view());
        for slice in [1, 3, 64, 1000, 100_000] {
            let mut build = JumpBitsBuild::new(grid.cell_view());
            let mut steps = 0u64;
            while !build.step(grid.cell_view(), &mut slice.clone()) {
                steps += 1;
            }
            let built = build.finish();
            assert!(same(&built, &whole), "round {round} ({w} x {h}), slices of {slice}");
            let cells = ((w + 2) * (h + 2)) as u64;
            // Cells are counted: more cells than a slice take more slices.
            assert!(slice > cells || steps >= cells / slice, "round {round}: {steps} steps");
        }
    }
}

/// Built in slices on a grid that changes between slices (walls and costs), then brought
/// in step by telling it every cell changed since it began (`cells_moved`), the bits are
/// those built whole on the grid as it ends: a build never needs to begin again because
/// the grid changed under it.
#[test]
fn bits_built_while_the_grid_changes_catch_up_from_the_changes() {
    let mut rng = crate::test_rng::TestRng(11);
    for round in 0..300 {
        let (w, h) = (1 + rng.below(140), 1 + rng.below(100));
        let mut grid = NavGrid::new(w, h).unwrap();
        let change = |grid: &mut NavGrid, rng: &mut crate::test_rng::TestRng| {
            let cell = match (round % 3, rng.below(3)) {
                (0, _) | (_, 0) => Cell::Blocked,
                (_, 1) => Cell::GROUND,
                _ => Cell::Passable { cost: 1 + rng.below(3) },
            };
            grid.set(GridPos::new(rng.below(w), rng.below(h)), cell).unwrap();
        };
        for _ in 0..rng.below(w * h / 2 + 1) {
            change(&mut grid, &mut rng);
        }
        let began = grid.stamp();
        let slice = [1u64, 17, 400, 5000][round % 4];
        let mut build = JumpBitsBuild::new(grid.cell_view());
        // No more changes than the grid's journal keeps.
        let mut changes = 0;
        while !build.step(grid.cell_view(), &mut slice.clone()) {
            for _ in 0..rng.below(3) {
                if changes < 2000 {
                    change(&mut grid, &mut rng);
                    changes += 1;
                }
            }
        }
        let mut built = build.finish();
        let moved: Vec<usize> =
            grid.changes_since(began).unwrap().map(|(pos, _)| grid.index(pos)).collect();
        built.cells_moved(grid.cell_view(), &moved);
        let whole = JumpBits::build(grid.cell_view());
        assert!(same(&built, &whole), "round {round} ({w} x {h}), slices of {slice}");
    }
}

/// The bits kept in step cell by cell (`set`), batch by batch (`set_all`) and rebuilt
/// whole (walls and terrain costs alike) (a big `set_all`, or built afresh) all agree, after thousands of random walls built
/// and torn down on a grid wider and taller than 64 cells (so that words and the spare word
/// are crossed). The per-cell turn rule and the word-parallel one are thereby the same.
#[test]
fn bits_kept_in_step_equal_bits_built_whole() {
    let (width, height) = (70, 67);
    let mut grid = NavGrid::new(width, height).unwrap();
    let _ = bits(&grid);
    // The same changes a few at a time through `set_all`, refreshing round each.
    let mut batched = grid.clone();
    let mut batch = Vec::new();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for round in 0..4000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let pos = GridPos::new((seed % u64::from(width)) as u32, (seed >> 32) as u32 % height);
        // Walls, open ground, and terrain costs (cells on the edge of a cost change are
        // jump points: their bits follow cost changes too).
        let cell = match seed >> 20 & 7 {
            0 | 1 => Cell::GROUND,
            2 => Cell::Passable { cost: 2 + (seed >> 24) as u32 % 3 },
            _ => Cell::Blocked,
        };
        grid.set(pos, cell).unwrap();
        batch.push((pos, cell));
        if batch.len() == 8 || round % 500 == 499 {
            batched.set_all(batch.drain(..)).unwrap();
        }
        if round % 500 == 499 {
            let whole = JumpBits::build(grid.cell_view());
            assert!(same(bits(&grid), &whole), "cell by cell, round {round}");
            assert!(batched == grid && same(bits(&batched), &whole), "batched");
            // A grid whose bits are built only now, after its cells.
            let late = NavGrid::filled(width, height, Cell::Blocked).unwrap();
            let mut late = late;
            late.set_all(grid.positions().map(|p| (p, grid.get(p).unwrap()))).unwrap();
            assert!(same(bits(&late), &whole), "built late");
            // All cells at once on a grid with bits: rebuilt whole at the end.
            let mut bulk = NavGrid::new(width, height).unwrap();
            let _ = bits(&bulk);
            bulk.set_all(grid.positions().map(|p| (p, grid.get(p).unwrap()))).unwrap();
            assert!(bulk == grid && same(bits(&bulk), &whole), "bulk");
        }
    }
}

/// Walls between cells and one-way edges set and taken off one by one (and all cleared,
/// and set back from saved exits), on a grid of walls wider and taller than 64 cells: the
/// bits kept in step equal the bits built whole after each batch.
#[test]
fn bits_kept_in_step_with_edges_equal_bits_built_whole() {
    use crate::grid::Edge;
    let (width, height) = (70, 67);
    let mut grid = NavGrid::new(width, height).unwrap();
    let mut rng = crate::test_rng::TestRng(0xED);
    for _ in 0..600 {
        let pos = GridPos::new(rng.below(width), rng.below(height));
        grid.set(pos, Cell::Blocked).unwrap();
    }
    let _ = bits(&grid);
    for round in 0..3000 {
        let a = GridPos::new(rng.below(width - 1), rng.below(height - 1));
        let b =
            if rng.below(2) == 0 { GridPos::new(a.x + 1, a.y) } else { GridPos::new(a.x, a.y + 1) };
        let edge = [Edge::Open, Edge::Wall, Edge::OneWay][rng.below(3) as usize];
        let (from, to) = if rng.below(2) == 0 { (a, b) } else { (b, a) };
        grid.set_edge(from, to, edge).unwrap();
        if round % 250 == 249 {
            assert!(same(bits(&grid), &JumpBits::build(grid.cell_view())), "round {round}");
        }
    }
    let exits = grid.straight_exits();
    let fenced = bits(&grid).clone();
    grid.clear_edges();
    assert!(same(bits(&grid), &JumpBits::build(grid.cell_view())), "cleared");
    // The edges made a difference (turns, blocks), which went with them.
    assert!(!same(bits(&grid), &fenced));
    grid.load_exits(&exits).unwrap();
    assert!(same(bits(&grid), &fenced));
    assert!(same(bits(&grid), &JumpBits::build(grid.cell_view())), "loaded");
}

/// A bad cell in the middle of `set_all` stops it there; the bits match the cells set.
#[test]
fn bits_follow_a_set_all_stopped_by_a_bad_cell() {
    let mut grid = NavGrid::new(8, 8).unwrap();
    let _ = bits(&grid);
    let wall = (0..8).map(|y| (GridPos::new(3, y), Cell::Blocked));
    let bad = [(GridPos::new(9, 9), Cell::Blocked), (GridPos::new(5, 5), Cell::Blocked)];
    assert!(grid.set_all(wall.chain(bad)).is_err());
    assert!(same(bits(&grid), &JumpBits::build(grid.cell_view())));
    grid.fill_rect(GridPos::new(1, 2), GridPos::new(6, 6), Cell::Blocked).unwrap();
    assert!(same(bits(&grid), &JumpBits::build(grid.cell_view())));
    // A clone carries its bits, and they follow its own changes.
    let mut copy = grid.clone();
    copy.set(GridPos::new(3, 3), Cell::GROUND).unwrap();
    assert!(same(bits(&copy), &JumpBits::build(copy.cell_view())));
    assert!(same(bits(&grid), &JumpBits::build(grid.cell_view())));
}
