//! A 4,096 x 4,096-cell world in 64 x 64 chunks, streamed around a player who crosses it:
//!
//! ```text
//! cargo bench --bench open_world
//! ```
//!
//! The player walks diagonally across the world one chunk at a time; around it a square of
//! `LOADED` x `LOADED` chunks is loaded (chunks that enter are made, chunks that leave are
//! dropped). At each stop:
//! - the world graph is brought up to date ([`WorldGraph::update`], timed: the cost of a
//!   stream);
//! - queries between random open cells on opposite sides of the loaded square are answered by
//!   the world graph (each timed), and by one grid of the whole world with plain A* and with the
//!   crate's default search, in the same run (the cheapest cost is A*'s);
//! - at a few stops, the exact search across the loaded chunks and their seam links too.
//!
//! Memory: the loaded chunks plus the graph, per loaded cell, against the whole grid per cell.

// Timed natively only: the web rule of clippy.toml does not apply here.
#![allow(clippy::disallowed_types, clippy::disallowed_methods)]

#[path = "../examples/common/world_gen.rs"]
mod world_gen;

use std::collections::HashMap;
use std::time::Instant;

use bevy_tilemap_nav::prelude::*;
use bevy_tilemap_nav::search::{
    Algorithm, LinkedMaps, LinkedPath, MapPos, PathError, PathQuery, Pathfinder, Placement,
    SearchOptions, WorldGraph, seam_links,
};
use world_gen::{BOG, CHUNK, PATHWAY, ROCK, WORLD, world_texture};

/// The loaded square's side, in chunks.
const LOADED: u32 = 16;
const QUERIES: usize = 12;

fn cell_of(texture: u32) -> Cell {
    match texture {
        ROCK => Cell::Blocked,
        BOG => Cell::Passable { cost: 8 },
        PATHWAY => Cell::Passable { cost: 1 },
        _ => Cell::Passable { cost: 2 },
    }
}

fn chunk(cx: u32, cy: u32) -> NavGrid {
    let mut grid = NavGrid::new(CHUNK, CHUNK).expect("a chunk");
    let (x0, y0) = (cx * CHUNK, cy * CHUNK);
    let cells: Vec<GridPos> = grid.positions().collect();
    grid.set_all(cells.into_iter().map(|p| (p, cell_of(world_texture(x0 + p.x, y0 + p.y)))))
        .expect("cells");
    grid
}

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u32) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % u64::from(n)) as u32
    }
}

/// The `p` quantile of `sorted` (0 when empty: a row not measured in this run).
fn percentile(sorted: &[f64], p: f64) -> f64 {
    let last = sorted.len().saturating_sub(1);
    sorted.get((last as f64 * p).round() as usize).copied().unwrap_or(0.0)
}

