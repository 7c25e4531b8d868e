#!/usr/bin/env bash
# Two x86_64 guests, each a Debian root with PCP (scripts/pcp-root.sh), the
# kpmc module (perf backend: software events under TCG) and pmdakpmc, with
# pmcd and pmproxy running; reachable from the host only through QEMU's
# user-network port forwards on 127.0.0.1. The guests run under -icount
# shift=0: guest time is the instruction count (1 ns each), so the
# cpu-clock of a deterministic loop is a reproducible figure.
# Each node runs the same workload twice: once counted by pmdakpmc
# (loopsleep, in the cgroup slurmstepd would give job 4242's step 0, with
# SLURM_JOB_ID=666 in its environment, which the agent must not believe),
# once under the kpmc CLI (the same binary copied as loopcli, which the
# agent's "process comm=loopsleep user=root" leaves alone: a thread can be
# in one kpmc session only). On the host,
# Debian's Prometheus (/usr/bin/prometheus with its own configuration and
# storage under WORKDIR, stopped at the end) scrapes both pmproxy /metrics
# endpoints; PromQL over both nodes gives per-node, per-process values that
# must match the CLI's within $bound. In each guest pmlogger records an
# archive of kpmc metrics and pmrep replays it. Then pmdakpmc is killed and
# pmcd starts it again: nothing it had reported is lost.
#   tests/pmda/two-nodes.sh [WORKDIR]
# KPMC_MODULE=kpmc.ko: use this module (built for Debian's 6.1 amd64 kernel)
# instead of building one. Prints "two-nodes: PASS" or "two-nodes: FAIL: why"
# and the measured figures; exit 0 / 1.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-${TMPDIR:-/tmp}/kpmc-two-nodes}
port0=${KPMC_TWO_NODES_PORT:-44500}
prom_port=$((port0 + 20))
go_port=$((port0 + 21))
limit=${KPMC_TWO_NODES_TIMEOUT:-900}
iters=${KPMC_TWO_NODES_ITERS:-300000000}
# Bound on |agent - CLI| / CLI for the cpu-clock of the same loop in the same
# guest. Under -icount shift=0 the loop's own 2 * iters instructions (6e8)
# are 6e8 ns in both runs exactly. What differs is the kernel's work charged
# to the task while it is counted: timer ticks (250 Hz over 0.6 s: 150 of a
# few thousand instructions, < 1e6 ns), each session's records (the agent's
# every 100 ms of on-CPU time, the CLI's at its own period) and the paths
# around the loop (the end of its first nanosleep, exit: < 1e6). Together
# < 3e6 ns of 6e8: 0.5 %.
bound=${KPMC_TWO_NODES_BOUND:-0.005}
. "$top/tests/pmda/setup.sh"
fail() { echo "two-nodes: FAIL: $*"; exit 1; }

mkdir -p "$work"
t=$(now)
pmda_guest_setup
echo "two-nodes: PCP root $root, module and agent ($(elapsed "$t") s)"
t=$(now)
workload=$top/build/x86_64/progs/loopsleep
[ -x "$workload" ] || fail "no x86_64 loopsleep workload at $workload (make progs)"
cli=$top/build/x86_64/bin/kpmc
[ -x "$cli" ] || fail "no x86_64 kpmc CLI at $cli (make userland)"
command -v prometheus >/dev/null || fail "no prometheus (scripts/install-deps.sh installs Debian's)"
echo "two-nodes: module and agent built ($(elapsed "$t") s)"

