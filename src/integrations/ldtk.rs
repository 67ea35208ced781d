//! Worlds drawn in [LDtk](https://ldtk.io/) and loaded by `bevy_ecs_ldtk`: every level is a
//! navigation map of its own, made of its IntGrid layers, whose values say which cells block or
//! cost what.
//!
//! Add [`LdtkNavPlugin`] beside `bevy_ecs_ldtk`'s `LdtkPlugin` and
//! [`TilemapNavPlugin`](crate::plugin::TilemapNavPlugin), and say what the IntGrid values mean
//! in [`LdtkNavRules`] (unlisted values, and cells with no value, are ground):
//!
//! ```
//! use bevy_tilemap_nav::grid::{Cell, Terrain};
//! use bevy_tilemap_nav::integrations::ldtk::LdtkNavRules;
//!
//! let rules = LdtkNavRules::default()
//!     .with(1, Cell::Blocked)                     // wall
//!     .with(2, Cell::Passable { cost: 3 })        // bushes
//!     .with(3, Cell::Blocked)
//!     .with_terrain(3, Terrain(1));               // water: boats' profiles read it
//! assert_eq!(rules.cell(1), Cell::Blocked);
//! assert_eq!(rules.cell(0), Cell::GROUND);
//! ```
//!
//! With [`LdtkNavRules::as_side_view`], levels are side-view levels instead (a
//! platformer's): a [`SideViewLevel`] on each level's entity, each IntGrid value's tile by
//! [`LdtkNavRules::side_tile`] (solid unless [`LdtkNavRules::with_side`] says otherwise).
//!
//! A level's entity (the one with `LevelIid`) is its map's entity ([`NavMaps::get`](
//! crate::plugin::NavMaps::get)). Levels that `bevy_ecs_ldtk` spawns and despawns (a
//! `LevelSelection` changed, a `LevelSet`) join and leave the navigation with them; agents on a
//! level that goes stop with `NavError::MapGone`. The rules are read when a level spawns: after
//! changing [`LdtkNavRules`], respawn the level (`Respawn`).

use bevy::prelude::*;
use bevy_ecs_ldtk::ldtk::Type;
use bevy_ecs_ldtk::prelude::*;
use bevy_ecs_tilemap::anchor::TilemapAnchor;
use bevy_ecs_tilemap::prelude::*;

use crate::grid::{Cell, GridPos};
pub use crate::io::ldtk::LdtkNavRules;
use crate::plugin::{NavLayerOf, NavSet, NavTilemap, SideViewLevel, TileNav, TileTerrain};
use crate::side_view::SideViewMap;

/// Adds the wiring of LDtk levels to the navigation (see the [module](self)).
#[derive(Default)]
pub struct LdtkNavPlugin;

impl Plugin for LdtkNavPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<LdtkNavRules>()
            .add_systems(Update, (wire_int_grids, side_view_levels).before(NavSet::SyncGrid));
    }
}

type NewLayers<'w, 's> = Query<
    'w,
    's,
    (Entity, &'static LayerMetadata, &'static TileStorage, &'static ChildOf),
    (Added<LayerMetadata>, Without<NavTilemap>),
>;

/// Marks the IntGrid layers of newly spawned levels as layers of their level's map, and gives
/// each of their tiles its cell and terrain class from its IntGrid value.
fn wire_int_grids(
    mut commands: Commands,
    rules: Res<LdtkNavRules>,
    new_layers: NewLayers,
    cells: Query<&IntGridCell>,
) {
    for (layer, metadata, storage, level) in &new_layers {
        let wanted = rules.navigates(&metadata.identifier);
        if metadata.layer_instance_type != Type::IntGrid || !wanted || rules.side_view {
            continue;
        }
        commands.entity(layer).insert((NavTilemap, NavLayerOf(level.parent())));
        for tile in storage.iter().flatten() {
            let value = cells.get(*tile).map_or(0, |cell| cell.value);
            let nav = match rules.cell(value) {
                Cell::Blocked => TileNav::Blocked,
                Cell::Passable { cost } => TileNav::Cost(cost),
            };
            commands.entity(*tile).insert(nav);
            if let Some(&terrain) = rules.terrain.get(&value) {
                commands.entity(*tile).insert(TileTerrain(terrain));
            }
        }
    }
}

type NewSideLayers<'w, 's> = Query<
    'w,
    's,
    (
        &'static LayerMetadata,
        &'static TileStorage,
        &'static ChildOf,
        &'static Transform,
        &'static TilemapSize,
        &'static TilemapGridSize,
        &'static TilemapTileSize,
        &'static TilemapType,
        Option<&'static TilemapAnchor>,
    ),
    Added<LayerMetadata>,
>;

/// With [`LdtkNavRules::side_view`], makes each new level a [`SideViewLevel`] (on the level's
/// entity) of its IntGrid layers, each value's tile by [`LdtkNavRules::side_tile`], the
/// layers stacked (solid over ladder over one-way platform over air); tile (0, 0) where
/// bevy_ecs_ldtk draws it.
fn side_view_levels(
    mut commands: Commands,
    rules: Res<LdtkNavRules>,
    new_layers: NewSideLayers,
    cells: Query<&IntGridCell>,
) {
    if !rules.side_view {
        return;
    }
    // (level, its tiles, a tile's size, tile (0, 0)'s centre from the level)
    let mut made: Vec<(Entity, SideViewMap, Vec2, Vec2)> = Vec::new();
    for (metadata, storage, level, transform, size, grid, tile_size, map_type, anchor) in
        &new_layers
    {
        let wanted = rules.navigates(&metadata.identifier);
        if metadata.layer_instance_type != Type::IntGrid || !wanted {
            continue;
        }
        let index = match made.iter().position(|m| m.0 == level.parent()) {
            Some(i) => i,
            None => {
                let Ok(map) = SideViewMap::new(size.x, size.y) else { continue };
                let anchor = anchor.copied().unwrap_or_default();
                let centre = TilePos { x: 0, y: 0 }
                    .center_in_world(size, grid, tile_size, map_type, &anchor);
                let origin = transform.translation.truncate() + centre;
                made.push((level.parent(), map, Vec2::new(grid.x, grid.y), origin));
                made.len() - 1
            }
        };
        let side = &mut made[index].1;
        for (x, y) in (0..size.y).flat_map(|y| (0..size.x).map(move |x| (x, y))) {
            let tile = storage.get(&TilePos { x, y });
            let value = tile.and_then(|t| cells.get(t).ok()).map_or(0, |cell| cell.value);
            let pos = GridPos::new(x, y);
            // On the level (within its size; a layer of another size is cut to the first's).
            let _ = side.set(pos, side.tile(pos).stacked(rules.side_tile(value)));
        }
    }
    for (level, map, tile, origin) in made {
        let mut side = SideViewLevel::new(map, tile);
        side.origin = origin;
        commands.entity(level).insert(side);
    }
}
