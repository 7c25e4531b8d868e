# What an unprivileged user (uid 1000) tries against kpmc with Debian's
# defaults (unprivileged user namespaces on, perf_event_paranoid 2), each
# attempt against the rule it must not get around:
# - the ptrace check of an attach is of the task named, never of a path the
#   caller can redirect (its own /proc in a user and mount namespace, a link
#   to its own mem file or to a file of another file system);
# - a closed session leaves no thread counting, no PMU claim and no ring
#   behind, and stays charged to its user until freed;
# - a monitored thread that drains the ring (not the opener) never waits
#   on itself in no-loss mode.
U="$BIN/runas 1000"
P=/proc/sys/kernel/perf_event_paranoid
orig=$(cat $P)
echo 2 >$P
load
info_field() { sed -n "s/^$1: \([0-9]*\).*/\1/p" /proc/kpmc/info; }

# The victim: root's user-mode loop.
sh -c 'while :; do :; done' &
root_victim=$!
mkdir -p /tmp/atk && chmod 777 /tmp/atk
# attack TARGET LINK_TARGET OUT: as uid 1000 in its own user and mount
# namespaces, a private /proc where TARGET's mem is a link to LINK_TARGET (a
# path under the real procfs, bound at /tmp/atk/p), then the attach through
# /tmp/atk/p/kpmc. TARGET "own": a loop of the caller's, started in its
# namespace (the control: the kernel lets a process of a user namespace
# monitor, and ptrace, only processes of that namespace or below).
attack() {
	$U unshare -Urm sh -c "
		if [ $1 = own ]; then sh -c 'while :; do :; done' & v=\$!; else v=$1; fi
		mkdir -p /tmp/atk/p && mount -o rbind /proc /tmp/atk/p &&
		mount -t tmpfs none /proc && mkdir -p /proc/\$v &&
		ln -s $2 /proc/\$v/mem &&
		$BIN/kpmcattack attach /tmp/atk/p \$v 1
		[ $1 = own ] && kill \$v" >"$3" 2>&1
}
r=""
if $U unshare -Urm true 2>/dev/null; then
	$U "$BIN/kpmcattack" attach /proc $root_victim 1 >$OUT/atk_plain.txt 2>&1
	grep -q "attach=-1 errno=1$" $OUT/atk_plain.txt || r="plain attach to root's process: $(cat $OUT/atk_plain.txt);"
	attack $root_victim /tmp/atk/p/self/mem $OUT/atk_self.txt
	grep -q "attach=-1 errno=1$" $OUT/atk_self.txt || r="$r root's process through a link to the caller's own mem: $(cat $OUT/atk_self.txt);"
	# Files whose superblock is not a procfs: the old check dereferenced NULL there.
	attack $root_victim /tmp/atk/p/self/ns/net $OUT/atk_nsfs.txt
	grep -q "attach=-1 errno=1$" $OUT/atk_nsfs.txt || r="$r through a link to an nsfs file: $(cat $OUT/atk_nsfs.txt);"
	attack $root_victim /tmp/atk/p/kpmc/info $OUT/atk_info.txt
	grep -q "attach=-1 errno=1$" $OUT/atk_info.txt || r="$r through a link to another procfs file: $(cat $OUT/atk_info.txt);"
	# The control: the caller's own process, by the same route, is counted.
	attack own /tmp/atk/p/self/mem $OUT/atk_own.txt
	rec=$(sed -n 's/.*attach=0 records=\([0-9]*\).*/\1/p' $OUT/atk_own.txt)
	ins=$(sed -n 's/.* instructions=\([0-9]*\).*/\1/p' $OUT/atk_own.txt)
	{ [ "${rec:-0}" -ge 10 ] && [ "${ins:-0}" -ge 1000000 ]; } ||
		r="$r the caller's own process through its private /proc: $(cat $OUT/atk_own.txt) (want >= 10 records, >= 1e6 instructions);"
	echo "attacks: plain $(cat $OUT/atk_plain.txt); self/mem $(cat $OUT/atk_self.txt); nsfs $(cat $OUT/atk_nsfs.txt); own $(cat $OUT/atk_own.txt)"
else
	echo "attacks: no unprivileged user namespaces in this kernel: the namespace attacks cannot be staged"
fi
kill $root_victim
wait $root_victim 2>/dev/null
verdict arm64_attack_ptrace_check_not_redirectable "$r"

# Orphaned sessions: eight rounds of a 16 MiB ring with the user's own
# sleeper attached, the reader gone at once. Each must leave nothing: no
# session, no thread counting, perf's counter running (the count it
# had before, up to LLSC_SLACK), and the next round within the user's 16 MiB of rings.
r=""
$BIN/perfcount "$BIN/loop" 100000 >$OUT/orph_perf0.txt 2>&1
c0=$(sed -n 's/.*count=\([0-9]*\).*/\1/p' $OUT/orph_perf0.txt)
$U sleep 600 &
sleeper=$!
sleep 0.3
i=0
while [ $i -lt 8 ]; do
	$U "$BIN/kpmcattack" orphan 65536 $sleeper >$OUT/orph.txt 2>&1
	grep -q "orphan=0" $OUT/orph.txt || r="$r round $i: $(cat $OUT/orph.txt);"
	i=$((i + 1))
