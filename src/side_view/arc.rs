//! A body's flight under gravity, checked against the tiles a column at a time.
//!
//! The body is a box `w` x `h` tiles whose lower left corner flies on
//! `x(t) = x0 + vx t`, `y(t) = y0 + vy t - g t² / 2`. It overlaps a tile when the open box and
//! the open tile overlap (touching is not overlapping). While it is over a column, its height
//! is a stretch of the parabola, so the rows it touches there are known exactly: per-column
//! counts of solid tiles and of levels that hold a body up answer each column in constant
//! time.

use super::map::{SideTile, SideViewMap};

/// Slack for the edges of tiles: a body within this of a tile's side touches it and is not
/// inside it.
pub(crate) const EPS: f64 = 1e-6;

/// `x` rounded down, without a call into the maths library (the baseline x86-64 has no
/// rounding instruction). For the small finite numbers of flights only.
#[inline]
pub(crate) fn floor(x: f64) -> i64 {
    let t = x as i64;
    t - i64::from((t as f64) > x)
}

/// `x` rounded up (as [`floor`]).
#[inline]
pub(crate) fn ceil(x: f64) -> i64 {
    let t = x as i64;
    t + i64::from((t as f64) < x)
}

/// Per column: how many solid tiles lie below each row, and how many levels that hold a body
/// up lie below each level (a level is the top of a row: level `k` is where feet rest on
/// row `k - 1`).
pub(crate) struct Columns {
    height: i64,
    width: i64,
    /// `(height + 1)` counts a column: solid tiles in rows `< r`.
    solid: Vec<u32>,
    /// `(height + 2)` counts a column: supporting levels `< k`.
    support: Vec<u32>,
    /// Per column, the most levels from one that holds a body up to the next (the map's top
    /// counted as one): feet that come down more than this while over the column pass one.
    most_air: Vec<u32>,
    /// `(height + 1)` a column: from level `k` up to the next level that holds a body up
    /// (the map's top counted as one).
    air_above: Vec<u32>,
}

impl Columns {
    pub fn new(map: &SideViewMap) -> Self {
        let (width, height) = (i64::from(map.width()), i64::from(map.height()));
        let mut columns = Self {
            height,
            width,
            solid: vec![0; (width * (height + 1)) as usize],
            support: vec![0; (width * (height + 2)) as usize],
            most_air: vec![0; width as usize],
            air_above: vec![0; (width * (height + 1)) as usize],
        };
        for c in 0..width {
            columns.recount(map, c);
        }
        columns
    }

    /// Counts column `c` again (after a tile in it changed).
    pub fn recount(&mut self, map: &SideViewMap, c: i64) {
        let h = self.height;
        let solid = &mut self.solid[(c * (h + 1)) as usize..((c + 1) * (h + 1)) as usize];
        for r in 0..h {
            solid[r as usize + 1] =
                solid[r as usize] + u32::from(map.tile_at(c, r) == SideTile::Solid);
        }
        let support = &mut self.support[(c * (h + 2)) as usize..((c + 1) * (h + 2)) as usize];
        let (mut last, mut most) = (0, 0);
        for k in 0..=h {
            let holds = map.supports(c, k);
            support[k as usize + 1] = support[k as usize] + u32::from(holds);
            if holds || k == h {
                most = most.max(k - last);
                last = k;
            }
        }
        self.most_air[c as usize] = most as u32;
        let above = &mut self.air_above[(c * (h + 1)) as usize..((c + 1) * (h + 1)) as usize];
        let mut next = h;
        for k in (0..=h).rev() {
            above[k as usize] = (next - k).max(0) as u32;
            if k < h && support[k as usize + 1] > support[k as usize] {
                next = k;
            }
        }
    }

    /// From level `k` (on the map) of column `c` up to the next level that holds a body up.
    pub fn air_above(&self, c: i64, k: i64) -> f64 {
        f64::from(self.air_above[(c * (self.height + 1) + k) as usize])
    }

    /// The most levels between two that hold a body up in column `c` (see `most_air`).
    pub fn most_air(&self, c: i64) -> f64 {
        f64::from(self.most_air[c as usize])
    }

