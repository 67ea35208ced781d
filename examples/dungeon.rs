//! Three floors of a dungeon, each its own map (a tilemap of its own, drawn side by side),
//! joined by stairs, a ladder and a trapdoor ([`NavLink`]s): click anywhere on any floor and the
//! hero walks there, up and down as needed. Links the game controls: the ladder takes time to
//! climb ([`LinkCrossing::Takes`]), the top floor's door opens with an animation before the
//! hero is carried through ([`LinkCrossing::Carried`], [`CarryAcross`]), and the ground floor's
//! gate lets the guard by but not the hero ([`LinkOpenTo`]).
//!
//! ```text
//! cargo run --example dungeon
//! ```
//!
//! Left click: walk there (as near as it gets). Right click: wall / floor on that tile (the
//! hero plans again at once if its way is cut, taking other stairs if it must). L: lock or
//! unlock the door (locked, the game gives up carrying the hero, who goes round).

mod common;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_tilemap_nav::plugin::{
    CarryAcross, LinkCrossing, LinkOpenTo, LinkReached, NavTeam, WaitingAtLink,
};
use bevy_tilemap_nav::prelude::*;
use common::*;

/// The floors, top row first: `#` wall, `.` floor, `=` stairs or ladder, `~` the trapdoor (a
/// drop from the top floor to the cellar, one way), `m` mud, `D` the door, `G` the gate.
const FLOORS: [[&str; 9]; 3] = [
    [
        "#########",
        "#...#..=#",
        "#...#...#",
        "#.......#",
        "###.#####",
        "#...#...#",
        "#.mm....#",
        "#~..#..=#",
        "#########",
    ],
    [
        "#########",
        "#=..#...#",
        "#...#...#",
        "#...#...#",
        "#.#G###.#",
        "#.......#",
        "#...#...#",
        "#=..#..=#",
        "#########",
    ],
    [
        "#########",
        "#.......#",
        "#.#####.#",
        "#.#...#.#",
        "#.#.~.#.#",
        "#.#...#.#",
        "#...D...#",
        "#=..#...#",
        "#########",
    ],
];

/// Where the floors are drawn: their centres, left to right.
const SPACING: f32 = 9.0 * TILE + 28.0;

/// A tile of a floor: (floor, x, y), y up.
type FloorTile = (usize, u32, u32);

/// What a link is, for the panel and its drawing.
#[derive(Component, Clone, Copy, PartialEq, Eq, Debug)]
enum Way {
    Stairs,
    Ladder,
    Trapdoor,
    Door,
    Gate,
}

/// The links, as (what, from, to, cost, two-way).
const LINKS: [(Way, FloorTile, FloorTile, f64, bool); 6] = [
    // Stairs: cellar (right, top) <-> ground floor (left, top).
    (Way::Stairs, (0, 7, 7), (1, 1, 7), 3.0, true),
    // Stairs: cellar (right, bottom) <-> ground floor (left, bottom).
    (Way::Stairs, (0, 7, 1), (1, 1, 1), 3.0, true),
    // A ladder: ground floor (right, bottom) <-> top floor (left, bottom), 1.2 s to climb.
    (Way::Ladder, (1, 7, 1), (2, 1, 1), 3.0, true),
    // The trapdoor in the top floor's middle room drops to the cellar: one way.
    (Way::Trapdoor, (2, 4, 4), (0, 1, 1), 1.0, false),
    // The top floor's door, through the wall between its two bottom rooms.
    (Way::Door, (2, 3, 2), (2, 5, 2), 2.0, true),
    // The ground floor's gate, through the wall under its top-left room: guards only.
    (Way::Gate, (1, 3, 5), (1, 3, 3), 2.0, true),
];

/// How long the ladder takes to climb, in seconds.
const LADDER_SECONDS: f32 = 1.2;
/// How long the door takes to swing open (and shut).
const DOOR_SECONDS: f32 = 0.6;
/// The guards' team: the gate lets them by.
const GUARDS: NavTeam = NavTeam(1);
/// The guard's rounds on the ground floor: through the gate and back.
const ROUNDS: [(u32, u32); 2] = [(3, 7), (3, 2)];

/// The guard.
#[derive(Component)]
struct Guard {
    next: usize,
}

/// The door's state: how open it is (0 shut, 1 open), whom it opens for, and whether it is
/// locked.
#[derive(Resource, Default)]
struct Door {
    open: f32,
    opening_for: Option<Entity>,
    locked: bool,
}

