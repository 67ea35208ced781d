//! Jump point search (Harabor and Grastien 2011) on 8-way grids without corner cutting,
//! scanning 64 cells a step with the bits of [`bits::JumpBits`]; on grids with terrain costs,
//! runs stop on the cells at the edge of a cost change and those are expanded in every
//! direction (see [`bits`]), the idea of jump point search for weighted grids (Carlson,
//! Harabor et al. 2023) in its simplest form. Walls between cells and one-way edges: a corner
//! a barred edge touches is read as a wall cell is by the pruning rules (no diagonal passes
//! it, so the cell beyond is a forced neighbour), and a straight run stops before a barred
//! step (see [`bits`]); a run's first step is checked against the edges.

pub(crate) mod bits;

use std::f64::consts::SQRT_2;

use super::avoided::Avoided;
use super::expansion::Expansion;
use crate::grid::{CornerRule, DIRECTIONS, GridPos, NavGrid, Neighborhood, direction_of};
use bits::{BLOCK, JumpBits, MIXED, OPEN};

/// True when jump point search finds optimal paths on this grid: 8-way, without corner
/// cutting. Terrain costs are fine (runs stop where the cost changes), and so are walls between
/// cells and one-way edges (runs stop next to them).
pub fn jps_applies(grid: &NavGrid) -> bool {
    grid.neighborhood() == Neighborhood::Eight && grid.corner_rule() == CornerRule::NoCornerCutting
}

/// On a grid of several costs, jump point search expands every cell on the edge of a cost
/// change in all directions, and does more work than plain A* per such cell: `Auto` takes it
/// while at most a quarter of the open cells are such edges (painted areas, roads, rivers), not
/// on ground where the cost changes from cell to cell.
pub(crate) fn jumps_pay(grid: &NavGrid) -> bool {
    grid.has_uniform_cost()
        || grid
            .prepared_index(JumpBits::build)
            .is_some_and(|bits| bits.mixed_cells() * 4 <= grid.passable_count())
}

/// Jump point search (Harabor and Grastien 2011) under the no-corner-cutting rule: from each
/// cell, run straight or diagonally, skipping cells that an optimal path would only pass
/// through, and stop at the goal or at a cell where a wall forces a turn. Valid only where
/// [`jps_applies`].
///
/// Every successor hangs from its cell by a run over ground of one cost (see [`bits`]), so it
/// costs the run's length times its own cost.
pub(super) struct JumpPoints<'a, const AVOID: bool> {
    /// The grid's jump point bits.
    bits: &'a JumpBits,
    stride: isize,
    /// The goal's padded coordinates.
    goal: (isize, isize),
    /// The smallest passable cost: the heuristic's scale.
    cost: f64,
    /// Every passable cell costs `cost`.
    uniform: bool,
    /// The grid's padded costs.
    costs: &'a [u32],
    /// The grid's per-cell run bits.
    runs: &'a [u8],
    /// The grid's barred exits per padded cell (bit `d` for `DIRECTIONS[d]`); empty when no
    /// edge is barred.
    exits: &'a [u8],
    /// This query's avoided cells, walls the grid's bits do not know: runs stop near them.
    avoided_cells: Option<&'a Avoided>,
}

/// The padded coordinates given as the goal's when there is none: so far off the grid that no
/// run reaches its row or column (differences with it stay far from overflow).
const NO_GOAL: isize = isize::MIN / 4;

/// 64 bits of a bit line from position `start` on: bit k is position `start + k`. Positions
/// outside the line read as 0 (blocked).
#[inline]
fn bits_from(line: &[u64], start: isize) -> u64 {
    if start < 0 {
        return if start <= -64 { 0 } else { bits_from(line, 0) << (-start) as u32 };
    }
    let (word, bit) = (start as usize / 64, (start % 64) as u32);
    let low = line.get(word).copied().unwrap_or(0);
    if bit == 0 {
        return low;
    }
    let high = line.get(word + 1).copied().unwrap_or(0);
    (low >> bit) | (high << (64 - bit))
}

/// 64 bits of a bit line going backwards from `end`: bit k is position `end - k`.
#[inline]
fn bits_back(line: &[u64], end: isize) -> u64 {
    bits_from(line, end - 63).reverse_bits()
}

