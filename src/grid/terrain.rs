//! Each cell's terrain class, kept beside its cost: what a [`NavProfile`](super::NavProfile)'s
//! rules read to price or bar a cell for one kind of agent.

use super::{GridError, GridPos, NavGrid, Terrain};

impl NavGrid {
    /// The terrain class of `pos` ([`Terrain::DEFAULT`] unless one was set), or `None` outside
    /// the grid.
    pub fn terrain(&self, pos: GridPos) -> Option<Terrain> {
        self.in_bounds(pos)
            .then(|| Terrain(self.terrain.get(self.index(pos)).copied().unwrap_or(0)))
    }

    /// Sets the terrain class of one cell; returns the one it replaced. Its cost and wall are
    /// unchanged: agents without a [`NavProfile`](super::NavProfile) see no difference. A change is
    /// listed by [`changes_since`](Self::changes_since) (with the cell as it is), so that the grids
    /// derived for profiles follow it.
    ///
    /// ```
    /// use bevy_tilemap_nav::grid::{GridPos, NavGrid, Terrain};
    ///
    /// const WATER: Terrain = Terrain(1);
    /// let mut grid = NavGrid::new(4, 4).unwrap();
    /// grid.set_terrain(GridPos::new(1, 2), WATER).unwrap();
    /// assert_eq!(grid.terrain(GridPos::new(1, 2)), Some(WATER));
    /// assert_eq!(grid.terrain(GridPos::new(0, 0)), Some(Terrain::DEFAULT));
    /// ```
    pub fn set_terrain(&mut self, pos: GridPos, terrain: Terrain) -> Result<Terrain, GridError> {
        if !self.in_bounds(pos) {
            return Err(GridError::OutOfBounds { pos, width: self.width, height: self.height });
        }
        Ok(self.write_terrain(self.index(pos), terrain))
    }

    /// Sets the terrain class of many cells (see [`set_terrain`](Self::set_terrain)). On an
    /// error the cells before it stay set; the rest are not.
    pub fn set_all_terrain(
        &mut self,
        cells: impl IntoIterator<Item = (GridPos, Terrain)>,
    ) -> Result<(), GridError> {
        for (pos, terrain) in cells {
            if !self.in_bounds(pos) {
                return Err(GridError::OutOfBounds { pos, width: self.width, height: self.height });
            }
            self.write_terrain(self.index(pos), terrain);
        }
        Ok(())
    }

    /// Writes one cell's terrain class; returns the one it replaced.
    fn write_terrain(&mut self, i: usize, terrain: Terrain) -> Terrain {
        let old = Terrain(self.terrain.get(i).copied().unwrap_or(0));
        if old == terrain {
            return old;
        }
        if self.terrain.is_empty() {
            self.terrain = vec![0; self.costs.len()];
        }
        self.terrain[i] = terrain.0;
        self.note_change(i, self.costs[i]);
        old
    }

    /// Padded terrain classes, indexed like the costs; empty when every cell is
    /// [`Terrain::DEFAULT`] (and so for two grids with the same classes).
    pub(super) fn terrain_padded(&self) -> &[u8] {
        if self.terrain.iter().all(|&t| t == 0) { &[] } else { &self.terrain }
    }

    /// The terrain class of padded cell `i`.
    #[inline]
    pub(crate) fn terrain_at(&self, i: usize) -> u8 {
        self.terrain.get(i).copied().unwrap_or(0)
    }
}
