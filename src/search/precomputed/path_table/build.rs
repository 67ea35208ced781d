//! Building a [`PathTable`]: the grid's layout (open cells, subgoals, how far runs go), each
//! cell's lists of subgoals, the distances between all subgoals, the lists thinned; the work
//! counted for builds spread over frames.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::super::slices::{Work, fingerprint, spend};
use super::{ClearRuns, PathTable, PathTableError, Run, StepRules, Steps, add_steps, octile_steps};
use super::{MAX_LIST_ENTRIES_PER_CELL, MAX_SUBGOALS, SPAN, UNREACHED};
use crate::grid::{CornerRule, DIRECTIONS, GridPos, NavGrid, Neighborhood, direction_of, reverse};
use crate::search::bit_set::BitSet;
use thin::{Way, thin_lists};

/// The cells of a `width` x `height` grid in the order that visits, for direction (`dx`, `dy`),
/// the next cell along it first, in spans of at most [`SPAN`] cells of a row (the work of a
/// build is counted a span at a time). `(0, 0)`: row after row, each from left to right.
fn sweep(
    width: i32,
    height: i32,
    (dx, dy): (i32, i32),
) -> impl Iterator<Item = impl ExactSizeIterator<Item = (i32, i32)>> {
    (0..height).flat_map(move |row| {
        let y = if dy > 0 { height - 1 - row } else { row };
        (0..width).step_by(SPAN).map(move |from| {
            let cols = from..(from + SPAN as i32).min(width);
            cols.map(move |col| (if dx > 0 { width - 1 - col } else { col }, y))
        })
    })
}

/// Per cell of `grid`, row by row, its barred exits (bit `d` for the grid's direction `d`, the
/// eight of a square grid): the steps out of it that a wall between cells bars, diagonals past
/// a corner such a wall touches included. Empty when the grid has no such walls.
pub(super) fn cell_exits(grid: &NavGrid) -> Vec<u8> {
    if !grid.has_edges() {
        return Vec::new();
    }
    let exits = grid.padded_exits();
    grid.positions().map(|p| exits[grid.index(p)]).collect()
}

/// [`cell_exits`] of the grid with every edge turned round: a straight step is barred where
/// the step back across the same edge is barred on `grid` (diagonals are barred both ways or
/// neither, so they stay). A diagonal-first run is open on it exactly when the same cells
/// walked the other way are open on `grid`: what a cell's list of the subgoals that reach it
/// is worked out over.
fn reversed_exits(grid: &NavGrid) -> Vec<u8> {
    let exits = grid.padded_exits();
    if exits.is_empty() {
        return Vec::new();
    }
    let (width, height) = (grid.width() as i64, grid.height() as i64);
    let mut reversed = cell_exits(grid);
    for (at, p) in reversed.iter_mut().zip(grid.positions()) {
        for (d, &(dx, dy)) in DIRECTIONS[..4].iter().enumerate() {
            let (x, y) = (i64::from(p.x) + dx as i64, i64::from(p.y) + dy as i64);
            if x < 0 || y < 0 || x >= width || y >= height {
                continue; // off the grid: no step either way
            }
            let there = exits[grid.index(GridPos::new(x as u32, y as u32))];
            let back = reverse(Neighborhood::Eight, d);
            *at = *at & !(1 << d) | ((there >> back & 1) << d);
        }
    }
    reversed
}

/// The step from `p` by `d` (one of the eight) is barred in `exits` ([`cell_exits`] of a grid
/// `width` cells wide; empty: nothing is).
#[inline]
pub(super) fn barred(exits: &[u8], width: i32, p: (i32, i32), (dx, dy): (i32, i32)) -> bool {
    !exits.is_empty()
        && exits[(p.1 * width + p.0) as usize] & 1 << direction_of(dx as isize, dy as isize) != 0
}

