#!/bin/sh
# A Slurm node of the cluster test (tests/pmda/slurm-cluster.sh), run by
# node-init.sh once pmcd, pmdakpmc and pmproxy are up. Both nodes: the
# cluster's private network (eth1: a QEMU socket network between the two
# guests, carried over the host's loopback), munge (the key the shared root
# was built with), slurmd with Slurm's cgroup v2 plugin, and the SPANK
# plugin kpmc.so. node1 also runs slurmctld and submits the jobs as user
# hpc; each node prints the reports the plugin leaves ("node: report ...").
# /kpmc/slurm.env (from the host): ITERS, EVENTS.
. /kpmc/slurm.env
node=$(hostname)
n=${node#node}
say() { echo "node: $* (t=$(cut -d' ' -f1 /proc/uptime)s)"; }

busybox ip link set eth1 up
busybox ip addr add "192.168.76.$n/24" dev eth1
printf '127.0.0.1 localhost\n192.168.76.1 node1\n192.168.76.2 node2\n' >/etc/hosts
useradd -u 1000 -m -s /bin/sh hpc
mkdir -p /run/munge /var/log/munge /var/lib/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge /etc/munge /etc/munge/munge.key
chmod 0400 /etc/munge/munge.key
setpriv --reuid=munge --regid=munge --init-groups /usr/sbin/munged --force >/tmp/munged.out 2>&1
say "munged rc=$?"
cp /kpmc/slurm/slurm.conf /kpmc/slurm/cgroup.conf /kpmc/slurm/plugstack.conf /etc/slurm/
mkdir -p /usr/lib/x86_64-linux-gnu/slurm /var/spool/slurmd /var/spool/slurmctld /var/log/slurm
cp /kpmc/slurm/kpmc.so /usr/lib/x86_64-linux-gnu/slurm/kpmc.so
# The plugin's spool, served by pmdakpmc (steps /var/spool/kpmc).
mkdir -p /var/spool/kpmc
chmod 755 /var/spool/kpmc
# What systemd would have made: system.slice, with the controllers slurmd
# asks for delegated down to it (slurmd makes NODE_slurmstepd.scope there).
mkdir -p /sys/fs/cgroup/system.slice
for c in cpuset cpu memory pids; do
	echo "+$c" >/sys/fs/cgroup/cgroup.subtree_control
	echo "+$c" >/sys/fs/cgroup/system.slice/cgroup.subtree_control
done 2>/dev/null
if [ "$n" = 1 ]; then
	slurmctld -D >/var/log/slurm/slurmctld.out 2>&1 &
	say "slurmctld started"
fi
slurmd -D >/var/log/slurm/slurmd.out 2>&1 &
say "slurmd started"

# Each report as it appears, in the submit directory and the spool.
(
	seen=
	while :; do
		for f in /home/hpc/kpmc-*.json /home/hpc/kpmc-*.csv /var/spool/kpmc/kpmc-*.json; do
			[ -f "$f" ] || continue
			case " $seen " in *" $f "*) continue ;; esac
			seen="$seen $f"
			sleep 0.2
			echo "node: report $f owner $(stat -c %U "$f"): $(tr '\n' ' ' <"$f")"
		done
		sleep 1
	done
) &

# What the daemons said, when something did not come up (the host prints it).
dump_logs() {
	for f in /tmp/munged.out /var/log/slurm/slurmctld.out /var/log/slurm/slurmctld.log \
		/var/log/slurm/slurmd.out /var/log/slurm/slurmd.log; do
		[ -s "$f" ] && tail -n 15 "$f" | sed "s|^|node: log $f: |"
	done
}
if [ "$n" != 1 ]; then
	sleep 120
	grep -q 'error' /var/log/slurm/slurmd.log 2>/dev/null && dump_logs
	exit 0
