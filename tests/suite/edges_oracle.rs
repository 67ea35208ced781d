//! Walls between cells and one-way edges against an independent model: random grids (4-way,
//! 8-way under both corner rules, hex in every numbering) with random walls and one-way edges,
//! asked of every search the crate has. The model keeps the barred crossings as a set of
//! (from, to) pairs and applies the rules as the guide states them: a step may not cross a
//! barred edge that way, and no diagonal step passes a corner that a barred edge (either way)
//! touches.

use std::collections::{BinaryHeap, HashSet};

use crate::support::{HEX_RULES, Model, Rng, random_cells, set_cells, xy};
use bevy_tilemap_nav::grid::line::segment_cells;
use bevy_tilemap_nav::grid::{
    Cell, CornerRule, Edge, GridError, GridPos, HexCoords, NavGrid, NavProfile, Neighborhood, Sides,
};
use bevy_tilemap_nav::io::baked::{self, BakeError};
use bevy_tilemap_nav::path::{reachable, smooth_path};
use bevy_tilemap_nav::search::{
    AgentGrid, Algorithm, DistanceField, FirstMoveTable, Landmarks, PathError, PathQuery,
    PathTable, PathTableError, Pathfinder, SearchOptions, jps_applies,
};

type Xy = (i64, i64);

/// The model: the cell rules of `crate::support::Model` and the set of barred crossings.
struct EdgeModel {
    cells: Model,
    barred: HashSet<(Xy, Xy)>,
}

impl EdgeModel {
    /// An edge touching the corner between `a` and the diagonal neighbour `c` is barred.
    fn corner_walled(&self, a: Xy, c: Xy) -> bool {
        let (dx, dy) = (c.0 - a.0, c.1 - a.1);
        let side_x = (a.0 + dx, a.1);
        let side_y = (a.0, a.1 + dy);
        [(a, side_x), (a, side_y), (side_x, c), (side_y, c)]
            .iter()
            .any(|&(p, q)| self.barred.contains(&(p, q)) || self.barred.contains(&(q, p)))
    }

    fn step_cost(&self, a: Xy, b: Xy) -> Option<f64> {
        let cost = self.cells.step_cost(a, b)?;
        if self.barred.contains(&(a, b)) {
            return None;
        }
        let diagonal = self.cells.hex.is_none() && a.0 != b.0 && a.1 != b.1;
        if diagonal && self.corner_walled(a, b) {
            return None;
        }
        Some(cost)
    }

    /// Cheapest costs from `start` (forward) or to it (`backward`), index `y * width + x`.
    fn distances(&self, start: Xy, backward: bool) -> Vec<f64> {
        let w = self.cells.width as usize;
        let mut dist = vec![f64::INFINITY; w * self.cells.height as usize];
        let mut heap = BinaryHeap::new();
        dist[start.1 as usize * w + start.0 as usize] = 0.0;
        heap.push(Least(0.0, start));
        while let Some(Least(d, (x, y))) = heap.pop() {
            if d > dist[y as usize * w + x as usize] {
                continue;
            }
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let next = (x + dx, y + dy);
                    let step = if backward {
                        self.step_cost(next, (x, y))
                    } else {
                        self.step_cost((x, y), next)
                    };
                    if let Some(c) = step {
                        let k = next.1 as usize * w + next.0 as usize;
                        if d + c < dist[k] {
                            dist[k] = d + c;
                            heap.push(Least(d + c, next));
                        }
                    }
                }
            }
        }
        dist
    }

    fn path_cost(&self, cells: &[GridPos]) -> Option<f64> {
        cells.windows(2).map(|w| self.step_cost(xy(w[0]), xy(w[1]))).sum()
    }

    /// A segment's cells cross no barred edge the way they go, and pass no walled corner.
    fn segment_clear(&self, cells: &[GridPos]) -> bool {
        cells.windows(2).all(|w| {
            let (a, b) = (xy(w[0]), xy(w[1]));
            let diagonal = self.cells.hex.is_none() && a.0 != b.0 && a.1 != b.1;
            let walled = diagonal && self.corner_walled(a, b);
            !walled && !self.barred.contains(&(a, b))
        })
    }
}

#[derive(PartialEq)]
struct Least(f64, Xy);
impl Eq for Least {}
impl PartialOrd for Least {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Least {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other.0.total_cmp(&self.0).then(other.1.cmp(&self.1))
    }
}

