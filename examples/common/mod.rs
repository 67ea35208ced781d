//! What the playable examples share: a tileset drawn by code at start-up, a built-in level,
//! the camera, mouse input, and the CI hook that clicks in the window.

#![allow(dead_code)]

mod script;
pub use script::{ScriptInput, ScriptPlugin};

use bevy::asset::RenderAssetUsages;
use bevy::input::ButtonState;
use bevy::input::mouse::{AccumulatedMouseScroll, MouseButtonInput, MouseScrollUnit, MouseWheel};
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use bevy::window::{CursorMoved, PrimaryWindow};
use bevy_ecs_tilemap::prelude::*;
use bevy_tilemap_nav::plugin::NavGeometry;
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::PathError;

/// Side of a tile in pixels (and world units).
pub const TILE: f32 = 32.0;

pub const FLOOR: u32 = 0;
pub const WALL: u32 = 1;
pub const MUD: u32 = 2;
pub const DOOR_CLOSED: u32 = 3;
pub const DOOR_OPEN: u32 = 4;
pub const ROAD: u32 = 5;
const TILE_COUNT: u32 = 6;

/// Entering ordinary floor costs this much; a road costs 1, so characters follow roads when
/// the detour is short.
pub const FLOOR_COST: u32 = 2;
/// Entering mud costs this much (4x floor).
pub const MUD_COST: u32 = 8;

/// The level, top row first: `#` wall, `.` floor, `~` mud, `=` road, `D` closed door, `d` open
/// door.
pub const LEVEL: [&str; 18] = [
    "##############################",
    "#........#..........#........#",
    "#........#..........#...~~~..#",
    "#........d....~~~...#...~~~..#",
    "#........#....~~~...D........#",
    "#####d####....~~~...#........#",
    "#........#..........####d#####",
    "#........#..........#........#",
    "#...~~...#####d######........#",
    "#...~~...#..........#........#",
    "#........d==========d........#",
    "#........#..........#...~~...#",
    "#####.####..........#...~~...#",
    "#........#....##....#........#",
    "#........#....##....#####d####",
    "#...~~...d..........#........#",
    "#........#..........d........#",
    "##############################",
];

pub fn tile_rules() -> TileRules {
    let floor = Cell::Passable { cost: FLOOR_COST };
    TileRules { unlisted: floor, missing: floor, ..TileRules::default() }
        .with(FLOOR, floor)
        .with(ROAD, Cell::Passable { cost: 1 })
        .with(WALL, Cell::Blocked)
        .with(DOOR_CLOSED, Cell::Blocked)
        .with(MUD, Cell::Passable { cost: MUD_COST })
}

/// The tileset, drawn pixel by pixel: one 32 x 32 tile after another in a row.
pub fn tileset_image() -> Image {
    let size = TILE as u32;
    tileset(size, size, TILE_COUNT, |tile, x, y| Some(tile_pixel(tile, x, y, size)))
}

/// A tileset of `count` tiles of `width` x `height` pixels side by side, each pixel from
/// `pixel(tile, x, y)` (y down; `None` is transparent, for hexagons and diamonds).
pub fn tileset(
    width: u32,
    height: u32,
    count: u32,
    pixel: impl Fn(u32, u32, u32) -> Option<[u8; 3]>,
) -> Image {
    let row = width * count;
    let mut data = vec![0u8; (row * height * 4) as usize];
    for tile in 0..count {
        for y in 0..height {
            for x in 0..width {
                if let Some(rgb) = pixel(tile, x, y) {
                    let i = ((y * row + tile * width + x) * 4) as usize;
                    data[i..i + 4].copy_from_slice(&[rgb[0], rgb[1], rgb[2], 255]);
                }
            }
        }
    }
    Image::new(
        Extent3d { width: row, height, depth_or_array_layers: 1 },
        TextureDimension::D2,
        data,
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::default(),
    )
}

/// A little deterministic noise so that surfaces are not flat.
pub fn noise(x: u32, y: u32, salt: u32) -> u8 {
    let mut h = x.wrapping_mul(374_761_393)
        ^ y.wrapping_mul(668_265_263)
        ^ salt.wrapping_mul(2_246_822_519);
    h = (h ^ (h >> 13)).wrapping_mul(1_274_126_177);
    (h >> 24) as u8
}

pub fn shade(base: [u8; 3], amount: i32) -> [u8; 3] {
    base.map(|c| (i32::from(c) + amount).clamp(0, 255) as u8)
}

/// A pixel of open water (waves every few rows), `n` the tile's noise.
pub fn water_pixel(x: u32, y: u32, n: i32) -> [u8; 3] {
    let wave = (x + 2 * (y / 6)).is_multiple_of(11) && y % 6 == 2;
    if wave { [170, 210, 235] } else { shade([50, 100, 170], n / 2) }
}

/// A pixel of grass, `n` the tile's noise.
pub fn grass_pixel(x: u32, y: u32, n: i32) -> [u8; 3] {
    shade([96, 152, 66], n + if (x * y).is_multiple_of(23) { 12 } else { 0 })
}

