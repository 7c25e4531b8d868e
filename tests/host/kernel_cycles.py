#!/usr/bin/env python3
"""Call cycles among the module's core files (kernel/*.c).

A file depends on another when it names a function defined there (a call,
or a function pointer taken: both tie the two files together). Functions
come from universal-ctags; a static function is only ever its own file's.
The strongly connected components of that graph (Tarjan) are the cycles: a
layered core has none. Each cycle is printed with the names that tie it,
file -> file.

  tests/host/kernel_cycles.py [--max-files N] [--layers FILE] [DIR]

Exit 1 when the largest cycle holds more than N files (default 0). With
--layers, also when a file names a function of a file in its own or a
higher layer, or a file has no layer (FILE: one "name: files" line per
layer, top first; tests/host/kernel_layers.txt is the module's), and when a
file includes the header of a higher layer: each layer declares its
functions in kernel/layer_<name>.h (per-cpu: layer_per_cpu.h), which its
own files and those above include; kernel/types.h, the data they share,
any of them.
"""
import argparse
import glob
import os
import re
import subprocess
import sys


def definitions(files, kinds='f'):
    """name -> set of files that define it; the static ones per file (ctags kinds: f functions, v variables)."""
    out = subprocess.run(['ctags', '-x', f'--c-kinds={kinds}', '--language-force=C'] + files,
                         check=True, capture_output=True, text=True).stdout
    public, static = {}, {}
    for line in out.splitlines():
        parts = line.split(None, 4)
        if len(parts) < 5:
            continue
        name, _, _, path, text = parts
        if re.match(r'\s*static\b', text):
            static.setdefault(path, set()).add(name)
        else:
            public.setdefault(name, set()).add(path)
    return public, static


COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
IDENT = re.compile(r'\b[A-Za-z_][A-Za-z0-9_]*\b')


def names_used(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        text = COMMENT.sub(' ', f.read())
    return set(IDENT.findall(text))


def tarjan(graph):
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return comps


def read_layers(path):
    """file name -> (depth, layer name); depth 0 is the top."""
    where = {}
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            name, _, members = line.partition(':')
            depth = len({d for d, _ in where.values()})
            for m in members.split():
                if m in where:
                    raise SystemExit(f'kernel_cycles: FAIL {m} is in two layers of {path}')
                where[m] = (depth, name.strip())
    return where


def layer_breaches(layers, graph, ties):
    """Lines naming each tie that does not run down, and each file without a layer."""
    out = []
    for f in sorted(graph):
        base = os.path.basename(f)
        if base not in layers:
            out.append(f'{base} has no layer')
            continue
        for g in sorted(graph[f]):
            other = os.path.basename(g)
            if other in layers and layers[other][0] <= layers[base][0]:
                names = sorted(ties[(f, g)])
                out.append(f'{base} ({layers[base][1]}) -> {other} ({layers[other][1]}): '
                           f'{", ".join(names[:4])}')
    return out


def include_breaches(layers, dirpath):
    """Lines naming each include of a higher layer's header, or of a private header of no layer."""
    depth_of = {name: d for d, name in layers.values()}
    header_layer = {f'layer_{name.replace("-", "_")}.h': name for name in depth_of}
    out = []
    paths = sorted(glob.glob(os.path.join(dirpath, '*.c')) + glob.glob(os.path.join(dirpath, '*.h')))
    private = {os.path.basename(p) for p in paths if p.endswith('.h')}
    for p in paths:
        base = os.path.basename(p)
        own = header_layer.get(base) or (layers[base][1] if base in layers else None)
        with open(p, encoding='utf-8') as f:
            for n, line in enumerate(f, 1):
                m = re.match(r'\s*#\s*include\s+"([^"/]+)"', line)
                if not m or m.group(1) not in private | set(header_layer) or m.group(1) == 'types.h':
                    continue
                inc = m.group(1)
                if inc not in header_layer:
                    out.append(f'{base}:{n} includes "{inc}", the header of no layer')
                elif own is None or depth_of[header_layer[inc]] < depth_of[own]:
                    out.append(f'{base}:{n} ({own or "no layer"}) includes "{inc}" '
                               f'({header_layer[inc]}, above)')
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--max-files', type=int, default=0)
    ap.add_argument('--layers')
    ap.add_argument('dir', nargs='?', default=os.path.join(os.path.dirname(__file__), '..', '..', 'kernel'))
    args = ap.parse_args()
    files = sorted(glob.glob(os.path.join(args.dir, '*.c')))
    if not files:
        print(f'kernel_cycles: FAIL no C files in {args.dir}')
        return 1
    public, static = definitions(files)
    graph, ties = {f: set() for f in files}, {}
    for f in files:
        own = static.get(f, set())
        for name in names_used(f):
            if name in own:
                continue
            for g in public.get(name, ()):
                if g != f:
                    graph[f].add(g)
                    ties.setdefault((f, g), set()).add(name)
    cycles = [c for c in tarjan(graph) if len(c) > 1]
    short = lambda p: os.path.relpath(p, os.path.join(args.dir, '..'))
    edges = sum(len(v) for v in graph.values())
    largest = max((len(c) for c in cycles), default=0)
    for c in sorted(cycles, key=len, reverse=True):
        print(f'cycle of {len(c)} files: {" ".join(short(f) for f in c)}')
        for f in c:
            for g in sorted(graph[f]):
                if g in c:
                    names = sorted(ties[(f, g)])
                    more = f' (+{len(names) - 4})' if len(names) > 4 else ''
                    print(f'    {short(f)} -> {short(g)}: {", ".join(names[:4])}{more}')
    breaches = []
    if args.layers:
        layers = read_layers(args.layers)
        breaches = layer_breaches(layers, graph, ties) + include_breaches(layers, args.dir)
        for b in breaches:
            print(f'    not down the layers: {b}')
    verdict = 'PASS' if largest <= args.max_files and not breaches else 'FAIL'
    layered = (f', {len(breaches)} tie(s) or include(s) not down the layers'
               if args.layers else '')
    print(f'kernel_cycles: {verdict} {len(files)} files, {edges} file-to-file ties, '
          f'{len(cycles)} cycle(s), the largest of {largest} files (at most {args.max_files}){layered}')
    return 0 if verdict == 'PASS' else 1


if __name__ == '__main__':
    sys.exit(main())
