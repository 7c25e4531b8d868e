#!/usr/bin/env bash
# pmdakpmc at scale, in one x86_64 guest: the Debian root with PCP
# (scripts/pcp-root.sh), Debian's 6.1 kernel, the kpmc module (perf backend:
# software events under TCG) and pmdakpmc installed by PCP's Install, pmcd
# with its default settings. The guest runs under -icount shift=0: guest
# time is the instruction count (1 ns each), so its figures are those of a
# 1 GHz machine retiring one instruction a cycle, whatever the host does
# beside it (a real machine is several times faster).
# The agent's configuration selects two command names. In turn, the guest
#   idle    has none of them running: fetch latency, the agent's CPU and RSS;
#   5000    has PROCS processes named scaleidle alive, asleep (forked by one
#           parent named scalework, which is not selected);
#   release lets them all exit at once (one EXIT record each);
#   storm   has one process named scalestorm fork STORM children, 4 at a time,
#           each spinning briefly and exiting (the kernel follows them from
#           their monitored parent), while a client fetches every 0.5 s;
#   after   waits until what the agent serves stops changing.
# Fetches are timed in the guest by a python3-pcp client (pmFetch of six
# kpmc metrics over every instance); the agent's CPU time and RSS come from
# /proc/PID/stat and status. Then pmcd's log and pmcd.agent.status must say
# the agent was never dropped, and its pid must be the one it started with.
#   tests/pmda/scale.sh [WORKDIR]
# KPMC_MODULE=kpmc.ko: use this module (built for Debian's 6.1 amd64 kernel)
# instead of building one. KPMC_SCALE_PROCS (5000), KPMC_SCALE_STORM
# (10000), KPMC_SCALE_MEM (guest MiB, 2048), KPMC_SCALE_TIMEOUT (s, 1800).
# Prints the figures as "pmda-scale: NAME VALUE", then "pmda-scale: PASS"
# or "pmda-scale: FAIL: why"; exit 0 / 1.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-${TMPDIR:-/tmp}/kpmc-pmda-scale}
procs=${KPMC_SCALE_PROCS:-5000}
storm=${KPMC_SCALE_STORM:-10000}
# The guest's memory holds the PCP root, unpacked from the initramfs, and
# the processes: 5,000 asleep took 457 MB (about 90 KiB each: kernel stack,
# task, page tables, kpmc's thread state, the pages each dirties; measured
# as "5000-guest-mem-kb"), of the 1.73 GB a 2 GiB guest has available after
# boot. The two-node test's 1 GiB would leave an estimated 200 MB.
mem=${KPMC_SCALE_MEM:-2048}
limit=${KPMC_SCALE_TIMEOUT:-1800}
. "$top/tests/pmda/setup.sh"
fail() { echo "pmda-scale: FAIL: $*"; exit 1; }

mkdir -p "$work"
t=$(now)
pmda_guest_setup

# The workload, static (the root has no compiler):
#   scalework idle N GOFILE: N children named scaleidle asleep on a pipe
#     until GOFILE exists, then all released at once;
#   scalework storm N ITER GOFILE: once GOFILE exists, N children, 4 at a
#     time, each spinning ITER two-instruction iterations, then exiting.
# Its command name is that of the file it runs from (copied as scalestorm).
cat >"$work/scalework.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void wait_for(const char *file)
{
	struct timespec tick = { 0, 100 * 1000 * 1000 };

	while (access(file, F_OK))
		nanosleep(&tick, NULL);
}

static void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	long n, made = 0, reaped = 0;
	int p[2];

	if (argc < 4 || (n = atol(argv[2])) <= 0)
		return 2;
	if (!strcmp(argv[1], "idle")) {
		if (pipe(p))
			return 1;
		for (; made < n; made++) {
			pid_t c = fork();
			char b;

			if (c < 0) {
				perror("scalework: fork");
				break;
			}
			if (!c) {
				close(p[1]);
				prctl(PR_SET_NAME, "scaleidle");
				while (read(p[0], &b, 1) > 0)
					;
				_exit(0);
			}
		}
		close(p[0]);
		printf("scalework: %ld children asleep\n", made);
		fflush(stdout);
		wait_for(argv[3]);
		close(p[1]);
	} else if (!strcmp(argv[1], "storm") && argc == 5) {
		unsigned long iters = strtoul(argv[3], NULL, 10);

		printf("scalework: storm parent %d\n", (int)getpid());
		fflush(stdout);
		wait_for(argv[4]);
		while (made < n) {
			long k;

			for (k = 0; k < 4 && made < n; k++, made++) {
				pid_t c = fork();

				if (c < 0) {
					perror("scalework: fork");
					return 1;
				}
				if (!c) {
					spin(iters);
					_exit(0);
				}
			}
			for (; k > 0; k--)
				reaped += wait(NULL) > 0;
		}
	} else {
		return 2;
	}
	while (wait(NULL) > 0)
		reaped++;
	printf("scalework: %s: %ld children made, %ld reaped\n", argv[1], made, reaped);
	return made == n && reaped == n ? 0 : 1;
}
EOF
gcc -static -O2 -Wall -Wextra -Werror -o "$work/scalework" "$work/scalework.c" >"$work/scalework.log" 2>&1 ||
	fail "scalework: $(tail -n 3 "$work/scalework.log")"
