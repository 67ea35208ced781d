//! Property test: on thousands of random sets of small grids (square 4- and 8-way, hex) joined
//! by random links (one-way and two-way, some on blocked cells), the linked search costs what a
//! plain Dijkstra over every cell of every grid and every link costs, and every path it returns
//! is legal: each walk legal on its grid, each link taken where it exists and in a direction it
//! allows.

use std::collections::BinaryHeap;

use crate::support::{Cheapest, HEX_RULES, Model, Rng, random_cells, set_cells};
use bevy_tilemap_nav::grid::{CornerRule, Edge, HexCoords, Neighborhood};
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::{Algorithm, PathError};
use bevy_tilemap_nav::search::{Link, LinkedMaps, LinkedPath, MapPos};

/// A random grid of a random kind, and the same grid as the oracle's model.
fn random_map(rng: &mut Rng) -> (NavGrid, Model) {
    let (width, height) = (1 + rng.below(9), 1 + rng.below(9));
    // Uniform ground on most 8-way maps, so that jump point search runs on them.
    let varied = rng.chance(40);
    let walls = rng.below(35);
    let cells = random_cells(rng, width, height, walls, varied);
    let kind = rng.below(4);
    let base = Model::of(cells.clone());
    let (neighborhood, corner, model) = match kind {
        0 => (Neighborhood::Four, CornerRule::NoCornerCutting, base),
        1 => (Neighborhood::Eight, CornerRule::NoCornerCutting, Model { eight: true, ..base }),
        2 => (
            Neighborhood::Eight,
            CornerRule::CutCorners,
            Model { eight: true, cut_corners: true, ..base },
        ),
        _ => {
            let k = rng.below(6) as usize;
            let coords = HexCoords::ALL[k];
            (
                Neighborhood::Hex(coords),
                CornerRule::NoCornerCutting,
                Model { hex: Some(HEX_RULES[k]), ..base },
            )
        }
    };
    let mut grid = NavGrid::new(width, height)
        .unwrap()
        .with_neighborhood(neighborhood)
        .with_corner_rule(corner);
    set_cells(&mut grid, &cells);
    (grid, model)
}

fn random_pos(rng: &mut Rng, grids: &[NavGrid]) -> MapPos {
    let map = rng.below(grids.len() as u32) as usize;
    let grid = &grids[map];
    MapPos::new(map, GridPos::new(rng.below(grid.width()), rng.below(grid.height())))
}

/// `count` links between random cells of `grids` (blocked ones included), one-way or two-way,
/// costing a quarter of a number below `quarters`.
fn random_links(rng: &mut Rng, grids: &[NavGrid], count: u32, quarters: u32) -> Vec<Link> {
    (0..count)
        .map(|_| {
            let (from, to) = (random_pos(rng, grids), random_pos(rng, grids));
            let cost = f64::from(rng.below(quarters)) / 4.0;
            Link { from, to, cost, two_way: rng.chance(50) }
        })
        .collect()
}