fn main() {
    game_app("bevy_tilemap_nav: dungeon (three floors, stairs)")
        .insert_resource(RightClickToggle { on: WALL, off: FLOOR, fixed: vec![ROAD, DOOR_OPEN, DOOR_CLOSED] })
        .insert_resource(PathStatus {
            help: "Left click on any floor: walk there   Right click: wall / floor   L: lock the door",
            describe: |path| {
                let floors = path.legs.len() + 1;
                let tiles =
                    path.cells.len() + path.legs.iter().map(|l| l.cells.len()).sum::<usize>();
                format!(
                    "{tiles} tiles on {floors} floor(s), {} stairs, cost {:.1}, {} tiles searched \
                     in {:.0} us",
                    path.legs.len(),
                    path.cost,
                    path.expanded,
                    path.micros
                )
            },
            last: String::new(),
        })
        .add_plugins(ClickToMovePlugin)
        .init_resource::<Door>()
        .add_systems(Startup, setup)
        .add_systems(Update, (swing_door, lock_door, patrol).before(NavSet::Pathfind))
        .add_systems(Update, (draw_links, report_crossings).after(NavSet::Move))
        .run();
}

/// The dungeon's tile for a character of [`FLOORS`].
fn tile_for(c: char) -> u32 {
    match c {
        '=' => ROAD,
        '~' => DOOR_OPEN,
        'm' => MUD,
        'D' | 'G' => DOOR_CLOSED,
        other => texture_for(other),
    }
}

fn setup(mut commands: Commands, mut images: ResMut<Assets<Image>>) {
    spawn_camera(&mut commands);
    commands.spawn((PathStatusText, help_text(14.0)));
    let tile_size = TilemapTileSize { x: TILE, y: TILE };
    let look = MapLook {
        map_type: TilemapType::Square,
        grid_size: tile_size.into(),
        tile_size,
        texture: images.add(tileset_image()),
    };
    let floors: Vec<Entity> = FLOORS
        .iter()
        .enumerate()
        .map(|(k, rows)| {
            let floor = spawn_map(&mut commands, rows, tile_for, &look);
            let x = (k as f32 - 1.0) * SPACING;
            commands.entity(floor).insert(Transform::from_xyz(x, 0.0, 0.0));
            floor
        })
        .collect();
    // Each tilemap is a map of its own (they are drawn apart): the map entity is the tilemap.
    for (way, (fa, xa, ya), (fb, xb, yb), cost, two_way) in LINKS {
        let (from, to) = (
            LinkEnd::new(floors[fa], GridPos::new(xa, ya)),
            LinkEnd::new(floors[fb], GridPos::new(xb, yb)),
        );
        let link = if two_way {
            NavLink::two_way(from, to, cost)
        } else {
            NavLink::one_way(from, to, cost)
        };
        let mut link = commands.spawn((link, way));
        match way {
            Way::Ladder => link.insert(LinkCrossing::Takes { seconds: LADDER_SECONDS }),
            Way::Door => link.insert(LinkCrossing::Carried),
            Way::Gate => link.insert(LinkOpenTo::teams(&[GUARDS])),
            Way::Stairs | Way::Trapdoor => &mut link,
        };
    }
    // The guard walks its rounds on the ground floor, through the gate.
    let ground = floors[1];
    let (x, y) = ROUNDS[0];
    let at = TilePos::new(x, y).center_in_world(
        &TilemapSize { x: 9, y: 9 },
        &look.grid_size,
        &tile_size,
        &TilemapType::Square,
        &TilemapAnchor::Center,
    );
    commands.spawn((
        Guard { next: 1 },
        GUARDS,
        // It holds the cells it walks (5 shows them), and takes the gate when its cell is free.
        GridLocked::default(),
        Figure::new(Color::srgb(0.9, 0.3, 0.25), TILE * 0.95),
        Transform::from_translation(at.extend(4.0)),
        PathFollower::smoothed(TILE * 3.0),
        PathRequest::to(PathGoal::OnMap {
            map: ground,
            cell: GridPos::new(ROUNDS[1].0, ROUNDS[1].1),
        }),
    ));
    // The hero starts in the cellar's top-left room.
    let at = TilePos::new(1, 6).center_in_world(
        &TilemapSize { x: 9, y: 9 },
        &look.grid_size,
        &tile_size,
        &TilemapType::Square,
        &TilemapAnchor::Center,
    ) + Vec2::new(-SPACING, 0.0);
    commands.spawn((
        Player,
        Figure::new(Color::srgb(0.25, 0.85, 1.0), TILE * 0.95),
        Transform::from_translation(at.extend(5.0)),
        PathFollower::smoothed(TILE * 5.0),
    ));
}

