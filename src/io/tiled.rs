//! Tiled levels (`.tmx`) read straight into a navigation map, with no renderer and no
//! bevy_ecs_tiled (feature `tiled_files`): what a game server or a bake step in a game's build
//! uses. The same rules ([`TiledNavRules`]) as the bevy_ecs_tiled integration say what each
//! tile is; the two give the same cells on the sample levels (`tests/editors/tiled_maps.rs`).
//!
//! Read here: every finite tile layer (group layers included) of an orthogonal, isometric
//! (diamond) or hexagonal map, combined as the integration combines layers (a cell is blocked
//! if a layer's tile blocks it, else costs the highest of the layers' costs), tiles' collision
//! shapes, and on orthogonal maps the blocking objects (by [`TiledNavRules`]: `nav_blocked`, or
//! a collider layer). Not read: objects of other map types (counted in
//! [`TiledLevel::objects_left_out`]), infinite maps (an error), staggered isometric maps (an
//! error).
//!
//! A side-view level (a platformer's) is read with [`read_tiled_side_view`] instead.
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_tilemap_nav::io::tiled::{TiledNavRules, read_tiled_level};
//! use bevy_tilemap_nav::plugin::NavGridMap;
//!
//! fn level(mut commands: Commands) {
//!     let level = read_tiled_level("assets/level.tmx", &TiledNavRules::default()).unwrap();
//!     commands.spawn(NavGridMap::from(level));
//! }
//! ```

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use bevy::prelude::*;
use bevy_ecs_tilemap::map::{HexCoordSystem, IsoCoordSystem, TilemapType};
use tiled::{ObjectShape, Properties, PropertyValue};

use crate::grid::{Cell, Edge, GridPos, NavGrid, Sides, Terrain};
use crate::side_view::{SideTile, SideViewError, SideViewMap};

/// Which Tiled properties and rules say what a tile is (see the [module](self)). Shared by the
/// bevy_ecs_tiled integration ([`crate::integrations::tiled`], feature `tiled`) and the file
/// reader here.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct TiledNavRules {
    /// Bool properties that block a tile (or, on an object or object layer, the cells under the
    /// objects) when true. Default: `nav_blocked`.
    pub blocked: Vec<String>,
    /// Number properties that give a tile's cost. Default: `nav_cost`.
    pub cost: Vec<String>,
    /// Int properties that give a tile's terrain class. Default: `nav_terrain`.
    pub terrain: Vec<String>,
    /// A tile's class (its "Class" in Tiled) -> cell, for tiles whose properties say nothing.
    pub classes: HashMap<String, Cell>,
    /// (tileset name, tile id) -> cell, before anything else.
    pub by_tile: HashMap<(String, u32), Cell>,
    /// A tile nothing above speaks of (default: ground).
    pub unlisted: Cell,
    /// Collision shapes block (default: true): a tile whose collision shapes cover the centre
    /// of the cell it is drawn on, when nothing above speaks of it, and the objects of the
    /// [`collider_layers`](Self::collider_layers).
    pub colliders: bool,
    /// Object layers whose objects block when [`colliders`](Self::colliders) is on, by name
    /// (any case). Default: "Colliders", "Collisions", "Collider", "Collision".
    pub collider_layers: Vec<String>,
    /// String properties of a tile naming the sides of it that have a wall (a fence, a thin
    /// wall: no step across either way), as [`Sides::parse`] reads them (`"north, east"`).
    /// Default: `nav_walls`.
    pub walls: Vec<String>,
    /// String properties of a tile naming the sides of it that have a ledge: steps leave by
    /// them, none comes in. Default: `nav_drops`.
    pub drops: Vec<String>,
    /// Bool properties of a line object (polyline or polygon, or its object layer) drawn
    /// along cell edges that make those edges walls when true (orthogonal maps). Default:
    /// `nav_wall`.
    pub wall_lines: Vec<String>,
    /// String properties of a line object (or its object layer) drawn along cell edges that
    /// make those edges one way: steps cross them only towards the side named (`"south"`: a
    /// ledge to drop down southwards). Default: `nav_drop`.
    pub drop_lines: Vec<String>,
    /// Bool properties of a map that make it a side-view level (a platformer's: see
    /// [`read_side_view`]) when true. Default: `nav_side_view`.
    pub side_view: Vec<String>,
    /// String properties of a tile that say what it is on a side-view level, as
    /// [`SideTile::parse`] reads them (`"solid"`, `"ladder"`, `"one_way"`, `"empty"`).
    /// Default: `nav_side`.
    pub side: Vec<String>,
}

