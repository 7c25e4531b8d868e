# x86_64 guest: a real suspend-to-RAM. QEMU's PIIX4 ACPI offers S3
# (/sys/power/mem_sleep "[deep]"); the CMOS RTC alarm wakes the guest
# (scripts/boot-guest.sh wakes it through the monitor if it is still
# asleep after 30 s). In S3 the kernel takes every CPU but the boot one
# offline and runs the syscore suspend/resume callbacks on it, IRQs off:
# kpmc's fold the counters (kpmc_cpu_save) and reload them (kpmc_cpu_reload).
# No PMU here: the counters are the perf backend's software events,
# context switches (0x100000003) and task-clock (0x100000001, ns).
# The patched tier's debug kernels are built without CONFIG_SUSPEND.
if [ ! -e /sys/power/state ] && debug_kernel; then
	echo "suspend: skipped, a kernel without CONFIG_SUSPEND (no /sys/power/state)"
	return 0
fi
EV="pmc0=0x100000003,os0=1,pmc1=0x100000001,os1=1"
SLEEP_S=5

# One S3 cycle woken by the RTC alarm SLEEP_S s ahead. The alarm runs on
# host time: set just before the suspend, far enough ahead that it cannot
# fire before the guest is asleep (it has whole seconds: the guest sleeps
# SLEEP_S - 1 to SLEEP_S s). Prints the boot-time clock (which counts the
# suspend, restored from the CMOS clock at resume: +-1 s) and the RTC's
# time around it. Builtins only: no process but the sh.
cat >$OUT/s3.sh <<EOF
read u0 _ </proc/uptime
read e0 </sys/class/rtc/rtc0/since_epoch
echo 0 >/sys/class/rtc/rtc0/wakealarm
echo +$SLEEP_S >/sys/class/rtc/rtc0/wakealarm
read w </sys/class/rtc/rtc0/wakealarm
echo mem >/sys/power/state || echo "s3: echo mem >/sys/power/state failed"
read u1 _ </proc/uptime
read e1 </sys/class/rtc/rtc0/since_epoch
echo "s3: uptime \$u0 -> \$u1 rtc \$e0 -> \$e1 alarm \$w"
EOF

# slept FILE: ms between the s3 line's two uptimes.
slept() {
	awk '$1 == "s3:" && $2 == "uptime" { printf "%d\n", ($5 - $3) * 1000; exit }' "$1"
}

# ftrace of kpmc's save/reload: x86 has no CPU PM notifier and the guest
# one CPU (no hotplug), so each call is the syscore callbacks'.
TR=/sys/kernel/tracing
mount -t tracefs tracefs $TR 2>/dev/null
trace_on() {
	[ -w $TR/set_ftrace_filter ] || return 1
	echo 0 >$TR/tracing_on
	echo nop >$TR/current_tracer
	echo 'kpmc_cpu_save kpmc_cpu_reload' >$TR/set_ftrace_filter 2>/dev/null || return 1
	echo function >$TR/current_tracer
	echo >$TR/trace
	echo 1 >$TR/tracing_on
}
trace_off() {
	echo 0 >$TR/tracing_on
	echo nop >$TR/current_tracer
	echo >$TR/set_ftrace_filter
}

r=""
grep -qw mem /sys/power/state || r="no 'mem' in /sys/power/state: $(cat /sys/power/state);"
grep -q '\[deep\]' /sys/power/mem_sleep || r="$r mem_sleep is not deep: $(cat /sys/power/mem_sleep);"
[ -e /sys/class/rtc/rtc0/wakealarm ] || r="$r no rtc0 wakealarm;"
echo "suspend: state '$(cat /sys/power/state)', mem_sleep '$(cat /sys/power/mem_sleep)'"
verdict x86_suspend_s3_offered "$r"
s3=$([ -z "$r" ] && echo 1)

load
ok0=$(cat /sys/power/suspend_stats/success)
fail0=$(cat /sys/power/suspend_stats/fail)
dmesg -c >/dev/null
cycles=0

