# kpmc benchmarks, run inside one arm64 guest boot (busybox sh).
# Every figure is printed as one line the host driver parses:
#   KPMC-BENCH <bench> tool=<base|perf|kpmc> ctrs=<N> rep=<i> key=value ...
# Under -icount shift=0 a guest nanosecond is one instruction, so the figures
# are instruction counts of the paths measured, repeatable from boot to boot.
BIN=/tests/bin
OUT=/tmp/kpmc-bench
mkdir -p $OUT

scale=full
# kpmc.benchonly=SECTIONS: only those sections (a comma list of pingpong,
# cgswitch, alive, spawn, spin, selfread, mux, muxsweep, muxrot, muxcal, and cpus, which bench/run.sh runs in a
# boot of 8 CPUs of its own; bench/run.sh's KPMC_BENCH_ONLY), kpmc.benchreps=N:
# N repetitions, kpmc.benchperiods=P,...: those EBS periods (for iterating).
only=pingpong,cgswitch,alive,spawn,spin,selfread,mux,muxsweep,muxrot,muxcal periods="10000 100000 1000000 10000000" reps=""
cpus_periods="10000 100000"
for w in $(cat /proc/cmdline); do
	case $w in
	kpmc.bench=*) scale=${w#kpmc.bench=} ;;
	kpmc.benchonly=*) only=${w#kpmc.benchonly=} ;;
	kpmc.benchreps=*) reps=${w#kpmc.benchreps=} ;;
	kpmc.benchperiods=*) periods=$(echo "${w#kpmc.benchperiods=}" | tr , ' ') cpus_periods=$periods ;;
	esac
done
# want SECTION: is that section to run?
want() {
	case ",$only," in *",$1,"*) return 0 ;; esac
	return 1
}
if [ "$scale" = smoke ]; then
	ROUNDS=300 SPAWNS=30 SPIN=2000000 READS=1000 REPS=1 ALIVE="2 100"
else
	ROUNDS=20000 SPAWNS=1000 SPIN=150000000 READS=20000 REPS=5 ALIVE="2 100 1000 10000"
fi
[ -n "$reps" ] && REPS=$reps
echo "KPMC-BENCH-INFO scale=$scale rounds=$ROUNDS spawns=$SPAWNS spin=$SPIN reads=$READS reps=$REPS kernel=$(uname -r)${only:+ only=$only}"

# Address-space randomization off: with it, repetitions of one program
# (1,000 pthread_create + join) spread by up to 3,800 guest ns per creation,
# without it by 260 (bench/README.md, "Where a creation's instructions go").
echo 0 >/proc/sys/kernel/randomize_va_space

# 10,000 threads of one process (the "alive" rows): more than the default
# limit of a guest of 2 GiB (its memory / 8 kernel stacks).
echo 30000 >/proc/sys/kernel/threads-max

insmod /kpmc.ko || { echo "KPMC-BENCH-ERROR insmod failed"; exit 1; }

