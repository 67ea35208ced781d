//! Walls between cells and one-way edges: what stands on the edge two neighbouring cells
//! share (a fence, a thin wall, a closed door, a ledge to drop down), kept apart from the cells
//! themselves.
//!
//! Stored as one byte per padded cell, bit `d` set when the step out of the cell in direction
//! `d` is barred: on a square grid the four straight directions of `DIRECTIONS` are set from
//! the edges, and the four diagonal ones are worked out from them (a diagonal step is barred
//! when any edge touching the corner it passes is barred either way: no squeezing past the end
//! of a wall); on a hex grid the six directions of `HexCoords::steps`. Empty while no edge is
//! barred, so that grids without edges pay nothing.

use super::NavGrid;
use super::cell::{GridError, GridPos};
use super::topology::{DIRECTIONS, Edge, Neighborhood, Sides, reverse, straight};

impl NavGrid {
    /// Puts `edge` on the edge between neighbouring cells `from` and `to` (on a square grid the
    /// four straight neighbours; on a hex grid the six). [`Edge::OneWay`] lets steps cross from
    /// `from` to `to` only. Both cells stay as they are (a wall between two floor cells leaves
    /// both floor). Every search, line of sight and precomputed structure of the crate reads
    /// edges or refuses grids that have them (see the guide's "Walls between tiles"); jump
    /// point search reads them as it reads walls.
    ///
    /// A change of an edge is a change of the grid's moves: caches that follow cell changes
    /// ([`changes_since`](Self::changes_since)) start over.
    ///
    /// ```
    /// use bevy_tilemap_nav::grid::{Edge, GridPos, NavGrid};
    ///
    /// let mut grid = NavGrid::new(4, 4).unwrap();
    /// let (a, b) = (GridPos::new(1, 1), GridPos::new(1, 2));
    /// grid.set_edge(a, b, Edge::OneWay).unwrap();
    /// assert!(grid.can_step(a, b) && !grid.can_step(b, a));
    /// // No diagonal step passes the end of the ledge.
    /// assert!(!grid.can_step(GridPos::new(0, 1), b));
    /// grid.set_edge(a, b, Edge::Open).unwrap();
    /// assert!(!grid.has_edges());
    /// ```
    pub fn set_edge(&mut self, from: GridPos, to: GridPos, edge: Edge) -> Result<(), GridError> {
        let d = self.edge_direction(from, to)?;
        let back = reverse(self.neighborhood, d);
        let (i, j) = (self.index(from), self.index(to));
        let (forth, backward) = match edge {
            Edge::Open => (false, false),
            Edge::Wall => (true, true),
            Edge::OneWay => (false, true),
        };
        if self.bar(i, d, forth) | self.bar(j, back, backward) {
            self.edges_changed(from, to);
        }
        Ok(())
    }

    /// After the edge between `a` and `b` changed: the diagonal exits round it worked out
    /// again, the bytes dropped once nothing is barred, every cache that follows cell changes
    /// (component labels, the change journal) started over, and the search's index told.
    fn edges_changed(&mut self, a: GridPos, b: GridPos) {
        if !self.neighborhood.is_hex() {
            self.work_out_corners(a, b);
        }
        if self.barred == 0 {
            self.edges = Vec::new();
        }
        self.components.take();
        self.revision += 1;
        self.forget_changes();
        // Jump point search's bits read the edges round a cell as they read its cost.
        let (i, j) = (self.index(a), self.index(b));
        self.tell_index(&[i, j]);
    }

    /// Each padded cell's barred straight exits (hex: all six), as a saved grid keeps them:
    /// the sides on the border, toward beyond the grid, included. Empty when none.
    pub(crate) fn straight_exits(&self) -> Vec<u8> {
        let mask = if self.neighborhood.is_hex() { 0x3f } else { 0x0f };
        self.edges.iter().map(|&e| e & mask).collect()
    }

    /// Takes saved exits ([`straight_exits`](Self::straight_exits)); an error (and no change)
    /// when there are not one per padded cell or a byte holds a direction the grid has not.
    pub(crate) fn load_exits(&mut self, exits: &[u8]) -> Result<(), String> {
        if exits.is_empty() {
            self.clear_edges();
            return Ok(());
        }
        if exits.len() != self.costs.len() {
            return Err(format!("{} exits for {} padded cells", exits.len(), self.costs.len()));
        }
        let mask = if self.neighborhood.is_hex() { 0x3f } else { 0x0f };
        if exits.iter().any(|&e| e & !mask != 0) {
            return Err("an exit the grid's cells do not have".into());
        }
        self.edges = exits.to_vec();
        self.barred = exits.iter().map(|e| e.count_ones()).sum();
        if !self.neighborhood.is_hex() {
            self.work_out_corners(
                GridPos::new(0, 0),
                GridPos::new(self.width - 1, self.height - 1),
            );
        }
        self.edges_changed(GridPos::new(0, 0), GridPos::new(0, 0));
        self.tell_index_all();
        Ok(())
    }

