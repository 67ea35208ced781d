#!/usr/bin/env bash
# Precomputed answers against mkpath's JPS+BB and TOPS (github.com/MinusKelvin/mkpath, MIT or
# Apache-2.0), built from source, on every public map, in one run: for each map and round,
# mkpath's JPS+BB and TOPS searches set up as its own `jps_plus_bb` and `tops` examples set
# them up (a hash node pool, its A*, the map's jump database and precomputed oracle), timed
# over all scenarios by a driver this script adds to the checkout (`examples/quiet_peer.rs`:
# the examples print each path, which would be timed with the searches; the driver adds up
# the costs instead), and our `scenarios` example with `SCENARIOS_TABLE=1` (a `PathTable`,
# every cell of each path) and without (online jump point search), one after the other.
# Prints us/query per round.
#
#   bash benches/mkpath_peer.sh
#
# mkpath is cloned at MKPATH_REV (default: the commit measured in BENCHMARKS.md) into
# $WORK/mkpath (default WORK=~/.cache/bevy_tilemap_nav/mkpath-peer), or taken from MKPATH_SRC,
# and built there with its own target dir; its precomputed files are made once per map with its
# examples' `--generate` (under a second each on these maps). Ours: `--example scenarios`,
# release. Our figure is the mean after the first query (the first warms the table's pages);
# mkpath's is over all queries, its oracle loaded before. ROUNDS (default 3). PASSES (default
# 1): each side asks every scenario that many times over in one process, in the same order,
# and the mean is over all (the steady state of a game that asks one table all along, its
# entries warm in the caches); with 1, each query is asked once, just after the build or load.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
rounds=${ROUNDS:-3}
passes=${PASSES:-1}
rev=${MKPATH_REV:-15d8b3b7a6a3e38e2fc7e4a49026e21e2b2f28ed}
work=${WORK:-${XDG_CACHE_HOME:-$HOME/.cache}/bevy_tilemap_nav/mkpath-peer}
mkdir -p "$work"
src=${MKPATH_SRC:-$work/mkpath}
if [ -z "${MKPATH_SRC:-}" ] && [ ! -d "$src/.git" ]; then
  git clone -q https://github.com/MinusKelvin/mkpath "$src"
fi
if [ -z "${MKPATH_SRC:-}" ]; then
  git -C "$src" checkout -q "$rev"
fi
cat >"$src/examples/quiet_peer.rs" <<'RUST'
// Added by bevy_tilemap_nav's benches/mkpath_peer.sh: JPS+BB and TOPS over a scenario file,
// set up as the crate's examples set them up, timed without printing paths.
use std::fs::File;
use std::io::BufReader;

use mkpath::traits::NodePool;
use mkpath::{AStarSearcher, HashPool, NodeBuilder, PriorityQueueFactory};
use mkpath_grid::octile_distance;
use mkpath_grid_gb::{JpsBbExpander, PartialCellBb, PartialCellCpd, TopsExpander};
use mkpath_jps::JumpDatabase;

mod movingai;

fn main() {
    let path = std::path::PathBuf::from(std::env::args().nth(1).expect("a scenario file"));
    let passes: usize = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let scen = movingai::read_scenario(&path).unwrap();
    let map = movingai::read_bitgrid(&scen.map).unwrap();
    let jump_db = JumpDatabase::new(&map);
    let open = |ext: &str| {
        let mut file = scen.map.clone();
        file.as_mut_os_string().push(ext);
        BufReader::new(File::open(file).unwrap())
    };
    let bb = PartialCellBb::load(&map, &mut open(".bb+")).unwrap();
    let cpd = PartialCellCpd::load(&map, &mut open(".top+")).unwrap();
    let mut builder = NodeBuilder::new();
    let state = builder.add_field((-1, -1));
    let mut astar = AStarSearcher::new(&mut builder);
    let mut queues = PriorityQueueFactory::new(&mut builder);
    let mut pool = HashPool::new(builder.build(), state);
    for tops in [false, true] {
        let (mut total, mut solved) = (0.0, 0);
        let began = std::time::Instant::now();
        for (index, problem) in scen.instances.iter().cycle().take(scen.instances.len() * passes).enumerate() {
            pool.reset();
            let open_list = queues.new_queue(astar.ordering());
            let h = |node: mkpath::NodeRef| octile_distance(node.get(state), problem.target);
            let goal = |node: mkpath::NodeRef| node.get(state) == problem.target;
            let start = pool.generate(problem.start);
            let found = if tops {
                let e = TopsExpander::new(&map, &jump_db, &cpd, &pool, state, problem.target);
                astar.search(e, open_list, h, goal, start)
            } else {
                let e = JpsBbExpander::new(&map, &jump_db, &bb, &pool, state, problem.target);
                astar.search(e, open_list, h, goal, start)
            };
            if let Some(path) = found.filter(|_| index < scen.instances.len()) {
                total += path.last().unwrap().get(astar.g());
                solved += 1;
            }
        }
        let asked = (scen.instances.len() * passes) as f64;
        let us = began.elapsed().as_secs_f64() * 1e6 / asked;
        let name = if tops { "tops" } else { "jps+bb" };
        println!("{name} {us:.2} us/query {solved} solved {total:.1} total");
    }
}
RUST
(cd "$src" && CARGO_TARGET_DIR=$work/target cargo build --release -q \
  --example tops --example jps_plus_bb --example quiet_peer 2>/dev/null)
(cd "$root" && cargo build --release -q --example scenarios)
# (Through cargo: it sets the library path the example may need.)
ours() { (cd "$root" && SCENARIOS_ROUNDS=$passes cargo run --release -q --example scenarios -- "$@"); }
bin=$work/target/release/examples

# mkpath reads the map at the path the scenario file names, next to the scenario file.
maps=$work/maps
mkdir -p "$maps"
echo "| map | round | mkpath JPS+BB | mkpath TOPS | PathTable | online JPS (ours) |"
echo "|---|---|---|---|---|---|"
for scen in "$root"/assets/maps/*.map.scen; do
  name=$(basename "$scen" .map.scen)
  named=$(awk 'NR == 2 { print $2 }' "$scen")
  mkdir -p "$maps/$(dirname "$named")"
  cp "$scen" "$maps/$name.map.scen"
  cp "$root/assets/maps/$name.map" "$maps/$named"
  if [ ! -f "$maps/$named.bb+" ]; then "$bin/jps_plus_bb" --generate "$maps/$named" >/dev/null; fi
  if [ ! -f "$maps/$named.top+" ]; then "$bin/tops" --generate "$maps/$named" >/dev/null; fi
  for round in $(seq "$rounds"); do
    peer=$("$bin/quiet_peer" "$maps/$name.map.scen" "$passes")
    bb=$(awk '$1 == "jps+bb" { print $2 }' <<<"$peer")
    tops=$(awk '$1 == "tops" { print $2 }' <<<"$peer")
    mean_after() { sed -n 's/.*(\([0-9.]*\) after the first.*/\1/p' | tail -1; }
    table=$(SCENARIOS_TABLE=1 ours "$root/assets/maps/$name.map" "$scen" 2>/dev/null | mean_after)
    online=$(ours "$root/assets/maps/$name.map" "$scen" 2>/dev/null | mean_after)
    echo "| $name | $round | $bb | $tops | $table | $online |"
  done
done
