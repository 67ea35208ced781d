//! Grids laid side by side on one lattice (chunks): every step across the seams between
//! touching grids as links ([`seam_links`]).

use super::linked::{Lattice, Link, Placement};
use crate::grid::NavGrid;

pub(super) fn is_hex(grid: &NavGrid) -> bool {
    grid.neighborhood().is_hex()
}

/// Every step that one grid would allow between two grids placed side by side on one lattice
/// (see [`Placement`]), as a one-way [`Link`] costing what the step would (its length times the
/// far cell's cost): straight steps, and diagonal ones the corner rule allows with the cells
/// beside them read on whatever grid holds them, no diagonal past the end of a wall between
/// cells of any of them. Grids join only with grids of the same moves and corner rule. Hex
/// grids join with the six steps of the lattice's cells; in offset coordinates (`RowOdd`,
/// `ColumnEven`, ...) a grid joins only when placed an even number of rows (columns) from the
/// lattice's origin, so that its shifted lines are the lattice's. Grids that overlap on the
/// lattice are not supported (a cell is read on one of them).
///
/// With these links, [`LinkedMaps`](super::LinkedMaps) answers across the seams as the whole grid
/// would.
pub fn seam_links(maps: &[&NavGrid], places: &[Option<Placement>]) -> Vec<Link> {
    let lattice = Lattice::new(maps, places);
    let mut links = Vec::new();
    lattice.crossings(maps, true, |from, to, len, _| {
        let cost = maps[to.map].cost(to.cell).map_or(f64::INFINITY, f64::from);
        links.push(Link::one_way(from, to, len * cost));
    });
    links
}