fn tile_pixel(tile: u32, x: u32, y: u32, size: u32) -> [u8; 3] {
    let n = i32::from(noise(x, y, tile)) / 16 - 8;
    let edge = x == 0 || y == 0 || x == size - 1 || y == size - 1;
    match tile {
        FLOOR => shade([150, 140, 120], n + if edge { -18 } else { 0 }),
        WALL => {
            // Bricks: rows of 8 px, staggered.
            let row = y / 8;
            let offset = if row.is_multiple_of(2) { 0 } else { 8 };
            let mortar = y.is_multiple_of(8) || (x + offset).is_multiple_of(16);
            if mortar { [40, 36, 44] } else { shade([92, 84, 110], n) }
        }
        MUD => {
            let puddle = (x as i32 - 16).pow(2) / 3 + (y as i32 - 16).pow(2) < 60;
            if puddle { shade([70, 52, 30], n / 2) } else { shade([110, 82, 48], n) }
        }
        DOOR_CLOSED | DOOR_OPEN => {
            let frame = x < 3 || x >= size - 3 || y < 3;
            if frame {
                [70, 45, 25]
            } else if tile == DOOR_OPEN {
                shade([150, 140, 120], n)
            } else {
                let plank = x.is_multiple_of(7);
                if plank { [95, 60, 30] } else { shade([150, 100, 50], n / 2) }
            }
        }
        _ => shade([185, 170, 120], n / 2 + if edge { -10 } else { 0 }),
    }
}

/// Texture index for a level character.
pub fn texture_for(c: char) -> u32 {
    match c {
        '#' => WALL,
        '~' => MUD,
        'D' => DOOR_CLOSED,
        'd' => DOOR_OPEN,
        '=' => ROAD,
        _ => FLOOR,
    }
}

/// Spawns the level as a bevy_ecs_tilemap tilemap, marked for navigation, centred on the
/// origin. Row 0 of `rows` is the top of the screen.
pub fn spawn_level(commands: &mut Commands, images: &mut Assets<Image>, rows: &[&str]) -> Entity {
    let tile_size = TilemapTileSize { x: TILE, y: TILE };
    let look = MapLook {
        map_type: TilemapType::Square,
        grid_size: tile_size.into(),
        tile_size,
        texture: images.add(tileset_image()),
    };
    spawn_map(commands, rows, texture_for, &look)
}

/// The app both examples start from: Bevy with a window sized for the level (plus room for the
/// help text), bevy_ecs_tilemap, the navigation plugin and the level's tile rules.
pub fn game_app(title: &str) -> App {
    let window = WindowPlugin {
        primary_window: Some(Window {
            title: title.to_string(),
            resolution: (960, 680).into(),
            resizable: false,
            ..Default::default()
        }),
        ..Default::default()
    };
    let mut app = App::new();
    app.add_plugins(DefaultPlugins.set(window).set(ImagePlugin::default_nearest()))
        .add_plugins(TilemapPlugin)
        .add_plugins(TilemapNavPlugin::default())
        .add_plugins(GameLookPlugin)
        .add_plugins(ScriptPlugin)
        .insert_resource(tile_rules())
        .insert_resource(ClearColor(Color::srgb(0.08, 0.07, 0.1)))
        .init_resource::<CursorWorld>();
    app
}

/// The camera, shifted so that the level sits below the help text.
pub fn spawn_camera(commands: &mut Commands) {
    commands.spawn((Camera2d, Transform::from_xyz(0.0, 44.0, 0.0)));
}

/// The text block at the top of the window (controls and status); fill it in a system.
pub fn help_text(size: f32) -> impl Bundle {
    (
        Text::new(""),
        TextFont { font_size: FontSize::Px(size), ..Default::default() },
        TextColor(Color::srgb(0.95, 0.93, 0.85)),
        Node {
            position_type: PositionType::Absolute,
            top: px(8),
            left: px(12),
            ..Default::default()
        },
    )
}

/// Where the mouse points, in world space, kept from the window's `CursorMoved` messages.
#[derive(Resource, Default)]
pub struct CursorWorld(pub Option<Vec2>);

pub fn track_cursor(
    mut moved: MessageReader<CursorMoved>,
    camera: Single<(&Camera, &GlobalTransform)>,
    mut cursor: ResMut<CursorWorld>,
    mut at: Local<Option<Vec2>>,
) {
    let (camera, camera_transform) = *camera;
    if let Some(message) = moved.read().last() {
        *at = Some(message.position);
    }
    // Every frame: the camera may have panned or zoomed under a still mouse.
    cursor.0 = at.and_then(|p| camera.viewport_to_world_2d(camera_transform, p).ok());
}

/// The tile under the mouse, if any.
pub fn hovered_tile(cursor: &CursorWorld, geometry: Option<&NavGeometry>) -> Option<GridPos> {
    geometry?.world_to_cell(cursor.0?).ok()
}

