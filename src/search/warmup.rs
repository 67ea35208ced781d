//! What a grid's searches derive from its cells (component labels, jump point search's bits),
//! built a slice at a time: a large map's first search then costs no long frame.

use crate::grid::{GridStamp, LabelsBuild, NavGrid};

use super::jps_applies;
use super::jump_point::bits::{JumpBits, JumpBitsBuild};

/// Builds, a slice at a time, what searches on one grid derive from its cells and it lacks:
/// its component labels (which answer "unreachable" without a search) and, where jump point
/// search applies, its bits. For grids with
/// [`Preparation::InSlices`](crate::grid::Preparation::InSlices), whose searches go without
/// until it is done (the plugin keeps one for each of its maps).
///
/// Each part is kept by the grid as soon as it is built, and then kept in step with its changes
/// by the grid. A change to the grid while a part is being built begins that part again.
///
/// ```
/// use bevy_tilemap_nav::grid::{NavGrid, Preparation};
/// use bevy_tilemap_nav::search::GridWarmup;
///
/// let grid = NavGrid::new(300, 300).unwrap().with_preparation(Preparation::InSlices);
/// let mut warmup = GridWarmup::default();
/// let mut steps = 0;
/// while !warmup.step(&grid, 20_000) {
///     steps += 1;
/// }
/// assert!(GridWarmup::is_warm(&grid));
/// assert!(steps >= 300 * 300 / 20_000);
/// ```
#[derive(Debug, Default)]
pub struct GridWarmup {
    /// The grid as the builds under way began on it.
    stamp: Option<GridStamp>,
    labels: Option<LabelsBuild>,
    bits: Option<JumpBitsBuild>,
    work: u64,
    restarts: u32,
}

impl GridWarmup {
    /// True when `grid` has all its searches derive: labels, and jump point bits where jump
    /// point search applies.
    pub fn is_warm(grid: &NavGrid) -> bool {
        grid.has_labels() && (grid.has_index() || !jps_applies(grid))
    }

    /// Does at most `work` units (about a cell each) of what `grid` lacks (at least one unit);
    /// true once it lacks nothing.
    pub fn step(&mut self, grid: &NavGrid, work: u64) -> bool {
        if self.stamp != Some(grid.stamp()) {
            if self.labels.is_some() || self.bits.is_some() {
                self.restarts += 1;
            }
            (self.labels, self.bits, self.stamp) = (None, None, Some(grid.stamp()));
        }
        let mut left = work.max(1);
        let labelled = grid.has_labels() || {
            let build = self.labels.get_or_insert_with(|| grid.labels_build());
            grid.build_labels(build, &mut left)
        };
        if labelled {
            self.labels = None;
        }
        if labelled && left > 0 && !grid.has_index() && jps_applies(grid) {
            let build = self.bits.get_or_insert_with(|| JumpBitsBuild::new(grid.cell_view()));
            if build.step(grid.cell_view(), &mut left) {
                let built: JumpBits = self.bits.take().expect("a build under way").finish();
                grid.keep_index(Box::new(built));
            }
        }
        self.work += work.max(1) - left;
        Self::is_warm(grid)
    }

    /// The work done so far, in units.
    pub fn work(&self) -> u64 {
        self.work
    }

    /// How many times a change to the grid began a part again.
    pub fn restarts(&self) -> u32 {
        self.restarts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::{Cell, GridPos, Preparation};
    use crate::search::{Algorithm, PathError, PathQuery, Pathfinder, SearchOptions};

    /// A maze of walls with gaps, and a walled-in pocket at (40, 40).
    fn maze() -> NavGrid {
        let mut grid = NavGrid::new(120, 90).unwrap();
        for y in (5..85).step_by(6) {
            let gap = (y * 7) % 110 + 3;
            let wall = (0..120).filter(|&x| x != gap).map(|x| (GridPos::new(x, y), Cell::Blocked));
            grid.set_all(wall).unwrap();
        }
        for (x, y) in [(39, 40), (41, 40), (40, 39), (40, 41)] {
            grid.set(GridPos::new(x, y), Cell::Blocked).unwrap();
        }
        grid
    }

    /// A cold grid prepared in slices is searched without building anything: the same costs as
    /// a warm one (jump point search asked for runs as plain A*), an enclosed goal still
    /// unreachable; once warm, the same again.
    #[test]
    fn cold_grids_answer_as_warm_ones_and_build_nothing() {
        let warm = maze();
        let cold = maze().with_preparation(Preparation::InSlices);
        let mut finder = Pathfinder::new();
        let jps = SearchOptions { algorithm: Algorithm::JumpPoint, ..Default::default() };
        let pairs = [((0, 0), (119, 89)), ((3, 88), (110, 1)), ((60, 45), (2, 2))];
        let ask = |finder: &mut Pathfinder, grid: &NavGrid, options: SearchOptions| {
            pairs.map(|((ax, ay), (bx, by))| {
                let query = PathQuery::new(GridPos::new(ax, ay), GridPos::new(bx, by));
                finder.find(grid, &query.options(options)).map(|path| path.cost)
            })
        };
        for options in [SearchOptions::default(), jps] {
            let want = ask(&mut finder, &warm, options);
            assert!(want.iter().all(Result::is_ok));
            assert_eq!(ask(&mut finder, &cold, options), want);
        }
        let enclosed = PathQuery::new(GridPos::new(0, 0), GridPos::new(40, 40));
        let unreachable =
            Err(PathError::Unreachable { start: GridPos::new(0, 0), goal: GridPos::new(40, 40) });
        assert_eq!(finder.find(&cold, &enclosed).map(|p| p.cost), unreachable);
        assert!(!cold.has_labels() && !cold.has_index(), "a search built them");
        let mut warmup = GridWarmup::default();
        while !warmup.step(&cold, 1_000) {}
        assert!(cold.has_labels() && cold.has_index());
        // Ten units a padded cell, and a few for the labels' roots and the turn bits' words.
        let cells = 122 * 92;
        assert!((10 * cells..11 * cells).contains(&warmup.work()), "{} units", warmup.work());
        assert_eq!(finder.find(&cold, &enclosed).map(|p| p.cost), unreachable);
        assert_eq!(ask(&mut finder, &cold, jps), ask(&mut finder, &warm, jps));
    }
}
