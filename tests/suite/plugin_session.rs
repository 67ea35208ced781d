//! The plugin driven by a stream of bytes, as a fuzzer drives it: each byte picks what the game
//! does next (spawn an agent of any kind, ask, ask again, re-target, build or tear down a wall,
//! add or take away a link, despawn, take away or put back a follower, ask for a range, write
//! odd numbers into a radius, a speed, a position, a path, send agents down a distance field
//! (`FollowField`) and move its goals anywhere, off the map too), and every frame is checked:
//! - nothing panics (the test would fail);
//! - grid-locked agents hold different cells;
//! - no agent walks into a cell that was a wall the frame before and still is;
//! - every request and range request is answered (or failed) within a bounded number of frames;
//! - no frame searches more than the frame's budget plus one slice, but for the searches of
//!   flights and wanders (away from, a wander: searched whole; the nearest of several cells
//!   counts, spread over frames as a search for one cell is);
//! - no position the plugin writes is NaN or infinite;
//! - every agent with a request, a `FollowField` or a `Pursuit` (and a follower that can move)
//!   is walking, has arrived, or was told why (`PathFailed`) within a bounded number of frames,
//!   while the stream also walls and frees field goals, despawns a map under a field and its
//!   walkers, rescales and moves that map, shuts and opens doors (`TileEdges`) and churns
//!   profiles.
//!
//! `cargo test --test suite plugin_session::` runs seeded random streams; `SESSION_BYTES=file` replays
//! one stream from a file (as a fuzzer's crash would be), `SESSION_SEEDS=n` runs more seeds.

use std::collections::HashMap;
use std::time::Duration;

use crate::support::Rng;
use crate::tilemap::{nav_app, spawn_text_tilemap, spawn_typed_tilemap};
use bevy::ecs::message::Messages;
use bevy::ecs::world::EntityRef;
use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_tilemap_nav::plugin::{Arrival, FollowField, NavField, NavGeometry, OnNavMap, Pursuit};
use bevy_tilemap_nav::plugin::{NavDiagnostics, NavMap, NavMapLoading, Replanning};
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::CELL_WORK;

const WALL: u32 = 1;
const FLOOR: u32 = 0;
const TILE: f32 = 16.0;
const BUDGET: u64 = 600;
/// A request still waiting after this many frames is a failure of the plugin.
const ANSWER_WITHIN: usize = 240;
/// An agent sent somewhere that neither walks, nor has arrived, nor was told why, for this many
/// frames, is a failure of the plugin (it stands silently).
const SILENT_WITHIN: usize = 360;
/// The side of the map the stream despawns, rescales and moves (a `NavGridMap`).
const SCRATCH: u32 = 20;

/// Reads the stream: each call a byte, 0 once it is spent.
struct Bytes<'a> {
    data: &'a [u8],
    at: usize,
}

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    fn below(&mut self, n: usize) -> usize {
        let v = usize::from(self.byte()) | usize::from(self.byte()) << 8;
        v % n.max(1)
    }

    /// True once in `n` (by the next byte).
    fn one_in(&mut self, n: u8) -> bool {
        self.byte().is_multiple_of(n)
    }

    fn done(&self) -> bool {
        self.at >= self.data.len()
    }

    /// A number a game might write, odd ones included.
    fn odd(&mut self, normal: f32) -> f32 {
        match self.byte() % 10 {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => 1.0e30,
            3 => -normal,
            4 => 0.0,
            5 => f32::MAX,
            _ => normal * (1.0 + f32::from(self.byte()) / 64.0),
        }
    }
}

