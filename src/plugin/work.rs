//! The frame's one budget at run time: what each kind of work spread over frames may do this
//! frame ([`WorkMeter::allowance`]), in [`WorkBudget`]'s units and (with a time budget) by the
//! clock, and what it did ([`WorkMeter::spend`]). Every kind draws from it the same way.

use std::time::Duration;

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use super::clock::Moment;
use super::diagnostics::{LastMove, NavDiagnostics};
use super::settings::{NavSettings, WorkBudget, WorkShares};

/// The kinds of work spread over frames, each with its share of [`WorkBudget`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WorkKind {
    /// Path searches, movement ranges, a world's graph ahead of queries.
    Searches,
    /// Distance fields' builds.
    Fields,
    /// Precomputed builds in slices.
    Precompute,
    /// Grids for kinds of agents, then grids' labels and jump point bits.
    WarmUp,
}

/// Every kind, in the order of their indices.
const KINDS: [WorkKind; 4] =
    [WorkKind::Searches, WorkKind::Fields, WorkKind::Precompute, WorkKind::WarmUp];

impl WorkKind {
    fn index(self) -> usize {
        self as usize
    }

    fn share(self, shares: &WorkShares) -> u64 {
        match self {
            WorkKind::Searches => shares.searches,
            WorkKind::Fields => shares.fields,
            WorkKind::Precompute => shares.precompute,
            WorkKind::WarmUp => shares.warm_up,
        }
    }
}

/// Until learnt, work that cannot read the clock as it goes is taken to do this many units a
/// millisecond: a slow machine's (BENCHMARKS.md gives the rates measured).
const FIRST_UNITS_PER_MS: f64 = 10_000.0;

/// The work's time a frame is never less than this part of the budget's `time` (here a quarter),
/// however long the tile sync and the movement take: so that builds and searches go on at a
/// pace where those alone overrun the budget (a debug build in a browser did: `web/`).
const WORK_FLOOR: u32 = 4;

/// A rate is learnt from slices that took this long together, not less (the clock's grain, a
/// cold cache): short slices are added up until they do.
const SHORTEST_LESSON: Duration = Duration::from_micros(100);

/// What one kind may do this frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Allowance {
    /// Units: its share, cut to what the frame has left; at least 1, so that all goes on.
    pub(crate) units: u64,
    /// With a time budget, when its share of the frame's time is up.
    pub(crate) deadline: Option<Moment>,
}

impl Allowance {
    /// Its time is up (never, without a time budget).
    pub(crate) fn out_of_time(&self) -> bool {
        self.deadline.is_some_and(|d| Moment::now() >= d)
    }
}

/// What each kind did this frame, and the rates learnt of the work that cannot read the clock
/// as it goes (a resource; all kinds' units together are also counted in
/// [`NavDiagnostics::work`]).
#[derive(Resource, Default)]
pub(crate) struct WorkMeter {
    /// Per kind, units done this frame, and the time they took.
    spent: [u64; 4],
    took: [Duration; 4],
    /// Per kind, whether it had work last frame, and this frame so far: the time is shared
    /// among the kinds that have work.
    busy: [bool; 4],
    busy_now: [bool; 4],
    /// Per kind, units done a millisecond in the slices so far (`None` before the first lesson).
    rates: [Option<f64>; 4],
    /// Per kind, the units and time of the slices since the last lesson.
    lessons: [(u64, Duration); 4],
}

impl WorkMeter {
    /// A new frame: no work done yet (the plugin's first system calls it).
    pub(crate) fn begin_frame(&mut self) {
        self.spent = [0; 4];
        self.took = [Duration::ZERO; 4];
        self.busy = std::mem::take(&mut self.busy_now);
    }

    /// What `kind` may do this frame: what is left of its share of the units (cut to what the
    /// frame has left) and, with a time budget, what is left of its part of the time the tile
    /// sync and the movement (`outside`: as last frame) leave, and never less than its part of
    /// a [`WORK_FLOOR`]th of the time. The time is parted among the
    /// kinds that have work (this frame or last), in proportion to their shares: a kind alone
    /// gets all of it. A kind drawn on by more than one system, as searches are, shares both
    /// among them.
    pub(crate) fn allowance(
        &self,
        budget: &WorkBudget,
        kind: WorkKind,
        diagnostics: &NavDiagnostics,
        outside: Duration,
    ) -> Allowance {
        let share = kind.share(&budget.shares);
        let mine = share.saturating_sub(self.spent[kind.index()]);
        let units = mine.min(budget.units.saturating_sub(diagnostics.work)).max(1);
        let deadline = budget.time.map(|time| {
            // (A year at most: `Duration`'s arithmetic in floats fails near its largest.)
            let time = time.min(Duration::from_secs(365 * 24 * 3600));
            // However long the sync and the movement take, the work gets a part of the time
            // (WORK_FLOOR): on a slow machine (a debug build in a browser) they could take all
            // of it, and the builds would then go on by a unit a frame, never to finish.
            let left = time.saturating_sub(diagnostics.sync_time + outside).max(time / WORK_FLOOR);
            let others = (self.busy.iter().zip(&self.busy_now).enumerate())
                .filter(|&(k, (&was, &is))| k != kind.index() && (was || is))
                .fold(0u64, |sum, (k, _)| sum.saturating_add(KINDS[k].share(&budget.shares)));
            let part = share as f64 / share.saturating_add(others).max(1) as f64;
            let mine = left.mul_f64(part.min(1.0));
            Moment::now().after(mine.saturating_sub(self.took[kind.index()]))
        });
        Allowance { units, deadline }
    }

