//! Guards, an archer, a thief and villagers: NPCs that chase, stop in range, flee and wander.
//!
//! ```text
//! cargo run --example guards
//! ```
//!
//! Left click: move the player. Right click: wall / door. The guards patrol; when you come
//! within their sight (a clear line on the grid, 7 tiles) they chase you (`PathRequest::chase`)
//! and stop beside you. Out of their sight for a second, they go to where they last saw
//! you, search round it (`PathGoal::Wander`), and go back to their rounds. The archer stops as
//! soon as it has you in range and in sight (`Arrival::InSight`). The thief runs from any guard
//! that comes near (`PathGoal::AwayFrom`). Villagers wander. Guards are one team: they walk
//! through each other's cells (`NavObstacle::ally_of`) but plan round you and everyone else.

mod common;

use std::time::Duration;

use bevy::prelude::*;
use bevy_tilemap_nav::grid::line::segment_cells;
use bevy_tilemap_nav::plugin::{Arrival, NavMap, Pursuit};
use bevy_tilemap_nav::prelude::*;
use common::*;

fn main() {
    game_app("bevy_tilemap_nav: guards")
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                (ci_clicks, track_cursor, player_clicks.map(drop), decide)
                    .chain()
                    .before(NavSet::Pathfind),
                (draw_paths, draw_sight, show_panel).after(NavSet::Move),
            ),
        )
        .run();
}

/// How far guards and the archer see, in tiles.
const SIGHT: f32 = 7.0;
/// How near a guard comes before the thief runs, in tiles.
const FEAR: f32 = 5.0;
/// Out of sight this long, a chase is given up for where the player was last seen.
const LOSE_AFTER: f32 = 1.0;
const PAUSE: Duration = Duration::from_millis(1500);
const GUARDS: NavTeam = NavTeam(1);

#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    Guard,
    Archer,
    Thief,
    Villager,
}

#[derive(Clone, Debug, PartialEq)]
enum Doing {
    Patrolling,
    Pausing,
    Chasing,
    /// Stopped where the arrival condition held: beside the player, or in bow range.
    InRange,
    ToLastSeen(GridPos),
    /// Searching round where the player was last seen: wanders left.
    Searching(u32),
    Fleeing,
    Wandering,
    Waiting(String),
}

#[derive(Component)]
struct Npc {
    name: &'static str,
    role: Role,
    doing: Doing,
    waypoints: Vec<GridPos>,
    target: usize,
    timer: Timer,
    /// Seconds since the player was last in sight, and where.
    unseen: f32,
    last_seen: Option<GridPos>,
    /// The next wander's seed.
    seed: u64,
}

impl Npc {
    fn new(name: &'static str, role: Role, waypoints: &[(u32, u32)], seed: u64) -> Self {
        Self {
            name,
            role,
            doing: Doing::Pausing,
            waypoints: waypoints.iter().map(|&(x, y)| GridPos::new(x, y)).collect(),
            target: 0,
            timer: Timer::new(PAUSE, TimerMode::Once),
            unseen: 0.0,
            last_seen: None,
            seed,
        }
    }

    fn wander(&mut self, budget: f64) -> PathRequest {
        self.seed = self.seed.wrapping_add(1);
        PathRequest::to(PathGoal::Wander { budget, seed: self.seed })
    }
}

#[derive(Component)]
struct Panel;

fn setup(mut commands: Commands, mut images: ResMut<Assets<Image>>) {
    spawn_camera(&mut commands);
    spawn_level(&mut commands, &mut images, &LEVEL);
    let player = spawn_player(&mut commands, 3, 2);
    commands.entity(player).insert((NavTeam(0), NavObstacle::default()));
    let size =
        bevy_ecs_tilemap::prelude::TilemapSize { x: LEVEL[0].len() as u32, y: LEVEL.len() as u32 };
    let npcs = [
        (
            Npc::new("Hal", Role::Guard, &[(12, 2), (17, 6), (12, 7), (17, 2)], 1),
            Color::srgb(0.9, 0.2, 0.2),
        ),
        (
            Npc::new("Ivo", Role::Guard, &[(2, 10), (7, 7), (2, 7), (7, 10)], 2),
            Color::srgb(0.95, 0.35, 0.25),
        ),
        (Npc::new("Ash", Role::Archer, &[(23, 5), (27, 9)], 3), Color::srgb(0.95, 0.6, 0.1)),
        (Npc::new("Nim", Role::Thief, &[(15, 4)], 4), Color::srgb(0.55, 0.55, 0.6)),
        (Npc::new("Bea", Role::Villager, &[(4, 14)], 5), Color::srgb(0.5, 0.9, 0.45)),
        (Npc::new("Cob", Role::Villager, &[(14, 13)], 6), Color::srgb(0.8, 0.55, 1.0)),
    ];
    for (npc, color) in npcs {
        let start = npc.waypoints[0];
        let at = square_cell_centre(start.x, start.y, size, TILE);
        let speed = match npc.role {
            Role::Guard => 3.5,
            Role::Archer => 3.0,
            Role::Thief => 5.0,
            Role::Villager => 2.0,
        };
        let (team, obstacle) = match npc.role {
            // Guards (the archer too) pass through one another, not through anyone else.
            Role::Guard | Role::Archer => (GUARDS, NavObstacle::ally_of(GUARDS)),
            Role::Thief => (NavTeam(2), NavObstacle::default()),
            Role::Villager => (NavTeam(3), NavObstacle::default()),
        };
        commands.spawn((
            npc,
            team,
            obstacle,
            Figure::new(color, TILE * 0.9),
            Transform::from_translation(at.extend(4.0)),
            PathFollower::new(TILE * speed),
        ));
    }
    commands.spawn((Panel, help_text(14.0)));
}

