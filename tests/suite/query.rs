//! One query, every option composed: on random grids, a `PathQuery` with a random mix of its
//! options (one goal or the nearest of several, avoided cells, landmarks, a table, a trace,
//! run whole or in slices) answers with the cost an independent Dijkstra finds on the grid
//! with the avoided cells walled, ends at a goal, walks only legal steps around the avoided
//! cells, and in slices answers exactly as in one go. Across links the same holds for the
//! nearest of several goals and for slices, against the single-goal linked search.

use crate::support::{GridShape, Model, Rng, xy};
use bevy_tilemap_nav::grid::{GridPos, NavGrid};
use bevy_tilemap_nav::search::{
    Algorithm, FirstMoveTable, Landmarks, Link, LinkedMaps, MapPos, PathError, PathQuery,
    PathTable, Pathfinder, SearchOptions, SearchStep,
};

/// A random square grid (4- or 8-way, either corner rule, costs 1-6 or uniform) and its model.
fn random_grid(rng: &mut Rng) -> (NavGrid, Model) {
    crate::support::random_grid(
        rng,
        &GridShape { min_side: 2, spread: 24, walls: 35, eight: 67, cut: 30 },
    )
}

fn random_cell(rng: &mut Rng, grid: &NavGrid) -> GridPos {
    GridPos::new(rng.below(grid.width()), rng.below(grid.height()))
}

/// Runs `query` whole or (`budget`) in slices of that many expansions, checking each slice
/// keeps to its budget.
fn run(
    pathfinder: &mut Pathfinder,
    grid: &NavGrid,
    query: &PathQuery,
    budget: Option<u32>,
) -> Result<bevy_tilemap_nav::search::PathResult, PathError> {
    let Some(budget) = budget else { return pathfinder.find(grid, query) };
    let mut step = pathfinder.start(grid, query, budget);
    let mut slices = 1;
    loop {
        match step {
            SearchStep::Done(result) => return result,
            SearchStep::Paused { expanded } => {
                assert!(expanded <= budget * slices, "a slice overran its budget");
                assert!(pathfinder.is_paused());
                step = pathfinder.resume(grid, query, budget);
                slices += 1;
            }
        }
    }
}

#[test]
fn every_option_composes_and_answers_as_the_oracle() {
    let mut rng = Rng(0x9E3_0A11);
    let mut pathfinder = Pathfinder::new();
    let mut whole = Pathfinder::new();
    let mut counts = [0u32; 6]; // nearest, avoided, guided, table, traced, sliced: found paths
    for round in 0..1200 {
        let (grid, model) = random_grid(&mut rng);
        let start = random_cell(&mut rng, &grid);
        let nearest = rng.chance(50);
        let goals: Vec<GridPos> = match nearest {
            true if rng.chance(10) => (0..40).map(|_| random_cell(&mut rng, &grid)).collect(),
            true => (0..1 + rng.below(5)).map(|_| random_cell(&mut rng, &grid)).collect(),
            false => vec![random_cell(&mut rng, &grid)],
        };
        let avoid: Vec<GridPos> = match rng.chance(50) {
            true => (0..1 + rng.below(8)).map(|_| random_cell(&mut rng, &grid)).collect(),
            false => Vec::new(),
        };
        let algorithm = [Algorithm::Auto, Algorithm::AStar][rng.below(2) as usize];
        let options = SearchOptions { algorithm, ..SearchOptions::default() };
        let mut query = match nearest {
            true => PathQuery::nearest(start, &goals),
            false => PathQuery::new(start, goals[0]),
        }
        .with_options(options)
        .avoiding(&avoid);
        let help = rng.below(4);
        let landmarks = (help == 1).then(|| Landmarks::build(&grid, 4).unwrap());
        // Path tables take 8-way grids without corner cutting, of one cost.
        let table = (help == 2).then(|| PathTable::build(&grid).ok()).flatten();
        let moves = (help == 3).then(|| FirstMoveTable::build(&grid).unwrap());
        if let Some(landmarks) = &landmarks {
            query = query.with_help(landmarks);
        }
        if let Some(table) = &table {
            query = query.with_help(table);
        }
        if let Some(moves) = &moves {
            query = query.with_help(moves);
        }
        let traced = rng.chance(30);
        if traced {
            query = query.traced();
        }
        let budget = rng.chance(40).then(|| 1 + rng.below(12));

        let result = run(&mut pathfinder, &grid, &query, budget);
        let trace = pathfinder.take_trace();

        // The oracle: Dijkstra to each goal with the avoided cells walled (never the start or
        // a goal), the least of them.
        let walled: Vec<(i64, i64)> =
            avoid.iter().filter(|a| !goals.contains(a)).map(|&a| xy(a)).collect();
        let best = goals
            .iter()
            .filter_map(|&g| model.dijkstra_avoiding(xy(start), xy(g), &walled))
            .fold(f64::INFINITY, f64::min);
        match &result {
            Ok(path) => {
                assert!((path.cost - best).abs() < 1e-9, "round {round}: {} vs {best}", path.cost);
                assert_eq!(path.cells[0], start);
                assert!(goals.contains(&path.end()), "round {round}: ends off the goals");
                let cells: Vec<(i64, i64)> = path.cells.iter().map(|&c| xy(c)).collect();
                let mut walled_model = Model { cells: model.cells.clone(), ..model };
                for &(x, y) in &walled {
                    if (x, y) != xy(start) {
                        walled_model.cells[y as usize][x as usize] = None;
                    }
                }
                let cost = walled_model.path_cost(&cells);
                assert!(cost.is_some_and(|c| (c - best).abs() < 1e-9), "round {round}: {cost:?}");
                let found = [nearest, !avoid.is_empty(), landmarks.is_some(), table.is_some()];
                for (count, on) in counts.iter_mut().zip(found.into_iter().chain([traced])) {
                    *count += u32::from(on);
                }
                counts[5] += u32::from(budget.is_some());
            }
            Err(PathError::StartBlocked { .. }) => {
                assert!(model.cost(start.x.into(), start.y.into()).is_none())
            }
            Err(PathError::GoalBlocked { .. }) => {
                assert!(goals.iter().all(|g| model.cost(g.x.into(), g.y.into()).is_none()))
            }
            Err(PathError::Unreachable { .. }) => assert!(best.is_infinite(), "round {round}"),
            Err(error) => panic!("round {round}: {error:?}"),
        }
        // A trace exactly when asked for, of what the search did.
        match (&trace, &result) {
            (Some(trace), Ok(path)) if path.stats.expanded > 0 => {
                assert_eq!(trace.expanded.len(), path.stats.expanded as usize, "round {round}")
            }
            (Some(_), _) => assert!(traced),
            (None, _) => assert!(!traced, "round {round}: a traced query left no trace"),
        }
        // In slices or whole: the same answer.
        if budget.is_some() {
            assert_eq!(result, whole.find(&grid, &query), "round {round}");
        }
    }
    assert!(counts.iter().all(|&n| n > 40), "{counts:?}");
}