/// Scans a line of cells (a row, or a column of the transposed bits) from position `from` in
/// direction `dir` (+1 or -1), 64 cells a step, for the first jump point: the goal, a cell
/// whose turn bit for this direction is set (an open side cell whose neighbor behind is a wall:
/// a turn an optimal path may take there), or a cell of `stops` (this query's cells to look at,
/// in the same layout). `None` when a wall comes first.
#[inline(always)]
fn scan_line(
    (line, turns): (&[u64], &[u64]),
    stops: Option<&[u64]>,
    from: isize,
    dir: isize,
    goal: Option<isize>,
) -> Option<isize> {
    let mut p = from + dir;
    loop {
        let read = |bits: &[u64]| if dir > 0 { bits_from(bits, p) } else { bits_back(bits, p) };
        let (open, turn) = (read(line), read(turns));
        let wall = !open;
        let mut hits = wall | turn | stops.map_or(0, read);
        if let Some(g) = goal {
            let k = (g - p) * dir;
            if (0..64).contains(&k) {
                hits |= 1 << k;
            }
        }
        if hits != 0 {
            let k = hits.trailing_zeros();
            return if wall >> k & 1 == 1 { None } else { Some(p + k as isize * dir) };
        }
        p += 64 * dir;
    }
}

impl<'a, const AVOID: bool> JumpPoints<'a, AVOID> {
    /// The expansion on `grid` (with its `bits`) towards `goal`, with this query's `avoided`
    /// cells and stops. Without a goal (one on another grid, or several, each marked as a stop
    /// in `avoided`), no cell is the goal.
    pub(crate) fn new(
        grid: &'a NavGrid,
        bits: &'a JumpBits,
        goal: Option<GridPos>,
        avoided: Option<&'a Avoided>,
    ) -> Self {
        Self {
            bits,
            stride: grid.stride() as isize,
            goal: goal.map_or((NO_GOAL, NO_GOAL), |g| (g.x as isize + 1, g.y as isize + 1)),
            cost: f64::from(grid.min_cost().unwrap_or(1)),
            uniform: grid.has_uniform_cost(),
            costs: grid.padded_costs(),
            runs: bits.runs(),
            exits: grid.padded_exits(),
            avoided_cells: avoided,
        }
    }