/// The grid's open cells and subgoals, and how far runs go: what building needs.
struct Layout {
    width: i32,
    height: i32,
    open: Vec<bool>,
    /// Per cell, its barred exits ([`cell_exits`]); empty on a grid without walls between cells.
    exits: Vec<u8>,
    /// Per cell, its subgoal id, or `u16::MAX`.
    subgoal: Vec<u16>,
    /// Per straight direction (`STRAIGHT`), how many steps a run takes from each cell before
    /// the next cell is a wall or a subgoal.
    straight: [Vec<u16>; 4],
    /// The same for each diagonal direction (`DIAGONAL`): legal steps onto cells that are not
    /// subgoals.
    diagonal: [Vec<u16>; 4],
}

const STRAIGHT: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const DIAGONAL: [(i32, i32); 4] = [(1, 1), (-1, 1), (1, -1), (-1, -1)];

impl StepRules for Layout {
    #[inline]
    fn passable(&self, p: (i32, i32)) -> bool {
        self.open(p)
    }

    #[inline]
    fn barred(&self, p: (i32, i32), d: (i32, i32)) -> bool {
        barred(&self.exits, self.width, p, d)
    }
}

impl Layout {
    #[inline]
    fn index(&self, (x, y): (i32, i32)) -> usize {
        (y * self.width + x) as usize
    }

    #[inline]
    fn open(&self, (x, y): (i32, i32)) -> bool {
        x >= 0 && y >= 0 && x < self.width && y < self.height && self.open[self.index((x, y))]
    }

    /// The straight step from the open cell `p` by `d`, or the step back, is legal: the edge
    /// between them is not barred both ways.
    #[inline]
    fn crossable(&self, p: (i32, i32), d: (i32, i32)) -> bool {
        let next = (p.0 + d.0, p.1 + d.1);
        self.straight_ok(p, d) || (self.open(next) && self.straight_ok(next, (-d.0, -d.1)))
    }

    /// The subgoal at a cell, if any (cells outside the grid have none).
    #[inline]
    fn subgoal_at(&self, p: (i32, i32)) -> Option<u16> {
        if !self.open(p) {
            return None;
        }
        let id = self.subgoal[self.index(p)];
        (id != u16::MAX).then_some(id)
    }

    /// The subgoal a straight run from `p` in direction `STRAIGHT[k]` meets first, if any.
    #[inline]
    fn straight_hit(&self, p: (i32, i32), k: usize) -> Option<u16> {
        let n = i32::from(self.straight[k][self.index(p)]);
        let (dx, dy) = STRAIGHT[k];
        let last = (p.0 + dx * n, p.1 + dy * n);
        // The run ends before a wall cell, a wall between cells, or a subgoal.
        let on = self.straight_ok(last, (dx, dy));
        on.then(|| self.subgoal_at((last.0 + dx, last.1 + dy))).flatten()
    }

    /// The subgoal a diagonal run from `p` in direction `DIAGONAL[k]` meets first, if any.
    #[inline]
    fn diagonal_hit(&self, p: (i32, i32), k: usize) -> Option<u16> {
        let n = i32::from(self.diagonal[k][self.index(p)]);
        let d = DIAGONAL[k];
        let t = (p.0 + d.0 * n, p.1 + d.1 * n);
        if self.diagonal_ok(t, d) { self.subgoal_at((t.0 + d.0, t.1 + d.1)) } else { None }
    }