/// The edge neighbours of a cell under the model (straight ones on a square grid).
fn edge_neighbours(model: &Model, (x, y): Xy) -> Vec<Xy> {
    match model.hex {
        Some(rule) => rule.steps(x, y).iter().map(|&(dx, dy)| (x + dx, y + dy)).collect(),
        None => vec![(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)],
    }
    .into_iter()
    .filter(|&(nx, ny)| nx >= 0 && ny >= 0 && nx < model.width && ny < model.height)
    .collect()
}

/// A random grid (`kind`: 0 four-way, 1 eight-way, 2 eight-way cutting corners, 3 hex) with
/// random walls between cells and one-way edges, set on both the grid and the model.
fn random_case(rng: &mut Rng, kind: u32, varied: bool) -> (NavGrid, EdgeModel) {
    let (width, height) = (4 + rng.below(14), 4 + rng.below(14));
    let walls = rng.below(20);
    let cells = random_cells(rng, width, height, walls, varied);
    let mut grid = NavGrid::new(width, height).unwrap();
    set_cells(&mut grid, &cells);
    let mut model = Model::of(cells);
    match kind {
        0 => grid.set_neighborhood(Neighborhood::Four),
        1 => model.eight = true,
        2 => {
            model.eight = true;
            model.cut_corners = true;
            grid.set_corner_rule(CornerRule::CutCorners);
        }
        _ => {
            let k = rng.below(6) as usize;
            grid.set_neighborhood(Neighborhood::Hex(HexCoords::ALL[k]));
            model.hex = Some(HEX_RULES[k]);
        }
    }
    let mut model = EdgeModel { cells: model, barred: HashSet::new() };
    let edges = rng.below(width * height / 2 + 1);
    for _ in 0..edges {
        set_random_edge(rng, &mut grid, &mut model);
    }
    (grid, model)
}

/// Sets a random edge (open, wall or one-way) between a random cell and a neighbour, on both
/// the grid and the model.
fn set_random_edge(rng: &mut Rng, grid: &mut NavGrid, model: &mut EdgeModel) {
    let (width, height) = (grid.width(), grid.height());
    let a = (i64::from(rng.below(width)), i64::from(rng.below(height)));
    let around = edge_neighbours(&model.cells, a);
    let b = around[rng.below(around.len() as u32) as usize];
    let edge = match rng.below(3) {
        0 => Edge::Open,
        1 => Edge::Wall,
        _ => Edge::OneWay,
    };
    let pos = |(x, y): Xy| GridPos::new(x as u32, y as u32);
    grid.set_edge(pos(a), pos(b), edge).unwrap();
    model.barred.remove(&(a, b));
    model.barred.remove(&(b, a));
    match edge {
        Edge::Open => {}
        Edge::Wall => {
            model.barred.insert((a, b));
            model.barred.insert((b, a));
        }
        Edge::OneWay => {
            model.barred.insert((b, a));
        }
    }
}

/// A random cell of `cells`.
fn pick(rng: &mut Rng, cells: &[GridPos]) -> GridPos {
    cells[rng.below(cells.len() as u32) as usize]
}

impl EdgeModel {
    /// The model's cheapest cost from `s` to `g` on `grid`'s cells (infinite: no way).
    fn cost(&self, grid: &NavGrid, s: GridPos, g: GridPos) -> f64 {
        self.distances(xy(s), false)[g.y as usize * grid.width() as usize + g.x as usize]
    }
}

fn open_cells(grid: &NavGrid) -> Vec<GridPos> {
    grid.positions().filter(|&p| grid.is_passable(p)).collect()
}

fn pos_of(grid: &NavGrid, k: usize) -> GridPos {
    GridPos::new(k as u32 % grid.width(), k as u32 / grid.width())
}

fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-6 * a.abs().max(1.0)
}

