//! A big map: `64room_000` from the MovingAI benchmarks (512 x 512 cells: 64 rooms joined by
//! doorways) as a bevy_ecs_tilemap tilemap of 262,144 tiles, with 48 characters crossing it,
//! each off to a new random spot whenever it arrives (and one of them changes its mind every
//! quarter of a second). The panel shows what each search cost:
//! the last one's time and cells expanded, and the mean and slowest of the last 200.
//!
//! ```text
//! cargo run --release --example big_map
//! ```
//!
//! Wheel: zoom (the map starts zoomed out to fit the window); arrows or middle drag: pan.
//! Left click: the nearest character goes there. Right click: build or remove a wall.
//! P: precompute every path on the map ([`PrecomputePaths`]: built off the main thread, then
//! each request is a table lookup; a wall change falls back to search until it is rebuilt).

mod common;

use std::collections::VecDeque;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_tilemap_nav::io::movingai::parse_map;
use bevy_tilemap_nav::plugin::NavDiagnostics;
use bevy_tilemap_nav::prelude::*;
use common::*;

/// The map, compiled in: the example runs from any directory.
const MAP: &str = include_str!("../assets/maps/64room_000.map");
const AGENTS: usize = 48;
/// Pixels a cell: the whole map is 4,096 pixels a side.
const CELL: f32 = 8.0;
/// How many of the latest searches the panel's mean and maximum cover.
const WINDOW: usize = 200;

fn main() {
    game_app("bevy_tilemap_nav: big map (MovingAI 64room_000, 512 x 512)")
        // This map's own rules: walls block, every other tile is ground (a step costs 1).
        .insert_resource(TileRules::default().with(WALL, Cell::Blocked))
        .init_resource::<Searches>()
        .init_resource::<Random>()
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                (ci_clicks, track_cursor, input, new_goals, change_minds)
                    .chain()
                    .before(NavSet::Pathfind),
                (record, draw_paths, show_panel).chain().after(NavSet::Move),
            ),
        )
        .run();
}

#[derive(Component)]
struct Panel;

#[derive(Component)]
struct Crosser;

/// The latest searches: microseconds and cells expanded, newest last; and how many requests
/// the precomputed table answered.
#[derive(Resource, Default)]
struct Searches {
    latest: VecDeque<(f32, u32)>,
    total: u64,
    from_table: u64,
}

/// A small deterministic generator, so that every run (and CI's screenshots) is the same.
#[derive(Resource)]
struct Random(u64);

impl Default for Random {
    fn default() -> Self {
        Random(0x9E37_79B9_7F4A_7C15)
    }
}