# tag TOOL CTRS REP: add the run's identity to a program's result line, then
# let the deferred work of the run just ended (RCU callbacks, kworkers, the
# session's free) run before the next. (Each program also spins 10 ms before
# it measures, for the work deferred while the CPU idled.)
tag() {
	sed -n "s/^KPMC-BENCH \([a-z_]*\) /KPMC-BENCH \1 tool=$1 ctrs=$2 rep=$3 /p"
	sleep 0.2
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

# Records of the one thread of a "kpmc -A" output (pid tid records pmc...).
agg_records() {
	awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { n = $3 } END { printf "%d", n }' $OUT/trace.txt
}

rep=1
while [ $rep -le $REPS ]; do
	# 1. Context switch: pipe ping-pong between two threads.
	want pingpong && $BIN/pingpong $ROUNDS 0 | tag base 0 $rep
	want pingpong && for n in 2 4 6; do
		$BIN/pingpong $ROUNDS $n | tag perf $n $rep
		under_kpmc $n -- $BIN/pingpong $ROUNDS 0
		tag kpmc $n $rep <$OUT/prog.txt
		awk -v n=$n -v r=$rep '$4 == "exit" { s += $5; t++ }
			END { printf "KPMC-BENCH pingpong_counts tool=kpmc ctrs=%d rep=%d threads=%d pmc1_total=%d\n", n, r, t, s }' $OUT/trace.txt
	done

	# 1c. Counting a cgroup (section cgswitch), one counter on every CPU:
	# perf's cgroup events (perfcount -G: an event per CPU opened with
	# PERF_FLAG_PID_CGROUP, as perf stat -G) and kpmc -G, with the ping-pong
	# inside the counted cgroup, and outside it (every switch stays out:
	# what counting a cgroup costs the rest of the machine).
	if want cgswitch; then
		cg=/sys/fs/cgroup
		grep -q " $cg cgroup2 " /proc/mounts || mount -t cgroup2 none $cg
		# perf's cgroup events need the perf_event controller's state in a
		# child of the root: the kernel gives it once the root's controls
		# were set (systemd does at boot; t_arm64_cgroup.sh says more).
		echo +pids >$cg/cgroup.subtree_control
		mkdir -p $cg/bench_in $cg/bench_out
		in="echo \$\$ >$cg/bench_in/cgroup.procs && exec $BIN/pingpong $ROUNDS 0"
		cgtag() { sed -n "s/^KPMC-BENCH pingpong /KPMC-BENCH cgswitch tool=$1 where=$2 rep=$rep /p"; sleep 0.2; }
		sh -c "$in" | cgtag none in
		$BIN/perfcount -G $cg/bench_in sh -c "$in" 2>$OUT/perf.err | cgtag perf in
		[ -s $OUT/perf.err ] && echo "KPMC-BENCH-ERROR perfcount -G inside: $(tail -n 1 $OUT/perf.err)"
		kpmc -G bench_in -A -c pmc1=0x8 -o $OUT/trace.txt -- sh -c "$in" >$OUT/prog.txt 2>$OUT/kpmc.err ||
			echo "KPMC-BENCH-ERROR kpmc -G inside: $(tail -n 2 $OUT/kpmc.err)"
		cgtag kpmc in <$OUT/prog.txt
		$BIN/pingpong $ROUNDS 0 | cgtag none out
		$BIN/perfcount -G $cg/bench_out $BIN/pingpong $ROUNDS 0 2>$OUT/perf.err | cgtag perf out
		[ -s $OUT/perf.err ] && echo "KPMC-BENCH-ERROR perfcount -G outside: $(tail -n 1 $OUT/perf.err)"
		kpmc -G bench_out -A -c pmc1=0x8 -o $OUT/trace.txt -- $BIN/pingpong $ROUNDS 0 >$OUT/prog.txt 2>$OUT/kpmc.err ||
			echo "KPMC-BENCH-ERROR kpmc -G outside: $(tail -n 2 $OUT/kpmc.err)"
		cgtag kpmc out <$OUT/prog.txt
		# The same while a second cgroup (another job's, empty here) is
		# counted too: what a switch pays for two counted cgroups. kpmc's
		# two share the counters (the same event); perf has an event each.
		mkdir -p $cg/bench_other
		# (The second cgroup's counting ends with its sleep: the two
		# ping-pongs take under a second of guest time each.)
		$BIN/perfcount -G $cg/bench_other sleep 4 >/dev/null 2>&1 &
		sleep 0.5
		$BIN/perfcount -G $cg/bench_in sh -c "$in" 2>$OUT/perf.err | cgtag perf2 in
		$BIN/perfcount -G $cg/bench_out $BIN/pingpong $ROUNDS 0 2>$OUT/perf.err | cgtag perf2 out
		wait
		kpmc -G bench_other -A -c pmc1=0x8 -- sleep 4 >/dev/null 2>&1 &
		sleep 0.5
		kpmc -G bench_in -A -c pmc1=0x8 -o $OUT/trace.txt -- sh -c "$in" >$OUT/prog.txt 2>$OUT/kpmc.err ||
			echo "KPMC-BENCH-ERROR kpmc -G inside, beside another: $(tail -n 2 $OUT/kpmc.err)"
		cgtag kpmc2 in <$OUT/prog.txt
		kpmc -G bench_out -A -c pmc1=0x8 -o $OUT/trace.txt -- $BIN/pingpong $ROUNDS 0 >$OUT/prog.txt 2>$OUT/kpmc.err ||
			echo "KPMC-BENCH-ERROR kpmc -G outside, beside another: $(tail -n 2 $OUT/kpmc.err)"
		cgtag kpmc2 out <$OUT/prog.txt
		wait
		rmdir $cg/bench_in $cg/bench_out $cg/bench_other 2>/dev/null
	fi

	# 1b. The same with more monitored threads alive (asleep): kpmc finds a
	# switching thread's state among all of them. Compared with no
	# monitoring at the same number of threads, and with perf following
	# every thread of the process (counters inherited by each).
	want alive && for a in $ALIVE; do
		$BIN/pingpong $ROUNDS 0 $((a - 2)) | sed "s/^KPMC-BENCH pingpong /KPMC-BENCH pingpong_alive /" |
			tag base 0 $rep
		$BIN/pingpong $ROUNDS 2 $((a - 2)) | sed "s/^KPMC-BENCH pingpong /KPMC-BENCH pingpong_alive /" |
			tag perf 2 $rep
		# A ring for every thread's last record: "followed" counts them.
		under_kpmc 2 -A -k 16384 -- $BIN/pingpong $ROUNDS 0 $((a - 2))
		sed "s/^KPMC-BENCH pingpong /KPMC-BENCH pingpong_alive /" $OUT/prog.txt | tag kpmc 2 $rep
		threads=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { t++ } END { printf "%d", t }' $OUT/trace.txt)
		echo "KPMC-BENCH pingpong_alive_threads tool=kpmc ctrs=2 rep=$rep alive=$a threads=$threads"
	done

	# 2. Fork+exit and thread create+join with monitoring inherited.
	want spawn && for kind in fork thread; do
		$BIN/spawn $kind $SPAWNS 0 | tag base 0 $rep
		$BIN/spawn $kind $SPAWNS 2 | tag perf 2 $rep
		under_kpmc 2 -- $BIN/spawn $kind $SPAWNS 0
		tag kpmc 2 $rep <$OUT/prog.txt
	done

	# 3. Sampling a CPU-bound loop: time-based every 1 ms of on-CPU time.
	# Each tool's sampling runs are compared with its own counting-only run.
	want spin || { rep=$((rep + 1)); continue; }
	$BIN/spin $SPIN none | tag base 0 $rep
	$BIN/spin $SPIN perf-count | sed "s/^KPMC-BENCH spin /KPMC-BENCH spin_count /" | tag perf 1 $rep
	under_kpmc 1 -- $BIN/spin $SPIN none
	sed "s/^KPMC-BENCH spin /KPMC-BENCH spin_count /" $OUT/prog.txt | tag kpmc 1 $rep
	$BIN/spin $SPIN perf-tbs 1 | tag perf 1 $rep
	# kpmc samples the whole program: its samples in the loop are those of
	# the run less those of a run without the loop (start-up and warm-up).
	# -A: the CLI only adds records up (as the perf consumer only counts
	# them), so the figure is the kernel's cost, not text formatting.
	under_kpmc 1 -A -T 0.001 -- $BIN/spin 0 none
	ticks0=$(agg_records)
	sleep 0.2
	under_kpmc 1 -A -T 0.001 -- $BIN/spin $SPIN none
	ticks=$(($(agg_records) - ticks0))
	sed "s/ samples=0 / samples=$ticks /" $OUT/prog.txt | tag kpmc 1 $rep
	# Event-based sampling on the cycle counter (exact interrupts under
	# icount) at 4 periods down to kpmc's shortest; the shortest also gives
	# the record rate the CLI keeps up with, and whether records were lost.
	for p in $periods; do
		$BIN/spin $SPIN perf-ebs $p | sed "s/^KPMC-BENCH spin /KPMC-BENCH spin_ebs /" |
			tag perf 1 $rep
		kpmc -A -c pmc0,ebs0=$p -o $OUT/trace.txt -- $BIN/spin 0 none >/dev/null 2>&1
		s0=$(agg_records)
		sleep 0.2
		kpmc -A -c pmc0,ebs0=$p -o $OUT/trace.txt -- $BIN/spin $SPIN none >$OUT/prog.txt 2>$OUT/kpmc.err ||
			echo "KPMC-BENCH-ERROR kpmc ebs0=$p: $(tail -n 2 $OUT/kpmc.err)"
		lost=$(sed -n 's/^kpmc: \([0-9]*\) records lost.*/\1/p' $OUT/kpmc.err)
		sed "s/^KPMC-BENCH spin /KPMC-BENCH spin_ebs /; s/ samples=0 / samples=$(($(agg_records) - s0)) /; s/ lost=0/ lost=${lost:-0}/; s/ arg=0 / arg=$p /" \
			$OUT/prog.txt | tag kpmc 1 $rep
	done

	# 4. Self-read: perf's read() and mmap paths, libkpmc's read() and fast paths.
	# perf's user-space read on arm64 needs perf_user_access (5.17 on; off by default).
	want selfread || { rep=$((rep + 1)); continue; }
	pua=""
	if [ -w /proc/sys/kernel/perf_user_access ]; then
		pua=$(cat /proc/sys/kernel/perf_user_access)
		echo 1 >/proc/sys/kernel/perf_user_access
	fi
	$BIN/selfread $READS | tag perf 1 $rep
	[ -n "$pua" ] && echo "$pua" >/proc/sys/kernel/perf_user_access
	$BIN/selfread $READS kpmc | tag kpmc 1 $rep
	rep=$((rep + 1))
done

# 5. Multiplexing accuracy: more events than counters, at equal coverage.
# phases (bench/progs/phases.c) alternates user-mode and kernel-mode work;
# the events are instructions retired in user mode and in kernel mode. perf:
# 4 x the general counters as events (half of each mode) on the program
# itself, scaled by enabled/running, rotating at its mux interval; kpmc: 4
# sets of both events rotating at the same interval on the thread's on-CPU
# time. Both cover each event 25% of the time. Each tool's estimates are
# judged against its own count of the same program without multiplexing
# (user-mode work is the same in every run; kernel-mode work differs a
# little with the tool's own path). One pass: under -icount a run repeats.
# Programs (user ms : kernel ms : rounds, about 0.8 s each): a steady fine
# mix; phases shorter than, equal to and longer than a rotation; phases
# whose period is kpmc's rotation cycle (4 sets x the interval) and perf's
# (perf moves one event a turn: each is on for "counters" turns of 4 x
# counters).
# mux_rows NAME WORDS <"kpmc -A" output: per thread set (not the process
# totals), one line per event (mode u: pmc1, k: pmc2) with the estimate,
# its 90% half-width (-1: not known) and estimator.
mux_rows() {
	awk -v b="$1" -v w="$2" '
		$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && NF == 7 { set = $3; u = $6; k = $7; next }
		$1 == "+-90%" && set != "" { hu = $6 == "n/a" ? -1 : $6; hk = $7 == "n/a" ? -1 : $7; next }
		$1 == "est" && set != "" {
			printf "KPMC-BENCH %s %s set=%d mode=u est=%s half=%s how=%s\n", b, w, set, u, hu, $6
			printf "KPMC-BENCH %s %s set=%d mode=k est=%s half=%s how=%s\n", b, w, set, k, hk, $7
			set = "" }'
}
# mux_program NAME USER_MS KERNEL_MS ROUNDS: one program of phases under
# perf (truth, multiplexed), kpmc (truth, the fixed rotation, the randomized
# one); mi, nc, npc and one as the mux section sets them.
mux_program() {
	local name=$1 rounds=$4 iters calls r
	iters=$(awk -v m=$2 'BEGIN { printf "%d", m * 500000 }')
	calls=$(awk -v m=$3 -v c=${npc:-1000} 'BEGIN { printf "%d", m * 1000000 / c }')
	echo "KPMC-BENCH mux_prog prog=$name user_ms=$2 kernel_ms=$3 rounds=$rounds iters=$iters calls=$calls interval_ms=$mi counters=$nc"
	$BIN/phases $name $iters $calls $rounds perf 2 | sed 's/ mux_perf / mux_perf_truth /'
	$BIN/phases $name $iters $calls $rounds perf $((4 * nc))
	# kpmc -A rows: pid tid records pmc1 pmc2 (one set); pid tid expid
	# samples coverage pmc1 pmc2 (sets, scaled).
	kpmc -A -c "$one" -o $OUT/mux.txt -- $BIN/phases $name $iters $calls $rounds >/dev/null 2>$OUT/kpmc.err ||
		echo "KPMC-BENCH-ERROR kpmc mux truth $name: $(tail -n 2 $OUT/kpmc.err)"
	awk -v n=$name '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && NF == 5 {
		printf "KPMC-BENCH mux_kpmc_truth prog=%s event=0 mode=u count=%s\n", n, $4
		printf "KPMC-BENCH mux_kpmc_truth prog=%s event=1 mode=k count=%s\n", n, $5; exit }' $OUT/mux.txt
	kpmc -A -c "$one,mux=$mi" -c "$one,mux=$mi" -c "$one,mux=$mi" -c "$one,mux=$mi" -o $OUT/mux.txt -- \
		$BIN/phases $name $iters $calls $rounds >/dev/null 2>$OUT/kpmc.err ||
		echo "KPMC-BENCH-ERROR kpmc mux $name: $(tail -n 2 $OUT/kpmc.err)"
	awk -v n=$name '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && NF == 7 {
		sub("%", "", $5)
		printf "KPMC-BENCH mux_kpmc prog=%s event=%d mode=u est=%s coverage=%s\n", n, 2 * $3, $6, $5
		printf "KPMC-BENCH mux_kpmc prog=%s event=%d mode=k est=%s coverage=%s\n", n, 2 * $3 + 1, $7, $5 }' $OUT/mux.txt
	# The same with the randomized rotation (slices of mi +/- mi/2 ms,
	# the sets' order drawn every cycle): each estimate with its 90%
	# half-width and its estimator (the "+-90%" and "est" rows).
	r="$one,mux=$mi,muxrnd=$((mi / 2)),seed=1"
	kpmc -A -c "$r" -c "$r" -c "$r" -c "$r" -o $OUT/mux.txt -- \
		$BIN/phases $name $iters $calls $rounds >/dev/null 2>$OUT/kpmc.err ||
		echo "KPMC-BENCH-ERROR kpmc muxrnd $name: $(tail -n 2 $OUT/kpmc.err)"
	mux_rows mux_kpmcrnd "prog=$name" <$OUT/mux.txt
	# With faster_too: the randomized rotation at half the slice (mi/2 +/-
	# mi/4 ms), what kpmc's cost of a turn allows: still a quarter of
	# perf's cost of rotating every mi ms (section muxrot).
	[ -n "${faster_too:-}" ] || return 0
	r="$one,mux=$((mi / 2)),muxrnd=$((mi / 4)),seed=1"
	kpmc -A -c "$r" -c "$r" -c "$r" -c "$r" -o $OUT/mux.txt -- \
		$BIN/phases $name $iters $calls $rounds >/dev/null 2>$OUT/kpmc.err ||
		echo "KPMC-BENCH-ERROR kpmc muxrnd2 $name: $(tail -n 2 $OUT/kpmc.err)"
	mux_rows mux_kpmcrnd2 "prog=$name" <$OUT/mux.txt
}
if want mux || want muxsweep; then
	mi=$(cat /sys/bus/event_source/devices/armv8*/perf_event_mux_interval_ms 2>/dev/null | head -n 1)
	mi=${mi:-4}
	nc=$(sed -n 's/^general_counters: \([0-9]*\).*/\1/p' /proc/kpmc/info)
	$BIN/phases calibrate >$OUT/cal.txt
	cat $OUT/cal.txt
	npc=$(sed -n 's/.*ns_per_call=\([0-9]*\).*/\1/p' $OUT/cal.txt)
	one="pmc1=0x8,usr1=1,os1=0,pmc2=0x8,usr2=0,os2=1"