    /// Sets many edges (see [`set_edge`](Self::set_edge)). On an error the edges before it stay
    /// set; the rest are not.
    pub fn set_edges(
        &mut self,
        edges: impl IntoIterator<Item = (GridPos, GridPos, Edge)>,
    ) -> Result<(), GridError> {
        edges.into_iter().try_for_each(|(from, to, edge)| self.set_edge(from, to, edge))
    }

    /// Sets the edges round each of `cells` from what the cells say of their sides, as tiles
    /// do: `sides(pos)` gives the cell's walls (no step across either way) and its drops (a
    /// ledge on that side: steps leave by it, none comes in). A step from a cell to its
    /// neighbour is barred when the cell has a wall on that side, or the neighbour has a wall
    /// or a drop on the side facing it. Every side of each cell listed is set, open where
    /// neither cell says otherwise. Cells off the grid are skipped.
    ///
    /// A side on the grid's border is kept too: it bars the steps across it to and from
    /// whatever grid lies beyond (the next chunk of a world, [`crate::search::seam_links`]):
    /// a wall both ways, a drop the way in.
    ///
    /// ```
    /// use bevy_tilemap_nav::grid::{GridPos, NavGrid, Sides};
    ///
    /// let mut grid = NavGrid::new(4, 4).unwrap();
    /// // A ledge along the south side of (1, 2): drop from it to (1, 1), never climb back.
    /// let ledge = |pos: GridPos| {
    ///     let drops = if pos == GridPos::new(1, 2) { Sides::SOUTH } else { Sides::NONE };
    ///     (Sides::NONE, drops)
    /// };
    /// grid.set_sides([GridPos::new(1, 2)], ledge);
    /// assert!(grid.can_step(GridPos::new(1, 2), GridPos::new(1, 1)));
    /// assert!(!grid.can_step(GridPos::new(1, 1), GridPos::new(1, 2)));
    /// ```
    pub fn set_sides(
        &mut self,
        cells: impl IntoIterator<Item = GridPos>,
        sides: impl Fn(GridPos) -> (Sides, Sides),
    ) {
        let directions = if self.neighborhood.is_hex() { 6 } else { 4 };
        for from in cells {
            if !self.in_bounds(from) {
                continue;
            }
            let (walls, _) = sides(from);
            for d in 0..directions {
                let (dx, dy) = self.offset(from, d);
                let (x, y) = (i64::from(from.x) + dx as i64, i64::from(from.y) + dy as i64);
                let back = reverse(self.neighborhood, d);
                let to = match (u32::try_from(x), u32::try_from(y)) {
                    (Ok(x), Ok(y)) if self.in_bounds(GridPos::new(x, y)) => GridPos::new(x, y),
                    _ => {
                        // The border: the way out is this cell's exit, the way in the exit of
                        // the padding cell beyond it.
                        let (our_walls, our_drops) = (walls, sides(from).1);
                        let i = self.index(from);
                        let beyond = (i as isize + dx + dy * self.stride() as isize) as usize;
                        let out = self.bar(i, d, our_walls.has(d));
                        let into = self.bar(beyond, back, our_walls.has(d) || our_drops.has(d));
                        if out | into {
                            self.edges_changed(from, from);
                        }
                        continue;
                    }
                };
                let (their_walls, their_drops) = sides(to);
                let (our_walls, our_drops) = (walls, sides(from).1);
                let forth_barred =
                    our_walls.has(d) || their_walls.has(back) || their_drops.has(back);
                let back_barred = their_walls.has(back) || our_walls.has(d) || our_drops.has(d);
                let edge = match (forth_barred, back_barred) {
                    (false, false) => Edge::Open,
                    (true, true) => Edge::Wall,
                    (false, true) => Edge::OneWay,
                    (true, false) => {
                        // One way, from the neighbour to this cell.
                        let _ = self.set_edge(to, from, Edge::OneWay);
                        continue;
                    }
                };
                // Both cells are on the grid and neighbours: this cannot fail.
                let _ = self.set_edge(from, to, edge);
            }
        }
    }