impl Random {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// The open cells, to pick goals from.
#[derive(Resource)]
struct OpenCells(Vec<GridPos>);

impl OpenCells {
    fn pick(&self, random: &mut Random) -> GridPos {
        self.0[random.below(self.0.len())]
    }
}

fn setup(mut commands: Commands, mut images: ResMut<Assets<Image>>, mut random: ResMut<Random>) {
    // The MovingAI file read by the crate's own parser; the tilemap is drawn from it, and the
    // plugin reads the tilemap back like any other (NavTilemap).
    let grid = match parse_map(MAP) {
        Ok(grid) => grid,
        Err(error) => {
            error!("64room_000.map: {error}");
            return;
        }
    };
    // The tilemap drawn from the parsed grid: MovingAI's row 0 is the top, as `spawn_map`'s.
    let (width, height) = (grid.width(), grid.height());
    let rows: Vec<String> = (0..height)
        .map(|y| {
            let open = |x| grid.is_passable(GridPos::new(x, y));
            (0..width).map(|x| if open(x) { '.' } else { '#' }).collect()
        })
        .collect();
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let tile_size = TilemapTileSize { x: CELL, y: CELL };
    let look = MapLook {
        map_type: TilemapType::Square,
        grid_size: tile_size.into(),
        tile_size,
        texture: images.add(big_map_tileset()),
    };
    spawn_map(&mut commands, &rows, texture_for, &look);
    let size = TilemapSize { x: width, y: height };
    // The open cells in the tilemap's coordinates (its row 0 at the bottom).
    let open = OpenCells(
        grid.positions()
            .filter(|&p| grid.is_passable(p))
            .map(|p| GridPos::new(p.x, height - 1 - p.y))
            .collect(),
    );
    for k in 0..AGENTS {
        let at = open.pick(&mut random);
        let centre = square_cell_centre(at.x, at.y, size, CELL);
        let hue = (k as f32 * 137.5) % 360.0;
        commands.spawn((
            Crosser,
            Figure::new(Color::hsl(hue, 0.8, 0.6), CELL * 3.0),
            Transform::from_translation(centre.extend(4.0)),
            PathFollower::new(CELL * (10.0 + (k % 4) as f32 * 2.0)),
            PathRequest::to(open.pick(&mut random)),
        ));
    }
    commands.insert_resource(open);
    // Zoomed out to show the whole map below the panel.
    commands.spawn((
        Camera2d,
        Projection::Orthographic(OrthographicProjection {
            scale: 7.4,
            ..OrthographicProjection::default_2d()
        }),
        Transform::from_xyz(0.0, 300.0, 0.0),
    ));
    commands.spawn((Panel, help_text(14.0)));
}

/// Two 8 x 8 tiles: stone floor and dark wall.
fn big_map_tileset() -> Image {
    tileset(CELL as u32, CELL as u32, 2, |tile, x, y| {
        let n = i32::from(noise(x, y, tile)) / 20 - 6;
        Some(match tile {
            FLOOR => shade([120, 128, 116], n - if x == 0 || y == 0 { 10 } else { 0 }),
            _ => shade([52, 46, 64], n),
        })
    })
}

/// Left click: the nearest character heads there. Right click: a wall goes up or comes down.
/// P: precomputed paths on or off.
#[allow(clippy::too_many_arguments)]
fn input(
    mut commands: Commands,
    mouse: Res<ButtonInput<MouseButton>>,
    keys: Res<ButtonInput<KeyCode>>,
    cursor: Res<CursorWorld>,
    maps: Res<NavMaps>,
    crossers: Query<(Entity, &Transform), With<Crosser>>,
    storage: Query<(Entity, &TileStorage, Has<PrecomputePaths>), With<NavTilemap>>,
    mut textures: Query<&mut TileTextureIndex>,
) {
    let Ok((map, storage, precomputed)) = storage.single() else {
        return;
    };
    if keys.just_pressed(KeyCode::KeyP) {
        if precomputed {
            commands.entity(map).remove::<PrecomputePaths>();
        } else {
            commands.entity(map).insert(PrecomputePaths);
        }
    }
    let Some(world) = cursor.0 else {
        return;
    };
    if mouse.just_pressed(MouseButton::Right)
        && let Some(cell) = hovered_tile(&cursor, maps.first().map(|m| &m.geometry))
    {
        toggle_tile(&mut textures, storage, cell);
    }
    if mouse.just_pressed(MouseButton::Left) {
        let distance = |t: &Transform| t.translation.truncate().distance_squared(world);
        let nearest = crossers.iter().min_by(|a, b| distance(a.1).total_cmp(&distance(b.1)));
        if let Some((entity, _)) = nearest {
            commands.entity(entity).insert(PathRequest::to(world));
        }
    }
}

/// Arrived, or given up on: off to somewhere new.
fn new_goals(
    mut commands: Commands,
    mut random: ResMut<Random>,
    open: Option<Res<OpenCells>>,
    mut arrived: MessageReader<Arrived>,
    mut failed: MessageReader<PathFailed>,
    crossers: Query<(), With<Crosser>>,
) {
    let Some(open) = open else {
        return;
    };
    let done = arrived.read().map(|a| a.entity).chain(failed.read().map(|f| f.entity));
    for entity in done.collect::<Vec<_>>() {
        if crossers.contains(entity) {
            commands.entity(entity).insert(PathRequest::to(open.pick(&mut random)));
        }
    }
}

/// Every quarter of a second one character, in turn, heads somewhere else: searches keep coming
/// while the others are still on their long walks.
fn change_minds(
    mut commands: Commands,
    time: Res<Time>,
    mut random: ResMut<Random>,
    open: Option<Res<OpenCells>>,
    crossers: Query<Entity, With<Crosser>>,
    mut clock: Local<f32>,
    mut turn: Local<usize>,
) {
    let Some(open) = open else {
        return;
    };
    *clock += time.delta_secs();
    if *clock < 0.25 {
        return;
    }
    *clock = 0.0;
    let count = crossers.iter().count();
    if let Some(entity) = crossers.iter().nth(*turn % count.max(1)) {
        commands.entity(entity).insert(PathRequest::to(open.pick(&mut random)));
    }
    *turn += 1;
}

/// Keeps the latest searches' times (a re-plan is a search too).
fn record(
    answered: Query<&NavPath, (With<Crosser>, Changed<NavPath>)>,
    diagnostics: Res<NavDiagnostics>,
    mut searches: ResMut<Searches>,
) {
    for path in &answered {
        searches.latest.push_back((path.micros, path.expanded));
        if searches.latest.len() > WINDOW {
            searches.latest.pop_front();
        }
        searches.total += 1;
    }
    searches.from_table += u64::from(diagnostics.table_answers);
}

fn show_panel(
    searches: Res<Searches>,
    maps: Res<NavMaps>,
    precomputed: Query<(), (With<NavTilemap>, With<PrecomputePaths>)>,
    mut text: Single<&mut Text, With<Panel>>,
) {
    let table = match maps.first() {
        _ if precomputed.is_empty() => "off (P: on)".to_string(),
        Some(map) if map.path_table().is_some_and(|t| t.is_current(&map.grid)) => {
            format!("ready, {} requests answered from it (P: off)", searches.from_table)
        }
        _ => "building... (P: off)".to_string(),
    };
    let last = match searches.latest.back() {
        Some((micros, expanded)) => format!("{micros:.0} us, {expanded} cells expanded"),
        None => "none yet".to_string(),
    };
    let count = searches.latest.len().max(1) as f32;
    let mean = searches.latest.iter().map(|s| s.0).sum::<f32>() / count;
    let slowest = searches.latest.iter().map(|s| s.0).fold(0.0, f32::max);
    text.0 = format!(
        "64room_000 (MovingAI, 512 x 512), {AGENTS} characters. \
         Left click: the nearest one goes there. Right click: wall.\n\
         Last search: {last}. Last {}: mean {mean:.0} us, slowest {slowest:.0} us. \
         Searches so far: {}\nPrecomputed paths: {table}",
        searches.latest.len(),
        searches.total,
    );
}