# (a) Per thread across one S3 cycle, inside the monitored tree: the sh
# that writes "mem" is the thread on the CPU when syscore runs, so its
# counters are folded and reloaded there. perfcount counts the same run's
# context switches with a per-task perf event (inherited), the reference.
# Two yield 500 runs around it: 4 threads with 500 switches each (+ a few
# timer preemptions). Task-clock: no thread is charged the time asleep.
r=""
traced=""
r0=""
[ -n "$s3" ] || r="no S3;"
if [ -n "$s3" ]; then
	trace_on && traced=1
	kpmc -A -c "$EV" -- "$BIN/perfcount" -k -e 1:3 sh -c "$BIN/yield 500; sh $OUT/s3.sh; $BIN/yield 500" >$OUT/s3a.txt 2>&1 ||
		r="kpmc failed: $(tail -n 3 $OUT/s3a.txt | tr '\n' '|');"
	[ -n "$traced" ] && { cat $TR/trace >$OUT/s3trace.txt; trace_off; }
	cycles=$((cycles + 1))
	cat $OUT/s3a.txt
	s=$(slept $OUT/s3a.txt)
	echo "suspend (a): slept ${s:-?} ms"
	[ -n "$s" ] && [ "$s" -ge $((SLEEP_S * 1000 - 2000)) ] || r="$r the guest slept '$s' ms, expected >= $((SLEEP_S - 2)) s;"
	[ -n "$s" ] && [ "$s" -ge 25000 ] && echo "suspend (a): woken by the host's fallback (RTC alarm missed)"
	# Rows: perfcount (the lowest tid), sh s3.sh, 2 x yield (3 threads, the
	# second exec'd by sh -c, the main ones switch a few times only).
	thread_column $OUT/s3a.txt 4 >$OUT/s3a.cs
	thread_column $OUT/s3a.txt 5 >$OUT/s3a.tc
	nt=$(wc -l <$OUT/s3a.cs)
	[ "$nt" -eq 8 ] || r="$r $nt threads, expected 8;"
	ny=$(awk '$2 >= 500 && $2 <= 550 { n++ } END { print n + 0 }' $OUT/s3a.cs)
	[ "$ny" -eq 4 ] || r="$r $ny threads with 500..550 context switches, expected 4;"
	big=$(awk '$2 > 5000 { printf "%s:%s ", $1, $2 }' $OUT/s3a.cs)
	[ -z "$big" ] && r0=$(awk '$2 == 0 { printf "%s ", $1 }' $OUT/s3a.cs)
	[ -z "$big" ] || r="$r phantom context switches (tid:count) $big;"
	[ -z "$r0" ] || r="$r threads with no context switch: $r0;"
	# No thread, the suspending sh included, was charged the time asleep.
	tcmax=$(awk 'BEGIN { m = 0 } $2 > m { m = $2 } END { print m }' $OUT/s3a.tc)
	echo "suspend (a): largest task-clock ${tcmax} ns"
	[ "$tcmax" -gt 0 ] && [ "$tcmax" -lt $((SLEEP_S * 400000000)) ] ||
		r="$r a thread's task-clock is $tcmax ns, expected 0 < n < $((SLEEP_S * 400)) ms;"
	# kpmc's sum over perfcount's command vs perf's per-task count.
	ksum=$(awk 'NR > 1 { s += $2 } END { print s + 0 }' $OUT/s3a.cs)
	pc=$(sed -n 's/^perfcount count=\([0-9]*\) .*/\1/p' $OUT/s3a.txt)
	echo "suspend (a): context switches: kpmc $ksum, perf $pc"
	[ -n "$pc" ] && [ $((ksum - pc)) -le $((pc / 50 + 20)) ] && [ $((pc - ksum)) -le $((pc / 50 + 20)) ] ||
		r="$r kpmc's $ksum context switches vs perf's '$pc' (2% + 20 allowed);"
	# The syscore callbacks ran: one save at suspend, one reload at resume.
	if [ -n "$traced" ]; then
		ns=$(grep -c 'kpmc_cpu_save' $OUT/s3trace.txt)
		nr=$(grep -c 'kpmc_cpu_reload' $OUT/s3trace.txt)
		grep 'kpmc_cpu_' $OUT/s3trace.txt
		[ "$ns" -eq 1 ] && [ "$nr" -eq 1 ] || r="$r ftrace: $ns kpmc_cpu_save, $nr kpmc_cpu_reload, expected 1 each;"
		grep 'kpmc_cpu_save' $OUT/s3trace.txt | grep -q '<-kpmc_suspend' ||
			r="$r kpmc_cpu_save not called by kpmc's syscore suspend;"
	fi