fn main() {
    let started = Instant::now();
    let mut whole = NavGrid::new(WORLD, WORLD).expect("the world");
    let cells: Vec<GridPos> = whole.positions().collect();
    whole.set_all(cells.into_iter().map(|p| (p, cell_of(world_texture(p.x, p.y))))).expect("cells");
    println!(
        "whole world: {WORLD} x {WORLD} cells made in {:.1} s, {:.1} MiB",
        started.elapsed().as_secs_f64(),
        whole.memory_bytes() as f64 / 1048576.0
    );
    let astar = SearchOptions { algorithm: Algorithm::AStar, ..SearchOptions::default() };
    let mut pathfinder = Pathfinder::new();
    let mut graph = WorldGraph::default();
    let mut loaded: HashMap<(u32, u32), NavGrid> = HashMap::new();
    let mut rng = Rng(0x5eed);
    let (mut t_graph, mut t_astar, mut t_default, mut t_exact, mut t_exact_default) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut ratios, mut updates, mut exact_ratio) = (Vec::new(), Vec::new(), Vec::new());
    let mut layouts = Vec::new();
    let mut memory = (0usize, 0usize, 0usize, 0u64);
    let stops = (WORLD / CHUNK - LOADED) / 2;
    // OPEN_WORLD_GRAPH_ONLY=1: the world graph alone (for profiling it).
    let graph_only = std::env::var_os("OPEN_WORLD_GRAPH_ONLY").is_some();
    for stop in 0..=stops {
        // The player at chunk (c, c): the square around it loaded, the rest dropped.
        let first = stop * 2;
        let wanted: Vec<(u32, u32)> = (first..first + LOADED)
            .flat_map(|cy| (first..first + LOADED).map(move |cx| (cx, cy)))
            .collect();
        loaded.retain(|k, _| wanted.contains(k));
        for &(cx, cy) in &wanted {
            loaded.entry((cx, cy)).or_insert_with(|| chunk(cx, cy));
        }
        let keys: Vec<(u32, u32)> = wanted.clone();
        let grids: Vec<&NavGrid> = keys.iter().map(|k| &loaded[k]).collect();
        let places: Vec<Option<Placement>> = keys
            .iter()
            .map(|&(cx, cy)| {
                let (x, y) = (i64::from(cx * CHUNK), i64::from(cy * CHUNK));
                Some(Placement { world: 0, x, y })
            })
            .collect();
        let index: HashMap<(u32, u32), usize> =
            keys.iter().enumerate().map(|(i, &k)| (k, i)).collect();
        let at = |p: GridPos| {
            MapPos::new(index[&(p.x / CHUNK, p.y / CHUNK)], GridPos::new(p.x % CHUNK, p.y % CHUNK))
        };
        let world = LinkedMaps::new(&grids, &[]).with_places(&places);
        // The layout alone (with the one node's walks `update_within` takes at least), then the
        // rest of the update.
        let began = Instant::now();
        graph.update_within(world, 0);
        layouts.push(began.elapsed().as_secs_f64() * 1e3);
        graph.update(world);
        updates.push(began.elapsed().as_secs_f64() * 1e3);
        let (x0, span) = (first * CHUNK, LOADED * CHUNK);
        let open_cell = |rng: &mut Rng, x: (u32, u32), y: (u32, u32)| loop {
            let p = GridPos::new(x0 + x.0 + rng.below(x.1 - x.0), x0 + y.0 + rng.below(y.1 - y.0));
            if whole.is_passable(p) {
                return p;
            }
        };
        let exact_here = stop % 4 == 0;
        let seams = if exact_here { seam_links(&grids, &places) } else { Vec::new() };
        let exact = LinkedMaps::new(&grids, &seams).with_places(&places);
        for q in 0..QUERIES {
            // From one side of the loaded square to the other (a corner to the far one, or
            // an edge to the far edge).
            let edge = (0, CHUNK);
            let far = (span - CHUNK, span);
            let all = (0, span);
            let (a, b) = match q % 3 {
                0 => (open_cell(&mut rng, edge, edge), open_cell(&mut rng, far, far)),
                1 => (open_cell(&mut rng, edge, all), open_cell(&mut rng, far, all)),
                _ => (open_cell(&mut rng, all, edge), open_cell(&mut rng, all, far)),
            };
            let began = Instant::now();
            let found = graph.find(world, at(a), at(b));
            t_graph.push(began.elapsed().as_secs_f64() * 1e3);
            if graph_only {
                continue;
            }
            let began = Instant::now();
            let best = pathfinder.find(&whole, &PathQuery::new(a, b).with_options(astar));
            t_astar.push(began.elapsed().as_secs_f64() * 1e3);
            let began = Instant::now();
            let default = pathfinder.find(&whole, &PathQuery::new(a, b));
            t_default.push(began.elapsed().as_secs_f64() * 1e3);
            match (&found, &best) {
                (Ok(found), Ok(best)) => {
                    assert!(found.cost >= best.cost - 1e-6, "{a} -> {b}");
                    assert!((default.expect("default").cost - best.cost).abs() < 1e-6);
                    ratios.push(found.cost / best.cost);
                }
                (Err(_), Err(_)) => {}
                _ => panic!(
                    "{a} -> {b}: {:?} graph, {:?} whole",
                    found.map(|f| f.cost),
                    best.map(|b| b.cost)
                ),
            }
            if exact_here && q < 5 {
                let query = PathQuery::new(at(a), at(b)).with_options(astar);
                let began = Instant::now();
                let linked = pathfinder.find(exact, &query);
                t_exact.push(began.elapsed().as_secs_f64() * 1e3);
                if let (Ok(linked), Ok(found)) = (&linked, &found) {
                    exact_ratio.push(found.cost / linked.cost);
                }
                // The plugin's exact search: the places alone, the default search.
                let began = Instant::now();
                let placed = pathfinder.find(world, &PathQuery::new(at(a), at(b)));
                t_exact_default.push(began.elapsed().as_secs_f64() * 1e3);
                let cost = |r: &Result<LinkedPath, PathError>| r.as_ref().ok().map(|p| p.cost);
                let (c, l) = (cost(&placed), cost(&linked));
                assert!(c.zip(l).is_none_or(|(c, l)| (c - l).abs() < 1e-6), "{a} -> {b}");
                assert_eq!(c.is_some(), l.is_some(), "{a} -> {b}");
            }
        }
        let chunk_bytes: usize = grids.iter().map(|g| g.memory_bytes()).sum();
        let seam_bytes = seams.len() * std::mem::size_of::<bevy_tilemap_nav::search::Link>();
        memory = (
            chunk_bytes,
            graph.memory_bytes(),
            seam_bytes.max(memory.2),
            u64::from(span) * u64::from(span),
        );
    }
    let sort = |v: &mut Vec<f64>| v.sort_by(f64::total_cmp);
    for v in [&mut t_graph, &mut t_astar, &mut t_default, &mut t_exact, &mut t_exact_default] {
        sort(v);
    }
    sort(&mut ratios);
    // (Not the first stop: the whole graph's first build.)
    for v in [&mut updates, &mut layouts] {
        if !v.is_empty() {
            v.remove(0);
        }
        sort(v);
    }
    let row = |label: &str, v: &[f64]| {
        println!(
            "| {label} | {} | {:.3} ms | {:.3} ms | {:.3} ms | {:.3} ms |",
            v.len(),
            v.iter().sum::<f64>() / v.len().max(1) as f64,
            percentile(v, 0.5),
            percentile(v, 0.99),
            v.last().copied().unwrap_or(0.0)
        );
    };
    println!(
        "\n{} stops, {LOADED} x {LOADED} chunks loaded ({} x {} cells), queries across them\n",
        stops + 1,
        LOADED * CHUNK,
        LOADED * CHUNK
    );
    println!("| search | queries | mean | p50 | p99 | max |\n|---|---|---|---|---|---|");
    row("world graph, loaded chunks", &t_graph);
    row("whole grid, A*", &t_astar);
    row("whole grid, default (jump point search)", &t_default);
    row("loaded chunks + seam links, exact linked A*", &t_exact);
    row("loaded chunks by their places, exact, default search", &t_exact_default);
    row("world graph update after a stream (16-31 chunks in)", &updates);
    row("of which the layout (and one node's walks)", &layouts);
    let mean = ratios.iter().sum::<f64>() / ratios.len().max(1) as f64;
    println!(
        "\nworld graph cost / cheapest (when measured): mean {mean:.4}, p99 {:.4}, max {:.4} ({} paths); against \
         the exact linked search: mean {:.4}",
        percentile(&ratios, 0.99),
        ratios.last().copied().unwrap_or(1.0),
        ratios.len(),
        exact_ratio.iter().sum::<f64>() / exact_ratio.len().max(1) as f64
    );
    let (chunks, graph_bytes, seam_bytes, cells) = memory;
    let per = |b: usize| b as f64 / cells as f64;
    println!(
        "memory per loaded cell: chunks {:.2} B + graph {:.2} B (+ seam links for the exact \
         search {:.2} B); the whole grid {:.2} B per cell; graph nodes {}",
        per(chunks),
        per(graph_bytes),
        per(seam_bytes),
        whole.memory_bytes() as f64 / (f64::from(WORLD) * f64::from(WORLD)),
        graph.node_count()
    );
}
