//! LDtk projects (`.ldtk`) read straight into navigation maps, with no renderer and no
//! bevy_ecs_ldtk (feature `ldtk_files`): for a game server or a bake step. The same rules
//! ([`LdtkNavRules`]) as the bevy_ecs_ldtk integration say what each IntGrid value is; the two
//! give the same cells on the sample world (`tests/editors/ldtk_world.rs`). Levels kept in separate
//! files (LDtk's "external levels") are not read: such a level is an error.
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_tilemap_nav::grid::Cell;
//! use bevy_tilemap_nav::io::ldtk::{LdtkNavRules, read_ldtk_levels};
//! use bevy_tilemap_nav::plugin::NavGridMap;
//!
//! fn world(mut commands: Commands) {
//!     let rules = LdtkNavRules::default().with(1, Cell::Blocked);
//!     for level in read_ldtk_levels("assets/world.ldtk", &rules).unwrap() {
//!         commands.spawn((NavGridMap::from(&level), level.transform));
//!     }
//! }
//! ```

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use bevy::prelude::*;

use crate::grid::{Cell, GridPos, NavGrid, Terrain};
use crate::side_view::{SideTile, SideViewError, SideViewMap};

/// What LDtk IntGrid values mean for navigation. Shared by the bevy_ecs_ldtk integration
/// ([`crate::integrations::ldtk`], feature `ldtk`) and the file reader here.
#[derive(Resource, Clone, Debug, Default, PartialEq)]
pub struct LdtkNavRules {
    /// IntGrid value -> cell (unlisted values and empty cells: ground).
    pub values: HashMap<i32, Cell>,
    /// IntGrid value -> terrain class (unlisted: [`Terrain::DEFAULT`]).
    pub terrain: HashMap<i32, Terrain>,
    /// The IntGrid layers that navigate, by identifier; empty: every IntGrid layer.
    pub layers: Vec<String>,
    /// The levels are side-view levels (a platformer's): the integration makes each a
    /// `SideViewLevel` instead of a top-down navigation map, its tiles by
    /// [`side_tile`](Self::side_tile).
    pub side_view: bool,
    /// IntGrid value -> side-view tile (unlisted values: solid; no value: air).
    pub side: HashMap<i32, SideTile>,
}

impl LdtkNavRules {
    /// Adds (or replaces) the cell of one IntGrid value.
    pub fn with(mut self, value: i32, cell: Cell) -> Self {
        self.values.insert(value, cell);
        self
    }

    /// Gives the cells of one IntGrid value a terrain class.
    pub fn with_terrain(mut self, value: i32, terrain: Terrain) -> Self {
        self.terrain.insert(value, terrain);
        self
    }

    /// Whether the IntGrid layer named `identifier` navigates ([`layers`](Self::layers)).
    pub fn navigates(&self, identifier: &str) -> bool {
        self.layers.is_empty() || self.layers.iter().any(|name| name == identifier)
    }

    /// Makes the levels side-view levels ([`side_view`](Self::side_view)).
    pub fn as_side_view(mut self) -> Self {
        self.side_view = true;
        self
    }

    /// Gives one IntGrid value its side-view tile (a ladder, a one-way platform).
    pub fn with_side(mut self, value: i32, tile: SideTile) -> Self {
        self.side.insert(value, tile);
        self
    }

    /// The side-view tile of IntGrid value `value`: as [`side`](Self::side) says, else solid
    /// (IntGrid values of a platformer are mostly its ground); 0 (no value) air.
    ///
    /// ```
    /// use bevy_tilemap_nav::io::ldtk::LdtkNavRules;
    /// use bevy_tilemap_nav::side_view::SideTile;
    ///
    /// let rules = LdtkNavRules::default().as_side_view().with_side(2, SideTile::Ladder);
    /// assert_eq!(rules.side_tile(2), SideTile::Ladder);
    /// assert_eq!(rules.side_tile(1), SideTile::Solid);
    /// assert_eq!(rules.side_tile(0), SideTile::Empty);
    /// ```
    pub fn side_tile(&self, value: i32) -> SideTile {
        match (value, self.side.get(&value)) {
            (_, Some(&tile)) => tile,
            (0, None) => SideTile::Empty,
            (_, None) => SideTile::Solid,
        }
    }

    /// The cell of IntGrid value `value` (0: no value).
    pub fn cell(&self, value: i32) -> Cell {
        match self.values.get(&value) {
            // A zero cost is not a cost: ground, as everywhere else.
            Some(Cell::Passable { cost: 0 }) => Cell::GROUND,
            Some(&cell) => cell,
            None => Cell::GROUND,
        }
    }
}

