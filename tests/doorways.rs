//! Crowds through doorways: agents with `Avoidance` walk between two halls joined by doorways two
//! tiles wide, both ways at once, for minutes of game time. Every agent alternates between a
//! random cell of its own hall and one of the other hall, and gets its next goal the frame it
//! arrives. Every frame, every agent stands in an open cell and moves by legal steps; no agent
//! goes more than `STUCK_SECONDS` without getting a tile further from where it last was (a
//! queue at a door moves; a jam does not); the flow through each door, each way, is counted.
//!
//! `cargo test --test doorways` runs 200 agents for one minute. The run, 1,000 agents
//! for ten minutes, is ignored by default (`.ci/run` runs it):
//! `cargo test --release --test doorways -- --ignored --nocapture` prints the flows.

use std::time::Duration;

use bevy::prelude::*;
use bevy_tilemap_nav::io::movingai::load_map;
use bevy_tilemap_nav::plugin::NavDiagnostics;
use bevy_tilemap_nav::prelude::*;

#[path = "support/mod.rs"]
mod support;
use support::Rng;
#[path = "support/tilemap.rs"]
mod tilemap;
use bevy_tilemap_nav::search::CELL_WORK;
use tilemap::{nav_app, spawn_text_tilemap};

const FLOOR: u32 = 0;
const WALL: u32 = 1;
const TILE: f32 = 16.0;
/// 60 frames a second of game time.
const DT: Duration = Duration::from_nanos(16_666_667);
const FPS: usize = 60;
/// The most an agent may go without getting a tile from where it last was.
const STUCK_SECONDS: f32 = 10.0;
/// The most an agent holding a path may stand (move less than half a tile), however long its
/// request waits in the queue (RELIABILITY.md says why this bound holds).
const STAND_SECONDS: f32 = 5.0;

/// The world: two halls of `hall` x `height` tiles, a wall one tile thick between them, a
/// doorway two tiles wide every `spacing` tiles along it.
struct Layout {
    hall: u32,
    height: u32,
    spacing: u32,
}

impl Layout {
    fn width(&self) -> u32 {
        2 * self.hall + 1
    }

    /// The wall's column.
    fn wall_x(&self) -> u32 {
        self.hall
    }

    /// The doorways' lower rows (each is this row and the one above).
    fn doors(&self) -> Vec<u32> {
        (self.spacing / 2..self.height - 1).step_by(self.spacing as usize).collect()
    }

    fn rows(&self) -> Vec<String> {
        let doors = self.doors();
        (0..self.height)
            .rev()
            .map(|y| {
                (0..self.width())
                    .map(|x| {
                        let edge =
                            y == 0 || y == self.height - 1 || x == 0 || x == self.width() - 1;
                        let door = doors.iter().any(|&d| y == d || y == d + 1);
                        if edge || (x == self.wall_x() && !door) { '#' } else { '.' }
                    })
                    .collect()
            })
            .collect()
    }

    /// A random open cell of hall 0 (left) or 1 (right).
    fn cell_in(&self, hall: u32, rng: &mut Rng) -> GridPos {
        let x = 1 + rng.below(self.hall - 1) + hall * self.hall;
        GridPos::new(x, 1 + rng.below(self.height - 2))
    }

    fn hall_of(&self, x: f32) -> u32 {
        u32::from(x > self.wall_x() as f32 * TILE)
    }
}

struct Walker {
    entity: Entity,
    /// The hall of its current goal.
    goal_hall: u32,
    /// Whether its next goal is in the other hall.
    crosses_next: bool,
    /// Where it stood when it last got a tile further, and the frame.
    anchor: Vec2,
    anchor_frame: usize,
    /// Where it stood when it last moved half a tile, and the frame.
    stand: (Vec2, usize),
    cell: GridPos,
    side: u32,
}

#[derive(Debug, Default)]
struct Report {
    arrivals: usize,
    /// Per door (bottom to top): crossings left to right, right to left.
    crossings: Vec<[usize; 2]>,
    /// The longest an agent went without getting a tile further, in frames.
    longest_stuck: usize,
    /// The longest an agent went between two arrivals, in frames.
    longest_trip: usize,
    /// The longest an agent holding a path stood (moved less than half a tile), in frames.
    longest_stand: usize,
}