struct Session {
    app: App,
    maps: Vec<Entity>,
    agents: Vec<Entity>,
    links: Vec<Entity>,
    /// A distance field agents may follow (its goals move).
    field: Entity,
    /// Agents whose position the stream made odd: not checked for finite positions.
    odd_positions: Vec<Entity>,
    /// Since when each entity has had a request or range request waiting.
    waiting_since: HashMap<(Entity, bool), usize>,
    /// Each agent's cell the frame before, and the walls then.
    last_cells: HashMap<Entity, (Entity, GridPos)>,
    last_walls: HashMap<Entity, NavGrid>,
    /// Cells grid-locked agents hold, as of the last frame and the spawns since.
    locked_cells: Vec<(Entity, GridPos)>,
    /// A map loading again ([`NavMapLoading`]) until the frame given.
    loading: Option<(Entity, usize)>,
    frame: usize,
    /// A `NavGridMap` the stream despawns (`None` until it spawns another), rescales and moves,
    /// and a field on it.
    scratch: Option<Entity>,
    scratch_field: Entity,
    /// Each map's geometry the frame before (rescaled: its agents' cells change, unwalked).
    last_geometry: HashMap<Entity, NavGeometry>,
    told: Told,
}

/// What the check that no agent stands silently keeps: each agent's position the frame before,
/// the frame it last had a request, the frame it last arrived, and since when it has stood
/// silent.
#[derive(Default)]
struct Told {
    last_at: HashMap<Entity, Vec2>,
    asked_at: HashMap<Entity, usize>,
    arrived_at: HashMap<Entity, usize>,
    silent_since: HashMap<Entity, usize>,
}

fn rows(rng: &mut Rng, width: usize, height: usize) -> Vec<String> {
    (0..height)
        .map(|_| (0..width).map(|_| if rng.chance(15) { '#' } else { '.' }).collect())
        .collect()
}

impl Session {
    fn new(seed: u64) -> Self {
        let mut app = nav_app(Duration::from_millis(16), WALL);
        app.world_mut().resource_mut::<NavSettings>().work.shares.searches = BUDGET * CELL_WORK;
        if seed % 2 == 1 {
            // Field builds of a few frames each: goals moved, maps changed and fields despawned
            // while a build is under way.
            app.world_mut().resource_mut::<NavSettings>().work.shares.fields = 1_500;
        }
        let mut rng = Rng(seed);
        let texture = |c: char| Some(if c == '#' { WALL } else { FLOOR });
        let a = rows(&mut rng, 32, 32);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let b = rows(&mut rng, 16, 16);
        let b: Vec<&str> = b.iter().map(String::as_str).collect();
        let first = spawn_text_tilemap(&mut app, &a, TILE, Vec2::ZERO, texture);
        let second = spawn_text_tilemap(&mut app, &b, TILE, Vec2::new(40.0 * TILE, 0.0), texture);
        // A hex map too, which agents of size 2 cannot use.
        let hex = spawn_hex(&mut app, Vec2::new(0.0, 40.0 * TILE));
        app.update();
        let nav = app.world().resource::<NavMaps>();
        let maps = [first, second, hex].map(|t| nav.of_tilemap(t).expect("a map").entity).to_vec();
        let mut nav = NavField::new(maps[0], vec![GridPos::new(5, 5)]);
        if seed % 4 >= 2 {
            nav = nav.covering_followers(); // built only as far as its followers need
        }
        let field = app.world_mut().spawn(nav).id();
        let scratch = spawn_scratch(&mut app);
        let scratch_field =
            app.world_mut().spawn(NavField::new(scratch, vec![GridPos::new(15, 15)])).id();
        Session {
            app,
            maps,
            agents: Vec::new(),
            links: Vec::new(),
            field,
            odd_positions: Vec::new(),
            waiting_since: HashMap::new(),
            last_cells: HashMap::new(),
            last_walls: HashMap::new(),
            locked_cells: Vec::new(),
            loading: None,
            frame: 0,
            scratch: Some(scratch),
            scratch_field,
            last_geometry: HashMap::new(),
            told: Told::default(),
        }
    }

    fn map(&self, k: usize) -> NavMap {
        let maps = self.app.world().resource::<NavMaps>();
        let map = self.maps[k % self.maps.len()];
        maps.get(map).or_else(|| maps.loading_map(map)).expect("the map").clone()
    }

    fn cell(&self, bytes: &mut Bytes, map: &NavMap) -> GridPos {
        let (w, h) = (map.grid.width() as usize, map.grid.height() as usize);
        // Now and then a cell off the map.
        GridPos::new(bytes.below(w + 2) as u32, bytes.below(h + 2) as u32)
    }

