# arm64, 2 CPUs: CPU hotplug. cpu1 goes offline and online under a
# monitored thread ("cpuhop C N": C chunks of N iterations of the
# two-instruction loop, moving itself onto cpu1 before each chunk, onto cpu0
# while cpu1 is offline; its loop part retires truth = 2*C*N user
# instructions, the whole program about 11,000 more).
#
# Under -icount QEMU's instruction counter is shared by the vCPUs: a CPU's
# counter also advances while the other vCPU executes (here mostly the
# hotplug work and the cycling shell on the CPU the thread is not on), so
# on 2 CPUs a count is compared both with the truth and with perf's own
# count of another run under the same pattern (cpuhop -p), each within
# 0.1%. Without hotplug handling kpmc read 4.8e9 for 3.0e9 under a cycling
# cpu1, 320,012,345 for 1e9 with cpu1 onlined mid-run, and broke perf
# after its first run (a wrong count with running == enabled, then 0).
CPU1=/sys/devices/system/cpu/cpu1/online
HOP_C=200
HOP_N=2500000
HOP_TRUTH=$((2 * HOP_C * HOP_N))
HALF=0.01

lsmod | grep -q '^kpmc ' && rmmod kpmc

cpu1_up() {
	i=0
	while [ "$(cat $CPU1)" != 1 ] && [ $i -lt 50 ]; do
		echo 1 >$CPU1 2>/dev/null || sleep 0.1
		i=$((i + 1))
	done
}

# hp_cycler STOPFILE: take cpu1 offline and online again (HALF seconds
# each) until STOPFILE exists; prints the number of complete cycles.
hp_cycler() {
	n=0
	while [ ! -e "$1" ]; do
		if echo 0 >$CPU1 2>/dev/null; then
			sleep $HALF
			cpu1_up
			n=$((n + 1))
		fi
		sleep $HALF
	done
	echo $n
}

# kv FILE KEY: the number after "KEY=" in FILE (the first).
kv() {
	sed -n "s/.*[ ]$2=\([0-9]*\).*/\1/p" "$1" | head -n 1
}

# within_permille A B: |A - B| <= B / 1000 (A and B non-empty).
within_permille() {
	[ -n "$1" ] && [ -n "$2" ] && [ $((($1 - $2) * 1000)) -le "$2" ] && [ $((($2 - $1) * 1000)) -le "$2" ]
}

# cycled OUTFILE COMMAND...: run COMMAND (output to OUTFILE) while cpu1
# cycles; the cycle count goes to OUTFILE.cycles.
cycled() {
	f=$1
	shift
	rm -f $OUT/hp.stop
	hp_cycler $OUT/hp.stop >$f.cycles &
	cyc=$!
	"$@" >$f 2>&1
	rc=$?
	touch $OUT/hp.stop
	wait $cyc
	rm -f $OUT/hp.stop
	cpu1_up
	return $rc
}

# late_online OUTFILE DELAY COMMAND...: cpu1 offline at the start, online
# DELAY seconds into COMMAND.
late_online() {
	f=$1
	d=$2
	shift 2
	echo 0 >$CPU1
	(sleep $d; echo 1 >$CPU1) &
	lp=$!
	"$@" >$f 2>&1
	rc=$?
	wait $lp
	cpu1_up
	return $rc
}

