//! Group orders (issue 56): goals in formation round a point, on cells connected to it, each
//! member given the slot that makes the group's walk least, checked against a brute force over
//! every assignment with the independent oracle's walking costs; cooperative plans for units
//! on cells, checked tick by tick.

use bevy_tilemap_nav::grid::{GridPos, NavGrid};
use bevy_tilemap_nav::path::{Formation, FormationError, best_assignment, group_goals};
use bevy_tilemap_nav::search::{CellTurns, CooperativeError, PathError, plan_together};

use crate::support::{GridShape, Model, Rng, steps_alone};

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
    let mut walk = Walk::new(plans);
    let (mut round, mut idle) = (0, 0);
    while !walk.done() {
        round += 1;
        idle = if walk.round(rng) { 0 } else { idle + 1 };
        assert!(idle < 200, "round {round}: deadlocked");
    }
    round
}

/// Units walking plans cell by cell as [`walk_at_any_speeds`] says, the plans given whole or a
/// window at a time.
struct Walk {
    /// Each unit's cells, one step each.
    cells: Vec<Vec<GridPos>>,
    turns: CellTurns,
    held: std::collections::HashMap<GridPos, usize>,
    /// Per unit: the index of its cell, and the rounds left of the step under way.
    at: Vec<usize>,
    stepping: Vec<Option<u32>>,
}

impl Walk {
    fn new(plans: &[Vec<GridPos>]) -> Self {
        let held = plans.iter().enumerate().map(|(u, p)| (p[0], u)).collect();
        let (at, stepping) = (vec![0; plans.len()], vec![None; plans.len()]);
        let turns = CellTurns::new(plans);
        Self { cells: plans.iter().map(|p| dedup(p)).collect(), turns, held, at, stepping }
    }

    /// The plans go on after tick `from` (each unit's cell at every tick from 0).
    fn extend(&mut self, plans: &[Vec<GridPos>], from: usize) {
        self.turns.extend(plans, from);
        self.cells = plans.iter().map(|p| dedup(p)).collect();
    }

    /// Every unit is on the last cell it has.
    fn done(&self) -> bool {
        (0..self.cells.len()).all(|u| self.at[u] + 1 == self.cells[u].len())
    }

    /// One round: each unit finishes a step, goes on with one, or begins one if its turn in
    /// the next cell has come and nobody holds it. Returns whether any moved.
    fn round(&mut self, rng: &mut Rng) -> bool {
        let mut moved = false;
        for u in 0..self.cells.len() {
            let (cells, at) = (&self.cells[u], self.at[u]);
            match self.stepping[u] {
                Some(0) => {
                    assert_eq!(self.held.remove(&cells[at]), Some(u));
                    self.turns.left(u, cells[at]);
                    self.at[u] += 1;
                    self.stepping[u] = None;
                    moved = true;
                }
                Some(left) => self.stepping[u] = Some(left - 1),
                None if at + 1 < cells.len() && !rng.chance(10) => {
                    let next = cells[at + 1];
                    if self.turns.may_enter(u, next) && !self.held.contains_key(&next) {
                        self.held.insert(next, u);
                        self.stepping[u] = Some(rng.below(6));
                        moved = true;
                    }
                }
                None => {}
            }
        }
        moved
    }
}

fn dedup(plan: &[GridPos]) -> Vec<GridPos> {
    let mut cells = plan.to_vec();
    cells.dedup();
    cells
}