fi
as_hpc() { (cd /home/hpc && runuser -u hpc -- "$@"); }
# wait_jobs IDS: until none of the jobs (comma-separated) is queued or running.
wait_jobs() {
	for i in $(seq 1 600); do
		[ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return
		sleep 1
	done
}
# wait_reports JOB STEP...: until the plugin wrote each step's report on
# this node (it closes the step's count first), 20 s at most.
wait_reports() {
	wr_job=$1
	shift
	for i in $(seq 1 100); do
		wr_missing=""
		for wr_step in "$@"; do
			[ -f "/home/hpc/kpmc-$wr_job.$wr_step.$node.json" ] || wr_missing="$wr_missing $wr_step"
		done
		[ -z "$wr_missing" ] && return
		sleep 0.2
	done
	say "job $wr_job: no report of steps$wr_missing after 20 s"
}
for i in $(seq 1 120); do
	[ "$(sinfo -h -o '%T %D' 2>/dev/null)" = "idle 2" ] && break
	sleep 1
done
say "sinfo: $(sinfo -h -o '%P %T %D %N' 2>&1 | tr '\n' ' ')"
[ "$(sinfo -h -o '%T %D' 2>/dev/null)" = "idle 2" ] || dump_logs
# Refusals, each before any task runs and named: an event this PMU does not
# have; an event set with ';' (two sets).
as_hpc srun -N1 -w node1 --kpmc=no_such_event true >/tmp/bad1.out 2>&1
say "refused-event rc=$? $(tr '\n' ' ' </tmp/bad1.out)"
as_hpc srun -N1 -w node1 '--kpmc=instr;cycles' true >/tmp/bad2.out 2>&1
say "refused-option rc=$? $(tr '\n' ' ' </tmp/bad2.out)"

# Job a on node1, job b on node2: the same known loop in the batch step.
# Job a is held until user hpc runs a long loop (20 times job a's) outside
# Slurm with SLURM_JOB_ID=a in its environment, which still runs when job a
# ends: the two shared node1's CPU all the while, and job a's counts must
# not grow by the outsider's.
a=$(as_hpc sbatch --parsable --hold -N1 -w node1 "--kpmc=$EVENTS" --wrap "/kpmc/jobloop 0 $ITERS 0")
as_hpc env SLURM_JOB_ID="$a" /kpmc/jobloop 0 $((20 * ITERS)) 0 &
outsider=$!
b=$(as_hpc sbatch --parsable -N1 -w node2 "--kpmc=$EVENTS" --wrap "/kpmc/jobloop 0 $ITERS 0")
scontrol release "$a"
say "submitted jobs a=$a b=$b"
wait_jobs "$a,$b"
if pgrep -u hpc -f "jobloop 0 $((20 * ITERS)) 0" >/dev/null; then
	say "outsider alive after job a: yes"
else
	say "outsider alive after job a: no"
fi
pkill -u hpc -f "jobloop 0 $((20 * ITERS)) 0"
wait "$outsider" 2>/dev/null
# Job c spans both nodes: srun's step 0 runs the loop once on each.
c=$(as_hpc sbatch --parsable -N2 --wrap "srun --kpmc=$EVENTS /kpmc/jobloop 0 $ITERS 0")
say "submitted job c=$c"
wait_jobs "$c"
# Job d: the same batch step with a loop of no iterations: what a batch
# step costs around its program (Slurm's script, the task's start).
d=$(as_hpc sbatch --parsable -N1 -w node1 "--kpmc=$EVENTS" --wrap "/kpmc/jobloop 0 0 0")
say "submitted job d=$d"
wait_jobs "$d"
# Job e: sbatch --kpmc over both nodes, srun inside (which inherits --kpmc):
# the batch step counts the job on node1 (its script, srun, the step's task
# there), the step counts itself on both nodes (on node1 beside the batch
# step, on the same counters).
e=$(as_hpc sbatch --parsable -N2 "--kpmc=$EVENTS" --wrap "srun /kpmc/jobloop 0 $ITERS 0")
say "submitted job e=$e"
wait_jobs "$e"
say "job e: $(tr '\n' ' ' </home/hpc/slurm-$e.out)"
say "spool after the jobs: $(ls -a /var/spool/kpmc | tr '\n' ' ')"
# Job g, not counted by the plugin: pmdakpmc counts its cgroup as a whole
# (cgroups directive), found while the script sleeps, before the loop.
g=$(as_hpc sbatch --parsable -N1 -w node2 --wrap "sleep 2; /kpmc/jobloop 0 $ITERS 0")
say "submitted job g=$g"
wait_jobs "$g"
# Job h: a step counted over time too (interval=100): its series beside its totals.
h=$(as_hpc sbatch --parsable -N1 -w node2 --wrap "srun --kpmc=$EVENTS,interval=100 /kpmc/jobloop 0 $ITERS 0")
say "submitted job h=$h"
wait_jobs "$h"

# Job f: three steps at once on node1 (the later ones --overlap). The first
# counts five loops; while it runs, a step asking for other events runs
# uncounted and says so, then one with the same events counts its own loop
# beside the first (the module counts both cgroups on the same counters).
long=$((5 * ITERS))
f=$(as_hpc sbatch --parsable -N1 -w node1 --wrap "srun --kpmc=$EVENTS /kpmc/jobloop 0 $long 0 &
while ! pgrep -u hpc -f 'jobloop 0 $long 0' >/dev/null; do sleep 0.2; done
srun --overlap --kpmc=${EVENTS%%,pmc1=*} /kpmc/jobloop 0 1000 0; echo other-rc=\$?
srun --overlap --kpmc=$EVENTS /kpmc/jobloop 0 $ITERS 0; echo second-rc=\$?
pgrep -u hpc -f 'jobloop 0 $long 0' >/dev/null && echo first-still-running; wait")
say "submitted job f=$f"
wait_jobs "$f"
say "job f: $(tr '\n' ' ' </home/hpc/slurm-$f.out)"
# The CLI's count of the same loop on this node, for the bound, once
# nothing counts system-wide here: Slurm has the job done once its script
# ends, while a step's slurmstepd may still close its count and write its
# report (spank exit), and pmdakpmc counts the job's cgroup (cgroups
# directive) until a rescan (200 ms) finds it gone. A run just after the
# job was refused ("system-wide monitoring is on") twice in a row (once
# after both reports were written: pmdakpmc's count), and passed after this wait.
wait_reports "$f" 0 2
for i in $(seq 1 100); do
	ls -d /sys/fs/cgroup/system.slice/*slurmstepd.scope/job_"$f" >/dev/null 2>&1 || break
	sleep 0.2
done
say "job f's cgroup gone: $(ls -d /sys/fs/cgroup/system.slice/*slurmstepd.scope/job_"$f" >/dev/null 2>&1 && echo no || echo yes)"
for i in $(seq 1 20); do
	/kpmc/kpmc -A -c "$EVENTS" -- /kpmc/jobloop 0 "$ITERS" 0 >/tmp/cli.out 2>&1 && break
	grep -q 'system-wide monitoring is on' /tmp/cli.out || break
	sleep 0.25
done
say "cli runs: $i"
sed 's/^/node: cli: /' /tmp/cli.out
# The plugin when the module is gone: refused, named.
rmmod kpmc
as_hpc srun -N1 -w node1 "--kpmc=$EVENTS" true >/tmp/bad3.out 2>&1
say "refused-nomodule rc=$? $(tr '\n' ' ' </tmp/bad3.out)"
insmod /kpmc/kpmc.ko
say "jobs done"
