//! What NPCs do beyond walking to a cell, in the plugin: teams (allies pass, enemies plan
//! around), stopping where an arrival condition first holds, the nearest of several cells,
//! wandering, fleeing from moving threats, and chasing a moving entity (on one map and across a
//! link), each against an oracle or a rule a player would check.

use crate::support::{GridShape, Model, Rng, xy};
use bevy::ecs::message::{MessageCursor, Messages};
use bevy::prelude::*;
use bevy_tilemap_nav::grid::Neighborhood;
use bevy_tilemap_nav::path::{FleeOptions, flee, path_cost, reachable};
use bevy_tilemap_nav::plugin::{Arrival, Blocks, OnNavMap, Pursuit, TeamSet};
use bevy_tilemap_nav::prelude::*;

#[allow(dead_code)]
use crate::tilemap::{app, centre_on as centre, messages, position, read_new};

const TILE: f32 = 16.0;

/// Spawns `grid` as a map at the origin, 4-way unless it says otherwise; one frame to serve it.
fn spawn_grid(app: &mut App, grid: NavGrid) -> Entity {
    // The plugin gives a map the moves of its settings.
    let mut settings = app.world_mut().resource_mut::<NavSettings>();
    settings.neighborhood = grid.neighborhood();
    settings.corner_rule = grid.corner_rule();
    let map = app.world_mut().spawn(NavGridMap::square(grid, Vec2::splat(TILE))).id();
    app.update();
    map
}

fn at(app: &App, map: Entity, cell: GridPos) -> Transform {
    Transform::from_translation(centre(app, map, cell).extend(1.0))
}

fn spawn_at(app: &mut App, map: Entity, cell: GridPos, bundle: impl Bundle) -> Entity {
    let place = at(app, map, cell);
    app.world_mut().spawn((place, bundle)).id()
}

fn random_world(rng: &mut Rng) -> (NavGrid, Model) {
    crate::support::random_grid(
        rng,
        &GridShape { min_side: 4, spread: 14, walls: 25, eight: 50, cut: 0 },
    )
}

fn open_cell(rng: &mut Rng, grid: &NavGrid) -> Option<GridPos> {
    crate::support::open_cell(rng, grid, 60)
}

#[test]
fn team_obstacles_block_only_the_teams_they_name() {
    let mut rng = Rng(0x7EA3);
    let mut checked = [0; 3]; // paths found that pass an ally, avoid an enemy, no obstacle near
    for round in 0..150 {
        let (grid, model) = random_world(&mut rng);
        let (Some(start), Some(goal)) = (open_cell(&mut rng, &grid), open_cell(&mut rng, &grid))
        else {
            continue;
        };
        let mut app = app();
        let map = spawn_grid(&mut app, grid.clone());
        let team = (!rng.chance(20)).then(|| NavTeam(rng.below(4) as u8));
        let mut walled = Vec::new();
        let mut passed = Vec::new();
        for _ in 0..1 + rng.below(8) {
            let Some(cell) = open_cell(&mut rng, &grid) else { continue };
            let some = TeamSet::of(&[NavTeam(rng.below(4) as u8), NavTeam(rng.below(4) as u8)]);
            let rule = match rng.below(3) {
                0 => NavObstacle::default(),
                1 => NavObstacle { blocks: Blocks::Teams(some) },
                _ => NavObstacle { blocks: Blocks::AllBut(some) },
            };
            let blocks = match (rule.blocks, team) {
                (Blocks::All, _) => true,
                (Blocks::Teams(set), Some(t)) => set.0 & (1 << t.0) != 0,
                (Blocks::Teams(_), None) => false,
                (Blocks::AllBut(set), Some(t)) => set.0 & (1 << t.0) == 0,
                (Blocks::AllBut(_), None) => true,
            };
            assert_eq!(rule.blocks(team), blocks);
            if blocks {
                walled.push(xy(cell))
            } else {
                passed.push(xy(cell))
            }
            let t = at(&app, map, cell);
            app.world_mut().spawn((t, rule));
        }
        let agent = spawn_at(&mut app, map, start, PathRequest::to(goal));
        if let Some(team) = team {
            app.world_mut().entity_mut(agent).insert(team);
        }
        app.update();
        let best = model.dijkstra_avoiding(xy(start), xy(goal), &walled);
        match (app.world().get::<NavPath>(agent), best) {
            (Some(path), Some(best)) => {
                assert!((path.cost - best).abs() < 1e-6, "round {round}: {} vs {best}", path.cost);
                let cells: Vec<_> = path.cells.iter().map(|&c| xy(c)).collect();
                assert!(model.path_cost(&cells).is_some());
                let inner = &cells[1..cells.len().max(2) - 1];
                assert!(
                    !inner.iter().any(|c| walled.contains(c)),
                    "round {round}: through an enemy"
                );
                let k = if inner.iter().any(|c| passed.contains(c)) {
                    0
                } else if walled.is_empty() {
                    2
                } else {
                    1
                };
                checked[k] += 1;
            }
            (None, None) => {
                let failed = app.world().get::<PathFailed>(agent).expect("a failure");
                assert!(matches!(failed.error, NavError::Search(_)), "{:?}", failed.error);
            }
            (found, best) => {
                panic!("round {round}: plugin {:?}, oracle {best:?}", found.map(|p| p.cost))
            }
        }
    }
    assert!(checked.iter().all(|&n| n >= 5), "{checked:?}");
}

