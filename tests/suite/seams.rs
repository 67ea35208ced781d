//! Maps whose edges touch join there (issue 39): a grid cut into random chunks, each chunk a
//! tilemap of its own laid beside the others, answers as the whole grid does; agents walk across
//! the seams with no jump; a chunk that goes away takes its ways with it, one that comes brings
//! new ones.

use std::time::Duration;

use crate::support::Rng;
use crate::tilemap::{position, spawn_text_tilemap};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_ecs_tilemap::prelude::*;
use bevy_tilemap_nav::grid::{CornerRule, HexCoords, Neighborhood};
use bevy_tilemap_nav::plugin::{
    LinkEnd, NavDiagnostics, NavLink, NavMaps, NavSeam, OnNavMap, WorkBudget, WorkShares,
    WorldSearch,
};
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::{
    Algorithm, Link, LinkedMaps, LinkedPath, MapPos, PathError, PathQuery, Pathfinder, Placement,
    SearchStep, WorldFind, WorldGraph, seam_links, seam_links_near,
};

const TILE: f32 = 16.0;
const WALL: u32 = 1;

/// Cells of a world, `None` a wall, else the cost of entering.
type Cells = Vec<Vec<Option<u32>>>;

/// A chunk's map entity and the world's columns and rows it holds.
type Chunk = (Entity, (usize, usize), (usize, usize));

fn app(neighborhood: Neighborhood, corner_rule: CornerRule) -> App {
    app_searching(neighborhood, corner_rule, WorldSearch::Exact)
}