impl Default for TiledNavRules {
    fn default() -> Self {
        Self {
            blocked: vec!["nav_blocked".into()],
            cost: vec!["nav_cost".into()],
            terrain: vec!["nav_terrain".into()],
            classes: HashMap::new(),
            by_tile: HashMap::new(),
            unlisted: Cell::GROUND,
            colliders: true,
            collider_layers: ["Colliders", "Collisions", "Collider", "Collision"]
                .map(String::from)
                .into(),
            walls: vec!["nav_walls".into()],
            drops: vec!["nav_drops".into()],
            wall_lines: vec!["nav_wall".into()],
            drop_lines: vec!["nav_drop".into()],
            side_view: vec!["nav_side_view".into()],
            side: vec!["nav_side".into()],
        }
    }
}

impl TiledNavRules {
    /// The cell and terrain class of tile `tile_id` of the tileset named `tileset`, whose
    /// properties are `properties` and class `class`; `collides` says that its collision
    /// shapes cover its cell's centre (read when nothing else speaks of the tile and
    /// [`colliders`](Self::colliders) is on).
    pub fn tile(
        &self,
        tileset: &str,
        tile_id: u32,
        properties: &Properties,
        class: &str,
        collides: bool,
    ) -> (Cell, Terrain) {
        let terrain = self
            .terrain
            .iter()
            .find_map(|name| number(properties, name))
            .map_or(Terrain::DEFAULT, |t| Terrain(t.clamp(0.0, 255.0) as u8));
        // (The key is built only when there are rules by tile: this runs for every tile spawned.)
        let by_tile = (!self.by_tile.is_empty())
            .then(|| self.by_tile.get(&(tileset.to_owned(), tile_id)))
            .flatten();
        if let Some(&cell) = by_tile {
            return (cell, terrain);
        }
        if self.blocks(properties) {
            return (Cell::Blocked, terrain);
        }
        if let Some(cost) = self.cost.iter().find_map(|name| number(properties, name)) {
            return (Cell::Passable { cost: cost.round().max(1.0) as u32 }, terrain);
        }
        if let Some(&cell) = self.classes.get(class) {
            return (cell, terrain);
        }
        match collides && self.colliders {
            true => (Cell::Blocked, terrain),
            false => (self.unlisted, terrain),
        }
    }

    /// The sides of a tile whose properties are `properties` that have walls, and those that
    /// have ledges ([`walls`](Self::walls), [`drops`](Self::drops)); a property that names no
    /// side reads as none.
    pub fn tile_sides(&self, properties: &Properties) -> (Sides, Sides) {
        let read = |names: &[String]| {
            names
                .iter()
                .find_map(|name| match find(properties, name) {
                    Some(PropertyValue::StringValue(text)) => Sides::parse(text),
                    _ => None,
                })
                .unwrap_or_default()
        };
        (read(&self.walls), read(&self.drops))
    }