#[test]
fn arrival_stops_at_the_first_cell_of_the_path_where_the_condition_holds() {
    let mut rng = Rng(0xA441);
    let mut by_condition = 0;
    for round in 0..150 {
        let (grid, model) = random_world(&mut rng);
        let (Some(start), Some(goal)) = (open_cell(&mut rng, &grid), open_cell(&mut rng, &grid))
        else {
            continue;
        };
        let Some(best) = model.dijkstra(xy(start), xy(goal)) else { continue };
        let arrive = match rng.below(3) {
            0 => Arrival::Within(TILE * (1 + rng.below(5)) as f32),
            1 => Arrival::WithinCost(f64::from(1 + rng.below(6))),
            _ => Arrival::InSight { distance: TILE * (1 + rng.below(8)) as f32 },
        };
        let mut app = app();
        let map = spawn_grid(&mut app, grid.clone());
        let request = PathRequest::to(goal).with_arrival(arrive);
        let agent = spawn_at(&mut app, map, start, (PathFollower::new(200.0), request));
        app.update();
        let Some(path) = app.world().get::<NavPath>(agent).cloned() else {
            // The condition held where it stood: it arrived at once, at the start.
            let arrived = messages::<Arrived>(&app).into_iter().find(|a| a.entity == agent);
            let by = if start == goal { Arrival::AtGoal } else { arrive };
            assert_eq!(arrived.map(|a| (a.cell, a.by)), Some((start, by)), "round {round}");
            continue;
        };
        // Oracle: the path is the start of a cheapest path to the goal, and stops at the first of
        // its cells where the condition holds.
        let to_goal = |c: GridPos| model.dijkstra(xy(c), xy(goal)).unwrap();
        let walked = path_cost(&grid, &path.cells).unwrap();
        let last = *path.cells.last().unwrap();
        assert!(
            (walked + to_goal(last) - best).abs() < 1e-6,
            "round {round}: not on a cheapest path"
        );
        let goal_point = centre(&app, map, goal);
        let holds = |c: GridPos| match arrive {
            Arrival::Within(d) => centre(&app, map, c).distance(goal_point) <= d,
            Arrival::WithinCost(cost) => to_goal(c) <= cost + 1e-9,
            Arrival::InSight { distance } => {
                centre(&app, map, c).distance(goal_point) <= distance
                    && bevy_tilemap_nav::grid::line::segment_cells(&grid, c, goal).is_some()
            }
            Arrival::AtGoal => c == goal,
        };
        let first = path.cells.iter().position(|&c| holds(c) || c == goal).unwrap();
        assert_eq!(
            first,
            path.cells.len() - 1,
            "round {round}: {arrive:?} held earlier, at {first}"
        );
        // It walks there and says why it stopped.
        let mut arrived = None;
        for _ in 0..400 {
            app.update();
            if let Some(a) = messages::<Arrived>(&app).into_iter().find(|a| a.entity == agent) {
                arrived = Some(a);
                break;
            }
        }
        let arrived = arrived.expect("arrived");
        assert_eq!(arrived.cell, last);
        assert!(arrived.reached_goal);
        let expected = if last == goal { Arrival::AtGoal } else { arrive };
        assert_eq!(arrived.by, expected, "round {round}");
        by_condition += usize::from(last != goal);
    }
    assert!(by_condition > 40, "{by_condition}");
}