    /// [`Self::allowance`] for work that cannot read the clock as it goes: with a time budget,
    /// the units it did in its share of the time in the frames before (a slow machine's rate
    /// until it has run).
    pub(crate) fn clockless(
        &self,
        budget: &WorkBudget,
        kind: WorkKind,
        diagnostics: &NavDiagnostics,
        outside: Duration,
    ) -> u64 {
        let allowance = self.allowance(budget, kind, diagnostics, outside);
        let Some(deadline) = allowance.deadline else {
            return allowance.units;
        };
        let time = deadline.since(Moment::now());
        let rate = self.rates[kind.index()].unwrap_or(FIRST_UNITS_PER_MS);
        let in_time = (rate * time.as_secs_f64() * 1e3) as u64;
        allowance.units.min(in_time).max(1)
    }

    /// `kind` did `units` of work in `took`: counted against the frame, and (with a time
    /// budget, once its slices add up to long enough to tell) its rate learnt.
    pub(crate) fn spend(
        &mut self,
        budget: &WorkBudget,
        kind: WorkKind,
        diagnostics: &mut NavDiagnostics,
        (units, took): (u64, Duration),
    ) {
        diagnostics.work = diagnostics.work.saturating_add(units);
        self.busy_now[kind.index()] |= units > 0;
        let spent = &mut self.spent[kind.index()];
        *spent = spent.saturating_add(units);
        self.took[kind.index()] += took;
        if budget.time.is_none() || units == 0 {
            return;
        }
        let lesson = &mut self.lessons[kind.index()];
        *lesson = (lesson.0.saturating_add(units), lesson.1 + took);
        if lesson.1 < SHORTEST_LESSON {
            return;
        }
        let measured = lesson.0 as f64 / (lesson.1.as_secs_f64() * 1e3);
        *lesson = (0, Duration::ZERO);
        let rate = &mut self.rates[kind.index()];
        *rate = Some(rate.map_or(measured, |r| 0.5 * r + 0.5 * measured));
    }
}

/// What a system that does work spread over frames reads and writes: the settings, the
/// frame's diagnostics (where the work done is counted), the rates learnt, and last frame's
/// movement time.
#[derive(SystemParam)]
pub(crate) struct FrameWork<'w> {
    pub(crate) settings: Res<'w, NavSettings>,
    pub(crate) diagnostics: ResMut<'w, NavDiagnostics>,
    meter: ResMut<'w, WorkMeter>,
    last_move: Res<'w, LastMove>,
}

