//! A strategy-game order: select units with a box, right click, and they go there as a group,
//! each to its own cell of a formation round the point (`GroupOrder`), marching in formation at
//! the slowest one's pace, filing over the river's narrow bridge and forming again beyond it
//! (`GroupOrder::marching`). Soldiers walk slowly, scouts run; M lets them go loose, each at
//! its own speed by its own way.
//!
//! ```text
//! cargo run --example rts
//! ```
//!
//! Left drag: select the units inside the box (a click: one unit, or none). Right click: send
//! the selection there. F: the next formation (box, line, packed). M: march in formation or
//! go loose. A: select every unit.

mod common;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_tilemap_nav::path::Formation;
use bevy_tilemap_nav::plugin::{GroupOrder, GroupOrderFailed};
use bevy_tilemap_nav::prelude::*;
use common::*;

const GRASS: u32 = 0;
const WATER: u32 = 1;
const BRIDGE: u32 = 2;

/// The map, top row first: `.` grass, `~` water, `=` the bridge (two tiles wide).
const MAP: [&str; 18] = [
    "..............................",
    "..............................",
    "..............................",
    "..............................",
    "..............................",
    "..............................",
    "~~~~~~~~~~~~~~==~~~~~~~~~~~~~~",
    "~~~~~~~~~~~~~~==~~~~~~~~~~~~~~",
    "~~~~~~~~~~~~~~==~~~~~~~~~~~~~~",
    "..............................",
    "..............................",
    "..............................",
    "..............................",
    "..............................",
    "..............................",
    "..............................",
    "..............................",
    "..............................",
];

/// How many formations F goes through.
const FORMATIONS: usize = 3;

/// The `i`-th formation F goes through, and its name.
fn formation(i: usize) -> (&'static str, Formation) {
    match i % FORMATIONS {
        0 => ("box", Formation::Box),
        1 => ("line", Formation::Line { facing: (0, 1) }),
        _ => ("packed", Formation::Packed),
    }
}

fn main() {
    game_app("bevy_tilemap_nav: rts")
        .insert_resource(TileRules::default().with(WATER, Cell::Blocked))
        .init_resource::<Orders>()
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                (ci_clicks, track_cursor, select, order).chain().before(NavSet::Pathfind),
                (draw_selection, show_status).chain().after(NavSet::Move),
            ),
        )
        .run();
}

/// A unit the player commands.
#[derive(Component)]
struct Unit;

/// A unit in the selection.
#[derive(Component)]
struct Selected;

#[derive(Resource, Default)]
struct Orders {
    /// Where a left drag began (world).
    drag_from: Option<Vec2>,
    formation: usize,
    /// Orders go loose (each member its own way) rather than marching.
    loose: bool,
    message: String,
}

#[derive(Component)]
struct StatusText;

fn setup(mut commands: Commands, mut images: ResMut<Assets<Image>>) {
    spawn_camera(&mut commands);
    let tile = TilemapTileSize { x: TILE, y: TILE };
    let look = MapLook {
        map_type: TilemapType::Square,
        grid_size: tile.into(),
        tile_size: tile,
        texture: images.add(tileset(TILE as u32, TILE as u32, 3, terrain_pixel)),
    };
    let texture = |c| match c {
        '~' => WATER,
        '=' => BRIDGE,
        _ => GRASS,
    };
    spawn_map(&mut commands, &MAP, texture, &look);
    let size = TilemapSize { x: MAP[0].len() as u32, y: MAP.len() as u32 };
    // Eight soldiers (slow, blue) and four scouts (fast, yellow) south of the river.
    for i in 0..12u32 {
        let (x, y) = (3 + (i % 6) * 2, 2 + (i / 6) * 2);
        let scout = i % 3 == 2;
        let (color, speed) = if scout {
            (Color::srgb(0.95, 0.85, 0.3), TILE * 6.0)
        } else {
            (Color::srgb(0.3, 0.55, 1.0), TILE * 3.0)
        };
        let at = square_cell_centre(x, y, size, TILE);
        commands.spawn((
            Unit,
            Figure::new(color, TILE * 0.9),
            Transform::from_translation(at.extend(5.0)),
            PathFollower::new(speed),
            Avoidance::new(TILE * 0.4),
        ));
    }
    commands.spawn((StatusText, help_text(15.0)));
}