# hop_check NAME KPMC-OUT REF-OUT MIN-ON-TARGET: kpmc's count of cpuhop in
# KPMC-OUT against the truth and against perf's count in REF-OUT.
hop_check() {
	cnt=$(single_total $2 4)
	truth=$(kv $2 truth)
	pc=$(kv $3 count)
	pe=$(kv $3 enabled)
	pr=$(kv $3 running)
	on=$(kv $2 on_target)
	fb=$(kv $2 fallbacks)
	cy=$(cat $2.cycles 2>/dev/null)
	echo "$1: kpmc $cnt, perf $pc (enabled $pe running $pr), truth $truth; on cpu1 $on chunks, cpu0 $fb, cycles ${cy:-none}"
	[ "$truth" = $HOP_TRUTH ] || r="$r cpuhop did not finish: $(tail -n 2 $2 | tr '\n' '|');"
	within_permille "$cnt" $HOP_TRUTH || r="$r kpmc counted '$cnt', truth $HOP_TRUTH (0.1%);"
	within_permille "$pc" $HOP_TRUTH || r="$r the perf reference counted '$pc', truth $HOP_TRUTH;"
	[ -n "$pr" ] && [ "$pr" = "$pe" ] || r="$r the perf reference ran $pr of $pe ns;"
	within_permille "$cnt" "$pc" || r="$r kpmc '$cnt' and perf '$pc' differ by more than 0.1%;"
	[ -n "$on" ] && [ "$on" -ge "$4" ] || r="$r only '$on' chunks on cpu1 (want >= $4);"
}

# The perf references, without the module: the same patterns, cpuhop -p.
cycled $OUT/hp_ref_cyc.txt "$BIN/cpuhop" -p $HOP_C $HOP_N
late_online $OUT/hp_ref_late.txt 0.3 "$BIN/cpuhop" -p $HOP_C $HOP_N

# f. perf untouched: perf's inherit counting event on "loop 6000000"
# (12,000,000 + about 11,000 user instructions; 0.1% on 2 CPUs) counts
# exactly and all the time with the module loaded, before any kpmc run,
# after one, and (pinned to cpu0 with kpmc's thread) during one: there
# exactly or with running < enabled, never a wrong count with
# running == enabled.
PN=6000000
perf_ok() { # FILE WHAT
	c=$(kv $1 count)
	e=$(kv $1 enabled)
	u=$(kv $1 running)
	echo "perfcount $2: count $c enabled $e running $u"
	[ -n "$c" ] && [ "$c" -ge $((2 * PN)) ] && [ "$c" -le $((2 * PN + 2 * PN / 1000)) ] ||
		r="$r $2: perf counted '$c', expected $((2 * PN))..$((2 * PN + 2 * PN / 1000));"
	[ -n "$u" ] && [ "$u" = "$e" ] && [ "$u" -gt 0 ] || r="$r $2: perf ran $u of $e ns;"
}
r=""
load
"$BIN/perfcount" "$BIN/loop" $PN >$OUT/pc0.txt 2>&1
perf_ok $OUT/pc0.txt "before kpmc"
kpmc -A -c pmc1=0x8 -- "$BIN/loop" $PN >$OUT/pck.txt 2>&1 || r="$r kpmc failed: $(tail -n 2 $OUT/pck.txt);"
echo "kpmc -A loop $PN: $(single_total $OUT/pck.txt 4)"
for cpu in 0 1; do
	"$BIN/perfcount" -C $cpu "$BIN/loop" $PN >$OUT/pc1.txt 2>&1
	perf_ok $OUT/pc1.txt "after kpmc, cpu$cpu"
done
kpmc -A -c pmc1=0x8 -- "$BIN/cpuhop" -c 0 100 3000000 >$OUT/pckd.txt 2>&1 &
kp=$!
sleep 0.1
"$BIN/perfcount" -C 0 "$BIN/loop" $PN >$OUT/pc2.txt 2>&1
wait $kp || r="$r kpmc (during) failed: $(tail -n 2 $OUT/pckd.txt);"
c=$(kv $OUT/pc2.txt count)
e=$(kv $OUT/pc2.txt enabled)
u=$(kv $OUT/pc2.txt running)
kd=$(single_total $OUT/pckd.txt 4)
echo "perfcount during kpmc: count $c enabled $e running $u; kpmc's thread $kd (truth 600,000,000)"
if [ -n "$u" ] && [ "$u" = "$e" ]; then
	[ -n "$c" ] && [ "$c" -ge $((2 * PN)) ] && [ "$c" -le $((2 * PN + 2 * PN / 1000)) ] ||
		r="$r during kpmc: perf counted '$c' with running == enabled;"
