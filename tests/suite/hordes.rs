//! Many agents following one distance field (`NavField` + `FollowField`): all reach the goal by
//! cheapest ways, never standing in a wall; when a wall goes up across their way the field is
//! repaired and they walk round it, with no search of their own; moved goals turn them all; an
//! agent that cannot get there is told so once. Plain agents walk straight off the field (no
//! `NavPath`): the cells they walk cost what their own search finds, and smoothed ones walk
//! straight lines on open ground; agents that steer (`Avoidance`) get their way as a `NavPath`.

use std::time::Duration;

use bevy::prelude::*;
use bevy_tilemap_nav::plugin::{Arrival, FollowField, NavDiagnostics, NavField, OnNavMap};
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::{DistanceField, MAX_FLEE_WEIGHT, PathError};

#[allow(dead_code)]
use crate::tilemap::{centre_on, messages, nav_app, position};

const TILE: f32 = 16.0;

/// A 40 x 30 map: a wall down x = 20 with gaps at y = 5 and y = 25, and a closed pocket at the
/// top left (x 0-2, y 27-29).
fn level() -> NavGrid {
    let mut grid = NavGrid::new(40, 30).unwrap();
    for y in 0..30 {
        if y != 5 && y != 25 {
            grid.set(GridPos::new(20, y), Cell::Blocked).unwrap();
        }
    }
    for k in 0..4 {
        grid.set(GridPos::new(3, 26 + k.min(3)), Cell::Blocked).unwrap();
        grid.set(GridPos::new(k, 26), Cell::Blocked).unwrap();
    }
    grid
}

struct Horde {
    app: App,
    map: Entity,
    field: Entity,
    agents: Vec<Entity>,
}

/// 60 agents spread over the map (a third smoothed) and one in the walled pocket, following the
/// field of `goal`; with `steer`, each has `Avoidance` (and walks a `NavPath`).
fn horde(goal: GridPos, steer: bool) -> Horde {
    let mut app = nav_app(Duration::from_millis(20), 1);
    let map = app.world_mut().spawn(NavGridMap::square(level(), Vec2::splat(TILE))).id();
    app.update();
    let field = app.world_mut().spawn(NavField::new(map, vec![goal])).id();
    let mut agents = Vec::new();
    for k in 0..60u32 {
        let cell = GridPos::new(1 + (k % 15), 1 + (k / 15) * 6);
        let at = app.world().resource::<NavMaps>().get(map).unwrap().geometry.cell_to_world(cell);
        let follower =
            if k % 3 == 0 { PathFollower::smoothed(80.0) } else { PathFollower::new(80.0) };
        let mut agent = app.world_mut().spawn((
            Transform::from_translation(at.extend(1.0)),
            follower,
            FollowField(field),
        ));
        if steer {
            agent.insert(Avoidance::new(TILE * 0.3));
        }
        agents.push(agent.id());
    }
    // In the walled pocket: no way out.
    let at = app
        .world()
        .resource::<NavMaps>()
        .get(map)
        .unwrap()
        .geometry
        .cell_to_world(GridPos::new(1, 28));
    agents.push(
        app.world_mut()
            .spawn((
                Transform::from_translation(at.extend(1.0)),
                PathFollower::new(80.0),
                FollowField(field),
            ))
            .id(),
    );
    Horde { app, map, field, agents }
}

/// Runs frames until every agent but the last (the walled-in one) arrived at `goal`, checking
/// each frame that no one stands in a wall and that nobody searched. Returns the frames taken.
fn walk_all_home(h: &mut Horde, goal: GridPos, frames: usize) -> usize {
    let mut home = vec![false; h.agents.len() - 1];
    for frame in 0..frames {
        h.app.update();
        assert_eq!(
            h.app.world().resource::<NavDiagnostics>().searches_started,
            0,
            "frame {frame}: a search"
        );
        let maps = h.app.world().resource::<NavMaps>();
        let nav = maps.get(h.map).unwrap();
        for &a in &h.agents {
            let cell = nav.geometry.world_to_cell(position(&h.app, a)).unwrap();
            assert!(nav.grid.is_passable(cell), "frame {frame}: {a} in a wall at {cell:?}");
        }
        for arrived in messages::<Arrived>(&h.app) {
            if let Some(k) = h.agents.iter().position(|&a| a == arrived.entity) {
                assert!(arrived.reached_goal && arrived.cell == goal, "{arrived:?}");
                home[k] = true;
            }
        }
        if home.iter().all(|&h| h) {
            return frame;
        }
    }
    panic!("not all home: {} of {}", home.iter().filter(|&&h| h).count(), home.len());
}

