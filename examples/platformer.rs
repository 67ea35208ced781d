//! A side-view level: click where to go, and two characters find their way there by running,
//! jumping gaps, climbing ladders, jumping up through and dropping down through one-way
//! platforms. The **hopper** jumps 3 tiles; the **walker** jumps 1, so it takes the ladders
//! (and the long way round) where the hopper jumps. The lines show each one's plan: runs and
//! climbs white, jumps yellow, falls and drops blue, arcs as they will be flown.
//!
//! ```text
//! cargo run --example platformer
//! ```
//!
//! Left click: send both there (to the ground under the click). G: close or open the gate on
//! the floor's way east (whoever's plan crosses it plans again).

mod common;

use bevy::prelude::*;
use bevy_tilemap_nav::grid::GridPos;
use bevy_tilemap_nav::plugin::{SideViewAgent, SideViewLevel, SideViewRoute};
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::side_view::{JumpProfile, LegKind, SideTile, SideViewError, SideViewMap};
use common::*;

/// The level, top row first: `#` ground, `H` ladder, `-` one-way platform, `.` air.
const LEVEL: [&str; 15] = [
    "............................................",
    "............................................",
    "..................................-----.....",
    "............................................",
    "............................................",
    "..............................##########H###",
    "........................................H...",
    "......................------............H...",
    "..######H...............................H...",
    "........H...............................H...",
    "........H......------H..................H...",
    "........H..H##.......H..................H...",
    "........H..H##.......H..................H...",
    "########################...#################",
    "############################################",
];

/// The gate: three tiles of the floor's way east that G closes and opens.
const GATE: [(u32, u32); 3] = [(33, 2), (33, 3), (33, 4)];

const TILE: f32 = 20.0;

fn main() {
    let mut app = game_app("bevy_tilemap_nav: platformer");
    app.insert_resource(NavSettings { debug: true, ..default() })
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                (level_clicks, track_cursor, clicks, gate).chain().before(NavSet::Pathfind),
                (show_status, redraw_tiles).after(NavSet::Move),
            ),
        )
        .run();
}

#[derive(Component)]
struct Character {
    name: &'static str,
    about: &'static str,
}

#[derive(Component)]
struct StatusText;

/// A tile's sprite, redrawn when the tile changes.
#[derive(Component)]
struct TileSprite(GridPos);

fn setup(mut commands: Commands) {
    spawn_camera(&mut commands);
    let map = SideViewMap::from_rows(&LEVEL).expect("the level is well formed");
    let (width, height) = (map.width(), map.height());
    // Centred on the origin, like the other examples' tilemaps.
    let origin =
        Vec2::new(-(width as f32 - 1.0) * TILE / 2.0, -(height as f32 - 1.0) * TILE / 2.0 - 30.0);
    let level = commands
        .spawn((
            SideViewLevel::new(map, Vec2::splat(TILE)),
            Transform::from_translation(origin.extend(0.0)),
        ))
        .id();
    for y in 0..height {
        for x in 0..width {
            let at = origin + Vec2::new(x as f32, y as f32) * TILE;
            commands.spawn((
                TileSprite(GridPos::new(x, y)),
                Sprite::default(),
                Transform::from_translation(at.extend(0.0)),
            ));
        }
    }
    let characters = [
        (
            "Hopper",
            "jumps 3 tiles",
            JumpProfile::new(7.0, 3.0, 45.0).with_body(1, 2),
            (1, 2),
            [0.95, 0.55, 0.2],
        ),
        (
            "Walker",
            "jumps 1 tile",
            JumpProfile::new(6.0, 1.0, 45.0).with_body(1, 2).with_steps(true),
            (4, 2),
            [0.35, 0.6, 1.0],
        ),
    ];
    for (name, about, profile, (x, y), [r, g, b]) in characters {
        let centre = origin + Vec2::new(x as f32, y as f32 + 0.5) * TILE;
        commands.spawn((
            Character { name, about },
            SideViewAgent { profile, level: Some(level) },
            Figure::new(Color::srgb(r, g, b), TILE * 1.9),
            Transform::from_translation(centre.extend(2.0)),
        ));
    }
    commands.spawn((help_text(16.0), StatusText));
}

