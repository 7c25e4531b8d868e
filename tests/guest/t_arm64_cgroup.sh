# arm64: per-cgroup counting (kpmc -G; /proc/kpmc/enable "cgroup=FD") beside
# perf's cgroup events (perfcount -G: an event per CPU opened with
# PERF_FLAG_PID_CGROUP, what perf stat -G opens) in the same boot. cgwork puts
# 12N user-mode instructions into the cgroup kt (two processes that join it,
# one moved in and out by its parent while it waits on a pipe) and 6N outside
# it; both tools count kt's user-mode instructions on every CPU.
CG=/sys/fs/cgroup
N=2000000
load

# enable_fd7 DIR WORD...: in a session of its own with a configuration and
# descriptor 7 open on DIR, write each WORD to /proc/kpmc/enable; prints
# "ACCEPTED WORD" for each one taken.
enable_fd7() {
	(
		exec 8</proc/kpmc/monitor
		printf 'pmc1=0x8' >/proc/kpmc/config
		exec 7<"$1"
		shift
		for w in "$@"; do
			try_write /proc/kpmc/enable "$w" && echo "ACCEPTED $w"
		done
	)
}

# A kernel built without cgroups (the patched test kernels' small configs):
# cgroup=FD is refused, said so; nothing else to count.
if ! grep -qw cgroup2 /proc/filesystems; then
	r=""
	dmesg -c >/dev/null
	enable_fd7 /tmp cgroup=7 >$OUT/cg_none.txt 2>&1
	grep -q ACCEPTED $OUT/cg_none.txt && r="cgroup=7 accepted without cgroups;"
	dmesg | grep -qF "kpmc: enable: 'cgroup=7': this kernel is built without cgroups (CONFIG_CGROUPS)" ||
		r="$r no dmesg line saying the kernel has no cgroups;"
	verdict arm64_cgroup_refused_without_cgroups "$r"
	rmmod kpmc
	return 0 2>/dev/null || exit 0
fi
grep -q " $CG cgroup2 " /proc/mounts || mount -t cgroup2 none $CG
# perf's cgroup events need the perf_event controller's state in the cgroup,
# which the kernel gives children of the root only once the root's controls
# were set (as systemd does at boot; this guest has no init system): enable
# one controller. kpmc asks for none: it tests the task's cgroup itself.
echo +pids >$CG/cgroup.subtree_control
mkdir -p $CG/kt

# cg_total FILE: kpmc -G -A's pmc1 over all CPUs (the "all" row, cpu records ms pmc1).
cg_total() {
	awk '$1 == "all" { print $4 }' "$1"
}

r=""
kpmc -G kt -A -c pmc1=0x8 -- "$BIN/cgwork" $CG/kt $N >$OUT/cg_kpmc.txt 2>&1 ||
	r="kpmc -G failed: $(tail -n 3 $OUT/cg_kpmc.txt);"
"$BIN/perfcount" -G $CG/kt "$BIN/cgwork" $CG/kt $N >$OUT/cg_perf.txt 2>&1 ||
	r="$r perfcount -G failed: $(tail -n 3 $OUT/cg_perf.txt);"
cat $OUT/cg_kpmc.txt $OUT/cg_perf.txt
k=$(cg_total $OUT/cg_kpmc.txt)
p=$(sed -n 's/^perfcount count=\([0-9]*\) .*/\1/p' $OUT/cg_perf.txt)
pe=$(sed -n 's/^perfcount count=[0-9]* enabled=\([0-9]*\) .*/\1/p' $OUT/cg_perf.txt)
inside=$(sed -n 's/^cgwork inside=\([0-9]*\) .*/\1/p' $OUT/cg_perf.txt)
echo "cgroup kt: kpmc $k, perf $p (enabled $pe ns), the loops inside $inside (outside $((6 * N)))"
# Two runs of cgwork: four processes' libc paths (fork, pipe, exit) may each
# retry a store-exclusive. On 7.x such a retry costs 24 user-mode
# instructions, not LLSC_SLACK's 16: cgwork counted 24,000,063, 065, 087, 089
# and 111 there over five runs, whichever tool counted (on 5.10 to 6.12 the
# runs agree). Four retries of 24 apart at most.
CG_RUN_SLACK=$((4 * 24))
[ -n "$k" ] && [ -n "$p" ] && [ $((k - p)) -le $CG_RUN_SLACK ] && [ $((p - k)) -le $CG_RUN_SLACK ] ||
	r="$r kpmc -G counted '$k', perf -G '$p': not the same;"
