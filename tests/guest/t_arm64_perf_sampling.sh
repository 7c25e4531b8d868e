# arm64: event-based sampling through the generic perf backend, against the
# direct PMUv3 backend, same boot. Raw perf event 0x11 (CPU_CYCLES) lands on
# the cycle counter, whose overflow interrupt is exact under icount (see
# t_arm64_sampling.sh): "loop 5e6" retires 10,011,013 user instructions on
# Debian's kernel (measured here, in this boot) = user cycles at -icount shift=0.
LOOPN=5000000
TOTAL=$(loop_total $LOOPN)
P=1000000

# "period pmc0" of the ebs records of a trace.
perf_ebs_rows() {
	awk '$4 == "ebs" { print $5, $6 }' "$1"
}

r=""
load
kpmc -c pmc0,ebs0=$P -- "$BIN/loop" $LOOPN >$OUT/pebs_direct.txt 2>&1 || r="direct run failed: $(tail -n 2 $OUT/pebs_direct.txt);"
nd=$(trace_count $OUT/pebs_direct.txt ebs)
load backend=perf
grep -q '^backend: perf' /proc/kpmc/info || r="$r backend=perf not chosen;"
kpmc -c pmc0=0x400000011,ebs0=$P -- "$BIN/loop" $LOOPN >$OUT/pebs_perf.txt 2>&1 || r="$r perf-backend run failed: $(tail -n 2 $OUT/pebs_perf.txt);"
np=$(trace_count $OUT/pebs_perf.txt ebs)
# Both: TOTAL / P samples (10), give or take the one at the very end; and the same number.
for n in $nd $np; do
	[ "$n" -ge $((TOTAL / P - 1)) ] && [ "$n" -le $((TOTAL / P + 1)) ] || r="$r $n ebs records, expected $((TOTAL / P)) +/-1;"
done
[ "$nd" = "$np" ] || r="$r direct took $nd samples, perf backend $np;"
# Each perf-backend sample holds its period to within the 8 instructions
# between the overflow and the interrupt, as the direct backend's do.
bad=$(perf_ebs_rows $OUT/pebs_perf.txt | awk -v p=$P '$1 != p || $2 < p || $2 > p + 8 { n++ } END { print n + 0 }')
[ "$bad" -eq 0 ] || r="$r $bad perf-backend records with period != $P or pmc0 outside [$P, $P+8]: $(perf_ebs_rows $OUT/pebs_perf.txt | head -n 3 | tr '\n' ';')"
sum=$(trace_sum $OUT/pebs_perf.txt 6)
[ "$sum" -ge $TOTAL ] && [ "$sum" -le $((TOTAL + LLSC_SLACK)) ] || r="$r perf-backend records sum to $sum, not $TOTAL (+LL/SC retries);"
echo "perf ebs: direct $nd samples, perf backend $np: $(perf_ebs_rows $OUT/pebs_perf.txt | head -n 3 | tr '\n' ';')"
verdict arm64_perf_backend_ebs_matches_direct "$r"
[ -n "$r" ] && head -n 20 $OUT/pebs_perf.txt

# Two threads sampling on one CPU: the per-CPU perf event is re-armed with
# each thread's own distance to overflow at every switch, so every sample
# still holds P of its own thread's events (3e6 and 6e6 iterations: 6 + 12).
# The previous run's perf events hold the cycle counter until its
# configuration is freed (after an RCU grace period); an event on an event
# counter would interrupt late in QEMU, so wait for that first.
r=""
i=0
while ! grep -q 'configurations 0,' /proc/kpmc/info && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
grep -q 'configurations 0,' /proc/kpmc/info || r="previous configuration not freed after 5 s: $(grep live_objects /proc/kpmc/info);"
kpmc -c pmc0=0x400000011,ebs0=$P -- "$BIN/loop" -t 3000000 6000000 >$OUT/pebs_t.txt 2>&1 || r="kpmc failed: $(tail -n 2 $OUT/pebs_t.txt);"
bad=$(perf_ebs_rows $OUT/pebs_t.txt | awk -v p=$P '$2 < p || $2 > p + 8 { n++ } END { print n + 0 }')
[ "$bad" -eq 0 ] || r="$r $bad records outside [P, P+8]: $(perf_ebs_rows $OUT/pebs_t.txt | head -n 3 | tr '\n' ';')"
tids=$(awk '$4 == "ebs" { print $3 }' $OUT/pebs_t.txt | sort -u | wc -l)
[ "$tids" -eq 2 ] || r="$r samples from $tids threads, expected 2;"
n=$(trace_count $OUT/pebs_t.txt ebs)
[ "$n" -ge 16 ] && [ "$n" -le 18 ] || r="$r $n records, expected 18 (6e6 and 12e6 instructions) -2;"
echo "perf ebs two threads: $n samples"
verdict arm64_perf_backend_ebs_two_threads "$r"
[ -n "$r" ] && head -n 30 $OUT/pebs_t.txt

# Software events are refused for sampling, with the reason.
r=""
dmesg -c >/dev/null
try_write /proc/kpmc/config 'pmc0=0x100000003,ebs0=20000' && r="software-event ebs accepted;"
dmesg | grep -q "kpmc: config: .*samples hardware events only" || r="$r no dmesg line with the reason: $(dmesg | tail -n 2);"
verdict arm64_perf_backend_ebs_refuses_software "$r"
rmmod kpmc
