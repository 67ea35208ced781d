//! Builds that run in slices: a precomputed structure's build written once, as an `async fn`
//! that counts its work as it goes and pauses where a slice's work is spent. Run in one go
//! (no limit) it never pauses; run as a [`SlicedBuild`] it does a bounded amount of work per
//! [`step`](SlicedBuild::step), with the same result.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

/// What a build and the one stepping it share: the step running and the work allowed for it,
/// and what the build spent in it.
#[derive(Default)]
struct Meter {
    step: AtomicU64,
    budget: AtomicU64,
    spent: AtomicU64,
}

/// A build's work counter, kept by the build itself (a plain number in its hot loops) and
/// squared with its [`Meter`] only where a step's work runs out.
pub(crate) struct Work {
    /// Units left in this step.
    left: u64,
    /// Units this step started with (or the one piece of work that took more).
    given: u64,
    /// The step `left` and `given` are of.
    step: u64,
    meter: Option<Arc<Meter>>,
}

impl Work {
    /// No limit: the build runs in one go and never pauses.
    pub(crate) fn unlimited() -> Self {
        Self { left: u64::MAX, given: u64::MAX, step: 0, meter: None }
    }

    /// Work counted against `meter`: nothing is left until the first step gives some.
    fn sliced(meter: Arc<Meter>) -> Self {
        Self { left: 0, given: 0, step: 0, meter: Some(meter) }
    }

    /// Takes `units` from this step when they are left in it: `false` when they are not
    /// ([`next_slice`](Self::next_slice)).
    #[inline(always)]
    pub(crate) fn take(&mut self, units: u64) -> bool {
        if self.left >= units {
            self.left -= units;
            true
        } else {
            false
        }
    }

    /// Takes `units` from the next step's work: the first step's own when none was taken yet
    /// in it, else after the build pauses until the next step. A piece larger than a whole
    /// step's work is never split: it takes a step's work, and more.
    pub(crate) async fn next_slice(&mut self, units: u64) {
        let Some(meter) = self.meter.clone() else {
            self.left = u64::MAX; // unlimited work that ran out (more than `u64::MAX` units)
            return;
        };
        loop {
            let step = meter.step.load(Ordering::Relaxed);
            if step != self.step {
                let budget = meter.budget.load(Ordering::Relaxed);
                (self.step, self.given) = (step, budget.max(units));
                self.left = budget.saturating_sub(units);
                return;
            }
            meter.spent.store(self.given - self.left, Ordering::Relaxed);
            Pause(false).await;
        }
    }
}

impl Drop for Work {
    /// Notes what the last step spent: the build ended (its future drops its work counter as
    /// it returns).
    fn drop(&mut self) {
        if let Some(meter) = &self.meter {
            let spent = if meter.step.load(Ordering::Relaxed) == self.step {
                self.given - self.left
            } else {
                0
            };
            meter.spent.store(spent, Ordering::Relaxed);
        }
    }
}

/// Takes `$units` of work, ending the slice first when they are not left in it.
macro_rules! spend {
    ($work:expr, $units:expr) => {{
        let units: u64 = $units;
        if !$work.take(units) {
            $work.next_slice(units).await;
        }
    }};
}
pub(crate) use spend;

/// Not ready the first time it is polled: where a slice ends.
struct Pause(bool);

impl Future for Pause {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            Poll::Pending
        }
    }
}

/// Runs a build with no limit to its end: it never pauses.
pub(crate) fn run_to_end<T>(build: impl Future<Output = T>) -> T {
    let mut build = std::pin::pin!(build);
    match build.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(done) => done,
        Poll::Pending => unreachable!("a build with unlimited work never pauses"),
    }
}

/// The units of work a cell taken from a search's open list counts, in every count of work
/// the crate keeps (a [`SlicedBuild`]'s over every cell, a distance field's build, a world
/// graph's walks, and the plugin's budget for a search's expanded cell): a unit is about 10 ns
/// natively on these machines.
pub const CELL_WORK: u64 = 8;

