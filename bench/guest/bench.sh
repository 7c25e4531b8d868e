# kpmc benchmarks, run inside one arm64 guest boot (busybox sh).
# Every figure is printed as one line the host driver parses:
#   KPMC-BENCH <bench> tool=<base|perf|kpmc> ctrs=<N> rep=<i> key=value ...
# Under -icount shift=0 a guest nanosecond is one instruction, so the figures
# are instruction counts of the paths measured, repeatable from boot to boot.
BIN=/tests/bin
OUT=/tmp/kpmc-bench
mkdir -p $OUT

scale=full
for w in $(cat /proc/cmdline); do
	case $w in kpmc.bench=*) scale=${w#kpmc.bench=} ;; esac
done
if [ "$scale" = smoke ]; then
	ROUNDS=300 SPAWNS=30 SPIN=2000000 READS=1000 REPS=1
else
	ROUNDS=20000 SPAWNS=1000 SPIN=50000000 READS=20000 REPS=3
fi
echo "KPMC-BENCH-INFO scale=$scale rounds=$ROUNDS spawns=$SPAWNS spin=$SPIN reads=$READS reps=$REPS kernel=$(uname -r)"

insmod /kpmc.ko || { echo "KPMC-BENCH-ERROR insmod failed"; exit 1; }

# tag BENCH TOOL CTRS REP: add the run's identity to a program's result line.
tag() {
	sed -n "s/^KPMC-BENCH \([a-z_]*\) /KPMC-BENCH \1 tool=$1 ctrs=$2 rep=$3 /p"
}

# kpmc configuration counting INST_RETIRED on event counters 1..N, user mode,
# the same work as N perf counters of raw event 0x08 with exclude_kernel.
kpmc_cfg() {
	c="" i=1
	while [ $i -le $1 ]; do
		c="$c${c:+,}pmc$i=0x8"
		i=$((i + 1))
	done
	echo "$c"
}

# under_kpmc CTRS EXTRA-CLI-OPTIONS -- PROG ARGS: run PROG under the kpmc CLI,
# print its result line and, as a check that kpmc counted, its totals.
under_kpmc() {
	n=$1
	shift
	kpmc -c "$(kpmc_cfg "$n")" -o $OUT/trace.txt "$@" >$OUT/prog.txt 2>$OUT/kpmc.err ||
		echo "KPMC-BENCH-ERROR kpmc $*: $(tail -n 2 $OUT/kpmc.err)"
}

rep=1
while [ $rep -le $REPS ]; do
	# 1. Context switch: pipe ping-pong between two threads.
	$BIN/pingpong $ROUNDS 0 | tag base 0 $rep
	for n in 2 4 6; do
		$BIN/pingpong $ROUNDS $n | tag perf $n $rep
		under_kpmc $n -- $BIN/pingpong $ROUNDS 0
		tag kpmc $n $rep <$OUT/prog.txt
		awk -v n=$n -v r=$rep '$4 == "exit" { s += $5; t++ }
			END { printf "KPMC-BENCH pingpong_counts tool=kpmc ctrs=%d rep=%d threads=%d pmc1_total=%d\n", n, r, t, s }' $OUT/trace.txt
	done

	# 2. Fork+exit and thread create+join with monitoring inherited.
	for kind in fork thread; do
		$BIN/spawn $kind $SPAWNS 0 | tag base 0 $rep
		$BIN/spawn $kind $SPAWNS 2 | tag perf 2 $rep
		under_kpmc 2 -- $BIN/spawn $kind $SPAWNS 0
		tag kpmc 2 $rep <$OUT/prog.txt
	done

	# 3. Sampling a CPU-bound loop: time-based every 1 ms of on-CPU time.
	$BIN/spin $SPIN none | tag base 0 $rep
	$BIN/spin $SPIN perf-tbs 1 | tag perf 1 $rep
	under_kpmc 1 -T 0.001 -- $BIN/spin $SPIN none
	ticks=$(awk '$4 == "tick" { n++ } END { printf "%d", n }' $OUT/trace.txt)
	sed "s/ samples=0 / samples=$ticks /" $OUT/prog.txt | tag kpmc 1 $rep
	# Event-based sampling: perf only until kpmc's EBS lands.
	for p in 100000 1000000 10000000; do
		$BIN/spin $SPIN perf-ebs $p | sed "s/^KPMC-BENCH spin /KPMC-BENCH spin_ebs /" |
			tag perf 1 $rep
	done

	# 4. Self-read: perf's read() and mmap paths (libkpmc's fast path is to come).
	$BIN/selfread $READS | tag perf 1 $rep
	rep=$((rep + 1))
done
rmmod kpmc
echo "KPMC-BENCH-END"
