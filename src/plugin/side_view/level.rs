//! A side-view level on an entity: its tiles, where they lie, and the moves of each profile
//! that plans on it, kept in step with tile changes.

use bevy::prelude::*;

use crate::grid::GridPos;
use crate::side_view::{JumpProfile, SideTile, SideViewError, SideViewMap, SideViewMoves};

/// A side-view level (a platformer's map) on an entity: its tiles, and where they lie: tile
/// (0, 0) is centred on the entity's `Transform` (plus `origin`), each tile `tile_size`
/// large, row 0 at the bottom. Change tiles with [`set`](Self::set): the moves of every
/// character are made again near the changed tiles before the next plan, and characters whose
/// way crosses a change plan again.
///
/// ```
/// # use bevy::prelude::*;
/// use bevy_tilemap_nav::plugin::SideViewLevel;
/// use bevy_tilemap_nav::side_view::SideViewMap;
///
/// fn level(mut commands: Commands) {
///     let map = SideViewMap::from_rows(&["......", "..--..", "######"]).unwrap();
///     commands.spawn((SideViewLevel::new(map, Vec2::splat(16.0)), Transform::default()));
/// }
/// ```
#[derive(Component)]
pub struct SideViewLevel {
    map: SideViewMap,
    /// A tile's size in the world.
    pub tile_size: Vec2,
    /// Where tile (0, 0)'s centre lies from the entity's position.
    pub origin: Vec2,
    pending: Vec<GridPos>,
    changes: u64,
    /// `changes` when the characters standing on the level were last checked.
    pub(crate) settled: u64,
    moves: Vec<SideViewMoves>,
}

impl SideViewLevel {
    /// A level of these tiles, `tile_size` large in the world.
    pub fn new(map: SideViewMap, tile_size: Vec2) -> Self {
        Self {
            map,
            tile_size,
            origin: Vec2::ZERO,
            pending: Vec::new(),
            changes: 0,
            settled: 0,
            moves: Vec::new(),
        }
    }

    /// The tiles.
    pub fn map(&self) -> &SideViewMap {
        &self.map
    }

    /// Sets a tile. Errors: off the map.
    pub fn set(&mut self, pos: GridPos, tile: SideTile) -> Result<(), SideViewError> {
        let (width, height) = (self.map.width(), self.map.height());
        if pos.x >= width || pos.y >= height {
            return Err(SideViewError::OutOfBounds { pos, width, height });
        }
        if self.map.tile(pos) != tile {
            self.map.set(pos, tile)?;
            self.pending.push(pos);
        }
        Ok(())
    }

    /// How many times the tiles changed (counted once a frame): walkers compare it with what
    /// they planned on.
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// The moves of `profile` on the level, made on first use. Errors: the profile's numbers,
    /// a body larger than the level.
    pub fn moves_for(&mut self, profile: &JumpProfile) -> Result<&SideViewMoves, SideViewError> {
        self.in_step(profile).map(|(moves, _)| moves)
    }

    /// The moves of `profile` (made on first use) and the tiles they are in step with.
    pub(crate) fn in_step(
        &mut self,
        profile: &JumpProfile,
    ) -> Result<(&SideViewMoves, &SideViewMap), SideViewError> {
        self.bring_in_step();
        let found = self.moves.iter().position(|m| m.profile() == profile);
        let index = match found {
            Some(i) => i,
            None => {
                self.moves.push(SideViewMoves::new(&self.map, *profile)?);
                self.moves.len() - 1
            }
        };
        Ok((&self.moves[index], &self.map))
    }

    /// The moves of `profile`, if made already.
    pub fn moves(&self, profile: &JumpProfile) -> Option<&SideViewMoves> {
        self.moves.iter().find(|m| m.profile() == profile)
    }

    /// Tiles were set and the moves not yet retiled.
    pub(crate) fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Retiles every profile's moves after [`set`](Self::set)s. True when anything changed.
    pub(crate) fn bring_in_step(&mut self) -> bool {
        if self.pending.is_empty() {
            return false;
        }
        for moves in &mut self.moves {
            // The positions came through `set`, which checked them: this cannot fail.
            let _ = moves.retile(&self.map, &self.pending);
        }
        self.pending.clear();
        self.changes += 1;
        true
    }

    /// The world position of the centre of a `body` (tiles across, up) whose lower left corner
    /// is at `corner` (in tiles), on a level placed at `at`.
    pub fn corner_to_world(&self, at: Vec2, corner: [f32; 2], body: UVec2) -> Vec2 {
        let lower_left = Vec2::new(corner[0], corner[1]) - Vec2::splat(0.5);
        at + self.origin + (lower_left + body.as_vec2() * 0.5) * self.tile_size
    }

    /// The lower left corner (in tiles) of a `body` centred on `world`.
    pub fn world_to_corner(&self, at: Vec2, world: Vec2, body: UVec2) -> Vec2 {
        (world - at - self.origin) / self.tile_size - body.as_vec2() * 0.5 + Vec2::splat(0.5)
    }

    /// The tile under `world`, if on the level.
    pub fn world_to_tile(&self, at: Vec2, world: Vec2) -> Option<GridPos> {
        let t = ((world - at - self.origin) / self.tile_size + Vec2::splat(0.5)).floor();
        let on = t.x >= 0.0
            && t.y >= 0.0
            && t.x < self.map.width() as f32
            && t.y < self.map.height() as f32;
        on.then(|| GridPos::new(t.x as u32, t.y as u32))
    }
}

/// Retiles the levels whose tiles were set since the last frame.
pub(crate) fn keep_levels(mut levels: Query<&mut SideViewLevel, Changed<SideViewLevel>>) {
    for mut level in &mut levels {
        if !level.pending.is_empty() {
            level.bring_in_step();
        }
    }
}