    fn agent(&self, bytes: &mut Bytes) -> Option<Entity> {
        let k = bytes.below(self.agents.len());
        self.agents.get(k).copied().filter(|&e| self.app.world().get_entity(e).is_ok())
    }

    /// One thing the game does.
    fn act(&mut self, bytes: &mut Bytes) {
        let op = bytes.byte() % 22;
        let map = self.map(bytes.below(3));
        match op {
            0..=2 => {
                let cell = self.cell(bytes, &map);
                let at = map.geometry.cell_to_world(cell).extend(1.0);
                let speed = bytes.odd(60.0);
                let mut agent = self.app.world_mut().spawn((
                    Transform::from_translation(at),
                    PathFollower { speed, next: 0, smooth: bytes.one_in(3) },
                ));
                match bytes.byte() % 7 {
                    // Grid-locked agents are placed on cells no other holds (placing two on one
                    // cell is the game's mistake: both would stand there).
                    0 if !self.locked_cells.contains(&(map.entity, cell)) => {
                        self.locked_cells.push((map.entity, cell));
                        agent.insert(GridLocked::default());
                    }
                    1 => {
                        agent.insert(Avoidance::new(if bytes.one_in(2) {
                            5.0
                        } else {
                            bytes.odd(5.0)
                        }));
                    }
                    2 => {
                        agent.insert(NavObstacle::default());
                    }
                    3 => {
                        agent.insert(AgentKind::sized(2));
                    }
                    4 => {
                        // A team whose members pass through each other.
                        let team = NavTeam(bytes.byte() % 3);
                        agent.insert((team, NavObstacle::ally_of(team)));
                    }
                    5 => {
                        // Down the field: straight off it, or (steering) along a path read off it.
                        agent.insert(FollowField(self.field));
                        if bytes.one_in(3) {
                            agent.insert(Avoidance::new(5.0));
                        }
                    }
                    _ => {}
                }
                let id = agent.id();
                self.agents.push(id);
            }
            3..=5 => {
                let Some(agent) = self.agent(bytes) else { return };
                // Another agent (despawned perhaps, or itself): to chase, or to run from.
                let other = self.agents.get(bytes.below(self.agents.len())).copied();
                let goal = match bytes.byte() % 9 {
                    0 => PathGoal::World(Vec2::new(bytes.odd(200.0), bytes.odd(200.0))),
                    1 => PathGoal::OnMap { map: map.entity, cell: self.cell(bytes, &map) },
                    2 => PathGoal::Entity(other.unwrap_or(agent)),
                    3 => PathGoal::Nearest(
                        (0..bytes.below(4)).map(|_| self.cell(bytes, &map)).collect(),
                    ),
                    4 => PathGoal::AwayFrom {
                        threats: other.into_iter().collect(),
                        budget: f64::from(bytes.odd(8.0)),
                    },
                    5 => PathGoal::Wander {
                        budget: f64::from(bytes.odd(6.0)),
                        seed: u64::from(bytes.byte()),
                    },
                    _ => PathGoal::Tile(self.cell(bytes, &map)),
                };
                let arrive = match bytes.byte() % 6 {
                    0 => Arrival::Within(bytes.odd(TILE * 2.0)),
                    1 => Arrival::WithinCost(f64::from(bytes.odd(3.0))),
                    2 => Arrival::InSight { distance: bytes.odd(TILE * 4.0) },
                    _ => Arrival::AtGoal,
                };
                let request = PathRequest::to(goal).with_arrival(arrive);
                self.app.world_mut().entity_mut(agent).insert(request);
            }
            6 => {
                // Asked again, for the goal it has.
                let Some(agent) = self.agent(bytes) else { return };
                let goal = self.app.world().get::<NavPath>(agent).map(|p| p.goal);
                if let Some(goal) = goal {
                    self.app.world_mut().entity_mut(agent).insert(PathRequest::to(goal));
                }
            }
            7 | 8 => {
                let cell = self.cell(bytes, &map);
                let Some(layer) = map.layers.first().copied() else { return };
                let tile = self
                    .app
                    .world()
                    .get::<TileStorage>(layer)
                    .and_then(|s| s.checked_get(&TilePos::new(cell.x, cell.y)));
                if let Some(tile) = tile
                    && let Some(mut texture) =
                        self.app.world_mut().get_mut::<TileTextureIndex>(tile)
                {
                    texture.0 = if texture.0 == WALL { FLOOR } else { WALL };
                }
            }
            9 => {
                let other = self.map(bytes.below(3));
                let (a, b) = (self.cell(bytes, &map), self.cell(bytes, &other));
                let cost = if bytes.one_in(4) { f64::from(bytes.odd(3.0)) } else { 3.0 };
                let link = NavLink {
                    from: LinkEnd::new(map.entity, a),
                    to: LinkEnd::new(other.entity, b),
                    cost,
                    two_way: bytes.one_in(2),
                };
                let id = self.app.world_mut().spawn(link).id();
                self.links.push(id);
            }
            10 if !self.links.is_empty() => {
                let link = self.links.swap_remove(bytes.below(self.links.len()));
                self.app.world_mut().despawn(link);
            }
            11 => {
                let Some(agent) = self.agent(bytes) else { return };
                self.app.world_mut().despawn(agent);
            }
            12 => {
                let Some(agent) = self.agent(bytes) else { return };
                let mut entity = self.app.world_mut().entity_mut(agent);
                if entity.contains::<PathFollower>() {
                    entity.remove::<PathFollower>();
                } else {
                    entity.insert(PathFollower::new(50.0));
                }
            }
            13 => {
                let Some(agent) = self.agent(bytes) else { return };
                let budget = match bytes.byte() % 4 {
                    0 => f64::INFINITY,
                    1 => f64::NAN,
                    2 => -1.0,
                    _ => f64::from(bytes.byte()),
                };
                self.app.world_mut().entity_mut(agent).insert(RangeRequest::within(budget));
            }
            14 => {
                // Odd numbers written by the game into its own components.
                let Some(agent) = self.agent(bytes) else { return };
                match bytes.byte() % 4 {
                    0 => {
                        let x = bytes.odd(100.0);
                        if let Some(mut t) = self.app.world_mut().get_mut::<Transform>(agent) {
                            t.translation.x = x;
                        }
                        self.odd_positions.push(agent);
                    }
                    1 => {
                        // An index past the path's end (one within it is the game's to choose:
                        // the agent walks straight to that point).
                        let past = 1 + bytes.below(1000);
                        let len =
                            self.app.world().get::<NavPath>(agent).map_or(0, |p| p.points.len());
                        if let Some(mut f) = self.app.world_mut().get_mut::<PathFollower>(agent) {
                            f.next = if bytes.one_in(2) { usize::MAX } else { len + past };
                        }
                    }
                    2 => {
                        let cut = bytes.below(4);
                        if let Some(mut path) = self.app.world_mut().get_mut::<NavPath>(agent) {
                            let keep = path.points.len().saturating_sub(cut);
                            path.points.truncate(keep);
                        }
                    }
                    _ => {
                        let speed = bytes.odd(50.0);
                        if let Some(mut f) = self.app.world_mut().get_mut::<PathFollower>(agent) {
                            f.speed = speed;
                        }
                    }
                }
            }
            15 if self.loading.is_none() && bytes.one_in(2) => {
                // The map is put together again over a few frames (a level reloaded): its
                // requests wait, its walkers stand.
                let until = self.frame + 1 + bytes.below(8);
                self.app.world_mut().entity_mut(map.entity).insert(NavMapLoading);
                self.loading = Some((map.entity, until));
            }
            16 => {
                // The field's goals moved: anywhere on any map, blocked or off it, or none.
                let goals = (0..bytes.below(3)).map(|_| self.cell(bytes, &map)).collect();
                let mut field = self.app.world_mut().get_mut::<NavField>(self.field).unwrap();
                field.map = map.entity;
                field.goals = goals;
            }
            17 => self.scratch_agents(bytes),
            18 => match self.scratch.take() {
                // The scratch map despawned under its field and walkers, or a new one.
                Some(map) => {
                    self.app.world_mut().despawn(map);
                }
                None => {
                    let map = spawn_scratch(&mut self.app);
                    self.scratch = Some(map);
                    let mut field = self.app.world_mut().get_mut::<NavField>(self.scratch_field);
                    field.as_mut().unwrap().map = map;
                }
            },
            19 => {
                // The scratch map rescaled or moved.
                let Some(map) = self.scratch else { return };
                let size = [8.0, 16.0, 24.0, 32.0][bytes.below(4)];
                let at = Vec3::new(-900.0 + bytes.below(200) as f32, bytes.below(200) as f32, 0.0);
                let mut entity = self.app.world_mut().entity_mut(map);
                match bytes.one_in(2) {
                    true => entity.get_mut::<NavGridMap>().unwrap().tile_size = Vec2::splat(size),
                    false => {
                        entity.insert(Transform::from_translation(at));
                    }
                }
            }
            20 => {
                // A door: walls between tiles put up or taken down on a tile of the first map.
                let Some(layer) = self.map(0).layers.first().copied() else { return };
                let cell = self.cell(bytes, &self.map(0));
                let storage = self.app.world().get::<TileStorage>(layer);
                let Some(tile) = storage.and_then(|s| s.checked_get(&TilePos::new(cell.x, cell.y)))
                else {
                    return;
                };
                let sides = [Sides::NORTH, Sides::EAST, Sides::NORTH | Sides::EAST][bytes.below(3)];
                let mut tile = self.app.world_mut().entity_mut(tile);
                match tile.contains::<TileEdges>() {
                    true => tile.remove::<TileEdges>(),
                    false => tile.insert(TileEdges { walls: sides, drops: Sides::NONE }),
                };
            }
            21 => {
                // A profile inserted again (the same or changed), and an agent given it.
                let name = ["cart", "ghost", "boat"][bytes.below(3)];
                let rule = [TerrainRule::AsGrid, TerrainRule::Blocked, TerrainRule::Cost(3)]
                    [bytes.below(3)];
                let profile = NavProfile::new().with(Terrain(bytes.byte() % 3), rule);
                let mut profiles = self.app.world_mut().resource_mut::<NavProfiles>();
                let Ok(id) = profiles.insert(name, profile) else { return };
                if bytes.one_in(3)
                    && let Some(agent) = self.agent(bytes)
                {
                    self.app.world_mut().entity_mut(agent).insert(AgentKind::with_profile(id));
                }
            }
            _ => {} // a frame with nothing new
        }
    }