    /// The layout of `grid` (`reversed`: of `grid` with every edge turned round, see
    /// [`reversed_exits`]; the same subgoals): a unit of work per cell for each of its ten
    /// passes (counted a row at a time).
    async fn new(grid: &NavGrid, reversed: bool, work: &mut Work) -> Result<Self, PathTableError> {
        let (width, height) = (grid.width() as i32, grid.height() as i32);
        let cells = (width * height) as usize;
        let mut open = Vec::with_capacity(cells);
        for span in sweep(width, height, (0, 0)) {
            spend!(work, span.len() as u64);
            open.extend(span.map(|(x, y)| grid.is_passable(GridPos::new(x as u32, y as u32))));
        }
        let mut layout = Layout {
            width,
            height,
            open,
            exits: if reversed { reversed_exits(grid) } else { cell_exits(grid) },
            subgoal: vec![u16::MAX; cells],
            straight: Default::default(),
            diagonal: Default::default(),
        };
        // A subgoal: an open cell by a wall's corner, with both cells between them open; or by
        // the end of a wall between cells: both straight steps open at least one way, the
        // diagonal between them not (the same test where there are no such walls). One way is
        // enough: a path that comes in along one side and leaves along the other turns there
        // whichever way the edges let it cross. The test reads both ways of each edge, so a
        // layout of the grid with its edges turned round has the same subgoals.
        let mut count = 0usize;
        for span in sweep(layout.width, layout.height, (0, 0)) {
            spend!(work, span.len() as u64);
            for (x, y) in span {
                let corner = layout.open((x, y))
                    && DIAGONAL.iter().any(|&(dx, dy)| {
                        layout.crossable((x, y), (dx, 0))
                            && layout.crossable((x, y), (0, dy))
                            && !layout.diagonal_ok((x, y), (dx, dy))
                    });
                if corner {
                    if count < MAX_SUBGOALS {
                        let i = layout.index((x, y));
                        layout.subgoal[i] = count as u16;
                    }
                    count += 1;
                }
            }
        }
        if count > MAX_SUBGOALS {
            return Err(PathTableError::TooManySubgoals { found: count, limit: MAX_SUBGOALS });
        }
        // Each cell's run in each of the eight directions, counted back from where it ends.
        for (k, &(dx, dy)) in STRAIGHT.iter().chain(&DIAGONAL).enumerate() {
            let diagonal = k >= STRAIGHT.len();
            let mut run = vec![0u16; cells];
            for span in sweep(layout.width, layout.height, (dx, dy)) {
                spend!(work, span.len() as u64);
                for (x, y) in span {
                    let next = (x + dx, y + dy);
                    let legal = if diagonal {
                        layout.diagonal_ok((x, y), (dx, dy))
                    } else {
                        layout.straight_ok((x, y), (dx, dy))
                    };
                    if layout.open((x, y)) && legal && layout.subgoal_at(next).is_none() {
                        run[layout.index((x, y))] = run[layout.index(next)].saturating_add(1);
                    }
                }
            }
            if diagonal {
                layout.diagonal[k - STRAIGHT.len()] = run;
            } else {
                layout.straight[k] = run;
            }
        }
        Ok(layout)
    }
}

/// A distance in fixed point, the part of an open list's entry above the subgoal's id, in
/// integers only: straight steps times 2^30 plus diagonal steps times sqrt(2) * 2^30 (the
/// product taken at 2^40 and rounded down to 2^30). Under 2^18 steps (65535 of each kind) it
/// takes 48 bits and is off by under 2^-24 (the rounding of sqrt(2) times up to 65535
/// diagonal steps), while two distinct distances differ by more than 10^-6: it orders
/// distances as their values do, and equal steps get equal keys.
#[inline]
fn fixed_point(steps: Steps) -> u64 {
    /// sqrt(2) * 2^40, rounded.
    const ROOT_TWO: u64 = 1_554_944_255_988;
    (u64::from(steps & 0xffff) << 30) + ((u64::from(steps >> 16) * ROOT_TWO) >> 10)
}

/// The subgoal graph, each subgoal's edges together: the subgoals its diagonal-first runs
/// reach (its cell's list) and the steps to each, so that the searches below read one slice
/// per subgoal rather than its cell's list and each pair's steps. A unit of work per subgoal
/// and per edge.
async fn subgoal_edges(
    layout: &Layout,
    subgoals: &[(i32, i32)],
    (out_start, out_list): (&[u32], &[u16]),
    work: &mut Work,
) -> (Vec<u32>, Vec<(u16, Steps)>) {
    let mut start = Vec::with_capacity(subgoals.len() + 1);
    let mut edges = Vec::new();
    start.push(0);
    for &u in subgoals {
        let cell = layout.index(u);
        let runs = &out_list[out_start[cell] as usize..out_start[cell + 1] as usize];
        spend!(work, 1 + runs.len() as u64);
        edges.extend(runs.iter().map(|&v| (v, octile_steps(u, subgoals[usize::from(v)]))));
        start.push(edges.len() as u32);
    }
    (start, edges)
}

