# arm64 kernel built with patches/ (CONFIG_PMC_OPS, lockdep, KASAN, kmemleak):
# the scheduler's pmc_ops feed kpmc, and the in-kernel API gives scheduling
# code exact user-mode instruction counts (emulated PMUv3, -icount shift=0).
QCFG="pmc0,pmc1=0x8"
QP=/sys/module/kpmc_query/parameters
load
r=""
grep -q '^hooks: pmc_ops' /proc/kpmc/info || r="hooks: $(grep hooks: /proc/kpmc/info);"
verdict patched_arm64_hooks_pmc_ops "$r"

# query_sleeping PID [monitor=1]: load kpmc_query for PID, let its 1 ms
# hard-IRQ timer ask the API a few times, print "err instructions queries".
query_sleeping() {
	insmod /kpmc_query.ko pid="$1" $2 || { echo "insmod failed"; return; }
	sleep 0.05
	echo "$(cat $QP/err_instructions) $(cat $QP/instructions) $(cat $QP/queries) $(cat $QP/monitor_err)"
	rmmod kpmc_query
}

# A thread a user session monitors: asked from timer (tick) context while
# the thread sleeps after its loop, the API's instruction count is the
# thread's exact count so far: N and 2N differ by exactly 2N, and the CLI's
# final total exceeds it by the same few instructions (waking, exiting) in
# both runs.
r=""
N=3000000
for n in $N $((2 * N)); do
	# The thread sleeps long after its loop: loading and unloading
	# kpmc_query takes hundreds of ms on a PREEMPT_RT debug kernel, and
	# every query must find it alive.
	kpmc -A -c "$QCFG" -- "$BIN/loopsleep" 100 $n 2000 >$OUT/api.$n.txt 2>&1 &
	kp=$!
	sleep 0.4
	set -- $(query_sleeping "$(pidof loopsleep)")
	wait $kp
	cli=$(single_total $OUT/api.$n.txt 5)
	echo "session thread N=$n: API err=$1 instructions=$2 after $3 queries; CLI total $cli"
	[ "$1" = 0 ] && [ "${3:-0}" -ge 10 ] && [ -n "$cli" ] || r="$r N=$n: err '$1', $3 queries, CLI '$cli';"
	eval "api_$n=${2:-0} tail_$n=$((${cli:-0} - ${2:-0}))"
done
eval "a1=\$api_$N a2=\$api_$((2 * N)) t1=\$tail_$N t2=\$tail_$((2 * N))"
[ $((a2 - a1)) -eq $((2 * N)) ] || r="$r API counts differ by $((a2 - a1)), expected $((2 * N));"
[ "$t1" -gt 0 ] && [ "$t1" -lt 5000 ] && within_slack "$t1" "$t2" ||
	r="$r CLI total minus API count: $t1 and $t2 (want equal, in 1..4999);"
verdict patched_arm64_api_exact_for_session_thread "$r"

# Monitoring asked for by the kernel (pmc_ops_monitor, no session, the
# kernel configuration: instructions and cycles, user mode): exact too.
r=""
for n in $N $((2 * N)); do
	"$BIN/loopsleep" 300 $n 700 &
	lp=$!
	sleep 0.1
	insmod /kpmc_query.ko pid=$lp monitor=1 || r="$r insmod monitor=1 failed;"
	sleep 0.6
	set -- $(cat $QP/err_instructions) $(cat $QP/instructions) $(cat $QP/err_cycles) $(cat $QP/monitor_err)
	rmmod kpmc_query
	wait $lp
	echo "kernel-enabled thread N=$n: err=$1 instructions=$2 cycles err=$3 monitor_err=$4"
	[ "$1" = 0 ] && [ "$3" = 0 ] && [ "$4" = 0 ] || r="$r N=$n: errors '$1' '$3' '$4';"
	eval "kapi_$n=${2:-0}"
done
eval "k1=\$kapi_$N k2=\$kapi_$((2 * N))"
[ $((k2 - k1)) -eq $((2 * N)) ] || r="$r kernel-enabled counts differ by $((k2 - k1)), expected $((2 * N));"
[ "$k1" -gt $((2 * N)) ] && [ "$k1" -lt $((2 * N + 5000)) ] || r="$r count $k1 not 2N plus a little;"
grep -q '^started: 2$' /proc/kpmc/kernel_config || r="$r kernel_config: $(tr '\n' ' ' </proc/kpmc/kernel_config);"
grep -q '^config: pmc0=0x11,usr0=1,os0=0,pmc1=0x8,usr1=1,os1=0$' /proc/kpmc/kernel_config || r="$r default config: $(head -n1 /proc/kpmc/kernel_config);"
verdict patched_arm64_api_exact_for_kernel_enabled_thread "$r"