# The loops inside and the little libc between their steps; nothing of the 6N outside.
[ -n "$k" ] && [ "$k" -ge $((12 * N)) ] && [ "$k" -le $((12 * N + 20000)) ] ||
	r="$r kpmc -G counted '$k', expected 12N = $((12 * N)) and at most 20,000 more;"
verdict arm64_cgroup_counts_as_perf "$r"

# libkpmc asks for a cgroup too (kpmc_cgroup_start/stop): the same workload,
# the same count as kpmc -G's; a second session meanwhile refused (-EBUSY),
# a stop without a session -EINVAL; a descriptor of /tmp refused (-EBADF).
r=""
"$BIN/cgcount" $CG/kt pmc1=0x8 "$BIN/cgwork" $CG/kt $N >$OUT/cg_lib.txt 2>&1 ||
	r="cgcount failed: $(tail -n 3 $OUT/cg_lib.txt);"
cat $OUT/cg_lib.txt
l=$(sed -n 's/^cgcount stop 0 pmc1=\([0-9]*\) .*/\1/p' $OUT/cg_lib.txt)
echo "cgroup kt through libkpmc: $l (kpmc -G $k)"
[ -n "$l" ] && [ -n "$k" ] && [ $((l - k)) -le $CG_RUN_SLACK ] && [ $((k - l)) -le $CG_RUN_SLACK ] ||
	r="$r libkpmc counted '$l', kpmc -G '$k';"
grep -q '^cgcount second start -16$' $OUT/cg_lib.txt || r="$r a second session was not refused with -EBUSY;"
grep -q '^cgcount stop again -22$' $OUT/cg_lib.txt || r="$r a stop without a session was not -EINVAL;"
"$BIN/cgcount" /tmp pmc1=0x8 /bin/true >$OUT/cg_libbad.txt 2>&1
grep -q "^cgcount refused -9 .*not an open directory of the cgroup v2 hierarchy" $OUT/cg_libbad.txt ||
	r="$r /tmp: $(cat $OUT/cg_libbad.txt);"
verdict arm64_cgroup_from_libkpmc "$r"

# Two cgroups counted at once (two jobs on one node): kb below ka, each
# counted by a session of its own with the same events (libkpmc's for kb,
# kpmc -G's for ka, sharing the counters), the same runs counted by perf's
# cgroup events (two perfcount, one inside the other). cgwork puts 12N into
# ka, then 24N into kb, which ka counts too (its descendants): ka 36N, kb
# 24N, each with the few hundred of libc per cgwork step. A session asking
# for other events while one counts is refused, named (on its own: any step
# more between the two cgwork changes their libc's store-exclusive retries,
# 24 instructions, whichever tool counts).
r=""
mkdir -p $CG/ka/kb
{
	echo "$BIN/cgwork $CG/ka $N"
	echo "$BIN/cgwork $CG/ka/kb $((2 * N))"
} >/tmp/cg_two.sh
dmesg -c >/dev/null
"$BIN/cgcount" $CG/ka/kb pmc1=0x8 /bin/kpmc -G ka -A -c pmc1=0x8 -- sh /tmp/cg_two.sh \
	>$OUT/cg_two_kpmc.txt 2>&1 || r="cgcount around kpmc -G failed: $(tail -n 3 $OUT/cg_two_kpmc.txt);"
"$BIN/perfcount" -G $CG/ka/kb "$BIN/perfcount" -G $CG/ka sh /tmp/cg_two.sh \
	>$OUT/cg_two_perf.txt 2>&1 || r="$r perfcount around perfcount failed: $(tail -n 3 $OUT/cg_two_perf.txt);"
