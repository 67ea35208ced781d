//! The maps the plugin keeps: a [`NavMap`] per map (its grid, geometry, and what is kept for
//! it, changed through its methods) in the [`NavMaps`] resource, and the messages about them.

#[cfg(doc)]
use crate::plugin::NavLayerOf;
#[cfg(doc)]
use crate::plugin::NavMapLoading;
use bevy::prelude::*;

use super::geometry::*;
use crate::grid::{GridPos, NavGrid, Preparation};
use crate::plugin::profiles::AgentKind;
use crate::search::{AgentGrid, AgentGridBuild, MapPos};

/// One navigation map: its grid, where it lies in the world, and the tilemaps it is made of.
#[derive(Clone, Debug)]
pub struct NavMap {
    /// The map's entity: the one named by the layers' [`NavLayerOf`], or else its first
    /// (oldest) layer tilemap. Requests, paths, links and messages name maps by it.
    pub entity: Entity,
    /// Its navigation grid, kept in step with its tiles.
    pub grid: NavGrid,
    /// Where it lies in the world: world <-> cell.
    pub geometry: NavGeometry,
    /// Its layer tilemaps, oldest first.
    pub layers: Vec<Entity>,
    /// The grid as each kind of agent in use sees it (a [`NavProfile`](crate::grid::NavProfile),
    /// a size), made when an agent of that kind first asks and kept in step with `grid`.
    pub(super) agents: AgentGrids,
    /// What is kept precomputed for it when it has [`PrecomputePaths`](crate::plugin::PrecomputePaths),
    /// and whether it was loaded from its [`BakedPaths`](crate::plugin::BakedPaths) (rather than
    /// built). Changed through [`keep_precomputed`](Self::keep_precomputed).
    pub(super) precomputed: Option<(Precomputed, bool)>,
    /// For a map made from a [`NavGridMap`](crate::plugin::NavGridMap): the stamp of its grid that `grid` last followed.
    pub(crate) source: Option<crate::grid::GridStamp>,
}

/// A map's grids for kinds of agents: those built, and those being built a slice a frame (on a
/// grid [`Preparation::InSlices`], as the plugin's maps are).
#[derive(Clone, Debug, Default)]
pub(crate) struct AgentGrids {
    built: Vec<(AgentKind, AgentGrid)>,
    building: Vec<(AgentKind, AgentGridBuild)>,
}

/// What a map keeps precomputed: a path table where one serves it, else a first-move table
/// where the map is small enough, else landmarks (current only while its grid's stamp matches;
/// landmarks are kept in step with the grid).
#[derive(Clone, Debug)]
pub(crate) enum Precomputed {
    Table(crate::search::PathTable),
    FirstMoves(crate::search::FirstMoveTable),
    Landmarks(crate::search::Landmarks),
}

impl NavMap {
    /// Keeps `precomputed` for this map (`from_bake`: loaded from its bake), or nothing.
    pub(crate) fn keep_precomputed(&mut self, precomputed: Option<Precomputed>, from_bake: bool) {
        self.precomputed = precomputed.map(|kept| (kept, from_bake));
    }

    /// True when the map keeps a grid for some kind of agent.
    pub(crate) fn keeps_agent_grids(&self) -> bool {
        !self.agents.built.is_empty() || !self.agents.building.is_empty()
    }

    /// Keeps the grids of the kinds of agents `keep` says yes to, brought up to date with the
    /// map's grid, and makes those of `kinds` it lacks (with the profile `profile_of` gives;
    /// none for a size the map cannot serve, as on hex maps: requests say why).
    pub(crate) fn keep_agent_grids(
        &mut self,
        keep: impl Fn(AgentKind) -> bool,
        kinds: &[AgentKind],
        profile_of: impl Fn(AgentKind) -> crate::grid::NavProfile,
    ) {
        let AgentGrids { built, building } = &mut self.agents;
        built.retain(|(kind, _)| keep(*kind));
        building.retain(|(kind, _)| keep(*kind));
        for (_, grid) in built.iter_mut() {
            // Memory refused for a resized map: the grid stays as it was, and paths on it are
            // checked against it as before.
            let _ = grid.update(&self.grid);
        }
        for &kind in kinds {
            if built.iter().any(|(k, _)| *k == kind) || building.iter().any(|(k, _)| *k == kind) {
                continue;
            }
            let (profile, size) = (profile_of(kind), kind.size);
            if self.grid.preparation() == Preparation::InSlices {
                if let Ok(build) = AgentGridBuild::new(&self.grid, profile, size) {
                    building.push((kind, build));
                }
            } else if let Ok(grid) = AgentGrid::new(&self.grid, profile, size) {
                built.push((kind, grid));
            }
        }
    }