/// Dijkstra over (map, x, y) with the models' steps and the links whose two cells are open.
fn oracle(models: &[Model], links: &[Link], start: MapPos, goal: MapPos) -> Option<f64> {
    let xy = |p: MapPos| (i64::from(p.cell.x), i64::from(p.cell.y));
    let open = |p: MapPos| models[p.map].cost(xy(p).0, xy(p).1).is_some();
    if !open(start) || !open(goal) {
        return None;
    }
    let offsets: Vec<usize> = models
        .iter()
        .scan(0, |total, m| {
            let at = *total;
            *total += (m.width * m.height) as usize;
            Some(at)
        })
        .collect();
    let index = |map: usize, x: i64, y: i64| offsets[map] + (y * models[map].width + x) as usize;
    let cells = offsets.last().unwrap()
        + (models.last().unwrap().width * models.last().unwrap().height) as usize;
    let mut dist = vec![f64::INFINITY; cells];
    let mut heap = BinaryHeap::new();
    dist[index(start.map, xy(start).0, xy(start).1)] = 0.0;
    heap.push(Cheapest(0.0, (start.map, xy(start).0, xy(start).1)));
    while let Some(Cheapest(d, (map, x, y))) = heap.pop() {
        if (map, x, y) == (goal.map, xy(goal).0, xy(goal).1) {
            return Some(d);
        }
        if d > dist[index(map, x, y)] {
            continue;
        }
        let mut next: Vec<(usize, i64, i64, f64)> = Vec::new();
        for dy in -1..=1 {
            for dx in -1..=1 {
                if let Some(c) = models[map].step_cost((x, y), (x + dx, y + dy)) {
                    next.push((map, x + dx, y + dy, c));
                }
            }
        }
        for link in links {
            let mut ways = vec![(link.from, link.to)];
            if link.two_way {
                ways.push((link.to, link.from));
            }
            for (a, b) in ways {
                if a.map == map && xy(a) == (x, y) && open(a) && open(b) {
                    next.push((b.map, xy(b).0, xy(b).1, link.cost));
                }
            }
        }
        for (m, nx, ny, c) in next {
            let k = index(m, nx, ny);
            if d + c < dist[k] {
                dist[k] = d + c;
                heap.push(Cheapest(d + c, (m, nx, ny)));
            }
        }
    }
    None
}

/// Asserts `path` is a legal path from `start` to `goal` through `links`, costing what it says.
fn check_legal(path: &LinkedPath, models: &[Model], links: &[Link], start: MapPos, goal: MapPos) {
    let first = path.legs.first().expect("a path has a leg");
    let last = path.legs.last().unwrap();
    assert_eq!(MapPos::new(first.map, first.path.cells[0]), start);
    assert_eq!(MapPos::new(last.map, last.path.end()), goal);
    assert!(last.then.is_none());
    let mut total = 0.0;
    for (k, leg) in path.legs.iter().enumerate() {
        let cells: Vec<(i64, i64)> =
            leg.path.cells.iter().map(|p| (i64::from(p.x), i64::from(p.y))).collect();
        let walked = models[leg.map]
            .path_cost(&cells)
            .unwrap_or_else(|| panic!("leg {k}: illegal walk {cells:?} on map {}", leg.map));
        assert!((walked - leg.path.cost).abs() < 1e-6, "leg {k}: its reported cost");
        total += walked;
        if let Some(l) = leg.then {
            let link = &links[l];
            let next = &path.legs[k + 1];
            let (here, there) =
                (MapPos::new(leg.map, leg.path.end()), MapPos::new(next.map, next.path.cells[0]));
            let forward = (link.from, link.to) == (here, there);
            let back = link.two_way && (link.to, link.from) == (here, there);
            assert!(
                forward || back,
                "leg {k}: link {l} {link:?} does not go {here:?} -> {there:?}"
            );
            total += link.cost;
        } else {
            assert_eq!(k, path.legs.len() - 1, "only the last leg ends without a link");
        }
    }
    assert!((total - path.cost).abs() < 1e-6, "the path's cost is its walks' and links'");
}

/// Asks the linked search from `start` to `goal` and checks it against the oracle: the same
/// cost and a legal path, or no path where the oracle finds none (with an error that says so).
/// Returns whether a path was found and whether it crosses a link.
fn check_query(
    pathfinder: &mut Pathfinder,
    (grids, models, links): (&[NavGrid], &[Model], &[Link]),
    start: MapPos,
    goal: MapPos,
    round: usize,
) -> (bool, bool) {
    let maps: Vec<&NavGrid> = grids.iter().collect();
    let expected = oracle(models, links, start, goal);
    let got = pathfinder.find(LinkedMaps::new(&maps, links), &PathQuery::new(start, goal));
    match (expected, got) {
        (Some(cost), Ok(path)) => {
            assert!(
                (path.cost - cost).abs() < 1e-6,
                "round {round}: cost {} but the optimum is {cost} ({start:?} -> {goal:?}, \
                 links {links:?})",
                path.cost
            );
            check_legal(&path, models, links, start, goal);
            (true, path.legs.len() > 1)
        }
        (None, Err(error)) => {
            let expected_error = matches!(
                error,
                PathError::Unreachable { .. }
                    | PathError::StartBlocked { .. }
                    | PathError::GoalBlocked { .. }
            );
            assert!(expected_error, "round {round}: {error:?}");
            (false, false)
        }
        (expected, got) => {
            panic!("round {round}: oracle {expected:?}, search {got:?} ({start:?} -> {goal:?})")
        }
    }
}

