# The stateful fuzzer (tests/fuzz/kpmc_fuzz.c), run instead of the suite
# when the kernel command line has kpmc.fuzz=OPS[,SEED] (make fuzz,
# make test's fuzz-smoke and x86_64 debug stage). fuzz_run OPS SEED: four
# workers, root and uid 1000, then kpmc must hold nothing (sessions and
# live objects back to 0) and still count exactly.
fuzz_run() {
	ops=$1
	seed=$2
	load
	# perf_event_paranoid 2, as Debian users who profile their own programs set it
	# (Debian's 3 lets no user count at all): the uid 1000 workers' sessions count.
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
	echo 2 >/proc/sys/kernel/perf_event_paranoid
	# Unprivileged user namespaces (Debian's default): the fuzzer attaches from them.
	userns=userns-attach-own
	"$BIN/runas" 1000 unshare -Urm true 2>/dev/null || userns=""
	r=""
	# Progress lines (stderr) go to the console: a hang shows where.
	"$BIN/kpmc_fuzz" -s "$seed" -n "$ops" -t 4 >$OUT/fuzz.txt || r="the fuzzer failed: $(tail -n 3 $OUT/fuzz.txt);"
	sum=$(grep '^kpmc_fuzz: seed' $OUT/fuzz.txt)
	echo "$sum"
	grep 'worker' $OUT/fuzz.txt
	verdict "fuzz_ops: $(echo "$sum" | sed 's/^kpmc_fuzz: //')" "$r"
	echo "$paranoid" >/proc/sys/kernel/perf_event_paranoid

	# Coverage: every kind of operation ran, and the kernel accepted each
	# at least once (a fuzzer whose attaches all fail tests no attach).
	r=""
	grep '^kpmc_fuzz: op ' $OUT/fuzz.txt | sed 's/^kpmc_fuzz: op //' | tr '\n' ';'
	echo
	for op in config monitor-open monitor-read monitor-ring enable-1 enable-0 self-mmap self-read \
		child-fork attach attach-exec detach system-wide-after mm_manager thread thread-session thread-enable \
		ring-mmap-control ring-mmap-data monitor-unprivileged exec-setuid noloss-remap noloss-close \
		format-load format-unload setuid-checked session-stop $userns; do
		a=$(awk -v op=$op '$3 == op { print $7 }' $OUT/fuzz.txt)
		[ "${a:-0}" -gt 0 ] || r="$r $op never accepted;"
	done
	# System-wide starts during the run: tried (most are refused, EBUSY, while
	# workers' threads count; system-wide-after shows the path still works).
	c=$(awk '$3 == "system-wide" { print $5 }' $OUT/fuzz.txt)
	[ "${c:-0}" -gt 0 ] || r="$r system-wide never tried;"
	# Attaches from a user namespace to processes outside it: tried, all refused
	# (the fuzzer itself fails on one accepted).
	if [ -n "$userns" ]; then
		c=$(awk '$3 == "userns-attach" { print $5 }' $OUT/fuzz.txt)
		[ "${c:-0}" -gt 0 ] || r="$r userns-attach never tried;"
	fi
	verdict fuzz_every_operation_accepted "$r"

	# No-loss waits really happened (and ended: none is left waiting).
	r=""
	nl=$(grep '^noloss:' /proc/kpmc/info)
	echo "$nl"
	w=$(echo "$nl" | sed -n 's/.* waits \([0-9]*\).*/\1/p')
	[ "${w:-0}" -gt 0 ] || r="no no-loss wait began ($nl);"
	verdict fuzz_noloss_waits "$r"

	r=""
	i=0
	while [ $i -lt 50 ]; do
		grep -q '^sessions: 0' /proc/kpmc/info && grep -q '^live_objects: 0 ' /proc/kpmc/info && break
		sleep 0.1
		i=$((i + 1))
	done
	grep -q '^sessions: 0' /proc/kpmc/info || r="$(grep '^sessions' /proc/kpmc/info) after every process ended;"
	grep -q '^live_objects: 0 ' /proc/kpmc/info || r="$r $(grep live_objects /proc/kpmc/info);"
	verdict fuzz_no_leak "$r"

	# Exact still (arm64, the exact PMU): loop N and 2N differ by exactly
	# 2N user instructions.
	if [ "$(uname -m)" = aarch64 ]; then
		r=""
		echo "activate 0" >/proc/kpmc/mm_manager 2>/dev/null
		kpmc -A -c pmc1=0x8 -- "$BIN/loop" 1000000 >$OUT/fz1.txt 2>&1
		kpmc -A -c pmc1=0x8 -- "$BIN/loop" 2000000 >$OUT/fz2.txt 2>&1
		a=$(single_total $OUT/fz1.txt 4); b=$(single_total $OUT/fz2.txt 4)
		[ -n "$a" ] && [ -n "$b" ] && within_slack $((b - a)) 2000000 || r="counts after the fuzzer: $a and $b, difference not 2,000,000;"
		verdict fuzz_exact_after "$r"
	fi
	rmmod kpmc || echo "KPMC-TEST: FAIL fuzz_rmmod: rmmod failed"
	# The debug kernels have kmemleak (lockdep and KASAN report in dmesg,
	# which the host's log check fails on).
	if debug_kernel; then
		kmemleak_verdict fuzz_kmemleak
	fi
}