/// The subgoal graph without the edges two others replace: an edge `u`→`v` goes when some
/// edges `u`→`w` and `w`→`v` make as many straight and diagonal steps together. Every distance
/// stays (each dropped edge is a chain of shorter edges, each kept or itself such a chain), and
/// every edge left is still a diagonal-first run, so a path's predecessors are too; the
/// searches of [`all_pairs`] relax fewer edges. A unit of work per subgoal, per edge and per
/// edge of each subgoal an edge reaches.
async fn drop_detours(
    subgoals: usize,
    (start, edges): (&[u32], &[(u16, Steps)]),
    work: &mut Work,
) -> (Vec<u32>, Vec<(u16, Steps)>) {
    let range = |u: usize| start[u] as usize..start[u + 1] as usize;
    // `at[v]` is the place of the edge `u`→`v` in `edges`, while `of[v]` is `u`.
    let (mut at, mut of) = (vec![0u32; subgoals], vec![u16::MAX; subgoals]);
    let mut keep = vec![true; edges.len()];
    for u in 0..subgoals {
        spend!(work, 1 + range(u).len() as u64);
        for k in range(u) {
            let v = usize::from(edges[k].0);
            (at[v], of[v]) = (k as u32, u as u16);
        }
        for &(w, to_w) in &edges[range(u)] {
            let beyond = &edges[range(usize::from(w))];
            spend!(work, 1 + beyond.len() as u64);
            for &(v, w_to_v) in beyond {
                let v = usize::from(v);
                if usize::from(of[v]) == u && add_steps(to_w, w_to_v) == edges[at[v] as usize].1 {
                    keep[at[v] as usize] = false;
                }
            }
        }
    }
    let mut kept_start = Vec::with_capacity(subgoals + 1);
    let mut kept = Vec::with_capacity(edges.len());
    kept_start.push(0);
    for u in 0..subgoals {
        spend!(work, 1 + range(u).len() as u64 / 8);
        kept.extend(range(u).filter(|&k| keep[k]).map(|k| edges[k]));
        kept_start.push(kept.len() as u32);
    }
    (kept_start, kept)
}

/// The position of cell `(x, y)` along a Hilbert curve through a `side` x `side` square (`side`
/// a power of two): cells near each other on the grid are mostly near each other along it.
fn hilbert_index(side: u32, (mut x, mut y): (u32, u32)) -> u64 {
    let mut index = 0u64;
    let mut half = side / 2;
    while half > 0 {
        let (right, up) = (x & half != 0, y & half != 0);
        index += u64::from(half) * u64::from(half) * ((3 * u64::from(right)) ^ u64::from(up));
        // Turn the quarter the cell is in to the curve's way through it.
        if !up {
            if right {
                x = half - 1 - (x & (half - 1));
                y = half - 1 - (y & (half - 1));
            }
            std::mem::swap(&mut x, &mut y);
        }
        x &= half - 1;
        y &= half - 1;
        half /= 2;
    }
    index
}

/// Numbers the layout's subgoals in the order a Hilbert curve meets them, and returns each
/// one's cell by number. Subgoals near each other get numbers near each other: a query reads
/// the rows of the start's subgoals at the columns of the goal's, which are near each other on
/// the grid, so its lookups fall on fewer cache lines. A unit of work per few cells and per
/// subgoal.
async fn number_along_curve(layout: &mut Layout, work: &mut Work) -> Vec<(i32, i32)> {
    let side = (layout.width.max(layout.height) as u32).next_power_of_two();
    let mut found = Vec::new();
    for span in sweep(layout.width, layout.height, (0, 0)) {
        spend!(work, span.len() as u64 / 16 + 1);
        for p in span.filter(|&p| layout.subgoal_at(p).is_some()) {
            found.push((hilbert_index(side, (p.0 as u32, p.1 as u32)), p));
        }
    }
    spend!(work, found.len() as u64);
    found.sort_unstable();
    for (id, &(_, p)) in found.iter().enumerate() {
        let i = layout.index(p);
        layout.subgoal[i] = id as u16;
    }
    found.into_iter().map(|(_, p)| p).collect()
}