impl FrameWork<'_> {
    /// What `kind` may do this frame ([`WorkMeter::allowance`]).
    pub(crate) fn allowance(&self, kind: WorkKind) -> Allowance {
        self.meter.allowance(&self.settings.work, kind, &self.diagnostics, self.last_move.0)
    }

    /// The units `kind`, which cannot read the clock as it goes, may do this frame
    /// ([`WorkMeter::clockless`]).
    pub(crate) fn clockless(&self, kind: WorkKind) -> u64 {
        let (budget, outside) = (&self.settings.work, self.last_move.0);
        self.meter.clockless(budget, kind, &self.diagnostics, outside)
    }

    /// `kind` did `units` in `took` ([`WorkMeter::spend`]).
    pub(crate) fn spend(&mut self, kind: WorkKind, units: u64, took: Duration) {
        let budget = self.settings.work;
        self.meter.spend(&budget, kind, &mut self.diagnostics, (units, took));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each kind gets its share of units, cut to what the frame has left but never below one;
    /// its time is its share of what the sync and the movement leave.
    #[test]
    fn each_kind_gets_its_share_of_what_is_left() {
        let shares = WorkShares { searches: 100, fields: 300, precompute: 0, warm_up: 600 };
        let budget = WorkBudget { units: 500, time: Some(Duration::from_millis(10)), shares };
        let (mut meter, mut diagnostics) = (WorkMeter::default(), NavDiagnostics::default());
        let zero = Duration::ZERO;
        let allowance = |meter: &WorkMeter, d: &NavDiagnostics, kind| {
            meter.allowance(&budget, kind, d, zero).units
        };
        assert_eq!(allowance(&meter, &diagnostics, WorkKind::Fields), 300);
        meter.spend(&budget, WorkKind::Fields, &mut diagnostics, (120, zero));
        assert_eq!(allowance(&meter, &diagnostics, WorkKind::Fields), 180);
        // 120 of 500 spent: the warm-up's 600 is cut to the 380 left.
        assert_eq!(allowance(&meter, &diagnostics, WorkKind::WarmUp), 380);
        meter.spend(&budget, WorkKind::WarmUp, &mut diagnostics, (380, zero));
        assert_eq!(diagnostics.work, 500);
        // Nothing left: one unit, so that all goes on.
        assert_eq!(allowance(&meter, &diagnostics, WorkKind::Searches), 1);
        assert_eq!(allowance(&meter, &diagnostics, WorkKind::Precompute), 1);
        // A new frame.
        meter.begin_frame();
        diagnostics = NavDiagnostics::default();
        assert_eq!(allowance(&meter, &diagnostics, WorkKind::Fields), 300);
        // 10 ms less 4 of sync and movement, parted among the kinds with work (the fields and
        // the warm-up last frame, and the searches): the searches' tenth is 0.6 ms.
        diagnostics.sync_time = Duration::from_millis(1);
        let now = Moment::now();
        let searches =
            meter.allowance(&budget, WorkKind::Searches, &diagnostics, Duration::from_millis(3));
        let time = searches.deadline.unwrap().since(now);
        let (low, high) = (Duration::from_micros(600), Duration::from_micros(700));
        assert!(time >= low && time < high, "{time:?}");
        // What an earlier system of the kind took is not the next one's.
        let outside = Duration::from_millis(3);
        meter.spend(
            &budget,
            WorkKind::Searches,
            &mut diagnostics,
            (10, Duration::from_micros(200)),
        );
        let now = Moment::now();
        let next = meter.allowance(&budget, WorkKind::Searches, &diagnostics, outside);
        let time = next.deadline.unwrap().since(now);
        let (low, high) = (Duration::from_micros(400), Duration::from_micros(500));
        assert!(time >= low && time < high, "{time:?}");
        // Movement over the whole 10 ms: the searches' tenth of the floor's 2.5 ms, less the
        // 200 us they took.
        let now = Moment::now();
        let heavy = Duration::from_millis(12);
        let floor = meter.allowance(&budget, WorkKind::Searches, &diagnostics, heavy);
        let time = floor.deadline.unwrap().since(now);
        let (low, high) = (Duration::from_micros(50), Duration::from_micros(150));
        assert!(time >= low && time < high, "{time:?}");
        let untimed = WorkBudget { time: None, ..budget };
        let fields = meter.allowance(&untimed, WorkKind::Fields, &diagnostics, zero);
        assert_eq!(fields.deadline, None);
        // Next frame, only the searches had work last frame: they get all of the 6 ms.
        meter.begin_frame();
        let now = Moment::now();
        let alone = meter.allowance(&budget, WorkKind::Searches, &diagnostics, outside);
        let time = alone.deadline.unwrap().since(now);
        let (low, high) = (Duration::from_millis(6), Duration::from_micros(6_100));
        assert!(time >= low && time < high, "{time:?}");
    }

    /// Work that cannot read the clock gets the units its rate does in its time: a slow
    /// machine's at first, then the rate it showed.
    #[test]
    fn clockless_work_learns_its_rate() {
        let shares = WorkShares { searches: 0, fields: 1_000_000, precompute: 0, warm_up: 0 };
        let budget = WorkBudget { units: u64::MAX, time: Some(Duration::from_millis(1)), shares };
        let mut meter = WorkMeter::default();
        let mut diagnostics = NavDiagnostics::default();
        let first = meter.clockless(&budget, WorkKind::Fields, &diagnostics, Duration::ZERO);
        assert!(first <= 10_000 && first > 9_000, "{first}");
        let spent = (50_000, Duration::from_millis(1));
        meter.spend(&budget, WorkKind::Fields, &mut diagnostics, spent);
        assert_eq!(diagnostics.work, 50_000);
        // Next frame: its whole share of the time, at the rate it showed.
        meter.begin_frame();
        diagnostics = NavDiagnostics::default();
        let learnt = meter.clockless(&budget, WorkKind::Fields, &diagnostics, Duration::ZERO);
        assert!(learnt <= 50_000 && learnt > 45_000, "{learnt}");
        // Slices too short to tell on their own add up: ten of 20 us at 200 units a us.
        let mut fresh = WorkMeter::default();
        for _ in 0..10 {
            let slice = (4_000, Duration::from_micros(20));
            fresh.spend(&budget, WorkKind::WarmUp, &mut diagnostics, slice);
        }
        // (Its share is the whole millisecond, less the 200 us its slices took: 160,000.)
        let shares = WorkShares { warm_up: 1_000_000, fields: 0, ..shares };
        let warm = WorkBudget { shares, ..budget };
        let learnt = fresh.clockless(&warm, WorkKind::WarmUp, &diagnostics, Duration::ZERO);
        assert!(learnt <= 160_000 && learnt > 150_000, "{learnt}");
        // Untimed: its share (a new frame: nothing spent yet), whatever the rate.
        let untimed = WorkBudget { time: None, ..budget };
        let all = meter.clockless(&untimed, WorkKind::Fields, &diagnostics, Duration::ZERO);
        assert_eq!(all, 1_000_000);
    }
}