/// A build that runs a slice at a time: [`step`](Self::step) it (once a frame, say) with the
/// work it may do, until it gives the finished structure. The structure is the same as a build
/// in one go makes, byte for byte, and current for the grid it was started on while that grid
/// does not change (the build works on a copy taken at its start).
///
/// Work is counted in units of roughly constant time, about 10 ns each natively on these
/// machines (a cell of a sweep over the grid, a subgoal taken from a search's open list; a cell
/// taken from a search over every cell is 8). A step never does
/// more than the units it is given, but for one indivisible piece of work (a few units, at
/// most the length of one cell's list) when the step is given fewer than that piece takes.
///
/// ```
/// use bevy_tilemap_nav::grid::{Cell, GridPos, NavGrid};
/// use bevy_tilemap_nav::search::PathTable;
///
/// let mut grid = NavGrid::new(40, 30).unwrap();
/// grid.fill_rect(GridPos::new(10, 0), GridPos::new(10, 25), Cell::Blocked).unwrap();
/// let mut build = PathTable::build_in_slices(&grid);
/// let table = loop {
///     if let Some(done) = build.step(2_000) {
///         break done.unwrap();
///     }
///     assert!(build.last_step_work() <= 2_000);
///     // ... the rest of the frame ...
/// };
/// assert_eq!(table.to_binary(), PathTable::build(&grid).unwrap().to_binary());
/// ```
pub struct SlicedBuild<T> {
    /// In a mutex only to be `Sync` (stepping takes `&mut self`: it is never locked).
    /// `None` once finished.
    build: Mutex<Option<Pin<Box<dyn Future<Output = T> + Send>>>>,
    meter: Arc<Meter>,
    steps: u64,
    work: u64,
}

impl<T> SlicedBuild<T> {
    /// A sliced build of what `build` makes, counting its work in the counter it is given
    /// (which it drops as it returns).
    pub(crate) fn new<F>(build: impl FnOnce(Work) -> F) -> Self
    where
        F: Future<Output = T> + Send + 'static,
    {
        let meter = Arc::new(Meter::default());
        let build = Mutex::new(Some(Box::pin(build(Work::sliced(meter.clone()))) as Pin<Box<_>>));
        Self { build, meter, steps: 0, work: 0 }
    }

    /// Does at most `work` units of the build (at least one unit): the finished structure when
    /// this step ends it. Once it has given it, a step does nothing and gives `None`.
    pub fn step(&mut self, work: u64) -> Option<T> {
        self.meter.step.fetch_add(1, Ordering::Relaxed);
        self.meter.budget.store(work.max(1), Ordering::Relaxed);
        self.meter.spent.store(0, Ordering::Relaxed);
        let slot = self.build.get_mut().unwrap_or_else(PoisonError::into_inner);
        let build = slot.as_mut()?;
        let polled = build.as_mut().poll(&mut Context::from_waker(Waker::noop()));
        self.steps += 1;
        self.work += self.meter.spent.load(Ordering::Relaxed);
        match polled {
            Poll::Ready(done) => {
                *slot = None;
                Some(done)
            }
            Poll::Pending => None,
        }
    }

    /// The build has given its structure.
    pub fn is_finished(&mut self) -> bool {
        self.build.get_mut().unwrap_or_else(PoisonError::into_inner).is_none()
    }

    /// The units of work the last [`step`](Self::step) did.
    pub fn last_step_work(&self) -> u64 {
        self.meter.spent.load(Ordering::Relaxed)
    }

    /// The steps taken so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The units of work done so far, over every step.
    pub fn work(&self) -> u64 {
        self.work
    }
}

impl<T> std::fmt::Debug for SlicedBuild<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SlicedBuild").field("steps", &self.steps).field("work", &self.work).finish()
    }
}

/// The grid's cells' fingerprint (as baked data is checked against), a row at a time: a unit
/// of work per 16 cells.
pub(crate) async fn fingerprint(grid: &crate::grid::NavGrid, work: &mut Work) -> u64 {
    let mut hash = crate::grid::sealed::CellsHash::new(grid);
    for y in 0..grid.height() {
        spend!(work, u64::from(grid.width()) / 16 + 1);
        hash.row(grid, y);
    }
    hash.0
}

/// `len` copies of `value`, made a thousand at a time: 16 units of work per 1,024.
pub(crate) async fn filled<T: Copy>(len: usize, value: T, work: &mut Work) -> Vec<T> {
    let mut made = Vec::with_capacity(len);
    while made.len() < len {
        spend!(work, 16);
        let more = (len - made.len()).min(1024);
        made.extend(std::iter::repeat_n(value, more));
    }
    made
}
