# arm64: event-based sampling. "loop N" retires 2N + about 11,000 user
# instructions (N = 5e6: 10,011,013 on Debian's kernel; measured here, in this
# boot, by a counting run); at -icount shift=0 the user-mode cycle counter
# counts the same.
LOOPN=5000000
TOTAL=$(loop_total $LOOPN)

# ebs_rows FILE: "period pmc0 pmc1" of the ebs records of a trace with a period column.
ebs_rows() {
	awk '$4 == "ebs" { print $5, $6, $7 }' "$1"
}

load
# The cycle counter's overflow interrupt is exact under icount: every record
# holds the period to within the few instructions between the overflow and
# the interrupt (user mode only: the kernel's are not counted).
r=""
P=1000000
kpmc -c pmc0,pmc1=0x8,ebs0=$P -- "$BIN/loop" $LOOPN >$OUT/ebs0.txt 2>&1 || r="kpmc failed: $(tail -n 3 $OUT/ebs0.txt);"
n=$(trace_count $OUT/ebs0.txt ebs)
[ "$n" -ge $((TOTAL / P - 1)) ] && [ "$n" -le $((TOTAL / P + 1)) ] || r="$r $n ebs records, expected $((TOTAL / P)) +/-1;"
bad=$(ebs_rows $OUT/ebs0.txt | awk -v p=$P '$1 != p || $2 < p || $2 > p + 8 { n++ } END { print n + 0 }')
[ "$bad" -eq 0 ] || r="$r $bad ebs records with period != $P or pmc0 outside [$P, $P+8]: $(ebs_rows $OUT/ebs0.txt | head -n 3 | tr '\n' ';')"
sum=$(trace_sum $OUT/ebs0.txt 6)
[ "$sum" -ge $TOTAL ] && [ "$sum" -le $((TOTAL + LLSC_SLACK)) ] || r="$r pmc0 records sum to $sum, not $TOTAL (+LL/SC retries);"
sum=$(trace_sum $OUT/ebs0.txt 7)
[ "$sum" -ge $TOTAL ] && [ "$sum" -le $((TOTAL + LLSC_SLACK)) ] || r="$r pmc1 records sum to $sum, not $TOTAL (+LL/SC retries);"
echo "ebs0: $n records, first: $(ebs_rows $OUT/ebs0.txt | head -n 2 | tr '\n' ';')"
verdict arm64_ebs_cycle_counter_exact "$r"
[ -n "$r" ] && head -n 20 $OUT/ebs0.txt

# An event counter's overflow interrupt comes late in QEMU 7.2 under icount
# (when the PMU is next accessed or at a timer), so each record may hold more
# than P events; kpmc catches an overflow at its next fold at the latest
# (switch, or its 50 ms timer: 5e7 instructions). The sum stays exact.
r=""
P=2000000
kpmc -c pmc1=0x8,ebs1=$P -- "$BIN/loop" $((LOOPN * 4)) >$OUT/ebs1.txt 2>&1 || r="kpmc failed: $(tail -n 3 $OUT/ebs1.txt);"
# 2e7 iterations: 40,011,047 on Debian's kernel, measured here
T4=$(loop_total $((LOOPN * 4)))
n=$(trace_count $OUT/ebs1.txt ebs)
[ "$n" -ge 1 ] && [ "$n" -le $((T4 / P + 1)) ] || r="$r $n ebs records, expected 1..$((T4 / P + 1));"
bad=$(awk '$4 == "ebs" { print $5, $6 }' $OUT/ebs1.txt | awk -v p=$P '$1 != p || $2 < p || $2 > p + 50000000 { n++ } END { print n + 0 }')
[ "$bad" -eq 0 ] || r="$r $bad ebs records outside [P, P+5e7];"
sum=$(trace_sum $OUT/ebs1.txt 6)
[ "$sum" -ge $T4 ] && [ "$sum" -le $((T4 + LLSC_SLACK)) ] || r="$r pmc1 records sum to $sum, not $T4 (+LL/SC retries);"
echo "ebs1: $n records, first: $(awk '$4 == "ebs" { print $5, $6 }' $OUT/ebs1.txt | head -n 3 | tr '\n' ';')"
verdict arm64_ebs_event_counter_bounded "$r"

# Randomized periods: a fixed seed gives the same stream twice; every period
# lies in [P-R, P+R], they are not all equal, and each record holds its own.
r=""
P=1000000 R=300000
for i in 1 2; do
	kpmc -c pmc0,ebs0=$P,rnd=$R,seed=12345 -- "$BIN/loop" $LOOPN >$OUT/rnd$i.txt 2>&1 || r="$r kpmc failed;"
	ebs_rows $OUT/rnd$i.txt >$OUT/rnd$i.rows
done
cmp -s $OUT/rnd1.rows $OUT/rnd2.rows || r="$r the two runs with seed 12345 differ;"
n=$(wc -l <$OUT/rnd1.rows)
[ "$n" -ge 7 ] || r="$r only $n records;"
bad=$(awk -v p=$P -v r=$R '$1 < p - r || $1 > p + r || $2 < $1 || $2 > $1 + 8 { n++ } END { print n + 0 }' $OUT/rnd1.rows)
[ "$bad" -eq 0 ] || r="$r $bad records with a period outside [P-R, P+R] or pmc0 not its period: $(head -n 3 $OUT/rnd1.rows | tr '\n' ';')"
distinct=$(awk '{ print $1 }' $OUT/rnd1.rows | sort -u | wc -l)
[ "$distinct" -ge $((n / 2)) ] || r="$r only $distinct distinct periods in $n records;"
kpmc -c pmc0,ebs0=$P,rnd=$R,seed=54321 -- "$BIN/loop" $LOOPN >$OUT/rnd3.txt 2>&1
ebs_rows $OUT/rnd3.txt >$OUT/rnd3.rows
cmp -s $OUT/rnd1.rows $OUT/rnd3.rows && r="$r seeds 12345 and 54321 gave the same stream;"
grep -q "sampling: pmc0 every $P +/- $R events (seed 12345" $OUT/rnd1.txt || r="$r header lacks the seed;"
echo "rnd: $n records, periods: $(awk '{ print $1 }' $OUT/rnd1.rows | head -n 5 | tr '\n' ' ')"
verdict arm64_ebs_randomized_periods "$r"

# Two threads sampling at once: each thread's samples are its own.
r=""
P=1000000
kpmc -c pmc0,ebs0=$P -- "$BIN/loop" -t 3000000 6000000 >$OUT/ebst.txt 2>&1 || r="kpmc failed;"
bad=$(ebs_rows $OUT/ebst.txt | awk -v p=$P '$2 < p || $2 > p + 8 { n++ } END { print n + 0 }')
[ "$bad" -eq 0 ] || r="$r $bad records outside [P, P+8];"
tids=$(awk '$4 == "ebs" { print $3 }' $OUT/ebst.txt | sort -u | wc -l)
[ "$tids" -eq 2 ] || r="$r samples from $tids threads, expected 2;"
n=$(trace_count $OUT/ebst.txt ebs)
[ "$n" -ge 16 ] && [ "$n" -le 18 ] || r="$r $n records, expected 18 (6e6 and 12e6 instructions) -2;"
verdict arm64_ebs_two_threads "$r"
rmmod kpmc
