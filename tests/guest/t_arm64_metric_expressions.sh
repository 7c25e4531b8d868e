# arm64 (-icount shift=0: INST_RETIRED and CPU_CYCLES exact): metric
# expressions (-m), metric groups (-g) and libkpmc's region metric. Each
# metric kpmc prints equals the same run's printed counts combined (awk's
# %.10g of the same double division: kpmc's format); names are matched
# through libpfm4 (instr = INST_RETIRED); bad expressions and a bad group
# file are refused (exit 2) naming the token.
load
r=""

# metric_check FILE NAME EXPECTED: NAME's value in the [Metrics] table's
# thread row equals EXPECTED (p1/p0, p0/p1, p1/p2, 1000*p1/p0, p2-p1) over
# the same run's pmc totals (the -A table's row of that thread: pN = pmcN).
metric_check() {
	got=$(awk -v name="$2" '/^\[Metrics\]/ { m = 1; next }
		m && $1 == "pid" { for (i = 1; i <= NF; i++) col[$i] = i; next }
		m && $2 ~ /^[0-9]+$/ { print $col[name]; exit }' "$1")
	want=$(awk -v expr="$3" '
		/^\[Metrics\]/ { exit }
		$1 == "pid" && $2 == "tid" { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && !done {
			p0 = $col["pmc0"]; p1 = $col["pmc1"]; p2 = $col["pmc2"]; done = 1 }
		END {
			if (expr == "p1/p0") v = p1 / p0
			else if (expr == "p0/p1") v = p0 / p1
			else if (expr == "p1/p2") v = p1 / p2
			else if (expr == "1000*p1/p0") v = 1000 * p1 / p0
			else if (expr == "p2-p1") v = p2 - p1
			if (v == int(v)) printf "%d\n", v; else printf "%.10g\n", v }' "$1")
	[ -n "$got" ] && [ "$got" = "$want" ] || r="$r $1 $2: '$got' != '$want';"
}
# pmcN's total in the thread row of a -A output (before [Metrics]).
pmc_total() {
	awk -v c="pmc$2" '/^\[Metrics\]/ { exit } $1 == "pid" { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { print $col[c]; exit }' "$1"
}

# -m alone: its events are counted, in order of appearance: INST_RETIRED
# (user) on pmc1, CPU_CYCLES on the cycle counter pmc0, INST_RETIRED:uk on
# pmc2 (the same event in other modes is another counter). Under -icount a
# cycle is an instruction: ipc is 1; the user share of all instructions is not.
/bin/kpmc -A -m 'ipc=INST_RETIRED/CPU_CYCLES' -m 'kipc = 1000 * INST_RETIRED / CPU_CYCLES' \
	-m 'user_share=INST_RETIRED / INST_RETIRED:uk' -m 'kernel=INST_RETIRED:uk - INST_RETIRED' \
	-- "$BIN/loop" 3000000 >$OUT/m1.txt 2>&1 || r="$r -m run failed;"
cat $OUT/m1.txt
metric_check $OUT/m1.txt ipc p1/p0
metric_check $OUT/m1.txt kipc 1000*p1/p0
metric_check $OUT/m1.txt user_share p1/p2
metric_check $OUT/m1.txt kernel p2-p1
# The loop's 6e6 instructions are there (exact up to libc's start-up), and some kernel ones.
ins=$(pmc_total $OUT/m1.txt 1)
[ -n "$ins" ] && [ "$ins" -ge 6000000 ] && [ "$ins" -le 6100000 ] || r="$r INST_RETIRED total $ins;"
all=$(pmc_total $OUT/m1.txt 2)
[ -n "$all" ] && [ "$all" -gt "$ins" ] || r="$r INST_RETIRED:uk total $all not above $ins;"

# -c by mnemonics, -m by libpfm4 names: the same counters.
/bin/kpmc -A -c instr,cycles -m 'ipc=INST_RETIRED/CPU_CYCLES' -- "$BIN/loop" 1000000 >$OUT/m2.txt 2>&1 ||
	r="$r -c instr,cycles -m failed: $(tail -n 3 $OUT/m2.txt);"
metric_check $OUT/m2.txt ipc p1/p0

# -g IPC: share/kpmc/groups/armv8_cortex_a57/IPC.txt.
/bin/kpmc -A -g IPC -- "$BIN/loop" 2000000 >$OUT/g1.txt 2>&1 || r="$r -g IPC failed: $(tail -n 3 $OUT/g1.txt);"
cat $OUT/g1.txt
metric_check $OUT/g1.txt ipc p1/p0
metric_check $OUT/g1.txt cpi p0/p1

# Refusals: exit 2 and the token named.
refused() {
	want=$1; shift
	/bin/kpmc "$@" >$OUT/ref.out 2>$OUT/ref.err
	rc=$?
	[ $rc -eq 2 ] || r="$r '$*' exited $rc;"
	grep -qF -- "$want" $OUT/ref.err || r="$r '$*' said '$(cat $OUT/ref.err)';"
}
refused "expected an operand after '/' at column 18 (end of expression)" -A -m 'ipc=INST_RETIRED/' -- "$BIN/loop" 10
refused "'(' at column 5 is never closed" -A -m 'ipc=(INST_RETIRED/CPU_CYCLES' -- "$BIN/loop" 10
refused "expected an operator but found 'CPU_CYCLES' at column 18" -A -m 'ipc=INST_RETIRED CPU_CYCLES' -- "$BIN/loop" 10
refused "unexpected character '#' at column 17" -A -m 'ipc=INST_RETIRED#CPU_CYCLES' -- "$BIN/loop" 10
refused "unknown function 'log' at column 5" -A -m 'ipc=log(INST_RETIRED)' -- "$BIN/loop" 10
refused "bad number '2x' at column 5" -A -m 'ipc=2x*INST_RETIRED' -- "$BIN/loop" 10
refused "want NAME=EXPRESSION (no '=')" -A -m 'INST_RETIRED/CPU_CYCLES' -- "$BIN/loop" 10
refused "event 'INST_RETIRED' is not counted by any -c set" -A -c cycles -m 'ipc=INST_RETIRED/CPU_CYCLES' -- "$BIN/loop" 10
refused "NO_SUCH_EVENT" -A -m 'x=NO_SUCH_EVENT/CPU_CYCLES' -- "$BIN/loop" 10
refused "no group NOPE for this PMU" -A -g NOPE -- "$BIN/loop" 10
printf 'event INST_RETIRED\nevent CPU_CYCLES\nmetric ipc = INST_RETIRED / CPU_CYCLE\n' >$OUT/bad.txt
refused "$OUT/bad.txt:3: 'CPU_CYCLE' in ipc's expression is neither a declared event" -A -g $OUT/bad.txt -- "$BIN/loop" 10
printf 'event INST_RETIRED\nmetrc ipc = INST_RETIRED\n' >$OUT/bad2.txt
refused "$OUT/bad2.txt:2: unknown keyword 'metrc'" -A -g $OUT/bad2.txt -- "$BIN/loop" 10

# libkpmc: the region metric equals its totals' ratio, bit for bit.
"$BIN/regionmetric" >$OUT/rm.txt 2>&1 || r="$r regionmetric failed: $(cat $OUT/rm.txt);"
cat $OUT/rm.txt
awk '/^regionmetric ipc=/ { split($2, a, "="); split($3, b, "="); ok = a[2] == b[2] && a[2] != "nan" }
	END { exit !ok }' $OUT/rm.txt || r="$r region metric != totals' ratio;"
awk '/^regionmetric cpk=/ { split($2, a, "="); split($3, b, "="); ok = a[2] == b[2] } END { exit !ok }' $OUT/rm.txt ||
	r="$r region metric with calls != its ratio;"
awk '/^regionmetric share=/ { split($2, a, "="); split($3, b, "="); ok = a[2] == b[2] && a[2] + 0 < 1 }
	END { exit !ok }' $OUT/rm.txt || r="$r region's user share != its totals' ratio, or not below 1;"
ins=$(sed -n 's/^regionmetric totals pmc0=[0-9]* pmc1=\([0-9]*\) pmc2=[0-9]*$/\1/p' $OUT/rm.txt)
[ -n "$ins" ] && [ "$ins" -ge 4000000 ] && [ "$ins" -le 4010000 ] || r="$r region's INST_RETIRED $ins;"
grep -qF "regionmetric bad1: '(' at column 8 is never closed" $OUT/rm.txt || r="$r bad region expression not named;"
grep -qF "regionmetric bad2: unknown name 'cycles': a region metric names pmc0 to pmc15, time and calls" $OUT/rm.txt ||
	r="$r unknown name not named;"
grep -qF "regionmetric bad3: no region 'nosuch' has ended" $OUT/rm.txt || r="$r unknown region not named;"
verdict arm64_metrics_expr "$r"
rmmod kpmc