# What both nodes get on top of the PCP root.
ov=$work/overlay
rm -rf "$ov"
mkdir -p "$ov/kpmc/pmda"
cp "$top/tests/pmda/node-init.sh" "$ov/init"
chmod 755 "$ov/init"
cp "$work/kpmc.ko" "$workload" "$cli" "$ov/kpmc/"
cp "$workload" "$ov/kpmc/loopcli"
cp "$top/pmda/kpmc.conf" "$ov/kpmc/default.conf"
mkdir -p "$ov/kpmc/tests/pmda"
cp "$top/tests/pmda/agent-host.sh" "$ov/kpmc/tests/pmda/"
cp "$work/pmda-build/pmdakpmc" "$top"/pmda/{Install,Remove,domain.h,pmns,root,help} "$ov/kpmc/pmda/"
# Software events of the perf backend: cpu-clock (ns) and context switches.
events=pmc0=0x100000000,os0=1,pmc1=0x100000003,os1=1
cat >"$ov/kpmc/kpmc.conf" <<EOF
events $events
interval 100
kernel on
process comm=loopsleep user=root
grace 3600
rescan 500
EOF
# loopsleep sleeps 2 s before its loop: the agent (rescan 500 ms) has
# attached it by then, as the CLI has from its exec. Once the host says so
# (its Prometheus has what it needs), pmdakpmc is killed and pmcd (HUP)
# starts it again.
cat >"$ov/kpmc/work.sh" <<EOF
sleep 2
# Job 4242's step 0 as Slurm's cgroup v2 plugin lays it out.
cg=/sys/fs/cgroup/system.slice/slurmstepd.scope/job_4242/step_0
mkdir -p \$cg
SLURM_JOB_ID=666 sh -c "echo \\\$\\\$ >\$cg/cgroup.procs && exec /kpmc/loopsleep 2000 $iters 0"
echo "node: agent workload done rc=\$?"
# The agent serves the totals of its last save (every 2 s at most): wait
# until it serves the exited workload (alive 0, its final counts with it).
for i in \$(seq 1 40); do
	pminfo -f kpmc.proc.alive 2>/dev/null | grep -q 'loopsleep"] value 0' && break
	sleep 0.5
done
/kpmc/kpmc -A -c $events -- /kpmc/loopcli 2000 $iters 0 >/tmp/cli.out 2>&1
echo "node: cli rc=\$?"
sed 's/^/node: cli: /' /tmp/cli.out
pminfo -l kpmc.proc.pmc0 | sed 's/^/node: labels: /'
# A pmlogger archive of 3 samples, replayed with pmrep (raw counter values).
printf 'log mandatory on every 1 second {\n\tkpmc.proc.pmc0\n\tkpmc.proc.run_ns\n\tkpmc.proc.alive\n}\n' >/tmp/logger.conf
mkdir -p /tmp/arch
\$PCP_BINADM_DIR/pmlogger -c /tmp/logger.conf -s 3 -l /tmp/pmlogger.log /tmp/arch/kpmc
echo "node: pmlogger rc=\$?"
pmrep -a /tmp/arch/kpmc -r -o csv -i '.* loopsleep' kpmc.proc.pmc0 kpmc.proc.run_ns >/tmp/pmrep.out 2>&1
echo "node: pmrep rc=\$?"
sed 's/^/node: pmrep: /' /tmp/pmrep.out
echo "node: workload done"
for i in \$(seq 1 900); do
	busybox wget -q -O /dev/null http://10.0.2.2:$go_port/go 2>/dev/null && break
	sleep 1
done
kill -9 \$(pgrep -x pmdakpmc)
echo "node: agent killed"
sleep 1
pmsignal -s HUP pmcd
for i in \$(seq 1 60); do
	pminfo -f kpmc.session.active 2>/dev/null | grep -q 'value 1' && break
	sleep 0.5
done
echo "node: agent restarted (\$(pgrep -x pmdakpmc))"
EOF
pmda_overlay_netmods "$ov"
(cd "$ov" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$work/overlay.cpio.gz"
# The kernel unpacks both archives in turn: the root, then kpmc's files.
cat "$root" "$work/overlay.cpio.gz" >"$work/node.cpio.gz"

pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
}
trap cleanup EXIT
# (a background job truncates its log only once it runs: no old log may answer)
rm -rf "$work"/node[12].* "$work/www" "$work/prometheus"
t=$(now)
for n in 1 2; do
	qemu-system-x86_64 -accel tcg -icount shift=0 -cpu Skylake-Client -m 1024 -smp 1 \
		-kernel "$image" -initrd "$work/node.cpio.gz" \
		-append "console=ttyS0 quiet panic=-1 mitigations=off kpmc.node=$n" \
		-netdev "user,id=n0,hostfwd=tcp:127.0.0.1:$((port0 + n))-:44322" \
		-device virtio-net-pci,netdev=n0 \
		-nographic -no-reboot </dev/null >"$work/node$n.log" 2>&1 &
	pids+=($!)
