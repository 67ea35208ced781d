#!/usr/bin/env python3
"""Fails unless each PNG given exists, decodes, and is not blank: a screenshot of a drawn level
has many distinct colours. Standard library only (zlib); handles 8-bit RGB/RGBA, non-interlaced,
which is what Bevy's screenshots are."""
import struct
import sys
import zlib


def pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    if depth != 8 or color not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG layout {header}")
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def main():
    ok = True
    for path in sys.argv[1:]:
        try:
            width, height, bpp, rows = pixels(path)
        except Exception as error:  # noqa: BLE001 - report any failure to read
            print(f"FAIL {path}: {error}")
            ok = False
            continue
        colours = set()
        for row in rows[:: max(1, height // 100)]:
            for x in range(0, width * bpp, bpp * max(1, width // 200)):
                colours.add(row[x:x + 3])
        verdict = "ok" if len(colours) >= 20 else "FAIL (blank?)"
        ok &= verdict == "ok"
        print(f"{verdict} {path}: {width}x{height}, {len(colours)} distinct colours sampled")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