#[test]
fn nearest_of_several_cells_costs_the_least_of_them() {
    let mut rng = Rng(0x4EA2);
    let mut found = 0;
    for round in 0..120 {
        let (grid, model) = random_world(&mut rng);
        let Some(start) = open_cell(&mut rng, &grid) else { continue };
        let goals: Vec<GridPos> =
            (0..1 + rng.below(5)).filter_map(|_| open_cell(&mut rng, &grid)).collect();
        let mut app = app();
        let map = spawn_grid(&mut app, grid.clone());
        let agent =
            spawn_at(&mut app, map, start, (PathRequest::to(PathGoal::Nearest(goals.clone())),));
        app.update();
        let best =
            goals.iter().filter_map(|&g| model.dijkstra(xy(start), xy(g))).fold(f64::MAX, f64::min);
        match app.world().get::<NavPath>(agent) {
            Some(path) => {
                assert!((path.cost - best).abs() < 1e-6, "round {round}");
                assert!(goals.contains(path.cells.last().unwrap()));
                assert_eq!(path.goal, *path.cells.last().unwrap());
                found += 1;
            }
            None => assert_eq!(best, f64::MAX, "round {round}: a goal was reachable"),
        }
    }
    assert!(found > 60);
    // None given: a typed error.
    let mut app = app();
    let map = spawn_grid(&mut app, NavGrid::new(4, 4).unwrap());
    let agent =
        spawn_at(&mut app, map, GridPos::new(0, 0), (PathRequest::to(PathGoal::Nearest(vec![])),));
    app.update();
    let failed = app.world().get::<PathFailed>(agent).expect("failed");
    assert_eq!(failed.error, NavError::Search(bevy_tilemap_nav::search::PathError::NoGoals));
}

#[test]
fn wander_walks_to_a_seeded_cell_within_its_budget() {
    let mut grid = NavGrid::new(20, 20).unwrap();
    grid.set_neighborhood(Neighborhood::Four);
    for y in 3..17 {
        grid.set(GridPos::new(10, y), Cell::Blocked).unwrap();
    }
    let start = GridPos::new(8, 10);
    let range = reachable(&grid, start, 9.0).unwrap();
    let mut ends = std::collections::HashSet::new();
    for seed in 0..40 {
        let mut app = app();
        let map = spawn_grid(&mut app, grid.clone());
        let wander = PathGoal::Wander { budget: 9.0, seed };
        let agent =
            spawn_at(&mut app, map, start, (PathFollower::new(300.0), PathRequest::to(wander)));
        app.update();
        let path = app.world().get::<NavPath>(agent).expect("a path").clone();
        let end = *path.cells.last().unwrap();
        assert!(range.contains(end) && end != start);
        assert!((range.cost(end).unwrap() - path.cost).abs() < 1e-9);
        ends.insert(end);
        for _ in 0..200 {
            app.update();
        }
        assert_eq!(position(&app, agent), centre(&app, map, end));
        assert!(app.world().get::<Pursuit>(agent).is_none());
    }
    assert!(ends.len() > 20, "{}", ends.len());
}