/// Each link as a dashed line between its two ends: gold for stairs, orange for the ladder,
/// red for the one-way drop, blue for the gate; the door as its leaf, swinging open.
fn draw_links(
    mut gizmos: Gizmos,
    maps: Res<NavMaps>,
    links: Query<(&NavLink, &Way)>,
    door: Res<Door>,
) {
    for (link, way) in &links {
        let end = |e: LinkEnd| maps.get(e.map).map(|m| m.geometry.cell_to_world(e.cell));
        let (Some(a), Some(b)) = (end(link.from), end(link.to)) else {
            continue;
        };
        let color = match way {
            Way::Stairs => Color::srgb(1.0, 0.85, 0.3),
            Way::Ladder => Color::srgb(1.0, 0.55, 0.15),
            Way::Trapdoor => Color::srgb(1.0, 0.35, 0.3),
            Way::Gate => Color::srgb(0.4, 0.6, 1.0),
            Way::Door => {
                // The leaf, hinged at the doorway's bottom, swinging up and open.
                let (mid, half) = ((a + b) / 2.0, TILE * 0.5);
                let hinge = mid - Vec2::Y * half;
                let angle = door.open * std::f32::consts::FRAC_PI_2;
                let tip = hinge + Vec2::new(angle.sin(), angle.cos()) * TILE;
                let wood = if door.locked {
                    Color::srgb(0.5, 0.2, 0.2)
                } else {
                    Color::srgb(0.75, 0.5, 0.2)
                };
                for offset in [-2.0, 0.0, 2.0] {
                    let side = Vec2::new(offset, 0.0);
                    gizmos.line_2d(hinge + side, tip + side, wood);
                }
                continue;
            }
        };
        dashed_line(&mut gizmos, a, b, color.with_alpha(0.6));
        gizmos.circle_2d(Isometry2d::from_translation(a), TILE * 0.35, color);
        gizmos.circle_2d(Isometry2d::from_translation(b), TILE * 0.35, color);
    }
}

/// The door: when the hero waits at it ([`LinkReached`]), it swings open over
/// [`DOOR_SECONDS`], then the game carries the hero through ([`CarryAcross`]) and it swings
/// shut. Locked, the game gives up at once and the hero goes round.
fn swing_door(
    mut reached: MessageReader<LinkReached>,
    mut carries: MessageWriter<CarryAcross>,
    mut door: ResMut<Door>,
    links: Query<&Way>,
    waiting: Query<&WaitingAtLink>,
    time: Res<Time>,
    mut status: ResMut<PathStatus>,
) {
    for reach in reached.read() {
        if links.get(reach.link) == Ok(&Way::Ladder) {
            status.last = format!("Climbing the ladder ({:.1} s)...", reach.seconds);
        }
        if links.get(reach.link) == Ok(&Way::Door) {
            if door.locked {
                carries.write(CarryAcross::give_up(reach.entity));
                status.last = "The door is locked: going round.".into();
            } else {
                door.opening_for = Some(reach.entity);
            }
        }
    }
    let step = time.delta_secs() / DOOR_SECONDS;
    match door.opening_for {
        // Sent elsewhere while the door opened: it shuts.
        Some(agent) if waiting.get(agent).is_err() => door.opening_for = None,
        Some(agent) => {
            door.open = (door.open + step).min(1.0);
            if door.open >= 1.0 {
                carries.write(CarryAcross::across(agent));
                door.opening_for = None;
            }
        }
        None => door.open = (door.open - step).max(0.0),
    }
}

/// L locks or unlocks the door.
fn lock_door(
    keys: Res<ButtonInput<KeyCode>>,
    mut door: ResMut<Door>,
    mut status: ResMut<PathStatus>,
) {
    if keys.just_pressed(KeyCode::KeyL) {
        door.locked = !door.locked;
        status.last =
            if door.locked { "The door is locked." } else { "The door is unlocked." }.into();
    }
}

/// The guard walks between the ends of its rounds, through the gate.
fn patrol(
    mut arrived: MessageReader<Arrived>,
    mut guards: Query<&mut Guard>,
    maps: Res<NavMaps>,
    mut commands: Commands,
) {
    let Some(ground) = maps.iter().nth(1).map(|m| m.entity) else {
        return;
    };
    for arrival in arrived.read() {
        if let Ok(mut guard) = guards.get_mut(arrival.entity) {
            let (x, y) = ROUNDS[guard.next];
            guard.next = 1 - guard.next;
            let goal = PathGoal::OnMap { map: ground, cell: GridPos::new(x, y) };
            commands.entity(arrival.entity).insert(PathRequest::to(goal));
        }
    }
}

/// Says on the panel when the hero takes stairs, the ladder, the door or the trapdoor (the
/// guard's crossings of the gate are seen, not told).
fn report_crossings(
    mut crossed: MessageReader<LinkCrossed>,
    maps: Res<NavMaps>,
    links: Query<&Way>,
    guards: Query<(), With<Guard>>,
    mut status: ResMut<PathStatus>,
) {
    for crossing in crossed.read() {
        if guards.contains(crossing.entity) {
            continue;
        }
        let floor = |map: Entity| maps.iter().position(|m| m.entity == map).unwrap_or(0);
        let names = ["cellar", "ground floor", "top floor"];
        let way = links.get(crossing.link).copied().unwrap_or(Way::Stairs);
        let (from, to) =
            (names[floor(crossing.from.map).min(2)], names[floor(crossing.to.map).min(2)]);
        status.last = match way {
            Way::Door => "The hero went through the door.".to_string(),
            _ => {
                let way = format!("{way:?}").to_lowercase();
                format!("The hero took the {way} from the {from} to the {to}.")
            }
        };
    }
}
