# arm64: how a session's reader is woken. Records are batched: the reader is
# woken when the ring is a quarter full or wakeup_ms after the first record
# it was not told about, and for every record with wakeup_ms=0.
# "wakeups 1e8" spins 2e8 instructions (200 ms of guest time) under a 1 ms
# time-based sample, so about 200 records come in.
P=/sys/module/kpmc/parameters

# wakeups_run NAME: run the program, leave "records wakeups detach" in $rec $wak $det.
wakeups_run() {
	"$BIN/wakeups" 100000000 >$OUT/$1.txt 2>&1 || r="$r $1: $(cat $OUT/$1.txt);"
	set -- $(sed -n 's/^wakeups records=\([0-9]*\) wakeups=\([0-9]*\) detach=\([0-9]*\)$/\1 \2 \3/p' $OUT/$1.txt)
	rec=${1:-0} wak=${2:-0} det=${3:-0}
	echo "wakeups: records=$rec wakeups=$wak detach=$det"
}

r=""
load
wakeups_run batched
[ "$rec" -ge 180 ] && [ "$rec" -le 220 ] || r="$r $rec records, expected 180..220;"
[ "$det" -eq 1 ] || r="$r $det detach records;"
# 200 ms at 20 ms: about 10 timer wakeups; never one per record, never only at the end.
[ "$wak" -ge 5 ] && [ "$wak" -le 16 ] || r="$r $wak wakeups for $rec records, expected 5..16 (wakeup_ms=20);"
verdict arm64_reader_wakeups_batched "$r"

r=""
echo 0 >$P/wakeup_ms
wakeups_run each
[ "$rec" -ge 180 ] && [ "$det" -eq 1 ] || r="$r $rec records, $det detach;"
# One wakeup per record, less those a pending wakeup absorbs: on PREEMPT_RT
# the wakeup's irq_work runs in a kthread (it takes the wait queue's lock,
# a sleeping lock there), so records taken before it ran share one (6.12
# RT: 198 for 247).
min=$((rec * 9 / 10))
case $(uname -v) in *PREEMPT_RT*) min=$((rec * 7 / 10)) ;; esac
[ "$wak" -ge "$min" ] || r="$r $wak wakeups for $rec records with wakeup_ms=0;"
verdict arm64_reader_wakeups_per_record "$r"

r=""
load ring_records=16 wakeup_ms=1000
# Only this run's sessions count (other tests lose records on purpose).
d0=$(dmesg | grep -c 'records dropped')
wakeups_run watermark
[ "$rec" -ge 180 ] && [ "$det" -eq 1 ] || r="$r $rec records, $det detach;"
# A quarter of 16 is 4: one wakeup per 4 records; the 1 s timer never fires first.
[ "$wak" -ge $((rec / 5)) ] && [ "$wak" -le $((rec / 4 + 2)) ] ||
	r="$r $wak wakeups for $rec records, expected about one per 4;"
# None dropped: the reader is woken 12 records before the ring is full. On
# PREEMPT_RT the wakeup runs in the irq_work kthread (the wait queue's lock
# sleeps there), which a debug kernel's single CPU may run late: at most a
# few records of one session (seen: 1).
if [ "$(dmesg | grep -c 'records dropped')" -ne "$d0" ]; then
	dropped=$(dmesg | grep 'records dropped' | tail -n 1 | sed 's/.*with \([0-9]*\) records dropped.*/\1/')
	case $(uname -v) in
	*PREEMPT_RT*) [ "${dropped:-99}" -le 4 ] && [ "$(dmesg | grep -c 'records dropped')" -eq $((d0 + 1)) ] ||
		r="$r records dropped: $(dmesg | grep 'records dropped' | tail -n1);" ;;
	*) r="$r records dropped: $(dmesg | grep 'records dropped' | tail -n1);" ;;
	esac
fi
verdict arm64_reader_wakeups_watermark "$r"
rmmod kpmc
