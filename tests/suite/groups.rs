//! Group orders (issue 56): goals in formation round a point, on cells connected to it, each
//! member given the slot that makes the group's walk least, checked against a brute force over
//! every assignment with the independent oracle's walking costs; cooperative plans for units
//! on cells, checked tick by tick.

use bevy_tilemap_nav::grid::{GridPos, NavGrid};
use bevy_tilemap_nav::path::{Formation, FormationError, best_assignment, group_goals};
use bevy_tilemap_nav::search::{CellTurns, CooperativeError, PathError, plan_together};

use crate::support::{GridShape, Model, Rng};

/// Every permutation of `0..n`.
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for rest in permutations(n - 1) {
        for at in 0..=rest.len() {
            let mut p = rest.clone();
            p.insert(at, n - 1);
            out.push(p);
        }
    }
    out
}

fn cost_of(model: &Model, a: GridPos, b: GridPos) -> Option<f64> {
    model.dijkstra((a.x.into(), a.y.into()), (b.x.into(), b.y.into()))
}

#[test]
fn the_best_assignment_equals_a_brute_force() {
    let mut rng = Rng(0x6_0001);
    for n in 1..=7 {
        for _ in 0..20 {
            let costs: Vec<f64> = (0..n * n).map(|_| f64::from(rng.below(50))).collect();
            let got = best_assignment(&costs, n);
            let total = |p: &[usize]| (0..n).map(|i| costs[i * n + p[i]]).sum::<f64>();
            let best = permutations(n).iter().map(|p| total(p)).fold(f64::INFINITY, f64::min);
            let mut seen = got.clone();
            seen.sort_unstable();
            assert_eq!(seen, (0..n).collect::<Vec<_>>(), "not a permutation: {got:?}");
            assert_eq!(total(&got), best, "{n} members: {costs:?}");
        }
    }
    // Costs that are not numbers, or not finite, are "no way there": still a permutation,
    // and the finite ones are taken where they can be.
    let costs = [f64::NAN, 1.0, f64::INFINITY, f64::NAN];
    assert_eq!(best_assignment(&costs, 2), vec![1, 0]);
    assert_eq!(best_assignment(&[f64::NAN; 9], 3).len(), 3);
    // A line of many: every member a slot of its own.
    let line = Formation::Line { facing: (1, 1) }.offsets(5000, 1);
    let mut distinct = line.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), 5000);
}

#[test]
fn group_goals_are_distinct_reachable_and_the_least_walk_on_random_maps() {
    let mut rng = Rng(0x6_0002);
    let shape = GridShape { min_side: 8, spread: 10, walls: 30, eight: 50, cut: 0 };
    let (mut checked, mut moved) = (0, 0);
    for round in 0..60 {
        let (grid, model) = crate::support::random_grid(&mut rng, &shape);
        let open: Vec<GridPos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
        if open.len() < 12 {
            continue;
        }
        let goal = open[rng.below(open.len() as u32) as usize];
        // Members that can walk to the goal.
        let mut starts: Vec<GridPos> = Vec::new();
        let n = 1 + rng.below(8) as usize;
        for _ in 0..200 {
            let s = open[rng.below(open.len() as u32) as usize];
            if starts.len() < n && !starts.contains(&s) && cost_of(&model, s, goal).is_some() {
                starts.push(s);
            }
        }
        let formation = match rng.below(4) {
            0 => Formation::Packed,
            1 => Formation::Line { facing: (1, 0) },
            2 => Formation::Box,
            _ => Formation::Offsets(vec![(0, 0), (2, 0), (-2, 0), (0, -2)]),
        };
        let spacing = 1 + rng.below(2);
        let goals = match group_goals(&grid, &starts, goal, &formation, spacing) {
            Ok(goals) => goals,
            Err(FormationError::NotEnoughRoom { .. }) => continue,
            Err(e) => panic!("round {round}: {e}"),
        };
        assert_eq!(goals.len(), starts.len());
        let mut distinct = goals.clone();
        distinct.sort_unstable_by_key(|p| (p.y, p.x));
        distinct.dedup();
        assert_eq!(distinct.len(), goals.len(), "round {round}: shared goals {goals:?}");
        // Every goal open and walkable to by its member; the total walk the least of every
        // way of handing the same slots out.
        let walk = |i: usize, g: GridPos| cost_of(&model, starts[i], g);
        for (i, &g) in goals.iter().enumerate() {
            assert!(grid.is_passable(g) && walk(i, g).is_some(), "round {round}: {g:?}");
        }
        let total: f64 = goals.iter().enumerate().map(|(i, &g)| walk(i, g).unwrap()).sum();
        let best = permutations(goals.len())
            .iter()
            .map(|p| (0..p.len()).map(|i| walk(i, goals[p[i]]).unwrap()).sum::<f64>())
            .fold(f64::INFINITY, f64::min);
        assert!((total - best).abs() < 1e-6, "round {round}: walk {total}, the least {best}");
        let ideal = formation.offsets(goals.len(), spacing);
        moved += ideal
            .iter()
            .filter(|&&(dx, dy)| {
                let at = (i64::from(goal.x) + dx, i64::from(goal.y) + dy);
                !goals.iter().any(|g| (i64::from(g.x), i64::from(g.y)) == at)
            })
            .count();
        checked += 1;
    }
    // Many orders checked, and walls moved some slots off their places.
    assert!(checked > 30 && moved > 10, "{checked} orders, {moved} slots moved");
}

