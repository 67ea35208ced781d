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

/// The cells a body `size` tiles across covers when its lowest corner stands on `corner`
/// (cells past the grid's `u32` range are left out; size 0 is read as 1).
#[cfg_attr(not(feature = "bevy"), allow(dead_code))]
pub(crate) fn footprint(corner: GridPos, size: u32) -> impl Iterator<Item = GridPos> {
    let n = size.max(1);
    (0..n).flat_map(move |dy| {
        (0..n).filter_map(move |dx| {
            Some(GridPos::new(corner.x.checked_add(dx)?, corner.y.checked_add(dy)?))
        })
    })
}

/// The corners from which a body `size` tiles across covers one of `cells`: each cell's
/// `size` x `size` block below and left of it (those within the grid's range); sorted, each once.
#[cfg_attr(not(feature = "bevy"), allow(dead_code))]
pub(crate) fn corners_covering(cells: &[GridPos], size: u32) -> Vec<GridPos> {
    let back = size.max(1) - 1;
    let mut corners: Vec<GridPos> = cells
        .iter()
        .flat_map(|c| {
            // (Near the grid's edge the block is cut short: only corners that cover `c`.)
            let from = GridPos::new(c.x.saturating_sub(back), c.y.saturating_sub(back));
            footprint(from, size).filter(move |&corner| covers(corner, size, *c))
        })
        .collect();
    corners.sort_unstable();
    corners.dedup();
    corners
}

/// Whether a body `size` tiles across with its lowest corner on `corner` covers `cell`.
#[cfg_attr(not(feature = "bevy"), allow(dead_code))]
pub(crate) fn covers(corner: GridPos, size: u32, cell: GridPos) -> bool {
    let n = size.max(1);
    (corner.x..corner.x.saturating_add(n)).contains(&cell.x)
        && (corner.y..corner.y.saturating_add(n)).contains(&cell.y)
}

/// Whether two bodies (corner and size each) cover a cell in common.
#[cfg_attr(not(feature = "bevy"), allow(dead_code))]
pub(crate) fn overlaps((a, m): (GridPos, u32), (b, n): (GridPos, u32)) -> bool {
    let (m, n) = (m.max(1), n.max(1));
    a.x < b.x.saturating_add(n)
        && b.x < a.x.saturating_add(m)
        && a.y < b.y.saturating_add(n)
        && b.y < a.y.saturating_add(m)
}

impl AgentGrid {
    /// The grid `base` as an agent of `profile` and `size` sees it. Errors: a size of 0, above
    /// [`MAX_AGENT_SIZE`], or above 1 on a hex grid ([`GridError::UnsupportedSize`]); memory
    /// refused ([`GridError::TooLarge`]).
    pub fn new(base: &NavGrid, profile: NavProfile, size: u32) -> Result<Self, GridError> {
        let mut agent = Self::empty(base, profile, size)?;
        agent.rebuild(base)?;
        Ok(agent)
    }

    /// Whether an agent of `size` can be served on `base` (the size error [`new`](Self::new)
    /// gives), without building anything.
    pub fn check_size(base: &NavGrid, size: u32) -> Result<(), GridError> {
        if size == 0 || size > MAX_AGENT_SIZE || (size > 1 && base.neighborhood().is_hex()) {
            return Err(GridError::UnsupportedSize { size });
        }
        Ok(())
    }

    /// Every cell blocked, nothing computed: to be built.
    fn empty(base: &NavGrid, profile: NavProfile, size: u32) -> Result<Self, GridError> {
        Self::check_size(base, size)?;
        let rules = Box::new(profile.table());
        let grid = NavGrid::filled(base.width(), base.height(), Cell::Blocked)?
            .with_preparation(base.preparation());
        Ok(Self { profile, rules, size, grid, clearance: Vec::new(), seen: base.stamp() })
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
        match self.changes_to_follow(base, true) {
            Some(changed) => {
                self.follow(base, &changed);
                self.seen = base.stamp();
                Ok(())
            }
            None => self.rebuild(base),
        }
    }

