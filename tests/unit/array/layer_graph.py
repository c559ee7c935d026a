#!/usr/bin/env python3
"""layer_graph.py -- the call and include graph of handlers/array, derived
from the sources and the built objects, and a check that it has no circle.

  layer_graph.py [--nm NM] [--dot] [--expect-circle A,B,...] LIBRARY.a SOURCE_DIR

Calls: `nm` on the static library lists, per object file, the global symbols
it defines and the ones it leaves undefined; a file calls another when it
needs a symbol the other defines.  Calls through function pointers (the block
store's space hooks, the accounting's headroom callback) are not edges: they
are how a lower layer serves an upper one without naming it.
Includes: the `#include "handlers/array/..."` lines of each .c and .h.

Prints both graphs (one line per file: what it calls / includes), then each
circle of the call graph (a strongly connected component of more than one
file, with the symbols that close it) and of the include graph.
Exit 0: no circle; 1: a circle (the store's layers must call one way,
shared/design/ARCHITECTURE.md); 2: usage or tool error.
--expect-circle (the checker's own test): exit 0 only when the calls hold
exactly one circle, of exactly the files named, else 1."""
import os
import re
import subprocess
import sys


def objects_symbols(nm, lib):
    """{object stem: (defined set, undefined set)} from nm's archive listing."""
    try:
        out = subprocess.run([nm, lib], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"layer_graph: {nm} {lib}: {e}")
    objs, cur = {}, None
    for line in out.splitlines():
        if line.endswith(':') and line.strip():
            cur = os.path.basename(line[:-1])
            cur = re.sub(r'\.c\.o$|\.o$', '', cur)
            objs[cur] = (set(), set())
            continue
        parts = line.split()
        if cur is None or len(parts) < 2:
            continue
        kind, name = parts[-2], parts[-1]
        if kind == 'U':
            objs[cur][1].add(name)
        elif kind in 'TDBRVWGS' and kind.isupper():
            objs[cur][0].add(name)
    return objs


def call_graph(objs):
    """{file: {callee file: sorted symbols}}"""
    owner = {}
    for f, (defs, _) in objs.items():
        for s in defs:
            owner[s] = f
    g = {f: {} for f in objs}
    for f, (_, undef) in objs.items():
        for s in undef:
            o = owner.get(s)
            if o and o != f:
                g[f].setdefault(o, []).append(s)
    for f in g:
        for o in g[f]:
            g[f][o].sort()
    return g


INCLUDE = re.compile(r'^\s*#\s*include\s+"handlers/array/([^"]+)"')


def include_graph(src):
    g = {}
    for name in sorted(os.listdir(src)):
        if not name.endswith(('.c', '.h')):
            continue
        with open(os.path.join(src, name), encoding='utf-8') as fh:
            g[name] = sorted({m.group(1) for m in map(INCLUDE.match, fh) if m and m.group(1) != name})
    return g


def circles(g):
    """Strongly connected components of more than one node (Tarjan, iterative)."""
    index, low, on, stack, out, n = {}, {}, set(), [], [], [0]
    for root in sorted(g):
        if root in index:
            continue
        work = [(root, iter(sorted(g[root])))]
        index[root] = low[root] = n[0]; n[0] += 1
        stack.append(root); on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in g:
                    continue
                if w not in index:
                    index[w] = low[w] = n[0]; n[0] += 1
                    stack.append(w); on.add(w)
                    work.append((w, iter(sorted(g[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop(); on.discard(w); comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def main(argv):
    nm, dot, expect, args = 'nm', False, None, []
    it = iter(argv)
    for a in it:
        if a == '--nm':
            nm = next(it, None) or sys.exit(2)
        elif a == '--dot':
            dot = True
        elif a == '--expect-circle':
            expect = sorted((next(it, None) or sys.exit(2)).split(','))
        else:
            args.append(a)
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    lib, src = args
    if not os.path.isfile(lib) or not os.path.isdir(src):
        print(f"layer_graph: {lib} is not a file or {src} not a directory", file=sys.stderr)
        return 2
    calls = call_graph(objects_symbols(nm, lib))
    incs = include_graph(src)
    if dot:
        print('digraph array_calls {')
        for f in sorted(calls):
            for o in sorted(calls[f]):
                print(f'  "{f}" -> "{o}";')
        print('}')
        return 0
    print('calls (nm: a file needs a symbol another defines):')
    for f in sorted(calls):
        print(f'  {f:16} -> {" ".join(sorted(calls[f])) or "-"}')
    print('includes ("handlers/array/..." lines):')
    for f in sorted(incs):
        print(f'  {f:18} -> {" ".join(incs[f]) or "-"}')
    bad = 0
    found = circles({f: set(calls[f]) for f in calls})
    for comp in found:
        bad = 1
        print('CIRCLE of calls: ' + ' '.join(comp))
        for f in comp:
            for o in comp:
                if o in calls[f]:
                    print(f'  {f} -> {o}: {" ".join(calls[f][o])}')
    for comp in circles({f: set(incs[f]) for f in incs}):
        bad = 1
        print('CIRCLE of includes: ' + ' '.join(comp))
    if expect is not None:
        ok = found == [expect]
        print(f'expected the circle {" ".join(expect)}: {"found" if ok else "NOT found"}')
        return 0 if ok else 1
    if not bad:
        print(f'no circle: {len(calls)} object files, {len(incs)} sources')
    return bad


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
