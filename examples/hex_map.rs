//! A hex strategy map: a unit crosses grassland, forest and shallow water, around mountains,
//! along the cheapest path over six-sided tiles (bevy_ecs_tilemap's `Hexagon(RowOdd)` map).
//!
//! ```text
//! cargo run --example hex_map
//! ```
//!
//! Left click: move the unit there. Right click: raise or flatten a mountain (the unit plans
//! again at once if its way is cut). Grass costs 1 to enter, forest 3, water 5; mountains block.

mod common;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_tilemap_nav::prelude::*;
use common::*;

const GRASS: u32 = 0;
const FOREST: u32 = 1;
const WATER: u32 = 2;
const MOUNTAIN: u32 = 3;

/// Hexagons of this size in pixels (pointy top: a little taller than wide).
const HEX_W: u32 = 30;
const HEX_H: u32 = 34;

/// The map, top row first: `.` grass, `f` forest, `~` water, `^` mountain.
const MAP: [&str; 15] = [
    "..........ff^^........",
    "...ff....fff^^..~~~...",
    "..ffff...ff.^...~~~~..",
    "..fff.......^^...~~~..",
    "............^^....~...",
    ".....~~~.....^........",
    "....~~~~~....^^..fff..",
    "....~~~~.....^^.ffff..",
    ".....~~......^..fff...",
    "..........^^^^........",
    "..ff.....^^......~~...",
    ".fff............~~~~..",
    ".fff.....ff.....~~~...",
    "..f.....ffff..........",
    "........fff...........",
];

fn main() {
    game_app("bevy_tilemap_nav: hex map")
        .insert_resource(
            TileRules::default()
                .with(FOREST, Cell::Passable { cost: 3 })
                .with(WATER, Cell::Passable { cost: 5 })
                .with(MOUNTAIN, Cell::Blocked),
        )
        .insert_resource(RightClickToggle { on: MOUNTAIN, off: GRASS, fixed: Vec::new() })
        .insert_resource(PathStatus {
            help: "Left click: move the unit   Right click: raise / flatten a mountain\nGrass costs 1, forest 3, water 5; mountains block.",
            describe: |path| {
                format!(
                    "{} hexes, cost {:.0}, {} hexes searched in {:.0} us",
                    path.cells.len(),
                    path.cost,
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

/// One hexagon of the tileset: inside the pointy-top hexagon filling the tile, or `None`.
fn hex_pixel(tile: u32, x: u32, y: u32) -> Option<[u8; 3]> {
    let (dx, dy) =
        ((x as f32 + 0.5 - HEX_W as f32 / 2.0).abs(), (y as f32 + 0.5 - HEX_H as f32 / 2.0).abs());
    let (half_w, radius) = (HEX_W as f32 / 2.0, HEX_H as f32 / 2.0);
    let edge = radius - 0.5 * radius * dx / half_w;
    if dx > half_w || dy > edge {
        return None;
    }
    let rim = dx > half_w - 1.5 || dy > edge - 1.5;
    let n = i32::from(noise(x, y, tile)) / 20 - 6;
    let rgb = match tile {
        GRASS => shade([96, 150, 70], n),
        FOREST => {
            // Little round trees.
            let tree = [(9, 12), (20, 11), (14, 21), (22, 22)]
                .iter()
                .any(|&(tx, ty): &(i32, i32)| (x as i32 - tx).pow(2) + (y as i32 - ty).pow(2) < 14);
            if tree { shade([34, 92, 40], n) } else { shade([80, 128, 60], n) }
        }
        WATER => {
            let wave = (x + 2 * (y / 5)).is_multiple_of(9) && y % 5 == 2;
            if wave { [170, 210, 235] } else { shade([60, 120, 190], n / 2) }
        }
        _ => {
            // A grey peak with a snowy top.
            let peak = dy < 13.0 - dx * 0.9 || (y as f32) > HEX_H as f32 / 2.0 - dx * 0.2;
            if (y as f32) < 11.0 && dx < 4.0 {
                [235, 235, 240]
            } else if peak {
                shade([120, 112, 108], n)
            } else {
                shade([150, 140, 120], n)
            }
        }
    };
    Some(if rim { shade(rgb, -35) } else { rgb })
}

fn setup(mut commands: Commands, mut images: ResMut<Assets<Image>>) {
    spawn_camera(&mut commands);
    let look = MapLook {
        map_type: TilemapType::Hexagon(HexCoordSystem::RowOdd),
        // Rows of pointy-top hexagons overlap by a quarter of their height.
        grid_size: TilemapGridSize { x: HEX_W as f32, y: HEX_W as f32 },
        tile_size: TilemapTileSize { x: HEX_W as f32, y: HEX_H as f32 },
        texture: images.add(tileset(HEX_W, HEX_H, 4, hex_pixel)),
    };
    let texture_for = |c| match c {
        'f' => FOREST,
        '~' => WATER,
        '^' => MOUNTAIN,
        _ => GRASS,
    };
    let unit = (Figure::new(Color::srgb(0.95, 0.25, 0.2), 20.0), PathFollower::new(120.0));
    spawn_map_and_player(&mut commands, &MAP, texture_for, look, (2, 7), unit);
    commands.spawn((PathStatusText, help_text(15.0)));
}