elif [ -z "$u" ] || [ -z "$e" ] || [ "$u" -gt "$e" ]; then
	r="$r during kpmc: no perf result: $(cat $OUT/pc2.txt);"
fi
within_permille "$kd" 600000000 || r="$r kpmc counted '$kd' for its thread during perf, truth 600,000,000;"
"$BIN/perfcount" "$BIN/loop" $PN >$OUT/pc3.txt 2>&1
perf_ok $OUT/pc3.txt "after both"
verdict smp_hotplug_perf_untouched "$r"

# a. cpu1 offline and online again every 2*HALF s under cpuhop, kpmc -A.
r=""
cycled $OUT/hp_cyc.txt kpmc -A -c pmc1=0x8 -- "$BIN/cpuhop" $HOP_C $HOP_N || r="kpmc failed: $(tail -n 2 $OUT/hp_cyc.txt);"
hop_check hotplug_cycling $OUT/hp_cyc.txt $OUT/hp_ref_cyc.txt $((HOP_C / 4))
cy=$(cat $OUT/hp_cyc.txt.cycles)
[ -n "$cy" ] && [ "$cy" -ge 20 ] || r="$r only '$cy' offline/online cycles during the run (want >= 20);"
cy=$(cat $OUT/hp_ref_cyc.txt.cycles)
[ -n "$cy" ] && [ "$cy" -ge 20 ] || r="$r only '$cy' cycles during the perf reference run;"
verdict smp_hotplug_cycling_count "$r"

# b. cpu1 offline at the start, online 0.3 s into the run.
r=""
late_online $OUT/hp_late.txt 0.3 kpmc -A -c pmc1=0x8 -- "$BIN/cpuhop" $HOP_C $HOP_N || r="kpmc failed: $(tail -n 2 $OUT/hp_late.txt);"
hop_check hotplug_late_online $OUT/hp_late.txt $OUT/hp_ref_late.txt $((HOP_C / 4))
fb=$(kv $OUT/hp_late.txt fallbacks)
[ -n "$fb" ] && [ "$fb" -ge 10 ] || r="$r only '$fb' chunks on cpu0 while cpu1 was offline;"
verdict smp_hotplug_late_online_count "$r"

# c. a. with the perf backend (raw perf event 0x08: INST_RETIRED).
r=""
load backend=perf
grep -q '^backend: perf' /proc/kpmc/info || r="backend=perf not chosen;"
cycled $OUT/hp_pcyc.txt kpmc -A -c pmc1=0x400000008 -- "$BIN/cpuhop" $HOP_C $HOP_N || r="$r kpmc failed: $(tail -n 2 $OUT/hp_pcyc.txt);"
hop_check hotplug_cycling_perf_backend $OUT/hp_pcyc.txt $OUT/hp_ref_cyc.txt $((HOP_C / 4))
cy=$(cat $OUT/hp_pcyc.txt.cycles)
[ -n "$cy" ] && [ "$cy" -ge 20 ] || r="$r only '$cy' cycles during the run;"
verdict smp_hotplug_cycling_perf_backend "$r"

# d. system-wide across one offline/online cycle of cpu1 (offline 0.2 s to
# 0.6 s into a 1 s run): everything counted once (the bounds of
# t_smp_system_wide.sh: the workload's truth .. +10%), cpu1 counts only
# while online (at least 0.3 s less than cpu0), the kernel log stays clean.
r=""
load
dmesg -c >/dev/null
kpmc -S -A -c pmc1=0x8 -- sh -c "(sleep 0.2; echo 0 >$CPU1; sleep 0.4; echo 1 >$CPU1) & $BIN/cpuhop $HOP_C $HOP_N; wait" >$OUT/hp_sys.txt 2>&1 ||
	r="kpmc -S failed: $(tail -n 3 $OUT/hp_sys.txt | tr '\n' '|');"