    /// The base cells changed since this grid last followed it (sorted, each once), when they
    /// can be followed change by change: the same shape and rules, the changes known (and, if
    /// `few`, fewer than one for every 49 cells: else building afresh costs less). `None`:
    /// every cell is to be looked at again.
    fn changes_to_follow(&self, base: &NavGrid, few: bool) -> Option<Vec<GridPos>> {
        let same_shape = self.same_shape(base);
        let cells = (base.width() * base.height()) as usize;
        let mut changed: Vec<GridPos> =
            base.changes_since(self.seen).filter(|_| same_shape)?.map(|(pos, _)| pos).collect();
        if few && changed.len() * (MAX_AGENT_SIZE * MAX_AGENT_SIZE) as usize > cells {
            return None;
        }
        changed.sort_unstable();
        changed.dedup();
        Some(changed)
    }

    /// Whether this grid has `base`'s size, neighbourhood and (for its size) corner rule.
    fn same_shape(&self, base: &NavGrid) -> bool {
        (base.width(), base.height()) == (self.grid.width(), self.grid.height())
            && base.neighborhood() == self.grid.neighborhood()
            && self.corner_rule(base) == self.grid.corner_rule()
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
        self.take_shape(base)?;
        let (w, h) = (base.width(), base.height());
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

    /// Takes `base`'s size, neighbourhood and corner rule, every clearance 0 (to be computed).
    fn take_shape(&mut self, base: &NavGrid) -> Result<(), GridError> {
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
        // Zeroed by the allocator (pages given as first touched), not written now.
        self.clearance = vec![0; (w * h) as usize];
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

/// An [`AgentGrid`] built a slice at a time, so that a large map's first request by a new kind
/// of agent does not stall a frame: [`step`](Self::step) it with a budget of work each frame
/// until it gives the grid. A unit of work is about a cell's clearance; a derived cell costs
/// one more unit per cell under the body.
///
/// The base grid may change between steps: at the next step the cells computed already are
/// brought in step, change by change, as [`AgentGrid::update`] does (the work counted), so a
/// grid that changes every frame still gets built. A change of size or rules, or more changes
/// in one step than the base grid keeps ([`JOURNAL_LEN`](crate::grid::JOURNAL_LEN)), begins the
/// build again.
///
/// ```
/// use bevy_tilemap_nav::grid::{Cell, GridPos, NavGrid, NavProfile};
/// use bevy_tilemap_nav::search::{AgentGrid, AgentGridBuild};
///
/// let mut base = NavGrid::new(64, 64).unwrap();
/// base.set(GridPos::new(10, 10), Cell::Blocked).unwrap();
/// let mut build = AgentGridBuild::new(&base, NavProfile::default(), 2).unwrap();
/// let mut frames = 1;
/// while !build.step(&base, 1_000) {
///     frames += 1;
/// }
/// assert!(frames > 1);
/// let giant: AgentGrid = build.into_grid().unwrap();
/// assert!(giant.is_current(&base));
/// assert_eq!(giant.clearance(GridPos::new(9, 9)), Some(1));
/// ```
#[derive(Clone, Debug)]
pub struct AgentGridBuild {
    /// The grid being built; its `seen` is the base grid as of the last step, whose changes
    /// since are followed at the next.
    agent: AgentGrid,
    /// Cells done: clearances first (from the last cell back), then derived cells.
    done: usize,
    /// Work spent, all steps together.
    work: u64,
    /// Times it began again.
    restarts: u32,
}

impl AgentGridBuild {
    /// A build of the grid `base` as an agent of `profile` and `size` sees it; errors as
    /// [`AgentGrid::new`]. Allocates the grid; computes nothing yet.
    pub fn new(base: &NavGrid, profile: NavProfile, size: u32) -> Result<Self, GridError> {
        let mut agent = AgentGrid::empty(base, profile, size)?;
        agent.take_shape(base)?;
        Ok(Self { agent, done: 0, work: 0, restarts: 0 })
    }

    /// Builds on with about `work` units. True once the grid is built and in step with `base`
    /// ([`into_grid`](Self::into_grid) then gives it; stepping it again does nothing until
    /// `base` changes).
    pub fn step(&mut self, base: &NavGrid, work: u64) -> bool {
        if self.is_built(base) {
            return true;
        }
        if !self.agent.same_shape(base) {
            self.begin_again(base);
            if !self.agent.same_shape(base) {
                return false; // the new size's memory refused: it tries again next step
            }
        }
        let (w, h) = (base.width() as usize, base.height() as usize);
        let n = w * h;
        let k = i64::from(self.agent.size);
        let mut left = work.max(1);
        // The base's changes since the last step, followed at once: the cells computed already
        // are brought in step; those not computed yet are computed afresh anyway.
        if !self.agent.is_current(base) {
            match self.agent.changes_to_follow(base, false) {
                Some(changed) => {
                    self.agent.follow(base, &changed);
                    let reach = u64::from(MAX_AGENT_SIZE * MAX_AGENT_SIZE);
                    left = left.saturating_sub(changed.len() as u64 * reach);
                    self.agent.seen = base.stamp();
                }
                None => self.begin_again(base),
            }
        }
        let mut cells: Vec<(GridPos, Cell)> = Vec::new();
        while self.done < 2 * n && left > 0 {
            if self.done < n {
                let i = n - 1 - self.done;
                self.agent.redo_clearance(base, (i % w) as i64, (i / w) as i64);
                left = left.saturating_sub(1);
            } else {
                let i = self.done - n;
                let (x, y) = ((i % w) as u32, (i / w) as u32);
                let (pos, cell) =
                    (GridPos::new(x, y), self.agent.derived(base, x.into(), y.into()));
                if self.agent.grid.get(pos) != Some(cell) {
                    cells.push((pos, cell));
                }
                left = left.saturating_sub(1 + (k * k) as u64);
            }
            self.done += 1;
        }
        self.work += work.max(1) - left;
        // Every derived cell is valid and on the grid.
        let _ = self.agent.grid.set_all(cells);
        if self.done < 2 * n {
            return false;
        }
        if self.agent.size == 1 {
            self.agent.grid.copy_edges(base);
        }
        true
    }

    /// Whether the grid is built and in step with `base`.
    pub fn is_built(&self, base: &NavGrid) -> bool {
        let n = base.width() as usize * base.height() as usize;
        self.done >= 2 * n && self.agent.is_current(base)
    }

    /// The grid, once built (else `None`). Bring it in step with the base grid's later changes
    /// with [`AgentGrid::update`].
    pub fn into_grid(self) -> Option<AgentGrid> {
        let n = self.agent.grid.width() as usize * self.agent.grid.height() as usize;
        (self.done >= 2 * n).then_some(self.agent)
    }

    /// Work spent so far, all steps together.
    pub fn work(&self) -> u64 {
        self.work
    }

    /// Times the build began again (the base grid changed shape, rules, or too much).
    pub fn restarts(&self) -> u32 {
        self.restarts
    }

    /// Every clearance and cell to be computed again (the cells already set are overwritten
    /// where they differ). A resized grid whose memory is refused keeps its old shape and
    /// begins again at each step.
    fn begin_again(&mut self, base: &NavGrid) {
        self.restarts += 1;
        self.done = 0;
        self.agent.seen = base.stamp();
        let _ = self.agent.take_shape(base);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::{Edge, Terrain};
    use crate::test_rng::TestRng;

    /// A random grid: walls, terrains 0 to 2 at costs 1 to 4, and (when `edges`) walls between
    /// cells.
    fn random_grid(rng: &mut TestRng, edges: bool) -> NavGrid {
        let (w, h) = (1 + rng.below(24), 1 + rng.below(24));
        let mut grid = NavGrid::new(w, h).unwrap();
        for _ in 0..rng.below(w * h) {
            let pos = GridPos::new(rng.below(w), rng.below(h));
            let cell = match rng.below(3) {
                0 => Cell::Blocked,
                _ => Cell::Passable { cost: 1 + rng.below(4) },
            };
            grid.set(pos, cell).unwrap();
            grid.set_terrain(pos, Terrain(rng.below(3) as u8)).unwrap();
        }
        for _ in 0..if edges { rng.below(w * h / 2 + 1) } else { 0 } {
            let a = GridPos::new(rng.below(w), rng.below(h));
            let b = grid.neighbors(a).map(|(b, _)| b).nth(rng.below(3) as usize);
            if let Some(b) = b {
                let _ = grid.set_edge(a, b, Edge::Wall);
            }
        }
        grid
    }

    /// The same cells and clearances.
    fn assert_same(got: &AgentGrid, want: &AgentGrid, what: &str) {
        for pos in want.grid().positions() {
            assert_eq!(got.grid().get(pos), want.grid().get(pos), "{what}: cell {pos}");
            assert_eq!(got.clearance(pos), want.clearance(pos), "{what}: clearance of {pos}");
        }
    }

    /// Built in slices of any size, with the base grid changed between slices or not, the grid
    /// is the one built whole from the base grid as it ends: every cell and clearance, for
    /// sizes 1 to 3, profiles that block, cost or open a terrain, and walls between cells.
    #[test]
    fn built_in_slices_equals_built_whole() {
        let mut rng = TestRng(52);
        let rules = [TerrainRule::AsGrid, TerrainRule::Blocked, TerrainRule::Cost(7)];
        for round in 0..90 {
            let mut base = random_grid(&mut rng, round % 3 == 2);
            let profile = NavProfile::new().with(Terrain(1), rules[round % 3]);
            let size = 1 + (round as u32 / 3) % 3;
            for slice in [1, 13, 200, u64::MAX] {
                let mut build = AgentGridBuild::new(&base, profile.clone(), size).unwrap();
                let changing = round % 2 == 1;
                let mut steps = 0;
                while !build.step(&base, slice) {
                    steps += 1;
                    assert!(steps < 100_000, "a build that never ends");
                    if changing && rng.below(4) == 0 {
                        let pos = GridPos::new(rng.below(base.width()), rng.below(base.height()));
                        let cell = if rng.below(2) == 0 { Cell::Blocked } else { Cell::GROUND };
                        base.set(pos, cell).unwrap();
                    }
                }
                let got = build.into_grid().unwrap();
                assert!(got.is_current(&base));
                let want = AgentGrid::new(&base, profile.clone(), size).unwrap();
                assert_same(&got, &want, &format!("round {round}, size {size}, slices of {slice}"));
            }
        }
    }

    /// A build whose base grid is resized meanwhile begins again and gives the new size.
    #[test]
    fn a_base_resized_mid_build_begins_it_again() {
        let mut base = NavGrid::new(30, 30).unwrap();
        let mut build = AgentGridBuild::new(&base, NavProfile::default(), 2).unwrap();
        assert!(!build.step(&base, 100));
        base = NavGrid::new(12, 40).unwrap();
        base.set(GridPos::new(3, 3), Cell::Blocked).unwrap();
        while !build.step(&base, 100) {}
        assert_eq!(build.restarts(), 1);
        let got = build.into_grid().unwrap();
        let want = AgentGrid::new(&base, NavProfile::default(), 2).unwrap();
        assert_eq!((got.grid().width(), got.grid().height()), (12, 40));
        assert_same(&got, &want, "resized");
    }

    /// Against brute force over small random cells and sizes (near the edge included): a
    /// corner is listed exactly when its body covers one of the cells, and two bodies overlap
    /// exactly when their footprints share a cell.
    #[test]
    fn corners_covering_and_overlaps_match_footprints() {
        let mut rng = TestRng(7);
        for _ in 0..300 {
            let size = 1 + rng.below(4);
            let cells: Vec<GridPos> =
                (0..1 + rng.below(3)).map(|_| GridPos::new(rng.below(6), rng.below(6))).collect();
            let want: Vec<GridPos> = (0..8)
                .flat_map(|y| (0..8).map(move |x| GridPos::new(x, y)))
                .filter(|&c| footprint(c, size).any(|f| cells.contains(&f)))
                .collect();
            let mut got = corners_covering(&cells, size);
            got.sort_by_key(|c| (c.y, c.x));
            assert_eq!(got, want, "{cells:?} size {size}");
            let (a, b) = (
                GridPos::new(rng.below(6), rng.below(6)),
                GridPos::new(rng.below(6), rng.below(6)),
            );
            let n = 1 + rng.below(3);
            let shared = footprint(a, size).any(|c| footprint(b, n).any(|d| d == c));
            assert_eq!(overlaps((a, size), (b, n)), shared, "{a} {size} {b} {n}");
            assert!(footprint(a, size).all(|c| covers(a, size, c)));
        }
    }
}
