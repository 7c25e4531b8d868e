#!/usr/bin/env bash
# A Slurm cluster of two x86_64 guests counted by kpmc's SPANK plugin: each
# a Debian root with PCP and Slurm (scripts/pcp-root.sh), the kpmc module
# (perf backend: software events, since x86_64 TCG has no PMU), pmdakpmc
# serving the plugin's step reports (steps /var/spool/kpmc), pmcd and
# pmproxy. node1 runs slurmctld; both run slurmd with Slurm's cgroup v2
# plugin (proctrack/cgroup), the SPANK plugin kpmc.so and munge. The guests
# talk Slurm over their own network (a QEMU socket network: a TCP connection
# on the host's 127.0.0.1 carries their Ethernet frames); the host reaches
# pmproxy through QEMU user-network port forwards on 127.0.0.1, and its
# Prometheus scrapes both nodes.
# Jobs (user hpc, tests/pmda/slurm-node.sh): a on node1 and b on node2, each
# a batch step running a known loop (2 * ITERS instructions: under -icount
# shift=0, 2 * ITERS ns of cpu-clock), with a process outside Slurm on node1
# claiming job a in its environment; c spanning both nodes (srun's step 0,
# the loop once on each); and three refusals (an unknown event, two sets, no
# module). Checked on the host: every report's cpu-clock within $bound of the
# CLI's count of the same loop on node1 (the outsider not counted in job a:
# it would double it), the CSV and JSON in the user's directory owned by the
# user, the same totals through PromQL by job label per node, the refusals'
# messages.
#   tests/pmda/slurm-cluster.sh [WORKDIR]
# KPMC_MODULE=kpmc.ko: use this module (built for Debian's 6.1 amd64 kernel).
# Prints "slurm-cluster: PASS" or "slurm-cluster: FAIL: why"; exit 0 / 1.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/pmda/setup.sh"
fail() { echo "slurm-cluster: FAIL: $*"; exit 1; }
work=${1:-${TMPDIR:-/tmp}/kpmc-slurm-cluster}
port0=${KPMC_SLURM_PORT:-44600}
prom_port=$((port0 + 20))
link_port=$((port0 + 22))
limit=${KPMC_SLURM_TIMEOUT:-900}
iters=${KPMC_SLURM_ITERS:-200000000}
# A step's count is its program's and what runs in its cgroup around it:
# slurmstepd's part of the task between its fork and its exec, and for a
# batch step Slurm's script; measured 14.3 to 17.1 million instructions
# (ns) over 2e8 iterations' 4e8 (3.6 to 4.3 %): the bound on a report over
# the loop's own count. The batch jobs are held to a tighter one: less what
# job d, the same batch step with an empty loop, counted, within 1 %.
bound=${KPMC_SLURM_BOUND:-0.06}

mkdir -p "$work"
t=$(now)
pmda_guest_setup
make -s -C "$top/userland/slurm" OUT="$work/slurm-build" >"$work/slurm.log" 2>&1 ||
	fail "kpmc.so: $(tail -n 3 "$work/slurm.log")"
workload=$top/build/x86_64/progs/loopsleep
cli=$top/build/x86_64/bin/kpmc
[ -x "$workload" ] && [ -x "$cli" ] || fail "no x86_64 loopsleep or kpmc CLI (make progs userland)"
command -v prometheus >/dev/null || fail "no prometheus (scripts/install-deps.sh installs Debian's)"
echo "slurm-cluster: root, module, agent and plugin ready ($(elapsed "$t") s)"