cpu1_up
all=$(awk '$1 == "all" { print $4 }' $OUT/hp_sys.txt)
c0=$(awk '$1 == "0" { print $4 }' $OUT/hp_sys.txt)
c1=$(awk '$1 == "1" { print $4 }' $OUT/hp_sys.txt)
m0=$(awk '$1 == "0" { print $3 }' $OUT/hp_sys.txt | cut -d. -f1)
m1=$(awk '$1 == "1" { print $3 }' $OUT/hp_sys.txt | cut -d. -f1)
echo "system-wide across a cycle: cpu0 $c0 in $m0 ms, cpu1 $c1 in $m1 ms, all $all; truth $HOP_TRUTH (+ about 11,000)"
[ -n "$all" ] && [ "$all" -ge $HOP_TRUTH ] && [ "$all" -le $((HOP_TRUTH + HOP_TRUTH / 10)) ] ||
	r="$r all CPUs counted '$all', expected $HOP_TRUTH..$((HOP_TRUTH + HOP_TRUTH / 10));"
[ -n "$c0" ] && [ -n "$c1" ] && [ "$c0" -ge 100000000 ] && [ "$c1" -ge 100000000 ] ||
	r="$r per CPU '$c0' and '$c1': the thread ran on both;"
[ -n "$m0" ] && [ -n "$m1" ] && [ "$m1" -le $((m0 - 300)) ] ||
	r="$r cpu1 counted '$m1' ms, cpu0 '$m0': cpu1 was offline for 400 ms;"
bad=$(dmesg | grep -E 'BUG|WARNING|Oops|Call trace' | head -n 3 | tr '\n' '|')
[ -z "$bad" ] || r="$r kernel log: $bad;"
verdict smp_hotplug_system_wide "$r"
[ -n "$r" ] && cat $OUT/hp_sys.txt

# e. event-based sampling on the cycle counter (exact overflow interrupt,
# 0.1% on 2 CPUs as above) every P across the cycles: the records sum to
# the count and there is one ebs record per full period, floor(sum / P)
# +/-1 (the last period's interrupt may come after the exit fold).
r=""
P=10000000
cycled $OUT/hp_ebs.txt kpmc -c pmc0,pmc1=0x8,ebs0=$P -- "$BIN/cpuhop" $HOP_C $HOP_N || r="kpmc failed: $(tail -n 2 $OUT/hp_ebs.txt);"
n=$(trace_count $OUT/hp_ebs.txt ebs)
s0=$(trace_sum $OUT/hp_ebs.txt 6)
s1=$(trace_sum $OUT/hp_ebs.txt 7)
exp=$((s0 / P))
bad=$(awk '$4 == "ebs" { print $6 }' $OUT/hp_ebs.txt | awk -v p=$P '$1 < p || $1 > p + p / 1000 { n++ } END { print n + 0 }')
echo "ebs across $(cat $OUT/hp_ebs.txt.cycles) cycles: $n records, pmc0 sums to $s0, pmc1 to $s1, truth $HOP_TRUTH; $bad records outside [P, P+0.1%]"
within_permille "$s0" $HOP_TRUTH || r="$r pmc0 records sum to '$s0', truth $HOP_TRUTH;"
within_permille "$s1" $HOP_TRUTH || r="$r pmc1 records sum to '$s1', truth $HOP_TRUTH;"
[ "$n" -ge $((HOP_TRUTH / P - 1)) ] && [ "$n" -ge $((exp - 1)) ] && [ "$n" -le $((exp + 1)) ] ||
	r="$r $n ebs records, expected floor($s0 / $P) = $exp +/-1 (truth: $((HOP_TRUTH / P)));"
[ "$bad" -eq 0 ] || r="$r $bad records' pmc0 outside [$P, $P + 0.1%]: $(awk '$4 == "ebs" { print $6 }' $OUT/hp_ebs.txt | awk -v p=$P '$1 < p || $1 > p + p / 1000' | head -n 3 | tr '\n' ' ');"
verdict smp_hotplug_ebs "$r"

cpu1_up
lsmod | grep -q '^kpmc ' && rmmod kpmc