/// Shortest paths between every pair of subgoals: a search from each over the diagonal-first
/// runs between subgoals (a shortest path between two subgoals is a chain of them). Rows of
/// steps, and of the stops before each subgoal ([`skip_stops`]). The open list holds one `u64`
/// per entry, the distance in fixed point ([`fixed_point`]) above the subgoal's id.
/// A unit of work per entry of a row, then per subgoal taken from the open list and per run
/// from it, and per few cells of a run tried for [`skip_stops`].
async fn all_pairs(
    layout: &Layout,
    subgoals: &[(i32, i32)],
    (edge_start, edges): (&[u32], &[(u16, Steps)]),
    work: &mut Work,
) -> (Vec<Steps>, Vec<u16>) {
    let n = subgoals.len();
    // Made row by row (a slice need not fill the whole square at once).
    let mut dist = Vec::with_capacity(n * n);
    let mut pred = Vec::with_capacity(n * n);
    // The current row's distances in fixed point: compared without turning steps into floats.
    let mut key = vec![u64::MAX; n];
    let mut open = BinaryHeap::new();
    let mut runs = ClearRuns::new(n);
    for a in 0..n {
        spend!(work, n as u64 / 64 + 1);
        let row = a * n;
        dist.resize(row + n, UNREACHED);
        pred.resize(row + n, u16::MAX);
        key.fill(u64::MAX);
        dist[row + a] = 0;
        pred[row + a] = a as u16;
        key[a] = 0;
        open.push(Reverse(a as u64));
        while let Some(Reverse(entry)) = open.pop() {
            let u = (entry & 0xffff) as usize;
            if entry >> 16 != key[u] {
                continue; // a stale entry
            }
            let out = &edges[edge_start[u] as usize..edge_start[u + 1] as usize];
            let tried = skip_stops((layout, &mut runs), subgoals, &mut pred[row..row + n], (a, u));
            spend!(work, 1 + out.len() as u64 + tried / 8);
            let rows = (&mut dist[row..row + n], &mut pred[row..row + n]);
            relax(u, out, rows, &mut key, &mut open);
        }
    }
    (dist, pred)
}

/// Subgoal `u` just settled in the search from `a`, whose row of predecessors is `pred`: when
/// the stop before its predecessor `p` (itself settled, so already seen to) reaches `u` by one
/// open diagonal-first run as short as the way through `p`, `p` is skipped and that stop goes
/// before `u`. A path's chain of stops then holds only the subgoals where it must turn (about
/// half of them on the public maps), and a query walks it with half the lookups, each of which
/// waits on the one before. Returns the cells of the run it tried (0 when none).
fn skip_stops(
    (layout, runs): (&Layout, &mut ClearRuns),
    subgoals: &[(i32, i32)],
    pred: &mut [u16],
    (a, u): (usize, usize),
) -> u64 {
    let p = usize::from(pred[u]);
    if u == a || p == a {
        return 0;
    }
    let q = usize::from(pred[p]);
    let (qp, pp, up) = (subgoals[q], subgoals[p], subgoals[u]);
    let whole = octile_steps(qp, up);
    if add_steps(octile_steps(qp, pp), octile_steps(pp, up)) != whole {
        return 0; // a turn at `p`
    }
    // On the run from `q` to `u`, the two hops are its two parts, both open; off it, the run
    // takes other cells, which are tried (once for each pair: the searches from other
    // subgoals try the same pairs again).
    if on_run(pp, (qp, up)) {
        pred[u] = q as u16;
        return 0;
    }
    let (clear, tried) = runs.get_or_try(q, u, || {
        (layout.run_clear(qp, up), u64::from((whole & 0xffff) + (whole >> 16)))
    });
    if clear {
        pred[u] = q as u16;
    }
    tried
}

