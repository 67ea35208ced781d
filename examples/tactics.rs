//! A turn-based tactics map: three units of different kinds, each with its own movement points.
//! Select a unit to see where it can move this turn (its movement range); click a highlighted
//! cell to move it there along the cheapest path, spending the points that path costs.
//!
//! ```text
//! cargo run --example tactics
//! ```
//!
//! - the **soldier** walks: grass costs 1, forest 2; the river and rocks are closed to it but
//!   the bridges are not;
//! - the **boat** follows its own [`NavProfile`]: water (bridges included: it sails under them)
//!   costs 1, land is closed to it;
//! - the **golem** is 2 x 2 tiles: it plans only where its whole body fits, so it cannot
//!   squeeze through the one-tile gaps in the ridge.
//!
//! Left click: select a unit, or move the selected one. E: end the turn (every unit gets its
//! points back).

mod common;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_tilemap_nav::plugin::RangeFailed;
use bevy_tilemap_nav::prelude::*;
use common::*;

const GRASS: u32 = 0;
const FOREST: u32 = 1;
const WATER: u32 = 2;
const BRIDGE: u32 = 3;
const ROCK: u32 = 4;

/// Terrain classes: what the boat's profile reads.
const RIVER: Terrain = Terrain(1);

/// The map, top row first: `.` grass, `f` forest, `~` water, `=` bridge, `^` rock.
const MAP: [&str; 14] = [
    "...ff...^^......~~......",
    "..fff...^^......~~..ff..",
    "...f............~~..fff.",
    "........^^......==...f..",
    "........^^......~~......",
    "^^^^.^^^^^..^^^^~~^^.^^^",
    "................~~......",
    "....ff..........~~......",
    "...fff.........~~~......",
    "....f.........~~~.......",
    "..........~~~~~~........",
    ".........~~~~.......ff..",
    "..ff.....~~==.......fff.",
    "........................",
];

fn main() {
    game_app("bevy_tilemap_nav: tactics")
        .insert_resource(
            TileRules::default()
                .with(FOREST, Cell::Passable { cost: 2 })
                .with(WATER, Cell::Blocked)
                .with_terrain(WATER, RIVER)
                .with_terrain(BRIDGE, RIVER)
                .with(ROCK, Cell::Blocked),
        )
        .init_resource::<Turn>()
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                (ci_clicks, track_cursor, clicks).chain().before(NavSet::Pathfind),
                (arrivals, show_range, draw_paths, show_status).chain().after(NavSet::Move),
            ),
        )
        .run();
}

/// A unit: its name, its points per turn and what is left of them.
#[derive(Component)]
struct Unit {
    /// Its line in the panel.
    line: usize,
    name: &'static str,
    about: &'static str,
    points: f64,
    left: f64,
}

#[derive(Resource, Default)]
struct Turn {
    number: u32,
    selected: Option<Entity>,
    message: String,
}

/// A highlighted cell of the selected unit's range.
#[derive(Component)]
struct RangeMark;

#[derive(Component)]
struct StatusText;

