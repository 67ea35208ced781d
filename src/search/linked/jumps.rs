//! Jump point search inside the grids of a search through links.
//!
//! On a grid where jump point search is optimal (8-way, no corner cutting) the search through
//! links expands jump points instead of every cell: runs skip the cells an optimal path only
//! passes through, and stop, besides the grid's own jump points, on every cell where the search
//! has something more to look at: each entrance of a way out (the link is one more step from
//! there), each goal, and the cells next to a cell the query avoids. Those stops are expanded
//! in every direction, as is the exit of a link (a path arrives there from no direction of the
//! grid). So every cheapest path through the grids has one made of jump points, links and
//! seams, and the search through links stays optimal.
//!
//! On a grid that touches others across seams, runs also stop on each border cell a step across
//! a seam leaves from (see `prep`), and a cell stepped onto across a seam is looked at in every
//! direction, as a link's exit is. Searches that ask for plain A* or Theta*, and grids where
//! jump point search is not optimal, expand cell by cell.

use super::super::avoided::Avoided;
use super::super::expansion::Expansion;
use super::super::jump_point::JumpPoints;
use super::super::jump_point::bits::JumpBits;
use super::maps::MapPos;
use super::prep::{JumpGrid, LinkedPrep, on_map};
use crate::grid::{GridPos, NavGrid};

/// Which grids of one search through links are searched by jump points, and where runs stop
/// on them: the grids' entrances (in the bits kept with the ways), and this query's goals and
/// avoided cells.
#[derive(Clone, Debug)]
pub(super) struct Jumps {
    /// Per grid: the goal on it when it holds one alone and no avoided cell (runs stop there
    /// as at a goal).
    goals: Vec<Option<GridPos>>,
    /// Per grid: marks of this query's own, where it holds several goals or avoided cells
    /// (the goals as stops, the avoided cells as walls).
    own: Vec<Option<Avoided>>,
}

impl Jumps {
    /// For a query to `goals` that walls `avoid` (never a `kept` cell: the start, a goal).
    pub(super) fn new(
        prep: &LinkedPrep,
        maps: &[&NavGrid],
        goals: &[MapPos],
        avoid: &[MapPos],
        kept: impl Fn(MapPos) -> bool,
    ) -> Self {
        let mut alone = vec![None; maps.len()];
        let mut own = vec![None; maps.len()];
        let walled: Vec<MapPos> = avoid.iter().copied().filter(|&p| !kept(p)).collect();
        for (map, &grid) in maps.iter().enumerate() {
            if !prep.jumps_on(map) {
                continue;
            }
            let goals_here = on_map(goals, map);
            let avoid_here = on_map(&walled, map);
            if goals_here.len() > 1 || !avoid_here.is_empty() {
                let mut marks = Avoided::default();
                marks.build_with_stops(grid, &avoid_here, &goals_here, |_| false);
                own[map] = Some(marks);
            } else {
                alone[map] = goals_here.first().copied();
            }
        }
        Self { goals: alone, own }
    }

    /// Calls `visit(cell, cost)` for each jump point that follows `at` on its grid (where the
    /// search expands jump points: [`LinkedPrep::jumps_on`]), reached from `parent` on the same
    /// grid (`None`: from a link, a seam, or at the start; every direction is looked at).
    pub(super) fn successors(
        &self,
        (prep, grid): (&LinkedPrep, &NavGrid),
        at: MapPos,
        parent: Option<GridPos>,
        mut visit: impl FnMut(GridPos, f64),
    ) {
        let bits = match prep.jumps.get(at.map) {
            Some(Some(JumpGrid::Stops(bits))) => Some(&**bits),
            Some(Some(JumpGrid::Own)) => grid.prepared_index(JumpBits::build),
            _ => None,
        };
        let Some(bits) = bits else { return };
        let marks = self.own.get(at.map).and_then(Option::as_ref);
        let goal = self.goals.get(at.map).copied().flatten();
        let padded = |cell: GridPos| grid.index(cell);
        let (x, y) = (at.cell.x as isize + 1, at.cell.y as isize + 1);
        let from = parent.map_or(padded(at.cell), padded);
        let mut to_cell = |_: usize, jx: isize, jy: isize, cost: f64| {
            visit(GridPos::new(jx as u32 - 1, jy as u32 - 1), cost);
        };
        match marks.filter(|m| m.any()) {
            Some(marks) => {
                let expansion = JumpPoints::<true>::new(grid, bits, goal, Some(marks));
                expansion.successors(padded(at.cell), x, y, from, &mut to_cell);
            }
            None => {
                let expansion = JumpPoints::<false>::new(grid, bits, goal, None);
                expansion.successors(padded(at.cell), x, y, from, &mut to_cell);
            }
        }
    }
}

/// The cells a run from `a` to `b` on one grid passes between them (neither end): diagonal
/// first, then straight, the shape of every step of jump point search (one cell apart for
/// a step of plain A*: none).
pub(super) fn cells_between(a: GridPos, b: GridPos) -> impl Iterator<Item = GridPos> {
    let (dx, dy) = (i64::from(b.x) - i64::from(a.x), i64::from(b.y) - i64::from(a.y));
    let (sx, sy) = (dx.signum(), dy.signum());
    let diagonal = dx.abs().min(dy.abs());
    let steps = dx.abs().max(dy.abs());
    (1..steps).map(move |k| {
        let (along_x, along_y) = if k <= diagonal {
            (k * sx, k * sy)
        } else if dx.abs() > dy.abs() {
            (k * sx, diagonal * sy)
        } else {
            (diagonal * sx, k * sy)
        };
        GridPos::new((i64::from(a.x) + along_x) as u32, (i64::from(a.y) + along_y) as u32)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cells_between_two_jump_points_go_diagonally_first_then_straight() {
        let at = |x, y| GridPos::new(x, y);
        let between = |a, b| cells_between(a, b).collect::<Vec<_>>();
        assert_eq!(between(at(1, 1), at(2, 2)), vec![]);
        assert_eq!(between(at(1, 1), at(1, 4)), vec![at(1, 2), at(1, 3)]);
        assert_eq!(between(at(5, 1), at(1, 3)), vec![at(4, 2), at(3, 3), at(2, 3)]);
        assert_eq!(between(at(0, 5), at(2, 0)), vec![at(1, 4), at(2, 3), at(2, 2), at(2, 1)]);
    }
}