/// CI hook: a script's `Custom` events (`script.rs`) `"left X Y"` and `"right X Y"` (cell
/// coordinates, on the oldest map; `"left X Y M"` on the map M-th oldest, from 0) become real
/// window input: the same `CursorMoved` and `MouseButtonInput` messages the window backend sends
/// when a person clicks there. `"key K"` presses and releases a key the same way, `"press K"` and
/// `"release K"` hold one in between; `"down X Y"` and `"up X Y"` press and release the left
/// button at a cell (a drag, over frames); `"wheel N"` turns the mouse wheel N lines,
/// `"point X Y"` moves the mouse to a window position.
#[allow(clippy::too_many_arguments)]
pub fn ci_clicks(
    mut custom: MessageReader<ScriptInput>,
    window: Single<Entity, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform)>,
    maps: Res<NavMaps>,
    mut moved: MessageWriter<CursorMoved>,
    mut buttons: MessageWriter<MouseButtonInput>,
    mut keys: MessageWriter<bevy::input::keyboard::KeyboardInput>,
    mut wheel: MessageWriter<MouseWheel>,
) {
    let (camera, camera_transform) = *camera;
    for ScriptInput(text) in custom.read() {
        let words: Vec<&str> = text.split_whitespace().collect();
        match words.as_slice() {
            [button @ ("left" | "right"), x, y, map @ ..] => {
                // An optional fourth word: the map, by its place among the maps (0: oldest).
                let Some(world) = cell_word_to_world(&maps, x, y, map.first().copied()) else {
                    warn!("bad CI click `{text}`");
                    continue;
                };
                let button = if *button == "left" { MouseButton::Left } else { MouseButton::Right };
                click_at(
                    world,
                    button,
                    *window,
                    (camera, camera_transform),
                    &mut moved,
                    &mut buttons,
                );
            }
            [edge @ ("down" | "up"), x, y] => {
                // The mouse to cell (x, y) of the oldest map, and the left button pressed
                // ("down") or released ("up") there: a drag is a "down" and a later "up".
                let Some(world) = cell_word_to_world(&maps, x, y, None) else {
                    warn!("bad CI drag `{text}`");
                    continue;
                };
                if point_at(world, *window, (camera, camera_transform), &mut moved) {
                    let state =
                        if *edge == "down" { ButtonState::Pressed } else { ButtonState::Released };
                    let button = MouseButton::Left;
                    buttons.write(MouseButtonInput { button, state, window: *window });
                }
            }
            [action @ ("key" | "press" | "release"), key] => {
                let Some(code) = key_code(key) else {
                    warn!("unknown key in CI event `{text}`");
                    continue;
                };
                // "key": pressed and released; "press" ... "release": held in between.
                let states: &[ButtonState] = match *action {
                    "key" => &[ButtonState::Pressed, ButtonState::Released],
                    "press" => &[ButtonState::Pressed],
                    _ => &[ButtonState::Released],
                };
                press_key(code, key, states, *window, &mut keys);
            }
            ["wheel", lines] => {
                let Ok(lines) = lines.parse() else {
                    warn!("bad CI wheel `{text}`");
                    continue;
                };
                wheel.write(MouseWheel {
                    unit: MouseScrollUnit::Line,
                    x: 0.0,
                    y: lines,
                    window: *window,
                    phase: bevy::input::touch::TouchPhase::Moved,
                });
            }
            ["point", x, y] => {
                // The mouse to a point of the window, in logical pixels from its top left.
                let (Ok(x), Ok(y)) = (x.parse(), y.parse()) else {
                    warn!("bad CI point `{text}`");
                    continue;
                };
                moved.write(CursorMoved {
                    window: *window,
                    position: Vec2::new(x, y),
                    delta: None,
                });
            }
            _ => warn!("unknown CI event `{text}`"),
        }
    }
}

/// The world point of the cell a CI event names (`x`, `y` words; `map`: the map by its place
/// among the maps, 0 the oldest, which it is without one).
fn cell_word_to_world(maps: &NavMaps, x: &str, y: &str, map: Option<&str>) -> Option<Vec2> {
    let map = map.map_or(Some(0), |m| m.parse::<usize>().ok())?;
    let geometry = &maps.iter().nth(map)?.geometry;
    Some(geometry.cell_to_world(GridPos::new(x.parse().ok()?, y.parse().ok()?)))
}

/// The mouse moved to a world point, as the window backend sends it. False (nothing sent)
/// when the point is off the camera's view.
fn point_at(
    world: Vec2,
    window: Entity,
    (camera, camera_transform): (&Camera, &GlobalTransform),
    moved: &mut MessageWriter<CursorMoved>,
) -> bool {
    let Ok(position) = camera.world_to_viewport(camera_transform, world.extend(0.0)) else {
        return false;
    };
    moved.write(CursorMoved { window, position, delta: None });
    true
}

/// A click at a world point, as the window backend sends one: the mouse moved there, then
/// `button` pressed and released. Nothing when the point is off the camera's view.
pub fn click_at(
    world: Vec2,
    button: MouseButton,
    window: Entity,
    view: (&Camera, &GlobalTransform),
    moved: &mut MessageWriter<CursorMoved>,
    buttons: &mut MessageWriter<MouseButtonInput>,
) {
    if point_at(world, window, view, moved) {
        for state in [ButtonState::Pressed, ButtonState::Released] {
            buttons.write(MouseButtonInput { button, state, window });
        }
    }
}

/// Key `code` (named `key`) going through `states`, as the window backend sends them.
pub fn press_key(
    code: KeyCode,
    key: &str,
    states: &[ButtonState],
    window: Entity,
    keys: &mut MessageWriter<bevy::input::keyboard::KeyboardInput>,
) {
    for &state in states {
        keys.write(bevy::input::keyboard::KeyboardInput {
            key_code: code,
            logical_key: bevy::input::keyboard::Key::Character(key.into()),
            state,
            text: None,
            repeat: false,
            window,
        });
    }
}