    /// Agents on the scratch map: down its field (walking or steering), or sent to a cell of it;
    /// and now and then its field's goals walled or freed, or moved.
    fn scratch_agents(&mut self, bytes: &mut Bytes) {
        let Some(map) = self.scratch else { return };
        let Some(nav) = self.app.world().resource::<NavMaps>().get(map).cloned() else { return };
        let cell = |bytes: &mut Bytes| {
            GridPos::new(bytes.below(SCRATCH as usize) as u32, bytes.below(SCRATCH as usize) as u32)
        };
        match bytes.byte() % 4 {
            0 => {
                // A field goal walled, or freed.
                let goals =
                    self.app.world().get::<NavField>(self.scratch_field).unwrap().goals.clone();
                let Some(&goal) = goals.get(bytes.below(goals.len().max(1))) else { return };
                let mut grid_map = self.app.world_mut().get_mut::<NavGridMap>(map).unwrap();
                let open = grid_map.grid.is_passable(goal);
                let _ = grid_map
                    .grid
                    .set(goal, if open { Cell::Blocked } else { Cell::Passable { cost: 1 } });
            }
            1 => {
                let goals = (0..bytes.below(3)).map(|_| cell(bytes)).collect();
                self.app.world_mut().get_mut::<NavField>(self.scratch_field).unwrap().goals = goals;
            }
            _ => {
                for _ in 0..1 + bytes.below(3) {
                    let at = nav.geometry.cell_to_world(cell(bytes)).extend(1.0);
                    let mut agent = self.app.world_mut().spawn((
                        Transform::from_translation(at),
                        PathFollower { speed: 60.0, next: 0, smooth: bytes.one_in(2) },
                    ));
                    match bytes.byte() % 3 {
                        0 => agent.insert(FollowField(self.scratch_field)),
                        1 => agent.insert((FollowField(self.scratch_field), Avoidance::new(5.0))),
                        _ => agent
                            .insert(PathRequest::to(PathGoal::OnMap { map, cell: cell(bytes) })),
                    };
                    let id = agent.id();
                    self.agents.push(id);
                }
            }
        }
    }

