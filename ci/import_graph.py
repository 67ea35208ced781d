#!/usr/bin/env python3
"""The import graph of src/, file by file (from `use` lines and paths in code, comments and
tests left out): fails on any cycle (two files, or more, importing each other; a parent `mod.rs`
re-exporting its children does not count, using what it defines does), and on a layer importing
one above it (the order lib.rs states: grid, search, path, side_view, io, plugin, integrations).

    python3 ci/import_graph.py src
"""
import os, re, sys
root = sys.argv[1] if len(sys.argv) > 1 else 'src'
files = {}
for d, _, fs in os.walk(root):
    for f in fs:
        if f.endswith('.rs'):
            p = os.path.join(d, f)
            rel = os.path.relpath(p, root)[:-3]
            parts = rel.split('/')
            if parts[-1] in ('mod', 'lib'):
                parts = parts[:-1]
            files['::'.join(['crate'] + parts)] = p
def resolve(mod, path):
    segs = path.split('::')
    cur = mod.split('::')
    is_dir = files[mod].endswith('mod.rs') or files[mod].endswith('lib.rs')
    out = []
    for s in segs:
        if s == 'crate': cur = ['crate']; continue
        if s == 'super':
            cur = cur[:-1]; continue
        if s == 'self': continue
        out.append(s)
    if segs[0] not in ('crate', 'super', 'self'):
        # relative to this module (a child)
        cur = mod.split('::')
    full = cur + out
    # longest prefix that is a file
    for k in range(len(full), 0, -1):
        name = '::'.join(full[:k])
        if name in files: return name
    return None
graph = {m: set() for m in files}
for m, p in files.items():
    src = open(p).read()
    src = re.sub(r'#\[cfg\(test\)\]\s*mod tests \{.*', '', src, flags=re.S)
    src = re.sub(r'//.*', '', src)
    # `use super::{A, B}` naming items an ancestor defines (not re-exports): an edge to it.
    for u, names in re.findall(r'^\s*(?:pub(?:\([a-z]+\))? )?use ((?:super|crate)(?:::[a-z_]+)*)::\{?([A-Za-z_, ]+)\}?;', src, re.M):
        t = resolve(m, u)
        if t and m.startswith(t + '::'):
            anc = open(files[t]).read()
            for name in [n.strip() for n in names.split(',') if n.strip()]:
                if name[0].isupper() or name[0].islower():
                    reexported = re.search(r'pub(?:\([a-z]+\))? use [^;]*\b' + name + r'\b', anc)
                    if not reexported and re.search(r'\b(?:fn|struct|enum|trait|type|const) ' + name + r'\b', anc):
                        graph[m].add(t)
    for u in re.findall(r'^\s*(?:pub(?:\([a-z]+\))? )?use ([a-zA-Z_:]+)', src, re.M):
        if u.split('::')[0] in ('std', 'bevy', 'serde', 'core', 'alloc', 'tiled', 'serde_json', 'ron', 'bevy_ecs_tilemap', 'bevy_ecs_tiled', 'bevy_ecs_ldtk'):
            continue
        t = resolve(m, u.rstrip(':'))
        if t and t != m and not m.startswith(t + '::') :
            graph[m].add(t)
    # inline paths like super::x::Y or crate::a::b in code
    for u in re.findall(r'\b((?:crate|super)(?:::[a-z_][a-z0-9_]*)+)', src):
        t = resolve(m, u)
        if t and t != m and not m.startswith(t + '::'):
            graph[m].add(t)
# find cycles (SCCs)
index = {}; low = {}; stack = []; on = set(); sccs = []; i = [0]
sys.setrecursionlimit(10000)
def strong(v):
    index[v] = low[v] = i[0]; i[0] += 1; stack.append(v); on.add(v)
    for w in graph[v]:
        if w not in index: strong(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v: break
        if len(comp) > 1: sccs.append(comp)
for v in graph:
    if v not in index: strong(v)
for c in sccs:
    print('cycle:', ' '.join(sorted(c)))
    for a in sorted(c):
        print('   ', a, '->', ' '.join(sorted(x for x in graph[a] if x in c)))
LAYERS = ['grid', 'search', 'path', 'side_view', 'io', 'plugin', 'integrations']
def layer(m):
    parts = m.split('::')
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else None
upward = [(a, b) for a in graph for b in graph[a]
          if layer(a) is not None and layer(b) is not None and layer(b) > layer(a)]
for a, b in sorted(upward):
    print('layer:', a, 'imports', b, 'above it')
print(f'{len(files)} files, {sum(len(v) for v in graph.values())} imports between them: '
      f'{len(sccs)} cycles, {len(upward)} upward imports')
sys.exit(1 if sccs or upward else 0)