fn app_searching(neighborhood: Neighborhood, corner_rule: CornerRule, search: WorldSearch) -> App {
    let settings = NavSettings {
        neighborhood,
        corner_rule,
        world_search: search,
        work: WorkBudget { time: None, ..default() },
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
    crate::support::set_cells(&mut grid, cells);
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
    cut_grids_answer(WorldSearch::Exact);
}

/// Searched over the world's graph: a path whenever the whole grid has one (walked step by
/// step across the seams it names), never cheaper than the cheapest, and a typed error when
/// there is none.
#[test]
fn a_grid_cut_into_chunks_answers_over_its_graph() {
    cut_grids_answer(WorldSearch::Hierarchical);
}

/// The cost of `path` walked step by step on the maps' grids: legal steps, legs joined by the
/// seam or link each names (from where the walk before ends to where its own begins).
fn walked(app: &App, path: &NavPath) -> f64 {
    let maps = app.world().resource::<NavMaps>();
    let walk = |map: Entity, cells: &[GridPos]| -> f64 {
        let grid = &maps.get(map).expect("a map").grid;
        cells.windows(2).map(|p| grid.step_cost(p[0], p[1]).expect("a legal step")).sum()
    };
    let mut total = walk(path.map, &path.cells);
    let (mut map, mut end) = (path.map, *path.cells.last().unwrap());
    for leg in &path.legs {
        let link = app.world().get::<NavLink>(leg.link).expect("a link");
        assert_eq!(
            (link.from, link.to),
            (LinkEnd::new(map, end), LinkEnd::new(leg.map, leg.cells[0]))
        );
        let on = walk(leg.map, &leg.cells);
        assert!((leg.cost - (on + link.cost)).abs() < 1e-6 * leg.cost.max(1.0));
        total += leg.cost;
        (map, end) = (leg.map, *leg.cells.last().unwrap());
    }
    total
}

fn cut_grids_answer(search: WorldSearch) {
    let mut pathfinder = Pathfinder::new();
    let (mut compared, mut across, mut unreachable, mut dearer_paths) = (0, 0, 0, 0);
    for seed in 1..=40u64 {
        let mut rng = Rng(seed * 7919);
        let (w, h) = (8 + rng.below(22) as usize, 6 + rng.below(18) as usize);
        let cells = random_cells(&mut rng, (w, h), (3, 2));
        let (neighborhood, corner_rule) = moves(seed, 5);
        let grid = whole_grid(&cells, neighborhood, corner_rule);
        let mut app = app_searching(neighborhood, corner_rule, search);
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
            match (want, entity.get::<NavPath>(), entity.get::<PathFailed>()) {
                (Ok(want), Some(path), _) => {
                    let tolerance = 1e-6 * want.cost.max(1.0);
                    let walked = walked(&app, path);
                    assert!((walked - path.cost).abs() <= tolerance, "{label}: walked {walked}");
                    let cheapest = (path.cost - want.cost).abs() <= tolerance;
                    let dearer = path.cost > want.cost && search == WorldSearch::Hierarchical;
                    assert!(
                        cheapest || dearer,
                        "{label}: {} across the chunks, {} on the whole grid",
                        path.cost,
                        want.cost
                    );
                    compared += 1;
                    dearer_paths += usize::from(!cheapest);
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
    // Over the graph, some paths cross a seam where its node is, not where the cheapest does
    // (so the graph was searched).
    eprintln!("{search:?}: {dearer_paths} of {compared} paths dearer than the cheapest");
    assert_eq!(dearer_paths > 0, search == WorldSearch::Hierarchical);
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

/// The default `WorldSearch::Auto`: a world of 16 chunks or more is searched over its graph,
/// a world of four exactly (the cheapest path); both answer a request across the world.
#[test]
fn the_default_searches_worlds_of_many_chunks_over_their_graph() {
    for (side, over_graph) in [(2, false), (4, true)] {
        let mut app = App::new();
        let work = WorkBudget { time: None, ..default() };
        app.add_plugins(MinimalPlugins)
            .add_plugins(TilemapNavPlugin::with_settings(NavSettings { work, ..default() }))
            .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f32(
                1.0 / 60.0,
            )))
            .insert_resource(TileRules::default().with(WALL, Cell::Blocked));
        let n = 8 * side;
        // A wall across the world, open at its right end.
        let cells: Cells = (0..n)
            .map(|y| (0..n).map(|x| if y == n / 2 && x + 2 < n { None } else { Some(1) }).collect())
            .collect();
        for ys in (0..side).map(|k| (8 * k, 8 * k + 8)) {
            for xs in (0..side).map(|k| (8 * k, 8 * k + 8)) {
                spawn_chunk(&mut app, &cells, xs, ys);
            }
        }
        app.update();
        app.update();
        let goal = world_point(GridPos::new(1, n as u32 - 2));
        let agent = app
            .world_mut()
            .spawn((
                Transform::from_translation(world_point(GridPos::new(1, 1)).extend(0.0)),
                PathRequest::to(PathGoal::World(goal)),
            ))
            .id();
        let mut graph_searches = 0;
        for _ in 0..60 {
            app.update();
            graph_searches += app.world().resource::<NavDiagnostics>().graph_searches;
            if app.world().get::<NavPath>(agent).is_some() {
                break;
            }
        }
        let path = app.world().get::<NavPath>(agent).expect("answered");
        assert_eq!(graph_searches > 0, over_graph, "{side} x {side} chunks");
        let whole = whole_grid(&cells, Neighborhood::Eight, CornerRule::NoCornerCutting);
        let (start, end) = (GridPos::new(1, 1), GridPos::new(1, n as u32 - 2));
        let cheapest = Pathfinder::new().find(&whole, &PathQuery::new(start, end)).unwrap().cost;
        let cost = walked(&app, path);
        assert!(cost >= cheapest - 1e-6 && cost <= cheapest * 1.1, "{cost} against {cheapest}");
        if !over_graph {
            assert!((cost - cheapest).abs() < 1e-6, "{cost} against {cheapest}");
        }
    }
}

#[test]
fn agents_walk_across_seams_without_a_jump() {
    // Once as it is, once with a wall put up ahead of the agent on the frame it is half a step
    // across a seam (its `OnNavMap` already the next chunk's): it plans again from where it
    // stands and gets there all the same.
    let searches = [WorldSearch::Exact, WorldSearch::Hierarchical];
    for (wall_mid_seam, search) in [false, true].into_iter().flat_map(|w| searches.map(|s| (w, s)))
    {
        let mut app = app_searching(Neighborhood::Eight, CornerRule::NoCornerCutting, search);
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
            let path = app.world().get::<NavPath>(agent);
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
            if app.world().get::<NavPath>(agent).is_none() && frame > 5 {
                break;
            }
        }
        let failed = app.world().get::<PathFailed>(agent).map(|f| f.error.clone());
        assert_eq!(failed, None, "wall mid seam: {wall_mid_seam}, {walled:?}, {search:?}");
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
    assert!(app.world().get::<NavPath>(before).is_some(), "no path with every chunk in");
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
    assert!(app.world().get::<NavPath>(again).is_some(), "no path once the chunk is back");
}

/// Every seam link of the world, by its ends: its entity and cost.
fn seam_entities(app: &mut App) -> std::collections::HashMap<(LinkEnd, LinkEnd), (Entity, u64)> {
    let mut query = app.world_mut().query_filtered::<(Entity, &NavLink), With<NavSeam>>();
    query.iter(app.world()).map(|(e, l)| ((l.from, l.to), (e, l.cost.to_bits()))).collect()
}

/// A tile change in one chunk remakes the seams near that chunk only: afterwards the seam links
/// are the ones a remake of the whole world gives (joining turned off and on), and the links
/// out of cells more than a step from the changed chunk are the same entities as before.
#[test]
fn a_tile_change_remakes_the_seams_of_its_chunk_only() {
    let mut app = app(Neighborhood::Eight, CornerRule::NoCornerCutting);
    // Nine 10 x 10 chunks, three by three.
    let cells: Cells =
        (0..30).map(|y| (0..30).map(|x| Some(1 + (x + y) as u32 % 3)).collect()).collect();
    let mut chunks = Vec::new();
    for ys in [(0, 10), (10, 20), (20, 30)] {
        for xs in [(0, 10), (10, 20), (20, 30)] {
            chunks.push((spawn_chunk(&mut app, &cells, xs, ys), xs, ys));
        }
    }
    app.update();
    app.update();
    let before = seam_entities(&mut app);
    assert!(before.len() > 100, "{} seam links", before.len());
    // Walls on the border cells of the bottom left chunk (its right column and top row).
    let corner = chunks[0].0;
    for (x, y) in [(9, 3), (9, 9), (4, 9), (0, 9)] {
        let storage = app.world().get::<TileStorage>(corner).unwrap();
        let tile = storage.get(&TilePos::new(x, y)).unwrap();
        app.world_mut().get_mut::<TileTextureIndex>(tile).unwrap().0 = WALL;
    }
    app.update();
    let after = seam_entities(&mut app);
    assert_ne!(after.len(), before.len(), "the walls closed no seam step");
    // Far from the bottom left chunk (more than a step beyond its 10 x 10 cells): untouched.
    let cell_of = |end: LinkEnd| {
        let (_, (x0, _), (y0, _)) = *chunks.iter().find(|c| c.0 == end.map).unwrap();
        (x0 as u32 + end.cell.x, y0 as u32 + end.cell.y)
    };
    let far = |end: LinkEnd| {
        let (x, y) = cell_of(end);
        x > 10 || y > 10
    };
    let mut kept_far = 0;
    for (ends, old) in before.iter().filter(|(ends, _)| far(ends.0)) {
        assert_eq!(after.get(ends), Some(old), "a far seam link was made again");
        kept_far += 1;
    }
    assert!(kept_far > 50 && after.keys().all(|ends| !far(ends.0) || before.contains_key(ends)));
    // The same links (ends and costs) as the whole world's remade.
    app.world_mut().resource_mut::<NavSettings>().join_touching_maps = false;
    app.update();
    app.world_mut().resource_mut::<NavSettings>().join_touching_maps = true;
    app.update();
    let remade = seam_entities(&mut app);
    let costs = |links: &std::collections::HashMap<(LinkEnd, LinkEnd), (Entity, u64)>| {
        let mut v: Vec<_> = links
            .iter()
            .map(|(ends, (_, cost))| (cell_of(ends.0), cell_of(ends.1), *cost))
            .collect();
        v.sort_unstable();
        v
    };
    assert_eq!(costs(&after), costs(&remade));
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
            .get::<NavPath>(agent)
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
            let path = app.world().get::<NavPath>(agent);
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
/// A random world of seed `seed` cut into random chunks, in the core's terms.
struct CutWorld {
    label: String,
    whole: NavGrid,
    grids: Vec<NavGrid>,
    /// Each chunk's columns and rows of the world.
    chunks: Vec<((usize, usize), (usize, usize))>,
    places: Vec<Option<Placement>>,
    /// Every step of the whole grid from one chunk to another.
    seams: Vec<Link>,
    open: Vec<GridPos>,
}

impl CutWorld {
    fn new(seed: u64, rng: &mut Rng, size: (u32, u32)) -> Self {
        Self::cut(seed, rng, size, None)
    }

    /// A hex world (in the numbering of seed `seed`), cut at even columns and rows so that
    /// every chunk keeps the world's shifted lines.
    fn hex(seed: u64, rng: &mut Rng, size: (u32, u32)) -> Self {
        Self::cut(seed, rng, size, Some(HexCoords::ALL[seed as usize % 6]))
    }

    fn cut(seed: u64, rng: &mut Rng, size: (u32, u32), hex: Option<HexCoords>) -> Self {
        let (w, h) = (
            size.0 as usize + rng.below(size.1) as usize,
            size.0 as usize + rng.below(size.1) as usize,
        );
        let cells = random_cells(rng, (w, h), (2, 1));
        let (neighborhood, corner_rule) = match hex {
            Some(coords) => (Neighborhood::Hex(coords), CornerRule::NoCornerCutting),
            None => moves(seed, 4),
        };
        let whole = whole_grid(&cells, neighborhood, corner_rule);
        let (mut xs, mut ys) = (cuts(rng, w), cuts(rng, h));
        if hex.is_some() {
            let even = |spans: Vec<(usize, usize)>| {
                let mut at: Vec<usize> = spans.iter().map(|s| s.0 & !1).collect();
                at.push(spans.last().unwrap().1);
                at.dedup();
                at.windows(2).map(|p| (p[0], p[1])).collect::<Vec<_>>()
            };
            (xs, ys) = (even(xs), even(ys));
        }
        let mut chunks = Vec::new();
        let mut grids = Vec::new();
        for &(y0, y1) in &ys {
            for &(x0, x1) in &xs {
                let part: Cells = (y0..y1).map(|y| cells[y][x0..x1].to_vec()).collect();
                grids.push(whole_grid(&part, neighborhood, corner_rule));
                chunks.push(((x0, x1), (y0, y1)));
            }
        }
        let places = chunks
            .iter()
            .map(|((x0, _), (y0, _))| Some(Placement { world: 7, x: *x0 as i64, y: *y0 as i64 }))
            .collect();
        let open = whole.positions().filter(|&p| whole.is_passable(p)).collect();
        let label = format!("seed {seed} ({w} x {h}, {neighborhood:?}, {corner_rule:?})");
        let mut world = CutWorld { label, whole, grids, chunks, places, seams: Vec::new(), open };
        world.seams = world.whole_seams();
        world
    }

    /// The chunk and its own cell at world cell `cell`.
    fn at(&self, cell: GridPos) -> MapPos {
        let (x, y) = (cell.x as usize, cell.y as usize);
        let k = self
            .chunks
            .iter()
            .position(|(xs, ys)| (xs.0..xs.1).contains(&x) && (ys.0..ys.1).contains(&y))
            .unwrap();
        let ((x0, _), (y0, _)) = self.chunks[k];
        MapPos::new(k, GridPos::new((x - x0) as u32, (y - y0) as u32))
    }

    fn whole_seams(&self) -> Vec<Link> {
        let mut links = Vec::new();
        for a in self.whole.positions() {
            for (b, cost) in self.whole.neighbors(a) {
                let (from, to) = (self.at(a), self.at(b));
                if from.map != to.map {
                    links.push(Link::one_way(from, to, cost));
                }
            }
        }
        links
    }

    fn some_cell(&self, rng: &mut Rng) -> GridPos {
        self.open[rng.below(self.open.len() as u32) as usize]
    }

    /// Puts `n` random walls and one-way edges (and some openings) between cells, on the whole
    /// grid and on the chunks alike: inside a chunk as an edge of its grid, across a seam as
    /// the sides of the two border cells (a wall on both, a one-way edge as a drop on the side
    /// it is crossed from).
    fn add_edges(&mut self, rng: &mut Rng, n: u32) {
        let (w, h) = (self.whole.width(), self.whole.height());
        let mut inside: Vec<(GridPos, GridPos, Edge)> = Vec::new();
        let mut seam: std::collections::HashMap<(GridPos, GridPos), Edge> = Default::default();
        for _ in 0..n {
            let a = GridPos::new(rng.below(w), rng.below(h));
            let b = match rng.below(4) {
                0 => GridPos::new(a.x + 1, a.y),
                1 => GridPos::new(a.x.wrapping_sub(1), a.y),
                2 => GridPos::new(a.x, a.y + 1),
                _ => GridPos::new(a.x, a.y.wrapping_sub(1)),
            };
            if !self.whole.in_bounds(b) {
                continue;
            }
            let edge = [Edge::Wall, Edge::OneWay, Edge::Open][rng.below(3) as usize];
            // (Sides across a seam are named here for square cells only.)
            if self.whole.neighborhood().is_hex() && self.at(a).map != self.at(b).map {
                continue;
            }
            match self.at(a).map == self.at(b).map {
                true => inside.push((a, b, edge)),
                false => {
                    seam.remove(&(b, a));
                    seam.insert((a, b), edge);
                }
            }
        }
        // The seams' sides first (they set every side of the cells named), then the insides.
        let side = |a: GridPos, b: GridPos| match (b.x as i64 - a.x as i64, b.y as i64 - a.y as i64)
        {
            (1, 0) => Sides::EAST,
            (-1, 0) => Sides::WEST,
            (0, 1) => Sides::NORTH,
            _ => Sides::SOUTH,
        };
        let mut sides: std::collections::HashMap<GridPos, (Sides, Sides)> = Default::default();
        for (&(a, b), &edge) in &seam {
            self.whole.set_edge(a, b, edge).unwrap();
            let (sa, sb) = (side(a, b), side(b, a));
            match edge {
                Edge::Wall => {
                    let e = sides.entry(a).or_default();
                    e.0 = e.0 | sa;
                    let e = sides.entry(b).or_default();
                    e.0 = e.0 | sb;
                }
                Edge::OneWay => {
                    let e = sides.entry(a).or_default();
                    e.1 = e.1 | sa;
                }
                Edge::Open => {}
            }
        }
        for &cell in sides.keys() {
            let at = self.at(cell);
            let ((x0, _), (y0, _)) = self.chunks[at.map];
            let of = |p: GridPos| {
                let world = GridPos::new(p.x + x0 as u32, p.y + y0 as u32);
                sides.get(&world).copied().unwrap_or_default()
            };
            self.grids[at.map].set_sides([at.cell], of);
        }
        for (a, b, edge) in inside {
            self.whole.set_edge(a, b, edge).unwrap();
            let (ca, cb) = (self.at(a), self.at(b));
            self.grids[ca.map].set_edge(ca.cell, cb.cell, edge).unwrap();
        }
        self.seams = self.whole_seams();
        self.label.push_str(" with edges");
    }

    /// Sets world cell `cell` on the whole grid and on its chunk.
    fn set(&mut self, cell: GridPos, to: Cell) {
        self.whole.set(cell, to).unwrap();
        let at = self.at(cell);
        self.grids[at.map].set(at.cell, to).unwrap();
        self.seams = self.whole_seams();
        let whole = &self.whole;
        self.open = whole.positions().filter(|&p| whole.is_passable(p)).collect();
    }
}

/// A sorted list of a world's seam links, to compare.
fn sorted(links: &[Link]) -> Vec<(usize, u32, u32, usize, u32, u32, u64)> {
    let mut out: Vec<_> = links
        .iter()
        .map(|l| {
            let (f, t) = (l.from, l.to);
            (f.map, f.cell.x, f.cell.y, t.map, t.cell.x, t.cell.y, l.cost.to_bits())
        })
        .collect();
    out.sort_unstable();
    out
}

#[test]
fn seam_links_are_the_steps_of_the_whole_grid() {
    for seed in 1..=120u64 {
        let mut rng = Rng(seed * 7_919);
        let mut world = match seed > 80 {
            true => CutWorld::hex(seed, &mut rng, (3, 30)),
            false => CutWorld::new(seed, &mut rng, (3, 30)),
        };
        if seed % 2 == 0 {
            // Walls between cells inside the chunks: diagonal seam steps past their ends go.
            let n = world.whole.len() as u32 / 2;
            world.add_edges(&mut rng, n);
        }
        let refs: Vec<&NavGrid> = world.grids.iter().collect();
        let made = seam_links(&refs, &world.places);
        assert_eq!(sorted(&made), sorted(&world.seams), "{}", world.label);
    }
}

/// A change to some chunks' cells and edges changes only the seam links out of the cells
/// `seam_links_near` names, which it gives as `seam_links` does; every other link stays as it
/// was (what lets the plugin remake one chunk's seams, not the world's). Fails if the reach it
/// looks at is a step too short (the corners of chunks meeting four at a point).
#[test]
fn a_changed_chunk_changes_only_the_seams_near_it() {
    let mut named = 0;
    for seed in 1..=90u64 {
        let mut rng = Rng(seed * 6_151);
        let mut world = match seed > 70 {
            true => CutWorld::hex(seed, &mut rng, (3, 24)),
            false => CutWorld::new(seed, &mut rng, (3, 24)),
        };
        if seed % 3 == 0 {
            let n = world.whole.len() as u32 / 3;
            world.add_edges(&mut rng, n);
        }
        let before = {
            let refs: Vec<&NavGrid> = world.grids.iter().collect();
            seam_links(&refs, &world.places)
        };
        let count = world.grids.len();
        let changed: Vec<usize> =
            (0..1 + seed as usize % 2).map(|_| rng.below(count as u32) as usize).collect();
        for &k in &changed {
            let grid = &mut world.grids[k];
            let (w, h) = (grid.width(), grid.height());
            for _ in 0..1 + rng.below(w * h / 2 + 1) {
                // Border cells more often: their seams are the ones that change.
                let x =
                    if rng.chance(50) { [0, w - 1][rng.below(2) as usize] } else { rng.below(w) };
                let y = rng.below(h);
                let cell = match rng.below(3) {
                    0 => Cell::Blocked,
                    1 => Cell::GROUND,
                    _ => Cell::Passable { cost: 1 + rng.below(4) },
                };
                grid.set(GridPos::new(x, y), cell).unwrap();
                if !grid.neighborhood().is_hex() && x + 1 < w && rng.chance(30) {
                    let edge = [Edge::Wall, Edge::OneWay, Edge::Open][rng.below(3) as usize];
                    grid.set_edge(GridPos::new(x, y), GridPos::new(x + 1, y), edge).unwrap();
                }
            }
        }
        let refs: Vec<&NavGrid> = world.grids.iter().collect();
        let after = seam_links(&refs, &world.places);
        let (near, cells) = seam_links_near(&refs, &world.places, &changed);
        let named_cells: std::collections::HashSet<MapPos> = cells.iter().copied().collect();
        assert_eq!(named_cells.len(), cells.len(), "{}: a cell named twice", world.label);
        let split = |links: &[Link]| -> (Vec<Link>, Vec<Link>) {
            links.iter().cloned().partition(|l| named_cells.contains(&l.from))
        };
        let ((after_near, after_rest), (_, before_rest)) = (split(&after), split(&before));
        assert_eq!(sorted(&near), sorted(&after_near), "{}: the links it made", world.label);
        assert_eq!(sorted(&after_rest), sorted(&before_rest), "{}: a link it missed", world.label);
        named += usize::from(!near.is_empty());
    }
    assert!(named > 60, "{named}");
}

#[test]
fn placed_chunks_search_straight_at_the_goal_and_stay_cheapest() {
    let mut pathfinder = Pathfinder::new();
    let cell_by_cell = SearchOptions { algorithm: Algorithm::AStar, ..SearchOptions::default() };
    let (mut placed_work, mut plain_work, mut compared) = (0u64, 0u64, 0);
    for seed in 1..=60u64 {
        let mut rng = Rng(seed * 104_729);
        let world = CutWorld::new(seed, &mut rng, (10, 40));
        let mut links = world.seams.clone();
        let seams = links.len();
        if world.open.len() < 2 {
            continue;
        }
        // Teleporters in half the worlds, some cheaper than walking.
        if seed % 2 == 0 {
            for _ in 0..1 + rng.below(4) {
                let (a, b) = (world.some_cell(&mut rng), world.some_cell(&mut rng));
                links.push(Link::two_way(world.at(a), world.at(b), f64::from(rng.below(4))));
            }
        }
        let refs: Vec<&NavGrid> = world.grids.iter().collect();
        let plain = LinkedMaps::new(&refs, &links);
        let placed = plain.with_places(&world.places);
        for _ in 0..10 {
            let (a, b) = (world.some_cell(&mut rng), world.some_cell(&mut rng));
            let query = PathQuery::new(world.at(a), world.at(b));
            let label = format!("{} {seams} seams, {a} -> {b}", world.label);
            let with = pathfinder.find(placed, &query);
            // Cell by cell, as the search over placed chunks expands (jump point search would
            // run inside each unplaced chunk, and its jump points are not cells).
            let without = pathfinder.find(plain, &query.with_options(cell_by_cell));
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
                        let one = pathfinder.find(&world.whole, &PathQuery::new(a, b)).unwrap();
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
    // The estimate across chunks saves work: 0.94x the cells on these small worlds, seeds
    // 1-60 (0.63x before the bound through many links, the seam links here, counted the
    // least walk from a link's exit to the goal).
    eprintln!("cells searched: {placed_work} placed, {plain_work} not");
    assert!(
        placed_work * 20 < plain_work * 19,
        "{placed_work} cells searched placed, {plain_work} not"
    );
}

/// The exact search over the placed chunks with only the teleporters listed (the seams
/// stepped across from the places, no seam links) answers as `best` (seams listed): the same
/// cost, or the same error, with a path walked legally across the seams.
fn seams_unlisted_answer_the_same(
    world: &CutWorld,
    teleporters: &[Link],
    (start, goal): (MapPos, MapPos),
    best: &Result<LinkedPath, PathError>,
) {
    let refs: Vec<&NavGrid> = world.grids.iter().collect();
    let joined = LinkedMaps::new(&refs, teleporters).with_places(&world.places);
    let found = Pathfinder::new().find(joined, &PathQuery::new(start, goal));
    let label = format!("{} {start:?} -> {goal:?}", world.label);
    match (best, &found) {
        (Ok(best), Ok(found)) => {
            let tolerance = 1e-6 * best.cost.max(1.0);
            assert!((found.cost - best.cost).abs() <= tolerance, "{label}: {}", found.cost);
            let walked = walked_cost(&world.grids, teleporters, &world.seams, found);
            assert!((walked - found.cost).abs() <= tolerance, "{label}: walked {walked}");
            assert_eq!(found.legs[0].path.cells[0], start.cell, "{label}");
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "{label}"),
        _ => panic!("{label}: {:?} listed, {:?} not", best.as_ref().map(|p| p.cost), found),
    }
}

/// The cost of `path` walked step by step: each step legal on its grid, each leg joined to the
/// next by the link it names or by a step across a seam.
fn walked_cost(grids: &[NavGrid], links: &[Link], seams: &[Link], path: &LinkedPath) -> f64 {
    let mut total = 0.0;
    for (i, leg) in path.legs.iter().enumerate() {
        let grid = &grids[leg.map];
        let mut walk = 0.0;
        for pair in leg.path.cells.windows(2) {
            walk += grid.step_cost(pair[0], pair[1]).expect("a legal step");
        }
        assert!((walk - leg.path.cost).abs() <= 1e-6 * walk.max(1.0), "leg {i}: {walk}");
        total += walk;
        let Some(next) = path.legs.get(i + 1) else { continue };
        let from = MapPos::new(leg.map, *leg.path.cells.last().unwrap());
        let to = MapPos::new(next.map, next.path.cells[0]);
        let joins = |l: &Link| {
            (l.from == from && l.to == to) || (l.two_way && l.to == from && l.from == to)
        };
        let by = match leg.then {
            Some(k) => &links[k],
            None => seams.iter().find(|l| joins(l)).expect("a seam step"),
        };
        assert!(joins(by), "leg {i} ends where its link does not");
        total += by.cost;
    }
    total
}

#[test]
fn the_world_graph_finds_a_way_whenever_there_is_one_and_walks_it_legally() {
    world_graph_oracle(false, false);
}

/// The same with walls and one-way edges between cells inside the chunks: the graph's walks
/// (backward ones too) and its seams follow them.
#[test]
fn the_world_graph_follows_walls_and_one_way_edges() {
    world_graph_oracle(true, false);
}

/// The same on hex worlds (every numbering) cut into chunks: they join at their seams, the
/// exact search answers as the whole grid does, and so does the graph.
#[test]
fn hex_chunks_join_and_the_world_graph_crosses_them() {
    world_graph_oracle(false, true);
}

fn world_graph_oracle(edges: bool, hex: bool) {
    let mut pathfinder = Pathfinder::new();
    let (mut compared, mut dearer, mut worst) = (0u32, 0.0f64, 1.0f64);
    for seed in 1..=60u64 {
        let mut rng = Rng(seed * 6_151);
        let mut world = match hex {
            true => CutWorld::hex(seed, &mut rng, (10, 50)),
            false => CutWorld::new(seed, &mut rng, (10, 50)),
        };
        if edges {
            let n = world.whole.len() as u32 / 3;
            world.add_edges(&mut rng, n);
        }
        if world.open.len() < 2 {
            continue;
        }
        let mut teleporters = Vec::new();
        if seed % 2 == 0 {
            for _ in 0..1 + rng.below(4) {
                let (a, b) = (world.some_cell(&mut rng), world.some_cell(&mut rng));
                teleporters.push(Link::two_way(world.at(a), world.at(b), f64::from(rng.below(4))));
            }
        }
        // One graph kept through the world's changes (it must see them).
        let mut graph = WorldGraph::new(1 + rng.below(8));
        for round in 0..4 {
            if round > 0 {
                for _ in 0..3 {
                    let cell = world.some_cell(&mut rng);
                    let to =
                        if rng.chance(50) { Cell::Blocked } else { Cell::Passable { cost: 3 } };
                    world.set(cell, to);
                }
                if world.open.len() < 2 {
                    break;
                }
            }
            let mut links = world.seams.clone();
            links.extend(teleporters.iter().copied());
            let refs: Vec<&NavGrid> = world.grids.iter().collect();
            let exact = LinkedMaps::new(&refs, &links).with_places(&world.places);
            let only_teleporters = LinkedMaps::new(&refs, &teleporters).with_places(&world.places);
            // Worked out ahead in part (as the plugin does a few chunks a frame), whole, or
            // not at all: queries reach what is left.
            match round % 3 {
                0 => {}
                1 => {
                    graph.update_within(only_teleporters, 1);
                }
                _ => {
                    // A node's walks a call at least (a grid with no nodes: one call).
                    let mut calls = 0;
                    while !graph.update_within(only_teleporters, 1) {
                        calls += 1;
                        let most = graph.node_count() + refs.len();
                        assert!(calls <= most, "{}: never done", world.label);
                    }
                }
            }
            for _ in 0..8 {
                let (a, b) = (world.some_cell(&mut rng), world.some_cell(&mut rng));
                let (start, goal) = (world.at(a), world.at(b));
                let label = format!("{} round {round}, {a} -> {b}", world.label);
                let best = pathfinder.find(exact, &PathQuery::new(start, goal));
                seams_unlisted_answer_the_same(&world, &teleporters, (start, goal), &best);
                let found = graph.find(only_teleporters, start, goal);
                let work = 1 + (a.x + 3 * b.y) % 40;
                let sliced = find_in_slices(&mut graph, only_teleporters, (start, goal), work);
                // As cheap as asked whole, and walkable at what it says. (Not always the same
                // cells: a grid's walks worked out in part are kept unpruned, so a tie between
                // two walks of one cost may fall the other way.)
                match (&sliced, &found) {
                    (Ok(sliced), Ok(found)) => assert!(
                        (sliced.cost - found.cost).abs() <= 1e-9 * found.cost.max(1.0),
                        "{label}: in slices of {work}: {} against {}",
                        sliced.cost,
                        found.cost
                    ),
                    (sliced, found) => assert_eq!(sliced, found, "{label}: in slices of {work}"),
                }
                if let Ok(sliced) = &sliced {
                    let walked = walked_cost(&world.grids, &teleporters, &world.seams, sliced);
                    let tolerance = 1e-6 * sliced.cost.max(1.0);
                    assert!((walked - sliced.cost).abs() <= tolerance, "{label}: sliced walk");
                }
                match (&best, &found) {
                    (Ok(best), Ok(found)) => {
                        let walked = walked_cost(&world.grids, &teleporters, &world.seams, found);
                        let tolerance = 1e-6 * best.cost.max(1.0);
                        assert!(
                            (walked - found.cost).abs() <= tolerance,
                            "{label}: walked {walked}, said {}",
                            found.cost
                        );
                        assert!(
                            found.cost >= best.cost - tolerance,
                            "{label}: {} below the cheapest {}",
                            found.cost,
                            best.cost
                        );
                        assert_eq!(found.legs[0].path.cells[0], start.cell, "{label}");
                        assert_eq!(
                            *found.legs.last().unwrap().path.cells.last().unwrap(),
                            goal.cell,
                            "{label}"
                        );
                        if teleporters.is_empty() {
                            // The whole grid, edges and all, agrees with the exact search.
                            let one = pathfinder.find(&world.whole, &PathQuery::new(a, b));
                            let one = one.expect("the whole grid has the path");
                            assert!((one.cost - best.cost).abs() <= tolerance, "{label}");
                        }
                        let ratio = if best.cost > 0.0 { found.cost / best.cost } else { 1.0 };
                        dearer += ratio - 1.0;
                        worst = worst.max(ratio);
                        compared += 1;
                    }
                    (Err(PathError::Unreachable { .. }), Err(PathError::Unreachable { .. })) => {}
                    _ => panic!(
                        "{label}: {:?} exact, {:?} by the graph",
                        best.map(|p| p.cost),
                        found.as_ref().map(|p| p.cost)
                    ),
                }
            }
        }
    }
    assert!(compared >= 500, "{compared}");
    let mean = 1.0 + dearer / f64::from(compared);
    eprintln!(
        "world graph: {compared} paths, {mean:.4}x the cheapest on average, {worst:.3}x at worst"
    );
    assert!(mean < 1.05, "{mean}");
}
/// A query over the world graph spread over calls begins again when the world changes
/// between them: it says so ([`PathError::GridChanged`]) rather than answer for a world that
/// is gone; begun again, it answers as a whole query does.
#[test]
fn a_query_in_slices_says_when_the_world_changed_under_it() {
    let mut changed = 0;
    for seed in 1..=30u64 {
        let mut rng = Rng(seed * 7_919);
        let mut world = CutWorld::new(seed, &mut rng, (20, 60));
        if world.open.len() < 8 {
            continue;
        }
        let (a, b) = (world.some_cell(&mut rng), world.some_cell(&mut rng));
        let (start, goal) = (world.at(a), world.at(b));
        let mut graph = WorldGraph::default();
        let mut find = WorldFind::new(start, goal);
        let refs: Vec<&NavGrid> = world.grids.iter().collect();
        let before = LinkedMaps::new(&refs, &[]).with_places(&world.places);
        if let SearchStep::Done(_) = graph.find_within(before, &mut find, 1) {
            continue; // answered in one step (or no way from the start's grid)
        }
        let far = world.open.iter().copied().find(|&c| c != a && c != b).unwrap();
        let Some(Cell::Passable { cost }) = world.whole.get(far) else { unreachable!() };
        world.set(far, Cell::Passable { cost: cost + 1 });
        let refs: Vec<&NavGrid> = world.grids.iter().collect();
        let after = LinkedMaps::new(&refs, &[]).with_places(&world.places);
        let step = graph.find_within(after, &mut find, u32::MAX);
        assert!(matches!(step, SearchStep::Done(Err(PathError::GridChanged))), "{seed}");
        let again = find_in_slices(&mut graph, after, (start, goal), 5);
        let whole = WorldGraph::default().find(after, start, goal);
        assert_eq!(again.map(|p| p.cost).ok(), whole.map(|p| p.cost).ok(), "{seed}");
        changed += 1;
    }
    assert!(changed >= 10, "{changed}");
}

/// `cells` (`across` x `across` chunks of `side` x `side`) cut into chunks, row by row, each
/// placed where it lies on world 1.
fn cut_square(cells: &Cells, side: usize, across: usize) -> (Vec<NavGrid>, Vec<Option<Placement>>) {
    let (mut grids, mut places) = (Vec::new(), Vec::new());
    for cy in 0..across {
        for cx in 0..across {
            let part: Cells = (cy * side..(cy + 1) * side)
                .map(|y| cells[y][cx * side..(cx + 1) * side].to_vec())
                .collect();
            grids.push(whole_grid(&part, Neighborhood::Eight, CornerRule::NoCornerCutting));
            let (x, y) = ((cx * side) as i64, (cy * side) as i64);
            places.push(Some(Placement { world: 1, x, y }));
        }
    }
    (grids, places)
}

/// `graph`'s answer from `start` to `goal` found in slices of about `work` nodes and cells,
/// each slice checked to stay within one walk over one grid past `work`.
fn find_in_slices(
    graph: &mut WorldGraph,
    world: LinkedMaps,
    (start, goal): (MapPos, MapPos),
    work: u32,
) -> Result<LinkedPath, PathError> {
    let mut find = WorldFind::new(start, goal);
    // One step's most, whatever the number of grids and of nodes on a grid: a node expanded
    // and one walk over one grid's cells (from that node to the grid's other nodes, worked
    // out as the search reaches it, or between two nodes the path passes). The walk across two
    // grids at the end is itself searched in slices.
    let cells = world.maps.iter().map(|g| g.width() * g.height()).max().unwrap_or(0);
    let (mut before, mut calls) = (0, 0);
    loop {
        calls += 1;
        assert!(calls < 1_000_000, "never ends");
        match graph.find_within(world, &mut find, work) {
            SearchStep::Done(result) => return result,
            SearchStep::Paused { expanded } => {
                let step = expanded - before;
                assert!(step >= work, "paused after {step} of {work}");
                assert!(step <= work + cells, "a slice of {step} (work {work})");
                before = expanded;
            }
        }
    }
}

/// A world of chunks with many nodes each (one on every border cell) and costly ground, so
/// that a chunk's walks between its nodes are many walks over its cells: a query reaching a
/// chunk not worked out yet, and the work done ahead of queries, each take one node's walks
/// (one walk over one chunk) a step, never the whole chunk's at once (a frame's search time
/// holds however many nodes a chunk has), and answer as the query asked whole does.
#[test]
fn the_world_graph_works_out_a_chunk_one_walk_at_a_time() {
    let (side, across) = (24usize, 3usize);
    let mut rng = Rng(4_242);
    let cells = random_cells(&mut rng, (side * across, side * across), (1, 4));
    let (grids, places) = cut_square(&cells, side, across);
    let refs: Vec<&NavGrid> = grids.iter().collect();
    let world = LinkedMaps::new(&refs, &[]).with_places(&places);
    let chunk = (side * side) as u32;
    let open = |m: usize| refs[m].positions().find(|&c| refs[m].is_passable(c)).unwrap();
    let last = refs.len() - 1;
    let (start, goal) = (MapPos::new(0, open(0)), MapPos::new(last, open(last)));
    let whole = WorldGraph::new(1).find(world, start, goal).expect("a way across");
    // Asked in slices of 16 with nothing worked out ahead.
    let mut graph = WorldGraph::new(1);
    let sliced = find_in_slices(&mut graph, world, (start, goal), 16).expect("a way across");
    let same = |cost: f64| (cost - whole.cost).abs() <= 1e-9 * whole.cost;
    assert!(same(sliced.cost), "{} against {}", sliced.cost, whole.cost);
    assert!(graph.node_count() >= 8 * side, "{} nodes", graph.node_count());
    // Worked out ahead, a little a call: one walk each, until every chunk is done.
    let mut ahead = WorldGraph::new(1);
    let mut calls = 0;
    loop {
        let before = ahead.work();
        let done = ahead.update_within(world, 1);
        let work = ahead.work() - before;
        assert!(work <= 8 * u64::from(chunk), "a call of {work} units");
        calls += 1;
        if done {
            break;
        }
    }
    assert!(calls > refs.len() * side, "{calls} calls for {} chunks", refs.len());
    let found = ahead.find(world, start, goal).expect("a way across");
    assert!(same(found.cost), "{} against {}", found.cost, whole.cost);
}

/// A chunk whose neighbour streams out keeps its walks and takes none; one whose neighbour
/// streams back in walks only out of and into its new nodes, fewer walks than made anew; and
/// either way the graph answers as a graph made afresh for the world as it is. On costly
/// ground (walks over cells) and on open ground (walks by jump points, out and back).
#[test]
fn a_chunk_whose_neighbours_come_and_go_keeps_its_walks_between_the_nodes_it_keeps() {
    for (seed, costly) in [(77u64, 4u32), (78, 0)] {
        let (side, across) = (24usize, 3usize);
        let mut rng = Rng(seed);
        let cells = random_cells(&mut rng, (side * across, side * across), (1, costly));
        let (grids, places) = cut_square(&cells, side, across);
        // The world whole, and without its right-hand or its left-hand column of chunks.
        let all: Vec<usize> = (0..grids.len()).collect();
        let of = |ms: &[usize]| -> (Vec<&NavGrid>, Vec<Option<Placement>>) {
            (ms.iter().map(|&m| &grids[m]).collect(), ms.iter().map(|&m| places[m]).collect())
        };
        let (all_grids, all_places) = of(&all);
        let whole = LinkedMaps::new(&all_grids, &[]).with_places(&all_places);
        let mut graph = WorldGraph::new(4);
        graph.update(whole);
        let mut nodes = vec![0usize; grids.len()];
        graph.sketch().0.iter().for_each(|&(m, _)| nodes[m] += 1);
        // The right-hand column out and in, then the left-hand one: the second time keeps walks
        // the first worked out into the middle column's new nodes.
        for column in [2, 0] {
            let (kept_grids, kept_places) =
                of(&all.iter().copied().filter(|&m| m % across != column).collect::<Vec<_>>());
            let part = LinkedMaps::new(&kept_grids, &[]).with_places(&kept_places);
            // The column streams out: the middle column only drops nodes.
            let before = graph.work();
            graph.update(part);
            assert_eq!(graph.work(), before, "seed {seed}, column {column}: walks taken");
            answers_as_fresh(
                &mut graph,
                part,
                (4, side as u32, 12),
                &mut rng,
                &format!("seed {seed}, column {column} out"),
            );
            // It streams back in: a walk a call, counted.
            let mut walks = 1;
            while !graph.update_within(whole, 0) {
                walks += 1;
            }
            let count = |of: &dyn Fn(usize) -> bool| {
                (0..grids.len()).filter(|&m| of(m % across)).map(|m| nodes[m]).sum::<usize>()
            };
            let (new, anew) = (count(&|x| x == column), count(&|x| x == column || x == 1));
            assert!(walks > new, "seed {seed}: {walks} walks; the new chunks alone take {new}");
            assert!(walks < anew, "seed {seed}: {walks} walks against {anew} made anew");
            answers_as_fresh(
                &mut graph,
                whole,
                (4, side as u32, 12),
                &mut rng,
                &format!("seed {seed}, column {column} in"),
            );
        }
    }
}

/// A long random session on a world of chunks: chunks stream out and back, tiles and edges
/// between cells change, the graph is worked out ahead whole, in part (walks left half done
/// when the next change comes) or not at all, and after every step its answers cost what a
/// graph made afresh for the world as it is answers.
#[test]
fn a_kept_world_graph_answers_as_a_fresh_one_through_a_random_session() {
    for (seed, costly) in [(501u64, 4u32), (502, 0), (503, 2)] {
        let (side, across) = (16usize, 4usize);
        let mut rng = Rng(seed);
        let cells = random_cells(&mut rng, (side * across, side * across), (1, costly));
        let (mut grids, places) = cut_square(&cells, side, across);
        let spacing = 1 + rng.below(6);
        let mut loaded = vec![true; grids.len()];
        let mut graph = WorldGraph::new(spacing);
        for step in 0..80 {
            match rng.below(10) {
                // A chunk streams out or back (two stay, at least).
                0..4 => {
                    let m = rng.below(grids.len() as u32) as usize;
                    if !loaded[m] || loaded.iter().filter(|&&l| l).count() > 2 {
                        loaded[m] = !loaded[m];
                    }
                }
                // A tile changes.
                4..7 => {
                    let m = rng.below(grids.len() as u32) as usize;
                    let c = GridPos::new(rng.below(side as u32), rng.below(side as u32));
                    let to = match rng.below(3) {
                        0 => Cell::Blocked,
                        1 => Cell::Passable { cost: 1 },
                        _ => Cell::Passable { cost: 1 + costly.min(3) },
                    };
                    grids[m].set(c, to).unwrap();
                }
                // A wall between two cells, or a one-way edge, or an edge opened again.
                7 => {
                    let m = rng.below(grids.len() as u32) as usize;
                    let a = GridPos::new(rng.below(side as u32 - 1), rng.below(side as u32 - 1));
                    let b = match rng.below(2) {
                        0 => GridPos::new(a.x + 1, a.y),
                        _ => GridPos::new(a.x, a.y + 1),
                    };
                    let edge = [Edge::Wall, Edge::OneWay, Edge::Open][rng.below(3) as usize];
                    grids[m].set_edge(a, b, edge).unwrap();
                }
                _ => {}
            }
            let kept: Vec<usize> = (0..grids.len()).filter(|&m| loaded[m]).collect();
            let refs: Vec<&NavGrid> = kept.iter().map(|&m| &grids[m]).collect();
            let at: Vec<Option<Placement>> = kept.iter().map(|&m| places[m]).collect();
            let world = LinkedMaps::new(&refs, &[]).with_places(&at);
            // Worked out ahead: not at all, a few walks, or whole.
            match rng.below(3) {
                0 => {}
                1 => {
                    for _ in 0..1 + rng.below(6) {
                        graph.update_within(world, 1);
                    }
                }
                _ => graph.update(world),
            }
            answers_as_fresh(
                &mut graph,
                world,
                (spacing, side as u32, 4),
                &mut rng,
                &format!("seed {seed}, step {step}"),
            );
        }
    }
}

/// Asserts that `graph` answers `queries` random queries between open cells of `world` (grids
/// of `side` x `side`) at the cost a graph with `spacing` made afresh answers, or fails where
/// it fails (`label` names the case in a failure).
fn answers_as_fresh(
    graph: &mut WorldGraph,
    world: LinkedMaps,
    (spacing, side, queries): (u32, u32, usize),
    rng: &mut Rng,
    label: &str,
) {
    let mut fresh = WorldGraph::new(spacing);
    let open = |rng: &mut Rng| loop {
        let m = rng.below(world.maps.len() as u32) as usize;
        let c = GridPos::new(rng.below(side), rng.below(side));
        if world.maps[m].is_passable(c) {
            return MapPos::new(m, c);
        }
    };
    for _ in 0..queries {
        let (start, goal) = (open(rng), open(rng));
        match (graph.find(world, start, goal), fresh.find(world, start, goal)) {
            (Ok(k), Ok(f)) => assert!(
                (k.cost - f.cost).abs() <= 1e-9 * f.cost,
                "{label}: {start:?} -> {goal:?}: {} against {}",
                k.cost,
                f.cost
            ),
            (k, f) => assert_eq!(k.is_ok(), f.is_ok(), "{label}: {start:?} -> {goal:?}"),
        }
    }
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
        let idle = app.world().get::<NavPath>(agent).is_none()
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

/// Places at the ends of `i64`: no panic anywhere, and such grids join nothing (their cells'
/// places would not fit); the searches answer as for grids with no place.
#[test]
fn extreme_places_join_nothing_and_never_panic() {
    let grid = NavGrid::new(4, 3).unwrap();
    let grids = [&grid, &grid];
    for (a, b) in [
        (i64::MAX, i64::MAX),
        (i64::MAX - 2, i64::MAX - 6),
        (i64::MIN, i64::MIN + 4),
        (i64::MAX, i64::MIN),
    ] {
        let places = [
            Some(Placement { world: 0, x: a, y: b }),
            Some(Placement { world: 0, x: a.saturating_add(4), y: b }),
        ];
        assert!(seam_links(&grids, &places).is_empty(), "{a} {b}");
        let door = [Link::two_way(
            MapPos::new(0, GridPos::new(3, 1)),
            MapPos::new(1, GridPos::new(0, 1)),
            1.0,
        )];
        let world = LinkedMaps::new(&grids, &door).with_places(&places);
        let (start, goal) =
            (MapPos::new(0, GridPos::new(0, 0)), MapPos::new(1, GridPos::new(3, 2)));
        let exact = Pathfinder::new().find(world, &PathQuery::new(start, goal)).unwrap();
        let graph = WorldGraph::default().find(world, start, goal).unwrap();
        assert!((exact.cost - graph.cost).abs() < 1e-9, "{a} {b}: {} {}", exact.cost, graph.cost);
        let no_door = LinkedMaps::new(&grids, &[]).with_places(&places);
        assert!(matches!(
            WorldGraph::default().find(no_door, start, goal),
            Err(PathError::Unreachable { .. })
        ));
    }
}

/// Hex tilemaps (every coordinate system) laid side by side, touching: they join, and an agent
/// walks from the first to the far side of the second across the seam, both with the exact
/// search and over the world graph. A second pair laid an odd number of lines apart (offset
/// systems: its shifted lines would be the other ones) joins nothing.
#[test]
fn hex_maps_side_by_side_join_at_their_edges() {
    use crate::tilemap::{HEX_SYSTEMS, spawn_typed_tilemap};
    use bevy_ecs_tilemap::map::HexCoordSystem;
    for (k, system) in HEX_SYSTEMS.into_iter().enumerate() {
        let search = [WorldSearch::Exact, WorldSearch::Hierarchical][k % 2];
        let mut app = app_searching(Neighborhood::Eight, CornerRule::NoCornerCutting, search);
        let map_type = TilemapType::Hexagon(system);
        let grid_size = TilemapGridSize { x: 16.0, y: 16.0 };
        // A wall across the first map's middle but for its top row: the way round is inside.
        let texture = |x: u32, y: u32| u32::from(x == 4 && y > 0 && y < 7);
        let first =
            spawn_typed_tilemap(&mut app, 8, map_type, grid_size, Transform::IDENTITY, texture);
        app.update();
        let nav = app.world().resource::<NavMaps>();
        let geometry = nav.get(first).unwrap().geometry;
        // The second map's cell (0, 0) where the first's (8, 0) would be: side by side.
        let offset =
            geometry.cell_to_world(GridPos::new(8, 0)) - geometry.cell_to_world(GridPos::new(0, 0));
        let at = Transform::from_translation(offset.extend(0.0));
        let second = spawn_typed_tilemap(&mut app, 8, map_type, grid_size, at, |_, _| 0);
        for _ in 0..3 {
            app.update();
        }
        let seams = app.world_mut().query::<&NavSeam>().iter(app.world()).count();
        assert!(seams >= 8, "{system:?}: {seams} seam links");
        let start = app
            .world()
            .resource::<NavMaps>()
            .get(first)
            .unwrap()
            .geometry
            .cell_to_world(GridPos::new(1, 3));
        let goal = GridPos::new(6, 4);
        let agent = app
            .world_mut()
            .spawn((
                Transform::from_translation(start.extend(1.0)),
                PathFollower::new(120.0),
                PathRequest::to(PathGoal::OnMap { map: second, cell: goal }),
            ))
            .id();
        let mut arrived = false;
        for _ in 0..2000 {
            app.update();
            assert!(app.world().get::<PathFailed>(agent).is_none());
            let messages = app.world().resource::<Messages<Arrived>>();
            if messages.iter_current_update_messages().any(|a| a.entity == agent && a.reached_goal)
            {
                arrived = true;
                break;
            }
        }
        assert!(arrived, "{system:?}: never arrived");
        let end = position(&app, agent);
        let want =
            app.world().resource::<NavMaps>().get(second).unwrap().geometry.cell_to_world(goal);
        assert!(end.distance(want) < 1e-3, "{system:?}: stopped at {end}, the goal is {want}");
        if matches!(system, HexCoordSystem::Row | HexCoordSystem::Column) {
            continue;
        }
        // Offset systems: a map one line off (its shifted lines the other ones) joins nothing.
        let rows = matches!(system, HexCoordSystem::RowEven | HexCoordSystem::RowOdd);
        let beside = if rows { GridPos::new(8, 1) } else { GridPos::new(1, 8) };
        let offset = geometry.cell_to_world(beside) - geometry.cell_to_world(GridPos::new(0, 0));
        let at = Transform::from_translation((offset + Vec2::new(0.0, 1000.0)).extend(0.0));
        let far = spawn_typed_tilemap(&mut app, 8, map_type, grid_size, at, |_, _| 0);
        let at = Transform::from_translation(Vec2::new(0.0, 1000.0).extend(0.0));
        let near = spawn_typed_tilemap(&mut app, 8, map_type, grid_size, at, |_, _| 0);
        for _ in 0..3 {
            app.update();
        }
        let joined = app.world_mut().query::<&NavSeam>().iter(app.world()).count();
        assert_eq!(joined, seams, "{system:?}: maps a line off joined");
        let maps = app.world().resource::<NavMaps>();
        assert!(maps.get(far).is_some() && maps.get(near).is_some());
    }
}

/// A world of 36 chunks (32 x 32 each), 60 agents sent to world points across it, some sent
/// again every frame to a goal that moves: with either `WorldSearch`, every request is answered
/// (a path, or a typed failure) within a bounded number of frames, and no frame expands more
/// cells than the budget's searches share, but for one step of a query over the graph. (Seams
/// are stepped across from the maps' places: a search does not copy the world's seam links, so
/// a frame's work is its expansions.) The longest waits over the graph are the first requests':
/// the graph is worked out as they search, within the budget (the first answer comes at
/// frame 30). On ground of one cost, where both
/// searches run jump points (across the seams, and in the world graph's walks), within fewer
/// frames: without them, 4 and 20. The time spent working the graph out shows in
/// `NavDiagnostics::warm_time`.
#[test]
fn a_world_of_many_chunks_answers_every_request_within_bounded_frames() {
    for (search, costly, bound) in [
        (WorldSearch::Exact, 1, 30),
        (WorldSearch::Hierarchical, 1, 60),
        (WorldSearch::Exact, 0, 3),
        (WorldSearch::Hierarchical, 0, 25),
    ] {
        let (answered, longest, warmed) = answers_in_a_world_of_chunks(search, costly);
        eprintln!(
            "{search:?}, {costly} in 10 cells costly: {answered} requests answered, the longest \
             wait {longest} frames, {warmed} frames warming"
        );
        assert!(answered >= 300, "{search:?}: {answered} answered");
        // The grids' warm-ups show in `warm_time`, and over the graph its work on the chunks.
        let graph_shows = search == WorldSearch::Exact || warmed > 10;
        assert!(warmed > 0 && graph_shows, "{search:?}: {warmed} frames warming");
        assert!(longest <= bound, "{search:?}: a request waited {longest} frames");
    }
}

/// The requests answered in [`a_world_of_many_chunks_answers_every_request_within_bounded_frames`]
/// with `search` on ground where `costly` cells in 10 cost 2-4, and the longest wait in frames.
fn answers_in_a_world_of_chunks(search: WorldSearch, costly: u32) -> (u32, u32, u32) {
    const SIDE: usize = 192;
    const AGENTS: usize = 60;
    let mut rng = Rng(4_243);
    let cells = random_cells(&mut rng, (SIDE, SIDE), (2, costly));
    let mut app = app_searching(Neighborhood::Eight, CornerRule::NoCornerCutting, search);
    for y0 in (0..SIDE).step_by(32) {
        for x0 in (0..SIDE).step_by(32) {
            spawn_chunk(&mut app, &cells, (x0, x0 + 32), (y0, y0 + 32));
        }
    }
    app.update();
    app.update();
    let open: Vec<GridPos> = (0..SIDE * SIDE)
        .map(|k| GridPos::new((k % SIDE) as u32, (k / SIDE) as u32))
        .filter(|c| cells[c.y as usize][c.x as usize].is_some())
        .collect();
    let pick = |rng: &mut Rng| open[rng.below(open.len() as u32) as usize];
    let point = |cell: GridPos| world_point(cell) + Vec2::splat(TILE / 2.0);
    // Each agent, and the frame its request was last sent (answered: `None`).
    let mut agents: Vec<(Entity, Option<u32>)> = (0..AGENTS)
        .map(|_| {
            let (start, goal) = (pick(&mut rng), pick(&mut rng));
            let request = PathRequest::to(PathGoal::World(point(goal)));
            let at = Transform::from_translation(point(start).extend(1.0));
            (app.world_mut().spawn((at, request)).id(), Some(0))
        })
        .collect();
    let budget = WorkShares::default().searches / bevy_tilemap_nav::search::CELL_WORK;
    let (mut longest, mut answered) = (0u32, 0u32);
    // Frames with time spent working out ahead: the world graph's, after the grids' warm-ups.
    let mut warmed = 0;
    for frame in 1..=400u32 {
        // Two agents sent to a new goal every frame (a goal that moves).
        for _ in 0..2 {
            let k = rng.below(AGENTS as u32) as usize;
            let goal = PathGoal::World(point(pick(&mut rng)));
            app.world_mut().entity_mut(agents[k].0).insert(PathRequest::to(goal));
            agents[k].1 = agents[k].1.or(Some(frame));
        }
        app.update();
        let diagnostics = *app.world().resource::<NavDiagnostics>();
        warmed += u32::from(diagnostics.warm_time > std::time::Duration::ZERO);
        // The exact search stops at the budget; a query over the graph checks it between
        // steps, each a node expanded and at most one walk over one chunk.
        let step = if search == WorldSearch::Exact { 0 } else { 32 * 32 + 1 };
        assert!(
            diagnostics.expansions <= budget + step,
            "{search:?} frame {frame}: {} expansions, the budget {budget}",
            diagnostics.expansions
        );
        for (agent, sent) in &mut agents {
            let entity = app.world().entity(*agent);
            if let Some(since) = *sent
                && !entity.contains::<PathRequest>()
            {
                assert!(
                    entity.contains::<NavPath>() || entity.contains::<PathFailed>(),
                    "{search:?}: request of {agent} neither answered nor failed"
                );
                longest = longest.max(frame - since);
                answered += 1;
                *sent = None;
            }
        }
    }
    // A request still waiting counts its wait so far.
    for (_, sent) in &agents {
        if let Some(since) = sent {
            longest = longest.max(400 - since);
        }
    }
    (answered, longest, warmed)
}

/// What the world graph view draws (`WorldGraph::sketch`): every node, on its chunk's edge and
/// open; every edge between two nodes, those between chunks joining cells side by side in the
/// world; walks kept inside chunks among them.
#[test]
fn the_world_graph_sketch_is_its_nodes_on_chunk_edges_and_the_edges_between_them() {
    let (mut inside, mut across) = (0, 0);
    for seed in 1..=20u64 {
        let mut rng = Rng(seed * 104_729);
        let world = CutWorld::new(seed, &mut rng, (20, 40));
        if world.open.len() < 8 {
            continue;
        }
        let (a, b) = (world.some_cell(&mut rng), world.some_cell(&mut rng));
        let mut graph = WorldGraph::default();
        let refs: Vec<&NavGrid> = world.grids.iter().collect();
        let maps = LinkedMaps::new(&refs, &[]).with_places(&world.places);
        let _ = graph.find(maps, world.at(a), world.at(b));
        let (nodes, edges) = graph.sketch();
        assert_eq!(nodes.len(), graph.node_count(), "{}", world.label);
        let in_world = |(g, cell): (usize, GridPos)| {
            let ((x0, _), (y0, _)) = world.chunks[g];
            (cell.x as i64 + x0 as i64, cell.y as i64 + y0 as i64)
        };
        for &(g, cell) in &nodes {
            let grid = &world.grids[g];
            let edge = cell.x == 0
                || cell.y == 0
                || cell.x + 1 == grid.width()
                || cell.y + 1 == grid.height();
            assert!(edge && grid.is_passable(cell), "{}: node {g} {cell}", world.label);
        }
        for &(p, q) in &edges {
            let (np, nq) = (nodes[p], nodes[q]);
            assert_ne!(p, q);
            if np.0 == nq.0 {
                inside += 1;
            } else {
                let ((x1, y1), (x2, y2)) = (in_world(np), in_world(nq));
                assert!(
                    (x1 - x2).abs() <= 1 && (y1 - y2).abs() <= 1,
                    "{}: {np:?} {nq:?}",
                    world.label
                );
                across += 1;
            }
        }
    }
    assert!(inside > 100 && across > 100, "{inside} walks inside chunks, {across} steps across");
}
