//! The world graph's walks by jump points: from one cell to many on a grid where jump point
//! search is optimal, a Dijkstra over jump points instead of over every cell.
//!
//! Each query over the graph walks from its start to every node of its grid and from every
//! node of the goal's grid to the goal, and each grid's walks between its nodes take one walk
//! per node: on a 64 x 64 chunk a walk over cells settles most of its 4,096 cells before the
//! last node. Here runs skip the cells a cheapest path only passes through and stop, besides
//! the grid's own jump points, on every target (marked as stops, as a search through links
//! marks its goals): each target is a jump point of the cheapest path to it, so its cost is
//! exact when it is settled.
//!
//! A walk backward (from each target to the cell) is the walk forward from the cell on a grid
//! where every step costs the same both ways: one cost on every cell and no barred edges (a
//! one-way edge, or a step's cost taken from the cell it enters, make them differ). Elsewhere
//! the walk backward is over cells.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::grid::{GridPos, NavGrid};
use crate::search::avoided::Avoided;
use crate::search::expansion::Expansion;
use crate::search::jump_point::bits::JumpBits;
use crate::search::jump_point::{JumpPoints, jps_applies, jumps_pay};

/// The grid's jump point bits when a walk on `grid` (backward or not) goes by jump points.
pub(super) fn jump_bits(grid: &NavGrid, backward: bool) -> Option<&JumpBits> {
    let same_both_ways = grid.has_uniform_cost() && !grid.has_edges();
    if !jps_applies(grid) || !jumps_pay(grid) || (backward && !same_both_ways) {
        return None;
    }
    grid.prepared_index(JumpBits::build)
}

/// A jump point Dijkstra's buffers, reused from walk to walk.
#[derive(Debug, Default)]
pub(super) struct JumpWalks {
    /// Per padded cell: the cost to reach it, and the jump point it was reached from.
    costs: Vec<f64>,
    parent: Vec<u32>,
    wanted: Vec<bool>,
    /// Cells by the cost to reach them (the bits of a non-negative `f64` order as the numbers).
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    /// The targets, as stops where runs end.
    stops: Avoided,
}

impl JumpWalks {
    /// The cheapest walk on `grid` (with its jump point `bits`) from passable `from` to each
    /// cell of `targets` (infinite where there is none, or the target is off the grid): the
    /// walk backward too where [`jump_bits`] gave the bits for it. Adds the jump points settled
    /// to `settled`; stops once every target is settled.
    pub(super) fn walks(
        &mut self,
        (grid, bits): (&NavGrid, &JumpBits),
        from: GridPos,
        targets: &[GridPos],
        settled: &mut u32,
    ) -> Vec<f64> {
        self.costs.clear();
        self.costs.resize(grid.padded_len(), f64::INFINITY);
        self.parent.resize(grid.padded_len(), 0);
        self.wanted.clear();
        self.wanted.resize(grid.padded_len(), false);
        self.heap.clear();
        let mut left = 0usize;
        for &t in targets.iter().filter(|&&t| grid.is_passable(t)) {
            if !std::mem::replace(&mut self.wanted[grid.index(t)], true) {
                left += 1;
            }
        }
        self.stops.build_with_stops(grid, &[], targets, |_| false);
        let expansion = JumpPoints::<true>::new(grid, bits, None, Some(&self.stops));
        let stride = grid.stride();
        let start = grid.index(from);
        self.costs[start] = 0.0;
        self.parent[start] = start as u32;
        self.heap.push(Reverse((0f64.to_bits(), start as u32)));
        let (costs, parent, heap) = (&mut self.costs, &mut self.parent, &mut self.heap);
        while left > 0
            && let Some(Reverse((key, at))) = heap.pop()
        {
            let (g, i) = (f64::from_bits(key), at as usize);
            if g > costs[i] {
                continue;
            }
            *settled += 1;
            if std::mem::replace(&mut self.wanted[i], false) {
                left -= 1;
            }
            let (x, y) = ((i % stride) as isize, (i / stride) as isize);
            expansion.successors(i, x, y, parent[i] as usize, |j, _, _, step| {
                let g2 = g + step;
                if g2 < costs[j] {
                    costs[j] = g2;
                    parent[j] = at;
                    heap.push(Reverse((g2.to_bits(), j as u32)));
                }
            });
        }
        let cost = |t: GridPos| match grid.is_passable(t) {
            true => self.costs[grid.index(t)],
            false => f64::INFINITY,
        };
        targets.iter().map(|&t| cost(t)).collect()
    }
}
