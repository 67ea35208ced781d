//! The grid as one kind of agent sees it: its [`NavProfile`] applied to every cell, and, for an
//! agent larger than one tile, only the places where its whole body fits. Kept in step with
//! the grid it is made from, change by change.

use crate::grid::{
    Cell, CornerRule, GridError, GridPos, GridStamp, MAX_AGENT_SIZE, NavGrid, NavProfile,
    TerrainRule, apply_cost,
};

/// A [`NavGrid`] derived from another for one kind of agent: a [`NavProfile`] (how it sees
/// each terrain class) and a size (it is `size` x `size` tiles). A cell of the derived grid is
/// where the agent's lowest corner (least x and y) may stand: open when every cell under its
/// body is open for its profile, at the highest cost among them. Search it as any grid: paths
/// on it are the cheapest for that agent, jump point search runs on it when it is uniform for
/// the agent, and its component labels answer "unreachable" at once.
///
/// Each cell also has a clearance: the side of the largest square of cells open for the
/// profile with that cell as its lowest corner (capped at [`MAX_AGENT_SIZE`]). After the base
/// grid changes, [`update`](Self::update) redoes only the clearances and cells near the
/// changes.
///
/// An agent larger than one tile never cuts a corner (its body would sweep the corner's
/// cell), whatever the base grid's [`CornerRule`]. Hex grids take size 1 only.
///
/// ```
/// use bevy_tilemap_nav::grid::{Cell, GridPos, NavGrid, NavProfile};
/// use bevy_tilemap_nav::search::{AgentGrid, PathQuery, Pathfinder};
///
/// // A wall with a one-tile door at (4, 2) and a two-tile gap at y = 6, 7.
/// let mut grid = NavGrid::new(9, 9).unwrap();
/// grid.fill_rect(GridPos::new(4, 0), GridPos::new(4, 8), Cell::Blocked).unwrap();
/// grid.set(GridPos::new(4, 2), Cell::GROUND).unwrap();
/// grid.fill_rect(GridPos::new(4, 6), GridPos::new(4, 7), Cell::GROUND).unwrap();
/// let giant = AgentGrid::new(&grid, NavProfile::default(), 2).unwrap();
/// assert_eq!(giant.clearance(GridPos::new(4, 2)), Some(1));
/// let path = Pathfinder::new()
///     .find(giant.grid(), &PathQuery::new(GridPos::new(0, 0), GridPos::new(7, 0)))
///     .unwrap();
/// assert!(path.cells.contains(&GridPos::new(4, 6))); // through the wide gap
/// ```
#[derive(Clone, Debug)]
pub struct AgentGrid {
    profile: NavProfile,
    rules: Box<[TerrainRule; 256]>,
    size: u32,
    grid: NavGrid,
    /// Clearance of each cell, row-major (`y * width + x`).
    clearance: Vec<u8>,
    /// The base grid as last followed.
    seen: GridStamp,
}

impl AgentGrid {
    /// The grid `base` as an agent of `profile` and `size` sees it. Errors: a size of 0, above
    /// [`MAX_AGENT_SIZE`], or above 1 on a hex grid ([`GridError::UnsupportedSize`]); memory
    /// refused ([`GridError::TooLarge`]).
    pub fn new(base: &NavGrid, profile: NavProfile, size: u32) -> Result<Self, GridError> {
        if size == 0 || size > MAX_AGENT_SIZE || (size > 1 && base.neighborhood().is_hex()) {
            return Err(GridError::UnsupportedSize { size });
        }
        let rules = Box::new(profile.table());
        let grid = NavGrid::filled(base.width(), base.height(), Cell::Blocked)?
            .with_preparation(base.preparation());
        let mut agent =
            Self { profile, rules, size, grid, clearance: Vec::new(), seen: base.stamp() };
        agent.rebuild(base)?;
        Ok(agent)
    }

    /// The derived grid: search it for this agent's paths.
    pub fn grid(&self) -> &NavGrid {
        &self.grid
    }

    /// The profile it follows.
    pub fn profile(&self) -> &NavProfile {
        &self.profile
    }

    /// The agent's size in cells along a side.
    pub fn size(&self) -> u32 {
        self.size
    }

