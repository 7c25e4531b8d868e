# Shared helpers of the guest tests (busybox sh). Each test reports exactly
# one line: "KPMC-TEST: PASS name" or "KPMC-TEST: FAIL name: reason".

KO=/kpmc.ko
BIN=/tests/bin
OUT=/tmp/kpmc-test
mkdir -p "$OUT"

# debug_kernel: true on the patched tiers' kernels (kpmc.tier=patched: the
# scheduler patch with lockdep, KASAN and kmemleak), where a process costs
# about 50 times what it does on Debian's kernels; read once, not a grep a
# question.
case " $(cat /proc/cmdline) " in
*" kpmc.tier=patched "*) kpmc_debug_kernel=1 ;;
*) kpmc_debug_kernel="" ;;
esac
debug_kernel() { [ -n "$kpmc_debug_kernel" ]; }

# A program's user-mode instruction count is exact up to one thing, seen as
# a run counting 2 more now and then (on both counters): most likely an
# interrupt between a load-exclusive and its store-exclusive (the atomics in
# libc's start-up, locks and exit) failing the store so the loop retries --
# on hardware as in QEMU. The loop workloads themselves have no atomics.
# Comparisons across runs allow this much, and only upwards where a count is
# compared with a known exact total.
LLSC_SLACK=16

# within_slack A B: |A - B| <= LLSC_SLACK
within_slack() {
	[ -n "$1" ] && [ -n "$2" ] && [ $(($1 - $2)) -le $LLSC_SLACK ] && [ $(($2 - $1)) -le $LLSC_SLACK ]
}