    /// The edges a line object lays down on an orthogonal map `height` rows high whose tiles
    /// are `cell` pixels: with a [`wall_lines`](Self::wall_lines) property true on it (or on
    /// `layer`, its object layer) walls, with a [`drop_lines`](Self::drop_lines) side one-way
    /// edges crossed towards that side; each edge a segment of the line runs along (within a
    /// quarter of a cell). (from, to, edge) for [`NavGrid::set_edge`].
    pub(crate) fn line_edges(
        &self,
        object: &tiled::ObjectData,
        layer: &Properties,
        cell: Vec2,
        height: u32,
    ) -> Vec<(GridPos, GridPos, Edge)> {
        let bool_of = |properties: &Properties| {
            self.wall_lines.iter().find_map(|name| match find(properties, name) {
                Some(PropertyValue::BoolValue(b)) => Some(*b),
                _ => None,
            })
        };
        let side_of = |properties: &Properties| {
            self.drop_lines.iter().find_map(|name| match find(properties, name) {
                Some(PropertyValue::StringValue(text)) => Sides::parse(text),
                _ => None,
            })
        };
        let wall = bool_of(&object.properties).or_else(|| bool_of(layer)).unwrap_or(false);
        let drop = side_of(&object.properties).or_else(|| side_of(layer));
        if !wall && drop.is_none() {
            return Vec::new();
        }
        let (points, closed) = match &object.shape {
            ObjectShape::Polyline { points } => (points, false),
            ObjectShape::Polygon { points } => (points, true),
            _ => return Vec::new(),
        };
        // Into the layer's pixels (the object turned clockwise, y down, about its (x, y)),
        // then into cell units.
        let (sin, cos) = object.rotation.to_radians().sin_cos();
        let at = |&(x, y): &(f32, f32)| {
            let p = Vec2::new(object.x + x * cos - y * sin, object.y + x * sin + y * cos);
            p / cell
        };
        let mut corners: Vec<Vec2> = points.iter().map(at).collect();
        if closed && let Some(&first) = corners.first() {
            corners.push(first);
        }
        let mut edges = Vec::new();
        let rows = i64::from(height);
        // A cell (column, row counted down as in the file) as a grid cell (rows counted up).
        let grid_cell = |column: i64, row: i64| {
            let y = rows - 1 - row;
            (column >= 0 && row >= 0 && y >= 0).then(|| GridPos::new(column as u32, y as u32))
        };
        for pair in corners.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            let near = |m: Vec2| {
                let ab = b - a;
                let t =
                    ((m - a).dot(ab) / ab.length_squared().max(f32::MIN_POSITIVE)).clamp(0.0, 1.0);
                m.distance(a + ab * t) <= 0.25
            };
            let (lo, hi) = (a.min(b).floor(), a.max(b).ceil());
            for gy in lo.y as i64 - 1..=hi.y as i64 + 1 {
                for gx in lo.x as i64 - 1..=hi.x as i64 + 1 {
                    // The edge along the top of cell (gx, gy), between it and the cell above
                    // (in the file, y down); and the edge along its left side.
                    let (fx, fy) = (gx as f32, gy as f32);
                    let across = [
                        (Vec2::new(fx + 0.5, fy), (gx, gy - 1), (gx, gy), Sides::SOUTH),
                        (Vec2::new(fx, fy + 0.5), (gx - 1, gy), (gx, gy), Sides::EAST),
                    ];
                    for (middle, first, second, towards_second) in across {
                        if !near(middle) {
                            continue;
                        }
                        let (Some(p), Some(q)) =
                            (grid_cell(first.0, first.1), grid_cell(second.0, second.1))
                        else {
                            continue;
                        };
                        if wall {
                            edges.push((p, q, Edge::Wall));
                        } else if drop == Some(towards_second) {
                            edges.push((p, q, Edge::OneWay));
                        } else if drop == Some(opposite(towards_second)) {
                            edges.push((q, p, Edge::OneWay));
                        }
                    }
                }
            }
        }
        edges.sort_unstable_by_key(|&(p, q, _)| (p, q));
        edges.dedup();
        edges
    }

    /// True when one of the [`blocked`](Self::blocked) properties is true in `properties`.
    pub fn blocks(&self, properties: &Properties) -> bool {
        self.says_blocked(properties) == Some(true)
    }

    /// What the first of the [`blocked`](Self::blocked) properties found in `properties` says.
    pub(crate) fn says_blocked(&self, properties: &Properties) -> Option<bool> {
        self.blocked.iter().find_map(|name| match find(properties, name) {
            Some(PropertyValue::BoolValue(b)) => Some(*b),
            _ => None,
        })
    }

    /// True when the objects of the object layer named `layer` block as colliders.
    pub(crate) fn collider_layer(&self, layer: &str) -> bool {
        self.colliders && self.collider_layers.iter().any(|name| name.eq_ignore_ascii_case(layer))
    }
}

impl TiledNavRules {
    /// The cell and terrain class of tile `tile_id` of `tileset` on `map`, whose data is
    /// `data`: by its properties and the rules, then (with [`colliders`](Self::colliders)) its
    /// collision shapes. Both ways in (the integration and the file reader) read tiles by it.
    pub(crate) fn map_tile(
        &self,
        map: &tiled::Map,
        tileset: &tiled::Tileset,
        tile_id: u32,
        data: &tiled::TileData,
    ) -> (Cell, Terrain) {
        let collides = self.collides(map, tileset, data);
        self.tile(&tileset.name, tile_id, &data.properties, &data.user_type, collides)
    }