# cpu-clock and context switches of the perf backend's software events.
events=pmc0=0x100000000,os0=1,pmc1=0x100000003,os1=1
ov=$work/overlay
rm -rf "$ov"
mkdir -p "$ov/kpmc/pmda" "$ov/kpmc/slurm"
cp "$top/tests/pmda/node-init.sh" "$ov/init"
chmod 755 "$ov/init"
cp "$work/kpmc.ko" "$cli" "$top/tests/pmda/slurm-node.sh" "$ov/kpmc/"
cp "$workload" "$ov/kpmc/jobloop"
cp "$top/pmda/kpmc.conf" "$ov/kpmc/default.conf"
cp "$work/pmda-build/pmdakpmc" "$top"/pmda/{Install,Remove,domain.h,pmns,root,help} "$ov/kpmc/pmda/"
# pmdakpmc serves the plugin's steps, and counts every job's cgroup itself
# (the module's cgroup counting, beside the plugin's on the same counters:
# the same events), found within a rescan of its making.
printf 'steps /var/spool/kpmc\nevents %s\nkernel on\ncgroups /system.slice/*slurmstepd.scope/job_*\nrescan 200\ninterval 200\n' \
	"$events" >"$ov/kpmc/kpmc.conf"
printf 'ITERS=%s\nEVENTS=%s\n' "$iters" "$events" >"$ov/kpmc/slurm.env"
cp "$work/slurm-build/kpmc.so" "$ov/kpmc/slurm/"
cat >"$ov/kpmc/slurm/slurm.conf" <<EOF
ClusterName=kpmc
SlurmctldHost=node1(192.168.76.1)
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/cgroup
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/linear
MpiDefault=none
ReturnToService=2
SlurmdSpoolDir=/var/spool/slurmd
StateSaveLocation=/var/spool/slurmctld
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
# TCG guests are slow: generous timeouts.
MessageTimeout=60
SlurmdTimeout=600
SlurmctldTimeout=600
BatchStartTimeout=120
NodeName=node1 NodeAddr=192.168.76.1 CPUs=1 RealMemory=900 State=UNKNOWN
NodeName=node2 NodeAddr=192.168.76.2 CPUs=1 RealMemory=900 State=UNKNOWN
PartitionName=main Nodes=node[1-2] Default=YES MaxTime=INFINITE State=UP
EOF
# No systemd in these guests: slurmd makes its cgroups itself.
printf 'CgroupPlugin=cgroup/v2\nIgnoreSystemd=yes\n' >"$ov/kpmc/slurm/cgroup.conf"
printf 'required /usr/lib/x86_64-linux-gnu/slurm/kpmc.so\n' >"$ov/kpmc/slurm/plugstack.conf"
pmda_overlay_netmods "$ov"
(cd "$ov" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$work/overlay.cpio.gz"
cat "$root" "$work/overlay.cpio.gz" >"$work/node.cpio.gz"

pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
}
trap cleanup EXIT
rm -rf "$work"/node[12].* "$work/prometheus"
t=$(now)
for n in 1 2; do
	# node1 listens for the cluster link, node2 connects to it.
	if [ "$n" = 1 ]; then link="listen=127.0.0.1:$link_port"; else link="connect=127.0.0.1:$link_port"; fi
	qemu-system-x86_64 -accel tcg -icount shift=0 -cpu Skylake-Client -m 1024 -smp 1 \
		-kernel "$image" -initrd "$work/node.cpio.gz" \
		-append "console=ttyS0 quiet panic=-1 mitigations=off kpmc.node=$n" \
		-netdev "user,id=n0,hostfwd=tcp:127.0.0.1:$((port0 + n))-:44322" \
		-device virtio-net-pci,netdev=n0,addr=0x3 \
		-netdev "socket,id=n1,$link" -device "virtio-net-pci,netdev=n1,addr=0x4,mac=52:54:00:76:00:0$n" \
		-nographic -no-reboot </dev/null >"$work/node$n.log" 2>&1 &
	pids+=($!)
	[ "$n" = 1 ] && sleep 1
done
pmda_prometheus "$work/prometheus" "$prom_port" "127.0.0.1:$((port0 + 1))" "127.0.0.1:$((port0 + 2))"
pids+=($!)
promql() { pmda_promql "$prom_port" "$1"; }