#[test]
fn a_horde_follows_one_field_home_by_cheapest_ways_and_round_a_new_wall() {
    let goal = GridPos::new(35, 15);
    let mut h = horde(goal, false);
    h.app.update();
    h.app.update();
    // Plain agents walk straight off the field: no path of their own.
    for &a in &h.agents {
        assert!(h.app.world().get::<NavPath>(a).is_none(), "{a} has a NavPath");
    }
    // The walled-in one is told, once.
    let last = *h.agents.last().unwrap();
    let failed = h.app.world().get::<PathFailed>(last).expect("told");
    assert!(matches!(failed.error, NavError::Search(PathError::Unreachable { .. })));
    // A wall across the lower gap while they walk: the field is repaired, they go round.
    for _ in 0..20 {
        h.app.update();
    }
    h.app
        .world_mut()
        .get_mut::<NavGridMap>(h.map)
        .unwrap()
        .grid
        .set(GridPos::new(20, 5), Cell::Blocked)
        .unwrap();
    h.app.update();
    let nav = h.app.world().get::<NavField>(h.field).unwrap();
    let (settled, _) = nav.last_work();
    assert!(settled > 0 && settled < 40 * 30, "repaired {settled} cells");
    assert!(
        nav.field().unwrap().path_from(GridPos::new(2, 1)).unwrap().contains(&GridPos::new(20, 25))
    );
    walk_all_home(&mut h, goal, 3000);
    assert_eq!(messages::<PathFailed>(&h.app).len(), 0, "the walled-in one is not told again");
}

/// Plain agents walking off the field: those walking cell by cell step only to neighbours
/// (legal moves, corners included), and the cells they walk cost exactly what a search of
/// their own finds; smoothed ones walk no farther than the cells' centres would take them, and
/// on open ground a straight line. Each arrives once.
#[test]
fn agents_walking_off_the_field_take_cheapest_cells_and_smoothed_ones_straight_lines() {
    let goal = GridPos::new(35, 15);
    let mut h = horde(goal, false);
    let grid = h.app.world().resource::<NavMaps>().get(h.map).unwrap().grid.clone();
    let geometry = h.app.world().resource::<NavMaps>().get(h.map).unwrap().geometry;
    let count = h.agents.len() - 1;
    let mut walked: Vec<Vec<GridPos>> = h.agents[..count]
        .iter()
        .map(|&a| vec![geometry.world_to_cell(position(&h.app, a)).unwrap()])
        .collect();
    let mut distance = vec![0.0f32; count];
    let mut arrivals = vec![0; count];
    for _ in 0..3000 {
        let before: Vec<Vec2> = h.agents[..count].iter().map(|&a| position(&h.app, a)).collect();
        h.app.update();
        for (k, &a) in h.agents[..count].iter().enumerate() {
            let at = position(&h.app, a);
            distance[k] += at.distance(before[k]);
            let cell = geometry.world_to_cell(at).unwrap();
            if walked[k].last() != Some(&cell) {
                walked[k].push(cell);
            }
        }
        for arrived in messages::<Arrived>(&h.app) {
            if let Some(k) = h.agents[..count].iter().position(|&a| a == arrived.entity) {
                assert!(arrived.reached_goal && arrived.cell == goal, "{arrived:?}");
                arrivals[k] += 1;
            }
        }
        if arrivals.iter().all(|&n| n > 0) {
            break;
        }
    }
    assert!(arrivals.iter().all(|&n| n == 1), "arrivals: {arrivals:?}");
    for k in 0..count {
        let cells = &walked[k];
        let own = Pathfinder::new().find(&grid, &PathQuery::new(cells[0], goal)).unwrap();
        if k % 3 == 0 {
            // Smoothed: never longer than the way from centre to centre.
            let centre = |c: GridPos| geometry.cell_to_world(c);
            let centres: f32 =
                own.cells.windows(2).map(|w| centre(w[0]).distance(centre(w[1]))).sum();
            assert!(distance[k] <= centres + 0.01 * TILE, "{k}: {} > {centres}", distance[k]);
            continue;
        }
        let cost: f64 = cells
            .windows(2)
            .map(|w| grid.step_cost(w[0], w[1]).unwrap_or_else(|| panic!("{k}: {w:?} no step")))
            .sum();
        assert!((cost - own.cost).abs() < 1e-6, "{k}: walked {cost}, own search {}", own.cost);
    }
    // On open ground (no wall between), a smoothed walker goes straight.
    let mut app = nav_app(Duration::from_millis(20), 1);
    let map = app
        .world_mut()
        .spawn(NavGridMap::square(NavGrid::new(30, 12).unwrap(), Vec2::splat(TILE)))
        .id();
    app.update();
    let field = app.world_mut().spawn(NavField::new(map, vec![GridPos::new(26, 2)])).id();
    let geometry = app.world().resource::<NavMaps>().get(map).unwrap().geometry;
    let start = geometry.cell_to_world(GridPos::new(1, 10));
    let agent = app
        .world_mut()
        .spawn((
            Transform::from_translation(start.extend(0.0)),
            PathFollower::smoothed(80.0),
            FollowField(field),
        ))
        .id();
    let mut walked = 0.0;
    for _ in 0..400 {
        let before = position(&app, agent);
        app.update();
        walked += position(&app, agent).distance(before);
    }
    let end = geometry.cell_to_world(GridPos::new(26, 2));
    assert!(position(&app, agent).distance(end) < 1e-3, "not there");
    let straight = start.distance(end);
    assert!(walked <= straight * 1.02, "walked {walked} for a straight {straight}");
}

