//! Where placed grids lie on their world's lattice, and the steps across the seams between
//! grids that touch there.

use super::maps::{MapPos, Placement};
use super::mix::MixMap;
use crate::grid::{DIRECTIONS, GridPos, NavGrid, Neighborhood, reverse};

/// A placed grid's cells on its world's lattice, one step wider all round: x0..=x1 by
/// y0..=y1.
#[derive(Clone, Copy, Debug)]
struct Reach {
    world: u32,
    x0: i64,
    y0: i64,
    x1: i64,
    y1: i64,
}

impl Reach {
    /// Whether lattice cell (x, y) of `world` is within it.
    fn holds(&self, world: u32, x: i64, y: i64) -> bool {
        world == self.world && (self.x0..=self.x1).contains(&x) && (self.y0..=self.y1).contains(&y)
    }
}

/// The placed grids of a set of grids, found by lattice cell. It keeps only where the grids
/// lie: the grids themselves are given to each call (the same list it was made from).
#[derive(Clone, Debug)]
pub(in crate::search) struct Lattice {
    /// Each grid's place, if it joins a lattice (near enough, and keeping its parity).
    places: Vec<Option<Placement>>,
    /// Whether each grid shares its world with another (it has seams to cross).
    joined: Vec<bool>,
    /// Grids by (world, bucket column, bucket row) of their cell (0, 0).
    buckets: MixMap<(u32, i64, i64), Vec<usize>>,
    /// The side of a bucket: the widest or tallest placed grid.
    size: i64,
}

impl Lattice {
    pub(in crate::search) fn new(maps: &[&NavGrid], places: &[Option<Placement>]) -> Self {
        let places: Vec<Option<Placement>> = (0..maps.len())
            .map(|m| {
                let near = |p: &Placement| p.is_near() && keeps_parity(maps[m], p);
                places.get(m).copied().flatten().filter(near)
            })
            .collect();
        let size = (0..maps.len())
            .filter(|&m| places[m].is_some())
            .map(|m| i64::from(maps[m].width().max(maps[m].height())))
            .max()
            .unwrap_or(1)
            .max(1);
        let mut buckets: MixMap<(u32, i64, i64), Vec<usize>> = MixMap::default();
        for (m, place) in places.iter().enumerate() {
            if let Some(p) = place {
                let key = (p.world, p.x.div_euclid(size), p.y.div_euclid(size));
                buckets.entry(key).or_default().push(m);
            }
        }
        let mut worlds: Vec<u32> = places.iter().flatten().map(|p| p.world).collect();
        worlds.sort_unstable();
        let shared = |w: u32| worlds.get(worlds.partition_point(|&v| v < w) + 1) == Some(&w);
        let joined = places.iter().map(|p| p.is_some_and(|p| shared(p.world))).collect();
        Self { places, joined, buckets, size }
    }

    /// Whether two or more grids share a world (only then is there a seam to cross).
    pub(in crate::search) fn joins_any(&self) -> bool {
        self.joined.contains(&true)
    }

    /// Whether grid `map` shares its world with another grid (it has seams to cross).
    pub(in crate::search) fn is_joined(&self, map: usize) -> bool {
        self.joined.get(map).copied().unwrap_or(false)
    }

    /// Grid `map`'s place on the lattice (`None` for a grid that joins none: no place given,
    /// too far out, or an offset hex grid placed out of step with the lattice's rows).
    pub(in crate::search) fn place(&self, map: usize) -> Option<Placement> {
        self.places.get(map).copied().flatten()
    }

