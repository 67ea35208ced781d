//! Grid-locked agents sent somewhere new at random while they walk (mid-step included), on a
//! map with walls and teleporting links, checked at every frame: at most one agent per cell,
//! whatever re-planning, re-targeting, link crossings and side-steps do.

use std::collections::HashMap;
use std::time::Duration;

use crate::support::Rng;
use crate::tilemap::{nav_app, spawn_text_tilemap};
use bevy::prelude::*;
use bevy_tilemap_nav::prelude::*;

const WALL: u32 = 1;
const TILE: f32 = 16.0;

fn random_rows(rng: &mut Rng, width: usize, height: usize) -> Vec<String> {
    (0..height)
        .map(|_| (0..width).map(|_| if rng.chance(14) { '#' } else { '.' }).collect())
        .collect()
}

fn random_open_cell(rng: &mut Rng, grid: &NavGrid) -> GridPos {
    loop {
        let cell = GridPos::new(rng.below(grid.width()), rng.below(grid.height()));
        if grid.is_passable(cell) {
            return cell;
        }
    }
}

/// Runs one session; returns (frames checked, requests made, links crossed).
fn run(seed: u64, agents: usize, frames: usize) -> (usize, usize, usize) {
    let mut rng = Rng(seed);
    let mut app = nav_app(Duration::from_millis(16), WALL);
    let rows = random_rows(&mut rng, 40, 40);
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    spawn_text_tilemap(&mut app, &rows, TILE, Vec2::ZERO, |c| Some(u32::from(c == '#')));
    app.update();
    let map = app.world().resource::<NavMaps>().first().unwrap().clone();
    // Teleporters across the map, both ways: agents cross them into cells others may hold.
    for _ in 0..6 {
        let (a, b) = (random_open_cell(&mut rng, &map.grid), random_open_cell(&mut rng, &map.grid));
        let (a, b) = (LinkEnd::new(map.entity, a), LinkEnd::new(map.entity, b));
        app.world_mut().spawn(NavLink::two_way(a, b, 1.0));
    }
    let mut taken = Vec::new();
    let mut walkers = Vec::new();
    while walkers.len() < agents {
        let cell = random_open_cell(&mut rng, &map.grid);
        if taken.contains(&cell) {
            continue;
        }
        taken.push(cell);
        let at = map.geometry.cell_to_world(cell).extend(1.0);
        let speed = 40.0 + rng.below(80) as f32;
        walkers.push(
            app.world_mut()
                .spawn((
                    Transform::from_translation(at),
                    GridLocked::default(),
                    PathFollower::new(speed),
                ))
                .id(),
        );
    }
    let mut requests = 0;
    let mut crossings = 0;
    for frame in 0..frames {
        // Each agent is sent somewhere new about every two seconds, at any moment of its step.
        for &agent in &walkers {
            if rng.below(120) == 0 {
                let goal = random_open_cell(&mut rng, &map.grid);
                app.world_mut().entity_mut(agent).insert(PathRequest::to(goal));
                requests += 1;
            }
        }
        app.update();
        crossings +=
            app.world().resource::<Messages<LinkCrossed>>().iter_current_update_messages().count();
        // Every cell is held by one agent at most, and every agent's centre is in a cell it
        // holds: so no two centres share a cell.
        let mut held: HashMap<GridPos, Entity> = HashMap::new();
        let mut centres: HashMap<GridPos, Entity> = HashMap::new();
        for &agent in &walkers {
            let lock = *app.world().get::<GridLocked>(agent).unwrap();
            let at = app.world().get::<Transform>(agent).unwrap().translation.truncate();
            let centre = map.geometry.world_to_cell(at).expect("on the map");
            // A diagonal step passes through the corner point of four cells: there (to within
            // float error) a centre is in none of them, and rounding picks one.
            let offset = (at / TILE + Vec2::splat(0.5)).fract();
            let at_corner = offset.distance(offset.round()) < 1e-3;
            if !at_corner {
                assert!(
                    map.grid.is_passable(centre),
                    "seed {seed} frame {frame}: {agent} in a wall"
                );
                if let Some(other) = centres.insert(centre, agent) {
                    panic!("seed {seed} frame {frame}: {agent} and {other} both stand in {centre}");
                }
            }
            let Some((_, here)) = lock.holds else {
                continue;
            };
            // Its centre is on the line from the centre of the cell it holds to the centre of
            // the one it is entering (or on the first): it walks through no other cell.
            let from = map.geometry.cell_to_world(here);
            let to = map.geometry.cell_to_world(lock.entering.unwrap_or(here));
            let along = (at - from).dot(to - from) / (to - from).length_squared().max(1e-9);
            let off_line = at.distance(from.lerp(to, along.clamp(0.0, 1.0)));
            assert!(
                off_line < 1e-2,
                "seed {seed} frame {frame}: {agent} at {at}, {off_line} off the line {here} -> {:?}",
                lock.entering
            );
            for cell in std::iter::once(here).chain(lock.entering) {
                if let Some(other) = held.insert(cell, agent) {
                    panic!("seed {seed} frame {frame}: {agent} and {other} both hold {cell}");
                }
            }
            assert!(
                at_corner || centre == here || Some(centre) == lock.entering,
                "seed {seed} frame {frame}: {agent} stands in {centre} at {at}, holding {here} and \
                 entering {:?}",
                lock.entering
            );
            if let Some(next) = lock.entering {
                let (dx, dy) = (next.x.abs_diff(here.x), next.y.abs_diff(here.y));
                assert!(dx <= 1 && dy <= 1, "seed {seed} frame {frame}: {here} -> {next}");
            }
        }
    }
    (frames, requests, crossings)
}

#[test]
fn grid_locked_agents_re_targeted_at_random_never_share_a_cell() {
    let mut total = (0, 0, 0);
    for seed in 1..=3 {
        let (frames, requests, crossings) = run(seed, 90, 1500);
        total = (total.0 + frames, total.1 + requests, total.2 + crossings);
    }
    // The sessions did what they are for: many re-targets, some link crossings.
    assert!(total.1 > 2000, "{total:?}");
    assert!(total.2 > 0, "{total:?}");
}