fn setup(
    mut commands: Commands,
    mut images: ResMut<Assets<Image>>,
    mut profiles: ResMut<NavProfiles>,
    mut turn: ResMut<Turn>,
) {
    spawn_camera(&mut commands);
    let tile = TilemapTileSize { x: TILE, y: TILE };
    let look = MapLook {
        map_type: TilemapType::Square,
        grid_size: tile.into(),
        tile_size: tile,
        texture: images.add(tileset(TILE as u32, TILE as u32, 5, terrain_pixel)),
    };
    let texture = |c| match c {
        'f' => FOREST,
        '~' => WATER,
        '=' => BRIDGE,
        '^' => ROCK,
        _ => GRASS,
    };
    spawn_map(&mut commands, &MAP, texture, &look);
    let sail = NavProfile::new().with(RIVER, TerrainRule::Cost(1)).otherwise(TerrainRule::Blocked);
    let boat = profiles.insert("boat", sail).expect("the first profile");
    let units = [
        ("Soldier", "walks, forest costs 2", AgentKind::PLAIN, (2, 3), 6.0, [0.3, 0.6, 1.0]),
        ("Boat", "river only", AgentKind::with_profile(boat), (16, 6), 10.0, [0.95, 0.9, 0.4]),
        ("Golem", "2 x 2, fits wide gaps only", AgentKind::sized(2), (5, 1), 6.0, [0.85, 0.4, 0.3]),
    ];
    let size = TilemapSize { x: MAP[0].len() as u32, y: MAP.len() as u32 };
    for (line, (name, about, kind, (x, y), points, [r, g, b])) in units.into_iter().enumerate() {
        let corner = square_cell_centre(x, y, size, TILE);
        // A larger unit stands with its body's centre half a body up and right of its corner
        // cell (what NavGeometry::body_offset gives once the map is built).
        let centre = corner + Vec2::splat(TILE * (kind.size as f32 - 1.0) / 2.0);
        let body = TILE * (kind.size as f32 - 0.1);
        commands.spawn((
            Unit { line, name, about, points, left: points },
            kind,
            Figure::new(Color::srgb(r, g, b), body),
            Transform::from_translation(centre.extend(5.0)),
            PathFollower::new(TILE * 5.0),
        ));
    }
    turn.number = 1;
    turn.message = "Click a unit to see how far it can move.".into();
    commands.spawn((StatusText, help_text(15.0)));
}

type Units<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static mut Unit,
        &'static AgentKind,
        &'static Transform,
        Option<&'static MoveRange>,
        Has<NavPath>,
    ),
>;

/// Left click on a unit: select it and ask for its range. Left click elsewhere with a unit
/// selected: move it there if that is in its range. E: next turn.
#[allow(clippy::too_many_arguments)]
fn clicks(
    mut commands: Commands,
    mouse: Res<ButtonInput<MouseButton>>,
    keys: Res<ButtonInput<KeyCode>>,
    cursor: Res<CursorWorld>,
    maps: Res<NavMaps>,
    mut turn: ResMut<Turn>,
    mut units: Units,
) {
    if keys.just_pressed(KeyCode::KeyE) {
        turn.number += 1;
        for (entity, mut unit, ..) in &mut units {
            unit.left = unit.points;
            if turn.selected == Some(entity) {
                commands.entity(entity).insert(RangeRequest::within(unit.left));
            }
        }
        turn.message = format!("Turn {}: every unit has its points back.", turn.number);
    }
    let (Some(world), true) = (cursor.0, mouse.just_pressed(MouseButton::Left)) else {
        return;
    };
    let Some(map) = maps.first() else {
        return;
    };
    // A unit under the click: select it.
    let hit = units.iter().find(|(_, _, kind, transform, ..)| {
        let half = TILE * kind.size as f32 / 2.0;
        (transform.translation.truncate() - world).abs().max_element() < half
    });
    if let Some((entity, unit, ..)) = hit {
        turn.selected = Some(entity);
        turn.message = format!("{}: {} points left.", unit.name, unit.left);
        commands.entity(entity).insert(RangeRequest::within(unit.left));
        return;
    }
    let Some(selected) = turn.selected else {
        return;
    };
    let Ok((entity, mut unit, kind, _, Some(range), walking)) = units.get_mut(selected) else {
        return;
    };
    if walking {
        return;
    }
    // The reachable cell whose body centre is nearest the click, within a tile of it.
    let offset = map.geometry.body_offset(kind.size);
    let target = range
        .reach
        .cells()
        .iter()
        .map(|c| (c, map.geometry.cell_to_world(c.pos) + offset))
        .filter(|(_, at)| at.distance(world) < TILE * 0.75)
        .min_by(|a, b| a.1.distance(world).total_cmp(&b.1.distance(world)));
    match target {
        Some((cell, _)) if cell.pos != range.reach.start() => {
            unit.left -= cell.cost;
            turn.message = format!("{} moves (cost {:.1}).", unit.name, cell.cost);
            commands.entity(entity).remove::<MoveRange>().insert(PathRequest::to(cell.pos));
        }
        Some(_) => {}
        None => turn.message = format!("{} cannot get there this turn.", unit.name),
    }
}

