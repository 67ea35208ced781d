//! Precomputed structures built in slices (what a game gets where its task pool has no thread of
//! its own, as in a browser): every step stays within the work it is given, and the finished
//! structure is byte for byte the one a build in one go makes, on the public benchmark maps and
//! on random grids of every kind each structure takes.

use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_tilemap_nav::grid::{CornerRule, HexCoords, Neighborhood};
use bevy_tilemap_nav::io::movingai::{load_map, paint_terrain};
use bevy_tilemap_nav::plugin::{NavDiagnostics, NavField, WorkBudget, WorkShares};
use bevy_tilemap_nav::plugin::{PLUGIN_LANDMARKS, PrecomputeBuilds, PrecomputeSettings};
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::{
    CELL_WORK, FirstMoveTable, GridWarmup, LandmarksError, SlicedBuild,
};
use bevy_tilemap_nav::search::{Landmarks, PathTable};

use crate::support::{Rng, random_cells, set_cells};

/// Steps `build` with `budget` units a step to its end, checking every step against the
/// budget: the structure and the steps it took.
fn step_to_end<T>(mut build: SlicedBuild<T>, budget: u64) -> (T, u64) {
    loop {
        let done = build.step(budget);
        assert!(
            build.last_step_work() <= budget,
            "step {} did {} units, past its {budget}",
            build.steps(),
            build.last_step_work()
        );
        if let Some(done) = done {
            assert!(build.is_finished());
            assert!(build.step(budget).is_none(), "a finished build gives nothing more");
            assert!(build.work() <= build.steps() * budget);
            return (done, build.steps());
        }
        assert!(build.last_step_work() > 0, "a step that is not the last does work");
    }
}

