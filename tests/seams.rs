//! Maps whose edges touch join there (issue 39): a grid cut into random chunks, each chunk a
//! tilemap of its own laid beside the others, answers as the whole grid does; agents walk across
//! the seams with no jump; a chunk that goes away takes its ways with it, one that comes brings
//! new ones.

use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_ecs_tilemap::prelude::*;
use bevy_tilemap_nav::grid::{CornerRule, Neighborhood};
use bevy_tilemap_nav::plugin::{LinkEnd, NavLink, NavMaps, NavSeam, OnNavMap};
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::{PathError, PathQuery, Pathfinder};
mod common;
#[path = "common/tilemap.rs"]
mod tilemap;
use common::Rng;
use tilemap::{position, spawn_text_tilemap};

const TILE: f32 = 16.0;
const WALL: u32 = 1;

/// Cells of a world, `None` a wall, else the cost of entering.
type Cells = Vec<Vec<Option<u32>>>;

/// A chunk's map entity and the world's columns and rows it holds.
type Chunk = (Entity, (usize, usize), (usize, usize));

fn app(neighborhood: Neighborhood, corner_rule: CornerRule) -> App {
    let settings = NavSettings {
        neighborhood,
        corner_rule,
        max_search_time_per_frame: None,
        ..NavSettings::default()
    };
    let mut rules = TileRules::default().with(WALL, Cell::Blocked);
    for cost in 2..=4 {
        rules = rules.with(cost, Cell::Passable { cost });
    }
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .add_plugins(TilemapNavPlugin::with_settings(settings))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f32(1.0 / 60.0)))
        .insert_resource(rules);
    app
}

/// The texture of a cell: 0 ground, 1 a wall, 2-4 that cost.
fn texture(cell: Option<u32>) -> char {
    match cell {
        None => '#',
        Some(1) => '.',
        Some(c) => char::from_digit(c, 10).unwrap(),
    }
}

fn texture_index(c: char) -> Option<u32> {
    match c {
        '#' => Some(WALL),
        '.' => Some(0),
        c => c.to_digit(10),
    }
}

/// Spawns the part `x0..x1` x `y0..y1` of `cells` as a tilemap where it lies in the world.
fn spawn_chunk(
    app: &mut App,
    cells: &Cells,
    (x0, x1): (usize, usize),
    (y0, y1): (usize, usize),
) -> Entity {
    // Text rows, top row first.
    let rows: Vec<String> =
        (y0..y1).rev().map(|y| (x0..x1).map(|x| texture(cells[y][x])).collect()).collect();
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let at = Vec2::new(x0 as f32, y0 as f32) * TILE;
    spawn_text_tilemap(app, &rows, TILE, at, texture_index)
}

/// Random cuts of `0..n` into spans.
fn cuts(rng: &mut Rng, n: usize) -> Vec<(usize, usize)> {
    let mut at: Vec<usize> =
        (0..rng.below(4)).map(|_| 1 + rng.below(n as u32 - 1) as usize).collect();
    at.extend([0, n]);
    at.sort_unstable();
    at.dedup();
    at.windows(2).map(|w| (w[0], w[1])).collect()
}

/// A random world `w` x `h`: of every 10 cells about `walls` are walls and `costly` cost 2-4.
fn random_cells(rng: &mut Rng, (w, h): (usize, usize), (walls, costly): (u32, u32)) -> Cells {
    let mut cell = || match rng.below(10) {
        k if k < walls => None,
        k if k < walls + costly => Some(2 + rng.below(3)),
        _ => Some(1),
    };
    (0..h).map(|_| (0..w).map(|_| cell()).collect()).collect()
}

/// The moves of seed `seed`'s world: 4-way one seed in `four`, corners cut one in three.
fn moves(seed: u64, four: u64) -> (Neighborhood, CornerRule) {
    let neighborhood =
        if seed.is_multiple_of(four) { Neighborhood::Four } else { Neighborhood::Eight };
    let corner_rule =
        if seed.is_multiple_of(3) { CornerRule::CutCorners } else { CornerRule::NoCornerCutting };
    (neighborhood, corner_rule)
}

fn whole_grid(cells: &Cells, neighborhood: Neighborhood, corner_rule: CornerRule) -> NavGrid {
    let mut grid = NavGrid::new(cells[0].len() as u32, cells.len() as u32)
        .unwrap()
        .with_neighborhood(neighborhood)
        .with_corner_rule(corner_rule);
    common::set_cells(&mut grid, cells);
    grid
}