/// Plain A*, `Auto`, jump point search (where it applies) and the grid's own step queries
/// against the model, with paths checked step by step; a search that says "unreachable" is
/// right, and component labels never call reachable cells apart.
#[test]
fn searches_follow_walls_and_one_way_edges() {
    let mut rng = Rng(0xED6E5);
    let mut pathfinder = Pathfinder::new();
    let (mut found, mut refused) = (0, 0);
    for round in 0..160 {
        let varied = rng.chance(50);
        let (grid, model) = random_case(&mut rng, round % 4, varied);
        let open = open_cells(&grid);
        if open.len() < 2 {
            continue;
        }
        // The grid's own steps: neighbours, predecessors and can_step.
        for &a in &open {
            let mut forth: Vec<GridPos> = grid.neighbors(a).map(|(p, _)| p).collect();
            let mut expected: Vec<GridPos> = Vec::new();
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let b = (i64::from(a.x) + dx, i64::from(a.y) + dy);
                    if (dx, dy) != (0, 0) && model.step_cost(xy(a), b).is_some() {
                        expected.push(GridPos::new(b.0 as u32, b.1 as u32));
                    }
                }
            }
            forth.sort();
            expected.sort();
            assert_eq!(forth, expected, "round {round}: steps out of {a}");
            for (b, cost) in grid.predecessors(a) {
                assert_eq!(model.step_cost(xy(b), xy(a)), Some(cost), "round {round}: {b} -> {a}");
            }
            for &b in &expected {
                assert!(grid.can_step(a, b));
                assert!(grid.predecessors(b).any(|(p, _)| p == a), "round {round}: {a} -> {b}");
            }
        }
        for _ in 0..12 {
            let start = pick(&mut rng, &open);
            let goal = pick(&mut rng, &open);
            let want = model.cost(&grid, start, goal);
            for algorithm in [Algorithm::Auto, Algorithm::AStar] {
                let options = SearchOptions { algorithm, ..SearchOptions::default() };
                let got =
                    pathfinder.find(&grid, &PathQuery::new(start, goal).with_options(options));
                match got {
                    Ok(path) => {
                        assert!(close(path.cost, want), "round {round}: {} vs {want}", path.cost);
                        let walked = model.path_cost(&path.cells).expect("a legal path");
                        assert!(close(walked, want), "round {round}");
                        found += 1;
                    }
                    Err(PathError::Unreachable { .. }) => {
                        assert!(want.is_infinite(), "round {round}: {start} -> {goal}");
                        refused += 1;
                    }
                    Err(error) => panic!("round {round}: {error}"),
                }
            }
            if want.is_finite() {
                assert!(grid.connected(start, goal), "round {round}: labels split a path");
            }
            // Jump point search reads the edges where it applies (8-way, no corner cutting).
            let jump =
                SearchOptions { algorithm: Algorithm::JumpPoint, ..SearchOptions::default() };
            let answer = pathfinder.find(&grid, &PathQuery::new(start, goal).with_options(jump));
            match answer {
                Ok(path) => {
                    assert!(
                        jps_applies(&grid) || start == goal,
                        "round {round}: not for this grid"
                    );
                    assert!(close(path.cost, want), "round {round}: {} vs {want}", path.cost);
                    let walked = model.path_cost(&path.cells).expect("a legal path");
                    assert!(close(walked, want), "round {round}");
                }
                Err(PathError::Unreachable { .. }) => assert!(want.is_infinite(), "round {round}"),
                Err(error) => {
                    assert!(!jps_applies(&grid) && error == PathError::JumpPointUnsupported)
                }
            }
        }
    }
    assert!(found > 1000 && refused > 50, "found {found}, refused {refused}");
}