/// Cell `p` is on the diagonal-first run from `a` to `b`.
fn on_run(p: (i32, i32), (a, b): ((i32, i32), (i32, i32))) -> bool {
    let run = Run::new(a, b);
    let ((sx, sy), (tx, ty), corner) = (run.diagonal, run.straight, run.corner(a));
    let steps_to = |from: (i32, i32)| (p.0 - from.0).abs().max((p.1 - from.1).abs());
    let k = steps_to(a);
    if k <= run.slant && p == (a.0 + k * sx, a.1 + k * sy) {
        return true;
    }
    let m = steps_to(corner);
    m <= run.rest && p == (corner.0 + m * tx, corner.1 + m * ty)
}

/// Relaxes the edges `out` of subgoal `u`, settled: each subgoal they reach sooner than known
/// gets its steps, predecessor and fixed-point key in the row, and an entry in the open list.
/// (Out of the async search so that its state stays in registers.)
#[inline(never)]
fn relax(
    u: usize,
    out: &[(u16, Steps)],
    (dist, pred): (&mut [Steps], &mut [u16]),
    key: &mut [u64],
    open: &mut BinaryHeap<Reverse<u64>>,
) {
    let du = dist[u];
    for &(v, step) in out {
        let straight = (du & 0xffff) + (step & 0xffff);
        let diagonal = (du >> 16) + (step >> 16);
        if straight > 0xffff || diagonal > 0xffff {
            continue; // over 65535 steps of a kind: no map the table takes
        }
        let dv = straight | (diagonal << 16);
        let kv = fixed_point(dv);
        let v = usize::from(v);
        if kv < key[v] {
            key[v] = kv;
            dist[v] = dv;
            pred[v] = u as u16;
            open.push(Reverse(kv << 16 | v as u64));
        }
    }
}

/// Per-cell lists, concatenated: `starts` has one more entry than there are cells.
type CellLists = (Vec<u32>, Vec<u16>);

/// Per-cell lists in one vector, each cell's at its place: `at[cell]` is its start and length
/// in `list` (empty for a cell not yet given one).
#[derive(Default)]
struct Arena {
    list: Vec<u16>,
    at: Vec<(u32, u32)>,
}

impl Arena {
    /// Cell `i`'s list.
    fn get(&self, i: usize) -> &[u16] {
        let (start, len) = self.at[i];
        &self.list[start as usize..(start + len) as usize]
    }

    /// Gives cell `i` the list `here`.
    fn set(&mut self, i: usize, here: &[u16]) {
        self.at[i] = (self.list.len() as u32, here.len() as u32);
        self.list.extend_from_slice(here);
    }
}

/// Gathers `cells` cells' lists (`total` entries) into [`CellLists`], each cell's parts in
/// `parts` one after the other (its own subgoals, then its runs each way), or
/// [`PathTableError::TooOpen`] past the budget. A unit of work per cell and per few entries.
async fn concatenate(
    cells: usize,
    parts: &[Arena],
    total: usize,
    work: &mut Work,
) -> Result<CellLists, PathTableError> {
    if total > list_budget(cells) {
        return Err(PathTableError::TooOpen);
    }
    let mut starts = Vec::with_capacity(cells + 1);
    let mut list = Vec::with_capacity(total);
    starts.push(0);
    for i in 0..cells {
        let entries: u32 = parts.iter().map(|part| part.at[i].1).sum();
        spend!(work, 1 + u64::from(entries) / 4);
        for part in parts {
            list.extend_from_slice(part.get(i));
        }
        starts.push(list.len() as u32);
    }
    Ok((starts, list))
}

/// The most entries all cells' lists (one way) may hold: [`MAX_LIST_ENTRIES_PER_CELL`] a
/// cell on average, and never more than the `u32` offsets address.
fn list_budget(cells: usize) -> usize {
    cells.saturating_mul(MAX_LIST_ENTRIES_PER_CELL).max(1 << 16).min(u32::MAX as usize)
}