    /// The clearance of `pos` (0 where the profile blocks it), or `None` outside the grid.
    pub fn clearance(&self, pos: GridPos) -> Option<u32> {
        self.grid
            .in_bounds(pos)
            .then(|| u32::from(self.clearance[(pos.y * self.grid.width() + pos.x) as usize]))
    }

    /// True when this grid follows `base` as it is now.
    pub fn is_current(&self, base: &NavGrid) -> bool {
        self.seen == base.stamp()
    }

    /// Brings the derived grid in step with `base` after its cells changed: only the
    /// clearances and cells within [`MAX_AGENT_SIZE`] of a change are looked at again (all of
    /// them when `base` cannot list its changes: resized, rules changed, too many changes).
    /// The derived grid's own [`changes_since`](NavGrid::changes_since) then lists what
    /// changed for the agent. Errors only when a resized grid's memory is refused.
    pub fn update(&mut self, base: &NavGrid) -> Result<(), GridError> {
        if self.is_current(base) {
            return Ok(());
        }
        let same_shape = (base.width(), base.height()) == (self.grid.width(), self.grid.height())
            && base.neighborhood() == self.grid.neighborhood()
            && self.corner_rule(base) == self.grid.corner_rule();
        let cells = (base.width() * base.height()) as usize;
        let changed: Option<Vec<GridPos>> = base
            .changes_since(self.seen)
            .filter(|_| same_shape)
            .map(|changes| changes.map(|(pos, _)| pos).collect());
        match changed {
            Some(mut changed)
                if changed.len() * (MAX_AGENT_SIZE * MAX_AGENT_SIZE) as usize <= cells =>
            {
                changed.sort_unstable();
                changed.dedup();
                self.follow(base, &changed);
                self.seen = base.stamp();
                Ok(())
            }
            _ => self.rebuild(base),
        }
    }

    fn corner_rule(&self, base: &NavGrid) -> CornerRule {
        if self.size > 1 { CornerRule::NoCornerCutting } else { base.corner_rule() }
    }

    /// The cost of base cell (`x`, `y`) for the profile; 0 = blocked or outside the grid.
    #[inline]
    fn profiled(&self, base: &NavGrid, x: i64, y: i64) -> u32 {
        if x < 0 || y < 0 || x >= i64::from(base.width()) || y >= i64::from(base.height()) {
            return 0;
        }
        let i = base.index(GridPos::new(x as u32, y as u32));
        apply_cost(self.rules[usize::from(base.terrain_at(i))], base.padded_costs()[i])
    }

    #[inline]
    fn clearance_at(&self, x: i64, y: i64) -> u8 {
        let (w, h) = (i64::from(self.grid.width()), i64::from(self.grid.height()));
        if x >= w || y >= h { 0 } else { self.clearance[(y * w + x) as usize] }
    }

    /// Recomputes the clearance of (`x`, `y`) from its three neighbours towards higher x and y,
    /// which must be current.
    fn redo_clearance(&mut self, base: &NavGrid, x: i64, y: i64) {
        let value = if self.profiled(base, x, y) == 0 {
            0
        } else {
            let around = self
                .clearance_at(x + 1, y)
                .min(self.clearance_at(x, y + 1))
                .min(self.clearance_at(x + 1, y + 1));
            (around + 1).min(MAX_AGENT_SIZE as u8)
        };
        let w = i64::from(self.grid.width());
        self.clearance[(y * w + x) as usize] = value;
    }

    /// The derived cell whose lowest corner is (`x`, `y`): open when the body fits, at the
    /// highest cost under it.
    fn derived(&self, base: &NavGrid, x: i64, y: i64) -> Cell {
        if u32::from(self.clearance_at(x, y)) < self.size {
            return Cell::Blocked;
        }
        let k = i64::from(self.size);
        // A body larger than a tile never straddles a wall or one-way edge: it could neither
        // stand there nor cross it.
        if k > 1 && base.has_edges() && straddles_edge(base, x, y, k) {
            return Cell::Blocked;
        }
        let mut cost = 0;
        for dy in 0..k {
            for dx in 0..k {
                cost = cost.max(self.profiled(base, x + dx, y + dy));
            }
        }
        Cell::Passable { cost }
    }

