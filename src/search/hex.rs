//! Plain expansion on a hex grid: the six steps to the neighbouring hexagons, each of length 1,
//! and the distances of a hex grid for the heuristic.

use super::expansion::Expansion;
use super::options::Heuristic;
use crate::grid::{GridPos, HexCoords, NavGrid, Neighborhood};

/// A* on a hex grid. Avoided cells are kept out by the search loop; hexagons have no corner
/// rule.
pub(super) struct HexNeighbors<'a> {
    costs: &'a [u32],
    /// Barred exits (walls between cells, one-way edges); empty when the grid has none.
    exits: &'a [u8],
    stride: isize,
    coords: HexCoords,
    /// The six steps (dx, dy) out of a cell on an even line, then an odd one.
    steps: [[(isize, isize); 6]; 2],
}

impl<'a> HexNeighbors<'a> {
    /// `None` unless the grid is a hex grid.
    pub(super) fn new(grid: &'a NavGrid) -> Option<Self> {
        let Neighborhood::Hex(coords) = grid.neighborhood() else {
            return None;
        };
        Some(Self {
            costs: grid.padded_costs(),
            exits: grid.padded_exits(),
            stride: grid.stride() as isize,
            coords,
            steps: [coords.steps(0), coords.steps(1)],
        })
    }
}

/// The cell at padded coordinates (`x`, `y`).
#[inline]
fn unpadded(x: isize, y: isize) -> GridPos {
    GridPos::new(x as u32 - 1, y as u32 - 1)
}

impl Expansion for HexNeighbors<'_> {
    #[inline]
    fn distance(&self, heuristic: Heuristic, x: isize, y: isize, goal: GridPos) -> f64 {
        heuristic.estimate(Neighborhood::Hex(self.coords), unpadded(x, y), goal)
    }

    #[inline]
    fn closeness(&self, x: isize, y: isize, goal: GridPos) -> f64 {
        f64::from(self.coords.distance(unpadded(x, y), goal))
    }

    #[inline]
    fn successors(
        &self,
        i: usize,
        x: isize,
        y: isize,
        _parent: usize,
        mut visit: impl FnMut(usize, isize, isize, f64),
    ) {
        // Padded coordinates are one more than the cell's own.
        let steps = &self.steps[self.coords.parity(x as usize - 1, y as usize - 1)];
        for (d, &(dx, dy)) in steps.iter().enumerate() {
            let j = (i as isize + dx + dy * self.stride) as usize;
            let cost = self.costs[j];
            if cost != 0 && (self.exits.is_empty() || self.exits[i] & (1 << d) == 0) {
                visit(j, x + dx, y + dy, f64::from(cost));
            }
        }
    }
}