/// An avoiding agent at `position`, 4 tiles a second, bodies 0.6 tiles across, sent to `goal`.
fn spawn_walker(app: &mut App, position: Vec2, goal: GridPos) -> Entity {
    let body = (PathFollower::new(4.0 * TILE), Avoidance::new(0.3 * TILE));
    let at = Transform::from_translation(position.extend(1.0));
    app.world_mut().spawn((at, body, PathRequest::to(goal))).id()
}

/// How many frames `agent` has stood (held a path and moved less than half a tile) as of
/// `frame`; `stand` is where it last moved from, and the frame, updated here.
fn stood(world: &World, agent: Entity, stand: &mut (Vec2, usize), frame: usize) -> usize {
    let position = world.get::<Transform>(agent).map_or(stand.0, |t| t.translation.truncate());
    if world.get::<NavPath>(agent).is_none() || position.distance(stand.0) >= 0.5 * TILE {
        *stand = (position, frame);
    }
    frame - stand.1
}

fn run(agents: usize, seconds: usize, seed: u64) -> Report {
    let layout = Layout { hall: 48, height: 72, spacing: 8 };
    let mut app = nav_app(DT, WALL);
    let rows = layout.rows();
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    spawn_text_tilemap(&mut app, &rows, TILE, Vec2::ZERO, |c| {
        Some(if c == '#' { WALL } else { FLOOR })
    });
    app.update();
    let geometry = app.world().resource::<NavMaps>().first().unwrap().geometry;
    let grid = app.world().resource::<NavMaps>().first().unwrap().grid.clone();
    let doors = layout.doors();

    let mut rng = Rng(seed);
    let mut walkers = Vec::with_capacity(agents);
    for k in 0..agents {
        let hall = (k % 2) as u32;
        let at = layout.cell_in(hall, &mut rng);
        let goal_hall = if k % 4 < 2 { hall } else { 1 - hall };
        let goal = layout.cell_in(goal_hall, &mut rng);
        let position = geometry.cell_to_world(at);
        let entity = spawn_walker(&mut app, position, goal);
        walkers.push(Walker {
            entity,
            goal_hall,
            crosses_next: goal_hall == hall,
            anchor: position,
            anchor_frame: 0,
            stand: (position, 0),
            cell: at,
            side: hall,
        });
    }

    let mut report = Report { crossings: vec![[0, 0]; doors.len()], ..Report::default() };
    let mut last_arrival = vec![0usize; agents];
    let mut cursor = bevy::ecs::message::MessageCursor::<Arrived>::default();
    for frame in 1..=seconds * FPS {
        app.update();
        let arrived: Vec<Entity> =
            cursor.read(app.world().resource::<Messages<Arrived>>()).map(|a| a.entity).collect();
        let failed: Vec<PathFailed> = walkers
            .iter()
            .filter_map(|w| app.world().get::<PathFailed>(w.entity).cloned())
            .collect();
        assert!(failed.is_empty(), "frame {frame}: refused paths in an open world: {failed:?}");
        for (k, walker) in walkers.iter_mut().enumerate() {
            let position = app.world().get::<Transform>(walker.entity).unwrap().translation;
            let position = position.truncate();
            assert!(position.is_finite(), "frame {frame}: agent {k} at {position}");
            let cell = geometry.world_to_cell(position).unwrap();
            assert!(grid.is_passable(cell), "frame {frame}: agent {k} in a wall at {cell}");
            assert!(
                cell == walker.cell || grid.can_step(walker.cell, cell),
                "frame {frame}: agent {k} jumped {} -> {cell}",
                walker.cell
            );
            walker.cell = cell;
            // Through a door: which one, which way.
            let side = layout.hall_of(position.x);
            if side != walker.side {
                let door = doors.iter().position(|&d| cell.y == d || cell.y == d + 1);
                let door = door.unwrap_or_else(|| panic!("frame {frame}: crossed at {cell}"));
                report.crossings[door][walker.side as usize] += 1;
                walker.side = side;
            }
            if position.distance(walker.anchor) >= TILE {
                walker.anchor = position;
                walker.anchor_frame = frame;
            }
            let stand = stood(app.world(), walker.entity, &mut walker.stand, frame);
            report.longest_stand = report.longest_stand.max(stand);
            assert!(
                stand as f32 <= STAND_SECONDS * FPS as f32,
                "frame {frame}: agent {k} holding a path stood {stand} frames at {cell}, {:?}",
                app.world().get::<Avoidance>(walker.entity)
            );
            let stuck = frame - walker.anchor_frame;
            report.longest_stuck = report.longest_stuck.max(stuck);
            assert!(
                stuck as f32 <= STUCK_SECONDS * FPS as f32,
                "frame {frame}: agent {k} has not got a tile further in {stuck} frames; at {cell}, \
                 {:?}",
                app.world().get::<Avoidance>(walker.entity)
            );
            if arrived.contains(&walker.entity) {
                report.arrivals += 1;
                report.longest_trip = report.longest_trip.max(frame - last_arrival[k]);
                last_arrival[k] = frame;
                // Next: its own hall, then the other, in turns.
                let hall =
                    if walker.crosses_next { 1 - walker.goal_hall } else { walker.goal_hall };
                walker.crosses_next = !walker.crosses_next;
                walker.goal_hall = hall;
                let goal = layout.cell_in(hall, &mut rng);
                app.world_mut().entity_mut(walker.entity).insert(PathRequest::to(goal));
                walker.anchor = position;
                walker.anchor_frame = frame;
            }
        }
    }
    report
}