"$BIN/cgcount" $CG/ka/kb pmc1=0x8 /bin/kpmc -G ka -A -c pmc1=0x11 -- true >$OUT/cg_other.txt 2>&1
cat $OUT/cg_two_kpmc.txt $OUT/cg_two_perf.txt $OUT/cg_other.txt
ka=$(cg_total $OUT/cg_two_kpmc.txt)
kb=$(sed -n 's/^cgcount stop 0 pmc1=\([0-9]*\) .*/\1/p' $OUT/cg_two_kpmc.txt)
# The inner perfcount (ka) ends and prints first.
pa=$(sed -n 's/^perfcount count=\([0-9]*\) .*/\1/p' $OUT/cg_two_perf.txt | sed -n 1p)
pb=$(sed -n 's/^perfcount count=\([0-9]*\) .*/\1/p' $OUT/cg_two_perf.txt | sed -n 2p)
echo "two cgroups at once: ka kpmc $ka perf $pa (36N = $((36 * N))); kb libkpmc $kb perf $pb (24N = $((24 * N)))"
[ -n "$ka" ] && [ -n "$pa" ] && [ $((ka - pa)) -le $CG_RUN_SLACK ] && [ $((pa - ka)) -le $CG_RUN_SLACK ] ||
	r="$r ka: kpmc -G '$ka', perf -G '$pa';"
[ -n "$kb" ] && [ -n "$pb" ] && [ $((kb - pb)) -le $CG_RUN_SLACK ] && [ $((pb - kb)) -le $CG_RUN_SLACK ] ||
	r="$r kb: libkpmc '$kb', perf -G '$pb';"
[ -n "$ka" ] && [ "$ka" -ge $((36 * N)) ] && [ "$ka" -le $((36 * N + 40000)) ] ||
	r="$r ka counted '$ka', expected 36N and at most 40,000 more;"
[ -n "$kb" ] && [ "$kb" -ge $((24 * N)) ] && [ "$kb" -le $((24 * N + 20000)) ] ||
	r="$r kb counted '$kb', expected 24N and at most 20,000 more;"
grep -qF "system-wide monitoring is already on with other events" $OUT/cg_other.txt ||
	r="$r a session with other events: $(tail -n 1 $OUT/cg_other.txt);"
dmesg | grep -qF "kpmc: enable: system-wide monitoring is already on with other events: sessions counting at once share one configuration" ||
	r="$r no dmesg line for the session with other events;"
verdict arm64_cgroup_two_at_once "$r"
rmdir $CG/ka/kb $CG/ka

# Kernel code counting a cgroup (kpmc_cgq.ko: kpmc's in-kernel API, read
# from a 1 ms hard-IRQ timer) beside kpmc -G of the same cgroup during the
# same run: the same counters (the same events, shared), the same count;
# its last read from the timer, at most one fold (50 ms) behind, less or
# equal; the module and its count gone at rmmod, kpmc then free to unload.
r=""
mkdir -p $CG/kq
insmod /kpmc_cgq.ko path=/kq config=pmc1=0x8 || r="insmod kpmc_cgq failed: $(dmesg | tail -n 2);"
kpmc -G kq -A -c pmc1=0x8 -- "$BIN/cgwork" $CG/kq $N >$OUT/cg_api.txt 2>&1 ||
	r="$r kpmc -G beside it failed: $(tail -n 3 $OUT/cg_api.txt);"
sleep 0.2
timer=$(cat /sys/module/kpmc_cgq/parameters/count 2>/dev/null)
reads=$(cat /sys/module/kpmc_cgq/parameters/reads 2>/dev/null)
dmesg -c >/dev/null
rmmod kpmc_cgq || r="$r rmmod kpmc_cgq failed;"
api=$(dmesg | sed -n 's/.*kpmc_cgq: final pmc1=\([0-9]*\) .*/\1/p')
k=$(cg_total $OUT/cg_api.txt)
echo "in-kernel API: final $api, its timer's last read $timer ($reads reads); kpmc -G $k"
[ -n "$api" ] && [ "$api" = "$k" ] || r="$r the in-kernel API counted '$api', kpmc -G '$k';"
[ -n "$timer" ] && [ "$timer" -le "${api:-0}" ] && [ "$timer" -ge $((12 * N)) ] ||
	r="$r the timer's last read '$timer': not between 12N and the final count;"
