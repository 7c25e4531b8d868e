# arm64: attaching to a running program (kpmc -p) and detaching from it.
# "loop N" retires 2N user instructions (plus ~11,000 of start-up): loop 1e9
# is about 2 s of guest time. A loop outlives its windows and is killed
# once it showed it ran on: a busy guest second costs about 10 s of make
# test on each of five arm64 kernels.
load

# agg_pmc0 FILE TID: pmc0 of thread TID in a "kpmc -A" output (pid tid records pmc0).
agg_pmc0() {
	awk -v tid=$2 '$1 ~ /^[0-9]+$/ && $2 == tid { print $4 }' "$1"
}

# user_ticks_reach PID TICKS: wait (5 s of guest time at most) until PID's
# own user time (/proc/PID/stat utime, 100 ticks a second; not the shell's)
# is TICKS; false if it never is.
user_ticks_reach() {
	local i
	for i in $(seq 500); do
		[ "$(awk '{ print $14 }' /proc/$1/stat 2>/dev/null)" -ge "$2" ] 2>/dev/null && return 0
		sleep 0.01
	done
	return 1
}

# ran_on PID: the loop PID still gains user time (a tenth of a second of it),
# then it is killed (SIGKILL, status 137): it ran on after what the caller
# did to it.
ran_on() {
	local t0 ok=""
	t0=$(awk '{ print $14 }' /proc/$1/stat 2>/dev/null) || return 1
	user_ticks_reach $1 $((t0 + 10)) && ok=1
	kill -9 $1 2>/dev/null
	wait $1
	[ $? -eq 137 ] && [ -n "$ok" ]
}

# Attach a fifth of a second in: only what the loop retires from then on is
# counted (1e9 instructions in all).
r=""
"$BIN/loop" 500000000 >/dev/null &
lp=$!
# A fifth of a second of the loop's own user time, not of the shell's: first
# after boot on PREEMPT_RT the loop had only half of a "sleep" (1.745e9
# counted of 2e9 after a "sleep 0.5", in three boots of three).
user_ticks_reach $lp 20
kpmc -A -c pmc0 -p $lp >$OUT/attach.txt 2>&1 || r="kpmc -p failed: $(cat $OUT/attach.txt);"
wait $lp || r="$r the loop failed;"
c=$(agg_pmc0 $OUT/attach.txt $lp)
echo "attach: counted ${c:-none} of about 1.0e9"
# At most 0.5 s from the fifth of a second to the attach (kpmc's start-up
# under KASAN included), as before.
[ -n "$c" ] && [ "$c" -ge 300000000 ] && [ "$c" -le 850000000 ] ||
	r="$r counted '${c}', expected 3.0e8..8.5e8 (the 0.2 s before the attach not counted);"
verdict arm64_attach_counts_from_attach_on "$r"

# Detach after 0.6 s (SIGINT): the loop runs on, kpmc reports what it
# counted while attached.
r=""
"$BIN/loop" 1000000000 >/dev/null &
lp=$!
sleep 0.2
kpmc -A -c pmc0 -p $lp >$OUT/detach.txt 2>&1 &
kp=$!
sleep 0.6
kill -INT $kp
wait $kp || r="kpmc exited $? after SIGINT: $(cat $OUT/detach.txt);"
kill -0 $lp 2>/dev/null || r="$r the loop died with the detach;"
ran_on $lp || r="$r the loop did not run on after the detach;"
c=$(agg_pmc0 $OUT/detach.txt $lp)
echo "detach: counted ${c:-none} in about 0.6 s attached"
# kpmc's start-up comes off the window, as in the reattach test below: 2.5e8
# of 0.5 s on the PREEMPT_RT debug kernel.
[ -n "$c" ] && [ "$c" -ge 100000000 ] && [ "$c" -le 700000000 ] ||
	r="$r counted '${c}' while attached for ~0.6 s, expected 1e8..7e8;"
