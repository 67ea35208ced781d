//! Navigation's views (`NavViews`), as the shapes they draw: the terrain's costs as heat
//! colours on open cells only, a field's ways down, cell by cell.

use crate::tilemap::{app, spawn_text_tilemap, texture};
use bevy::prelude::*;
use bevy_tilemap_nav::plugin::{NavField, NavViews, heat_color};
use bevy_tilemap_nav::prelude::*;

const ROWS: [&str; 4] = ["....~", ".##.~", "....~", "~~..."];

fn level() -> App {
    let mut app = app();
    spawn_text_tilemap(&mut app, &ROWS, 16.0, Vec2::ZERO, texture);
    app.update();
    app
}

#[test]
fn the_terrain_view_marks_open_cells_by_their_cost_and_walls_not_at_all() {
    let app = level();
    let map = app.world().resource::<NavMaps>().first().unwrap();
    let marks = NavViews::terrain_marks(map);
    let (mut floor, mut mud) = (0, 0);
    for pos in map.grid.positions() {
        let at = map.geometry.cell_to_world(pos);
        let here: Vec<Color> = marks.iter().filter(|m| m.at == at).map(|m| m.color).collect();
        match map.grid.cost(pos) {
            None => assert!(here.is_empty(), "a wall at {pos} marked"),
            Some(1) => {
                assert_eq!(here, vec![heat_color(1, 5)], "{pos}");
                floor += 1;
            }
            Some(cost) => {
                assert_eq!(cost, 5);
                assert_eq!(here, vec![heat_color(5, 5); 2], "{pos}: dear ground marked twice");
                mud += 1;
            }
        }
    }
    assert_eq!((floor, mud), (13, 5));
    assert_eq!(marks.len(), floor + 2 * mud);
    // Cheap ground green, the dearest red, in between in between.
    let [cheap, mid, dear] = [1, 3, 5].map(|c| heat_color(c, 5).to_srgba());
    assert!(cheap.green > cheap.red && dear.red > dear.green);
    assert!(cheap.red < mid.red && mid.green > dear.green);
}

#[test]
fn the_field_view_points_each_reached_cell_to_its_next_step() {
    let mut app = level();
    let map = app.world().resource::<NavMaps>().first().unwrap().entity;
    let goal = GridPos::new(0, 0);
    let field = app.world_mut().spawn(NavField::new(map, vec![goal])).id();
    for _ in 0..3 {
        app.update();
    }
    let world = app.world();
    let map = world.resource::<NavMaps>().first().unwrap();
    let field = world.get::<NavField>(field).unwrap().field().expect("built");
    let (lines, goals) = NavViews::field_lines(map, field);
    assert_eq!(goals.len(), 1);
    assert_eq!(goals[0].at, map.geometry.cell_to_world(goal));
    let mut drawn = 0;
    for pos in map.grid.positions() {
        let at = map.geometry.cell_to_world(pos);
        let line = lines.iter().find(|l| l.from == at);
        match field.next_step(pos) {
            Some(next) => {
                let line = line.unwrap_or_else(|| panic!("no line from {pos}"));
                let way = map.geometry.cell_to_world(next) - at;
                assert!((line.to - at).normalize().distance(way.normalize()) < 1e-4, "{pos}");
                assert!(line.to.distance(at) < way.length(), "{pos}: past its next step");
                drawn += 1;
            }
            None => assert!(line.is_none(), "{pos}: a line with no way down"),
        }
    }
    assert_eq!(lines.len(), drawn);
    assert_eq!(drawn, 17, "every open cell but the goal");
}