pub fn key_code(key: &str) -> Option<KeyCode> {
    Some(match key {
        "s" => KeyCode::KeyS,
        "d" => KeyCode::KeyD,
        "p" => KeyCode::KeyP,
        "r" => KeyCode::KeyR,
        "w" => KeyCode::KeyW,
        "n" => KeyCode::KeyN,
        "m" => KeyCode::KeyM,
        "e" => KeyCode::KeyE,
        "g" => KeyCode::KeyG,
        "f" => KeyCode::KeyF,
        "a" => KeyCode::KeyA,
        "l" => KeyCode::KeyL,
        "1" => KeyCode::Digit1,
        "2" => KeyCode::Digit2,
        "3" => KeyCode::Digit3,
        "4" => KeyCode::Digit4,
        "5" => KeyCode::Digit5,
        "left" => KeyCode::ArrowLeft,
        "right" => KeyCode::ArrowRight,
        "up" => KeyCode::ArrowUp,
        "down" => KeyCode::ArrowDown,
        "home" => KeyCode::Home,
        _ => return None,
    })
}

/// World position of the centre of cell (`x`, `y`) of a square tilemap of `size` cells,
/// `tile` world units a side, centred on the origin (as [`spawn_map`] lays maps out).
pub fn square_cell_centre(x: u32, y: u32, size: TilemapSize, tile: f32) -> Vec2 {
    let tile = TilemapTileSize { x: tile, y: tile };
    TilePos::new(x, y).center_in_world(
        &size,
        &tile.into(),
        &tile,
        &TilemapType::Square,
        &TilemapAnchor::Center,
    )
}

/// The character the mouse controls.
#[derive(Component)]
pub struct Player;

/// Spawns the player's character on a tile of [`LEVEL`].
pub fn spawn_player(commands: &mut Commands, x: u32, y: u32) -> Entity {
    let size = TilemapSize { x: LEVEL[0].len() as u32, y: LEVEL.len() as u32 };
    let at = square_cell_centre(x, y, size, TILE);
    commands
        .spawn((
            Player,
            Figure::new(Color::srgb(0.25, 0.85, 1.0), TILE * 0.95),
            Transform::from_translation(at.extend(5.0)),
            PathFollower::smoothed(TILE * 5.0),
        ))
        .id()
}

/// Left click: the player walks there (or, if it cannot get there, to the closest cell it can
/// reach). Right click: wall / door toggle on that tile.
/// Returns true when a left click sent the player somewhere.
pub fn player_clicks(
    mut commands: Commands,
    mouse: Res<ButtonInput<MouseButton>>,
    cursor: Res<CursorWorld>,
    maps: Res<NavMaps>,
    player: Single<Entity, With<Player>>,
    storage: Query<&TileStorage, With<NavTilemap>>,
    mut textures: Query<&mut TileTextureIndex>,
) -> bool {
    let Some(world) = cursor.0 else {
        return false;
    };
    if mouse.just_pressed(MouseButton::Right)
        && let Some(cell) = hovered_tile(&cursor, maps.first().map(|m| &m.geometry))
        && let Ok(storage) = storage.single()
    {
        toggle_tile(&mut textures, storage, cell);
    }
    if mouse.just_pressed(MouseButton::Left) {
        // Partial: an unreachable spot sends the player to the closest cell it can reach.
        let options = SearchOptions { partial: true, ..SearchOptions::default() };
        commands.entity(*player).insert(PathRequest::to(world).with_options(options));
        return true;
    }
    false
}

/// Right click: a floor tile becomes a wall and back; a door closes or opens.
pub fn toggle_tile(
    textures: &mut Query<&mut TileTextureIndex>,
    storage: &TileStorage,
    cell: GridPos,
) {
    let Some(entity) = storage.checked_get(&TilePos { x: cell.x, y: cell.y }) else {
        return;
    };
    let Ok(mut texture) = textures.get_mut(entity) else {
        return;
    };
    texture.0 = match texture.0 {
        WALL => FLOOR,
        DOOR_CLOSED => DOOR_OPEN,
        DOOR_OPEN => DOOR_CLOSED,
        _ => WALL,
    };
}

/// Draws what is left of each walking agent's path, and its goal.
pub fn draw_paths(
    mut gizmos: Gizmos,
    agents: Query<(&Transform, &NavPath, &PathFollower, Option<&Sprite>)>,
) {
    for (transform, path, follower, sprite) in &agents {
        let color = sprite.map_or(Color::WHITE, |s| s.color);
        let next = follower.next.min(path.points.len());
        let here = transform.translation.truncate();
        gizmos
            .linestrip_2d(std::iter::once(here).chain(path.points[next..].iter().copied()), color);
        // Walks after links (stairs): each drawn on its own map, a dashed hop between.
        let mut from = path.points.last().copied();
        for leg in &path.legs {
            if let (Some(a), Some(&b)) = (from, leg.points.first()) {
                dashed_line(&mut gizmos, a, b, color.with_alpha(0.5));
            }
            gizmos.linestrip_2d(leg.points.iter().copied(), color);
            from = leg.points.last().copied();
        }
        if let Some(&end) = path.legs.last().map_or(path.points.last(), |l| l.points.last()) {
            gizmos.circle_2d(Isometry2d::from_translation(end), TILE * 0.3, color);
        }
    }
}

/// A dashed line from `a` to `b`.
pub fn dashed_line(gizmos: &mut Gizmos, a: Vec2, b: Vec2, color: impl Into<Color>) {
    let color = color.into();
    let dashes = (a.distance(b) / 12.0).ceil().max(1.0) as usize;
    for k in (0..dashes).step_by(2) {
        let (t0, t1) = (k as f32 / dashes as f32, ((k + 1) as f32 / dashes as f32).min(1.0));
        gizmos.line_2d(a.lerp(b, t0), a.lerp(b, t1), color);
    }
}

