#!/usr/bin/env bash
# A path table against online jump point search, on the public maps and on the synthetic maps
# of benches/open_ground_maps.py (open ground strewn with pillars, where a table's lists are
# longest; a cave; rooms; an empty map). Builds the `scenarios` example of the working tree
# (and, with BASE=COMMIT, of that commit too, for its table), runs every scenario of each map
# with each side interleaved in ROUNDS rounds (default 3), and prints, per map, the median over
# the rounds of the mean us/query after the first (each query asked once; PASSES=N asks every
# scenario N times over), and the table's time over online search's. It stops if the two
# sides' path lengths differ on any scenario.
#
#   bash benches/table_vs_online.sh
#   BASE=5ca6277 ROUNDS=3 bash benches/table_vs_online.sh
#
# Builds in CARGO_TARGET_DIR, else ~/.cache/bevy_tilemap_nav/bench-target (as jps_baseline.sh,
# touching each checkout's sources first), and copies the binaries out.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/bevy_tilemap_nav
target=${CARGO_TARGET_DIR:-$cache/bench-target}
maps=$cache/open-ground-maps
mkdir -p "$maps"
python3 "$root/benches/open_ground_maps.py" "$maps"
build() { # checkout, binary to write
  (cd "$1" && find src examples -name '*.rs' -exec touch {} + &&
    CARGO_TARGET_DIR=$target cargo build --release --example scenarios -q)
  cp "$target/release/examples/scenarios" "$2"
}
sides=(online table)
bins=("$cache/scenarios-head" "$cache/scenarios-head")
if [ -n "${BASE:-}" ]; then
  tree=$cache/baseline-tree
  if [ ! -d "$tree" ] || [ "$(git -C "$tree" rev-parse HEAD 2>/dev/null)" != "$(git rev-parse "$BASE")" ]; then
    git worktree remove --force "$tree" 2>/dev/null || rm -rf "$tree"
    git worktree add --detach "$tree" "$BASE" >/dev/null
  fi
  build "$tree" "$cache/scenarios-baseline"
  sides+=("table@$BASE")
  bins+=("$cache/scenarios-baseline")
fi
build "$root" "$cache/scenarios-head"
# The examples link Bevy as a shared library (the dev-dependency's `dynamic_linking`): found
# where cargo put it, with the toolchain's std.
export LD_LIBRARY_PATH="$target/release/deps:$(rustc --print target-libdir)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export SCENARIOS_ROUNDS=${PASSES:-1}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int(NR / 2) + 1] }'; }
printf '%-18s' map; printf ' %14s' "${sides[@]}"; printf '   table / online\n'
for path in "$root"/assets/maps/*.map "$maps"/*.map; do
  name=$(basename "$path" .map)
  times=()
  for k in "${!sides[@]}"; do : >"$cache/rounds-$k"; done
  for round in $(seq "${ROUNDS:-3}"); do
    for k in "${!sides[@]}"; do
      if [ "$k" = 0 ]; then
        out=$("${bins[$k]}" "$path" "$path.scen" 2>/dev/null)
      else
        out=$(SCENARIOS_TABLE=1 "${bins[$k]}" "$path" "$path.scen" 2>/dev/null)
      fi
      awk -F'\t' 'NF >= 8 { print $1, $6 }' <<<"$out" >"$cache/lengths-$k"
      if ! cmp -s "$cache/lengths-0" "$cache/lengths-$k"; then
        echo "$name: ${sides[$k]}'s path lengths differ from online search's" >&2
        exit 1
      fi
      tail -n 1 <<<"$out" | sed -n 's/.*(\([0-9.]*\) after the first.*/\1/p' >>"$cache/rounds-$k"
    done
  done
  for k in "${!sides[@]}"; do times+=("$(median <"$cache/rounds-$k")"); done
  printf '%-18s' "$name"; printf ' %11s us' "${times[@]}"
  for k in "${!sides[@]}"; do
    [ "$k" = 0 ] || printf '   %.2fx' "$(awk -v t="${times[$k]}" -v o="${times[0]}" 'BEGIN { print t / o }')"
  done
  echo
done