done

# Prometheus scrapes both nodes' kpmc metrics (pmproxy: names=kpmc, the
# subtree) every 2 s; the guests tell the host when to stop through a file
# served to them at 10.0.2.2 (QEMU's user network: the host's 127.0.0.1).
mkdir -p "$work/www"
pmda_prometheus "$work/prometheus" "$prom_port" "127.0.0.1:$((port0 + 1))" "127.0.0.1:$((port0 + 2))"
pids+=($!)
python3 -m http.server --bind 127.0.0.1 --directory "$work/www" "$go_port" >"$work/www.log" 2>&1 &
pids+=($!)
promql() { pmda_promql "$prom_port" "$1"; }

for n in 1 2; do
	while ! grep -aq 'node: ready' "$work/node$n.log"; do
		kill -0 "${pids[$((n - 1))]}" 2>/dev/null || fail "node$n's QEMU ended: $(tail -n 5 "$work/node$n.log")"
		[ "$(elapsed "$t" | cut -d. -f1)" -lt "$limit" ] || fail "node$n not ready in ${limit}s: $(tail -n 5 "$work/node$n.log")"
		sleep 1
	done
	echo "two-nodes: node$n ready $(elapsed "$t") s after both QEMUs started"
	grep -a '^node:' "$work/node$n.log" | sed "s/^/  node$n /"
done
curl -s --max-time 5 "http://127.0.0.1:$prom_port/-/ready" | grep -q Ready || fail "prometheus not ready: $(tail -n 3 "$work/prometheus/log")"
# The workloads end; their final counts stay (grace) and are what both nodes report.
for n in 1 2; do
	while ! grep -aq 'node: workload done' "$work/node$n.log"; do
		[ "$(elapsed "$t" | cut -d. -f1)" -lt "$limit" ] || fail "node$n's workload not done in ${limit}s"
		sleep 1
	done
done
done_at=$(date +%s)
echo "two-nodes: workloads done $(elapsed "$t") s after start"
r=
# tests/pmda/agent-host.sh's 13 checks of the agent under dbpmda, run in node1.
grep -a 'node: agent-host: ' "$work/node1.log" | sed 's/^.*node: /  node1 /'
[ "$(grep -ac 'node: agent-host: ok: ' "$work/node1.log")" -eq 13 ] &&
	! grep -aq 'node: agent-host: FAIL' "$work/node1.log" || r="$r node1: agent-host.sh under dbpmda failed;"