echo "pmda-scale: root, kernel, module, agent and workload ready ($(elapsed "$t") s)"

ov=$work/overlay
rm -rf "$ov"
mkdir -p "$ov/kpmc/pmda"
cp "$top/tests/pmda/node-init.sh" "$ov/init"
chmod 755 "$ov/init"
cp "$work/kpmc.ko" "$work/scalework" "$ov/kpmc/"
cp "$work/scalework" "$ov/kpmc/scalestorm"
cp "$top/pmda/kpmc.conf" "$ov/kpmc/default.conf"
cp "$work/pmda-build/pmdakpmc" "$top"/pmda/{Install,Remove,domain.h,pmns,root,help} "$ov/kpmc/pmda/"
# Software events of the perf backend: cpu-clock (ns) and context switches.
# interval 1000: no process here runs 1 s on a CPU, so each sends exactly one
# record, at its exit: the records delivered are known in advance. grace
# 3600: no ended instance expires during the run (the instance counts below
# are exact).
cat >"$ov/kpmc/kpmc.conf" <<EOF
events pmc0=0x100000000,os0=1,pmc1=0x100000003,os1=1
interval 1000
kernel on
process comm=scaleidle user=root
process comm=scalestorm user=root
grace 3600
EOF

# The client: N fetches (or until STOPFILE exists) GAP s apart, timed; then
# per command name of the process instances in the last one: instances,
# instances alive, records, and the global kpmc.processes and kpmc.lost.
cat >"$ov/kpmc/fetch.py" <<'EOF'
import os, sys, time
from pcp import pmapi
import cpmapi as c_api

tag, count, gap = sys.argv[1], sys.argv[2], float(sys.argv[3])
ctx = pmapi.pmContext(c_api.PM_CONTEXT_HOST, "local:")
names = ["kpmc.proc.pmc0", "kpmc.proc.run_ns", "kpmc.proc.records", "kpmc.proc.alive",
         "kpmc.processes", "kpmc.lost"]
pmids = ctx.pmLookupName(names)
descs = ctx.pmLookupDescs(pmids)
lat = []
res = None
while True:
    t = time.monotonic()
    res = ctx.pmFetch(pmids)
    lat.append(time.monotonic() - t)
    if count.isdigit() and len(lat) >= int(count):
        break
    if not count.isdigit() and os.path.exists(count):
        break
    ctx.pmFreeResult(res)
    time.sleep(gap)