/// One level of an LDtk project, read from its file.
#[derive(Clone, Debug)]
pub struct LdtkLevel {
    /// Its `iid` (as bevy_ecs_ldtk's `LevelIid`).
    pub iid: String,
    /// Its identifier ("Level_0").
    pub identifier: String,
    /// Its IntGrid layers' cells.
    pub grid: NavGrid,
    /// Its grid size: a (square) tile's side in the world.
    pub tile_size: f32,
    /// Where it lies, as bevy_ecs_ldtk lays a level by default
    /// (`LevelSpawnBehavior::UseZeroTranslation`): its bottom-left corner at the origin. Spawn
    /// the map with it.
    pub transform: Transform,
    /// Where its bottom-left corner lies in the LDtk world (y up): add it to the translation
    /// for levels laid at their world positions (`UseWorldTranslation`).
    pub world_corner: Vec2,
}

/// Why an LDtk file could not be read into navigation maps.
#[derive(Debug)]
pub enum LdtkFileError {
    /// The file could not be read.
    Io(std::io::Error),
    /// Not JSON, or not an LDtk project.
    Json(String),
    /// A level kept in a separate file (LDtk's "external levels"), by identifier.
    ExternalLevel(String),
    /// A level with no grid for its size, by identifier.
    Grid(String, crate::grid::GridError),
    /// A level with no side-view map for its size, by identifier.
    SideView(String, SideViewError),
}

impl fmt::Display for LdtkFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LdtkFileError::Io(e) => write!(f, "reading the LDtk file: {e}"),
            LdtkFileError::Json(e) => write!(f, "not an LDtk project: {e}"),
            LdtkFileError::ExternalLevel(level) => {
                write!(f, "level {level} is in a file of its own: not read")
            }
            LdtkFileError::Grid(level, e) => write!(f, "level {level}: {e}"),
            LdtkFileError::SideView(level, e) => write!(f, "level {level}: {e}"),
        }
    }
}

impl std::error::Error for LdtkFileError {}

/// Reads every level of the LDtk project at `path` into a navigation map by `rules`: a level's
/// IntGrid layers (those `rules.layers` names, or all), combined as the integration combines
/// layers (a cell is blocked if a layer's value blocks it, else costs the highest; the upper
/// layer's terrain class wins).
pub fn read_ldtk_levels(
    path: impl AsRef<Path>,
    rules: &LdtkNavRules,
) -> Result<Vec<LdtkLevel>, LdtkFileError> {
    let text = std::fs::read_to_string(path).map_err(LdtkFileError::Io)?;
    read_ldtk_str(&text, rules)
}

/// [`read_ldtk_levels`] from the file's text.
pub fn read_ldtk_str(text: &str, rules: &LdtkNavRules) -> Result<Vec<LdtkLevel>, LdtkFileError> {
    let mut out = Vec::new();
    for raw in read_raw_levels(text, rules)? {
        let mut grid = NavGrid::new(raw.width, raw.height)
            .map_err(|e| LdtkFileError::Grid(raw.identifier.clone(), e))?;
        let mut cells: HashMap<GridPos, (Cell, Terrain)> = HashMap::new();
        for (pos, value) in raw.values() {
            let (cell, terrain) = (rules.cell(value), rules.terrain.get(&value).copied());
            let entry = cells.entry(pos).or_insert((Cell::GROUND, Terrain::DEFAULT));
            entry.0 = entry.0.stacked(cell);
            if let Some(terrain) = terrain {
                entry.1 = terrain;
            }
        }
        // Every position is on the grid and every cost at least 1: these cannot fail.
        let _ = grid.set_all(cells.iter().map(|(&pos, &(cell, _))| (pos, cell)));
        let _ = grid.set_all_terrain(cells.iter().map(|(&pos, &(_, terrain))| (pos, terrain)));
        let RawLevel { iid, identifier, tile_size, transform, world_corner, .. } = raw;
        out.push(LdtkLevel { iid, identifier, grid, tile_size, transform, world_corner });
    }
    Ok(out)
}

/// One level of an LDtk project read as a side-view level (a platformer's).
#[derive(Clone, Debug)]
pub struct LdtkSideView {
    /// Its `iid` (as bevy_ecs_ldtk's `LevelIid`).
    pub iid: String,
    /// Its identifier ("Level_0").
    pub identifier: String,
    /// Its tiles, from its IntGrid layers by [`LdtkNavRules::side_tile`], stacked (solid over
    /// ladder over one-way platform over air).
    pub map: SideViewMap,
    /// A (square) tile's side in the world.
    pub tile_size: f32,
    /// Where it lies, as [`LdtkLevel::transform`]: spawn the `SideViewLevel` with it.
    pub transform: Transform,
    /// Where its bottom-left corner lies in the LDtk world, as [`LdtkLevel::world_corner`].
    pub world_corner: Vec2,
}

/// Reads every level of the LDtk project at `path` as a side-view level, its IntGrid layers
/// (those `rules.layers` names, or all) by [`LdtkNavRules::side_tile`].
pub fn read_ldtk_side_views(
    path: impl AsRef<Path>,
    rules: &LdtkNavRules,
) -> Result<Vec<LdtkSideView>, LdtkFileError> {
    let text = std::fs::read_to_string(path).map_err(LdtkFileError::Io)?;
    read_ldtk_side_views_str(&text, rules)
}

