#!/usr/bin/env bash
# Host test of kpmc fold, the real program on a generated fold trace of known
# truth (gen_fold_trace.c: 500 instances, two counters breaking at 40% of the
# region's time, 10 slow instances, a second event set, instances with sets
# rotated): the key=value lines (counts exact, breakpoints within 0.01, phase
# rates within 1%), PREFIX.csv's shape and rates (within 5% of the peak in
# every bin), PREFIX.points.csv, PREFIX.svg as XML with one panel per
# counter; --max-samples, -s 1, --model (a two-component stack and MIPS per
# bin: PREFIX.cpi.csv, PREFIX.cpi.svg), -m (metrics per bin equal to the rate
# columns combined: PREFIX.metrics.csv, metric lines), and bad traces, options and models
# refused with status 2 and the token named. Prints the time of the default fold (B=200).
#   tests/host/fold.sh KPMC OUTDIR   (kpmc-fold next to KPMC)
set -uo pipefail
kpmc=${1:?usage: fold.sh KPMC OUTDIR}
out=${2:?}
kpmc=$(cd "$(dirname "$kpmc")" && pwd)/$(basename "$kpmc")
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
fails=()
fail() { fails+=("$1"); }

gcc -std=gnu11 -Wall -Wextra -Werror -o "$out/gen_fold_trace" "$top/tests/host/gen_fold_trace.c" ||
	{ echo "fold: gen_fold_trace does not build"; exit 1; }
"$out/gen_fold_trace" 500 1 >"$out/trace.fold" || { echo "fold: gen_fold_trace failed"; exit 1; }
cd "$out" || exit 1
rm -f f.csv f.points.csv f.svg

start=$(date +%s.%N)
"$kpmc" fold -o f trace.fold >f.out 2>f.err || fail "kpmc fold exited $?: $(head -c 300 f.err)"
end=$(date +%s.%N)
secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')

# ---- stdout: exact counts, the slow instances named ----
grep -qx 'fold region=twophase set=0 instances=445 used=435 excluded=10 samples=435' f.out ||
	fail "fold line: $(grep '^fold ' f.out)"
want_calls="12 37 62 87 112 137 162 187 212 237"
got_calls=$(sed -n 's/^excluded tid=101 call=\([0-9]*\) duration_ns=3000000 median_ns=[0-9]* mad_ns=[0-9]*$/\1/p' f.out | tr '\n' ' ')
[ "$got_calls" = "$want_calls " ] && [ "$(grep -c '^excluded ' f.out)" = 10 ] ||
	fail "excluded instances: '$got_calls', want '$want_calls'"
python3 - f.out <<'EOF' || fail "key=value lines disagree with the truth"
import sys
truth = {"INST_RETIRED:u": (2e9, 2e8), "INST_RETIRED:k": (1e8, 1.5e9)}
recs = [dict(kv.split("=", 1) for kv in l.split()[1:]) | {"kind": l.split()[0]}
        for l in open(sys.argv[1])]
ok = True
def bad(msg):
    global ok
    ok = False
    print("fold.sh:", msg)
counters = [r for r in recs if r["kind"] == "counter"]
if [c["name"] for c in counters] != list(truth):
    bad("counters %s" % [c["name"] for c in counters])
for name, (r1, r2) in truth.items():
    c = [r for r in counters if r["name"] == name][0]
    mean = 0.4 * r1 + 0.6 * r2
    if abs(float(c["mean_rate_per_s"]) - mean) > 1e-3 * mean:
        bad("%s mean rate %s, want %g" % (name, c["mean_rate_per_s"], mean))
    ph = [r for r in recs if r["kind"] == "phase" and r["counter"] == name]
    bp = [r for r in recs if r["kind"] == "breakpoint" and r["counter"] == name]
    if len(ph) != 2 or len(bp) != 1:
        bad("%s: %d phases, %d breakpoints" % (name, len(ph), len(bp)))
        continue
    if abs(float(bp[0]["x"]) - 0.4) > 0.01 or ph[0]["x1"] != bp[0]["x"] or ph[1]["x0"] != bp[0]["x"]:
        bad("%s breakpoint %s" % (name, bp[0]["x"]))
    for p, want in zip(ph, (r1, r2)):
        if abs(float(p["rate_per_s"]) - want) > 0.01 * want:
            bad("%s phase %s rate %s, want %g" % (name, p["index"], p["rate_per_s"], want))
