#!/usr/bin/env bash
# kpmc -m/-g over a saved trace (kpmc -R: counters by pmcN, no kernel) and
# kpmc plot: the metric table's values against the records' counts, strict
# refusals (exit 2, the token named), and the plot: an SVG with one curve per
# thread whose data file holds exactly each record's metric value.
#   tests/host/metrics.sh KPMC RECORDS.BIN OUTDIR
set -uo pipefail
kpmc=${1:?usage: metrics.sh KPMC RECORDS.BIN OUTDIR}
recs=${2:?}
out=${3:?}
mkdir -p "$out"
fail=0
bad() { echo "metrics: FAIL: $*"; fail=1; }

"$kpmc" -R "$recs" --csv >"$out/records.csv" 2>/dev/null || bad "kpmc -R --csv"

# The metric table over per-thread totals, and a group file of counters.
cat >"$out/group.txt" <<'G'
# counters by number (a trace without its PMU)
description ratio of the two counters
event pmc0
event pmc1
define k = 1000
metric per_k = pmc1 / pmc0 * k
G
"$kpmc" -R "$recs" -A -m 'ipc=pmc1/pmc0' -m 'rate=pmc1 / time' -m 'z=pmc1/(pmc0-pmc0)' \
	-g "$out/group.txt" >"$out/metrics.txt" 2>/dev/null || bad "kpmc -R -m exited $?"

# Refusals: each names the token (and its column).
check_refusal() {
	local want=$1; shift
	"$kpmc" "$@" >/dev/null 2>"$out/err.txt"
	local rc=$?
	[ $rc -eq 2 ] || bad "$* exited $rc, not 2"
	grep -qF -- "$want" "$out/err.txt" || bad "$*: message '$(cat "$out/err.txt")' lacks '$want'"
}
check_refusal "-m 'ipc=pmc1/': expected an operand after '/' at column 10 (end of expression)" -R "$recs" -m 'ipc=pmc1/'
check_refusal "unknown function 'log' at column 5" -R "$recs" -m 'ipc=log(pmc1)'
check_refusal "'(' at column 5 is never closed" -R "$recs" -m 'ipc=(pmc1/pmc0'
check_refusal "expected an operator but found 'pmc0' at column 10" -R "$recs" -m 'ipc=pmc1 pmc0'
check_refusal "unexpected character '%' at column 9" -R "$recs" -m 'ipc=pmc1%pmc0'
check_refusal "'INST_RETIRED': without the module's PMU, metrics name counters (pmcN) and time" \
	-R "$recs" -m 'ipc=INST_RETIRED/pmc0'
printf 'event pmc0\nmetric x = pmc0 * y\n' >"$out/badgroup.txt"
check_refusal "$out/badgroup.txt:2: 'y' in x's expression is neither a declared event" -R "$recs" -g "$out/badgroup.txt"
check_refusal "-m 'a=pmc1/pmc99x': 'pmc99x': a trace's metrics name counters" plot -m 'a=pmc1/pmc99x' "$recs"
check_refusal "-m 'a=pmc1/': expected an operand after '/'" plot -m 'a=pmc1/' "$recs"

# kpmc plot: one curve per thread, the data file's values exact.
"$kpmc" plot -m 'ipc=pmc1/pmc0' -m 'mips=pmc1/time/1e6' -o "$out/plot.svg" "$recs" \
	>"$out/plot.log" 2>&1 || bad "kpmc plot exited $?: $(cat "$out/plot.log")"

python3 - "$out" <<'PY' || fail=1
import csv, math, re, sys
out = sys.argv[1]
rows = list(csv.DictReader(open(f"{out}/records.csv")))
rows = [r for r in rows if r["event"] != "lost" and r["pmc1"] != ""]
tids = sorted({r["tid"] for r in rows}, key=int)
bad = []

# The table: per thread and per process total.
tot = {}
for r in rows:
    t = tot.setdefault(r["tid"], [0, 0, 0])
    t[0] += int(r["pmc0"] or 0); t[1] += int(r["pmc1"]); t[2] += int(r["run_ns"])
