# arm64 (QEMU cortex-a57, -icount shift=0): exact per-thread counts.
# loop.c runs 2 instructions per iteration, so runs of N and 2N iterations
# differ by exactly 2N user-mode instructions (and cycles: at shift=0 one
# instruction takes one cycle). N and 2N have the same number of digits, so
# the program's own argument parsing costs the same in both runs.
N=3000000
CFG="pmc0,pmc1=0x8,usr1=1,os1=0"

load
r=""
grep -q '^backend: arm64-pmuv3' /proc/kpmc/info || r="backend is not arm64-pmuv3"
grep -q '^counters: 7' /proc/kpmc/info || r="$r; expected 7 counters (cycle + 6)"
# Debian's kernel: tracepoints; the patched tier's: the scheduler's pmc_ops.
hooks=tracepoints
debug_kernel && hooks=pmc_ops
grep -q "^hooks: $hooks" /proc/kpmc/info || r="$r; hook source is not $hooks"
verdict arm64_info "$r"
[ -n "$r" ] && cat /proc/kpmc/info

# Exact differential count, single thread; also the exit status passes through.
# Each figure is the smaller of two runs: now and then a run counts a few
# more user instructions on both counters -- an LL/SC retry in libc's start-up
# or exit (see LLSC_SLACK in lib.sh); it only ever adds, so the minimum of two
# runs is the program's exact count (unless both runs retried: rarer still).
run_single() { # ITER OUTFILE
	kpmc -A -c "$CFG" -- "$BIN/loop" "$1" >"$2" 2>"$2.err"
}
best_of_two() { # ITER OUTFILE COLUMN -> the smaller total of two runs
	run_single "$1" "$2" || echo "kpmc failed: $(cat $2.err)" >&2
	a=$(single_total "$2" "$3")
	run_single "$1" "$2.b" || echo "kpmc failed: $(cat $2.b.err)" >&2
	b=$(single_total "$2.b" "$3")
	[ -n "$a" ] && [ -n "$b" ] && { [ "$a" -le "$b" ] && echo "$a" || echo "$b"; }
}
r=""
i1=$(best_of_two $N $OUT/n.txt 5); i2=$(best_of_two $((2 * N)) $OUT/2n.txt 5)
c1=$(single_total $OUT/n.txt 4); c2=$(single_total $OUT/2n.txt 4)
c1b=$(single_total $OUT/n.txt.b 4); c2b=$(single_total $OUT/2n.txt.b 4)
[ -n "$c1b" ] && [ "$c1b" -lt "${c1:-0}" ] && c1=$c1b
[ -n "$c2b" ] && [ "$c2b" -lt "${c2:-0}" ] && c2=$c2b
echo "exact_diff: instructions N=$i1 2N=$i2 cycles N=$c1 2N=$c2"
[ -n "$i1" ] && [ -n "$i2" ] && [ $((i2 - i1)) -eq $((2 * N)) ] ||
	r="$r instructions differ by $((i2 - i1)), expected $((2 * N));"
[ -n "$c1" ] && [ -n "$c2" ] && [ $((c2 - c1)) -eq $((2 * N)) ] ||
	r="$r cycles differ by $((c2 - c1)), expected $((2 * N));"
# The absolute count: 2N plus the program's constant start-up/exit code.
[ -n "$i1" ] && [ "$i1" -ge $((2 * N)) ] && [ "$i1" -le $((2 * N + 20000)) ] ||
	r="$r N run counted $i1, expected 2N + <20000 of start-up;"
verdict arm64_exact_instructions_and_cycles "$r"
[ -n "$r" ] && cat $OUT/n.txt $OUT/2n.txt

# Repeatability: the same measurement again counts the same.
r=""
i3=$(best_of_two $N $OUT/n_again.txt 5)
[ "$i3" = "$i1" ] || r="same run counted $i1 then $i3"
verdict arm64_repeatable "$r"

# Exit status of the monitored program is kpmc's.
kpmc -c "$CFG" -- /bin/sh -c 'exit 7' >/dev/null 2>&1
st=$?
[ $st -eq 7 ] && pass arm64_exit_status || fail arm64_exit_status "kpmc exited $st, program 7"

# Two threads, interleaved by preemption on one CPU: each thread's count is exact.
NT=20000000
r=""
# Each run twice, each thread's smaller count (see best_of_two above).
for k in 1 2; do
	kpmc -A -c "$CFG" -- "$BIN/loop" -t $NT $((2 * NT)) >$OUT/t1.$k.txt 2>&1 || r="$r kpmc failed;"
	kpmc -A -c "$CFG" -- "$BIN/loop" -t $((2 * NT)) $((4 * NT)) >$OUT/t2.$k.txt 2>&1 || r="$r kpmc failed;"
	thread_column $OUT/t1.$k.txt 5 >$OUT/t1.$k.col
	thread_column $OUT/t2.$k.txt 5 >$OUT/t2.$k.col
