//! Three floors of a dungeon, each its own map (a tilemap of its own, drawn side by side),
//! joined by stairs and a trapdoor ([`NavLink`]s): click anywhere on any floor and the hero
//! walks there, up and down the stairs as needed.
//!
//! ```text
//! cargo run --example dungeon
//! ```
//!
//! Left click: walk there (as near as it gets). Right click: wall / floor on that tile (the
//! hero plans again at once if its way is cut, taking other stairs if it must).

mod common;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_tilemap_nav::prelude::*;
use common::*;

/// The floors, top row first: `#` wall, `.` floor, `=` stairs, `~` the trapdoor (a drop from
/// the top floor to the cellar, one way), `m` mud.
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
        "#.#####.#",
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
        "#...#...#",
        "#=..#...#",
        "#########",
    ],
];

/// Where the floors are drawn: their centres, left to right.
const SPACING: f32 = 9.0 * TILE + 28.0;

/// A tile of a floor: (floor, x, y), y up.
type FloorTile = (usize, u32, u32);

/// The links, as (from, to, cost, two-way).
const LINKS: [(FloorTile, FloorTile, f64, bool); 4] = [
    // Stairs: cellar (right, top) <-> ground floor (left, top).
    ((0, 7, 7), (1, 1, 7), 3.0, true),
    // Stairs: cellar (right, bottom) <-> ground floor (left, bottom).
    ((0, 7, 1), (1, 1, 1), 3.0, true),
    // Stairs: ground floor (right, bottom) <-> top floor (left, bottom).
    ((1, 7, 1), (2, 1, 1), 3.0, true),
    // The trapdoor in the top floor's middle room drops to the cellar: one way.
    ((2, 4, 4), (0, 1, 1), 1.0, false),
];

fn main() {
    game_app("bevy_tilemap_nav: dungeon (three floors, stairs)")
        .insert_resource(RightClickToggle { on: WALL, off: FLOOR, fixed: vec![ROAD, DOOR_OPEN] })
        .insert_resource(PathStatus {
            help: "Left click on any floor: walk there   Right click: wall / floor",
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
        .add_systems(Startup, setup)
        .add_systems(Update, (draw_links, report_crossings).after(NavSet::Move))
        .run();
}

/// The dungeon's tile for a character of [`FLOORS`].
fn tile_for(c: char) -> u32 {
    match c {
        '=' => ROAD,
        '~' => DOOR_OPEN,
        'm' => MUD,
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
    for ((fa, xa, ya), (fb, xb, yb), cost, two_way) in LINKS {
        let (from, to) = (
            LinkEnd::new(floors[fa], GridPos::new(xa, ya)),
            LinkEnd::new(floors[fb], GridPos::new(xb, yb)),
        );
        let link = if two_way {
            NavLink::two_way(from, to, cost)
        } else {
            NavLink::one_way(from, to, cost)
        };
        commands.spawn(link);
    }
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

/// Each link as a dashed line between its two ends: gold for stairs, red for the one-way drop.
fn draw_links(mut gizmos: Gizmos, maps: Res<NavMaps>, links: Query<&NavLink>) {
    for link in &links {
        let end = |e: LinkEnd| maps.get(e.map).map(|m| m.geometry.cell_to_world(e.cell));
        if let (Some(a), Some(b)) = (end(link.from), end(link.to)) {
            let color = if link.two_way {
                Color::srgb(1.0, 0.85, 0.3)
            } else {
                Color::srgb(1.0, 0.35, 0.3)
            };
            dashed_line(&mut gizmos, a, b, color.with_alpha(0.6));
            gizmos.circle_2d(Isometry2d::from_translation(a), TILE * 0.35, color);
            gizmos.circle_2d(Isometry2d::from_translation(b), TILE * 0.35, color);
        }
    }
}

/// Says on the panel when the hero takes stairs or drops through the trapdoor.
fn report_crossings(
    mut crossed: MessageReader<LinkCrossed>,
    maps: Res<NavMaps>,
    links: Query<&NavLink>,
    mut status: ResMut<PathStatus>,
) {
    for crossing in crossed.read() {
        let floor = |map: Entity| maps.iter().position(|m| m.entity == map).unwrap_or(0);
        let names = ["cellar", "ground floor", "top floor"];
        let stairs = links.get(crossing.link).is_ok_and(|l| l.two_way);
        status.last = format!(
            "Took the {} from the {} to the {}.",
            if stairs { "stairs" } else { "trapdoor" },
            names[floor(crossing.from.map).min(2)],
            names[floor(crossing.to.map).min(2)],
        );
    }
}