    /// Runs a frame and checks it.
    fn frame(&mut self, label: &str) {
        if let Some((map, until)) = self.loading
            && self.frame >= until
        {
            self.app.world_mut().entity_mut(map).remove::<NavMapLoading>();
            self.loading = None;
        }
        self.app.update();
        self.frame += 1;
        let frame = self.frame;
        let world = self.app.world();
        let diagnostics = *world.resource::<NavDiagnostics>();
        // (The searches answered whole are left out: flights, wanders.)
        let spent =
            diagnostics.expansions - diagnostics.whole_expansions + diagnostics.range_expansions;
        assert!(spent <= BUDGET + 16, "{label} frame {frame}: {spent} cells searched");
        // Every wall built or torn down this frame is in the map's grid once the frame is done
        // (the sync finds changed textures a block of change ticks at a time).
        for map in world.resource::<NavMaps>().iter() {
            let [layer] = map.layers[..] else { continue };
            if world.get::<NavMapLoading>(map.entity).is_some() {
                continue;
            }
            let Some(storage) = world.get::<TileStorage>(layer) else { continue };
            for cell in map.grid.positions() {
                let tile = storage.checked_get(&TilePos::new(cell.x, cell.y));
                let texture = tile.and_then(|t| world.get::<TileTextureIndex>(t)).map(|t| t.0);
                let wall = texture == Some(WALL);
                assert_eq!(
                    wall,
                    !map.grid.is_passable(cell),
                    "{label} frame {frame}: the grid of {} disagrees with its tile at {cell}",
                    map.entity
                );
            }
        }
        if let Ok(watch) = std::env::var("SESSION_WATCH") {
            for &agent in &self.agents {
                if watch.split(',').any(|w| w == format!("{agent}"))
                    && let Ok(e) = world.get_entity(agent)
                {
                    eprintln!(
                        "WATCH {frame} {agent}: {:?} {:?} req {:?} path {:?} next {:?}",
                        e.get::<GridLocked>(),
                        e.get::<Transform>().map(|t| t.translation.truncate()),
                        e.get::<PathRequest>().map(|r| (r.goal.clone(), r.start)),
                        e.get::<NavPath>().map(|p| p
                            .cells
                            .iter()
                            .take(3)
                            .copied()
                            .collect::<Vec<_>>()),
                        e.get::<PathFollower>().map(|f| f.next)
                    );
                }
            }
        }
        let maps = world.resource::<NavMaps>();
        for arrived in world.resource::<Messages<Arrived>>().iter_current_update_messages() {
            self.told.arrived_at.insert(arrived.entity, frame);
        }
        let rescaled: Vec<Entity> = maps
            .iter()
            .filter(|m| self.last_geometry.get(&m.entity).is_some_and(|g| *g != m.geometry))
            .map(|m| m.entity)
            .collect();
        let mut held: HashMap<(Entity, GridPos), Entity> = HashMap::new();
        let mut cells = HashMap::new();
        for &agent in &self.agents {
            let Ok(entity) = world.get_entity(agent) else { continue };
            for (ranged, asked) in [
                (false, entity.contains::<PathRequest>()),
                (true, entity.contains::<RangeRequest>()),
            ] {
                if asked {
                    let since = *self.waiting_since.entry((agent, ranged)).or_insert(frame);
                    assert!(
                        frame - since <= ANSWER_WITHIN,
                        "{label} frame {frame}: {agent}'s request (range: {ranged}) waits since \
                         frame {since}: {:?} {:?} {:?} locked {:?} replanning {} follower {:?}",
                        entity.get::<PathRequest>(),
                        entity.get::<AgentKind>(),
                        entity.get::<Transform>().map(|t| t.translation),
                        entity.get::<GridLocked>(),
                        entity.contains::<Replanning>(),
                        entity.get::<PathFollower>(),
                    );
                } else {
                    self.waiting_since.remove(&(agent, ranged));
                }
            }
            if let Some(lock) = entity.get::<GridLocked>()
                && let Some((map, here)) = lock.holds
            {
                for cell in std::iter::once(here).chain(lock.entering) {
                    // (Unless the game itself put one of them there: a position it wrote.)
                    if let Some(other) = held.insert((map, cell), agent)
                        && !self.odd_positions.contains(&agent)
                        && !self.odd_positions.contains(&other)
                    {
                        let show = |e: Entity| {
                            let e = world.entity(e);
                            (
                                e.get::<GridLocked>().copied(),
                                e.get::<Transform>().map(|t| t.translation),
                                e.get::<NavPath>().map(|p| (p.map, p.cells.clone())),
                                self.odd_positions.contains(&e.id()),
                            )
                        };
                        panic!(
                            "{label} frame {frame}: {agent} and {other} both hold {cell}: {:?} {:?}",
                            show(agent),
                            show(other)
                        );
                    }
                }
            }
            let Some(transform) = entity.get::<Transform>() else { continue };
            let at = transform.translation.truncate();
            if self.odd_positions.contains(&agent) {
                continue;
            }
            let loading = self.loading.is_some();
            self.told.check((label, frame, loading), world, entity, at);
            assert!(at.is_finite(), "{label} frame {frame}: {agent} at {at}");
            let Some(on) = entity
                .get::<OnNavMap>()
                .and_then(|on| maps.get(on.0))
                .or_else(|| maps.at_world(at))
            else {
                continue;
            };
            let Ok(cell) = on.geometry.world_to_cell(at) else { continue };
            let was = self.last_cells.insert(agent, (on.entity, cell));
            let moved_in = was.is_some_and(|w| w != (on.entity, cell));
            let wall_before = self
                .last_walls
                .get(&on.entity)
                .is_some_and(|g| g.in_bounds(cell) && !g.is_passable(cell));
            let grid = on
                .grid_for(entity.get::<AgentKind>().copied().unwrap_or_default())
                .unwrap_or(&on.grid);
            let size = entity.get::<AgentKind>().map_or(1, |a| a.size);
            let rescaled = rescaled.contains(&on.entity);
            if moved_in && size == 1 && wall_before && !grid.is_passable(cell) && !rescaled {
                let kind = (
                    was,
                    at,
                    entity.get::<GridLocked>(),
                    entity.contains::<Avoidance>(),
                    entity.get::<PathFollower>(),
                    entity.get::<NavPath>().map(|p| (&p.cells, p.corners.len())),
                );
                panic!("{label} frame {frame}: {agent} walked into the wall at {cell}: {kind:?}");
            }
            cells.insert(agent, cell);
        }
        self.last_walls = maps.iter().map(|m| (m.entity, m.grid.clone())).collect();
        self.last_geometry = maps.iter().map(|m| (m.entity, m.geometry)).collect();
        self.locked_cells = held.into_keys().collect();
    }

