# arm64: the ring never loses a record silently. ringloss samples itself
# every 100,000 user cycles over 5e6 two-instruction iterations (1e7 cycles:
# 100 ebs records) plus one detach record, reading only at the end.
ringloss_run() { # RING -> "ebs detach lost lost_records other" in $e $d $l $k $o
	"$BIN/ringloss" $1 5000000 >$OUT/ring$1.txt 2>&1 || r="$r ring=$1: $(cat $OUT/ring$1.txt);"
	set -- $(sed -n 's/^ringloss ebs=\([0-9]*\) detach=\([0-9]*\) lost=\([0-9]*\) lost_records=\([0-9]*\) other=\([0-9]*\)$/\1 \2 \3 \4 \5/p' $OUT/ring$1.txt)
	e=${1:-0} d=${2:-0} l=${3:-0} k=${4:-0} o=${5:-0}
}

load
r=""
ringloss_run 4096
echo "ring 4096: ebs=$e detach=$d lost=$l"
[ "$e" -eq 100 ] && [ "$d" -eq 1 ] && [ "$l" -eq 0 ] && [ "$k" -eq 0 ] || r="$r big ring: ebs=$e detach=$d lost=$l, expected 100 1 0;"
ringloss_run 16
echo "ring 16: ebs=$e detach=$d lost=$l in $k lost records"
# produced = delivered + lost, exactly; the loss is told in-band.
[ $((e + d + l)) -eq 101 ] || r="$r ring 16: $e ebs + $d detach + $l lost != 101 produced;"
[ "$l" -ge 80 ] && [ "$k" -ge 1 ] || r="$r ring 16: only $l lost in $k LOST records;"
# The ring's 16 records, and the LOST record the reader gets once it emptied it.
[ $((e + d + k)) -le 17 ] || r="$r ring 16 delivered $((e + d + k)) records;"
[ "$o" -eq 0 ] || r="$r $o records of another kind;"
verdict arm64_ring_loss_counted_exactly "$r"

# A ring's lock is held to copy a record in, never across the monitoring
# module's callback (records are built on the producer's stack first): every
# CPU feeding a session takes that lock. With ring_lock_stats on, each record
# pushed is one hold (ringloss's 101 exactly), and a hold lasts as long with
# the rates module (a 128-bit division per counter per record) as with none.
# Measured on 6.1: 172 guest ns per record held with either; built in its
# ring slot under the lock, as records were before, 366 without a module and
# 563 with rates (this test fails there).
lock_stats() { # -> holds and guest ns held since the parameter was set, in $h $t
	set -- $(sed -n 's/^ring_lock: holds \([0-9]*\) hold_ns \([0-9]*\) .*/\1 \2/p' /proc/kpmc/info)
	h=${1:-0} t=${2:-0}
}
r=""
stats=/sys/module/kpmc/parameters/ring_lock_stats
echo 1 >$stats || r="ring_lock_stats not settable;"
ringloss_run 4096
lock_stats
h0=$h t0=$t
echo 0 >$stats
echo "activate 1" >/proc/kpmc/mm_manager || r="$r activate 1 (rates) failed;"
echo 1 >$stats
ringloss_run 4096
lock_stats
h1=$h t1=$t
echo 0 >$stats
echo "activate 0" >/proc/kpmc/mm_manager
grep -q '^ring_lock:' /proc/kpmc/info && r="$r ring_lock still in info with the statistics off;"
echo bogus >$stats 2>/dev/null && r="$r ring_lock_stats=bogus accepted;"
dmesg | grep -q "ring_lock_stats: 'bogus" || r="$r no dmesg line naming the bad value;"
echo "ring lock: $h0 holds $t0 ns without a module, $h1 holds $t1 ns with rates"
[ "$h0" -eq 101 ] && [ "$h1" -eq 101 ] || r="$r holds $h0 and $h1, expected 101 (one per record);"
# Equal up to 2% (the two runs' records are alike; an IRQ cannot land in a
# hold) and the clock's step: local_clock() follows the guest's generic timer,
# 62.5 MHz in QEMU, so each hold reads as a multiple of 16 ns, up to one step
# off its length; where the records come at a fixed distance the error is the
# same for every hold (measured on 5.10: 21,904 against 21,424 ns, both
# multiples of 16, 101 holds). A callback under the lock costs over 190 ns a
# record: still caught.
[ "$t0" -gt 0 ] && [ $((t1 * 100)) -le $((t0 * 102 + h1 * 16 * 100)) ] ||
	r="$r the lock is held longer with the module's callback: $t1 against $t0 ns (over $h1 holds);"
verdict arm64_ring_lock_not_held_across_module_callbacks "$r"

r=""
kpmc -k 3 -c pmc0 -- /bin/true >$OUT/k3.txt 2>&1 && r="kpmc -k 3 accepted;"
grep -q "power of two" $OUT/k3.txt || r="$r no reason for -k 3: $(cat $OUT/k3.txt);"
kpmc -k 8 -A -c pmc0,ebs0=1000000 -- "$BIN/loop" 5000000 >$OUT/k8.txt 2>&1 || r="$r kpmc -k 8 failed: $(cat $OUT/k8.txt);"
exec 3<>/proc/kpmc/monitor
printf 'ring=1000' >&3 2>/dev/null && r="$r ring=1000 accepted;"
printf 'ring=x' >&3 2>/dev/null && r="$r ring=x accepted;"
exec 3>&-
verdict arm64_ring_size_option "$r"
rmmod kpmc

