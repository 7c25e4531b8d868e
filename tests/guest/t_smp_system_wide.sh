# arm64, 2 CPUs: system-wide monitoring (kpmc -S). "loop 1e8" retires
# 200,011,0xx user instructions.
load

# sys_row FILE CPU COLUMN: a column of "kpmc -S -A" (cpu records counted_ms pmc...).
sys_row() {
	awk -v cpu=$2 -v col=$3 '$1 == cpu { print $col }' "$1"
}

# Everything that runs is counted, on each CPU: two loops in parallel.
r=""
kpmc -S -A -c pmc1=0x8 -- sh -c "$BIN/loop 100000000 & $BIN/loop 100000000 & wait" >$OUT/sys.txt 2>&1 ||
	r="kpmc -S failed: $(tail -n 3 $OUT/sys.txt);"
all=$(sys_row $OUT/sys.txt all 4)
c0=$(sys_row $OUT/sys.txt 0 4)
c1=$(sys_row $OUT/sys.txt 1 4)
echo "system-wide: cpu0=$c0 cpu1=$c1 all=$all"
[ -n "$all" ] && [ "$all" -ge 400022000 ] && [ "$all" -le 440000000 ] ||
	r="$r all CPUs counted '$all' user instructions, expected 400,022,000..440,000,000;"
[ -n "$c0" ] && [ -n "$c1" ] && [ "$c0" -ge 100000000 ] && [ "$c1" -ge 100000000 ] ||
	r="$r per CPU '$c0' and '$c1': each loop should have had a CPU;"
verdict smp_system_wide_counts_both_cpus "$r"
[ -n "$r" ] && cat $OUT/sys.txt

# Time-based records come from each CPU, idle or not, every period.
r=""
kpmc -S -T 0.05 -c pmc0,usr0=1,os0=1 -- "$BIN/loop" 100000000 >$OUT/systbs.txt 2>&1 || r="kpmc failed;"
n0=$(awk '$3 == "cpu" && $2 == 0 { n++ } END { print n + 0 }' $OUT/systbs.txt)
n1=$(awk '$3 == "cpu" && $2 == 1 { n++ } END { print n + 0 }' $OUT/systbs.txt)
echo "system-wide tbs: $n0 records from cpu0, $n1 from cpu1"
[ "$n0" -ge 3 ] && [ "$n1" -ge 3 ] || r="$r $n0 and $n1 records per CPU for ~200 ms at 50 ms;"
[ "$n0" -le 8 ] && [ "$n1" -le 8 ] || r="$r too many records: $n0, $n1;"
verdict smp_system_wide_tbs_per_cpu "$r"

# Excluding idle: sleeping for a second, the CPUs count (almost) no time.
r=""
kpmc -S -A -c pmc0,usr0=1,os0=1 -- sleep 1 >$OUT/sysidle.txt 2>&1 || r="kpmc failed;"
kpmc -S -X -A -c pmc0,usr0=1,os0=1 -- sleep 1 >$OUT/sysnoidle.txt 2>&1 || r="$r kpmc -X failed;"
with=$(sys_row $OUT/sysidle.txt all 3 | cut -d. -f1)
without=$(sys_row $OUT/sysnoidle.txt all 3 | cut -d. -f1)
echo "system-wide sleep 1: counted $with ms with idle, $without ms without"
[ -n "$with" ] && [ "$with" -ge 1900 ] || r="$r with idle only '$with' ms counted on 2 CPUs over 1 s;"
[ -n "$without" ] && [ "$without" -le 300 ] || r="$r without idle still '$without' ms counted;"
verdict smp_system_wide_exclude_idle "$r"

# Only for CAP_PERFMON/CAP_SYS_ADMIN; exclusive with per-thread monitoring.
r=""
"$BIN/runas" 1000 kpmc -S -c pmc0 -- true >$OUT/sysuser.txt 2>&1 && r="unprivileged -S succeeded;"
grep -q "CAP_PERFMON" $OUT/sysuser.txt || r="$r no reason given: $(cat $OUT/sysuser.txt);"
kpmc -S -c pmc0 -- sleep 1 >/dev/null 2>&1 &
sp=$!
sleep 0.3
kpmc -A -c pmc0 -- /bin/true >$OUT/sysexcl.txt 2>&1 && r="$r per-thread monitoring during -S succeeded;"
grep -q "system-wide monitoring is on" $OUT/sysexcl.txt || r="$r no reason: $(cat $OUT/sysexcl.txt);"
kpmc -S -c pmc0 -- /bin/true >$OUT/sysexcl2.txt 2>&1 && r="$r a second -S succeeded;"
wait $sp || r="$r the first -S failed;"
kpmc -S -C 5 -c pmc0 -- /bin/true >$OUT/sysbadcpu.txt 2>&1 && r="$r -C 5 (offline) succeeded;"
grep -q "online" $OUT/sysbadcpu.txt || r="$r no reason for -C 5: $(cat $OUT/sysbadcpu.txt);"
sleep 0.5
live=$(sed -n 's/^live_objects: \([0-9]*\).*/\1/p' /proc/kpmc/info)
[ "$live" = 0 ] || r="$r $(grep live_objects /proc/kpmc/info);"
verdict smp_system_wide_privilege_and_exclusion "$r"
rmmod kpmc