/// Jump point search on fenced grids wider and taller than 64 cells (its scans cross words):
/// walls, terrain costs on some, walls between cells and one-way edges (a few in a hundred
/// cells) set and taken off after its bits are built (kept in step, not rebuilt), and cells
/// avoided by some queries. Every answer costs what the model says and walks legally; it
/// fails if the bits ignore the edges (`jump_straight`'s first step, the block bits), if a cell
/// next to an edge is not a jump point, or if the bits miss an edge change.
#[test]
fn jump_point_search_reads_fences_as_they_change() {
    let mut rng = Rng(0xF3AC);
    let mut pathfinder = Pathfinder::new();
    let jump = SearchOptions { algorithm: Algorithm::JumpPoint, ..SearchOptions::default() };
    let (mut found, mut refused, mut avoided) = (0, 0, 0);
    for round in 0..30 {
        let (width, height) = (40 + rng.below(100), 40 + rng.below(80));
        let walls = rng.below(30);
        let cells = random_cells(&mut rng, width, height, walls, round % 3 == 2);
        let mut grid = NavGrid::new(width, height).unwrap();
        set_cells(&mut grid, &cells);
        let mut model = EdgeModel { cells: Model::of(cells.clone()), barred: HashSet::new() };
        model.cells.eight = true;
        for phase in 0..3 {
            // Edges come and go between phases, the first after the grid was searched.
            for _ in 0..width * height * (1 + rng.below(4)) / 100 {
                set_random_edge(&mut rng, &mut grid, &mut model);
            }
            let open = open_cells(&grid);
            for _ in 0..6 {
                let (start, goal) = (pick(&mut rng, &open), pick(&mut rng, &open));
                let query = PathQuery::new(start, goal).with_options(jump);
                let want = model.cost(&grid, start, goal);
                match pathfinder.find(&grid, &query) {
                    Ok(path) => {
                        assert!(
                            close(path.cost, want),
                            "round {round}.{phase}: {} vs {want}",
                            path.cost
                        );
                        let walked = model.path_cost(&path.cells).expect("a legal path");
                        assert!(close(walked, want), "round {round}.{phase}");
                        found += 1;
                    }
                    Err(PathError::Unreachable { .. }) => {
                        assert!(want.is_infinite(), "round {round}.{phase}: {start} -> {goal}");
                        refused += 1;
                    }
                    Err(error) => panic!("round {round}.{phase}: {error}"),
                }
                // The same query avoiding a few cells: walls for it alone.
                let avoid: Vec<GridPos> = (0..1 + rng.below(12))
                    .map(|_| pick(&mut rng, &open))
                    .filter(|&c| c != start && c != goal)
                    .collect();
                let mut walled =
                    EdgeModel { cells: Model::of(cells.clone()), barred: model.barred.clone() };
                walled.cells.eight = true;
                for c in &avoid {
                    walled.cells.cells[c.y as usize][c.x as usize] = None;
                }
                let want = walled.cost(&grid, start, goal);
                let query = PathQuery::new(start, goal).with_options(jump).avoiding(&avoid);
                match pathfinder.find(&grid, &query) {
                    Ok(path) => {
                        assert!(
                            close(path.cost, want),
                            "round {round}.{phase} avoiding: {} vs {want}",
                            path.cost
                        );
                        let walked = walled.path_cost(&path.cells).expect("a legal path");
                        assert!(close(walked, want), "round {round}.{phase} avoiding");
                        avoided += 1;
                    }
                    Err(error) => assert!(want.is_infinite(), "round {round}.{phase}: {error}"),
                }
            }
        }
    }
    assert!(found > 200 && refused > 5 && avoided > 200, "{found} {refused} {avoided}");
}

/// Theta* and smoothing keep their straight segments off barred edges and walled corners;
/// Theta*'s paths exist exactly where grid paths do.
#[test]
fn any_angle_paths_and_smoothing_respect_edges() {
    let mut rng = Rng(0x7E7A);
    let mut pathfinder = Pathfinder::new();
    let mut checked = 0;
    for round in 0..120 {
        let kind = [1, 2, 3][round % 3];
        let (grid, model) = random_case(&mut rng, kind, false);
        let open = open_cells(&grid);
        if open.len() < 2 {
            continue;
        }
        for _ in 0..10 {
            let start = pick(&mut rng, &open);
            let goal = pick(&mut rng, &open);
            let want = model.cost(&grid, start, goal);
            let theta =
                SearchOptions { algorithm: Algorithm::ThetaStar, ..SearchOptions::default() };
            match pathfinder.find(&grid, &PathQuery::new(start, goal).with_options(theta)) {
                Ok(path) => {
                    assert!(want.is_finite(), "round {round}");
                    assert!(model.segment_clear(&path.cells), "round {round}: {:?}", path.cells);
                    checked += 1;
                }
                Err(_) => assert!(want.is_infinite(), "round {round}: {start} -> {goal}"),
            }
            if let Ok(path) = pathfinder.find(&grid, &PathQuery::new(start, goal)) {
                let corners = smooth_path(&grid, &path.cells);
                for pair in corners.windows(2) {
                    let cells = segment_cells(&grid, pair[0], pair[1]).expect("a clear segment");
                    assert!(model.segment_clear(&cells), "round {round}: {pair:?}");
                }
            }
        }
    }
    assert!(checked > 300, "{checked}");
}