/// Agents that steer (`Avoidance`) get their way down the field as a `NavPath`, costing what
/// their own search finds, and walk it home.
#[test]
fn steering_followers_get_their_way_as_a_path() {
    let goal = GridPos::new(35, 15);
    let mut h = horde(goal, true);
    h.app.update();
    h.app.update();
    let grid = h.app.world().resource::<NavMaps>().get(h.map).unwrap().grid.clone();
    for &a in &h.agents[..h.agents.len() - 1] {
        let path = h.app.world().get::<NavPath>(a).expect("a way down").clone();
        let own = Pathfinder::new().find(&grid, &PathQuery::new(path.cells[0], goal)).unwrap();
        assert!((path.cost - own.cost).abs() < 1e-9, "{} vs {}", path.cost, own.cost);
        assert_eq!(*path.cells.last().unwrap(), goal);
    }
    let last = *h.agents.last().unwrap();
    assert!(h.app.world().get::<PathFailed>(last).is_some(), "the walled-in one is told");
}

#[test]
fn moved_goals_turn_the_whole_horde() {
    let mut h = horde(GridPos::new(35, 15), false);
    for _ in 0..30 {
        h.app.update();
    }
    let goal = GridPos::new(10, 15);
    h.app.world_mut().get_mut::<NavField>(h.field).unwrap().goals = vec![goal];
    walk_all_home(&mut h, goal, 3000);
    // One that arrived, put elsewhere by the game (a creep sent back to its spawn): off again,
    // home by a way that goes round no wall.
    let back = h
        .app
        .world()
        .resource::<NavMaps>()
        .get(h.map)
        .unwrap()
        .geometry
        .cell_to_world(GridPos::new(30, 3));
    h.app.world_mut().get_mut::<Transform>(h.agents[0]).unwrap().translation = back.extend(1.0);
    let mut home = false;
    for _ in 0..1000 {
        h.app.update();
        let maps = h.app.world().resource::<NavMaps>();
        let nav = maps.get(h.map).unwrap();
        let cell = nav.geometry.world_to_cell(position(&h.app, h.agents[0])).unwrap();
        assert!(nav.grid.is_passable(cell), "in a wall at {cell:?}");
        let arrived = messages::<Arrived>(&h.app);
        assert!(arrived.iter().all(|a| a.entity == h.agents[0]), "only the moved one arrives");
        if arrived.iter().any(|a| a.entity == h.agents[0] && a.cell == goal) {
            home = true;
            break;
        }
    }
    assert!(home, "the moved agent walked home again");
}

