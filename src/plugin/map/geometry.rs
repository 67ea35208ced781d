//! Between world space and grid cells, for every map type bevy_ecs_tilemap draws (square,
//! isometric diamond and staggered, the six hexagonal layouts): [`NavGeometry`], one affine map
//! from three tile centres, and what each map type's cells are.

#[cfg(doc)]
use crate::search::AgentGrid;
use bevy::prelude::*;
use bevy_ecs_tilemap::anchor::TilemapAnchor;
use bevy_ecs_tilemap::map::{
    HexCoordSystem, IsoCoordSystem, TilemapGridSize, TilemapSize, TilemapTileSize, TilemapType,
};
use bevy_ecs_tilemap::tiles::TilePos;

use super::errors::*;
use crate::grid::{GridPos, HexCoords, Neighborhood};

/// Where a map's grid sits in the world: what world <-> cell conversion needs. Taken from the
/// map's first (oldest) layer; its `Transform` must be the world transform (a root entity).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NavGeometry {
    /// The layer tilemap it is taken from.
    pub tilemap: Entity,
    /// The tilemap's size in tiles.
    pub size: TilemapSize,
    /// Its grid size (tile spacing), in world units.
    pub grid_size: TilemapGridSize,
    /// Its tile size, in world units.
    pub tile_size: TilemapTileSize,
    /// Square, isometric or hex.
    pub map_type: TilemapType,
    /// Where the tilemap is anchored on its transform.
    pub anchor: TilemapAnchor,
    /// The tilemap's world transform.
    pub transform: Transform,
    /// On square and isometric maps, where cell centres are affine in the cell: the world
    /// centre of cell (0, 0) and the steps to cells (1, 0) and (0, 1), so that a path's
    /// points cost two multiply-adds each rather than bevy_ecs_tilemap's whole conversion.
    affine: Option<[Vec2; 3]>,
    /// World to the tilemap's local space (the transform's inverse), and the anchor's offset
    /// in that space: computed once, not per conversion.
    to_local: bevy::math::Affine3A,
    anchor_offset: Vec2,
}

/// The hex numbering of a bevy_ecs_tilemap hex coordinate system (the same six, by name).
pub fn hex_coords(system: HexCoordSystem) -> HexCoords {
    match system {
        HexCoordSystem::Row => HexCoords::Row,
        HexCoordSystem::Column => HexCoords::Column,
        HexCoordSystem::RowEven => HexCoords::RowEven,
        HexCoordSystem::RowOdd => HexCoords::RowOdd,
        HexCoordSystem::ColumnEven => HexCoords::ColumnEven,
        HexCoordSystem::ColumnOdd => HexCoords::ColumnOdd,
    }
}

/// The neighborhood a grid of this map type uses: the settings' one (4- or 8-way) on square
/// and isometric maps, six neighbours on hex maps.
pub fn neighborhood_for(map_type: TilemapType, square: Neighborhood) -> Neighborhood {
    match map_type {
        TilemapType::Hexagon(system) => Neighborhood::Hex(hex_coords(system)),
        _ if square.is_hex() => Neighborhood::Eight,
        _ => square,
    }
}

/// True for isometric staggered maps, whose tiles are a square grid sheared (see
/// [`NavGeometry::tile_to_cell`]).
#[inline]
pub(super) fn is_staggered(map_type: TilemapType) -> bool {
    map_type == TilemapType::Isometric(IsoCoordSystem::Staggered)
}

/// The grid size for a tilemap of `size` tiles of this map type, or `None` if too large.
#[inline]
pub(super) fn grid_dims(map_type: TilemapType, size: UVec2) -> Option<UVec2> {
    if is_staggered(map_type) {
        // Tile (x, y) is cell (x, x + y): the cells from row 0 to row (w - 1) + (h - 1).
        Some(UVec2::new(size.x, size.x.checked_add(size.y)? - 1))
    } else {
        Some(size)
    }
}

/// The grid cell of tile (`x`, `y`) on a map of this type.
#[inline]
pub(super) fn tile_cell(map_type: TilemapType, x: u32, y: u32) -> GridPos {
    if is_staggered(map_type) { GridPos::new(x, x + y) } else { GridPos::new(x, y) }
}

/// The tile (as a `GridPos` of tile coordinates) whose cell is `cell` on a map of this type
/// and size; `None` for a cell no tile makes (the corners of a staggered map's grid).
#[inline]
pub(super) fn cell_tile(map_type: TilemapType, size: UVec2, cell: GridPos) -> Option<GridPos> {
    let (x, y) = if is_staggered(map_type) {
        (cell.x, cell.y.checked_sub(cell.x)?)
    } else {
        (cell.x, cell.y)
    };
    (x < size.x && y < size.y).then_some(GridPos::new(x, y))
}