while ! grep -aq 'node: jobs done' "$work/node1.log"; do
	for n in 1 2; do
		kill -0 "${pids[$((n - 1))]}" 2>/dev/null || fail "node$n's QEMU ended: $(tail -n 5 "$work/node$n.log")"
	done
	[ "$(elapsed "$t" | cut -d. -f1)" -lt "$limit" ] || fail "jobs not done in ${limit}s: $(grep -a '^node:' "$work/node1.log" | tail -n 5)"
	sleep 2
done
echo "slurm-cluster: jobs done $(elapsed "$t") s after both QEMUs started"
for n in 1 2; do
	grep -a '^node:' "$work/node$n.log" | grep -v 'node: report' | sed "s/^/  node$n /"
done

# Each node's reports: "FILE OWNER JSON" from the lines the guests printed.
reports() {
	grep -a "^node: report .*\.json owner" "$work/node$1.log" | tr -d '\r' |
		sed 's/^node: report \([^ ]*\) owner \([^:]*\): \(.*\)$/\1 \2 \3/'
}
jobs=$(grep -a 'node: submitted jobs' "$work/node1.log" | sed 's/.*a=\([0-9]*\) b=\([0-9]*\).*/\1 \2/')
read -r ja jb <<<"$jobs"
jc=$(grep -a 'node: submitted job c=' "$work/node1.log" | sed 's/.*c=\([0-9]*\).*/\1/')
jd=$(grep -a 'node: submitted job d=' "$work/node1.log" | sed 's/.*d=\([0-9]*\).*/\1/')
je=$(grep -a 'node: submitted job e=' "$work/node1.log" | sed 's/.*e=\([0-9]*\).*/\1/')
jf=$(grep -a 'node: submitted job f=' "$work/node1.log" | sed 's/.*f=\([0-9]*\).*/\1/')
jg=$(grep -a 'node: submitted job g=' "$work/node1.log" | sed 's/.*g=\([0-9]*\).*/\1/')
jh=$(grep -a 'node: submitted job h=' "$work/node1.log" | sed 's/.*h=\([0-9]*\).*/\1/')
[ -n "$ja" ] && [ -n "$jb" ] && [ -n "$jc" ] && [ -n "$jd" ] && [ -n "$je" ] && [ -n "$jf" ] && [ -n "$jg" ] && [ -n "$jh" ] || fail "no job ids: $(grep -a 'node: submitted' "$work/node1.log")"
echo "slurm-cluster: jobs a=$ja (node1, with an outsider claiming it) b=$jb (node2) c=$jc (both nodes) d=$jd (node1, empty loop) e=$je (sbatch --kpmc, srun inside, both nodes) f=$jf (two steps at once on node1)"
# Each node's reports are written at its step's end, which may come after
# the submitting node is done: all four in the users' directories.
for i in $(seq 1 120); do
	[ "$(reports 1 | grep -c '^/home/hpc/')" -ge 7 ] && [ "$(reports 2 | grep -c '^/home/hpc/')" -ge 4 ] && break
	sleep 1