/// Runs frames until every agent stands still at a safe spot of the flee field from `threat`
/// (one already there stays, without arriving again), none nearer the threat (by cost) than
/// where it stood when the threat appeared; those that ran arrived there. No one stands in a
/// wall; no plain one searches. Returns the frames taken.
fn flee_all(h: &mut Horde, threat: GridPos, steer: bool, frames: usize) -> usize {
    let grid = h.app.world().resource::<NavMaps>().get(h.map).unwrap().grid.clone();
    let danger = DistanceField::new(&grid, &[threat]).unwrap();
    let away = |cell: GridPos| danger.cost(cell).unwrap_or(f64::INFINITY);
    let geometry = h.app.world().resource::<NavMaps>().get(h.map).unwrap().geometry;
    let started: Vec<f64> = h
        .agents
        .iter()
        .map(|&a| away(geometry.world_to_cell(position(&h.app, a)).unwrap()))
        .collect();
    let mut safe = vec![false; h.agents.len()];
    let mut before: Vec<Vec2> = h.agents.iter().map(|&a| position(&h.app, a)).collect();
    for frame in 0..frames {
        h.app.update();
        // (Steering ones may plan round one another when they stall.)
        let searches = h.app.world().resource::<NavDiagnostics>().searches_started;
        assert!(steer || searches == 0, "frame {frame}: a search");
        for &a in &h.agents {
            let cell = geometry.world_to_cell(position(&h.app, a)).unwrap();
            assert!(grid.is_passable(cell), "frame {frame}: {a} in a wall at {cell:?}");
        }
        let nav = h.app.world().get::<NavField>(h.field).unwrap();
        let field = nav.field().expect("the flee field is built");
        for arrived in messages::<Arrived>(&h.app) {
            if let Some(k) = h.agents.iter().position(|&a| a == arrived.entity) {
                // (A steering one finding the spot taken by others arrives beside it.)
                if !arrived.reached_goal {
                    safe[k] = true;
                    continue;
                }
                assert!(field.is_end(arrived.cell), "{arrived:?} not at a safe spot");
                assert!(
                    away(arrived.cell) >= started[k],
                    "agent {k} ended nearer the threat: {} < {}",
                    away(arrived.cell),
                    started[k]
                );
                safe[k] = true;
            }
        }
        for (k, &a) in h.agents.iter().enumerate() {
            let at = position(&h.app, a);
            let cell = geometry.world_to_cell(at).unwrap();
            let still = at == before[k] && at == geometry.cell_to_world(cell);
            if still && field.is_end(cell) && away(cell) >= started[k] {
                safe[k] = true;
            }
            before[k] = at;
        }
        if safe.iter().all(|&s| s) {
            return frame;
        }
    }
    panic!("not all safe: {} of {}", safe.iter().filter(|&&s| s).count(), safe.len());
}

#[test]
fn a_flee_field_sends_the_horde_away_and_again_when_the_threat_moves() {
    let mut h = horde(GridPos::new(35, 15), false);
    let threat = GridPos::new(30, 15);
    let flee = NavField::fleeing(h.map, vec![threat]);
    assert!(flee.is_fleeing());
    // Put in place of the field of goals they were following.
    h.app.world_mut().entity_mut(h.field).insert(flee);
    flee_all(&mut h, threat, false, 3000);
    // The threat comes among them: they run again.
    let threat = GridPos::new(8, 10);
    h.app.world_mut().get_mut::<NavField>(h.field).unwrap().goals = vec![threat];
    flee_all(&mut h, threat, false, 3000);
}

#[test]
fn steering_followers_of_a_flee_field_get_a_path_to_a_safe_spot() {
    let mut h = horde(GridPos::new(35, 15), true);
    let threat = GridPos::new(8, 10);
    h.app.world_mut().entity_mut(h.field).insert(NavField::fleeing(h.map, vec![threat]));
    h.app.update();
    h.app.update();
    let nav = h.app.world().get::<NavField>(h.field).unwrap();
    let field = nav.field().expect("built").clone();
    let grid = h.app.world().resource::<NavMaps>().get(h.map).unwrap().grid.clone();
    let danger = DistanceField::new(&grid, &[threat]).unwrap();
    // All but the one in the walled pocket (out of the threat's reach: safe where it stands).
    for &a in &h.agents[..h.agents.len() - 1] {
        let path = h.app.world().get::<NavPath>(a).expect("a path down the flee field");
        assert!(field.is_end(path.goal), "{a}: path to {:?}, not a safe spot", path.goal);
        let from = *path.cells.first().unwrap();
        assert!(danger.cost(path.goal) >= danger.cost(from), "{a}: runs nearer the threat");
    }
}

