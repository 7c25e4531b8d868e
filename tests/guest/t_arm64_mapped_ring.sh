# arm64: the mapped ring (mmap of /proc/kpmc/monitor) and no-loss mode.
# mmapring (tests/progs/mmapring.c) reads the ring by its own implementation
# of the protocol in <linux/kpmc.h>; its child runs "loop N" monitored from
# its exec with pmc0,pmc1=0x8,ebs0=P: the cycle counter samples every P user
# cycles (exact under icount, where a cycle is an instruction), pmc1 counts
# instructions, so the records' pmc1 sum to the loop's user instructions.

# mm_field NAME FILE: NAME=VALUE of mmapring's summary line.
mm_field() {
	sed -n "s/^mmapring .* $1=\([0-9]*\).*/\1/p" "$2" | head -n 1
}

# noloss_field NAME: the count NAME of /proc/kpmc/info's "noloss:" line.
noloss_field() {
	sed -n "s/^noloss: .*[ :]$1 \([0-9]*\).*/\1/p" /proc/kpmc/info
}

# exited PID: the process is gone or a zombie.
exited() {
	[ ! -e /proc/$1/stat ] || [ "$(awk '{ print $3 }' /proc/$1/stat 2>/dev/null)" = Z ]
}

# hold_until_waiting PIDFILE WAITS_BEFORE: the held child's pid, once it waits
# (the info's waits past WAITS_BEFORE and the busy loop asleep), in $cp.
hold_until_waiting() {
	cp=""
	for i in $(seq 1 100); do
		sleep 0.1
		[ -s "$1" ] || continue
		cp=$(cat "$1")
		[ "$(noloss_field waits)" -gt "$2" ] && [ "$(awk '{ print $3 }' /proc/$cp/stat)" = S ] && return 0
	done
	return 1
}

# ---- byte for byte: the mapping and read() give the same records ----
# 1e7 iterations: about 2e7 instructions, 2,001 samples at P = 10,000 through
# a ring of 256 records (7 times round it at least). Each batch is copied from
# the mapping without moving data_tail, then read() takes as many records. In
# no-loss mode (released by read()): every sample is there, whatever the
# scheduler does with the reader.
N=10000000
P=10000
TOTAL=$(loop_total $N)
EXP=$((TOTAL / P))
load
r=""
"$BIN/mmapring" peek 256 $P $N $OUT/peek_a.bin $OUT/peek_b.bin >$OUT/peek.txt 2>&1 ||
	r="mmapring peek failed: $(cat $OUT/peek.txt);"
cat $OUT/peek.txt
recs=$(mm_field records $OUT/peek.txt)
ebs=$(mm_field ebs $OUT/peek.txt)
ex=$(mm_field exit $OUT/peek.txt)
lost=$(mm_field lost $OUT/peek.txt)
head=$(mm_field head $OUT/peek.txt)
sum=$(mm_field pmc1_sum $OUT/peek.txt)
recs=${recs:-0} ebs=${ebs:-0} ex=${ex:-0} lost=${lost:-0} head=${head:-0} sum=${sum:-0}
cmp $OUT/peek_a.bin $OUT/peek_b.bin >$OUT/cmp.txt 2>&1 || r="$r the mapped and read() streams differ: $(cat $OUT/cmp.txt);"
size=$(wc -c <$OUT/peek_a.bin)
[ "$size" -eq $((recs * 256)) ] || r="$r $size bytes for $recs records;"
[ "$ebs" -ge $((EXP - 1)) ] && [ "$ebs" -le $((EXP + 1)) ] && [ "$ex" -eq 1 ] && [ "$lost" -eq 0 ] ||
	r="$r $ebs ebs + $ex exit + $lost lost, expected $EXP (+/-1) + 1 + 0;"
[ "$recs" -eq $((ebs + ex)) ] || r="$r $recs records;"
[ "$head" -eq "$recs" ] && [ "$head" -ge $((7 * 256)) ] || r="$r data_head $head: not $recs, or the ring did not wrap 7 times;"
[ "$sum" -ge "$TOTAL" ] && [ "$sum" -le $((TOTAL + LLSC_SLACK)) ] ||
	r="$r pmc1 of the records sums to $sum, not $TOTAL;"
echo "peek: $recs records, $ebs ebs, $lost lost, data_head $head, expected $EXP ebs of $TOTAL instructions"
verdict arm64_mmap_ring_equals_read "$r"