    fn run(&mut self, bytes: &mut Bytes, label: &str) {
        while !bytes.done() {
            for _ in 0..1 + bytes.byte() % 4 {
                self.act(bytes);
            }
            self.frame(label);
        }
        // Then quiet frames: everything asked gets its answer.
        for _ in 0..ANSWER_WITHIN + 10 {
            self.frame(label);
        }
    }
}

impl Told {
    /// An agent sent somewhere (a request, a field, a pursuit) that can move is walking (a path,
    /// or it moved), has arrived since it was last asked (or stands at its field's end), or was
    /// told why (`PathFailed`); silent for [`SILENT_WITHIN`] frames, the plugin failed it.
    fn check(
        &mut self,
        (label, frame, loading): (&str, usize, bool),
        world: &World,
        entity: EntityRef,
        at: Vec2,
    ) {
        let agent = entity.id();
        let moved = self.last_at.insert(agent, at).is_none_or(|was| was != at);
        if entity.contains::<PathRequest>() {
            self.asked_at.insert(agent, frame);
        }
        let sent = entity.contains::<PathRequest>()
            || entity.contains::<FollowField>()
            || entity.contains::<Pursuit>();
        let can_move = entity
            .get::<PathFollower>()
            .is_some_and(|f| f.speed.is_finite() && f.speed > 0.0 && f.speed < 1e6);
        let field_end = entity
            .get::<FollowField>()
            .and_then(|f| world.get::<NavField>(f.0))
            .is_some_and(|nav| {
                let maps = world.resource::<NavMaps>();
                let (Some(field), Some(map)) = (nav.field(), maps.get(nav.map)) else {
                    return false;
                };
                map.geometry.world_to_cell(at).is_ok_and(|c| field.is_end(c))
            });
        let arrived = self
            .arrived_at
            .get(&agent)
            .is_some_and(|&a| a >= self.asked_at.get(&agent).copied().unwrap_or(0))
            && !entity.contains::<FollowField>();
        let accounted = !sent
            || !can_move
            || loading
            || moved
            || entity.contains::<NavPath>()
            || entity.contains::<PathRequest>() // answered within its own bound
            || entity.contains::<PathFailed>()
            || arrived
            || field_end;
        if accounted {
            self.silent_since.remove(&agent);
            return;
        }
        let since = *self.silent_since.entry(agent).or_insert(frame);
        assert!(
            frame - since <= SILENT_WITHIN,
            "{label} frame {frame}: {agent} stands silent since frame {since}: at {at}, field {:?}, \
             pursuit {:?}, follower {:?}, kind {:?}, field error {:?}",
            entity.get::<FollowField>(),
            entity.get::<Pursuit>().map(|p| &p.request.goal),
            entity.get::<PathFollower>(),
            entity.get::<AgentKind>(),
            entity.get::<FollowField>().and_then(|f| world.get::<NavField>(f.0)).map(|n| (
                n.error().cloned(),
                n.field().is_some(),
                n.goals.clone()
            )),
        );
    }
}

