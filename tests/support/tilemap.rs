//! Tilemaps drawn as text, for the plugin's tests: a real bevy_ecs_tilemap tilemap (TileStorage,
//! TilePos, TileTextureIndex) marked for navigation.

#![allow(dead_code)]

use std::time::Duration;

use bevy::ecs::message::MessageCursor;
use bevy::ecs::schedule::SingleThreadedExecutor;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_ecs_tilemap::prelude::*;
use bevy_tilemap_nav::plugin::WorkBudget;
use bevy_tilemap_nav::prelude::*;

/// The texture indices the plugin tests draw with: floor, wall (blocked) and mud (cost 5).
pub const FLOOR: u32 = 0;
pub const WALL: u32 = 1;
pub const MUD: u32 = 2;
/// Tiles' width in world units, and one frame.
pub const TILE: f32 = 16.0;
pub const DT: Duration = Duration::from_millis(16);

/// bevy_ecs_tilemap's six hex coordinate systems.
pub const HEX_SYSTEMS: [HexCoordSystem; 6] = [
    HexCoordSystem::Row,
    HexCoordSystem::Column,
    HexCoordSystem::RowEven,
    HexCoordSystem::RowOdd,
    HexCoordSystem::ColumnEven,
    HexCoordSystem::ColumnOdd,
];

/// The plugin tests' app: [`nav_app`] with frames of [`DT`], [`WALL`] a wall and [`MUD`]
/// costing 5.
pub fn app() -> App {
    let mut app = nav_app(DT, WALL);
    app.insert_resource(
        TileRules::default().with(WALL, Cell::Blocked).with(MUD, Cell::Passable { cost: 5 }),
    );
    app
}

/// A text row's character as a texture: `#` [`WALL`], `~` [`MUD`], `.` [`FLOOR`], else no tile.
pub fn texture(c: char) -> Option<u32> {
    match c {
        '#' => Some(WALL),
        '~' => Some(MUD),
        '.' => Some(FLOOR),
        _ => None,
    }
}

/// The world point of `cell`'s centre on the first map served.
pub fn centre(app: &App, cell: GridPos) -> Vec2 {
    app.world().resource::<NavMaps>().first().expect("a map").geometry.cell_to_world(cell)
}

/// The world point of `cell`'s centre on `map`.
pub fn centre_on(app: &App, map: Entity, cell: GridPos) -> Vec2 {
    app.world().resource::<NavMaps>().get(map).expect("a map").geometry.cell_to_world(cell)
}

/// The messages of type `M` sent in the last update.
pub fn messages<M: Message + Clone>(app: &App) -> Vec<M> {
    app.world().resource::<Messages<M>>().iter_current_update_messages().cloned().collect()
}

/// A headless app with the plugin, frames of `frame` each, the search budget in cells only (so
/// that frame counts do not depend on the machine's speed) and texture `wall` a wall. Its
/// schedules run on one thread: the tests run side by side, one per core, and Bevy's
/// multi-threaded executor, unoptimised in test builds, spent most of a frame handing systems
/// between threads (a test of 8,000 frames took 8.8 s, now 3.1 s).
pub fn nav_app(frame: Duration, wall: u32) -> App {
    let mut app = threaded_nav_app(frame, wall);
    for (_, schedule) in app.world_mut().resource_mut::<Schedules>().iter_mut() {
        schedule.set_executor(SingleThreadedExecutor::new());
    }
    app
}

/// [`nav_app`] with Bevy's multi-threaded executor, as a game runs: for the tests that check
/// that nothing depends on which thread runs a system first (determinism).
pub fn threaded_nav_app(frame: Duration, wall: u32) -> App {
    let mut app = App::new();
    let work = WorkBudget { time: None, ..default() };
    let settings = NavSettings { work, ..NavSettings::default() };
    app.add_plugins(MinimalPlugins)
        .add_plugins(TilemapNavPlugin::with_settings(settings))
        .insert_resource(TimeUpdateStrategy::ManualDuration(frame))
        .insert_resource(TileRules::default().with(wall, Cell::Blocked));
    app
}

/// Spawns a square tilemap from text rows (top row first), each character's texture index from
/// `texture` (`None`: no tile there), tiles `tile` units wide, the tilemap at `at`. Returns the
/// tilemap entity.
pub fn spawn_text_tilemap(
    app: &mut App,
    rows: &[&str],
    tile: f32,
    at: Vec2,
    texture: impl Fn(char) -> Option<u32>,
) -> Entity {
    let (width, height) = (rows[0].len() as u32, rows.len() as u32);
    let size = TilemapSize { x: width, y: height };
    let world = app.world_mut();
    let tilemap = world.spawn_empty().id();
    let mut storage = TileStorage::empty(size);
    for (row, line) in rows.iter().enumerate() {
        for (x, c) in line.chars().enumerate() {
            let Some(index) = texture(c) else {
                continue;
            };
            let pos = TilePos { x: x as u32, y: height - 1 - row as u32 };
            let t = world.spawn((pos, TilemapId(tilemap), TileTextureIndex(index))).id();
            storage.set(&pos, t);
        }
    }
    world.entity_mut(tilemap).insert((
        storage,
        size,
        TilemapGridSize { x: tile, y: tile },
        TilemapTileSize { x: tile, y: tile },
        TilemapType::Square,
        TilemapAnchor::None,
        Transform::from_translation(at.extend(0.0)),
        NavTilemap,
    ));
    tilemap
}

/// Spawns a `size` x `size` tilemap of any map type with these grid (and tile) sizes and this
/// transform, each tile's texture index from `texture(x, y)`. Returns the tilemap entity.
#[allow(dead_code)] // not every test that includes this file spawns maps of other types
pub fn spawn_typed_tilemap(
    app: &mut App,
    size: u32,
    map_type: TilemapType,
    grid_size: TilemapGridSize,
    transform: Transform,
    texture: impl Fn(u32, u32) -> u32,
) -> Entity {
    let size = TilemapSize { x: size, y: size };
    let world = app.world_mut();
    let tilemap = world.spawn_empty().id();
    let mut storage = TileStorage::empty(size);
    for y in 0..size.y {
        for x in 0..size.x {
            let pos = TilePos { x, y };
            let tile = world.spawn((pos, TilemapId(tilemap), TileTextureIndex(texture(x, y)))).id();
            storage.set(&pos, tile);
        }
    }
    world.entity_mut(tilemap).insert((
        storage,
        size,
        grid_size,
        TilemapTileSize { x: grid_size.x, y: grid_size.y },
        map_type,
        TilemapAnchor::None,
        transform,
        NavTilemap,
    ));
    tilemap
}

/// Where `entity` stands (its `Transform`'s x and y).
#[allow(dead_code)] // not every test that includes this file walks agents
pub fn position(app: &App, entity: Entity) -> Vec2 {
    app.world().get::<Transform>(entity).unwrap().translation.truncate()
}

/// Messages of type `M` sent since `cursor` last read.
#[allow(dead_code)] // not every test that includes this file reads messages so
pub fn read_new<M: Message + Clone>(app: &App, cursor: &mut MessageCursor<M>) -> Vec<M> {
    cursor.read(app.world().resource::<Messages<M>>()).cloned().collect()
}