    /// This query's avoided cells; with `AVOID` false (none), every check on them folds away.
    #[inline]
    fn avoided(&self) -> Option<&'a Avoided> {
        if AVOID { self.avoided_cells } else { None }
    }

    /// Padded cell `i` is within a step of an avoided cell, where the grid's bits may be wrong
    /// for this query: runs stop there and it is expanded in every direction.
    #[inline]
    fn near_avoided(&self, i: isize) -> bool {
        self.avoided().is_some_and(|a| a.is_near(i as usize))
    }

    /// Padded cell `i` is open for this query: passable and not avoided.
    #[inline]
    fn open_here(&self, i: isize) -> bool {
        self.open(i) && self.avoided().is_none_or(|a| !a.is_wall(i as usize))
    }

    /// A diagonal step from padded index `i` that checks the avoided cells too.
    #[inline]
    fn diagonal_step_open_here(&self, i: isize, dx: isize, vertical: isize) -> bool {
        self.open_here(i + dx)
            && self.open_here(i + vertical)
            && self.open_here(i + dx + vertical)
            && !self.barred(i, dx, vertical.signum())
    }

    /// An edge bars the step from padded cell `i` by (`dx`, `dy`) (one step of the eight).
    #[inline]
    fn barred(&self, i: isize, dx: isize, dy: isize) -> bool {
        let d = direction_of(dx, dy);
        self.exits.get(i as usize).is_some_and(|&e| e & (1 << d) != 0)
    }

    /// No cell of the octile-shaped path from padded (`x`, `y`) along `legs` (each `n` steps of
    /// (`dx`, `dy`)) lies near an avoided cell (so the grid's own check of it holds).
    fn far_from_avoided(&self, (x, y): (isize, isize), legs: [(isize, isize, isize); 2]) -> bool {
        let mut i = y * self.stride + x;
        if self.near_avoided(i) {
            return false;
        }
        for (dx, dy, n) in legs {
            for _ in 0..n {
                i += dx + dy * self.stride;
                if self.near_avoided(i) {
                    return false;
                }
            }
        }
        true
    }

    #[inline]
    fn open(&self, i: isize) -> bool {
        self.runs[i as usize] & OPEN != 0
    }

    /// The cost of entering padded cell `i`.
    #[inline]
    fn cost_of(&self, i: isize) -> f64 {
        f64::from(self.costs[i as usize])
    }

    /// Every cell after padded (`x`, `y`) on the path along `legs` costs the least a cell
    /// costs (always so on a grid of one cost): the path then costs its octile length times
    /// that, the heuristic's exact value.
    fn cheapest_ground(&self, (x, y): (isize, isize), legs: [(isize, isize, isize); 2]) -> bool {
        if self.uniform {
            return true;
        }
        let least = self.cost as u32;
        let mut i = y * self.stride + x;
        for (dx, dy, n) in legs {
            for _ in 0..n {
                i += dx + dy * self.stride;
                if self.costs[i as usize] != least {
                    return false;
                }
            }
        }
        true
    }

    /// A diagonal step from padded index `i` by `dx` across and `vertical` (`dy` x stride) is
    /// legal: onto an open cell, and (no corner cutting) between two open side cells.
    #[inline]
    fn diagonal_step_open(&self, i: isize, dx: isize, vertical: isize) -> bool {
        let runs = self.runs;
        let (a, b, c) = ((i + dx) as usize, (i + vertical) as usize, (i + dx + vertical) as usize);
        runs[a] & runs[b] & runs[c] & OPEN != 0
    }

    /// The 2 x 2 block of padded cell `i` and its neighbour by (`dx`, `dy`) (a diagonal) is open
    /// and no barred edge touches its middle corner: a diagonal step across it is legal.
    #[inline]
    fn block_open(&self, i: isize, dx: isize, dy: isize) -> bool {
        let corner = (if dx < 0 { -1 } else { 0 }) + (if dy < 0 { -self.stride } else { 0 });
        self.runs[(i + corner) as usize] & BLOCK != 0
    }

    /// `n` straight steps from padded (`x`, `y`) in direction (dx, dy) are all on open cells,
    /// and no edge bars one.
    #[inline]
    fn straight_clear(&self, x: isize, y: isize, dx: isize, dy: isize, n: isize) -> bool {
        let open = if dy == 0 {
            run_open(self.bits.open_row(y as usize), x, dx, n)
        } else {
            run_open(self.bits.open_col(x as usize), y, dy, n)
        };
        let step = dx + dy * self.stride;
        let from = y * self.stride + x;
        open && (self.exits.is_empty() || (0..n).all(|k| !self.barred(from + k * step, dx, dy)))
    }

    /// `n` diagonal steps from padded (`x`, `y`) in direction (dx, dy) are all legal.
    #[inline]
    fn diagonal_clear(&self, x: isize, y: isize, dx: isize, dy: isize, n: isize) -> bool {
        let step = dx + dy * self.stride;
        // Each step crosses the 2 x 2 block whose top-left cell is `i + corner` (see `BLOCK`).
        let corner = (if dx < 0 { -1 } else { 0 }) + (if dy < 0 { -self.stride } else { 0 });
        let mut i = y * self.stride + x;
        for _ in 0..n {
            if self.runs[(i + corner) as usize] & BLOCK == 0 {
                return false;
            }
            i += step;
        }
        true
    }

    /// Runs straight from padded (`x`, `y`) in direction (dx, dy) (one of them 0): the first
    /// jump point, as (index, steps), or `None` at a wall.
    #[inline]
    fn jump_straight(&self, x: isize, y: isize, dx: isize, dy: isize) -> Option<(isize, isize)> {
        let bits = self.bits;
        let (gx, gy) = self.goal;
        // Most runs find nothing: the run bits say so in one load, unless the goal lies ahead.
        let k = if dy == 0 { usize::from(dx < 0) } else { 2 + usize::from(dy < 0) };
        // The first step crosses an edge only from a cell next to one (a jump point): checked
        // here; every later step is between cells with no barred edge about them.
        let here = (y * self.stride + x) as usize;
        if self.exits.get(here).is_some_and(|&e| e & (1 << k) != 0) {
            return None;
        }
        let goal_ahead =
            if dy == 0 { gy == y && (gx - x) * dx > 0 } else { gx == x && (gy - y) * dy > 0 };
        // Where the run must stop for a look besides the grid's jump points: the goal, or a
        // cell near an avoided one (past it the grid's bits may be wrong this query) or a stop
        // of this query, when its line holds one.
        let (xu, yu) = (x as usize, y as usize);
        let stops = self
            .avoided()
            .and_then(|a| if dy == 0 { a.near_line(true, yu) } else { a.near_line(false, xu) });
        if self.runs[(y * self.stride + x) as usize] & (1 << k) == 0
            && !goal_ahead
            && stops.is_none()
        {
            return None;
        }
        // A row of the bits, or a column of the transposed bits: the same scan either way.
        let (lines, from, dir, goal) = if dy == 0 {
            ((bits.open_row(yu), bits.turn_row(yu, dx > 0)), x, dx, goal_ahead.then_some(gx))
        } else {
            ((bits.open_col(xu), bits.turn_col(xu, dy > 0)), y, dy, goal_ahead.then_some(gy))
        };
        let found = scan_line(lines, stops, from, dir, goal)?;
        let index = if dy == 0 { y * self.stride + found } else { found * self.stride + x };
        if self.avoided().is_some_and(|a| a.is_wall(index as usize)) {
            return None; // an avoided cell right ahead: a wall for this query
        }
        Some((index, (found - from).abs()))
    }

    /// The directions (bit `d` for [`DIRECTIONS`]`[d]`) in which no cheapest path goes on
    /// from padded cell `i`, entered by a step `arrival` from the cell before it, `q`: those
    /// whose first cell `n` the path reaches more cheaply straight from `q` (one legal step, or
    /// `n` is `q`). Strictly more cheaply, so that no cheapest path takes `q`, `i`, `n` in a
    /// row however it reached `i`: reaching `n` through `i` costs at least the cheapest way to
    /// `q`, plus the step to `i`, plus the step on, which is more than the step from `q`.
    fn dominated(&self, i: isize, (ax, ay): (isize, isize)) -> u8 {
        let stride = self.stride;
        let length = |dx: isize, dy: isize| if dx != 0 && dy != 0 { SQRT_2 } else { 1.0 };
        let into_here = length(ax, ay) * self.cost_of(i);
        // `q`, relative to `i`.
        let (qx, qy) = (-ax, -ay);
        let mut skip = 0;
        for (d, &(ndx, ndy)) in DIRECTIONS.iter().enumerate() {
            let n = i + ndx + ndy * stride;
            let (sx, sy) = (ndx - qx, ndy - qy);
            if sx.abs() > 1 || sy.abs() > 1 || !self.open(n) {
                continue; // not next to q, or a wall
            }
            let on = into_here + length(ndx, ndy) * self.cost_of(n);
            let direct = if (sx, sy) == (0, 0) {
                0.0
            } else {
                let q = i + qx + qy * stride;
                // No corner cutting: a diagonal step from q only between two open side cells;
                // and no step across a barred edge.
                if (sx != 0 && sy != 0 && !self.diagonal_step_open(q, sx, sy * stride))
                    || self.barred(q, sx, sy)
                {
                    continue;
                }
                length(sx, sy) * self.cost_of(n)
            };
            if direct < on - 1e-9 * on {
                skip |= 1 << d;
            }
        }
        skip
    }

    /// Runs diagonally from padded (`x`, `y`) in direction (dx, dy) until a wall (or the goal),
    /// and visits, as successors of the cell it started from, what an expansion of each
    /// diagonal jump point on the way would find: the jump points of its straight runs (dx, 0)
    /// and (0, dy), at the cost of the diagonal run there plus the straight run. The diagonal
    /// jump points themselves never go on the open list (Harabor and Grastien 2014); the path
    /// from the start cell to such a successor is diagonal first, then straight.
    ///
    /// A cell stops the run for a look when the grid's run bits say one of its straight runs
    /// finds a jump point, or when it lies on the goal's row or column with the goal ahead.
    #[inline]
    fn diagonal_run(
        &self,
        x: isize,
        y: isize,
        dx: isize,
        dy: isize,
        visit: &mut impl FnMut(usize, isize, isize, f64),
    ) {
        let step = dx + dy * self.stride;
        // The step from `i` crosses the 2 x 2 block whose top-left cell is `i + corner`.
        let corner = (if dx < 0 { -1 } else { 0 }) + (if dy < 0 { -self.stride } else { 0 });
        let mut i = y * self.stride + x;
        let ahead: u8 = (if dx > 0 { 1 } else { 2 }) | (if dy > 0 { 4 } else { 8 });
        // The run reaches the goal's column after `to_col` steps and its row after `to_row`
        // (when positive). The first of the two, with both ahead, is a cell to stop at: the
        // goal when they are equal, else a cell with the goal straight ahead of it.
        let (gx, gy) = self.goal;
        let (to_col, to_row) = ((gx - x) * dx, (gy - y) * dy);
        let mark = if to_col > 0 && to_row > 0 { to_col.min(to_row) } else { 0 };
        // This query's avoided cells lie on the row or column of the run's `n`th cell (their
        // turns are not in the grid's bits: the run looks along them).
        let crosses_avoided = |n: isize| {
            self.avoided().is_some_and(|a| {
                a.row_marked((y + dy * n) as usize) || a.col_marked((x + dx * n) as usize)
            })
        };
        let mut n = 0;
        loop {
            let legal = if self.near_avoided(i) {
                self.diagonal_step_open_here(i, dx, dy * self.stride)
            } else {
                self.runs[(i + corner) as usize] & BLOCK != 0
            };
            if !legal {
                return;
            }
            i += step;
            n += 1;
            let run = self.runs[i as usize];
            if run & (ahead | MIXED) == 0
                && n != mark
                && !self.near_avoided(i)
                && !crosses_avoided(n)
            {
                continue; // the common case: nothing to look at here
            }
            let (x, y) = (x + dx * n, y + dy * n);
            if (n == mark && to_col == to_row) || self.near_avoided(i) || run & MIXED != 0 {
                // The goal, a cell whose surroundings this query changed, or one on the edge
                // of a cost change: a jump point.
                visit(i as usize, x, y, n as f64 * SQRT_2 * self.cost_of(i));
                return;
            }
            if run & ahead != 0 || n == mark || crosses_avoided(n) {
                // The run crosses ground of one cost (it stops on the edge of a change).
                let unit = self.cost_of(i);
                let diagonal = n as f64 * SQRT_2 * unit;
                for (sdx, sdy) in [(dx, 0), (0, dy)] {
                    if let Some((j, m)) = self.jump_straight(x, y, sdx, sdy) {
                        let straight = m as f64 * unit;
                        visit(j as usize, x + sdx * m, y + sdy * m, diagonal + straight);
                    }
                }
            }
        }
    }
}

