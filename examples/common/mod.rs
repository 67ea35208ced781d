//! What the playable examples share: a tileset drawn by code at start-up, a built-in level,
//! the camera, mouse input, and the CI hook that clicks in the window.

#![allow(dead_code)]

use bevy::asset::RenderAssetUsages;
use bevy::dev_tools::ci_testing::CiTestingCustomEvent;
use bevy::input::ButtonState;
use bevy::input::mouse::MouseButtonInput;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use bevy::window::{CursorMoved, PrimaryWindow};
use bevy_ecs_tilemap::prelude::*;
use bevy_tilemap_nav::prelude::*;

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
) {
    let (camera, camera_transform) = *camera;
    for message in moved.read() {
        cursor.0 = camera.viewport_to_world_2d(camera_transform, message.position).ok();
    }
}

/// The tile under the mouse, if any.
pub fn hovered_tile(cursor: &CursorWorld, geometry: Option<&NavGeometry>) -> Option<GridPos> {
    geometry?.world_to_cell(cursor.0?).ok()
}

/// CI hook: `bevy_ci_testing` custom events `"left X Y"` and `"right X Y"` (cell coordinates,
/// on the oldest map; `"left X Y M"` on the map M-th oldest, from 0) become real window input: the same `CursorMoved` and `MouseButtonInput` messages the window
/// backend sends when a person clicks there. `"key K"` presses a letter key the same way.
pub fn ci_clicks(
    mut custom: MessageReader<CiTestingCustomEvent>,
    window: Single<Entity, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform)>,
    maps: Res<NavMaps>,
    mut moved: MessageWriter<CursorMoved>,
    mut buttons: MessageWriter<MouseButtonInput>,
    mut keys: MessageWriter<bevy::input::keyboard::KeyboardInput>,
) {
    let (camera, camera_transform) = *camera;
    for CiTestingCustomEvent(text) in custom.read() {
        let words: Vec<&str> = text.split_whitespace().collect();
        match words.as_slice() {
            [button @ ("left" | "right"), x, y, map @ ..] => {
                // An optional fourth word: the map, by its place among the maps (0: oldest).
                let map = map.first().map_or(Some(0), |m| m.parse::<usize>().ok());
                let geometry = map.and_then(|m| maps.iter().nth(m)).map(|m| &m.geometry);
                let (Ok(x), Ok(y), Some(geometry)) = (x.parse(), y.parse(), geometry) else {
                    warn!("bad CI click `{text}`");
                    continue;
                };
                let world = geometry.cell_to_world(GridPos::new(x, y));
                let Ok(position) = camera.world_to_viewport(camera_transform, world.extend(0.0))
                else {
                    continue;
                };
                moved.write(CursorMoved { window: *window, position, delta: None });
                let button = if *button == "left" { MouseButton::Left } else { MouseButton::Right };
                for state in [ButtonState::Pressed, ButtonState::Released] {
                    buttons.write(MouseButtonInput { button, state, window: *window });
                }
            }
            ["key", key] => {
                let Some(code) = key_code(key) else {
                    continue;
                };
                for state in [ButtonState::Pressed, ButtonState::Released] {
                    keys.write(bevy::input::keyboard::KeyboardInput {
                        key_code: code,
                        logical_key: bevy::input::keyboard::Key::Character((*key).into()),
                        state,
                        text: None,
                        repeat: false,
                        window: *window,
                    });
                }
            }
            _ => warn!("unknown CI event `{text}`"),
        }
    }
}

fn key_code(key: &str) -> Option<KeyCode> {
    Some(match key {
        "s" => KeyCode::KeyS,
        "d" => KeyCode::KeyD,
        "p" => KeyCode::KeyP,
        "r" => KeyCode::KeyR,
        "w" => KeyCode::KeyW,
        "n" => KeyCode::KeyN,
        "m" => KeyCode::KeyM,
        "e" => KeyCode::KeyE,
        _ => return None,
    })
}

/// The character the mouse controls.
#[derive(Component)]
pub struct Player;

/// Spawns the player's character on a tile of [`LEVEL`].
pub fn spawn_player(commands: &mut Commands, x: u32, y: u32) -> Entity {
    let size = TilemapSize { x: LEVEL[0].len() as u32, y: LEVEL.len() as u32 };
    let tile = TilemapTileSize { x: TILE, y: TILE };
    let at = TilePos::new(x, y).center_in_world(
        &size,
        &tile.into(),
        &tile,
        &TilemapType::Square,
        &TilemapAnchor::Center,
    );
    commands
        .spawn((
            Player,
            Sprite::from_color(Color::srgb(0.25, 0.85, 1.0), Vec2::splat(TILE * 0.6)),
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
    agents: Query<(&Transform, &Path, &PathFollower, Option<&Sprite>)>,
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
    pub describe: fn(&Path) -> String,
    pub last: String,
}

/// The text node [`show_path_status`] fills.
#[derive(Component)]
pub struct PathStatusText;

/// Keeps [`PathStatus::last`] to the player's last answer: a path, or why there is none.
pub fn report_player_path(
    mut failures: MessageReader<PathFailed>,
    answered: Query<&Path, (With<Player>, Changed<Path>)>,
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