/// [`read_ldtk_side_views`] from the file's text.
pub fn read_ldtk_side_views_str(
    text: &str,
    rules: &LdtkNavRules,
) -> Result<Vec<LdtkSideView>, LdtkFileError> {
    let mut out = Vec::new();
    for raw in read_raw_levels(text, rules)? {
        let mut map = SideViewMap::new(raw.width, raw.height)
            .map_err(|e| LdtkFileError::SideView(raw.identifier.clone(), e))?;
        for (pos, value) in raw.values() {
            // On the map: positions are within its size.
            let _ = map.set(pos, map.tile(pos).stacked(rules.side_tile(value)));
        }
        let RawLevel { iid, identifier, tile_size, transform, world_corner, .. } = raw;
        out.push(LdtkSideView { iid, identifier, map, tile_size, transform, world_corner });
    }
    Ok(out)
}

/// A level's IntGrid layers as the file has them, and where it lies.
struct RawLevel {
    iid: String,
    identifier: String,
    width: u32,
    height: u32,
    tile_size: f32,
    transform: Transform,
    world_corner: Vec2,
    /// Bottom layer first; each its values, top row first (as LDtk stores them).
    layers: Vec<Vec<i32>>,
}

impl RawLevel {
    /// Every value of every layer, bottom layer first, with its position (rows counted up).
    fn values(&self) -> impl Iterator<Item = (GridPos, i32)> + '_ {
        let (width, height) = (self.width, self.height);
        self.layers.iter().flat_map(move |layer| {
            layer.iter().enumerate().take((width * height) as usize).map(move |(i, &value)| {
                let (x, row) = (i as u32 % width, i as u32 / width);
                (GridPos::new(x, height - 1 - row), value)
            })
        })
    }
}

/// The levels of a project's text with their IntGrid layers (those `rules.layers` names, or
/// all; layers of another size than the first left out, as the integration leaves them out).
fn read_raw_levels(text: &str, rules: &LdtkNavRules) -> Result<Vec<RawLevel>, LdtkFileError> {
    use serde_json::Value;
    let json: Value = serde_json::from_str(text).map_err(|e| LdtkFileError::Json(e.to_string()))?;
    let bad = |what: &str| LdtkFileError::Json(format!("no {what}"));
    let levels = json["levels"].as_array().ok_or_else(|| bad("levels"))?;
    let mut out = Vec::with_capacity(levels.len());
    for level in levels {
        let identifier = level["identifier"].as_str().unwrap_or_default().to_owned();
        let iid = level["iid"].as_str().unwrap_or_default().to_owned();
        let Some(layers) = level["layerInstances"].as_array() else {
            return Err(LdtkFileError::ExternalLevel(identifier));
        };
        // LDtk lists a level's layers topmost first: bottom first here, as they stack.
        let int_grids: Vec<&Value> = layers
            .iter()
            .rev()
            .filter(|l| l["__type"] == "IntGrid")
            .filter(|l| rules.navigates(l["__identifier"].as_str().unwrap_or_default()))
            .collect();
        let number = |v: &Value, key: &str| v[key].as_u64().ok_or_else(|| bad(key));
        let (width, height, grid_size) = match int_grids.first() {
            Some(l) => (number(l, "__cWid")?, number(l, "__cHei")?, number(l, "__gridSize")?),
            None => continue, // nothing that navigates
        };
        let (width, height) = (
            u32::try_from(width).map_err(|_| bad("sane __cWid"))?,
            u32::try_from(height).map_err(|_| bad("sane __cHei"))?,
        );
        let mut values_of_layers = Vec::new();
        for layer in &int_grids {
            if (number(layer, "__cWid")?, number(layer, "__cHei")?)
                != (u64::from(width), u64::from(height))
            {
                continue;
            }
            let values = layer["intGridCsv"].as_array().ok_or_else(|| bad("intGridCsv"))?;
            let read = |v: &Value| v.as_i64().and_then(|v| i32::try_from(v).ok()).unwrap_or(0);
            values_of_layers.push(values.iter().map(read).collect());
        }
        let size = grid_size as f32;
        let (world_x, world_y) = (level["worldX"].as_f64(), level["worldY"].as_f64());
        let px_height = level["pxHei"].as_f64().unwrap_or(f64::from(height) * grid_size as f64);
        // In the world, its bottom left corner is at (worldX, -(worldY + pxHei)).
        let world_corner =
            Vec2::new(world_x.unwrap_or(0.0) as f32, -(world_y.unwrap_or(0.0) + px_height) as f32);
        // Cell (0, 0)'s centre, half a tile in from the corner.
        let transform = Transform::from_translation(Vec2::splat(size / 2.0).extend(0.0));
        let layers = values_of_layers;
        out.push(RawLevel {
            iid,
            identifier,
            width,
            height,
            tile_size: size,
            transform,
            world_corner,
            layers,
        });
    }
    Ok(out)
}