/// The open cells of `grid` within `radius` steps of `cell` each way.
fn around(grid: &NavGrid, cell: GridPos, radius: u32) -> Vec<GridPos> {
    let (x0, y0) = (cell.x.saturating_sub(radius), cell.y.saturating_sub(radius));
    (y0..=cell.y + radius)
        .flat_map(|y| (x0..=cell.x + radius).map(move |x| GridPos::new(x, y)))
        .filter(|&c| grid.is_passable(c))
        .collect()
}

/// True when `from` sees `to` on `map`: within `tiles` and a clear line between their cells.
fn sees(map: &NavMap, from: Vec2, to: Vec2, tiles: f32) -> bool {
    let cells = (map.geometry.world_to_cell(from), map.geometry.world_to_cell(to));
    let (Ok(a), Ok(b)) = cells else {
        return false;
    };
    from.distance(to) <= tiles * TILE && segment_cells(&map.grid, a, b).is_some()
}

/// Each NPC's mind: what it sees, what it was doing, what its last path came to.
#[allow(clippy::too_many_arguments)]
fn decide(
    mut commands: Commands,
    time: Res<Time>,
    maps: Res<NavMaps>,
    mut arrived: MessageReader<Arrived>,
    mut failed: MessageReader<PathFailed>,
    player: Single<(Entity, &Transform), With<Player>>,
    mut npcs: Query<(Entity, &mut Npc, &Transform, Has<NavPath>)>,
) {
    let Some(map) = maps.first() else {
        return;
    };
    let (player, player_at) = (player.0, player.1.translation.truncate());
    let guards: Vec<(Entity, Vec2)> = npcs
        .iter()
        .filter(|(_, npc, ..)| npc.role == Role::Guard)
        .map(|(e, _, t, _)| (e, t.translation.truncate()))
        .collect();
    let arrivals: Vec<Arrived> = arrived.read().copied().collect();
    let failures: Vec<PathFailed> = failed.read().cloned().collect();
    let dt = time.delta_secs();
    for (entity, mut npc, transform, walking) in &mut npcs {
        let at = transform.translation.truncate();
        let here = arrivals.iter().find(|a| a.entity == entity);
        if let Some(failure) = failures.iter().find(|f| f.entity == entity) {
            npc.doing = Doing::Waiting(explain(&failure.error));
            npc.timer = Timer::new(PAUSE, TimerMode::Once);
            commands.entity(entity).remove::<Pursuit>();
        }
        let mut send = |request: PathRequest| {
            commands.entity(entity).insert(request);
        };
        match npc.role {
            Role::Guard | Role::Archer => {
                let seen = sees(map, at, player_at, SIGHT);
                if seen {
                    npc.unseen = 0.0;
                    npc.last_seen = map.geometry.world_to_cell(player_at).ok();
                    if !matches!(npc.doing, Doing::Chasing | Doing::InRange) {
                        let arrive = match npc.role {
                            Role::Archer => Arrival::InSight { distance: 5.0 * TILE },
                            _ => Arrival::Within(1.5 * TILE),
                        };
                        send(PathRequest::chase(player).with_arrival(arrive));
                        npc.doing = Doing::Chasing;
                    }
                } else if matches!(npc.doing, Doing::Chasing | Doing::InRange) {
                    npc.unseen += dt;
                    if npc.unseen > LOSE_AFTER {
                        match npc.last_seen {
                            Some(cell) => {
                                // As near as it can get to that spot (a door may have shut on
                                // it): the cheapest to reach of the cells round it.
                                send(PathRequest::to(PathGoal::Nearest(around(
                                    &map.grid, cell, 3,
                                ))));
                                npc.doing = Doing::ToLastSeen(cell);
                            }
                            None => {
                                npc.doing = Doing::Pausing;
                                npc.timer = Timer::new(PAUSE, TimerMode::Once);
                            }
                        }
                    }
                }
                if let Some(arrival) = here {
                    npc.doing = match npc.doing.clone() {
                        Doing::Chasing | Doing::InRange
                            if arrival.by != Arrival::AtGoal || seen =>
                        {
                            Doing::InRange
                        }
                        Doing::ToLastSeen(_) => Doing::Searching(3),
                        Doing::Searching(n) if n > 1 => Doing::Searching(n - 1),
                        Doing::Searching(_) => {
                            // Nothing found: back to the rounds after a pause.
                            npc.timer = Timer::new(PAUSE, TimerMode::Once);
                            Doing::Pausing
                        }
                        Doing::Patrolling => {
                            npc.target = (npc.target + 1) % npc.waypoints.len();
                            npc.timer = Timer::new(PAUSE, TimerMode::Once);
                            Doing::Pausing
                        }
                        doing => doing,
                    };
                    if let Doing::Searching(_) = npc.doing {
                        let wander = npc.wander(5.0 * f64::from(FLOOR_COST));
                        send(wander);
                    }
                }
                // The chase goes on by itself when the player moves off (its `Pursuit`).
                if npc.doing == Doing::InRange && walking && here.is_none() {
                    npc.doing = Doing::Chasing;
                }
            }
            Role::Thief => {
                if here.is_some() {
                    npc.doing = Doing::Pausing;
                    npc.timer = Timer::new(PAUSE / 2, TimerMode::Once);
                }
                // Runs when a guard comes near (not while it catches its breath after a run).
                let near = guards.iter().any(|&(_, g)| g.distance(at) < FEAR * TILE);
                if near && npc.doing == Doing::Wandering {
                    let threats = guards.iter().map(|&(g, _)| g).collect();
                    let budget = 14.0 * f64::from(FLOOR_COST);
                    send(PathRequest::to(PathGoal::AwayFrom { threats, budget }));
                    npc.doing = Doing::Fleeing;
                }
            }
            Role::Villager => {
                if here.is_some() {
                    npc.doing = Doing::Pausing;
                    npc.timer = Timer::new(PAUSE * 2, TimerMode::Once);
                }
            }
        }
        // After a pause (or a failure): on with the rounds, or another wander.
        if matches!(npc.doing, Doing::Pausing | Doing::Waiting(_))
            && npc.timer.tick(time.delta()).just_finished()
        {
            let request = match npc.role {
                Role::Guard | Role::Archer => {
                    npc.doing = Doing::Patrolling;
                    PathRequest::to(npc.waypoints[npc.target])
                }
                Role::Thief | Role::Villager => {
                    npc.doing = Doing::Wandering;
                    npc.wander(6.0 * f64::from(FLOOR_COST))
                }
            };
            commands.entity(entity).insert(request);
        }
    }
}

