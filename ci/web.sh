#!/usr/bin/env bash
# The plugin in a browser: builds for wasm32-unknown-unknown and runs the build in headless
# Chromium. CI runs `bash ci/web.sh build` (in the background) then `bash ci/web.sh run`; it
# works the same by hand on a machine like CI's.
#
#   bash ci/web.sh install          what the web build needs (below), if missing
#   bash ci/web.sh build            install, then the headless scene (web/) built for wasm32 and
#                                   bound to JS
#   bash ci/web.sh run              the built scene run in headless Chromium: fails on a panic,
#                                   an uncaught error, or a verdict other than "done ok"
#   bash ci/web.sh scene            build, then run (the default)
#   bash ci/web.sh example NAME [PNG]
#                                   an example (click_to_move) built for wasm32 with WebGL2,
#                                   run in Chromium for 20 s, and a screenshot taken (PNG)
#
# rustup's toolchains here have no wasm32 standard library and cannot fetch one, so the build
# uses Debian's Rust for the web (packages rustc-web, cargo-web, rust-web-src: rustc 1.96 and
# the standard library's sources, built here with -Zbuild-std) and lld-22 (/usr/bin/rust-lld)
# to link. rustup's cargo stays first in PATH for everything else. wasm-bindgen-cli is built
# from crates.io at the lockfile's wasm-bindgen version; the browser is Debian's chromium,
# driven by playwright-core from npm.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
cache="${WEB_CACHE:-$HOME/.cache/bevy_tilemap_nav}"
target="${TARGET_WEB:-$cache/target-web}"
tools="$cache/tools"
site="$target/site"
wasm_target=wasm32-unknown-unknown

web_cargo() {
  RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR="$target" \
    CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=/usr/bin/rust-lld \
    /usr/bin/cargo "$@" -Zbuild-std=std,panic_abort --target "$wasm_target"
}

# The version of a package in a lockfile.
locked() { awk -v name="$2" '$0 == "name = \"" name "\"" { getline; gsub(/[^0-9.]/, ""); print; exit }' "$1"; }

install() {
  local need=()
  [ -x /usr/bin/rustc ] && /usr/bin/rustc --version | grep -q '^rustc 1\.9[6-9]' || need+=(rustc-web)
  [ -x /usr/bin/cargo ] || need+=(cargo-web)
  [ -d /usr/lib/rustlib/src/rust/library ] || need+=(rust-web-src)
  [ -x /usr/bin/rust-lld ] || need+=(lld-22)
  [ -x /usr/bin/chromium ] || need+=(chromium)
  command -v node >/dev/null 2>&1 || need+=(nodejs npm)
  if [ ${#need[@]} -gt 0 ]; then
    echo "installing ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${need[@]}" >/dev/null
  fi
  # wasm-bindgen's generated glue must match the wasm-bindgen crate the build links exactly.
  local version
  version=$(locked web/Cargo.lock wasm-bindgen)
  if [ "$("$tools/bin/wasm-bindgen" --version 2>/dev/null)" != "wasm-bindgen $version" ]; then
    echo "building wasm-bindgen-cli $version"
    # Not --locked: its lockfile names a webpki-roots release crates.io no longer serves.
    cargo install --quiet wasm-bindgen-cli --version "=$version" --root "$tools"
  fi
  if [ ! -d "$tools/node/node_modules/playwright-core" ]; then
    mkdir -p "$tools/node"
    (cd "$tools/node" && npm install --silent --no-audit --no-fund playwright-core@1.64.1)
  fi
}

# Binds a wasm file to JS (wasm-bindgen) into the site's pkg/ and puts the page beside it.
bind() {
  local wasm=$1 name=$2
  mkdir -p "$site/pkg"
  "$tools/bin/wasm-bindgen" --target web --no-typescript --out-dir "$site/pkg" --out-name "$name" "$wasm"
  cp web/index.html "$site/index.html"
  ln -sfn "$repo/assets" "$site/assets"
  du -h "$site/pkg/${name}_bg.wasm"
}

build_scene() {
  web_cargo build --manifest-path web/Cargo.toml
  bind "$target/$wasm_target/debug/web_scene.wasm" web_scene
}

build_example() {
  local name=$1
  web_cargo build --example "$name"
  bind "$target/$wasm_target/debug/examples/$name.wasm" "$name"
}

# Serves the site on a free local port and opens its page, with QUERY after its address, in
# headless Chromium (web/run.cjs, which is given ARGS).
in_browser() {
  local query=$1 port
  shift
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  python3 -m http.server "$port" --bind 127.0.0.1 --directory "$site" >"$target/http.log" 2>&1 &
  local server=$! status=0
  for _ in $(seq 50); do
    curl -s -o /dev/null "http://127.0.0.1:$port/index.html" && break
    sleep 0.1
  done
  NODE_MODULES="$tools/node/node_modules" node web/run.cjs "http://127.0.0.1:$port/index.html$query" "$@" ||
    status=$?
  kill "$server" 2>/dev/null || true
  return "$status"
}

run_scene() { in_browser "" scene 120; }

started=$SECONDS
case "${1:-scene}" in
  install) install ;;
  build)
    install
    build_scene
    echo "web build: $((SECONDS - started)) s"
    ;;
  run) run_scene ;;
  scene)
    install
    build_scene
    run_scene
    ;;
  example)
    name=${2:?an example name}
    png=${3:-$target/web-$name.png}
    install
    build_example "$name"
    in_browser "?pkg=$name" screenshot "$png" 20
    python3 ci/check_png.py "$png"
    ;;
  *) echo "usage: bash ci/web.sh [install | build | run | scene | example NAME [PNG]]"; exit 2 ;;
esac
