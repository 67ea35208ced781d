//! Speed that follows the ground ([`GroundSpeed`]): how much slower than its speed an agent walks
//! each stretch of its path, and when it reaches each point of it ([`NavPath::arrival_times`]).

use bevy::prelude::*;

use super::super::map::NavMaps;
use super::components::{NavPath, PathFollower};
use super::start::walk_corners;
use crate::grid::line::segment_cells;
use crate::grid::{GridPos, NavGrid};

/// Opt-in, on an agent with a [`PathFollower`]: it walks dear ground slower. Each stretch of its
/// path (from one cell centre to the next, or a smoothed straight segment) is walked at its
/// speed divided by the highest cost among the cells that stretch enters: the grid's own rule
/// for what a step costs (a step costs its length times the cost of the cell entered; a
/// smoothed segment no more than its length times the dearest cell it enters). So the time of a
/// walk is its cost divided by the speed (in cells a second), and the paths the searches find,
/// the cheapest, are the fastest: a road of cost 1 is walked at full speed, mud of cost 4 at a
/// quarter. A speed table per kind of agent is a [`NavProfile`](crate::grid::NavProfile)'s
/// costs for each terrain. [`NavPath::arrival_times`] says when each point is reached.
///
/// Walking round others ([`Avoidance`](super::super::Avoidance)) or cell by cell
/// ([`GridLocked`](super::super::GridLocked)), the agent's speed each frame is divided by the
/// stretch it is on.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[reflect(Component)]
pub struct GroundSpeed;

/// How many times slower than its speed an agent with [`GroundSpeed`] walks the stretch of a
/// walk (`cells`, walked through `corners` if smoothed: see [`NavPath::corners`]) from point
/// `from` to point `to`: the highest cost among the cells it enters (for a straight segment
/// between corners, the cells the segment passes after `from`; if the segment is no longer
/// clear, the walk's cells between the two), at least 1. A blocked cell counts as 1 (a path
/// through one is planned again).
pub(crate) fn slowness(grid: &NavGrid, cells: &[GridPos], from: usize, to: usize) -> f32 {
    let (Some(&a), Some(&b)) = (cells.get(from), cells.get(to)) else {
        return 1.0;
    };
    let cost = |c: &GridPos| grid.cost(*c).unwrap_or(1).max(1);
    let dearest = if to <= from + 1 {
        (to > from).then(|| cost(&b))
    } else {
        match segment_cells(grid, a, b) {
            Some(passed) => passed.iter().skip(1).map(cost).max(),
            None => cells[from + 1..=to].iter().map(cost).max(),
        }
    };
    dearest.unwrap_or(1) as f32
}

/// When an agent reaches each point of its [`NavPath`], in seconds from the path's first point
/// ([`NavPath::arrival_times`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PathTimes {
    /// For each of the path's `points`. A smoothed walk goes straight from corner to corner:
    /// a point between two corners gets the time in proportion to its distance from the first.
    pub points: Vec<f32>,
    /// For each of its `legs`, for each of the leg's points.
    pub legs: Vec<Vec<f32>>,
    /// When it reaches the end of its last walk.
    pub goal: f32,
}

impl NavPath {
    /// When an agent walking this path with `follower` from its first point reaches each
    /// point, and its end: at its speed, or, with `ground` (the agent has [`GroundSpeed`]), at
    /// its speed divided by each stretch's [`GroundSpeed`] slowness on its map's grid (a map
    /// that is gone: full speed). Links are counted as crossed at once: add the time of a
    /// [`LinkCrossing`](super::super::LinkCrossing) that takes time. A speed of 0, below 0 or
    /// not a number gives infinite times past the first point.
    pub fn arrival_times(
        &self,
        maps: &NavMaps,
        follower: &PathFollower,
        ground: bool,
    ) -> PathTimes {
        let speed = follower.walking_speed();
        let grid = |map: Entity| maps.get(map).and_then(|m| m.grid_for(self.agent));
        let mut clock = 0.0;
        let points = walk_times(
            (&self.cells, &self.points, &self.corners),
            grid(self.map).filter(|_| ground),
            speed,
            &mut clock,
        );
        let legs = self
            .legs
            .iter()
            .map(|leg| {
                let on = grid(leg.map);
                let corners = walk_corners(follower.smooth, self.agent, on, &leg.cells);
                let walk = (&leg.cells[..], &leg.points[..], &corners[..]);
                walk_times(walk, on.filter(|_| ground), speed, &mut clock)
            })
            .collect();
        PathTimes { points, legs, goal: clock }
    }
}

