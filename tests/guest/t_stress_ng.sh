# Programs nobody here wrote: Debian's stress-ng, each stressor bounded by
# its operation count (deterministic work), run by an unprivileged user
# (uid 1000, perf_event_paranoid 2; stress-ng's exec stressor refuses root)
# under kpmc following every process and thread it makes, with perf
# counting the same run beside it (perfcount: one inherited per-task event,
# enabled at the exec). kpmc runs on its perf backend, as perf shares the
# PMU only with its own events (the direct backends claim the counters):
#   kpmc -o TRACE -- perfcount -e EV stress-ng --S 1 --S-ops N
# Per stressor:
# - the same user-mode instructions (arm64, raw INST_RETIRED under icount)
#   or user-mode page faults (x86_64, a software event: no PMU there) as
#   perf, up to a fixed difference: kpmc follows perfcount's child from its
#   fork, perf counts it from its exec, so the child's few instructions (or
#   faults) before the exec are kpmc's alone. That difference is measured in
#   the same boot with a program that does nothing and must be the same for
#   every stressor: a process or thread kpmc failed to follow, or counted
#   twice, or counted while another ran, shows as a difference. One thing
#   may add to it: a thread left behind when the command ends (the clone
#   stressor's last child can still be in unshare()) counts on after
#   perfcount's read until kpmc stops it, so then the difference may exceed
#   the fixed one by at most those threads' own counts;
# - every record accounted for: each thread's records are numbered 1, 2, ...
#   (nsample); the gaps are exactly the records the ring dropped (the lost
#   lines), and the module lost no thread (threads_lost). A thread's last
#   record is its EXIT, or its DETACH if it outlived the command (kpmc has
#   every thread send its last counts at the end while it still reads):
#   any other last record is counts lost;
# - nothing left: 0 live objects once kpmc has exited (states and
#   configurations are freed after an RCU grace period: up to 5 s allowed).
# The kernel log check (no warning, lockdep, KASAN or kmemleak report) is
# the host's, as for every guest run; the debug kernel runs this too.
SNG=/usr/bin/stress-ng
U="$BIN/runas 1000"
# SCALE divides the operations: the x86_64 guest is the debug kernel (KASAN
# makes a fork and its exit take a quarter of a second there).
if [ "$(uname -m)" = aarch64 ]; then
	KCFG="pmc1=0x400000008,ebs1=200000" PEV=4:8 WHAT="user-mode instructions" SCALE=1
else
	KCFG="pmc1=0x100000002,tbs=2" PEV=1:2 WHAT="user-mode page faults" SCALE=10
fi
# stressor:ops, each also bounded by --timeout (guest time; some stressors
# count their operations in ways that reach N only after minutes).
# clone at 17 operations leaves its last child behind in unshare() (a new
# network namespace) on arm64 (16, 17 and 18 did, 11 to 15 and 19 not).
# The ops of exec, context, yield, sem and mmap: each about a guest second
# on Debian's 6.1 arm64 (twice as many took 2 to 3.6 s there).
STRESSORS="fork:300 clone:17 vfork:300 exec:10 pthread:300 switch:20000 context:1000
	yield:800 futex:20000 sem:1000 mmap:8 sigsegv:2000 timer:20000"
load backend=perf
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
echo 2 >/proc/sys/kernel/perf_event_paranoid
# One address-space layout for every run: where the stack falls decides
# how many pages perfcount's child touches before its exec (the fixed
# difference, in page faults on x86_64).
aslr=$(cat /proc/sys/kernel/randomize_va_space)
echo 0 >/proc/sys/kernel/randomize_va_space
# The user's own directory for kpmc's traces and stress-ng's files.
SN=$OUT/stress
rm -rf $SN
mkdir -p $SN && chmod 777 $SN