    /// The grid of `world` that holds lattice cell (x, y), and its own cell there.
    fn at(&self, maps: &[&NavGrid], world: u32, x: i64, y: i64) -> Option<(usize, GridPos)> {
        let (bx, by) = (x.div_euclid(self.size), y.div_euclid(self.size));
        for key in [(bx, by), (bx - 1, by), (bx, by - 1), (bx - 1, by - 1)] {
            for &m in self.buckets.get(&(world, key.0, key.1)).into_iter().flatten() {
                let Some(p) = self.place(m) else { continue };
                let (lx, ly) = (x - p.x, y - p.y);
                let grid = maps[m];
                if lx >= 0
                    && ly >= 0
                    && lx < i64::from(grid.width())
                    && ly < i64::from(grid.height())
                {
                    return Some((m, GridPos::new(lx as u32, ly as u32)));
                }
            }
        }
        None
    }

    /// No wall or one-way edge of any grid round it touches the corner that the diagonal step
    /// from lattice cell `at` by `(dx, dy)` passes: each of the four cells round the corner
    /// has its diagonal through it open in its own grid (the edges between cells of two grids
    /// are seams, always open).
    fn corner_clear(
        &self,
        maps: &[&NavGrid],
        world: u32,
        (x, y): (i64, i64),
        (dx, dy): (i64, i64),
    ) -> bool {
        [(0, 0, dx, dy), (dx, 0, -dx, dy), (0, dy, dx, -dy), (dx, dy, -dx, -dy)].iter().all(
            |&(ox, oy, ux, uy)| {
                let Some((m, cell)) = self.at(maps, world, x + ox, y + oy) else { return true };
                let grid = maps[m];
                let step = (ux as isize, uy as isize);
                let d = DIRECTIONS.iter().position(|&s| s == step).unwrap_or(4);
                grid.neighborhood().is_hex() || grid.exit_open(grid.index(cell), d)
            },
        )
    }

    /// Each step out of a placed grid's border cell into another grid of its world with the
    /// same moves and corner rule: (from, to, the step's length, its direction). Straight steps
    /// only, or diagonal ones too (the corner rule read across the seams).
    pub(in crate::search) fn crossings(
        &self,
        maps: &[&NavGrid],
        diagonals: bool,
        mut each: impl FnMut(MapPos, MapPos, f64, (i64, i64)),
    ) {
        for a in 0..maps.len() {
            self.crossings_from(maps, a, diagonals, &mut each);
        }
    }

    /// [`crossings`](Self::crossings) out of grid `a` alone.
    pub(in crate::search) fn crossings_from(
        &self,
        maps: &[&NavGrid],
        a: usize,
        diagonals: bool,
        mut each: impl FnMut(MapPos, MapPos, f64, (i64, i64)),
    ) {
        let (Some(_), Some(&grid)) = (self.place(a), maps.get(a)) else { return };
        for cell in border(grid) {
            let from = MapPos::new(a, cell);
            self.steps_out(maps, from, diagonals, |to, len, dir| each(from, to, len, dir));
        }
    }

    /// The straight steps (all six on a hex grid) out of grid `a` into grid `b` (as
    /// [`crossings_from`](Self::crossings_from) gives them): only `a`'s border cells within a
    /// lattice step of `b` are looked at. (Where another grid holds a cell of `b`'s too, a
    /// step into that cell enters whichever of them the lattice finds first.)
    pub(in crate::search) fn crossings_into(
        &self,
        maps: &[&NavGrid],
        (a, b): (usize, usize),
        mut each: impl FnMut(MapPos, MapPos, f64, (i64, i64)),
    ) {
        let (Some(p), Some(&grid), Some(reach)) = (self.place(a), maps.get(a), self.reach(maps, b))
        else {
            return;
        };
        // `a`'s cells within the reach, in `a`'s own cells: x0..=x1 by y0..=y1.
        let (w, h) = (i64::from(grid.width()), i64::from(grid.height()));
        let (x0, x1) = ((reach.x0 - p.x).max(0), (reach.x1 - p.x).min(w - 1));
        let (y0, y1) = ((reach.y0 - p.y).max(0), (reach.y1 - p.y).min(h - 1));
        if p.world != reach.world || x0 > x1 || y0 > y1 {
            return;
        }
        // Its border cells there (as `border` lists them): along the top and bottom rows, then
        // down the left and right columns between them.
        let ends = |n: i64| (0..n).step_by((n - 1).max(1) as usize);
        let rows = ends(h).filter(|y| (y0..=y1).contains(y));
        let rows = rows.flat_map(|y| (x0..=x1).map(move |x| (x, y)));
        let columns = ends(w).filter(|x| (x0..=x1).contains(x));
        let columns = columns.flat_map(|x| (y0.max(1)..=y1.min(h - 2)).map(move |y| (x, y)));
        for (x, y) in rows.chain(columns) {
            let from = MapPos::new(a, GridPos::new(x as u32, y as u32));
            self.steps_out(maps, from, false, |to, len, dir| {
                if to.map == b {
                    each(from, to, len, dir);
                }
            });
        }
    }

