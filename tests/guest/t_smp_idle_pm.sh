# arm64, 2 CPUs, booted with KPMC_GUEST_IDLE=powerdown (scripts/idle-dtb.sh):
# counts across CPU idle power-down (cpu_pm enter/exit) and suspend-to-idle.
# arm_pmu's cpu_pm notifier resets the PMU at every CPU_PM_EXIT (counters
# zeroed, PMCR rewritten with E clear); kpmc must fold its counts at
# CPU_PM_ENTER and reload them at CPU_PM_EXIT, or it reads garbage.
#
# On QEMU 7.2 the power-down state's PSCI CPU_SUSPEND is a WFI that returns
# success, which Linux counts as a failed entry: the state's "rejected"
# rises, not its "usage" (on hardware, usage). Both went through
# cpu_pm_enter()/cpu_pm_exit(), so the entries are usage + rejected.
# On -smp 2 QEMU's instruction count is one for all vCPUs (icount): a CPU's
# user-mode count also takes the other vCPU's instructions. So a thread runs
# on CPU 0 beside the test's shell, the other CPU idle, and its count must lie
# in [2RN, 2RN + 0.2% + 20,000] (2RN: its loops; then libc, ~155
# instructions a round, and the other vCPU's few). perf's count of the same
# workload (tests/progs/perfcount) is printed beside it; it is no exact
# reference here: it read 592,491,116 once for 600,000,000 loop instructions.

# pd_state CPU: the sysfs directory of CPU's power-down idle state.
pd_state() {
	for s in /sys/devices/system/cpu/cpu$1/cpuidle/state*; do
		[ "$(cat $s/name 2>/dev/null)" = cpu-power-down ] && { echo $s; return; }
	done
}

# pd_entries [s2idle]: power-down entries of all CPUs (cpuidle, or s2idle's).
pd_entries() {
	n=0
	for c in $(seq 0 $((ncpu - 1))); do
		s=$(pd_state $c)
		[ -n "$s" ] || continue
		if [ "${1:-}" = s2idle ]; then
			n=$((n + $(cat $s/s2idle/usage 2>/dev/null || echo 0)))
		else
			n=$((n + $(cat $s/usage) + $(cat $s/rejected)))
		fi
	done
	echo $n
}

# perf_ref CMD...: perf's user-mode instruction count of CMD.
perf_ref() {
	"$BIN/perfcount" "$@" | sed -n 's/^perfcount count=\([0-9]*\) .*/\1/p'
}

# loop_window COUNT LOOPS: COUNT in [LOOPS, LOOPS + 0.2% + 20000] (see above).
loop_window() {
	[ -n "$1" ] && [ "$1" -ge "$2" ] && [ "$1" -le $(($2 + $2 / 500 + 20000)) ]
}

# uptime_ms: /proc/uptime in ms (10 ms steps).
uptime_ms() {
	awk '{ split($1, a, "."); print a[1] * 1000 + a[2] * 10 }' /proc/uptime
}

# sys_col FILE CPU COLUMN: a column of "kpmc -S -A" (cpu records counted_ms pmc...).
sys_col() {
	awk -v cpu=$2 -v col=$3 '$1 == cpu { print $col }' "$1"
}

# suspend_idle SECONDS: suspend (mem, which is s2idle on QEMU virt: its PSCI
# has no SYSTEM_SUSPEND) woken by the PL031 RTC's alarm. Sets susp_info.
suspend_idle() {
	ok0=$(cat /sys/power/suspend_stats/success)
	echo 0 >/sys/class/rtc/rtc0/wakealarm
	echo +$1 >/sys/class/rtc/rtc0/wakealarm
	u0=$(cut -d' ' -f1 /proc/uptime)
	echo mem >/sys/power/state
	src=$?
	u1=$(cut -d' ' -f1 /proc/uptime)
	ok1=$(cat /sys/power/suspend_stats/success)
	susp_info="echo mem: rc=$src, mem_sleep '$(cat /sys/power/mem_sleep)', suspended ${u0}..${u1} s, successes $ok0 -> $ok1, wakeup irq $(cat /sys/power/pm_wakeup_irq 2>/dev/null)"
	[ $src -eq 0 ] && [ $ok1 -gt $ok0 ]
}

