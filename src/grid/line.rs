//! Line of sight on the grid: the cells a straight segment between two cell centres crosses,
//! and what walking it costs. Theta* and path smoothing both ask these.

use super::{DIRECTIONS, GridPos, HexCoords, NavGrid, Neighborhood};

/// The cells whose centres a straight segment from the centre of `a` to the centre of `b`
/// enters, in order (both ends included), or `None` if it enters a blocked cell, crosses an
/// edge barred that way (a wall between cells, a one-way edge against it,
/// [`NavGrid::set_edge`]), or passes exactly through a corner the grid's corner rule forbids
/// (two diagonal walls, or with [`NoCornerCutting`](super::CornerRule::NoCornerCutting) any
/// wall at that corner) or an edge's end touches.
///
/// On a hex grid the segment joins the cells' centres as drawn (see
/// [`HexCoords::unit_center`]); it is followed four times per step, nudged to both sides of
/// any edge it runs along, so that a segment grazing a blocked hexagon's edge is not clear.
pub fn segment_cells(grid: &NavGrid, a: GridPos, b: GridPos) -> Option<Vec<GridPos>> {
    if let Neighborhood::Hex(coords) = grid.neighborhood() {
        return hex_segment_cells(grid, coords, a, b);
    }
    let (x0, y0, x1, y1) = (i64::from(a.x), i64::from(a.y), i64::from(b.x), i64::from(b.y));
    let (dx, dy) = ((x1 - x0).abs(), (y1 - y0).abs());
    let (sx, sy) = ((x1 - x0).signum(), (y1 - y0).signum());
    let open =
        |x: i64, y: i64| x >= 0 && y >= 0 && grid.is_passable(GridPos::new(x as u32, y as u32));
    if !open(x0, y0) {
        return None;
    }
    // The step from (x, y) by (ux, uy) is not barred by an edge (for a diagonal through a
    // corner: no edge touches that corner).
    let crosses = |x: i64, y: i64, ux: i64, uy: i64| {
        let d = DIRECTIONS.iter().position(|&s| s == (ux as isize, uy as isize)).unwrap_or(0);
        grid.exit_open(grid.index(GridPos::new(x as u32, y as u32)), d)
    };
    let mut cells = vec![a];
    let (mut x, mut y, mut ix, mut iy) = (x0, y0, 0, 0);
    while ix < dx || iy < dy {
        let (px, py) = (x, y);
        // Which cell border does the segment cross next: compare (ix + 1/2) / dx with
        // (iy + 1/2) / dy exactly, in integers.
        let (across_x, across_y) = ((1 + 2 * ix) * dy, (1 + 2 * iy) * dx);
        if across_x == across_y {
            // Exactly through a corner: the two cells beside it decide.
            let (side_a, side_b) = (open(x + sx, y), open(x, y + sy));
            if !grid.corner_rule().allows_diagonal(side_a, side_b) {
                return None;
            }
            x += sx;
            y += sy;
            ix += 1;
            iy += 1;
        } else if across_x < across_y {
            x += sx;
            ix += 1;
        } else {
            y += sy;
            iy += 1;
        }
        if !open(x, y) || !crosses(px, py, x - px, y - py) {
            return None;
        }
        cells.push(GridPos::new(x as u32, y as u32));
    }
    Some(cells)
}

/// An upper bound on the cost of walking the straight segment from the centre of `a` to the
/// centre of `b`: its length times the highest cost among the cells it enters after `a` (the
/// grid's own rule: a step costs what the cell entered costs). `None` if the segment is not
/// clear (see [`segment_cells`]).
pub fn segment_cost(grid: &NavGrid, a: GridPos, b: GridPos) -> Option<f64> {
    let cells = segment_cells(grid, a, b)?;
    let Some(highest) = cells.iter().skip(1).filter_map(|&c| grid.cost(c)).max() else {
        return Some(0.0);
    };
    Some(center_distance(grid, a, b) * f64::from(highest))
}

/// The straight-line distance between the centres of two cells, in steps: cell units on a
/// square grid, neighbour spacing on a hex grid.
pub fn center_distance(grid: &NavGrid, a: GridPos, b: GridPos) -> f64 {
    let (dx, dy) = match grid.neighborhood() {
        Neighborhood::Hex(coords) => {
            let (ax, ay) = coords.unit_center(i64::from(a.x), i64::from(a.y));
            let (bx, by) = coords.unit_center(i64::from(b.x), i64::from(b.y));
            (ax - bx, ay - by)
        }
        _ => (f64::from(a.x) - f64::from(b.x), f64::from(a.y) - f64::from(b.y)),
    };
    (dx * dx + dy * dy).sqrt()
}

/// [`segment_cells`] on a hex grid: samples the segment in axial coordinates and rounds each
/// sample to its hexagon (cube rounding), nudged both ways off edges.
fn hex_segment_cells(
    grid: &NavGrid,
    coords: HexCoords,
    a: GridPos,
    b: GridPos,
) -> Option<Vec<GridPos>> {
    if !grid.is_passable(a) {
        return None;
    }
    let (aq, ar) = coords.to_axial(i64::from(a.x), i64::from(a.y));
    let (bq, br) = coords.to_axial(i64::from(b.x), i64::from(b.y));
    let samples = 4 * i64::from(coords.distance(a, b));
    let mut cells = vec![a];
    for k in 1..=samples {
        let t = k as f64 / samples as f64;
        let (q, r) = (aq as f64 + (bq - aq) as f64 * t, ar as f64 + (br - ar) as f64 * t);
        for nudge in [1e-6, -1e-6] {
            let (cq, cr) = cube_round(q + nudge, r + nudge);
            let (x, y) = coords.from_axial(cq, cr);
            let cell = (x >= 0 && y >= 0).then(|| GridPos::new(x as u32, y as u32))?;
            if !grid.is_passable(cell) {
                return None;
            }
            if !cells.iter().rev().take(2).any(|&c| c == cell) {
                // The edge from a cell just entered into this one must let the segment across
                // (on a segment grazing an edge both sides are entered: that edge must be open
                // too).
                let barred =
                    |&c: &GridPos| grid.direction(c, cell).is_some() && !grid.edge_open(c, cell);
                if cells.iter().rev().take(2).any(barred) {
                    return None;
                }
                cells.push(cell);
            }
        }
    }
    Some(cells)
}

/// The hexagon (axial) holding the fractional axial point (`q`, `r`).
fn cube_round(q: f64, r: f64) -> (i64, i64) {
    let s = -q - r;
    let (mut rq, mut rr, rs) = (q.round(), r.round(), s.round());
    let (dq, dr, ds) = ((rq - q).abs(), (rr - r).abs(), (rs - s).abs());
    if dq > dr && dq > ds {
        rq = -rr - rs;
    } else if dr > ds {
        rr = -rq - rs;
    }
    (rq as i64, rr as i64)
}
