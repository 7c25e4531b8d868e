#!/usr/bin/env python3
"""The plug-ins and the core meet only at the plug-ins' faces.

  tests/host/plugin_faces.py [TOP]

Plug-ins are the PMU backends (backends/), the sampling formats (formats/),
the monitoring modules (modules/), the placement policy (policies/) and the
test modules (tests/kmod/). Three rules, each a line of the report:
- includes: a plug-in includes its own folder's headers (or its family's
  one level up) and kernel/include/kpmc/ (the faces), never the core's
  private headers beside kernel/*.c nor any path into kernel/;
- faces: a face in kernel/include/kpmc/ includes other faces only, never
  a private header of the core;
- registries: the core (kernel/*.c) names no plug-in's own function or
  object: it reaches each kind through its registry (backends/registry.c,
  formats/registry.c, modules/registry.c), so that format.c names no format
  and pmu.c no backend. Names come from universal-ctags (functions and
  variables, static ones left out).
Exit 1 when any rule is broken, each breach named with its file and line.
"""
import glob
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernel_cycles import definitions, names_used  # noqa: E402

PLUGIN_DIRS = ['backends', 'formats', 'modules', 'policies', 'tests/kmod']
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(top, dirs, exts=('c', 'h')):
    out = []
    for d in dirs:
        for ext in exts:
            out += glob.glob(os.path.join(top, d, '**', f'*.{ext}'), recursive=True)
    return sorted(out)


def includes(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        text = f.read()
    for m in INCLUDE.finditer(text):
        yield text.count('\n', 0, m.start()) + 1, m.group(1)


def plugin_includes(top):
    faces = os.path.join(top, 'kernel', 'include')
    bad = []
    for path in sources(top, PLUGIN_DIRS):
        here = os.path.dirname(path)
        for line, name in includes(path):
            if name.startswith('kpmc/') and os.path.exists(os.path.join(faces, name)):
                continue
            target = os.path.normpath(os.path.join(here, name))
            rel = os.path.relpath(target, top)
            # Its own folder, or the family's header one level up.
            if os.path.exists(target) and not rel.startswith('kernel' + os.sep) and \
                    os.path.commonpath([target, os.path.dirname(here)]) == os.path.dirname(here):
                continue
            # A test module's or a model's header found on the build's -I path.
            if not os.path.exists(target) and not name.startswith('.') and \
                    not os.path.exists(os.path.join(top, 'kernel', name)):
                continue
            bad.append(f'{os.path.relpath(path, top)}:{line}: includes "{name}"')
    return bad


def face_includes(top):
    faces = os.path.join(top, 'kernel', 'include', 'kpmc')
    bad = []
    for path in sorted(glob.glob(os.path.join(faces, '*.h'))):
        for line, name in includes(path):
            if os.path.exists(os.path.join(faces, os.path.basename(name))) and \
                    (name.startswith('kpmc/') or '/' not in name):
                continue
            bad.append(f'{os.path.relpath(path, top)}:{line}: a face includes "{name}"')
    return bad


def plugin_names(top):
    """Public functions and objects of the plug-ins, registries left out: name -> file."""
    files = [p for p in sources(top, PLUGIN_DIRS, ('c',)) if os.path.basename(p) != 'registry.c']
    public, _ = definitions(files, 'fv')
    return {name: os.path.relpath(sorted(where)[0], top) for name, where in public.items()}


def core_names_plugins(top):
    names = plugin_names(top)
    bad = []
    for path in sorted(glob.glob(os.path.join(top, 'kernel', '*.c'))):
        for name in sorted(names_used(path) & set(names)):
            bad.append(f'{os.path.relpath(path, top)} names {name} ({names[name]})')
    return bad


def main():
    top = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                          os.path.join(os.path.dirname(__file__), '..', '..'))
    rules = [('includes', plugin_includes(top)), ('faces', face_includes(top)),
             ('registries', core_names_plugins(top))]
    for rule, bad in rules:
        for b in bad:
            print(f'    {rule}: {b}')
    nbad = sum(len(b) for _, b in rules)
    verdict = 'PASS' if nbad == 0 else 'FAIL'
    print(f'plugin_faces: {verdict} {len(sources(top, PLUGIN_DIRS))} plug-in files, '
          f'{len(glob.glob(os.path.join(top, "kernel", "include", "kpmc", "*.h")))} faces, '
          f'{len(plugin_names(top))} plug-in names; {nbad} breach(es)')
    return 0 if verdict == 'PASS' else 1


if __name__ == '__main__':
    sys.exit(main())