/// True when the `n` cells after position `from` of a bit line, going in direction `dir`, are
/// all open.
#[inline]
fn run_open(line: &[u64], from: isize, dir: isize, n: isize) -> bool {
    let mut done = 0;
    while done < n {
        let p = from + dir * (done + 1);
        let bits = if dir > 0 { bits_from(line, p) } else { bits_back(line, p) };
        let take = (n - done).min(64);
        let mask = if take == 64 { u64::MAX } else { (1u64 << take) - 1 };
        if bits & mask != mask {
            return false;
        }
        done += take;
    }
    true
}

impl<const AVOID: bool> Expansion for JumpPoints<'_, AVOID> {
    /// The two octile-shaped paths (diagonal run then straight run, or straight then diagonal)
    /// cost exactly the octile distance: if either is clear, nothing is shorter.
    fn direct_to_goal(&self, x: isize, y: isize) -> Option<(Option<usize>, f64, f64)> {
        let (gx, gy) = self.goal;
        let (sx, sy) = ((gx - x).signum(), (gy - y).signum());
        let (adx, ady) = ((gx - x).abs(), (gy - y).abs());
        let diagonal = adx.min(ady);
        let straight = adx.max(ady) - diagonal;
        let (tx, ty) = if adx > ady { (sx, 0) } else { (0, sy) };
        let diagonal_cost = diagonal as f64 * SQRT_2 * self.cost;
        let straight_cost = straight as f64 * self.cost;
        let total = diagonal_cost + straight_cost;
        let index = |x: isize, y: isize| (y * self.stride + x) as usize;
        let (cx, cy) = (x + sx * diagonal, y + sy * diagonal);
        // Near an avoided cell the grid's own check does not hold: such a path is left to the
        // search.
        let far = |first: (isize, isize, isize), second: (isize, isize, isize)| {
            (self.avoided().is_none() || self.far_from_avoided((x, y), [first, second]))
                && self.cheapest_ground((x, y), [first, second])
        };
        if self.diagonal_clear(x, y, sx, sy, diagonal)
            && self.straight_clear(cx, cy, tx, ty, straight)
            && far((sx, sy, diagonal), (tx, ty, straight))
        {
            let turn = (diagonal > 0 && straight > 0).then(|| index(cx, cy));
            return Some((turn, diagonal_cost, total));
        }
        if diagonal == 0 || straight == 0 {
            return None; // one run, already tried
        }
        let (cx, cy) = (x + tx * straight, y + ty * straight);
        (self.straight_clear(x, y, tx, ty, straight)
            && self.diagonal_clear(cx, cy, sx, sy, diagonal)
            && far((tx, ty, straight), (sx, sy, diagonal)))
        .then(|| (Some(index(cx, cy)), straight_cost, total))
    }

    fn successors(
        &self,
        i: usize,
        x: isize,
        y: isize,
        parent: usize,
        mut visit: impl FnMut(usize, isize, isize, f64),
    ) {
        let stride = self.stride;
        let i = i as isize;
        let (px, py) = ((parent as isize) % stride, (parent as isize) / stride);
        // The direction of the last step in: a successor hangs from its parent by a straight
        // run, a diagonal run, or a diagonal run then a straight one.
        // Near an avoided cell the pruning rules (read off the grid's walls) may not hold: expand
        // it in every direction, as the start is.
        // So is a cell on the edge of a cost change, where they do not hold either.
        let near_avoided = self.near_avoided(i);
        let mixed = self.runs[i as usize] & MIXED != 0;
        let arrival = octile_step(x - px, y - py);
        let (dx, dy) = if near_avoided || mixed { (0, 0) } else { arrival };
        // On the edge of a cost change, every direction but those a path through this cell
        // never takes (see `dominated`).
        let skip = if mixed && !near_avoided && arrival != (0, 0) {
            self.dominated(i, arrival)
        } else {
            0
        };
        let mut straight = |sdx: isize, sdy: isize| {
            if let Some((j, n)) = self.jump_straight(x, y, sdx, sdy) {
                let unit = if self.uniform { self.cost } else { self.cost_of(j) };
                visit(j as usize, x + sdx * n, y + sdy * n, n as f64 * unit);
            }
        };
        // Directions worth exploring from here (the pruned neighbor set): straight ones now,
        // diagonal ones after.
        let mut diagonals = [(0isize, 0isize); 4];
        let mut count = 0;
        if dx == 0 && dy == 0 {
            for (d, &(sdx, sdy)) in DIRECTIONS.iter().enumerate() {
                if skip & (1 << d) != 0 {
                    continue;
                }
                if d < 4 {
                    straight(sdx, sdy);
                } else {
                    diagonals[count] = (sdx, sdy);
                    count += 1;
                }
            }
        } else if dx != 0 && dy != 0 {
            straight(dx, 0);
            straight(0, dy);
            diagonals[0] = (dx, dy);
            count = 1;
        } else if dx != 0 {
            let ahead = self.open(i + dx);
            for side in [1, -1] {
                // A side cell is worth turning to only when the parent cannot step to it
                // diagonally (the one behind it is a wall, or an edge touches the corner):
                // otherwise the parent reaches it as cheaply without this cell.
                if self.open(i + side * stride) && !self.block_open(i, -dx, side) {
                    straight(0, side);
                    if ahead {
                        diagonals[count] = (dx, side);
                        count += 1;
                    }
                }
            }
            if ahead {
                straight(dx, 0);
            }
        } else {
            let ahead = self.open(i + dy * stride);
            for side in [1, -1] {
                if self.open(i + side) && !self.block_open(i, side, -dy) {
                    straight(side, 0);
                    if ahead {
                        diagonals[count] = (side, dy);
                        count += 1;
                    }
                }
            }
            if ahead {
                straight(0, dy);
            }
        }
        for &(ddx, ddy) in &diagonals[..count] {
            self.diagonal_run(x, y, ddx, ddy, &mut visit);
        }
    }
}

/// The first step of an octile-shaped run covering (`sx`, `sy`) that goes straight first and
/// diagonal last: along the longer axis when one is longer, else diagonal. From a jump point
/// back to its parent this is the reverse of the last step in.
#[inline]
fn octile_step(sx: isize, sy: isize) -> (isize, isize) {
    let (ax, ay) = (sx.abs(), sy.abs());
    (if ax >= ay { sx.signum() } else { 0 }, if ay >= ax { sy.signum() } else { 0 })
}