[ "${reads:-0}" -ge 100 ] || r="$r only '$reads' reads from the timer;"
rmdir $CG/kq
verdict arm64_cgroup_in_kernel_api "$r"

# A cgroup that does not exist is made for the program, which runs in it
# from its first instruction, and removed at the end: loop's own count
# (per thread, from its exec) and the few hundred instructions of kpmc's
# child between joining and its exec.
r=""
lt=$(loop_total 1000000)
load
kpmc -G fresh/one -A -c pmc1=0x8 -- "$BIN/loop" 1000000 >$OUT/cg_fresh.txt 2>&1 &&
	r="a nested cgroup under a missing parent was made: $(cat $OUT/cg_fresh.txt);"
grep -q "kpmc: -G: cannot make $CG/fresh/one" $OUT/cg_fresh.txt || r="$r no refusal naming $CG/fresh/one;"
kpmc -G fresh -A -c pmc1=0x8 -- "$BIN/loop" 1000000 >$OUT/cg_fresh.txt 2>&1 ||
	r="$r kpmc -G fresh failed: $(tail -n 3 $OUT/cg_fresh.txt);"
f=$(cg_total $OUT/cg_fresh.txt)
echo "fresh cgroup: $f (loop alone $lt)"
[ -n "$f" ] && [ -n "$lt" ] && [ "$f" -ge "$lt" ] && [ "$f" -le $((lt + 2000)) ] ||
	r="$r counted '$f' in the fresh cgroup, loop alone is '$lt' (at most 2,000 more);"
[ -d $CG/fresh ] && r="$r $CG/fresh was left behind;"
verdict arm64_cgroup_fresh_for_the_program "$r"

# Refusals, each named: a descriptor that is not a cgroup directory, junk, a
# path that climbs out; an unprivileged user at paranoid 2 as perf refuses it.
r=""
dmesg -c >/dev/null
enable_fd7 /tmp cgroup=7 cgroup=x7 >$OUT/cg_bad.txt 2>&1
enable_fd7 $CG/kt cgroup=7 0 >$OUT/cg_good.txt 2>&1
# A session counts a cgroup once, stops it by the number of its start, and says so.
enable_fd7 $CG/kt cgroup=7 cgroup=7 stop=1 stop=1 stop=x >$OUT/cg_again.txt 2>&1
cat $OUT/cg_bad.txt $OUT/cg_good.txt $OUT/cg_again.txt
[ "$(tr '\n' ' ' <$OUT/cg_again.txt)" = "ACCEPTED cgroup=7 ACCEPTED stop=1 " ] ||
	r="$r the same cgroup twice, then stopped twice: $(tr '\n' ' ' <$OUT/cg_again.txt);"
# Another session's start is not this one's to stop: while kpmc -G counts
# kv (made for its program; its start 1), stop=1 from a second session is refused and its
# counting goes on to the end of its program.
kpmc -G kv -A -c pmc1=0x8 -- "$BIN/loop" 500000000 >$OUT/cg_victim.txt 2>&1 &
vp=$!
sleep 0.2
enable_fd7 /tmp stop=1 >$OUT/cg_thief.txt 2>&1
wait $vp || r="$r kpmc -G beside another session's stop=1 failed: $(tail -n 2 $OUT/cg_victim.txt);"
grep -q ACCEPTED $OUT/cg_thief.txt && r="$r another session's stop=1 was accepted;"
v=$(cg_total $OUT/cg_victim.txt)
[ -n "$v" ] && [ "$v" -ge 1000000000 ] || r="$r kv counted '$v' with another session's stop=1 tried, expected the loop's 1e9 or more;"
for m in "this session counts that cgroup already" "'stop=1': this session started no such system-wide counting" \
	"'stop=x': want the number of a system-wide start (1, 2, ...)"; do
	dmesg | grep -qF "kpmc: enable: $m" || r="$r no dmesg line '$m';"
