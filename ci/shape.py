#!/usr/bin/env python3
"""The shape of src/ that keeps it readable: no file longer than 800 lines, no function in
src/plugin/ longer than 150 (from its `fn` line to its closing brace). Lists what breaks a
limit and fails; with --top N also prints the N longest functions of src/plugin/.

    python3 ci/shape.py src [--top N]
"""
import os, re, sys

MAX_FILE, MAX_FN = 800, 150
root = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith('-') else 'src'
top = int(sys.argv[sys.argv.index('--top') + 1]) if '--top' in sys.argv else 0
fn_line = re.compile(r'^(\s*)(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?fn\s+(\w+)')
bad, functions = [], []
for d, _, fs in os.walk(root):
    for f in sorted(fs):
        if not f.endswith('.rs'):
            continue
        path = os.path.join(d, f)
        lines = open(path).read().split('\n')
        if len(lines) - 1 > MAX_FILE:
            bad.append(f'{path}: {len(lines) - 1} lines (at most {MAX_FILE})')
        if not path.startswith(os.path.join(root, 'plugin')):
            continue
        for i, line in enumerate(lines):
            m = fn_line.match(line)
            if not m or line.rstrip().endswith(';'):
                continue  # not a function, or one without a body (in a trait)
            # The body closes on the first later line that is the brace alone at this indent.
            close = m.group(1) + '}'
            end = next((j for j in range(i, len(lines)) if lines[j] == close), None)
            if end is None:
                continue
            length = end - i + 1
            functions.append((length, f'{path}:{i + 1} {m.group(7)}'))
            if length > MAX_FN:
                bad.append(f'{path}:{i + 1}: fn {m.group(7)} is {length} lines (at most {MAX_FN})')
for length, where in sorted(functions, reverse=True)[:top]:
    print(f'{length:5} {where}')
for line in bad:
    print(line)
print(f'{len(functions)} functions in {root}/plugin, {len(bad)} over the limits')
sys.exit(1 if bad else 0)
