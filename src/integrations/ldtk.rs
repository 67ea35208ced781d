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
//! A level's entity (the one with `LevelIid`) is its map's entity ([`NavMaps::get`](
//! crate::plugin::NavMaps::get)). Levels that `bevy_ecs_ldtk` spawns and despawns (a
//! `LevelSelection` changed, a `LevelSet`) join and leave the navigation with them; agents on a
//! level that goes stop with `NavError::MapGone`. The rules are read when a level spawns: after
//! changing [`LdtkNavRules`], respawn the level (`Respawn`).

use bevy::prelude::*;
use bevy_ecs_ldtk::ldtk::Type;
use bevy_ecs_ldtk::prelude::*;
use bevy_ecs_tilemap::prelude::TileStorage;

use crate::grid::Cell;
pub use crate::io::ldtk::LdtkNavRules;
use crate::plugin::{NavLayerOf, NavSet, NavTilemap, TileNav, TileTerrain};

/// Adds the wiring of LDtk levels to the navigation (see the [module](self)).
#[derive(Default)]
pub struct LdtkNavPlugin;

impl Plugin for LdtkNavPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<LdtkNavRules>()
            .add_systems(Update, wire_int_grids.before(NavSet::SyncGrid));
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
        let wanted = rules.layers.is_empty() || rules.layers.contains(&metadata.identifier);
        if metadata.layer_instance_type != Type::IntGrid || !wanted {
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