#[test]
fn linked_paths_cost_what_dijkstra_over_cells_and_links_costs() {
    let mut rng = Rng(16);
    let mut pathfinder = Pathfinder::new();
    let (mut found, mut unreachable, mut crossed) = (0, 0, 0);
    for round in 0..3000 {
        let count = 1 + rng.below(3) as usize;
        let (grids, models): (Vec<NavGrid>, Vec<Model>) =
            (0..count).map(|_| random_map(&mut rng)).unzip();
        let count = rng.below(6);
        let links = random_links(&mut rng, &grids, count, 40);
        for _ in 0..6 {
            let (start, goal) = (random_pos(&mut rng, &grids), random_pos(&mut rng, &grids));
            let (got, through) =
                check_query(&mut pathfinder, (&grids, &models, &links), start, goal, round);
            found += usize::from(got);
            unreachable += usize::from(!got);
            crossed += usize::from(through);
        }
    }
    // The random cases exercise both outcomes, and paths through links.
    assert!(
        found > 3000 && unreachable > 1000 && crossed > 1000,
        "{found} {unreachable} {crossed}"
    );
}

#[test]
fn bad_maps_and_links_get_typed_errors() {
    let grid = NavGrid::new(4, 4).unwrap();
    let maps = [&grid];
    let options = SearchOptions::default();
    let here = MapPos::new(0, GridPos::new(0, 0));
    let mut pathfinder = Pathfinder::new();
    let elsewhere = MapPos::new(1, GridPos::new(0, 0));
    assert_eq!(
        pathfinder.find(
            LinkedMaps::new(&maps, &[]),
            &PathQuery::new(elsewhere, here).with_options(options)
        ),
        Err(PathError::NoSuchMap { map: 1 })
    );
    assert_eq!(
        pathfinder.find(
            LinkedMaps::new(&maps, &[]),
            &PathQuery::new(here, MapPos::new(0, GridPos::new(4, 0))).with_options(options)
        ),
        Err(PathError::GoalOutOfBounds { goal: GridPos::new(4, 0), width: 4, height: 4 })
    );
    let far = MapPos::new(0, GridPos::new(3, 3));
    for bad in [
        Link::one_way(here, far, f64::NAN),
        Link::one_way(here, far, -1.0),
        Link::one_way(here, far, f64::INFINITY),
        Link::one_way(here, MapPos::new(0, GridPos::new(9, 9)), 1.0),
        Link::one_way(here, elsewhere, 1.0),
    ] {
        assert_eq!(
            pathfinder.find(
                LinkedMaps::new(&maps, &[Link::one_way(far, here, 1.0), bad]),
                &PathQuery::new(here, far).with_options(options)
            ),
            Err(PathError::InvalidLink { link: 1 }),
            "{bad:?}"
        );
    }
}

#[test]
fn a_one_way_link_is_not_taken_backwards_and_a_blocked_one_not_at_all() {
    // Two 3 x 1 rooms, joined only by links.
    let (a, mut b) = (NavGrid::new(3, 1).unwrap(), NavGrid::new(3, 1).unwrap());
    let maps = [&a, &b];
    let options = SearchOptions::default();
    let (a_end, b_end) = (MapPos::new(0, GridPos::new(2, 0)), MapPos::new(1, GridPos::new(0, 0)));
    let drop = Link::one_way(a_end, b_end, 1.0);
    let mut pathfinder = Pathfinder::new();
    let down = pathfinder
        .find(
            LinkedMaps::new(&maps, &[drop]),
            &PathQuery::new(MapPos::new(0, GridPos::new(0, 0)), MapPos::new(1, GridPos::new(2, 0)))
                .with_options(options),
        )
        .unwrap();
    assert_eq!(down.cost, 2.0 + 1.0 + 2.0);
    assert_eq!(down.links().collect::<Vec<_>>(), vec![0]);
    let up = pathfinder
        .find(LinkedMaps::new(&maps, &[drop]), &PathQuery::new(b_end, a_end).with_options(options));
    assert!(matches!(up, Err(PathError::Unreachable { .. })), "{up:?}");
    // The landing cell walled: the link is not taken.
    b.set(b_end.cell, Cell::Blocked).unwrap();
    let maps = [&a, &b];
    let walled = pathfinder.find(
        LinkedMaps::new(&maps, &[drop]),
        &PathQuery::new(MapPos::new(0, GridPos::new(0, 0)), MapPos::new(1, GridPos::new(2, 0)))
            .with_options(options),
    );
    assert!(matches!(walled, Err(PathError::Unreachable { .. })), "{walled:?}");
}