done
for t in t1 t2; do
	paste $OUT/$t.1.col $OUT/$t.2.col | awk '{ print $1, ($2 < $4 ? $2 : $4) }' >$OUT/$t.col
done
# Rows sorted by tid: main thread, thread A, thread B.
a1=$(awk 'NR == 2 { print $2 }' $OUT/t1.col); b1=$(awk 'NR == 3 { print $2 }' $OUT/t1.col)
a2=$(awk 'NR == 2 { print $2 }' $OUT/t2.col); b2=$(awk 'NR == 3 { print $2 }' $OUT/t2.col)
nthreads=$(wc -l <$OUT/t1.col)
echo "threads: A $a1 -> $a2, B $b1 -> $b2"
[ "$nthreads" -eq 3 ] || r="$r expected 3 threads, saw $nthreads;"
[ -n "$a2" ] && [ $((a2 - a1)) -eq $((2 * NT)) ] || r="$r thread A differs by $((a2 - a1)), expected $((2 * NT));"
[ -n "$b2" ] && [ $((b2 - b1)) -eq $((4 * NT)) ] || r="$r thread B differs by $((b2 - b1)), expected $((4 * NT));"
# Proof that they interleaved: sampled every 5 ms, the threads' records
# alternate many times in the trace.
kpmc -c "$CFG" -T 0.005 -- "$BIN/loop" -t $NT $((2 * NT)) >$OUT/t3.txt 2>&1 || r="$r kpmc -T failed;"
turns=$(awk '$4 == "tick" { if (last != "" && $3 != last) n++; last = $3 } END { printf "%d\n", n }' $OUT/t3.txt)
echo "threads: $turns alternations between threads in the sampled trace"
[ "$turns" -ge 4 ] || r="$r threads did not interleave ($turns alternations);"
verdict arm64_two_threads_exact "$r"
[ -n "$r" ] && cat $OUT/t1.1.txt $OUT/t2.1.txt

# Counter wrap: every counter starts 1000 events before it wraps at every
# switch-in, so every interval crosses the wrap; counts must stay exact.
load wrap_test_distance=1000
r=""
# The smaller of two runs each (see best_of_two above).
w1=$(best_of_two $N $OUT/wn.txt 5); w2=$(best_of_two $((2 * N)) $OUT/w2n.txt 5)
wc1=$(single_total $OUT/wn.txt 4); wc1b=$(single_total $OUT/wn.txt.b 4)
[ -n "$wc1b" ] && [ "$wc1b" -lt "${wc1:-0}" ] && wc1=$wc1b
[ "$w1" = "$i1" ] || r="with wraps N run counted $w1, without $i1;"
[ -n "$w2" ] && [ $((w2 - w1)) -eq $((2 * N)) ] || r="$r wrap diff $((w2 - w1));"
[ "$wc1" = "$c1" ] || r="$r 64-bit cycle counter across wrap counted $wc1, expected $c1;"
verdict arm64_counter_wrap_exact "$r"
load

# Time-based sampling: -T 0.05 on a 0.2 s (guest time) loop gives 4 samples +-1,
# and the per-sample deltas sum to the total of an unsampled run.
NS=100000000
r=""
kpmc -c "$CFG" -T 0.05 -- "$BIN/loop" $NS >$OUT/tbs.txt 2>&1 || r="kpmc -T failed;"
kpmc -c "$CFG" -T 0.05 -- "$BIN/loop" $NS >$OUT/tbs2.txt 2>&1 || r="$r kpmc -T failed;"
ticks=$(trace_count $OUT/tbs.txt tick)
exits=$(trace_count $OUT/tbs.txt exit)
# Smaller of two runs on both sides (see best_of_two above).
sum=$(trace_sum $OUT/tbs.txt 6)
sum2=$(trace_sum $OUT/tbs2.txt 6)
[ "$sum2" -lt "$sum" ] && sum=$sum2
total=$(best_of_two $NS $OUT/notbs.txt 5)
echo "tbs: $ticks tick records, $exits exit, sum $sum, unsampled total $total"
[ "$ticks" -ge 3 ] && [ "$ticks" -le 5 ] || r="$r $ticks tick records, expected 4+-1;"
[ "$exits" -eq 1 ] || r="$r $exits exit records;"
[ "$sum" = "$total" ] || r="$r sampled sum $sum != total $total;"
verdict arm64_tbs_samples_and_sum "$r"
[ -n "$r" ] && cat $OUT/tbs.txt