/// The times of one walk's points, from `clock` on (which is left at the walk's end): each
/// stretch between the points walked through (the corners of a smoothed walk, else every
/// point) takes its length over the speed, times its slowness on `grid` if given; the points
/// inside a stretch are reached in proportion to their distance along it.
fn walk_times(
    (cells, points, corners): (&[GridPos], &[Vec2], &[usize]),
    grid: Option<&NavGrid>,
    speed: f32,
    clock: &mut f32,
) -> Vec<f32> {
    let mut times = vec![*clock; points.len()];
    let through: Vec<usize> = if corners.is_empty() {
        (0..points.len()).collect()
    } else {
        let ends = [0, points.len().saturating_sub(1)];
        let mut through: Vec<usize> = corners.iter().chain(&ends).copied().collect();
        through.sort_unstable();
        through.dedup();
        through
    };
    for pair in through.windows(2) {
        let (from, to) = (pair[0], pair[1]);
        let slow = grid.map_or(1.0, |g| slowness(g, cells, from, to));
        let length = points[from].distance(points[to]);
        let took = if length == 0.0 { 0.0 } else { length * slow / speed };
        for k in from + 1..=to {
            let along = points[from].distance(points[k]);
            let share = if length > 0.0 { (along / length).min(1.0) } else { 1.0 };
            times[k] = *clock + took * share;
        }
        *clock += took;
    }
    times
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Cell;

    #[test]
    fn a_stretch_is_as_slow_as_the_dearest_cell_it_enters() {
        let mut grid = NavGrid::new(6, 1).unwrap();
        grid.set(GridPos::new(0, 0), Cell::Passable { cost: 7 }).unwrap();
        grid.set(GridPos::new(2, 0), Cell::Passable { cost: 4 }).unwrap();
        let cells: Vec<GridPos> = (0..6).map(|x| GridPos::new(x, 0)).collect();
        // Leaving dear ground costs nothing; entering it does.
        assert_eq!(slowness(&grid, &cells, 0, 1), 1.0);
        assert_eq!(slowness(&grid, &cells, 1, 2), 4.0);
        // A straight segment: its dearest cell after its start.
        assert_eq!(slowness(&grid, &cells, 0, 5), 4.0);
        assert_eq!(slowness(&grid, &cells, 3, 5), 1.0);
        // Nothing to walk, or off the walk: full speed.
        assert_eq!(slowness(&grid, &cells, 2, 2), 1.0);
        assert_eq!(slowness(&grid, &cells, 4, 9), 1.0);
    }

    #[test]
    fn times_add_each_stretch_at_its_pace_and_points_inside_a_segment_in_proportion() {
        let mut grid = NavGrid::new(5, 1).unwrap();
        grid.set(GridPos::new(3, 0), Cell::Passable { cost: 3 }).unwrap();
        let cells: Vec<GridPos> = (0..5).map(|x| GridPos::new(x, 0)).collect();
        let points: Vec<Vec2> = (0..5).map(|x| Vec2::new(x as f32 * 10.0, 0.0)).collect();
        let mut clock = 1.0;
        let plain = walk_times((&cells, &points, &[]), None, 10.0, &mut clock);
        assert_eq!(plain, vec![1.0, 2.0, 3.0, 4.0, 5.0]);
        clock = 0.0;
        let ground = walk_times((&cells, &points, &[]), Some(&grid), 10.0, &mut clock);
        assert_eq!(ground, vec![0.0, 1.0, 2.0, 5.0, 6.0]);
        // One straight segment through the dear cell: all of it at a third of the speed.
        clock = 0.0;
        let smooth = walk_times((&cells, &points, &[0, 4]), Some(&grid), 10.0, &mut clock);
        assert_eq!(smooth, vec![0.0, 3.0, 6.0, 9.0, 12.0]);
        assert_eq!(clock, 12.0);
    }
}
