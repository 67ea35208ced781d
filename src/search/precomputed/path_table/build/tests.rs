//! Tests of the build: the Hilbert numbering, runs, and chains of stops.

use super::{hilbert_index, on_run};
use crate::grid::{Cell, GridPos, NavGrid};
use crate::search::PathTable;

/// The cells of the run from `a` to `b`, `a` and `b` included, and a few beside it.
#[test]
fn a_cell_is_on_a_run_only_where_the_run_steps() {
    let (a, b) = ((0, 0), (5, -2)); // two diagonal steps, then three straight ones
    for p in [(0, 0), (1, -1), (2, -2), (3, -2), (5, -2)] {
        assert!(on_run(p, (a, b)), "{p:?}");
    }
    for p in [(1, 0), (3, -3), (6, -2), (-1, 1), (2, -1), (4, -1)] {
        assert!(!on_run(p, (a, b)), "{p:?}");
    }
    // Straight runs, and a run of one cell.
    assert!(on_run((0, 3), ((0, 0), (0, 7))) && !on_run((1, 3), ((0, 0), (0, 7))));
    assert!(on_run((0, 0), ((0, 0), (0, 0))) && !on_run((0, 1), ((0, 0), (0, 0))));
}

/// A path along a row of wall corners passes their subgoals straight: its chain of stops
/// is one hop, where the subgoal graph has one per corner.
#[test]
fn a_chain_skips_the_subgoals_a_path_passes_straight() {
    let mut grid = NavGrid::new(20, 5).unwrap();
    for x in [3, 7, 11, 15] {
        grid.set(GridPos::new(x, 2), Cell::Blocked).unwrap();
    }
    let table = PathTable::build(&grid).unwrap();
    let n = table.subgoals.len();
    let id = |p: (i32, i32)| table.subgoals.iter().position(|&s| s == p).unwrap();
    let (first, last) = (id((2, 1)), id((16, 1)));
    for between in [(4, 1), (6, 1), (8, 1), (14, 1)] {
        id(between); // a subgoal the path passes
    }
    assert_eq!(usize::from(table.pred[first * n + last]), first, "one hop");
    // From below the first wall the path turns once (the diagonal from (2, 3) is walled;
    // the cheapest paths turn at any of the corners below the row): two hops.
    let from_below = id((2, 3));
    let turn = usize::from(table.pred[from_below * n + last]);
    assert_ne!(turn, from_below, "a turn");
    assert_eq!(usize::from(table.pred[from_below * n + turn]), from_below, "one turn");
    assert_eq!(table.dist[first * n + last], 14, "14 straight steps");
}

/// The curve visits every cell of the square once, each step to a cell beside the last:
/// what makes numbers near each other mean cells near each other.
#[test]
fn the_hilbert_curve_visits_each_cell_once_by_steps_to_a_neighbour() {
    for side in [1u32, 2, 4, 8, 64] {
        let mut at = vec![None; (side * side) as usize];
        for y in 0..side {
            for x in 0..side {
                let index = hilbert_index(side, (x, y)) as usize;
                assert!(index < at.len(), "{side}: ({x}, {y}) numbered {index}");
                assert_eq!(at[index], None, "{side}: {index} numbered twice");
                at[index] = Some((x, y));
            }
        }
        for pair in at.windows(2) {
            let ((ax, ay), (bx, by)) = (pair[0].unwrap(), pair[1].unwrap());
            assert_eq!(ax.abs_diff(bx) + ay.abs_diff(by), 1, "{side}: a jump {pair:?}");
        }
    }
}