# Each verdict is followed by the guest seconds since the previous one and
# how many of them the CPUs were busy (KPMC-TTIME NAME SECONDS BUSY): under
# TCG a busy guest second costs about ten of wall time, an idle one one, so
# scripts/run-guest-tests.sh names the busiest tests. One awk a verdict
# (a process costs tens of ms on the debug kernels): it prints the line's
# two figures and the new "uptime idle" mark (idle: all CPUs, /proc/stat).
verdict_ncpu=$(grep -c ^processor /proc/cpuinfo)
verdict_mark=""
verdict_time() {
	set -- "${1%% *}" $(awk -v mark="$verdict_mark" -v n="$verdict_ncpu" '
		FILENAME == "/proc/uptime" { u = $1 }
		FILENAME == "/proc/stat" && $1 == "cpu" { i = ($5 + $6) / 100 }
		END {
			split(mark, m, " ")
			if (mark == "") { m[1] = u; m[2] = i }
			e = u - m[1]; b = e - (i - m[2]) / n
			printf "%.1f %.1f %s %.2f", e, b < 0 ? 0 : b, u, i
		}' /proc/uptime /proc/stat)
	echo "KPMC-TTIME $1 $2 $3"
	verdict_mark="$4 $5"
}
verdict_time start >/dev/null
pass() { echo "KPMC-TEST: PASS $1"; verdict_time "$1"; }
fail() { echo "KPMC-TEST: FAIL $1: $2"; verdict_time "$1"; }

# check NAME CONDITION-OUTPUT: pass if the reason is empty.
verdict() {
	if [ -z "$2" ]; then pass "$1"; else fail "$1" "$2"; fi
}

# artifact FILE NAME: hand FILE to the host, line by line on the console
# (scripts/run-guest-tests.sh puts it in WORKDIR/artifacts/NAME).
artifact() {
	sed "s/^/KPMC-ARTIFACT $2: /" "$1"
}

load() {
	lsmod | grep -q '^kpmc ' && rmmod kpmc
	insmod "$KO" "$@"
}

# live_objects_drained: waits (3 s at most) for every thread state,
# configuration and session to be freed (RCU and work items after the last
# program); else prints /proc/kpmc/info's live_objects line and fails.
live_objects_drained() {
	ld_i=0
	while ! grep -q '^live_objects: 0 ' /proc/kpmc/info && [ $ld_i -lt 30 ]; do
		sleep 0.1
		ld_i=$((ld_i + 1))
	done
	grep -q '^live_objects: 0 ' /proc/kpmc/info || { grep live_objects /proc/kpmc/info; return 1; }
}

# Write STRING to FILE with one write(); prints the shell's error, returns its status.
try_write() {
	printf '%s' "$2" 2>/dev/null >"$1"
}

# Per-thread aggregates of a "kpmc -A" output file: "tid value" for column COL
# of the thread rows (pid tid samples pmc...), sorted by tid.
thread_column() {
	awk -v col="$2" '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { print $2, $col }' "$1" | sort -n
}

# Sum of column COL over the record rows (nsample pid tid event pmc...) of a trace.
trace_sum() {
	awk -v col="$2" '$1 ~ /^[0-9]+$/ && $4 ~ /^[a-z]/ { s += $col } END { printf "%d\n", s }' "$1"
}

# Number of record rows of kind EVENT in a trace.
trace_count() {
	awk -v ev="$2" '$1 ~ /^[0-9]+$/ && $4 == ev { n++ } END { printf "%d\n", n }' "$1"
}

# The total of column COL for a single-thread program run with -A.
single_total() {
	thread_column "$1" "$2" | awk 'NR == 1 { print $2 }'
}

# kmemleak_verdict NAME: on a kernel with kmemleak, scan and fail NAME if any
# unreferenced object's backtrace mentions kpmc.
kmemleak_verdict() {
	r=""
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	if [ -w /sys/kernel/debug/kmemleak ]; then
		echo scan >/sys/kernel/debug/kmemleak
		sleep 1
		echo scan >/sys/kernel/debug/kmemleak
		cat /sys/kernel/debug/kmemleak >$OUT/leaks.txt
		n=$(grep -c 'unreferenced object' $OUT/leaks.txt)
		k=$(grep -c 'kpmc' $OUT/leaks.txt)
		echo "kmemleak: $n unreferenced objects, $k backtrace lines in kpmc"
		[ "$k" -eq 0 ] || r="kmemleak reports kpmc allocations: $(grep -B8 kpmc $OUT/leaks.txt | head -n 20 | tr '\n' '|');"
	else
		r="no /sys/kernel/debug/kmemleak on the debug kernel;"
	fi
	verdict "$1" "$r"
}

# paranoid_matrix CFG CFG_OS PERFEV: uid 1000 counting its own program in
# user mode, in kernel mode too, and CPU-wide, with perf (perfcount -e
# PERFEV, -k, -a) and with kpmc (-A -c CFG, -A -c CFG_OS, -S -c CFG), at each
# perf_event_paranoid level (y = allowed, n = refused); prints a line per
# level, leaves the level at 2 and sets mx_r to what differs from perf or
# from perf's rule (3: nothing, 2: user, 1: kernel too, 0 and -1: CPU-wide too).
paranoid_matrix() {
	mx_r=""
	for mx_lvl in 3 2 1 0 -1; do
		echo "$mx_lvl" >/proc/sys/kernel/perf_event_paranoid
		mx_p=""
		for mx_f in "" -k -a; do
			"$BIN/runas" 1000 "$BIN/perfcount" -e "$3" $mx_f "$BIN/loop" 1000 >$OUT/mx.txt 2>&1 && mx_p="${mx_p}y" || mx_p="${mx_p}n"
		done
		mx_k=""
		for mx_c in "-A -c $1" "-A -c $2" "-S -c $1"; do
			"$BIN/runas" 1000 kpmc $mx_c -- "$BIN/loop" 1000 >$OUT/mx.txt 2>&1 && mx_k="${mx_k}y" || mx_k="${mx_k}n"
		done
		echo "paranoid $mx_lvl: perf user, kernel, CPU-wide $mx_p; kpmc $mx_k"
		[ "$mx_p" = "$mx_k" ] || mx_r="$mx_r paranoid $mx_lvl: perf $mx_p, kpmc $mx_k;"
		case $mx_lvl in 3) mx_w=nnn ;; 2) mx_w=ynn ;; 1) mx_w=yyn ;; *) mx_w=yyy ;; esac
		[ "$mx_k" = "$mx_w" ] || mx_r="$mx_r kpmc at $mx_lvl: $mx_k, expected $mx_w;"
	done
	echo 2 >/proc/sys/kernel/perf_event_paranoid
}

# loop_total N: the exact user-mode instruction count of "loop N" on this
# kernel (libc's start-up and exit path differ between kernels by a few
# dozen instructions), the smaller of two counting runs (see LLSC_SLACK).
loop_total() {
	lsmod | grep -q '^kpmc ' || insmod "$KO"
	a=$(kpmc -A -c pmc1=0x8 -- "$BIN/loop" "$1" 2>/dev/null | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { print $4; exit }')
	b=$(kpmc -A -c pmc1=0x8 -- "$BIN/loop" "$1" 2>/dev/null | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { print $4; exit }')
	[ -n "$a" ] && [ -n "$b" ] && { [ "$a" -le "$b" ] && echo "$a" || echo "$b"; }
}