done
# The known work: the loop's 2 * ITERS instructions, 1 ns each under -icount shift=0.
w=$((2 * iters))
r=
check_report() { # NODE JOB STEP [LOOPS]: the report in the user's directory and the spool, within the bound
	local node=$1 job=$2 step=$3 loops=${4:-1} home spool v rn
	home=$(reports "${node#node}" | awk -v f="/home/hpc/kpmc-$job.$step.$node.json" '$1 == f { $1 = ""; print }')
	spool=$(reports "${node#node}" | awk -v f="/var/spool/kpmc/kpmc-$job.$step.$node.json" '$1 == f { $1 = ""; print }')
	[ -n "$home" ] || { r="$r no kpmc-$job.$step.$node.json in hpc's directory;"; return; }
	[ "${home%% *}" = " hpc" ] || [ "$(echo "$home" | awk '{ print $1 }')" = hpc ] ||
		r="$r kpmc-$job.$step.$node.json not owned by hpc;"
	[ "$(echo "$spool" | awk '{ print $1 }')" = root ] || r="$r spool report of $job.$step on $node not root's;"
	[ "$(echo "$home" | cut -d' ' -f3-)" = "$(echo "$spool" | cut -d' ' -f3-)" ] ||
		r="$r $job.$step on $node: the user's and the spool's reports differ;"
	v=$(echo "$home" | cut -d' ' -f3- | jq -r '.counts["pmc0=0x100000000"]')
	eval "switches_${node}_${job}=\$(echo \"\$home\" | cut -d' ' -f3- | jq -r '.counts[\"pmc1=0x100000003\"]')"
	rn=$(echo "$home" | cut -d' ' -f3- | jq -r '.run_ns')
	eval "got_${node}_${job}=\$v"
	awk -v n="$node" -v j="$job.$step" -v a="$v" -v w="$((loops * w))" -v b="$bound" -v rn="$rn" 'BEGIN {
		printf "  %s job %s: cpu-clock %d ns = the loop'"'"'s %d + %d (%.2f %%, bound %.1f %%), run_ns %d\n",
			n, j, a, w, a - w, 100 * (a - w) / w, 100 * b, rn
		d = a - rn; if (d < 0) d = -d
		exit !(a >= w && a <= w * (1 + b) && d <= a * 0.01) }' ||
		r="$r $job.$step on $node: cpu-clock $v (run_ns $rn) not within [$w, $w x (1 + $bound)];"
}
check_report node1 "$ja" batch
check_report node2 "$jb" batch
check_report node1 "$jc" 0
check_report node2 "$jc" 0
check_report node2 "$je" 0
# Job d: the batch step around an empty loop, the rest of jobs a and b's counts.
home=$(reports 1 | awk -v f="/home/hpc/kpmc-$jd.batch.node1.json" '$1 == f { $1 = $2 = ""; print }')
base=$(echo "$home" | jq -r '.counts["pmc0=0x100000000"]')
# Job b only: job a shares its CPU with the outsider, and each of its
# switches charges the switch path to it (234 to 455 switches: +0.36 to
# +1.02 % over five runs); job a is held to the 6 % above, which the
# outsider's share (as much CPU time as job a's own) would break.
for nj in "node2 $jb"; do
	set -- $nj
	v=$(eval echo \$got_$1_$2)
	awk -v n="$1" -v j="$2" -v a="$v" -v b="$base" -v w="$w" 'BEGIN {
		printf "  %s job %s.batch less job %s (the same batch step, empty loop: %d): %d = the loop'"'"'s %d %+.3f %%\n",
			n, j, "'"$jd"'", b, a - b, w, 100 * (a - b - w) / w
		d = a - b - w; if (d < 0) d = -d; exit !(b > 0 && d <= w * 0.01) }' ||
		r="$r job $2 on $1 less the empty batch step $base: not within 1 % of $w;"
done
# Job e (sbatch --kpmc, srun inside): node1's batch step counts the job
# there, the step's task with it: less job d's empty batch step, at least
# the loop, and at most 25 % more (srun's own start, authentication and
# launch in the batch script: measured 19.5 %). Counting the batch step's
# cgroup alone would give job d's count and srun's, under a fifth of it.
home=$(reports 1 | awk -v f="/home/hpc/kpmc-$je.batch.node1.json" '$1 == f { $1 = $2 = ""; print }')
v=$(echo "$home" | jq -r '.counts["pmc0=0x100000000"]')
awk -v a="$v" -v b="$base" -v w="$w" 'BEGIN {
	printf "  node1 job %s.batch (the job on node1: script, srun, the step'"'"'s task) less job %s: %d = the loop + %.2f %%\n",
		"'"$je"'", "'"$jd"'", a - b, 100 * (a - b - w) / w
	exit !(a - b >= w && a - b <= w * 1.25) }' || r="$r job $je on node1: $v less $base not within [1, 1.25] x $w;"
