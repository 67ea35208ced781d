//! What the integration tests share, declared once by each test binary: a seeded random number
//! generator and an independent model of the movement rules with a plain Dijkstra oracle. No
//! Bevy here (the fuzz targets use it too); the Bevy helpers sit beside it, each declared by the
//! binaries that use it as a module of its own: `tilemap.rs` (tilemaps drawn as text, the
//! plugin's headless app), `editor.rs` (the editors' headless app), `soak.rs` (the soak's
//! checks, with its counting allocator).

#![allow(dead_code)]

use std::collections::BinaryHeap;

use bevy_tilemap_nav::grid::{Cell, CornerRule, GridPos, NavGrid, Neighborhood};
use bevy_tilemap_nav::search::{
    FirstMoveTable, Landmarks, PathError, PathQuery, PathResult, PathTable, Pathfinder,
    SearchOptions,
};

/// SplitMix64: small, seeded, reproducible.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: u32) -> u32 {
        (self.next_u64() % u64::from(n)) as u32
    }

    pub fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent
    }
}

/// Random cells for a width x height grid, `cells[y][x]`: a wall (`None`) with the given
/// chance, else a cost (1 to 6 when `varied_costs`, else 1).
pub fn random_cells(
    rng: &mut Rng,
    width: u32,
    height: u32,
    wall_percent: u32,
    varied_costs: bool,
) -> Vec<Vec<Option<u32>>> {
    (0..height)
        .map(|_| {
            (0..width)
                .map(|_| {
                    if rng.chance(wall_percent) {
                        None
                    } else if varied_costs {
                        Some(1 + rng.below(6))
                    } else {
                        Some(1)
                    }
                })
                .collect()
        })
        .collect()
}

/// The cell a cost of `cells[y][x]` stands for: `None` is a wall.
pub fn cell_of(cost: Option<u32>) -> Cell {
    cost.map_or(Cell::Blocked, |cost| Cell::Passable { cost })
}

/// Sets every cell of `grid` from `cells[y][x]` (as many rows and columns as the grid has).
pub fn set_cells(grid: &mut NavGrid, cells: &[Vec<Option<u32>>]) {
    let all = grid.positions().collect::<Vec<_>>();
    grid.set_all(all.into_iter().map(|p| (p, cell_of(cells[p.y as usize][p.x as usize])))).unwrap();
}

/// A Dijkstra open-list entry: cost first, then what it reaches; `BinaryHeap` pops the
/// cheapest.
#[derive(PartialEq)]
pub struct Cheapest<T>(pub f64, pub T);

impl<T: PartialEq> Eq for Cheapest<T> {}

impl<T: PartialEq> PartialOrd for Cheapest<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl<T: PartialEq> Ord for Cheapest<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other.0.total_cmp(&self.0)
    }
}

/// The movement rules written out again, independently of the crate: `cells[y][x]` is `None`
/// for a wall or `Some(cost)`.
pub struct Model {
    pub width: i64,
    pub height: i64,
    pub cells: Vec<Vec<Option<u32>>>,
    pub eight: bool,
    /// Diagonal allowed when at least one side cell is open (else both must be).
    pub cut_corners: bool,
    /// A hex grid instead (`eight` and `cut_corners` unused): the six steps out of a cell.
    pub hex: Option<HexRule>,
    /// An isometric staggered map in its own tile coordinates instead (8-way, no corner
    /// cutting): see [`STAGGERED_STEPS`].
    pub staggered: bool,
}

/// The eight steps of an isometric staggered map in tile coordinates, as bevy_ecs_tilemap's
/// `StaggeredPos::offset` gives them (E, N, W, S, then NE, NW, SW, SE), and for each diagonal
/// the two straight steps beside it, which must both be open.
pub const STAGGERED_STEPS: [(i64, i64); 8] =
    [(1, -1), (0, 1), (-1, 1), (0, -1), (1, 0), (-1, 2), (-1, 0), (1, -2)];
pub const STAGGERED_SIDES: [(usize, usize); 4] = [(0, 1), (2, 1), (2, 3), (0, 3)];