    /// Every clearance and cell computed afresh.
    fn rebuild(&mut self, base: &NavGrid) -> Result<(), GridError> {
        let (w, h) = (base.width(), base.height());
        if (self.grid.width(), self.grid.height()) != (w, h) {
            self.grid = NavGrid::filled(w, h, Cell::Blocked)?.with_preparation(base.preparation());
        }
        if self.grid.neighborhood() != base.neighborhood() {
            self.grid.set_neighborhood(base.neighborhood());
        }
        let corner_rule = self.corner_rule(base);
        if self.grid.corner_rule() != corner_rule {
            self.grid.set_corner_rule(corner_rule);
        }
        self.clearance.clear();
        self.clearance.resize((w * h) as usize, 0);
        for y in (0..i64::from(h)).rev() {
            for x in (0..i64::from(w)).rev() {
                self.redo_clearance(base, x, y);
            }
        }
        let cells: Vec<(GridPos, Cell)> = (0..h)
            .flat_map(|y| (0..w).map(move |x| GridPos::new(x, y)))
            .map(|pos| (pos, self.derived(base, i64::from(pos.x), i64::from(pos.y))))
            .filter(|&(pos, cell)| self.grid.get(pos) != Some(cell))
            .collect();
        // Every derived cell is valid and on the grid.
        let _ = self.grid.set_all(cells);
        // An agent of one tile meets the walls between cells as they are.
        if self.size == 1 {
            self.grid.copy_edges(base);
        }
        self.seen = base.stamp();
        Ok(())
    }

    /// Follows the base cells `changed` (sorted, each once).
    fn follow(&mut self, base: &NavGrid, changed: &[GridPos]) {
        // A cell's clearance depends on the cells up to MAX_AGENT_SIZE - 1 above and to the
        // right of it: redo every clearance within that reach of a change, highest y (then x)
        // first, so that each reads current neighbours.
        let reach = i64::from(MAX_AGENT_SIZE) - 1;
        let mut anchors: Vec<(i64, i64)> = Vec::new();
        for pos in changed {
            let (x, y) = (i64::from(pos.x), i64::from(pos.y));
            for ay in (y - reach).max(0)..=y {
                for ax in (x - reach).max(0)..=x {
                    anchors.push((ay, ax));
                }
            }
        }
        anchors.sort_unstable_by(|a, b| b.cmp(a));
        anchors.dedup();
        for &(y, x) in &anchors {
            self.redo_clearance(base, x, y);
        }
        // A derived cell covers the base cells up to size - 1 above and to the right of it.
        let k = i64::from(self.size) - 1;
        let mut cells: Vec<(GridPos, Cell)> = Vec::new();
        for pos in changed {
            let (x, y) = (i64::from(pos.x), i64::from(pos.y));
            for ay in (y - k).max(0)..=y {
                for ax in (x - k).max(0)..=x {
                    let at = GridPos::new(ax as u32, ay as u32);
                    cells.push((at, self.derived(base, ax, ay)));
                }
            }
        }
        cells.sort_unstable_by_key(|&(pos, _)| pos);
        cells.dedup_by_key(|&mut (pos, _)| pos);
        cells.retain(|&(pos, cell)| self.grid.get(pos) != Some(cell));
        // Every derived cell is valid and on the grid.
        let _ = self.grid.set_all(cells);
    }
}

/// Some edge between two cells of the `k` x `k` body with lowest corner (`x`, `y`) is barred
/// either way.
fn straddles_edge(base: &NavGrid, x: i64, y: i64, k: i64) -> bool {
    let cell = |x: i64, y: i64| GridPos::new(x as u32, y as u32);
    let (w, h) = (i64::from(base.width()), i64::from(base.height()));
    let barred = |a: GridPos, b: GridPos| !base.edge_open(a, b) || !base.edge_open(b, a);
    (y..(y + k).min(h)).any(|by| {
        (x..(x + k).min(w)).any(|bx| {
            (bx + 1 < (x + k).min(w) && barred(cell(bx, by), cell(bx + 1, by)))
                || (by + 1 < (y + k).min(h) && barred(cell(bx, by), cell(bx, by + 1)))
        })
    })
}