    /// With [`colliders`](Self::colliders) on, whether a tile's collision shapes cover the
    /// centre of the cell it is drawn on.
    fn collides(&self, map: &tiled::Map, tileset: &tiled::Tileset, data: &tiled::TileData) -> bool {
        self.colliders && {
            let image = match &data.image {
                Some(image) => Vec2::new(image.width as f32, image.height as f32),
                None => Vec2::new(tileset.tile_width as f32, tileset.tile_height as f32),
            };
            let cell = Vec2::new(map.tile_width as f32, map.tile_height as f32);
            let isometric = map.orientation == tiled::Orientation::Isometric;
            tile_collides(data, image, cell, isometric)
        }
    }

    /// What a tile whose properties are `properties` and class `class` is on a side-view
    /// level: what a [`side`](Self::side) property names; else solid where a
    /// [`blocked`](Self::blocked) property is true (air where it is false); else what its
    /// class names (a class `Ladder`, `OneWay`...); else solid where `collides` (its collision
    /// shapes cover its cell's centre, with [`colliders`](Self::colliders) on); else air (a
    /// tile drawn for looks).
    pub fn side_tile(&self, properties: &Properties, class: &str, collides: bool) -> SideTile {
        let named = self.side.iter().find_map(|name| match find(properties, name) {
            Some(PropertyValue::StringValue(text)) => SideTile::parse(text),
            _ => None,
        });
        let blocked = || {
            self.says_blocked(properties).map(|b| if b { SideTile::Solid } else { SideTile::Empty })
        };
        let collider = || (collides && self.colliders).then_some(SideTile::Solid);
        named
            .or_else(blocked)
            .or_else(|| SideTile::parse(class))
            .or_else(collider)
            .unwrap_or_default()
    }

    /// Whether `map` is a side-view level: one of the [`side_view`](Self::side_view)
    /// properties is true on it.
    pub fn is_side_view(&self, map: &tiled::Map) -> bool {
        self.side_view
            .iter()
            .any(|name| matches!(find(&map.properties, name), Some(PropertyValue::BoolValue(true))))
    }

    /// Whether an object on a layer whose properties are `layer_properties` and name
    /// `layer_name` blocks: its [`blocked`](Self::blocked) property, else its layer's, else
    /// whether the layer is a [collider layer](Self::collider_layers).
    pub(crate) fn object_blocks(
        &self,
        object: &Properties,
        layer_properties: &Properties,
        layer_name: &str,
    ) -> bool {
        let says = self.says_blocked(object).or_else(|| self.says_blocked(layer_properties));
        says.unwrap_or_else(|| self.collider_layer(layer_name))
    }
}

/// True when the collision shapes of `tile` cover the centre of the cell it is drawn on: Tiled
/// draws a tile image `image` pixels large with its bottom edge on the cell's (centred on it
/// on an isometric map, else from its left edge), `cell` pixels being the map's tile size.
fn tile_collides(tile: &tiled::TileData, image: Vec2, cell: Vec2, isometric: bool) -> bool {
    let Some(collision) = &tile.collision else {
        return false;
    };
    let x = if isometric { image.x / 2.0 } else { cell.x.min(image.x) / 2.0 };
    let centre = Vec2::new(x, image.y - cell.y.min(image.y) / 2.0);
    collision.object_data().iter().any(|object| shape_covers(object, centre))
}

/// True when `point` (in the pixels of the object's layer or tile, y down) lies inside
/// `object`'s shape (rectangles, ellipses, capsules and polygons; lines, points and text cover
/// nothing).
fn shape_covers(object: &tiled::ObjectData, point: Vec2) -> bool {
    // Into the object's own frame: it is rotated clockwise (y down) about its (x, y).
    let (sin, cos) = object.rotation.to_radians().sin_cos();
    let d = point - Vec2::new(object.x, object.y);
    let p = Vec2::new(d.x * cos + d.y * sin, -d.x * sin + d.y * cos);
    let in_box = |w: f32, h: f32| (0.0..=w).contains(&p.x) && (0.0..=h).contains(&p.y);
    match &object.shape {
        ObjectShape::Rect { width, height } => in_box(*width, *height),
        ObjectShape::Ellipse { width, height } => {
            let (rx, ry) = (width / 2.0, height / 2.0);
            rx > 0.0 && ry > 0.0 && ((p.x - rx) / rx).powi(2) + ((p.y - ry) / ry).powi(2) <= 1.0
        }
        ObjectShape::Capsule { width, height } => {
            // Round ends along its longer side.
            let (w, h) = (*width, *height);
            let r = w.min(h) / 2.0;
            let (a, b) = if w >= h {
                (Vec2::new(r, r), Vec2::new(w - r, r))
            } else {
                (Vec2::new(r, r), Vec2::new(r, h - r))
            };
            let t = ((p - a).dot(b - a) / (b - a).length_squared().max(f32::MIN_POSITIVE))
                .clamp(0.0, 1.0);
            in_box(w, h) && p.distance(a + (b - a) * t) <= r
        }
        ObjectShape::Polygon { points } => {
            let ring: Vec<Vec2> = points.iter().map(|&(x, y)| Vec2::new(x, y)).collect();
            inside(&ring, p)
        }
        _ => false,
    }
}

