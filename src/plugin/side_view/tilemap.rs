//! Side-view levels from bevy_ecs_tilemap tilemaps: [`SideViewTilemap`] on a tilemap, and
//! [`SideViewRules`] for what its textures are.

use std::collections::HashMap;

use bevy::prelude::*;
use bevy_ecs_tilemap::anchor::TilemapAnchor;
use bevy_ecs_tilemap::prelude::*;

use super::level::SideViewLevel;
use crate::grid::GridPos;
use crate::side_view::{SideTile, SideViewMap};

/// Put on a square bevy_ecs_tilemap tilemap (the entity with the `TileStorage`) to make it a
/// side-view level: the plugin puts a [`SideViewLevel`] on the same entity, its tiles read from
/// the tiles' textures by [`SideViewRules`] (a tile with no texture rule, or no tile, is air),
/// and follows texture changes. (Not [`NavTilemap`](crate::plugin::NavTilemap): that makes a
/// top-down map.)
#[derive(Component, Clone, Copy, Debug, Default, Reflect)]
#[reflect(Component, Default)]
pub struct SideViewTilemap;

/// What each texture index of a [`SideViewTilemap`] is: solid, ladder, one-way platform
/// (others are air). A resource the game inserts; with none, every texture is air.
///
/// ```
/// use bevy_tilemap_nav::plugin::SideViewRules;
/// use bevy_tilemap_nav::side_view::SideTile;
///
/// let rules = SideViewRules::default().with(0, SideTile::Solid).with(3, SideTile::Ladder);
/// assert_eq!(rules.tile(3), SideTile::Ladder);
/// assert_eq!(rules.tile(7), SideTile::Empty);
/// ```
#[derive(Resource, Clone, Debug, Default, PartialEq)]
pub struct SideViewRules {
    textures: HashMap<u32, SideTile>,
}

impl SideViewRules {
    /// Texture `index` is `tile`.
    pub fn with(mut self, index: u32, tile: SideTile) -> Self {
        self.textures.insert(index, tile);
        self
    }

    /// What texture `index` is.
    pub fn tile(&self, index: u32) -> SideTile {
        self.textures.get(&index).copied().unwrap_or_default()
    }
}

type NewTilemaps<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static TileStorage,
        &'static TilemapSize,
        &'static TilemapGridSize,
        &'static TilemapTileSize,
        &'static TilemapType,
        Option<&'static TilemapAnchor>,
    ),
    Added<SideViewTilemap>,
>;

/// Makes the levels of new side-view tilemaps, and follows their tiles' texture changes.
pub(crate) fn sync_tilemaps(
    mut commands: Commands,
    rules: Option<Res<SideViewRules>>,
    new: NewTilemaps,
    textures: Query<&TileTextureIndex>,
    changed: Query<(&TilePos, &TileTextureIndex, &TilemapId), Changed<TileTextureIndex>>,
    mut levels: Query<&mut SideViewLevel, With<SideViewTilemap>>,
) {
    let none = SideViewRules::default();
    let rules = rules.as_deref().unwrap_or(&none);
    for (entity, storage, size, grid, tile_size, map_type, anchor) in &new {
        let Ok(mut map) = SideViewMap::new(size.x, size.y) else {
            continue;
        };
        for y in 0..size.y {
            for x in 0..size.x {
                let index = storage.get(&TilePos { x, y }).and_then(|t| textures.get(t).ok());
                if let Some(index) = index {
                    // On the map: x and y are within its size.
                    let _ = map.set(GridPos::new(x, y), rules.tile(index.0));
                }
            }
        }
        let anchor = anchor.copied().unwrap_or_default();
        let mut level = SideViewLevel::new(map, Vec2::new(grid.x, grid.y));
        level.origin =
            TilePos { x: 0, y: 0 }.center_in_world(size, grid, tile_size, map_type, &anchor);
        commands.entity(entity).insert(level);
    }
    for (pos, index, tilemap) in &changed {
        if let Ok(mut level) = levels.get_mut(tilemap.0) {
            let _ = level.set(GridPos::new(pos.x, pos.y), rules.tile(index.0));
        }
    }
}