impl NavGeometry {
    /// The geometry of a tilemap with these components.
    pub fn new(
        tilemap: Entity,
        size: TilemapSize,
        grid_size: TilemapGridSize,
        tile_size: TilemapTileSize,
        map_type: TilemapType,
        anchor: TilemapAnchor,
        transform: Transform,
    ) -> Self {
        let to_local = transform.compute_affine().inverse();
        let anchor_offset = anchor.as_offset(&size, &grid_size, &tile_size, &map_type);
        let mut geometry = Self {
            tilemap,
            size,
            grid_size,
            tile_size,
            map_type,
            anchor,
            transform,
            affine: None,
            to_local,
            anchor_offset,
        };
        if !matches!(map_type, TilemapType::Hexagon(_)) {
            let origin = geometry.tile_center(0, 0);
            let up = geometry.tile_center(0, 1) - origin;
            let across = geometry.tile_center(1, 0) - origin;
            // On a staggered map cell (x, d) is tile (x, d - x): a step across the cells is a
            // step across the tiles and one down.
            let across = if is_staggered(map_type) { across - up } else { across };
            geometry.affine = Some([origin, across, up]);
        }
        geometry
    }

    /// The grid cell a tile is. On square, isometric diamond and hex maps that is the tile's
    /// own position. On isometric staggered maps the tiles are a square grid drawn sheared
    /// (bevy_ecs_tilemap's `StaggeredPos` to `DiamondPos`): tile (x, y) is cell (x, x + y) of
    /// a grid `width` wide and `width + height - 1` tall, so that the eight moves and jump
    /// point search work there as on a square map; the cells outside the tilemap are walls.
    pub fn tile_to_cell(&self, tile: TilePos) -> GridPos {
        tile_cell(self.map_type, tile.x, tile.y)
    }

    /// The tile a grid cell is, or `None` for a cell that is no tile of the map (see
    /// [`tile_to_cell`](Self::tile_to_cell)).
    pub fn cell_to_tile(&self, cell: GridPos) -> Option<TilePos> {
        let y = if is_staggered(self.map_type) { cell.y.checked_sub(cell.x)? } else { cell.y };
        (cell.x < self.size.x && y < self.size.y).then_some(TilePos::new(cell.x, y))
    }

    /// The cell under a world position, using bevy_ecs_tilemap's own conversion.
    pub fn world_to_cell(&self, world: Vec2) -> Result<GridPos, WorldToCellError> {
        if !world.is_finite() {
            return Err(WorldToCellError::NotFinite(world));
        }
        let local = self.to_local.transform_point3(world.extend(0.0));
        let local = local.truncate();
        if !local.is_finite() {
            // A finite point that the map's scale takes past `f32`'s range: far off the map.
            return Err(WorldToCellError::OffMap(world));
        }
        // bevy_ecs_tilemap's own conversion, with the anchor's offset taken off once here.
        let pos = local - self.anchor_offset;
        let tile = match self.map_type {
            // Its square case, written out: the most common, and called per agent per frame.
            TilemapType::Square => {
                let x = ((pos.x / self.grid_size.x) + 0.5).floor();
                let y = ((pos.y / self.grid_size.y) + 0.5).floor();
                let inside =
                    x >= 0.0 && y >= 0.0 && x < self.size.x as f32 && y < self.size.y as f32;
                inside.then(|| TilePos::new(x as u32, y as u32))
            }
            // bevy_ecs_tilemap's helpers for the other types count in integers, which a point
            // far off the map overflows (a panic in debug builds): such a point is off the map,
            // said before they are asked.
            _ if !self.near_map(pos) => None,
            _ => TilePos::from_world_pos(
                &pos,
                &self.size,
                &self.grid_size,
                &self.tile_size,
                &self.map_type,
                &TilemapAnchor::None,
            ),
        };
        tile.map(|t| self.tile_to_cell(t)).ok_or(WorldToCellError::OffMap(world))
    }

    /// True when a local point (anchor offset taken off) lies within a box round the map that
    /// holds every tile of every map type: as many tiles out as the map is wide and tall, each
    /// the largest of the grid and tile sizes.
    fn near_map(&self, local: Vec2) -> bool {
        let (grid, tile) = (self.grid_size, self.tile_size);
        let step = grid.x.abs().max(grid.y.abs()).max(tile.x.abs()).max(tile.y.abs());
        let reach = (self.size.x as f32 + self.size.y as f32 + 2.0) * step;
        reach.is_finite() && local.x.abs() <= reach && local.y.abs() <= reach
    }