/// A wall between two cells stops a straight segment; a one-way edge lets it through one way.
#[test]
fn line_of_sight_stops_at_a_wall_between_cells() {
    let mut grid = NavGrid::new(6, 3).unwrap();
    let (a, b) = (GridPos::new(0, 1), GridPos::new(5, 1));
    assert!(segment_cells(&grid, a, b).is_some());
    grid.set_edge(GridPos::new(2, 1), GridPos::new(3, 1), Edge::OneWay).unwrap();
    assert!(segment_cells(&grid, a, b).is_some());
    assert!(segment_cells(&grid, b, a).is_none());
    grid.set_edge(GridPos::new(2, 1), GridPos::new(3, 1), Edge::Wall).unwrap();
    assert!(segment_cells(&grid, a, b).is_none());
    // A diagonal through the wall's end is not clear either.
    assert!(segment_cells(&grid, GridPos::new(2, 0), GridPos::new(3, 1)).is_none());
}

/// A grid of one cost, 8-way without corner cutting, with fences: straight runs of walls
/// between cells (2-10 edges), and walls between single pairs of cells; with `ledges`, a third
/// of the runs and of the single edges are one-way instead, crossed one way only (a ledge).
fn fenced_case(rng: &mut Rng, ledges: bool) -> (NavGrid, EdgeModel) {
    let (width, height) = (4 + rng.below(36), 4 + rng.below(36));
    let walls = rng.below(15);
    let cells = random_cells(rng, width, height, walls, false);
    let mut grid = NavGrid::new(width, height).unwrap();
    set_cells(&mut grid, &cells);
    let mut model =
        EdgeModel { cells: Model { eight: true, ..Model::of(cells) }, barred: HashSet::new() };
    // Bars the step `a` -> `b` when `edge` is one-way, else both steps.
    let mut bar = |grid: &mut NavGrid, a: Xy, b: Xy, edge: Edge| {
        let pos = |(x, y): Xy| GridPos::new(x as u32, y as u32);
        let inside = |(x, y): Xy| x >= 0 && y >= 0 && x < width as i64 && y < height as i64;
        if inside(a) && inside(b) {
            match edge {
                Edge::OneWay => {
                    grid.set_edge(pos(b), pos(a), Edge::OneWay).unwrap();
                    model.barred.remove(&(b, a));
                }
                _ => {
                    grid.set_edge(pos(a), pos(b), Edge::Wall).unwrap();
                    model.barred.insert((b, a));
                }
            }
            model.barred.insert((a, b));
        }
    };
    // A third one-way with `ledges`, crossed forward or back at random.
    let kind = |rng: &mut Rng| match ledges && rng.below(3) == 0 {
        true => (Edge::OneWay, rng.chance(50)),
        false => (Edge::Wall, false),
    };
    for _ in 0..rng.below(8) {
        // A fence along a row (between rows y and y + 1) or a column.
        let (x, y) = (i64::from(rng.below(width)), i64::from(rng.below(height)));
        let along_row = rng.chance(50);
        let (edge, back) = kind(rng);
        for k in 0..2 + i64::from(rng.below(9)) {
            let (a, b) = match along_row {
                true => ((x + k, y), (x + k, y + 1)),
                false => ((x, y + k), (x + 1, y + k)),
            };
            let (a, b) = if back { (b, a) } else { (a, b) };
            bar(&mut grid, a, b, edge);
        }
    }
    for _ in 0..rng.below(width * height / 8 + 1) {
        let a = (i64::from(rng.below(width)), i64::from(rng.below(height)));
        let b = if rng.chance(50) { (a.0 + 1, a.1) } else { (a.0, a.1 + 1) };
        let (edge, back) = kind(rng);
        let (a, b) = if back { (b, a) } else { (a, b) };
        bar(&mut grid, a, b, edge);
    }
    (grid, model)
}