# Its step on node1, counted beside the batch step that counts it too.
check_report node1 "$je" 0
# Job f: its first step counted (5 loops' worth); while it ran, the step
# with other events ran to its end uncounted, the user told why, no report
# of it; the third, with the same events, counted its own loop beside it.
check_report node1 "$jf" 0 5
check_report node1 "$jf" 2
# Job h (interval=100): its totals within the bound, and its counts over
# time: an interval a line (each CPU's k-th record of the step's cgroup is
# interval k), together exactly the totals (the same records), none with
# more run time than its 100 ms (+10 %: a late tick's record ends late).
check_report node2 "$jh" 0
tot=$(eval echo \$got_node2_$jh)
grep -a "node: report /home/hpc/kpmc-$jh.0.node2.series.csv owner hpc: " "$work/node2.log" | tail -n 1 |
	sed 's/.*owner hpc: //' | tr ' ' '\n' | grep -E '^(interval,|[0-9]+,)' >"$work/series.csv"
sed 's/^/  series: /' "$work/series.csv"
awk -F, -v tot="$tot" 'NR == 1 { ok = ($1 == "interval" && $4 == "pmc0=0x100000000"); next }
	{ n++; s += $4; if ($3 > 110000000) ok = 0 }
	END { printf "  job %s.0 over time: %d intervals of 100 ms, %d in all (totals %d)\n", "'"$jh"'", n, s, tot
		exit !(ok && n >= 4 && s == tot) }' "$work/series.csv" ||
	r="$r job $jh's counts over time: not 4 intervals or more of 100 ms adding up to its totals $tot;"
grep -aq "node: job f: .*kpmc: job $jf step 1 is not counted on node1: .*system-wide monitoring is already on with other events.* other-rc=0 second-rc=0 first-still-running" "$work/node1.log" ||
	r="$r job $jf's overlapping steps: $(grep -a 'node: job f:' "$work/node1.log");"
grep -aq "kpmc-$jf\.1\." "$work/node1.log" && r="$r job $jf's uncounted step left a report;"
# The outsider (SLURM_JOB_ID=a in its environment) ran beside job a from
# before its release to after its end, on node1's one CPU: job a's task
# switched out many times more than job b's, and job a's count is still one
# loop's (counting the outsider, even its share, would add up to 100 %).
sa=$(eval echo \$switches_node1_$ja)
sb=$(eval echo \$switches_node2_$jb)
echo "  context switches of job $ja's step (the outsider beside it): $sa; job $jb's (alone): $sb"
grep -aq 'node: outsider alive after job a: yes' "$work/node1.log" || r="$r the outsider was not running when job $ja ended;"
[ -n "$sa" ] && [ -n "$sb" ] && [ "$sa" -ge $((2 * sb + 20)) ] || r="$r job $ja's step did not share its CPU (switches $sa vs $sb);"
# The CLI's count of the same loop in node1: the loop, its process's own
# start and exit, and the interrupts it takes (Prometheus scraping pmproxy
# every 2 s, Slurm's pings; cpu-clock counts kernel mode): +0.20 to +0.81 %
# over six runs.
cli_v=$(grep -a 'node: cli: ' "$work/node1.log" | sed 's/^.*node: cli: //' |
	awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { print $4; exit }')
awk -v a="$cli_v" -v w="$w" 'BEGIN { printf "  node1 kpmc -A of the same loop: %d ns (the loop + %.2f %%)\n", a, 100 * (a - w) / w;
	exit !(a >= w && a <= w * 1.02) }' || r="$r CLI count '$cli_v' not within 2 % over $w;"
# Refusals before any task ran, each saying why.
grep -aq "node: refused-event.*kpmc: --kpmc=no_such_event: unknown event 'no_such_event'" "$work/node1.log" ||
	r="$r unknown event not refused by name;"