/// The six neighbours of a hex cell, tabled by hand from the drawings of each numbering (Red
/// Blob Games' "Hexagonal Grids", with rows counted upwards as bevy_ecs_tilemap does), not
/// derived from the crate's axial conversions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum HexRule {
    /// Row and Column: axial coordinates.
    Axial,
    /// RowOdd / RowEven: rows shifted, `odd_shifted` when the odd rows are the shifted ones.
    Rows { odd_shifted: bool },
    /// ColumnOdd / ColumnEven.
    Columns { odd_shifted: bool },
}

/// The rules of the crate's `HexCoords::ALL`, in that order (Row, Column, RowEven, RowOdd,
/// ColumnEven, ColumnOdd).
pub const HEX_RULES: [HexRule; 6] = [
    HexRule::Axial,
    HexRule::Axial,
    HexRule::Rows { odd_shifted: false },
    HexRule::Rows { odd_shifted: true },
    HexRule::Columns { odd_shifted: false },
    HexRule::Columns { odd_shifted: true },
];

impl HexRule {
    pub fn steps(self, x: i64, y: i64) -> [(i64, i64); 6] {
        // A shifted row's neighbours above and below lie at x and x + 1, an unshifted one's
        // at x - 1 and x.
        const UNSHIFTED: [(i64, i64); 6] = [(1, 0), (-1, 0), (-1, 1), (0, 1), (-1, -1), (0, -1)];
        const SHIFTED: [(i64, i64); 6] = [(1, 0), (-1, 0), (0, 1), (1, 1), (0, -1), (1, -1)];
        let transpose = |t: [(i64, i64); 6]| t.map(|(a, b)| (b, a));
        match self {
            HexRule::Axial => [(1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)],
            HexRule::Rows { odd_shifted } => {
                if (y % 2 == 1) == odd_shifted {
                    SHIFTED
                } else {
                    UNSHIFTED
                }
            }
            HexRule::Columns { odd_shifted } => {
                transpose(if (x % 2 == 1) == odd_shifted { SHIFTED } else { UNSHIFTED })
            }
        }
    }
}

impl Model {
    /// A model of `cells` (`cells[y][x]`) under 4-way square rules; set the rule fields on top
    /// (`Model { eight: true, ..Model::of(cells) }`).
    pub fn of(cells: Vec<Vec<Option<u32>>>) -> Self {
        let (width, height) = (cells.first().map_or(0, Vec::len) as i64, cells.len() as i64);
        Self { width, height, cells, eight: false, cut_corners: false, hex: None, staggered: false }
    }

    pub fn cost(&self, x: i64, y: i64) -> Option<u32> {
        if x < 0 || y < 0 || x >= self.width || y >= self.height {
            return None;
        }
        self.cells[y as usize][x as usize]
    }

    /// Cost of stepping from (ax, ay) to (bx, by), or None if that is not a legal step.
    pub fn step_cost(&self, (ax, ay): (i64, i64), (bx, by): (i64, i64)) -> Option<f64> {
        self.cost(ax, ay)?;
        let cost = f64::from(self.cost(bx, by)?);
        let (dx, dy) = (bx - ax, by - ay);
        if let Some(rule) = self.hex {
            return rule.steps(ax, ay).contains(&(dx, dy)).then_some(cost);
        }
        if self.staggered {
            let k = STAGGERED_STEPS.iter().position(|&s| s == (dx, dy))?;
            if k < 4 {
                return Some(cost);
            }
            let (a, b) = STAGGERED_SIDES[k - 4];
            let open = |(sx, sy): (i64, i64)| self.cost(ax + sx, ay + sy).is_some();
            let clear = open(STAGGERED_STEPS[a]) && open(STAGGERED_STEPS[b]);
            return clear.then_some(cost * std::f64::consts::SQRT_2);
        }
        match (dx.abs(), dy.abs()) {
            (1, 0) | (0, 1) => Some(cost),
            (1, 1) if self.eight => {
                let a = self.cost(ax + dx, ay).is_some();
                let b = self.cost(ax, ay + dy).is_some();
                let ok = if self.cut_corners { a || b } else { a && b };
                ok.then_some(cost * std::f64::consts::SQRT_2)
            }
            _ => None,
        }
    }