#[test]
fn a_table_answers_only_the_queries_it_can_and_a_search_the_rest() {
    let mut grid = NavGrid::new(30, 20).unwrap();
    for y in 0..17 {
        grid.set(GridPos::new(15, y), bevy_tilemap_nav::grid::Cell::Blocked).unwrap();
    }
    let table = PathTable::build(&grid).unwrap();
    let mut pathfinder = Pathfinder::new();
    let (start, goal) = (GridPos::new(2, 2), GridPos::new(28, 2));
    let plain = PathQuery::new(start, goal);
    // From the table: no cell expanded.
    let answered = pathfinder.find(&grid, &plain.with_help(&table)).unwrap();
    assert_eq!(answered.stats.expanded, 0);
    let searched = pathfinder.find(&grid, &plain).unwrap();
    assert!(searched.stats.expanded > 0);
    assert!((answered.cost - searched.cost).abs() < 1e-9);
    // With a cell avoided on the table's way, a search answers, around it.
    let gap = [GridPos::new(15, 18)];
    let around = pathfinder.find(&grid, &plain.avoiding(&gap).with_help(&table)).unwrap();
    assert!(!around.cells.contains(&gap[0]));
    assert!(around.stats.expanded > 0);
    // Traced, a search answers too (a table has nothing to trace).
    pathfinder.find(&grid, &plain.with_help(&table).traced()).unwrap();
    assert!(pathfinder.take_trace().is_some_and(|t| !t.expanded.is_empty()));
}

/// Two or three random grids joined by random links.
fn random_world(rng: &mut Rng) -> (Vec<NavGrid>, Vec<Link>) {
    let grids: Vec<NavGrid> = (0..2 + rng.below(2)).map(|_| random_grid(rng).0).collect();
    let at = |rng: &mut Rng, grids: &[NavGrid]| {
        let map = rng.below(grids.len() as u32) as usize;
        MapPos::new(map, random_cell(rng, &grids[map]))
    };
    let links = (0..1 + rng.below(6))
        .map(|_| {
            let (from, to) = (at(rng, &grids), at(rng, &grids));
            let cost = f64::from(rng.below(5));
            if rng.chance(50) {
                Link::two_way(from, to, cost)
            } else {
                Link::one_way(from, to, cost)
            }
        })
        .collect();
    (grids, links)
}