#[test]
fn a_flee_weight_that_gives_no_useful_field_is_refused_where_it_is_given() {
    let map = Entity::PLACEHOLDER;
    for weight in [f64::NAN, f64::INFINITY, f64::MAX, 0.0, -1.2] {
        let bad = NavField::fleeing(map, vec![GridPos::new(30, 15)]).with_flee_weight(weight);
        assert!(matches!(bad, Err(PathError::InvalidNumber { .. })), "{weight}: {bad:?}");
    }
    // The largest it takes: its followers run (none is told it has no way).
    let mut h = horde(GridPos::new(35, 15), false);
    let flee = NavField::fleeing(h.map, vec![GridPos::new(30, 15)]);
    h.app.world_mut().entity_mut(h.field).insert(flee.with_flee_weight(MAX_FLEE_WEIGHT).unwrap());
    for _ in 0..5 {
        h.app.update();
        assert!(messages::<PathFailed>(&h.app).iter().all(|f| f.entity == h.agents[60]));
    }
    let nav = h.app.world().get::<NavField>(h.field).unwrap();
    assert!(nav.error().is_none() && nav.field().is_some());
}

/// On a large map a field's build runs a slice a frame: the field appears after a few frames,
/// as built whole. New goals: the old field stays until the new one is ready, and walls put up
/// meanwhile are in the new one.
#[test]
fn a_large_field_is_built_over_several_frames_and_replaces_the_old_one_when_ready() {
    let mut app = nav_app(Duration::from_millis(20), 1);
    let map =
        app.world_mut().spawn(NavGridMap::square(NavGrid::new(300, 300).unwrap(), Vec2::ONE)).id();
    app.update();
    let first = GridPos::new(10, 10);
    let field = app.world_mut().spawn(NavField::new(map, vec![first])).id();
    let built = |app: &App| app.world().get::<NavField>(field).unwrap().field().cloned();
    let mut frames = 0;
    while built(&app).is_none() {
        app.update();
        frames += 1;
        assert!(frames < 200, "never built");
    }
    assert!(frames >= 3, "90,000 cells built in {frames} frames");
    let grid = app.world().get::<NavGridMap>(map).unwrap().grid.clone();
    let whole = DistanceField::new(&grid, &[first]).unwrap();
    // (Costs: a repaired field may break ties between equal ways otherwise than a rebuild.)
    let same = |a: &DistanceField, b: &DistanceField, grid: &NavGrid| {
        grid.positions().all(|c| match (a.cost(c), b.cost(c)) {
            (Some(x), Some(y)) => (x - y).abs() < 1e-9,
            (x, y) => x == y,
        })
    };
    assert!(same(&built(&app).unwrap(), &whole, &grid));

    // New goals; walls go up while the new field is built.
    let second = GridPos::new(290, 290);
    app.world_mut().get_mut::<NavField>(field).unwrap().goals = vec![second];
    let mut frames = 0;
    loop {
        app.update();
        frames += 1;
        let now = built(&app).unwrap();
        if now.goals() == [second] {
            break;
        }
        assert_eq!(now.goals(), [first], "the old field stays meanwhile");
        let wall = GridPos::new(100 + frames, 150);
        app.world_mut().get_mut::<NavGridMap>(map).unwrap().grid.set(wall, Cell::Blocked).unwrap();
        assert!(frames < 200, "never built");
    }
    assert!(frames >= 3);
    app.update(); // the last wall's change reaches the field
    let grid = app.world().get::<NavGridMap>(map).unwrap().grid.clone();
    assert!(!grid.is_passable(GridPos::new(101, 150)), "walls went up during the build");
    let whole = DistanceField::new(&grid, &[second]).unwrap();
    assert!(same(&built(&app).unwrap(), &whole, &grid), "the new field has the walls in");
}