/// A larger 8-way grid (20 to 47 cells a side), with walls and, on some, terrain.
fn big_map(rng: &mut Rng) -> (NavGrid, Model) {
    let (width, height) = (20 + rng.below(28), 20 + rng.below(28));
    let varied = rng.chance(50);
    let cells = random_cells(rng, width, height, 20, varied);
    let model = Model { eight: true, ..Model::of(cells.clone()) };
    let mut grid = NavGrid::new(width, height).unwrap();
    set_cells(&mut grid, &cells);
    (grid, model)
}

/// With many links on a grid the search bounds the cost of leaving it by blocks of cells (an
/// estimate that is admissible but not consistent): still the oracle's costs.
#[test]
fn many_links_cost_what_dijkstra_over_cells_and_links_costs() {
    let mut rng = Rng(61);
    let mut pathfinder = Pathfinder::new();
    let mut crossed = 0;
    for round in 0..30 {
        let count = 1 + rng.below(2) as usize;
        let (grids, models): (Vec<NavGrid>, Vec<Model>) =
            (0..count).map(|_| big_map(&mut rng)).unzip();
        let count = 60 + rng.below(140);
        let links = random_links(&mut rng, &grids, count, 80);
        for _ in 0..8 {
            let (start, goal) = (random_pos(&mut rng, &grids), random_pos(&mut rng, &grids));
            let (_, through) =
                check_query(&mut pathfinder, (&grids, &models, &links), start, goal, round);
            crossed += usize::from(through);
        }
    }
    assert!(crossed > 20, "paths through links: {crossed}");
}