for n in 1 2; do
	grep -a 'node: \(agent workload\|cli\|labels\|pmlogger\|pmrep\)' "$work/node$n.log" | sed "s/^/  node$n /"
	# The agent took no session while its configuration named nobody, one after SIGHUP.
	grep -aq 'node: idle agent: sessions: 0, active 0 ' "$work/node$n.log" ||
		r="$r node$n: $(grep -a 'node: idle agent' "$work/node$n.log");"
	grep -aq 'node: configured agent: sessions: 1, active 1 ' "$work/node$n.log" ||
		r="$r node$n: $(grep -a 'node: configured agent' "$work/node$n.log");"
	url="http://127.0.0.1:$((port0 + n))/metrics?names=kpmc.session.active,kpmc.proc.pmc0,kpmc.proc.pmc1,kpmc.proc.run_ns,kpmc.proc.alive,kpmc.lost"
	curl -s --max-time 20 "$url" >"$work/node$n.metrics" || r="$r node$n: curl failed;"
	grep -v '^#' "$work/node$n.metrics" | sed "s/^/  node$n /" | head -n 12
	grep -q '^kpmc_session_active{[^}]*} 1$' "$work/node$n.metrics" || r="$r node$n: session not active;"
	grep -q "hostname=\"node$n\"" "$work/node$n.metrics" || r="$r node$n: no hostname=node$n label;"
	# cpu-clock of the workload: its on-CPU time in ns; the record's run time measures the same.
	v=$(sed -n 's/^kpmc_proc_pmc0{.*instname="[0-9]* loopsleep".*} \([0-9]*\)$/\1/p' "$work/node$n.metrics" | head -n1)
	[ -n "$v" ] || r="$r node$n: no kpmc_proc_pmc0 for loopsleep;"
	rn=$(sed -n 's/^kpmc_proc_run_ns{.*instname="[0-9]* loopsleep".*} \([0-9]*\)$/\1/p' "$work/node$n.metrics" | head -n1)
	if [ -n "$v" ] && [ -n "$rn" ]; then
		awk -v a="$v" -v b="$rn" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 1e8 && d <= b * 0.02) }' ||
			r="$r node$n: cpu-clock $v vs run_ns $rn;"
	fi
	eval "direct$n=\$v"
	grep -q '^kpmc_proc_alive{.*instname="[0-9]* loopsleep".*} 0$' "$work/node$n.metrics" || r="$r node$n: exited loopsleep not kept with alive 0;"
	# The CLI's total of pmc0 for loopcli: the row "pid tid samples pmc0 ...".
	c=$(grep -a 'node: cli: ' "$work/node$n.log" | sed 's/^.*node: cli: //' |
		awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { print $4; exit }')
	[ -n "$c" ] || r="$r node$n: no CLI total;"
	eval "cli$n=\$c"
	# pmrep replays the archive: raw cpu-clock of loopsleep, unchanged over 3 samples, = what pmproxy serves.
	p=$(grep -a 'node: pmrep: ' "$work/node$n.log" | sed 's/^.*node: pmrep: //' | tr -d '\r' |
		awk -F, 'NR > 1 && $2 ~ /^[0-9]+$/ { print $2 }' | sort -u)
	np=$(grep -a 'node: pmrep: ' "$work/node$n.log" | sed 's/^.*node: pmrep: //' | tr -d '\r' |
		awk -F, 'NR > 1 && $2 ~ /^[0-9]+$/' | wc -l)
	echo "  node$n pmrep replay: $np samples of kpmc.proc.pmc0 for loopsleep, values: $(echo $p)"
	[ "$np" -ge 2 ] && [ "$p" = "$v" ] || r="$r node$n: pmrep replayed '$(echo $p)' ($np samples), pmproxy $v;"
done
[ -z "$r" ] || fail "$r"

# Prometheus: at least 2 scrapes of each node since the workloads ended,
# then per-node, per-process values of one PromQL query over both nodes.
sel='kpmc_proc_pmc0{instname=~"[0-9]+ loopsleep"}'
for i in $(seq 1 60); do
	win=$(($(date +%s) - done_at + 1))
	[ "$(promql "count_over_time(${sel}[${win}s]) >= 2" | wc -l)" -eq 2 ] && break
	sleep 1
done
scrapes=$(promql "count_over_time(${sel}[${win}s])" | awk '{ print $1 "=" $3 }' | sort | tr '\n' ' ')
echo "two-nodes: prometheus scrapes in the ${win} s since the workloads ended: $scrapes"
promql "$sel" >"$work/promql.out"
promql "count by (hostname) (${sel})" | sed 's/^/  per-node series count: /'
sed 's/^/  promql /' "$work/promql.out"
[ "$(wc -l <"$work/promql.out")" -eq 2 ] || r="$r promql $sel: $(wc -l <"$work/promql.out") series, 2 expected;"
for n in 1 2; do
	pv=$(awk -v h="node$n" '$1 == h { print $3 }' "$work/promql.out")
	eval "c=\$cli$n; d=\$direct$n"
	[ "$pv" = "$d" ] || r="$r node$n: prometheus $pv, pmproxy $d;"
	awk -v n="$n" -v a="$pv" -v b="$c" -v f="$bound" 'BEGIN { d = a - b; if (d < 0) d = -d;
		printf "  node%s: cpu-clock of loopsleep: prometheus %d, CLI %d: |difference| %d = %.4f %% (bound %.2f %%)\n",
			n, a, b, d, 100 * d / b, 100 * f; exit !(b > 1e8 && d <= f * b) }' ||
		r="$r node$n: prometheus $pv vs CLI $c beyond $bound;"