#[test]
fn across_links_the_nearest_goal_and_slices_answer_as_the_single_goal_search() {
    let mut rng = Rng(0x11_4C);
    let mut pathfinder = Pathfinder::new();
    let mut found = 0;
    for round in 0..600 {
        let (grids, links) = random_world(&mut rng);
        let maps: Vec<&NavGrid> = grids.iter().collect();
        let world = LinkedMaps::new(&maps, &links);
        let at = |rng: &mut Rng| {
            let map = rng.below(grids.len() as u32) as usize;
            MapPos::new(map, random_cell(rng, &grids[map]))
        };
        let start = at(&mut rng);
        let goals: Vec<MapPos> = (0..1 + rng.below(4)).map(|_| at(&mut rng)).collect();
        let avoid: Vec<MapPos> = (0..rng.below(4)).map(|_| at(&mut rng)).collect();
        let nearest = PathQuery::nearest(start, &goals).avoiding(&avoid);
        let result = pathfinder.find(world, &nearest);
        // Each goal alone, the avoided cells walled except the goals (never avoided).
        let kept: Vec<MapPos> = avoid.iter().copied().filter(|a| !goals.contains(a)).collect();
        let each: Vec<f64> = goals
            .iter()
            .map(|&g| {
                let alone = PathQuery::new(start, g).avoiding(&kept);
                pathfinder.find(world, &alone).map_or(f64::INFINITY, |p| p.cost)
            })
            .collect();
        let best = each.iter().copied().fold(f64::INFINITY, f64::min);
        match &result {
            Ok(path) => {
                found += 1;
                assert!((path.cost - best).abs() < 1e-9, "round {round}: {} vs {best}", path.cost);
                let last = path.legs.last().unwrap();
                assert!(goals.contains(&MapPos::new(last.map, last.path.end())), "round {round}");
            }
            Err(PathError::StartBlocked { .. } | PathError::GoalBlocked { .. }) => {}
            Err(PathError::Unreachable { .. }) => assert!(best.is_infinite(), "round {round}"),
            Err(error) => panic!("round {round}: {error:?}"),
        }
        // In slices: the same answer.
        let budget = 1 + rng.below(10);
        let mut step = pathfinder.start(world, &nearest, budget);
        while let SearchStep::Paused { .. } = step {
            step = pathfinder.resume(world, &nearest, budget);
        }
        assert_eq!(step, SearchStep::Done(result), "round {round}");
    }
    assert!(found > 200, "{found}");
}

/// The names issue 51 replaced still compile for a release, deprecated, and mean the new ones:
/// a game that upgrades is warned, not broken.
#[test]
#[allow(deprecated)]
fn renamed_items_still_work_under_their_old_names() {
    use bevy_tilemap_nav::plugin::{self, AgentKind, NavPath, PathRequest, TraceSearch};
    use std::any::TypeId;
    assert_eq!(TypeId::of::<plugin::Path>(), TypeId::of::<NavPath>());
    assert_eq!(TypeId::of::<plugin::NavAgent>(), TypeId::of::<AgentKind>());
    assert_eq!(TypeId::of::<plugin::WatchSearch>(), TypeId::of::<TraceSearch>());
    let request = PathRequest::to(GridPos::new(3, 3));
    let kind = AgentKind::sized(2);
    let arrive = plugin::Arrival::Within(5.0);
    assert_eq!(request.clone().for_agent(kind), request.clone().with_agent(kind));
    assert_eq!(request.clone().arriving(arrive), request.with_arrival(arrive));
    let mut grid = NavGrid::new(30, 20).unwrap();
    for y in 0..15 {
        grid.set(GridPos::new(12, y), bevy_tilemap_nav::grid::Cell::Blocked).unwrap();
    }
    let (start, goal) = (GridPos::new(1, 1), GridPos::new(28, 2));
    let options = SearchOptions { algorithm: Algorithm::AStar, ..SearchOptions::default() };
    let table = PathTable::build(&grid).unwrap();
    let landmarks = Landmarks::build(&grid, 4).unwrap();
    let moves = FirstMoveTable::build(&grid).unwrap();
    let mut finder = Pathfinder::new();
    let mut cost = |query: PathQuery| finder.find(&grid, &query).unwrap().cost;
    let query = PathQuery::new(start, goal);
    let new = [
        cost(query.with_options(options)),
        cost(query.with_help(&table)),
        cost(query.with_help(&landmarks)),
        cost(query.with_help(&moves)),
    ];
    let old = [
        cost(query.options(options)),
        cost(query.table(&table)),
        cost(query.guided(&landmarks)),
        cost(query.first_moves(&moves)),
    ];
    assert_eq!(new, old);
    assert!(new.iter().all(|&c| (c - new[0]).abs() < 1e-9), "{new:?}");
}