/// The side across from `side` (of a square cell).
fn opposite(side: Sides) -> Sides {
    match side {
        Sides::NORTH => Sides::SOUTH,
        Sides::SOUTH => Sides::NORTH,
        Sides::EAST => Sides::WEST,
        Sides::WEST => Sides::EAST,
        other => other,
    }
}

/// The property `name`, at the top level or inside class-typed properties (depth first).
fn find<'a>(properties: &'a Properties, name: &str) -> Option<&'a PropertyValue> {
    properties.get(name).or_else(|| {
        properties.values().find_map(|value| match value {
            PropertyValue::ClassValue { properties, .. } => find(properties, name),
            _ => None,
        })
    })
}

fn number(properties: &Properties, name: &str) -> Option<f64> {
    match find(properties, name)? {
        PropertyValue::IntValue(n) => Some(f64::from(*n)),
        PropertyValue::FloatValue(x) if x.is_finite() => Some(f64::from(*x)),
        _ => None,
    }
}

/// True when `point` lies inside the polygon `ring` (even-odd rule).
pub(crate) fn inside(ring: &[Vec2], point: Vec2) -> bool {
    let mut inside = false;
    let mut j = ring.len().wrapping_sub(1);
    for i in 0..ring.len() {
        let (a, b) = (ring[i], ring[j]);
        if (a.y > point.y) != (b.y > point.y)
            && point.x < (b.x - a.x) * (point.y - a.y) / (b.y - a.y) + a.x
        {
            inside = !inside;
        }
        j = i;
    }
    inside
}

/// A Tiled level read from its file: its navigation grid and the geometry of its tiles.
/// `NavGridMap::from(level)` makes the navigation map to spawn (with a `Transform` to place it;
/// it lies as bevy_ecs_tiled lays the map with `TilemapAnchor::None`).
#[derive(Clone, Debug)]
pub struct TiledLevel {
    /// The cells.
    pub grid: NavGrid,
    /// A tile's size in the world (a cell's, in pixels).
    pub tile_size: Vec2,
    /// The tilemap type the level is drawn as.
    pub map_type: TilemapType,
    /// Blocking objects that were not read (objects are read on orthogonal maps only).
    pub objects_left_out: usize,
}

/// Why a Tiled file could not be read into a navigation map.
#[derive(Debug)]
pub enum TiledFileError {
    /// The `tiled` crate could not read it (missing file, bad XML, a tileset not found).
    Read(tiled::Error),
    /// An infinite map: only finite maps are read.
    Infinite,
    /// A map type the navigation does not read from files (staggered isometric, oblique).
    Unsupported(String),
    /// No grid for its size (0 or too many cells).
    Grid(crate::grid::GridError),
    /// No side-view map for its size.
    SideView(SideViewError),
}

