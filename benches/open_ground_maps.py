#!/usr/bin/env python3
"""Writes synthetic maps in the MovingAI format, with 400 scenarios each, into a directory:
open ground with square pillars (where a path table's lists are longest), a smoothed cave,
rooms with doors, and an empty map. The scenarios' optimum column is 0 (not worked out here):
compare the lengths two searches print instead. Fixed seeds: the same maps on every machine.

    python3 benches/open_ground_maps.py OUT_DIR
"""
import random
import sys
from collections import deque


def component(cells, w, h):
    """The largest 4-connected set of open cells (every pair in it has a path)."""
    seen = [[False] * w for _ in range(h)]
    best = []
    for y in range(h):
        for x in range(w):
            if cells[y][x] != '.' or seen[y][x]:
                continue
            seen[y][x] = True
            queue, found = deque([(x, y)]), []
            while queue:
                cx, cy = queue.popleft()
                found.append((cx, cy))
                for nx, ny in ((cx + 1, cy), (cx - 1, cy), (cx, cy + 1), (cx, cy - 1)):
                    if 0 <= nx < w and 0 <= ny < h and cells[ny][nx] == '.' and not seen[ny][nx]:
                        seen[ny][nx] = True
                        queue.append((nx, ny))
            if len(found) > len(best):
                best = found
    return best


def write(out, name, cells, count=400, seed=1):
    h, w = len(cells), len(cells[0])
    with open(f"{out}/{name}.map", "w") as f:
        f.write(f"type octile\nheight {h}\nwidth {w}\nmap\n")
        f.writelines("".join(row) + "\n" for row in cells)
    rng = random.Random(seed)
    ends = component(cells, w, h)
    with open(f"{out}/{name}.map.scen", "w") as f:
        f.write("version 1\n")
        for _ in range(count):
            (sx, sy), (gx, gy) = rng.choice(ends), rng.choice(ends)
            f.write(f"0\t{name}.map\t{w}\t{h}\t{sx}\t{sy}\t{gx}\t{gy}\t0\n")


def pillars(side, step, size):
    """Open ground with a `size` x `size` pillar every `step` cells."""
    cells = [["."] * side for _ in range(side)]
    for y in range(step // 2, side, step):
        for x in range(step // 2, side, step):
            for dy in range(size):
                for dx in range(size):
                    if y + dy < side and x + dx < side:
                        cells[y + dy][x + dx] = "@"
    return cells


def cave(side, fill, seed, smoothing):
    """Random walls smoothed by the 4-5 cellular automaton rule."""
    rng = random.Random(seed)
    cells = [["@" if rng.random() < fill else "." for _ in range(side)] for _ in range(side)]
    for _ in range(smoothing):
        def walls(x, y):
            return sum(
                not (0 <= x + dx < side and 0 <= y + dy < side) or cells[y + dy][x + dx] == "@"
                for dy in (-1, 0, 1)
                for dx in (-1, 0, 1)
            )
        cells = [["@" if walls(x, y) >= 5 else "." for x in range(side)] for y in range(side)]
    return cells


def rooms(side, room, seed):
    """Square rooms `room` cells apart, each wall with one door two cells wide."""
    rng = random.Random(seed)
    cells = [["."] * side for _ in range(side)]
    for k in range(0, side, room):
        for i in range(side):
            cells[k][i] = cells[i][k] = "@"
    for y in range(0, side, room):
        for x in range(0, side, room):
            d = rng.randrange(2, room - 2)
            cells[y][x + d] = cells[y][x + d + 1] = "."
            d = rng.randrange(2, room - 2)
            cells[y + d][x] = cells[y + d + 1][x] = "."
    return cells


def main():
    out = sys.argv[1]
    for side, step, size in ((128, 24, 2), (256, 32, 2), (256, 40, 2), (512, 56, 3),
                             (512, 64, 2), (512, 64, 4)):
        write(out, f"pillars{side}_{step}_{size}", pillars(side, step, size))
    write(out, "cave192", cave(192, 0.40, 5, 10))
    write(out, "rooms256", rooms(256, 16, 4))
    write(out, "empty512", [["."] * 512 for _ in range(512)])


if __name__ == "__main__":
    main()
