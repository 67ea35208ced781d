//! Tower defence: creeps stream from two spawns to a base down one distance field.
//!
//! ```text
//! cargo run --example tower_defense
//! ```
//!
//! Left click: build a tower (a wall) on a floor tile. Right click: take one down. Every creep
//! follows the same `NavField` (`FollowField`): no creep searches. A tower that would cut a
//! spawn off from the base is refused (`DistanceField::cuts_off`, answered without touching the
//! map), and so is one on a creep. When a tower goes up, the plugin repairs the field where it
//! changed and the creeps walk their new way at once. Towers shoot the nearest creep in range.
//! The arrows show the field: the way down from each tile.

mod common;

use std::time::Duration;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_tilemap_nav::plugin::{FollowField, NavField, NavTilemap};
use bevy_tilemap_nav::prelude::*;
use common::*;

/// `S` a spawn, `B` the base (both floor), `#` rock.
const FIELD: [&str; 18] = [
    "##############################",
    "#............#...............#",
    "#.S..........#...............#",
    "#............#.......#.......#",
    "#.....###....#.......#.......#",
    "#.......#....#.......#.......#",
    "#.......#............#.......#",
    "#.......#............#.......#",
    "#.......#............#.....B.#",
    "#.......#............#.......#",
    "#.......####.........#.......#",
    "#............#.......#.......#",
    "#............#...............#",
    "#....#.......#...............#",
    "#.S..#.......#...............#",
    "#....#.......#...............#",
    "#............#...............#",
    "##############################",
];

/// A creep leaves a spawn this often (the two spawns take turns).
const SPAWN_EVERY: Duration = Duration::from_millis(450);
/// Towers shoot this far (tiles), this often.
const RANGE: f32 = 2.5;
const RELOAD: Duration = Duration::from_millis(2200);

fn main() {
    game_app("bevy_tilemap_nav: tower defence")
        .init_resource::<Score>()
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                (ci_clicks, track_cursor, build_towers, spawn_creeps, shoot)
                    .chain()
                    .before(NavSet::SyncGrid),
                (reach_base, draw_field, show_panel).chain().after(NavSet::Move),
            ),
        )
        .run();
}

/// The cells named by `c` in [`FIELD`], as map cells (row 0 of the text is the top row).
fn cells_marked(c: char) -> Vec<GridPos> {
    let top = FIELD.len() as u32 - 1;
    FIELD
        .iter()
        .enumerate()
        .flat_map(|(row, line)| {
            line.chars()
                .enumerate()
                .filter(move |&(_, ch)| ch == c)
                .map(move |(x, _)| GridPos::new(x as u32, top - row as u32))
        })
        .collect()
}

#[derive(Resource)]
struct Game {
    map: Entity,
    field: Entity,
    spawns: Vec<GridPos>,
    base: GridPos,
    next_spawn: Timer,
    turn: usize,
}

#[derive(Resource, Default)]
struct Score {
    spawned: u32,
    reached: u32,
    shot: u32,
    message: String,
}

#[derive(Component)]
struct Creep;

#[derive(Component)]
struct Tower {
    reload: Timer,
    /// Where its last shot went, drawn for a moment.
    last_shot: Option<(Vec2, f32)>,
}

#[derive(Component)]
struct Panel;

fn setup(mut commands: Commands, mut images: ResMut<Assets<Image>>) {
    spawn_camera(&mut commands);
    let map = spawn_level(&mut commands, &mut images, &FIELD);
    let spawns = cells_marked('S');
    let base = cells_marked('B')[0];
    // One field for every creep: the cost from each tile to the base.
    let field = commands.spawn(NavField::new(map, vec![base])).id();
    commands.insert_resource(Game {
        map,
        field,
        spawns,
        base,
        next_spawn: Timer::new(SPAWN_EVERY, TimerMode::Repeating),
        turn: 0,
    });
    commands.spawn((Panel, help_text(14.0)));
}