sys.exit(0 if ok else 1)
EOF

# ---- PREFIX.csv and PREFIX.points.csv ----
python3 - f.csv f.points.csv <<'EOF' || fail "CSV files disagree"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
ok = True
def bad(msg):
    global ok
    ok = False
    print("fold.sh:", msg)
names = ["INST_RETIRED:u", "INST_RETIRED:k"]
cols = ["cum", "cum_lo", "cum_hi", "rate_per_s", "rate_lo", "rate_hi", "phase_rate_per_s"]
header = ["x0", "x1"] + ["%s_%s" % (n, c) for n in names for c in cols]
if rows[0] != header:
    bad("header %s" % rows[0])
if len(rows) != 51 or any(len(r) != 16 for r in rows):
    bad("%d rows, widths %s" % (len(rows), sorted({len(r) for r in rows})))
truth = {"INST_RETIRED:u": (2e9, 2e8), "INST_RETIRED:k": (1e8, 1.5e9)}
for i, r in enumerate(rows[1:]):
    x0, x1 = float(r[0]), float(r[1])
    if abs(x0 - i / 50) > 1e-9 or abs(x1 - (i + 1) / 50) > 1e-9:
        bad("bin %d: %s %s" % (i, r[0], r[1]))
    for k, n in enumerate(names):
        r1, r2 = truth[n]
        want = r1 if x1 <= 0.4 + 1e-9 else r2
        v = [float(x) for x in r[2 + 7 * k: 9 + 7 * k]]
        if abs(v[3] - want) > 0.05 * max(r1, r2):
            bad("%s bin %d rate %g, want %g" % (n, i, v[3], want))
        # The phase model's: within 1% but in the bins next to the break.
        near = abs(x1 - 0.4) <= 0.03
        if not near and abs(v[6] - want) > 0.01 * max(r1, r2) or \
                near and not min(r1, r2) * 0.99 <= v[6] <= max(r1, r2) * 1.01:
            bad("%s bin %d phase rate %g, want %g" % (n, i, v[6], want))
        if not (v[1] <= v[0] + 1e-12 <= v[2] + 2e-12 and v[4] <= v[5]):
            bad("%s bin %d band %s" % (n, i, v))
pts = list(csv.reader(open(sys.argv[2])))
if pts[0] != ["counter", "x", "y"] or len(pts) != 1 + 2 * 435:
    bad("points: header %s, %d lines" % (pts[0], len(pts)))
if any(not (0 <= float(p[1]) <= 1 and 0 <= float(p[2]) <= 1) for p in pts[1:]):
    bad("points outside [0,1]")
if sorted({p[0] for p in pts[1:]}) != sorted(names):
    bad("points' counters %s" % sorted({p[0] for p in pts[1:]}))
sys.exit(0 if ok else 1)
EOF

# ---- PREFIX.svg: XML, one panel per counter with its five plots ----
python3 - f.svg <<'EOF' || fail "f.svg is not the expected plot"
import re, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ids = [e.get("id") for e in root.iter() if (e.get("id") or "").startswith("gnuplot_plot_")]
panels = {}
for i in ids:
    m = re.fullmatch(r"gnuplot_plot_(\d+)([a-z])", i)
    panels.setdefault(m.group(2), set()).add(m.group(1))
texts = " ".join("".join(e.itertext()) for e in root.iter("{http://www.w3.org/2000/svg}text"))
ok = len(panels) == 2 and all(v == {"1", "2", "3", "4", "5"} for v in panels.values()) and \
    "INST_RETIRED:u" in texts and "INST_RETIRED:k" in texts