    /// Plain Dijkstra: the cheapest cost from start to goal, or None if unreachable.
    pub fn dijkstra(&self, start: (i64, i64), goal: (i64, i64)) -> Option<f64> {
        self.dijkstra_avoiding(start, goal, &[])
    }

    /// Dijkstra on these rules with the cells of `avoid` (other than start and goal) turned
    /// into walls, for the corner rule too.
    pub fn dijkstra_avoiding(
        &self,
        start: (i64, i64),
        goal: (i64, i64),
        avoid: &[(i64, i64)],
    ) -> Option<f64> {
        if avoid.iter().any(|&c| c != start && c != goal && self.cost(c.0, c.1).is_some()) {
            let mut walled = Model { cells: self.cells.clone(), ..*self };
            for &(x, y) in avoid {
                if (x, y) != start && (x, y) != goal && walled.cost(x, y).is_some() {
                    walled.cells[y as usize][x as usize] = None;
                }
            }
            return walled.dijkstra_avoiding(start, goal, &[]);
        }
        self.cost(goal.0, goal.1)?;
        let cost = self.settle(start, Some(goal))?
            [goal.1 as usize * self.width as usize + goal.0 as usize];
        cost.is_finite().then_some(cost)
    }

    /// Plain Dijkstra from `start` to every cell: the cheapest cost of each (index
    /// `y * width + x`; infinite where unreachable), or None if the start is blocked.
    pub fn distances(&self, start: (i64, i64)) -> Option<Vec<f64>> {
        self.settle(start, None)
    }

    /// Dijkstra from `start`, stopped once `goal` is settled (with no goal, run to the end):
    /// the costs found, final for the goal and every cell settled before it.
    fn settle(&self, start: (i64, i64), goal: Option<(i64, i64)>) -> Option<Vec<f64>> {
        self.cost(start.0, start.1)?;
        let w = self.width as usize;
        let mut dist = vec![f64::INFINITY; w * self.height as usize];
        let mut heap = BinaryHeap::new();
        dist[start.1 as usize * w + start.0 as usize] = 0.0;
        heap.push(Cheapest(0.0, (start.0, start.1)));
        while let Some(Cheapest(d, (x, y))) = heap.pop() {
            if d > dist[y as usize * w + x as usize] {
                continue;
            }
            if goal == Some((x, y)) {
                break;
            }
            // Every step of the square and hex rules stays within one cell each way; the
            // staggered steps reach two rows.
            let rows = if self.staggered { -2..=2 } else { -1..=1 };
            for dy in rows {
                for dx in -1..=1 {
                    let next = (x + dx, y + dy);
                    if let Some(c) = self.step_cost((x, y), next) {
                        let k = (y + dy) as usize * w + (x + dx) as usize;
                        if d + c < dist[k] {
                            dist[k] = d + c;
                            heap.push(Cheapest(d + c, (x + dx, y + dy)));
                        }
                    }
                }
            }
        }
        Some(dist)
    }

    /// Cost of a path of cells under these rules, or None if any step is illegal.
    pub fn path_cost(&self, cells: &[(i64, i64)]) -> Option<f64> {
        let first = cells.first()?;
        self.cost(first.0, first.1)?;
        cells.windows(2).map(|w| self.step_cost(w[0], w[1])).sum()
    }
}

/// Seals the baked form of precomputed data again after its bytes were changed by hand: its
/// last 8 bytes are the 64-bit FNV-1a checksum of everything before them.
pub fn reseal(bytes: &mut [u8]) {
    let body = bytes.len() - 8;
    let sum = bytes[..body]
        .iter()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    bytes[body..].copy_from_slice(&sum.to_le_bytes());
}

/// The cheapest costs between cells of one small grid, each found once by the default search
/// (itself checked against the Dijkstra oracle elsewhere) and remembered: a test that checks
/// many structures loaded for the same grid asks for the same pairs again and again.
#[derive(Default)]
pub struct Optima {
    finder: Pathfinder,
    /// Per start cell, then per goal cell (row-major indices): `None` until found.
    known: Vec<Option<Option<f64>>>,
}

