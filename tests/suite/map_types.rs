//! Every tilemap type bevy_ecs_tilemap draws (square, isometric diamond and staggered, hex in
//! its six coordinate systems), with two anchors, in a headless `App`: world <-> cell through
//! bevy_ecs_tilemap's own conversions, neighbours as bevy_ecs_tilemap's helpers give them, and
//! an agent walking around a wall to a goal's centre.

use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_ecs_tilemap::helpers::hex_grid::neighbors::HexNeighbors;
use bevy_ecs_tilemap::helpers::square_grid::neighbors::Neighbors;
use bevy_ecs_tilemap::prelude::*;
use bevy_tilemap_nav::grid::{CornerRule, HexCoords, Neighborhood};
use bevy_tilemap_nav::io::baked::BakeError;
use bevy_tilemap_nav::plugin::WorkBudget;
use bevy_tilemap_nav::plugin::{
    BakedNavGrid, NavGeometry, NavLayerOf, TilemapNavError, TilemapNavWarning, WorldToCellError,
};
use bevy_tilemap_nav::prelude::*;

const FLOOR: u32 = 0;
const WALL: u32 = 1;

fn map_types() -> Vec<TilemapType> {
    let mut types = vec![
        TilemapType::Square,
        TilemapType::Isometric(IsoCoordSystem::Diamond),
        TilemapType::Isometric(IsoCoordSystem::Staggered),
    ];
    types.extend(crate::tilemap::HEX_SYSTEMS.map(TilemapType::Hexagon));
    types
}

/// Grid and tile sizes that look right for each type (hexagons a little taller than wide for
/// rows, wider than tall for columns; isometric tiles twice as wide as tall).
fn sizes(map_type: TilemapType) -> (TilemapGridSize, TilemapTileSize) {
    let (x, y) = match map_type {
        TilemapType::Square => (16.0, 16.0),
        TilemapType::Isometric(_) => (32.0, 16.0),
        TilemapType::Hexagon(
            HexCoordSystem::Row | HexCoordSystem::RowEven | HexCoordSystem::RowOdd,
        ) => (14.0, 16.0),
        TilemapType::Hexagon(_) => (16.0, 14.0),
    };
    (TilemapGridSize { x, y }, TilemapTileSize { x, y })
}

fn app() -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .add_plugins(TilemapNavPlugin::with_settings(NavSettings {
            work: WorkBudget { time: None, ..default() },
            ..NavSettings::default()
        }))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(16)))
        .insert_resource(TileRules::default().with(WALL, Cell::Blocked));
    app
}

/// A tilemap of `rows` (tile row y = index, `#` wall, `.` floor), with this type and anchor,
/// placed away from the origin.
fn spawn_map(app: &mut App, rows: &[&str], map_type: TilemapType, anchor: TilemapAnchor) -> Entity {
    let size = TilemapSize { x: rows[0].len() as u32, y: rows.len() as u32 };
    let world = app.world_mut();
    let tilemap = world.spawn_empty().id();
    let mut storage = TileStorage::empty(size);
    for (y, line) in rows.iter().enumerate() {
        for (x, c) in line.chars().enumerate() {
            let pos = TilePos { x: x as u32, y: y as u32 };
            let texture = if c == '#' { WALL } else { FLOOR };
            let tile = world.spawn((pos, TilemapId(tilemap), TileTextureIndex(texture))).id();
            storage.set(&pos, tile);
        }
    }
    let (grid_size, tile_size) = sizes(map_type);
    world.entity_mut(tilemap).insert((
        storage,
        size,
        grid_size,
        tile_size,
        map_type,
        anchor,
        Transform::from_xyz(40.0, -25.0, 0.0),
        NavTilemap,
    ));
    tilemap
}

const ROWS: [&str; 7] =
    [".........", ".........", "....#....", "....#....", "....#....", ".........", "........."];

