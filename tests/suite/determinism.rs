//! Deterministic mode: with the search budget counted in expanded cells only (no clock), two
//! runs of one scripted scene give the same paths on the same frames and bit-identical agent
//! positions, frame by frame. The scene has what makes order matter: walls built and taken
//! down under walking agents, agents steering round one another, links, agents re-targeted
//! mid-walk and despawned, precomputed paths built again after every change. The searches of a
//! frame run on four threads give the same as on one.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::Duration;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_tilemap_nav::prelude::*;

use crate::support::Rng;
#[allow(dead_code)] // its text tilemaps are not used here
use crate::tilemap::{spawn_typed_tilemap, threaded_nav_app};
use bevy_tilemap_nav::search::CELL_WORK;

const WALL: u32 = 1;
const SIZE: u32 = 40;
const AGENTS: usize = 80;
const FRAMES: usize = 900;

/// One run of the scene with the searches on `threads` threads of the compute task pool: a hash
/// of every agent's `Transform` (bits) and path cost each frame, and how many searches ran
/// ahead on the pool.
fn run(seed: u64, threads: usize, cells: u64) -> (Vec<u64>, u32) {
    let mut rng = Rng(seed);
    let mut app = threaded_nav_app(Duration::from_millis(16), WALL);
    // Few cells a frame, so that searches are spread over frames and queued.
    let mut settings = NavSettings::deterministic();
    settings.work.shares.searches = cells * CELL_WORK;
    settings.search_threads = threads;
    app.insert_resource(settings);
    let walls: Vec<bool> = (0..SIZE * SIZE).map(|_| rng.chance(15)).collect();
    let grid_size = TilemapGridSize { x: 16.0, y: 16.0 };
    let map = spawn_typed_tilemap(
        &mut app,
        SIZE,
        TilemapType::Square,
        grid_size,
        Transform::default(),
        |x, y| u32::from(walls[(y * SIZE + x) as usize]),
    );
    // Precomputed paths too: built in slices of set work, they are ready on the same frame in
    // every run (the hash below says which frames).
    app.world_mut().entity_mut(map).insert(PrecomputePaths);
    app.update();
    let open: Vec<GridPos> = {
        let nav = app.world().resource::<NavMaps>().first().unwrap();
        nav.grid.positions().filter(|&p| nav.grid.is_passable(p)).collect()
    };
    let pick = |rng: &mut Rng| open[rng.below(open.len() as u32) as usize];
    for _ in 0..8 {
        let (a, b) = (pick(&mut rng), pick(&mut rng));
        let link = NavLink::two_way(LinkEnd::new(map, a), LinkEnd::new(map, b), 3.0);
        app.world_mut().spawn(link);
    }
    let centre = |app: &App, cell: GridPos| {
        app.world().resource::<NavMaps>().first().unwrap().geometry.cell_to_world(cell)
    };
    let mut agents: Vec<Entity> = (0..AGENTS)
        .map(|k| {
            let at = centre(&app, pick(&mut rng));
            let mut agent = app.world_mut().spawn((
                Transform::from_translation(at.extend(1.0)),
                PathFollower::new(40.0 + (k % 5) as f32 * 10.0),
                PathRequest::to(pick(&mut rng)),
            ));
            if k % 2 == 0 {
                agent.insert(Avoidance::new(5.0));
            }
            agent.id()
        })
        .collect();
    let storage = app.world().get::<TileStorage>(map).unwrap().clone();
    let mut hashes = Vec::with_capacity(FRAMES);
    let mut precomputed_frames = 0;
    let mut ahead = 0;
    for frame in 0..FRAMES {
        // Walls built and taken down.
        if frame % 10 == 5 {
            let cell = pick(&mut rng);
            let tile = storage.get(&TilePos::new(cell.x, cell.y)).unwrap();
            let index = app.world().get::<TileTextureIndex>(tile).unwrap().0;
            app.world_mut().entity_mut(tile).insert(TileTextureIndex(1 - index.min(1)));
        }
        // Agents re-targeted mid-walk, one despawned now and then.
        for &agent in &agents {
            if rng.chance(1) {
                let goal = pick(&mut rng);
                app.world_mut().entity_mut(agent).insert(PathRequest::to(goal));
            }
        }
        if frame % 97 == 50 {
            let gone = agents.remove(rng.below(agents.len() as u32) as usize);
            app.world_mut().entity_mut(gone).despawn();
        }
        app.update();
        ahead += app.world().resource::<bevy_tilemap_nav::plugin::NavDiagnostics>().searches_ahead;
        let nav = app.world().resource::<NavMaps>().first().unwrap();
        let current = [
            nav.path_table().is_some_and(|t| t.is_current(&nav.grid)),
            nav.first_move_table().is_some_and(|t| t.is_current(&nav.grid)),
            nav.landmarks().is_some_and(|l| l.is_current(&nav.grid)),
        ];
        precomputed_frames += usize::from(current.contains(&true));
        let mut hasher = DefaultHasher::new();
        current.hash(&mut hasher);
        for &agent in &agents {
            let transform = app.world().get::<Transform>(agent).unwrap();
            transform.translation.to_array().map(f32::to_bits).hash(&mut hasher);
            let path = app.world().get::<NavPath>(agent);
            path.map(|p| (p.cost.to_bits(), p.cells.len())).hash(&mut hasher);
        }
        hashes.push(hasher.finish());
    }
    // Built again after each change, a few frames later: current on some frames, not on all.
    assert!(precomputed_frames > 0 && precomputed_frames < FRAMES, "{precomputed_frames}");
    (hashes, ahead)
}