    /// The lattice the map's cells lie on, for joining maps at their seams: the centre of cell
    /// (0, 0), the steps `k` cells across and `k` cells up, and `k`. On square and isometric
    /// maps the affine steps, `k` = 1; on hex maps in axial coordinates too; in offset
    /// coordinates `k` = 2 (the even cells, whose centres are affine: a map placed an odd
    /// number of lines off would shift its lines the other way, and joins nothing).
    pub(crate) fn lattice(&self) -> Option<([Vec2; 3], i32)> {
        if let Some(affine) = self.affine {
            return Some((affine, 1));
        }
        let TilemapType::Hexagon(system) = self.map_type else { return None };
        let k = match system {
            HexCoordSystem::Row | HexCoordSystem::Column => 1,
            _ => 2,
        };
        let origin = self.tile_center(0, 0);
        let across = self.tile_center(k, 0) - origin;
        let up = self.tile_center(0, k) - origin;
        Some(([origin, across, up], k as i32))
    }

    /// The world-space centre of a cell, where bevy_ecs_tilemap draws its tile (honouring the
    /// map type, the `TilemapAnchor` and the tilemap's transform).
    pub fn cell_to_world(&self, cell: GridPos) -> Vec2 {
        match self.affine {
            Some([origin, across, up]) => origin + across * cell.x as f32 + up * cell.y as f32,
            None => self.tile_center(cell.x, cell.y),
        }
    }

    /// How wide a cell is, in world units: the shorter of the steps between neighbouring
    /// cells' centres along the map's two axes (on hex maps, the shorter side of the grid
    /// size, scaled as the map is).
    pub fn cell_width(&self) -> f32 {
        match self.affine {
            Some([_, across, up]) => across.length().min(up.length()),
            None => {
                let scale = self.transform.scale.truncate().abs();
                (self.grid_size.x * scale.x).min(self.grid_size.y * scale.y)
            }
        }
    }

    /// Where the centre of an agent `size` tiles across lies from the centre of the cell
    /// where its lowest corner stands (an [`AgentGrid`]'s cell): half a body diagonally up the
    /// map's axes. Zero for size 1, and on hex maps (which take size 1 only).
    pub fn body_offset(&self, size: u32) -> Vec2 {
        match self.affine {
            Some([_, across, up]) => (across + up) * size.saturating_sub(1) as f32 / 2.0,
            None => Vec2::ZERO,
        }
    }