#[test]
fn every_tile_centre_and_every_point_inside_an_edge_maps_to_its_tile() {
    for map_type in map_types() {
        for anchor in [TilemapAnchor::None, TilemapAnchor::Center] {
            let mut app = app();
            spawn_map(&mut app, &ROWS, map_type, anchor);
            app.update();
            let geometry = app.world().resource::<NavMaps>().first().unwrap().geometry;
            let grid = &app.world().resource::<NavMaps>().first().unwrap().grid;
            let open = grid.clone();
            let mut checked = 0;
            for y in 0..ROWS.len() as u32 {
                for x in 0..ROWS[0].len() as u32 {
                    let tile = TilePos::new(x, y);
                    let cell = geometry.tile_to_cell(tile);
                    assert_eq!(geometry.cell_to_tile(cell), Some(tile), "{map_type:?}");
                    let centre = geometry.cell_to_world(cell);
                    // The tile's centre as bevy_ecs_tilemap draws it, placed by the transform.
                    let (grid_size, tile_size) = sizes(map_type);
                    let size = TilemapSize { x: 9, y: 7 };
                    let drawn = tile
                        .center_in_world(&size, &grid_size, &tile_size, &map_type, &anchor)
                        + Vec2::new(40.0, -25.0);
                    assert!(centre.distance(drawn) < 1e-3, "{map_type:?} {anchor:?} {tile:?}");
                    assert_eq!(geometry.world_to_cell(centre), Ok(cell), "{map_type:?} {anchor:?}");
                    // Towards each neighbour: 45% of the way is still this tile, 55% is the
                    // neighbour's (past the shared edge or corner).
                    let neighbours: Vec<GridPos> = open_neighbours(&open, &geometry, cell);
                    assert!(!neighbours.is_empty());
                    for n in neighbours {
                        let there = geometry.cell_to_world(n);
                        let inside = centre.lerp(there, 0.45);
                        assert_eq!(
                            geometry.world_to_cell(inside),
                            Ok(cell),
                            "{map_type:?} {anchor:?}: {cell} towards {n}"
                        );
                        let across = centre.lerp(there, 0.55);
                        assert_eq!(
                            geometry.world_to_cell(across),
                            Ok(n),
                            "{map_type:?} {anchor:?}"
                        );
                        checked += 1;
                    }
                }
            }
            assert!(checked > 100);
            // Off the map and NaN: typed errors.
            let far = geometry.cell_to_world(geometry.tile_to_cell(TilePos::new(0, 0)))
                - Vec2::new(500.0, 500.0);
            assert_eq!(geometry.world_to_cell(far), Err(WorldToCellError::OffMap(far)));
            assert!(matches!(
                geometry.world_to_cell(Vec2::new(f32::NAN, 0.0)),
                Err(WorldToCellError::NotFinite(_))
            ));
        }
    }
}

/// The cells one step from `cell` that are tiles of the map, whatever their walls.
fn open_neighbours(grid: &NavGrid, geometry: &NavGeometry, cell: GridPos) -> Vec<GridPos> {
    let mut all = grid.clone();
    for pos in grid.positions().collect::<Vec<_>>() {
        if geometry.cell_to_tile(pos).is_some() {
            let _ = all.set(pos, Cell::GROUND);
        }
    }
    all.neighbors(cell).map(|(n, _)| n).collect()
}

/// With corner cutting allowed, the moves out of every tile of an open map are exactly
/// bevy_ecs_tilemap's neighbours, edges included. Without it (the default), a diagonal that
/// would graze the map's edge (a side cell off the map, a wall like any other) is refused:
/// the moves are then a subset, and the same everywhere a tile's side cells are on the map.
#[test]
fn neighbours_agree_with_bevy_ecs_tilemap_helpers_on_every_cell() {
    for corner_rule in [CornerRule::CutCorners, CornerRule::NoCornerCutting] {
        for map_type in map_types() {
            check_neighbours(map_type, corner_rule);
        }
    }
}