/// Path tables read walls between cells and one-way edges: on random fenced grids (every
/// other one with ledges too) every answer comes from the table (no search: nothing expanded)
/// and costs what the model's Dijkstra says, over legal steps; unreachable goals are errors; a
/// baked table loads for the same fenced grid (and not for the grid with one fence more, or
/// one edge turned one-way) and answers the same.
#[test]
fn path_tables_follow_walls_between_cells() {
    let mut rng = Rng(0xFE7CE);
    let mut pathfinder = Pathfinder::new();
    let (mut from_table, mut unreachable, mut tables, mut one_way) = (0, 0, 0, 0);
    for round in 0..400 {
        let (grid, model) = fenced_case(&mut rng, round % 2 == 1);
        let open = open_cells(&grid);
        if open.len() < 2 {
            continue;
        }
        let table = match PathTable::build(&grid) {
            Ok(table) => table,
            Err(PathTableError::TooManySubgoals { .. } | PathTableError::TooOpen) => continue,
            Err(error) => panic!("round {round}: {error}"),
        };
        tables += 1;
        one_way += usize::from(grid.has_one_way_edges());
        let baked = PathTable::from_binary(&table.to_binary(), &grid).unwrap();
        for _ in 0..20 {
            let (s, g) = (pick(&mut rng, &open), pick(&mut rng, &open));
            if s == g {
                continue;
            }
            let want = model.cost(&grid, s, g);
            for help in [&table, &baked] {
                match pathfinder.find(&grid, &PathQuery::new(s, g).with_help(help)) {
                    Ok(path) => {
                        let label = format!("round {round}: {s} -> {g}");
                        assert!(close(path.cost, want), "{label}: {} vs {want}", path.cost);
                        let walked = model.path_cost(&path.cells);
                        assert!(walked.is_some_and(|w| close(w, want)), "{label}: illegal step");
                        assert_eq!((path.cells[0], path.end()), (s, g), "{label}");
                        assert_eq!(path.stats.expanded, 0, "{label}: searched, not looked up");
                        from_table += 1;
                    }
                    Err(_) => {
                        assert!(want.is_infinite(), "round {round}: {s} -> {g}");
                        unreachable += 1;
                    }
                }
            }
        }
        // One fence more, or one edge turned one-way: the bake is for another grid.
        let (a, b) = (GridPos::new(0, 0), GridPos::new(1, 0));
        for edge in [Edge::Wall, Edge::OneWay] {
            let mut changed = grid.clone();
            if changed.edge_open(a, b) && changed.edge_open(b, a) {
                changed.set_edge(a, b, edge).unwrap();
                assert_eq!(
                    PathTable::from_binary(&table.to_binary(), &changed).err(),
                    Some(BakeError::OtherGrid)
                );
            }
        }
    }
    assert!(
        tables > 300 && one_way > 140 && from_table > 8000 && unreachable > 200,
        "{tables} tables ({one_way} with one-way edges), {from_table} answers, {unreachable} \
         unreachable"
    );
}

/// Distance fields (built and repaired), reachable sets, first-move tables and path tables
/// give the model's costs; landmarks guide to the model's costs.
#[test]
fn fields_tables_and_landmarks_follow_edges() {
    let mut rng = Rng(0xF1E1D);
    let mut pathfinder = Pathfinder::new();
    let (mut compared, mut tabled) = (0, 0);
    for round in 0..60 {
        let varied = rng.chance(50);
        let (mut grid, mut model) = random_case(&mut rng, round % 4, varied);
        let open = open_cells(&grid);
        if open.len() < 3 {
            continue;
        }
        let goal = pick(&mut rng, &open);
        let mut field = DistanceField::new(&grid, &[goal]).unwrap();
        let to_goal = model.distances(xy(goal), true);
        for (k, &want) in to_goal.iter().enumerate() {
            let pos = pos_of(&grid, k);
            match field.cost(pos) {
                Some(cost) => assert!(close(cost, want), "round {round}: {pos} {cost} vs {want}"),
                None => assert!(want.is_infinite() || !grid.is_passable(pos), "round {round}"),
            }
            compared += 1;
        }
        let start = pick(&mut rng, &open);
        let reach = reachable(&grid, start, 12.0).unwrap();
        let from_start = model.distances(xy(start), false);
        for (k, &want) in from_start.iter().enumerate() {
            let pos = pos_of(&grid, k);
            if want <= 12.0 - 1e-9 {
                let got = reach.cost(pos).unwrap_or(f64::INFINITY);
                assert!(close(got, want), "round {round}: reach {pos} {got} vs {want}");
            }
        }
        let table = FirstMoveTable::build(&grid).unwrap();
        let landmarks = Landmarks::build(&grid, 3).unwrap();
        for _ in 0..10 {
            let (s, g) = (pick(&mut rng, &open), pick(&mut rng, &open));
            let want = model.cost(&grid, s, g);
            for query in
                [PathQuery::new(s, g).with_help(&table), PathQuery::new(s, g).with_help(&landmarks)]
            {
                match pathfinder.find(&grid, &query) {
                    Ok(path) => {
                        assert!(close(path.cost, want), "round {round}: {} vs {want}", path.cost);
                        assert!(close(model.path_cost(&path.cells).unwrap(), want));
                    }
                    Err(_) => assert!(want.is_infinite(), "round {round}"),
                }
            }
        }
        // A path table, where the grid is one it serves (one cost, 8-way, no corner cutting;
        // one-way edges and all), answers at the model's costs too.
        if let Ok(paths) = PathTable::build(&grid) {
            for _ in 0..10 {
                let (s, g) = (pick(&mut rng, &open), pick(&mut rng, &open));
                let want = model.cost(&grid, s, g);
                match pathfinder.find(&grid, &PathQuery::new(s, g).with_help(&paths)) {
                    Ok(path) => {
                        assert!(close(path.cost, want), "round {round}: {} vs {want}", path.cost);
                        assert!(close(model.path_cost(&path.cells).unwrap(), want));
                        tabled += 1;
                    }
                    Err(_) => assert!(want.is_infinite(), "round {round}"),
                }
            }
        }
        // Repair: a cell changes; the field follows it (edges stay).
        let cell = pos_of(&grid, rng.below(grid.len() as u32) as usize);
        if cell != goal {
            let now = if grid.is_passable(cell) { Cell::Blocked } else { Cell::GROUND };
            grid.set(cell, now).unwrap();
            model.cells.cells[cell.y as usize][cell.x as usize] = match now {
                Cell::Blocked => None,
                _ => Some(1),
            };
            field.update(&grid, [cell]);
            let to_goal = model.distances(xy(goal), true);
            for (k, &want) in to_goal.iter().enumerate() {
                let pos = pos_of(&grid, k);
                let got = field.cost(pos).unwrap_or(f64::INFINITY);
                let open_here = grid.is_passable(pos);
                assert!(!open_here || close(got, want), "round {round}: repaired {pos}");
            }
        }
    }
    assert!(compared > 5000 && tabled > 40, "{compared} compared, {tabled} from path tables");
}