/// A tile's centre in the world, on the level's map.
fn centre(cell: GridPos) -> Vec2 {
    let size = TilemapSize { x: FIELD[0].len() as u32, y: FIELD.len() as u32 };
    square_cell_centre(cell.x, cell.y, size, TILE)
}

/// Left click: a tower, unless it would cut a spawn off or a creep stands there. Right click:
/// a tower comes down.
#[allow(clippy::too_many_arguments)]
fn build_towers(
    mut commands: Commands,
    mouse: Res<ButtonInput<MouseButton>>,
    cursor: Res<CursorWorld>,
    maps: Res<NavMaps>,
    game: Res<Game>,
    fields: Query<&NavField>,
    creeps: Query<&Transform, With<Creep>>,
    towers: Query<(Entity, &Transform), With<Tower>>,
    storage: Query<&TileStorage, With<NavTilemap>>,
    mut textures: Query<&mut TileTextureIndex>,
    mut score: ResMut<Score>,
) {
    let (left, right) =
        (mouse.just_pressed(MouseButton::Left), mouse.just_pressed(MouseButton::Right));
    if !left && !right {
        return;
    }
    let (Some(map), Ok(storage)) = (maps.get(game.map), storage.single()) else {
        return;
    };
    let Some(cell) = hovered_tile(&cursor, Some(&map.geometry)) else {
        return;
    };
    let Some(tile) = storage.checked_get(&TilePos { x: cell.x, y: cell.y }) else {
        return;
    };
    let Ok(mut texture) = textures.get_mut(tile) else {
        return;
    };
    let at = centre(cell);
    if right {
        if let Some((tower, _)) = towers.iter().find(|(_, t)| t.translation.truncate() == at) {
            commands.entity(tower).despawn();
            texture.0 = FLOOR;
            score.message = format!("tower at {cell} taken down");
        }
        return;
    }
    if texture.0 != FLOOR || cell == game.base || game.spawns.contains(&cell) {
        score.message = format!("{cell}: towers go on open floor only");
        return;
    }
    if creeps.iter().any(|t| map.geometry.world_to_cell(t.translation.truncate()) == Ok(cell)) {
        score.message = format!("{cell}: a creep is in the way");
        return;
    }
    let Some(field) = fields.get(game.field).ok().and_then(NavField::field) else {
        return;
    };
    if field.cuts_off(&map.grid, &[cell], &game.spawns) {
        score.message =
            format!("{cell}: refused, a tower there would cut a spawn off from the base");
        return;
    }
    // The tile becomes a wall: the plugin updates the grid, repairs the field, and the creeps
    // walk their new way.
    texture.0 = WALL;
    commands.spawn((
        Tower { reload: Timer::new(RELOAD, TimerMode::Repeating), last_shot: None },
        Transform::from_translation(at.extend(3.0)),
    ));
    score.message = format!("tower built at {cell}");
}

fn spawn_creeps(
    mut commands: Commands,
    time: Res<Time>,
    mut game: ResMut<Game>,
    mut score: ResMut<Score>,
) {
    if !game.next_spawn.tick(time.delta()).just_finished() {
        return;
    }
    let spawn = game.spawns[game.turn % game.spawns.len()];
    game.turn += 1;
    let colors = [Color::srgb(0.85, 0.25, 0.3), Color::srgb(0.6, 0.3, 0.85)];
    let color = colors[(game.turn - 1) % colors.len()];
    score.spawned += 1;
    commands.spawn((
        Creep,
        FollowField(game.field),
        PathFollower::new(TILE * 3.0),
        Figure::new(color, TILE * 0.75),
        Transform::from_translation(centre(spawn).extend(4.0)),
    ));
}

/// Creeps at the base leave the map.
fn reach_base(
    mut commands: Commands,
    mut arrived: MessageReader<Arrived>,
    creeps: Query<(), With<Creep>>,
    mut score: ResMut<Score>,
) {
    for arrival in arrived.read() {
        if creeps.contains(arrival.entity) {
            commands.entity(arrival.entity).despawn();
            score.reached += 1;
        }
    }
}

