#!/usr/bin/env bash
# Online jump point search against a recorded baseline, in the same run: builds the `scenarios`
# example at a baseline commit (default a6d9afc, the speed before the crate's reshaping; or the
# first argument) and at the working tree, runs every scenario of the public maps with each,
# interleaved, in ROUNDS rounds (default 15), and prints for each the median over the rounds of
# a round's median us/query, and the ratio. A regression shows the day it lands.
#
#   bash benches/jps_baseline.sh [COMMIT]
#
# Both build in one target directory (`CARGO_TARGET_DIR`, else ~/.cache/bevy_tilemap_nav/
# bench-target), each after touching its sources: cargo's freshness check would otherwise take
# one checkout's build for the other's. The binaries are copied out.
set -euo pipefail
base=${1:-a6d9afc}
root=$(git rev-parse --show-toplevel)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/bevy_tilemap_nav
tree=$cache/baseline-tree
mkdir -p "$cache"
if [ ! -d "$tree" ] || [ "$(git -C "$tree" rev-parse HEAD 2>/dev/null)" != "$(git rev-parse "$base")" ]; then
  git worktree remove --force "$tree" 2>/dev/null || rm -rf "$tree"
  git worktree add --detach "$tree" "$base" >/dev/null
fi
target=${CARGO_TARGET_DIR:-$cache/bench-target}
build() { # checkout, binary to write
  (cd "$1" && find src examples -name '*.rs' -exec touch {} + &&
    CARGO_TARGET_DIR=$target cargo build --release --example scenarios -q)
  cp "$target/release/examples/scenarios" "$2"
}
bins=("$cache/scenarios-baseline" "$cache/scenarios-head")
build "$tree" "${bins[0]}"
build "$root" "${bins[1]}"
# The examples link Bevy as a shared library (the dev-dependency's `dynamic_linking`): found
# where cargo put it, with the toolchain's std.
export LD_LIBRARY_PATH="$target/release/deps:$(rustc --print target-libdir)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
names=("baseline $base" "working tree")
rounds=${ROUNDS:-15}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int(NR / 2) + 1] }'; }
for map in arena2 lak304d 64room_000; do
  for k in 0 1; do : >"$cache/rounds-$map-$k"; done
  for round in $(seq "$rounds"); do
    for k in 0 1; do
      "${bins[$k]}" "$root/assets/maps/$map.map" "$root/assets/maps/$map.map.scen" |
        awk -F'\t' 'NF >= 8 { print $8 }' | median >>"$cache/rounds-$map-$k"
    done
  done
  # Each round's median query time; of those, the median (a slow spell of the machine spoils
  # a round, and a round is short).
  b=$(median <"$cache/rounds-$map-0"); h=$(median <"$cache/rounds-$map-1")
  printf '%-11s %s %6.1f us   %s %6.1f us   ratio %.2f\n' "$map" "${names[0]}" "$b" "${names[1]}" "$h" \
    "$(awk -v b="$b" -v h="$h" 'BEGIN { print h / b }')"
done
# The machine's noise does not move a count of instructions: with valgrind installed, the
# instructions run inside the queries (callgrind), less what a grid builds once on its first
# query (the lazily built component labels and, since a6d9afc, the jump point bits: a
# OnceLock's initialisation).
if command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null; then
  for map in arena2 lak304d 64room_000; do
    counts=()
    for k in 0 1; do
      out=$cache/callgrind-$map-$k
      valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$out" \
        --toggle-collect='*Pathfinder::find_path' --toggle-collect='*SearchSpace>::begin' \
        "${bins[$k]}" "$root/assets/maps/$map.map" "$root/assets/maps/$map.map.scen" \
        >/dev/null 2>&1
      counts+=("$(callgrind_annotate --inclusive=yes "$out" 2>/dev/null | tr -d , | awk '
        /PROGRAM TOTALS/ { total = $1 }
        /OnceLock<T>::initialize/ { once += $1 }
        END { print total - once }')")
    done
    printf '%-11s instructions: baseline %.1fM   working tree %.1fM   ratio %.2f\n' "$map" \
      "$(awk -v c="${counts[0]}" 'BEGIN { print c / 1e6 }')" \
      "$(awk -v c="${counts[1]}" 'BEGIN { print c / 1e6 }')" \
      "$(awk -v b="${counts[0]}" -v h="${counts[1]}" 'BEGIN { print h / b }')"
  done
fi
