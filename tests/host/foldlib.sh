#!/usr/bin/env bash
# kpmc fold as a library call: libkpmcfold.so.1 exports exactly
# the functions of fold.h and foldtrace.h (libkpmcfold.map) under its soname,
# and a program built against it with pkg-config (foldlib_user.c) folds the
# generated trace of tests/host/fold.sh (gen_fold_trace.c) to the same
# result as `kpmc fold`: instances, exclusions, every counter's mean, phases
# and, per bin, cumulative fraction, rate, band and phase rate, each as kpmc
# fold prints it (%.9g; phases' bounds %.6f), compared exactly.
#   tests/host/foldlib.sh KPMC OUTDIR   (libkpmcfold next to KPMC)
set -uo pipefail
kpmc=${1:?usage: foldlib.sh KPMC OUTDIR}
out=${2:?}
lib=$(cd "$(dirname "$kpmc")" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
bad=""
want=$(sed -n 's/^[a-z][a-z0-9_ ]*[ *]\(kpmc_fold[a-z_]*\)(.*/\1/p' "$top/userland/fold/fold.h" "$top/userland/fold/foldtrace.h" | sort -u)
have=$(nm -D --defined-only "$lib/libkpmcfold.so" | awk '$2 == "T" { sub("@.*", "", $3); print $3 }' | sort -u)
[ -n "$want" ] && [ "$want" = "$have" ] ||
	bad="$bad exports differ from fold.h and foldtrace.h: $(diff <(echo "$want") <(echo "$have") | grep '^[<>]' | tr '\n' ' ');"
readelf -d "$lib/libkpmcfold.so" | grep -q 'SONAME.*\[libkpmcfold.so.1\]' || bad="$bad no soname libkpmcfold.so.1;"
# GSL inside (its soname differs between Debian releases); only its CBLAS outside.
readelf -d "$lib/libkpmcfold.so" | grep -q 'NEEDED.*libgsl\.so' && bad="$bad links libgsl.so dynamically;"
export PKG_CONFIG_PATH=$lib
# shellcheck disable=SC2046
gcc -std=gnu11 -Wall -Wextra -Werror $(pkg-config --cflags libkpmcfold) -o "$out/foldlib_user" \
	"$top/tests/host/foldlib_user.c" $(pkg-config --libs libkpmcfold) || bad="$bad foldlib_user does not build;"
gcc -std=gnu11 -Wall -Wextra -Werror -o "$out/gen_fold_trace" "$top/tests/host/gen_fold_trace.c" ||
	bad="$bad gen_fold_trace does not build;"
"$out/gen_fold_trace" 500 1 >"$out/trace.fold" || bad="$bad gen_fold_trace failed;"
LD_LIBRARY_PATH=$lib "$out/foldlib_user" "$out/trace.fold" >"$out/lib.txt" 2>"$out/lib.err" ||
	bad="$bad foldlib_user failed: $(tail -n 2 "$out/lib.err" | tr '\n' ' ');"
"$kpmc" fold -o "$out/cmd" "$out/trace.fold" >"$out/cmd.out" 2>"$out/cmd.err" ||
	bad="$bad kpmc fold failed: $(tail -n 2 "$out/cmd.err" | tr '\n' ' ');"
if [ -z "$bad" ]; then
	why=$(python3 - "$out/lib.txt" "$out/cmd.out" "$out/cmd.csv" <<'PY'
import csv
import sys

lib = [l.rstrip("\n").split(" ", 1) for l in open(sys.argv[1])]
got = {}
for k, v in lib:
    got.setdefault(k, []).append(v)
want = {}
def put(k, v):
    want.setdefault(k, []).append(v)
recs = [(l.split()[0], dict(t.partition("=")[::2] for t in l.split()[1:]))
        for l in open(sys.argv[2]) if l.strip()]
for kind, kv in recs:
    if kind == "fold":
        for k in ("region", "set", "instances", "used", "samples"):
            put(k, kv[k])
    elif kind == "excluded":
        put("excluded", "%s:%s:%s" % (kv["tid"], kv["call"], kv["duration_ns"]))
    elif kind == "counter":
        put(kv["name"] + ".mean_total", kv["mean_total"])
        put(kv["name"] + ".mean_rate_per_s", kv["mean_rate_per_s"])
    elif kind == "phase":
        put("%s.phase%s" % (kv["counter"], kv["index"]),
            "%s:%s:%s" % (kv["x0"], kv["x1"], kv["rate_per_s"]))
names = [kv["name"] for kind, kv in recs if kind == "counter"]
with open(sys.argv[3]) as f:
    for i, row in enumerate(csv.DictReader(f)):
        for n in names:
            put("%s.bin%d" % (n, i), ":".join(row["%s_%s" % (n, c)] for c in
                                              ("cum", "rate_per_s", "rate_lo", "phase_rate_per_s")))
diff = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
if diff or not names:
    print("differ in %d keys, first %s: library %s, kpmc fold %s" % (
        len(diff), diff[:1], got.get(diff[0]) if diff else None, want.get(diff[0]) if diff else None))
    sys.exit(1)
print("%d values equal (%d counters, %s bins, %d excluded)" % (
    sum(len(v) for v in want.values()), len(names),
    len([k for k in want if k.startswith(names[0] + ".bin")]), len(want.get("excluded", []))))
PY
) || bad="$bad $why;"
fi
if [ -n "$bad" ]; then
	echo "fold library: FAIL$bad"
	exit 1
fi
echo "fold library: PASS ($(echo "$have" | wc -l) exports, soname libkpmcfold.so.1; $why)"
