//! Grids laid side by side on one lattice (chunks): every step across the seams between
//! touching grids as links ([`seam_links`]).

use super::linked::{Lattice, Link, MapPos, Placement};
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

/// The seam links that a change to the grids `changed` (indices into `maps`) may have changed,
/// and the cells they leave from: every border cell of a changed grid, and every border cell of
/// another grid within one lattice step of one (a step reads its two cells, their sides and the
/// four cells round the corner it passes, all within a step of where it leaves). The links
/// out of those cells are what [`seam_links`] would give out of them; those out of any other
/// cell are as they were. The grids and places are as for [`seam_links`].
///
/// A world of chunks where one chunk's tile changed thus works out that chunk's seams, not the
/// world's.
pub fn seam_links_near(
    maps: &[&NavGrid],
    places: &[Option<Placement>],
    changed: &[usize],
) -> (Vec<Link>, Vec<MapPos>) {
    let lattice = Lattice::new(maps, places);
    let mut links = Vec::new();
    let mut cells = Vec::new();
    lattice.crossings_near(
        maps,
        changed,
        |from| cells.push(from),
        |from, to, len| {
            let cost = maps[to.map].cost(to.cell).map_or(f64::INFINITY, f64::from);
            links.push(Link::one_way(from, to, len * cost));
        },
    );
    (links, cells)
}
