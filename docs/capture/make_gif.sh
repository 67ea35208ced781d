#!/usr/bin/env bash
# Films click_to_move under Xvfb with bevy_ci_testing and turns the frames into
# docs/click_to_move.gif (needs xvfb and ImageMagick's `convert`).
#   bash docs/capture/make_gif.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
cargo build --example click_to_move
target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
dir=$(mktemp -d)
# The example links Bevy as a shared library (Cargo.toml, dynamic_linking): run outside cargo,
# it is told where that and Rust's standard library are.
libs="$target/debug/deps:$(rustc --print target-libdir)"
(cd "$dir" && LD_LIBRARY_PATH="$libs" BEVY_ASSET_ROOT="$repo" CI_TESTING_CONFIG="$repo/docs/capture/click_to_move_gif.ron" \
    xvfb-run -a -s "-screen 0 1280x800x24" "$target/debug/examples/click_to_move" >run.log 2>&1)
frames=$(ls "$dir"/screenshot-*.png | sort -t- -k2 -n)
# The level without the help text, at half size, 8 colours a channel's worth of palette.
convert -delay 12 -loop 0 $frames -crop 960x600+0+80 +repage -resize 50% -colors 64 \
    -layers Optimize docs/click_to_move.gif
ls -l docs/click_to_move.gif