impl fmt::Display for TiledFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TiledFileError::Read(e) => write!(f, "reading the Tiled file: {e}"),
            TiledFileError::Infinite => {
                write!(f, "an infinite Tiled map: only finite maps are read")
            }
            TiledFileError::Unsupported(what) => write!(f, "a {what} Tiled map is not read"),
            TiledFileError::Grid(e) => write!(f, "{e}"),
            TiledFileError::SideView(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for TiledFileError {}

/// The tilemap type a Tiled map is laid out as (its rows counted from the bottom, as
/// bevy_ecs_tiled lays them: which rows or columns of a hex map are shifted swaps).
fn map_type(map: &tiled::Map) -> Result<TilemapType, TiledFileError> {
    use tiled::{Orientation, StaggerAxis, StaggerIndex};
    let even = map.stagger_index == StaggerIndex::Even;
    Ok(match map.orientation {
        Orientation::Orthogonal => TilemapType::Square,
        Orientation::Isometric => TilemapType::Isometric(IsoCoordSystem::Diamond),
        Orientation::Hexagonal => TilemapType::Hexagon(match (map.stagger_axis, even) {
            (StaggerAxis::X, true) => HexCoordSystem::ColumnOdd,
            (StaggerAxis::X, false) => HexCoordSystem::ColumnEven,
            (StaggerAxis::Y, true) => HexCoordSystem::RowOdd,
            (StaggerAxis::Y, false) => HexCoordSystem::RowEven,
        }),
        other => return Err(TiledFileError::Unsupported(format!("{other:?}").to_lowercase())),
    })
}

/// Reads the Tiled map at `path` (its tilesets found beside it, as Tiled saves them) into a
/// navigation map by `rules` (see the [module](self)).
pub fn read_tiled_level(
    path: impl AsRef<Path>,
    rules: &TiledNavRules,
) -> Result<TiledLevel, TiledFileError> {
    let map = tiled::Loader::new().load_tmx_map(path).map_err(TiledFileError::Read)?;
    read_map(&map, rules)
}

/// A loaded Tiled map into a navigation map (see [`read_tiled_level`]).
pub fn read_map(map: &tiled::Map, rules: &TiledNavRules) -> Result<TiledLevel, TiledFileError> {
    if map.infinite() {
        return Err(TiledFileError::Infinite);
    }
    let map_type = map_type(map)?;
    let (width, height) = (map.width, map.height);
    let mut grid = NavGrid::new(width, height).map_err(TiledFileError::Grid)?;
    // Each cell as the layers combine it: blocked wins, else the highest cost; the newest
    // layer's terrain class.
    let mut cells: Vec<(Cell, Terrain)> =
        vec![(Cell::GROUND, Terrain::DEFAULT); width as usize * height as usize];
    let cell_px = Vec2::new(map.tile_width as f32, map.tile_height as f32);
    // What each (tileset, tile) is, worked out once.
    let mut known: HashMap<(usize, u32), (Cell, Terrain)> = HashMap::new();
    // The walls and ledges on each cell's sides (all layers'), and the edges line objects lay.
    let mut sides: Vec<(Sides, Sides)> = vec![(Sides::NONE, Sides::NONE); cells.len()];
    let mut known_sides: HashMap<(usize, u32), (Sides, Sides)> = HashMap::new();
    let mut line_edges: Vec<(GridPos, GridPos, Edge)> = Vec::new();
    let mut objects_left_out = 0;
    let mut blocked_objects: Vec<Vec<Vec2>> = Vec::new();
    // In the file's order (a group's layers in its place), as the integration's layers are
    // oldest first: the newest layer's terrain class wins.
    for layer in layers_in_order(map) {
        match layer.layer_type() {
            tiled::LayerType::Tiles(tiled::TileLayer::Finite(tiles)) => {
                for row in 0..height {
                    for x in 0..width {
                        let Some(tile) = tiles.get_tile(x as i32, row as i32) else {
                            continue; // no tile: ground, as missing tiles are
                        };
                        let key = (tile.tileset_index(), tile.id());
                        let (cell, terrain) =
                            *known.entry(key).or_insert_with(|| match tile.get_tile() {
                                Some(data) => {
                                    rules.map_tile(map, tile.get_tileset(), tile.id(), &data)
                                }
                                None => (rules.unlisted, Terrain::DEFAULT),
                            });
                        let k = ((height - 1 - row) * width + x) as usize;
                        let (walls, drops) = *known_sides.entry(key).or_insert_with(|| {
                            tile.get_tile().map_or((Sides::NONE, Sides::NONE), |d| {
                                rules.tile_sides(&d.properties)
                            })
                        });
                        sides[k] = (sides[k].0 | walls, sides[k].1 | drops);
                        let (old, old_terrain) = cells[k];
                        let combined = old.stacked(cell);
                        let terrain =
                            if terrain == Terrain::DEFAULT { old_terrain } else { terrain };
                        cells[k] = (combined, terrain);
                    }
                }
            }
            tiled::LayerType::Objects(objects) => {
                for object in objects.objects() {
                    if map.orientation == tiled::Orientation::Orthogonal {
                        let found = rules.line_edges(&object, &layer.properties, cell_px, height);
                        line_edges.extend(found);
                    }
                    if !rules.object_blocks(&object.properties, &layer.properties, &layer.name) {
                        continue;
                    }
                    match (map.orientation, object_ring(&object)) {
                        (tiled::Orientation::Orthogonal, Some(ring)) => blocked_objects.push(ring),
                        (_, Some(_)) => objects_left_out += 1,
                        (_, None) => {}
                    }
                }
            }
            _ => {}
        }
    }
    // Objects on an orthogonal map block the cells whose centres they cover.
    for pos in covered_cells(&blocked_objects, width, height, cell_px) {
        cells[(pos.y * width + pos.x) as usize].0 = Cell::Blocked;
    }
    let positions = (0..height).flat_map(|y| (0..width).map(move |x| GridPos::new(x, y)));
    let all: Vec<(GridPos, (Cell, Terrain))> = positions.zip(cells).collect();
    // Every cell is on the grid and every cost at least 1: these cannot fail.
    let _ = grid.set_all(all.iter().map(|&(pos, (cell, _))| (pos, cell)));
    let _ = grid.set_all_terrain(all.iter().map(|&(pos, (_, terrain))| (pos, terrain)));
    if sides.iter().any(|s| *s != (Sides::NONE, Sides::NONE)) {
        let w = width as usize;
        grid.set_sides(all.iter().map(|&(pos, _)| pos), |pos| {
            sides[pos.y as usize * w + pos.x as usize]
        });
    }
    // Every edge is between two cells of the grid: these cannot fail.
    let _ = grid.set_edges(line_edges);
    Ok(TiledLevel { grid, tile_size: cell_px, map_type, objects_left_out })
}

/// The layers of `map` in the file's order, a group's layers in its place.
fn layers_in_order(map: &tiled::Map) -> Vec<tiled::Layer<'_>> {
    let mut stack: Vec<tiled::Layer> = map.layers().collect();
    stack.reverse();
    let mut out = Vec::new();
    while let Some(layer) = stack.pop() {
        match layer.layer_type() {
            tiled::LayerType::Group(group) => {
                let mut inner: Vec<tiled::Layer> = group.layers().collect();
                inner.reverse();
                stack.extend(inner);
            }
            _ => out.push(layer),
        }
    }
    out
}