fi
verdict x86_suspend_per_thread "$r"

# (a') System-wide across one S3 cycle: the CPU's session is folded and
# reloaded by the same callbacks. The CPU's task-clock counts the time it
# is not asleep only: well under what the boot-time clock saw.
r=""
[ -n "$s3" ] || r="no S3;"
if [ -n "$s3" ]; then
	read u0 _ </proc/uptime
	kpmc -S -A -c "$EV" -- sh $OUT/s3.sh >$OUT/s3s.txt 2>&1 || r="kpmc -S failed: $(tail -n 3 $OUT/s3s.txt | tr '\n' '|');"
	read u1 _ </proc/uptime
	cycles=$((cycles + 1))
	s=$(slept $OUT/s3s.txt)
	n=$(awk '$1 == "all" { print $4 }' $OUT/s3s.txt)
	tc=$(awk '$1 == "all" { print $5 }' $OUT/s3s.txt)
	el=$(echo "$u0 $u1" | awk '{ printf "%d\n", ($2 - $1) * 1000 }')
	echo "suspend (a'): system-wide: ${n:-none} context switches, task-clock ${tc:-none} ns, ${el} ms elapsed, slept ${s:-?} ms"
	[ -n "$n" ] && [ "$n" -ge 10 ] && [ "$n" -le 20000 ] || r="$r '$n' context switches on the CPU, expected 10..20000;"
	[ -n "$s" ] && [ "$s" -ge $((SLEEP_S * 1000 - 2000)) ] || r="$r the guest slept '$s' ms;"
	[ -n "$tc" ] && [ -n "$s" ] && [ "$tc" -gt 0 ] && [ $((tc / 1000000)) -le $((el - s + 1000)) ] ||
		r="$r the CPU's task-clock '$tc' ns vs $el ms elapsed of which $s ms asleep;"
fi
verdict x86_suspend_system_wide "$r"

# (b)+(c) The kernel went through S3 each time and back, kpmc's callbacks
# warned about nothing (timekeeping is suspended there: kpmc reads the
# fast clock), and kpmc still works after.
r=""
if [ -n "$s3" ]; then
	ok1=$(cat /sys/power/suspend_stats/success)
	fail1=$(cat /sys/power/suspend_stats/fail)
	echo "suspend: suspend_stats success $ok0 -> $ok1, fail $fail0 -> $fail1"
	[ $((ok1 - ok0)) -eq $cycles ] || r="suspend_stats success $ok0 -> $ok1, expected +$cycles;"
	[ "$fail1" -eq "$fail0" ] || r="$r suspend_stats fail $fail0 -> $fail1;"
	dmesg >$OUT/s3dmesg.txt
	ne=$(grep -c 'PM: suspend entry (deep)' $OUT/s3dmesg.txt)
	# "ACPI: PM: Waking up ..." ("ACPI: Waking up ..." before 5.11).
	nw=$(grep -c 'Waking up from system sleep state S3' $OUT/s3dmesg.txt)
	[ "$ne" -eq $cycles ] && [ "$nw" -eq $cycles ] || r="$r dmesg: $ne suspend entries (deep), $nw S3 wake-ups, expected $cycles;"
	bad=$(grep -E 'WARNING|BUG|Call Trace|Oops|kpmc.*(warn|fail|error|leak)' $OUT/s3dmesg.txt | head -n 5 | tr '\n' '|')
	[ -z "$bad" ] || r="$r dmesg: $bad;"
	kpmc -A -c "$EV" -- "$BIN/yield" 200 >$OUT/s3after.txt 2>&1 || r="$r kpmc after resume failed;"
	n=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && $4 >= 200 && $4 <= 220 { n++ } END { print n + 0 }' $OUT/s3after.txt)
	[ "$n" -eq 2 ] || r="$r after resume $n threads with 200..220 switches: $(cat $OUT/s3after.txt | tr '\n' '|');"
else
	r="no S3;"
fi
verdict x86_suspend_s3_clean "$r"
rmmod kpmc