#[test]
fn cooperative_plans_walked_at_any_speeds_never_meet_nor_deadlock() {
    let mut rng = Rng(0x6_0004);
    for trial in 0..12 {
        let (grid, units) = random_units(&mut rng, 20, 60, 20 + 8 * trial);
        let plans = plan_together(&grid, &units, 512)
            .unwrap_or_else(|e| panic!("trial {trial}, {} units: {e}", units.len()));
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

/// Walks a windowed plan while it is made, as a game's units would: a slice of the planner a
/// round; each window kept is added to the turns ([`CellTurns::extend`]) and to the cells the
/// units may walk, and they walk what they have at speeds of their own (as in
/// [`walk_at_any_speeds`]), never two in one cell. Checks that each window kept is the start of
/// the plans made in the end, and returns those plans once every unit is on its goal. Panics
/// on a deadlock (no unit moves and the planner makes nothing for 200 rounds).
fn walk_while_planned(
    mut planner: bevy_tilemap_nav::search::PlanTogether,
    rng: &mut Rng,
) -> Vec<Vec<GridPos>> {
    let (mut walk, mut windows): (Option<Walk>, Vec<Vec<Vec<GridPos>>>) = (None, Vec::new());
    let (mut round, mut idle, mut done) = (0, 0, None);
    loop {
        round += 1;
        let mut moved = false;
        if done.is_none() {
            let before = planner.kept_ticks();
            let made = planner.step(400, || false);
            let finished = made.is_some();
            let plans = match made {
                Some(result) => {
                    Some(result.unwrap_or_else(|e| panic!("{e} after {before} ticks kept")))
                }
                None if planner.kept_ticks() > before => Some(planner.kept_plans()),
                None => None,
            };
            if let Some(plans) = plans {
                match walk.as_mut() {
                    None => walk = Some(Walk::new(&plans)),
                    Some(walk) => walk.extend(&plans, before as usize),
                }
                if finished {
                    done = Some(plans);
                } else {
                    windows.push(plans);
                }
                moved = true;
            }
        }
        let Some(walk) = walk.as_mut() else { continue };
        moved |= walk.round(rng);
        if done.is_some() && walk.done() {
            break;
        }
        idle = if moved { 0 } else { idle + 1 };
        assert!(idle < 200, "round {round}: deadlocked");
    }
    let plans = done.unwrap();
    for window in &windows {
        for (u, part) in window.iter().enumerate() {
            let whole = |t: usize| plans[u][t.min(plans[u].len() - 1)];
            assert!(part.iter().enumerate().all(|(t, &c)| c == whole(t)), "unit {u}'s window");
        }
    }
    plans
}

/// Windowed plans (each unit looks 16 ticks ahead; half of each window kept), walked while
/// they are made: the random maps of the test above and the 200-unit shuffle. Every unit
/// arrives, no two ever in one cell nor swapping (checked tick by tick and walked at any
/// speeds), each window kept is the start of the whole, and the first window is kept after
/// far less work than the whole plan takes (the units walk meanwhile).
#[test]
fn windowed_plans_walked_while_made_never_meet_nor_deadlock() {
    use bevy_tilemap_nav::search::PlanTogether;
    let mut rng = Rng(0x6_0005);
    let mut cases: Vec<(NavGrid, Vec<(GridPos, GridPos)>)> = Vec::new();
    for trial in 0..12 {
        let (grid, units) = random_units(&mut rng, 20, 60, 20 + 8 * trial);
        cases.push((grid, units));
    }
    cases.push(shuffled_two_hundred());
    for (case, (grid, units)) in cases.into_iter().enumerate() {
        // The shortest window (8 steps ahead, 4 kept a window): units may go round each other
        // for ever, until the window is made longer.
        let tiny = PlanTogether::windowed(grid.clone(), &units, 512, 8).unwrap();
        check_together(&grid, &units, &walk_while_planned(tiny, &mut rng));
        let planner = PlanTogether::windowed(grid.clone(), &units, 512, 16).unwrap();
        let plans = walk_while_planned(planner, &mut rng);
        let makespan = check_together(&grid, &units, &plans);
        // Kept after a first window: a small part of the work of the whole plan.
        let mut first = PlanTogether::windowed(grid.clone(), &units, 512, 16).unwrap();
        while first.kept_ticks() == 0 {
            assert!(first.step(1, || false).is_none(), "case {case}: done in one window");
        }
        let mut whole = PlanTogether::new(grid.clone(), &units, 512).unwrap();
        let all_the_way = loop {
            if let Some(done) = whole.step(u64::MAX, || false) {
                break done.map(|_| "made").unwrap_or("not made");
            }
        };
        println!(
            "case {case}: {} units, makespan {makespan}, first window after {} cells; the plan \
             all the way {all_the_way}, {} cells",
            units.len(),
            first.work(),
            whole.work()
        );
        // Both first walk every unit's way to its goal (units x cells, and the moves of each
        // cell): past that, the first window takes under a third of the whole's searching.
        let setup = (units.len() as u64 + 1) * grid.len() as u64;
        if units.len() == 200 {
            let (first, whole) = (first.work() - setup, whole.work() - setup);
            assert!(first * 3 < whole, "{first} cells searched against {whole}");
        }
    }
    // The corridor swap: the pocket is used, whoever is planned first.
    let mut grid = NavGrid::new(11, 2).unwrap();
    for x in (0..11).filter(|&x| x != 7) {
        grid.set(GridPos::new(x, 1), bevy_tilemap_nav::grid::Cell::Blocked).unwrap();
    }
    let (west, east) = (GridPos::new(0, 0), GridPos::new(10, 0));
    for units in [[(west, east), (east, west)], [(east, west), (west, east)]] {
        for window in [8, 16] {
            let planner = PlanTogether::windowed(grid.clone(), &units, 200, window).unwrap();
            let plans = walk_while_planned(planner, &mut rng);
            check_together(&grid, &units, &plans);
        }
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

/// A `size` x `size` grid with `walls` random cells blocked, and `n` units (at most a third
/// of the open cells round the middle) each sent from one open cell to another.
fn random_units(
    rng: &mut Rng,
    size: u32,
    walls: usize,
    n: usize,
) -> (NavGrid, Vec<(GridPos, GridPos)>) {
    let mut grid = NavGrid::new(size, size).unwrap();
    for _ in 0..walls {
        let p = GridPos::new(rng.below(size), rng.below(size));
        grid.set(p, bevy_tilemap_nav::grid::Cell::Blocked).unwrap();
    }
    let centre = GridPos::new(size / 2, size / 2);
    grid.set(centre, bevy_tilemap_nav::grid::Cell::Passable { cost: 1 }).unwrap();
    let region = bevy_tilemap_nav::path::reachable(&grid, centre, f64::INFINITY).unwrap();
    let mut open: Vec<GridPos> = region.cells().iter().map(|c| c.pos).collect();
    for i in (1..open.len()).rev() {
        open.swap(i, rng.below(i as u32 + 1) as usize);
    }
    let n = n.min(open.len() / 3);
    let units = open[..n].iter().copied().zip(open[n..2 * n].iter().copied()).collect();
    (grid, units)
}

/// 200 units on a 32 x 32 map with 90 random walls, sent to a shuffle of their cells and
/// others.
fn shuffled_two_hundred() -> (NavGrid, Vec<(GridPos, GridPos)>) {
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
    (grid, units)
}

#[test]
fn two_hundred_units_shuffled_on_a_tactics_map_all_arrive_and_never_meet() {
    let (grid, units) = shuffled_two_hundred();
    let plans = plan_together(&grid, &units, 512).unwrap();
    let makespan = check_together(&grid, &units, &plans);
    // Against each unit's own shortest walk in steps (alone on the map).
    let alone: Vec<usize> = units.iter().map(|&(a, b)| steps_alone(&grid, a, b)).collect();
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
    use bevy_tilemap_nav::grid::{GridPos, NavGrid};
    use bevy_tilemap_nav::path::{Formation, FormationError};
    use bevy_tilemap_nav::plugin::{GroupOrder, GroupOrderFailed, NavDiagnostics};
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

    /// A group ordered at the same pace: members at speeds 40, 80 and 160 all walk at 40 on the
    /// way (no step of a frame longer than 40 x dt), and arrive within a few frames of one
    /// another; once there the pace is off, and the fast one walks its next path at its own
    /// speed. The same order without `same_pace`: the fast one walks faster.
    #[test]
    fn a_group_order_at_the_same_pace_walks_at_the_slowest_members_speed() {
        use bevy_tilemap_nav::plugin::GroupPace;
        let rows = ["....................", "....................", "...................."];
        let mut app = nav_app(DT, WALL);
        spawn_text_tilemap(&mut app, &rows, TILE, Vec2::ZERO, |c| Some(u32::from(c == '#')));
        app.update();
        let at = |x: u32, y: u32| Vec2::new(x as f32 * TILE, y as f32 * TILE);
        let speeds = [40.0, 80.0, 160.0];
        let members: Vec<Entity> = (0..3u32)
            .map(|i| {
                let place = Transform::from_translation(at(1, i).extend(1.0));
                app.world_mut().spawn((place, PathFollower::new(speeds[i as usize]))).id()
            })
            .collect();
        let dt = DT.as_secs_f32();
        let position = |app: &App, e: Entity| app.world().get::<Transform>(e).unwrap().translation;
        for same_pace in [true, false] {
            let goal = if same_pace { at(16, 1) } else { at(2, 1) };
            let order = GroupOrder::new(members.clone(), goal, Formation::Line { facing: (1, 0) });
            let order = if same_pace { order.at_same_pace() } else { order };
            app.world_mut().spawn(order);
            let mut arrivals: Vec<(Entity, usize)> = Vec::new();
            let mut fastest_step = 0.0f32;
            for frame in 0..600 {
                let before: Vec<Vec3> = members.iter().map(|&m| position(&app, m)).collect();
                app.update();
                for (i, &m) in members.iter().enumerate() {
                    let step = position(&app, m).distance(before[i]);
                    if i == 2 {
                        fastest_step = fastest_step.max(step);
                    }
                    if same_pace {
                        assert!(step <= 40.0 * dt + 1e-3, "frame {frame}: member {i} {step}");
                    }
                }
                let got = messages::<Arrived>(&app);
                arrivals.extend(got.iter().map(|a| (a.entity, frame)));
                if arrivals.len() == 3 {
                    break;
                }
            }
            assert_eq!(arrivals.len(), 3, "same pace {same_pace}: {arrivals:?}");
            if same_pace {
                let (first, last) = (arrivals[0].1, arrivals[2].1);
                // Slots a cell or so apart in the line: at 40 a second a cell is 24 frames.
                assert!(last - first <= 30, "{arrivals:?}");
            } else {
                assert!(
                    fastest_step > 40.0 * dt * 2.0,
                    "the fast one kept the pace: {fastest_step}"
                );
            }
            app.update();
            // The pace is off once they are there.
            assert!(members.iter().all(|&m| app.world().get::<GroupPace>(m).is_none()));
        }
    }

    /// A marching group in an app: `members` spawned at `cells` with `speeds`, ordered to `goal`
    /// in a box (`marching` or not); returns the members and the order entity.
    fn order_box(
        app: &mut App,
        cells: &[GridPos],
        speeds: &[f32],
        goal: GridPos,
        marching: bool,
    ) -> (Vec<Entity>, Entity) {
        let members = spawn_walkers(app, cells, speeds);
        let order =
            GroupOrder::new(members.clone(), crate::tilemap::centre(app, goal), Formation::Box);
        let order = if marching { order.marching() } else { order };
        let order = app.world_mut().spawn(order).id();
        (members, order)
    }

    /// Walkers spawned at `cells` of the first map, each with its speed.
    fn spawn_walkers(app: &mut App, cells: &[GridPos], speeds: &[f32]) -> Vec<Entity> {
        cells
            .iter()
            .zip(speeds)
            .map(|(&cell, &speed)| {
                let place =
                    Transform::from_translation(crate::tilemap::centre(app, cell).extend(1.0));
                app.world_mut().spawn((place, PathFollower::new(speed))).id()
            })
            .collect()
    }

    /// Asserts that the `arrived` cells are `n` cells, none shared.
    fn assert_distinct(arrived: &[(Entity, GridPos)], n: usize) {
        let mut cells: Vec<GridPos> = arrived.iter().map(|a| a.1).collect();
        cells.sort_unstable_by_key(|p| (p.y, p.x));
        cells.dedup();
        assert_eq!(cells.len(), n, "{arrived:?}");
    }

    /// The most any member strays from its slot, the shape measured against the first
    /// member (member `i`'s place less member 0's, against slot `i` less slot 0), in tiles.
    fn shape_error(app: &App, members: &[Entity], slots: &[Vec2]) -> f32 {
        let at = |m: Entity| app.world().get::<Transform>(m).unwrap().translation.truncate();
        let first = at(members[0]);
        (1..members.len())
            .map(|i| ((at(members[i]) - first) - (slots[i] - slots[0])).length() / TILE)
            .fold(0.0, f32::max)
    }

    /// Nine members in a box, two speeds (60 and 150), marching across open ground: from the
    /// moment they have formed until the anchor is at the goal, every member's place measured
    /// from the first's is its slot's within half a tile; all arrive at cells of their own.
    /// The same order not marching strays by more than a tile (the fast ones run ahead).
    #[test]
    fn a_marching_group_keeps_its_shape_on_open_ground() {
        use bevy_tilemap_nav::plugin::{GroupMarch, Marching};
        let rows = vec!["........................................"; 16];
        let mut app = nav_app(DT, WALL);
        spawn_text_tilemap(&mut app, &rows, TILE, Vec2::ZERO, |c| Some(u32::from(c == '#')));
        app.update();
        let starts: Vec<GridPos> = (0..9).map(|i| GridPos::new(3 + i % 3, 7 + i / 3)).collect();
        let speeds: Vec<f32> = (0..9).map(|i| if i % 2 == 0 { 60.0 } else { 150.0 }).collect();
        let goal = GridPos::new(32, 8);
        for marching in [true, false] {
            let (members, order) = order_box(&mut app, &starts, &speeds, goal, marching);
            app.update();
            let slots: Vec<Vec2> = match app.world().get::<GroupMarch>(order) {
                Some(group) => group.march().slots().to_vec(),
                None => {
                    assert!(!marching, "the order marches");
                    // The slots the plain order gave: its goal cells less the goal's.
                    let cells: Vec<GridPos> = members
                        .iter()
                        .map(|&m| app.world().get::<NavPath>(m).expect("answered at once").goal)
                        .collect();
                    let centre = crate::tilemap::centre(&app, goal);
                    cells.iter().map(|&c| crate::tilemap::centre(&app, c) - centre).collect()
                }
            };
            assert_eq!(members.iter().all(|&m| app.world().get::<Marching>(m).is_some()), marching);
            let (mut worst, mut arrived) = (0.0f32, Vec::new());
            for frame in 0..900 {
                app.update();
                arrived.extend(messages::<Arrived>(&app).iter().map(|a| (a.entity, a.cell)));
                assert!(messages::<PathFailed>(&app).is_empty());
                let on_the_way = app.world().get::<GroupMarch>(order).map(|g| {
                    let m = g.march();
                    m.travelled() > 3.0 * TILE && !m.is_done()
                });
                // Not marching: the way from the start's first second to the first arrival.
                let measured = on_the_way.unwrap_or(!marching && frame > 60 && arrived.is_empty());
                if measured {
                    worst = worst.max(shape_error(&app, &members, &slots));
                }
                if arrived.len() == members.len() {
                    break;
                }
            }
            assert_eq!(arrived.len(), 9, "marching {marching}: {arrived:?}");
            assert_distinct(&arrived, 9);
            if marching {
                assert!(worst <= 0.5, "strayed {worst} tiles from the shape");
                assert!(app.world().get_entity(order).is_err(), "the order is despawned");
            } else {
                assert!(worst > 1.0, "not marching kept the shape: {worst}");
            }
            for m in members {
                app.world_mut().despawn(m);
            }
        }
    }

    /// What a march over a river showed: the closest two members came on the bridge (tiles),
    /// whether the formation met the river with some slots in the water and some not, whether
    /// two members filing (not in their slots) ever stood abreast on the bridge (level within
    /// a quarter of a tile, at least three quarters apart), where each arrived, and in how many
    /// of the frames the anchor was on its way it stood still.
    struct Crossing {
        closest: f32,
        filed: bool,
        abreast: bool,
        arrived: Vec<(Entity, GridPos)>,
        stood: (usize, usize),
    }

    /// `starts.len()` members at `starts` (speeds 80 and 120 by turns), marching in a box
    /// `spacing` cells apart to `goal` over `rows` (`#` water; the river is rows 8 to 10 from
    /// the top).
    fn march_over_river(
        rows: &[&str],
        starts: &[GridPos],
        goal: GridPos,
        spacing: u32,
    ) -> Crossing {
        use bevy_tilemap_nav::path::Place;
        use bevy_tilemap_nav::plugin::GroupMarch;
        let mut app = nav_app(DT, WALL);
        spawn_text_tilemap(&mut app, rows, TILE, Vec2::ZERO, |c| Some(u32::from(c == '#')));
        app.update();
        let speeds: Vec<f32> = (0..starts.len()).map(|i| [80.0, 120.0][i % 2]).collect();
        let height = rows.len() as f32;
        let on_bridge = |p: Vec2| ((height - 11.5) * TILE..=(height - 8.5) * TILE).contains(&p.y);
        let (members, order) = order_box(&mut app, starts, &speeds, goal, true);
        app.world_mut().get_mut::<GroupOrder>(order).unwrap().spacing = spacing;
        let (mut closest, mut filed, mut abreast) = (f32::INFINITY, false, false);
        let (mut arrived, mut stood, mut travelled) = (Vec::new(), (0, 0), 0.0);
        for _ in 0..1500 {
            app.update();
            arrived.extend(messages::<Arrived>(&app).iter().map(|a| (a.entity, a.cell)));
            assert!(messages::<PathFailed>(&app).is_empty());
            let at: Vec<Vec2> = members
                .iter()
                .map(|&m| app.world().get::<Transform>(m).unwrap().translation.truncate())
                .collect();
            let bridge: Vec<Vec2> = at.iter().copied().filter(|&p| on_bridge(p)).collect();
            for (i, a) in bridge.iter().enumerate() {
                for b in &bridge[i + 1..] {
                    closest = closest.min(a.distance(*b) / TILE);
                }
            }
            if let Some(group) = app.world().get::<GroupMarch>(order) {
                let maps = app.world().resource::<NavMaps>();
                let grid = &maps.first().unwrap().grid;
                let open = |p: Vec2| {
                    let c = GridPos::new((p.x / TILE).round() as u32, (p.y / TILE).round() as u32);
                    grid.is_passable(c)
                };
                // Where the formation meets the river, some slots fall in the water.
                let anchor = group.march().anchor();
                if !group.march().is_done() {
                    stood.0 += usize::from(group.march().travelled() == travelled);
                    stood.1 += 1;
                }
                travelled = group.march().travelled();
                let shut = group.march().slots().iter().filter(|&&s| !open(anchor + s)).count();
                filed |= shut > 0 && shut < starts.len();
                let clear = |a: Vec2, b: Vec2| (0..=64).all(|i| open(a.lerp(b, i as f32 / 64.0)));
                let places = group.march().targets(clear);
                let filing: Vec<Vec2> = (0..members.len())
                    .filter(|&i| matches!(places[i], Place::InFile(_)) && on_bridge(at[i]))
                    .map(|i| at[i] / TILE)
                    .collect();
                abreast |= filing.iter().enumerate().any(|(i, a)| {
                    filing[i + 1..]
                        .iter()
                        .any(|b| (a.y - b.y).abs() < 0.25 && a.distance(*b) >= 0.75)
                });
            }
            if arrived.len() == members.len() {
                break;
            }
        }
        Crossing { closest, filed, abreast, arrived, stood }
    }

    /// Six members march across a river by a one-tile bridge: on the bridge they go in file
    /// (never two within half a tile of each other there, every frame), some file while others
    /// keep their slots, and beyond it they form again and arrive at cells of their own round
    /// the goal.
    #[test]
    fn a_marching_group_files_over_a_bridge_and_forms_again() {
        let mut rows = vec!["..............................."; 20];
        for row in rows.iter_mut().take(11).skip(8) {
            *row = "###############.###############";
        }
        let starts: Vec<GridPos> = (0..6).map(|i| GridPos::new(13 + i % 3, 2 + i / 3)).collect();
        let crossing = march_over_river(&rows, &starts, GridPos::new(15, 16), 1);
        let arrived = crossing.arrived;
        assert_eq!(arrived.len(), 6, "{arrived:?}");
        assert!(crossing.filed, "the formation never met the bridge");
        assert!(crossing.closest >= 0.5, "two on the bridge {} tiles apart", crossing.closest);
        let round_goal = |c: &GridPos| c.y >= 14 && c.x.abs_diff(15) <= 1;
        assert!(arrived.iter().all(|a| round_goal(&a.1)), "{arrived:?}");
        assert_distinct(&arrived, 6);
    }

    /// Sixteen members in a box of four march over a bridge one tile wide, then over one two
    /// tiles wide: those shut out file one abreast over the first and two abreast over the
    /// second (seen: two members filing level on the bridge); over both, never two within
    /// half a tile of each other on the bridge (before, a member walled in by the formation
    /// on the bridge held the group up until it pushed through), and all arrive at cells of
    /// their own.
    #[test]
    fn a_marching_group_files_as_many_abreast_as_the_bridge_is_wide() {
        let starts: Vec<GridPos> = (0..16).map(|i| GridPos::new(13 + i % 4, 1 + i / 4)).collect();
        let goal = GridPos::new(15, 16);
        for (bridge, wide) in
            [("###############.###############", false), ("##############..###############", true)]
        {
            let mut rows = vec!["..............................."; 22];
            for row in rows.iter_mut().take(11).skip(8) {
                *row = bridge;
            }
            let crossing = march_over_river(&rows, &starts, goal, 1);
            assert_eq!(crossing.arrived.len(), 16, "{bridge}: {:?}", crossing.arrived);
            assert_distinct(&crossing.arrived, 16);
            assert!(crossing.filed, "{bridge}: the formation never met the bridge");
            assert!(crossing.closest >= 0.5, "{bridge}: two {} tiles apart", crossing.closest);
            assert_eq!(crossing.abreast, wide, "{bridge}: filing members side by side");
        }
    }

    /// Thirty-six members in a box of six, two cells apart, march over a one-tile bridge to a
    /// goal far beyond it: those out of the file walk to slots up to a few cells away, and the
    /// anchor walks on at half its pace meanwhile instead of standing (before, it stood in 481
    /// of 912 frames, and the whole file with it, and a member pushed through after waiting
    /// `LOST_AFTER`); never two within half a tile on the bridge, and all arrive at cells of
    /// their own.
    #[test]
    fn a_march_walks_on_while_members_out_of_the_file_take_their_slots() {
        let starts: Vec<GridPos> = (0..36).map(|i| GridPos::new(14 + i % 6, 37 + i / 6)).collect();
        let mut rows = vec!["................................."; 44];
        for row in rows.iter_mut().take(11).skip(8) {
            *row = "################.################";
        }
        let crossing = march_over_river(&rows, &starts, GridPos::new(16, 8), 2);
        assert_eq!(crossing.arrived.len(), 36, "{:?}", crossing.arrived);
        assert_distinct(&crossing.arrived, 36);
        assert!(crossing.filed, "the formation never met the bridge");
        assert!(crossing.closest >= 0.5, "two {} tiles apart", crossing.closest);
        let (stood, of) = crossing.stood;
        assert!(stood * 4 < of, "the anchor stood in {stood} of {of} frames on its way");
    }

    /// A march played at: a member despawned, one given a speed of 0, one sent elsewhere by a
    /// request, two re-ordered with a newcomer into a second march, one moved to NaN. Nobody is
    /// lost: those still marching, the re-ordered and the one sent elsewhere arrive, the one
    /// at NaN is told its request failed, both orders are gone once done, and nothing panics.
    #[test]
    fn a_march_survives_its_members_leaving_joining_and_being_re_ordered() {
        use bevy_tilemap_nav::plugin::{GroupMarch, Marching};
        let rows = vec!["........................................"; 24];
        let mut app = nav_app(DT, WALL);
        spawn_text_tilemap(&mut app, &rows, TILE, Vec2::ZERO, |c| Some(u32::from(c == '#')));
        app.update();
        let starts: Vec<GridPos> = (0..8).map(|i| GridPos::new(3 + i % 3, 3 + i / 3)).collect();
        let (members, first) =
            order_box(&mut app, &starts, &[100.0; 8], GridPos::new(34, 20), true);
        for _ in 0..40 {
            app.update();
        }
        assert!(app.world().get::<GroupMarch>(first).is_some());
        app.world_mut().despawn(members[0]);
        app.world_mut().get_mut::<PathFollower>(members[1]).unwrap().speed = 0.0;
        let elsewhere = PathGoal::Tile(GridPos::new(2, 20));
        app.world_mut().entity_mut(members[2]).insert(PathRequest::to(elsewhere));
        let newcomer = app
            .world_mut()
            .spawn((Transform::from_xyz(8.0 * TILE, 12.0 * TILE, 1.0), PathFollower::new(90.0)))
            .id();
        let goal = crate::tilemap::centre(&app, GridPos::new(20, 3));
        let again = vec![members[3], members[4], newcomer];
        let second = app
            .world_mut()
            .spawn(GroupOrder::new(again.clone(), goal, Formation::Packed).marching())
            .id();
        app.world_mut().get_mut::<Transform>(members[5]).unwrap().translation.x = f32::NAN;
        let (mut arrived, mut failed) = (Vec::new(), Vec::new());
        for _ in 0..1500 {
            app.update();
            arrived.extend(messages::<Arrived>(&app).iter().map(|a| a.entity));
            failed.extend(messages::<PathFailed>(&app).iter().map(|f| f.entity));
        }
        for m in [members[2], members[3], members[4], newcomer, members[6], members[7]] {
            assert!(
                arrived.contains(&m),
                "{m} did not arrive: {arrived:?}, failed {failed:?}, members {members:?} {newcomer}"
            );
        }
        assert!(failed.contains(&members[5]), "{failed:?}");
        assert!(app.world().get_entity(first).is_err() && app.world().get_entity(second).is_err());
        let marching = |m: Entity| app.world().get::<Marching>(m).is_some();
        assert!(!members[1..].iter().any(|&m| marching(m)) && !marching(newcomer));
        let cell_of = |m: Entity| {
            let p = app.world().get::<Transform>(m).unwrap().translation;
            GridPos::new((p.x / TILE).round() as u32, (p.y / TILE).round() as u32)
        };
        assert_eq!(cell_of(members[2]), GridPos::new(2, 20));
        assert!(
            again.iter().all(|&m| cell_of(m).x.abs_diff(20) <= 1 && cell_of(m).y.abs_diff(3) <= 1)
        );
    }

    /// A member chasing another, and the one it chases, ordered with a third: marching, the
    /// chase ends and all three arrive at cells of their own; loose, the same.
    #[test]
    fn a_member_chasing_another_is_ordered_off_the_chase() {
        use bevy_tilemap_nav::plugin::Pursuit;
        let rows = vec!["........................"; 12];
        let mut app = nav_app(DT, WALL);
        spawn_text_tilemap(&mut app, &rows, TILE, Vec2::ZERO, |c| Some(u32::from(c == '#')));
        app.update();
        for marching in [true, false] {
            let starts = [GridPos::new(2, 2), GridPos::new(6, 3), GridPos::new(3, 8)];
            let members = spawn_walkers(&mut app, &starts, &[90.0, 60.0, 70.0]);
            app.world_mut().entity_mut(members[0]).insert(PathRequest::chase(members[1]));
            for _ in 0..30 {
                app.update();
            }
            assert!(app.world().get::<Pursuit>(members[0]).is_some(), "it chases");
            let goal = crate::tilemap::centre(&app, GridPos::new(18, 6));
            let order = GroupOrder::new(members.clone(), goal, Formation::Packed);
            app.world_mut().spawn(if marching { order.marching() } else { order });
            let mut arrived: Vec<(Entity, GridPos)> = Vec::new();
            for _ in 0..900 {
                app.update();
                let got = messages::<Arrived>(&app);
                arrived.extend(got.iter().filter(|a| a.cell.x > 10).map(|a| (a.entity, a.cell)));
                if arrived.len() == 3 {
                    break;
                }
            }
            assert_eq!(arrived.len(), 3, "marching {marching}: {arrived:?}");
            assert!(
                app.world().get::<Pursuit>(members[0]).is_none(),
                "marching {marching}: still chasing"
            );
            assert_distinct(&arrived, 3);
            for m in members {
                app.world_mut().despawn(m);
            }
        }
    }

    /// A long random session of marching orders over a river with two bridges: every 40 frames
    /// a random selection (two to twelve, some already marching) is sent marching to a random
    /// point, or a member is despawned (and another spawned), sent elsewhere by a request, or
    /// given a speed of 0, NaN or its own again. Every frame: each member marked `Marching`
    /// is one of the members of the order it names, and no marching member stands in the
    /// water. At the end, with no more orders, every march ends: nobody marches, no order
    /// entity is left, and every member with a speed stands on dry land.
    #[test]
    fn random_marching_sessions_keep_their_marks_and_stay_on_land() {
        use bevy_tilemap_nav::plugin::{GroupMarch, Marching};
        let mut rows = vec!["........................................"; 30];
        for row in rows.iter_mut().take(16).skip(13) {
            *row = "########.#####################..########";
        }
        let mut app = nav_app(DT, WALL);
        spawn_text_tilemap(&mut app, &rows, TILE, Vec2::ZERO, |c| Some(u32::from(c == '#')));
        app.update();
        let dry = |p: Vec2| {
            let (x, y) = ((p.x / TILE).round() as i64, (p.y / TILE).round() as i64);
            let row = 29 - y;
            (0..40).contains(&x)
                && (0..30).contains(&row)
                && rows[row as usize].as_bytes()[x as usize] == b'.'
        };
        let mut rng = crate::support::Rng(0x6_0301);
        let spawn = |app: &mut App, rng: &mut crate::support::Rng| loop {
            let (x, y) = (rng.below(40), rng.below(30));
            let at = Vec2::new(x as f32 * TILE, y as f32 * TILE);
            if dry(at) {
                let speed = 40.0 + rng.below(120) as f32;
                break app
                    .world_mut()
                    .spawn((Transform::from_translation(at.extend(1.0)), PathFollower::new(speed)))
                    .id();
            }
        };
        let mut members: Vec<Entity> = (0..24).map(|_| spawn(&mut app, &mut rng)).collect();
        let check = |app: &mut App, frame: usize| {
            let mut marching = app.world_mut().query::<(Entity, &Marching, &Transform)>();
            let marks: Vec<(Entity, Entity, Vec2)> = marching
                .iter(app.world())
                .map(|(e, m, t)| (e, m.order, t.translation.truncate()))
                .collect();
            for (member, order, at) in marks {
                let group = app.world().get::<GroupMarch>(order);
                let listed = group.is_some_and(|g| g.members().any(|m| m == member));
                assert!(listed, "frame {frame}: {member} marks {order}, which does not list it");
                assert!(
                    !at.is_finite() || dry(at),
                    "frame {frame}: {member} marching in the water at {at}"
                );
            }
        };
        for frame in 0..3000 {
            if frame % 40 == 0 && frame < 2400 {
                let pick = |rng: &mut crate::support::Rng, members: &[Entity]| {
                    members[rng.below(members.len() as u32) as usize]
                };
                match rng.below(6) {
                    0..=2 => {
                        let n = 2 + rng.below(11) as usize;
                        let mut chosen: Vec<Entity> =
                            (0..n).map(|_| pick(&mut rng, &members)).collect();
                        chosen.sort();
                        chosen.dedup();
                        let goal =
                            Vec2::new(rng.below(40) as f32 * TILE, rng.below(30) as f32 * TILE);
                        let shape =
                            [Formation::Box, Formation::Packed, Formation::Line { facing: (0, 1) }]
                                [rng.below(3) as usize]
                                .clone();
                        app.world_mut().spawn(GroupOrder::new(chosen, goal, shape).marching());
                    }
                    3 => {
                        let i = rng.below(members.len() as u32) as usize;
                        app.world_mut().despawn(members[i]);
                        members[i] = spawn(&mut app, &mut rng);
                    }
                    4 => {
                        let to = GridPos::new(rng.below(40), rng.below(30));
                        app.world_mut()
                            .entity_mut(pick(&mut rng, &members))
                            .insert(PathRequest::to(PathGoal::Tile(to)));
                    }
                    _ => {
                        let speed = [0.0, f32::NAN, 90.0][rng.below(3) as usize];
                        app.world_mut()
                            .get_mut::<PathFollower>(pick(&mut rng, &members))
                            .unwrap()
                            .speed = speed;
                    }
                }
            }
            app.update();
            // Orders that could not be given (a goal in the water, off the map) are the game's
            // to despawn.
            let mut failed = app.world_mut().query_filtered::<Entity, With<GroupOrderFailed>>();
            let failed: Vec<Entity> = failed.iter(app.world()).collect();
            for order in failed {
                app.world_mut().despawn(order);
            }
            check(&mut app, frame);
        }
        let mut marching = app.world_mut().query::<&Marching>();
        assert_eq!(marching.iter(app.world()).count(), 0, "still marching at the end");
        let mut orders = app.world_mut().query::<&GroupOrder>();
        assert_eq!(orders.iter(app.world()).count(), 0, "orders left at the end");
        for &m in &members {
            let at = app.world().get::<Transform>(m).unwrap().translation.truncate();
            assert!(dry(at), "{m} ended in the water at {at}");
        }
    }

    /// One order of 10,000 members on a 200 x 200 map: given in the frame it is spawned (every
    /// member has its request, each to a cell of its own), the requests answered over the
    /// frames that follow within the search budget (not all at once), none failing. Asked to
    /// march, an order this large walks loose.
    #[test]
    fn an_order_of_ten_thousand_is_given_at_once_and_answered_over_frames() {
        use bevy_tilemap_nav::plugin::NavGridMap;
        let mut app = nav_app(DT, WALL);
        let mut grid = NavGrid::new(200, 200).unwrap();
        grid.fill_rect(GridPos::new(90, 0), GridPos::new(92, 150), Cell::Blocked).unwrap();
        app.world_mut().spawn(NavGridMap::square(grid, Vec2::splat(TILE)));
        app.update();
        let at = |x: u32, y: u32| Vec2::new(x as f32 * TILE, y as f32 * TILE);
        let members: Vec<Entity> = (0..10_000u32)
            .map(|i| {
                let place = Transform::from_translation(at(i % 80, 10 + i / 80).extend(1.0));
                app.world_mut().spawn((place, PathFollower::new(100.0))).id()
            })
            .collect();
        // Asked to march: more than `MAX_MARCHING`, so they walk loose (each its request).
        let order = GroupOrder::new(members.clone(), at(150, 100), Formation::Packed).marching();
        app.world_mut().spawn(order);
        app.update();
        let marching = bevy_tilemap_nav::plugin::MAX_MARCHING;
        assert!(members.len() > marching);
        let mut marchers = app.world_mut().query::<&bevy_tilemap_nav::plugin::Marching>();
        assert_eq!(marchers.iter(app.world()).count(), 0);
        let mut goals: Vec<GridPos> = members
            .iter()
            .map(|&m| {
                let request = app.world().get::<PathRequest>(m);
                let path = app.world().get::<NavPath>(m);
                match (request.map(|r| &r.goal), path) {
                    (Some(PathGoal::OnMap { cell, .. }), _) => *cell,
                    (None, Some(path)) => path.goal,
                    other => panic!("{m}: no request: {other:?}"),
                }
            })
            .collect();
        goals.sort_unstable_by_key(|p| (p.y, p.x));
        goals.dedup();
        assert_eq!(goals.len(), 10_000, "goals shared");
        let answered = |app: &App| {
            members.iter().filter(|&&m| app.world().get::<NavPath>(m).is_some()).count()
        };
        let first = answered(&app);
        for _ in 0..10 {
            app.update();
            assert!(messages::<PathFailed>(&app).is_empty());
        }
        let later = answered(&app);
        println!(
            "10,000-member order: {first} answered in the frame it was given, {later} ten frames on"
        );
        assert!(first < 10_000 && later > first, "answered {first}, then {later}");
    }

    /// Cooperative agents in an app: spawned grid-locked at `cells` of the first map, each
    /// with its speed.
    fn spawn_cooperative(app: &mut App, cells: &[GridPos], speeds: &[f32]) -> Vec<Entity> {
        use bevy_tilemap_nav::plugin::Cooperative;
        cells
            .iter()
            .zip(speeds)
            .map(|(&cell, &speed)| {
                let at = crate::tilemap::centre(app, cell).extend(1.0);
                let body = (Transform::from_translation(at), Cooperative, PathFollower::new(speed));
                app.world_mut().spawn(body).id()
            })
            .collect()
    }

    /// Every cell held by one agent at most (the cell it holds and the one it is entering):
    /// panics naming the two that share one.
    fn check_one_per_cell(app: &App, agents: &[Entity], when: &str) {
        let mut held: std::collections::HashMap<GridPos, Entity> = Default::default();
        for &agent in agents {
            let Some(lock) = app.world().get::<GridLocked>(agent) else {
                continue;
            };
            let Some((_, here)) = lock.holds else {
                continue;
            };
            for cell in std::iter::once(here).chain(lock.entering) {
                if let Some(other) = held.insert(cell, agent) {
                    panic!("{when}: {agent} and {other} both hold {cell}");
                }
            }
        }
    }

    /// The cell each agent holds.
    fn holds(app: &App, agent: Entity) -> Option<GridPos> {
        app.world().get::<GridLocked>(agent)?.holds.map(|h| h.1)
    }

    /// Two cooperative units swap the ends of a one-wide corridor with one pocket off its
    /// middle, at different speeds: both arrive, one having stepped into the pocket, and never
    /// in one cell. Plain grid-locked units there wait for each other until one gives way.
    #[test]
    fn cooperative_units_swap_ends_of_a_corridor_with_one_pocket() {
        let rows = ["####.####", "........."];
        let mut app = nav_app(DT, WALL);
        spawn_text_tilemap(&mut app, &rows, TILE, Vec2::ZERO, |c| Some(u32::from(c == '#')));
        app.update();
        let (west, east, pocket) = (GridPos::new(0, 0), GridPos::new(8, 0), GridPos::new(4, 1));
        // Planned all the way, then windowed (8 steps ahead, 4 kept a window).
        let runs = [[40.0, 130.0], [130.0, 40.0], [80.0, 80.0]].map(|s| (s, None));
        let windowed = [[40.0, 130.0], [80.0, 80.0]].map(|s| (s, Some(8)));
        for (speeds, window) in runs.into_iter().chain(windowed) {
            app.world_mut().resource_mut::<NavSettings>().cooperative_window = window;
            let units = spawn_cooperative(&mut app, &[west, east], &speeds);
            app.update();
            app.world_mut().entity_mut(units[0]).insert(PathRequest::to(east));
            app.world_mut().entity_mut(units[1]).insert(PathRequest::to(west));
            let mut arrived: Vec<(Entity, GridPos, bool)> = Vec::new();
            let mut pocketed = false;
            for frame in 0..400 {
                app.update();
                check_one_per_cell(&app, &units, &format!("speeds {speeds:?} frame {frame}"));
                pocketed |= units.iter().any(|&u| holds(&app, u) == Some(pocket));
                let got = messages::<Arrived>(&app);
                arrived.extend(got.iter().map(|a| (a.entity, a.cell, a.reached_goal)));
                if arrived.len() == 2 {
                    break;
                }
            }
            arrived.sort();
            let mut want = vec![(units[0], east, true), (units[1], west, true)];
            want.sort();
            assert_eq!(arrived, want, "{speeds:?} {window:?}");
            assert!(pocketed, "{speeds:?} {window:?}: nobody stepped aside");
            for unit in units {
                app.world_mut().despawn(unit);
            }
        }
    }

    /// Moves `units` to `goals` (a request each), checking every frame that no cell is held
    /// twice; returns the frames until all arrived (panics past `frames`), the arrivals, and
    /// the longest any unit stood still (frames) before it arrived.
    fn walk_all(
        app: &mut App,
        units: &[Entity],
        goals: &[GridPos],
        frames: usize,
    ) -> (usize, Vec<(Entity, GridPos, bool)>, usize) {
        for (&unit, &goal) in units.iter().zip(goals) {
            app.world_mut().entity_mut(unit).insert(PathRequest::to(goal));
        }
        let mut arrived: Vec<(Entity, GridPos, bool)> = Vec::new();
        let position = |app: &App, u: Entity| app.world().get::<Transform>(u).unwrap().translation;
        let mut last: Vec<Vec3> = units.iter().map(|&u| position(app, u)).collect();
        let mut still = vec![0usize; units.len()];
        let mut longest = 0;
        for frame in 0..frames {
            app.update();
            check_one_per_cell(app, units, &format!("frame {frame}"));
            let got = messages::<Arrived>(app);
            arrived.extend(got.iter().map(|a| (a.entity, a.cell, a.reached_goal)));
            for (i, &unit) in units.iter().enumerate() {
                let now = position(app, unit);
                let done = arrived.iter().any(|a| a.0 == unit);
                still[i] = if now == last[i] && !done { still[i] + 1 } else { 0 };
                longest = longest.max(still[i]);
                last[i] = now;
            }
            if arrived.len() == units.len() {
                return (frame + 1, arrived, longest);
            }
        }
        let left = tell_left(app, units, &arrived);
        panic!("{} of {} arrived in {frames} frames; left: {left:?}", arrived.len(), units.len());
    }

    /// The `units` not among the `arrived`, each printed with its cells, path, request and
    /// follower (to see why it did not arrive).
    fn tell_left(app: &App, units: &[Entity], arrived: &[(Entity, GridPos, bool)]) -> Vec<Entity> {
        let left: Vec<Entity> =
            units.iter().copied().filter(|u| !arrived.iter().any(|a| a.0 == *u)).collect();
        for &u in &left {
            let w = app.world();
            eprintln!(
                "{u}: {:?} path {:?} request {} follower {:?} coop {}",
                w.get::<GridLocked>(u),
                w.get::<NavPath>(u).map(|p| (p.cells.clone(), p.goal)),
                w.get::<PathRequest>(u).is_some(),
                w.get::<PathFollower>(u),
                w.get::<bevy_tilemap_nav::plugin::Cooperative>(u).is_some()
            );
        }
        left
    }

    /// 200 cooperative units on a 32 x 32 map, each sent to another's cell (a shuffle), at
    /// speeds from 50 to 150 (3 to 9 tiles a second): all arrive at their own goals, no two
    /// ever hold one cell (checked every frame), and none stands still longer than the bound:
    /// the time the slowest unit takes to walk 64 steps (the most ticks one unit of such a
    /// shuffle loses to the others in its plan, asserted in
    /// `two_hundred_units_shuffled_on_a_tactics_map_all_arrive_and_never_meet`): each wait is
    /// for a move planned before it, walked at worst at the slowest pace.
    #[test]
    fn two_hundred_cooperative_units_shuffled_all_arrive_never_sharing_a_cell() {
        for window in [Some(16), None] {
            shuffle_walked(window);
        }
    }

    /// [`two_hundred_cooperative_units_shuffled_all_arrive_never_sharing_a_cell`] with plans
    /// `window` steps ahead (`None`: all the way).
    fn shuffle_walked(window: Option<u32>) {
        let Shuffle { mut app, grid, units, starts, goals, speeds } = shuffle_app();
        app.world_mut().resource_mut::<NavSettings>().cooperative_window = window;
        let (frames, arrived, still) = walk_all(&mut app, &units, &goals, 3000);
        assert_arrived_at(arrived, &units, &goals);
        // Against the lower bound: the longest walk of one unit alone, at its own speed.
        let alone = (0..200)
            .map(|i| {
                crate::support::steps_alone(&grid, starts[i], goals[i]) as f32 * TILE / speeds[i]
            })
            .fold(0.0, f32::max);
        let dt = DT.as_secs_f32();
        println!(
            "200-unit shuffle in an app, window {window:?}: all arrived in {frames} frames ({:.1} \
             s; the longest walk alone {alone:.1} s), longest standing still {still} frames",
            frames as f32 * dt
        );
        let slowest = speeds.iter().copied().fold(f32::INFINITY, f32::min);
        let bound = 64.0 * TILE / slowest / dt;
        assert!((still as f32) <= bound, "a unit stood still {still} frames (bound {bound})");
    }

    /// Windowed plans in an app (8 steps ahead, the shortest window: a window kept every 4
    /// steps, so units keep catching up with the planner): the 200-unit shuffle sets off before the plan is made
    /// to the end (units walk in frames the planner works in), units at the end of a window
    /// wait there for the next (no early `Arrived`), a wall built on the cell their paths cross
    /// most while they walk is never entered and is planned round, no cell is ever held twice,
    /// and every unit arrives at its own goal, once.
    #[test]
    fn windowed_plans_are_walked_while_made_and_planned_round_a_new_wall() {
        use bevy_ecs_tilemap::prelude::{TilePos, TileStorage, TileTextureIndex};
        let Shuffle { mut app, grid, units, goals, .. } = shuffle_app();
        app.world_mut().resource_mut::<NavSettings>().cooperative_window = Some(8);
        for (&unit, &goal) in units.iter().zip(&goals) {
            app.world_mut().entity_mut(unit).insert(PathRequest::to(goal));
        }
        let cells_held = |app: &App| -> Vec<GridLocked> {
            units.iter().map(|&u| *app.world().get::<GridLocked>(u).unwrap()).collect()
        };
        let mut arrived: Vec<(Entity, GridPos, bool)> = Vec::new();
        let (mut walked_while_planning, mut wall, mut waited_at_an_end) = (0, None, 0);
        for frame in 0..3000 {
            let before = cells_held(&app);
            app.update();
            check_one_per_cell(&app, &units, &format!("frame {frame}"));
            let got = messages::<Arrived>(&app);
            arrived.extend(got.iter().map(|a| (a.entity, a.cell, a.reached_goal)));
            let now = cells_held(&app);
            let planning = app.world().resource::<NavDiagnostics>().cooperative_work > 0;
            if planning && before.iter().zip(&now).any(|(b, n)| b.holds != n.holds) {
                walked_while_planning += 1;
            }
            // Standing at the end of its path, not arrived: waiting for the next window.
            waited_at_an_end += units
                .iter()
                .filter(|&&u| {
                    let (Some(path), Some(follower)) =
                        (app.world().get::<NavPath>(u), app.world().get::<PathFollower>(u))
                    else {
                        return false;
                    };
                    follower.next >= path.cells.len() && path.cells.last() != Some(&path.goal)
                })
                .count();
            if let Some(wall) = wall {
                let inside = now.iter().any(|l| l.holds.map(|h| h.1) == Some(wall));
                assert!(!inside, "frame {frame}: a unit in the wall at {wall}");
            } else if walked_while_planning > 20 {
                let cell = busiest_free_cell(&app, &grid, &units, &goals);
                println!("frame {frame}: a wall on {cell}");
                let mut storages = app.world_mut().query::<&TileStorage>();
                let tile = storages.single(app.world()).unwrap().get(&TilePos::new(cell.x, cell.y));
                app.world_mut().entity_mut(tile.unwrap()).insert(TileTextureIndex(WALL));
                wall = Some(cell);
            }
            if arrived.len() == units.len() {
                println!(
                    "windowed: all arrived in {frame} frames; {walked_while_planning} frames \
                     walked while planned, {waited_at_an_end} unit-frames waited at a window's end"
                );
                break;
            }
        }
        assert_arrived_at(arrived, &units, &goals);
        assert!(walked_while_planning > 20, "{walked_while_planning} frames");
        assert!(wall.is_some() && waited_at_an_end > 0, "{waited_at_an_end}");
    }

    /// A wall built far ahead once windowed units have their first window: the windows still
    /// to come are being made on the grid as it was, and cross it; the map is planned again
    /// from where the units stand, and they arrive round the wall, never in it, never two in
    /// one cell.
    #[test]
    fn a_wall_ahead_of_walking_windows_has_them_planned_again() {
        use bevy_ecs_tilemap::prelude::{TilePos, TileStorage, TileTextureIndex};
        let rows = ["........................................"; 5];
        let mut app = nav_app(DT, WALL);
        let mut settings = app.world_mut().resource_mut::<NavSettings>();
        settings.cooperative_window = Some(8);
        // A small search budget: a window or so a frame, so that the units walk while the
        // windows after the first are made.
        settings.work.shares.searches = 2_000;
        spawn_text_tilemap(&mut app, &rows, TILE, Vec2::ZERO, |c| Some(u32::from(c == '#')));
        app.update();
        let starts: Vec<GridPos> = (0..5).map(|y| GridPos::new(0, y)).collect();
        let goals: Vec<GridPos> = (0..5).map(|y| GridPos::new(39, 4 - y)).collect();
        let units = spawn_cooperative(&mut app, &starts, &[60.0; 5]);
        app.update();
        for (&unit, &goal) in units.iter().zip(&goals) {
            app.world_mut().entity_mut(unit).insert(PathRequest::to(goal));
        }
        // A wall across rows 1 to 3 at x = 30, once the units walk.
        let wall: Vec<GridPos> = (1..4).map(|y| GridPos::new(30, y)).collect();
        let mut arrived: Vec<(Entity, GridPos, bool)> = Vec::new();
        let mut built = false;
        for frame in 0..3000 {
            app.update();
            check_one_per_cell(&app, &units, &format!("frame {frame}"));
            // The first window is given: paths that end short of their goals.
            let windowed = units.iter().any(|&u| {
                let path = app.world().get::<NavPath>(u);
                path.is_some_and(|p| p.cells.len() > 1 && p.cells.last() != Some(&p.goal))
            });
            if windowed && !built {
                let mut storages = app.world_mut().query::<&TileStorage>();
                let storage = storages.single(app.world()).unwrap().clone();
                for cell in &wall {
                    let tile = storage.get(&TilePos::new(cell.x, cell.y)).unwrap();
                    app.world_mut().entity_mut(tile).insert(TileTextureIndex(WALL));
                }
                built = true;
            }
            for &u in &units {
                let inside = holds(&app, u).is_some_and(|c| wall.contains(&c));
                assert!(!(built && inside), "frame {frame}: {u} in the wall");
            }
            let got = messages::<Arrived>(&app);
            arrived.extend(got.iter().map(|a| (a.entity, a.cell, a.reached_goal)));
            if arrived.len() == units.len() {
                break;
            }
        }
        assert!(built);
        assert_arrived_at(arrived, &units, &goals);
    }

    /// The cell the units' paths still to walk cross most that nobody holds, no unit is sent
    /// to, and whose wall leaves every goal reachable from every unit.
    fn busiest_free_cell(
        app: &App,
        grid: &NavGrid,
        units: &[Entity],
        goals: &[GridPos],
    ) -> GridPos {
        let locks: Vec<GridLocked> =
            units.iter().map(|&u| *app.world().get::<GridLocked>(u).unwrap()).collect();
        let held: Vec<GridPos> =
            locks.iter().flat_map(|l| l.holds.map(|h| h.1).into_iter().chain(l.entering)).collect();
        let mut crossed: std::collections::HashMap<GridPos, usize> = Default::default();
        for &u in units {
            if let (Some(path), Some(f)) =
                (app.world().get::<NavPath>(u), app.world().get::<PathFollower>(u))
            {
                for &c in path.cells.iter().skip(f.next) {
                    *crossed.entry(c).or_default() += 1;
                }
            }
        }
        let mut ends = held.clone();
        ends.extend_from_slice(goals);
        let mut cells: Vec<(usize, GridPos)> = crossed
            .into_iter()
            .filter(|(c, _)| !ends.contains(c) && grid.is_passable(*c))
            .map(|(c, n)| (n, c))
            .collect();
        cells.sort_unstable_by(|a, b| b.cmp(a));
        let connected = |wall: GridPos| connected_without(grid, wall, &ends);
        cells.into_iter().map(|(_, c)| c).find(|&c| connected(c)).expect("a cell to wall")
    }

    /// Whether every one of `ends` can be walked to from the first with a wall on `wall`.
    fn connected_without(grid: &NavGrid, wall: GridPos, ends: &[GridPos]) -> bool {
        let mut walled = grid.clone();
        walled.set(wall, bevy_tilemap_nav::grid::Cell::Blocked).unwrap();
        let mut seen = std::collections::HashSet::from([ends[0]]);
        let mut queue = vec![ends[0]];
        while let Some(cell) = queue.pop() {
            for (next, _) in walled.neighbors(cell) {
                if seen.insert(next) {
                    queue.push(next);
                }
            }
        }
        ends.iter().all(|e| seen.contains(e))
    }

    /// The 200-unit shuffle's plan is made over frames, each frame's part within the search
    /// budget plus one unit's search (the most one unit's search of the same plan takes,
    /// measured with `PlanTogether` a unit a call); meanwhile no unit begins a step; and the
    /// paths it writes are the plans `plan_together` makes of the same units in one go.
    #[test]
    fn a_plan_of_two_hundred_is_made_over_frames_within_the_budget_its_units_standing() {
        use bevy_tilemap_nav::search::{CELL_WORK, PlanTogether, plan_together};
        let Shuffle { mut app, grid, units, goals, .. } = shuffle_app();
        for (&unit, &goal) in units.iter().zip(&goals) {
            app.world_mut().entity_mut(unit).insert(PathRequest::to(goal));
        }
        let lock = |app: &App, u: Entity| app.world().get::<GridLocked>(u).copied().unwrap();
        let mut frames: Vec<u64> = Vec::new();
        // Each unit's cells after each frame of the plan.
        let mut locks: Vec<Vec<GridLocked>> = Vec::new();
        for _ in 0..600 {
            app.update();
            let work = app.world().resource::<NavDiagnostics>().cooperative_work;
            if work == 0 && !frames.is_empty() {
                break;
            }
            if work > 0 {
                frames.push(work);
                locks.push(units.iter().map(|&u| lock(&app, u)).collect());
            }
        }
        let first = locks[0].clone();
        // Standing, but in the frame the plan is made (they walk it at once): each only
        // finishes the step it was in when the plan began.
        for (frame, now) in locks[..locks.len() - 1].iter().enumerate() {
            for (i, (was, now)) in first.iter().zip(now).enumerate() {
                let start = was.entering.or(was.holds.map(|h| h.1));
                let here = now.holds.map(|h| h.1);
                let standing = (now.entering.is_none() || now.entering == was.entering)
                    && (here == was.holds.map(|h| h.1) || here == start);
                assert!(standing, "frame {frame} of the plan: unit {i} {was:?} -> {now:?}");
            }
        }
        println!("the 200-unit plan in an app: {} frames, work {frames:?}", frames.len());
        assert!(frames.len() > 1, "made in one frame: {frames:?}");
        let OneGo { walkers, pairs, planned_on, horizon } =
            OneGo::of(&app, &grid, &units, &goals, &first);
        let whole = plan_together(&planned_on, &pairs, horizon).unwrap();
        for ((&u, plan), &(start, _)) in walkers.iter().zip(&whole).zip(&pairs) {
            let mut cells = plan.clone();
            cells.dedup();
            let path = app.world().get::<NavPath>(u).unwrap();
            assert_eq!(path.cells, cells, "{u} from {start}");
        }
        // One unit's search at most past the share, each frame.
        let mut planner = PlanTogether::new(planned_on, &pairs, horizon).unwrap();
        let mut most = 0;
        loop {
            let before = planner.work();
            let done = planner.step(1, || false);
            most = most.max(planner.work() - before);
            if done.is_some() {
                break;
            }
        }
        let share = NavSettings::default().work.shares.searches;
        let bound = share + most * CELL_WORK;
        assert!(frames.iter().all(|&w| w <= bound), "{frames:?} against {bound}");
    }

    /// A map's plan as `plan_together` makes it in one go: of the units with a path (in entity
    /// order, from the cells they held or were entering when the plan began, `first`), round
    /// those standing.
    struct OneGo {
        walkers: Vec<Entity>,
        pairs: Vec<(GridPos, GridPos)>,
        planned_on: NavGrid,
        horizon: u32,
    }

    impl OneGo {
        fn of(
            app: &App,
            grid: &NavGrid,
            units: &[Entity],
            goals: &[GridPos],
            first: &[GridLocked],
        ) -> Self {
            use bevy_tilemap_nav::grid::Cell;
            let mut planned_on = grid.clone();
            let mut walking = Vec::new();
            for (i, &u) in units.iter().enumerate() {
                let start = first[i].entering.or(first[i].holds.map(|h| h.1)).unwrap();
                match app.world().get::<NavPath>(u) {
                    Some(_) => walking.push((u, (start, goals[i]))),
                    None => {
                        planned_on.set(start, Cell::Blocked).unwrap();
                    }
                }
            }
            walking.sort_by_key(|w| w.0);
            let (walkers, pairs): (Vec<Entity>, Vec<_>) = walking.into_iter().unzip();
            let horizon = (2 * (grid.width() + grid.height()) + 2 * pairs.len() as u32).min(4096);
            Self { walkers, pairs, planned_on, horizon }
        }
    }

    /// A wall built across the plan's way while it is made over frames (on the cell its paths
    /// would cross most): the plan is begun again on the grid as it is now, so that no path it
    /// writes crosses the wall and nobody leaves it for a way round (which would have the map
    /// planned again); everyone arrives, no cell ever held twice, nobody ever on the wall.
    #[test]
    fn a_wall_built_while_a_plan_is_made_is_planned_round() {
        use bevy_ecs_tilemap::prelude::{TilePos, TileStorage, TileTextureIndex};
        use bevy_tilemap_nav::search::plan_together;
        let Shuffle { mut app, grid, units, goals, .. } = shuffle_app();
        for (&unit, &goal) in units.iter().zip(&goals) {
            app.world_mut().entity_mut(unit).insert(PathRequest::to(goal));
        }
        let planning = |app: &App| app.world().resource::<NavDiagnostics>().cooperative_work > 0;
        let mut arrived: Vec<(Entity, GridPos, bool)> = Vec::new();
        let note = |app: &App, arrived: &mut Vec<(Entity, GridPos, bool)>| {
            let got = messages::<Arrived>(app);
            arrived.extend(got.iter().map(|a| (a.entity, a.cell, a.reached_goal)));
        };
        let mut frames = 0;
        while !planning(&app) {
            app.update();
            note(&app, &mut arrived);
            frames += 1;
            assert!(frames < 60, "no plan begun");
        }
        let first: Vec<GridLocked> =
            units.iter().map(|&u| *app.world().get::<GridLocked>(u).unwrap()).collect();
        // The plan being made, as it would be made in one go on the grid it began on.
        let OneGo { pairs, planned_on, horizon, .. } =
            OneGo::of(&app, &grid, &units, &goals, &first);
        let whole = plan_together(&planned_on, &pairs, horizon).unwrap();
        let ends: Vec<GridPos> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
        let held: Vec<GridPos> = first.iter().filter_map(|l| l.holds.map(|h| h.1)).collect();
        let free =
            |c: &GridPos| !ends.contains(c) && !held.contains(c) && planned_on.is_passable(*c);
        let mut crossed: std::collections::HashMap<GridPos, usize> = Default::default();
        for plan in &whole {
            for &cell in plan.iter().filter(|c| free(c)) {
                *crossed.entry(cell).or_default() += 1;
            }
        }
        // The cell crossed most whose wall leaves every goal reachable from every start.
        let mut cells: Vec<(usize, GridPos)> = crossed.into_iter().map(|(c, n)| (n, c)).collect();
        cells.sort_unstable_by(|a, b| b.cmp(a));
        let connected = |wall: GridPos| connected_without(&planned_on, wall, &ends);
        let (crossings, wall) = cells.into_iter().find(|&(_, c)| connected(c)).unwrap();
        println!("the wall goes on {wall}, crossed by {crossings} of the plan's paths");
        let mut storages = app.world_mut().query::<&TileStorage>();
        let tile = storages.single(app.world()).unwrap().get(&TilePos::new(wall.x, wall.y));
        app.world_mut().entity_mut(tile.unwrap()).insert(TileTextureIndex(WALL));
        // The plan is made: nobody's path crosses the wall.
        // From the frame after next (paths walked when the wall came are sent to plan again
        // then), nobody's path crosses the wall: not the plan's, nor any other.
        let crossing = |app: &App| {
            units.iter().copied().find(|&u| {
                app.world().get::<NavPath>(u).is_some_and(|path| path.cells.contains(&wall))
            })
        };
        frames = 0;
        while planning(&app) {
            app.update();
            frames += 1;
            assert!(frames < 600, "the plan is not made");
            check_one_per_cell(&app, &units, "planning");
            note(&app, &mut arrived);
            if frames > 2
                && let Some(unit) = crossing(&app)
            {
                panic!("planning, frame {frames}: {unit}'s path crosses the new wall {wall}");
            }
        }
        // Everyone arrives, never on the wall. Nobody leaves the plan for a way round it: the
        // map is not planned again until a unit has waited for its turn four times the stall
        // time (3 s), as units of a shuffle may (a path cut by the wall would have had it
        // planned again within frames).
        let settings = NavSettings::default().avoidance.stall_time;
        let calm = (4.0 * settings / DT.as_secs_f32()) as usize;
        for frame in 0..3000 {
            app.update();
            assert!(frame >= calm || !planning(&app), "walking, frame {frame}: planned again");
            assert_eq!(crossing(&app), None, "walking, frame {frame}: a path crosses {wall}");
            check_one_per_cell(&app, &units, &format!("walking, frame {frame}"));
            assert!(units.iter().all(|&u| holds(&app, u) != Some(wall)), "frame {frame}");
            note(&app, &mut arrived);
            if arrived.len() == units.len() {
                break;
            }
        }
        tell_left(&app, &units, &arrived);
        assert_arrived_at(arrived, &units, &goals);
    }

    /// Agents leave a plan while it is made over frames: one despawned, one sent elsewhere,
    /// one stopped a while: the plan is made without them, and everyone arrives (the one sent
    /// elsewhere at its new goal), no cell ever held twice.
    #[test]
    fn agents_leaving_a_plan_while_it_is_made_are_left_out() {
        let Shuffle { mut app, units, goals, .. } = shuffle_app();
        for (&unit, &goal) in units.iter().zip(&goals) {
            app.world_mut().entity_mut(unit).insert(PathRequest::to(goal));
        }
        let mut planning = 0;
        while planning < 3 {
            app.update();
            if app.world().resource::<NavDiagnostics>().cooperative_work > 0 {
                planning += 1;
            }
            check_one_per_cell(&app, &units, "before");
        }
        // Despawned: its goal is free, and the one sent elsewhere goes there.
        let gone = units.iter().position(|&u| app.world().get::<NavPath>(u).is_some()).unwrap();
        app.world_mut().despawn(units[gone]);
        let elsewhere = (gone + 1..units.len())
            .find(|&i| app.world().get::<NavPath>(units[i]).is_some())
            .unwrap();
        let stopped = (elsewhere + 1..units.len())
            .find(|&i| app.world().get::<NavPath>(units[i]).is_some())
            .unwrap();
        app.world_mut().entity_mut(units[elsewhere]).insert(PathRequest::to(goals[gone]));
        let speed = app.world().get::<PathFollower>(units[stopped]).unwrap().speed;
        app.world_mut().get_mut::<PathFollower>(units[stopped]).unwrap().speed = 0.0;
        for _ in 0..5 {
            app.update();
            check_one_per_cell(&app, &units, "stopped");
        }
        app.world_mut().get_mut::<PathFollower>(units[stopped]).unwrap().speed = speed;
        let mut left: Vec<Entity> = units.clone();
        let mut goals = goals.clone();
        goals[elsewhere] = goals[gone];
        left.remove(gone);
        goals.remove(gone);
        // They walk on, the one sent elsewhere to its new goal (requests asked again for the
        // goals they have: answered by the paths they walk).
        let (frames, arrived, _) = walk_all(&mut app, &left, &goals, 4000);
        assert_arrived_at(arrived, &left, &goals);
        println!("leaving a plan under way: all arrived in {frames} frames");
    }

    /// The arrivals are each of `units` at its goal, and no more.
    fn assert_arrived_at(
        mut arrived: Vec<(Entity, GridPos, bool)>,
        units: &[Entity],
        goals: &[GridPos],
    ) {
        arrived.sort();
        let mut want: Vec<(Entity, GridPos, bool)> =
            units.iter().zip(goals).map(|(&u, &g)| (u, g, true)).collect();
        want.sort();
        assert_eq!(arrived, want);
    }

    /// The 200-unit shuffle in an app, not yet sent.
    struct Shuffle {
        app: App,
        /// The map's grid.
        grid: NavGrid,
        units: Vec<Entity>,
        starts: Vec<GridPos>,
        goals: Vec<GridPos>,
        speeds: Vec<f32>,
    }

    /// An app with the tactics map, and the map's grid.
    fn tactics_app() -> (App, NavGrid) {
        let rows = crate::support::tactics_rows();
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        let mut app = nav_app(DT, WALL);
        spawn_text_tilemap(&mut app, &rows, TILE, Vec2::ZERO, |c| Some(u32::from(c == '#')));
        app.update();
        let grid = app.world().resource::<NavMaps>().first().unwrap().grid.clone();
        (app, grid)
    }

    /// The tactics map with 200 cooperative units of the shuffle on it (not yet sent).
    fn shuffle_app() -> Shuffle {
        let (mut app, grid) = tactics_app();
        let (starts, goals, speeds) = crate::support::shuffle(&grid, 200);
        let units = spawn_cooperative(&mut app, &starts, &speeds);
        app.update();
        Shuffle { app, grid, units, starts, goals, speeds }
    }

    /// A long random session of cooperative units on a map with walls: units re-targeted at
    /// any moment (mid-step included), some asking for the same goal every frame, some sent
    /// to one cell together, despawned, slowed to 0 or NaN and sped up again, and plain
    /// grid-locked units walking among them. Every frame: no cell held twice, no unit in a
    /// wall. At the end every unit left is sent somewhere and all arrive: nobody waits for
    /// ever.
    #[test]
    fn cooperative_units_re_targeted_despawned_and_stopped_at_random() {
        // Planned all the way, and (windowed) a few steps ahead at a time.
        for (seed, window) in [(0x6_0202, None), (0x6_0208, None), (0x6_0202, Some(8))] {
            random_session(seed, window);
        }
        random_session(0x6_0208, Some(16));
    }

    /// One random session of [`cooperative_units_re_targeted_despawned_and_stopped_at_random`],
    /// the units planned `window` steps ahead (`None`: all the way).
    fn random_session(seed: u64, window: Option<u32>) {
        let (mut app, grid) = tactics_app();
        app.world_mut().resource_mut::<NavSettings>().cooperative_window = window;
        let open: Vec<GridPos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
        let mut rng = crate::support::Rng(seed);
        let pick = |rng: &mut crate::support::Rng| open[rng.below(open.len() as u32) as usize];
        let mut starts: Vec<GridPos> = Vec::new();
        while starts.len() < 70 {
            let cell = pick(&mut rng);
            if !starts.contains(&cell) {
                starts.push(cell);
            }
        }
        let speeds: Vec<f32> = (0..70).map(|_| 40.0 + rng.below(120) as f32).collect();
        let mut units = spawn_cooperative(&mut app, &starts[..60], &speeds[..60]);
        // Ten plain grid-locked units among them.
        for (&cell, &speed) in starts[60..].iter().zip(&speeds[60..]) {
            let at = crate::tilemap::centre(&app, cell).extend(1.0);
            let body = (Transform::from_translation(at), GridLocked::default());
            units.push(app.world_mut().spawn((body, PathFollower::new(speed))).id());
        }
        app.update();
        let mut stubborn: Vec<(Entity, GridPos)> = Vec::new();
        let mut despawned = 0;
        for frame in 0..2500 {
            for (i, &unit) in units.iter().enumerate() {
                if app.world().get_entity(unit).is_err() {
                    continue;
                }
                match rng.below(600) {
                    0..=3 => {
                        let goal = pick(&mut rng);
                        app.world_mut().entity_mut(unit).insert(PathRequest::to(goal));
                    }
                    // Asks for one goal every frame from now on.
                    4 if stubborn.len() < 6 => stubborn.push((unit, pick(&mut rng))),
                    5 => {
                        let speed = [0.0, f32::NAN, speeds[i]][rng.below(3) as usize];
                        app.world_mut().get_mut::<PathFollower>(unit).unwrap().speed = speed;
                    }
                    6 if despawned < 8 => {
                        app.world_mut().despawn(unit);
                        stubborn.retain(|s| s.0 != unit);
                        despawned += 1;
                    }
                    // Three sent to one cell together.
                    7 => {
                        let goal = pick(&mut rng);
                        for &other in units.iter().skip(i).take(3) {
                            if let Ok(mut e) = app.world_mut().get_entity_mut(other) {
                                e.insert(PathRequest::to(goal));
                            }
                        }
                    }
                    _ => {}
                }
            }
            for &(unit, goal) in &stubborn {
                app.world_mut().entity_mut(unit).insert(PathRequest::to(goal));
            }
            app.update();
            let alive: Vec<Entity> =
                units.iter().copied().filter(|&u| app.world().get_entity(u).is_ok()).collect();
            check_one_per_cell(&app, &alive, &format!("seed {seed} frame {frame}"));
            for &unit in &alive {
                let at = app.world().get::<Transform>(unit).unwrap().translation.truncate();
                let map = app.world().resource::<NavMaps>().first().unwrap();
                let cell = map.geometry.world_to_cell(at).expect("on the map");
                assert!(grid.is_passable(cell), "seed {seed} frame {frame}: {unit} in a wall");
            }
        }
        // The end: everyone left, at its own speed, sent to a cell of its own.
        let alive: Vec<Entity> =
            units.into_iter().filter(|&u| app.world().get_entity(u).is_ok()).collect();
        for (&unit, &speed) in alive.iter().zip(&speeds) {
            app.world_mut().get_mut::<PathFollower>(unit).unwrap().speed = speed.max(40.0);
        }
        let mut goals: Vec<GridPos> = Vec::new();
        while goals.len() < alive.len() {
            let cell = pick(&mut rng);
            if !goals.contains(&cell) {
                goals.push(cell);
            }
        }
        let (frames, arrived, _) = walk_all(&mut app, &alive, &goals, 4000);
        let left = alive.len();
        println!(
            "session {seed}, window {window:?}: {left} units left, all arrived in {frames} frames"
        );
        assert!(arrived.iter().all(|a| a.2), "{arrived:?}");
    }
}