/// The cells (rows counted up) of an orthogonal map `width` x `height` cells of `cell_px`
/// pixels whose centres (in the file's pixels, y down) lie inside one of `rings`.
fn covered_cells(
    rings: &[Vec<Vec2>],
    width: u32,
    height: u32,
    cell_px: Vec2,
) -> impl Iterator<Item = GridPos> + '_ {
    (0..height).flat_map(move |row| {
        (0..width).filter_map(move |x| {
            let centre = Vec2::new((x as f32 + 0.5) * cell_px.x, (row as f32 + 0.5) * cell_px.y);
            rings.iter().any(|ring| inside(ring, centre)).then(|| GridPos::new(x, height - 1 - row))
        })
    })
}

/// A Tiled map read as a side-view level (a platformer's): its tiles and their size.
/// `SideViewLevel::new(level.map, level.tile_size)` spawned with the map's `Transform` lies as
/// bevy_ecs_tiled lays the map (`TilemapAnchor::None`).
#[derive(Clone, Debug)]
pub struct TiledSideView {
    /// The tiles.
    pub map: SideViewMap,
    /// A tile's size in the world (pixels).
    pub tile_size: Vec2,
}

/// Reads the Tiled map at `path` as a side-view level (see [`read_side_view`]).
pub fn read_tiled_side_view(
    path: impl AsRef<Path>,
    rules: &TiledNavRules,
) -> Result<TiledSideView, TiledFileError> {
    let map = tiled::Loader::new().load_tmx_map(path).map_err(TiledFileError::Read)?;
    read_side_view(&map, rules)
}