# A monitoring module's estimate through the API (PMC_METRIC_ID_MODULE0 + N):
# with the metrics module active, what scheduling code gets for a sleeping
# thread is exactly the IPC and instructions per ms of the thread's last
# sample record, the values the CLI prints in that record's columns.
MODULE0=6
r=""
echo "activate 2" >/proc/kpmc/mm_manager || r="activate 2 failed;"
# Asleep long enough for two loads of kpmc_query (slow on PREEMPT_RT).
kpmc -c pmc0,pmc1=0x8 -T 0.02 -- "$BIN/loopsleep" 100 30000000 3000 >$OUT/apimod.txt 2>&1 &
kp=$!
sleep 0.5
lp=$(pidof loopsleep)
for v in 0:ipc_milli 3:instr_per_ms; do
	insmod /kpmc_query.ko pid=$lp metric=$((MODULE0 + ${v%%:*})) || r="$r insmod metric=${v%%:*} failed;"
	sleep 0.05
	eval "err_${v#*:}=$(cat $QP/err_metric) api_${v#*:}=$(cat $QP/metric_value)"
	rmmod kpmc_query
done
wait $kp
echo "activate 0" >/proc/kpmc/mm_manager
# The last record before the exit record, by column name.
set -- $(awk -v tid="$lp" '$1 == "nsample" { for (i = 1; i <= NF; i++) col[$i] = i }
	$1 ~ /^[0-9]+$/ && $3 == tid && $4 ~ /^[a-z]/ && $4 != "exit" { ipc = $col["ipc_milli"]; ipms = $col["instr_per_ms"]; n++ }
	END { print n + 0, ipc, ipms }' $OUT/apimod.txt)
echo "module metrics via the API: ipc_milli $api_ipc_milli (err $err_ipc_milli), instr_per_ms $api_instr_per_ms (err $err_instr_per_ms); last of $1 records: $2, $3"
[ "$err_ipc_milli" = 0 ] && [ "$err_instr_per_ms" = 0 ] || r="$r errors $err_ipc_milli $err_instr_per_ms;"
[ "$1" -ge 2 ] && [ "$api_ipc_milli" = "$2" ] && [ "$api_instr_per_ms" = "$3" ] && [ "$2" -gt 0 ] && [ "$3" -gt 0 ] ||
	r="$r API ($api_ipc_milli, $api_instr_per_ms) vs record ($2, $3): $(tail -n 4 $OUT/apimod.txt | tr '\n' '|');"
verdict patched_arm64_api_module_metrics_equal_records "$r"

# Strict parsing of the kernel configuration; unknown metric ids refused.
r=""
dmesg -c >/dev/null
try_write /proc/kpmc/kernel_config "pmc1=0x8,bogus9" && r="bad kernel_config accepted;"
dmesg | grep -q "kpmc: kernel_config: .*bogus9" || r="$r no dmesg line naming 'bogus9': $(dmesg | tail -n 2);"
try_write /proc/kpmc/kernel_config "pmc1=0x8,pmc2=0x11" || r="$r good kernel_config refused;"
grep -q '^config: pmc1=0x8,usr1=1,os1=0,pmc2=0x11,usr2=1,os2=0$' /proc/kpmc/kernel_config || r="$r kernel_config reads $(head -n1 /proc/kpmc/kernel_config);"
# An unmonitored thread: -ENODATA (-61), from the timer too.
set -- $(query_sleeping 1)
[ "$1" = -61 ] || r="$r pid 1: err '$1', expected -61;"
verdict patched_arm64_kernel_config_and_errors "$r"

# The placement policy consuming metrics while kpmc is unloaded under it:
# its queries turn into -ENODEV, nothing breaks, and both unload cleanly.
r=""
insmod /kpmc_amp.ko || r="insmod kpmc_amp failed;"
"$BIN/loop" 2000000000 &
lp=$!
echo "add=$lp" >/proc/kpmc_amp/control || r="$r add=$lp refused;"
echo "period_ms=10" >/proc/kpmc_amp/control
echo "big=0" >/proc/kpmc_amp/control
echo "enable=1" >/proc/kpmc_amp/control
sleep 0.2
rmmod kpmc || r="$r rmmod kpmc under the policy failed;"
sleep 0.1
try_write /proc/kpmc_amp/control "bogus" && r="$r control 'bogus' accepted;"
try_write /proc/kpmc_amp/control "slots=0" && r="$r slots=0 accepted;"
dmesg | grep -q "kpmc_amp: control: 'bogus' is not KEY=VALUE" || r="$r no dmesg line naming 'bogus';"
dmesg | grep -q "kpmc_amp: control: slots=0 refused" || r="$r no dmesg line naming slots=0;"
grep -q "tid=$lp instr_per_ms=" /proc/kpmc_amp/trail || r="$r no trail line for $lp: $(tail -n 3 /proc/kpmc_amp/trail);"
kill $lp; wait $lp 2>/dev/null
rmmod kpmc_amp || r="$r rmmod kpmc_amp failed;"
load
verdict patched_arm64_rmmod_under_policy "$r"
rmmod kpmc

kmemleak_verdict patched_arm64_kmemleak_no_kpmc_leaks
