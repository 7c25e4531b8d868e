# perf's privilege rules and the per-user limits.
# An unprivileged user (uid 1000) gets from kpmc exactly what perf gives it
# in the same boot, at each perf_event_paranoid level; setuid programs stop
# being counted at their exec; attach checks the task it attaches; rings
# and sessions are bounded per user.
CFGU="pmc1=0x8"
P=/proc/sys/kernel/perf_event_paranoid
orig=$(cat $P)
U="$BIN/runas 1000"
load

# perf and kpmc side by side: own program in user mode, in kernel mode too,
# and CPU-wide, at each level (Debian's kernels: 3 refuses everything).
paranoid_matrix "$CFGU" "$CFGU,os1=1" 4:8
r=$mx_r
echo 2 >$P
$U kpmc -A -c "$CFGU,os1=1" -- "$BIN/loop" 1000 >$OUT/os.txt 2>&1
grep -q "perf_event_paranoid is 2: counting kernel mode (osN=1) needs paranoid <= 1 or CAP_PERFMON" $OUT/os.txt ||
	r="$r no reason for the kernel-mode refusal: $(cat $OUT/os.txt);"
# Root is CAP_PERFMON: everything, at any level.
echo 3 >$P
kpmc -A -c "$CFGU,os1=1" -- "$BIN/loop" 1000 >$OUT/root3.txt 2>&1 || r="$r root refused at paranoid 3: $(cat $OUT/root3.txt);"
verdict arm64_privilege_paranoid_as_perf "$r"

# A setuid program is not counted for a user who could not ptrace it: kpmc
# stops at the exec with a DETACH record saying why, as perf stops.
echo 2 >$P
cp "$BIN/loop" /tmp/suid && chown 0:0 /tmp/suid && chmod 4755 /tmp/suid
# The same program at a path of the same length, not setuid: the reference.
cp "$BIN/loop" /tmp/nsid
N=1000000
r=""
$U kpmc -A -c "$CFGU" -- /tmp/suid $N >$OUT/suid.txt 2>&1 || r="kpmc failed: $(cat $OUT/suid.txt);"
v=$(single_total $OUT/suid.txt 4)
[ "${v:-x}" = 0 ] || r="$r the setuid program counted ${v:-nothing} instructions (want 0);"
grep -q "raised its privileges" $OUT/suid.txt || r="$r no message about the exec: $(cat $OUT/suid.txt);"
$U "$BIN/perfcount" /tmp/suid $N >$OUT/suid_perf.txt 2>&1
pc=$(sed -n 's/.*count=\([0-9]*\).*/\1/p' $OUT/suid_perf.txt)
[ "${pc:-x}" = 0 ] || r="$r perf counted ${pc:-?} for the setuid program (the reference wants 0);"
# A thread already counted that execs the setuid program stops there: only
# the shell's own instructions count, far fewer than the loop's 2N.
$U kpmc -A -c "$CFGU" -- /bin/sh -c "exec /tmp/suid $N" >$OUT/suid_sh.txt 2>&1
v=$(single_total $OUT/suid_sh.txt 4)
[ -n "$v" ] && [ "$v" -gt 0 ] && [ "$v" -lt $N ] || r="$r counted shell then setuid exec: ${v:-nothing} (want 1..$N);"
# Root (CAP_PERFMON) monitors it through the exec: the loop's full count.
kpmc -A -c "$CFGU" -- /tmp/suid $N >$OUT/suid_root.txt 2>&1
kpmc -A -c "$CFGU" -- /tmp/nsid $N >$OUT/plain_root.txt 2>&1
a=$(single_total $OUT/suid_root.txt 4); b=$(single_total $OUT/plain_root.txt 4)
within_slack "$a" "$b" || r="$r root's count of the setuid copy $a differs from the program's $b;"
verdict arm64_privilege_setuid_exec "$r"

# An execute-only program (mode 711, root's) the user may run but not read:
# its exec is not dumpable, so perf ends its events there; kpmc stops too
# (7.x sets no AT_SECURE for it: the exec's own flag tells).
r=""
cp "$BIN/loop" /tmp/xonly && chown 0:0 /tmp/xonly && chmod 711 /tmp/xonly
$U kpmc -A -c "$CFGU" -- /tmp/xonly $N >$OUT/xonly.txt 2>&1 || r="kpmc failed: $(cat $OUT/xonly.txt);"
v=$(single_total $OUT/xonly.txt 4)
[ "${v:-x}" = 0 ] || r="$r the unreadable program counted ${v:-nothing} instructions (want 0);"
$U "$BIN/perfcount" /tmp/xonly $N >$OUT/xonly_perf.txt 2>&1
pc=$(sed -n 's/.*count=\([0-9]*\).*/\1/p' $OUT/xonly_perf.txt)
[ "${pc:-x}" = 0 ] || r="$r perf counted ${pc:-?} for it (the reference wants 0);"
echo "privilege: execute-only program: kpmc ${v:-?}, perf ${pc:-?}"
verdict arm64_privilege_unreadable_exec "$r"