/// The chunk (its map entity and its own cell) that holds world cell `cell`.
fn chunk_of(chunks: &[Chunk], cell: GridPos) -> (Entity, GridPos) {
    let (x, y) = (cell.x as usize, cell.y as usize);
    let (map, xs, ys) = chunks
        .iter()
        .find(|(_, xs, ys)| (xs.0..xs.1).contains(&x) && (ys.0..ys.1).contains(&y))
        .unwrap();
    (*map, GridPos::new((x - xs.0) as u32, (y - ys.0) as u32))
}

/// The error for a goal that cannot be reached: on the start's map, or on another.
fn no_way(error: &NavError) -> bool {
    matches!(
        error,
        NavError::Search(PathError::Unreachable { .. }) | NavError::NoWayBetweenMaps { .. }
    )
}

fn world_point(cell: GridPos) -> Vec2 {
    Vec2::new(cell.x as f32, cell.y as f32) * TILE
}

#[test]
fn a_grid_cut_into_chunks_answers_as_the_whole_grid() {
    let mut pathfinder = Pathfinder::new();
    let (mut compared, mut across, mut unreachable) = (0, 0, 0);
    for seed in 1..=40u64 {
        let mut rng = Rng(seed * 7919);
        let (w, h) = (8 + rng.below(22) as usize, 6 + rng.below(18) as usize);
        let cells = random_cells(&mut rng, (w, h), (3, 2));
        let (neighborhood, corner_rule) = moves(seed, 5);
        let grid = whole_grid(&cells, neighborhood, corner_rule);
        let mut app = app(neighborhood, corner_rule);
        let mut chunks = Vec::new();
        for ys in cuts(&mut rng, h) {
            for xs in cuts(&mut rng, w) {
                chunks.push((spawn_chunk(&mut app, &cells, xs, ys), xs, ys));
            }
        }
        app.update();
        app.update();
        let open: Vec<GridPos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
        if open.len() < 2 {
            continue;
        }
        let mut asked = Vec::new();
        for _ in 0..8 {
            let start = open[rng.below(open.len() as u32) as usize];
            let goal = open[rng.below(open.len() as u32) as usize];
            let (goal_map, goal_cell) = chunk_of(&chunks, goal);
            let request = PathRequest::to(PathGoal::OnMap { map: goal_map, cell: goal_cell });
            let agent = app
                .world_mut()
                .spawn((Transform::from_translation(world_point(start).extend(1.0)), request))
                .id();
            asked.push((agent, start, goal));
        }
        for _ in 0..20 {
            app.update();
        }
        for (agent, start, goal) in asked {
            let want = pathfinder.find(&grid, &PathQuery::new(start, goal));
            let entity = app.world().entity(agent);
            let label = format!(
                "seed {seed} ({w} x {h}, {neighborhood:?}, {corner_rule:?}) {start} -> {goal}"
            );
            match (want, entity.get::<Path>(), entity.get::<PathFailed>()) {
                (Ok(want), Some(path), _) => {
                    assert!(
                        (path.cost - want.cost).abs() <= 1e-6 * want.cost.max(1.0),
                        "{label}: {} across the chunks, {} on the whole grid",
                        path.cost,
                        want.cost
                    );
                    compared += 1;
                    across += usize::from(!path.legs.is_empty());
                }
                (Err(PathError::Unreachable { .. }), None, Some(failed)) => {
                    assert!(no_way(&failed.error), "{label}: {:?}", failed.error);
                    unreachable += 1;
                }
                (want, path, failed) => panic!(
                    "{label}: the whole grid says {:?}, the chunks {:?} / {:?}",
                    want.map(|w| w.cost),
                    path.map(|p| p.cost),
                    failed.map(|f| &f.error)
                ),
            }
        }
    }
    // The test means something: many paths compared, many of them across seams.
    assert!(
        compared >= 200 && across >= 100 && unreachable >= 5,
        "{compared} {across} {unreachable}"
    );
}