fn public_map(name: &str) -> NavGrid {
    load_map(format!("{}/assets/maps/{name}.map", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// A random grid: `width` x `height`, walls at `walls` percent, costs 1 to 6 when `terrain`.
fn random_grid(rng: &mut Rng, (width, height): (u32, u32), walls: u32, terrain: bool) -> NavGrid {
    let mut grid = NavGrid::new(width, height).unwrap();
    set_cells(&mut grid, &random_cells(rng, width, height, walls, terrain));
    grid
}

#[test]
fn path_tables_built_in_slices_are_the_tables_built_in_one_go() {
    let mut rng = Rng(7);
    let mut grids: Vec<NavGrid> = ["arena", "arena2"].map(public_map).into();
    grids.extend((0..6).map(|k| random_grid(&mut rng, (20 + 7 * k, 50 - 4 * k), 8, false)));
    // Open ground with small pillars: cells see so many corners that thinning one cell's list
    // is past a step's share, and is counted an entry at a time.
    let mut pillars = NavGrid::new(128, 128).unwrap();
    let open = |x: u32, y: u32| (x % 12 > 1 || y % 12 > 1).then_some(1);
    set_cells(
        &mut pillars,
        &(0..128).map(|y| (0..128).map(|x| open(x, y)).collect::<Vec<_>>()).collect::<Vec<_>>(),
    );
    grids.push(pillars);
    for (k, grid) in grids.iter().enumerate() {
        let one_go = PathTable::build(grid).unwrap().to_binary();
        for budget in [1_000, 20_000 + rng.below(9_999) as u64] {
            let (table, steps) = step_to_end(PathTable::build_in_slices(grid), budget);
            let table = table.unwrap();
            assert!(table.is_current(grid), "built for the grid it was started on");
            assert_eq!(table.to_binary(), one_go, "grid {k}, {budget} units a step");
            if k < 2 {
                assert!(steps > 10, "the public map {k} took {steps} steps of {budget}");
            }
        }
    }
    // A grid the table refuses is refused the same way.
    let four = NavGrid::new(10, 10).unwrap().with_neighborhood(Neighborhood::Four);
    let (refused, _) = step_to_end(PathTable::build_in_slices(&four), 1_000);
    assert_eq!(refused.unwrap_err(), PathTable::build(&four).unwrap_err());
}

#[test]
fn landmarks_built_in_slices_are_the_landmarks_built_in_one_go() {
    let mut rng = Rng(11);
    let mut grids = vec![paint_terrain(&public_map("arena"), 1)];
    for k in 0..8 {
        let mut grid = random_grid(&mut rng, (25 + 5 * k, 40 - 2 * k), 20, true);
        match k % 4 {
            0 => grid.set_neighborhood(Neighborhood::Four),
            1 => grid.set_neighborhood(Neighborhood::Hex(HexCoords::ALL[k as usize % 6])),
            2 => grid.set_corner_rule(CornerRule::CutCorners),
            _ => {}
        }
        grids.push(grid);
    }
    for (k, grid) in grids.iter().enumerate() {
        let count = [16, 1, 5, 9][k % 4];
        let one_go = Landmarks::build(grid, count).unwrap();
        for budget in [1_000, 30_000 + rng.below(9_999) as u64] {
            let (landmarks, _) = step_to_end(Landmarks::build_in_slices(grid, count), budget);
            let landmarks = landmarks.unwrap();
            assert_eq!(landmarks.cells(), one_go.cells(), "grid {k}: the same landmarks");
            assert_eq!(
                landmarks.to_binary(grid).unwrap(),
                one_go.to_binary(grid).unwrap(),
                "grid {k}, {budget} units a step"
            );
        }
    }
    let mut walls = NavGrid::new(4, 4).unwrap();
    walls.fill_rect(GridPos::new(0, 0), GridPos::new(3, 3), Cell::Blocked).unwrap();
    let (refused, _) = step_to_end(Landmarks::build_in_slices(&walls, 4), 1_000);
    assert_eq!(refused.unwrap_err(), LandmarksError::NoPassableCell);
}

#[test]
fn first_move_tables_built_in_slices_are_the_tables_built_in_one_go() {
    let mut rng = Rng(5);
    for k in 0..8u32 {
        let mut grid = random_grid(&mut rng, (12 + 3 * k, 30 - 2 * k), 18, k % 2 == 0);
        match k % 4 {
            0 => grid.set_neighborhood(Neighborhood::Four),
            1 => grid.set_neighborhood(Neighborhood::Hex(HexCoords::ALL[k as usize % 6])),
            2 => grid.set_corner_rule(CornerRule::CutCorners),
            _ => {}
        }
        let one_go = FirstMoveTable::build(&grid).unwrap().to_binary();
        for budget in [1_000, 10_000 + u64::from(rng.below(9_999))] {
            let (table, _) = step_to_end(FirstMoveTable::build_in_slices(&grid), budget);
            assert_eq!(table.unwrap().to_binary(), one_go, "grid {k}, {budget} units a step");
        }
    }
}

#[test]
fn a_build_in_slices_keeps_the_grid_it_started_on() {
    // The game changes the grid while the build runs: the build is of the grid as it was, and
    // current for it only while it had not changed.
    let grid = public_map("arena");
    let one_go = PathTable::build(&grid).unwrap().to_binary();
    let mut changing = grid.clone();
    let mut build = PathTable::build_in_slices(&changing);
    assert!(build.step(5_000).is_none());
    changing.set(GridPos::new(20, 20), Cell::Blocked).unwrap();
    let table = loop {
        if let Some(done) = build.step(5_000) {
            break done.unwrap();
        }
    };
    assert_eq!(table.to_binary(), one_go);
    assert!(!table.is_current(&changing), "the grid changed since the build began");
}

#[test]
fn a_step_of_a_single_unit_still_makes_headway() {
    // Smaller steps than some pieces of work (a subgoal's runs, a list to thin): each step then
    // does one piece whole, and the build still ends with the same table.
    let mut rng = Rng(3);
    let grid = random_grid(&mut rng, (24, 18), 10, false);
    let mut build = PathTable::build_in_slices(&grid);
    let mut steps = 0;
    let table = loop {
        steps += 1;
        assert!(steps < 10_000_000, "no headway");
        if let Some(done) = build.step(1) {
            break done.unwrap();
        }
        assert!(build.last_step_work() >= 1);
    };
    assert_eq!(table.to_binary(), PathTable::build(&grid).unwrap().to_binary());
    assert!(build.steps() > 1_000);
}

#[test]
fn the_plugin_builds_in_slices_within_each_frames_work_and_serves_what_one_go_would_build() {
    const SLICE: u64 = 20_000;
    let mut app = App::new();
    let precompute = PrecomputeSettings { builds: PrecomputeBuilds::Sliced };
    let mut settings = NavSettings { precompute, ..NavSettings::deterministic() };
    settings.work.shares.precompute = SLICE;
    app.add_plugins(MinimalPlugins)
        .add_plugins(TilemapNavPlugin::with_settings(settings))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(16)));
    // A map a path table serves, one landmarks serve (terrain) and a small one a first-move
    // table serves (hex moves).
    let mut rng = Rng(9);
    let mut small = random_grid(&mut rng, (30, 24), 15, true);
    small.set_neighborhood(Neighborhood::Hex(HexCoords::ALL[0]));
    let grids = [public_map("arena"), paint_terrain(&public_map("arena2"), 2), small];
    let maps: Vec<Entity> = (grids.iter().enumerate())
        .map(|(k, grid)| {
            let at = Transform::from_xyz(2000.0 * k as f32, 0.0, 0.0);
            let map = NavGridMap::square(grid.clone(), Vec2::splat(16.0));
            app.world_mut().spawn((map, at, PrecomputePaths)).id()
        })
        .collect();
    app.update();
    // Requests are answered (by search) while the builds run.
    let nav = app.world().resource::<NavMaps>().get(maps[0]).unwrap();
    let open: Vec<GridPos> = nav.grid.positions().filter(|&p| nav.grid.is_passable(p)).collect();
    let (from, to) = (open[0], open[open.len() - 1]);
    let start = nav.geometry.cell_to_world(from).extend(1.0);
    let asker =
        app.world_mut().spawn((Transform::from_translation(start), PathRequest::to(to))).id();

    let ready = |app: &App| -> [bool; 3] {
        let nav = app.world().resource::<NavMaps>();
        let [table, landmarks, moves] = [0, 1, 2].map(|k| nav.get(maps[k]).unwrap());
        [
            table.path_table().is_some_and(|t| t.is_current(&table.grid)),
            landmarks.landmarks().is_some_and(|l| l.is_current(&landmarks.grid)),
            moves.first_move_table().is_some_and(|t| t.is_current(&moves.grid)),
        ]
    };
    let mut frames_to_ready = [None; 3];
    let mut work = 0;
    for frame in 1..=20_000 {
        app.update();
        let spent = app.world().resource::<NavDiagnostics>().precompute_work;
        assert!(spent <= SLICE, "frame {frame}: the builds did {spent} units, past {SLICE}");
        work += spent;
        if frame == 1 {
            assert!(app.world().get::<NavPath>(asker).is_some(), "a request waits on no build");
        }
        for (k, ready) in ready(&app).into_iter().enumerate() {
            if ready && frames_to_ready[k].is_none() {
                frames_to_ready[k] = Some(frame);
            }
        }
        if frames_to_ready.iter().all(Option::is_some) {
            break;
        }
    }
    let frames = frames_to_ready.map(|f| f.expect("every build finishes"));
    // Spread over many frames, each within its budget (checked above), all the work counted.
    assert!(frames.iter().all(|&f| f > 10), "built in {frames:?} frames");
    assert!(work > 10 * SLICE);
    let nav = app.world().resource::<NavMaps>();
    let map = |k: usize| nav.get(maps[k]).unwrap();
    assert_eq!(
        map(0).path_table().unwrap().to_binary(),
        PathTable::build(&map(0).grid).unwrap().to_binary()
    );
    let landmarks = |l: &Landmarks| l.to_binary(&map(1).grid).unwrap();
    assert_eq!(
        landmarks(map(1).landmarks().unwrap()),
        landmarks(&Landmarks::build(&map(1).grid, PLUGIN_LANDMARKS).unwrap())
    );
    assert_eq!(
        map(2).first_move_table().unwrap().to_binary(),
        FirstMoveTable::build(&map(2).grid).unwrap().to_binary()
    );

    // After a change the table is built again in slices; a build overtaken by a change is
    // dropped and started afresh.
    for change in 0..2 {
        let grid = &mut app.world_mut().get_mut::<NavGridMap>(maps[0]).unwrap().grid;
        let cell = open[100 + change];
        grid.set(cell, Cell::Blocked).unwrap();
        for _ in 0..5 {
            app.update();
        }
    }
    let mut frames = 0;
    while !ready(&app)[0] {
        app.update();
        frames += 1;
        assert!(app.world().resource::<NavDiagnostics>().precompute_work <= SLICE);
        assert!(frames < 20_000, "the table is built again");
    }
    let table = app.world().resource::<NavMaps>().get(maps[0]).unwrap();
    let rebuilt = PathTable::build(&table.grid).unwrap();
    assert_eq!(table.path_table().unwrap().to_binary(), rebuilt.to_binary());
}

/// One budget for all the work spread over frames: a path table built in slices, a large map's
/// warm-up, a distance field's build and searches, all at once, share the frame's
/// `WorkBudget::units` (set below the shares' sum, so that it binds). Every frame, all of it
/// together stays within the budget but for one indivisible piece per kind, the searches and
/// the builds each within their share; and all of it gets done.
#[test]
fn every_kind_of_work_shares_one_frame_budget() {
    const PIECE: u64 = 2_048; // a sliced build's largest indivisible step, and more
    let shares =
        WorkShares { searches: 8_000, fields: 12_000, precompute: 12_000, warm_up: 12_000 };
    let mut settings = NavSettings::deterministic();
    settings.work = WorkBudget { units: 30_000, time: None, shares };
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .add_plugins(TilemapNavPlugin::with_settings(settings))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(16)));
    let mut rng = Rng(51);
    let big = random_grid(&mut rng, (300, 300), 20, false);
    let square = |grid: NavGrid| NavGridMap::square(grid, Vec2::splat(16.0));
    let table = app.world_mut().spawn((square(public_map("arena")), PrecomputePaths)).id();
    let at = Transform::from_xyz(10_000.0, 0.0, 0.0);
    let map = app.world_mut().spawn((square(big.clone()), at)).id();
    app.update();
    let open: Vec<GridPos> = big.positions().filter(|&p| big.is_passable(p)).collect();
    let field = app.world_mut().spawn(NavField::new(map, vec![open[open.len() / 2]])).id();
    let askers: Vec<Entity> = (0..20)
        .map(|k| {
            let (from, to) = (open[k * 97], open[open.len() - 1 - k * 131]);
            let at =
                app.world().resource::<NavMaps>().get(map).unwrap().geometry.cell_to_world(from);
            let goal = PathGoal::OnMap { map, cell: to };
            app.world_mut()
                .spawn((Transform::from_translation(at.extend(1.0)), PathRequest::to(goal)))
                .id()
        })
        .collect();
    let done = |app: &App| {
        let maps = app.world().resource::<NavMaps>();
        let (tabled, big) = (maps.get(table).unwrap(), maps.get(map).unwrap());
        let answered = askers.iter().all(|&a| app.world().get::<PathRequest>(a).is_none());
        [
            tabled.path_table().is_some_and(|t| t.is_current(&tabled.grid)),
            GridWarmup::is_warm(&big.grid),
            app.world().get::<NavField>(field).unwrap().field().is_some(),
            answered,
        ]
    };
    let mut finished = [None; 4];
    for frame in 1..=20_000 {
        app.update();
        let d = *app.world().resource::<NavDiagnostics>();
        assert!(d.work <= 30_000 + 4 * PIECE, "frame {frame}: {} units in all", d.work);
        let searched = (d.expansions + d.range_expansions) * CELL_WORK;
        assert!(searched <= 8_000, "frame {frame}: searches did {searched} units");
        assert!(d.precompute_work <= 12_000, "frame {frame}: the table did {}", d.precompute_work);
        for (k, done) in done(&app).into_iter().enumerate() {
            if done && finished[k].is_none() {
                finished[k] = Some(frame);
            }
        }
        if finished.iter().all(Option::is_some) {
            break;
        }
    }
    assert!(finished.iter().all(Option::is_some), "not all done: {finished:?}");
    let ended = finished.map(Option::unwrap);
    // Spread over frames: the warm-up alone is 900,000 units (ten a cell).
    assert!(ended[1] > 900_000 / 12_000, "warm in {} frames", ended[1]);
}
