//! A world cut into chunks joined at their seams, against the same world as one grid, in the
//! same run:
//!
//! ```text
//! cargo bench --bench chunked_world
//! ```
//!
//! Each public MovingAI map is cut into 64 x 64 chunks (as bevy_ecs_tilemap's chunking lays
//! them), joined by one-way links for every step of the whole grid from one chunk to another
//! (what the plugin's seams are). Every 4th scenario (the published queries) is answered three
//! ways, best of three rounds each, every cost checked equal to the whole grid's and to the
//! published optimum:
//! - the whole grid with plain A* (the same search the linked one runs on each grid), and with
//!   the crate's default (jump point search where it pays);
//! - the chunks with `LinkedMaps::with_places` (the estimate across chunks);
//! - the chunks with no places (the estimate the linked search had before);
//! - the chunks with places and no seam links, searched as the plugin does (the default
//!   search: jump points inside each chunk, runs stopping where a seam step leaves).
//!
//! Memory: the whole grid's `memory_bytes` against the chunks' plus their seam links.
//!
//! Seams after a tile change: every seam link of the world worked out (`seam_links`, what the
//! plugin did for any change) against those near one chunk in the middle (`seam_links_near`,
//! what it does when only cells changed), best of three, each checked to give the same links
//! out of the cells it names.

// Timed natively only: the web rule of clippy.toml does not apply here.
#![allow(clippy::disallowed_types, clippy::disallowed_methods)]

mod common;

use std::time::Duration;

use bevy_tilemap_nav::io::movingai::{load_map, load_scenarios};
use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::{
    Algorithm, Link, LinkedMaps, MapPos, PathQuery, Pathfinder, Placement, SearchOptions,
    seam_links, seam_links_near,
};
use common::best;

const CHUNK: u32 = 64;

