//! Plain expansion on a square grid: every legal step to a neighbour (4- or 8-way, with the
//! corner rule).

use std::f64::consts::SQRT_2;

use super::avoided::Avoided;
use super::expansion::Expansion;
use crate::grid::{CornerRule, DIRECTIONS, NavGrid, Neighborhood};

/// Plain A*: every legal step to a neighbor.
pub(super) struct Neighbors<'a> {
    costs: &'a [u32],
    /// Barred exits (walls between cells, one-way edges); empty when the grid has none.
    exits: &'a [u8],
    stride: isize,
    directions: usize,
    offsets: [isize; 8],
    corner_rule: CornerRule,
    /// This query's avoided cells: walls for the corner rule too (the search loop keeps the
    /// path out of them).
    avoided: Option<&'a Avoided>,
}

impl<'a> Neighbors<'a> {
    pub(super) fn new(grid: &'a NavGrid, avoided: Option<&'a Avoided>) -> Self {
        let stride = grid.stride() as isize;
        let mut offsets = [0isize; 8];
        for (offset, (dx, dy)) in offsets.iter_mut().zip(DIRECTIONS) {
            *offset = dx + dy * stride;
        }
        Self {
            costs: grid.padded_costs(),
            exits: grid.padded_exits(),
            stride,
            directions: match grid.neighborhood() {
                Neighborhood::Four => 4,
                Neighborhood::Eight | Neighborhood::Hex(_) => 8,
            },
            offsets,
            corner_rule: grid.corner_rule(),
            avoided,
        }
    }

    /// Padded cell `i` is open: passable and not avoided.
    #[inline]
    fn side_open(&self, i: usize) -> bool {
        self.costs[i] != 0 && self.avoided.is_none_or(|a| !a.is_wall(i))
    }
}

impl Expansion for Neighbors<'_> {
    #[inline]
    fn successors(
        &self,
        i: usize,
        x: isize,
        y: isize,
        _parent: usize,
        mut visit: impl FnMut(usize, isize, isize, f64),
    ) {
        let costs = self.costs;
        for (d, (&offset, &(dx, dy))) in
            self.offsets.iter().zip(&DIRECTIONS).take(self.directions).enumerate()
        {
            let j = (i as isize + offset) as usize;
            let cost = costs[j];
            if cost == 0 || (!self.exits.is_empty() && self.exits[i] & (1 << d) != 0) {
                continue;
            }
            let step = if d < 4 {
                1.0
            } else {
                let side_a = self.side_open((i as isize + dx) as usize);
                let side_b = self.side_open((i as isize + dy * self.stride) as usize);
                if !self.corner_rule.allows_diagonal(side_a, side_b) {
                    continue;
                }
                SQRT_2
            };
            visit(j, x + dx, y + dy, step * f64::from(cost));
        }
    }
}
