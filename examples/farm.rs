//! A farm: fences between tiles with gates that open and shut, and a ledge along the hillside
//! that characters drop down but never climb ([`TileEdges`]: walls and one-way edges between
//! floor tiles). The player walks where you click; a farmhand goes back and forth between the
//! pen and the hilltop, through a gate, down the ledge, and round by the ramp on the way up.
//!
//! ```text
//! cargo run --example farm
//! ```
//!
//! Left click: walk there (as near as it gets). G, or right click on a gate: open or shut the
//! gates. D: the plugin's debug drawing.

mod common;

use std::collections::HashMap;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_tilemap_nav::prelude::*;
use common::*;

/// The farm, top row first: `.` grass (floor), `=` track (road), `~` mud, `#` stone wall.
const FARM: [&str; 18] = [
    "##############################",
    "#............................#",
    "#..~~~.........=========.....#",
    "#..~~~.........=.............#",
    "#..............=.............#",
    "#..............=.............#",
    "#=========================...#",
    "#............................#",
    "#............................#",
    "#............................#",
    "#..........~~~...............#",
    "#..........~~~...............#",
    "#............................#",
    "#............................#",
    "#............................#",
    "#............................#",
    "#............................#",
    "##############################",
];

/// The ledge: along the south side of row 12 (counted up from the bottom), x = 1..=24; the
/// ramp up is at x = 25..=28.
const LEDGE: (u32, std::ops::RangeInclusive<u32>) = (12, 1..=24);

/// A pen: (min x, min y, max x, max y) and its gate (a tile and the side of it left open when
/// the gate is).
type Pen = ((u32, u32, u32, u32), (u32, u32), Sides);

const PENS: [Pen; 2] =
    [((3, 2, 10, 7), (6, 7), Sides::NORTH), ((16, 2, 26, 8), (16, 5), Sides::WEST)];

const HAND_STOPS: [(u32, u32); 2] = [(5, 4), (20, 15)];

#[derive(Resource)]
struct Farm {
    tilemap: Entity,
    gates_open: bool,
    message: String,
}

#[derive(Component)]
struct Farmhand {
    next: usize,
    /// Seconds to wait before asking again after a failure (a shut gate).
    wait: f32,
}

#[derive(Component)]
struct StatusText;

fn main() {
    game_app("bevy_tilemap_nav: fences, gates and a ledge")
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                (ci_clicks, track_cursor, input).chain().before(NavSet::Pathfind),
                (farmhand, draw_edges, draw_paths, status).chain().after(NavSet::Move),
            ),
        )
        .run();
}

fn setup(mut commands: Commands, mut images: ResMut<Assets<Image>>) {
    spawn_camera(&mut commands);
    let tilemap = spawn_level(&mut commands, &mut images, &FARM);
    spawn_player(&mut commands, 15, 14);
    let size = TilemapSize { x: FARM[0].len() as u32, y: FARM.len() as u32 };
    let (x, y) = HAND_STOPS[1];
    commands.spawn((
        Farmhand { next: 0, wait: 0.0 },
        Figure::new(Color::srgb(0.95, 0.6, 0.25), TILE * 0.9),
        Transform::from_translation(square_cell_centre(x, y, size, TILE).extend(4.0)),
        PathFollower::smoothed(TILE * 3.5),
    ));
    commands.spawn((StatusText, help_text(15.0)));
    commands.insert_resource(Farm { tilemap, gates_open: true, message: String::new() });
}

/// The walls and ledges on each tile's sides: the pens' fences (gates open or shut) and the
/// ledge.
fn tile_edges(gates_open: bool) -> HashMap<(u32, u32), TileEdges> {
    let mut edges: HashMap<(u32, u32), TileEdges> = HashMap::new();
    let mut add = |x: u32, y: u32, walls: Sides, drops: Sides| {
        let e = edges.entry((x, y)).or_default();
        *e = TileEdges { walls: e.walls | walls, drops: e.drops | drops };
    };
    for ((x0, y0, x1, y1), gate, gate_side) in PENS {
        // The gate's tile is always named, so that opening takes its wall off.
        add(gate.0, gate.1, Sides::NONE, Sides::NONE);
        for x in x0..=x1 {
            for (y, side) in [(y1, Sides::NORTH), (y0, Sides::SOUTH)] {
                if !(gates_open && (x, y) == gate && side == gate_side) {
                    add(x, y, side, Sides::NONE);
                }
            }
        }
        for y in y0..=y1 {
            for (x, side) in [(x0, Sides::WEST), (x1, Sides::EAST)] {
                if !(gates_open && (x, y) == gate && side == gate_side) {
                    add(x, y, side, Sides::NONE);
                }
            }
        }
    }
    let (row, xs) = LEDGE;
    for x in xs {
        add(x, row, Sides::NONE, Sides::SOUTH);
    }
    edges
}