/// A loaded orthogonal Tiled map as a side-view level: each tile as
/// [`TiledNavRules::side_tile`] reads it, the layers stacked (solid over ladder over one-way
/// platform over air: [`SideTile::stacked`]), and the cells whose centres blocking objects
/// cover solid (as on top-down maps: `nav_blocked` objects, collider layers). Errors: an
/// infinite map, a map type other than orthogonal, a size no side-view map takes.
pub fn read_side_view(
    map: &tiled::Map,
    rules: &TiledNavRules,
) -> Result<TiledSideView, TiledFileError> {
    if map.infinite() {
        return Err(TiledFileError::Infinite);
    }
    if map.orientation != tiled::Orientation::Orthogonal {
        let kind = format!("{:?}", map.orientation).to_lowercase();
        return Err(TiledFileError::Unsupported(format!("{kind} side-view")));
    }
    let (width, height) = (map.width, map.height);
    let mut side = SideViewMap::new(width, height).map_err(TiledFileError::SideView)?;
    let cell_px = Vec2::new(map.tile_width as f32, map.tile_height as f32);
    let mut known: HashMap<(usize, u32), SideTile> = HashMap::new();
    let mut blocked_objects: Vec<Vec<Vec2>> = Vec::new();
    let mut stack = |pos: GridPos, tile: SideTile| {
        // On the map: x and y are within its size.
        let _ = side.set(pos, side.tile(pos).stacked(tile));
    };
    for layer in layers_in_order(map) {
        match layer.layer_type() {
            tiled::LayerType::Tiles(tiled::TileLayer::Finite(tiles)) => {
                for (row, x) in (0..height).flat_map(|row| (0..width).map(move |x| (row, x))) {
                    let Some(tile) = tiles.get_tile(x as i32, row as i32) else { continue };
                    let key = (tile.tileset_index(), tile.id());
                    let kind = *known.entry(key).or_insert_with(|| match tile.get_tile() {
                        Some(data) => {
                            let collides = rules.collides(map, tile.get_tileset(), &data);
                            rules.side_tile(&data.properties, &data.user_type, collides)
                        }
                        None => SideTile::Empty,
                    });
                    stack(GridPos::new(x, height - 1 - row), kind);
                }
            }
            tiled::LayerType::Objects(objects) => {
                let blocking = objects
                    .objects()
                    .filter(|o| rules.object_blocks(&o.properties, &layer.properties, &layer.name));
                blocked_objects.extend(blocking.filter_map(|o| object_ring(&o)));
            }
            _ => {}
        }
    }
    for pos in covered_cells(&blocked_objects, width, height, cell_px) {
        stack(pos, SideTile::Solid);
    }
    Ok(TiledSideView { map: side, tile_size: cell_px })
}

/// An object's shape as a polygon in its layer's pixels (y down): rectangles, ellipses (as
/// 32-gons), capsules (as their boxes), polygons and tile objects; `None` for points, lines
/// and text.
fn object_ring(object: &tiled::ObjectData) -> Option<Vec<Vec2>> {
    let local: Vec<Vec2> = match &object.shape {
        _ if object.tile_data().is_some() => {
            // A tile object stands on its (x, y): its bottom left corner.
            let (w, h) = match &object.shape {
                ObjectShape::Rect { width, height } => (*width, *height),
                _ => return None,
            };
            vec![Vec2::new(0.0, -h), Vec2::new(w, -h), Vec2::new(w, 0.0), Vec2::ZERO]
        }
        ObjectShape::Rect { width, height } | ObjectShape::Capsule { width, height } => {
            let (w, h) = (*width, *height);
            vec![Vec2::ZERO, Vec2::new(w, 0.0), Vec2::new(w, h), Vec2::new(0.0, h)]
        }
        ObjectShape::Ellipse { width, height } => (0..32)
            .map(|i| {
                let a = i as f32 / 32.0 * std::f32::consts::TAU;
                Vec2::new(width / 2.0 * (1.0 + a.cos()), height / 2.0 * (1.0 + a.sin()))
            })
            .collect(),
        ObjectShape::Polygon { points } => points.iter().map(|&(x, y)| Vec2::new(x, y)).collect(),
        _ => return None,
    };
    // Turned clockwise (y down) about its (x, y).
    let (sin, cos) = object.rotation.to_radians().sin_cos();
    let origin = Vec2::new(object.x, object.y);
    Some(
        local
            .iter()
            .map(|p| origin + Vec2::new(p.x * cos - p.y * sin, p.x * sin + p.y * cos))
            .collect(),
    )
}