/// Four 10 x 10 chunks in a square, a wall across three of them: an agent walks from one corner
/// to the other across two seams, each frame a step no longer than its speed allows.
fn four_chunks(app: &mut App) -> Vec<Chunk> {
    let cells: Cells = (0..20)
        .map(|y| (0..20).map(|x| if y == 10 && x < 16 { None } else { Some(1) }).collect())
        .collect();
    let mut chunks = Vec::new();
    for ys in [(0, 10), (10, 20)] {
        for xs in [(0, 10), (10, 20)] {
            chunks.push((spawn_chunk(app, &cells, xs, ys), xs, ys));
        }
    }
    app.update();
    app.update();
    chunks
}

#[test]
fn agents_walk_across_seams_without_a_jump() {
    // Once as it is, once with a wall put up ahead of the agent on the frame it is half a step
    // across a seam (its `OnNavMap` already the next chunk's): it plans again from where it
    // stands and gets there all the same.
    for wall_mid_seam in [false, true] {
        let mut app = app(Neighborhood::Eight, CornerRule::NoCornerCutting);
        let chunks = four_chunks(&mut app);
        let seams = app.world_mut().query::<&NavSeam>().iter(app.world()).count();
        assert!(seams > 0, "no seam links");
        let start = GridPos::new(1, 1);
        let goal = GridPos::new(2, 18);
        let (goal_map, goal_cell) = chunk_of(&chunks, goal);
        let speed = 4.0 * TILE;
        let agent = app
            .world_mut()
            .spawn((
                Transform::from_translation(world_point(start).extend(1.0)),
                PathRequest::to(PathGoal::OnMap { map: goal_map, cell: goal_cell }),
                PathFollower::new(speed),
            ))
            .id();
        let mut last = position(&app, agent);
        let mut crossed = Vec::new();
        let mut walled = None;
        for frame in 0..600 {
            app.update();
            let at = position(&app, agent);
            let step = at.distance(last);
            assert!(step <= speed / 60.0 + 1e-3, "frame {frame}: a jump of {step} to {at}");
            last = at;
            let maps = app.world().resource::<NavMaps>();
            let under = maps.at_world(at).expect("on a chunk");
            let cell = under.geometry.world_to_cell(at).unwrap();
            assert!(
                under.grid.is_passable(cell),
                "frame {frame}: in a wall at {cell} of {} (walled {walled:?}, on {:?})",
                under.entity,
                app.world().get::<OnNavMap>(agent)
            );
            let under = under.entity;
            if crossed.last() != Some(&under) {
                crossed.push(under);
            }
            let on = app.world().get::<OnNavMap>(agent).map(|o| o.0);
            let path = app.world().get::<Path>(agent);
            if wall_mid_seam
                && walled.is_none()
                && on.is_some_and(|on| on != under)
                && let Some(path) = path
                && path.cells.len() > 4
            {
                // A wall on the walk ahead, in the chunk it is stepping into.
                let ahead = path.cells[3];
                let storage = app.world().get::<TileStorage>(path.map).unwrap();
                let tile = storage.get(&TilePos::new(ahead.x, ahead.y)).unwrap();
                app.world_mut().get_mut::<TileTextureIndex>(tile).unwrap().0 = WALL;
                walled = Some((frame, ahead));
            }
            if app.world().get::<Path>(agent).is_none() && frame > 5 {
                break;
            }
        }
        let failed = app.world().get::<PathFailed>(agent).map(|f| f.error.clone());
        assert_eq!(failed, None, "wall mid seam: {wall_mid_seam}, {walled:?}");
        assert!(last.distance(world_point(goal)) < 1e-3, "stopped at {last}, not at the goal");
        // Round the wall's end: through the chunk on the right, three chunks in all.
        assert!(crossed.len() >= 3, "walked through {crossed:?}");
        assert_eq!(walled.is_some(), wall_mid_seam, "never half a step across a seam");
    }
}