# Stress: 2,000 short-lived threads created while monitored with EBS active
# (each spins 20,000 iterations: 40,000 user cycles, 4 samples at 10,000);
# then every object kpmc allocated is gone, and rmmod is clean.
r=""
load
kpmc -k 65536 -A -c pmc0,ebs0=10000 -- "$BIN/spawnmany" 2000 20000 >$OUT/stress.txt 2>&1 ||
	r="kpmc failed: $(tail -n 3 $OUT/stress.txt);"
# -A rows: pid tid records pmc0; the 2,000 workers retire 40,000 + a few each.
rows=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && $4 >= 40000 && $4 <= 41000 { n++ } END { print n + 0 }' $OUT/stress.txt)
[ "$rows" -eq 2000 ] || r="$r $rows worker threads with 40,000..41,000 user cycles, expected 2000;"
samples=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && $4 >= 40000 && $4 <= 41000 && $3 == 5 { n++ } END { print n + 0 }' $OUT/stress.txt)
[ "$samples" -eq 2000 ] || r="$r only $samples workers with 4 ebs + 1 exit records;"
grep -q "lost" $OUT/stress.txt && r="$r records lost;"
sleep 1
live=$(sed -n 's/^live_objects: \([0-9]*\).*/\1/p' /proc/kpmc/info)
[ "$live" = 0 ] || r="$r live objects after the run: $(grep live_objects /proc/kpmc/info);"
grep -q '^threads_lost: 0' /proc/kpmc/info || r="$r $(grep threads_lost /proc/kpmc/info);"
rmmod kpmc || r="$r rmmod failed;"
verdict arm64_stress_2000_threads_ebs "$r"
[ -n "$r" ] && head -n 12 $OUT/stress.txt

# 1,500 monitored threads alive at once: kpmc's thread table doubles from
# 1,024 buckets as it fills (from a work item, while lookups go on), and
# every thread is still found at every switch: each worker's EXIT record
# holds its 20,000 user instructions and a few (counted by the user-mode
# instruction counter, as in the 2,000-thread test above, which has at
# most 5 alive at once).
# While they live (asleep, until $OUT/go), a short session of one thread
# starts and ends beside them: its stop and close visit only its own
# threads (their per-session list), at most its one, where a walk of the
# table would visit 1,500 and more with IRQs off. One run of 1,500 threads
# serves both: on the debug kernels each such run costs minutes of make test.
r=""
rc=""
load
# A KASAN kernel's stacks are twice as large: its default limit on threads
# (memory / 8 stacks) is 2,048 in this guest.
tmax=$(cat /proc/sys/kernel/threads-max)
echo 8192 >/proc/sys/kernel/threads-max
rm -f $OUT/go
kpmc -k 4096 -A -c pmc1=0x8 -- "$BIN/manyalive" 1500 10000 $OUT/go >$OUT/manyalive.txt 2>&1 &
big=$!
i=0
until grep -q '^manyalive threads=' $OUT/manyalive.txt || [ $i -ge 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
kpmc -A -c pmc1=0x8 -- "$BIN/loop" 1000 >$OUT/small.txt 2>&1 || rc="the short session failed: $(tail -n 2 $OUT/small.txt);"
known=$(sed -n 's/^threads_known: //p' /proc/kpmc/info)
visited=$(sed -n 's/^close_visited: //p' /proc/kpmc/info)
touch $OUT/go
wait $big || r="kpmc failed: $(tail -n 3 $OUT/manyalive.txt);"
echo "$tmax" >/proc/sys/kernel/threads-max
set -- $(sed -n 's/^manyalive threads=1500 known=\([0-9]*\) buckets=\([0-9]*\)$/\1 \2/p' $OUT/manyalive.txt)
# The states: the 1,501 threads of the program, and kpmc's own (idle: it configured the session).
if [ $# -ne 2 ]; then
	r="$r no manyalive line: $(grep manyalive $OUT/manyalive.txt);"
else
	[ "$1" -ge 1501 ] && [ "$1" -le 1503 ] || r="$r $1 thread states known with 1,501 threads alive;"
	[ "$2" = 2048 ] || r="$r the table has $2 buckets for $1 states, expected 2048;"
fi
echo "manyalive: $(grep '^manyalive' $OUT/manyalive.txt); workers' pmc1: $(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && $4 < 1000000 {
	if (min == "" || $4 < min) min = $4; if ($4 > max) max = $4 } END { print min ".." max }' $OUT/manyalive.txt)"
rows=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && $4 >= 20000 && $4 <= 21000 { n++ } END { print n + 0 }' $OUT/manyalive.txt)
[ "$rows" -eq 1500 ] || r="$r $rows worker threads with 20,000..21,000 user instructions, expected 1500;"
grep -q "lost" $OUT/manyalive.txt && r="$r records lost;"
grep -q '^threads_lost: 0' /proc/kpmc/info || r="$r $(grep threads_lost /proc/kpmc/info);"
echo "close beside 1,500 threads: threads_known $known, close_visited $visited"
[ "${known:-0}" -ge 1501 ] || rc="$rc $known thread states known while 1,500 threads lived;"
case $visited in [01]) ;; *) rc="$rc the short session's close visited ${visited:-?} thread states, expected at most its 1;" ;; esac
live=$(live_objects_drained) || r="$r $live;"
rmmod kpmc || r="$r rmmod failed;"
verdict arm64_1500_threads_alive_table_grows "$r"
[ -n "$r" ] && head -n 12 $OUT/manyalive.txt
verdict arm64_close_visits_only_its_own_threads "$rc"