/// Human words for a failed request.
pub fn explain(error: &NavError) -> String {
    match error {
        NavError::Search(PathError::GoalBlocked { goal }) => {
            format!("Can't go to {goal}: it's a wall.")
        }
        NavError::Search(PathError::Unreachable { goal, .. }) => {
            format!("Can't reach {goal}: no way through.")
        }
        NavError::Search(PathError::GoalOutOfBounds { .. }) | NavError::Goal(_) => {
            "That's off the map.".to_string()
        }
        other => format!("No path: {other}."),
    }
}

/// How a map of the hex and isometric examples is drawn: its type, grid and tile sizes (in
/// pixels), and its tileset.
pub struct MapLook {
    pub map_type: TilemapType,
    pub grid_size: TilemapGridSize,
    pub tile_size: TilemapTileSize,
    pub texture: Handle<Image>,
}

/// Spawns `rows` (row 0 at the top of the screen, each character a tile through `texture_for`)
/// as a tilemap drawn as `look` says, marked for navigation and centred on the origin.
pub fn spawn_map(
    commands: &mut Commands,
    rows: &[&str],
    texture_for: impl Fn(char) -> u32,
    look: &MapLook,
) -> Entity {
    let size = TilemapSize { x: rows[0].len() as u32, y: rows.len() as u32 };
    let tilemap = commands.spawn_empty().id();
    let mut storage = TileStorage::empty(size);
    for (row, line) in rows.iter().enumerate() {
        for (x, c) in line.chars().enumerate() {
            let position = TilePos { x: x as u32, y: size.y - 1 - row as u32 };
            let tile = commands
                .spawn(TileBundle {
                    position,
                    tilemap_id: TilemapId(tilemap),
                    texture_index: TileTextureIndex(texture_for(c)),
                    ..Default::default()
                })
                .id();
            storage.set(&position, tile);
        }
    }
    commands.entity(tilemap).insert((
        TilemapBundle {
            grid_size: look.grid_size,
            map_type: look.map_type,
            size,
            storage,
            texture: TilemapTexture::Single(look.texture.clone()),
            tile_size: look.tile_size,
            anchor: TilemapAnchor::Center,
            ..Default::default()
        },
        NavTilemap,
    ));
    tilemap
}

/// [`spawn_map`], and the player's character on tile (`x`, `y`). Returns the character.
pub fn spawn_map_and_player(
    commands: &mut Commands,
    rows: &[&str],
    texture_for: impl Fn(char) -> u32,
    look: MapLook,
    (x, y): (u32, u32),
    player: impl Bundle,
) -> Entity {
    spawn_map(commands, rows, texture_for, &look);
    let size = TilemapSize { x: rows[0].len() as u32, y: rows.len() as u32 };
    let MapLook { map_type, grid_size, tile_size, .. } = look;
    let anchor = TilemapAnchor::Center;
    let at = TilePos::new(x, y).center_in_world(&size, &grid_size, &tile_size, &map_type, &anchor);
    commands.spawn((Player, player, Transform::from_translation(at.extend(5.0)))).id()
}

/// What a right click does to a tile in [`move_and_toggle`]: texture `on` where it is not,
/// `off` where it is; tiles of the textures in `fixed` stay as they are.
#[derive(Resource)]
pub struct RightClickToggle {
    pub on: u32,
    pub off: u32,
    pub fixed: Vec<u32>,
}

/// Left click: the player goes there (or as near as it can get). Right click: the tile under
/// the mouse, on whichever map it is, toggles as [`RightClickToggle`] says.
#[allow(clippy::too_many_arguments)]
pub fn move_and_toggle(
    mut commands: Commands,
    mouse: Res<ButtonInput<MouseButton>>,
    cursor: Res<CursorWorld>,
    maps: Res<NavMaps>,
    toggle: Res<RightClickToggle>,
    player: Single<Entity, With<Player>>,
    storages: Query<&TileStorage, With<NavTilemap>>,
    mut textures: Query<&mut TileTextureIndex>,
) {
    let Some(world) = cursor.0 else {
        return;
    };
    if mouse.just_pressed(MouseButton::Right)
        && let Some(map) = maps.at_world(world)
        && let Some(tile) =
            map.geometry.world_to_cell(world).ok().and_then(|c| map.geometry.cell_to_tile(c))
        && let Ok(storage) = storages.get(map.layers[0])
        && let Some(entity) = storage.checked_get(&tile)
        && let Ok(mut texture) = textures.get_mut(entity)
        && !toggle.fixed.contains(&texture.0)
    {
        texture.0 = if texture.0 == toggle.on { toggle.off } else { toggle.on };
    }
    if mouse.just_pressed(MouseButton::Left) {
        let options = SearchOptions { partial: true, ..SearchOptions::default() };
        commands.entity(*player).insert(PathRequest::to(world).with_options(options));
    }
}

/// The two-line panel of the hex and isometric examples: the controls, then what the last
/// answer to the player's request was (`describe` words a path).
#[derive(Resource)]
pub struct PathStatus {
    pub help: &'static str,
    pub describe: fn(&NavPath) -> String,
    pub last: String,
}

/// The text node [`show_path_status`] fills.
#[derive(Component)]
pub struct PathStatusText;

