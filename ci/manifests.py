#!/usr/bin/env python3
"""The Bevy 0.20 manifest (compat/bevy-0.20/Cargo.toml) builds the same sources as the main one:
fails unless both declare the same features, the same dependencies with the same features (only
the versions of Bevy and of the crates that follow Bevy's version may differ), the same profiles
and the same targets, and unless the compat folder's links lead to the repository's own folders.
Standard library only (tomllib)."""
import os
import sys
import tomllib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
COMPAT = os.path.join(ROOT, "compat", "bevy-0.20")
# Crates whose version follows Bevy's: their versions differ between the two manifests.
FOLLOW_BEVY = {"bevy", "bevy_ecs_tilemap", "bevy_ecs_tiled", "bevy_ecs_ldtk"}
LINKS = ["src", "examples", "tests", "benches", "assets", "README.md", "CHANGELOG.md"]


def load(path):
    with open(path, "rb") as f:
        return tomllib.load(f)


def deps(manifest, table):
    out = {}
    for name, spec in manifest.get(table, {}).items():
        spec = {"version": spec} if isinstance(spec, str) else dict(spec)
        if name in FOLLOW_BEVY:
            spec.pop("version", None)
        out[name] = spec
    return out


def main():
    main_toml = load(os.path.join(ROOT, "Cargo.toml"))
    compat_toml = load(os.path.join(COMPAT, "Cargo.toml"))
    problems = []

    def same(what, a, b):
        if a != b:
            problems.append(f"{what} differ:\n  main:   {a}\n  compat: {b}")

    same("editions", main_toml["package"]["edition"], compat_toml["package"]["edition"])
    same("features", main_toml.get("features"), compat_toml.get("features"))
    for table in ("dependencies", "dev-dependencies", "build-dependencies"):
        same(table, deps(main_toml, table), deps(compat_toml, table))
    same("profiles", main_toml.get("profile"), compat_toml.get("profile"))
    for kind in ("bench", "example", "test", "bin"):
        same(f"[[{kind}]] targets", main_toml.get(kind), compat_toml.get(kind))
    for link in LINKS:
        path = os.path.join(COMPAT, link)
        if not os.path.islink(path) or os.path.realpath(path) != os.path.realpath(
            os.path.join(ROOT, link)
        ):
            problems.append(f"compat/bevy-0.20/{link} is not a link to ../../{link}")
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    print("the Bevy 0.19 and Bevy 0.20 manifests agree but for Bevy's version")


main()