    /// A solid tile (or the outside of the map) in column `c`, rows `lo..=hi`.
    pub fn any_solid(&self, c: i64, lo: i64, hi: i64) -> bool {
        if lo > hi {
            return false;
        }
        if c < 0 || c >= self.width || lo < 0 || hi >= self.height {
            return true;
        }
        let base = (c * (self.height + 1)) as usize;
        self.solid[base + hi as usize + 1] > self.solid[base + lo as usize]
    }

    /// A level that holds a body up in column `c`, among levels `lo..=hi`.
    pub fn any_support(&self, c: i64, lo: i64, hi: i64) -> bool {
        let (lo, hi) = (lo.max(0), hi.min(self.height));
        if lo > hi {
            return false;
        }
        if c < 0 || c >= self.width {
            return true;
        }
        let base = (c * (self.height + 2)) as usize;
        self.support[base + hi as usize + 1] > self.support[base + lo as usize]
    }
}

impl Columns {
    /// The highest level at or below `at_most` that holds a body up in column `c` (on the
    /// map), `skip` aside.
    pub fn highest_support(&self, c: i64, at_most: i64, skip: Option<i64>) -> Option<i64> {
        if c < 0 || c >= self.width || at_most < 0 {
            return None;
        }
        let base = (c * (self.height + 2)) as usize;
        let counts = &self.support[base..base + (at_most.min(self.height) + 2) as usize];
        let mut below = *counts.last()?;
        loop {
            if below == 0 {
                return None;
            }
            // The first level whose count of levels below it reaches `below` is one above it.
            let level = counts.partition_point(|&n| n < below) as i64 - 1;
            if Some(level) != skip {
                return Some(level);
            }
            below -= 1;
        }
    }
}

/// What a flight meets ([`Flight::clearance`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Clearance {
    /// Nothing: it lands where it ends.
    Clear,
    /// A solid tile, or something that holds it up before the end.
    Blocked,
    /// Blocked, and so is every flight from the same launch across the same columns to a
    /// lower landing.
    BlockedLower,
}

/// One flight: from `(x0, y0)` (a body's lower left corner, in tiles) for `duration` seconds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Flight {
    pub x0: f64,
    pub y0: f64,
    pub vx: f64,
    pub vy: f64,
    pub gravity: f64,
    pub duration: f64,
}

impl Flight {
    pub fn y(&self, t: f64) -> f64 {
        self.y0 + self.vy * t - 0.5 * self.gravity * t * t
    }

    /// When the flight stops rising.
    pub fn apex_time(&self) -> f64 {
        (self.vy / self.gravity).max(0.0)
    }

    /// The lowest and highest the feet are during `[ta, tb]`.
    fn heights(&self, ta: f64, tb: f64) -> (f64, f64) {
        let (ya, yb) = (self.y(ta), self.y(tb));
        let (mut lo, mut hi) = (ya.min(yb), ya.max(yb));
        let apex = self.apex_time();
        if apex > ta && apex < tb {
            let top = self.y(apex);
            lo = lo.min(top);
            hi = hi.max(top);
        }
        (lo, hi)
    }

    /// The flight keeps a `w` x `h` body out of every solid tile, and nothing holds it up
    /// before it ends: it would not land early on a platform, a ladder's top or a ledge it
    /// passes over on the way down. `pass_level`: a level the feet pass through without
    /// landing (a drop through the platform it starts on). Columns are checked from the
    /// landing back, where most flights that fail, fail.
    pub fn clearance(
        &self,
        columns: &Columns,
        w: i64,
        h: i64,
        pass_level: Option<i64>,
    ) -> Clearance {
        let x1 = self.x0 + self.vx * self.duration;
        let (first, last) = if self.vx.abs() < EPS {
            let x = floor(self.x0 + 0.5);
            (x, x + w - 1)
        } else {
            let (l, r) = (self.x0.min(x1), self.x0.max(x1));
            // Columns the open body overlaps at some time: c + 1 > left, c - w < right.
            (floor(l - EPS), ceil(r + w as f64 + EPS) - 1)
        };
        let apex = self.apex_time();
        for i in 0..=(last - first) {
            let c = if self.vx < 0.0 { first + i } else { last - i };
            let Some((ta, tb)) = self.window(c, w) else {
                continue;
            };
            let (lo, hi) = self.heights(ta, tb);
            if columns.any_solid(c, floor(lo + EPS), ceil(hi + h as f64 - EPS) - 1) {
                return Clearance::Blocked;
            }
            let down_from = ta.max(apex);
            if down_from >= tb {
                continue;
            }
            let (top, bottom) = (self.y(down_from), self.y(tb));
            let levels = (floor(bottom + EPS) + 1, floor(top + EPS));
            let passes = pass_level.filter(|k| (levels.0..=levels.1).contains(k));
            // All the way down over this column, through more levels than it has between two
            // that hold a body up: a lower landing (a longer flight at this column's share of
            // it) comes down through more.
            if ta >= apex && passes.is_none() && top - bottom > columns.most_air(c) + EPS {
                return Clearance::BlockedLower;
            }
            let held = match passes {
                Some(k) => {
                    columns.any_support(c, levels.0, k - 1)
                        || columns.any_support(c, k + 1, levels.1)
                }
                None => columns.any_support(c, levels.0, levels.1),
            };
            if held {
                return Clearance::Blocked;
            }
        }
        Clearance::Clear
    }