/// The scratch map: a `NavGridMap` of [`SCRATCH`] cells a side left of the others, a few walls.
fn spawn_scratch(app: &mut App) -> Entity {
    let mut grid = NavGrid::new(SCRATCH, SCRATCH).unwrap();
    for y in 3..17 {
        grid.set(GridPos::new(10, y), Cell::Blocked).unwrap();
    }
    let at = Transform::from_xyz(-900.0, 0.0, 0.0);
    app.world_mut().spawn((NavGridMap::square(grid, Vec2::splat(TILE)), at)).id()
}

fn spawn_hex(app: &mut App, at: Vec2) -> Entity {
    let map_type = TilemapType::Hexagon(HexCoordSystem::Row);
    let grid = TilemapGridSize { x: 14.0, y: 16.0 };
    let at = Transform::from_translation(at.extend(0.0));
    spawn_typed_tilemap(app, 10, map_type, grid, at, |x, y| u32::from((x + y) % 7 == 3))
}

#[test]
fn random_sessions_keep_every_promise_every_frame() {
    if let Some(path) = std::env::var_os("SESSION_BYTES") {
        let data = std::fs::read(&path).expect("SESSION_BYTES names a readable file");
        Session::new(1).run(&mut Bytes { data: &data, at: 0 }, "replay");
        return;
    }
    let seeds: u64 = std::env::var("SESSION_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(12);
    let first: u64 = std::env::var("SESSION_FIRST").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    for seed in first..=seeds {
        if std::env::var_os("SESSION_PROGRESS").is_some() {
            eprintln!("seed {seed}");
        }
        let mut rng = Rng(seed * 7919);
        let data: Vec<u8> = (0..6000).map(|_| rng.below(256) as u8).collect();
        Session::new(seed).run(&mut Bytes { data: &data, at: 0 }, &format!("seed {seed}"));
    }
}