sleep 0.5
live=$(sed -n 's/^live_objects: \([0-9]*\).*/\1/p' /proc/kpmc/info)
[ "$live" = 0 ] || r="$r $(grep live_objects /proc/kpmc/info) after both ended;"
verdict arm64_detach_leaves_program_running "$r"
[ -n "$r" ] && cat $OUT/detach.txt

# Detach is reversible: attach, detach, attach again to the
# same thread; the second attach counts its own part of 0.6 s as the first
# did. (kpmc's own start-up comes off the window: a few ms on the stock
# kernels, ~0.2 s on the debug ones, whose KASAN slows its dynamic loading.)
r=""
"$BIN/loop" 1000000000 >/dev/null &
lp=$!
sleep 0.2
for k in 1 2; do
	kpmc -A -c pmc0 -p $lp >$OUT/reattach$k.txt 2>&1 &
	kp=$!
	sleep 0.6
	kill -INT $kp
	wait $kp || r="$r attach $k: kpmc exited $?: $(cat $OUT/reattach$k.txt);"
	c=$(agg_pmc0 $OUT/reattach$k.txt $lp)
	echo "reattach $k: counted ${c:-none}"
	[ -n "$c" ] && [ "$c" -ge 100000000 ] && [ "$c" -le 700000000 ] ||
		r="$r attach $k counted '${c}', expected 1e8..7e8;"
done
ran_on $lp || r="$r the loop did not run on after the second detach;"
verdict arm64_reattach_after_detach "$r"

# A thread armed to count at its exec (pid=N,exec) whose session's reader
# goes away before that exec: the session, its ring and the PMU claim go
# at the close, not at the thread's exit (found by the fuzzer); system-wide
# counting can start at once, and the thread can be attached again.
r=""
sleep 30 &
sp=$!
sh -c "exec 3</proc/kpmc/monitor; echo pmc1=0x8 >/proc/kpmc/config; echo pid=$sp,exec >/proc/kpmc/enable" ||
	r="arming pid=$sp failed;"
sleep 0.3
s=$(sed -n 's/^sessions: //p' /proc/kpmc/info)
m=$(sed -n 's/^threads_monitored: //p' /proc/kpmc/info)
echo "armed, reader gone: sessions $s, threads monitored $m"
[ "$s" = 0 ] || r="$r $s sessions left after the reader closed (armed thread);"
[ "$m" = 0 ] || r="$r $m threads still armed after their reader closed;"
kpmc -S -A -c pmc0 -- true >$OUT/armed_sys.txt 2>&1 || r="$r system-wide refused: $(tail -n 1 $OUT/armed_sys.txt);"
kpmc -A -c pmc0 -p $sp >$OUT/armed_again.txt 2>&1 &
kp=$!
sleep 0.3
kill -INT $kp
wait $kp || r="$r attaching it again failed: $(cat $OUT/armed_again.txt);"
kill $sp
wait $sp 2>/dev/null
sleep 0.3
live=$(sed -n 's/^live_objects: \([0-9]*\).*/\1/p' /proc/kpmc/info)
[ "$live" = 0 ] || r="$r $(grep live_objects /proc/kpmc/info) after all ended;"
verdict arm64_armed_released_at_close "$r"
rmmod kpmc

# Following a process tree: 3 forked children and 4 threads each appear with
# their exact user instruction totals (differential: SCALE 1 vs 2 differs by
# exactly 2 x each one's iterations), and -A adds them up per process.
load
r=""
for sc in 1 2; do
	kpmc -A -c pmc1=0x8 -- "$BIN/forktree" $sc >$OUT/tree$sc.txt 2>&1 || r="$r forktree $sc failed: $(tail -n 2 $OUT/tree$sc.txt);"
	# thread rows (pid tid records pmc1), sorted by count: main, threads 1-4, children 5-7
	awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { print $4 }' $OUT/tree$sc.txt | sort -n >$OUT/tree$sc.counts