/// A field built only as far as its followers need: on a 300 x 300 map, followers near the goal
/// pay for a small field; one that comes from far away waits for the field to reach it (never
/// told it has no way) and walks home; one walled in is told, once the field has looked
/// everywhere it could.
#[test]
fn a_field_covering_its_followers_grows_to_newcomers_and_tells_the_walled_in() {
    let mut app = nav_app(Duration::from_millis(20), 1);
    let mut grid = NavGrid::new(300, 300).unwrap();
    // A walled pocket round (150, 150).
    for k in 148..=152 {
        for (x, y) in [(k, 148), (k, 152), (148, k), (152, k)] {
            grid.set(GridPos::new(x, y), Cell::Blocked).unwrap();
        }
    }
    let map = app.world_mut().spawn(NavGridMap::square(grid, Vec2::splat(TILE))).id();
    app.update();
    let goal = GridPos::new(10, 10);
    let field = app.world_mut().spawn(NavField::new(map, vec![goal]).covering_followers()).id();
    let geometry = app.world().resource::<NavMaps>().get(map).unwrap().geometry;
    let spawn = |app: &mut App, cell: GridPos| {
        let at = geometry.cell_to_world(cell).extend(1.0);
        let follower = (Transform::from_translation(at), PathFollower::new(400.0));
        app.world_mut().spawn((follower, FollowField(field))).id()
    };
    let near: Vec<Entity> = (0..5).map(|k| spawn(&mut app, GridPos::new(20 + k, 25))).collect();
    let mut home = Vec::new();
    for _ in 0..300 {
        app.update();
        home.extend(messages::<Arrived>(&app).into_iter().map(|a| a.entity));
        assert!(messages::<PathFailed>(&app).is_empty(), "no one near is told it has no way");
        if near.iter().all(|a| home.contains(a)) {
            break;
        }
    }
    assert!(near.iter().all(|a| home.contains(a)), "the near ones walked home");
    let small = app.world().get::<NavField>(field).unwrap().field().unwrap().clone();
    assert!(small.limit().is_finite(), "built only as far as they needed");
    assert_eq!(small.cost(GridPos::new(290, 290)), None, "the far corner is not known");

    // A newcomer from far away: the field reaches it, and it walks home.
    let far = spawn(&mut app, GridPos::new(280, 260));
    let mut arrived = false;
    for _ in 0..3000 {
        app.update();
        assert!(messages::<PathFailed>(&app).is_empty(), "the newcomer is not told it has no way");
        if messages::<Arrived>(&app).iter().any(|a| a.entity == far && a.cell == goal) {
            arrived = true;
            break;
        }
    }
    assert!(arrived, "the newcomer walked home");

    // One in the walled pocket: told, once the field has looked everywhere.
    let walled = spawn(&mut app, GridPos::new(150, 150));
    let mut told = 0;
    for _ in 0..300 {
        app.update();
        told += messages::<PathFailed>(&app).iter().filter(|f| f.entity == walled).count();
    }
    assert_eq!(told, 1, "told once");
    let whole = app.world().get::<NavField>(field).unwrap().field().unwrap().limit();
    assert!(whole.is_infinite(), "it looked everywhere: {whole}");
}

/// A 30 x 30 open map (tiles of `TILE`), a field of `goals` on it, and 20 followers on the left
/// (every third steering, so both ways of following are seen). Returns (app, map, field, them).
fn open_field(goals: Vec<GridPos>) -> (App, Entity, Entity, Vec<Entity>) {
    let mut app = nav_app(Duration::from_millis(20), 1);
    let grid = NavGrid::new(30, 30).unwrap();
    let map = app.world_mut().spawn(NavGridMap::square(grid, Vec2::splat(TILE))).id();
    app.update();
    let field = app.world_mut().spawn(NavField::new(map, goals)).id();
    let followers = (0..20u32)
        .map(|k| {
            let at = centre_on(&app, map, GridPos::new(1 + k % 3, 2 + k));
            let mut agent = app.world_mut().spawn((
                Transform::from_translation(at.extend(1.0)),
                PathFollower::new(120.0),
                FollowField(field),
            ));
            if k % 3 == 0 {
                agent.insert(Avoidance::new(TILE * 0.3));
            }
            agent.id()
        })
        .collect();
    (app, map, field, followers)
}

/// Runs `frames` frames; returns where each follower arrived (the last `Arrived`) and every
/// `PathFailed` sent to them.
fn run_followers(
    app: &mut App,
    them: &[Entity],
    frames: usize,
) -> (Vec<Option<GridPos>>, Vec<PathFailed>) {
    let (mut arrived, mut failed) = (vec![None; them.len()], Vec::new());
    for _ in 0..frames {
        app.update();
        for a in messages::<Arrived>(app) {
            if let Some(k) = them.iter().position(|&e| e == a.entity) {
                arrived[k] = Some(a.cell);
            }
        }
        failed.extend(messages::<PathFailed>(app).into_iter().filter(|f| them.contains(&f.entity)));
    }
    (arrived, failed)
}

/// Every follower arrived at `goal` (the steering ones, crowding there, beside it).
fn all_at(arrived: &[Option<GridPos>], goal: GridPos) {
    let near = |a: &Option<GridPos>| {
        a.is_some_and(|a| a.x.abs_diff(goal.x).max(a.y.abs_diff(goal.y)) <= 2)
    };
    assert!(arrived.iter().all(near), "not all at {goal:?}: {arrived:?}");
}