#[test]
fn a_chunk_that_goes_takes_its_ways_and_one_that_comes_brings_new_ones() {
    let mut app = app(Neighborhood::Eight, CornerRule::NoCornerCutting);
    let chunks = four_chunks(&mut app);
    let right_bottom = chunks[1].0;
    let (goal_map, goal_cell) = chunk_of(&chunks, GridPos::new(2, 18));
    // The only way round the wall is through the bottom right chunk: taken away, the goal
    // cannot be reached.
    let ask = |app: &mut App| {
        let request = PathRequest::to(PathGoal::OnMap { map: goal_map, cell: goal_cell });
        let at = world_point(GridPos::new(1, 1)).extend(1.0);
        app.world_mut().spawn((Transform::from_translation(at), request)).id()
    };
    let before = ask(&mut app);
    app.update();
    app.update();
    assert!(app.world().get::<Path>(before).is_some(), "no path with every chunk in");
    let tiles: Vec<Entity> =
        app.world().get::<TileStorage>(right_bottom).unwrap().iter().flatten().copied().collect();
    for tile in tiles {
        app.world_mut().despawn(tile);
    }
    app.world_mut().despawn(right_bottom);
    app.update();
    let seams_left = app
        .world_mut()
        .query::<&NavLink>()
        .iter(app.world())
        .filter(|l| l.from.map == right_bottom || l.to.map == right_bottom)
        .count();
    assert_eq!(seams_left, 0, "seams to a chunk that is gone");
    // Joining turned off takes every seam away; on again, they come back.
    let seam_count = |app: &mut App| app.world_mut().query::<&NavSeam>().iter(app.world()).count();
    let before_off = seam_count(&mut app);
    assert!(before_off > 0);
    app.world_mut().resource_mut::<NavSettings>().join_touching_maps = false;
    app.update();
    assert_eq!(seam_count(&mut app), 0, "seams left with joining off");
    app.world_mut().resource_mut::<NavSettings>().join_touching_maps = true;
    app.update();
    assert_eq!(seam_count(&mut app), before_off);
    let after = ask(&mut app);
    for _ in 0..4 {
        app.update();
    }
    let failed = app.world().get::<PathFailed>(after).map(|f| f.error.clone());
    assert!(failed.as_ref().is_some_and(no_way), "with the chunk gone: {failed:?}");
    // The chunk streamed back in (open ground this time): the way is there again.
    let cells: Cells = vec![vec![Some(1); 20]; 20];
    spawn_chunk(&mut app, &cells, (10, 20), (0, 10));
    app.update();
    let again = ask(&mut app);
    for _ in 0..4 {
        app.update();
    }
    assert!(app.world().get::<Path>(again).is_some(), "no path once the chunk is back");
}

/// Despawns a chunk's tiles and tilemap, as a game streaming it out does.
fn unload(app: &mut App, chunk: Entity) {
    let tiles: Vec<Entity> =
        app.world().get::<TileStorage>(chunk).unwrap().iter().flatten().copied().collect();
    for tile in tiles {
        app.world_mut().despawn(tile);
    }
    app.world_mut().despawn(chunk);
}

#[test]
fn a_walk_through_a_chunk_that_unloads_is_planned_again_or_told_no_way() {
    // A wall across the middle row with a gap at each end: from the bottom right chunk to the
    // top left one, the short way is through the bottom left chunk and its gap.
    let cells: Cells = (0..20)
        .map(|y| {
            (0..20).map(|x| if y == 10 && (4..16).contains(&x) { None } else { Some(1) }).collect()
        })
        .collect();
    for unload_also_the_other_way in [false, true] {
        let mut app = app(Neighborhood::Eight, CornerRule::NoCornerCutting);
        let mut chunks = Vec::new();
        for ys in [(0, 10), (10, 20)] {
            for xs in [(0, 10), (10, 20)] {
                chunks.push((spawn_chunk(&mut app, &cells, xs, ys), xs, ys));
            }
        }
        app.update();
        app.update();
        let (bottom_left, top_right) = (chunks[0].0, chunks[3].0);
        let (start, goal) = (GridPos::new(12, 2), GridPos::new(2, 18));
        let (goal_map, goal_cell) = chunk_of(&chunks, goal);
        let agent = app
            .world_mut()
            .spawn((
                Transform::from_translation(world_point(start).extend(1.0)),
                PathRequest::to(PathGoal::OnMap { map: goal_map, cell: goal_cell }),
                PathFollower::new(4.0 * TILE),
            ))
            .id();
        for _ in 0..3 {
            app.update();
        }
        let legs = app
            .world()
            .get::<Path>(agent)
            .map(|p| p.legs.iter().map(|l| l.map).collect::<Vec<_>>());
        assert!(
            legs.as_ref().is_some_and(|l| l.contains(&bottom_left)),
            "the short way goes through the bottom left chunk: {legs:?}"
        );
        // Streamed out while the agent is still in the bottom right chunk.
        unload(&mut app, bottom_left);
        if unload_also_the_other_way {
            unload(&mut app, top_right);
        }
        let mut last = position(&app, agent);
        for frame in 0..900 {
            app.update();
            let at = position(&app, agent);
            assert!(at.distance(last) <= 4.0 * TILE / 60.0 + 1e-3, "frame {frame}: a jump to {at}");
            last = at;
            let maps = app.world().resource::<NavMaps>();
            let map = maps.at_world(at).expect("on a chunk that is still there");
            assert_ne!(map.entity, bottom_left);
            assert!(map.grid.is_passable(map.geometry.world_to_cell(at).unwrap()));
            let path = app.world().get::<Path>(agent);
            if path.is_none() && app.world().get::<PathRequest>(agent).is_none() {
                break;
            }
        }
        let failed = app.world().get::<PathFailed>(agent).map(|f| f.error.clone());
        if unload_also_the_other_way {
            // Nothing is left between the two: told so, and standing where it was walking.
            assert!(failed.as_ref().is_some_and(no_way), "{failed:?}");
        } else {
            // Planned again the long way, through the top right chunk's gap.
            assert_eq!(failed, None);
            assert!(last.distance(world_point(goal)) < 1e-3, "stopped at {last}");
        }
    }
}

