# arm64: libkpmc's fast read path (mmap'd page of /proc/kpmc/self, counters
# read at EL0 under PMUSERENR_EL0 granted by kpmc while the thread runs).
# Exactness is differential (see tests/progs/fastpath.c): with the same
# instructions between a fast read and a read(), the difference minus the
# work in between is one constant for any amount of work, in both orders.
load
fp="$BIN/fastpath"

# The fast path is taken, and equals read() exactly.
r=""
"$fp" pairs >$OUT/fp_pairs.txt 2>&1 || r="fastpath pairs failed: $(cat $OUT/fp_pairs.txt);"
cat $OUT/fp_pairs.txt
grep -q '^pairs constant=yes$' $OUT/fp_pairs.txt || r="$r fast and read() counts differ by more than the code between them;"
# The code between them is small: its count is no artefact of a path that counts more.
awk '/^pairs n=/ { split($3, a, "="); split($4, b, "=");
	if (a[2] < 0 || a[2] > 2000 || b[2] < 0 || b[2] > 2000) bad = 1 } END { exit bad }' \
	$OUT/fp_pairs.txt || r="$r the gap between the two paths is out of 0..2000 instructions;"
verdict arm64_fastpath_equals_read "$r"

# The lean read of one counter (kpmc_read_counter): exact on the fast path
# (forced: success means fast) and on read(), against itself and against
# kpmc_read; cycles readable, an uncounted pmc -ENOENT, a bad one -EINVAL;
# kpmc_set_read_path from one thread sends another's next read to read() and back.
r=""
"$fp" one >$OUT/fp_one.txt 2>&1 || r="fastpath one failed: $(cat $OUT/fp_one.txt);"
cat $OUT/fp_one.txt
grep -q '^one constant=yes cycles=1 enoent=1 einval=1 modes=1$' $OUT/fp_one.txt || r="$r lean reads not exact, or wrong errors;"
awk '/^one n=1 / { for (i = 3; i <= 5; i++) { split($i, a, "="); if (a[2] < 0 || a[2] > 2000) bad = 1 } } END { exit bad }' \
	$OUT/fp_one.txt || r="$r a gap between lean reads is out of 0..2000 instructions;"
verdict arm64_fastpath_read_counter_exact "$r"

# Regions over the fast path: long - short exact, as over read() (t_arm64_libkpmc.sh).
# A fast read that a switch or the fold timer interrupts retries (its page's
# seq moved), and a retry inside a region's closing read is counted in that
# region: some 8 instructions each, seen once as 8,000,016 on 6.12 under a
# loaded host (interrupt timing follows host time). So: exact in one of up to
# three runs, and no run beyond a few retries.
r=""
exact=0
for i in 1 2 3; do
	KPMC_READ_PATH=fast "$BIN/regions" >$OUT/fp_regions.txt 2>&1 || r="$r regions on the fast path failed: $(cat $OUT/fp_regions.txt);"
	cat $OUT/fp_regions.txt
	d=$(sed -n 's/^regions long-short=//p' $OUT/fp_regions.txt)
	# A retry can fall in either region's closing read: in the short one it
	# takes its instructions off the difference (7,999,991 seen on 6.1).
	[ -n "$d" ] && [ "$d" -ge 7999936 ] && [ "$d" -le 8000064 ] ||
		r="$r long - short '$d' is not 8,000,000 (up to 8 retries of 8 in either region);"
	grep -q '^regions path fast=[1-9][0-9]* read=0$' $OUT/fp_regions.txt || r="$r regions did not read through the fast path only;"
	[ "$d" = 8000000 ] && { exact=1; break; }
done
[ $exact = 1 ] || r="$r long - short not exactly 8,000,000 on the fast path in 3 runs;"
verdict arm64_fastpath_regions_exact "$r"

# Two threads, each its own page; the same code counts the same in both.
r=""
"$fp" threads >$OUT/fp_threads.txt 2>&1 || r="fastpath threads failed: $(cat $OUT/fp_threads.txt);"
cat $OUT/fp_threads.txt
grep -q '^threads own_page=1,1 .* same=yes$' $OUT/fp_threads.txt || r="$r pages not per thread, or deltas differ;"
verdict arm64_fastpath_two_threads "$r"

