//! Speed that follows the ground (`GroundSpeed`), in a headless `App` with real tilemaps: an
//! agent that walks dear ground slower arrives when its path's `arrival_times` say, which is the
//! cheapest path's cost over its speed (the independent oracle's Dijkstra): the plans are the
//! fastest. Without it, the same walk takes its length over the speed.

use crate::support::{Model, Rng};
use crate::tilemap::{TILE, app, centre, messages, spawn_text_tilemap, texture};
use bevy::prelude::*;
use bevy_tilemap_nav::plugin::{GroundSpeed, PathTimes};
use bevy_tilemap_nav::prelude::*;

/// Frames of the tests' app, in seconds.
const FRAME: f32 = 0.016;

/// A random map `w` x `h` of floor (cost 1), mud (cost 5) and walls, as text rows (top first)
/// and as the oracle's cells (`cells[y][x]`, y up).
fn random_rows(rng: &mut Rng, w: usize, h: usize) -> (Vec<String>, Vec<Vec<Option<u32>>>) {
    let rows: Vec<String> = (0..h)
        .map(|_| {
            (0..w)
                .map(|_| match rng.below(100) {
                    0..12 => '#',
                    12..40 => '~',
                    _ => '.',
                })
                .collect()
        })
        .collect();
    let cell = |c: char| match c {
        '#' => None,
        '~' => Some(5),
        _ => Some(1),
    };
    let cells = (0..h).map(|y| rows[h - 1 - y].chars().map(cell).collect()).collect();
    (rows, cells)
}

/// Walks `agent` until it arrives; the seconds it took.
fn seconds_to_arrive(app: &mut App, agent: Entity, frames: usize) -> Option<f32> {
    for frame in 1..=frames {
        app.update();
        if messages::<Arrived>(app).iter().any(|a| a.entity == agent && a.reached_goal) {
            return Some(frame as f32 * FRAME);
        }
    }
    None
}

/// The times `agent`'s path says, read the frame its answer came.
fn times_of(app: &mut App, agent: Entity, ground: bool) -> PathTimes {
    for _ in 0..50 {
        app.update();
        let world = app.world();
        if let (Some(path), Some(follower)) =
            (world.get::<NavPath>(agent), world.get::<PathFollower>(agent))
        {
            return path.arrival_times(world.resource::<NavMaps>(), follower, ground);
        }
    }
    panic!("no path");
}

#[test]
fn an_agent_slowed_by_dear_ground_arrives_when_its_path_says_as_fast_as_any_path_allows() {
    let mut rng = Rng(0x57_03);
    let (mut checked, mut slower) = (0, 0);
    for round in 0..24 {
        let (rows, cells) = random_rows(&mut rng, 12, 8);
        let model = Model { eight: true, ..Model::of(cells) };
        let open: Vec<(i64, i64)> = (0..12)
            .flat_map(|x| (0..8).map(move |y| (x, y)))
            .filter(|&(x, y)| model.cost(x, y).is_some())
            .collect();
        let start = open[rng.below(open.len() as u32) as usize];
        let goal = open[rng.below(open.len() as u32) as usize];
        let Some(cheapest) = model.dijkstra(start, goal) else {
            continue;
        };
        if start == goal {
            continue;
        }
        for (ground, smooth) in [(true, false), (true, true), (false, false)] {
            let mut app = app();
            let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
            spawn_text_tilemap(&mut app, &rows, TILE, Vec2::ZERO, texture);
            app.update();
            let cell = |(x, y): (i64, i64)| GridPos::new(x as u32, y as u32);
            let speed = 80.0;
            let follower =
                if smooth { PathFollower::smoothed(speed) } else { PathFollower::new(speed) };
            let at = centre(&app, cell(start)).extend(1.0);
            let mut agent = app.world_mut().spawn((
                Transform::from_translation(at),
                follower,
                PathRequest::to(cell(goal)),
            ));
            if ground {
                agent.insert(GroundSpeed);
            }
            let agent = agent.id();
            let times = times_of(&mut app, agent, ground);
            let took = seconds_to_arrive(&mut app, agent, 5000).expect("arrived");
            let said = times.goal;
            // The answer came a frame or two into the walk: within two frames of what it said.
            assert!(
                (took - said).abs() <= 2.0 * FRAME + 1e-3,
                "round {round} {ground} {smooth}: took {took} s, said {said} s"
            );
            let fastest = (cheapest as f32) * TILE / speed;
            if ground && !smooth {
                // Cell by cell: the cheapest path, at its cost over the speed.
                assert!(
                    (said - fastest).abs() < 1e-3,
                    "round {round}: said {said}, fastest {fastest}"
                );
            } else if ground {
                // Smoothed: never slower than the cheapest path cell by cell.
                assert!(said <= fastest + 1e-3, "round {round}: smoothed {said} > {fastest}");
            } else {
                // At full speed: the length over the speed, no slower than with the mud.
                assert!(said <= fastest + 1e-3, "round {round}: {said} > {fastest}");
                slower += usize::from(fastest > said + FRAME);
            }
            checked += 1;
        }
    }
    assert!(checked >= 40, "{checked} walks checked");
    assert!(slower >= 5, "mud slowed only {slower} walks");
}

#[test]
fn arrival_times_count_each_point_and_a_stopped_walker_never_arrives() {
    let mut app = app();
    let rows = ["........", "..~~~...", "........"];
    spawn_text_tilemap(&mut app, &rows, TILE, Vec2::ZERO, texture);
    app.update();
    let at = centre(&app, GridPos::new(0, 1)).extend(1.0);
    let agent = app
        .world_mut()
        .spawn((
            Transform::from_translation(at),
            PathFollower::new(TILE),
            GroundSpeed,
            PathRequest::to(GridPos::new(7, 1)),
        ))
        .id();
    let times = times_of(&mut app, agent, true);
    let path = app.world().get::<NavPath>(agent).unwrap().clone();
    let maps = app.world().resource::<NavMaps>();
    assert_eq!(times.points.len(), path.points.len());
    assert_eq!(times.points[0], 0.0);
    assert!(times.points.windows(2).all(|w| w[1] >= w[0]));
    assert_eq!(times.goal, *times.points.last().unwrap());
    // A tile a second; through the mud (the only way: 3 cells of 5) or round it.
    let cost = path.cost as f32;
    assert!((times.goal - cost).abs() < 1e-3, "{} s for a path of cost {cost}", times.goal);
    // Speed 0 or not a number: the points after the first are never reached.
    for speed in [0.0, f32::NAN, -1.0] {
        let stopped = PathFollower::new(speed);
        let never = path.arrival_times(maps, &stopped, true);
        assert_eq!(never.points[0], 0.0);
        assert!(never.goal.is_infinite() && never.goal > 0.0, "{speed}: {}", never.goal);
    }
}
