//! An open world of 4,096 x 4,096 cells in 64 x 64 chunks, each chunk a bevy_ecs_tilemap tilemap
//! of its own, streamed in and out around the player (7 x 7 chunks loaded). The plugin joins the
//! chunks at their seams and, with [`WorldSearch::Hierarchical`], answers paths across them over
//! a graph of cells on the chunks' edges. The player walks from one far goal to the next; the
//! folk about walk to goals chunks away, across the seams (the faint lines).
//!
//! ```text
//! cargo run --release --example open_world
//! ```
//!
//! Left click: the player walks there (anywhere on the loaded chunks). Wheel: zoom; arrows or
//! middle drag: pan (the camera follows the player again once it walks on).

mod common;
#[path = "common/world_gen.rs"]
mod world_gen;

use std::collections::HashMap;
use std::time::Duration;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_tilemap_nav::plugin::{NavDiagnostics, NavSeam, WorkBudget, WorldSearch};
use bevy_tilemap_nav::prelude::*;
use common::*;
use world_gen::{CHUNK, WORLD, world_texture};

/// Pixels a cell.
const CELL: f32 = 8.0;
/// Chunks loaded on each side of the player's chunk.
const RADIUS: i32 = 3;
const FOLK: usize = 14;
/// The player's speed, in cells a second.
const PLAYER_SPEED: f32 = 24.0;

fn main() {
    game_app("bevy_tilemap_nav: open world (4,096 x 4,096 cells, 64 x 64 chunks)")
        .insert_resource(NavSettings {
            world_search: WorldSearch::Hierarchical,
            // Chunks of costly terrain stream in as the player walks: working out their part
            // of the world graph takes more than the default 0.8 ms a frame leaves the
            // queries (in release, 40-44 paths answered in the CI script's 400 frames, 76-90
            // with this).
            work: WorkBudget { time: Some(Duration::from_micros(1600)), ..default() },
            ..NavSettings::default()
        })
        .init_resource::<Loaded>()
        .init_resource::<Random>()
        .init_resource::<Slowest>()
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                (ci_clicks, track_cursor, stream, click, next_goals, keep_folk_near)
                    .chain()
                    .before(NavSet::Pathfind),
                (follow_player, draw_seams, draw_paths, track_searches, show_panel)
                    .chain()
                    .after(NavSet::Move),
            ),
        )
        .run();
}

/// The chunks loaded, by chunk column and row.
#[derive(Resource, Default)]
struct Loaded(HashMap<(i32, i32), Entity>);

/// The searches so far: paths answered, the longest search time of one path (microseconds,
/// summed over the frames its search ran), the frames seen, the most a frame spent searching
/// (milliseconds) and the frames that spent over 2 ms.
#[derive(Resource, Default)]
struct Slowest {
    answered: u32,
    path_micros: f32,
    frames: u32,
    worst_frame: f64,
    over_2_ms: u32,
    /// The most a frame spent working out ahead (the world graph for chunks that came, the
    /// grids' warm-ups), ms.
    worst_warm: f64,
}

#[derive(Resource)]
struct Tiles(Handle<Image>);

#[derive(Component)]
struct Player;

#[derive(Component)]
struct Folk;

#[derive(Component)]
struct Panel;

/// A small deterministic generator, so that every run (and CI's screenshots) is the same.
#[derive(Resource)]
struct Random(u64);

impl Default for Random {
    fn default() -> Self {
        Random(0x2545_F491_4F6C_DD1D)
    }
}

impl Random {
    fn below(&mut self, n: u32) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % u64::from(n)) as u32
    }
}

/// The world point at the centre of world cell (x, y).
fn point(x: i32, y: i32) -> Vec2 {
    Vec2::new(x as f32 + 0.5, y as f32 + 0.5) * CELL
}

/// The world cell at `at`.
fn cell_at(at: Vec2) -> IVec2 {
    (at / CELL).floor().as_ivec2()
}

fn chunk_of(cell: IVec2) -> (i32, i32) {
    (cell.x.div_euclid(CHUNK as i32), cell.y.div_euclid(CHUNK as i32))
}