#[test]
fn fleeing_agent_runs_where_the_core_says_and_again_as_the_threat_follows() {
    // A long open hall: the threat starts beside the agent and then walks after it.
    let mut grid = NavGrid::new(60, 7).unwrap();
    grid.set_neighborhood(Neighborhood::Four);
    let mut app = app();
    let map = spawn_grid(&mut app, grid.clone());
    let (start, threat_at) = (GridPos::new(20, 3), GridPos::new(17, 3));
    let threat = spawn_at(&mut app, map, threat_at, (PathFollower::new(20.0),));
    let flight = PathGoal::AwayFrom { threats: vec![threat], budget: 8.0 };
    let agent = spawn_at(&mut app, map, start, (PathFollower::new(40.0), PathRequest::to(flight)));
    app.update();
    let path = app.world().get::<NavPath>(agent).expect("a path").clone();
    let core = flee(&grid, start, &[threat_at], FleeOptions::new(8.0)).unwrap();
    assert_eq!(path.cells, core.cells);
    assert!(path.cells.last().unwrap().x > start.x, "away from the threat");
    assert!(app.world().get::<Pursuit>(agent).is_some());
    // The threat walks after it: the agent re-plans as it comes, and keeps ahead.
    app.world_mut().entity_mut(threat).insert(PathRequest::to(GridPos::new(59, 3)));
    let mut searches = 0;
    for _ in 0..90 {
        app.update();
        if let Some(p) = app.world().get::<Pursuit>(agent) {
            searches = searches.max(p.searches);
        }
        let (a, t) = (position(&app, agent), position(&app, threat));
        assert!(a.x > t.x, "the threat never gets past it");
    }
    assert!(searches >= 2, "re-planned {searches} times");
    // With the threat gone still, the flight ends: the pursuit is off once it arrives.
    app.world_mut().entity_mut(threat).despawn();
    for _ in 0..300 {
        app.update();
    }
    assert!(app.world().get::<Pursuit>(agent).is_none());
    assert!(app.world().get::<NavPath>(agent).is_none());
}

#[test]
fn an_agent_among_its_own_threats_runs_from_the_others_only_and_arrives() {
    // Issue 52: fleeing from itself (the only threat) ran for ever, re-planning as it moved.
    let mut grid = NavGrid::new(40, 7).unwrap();
    grid.set_neighborhood(Neighborhood::Four);
    let mut app = app();
    let map = spawn_grid(&mut app, grid.clone());
    let alone_at = GridPos::new(5, 3);
    let alone = spawn_at(&mut app, map, alone_at, (PathFollower::new(40.0),));
    let flight = PathGoal::AwayFrom { threats: vec![alone], budget: 8.0 };
    app.world_mut().entity_mut(alone).insert(PathRequest::to(flight));
    // Another with a real threat beside it as well: it runs from that one as if alone with it.
    let (start, threat_at) = (GridPos::new(25, 3), GridPos::new(22, 3));
    let threat = spawn_at(&mut app, map, threat_at, ());
    let runner = spawn_at(&mut app, map, start, (PathFollower::new(40.0),));
    let flight = PathGoal::AwayFrom { threats: vec![runner, threat], budget: 8.0 };
    app.world_mut().entity_mut(runner).insert(PathRequest::to(flight));
    let mut cursor = MessageCursor::<Arrived>::default();
    let mut arrived = Vec::new();
    app.update();
    let path = app.world().get::<NavPath>(runner).expect("a path").cells.clone();
    assert_eq!(path, flee(&grid, start, &[threat_at], FleeOptions::new(8.0)).unwrap().cells);
    let mut searches = 0;
    for _ in 0..400 {
        arrived.extend(read_new(&app, &mut cursor).into_iter().map(|a| a.entity));
        if let Some(p) = app.world().get::<Pursuit>(alone) {
            searches = searches.max(p.searches);
        }
        app.update();
    }
    // Safe where it stood: it arrived there, once, and stopped asking.
    assert_eq!(arrived.iter().filter(|&&e| e == alone).count(), 1, "{arrived:?}");
    assert!(searches <= 1, "searched {searches} times");
    assert!(app.world().get::<Pursuit>(alone).is_none());
    assert!(app.world().get::<PathRequest>(alone).is_none());
    assert_eq!(position(&app, alone), centre(&app, map, alone_at));
    // The other ran its flight to the end, the threat standing still.
    assert!(arrived.contains(&runner));
    assert_eq!(position(&app, runner), centre(&app, map, *path.last().unwrap()));
}