/// Keeps [`PathStatus::last`] to the player's last answer: a path, or why there is none.
pub fn report_player_path(
    mut failures: MessageReader<PathFailed>,
    answered: Query<&NavPath, (With<Player>, Changed<NavPath>)>,
    mut status: ResMut<PathStatus>,
) {
    for failure in failures.read() {
        status.last = explain(&failure.error);
    }
    for path in &answered {
        let reach = if path.complete { "" } else { " (as near as it gets)" };
        status.last = format!("Path{reach}: {}", (status.describe)(path));
    }
}

pub fn show_path_status(
    status: Res<PathStatus>,
    mut text: Single<&mut Text, With<PathStatusText>>,
) {
    if status.is_changed() || text.0.is_empty() {
        text.0 = format!("{}\n{}", status.help, status.last);
    }
}

/// The systems the hex and isometric examples share: CI clicks and the mouse before
/// pathfinding ([`move_and_toggle`]), then the path drawn and the panel
/// ([`PathStatus`]) after movement.
pub struct ClickToMovePlugin;

impl Plugin for ClickToMovePlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(
            Update,
            (
                (ci_clicks, track_cursor, move_and_toggle).chain().before(NavSet::Pathfind),
                (report_player_path, draw_paths, show_path_status).chain().after(NavSet::Move),
            ),
        );
    }
}

/// What every example adds to its app: the camera controls ([`camera_controls`]) with their
/// hint in the bottom corner, and the characters' looks ([`Figure`]).
pub struct GameLookPlugin;

impl Plugin for GameLookPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<CameraHome>()
            .add_systems(PreStartup, make_figure_sheets)
            .add_systems(Startup, spawn_camera_hint)
            .add_systems(Update, (camera_controls.before(track_cursor), dress_figures, view_keys))
            .add_systems(PostUpdate, animate_figures);
    }
}

/// Digits 1 to 5 turn navigation's views on and off ([`NavSettings::views`]): 1 the terrain's
/// costs, 2 the fields' ways down, 3 the world graph, 4 avoidance bodies and velocities, 5 the
/// cells grid-locked agents hold.
fn view_keys(keys: Res<ButtonInput<KeyCode>>, mut settings: ResMut<NavSettings>) {
    const KEYS: [KeyCode; 5] =
        [KeyCode::Digit1, KeyCode::Digit2, KeyCode::Digit3, KeyCode::Digit4, KeyCode::Digit5];
    for (k, key) in KEYS.into_iter().enumerate() {
        if keys.just_pressed(key) {
            let views = &mut settings.views;
            let view = [
                &mut views.terrain,
                &mut views.fields,
                &mut views.world_graph,
                &mut views.bodies,
                &mut views.holds,
            ];
            if let Some(on) = view.into_iter().nth(k) {
                *on = !*on;
            }
        }
    }
}

/// Where Home takes the camera (and the zoom): the camera as [`camera_controls`] first finds
/// it; an example that places its camera itself sets this to `None` to take the new view.
#[derive(Resource, Default)]
pub struct CameraHome(pub Option<(Vec3, f32)>);

/// How far the camera zooms in and out, as multiples of its starting zoom (zooming in always
/// reaches at least a scale of 0.5, two screen pixels a world unit).
const ZOOM_RANGE: (f32, f32) = (0.2, 8.0);

fn spawn_camera_hint(mut commands: Commands) {
    commands.spawn((
        Text::new(
            "Wheel: zoom   Arrows or middle drag: pan   Home: reset view\n1 terrain  2 fields  \
             3 world graph  4 bodies  5 holds: navigation's views",
        ),
        TextFont { font_size: FontSize::Px(12.0), ..Default::default() },
        TextColor(Color::srgba(0.95, 0.93, 0.85, 0.7)),
        Node {
            position_type: PositionType::Absolute,
            bottom: px(6),
            right: px(10),
            ..Default::default()
        },
    ));
}

/// The camera a player moves: the mouse wheel zooms about the point under the mouse, the arrow
/// keys or a drag with the middle button pan, Home goes back to the starting view. The view's
/// centre stays over the maps.
#[allow(clippy::too_many_arguments)]
pub fn camera_controls(
    time: Res<Time>,
    keys: Res<ButtonInput<KeyCode>>,
    mouse: Res<ButtonInput<MouseButton>>,
    scroll: Res<AccumulatedMouseScroll>,
    mut moved: MessageReader<CursorMoved>,
    maps: Res<NavMaps>,
    camera: Single<(&Camera, &mut Transform, &mut Projection)>,
    mut cursor: Local<Option<Vec2>>,
    mut home: ResMut<CameraHome>,
) {
    let (camera, mut transform, mut projection) = camera.into_inner();
    // Read first, write only what changes: the camera is not marked changed every frame.
    let Projection::Orthographic(ortho) = projection.as_ref() else {
        return;
    };
    let scale = ortho.scale;
    if home.0.is_none() {
        home.0 = Some((transform.translation, scale));
    }
    let Some((start_at, start_scale)) = home.0 else {
        return;
    };
    let mut drag = Vec2::ZERO;
    for message in moved.read() {
        if let Some(before) = *cursor
            && mouse.pressed(MouseButton::Middle)
        {
            drag += message.position - before;
        }
        *cursor = Some(message.position);
    }
    let (mut centre, mut new_scale) = (transform.translation.truncate(), scale);
    if keys.just_pressed(KeyCode::Home) {
        (centre, new_scale) = (start_at.truncate(), start_scale);
    } else {
        // A drag moves the world with the mouse (screen y grows downwards).
        let mut pan = Vec2::new(-drag.x, drag.y) * scale;
        let arrows = [
            (KeyCode::ArrowLeft, Vec2::NEG_X),
            (KeyCode::ArrowRight, Vec2::X),
            (KeyCode::ArrowUp, Vec2::Y),
            (KeyCode::ArrowDown, Vec2::NEG_Y),
        ];
        for (key, direction) in arrows {
            if keys.pressed(key) {
                // Half a window a second, whatever the zoom.
                pan += direction * 400.0 * scale * time.delta_secs();
            }
        }
        let lines = match scroll.unit {
            MouseScrollUnit::Line => scroll.delta.y,
            MouseScrollUnit::Pixel => scroll.delta.y / 40.0,
        };
        if lines != 0.0 {
            let least = (start_scale * ZOOM_RANGE.0).min(0.5);
            let most = start_scale * ZOOM_RANGE.1;
            new_scale = (scale * 1.15f32.powf(-lines)).clamp(least, most);
            // The world point under the mouse stays under it.
            if let (Some(at), Some(size)) = (*cursor, camera.logical_viewport_size()) {
                let offset = Vec2::new(at.x - size.x / 2.0, size.y / 2.0 - at.y);
                pan += offset * (scale - new_scale);
            }
        }
        if pan != Vec2::ZERO {
            centre += pan;
            if let Some((low, high)) = maps_bounds(&maps) {
                centre = centre.clamp(low, high);
            }
        }
    }
    if new_scale != scale
        && let Projection::Orthographic(ortho) = projection.as_mut()
    {
        ortho.scale = new_scale;
    }
    if centre != transform.translation.truncate() {
        transform.translation = centre.extend(transform.translation.z);
    }
}