/// Inside each 8-way map the search through links expands jump points (stopping at every link
/// entrance and goal) where plain A* expands cells: on maps with terrain, walls between cells
/// and one-way edges, cells avoided and several goals, it finds paths exactly as cheap as
/// plain A* (itself checked against Dijkstra above), each legal (each step one the grid
/// allows, none onto or past an avoided cell), with far fewer expansions.
#[test]
fn jump_points_inside_maps_cost_what_plain_astar_through_links_costs() {
    let mut rng = Rng(97);
    let astar = SearchOptions { algorithm: Algorithm::AStar, ..SearchOptions::default() };
    let mut pathfinder = Pathfinder::new();
    let (mut jump_work, mut plain_work, mut compared, mut crossed) = (0u64, 0u64, 0, 0);
    for round in 0..40 {
        let count = 1 + rng.below(2) as usize;
        let mut grids: Vec<NavGrid> = (0..count).map(|_| big_map(&mut rng).0).collect();
        for grid in &mut grids {
            // Walls between cells and one-way edges on some maps.
            for _ in 0..rng.below(3) * 20 {
                let (x, y) = (rng.below(grid.width() - 1), rng.below(grid.height() - 1));
                let to = if rng.chance(50) { (x + 1, y) } else { (x, y + 1) };
                let edge = if rng.chance(50) { Edge::Wall } else { Edge::OneWay };
                grid.set_edge(GridPos::new(x, y), GridPos::new(to.0, to.1), edge).unwrap();
            }
        }
        let count = 10 + rng.below(120);
        let links = random_links(&mut rng, &grids, count, 80);
        let maps: Vec<&NavGrid> = grids.iter().collect();
        let world = LinkedMaps::new(&maps, &links);
        for _ in 0..8 {
            let start = random_pos(&mut rng, &grids);
            let goals: Vec<MapPos> =
                (0..1 + rng.below(3)).map(|_| random_pos(&mut rng, &grids)).collect();
            let avoid: Vec<MapPos> =
                (0..rng.below(3) * 10).map(|_| random_pos(&mut rng, &grids)).collect();
            let ask =
                |options| PathQuery::nearest(start, &goals).with_options(options).avoiding(&avoid);
            let jumped = pathfinder.find(world, &ask(SearchOptions::default()));
            let plain = pathfinder.find(world, &ask(astar));
            match (&jumped, &plain) {
                (Ok(jumped), Ok(plain)) => {
                    assert!(
                        (jumped.cost - plain.cost).abs() < 1e-6,
                        "round {round}: {} by jump points, {} by A* ({start:?} -> {goals:?})",
                        jumped.cost,
                        plain.cost
                    );
                    let mut walked = 0.0;
                    for leg in &jumped.legs {
                        let grid = &grids[leg.map];
                        // (The start and goals are never walled.)
                        let avoided = |cell: GridPos| {
                            let at = MapPos::new(leg.map, cell);
                            avoid.contains(&at) && at != start && !goals.contains(&at)
                        };
                        for pair in leg.path.cells.windows(2) {
                            let (a, b) = (pair[0], pair[1]);
                            assert!(grid.can_step(a, b), "round {round}: {pair:?}");
                            // An avoided cell is a wall: no step onto it, no diagonal past it.
                            let sides = [GridPos::new(a.x, b.y), GridPos::new(b.x, a.y)];
                            let diagonal = a.x != b.x && a.y != b.y;
                            assert!(!avoided(b), "round {round}: onto {b:?}");
                            assert!(!diagonal || !sides.into_iter().any(avoided), "{pair:?}");
                        }
                        walked += leg.path.cost;
                        if let Some(l) = leg.then {
                            walked += links[l].cost;
                        }
                    }
                    assert!((walked - jumped.cost).abs() < 1e-6, "round {round}: its cost");
                    jump_work += u64::from(jumped.stats.expanded);
                    plain_work += u64::from(plain.stats.expanded);
                    compared += 1;
                    crossed += usize::from(jumped.legs.len() > 1);
                }
                (Err(_), Err(_)) => {}
                _ => panic!("round {round}: {jumped:?} by jump points, {plain:?} by A*"),
            }
        }
    }
    assert!(compared > 200 && crossed > 20, "{compared} compared, {crossed} through links");
    // Jump points: a fraction of the cells (half the maps have terrain, where every cell on
    // the edge of a cost change is a jump point).
    eprintln!("{jump_work} jump points, {plain_work} cells");
    assert!(jump_work * 3 < plain_work * 2, "{jump_work} jump points, {plain_work} cells");
}

/// What a pathfinder keeps for its next search through links (the cells it reached, the copy
/// of the map's jump point bits with the link entrances as stops) is counted in its scratch
/// memory.
#[test]
fn a_pathfinder_counts_what_it_keeps_for_searches_through_links() {
    let grid = NavGrid::new(64, 64).unwrap();
    let at = |x, y| MapPos::new(0, GridPos::new(x, y));
    let links = [Link::two_way(at(1, 1), at(60, 60), 1.0)];
    let mut pathfinder = Pathfinder::new();
    pathfinder.find(&grid, &PathQuery::new(GridPos::new(0, 0), GridPos::new(63, 0))).unwrap();
    let alone = pathfinder.scratch_bytes();
    let maps = [&grid];
    let path =
        pathfinder.find(LinkedMaps::new(&maps, &links), &PathQuery::new(at(0, 0), at(62, 62)));
    assert_eq!(path.unwrap().legs.len(), 2, "the teleporter is taken");
    assert!(pathfinder.scratch_bytes() >= alone + 64 * 64 * 2, "{}", pathfinder.scratch_bytes());
}
