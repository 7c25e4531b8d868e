# arm64: the generic perf backend against the direct PMUv3 backend, same boot.
# Raw perf event 0x08 is INST_RETIRED: both must count the same user-mode
# instructions of the same program (perf's per-CPU event keeps counting
# across switches; kpmc attributes the deltas while the thread runs).
r=""
load
kpmc -A -c pmc1=0x8 -- "$BIN/loop" 3000000 >$OUT/direct.txt 2>&1 || r="direct run failed;"
d=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { print $4; exit }' $OUT/direct.txt)
rmmod kpmc
load backend=perf
grep -q '^backend: perf' /proc/kpmc/info || r="$r backend=perf not chosen;"
kpmc -A -c pmc1=0x400000008 -- "$BIN/loop" 3000000 >$OUT/viaperf.txt 2>&1 || r="$r perf-backend run failed: $(tail -n 2 $OUT/viaperf.txt);"
p=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { print $4; exit }' $OUT/viaperf.txt)
echo "perf backend: direct $d, via perf $p"
[ -n "$d" ] && [ -n "$p" ] && [ $((p - d)) -le 1000 ] && [ $((d - p)) -le 1000 ] ||
	r="$r direct '$d' and perf backend '$p' differ by more than 1000;"
verdict arm64_perf_backend_matches_direct "$r"

# A user gets through the perf backend what perf gives it, same boot: its
# events are kpmc's per-CPU events, created as the kernel's, and kpmc's own
# privilege rules decide (perf would refuse a user its CPU-wide events at any
# paranoid level above 0). The count of the user's own program equals perf's
# (6,011,013 both on 6.1; LLSC_SLACK).
paranoid_matrix pmc1=0x400000008 pmc1=0x400000008,os1=1 4:8
r=$mx_r
"$BIN/runas" 1000 kpmc -A -c pmc1=0x400000008 -- "$BIN/loop" 3000000 >$OUT/userperf.txt 2>&1 ||
	r="$r uid 1000 refused: $(tail -n 2 $OUT/userperf.txt);"
u=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { print $4; exit }' $OUT/userperf.txt)
"$BIN/runas" 1000 "$BIN/perfcount" -e 4:8 "$BIN/loop" 3000000 >$OUT/userperfcount.txt 2>&1
pc=$(sed -n 's/^perfcount count=\([0-9]*\) .*/\1/p' $OUT/userperfcount.txt)
echo "uid 1000 via the perf backend: kpmc $u, perf $pc"
within_slack "$u" "$pc" || r="$r uid 1000: kpmc '$u' and perf '$pc' differ by more than $LLSC_SLACK;"
verdict arm64_perf_backend_privilege_as_perf "$r"

# Coexistence is perf's own: a perf user keeps counting while kpmc runs.
r=""
"$BIN/perfhold" 2 >$OUT/hold.txt 2>&1 &
hp=$!
sleep 0.2
kpmc -A -c pmc1=0x400000008,pmc2=0x400000011 -- "$BIN/loop" 100000000 >$OUT/viaperf2.txt 2>&1 || r="kpmc failed: $(tail -n 2 $OUT/viaperf2.txt);"
wait $hp
running=$(sed -n 's/.*running=\([0-9]*\).*/\1/p' $OUT/hold.txt)
[ -n "$running" ] && [ "$running" -gt 0 ] || r="$r perfhold was not counting: $(cat $OUT/hold.txt);"
verdict arm64_perf_backend_coexists "$r"

# Memory sampling through perf needs a data-address sampler in-kernel events
# can use; on arm64 that is SPE, whose samples go to an AUX buffer: refused,
# with the reason and the backend that can, and the info line says none.
r=""
echo "pmc1=0x400000008,ebs1=100000,mem=1" >/proc/kpmc/config 2>/dev/null && r="mem=1 accepted by the perf backend;"
dmesg | tail -n 1 | grep -q "mem=1: perf has no data-address sampling for in-kernel events on arm64 (SPE writes to an AUX buffer); the arm64 backend decodes instructions" ||
	r="$r no reason in dmesg: $(dmesg | tail -n 1);"
grep -q '^memory_sampling: none$' /proc/kpmc/info || r="$r info: $(grep memory_sampling /proc/kpmc/info);"
verdict arm64_perf_backend_refuses_mem_with_reason "$r"
rmmod kpmc
