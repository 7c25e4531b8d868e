# arm64 patched kernel, 2 CPUs: the PMC-driven placement policy (kpmc_amp).
# CPU 1 is "big" with room for two threads. Two threads spin in user mode
# (about 1,000,000 user instructions per ms of CPU under -icount shift=0),
# two make syscalls back to back (a few user instructions per syscall, the
# rest in the kernel, which the kernel configuration does not count). Each
# starts on the CPU it should not get. With the policy, after a 600 ms
# warm-up, the spinners run on CPU 1 in >= 90% of their samples and the
# trail shows their metric ranked above the others'; without it, no such
# placement (spinners on CPU 1 and syscall threads off it). Last, kmemleak:
# the policy's cpumasks (66 allocations at insmod) are all freed at rmmod.
AMP=/proc/kpmc_amp/control
ampmix_share() { # FILE KIND -> "on_cpu1 samples" summed over the KIND threads
	awk -v k="$2" '$1 == "ampmix:" && $2 == k {
		split($4, a, "="); split($5, b, "="); on += a[2]; n += b[2] }
		END { printf "%d %d\n", on, n }' "$1"
}

r=""
load
# kmemleak: forget what the kernel reported before, so that whatever it
# reports at the end was allocated here.
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
[ -w /sys/kernel/debug/kmemleak ] && echo clear >/sys/kernel/debug/kmemleak
amp_loaded_s=$(cut -d. -f1 /proc/uptime)
insmod /kpmc_amp.ko || r="insmod kpmc_amp failed;"
echo "big=1" >$AMP && echo "slots=2" >$AMP && echo "period_ms=50" >$AMP && echo "enable=1" >$AMP ||
	r="$r control writes refused;"
AMP_ADD=1 "$BIN/ampmix" 2 2 2000 600 >$OUT/amp_on.txt 2>&1 || r="$r ampmix failed;"
cat $OUT/amp_on.txt
cp /proc/kpmc_amp/trail $OUT/amp_trail.txt
set -- $(ampmix_share $OUT/amp_on.txt high); hon=$1 hn=$2
set -- $(ampmix_share $OUT/amp_on.txt low); lon=$1 ln=$2
echo "policy on: spinners on big CPU $hon/$hn samples, syscall threads $lon/$ln"
[ "$hn" -gt 0 ] && [ $((hon * 10)) -ge $((hn * 9)) ] || r="$r spinners on big only $hon/$hn;"
[ "$ln" -gt 0 ] && [ $((lon * 10)) -le "$ln" ] || r="$r syscall threads on big $lon/$ln;"
# The trail: each spinner ranked 1 or 2 of 4 and sent to big, with its metric.
for tid in $(awk '$2 == "high" { sub("tid=", "", $3); print $3 }' $OUT/amp_on.txt); do
	grep -Eq "tid=$tid instr_per_ms=[0-9]+ rank=[12]/4 -> big" $OUT/amp_trail.txt ||
		r="$r no trail line sending $tid to big: $(grep "tid=$tid" $OUT/amp_trail.txt | tail -n 2 | tr '\n' '|');"
done
# Why: in every ranking of all four threads (as they exit, the ranking
# shrinks and a syscall thread may inherit a free big slot), the metrics
# sent to big are far above those sent to little.
grep ' rank=[0-9]/4 ' $OUT/amp_trail.txt | tail -n 4
lowest_high=$(awk '/ rank=[0-9]\/4 -> big/ { v = $4; sub(".*=", "", v); print v }' $OUT/amp_trail.txt | sort -n | head -n 1)
highest_low=$(awk '/ rank=[0-9]\/4 -> little/ { v = $4; sub(".*=", "", v); print v }' $OUT/amp_trail.txt | sort -n | tail -n 1)
echo "trail: lowest metric sent to big $lowest_high, highest sent to little $highest_low"
[ -n "$lowest_high" ] && [ -n "$highest_low" ] && [ "$lowest_high" -gt $((highest_low * 2)) ] ||
	r="$r metrics do not separate the groups: big >= $lowest_high, little <= $highest_low;"
echo "enable=0" >$AMP
rmmod kpmc_amp || r="$r rmmod kpmc_amp failed;"
verdict patched_smp_policy_places_by_metric "$r"

# Policy off (module not loaded): same workload, no placement by metric.
r=""
"$BIN/ampmix" 2 2 2000 600 >$OUT/amp_off.txt 2>&1 || r="ampmix failed;"
cat $OUT/amp_off.txt
set -- $(ampmix_share $OUT/amp_off.txt high); hon=$1 hn=$2
set -- $(ampmix_share $OUT/amp_off.txt low); lon=$1 ln=$2
echo "policy off: spinners on CPU 1 $hon/$hn samples, syscall threads $lon/$ln"
# No placement by metric: not spinners on CPU 1 and syscall threads off it.
# Where the scheduler alone puts all four is its business (6.1: where they
# started, 2+2; 6.12 PREEMPT_RT: all four mostly on CPU 1, the same with
# no kpmc module loaded at all).
[ "$hn" -gt 0 ] && [ "$ln" -gt 0 ] &&
	! { [ $((hon * 10)) -ge $((hn * 9)) ] && [ $((lon * 10)) -le "$ln" ]; } ||
	r="$r spinners on CPU 1 $hon/$hn, syscall threads $lon/$ln without the policy;"
verdict patched_smp_no_policy_no_placement "$r"
rmmod kpmc

# kpmc_amp's masks, freed at rmmod. kmemleak reports only objects at least
# 5 s old; once the module is gone their backtraces no longer name it
# (addresses only), so the test counts every unreferenced object since the
# clear above: a leak of the masks is 64 + 2 of them, the kernel alone none.
r=""
if [ -w /sys/kernel/debug/kmemleak ]; then
	while [ $(($(cut -d. -f1 /proc/uptime) - amp_loaded_s)) -lt 7 ]; do sleep 1; done
	echo scan >/sys/kernel/debug/kmemleak
	sleep 1
	echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak >$OUT/amp_leaks.txt
	n=$(grep -c 'unreferenced object' $OUT/amp_leaks.txt)
	echo "kmemleak after kpmc_amp's rmmod: $n unreferenced objects"
	[ "$n" -eq 0 ] || r="$n unreferenced objects: $(head -n 12 $OUT/amp_leaks.txt | tr '\n' '|');"
else
	r="no /sys/kernel/debug/kmemleak on the debug kernel;"
fi
verdict patched_smp_policy_no_kmemleak "$r"