#[test]
fn formations_keep_their_shape_on_open_ground() {
    let grid = NavGrid::new(40, 40).unwrap();
    let goal = GridPos::new(20, 20);
    let starts: Vec<GridPos> = (0..9).map(|i| GridPos::new(2 + i, 2)).collect();
    let set = |goals: &[GridPos]| {
        let mut v: Vec<(i64, i64)> =
            goals.iter().map(|g| (i64::from(g.x) - 20, i64::from(g.y) - 20)).collect();
        v.sort_unstable();
        v
    };
    // Packed and box: the 3 x 3 block round the goal; spaced 2 apart, every other cell.
    let block: Vec<(i64, i64)> = (-1..=1).flat_map(|x| (-1..=1).map(move |y| (x, y))).collect();
    for formation in [Formation::Packed, Formation::Box] {
        let goals = group_goals(&grid, &starts, goal, &formation, 1).unwrap();
        assert_eq!(set(&goals), block, "{formation:?}");
        let goals = group_goals(&grid, &starts, goal, &formation, 2).unwrap();
        let spaced: Vec<(i64, i64)> = block.iter().map(|&(x, y)| (x * 2, y * 2)).collect();
        assert_eq!(set(&goals), spaced, "{formation:?} spaced");
    }
    // A line facing north runs east-west, members in their order across.
    let goals = group_goals(&grid, &starts[..5], goal, &Formation::Line { facing: (0, 1) }, 1);
    let xs: Vec<u32> = goals.unwrap().iter().map(|g| g.x).collect();
    assert_eq!(xs, vec![18, 19, 20, 21, 22]);
    // A game's own slots, exactly.
    let mine = vec![(0, 0), (3, 0), (0, 3), (-3, -3)];
    let goals = group_goals(&grid, &starts[..4], goal, &Formation::Offsets(mine.clone()), 1);
    let mut want: Vec<(i64, i64)> =
        mine.iter().map(|&(x, y)| (i64::from(x), i64::from(y))).collect();
    want.sort_unstable();
    assert_eq!(set(&goals.unwrap()), want);
}