# ---- no-loss: a ring of 16, a reader that sleeps 20 ms per batch ----
# 2.5e6 iterations: about 501 samples. With --no-loss every one arrives (the
# pmc1 sum is the loop's exact count) and the program finishes; without, the
# same run loses records, each one counted: delivered + lost = produced.
N=2500000
TOTAL=$(loop_total $N)
EXP=$((TOTAL / P))
r=""
w0=$(noloss_field waits)
d0=$(noloss_field drained)
"$BIN/mmapring" slow 16 $P $N 20 noloss >$OUT/noloss.txt 2>&1 || r="mmapring slow noloss failed: $(cat $OUT/noloss.txt);"
cat $OUT/noloss.txt
ebs=$(mm_field ebs $OUT/noloss.txt)
ex=$(mm_field exit $OUT/noloss.txt)
lost=$(mm_field lost $OUT/noloss.txt)
lrec=$(mm_field lost_records $OUT/noloss.txt)
lfield=$(mm_field lost_field $OUT/noloss.txt)
sum=$(mm_field pmc1_sum $OUT/noloss.txt)
waits=$(mm_field waits $OUT/noloss.txt)
rel=$(mm_field releases $OUT/noloss.txt)
ebs=${ebs:-0} ex=${ex:-0} sum=${sum:-0} waits=${waits:-0}
[ "$ebs" -ge $((EXP - 1)) ] && [ "$ebs" -le $((EXP + 1)) ] || r="$r $ebs ebs records, expected $EXP +/-1;"
[ "$ex" -eq 1 ] || r="$r $ex exit records;"
[ "$sum" -ge "$TOTAL" ] && [ "$sum" -le $((TOTAL + LLSC_SLACK)) ] || r="$r pmc1 of the records sums to $sum, not $TOTAL: samples missing;"
[ "$lost" = 0 ] && [ "$lrec" = 0 ] && [ "$lfield" = 0 ] || r="$r lost $lost in $lrec LOST records, control page lost=$lfield;"
# A wait per few samples: the thread waits above 8 records (16 less the
# headroom of 3 samples of 2 records and 2 more) until at most 4 are left.
[ "$waits" -ge $((EXP / 16)) ] && [ "$waits" -le $((EXP + 1)) ] || r="$r $waits waits for $EXP samples;"
[ "$rel" = "$waits" ] || r="$r $waits waits but $rel releases;"
w1=$(noloss_field waits)
d1=$(noloss_field drained)
[ $((w1 - w0)) -eq "$waits" ] && [ $((d1 - d0)) -eq "$waits" ] ||
	r="$r info: $((w1 - w0)) waits, $((d1 - d0)) released by the reader, the session says $waits;"
echo "noloss: $ebs ebs (expected $EXP), pmc1 $sum of $TOTAL, $waits waits"
E_NOLOSS=$ebs
verdict arm64_noloss_every_sample_delivered "$r"

r=""
"$BIN/mmapring" slow 16 $P $N 20 loss >$OUT/loss.txt 2>&1 || r="mmapring slow loss failed: $(cat $OUT/loss.txt);"
cat $OUT/loss.txt
ebs=$(mm_field ebs $OUT/loss.txt)
ex=$(mm_field exit $OUT/loss.txt)
lost=$(mm_field lost $OUT/loss.txt)
lfield=$(mm_field lost_field $OUT/loss.txt)
waits=$(mm_field waits $OUT/loss.txt)
ebs=${ebs:-0} ex=${ex:-0} lost=${lost:-0}
# The same program samples the same number of times: delivered + lost is exact.
[ $((ebs + ex + lost)) -eq $((E_NOLOSS + 1)) ] ||
	r="$r $ebs ebs + $ex exit + $lost lost != $E_NOLOSS samples + 1 exit;"
[ "$lost" = "$lfield" ] || r="$r LOST records tell $lost, the control page $lfield;"
# 16 records per 20 ms batch cannot keep up with the loop: most are lost.
[ "$lost" -ge $((EXP / 2)) ] || r="$r only $lost of $EXP lost without no-loss mode;"
[ "$waits" = 0 ] || r="$r $waits waits without no-loss mode;"
echo "loss: $ebs ebs + $ex exit delivered, $lost lost"
verdict arm64_ring_loss_without_noloss_counted "$r"