/// An open `width` x `height` map, 8-way, and a target walking a loop of `corners` at `speed`
/// (a system sends it on to the next corner each time it arrives).
#[derive(Component)]
struct Loop {
    corners: Vec<GridPos>,
    next: usize,
    laps_left: u32,
}

fn walk_loops(
    mut commands: Commands,
    mut arrived: MessageReader<Arrived>,
    mut loops: Query<&mut Loop>,
) {
    for a in arrived.read() {
        if let Ok(mut l) = loops.get_mut(a.entity) {
            if l.next == 0 {
                if l.laps_left == 0 {
                    continue;
                }
                l.laps_left -= 1;
            }
            let goal = l.corners[l.next];
            l.next = (l.next + 1) % l.corners.len();
            commands.entity(a.entity).insert(PathRequest::to(goal));
        }
    }
}

fn chase_app(speeds: (f32, f32), laps: u32, arrive: Arrival) -> (App, Entity, Entity, Entity) {
    let mut app = app();
    app.add_systems(Update, walk_loops);
    let grid = NavGrid::new(30, 30).unwrap();
    let map = spawn_grid(&mut app, grid);
    let corners =
        vec![GridPos::new(25, 4), GridPos::new(25, 25), GridPos::new(4, 25), GridPos::new(4, 4)];
    let target = spawn_at(
        &mut app,
        map,
        GridPos::new(4, 4),
        (
            PathFollower::new(speeds.0),
            PathRequest::to(corners[0]),
            Loop { corners, next: 1, laps_left: laps },
        ),
    );
    let chaser = spawn_at(
        &mut app,
        map,
        GridPos::new(15, 15),
        (PathFollower::new(speeds.1), PathRequest::chase(target).with_arrival(arrive)),
    );
    (app, map, target, chaser)
}

#[test]
fn a_slower_chaser_never_loses_its_target_and_arrives_once_it_stops() {
    let (mut app, map, target, chaser) = chase_app((60.0, 45.0), 0, Arrival::AtGoal);
    let mut failed = app.world().resource::<Messages<PathFailed>>().get_cursor();
    let geometry = app.world().resource::<NavMaps>().get(map).unwrap().geometry;
    let policy = app.world().resource::<NavSettings>().repath;
    let mut frames = 0;
    let mut arrived_at = None;
    while frames < 3000 && arrived_at.is_none() {
        app.update();
        frames += 1;
        assert!(read_new(&app, &mut failed).is_empty(), "no failure");

        let target_cell = geometry.world_to_cell(position(&app, target)).unwrap();
        // Never more than the target walks in one re-plan interval (and a cell) behind.
        if let Some(path) = app.world().get::<NavPath>(chaser) {
            let lag = path.goal.x.abs_diff(target_cell.x).max(path.goal.y.abs_diff(target_cell.y));
            let most = (60.0 * policy.max_interval / TILE).ceil() as u32 + 2;
            assert!(lag <= most, "frame {frames}: the chaser heads {lag} cells from the target");
        }
        let target_still = app.world().get::<NavPath>(target).is_none()
            && app.world().get::<PathRequest>(target).is_none();
        if target_still
            && let Some(a) = messages::<Arrived>(&app).into_iter().find(|a| a.entity == chaser)
        {
            arrived_at = Some((a, target_cell));
        }
    }
    let (arrived, target_cell) = arrived_at.unwrap_or_else(|| {
        panic!(
            "the chaser never arrived: chaser at {}, target at {}, path {:?}, pursuit {:?}, target path {:?}",
            position(&app, chaser),
            position(&app, target),
            app.world().get::<NavPath>(chaser).map(|p| (&p.cells, p.goal)),
            app.world().get::<Pursuit>(chaser),
            app.world().get::<NavPath>(target).map(|p| (&p.cells, p.goal)),
        )
    });
    assert_eq!(arrived.cell, target_cell);
    let pursuit = app.world().get::<Pursuit>(chaser).expect("still chasing");
    assert!(pursuit.repairs > 0, "kept on the target without a search at times");
    assert!(
        (pursuit.searches as usize) < frames / 4,
        "{} searches in {frames} frames: not one a frame",
        pursuit.searches
    );
    // The target sets off again: the chaser follows.
    app.world_mut().entity_mut(target).insert(PathRequest::to(GridPos::new(20, 20)));
    for _ in 0..30 {
        app.update();
    }
    assert!(app.world().get::<NavPath>(chaser).is_some(), "set out again");
}