#[test]
fn large_groups_and_bad_orders() {
    // Hundreds (estimated costs) and thousands (ranks) of members: distinct open goals.
    let mut grid = NavGrid::new(200, 200).unwrap();
    grid.fill_rect(
        GridPos::new(90, 0),
        GridPos::new(92, 150),
        bevy_tilemap_nav::grid::Cell::Blocked,
    )
    .unwrap();
    for n in [200usize, 10_000] {
        let starts: Vec<GridPos> =
            (0..n as u32).map(|i| GridPos::new(i % 80, 10 + i / 80)).collect();
        let goals =
            group_goals(&grid, &starts, GridPos::new(150, 100), &Formation::Packed, 1).unwrap();
        let mut distinct = goals.clone();
        distinct.sort_unstable_by_key(|p| (p.y, p.x));
        distinct.dedup();
        assert_eq!(distinct.len(), n);
        assert!(goals.iter().all(|&g| grid.is_passable(g)));
    }
    // Bad orders: told why.
    let small = NavGrid::new(4, 4).unwrap();
    let one = [GridPos::new(0, 0)];
    assert_eq!(
        group_goals(&small, &[], GridPos::new(1, 1), &Formation::Packed, 1),
        Err(FormationError::EmptyGroup)
    );
    assert_eq!(
        group_goals(&small, &one, GridPos::new(1, 1), &Formation::Packed, 0),
        Err(FormationError::NoSpacing)
    );
    let off = group_goals(&small, &one, GridPos::new(9, 1), &Formation::Packed, 1);
    assert!(
        matches!(off, Err(FormationError::Goal(PathError::StartOutOfBounds { .. }))),
        "{off:?}"
    );
    let mut walled = small.clone();
    walled.set(GridPos::new(1, 1), bevy_tilemap_nav::grid::Cell::Blocked).unwrap();
    let blocked = group_goals(&walled, &one, GridPos::new(1, 1), &Formation::Packed, 1);
    assert!(matches!(blocked, Err(FormationError::Goal(_))), "{blocked:?}");
    let many: Vec<GridPos> = (0..17).map(|i| GridPos::new(i % 4, i / 4 % 4)).collect();
    assert_eq!(
        group_goals(&small, &many, GridPos::new(1, 1), &Formation::Packed, 1),
        Err(FormationError::NotEnoughRoom { members: 17, room: 16 })
    );
    // Members standing in walls or off the map still get goals (they walk if they can).
    let strays = [GridPos::new(1, 1), GridPos::new(50, 50)];
    let goals = group_goals(&walled, &strays, GridPos::new(2, 2), &Formation::Packed, 1).unwrap();
    assert_ne!(goals[0], goals[1]);
}

/// Plans of units on cells checked tick by tick: each starts at its start, ends at its goal,
/// every step a move the grid allows or a wait, no two units in one cell at any tick, none
/// swapping cells between two ticks. Returns the longest plan's ticks.
fn check_together(grid: &NavGrid, units: &[(GridPos, GridPos)], plans: &[Vec<GridPos>]) -> usize {
    let at = |u: usize, t: usize| plans[u][t.min(plans[u].len() - 1)];
    let makespan = plans.iter().map(|p| p.len()).max().unwrap_or(0);
    for (u, plan) in plans.iter().enumerate() {
        assert_eq!((plan[0], *plan.last().unwrap()), units[u], "unit {u}'s ends");
        for w in plan.windows(2) {
            assert!(
                w[0] == w[1] || grid.can_step(w[0], w[1]),
                "unit {u}: {:?} -> {:?}",
                w[0],
                w[1]
            );
        }
    }
    for t in 0..=makespan {
        let mut cells = std::collections::HashMap::new();
        for u in 0..plans.len() {
            if let Some(other) = cells.insert(at(u, t), u) {
                panic!("tick {t}: units {other} and {u} both in {:?}", at(u, t));
            }
        }
        for u in 0..plans.len() {
            for v in (0..plans.len()).filter(|&v| v != u) {
                // Nobody steps into a cell as another steps out (so none swap, none turn in a
                // ring): a tick between two units in one cell.
                assert_ne!(at(u, t), at(v, t + 1), "tick {t}: unit {v} steps in as {u} leaves");
            }
        }
    }
    makespan
}

