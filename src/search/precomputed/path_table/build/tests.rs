//! Tests of the build: the Hilbert numbering, runs, chains of stops, and thinned lists.

use super::super::super::slices::{Work, run_to_end};
use super::super::{UNREACHED, add_steps, octile_steps};
use super::subgoal_edges;
use super::thin::{MAX_THINNED, Way, thin_lists};
use super::{Layout, all_pairs, cell_lists, hilbert_index, number_along_curve, on_run};
use crate::grid::{Cell, Edge, GridPos, NavGrid};
use crate::search::PathTable;
use crate::test_rng::TestRng;

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

/// Thinning keeps exactly the subgoals of a cell's list that no other subgoal of the list
/// covers (lies on a shortest way between the cell and it), both ways, as trying every pair
/// finds: on open ground strewn with walls, fences and ledges, where lists are long and many
/// cover each other. (What the table answers is checked against an oracle elsewhere; this is
/// what keeps its lists short.)
#[test]
fn thinning_keeps_exactly_the_subgoals_no_other_in_the_list_covers() {
    let mut rng = TestRng(0x2545_F491_4F6C_DD1D);
    for round in 0..6 {
        let (width, height) = (24 + rng.below(40), 20 + rng.below(40));
        let mut grid = NavGrid::new(width, height).unwrap();
        for _ in 0..(width * height) / (20 + 10 * round) {
            let p = GridPos::new(rng.below(width), rng.below(height));
            grid.set(p, Cell::Blocked).unwrap();
        }
        // Fences, and in every other round ledges too (the lists each way then differ).
        for _ in 0..round * 8 {
            let a = GridPos::new(rng.below(width - 1), rng.below(height));
            let b = GridPos::new(a.x + 1, a.y);
            let edge = if round % 2 == 1 && rng.below(2) == 0 { Edge::OneWay } else { Edge::Wall };
            let (a, b) = if rng.below(2) == 0 { (a, b) } else { (b, a) };
            let _ = grid.set_edge(a, b, edge); // blocked: refused
        }
        run_to_end(async {
            let work = &mut Work::unlimited();
            let mut layout = Layout::new(&grid, false, work).await.unwrap();
            let subgoals = number_along_curve(&mut layout, work).await;
            let (outs, ins) = cell_lists(&grid, &layout, work).await.unwrap();
            let edges = subgoal_edges(&layout, &subgoals, (&outs.0, &outs.1), work).await;
            let (dist, _) = all_pairs(&layout, &subgoals, (&edges.0, &edges.1), work).await;
            let n = subgoals.len();
            let mut thinned_some = 0;
            for ((starts, list), way) in [(outs, Way::Out), (ins, Way::In)] {
                let (new_starts, new_list) =
                    thin_lists(layout.width, &subgoals, &dist, (&starts, &list), way, work).await;
                for i in 0..starts.len() - 1 {
                    let cell = ((i as i32) % layout.width, (i as i32) / layout.width);
                    let here = &list[starts[i] as usize..starts[i + 1] as usize];
                    let covers = |other: u16, a: u16| {
                        let (from, to) = if way == Way::Out { (other, a) } else { (a, other) };
                        let between = dist[usize::from(from) * n + usize::from(to)];
                        let via = octile_steps(cell, subgoals[usize::from(other)]);
                        let direct = octile_steps(cell, subgoals[usize::from(a)]);
                        other != a && between != UNREACHED && add_steps(via, between) == direct
                    };
                    let every_pair: Vec<u16> = if here.len() > MAX_THINNED {
                        here.to_vec()
                    } else {
                        let kept = |&&a: &&u16| !here.iter().any(|&other| covers(other, a));
                        here.iter().filter(kept).copied().collect()
                    };
                    let got = &new_list[new_starts[i] as usize..new_starts[i + 1] as usize];
                    assert_eq!(got, every_pair, "round {round}, cell {cell:?}");
                    thinned_some += here.len() - got.len();
                }
            }
            assert!(thinned_some > 0, "round {round}: nothing to thin");
        });
    }
}

/// Each way reads the steps between two subgoals the way a path goes through them: out of
/// the cell, from the nearer subgoal on to the farther; into the cell, from the farther on to
/// the nearer. Across a one-way edge only one of the two is short, so the same list thins
/// differently each way. (The grid tests above rarely have such a pair in one list; this
/// gives the thinning the numbers directly, with a short list and with one long enough to be
/// sorted.)
#[test]
fn thinning_reads_the_steps_between_subgoals_the_way_the_list_goes() {
    // The cell (0, 0) of a grid one cell wide. Subgoal 0 at (2, 0), subgoal 1 at (5, 0): 0
    // lies on the straight way between the cell and 1. Then, for the long list, subgoals up
    // the column, none on a way between the cell and another (no steps between them).
    for extra in [0, 8] {
        let n = 2 + extra;
        let subgoals: Vec<(i32, i32)> =
            [(2, 0), (5, 0)].into_iter().chain((1..=extra as i32).map(|y| (0, y))).collect();
        let list: Vec<u16> = (0..n as u16).collect();
        let starts = [0, n as u32];
        let steps_between = |from_0_to_1: u32, from_1_to_0: u32| {
            let mut dist = vec![UNREACHED; n * n];
            (0..n).for_each(|a| dist[a * n + a] = 0);
            (dist[1], dist[n]) = (from_0_to_1, from_1_to_0);
            dist
        };
        // Three straight steps one way; nine (round the edge's end) the other.
        for (dist, dropped_way) in [(steps_between(3, 9), Way::Out), (steps_between(9, 3), Way::In)]
        {
            for way in [Way::Out, Way::In] {
                let (new_starts, new_list) = run_to_end(thin_lists(
                    1,
                    &subgoals,
                    &dist,
                    (&starts, &list),
                    way,
                    &mut Work::unlimited(),
                ));
                let mut expected = list.clone();
                if way == dropped_way {
                    expected.remove(1); // 1 is reached through 0 (Out), or reaches it through 0 (In)
                }
                assert_eq!(new_starts, [0, expected.len() as u32], "{extra} extra");
                assert_eq!(new_list, expected, "{extra} extra");
            }
        }
    }
}