impl Optima {
    /// The cheapest cost from `start` to `goal` on `grid` (always the same grid, of a few
    /// hundred cells: the table has a slot per pair), `None` if there is no path.
    pub fn get(&mut self, grid: &NavGrid, start: GridPos, goal: GridPos) -> Option<f64> {
        let cells = (grid.width() * grid.height()) as usize;
        if self.known.is_empty() {
            self.known = vec![None; cells * cells];
        }
        let index = |p: GridPos| (p.y * grid.width() + p.x) as usize;
        let finder = &mut self.finder;
        *self.known[index(start) * cells + index(goal)].get_or_insert_with(|| {
            let query = PathQuery::new(start, goal).with_options(SearchOptions::default());
            finder.find(grid, &query).ok().map(|p| p.cost)
        })
    }
}

/// Queries `find` from each start to each goal of `pairs` on `grid`, as a structure loaded from
/// bytes changed by hand must answer: no panic; where it answers, a walk of legal steps from
/// the start to the goal whose cost is what its steps cost, never less than the optimum (with
/// `exact`, the optimum); no answer only where no path exists. `optima` are `grid`'s.
pub fn check_loaded_answers(
    grid: &NavGrid,
    pairs: impl IntoIterator<Item = (GridPos, GridPos)>,
    exact: bool,
    optima: &mut Optima,
    mut find: impl FnMut(&mut Pathfinder, GridPos, GridPos) -> Result<PathResult, PathError>,
) {
    let mut ours = Pathfinder::new();
    for (start, goal) in pairs {
        let answer = find(&mut ours, start, goal);
        let optimum = optima.get(grid, start, goal);
        let Ok(path) = answer else {
            assert!(optimum.is_none(), "{start:?} -> {goal:?}: no answer where a path exists");
            continue;
        };
        assert_eq!(path.cells.first(), Some(&start));
        assert_eq!(path.cells.last(), Some(&goal));
        let mut walked = 0.0;
        for step in path.cells.windows(2) {
            let cost = grid.step_cost(step[0], step[1]);
            walked += cost.unwrap_or_else(|| panic!("illegal step {step:?} in {path:?}"));
        }
        assert!((walked - path.cost).abs() < 1e-6, "{path:?} costs {walked} as walked");
        let optimum = optimum.expect("an answer only where a path exists");
        assert!(path.cost >= optimum - 1e-6, "{path:?} under the optimum {optimum}");
        if exact {
            assert!((path.cost - optimum).abs() < 1e-6, "{path:?}: optimum {optimum}");
        }
    }
}

/// The precomputed structures that bake.
#[derive(Clone, Copy, Debug)]
pub enum Baked {
    PathTable,
    FirstMoves,
    /// Three landmarks.
    Landmarks,
}

impl Baked {
    /// This kind's bake for `grid`, where one can be built.
    pub fn bake(self, grid: &NavGrid) -> Option<Vec<u8>> {
        match self {
            Baked::PathTable => PathTable::build(grid).ok().map(|table| table.to_binary()),
            Baked::FirstMoves => FirstMoveTable::build(grid).ok().map(|table| table.to_binary()),
            Baked::Landmarks => Landmarks::build(grid, 3).ok()?.to_binary(grid).ok(),
        }
    }

    /// Loads `bytes` as this kind for `grid` and, if they load, checks its answers between
    /// `pairs` ([`check_loaded_answers`]; landmarks: at the optimum). Whether they loaded.
    pub fn load_and_check(
        self,
        grid: &NavGrid,
        bytes: &[u8],
        pairs: impl IntoIterator<Item = (GridPos, GridPos)>,
        optima: &mut Optima,
    ) -> bool {
        match self {
            Baked::PathTable => PathTable::from_binary(bytes, grid).map(|table| {
                check_loaded_answers(grid, pairs, false, optima, |p, a, b| {
                    p.find(grid, &PathQuery::new(a, b).with_help(&table))
                })
            }),
            Baked::FirstMoves => FirstMoveTable::from_binary(bytes, grid).map(|table| {
                check_loaded_answers(grid, pairs, false, optima, |p, a, b| {
                    p.find(grid, &PathQuery::new(a, b).with_help(&table))
                })
            }),
            Baked::Landmarks => Landmarks::from_binary(bytes, grid).map(|landmarks| {
                let options = SearchOptions::default();
                check_loaded_answers(grid, pairs, true, optima, |p, a, b| {
                    p.find(grid, &PathQuery::new(a, b).with_options(options).with_help(&landmarks))
                })
            }),
        }
        .is_ok()
    }
}