lat.sort()
print("scale: %s-fetches %d" % (tag, len(lat)))
print("scale: %s-fetch-ms-min %.1f" % (tag, 1e3 * lat[0]))
print("scale: %s-fetch-ms-median %.1f" % (tag, 1e3 * lat[len(lat) // 2]))
print("scale: %s-fetch-ms-max %.1f" % (tag, 1e3 * lat[-1]))

def values(i, typ):
    out = {}
    for j in range(res.contents.get_numval(i)):
        v = ctx.pmExtractValue(res.contents.get_valfmt(i), res.contents.get_vlist(i, j),
                               descs[i].contents.type, typ)
        out[res.contents.get_inst(i, j)] = v.ull if typ == c_api.PM_TYPE_U64 else v.ul
    return out

records = values(2, c_api.PM_TYPE_U64)
alive = values(3, c_api.PM_TYPE_U32)
# An empty instance domain comes back as (None, None).
insts, inames = ctx.pmGetInDom(descs[2])
comm = {i: n.split(" ", 1)[1] if " " in n else "" for i, n in zip(insts or [], inames or [])}
storm_parent = int(os.environ.get("STORM_PARENT", "0"))
groups = {}
for i, r in records.items():
    g = comm.get(i, "")
    if g != "scaleidle":
        g = "stormparent" if i == storm_parent else "stormchild"
    n = groups.setdefault(g, [0, 0, 0, 0, 0])
    n[0] += 1
    n[1] += alive.get(i, 0)
    n[2] += r
    n[3] += r == 1
    n[4] += comm.get(i, "") == "?"
print("scale: %s-instances %d" % (tag, len(records)))
for g in ("scaleidle", "stormparent", "stormchild"):
    n = groups.get(g, [0, 0, 0, 0, 0])
    print("scale: %s-%s-instances %d" % (tag, g, n[0]))
    print("scale: %s-%s-alive %d" % (tag, g, n[1]))
    print("scale: %s-%s-records %d" % (tag, g, n[2]))
    print("scale: %s-%s-one-record %d" % (tag, g, n[3]))
    print("scale: %s-%s-unnamed %d" % (tag, g, n[4]))
print("scale: %s-processes %d" % (tag, ctx.pmExtractValue(res.contents.get_valfmt(4),
      res.contents.get_vlist(4, 0), descs[4].contents.type, c_api.PM_TYPE_U32).ul))
print("scale: %s-lost %d" % (tag, ctx.pmExtractValue(res.contents.get_valfmt(5),
      res.contents.get_vlist(5, 0), descs[5].contents.type, c_api.PM_TYPE_U64).ull))
EOF

cat >"$ov/kpmc/work.sh" <<EOF
. /etc/pcp.env
say() { echo "node: \$* (t=\$(cut -d' ' -f1 /proc/uptime)s)"; }
put() { echo "scale: \$*"; }
# No pid is used twice in the run: a new process on an ended instance's pid
# replaces that instance (by design), which would make the counts below
# inexact. 6,000 + 10,000 processes stay far below 4194304.
echo 4194304 >/proc/sys/kernel/pid_max
ag=\$(pgrep -x pmdakpmc)
put "agent-pid \$ag"
put "pmcd-timeout-s \$(pminfo -f pmcd.control.timeout | sed -n 's/ *value //p')"
# The agent's CPU time (utime + stime, s) and memory (kB).
stats() {
	set -- "\$1" \$(cut -d')' -f2 /proc/\$ag/stat)
	put "\$1-agent-cpu-s \$(awk -v u="\${13}" -v s="\${14}" -v h="\$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", (u + s) / h }')"
	put "\$1-agent-rss-kb \$(awk '/^VmRSS/ { print \$2 }' /proc/\$ag/status)"
	put "\$1-agent-hwm-kb \$(awk '/^VmHWM/ { print \$2 }' /proc/\$ag/status)"
}
value() { pminfo -f "\$1" 2>/dev/null | sed -n 's/ *value //p'; }
# until SECONDS COMMAND...: poll COMMAND every second, 1 on timeout.
until_true() {
	local n=\$1
	shift
	while ! "\$@"; do
		n=\$((n - 1))
		[ \$n -gt 0 ] || return 1
		sleep 1
	done
}
say "scale: start"
sleep 5
stats idle
python3 /kpmc/fetch.py idle 20 0.5

# $procs selected processes, asleep.
m0=\$(awk '/^MemAvailable/ { print \$2 }' /proc/meminfo)
/kpmc/scalework idle $procs /tmp/release >/tmp/idle.out 2>&1 &
idle=\$!
t0=\$(cut -d' ' -f1 /proc/uptime)
until_true 600 grep -q asleep /tmp/idle.out || say "scale: scalework did not start its children"
put "idle-children-made \$(sed -n 's/^scalework: \([0-9]*\) children asleep/\1/p' /tmp/idle.out)"
put "5000-matching \$(pgrep -xc scaleidle)"
put "5000-guest-mem-kb \$((m0 - \$(awk '/^MemAvailable/ { print \$2 }' /proc/meminfo)))"
put "5000-guest-mem-available-kb \$(awk '/^MemAvailable/ { print \$2 }' /proc/meminfo)"
# Listed once attached (rescan 2 s), served at the next save (2 s).
until_true 900 sh -c '[ "\$(pminfo -f kpmc.processes | sed -n "s/ *value //p")" = "$procs" ]' ||
	say "scale: kpmc.processes never reached $procs"
put "5000-listed-after-s \$(awk -v a="\$t0" -v b="\$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }')"
stats 5000-start
sleep 20
stats 5000
python3 /kpmc/fetch.py 5000 20 0.5
put "5000-matching-after \$(pgrep -xc scaleidle)"

# All released at once: one EXIT record each.
touch /tmp/release
wait \$idle
put "idle-rc \$?"
sed 's/^/node: /' /tmp/idle.out
until_true 300 sh -c '[ "\$(pminfo -f kpmc.processes | sed -n "s/ *value //p")" = 0 ]' ||
	say "scale: kpmc.processes never back to 0"
sleep 5
python3 /kpmc/fetch.py released 3 1
stats released

# The storm: its parent is attached by a scan before it forks.
/kpmc/scalestorm storm $storm 20000 /tmp/storm-go >/tmp/storm.out 2>&1 &
sp=\$!
put "storm-parent \$sp"
until_true 120 sh -c '[ "\$(pminfo -f kpmc.processes | sed -n "s/ *value //p")" = 1 ]' ||
	say "scale: the storm's parent not listed"
(
	while [ ! -f /tmp/storm-done ]; do
		echo "\$(cut -d')' -f2 /proc/\$ag/stat | awk '{ print \$12 + \$13 }') \$(awk '/^VmRSS/ { print \$2 }' /proc/\$ag/status)"
		sleep 1
	done >/tmp/storm.samples
) &
STORM_PARENT=\$sp python3 /kpmc/fetch.py storm /tmp/storm-done 0.5 >/tmp/storm.fetch 2>&1 &
fp=\$!
stats storm-start
t0=\$(cut -d' ' -f1 /proc/uptime)
touch /tmp/storm-go
wait \$sp
put "storm-rc \$?"
put "storm-s \$(awk -v a="\$t0" -v b="\$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }')"
stats storm-end
touch /tmp/storm-done
wait \$fp
grep '^scale: storm-fetch' /tmp/storm.fetch
grep -v '^scale: ' /tmp/storm.fetch | sed 's/^/node: storm fetch: /'
sed 's/^/node: /' /tmp/storm.out
put "storm-samples \$(wc -l </tmp/storm.samples)"
put "storm-agent-rss-kb-max \$(awk '\$2 > m { m = \$2 } END { print m + 0 }' /tmp/storm.samples)"
# What the agent serves stops changing (every record drained and saved).
prev=
for i in \$(seq 1 60); do
	cur=\$(pminfo -f kpmc.lost kpmc.processes | md5sum)\$(pmprobe -v kpmc.proc.records | md5sum)
	[ "\$cur" = "\$prev" ] && break
	prev=\$cur
	sleep 3
done
STORM_PARENT=\$sp python3 /kpmc/fetch.py after 5 1
stats after
# A stock client over every instance: pmrep's CSV, one column per process.
t0=\$(cut -d' ' -f1 /proc/uptime)
pmrep -s 2 -t 1 -r -o csv kpmc.proc.records >/tmp/pmrep.csv 2>/tmp/pmrep.err
put "after-pmrep-rc \$?"
put "after-pmrep-s \$(awk -v a="\$t0" -v b="\$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }')"
put "after-pmrep-columns \$(head -n 1 /tmp/pmrep.csv | tr ',' '\n' | grep -c kpmc.proc.records)"
head -c 300 /tmp/pmrep.err | sed 's/^/node: pmrep: /'
put "agent-pid-after \$(pgrep -x pmdakpmc)"
put "agent-status \$(pminfo -f pmcd.agent.status | sed -n 's/.*"kpmc"\] value //p')"
# pmcd's log and its agents' are in its working directory (node-init.sh
# starts it from /, as PCP's rc script does from \$PCP_LOG_DIR/pmcd).
logs=\$(readlink /proc/\$(pgrep -x pmcd)/cwd)
[ -f "\$logs/pmcd.log" ] || logs=\$(dirname "\$(find / -xdev -name pmcd.log 2>/dev/null | head -n 1)")
put "pmcd-log \$logs/pmcd.log"
put "pmcd-log-lines \$(wc -l <\$logs/pmcd.log)"
put "pmcd-log-bad \$(grep -ci 'kpmc.*\(dropp\|cannot\|timeout\|not responding\)\|\(dropp\|cannot\|timeout\|not responding\).*kpmc' \$logs/pmcd.log)"
grep -i 'kpmc' \$logs/pmcd.log | sed 's/^/node: pmcd.log: /'
grep -i 'error\|warning' \$logs/kpmc.log | head -n 20 | sed 's/^/node: kpmc.log: /'
put "agent-log-errors \$(grep -ci 'error' \$logs/kpmc.log)"
say "scale: done"
EOF
pmda_overlay_netmods "$ov"
(cd "$ov" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$work/overlay.cpio.gz"
cat "$root" "$work/overlay.cpio.gz" >"$work/node.cpio.gz"

qpid=
cleanup() {
	[ -n "$qpid" ] && kill "$qpid" 2>/dev/null
	wait 2>/dev/null
}
trap cleanup EXIT
rm -f "$work/node.log"
t=$(now)
# One guest, 1 vCPU; its user network reaches nothing (restrict=on): pmcd is
# asked from inside.
qemu-system-x86_64 -accel tcg -icount shift=0 -cpu Skylake-Client -m "$mem" -smp 1 \
	-kernel "$image" -initrd "$work/node.cpio.gz" \
	-append "console=ttyS0 quiet panic=-1 mitigations=off kpmc.node=1" \
	-netdev user,id=n0,restrict=on -device virtio-net-pci,netdev=n0 \
	-nographic -no-reboot </dev/null >"$work/node.log" 2>&1 &
qpid=$!
while ! grep -aq 'node: scale: done' "$work/node.log"; do
	kill -0 "$qpid" 2>/dev/null || fail "QEMU ended: $(tail -n 5 "$work/node.log")"
	[ "$(elapsed "$t" | cut -d. -f1)" -lt "$limit" ] ||
		fail "not done in ${limit}s: $(grep -a '^node:' "$work/node.log" | tail -n 3)"
	sleep 2
done
guest_s=$(elapsed "$t")
grep -a '^node:' "$work/node.log" | tr -d '\r' | sed 's/^/  /'
tr -d '\r' <"$work/node.log" | sed -n 's/^scale: \([^ ]*\) \(.*\)$/\1 \2/p' >"$work/figures"
sed 's/^/pmda-scale: /' "$work/figures"
echo "pmda-scale: guest-wall-s $guest_s"
# The guest's own clock (instructions, under -icount) at its last figure.
echo "pmda-scale: guest-uptime-s $(tr -d '\r' <"$work/node.log" | sed -n 's/^node: scale: done (t=\([0-9.]*\)s)$/\1/p')"
fig() { awk -v k="$1" '$1 == k { v = $2 } END { print v }' "$work/figures"; }

r=
# A client that failed left figures out: what it said.
! grep -aq '^Traceback' "$work/node.log" ||
	r="$r a python client failed: $(grep -a -A 8 '^Traceback' "$work/node.log" | tr -d '\r' | grep -av '^  ' | head -n 3 | tr '\n' ' ');"
# Nothing selected alive yet: no instance.
[ "$(fig idle-instances)" = 0 ] && [ "$(fig idle-processes)" = 0 ] ||
	r="$r idle: $(fig idle-instances) instances, kpmc.processes $(fig idle-processes);"
# Every process the selector names is an instance, alive, and nothing else
# is: the count is exact (pgrep's count of scaleidle, which must be PROCS).
[ "$(fig 5000-matching)" = "$procs" ] || r="$r $(fig 5000-matching) scaleidle processes, $procs made;"
for k in 5000-scaleidle-instances 5000-scaleidle-alive 5000-processes 5000-instances; do
	[ "$(fig $k)" = "$procs" ] || r="$r $k $(fig $k), $procs expected;"
done
# Asleep, none has sent a record yet.
[ "$(fig 5000-scaleidle-records)" = 0 ] || r="$r 5000-scaleidle-records $(fig 5000-scaleidle-records), 0 expected;"
# Released, each sent its EXIT record (run time far below the 1 s interval:
# that one only), delivered or counted lost: instances = PROCS, none alive,
# records + lost = PROCS.
lost0=$(fig released-lost)
[ "$(fig released-scaleidle-instances)" = "$procs" ] && [ "$(fig released-scaleidle-alive)" = 0 ] &&
	[ "$(($(fig released-scaleidle-records) + lost0))" = "$procs" ] ||
	r="$r released: $(fig released-scaleidle-instances) instances, $(fig released-scaleidle-alive) alive, $(fig released-scaleidle-records) records + $lost0 lost, $procs expected;"
# The storm: every child ran well under the interval, so sent exactly one
# record; a child whose record was lost has no instance, and the parent's
# records may be lost too, so STORM - lost <= child instances <= STORM, each
# with one record, none alive, and child records + parent records + lost
# since the release = STORM + parent records sent (>= 1: at least its EXIT).
lost=$(( $(fig after-lost) - lost0 ))
ci=$(fig after-stormchild-instances)
[ -n "$ci" ] && [ "$ci" -le "$storm" ] && [ "$ci" -ge $((storm - lost)) ] ||
	r="$r storm: $ci child instances with $lost records lost, $storm children;"
[ "$(fig after-stormchild-one-record)" = "$ci" ] && [ "$(fig after-stormchild-records)" = "$ci" ] ||
	r="$r storm: $(fig after-stormchild-records) child records over $ci instances ($(fig after-stormchild-one-record) with one);"
[ "$(fig after-stormchild-alive)" = 0 ] && [ "$(fig after-stormparent-alive)" = 0 ] && [ "$(fig after-processes)" = 0 ] ||
	r="$r after the storm: $(fig after-stormchild-alive) children and $(fig after-stormparent-alive) parent alive, kpmc.processes $(fig after-processes);"
[ "$(fig after-stormparent-instances)" = 1 ] && [ "$(($(fig after-stormparent-records) + lost))" -ge 1 ] ||
	r="$r storm parent: $(fig after-stormparent-instances) instances, $(fig after-stormparent-records) records;"
[ "$(fig after-scaleidle-instances)" = "$procs" ] || r="$r after the storm: $(fig after-scaleidle-instances) scaleidle instances kept (grace 3600), $procs expected;"
# pmrep, one column per instance.
[ "$(fig after-pmrep-rc)" = 0 ] && [ "$(fig after-pmrep-columns)" = "$(fig after-instances)" ] ||
	r="$r pmrep: rc $(fig after-pmrep-rc), $(fig after-pmrep-columns) columns, $(fig after-instances) instances;"
[ "$(fig storm-rc)" = 0 ] && [ "$(fig idle-rc)" = 0 ] || r="$r workload rc idle $(fig idle-rc), storm $(fig storm-rc);"
# Every fetch, at every stage, answered within pmcd's timeout (past it pmcd
# stops waiting and, after repeated ones, drops the agent).
to=$(fig pmcd-timeout-s)
for s in idle 5000 released storm after; do
	awk -v m="$(fig $s-fetch-ms-max)" -v t="$to" 'BEGIN { exit !(m != "" && t > 0 && m < 1000 * t) }' ||
		r="$r $s: slowest fetch $(fig $s-fetch-ms-max) ms, pmcd's timeout ${to} s;"
done
# Never restarted, never dropped: the same pid, pmcd's status 0 (running)
# for it, nothing about it in pmcd's log.
[ "$(fig agent-pid-after)" = "$(fig agent-pid)" ] || r="$r agent pid $(fig agent-pid), $(fig agent-pid-after) after;"
[ "$(fig agent-status)" = 0 ] || r="$r pmcd.agent.status of kpmc: '$(fig agent-status)';"
[ "$(fig pmcd-log-bad)" = 0 ] || r="$r pmcd's log has $(fig pmcd-log-bad) lines of kpmc dropped / cannot / timeout;"
# Memory: per process instance the agent keeps two task entries of 560
# bytes (the process and its thread: the thread table says which threads
# live even with threads off) in the tables it counts into, which grow by
# doubling (up to 2 x 1120 bytes), and a copy in the tables it serves (1120);
# a save makes the next copy before it frees the last (1120 more, for a
# moment); then an index slot, an instance name and the fetch's values in
# the PDU: under 5 KiB each. So the agent's RSS, and its peak (VmHWM), may
# exceed the idle agent's by no more than 5 KiB per instance served at the
# end (PROCS + STORM + 1).
n=$(fig after-instances)
for s in 5000-agent-rss 5000-agent-hwm storm-end-agent-rss storm-agent-rss-kb-max after-agent-rss after-agent-hwm; do
	k=$s-kb
	[ "$s" = storm-agent-rss-kb-max ] && k=$s
	awk -v a="$(fig $k)" -v i="$(fig idle-agent-rss-kb)" -v n="$n" \
		'BEGIN { exit !(a != "" && i > 0 && n > 0 && a - i <= n * 5) }' ||
		r="$r $k: $(fig $k) kB, beyond idle $(fig idle-agent-rss-kb) kB + 5 kB x $n instances;"
done
[ -z "$r" ] || fail "$r"
echo "pmda-scale: PASS ($guest_s s from the guest's start to its last figure)"
