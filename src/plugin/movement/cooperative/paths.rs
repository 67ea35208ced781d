//! Plans into paths: the goal cell each agent of a plan is given, and its cells written into
//! its path.

use std::collections::{HashSet, VecDeque};

use crate::grid::{GridPos, NavGrid};
use crate::plugin::agent::NavPath;
use crate::plugin::map::NavMap;

/// `asked` (an open cell) if it is nobody else's goal, else the nearest open cell that is (at
/// most 256 cells searched, by steps the grid allows; `None` from a blocked `asked`).
pub(super) fn free_goal(
    grid: &NavGrid,
    asked: GridPos,
    taken: &HashSet<GridPos>,
) -> Option<GridPos> {
    let free = |c: GridPos| grid.is_passable(c) && !taken.contains(&c);
    let mut seen = vec![asked];
    let mut queue = VecDeque::from([asked]);
    while let Some(cell) = queue.pop_front() {
        if free(cell) {
            return Some(cell);
        }
        if seen.len() > 256 {
            break;
        }
        for (next, _) in grid.neighbors(cell) {
            if grid.is_passable(next) && !seen.contains(&next) {
                seen.push(next);
                queue.push_back(next);
            }
        }
    }
    None
}

/// Makes `path` the walk through `cells` (one step each, its start first) on `map`.
pub(super) fn write_path(map: &NavMap, path: &mut NavPath, cells: &[GridPos]) {
    path.points = cells.iter().map(|&c| map.geometry.cell_to_world(c)).collect();
    path.cost = cells.windows(2).filter_map(|w| map.grid.step_cost(w[0], w[1])).sum();
    path.complete = cells.last() == Some(&path.goal);
    path.cells = cells.to_vec();
    path.corners.clear();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Cell;

    #[test]
    fn a_shared_goal_becomes_the_nearest_free_cell() {
        let mut grid = NavGrid::new(5, 1).unwrap();
        grid.set(GridPos::new(2, 0), Cell::Blocked).unwrap();
        let goal = GridPos::new(1, 0);
        let taken = |cells: &[GridPos]| cells.iter().copied().collect::<HashSet<GridPos>>();
        assert_eq!(free_goal(&grid, goal, &taken(&[])), Some(goal));
        assert_eq!(free_goal(&grid, goal, &taken(&[goal])), Some(GridPos::new(0, 0)));
        // Walled off from the rest: none left on its side.
        assert_eq!(free_goal(&grid, goal, &taken(&[goal, GridPos::new(0, 0)])), None);
        // On the other side of the wall: the nearest of the cells there.
        let east = GridPos::new(3, 0);
        assert_eq!(free_goal(&grid, east, &taken(&[east])), Some(GridPos::new(4, 0)));
    }
}