/// Each of `them` was sent exactly one `PathFailed`, saying `error`.
fn told_once_each(them: &[Entity], failed: &[PathFailed], error: &NavError) {
    for &e in them {
        let theirs: Vec<&PathFailed> = failed.iter().filter(|f| f.entity == e).collect();
        assert_eq!(theirs.len(), 1, "{e}: {theirs:?}");
        assert_eq!(&theirs[0].error, error, "{e}");
    }
}

#[test]
fn a_field_serves_the_goals_it_can_use_and_skips_one_walled_later() {
    // Two goals; after 20 frames the nearer for most is walled: all walk to the other.
    let (far, near) = (GridPos::new(28, 1), GridPos::new(28, 28));
    let (mut app, map, field, them) = open_field(vec![near, far]);
    let (_, failed) = run_followers(&mut app, &them, 20);
    assert!(failed.is_empty(), "{failed:?}");
    let mut nav_map = app.world_mut().get_mut::<NavGridMap>(map).unwrap();
    nav_map.grid.set(near, Cell::Blocked).unwrap();
    let (arrived, failed) = run_followers(&mut app, &them, 400);
    assert!(failed.is_empty(), "{failed:?}");
    all_at(&arrived, far);
    let nav = app.world().get::<NavField>(field).unwrap();
    assert_eq!(nav.unused_goals().collect::<Vec<_>>(), vec![near]);
    assert!(nav.error().is_none());

    // A goal off the map among good ones is left out; the good one is served.
    let (off, good) = (GridPos::new(40, 3), GridPos::new(25, 15));
    let (mut app, _, field, them) = open_field(vec![off, good]);
    let (arrived, failed) = run_followers(&mut app, &them, 300);
    assert!(failed.is_empty(), "{failed:?}");
    all_at(&arrived, good);
    let nav = app.world().get::<NavField>(field).unwrap();
    assert_eq!(nav.unused_goals().collect::<Vec<_>>(), vec![off]);
}

#[test]
fn followers_of_a_field_with_no_usable_goal_are_told_once_and_walk_when_one_opens() {
    // No goals: told once each, however long it lasts; then goals come.
    let (mut app, _, field, them) = open_field(Vec::new());
    let (_, failed) = run_followers(&mut app, &them, 30);
    told_once_each(&them, &failed, &NavError::Search(PathError::NoGoals));
    let goal = GridPos::new(20, 20);
    app.world_mut().get_mut::<NavField>(field).unwrap().goals = vec![goal];
    let (arrived, failed) = run_followers(&mut app, &them, 300);
    assert!(failed.is_empty(), "{failed:?}");
    all_at(&arrived, goal);
    assert!(them.iter().all(|&e| app.world().get::<PathFailed>(e).is_none()));

    // Every goal walled (one of them after the followers set off): told once, then walled
    // goal opened again, they walk there.
    let (a, b) = (GridPos::new(28, 5), GridPos::new(28, 25));
    let (mut app, map, _, them) = open_field(vec![a, b]);
    let wall = |app: &mut App, cell: GridPos, to: Cell| {
        let mut nav_map = app.world_mut().get_mut::<NavGridMap>(map).unwrap();
        nav_map.grid.set(cell, to).unwrap();
    };
    wall(&mut app, a, Cell::Blocked);
    let (_, failed) = run_followers(&mut app, &them, 10);
    assert!(failed.is_empty(), "{failed:?}");
    wall(&mut app, b, Cell::Blocked);
    let (_, failed) = run_followers(&mut app, &them, 30);
    told_once_each(&them, &failed, &NavError::Search(PathError::GoalBlocked { goal: a }));
    wall(&mut app, b, Cell::Passable { cost: 1 });
    let (arrived, failed) = run_followers(&mut app, &them, 400);
    assert!(failed.is_empty(), "{failed:?}");
    all_at(&arrived, b);
}