/// Each tower, when loaded, shoots the nearest creep in range (it is gone at once: despawned
/// in the middle of its walk).
fn shoot(
    mut commands: Commands,
    time: Res<Time>,
    mut towers: Query<(&mut Tower, &Transform)>,
    creeps: Query<(Entity, &Transform), With<Creep>>,
    mut score: ResMut<Score>,
    mut gone: Local<Vec<Entity>>,
) {
    gone.clear();
    for (mut tower, transform) in &mut towers {
        let at = transform.translation.truncate();
        if let Some((_, left)) = &mut tower.last_shot {
            *left -= time.delta_secs();
        }
        if !tower.reload.tick(time.delta()).is_finished() {
            continue;
        }
        let target = creeps
            .iter()
            .filter(|(e, _)| !gone.contains(e))
            .map(|(e, t)| (e, t.translation.truncate()))
            .filter(|(_, p)| p.distance(at) <= RANGE * TILE)
            .min_by(|a, b| a.1.distance(at).total_cmp(&b.1.distance(at)));
        if let Some((creep, where_)) = target {
            commands.entity(creep).despawn();
            gone.push(creep);
            score.shot += 1;
            tower.last_shot = Some((where_, 0.15));
            tower.reload.reset();
        }
    }
}

/// The field as arrows (the way down from each tile), the spawns, the base and the towers.
fn draw_field(
    mut gizmos: Gizmos,
    maps: Res<NavMaps>,
    game: Res<Game>,
    fields: Query<&NavField>,
    towers: Query<(&Tower, &Transform)>,
) {
    let (Some(map), Ok(nav)) = (maps.get(game.map), fields.get(game.field)) else {
        return;
    };
    if let Some(field) = nav.field() {
        for cell in map.grid.positions() {
            if let Some(next) = field.next_step(cell) {
                let (a, b) = (centre(cell), centre(next));
                let tip = a + (b - a) * 0.35;
                gizmos.arrow_2d(a - (b - a) * 0.15, tip, Color::srgba(1.0, 1.0, 1.0, 0.18));
            }
        }
    }
    for &spawn in &game.spawns {
        gizmos.circle_2d(centre(spawn), TILE * 0.45, Color::srgb(1.0, 0.35, 0.3));
    }
    gizmos.rect_2d(centre(game.base), Vec2::splat(TILE * 0.9), Color::srgb(0.3, 0.7, 1.0));
    for (tower, transform) in &towers {
        let at = transform.translation.truncate();
        gizmos.circle_2d(at, TILE * 0.3, Color::srgb(1.0, 0.85, 0.2));
        gizmos.circle_2d(at, RANGE * TILE, Color::srgba(1.0, 0.85, 0.2, 0.12));
        if let Some((target, left)) = tower.last_shot
            && left > 0.0
        {
            gizmos.line_2d(at, target, Color::srgb(1.0, 0.95, 0.5));
        }
    }
}

fn show_panel(
    score: Res<Score>,
    game: Res<Game>,
    fields: Query<&NavField>,
    creeps: Query<(), With<Creep>>,
    towers: Query<(), With<Tower>>,
    mut text: Single<&mut Text, With<Panel>>,
) {
    let repair = match fields.get(game.field) {
        Ok(nav) if nav.field().is_some() => {
            let (cells, took) = nav.last_work();
            format!("last field build or repair: {cells} cells in {} us", took.as_micros())
        }
        Ok(nav) => match nav.error() {
            Some(error) => format!("no field: {error}"),
            None => "field: building".to_string(),
        },
        Err(_) => String::new(),
    };
    text.0 = format!(
        "Left click: build a tower   Right click: take it down   Keep the creeps from the base\n\
         creeps alive {}   reached the base {}   shot {}   towers {}   {repair}\n{}",
        creeps.iter().count(),
        score.reached,
        score.shot,
        towers.iter().count(),
        score.message,
    );
}
