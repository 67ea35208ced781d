//! A world drawn in LDtk, loaded by bevy_ecs_ldtk, navigable with no wiring: each level is a
//! navigation map of its own, and its "Walls" IntGrid (value 1) blocks. Click to walk; N goes to
//! the next level (bevy_ecs_ldtk despawns the old level and spawns the new one, and the
//! navigation follows).
//!
//! ```text
//! cargo run --example ldtk_world --features ldtk
//! ```

mod common;

use bevy::prelude::*;
use bevy_ecs_ldtk::prelude::*;
use bevy_tilemap_nav::integrations::ldtk::{LdtkNavPlugin, LdtkNavRules};
use bevy_tilemap_nav::prelude::*;
use common::{CursorWorld, Player, ci_clicks, draw_paths, explain, help_text, track_cursor};

const LEVELS: usize = 4;

fn main() {
    common::game_app("bevy_tilemap_nav: an LDtk world")
        .add_plugins(LdtkPlugin)
        .add_plugins(LdtkNavPlugin)
        .insert_resource(LdtkNavRules::default().with(1, Cell::Blocked))
        .insert_resource(LevelSelection::index(0))
        .init_resource::<Status>()
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                (ci_clicks, track_cursor, input).chain().before(NavSet::Pathfind),
                (follow_level, report, draw_paths, show_status).chain().after(NavSet::Move),
            ),
        )
        .run();
}

#[derive(Resource, Default)]
struct Status {
    level: usize,
    last: String,
}

#[derive(Component)]
struct StatusText;

fn setup(mut commands: Commands, assets: Res<AssetServer>) {
    commands.spawn((
        Camera2d,
        Projection::Orthographic(OrthographicProjection {
            scale: 0.4,
            ..OrthographicProjection::default_2d()
        }),
    ));
    commands.spawn(LdtkWorldBundle {
        ldtk_handle: assets.load("ldtk/tile-based-game.ldtk").into(),
        ..default()
    });
    commands.spawn((StatusText, help_text(15.0)));
}

fn input(
    mut commands: Commands,
    mouse: Res<ButtonInput<MouseButton>>,
    keys: Res<ButtonInput<KeyCode>>,
    cursor: Res<CursorWorld>,
    player: Query<Entity, With<Player>>,
    mut selection: ResMut<LevelSelection>,
    mut status: ResMut<Status>,
) {
    if keys.just_pressed(KeyCode::KeyN) {
        status.level = (status.level + 1) % LEVELS;
        *selection = LevelSelection::index(status.level);
        status.last = format!("Level {} selected.", status.level);
        for entity in &player {
            commands.entity(entity).despawn();
        }
    }
    if let (Some(world), Ok(player), true) =
        (cursor.0, player.single(), mouse.just_pressed(MouseButton::Left))
    {
        let options = SearchOptions { partial: true, ..SearchOptions::default() };
        commands.entity(player).insert(PathRequest::to(world).with_options(options));
    }
}

/// The camera on the level that navigates now, and the character on it.
fn follow_level(
    mut commands: Commands,
    maps: Res<NavMaps>,
    player: Query<(), With<Player>>,
    mut camera: Single<&mut Transform, With<Camera2d>>,
) {
    let Some(map) = maps.first() else {
        return;
    };
    let (w, h) = (map.grid.width(), map.grid.height());
    let middle = (map.geometry.cell_to_world(GridPos::new(0, 0))
        + map.geometry.cell_to_world(GridPos::new(w - 1, h - 1)))
        / 2.0;
    camera.translation = (middle + Vec2::new(0.0, 16.0)).extend(camera.translation.z);
    if !player.is_empty() {
        return;
    }
    let centre = GridPos::new(w / 2, h / 2);
    let distance = |p: GridPos| p.x.abs_diff(centre.x) + p.y.abs_diff(centre.y);
    let open = map.grid.positions().filter(|&p| map.grid.is_passable(p));
    let Some(cell) = open.min_by_key(|&p| distance(p)) else {
        return;
    };
    commands.spawn((
        Player,
        Sprite::from_color(Color::srgb(0.25, 0.85, 1.0), Vec2::splat(10.0)),
        Transform::from_translation(map.geometry.cell_to_world(cell).extend(50.0)),
        PathFollower::new(80.0),
    ));
}

fn report(
    mut failures: MessageReader<PathFailed>,
    answered: Query<&Path, (With<Player>, Changed<Path>)>,
    mut status: ResMut<Status>,
) {
    for failure in failures.read() {
        status.last = explain(&failure.error);
    }
    for path in &answered {
        let reach = if path.complete { "" } else { " (as near as it gets)" };
        status.last = format!("Path{reach}: {} cells, cost {:.1}", path.cells.len(), path.cost);
    }
}

fn show_status(
    status: Res<Status>,
    maps: Res<NavMaps>,
    mut text: Single<&mut Text, With<StatusText>>,
) {
    let size = maps.first().map_or(String::new(), |m| {
        format!(
            " ({} x {} cells, {} open)",
            m.grid.width(),
            m.grid.height(),
            m.grid.passable_count()
        )
    });
    text.0 = format!(
        "An LDtk world: level {} of {LEVELS}{size}. Left click: walk there. N: next level.\n{}",
        status.level + 1,
        status.last
    );
}