/// Walks `plans` as units with speeds of their own would: each steps into its next cell only
/// when [`CellTurns`] says it is its turn and nobody holds the cell, holds both cells while it
/// steps (taking 1 to 6 rounds, drawn afresh each step; some units stop a while now and then).
/// Checks every round that no cell is held twice; returns the rounds until all arrived, or
/// panics when no unit moves for 200 rounds while some have not arrived (a deadlock).
fn walk_at_any_speeds(plans: &[Vec<GridPos>], rng: &mut Rng) -> usize {
    let cells: Vec<Vec<GridPos>> = plans
        .iter()
        .map(|p| {
            let mut c = p.clone();
            c.dedup();
            c
        })
        .collect();
    let mut turns = CellTurns::new(plans);
    let mut held: std::collections::HashMap<GridPos, usize> =
        cells.iter().enumerate().map(|(u, c)| (c[0], u)).collect();
    // Per unit: the index of its cell, and the rounds left of the step under way.
    let mut at = vec![0usize; plans.len()];
    let mut stepping: Vec<Option<u32>> = vec![None; plans.len()];
    let (mut round, mut idle) = (0, 0);
    while (0..plans.len()).any(|u| at[u] + 1 < cells[u].len()) {
        round += 1;
        let mut moved = false;
        for u in 0..plans.len() {
            match stepping[u] {
                Some(0) => {
                    let here = cells[u][at[u]];
                    assert_eq!(held.remove(&here), Some(u));
                    turns.left(u, here);
                    at[u] += 1;
                    stepping[u] = None;
                    moved = true;
                }
                Some(left) => stepping[u] = Some(left - 1),
                None if at[u] + 1 < cells[u].len() && !rng.chance(10) => {
                    let next = cells[u][at[u] + 1];
                    if turns.may_enter(u, next) && !held.contains_key(&next) {
                        held.insert(next, u);
                        stepping[u] = Some(rng.below(6));
                        moved = true;
                    }
                }
                None => {}
            }
        }
        idle = if moved { 0 } else { idle + 1 };
        assert!(idle < 200, "round {round}: deadlocked");
    }
    round
}

#[test]
fn cooperative_plans_walked_at_any_speeds_never_meet_nor_deadlock() {
    let mut rng = Rng(0x6_0004);
    for trial in 0..12 {
        let mut grid = NavGrid::new(20, 20).unwrap();
        for _ in 0..60 {
            let p = GridPos::new(rng.below(20), rng.below(20));
            grid.set(p, bevy_tilemap_nav::grid::Cell::Blocked).unwrap();
        }
        let centre = GridPos::new(10, 10);
        grid.set(centre, bevy_tilemap_nav::grid::Cell::Passable { cost: 1 }).unwrap();
        let region = bevy_tilemap_nav::path::reachable(&grid, centre, f64::INFINITY).unwrap();
        let mut open: Vec<GridPos> = region.cells().iter().map(|c| c.pos).collect();
        for i in (1..open.len()).rev() {
            open.swap(i, rng.below(i as u32 + 1) as usize);
        }
        // Up to a third of the open cells taken.
        let n = (20 + 8 * trial).min(open.len() / 3);
        let units: Vec<(GridPos, GridPos)> =
            open[..n].iter().copied().zip(open[n..2 * n].iter().copied()).collect();
        let plans = plan_together(&grid, &units, 512)
            .unwrap_or_else(|e| panic!("trial {trial}, {n} units of {}: {e}", open.len()));
        check_together(&grid, &units, &plans);
        for _ in 0..3 {
            walk_at_any_speeds(&plans, &mut rng);
        }
    }
    // The corridor swap, walked so: the faster unit cannot take the pocket's turn.
    let mut grid = NavGrid::new(11, 2).unwrap();
    for x in (0..11).filter(|&x| x != 7) {
        grid.set(GridPos::new(x, 1), bevy_tilemap_nav::grid::Cell::Blocked).unwrap();
    }
    let units =
        [(GridPos::new(0, 0), GridPos::new(10, 0)), (GridPos::new(10, 0), GridPos::new(0, 0))];
    let plans = plan_together(&grid, &units, 200).unwrap();
    for _ in 0..20 {
        walk_at_any_speeds(&plans, &mut rng);
    }
}

#[test]
fn units_on_cells_swap_ends_of_a_corridor_with_one_pocket() {
    // One cell wide, the pocket off it away from the middle, so whoever goes first matters.
    let mut grid = NavGrid::new(11, 2).unwrap();
    for x in (0..11).filter(|&x| x != 7) {
        grid.set(GridPos::new(x, 1), bevy_tilemap_nav::grid::Cell::Blocked).unwrap();
    }
    let (west, east) = (GridPos::new(0, 0), GridPos::new(10, 0));
    for units in [[(west, east), (east, west)], [(east, west), (west, east)]] {
        let plans = plan_together(&grid, &units, 200).unwrap();
        let makespan = check_together(&grid, &units, &plans);
        assert!(plans.iter().any(|p| p.contains(&GridPos::new(7, 1))), "nobody stepped aside");
        // Ten steps each way and a few ticks to let the other by.
        assert!(makespan <= 20, "{makespan} ticks");
    }
}

