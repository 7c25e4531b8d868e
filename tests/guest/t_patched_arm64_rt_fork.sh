# PREEMPT_RT kernels only (6.12 RT tier), with tracepoint hooks: the
# sched_process_fork probe runs with preemption disabled, where RT's slab
# allocator (sleeping locks) must not be entered, so kpmc follows new
# threads with states from its fork reserve. 3 x 400 threads created back
# to back: all followed (a row each), none lost, all freed; the kernel log
# check (sleeping function called from invalid context) does the rest.
case $(uname -v) in *PREEMPT_RT*) rt=1 ;; *) rt=0 ;; esac
if [ $rt = 1 ] && load hooks=tracepoint 2>/dev/null; then
	r=""
	grep -q '^hooks: tracepoints' /proc/kpmc/info || r="hooks: $(grep hooks: /proc/kpmc/info);"
	for run in 1 2 3; do
		kpmc -A -c pmc1=0x8 -- "$BIN/spawnmany" 400 1000 >$OUT/rtfork.txt 2>&1 || r="$r spawnmany failed;"
		rows=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/' $OUT/rtfork.txt | wc -l)
		echo "rt fork run $run: $rows threads; $(grep threads_lost /proc/kpmc/info)"
		[ "$rows" -eq 401 ] || r="$r run $run: $rows threads in the totals, expected 401;"
	done
	sleep 0.5
	grep -q '^threads_lost: 0$' /proc/kpmc/info || r="$r $(grep threads_lost /proc/kpmc/info);"
	grep -q '^live_objects: 0 ' /proc/kpmc/info || r="$r $(grep live_objects /proc/kpmc/info);"
	rmmod kpmc || r="$r rmmod failed;"
	verdict patched_rt_tracepoint_fork_from_reserve "$r"
fi