fn print_flows(report: &Report, seconds: usize) {
    eprintln!("{report:?}");
    for (door, [right, left]) in report.crossings.iter().enumerate() {
        eprintln!(
            "door {door}: {:.2} agents/s left to right, {:.2} right to left",
            *right as f64 / seconds as f64,
            *left as f64 / seconds as f64
        );
    }
    let total: usize = report.crossings.iter().map(|c| c[0] + c[1]).sum();
    eprintln!(
        "all {} doors: {:.2} agents/s; longest without a tile of headway {:.1} s; longest trip \
         {:.1} s; longest stand holding a path {:.1} s",
        report.crossings.len(),
        total as f64 / seconds as f64,
        report.longest_stuck as f64 / FPS as f64,
        report.longest_trip as f64 / FPS as f64,
        report.longest_stand as f64 / FPS as f64
    );
}

/// Every door is used both ways, and agents keep arriving: the crowd flows.
fn assert_flows(report: &Report, agents: usize, seconds: usize) {
    for (door, c) in report.crossings.iter().enumerate() {
        assert!(c[0] > 0 && c[1] > 0, "door {door} not used both ways: {report:?}");
    }
    // Trips are about 60 tiles at 4 tiles a second: each agent arrives many times.
    assert!(report.arrivals >= agents * seconds / 60, "{report:?}");
}

#[test]
fn two_hundred_agents_through_two_wide_doorways_both_ways_for_a_minute() {
    let (agents, seconds) = (200, 60);
    let report = run(agents, seconds, 1);
    print_flows(&report, seconds);
    assert_flows(&report, agents, seconds);
}

#[test]
#[ignore = "long: 1,000 agents for ten minutes of game time; .ci/run runs it"]
fn a_thousand_agents_through_two_wide_doorways_both_ways_for_ten_minutes() {
    let seconds = std::env::var("DOORWAYS_SECONDS").ok().and_then(|s| s.parse().ok());
    let (agents, seconds) = (1000, seconds.unwrap_or(600));
    let report = run(agents, seconds, 2);
    print_flows(&report, seconds);
    assert_flows(&report, agents, seconds);
}