fn check_neighbours(map_type: TilemapType, corner_rule: CornerRule) {
    {
        let mut app = app();
        app.world_mut().resource_mut::<NavSettings>().corner_rule = corner_rule;
        let rows = [".......", ".......", ".......", ".......", "......."];
        spawn_map(&mut app, &rows, map_type, TilemapAnchor::None);
        app.update();
        let geometry = app.world().resource::<NavMaps>().first().unwrap().geometry;
        let grid = &app.world().resource::<NavMaps>().first().unwrap().grid;
        let size = TilemapSize { x: 7, y: 5 };
        let mut refused = 0;
        for y in 0..size.y {
            for x in 0..size.x {
                let tile = TilePos::new(x, y);
                let mut ours: Vec<TilePos> = grid
                    .neighbors(geometry.tile_to_cell(tile))
                    .map(|(n, _)| geometry.cell_to_tile(n).expect("a neighbour on the map"))
                    .collect();
                let mut theirs: Vec<TilePos> = match map_type {
                    TilemapType::Hexagon(system) => {
                        HexNeighbors::get_neighboring_positions(&tile, &size, &system)
                            .iter()
                            .copied()
                            .collect()
                    }
                    TilemapType::Isometric(IsoCoordSystem::Staggered) => {
                        Neighbors::get_staggered_neighboring_positions(&tile, &size, true)
                            .iter()
                            .copied()
                            .collect()
                    }
                    _ => Neighbors::get_square_neighboring_positions(&tile, &size, true)
                        .iter()
                        .copied()
                        .collect(),
                };
                let key = |t: &TilePos| (t.x, t.y);
                ours.sort_by_key(key);
                theirs.sort_by_key(key);
                let interior = x > 0 && y > 0 && x + 1 < size.x && y + 1 < size.y;
                if corner_rule == CornerRule::CutCorners || interior {
                    assert_eq!(ours, theirs, "{map_type:?} {corner_rule:?} at {tile:?}");
                } else {
                    assert!(ours.iter().all(|t| theirs.contains(t)), "{map_type:?} at {tile:?}");
                    refused += theirs.len() - ours.len();
                }
            }
        }
        // Only the sheared staggered grid has off-map cells beside on-map diagonals.
        let staggered = map_type == TilemapType::Isometric(IsoCoordSystem::Staggered);
        assert_eq!(refused > 0, staggered && corner_rule == CornerRule::NoCornerCutting);
        match map_type {
            TilemapType::Hexagon(_) => assert!(grid.neighborhood().is_hex()),
            _ => assert_eq!(grid.neighborhood(), Neighborhood::Eight),
        }
    }
}

#[test]
fn an_agent_walks_round_a_wall_on_every_map_type() {
    for map_type in map_types() {
        for anchor in [TilemapAnchor::None, TilemapAnchor::Center] {
            for smooth in [false, true] {
                let mut app = app();
                spawn_map(&mut app, &ROWS, map_type, anchor);
                app.update();
                let geometry = app.world().resource::<NavMaps>().first().unwrap().geometry;
                let (start, goal) = (TilePos::new(1, 3), TilePos::new(7, 3));
                let (start, goal) = (geometry.tile_to_cell(start), geometry.tile_to_cell(goal));
                let follower =
                    if smooth { PathFollower::smoothed(120.0) } else { PathFollower::new(120.0) };
                let agent = app
                    .world_mut()
                    .spawn((
                        Transform::from_translation(geometry.cell_to_world(start).extend(1.0)),
                        follower,
                        PathRequest::to(goal),
                    ))
                    .id();
                let mut arrived = false;
                let mut wall_side_seen = false;
                for _ in 0..600 {
                    app.update();
                    let at = app.world().get::<Transform>(agent).unwrap().translation.truncate();
                    let cell = geometry.world_to_cell(at).expect("agent on the map");
                    let tile = geometry.cell_to_tile(cell).expect("agent on a tile");
                    assert!(
                        app.world().resource::<NavMaps>().first().unwrap().grid.is_passable(cell),
                        "{map_type:?} {anchor:?}: agent in the wall at {tile:?}"
                    );
                    // Going round the wall (rows 2 to 4 of column 4) means passing row 1 or 5.
                    wall_side_seen |= tile.y <= 1 || tile.y >= 5;
                    let messages = app.world().resource::<Messages<Arrived>>();
                    if messages.iter_current_update_messages().any(|a| a.entity == agent) {
                        arrived = true;
                        break;
                    }
                }
                assert!(arrived, "{map_type:?} {anchor:?} smooth {smooth}: never arrived");
                assert!(wall_side_seen, "{map_type:?}: did not go round the wall");
                let at = app.world().get::<Transform>(agent).unwrap().translation.truncate();
                assert!(at.distance(geometry.cell_to_world(goal)) < 1e-3, "{map_type:?}");
            }
        }
    }
}

