//! The one thing every search over the grid asks of the cells: how the search loop finds the
//! cells that follow a cell ([`Expansion`]). Each expansion (plain neighbours, hex, jump
//! points, Theta*) implements it in its own file; the A* loop, the landmarks' and first-move
//! tables' searches run over it.

use super::options::Heuristic;
use crate::grid::GridPos;

/// How the search loop finds the cells that follow a cell.
pub(super) trait Expansion {
    /// True for Theta*: successors may take the expanded cell's parent as theirs.
    fn any_angle(&self) -> bool {
        false
    }

    /// A path from padded (`x`, `y`) to the goal that no path beats, when one is clear: the
    /// cell where it turns (padded index; `None` for one straight or diagonal run), the cost to
    /// that turn, and the whole cost. Only asked when the heuristic is that cost's exact lower
    /// bound, so that the search may stop there.
    fn direct_to_goal(&self, _x: isize, _y: isize) -> Option<(Option<usize>, f64, f64)> {
        None
    }

    /// The unscaled `heuristic` estimate from padded (`x`, `y`) to `goal`: on a square grid its
    /// formula on the two distances along the axes.
    #[inline]
    fn distance(&self, heuristic: Heuristic, x: isize, y: isize, goal: GridPos) -> f64 {
        let (gx, gy) = (goal.x as isize + 1, goal.y as isize + 1);
        heuristic.distance(x.abs_diff(gx) as u32, y.abs_diff(gy) as u32)
    }

    /// For partial paths, how far padded (`x`, `y`) is from `goal` (the octile distance on a
    /// square grid): the expanded cell that minimises it is where a partial path ends.
    #[inline]
    fn closeness(&self, x: isize, y: isize, goal: GridPos) -> f64 {
        let (gx, gy) = (goal.x as isize + 1, goal.y as isize + 1);
        Heuristic::Octile.distance(x.abs_diff(gx) as u32, y.abs_diff(gy) as u32)
    }

    /// Calls `visit(j, jx, jy, cost)` for each successor `j` (padded index and coordinates) of
    /// cell `i` at padded coordinates (`x`, `y`), reached from `parent` (`i` itself for the
    /// start), with the cost of getting from `i` to `j`.
    fn successors(
        &self,
        i: usize,
        x: isize,
        y: isize,
        parent: usize,
        visit: impl FnMut(usize, isize, isize, f64),
    );
}