def fmt(v):
    if math.isnan(v): return "nan"
    if abs(v) < 1e15 and v == int(v): return "%d" % v
    return "%.10g" % v
text = open(f"{out}/metrics.txt").read()
sect = text.split("[Metrics]\n", 1)
if len(sect) != 2: bad.append("no [Metrics] section")
else:
    lines = sect[1].split("\n")
    if lines[0].split() != ["pid", "tid", "ipc", "rate", "z", "per_k"]: bad.append("header " + lines[0])
    got = {l.split()[1]: l.split()[2:] for l in lines[1:] if l.strip()}
    # pmc0 is counted by set 0 alone while the sets take turns: the metrics
    # take its estimate, the one -A prints (est0); pmc1, in both sets, its count.
    est0 = {}
    for l in sect[0].split("\n"):
        f = l.split()
        if len(f) == 7 and f[0].isdigit() and f[1].isdigit() and f[2] == "0":
            est0[f[1]] = int(f[5].rstrip("*"))
    if sorted(est0) != tids: bad.append(f"-A estimates of pmc0 for {sorted(est0)}")
    for t in tot: tot[t][0] = est0.get(t, 0) or float("nan")
    allt = [sum(tot[t][i] for t in tids) for i in range(3)]
    for tid, (p0, p1, ns) in list(tot.items()) + [("total", allt)]:
        want = [fmt(p1 / p0), fmt(p1 / (ns / 1e9)), "nan", fmt(p1 / p0 * 1000)]
        if got.get(tid) != want: bad.append(f"tid {tid}: {got.get(tid)} != {want}")

# The plot's data: per thread block, each record's metrics, %.17g exact.
blocks = [b for b in open(f"{out}/plot.dat").read().split("\n\n\n") if b.strip()]
if len(blocks) != len(tids): bad.append(f"{len(blocks)} blocks for {len(tids)} threads")
for b in blocks:
    lines = b.strip().split("\n")
    m = re.search(r"# pid (\d+) tid (\d+)", b)
    tid = m.group(2)
    recs = [r for r in rows if r["tid"] == tid]
    pts = [l.split() for l in lines if not l.startswith("#")]
    if len(pts) != len(recs): bad.append(f"tid {tid}: {len(pts)} points, {len(recs)} records")
    run = 0
    for p, r in zip(pts, recs):
        run += int(r["run_ns"])
        ipc = float(r["pmc1"]) / float(r["pmc0"]) if r["pmc0"] else None
        mips = float(r["pmc1"]) / (int(r["run_ns"]) / 1e9) / 1e6
        if float(p[0]) != run / 1e9: bad.append(f"tid {tid}: time {p[0]} != {run / 1e9}")
        if (p[1] != "NaN") if ipc is None else (p[1] == "NaN" or float(p[1]) != ipc):
            bad.append(f"tid {tid}: ipc {p[1]} != {ipc}")
        if float(p[2]) != mips: bad.append(f"tid {tid}: mips {p[2]} != {mips}")

# The SVG: per metric panel one curve (a gnuplot_plot group with a path) per thread.
svg = open(f"{out}/plot.svg").read()
parts = re.split(r'<g id="gnuplot_plot_(\d+)([a-z]?)"', svg)
groups = [(parts[i], parts[i + 1], parts[i + 2]) for i in range(1, len(parts) - 2, 3)]
for panel in ("a", "b"):
    curves = [g for g in groups if g[1] == panel]
    if len(curves) != len(tids): bad.append(f"panel {panel}: {len(curves)} curves for {len(tids)} threads")
    for g in curves:
        if "<path" not in g[2]: bad.append(f"curve {g[0]}{g[1]} has no path")
for b in bad: print("metrics: FAIL:", b)
sys.exit(1 if bad else 0)
PY
[ $fail -eq 0 ] && echo "metrics: PASS (metric table, group file, 9 refusals, plot of ${out}/plot.svg)"
exit $fail