fi
if want mux; then
	aperf=$((2 * nc * mi))
	progs="steady:0.05:0.05:8000 short:1:1:400 equal:$mi:$mi:$((800 / (2 * mi))) long:$((4 * mi)):$((4 * mi)):$((800 / (8 * mi))) alias_kpmc:$((2 * mi)):$((2 * mi)):$((800 / (4 * mi))) alias_perf:$aperf:$aperf:$((800 / (2 * aperf) + 1))"
	[ "$scale" = smoke ] && progs="short:1:1:16"
	for p in $progs; do
		set -- $(echo "$p" | tr : ' ')
		mux_program $1 $2 $3 $4
	done
fi
# 5d. The same over a sweep of phase lengths (section muxsweep): a program
# whose phases last L ms each, L from a quarter ms to 64 ms, about 0.8 s in
# all. On any one program a rotation whose window holds whole periods of it
# is exact by luck, and one in step with it is wrong by up to 100%: a
# schedule is judged over the range (the mean of its errors, its worst).
if want muxsweep; then
	sweep="0.25 0.5 1 1.5 2 3 4 5 6 8 10 12 16 20 24 32 48 64"
	[ "$scale" = smoke ] && sweep="1"
	for l in $sweep; do
		rounds=$(awk -v l=$l 'BEGIN { r = int(800 / (2 * l) + 0.5); printf "%d", r < 7 ? 7 : r }')
		[ "$scale" = smoke ] && rounds=16
		faster_too=1 mux_program sweep_$l $l $l $rounds
	done