fn open(cell: IVec2) -> bool {
    let inside = cell.x >= 0 && cell.y >= 0 && cell.x < WORLD as i32 && cell.y < WORLD as i32;
    inside && world_texture(cell.x as u32, cell.y as u32) != WALL
}

/// A random open cell within `reach` cells of `around` (on the loaded chunks when `reach` is
/// under the loaded radius), or `around` after many tries.
fn open_near(random: &mut Random, around: IVec2, (least, reach): (i32, i32)) -> IVec2 {
    for _ in 0..200 {
        let d = IVec2::new(
            random.below(2 * reach as u32 + 1) as i32 - reach,
            random.below(2 * reach as u32 + 1) as i32 - reach,
        );
        let cell = around + d;
        if d.abs().max_element() >= least && open(cell) {
            return cell;
        }
    }
    around
}

fn setup(mut commands: Commands, mut images: ResMut<Assets<Image>>, mut random: ResMut<Random>) {
    commands.insert_resource(Tiles(images.add(open_world_tileset())));
    let start = open_near(&mut random, IVec2::splat(WORLD as i32 / 2), (0, 20));
    commands.spawn((
        Player,
        Figure::new(Color::srgb(0.95, 0.85, 0.3), CELL * 4.0),
        Transform::from_translation(point(start.x, start.y).extend(5.0)),
        PathFollower::new(CELL * PLAYER_SPEED),
    ));
    for k in 0..FOLK {
        let at = open_near(&mut random, start, (0, 100));
        let hue = (k as f32 * 137.5) % 360.0;
        commands.spawn((
            Folk,
            Figure::new(Color::hsl(hue, 0.7, 0.6), CELL * 3.0),
            Transform::from_translation(point(at.x, at.y).extend(4.0)),
            PathFollower::new(CELL * (10.0 + (k % 4) as f32 * 3.0)),
        ));
    }
    commands.spawn((
        Camera2d,
        Projection::Orthographic(OrthographicProjection {
            scale: 2.5,
            ..OrthographicProjection::default_2d()
        }),
        Transform::from_translation(point(start.x, start.y).extend(0.0)),
    ));
    commands.spawn((Panel, help_text(14.0)));
}

/// Six 8 x 8 tiles in the examples' order: ground, rock, bog, (unused), (unused), road.
fn open_world_tileset() -> Image {
    tileset(CELL as u32, CELL as u32, 6, |tile, x, y| {
        let n = i32::from(noise(x, y, tile)) / 24 - 5;
        Some(match tile {
            WALL => shade([70, 64, 72], n),
            MUD => shade([92, 74, 48], n),
            ROAD => shade([176, 160, 120], n),
            _ => shade([86, 128, 72], n),
        })
    })
}

/// Spawns chunk (cx, cy) as a tilemap with its cell (0, 0) at the chunk's place in the world.
fn spawn_chunk(commands: &mut Commands, tiles: &Tiles, (cx, cy): (i32, i32)) -> Entity {
    let size = TilemapSize { x: CHUNK, y: CHUNK };
    let tilemap = commands.spawn_empty().id();
    let mut storage = TileStorage::empty(size);
    let (x0, y0) = (cx as u32 * CHUNK, cy as u32 * CHUNK);
    for y in 0..CHUNK {
        for x in 0..CHUNK {
            let position = TilePos { x, y };
            let texture_index = TileTextureIndex(world_texture(x0 + x, y0 + y));
            let tilemap_id = TilemapId(tilemap);
            let tile =
                commands.spawn(TileBundle { position, tilemap_id, texture_index, ..default() });
            storage.set(&position, tile.id());
        }
    }
    let tile_size = TilemapTileSize { x: CELL, y: CELL };
    let corner = Vec2::new(x0 as f32, y0 as f32) * CELL;
    commands.entity(tilemap).insert((
        TilemapBundle {
            grid_size: tile_size.into(),
            map_type: TilemapType::Square,
            size,
            storage,
            texture: TilemapTexture::Single(tiles.0.clone()),
            tile_size,
            anchor: TilemapAnchor::BottomLeft,
            transform: Transform::from_translation(corner.extend(0.0)),
            ..default()
        },
        NavTilemap,
    ));
    tilemap
}

