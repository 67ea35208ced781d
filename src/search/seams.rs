//! Grids laid side by side on one lattice (chunks): where a cell of one grid sits on the
//! lattice, and every step across the seams between touching grids ([`seam_links`]).

use std::collections::HashMap;

use super::linked::{Link, MapPos, Placement};
use crate::grid::{DIRECTIONS, GridPos, NavGrid, Neighborhood, reverse};

/// The placed grids of a set of grids, found by lattice cell.
pub(super) struct Lattice<'a> {
    maps: &'a [&'a NavGrid],
    places: &'a [Option<Placement>],
    /// Grids by (world, bucket column, bucket row) of their cell (0, 0).
    buckets: HashMap<(u32, i64, i64), Vec<usize>>,
    /// The side of a bucket: the widest or tallest placed grid.
    size: i64,
}

impl<'a> Lattice<'a> {
    pub(super) fn new(maps: &'a [&'a NavGrid], places: &'a [Option<Placement>]) -> Self {
        let placed = |m: usize| {
            places.get(m).copied().flatten().filter(|p| p.is_near() && keeps_parity(maps[m], p))
        };
        let size = (0..maps.len())
            .filter(|&m| placed(m).is_some())
            .map(|m| i64::from(maps[m].width().max(maps[m].height())))
            .max()
            .unwrap_or(1)
            .max(1);
        let mut buckets: HashMap<(u32, i64, i64), Vec<usize>> = HashMap::new();
        for m in 0..maps.len() {
            if let Some(p) = placed(m) {
                let key = (p.world, p.x.div_euclid(size), p.y.div_euclid(size));
                buckets.entry(key).or_default().push(m);
            }
        }
        Self { maps, places, buckets, size }
    }

    fn place(&self, map: usize) -> Option<Placement> {
        let near = |p: &Placement| p.is_near() && keeps_parity(self.maps[map], p);
        self.places.get(map).copied().flatten().filter(near)
    }

    /// The grid of `world` that holds lattice cell (x, y), and its own cell there.
    fn at(&self, world: u32, x: i64, y: i64) -> Option<(usize, GridPos)> {
        let (bx, by) = (x.div_euclid(self.size), y.div_euclid(self.size));
        for key in [(bx, by), (bx - 1, by), (bx, by - 1), (bx - 1, by - 1)] {
            for &m in self.buckets.get(&(world, key.0, key.1)).into_iter().flatten() {
                let Some(p) = self.place(m) else { continue };
                let (lx, ly) = (x - p.x, y - p.y);
                let grid = self.maps[m];
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
    fn corner_clear(&self, world: u32, (x, y): (i64, i64), (dx, dy): (i64, i64)) -> bool {
        [(0, 0, dx, dy), (dx, 0, -dx, dy), (0, dy, dx, -dy), (dx, dy, -dx, -dy)].iter().all(
            |&(ox, oy, ux, uy)| {
                let Some((m, cell)) = self.at(world, x + ox, y + oy) else { return true };
                let grid = self.maps[m];
                let step = (ux as isize, uy as isize);
                let d = DIRECTIONS.iter().position(|&s| s == step).unwrap_or(4);
                grid.neighborhood().is_hex() || grid.exit_open(grid.index(cell), d)
            },
        )
    }

    /// Each step out of a placed grid's border cell into another grid of its world with the
    /// same moves and corner rule: (from, to, the step's length, its direction). Straight steps
    /// only, or diagonal ones too (the corner rule read across the seams).
    pub(super) fn crossings(
        &self,
        diagonals: bool,
        mut each: impl FnMut(MapPos, MapPos, f64, (i64, i64)),
    ) {
        for (a, &grid) in self.maps.iter().enumerate() {
            let Some(p) = self.place(a) else { continue };
            let joins = |b: usize| {
                let other = self.maps[b];
                other.neighborhood() == grid.neighborhood()
                    && other.corner_rule() == grid.corner_rule()
            };
            let open = |x: i64, y: i64| {
                self.at(p.world, x, y)
                    .is_some_and(|(m, cell)| joins(m) && self.maps[m].is_passable(cell))
            };
            let straight_only = !diagonals || grid.neighborhood() == Neighborhood::Four;
            let hex = match grid.neighborhood() {
                Neighborhood::Hex(coords) => Some(coords),
                _ => None,
            };
            let (w, h) = (grid.width(), grid.height());
            let border = (0..w).flat_map(|x| [GridPos::new(x, 0), GridPos::new(x, h - 1)]).chain(
                (1..h.saturating_sub(1)).flat_map(|y| [GridPos::new(0, y), GridPos::new(w - 1, y)]),
            );
            let mut last = None;
            for cell in border {
                // (A grid one cell high or wide lists some cells twice.)
                if last == Some(cell) || !grid.is_passable(cell) {
                    continue;
                }
                last = Some(cell);
                let (x, y) = (p.x + i64::from(cell.x), p.y + i64::from(cell.y));
                // A hex cell's six steps (its parity is the lattice's: `keeps_parity`); a
                // square cell's eight.
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
                    let Some((b, to)) = self.at(p.world, x + dx, y + dy) else { continue };
                    if b == a || !joins(b) || !self.maps[b].is_passable(to) {
                        continue;
                    }
                    // A wall or ledge on either cell's side across the seam (the diagonals'
                    // corners are read below).
                    let back = reverse(grid.neighborhood(), d);
                    let sides_open =
                        grid.side_open(cell, d, false) && self.maps[b].side_open(to, back, true);
                    if !diagonal && !sides_open {
                        continue;
                    }
                    let len = if diagonal {
                        if !grid.corner_rule().allows_diagonal(open(x + dx, y), open(x, y + dy))
                            || !self.corner_clear(p.world, (x, y), (dx, dy))
                        {
                            continue;
                        }
                        std::f64::consts::SQRT_2
                    } else {
                        1.0
                    };
                    each(MapPos::new(a, cell), MapPos::new(b, to), len, (dx, dy));
                }
            }
        }
    }
}

pub(super) fn is_hex(grid: &NavGrid) -> bool {
    grid.neighborhood().is_hex()
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

/// Every step that one grid would allow between two grids placed side by side on one lattice
/// (see [`Placement`]), as a one-way [`Link`] costing what the step would (its length times the
/// far cell's cost): straight steps, and diagonal ones the corner rule allows with the cells
/// beside them read on whatever grid holds them, no diagonal past the end of a wall between
/// cells of any of them. Grids join only with grids of the same moves and corner rule. Hex
/// grids join with the six steps of the lattice's cells; in offset coordinates (`RowOdd`,
/// `ColumnEven`, ...) a grid joins only when placed an even number of rows (columns) from the
/// lattice's origin, so that its shifted lines are the lattice's. Grids that overlap on the
/// lattice are not supported (a cell is read on one of them).
///
/// With these links, [`LinkedMaps`](super::LinkedMaps) answers across the seams as the whole grid
/// would.
pub fn seam_links(maps: &[&NavGrid], places: &[Option<Placement>]) -> Vec<Link> {
    let lattice = Lattice::new(maps, places);
    let mut links = Vec::new();
    lattice.crossings(true, |from, to, len, _| {
        let cost = maps[to.map].cost(to.cell).map_or(f64::INFINITY, f64::from);
        links.push(Link::one_way(from, to, len * cost));
    });
    links
}