/// Per-cell lists built direction by direction: `own(p, list)` fills each open cell's list
/// with what it finds itself; then for each direction, a cell's runs that way are worked out
/// from those of the cell one step ahead (`along(k, p, next, runs_of_next, here)` fills `here`
/// and returns `false` where no run goes on from `p`), visiting that cell first. The work is
/// the size of the lists, not the length of the runs; [`PathTableError::TooOpen`] past the
/// budget.
///
/// A unit of work per cell of each pass, and per four entries of the lists made (counted a list
/// at a time).
async fn build_lists(
    layout: &Layout,
    own: impl Fn((i32, i32), &mut Vec<u16>),
    directions: &[(i32, i32)],
    along: impl Fn(usize, (i32, i32), (i32, i32), &[u16], &mut Vec<u16>) -> bool,
    work: &mut Work,
) -> Result<CellLists, PathTableError> {
    let cells = layout.open.len();
    // The cell's own, then its runs each way.
    let mut parts: Vec<Arena> =
        std::iter::repeat_with(Arena::default).take(1 + directions.len()).collect();
    let mut here = Vec::new();
    for part in &mut parts {
        while part.at.len() < cells {
            spend!(work, SPAN as u64);
            part.at.resize(cells.min(part.at.len() + SPAN), (0, 0));
        }
    }
    for span in sweep(layout.width, layout.height, (0, 0)) {
        spend!(work, 2 * span.len() as u64);
        for p in span {
            here.clear();
            if layout.open(p) {
                own(p, &mut here);
                parts[0].set(layout.index(p), &here);
            }
        }
    }
    let mut total = parts[0].list.len();
    for (k, &(dx, dy)) in directions.iter().enumerate() {
        let runs = &mut parts[1 + k];
        for span in sweep(layout.width, layout.height, (dx, dy)) {
            spend!(work, span.len() as u64);
            for p in span {
                if !layout.open(p) {
                    continue;
                }
                let next = (p.0 + dx, p.1 + dy);
                let ahead = if layout.open(next) { runs.get(layout.index(next)) } else { &[] };
                here.clear();
                if !along(k, p, next, ahead, &mut here) {
                    continue;
                }
                spend!(work, here.len() as u64 / 4);
                total += here.len();
                if total > list_budget(cells) {
                    return Err(PathTableError::TooOpen);
                }
                runs.set(layout.index(p), &here);
            }
        }
    }
    concatenate(cells, &parts, total, work).await
}

/// For every cell, the subgoals it reaches by a diagonal-first run (diagonal steps, then
/// straight ones) with no subgoal before its end: the straight runs' own, then per diagonal,
/// from the cell a diagonal step ahead (a subgoal there, or its straight hits and its runs).
async fn lists_out(layout: &Layout, work: &mut Work) -> Result<CellLists, PathTableError> {
    build_lists(
        layout,
        |p, list| list.extend((0..4).filter_map(|k| layout.straight_hit(p, k))),
        &DIAGONAL,
        |k, p, next, ahead, here| {
            let (dx, dy) = DIAGONAL[k];
            if !layout.diagonal_ok(p, (dx, dy)) {
                return false;
            }
            if let Some(id) = layout.subgoal_at(next) {
                here.push(id);
                return true;
            }
            let sides = [if dx > 0 { 0 } else { 1 }, if dy > 0 { 2 } else { 3 }];
            here.extend(sides.iter().filter_map(|&s| layout.straight_hit(next, s)));
            here.extend_from_slice(ahead);
            true
        },
        work,
    )
    .await
}

/// For every cell, the subgoals that reach it by a diagonal-first run with no subgoal before
/// its end: from the cell, runs straight first, then diagonal. Its straight and diagonal runs'
/// own, then per straight direction, from the cell a straight step ahead (its diagonal hits
/// onward, and its runs).
async fn lists_in(layout: &Layout, work: &mut Work) -> Result<CellLists, PathTableError> {
    build_lists(
        layout,
        |p, list| {
            list.extend((0..4).filter_map(|k| layout.straight_hit(p, k)));
            list.extend((0..4).filter_map(|k| layout.diagonal_hit(p, k)));
        },
        &STRAIGHT,
        |k, p, next, ahead, here| {
            if !layout.straight_ok(p, STRAIGHT[k]) || layout.subgoal_at(next).is_some() {
                return false;
            }
            // The diagonals (`DIAGONAL` indices) that go on the way this straight run went.
            let diagonals = match k {
                0 => [0, 2],
                1 => [1, 3],
                2 => [0, 1],
                _ => [2, 3],
            };
            here.extend(diagonals.iter().filter_map(|&d| layout.diagonal_hit(next, d)));
            here.extend_from_slice(ahead);
            true
        },
        work,
    )
    .await
}