    /// Whether a grid for some kind of agent is being built.
    pub(crate) fn builds_agent_grids(&self) -> bool {
        !self.agents.building.is_empty()
    }

    /// Whether a grid for agents of this kind is being built (requests by such agents wait).
    pub(crate) fn builds_grid_for(&self, agent: AgentKind) -> bool {
        self.agents.building.iter().any(|(kind, _)| *kind == agent)
    }

    /// Steps the grids being built for kinds of agents with about `work` units in all, keeping
    /// those that are done; returns the work spent.
    pub(crate) fn build_agent_grids(&mut self, work: u64) -> u64 {
        let AgentGrids { built, building } = &mut self.agents;
        let mut spent = 0;
        let mut k = 0;
        while k < building.len() && spent < work {
            let before = building[k].1.work();
            let done = building[k].1.step(&self.grid, work - spent);
            spent += building[k].1.work() - before;
            if !done {
                k += 1;
                continue;
            }
            let (kind, build) = building.swap_remove(k);
            built.extend(build.into_grid().map(|grid| (kind, grid)));
        }
        spent
    }

    /// What is kept precomputed for this map, if any.
    pub(crate) fn precomputed(&self) -> Option<&Precomputed> {
        self.precomputed.as_ref().map(|(kept, _)| kept)
    }

    /// The map's grid, and the landmarks kept for it (to follow the grid's changes).
    pub(crate) fn grid_and_landmarks_mut(
        &mut self,
    ) -> (&NavGrid, Option<&mut crate::search::Landmarks>) {
        let landmarks = match &mut self.precomputed {
            Some((Precomputed::Landmarks(landmarks), _)) => Some(landmarks),
            _ => None,
        };
        (&self.grid, landmarks)
    }

    /// Its grids: its own (for plain agents), then each kind of agent's.
    pub(crate) fn grids(&self) -> impl Iterator<Item = (AgentKind, &NavGrid)> {
        let kinds = self.agents.built.iter().map(|(kind, grid)| (*kind, grid.grid()));
        std::iter::once((AgentKind::PLAIN, &self.grid)).chain(kinds)
    }

    /// The grid an agent of this kind searches: `grid` itself for an agent with no profile and
    /// size 1, else its [`AgentGrid`]'s (`None` until the plugin has made it, which it does
    /// for the kinds of the agents that ask for paths or ranges).
    pub fn grid_for(&self, agent: AgentKind) -> Option<&NavGrid> {
        if agent.is_plain() {
            return Some(&self.grid);
        }
        self.agent_grid(agent).map(AgentGrid::grid)
    }

    /// The precomputed paths for this map, when it has
    /// [`PrecomputePaths`](crate::plugin::PrecomputePaths) and the table has been built (check
    /// [`PathTable::is_current`](crate::search::PathTable::is_current) against `grid`).
    pub fn path_table(&self) -> Option<&crate::search::PathTable> {
        match self.precomputed() {
            Some(Precomputed::Table(table)) => Some(table),
            _ => None,
        }
    }

    /// The first-move table for this map, when it has [`PrecomputePaths`](crate::plugin::PrecomputePaths),
    /// no path table serves it and it has at most
    /// [`MAX_FIRST_MOVE_CELLS`](crate::search::MAX_FIRST_MOVE_CELLS) passable cells (check
    /// [`FirstMoveTable::is_current`](crate::search::FirstMoveTable::is_current) against `grid`).
    pub fn first_move_table(&self) -> Option<&crate::search::FirstMoveTable> {
        match self.precomputed() {
            Some(Precomputed::FirstMoves(moves)) => Some(moves),
            _ => None,
        }
    }

    /// The landmarks that guide searches on this map, when it has
    /// [`PrecomputePaths`](crate::plugin::PrecomputePaths) and no table serves it (terrain costs, 4-way
    /// or hex moves, corner cutting, too many wall corners).
    pub fn landmarks(&self) -> Option<&crate::search::Landmarks> {
        match self.precomputed() {
            Some(Precomputed::Landmarks(landmarks)) => Some(landmarks),
            _ => None,
        }
    }

    /// True when what is precomputed for this map (its path table, first-move table or
    /// landmarks) was loaded from its [`BakedPaths`](crate::plugin::BakedPaths) rather than built: a
    /// way to check that a shipped bake is used.
    pub fn precomputed_from_bake(&self) -> bool {
        self.precomputed.as_ref().is_some_and(|(_, from_bake)| *from_bake)
    }

    /// The [`AgentGrid`] kept for agents of this kind, if any (with each cell's clearance).
    pub fn agent_grid(&self, agent: AgentKind) -> Option<&AgentGrid> {
        self.agents.built.iter().find(|(kind, _)| *kind == agent).map(|(_, grid)| grid)
    }
}