#[test]
fn two_hundred_units_shuffled_on_a_tactics_map_all_arrive_and_never_meet() {
    let mut rng = Rng(0x6_0003);
    let mut grid = NavGrid::new(32, 32).unwrap();
    for _ in 0..90 {
        let p = GridPos::new(rng.below(32), rng.below(32));
        grid.set(p, bevy_tilemap_nav::grid::Cell::Blocked).unwrap();
    }
    // Units on the open cells connected to the middle; goals a shuffle of their cells and
    // others.
    let region = bevy_tilemap_nav::path::reachable(&grid, GridPos::new(16, 16), f64::INFINITY);
    let mut open: Vec<GridPos> = region.unwrap().cells().iter().map(|c| c.pos).collect();
    for i in (1..open.len()).rev() {
        open.swap(i, rng.below(i as u32 + 1) as usize);
    }
    let starts = &open[..200];
    let mut goals: Vec<GridPos> = open[100..300].to_vec();
    for i in (1..goals.len()).rev() {
        goals.swap(i, rng.below(i as u32 + 1) as usize);
    }
    let units: Vec<(GridPos, GridPos)> = starts.iter().copied().zip(goals).collect();
    let plans = plan_together(&grid, &units, 512).unwrap();
    let makespan = check_together(&grid, &units, &plans);
    // Against each unit's own shortest walk in steps (alone on the map).
    // Fewest steps alone, by a breadth-first walk of its own.
    let steps = |(a, b): (GridPos, GridPos)| {
        let mut seen = std::collections::HashMap::from([(a, 0usize)]);
        let mut queue = std::collections::VecDeque::from([a]);
        while let Some(p) = queue.pop_front() {
            let d = seen[&p];
            if p == b {
                return d;
            }
            for (dx, dy) in
                [(-1i64, -1i64), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)]
            {
                let (x, y) = (i64::from(p.x) + dx, i64::from(p.y) + dy);
                if x < 0 || y < 0 {
                    continue;
                }
                let q = GridPos::new(x as u32, y as u32);
                if grid.in_bounds(q) && grid.can_step(p, q) && !seen.contains_key(&q) {
                    seen.insert(q, d + 1);
                    queue.push_back(q);
                }
            }
        }
        panic!("no way from {a:?} to {b:?}");
    };
    let alone: Vec<usize> = units.iter().map(|&u| steps(u)).collect();
    let bound = alone.iter().max().unwrap() + 1;
    let late = (0..units.len()).map(|u| plans[u].len() - 1 - alone[u]).max().unwrap();
    println!(
        "200 units: makespan {makespan} ticks, the longest walk alone {bound}, most ticks lost by one unit {late}"
    );
    // The bound stated in the docs: no unit loses more than 64 ticks to the others.
    assert!(late <= 64, "a unit lost {late} ticks");
}

#[test]
fn cooperative_plans_refuse_bad_units() {
    let mut grid = NavGrid::new(5, 5).unwrap();
    grid.set(GridPos::new(2, 2), bevy_tilemap_nav::grid::Cell::Blocked).unwrap();
    let (a, b, c) = (GridPos::new(0, 0), GridPos::new(4, 4), GridPos::new(0, 4));
    assert_eq!(plan_together(&grid, &[], 10), Ok(Vec::new()));
    assert_eq!(
        plan_together(&grid, &[(a, GridPos::new(2, 2))], 10),
        Err(CooperativeError::BadCell { unit: 0, pos: GridPos::new(2, 2) })
    );
    assert_eq!(
        plan_together(&grid, &[(a, GridPos::new(9, 9))], 10),
        Err(CooperativeError::BadCell { unit: 0, pos: GridPos::new(9, 9) })
    );
    assert_eq!(
        plan_together(&grid, &[(a, b), (a, c)], 10),
        Err(CooperativeError::Shared { first: 0, second: 1 })
    );
    assert_eq!(
        plan_together(&grid, &[(a, b), (c, b)], 10),
        Err(CooperativeError::Shared { first: 0, second: 1 })
    );
    // A horizon too short for the walk.
    assert!(matches!(
        plan_together(&grid, &[(a, b)], 3),
        Err(CooperativeError::NoPlan { unit: 0 })
    ));
    // A goal walled off.
    let mut walled = NavGrid::new(5, 5).unwrap();
    for p in [GridPos::new(3, 4), GridPos::new(4, 3), GridPos::new(3, 3)] {
        walled.set(p, bevy_tilemap_nav::grid::Cell::Blocked).unwrap();
    }
    assert_eq!(
        plan_together(&walled, &[(a, b)], 50),
        Err(CooperativeError::Unreachable { unit: 0 })
    );
}