idle_pm_tests() {
	# (a) The CPUs power down between the time slices of a monitored workload
	# that sleeps often: 100 rounds of 200,000 instructions and 5 ms asleep.
	# The thread runs on CPU 0 with the test's shell (-smp 2 counts take
	# the other vCPU's instructions: keep that one idle).
	R=100
	N=100000
	r=""
	taskset -p 1 $$ >/dev/null
	ref=$(perf_ref "$BIN/spinsleep" $R $N 5)
	e0=$(pd_entries)
	kpmc -A -c pmc1=0x8 -- "$BIN/spinsleep" $R $N 5 >$OUT/idlepm.txt 2>&1 || r="kpmc failed: $(tail -n 3 $OUT/idlepm.txt);"
	e1=$(pd_entries)
	taskset -p 3 $$ >/dev/null
	got=$(single_total $OUT/idlepm.txt 4)
	echo "idle pm: spinsleep $R $N 5: kpmc $got, perf $ref user instructions, $((e1 - e0)) power-down entries"
	[ $((e1 - e0)) -ge 50 ] || r="$r only $((e1 - e0)) power-down idle entries (usage+rejected) during the run, expected >= 50;"
	verdict smp_idle_pm_powerdown_entries "$r"

	# (b) The thread's count is exact across those power-downs.
	r=""
	loop_window "$got" $((2 * R * N)) ||
		r="$r kpmc counted '$got' user instructions for $((2 * R * N)) in loops (perf: $ref; a PMU reset at CPU_PM_EXIT not handled?);"
	verdict smp_idle_pm_thread_exact "$r"

	# System-wide: each CPU's counters run through its idle power-downs. On
	# -smp 2 a CPU's user-mode count also takes the other vCPU's instructions
	# (QEMU's one icount): the more wake-ups, the more; here 10% to 18% with
	# no PMU reset (no cpuidle), 40% with the short rounds above. Bounds
	# [total loops, +50%]; a reset shows as 0 or 2^32 on a CPU.
	r=""
	N=1000000
	R=50
	ref=$((2 * R * N))
	e0=$(pd_entries)
	t0=$(uptime_ms)
	kpmc -S -A -c pmc1=0x8 -- sh -c "$BIN/spinsleep $R $N 5 & $BIN/spinsleep $R $N 5 & wait" >$OUT/idlepm_sys.txt 2>&1 ||
		r="kpmc -S failed: $(tail -n 3 $OUT/idlepm_sys.txt);"
	t1=$(uptime_ms)
	e1=$(pd_entries)
	all=$(sys_col $OUT/idlepm_sys.txt all 4)
	c0=$(sys_col $OUT/idlepm_sys.txt 0 4)
	c1=$(sys_col $OUT/idlepm_sys.txt 1 4)
	lo=$((2 * ref))
	hi=$((2 * ref + ref))
	echo "idle pm: system-wide 2 x spinsleep $R $N 5: cpu0=$c0 cpu1=$c1 all=$all (expected $lo..$hi), $((e1 - e0)) power-down entries"
	[ $((e1 - e0)) -ge 50 ] || r="$r only $((e1 - e0)) power-down entries;"
	[ -n "$all" ] && [ "$all" -ge $lo ] && [ "$all" -le $hi ] ||
		r="$r all CPUs counted '$all' user instructions, expected $lo..$hi;"
	[ -n "$c0" ] && [ -n "$c1" ] && [ "$c0" -le $hi ] && [ "$c1" -le $hi ] || r="$r per CPU '$c0' and '$c1' (> $hi: phantom counts);"
	verdict smp_idle_pm_system_wide "$r"
	[ -n "$r" ] && cat $OUT/idlepm_sys.txt

	# Without -X, idle time is counted time, power-down included: the two
	# CPUs' counted_ms add up to about twice the run's (kpmc's own start and
	# end excepted).
	ms=$(sys_col $OUT/idlepm_sys.txt all 3 | cut -d. -f1)
	echo "idle pm: system-wide: $ms ms counted on 2 CPUs in a run of $((t1 - t0)) ms"
	r=""
	[ -n "$ms" ] && [ "$ms" -ge $(((t1 - t0) * 3 / 2)) ] && [ "$ms" -le $(((t1 - t0) * 2 + 40)) ] ||
		r="'$ms' ms counted on 2 CPUs in a run of $((t1 - t0)) ms (power-down time not counted?);"
	verdict smp_idle_pm_system_wide_time "$r"

	# (c) Suspend (to idle) in the middle of a monitored run: 3 rounds of
	# 200,000,000 instructions and 700 ms asleep, suspended during the first
	# sleep. User tasks are frozen, the CPUs enter the power-down state
	# through s2idle (cpu_pm). Suspending while the CPUs are busy would be
	# slow in host time, and the RTC alarm (host time) could fire before
	# the guest is suspended: then nothing wakes it (its clock stands still).
	r=""
	L=100000000
	taskset -p 1 $$ >/dev/null
	lref=$(perf_ref "$BIN/spinsleep" 3 $L 700)
	s0=$(pd_entries s2idle)
	kpmc -A -c pmc1=0x8 -- "$BIN/spinsleep" 3 $L 700 >$OUT/idlepm_susp.txt 2>&1 &
	kp=$!
	sleep 0.4
	suspend_idle 3 || r="suspend failed: $susp_info;"
	wait $kp || r="$r kpmc failed: $(tail -n 3 $OUT/idlepm_susp.txt);"
	taskset -p 3 $$ >/dev/null
	s1=$(pd_entries s2idle)
	got=$(single_total $OUT/idlepm_susp.txt 4)
	echo "idle pm: suspend during spinsleep 3 $L 700: kpmc $got, perf $lref; $susp_info; s2idle power-down entries $((s1 - s0))"
	[ $((s1 - s0)) -ge 1 ] || r="$r no s2idle entry of the power-down state;"
	loop_window "$got" $((6 * L)) || r="$r kpmc counted '$got' user instructions for $((6 * L)) in loops (perf: $lref);"
	verdict smp_idle_pm_suspend_thread "$r"

	r=""
	s0=$(pd_entries s2idle)
	kpmc -S -A -c pmc1=0x8 -- sh -c "$BIN/spinsleep 3 $L 700 & $BIN/spinsleep 3 $L 700 & wait" >$OUT/idlepm_susp_sys.txt 2>&1 &
	kp=$!
	sleep 0.4
	suspend_idle 3 || r="suspend failed: $susp_info;"
	wait $kp || r="$r kpmc -S failed: $(tail -n 3 $OUT/idlepm_susp_sys.txt);"
	s1=$(pd_entries s2idle)
	all=$(sys_col $OUT/idlepm_susp_sys.txt all 4)
	c0=$(sys_col $OUT/idlepm_susp_sys.txt 0 4)
	c1=$(sys_col $OUT/idlepm_susp_sys.txt 1 4)
	lo=$((12 * L))
	hi=$((12 * L + 12 * L / 5))
	echo "idle pm: suspend during system-wide 2 x spinsleep 3 $L 700: cpu0=$c0 cpu1=$c1 all=$all (expected $lo..$hi); $susp_info"
	[ $((s1 - s0)) -ge 1 ] || r="$r no s2idle entry of the power-down state;"
	[ -n "$all" ] && [ "$all" -ge $lo ] && [ "$all" -le $hi ] ||
		r="$r all CPUs counted '$all' user instructions, expected $lo..$hi;"
	[ -n "$c0" ] && [ -n "$c1" ] && [ "$c0" -le $hi ] && [ "$c1" -le $hi ] || r="$r per CPU '$c0' and '$c1' (> $hi: phantom counts);"
	verdict smp_idle_pm_suspend_system_wide "$r"
	[ -n "$r" ] && cat $OUT/idlepm_susp_sys.txt

	sleep 0.5
	live=$(sed -n 's/^live_objects: \([0-9]*\).*/\1/p' /proc/kpmc/info)
	verdict smp_idle_pm_no_leftovers "$([ "$live" = 0 ] || grep live_objects /proc/kpmc/info)"
}

load
drv=$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null)
pd=$(pd_state 0)
if ! grep -q 'kpmc.idle=powerdown' /proc/cmdline || [ -z "$pd" ]; then
	fail smp_idle_pm_setup "no CPU idle power-down state (cpuidle driver '$drv', cmdline: $(cat /proc/cmdline)): boot this run with KPMC_GUEST_IDLE=powerdown (scripts/idle-dtb.sh)"
else
	echo "idle pm: cpuidle driver $drv, $pd ($(cat $pd/desc)), suspend states '$(cat /sys/power/state)', mem_sleep '$(cat /sys/power/mem_sleep)'"
	pass smp_idle_pm_setup
	idle_pm_tests
fi
rmmod kpmc
