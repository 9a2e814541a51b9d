#!/usr/bin/env python3
"""The layer rule of src/ (HACKING.md): a folder uses only itself and the
folders below it, and no two objects need each other.

  check_layers.py includes SRCDIR      the #include lines of SRCDIR/src
  check_layers.py objects BUILDDIR     the objects' symbols (nm), after make

Prints one line per breach and exits 1 if there is one."""
import glob
import os
import re
import subprocess
import sys

# Lowest first. The order is the rule: keep it in step with HACKING.md.
LAYERS = ['base', 'db', 'elf', 'pkg', 'sysroot', 'use', 'cli']
RANK = {name: i for i, name in enumerate(LAYERS)}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(path, root):
    rel = os.path.relpath(path, root).split(os.sep)
    return rel[0] if len(rel) == 2 and rel[0] in RANK else None


def check_includes(srcdir):
    root = os.path.join(srcdir, 'src')
    breaches = []
    files = sorted(glob.glob(os.path.join(root, '*', '*.[ch]')))
    loose = sorted(glob.glob(os.path.join(root, '*.[ch]')))
    for f in loose:
        breaches.append('%s: a source file outside the layer folders' % f)
    for f in files:
        own = layer_of(f, root)
        if own is None:
            breaches.append('%s: in no layer folder (%s)' % (f, ' '.join(LAYERS)))
            continue
        with open(f, encoding='utf-8') as fh:
            for n, line in enumerate(fh, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = m.group(1).split('/')
                if len(target) != 2 or target[0] not in RANK:
                    breaches.append('%s:%d: "%s" names no layer folder' % (f, n, m.group(1)))
                elif RANK[target[0]] > RANK[own]:
                    breaches.append('%s:%d: %s/ includes %s from %s/, a higher layer'
                                    % (f, n, own, m.group(1), target[0]))
    if not files:
        breaches.append('%s: no sources found' % root)
    return breaches


def symbols(obj):
    out = subprocess.run(['nm', '-P', obj], check=True, capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == 'U':
            undefined.add(name)
        elif kind.isupper():
            defined.add(name)
    return defined, undefined


def strongly_connected(graph):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

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
            out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def check_objects(builddir):
    root = os.path.join(builddir, 'src')
    objs = sorted(glob.glob(os.path.join(root, '*', '*.o')))
    if not objs:
        return ['%s: no objects found (run make first)' % root]
    owner, needs, breaches = {}, {}, []
    for o in objs:
        defined, undefined = symbols(o)
        needs[o] = undefined
        for s in defined:
            owner[s] = o
    graph = {o: set() for o in objs}
    for o in objs:
        for s in needs[o]:
            d = owner.get(s)
            if d is None or d == o:
                continue
            graph[o].add(d)
            lo, ld = layer_of(o, root), layer_of(d, root)
            if lo and ld and RANK[ld] > RANK[lo]:
                breaches.append('%s needs %s from %s, a higher layer'
                                % (os.path.relpath(o, root), s, os.path.relpath(d, root)))
    for comp in strongly_connected(graph):
        if len(comp) > 1:
            breaches.append('a link cycle: %s' % ' <-> '.join(os.path.relpath(c, root) for c in comp))
    return breaches


def main(argv):
    if len(argv) != 3 or argv[1] not in ('includes', 'objects'):
        sys.stderr.write('usage: check_layers.py includes SRCDIR | objects BUILDDIR\n')
        return 2
    check = check_includes if argv[1] == 'includes' else check_objects
    breaches = check(argv[2])
    for b in breaches:
        print(b)
    return 1 if breaches else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
