//! What a grid's searches derive from its cells (component labels, jump point search's bits),
//! built a slice at a time: a large map's first search then costs no long frame.

use crate::grid::{GridStamp, LabelsBuild, NavGrid};

use super::jps_applies;
use super::jump_point::bits::{JumpBits, JumpBitsBuild};
use crate::grid::CellIndex;

/// Builds, a slice at a time, what searches on one grid derive from its cells and it lacks:
/// its component labels (which answer "unreachable" without a search) and, where jump point
/// search applies, its bits. For grids with
/// [`Preparation::InSlices`](crate::grid::Preparation::InSlices), whose searches go without
/// until it is done (the plugin keeps one for each of its maps).
///
/// Each part is kept by the grid as soon as it is built, and then kept in step with its changes
/// by the grid. A change to the grid while the labels are being built begins them again (they
/// take a fifth of the work), and from then on the bits are built first. The bits follow the
/// changes made while they were built, at their end, so a grid that changes every frame still
/// gets them (unless it changes more than its journal keeps,
/// [`JOURNAL_LEN`](crate::grid::JOURNAL_LEN), while they are built: then they begin again). The
/// labels of a large grid that changes more often than they take to build are not built; its
/// searches then find an unreachable goal by searching.
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
    /// The grid as of the last step.
    stamp: Option<GridStamp>,
    labels: Option<LabelsBuild>,
    /// The bits under way, and the grid (stamp, size) as they began: the changes since are
    /// followed when they are done.
    bits: Option<(JumpBitsBuild, GridStamp, (u32, u32))>,
    work: u64,
    restarts: u32,
    /// The grid changed while its labels were built: the bits are built first from then on.
    changing: bool,
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
            // The labels' build cannot follow changes: it begins again. The bits' can, at its
            // end, while the grid still lists its changes since it began.
            let size = (grid.width(), grid.height());
            let followable = |&(_, began, at): &(JumpBitsBuild, GridStamp, (u32, u32))| {
                at == size && grid.changes_since(began).is_some()
            };
            let bits_lost = self.bits.as_ref().is_some_and(|b| !followable(b));
            if self.labels.is_some() || bits_lost {
                self.restarts += 1;
                self.changing |= self.labels.is_some();
            }
            self.labels = None;
            if bits_lost {
                self.bits = None;
            }
            self.stamp = Some(grid.stamp());
        }
        let mut left = work.max(1);
        if self.changing {
            // Changed while its labels were built: the bits first, which follow changes.
            self.step_bits(grid, &mut left);
            self.step_labels(grid, &mut left);
        } else if self.step_labels(grid, &mut left) {
            self.step_bits(grid, &mut left);
        }
        self.work += work.max(1) - left;
        Self::is_warm(grid)
    }

    /// Builds on the labels with what is `left`; true once the grid has them.
    fn step_labels(&mut self, grid: &NavGrid, left: &mut u64) -> bool {
        // (No build begun with no work left: a grid changed every step would make one each.)
        let labelled = grid.has_labels()
            || (*left > 0 && {
                let build = self.labels.get_or_insert_with(|| grid.labels_build());
                grid.build_labels(build, left)
            });
        if labelled {
            self.labels = None;
        }
        labelled
    }

    /// Builds on the jump point bits, where they apply, with what is `left`.
    fn step_bits(&mut self, grid: &NavGrid, left: &mut u64) {
        if *left == 0 || grid.has_index() || !jps_applies(grid) {
            return;
        }
        let size = (grid.width(), grid.height());
        let (build, ..) = self
            .bits
            .get_or_insert_with(|| (JumpBitsBuild::new(grid.cell_view()), grid.stamp(), size));
        if build.step(grid.cell_view(), left) {
            let (build, began, _) = self.bits.take().expect("a build under way");
            let mut built: JumpBits = build.finish();
            // The cells changed while it was built: refreshed round each, as the grid does for
            // a change once it keeps the bits (a unit of work each).
            let changed = grid.changes_since(began).into_iter().flatten();
            let moved: Vec<usize> = changed.map(|(pos, _)| grid.index(pos)).collect();
            built.cells_moved(grid.cell_view(), &moved);
            *left = left.saturating_sub(moved.len() as u64);
            grid.keep_index(Box::new(built));
        }
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
                finder.find(grid, &query.with_options(options)).map(|path| path.cost)
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

    /// A grid changed between every two steps (more often than its labels take to build)
    /// still gets its jump point bits, which follow the changes made while they were built;
    /// once the changes stop, it gets its labels. The bits then answer as bits built whole.
    #[test]
    fn a_grid_changed_at_every_step_still_gets_its_bits() {
        let mut grid = maze().with_preparation(Preparation::InSlices);
        let mut warmup = GridWarmup::default();
        let mut rng = crate::test_rng::TestRng(5);
        for _ in 0..300 {
            warmup.step(&grid, 1_000);
            let pos = GridPos::new(rng.below(120), rng.below(90));
            let cell = if rng.below(2) == 0 { Cell::Blocked } else { Cell::GROUND };
            grid.set(pos, cell).unwrap();
        }
        assert!(grid.has_index(), "no bits after 300 steps of changes");
        while !warmup.step(&grid, 1_000) {}
        assert!(grid.has_labels());
        // The same cells in a fresh grid, which builds its bits whole on its first search.
        let mut whole = NavGrid::new(120, 90).unwrap();
        whole.set_all(grid.positions().map(|p| (p, grid.get(p).unwrap()))).unwrap();
        let jps = SearchOptions { algorithm: Algorithm::JumpPoint, ..Default::default() };
        let mut finder = Pathfinder::new();
        for _ in 0..200 {
            let mut cell = || GridPos::new(rng.below(120), rng.below(90));
            let query = PathQuery::new(cell(), cell()).with_options(jps);
            let cost = |grid: &NavGrid, finder: &mut Pathfinder| {
                finder.find(grid, &query).map(|p| (p.cost * 1e6).round() as i64)
            };
            assert_eq!(cost(&grid, &mut finder), cost(&whole, &mut finder), "{query:?}");
        }
    }
}