    /// The world-space centre of tile (`x`, `y`) through bevy_ecs_tilemap's conversion (the
    /// tile may lie off the map: centres are computed all the same).
    fn tile_center(&self, x: u32, y: u32) -> Vec2 {
        let local = TilePos::new(x, y).center_in_world(
            &self.size,
            &self.grid_size,
            &self.tile_size,
            &self.map_type,
            &self.anchor,
        );
        self.transform.transform_point(local.extend(0.0)).truncate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every map type bevy_ecs_tilemap draws.
    fn map_types() -> Vec<TilemapType> {
        let mut types = vec![
            TilemapType::Square,
            TilemapType::Isometric(IsoCoordSystem::Diamond),
            TilemapType::Isometric(IsoCoordSystem::Staggered),
        ];
        types.extend(
            [
                HexCoordSystem::Row,
                HexCoordSystem::Column,
                HexCoordSystem::RowEven,
                HexCoordSystem::RowOdd,
                HexCoordSystem::ColumnEven,
                HexCoordSystem::ColumnOdd,
            ]
            .map(TilemapType::Hexagon),
        );
        types
    }

    /// A 7 x 5 map of `map_type`, its tiles 16 x 12 (hex: 16 x 16), anchored at its centre,
    /// moved, turned and scaled.
    fn geometry(map_type: TilemapType) -> NavGeometry {
        let tile = if matches!(map_type, TilemapType::Hexagon(_)) {
            TilemapTileSize { x: 16.0, y: 16.0 }
        } else {
            TilemapTileSize { x: 16.0, y: 12.0 }
        };
        let transform = Transform::from_xyz(-40.0, 25.0, 3.0)
            .with_rotation(Quat::from_rotation_z(0.3))
            .with_scale(Vec3::new(1.5, 1.5, 1.0));
        NavGeometry::new(
            Entity::PLACEHOLDER,
            TilemapSize { x: 7, y: 5 },
            TilemapGridSize { x: tile.x, y: tile.y },
            tile,
            map_type,
            TilemapAnchor::Center,
            transform,
        )
    }

    #[test]
    fn every_tile_is_a_cell_and_back() {
        for map_type in map_types() {
            let g = geometry(map_type);
            let dims = grid_dims(map_type, UVec2::new(7, 5)).unwrap();
            let mut cells = 0;
            for x in 0..dims.x {
                for y in 0..dims.y {
                    let cell = GridPos::new(x, y);
                    match g.cell_to_tile(cell) {
                        Some(tile) => {
                            cells += 1;
                            assert_eq!(g.tile_to_cell(tile), cell, "{map_type:?}");
                            let same = cell_tile(map_type, UVec2::new(7, 5), cell);
                            assert_eq!(same, Some(GridPos::new(tile.x, tile.y)));
                        }
                        None => assert!(is_staggered(map_type), "{map_type:?}: {cell} no tile"),
                    }
                }
            }
            assert_eq!(cells, 35, "{map_type:?}: one cell a tile");
        }
    }

    #[test]
    fn a_cells_centre_is_its_tiles_centre_and_lies_in_that_cell() {
        for map_type in map_types() {
            let g = geometry(map_type);
            for x in 0..7 {
                for y in 0..5 {
                    let cell = g.tile_to_cell(TilePos::new(x, y));
                    let centre = g.cell_to_world(cell);
                    // The affine shortcut agrees with bevy_ecs_tilemap's own conversion.
                    let theirs = g.tile_center(x, y);
                    assert!(centre.distance(theirs) < 1e-3, "{map_type:?} ({x}, {y})");
                    assert_eq!(g.world_to_cell(centre), Ok(cell), "{map_type:?} ({x}, {y})");
                }
            }
        }
    }

    #[test]
    fn bad_and_far_points_are_errors_not_panics() {
        for map_type in map_types() {
            let g = geometry(map_type);
            for bad in [Vec2::NAN, Vec2::new(f32::INFINITY, 0.0), Vec2::new(0.0, f32::NEG_INFINITY)]
            {
                let said = g.world_to_cell(bad);
                assert!(
                    matches!(said, Err(WorldToCellError::NotFinite(_))),
                    "{map_type:?}: {said:?}"
                );
            }
            for far in [Vec2::splat(1e4), Vec2::splat(-3e38), Vec2::new(f32::MAX, f32::MIN)] {
                assert_eq!(
                    g.world_to_cell(far),
                    Err(WorldToCellError::OffMap(far)),
                    "{map_type:?}"
                );
            }
        }
    }

    #[test]
    fn a_staggered_grid_is_sheared_and_its_corners_are_no_tile() {
        let dims = grid_dims(TilemapType::Isometric(IsoCoordSystem::Staggered), UVec2::new(7, 5));
        assert_eq!(dims, Some(UVec2::new(7, 11)));
        assert_eq!(
            grid_dims(TilemapType::Isometric(IsoCoordSystem::Staggered), UVec2::new(u32::MAX, 2)),
            None
        );
        let staggered = TilemapType::Isometric(IsoCoordSystem::Staggered);
        assert_eq!(tile_cell(staggered, 3, 2), GridPos::new(3, 5));
        assert_eq!(cell_tile(staggered, UVec2::new(7, 5), GridPos::new(3, 2)), None);
        assert_eq!(cell_tile(staggered, UVec2::new(7, 5), GridPos::new(0, 5)), None);
    }

    #[test]
    fn hex_maps_take_six_neighbours_whatever_the_settings_say() {
        let hex = TilemapType::Hexagon(HexCoordSystem::ColumnOdd);
        assert_eq!(
            neighborhood_for(hex, Neighborhood::Four),
            Neighborhood::Hex(HexCoords::ColumnOdd)
        );
        assert_eq!(neighborhood_for(TilemapType::Square, Neighborhood::Four), Neighborhood::Four);
        let hex_setting = Neighborhood::Hex(HexCoords::Row);
        assert_eq!(neighborhood_for(TilemapType::Square, hex_setting), Neighborhood::Eight);
    }

    #[test]
    fn a_body_is_centred_half_its_size_up_the_axes() {
        let g = geometry(TilemapType::Square);
        assert_eq!(g.body_offset(1), Vec2::ZERO);
        let two = g.body_offset(2);
        let expected =
            (g.cell_to_world(GridPos::new(1, 1)) - g.cell_to_world(GridPos::new(0, 0))) / 2.0;
        assert!(two.distance(expected) < 1e-4);
        assert_eq!(geometry(TilemapType::Hexagon(HexCoordSystem::Row)).body_offset(3), Vec2::ZERO);
    }
}