/// Every navigation map, oldest first, kept in step with the marked tilemaps by the plugin.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_tilemap_nav::prelude::*;
/// fn show(maps: Res<NavMaps>) {
///     // A game with one map:
///     if let Some(map) = maps.first() {
///         let open = map.grid.positions().filter(|&p| map.grid.is_passable(p)).count();
///         println!("{open} open cells");
///     }
///     // A game with several: by the map's entity, or by a world position.
///     if let Some(map) = maps.at_world(Vec2::new(100.0, 40.0)) {
///         println!("(100, 40) is on map {}", map.entity);
///     }
/// }
/// ```
#[derive(Resource, Clone, Debug, Default)]
pub struct NavMaps {
    pub(super) maps: Vec<NavMap>,
    /// Maps built from their layers but not served yet: their entity has [`NavMapLoading`].
    pub(super) held: Vec<NavMap>,
    /// Every entity with [`NavMapLoading`] (with layers or not yet).
    pub(super) loading: Vec<Entity>,
}

impl NavMaps {
    /// The oldest map: in a game with one map, the map.
    pub fn first(&self) -> Option<&NavMap> {
        self.maps.first()
    }

    /// The map whose entity is `map`.
    pub fn get(&self, map: Entity) -> Option<&NavMap> {
        self.maps.iter().find(|m| m.entity == map)
    }

    /// The map a marked tilemap is a layer of.
    pub fn of_tilemap(&self, tilemap: Entity) -> Option<&NavMap> {
        self.maps.iter().find(|m| m.layers.contains(&tilemap))
    }

    /// The map under a world position: of the maps it lies on, the oldest whose cell there is
    /// open, or else the oldest.
    pub fn at_world(&self, world: Vec2) -> Option<&NavMap> {
        let mut on =
            self.maps.iter().filter_map(|m| Some((m, m.geometry.world_to_cell(world).ok()?)));
        let first = on.clone().next().map(|(m, _)| m);
        on.find(|(m, cell)| m.grid.is_passable(*cell)).map(|(m, _)| m).or(first)
    }

    /// Every map, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &NavMap> {
        self.maps.iter()
    }

    /// How many maps there are.
    pub fn len(&self) -> usize {
        self.maps.len()
    }

    /// No map yet (no tilemap marked for navigation).
    pub fn is_empty(&self) -> bool {
        self.maps.is_empty()
    }

    /// The position of map `map` in [`iter`](Self::iter)'s order: the index a search over
    /// several maps names it by ([`MapPos::map`]). The plugin names a map by its entity, the
    /// core by this index: these three methods are the only places one becomes the other.
    pub(crate) fn index_of(&self, map: Entity) -> Option<usize> {
        self.maps.iter().position(|m| m.entity == map)
    }

    /// Cell `cell` of map `map` as a search over several maps names it, if `map` is served.
    pub(crate) fn map_pos(&self, map: Entity, cell: GridPos) -> Option<MapPos> {
        Some(MapPos::new(self.index_of(map)?, cell))
    }

    /// The map a search over several maps names `index` (see [`index_of`](Self::index_of)).
    pub(crate) fn by_index(&self, index: usize) -> Option<&NavMap> {
        self.maps.get(index)
    }

    pub(crate) fn maps_mut(&mut self) -> impl Iterator<Item = &mut NavMap> {
        self.maps.iter_mut()
    }

    /// True while the map whose entity is `map` has [`NavMapLoading`]: it is not served yet
    /// (none of the methods above finds it).
    pub fn is_loading(&self, map: Entity) -> bool {
        self.loading.contains(&map)
    }

    /// True while some map is loading: requests that find no served map to start or end on
    /// wait rather than fail.
    pub(crate) fn any_loading(&self) -> bool {
        !self.loading.is_empty()
    }

    /// A map that is loading, as its layers make it so far (not served: see
    /// [`NavMapLoading`]). `None` when it has no layers yet, or is not loading.
    pub fn loading_map(&self, map: Entity) -> Option<&NavMap> {
        self.held.iter().find(|m| m.entity == map)
    }
}

/// Message: a map is served from this frame on: it appeared in [`NavMaps`] (its layers were
/// marked and, if it had [`NavMapLoading`], that was removed), or came back after loading
/// again (a reloaded level).
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct NavMapReady {
    /// The map's entity ([`NavMap::entity`]).
    pub map: Entity,
}

/// Message: cells of a map's [`NavGrid`] changed this frame (walls built or removed, costs
/// changed), or the map was built afresh (every cell listed).
#[derive(Message, Clone, Debug, PartialEq)]
pub struct NavGridChanged {
    /// The map's entity ([`NavMap::entity`]).
    pub map: Entity,
    /// The cells whose blocked state or cost changed, each once.
    pub cells: Vec<GridPos>,
}