/// Loads the chunks within `RADIUS` of the player's and unloads the others (their tiles too).
fn stream(
    mut commands: Commands,
    tiles: Option<Res<Tiles>>,
    mut loaded: ResMut<Loaded>,
    player: Query<&Transform, With<Player>>,
    storages: Query<&TileStorage>,
) {
    let (Some(tiles), Ok(player)) = (tiles, player.single()) else {
        return;
    };
    let (px, py) = chunk_of(cell_at(player.translation.truncate()));
    let last = WORLD as i32 / CHUNK as i32 - 1;
    let wanted = |(cx, cy): (i32, i32)| {
        (cx - px).abs() <= RADIUS
            && (cy - py).abs() <= RADIUS
            && cx.min(cy) >= 0
            && cx.max(cy) <= last
    };
    loaded.0.retain(|&chunk, &mut entity| {
        if wanted(chunk) {
            return true;
        }
        if let Ok(storage) = storages.get(entity) {
            for &tile in storage.iter().flatten() {
                commands.entity(tile).despawn();
            }
        }
        commands.entity(entity).despawn();
        false
    });
    for cy in py - RADIUS..=py + RADIUS {
        for cx in px - RADIUS..=px + RADIUS {
            if wanted((cx, cy)) && !loaded.0.contains_key(&(cx, cy)) {
                let entity = spawn_chunk(&mut commands, &tiles, (cx, cy));
                loaded.0.insert((cx, cy), entity);
            }
        }
    }
}

/// Left click: the player walks there.
fn click(
    mut commands: Commands,
    mouse: Res<ButtonInput<MouseButton>>,
    cursor: Res<CursorWorld>,
    player: Query<Entity, With<Player>>,
) {
    if let (true, Some(at), Ok(player)) =
        (mouse.just_pressed(MouseButton::Left), cursor.0, player.single())
    {
        commands.entity(player).insert(PathRequest::to(at));
    }
}