fn main() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/maps");
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "| map | chunks | seam links | queries | whole: A* | whole: default | chunks, placed | \
         chunks, not placed | chunks placed, default | placed / whole A* | placed default / \
         whole default | cells searched: whole A*, placed, not placed; jump points placed \
         default | memory: whole, chunks + seams |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut remakes = Vec::new();
    for name in ["arena2", "lak304d", "64room_000"] {
        let whole = load_map(format!("{dir}/{name}.map")).expect("map");
        let scenarios = load_scenarios(format!("{dir}/{name}.map.scen")).expect("scenarios");
        let (w, h) = (whole.width(), whole.height());
        let (across, up) = (w.div_ceil(CHUNK), h.div_ceil(CHUNK));
        let chunk_of = |p: GridPos| {
            let (cx, cy) = (p.x / CHUNK, p.y / CHUNK);
            MapPos::new((cy * across + cx) as usize, GridPos::new(p.x % CHUNK, p.y % CHUNK))
        };
        let mut grids = Vec::new();
        let mut places = Vec::new();
        for cy in 0..up {
            for cx in 0..across {
                let (x0, y0) = (cx * CHUNK, cy * CHUNK);
                let (cw, ch) = (CHUNK.min(w - x0), CHUNK.min(h - y0));
                let mut grid = NavGrid::new(cw, ch).expect("chunk");
                let cells = grid.positions().collect::<Vec<_>>();
                let cell = |p: GridPos| whole.get(GridPos::new(x0 + p.x, y0 + p.y)).unwrap();
                grid.set_all(cells.into_iter().map(|p| (p, cell(p)))).expect("cells");
                grids.push(grid);
                places.push(Some(Placement { world: 0, x: i64::from(x0), y: i64::from(y0) }));
            }
        }
        let mut links = Vec::new();
        for a in whole.positions() {
            for (b, cost) in whole.neighbors(a) {
                let (from, to) = (chunk_of(a), chunk_of(b));
                if from.map != to.map {
                    links.push(Link::one_way(from, to, cost));
                }
            }
        }
        let refs: Vec<&NavGrid> = grids.iter().collect();
        let middle = (up / 2 * across + across / 2) as usize;
        let (t_all, all) = best(|| seam_links(&refs, &places));
        let (t_near, (near, cells)) = best(|| seam_links_near(&refs, &places, &[middle]));
        let key = |l: &Link| (l.from, l.to, l.cost.to_bits());
        let cells: std::collections::HashSet<MapPos> = cells.into_iter().collect();
        let mut out_of: Vec<_> = all.iter().filter(|l| cells.contains(&l.from)).map(key).collect();
        let mut made: Vec<_> = near.iter().map(key).collect();
        out_of.sort_unstable_by_key(|k| (k.0.map, k.0.cell, k.1.map, k.1.cell, k.2));
        made.sort_unstable_by_key(|k| (k.0.map, k.0.cell, k.1.map, k.1.cell, k.2));
        assert!(out_of == made && all.len() == links.len(), "{name}: seams near a chunk");
        remakes.push((name, all.len(), near.len(), t_all, t_near));
        let plain = LinkedMaps::new(&refs, &links);
        let placed = plain.with_places(&places);
        let queries: Vec<_> = scenarios.iter().step_by(4).collect();
        let astar = SearchOptions { algorithm: Algorithm::AStar, ..SearchOptions::default() };
        let mut pathfinder = Pathfinder::new();
        let mut run = |search: &mut dyn FnMut(&mut Pathfinder, GridPos, GridPos) -> (f64, u32)| {
            best(|| {
                let (mut costs, mut cells) = (Vec::new(), 0u64);
                for s in &queries {
                    let (cost, expanded) = search(&mut pathfinder, s.start, s.goal);
                    costs.push(cost);
                    cells += u64::from(expanded);
                }
                (costs, cells)
            })
        };
        let (t_astar, (c_astar, n_astar)) = run(&mut |p, a, b| {
            let found = p.find(&whole, &PathQuery::new(a, b).with_options(astar)).expect("whole");
            (found.cost, found.stats.expanded)
        });
        let (t_default, (c_default, _)) = run(&mut |p, a, b| {
            let found = p.find(&whole, &PathQuery::new(a, b)).expect("whole");
            (found.cost, found.stats.expanded)
        });
        let (t_placed, (c_placed, n_placed)) = run(&mut |p, a, b| {
            let query = PathQuery::new(chunk_of(a), chunk_of(b)).with_options(astar);
            let found = p.find(placed, &query).expect("placed");
            (found.cost, found.stats.expanded)
        });
        // What the plugin searches: the places alone (seams stepped across from them), with the
        // default search (jump points inside each chunk, stopping where a seam step leaves).
        let seams_only = LinkedMaps::new(&refs, &[]).with_places(&places);
        let (t_jumps, (c_jumps, n_jumps)) = run(&mut |p, a, b| {
            let found = p.find(seams_only, &PathQuery::new(chunk_of(a), chunk_of(b)));
            let found = found.expect("placed, default");
            (found.cost, found.stats.expanded)
        });
        let (t_plain, (c_plain, n_plain)) = run(&mut |p, a, b| {
            let query = PathQuery::new(chunk_of(a), chunk_of(b)).with_options(astar);
            let found = p.find(plain, &query).expect("not placed");
            (found.cost, found.stats.expanded)
        });
        for (i, s) in queries.iter().enumerate() {
            for (label, cost) in [
                ("default", c_default[i]),
                ("placed", c_placed[i]),
                ("placed, default", c_jumps[i]),
                ("not placed", c_plain[i]),
            ] {
                assert!((cost - c_astar[i]).abs() < 1e-6, "{name} {i} {label}: {cost}");
            }
            assert!((c_astar[i] - s.optimal_length).abs() < 1e-3, "{name} {i}: published");
        }
        let chunk_bytes: usize = grids.iter().map(NavGrid::memory_bytes).sum::<usize>()
            + links.len() * std::mem::size_of::<Link>();
        println!(
            "| {name} ({w} x {h}) | {} | {} | {} | {:.2} ms | {:.2} ms | {:.2} ms | {:.2} ms | \
             {:.2} ms | {:.2}x | {:.2}x | {n_astar}, {n_placed}, {n_plain}; {n_jumps} | \
             {:.1} KiB, {:.1} KiB |",
            grids.len(),
            links.len(),
            queries.len(),
            ms(t_astar),
            ms(t_default),
            ms(t_placed),
            ms(t_plain),
            ms(t_jumps),
            t_placed.as_secs_f64() / t_astar.as_secs_f64(),
            t_jumps.as_secs_f64() / t_default.as_secs_f64(),
            whole.memory_bytes() as f64 / 1024.0,
            chunk_bytes as f64 / 1024.0,
        );
    }
    println!();
    println!("| map | seam links | near one chunk | all seams | near one chunk | ratio |");
    println!("|---|---|---|---|---|---|");
    for (name, all, near, t_all, t_near) in remakes {
        println!(
            "| {name} | {all} | {near} | {:.3} ms | {:.3} ms | {:.1}x |",
            ms(t_all),
            ms(t_near),
            t_all.as_secs_f64() / t_near.as_secs_f64()
        );
    }
}