#[test]
fn a_layer_of_another_map_type_is_left_out_and_the_grid_follows_the_first_layer() {
    let mut app = app();
    let rows = ["....", "...."];
    let first = spawn_map(&mut app, &rows, TilemapType::Square, TilemapAnchor::None);
    app.update();
    let hex = TilemapType::Hexagon(HexCoordSystem::RowOdd);
    let second = spawn_map(&mut app, &["####", "####"], hex, TilemapAnchor::None);
    app.update();
    // Left to the default rule, a hex tilemap over a square one is another map.
    let maps = app.world().resource::<NavMaps>();
    assert_eq!(maps.len(), 2);
    assert_eq!(maps.get(second).unwrap().grid.neighborhood(), Neighborhood::Hex(HexCoords::RowOdd));
    // Said to be layers of one map, the hex one is left out.
    app.world_mut().entity_mut(first).insert(NavLayerOf(first));
    app.world_mut().entity_mut(second).insert((NavLayerOf(first), hex));
    app.update();
    let warnings: Vec<TilemapNavWarning> = app
        .world()
        .resource::<Messages<TilemapNavWarning>>()
        .iter_current_update_messages()
        .cloned()
        .collect();
    assert_eq!(
        warnings,
        vec![TilemapNavWarning {
            error: TilemapNavError::MapTypeMismatch {
                tilemap: second,
                expected: TilemapType::Square,
                found: hex
            }
        }]
    );
    // The walls of the left-out layer are not in the grid.
    assert_eq!(app.world().resource::<NavMaps>().first().unwrap().grid.passable_count(), 8);
    // The first layer turns hexagonal: the grid follows it, and the second layer now fits.
    app.world_mut().entity_mut(first).insert(hex);
    app.update();
    app.update();
    let grid = &app.world().resource::<NavMaps>().first().unwrap().grid;
    assert_eq!(grid.neighborhood(), Neighborhood::Hex(HexCoords::RowOdd));
    assert_eq!(grid.passable_count(), 0, "both layers now combine");
    // Staggered: the grid is the sheared square grid, w x (w + h - 1).
    app.world_mut().entity_mut(second).despawn();
    app.world_mut().entity_mut(first).insert(TilemapType::Isometric(IsoCoordSystem::Staggered));
    app.update();
    let grid = &app.world().resource::<NavMaps>().first().unwrap().grid;
    assert_eq!((grid.width(), grid.height()), (4, 5));
    assert_eq!(grid.passable_count(), 8);
    assert_eq!(grid.neighborhood(), Neighborhood::Eight);
}

#[test]
fn a_hex_bake_on_a_square_map_is_a_typed_error() {
    let mut app = app();
    let hex_bake = NavGrid::new(4, 2).unwrap().with_neighborhood(Neighborhood::Hex(HexCoords::Row));
    app.insert_resource(BakedNavGrid(hex_bake));
    spawn_map(&mut app, &["....", "...."], TilemapType::Square, TilemapAnchor::None);
    app.update();
    let refused =
        app.world().resource::<Messages<TilemapNavWarning>>().iter_current_update_messages().any(
            |w| {
                w.error
                    == TilemapNavError::Baked(BakeError::TopologyMismatch {
                        expected: Neighborhood::Eight,
                        found: Neighborhood::Hex(HexCoords::Row),
                    })
            },
        );
    assert!(refused, "the hex bake should be refused with TopologyMismatch");
    // The tiles were scanned instead: a square grid.
    assert_eq!(
        app.world().resource::<NavMaps>().first().unwrap().grid.neighborhood(),
        Neighborhood::Eight
    );
    // The matching bake is taken.
    let mut app = app_with_bake(
        NavGrid::new(4, 2).unwrap().with_neighborhood(Neighborhood::Hex(HexCoords::Row)),
    );
    spawn_map(
        &mut app,
        &["....", "...."],
        TilemapType::Hexagon(HexCoordSystem::Row),
        TilemapAnchor::None,
    );
    app.update();
    assert!(
        app.world()
            .resource::<Messages<TilemapNavWarning>>()
            .iter_current_update_messages()
            .next()
            .is_none()
    );
}

fn app_with_bake(grid: NavGrid) -> App {
    let mut app = app();
    app.insert_resource(BakedNavGrid(grid));
    app
}