/// The shape of [`random_grid`]'s grids: sides `min_side` plus up to `spread - 1`, up to
/// `walls - 1` per cent walls, 8-way `eight` per cent of the time and then cutting corners
/// `cut` per cent of the time; costs 1-6 or uniform, one or the other half the time.
pub struct GridShape {
    pub min_side: u32,
    pub spread: u32,
    pub walls: u32,
    pub eight: u32,
    pub cut: u32,
}

/// A random square grid of `shape` and its model.
pub fn random_grid(rng: &mut Rng, shape: &GridShape) -> (NavGrid, Model) {
    let side = |rng: &mut Rng| shape.min_side + rng.below(shape.spread);
    let (width, height) = (side(rng), side(rng));
    let (walls, varied) = (rng.below(shape.walls), rng.chance(50));
    let cells = random_cells(rng, width, height, walls, varied);
    let mut grid = NavGrid::new(width, height).unwrap();
    set_cells(&mut grid, &cells);
    let mut model = Model::of(cells);
    grid.set_neighborhood(Neighborhood::Four);
    if rng.chance(shape.eight) {
        grid.set_neighborhood(Neighborhood::Eight);
        model.eight = true;
        if rng.chance(shape.cut) {
            grid.set_corner_rule(CornerRule::CutCorners);
            model.cut_corners = true;
        }
    }
    (grid, model)
}

/// A random open cell of `grid` (`None` if `tries` picks found none).
pub fn open_cell(rng: &mut Rng, grid: &NavGrid, tries: u32) -> Option<GridPos> {
    (0..tries)
        .map(|_| GridPos::new(rng.below(grid.width()), rng.below(grid.height())))
        .find(|&p| grid.is_passable(p))
}

/// A cell as the model's (x, y).
pub fn xy(p: GridPos) -> (i64, i64) {
    (i64::from(p.x), i64::from(p.y))
}

/// The tactics-sized map of the cooperative shuffle (tests and the `groups` benchmark): 32 x 32
/// text rows, walls in short runs across every fifth row, gaps every sixth column.
pub fn tactics_rows() -> Vec<String> {
    let mut rng = Rng(0x6_0200);
    (0..32)
        .map(|y| {
            (0..32)
                .map(|x| {
                    let wall = y % 5 == 2 && x % 6 != 0 && rng.chance(40);
                    if wall { '#' } else { '.' }
                })
                .collect()
        })
        .collect()
}

/// The cooperative shuffle on `grid`: `units` starts on distinct open cells, their goals the
/// same cells shuffled, and a speed each from 50 to 150.
pub fn shuffle(grid: &NavGrid, units: usize) -> (Vec<GridPos>, Vec<GridPos>, Vec<f32>) {
    let mut rng = Rng(0x6_0201);
    let mut open: Vec<GridPos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
    for i in (1..open.len()).rev() {
        open.swap(i, rng.below(i as u32 + 1) as usize);
    }
    let starts = open[..units].to_vec();
    let speeds: Vec<f32> = (0..units).map(|_| 50.0 + rng.below(100) as f32).collect();
    let mut goals = starts.clone();
    for i in (1..goals.len()).rev() {
        goals.swap(i, rng.below(i as u32 + 1) as usize);
    }
    (starts, goals, speeds)
}

/// Fewest steps from `a` to `b` on `grid`, alone (breadth first).
pub fn steps_alone(grid: &NavGrid, a: GridPos, b: GridPos) -> usize {
    let mut seen = std::collections::HashMap::from([(a, 0usize)]);
    let mut queue = std::collections::VecDeque::from([a]);
    while let Some(p) = queue.pop_front() {
        if p == b {
            return seen[&p];
        }
        let d = seen[&p];
        for (n, _) in grid.neighbors(p) {
            if grid.can_step(p, n) && !seen.contains_key(&n) {
                seen.insert(n, d + 1);
                queue.push_back(n);
            }
        }
    }
    panic!("no way from {a:?} to {b:?}");
}
