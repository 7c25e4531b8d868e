#!/usr/bin/env python3
"""A kpmc-flame SVG against the folded stacks it was drawn from: it parses as
XML with an <svg> root; cairo drew it (glyphs of its labels); every frame
box's <title> ("name (N samples, P%)") names a frame of the folded stacks
with its exact sample count; every function with at least 1% of the samples
has a box; the root box "all" holds every sample; and the NAMES given must
be among the boxes. Prints a summary; exits 1 with the reasons otherwise.
Usage: check_flame_svg.py SVG FOLDED [NAME...]"""
import re
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict

SVG = "{http://www.w3.org/2000/svg}"
svg_path, folded_path, wanted = sys.argv[1], sys.argv[2], sys.argv[3:]
fails = []

# Samples per frame, as a flame graph merges them: per path from the root.
paths = defaultdict(int)
per_name = defaultdict(int)
total = 0
with open(folded_path) as f:
    for line in f:
        line = line.rstrip("\n")
        if not line:
            continue
        stack, count = line.rsplit(" ", 1)
        count = int(count)
        total += count
        frames = stack.split(";")
        for i in range(len(frames)):
            paths[tuple(frames[: i + 1])] += count
        for name in set(frames):
            per_name[name] += count

try:
    root = ET.parse(svg_path).getroot()
except ET.ParseError as e:
    print(f"{svg_path}: not XML: {e}")
    sys.exit(1)
if root.tag != SVG + "svg":
    fails.append(f"root element {root.tag}, not svg")
glyphs = root.findall(f".//{SVG}symbol")
if not glyphs:
    fails.append("no glyphs: cairo drew no text")

title_re = re.compile(r"^(.*) \((\d+) samples, ([0-9.]+)%\)$")
boxes = defaultdict(list)
for rect in root.iter(SVG + "rect"):
    t = rect.find(SVG + "title")
    if t is None:
        continue
    m = title_re.match(t.text or "")
    if not m:
        fails.append(f"title {t.text!r} is not 'name (N samples, P%)'")
        continue
    boxes[m.group(1)].append(int(m.group(2)))

if boxes.get("all") != [total]:
    fails.append(f"root box 'all' holds {boxes.get('all')}, not [{total}]")
counts_by_name = defaultdict(set)
for path, n in paths.items():
    counts_by_name[path[-1]].add(n)
for name, counts in boxes.items():
    if name == "all":
        continue
    if name not in counts_by_name:
        fails.append(f"box {name!r} is no frame of the folded stacks")
    elif any(c not in counts_by_name[name] for c in counts):
        fails.append(f"box {name!r} with {counts} samples; the folded stacks give {sorted(counts_by_name[name])}")
for name, n in per_name.items():
    if 100 * n >= total and name not in boxes:
        fails.append(f"{name!r} ({n} of {total} samples) has no box")
for name in wanted:
    if name not in boxes:
        fails.append(f"{name!r} has no box")

if fails:
    print("; ".join(fails))
    sys.exit(1)
print(f"{sum(len(v) for v in boxes.values())} frame boxes, {len(glyphs)} glyphs, {total} samples; "
      f"named: {' '.join(wanted) if wanted else '(none asked)'}")