done
sleep 0.5
s=$(info_field sessions); m=$(info_field threads_monitored)
[ "$s" = 0 ] || r="$r $s sessions after the readers exited (want 0);"
[ "$m" = 0 ] || r="$r $m threads still monitored (want 0);"
$BIN/perfcount "$BIN/loop" 100000 >$OUT/orph_perf1.txt 2>&1
c1=$(sed -n 's/.*count=\([0-9]*\).*/\1/p' $OUT/orph_perf1.txt)
run1=$(sed -n 's/.*running=\([0-9]*\).*/\1/p' $OUT/orph_perf1.txt)
# Two runs of the same program: equal up to LLSC_SLACK (lib.sh; 211,015
# then 211,017 once).
{ within_slack "$c0" "$c1" && [ "${run1:-0}" -gt 0 ]; } ||
	r="$r perf beside the orphans: $(cat $OUT/orph_perf1.txt) (before them: count=$c0);"
kill $sleeper
wait $sleeper 2>/dev/null
sleep 0.3
lo=$(sed -n 's/^live_objects: \([0-9]*\).*/\1/p' /proc/kpmc/info)
[ "$lo" = 0 ] || r="$r $(grep live_objects /proc/kpmc/info) after the sleeper's exit;"
echo "attacks: orphans: sessions $s, monitored $m, perf $(cat $OUT/orph_perf1.txt), $(grep live_objects /proc/kpmc/info)"
verdict arm64_attack_orphan_sessions_leave_nothing "$r"

# No-loss mode: a monitored thread of the opener's process drains the ring
# while the opener sleeps, producing about 150 samples between two reads (a
# 64-record ring, high mark 56). It must never wait for itself: it reads at
# least 200 samples of its own (its last read may bring more) within 20 s. Waiting would need another reader; its
# overflow is counted lost instead (LOST records), as without no-loss mode.
r=""
$U "$BIN/kpmcattack" reader 200 >$OUT/reader.txt 2>&1
smp=$(sed -n 's/.*reader=0 samples=\([0-9]*\) .*/\1/p' $OUT/reader.txt)
[ "${smp:-0}" -ge 200 ] || r="$(cat $OUT/reader.txt) (want 200 samples read);"
lost=$(sed -n 's/.* lost=\([0-9]*\)$/\1/p' $OUT/reader.txt)
[ "${lost:-0}" -gt 0 ] || r="$r no loss counted, so the ring never passed its high mark: the test staged nothing;"
echo "attacks: no-loss reader thread: $(cat $OUT/reader.txt)"
verdict arm64_attack_noloss_reader_thread_never_waits_on_itself "$r"

noloss_field() { sed -n "s/^noloss:.* $1 \([0-9]*\).*/\1/p" /proc/kpmc/info; }

# No-loss mode: holding the session's file is not reading it. The opener
# exits at once, without reading; its child, attached, inherited the file
# and spins 10 million instructions (500 samples, a 64-record ring). Nobody
# will read: the child must run to its end (its overflow counted lost),
# never wait for a reader that is gone.
r=""
q0=$(noloss_field queued)
$U "$BIN/kpmcattack" inherit 5000000 >$OUT/inherit.txt 2>&1
child=$(sed -n 's/.*inherit child=\([0-9]*\).*/\1/p' $OUT/inherit.txt)
i=0
while [ -n "$child" ] && kill -0 "$child" 2>/dev/null && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
q1=$(noloss_field queued)
[ -n "$child" ] || r="no child: $(cat $OUT/inherit.txt);"
if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then
	r="$r the child still waits 30 s after its reader's exit ($(grep '^noloss' /proc/kpmc/info));"
	kill -9 "$child"
fi
[ "$q1" -gt "$q0" ] || r="$r no no-loss wait was due (queued $q0 -> $q1): the test staged nothing;"
echo "attacks: no-loss, file inherited: child gone after $((i / 10)).$((i % 10)) s, waits queued $q0 -> $q1"
verdict arm64_attack_noloss_inherited_file_is_not_a_reader "$r"

