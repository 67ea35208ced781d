//! A level drawn in the Tiled editor, loaded by bevy_ecs_tiled, navigable with no wiring: the
//! tileset's tiles say which block (`nav_blocked`) and what they cost (`nav_cost`), an object
//! layer's shapes block the cells under them, and the character walks where you click.
//!
//! ```text
//! cargo run --example tiled_map --features tiled
//! TILED_MAP=hex cargo run --example tiled_map --features tiled   # or iso, or physics
//! ```
//!
//! Left click: walk there (or as near as it gets). D: show the navigation grid.

mod common;

use bevy::prelude::*;
use bevy_ecs_tiled::prelude::*;
use bevy_tilemap_nav::integrations::tiled::{TiledNavPlugin, TiledNavRules};
use bevy_tilemap_nav::prelude::*;
use common::{
    CursorWorld, Figure, PathStatus, PathStatusText, Player, ci_clicks, draw_paths, help_text,
    report_player_path, show_path_status, track_cursor,
};

/// The map to load, its zoom, and the speed of the character (world units per second).
fn level() -> (&'static str, f32, f32) {
    match std::env::var("TILED_MAP").as_deref() {
        Ok("hex") => ("tiled/maps/hexagonal/finite_pointy_top_odd.tmx", 0.5, 60.0),
        Ok("iso") => ("tiled/maps/isometric/finite_diamond.tmx", 3.6, 500.0),
        // bevy_ecs_tiled's sample as it ships: walls drawn only as collision shapes.
        Ok("physics") => ("tiled/maps/orthogonal/physics.tmx", 0.6, 150.0),
        _ => ("tiled/maps/orthogonal/finite.tmx", 0.6, 150.0),
    }
}

fn main() {
    common::game_app("bevy_tilemap_nav: a Tiled map")
        .add_plugins(TiledPlugin(TiledPluginConfig { tiled_types_export_file: None, ..default() }))
        .add_plugins(TiledNavPlugin)
        // The hex tileset gives its costs in a `Biome` class's `move_cost`.
        .insert_resource(TiledNavRules {
            cost: vec!["nav_cost".into(), "move_cost".into()],
            ..default()
        })
        .insert_resource(PathStatus {
            help: "A level made in Tiled (TILED_MAP=hex, iso, physics). Left click: walk there. D: the grid.",
            describe: |path| format!("{} cells, cost {:.1}", path.cells.len(), path.cost),
            last: String::new(),
        })
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                (ci_clicks, track_cursor, clicks).chain().before(NavSet::Pathfind),
                (spawn_player, report_player_path, draw_paths, show_path_status)
                    .chain()
                    .after(NavSet::Move),
            ),
        )
        .run();
}

fn setup(mut commands: Commands, assets: Res<AssetServer>) {
    let (path, zoom, _) = level();
    commands.spawn((
        Camera2d,
        Projection::Orthographic(OrthographicProjection {
            scale: zoom,
            ..OrthographicProjection::default_2d()
        }),
        Transform::from_xyz(0.0, 0.0, 0.0),
    ));
    commands.spawn((TiledMap(assets.load(path)), TilemapAnchor::Center));
    commands.spawn((PathStatusText, help_text(15.0)));
}

/// Once the level navigates: the character, on the open cell nearest the middle.
fn spawn_player(
    mut commands: Commands,
    maps: Res<NavMaps>,
    player: Query<(), With<Player>>,
    mut status: ResMut<PathStatus>,
) {
    let Some(map) = maps.first().filter(|_| player.is_empty()) else {
        return;
    };
    let middle = GridPos::new(map.grid.width() / 2, map.grid.height() / 2);
    let distance = |p: GridPos| p.x.abs_diff(middle.x) + p.y.abs_diff(middle.y);
    let Some(cell) =
        map.grid.positions().filter(|&p| map.grid.is_passable(p)).min_by_key(|&p| distance(p))
    else {
        return;
    };
    let at = map.geometry.cell_to_world(cell);
    let size = map.geometry.tile_size.x.min(map.geometry.tile_size.y) * 0.8;
    commands.spawn((
        Player,
        Figure::new(Color::srgb(0.25, 0.85, 1.0), size),
        Transform::from_translation(at.extend(50.0)),
        PathFollower::new(level().2),
    ));
    status.last = format!(
        "{} x {} cells from the Tiled files: {} open.",
        map.grid.width(),
        map.grid.height(),
        map.grid.passable_count()
    );
}

fn clicks(
    mut commands: Commands,
    mouse: Res<ButtonInput<MouseButton>>,
    keys: Res<ButtonInput<KeyCode>>,
    cursor: Res<CursorWorld>,
    player: Query<Entity, With<Player>>,
    mut settings: ResMut<NavSettings>,
) {
    if keys.just_pressed(KeyCode::KeyD) {
        settings.debug = !settings.debug;
    }
    if let (Some(world), Ok(player), true) =
        (cursor.0, player.single(), mouse.just_pressed(MouseButton::Left))
    {
        let options = SearchOptions { partial: true, ..SearchOptions::default() };
        commands.entity(player).insert(PathRequest::to(world).with_options(options));
    }
}