    /// Grid `a`'s cells on the lattice, one step wider all round; `None` for a grid with no
    /// place.
    fn reach(&self, maps: &[&NavGrid], a: usize) -> Option<Reach> {
        let (p, grid) = (self.place(a)?, maps.get(a)?);
        let x1 = p.x.saturating_add(grid.width().into());
        let y1 = p.y.saturating_add(grid.height().into());
        let (x0, y0) = (p.x.saturating_sub(1), p.y.saturating_sub(1));
        Some(Reach { world: p.world, x0, y0, x1, y1 })
    }

    /// Whether placed grid `m` holds a cell within `reach`.
    fn meets(&self, maps: &[&NavGrid], m: usize, reach: &Reach) -> bool {
        let Some(q) = self.place(m) else { return false };
        let (w, h) = (i64::from(maps[m].width()), i64::from(maps[m].height()));
        q.world == reach.world
            && q.x <= reach.x1
            && reach.x0 < q.x + w
            && q.y <= reach.y1
            && reach.y0 < q.y + h
    }

    /// Whether placed grids `a` and `b` both hold a lattice cell (no two grids of a world the
    /// plugin makes do).
    pub(in crate::search) fn overlap(&self, maps: &[&NavGrid], a: usize, b: usize) -> bool {
        let (Some(p), Some(grid)) = (self.place(a), maps.get(a)) else { return false };
        let (x1, y1) = (p.x + i64::from(grid.width()) - 1, p.y + i64::from(grid.height()) - 1);
        self.meets(maps, b, &Reach { world: p.world, x0: p.x, y0: p.y, x1, y1 })
    }

    /// The other grids of grid `a`'s world that hold a cell one lattice step (or less) from one
    /// of its cells: every grid a step out of `a` can reach, by their place in `maps`.
    pub(in crate::search) fn touching(&self, maps: &[&NavGrid], a: usize) -> Vec<usize> {
        let Some(reach) = self.reach(maps, a) else { return Vec::new() };
        // A grid is no wider or taller than a bucket, so those holding one that reaches the
        // square (x0, y0)-(x1, y1) start at most a bucket before it.
        let bucket = |v: i64| v.div_euclid(self.size);
        let (bx0, by0) = (bucket(reach.x0) - 1, bucket(reach.y0) - 1);
        let (bx1, by1) = (bucket(reach.x1), bucket(reach.y1));
        let mut found = Vec::new();
        for bx in bx0..=bx1 {
            for by in by0..=by1 {
                for &m in self.buckets.get(&(reach.world, bx, by)).into_iter().flatten() {
                    if m != a && self.meets(maps, m, &reach) {
                        found.push(m);
                    }
                }
            }
        }
        found.sort_unstable();
        found
    }