/// Each cell's lists: the subgoals it reaches, and those that reach it. The second are worked
/// out by running back from the cell: over the grid with its edges turned round when some
/// edge lets steps cross one way only (`layout`'s subgoals, numbered).
async fn cell_lists(
    grid: &NavGrid,
    layout: &Layout,
    work: &mut Work,
) -> Result<(CellLists, CellLists), PathTableError> {
    let outs = lists_out(layout, work).await?;
    let ins = if grid.has_one_way_edges() {
        let mut turned = Layout::new(grid, true, work).await?;
        turned.subgoal.clone_from(&layout.subgoal);
        lists_in(&turned, work).await?
    } else {
        lists_in(layout, work).await?
    };
    Ok((outs, ins))
}

impl PathTable {
    /// The build, counting its work in `work`.
    pub(crate) async fn build_counted(
        grid: &NavGrid,
        work: &mut Work,
    ) -> Result<Self, PathTableError> {
        if grid.neighborhood() != Neighborhood::Eight {
            return Err(PathTableError::Unsupported("the table needs 8-way moves"));
        }
        if grid.corner_rule() != CornerRule::NoCornerCutting {
            return Err(PathTableError::Unsupported("the table needs no corner cutting"));
        }
        if !grid.has_uniform_cost() {
            return Err(PathTableError::Unsupported("the table needs one cost on every cell"));
        }
        if grid.width() > u32::from(u16::MAX) || grid.height() > u32::from(u16::MAX) {
            return Err(PathTableError::Unsupported(
                "the table takes grids up to 65535 cells a side",
            ));
        }
        let mut layout = Layout::new(grid, false, work).await?;
        let subgoals = number_along_curve(&mut layout, work).await;
        let ((out_start, out_list), (in_start, in_list)) = cell_lists(grid, &layout, work).await?;
        let edges = subgoal_edges(&layout, &subgoals, (&out_start, &out_list), work).await;
        let edges = drop_detours(subgoals.len(), (&edges.0, &edges.1), work).await;
        let (dist, pred) = all_pairs(&layout, &subgoals, (&edges.0, &edges.1), work).await;
        // Keep in each list only the subgoals no other in it passes on the way: a query tries
        // fewer pairs, and loses none (a shortest path to a dropped one goes through a kept one).
        let (out_start, out_list) =
            thin_lists(layout.width, &subgoals, &dist, (&out_start, &out_list), Way::Out, work)
                .await;
        let (in_start, mut in_list) =
            thin_lists(layout.width, &subgoals, &dist, (&in_start, &in_list), Way::In, work).await;
        // A query reads one row at each of the goal's subgoals: in the order of their columns.
        for cell in in_start.windows(2) {
            let list = &mut in_list[cell[0] as usize..cell[1] as usize];
            spend!(work, 1 + list.len() as u64 / 4);
            list.sort_unstable();
        }
        spend!(work, layout.open.len().div_ceil(64) as u64);
        let open = BitSet::from_bools(layout.open.iter().copied());
        Ok(Self {
            width: layout.width,
            height: layout.height,
            open,
            exits: layout.exits,
            stamp: grid.stamp(),
            fingerprint: fingerprint(grid, work).await,
            cost: grid.min_cost().unwrap_or(1),
            subgoals,
            out_start,
            out_list,
            in_start,
            in_list,
            dist,
            pred,
            lists_built: true,
        })
    }
}

#[cfg(test)]
mod tests;
mod thin;