/// Issue 52's scene: 1,000 agents with `Avoidance` on lak304d (a lake map with one-tile
/// passages), each sent to a random cell it can reach when it arrives and every 2 s. The search
/// budget answers about two requests a frame against eight sent, so a request waits seconds (a
/// slow machine, or a game that gives navigation little of its frame). Agents jammed in a
/// narrow passage while their request waits still get through: none holding a path stands
/// (moves less than half a tile) for 5 s. Before, a stalled agent whose request waited did
/// nothing about the jam until it was answered (this failed at frame 394).
#[test]
fn a_thousand_agents_crossing_a_lake_map_with_a_full_queue_never_stand_five_seconds() {
    let grid = load_map("assets/maps/lak304d.map").expect("assets/maps/lak304d.map");
    let (agents, seconds) = (1000, 60);
    let mut app = nav_app(DT, WALL);
    app.world_mut().resource_mut::<NavSettings>().work.shares.searches = 40 * CELL_WORK;
    let rows: Vec<String> = (0..grid.height())
        .rev()
        .map(|y| {
            let open = |x| grid.is_passable(GridPos::new(x, y));
            (0..grid.width()).map(|x| if open(x) { '.' } else { '#' }).collect()
        })
        .collect();
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    spawn_text_tilemap(&mut app, &rows, TILE, Vec2::ZERO, |c| {
        Some(if c == '#' { WALL } else { FLOOR })
    });
    app.update();
    let geometry = app.world().resource::<NavMaps>().first().unwrap().geometry;
    let open: Vec<GridPos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
    let mut rng = Rng(52);
    let goal_from = |from: GridPos, rng: &mut Rng| loop {
        let goal = open[rng.below(open.len() as u32) as usize];
        if grid.connected(from, goal) {
            return goal;
        }
    };
    let mut walkers = Vec::with_capacity(agents);
    for _ in 0..agents {
        let at = open[rng.below(open.len() as u32) as usize];
        let position = geometry.cell_to_world(at);
        let entity = spawn_walker(&mut app, position, goal_from(at, &mut rng));
        // Sent on every 2 s, staggered; standing at `position` since frame 0.
        walkers.push((entity, rng.below(2 * FPS as u32) as usize, (position, 0usize)));
    }
    let (mut longest, mut searches) = (0, 0);
    let mut cursor = bevy::ecs::message::MessageCursor::<Arrived>::default();
    for frame in 1..=seconds * FPS {
        app.update();
        searches += app.world().resource::<NavDiagnostics>().searches_finished;
        let arrived: Vec<Entity> =
            cursor.read(app.world().resource::<Messages<Arrived>>()).map(|a| a.entity).collect();
        for (k, (entity, renew_at, standing)) in walkers.iter_mut().enumerate() {
            let world = app.world();
            let position = world.get::<Transform>(*entity).unwrap().translation.truncate();
            let stand = stood(world, *entity, standing, frame);
            longest = longest.max(stand);
            assert!(
                (stand as f32) < STAND_SECONDS * FPS as f32,
                "frame {frame}: agent {k} holding a path stood {stand} frames at {:?}, {:?}, next \
                 point {:?} of {:?}",
                geometry.world_to_cell(position),
                world.get::<Avoidance>(*entity),
                world.get::<PathFollower>(*entity).map(|f| f.next),
                world.get::<NavPath>(*entity).map(|p| &p.cells),
            );
            if frame >= *renew_at || arrived.contains(entity) {
                *renew_at = frame + 2 * FPS;
                let at = geometry.world_to_cell(position).unwrap();
                let goal = goal_from(at, &mut rng);
                app.world_mut().entity_mut(*entity).insert(PathRequest::to(goal));
            }
        }
    }
    let (sent, answered) =
        (agents as f64 / (2 * FPS) as f64, searches as f64 / (seconds * FPS) as f64);
    eprintln!(
        "searches finished a frame {answered:.2} (about {sent:.1} sent); longest stand holding a \
         path {:.1} s",
        longest as f64 / FPS as f64
    );
    // The queue was full: most requests waited seconds.
    assert!(answered < 0.5 * sent, "{answered} searches a frame: the queue was not full");
}