grep -aq "node: refused-option.*kpmc: --kpmc: character ';' in 'instr;cycles'" "$work/node1.log" ||
	r="$r two event sets not refused;"
grep -aq "node: refused-nomodule.*kpmc: --kpmc: the kpmc module is not loaded on this node" "$work/node1.log" ||
	r="$r a node without the module did not refuse;"
[ -z "$r" ] || fail "$r"

# Prometheus: the steps pmdakpmc serves from each node's spool, by job label.
sel="kpmc_step_pmc0"
for i in $(seq 1 60); do
	[ "$(promql "$sel" | wc -l)" -eq 11 ] && break
	sleep 1
done
for job in "$ja" "$jb" "$jc"; do
	promql "$sel{job=\"$job\"}" >"$work/promql.$job"
	sed "s/^/  promql $sel{job=\"$job\"}: /" "$work/promql.$job"
done
[ "$(wc -l <"$work/promql.$ja")" -eq 1 ] && [ "$(awk '{ print $1 }' "$work/promql.$ja")" = node1 ] ||
	r="$r job $ja: not one series, from node1;"
[ "$(awk '$1 == "node1" { print $3 }' "$work/promql.$ja")" = "$(eval echo \$got_node1_$ja)" ] ||
	r="$r job $ja: prometheus differs from the report;"
[ "$(wc -l <"$work/promql.$jb")" -eq 1 ] && [ "$(awk '$1 == "node2" { print $3 }' "$work/promql.$jb")" = "$(eval echo \$got_node2_$jb)" ] ||
	r="$r job $jb: not node2's report;"
[ "$(awk '$1 == "node1" { print $3 }' "$work/promql.$jc")" = "$(eval echo \$got_node1_$jc)" ] &&
	[ "$(awk '$1 == "node2" { print $3 }' "$work/promql.$jc")" = "$(eval echo \$got_node2_$jc)" ] &&
	[ "$(wc -l <"$work/promql.$jc")" -eq 2 ] || r="$r job $jc: not one series per node equal to their reports;"
promql "sum by (job) ($sel{job=\"$jc\"})" | sed "s/^/  promql sum by (job) over both nodes, job $jc: /"
promql "$sel{job=\"$ja\",step=\"batch\",user=\"hpc\"}" | grep -q . || r="$r job $ja: no step and user labels;"
# Job g, counted by pmdakpmc alone (its job's cgroup, the cgroups directive):
# one series, node2's, its job label from the path slurmd made, within 12 %
# over the loop (the agent found the cgroup while the script slept, before
# the loop). The job's cgroup holds more than a step's report: the batch
# step's slurmstepd and the script too; measured +1.81, +1.83, +1.85 and
# once +5.74 % (the step reports' own bound, 6 %, was too close for it).
gbound=0.12
promql "kpmc_cgroup_pmc0{job=\"$jg\"}" >"$work/promql.cg"
sed "s/^/  promql kpmc_cgroup_pmc0{job=\"$jg\"}: /" "$work/promql.cg"
v=$(awk '$1 == "node2" { print $3 }' "$work/promql.cg")
[ "$(wc -l <"$work/promql.cg")" -eq 1 ] && [ "$(awk '{ print $2 }' "$work/promql.cg")" = "/system.slice/node2_slurmstepd.scope/job_$jg" ] ||
	r="$r job $jg: not one cgroup series from node2;"
awk -v a="$v" -v w="$w" -v b="$gbound" 'BEGIN { printf "  node2 job %s counted by pmdakpmc: %d ns = the loop + %.2f %%\n", "'"$jg"'", a, 100 * (a - w) / w
	exit !(a >= w && a <= w * (1 + b)) }' || r="$r job $jg's cgroup counted '$v', not within [$w, $w x (1 + $gbound)];"
[ -z "$r" ] || fail "$r"
echo "slurm-cluster: PASS in $(elapsed "$t") s of guests"