/// A red line from each guard (and the archer) that sees the player.
fn draw_sight(
    mut gizmos: Gizmos,
    maps: Res<NavMaps>,
    player: Single<&Transform, With<Player>>,
    npcs: Query<(&Npc, &Transform)>,
) {
    let Some(map) = maps.first() else {
        return;
    };
    let to = player.translation.truncate();
    for (npc, transform) in &npcs {
        let from = transform.translation.truncate();
        if matches!(npc.role, Role::Guard | Role::Archer) && sees(map, from, to, SIGHT) {
            gizmos.line_2d(from, to, Color::srgb(1.0, 0.2, 0.2));
        }
    }
}

fn show_panel(npcs: Query<&Npc>, mut text: Single<&mut Text, With<Panel>>) {
    let mut lines = vec![
        "Left click: move   Right click: wall / door   Come into a guard's sight...".to_string(),
    ];
    for npc in &npcs {
        let role = match npc.role {
            Role::Guard => "guard",
            Role::Archer => "archer",
            Role::Thief => "thief",
            Role::Villager => "villager",
        };
        let doing = match (&npc.doing, npc.role) {
            (Doing::Patrolling, _) => format!("on patrol to {}", npc.waypoints[npc.target]),
            (Doing::Pausing, _) => "standing".to_string(),
            (Doing::Chasing, _) => "chasing you!".to_string(),
            (Doing::InRange, Role::Archer) => "in range: shooting".to_string(),
            (Doing::InRange, _) => "caught up with you".to_string(),
            (Doing::ToLastSeen(cell), _) => format!("lost you: going to where you were, {cell}"),
            (Doing::Searching(n), _) => format!("searching round there ({n} to go)"),
            (Doing::Fleeing, _) => "running from the guards".to_string(),
            (Doing::Wandering, _) => "wandering".to_string(),
            (Doing::Waiting(why), _) => format!("waiting: {why}"),
        };
        lines.push(format!("{} ({role}): {doing}", npc.name));
    }
    text.0 = lines.join("\n");
}