# stress_run TAG CMD...: kpmc's trace of CMD under perfcount in $SN/TAG.txt,
# perfcount's line in $SN/TAG.out; prints "kpmc_total perf_count status
# perfcount's_pid" (kpmc's total leaves perfcount itself out).
stress_run() {
	tag=$1
	shift
	$U kpmc -k 16384 -o $SN/$tag.txt -c "$KCFG" -- "$BIN/perfcount" -e $PEV "$@" >$SN/$tag.out 2>&1
	self=$(sed -n 's/^perfcount .* self=\([0-9]*\)$/\1/p' $SN/$tag.out)
	pc=$(sed -n 's/^perfcount count=\([0-9]*\) .*/\1/p' $SN/$tag.out)
	st=$(sed -n 's/^perfcount .* status=\([0-9]*\) .*/\1/p' $SN/$tag.out)
	kt=$(awk -v self="${self:-0}" '
		$1 == "nsample" { for (i = 1; i <= NF; i++) if ($i == "pmc1") col = i; next }
		col && $1 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ && $2 != self { s += $col }
		END { printf "%d\n", s }' $SN/$tag.txt)
	echo "${kt:-x} ${pc:-x} ${st:-x} ${self:-0}"
}

# A thread that calls exec while not its process's leader becomes the
# leader: its records go on under the leader's tid, numbered on from its
# own (stress-ng's exec stressor execs from a pthread at random; the old
# leader's exit record comes first, as exec waits for that exit). Such a
# record (first under its tid, or after that tid's exit, not numbered 1) is
# the continuation of the open thread of the same process numbered one
# below it; anything else not numbered on is a gap.
# records_unaccounted TRACE SELF: "gaps lost unended threads leaders_by_exec
# left_behind their_count" of a trace (SELF: perfcount's pid, not counted).
records_unaccounted() {
	awk -v self="${2:-0}" '
		$1 == "nsample" { for (i = 1; i <= NF; i++) if ($i == "pmc1") col = i; next }
		/^# lost / { lost += $3; next }
		$1 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ {
			tid = $3
			if ($1 != 1 && (!(tid in last) || ended(lastev[tid]))) {
				from = ""
				for (t in last)
					if (t != tid && pid[t] == $2 && !ended(lastev[t]) && last[t] == $1 - 1)
						from = t
				if (from != "") {
					total[tid] = total[from]; delete last[from]; renamed++
				} else {
					gaps += $1 - 1; lives++; total[tid] = 0
				}
			} else if ($1 == 1) {
				if (tid in last && !ended(lastev[tid])) open++
				if (tid in last && lastev[tid] == "detach") { left++; leftc += total[tid] }
				lives++; total[tid] = 0
			} else if ($1 > last[tid] + 1) {
				gaps += $1 - last[tid] - 1
			}
			last[tid] = $1; lastev[tid] = $4; pid[tid] = $2
			if ($2 != self) total[tid] += $col
		}
		function ended(ev) { return ev == "exit" || ev == "detach" }
		END {
			for (t in last) {
				if (!ended(lastev[t])) open++
				if (lastev[t] == "detach") { left++; leftc += total[t] }
			}
			printf "%d %d %d %d %d %d %d\n", gaps, lost, open, lives, renamed, left, leftc
		}' "$1"
}

# open_threads TRACE: the last records of threads whose last is not an
# EXIT or DETACH record (their last counts are lost).
open_threads() {
	awk '$1 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ {
			if ($1 == 1 && ($3 in last) && last[$3] !~ / (exit|detach) /) print last[$3]
			last[$3] = $0
		}
		END { for (t in last) if (last[t] !~ / (exit|detach) /) print last[t] }' "$1" | head -n 4 | tr -s ' ' | tr '\n' '|'
}

r=""
tl0=$(sed -n 's/^threads_lost: //p' /proc/kpmc/info)
set -- $(stress_run base "$BIN/loop" 1000)
base=$(($1 - $2))
echo "stress-ng: a program that does nothing: kpmc $1, perf $2 $WHAT (kpmc's alone: $base, before perfcount's exec)"
[ "$1" != x ] && [ "$2" != x ] && [ "$3" = 0 ] || r="base run failed: $(tail -n 3 $SN/base.out | tr '\n' '|');"
for s in $STRESSORS; do
	name=${s%%:*} ops=$((${s#*:} / SCALE))
	[ "$ops" -ge 1 ] || ops=1
	t0=$(cut -d' ' -f1 /proc/uptime)
	set -- $(stress_run $name $SNG --$name 1 --$name-ops $ops --timeout 2 --temp-path $SN --no-rand-seed -q)
	kt=$1 pc=$2 st=$3
	set -- $(records_unaccounted $SN/$name.txt $4)
	gaps=$1 lost=$2 open=$3 lives=$4 renamed=$5 left=$6 leftc=$7
	for i in 1 2 3 4 5 6 7 8 9 10; do
		live=$(sed -n 's/^live_objects: \([0-9]*\).*/\1/p' /proc/kpmc/info)
		[ "$live" = 0 ] && break
		sleep 0.5
	done
	echo "stress-ng --$name $ops: kpmc $kt, perf $pc $WHAT (difference $((kt - pc)), want $base); $lives threads ($renamed made leader by an exec, $left left behind with $leftc), records: $gaps missing, $lost lost, $open threads without a last record; live objects $live; $(awk -v t0=$t0 '{ printf "%.1f", $1 - t0 }' /proc/uptime) s"
	if [ "$st" != 0 ] || [ "$kt" = x ] || [ "$pc" = x ]; then
		r="$r $name: run failed (status $st): $(grep -v '^perfcount' $SN/$name.out | tail -n 3 | tr '\n' '|');"
		echo "stress-ng --$name: $(tail -n 5 $SN/$name.out | tr '\n' '|')"
		continue
	fi
	d=$((kt - pc - base))
	[ "$d" = 0 ] || { [ "$left" -gt 0 ] && [ "$d" -gt 0 ] && [ "$d" -le "$leftc" ]; } ||
		r="$r $name: kpmc $kt, perf $pc, difference $((kt - pc)) instead of $base (plus at most $leftc of $left threads left behind);"
	[ "$gaps" = "$lost" ] || r="$r $name: $gaps records missing, $lost told lost;"
	[ "$open" = 0 ] || r="$r $name: $open threads' last counts lost: $(open_threads $SN/$name.txt);"
	[ "$lives" -ge 2 ] || r="$r $name: $lives threads followed;"
	[ "$live" = 0 ] || r="$r $name: $(grep live_objects /proc/kpmc/info) after kpmc exited;"
done
tl=$(sed -n 's/^threads_lost: //p' /proc/kpmc/info)
[ "$tl" = "$tl0" ] || r="$r threads_lost $tl0 -> $tl;"
echo "$paranoid" >/proc/sys/kernel/perf_event_paranoid
echo "$aslr" >/proc/sys/kernel/randomize_va_space
verdict stress_ng_as_perf_every_record_accounted "$r"