/// The grid an agent of one tile with a profile sees keeps the edges; a body of two tiles never
/// stands across a barred edge and never steps across one.
#[test]
fn agent_grids_keep_edges() {
    let mut rng = Rng(0xA6E);
    let mut pathfinder = Pathfinder::new();
    for round in 0..60 {
        let (grid, model) = random_case(&mut rng, [0, 1][round % 2], false);
        let open = open_cells(&grid);
        if open.len() < 2 {
            continue;
        }
        let one = AgentGrid::new(&grid, NavProfile::default(), 1).unwrap();
        let two = AgentGrid::new(&grid, NavProfile::default(), 2).unwrap();
        for _ in 0..10 {
            let (s, g) = (pick(&mut rng, &open), pick(&mut rng, &open));
            let want = model.cost(&grid, s, g);
            match pathfinder.find(one.grid(), &PathQuery::new(s, g)) {
                Ok(path) => assert!(close(path.cost, want), "round {round}"),
                Err(_) => assert!(want.is_infinite(), "round {round}"),
            }
            if let Ok(path) = pathfinder.find(two.grid(), &PathQuery::new(s, g)) {
                for w in path.cells.windows(2) {
                    for (ox, oy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        let at = |p: GridPos| (i64::from(p.x) + ox, i64::from(p.y) + oy);
                        let (a, b) = (at(w[0]), at(w[1]));
                        assert!(!model.barred.contains(&(a, b)), "round {round}: {w:?}");
                    }
                }
                for &c in &path.cells {
                    let body = [(0, 0, 1, 0), (0, 1, 1, 1), (0, 0, 0, 1), (1, 0, 1, 1)];
                    for (ax, ay, bx, by) in body {
                        let a = (i64::from(c.x) + ax, i64::from(c.y) + ay);
                        let b = (i64::from(c.x) + bx, i64::from(c.y) + by);
                        let straddles =
                            model.barred.contains(&(a, b)) || model.barred.contains(&(b, a));
                        assert!(!straddles, "round {round}: body at {c}");
                    }
                }
            }
        }
    }
}