/// The corners of the box round every map's cells, in world space.
fn maps_bounds(maps: &NavMaps) -> Option<(Vec2, Vec2)> {
    let mut bounds: Option<(Vec2, Vec2)> = None;
    for map in maps.iter() {
        let (w, h) = (map.grid.width().max(1) - 1, map.grid.height().max(1) - 1);
        for corner in [(0, 0), (w, 0), (0, h), (w, h)] {
            let p = map.geometry.cell_to_world(GridPos::new(corner.0, corner.1));
            bounds = Some(bounds.map_or((p, p), |(low, high)| (low.min(p), high.max(p))));
        }
    }
    bounds
}

/// A character drawn as a little figure that faces the way it walks and swings its legs as it
/// goes; `color` is its clothes. Spawn it with a `Transform`; its sprites come next frame.
#[derive(Component, Clone, Copy)]
pub struct Figure {
    pub color: Color,
    /// Width and height in world units.
    pub size: Vec2,
}

impl Figure {
    /// A figure `height` world units tall, in clothes of `color`.
    pub fn new(color: Color, height: f32) -> Self {
        Figure { color, size: Vec2::new(height * FIGURE_W as f32 / FIGURE_H as f32, height) }
    }
}

/// Pixels of one frame of a figure.
const FIGURE_W: u32 = 16;
const FIGURE_H: u32 = 20;
/// Frames: facing down, up, sideways (right; left is mirrored), each standing and two steps.
const FACINGS: u32 = 3;
const STEPS: u32 = 3;

/// The two sprite sheets of a figure: its clothes (white, tinted by the figure's colour) and
/// the rest (skin, hair, trousers, outline), drawn over them.
#[derive(Resource)]
struct FigureSheets {
    clothes: Handle<Image>,
    body: Handle<Image>,
    layout: Handle<TextureAtlasLayout>,
}

/// The untinted upper sprite of a figure.
#[derive(Component)]
struct FigureBody;

/// How a figure walks: where it was last frame, how far it has walked, which way it faces.
#[derive(Component, Default)]
struct Stride {
    last: Option<Vec2>,
    walked: f32,
    facing: u32,
    left: bool,
}

fn make_figure_sheets(
    mut commands: Commands,
    mut images: ResMut<Assets<Image>>,
    mut layouts: ResMut<Assets<TextureAtlasLayout>>,
) {
    let count = FACINGS * STEPS;
    let frame = |clothes: bool| {
        tileset(FIGURE_W, FIGURE_H, count, move |f, x, y| {
            let (layer, rgb) = figure_pixel(f / STEPS, f % STEPS, x as i32, y as i32)?;
            (layer == clothes).then_some(rgb)
        })
    };
    let layout =
        TextureAtlasLayout::from_grid(UVec2::new(FIGURE_W, FIGURE_H), count, 1, None, None);
    commands.insert_resource(FigureSheets {
        clothes: images.add(frame(true)),
        body: images.add(frame(false)),
        layout: layouts.add(layout),
    });
}

/// One pixel of a figure (`x` right, `y` down) facing `facing` (0 down, 1 up, 2 right) at
/// walk step `step` (0 standing, 1 and 2 the two strides): whether it is clothes, and its
/// colour. The outline is a dark ring round everything else.
fn figure_pixel(facing: u32, step: u32, x: i32, y: i32) -> Option<(bool, [u8; 3])> {
    let inside = |x: i32, y: i32| figure_fill(facing, step, x, y).is_some();
    if let Some(fill) = figure_fill(facing, step, x, y) {
        return Some(fill);
    }
    let near = [(-1, 0), (1, 0), (0, -1), (0, 1)].iter().any(|&(dx, dy)| inside(x + dx, y + dy));
    near.then_some((false, [28, 22, 30]))
}