fi
# 5c. The cost of a rotation, on the spin loop (one thread, no switch):
# kpmc with 1 set and with 4 sets of one counter rotating every ms; perf
# with as many events as counters and with 4 times as many, rotated every
# ms (perf_event_mux_interval_ms=1). Rotations: kpmc's records (a turn
# each, the "samples" of -A's set rows), perf's elapsed ms.
if want muxrot; then
	nc=$(sed -n 's/^general_counters: \([0-9]*\).*/\1/p' /proc/kpmc/info)
	mif=$(ls -d /sys/bus/event_source/devices/armv8*/perf_event_mux_interval_ms 2>/dev/null | head -n 1)
	mi=$(cat $mif 2>/dev/null)
	[ -n "$mif" ] && echo 1 >$mif
	for n in $nc $((4 * nc)); do
		$BIN/spin $SPIN perf-events $n | sed "s/^KPMC-BENCH spin /KPMC-BENCH mux_rot tool=perf events=$n /"
	done
	[ -n "$mif" ] && echo ${mi:-4} >$mif
	for sets in 1 4; do
		c="-c pmc1=0x8"
		[ $sets = 4 ] && c="-c pmc1=0x8,mux=1 -c pmc1=0x8,mux=1 -c pmc1=0x8,mux=1 -c pmc1=0x8,mux=1"
		kpmc -A $c -o $OUT/rot.txt -- $BIN/spin $SPIN none >$OUT/prog.txt 2>$OUT/kpmc.err ||
			echo "KPMC-BENCH-ERROR kpmc rotation $sets sets: $(tail -n 2 $OUT/kpmc.err)"
		# One set: pid tid samples pmc1; several: pid tid expid samples coverage pmc1.
		turns=$(awk -v s=$sets '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { n += s > 1 ? $4 : $3 } END { printf "%d", n }' $OUT/rot.txt)
		sed "s/^KPMC-BENCH spin /KPMC-BENCH mux_rot tool=kpmc sets=$sets turns=$turns /" $OUT/prog.txt
	done