/// Left drag: the units inside the box are the selection; A: all of them.
fn select(
    mut commands: Commands,
    mouse: Res<ButtonInput<MouseButton>>,
    keys: Res<ButtonInput<KeyCode>>,
    cursor: Res<CursorWorld>,
    mut orders: ResMut<Orders>,
    units: Query<(Entity, &Transform), With<Unit>>,
) {
    if keys.just_pressed(KeyCode::KeyA) {
        for (unit, _) in &units {
            commands.entity(unit).insert(Selected);
        }
    }
    let Some(at) = cursor.0 else { return };
    if mouse.just_pressed(MouseButton::Left) {
        orders.drag_from = Some(at);
    }
    if !mouse.just_released(MouseButton::Left) {
        return;
    }
    let Some(from) = orders.drag_from.take() else { return };
    // A click (no drag) picks the unit under it: a box of a unit's size round the point.
    let grow = if from.distance(at) < 4.0 { Vec2::splat(TILE * 0.5) } else { Vec2::ZERO };
    let (low, high) = (from.min(at) - grow, from.max(at) + grow);
    for (unit, place) in &units {
        let p = place.translation.truncate();
        let inside = p.cmpge(low).all() && p.cmple(high).all();
        if inside {
            commands.entity(unit).insert(Selected);
        } else {
            commands.entity(unit).remove::<Selected>();
        }
    }
}

/// Right click: the selection goes there as a group. F: the next formation.
fn order(
    mut commands: Commands,
    mouse: Res<ButtonInput<MouseButton>>,
    keys: Res<ButtonInput<KeyCode>>,
    cursor: Res<CursorWorld>,
    mut orders: ResMut<Orders>,
    selected: Query<Entity, With<Selected>>,
    failed: Query<(Entity, &GroupOrderFailed)>,
) {
    if keys.just_pressed(KeyCode::KeyF) {
        orders.formation = (orders.formation + 1) % FORMATIONS;
    }
    if keys.just_pressed(KeyCode::KeyM) {
        orders.loose = !orders.loose;
    }
    for (entity, why) in &failed {
        orders.message = format!("Order not given: {why:?}");
        commands.entity(entity).despawn();
    }
    let Some(goal) = cursor.0.filter(|_| mouse.just_pressed(MouseButton::Right)) else {
        return;
    };
    let members: Vec<Entity> = selected.iter().collect();
    if members.is_empty() {
        orders.message = "Nothing selected: drag a box round some units first.".into();
        return;
    }
    let (name, shape) = formation(orders.formation);
    let how = if orders.loose { "loose" } else { "marching" };
    orders.message = format!("{} units sent in a {name}, {how}.", members.len());
    // Two cells apart: room for their bodies to steer round each other as they settle.
    let order = GroupOrder { spacing: 2, ..GroupOrder::new(members, goal, shape) };
    commands.spawn(if orders.loose { order } else { order.marching() });
}

/// The selection box while dragging, and a ring under each selected unit.
fn draw_selection(
    mut gizmos: Gizmos,
    orders: Res<Orders>,
    cursor: Res<CursorWorld>,
    selected: Query<&Transform, With<Selected>>,
) {
    let green = Color::srgb(0.4, 1.0, 0.5);
    if let (Some(from), Some(at)) = (orders.drag_from, cursor.0) {
        gizmos.rect_2d((from + at) / 2.0, (at - from).abs(), green);
    }
    for place in &selected {
        let at = place.translation.truncate() - Vec2::new(0.0, TILE * 0.35);
        gizmos.ellipse_2d(at, Vec2::new(TILE * 0.45, TILE * 0.2), green);
    }
}

fn show_status(
    orders: Res<Orders>,
    selected: Query<(), With<Selected>>,
    mut text: Single<&mut Text, With<StatusText>>,
) {
    let (name, _) = formation(orders.formation);
    let how = if orders.loose { "loose" } else { "marching" };
    text.0 = format!(
        "Left drag: select   Right click: send them   A: all   F: formation ({name})   M: {how}\nBlue soldiers walk, yellow scouts run; {} selected. {}",
        selected.iter().count(),
        orders.message
    );
}

fn terrain_pixel(tile: u32, x: u32, y: u32) -> Option<[u8; 3]> {
    let n = i32::from(noise(x, y, tile)) / 16 - 8;
    Some(match tile {
        WATER => water_pixel(x, y, n),
        BRIDGE => {
            let rail = !(2..=29).contains(&x);
            let plank = y.is_multiple_of(8);
            if rail {
                [80, 50, 25]
            } else if plank {
                [60, 40, 20]
            } else {
                shade([150, 105, 60], n / 2)
            }
        }
        _ => grass_pixel(x, y, n),
    })
}