    /// [`crossings`](Self::crossings) (diagonals too) out of the border cells within one
    /// lattice step of a grid of `changed`: each such cell (`cell`, whether or not a step
    /// leaves it), then each step out of it (`each`).
    pub(in crate::search) fn crossings_near(
        &self,
        maps: &[&NavGrid],
        changed: &[usize],
        mut cell: impl FnMut(MapPos),
        mut each: impl FnMut(MapPos, MapPos, f64),
    ) {
        let reach: Vec<Reach> = changed.iter().filter_map(|&c| self.reach(maps, c)).collect();
        for (a, &grid) in maps.iter().enumerate() {
            let Some(p) = self.place(a) else { continue };
            if !reach.iter().any(|r| self.meets(maps, a, r)) {
                continue;
            }
            for at in border(grid) {
                let (x, y) = (p.x + i64::from(at.x), p.y + i64::from(at.y));
                if reach.iter().any(|r| r.holds(p.world, x, y)) {
                    let from = MapPos::new(a, at);
                    cell(from);
                    self.steps_out(maps, from, true, |to, len, _| each(from, to, len));
                }
            }
        }
    }

    /// Each step out of `from` (a cell of a placed grid) across a seam into another grid of
    /// its world with the same moves and corner rule: (to, the step's length, its direction).
    /// None from a blocked cell, a cell off the border, or a grid with no place.
    pub(in crate::search) fn steps_out(
        &self,
        maps: &[&NavGrid],
        from: MapPos,
        diagonals: bool,
        mut each: impl FnMut(MapPos, f64, (i64, i64)),
    ) {
        let (a, cell) = (from.map, from.cell);
        let (Some(p), Some(&grid)) = (self.place(a), maps.get(a)) else { return };
        let (w, h) = (grid.width(), grid.height());
        let on_border = cell.x == 0 || cell.y == 0 || cell.x + 1 >= w || cell.y + 1 >= h;
        if !on_border || !grid.is_passable(cell) {
            return;
        }
        let joins = |b: usize| {
            let other = maps[b];
            other.neighborhood() == grid.neighborhood() && other.corner_rule() == grid.corner_rule()
        };
        let open = |x: i64, y: i64| {
            self.at(maps, p.world, x, y)
                .is_some_and(|(m, cell)| joins(m) && maps[m].is_passable(cell))
        };
        let straight_only = !diagonals || grid.neighborhood() == Neighborhood::Four;
        let hex = match grid.neighborhood() {
            Neighborhood::Hex(coords) => Some(coords),
            _ => None,
        };
        let (x, y) = (p.x + i64::from(cell.x), p.y + i64::from(cell.y));
        // A hex cell's six steps (its parity is the lattice's: `keeps_parity`); a square
        // cell's eight.
        let hex_steps;
        let steps: &[(isize, isize)] = match hex {
            Some(coords) => {
                hex_steps = coords.steps(coords.parity(cell.x as usize, cell.y as usize));
                &hex_steps
            }
            None => &DIRECTIONS,
        };
        for (d, &(dx, dy)) in steps.iter().enumerate() {
            let (dx, dy) = (dx as i64, dy as i64);
            let diagonal = hex.is_none() && dx != 0 && dy != 0;
            if diagonal && straight_only {
                continue;
            }
            let (tx, ty) = (i64::from(cell.x) + dx, i64::from(cell.y) + dy);
            if tx >= 0 && ty >= 0 && tx < i64::from(w) && ty < i64::from(h) {
                continue; // a step inside the grid
            }
            let Some((b, to)) = self.at(maps, p.world, x + dx, y + dy) else { continue };
            if b == a || !joins(b) || !maps[b].is_passable(to) {
                continue;
            }
            // A wall or ledge on either cell's side across the seam (the diagonals' corners
            // are read below).
            let back = reverse(grid.neighborhood(), d);
            let sides_open = grid.side_open(cell, d, false) && maps[b].side_open(to, back, true);
            if !diagonal && !sides_open {
                continue;
            }
            let len = if diagonal {
                if !grid.corner_rule().allows_diagonal(open(x + dx, y), open(x, y + dy))
                    || !self.corner_clear(maps, p.world, (x, y), (dx, dy))
                {
                    continue;
                }
                std::f64::consts::SQRT_2
            } else {
                1.0
            };
            each(MapPos::new(b, to), len, (dx, dy));
        }
    }
}

