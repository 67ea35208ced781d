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
use common::{
    CursorWorld, PathStatus, PathStatusText, Player, ci_clicks, draw_paths, help_text,
    report_player_path, show_path_status, track_cursor,
};

const LEVELS: usize = 4;

fn main() {
    common::game_app("bevy_tilemap_nav: an LDtk world")
        .add_plugins(LdtkPlugin)
        .add_plugins(LdtkNavPlugin)
        .insert_resource(LdtkNavRules::default().with(1, Cell::Blocked))
        .insert_resource(LevelSelection::index(0))
        .insert_resource(PathStatus {
            help: "An LDtk world, a level at a time. Left click: walk there. N: next level.",
            describe: |path| format!("{} cells, cost {:.1}", path.cells.len(), path.cost),
            last: String::new(),
        })
        .init_resource::<Level>()
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                (ci_clicks, track_cursor, input).chain().before(NavSet::Pathfind),
                (follow_level, report_player_path, draw_paths, show_path_status)
                    .chain()
                    .after(NavSet::Move),
            ),
        )
        .run();
}

/// The level selected (0 to LEVELS - 1), and the map of the level being left (until
/// bevy_ecs_ldtk has despawned it).
#[derive(Resource, Default)]
struct Level {
    index: usize,
    leaving: Option<Entity>,
}

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
    commands.spawn((PathStatusText, help_text(15.0)));
}

fn input(
    mut commands: Commands,
    mouse: Res<ButtonInput<MouseButton>>,
    keys: Res<ButtonInput<KeyCode>>,
    cursor: Res<CursorWorld>,
    player: Query<Entity, With<Player>>,
    (mut selection, mut level, maps): (ResMut<LevelSelection>, ResMut<Level>, Res<NavMaps>),
) {
    if keys.just_pressed(KeyCode::KeyN) {
        level.index = (level.index + 1) % LEVELS;
        level.leaving = maps.first().map(|m| m.entity);
        *selection = LevelSelection::index(level.index);
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
    level: Res<Level>,
    mut status: ResMut<PathStatus>,
    mut home: ResMut<common::CameraHome>,
) {
    // The selected level's map (the one being left may still be there for a frame or two).
    let Some(map) = maps.iter().find(|m| Some(m.entity) != level.leaving) else {
        return;
    };
    let (w, h) = (map.grid.width(), map.grid.height());
    let middle = (map.geometry.cell_to_world(GridPos::new(0, 0))
        + map.geometry.cell_to_world(GridPos::new(w - 1, h - 1)))
        / 2.0;
    if !player.is_empty() {
        return;
    }
    // A new level: the camera on it (and Home to this view).
    camera.translation = (middle + Vec2::new(0.0, 16.0)).extend(camera.translation.z);
    home.0 = None;
    let centre = GridPos::new(w / 2, h / 2);
    let distance = |p: GridPos| p.x.abs_diff(centre.x) + p.y.abs_diff(centre.y);
    let open = map.grid.positions().filter(|&p| map.grid.is_passable(p));
    let Some(cell) = open.min_by_key(|&p| distance(p)) else {
        return;
    };
    status.last = format!(
        "Level {} of {LEVELS}: {w} x {h} cells, {} open.",
        level.index + 1,
        map.grid.passable_count()
    );
    commands.spawn((
        Player,
        common::Figure::new(Color::srgb(0.25, 0.85, 1.0), 14.0),
        Transform::from_translation(map.geometry.cell_to_world(cell).extend(50.0)),
        PathFollower::new(80.0),
    ));
}
