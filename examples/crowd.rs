//! A crowd: 300 characters criss-cross a town of rooms and streets, each off to a new random
//! spot whenever it arrives, steering round each other (`Avoidance`) in the streets and
//! through the houses' doorways. Drop walls in their way and watch the ones whose routes you
//! cut plan again while the rest walk on. The panel shows what the plugin did this frame.
//!
//! ```text
//! cargo run --example crowd
//! ```
//!
//! Left or right click: build or remove a wall.

mod common;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_tilemap_nav::plugin::{NavDiagnostics, Replanning};
use bevy_tilemap_nav::prelude::*;
use common::*;

const AGENTS: usize = 300;
const WIDTH: usize = 58;
const HEIGHT: usize = 34;

fn main() {
    game_app("bevy_tilemap_nav: crowd")
        .init_resource::<Town>()
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                (ci_clicks, track_cursor, drop_walls, new_goals).chain().before(NavSet::Pathfind),
                show_panel.after(NavSet::Move),
            ),
        )
        .run();
}

/// The town's open cells, to send characters to.
#[derive(Resource, Default)]
struct Town {
    open: Vec<GridPos>,
    seed: u64,
}

impl Town {
    fn random_cell(&mut self) -> GridPos {
        // SplitMix64, seeded: the same crowd every run.
        self.seed = self.seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        self.open[((z ^ (z >> 31)) % self.open.len() as u64) as usize]
    }
}

#[derive(Component)]
struct Walker;

#[derive(Component)]
struct Panel;

/// Blocks of houses (walls with a door each side) between streets, a plaza in the middle.
fn town_rows() -> Vec<String> {
    let mut rows = vec![vec!['.'; WIDTH]; HEIGHT];
    for (y, row) in rows.iter_mut().enumerate() {
        for (x, c) in row.iter_mut().enumerate() {
            if x == 0 || y == 0 || x == WIDTH - 1 || y == HEIGHT - 1 {
                *c = '#';
            }
        }
    }
    // Houses: 8 x 6 with a street of 3 between them; a door in the middle of each side.
    for by in 0..4 {
        for bx in 0..5 {
            let (x0, y0) = (3 + bx * 11, 2 + by * 8);
            if (1..=3).contains(&bx) && (1..=2).contains(&by) {
                continue; // the plaza
            }
            for (y, row) in rows.iter_mut().enumerate().skip(y0).take(6) {
                for (x, c) in row.iter_mut().enumerate().skip(x0).take(8) {
                    if y == y0 || y == y0 + 5 || x == x0 || x == x0 + 7 {
                        *c = '#';
                    }
                }
            }
            rows[y0][x0 + 3] = '.';
            rows[y0 + 5][x0 + 4] = '.';
            rows[y0 + 2][x0] = '.';
            rows[y0 + 3][x0 + 7] = '.';
        }
    }
    // A fountain in the plaza, and mud in one street.
    for row in rows.iter_mut().take(18).skip(16) {
        for c in row.iter_mut().take(30).skip(27) {
            *c = '#';
        }
    }
    for row in rows.iter_mut().take(11).skip(8) {
        for c in row.iter_mut().take(3).skip(1) {
            *c = '~';
        }
    }
    rows.into_iter().map(|r| r.into_iter().collect()).collect()
}

fn setup(mut commands: Commands, mut images: ResMut<Assets<Image>>, mut town: ResMut<Town>) {
    // The town is larger than the window at full size: zoom out.
    commands.spawn((
        Camera2d,
        Projection::Orthographic(OrthographicProjection {
            scale: 2.0,
            ..OrthographicProjection::default_2d()
        }),
        Transform::from_xyz(0.0, 80.0, 0.0),
    ));
    let rows = town_rows();
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    spawn_level(&mut commands, &mut images, &rows);
    town.seed = 7;
    let size = TilemapSize { x: WIDTH as u32, y: HEIGHT as u32 };
    for (row, line) in rows.iter().enumerate() {
        for (x, c) in line.chars().enumerate() {
            if c != '#' {
                town.open.push(GridPos::new(x as u32, size.y - 1 - row as u32));
            }
        }
    }
    for k in 0..AGENTS {
        let at = town.random_cell();
        let centre = square_cell_centre(at.x, at.y, size, TILE);
        let hue = (k as f32 * 137.5) % 360.0;
        commands.spawn((
            Walker,
            Figure::new(Color::hsl(hue, 0.75, 0.6), TILE * 0.65),
            Transform::from_translation(centre.extend(4.0)),
            PathFollower::new(TILE * (2.5 + (k % 5) as f32 * 0.4)),
            PathRequest::to(town.random_cell()),
            // Bodies as wide as drawn: they squeeze past each other in the houses' doorways.
            Avoidance::new(TILE * 0.25),
        ));
    }
    commands.spawn((Panel, help_text(14.0)));
}

/// A click toggles a wall on the tile under the mouse.
fn drop_walls(
    mouse: Res<ButtonInput<MouseButton>>,
    cursor: Res<CursorWorld>,
    maps: Res<NavMaps>,
    storage: Query<&TileStorage, With<NavTilemap>>,
    mut textures: Query<&mut TileTextureIndex>,
) {
    if (mouse.just_pressed(MouseButton::Left) || mouse.just_pressed(MouseButton::Right))
        && let Some(cell) = hovered_tile(&cursor, maps.first().map(|m| &m.geometry))
        && let Ok(storage) = storage.single()
    {
        toggle_tile(&mut textures, storage, cell);
    }
}

/// Arrived, or given up on: off to somewhere new.
fn new_goals(
    mut commands: Commands,
    mut town: ResMut<Town>,
    mut arrived: MessageReader<Arrived>,
    mut failed: MessageReader<PathFailed>,
    walkers: Query<(), With<Walker>>,
) {
    let done = arrived.read().map(|a| a.entity).chain(failed.read().map(|f| f.entity));
    for entity in done.collect::<Vec<_>>() {
        if walkers.contains(entity) {
            commands.entity(entity).insert(PathRequest::to(town.random_cell()));
        }
    }
}

#[allow(clippy::type_complexity)]
fn show_panel(
    diagnostics: Res<NavDiagnostics>,
    walking: Query<(), (With<Walker>, With<NavPath>, Without<Replanning>)>,
    mut text: Single<&mut Text, With<Panel>>,
    mut replans: Local<u32>,
) {
    *replans += diagnostics.replans;
    text.0 = format!(
        "Click: build or remove a wall. {AGENTS} characters, {} walking.\n\
         This frame: {} searches ({} cells expanded), {} paths checked after wall changes. \
         Re-plans so far: {}",
        walking.iter().count(),
        diagnostics.searches_finished,
        diagnostics.expansions,
        diagnostics.paths_checked,
        *replans,
    );
}