mod in_an_app {
    use bevy::prelude::*;
    use bevy_tilemap_nav::grid::GridPos;
    use bevy_tilemap_nav::path::{Formation, FormationError};
    use bevy_tilemap_nav::plugin::{GroupOrder, GroupOrderFailed};
    use bevy_tilemap_nav::prelude::*;

    use crate::tilemap::{DT, TILE, WALL, messages, nav_app, spawn_text_tilemap};

    /// A room with a wall across it and a gap: six agents ordered to a point beyond, one of
    /// them despawned as the order is given, each arrives at a cell of its own; orders that
    /// cannot be given say why.
    #[test]
    fn a_group_order_sends_each_member_to_a_cell_of_its_own() {
        let rows = [
            "................",
            "................",
            "................",
            "########..######",
            "................",
            "................",
            "................",
        ];
        let mut app = nav_app(DT, WALL);
        spawn_text_tilemap(&mut app, &rows, TILE, Vec2::ZERO, |c| Some(u32::from(c == '#')));
        app.update();
        let at = |x: u32, y: u32| Vec2::new(x as f32 * TILE, y as f32 * TILE);
        let members: Vec<Entity> = (0..6)
            .map(|i| {
                let place = Transform::from_translation(at(2 + i * 2, 1).extend(1.0));
                app.world_mut().spawn((place, PathFollower::new(120.0))).id()
            })
            .collect();
        let goal = at(8, 5);
        app.world_mut().spawn(GroupOrder::new(members.clone(), goal, Formation::Box));
        app.world_mut().despawn(members[5]);
        let mut arrived: Vec<(Entity, GridPos)> = Vec::new();
        for _ in 0..600 {
            app.update();
            arrived.extend(messages::<Arrived>(&app).iter().map(|a| (a.entity, a.cell)));
            assert!(messages::<PathFailed>(&app).is_empty());
        }
        arrived.sort();
        let cells: Vec<GridPos> = arrived.iter().map(|a| a.1).collect();
        assert_eq!(arrived.len(), 5, "{arrived:?}");
        let mut distinct = cells.clone();
        distinct.sort_unstable_by_key(|p| (p.y, p.x));
        distinct.dedup();
        assert_eq!(distinct.len(), 5);
        // Round the goal, beyond the wall: a 3 x 3 box's first five slots.
        assert!(cells.iter().all(|c| c.x.abs_diff(8) <= 1 && c.y.abs_diff(5) <= 1), "{cells:?}");
        // The order entity is gone once given.
        let mut orders = app.world_mut().query::<&GroupOrder>();
        assert_eq!(orders.iter(app.world()).count(), 0);
        // Orders that cannot be given: off every map; into the wall; no members left.
        let bad = [
            GroupOrder::new(members[..2].to_vec(), Vec2::splat(-500.0), Formation::Packed),
            GroupOrder::new(members[..2].to_vec(), at(0, 3), Formation::Packed),
            GroupOrder::new(vec![members[5]], goal, Formation::Packed),
        ];
        let ids: Vec<Entity> = bad.into_iter().map(|o| app.world_mut().spawn(o).id()).collect();
        app.update();
        let why = |e: Entity| app.world().get::<GroupOrderFailed>(e).cloned();
        assert_eq!(why(ids[0]), Some(GroupOrderFailed::NoMap));
        assert!(matches!(why(ids[1]), Some(GroupOrderFailed::Formation(FormationError::Goal(_)))));
        assert_eq!(why(ids[2]), Some(GroupOrderFailed::Formation(FormationError::EmptyGroup)));
    }
}