done
grep -q 'ACCEPTED' $OUT/cg_bad.txt && r="$r $(tr '\n' ' ' <$OUT/cg_bad.txt);"
[ "$(tr '\n' ' ' <$OUT/cg_good.txt)" = "ACCEPTED cgroup=7 ACCEPTED 0 " ] ||
	r="$r a descriptor of kt and its stop: $(tr '\n' ' ' <$OUT/cg_good.txt);"
dmesg | grep -qF "kpmc: enable: 'cgroup=7': not an open directory of the cgroup v2 hierarchy" ||
	r="$r no dmesg line for a descriptor of /tmp;"
dmesg | grep -qF "kpmc: enable: 'cgroup=x7': want the number of an open cgroup directory" ||
	r="$r no dmesg line for cgroup=x7;"
kpmc -G ../kt -A -c pmc1=0x8 -- true >$OUT/cg_path.txt 2>&1
[ $? -eq 2 ] && grep -qF "kpmc: -G '../kt': want a cgroup below /sys/fs/cgroup" $OUT/cg_path.txt ||
	r="$r -G ../kt: $(cat $OUT/cg_path.txt);"
echo 2 >/proc/sys/kernel/perf_event_paranoid
"$BIN/runas" 1000 kpmc -G kt -A -c pmc1=0x8 -- "$BIN/loop" 1000 >$OUT/cg_user.txt 2>&1 &&
	r="$r an unprivileged -G was accepted;"
grep -qF "perf_event_paranoid is 2: system-wide monitoring needs paranoid <= 0 or CAP_PERFMON" $OUT/cg_user.txt ||
	r="$r unprivileged -G: $(tail -n 1 $OUT/cg_user.txt);"
"$BIN/runas" 1000 "$BIN/perfcount" -G $CG/kt "$BIN/loop" 1000 >$OUT/cg_userp.txt 2>&1 &&
	r="$r perf accepted an unprivileged cgroup event (the rule kpmc follows changed?);"
grep -q "Permission denied" $OUT/cg_userp.txt || r="$r perf's refusal: $(tail -n 1 $OUT/cg_userp.txt);"
# From a user namespace (root there) with a cgroup delegated to the user, as
# systemd delegates one: still CPU-wide counting, refused at paranoid 2.
mkdir -p $CG/kt_user && chown 1000 $CG/kt_user $CG/kt_user/cgroup.procs
if "$BIN/runas" 1000 unshare -Ur true 2>/dev/null; then
	"$BIN/runas" 1000 unshare -Ur kpmc -G kt_user -A -c pmc1=0x8 -- "$BIN/loop" 1000 >$OUT/cg_ns.txt 2>&1 &&
		r="$r accepted from a user namespace;"
	grep -qF "perf_event_paranoid is 2: system-wide monitoring needs paranoid <= 0 or CAP_PERFMON" $OUT/cg_ns.txt ||
		r="$r from a user namespace: $(tail -n 1 $OUT/cg_ns.txt);"
else
	r="$r no user namespace for uid 1000;"
fi
rmdir $CG/kt_user
echo 0 >/proc/sys/kernel/perf_event_paranoid
"$BIN/runas" 1000 kpmc -G kt -A -c pmc1=0x8 -- "$BIN/loop" 1000 >$OUT/cg_user0.txt 2>&1 ||
	r="$r refused at paranoid 0: $(tail -n 1 $OUT/cg_user0.txt);"
"$BIN/runas" 1000 "$BIN/perfcount" -G $CG/kt "$BIN/loop" 1000 >$OUT/cg_userp0.txt 2>&1 ||
	r="$r perf refused at paranoid 0: $(tail -n 1 $OUT/cg_userp0.txt);"
echo 2 >/proc/sys/kernel/perf_event_paranoid
verdict arm64_cgroup_refusals_named "$r"
rmdir $CG/kt 2>/dev/null
rmmod kpmc
