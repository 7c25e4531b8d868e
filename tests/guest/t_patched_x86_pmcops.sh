# x86_64, kernel built with patches/ (CONFIG_PMC_OPS): kpmc is fed by the
# scheduler's pmc_ops instead of tracepoints. No PMU under TCG: counters
# come from the perf backend's software events.
load
r=""
grep -q '^hooks: pmc_ops' /proc/kpmc/info || r="hooks: $(grep hooks: /proc/kpmc/info);"
verdict patched_hooks_pmc_ops "$r"

# Switch notifications are proven by t_x86_nopmu.sh's yield test, which this
# tier runs on the pmc_ops hooks too; fork, exec, exit and free here:
r=""
# 400 short-lived threads are all followed, and all state is freed.
kpmc -A -c "pmc0=0x100000003,os0=1" -- "$BIN/spawnmany" 400 1000 >$OUT/pspawn.txt 2>&1 || r="$r spawnmany failed;"
rows=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/' $OUT/pspawn.txt | wc -l)
[ "$rows" -eq 401 ] || r="$r $rows threads in the totals, expected 401;"
sleep 0.5
grep -q '^live_objects: 0 ' /proc/kpmc/info || r="$r $(grep live_objects /proc/kpmc/info);"
verdict patched_pmc_ops_follow_and_count "$r"

# The in-kernel metric API: what a scheduler class would see for a monitored
# thread (no hardware counters here: on-CPU time only), and nothing for an
# unmonitored one.
r=""
kpmc -A -c "pmc0=0x100000001,os0=1" -- "$BIN/loop" 4000000000 >$OUT/pq.txt 2>&1 &
kp=$!
# x86 guests run without icount: under a loaded host the CLI may take more
# than 0.5 s to start loop.
i=0
while [ -z "$(pidof loop)" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.2
lp=$(pidof loop)
insmod /kpmc_query.ko pid=$lp || r="insmod kpmc_query pid='$lp' failed;"
sched=$(cut -d' ' -f1 /proc/$lp/schedstat)
line=$(dmesg | grep "kpmc_query: pid $lp:" | tail -n 1)
rmmod kpmc_query
kill $lp
wait $kp
set -- $(echo "$line" | sed -n 's/.*err \(-*[0-9]*\) valid \(0x[0-9a-f]*\) .* run_ns \([0-9]*\)$/\1 \2 \3/p')
echo "in-kernel API: err=$1 valid=$2 run_ns=$3 (the kernel's own runtime a moment later: $sched)"
# kpmc's figure stops at the thread's last fold (switch or 50 ms timer), and
# the kernel's was read after the module's load (real time on x86: the
# host's load stretches it): at most the kernel's, at least half of it.
[ "$1" = 0 ] && [ "$2" = 0x8 ] && [ -n "$3" ] && [ -n "$sched" ] && [ "$3" -gt 0 ] &&
	[ "$3" -le "$sched" ] && [ $(($3 * 2)) -ge "$sched" ] ||
	r="$r monitored thread: '$line' vs runtime $sched (want err 0, valid 0x8, run_ns in [runtime/2, runtime]);"
insmod /kpmc_query.ko pid=1 && rmmod kpmc_query
dmesg | grep -q "kpmc_query: pid 1: err -61 valid 0x0" || r="$r unmonitored pid 1: $(dmesg | grep 'kpmc_query: pid 1:' | tail -n1);"
verdict patched_in_kernel_metric_api "$r"

# Unload unregisters: other loads behave; hooks= picks the source (the debug
# kernel's lockdep brings tracepoints along, so both may exist).
r=""
rmmod kpmc || r="rmmod failed;"
if insmod "$KO" hooks=tracepoint 2>/dev/null; then
	grep -q '^hooks: tracepoints' /proc/kpmc/info || r="$r hooks=tracepoint: $(grep hooks: /proc/kpmc/info);"
	kpmc -A -c "pmc0=0x100000003,os0=1" -- "$BIN/yield" 100 >$OUT/ptp.txt 2>&1 || r="$r counting on tracepoints failed;"
	rmmod kpmc
else
	dmesg | grep -q "kpmc: no hook source: hooks=tracepoint (this kernel: tracepoints no, pmc_ops yes)" ||
		r="$r no reason for hooks=tracepoint;"
fi
insmod "$KO" hooks=bogus 2>/dev/null && r="$r hooks=bogus loaded;"
dmesg | grep -q "kpmc: no hook source: hooks=bogus" || r="$r no reason for hooks=bogus;"
insmod "$KO" || r="$r reload failed;"
grep -q '^hooks: pmc_ops' /proc/kpmc/info || r="$r hooks after reload: $(grep hooks: /proc/kpmc/info);"
rmmod kpmc
verdict patched_reload_and_hook_choice "$r"

# The debug kernel's leak detector: after all the loads, runs and unloads
# above, no unreferenced object allocated by kpmc.
kmemleak_verdict patched_kmemleak_no_kpmc_leaks