/// Runs frames until `chaser` arrives (at most `frames`); returns the cell, and every
/// `PathFailed` it was sent meanwhile.
fn until_arrived(app: &mut App, chaser: Entity, frames: usize) -> (Option<GridPos>, Vec<NavError>) {
    let mut failed = Vec::new();
    for _ in 0..frames {
        app.update();
        failed.extend(
            messages::<PathFailed>(app).into_iter().filter(|f| f.entity == chaser).map(|f| f.error),
        );
        if let Some(a) = messages::<Arrived>(app).into_iter().find(|a| a.entity == chaser) {
            return (Some(a.cell), failed);
        }
    }
    (None, failed)
}

#[test]
fn a_chase_survives_its_target_standing_where_no_one_can_walk() {
    let mut app = app();
    let map = spawn_grid(&mut app, NavGrid::new(30, 30).unwrap());
    let (there, wall) = (GridPos::new(20, 20), |app: &mut App, map, cell, to| {
        let mut nav = app.world_mut().get_mut::<NavGridMap>(map).unwrap();
        nav.grid.set(cell, to).unwrap();
    });
    let target = spawn_at(&mut app, map, there, ());
    let chaser = spawn_at(
        &mut app,
        map,
        GridPos::new(3, 3),
        (PathFollower::new(60.0), PathRequest::chase(target)),
    );
    for _ in 0..5 {
        app.update();
    }
    // A wall under the target for one frame (it ended the chase for good: `GoalBlocked`).
    wall(&mut app, map, there, Cell::Blocked);
    app.update();
    wall(&mut app, map, there, Cell::Passable { cost: 1 });
    let (arrived, failed) = until_arrived(&mut app, chaser, 600);
    assert!(failed.is_empty(), "{failed:?}");
    assert_eq!(arrived, Some(there));
    assert!(app.world().get::<Pursuit>(chaser).is_some(), "still chasing");

    // The target steps onto a wall and stays: the chaser goes to the nearest open cell.
    let rock = GridPos::new(10, 20);
    wall(&mut app, map, rock, Cell::Blocked);
    *app.world_mut().get_mut::<Transform>(target).unwrap() = at(&app, map, rock);
    let (arrived, failed) = until_arrived(&mut app, chaser, 600);
    assert!(failed.is_empty(), "{failed:?}");
    let next_to = arrived.expect("arrived beside it");
    assert_eq!(next_to.x.abs_diff(rock.x) + next_to.y.abs_diff(rock.y), 1, "{next_to:?}");

    // The target walled in (a ring round it): the chaser is told once and waits, searching
    // no more while the target stands; let out, it is chased again.
    let pen = GridPos::new(25, 5);
    let ring: Vec<GridPos> = (24..=26)
        .flat_map(|x| (4..=6).map(move |y| GridPos::new(x, y)))
        .filter(|&c| c != pen)
        .collect();
    for &c in &ring {
        wall(&mut app, map, c, Cell::Blocked);
    }
    *app.world_mut().get_mut::<Transform>(target).unwrap() = at(&app, map, pen);
    let (arrived, failed) = until_arrived(&mut app, chaser, 300);
    assert_eq!(arrived, None);
    assert!(
        matches!(
            failed.as_slice(),
            [NavError::Search(bevy_tilemap_nav::search::PathError::Unreachable { .. })]
        ),
        "{failed:?}"
    );
    let searches = app.world().get::<Pursuit>(chaser).expect("waiting, still chasing").searches;
    for _ in 0..100 {
        app.update();
    }
    assert_eq!(app.world().get::<Pursuit>(chaser).unwrap().searches, searches);
    let out = GridPos::new(15, 8);
    *app.world_mut().get_mut::<Transform>(target).unwrap() = at(&app, map, out);
    let (arrived, _) = until_arrived(&mut app, chaser, 600);
    assert_eq!(arrived, Some(out));
}

