//! Thinning the cells' lists: each keeps only the subgoals no other subgoal of it lies on a
//! shortest way to (a query tries fewer pairs and loses none).

use super::super::super::slices::{Work, spend};
use super::super::{SPAN, Steps, UNREACHED, add_steps, octile_steps};

/// Lists longer than this are kept whole rather than thinned.
pub(super) const MAX_THINNED: usize = 128;
// `Thinning` keeps an entry's place in a list in 8 bits.
const _: () = assert!(MAX_THINNED <= 256);

/// Which way a cell list goes: from the cell to its subgoals, or from them to the cell.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Way {
    Out,
    In,
}

/// Drops from each cell's list the subgoals that another subgoal of the list lies on a shortest
/// way to: for `Way::Out`, `a` goes when some `a2` has `cell -> a2 -> a` as short as
/// `cell -> a`; for `Way::In`, `b` goes when some `b2` has `b -> b2 -> cell` as short as
/// `b -> cell`. (Steps are exact, so "as short" is equality.) A dropped subgoal always has a
/// kept one covering it (see [`Thinning`]). The lists are one per cell of a grid `width` cells
/// wide, in rows.
///
/// A unit of work per cell and per entry of its list, and per 8 pairs of entries (the most
/// it compares).
pub(super) async fn thin_lists(
    width: i32,
    subgoals: &[(i32, i32)],
    dist: &[Steps],
    (starts, list): (&[u32], &[u16]),
    way: Way,
    work: &mut Work,
) -> (Vec<u32>, Vec<u16>) {
    let mut new_starts = Vec::with_capacity(starts.len());
    let mut new_list = Vec::new();
    let mut scratch = Thinning::default();
    new_starts.push(0);
    // The work of a cell's thinning, counted for cells in turn, a few hundred units at a time.
    let units = |i: usize| {
        let len = (starts[i + 1] - starts[i]) as usize;
        1 + len + if len > MAX_THINNED { 0 } else { len * len / 8 }
    };
    let cells = starts.len() - 1;
    let mut from = 0;
    while from < cells {
        let (mut to, mut counted) = (from + 1, units(from));
        while to < cells && counted + units(to) <= 2 * SPAN {
            counted += units(to);
            to += 1;
        }
        // A cell whose work alone is past that (the only cell of its run, then) counts it an
        // entry at a time.
        let alone = counted > 2 * SPAN;
        spend!(work, if alone { 1 } else { counted as u64 });
        for i in from..to {
            let cell = ((i as i32) % width, (i as i32) / width);
            let here = &list[starts[i] as usize..starts[i + 1] as usize];
            if here.len() > MAX_THINNED {
                if alone {
                    spend!(work, here.len() as u64);
                }
                new_list.extend_from_slice(here); // kept whole: thinning is quadratic in its length
            } else {
                let each = alone.then_some(&mut *work);
                thin_cell(cell, here, (subgoals, dist), way, (&mut scratch, each), &mut new_list)
                    .await;
            }
            new_starts.push(new_list.len() as u32);
        }
        from = to;
    }
    (new_starts, new_list)
}

/// Pushes onto `kept` the subgoals of `here`, the list of `cell`, that no other subgoal of
/// the list covers (see [`thin_lists`]), in the list's order. With a work counter, each
/// entry's work is counted as it goes (`1 + len / 8` units each).
///
/// Past a few entries, they are tried nearest first, each against the kept ones near it
/// only ([`Thinning`]): far less work than trying every pair.
async fn thin_cell(
    cell: (i32, i32),
    here: &[u16],
    (subgoals, dist): (&[(i32, i32)], &[Steps]),
    way: Way,
    (scratch, mut work): (&mut Thinning, Option<&mut Work>),
    kept: &mut Vec<u16>,
) {
    let cover = Cover { cell, subgoals, dist, way };
    if here.len() <= FEW_TO_SORT {
        let mut entries = [Entry::default(); FEW_TO_SORT];
        for (entry, &a) in entries.iter_mut().zip(here) {
            *entry = cover.entry(a);
        }
        let entries = &entries[..here.len()];
        for a in entries {
            if let Some(work) = work.as_deref_mut() {
                spend!(work, 1);
            }
            if !entries.iter().any(|other| cover.covers(other, a)) {
                kept.push(a.id);
            }
        }
        return;
    }
    scratch.begin(&cover, here);
    for k in 0..here.len() {
        if let Some(work) = work.as_deref_mut() {
            spend!(work, 1 + here.len() as u64 / 8);
        }
        scratch.try_next(&cover, here, k);
    }
    kept.extend(here.iter().zip(&scratch.keep).filter(|&(_, &k)| k).map(|(&a, _)| a));
}