/// The search over chunks placed on their world's lattice (`LinkedMaps::with_places`) against
/// the same search without places (no estimate across chunks) and against the whole grid: the
/// same costs, with teleporters of any cost among the seams; fewer cells searched.
#[test]
fn placed_chunks_search_straight_at_the_goal_and_stay_cheapest() {
    use bevy_tilemap_nav::search::{Link, LinkedMaps, MapPos, Placement};
    let mut pathfinder = Pathfinder::new();
    let (mut placed_work, mut plain_work, mut compared) = (0u64, 0u64, 0);
    for seed in 1..=60u64 {
        let mut rng = Rng(seed * 104_729);
        let (w, h) = (10 + rng.below(40) as usize, 10 + rng.below(40) as usize);
        let cells = random_cells(&mut rng, (w, h), (2, 1));
        let (neighborhood, corner_rule) = moves(seed, 4);
        let whole = whole_grid(&cells, neighborhood, corner_rule);
        let (xs, ys) = (cuts(&mut rng, w), cuts(&mut rng, h));
        let mut chunks = Vec::new();
        let mut grids = Vec::new();
        for &(y0, y1) in &ys {
            for &(x0, x1) in &xs {
                let part: Cells = (y0..y1).map(|y| cells[y][x0..x1].to_vec()).collect();
                grids.push(whole_grid(&part, neighborhood, corner_rule));
                chunks.push(((x0, x1), (y0, y1)));
            }
        }
        let at = |cell: GridPos| {
            let (x, y) = (cell.x as usize, cell.y as usize);
            let k = chunks
                .iter()
                .position(|(xs, ys)| (xs.0..xs.1).contains(&x) && (ys.0..ys.1).contains(&y))
                .unwrap();
            let ((x0, _), (y0, _)) = chunks[k];
            MapPos::new(k, GridPos::new((x - x0) as u32, (y - y0) as u32))
        };
        // Seams: every step of the whole grid from one chunk to another.
        let mut links = Vec::new();
        for a in whole.positions() {
            for (b, cost) in whole.neighbors(a) {
                let (from, to) = (at(a), at(b));
                if from.map != to.map {
                    links.push(Link::one_way(from, to, cost));
                }
            }
        }
        let seams = links.len();
        // Teleporters in half the worlds, some cheaper than walking.
        let open: Vec<GridPos> = whole.positions().filter(|&p| whole.is_passable(p)).collect();
        if open.len() < 2 {
            continue;
        }
        if seed % 2 == 0 {
            for _ in 0..1 + rng.below(4) {
                let (a, b) = (
                    open[rng.below(open.len() as u32) as usize],
                    open[rng.below(open.len() as u32) as usize],
                );
                links.push(Link::two_way(at(a), at(b), f64::from(rng.below(4))));
            }
        }
        let refs: Vec<&NavGrid> = grids.iter().collect();
        let places: Vec<Option<Placement>> = chunks
            .iter()
            .map(|((x0, _), (y0, _))| Some(Placement { world: 7, x: *x0 as i64, y: *y0 as i64 }))
            .collect();
        let plain = LinkedMaps::new(&refs, &links);
        let placed = plain.with_places(&places);
        for _ in 0..10 {
            let (a, b) = (
                open[rng.below(open.len() as u32) as usize],
                open[rng.below(open.len() as u32) as usize],
            );
            let query = PathQuery::new(at(a), at(b));
            let label = format!(
                "seed {seed} ({w} x {h}, {neighborhood:?}, {corner_rule:?}, {seams} seams) {a} -> {b}"
            );
            let with = pathfinder.find(placed, &query);
            let without = pathfinder.find(plain, &query);
            match (&with, &without) {
                (Ok(with), Ok(without)) => {
                    let tolerance = 1e-6 * without.cost.max(1.0);
                    assert!(
                        (with.cost - without.cost).abs() <= tolerance,
                        "{label}: {} placed, {} not",
                        with.cost,
                        without.cost
                    );
                    if links.len() == seams {
                        let one = pathfinder.find(&whole, &PathQuery::new(a, b)).unwrap();
                        assert!(
                            (with.cost - one.cost).abs() <= tolerance,
                            "{label}: {} placed, {} whole",
                            with.cost,
                            one.cost
                        );
                    }
                    placed_work += u64::from(with.stats.expanded);
                    plain_work += u64::from(without.stats.expanded);
                    compared += 1;
                }
                (Err(_), Err(_)) => {}
                _ => panic!(
                    "{label}: {:?} placed, {:?} not",
                    with.map(|p| p.cost),
                    without.map(|p| p.cost)
                ),
            }
        }
    }
    assert!(compared >= 300, "{compared}");
    // The estimate across chunks saves work (0.63x the cells on these small worlds, seeds
    // 1-60).
    eprintln!("cells searched: {placed_work} placed, {plain_work} not");
    assert!(
        placed_work * 4 < plain_work * 3,
        "{placed_work} cells searched placed, {plain_work} not"
    );
}