/// A unit that arrived shows what it can still reach.
fn arrivals(
    mut commands: Commands,
    mut arrived: MessageReader<Arrived>,
    mut failed: MessageReader<RangeFailed>,
    turn: Res<Turn>,
    units: Query<&Unit>,
) {
    for message in arrived.read() {
        if turn.selected == Some(message.entity)
            && let Ok(unit) = units.get(message.entity)
        {
            commands.entity(message.entity).insert(RangeRequest::within(unit.left));
        }
    }
    for message in failed.read() {
        warn!("range: {}", message.error);
    }
}

/// Highlights the cells the selected unit's body can cover this turn.
fn show_range(
    mut commands: Commands,
    turn: Res<Turn>,
    maps: Res<NavMaps>,
    ranges: Query<(Entity, Ref<MoveRange>, &Figure, &AgentKind)>,
    marks: Query<Entity, With<RangeMark>>,
    mut shown: Local<Option<(Entity, u32)>>,
) {
    let current = turn.selected.and_then(|e| ranges.get(e).ok());
    let key = current.as_ref().map(|(e, range, ..)| (*e, range.last_changed().get()));
    if key == *shown {
        return;
    }
    *shown = key;
    for mark in &marks {
        commands.entity(mark).despawn();
    }
    let (Some((_, range, figure, kind)), Some(map)) = (current, maps.first()) else {
        return;
    };
    // Every tile some reachable place of its body covers.
    let mut covered: Vec<GridPos> = Vec::new();
    for cell in range.reach.cells() {
        for dy in 0..kind.size {
            for dx in 0..kind.size {
                covered.push(GridPos::new(cell.pos.x + dx, cell.pos.y + dy));
            }
        }
    }
    covered.sort_unstable();
    covered.dedup();
    let color = figure.color.with_alpha(0.35);
    for cell in covered {
        let at = map.geometry.cell_to_world(cell);
        commands.spawn((
            RangeMark,
            Sprite::from_color(color, Vec2::splat(TILE - 4.0)),
            Transform::from_translation(at.extend(2.0)),
        ));
    }
}

fn show_status(
    turn: Res<Turn>,
    units: Query<&Unit>,
    mut text: Single<&mut Text, With<StatusText>>,
) {
    let mut roster: Vec<&Unit> = units.iter().collect();
    roster.sort_by_key(|u| u.line);
    let roster: Vec<String> = roster
        .iter()
        .map(|u| format!("{} {:.1}/{} ({})", u.name, u.left, u.points, u.about))
        .collect();
    text.0 = format!(
        "Turn {}. Left click: select a unit, then a highlighted cell to move it. E: end turn.\n{}\n{}",
        turn.number,
        roster.join("\n"),
        turn.message
    );
}

/// The tileset, drawn by code: grass, forest, water, bridge, rock.
fn terrain_pixel(tile: u32, x: u32, y: u32) -> Option<[u8; 3]> {
    let n = i32::from(noise(x, y, tile)) / 16 - 8;
    Some(match tile {
        FOREST => {
            // Round tree crowns on grass.
            let crown = [(9, 10), (22, 12), (15, 23)]
                .iter()
                .any(|&(cx, cy)| (x as i32 - cx).pow(2) + (y as i32 - cy).pow(2) < 40);
            if crown { shade([34, 92, 40], n) } else { shade([88, 140, 60], n) }
        }
        WATER => water_pixel(x, y, n),
        BRIDGE => {
            let rail = !(3..=28).contains(&y);
            let gap = x.is_multiple_of(8);
            if rail {
                [80, 50, 25]
            } else if gap {
                [60, 40, 20]
            } else {
                shade([150, 105, 60], n / 2)
            }
        }
        ROCK => {
            let crack = (x + y).is_multiple_of(13) || (x + 2 * y).is_multiple_of(17);
            if crack { [60, 60, 66] } else { shade([120, 118, 125], n) }
        }
        _ => grass_pixel(x, y, n),
    })
}