    /// Takes every wall and one-way edge off the grid.
    pub fn clear_edges(&mut self) {
        if self.has_edges() {
            self.edges = Vec::new();
            self.barred = 0;
            self.components.take();
            self.revision += 1;
            self.forget_changes();
            self.tell_index_all();
        }
    }

    /// True when some edge of the grid is a wall or one-way. Jump point search and path tables
    /// read the edges (path tables refuse one-way edges: [`has_one_way_edges`](Self::has_one_way_edges)).
    pub fn has_edges(&self) -> bool {
        !self.edges.is_empty()
    }

    /// True when some edge of the grid lets steps cross one way only: a step's way back may be
    /// barred where the step is not (path tables refuse such grids; the plugin then keeps
    /// landmarks).
    pub fn has_one_way_edges(&self) -> bool {
        self.has_edges() && self.edges().any(|(_, _, edge)| edge == Edge::OneWay)
    }

    /// Whether the edge between neighbouring cells `from` and `to` lets a step cross from
    /// `from` to `to` (whatever the cells themselves are). False for cells that share no edge.
    pub fn edge_open(&self, from: GridPos, to: GridPos) -> bool {
        self.edge_direction(from, to).is_ok_and(|d| self.exit_open(self.index(from), d))
    }

    /// Every barred crossing: (from, to) for each pair of neighbours whose shared edge a step
    /// from `from` to `to` may not cross (a wall gives two, a one-way edge one). Row by row.
    pub fn barred_crossings(&self) -> impl Iterator<Item = (GridPos, GridPos)> + '_ {
        let directions = if self.neighborhood.is_hex() { 6 } else { 4 };
        let cells = if self.has_edges() { self.len() } else { 0 };
        (0..cells).flat_map(move |k| {
            let from = GridPos::new(k as u32 % self.width, k as u32 / self.width);
            let i = self.index(from);
            (0..directions).filter(move |&d| !self.exit_open(i, d)).filter_map(move |d| {
                let (dx, dy) = self.offset(from, d);
                let (x, y) = (i64::from(from.x) + dx as i64, i64::from(from.y) + dy as i64);
                let to = GridPos::new(u32::try_from(x).ok()?, u32::try_from(y).ok()?);
                self.in_bounds(to).then_some((from, to))
            })
        })
    }

    /// Takes the edges of `other`, a grid of the same size and kind of cells (a grid derived
    /// from it); nothing if they differ in either.
    pub(crate) fn copy_edges(&mut self, other: &NavGrid) {
        let same = (self.width, self.height) == (other.width, other.height)
            && self.neighborhood.is_hex() == other.neighborhood.is_hex();
        if !same || self.edges == other.edges {
            return;
        }
        self.edges.clone_from(&other.edges);
        self.barred = other.barred;
        self.components.take();
        self.revision += 1;
        self.forget_changes();
        self.tell_index_all();
    }

    /// No edge bars the step from `from` to its neighbour `to` (diagonals: no edge touches the
    /// corner passed); true for cells that are not neighbours. (The movement system's check.)
    #[cfg(feature = "bevy")]
    pub(crate) fn crossing_open(&self, from: GridPos, to: GridPos) -> bool {
        !self.in_bounds(from)
            || self.direction(from, to).is_none_or(|d| self.exit_open(self.index(from), d))
    }

    /// Whether a step may cross the side of border cell `cell` in direction `d` (toward beyond
    /// the grid): out of it, or (`into`) into it from beyond ([`set_sides`](Self::set_sides)
    /// keeps both).
    pub(crate) fn side_open(&self, cell: GridPos, d: usize, into: bool) -> bool {
        if self.edges.is_empty() {
            return true;
        }
        let i = self.index(cell);
        if !into {
            return self.exit_open(i, d);
        }
        let (dx, dy) = self.offset(cell, d);
        let beyond = (i as isize + dx + dy * self.stride() as isize) as usize;
        self.exit_open(beyond, reverse(self.neighborhood, d))
    }

    /// Every edge between two cells of the grid that is not open, once: `(a, b, Edge::Wall)`
    /// for a wall, `(from, to, Edge::OneWay)` for a one-way edge crossed from `from` to `to`.
    /// Row by row.
    pub fn edges(&self) -> impl Iterator<Item = (GridPos, GridPos, Edge)> + '_ {
        self.barred_crossings().filter_map(|(a, b)| match self.edge_open(b, a) {
            true => Some((b, a, Edge::OneWay)),
            false => (a < b).then_some((a, b, Edge::Wall)),
        })
    }

    /// The step out of padded cell `i` in direction `d` is not barred by an edge.
    #[inline]
    pub(crate) fn exit_open(&self, i: usize, d: usize) -> bool {
        self.edges.is_empty() || self.edges[i] & (1 << d) == 0
    }

    /// The barred exits of every padded cell (bit `d` for direction `d`); empty when the grid
    /// has no edges.
    #[inline]
    pub(crate) fn padded_exits(&self) -> &[u8] {
        &self.edges
    }

    /// The direction from `from` to `to` across the edge they share: both on the grid and
    /// edge neighbours (straight ones on a square grid), else the error saying which is not.
    fn edge_direction(&self, from: GridPos, to: GridPos) -> Result<usize, GridError> {
        for pos in [from, to] {
            if !self.in_bounds(pos) {
                return Err(GridError::OutOfBounds { pos, width: self.width, height: self.height });
            }
        }
        self.direction(from, to)
            .filter(|&d| self.neighborhood.is_hex() || d < 4)
            .ok_or(GridError::NotNeighbors { from, to })
    }

    /// The direction of the one step from `a` to `b`, if they are neighbours under the grid's
    /// moves (square: `DIRECTIONS`, diagonals only on an 8-way grid; hex: `HexCoords::steps`).
    pub(crate) fn direction(&self, a: GridPos, b: GridPos) -> Option<usize> {
        let (dx, dy) = (i64::from(b.x) - i64::from(a.x), i64::from(b.y) - i64::from(a.y));
        let step = (dx as isize, dy as isize);
        match self.neighborhood {
            Neighborhood::Hex(coords) => coords
                .steps(coords.parity(a.x as usize, a.y as usize))
                .iter()
                .position(|&s| s == step),
            Neighborhood::Four => DIRECTIONS[..4].iter().position(|&s| s == step),
            Neighborhood::Eight => DIRECTIONS.iter().position(|&s| s == step),
        }
    }

    /// The (dx, dy) of direction `d` out of `from`.
    fn offset(&self, from: GridPos, d: usize) -> (isize, isize) {
        match self.neighborhood {
            Neighborhood::Hex(coords) => {
                coords.steps(coords.parity(from.x as usize, from.y as usize))[d]
            }
            _ => DIRECTIONS[d],
        }
    }

    /// Bars (or frees) the exit of padded cell `i` in direction `d`; true if that changed it.
    fn bar(&mut self, i: usize, d: usize, barred: bool) -> bool {
        if self.exit_open(i, d) != barred {
            return false;
        }
        if self.edges.is_empty() {
            self.edges = vec![0; self.costs.len()];
        }
        self.edges[i] ^= 1 << d;
        if barred {
            self.barred += 1;
        } else {
            self.barred -= 1;
        }
        true
    }

    /// Works out again the diagonal exits of every cell round the edge between `a` and `b`
    /// (square grids): barred when an edge touching the corner they pass is barred either way.
    fn work_out_corners(&mut self, a: GridPos, b: GridPos) {
        if self.edges.is_empty() {
            return;
        }
        let stride = self.stride() as isize;
        let walled = |edges: &[u8], p: isize, dx: isize, dy: isize| {
            let q = p + dx + dy * stride;
            let d = straight(dx, dy);
            edges[p as usize] & (1 << d) != 0 || edges[q as usize] & (1 << (d ^ 1)) != 0
        };
        let (x0, x1) = (a.x.min(b.x).saturating_sub(1), (a.x.max(b.x) + 1).min(self.width - 1));
        let (y0, y1) = (a.y.min(b.y).saturating_sub(1), (a.y.max(b.y) + 1).min(self.height - 1));
        for y in y0..=y1 {
            for x in x0..=x1 {
                let i = self.index(GridPos::new(x, y)) as isize;
                for (d, &(dx, dy)) in DIRECTIONS.iter().enumerate().skip(4) {
                    let barred = walled(&self.edges, i, dx, 0)
                        || walled(&self.edges, i, 0, dy)
                        || walled(&self.edges, i + dx, 0, dy)
                        || walled(&self.edges, i + dy * stride, dx, 0);
                    let bit = 1 << d;
                    if barred {
                        self.edges[i as usize] |= bit;
                    } else {
                        self.edges[i as usize] &= !bit;
                    }
                }
            }
        }
    }
}