done
# The exited process is kept, with its final counts, on both nodes.
[ "$(promql 'kpmc_proc_alive{instname=~"[0-9]+ loopsleep"} == 0' | wc -l)" -eq 2 ] ||
	r="$r promql: kpmc_proc_alive of loopsleep not 0 on both nodes;"
# The job and step labels from the workload's cgroup (not its SLURM_JOB_ID=666).
promql 'kpmc_proc_pmc0{instname=~"[0-9]+ loopsleep",job="4242",step="0"}' >"$work/promql.job"
sed 's/^/  promql job="4242",step="0": /' "$work/promql.job"
[ "$(wc -l <"$work/promql.job")" -eq 2 ] || r="$r job=\"4242\" step=\"0\" labels: $(wc -l <"$work/promql.job") series, 2 expected;"
[ -z "$r" ] || fail "$r"
touch "$work/www/go"

# Killed and restarted: the final counts of the exited workload are served unchanged.
for n in 1 2; do
	while ! grep -aq 'node: agent restarted' "$work/node$n.log"; do
		[ "$(elapsed "$t" | cut -d. -f1)" -lt "$limit" ] || fail "node$n's agent not restarted in ${limit}s"
		sleep 1
	done
	grep -a 'node: agent' "$work/node$n.log" | sed "s/^/  node$n /"
	url="http://127.0.0.1:$((port0 + n))/metrics?names=kpmc.proc.pmc0,kpmc.proc.run_ns"
	curl -s --max-time 20 "$url" >"$work/node$n.after" || r="$r node$n: curl after restart failed;"
	for m in pmc0 run_ns; do
		a=$(sed -n "s/^kpmc_proc_$m{.*instname=\"[0-9]* loopsleep\".*} \([0-9]*\)\$/\1/p" "$work/node$n.metrics" | head -n1)
		b=$(sed -n "s/^kpmc_proc_$m{.*instname=\"[0-9]* loopsleep\".*} \([0-9]*\)\$/\1/p" "$work/node$n.after" | head -n1)
		echo "  node$n kpmc.proc.$m of loopsleep: $a before the restart, $b after"
		[ -n "$a" ] && [ "$a" = "$b" ] || r="$r node$n: kpmc.proc.$m $a before the agent's restart, '$b' after;"
	done
done
[ -z "$r" ] || fail "$r"
# Prometheus saw no change (no counter reset) across the kill: 2 scrapes after
# the restart, and the value constant since the workloads ended.
restart_at=$(date +%s)
for i in $(seq 1 60); do
	win=$(($(date +%s) - restart_at + 1))
	[ "$(promql "count_over_time(${sel}[${win}s]) >= 2" | wc -l)" -eq 2 ] && break
	sleep 1
done
win=$(($(date +%s) - done_at + 1))
promql "count_over_time(${sel}[${win}s])" | sed 's/^/  scrapes since the workloads ended: /'
promql "changes(${sel}[${win}s])" >"$work/promql.changes"
sed 's/^/  changes since the workloads ended (the restart included): /' "$work/promql.changes"
[ "$(awk '$3 == 0' "$work/promql.changes" | wc -l)" -eq 2 ] || r="$r prometheus: kpmc_proc_pmc0 changed across the agent's restart;"
[ -z "$r" ] || fail "$r"
echo "two-nodes: PASS in $(elapsed "$t") s of guests"