fn figure_fill(facing: u32, step: u32, x: i32, y: i32) -> Option<(bool, [u8; 3])> {
    const SKIN: [u8; 3] = [240, 200, 160];
    const HAIR: [u8; 3] = [90, 55, 30];
    const EYE: [u8; 3] = [30, 25, 40];
    const TROUSERS: [u8; 3] = [60, 62, 86];
    const SHOE: [u8; 3] = [45, 32, 28];
    if !(1..FIGURE_W as i32 - 1).contains(&x) || !(1..FIGURE_H as i32 - 1).contains(&y) {
        return None;
    }
    let (fx, fy) = (x as f32 + 0.5 - 8.0, y as f32 + 0.5 - 5.5);
    // Head.
    if fx * fx + fy * fy <= 14.0 {
        let hair = match facing {
            0 => fy < -0.8,
            1 => fy < 2.2,
            _ => fy < -0.8 || fx < -1.5,
        };
        let eye = match facing {
            0 => fy.abs() < 0.6 && (x == 6 || x == 9),
            2 => fy.abs() < 0.6 && x == 10,
            _ => false,
        };
        return Some((
            false,
            if eye {
                EYE
            } else if hair {
                HAIR
            } else {
                SKIN
            },
        ));
    }
    // Legs: two columns; a stride lifts one (seen from the front or back) or spreads them
    // (seen from the side).
    if (15..19).contains(&y) {
        let shoe = y == 18;
        let colour = if shoe { SHOE } else { TROUSERS };
        let leg = match facing {
            2 => {
                let spread = [0, 2, -2][step as usize];
                (6..8).contains(&(x + spread)) || (8..10).contains(&(x - spread))
            }
            _ => {
                let lifted = |left: bool| match (step, left) {
                    (1, true) | (2, false) => y > 17,
                    _ => false,
                };
                ((5..7).contains(&x) && !lifted(true)) || ((9..11).contains(&x) && !lifted(false))
            }
        };
        return leg.then_some((false, colour));
    }
    // Body and arms, in the clothes' colour (shaded below the belt); hands of skin.
    if (9..15).contains(&y) {
        let shade = if y >= 13 { 205 } else { 245 };
        if (5..11).contains(&x) {
            return Some((true, [shade; 3]));
        }
        let swing = [0, 1, -1][step as usize];
        let arm = match facing {
            2 => false,
            _ => x == 4 || x == 11,
        };
        let arm_end = 13 + if x == 4 { swing } else { -swing };
        if arm && y <= arm_end {
            return Some(if y == arm_end { (false, SKIN) } else { (true, [225; 3]) });
        }
    }
    None
}

/// Gives each new [`Figure`] its two sprites.
fn dress_figures(
    mut commands: Commands,
    added: Query<(Entity, &Figure), Added<Figure>>,
    sheets: Option<Res<FigureSheets>>,
) {
    let Some(sheets) = sheets else {
        return;
    };
    for (entity, figure) in &added {
        let sprite = |image: &Handle<Image>, color: Color| Sprite {
            image: image.clone(),
            texture_atlas: Some(TextureAtlas { layout: sheets.layout.clone(), index: 0 }),
            color,
            custom_size: Some(figure.size),
            ..Default::default()
        };
        commands.entity(entity).insert((sprite(&sheets.clothes, figure.color), Stride::default()));
        let body = commands
            .spawn((
                FigureBody,
                sprite(&sheets.body, Color::WHITE),
                Transform::from_xyz(0.0, 0.0, 0.01),
            ))
            .id();
        commands.entity(entity).add_child(body);
    }
}

/// Faces each figure the way it moved this frame and steps its legs with the distance walked.
fn animate_figures(
    mut figures: Query<(&Transform, &Figure, &mut Stride, &mut Sprite, &Children)>,
    mut bodies: Query<&mut Sprite, (With<FigureBody>, Without<Stride>)>,
) {
    for (transform, figure, mut stride, sprite, children) in &mut figures {
        let here = transform.translation.truncate();
        let moved = stride.last.map_or(Vec2::ZERO, |last| here - last);
        stride.last = Some(here);
        let walking = moved.length() > 1e-3;
        if walking {
            stride.walked += moved.length();
            if moved.x.abs() > moved.y.abs() {
                stride.facing = 2;
                stride.left = moved.x < 0.0;
            } else {
                stride.facing = if moved.y > 0.0 { 1 } else { 0 };
            }
        }
        // A stride every 40 % of the figure's height.
        let step = if walking {
            [1, 0, 2, 0][(stride.walked / (figure.size.y * 0.4)) as usize % 4]
        } else {
            0
        };
        let index = (stride.facing * STEPS + step) as usize;
        let flip = stride.facing == 2 && stride.left;
        set_frame(sprite, index, flip);
        for child in children.iter() {
            if let Ok(body) = bodies.get_mut(child) {
                set_frame(body, index, flip);
            }
        }
    }
}

/// Shows frame `index` (mirrored if `flip`), touching the sprite only when that changes it.
fn set_frame(mut sprite: Mut<Sprite>, index: usize, flip: bool) {
    let frame = sprite.texture_atlas.as_ref().map(|atlas| atlas.index);
    if frame.is_some_and(|frame| frame != index) || sprite.flip_x != flip {
        let sprite = sprite.as_mut();
        if let Some(atlas) = sprite.texture_atlas.as_mut() {
            atlas.index = index;
        }
        sprite.flip_x = flip;
    }
}
