//! Searches through many links, one query at a time, against the same queries on the map
//! alone, in the same run:
//!
//! ```text
//! cargo bench --bench many_doors
//! ```
//!
//! The crowd benchmark's `rooms` level (256 x 256, rooms and corridors) with 10 or 1,000
//! two-way links of cost 10 between random open cells (teleporters, as `crowd_bench`'s
//! `links10` and `links1000` place them), and 400 queries between random open cells, each
//! asked through [`Pathfinder::find`] over the map and its links, and over the map alone (jump
//! point search). For each: the mean time a query (best of three rounds), the jump points
//! expanded and the entries pushed a query, and, with the links, what a query costs before it
//! searches (its goal is its start: the bounds on leaving through links worked out for it).

// Timed natively only: the web rule of clippy.toml does not apply here.
#![allow(clippy::disallowed_types, clippy::disallowed_methods)]

#[path = "../examples/common/rooms.rs"]
mod rooms;
#[path = "../tests/support/mod.rs"]
mod support;

use std::time::Instant;

use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::{Link, LinkedMaps, MapPos, PathQuery, Pathfinder};
use rooms::rooms_map;
use support::Rng;

const QUERIES: usize = 400;
const ROUNDS: usize = 3;

/// What a round of queries came to: us a query, jump points expanded and entries pushed a
/// query (over the queries answered), the total cost of the paths found.
struct Round {
    micros: f64,
    expanded: f64,
    pushed: f64,
    cost: f64,
}

/// The best of [`ROUNDS`] rounds of `ask` over `queries` (the figures of the fastest).
fn best_of(
    queries: &[(GridPos, GridPos)],
    mut ask: impl FnMut(GridPos, GridPos) -> Option<(f64, u32, u32)>,
) -> Round {
    let mut best: Option<Round> = None;
    for _ in 0..ROUNDS {
        let began = Instant::now();
        let (mut cost, mut expanded, mut pushed, mut answered) = (0.0, 0u64, 0u64, 0u32);
        for &(a, b) in queries {
            if let Some((c, e, p)) = ask(a, b) {
                (cost, answered) = (cost + c, answered + 1);
                (expanded, pushed) = (expanded + u64::from(e), pushed + u64::from(p));
            }
        }
        let micros = began.elapsed().as_secs_f64() * 1e6 / queries.len() as f64;
        let per = |n: u64| n as f64 / f64::from(answered.max(1));
        let round = Round { micros, expanded: per(expanded), pushed: per(pushed), cost };
        if best.as_ref().is_none_or(|b| round.micros < b.micros) {
            best = Some(round);
        }
    }
    best.expect("at least one round")
}

fn main() {
    let grid = rooms_map(11);
    let open: Vec<GridPos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
    let mut rng = Rng(0xD005);
    let any = |rng: &mut Rng| open[rng.below(open.len() as u32) as usize];
    let queries: Vec<(GridPos, GridPos)> =
        (0..QUERIES).map(|_| (any(&mut rng), any(&mut rng))).collect();
    let maps = [&grid];
    let mut alone = Pathfinder::new();
    let plain = best_of(&queries, |a, b| {
        let found = alone.find(&grid, &PathQuery::new(a, b)).ok()?;
        Some((found.cost, found.stats.expanded, found.stats.pushed))
    });
    println!(
        "{QUERIES} queries between random open cells of `rooms` (256 x 256), best of {ROUNDS}"
    );
    println!();
    println!(
        "| links | us/query | expanded, pushed a query | setup a query | paths' cost | us/query / map alone |"
    );
    println!("|---|---|---|---|---|---|");
    let row = |name: &str, r: &Round, setup: &str| {
        println!(
            "| {name} | {:.1} | {:.0}, {:.0} | {setup} | {:.0} | {:.2}x |",
            r.micros,
            r.expanded,
            r.pushed,
            r.cost,
            r.micros / plain.micros
        );
    };
    row("none (the map alone)", &plain, "-");
    for count in [10, 1000] {
        let links: Vec<Link> = (0..count)
            .map(|_| {
                let (a, b) = (any(&mut rng), any(&mut rng));
                Link::two_way(MapPos::new(0, a), MapPos::new(0, b), 10.0)
            })
            .collect();
        let world = LinkedMaps::new(&maps, &links);
        let mut pathfinder = Pathfinder::new();
        let mut ask = |a: GridPos, b: GridPos| {
            let query = PathQuery::new(MapPos::new(0, a), MapPos::new(0, b));
            let found = pathfinder.find(world, &query).ok()?;
            Some((found.cost, found.stats.expanded, found.stats.pushed))
        };
        let searched = best_of(&queries, &mut ask);
        let setup = best_of(&queries, |a, _| ask(a, a)).micros;
        row(&format!("{count}"), &searched, &format!("{setup:.1} us"));
    }
}