# No-loss mode beside io_uring: each io_uring completion is task work that
# makes a signal look pending (TIF_NOTIFY_SIGNAL). The attached child queues
# 64 timeouts 10 ms apart, then spins 10 million instructions (500 samples)
# while its reader reads every 200 ms: it must wait out every full ring
# (no record lost, no wait ended as "signal"), as without io_uring.
r=""
d=/proc/sys/kernel/io_uring_disabled
ud=$(cat $d 2>/dev/null || echo 0)
[ -e $d ] && echo 0 >$d
s0=$(noloss_field signal); w0=$(noloss_field waits)
$U "$BIN/kpmcattack" uring 5000000 >$OUT/uring.txt 2>&1
s1=$(noloss_field signal); w1=$(noloss_field waits)
[ -e $d ] && echo "$ud" >$d
smp=$(sed -n 's/.*uring samples=\([0-9]*\) .*/\1/p' $OUT/uring.txt)
lost=$(sed -n 's/.*uring samples=.* lost=\([0-9]*\)$/\1/p' $OUT/uring.txt)
echo "attacks: no-loss beside io_uring: $(cat $OUT/uring.txt); waits $w0 -> $w1, ended by a signal $s0 -> $s1"
if grep -q "uring=nosys" $OUT/uring.txt; then
	# A kernel built without io_uring (CONFIG_IO_URING off).
	echo "attacks: no io_uring in this kernel: the no-loss wait beside it cannot be staged"
else
	[ "${smp:-0}" -ge 490 ] || r="$(cat $OUT/uring.txt) (want >= 490 samples);"
	[ "${lost:-1}" = 0 ] || r="$r $lost records lost;"
	[ "$s1" = "$s0" ] || r="$r $((s1 - s0)) waits ended as by a signal;"
	[ "$w1" -gt "$w0" ] || r="$r no wait began: the test staged nothing;"
fi
verdict arm64_attack_noloss_survives_io_uring_task_work "$r"

# A counted thread that is not its process's leader execs: exec gives it
# the process's number, and its records say so (they kept the dead thread's
# number, so a reader charged them to no process). Its count is the loop's
# 2N plus the little it ran before (its start, the exec's return to user).
r=""
N=1000000
$U "$BIN/kpmcattack" nlexec "$BIN/loop" $N >$OUT/nlexec.txt 2>&1
ch=$(sed -n 's/.* child=\([0-9]*\).*/\1/p' $OUT/nlexec.txt)
ep=$(sed -n 's/.* exit_pid=\([0-9]*\).*/\1/p' $OUT/nlexec.txt)
et=$(sed -n 's/.* exit_tid=\([0-9]*\).*/\1/p' $OUT/nlexec.txt)
ins=$(sed -n 's/.* instructions=\([0-9]*\).*/\1/p' $OUT/nlexec.txt)
{ [ -n "$ch" ] && [ "$ep" = "$ch" ] && [ "$et" = "$ch" ]; } || r="the exec'd thread's EXIT record: $(cat $OUT/nlexec.txt) (want pid and tid = child);"
{ [ "${ins:-0}" -ge $((2 * N)) ] && [ "${ins:-0}" -le $((2 * N + 100000)) ]; } || r="$r its count ${ins:-none} (want 2N..2N+100000);"
echo "attacks: non-leader exec: $(cat $OUT/nlexec.txt)"
verdict arm64_attack_nonleader_exec_records_name_the_leader "$r"

# A root daemon serving others (pmdakpmc) makes its session unprivileged:
# what it monitors is then judged as a user's. At paranoid 2, root's
# kernel-mode set is refused there (and accepted in a plain session); the
# command is one token, strictly parsed.
r=""
"$BIN/kpmcattack" unpriv - "pmc1=0x8,os1=1" >$OUT/unpriv0.txt 2>&1
grep -q "cmd=0 enable=0$" $OUT/unpriv0.txt || r="root's plain session: $(cat $OUT/unpriv0.txt);"
"$BIN/kpmcattack" unpriv unprivileged "pmc1=0x8,os1=1" >$OUT/unpriv1.txt 2>&1
grep -q "cmd=0 enable=13$" $OUT/unpriv1.txt || r="$r kernel mode in an unprivileged session: $(cat $OUT/unpriv1.txt) (want EACCES);"
"$BIN/kpmcattack" unpriv unprivileged "pmc1=0x8" >$OUT/unpriv2.txt 2>&1
grep -q "cmd=0 enable=0$" $OUT/unpriv2.txt || r="$r user mode in an unprivileged session: $(cat $OUT/unpriv2.txt);"
"$BIN/kpmcattack" unpriv unprivilegedx "pmc1=0x8" >$OUT/unpriv3.txt 2>&1
grep -q "cmd=22 " $OUT/unpriv3.txt || r="$r a bad token: $(cat $OUT/unpriv3.txt) (want EINVAL);"
dmesg | grep -q "'unprivilegedx': expected" || r="$r no dmesg line names the bad token;"
echo "attacks: unprivileged session: $(cat $OUT/unpriv0.txt $OUT/unpriv1.txt $OUT/unpriv2.txt $OUT/unpriv3.txt | tr '\n' ' ')"
verdict arm64_attack_unprivileged_session_counts_as_a_user "$r"

echo "$orig" >$P