done
n=$(wc -l <$OUT/tree1.counts)
[ "$n" -eq 8 ] || r="$r $n threads in the trace, expected 8 (parent, 4 threads, 3 children);"
# Differences in ascending order: 1..7 million iterations x 2, exactly. The
# parent (smallest count) only waits, and how often its waits retry depends
# on scheduling: a few hundred instructions at most.
diffs=$(paste $OUT/tree1.counts $OUT/tree2.counts | awk 'NR > 1 { printf "%d ", $2 - $1 }')
parent=$(paste $OUT/tree1.counts $OUT/tree2.counts | awk 'NR == 1 { d = $2 - $1; print d < 0 ? -d : d }')
echo "forktree: per-thread differences: $diffs(parent: $parent)"
want="2000000 4000000 6000000 8000000 10000000 12000000 14000000"
k=1
for w in $want; do
	d=$(echo "$diffs" | cut -d' ' -f$k)
	within_slack "$d" "$w" || r="$r thread $k differs by '$d', expected $w;"
	k=$((k + 1))
done
[ "${parent:-99999}" -le 2000 ] || r="$r the parent's count moved by $parent;"
procs=$(grep -c '^  total' $OUT/tree1.txt)
[ "$procs" -eq 4 ] || r="$r $procs per-process totals, expected 4;"
verdict arm64_follow_forks_and_threads_exact "$r"

# A child the program leaves behind (a daemon, a build's background job):
# at the program's end kpmc has every thread of its session send its last
# counts while it still reads (enable "stop"), so the child, asleep, sends
# them in a DETACH record; closing the session would have dropped them (the
# old module: no record of the child at all). Runs with N and 2N differ for
# the child by exactly 2N; it has no EXIT record (it lives on) and is still
# there when kpmc has returned (kpmc does not wait for it).
r=""
for sc in 1 2; do
	kpmc -c pmc1=0x8 -o $OUT/outlive$sc.txt -- "$BIN/outlive" $((sc * 1000000)) 4000 >$OUT/outlive$sc.out 2>&1 ||
		r="$r outlive $sc failed: $(tail -n 2 $OUT/outlive$sc.out | tr '\n' '|');"
	ch=$(sed -n 's/^outlive child=\([0-9]*\)$/\1/p' $OUT/outlive$sc.out)
	[ -n "$ch" ] && [ -d /proc/$ch ] || r="$r run $sc: the child ${ch:-?} was gone when kpmc returned;"
	# The child's "count kinds" (its records' pmc1 summed, their events).
	awk -v ch="${ch:-0}" '
		$1 == "nsample" { for (i = 1; i <= NF; i++) if ($i == "pmc1") col = i; next }
		col && $1 ~ /^[0-9]+$/ && $3 == ch { s += $col; k = k $4 "," }
		END { printf "%d %s\n", s, k }' $OUT/outlive$sc.txt >$OUT/outlive$sc.child
	for i in $(seq 50); do [ -d /proc/${ch:-0} ] || break; sleep 0.2; done
done
c1=$(cut -d' ' -f1 $OUT/outlive1.child) k1=$(cut -d' ' -f2 $OUT/outlive1.child)
c2=$(cut -d' ' -f1 $OUT/outlive2.child) k2=$(cut -d' ' -f2 $OUT/outlive2.child)
echo "outlive: the child left behind: ${c1:-?} then ${c2:-?} user instructions (difference $((${c2:-0} - ${c1:-0})), want 2000000), records ${k1:-none} / ${k2:-none}"
for k in "$k1" "$k2"; do
	case "$k" in *detach,) ;; *) r="$r the child's records '$k' do not end in its DETACH record;" ;; esac
	case "$k" in *exit*) r="$r the child has an EXIT record: it was waited for;" ;; esac
done
within_slack "$((${c2:-0} - ${c1:-0}))" 2000000 || r="$r the child's counts differ by $((${c2:-0} - ${c1:-0})), want 2000000;"
verdict arm64_children_left_behind_send_their_last_counts "$r"
rmmod kpmc
