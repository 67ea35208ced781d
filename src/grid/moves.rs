//! How an agent steps between a grid's cells: the legal steps out of and into a cell, their
//! costs, and the padded indices the search walks the cells by.

use super::{DIRECTIONS, GridPos, NavGrid, Neighborhood, reverse};

impl NavGrid {
    /// The legal steps out of `pos` under the grid's neighborhood and corner rule, with each
    /// step's cost (step length x cost of the cell entered). Empty for a blocked or
    /// out-of-bounds cell.
    pub fn neighbors(&self, pos: GridPos) -> impl Iterator<Item = (GridPos, f64)> + '_ {
        let from = self.in_bounds(pos).then(|| self.index(pos)).filter(|&i| self.costs[i] != 0);
        let (dirs, hex): (&[usize], _) = match self.neighborhood {
            Neighborhood::Four => (&[0, 1, 2, 3], None),
            Neighborhood::Eight => (&[0, 1, 2, 3, 4, 5, 6, 7], None),
            Neighborhood::Hex(coords) => {
                let steps = coords.steps(coords.parity(pos.x as usize, pos.y as usize));
                (&[0, 1, 2, 3, 4, 5], Some(steps))
            }
        };
        let stride = self.stride() as isize;
        from.into_iter().flat_map(move |i| {
            dirs.iter().filter_map(move |&d| {
                let (j, len) = match hex {
                    Some(steps) => {
                        let (dx, dy) = steps[d];
                        let j = (i as isize + dx + dy * stride) as usize;
                        (self.costs[j] != 0 && self.exit_open(i, d)).then_some((j, 1.0))?
                    }
                    None => self.step(i, d)?,
                };
                let (x, y) = self.unpad(j);
                Some((GridPos::new(x, y), len * f64::from(self.costs[j])))
            })
        })
    }

    /// The cells from which one legal step leads into `pos`, with that step's cost: the
    /// [`neighbors`](Self::neighbors) of `pos` read backwards (they differ across one-way
    /// edges). Empty for a blocked or out-of-bounds cell.
    pub fn predecessors(&self, pos: GridPos) -> impl Iterator<Item = (GridPos, f64)> + '_ {
        let to = self.in_bounds(pos).then(|| self.index(pos)).filter(|&i| self.costs[i] != 0);
        let (count, hex) = match self.neighborhood {
            Neighborhood::Four => (4, None),
            Neighborhood::Eight => (8, None),
            Neighborhood::Hex(coords) => {
                (6, Some((coords, coords.steps(coords.parity(pos.x as usize, pos.y as usize)))))
            }
        };
        let stride = self.stride() as isize;
        to.into_iter().flat_map(move |i| {
            (0..count).filter_map(move |d| {
                let (j, len) = match hex {
                    Some((_, steps)) => {
                        // The neighbour in direction d steps back the opposite way.
                        let (dx, dy) = steps[d];
                        let j = (i as isize + dx + dy * stride) as usize;
                        let back = reverse(self.neighborhood, d);
                        (self.costs[j] != 0 && self.exit_open(j, back)).then_some((j, 1.0))?
                    }
                    None => {
                        let (dx, dy) = DIRECTIONS[d];
                        let j = (i as isize - dx - dy * stride) as usize;
                        if self.costs[j] == 0 {
                            return None;
                        }
                        (j, self.step(j, d)?.1)
                    }
                };
                let (x, y) = self.unpad(j);
                Some((GridPos::new(x, y), len * f64::from(self.costs[i])))
            })
        })
    }

    /// True when one legal step leads from `a` to `b`: both passable, adjacent under the
    /// neighborhood, no wall or one-way edge against it ([`set_edge`](Self::set_edge)), and (for
    /// a diagonal) allowed by the corner rule.
    pub fn can_step(&self, a: GridPos, b: GridPos) -> bool {
        if !self.is_passable(a) || !self.is_passable(b) {
            return false;
        }
        let Some(d) = self.direction(a, b) else { return false };
        let i = self.index(a);
        match self.neighborhood {
            Neighborhood::Hex(_) => self.exit_open(i, d),
            _ => self.step(i, d).is_some(),
        }
    }

    /// The two cells beside the diagonal step from `a` to `b`, which the corner rule looks at
    /// (`None` for a straight step, or any step on a hex grid).
    pub(crate) fn diagonal_sides(&self, a: GridPos, b: GridPos) -> Option<[GridPos; 2]> {
        let diagonal = a.x != b.x && a.y != b.y && !self.neighborhood.is_hex();
        diagonal.then(|| [GridPos::new(b.x, a.y), GridPos::new(a.x, b.y)])
    }

    /// [`can_step`](Self::can_step) with the cells `walled` says walled counted as walls too,
    /// for the corner rule as well (other characters, towers not yet built).
    pub(crate) fn can_step_walled(
        &self,
        a: GridPos,
        b: GridPos,
        walled: impl Fn(GridPos) -> bool,
    ) -> bool {
        let open = |c: GridPos| self.is_passable(c) && !walled(c);
        self.can_step(a, b)
            && !walled(b)
            && self
                .diagonal_sides(a, b)
                .is_none_or(|[s, t]| self.corner_rule.allows_diagonal(open(s), open(t)))
    }

    /// The cost of one step from `a` to `b` (step length x cost of `b`), or `None` when that is
    /// not a legal step ([`can_step`](Self::can_step)).
    pub fn step_cost(&self, a: GridPos, b: GridPos) -> Option<f64> {
        if !self.can_step(a, b) {
            return None;
        }
        let diagonal = a.x != b.x && a.y != b.y && !self.neighborhood.is_hex();
        let length = if diagonal { std::f64::consts::SQRT_2 } else { 1.0 };
        Some(length * f64::from(self.cost(b)?))
    }

    /// Whether a diagonal step from `pos` by (dx, dy) is allowed by the corner rule and passes
    /// no end of a wall or one-way edge, given that both end cells are passable. False for
    /// anything but a diagonal step (`dx` and `dy` each 1 or -1) from a cell of the grid, and
    /// always on a hex grid.
    pub fn diagonal_allowed(&self, pos: GridPos, dx: i32, dy: i32) -> bool {
        if self.neighborhood.is_hex()
            || !self.in_bounds(pos)
            || dx.unsigned_abs() != 1
            || dy.unsigned_abs() != 1
        {
            return false;
        }
        let i = self.index(pos) as isize;
        let stride = self.stride() as isize;
        let side_a = self.costs[(i + dx as isize) as usize] != 0;
        let side_b = self.costs[(i + dy as isize * stride) as usize] != 0;
        let d = DIRECTIONS.iter().position(|&s| s == (dx as isize, dy as isize)).unwrap_or(4);
        self.corner_rule.allows_diagonal(side_a, side_b) && self.exit_open(i as usize, d)
    }

    #[inline]
    pub(crate) fn stride(&self) -> usize {
        self.width as usize + 2
    }

    /// Padded index of an in-bounds position.
    #[inline]
    pub(crate) fn index(&self, pos: GridPos) -> usize {
        (pos.y as usize + 1) * self.stride() + pos.x as usize + 1
    }

    /// Position of a padded index that lies inside the grid.
    #[inline]
    pub(crate) fn unpad(&self, i: usize) -> (u32, u32) {
        let stride = self.stride();
        ((i % stride - 1) as u32, (i / stride - 1) as u32)
    }

    #[inline]
    pub(crate) fn padded_costs(&self) -> &[u32] {
        &self.costs
    }

    /// Number of padded cells: the size of per-cell arrays indexed like the grid.
    #[inline]
    pub(crate) fn padded_len(&self) -> usize {
        self.costs.len()
    }

    /// Square-grid step `d` (0..4 straight: E, W, S, N; 4..8 diagonal) from padded index `i`:
    /// the target index and the step length, or `None` if the target is blocked, an edge bars
    /// the step or the corner rule forbids it.
    #[inline]
    pub(crate) fn step(&self, i: usize, d: usize) -> Option<(usize, f64)> {
        let stride = self.stride() as isize;
        let (dx, dy) = DIRECTIONS[d];
        let j = (i as isize + dx + dy * stride) as usize;
        if self.costs[j] == 0 || !self.exit_open(i, d) {
            return None;
        }
        if d < 4 {
            return Some((j, 1.0));
        }
        let side_a = self.costs[(i as isize + dx) as usize] != 0;
        let side_b = self.costs[(i as isize + dy * stride) as usize] != 0;
        self.corner_rule.allows_diagonal(side_a, side_b).then_some((j, std::f64::consts::SQRT_2))
    }
}