/// The player and the folk.
type Walkers<'w, 's> =
    Query<'w, 's, (Entity, &'static Transform, Has<Player>), Or<(With<Player>, With<Folk>)>>;
/// Those with a walk, or one asked for.
type Busy<'w, 's> = Query<'w, 's, (), Or<(With<NavPath>, With<PathRequest>)>>;

/// The player, once it has arrived or failed, heads for a cell two to three chunks away; the
/// folk for one up to two chunks away from where they stand.
fn next_goals(
    mut commands: Commands,
    mut random: ResMut<Random>,
    walkers: Walkers,
    busy: Busy,
    mut waited: Local<u32>,
) {
    // A few frames for the first chunks to load.
    *waited += 1;
    if *waited < 5 {
        return;
    }
    for (entity, transform, player) in &walkers {
        if busy.contains(entity) {
            continue;
        }
        let here = cell_at(transform.translation.truncate());
        let far = if player { (128, 180) } else { (48, 128) };
        let goal = open_near(&mut random, here, far);
        commands.entity(entity).insert(PathRequest::to(point(goal.x, goal.y)));
    }
}

/// Folk left behind on chunks that unloaded are brought back near the player.
fn keep_folk_near(
    mut commands: Commands,
    mut random: ResMut<Random>,
    maps: Res<NavMaps>,
    player: Query<&Transform, (With<Player>, Without<Folk>)>,
    mut folk: Query<(Entity, &mut Transform), With<Folk>>,
) {
    let Ok(player) = player.single() else {
        return;
    };
    let centre = cell_at(player.translation.truncate());
    for (entity, mut transform) in &mut folk {
        if maps.at_world(transform.translation.truncate()).is_none() && !maps.is_empty() {
            let at = open_near(&mut random, centre, (8, 100));
            transform.translation = point(at.x, at.y).extend(4.0);
            commands.entity(entity).remove::<(NavPath, PathRequest)>();
        }
    }
}

/// The camera follows the player while it walks (and stays where panned while it stands).
fn follow_player(
    player: Query<&Transform, (With<Player>, Without<Camera2d>)>,
    mut camera: Query<&mut Transform, With<Camera2d>>,
    mut last: Local<Vec2>,
) {
    if let (Ok(player), Ok(mut camera)) = (player.single(), camera.single_mut()) {
        let to = player.translation.truncate();
        if to != *last {
            let at = camera.translation.truncate();
            camera.translation = at.lerp(to, 0.1).extend(camera.translation.z);
        }
        *last = to;
    }
}

/// The chunks' edges, faintly: the seams the plugin joins.
fn draw_seams(mut gizmos: Gizmos, loaded: Res<Loaded>) {
    let side = CHUNK as f32 * CELL;
    for &(cx, cy) in loaded.0.keys() {
        let corner = Vec2::new(cx as f32, cy as f32) * side;
        let centre = corner + Vec2::splat(side / 2.0);
        gizmos.rect_2d(
            Isometry2d::from_translation(centre),
            Vec2::splat(side),
            Color::srgba(1.0, 1.0, 1.0, 0.12),
        );
    }
}

/// Counts the paths answered and the frames' search times (see [`Slowest`]); every 100 frames
/// prints them, a line to compare builds by (the CI script's 410 frames print four).
fn track_searches(
    paths: Query<Ref<NavPath>>,
    diagnostics: Res<NavDiagnostics>,
    mut slowest: ResMut<Slowest>,
) {
    for path in &paths {
        if path.is_added() || path.is_changed() {
            slowest.path_micros = slowest.path_micros.max(path.micros);
            slowest.answered += 1;
        }
    }
    let frame_ms = diagnostics.pathfind_time.as_secs_f64() * 1e3;
    slowest.frames += 1;
    slowest.worst_frame = slowest.worst_frame.max(frame_ms);
    slowest.over_2_ms += u32::from(frame_ms > 2.0);
    let warm_ms = diagnostics.warm_time.as_secs_f64() * 1e3;
    slowest.worst_warm = slowest.worst_warm.max(warm_ms);
    if slowest.frames.is_multiple_of(100) {
        println!(
            "frame {}: {} paths answered; the longest search {:.2} ms over its frames; the \
             most a frame searched {:.2} ms; {} frames over 2 ms; the most a frame worked \
             ahead {:.2} ms",
            slowest.frames,
            slowest.answered,
            slowest.path_micros / 1000.0,
            slowest.worst_frame,
            slowest.over_2_ms,
            slowest.worst_warm
        );
    }
}

fn show_panel(
    mut panel: Query<&mut Text, With<Panel>>,
    loaded: Res<Loaded>,
    diagnostics: Res<NavDiagnostics>,
    seams: Query<(), With<NavSeam>>,
    player: Query<(&Transform, Option<&NavPath>), With<Player>>,
    slowest: Res<Slowest>,
) {
    let frame_ms = diagnostics.pathfind_time.as_secs_f64() * 1e3;
    let Ok(mut text) = panel.single_mut() else {
        return;
    };
    let (cell, walk) = match player.single() {
        Ok((t, path)) => {
            (cell_at(t.translation.truncate()), path.map(|p| (p.legs.len(), p.micros)))
        }
        Err(_) => (IVec2::ZERO, None),
    };
    let walk = walk.map_or("no walk".to_string(), |(legs, micros)| {
        format!("its walk crosses {legs} seams, found in {:.2} ms", micros / 1000.0)
    });
    let (cx, cy) = chunk_of(cell);
    **text = format!(
        "Open world: 4,096 x 4,096 cells in 64 x 64 chunks, {} loaded, {} seam links\n\
         Player at cell ({}, {}), chunk ({cx}, {cy}); {walk}\n\
         Paths answered {}; searches this frame {:.2} ms (the most a frame: {:.2} ms)\n\
         Left click: walk there. Wheel: zoom. Arrows: pan (while the player stands).",
        loaded.0.len(),
        seams.iter().count(),
        cell.x,
        cell.y,
        slowest.answered,
        frame_ms,
        slowest.worst_frame,
    );
}