/// Not a seam, a link the agent is carried across (two maps a gap apart): a wall put up on its
/// walk on the far map after it crossed is seen, and it walks round it. (The walk after a link
/// was filed under the map it left, so changes on the far map went unseen.)
#[test]
fn a_wall_on_the_walk_after_a_link_is_seen() {
    let mut app = app(Neighborhood::Eight, CornerRule::NoCornerCutting);
    let open: Cells = vec![vec![Some(1); 10]; 10];
    let near = spawn_chunk(&mut app, &open, (0, 10), (0, 10));
    // Ten cells to the right of the first map's edge: they do not touch.
    let rows: Vec<String> = (0..10).map(|_| ".".repeat(10)).collect();
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let far = spawn_text_tilemap(&mut app, &rows, TILE, Vec2::new(20.0 * TILE, 0.0), texture_index);
    app.update();
    app.world_mut().spawn(NavLink::one_way(
        LinkEnd::new(near, GridPos::new(9, 5)),
        LinkEnd::new(far, GridPos::new(0, 5)),
        1.0,
    ));
    let goal = GridPos::new(8, 5);
    let agent = app
        .world_mut()
        .spawn((
            Transform::from_translation(world_point(GridPos::new(1, 5)).extend(1.0)),
            PathRequest::to(PathGoal::OnMap { map: far, cell: goal }),
            PathFollower::new(4.0 * TILE),
        ))
        .id();
    let mut walled = false;
    for frame in 0..600 {
        app.update();
        let at = position(&app, agent);
        let maps = app.world().resource::<NavMaps>();
        if let Some(map) = maps.at_world(at) {
            let cell = map.geometry.world_to_cell(at).unwrap();
            assert!(map.grid.is_passable(cell), "frame {frame}: in a wall at {cell}");
        }
        let on_far = app.world().get::<OnNavMap>(agent).is_some_and(|o| o.0 == far);
        if on_far && !walled {
            let tile = app.world().get::<TileStorage>(far).unwrap().get(&TilePos::new(4, 5));
            app.world_mut().get_mut::<TileTextureIndex>(tile.unwrap()).unwrap().0 = WALL;
            walled = true;
        }
        let idle = app.world().get::<Path>(agent).is_none()
            && app.world().get::<PathRequest>(agent).is_none();
        if walled && idle {
            break;
        }
    }
    assert!(walled, "never crossed");
    let failed = app.world().get::<PathFailed>(agent).map(|f| f.error.clone());
    assert_eq!(failed, None);
    let far_map = app.world().resource::<NavMaps>().get(far).unwrap().geometry.cell_to_world(goal);
    assert!(position(&app, agent).distance(far_map) < 1e-3, "stopped short of the goal");
}