#[test]
fn a_faster_chaser_catches_its_target_and_stops_in_range() {
    let range = TILE * 1.5;
    let (mut app, _, target, chaser) = chase_app((40.0, 80.0), 20, Arrival::Within(range));
    let mut caught = None;
    for frame in 0..1500 {
        app.update();
        if messages::<Arrived>(&app)
            .iter()
            .any(|a| a.entity == chaser && a.by == Arrival::Within(range))
        {
            caught = Some(frame);
            break;
        }
    }
    let frame = caught.expect("caught");
    let gap = position(&app, chaser).distance(position(&app, target));
    // In range when it stopped (the target moves on by at most a frame's walk since).
    assert!(gap <= range + 40.0 * 0.016 * 2.0 + TILE * 0.75, "frame {frame}: {gap}");
}

#[test]
fn chasing_across_a_link_keeps_every_path_legal_and_reaches_the_target() {
    let mut app = app();
    let a = spawn_grid(&mut app, NavGrid::new(12, 6).unwrap());
    let b = app
        .world_mut()
        .spawn((
            NavGridMap::square(NavGrid::new(12, 6).unwrap(), Vec2::splat(TILE)),
            Transform::from_xyz(0.0, 400.0, 0.0),
        ))
        .id();
    app.update();
    app.world_mut().spawn(NavLink::two_way(
        LinkEnd::new(a, GridPos::new(11, 3)),
        LinkEnd::new(b, GridPos::new(0, 3)),
        1.0,
    ));
    let target = spawn_at(&mut app, a, GridPos::new(6, 3), (PathFollower::new(50.0),));
    let chaser = spawn_at(
        &mut app,
        a,
        GridPos::new(0, 0),
        (PathFollower::new(40.0), PathRequest::chase(target)),
    );
    app.update();
    let goal = PathGoal::OnMap { map: b, cell: GridPos::new(8, 5) };
    app.world_mut().entity_mut(target).insert(PathRequest::to(goal));
    let mut arrived = false;
    for frame in 0..1500 {
        app.update();
        assert!(app.world().get::<PathFailed>(chaser).is_none(), "frame {frame}");
        if let Some(path) = app.world().get::<NavPath>(chaser) {
            let maps = app.world().resource::<NavMaps>();
            let legal = |map: Entity, cells: &[GridPos]| {
                path_cost(&maps.get(map).unwrap().grid, cells).is_some()
            };
            assert!(legal(path.map, &path.cells), "frame {frame}");
            assert!(path.legs.iter().all(|leg| legal(leg.map, &leg.cells)), "frame {frame}");
        }
        if messages::<Arrived>(&app)
            .iter()
            .any(|m| m.entity == chaser && m.cell == GridPos::new(8, 5))
        {
            arrived = true;
            break;
        }
    }
    assert!(arrived, "reached the target on the other map");
    assert_eq!(app.world().get::<OnNavMap>(chaser), Some(&OnNavMap(b)));
}

#[test]
fn a_chase_after_a_target_that_is_despawned_fails_with_a_typed_error() {
    let (mut app, _, target, chaser) = chase_app((60.0, 45.0), 3, Arrival::AtGoal);
    for _ in 0..20 {
        app.update();
    }
    app.world_mut().entity_mut(target).despawn();
    let mut failed = None;
    for _ in 0..120 {
        app.update();
        if let Some(f) = messages::<PathFailed>(&app).into_iter().find(|f| f.entity == chaser) {
            failed = Some(f);
            break;
        }
    }
    assert_eq!(failed.expect("failed").error, NavError::TargetGone { target });
    for _ in 0..60 {
        app.update();
    }
    assert!(app.world().get::<Pursuit>(chaser).is_none());
    assert!(app.world().get::<NavPath>(chaser).is_none(), "stopped");
}
