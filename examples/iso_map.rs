//! An isometric room (bevy_ecs_tilemap's `Isometric(Diamond)` map): the character walks where
//! you click, around walls and furniture, on straight lines across open floor.
//!
//! ```text
//! cargo run --example iso_map
//! ```
//!
//! Left click: walk there. Right click: put down or pick up a crate (the character plans
//! again at once if its way is cut).

mod common;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_tilemap_nav::prelude::*;
use common::*;

const BOARDS: u32 = 0;
const STONE: u32 = 1;
const CRATE: u32 = 2;
const RUG: u32 = 3;

const ISO_W: u32 = 64;
const ISO_H: u32 = 32;

/// The room, top row first: `#` stone wall, `.` boards, `c` crate, `r` rug.
const ROOM: [&str; 14] = [
    "##############",
    "#.....#..rr..#",
    "#.cc..#..rr..#",
    "#.....#......#",
    "#......cc....#",
    "#..c.........#",
    "#.....####.###",
    "###.###......#",
    "#.rrr.#......#",
    "#.rrr.....c..#",
    "#.rrr.#......#",
    "#.....#..cc..#",
    "#.....#......#",
    "##############",
];

fn main() {
    game_app("bevy_tilemap_nav: isometric room")
        .insert_resource(TileRules::default().with(STONE, Cell::Blocked).with(CRATE, Cell::Blocked))
        .insert_resource(RightClickToggle { on: CRATE, off: BOARDS, fixed: vec![STONE] })
        .insert_resource(PathStatus {
            help: "Left click: walk there   Right click: put down / pick up a crate",
            describe: |path| {
                format!(
                    "{} tiles, straight lines between {} corners, {} tiles searched in {:.0} us",
                    path.cells.len(),
                    path.corners.len(),
                    path.expanded,
                    path.micros
                )
            },
            last: String::new(),
        })
        .add_plugins(ClickToMovePlugin)
        .add_systems(Startup, setup)
        .run();
}

/// One diamond of the tileset, or `None` outside it.
fn iso_pixel(tile: u32, x: u32, y: u32) -> Option<[u8; 3]> {
    let (dx, dy) = (
        (x as f32 + 0.5 - ISO_W as f32 / 2.0).abs() / (ISO_W as f32 / 2.0),
        (y as f32 + 0.5 - ISO_H as f32 / 2.0).abs() / (ISO_H as f32 / 2.0),
    );
    if dx + dy > 1.0 {
        return None;
    }
    let rim = dx + dy > 0.93;
    let n = i32::from(noise(x, y, tile)) / 20 - 6;
    // Along the diamond's own axes, for patterns that follow the floor.
    let (u, v) = (
        (x as i32 * ISO_H as i32 + y as i32 * ISO_W as i32) / 64,
        (x as i32 * ISO_H as i32 - y as i32 * ISO_W as i32 + 4096) / 64,
    );
    let rgb = match tile {
        BOARDS => {
            let seam = u % 8 == 0;
            if seam { [92, 62, 38] } else { shade([156, 112, 70], n) }
        }
        STONE => {
            let mortar = u % 10 == 0 || (v + if (u / 10) % 2 == 0 { 0 } else { 5 }) % 10 == 0;
            if mortar { [50, 48, 56] } else { shade([118, 114, 126], n) }
        }
        CRATE => {
            let slat = u % 7 == 0 || v % 7 == 0;
            if slat { [110, 70, 30] } else { shade([196, 146, 74], n) }
        }
        _ => {
            let stripe = (u / 4 + v / 4) % 2 == 0;
            if stripe { shade([160, 40, 46], n / 2) } else { shade([210, 170, 80], n / 2) }
        }
    };
    Some(if rim { shade(rgb, -30) } else { rgb })
}

fn setup(mut commands: Commands, mut images: ResMut<Assets<Image>>) {
    spawn_camera(&mut commands);
    let look = MapLook {
        map_type: TilemapType::Isometric(IsoCoordSystem::Diamond),
        grid_size: TilemapGridSize { x: ISO_W as f32, y: ISO_H as f32 },
        tile_size: TilemapTileSize { x: ISO_W as f32, y: ISO_H as f32 },
        texture: images.add(tileset(ISO_W, ISO_H, 4, iso_pixel)),
    };
    let texture_for = |c| match c {
        '#' => STONE,
        'c' => CRATE,
        'r' => RUG,
        _ => BOARDS,
    };
    let character =
        (Figure::new(Color::srgb(0.25, 0.85, 1.0), 24.0), PathFollower::smoothed(150.0));
    spawn_map_and_player(&mut commands, &ROOM, texture_for, look, (2, 1), character);
    commands.spawn((PathStatusText, help_text(15.0)));
}
