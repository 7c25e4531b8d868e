#!/usr/bin/env bash
# The fold trace of tests/progs/twophase.c's region "work" taken from the
# function's entry and exit (KPMC_FOLD_FUNCTIONS=work, handed out by
# tests/guest/t_arm64_folding_functions.sh; scripts/run-guest-tests.sh calls this
# for each foldfunc_NAME.txt):
#   tests/host/check_foldfunc.sh TRACE PREFIX
# Folds it with `kpmc fold` (PREFIX.*) and prints one verdict line each,
# "PASS NAME: why" or "FAIL NAME: why":
#   foldfunc_user_breakpoint   a breakpoint of the user-instruction rate at
#                              0.40 +- 0.02 of region time
#   foldfunc_outliers          exactly the 5 calls made slow on purpose
#                              (50, 151, 252, 353, 454) excluded
# Exit status 0 when both passed, 1 otherwise, 2 on bad usage.
set -uo pipefail
trace=${1:-}
prefix=${2:-}
if [ -z "$trace" ] || [ -z "$prefix" ]; then
	echo "usage: check_foldfunc.sh TRACE PREFIX" >&2
	exit 2
fi
top=$(cd "$(dirname "$0")/../.." && pwd)
kpmc=${KPMC:-$top/build/host/kpmc}
"$kpmc" fold -o "$prefix" "$trace" >"$prefix.out" 2>"$prefix.err"
rc=$?
python3 - "$prefix" "$rc" <<'PY'
import sys

prefix, rc = sys.argv[1], sys.argv[2]
slow = [50, 151, 252, 353, 454]
if rc != "0":
    why = "kpmc fold: exit %s: %s" % (rc, " | ".join(open(prefix + ".err").read().splitlines()[-2:]))
    print("FAIL foldfunc_user_breakpoint: " + why)
    print("FAIL foldfunc_outliers: " + why)
    sys.exit(1)
recs = []
for line in open(prefix + ".out"):
    f = line.split()
    if f:
        recs.append((f[0], dict(t.partition("=")[::2] for t in f[1:])))
bps = [float(kv["x"]) for k, kv in recs if k == "breakpoint" and kv.get("counter") == "INST_RETIRED:u"]
near = min(bps, key=lambda x: abs(x - 0.40), default=None)
ok1 = near is not None and abs(near - 0.40) <= 0.02
print("%s foldfunc_user_breakpoint: INST_RETIRED:u breakpoints %s, nearest 0.40: %s" % (
    "PASS" if ok1 else "FAIL", bps, near))
ex = sorted(int(kv["call"]) for k, kv in recs if k == "excluded")
head = [kv for k, kv in recs if k == "fold"]
ok2 = ex == slow and len(head) == 1 and head[0].get("instances") == "505"
print("%s foldfunc_outliers: %s instances, excluded calls %s, want %s" % (
    "PASS" if ok2 else "FAIL", head[0].get("instances") if head else "?", ex, slow))
sys.exit(0 if ok1 and ok2 else 1)
PY