    /// [`clearance`](Self::clearance) is [`Clearance::Clear`].
    #[cfg(test)]
    fn is_clear(&self, columns: &Columns, w: i64, h: i64, pass_level: Option<i64>) -> bool {
        self.clearance(columns, w, h, pass_level) == Clearance::Clear
    }

    /// The times in `[0, duration]` when a `w`-wide body overlaps column `c`, if any.
    fn window(&self, c: i64, w: i64) -> Option<(f64, f64)> {
        if self.vx.abs() < EPS {
            let x = floor(self.x0 + 0.5);
            return (c >= x && c < x + w).then_some((0.0, self.duration));
        }
        let a = (c as f64 - w as f64 - self.x0) / self.vx;
        let b = (c as f64 + 1.0 - self.x0) / self.vx;
        let (ta, tb) = (a.min(b).max(0.0), a.max(b).min(self.duration));
        ((tb - ta) * self.vx.abs() > EPS).then_some((ta, tb))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flight(x0: f64, y0: f64, vx: f64, jump: f64, duration: f64) -> Flight {
        let gravity = 40.0;
        Flight { x0, y0, vx, vy: (2.0 * gravity * jump).sqrt(), gravity, duration }
    }

    #[test]
    fn a_body_may_touch_a_ceiling_and_a_corner_but_not_enter_them() {
        // Rows from the top: a ceiling over columns 0-2 at row 3; a block at (3, 1).
        let map = SideViewMap::from_rows(&["###.", "....", "...#", "...."]).unwrap();
        let columns = Columns::new(&map);
        let up = |jump: f64| flight(1.0, 0.0, 0.0, jump, (2.0 * jump / 40.0).sqrt());
        // Straight up to touch the ceiling (feet at 2, head at 3) and straight up past it.
        assert!(up(2.0).is_clear(&columns, 1, 1, None));
        assert!(!up(2.1).is_clear(&columns, 1, 1, None));
        // Sideways at feet height 2, just over the block's top: touching it is fine.
        let over = Flight { x0: 2.0, y0: 2.0, vx: 1.0, vy: 0.0, gravity: 1e-9, duration: 1.0 };
        assert!(over.is_clear(&columns, 1, 1, None));
        let into = Flight { y0: 1.9, ..over };
        assert!(!into.is_clear(&columns, 1, 1, None));
    }

    #[test]
    fn a_flight_down_past_a_platform_it_is_over_lands_on_it() {
        let map = SideViewMap::from_rows(&["....", ".-..", "....", "...."]).unwrap();
        let columns = Columns::new(&map);
        // From (1, 3), on the platform, straight down to the bottom: only a drop (which passes
        // level 3) goes through it.
        let down = Flight {
            x0: 1.0,
            y0: 3.0,
            vx: 0.0,
            vy: 0.0,
            gravity: 40.0,
            duration: (6.0f64 / 40.0).sqrt(),
        };
        assert!(!down.is_clear(&columns, 1, 1, None));
        assert!(down.is_clear(&columns, 1, 1, Some(3)));
        // Beside the platform the same flight is clear, for a 2-wide body too; a 2-wide body
        // half over it lands on it.
        let beside = Flight { x0: 2.0, ..down };
        assert!(beside.is_clear(&columns, 1, 1, None));
        assert!(beside.is_clear(&columns, 2, 1, None));
        assert!(!Flight { x0: 0.0, ..down }.is_clear(&columns, 2, 1, None));
    }
}