if not ok:
    print("fold.sh: svg panels", panels)
sys.exit(0 if ok else 1)
EOF

# ---- --max-samples, -s 1 ----
"$kpmc" fold --max-samples 100 --bootstrap 20 -o m trace.fold >m.out 2>m.err || fail "--max-samples 100 exited $?"
grep -qx 'fold region=twophase set=0 instances=445 used=435 excluded=10 samples=100' m.out &&
	[ "$(wc -l <m.points.csv)" = 201 ] || fail "--max-samples 100: $(grep '^fold ' m.out), $(wc -l <m.points.csv) point lines"
"$kpmc" fold -s 1 -o s1 trace.fold >s1.out 2>s1.err || fail "-s 1 exited $?"
grep -qx 'fold region=twophase set=1 instances=50 used=50 excluded=0 samples=50' s1.out &&
	[ "$(grep -c '^phase counter=CPU_CYCLES index=0 x0=0.000000 x1=1.000000 rate_per_s=' s1.out)" = 1 ] &&
	[ "$(grep -c '^counter ' s1.out)" = 1 ] || fail "-s 1: $(tr '\n' '|' <s1.out)"

# ---- --model: a stack over the folded rates (kernel instructions per user one), MIPS ----
cat >uk.model <<'EOF'
description instructions per user instruction (fold.sh's model)
unit cpi
event INST_RETIRED:u
event INST_RETIRED:k
total = (INST_RETIRED:u + INST_RETIRED:k) / INST_RETIRED:u
component user = INST_RETIRED:u / INST_RETIRED:u
component kernel = INST_RETIRED:k / INST_RETIRED:u
EOF
"$kpmc" fold --model uk.model --bootstrap 20 -o mod trace.fold >mod.out 2>mod.err || fail "--model exited $?: $(head -c 300 mod.err)"
python3 - mod.cpi.csv mod.cpi.svg <<'EOF' || fail "--model: mod.cpi.csv or mod.cpi.svg wrong"
import csv, sys
import xml.etree.ElementTree as ET
rows = list(csv.reader(open(sys.argv[1])))
ok = rows[0] == ["x0", "x1", "total", "user", "kernel", "mips"] and len(rows) == 51
for r in rows[1:] if ok else []:
    x1, total, user, kernel, mips = (float(v) for v in r[1:])
    k, m = (0.05, 2000) if x1 <= 0.4 + 1e-9 else (7.5, 200)
    # Within 5% of the peak, as the rates: the ratio near the break is off by more of itself.
    if user != 1 or abs(kernel - k) > 0.05 * 7.5 or abs(mips - m) > 0.05 * 2000 or abs(total - 1 - kernel) > 1e-6:
        ok = False
        print("fold.sh: cpi row", r)
ET.parse(sys.argv[2])
sys.exit(0 if ok else 1)
EOF

# ---- -m: metrics over each bin's folded rates, exactly the rate columns combined ----
"$kpmc" fold -m 'ku=INST_RETIRED:k/INST_RETIRED:u' -m 'mips=INST_RETIRED:u/1e6' --bootstrap 20 -o met trace.fold \
	>met.out 2>met.err || fail "-m exited $?: $(head -c 300 met.err)"
python3 - met.metrics.csv met.csv met.out <<'EOF' || fail "-m: met.metrics.csv or the metric lines wrong"
import csv, sys
m = list(csv.DictReader(open(sys.argv[1])))
b = list(csv.DictReader(open(sys.argv[2])))
ok = len(m) == 50 and list(m[0]) == ["x0", "x1", "ku", "ku_phase", "mips", "mips_phase"]
for mr, br in zip(m, b) if ok else []:
    u, k = float(br["INST_RETIRED:u_rate_per_s"]), float(br["INST_RETIRED:k_rate_per_s"])
    up, kp = float(br["INST_RETIRED:u_phase_rate_per_s"]), float(br["INST_RETIRED:k_phase_rate_per_s"])
    # The CSV's rates are rounded to 9 digits: the metrics agree to 1e-8.
    for got, want in ((mr["ku"], k / u), (mr["ku_phase"], kp / up), (mr["mips"], u / 1e6),
                      (mr["mips_phase"], up / 1e6)):
        if abs(float(got) - want) > 1e-8 * abs(want):
            ok = False
            print("fold.sh: metric row", mr, "want", want)
kv = lambda l: dict(f.split("=", 1) for f in l.split()[1:])
means = {kv(l)["name"]: float(kv(l)["mean"]) for l in open(sys.argv[3]) if l.startswith("metric ")}
rates = {kv(l)["name"]: float(kv(l)["mean_rate_per_s"]) for l in open(sys.argv[3]) if l.startswith("counter ")}
want = {"ku": rates["INST_RETIRED:k"] / rates["INST_RETIRED:u"], "mips": rates["INST_RETIRED:u"] / 1e6}
if set(means) != set(want) or any(abs(means[n] - want[n]) > 1e-8 * want[n] for n in want):
    ok = False
    print("fold.sh: metric lines", means, "want", want)
sys.exit(0 if ok else 1)
EOF

# ---- refusals: status 2, the token named ----
refused() {	# WANT-STDERR ARGS...: kpmc fold ARGS exits 2 with that line on stderr
	local want=$1
	shift
	"$kpmc" fold "$@" >/dev/null 2>r.err
	local rc=$?
	[ $rc = 2 ] && grep -qxF "$want" r.err || fail "kpmc fold $*: status $rc, '$(head -n1 r.err)', want '$want'"
}
{ head -n 7 trace.fold; echo 'sample twophase 100 9 0 12 x 5'; } >bad.fold
refused "kpmc fold: bad.fold:8: token 'x': INST_RETIRED:u: want a decimal number" -o b bad.fold
printf 'kpmc-fold 1\ncounter 0 1 A\ninstance r 1 0 0 100 5\nsample r 1 0 0 200 1\n' >late.fold
refused "kpmc fold: late.fold:4: token '200': offset past its instance's duration 100 ns (line 3)" late.fold
refused "kpmc fold: --bins '0': want an integer from 1 to 100000" --bins 0 trace.fold
refused "kpmc fold: --mad 'abc': want a positive number" --mad abc trace.fold
refused "kpmc fold: --phases '9': want an integer from 1 to 8" --phases 9 trace.fold
refused "kpmc fold: --min-phase '0.6': want a fraction in (0, 0.5]" --min-phase 0.6 trace.fold
refused "kpmc fold: --min-phase '0': want a fraction in (0, 0.5]" --min-phase 0 trace.fold
refused "kpmc fold: trace.fold: region 'nope' has no instance in the trace" -r nope trace.fold
refused "kpmc fold: trace.fold: set 2 has no counter line in the trace" -s 2 trace.fold
refused "kpmc fold: nosuch.fold: No such file or directory" nosuch.fold
refused "kpmc fold: --model cortex_a57_cpi: model cortex_a57_cpi needs event INST_RETIRED, which was not counted (set 0 counts: INST_RETIRED:u INST_RETIRED:k)" \
	--model "$top/share/kpmc/models/cortex_a57_cpi.model" trace.fold
refused "kpmc fold: -m 'x=INST_RETIRED:k/': expected an operand after '/' at column 18 (end of expression)" \
	-m 'x=INST_RETIRED:k/' trace.fold
refused "kpmc fold: -m x: 'CPU_CYCLES' is not a counter of set 0 (INST_RETIRED:u INST_RETIRED:k)" \
	-m 'x=CPU_CYCLES/INST_RETIRED:u' trace.fold

if [ ${#fails[@]} -eq 0 ]; then
	echo "fold: kpmc fold of 500 instances (B=200, 2 counters, SVG included) in ${secs}s; outputs as expected"
	exit 0
fi
printf 'fold: %s\n' "${fails[@]}"
exit 1
