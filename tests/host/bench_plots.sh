#!/usr/bin/env bash
# make bench's pictures (bench/plot.sh) from a recorded bench run: the data
# files bench/report.awk writes hold the same figures as its tables, and
# each picture is an SVG with both tools' curves through every point.
#   tests/host/bench_plots.sh RESULTS.txt WORKDIR
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
res=${1:?usage: bench_plots.sh RESULTS.txt WORKDIR}
work=${2:?}
rm -rf "$work"
mkdir -p "$work"
fail() { echo "bench_plots: FAIL $*"; exit 1; }
awk -v plots="$work" -f "$top/bench/report.awk" "$res" >"$work/table.txt" || fail "report.awk exited $?"
# Table 1's rows "counters none perf kpmc perf+ kpmc+ ratio" against switch_counters.dat.
want=$(awk '/^1\. Context switch/ { t = 1; next } t && /^[0-9]/ { print $1, $5, $6 } t && /^ratio/ { exit }' "$work/table.txt")
got=$(awk '{ printf "%d %.0f %.0f\n", $1, $2, $3 }' "$work/switch_counters.dat")
[ -n "$want" ] && [ "$want" = "$got" ] || fail "switch_counters.dat '$(echo $got)', table 1 '$(echo $want)'"
# Table 3's EBS rows (ns/sample, perf then kpmc) against sample_period.dat.
want=$(awk '/^perf: EBS every/ { p[$4] = $7 } /^kpmc: EBS every/ { print $4, p[$4], $7 }' "$work/table.txt")
got=$(awk '{ printf "%d %.0f %.0f\n", $1, $2, $3 }' "$work/sample_period.dat")
[ -n "$want" ] && [ "$want" = "$got" ] || fail "sample_period.dat '$(echo $got)', table 3 '$(echo $want)'"
"$top/bench/plot.sh" "$work" >"$work/plot.out" 2>&1 || fail "plot.sh: $(tail -n 2 "$work/plot.out")"
why=$(python3 - "$work" <<'EOF'
import sys, os
import xml.etree.ElementTree as ET
d = sys.argv[1]
ns = '{http://www.w3.org/2000/svg}'
bad, said = [], []
for name, data in (('cost_vs_counters', 'switch_counters.dat'), ('cost_vs_period', 'sample_period.dat')):
    svg = os.path.join(d, name + '.svg')
    try:
        root = ET.parse(svg).getroot()
    except (OSError, ET.ParseError) as e:
        bad.append(f'{name}.svg: {e}')
        continue
    texts = {''.join(t.itertext()).strip() for t in root.iter(ns + 'text')}
    for tool in ('perf', 'kpmc'):
        if tool not in texts:
            bad.append(f'{name}.svg: no curve titled {tool}')
    rows = [l.split() for l in open(os.path.join(d, data)) if l.strip()]
    # gnuplot draws a point symbol per data point: one <use> per point and curve (and one per key entry).
    points = sum(1 for u in root.iter(ns + 'use') if u.get('transform', '').startswith('translate('))
    want = sum(1 for r in rows for v in r[1:] if v != 'NaN') + 2
    if points != want:
        bad.append(f'{name}.svg: {points} point symbols, {want} expected')
    said.append(f'{name} {len(rows)} points per tool')
print('; '.join(bad) if bad else ', '.join(said))
sys.exit(1 if bad else 0)
EOF
) || fail "$why"
echo "bench_plots: PASS tables and plot data agree; $why"