/// The tiles' sprites: ground, ladders, platforms, air.
fn redraw_tiles(
    levels: Query<&SideViewLevel, Changed<SideViewLevel>>,
    mut tiles: Query<(&TileSprite, &mut Sprite)>,
) {
    let Ok(level) = levels.single() else {
        return;
    };
    for (tile, mut sprite) in &mut tiles {
        let (color, size) = match level.map().tile(tile.0) {
            SideTile::Solid if GATE.contains(&(tile.0.x, tile.0.y)) => {
                (Color::srgb(0.6, 0.25, 0.25), Vec2::splat(TILE))
            }
            SideTile::Solid => (Color::srgb(0.42, 0.33, 0.24), Vec2::splat(TILE)),
            SideTile::Ladder => (Color::srgb(0.85, 0.7, 0.3), Vec2::new(TILE * 0.5, TILE)),
            SideTile::OneWay => (Color::srgb(0.55, 0.75, 0.45), Vec2::new(TILE, TILE * 0.25)),
            SideTile::Empty => (Color::srgba(0.0, 0.0, 0.0, 0.0), Vec2::splat(TILE)),
        };
        sprite.color = color;
        sprite.custom_size = Some(size);
    }
}

/// A left click sends both characters to the ground under it.
fn clicks(
    mut commands: Commands,
    buttons: Res<ButtonInput<MouseButton>>,
    cursor: Res<CursorWorld>,
    characters: Query<Entity, With<Character>>,
) {
    let Some(at) = cursor.0.filter(|_| buttons.just_pressed(MouseButton::Left)) else {
        return;
    };
    for entity in &characters {
        commands.entity(entity).insert(PathRequest::to(PathGoal::World(at)));
    }
}

/// G closes the gate, or opens it.
fn gate(keys: Res<ButtonInput<KeyCode>>, mut levels: Query<&mut SideViewLevel>) {
    if !keys.just_pressed(KeyCode::KeyG) {
        return;
    }
    let Ok(mut level) = levels.single_mut() else {
        return;
    };
    let open = level.map().tile(GridPos::new(GATE[0].0, GATE[0].1)) == SideTile::Empty;
    for (x, y) in GATE {
        let tile = if open { SideTile::Solid } else { SideTile::Empty };
        // The gate's tiles are on the map.
        let _ = level.set(GridPos::new(x, y), tile);
    }
}

/// CI hook: `"left X Y"` clicks the centre of tile (X, Y) of the level, as a person would (a
/// real `CursorMoved` and mouse button press); `"key K"` as in the other examples.
fn level_clicks(
    mut custom: MessageReader<ScriptInput>,
    window: Single<Entity, With<bevy::window::PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform)>,
    levels: Query<(&SideViewLevel, &Transform)>,
    mut moved: MessageWriter<CursorMoved>,
    mut buttons: MessageWriter<bevy::input::mouse::MouseButtonInput>,
    mut keys: MessageWriter<bevy::input::keyboard::KeyboardInput>,
) {
    let Ok((level, transform)) = levels.single() else {
        return;
    };
    for ScriptInput(text) in custom.read() {
        let words: Vec<&str> = text.split_whitespace().collect();
        match words.as_slice() {
            ["left", x, y] => {
                let (Ok(x), Ok(y)) = (x.parse::<f32>(), y.parse::<f32>()) else {
                    continue;
                };
                let world =
                    level.corner_to_world(transform.translation.truncate(), [x, y], UVec2::ONE);
                click_at(world, MouseButton::Left, *window, *camera, &mut moved, &mut buttons);
            }
            ["key", key] => match key_code(key) {
                Some(code) => {
                    let states =
                        [bevy::input::ButtonState::Pressed, bevy::input::ButtonState::Released];
                    press_key(code, key, &states, *window, &mut keys);
                }
                None => warn!("unknown key in CI event `{text}`"),
            },
            _ => warn!("unknown CI event `{text}`"),
        }
    }
}

/// What each character is doing, and what went wrong.
fn show_status(
    characters: Query<(&Character, Option<&SideViewRoute>, Option<&PathFailed>)>,
    mut text: Single<&mut Text, With<StatusText>>,
) {
    let mut lines = vec!["Left click: send both there.  G: close or open the gate.".to_string()];
    for (character, route, failed) in &characters {
        let doing = match (route.and_then(|r| r.leg_now()), failed) {
            (Some((leg, _)), _) => {
                let what = match leg.kind {
                    LegKind::Walk => "running",
                    LegKind::Step => "stepping",
                    LegKind::Climb => "climbing",
                    LegKind::Jump => "jumping",
                    LegKind::Fall => "falling",
                    LegKind::Drop => "dropping through",
                };
                let left = route.map_or(0.0, |r| r.path.duration - r.clock);
                format!("{what}, {left:.1} s to go")
            }
            (None, Some(failed)) => match &failed.error {
                NavError::SideView(SideViewError::Unreachable { .. }) => {
                    "no way there for this jumper".to_string()
                }
                other => format!("can't: {other}"),
            },
            (None, None) => "standing".to_string(),
        };
        lines.push(format!("{} ({}): {doing}", character.name, character.about));
    }
    text.0 = lines.join("\n");
}