fi
# 5b. Whether the 90% intervals hold the truth (section muxcal): programs of
# phases sized in time (bench/progs/phases.c "time"), from 50 us to 48 ms a
# phase, under 4 sets of both events with the randomized rotation, several
# seeds and two slice lengths. The truth is in the same run: every set
# counts both events, so the sets' counts added up are the whole run's. Each
# of the 8 estimates a run prints is judged against it.
if want muxcal; then
	one="pmc1=0x8,usr1=1,os1=0,pmc2=0x8,usr2=0,os2=1"
	seeds="1 2 3 4" progs="steady:50000:8000 short:1000000:400 equal:4000000:100 twice:8000000:50 long:16000000:25 slow:48000000:9"
	[ "$scale" = smoke ] && seeds=1 progs="short:1000000:16"
	for p in $progs; do
		set -- $(echo "$p" | tr : ' ')
		name=$1 ns=$2 rounds=$3
		for rot in 4:2 2:1; do
			for seed in $seeds; do
				r="$one,mux=${rot%:*},muxrnd=${rot#*:},seed=$seed"
				kpmc -A -c "$r" -c "$r" -c "$r" -c "$r" -w $OUT/cal.raw -o $OUT/cal.txt -- \
					$BIN/phases $name time $ns $ns $rounds >/dev/null 2>$OUT/kpmc.err ||
					echo "KPMC-BENCH-ERROR kpmc muxcal $name: $(tail -n 2 $OUT/kpmc.err)"
				truth=$(kpmc -R $OUT/cal.raw --csv | awk -F, 'NR > 1 && $1 ~ /^[0-9]+$/ { u += $11; k += $12 }
					END { printf "truth_u=%d truth_k=%d", u, k }')
				mux_rows muxcal "prog=$name rot=$rot seed=$seed $truth" <$OUT/cal.txt
			done
		done
	done
fi
# 6. One session fed by several CPUs sampling at once (a boot of its own
# with 8 CPUs: bench/run.sh). T threads, one per CPU, share a fixed amount
# of work; under -icount the elapsed time is the work of all CPUs, so what a
# tool adds per sample is its cost summed over the CPUs, waits for a shared
# lock included. perf: one sampling event and ring per thread; kpmc: the
# CLI's one session (-A) following every thread. Then the same kpmc run with
# the ring's lock timed (module parameter ring_lock_stats): its hold and the
# producers' wait per record.
# all_records: records of every thread of a "kpmc -A" output.
all_records() {
	awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { n += $3 } END { printf "%d", n }' $OUT/trace.txt
}
if want cpus; then
	ncpu=$(grep -c '^processor' /proc/cpuinfo)
	# perf lowers its sampling rate when its interrupts seem to take long;
	# under -icount the clock they are timed by runs on every vCPU's
	# instructions, so on 8 CPUs they seem 8 times longer and perf fell to
	# a few hundred samples a run: its sampling is taken as it would run
	# on hardware, unthrottled.
	pct=$(cat /proc/sys/kernel/perf_cpu_time_max_percent) rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
	echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent
	echo 1000000 >/proc/sys/kernel/perf_event_max_sample_rate
	total=$([ "$scale" = smoke ] && echo 2000000 || echo 48000000)
	for rep in $(seq 1 $REPS); do
		for t in 1 2 4 8; do
			[ $t -le "$ncpu" ] || continue
			n=$((total / t))
			$BIN/spinners $t $n none | tag base 0 $rep
			$BIN/spinners $t $n perf-count | sed 's/ mode=perf-count / mode=count /' | tag perf 1 $rep
			kpmc -A -c pmc0 -o $OUT/trace.txt -- $BIN/spinners $t $n none >$OUT/prog.txt 2>$OUT/kpmc.err ||
				echo "KPMC-BENCH-ERROR kpmc cpus count $t: $(tail -n 2 $OUT/kpmc.err)"
			sed 's/ mode=none / mode=count /' $OUT/prog.txt | tag kpmc 1 $rep
			for p in $cpus_periods; do
				$BIN/spinners $t $n perf-ebs $p | sed 's/ mode=perf-ebs / mode=ebs /' | tag perf 1 $rep
				kpmc -A -c pmc0,ebs0=$p -o $OUT/trace.txt -- $BIN/spinners $t 0 none >/dev/null 2>&1
				s0=$(all_records)
				sleep 0.2
				kpmc -A -c pmc0,ebs0=$p -o $OUT/trace.txt -- $BIN/spinners $t $n none >$OUT/prog.txt 2>$OUT/kpmc.err ||
					echo "KPMC-BENCH-ERROR kpmc cpus ebs0=$p $t: $(tail -n 2 $OUT/kpmc.err)"
				lost=$(sed -n 's/^kpmc: \([0-9]*\) records lost.*/\1/p' $OUT/kpmc.err)
				sed "s/ mode=none / mode=ebs /; s/ arg=0 / arg=$p /; s/ samples=0 / samples=$(($(all_records) - s0)) /; s/ lost=0/ lost=${lost:-0}/" \
					$OUT/prog.txt | tag kpmc 1 $rep
				[ -w /sys/module/kpmc/parameters/ring_lock_stats ] || continue
				echo 1 >/sys/module/kpmc/parameters/ring_lock_stats
				kpmc -A -c pmc0,ebs0=$p -o $OUT/trace.txt -- $BIN/spinners $t $n none >/dev/null 2>&1
				sed -n "s/^ring_lock: holds \([0-9]*\) hold_ns \([0-9]*\) hold_max_ns \([0-9]*\) wait_ns \([0-9]*\)/KPMC-BENCH cpus_lock tool=kpmc ctrs=1 rep=$rep threads=$t arg=$p holds=\1 hold_ns=\2 hold_max_ns=\3 wait_ns=\4/p" /proc/kpmc/info
				echo 0 >/sys/module/kpmc/parameters/ring_lock_stats
				sleep 0.2
			done
		done
	done
	echo "$rate" >/proc/sys/kernel/perf_event_max_sample_rate
	echo "$pct" >/proc/sys/kernel/perf_cpu_time_max_percent
fi
rmmod kpmc
echo "KPMC-BENCH-END"
