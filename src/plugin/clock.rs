//! The plugin's one reading of the clock. It goes through Bevy's `Instant`
//! (`bevy::platform::time::Instant`): std's natively, `web_time`'s in a browser, where std's
//! clock panics. `clippy.toml` forbids std's clock everywhere else in the library, so that a
//! `std::time::Instant::now()` cannot come back (natively the two are one type, so this file is
//! the one place allowed to name it).
#![allow(clippy::disallowed_types, clippy::disallowed_methods)]

use std::time::Duration;

use bevy::platform::time::Instant;

/// A point in time, read from Bevy's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Moment(Instant);

impl Moment {
    /// Now.
    pub(crate) fn now() -> Self {
        Self(Instant::now())
    }

    /// The time since this moment.
    pub(crate) fn elapsed(self) -> Duration {
        self.0.elapsed()
    }

    /// The time from `earlier` to this moment (zero if `earlier` is later).
    pub(crate) fn since(self, earlier: Moment) -> Duration {
        self.0.saturating_duration_since(earlier.0)
    }

    /// This moment `after` later (a year at most: a later one is as good as never, and the
    /// clock cannot hold every `Duration`).
    pub(crate) fn after(self, after: Duration) -> Self {
        Self(self.0 + after.min(Duration::from_secs(365 * 24 * 3600)))
    }
}
