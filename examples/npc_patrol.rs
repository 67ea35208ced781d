//! NPCs on patrol: each walks its own loop of waypoints, pausing at each, around walls and
//! around the player's character. The door in the top corridor opens and closes by itself; NPCs
//! whose route it cuts plan again, and the panel says whether they took the long way round or are
//! waiting for the way to open.
//!
//! ```text
//! cargo run --example npc_patrol
//! ```
//!
//! Left click: move the player (others walk around you). Right click: build or remove a wall,
//! open or close a door. Block a corridor and watch the NPCs decide.

mod common;

use std::time::Duration;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_tilemap_nav::plugin::Replanning;
use bevy_tilemap_nav::prelude::*;
use common::*;

fn main() {
    game_app("bevy_tilemap_nav: NPC patrol")
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                (ci_clicks, track_cursor, player_clicks.map(drop), swing_door, patrol)
                    .chain()
                    .before(NavSet::Pathfind),
                (watch_paths, draw_paths, show_panel).chain().after(NavSet::Move),
            ),
        )
        .run();
}

/// The self-closing door in the top corridor.
const AUTO_DOOR: (u32, u32) = (20, 13);
const DOOR_PERIOD: Duration = Duration::from_secs(6);
const PAUSE: Duration = Duration::from_millis(1200);
const RETRY: Duration = Duration::from_secs(2);

#[derive(Debug, Clone, PartialEq)]
enum Doing {
    Walking,
    Pausing,
    /// The route is cut; trying again after a while.
    Waiting(String),
}

#[derive(Component)]
struct Patrol {
    name: &'static str,
    waypoints: Vec<GridPos>,
    target: usize,
    doing: Doing,
    timer: Timer,
    /// Cost of the first path found for each leg: the usual way.
    usual_cost: Vec<Option<f64>>,
    /// Cost of the path being walked now.
    cost: f64,
}

/// A patrol loop: waypoint tiles (x, y).
type Route = &'static [(u32, u32)];

#[derive(Component)]
struct Panel;

#[derive(Component)]
struct DoorTimer(Timer);

fn setup(mut commands: Commands, mut images: ResMut<Assets<Image>>) {
    spawn_camera(&mut commands);
    spawn_level(&mut commands, &mut images, &LEVEL);
    let player = spawn_player(&mut commands, 12, 13);
    commands.entity(player).insert(NavObstacle::default());
    let npcs: [(&str, Color, Route); 3] = [
        ("Amber", Color::srgb(1.0, 0.7, 0.2), &[(2, 15), (14, 16), (27, 14), (12, 10)]),
        ("Moss", Color::srgb(0.45, 0.95, 0.4), &[(3, 8), (14, 5), (25, 2), (25, 8)]),
        ("Violet", Color::srgb(0.8, 0.5, 1.0), &[(26, 16), (3, 3), (6, 10)]),
    ];
    for (name, color, waypoints) in npcs {
        let waypoints: Vec<GridPos> = waypoints.iter().map(|&(x, y)| GridPos::new(x, y)).collect();
        let size = TilemapSize { x: LEVEL[0].len() as u32, y: LEVEL.len() as u32 };
        let at = square_cell_centre(waypoints[0].x, waypoints[0].y, size, TILE);
        let legs = waypoints.len();
        commands.spawn((
            Patrol {
                name,
                waypoints,
                target: 0,
                doing: Doing::Pausing,
                timer: Timer::new(PAUSE, TimerMode::Once),
                usual_cost: vec![None; legs],
                cost: 0.0,
            },
            Figure::new(color, TILE * 0.9),
            Transform::from_translation(at.extend(4.0)),
            PathFollower::new(TILE * 3.5),
        ));
    }
    commands.spawn(DoorTimer(Timer::new(DOOR_PERIOD, TimerMode::Repeating)));
    commands.spawn((Panel, help_text(14.0)));
}

/// The top corridor's door opens and closes on its own.
fn swing_door(
    time: Res<Time>,
    mut door: Single<&mut DoorTimer>,
    storage: Query<&TileStorage, With<NavTilemap>>,
    mut textures: Query<&mut TileTextureIndex>,
) {
    if door.0.tick(time.delta()).just_finished()
        && let Ok(storage) = storage.single()
    {
        toggle_tile(&mut textures, storage, GridPos::new(AUTO_DOOR.0, AUTO_DOOR.1));
    }
}

/// Pause at each waypoint, then on to the next; after a failure, wait and try again.
fn patrol(
    mut commands: Commands,
    time: Res<Time>,
    mut arrived: MessageReader<Arrived>,
    mut failed: MessageReader<PathFailed>,
    mut npcs: Query<(Entity, &mut Patrol)>,
) {
    for message in arrived.read() {
        if let Ok((_, mut npc)) = npcs.get_mut(message.entity) {
            npc.doing = Doing::Pausing;
            npc.timer = Timer::new(PAUSE, TimerMode::Once);
            if message.reached_goal {
                npc.target = (npc.target + 1) % npc.waypoints.len();
            }
        }
    }
    for message in failed.read() {
        if let Ok((_, mut npc)) = npcs.get_mut(message.entity) {
            npc.doing = Doing::Waiting(explain(&message.error));
            npc.timer = Timer::new(RETRY, TimerMode::Once);
        }
    }
    for (entity, mut npc) in &mut npcs {
        if npc.doing != Doing::Walking && npc.timer.tick(time.delta()).just_finished() {
            let goal = npc.waypoints[npc.target];
            commands.entity(entity).insert(PathRequest::to(goal));
            npc.doing = Doing::Walking;
        }
    }
}

/// Notes each new path's cost, to tell the usual way from a detour.
#[allow(clippy::type_complexity)]
fn watch_paths(mut npcs: Query<(&mut Patrol, &NavPath), (Changed<NavPath>, Without<Replanning>)>) {
    for (mut npc, path) in &mut npcs {
        let leg = npc.target;
        if npc.usual_cost[leg].is_none() {
            npc.usual_cost[leg] = Some(path.cost);
        }
        npc.cost = path.cost;
    }
}

fn show_panel(
    npcs: Query<(&Patrol, Has<Replanning>)>,
    door: Query<&TileTextureIndex>,
    storage: Query<&TileStorage, With<NavTilemap>>,
    mut text: Single<&mut Text, With<Panel>>,
) {
    let door_open = storage
        .single()
        .ok()
        .and_then(|s| s.checked_get(&TilePos::new(AUTO_DOOR.0, AUTO_DOOR.1)))
        .and_then(|e| door.get(e).ok())
        .is_some_and(|t| t.0 == DOOR_OPEN);
    let mut lines = vec![format!(
        "Left click: move (NPCs walk around you)   Right click: wall / door   Top door: {}",
        if door_open { "open" } else { "closed" }
    )];
    let mut names: Vec<_> = npcs.iter().collect();
    names.sort_by_key(|(npc, _)| npc.name);
    for (npc, replanning) in names {
        let goal = npc.waypoints[npc.target];
        let state = match &npc.doing {
            _ if replanning => "route cut: planning again".to_string(),
            Doing::Walking => match npc.usual_cost[npc.target] {
                Some(usual) if npc.cost > usual + 0.5 => {
                    format!(
                        "to {goal}: taking the long way round ({:.1} instead of {usual:.1})",
                        npc.cost
                    )
                }
                _ => format!("to {goal}: walking"),
            },
            Doing::Pausing => format!("pausing before {goal}"),
            Doing::Waiting(why) => format!("waiting: {why}"),
        };
        lines.push(format!("{}: {state}", npc.name));
    }
    text.0 = lines.join("\n");
}