/// Followers standing on their goal, told their field had none (its goals taken away), and then
/// given that goal again: each arrives again (its goal is new to it), with no failure.
#[test]
fn followers_home_told_of_no_field_arrive_again_when_their_goal_comes_back() {
    let goal = GridPos::new(20, 20);
    let (mut app, _, field, them) = open_field(vec![goal]);
    let (arrived, _) = run_followers(&mut app, &them, 300);
    all_at(&arrived, goal);
    app.world_mut().get_mut::<NavField>(field).unwrap().goals = Vec::new();
    let (arrived, failed) = run_followers(&mut app, &them, 20);
    told_once_each(&them, &failed, &NavError::Search(PathError::NoGoals));
    assert!(arrived.iter().all(Option::is_none), "{arrived:?}");
    app.world_mut().get_mut::<NavField>(field).unwrap().goals = vec![goal];
    let (arrived, failed) = run_followers(&mut app, &them, 300);
    assert!(failed.is_empty(), "{failed:?}");
    all_at(&arrived, goal);
}

#[test]
fn followers_of_a_field_whose_map_goes_are_told_once() {
    let (mut app, map, field, mut them) = open_field(vec![GridPos::new(28, 28)]);
    // 200 followers in all.
    for k in 0..180u32 {
        let at = centre_on(&app, map, GridPos::new(4 + k % 10, 1 + k / 10));
        let agent = (Transform::from_translation(at.extend(1.0)), PathFollower::new(60.0));
        them.push(app.world_mut().spawn((agent, FollowField(field))).id());
    }
    let (_, failed) = run_followers(&mut app, &them, 15);
    assert!(failed.is_empty(), "{failed:?}");
    app.world_mut().despawn(map);
    let (arrived, failed) = run_followers(&mut app, &them, 30);
    assert!(arrived.iter().all(Option::is_none), "{arrived:?}");
    told_once_each(&them, &failed, &NavError::MapGone { map });
    let nav = app.world().get::<NavField>(field).unwrap();
    assert_eq!(nav.error(), Some(&NavError::MapGone { map }));
}

/// One walker's word: an agent sent by a request, one walking straight down a field and one
/// steering down it, from the same cells to the same goal, are told alike. Each arrives with one
/// `Arrived` at the goal (`reached_goal`, `by: AtGoal`) and stands on the map (`OnNavMap`); each
/// walled in is told once, with the same `PathFailed` on it and sent, naming its cell and the
/// goal.
#[test]
fn path_walkers_and_field_walkers_are_told_alike() {
    let goal = GridPos::new(35, 15);
    let mut app = nav_app(Duration::from_millis(20), 1);
    let map = app.world_mut().spawn(NavGridMap::square(level(), Vec2::splat(TILE))).id();
    app.update();
    let field = app.world_mut().spawn(NavField::new(map, vec![goal])).id();
    let (open, pocket) = (GridPos::new(2, 2), GridPos::new(1, 28));
    let mut spawn = |cell: GridPos, how: u32| {
        let at = centre_on(&app, map, cell).extend(1.0);
        let mut agent =
            app.world_mut().spawn((Transform::from_translation(at), PathFollower::new(80.0)));
        match how {
            0 => agent.insert(PathRequest::to(PathGoal::OnMap { map, cell: goal })),
            1 => agent.insert(FollowField(field)),
            _ => agent.insert((FollowField(field), Avoidance::new(TILE * 0.3))),
        };
        agent.id()
    };
    let walkers: Vec<Entity> = (0..3).map(|how| spawn(open, how)).collect();
    let walled: Vec<Entity> = (0..3).map(|how| spawn(pocket, how)).collect();
    let (mut arrivals, mut failures) = (Vec::new(), Vec::new());
    for _ in 0..600 {
        app.update();
        arrivals.extend(messages::<Arrived>(&app));
        failures.extend(messages::<PathFailed>(&app));
    }
    for &a in &walkers {
        let theirs: Vec<&Arrived> = arrivals.iter().filter(|m| m.entity == a).collect();
        let expected = Arrived { entity: a, cell: goal, reached_goal: true, by: Arrival::AtGoal };
        assert_eq!(theirs, [&expected], "{a}");
        assert_eq!(app.world().get::<OnNavMap>(a), Some(&OnNavMap(map)), "{a}");
        assert!(app.world().get::<PathFailed>(a).is_none(), "{a}");
    }
    let error = NavError::Search(PathError::Unreachable { start: pocket, goal });
    for &a in &walled {
        let told = PathFailed { entity: a, error: error.clone() };
        let theirs: Vec<&PathFailed> = failures.iter().filter(|m| m.entity == a).collect();
        assert_eq!(theirs, [&told], "{a}");
        assert_eq!(app.world().get::<PathFailed>(a), Some(&told), "{a}");
        assert!(arrivals.iter().all(|m| m.entity != a), "{a} arrived");
    }
}