/// Bad edges are typed errors and change nothing; edges come off again; tiles' sides make the
/// same edges as setting them one by one.
#[test]
fn edge_errors_and_sides() {
    let mut grid = NavGrid::new(4, 4).unwrap();
    let before = grid.clone();
    let (a, far) = (GridPos::new(1, 1), GridPos::new(3, 3));
    assert_eq!(
        grid.set_edge(a, far, Edge::Wall),
        Err(GridError::NotNeighbors { from: a, to: far })
    );
    let diagonal = GridPos::new(2, 2);
    assert_eq!(
        grid.set_edge(a, diagonal, Edge::Wall),
        Err(GridError::NotNeighbors { from: a, to: diagonal })
    );
    let off = GridPos::new(4, 1);
    assert!(matches!(
        grid.set_edge(GridPos::new(3, 1), off, Edge::Wall),
        Err(GridError::OutOfBounds { .. })
    ));
    assert!(grid == before && !grid.has_edges());
    // A wall, then open again: the grid is as it was.
    grid.set_edge(a, GridPos::new(2, 1), Edge::Wall).unwrap();
    assert!(grid.has_edges() && grid != before);
    assert_eq!(grid.barred_crossings().count(), 2);
    grid.set_edge(GridPos::new(2, 1), a, Edge::Open).unwrap();
    assert!(!grid.has_edges() && grid == before);
    // Sides: a wall on (1, 1)'s east side and a drop on (2, 2)'s south side.
    let mut by_sides = NavGrid::new(4, 4).unwrap();
    let sides = |p: GridPos| match (p.x, p.y) {
        (1, 1) => (Sides::EAST, Sides::NONE),
        (2, 2) => (Sides::NONE, Sides::SOUTH),
        _ => (Sides::NONE, Sides::NONE),
    };
    by_sides.set_sides(by_sides.positions().collect::<Vec<_>>(), sides);
    let mut by_hand = NavGrid::new(4, 4).unwrap();
    by_hand.set_edge(a, GridPos::new(2, 1), Edge::Wall).unwrap();
    by_hand.set_edge(GridPos::new(2, 2), GridPos::new(2, 1), Edge::OneWay).unwrap();
    assert!(by_sides == by_hand);
    let crossings: Vec<_> = by_sides.barred_crossings().collect();
    assert_eq!(crossings.len(), 3, "{crossings:?}");
    let edges: Vec<_> = by_sides.edges().collect();
    let want = [
        (a, GridPos::new(2, 1), Edge::Wall),
        (GridPos::new(2, 2), GridPos::new(2, 1), Edge::OneWay),
    ];
    assert_eq!(edges, want);
    by_sides.clear_edges();
    assert!(by_sides == NavGrid::new(4, 4).unwrap());
}

/// Saved grids keep their walls and one-way edges, in both forms; a saved edge between cells
/// that are not neighbours is a typed error.
#[test]
fn bakes_keep_edges() {
    let mut rng = Rng(0xBA4E);
    for round in 0..40 {
        let (grid, _) = random_case(&mut rng, round % 4, true);
        let bytes = baked::to_binary(&grid);
        assert!(baked::from_binary(&bytes).unwrap() == grid, "round {round}");
        let text = baked::to_ron(&grid);
        assert!(baked::from_ron(&text).unwrap() == grid, "round {round}");
    }
    let mut grid = NavGrid::new(4, 4).unwrap();
    grid.set_edge(GridPos::new(1, 1), GridPos::new(1, 2), Edge::OneWay).unwrap();
    // A wall on the border side of (0, 3) (toward a chunk beyond) is kept too.
    let border = |p: GridPos| match p == GridPos::new(0, 3) {
        true => (Sides::WEST, Sides::NONE),
        false => (Sides::NONE, Sides::NONE),
    };
    grid.set_sides([GridPos::new(0, 3)], border);
    let bytes = baked::to_binary(&grid);
    assert!(baked::from_binary(&bytes).unwrap() == grid);
    let text = baked::to_ron(&grid);
    assert!(baked::from_ron(&text).unwrap() == grid);
    // Exits the wrong number of cells long, or naming a direction a square cell has not.
    let start = text.find("exits:").expect("exits in the RON form");
    let list = &text[start..];
    let list = &list[..list.find(']').unwrap() + 1];
    let short = text.replace(list, "exits: [0, 1]");
    assert!(matches!(baked::from_ron(&short), Err(BakeError::Invalid(_))), "{short}");
    let cells = grid.len() + 2 * (grid.width() as usize + grid.height() as usize) + 4;
    let mut wrong = vec!["0"; cells];
    wrong[7] = "64";
    let wrong = text.replace(list, &format!("exits: [{}]", wrong.join(", ")));
    assert!(matches!(baked::from_ron(&wrong), Err(BakeError::Invalid(_))));
}