# Attach checks the same task it attaches: the number names a task of the
# caller's pid namespace, whatever its /proc shows. As uid 1000 with its own
# user, mount and pid namespaces, pid 1 in its /proc is its own sleep; the
# number 1 still names the guest's init, which it may not monitor.
r=""
if $U unshare -Urm -p -f true 2>/dev/null; then
	$U unshare -Urm sh -c "
		unshare -p -f sh -c 'mount -t proc proc /proc; exec sleep 4' &
		sleep 1
		echo comm=\$(cat /proc/1/comm)
		kpmc -A -c $CFGU -p 1 & kp=\$!
		sleep 2; kill -INT \$kp 2>/dev/null
		wait \$kp; echo rc=\$?
		wait" >$OUT/ns.txt 2>&1
	# The namespace's init is that sleep; the guest's own init is not.
	grep -q "comm=sleep" $OUT/ns.txt || r="the child namespace's /proc was not in place: $(cat $OUT/ns.txt);"
	grep -q "rc=0" $OUT/ns.txt && r="$r attach of the guest's init as uid 1000 succeeded;"
	grep -q "may not ptrace it" $OUT/ns.txt || r="$r no reason: $(cat $OUT/ns.txt);"
else
	echo "privilege: no unprivileged user and pid namespaces in this kernel: the check cannot be staged"
fi
verdict arm64_privilege_attach_pidns "$r"

# Records carry the numbers of the session opener's pid namespace, as
# perf's do: a kpmc in a container sees its own pids and tids (the ones its
# /proc shows), never the host's.
r=""
if unshare -m -p -f true 2>/dev/null; then
	unshare -m -p -f sh -c "mount -t proc proc /proc && kpmc --csv -T 0.01 -c $CFGU -- sh -c 'echo inner=\$\$; exec $BIN/loop 50000000'" \
		>$OUT/nsrec.txt 2>&1
	inner=$(sed -n 's/^inner=//p' $OUT/nsrec.txt)
	rows=$(grep -cE '^[0-9]+,[0-9]+,[0-9]+,' $OUT/nsrec.txt)
	other=$(grep -E '^[0-9]+,[0-9]+,[0-9]+,' $OUT/nsrec.txt | awk -F, -v p="$inner" '$2 != p || $3 != p' | head -n 1)
	[ -n "$inner" ] && [ "$inner" -lt 10 ] || r="the program's pid in its namespace: '$inner' (want < 10);"
	[ "$rows" -ge 5 ] || r="$r $rows records (want >= 5);"
	[ -z "$other" ] || r="$r a record with other numbers than the namespace's $inner: $other;"
	echo "pid namespace: the program is $inner there, $rows records, first: $(grep -m1 -E '^[0-9]+,' $OUT/nsrec.txt)"
else
	echo "privilege: no pid namespaces in this kernel: the record numbers cannot be checked"
fi
verdict arm64_privilege_record_pids_of_reader_namespace "$r"

# Limits without CAP_PERFMON: ring memory per user, sessions per user.
r=""
$U kpmc -k 1048576 -A -c "$CFGU" -- "$BIN/loop" 1000 >$OUT/ring.txt 2>&1 && r="a 256 MiB ring for a user;"
grep -q "kpmc.user_ring_kb=16384" $OUT/ring.txt || r="$r no limit named: $(cat $OUT/ring.txt);"
kpmc -k 131072 -A -c "$CFGU" -- "$BIN/loop" 1000 >$OUT/ring_root.txt 2>&1 || r="$r root's 32 MiB ring refused: $(cat $OUT/ring_root.txt);"
echo 2 >/sys/module/kpmc/parameters/user_sessions
$U kpmc -A -c "$CFGU" -- sleep 2 >/dev/null 2>&1 &
s1=$!
$U kpmc -A -c "$CFGU" -- sleep 2 >/dev/null 2>&1 &
s2=$!
sleep 0.5
$U kpmc -A -c "$CFGU" -- "$BIN/loop" 1000 >$OUT/sess.txt 2>&1 && r="$r a third session with user_sessions=2;"
grep -q "kpmc.user_sessions=2" $OUT/sess.txt || r="$r no limit named: $(cat $OUT/sess.txt);"
kpmc -A -c "$CFGU" -- "$BIN/loop" 1000 >$OUT/sess_root.txt 2>&1 || r="$r root refused beside them;"
wait $s1 $s2
echo 64 >/sys/module/kpmc/parameters/user_sessions
verdict arm64_privilege_user_limits "$r"

echo "$orig" >$P
