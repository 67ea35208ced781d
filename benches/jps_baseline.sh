#!/usr/bin/env bash
# Online jump point search against a recorded baseline, in the same run: builds the `scenarios`
# example at a baseline commit (default a6d9afc, the speed before the crate's reshaping; or the
# first argument) and at the working tree, runs every scenario of the public maps with each,
# interleaved, three rounds, and prints each one's median us/query and the ratio. A regression
# shows the day it lands.
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
names=("baseline $base" "working tree")
for map in arena2 lak304d 64room_000; do
  for k in 0 1; do : >"$cache/times-$map-$k"; done
  for round in 1 2 3; do
    for k in 0 1; do
      "${bins[$k]}" "$root/assets/maps/$map.map" "$root/assets/maps/$map.map.scen" |
        awk -F'\t' 'NF >= 8 { print $8 }' >>"$cache/times-$map-$k"
    done
  done
  median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int(NR / 2) + 1] }'; }
  b=$(median "$cache/times-$map-0"); h=$(median "$cache/times-$map-1")
  printf '%-11s %s %6.1f us   %s %6.1f us   ratio %.2f\n' "$map" "${names[0]}" "$b" "${names[1]}" "$h" \
    "$(awk -v b="$b" -v h="$h" 'BEGIN { print h / b }')"
done