# A thread exits while its page is mapped: the page outlives its state, says
# "not counting", and unmapping it afterwards is clean (the host checks dmesg).
r=""
"$fp" exit >$OUT/fp_exit.txt 2>&1 || r="fastpath exit failed: $(cat $OUT/fp_exit.txt);"
cat $OUT/fp_exit.txt
grep -q '^exit flags=0 seq_even=1 nr=0$' $OUT/fp_exit.txt || r="$r the exited thread's page does not say 'not counting';"
verdict arm64_fastpath_thread_exit "$r"

# Preempted many times while reading: monotonic, and at the end the fast path
# still agrees with read() to the instruction. Then again with counters that
# start 5000 events before they wrap at every switch-in (width masking), and
# with perf events waiting for counters in another process: perf re-enables
# the PMU (clearing PMUSERENR_EL0) at its rotations and switches, and kpmc
# must put the grant back for its thread, or a fast read traps (SIGILL).
for run in wrap0 wrap5000 perf; do
	r=""
	case $run in
	wrap*) load wrap_test_distance=${run#wrap}; arg="" ;;
	perf) load; arg=perf ;;
	esac
	"$fp" preempt $arg >$OUT/fp_preempt.txt 2>&1 || r="fastpath preempt $arg failed: $(cat $OUT/fp_preempt.txt);"
	cat $OUT/fp_preempt.txt
	set -- $(sed -n 's/^preempt reads fast=\([0-9]*\) read=\([0-9]*\) backwards=\([0-9]*\) preempted=\([0-9]*\) .* same=\([a-z]*\)$/\1 \2 \3 \4 \5/p' $OUT/fp_preempt.txt)
	[ "$1" = 200000 ] && [ "$2" = 0 ] || r="$r not every read took the fast path ($1 fast, $2 read());"
	[ "$3" = 0 ] || r="$r counts went backwards $3 times;"
	[ -n "$4" ] && [ "$4" -gt 0 ] || r="$r the reader was never preempted;"
	[ "$5" = yes ] || r="$r fast path and read() disagree after the preemptions;"
	if [ $run = perf ]; then
		# perf kept trying (enabled time grew) and never got a counter.
		grep -q '^perf cpu_event=open own_event enabled_ns=[1-9][0-9]* running_ns=0$' $OUT/fp_preempt.txt ||
			r="$r perf's events were not waiting for a counter all along;"
	fi
	verdict arm64_fastpath_preempted_$run "$r"
done

# EL0 access withheld (user_access=0): the page says "use read()", libkpmc
# falls back, and forcing the fast path fails with EOPNOTSUPP instead of a trap.
r=""
load
"$fp" probe >$OUT/fp_probe_on.txt 2>&1
echo 0 >/sys/module/kpmc/parameters/user_access
"$fp" probe >$OUT/fp_probe_off.txt 2>&1 || r="fastpath probe failed: $(cat $OUT/fp_probe_off.txt);"
echo 1 >/sys/module/kpmc/parameters/user_access
cat $OUT/fp_probe_on.txt $OUT/fp_probe_off.txt
grep -q '^probe auto_fast=10 auto_read=0 forced_fast=0$' $OUT/fp_probe_on.txt || r="$r granted: reads did not all take the fast path;"
grep -q '^probe auto_fast=0 auto_read=10 forced_fast=-95$' $OUT/fp_probe_off.txt || r="$r withheld: no clean fallback to read();"
verdict arm64_fastpath_fallback "$r"

# The mmap is strict: two pages, or a writable map, are refused with a dmesg line.
r=""
dmesg -c >/dev/null
"$fp" badmap >$OUT/fp_badmap.txt 2>&1 || r="fastpath badmap failed: $(cat $OUT/fp_badmap.txt);"
cat $OUT/fp_badmap.txt
grep -q '^badmap two_pages=-22 writable=-22$' $OUT/fp_badmap.txt || r="$r bad maps not refused with EINVAL;"
dmesg | grep -q 'kpmc: self: mmap of 8192 bytes' || r="$r no dmesg line for the two-page map;"
dmesg | grep -q 'kpmc: self: mmap with PROT_WRITE' || r="$r no dmesg line for the writable map;"
verdict arm64_fastpath_mmap_strict "$r"

rmmod kpmc
