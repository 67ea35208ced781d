//! Distance fields (`DistanceField`) built and repaired, against a plain multi-source Dijkstra
//! of our own, on the public MovingAI maps as published and painted with terrain, in the same
//! run:
//!
//! ```text
//! cargo bench --bench fields
//! ```
//!
//! For each map: the field of one goal and of 16 goals built whole (best of three) against the
//! plain Dijkstra (a binary heap of (cost, cell), the grid's own `neighbors` and `step_cost`,
//! best of three), every cell's cost checked equal; then 20 batches of 8 random cells toggled
//! (wall or floor, away from the goals) on the one-goal field, each repaired with
//! `DistanceField::update` and timed against building the field again, the repair checked
//! against that rebuild: the mean repair time, the mean cells it settled, and the ratio.

// Timed natively only: the web rule of clippy.toml does not apply here.
#![allow(clippy::disallowed_types, clippy::disallowed_methods)]

mod common;
#[path = "../tests/support/mod.rs"]
mod shared;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::{Duration, Instant};

use bevy_tilemap_nav::io::movingai::{load_map, paint_terrain};
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::DistanceField;
use common::best;
use shared::Rng;

const BATCHES: usize = 20;
const BATCH: usize = 8;

/// The cost from every cell to the nearest goal (infinite where none is reached): Dijkstra from
/// the goals backwards, a step from `c` to `n` costing `step_cost(c, n)`.
fn plain_dijkstra(grid: &NavGrid, goals: &[GridPos]) -> Vec<f64> {
    let width = grid.width() as usize;
    let index = |p: GridPos| p.y as usize * width + p.x as usize;
    let mut cost = vec![f64::INFINITY; width * grid.height() as usize];
    let mut open = BinaryHeap::new();
    for &g in goals {
        cost[index(g)] = 0.0;
        open.push(Reverse((0u64, g.x, g.y)));
    }
    while let Some(Reverse((bits, x, y))) = open.pop() {
        let here = f64::from_bits(bits);
        let n = GridPos::new(x, y);
        if here > cost[index(n)] {
            continue;
        }
        for (c, _) in grid.neighbors(n) {
            let Some(step) = grid.step_cost(c, n) else {
                continue;
            };
            let through = here + step;
            if through < cost[index(c)] {
                cost[index(c)] = through;
                open.push(Reverse((through.to_bits(), c.x, c.y)));
            }
        }
    }
    cost
}

/// Every cell's cost in `field` equals `costs` (within float noise).
fn same(grid: &NavGrid, field: &DistanceField, costs: &[f64]) -> bool {
    grid.positions().zip(costs).all(|(p, &want)| match field.cost(p) {
        Some(got) => (got - want).abs() <= 1e-6 * want.max(1.0),
        None => want.is_infinite(),
    })
}

fn main() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps");
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "| map | goals | field build | plain Dijkstra | ratio | repair (mean of {BATCHES} x {BATCH} cells) \
         | cells settled | rebuild | repair / rebuild |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for name in ["arena2", "lak304d", "64room_000"] {
        let published = load_map(format!("{dir}/{name}.map")).expect("map");
        let painted = paint_terrain(&published, 1);
        for (label, grid) in [(name.to_string(), published), (format!("{name} weighted"), painted)]
        {
            let open: Vec<GridPos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
            let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
            let goals: Vec<GridPos> =
                (0..16).map(|_| open[rng.below(open.len() as u32) as usize]).collect();
            let mut repair_row = None;
            for count in [1, 16] {
                let goals = &goals[..count];
                let (built, field) = best(|| DistanceField::new(&grid, goals).expect("field"));
                let (plain, costs) = best(|| plain_dijkstra(&grid, goals));
                assert!(same(&grid, &field, &costs), "{label}: field differs from Dijkstra");
                let ratio = built.as_secs_f64() / plain.as_secs_f64();
                if count == 1 {
                    // Repairs after batches of toggled cells, against rebuilding.
                    let mut grid = grid.clone();
                    let mut field = field;
                    let (mut repair, mut rebuild, mut settled) =
                        (Duration::ZERO, Duration::ZERO, 0);
                    for _ in 0..BATCHES {
                        let mut changed = Vec::new();
                        while changed.len() < BATCH {
                            let p = GridPos::new(rng.below(grid.width()), rng.below(grid.height()));
                            if goals.contains(&p) || changed.contains(&p) {
                                continue;
                            }
                            let cell =
                                if grid.is_passable(p) { Cell::Blocked } else { Cell::GROUND };
                            grid.set(p, cell).expect("in the grid");
                            changed.push(p);
                        }
                        let started = Instant::now();
                        settled += field.update(&grid, changed);
                        repair += started.elapsed();
                        let started = Instant::now();
                        let fresh = DistanceField::new(&grid, goals).expect("field");
                        rebuild += started.elapsed();
                        let truth = plain_dijkstra(&grid, goals);
                        assert!(same(&grid, &field, &truth), "{label}: repair differs");
                        assert!(same(&grid, &fresh, &truth), "{label}: rebuild differs");
                    }
                    let n = BATCHES as u32;
                    repair_row = Some((repair / n, settled / BATCHES, rebuild / n));
                }
                let repair = match (count, repair_row) {
                    (1, Some((repair, settled, rebuild))) => format!(
                        "{:.3} ms | {settled} | {:.2} ms | {:.3}",
                        ms(repair),
                        ms(rebuild),
                        repair.as_secs_f64() / rebuild.as_secs_f64()
                    ),
                    _ => "| | |".to_string(),
                };
                println!(
                    "| {label} | {count} | {:.2} ms | {:.2} ms | {ratio:.2} | {repair} |",
                    ms(built),
                    ms(plain)
                );
            }
        }
    }

    // Fields built only as far as some followers need (`DistanceField::covering`, what
    // `NavField::covering_followers` builds): 100 followers within a cost of 40 of one goal.
    println!();
    println!(
        "| map | whole field | covering 100 followers within 40 | ratio | cells known (of open) |"
    );
    println!("|---|---|---|---|---|");
    for name in ["arena2", "lak304d", "64room_000"] {
        let grid = load_map(format!("{dir}/{name}.map")).expect("map");
        let open: Vec<GridPos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
        let mut rng = Rng(0x5eed);
        let goal = [open[rng.below(open.len() as u32) as usize]];
        let (whole_time, whole) = best(|| DistanceField::new(&grid, &goal).expect("field"));
        let near: Vec<GridPos> =
            open.iter().copied().filter(|&p| whole.cost(p).is_some_and(|c| c <= 40.0)).collect();
        let followers: Vec<GridPos> =
            (0..100).map(|_| near[rng.below(near.len() as u32) as usize]).collect();
        let (time, field) =
            best(|| DistanceField::covering(&grid, &goal, &followers).expect("field"));
        for &f in &followers {
            assert_eq!(field.cost(f), whole.cost(f), "{name}: a follower's cost differs");
        }
        let known = open.iter().filter(|&&p| field.cost(p).is_some()).count();
        println!(
            "| {name} | {:.2} ms | {:.3} ms | {:.3} | {known} of {} |",
            ms(whole_time),
            ms(time),
            time.as_secs_f64() / whole_time.as_secs_f64(),
            open.len()
        );
    }
}