/// The border cells of `grid`, each once (the top and bottom rows, then the left and right
/// columns between them).
fn border(grid: &NavGrid) -> impl Iterator<Item = GridPos> {
    let (w, h) = (grid.width(), grid.height());
    let rows = (0..w).flat_map(move |x| {
        // (A grid one cell high lists its row once.)
        let bottom = (h > 1).then_some(GridPos::new(x, h - 1));
        [Some(GridPos::new(x, 0)), bottom].into_iter().flatten()
    });
    let columns = (1..h.saturating_sub(1)).flat_map(move |y| {
        let right = (w > 1).then_some(GridPos::new(w - 1, y));
        [Some(GridPos::new(0, y)), right].into_iter().flatten()
    });
    rows.chain(columns)
}

/// A grid placed at `place` keeps its cells' neighbours on the lattice: always on a square
/// grid and in axial hex coordinates; in offset hex coordinates only when it is placed an even
/// number of rows (or columns, for the column systems) from the lattice's origin, so that its
/// shifted lines are the lattice's.
fn keeps_parity(grid: &NavGrid, place: &Placement) -> bool {
    match grid.neighborhood() {
        Neighborhood::Hex(coords) => {
            coords.parity(place.x.rem_euclid(2) as usize, place.y.rem_euclid(2) as usize) == 0
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::{Cell, HexCoords};
    use crate::test_rng::TestRng;

    /// The steps out of one grid into another are those out of the first into every grid,
    /// less those into the others: on random worlds of small grids (one cell wide or high
    /// among them), square and hex, side by side, apart, and overlapping.
    #[test]
    fn crossings_into_one_grid_are_the_crossings_that_enter_it() {
        let mut rng = TestRng(0x1a77_1ce5);
        let mut found = 0;
        for round in 0..300 {
            let hood = match rng.below(4) {
                0 => Neighborhood::Four,
                1 => Neighborhood::Hex(HexCoords::Row),
                2 => Neighborhood::Hex(HexCoords::RowOdd),
                _ => Neighborhood::Eight,
            };
            let mut grids = Vec::new();
            let mut places = Vec::new();
            for _ in 0..2 + rng.below(5) {
                let mut grid = NavGrid::new(1 + rng.below(6), 1 + rng.below(6)).unwrap();
                grid.set_neighborhood(hood);
                for pos in grid.positions().collect::<Vec<_>>() {
                    if rng.below(5) == 0 {
                        grid.set(pos, Cell::Blocked).unwrap();
                    }
                }
                grids.push(grid);
                let at = |rng: &mut TestRng| i64::from(rng.below(13)) - 6;
                let (x, y) = (at(&mut rng), 2 * at(&mut rng));
                places.push(Some(Placement { world: rng.below(4).min(1), x, y }));
            }
            let maps: Vec<&NavGrid> = grids.iter().collect();
            let lattice = Lattice::new(&maps, &places);
            for a in 0..maps.len() {
                let mut all = Vec::new();
                lattice.crossings_from(&maps, a, false, |from, to, len, dir| {
                    all.push((from, to, len.to_bits(), dir));
                });
                for b in (0..maps.len()).filter(|&b| b != a) {
                    let mut into = Vec::new();
                    lattice.crossings_into(&maps, (a, b), |from, to, len, dir| {
                        into.push((from, to, len.to_bits(), dir));
                    });
                    let mut want: Vec<_> = all.iter().copied().filter(|c| c.1.map == b).collect();
                    found += want.len();
                    want.sort_by_key(|c| (c.0.cell.y, c.0.cell.x, c.3));
                    into.sort_by_key(|c| (c.0.cell.y, c.0.cell.x, c.3));
                    assert_eq!(into, want, "round {round}: {a} into {b}");
                }
            }
        }
        assert!(found > 500, "{found} crossings");
    }
}