# ---- the CLI: mapped by default, --no-loss, --no-mmap ----
r=""
kpmc -k 16 --no-loss -A -c pmc0,pmc1=0x8,ebs0=$P -- "$BIN/loop" $N >$OUT/cli.txt 2>&1 || r="kpmc --no-loss failed: $(tail -n 3 $OUT/cli.txt);"
kpmc --no-mmap -k 16 --no-loss -A -c pmc0,pmc1=0x8,ebs0=$P -- "$BIN/loop" $N >$OUT/cli_read.txt 2>&1 ||
	r="$r kpmc --no-mmap --no-loss failed: $(tail -n 3 $OUT/cli_read.txt);"
for f in cli cli_read; do
	# -A rows: pid tid records pmc0 pmc1
	set -- $(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { print $3, $5; exit }' $OUT/$f.txt)
	[ "${1:-0}" -eq $((E_NOLOSS + 1)) ] || r="$r $f: ${1:-0} records, expected $((E_NOLOSS + 1));"
	[ "${2:-0}" -ge "$TOTAL" ] && [ "${2:-0}" -le $((TOTAL + LLSC_SLACK)) ] || r="$r $f: pmc1 ${2:-0}, not $TOTAL;"
	grep -q "lost" $OUT/$f.txt && r="$r $f: records lost;"
done
echo "cli: $(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/' $OUT/cli.txt)"
verdict arm64_cli_mapped_noloss "$r"
[ -n "$r" ] && cat $OUT/cli.txt $OUT/cli_read.txt

# ---- the reader dies while the monitored thread waits ----
# hold: no-loss, ring 16, never reads. Its child (1e8 instructions) fills the
# ring and waits; kill -9 of the reader releases it at once, and it finishes.
r=""
w0=$(noloss_field waits)
g0=$(noloss_field reader_gone)
rm -f $OUT/hold.pid
"$BIN/mmapring" hold 16 $P 50000000 $OUT/hold.pid >$OUT/hold.txt 2>&1 &
rp=$!
hold_until_waiting $OUT/hold.pid "$w0" || r="the child never waited: $(grep noloss /proc/kpmc/info) state $(cat /proc/$cp/stat 2>/dev/null | awk '{ print $3 }');"
kill -9 $rp
wait $rp 2>/dev/null
for i in $(seq 1 300); do exited "$cp" && break; sleep 0.1; done
exited "$cp" || r="$r the child ($cp) did not finish: state $(awk '{ print $3 }' /proc/$cp/stat);"
w1=$(noloss_field waits)
g1=$(noloss_field reader_gone)
[ $((w1 - w0)) -eq 1 ] && [ $((g1 - g0)) -eq 1 ] || r="$r $((w1 - w0)) waits, $((g1 - g0)) released by the reader's death, expected 1 and 1;"
echo "reader killed: $(grep noloss /proc/kpmc/info)"
rmmod kpmc || r="$r rmmod failed;"
verdict arm64_noloss_reader_killed_releases "$r"

# ---- the waiting thread is killed ----
r=""
load
rm -f $OUT/hold.pid
"$BIN/mmapring" hold 16 $P 50000000 $OUT/hold.pid >$OUT/hold2.txt 2>&1 &
rp=$!
hold_until_waiting $OUT/hold.pid 0 || r="the child never waited: $(grep noloss /proc/kpmc/info);"
kill -9 "$cp"
for i in $(seq 1 50); do exited "$cp" && break; sleep 0.1; done
exited "$cp" || r="$r the killed child ($cp) is still there: state $(awk '{ print $3 }' /proc/$cp/stat);"
[ "$(noloss_field signal)" = 1 ] && [ "$(noloss_field waits)" = 1 ] ||
	r="$r $(grep noloss /proc/kpmc/info), expected 1 wait ended by a signal;"
kill -9 $rp
wait $rp 2>/dev/null
rmmod kpmc || r="$r rmmod failed;"
verdict arm64_noloss_waiting_thread_killed "$r"

# ---- unload while the thread waits (the reader alive, ring mapped) ----
r=""
load
dmesg -c >/dev/null
rm -f $OUT/hold.pid
"$BIN/mmapring" hold 16 $P 50000000 $OUT/hold.pid >$OUT/hold3.txt 2>&1 &
rp=$!
hold_until_waiting $OUT/hold.pid 0 || r="the child never waited: $(grep noloss /proc/kpmc/info);"
rmmod kpmc || r="$r rmmod failed while a thread waits;"
for i in $(seq 1 300); do exited "$cp" && break; sleep 0.1; done
exited "$cp" || r="$r the child ($cp) did not finish after the unload;"
dmesg | grep -q 'kpmc: the unload released 1 no-loss waits' || r="$r no dmesg line for the released wait: $(dmesg | grep kpmc | tail -n 3);"
kill -9 $rp
wait $rp 2>/dev/null
dmesg | grep -qiE 'leak|BUG|WARNING' && r="$r dmesg: $(dmesg | grep -iE 'leak|BUG|WARNING' | head -n 3);"
verdict arm64_noloss_unload_releases "$r"

# ---- refused mappings, a bogus data_tail ----
# Each refusal has its errno and a dmesg line naming what was wrong; a
# data_tail 5 past an empty ring drops what there was, nothing: the kernel
# answers it once with its own tail, and the reader gets all 15 samples of
# 750,000 two-instruction iterations at 100,000 (the same value applied
# at every push cost the first 5 before).
r=""
load
dmesg -c >/dev/null
"$BIN/mmapring" badmap 16 750000 >$OUT/badmap.txt 2>&1 || r="mmapring badmap failed;"
cat $OUT/badmap.txt
for want in "data_prot_write errno=EPERM" "offset_2_pages errno=EINVAL" \
	"data_length_plus_page errno=EINVAL" "control_2_pages errno=EINVAL" \
	"control_private errno=EINVAL" "mprotect_write errno=EACCES" \
	"resize_after_mmap errno=EBUSY" "control_read_only mapped" \
	"control version=1 record_size=256 capacity=16 data_offset=4096 data_size=4096" \
	"bogus_tail ebs_read=15 other=1"; do
	grep -q "^badmap $want" $OUT/badmap.txt || r="$r no '$want';"
done
dmesg >$OUT/badmap.dmesg
for want in "mmap of the records with PROT_WRITE" "mmap at offset 2 pages" \
	"mmap of 8192 bytes at offset 1 pages" "mmap of 8192 bytes at offset 0 pages" \
	"mmap of the ring with MAP_PRIVATE" "ring=64: the ring of 16 records is mapped"; do
	grep -q "kpmc: monitor: $want" $OUT/badmap.dmesg || r="$r no dmesg line '$want';"
done
for bad in "ring=16,nolos" "ring=16,noloss,x" "nolossx"; do
	try_write /proc/kpmc/monitor "$bad" && r="$r '$bad' accepted;"
done
grep -q "expected ring=N, ring=N,noloss, noloss, wakeup=MS, wakeup=watermark or unprivileged" /proc/kpmc/last_error 2>/dev/null ||
	dmesg | grep -q "expected ring=N, ring=N,noloss, noloss, wakeup=MS, wakeup=watermark or unprivileged" || r="$r no reason for a bad monitor command;"
# No-loss needs room for 3 samples of 2 records and 2 more: a ring of 4 is too small.
kpmc -k 4 --no-loss -c pmc0 -- /bin/true >$OUT/small.txt 2>&1 && r="$r a ring of 4 accepted for no-loss;"
grep -q "need 8 (3 samples and 2 records in flight), a ring of 8" $OUT/small.txt ||
	r="$r no reason for the small no-loss ring: $(cat $OUT/small.txt);"
# A tail far past head after records were lost: the kernel drops what
# there is, tells the loss in a LOST record, and a blocking read() that
# poll() sent returns it (the bogus tail used to be applied again at the
# read, dropping the LOST record too: the read slept with nothing to take).
"$BIN/mmapring" tailjump 16 2000000 >$OUT/tailjump.txt 2>&1 || r="$r tailjump: $(cat $OUT/tailjump.txt);"
cat $OUT/tailjump.txt
grep -q '^tailjump poll=1 read=1 kind=5 lost=[1-9]' $OUT/tailjump.txt || r="$r no LOST record after the tail jump;"
rmmod kpmc || r="$r rmmod failed;"
verdict arm64_mmap_ring_bad_input "$r"
[ -n "$r" ] && cat $OUT/badmap.dmesg | grep kpmc