#[test]
fn the_same_scene_twice_gives_bit_identical_agents_every_frame() {
    for seed in [1, 2] {
        let ((first, _), (second, _)) = (run(seed, 1, 3000), run(seed, 1, 3000));
        let differs = first.iter().zip(&second).position(|(a, b)| a != b);
        assert_eq!(differs, None, "seed {seed}: the runs part at frame {differs:?}");
        // The scene is not still: positions change from frame to frame.
        assert!(first.windows(2).filter(|w| w[0] != w[1]).count() > FRAMES / 2);
    }
}

/// Few enough that searches run ahead outrun what the frame has left: some are searched again
/// in turn, and paused.
const CELLS: u64 = 300;

#[test]
fn searches_run_on_four_threads_answer_as_on_one() {
    for seed in [1, 2] {
        let ((one, none_ahead), (four, ahead)) = (run(seed, 1, CELLS), run(seed, 4, CELLS));
        let differs = one.iter().zip(&four).position(|(a, b)| a != b);
        assert_eq!(differs, None, "seed {seed}: one thread and four part at frame {differs:?}");
        // On one thread nothing runs ahead; on four, searches do.
        assert_eq!(none_ahead, 0);
        assert!(ahead > 100, "seed {seed}: {ahead} searches ran ahead");
    }
}

/// With a time budget, searches run ahead stop at the frame's deadline; the next in turn goes
/// on the next frame from where it stopped. Long searches (A* across a 160 x 160 map with a
/// frame's search time of 40 microseconds) are all answered, each with the cheapest path.
#[test]
fn long_searches_run_ahead_under_a_clock_are_answered_with_the_cheapest_paths() {
    const SIDE: u32 = 160;
    let mut rng = Rng(7);
    let mut app = threaded_nav_app(Duration::from_millis(16), WALL);
    let mut settings = NavSettings::default();
    settings.work.time = Some(Duration::from_micros(300));
    settings.search =
        SearchOptions { algorithm: bevy_tilemap_nav::search::Algorithm::AStar, ..default() };
    settings.search_threads = 4;
    app.insert_resource(settings);
    let walls: Vec<bool> = (0..SIDE * SIDE).map(|_| rng.chance(20)).collect();
    let grid_size = TilemapGridSize { x: 8.0, y: 8.0 };
    let at = Transform::default();
    let texture = |x, y| u32::from(walls[(y * SIDE + x) as usize]);
    spawn_typed_tilemap(&mut app, SIDE, TilemapType::Square, grid_size, at, texture);
    app.update();
    let grid = app.world().resource::<NavMaps>().first().unwrap().grid.clone();
    let open: Vec<GridPos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
    let pick = |rng: &mut Rng| open[rng.below(open.len() as u32) as usize];
    let asked: Vec<(Entity, GridPos, GridPos)> = (0..12)
        .map(|_| {
            let (start, goal) = (pick(&mut rng), pick(&mut rng));
            let request = PathRequest { start: Some(start), ..PathRequest::to(goal) };
            (app.world_mut().spawn(request).id(), start, goal)
        })
        .collect();
    let (mut ahead, mut frames) = (0, 0);
    while asked.iter().any(|&(agent, ..)| app.world().get::<NavPath>(agent).is_none()) {
        app.update();
        ahead += app.world().resource::<bevy_tilemap_nav::plugin::NavDiagnostics>().searches_ahead;
        frames += 1;
        assert!(frames < 20_000, "not all answered");
    }
    assert!(ahead > 0, "nothing ran ahead");
    let mut pathfinder = Pathfinder::default();
    for (agent, start, goal) in asked {
        let path = app.world().get::<NavPath>(agent).unwrap();
        let query = PathQuery::new(start, goal).with_options(settings.search);
        let cheapest = pathfinder.find(&grid, &query).unwrap().cost;
        assert!((path.cost - cheapest).abs() < 1e-6, "{} against {cheapest}", path.cost);
    }
}