/// Lists of up to this many entries are thinned by trying every pair: fewer steps than
/// sorting them.
const FEW_TO_SORT: usize = 8;

/// What a cell's thinning reads: the cell, the subgoals' cells, the steps between them, and
/// which way the list goes.
struct Cover<'a> {
    cell: (i32, i32),
    subgoals: &'a [(i32, i32)],
    dist: &'a [Steps],
    way: Way,
}

/// A subgoal of a cell's list: its cell, its number, and the octile steps from the list's cell
/// to it (worked out once for all the pairs it is in).
#[derive(Clone, Copy, Default)]
struct Entry {
    at: (i32, i32),
    id: u16,
    steps: Steps,
}

impl Cover<'_> {
    /// Subgoal `a` as an entry of the cell's list.
    fn entry(&self, a: u16) -> Entry {
        let at = self.subgoals[usize::from(a)];
        Entry { at, id: a, steps: octile_steps(self.cell, at) }
    }

    /// `other` lies on a shortest way between the cell and `a`.
    #[inline]
    fn covers(&self, other: &Entry, a: &Entry) -> bool {
        let cell = self.cell;
        let (o, a_at) = (other.at, a.at);
        let inside = |v: i32, c: i32, end: i32| v >= c.min(end) && v <= c.max(end);
        if other.id == a.id || !inside(o.0, cell.0, a_at.0) || !inside(o.1, cell.1, a_at.1) {
            return false; // not in their box
        }
        let (from, to) = if self.way == Way::Out { (other.id, a.id) } else { (a.id, other.id) };
        let between = self.dist[usize::from(from) * self.subgoals.len() + usize::from(to)];
        between != UNREACHED && add_steps(other.steps, between) == a.steps
    }
}

/// A list's thinning, nearest entry first, and room reused from cell to cell: the entries in
/// the order they are tried (steps along the axes from the cell, above their place in the
/// list), the kept ones with their cells in the four quarters around the cell (one in line
/// with the cell is in the two quarters on either side of the line), and which entries stay.
///
/// A subgoal that covers `a` lies in the box between the cell and `a`: in the same quarter,
/// and fewer steps away along the axes, so tried before `a`. And `a` need only be tried
/// against the kept ones: if what covers `a` is dropped, what covers that covers `a` too
/// (shortest distances between subgoals obey the triangle inequality, and the octile
/// distance is a lower bound), so some kept one does. The kept part of a list is mostly short.
#[derive(Default)]
struct Thinning {
    order: Vec<u32>,
    quarters: [Vec<Entry>; 4],
    keep: Vec<bool>,
}

impl Thinning {
    /// Starts on `here`, the list of `cover.cell` (of at most 256 entries).
    fn begin(&mut self, cover: &Cover, here: &[u16]) {
        let cell = cover.cell;
        self.order.clear();
        self.order.extend(here.iter().enumerate().map(|(i, &a)| {
            let (ax, ay) = cover.subgoals[usize::from(a)];
            let steps = (ax - cell.0).unsigned_abs() + (ay - cell.1).unsigned_abs();
            // (Capped past any map the table takes: an order out of true would only keep more.)
            steps.min(0xff_ffff) << 8 | i as u32
        }));
        self.order.sort_unstable();
        for quarter in &mut self.quarters {
            quarter.clear();
        }
        self.keep.clear();
        self.keep.resize(here.len(), false);
    }

    /// Tries the `k`-th nearest entry of `here`.
    fn try_next(&mut self, cover: &Cover, here: &[u16], k: usize) {
        let cell = cover.cell;
        let i = (self.order[k] & 0xff) as usize;
        let a = cover.entry(here[i]);
        let a_at = a.at;
        let quarter = usize::from(a_at.0 > cell.0) * 2 + usize::from(a_at.1 > cell.1);
        if self.quarters[quarter].iter().any(|other| cover.covers(other, &a)) {
            return;
        }
        self.keep[i] = true;
        let sides = |v: i32, c: i32| match v.cmp(&c) {
            std::cmp::Ordering::Less => 0..1,
            std::cmp::Ordering::Equal => 0..2,
            std::cmp::Ordering::Greater => 1..2,
        };
        for qx in sides(a_at.0, cell.0) {
            for qy in sides(a_at.1, cell.1) {
                self.quarters[qx * 2 + qy].push(a);
            }
        }
    }
}