/// Puts the farm's edges on its tiles (every tile named gets its sides anew).
fn lay_edges(commands: &mut Commands, storage: &TileStorage, gates_open: bool) {
    for ((x, y), edges) in tile_edges(gates_open) {
        if let Some(tile) = storage.checked_get(&TilePos { x, y }) {
            commands.entity(tile).insert(edges);
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn input(
    mut commands: Commands,
    mouse: Res<ButtonInput<MouseButton>>,
    keys: Res<ButtonInput<KeyCode>>,
    cursor: Res<CursorWorld>,
    maps: Res<NavMaps>,
    mut farm: ResMut<Farm>,
    mut settings: ResMut<NavSettings>,
    storages: Query<&TileStorage>,
    player: Single<Entity, With<Player>>,
    mut laid: Local<bool>,
) {
    let Ok(storage) = storages.get(farm.tilemap) else {
        return;
    };
    if !*laid {
        lay_edges(&mut commands, storage, farm.gates_open);
        *laid = true;
    }
    if keys.just_pressed(KeyCode::KeyD) {
        settings.debug = !settings.debug;
    }
    let on_gate = mouse.just_pressed(MouseButton::Right)
        && hovered_tile(&cursor, maps.first().map(|m| &m.geometry))
            .is_some_and(|cell| PENS.iter().any(|(_, gate, _)| (cell.x, cell.y) == *gate));
    if keys.just_pressed(KeyCode::KeyG) || on_gate {
        farm.gates_open = !farm.gates_open;
        farm.message = format!("Gates {}.", if farm.gates_open { "opened" } else { "shut" });
        lay_edges(&mut commands, storage, farm.gates_open);
    }
    if let (Some(world), true) = (cursor.0, mouse.just_pressed(MouseButton::Left)) {
        let options = SearchOptions { partial: true, ..SearchOptions::default() };
        commands.entity(*player).insert(PathRequest::to(world).with_options(options));
    }
}

/// The farmhand goes back and forth between the pen and the hilltop; when a shut gate cuts
/// it off it waits a second and asks again.
#[allow(clippy::type_complexity)]
fn farmhand(
    mut commands: Commands,
    time: Res<Time>,
    mut arrived: MessageReader<Arrived>,
    mut failed: MessageReader<PathFailed>,
    mut hands: Query<(Entity, &mut Farmhand, Has<NavPath>, Has<PathRequest>)>,
) {
    let arrivals: Vec<Entity> = arrived.read().map(|a| a.entity).collect();
    let failures: Vec<Entity> = failed.read().map(|f| f.entity).collect();
    for (entity, mut hand, walking, asking) in &mut hands {
        if arrivals.contains(&entity) {
            hand.next = (hand.next + 1) % HAND_STOPS.len();
        }
        if failures.contains(&entity) {
            hand.wait = 1.0;
        }
        hand.wait -= time.delta_secs();
        if !walking && !asking && hand.wait <= 0.0 {
            let (x, y) = HAND_STOPS[hand.next];
            commands.entity(entity).insert(PathRequest::to(GridPos::new(x, y)));
        }
    }
}

/// Fences as brown rails, gates' gaps as they are, the ledge as a grey lip with ticks pointing
/// down the drop: drawn from the navigation grid's own edges.
fn draw_edges(maps: Res<NavMaps>, mut gizmos: Gizmos) {
    let Some(map) = maps.first() else {
        return;
    };
    for (from, to, edge) in map.grid.edges() {
        let (a, b) = (map.geometry.cell_to_world(from), map.geometry.cell_to_world(to));
        let (middle, across) = ((a + b) / 2.0, (b - a).perp() / 2.0);
        if edge == Edge::Wall {
            let rail = Color::srgb(0.45, 0.28, 0.12);
            for offset in [-2.0, 2.0] {
                let shift = (b - a).normalize() * offset;
                gizmos.line_2d(middle - across + shift, middle + across + shift, rail);
            }
        } else {
            // The drop is from `from` down to `to`.
            let lip = Color::srgb(0.75, 0.75, 0.7);
            gizmos.line_2d(middle - across, middle + across, lip);
            gizmos.line_2d(middle, middle + (b - a) * 0.25, lip);
        }
    }
}

fn status(
    farm: Res<Farm>,
    player: Single<Option<&NavPath>, With<Player>>,
    mut text: Single<&mut Text, With<StatusText>>,
) {
    let path = match *player {
        Some(path) if path.complete => {
            format!("Path: {} cells, cost {:.1}.", path.cells.len(), path.cost)
        }
        Some(path) => {
            format!("Can't get there: walking as near as it gets ({}).", path.cells.len())
        }
        None => String::new(),
    };
    text.0 = format!(
        "Left click: walk there   G or right click on a gate: open / shut   D: debug\nFences (brown) block both ways; the ledge (grey) is dropped down, never climbed.\n{} {path}",
        farm.message
    );
}
